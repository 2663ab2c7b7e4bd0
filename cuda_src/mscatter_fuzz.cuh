// mscatter_fuzz.cuh — MSCATTER's executing fuzz engine (host only): both sides' kernels of
// mscatter.cu run per generated index tile, each checked against the independent reference
// (ref/mscatter_ref.cuh), then against each other; the whole-table verdict and the write lists.
// Part of mscatter.cu's translation unit (included at its end: it calls the kernels' loops).
#ifndef PTOGPU_MSCATTER_FUZZ_CUH
#define PTOGPU_MSCATTER_FUZZ_CUH

// ---- the executing fuzz engine ------------------------------------------------------------------
// One instance = one index tile, generated from (seed, instance) by the counter generators of
// counter_rng.cuh (plus GEN_EQUAL: one value per tile, and GEN_PERM: a rotation of 0..n-1 over
// the slots, the generators `perm` and `cycle`), written into a private copy of the UB image; both sides' kernels run on private
// copies of the table (the A5 launches as lock-step warps, the scalar loops as loops). Three
// verdicts per tile: each side's table against its *reference* (ms_ref, ref/mscatter_ref.cuh: the side's rules
// and write order computed from its parameter block, sharing no code with the kernels), then the
// two sides against each other; a difference is explained by alternative side blocks (the
// other target's rule fields, ptogpu/fuzz/scatter.py) whose reference agrees with the other
// side's. Output record per instance: [FZ_* bits, first differing table byte or ~0, class mask].
// Host only: the GPU runs the instruction kernels above, never this engine.
#include "counter_rng.cuh"

enum { GEN_EQUAL = 7, GEN_PERM = 8 };
enum { FZ_SEED = 2 * MS_WORDS, FZ_GEN, FZ_INST0, FZ_NIDX, FZ_GCAP, FZ_TBYTES, FZ_UBYTES, FZ_IDX_ADDR,
       FZ_KIND_A, FZ_KIND_B, FZ_IMAGE, FZ_PARANOID, FZ_WORDS };
// Record bits: the sides differ; a side faults; a side's source-centric launch races; a side
// disagrees with its reference; ... in bytes outside the reference's writes (or the UB); a
// stray byte was found after a stretch of tiles (rerun the instance with FZ_PARANOID).
enum { FZ_DIFF = 1, FZ_FAULT_A = 2, FZ_FAULT_B = 4, FZ_RACE_A = 8, FZ_RACE_B = 16, FZ_REFBAD_A = 32,
       FZ_REFBAD_B = 64, FZ_STRAY_A = 128, FZ_STRAY_B = 256, FZ_SUSPECT = 512 };
enum { FZ_MAX_GM = 16384, FZ_MAX_UB = 65536, FZ_CHECK_EVERY = 1024 };
// Explanation block, after the campaign block: [n, unexplained bit, then per alternative: tier,
// direction (0: side B with A's fields, against A's reference; 1: A with B's, against B's), its
// field bits, its kernel kind, its MS_WORDS block].
enum { MX_N = 0, MX_UNEXPLAINED, MX_HEAD = 4, MA_TIER = 0, MA_DIR, MA_MASK, MA_KIND, MA_P, MA_WORDS = MA_P + MS_WORDS,
       MX_MAX = 32, MX_WORDS = MX_HEAD + MX_MAX * MA_WORDS };

PTO_DEV i64 fz_value(int gen, u64 key, u64 e, u64 cap) {
    if (gen == GEN_EQUAL) return rng_mulhi(rng_mix64(key + 1ull), cap & 0xFFFFFFFFull);
    if (gen == GEN_PERM) return (i64)((e + rng_mix64(key + 7ull)) % (cap ? cap : 1ull));
    return rng_value(gen, rng_word(key, e), key, cap, e);
}

#ifdef PTO_HOST_SHIM
#include <algorithm>
#include <mutex>
#include <type_traits>
#include <vector>

// Run one side's kernel; false: it found a bad access (and wrote nothing).
static bool fz_run(const i64 *P, int kind, const Mem &m) {
    if (kind == FK_SEQ) {
        if (seq_elem_fast(P, m)) return true;
        if (!seq_instance(P, m, 0)) return false;
        seq_instance(P, m, 1);
        return true;
    }
    if (kind == FK_LAST) {
        if (P[MS_LASTSCAN] == SCAN_OWNER && a5_last_owner(P, m)) return true;
        return a5_lockstep(P, m, a5_last_warps(P), LastWarp());
    }
    if (a5_elem_fast(P, m)) return true;
    return a5_lockstep(P, m, a5_source_warps(P), SourceWarp());
}

#include "ref/mscatter_ref.cuh"

// Does the index cast's width make no difference to side block A's reference? Not for an
// unsigned index (zero-extended, the same number); for a signed one, a negative index is
// >= cap under either cast (cap < 2^31: Skip skips it, Clamp takes the last slot, an
// Undefined Elem write leaves the table either way), and a power-of-two Wrap keeps the same
// low bits. (An Undefined Row write's 64-bit s * stride can wrap back into the table.)
static bool ms_bits_moot(const i64 *A) {
    const u64 cap = (u64)A[MS_CAP];
    const int oob = (int)A[MS_OOB];
    if (!A[MS_IDX + TD_SIGNED]) return true;
    return cap < (1ull << 31) && (oob != SOOB_WRAP || (cap && !(cap & (cap - 1)))) &&
           (oob != SOOB_UNDEFINED || A[MS_MODE] == MSM_ELEM);
}

// Do side blocks A and B give the same writes? Their rule words agree: all but the Last scan,
// which the reference does not model; Elem: the Row destination rule; the cast width where
// ms_bits_moot.
static bool ms_rule_words_agree(const i64 *A, const i64 *B) {
    // (every tile asks: one pass of XORs that vectorises, the three words that may not count
    // masked out, then those three)
    struct Care {
        u64 m[MS_WORDS];
        constexpr Care() : m() {
            for (int w = 0; w < MS_WORDS; ++w) m[w] = w == MS_LASTSCAN || w == MS_ROWDST || w == MS_BITS ? 0 : ~0ull;
        }
    };
    static constexpr Care care;
    u64 d = 0;
    for (int w = 0; w < MS_WORDS; ++w) d |= ((u64)A[w] ^ (u64)B[w]) & care.m[w];
    if (d) return false;
    if (A[MS_MODE] != MSM_ELEM && A[MS_ROWDST] != B[MS_ROWDST]) return false;
    return A[MS_BITS] == B[MS_BITS] || ms_bits_moot(A);
}
// Does one reference serve both sides of campaign block `P`? Their rule words agree, and so
// do their write orders: the same kernel kind, or the scalar loop and an Elem source-centric
// launch of one round (at most 1024 positions), which both go in position order (the source
// side's list, threads included).
static bool ms_shared_ref(const i64 *P) {
    const i64 *A = P, *B = P + MS_WORDS;
    if (!ms_rule_words_agree(A, B)) return false;
    const int ka = (int)P[FZ_KIND_A], kb = (int)P[FZ_KIND_B];
    if (ka == kb) return true;
    const u64 n = (u64)A[MS_VR] * (u64)A[MS_VC];
    return A[MS_MODE] == MSM_ELEM && ((ka == FK_SEQ && kb == FK_SOURCE) || (ka == FK_SOURCE && kb == FK_SEQ)) &&
           n <= 32ull * mr_warps(n);
}

// ---- the whole-table verdict of an Elem tile of one round ---------------------------------------
// A plain (non-atomic) Elem scatter leaves every table element holding its last writer's source
// value, or its pristine bytes; an atomic one, every write combined in position order (the
// scalar loop's order, and a one-round source launch's). On the small tables of a campaign (at
// most FZ_MAX_GM bytes), writing that expected table element by element and comparing whole
// tables costs less than listing every write and checking the list backwards (ms_check_last:
// a load/store chain through `own` a write; 16-byte list entries written, then read). It
// decides "clean" only: both sides ran, neither reference faults, each table equals its
// expected table everywhere, the two tables are equal. Anything else goes to the list path,
// whose verdicts it would have given anyway (tests/test_scatter_table_verdict.py runs
// campaigns both ways and compares every record).

// The last writer of every table element under side block P's rule (kind: the scalar loop or a
// one-round A5 source launch, every written position in order; A5 Last, the positions whose
// slot is below the 32-bit cap): `own[e]` (~0u: none; own[E], E = table elements, is the sink
// of unwritten positions), `sl`: each position's element (E: unwritten), *writes: how many
// positions write. (Writes beyond the elements that have a writer are writes some later
// position overwrites: in one round of source threads, each position its own thread, a race.)
// False: a write may leave GM, i.e. reach an element at or past E = table bytes / T (the list
// path keys the fault).
// U: the lanes' type (u32 for a 32-bit cast into a capacity below 2^32: twice the lanes).
template <int OOB, bool SGN, bool B32, bool LAST, class U>
static bool mt_owners_t(const i64 *P, const u32 *wd, u32 n, u32 E, u32 *__restrict own, u32 *__restrict sl,
                        u32 *writes) {
    const U cap = (U)P[MS_CAP], cap32 = (U)((u64)P[MS_CAP] & 0xFFFFFFFFull), EU = (U)E;
    U bad = 0;
    u32 k = 0;
    // (no branch on the random slots: a select written as bits; the loop vectorises, with no
    // `omp simd reduction`, which kept the lanes' sums on the stack)
    for (u32 p = 0; p < n; ++p) {
        bool w;
        const U e = mr_remap_t<OOB, U>((U)mr_cast(wd[p], SGN, B32), cap, B32, &w);
        const U keep = (U)w & (LAST ? (U)(e < cap32) : (U)1);
        bad |= keep & (U)(e >= EU);
        const U on = keep & (U)(e < EU);
        sl[p] = (u32)(EU ^ ((e ^ EU) & ((U)0 - on)));
        k += (u32)on;
    }
    if (bad) return false;
#pragma GCC unroll 8
    for (u32 p = 0; p < n; ++p) own[sl[p]] = p;                    // in order: the last claim stays
    own[E] = ~0u;
    *writes = k;
    return true;
}
static bool mt_owners(const i64 *P, bool last, const u32 *wd, u32 n, u32 E, u32 *own, u32 *sl, u32 *writes) {
    const bool narrow = P[MS_BITS] == 32 && (u64)P[MS_CAP] <= 0xFFFFFFFFull;
    return mr_with_rule(P, [&](auto oob, auto sgn, auto b32) {
        if constexpr (decltype(b32)::value)
            if (narrow)
                return last ? mt_owners_t<oob(), sgn(), b32(), true, u32>(P, wd, n, E, own, sl, writes)
                            : mt_owners_t<oob(), sgn(), b32(), false, u32>(P, wd, n, E, own, sl, writes);
        return last ? mt_owners_t<oob(), sgn(), b32(), true, u64>(P, wd, n, E, own, sl, writes)
                    : mt_owners_t<oob(), sgn(), b32(), false, u64>(P, wd, n, E, own, sl, writes);
    });
}

template <u64 T> struct MtLane;                  // (plain, aligned lane types: GCC vectorises no aligned(1) word)
template <> struct MtLane<1> { typedef u8 t; };
template <> struct MtLane<2> { typedef unsigned short t; };
template <> struct MtLane<4> { typedef u32 t; };
template <> struct MtLane<8> { typedef u64 t; };

// Table `g` (and `g2`, TWO) against the expected table of `own` (positions' source values from
// side block P's RowMajor source tile in `ub`, else `gm`); `own` cleared to ~0u on the way.
// *owned: how many elements have a writer.
template <u64 T, bool TWO>
static bool mt_equal_t(const i64 *P, u32 *__restrict own, u32 E, const u8 *gm, const u8 *ub, const u8 *g,
                       const u8 *g2, u32 *owned) {
    using V = typename MtLane<T>::t;
    const u64 VC = (u64)P[MS_VC], SC = (u64)P[MS_SRC + TD_COLS];
    const u8 *src = ub + P[MS_SRC + TD_ADDR];
    u64 d = 0;
    u32 k = 0;
    if (SC == VC && (((u64)src | (u64)gm | (u64)g | (u64)(TWO ? g2 : g)) % T) == 0) {
        // (a dense tile, aligned: the position is the element; this loop vectorises)
        const V *__restrict sv = (const V *)src, *__restrict gv = (const V *)gm, *__restrict av = (const V *)g,
                *__restrict bv = (const V *)(TWO ? g2 : g);
        // (the source load unconditional, from element 0 for an element nobody writes: a
        // gather and a blend, where a conditional load left the loop scalar, branching at random)
        V dv = 0;
        for (u32 e = 0; e < E; ++e) {
            const u32 o = own[e], w = (u32)(o != ~0u);
            const V s = sv[o & (0u - w)], m = (V)(0u - w);
            const V v = (V)((s & m) | (gv[e] & (V)~m));
            dv |= (V)(av[e] ^ v) | (TWO ? (V)(bv[e] ^ v) : (V)0);
            k += w;
        }
        for (u32 e = 0; e < E; ++e) own[e] = ~0u;
        d = dv;
    } else {
        for (u32 e = 0; e < E; ++e) {
            const u32 o = own[e];
            const bool w = o != ~0u;
            const u64 p = w ? o : 0u, at = (p / VC) * SC + p % VC;
            const u64 v = select_nb(w, mr_get(src + at * T, T), mr_get(gm + e * T, T));
            d |= mr_get(g + e * T, T) ^ v;
            if (TWO) d |= mr_get(g2 + e * T, T) ^ v;
            k += w;
            own[e] = ~0u;
        }
    }
    *owned = k;
    return d == 0;
}
static bool mt_equal(const i64 *P, u32 *own, u32 E, const u8 *gm, const u8 *ub, const u8 *g, const u8 *g2,
                     u32 *owned) {
    switch ((int)P[MS_T]) {
#define MT_EQ(TS) return g2 ? mt_equal_t<TS, true>(P, own, E, gm, ub, g, g2, owned) \
                            : mt_equal_t<TS, false>(P, own, E, gm, ub, g, g2, owned);
    case 1: MT_EQ(1)
    case 2: MT_EQ(2)
    case 4: MT_EQ(4)
    default: MT_EQ(8)
#undef MT_EQ
    }
}

// An atomic scatter's expected table: `tab` (the image) combined in position order with every
// written position's source value (sl: elements, E for none), by the rules' arithmetic.
template <u64 T>
static void mt_combine_t(const i64 *P, const u32 *sl, u32 n, u32 E, const u8 *ub, u8 *tab) {
    const u64 VC = (u64)P[MS_VC], SC = (u64)P[MS_SRC + TD_COLS];
    const u8 *src = ub + P[MS_SRC + TD_ADDR];
    const int op = (int)P[MS_ATOMIC], dt = (int)P[MS_DT];
    alignas(8) u8 sink[8] = {0};
    for (u32 p = 0; p < n; ++p) {                 // (an unwritten position combines into the sink)
        const u64 at = SC == VC ? p : (p / VC) * SC + p % VC;
        u8 *d = pick_or_sink(sl[p] != E, tab, (u64)sl[p] * T, sink);
        mr_put(d, T, mr_combine(op, dt, mr_get(d, T), mr_get(src + at * T, T)));
    }
}
static void mt_combine(const i64 *P, const u32 *sl, u32 n, u32 E, const u8 *ub, u8 *tab) {
    switch ((int)P[MS_T]) {
    case 1: return mt_combine_t<1>(P, sl, n, E, ub, tab);
    case 2: return mt_combine_t<2>(P, sl, n, E, ub, tab);
    case 4: return mt_combine_t<4>(P, sl, n, E, ub, tab);
    default: return mt_combine_t<8>(P, sl, n, E, ub, tab);
    }
}
// How many elements have a writer in `own`; `own` cleared to ~0u.
static u32 mt_owned(u32 *own, u32 E) {
    u32 k = 0;
    for (u32 e = 0; e < E; ++e) {
        k += own[e] != ~0u;
        own[e] = ~0u;
    }
    return k;
}

// Campaign block P, after both sides ran clean on tables `ga` / `gb`: is the tile clean by the
// whole-table verdict (*race_a / *race_b set)? `own`: E+1 entries of ~0u (left so); `sl`: n entries.
static bool ms_table_clean(const i64 *P, const u32 *wd, u64 tb, const u8 *gm, const u8 *ub, const u8 *ga,
                           const u8 *gb, u32 *own, u32 *sl, u8 *scratch, bool *race_a, bool *race_b) {
    const i64 *A = P, *B = P + MS_WORDS;
    const int ka = (int)P[FZ_KIND_A], kb = (int)P[FZ_KIND_B];
    const u64 n = (u64)P[FZ_NIDX], T = (u64)A[MS_T];
    const int op = (int)A[MS_ATOMIC];
    for (const i64 *X : {A, B})
        if (X[MS_MODE] != MSM_ELEM || X[MS_ATOMIC] != op || (u64)X[MS_T] != T || (u64)X[MS_VR] * (u64)X[MS_VC] != n)
            return false;
    const u64 E = tb / T;
    // (the table pass is E elements: for a table much larger than the tile, the list is cheaper)
    if (n == 0 || n > 1024 || E > 4 * n + 256) return false;     // (one round of source threads: n <= 1024)
    // (Last's table is the scalar loop's where every written slot is below its 32-bit cap: every
    // policy but Undefined, for a cap below 2^31)
    auto last = [](const i64 *X, int k) {
        return k == FK_LAST && (X[MS_OOB] == SOOB_UNDEFINED || X[MS_CAP] < 1 || X[MS_CAP] >= (1ll << 31));
    };
    const bool same = last(A, ka) == last(B, kb) && ms_rule_words_agree(A, B);   // (one expected table for both)
    u32 na = 0, nb = 0, oa = 0, ob = 0;            // (writes, elements written)
    if (op != AT_NONE) {
        // an atomic scatter (no Last): one rule for both sides, both in position order; its
        // table is the image combined in that order, written into `scratch` (W.ra: the image at
        // rest, as the lists keep it too; put back)
        if (!same || ka == FK_LAST || kb == FK_LAST) return false;
        if (!mt_owners(A, false, wd, (u32)n, (u32)E, own, sl, &na)) return false;
        oa = mt_owned(own, (u32)E);
        mt_combine(A, sl, (u32)n, (u32)E, ub, scratch);
        const bool eq = !__builtin_memcmp(ga, scratch, tb) && !__builtin_memcmp(gb, scratch, tb);
        __builtin_memcpy(scratch, gm, tb);
        if (!eq) return false;
        nb = na, ob = oa;
    } else {
        if (!mt_owners(A, ka == FK_LAST, wd, (u32)n, (u32)E, own, sl, &na)) return false;
        if (same) {
            if (!mt_equal(A, own, (u32)E, gm, ub, ga, gb, &oa)) return false;
            nb = na, ob = oa;
        } else {
            if (!mt_equal(A, own, (u32)E, gm, ub, ga, nullptr, &oa)) return false;
            if (!mt_owners(B, kb == FK_LAST, wd, (u32)n, (u32)E, own, sl, &nb)) return false;
            if (!mt_equal(B, own, (u32)E, gm, ub, gb, nullptr, &ob)) return false;
        }
        if (__builtin_memcmp(ga + E * T, gm + E * T, tb - E * T) || __builtin_memcmp(gb + E * T, gm + E * T, tb - E * T) ||
            (!same && __builtin_memcmp(ga, gb, E * T)))
            return false;
    }
    *race_a = ka == FK_SOURCE && na != oa;
    *race_b = kb == FK_SOURCE && nb != ob;
    return true;
}

// Per worker thread: the sides' tables, reference tables, UB image and scratch, kept across
// tiles (each tile puts back what it touched); the instances since the last full check.
struct MsWork;
static std::mutex ms_works_mu;
static std::vector<MsWork *> ms_works;          // every thread's, for pto_mscatter_fuzz_flush
struct MsWork {
    std::vector<u8> ga, gb, ra, rb, xa, ub;
    MsList wa, wb, wx;
    std::vector<i64> owner;
    std::vector<u64> used;
    std::vector<u32> own, words, slots;         // (words: this tile's index words, in order)
    std::vector<u64 *> since;                   // records of the tiles since the last full check
    i64 image = 0;
    u64 tiles = 0, tb = 0, ubn = 0, i0 = 0, i1 = 0;   // table bytes, UB bytes, the index tile
    MsWork() { std::lock_guard<std::mutex> g(ms_works_mu); ms_works.push_back(this); }
    ~MsWork() {
        std::lock_guard<std::mutex> g(ms_works_mu);
        ms_works.erase(std::remove(ms_works.begin(), ms_works.end(), this), ms_works.end());
    }
    // Records of a launch whose caller never flushed (its record array may be gone): dropped
    // unmarked, and the copies renewed before the next tile (nothing of them is read again).
    void drop() {
        since.clear();
        image = INT64_MIN;
    }
    // Do the bytes no tile rewrites (tables, UB but the index tile) still hold the images?
    // If not, every tile since the last check is suspect (the host reruns them with
    // FZ_PARANOID) and the images are put back.
    void check(const u8 *gm, const u8 *ub0) {
        const bool dirty = __builtin_memcmp(ga.data(), gm, tb) != 0 || __builtin_memcmp(gb.data(), gm, tb) != 0 ||
                           __builtin_memcmp(ub.data(), ub0, i0) != 0 ||
                           __builtin_memcmp(ub.data() + i1, ub0 + i1, ubn - i1) != 0;
        if (dirty) {
            for (u64 *r : since) r[0] |= FZ_SUSPECT;
            __builtin_memcpy(ga.data(), gm, tb);
            __builtin_memcpy(gb.data(), gm, tb);
            __builtin_memcpy(ub.data(), ub0, ubn);
        }
        since.clear();
    }
};

// First differing byte of two tables at the elements of two write lists (~0: none).
static u64 ms_first_diff(const u8 *x, const u8 *y, u64 T, const MsList &W1,
                         const MsList *W2 = nullptr) {
    u64 first = ~0ull;
    for (const MsList *W : {&W1, W2}) {
        if (!W) continue;
        for (const MsWrite &w : *W) {
            const u8 *p = x + w.elem * T, *q = y + w.elem * T;
            if (mr_get(p, T) == mr_get(q, T) || w.elem * T >= first) continue;
            for (u64 k = 0; k < T; ++k)
                if (p[k] != q[k]) { first = w.elem * T + k; break; }
        }
    }
    return first;
}

static void ms_restore(u8 *t, const u8 *gm, u64 T, const MsList &W) {
    for (const MsWrite &w : W) mr_put(t + w.elem * T, T, mr_get(gm + w.elem * T, T));
}

// Does the reference of an alternative block agree with a side's reference (`ok`: whether that
// side's call runs clean; `ref`/`wr`: its reference table and writes)? Both fault, or neither
// and the tables agree at every element either writes. `w.xa`: a scratch table holding the
// pristine image (put back).
template <class Word>
static bool ms_ref_same(const i64 *P1, int k1, Word word, u64 tb, const u8 *gm, const u8 *ub, bool ok,
                        const u8 *ref, const MsList &wr, MsWork &w) {
    const bool o1 = ms_ref(P1, k1, word, tb, w.wx, w.owner, w.used);
    if (!o1 || !ok) return !o1 && !ok;
    ms_apply(P1, w.wx, ub, w.xa.data());
    const bool same = ms_first_diff(w.xa.data(), ref, (u64)P1[MS_T], w.wx, &wr) == ~0ull;
    ms_restore(w.xa.data(), gm, (u64)P1[MS_T], w.wx);
    return same;
}
#endif

#ifdef PTO_HOST_SHIM
// Is record `r` one of this launch's (`fault`, n_inst rows)? (As addresses: the arrays are
// unrelated objects.)
static bool ms_in_launch(const u64 *r, const u64 *fault, i64 n_inst) {
    const u64 a = (u64)r, b = (u64)fault;
    return a >= b && a < b + (u64)n_inst * FAULT_WORDS * sizeof(u64);
}
#endif

extern "C" __global__ void __launch_bounds__(1024) mscatter_fuzz(PTO_KERNEL_PARAMS) {
    (void)pass, (void)gm_stride, (void)ub_stride, (void)l1, (void)l1_size, (void)l1_stride;
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
#ifndef PTO_HOST_SHIM
    PTO_FOR_EACH_INSTANCE(inst) fault[inst * FAULT_WORDS] = ~0ull - 1;   // host only
#else
    // (heap-backed thread-locals: a dlopen'ed library has little static TLS)
    static thread_local MsWork W;
    PTO_FOR_EACH_INSTANCE(inst) {
        const i64 *P = prm + inst * prm_stride, *MX = P + FZ_WORDS;
        u64 *rec = fault + inst * FAULT_WORDS;
        const u64 tb = (u64)P[FZ_TBYTES], ubn = (u64)P[FZ_UBYTES];
        // (a block the host never builds: refused, as a kernel refuses a bad parameter block)
        const bool row_ = P[MS_MODE] == MSM_ROW;
        const u64 vr = (u64)P[MS_VR], vc = (u64)P[MS_VC], ic = (u64)P[MS_IDX + TD_COLS], nw = (u64)P[FZ_NIDX];
        const bool dims = nw <= FZ_MAX_UB / 4 &&   // (Elem: the words fill the index tile, row by row)
                          (row_ || (vr <= FZ_MAX_UB && vc <= ic && ic <= FZ_MAX_UB && nw == vr * vc));
        const u64 i_len = dims ? 4 * (row_ ? nw : vr * ic) : 0;
        if (tb > FZ_MAX_GM || ubn > FZ_MAX_UB || (i64)tb > gm_size || (i64)ubn > ub_size || !dims ||
            P[FZ_IDX_ADDR] < 0 || (u64)P[FZ_IDX_ADDR] > ubn || i_len > ubn - (u64)P[FZ_IDX_ADDR]) {
            rec[0] = ~0ull - 1;
            continue;
        }
        if (!W.since.empty() && !ms_in_launch(W.since.front(), fault, n_inst)) W.drop();
        // a new campaign (or images of other sizes under the same id): fresh copies of its images
        if (W.image != P[FZ_IMAGE] || W.ga.size() != tb || W.ub.size() != ubn) {
            for (std::vector<u8> *v : {&W.ga, &W.gb, &W.ra, &W.rb, &W.xa}) v->assign(gm, gm + tb);
            W.ub.assign(ub, ub + ubn);
            W.own.assign(FZ_MAX_GM + 1, ~0u);   // (+1: ms_table_clean's sink)
            W.since.clear();
            W.tiles = 0;
            W.image = P[FZ_IMAGE];
        }
        u8 *ga = W.ga.data(), *gb = W.gb.data(), *ubl = W.ub.data();
        W.tb = tb, W.ubn = ubn, W.i0 = (u64)P[FZ_IDX_ADDR];
        W.i1 = W.i0 + i_len;
        const u64 key = rng_key((u64)P[FZ_SEED], (u64)(P[FZ_INST0] + inst));
        const int gen = (int)P[FZ_GEN];
        const u64 gcap = (u64)P[FZ_GCAP];
        const i64 n = P[FZ_NIDX];
        const i64 *PA = P, *PB = P + MS_WORDS;
        // the index words, at their tile offsets (RowMajor; Row: one row of VR)
        const u64 VC = (u64)PA[MS_VC], IC = (u64)PA[MS_IDX + TD_COLS];
        u8 *ib = ubl + P[FZ_IDX_ADDR];
        u32 dup[4];
        i64 d64[4];
        rng_dup_values(key, gcap, d64);
        for (int j = 0; j < 4; ++j) dup[j] = (u32)d64[j];
        W.words.resize((usize)n);
        u32 *wd = W.words.data();
        if (gen != GEN_EQUAL && gen != GEN_PERM) {
            const u32 k1 = (u32)key, k2 = (u32)(key >> 32), c32 = (u32)gcap;
            rng_words32(gen, k1, k2, dup, c32, (u32)n, wd);
        } else {
            for (i64 e = 0; e < n; ++e) wd[e] = (u32)fz_value(gen, key, (u64)e, gcap);
        }
        auto word = [wd](u64 e) -> u32 { return wd[e]; };
        if (row_ || IC == VC) {
            __builtin_memcpy(ib, wd, (usize)n * 4);
        } else {
            for (u64 e = 0, r = 0; e < (u64)n; e += VC, ++r) __builtin_memcpy(ib + r * IC * 4, wd + e, VC * 4);
        }
        Mem ma, mb;
        ma.a[SPACE_GM].p = ga; ma.a[SPACE_GM].size = (i64)tb;
        mb.a[SPACE_GM].p = gb; mb.a[SPACE_GM].size = (i64)tb;
        ma.a[SPACE_UB].p = mb.a[SPACE_UB].p = ubl;
        ma.a[SPACE_UB].size = mb.a[SPACE_UB].size = (i64)ubn;
        ma.a[SPACE_L1].p = mb.a[SPACE_L1].p = ubl;
        ma.a[SPACE_L1].size = mb.a[SPACE_L1].size = 0;
        const int ka = (int)P[FZ_KIND_A], kb = (int)P[FZ_KIND_B];
        const u64 T = (u64)PA[MS_T];
        u64 code = 0;
        if (!fz_run(PA, ka, ma)) code |= FZ_FAULT_A;
        if (!fz_run(PB, kb, mb)) code |= FZ_FAULT_B;
        auto finish = [&](u64 first, u64 mask) {
            rec[0] = code;
            rec[1] = first;
            rec[2] = mask;
            // every FZ_CHECK_EVERY tiles of this thread (and at the end of a launch, through
            // pto_mscatter_fuzz_flush): the bytes no reference wrote, all of them
            if (!P[FZ_PARANOID]) {
                W.since.push_back(rec);
                if (++W.tiles % FZ_CHECK_EVERY == 0) W.check(gm, ub);
            }
        };
        if (!code && !P[FZ_PARANOID]) {           // an Elem tile of one round, clean: whole tables, put back whole
            bool ra = false, rb = false;
            W.slots.resize((usize)n);
            if (ms_table_clean(P, wd, tb, gm, ubl, ga, gb, W.own.data(), W.slots.data(), W.ra.data(), &ra, &rb)) {
                __builtin_memcpy(ga, gm, tb);
                __builtin_memcpy(gb, gm, tb);
                code = (ra ? FZ_RACE_A : 0) | (rb ? FZ_RACE_B : 0);
                finish(~0ull, 0);
                continue;
            }
        }
        // verdicts 1 and 2: each side's table against its reference, at the reference's writes
        // (every other byte: the full check after FZ_CHECK_EVERY tiles, or now when paranoid);
        // one reference (W.wa, W.ra) serves both sides where their rules and write orders agree
        const bool share = ms_shared_ref(P);
        const bool oka = ms_ref(PA, share && kb == FK_SOURCE ? kb : ka, word, tb, W.wa, W.owner, W.used);
        const bool okb = share ? oka : ms_ref(PB, kb, word, tb, W.wb, W.owner, W.used);
        if (share) W.wb.clear();
        const MsList &lb = share ? W.wa : W.wb;
        u8 *rfa = W.ra.data(), *rfb = share ? rfa : W.rb.data();
        // no reference table needed where no write combines with the old value: each side's
        // table is checked against its list's last writers (one pass for a shared reference)
        const bool no_atomic = PA[MS_ATOMIC] == AT_NONE && PB[MS_ATOMIC] == AT_NONE;
        const bool plain = share && oka && no_atomic;
        const bool plain_each = !share && no_atomic;
        bool applied = false;                     // are the reference tables W.ra / W.rb written?
        auto apply_refs = [&] {
            if (oka) ms_apply(PA, W.wa, ubl, rfa);
            if (okb && !share) ms_apply(PB, W.wb, ubl, rfb);
            applied = true;
        };
        bool bad_a = false, bad_b = false, race_a = false, race_b = false;
        if (plain) {
            bool race = false;
            ms_check_last(PA, W.wa, ubl, ga, gb, W.own.data(), &bad_a, &bad_b, &race);
            race_a = ka == FK_SOURCE && race;
            race_b = kb == FK_SOURCE && race;
        } else if (plain_each) {
            bool ra = false, rb = false;
            if (oka) ms_check_side(PA, W.wa, ubl, ga, W.own.data(), &bad_a, &ra);
            if (okb) ms_check_side(PB, W.wb, ubl, gb, W.own.data(), &bad_b, &rb);
            race_a = ka == FK_SOURCE && ra;
            race_b = kb == FK_SOURCE && rb;
        } else {
            apply_refs();
            bad_a = oka && ms_first_diff(ga, rfa, T, W.wa) != ~0ull;
            bad_b = okb && ms_first_diff(gb, rfb, T, lb) != ~0ull;
            race_a = ka == FK_SOURCE && oka && ms_races(W.wa, W.own);
            race_b = kb == FK_SOURCE && okb && (share ? race_a || (ka != FK_SOURCE && ms_races(lb, W.own))
                                                      : ms_races(lb, W.own));
        }
        if (oka == ((code & FZ_FAULT_A) != 0) || bad_a) code |= FZ_REFBAD_A;
        if (okb == ((code & FZ_FAULT_B) != 0) || bad_b) code |= FZ_REFBAD_B;
        code |= (race_a ? FZ_RACE_A : 0) | (race_b ? FZ_RACE_B : 0);
        // verdict 3: the sides against each other, where either reference writes (a shared
        // reference that both sides match: they agree there)
        const bool both_ref = share && !(code & (FZ_REFBAD_A | FZ_REFBAD_B));
        const u64 first = both_ref ? ~0ull : ms_first_diff(ga, gb, T, W.wa, &W.wb);
        if (first != ~0ull && !(code & (FZ_FAULT_A | FZ_FAULT_B))) code |= FZ_DIFF;
        // the class of a difference: the alternatives of the first tier whose reference agrees
        // with the other side's
        u64 mask = 0;
        const bool diff = (code & FZ_DIFF) || ((code & FZ_FAULT_A) != 0) != ((code & FZ_FAULT_B) != 0);
        if (diff && !(code & (FZ_REFBAD_A | FZ_REFBAD_B))) {
            if (!applied) apply_refs();           // (the alternatives compare with the reference tables)
            i64 tier = -1;
            for (i64 k = 0; k < MX[MX_N]; ++k) {
                const i64 *X = MX + MX_HEAD + k * MA_WORDS;
                if (X[MA_TIER] != tier) {
                    if (mask) break;
                    tier = X[MA_TIER];
                }
                if (X[MA_KIND] < 0) continue;        // a hybrid the checks reject
                const bool toB = X[MA_DIR] != 0;
                if (ms_ref_same(X + MA_P, (int)X[MA_KIND], word, tb, gm, ubl, toB ? okb : oka,
                                toB ? W.rb.data() : W.ra.data(), toB ? W.wb : W.wa, W))
                    mask |= (u64)X[MA_MASK];
            }
            if (!mask) mask = (u64)MX[MX_UNEXPLAINED];
        }
        if (plain) {
            ms_restore_plain(W.wa, W.own.data(), ga, gb, gm, T);
        } else {
            ms_restore(ga, gm, T, W.wa);
            ms_restore(gb, gm, T, lb);
            if (applied) {
                ms_restore(W.ra.data(), gm, T, W.wa);
                ms_restore(W.rb.data(), gm, T, W.wb);
            }
        }
        if (P[FZ_PARANOID]) {                    // every byte, now
            const bool da = __builtin_memcmp(ga, gm, tb) != 0, db = __builtin_memcmp(gb, gm, tb) != 0;
            const bool du = __builtin_memcmp(ubl, ub, W.i0) != 0 || __builtin_memcmp(ubl + W.i1, ub + W.i1, ubn - W.i1) != 0;
            if (da || du) code |= FZ_REFBAD_A | FZ_STRAY_A;     // (a UB write: either side's)
            if (db || du) code |= FZ_REFBAD_B | FZ_STRAY_B;
            if (da || db || du) {
                __builtin_memcpy(ga, gm, tb);
                __builtin_memcpy(gb, gm, tb);
                __builtin_memcpy(ubl, ub, ubn);
            }
            if (code & (FZ_REFBAD_A | FZ_REFBAD_B)) mask = 0;
        }
        finish(first, mask);
    }
#endif
}

#ifdef PTO_HOST_SHIM
// After a launch of mscatter_fuzz on the images `gm` / `ub` with record array `rec` (n_inst
// rows): every thread's last tiles of that launch get their full check (suspect records are
// marked before the host reads them); a thread's records of another launch, never flushed,
// are dropped (their array may be gone, their images are not these).
extern "C" void pto_mscatter_fuzz_flush(const u8 *gm, const u8 *ub, const u64 *rec, i64 n_inst) {
    std::lock_guard<std::mutex> g(ms_works_mu);
    for (MsWork *w : ms_works) {
        if (w->since.empty()) continue;
        if (ms_in_launch(w->since.front(), rec, n_inst)) w->check(gm, ub);
        else w->drop();
    }
}
#endif

#ifdef PTO_HOST_SHIM
// ms_table_clean on its own, for the tests of the verdict: campaign block `P`, index words
// `wd` (n_words of them), images `gm` / `ub` (gm_bytes / ub_bytes) and the sides' tables `ga`
// / `gb` (tb bytes, tb = P[FZ_TBYTES]). 1: clean (race[0..1]: the sides' race flags); 0: not
// clean, or not this verdict's to decide; -1: a block or a size the engine would refuse.
extern "C" int pto_mscatter_table_clean(const i64 *P, const u32 *wd, i64 n_words, const u8 *gm, i64 gm_bytes,
                                        const u8 *ub, i64 ub_bytes, const u8 *ga, const u8 *gb, int *race) {
    const u64 tb = (u64)P[FZ_TBYTES];
    if (tb > FZ_MAX_GM || (i64)tb > gm_bytes || P[FZ_UBYTES] > ub_bytes || P[FZ_UBYTES] > FZ_MAX_UB ||
        P[FZ_NIDX] < 0 || P[FZ_NIDX] > n_words)
        return -1;
    for (const i64 *X : {P, P + MS_WORDS}) {      // (the source tile inside UB, as the engine's blocks)
        const u64 VR = (u64)X[MS_VR], VC = (u64)X[MS_VC], SC = (u64)X[MS_SRC + TD_COLS], T = (u64)X[MS_T];
        if (X[MS_SRC + TD_ADDR] < 0 || VR > 4096 || VC > 4096 || SC > 4096 || !(T == 1 || T == 2 || T == 4 || T == 8) ||
            (u64)X[MS_SRC + TD_ADDR] + (VR * SC + VC) * T > (u64)ub_bytes)
            return -1;
    }
    std::vector<u32> own(FZ_MAX_GM + 1, ~0u), sl((usize)P[FZ_NIDX] + 1);
    std::vector<u8> scratch(gm, gm + tb);
    bool ra = false, rb = false;
    const bool clean = ms_table_clean(P, wd, tb, gm, ub, ga, gb, own.data(), sl.data(), scratch.data(), &ra, &rb);
    race[0] = ra, race[1] = rb;
    return clean ? 1 : 0;
}
#endif

PTO_EXPORT(mscatter_fuzz)

#endif  // PTOGPU_MSCATTER_FUZZ_CUH
