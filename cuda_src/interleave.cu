// interleave.cu — TINTERLEAVE / TDEINTERLEAVE (other-ops.md §B; ptogpu/semantics/tinterleave.py).
//
//   kernel       mirrors                                              launch per instance
//   interleave   the element maps of TINTERLEAVE (two sources),       dim3(1): rows, then map
//                TDEINTERLEAVE (two sources) and TDEINTERLEAVE (one)  entries, in order
//
// Maps (c: position in the map; h = VC/2; n = the target's written count, which TINTERLEAVE
// works out here from VC, the element size and the target's odd-width rule word -- not taken
// from the NumPy semantics, which it is checked against):
//   MODE_INTERLEAVE  for p in 0,1: dst_p[c] = src_{c%2}[p*h + c/2],  c < n
//   MODE_DEINT2      for s in 0,1: dst_{c%2}[s*h + c/2] = src_s[c],  c < 2h
//   MODE_DEINT1      dst_{c%2}[c/2] = src_0[c],                      c < 2n
// pass 0 checks every source read, then every destination write (row-major over rows and map
// entries) and flags (rec[3] = 0) a source element inside the written bytes (then sources
// must be read as they were before the instruction: the host runs NumPy); pass 1 copies.
#include "common.cuh"

enum {
    IL_MODE = 0, IL_VR, IL_N, IL_H, IL_T, IL_D0, IL_D0C, IL_D1, IL_D1C, IL_S0, IL_S0C, IL_S1,
    IL_S1C, IL_VC, IL_ODD, IL_WORDS
};
enum { MODE_INTERLEAVE = 0, MODE_DEINT2 = 1, MODE_DEINT1 = 2 };
// TINTERLEAVE's odd-width rules: the simulator's loop runs c < VC/2 (column VC-1 untouched);
// A5's chunk loop stores min(VC, 2*ceil(h/E)*E), E = 256/sizeof(T) (a hole when h % E == 0);
// without the hole (quirk off), every column.
enum { ODD_SKIP_LAST = 0, ODD_VREG_HOLE = 1, ODD_ALL = 2 };

PTO_DEV i64 il_written(const i64 *P) {
    const i64 vc = P[IL_VC], h = vc >> 1, E = 256 / P[IL_T];
    switch ((int)P[IL_ODD]) {
    case ODD_SKIP_LAST: return 2 * h;
    case ODD_VREG_HOLE: { const i64 w = 2 * ((h + E - 1) / E) * E; return w < vc ? w : vc; }
    default: return vc;
    }
}

// Map entry e -> (dst no., dst col, src no., src col); returns the number of entries.
PTO_DEV i64 il_entries(const i64 *P) {
    const i64 n = P[IL_N], h = P[IL_H];
    switch ((int)P[IL_MODE]) {
    case MODE_INTERLEAVE: return 2 * il_written(P);
    case MODE_DEINT2: return 4 * h;
    default: return 2 * n;
    }
}

PTO_DEV void il_entry(const i64 *P, i64 e, i64 *dn, i64 *dc, i64 *sn, i64 *sc) {
    const i64 h = P[IL_H];
    switch ((int)P[IL_MODE]) {
    case MODE_INTERLEAVE: {
        const i64 w = il_written(P), p = e / w, c = e % w;
        *dn = p; *dc = c; *sn = c % 2; *sc = p * (P[IL_VC] >> 1) + c / 2;
        return;
    }
    case MODE_DEINT2: {
        const i64 s = e / (2 * h), c = e % (2 * h);
        *dn = c % 2; *dc = s * h + c / 2; *sn = s; *sc = c;
        return;
    }
    default:
        *dn = e % 2; *dc = e / 2; *sn = 0; *sc = e;
        return;
    }
}

extern "C" __global__ void __launch_bounds__(1024) interleave(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 VR = P[IL_VR], M = il_entries(P), T = P[IL_T];
        const i64 dbase[2] = {P[IL_D0], P[IL_D1]}, dcols[2] = {P[IL_D0C], P[IL_D1C]};
        const i64 sbase[2] = {P[IL_S0], P[IL_S1]}, scols[2] = {P[IL_S0C], P[IL_S1C]};
        if (pass == 0) {
            i64 lo = (i64)(~0ull >> 1), hi = -lo;
            for (int phase = PHASE_TABLE; phase <= PHASE_DST + 1; ++phase)
                for (i64 r = 0; r < VR; ++r)
                    for (i64 e = 0; e < M; ++e) {
                        i64 dn, dc, sn, sc;
                        il_entry(P, e, &dn, &dc, &sn, &sc);
                        const i64 sa = sbase[sn] + (r * scols[sn] + sc) * T;
                        const i64 da = dbase[dn] + (r * dcols[dn] + dc) * T;
                        const u64 key = fault_key(phase, (u64)(r * M + e));
                        if (phase == PHASE_TABLE) {
                            if (!arena_ok(U, (u64)sa, T)) fault_note(rec, key, (u64)sa, 0);
                        } else if (phase == PHASE_DST) {
                            if (!arena_ok(U, (u64)da, T)) fault_note(rec, key, (u64)da, 0);
                            if (da < lo) lo = da;
                            if (da + T > hi) hi = da + T;
                        } else if (rec[0] == FAULT_NONE && sa < hi && lo < sa + T) {
                            rec[3] = 0;
                        }
                    }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 r = 0; r < VR; ++r)
                for (i64 e = 0; e < M; ++e) {
                    i64 dn, dc, sn, sc;
                    il_entry(P, e, &dn, &dc, &sn, &sc);
                    copy_elem(U.p + dbase[dn] + (r * dcols[dn] + dc) * T,
                              U.p + sbase[sn] + (r * scols[sn] + sc) * T, (int)T);
                }
        }
    }
}

PTO_EXPORT(interleave)
