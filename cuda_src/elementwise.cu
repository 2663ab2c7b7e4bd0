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

// Pass 1 over the tile, instantiated per (operation, kind): the element size is a constant and
// ew_apply_opk's switches fold away (a loop per operation, which the compiler can vectorise);
// the same rows, columns and order as one element at a time.
template <int OP, int KD>
PTO_DEV void ew_rows(const i64 *P, u8 *u, bool two) {
    constexpr int T = KD == K_F32 ? 4 : 1 << (KD / 2);
    const i64 VR = P[EW_VR], VC = P[EW_VC];
    for (i64 r = 0; r < VR; ++r) {
        const u8 *s0 = u + P[EW_S0] + r * P[EW_S0RS] * T;
        const u8 *s1 = u + (two ? P[EW_S1] + r * P[EW_S1RS] * T : 0);
        u8 *d = u + P[EW_DST] + r * P[EW_DRS] * T;
        for (i64 c = 0; c < VC; ++c) {
            u64 a = 0, b = (u64)P[EW_SCALAR];
            PTO_MEMCPY(&a, s0 + c * T, T);
            if (two) { b = 0; PTO_MEMCPY(&b, s1 + c * T, T); }
            const u64 v = ew_apply_opk(OP, KD, P, a, b);
            PTO_MEMCPY(d + c * T, &v, T);
        }
    }
}

#define EW_KINDS(OP) \
    case OP * 16 + K_I8: ew_rows<OP, K_I8>(P, u, two); return true; \
    case OP * 16 + K_U8: ew_rows<OP, K_U8>(P, u, two); return true; \
    case OP * 16 + K_I16: ew_rows<OP, K_I16>(P, u, two); return true; \
    case OP * 16 + K_U16: ew_rows<OP, K_U16>(P, u, two); return true; \
    case OP * 16 + K_I32: ew_rows<OP, K_I32>(P, u, two); return true; \
    case OP * 16 + K_U32: ew_rows<OP, K_U32>(P, u, two); return true; \
    case OP * 16 + K_I64: ew_rows<OP, K_I64>(P, u, two); return true; \
    case OP * 16 + K_U64: ew_rows<OP, K_U64>(P, u, two); return true; \
    case OP * 16 + K_F32: ew_rows<OP, K_F32>(P, u, two); return true;

// The instantiation for P's operation and kind; false for a pair there is none of.
PTO_DEV bool ew_dispatch(const i64 *P, u8 *u, bool two) {
    switch ((int)P[EW_OP] * 16 + (int)P[EW_KIND]) {
    EW_KINDS(OP_ADD) EW_KINDS(OP_SUB) EW_KINDS(OP_MUL) EW_KINDS(OP_DIV) EW_KINDS(OP_MAX) EW_KINDS(OP_MIN)
    EW_KINDS(OP_AND) EW_KINDS(OP_OR) EW_KINDS(OP_XOR) EW_KINDS(OP_SHL) EW_KINDS(OP_SHR) EW_KINDS(OP_NOT)
    EW_KINDS(OP_NEG) EW_KINDS(OP_ABS)
    default: return false;
    }
}

// Pass 0 at a glance: every operand's addresses rise with (r, c) (row strides > 0), so all lie in
// UB when its first and last do, and a source shares no byte with dst when their spans do not
// meet. True: the element loop would note nothing; false: run it (it finds the first fault).
PTO_DEV bool ew_spans_clean(const i64 *P, const Arena &U, int T, bool two) {
    const i64 VR = P[EW_VR], VC = P[EW_VC];
    const i64 lo = P[EW_DST], hi = P[EW_DST] + ((VR - 1) * P[EW_DRS] + VC) * T;
    if (P[EW_DRS] <= 0 || P[EW_S0RS] <= 0 || (two && P[EW_S1RS] <= 0)) return false;
    if (!arena_ok(U, (u64)lo, T) || !arena_ok(U, (u64)(hi - T), T)) return false;
    for (int s = 0; s < (two ? 2 : 1); ++s) {
        const i64 base = P[s ? EW_S1 : EW_S0], rs = P[s ? EW_S1RS : EW_S0RS];
        const i64 end = base + ((VR - 1) * rs + VC) * T;
        if (!arena_ok(U, (u64)base, T) || !arena_ok(U, (u64)(end - T), T)) return false;
        const bool same = base == P[EW_DST] && rs == P[EW_DRS];
        if (!same && base < hi && lo < end) return false;
    }
    return true;
}

extern "C" __global__ void __launch_bounds__(1024) tile_elementwise(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 VR = P[EW_VR], VC = P[EW_VC];
        const int k = (int)P[EW_KIND], T = ew_size(k);
        const bool two = P[EW_S1] >= 0;
        if (pass == 0) {
            if (P[EW_OP] < OP_ADD || P[EW_OP] > OP_ABS || k < K_I8 || k > K_F32) { rec[3] = 0; continue; }
            if (ew_spans_clean(P, U, T, two)) continue;
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
            ew_dispatch(P, U.p, two);                       // (pass 0 sent any other pair to NumPy)
        }
    }
}

PTO_EXPORT(tile_elementwise)
