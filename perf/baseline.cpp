// perf/baseline.cpp — the simple alternatives the benchmarks print beside ptogpu, built at
// bench time with the same compiler at -O3 -march=native (as a user would build it).
//
//   gather_loop   one thread, the plain scalar loop of the CPU simulator's MGATHER
//                 (for each row, for each column: idx, clamp, dst = table[idx]) over n tiles
//                 held like ptogpu's batch (index tile, then destination tile, `stride` bytes
//                 per tile)
//   fuzz_loop     one thread: for each tile, generate the indices (the same counter RNG as
//                 cuda_src/counter_rng.cuh, mixed generator), run two Elem MGATHERs (Wrap on
//                 capacity `cap_a` and `cap_b`) into two buffers and memcmp them
//   fuzz_loop_sel the same with the generator's selection branch-free, its loop plain or
//                 marked `omp simd` (then vectorised: what a user tuning the loop writes), or
//                 the executing engine's own word loops (cuda_src/counter_rng.cuh rng_words32,
//                 the mixed kind written in AVX-512 where the build has it): a loop that takes
//                 ptogpu's generator header generates as fast as the engine does
// Both take the benches' tile shapes and capacities as compile-time constants, as the
// vendor's templates give them to the compiler (a runtime `% cap` is a division per index:
// 15x slower, measured, and not what a user's loop around the vendor code compiles to).
//   scatter_fuzz_loop  one thread: for each tile, generate the indices (as fuzz_loop, with
//                 the engine's own word loops), run the CPU simulator's Elem MSCATTER (Skip: an index
//                 at or past the slot count is skipped; source element p to slot idx[p], in
//                 order) into two tables, memcmp them, zero them again; the stores branchy
//                 (`if (idx < slots)`) or branch-free (a skipped element stores into a spare slot);
//                 `add`: Add (tab[idx] += src) instead of stores
//   ew_add_loop   OpenMP over tiles: for each 16x16 float32 TADD tile, generate src0 and src1 (the
//                 engine's own word loops), add them as the simulator does (x + y) and as the NPUs
//                 do (denormal inputs and result flushed to zero), memcmp, count the tiles that
//                 differ: a user's loop of one element-wise call across two targets. (It counts more
//                 tiles than the engine: where both operands are NaNs, C++ leaves which payload
//                 x + y keeps to the compiler, and GCC swaps the operands of one loop.)
//   store_bw      bytes per second of memset over `bytes` with `threads` OpenMP threads (the
//                 store roof the JSON reports)
//   copy_bw       bytes per second of memcpy of `bytes` with `threads` threads (the copy roof)
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>
// (the generator of the executing engine: rng_words32; it brings u32/u64 and OpenMP)
#include "../cuda_src/host_shim.h"
#include "../cuda_src/counter_rng.cuh"

// The loop body with the tile shape either a compile-time constant (R, C > 0: what the vendor's
// templates give the compiler, so loops unroll and vectorise) or runtime (R = C = 0).
template <int R, int C>
static void gather_t(const float *table, u32 cap, unsigned char *tiles, long long n, long long stride,
                     int rows_, int cols_, int row_mode, int dst_off) {
    const int rows = R ? R : rows_, cols = C ? C : cols_;
    for (long long t = 0; t < n; ++t) {
        unsigned char *base = tiles + t * stride;
        const int32_t *idx = (const int32_t *)base;
        float *dst = (float *)(base + dst_off);
        for (int r = 0; r < rows; ++r) {
            if (row_mode) {
                u32 u = (u32)idx[r];
                u = u >= cap ? cap - 1 : u;
                for (int c = 0; c < cols; ++c) dst[r * cols + c] = table[(u64)u * cols + c];
            } else {
                for (int c = 0; c < cols; ++c) {
                    u32 u = (u32)idx[r * cols + c];
                    u = u >= cap ? cap - 1 : u;
                    dst[r * cols + c] = table[u];
                }
            }
        }
    }
}

extern "C" void gather_loop(const float *table, u32 cap, unsigned char *tiles, long long n,
                            long long stride, int rows, int cols, int row_mode, int dst_off) {
    if (rows == 16 && cols == 16) return gather_t<16, 16>(table, cap, tiles, n, stride, rows, cols, row_mode, dst_off);
    if (rows == 16 && cols == 64) return gather_t<16, 64>(table, cap, tiles, n, stride, rows, cols, row_mode, dst_off);
    gather_t<0, 0>(table, cap, tiles, n, stride, rows, cols, row_mode, dst_off);
}

static inline u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline u32 hash32(u32 x) {
    x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; return x ^ (x >> 16);
}

// The mixed generator's low 32 bits (counter_rng.cuh rng_value32), written plainly.
static inline u32 value32(u32 k1, u32 k2, u64 e, const u32 dup[4], u32 cap) {
    const u32 c = (u32)(e + 1) * 0x9E3779B9u;
    const u32 lo = hash32(k1 + c), hi = hash32(k2 + c);
    const u32 sel = hi >> 24, j = (hi >> 16) & 3u;
    const u32 u = (u32)(((u64)lo * cap) >> 32);
    if (sel < 128) return u;
    if (sel < 154) return cap + u;
    if (sel < 180) return 0xFFFFFFFFu - u;
    if (sel < 205) { static const u32 ext[4] = {0x80000000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu}; return ext[j]; }
    if (sel < 230) return cap - 1u + (((hi & 0xFFFFu) * 3u) >> 16);
    return dup[j];
}

// The same values with the selection written as selects instead of branches (every candidate
// computed, one kept): what a user tuning the loop writes once the branches mispredict; the
// compiler vectorises its loop.
static inline u32 value32_sel(u32 k1, u32 k2, u32 e, const u32 dup[4], u32 cap) {
    const u32 c = (e + 1u) * 0x9E3779B9u;
    const u32 lo = hash32(k1 + c), hi = hash32(k2 + c);
    const u32 sel = hi >> 24, j = (hi >> 16) & 3u;
    const u32 u = (u32)(((u64)lo * cap) >> 32);
    static const u32 ext4[4] = {0x80000000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu};
    const u32 ext = ext4[j], d = dup[j];          // (indexed loads: no control flow in the loop)
    u32 v = sel < 230 ? cap - 1u + (((hi & 0xFFFFu) * 3u) >> 16) : d;
    v = sel < 205 ? ext : v;
    v = sel < 180 ? 0xFFFFFFFFu - u : v;
    v = sel < 154 ? cap + u : v;
    return sel < 128 ? u : v;
}

// The index words of tile t (s = mix64(seed)) into idx, by the generator written plainly
// (GEN 0), branch-free (1), branch-free with its loop marked `omp simd` (2: vectorised), or
// the engine's own word loops (3).
template <int GEN>
static inline void tile_words(u64 s, long long t, u32 tsize, int nidx, u32 *idx) {
    const u64 key = mix64(s + (u64)t * 0x9E3779B97F4A7C15ull);
    u32 dup[4];
    for (u64 j = 0; j < 4; ++j) dup[j] = (u32)(((mix64(key + j + 1) & 0xFFFFFFFFull) * tsize) >> 32);
    if (GEN == 3) {
        rng_words32(GEN_MIXED, (u32)key, (u32)(key >> 32), dup, tsize, (u32)nidx, idx);
    } else if (GEN == 2) {
#pragma omp simd
        for (int e = 0; e < nidx; ++e) idx[e] = value32_sel((u32)key, (u32)(key >> 32), (u32)e, dup, tsize);
    } else {
        for (int e = 0; e < nidx; ++e)
            idx[e] = GEN ? value32_sel((u32)key, (u32)(key >> 32), (u32)e, dup, tsize)
                         : value32((u32)key, (u32)(key >> 32), (u64)e, dup, tsize);
    }
}

// The tile size and both capacities compile-time constants where the bench's campaign has
// them (256 indices, Wrap on 4096: `% 4096` is a mask, as in the vendor's templates, whose
// GlobalTensor shapes are template arguments), else runtime. GEN: the generator (tile_words).
template <int NIDX, u32 CA, u32 CB, int GEN = 0>
static long long fuzz_t(const float *table, u32 tsize, u32 cap_a_, u32 cap_b_, u64 seed, long long n, int nidx_) {
    const int nidx = NIDX ? NIDX : nidx_;
    const u32 cap_a = CA ? CA : cap_a_, cap_b = CB ? CB : cap_b_;
    std::vector<u32> idx(nidx);
    std::vector<float> a(nidx), b(nidx);
    long long diverge = 0;
    const u64 s = mix64(seed);
    for (long long t = 0; t < n; ++t) {
        tile_words<GEN>(s, t, tsize, nidx, idx.data());
        for (int e = 0; e < nidx; ++e) a[e] = table[idx[e] % cap_a];
        for (int e = 0; e < nidx; ++e) b[e] = table[idx[e] % cap_b];
        diverge += std::memcmp(a.data(), b.data(), nidx * sizeof(float)) != 0;
    }
    return diverge;
}

static inline float ftz_f(float x) {
    u32 b;
    std::memcpy(&b, &x, 4);
    if ((b & 0x7F800000u) == 0) b &= 0x80000000u;
    std::memcpy(&x, &b, 4);
    return x;
}

extern "C" long long ew_add_loop(u64 seed, long long n, int threads) {
    constexpr int N = 256;
    long long diverge = 0;
    const u64 s = mix64(seed);
#pragma omp parallel num_threads(threads) reduction(+ : diverge)
    {
        u32 w[2 * N + 16];
        float x[N], y[N], a[N], b[N];
#pragma omp for schedule(static)
        for (long long t = 0; t < n; ++t) {
            const u64 key = mix64(s + (u64)t * 0x9E3779B97F4A7C15ull);
            u32 dup[4];
            for (u64 j = 0; j < 4; ++j) dup[j] = (u32)(((mix64(key + j + 1) & 0xFFFFFFFFull) * 0xFFFFFFFFull) >> 32);
            rng_words32(GEN_MIXED, (u32)key, (u32)(key >> 32), dup, 0xFFFFFFFFu, 2 * N, w);
            std::memcpy(x, w, sizeof x);                  // (the words as floats: no aliasing)
            std::memcpy(y, w + N, sizeof y);
            for (int e = 0; e < N; ++e) a[e] = x[e] + y[e];
            for (int e = 0; e < N; ++e) b[e] = ftz_f(ftz_f(x[e]) + ftz_f(y[e]));
            diverge += std::memcmp(a, b, sizeof a) != 0;
        }
    }
    return diverge;
}

extern "C" long long fuzz_loop(const float *table, u32 tsize, u32 cap_a, u32 cap_b, u64 seed,
                               long long n, int nidx) {
    if (nidx == 256 && cap_a == 4096 && cap_b == 4096)
        return fuzz_t<256, 4096, 4096>(table, tsize, cap_a, cap_b, seed, n, nidx);
    return fuzz_t<0, 0, 0>(table, tsize, cap_a, cap_b, seed, n, nidx);
}

// fuzz_loop with another generator (`gen`: 1 branch-free, 2 branch-free vectorised, 3 the
// engine's word loops; tile_words): the same tiles, same result.
extern "C" long long fuzz_loop_sel(const float *table, u32 tsize, u32 cap_a, u32 cap_b, u64 seed,
                                   long long n, int nidx, int gen) {
    const bool bench = nidx == 256 && cap_a == 4096 && cap_b == 4096;
    switch (gen) {
    case 3: return bench ? fuzz_t<256, 4096, 4096, 3>(table, tsize, cap_a, cap_b, seed, n, nidx)
                         : fuzz_t<0, 0, 0, 3>(table, tsize, cap_a, cap_b, seed, n, nidx);
    case 2: return bench ? fuzz_t<256, 4096, 4096, 2>(table, tsize, cap_a, cap_b, seed, n, nidx)
                         : fuzz_t<0, 0, 0, 2>(table, tsize, cap_a, cap_b, seed, n, nidx);
    default: return bench ? fuzz_t<256, 4096, 4096, 1>(table, tsize, cap_a, cap_b, seed, n, nidx)
                          : fuzz_t<0, 0, 0, 1>(table, tsize, cap_a, cap_b, seed, n, nidx);
    }
}

// The index tile of instance t as the loops generate it (tile_words, generator `gen`), for the
// test that every generator gives the engine's tiles.
extern "C" void fuzz_tile(u32 tsize, u64 seed, long long t, int nidx, int gen, u32 *out) {
    const u64 s = mix64(seed);
    if (gen == 3) tile_words<3>(s, t, tsize, nidx, out);
    else if (gen == 2) tile_words<2>(s, t, tsize, nidx, out);
    else if (gen == 1) tile_words<1>(s, t, tsize, nidx, out);
    else tile_words<0>(s, t, tsize, nidx, out);
}

// The scatter of one tile into `tab` (slots `slots`, plus one spare past it when NB): source
// element e goes to slot idx[e] where idx[e] < slots, in order.
// ADD: Add instead of a store (tab[idx[e]] += src[e], in order: float sums round as the
// simulator's loop does).
template <bool NB, bool ADD = false>
static inline void scatter_tile(float *tab, u32 slots, const u32 *idx, const float *src, int nidx) {
    for (int e = 0; e < nidx; ++e) {
        const u32 at = NB ? (idx[e] < slots ? idx[e] : slots) : idx[e];     // (NB: the spare slot takes the skipped ones)
        if (!NB && at >= slots) continue;
        tab[at] = ADD ? tab[at] + src[e] : src[e];
    }
}

template <bool NB, bool ADD>
static long long scatter_fuzz_t(const float *src, u32 slots_a, u32 slots_b, u64 seed, long long n, int nidx) {
    std::vector<u32> idx(nidx);
    std::vector<float> a(slots_a + 1), b(slots_b + 1);
    long long diverge = 0;
    const u64 s = mix64(seed);
    const u32 gcap = slots_a;
    for (long long t = 0; t < n; ++t) {
        tile_words<3>(s, t, gcap, nidx, idx.data());
        scatter_tile<NB, ADD>(a.data(), slots_a, idx.data(), src, nidx);
        scatter_tile<NB, ADD>(b.data(), slots_b, idx.data(), src, nidx);
        const u32 m = slots_a < slots_b ? slots_a : slots_b;
        diverge += std::memcmp(a.data(), b.data(), m * sizeof(float)) != 0;
        std::memset(a.data(), 0, a.size() * sizeof(float));
        std::memset(b.data(), 0, b.size() * sizeof(float));
    }
    return diverge;
}

// One tile's scatter as the loops run it (branch-free or not), for the test that both are the
// rule: `tab` holds slots + 1 floats.
extern "C" void scatter_tile_c(float *tab, u32 slots, const u32 *idx, const float *src, int nidx, int branch_free,
                               int add) {
    if (add) branch_free ? scatter_tile<true, true>(tab, slots, idx, src, nidx) : scatter_tile<false, true>(tab, slots, idx, src, nidx);
    else branch_free ? scatter_tile<true>(tab, slots, idx, src, nidx) : scatter_tile<false>(tab, slots, idx, src, nidx);
}

extern "C" long long scatter_fuzz_loop(const float *src, u32 slots_a, u32 slots_b, u64 seed, long long n,
                                       int nidx, int branch_free, int add) {
    if (add)
        return branch_free ? scatter_fuzz_t<true, true>(src, slots_a, slots_b, seed, n, nidx)
                           : scatter_fuzz_t<false, true>(src, slots_a, slots_b, seed, n, nidx);
    return branch_free ? scatter_fuzz_t<true, false>(src, slots_a, slots_b, seed, n, nidx)
                       : scatter_fuzz_t<false, false>(src, slots_a, slots_b, seed, n, nidx);
}

// The best of `reps` timings of `part(t, r)` run for t = 0 .. threads-1 on OpenMP threads.
template <class F>
static double best_seconds(int threads, int reps, F part) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads)
#endif
        for (int t = 0; t < threads; ++t) part(t, r);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
    }
    return best;
}

// Bytes per second of memcpy of `bytes` between two buffers with `threads` OpenMP threads (the
// copy roof: what moving a launch's bytes costs at least).
extern "C" double copy_bw(long long bytes, int threads, int reps) {
    std::vector<unsigned char> a((size_t)bytes, 1), b((size_t)bytes, 2);
    const long long part = bytes / threads;
    return (double)bytes / best_seconds(threads, reps, [&](int t, int) {
        std::memcpy(b.data() + part * t, a.data() + part * t, (size_t)part);
        asm volatile("" : : "r"(b.data()) : "memory");       // (the bytes are used: not elided)
    });
}

// Bytes per second of memset over `bytes` with `threads` OpenMP threads (the store roof).
extern "C" double store_bw(long long bytes, int threads, int reps) {
    std::vector<unsigned char> buf((size_t)bytes, 1);
    const long long part = bytes / threads;
    return (double)bytes / best_seconds(threads, reps, [&](int t, int r) {
        std::memset(buf.data() + part * t, r + 2, (size_t)part);
        asm volatile("" : : "r"(buf.data()) : "memory");
    });
}
