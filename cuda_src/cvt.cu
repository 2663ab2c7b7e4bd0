// cvt.cu — TCVT (docs/tcvt.md; ptogpu/isa/tcvt: the launch plan kernels.py, the rules
// semantics.py mirrors in NumPy).
//
//   kernel       mirrors                                                    launch per instance
//   tile_convert dst[r, c] = convert(src[r, c]): the value as a double (or  dim3(1): rows, then
//                an int64), rounded by the mode letter (R A F C Z O N),     columns, in order
//                saturated or wrapped; the NPUs' rules, or the simulator's
//                C++ casts and what x86 gives where C++ leaves them undefined;
//                A2/A3's NonSatTorch tmp form; the 8-bit floats (float8_e4m3,
//                float8_e5m2, hifloat8) by A5's vcvt model or the simulator's
//                MXType / hifloat8_t classes (docs/tcvt.md)
//
// Every rounding is written out here: to an integral value by the letter; to half and bfloat16
// to nearest-even from the double's bits, then one step up or down for the directed letters; a
// NaN as each type's cast makes it (float32: quieted, payload kept; half: payload kept, not
// quieted; bfloat16: the canonical NaN). Nothing of the NumPy semantics arrives but the letter
// and the saturation the target's pair table gives. Plain row-major tiles; pass 0 checks every
// access and flags (rec[3] = 0) a source read of bytes the call writes (the host runs NumPy);
// pass 1 converts.
#include "float_bits.cuh"

enum {
    CV_S = 0, CV_D, CV_LETTER, CV_SAT, CV_CPU, CV_VR, CV_VC, CV_SRC, CV_SC, CV_DST, CV_DC, CV_MF, CV_TORCH,
    CV_WORDS
};
enum { VK_I8 = 0, VK_U8, VK_I16, VK_U16, VK_I32, VK_U32, VK_I64, VK_F16, VK_BF16, VK_F32, VK_E4M3, VK_E5M2, VK_HIF8 };
enum { L_R = 0, L_A, L_F, L_C, L_Z, L_O, L_N };
enum { MF_NONE = 0, MF_VCVT, MF_MX };                 // the 8-bit floats' model (tcvt rules: minifloats)

PTO_DEV int vk_size(int k) { return k >= VK_E4M3 ? 1 : k >= VK_F16 ? (k == VK_F32 ? 4 : 2) : 1 << (k / 2); }
PTO_DEV bool vk_f8(int k) { return k >= VK_E4M3; }
PTO_DEV bool vk_float(int k) { return k >= VK_F16; }
PTO_DEV bool vk_signed(int k) { return !vk_float(k) && k % 2 == 0; }

PTO_DEV u64 cv_b(double d) { u64 b; PTO_MEMCPY(&b, &d, 8); return b; }
PTO_DEV bool cv_nan(double x) { return x != x; }
PTO_DEV double cv_d(u64 b) { double d; PTO_MEMCPY(&d, &b, 8); return d; }
PTO_DEV double cv_nan_d(bool neg = false) { return cv_d(neg ? 0xFFF8000000000000ull : 0x7FF8000000000000ull); }
PTO_DEV double cv_inf_d() { return cv_d(0x7FF0000000000000ull); }
PTO_DEV bool cv_inf(double x) { return x - x != x - x && x == x; }
PTO_DEV double cv_fvalue(u64 b, int k) { return fb_float(b, vk_size(k), k == VK_BF16); }
PTO_DEV i64 cv_ivalue(u64 b, int k) { return fb_int(b, vk_size(k), vk_signed(k)); }

PTO_DEV double cv_floor(double x) {                    // (NaN, infinities and -0.0 kept)
    if (cv_nan(x) || cv_inf(x) || x == 0.0) return x;
    if (x >= 4503599627370496.0 || x <= -4503599627370496.0) return x;     // 2^52: integral
    double t = (double)(i64)x;                         // toward zero
    if (t > x) t -= 1.0;
    return t == 0.0 && x < 0.0 ? -0.0 : t;
}
PTO_DEV double cv_trunc(double x) {
    if (cv_nan(x) || cv_inf(x) || x >= 4503599627370496.0 || x <= -4503599627370496.0) return x;
    const double t = (double)(i64)x;
    return t == 0.0 && (cv_b(x) >> 63) ? -0.0 : t;
}
PTO_DEV double cv_ceil(double x) {
    const double f = -cv_floor(-x);
    return f;
}
PTO_DEV double cv_rint(double x) {                      // nearest, ties to even; -0.4 -> -0.0
    if (cv_nan(x) || cv_inf(x) || x >= 4503599627370496.0 || x <= -4503599627370496.0) return x;
    const double fl = cv_floor(x), frac = x - fl;
    double r = frac > 0.5 ? fl + 1.0 : frac < 0.5 ? fl : (((i64)fl & 1) ? fl + 1.0 : fl);
    if (r == 0.0) r = (cv_b(x) >> 63) ? -0.0 : 0.0;
    return r;
}

// float64 rounded to an integral value by the letter (semantics.to_integral).
PTO_DEV double cv_integral(double x, int L) {
    const double fl = cv_floor(x), frac = x - fl;
    switch (L) {
    case L_R: return cv_rint(x);
    case L_A: return frac > 0.5 ? fl + 1.0 : frac < 0.5 ? fl : (x > 0 ? fl + 1.0 : fl);
    case L_F: return fl;
    case L_C: return cv_ceil(x);
    case L_O: {
        const bool odd = cv_floor(fl * 0.5) * 2.0 != fl;          // (floor(fl) mod 2 == 1)
        return frac > 0.5 ? fl + 1.0 : frac < 0.5 ? fl : (odd ? fl : fl + 1.0);
    }
    default: return cv_trunc(x);
    }
}

// n >= 0 to the nearest integral value, ties to even (the binary formats' rounding).
PTO_DEV double cv_rne(double n) {
    double r = cv_floor(n);
    const double frac = n - r;
    if (frac > 0.5 || (frac == 0.5 && cv_floor(r * 0.5) * 2.0 != r)) r += 1.0;
    return r;
}

// double -> a binary float of `mb` mantissa bits and exponents [1 - bias, bias], nearest-even,
// as the type's bits (sign at bit 1 + mb + eb - 1); overflow to infinity. NaN: the caller's.
PTO_DEV u32 cv_round_bits(double x, int mb, int eb) {
    const u64 b = cv_b(x);
    const u32 sign = (u32)(b >> 63) << (mb + eb);
    const int bias = (1 << (eb - 1)) - 1;
    const u32 inf = ((1u << eb) - 1u) << mb;
    double a = x < 0 ? -x : x;
    if (cv_inf(a)) return sign | inf;
    if (a == 0.0) return sign;
    // a = m * 2^e with the smallest e the type allows: quantum q = 2^(max(exp, 1 - bias) - mb)
    const int ex = (int)((cv_b(a) >> 52) & 2047) - 1023;              // (a double's exponent)
    int qe = (ex < 1 - bias ? 1 - bias : ex) - mb;
    if (ex < -1074 + 52) {                                             // a double denormal: far below
        qe = 1 - bias - mb;
    }
    const double q = fb_p2(qe);
    const double r = cv_rne(a / q);                                    // exact: a power-of-two scale
    // r * q: the value; back to bits
    u64 ri = (u64)r;
    int e2 = qe;
    while (ri >= (2ull << mb)) { ri >>= 1; ++e2; }                    // (a carry into the next binade)
    if (ri < (1ull << mb)) return sign | (u32)ri;                      // a denormal (or the smallest normal's neighbour)
    const int be = e2 + mb + bias;                                     // biased exponent
    if (be >= (1 << eb) - 1) return sign | inf;
    return sign | ((u32)be << mb) | (u32)(ri & ((1ull << mb) - 1));
}

// double -> float type D, nearest-even, as D's bits (the casts numpy and ml_dtypes make).
PTO_DEV u32 cv_cast(double x, int D) {
    if (cv_nan(x)) {
        const u64 b = cv_b(x), sgn = b >> 63, sig = b & 0xFFFFFFFFFFFFFull;
        if (D == VK_F32) return (u32)(sgn << 31) | 0x7FC00000u | (u32)(sig >> 29);
        if (D == VK_BF16) return (u32)(sgn << 15) | 0x7FC0u;
        u32 h = 0x7C00u + (u32)(sig >> 42);
        if (h == 0x7C00u) ++h;
        return (u32)(sgn << 15) | h;
    }
    if (D == VK_F32) { const float f = (float)x; u32 w; PTO_MEMCPY(&w, &f, 4); return w; }
    return D == VK_F16 ? cv_round_bits(x, 10, 5) : cv_round_bits(x, 7, 8);
}

PTO_DEV double cv_back(u32 b, int D) { return cv_fvalue(b, D); }

PTO_DEV u32 cv_step(u32 b, int D, bool up) {           // the next representable value (semantics._step)
    const int w = 8 * vk_size(D);
    const u32 sign = 1u << (w - 1), mk = w == 32 ? 0xFFFFFFFFu : (1u << w) - 1u;
    const bool neg = (b & sign) != 0, zero = (b & ~sign & mk) == 0;
    if (up) return zero ? 1u : ((neg ? b - 1u : b + 1u) & mk);
    return zero ? (sign | 1u) : ((neg ? b + 1u : b - 1u) & mk);
}

// float64 -> float type D rounded by the letter (semantics.to_float).
PTO_DEV u32 cv_to_float(double x, int D, int L) {
    const u32 cb = cv_cast(x, D);
    if (L == L_R) return cb;
    const double cf = cv_back(cb, D);
    if (cf == x || cv_nan(x) || cv_inf(x)) return cb;
    const u32 down = cf <= x ? cb : cv_step(cb, D, false), up = cf >= x ? cb : cv_step(cb, D, true);
    switch (L) {
    case L_F: return down;
    case L_C: return up;
    case L_Z: return x > 0 ? down : up;
    case L_A: {
        const double dd = x - cv_back(down, D), du = cv_back(up, D) - x;
        return dd < du ? down : dd > du ? up : (x > 0 ? up : down);
    }
    default: return (down & 1u) ? down : up;            // O (and N): round to odd
    }
}

PTO_DEV void cv_limits(int T, double *lo, double *hi) {
    switch (T) {
    case VK_F16: *lo = -65504.0; *hi = 65504.0; return;
    case VK_BF16: *lo = -3.3895313892515355e38; *hi = 3.3895313892515355e38; return;
    case VK_F32: *lo = -3.4028234663852886e38; *hi = 3.4028234663852886e38; return;
    case VK_I64: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; return;
    default: {
        const int w = 8 * vk_size(T);
        *lo = vk_signed(T) ? -fb_p2(w - 1) : 0.0;
        *hi = vk_signed(T) ? fb_p2(w - 1) - 1.0 : fb_p2(w) - 1.0;
    }
    }
}

PTO_DEV double cv_clip(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

// x86-64's cvtt* of an integral double where C++ leaves the cast undefined (semantics.x86_int).
PTO_DEV u64 cv_x86_int(double v, int D) {
    const bool via32 = vk_signed(D) && vk_size(D) <= 4;
    const double lo = via32 ? -2147483648.0 : -9223372036854775808.0, hi = -lo;
    const bool ok = v >= lo && v < hi;
    return ok ? (u64)(i64)v : (via32 ? (u64)(i64)(-2147483648ll) : 0x8000000000000000ull);
}


// ---- the 8-bit floats -----------------------------------------------------------------------
// |a| (finite) to nearest-even on a grid of mb mantissa bits with normal exponents from emin on
// and no top: the rounded value (exact in a double).
PTO_DEV double cv_quantize(double a, int mb, int emin) {
    if (a == 0.0) return 0.0;
    const int ex = (int)((cv_b(a) >> 52) & 2047) - 1023;
    const double q = fb_p2((ex < emin ? emin : ex) - mb);
    return cv_rne(a / q) * q;
}

// A value v >= 0 the format holds exactly (mb mantissa bits, normal exponents from emin) as its
// exponent and mantissa fields.
PTO_DEV u32 cv_fields(double v, int mb, int emin) {
    if (v == 0.0) return 0;
    const int ex = (int)((cv_b(v) >> 52) & 2047) - 1023;
    if (ex < emin) return (u32)(v / fb_p2(emin - mb));                 // a subnormal: its mantissa
    return ((u32)(ex - emin + 1) << mb) | ((u32)(v / fb_p2(ex - mb)) - (1u << mb));
}

// HiFloat8 as the format defines it (arXiv:2409.16626; A5's vcvt): a prefix-coded exponent width.
PTO_DEV double cv_hif8_format(u32 c) {
    const double sign = (c & 0x80u) ? -1.0 : 1.0;
    const u32 p = c & 0x7Fu;
    if (c == 0x80u) return cv_nan_d();
    if (p == 0) return sign * 0.0;
    int d, rb;                                          // exponent width, the bits after the prefix
    if (p >> 5 == 3) { d = 4; rb = 5; } else if (p >> 5 == 2) { d = 3; rb = 5; }
    else if (p >> 5 == 1) { d = 2; rb = 5; } else if (p >> 4 == 1) { d = 1; rb = 4; }
    else if (p >> 3 == 1) { d = 0; rb = 3; }
    else return sign * fb_p2((int)(p & 7) - 23);       // 0000mmm: 2^(m - 23)
    const u32 rest = p & ((1u << rb) - 1u), mbits = (u32)(rb - d), m = rest & ((1u << mbits) - 1u);
    int e = 0;
    if (d > 0) {
        const u32 ef = rest >> mbits, top = ef >> (d - 1);
        const int mag = (1 << (d - 1)) + (int)(ef & ((1u << (d - 1)) - 1u));
        e = top ? -mag : mag;
    }
    if (d == 4 && e == 15 && m == 1) return sign * cv_inf_d();          // +-infinity (0x6F, 0xEF)
    return sign * (1.0 + (double)m / (double)(1u << mbits)) * fb_p2(e);
}

// HiFloat8 as the simulator's table decodes it (cpu/Hifloat8.hpp decodeHiF8Mathematically: the
// two narrowest exponent widths get too many mantissa bits).
PTO_DEV double cv_hif8_sim(u32 c) {
    const double sign = (c & 0x80u) ? -1.0 : 1.0;
    const u32 p = c & 0x7Fu;
    if (p >> 3 == 0) {
        const u32 m = p & 7u;
        if (m == 0) return (c & 0x80u) ? cv_nan_d() : 0.0;
        return sign * fb_p2((int)m - 23);
    }
    int eb;
    u32 rem;
    if (p >> 5 == 3) { eb = 4; rem = p & 0x1Fu; } else if (p >> 5 == 2) { eb = 3; rem = p & 0x1Fu; }
    else if (p >> 5 == 1) { eb = 2; rem = p & 0x1Fu; } else if (p >> 4 == 1) { eb = 1; rem = p & 0x0Fu; }
    else { eb = 0; rem = p & 7u; }
    const int mb = 5 - eb;
    const u32 raw_e = rem >> mb, raw_m = rem & ((1u << mb) - 1u);
    int e = 0;
    if (eb > 0) {
        const u32 sbit = raw_e & (1u << (eb - 1));
        const int mag = (int)((1u << (eb - 1)) | (raw_e - sbit));
        e = sbit ? -mag : mag;
    }
    if (eb == 4 && e == 15 && raw_m == 1) return sign * cv_inf_d();
    return sign * fb_p2(e) * (1.0 + (double)raw_m / (double)(1u << mb));
}

// e4m3 / e5m2: the exponent's bits (the mantissa has the rest of 7, the bias is 2^(E-1) - 1).
PTO_DEV int cv_e_bits(int T) { return T == VK_E4M3 ? 4 : 5; }

// An 8-bit code's value. vcvt: the OCP formats (e4m3 without infinities, S.1111.111 NaN; e5m2
// IEEE-like; NaN quiet, its sign kept) and HiFloat8's; mx: MXType (no infinity or NaN, both
// zeros +0) and the simulator's HiFloat8 table.
PTO_DEV double cv_f8_value(u32 c, int T, bool mx) {
    if (T == VK_HIF8) return mx ? cv_hif8_sim(c) : cv_hif8_format(c);
    const int E = cv_e_bits(T), M = 7 - E, B = (1 << (E - 1)) - 1;
    const u32 mant = c & ((1u << M) - 1u), ex = (c >> M) & ((1u << E) - 1u), sgn = (c >> 7) & 1u;
    const double s = sgn ? -1.0 : 1.0;
    const double mag = ex ? fb_p2((int)ex - B) * (1.0 + (double)mant / (double)(1u << M))
                          : (double)mant * fb_p2(1 - B - M);
    if (mx) return ex == 0 && mant == 0 ? 0.0 : s * mag;
    if (T == VK_E4M3 && ex == 15 && mant == 7) return cv_nan_d(sgn);
    if (T == VK_E5M2 && ex == 31) return mant ? cv_nan_d(sgn) : s * cv_inf_d();
    return s * mag;
}

// The simulator's hifloat8_t(double): the nearest of its table sorted by value (a tie to the
// smaller), NaN to the first sorted code, past the largest the largest (cpu/Hifloat8.hpp).
PTO_DEV u32 cv_hif8_sim_encode(double v) {
    int first = -1, top = -1, cur = -1, prev = -1;     // codes; the NaN code 0x80 is not in the table
    double fv = 0, tv = 0, cv = 0, pv = 0;
    for (int c = 0; c < 256; ++c) {
        if (c == 0x80) continue;
        const double x = cv_hif8_sim((u32)c);
        if (first < 0 || x < fv) { first = c; fv = x; }             // (equal values: the lower code first)
        if (top < 0 || x >= tv) { top = c; tv = x; }
        if (x >= v && (cur < 0 || x < cv)) { cur = c; cv = x; }      // lower_bound
        if (x < v && (prev < 0 || x >= pv)) { prev = c; pv = x; }    // the entry just before it
    }
    if (cv_nan(v) || (cur >= 0 && prev < 0)) return (u32)first;
    if (cur < 0) return (u32)top;
    const double dc = cv - v < 0 ? v - cv : cv - v, dp = pv - v < 0 ? v - pv : pv - v;
    return (u32)(dc < dp ? cur : prev);                 // (inf - inf is NaN: the smaller wins)
}

// A5's hifloat8 encode: to nearest with ties away from zero over the format's values (+inf at
// 49152: from 40960 on), NaN 0x80, no negative zero.
PTO_DEV u32 cv_hif8_vcvt_encode(double x) {
    if (cv_nan(x)) return 0x80u;
    const double a = x < 0 ? -x : x;
    double lo = -1.0, hi = -1.0;
    u32 lc = 0, hc = 0;
    for (u32 c = 0; c < 128; ++c) {
        const double v = c == 0x6Fu ? 49152.0 : cv_hif8_format(c);
        if (v < a && (lo < 0 || v > lo)) { lo = v; lc = c; }
        if (v >= a && (hi < 0 || v < hi)) { hi = v; hc = c; }
    }
    u32 code;
    if (a >= 49152.0) code = 0x6Fu;
    else if (lo < 0) code = hc;                         // (a == 0)
    else code = (a - lo >= hi - a) ? hc : lc;
    return (x < 0 && code != 0) ? code | 0x80u : code;
}

// MXType(double): the double's mantissa truncated, the exponent rebiased and masked to its width.
PTO_DEV u32 cv_mx_encode(double v, int T) {
    const int E = cv_e_bits(T), M = 7 - E, B = (1 << (E - 1)) - 1;
    const u64 b = cv_b(v);
    const i64 sign = (i64)(b >> 63), e = (i64)((b >> 52) & 0x7FF);
    i64 om = (i64)((b & 0xFFFFFFFFFFFFFull) >> (52 - M)), oe = e + B - 1023;
    if (oe < 0) { om = (om | (1ll << M)) >> ((1 - oe) & 63); oe = 0; }
    if (v == 0.0 || e == 0) return 0;
    return (u32)(((sign << (M + E)) | ((oe & ((1ll << E) - 1)) << M) | (om & ((1ll << M) - 1))) & 0xFF);
}

PTO_DEV u32 cv_f8_encode(double x, int T, bool mx) {
    if (T == VK_HIF8) return mx ? cv_hif8_sim_encode(x) : cv_hif8_vcvt_encode(x);
    if (mx) return cv_mx_encode(x, T);
    const u32 sign = (cv_b(x) >> 63) ? 0x80u : 0u;     // (ml_dtypes' casts: NaN keeps its sign)
    if (T == VK_E5M2) return cv_nan(x) ? sign | 0x7Eu : cv_round_bits(x, 2, 5);
    if (cv_nan(x) || cv_inf(x)) return sign | 0x7Fu;   // e4m3: no infinity, overflow is NaN
    const double v = cv_quantize(x < 0 ? -x : x, 3, -6);
    return v > 448.0 ? sign | 0x7Fu : sign | cv_fields(v, 3, -6);
}

// A conversion with an 8-bit float on either side (semantics_minifloats.convert).
PTO_DEV u64 cv_minifloat(const i64 *P, u64 bits) {
    const int S = (int)P[CV_S], D = (int)P[CV_D];
    const bool mx = P[CV_MF] == MF_MX;
    if (mx && P[CV_SAT]) return 0;                     // the clamp to numeric_limits<8-bit> (0, 0)
    if (S == D) return bits & 0xFF;
    const double x = vk_f8(S) ? cv_f8_value((u32)bits & 0xFF, S, mx)
                   : vk_float(S) ? cv_fvalue(bits, S) : (double)cv_ivalue(bits, S);
    if (vk_f8(D)) return cv_f8_encode(x, D, mx);
    if (vk_float(D)) return cv_to_float(x, D, L_R);    // the simulator's plain cast (A5: exact to f32)
    return cv_x86_int(cv_trunc(x), D);
}

// src bits of type S as D's bits (semantics.convert and _cpu).
PTO_DEV u64 cv_convert(const i64 *P, u64 bits) {
    const int S = (int)P[CV_S], D = (int)P[CV_D], L = (int)P[CV_LETTER];
    const bool sat = P[CV_SAT] != 0;
    if (vk_f8(S) || vk_f8(D)) return cv_minifloat(P, bits);
    if (P[CV_TORCH]) {                                  // A2/A3 NonSatTorch: the saturated int32's low bits
        const double r = cv_integral(cv_fvalue(bits, S), L);
        return (u64)(i64)(cv_nan(r) ? 0.0 : cv_clip(r, -2147483648.0, 2147483647.0));
    }
    double slo, shi, dlo, dhi;
    cv_limits(S, &slo, &shi);
    cv_limits(D, &dlo, &dhi);
    if (P[CV_CPU]) {                                    // the simulator's C++
        double x = vk_float(S) ? cv_fvalue(bits, S) : 0.0;
        i64 xi = vk_float(S) ? 0 : cv_ivalue(bits, S);
        if (sat) {
            const double lo = slo > dlo ? slo : dlo, hi = shi < dhi ? shi : dhi;
            if (vk_float(S)) {
                x = cv_nan(x) ? hi : cv_clip(x, lo, hi);
                x = cv_fvalue(cv_to_float(x, S, L_R), S);
            } else {
                xi = (double)xi < lo ? (i64)lo : (double)xi > hi ? (i64)hi : xi;
            }
        }
        if (vk_float(S) && !vk_float(D)) return cv_x86_int(cv_integral(x, L == L_N ? L_Z : L), D);
        if (vk_float(D)) return cv_to_float(vk_float(S) ? x : (double)xi, D, L_R);
        return (u64)xi;
    }
    if (vk_float(S)) {
        double x = cv_fvalue(bits, S);
        if (vk_float(D)) {
            if (S == VK_F32 && D == VK_F32) return cv_cast(cv_integral(x, L), VK_F32);
            if (sat && D != VK_F32 && !cv_nan(x) && !cv_inf(x)) x = cv_clip(x, dlo, dhi);
            return cv_to_float(x, D, L);
        }
        const double r = cv_integral(x, L);
        if (sat) {                                      // (int64's top, 2^63 - 1, is 2^63 as a double)
            const double c = cv_nan(r) ? 0.0 : cv_clip(r, dlo, dhi);
            return c >= 9223372036854775808.0 ? 0x7FFFFFFFFFFFFFFFull : (u64)(i64)c;
        }
        const bool ok = !cv_nan(r) && !cv_inf(r) && r >= -9223372036854775808.0 && r < 9223372036854775808.0;
        return ok ? (u64)(i64)r : 0;
    }
    const i64 xi = cv_ivalue(bits, S);
    if (vk_float(D)) return cv_to_float((double)xi, D, L);
    if (sat) return (u64)((double)xi < dlo ? (i64)dlo : (double)xi > dhi ? (i64)dhi : xi);
    return (u64)xi;
}

extern "C" __global__ void __launch_bounds__(1024) tile_convert(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 VR = P[CV_VR], VC = P[CV_VC];
        const int TS = vk_size((int)P[CV_S]), TD = vk_size((int)P[CV_D]);
        if (VR * VC == 0) continue;
        const i64 lo = P[CV_DST], hi = P[CV_DST] + ((VR - 1) * P[CV_DC] + VC) * TD;
        const bool same = P[CV_SRC] == P[CV_DST] && TS == TD && P[CV_SC] == P[CV_DC];
        if (pass == 0) {
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < VC; ++c) {
                    const u64 e = (u64)(r * VC + c);
                    const i64 sa = P[CV_SRC] + (r * P[CV_SC] + c) * TS, da = P[CV_DST] + (r * P[CV_DC] + c) * TD;
                    if (!arena_ok(U, (u64)sa, TS)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)sa, 0);
                    if (!arena_ok(U, (u64)da, TD)) fault_note(rec, fault_key(PHASE_DST, e), (u64)da, 0);
                    if (!same && sa < hi && lo < sa + TS) rec[3] = 0;
                }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < VC; ++c) {
                    u64 b = 0;
                    PTO_MEMCPY(&b, U.p + P[CV_SRC] + (r * P[CV_SC] + c) * TS, TS);
                    const u64 v = cv_convert(P, b);
                    PTO_MEMCPY(U.p + P[CV_DST] + (r * P[CV_DC] + c) * TD, &v, TD);
                }
        }
    }
}

PTO_EXPORT(tile_convert)
