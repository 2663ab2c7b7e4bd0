// elementwise_ops.cuh — what one element-wise operation computes, per element, with the target's
// models as parameters (docs/elementwise.md; ptogpu/isa/elementwise/semantics_values.py mirrors
// it in NumPy): the kernel tile_elementwise (elementwise.cu) and the campaign engine
// (elementwise_fuzz.cu) both call ew_apply.
#ifndef PTOGPU_ELEMENTWISE_OPS_CUH
#define PTOGPU_ELEMENTWISE_OPS_CUH

#include "common.cuh"

enum {
    EW_OP = 0, EW_KIND, EW_VR, EW_VC, EW_DST, EW_DRS, EW_S0, EW_S0RS, EW_S1, EW_S1RS, EW_SCALAR, EW_FTZ,
    EW_MINMAX, EW_SHIFT, EW_NEG, EW_ABS, EW_WORDS
};
enum {
    OP_ADD = 0, OP_SUB, OP_MUL, OP_DIV, OP_MAX, OP_MIN, OP_AND, OP_OR, OP_XOR, OP_SHL, OP_SHR, OP_NOT, OP_NEG,
    OP_ABS
};
enum { K_I8 = 0, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64, K_F32 };
enum { MM_STD = 0, MM_VMAX = 1, MM_PSEUDO = 2 };       // max/min: std::max, vmax (NaN wins), ISA pseudo-code
enum { SH_C = 0, SH_VECTOR = 1 };                       // shift counts: C's promoted shift, the vector shift's
enum { SG_C = 0, SG_NPU = 1 };                          // TNEG / TABS: -x and x<0?-x:x, vmuls(x,-1) and vabs

PTO_DEV int ew_size(int k) { return k == K_F32 ? 4 : 1 << (k / 2); }
PTO_DEV bool ew_signed(int k) { return k != K_F32 && (k % 2) == 0; }

// The element's value: sign- or zero-extended integer bits.
PTO_DEV i64 ew_int(u64 bits, int k) {
    const int w = 8 * ew_size(k);
    if (w == 64) return (i64)bits;
    const u64 m = (1ull << w) - 1;
    bits &= m;
    if (ew_signed(k) && (bits >> (w - 1))) return (i64)(bits | ~m);
    return (i64)bits;
}

PTO_DEV float ew_f(u32 b) { float f; PTO_MEMCPY(&f, &b, 4); return f; }
PTO_DEV u32 ew_b(float f) { u32 b; PTO_MEMCPY(&b, &f, 4); return b; }
PTO_DEV bool ew_nan(u32 b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
PTO_DEV u32 ew_flush(u32 b, int ftz) {                 // a denormal as a zero of its sign
    return (ftz && (b & 0x7F800000u) == 0) ? (b & 0x80000000u) : b;
}

// x op y in float32 with the NaN rules made explicit (semantics_values.nan_rule).
PTO_DEV u32 ew_farith(int op, u32 xb, u32 yb, int ftz) {
    xb = ew_flush(xb, ftz);
    yb = ew_flush(yb, ftz);
    if (ew_nan(xb)) return xb | 0x00400000u;
    if (ew_nan(yb)) return yb | 0x00400000u;
    const float x = ew_f(xb), y = ew_f(yb);
    float r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    default: r = x / y; break;
    }
    u32 rb = ew_b(r);
    if (ew_nan(rb)) return 0xFFC00000u;
    return ew_flush(rb, ftz);
}

// max / min: returns true when the result is the second operand's (semantics_values.maxmin).
PTO_DEV bool ew_take_b(int op, int model, u64 a, u64 b, int k, int ftz, u64 *fa, u64 *fb) {
    const bool mx = op == OP_MAX;
    if (k == K_F32) {
        const u32 xb = ew_flush((u32)a, ftz), yb = ew_flush((u32)b, ftz);
        *fa = xb; *fb = yb;
        const float x = ew_f(xb), y = ew_f(yb);
        if (model == MM_STD) return mx ? (x < y) : (y < x);
        if (model == MM_VMAX) {
            if (ew_nan(xb)) return false;
            if (ew_nan(yb)) return true;
        }
        return !(mx ? (x > y) : (x < y));
    }
    *fa = a; *fb = b;
    if (k == K_U64) {
        if (model == MM_STD) return mx ? (a < b) : (b < a);
        return !(mx ? (a > b) : (a < b));
    }
    const i64 x = ew_int(a, k), y = ew_int(b, k);
    if (model == MM_STD) return mx ? (x < y) : (y < x);
    return !(mx ? (x > y) : (x < y));
}

// a << b, a >> b (semantics_values.shift).
PTO_DEV u64 ew_shift(int op, int model, u64 a, u64 b, int k) {
    const int w = 8 * ew_size(k);
    const bool sg = ew_signed(k);
    const i64 x = ew_int(a, k);
    if (w == 64) {
        const int n = (int)(ew_int(b, k) & 63);
        if (op == OP_SHL) return a << n;
        return sg ? (u64)(x >> n) : (a >> n);
    }
    i64 n;
    bool big = false;
    if (model == SH_C) {
        n = ew_int(b, k) & 31;                         // promoted to int; x86 masks the count
    } else {
        const i64 cs = ew_int(b, (k / 2) * 2);          // the count lane, signed
        big = cs < 0 || cs >= w;
        n = big ? 0 : cs;
    }
    u64 r;
    if (op == OP_SHL) r = (u64)((x << n) & (i64)0xFFFFFFFF);
    else r = (u64)(x >> n);                            // x is the value: arithmetic when signed
    if (big) r = (op == OP_SHR && sg && x < 0) ? ~0ull : 0ull;
    return r;
}

// The operation `op` on kind `k` (compile-time constants where a caller instantiates a loop
// per operation: elementwise_fuzz.cu; the switches then fold away), the models from P.
#if defined(PTO_HOST_SHIM) && !defined(PTO_COVERAGE)      // (out of line in a coverage build)
#define EW_OPK __attribute__((always_inline)) static inline
#else
#define EW_OPK PTO_DEV
#endif
EW_OPK u64 ew_apply_opk(int op, int k, const i64 *P, u64 a, u64 b) {
    const int ftz = (int)P[EW_FTZ];
    switch (op) {                                                  // the same on every kind
    case OP_MAX: case OP_MIN: {
        u64 fa, fb;
        return ew_take_b(op, (int)P[EW_MINMAX], a, b, k, ftz, &fa, &fb) ? fb : fa;
    }
    case OP_AND: return a & b;
    case OP_OR: return a | b;
    case OP_XOR: return a ^ b;
    case OP_NOT: return ~a;
    default: break;
    }
    if (k == K_F32) {
        const u32 sign = 0x80000000u, xa = (u32)a;
        switch (op) {
        case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: return ew_farith(op, xa, (u32)b, ftz);
        case OP_NEG:
            if (P[EW_NEG] == SG_C) return xa ^ sign;
            return ew_farith(OP_MUL, xa, 0xBF800000u, ftz);          // vmuls(x, -1)
        default:                                                   // OP_ABS
            if (P[EW_ABS] == SG_NPU) return xa & ~sign;
            return (ew_f(xa) < 0.0f) ? (xa ^ sign) : xa;
        }
    }
    const i64 x = ew_int(a, k), y = ew_int(b, k);
    switch (op) {
    case OP_ADD: return (u64)x + (u64)y;
    case OP_SUB: return (u64)x - (u64)y;
    case OP_MUL: return (u64)x * (u64)y;
    case OP_SHL: case OP_SHR: return ew_shift(op, (int)P[EW_SHIFT], a, b, k);
    case OP_NEG: return 0ull - (u64)x;
    default: return (x < 0) ? 0ull - (u64)x : (u64)x;           // OP_ABS (MIN stays MIN)
    }
}

PTO_DEV u64 ew_apply(const i64 *P, u64 a, u64 b) { return ew_apply_opk((int)P[EW_OP], (int)P[EW_KIND], P, a, b); }

#endif
