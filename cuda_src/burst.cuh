// burst.cuh — one MTE2 DMA burst (other-ops.md §D.3; ptogpu/semantics/dma.py), shared by the
// DMA burst executor (dma.cu) and the GM->L1 MGATHER kernels (mgather_l1.cu).
//
// At its destination a burst writes `left` pad bytes, the payload (`len` bytes from `src`),
// `right` pad bytes and, when `fill`, filler up to the next 32-byte boundary of the absolute
// address. Pads and filler repeat one pad element of `elem` bytes: the constant `pad` (padmode
// 1) or the burst's first source element (padmode 0). Bursts run in issue order in one thread,
// so the last writer of a byte wins.
#ifndef PTOGPU_BURST_CUH
#define PTOGPU_BURST_CUH
#include "common.cuh"

struct BurstFmt {
    i64 elem, left, right;
    int fill, padmode;
    u8 pad[8];
};

// Burst format words (in this order) inside a parameter block.
enum { BF_ELEM = 0, BF_LEFT, BF_RIGHT, BF_FILL, BF_PADMODE, BF_PAD, BF_WORDS };
// BF_PADMODE: the pad element is each burst's first source element, the BF_PAD bytes, or (TLOAD)
// GetPadValue of a tile type, worked out here (BF_PAD: PAD_CUSTOM_BITS | ty << 32 | kind << 40).
enum { PADMODE_FIRST = 0, PADMODE_BYTES = 1, PADMODE_TILE = 2 };
// TLOAD's element types and PadVals (ptogpu/isa/datamove/kernels.py sends them).
enum { PADTY_OTHER = 0, PADTY_F32, PADTY_I32, PADTY_U32, PADTY_F16, PADTY_BF16, PADTY_I16, PADTY_U16,
       PADTY_I8, PADTY_U8 };
enum { PADK_ZERO = 0, PADK_MIN, PADK_MAX, PADK_CUSTOM };

// GetPadValue<TileData>() on the NPUs (constants.hpp:284-420 PadValueMap): the pad register's bits
// for PadVal Min / Max of each type it maps (others, and Zero, 0); a custom value's 32 bits, cut to
// the element's size below 4 bytes. Written apart from the NumPy semantics (semantics_pads.py),
// which the suite's kernel-against-NumPy campaigns compare it with.
PTO_DEV u64 npu_pad_bits(int ty, int kind, u64 custom, i64 size) {
    if (kind == PADK_CUSTOM) return size >= 4 ? custom : custom & ((1ull << (8 * size)) - 1);
    if (kind == PADK_ZERO) return 0;
    const bool mx = kind == PADK_MAX;
    switch (ty) {
    case PADTY_F32: return mx ? 0x7F800000u : 0xFF800000u;
    case PADTY_I32: return mx ? 0x7FFFFFFFu : 0x80000000u;
    case PADTY_U32: return mx ? 0xFFFFFFFFu : 0u;
    case PADTY_F16: return mx ? 0x7C00u : 0xFC00u;
    case PADTY_BF16: return mx ? 0x7F80u : 0xFF80u;
    case PADTY_I16: return mx ? 0x7FFFu : 0x8000u;
    case PADTY_U16: return mx ? 0xFFFFu : 0u;
    case PADTY_I8: return mx ? 0x7Fu : 0x80u;
    case PADTY_U8: return mx ? 0xFFu : 0u;
    default: return 0;
    }
}

PTO_DEV BurstFmt burst_fmt(const i64 *w) {
    BurstFmt f;
    f.elem = w[BF_ELEM];
    f.left = w[BF_LEFT];
    f.right = w[BF_RIGHT];
    f.fill = (int)w[BF_FILL];
    f.padmode = (int)w[BF_PADMODE];
    u64 pad = (u64)w[BF_PAD];
    if (f.padmode == PADMODE_TILE) {        // the element: the register's low bits per load unit
        const i64 unit = f.elem < 4 ? f.elem : 4;  // (LoadTypeBySize_t: 8 bytes move as two units)
        const u64 bits = npu_pad_bits((int)((pad >> 32) & 0xFF), (int)((pad >> 40) & 0xFF),
                                      pad & 0xFFFFFFFFull, f.elem);
        pad = 0;
        for (int k = 0; k < 8; ++k) pad |= ((bits >> (8 * (k % unit))) & 0xFF) << (8 * k);
        f.padmode = PADMODE_BYTES;
    }
    for (int k = 0; k < 8; ++k) f.pad[k] = (u8)(pad >> (8 * k));
    return f;
}

// One past the last byte the burst writes (dst >= 0).
PTO_DEV i64 burst_end(const BurstFmt &f, i64 dst, i64 len) {
    const i64 body = dst + f.left + len + f.right;
    return f.fill ? (body + 31) / 32 * 32 : body;
}

// Check burst k (key = its issue number): the read, then the write (dma.py execute()).
PTO_DEV void burst_check(const Arena &S, const Arena &D, const BurstFmt &f, u64 *rec, int act,
                         u64 k, i64 src, i64 dst, i64 len) {
    if (src < 0 || src > S.size - len) on_bad(rec, act, fault_key(PHASE_TABLE, k), (u64)src, 0);
    if (dst < 0 || burst_end(f, dst, len) > D.size)
        on_bad(rec, act, fault_key(PHASE_DST, k), (u64)dst, 0);
}

// Write a checked burst.
PTO_DEV void burst_write(const Arena &S, const Arena &D, const BurstFmt &f, i64 src, i64 dst,
                         i64 len) {
    const i64 end = burst_end(f, dst, len), e = f.elem > 0 ? f.elem : 1;
    u8 pat[8];
    for (int k = 0; k < 8 && k < e; ++k) pat[k] = f.padmode ? f.pad[k] : S.p[src + k];
    u8 *d = D.p + dst;
    const u8 *s = S.p + src;
    const i64 F = end - dst, L = f.left, B = f.left + len;
    for (i64 p = 0; p < F; ++p) {
        if (p < L) d[p] = pat[p % e];
        else if (p < B) d[p] = s[p - L];
        else d[p] = pat[(p - B) % e];
    }
}

#endif  // PTOGPU_BURST_CUH
