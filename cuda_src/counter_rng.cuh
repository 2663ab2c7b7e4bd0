// counter_rng.cuh — counter-based index generators, identical bit for bit to
// ptogpu/execution/rng.py (tests/test_fuzz_rng.py checks it). A tile is a pure function of
// (seed, instance, element): kernels generate indices in registers, no index memory traffic.
//
//   key(seed, n)  = mix64(mix64(seed) + n * G1)             (SplitMix64 finaliser, per tile)
//   h(seed, n, e) = hash32(lo32(key) + (e+1)*G32) | hash32(hi32(key) + (e+1)*G32) << 32
//                   (hash32 = Wellons' lowbias32; 32-bit lanes vectorise twice as wide)
//
// Kinds (GEN_*), with lo = h & 0xFFFFFFFF, hi = h >> 32: uniform [0,cap) = lo*cap >> 32;
// oob [cap,2cap); negative [-cap,-1]; extreme (INT32_MIN, -1, 2^31-1, 2^32-1)[(hi>>16)&3];
// boundary cap-1 + ((hi&0xFFFF)*3 >> 16); dup (4 values per tile)[(hi>>16)&3]; mixed by the
// top byte of hi: <128 uniform, <154 oob, <180 negative, <205 extreme, <230 boundary, else dup;
// edge: uniform except element (lo32(key) >> 4) & 15 of the tile, which is
// cap-2 + ((hi&0xFFFF)*20 >> 16), in cap-2 .. cap+17: the capacity edge and, for tables whose
// padding to 64 bytes is under 18 elements, the end of GM (so exactly one index of a tile of
// 16 or more elements sits there, all others in range).
#ifndef PTOGPU_COUNTER_RNG_CUH
#define PTOGPU_COUNTER_RNG_CUH

#include "common.cuh"

enum { GEN_UNIFORM = 0, GEN_OOB = 1, GEN_NEGATIVE = 2, GEN_EXTREME = 3, GEN_BOUNDARY = 4,
       GEN_DUP = 5, GEN_MIXED = 6, GEN_EDGE = 9 };

#define RNG_G1 0x9E3779B97F4A7C15ull
#define RNG_G2 0xD1B54A32D192ED03ull

// The generator's per-word functions are always inlined on the host: the word loops are
// vectorised only when their bodies are, and GCC's inliner dropped rng_value32 out of line
// (scalar, a call per word: 56% of an MSCATTER campaign) when an unrelated kernel in the
// same file grew. (PTO_DEV already forces inlining on a GPU.) A coverage build (PTO_COVERAGE)
// keeps them out of line, so that gcov counts a branch once rather than once per inlined copy.
#if defined(PTO_HOST_SHIM) && !defined(PTO_COVERAGE)
#define RNG_INLINE __attribute__((always_inline))
#else
#define RNG_INLINE
#endif

PTO_DEV u64 rng_mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

PTO_DEV u64 rng_key(u64 seed, u64 inst) { return rng_mix64(rng_mix64(seed) + inst * RNG_G1); }

PTO_DEV RNG_INLINE u32 rng_hash32(u32 x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    return x ^ (x >> 16);
}

#define RNG_G32 0x9E3779B9u

PTO_DEV u64 rng_word(u64 key, u64 elem) {
    const u32 c = (u32)(elem + 1ull) * RNG_G32;
    return (u64)rng_hash32((u32)key + c) | ((u64)rng_hash32((u32)(key >> 32) + c) << 32);
}

PTO_DEV i64 rng_mulhi(u64 x, u64 cap) { return (i64)(((x & 0xFFFFFFFFull) * cap) >> 32); }

PTO_DEV i64 rng_boundary(u64 hi, u64 cap) { return (i64)cap - 1 + (i64)(((hi & 0xFFFFull) * 3ull) >> 16); }

// The element of a tile that the edge generator puts at the edge, and the value it puts there.
PTO_DEV RNG_INLINE bool rng_edge_at(u32 k1, u64 elem) { return elem == (u64)((k1 >> 4) & 15u); }
PTO_DEV i64 rng_edge_value(u64 hi, u64 cap) { return (i64)cap - 2 + (i64)(((hi & 0xFFFFull) * 20ull) >> 16); }

// One index value (int64; the caller casts it to the index type) of generator `kind` for
// element `elem` of the tile of `key`.
PTO_DEV i64 rng_value(int kind, u64 h, u64 key, u64 cap, u64 elem) {
    cap &= 0xFFFFFFFFull;
    const u64 hi = h >> 32, j = (hi >> 16) & 3ull;
    if (kind == GEN_EDGE) return rng_edge_at((u32)key, elem) ? rng_edge_value(hi, cap) : rng_mulhi(h, cap);
    if (kind == GEN_MIXED) {
        const u64 sel = hi >> 24;
        kind = sel < 128 ? GEN_UNIFORM : sel < 154 ? GEN_OOB : sel < 180 ? GEN_NEGATIVE
             : sel < 205 ? GEN_EXTREME : sel < 230 ? GEN_BOUNDARY : GEN_DUP;
    }
    switch (kind) {
    case GEN_UNIFORM: return rng_mulhi(h, cap);
    case GEN_OOB: return (i64)cap + rng_mulhi(h, cap);
    case GEN_NEGATIVE: return -1 - rng_mulhi(h, cap);
    case GEN_EXTREME:
        return j == 0 ? -(i64)2147483648ll : j == 1 ? -1 : j == 2 ? 2147483647ll : 4294967295ll;
    case GEN_BOUNDARY: return rng_boundary(hi, cap);
    default: return rng_mulhi(rng_mix64(key + j + 1ull), cap);   // GEN_DUP
    }
}

// The 4 values GEN_DUP draws from in the tile of `key` (rng_value's default case, hoisted).
PTO_DEV void rng_dup_values(u64 key, u64 cap, i64 out[4]) {
    for (u64 j = 0; j < 4; ++j) out[j] = rng_mulhi(rng_mix64(key + j + 1ull), cap & 0xFFFFFFFFull);
}

// rng_value without branches (for vectorised loops): every candidate is computed and one is
// selected; `dup` comes from rng_dup_values. Same results as rng_value.
PTO_DEV i64 rng_value_sel(int kind, u64 h, const i64 dup[4], u64 cap, u64 key, u64 elem) {
    cap &= 0xFFFFFFFFull;
    const u64 hi = h >> 32, sel = hi >> 24, j = (hi >> 16) & 3ull;
    const u64 km = (u64)(sel >= 128) + (u64)(sel >= 154) + (u64)(sel >= 180) + (u64)(sel >= 205) +
                   (u64)(sel >= 230);
    const u64 k = kind == GEN_MIXED ? km : (u64)kind;
    const i64 u = rng_mulhi(h, cap);
    const i64 ext = j == 0 ? -(i64)2147483648ll : j == 1 ? -1 : j == 2 ? 2147483647ll : 4294967295ll;
    const i64 d = j == 0 ? dup[0] : j == 1 ? dup[1] : j == 2 ? dup[2] : dup[3];
    i64 v = u;
    v = k == GEN_OOB ? (i64)cap + u : v;
    v = k == GEN_NEGATIVE ? -1 - u : v;
    v = k == GEN_EXTREME ? ext : v;
    v = k == GEN_BOUNDARY ? rng_boundary(hi, cap) : v;
    v = k == GEN_DUP ? d : v;
    v = k == GEN_EDGE && rng_edge_at((u32)key, elem) ? rng_edge_value(hi, cap) : v;
    return v;
}

// The low 32 bits of rng_value (what a 32-bit index type keeps), in 32-bit lanes only: the
// form the host loops vectorise 16 wide. `k1`/`k2` are the halves of the tile key; `elem`
// below 2^32 (a tile's element; 32 bits keep the loops' counters in 32-bit lanes too).
PTO_DEV RNG_INLINE u32 rng_value32(int kind, u32 k1, u32 k2, u32 elem, const u32 dup[4], u32 cap) {
    const u32 c = (elem + 1u) * RNG_G32;
    const u32 lo = rng_hash32(k1 + c), hi = rng_hash32(k2 + c);
    const u32 sel = hi >> 24, j = (hi >> 16) & 3u;
    // The mixed kinds' ranges of `sel` are consecutive, so each later kind overwrites the
    // earlier ones from its threshold on (a fixed kind: exactly one test holds). Every
    // candidate in a few lane operations, no table: the vectorised loop is compute-bound.
    const bool mixed = kind == GEN_MIXED;
    const u32 u = (u32)(((u64)lo * cap) >> 32);
    const u32 ext = (0x80000000u - (j >> 1)) | (0u - (j & 1u));       // 2^31, -1, 2^31-1, -1
    const u32 d = (j & 2u) ? ((j & 1u) ? dup[3] : dup[2]) : ((j & 1u) ? dup[1] : dup[0]);
    u32 v = u;
    v = (mixed ? sel >= 128 : kind == GEN_OOB) ? cap + u : v;
    v = (mixed ? sel >= 154 : kind == GEN_NEGATIVE) ? ~u : v;
    v = (mixed ? sel >= 180 : kind == GEN_EXTREME) ? ext : v;
    v = (mixed ? sel >= 205 : kind == GEN_BOUNDARY) ? cap - 1u + (((hi & 0xFFFFu) * 3u) >> 16) : v;
    v = (mixed ? sel >= 230 : kind == GEN_DUP) ? d : v;
    v = kind == GEN_EDGE && rng_edge_at(k1, elem) ? cap - 2u + (((hi & 0xFFFFu) * 20u) >> 16) : v;
    return v;
}

#ifdef PTO_HOST_SHIM
// Words 0..n-1 of a tile (rng_value32) in a vectorised loop with the generator kind a
// constant: the selection of the kinds not drawn compiles away (the mixed generator's loop
// loses the edge test; a fixed kind loses the mixed selection).
// (always inlined: an out-of-line copy, its `dup` and `w` opaque pointers, came out scalar)
template <int KIND>
RNG_INLINE static inline void rng_words32_k(u32 k1, u32 k2, const u32 dup[4], u32 cap, u32 n, u32 *w) {
#pragma omp simd
    for (u32 e = 0; e < n; ++e) w[e] = rng_value32(KIND, k1, k2, e, dup, cap);
}

#ifdef __AVX512F__
#include <immintrin.h>
// The mixed generator's words, 16 lanes a step, written out: GCC's loop of rng_value32 takes
// ~90 instructions a step (range tests rebuilt from the thresholds, constants rebroadcast for
// want of registers); this one ~42 -- the hashes, the high half of lo*cap from two 32x32->64
// multiplies, five threshold masks each merging one candidate, and the extreme and dup values
// picked by a permute of (hi >> 16) (its low 4 bits; tables repeat their 4 values).
// Words the same as rng_value32's: tests/test_fuzz_rng.py compares them with NumPy.
RNG_INLINE static inline void rng_words32_mixed16(u32 k1, u32 k2, const u32 dup[4], u32 cap,
                                                                      u32 n, u32 *w) {
    const __m512i M1 = _mm512_set1_epi32((int)0x7FEB352Du), M2 = _mm512_set1_epi32((int)0x846CA68Bu);
    const __m512i K1 = _mm512_set1_epi32((int)k1), K2 = _mm512_set1_epi32((int)k2);
    const __m512i CAP = _mm512_set1_epi32((int)cap), CAPM1 = _mm512_set1_epi32((int)(cap - 1u));
    const __m512i ONES = _mm512_set1_epi32(-1), LOW16 = _mm512_set1_epi32(0xFFFF);
    const __m512i EXT = _mm512_setr_epi32((int)0x80000000u, -1, 0x7FFFFFFF, -1, (int)0x80000000u, -1, 0x7FFFFFFF, -1,
                                          (int)0x80000000u, -1, 0x7FFFFFFF, -1, (int)0x80000000u, -1, 0x7FFFFFFF, -1);
    const int d0 = (int)dup[0], d1 = (int)dup[1], d2 = (int)dup[2], d3 = (int)dup[3];
    const __m512i DUP = _mm512_setr_epi32(d0, d1, d2, d3, d0, d1, d2, d3, d0, d1, d2, d3, d0, d1, d2, d3);
    const __m512i T128 = _mm512_set1_epi32(128), T154 = _mm512_set1_epi32(154), T180 = _mm512_set1_epi32(180),
                  T205 = _mm512_set1_epi32(205), T230 = _mm512_set1_epi32(230);
    const __m512i STEP = _mm512_set1_epi32((int)(16u * RNG_G32));
    __m512i c = _mm512_mullo_epi32(_mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16),
                                   _mm512_set1_epi32((int)RNG_G32));
    auto hash = [&](__m512i x) {
        x = _mm512_xor_si512(x, _mm512_srli_epi32(x, 16));
        x = _mm512_mullo_epi32(x, M1);
        x = _mm512_xor_si512(x, _mm512_srli_epi32(x, 15));
        x = _mm512_mullo_epi32(x, M2);
        return _mm512_xor_si512(x, _mm512_srli_epi32(x, 16));
    };
    u32 e = 0;
    for (; e + 16 <= n; e += 16) {
        const __m512i lo = hash(_mm512_add_epi32(K1, c)), hi = hash(_mm512_add_epi32(K2, c));
        c = _mm512_add_epi32(c, STEP);
        const __m512i sel = _mm512_srli_epi32(hi, 24), h16 = _mm512_srli_epi32(hi, 16);
        const __m512i pe = _mm512_srli_epi64(_mm512_mul_epu32(lo, CAP), 32);      // even lanes' high halves
        const __m512i po = _mm512_mul_epu32(_mm512_srli_epi64(lo, 32), CAP);       // odd lanes': in place
        const __m512i u = _mm512_mask_blend_epi32((__mmask16)0xAAAA, pe, po);
        const __m512i bnd = _mm512_srli_epi32(_mm512_mullo_epi32(_mm512_and_si512(hi, LOW16), _mm512_set1_epi32(3)), 16);
        __m512i v = _mm512_mask_add_epi32(u, _mm512_cmpge_epu32_mask(sel, T128), u, CAP);
        v = _mm512_mask_xor_epi32(v, _mm512_cmpge_epu32_mask(sel, T154), u, ONES);
        v = _mm512_mask_permutexvar_epi32(v, _mm512_cmpge_epu32_mask(sel, T180), h16, EXT);
        v = _mm512_mask_add_epi32(v, _mm512_cmpge_epu32_mask(sel, T205), bnd, CAPM1);
        v = _mm512_mask_permutexvar_epi32(v, _mm512_cmpge_epu32_mask(sel, T230), h16, DUP);
        _mm512_storeu_si512((void *)(w + e), v);
    }
    for (; e < n; ++e) w[e] = rng_value32(GEN_MIXED, k1, k2, e, dup, cap);
}
#elif defined(__AVX2__)
#include <immintrin.h>
// The same, 8 lanes a step, for builds with AVX2 and no AVX-512 (GCC's loop of rng_value32
// takes 2.4x as long there: 320-330 ns a tile on Zen 4 built -march=x86-64-v3, against 135
// here). No unsigned compares or mask registers: `sel` < 256 compares signed, and each
// threshold's mask blends its candidate in; the permutes take the low 3 bits of hi >> 16.
RNG_INLINE static inline void rng_words32_mixed16(u32 k1, u32 k2, const u32 dup[4], u32 cap,
                                                                      u32 n, u32 *w) {
    const __m256i M1 = _mm256_set1_epi32((int)0x7FEB352Du), M2 = _mm256_set1_epi32((int)0x846CA68Bu);
    const __m256i K1 = _mm256_set1_epi32((int)k1), K2 = _mm256_set1_epi32((int)k2);
    const __m256i CAP = _mm256_set1_epi32((int)cap), CAPM1 = _mm256_set1_epi32((int)(cap - 1u));
    const __m256i ONES = _mm256_set1_epi32(-1), LOW16 = _mm256_set1_epi32(0xFFFF), THREE = _mm256_set1_epi32(3);
    const __m256i EXT = _mm256_setr_epi32((int)0x80000000u, -1, 0x7FFFFFFF, -1, (int)0x80000000u, -1, 0x7FFFFFFF, -1);
    const int d0 = (int)dup[0], d1 = (int)dup[1], d2 = (int)dup[2], d3 = (int)dup[3];
    const __m256i DUP = _mm256_setr_epi32(d0, d1, d2, d3, d0, d1, d2, d3);
    const __m256i T128 = _mm256_set1_epi32(127), T154 = _mm256_set1_epi32(153), T180 = _mm256_set1_epi32(179),
                  T205 = _mm256_set1_epi32(204), T230 = _mm256_set1_epi32(229);      // sel > t-1: sel >= t
    const __m256i STEP = _mm256_set1_epi32((int)(8u * RNG_G32));
    __m256i c = _mm256_mullo_epi32(_mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8), _mm256_set1_epi32((int)RNG_G32));
    auto hash = [&](__m256i x) {
        x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
        x = _mm256_mullo_epi32(x, M1);
        x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 15));
        x = _mm256_mullo_epi32(x, M2);
        return _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
    };
    auto pick = [](__m256i v, __m256i sel, __m256i t, __m256i cand) {
        return _mm256_blendv_epi8(v, cand, _mm256_cmpgt_epi32(sel, t));
    };
    u32 e = 0;
    for (; e + 8 <= n; e += 8) {
        const __m256i lo = hash(_mm256_add_epi32(K1, c)), hi = hash(_mm256_add_epi32(K2, c));
        c = _mm256_add_epi32(c, STEP);
        const __m256i sel = _mm256_srli_epi32(hi, 24), h16 = _mm256_srli_epi32(hi, 16);
        const __m256i pe = _mm256_srli_epi64(_mm256_mul_epu32(lo, CAP), 32);
        const __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(lo, 32), CAP);
        const __m256i u = _mm256_blend_epi32(pe, po, 0xAA);
        const __m256i bnd = _mm256_add_epi32(
            _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_and_si256(hi, LOW16), THREE), 16), CAPM1);
        __m256i v = pick(u, sel, T128, _mm256_add_epi32(u, CAP));
        v = pick(v, sel, T154, _mm256_xor_si256(u, ONES));
        v = pick(v, sel, T180, _mm256_permutevar8x32_epi32(EXT, h16));
        v = pick(v, sel, T205, bnd);
        v = pick(v, sel, T230, _mm256_permutevar8x32_epi32(DUP, h16));
        _mm256_storeu_si256((__m256i *)(w + e), v);
    }
    for (; e < n; ++e) w[e] = rng_value32(GEN_MIXED, k1, k2, e, dup, cap);
}
#endif

RNG_INLINE static inline void rng_words32(int kind, u32 k1, u32 k2, const u32 dup[4], u32 cap, u32 n, u32 *w) {
    switch (kind) {
#if defined(__AVX512F__) || defined(__AVX2__)
    case GEN_MIXED: return rng_words32_mixed16(k1, k2, dup, cap, n, w);
#else
    case GEN_MIXED: return rng_words32_k<GEN_MIXED>(k1, k2, dup, cap, n, w);
#endif
    case GEN_UNIFORM: return rng_words32_k<GEN_UNIFORM>(k1, k2, dup, cap, n, w);
    case GEN_EDGE: return rng_words32_k<GEN_EDGE>(k1, k2, dup, cap, n, w);
    // (every kind its own loop: with the kind a run-time value the loop took 1.6-2.0 us a
    // 256-word tile, 30-60x the fixed kinds', measured)
    case GEN_OOB: return rng_words32_k<GEN_OOB>(k1, k2, dup, cap, n, w);
    case GEN_NEGATIVE: return rng_words32_k<GEN_NEGATIVE>(k1, k2, dup, cap, n, w);
    case GEN_EXTREME: return rng_words32_k<GEN_EXTREME>(k1, k2, dup, cap, n, w);
    case GEN_BOUNDARY: return rng_words32_k<GEN_BOUNDARY>(k1, k2, dup, cap, n, w);
    case GEN_DUP: return rng_words32_k<GEN_DUP>(k1, k2, dup, cap, n, w);
    default:
#pragma omp simd
        for (u32 e = 0; e < n; ++e) w[e] = rng_value32(kind, k1, k2, e, dup, cap);
    }
}
#endif

// Valid shape (vr, vc) of tile `key` in a shape-fuzzing campaign over rows x cols tiles:
// s = mix64(key ^ RNG_SHAPE_SALT); vr = 1 + (lo32(s)*rows >> 32), vc = 1 + (bits 32..60 of
// s)*cols >> 29; the top 3 bits force vc = 1 (value 0: [R,1] tiles) or vr = 1 (value 1).
// Row mode keeps vc = cols (only the rows are dynamic). ptogpu/execution/rng.py shapes() is the twin.
#define RNG_SHAPE_SALT 0x5348415045ull
PTO_DEV void rng_shape(u64 key, u64 rows, u64 cols, bool row_mode, u64 *vr, u64 *vc) {
    const u64 h = rng_mix64(key ^ RNG_SHAPE_SALT), sel = h >> 61;
    u64 r = 1 + (((h & 0xFFFFFFFFull) * rows) >> 32), c = 1 + ((((h >> 32) & 0x1FFFFFFFull) * cols) >> 29);
    if (sel == 0) c = 1;
    if (sel == 1) r = 1;
    *vr = rows ? r : 0;
    *vc = row_mode ? cols : (cols ? c : 0);
}

#endif  // PTOGPU_COUNTER_RNG_CUH
