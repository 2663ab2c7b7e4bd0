// compare.cu — TCMP / TCMPS / TSEL / TSELS (docs/compare.md; ptogpu/isa/compare: the launch plan
// kernels.py, the rules semantics.py mirrors in NumPy).
//
//   kernel        mirrors                                                 launch per instance
//   tile_compare  CP_NPU_ROWS: the NPUs' TCMP / TCMPS mask rows (A2/A3:   dim3(1): rows, then
//                 whole 256-byte repeats, padding lanes compared; A5:     columns, in order
//                 predicated chunks), A2/A3's NE as EQ then vnot
//                 CP_CPU_WORDS: the simulator's TCMP words of 8/32 bits
//                 CP_CPU_REFLOW: the simulator's TCMPS byte stream
//                 CP_SELECT: TSEL / TSELS, each target's mask walk
//
// The comparison, the target's effective mode (A2/A3 compares int32 with EQ whatever the mode,
// and its NE is EQ then NOT), the packing widths and the mask walks are computed here from the
// target's rule words; nothing of the NumPy semantics arrives but the tiles' addresses and
// shapes. Tiles are plain row-major (base + (r * Cols + c) * size); the host sends no other. Pass
// 0 checks every access and flags (rec[3] = 0) a read of bytes the call writes (the host runs
// NumPy, which reads everything first) -- but a TSEL source that is dst itself, read element by
// element before the same element is written; pass 1 computes and writes.
#include "float_bits.cuh"

enum {
    CP_OP = 0, CP_KIND, CP_VR, CP_VC, CP_MODE, CP_EQ_I32, CP_NE_NOT, CP_HALF_BITS, CP_TOLERANT, CP_SCALAR_ON,
    CP_SCALAR, CP_S0, CP_S0C, CP_S0R, CP_S1, CP_S1C, CP_DST, CP_DSTC, CP_DROWS, CP_DSIZE, CP_DVR, CP_DVC,
    CP_PACK, CP_B64COLS, CP_WALK, CP_MASK, CP_MASKC, CP_MSIZE, CP_MVC, CP_WORDS
};
enum { CP_NPU_ROWS = 0, CP_CPU_WORDS, CP_CPU_REFLOW, CP_SELECT };
enum { CK_I8 = 0, CK_U8, CK_I16, CK_U16, CK_I32, CK_U32, CK_I64, CK_U64, CK_F16, CK_BF16, CK_F32 };
enum { CMP_EQ = 0, CMP_NE, CMP_LT, CMP_GT, CMP_GE, CMP_LE };
enum { PK_REPEATS = 0, PK_CHUNKS = 1 };
enum { WALK_FLAT = 0, WALK_WORDS, WALK_ROWS, WALK_ROWS_ELEMS };

PTO_DEV int cp_size(int k) { return k >= CK_F16 ? (k == CK_F32 ? 4 : 2) : 1 << (k / 2); }
PTO_DEV bool cp_float(int k) { return k >= CK_F16; }

PTO_DEV double cp_fvalue(u64 b, int k) { return fb_float(b, cp_size(k), k == CK_BF16); }
PTO_DEV i64 cp_ivalue(u64 b, int k) { return fb_int(b, cp_size(k), k % 2 == 0); }   // (uint64: its bits)

// `x mode y` on the elements' bits: IEEE for floats (NaN: EQ and the orders false, NE true;
// -0 == +0), exact for integers (uint64 unsigned); `tol`: the simulator's TCMPS EQ / NE as
// |x - y| < 1e-9 in double (NE: NaN or |x - y| > 1e-9).
PTO_DEV bool cp_compare(int mode, int k, u64 xb, u64 yb, bool tol) {
    if (cp_float(k) || (tol && (mode == CMP_EQ || mode == CMP_NE))) {
        const double x = cp_float(k) ? cp_fvalue(xb, k) : (k == CK_U64 ? (double)xb : (double)cp_ivalue(xb, k));
        const double y = cp_float(k) ? cp_fvalue(yb, k) : (k == CK_U64 ? (double)yb : (double)cp_ivalue(yb, k));
        if (tol && (mode == CMP_EQ || mode == CMP_NE)) {
            const double d = x - y < 0.0 ? y - x : x - y;        // |x - y| (NaN stays NaN)
            return mode == CMP_EQ ? d < 1e-9 : (x != x || y != y || d > 1e-9);
        }
        switch (mode) {
        case CMP_EQ: return x == y;
        case CMP_NE: return !(x == y);
        case CMP_LT: return x < y;
        case CMP_GT: return x > y;
        case CMP_GE: return x >= y;
        default: return x <= y;
        }
    }
    if (k == CK_U64) {
        switch (mode) {
        case CMP_EQ: return xb == yb;
        case CMP_NE: return xb != yb;
        case CMP_LT: return xb < yb;
        case CMP_GT: return xb > yb;
        case CMP_GE: return xb >= yb;
        default: return xb <= yb;
        }
    }
    const i64 x = cp_ivalue(xb, k), y = cp_ivalue(yb, k);
    switch (mode) {
    case CMP_EQ: return x == y;
    case CMP_NE: return x != y;
    case CMP_LT: return x < y;
    case CMP_GT: return x > y;
    case CMP_GE: return x >= y;
    default: return x <= y;
    }
}

PTO_DEV u64 cp_load(const Arena &U, i64 a, int n) {
    u64 v = 0;
    PTO_MEMCPY(&v, U.p + a, n);
    return v;
}

// The NPUs' TCMP / TCMPS row: lanes compared and bytes written per row (semantics.npu_rows).
PTO_DEV void cp_npu_geometry(const i64 *P, i64 *lanes, i64 *nbytes) {
    const i64 VC = P[CP_VC];
    const int T = cp_size((int)P[CP_KIND]);
    if (P[CP_PACK] == PK_REPEATS) {                 // whole repeats of 256 bytes
        const i64 E = 256 / T;
        *lanes = (VC + E - 1) / E * E;
        *nbytes = *lanes / 8;
        return;
    }
    if (T == 8) {                                   // A5's b64 rows: the first b64_cols columns
        *lanes = P[CP_B64COLS] > 0 && P[CP_B64COLS] < VC ? P[CP_B64COLS] : VC;
        *nbytes = VC ? 32 : 0;
        return;
    }
    const i64 cols = T == 1 ? 256 : 128, bytes = T == 1 ? 32 : 16;
    *lanes = VC;
    *nbytes = (VC + cols - 1) / cols * bytes;
}

// The mask bit of dst element (r, c) of a VC-wide walk under the target's walk
// (semantics.mask_bits): the address and width of the element holding it, and its bit.
PTO_DEV void cp_mask_at(const i64 *P, i64 VC, i64 r, i64 c, i64 *a, int *n, int *bit) {
    const i64 msz = P[CP_MSIZE];
    switch ((int)P[CP_WALK]) {
    case WALK_FLAT: {                               // one stream, low 8 bits of each element
        const i64 s = r * VC + c, e = s / 8, mvc = P[CP_MVC];
        const i64 mr = mvc ? e / mvc : 0, mc = mvc ? e % mvc : e;
        *a = P[CP_MASK] + (mr * P[CP_MASKC] + mc) * msz;
        *n = (int)msz;
        *bit = (int)(s % 8);
        return;
    }
    case WALK_WORDS: {                              // element (r, c / bits)
        const i64 bits = 8 * msz;
        *a = P[CP_MASK] + (r * P[CP_MASKC] + c / bits) * msz;
        *n = (int)msz;
        *bit = (int)(c % bits);
        return;
    }
    default: {
        const bool elems = P[CP_WALK] == WALK_ROWS_ELEMS && P[CP_DSIZE] != 8;
        const i64 base = P[CP_MASK] + r * P[CP_MASKC] * (elems ? 1 : msz);
        const i64 byte = elems && P[CP_DSIZE] == 1 ? 16 * (c / 256) + (c % 256) / 8 : c / 8;
        *a = base + byte;
        *n = 1;
        *bit = (int)(c % 8);
        return;
    }
    }
}

PTO_DEV bool cp_overlap(i64 a, i64 n, i64 lo, i64 hi) { return a < hi && lo < a + n; }

// Pass 0 at a glance (the element loop still runs when this says no): each source's addresses
// rise with (r, c) (row pitches > 0), so all lie in UB when its first and last do and none is
// written by the call when their span misses [lo, hi); likewise the mask walks of TSEL (a flat
// walk only while the mask tile's pitch covers its valid width). True: the loop notes nothing.
// A TSEL / TSELS source that is dst itself (same address, row pitch and element size): each
// element is read before the same element is written, as NumPy's read-everything-first gives.
PTO_DEV bool cp_in_place(const i64 *P, int op, int s, int T) {
    return op == CP_SELECT && T == P[CP_DSIZE] && P[s ? CP_S1 : CP_S0] == P[CP_DST]
           && P[s ? CP_S1C : CP_S0C] == P[CP_DSTC];
}

PTO_DEV bool cp_spans_clean(const i64 *P, const Arena &U, int op, int T, bool two, i64 VR, i64 cols, i64 lanes,
                            i64 lo, i64 hi) {
    if (VR <= 0 || cols <= 0) return true;
    for (int s = 0; s < (two ? 2 : 1); ++s) {
        const i64 base = P[s ? CP_S1 : CP_S0], rs = P[s ? CP_S1C : CP_S0C];
        if (rs <= 0) return false;
        const i64 last = base + ((VR - 1) * rs + cols - 1) * T;
        if (!arena_ok(U, (u64)base, T) || !arena_ok(U, (u64)last, T)
            || (!cp_in_place(P, op, s, T) && cp_overlap(base, last + T - base, lo, hi)))
            return false;
    }
    if (op != CP_SELECT) return true;
    if (P[CP_MASKC] <= 0 || (P[CP_WALK] == WALK_FLAT && P[CP_MVC] > 0 && P[CP_MASKC] < P[CP_MVC])) return false;
    i64 a0, a1;
    int n0, n1, b;
    cp_mask_at(P, lanes, 0, 0, &a0, &n0, &b);
    cp_mask_at(P, lanes, VR - 1, cols - 1, &a1, &n1, &b);
    return a1 >= a0 && arena_ok(U, (u64)a0, n0) && arena_ok(U, (u64)a1, n1) && !cp_overlap(a0, a1 + n1 - a0, lo, hi);
}

// The NPUs' mask rows (pass 1 of CP_NPU_ROWS), instantiated per kind and mode: the element size
// a constant, cp_compare's switches folded; the same bits in the same order as cp_compare.
template <int K, int M>
PTO_DEV void cp_npu_rows(const i64 *P, const Arena &U, u8 *D, i64 VR, i64 lanes, i64 nbytes, i64 DS, bool two,
                         u64 scal) {
    constexpr int T = K >= CK_F16 ? (K == CK_F32 ? 4 : 2) : 1 << (K / 2);
    for (i64 r = 0; r < VR; ++r) {
        u8 *row = D + r * P[CP_DSTC] * DS;
        for (i64 b = 0; b < nbytes; ++b) row[b] = 0;
        const u8 *x0 = U.p + P[CP_S0] + r * P[CP_S0C] * T;
        const u8 *y0 = U.p + (two ? P[CP_S1] + r * P[CP_S1C] * T : 0);
        for (i64 c = 0; c < lanes && c < nbytes * 8; ++c) {
            u64 x = 0, y = scal;
            PTO_MEMCPY(&x, x0 + c * T, T);
            if (two) { y = 0; PTO_MEMCPY(&y, y0 + c * T, T); }
            if (cp_compare(M, K, x, y, false)) row[c / 8] |= (u8)(1u << (c % 8));
        }
    }
}

// The simulator's TCMP words (pass 1 of CP_CPU_WORDS), instantiated per kind and mode.
template <int K, int M>
PTO_DEV void cp_cpu_words(const i64 *P, const Arena &U, u8 *D, i64 VR, i64 VC, i64 nwords, i64 DS) {
    constexpr int T = K >= CK_F16 ? (K == CK_F32 ? 4 : 2) : 1 << (K / 2);
    const i64 kb = 8 * DS;
    for (i64 r = 0; r < VR; ++r) {
        const u8 *x0 = U.p + P[CP_S0] + r * P[CP_S0C] * T, *y0 = U.p + P[CP_S1] + r * P[CP_S1C] * T;
        for (i64 w = 0; w < nwords; ++w) {
            u64 word = 0;
            for (i64 j = 0; j < kb && w * kb + j < VC; ++j) {
                const i64 c = w * kb + j;
                u64 x = 0, y = 0;
                PTO_MEMCPY(&x, x0 + c * T, T);
                PTO_MEMCPY(&y, y0 + c * T, T);
                if (cp_compare(M, K, x, y, false)) word |= 1ull << j;
            }
            PTO_MEMCPY(D + (r * P[CP_DSTC] + w) * DS, &word, DS);
        }
    }
}

#define CP_WMODES(K) \
    case K * 8 + CMP_EQ: cp_cpu_words<K, CMP_EQ>(P, U, D, VR, VC, nwords, DS); return; \
    case K * 8 + CMP_NE: cp_cpu_words<K, CMP_NE>(P, U, D, VR, VC, nwords, DS); return; \
    case K * 8 + CMP_LT: cp_cpu_words<K, CMP_LT>(P, U, D, VR, VC, nwords, DS); return; \
    case K * 8 + CMP_GT: cp_cpu_words<K, CMP_GT>(P, U, D, VR, VC, nwords, DS); return; \
    case K * 8 + CMP_GE: cp_cpu_words<K, CMP_GE>(P, U, D, VR, VC, nwords, DS); return; \
    case K * 8 + CMP_LE: cp_cpu_words<K, CMP_LE>(P, U, D, VR, VC, nwords, DS); return;

PTO_DEV void cp_cpu_words_any(int k, int mode, const i64 *P, const Arena &U, u8 *D, i64 VR, i64 VC, i64 nwords,
                              i64 DS) {
    switch (k * 8 + mode) {
    CP_WMODES(CK_I8) CP_WMODES(CK_U8) CP_WMODES(CK_I16) CP_WMODES(CK_U16) CP_WMODES(CK_I32) CP_WMODES(CK_U32)
    CP_WMODES(CK_I64) CP_WMODES(CK_U64) CP_WMODES(CK_F16) CP_WMODES(CK_BF16) CP_WMODES(CK_F32)
    default: break;                                 // (pass 0 sent other kinds and modes to NumPy)
    }
}

#define CP_MODES(K) \
    case K * 8 + CMP_EQ: cp_npu_rows<K, CMP_EQ>(P, U, D, VR, lanes, nbytes, DS, two, scal); return; \
    case K * 8 + CMP_NE: cp_npu_rows<K, CMP_NE>(P, U, D, VR, lanes, nbytes, DS, two, scal); return; \
    case K * 8 + CMP_LT: cp_npu_rows<K, CMP_LT>(P, U, D, VR, lanes, nbytes, DS, two, scal); return; \
    case K * 8 + CMP_GT: cp_npu_rows<K, CMP_GT>(P, U, D, VR, lanes, nbytes, DS, two, scal); return; \
    case K * 8 + CMP_GE: cp_npu_rows<K, CMP_GE>(P, U, D, VR, lanes, nbytes, DS, two, scal); return; \
    case K * 8 + CMP_LE: cp_npu_rows<K, CMP_LE>(P, U, D, VR, lanes, nbytes, DS, two, scal); return;

PTO_DEV void cp_npu_rows_any(int k, int mode, const i64 *P, const Arena &U, u8 *D, i64 VR, i64 lanes, i64 nbytes,
                             i64 DS, bool two, u64 scal) {
    switch (k * 8 + mode) {
    CP_MODES(CK_I8) CP_MODES(CK_U8) CP_MODES(CK_I16) CP_MODES(CK_U16) CP_MODES(CK_I32) CP_MODES(CK_U32)
    CP_MODES(CK_I64) CP_MODES(CK_U64) CP_MODES(CK_F16) CP_MODES(CK_BF16) CP_MODES(CK_F32)
    default: break;                                 // (kinds and modes outside the enums: pass 0 sent them to NumPy)
    }
}

// TSEL / TSELS (pass 1 of CP_SELECT), instantiated per element size and mask walk (cp_mask_at's
// switch folded).
template <int N, int W>
PTO_DEV void cp_select_rows(const i64 *P, const Arena &U, u8 *D, i64 VR, i64 lanes, int T, bool two, u64 scal) {
    i64 Pw[CP_WORDS];
    for (int i = 0; i < CP_WORDS; ++i) Pw[i] = P[i];
    Pw[CP_WALK] = W;
    for (i64 r = 0; r < VR; ++r)
        for (i64 c = 0; c < lanes; ++c) {
            i64 ma;
            int mn, bit;
            cp_mask_at(Pw, lanes, r, c, &ma, &mn, &bit);
            const bool on = (cp_load(U, ma, mn) >> bit) & 1ull;
            u64 v = 0;
            if (on) PTO_MEMCPY(&v, U.p + P[CP_S0] + (r * P[CP_S0C] + c) * T, T);
            else if (two) PTO_MEMCPY(&v, U.p + P[CP_S1] + (r * P[CP_S1C] + c) * T, T);
            else v = scal;
            PTO_MEMCPY(D + (r * P[CP_DSTC] + c) * N, &v, N);
        }
}

#define CP_WALKS(N) \
    case N * 8 + WALK_FLAT: cp_select_rows<N, WALK_FLAT>(P, U, D, VR, lanes, T, two, scal); return; \
    case N * 8 + WALK_WORDS: cp_select_rows<N, WALK_WORDS>(P, U, D, VR, lanes, T, two, scal); return; \
    case N * 8 + WALK_ROWS: cp_select_rows<N, WALK_ROWS>(P, U, D, VR, lanes, T, two, scal); return; \
    case N * 8 + WALK_ROWS_ELEMS: cp_select_rows<N, WALK_ROWS_ELEMS>(P, U, D, VR, lanes, T, two, scal); return;

PTO_DEV void cp_select_any(int ds, int walk, const i64 *P, const Arena &U, u8 *D, i64 VR, i64 lanes, int T,
                           bool two, u64 scal) {
    switch (ds * 8 + walk) {
    CP_WALKS(1) CP_WALKS(2) CP_WALKS(4) CP_WALKS(8)
    default: break;                                 // (other sizes and walks: pass 0 sent them to NumPy)
    }
}

extern "C" __global__ void __launch_bounds__(1024) tile_compare(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const int k = (int)P[CP_KIND], T = cp_size(k), op = (int)P[CP_OP];
        const i64 VR = P[CP_VR], VC = P[CP_VC], DS = P[CP_DSIZE];
        const bool two = P[CP_S1] >= 0;
        int mode = (int)P[CP_MODE];
        const bool ne_not = P[CP_NE_NOT] && mode == CMP_NE;      // NE: EQ, then vnot (whatever the type)
        if ((P[CP_EQ_I32] && k == CK_I32) || ne_not) mode = CMP_EQ;      // (int32: vcmpv_eq)
        // what the call writes: [lo, hi) of UB
        i64 lanes = VC, nbytes = 0, lo = P[CP_DST], hi = P[CP_DST];
        i64 zero_n = 0, nwords = 0;
        if (op == CP_NPU_ROWS) {
            cp_npu_geometry(P, &lanes, &nbytes);
            hi = lo + (VR > 0 ? (VR - 1) * P[CP_DSTC] * DS + nbytes : 0);
            if (ne_not && VR > 0) {
                const i64 nn = VR * P[CP_DSTC] * DS / 2 * 2;
                if (lo + nn > hi) hi = lo + nn;
            }
        } else if (op == CP_CPU_WORDS) {
            const i64 kb = 8 * DS;
            nwords = (VC + kb - 1) / kb < P[CP_DVC] ? (VC + kb - 1) / kb : P[CP_DVC];
            zero_n = P[CP_DROWS] * P[CP_DSTC];
            hi = lo + zero_n * DS;
        } else if (op == CP_CPU_REFLOW) {
            zero_n = P[CP_DROWS] * P[CP_DSTC];
            hi = lo + zero_n * DS;
        } else {
            if (DS == 8 && P[CP_B64COLS] > 0 && VC > P[CP_B64COLS]) lanes = P[CP_B64COLS];
            hi = lo + (VR > 0 && lanes > 0 ? ((VR - 1) * P[CP_DSTC] + lanes) * DS : 0);
        }
        const i64 cols = op == CP_SELECT ? lanes : (op == CP_NPU_ROWS ? lanes : VC);
        if (pass == 0) {
            if (hi > lo && !arena_ok(U, (u64)lo, hi - lo)) fault_note(rec, fault_key(PHASE_DST, 0), (u64)lo, 0);
            if (((op == CP_NPU_ROWS || op == CP_CPU_WORDS) && (k < CK_I8 || k > CK_F32 || mode < CMP_EQ || mode > CMP_LE))
                || (op == CP_SELECT && ((DS != 1 && DS != 2 && DS != 4 && DS != 8) || P[CP_WALK] < WALK_FLAT
                                        || P[CP_WALK] > WALK_ROWS_ELEMS))) {
                rec[3] = 0;                         // (no instantiation: NumPy)
                continue;
            }
            if (cp_spans_clean(P, U, op, T, two, VR, cols, lanes, lo, hi)) continue;
            const bool in0 = cp_in_place(P, op, 0, T), in1 = two && cp_in_place(P, op, 1, T);
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < cols; ++c) {
                    const u64 e = (u64)(r * cols + c);
                    const i64 s0 = P[CP_S0] + (r * P[CP_S0C] + c) * T;
                    if (!arena_ok(U, (u64)s0, T)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)s0, 0);
                    if (!in0 && cp_overlap(s0, T, lo, hi)) rec[3] = 0;
                    if (two) {
                        const i64 s1 = P[CP_S1] + (r * P[CP_S1C] + c) * T;
                        if (!arena_ok(U, (u64)s1, T)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)s1, 0);
                        if (!in1 && cp_overlap(s1, T, lo, hi)) rec[3] = 0;
                    }
                    if (op == CP_SELECT) {
                        i64 ma;
                        int mn, bit;
                        cp_mask_at(P, lanes, r, c, &ma, &mn, &bit);
                        if (!arena_ok(U, (u64)ma, mn)) fault_note(rec, fault_key(PHASE_INDEX, e), (u64)ma, 0);
                        if (cp_overlap(ma, mn, lo, hi)) rec[3] = 0;
                    }
                }
            continue;
        }
        if (rec[0] != FAULT_NONE || rec[3] == 0) continue;
        u8 *D = U.p + lo;
        const bool tol = P[CP_TOLERANT] != 0;
        const u64 scal = (u64)P[CP_SCALAR];
        switch (op) {
        case CP_NPU_ROWS: {
            const int kk = P[CP_HALF_BITS] && (k == CK_I16 || k == CK_U16) ? CK_F16 : k;   // (the same size)
            cp_npu_rows_any(kk, mode, P, U, D, VR, lanes, nbytes, DS, two, scal);
            if (ne_not && VR > 0)
                for (i64 b = 0; b < VR * P[CP_DSTC] * DS / 2 * 2; ++b) D[b] = (u8)~D[b];
            break;
        }
        case CP_CPU_WORDS:
            for (i64 b = 0; b < zero_n * DS; ++b) D[b] = 0;
            cp_cpu_words_any(k, mode, P, U, D, VR, VC, nwords, DS);
            break;
        case CP_CPU_REFLOW: {                       // a Src::Rows x Src::Cols grid, Cols/8 bytes a row
            for (i64 b = 0; b < zero_n * DS; ++b) D[b] = 0;
            const i64 per = P[CP_S0C] / 8, total = P[CP_S0R] * per, dvc = P[CP_DVC], dvr = P[CP_DVR];
            if (dvc == 0) break;
            for (i64 s = 0; s < total && s < zero_n; ++s) {
                const i64 i = s / dvc, j = s % dvc;
                if (i >= dvr) continue;
                const i64 gr = s / per, gb = s % per;
                u64 byte = 0;
                for (int q = 0; q < 8; ++q) {
                    const i64 c = gb * 8 + q;
                    if (gr >= VR || c >= VC) continue;
                    const u64 x = cp_load(U, P[CP_S0] + (gr * P[CP_S0C] + c) * T, T);
                    const u64 y = two ? cp_load(U, P[CP_S1] + (gr * P[CP_S1C] + c) * T, T) : scal;
                    if (cp_compare(mode, k, x, y, tol)) byte |= 1ull << q;
                }
                PTO_MEMCPY(D + (i * P[CP_DSTC] + j) * DS, &byte, DS);
            }
            break;
        }
        default:                                    // TSEL / TSELS
            cp_select_any((int)DS, (int)P[CP_WALK], P, U, D, VR, lanes, T, two, scal);
            break;
        }
    }
}

PTO_EXPORT(tile_compare)
