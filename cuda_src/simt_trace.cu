// simt_trace.cu — trace mode of the A5 SIMT MGATHER launches (mgather.md §5.3, §5.4, §5.8).
//
//   kernel                   traces                                     launch
//   simt_trace_a5_row        mgather_a5_row (simt_mgather_row_kernel)   dim3(32, 32): the kernel
//   simt_trace_a5_elem       mgather_a5_elem (simt_mgather_elem_kernel)  decides which warps run,
//   simt_trace_a5_l1_elem    simt_mgather_l1_elem_kernel (GM->L1 SIMT)  as the data kernels do
//
// A trace writes thread ids instead of data. The thread loops are those of mgather.cu, built on
// the same common.cuh geometry functions (row_warps, warps_per_row, row_launch_warps,
// elem_launch_warps) and the same remap; for each destination slot a thread records
// (warp, lane, round, seq, table element read or -1, write count). `round` is the warp's loop
// step in lock-step execution, `seq` the position in the thread's own program order.
// ptogpu/simt/kernel_trace.py launches these and compares with ptogpu/semantics/launch_map.py.
#include "common.cuh"
#include "rules.cuh"

// Parameter block (int64 words); ptogpu/simt/kernel_trace.py reads the names from this file.
enum {
    TR_VR = 0, TR_VC, TR_ROWS, TR_COLS, TR_C0, TR_OOB, TR_CAP, TR_IDX, TR_ISTRIDE, TR_OUT,
    TR_WORDS
};
// Output at GM byte TR_OUT: TR_HEADER int64 words (word 0: launchWarps as the kernel computed
// it), then TR_REC int64 words per slot.
enum { TR_HEADER = 8, TR_REC = 6 };
enum { REC_WARP = 0, REC_LANE, REC_ROUND, REC_SEQ, REC_SRC, REC_COUNT };

PTO_DEV void tr_put_i64(const Mem &m, u64 addr, i64 v) {
    if (!arena_ok(m.a[SPACE_GM], addr, 8)) return;
    u8 *p = m.a[SPACE_GM].p + addr;
    for (int k = 0; k < 8; ++k) p[k] = (u8)((u64)v >> (8 * k));
}

PTO_DEV void tr_count(const Mem &m, u64 addr) {
    if (!arena_ok(m.a[SPACE_GM], addr, 8)) return;
    u64 *p = (u64 *)(m.a[SPACE_GM].p + addr);   // the host aligns the record area to 8 bytes
#ifdef PTO_HOST_SHIM
    __atomic_fetch_add(p, 1ull, __ATOMIC_RELAXED);
#else
    atomicAdd(p, 1ull);
#endif
}

PTO_DEV void tr_record(const i64 *P, const Mem &m, u64 slot, u32 warp, u32 lane, u64 round,
                       u64 seq, i64 src) {
    const u64 a = (u64)P[TR_OUT] + 8ull * (TR_HEADER + slot * TR_REC);
    tr_put_i64(m, a + 8 * REC_WARP, warp);
    tr_put_i64(m, a + 8 * REC_LANE, lane);
    tr_put_i64(m, a + 8 * REC_ROUND, (i64)round);
    tr_put_i64(m, a + 8 * REC_SEQ, (i64)seq);
    tr_put_i64(m, a + 8 * REC_SRC, src);
    tr_count(m, a + 8 * REC_COUNT);
}

// Index number k of the dense uint32 index array at TR_IDX, cast and remapped (§3);
// returns the table element read, or -1 when nothing is read (Zero, out of range).
PTO_DEV i64 tr_source(const i64 *P, const Mem &m, u64 k) {
    const u64 addr = (u64)P[TR_IDX] + 4ull * k;
    if (!arena_ok(m.a[SPACE_GM], addr, 4)) return -1;
    const u64 u = cast_index(load_index(m.a[SPACE_GM].p + addr, 4, 0), 32);
    bool rd;
    const u64 safe = remap(u, (u64)P[TR_CAP], (int)P[TR_OOB], 32, &rd);
    return rd ? (i64)safe : -1;
}

#define TR_SETUP(inst)                               \
    const i64 *P = prm + (inst) * prm_stride;        \
    PTO_MEM_OF(m, inst);                             \
    (void)fault;                                     \
    (void)pass

extern "C" __global__ void __launch_bounds__(1024) simt_trace_a5_row(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        TR_SETUP(inst);
        const u32 VR = (u32)P[TR_VR], VC = (u32)P[TR_VC];
        const u32 rowWarps = row_warps(VR), wpr = warps_per_row(VR, VC);
        const u32 tx = threadIdx.x, ty = threadIdx.y;
        if (tx == 0 && ty == 0) tr_put_i64(m, (u64)P[TR_OUT], (i64)row_launch_warps(VR, VC));
        if (tx >= 32u || ty >= rowWarps * wpr) continue;      // as mgather_a5_row
        const u32 rowWarp = ty % rowWarps, colSeg = ty / rowWarps, colStride = wpr * 32u;
        u64 inner = 0;                                        // the warp's steps per row: lane 0's
        for (u32 col = colSeg * 32u; col < VC; col += colStride) ++inner;
        u64 seq = 0, rowIter = 0;
        for (u32 row = rowWarp; row < VR; row += rowWarps, ++rowIter) {
            const i64 safe = tr_source(P, m, row);
            const i64 base = safe < 0 ? -1 : (i64)(((u64)safe * VC) & 0xFFFFFFFFull);
            u64 colIter = 0;
            for (u32 col = colSeg * 32u + tx; col < VC; col += colStride, ++colIter)
                tr_record(P, m, (u64)row * VC + col, ty, tx, rowIter * inner + colIter, seq++,
                          base < 0 ? -1 : base + (i64)col);
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) simt_trace_a5_elem(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        TR_SETUP(inst);
        const u64 VR = (u64)P[TR_VR], VC = (u64)P[TR_VC];
        const u64 total = (u64)(u32)(VR * VC);
        const u32 launchWarps = elem_launch_warps((u32)total);
        const u32 tx = threadIdx.x, ty = threadIdx.y;
        if (tx == 0 && ty == 0) tr_put_i64(m, (u64)P[TR_OUT], (i64)launchWarps);
        if (tx >= 32u || ty >= launchWarps) continue;          // as mgather_a5_elem
        const u64 launchThreads = 32u * launchWarps;
        u64 round = 0;
        for (u64 i = (u64)ty * 32u + tx; i < total; i += launchThreads, ++round) {
            const u64 r = VC == 1 ? i : i / VC, c = VC == 1 ? 0 : i % VC;
            tr_record(P, m, i, ty, tx, round, round, tr_source(P, m, r * VC + c));
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) simt_trace_a5_l1_elem(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        TR_SETUP(inst);
        const u64 VR = (u64)P[TR_VR], VC = (u64)P[TR_VC];
        const u64 Rows = (u64)P[TR_ROWS], Cols = (u64)P[TR_COLS], C0 = (u64)P[TR_C0];
        const u64 total = (u64)(u32)(Rows * Cols);
        const u32 launchWarps = elem_launch_warps((u32)total);
        const u32 tx = threadIdx.x, ty = threadIdx.y;
        if (tx == 0 && ty == 0) tr_put_i64(m, (u64)P[TR_OUT], (i64)launchWarps);
        if (tx >= 32u || ty >= launchWarps) continue;
        const u64 launchThreads = 32u * launchWarps;
        u64 round = 0;
        for (u64 off = (u64)ty * 32u + tx; off < total; off += launchThreads, ++round) {
            const u64 blockCol = off / (Rows * C0), rem = off % (Rows * C0);
            const u64 r = rem / C0, c = blockCol * C0 + rem % C0;
            i64 src = -1;                                       // padding: written as 0
            if (r < VR && c < VC) src = tr_source(P, m, r * (u64)P[TR_ISTRIDE] + c);
            tr_record(P, m, off, ty, tx, round, round, src);
        }
    }
}

PTO_EXPORT(simt_trace_a5_row)
PTO_EXPORT(simt_trace_a5_elem)
PTO_EXPORT(simt_trace_a5_l1_elem)
