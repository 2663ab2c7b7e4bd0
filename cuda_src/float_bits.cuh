// float_bits.cuh — element bits as exact values, for the kernels that compare, sort or convert
// them (compare.cu, sort.cu, cvt.cu): half decoded bit by bit (a NaN as NumPy's half -> double
// makes it: the payload moved up, not quieted), bfloat16 and float32 through float, integers
// sign- or zero-extended. Written out rather than left to a device's half type so that every
// engine gives the same bits.
#ifndef PTOGPU_FLOAT_BITS_CUH
#define PTOGPU_FLOAT_BITS_CUH

#include "common.cuh"

PTO_DEV double fb_p2(int e) {                          // 2^e, exactly (|e| small)
    double v = 1.0;
    for (; e > 0; --e) v *= 2.0;
    for (; e < 0; ++e) v *= 0.5;
    return v;
}

PTO_DEV double fb_half(u32 h) {
    h &= 0xFFFFu;
    const u32 e = (h >> 10) & 31u, m = h & 1023u;
    double v;
    if (e == 31u) {
        const u64 w = 0x7FF0000000000000ull | ((u64)m << 42);
        PTO_MEMCPY(&v, &w, 8);
    } else {
        v = e ? (double)(m | 1024u) * fb_p2((int)e - 25) : (double)m * fb_p2(-24);
    }
    return (h >> 15) ? -v : v;
}

// A float element's value: `bytes` 4 (float32) or 2 (half, or bfloat16 when `bf16`).
PTO_DEV double fb_float(u64 b, int bytes, bool bf16) {
    if (bytes == 2 && !bf16) return fb_half((u32)b);
    const u32 w = bytes == 4 ? (u32)b : (u32)(b & 0xFFFFu) << 16;
    float f;
    PTO_MEMCPY(&f, &w, 4);
    return (double)f;
}

// An integer element of `bytes` bytes, sign-extended (`sgn`) or zero-extended; 8 bytes: its bits.
PTO_DEV i64 fb_int(u64 b, int bytes, bool sgn) {
    const int w = 8 * bytes;
    if (w == 64) return (i64)b;
    const u64 m = (1ull << w) - 1;
    b &= m;
    return (sgn && (b >> (w - 1))) ? (i64)(b | ~m) : (i64)b;
}

#endif  // PTOGPU_FLOAT_BITS_CUH
