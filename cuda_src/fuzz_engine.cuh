// fuzz_engine.cuh — the executing campaign engine's host loop (exec_range_t) and what it
// shares with the kernels of fuzz.cu: the exec block (the result record and its class table
// are fuzz_classes.cuh's).
// fuzz.cu instantiates the loop generically (kernels through their one-block entry points,
// parameters read at run time: pto_fuzz_exec); a campaign's specialised build
// (ptogpu/fuzz/specialise.py) instantiates it with its configuration as compile-time
// constants and the kernels' per-instance bodies called directly (pto_fuzz_spec).
#ifndef PTOGPU_FUZZ_ENGINE_CUH
#define PTOGPU_FUZZ_ENGINE_CUH

#include "counter_rng.cuh"
#include "fuzz_classes.cuh"
#include "ref/mgather_ref.cuh"
#include "mgather_impl.cuh"


// Class of a tile whose two sides' results differ (the references, or executions that agree
// with them): the sides that must agree (FZ_REL), else the explanation, with the fault
// symptom when exactly one side faults.
template <class Word>
PTO_DEV u64 fz_class(const i64 *P, const i64 *XP, Word word, const u8 *gm, bool fa, bool fb) {
    if (P[FZ_REL]) return (u64)P[FZ_REL];
    return ref_explain(P, XP, word, gm) | (fa != fb ? (u64)XP[XP_FAULT] : 0ull);
}

// ---- executing engine: both sides' kernels run on every tile -----------------------------------
// Nothing here knows the MGATHER rules: each tile's indices are generated into a per-thread UB
// image, side A's kernel and side B's kernel (the very functions batches launch: the A5 SIMT
// launches as lock-step warps, the scalar targets' loops) run on it into two destination
// copies. Three verdicts per tile: each side's fault record, destination and index tile against
// its reference (ref/mgather_ref.cuh), and every other byte of its UB and of GM unchanged (on
// the host: compared after each block of tiles, the block rerun tile by tile when something
// changed), then the two sides against each other; a difference is classified by fz_class. A lane-mapping error in a
// kernel therefore shows up as that side disagreeing with its reference.

// Exec block (int64 words), filled by ptogpu/fuzz/execute.py.
enum {
    EX_N_IDX = 0, EX_IDX_ADDR, EX_DST_ADDR, EX_DST_NBYTES, EX_DST_COLS, EX_DST_FILL,
    EX_BX_A, EX_BY_A, EX_PASSES_A, EX_UB_A, EX_BX_B, EX_BY_B, EX_PASSES_B, EX_UB_B,
    // Shape fuzzing: EX_SHAPES set, each tile's valid (vr, vc) drawn by rng_shape within the
    // FZ_VR x FZ_VC tile and written into both sides' parameter blocks (EX_PWORDS words each)
    // at words EX_VR_WORD and EX_VC_WORD.
    EX_SHAPES, EX_PWORDS, EX_VR_WORD, EX_VC_WORD,
    // fuzz_exec_campaign only: the sides' kernels (MGK_*), the offset of side B's UB image in
    // an instance's window, and of the two fault records (8 u64).
    EX_KIND_A, EX_KIND_B, EX_WIN_B, EX_REC, EX_WORDS
};

// Phase of a fault record (index, table, dst), or -1.
PTO_DEV int fault_phase(const u64 *rec) {
    if (rec[0] == FAULT_NONE) return -1;
    const u64 p = rec[0] >> 56;
    return p <= 2 ? (int)p : 3;
}

// Do two executions agree? Both fault in the same phase, or neither and their bytes agree.
PTO_DEV bool fz_exec_same(const u64 *reca, const u64 *recb, const u8 *dsa, const u8 *dsb, u64 dn) {
    const int fa = fault_phase(reca), fb = fault_phase(recb);
    if (fa >= 0 || fb >= 0) return fa == fb;
#ifdef PTO_HOST_SHIM
    return __builtin_memcmp(dsa, dsb, dn) == 0;
#else
    for (u64 k = 0; k < dn; ++k)
        if (dsa[k] != dsb[k]) return false;
    return true;
#endif
}

// Does a fault record hold the reference's fault (key, address, index value; none: no fault)?
PTO_DEV bool fz_rec_ok(const u64 *rec, u64 key, u64 addr, u64 uu) {
    return rec[0] == key && (key == FAULT_NONE || (rec[1] == addr && rec[2] == uu));
}

// ---- host loop ---------------------------------------------------------------------------------
#ifdef PTO_HOST_SHIM
#include <cstring>
#include <vector>

#ifndef PTO_COVERAGE
#define FZ_INLINE __attribute__((always_inline)) inline
#else
#define FZ_INLINE inline          // (a coverage build: one body per helper, as counter_rng.cuh says)
#endif

namespace {

// Index words 0..n-1 of the tile with key `key` (rng_value32: the low 32 bits of the
// generator's values), in 32-bit lanes.
FZ_INLINE void fz_words(u64 key, int gen, u64 gcap, u64 n, u32 *w) {
    i64 dup[4];
    rng_dup_values(key, gcap, dup);
    const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
    const u32 k1 = (u32)key, k2 = (u32)(key >> 32), c32 = (u32)gcap;
    rng_words32(gen, k1, k2, d32, c32, (u32)n, w);     // (32-bit counters: 32-bit vector lanes throughout)
}

// Tiles inst0 .. inst0+n-1 split into one contiguous range per OpenMP thread: body(lo, hi,
// that thread's result record). Thread k takes the k-th range, so its first instances per
// class are its smallest.
template <class F>
static void fz_each_range(const i64 *P, i64 n, u64 *res, int n_res, F body) {
#ifdef _OPENMP
#pragma omp parallel num_threads(n_res)
#endif
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int t = 0, nt = 1;
#endif
        const u64 lo = (u64)P[FZ_INST0] + (u64)n * t / nt, hi = (u64)P[FZ_INST0] + (u64)n * (t + 1) / nt;
        body(lo, hi, res + (u64)t * FZ_RESULT_WORDS);
    }
}

// Tiles inst0 .. inst0+n-1 of the campaign `prm` ([campaign block | explanation block]; table
// = `gm`); `res` holds one result record per thread (n_res records, FZ_RESULT_WORDS each,

// Run one side's kernel on one instance through its one-block entry point (host1w_: the
// lock-step warps; host1_: every thread per pass).
FZ_INLINE void run_side(pto_block_fn k, const i64 *prm, const i64 *X, int side, u8 *gm, i64 gm_size,
                        u8 *ub, i64 ub_size, u64 *rec) {
    for (int w = 0; w < FAULT_WORDS; ++w) rec[w] = FAULT_NONE;
    const i64 *b = X + (side ? EX_BX_B : EX_BX_A);       // block x, block y, passes
    u8 l1 = 0;
    k((unsigned)b[0], (unsigned)b[1], 1, (int)b[2], gm, gm_size, ub, ub_size, &l1, 0,
      (const long long *)prm, rec);
}

// fz_class over a tile's words, out of line (rare, and large).
__attribute__((noinline)) static u64 fz_class_of(const i64 *P, const i64 *XP, const u32 *w, const u8 *gm, bool fa,
                                                 bool fb) {
    return fz_class(P, XP, [w](u64 k) { return w[k]; }, gm, fa, fb);
}

// Tiles with this many GM bytes or fewer run on a private copy of GM per thread, compared with
// the pristine image after every block of tiles; bigger tables share GM (not compared).
enum { FZ_PRIVATE_GM = 64 << 20, FZ_BLOCK = 4096 };

// The kernels of the two sides as the generic loop calls them: each side's one-block entry
// point (host1w_ / host1_) on its parameter block.
struct EntrySides {
    pto_block_fn ka, kb;
    const i64 *X;
    FZ_INLINE void run(int side, const i64 *prm, u8 *gm, i64 gm_size, u8 *ub, i64 ub_size, u64 *rec) const {
        run_side(side ? kb : ka, prm, X, side, gm, gm_size, ub, ub_size, rec);
    }
    // side `side`'s destination against its reference (ref_check: the form picked per call)
    FZ_INLINE u64 check(int side, const i64 *P, const u32 *w, const u8 *gm, const u8 *ds, u64 dn, u8 *scratch,
                        bool *bad, u64 *addr, u64 *uu) const {
        return ref_check(P, P + (side ? FZ_B : FZ_A), w, gm, ds, dn, scratch, bad, addr, uu);
    }
};

// Tiles lo .. hi-1 of one campaign into the result record `res`: P the campaign block, XP the
// explanation block, X the exec block, `sides` runs a side's kernel on one instance. Written
// so that a caller whose P, X, ipos, pa and pb are compile-time constant arrays (a
// specialised build) gets every shape, size and rule folded into the loops.
template <class Sides>
FZ_INLINE void exec_range_t(const i64 *P, const i64 *XP, const i64 *X, const i64 *ipos, const Sides &sides,
                            const i64 *pa, const i64 *pb, const u8 *gm, i64 gm_size, const u8 *ub_a,
                            const u8 *ub_b, u64 seed, u64 lo, u64 hi, u64 *res) {
    const u64 n = (u64)X[EX_N_IDX], ia = (u64)X[EX_IDX_ADDR], da = (u64)X[EX_DST_ADDR];
    const u64 dn = (u64)X[EX_DST_NBYTES];
    const u64 R = (u64)P[FZ_VR], Cv = (u64)P[FZ_VC];
    const i64 usa = X[EX_UB_A], usb = X[EX_UB_B];
    const bool shapes = X[EX_SHAPES] != 0;
    // Per-tile copies of the blocks a tile's shape is written into.
    const u64 pw = shapes ? (u64)X[EX_PWORDS] : 0;
    i64 Pt[FZ_WORDS];
    for (int k = 0; k < FZ_WORDS; ++k) Pt[k] = P[k];
    std::vector<i64> la(pa, pa + pw), lb(pb, pb + pw);
    if (shapes) {
        pa = la.data();
        pb = lb.data();
        P = Pt;
    }
    const bool elem = P[FZ_MODE] == MODE_ELEM_;
    const int gen = (int)P[FZ_GEN];
    const u64 gcap = (u64)P[FZ_GCAP];
    const u8 fill = (u8)X[EX_DST_FILL];
    // (slack past each image: the reference's lanes read up to 31 elements past a row)
    std::vector<u8> uba(usa + 256, 0), ubb(usb + 256, 0);
    std::memcpy(uba.data(), ub_a, (usize)usa);
    std::memcpy(ubb.data(), ub_b, (usize)usb);
    const bool dense = !shapes && [&] {           // the index tile is the values in order
        for (u64 k = 0; k < n; ++k) if ((u64)ipos[k] != k) return false;
        return true;
    }();
    // What each tile rewrites and compares: the destination [da, da+dn) and the index words,
    // [ia, ia+4n) (dense) or, where the values sit at tile offsets (shape fuzzing keeps the
    // words of earlier tiles past this tile's valid region), all of [0, da) against `expi`,
    // the index tile as both sides hold it. Everything else in UB, and GM, is compared after
    // each block of tiles (and after each tile when that block is rerun).
    const u64 i0 = dense ? ia : 0, i1 = dense ? ia + 4 * n : da;
    std::vector<u8> expi(ub_a, ub_a + da), refa(dn);
    const bool private_gm = gm_size <= (i64)FZ_PRIVATE_GM;
    std::vector<u8> gml(private_gm ? (usize)gm_size : 0);
    if (private_gm) std::memcpy(gml.data(), gm, (usize)gm_size);
    // What the kernels and the references read (one copy of the table in cache). A kernel that
    // writes it makes the block's check fail, and the block reruns with GM compared, and put
    // back, after every kernel, before any reference reads it.
    u8 *gmk = private_gm ? gml.data() : (u8 *)gm;
    std::vector<u32> w(n + 32);
    u64 reca[FAULT_WORDS], recb[FAULT_WORDS];
    u8 *ixa = uba.data() + ia, *ixb = ubb.data() + ia, *ixe = expi.data() + ia;
    u8 *dsa = uba.data() + da, *dsb = ubb.data() + da;
    const bool shared_ref = ref_same_rules(P);
    // Bytes no tile rewrites (UB outside the index words and the destination, GM) changed?
    // Then put them back.
    auto dirty = [&](int sd) {
        u8 *u = sd ? ubb.data() : uba.data();
        const u8 *u0 = sd ? ub_b : ub_a;
        const u64 us = (u64)(sd ? usb : usa);
        bool d = (private_gm && std::memcmp(gml.data(), gm, (usize)gm_size) != 0);
        const u64 parts[3][2] = {{0, i0}, {i1, da}, {da + dn, us}};
        for (const auto &pr : parts) {
            if (pr[1] <= pr[0] || std::memcmp(u + pr[0], u0 + pr[0], pr[1] - pr[0]) == 0) continue;
            d = true;
            std::memcpy(u + pr[0], u0 + pr[0], pr[1] - pr[0]);
        }
        if (d && private_gm) std::memcpy(gml.data(), gm, (usize)gm_size);
        return d;
    };
    auto tile = [&](u64 inst, bool paranoid) {
        const u64 key = rng_key(seed, inst);
        u64 VR = R, VC = Cv, nv = n;
        if (shapes) {
            rng_shape(key, R, Cv, !elem, &VR, &VC);
            nv = elem ? VR * VC : VR;
            Pt[FZ_VR] = (i64)VR;
            Pt[FZ_VC] = (i64)VC;
            la[X[EX_VR_WORD]] = lb[X[EX_VR_WORD]] = (i64)VR;
            la[X[EX_VC_WORD]] = lb[X[EX_VC_WORD]] = (i64)VC;
        }
        u32 *wv = w.data();
        fz_words(key, gen, gcap, nv, wv);
        if (dense) {
            std::memcpy(ixa, wv, n * 4);
            std::memcpy(ixb, wv, n * 4);
        } else {                                  // value k of the valid grid at its tile offset
            for (u64 k = 0; k < nv; ++k) {
                const u64 at = (u64)ipos[elem ? (k / VC) * Cv + k % VC : k] * 4;
                std::memcpy(ixa + at, wv + k, 4);
                std::memcpy(ixb + at, wv + k, 4);
                std::memcpy(ixe + at, wv + k, 4);
            }
        }
        std::memset(dsa, fill, dn);
        std::memset(dsb, fill, dn);
        sides.run(0, pa, gmk, gm_size, uba.data(), usa, reca);
        const bool more_a = paranoid && dirty(0);
        sides.run(1, pb, gmk, gm_size, ubb.data(), usb, recb);
        const bool more_b = paranoid && dirty(1);
        // verdicts 1 and 2: each side against its reference (fault record, destination, index
        // words; paranoid: every other byte of UB and GM too)
        u64 mask = 0, rkey = FAULT_NONE, addr = 0, uu = 0;
        bool bad = false;
        for (int sd = 0; sd < 2; ++sd) {
            const u8 *img = sd ? ubb.data() : uba.data();
            const u64 *rec = sd ? recb : reca;
            // one reference serves both sides: B is checked as a copy of A where A passed
            const bool copy = sd && shared_ref && !mask && std::memcmp(reca, recb, 3 * sizeof(u64)) == 0 &&
                              std::memcmp(dsa, dsb, dn) == 0;
            if (!copy) {
                bad = false;
                rkey = sides.check(sd, P, wv, gmk, img + da, dn, refa.data(), &bad, &addr, &uu);
            }
            const u8 *ie = dense ? (const u8 *)wv : expi.data() + i0;
            const bool stray = (sd ? more_b : more_a) || std::memcmp(img + i0, ie, i1 - i0) != 0;
            if (bad || stray || !fz_rec_ok(rec, rkey, addr, uu)) {
                mask |= (u64)XP[sd ? XP_REF_B : XP_REF_A] | (stray ? (u64)XP[XP_WINDOW] : 0ull);
                res[sd ? FZ_REFBAD_B : FZ_REFBAD_A] += 1;
                res[sd ? FZ_STRAY_B : FZ_STRAY_A] += stray;
                if (stray) std::memcpy((sd ? ubb.data() : uba.data()) + i0, ie, i1 - i0);   // for the next tile
            }
        }
        res[FZ_FAULTS_A] += reca[0] != FAULT_NONE;
        res[FZ_FAULTS_B] += recb[0] != FAULT_NONE;
        // verdict 3: the sides against each other (when both agree with their references:
        // the references against each other); a difference is explained by the references
        if (!mask && !shared_ref && !fz_exec_same(reca, recb, dsa, dsb, dn))
            mask = fz_class_of(P, XP, wv, gmk, reca[0] != FAULT_NONE, recb[0] != FAULT_NONE);
        if (mask) {
            res[FZ_DIVERGENT] += 1;
            fz_note(res, mask, inst);
        }
    };
    // Blocks of tiles; after each, the bytes no tile may write are compared once; when they
    // changed, the block is counted again tile by tile with every byte compared.
    std::vector<u64> snap(FZ_RESULT_WORDS);
    for (u64 b0 = lo; b0 < hi; b0 += FZ_BLOCK) {
        const u64 b1 = hi - b0 < (u64)FZ_BLOCK ? hi : b0 + FZ_BLOCK;
        std::memcpy(snap.data(), res, FZ_RESULT_WORDS * sizeof(u64));
        for (u64 inst = b0; inst < b1; ++inst) tile(inst, false);
        const bool da_ = dirty(0), db_ = dirty(1);
        if (!da_ && !db_) continue;
        std::memcpy(res, snap.data(), FZ_RESULT_WORDS * sizeof(u64));
        for (u64 inst = b0; inst < b1; ++inst) tile(inst, true);
    }
}

}  // namespace
#endif  // PTO_HOST_SHIM

#endif  // PTOGPU_FUZZ_ENGINE_CUH
