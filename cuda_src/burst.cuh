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

PTO_DEV BurstFmt burst_fmt(const i64 *w) {
    BurstFmt f;
    f.elem = w[BF_ELEM];
    f.left = w[BF_LEFT];
    f.right = w[BF_RIGHT];
    f.fill = (int)w[BF_FILL];
    f.padmode = (int)w[BF_PADMODE];
    const u64 pad = (u64)w[BF_PAD];
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
