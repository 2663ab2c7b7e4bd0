// elementwise.cu — the element-wise family (docs/elementwise.md; ptogpu/isa/elementwise: the
// launch plan kernels.py, the rules semantics_values.py mirrors in NumPy).
//
//   kernel            mirrors                                           launch per instance
//   tile_elementwise  dst[r,c] = op(src0[r,c], src1[r,c] | scalar)      dim3(1): rows, then
//                     for the tile-tile, tile-scalar and unary calls     columns, in order
//                     on integers of 1..8 bytes and float32
//
// Each operand is addressed base + (r * RowStride + c) * T (the NPUs' rule; on the simulator
// the host sends only row-major tiles without boxes, where its layout rule is the same). The
// target's models arrive as parameters: denormal flush, the max/min rule, the shift-count rule,
// the sign rules. Float NaN results follow x86's rules written out (the first NaN operand,
// quieted; an invalid operation: 0xFFC00000), as the NumPy semantics do, so every engine gives
// the same bytes whatever its hardware. pass 0 checks every access and flags (rec[3] = 0) a
// source that shares bytes with dst without being dst itself (the host runs NumPy, which reads
// everything first); pass 1 computes and writes.
#include "elementwise_ops.cuh"

extern "C" __global__ void __launch_bounds__(1024) tile_elementwise(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 VR = P[EW_VR], VC = P[EW_VC];
        const int k = (int)P[EW_KIND], T = ew_size(k);
        const bool two = P[EW_S1] >= 0;
        if (pass == 0) {
            // the bytes dst spans; a source over them that is not dst itself: NumPy
            const i64 lo = P[EW_DST], hi = P[EW_DST] + ((VR - 1) * P[EW_DRS] + VC) * T;
            const bool same0 = P[EW_S0] == P[EW_DST] && P[EW_S0RS] == P[EW_DRS];
            const bool same1 = two && P[EW_S1] == P[EW_DST] && P[EW_S1RS] == P[EW_DRS];
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < VC; ++c) {
                    const u64 e = (u64)(r * VC + c);
                    const i64 s0 = P[EW_S0] + (r * P[EW_S0RS] + c) * T;
                    const i64 da = P[EW_DST] + (r * P[EW_DRS] + c) * T;
                    if (!arena_ok(U, (u64)s0, T)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)s0, 0);
                    if (!same0 && s0 < hi && lo < s0 + T) rec[3] = 0;
                    if (two) {
                        const i64 s1 = P[EW_S1] + (r * P[EW_S1RS] + c) * T;
                        if (!arena_ok(U, (u64)s1, T)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)s1, 0);
                        if (!same1 && s1 < hi && lo < s1 + T) rec[3] = 0;
                    }
                    if (!arena_ok(U, (u64)da, T)) fault_note(rec, fault_key(PHASE_DST, e), (u64)da, 0);
                }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < VC; ++c) {
                    u64 a = 0, b = (u64)P[EW_SCALAR];
                    PTO_MEMCPY(&a, U.p + P[EW_S0] + (r * P[EW_S0RS] + c) * T, T);
                    if (two) { b = 0; PTO_MEMCPY(&b, U.p + P[EW_S1] + (r * P[EW_S1RS] + c) * T, T); }
                    const u64 v = ew_apply(P, a, b);
                    PTO_MEMCPY(U.p + P[EW_DST] + (r * P[EW_DRS] + c) * T, &v, T);
                }
        }
    }
}

PTO_EXPORT(tile_elementwise)
