// mgather_l1.cu — MGATHER GM->L1 on the NPU targets (mgather.md §5.6-§5.8, §6.7;
// ptogpu/semantics/mgather_l1.py).
//
//   kernel                   mirrors                                      launch per instance
//   mgather_l1_row           MGatherGm2L1RowImpl: one nd2nz burst per     dim3(1), rows in order
//                            C0 block of each read row (§5.6, §6.7)
//   mgather_l1_elem_scalar   MGatherGm2L1ElemImpl, Scalar executor (§5.7) dim3(1), row-major
//   mgather_l1_elem_simt     simt_mgather_l1_elem_kernel (§5.8)           dim3(32, clamp(ceil(Rows*Cols/32),1,32))
//
// Row: pass 0 checks the index reads, then every burst (reads, then writes); pass 1 pre-zeroes
// the tile for Zero and writes the bursts in issue order. Elem: pass 0 checks the index reads,
// the table reads, the scratch and the final scratch->L1 burst, and flags (rec[3] = 0) an
// index or table read that lands in the scratch (the executors then differ: the host runs the
// NumPy model); pass 1 has each thread write its positions of the padded NZ image to the
// scratch and to L1 (the scratch->L1 burst copies exactly that image).
#include "common.cuh"
#include "burst.cuh"
#include "rules.cuh"

enum {
    L1_VR = 0, L1_VC, L1_T, L1_C0, L1_ROWS, L1_COLS, L1_OOB, L1_CAP, L1_TBASE, L1_TSTRIDE3,
    L1_IDX, L1_IDX_RSTRIDE, L1_IDX_ESIZE, L1_IDX_SIGNED, L1_SCRATCH, L1_DST, L1_DST_NBYTES,
    L1_FMT, L1_WORDS = L1_FMT + BF_WORDS
};

// Index k of a GM index tensor at byte `addr`: false when the read leaves GM.
PTO_DEV bool l1_index(const i64 *P, const Mem &m, u64 addr, u64 *u) {
    const Arena &G = m.a[SPACE_GM];
    const int n = (int)P[L1_IDX_ESIZE];
    if (!arena_ok(G, addr, n)) return false;
    *u = cast_index(load_index(G.p + addr, n, (int)P[L1_IDX_SIGNED]), 32);
    return true;
}

// ---- Row ------------------------------------------------------------------------------------
PTO_DEV void l1_row_run(const i64 *P, const Mem &m, u64 *rec, int act) {
    const i64 VR = P[L1_VR], VC = P[L1_VC], T = P[L1_T], C0 = P[L1_C0], R = P[L1_ROWS];
    const i64 nblk = (VC + C0 - 1) / C0;
    const Arena &G = m.a[SPACE_GM], &L = m.a[SPACE_L1];
    const BurstFmt f = burst_fmt(P + L1_FMT);
    const int oob = (int)P[L1_OOB];
    if (act == ACT_WRITE && oob == OOB_ZERO) {      // create_cbuf_matrix(..., 0): clipped slice
        i64 a = P[L1_DST], e = a + P[L1_DST_NBYTES];
        if (a < 0) a = 0;
        if (e > L.size) e = L.size;
        for (i64 b = a; b < e; ++b) L.p[b] = 0;
    }
    u64 burst = 0;
    for (i64 r = 0; r < VR; ++r) {
        const u64 iaddr = (u64)P[L1_IDX] + (u64)r * (u64)P[L1_IDX_ESIZE];
        u64 u;
        if (!l1_index(P, m, iaddr, &u)) {
            on_bad(rec, act, fault_key(PHASE_INDEX, (u64)r), iaddr, 0);
            continue;
        }
        bool rd;
        const u64 safe = remap(u, (u64)P[L1_CAP], oob, 32, &rd);
        if (!rd) continue;
        const u64 start = safe * (u64)P[L1_TSTRIDE3];
        for (i64 b = 0; b < nblk; ++b, ++burst) {
            const i64 src = (i64)((u64)P[L1_TBASE] + (start + (u64)(b * C0)) * (u64)T);
            const i64 dst = P[L1_DST] + (b * R + r) * C0 * T;
            const i64 len = (C0 < VC - b * C0 ? C0 : VC - b * C0) * T;
            if (act == ACT_WRITE) burst_write(G, L, f, src, dst, len);
            else burst_check(G, L, f, rec, act, burst, src, dst, len);
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) mgather_l1_row(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
        if (pass == 0) l1_row_run(P, m, rec, ACT_NOTE);
        else if (rec[0] == FAULT_NONE) l1_row_run(P, m, rec, ACT_WRITE);
    }
}

// ---- Elem -----------------------------------------------------------------------------------
// Valid element (r, c): index, remap, table read. `pos` is its place in the executor's fault
// order. Returns false when nothing more can be said (index read outside GM).
PTO_DEV bool l1_elem_src(const i64 *P, const Mem &m, u64 *rec, int act, i64 r, i64 c, u64 pos,
                         bool *rd, u64 *src) {
    const i64 isz = P[L1_IDX_ESIZE];
    const u64 iaddr = (u64)P[L1_IDX] + ((u64)r * (u64)P[L1_IDX_RSTRIDE] + (u64)c) * (u64)isz;
    const u64 s0 = (u64)P[L1_SCRATCH], s1 = s0 + (u64)(P[L1_ROWS] * P[L1_COLS] * P[L1_T]);
    u64 u;
    if (!l1_index(P, m, iaddr, &u)) {
        on_bad(rec, act, fault_key(PHASE_INDEX, pos), iaddr, 0);
        return false;
    }
    if (act != ACT_WRITE && (i64)iaddr + isz > (i64)s0 && (i64)iaddr < (i64)s1)
        atomicMin(&rec[3], 0ull);
    const u64 safe = remap(u, (u64)P[L1_CAP], (int)P[L1_OOB], 32, rd);
    *src = (u64)P[L1_TBASE] + safe * (u64)P[L1_T];
    if (!*rd || act == ACT_WRITE) return true;
    const i64 T = P[L1_T];
    if (!arena_ok(m.a[SPACE_GM], *src, T)) on_bad(rec, act, fault_key(PHASE_TABLE, pos), *src, u);
    if ((i64)*src + T > (i64)s0 && (i64)*src < (i64)s1) atomicMin(&rec[3], 0ull);
    return true;
}

// The scratch and the final burst (phase 3: after every element's reads).
PTO_DEV void l1_elem_tail_check(const i64 *P, const Mem &m, u64 *rec, int act) {
    const i64 nbytes = P[L1_ROWS] * P[L1_COLS] * P[L1_T];
    const u64 s0 = (u64)P[L1_SCRATCH], d = (u64)P[L1_DST];
    if (!arena_ok(m.a[SPACE_GM], s0, nbytes)) on_bad(rec, act, fault_key(3, 0), s0, 0);
    const i64 end = ((i64)d + nbytes + 31) / 32 * 32;
    if ((i64)d < 0 || end > m.a[SPACE_L1].size) on_bad(rec, act, fault_key(3, 1), d, 0);
}

// Position `off` of the padded NZ tile: write its value to the scratch and to L1.
PTO_DEV void l1_elem_write(const i64 *P, const Mem &m, i64 off) {
    const i64 R = P[L1_ROWS], C0 = P[L1_C0], T = P[L1_T];
    const i64 bc = off / (R * C0), rem = off % (R * C0), r = rem / C0, c = bc * C0 + rem % C0;
    u8 *s = m.a[SPACE_GM].p + P[L1_SCRATCH] + off * T;
    u8 *d = m.a[SPACE_L1].p + P[L1_DST] + off * T;
    bool rd = false;
    u64 src = 0;
    if (r < P[L1_VR] && c < P[L1_VC]) l1_elem_src(P, m, 0, ACT_WRITE, r, c, 0, &rd, &src);
    if (rd) copy_elem(s, m.a[SPACE_GM].p + src, (int)T);
    else zero_elem(s, (int)T);
    copy_elem(d, s, (int)T);
}

extern "C" __global__ void __launch_bounds__(1024) mgather_l1_elem_scalar(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
        const i64 VR = P[L1_VR], VC = P[L1_VC], N = P[L1_ROWS] * P[L1_COLS];
        if (pass == 0) {
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < VC; ++c) {
                    bool rd;
                    u64 src;
                    l1_elem_src(P, m, rec, ACT_NOTE, r, c, (u64)(r * VC + c), &rd, &src);
                }
            l1_elem_tail_check(P, m, rec, ACT_NOTE);
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 off = 0; off < N; ++off) l1_elem_write(P, m, off);
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) mgather_l1_elem_simt(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
        const i64 VR = P[L1_VR], VC = P[L1_VC], R = P[L1_ROWS], C0 = P[L1_C0];
        const u64 N = (u64)(R * P[L1_COLS]);
        const u32 warps = elem_launch_warps((u32)N);
        const u32 tx = threadIdx.x, ty = threadIdx.y;
        if (tx >= 32u || ty >= warps) continue;
        const int act = simt_act(pass, rec);
        if (act == ACT_FILL) continue;               // the host reports faults (NumPy model)
        if (act == ACT_WRITE && rec[3] == 0) continue;
        const u64 lt = 32u * warps;
        for (u64 off = (u64)ty * 32u + tx; off < N; off += lt) {
            if (act == ACT_WRITE) {
                l1_elem_write(P, m, (i64)off);
                continue;
            }
            const i64 bc = (i64)off / (R * C0), rem = (i64)off % (R * C0);
            const i64 r = rem / C0, k = rem % C0, c = bc * C0 + k;
            if (r >= VR || c >= VC) continue;
            // Fault order: valid elements sorted by NZ offset.
            const i64 w = C0 < VC - bc * C0 ? C0 : VC - bc * C0;
            const u64 pos = (u64)(bc * VR * C0 + r * w + k);
            bool rd;
            u64 src;
            l1_elem_src(P, m, rec, act, r, c, pos, &rd, &src);
        }
        if (act == ACT_RACE && tx == 0 && ty == 0) l1_elem_tail_check(P, m, rec, ACT_RACE);
    }
}

PTO_EXPORT(mgather_l1_row)
PTO_EXPORT(mgather_l1_elem_scalar)
PTO_EXPORT(mgather_l1_elem_simt)
