// dma.cu — the MTE2 DMA burst executor (other-ops.md §D; ptogpu/semantics/dma.py execute()).
//
//   kernel       mirrors                                        launch per instance
//   dma_bursts   one copy_gm_to_* / TLOAD / TSTORE burst list   dim3(1): bursts in issue order
//
// The burst list (src, dst, len per burst, in issue order) arrives in the parameter block
// after the header; every instance may have its own list (per-instance parameter stride).
// pass 0 checks every burst (all reads, then all writes, in issue order); pass 1 writes the
// bursts of a clean instance in issue order, so the last writer of every byte wins. The host
// runs its prologue (e.g. MGATHER's pre-zero) between the two passes.
#include "common.cuh"
#include "burst.cuh"

enum { DMA_K = 0, DMA_SRC_SPACE, DMA_DST_SPACE, DMA_FMT, DMA_HDR = DMA_FMT + BF_WORDS };
enum { DMA_B_SRC = 0, DMA_B_DST, DMA_B_LEN, DMA_B_WORDS };

extern "C" __global__ void __launch_bounds__(1024) dma_bursts(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
        const BurstFmt f = burst_fmt(P + DMA_FMT);
        const Arena &S = m.a[P[DMA_SRC_SPACE]], &D = m.a[P[DMA_DST_SPACE]];
        const i64 K = P[DMA_K];
        const i64 *B = P + DMA_HDR;
        if (pass == 0) {
            for (i64 k = 0; k < K; ++k, B += DMA_B_WORDS)
                burst_check(S, D, f, rec, ACT_NOTE, (u64)k, B[DMA_B_SRC], B[DMA_B_DST], B[DMA_B_LEN]);
        } else if (rec[0] == FAULT_NONE) {
            for (i64 k = 0; k < K; ++k, B += DMA_B_WORDS)
                burst_write(S, D, f, B[DMA_B_SRC], B[DMA_B_DST], B[DMA_B_LEN]);
        }
    }
}

PTO_EXPORT(dma_bursts)
