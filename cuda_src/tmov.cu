// tmov.cu — TMOV between plain Vec tiles (docs/tmov.md; ptogpu/isa/tmov: the launch plan
// kernels.py, the rules semantics.py mirrors in NumPy).
//
//   kernel     mirrors                                                     launch per instance
//   tile_move  MV_ELEMENTS: the simulator's element loop over src's valid  dim3(1): the copy's
//              region (one type: a bit copy)                               bytes, in order
//              MV_BURSTS: A2/A3's 32-byte UB bursts, min(valid) rows and
//              columns: one flat burst of whole rows where dst's rows are
//              contiguous and full, else a burst per row rounded up to
//              whole blocks (the bytes past VC come along)
//              MV_VREGS: A5's predicated row copy, min(valid) rows and
//              columns, exactly VC elements a row
//   tile_move_map  A5's relayouts, unit by unit (an element or a byte):    dim3(1): the units,
//              MP_NZ: ND -> NZ fractal columns (src's valid rows, dst's    in order
//              valid columns); MP_ZN: ND -> ZN, whole fractals of dst's
//              valid shape; MP_FLAT: Vec (ND) -> Mat (L1), one flat copy of
//              whole 32-byte blocks; MP_NZ_BURSTS: Vec (NZ) -> Mat, the
//              bursts of copy_ubuf_to_cbuf with 16-bit counts
//
// Which copy a target makes, and its extent, are worked out here from the tiles' shapes and the
// engine word -- not from the NumPy semantics it is checked against. Tiles are plain row-major
// (base + (r * Cols + c) * size). Pass 0 checks every access and flags (rec[3] = 0) a source byte
// the copy also writes (the host runs NumPy, which reads everything first); pass 1 copies.
#include "common.cuh"

enum {
    MV_ENGINE = 0, MV_T, MV_S, MV_SC, MV_SVR, MV_SVC, MV_D, MV_DR, MV_DC, MV_DVR, MV_DVC, MV_DSTATIC_VC,
    MV_WORDS
};
enum { MV_ELEMENTS = 0, MV_BURSTS, MV_VREGS };

// The copy as `rows` runs of `len` bytes: run r reads s + r * ss and writes d + r * ds.
struct MvPlan {
    i64 rows, len, ss, ds;
};

PTO_DEV MvPlan mv_plan(const i64 *P) {
    const i64 T = P[MV_T];
    MvPlan p;
    if (P[MV_ENGINE] == MV_ELEMENTS) {              // src's valid region (the shapes are asserted equal)
        p.rows = P[MV_SVR];
        p.len = P[MV_SVC] * T;
        p.ss = P[MV_SC] * T;
        p.ds = P[MV_DC] * T;
        return p;
    }
    const i64 VR = P[MV_SVR] < P[MV_DVR] ? P[MV_SVR] : P[MV_DVR];
    const i64 VC = P[MV_SVC] < P[MV_DVC] ? P[MV_SVC] : P[MV_DVC];
    p.ss = P[MV_SC] * T;
    p.ds = P[MV_DC] * T;
    if (VR == 0 || VC == 0) {
        p.rows = p.len = 0;
        return p;
    }
    if (P[MV_ENGINE] == MV_VREGS) {
        p.rows = VR;
        p.len = VC * T;
        return p;
    }
    const bool flat = (P[MV_DC] == P[MV_SC] || P[MV_DR] == 1) && (P[MV_DSTATIC_VC] == P[MV_DC] || VC == P[MV_DC]);
    if (flat) {                                     // one burst of VR whole rows, rounded up to blocks
        p.rows = 1;
        p.len = (P[MV_DC] * VR * T + 31) / 32 * 32;
        return p;
    }
    p.rows = VR;
    p.len = (VC * T + 31) / 32 * 32;
    return p;
}

extern "C" __global__ void __launch_bounds__(1024) tile_move(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const MvPlan p = mv_plan(P);
        if (p.rows == 0 || p.len == 0) continue;
        const i64 lo = P[MV_D], hi = P[MV_D] + (p.rows - 1) * p.ds + p.len;
        if (pass == 0) {
            for (i64 r = 0; r < p.rows; ++r) {
                const i64 s = P[MV_S] + r * p.ss, d = P[MV_D] + r * p.ds;
                if (!arena_ok(U, (u64)s, p.len)) fault_note(rec, fault_key(PHASE_TABLE, (u64)r), (u64)s, 0);
                if (!arena_ok(U, (u64)d, p.len)) fault_note(rec, fault_key(PHASE_DST, (u64)r), (u64)d, 0);
                if (s < hi && lo < s + p.len && !(s == d && p.ss == p.ds)) rec[3] = 0;
            }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 r = 0; r < p.rows; ++r) {
                const u8 *s = U.p + P[MV_S] + r * p.ss;
                u8 *d = U.p + P[MV_D] + r * p.ds;
                for (i64 b = 0; b < p.len; ++b) d[b] = s[b];
            }
        }
    }
}

PTO_EXPORT(tile_move)

// ---- A5's relayouts ------------------------------------------------------------------------
enum {
    MP_FORM = 0, MP_T, MP_SSPACE, MP_S, MP_SR, MP_SC, MP_SVR, MP_DSPACE, MP_D, MP_DR, MP_DVR, MP_DVC, MP_ROW_PLUS_ONE,
    MP_WORDS
};
enum { MP_NZ = 0, MP_ZN, MP_FLAT, MP_NZ_BURSTS };

// The number of units the form moves and their size in bytes.
PTO_DEV i64 mp_units(const i64 *P, i64 *unit) {
    const i64 T = P[MP_T], C0 = 32 / T;
    *unit = T;
    switch ((int)P[MP_FORM]) {
    case MP_NZ: return P[MP_SVR] * P[MP_DVC];
    case MP_ZN: return (P[MP_DVR] / C0) * (P[MP_DVC] / 16) * 16 * C0;
    case MP_FLAT: *unit = 1; return P[MP_DVR] * P[MP_DVC] * T / 32 * 32;
    default: {
        *unit = 1;
        const i64 nb = ((P[MP_DVC] + C0 - 1) / C0) & 0xFFFF, len = ((P[MP_DVR] + 15) / 16 * 16 * C0 * T / 32) & 0xFFFF;
        return nb * len * 32;
    }
    }
}

// Unit k's source and destination byte addresses.
PTO_DEV void mp_unit(const i64 *P, i64 k, i64 *sa, i64 *da) {
    const i64 T = P[MP_T], C0 = 32 / T;
    switch ((int)P[MP_FORM]) {
    case MP_NZ: {
        // V: the column blocks' rows, ceil16(valid rows), one more for a CompactMode::RowPlusOne dst
        // (a5/TMov.hpp:517-520: isOptForConflict)
        const i64 r = k / P[MP_DVC], c = k % P[MP_DVC], V = (P[MP_DVR] + 15) / 16 * 16 + P[MP_ROW_PLUS_ONE];
        *sa = P[MP_S] + (r * P[MP_SC] + c) * T;
        *da = P[MP_D] + ((c / C0) * V * C0 + r * C0 + c % C0) * T;
        return;
    }
    case MP_ZN: {                                   // k = ((kf * nF + nf) * 16 + j) * C0 + i
        const i64 nF = P[MP_DVC] / 16, i = k % C0, j = (k / C0) % 16, f = k / (16 * C0), kf = f / nF, nf = f % nF;
        *da = P[MP_D] + k * T;
        *sa = P[MP_S] + ((kf * C0 + i) * P[MP_DVC] + nf * 16 + j) * T;
        return;
    }
    case MP_FLAT: *sa = P[MP_S] + k; *da = P[MP_D] + k; return;
    default: {
        const i64 len = ((P[MP_DVR] + 15) / 16 * 16 * C0 * T / 32) & 0xFFFF, gap = (P[MP_SR] - P[MP_DR]) & 0xFFFF;
        const i64 b = k / (len * 32), o = k % (len * 32);
        *sa = P[MP_S] + b * (len + gap) * 32 + o;
        *da = P[MP_D] + b * len * 32 + o;
        return;
    }
    }
}

extern "C" __global__ void __launch_bounds__(1024) tile_move_map(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
        const Arena &A = m.a[P[MP_SSPACE]], &B = m.a[P[MP_DSPACE]];
        i64 unit;
        const i64 n = mp_units(P, &unit);
        if (pass == 0) {
            i64 slo = 0, shi = 0, dlo = 0, dhi = 0;
            for (i64 k = 0; k < n; ++k) {
                i64 sa, da;
                mp_unit(P, k, &sa, &da);
                if (!arena_ok(A, (u64)sa, unit)) fault_note(rec, fault_key(PHASE_TABLE, (u64)k), (u64)sa, 0);
                if (!arena_ok(B, (u64)da, unit)) fault_note(rec, fault_key(PHASE_DST, (u64)k), (u64)da, 0);
                slo = k == 0 || sa < slo ? sa : slo;
                shi = k == 0 || sa + unit > shi ? sa + unit : shi;
                dlo = k == 0 || da < dlo ? da : dlo;
                dhi = k == 0 || da + unit > dhi ? da + unit : dhi;
            }
            // every source unit is read before any is written: the host runs NumPy where they share bytes
            if (n && P[MP_SSPACE] == P[MP_DSPACE] && slo < dhi && dlo < shi) rec[3] = 0;
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 k = 0; k < n; ++k) {
                i64 sa, da;
                mp_unit(P, k, &sa, &da);
                PTO_MEMCPY(B.p + da, A.p + sa, unit);
            }
        }
    }
}

PTO_EXPORT(tile_move_map)
