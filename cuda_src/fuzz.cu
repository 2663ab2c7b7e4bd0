// fuzz.cu — the fused MGATHER-into-UB fuzz campaign: indices generated in the kernel with the
// counter RNG (counter_rng.cuh), two configurations ("sides") run on each tile, outputs and
// faults compared, divergent tiles classified and counted. Only counters come back: no index,
// output or table traffic beyond the shared table.
//
// Semantics are those of ptogpu/execution/batch.py (_mgather_ub) and ptogpu/fuzz/classify.py, in the
// canonical instance of ptogpu/execution/single.py: table at GM byte 0 (GM = the table padded to 64
// bytes), RowMajor index tile, RowMajor destination of R x C padded elements, which starts
// zeroed. Covered: Row and Elem, every GatherOOB, 32-bit index types, element sizes 1/2/4/8,
// the three Row source rules, the A2/A3 Row tail fill. tests/test_fuzz_fused.py checks the
// counts against the NumPy campaign.
//
//   fuzz_campaign   one thread per tile (grid-stride over tiles), one pass over the tile's
//                   elements with indices generated in registers; results by atomics.
//   pto_fuzz_native (host build only) the same element functions over a tile held in arrays,
//                   OpenMP over tiles; this is what backend "native" runs.
#include "counter_rng.cuh"
#include "mgather_impl.cuh"

// Campaign parameter block (int64 words); the Python side reads these names from this file.
enum {
    FZ_SEED = 0, FZ_INST0, FZ_GEN, FZ_GCAP, FZ_MODE, FZ_OOB, FZ_T, FZ_VR, FZ_VC, FZ_R, FZ_C,
    FZ_SIGNED, FZ_GMSIZE, FZ_REL, FZ_A = 16,
    // SD_SIMT records the executor; per-tile results do not depend on lane order.
    SD_BITS = 0, SD_CAP, SD_ROWSRC, SD_TAIL, SD_S3, SD_S4, SD_SIMT, SIDE_WORDS = 8,
    FZ_B = FZ_A + SIDE_WORDS, FZ_WORDS = FZ_B + SIDE_WORDS
};
// Fact bits: the same numbers as ptogpu/fuzz/rules.py.
enum { FACT_CAST = 1, FACT_CAP = 2, FACT_ROWSRC = 4, FACT_PAD = 8, FACT_FAULT = 16,
       FACT_UNDEF = 32, FACT_UNEXPLAINED = 1 << 15 };
// Result record (u64 words): counters (tiles faulting on A, on B, divergent, divergent but
// beyond FZ_MAXC classes), then FZ_MAXC class slots of FZ_SLOT words each:
// [mask, count, n_first, first_0 .. first_{FZ_FIRST-1}].
enum { FZ_FAULTS_A = 0, FZ_FAULTS_B, FZ_DIVERGENT, FZ_OVERFLOW, FZ_HEAD = 4, FZ_MAXC = 64, FZ_FIRST = 5,
       FZ_SLOT = 3 + FZ_FIRST, FZ_RESULT_WORDS = FZ_HEAD + FZ_MAXC * FZ_SLOT };
enum { MODE_ROW_ = 0, MODE_ELEM_ = 1 };
enum { RS_STRIDES = 0, RS_STRIDE3 = 1, RS_VALID_COLS = 2 };
#define FZ_EMPTY (~0ull)

// The index value of element k, cast to the 32-bit index type and sign/zero-extended: the low
// 32 bits of the generator's value, computed in 32-bit lanes (rng_value32; a GPU emulates 64-bit
// integer arithmetic). `dup` holds the tile's rng_dup_values, branch-free selection: lanes of a
// warp never diverge.
PTO_DEV u64 fz_index(const i64 *P, u64 key, const i64 *dup, u64 k) {
    const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
    const u32 w = rng_value32((int)P[FZ_GEN], (u32)key, (u32)(key >> 32), k, d32, (u32)(u64)P[FZ_GCAP]);
    return P[FZ_SIGNED] ? (u64)(i64)(int)w : (u64)w;
}

// Remap (mgather.md §3) for one side; returns the safe index and sets *rd.
PTO_DEV u64 fz_remap(const i64 *S, int oob, u64 raw, bool *rd) {
    const int bits = (int)S[SD_BITS];
    return remap(cast_index(raw, bits), (u64)S[SD_CAP], oob, bits, rd);
}

// Table element offset of (safe row, column c) under the side's Row source rule.
PTO_DEV u64 fz_row_off(const i64 *S, u64 safe, u64 c, u64 vc) {
    switch ((int)S[SD_ROWSRC]) {
    case RS_STRIDES: return safe * (u64)S[SD_S3] + c * (u64)S[SD_S4];
    case RS_STRIDE3: return safe * (u64)S[SD_S3] + c;
    default: return ((safe * vc) & 0xFFFFFFFFull) + c;
    }
}

// Read table element `off` (elements of T bytes from GM byte 0): *bad when it leaves GM.
PTO_DEV u64 fz_load(const u8 *gm, i64 gm_size, int T, u64 off, bool *bad) {
    const u64 byte = off * (u64)T;
    *bad = !((i64)byte >= 0 && (i64)byte <= gm_size - T);
    if (*bad) return 0;
    u64 v = 0;
    for (int k = 0; k < T; ++k) v |= (u64)gm[byte + k] << (8 * k);
    return v;
}

// Effective source of valid element (r, c) on one side: the table element it reads, or
// FZ_ZS (written as 0), or FZ_FS (the read leaves GM: the tile faults). Equal sources give
// equal bytes, so the GPU driver loads table values only where the two sides' sources differ.
#define FZ_ZS (~0ull)
#define FZ_FS (~0ull - 1)
PTO_DEV u64 fz_eff(const i64 *P, const i64 *S, u64 raw, u64 c) {
    bool rd;
    const u64 safe = fz_remap(S, (int)P[FZ_OOB], raw, &rd);
    if (!rd) return FZ_ZS;
    const u64 off = P[FZ_MODE] == MODE_ELEM_ ? safe : fz_row_off(S, safe, c, (u64)P[FZ_VC]);
    const u64 T = (u64)P[FZ_T], byte = off * T;
    return ((i64)byte >= 0 && (i64)byte <= P[FZ_GMSIZE] - (i64)T) ? off : FZ_FS;
}

// The bytes (as an integer) an effective source puts in the destination.
PTO_DEV u64 fz_eff_value(const i64 *P, const u8 *gm, u64 e) {
    if (e >= FZ_FS) return 0;
    bool bad;
    return fz_load(gm, P[FZ_GMSIZE], (int)P[FZ_T], e, &bad);
}


// Padding element (r, c >= VC) of a Row side with the A2/A3 tail fill: covered by the burst's
// 32-byte tail (it then holds the row's first element)?
PTO_DEV bool fz_in_tail(const i64 *P, const i64 *S, u64 c) {
    if (P[FZ_MODE] != MODE_ROW_ || !S[SD_TAIL]) return false;
    const u64 T = (u64)P[FZ_T], vcb = (u64)P[FZ_VC] * T;
    return c * T < ((vcb + 31u) / 32u) * 32u;
}

// Facts explaining a difference at valid element (r, c) with index value `raw` (classify.py).
PTO_DEV i64 fz_facts(const i64 *P, u64 raw, u64 c) {
    const i64 *A = P + FZ_A, *B = P + FZ_B;
    const u64 ua = cast_index(raw, (int)A[SD_BITS]), ub = cast_index(raw, (int)B[SD_BITS]);
    const u64 capa = (u64)A[SD_CAP], capb = (u64)B[SD_CAP];
    i64 f = 0;
    if (A[SD_BITS] != B[SD_BITS] && P[FZ_SIGNED] && (i64)raw < 0) f |= FACT_CAST;
    if (capa != capb) {
        const u64 lo = capa < capb ? capa : capb;
        if (ua >= lo || ub >= lo) f |= FACT_CAP;
    }
    if (P[FZ_OOB] == OOB_UNDEFINED && (ua >= capa || ub >= capb)) f |= FACT_UNDEF;
    if (P[FZ_MODE] == MODE_ROW_ && A[SD_ROWSRC] != B[SD_ROWSRC]) {
        const u64 safe = P[FZ_OOB] == OOB_WRAP ? ua % (capa ? capa : 1) : ua;
        if (fz_row_off(A, safe, c, (u64)P[FZ_VC]) != fz_row_off(B, safe, c, (u64)P[FZ_VC])) f |= FACT_ROWSRC;
    }
    return f;
}

// ---- class table (shared by both drivers) -----------------------------------------------------
// Insert one divergent tile; `atomic` on the GPU (slots claimed by CAS), plain on one host thread.
// `shared`: a record that kernel blocks share (the host shim runs blocks on OpenMP threads:
// atomics there too); otherwise one host thread's own record.
PTO_DEV void fz_count(u64 *res, int which, bool shared = false) {
#ifdef PTO_HOST_SHIM
    if (shared) __atomic_fetch_add(&res[which], 1ull, __ATOMIC_RELAXED);
    else res[which] += 1;
#else
    (void)shared;
    atomicAdd(&res[which], 1ull);
#endif
}

PTO_DEV void fz_note(u64 *res, u64 mask, u64 inst, bool shared = false) {
    u64 *slots = res + FZ_HEAD;
    for (int s = 0; s < FZ_MAXC; ++s) {
        u64 *sl = slots + s * FZ_SLOT;
#ifdef PTO_HOST_SHIM
        u64 cur = sl[0];
        if (shared) {
            u64 exp = FZ_EMPTY;
            cur = __atomic_compare_exchange_n(&sl[0], &exp, mask, false, __ATOMIC_RELAXED,
                                              __ATOMIC_RELAXED) ? mask : exp;
        } else if (cur == FZ_EMPTY) {
            sl[0] = mask;
            cur = mask;
        }
#else
        u64 cur = atomicCAS(&sl[0], FZ_EMPTY, mask);
        if (cur == FZ_EMPTY) cur = mask;
#endif
        if (cur != mask) continue;
#ifdef PTO_HOST_SHIM
        if (shared) {
            __atomic_fetch_add(&sl[1], 1ull, __ATOMIC_RELAXED);
            const u64 k = __atomic_fetch_add(&sl[2], 1ull, __ATOMIC_RELAXED);
            if (k < FZ_FIRST) sl[3 + k] = inst;
        } else {
            sl[1] += 1;
            if (sl[2] < FZ_FIRST) sl[3 + sl[2]++] = inst;
        }
#else
        atomicAdd(&sl[1], 1ull);
        const u64 k = atomicAdd(&sl[2], 1ull);
        if (k < FZ_FIRST) sl[3 + k] = inst;
#endif
        return;
    }
    fz_count(res, FZ_OVERFLOW, shared);  // more than FZ_MAXC classes: counted, not classified
}
// ---- GPU driver: one thread per tile, indices regenerated in registers ---------------------------
// One pass over the valid elements computes both sides' values and whether they read outside
// GM (a fault is "any element", so the lane order of an A5 SIMT launch cannot change it); a
// second pass runs only for tiles where exactly one side faults, to name the index facts.
PTO_DEV u64 fz_tile(const i64 *P, const u8 *gm, u64 key, bool *pfa, bool *pfb) {
    const i64 *A = P + FZ_A, *B = P + FZ_B;
    const u64 VR = (u64)P[FZ_VR], VC = (u64)P[FZ_VC], C = (u64)P[FZ_C];
    const bool elem = P[FZ_MODE] == MODE_ELEM_;
    bool fa = false, fb = false;
    u64 diff = 0;
    i64 dup[4];
    rng_dup_values(key, (u64)P[FZ_GCAP], dup);
    for (u64 r = 0; r < VR; ++r) {
        const u64 rowraw = elem ? 0 : fz_index(P, key, dup, r);
        u64 a0 = FZ_ZS, b0 = FZ_ZS;
        for (u64 c = 0; c < VC; ++c) {
            const u64 raw = elem ? fz_index(P, key, dup, r * VC + c) : rowraw;
            const u64 ea = fz_eff(P, A, raw, c), eb = fz_eff(P, B, raw, c);
            fa |= ea == FZ_FS;
            fb |= eb == FZ_FS;
            if (c == 0) { a0 = ea; b0 = eb; }
            if (ea != eb && fz_eff_value(P, gm, ea) != fz_eff_value(P, gm, eb)) {
                const i64 f = fz_facts(P, raw, c);
                diff |= f ? (u64)f : (u64)FACT_UNEXPLAINED;
            }
        }
        if (!elem && (A[SD_TAIL] || B[SD_TAIL])) {
            const u64 va0 = fz_eff_value(P, gm, a0), vb0 = fz_eff_value(P, gm, b0);
            for (u64 c = VC; c < C; ++c)
                if ((fz_in_tail(P, A, c) ? va0 : 0) != (fz_in_tail(P, B, c) ? vb0 : 0)) diff |= FACT_PAD;
        }
    }
    *pfa = fa;
    *pfb = fb;
    if (!fa && !fb) return diff;
    if (fa == fb) return 0;                  // both fault: equal as faults
    u64 tilef = 0;
    for (u64 r = 0; r < VR; ++r) {
        const u64 rowraw = elem ? 0 : fz_index(P, key, dup, r);
        for (u64 c = 0; c < VC; ++c) tilef |= (u64)fz_facts(P, elem ? fz_index(P, key, dup, r * VC + c) : rowraw, c);
    }
    return FACT_FAULT | (tilef & (FACT_CAST | FACT_CAP | FACT_UNDEF));
}

// Uniform kernel signature (common.cuh): gm = the table, prm = the campaign block (shared),
// fault = the result record, n_inst = tiles in this launch; ub, l1 and pass are unused.
extern "C" __global__ void __launch_bounds__(256) fuzz_campaign(PTO_KERNEL_PARAMS) {
    const i64 *P = prm;
    const u64 stride = (u64)gridDim.x * blockDim.x * blockDim.y;
    const u64 tid0 = (u64)blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
    for (u64 t = tid0; t < (u64)n_inst; t += stride) {
        const u64 inst = (u64)P[FZ_INST0] + t;
        const u64 key = rng_key((u64)P[FZ_SEED], inst);
        bool fa, fb;
        u64 mask = fz_tile(P, gm, key, &fa, &fb);
        if (fa) fz_count(fault, FZ_FAULTS_A);
        if (fb) fz_count(fault, FZ_FAULTS_B);
        if (mask && P[FZ_REL]) mask = (u64)P[FZ_REL];
        if (mask) {
            fz_count(fault, FZ_DIVERGENT);
            fz_note(fault, mask, inst);
        }
    }
}
PTO_EXPORT(fuzz_campaign)

// ---- executing engine: both sides' kernels run on every tile -----------------------------------
// Unlike the formula engine above, nothing here knows the MGATHER rules: each tile's indices
// are generated into a per-thread UB image, side A's kernel and side B's kernel (the very
// functions batches launch: the A5 SIMT launches as lock-step warps, the scalar targets'
// loops) run on it into two destination copies, and their fault records and bytes are
// compared; fz_facts only names the rules behind a difference. A lane-mapping error in a
// kernel therefore shows up as divergent (unexplained) tiles.

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

// Phase of a fault record as the batch path codes it (index, table, dst, other), or -1.
PTO_DEV int fault_phase(const u64 *rec) {
    if (rec[0] == FAULT_NONE) return -1;
    const u64 p = rec[0] >> 56;
    return p <= 2 ? (int)p : 3;
}

// Class mask of one executed tile (0: the sides agree): fault records, then the destination
// bytes element by element; `raw_of(k)` is index value k of the tile (sign-extended for int32).
// VR x VC: this tile's valid shape; C: the destination's columns.
template <class RawOf>
PTO_DEV u64 fz_exec_mask(const i64 *P, const u64 *reca, const u64 *recb, const u8 *dsa, const u8 *dsb,
                         u64 dn, u64 C, u64 VR, u64 VC, RawOf raw_of) {
    const bool elem = P[FZ_MODE] == MODE_ELEM_;
    const u64 T = (u64)P[FZ_T];
    const int fa = fault_phase(reca), fb = fault_phase(recb);
    u64 mask = 0;
    if (fa != fb) {                               // one faults, or both in different phases
        u64 tilef = 0;
        for (u64 r = 0; r < VR; ++r)
            for (u64 c = 0; c < VC; ++c) tilef |= (u64)fz_facts(P, raw_of(elem ? r * VC + c : r), c);
        mask = FACT_FAULT | (tilef & (FACT_CAST | FACT_CAP | FACT_UNDEF));
    } else if (fa < 0) {
        for (u64 e = 0; e < dn / T; ++e) {
            bool same = true;
            for (u64 k = 0; k < T; ++k) same &= dsa[e * T + k] == dsb[e * T + k];
            if (same) continue;
            const u64 r = e / C, c = e % C;
            i64 f = FACT_PAD;
            if (r < VR && c < VC) f = fz_facts(P, raw_of(elem ? r * VC + c : r), c) & ~(i64)FACT_PAD;
            mask |= f ? (u64)f : (u64)FACT_UNEXPLAINED;
        }
    }
    if (mask && P[FZ_REL]) mask = (u64)P[FZ_REL];
    return mask;
}

// ---- the executing engine as a kernel (cupy; the host shim runs it in the tests) -------------
// One block of dim3(32, 32) per tile (the widest A5 launch: threads beyond a side's launch
// return), in 4 passes (separate launches on the GPU; block by block on the host):
//   0  generate the tile's indices into both sides' UB images, fill their destinations;
//   1  pass 0 of each side's kernel (a scalar side runs whole, on thread 0);
//   2  pass 1 of each A5 side;
//   3  thread 0 compares the two sides and counts the tile into `fault` (the result record).
// prm: [campaign block (FZ_WORDS) | exec block (EX_WORDS) | side A's MGATHER block | side B's |
// ipos (EX_N_IDX)]. Instance k's UB window (ub + k*ub_stride): side A's image at 0, side B's
// at EX_WIN_B, the fault records at EX_REC. Shape fuzzing as pto_fuzz_exec.
PTO_DEV void fzx_side(int kind, const i64 *L, const Mem &m, u64 *rec, int pass, u32 tid) {
    if (kind == MGK_A5_ELEM || kind == MGK_A5_ROW) mg_a5_thread_instance(kind, L, m, rec, pass);
    else if (pass == 0 && tid == 0) mg_scalar_instance(kind, L, m, rec);
}

extern "C" __global__ void __launch_bounds__(1024) fuzz_exec_campaign(PTO_KERNEL_PARAMS) {
    const i64 *P0 = prm, *X = prm + FZ_WORDS, *PA = X + EX_WORDS, *PB = PA + MG_WORDS;
    const i64 *ipos = PB + MG_WORDS;
    const u32 tid = threadIdx.y * blockDim.x + threadIdx.x, nth = blockDim.x * blockDim.y;
    (void)gm_stride;
    PTO_FOR_EACH_INSTANCE(t) {
        const u64 inst = (u64)P0[FZ_INST0] + (u64)t;
        const u64 key = rng_key((u64)P0[FZ_SEED], inst);
        const bool elem = P0[FZ_MODE] == MODE_ELEM_;
        const u64 R = (u64)P0[FZ_VR], Cv = (u64)P0[FZ_VC];
        u64 VR = R, VC = Cv;
        if (X[EX_SHAPES]) rng_shape(key, R, Cv, !elem, &VR, &VC);
        u8 *win = ub + t * ub_stride;
        u64 *rec = (u64 *)(win + X[EX_REC]);
        Mem ma, mb;
        ma.a[SPACE_GM].p = mb.a[SPACE_GM].p = gm;
        ma.a[SPACE_GM].size = mb.a[SPACE_GM].size = gm_size;
        ma.a[SPACE_L1].p = mb.a[SPACE_L1].p = l1;
        ma.a[SPACE_L1].size = mb.a[SPACE_L1].size = l1_size;
        ma.a[SPACE_UB].p = win;
        ma.a[SPACE_UB].size = X[EX_UB_A];
        mb.a[SPACE_UB].p = win + X[EX_WIN_B];
        mb.a[SPACE_UB].size = X[EX_UB_B];
        const u64 ia = (u64)X[EX_IDX_ADDR], da = (u64)X[EX_DST_ADDR], dn = (u64)X[EX_DST_NBYTES];
        const bool sgn = P0[FZ_SIGNED] != 0;
        i64 dup[4] = {0, 0, 0, 0};               // the generator: passes 0 and 3 only
        if (pass == 0 || pass == 3) rng_dup_values(key, (u64)P0[FZ_GCAP], dup);
        const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
        const u32 k1 = (u32)key, k2 = (u32)(key >> 32), c32 = (u32)(u64)P0[FZ_GCAP];
        const int gen = (int)P0[FZ_GEN];
        auto word = [&](u64 k) { return rng_value32(gen, k1, k2, k, d32, c32); };
        if (pass == 0) {
            const u64 nv = elem ? VR * VC : VR;
            for (u64 k = tid; k < nv; k += nth) {
                const u64 at = ia + (u64)ipos[elem ? (k / VC) * Cv + k % VC : k] * 4;
                st_word<4>(ma.a[SPACE_UB].p + at, word(k));
                st_word<4>(mb.a[SPACE_UB].p + at, word(k));
            }
            for (u64 b = tid; b < dn; b += nth)
                ma.a[SPACE_UB].p[da + b] = mb.a[SPACE_UB].p[da + b] = (u8)X[EX_DST_FILL];
            if (tid < 2 * FAULT_WORDS) rec[tid] = FAULT_NONE;
            continue;
        }
        // Each side's block, with this tile's shape.
        i64 LA[MG_WORDS], LB[MG_WORDS];
        for (int w = 0; w < MG_WORDS; ++w) {
            LA[w] = PA[w];
            LB[w] = PB[w];
        }
        LA[MG_VR] = LB[MG_VR] = (i64)VR;
        LA[MG_VC] = LB[MG_VC] = (i64)VC;
        if (pass <= 2) {
            fzx_side((int)X[EX_KIND_A], LA, ma, rec, pass - 1, tid);
            fzx_side((int)X[EX_KIND_B], LB, mb, rec + FAULT_WORDS, pass - 1, tid);
            continue;
        }
        if (tid != 0) continue;
        i64 Pt[FZ_WORDS];
        for (int w = 0; w < FZ_WORDS; ++w) Pt[w] = P0[w];
        Pt[FZ_VR] = (i64)VR;
        Pt[FZ_VC] = (i64)VC;
        auto raw_of = [&](u64 k) { const u32 w = word(k); return sgn ? (u64)(i64)(int)w : (u64)w; };
        const u64 mask = fz_exec_mask(Pt, rec, rec + FAULT_WORDS, ma.a[SPACE_UB].p + da,
                                      mb.a[SPACE_UB].p + da, dn, (u64)X[EX_DST_COLS], VR, VC, raw_of);
        if (rec[0] != FAULT_NONE) fz_count(fault, FZ_FAULTS_A, true);
        if (rec[FAULT_WORDS] != FAULT_NONE) fz_count(fault, FZ_FAULTS_B, true);
        if (mask) {
            fz_count(fault, FZ_DIVERGENT, true);
            fz_note(fault, mask, inst, true);
        }
    }
}
PTO_EXPORT(fuzz_exec_campaign)

// ---- host driver: arrays per tile, OpenMP over tiles --------------------------------------------
#ifdef PTO_HOST_SHIM
#include <cstring>
#include <vector>

namespace {

#define FZ_INLINE __attribute__((always_inline)) inline

// Each side first computes, per valid element, its *effective source*: the table element it
// reads, ZS (writes 0: Zero and out of range) or FS (the read leaves GM: the tile faults).
// Equal effective sources give equal bytes, so table values are only loaded where the two
// sides' sources differ (the bytes may still agree: the table repeats values).
static const u64 ZS = FZ_ZS, FS = FZ_FS;

template <typename E, int OOB>
FZ_INLINE void side_eff(const i64 *P, const i64 *S, u64 nelem, const u64 *raw, u64 *eff, u64 n) {
    const int bits = (int)S[SD_BITS];
    const u64 mask = bits == 32 ? 0xFFFFFFFFull : ~0ull;
    const u64 cap = (u64)S[SD_CAP], last = (cap - 1) & mask, T = sizeof(E), limb = nelem * T;
    const u64 VC = (u64)P[FZ_VC];
    if (P[FZ_MODE] == MODE_ELEM_) {
        if (OOB == OOB_WRAP && (cap & (cap - 1)) == 0) {
            const u64 m = (cap - 1) & mask;
#pragma omp simd
            for (u64 k = 0; k < n; ++k) {
                const u64 byte = (raw[k] & m) * T;
                eff[k] = byte < limb ? byte / T : FS;
            }
            return;
        }
#pragma omp simd
        for (u64 k = 0; k < n; ++k) {
            const u64 u = raw[k] & mask;
            u64 safe = u;
            if (OOB == OOB_CLAMP) safe = bits == 64 ? (u < last ? u : last) : (u >= cap ? last : u);
            if (OOB == OOB_WRAP) safe = u % cap;
            const u64 byte = safe * T;                     // "negative" bytes are huge: rejected
            const u64 e = byte < limb ? byte / T : FS;
            eff[k] = (OOB == OOB_ZERO && u >= cap) ? ZS : e;
        }
        return;
    }
    const u64 VR = (u64)P[FZ_VR];
    for (u64 r = 0; r < VR; ++r) {
        bool rd;
        const u64 safe = remap(raw[r] & mask, cap, OOB, bits, &rd);
        u64 *er = eff + r * VC;
        for (u64 c = 0; c < VC; ++c) {
            const u64 byte = fz_row_off(S, safe, c, VC) * T;
            er[c] = !rd ? ZS : byte < limb ? byte / T : FS;
        }
    }
}

template <typename E>
FZ_INLINE void side_eff_any(const i64 *P, const i64 *S, u64 nelem, const u64 *raw, u64 *eff, u64 n) {
    switch ((int)P[FZ_OOB]) {
    case OOB_CLAMP: side_eff<E, OOB_CLAMP>(P, S, nelem, raw, eff, n); break;
    case OOB_WRAP: side_eff<E, OOB_WRAP>(P, S, nelem, raw, eff, n); break;
    case OOB_ZERO: side_eff<E, OOB_ZERO>(P, S, nelem, raw, eff, n); break;
    default: side_eff<E, OOB_UNDEFINED>(P, S, nelem, raw, eff, n); break;
    }
}

// Does any element fault? (8 lanes at a time; the arrays are padded with 0 to a multiple of 8.)
FZ_INLINE bool any_fault(const u64 *eff, u64 n8) {
    u64 acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (u64 k = 0; k < n8; k += 8)
        for (int j = 0; j < 8; ++j) acc[j] |= (u64)(eff[k + j] == FS);
    u64 a = 0;
    for (int j = 0; j < 8; ++j) a |= acc[j];
    return a != 0;
}

template <typename E>
FZ_INLINE u64 eff_value(const E *tab, u64 e) { return e >= FS ? 0 : (u64)tab[e]; }

// The tail-fill padding value at column c of a row whose first element reads `e0`.
template <typename E>
FZ_INLINE u64 tail_value(const i64 *P, const i64 *S, const E *tab, u64 c, u64 e0) {
    return fz_in_tail(P, S, c) ? eff_value<E>(tab, e0) : 0;
}

// Elem mode with two 32-bit-index sides: the same effective sources in 32-bit lanes (16 per
// AVX-512 register). safe < 2^32 and T <= 8, so "byte < GM size" is "safe < table elements".
static const u32 ZS32 = 0xFFFFFFFFu, FS32 = 0xFFFFFFFEu;

template <int OOB>
FZ_INLINE void side_eff32(const i64 *S, u32 nelem, const u32 *w, u32 *eff, u64 n) {
    const u32 cap = (u32)S[SD_CAP], last = cap - 1u;
    if (OOB == OOB_WRAP && (cap & (cap - 1u)) == 0 && cap) {
#pragma omp simd
        for (u64 k = 0; k < n; ++k) {
            const u32 safe = w[k] & last;
            eff[k] = safe < nelem ? safe : FS32;
        }
        return;
    }
#pragma omp simd
    for (u64 k = 0; k < n; ++k) {
        const u32 u = w[k];
        u32 safe = u;
        if (OOB == OOB_CLAMP) safe = u >= cap ? last : u;
        if (OOB == OOB_WRAP) safe = u % cap;
        const u32 e = safe < nelem ? safe : FS32;
        eff[k] = (OOB == OOB_ZERO && u >= cap) ? ZS32 : e;
    }
}

FZ_INLINE void side_eff32_any(const i64 *P, const i64 *S, u32 nelem, const u32 *w, u32 *eff, u64 n) {
    switch ((int)P[FZ_OOB]) {
    case OOB_CLAMP: side_eff32<OOB_CLAMP>(S, nelem, w, eff, n); break;
    case OOB_WRAP: side_eff32<OOB_WRAP>(S, nelem, w, eff, n); break;
    case OOB_ZERO: side_eff32<OOB_ZERO>(S, nelem, w, eff, n); break;
    default: side_eff32<OOB_UNDEFINED>(S, nelem, w, eff, n); break;
    }
}

FZ_INLINE bool any_fault32(const u32 *eff, u64 n16) {
    u32 acc[16] = {0};
    for (u64 k = 0; k < n16; k += 16)
        for (int j = 0; j < 16; ++j) acc[j] |= (u32)(eff[k + j] == FS32);
    u32 a = 0;
    for (int j = 0; j < 16; ++j) a |= acc[j];
    return a != 0;
}

FZ_INLINE u64 widen_eff(u32 e) { return e == ZS32 ? ZS : e == FS32 ? FS : (u64)e; }

// Index words 0..n-1 of the tile with key `key` (rng_value32: the low 32 bits of the
// generator's values), in 32-bit lanes.
FZ_INLINE void fz_words(u64 key, int gen, u64 gcap, u64 n, u32 *w) {
    i64 dup[4];
    rng_dup_values(key, gcap, dup);
    const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
    const u32 k1 = (u32)key, k2 = (u32)(key >> 32), c32 = (u32)gcap;
#pragma omp simd
    for (u64 k = 0; k < n; ++k) w[k] = rng_value32(gen, k1, k2, k, d32, c32);
}

template <typename E>
FZ_INLINE void run_range(const i64 *P, const u8 *gm, u64 lo, u64 hi, u64 *res) {
    const u64 VR = (u64)P[FZ_VR], VC = (u64)P[FZ_VC], C = (u64)P[FZ_C];
    const bool elem = P[FZ_MODE] == MODE_ELEM_;
    const u64 n = elem ? VR * VC : VR, ne = VR * VC, ne8 = (ne + 7) / 8 * 8;
    const i64 *A = P + FZ_A, *B = P + FZ_B;
    const u64 nelem = (u64)P[FZ_GMSIZE] / sizeof(E);
    const E *tab = (const E *)gm;
    std::vector<u64> raw(n + 8), ea(ne8, 0), eb(ne8, 0);
    const int gen = (int)P[FZ_GEN];
    const u64 gcap = (u64)P[FZ_GCAP], seed = (u64)P[FZ_SEED];
    const bool sgn = P[FZ_SIGNED] != 0;
    const bool tails = !elem && (A[SD_TAIL] || B[SD_TAIL]) && (VC * sizeof(E)) % 32;
    const bool narrow = elem && A[SD_BITS] == 32 && B[SD_BITS] == 32 && nelem < 0xFFFFFFF0ull;
    const u64 n16 = (n + 15) / 16 * 16;
    std::vector<u32> w32(narrow ? n16 : 0, 0), a32(narrow ? n16 : 0, 0), b32(narrow ? n16 : 0, 0);
    for (u64 inst = lo; inst < hi && narrow; ++inst) {
        u32 *w = w32.data();
        fz_words(rng_key(seed, inst), gen, gcap, n, w);
        side_eff32_any(P, A, (u32)nelem, w, a32.data(), n);
        side_eff32_any(P, B, (u32)nelem, w, b32.data(), n);
        const bool fa = any_fault32(a32.data(), n16), fb = any_fault32(b32.data(), n16);
        res[FZ_FAULTS_A] += fa;
        res[FZ_FAULTS_B] += fb;
        u64 mask = 0;
        auto raw_of = [&](u64 k) { return sgn ? (u64)(i64)(int)w[k] : (u64)w[k]; };
        if (fa || fb) {
            if (fa != fb) {
                u64 tilef = 0;
                for (u64 k = 0; k < n; ++k) tilef |= (u64)fz_facts(P, raw_of(k), k % VC);
                mask = FACT_FAULT | (tilef & (FACT_CAST | FACT_CAP | FACT_UNDEF));
            }
        } else if (std::memcmp(a32.data(), b32.data(), n * sizeof(u32)) != 0) {
            for (u64 k = 0; k < n; ++k)
                if (a32[k] != b32[k] &&
                    eff_value<E>(tab, widen_eff(a32[k])) != eff_value<E>(tab, widen_eff(b32[k]))) {
                    const i64 f = fz_facts(P, raw_of(k), k % VC);
                    mask |= f ? (u64)f : (u64)FACT_UNEXPLAINED;
                }
        }
        if (mask && P[FZ_REL]) mask = (u64)P[FZ_REL];
        if (mask) {
            res[FZ_DIVERGENT] += 1;
            fz_note(res, mask, inst);
        }
    }
    for (u64 inst = lo; inst < hi && !narrow; ++inst) {
        const u64 key = rng_key(seed, inst);
        u64 *rw = raw.data();
        i64 dup[4];
        rng_dup_values(key, gcap, dup);
        const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
        const u32 k1 = (u32)key, k2 = (u32)(key >> 32), c32 = (u32)gcap;
#pragma omp simd
        for (u64 k = 0; k < n; ++k) {
            const u32 w = rng_value32(gen, k1, k2, k, d32, c32);
            rw[k] = sgn ? (u64)(i64)(int)w : (u64)w;
        }
        side_eff_any<E>(P, A, nelem, rw, ea.data(), n);
        side_eff_any<E>(P, B, nelem, rw, eb.data(), n);
        const bool fa = any_fault(ea.data(), ne8), fb = any_fault(eb.data(), ne8);
        res[FZ_FAULTS_A] += fa;
        res[FZ_FAULTS_B] += fb;
        u64 mask = 0;
        if (fa || fb) {
            if (fa != fb) {
                u64 tilef = 0;
                for (u64 r = 0; r < VR; ++r)
                    for (u64 c = 0; c < VC; ++c) tilef |= (u64)fz_facts(P, rw[elem ? r * VC + c : r], c);
                mask = FACT_FAULT | (tilef & (FACT_CAST | FACT_CAP | FACT_UNDEF));
            }
        } else {
            if (std::memcmp(ea.data(), eb.data(), ne * sizeof(u64)) != 0) {
                for (u64 k = 0; k < ne; ++k)
                    if (ea[k] != eb[k] && eff_value<E>(tab, ea[k]) != eff_value<E>(tab, eb[k])) {
                        const i64 f = fz_facts(P, rw[elem ? k : k / VC], k % VC);
                        mask |= f ? (u64)f : (u64)FACT_UNEXPLAINED;
                    }
            }
            if (tails)
                for (u64 r = 0; r < VR; ++r)
                    for (u64 c = VC; c < C; ++c)
                        if (tail_value<E>(P, A, tab, c, ea[r * VC]) != tail_value<E>(P, B, tab, c, eb[r * VC])) {
                            mask |= FACT_PAD;
                            break;
                        }
        }
        if (mask && P[FZ_REL]) mask = (u64)P[FZ_REL];
        if (mask) {
            res[FZ_DIVERGENT] += 1;
            fz_note(res, mask, inst);
        }
    }
}

template <typename E>
void run_range_default(const i64 *P, const u8 *gm, u64 lo, u64 hi, u64 *res) { run_range<E>(P, gm, lo, hi, res); }

// The same loops compiled for AVX-512 (gathers, 64-bit multiplies in vector registers); picked
// at run time when the CPU has it.
#if defined(__x86_64__) && defined(__GNUC__)
#define FZ_HAVE_WIDE 1
template <typename E>
__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,bmi2,fma")))
void run_range_wide(const i64 *P, const u8 *gm, u64 lo, u64 hi, u64 *res) { run_range<E>(P, gm, lo, hi, res); }
#endif

template <typename E>
void run_range_any(const i64 *P, const u8 *gm, u64 lo, u64 hi, u64 *res) {
#ifdef FZ_HAVE_WIDE
    if (__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw")) {
        run_range_wide<E>(P, gm, lo, hi, res);
        return;
    }
#endif
    run_range_default<E>(P, gm, lo, hi, res);
}

}  // namespace

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

// Tiles inst0 .. inst0+n-1 of the campaign `prm` (table = `gm`); `res` holds one result record
// per thread (n_res records, FZ_RESULT_WORDS each, slots pre-set to FZ_EMPTY by the caller).
extern "C" void pto_fuzz_native(const i64 *prm, const u8 *gm, i64 n, u64 *res, int n_res) {
    const i64 *P = prm;
    const int T = (int)P[FZ_T];
    fz_each_range(P, n, res, n_res, [&](u64 lo, u64 hi, u64 *r) {
        switch (T) {
        case 1: run_range_any<u8>(P, gm, lo, hi, r); break;
        case 2: run_range_any<unsigned short>(P, gm, lo, hi, r); break;
        case 8: run_range_any<u64>(P, gm, lo, hi, r); break;
        default: run_range_any<u32>(P, gm, lo, hi, r); break;
        }
    });
}
namespace {

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

void exec_range(const i64 *P, const i64 *X, const i64 *ipos, pto_block_fn ka, const i64 *pa,
                pto_block_fn kb, const i64 *pb, u8 *gm, i64 gm_size, const u8 *ub_a, const u8 *ub_b,
                u64 lo, u64 hi, u64 *res) {
    const u64 n = (u64)X[EX_N_IDX], ia = (u64)X[EX_IDX_ADDR], da = (u64)X[EX_DST_ADDR];
    const u64 dn = (u64)X[EX_DST_NBYTES], T = (u64)P[FZ_T], C = (u64)X[EX_DST_COLS];
    const u64 R = (u64)P[FZ_VR], Cv = (u64)P[FZ_VC];
    const i64 usa = X[EX_UB_A], usb = X[EX_UB_B];
    const bool shapes = X[EX_SHAPES] != 0;
    // Per-tile copies of the blocks a tile's shape is written into.
    const u64 pw = shapes ? (u64)X[EX_PWORDS] : 0;
    std::vector<i64> Pt(P, P + FZ_WORDS), la(pa, pa + pw), lb(pb, pb + pw);
    if (shapes) {
        pa = la.data();
        pb = lb.data();
        P = Pt.data();
    }
    const bool elem = P[FZ_MODE] == MODE_ELEM_, sgn = P[FZ_SIGNED] != 0;
    const int gen = (int)P[FZ_GEN];
    const u64 gcap = (u64)P[FZ_GCAP], seed = (u64)P[FZ_SEED];
    const u8 fill = (u8)X[EX_DST_FILL];
    std::vector<u8> uba(ub_a, ub_a + usa), ubb(ub_b, ub_b + usb);
    std::vector<u32> w(n + 16);
    u64 reca[FAULT_WORDS], recb[FAULT_WORDS];
    u8 *ixa = uba.data() + ia, *ixb = ubb.data() + ia, *dsa = uba.data() + da, *dsb = ubb.data() + da;
    const bool dense = !shapes && [&] {           // the index tile is the values in order
        for (u64 k = 0; k < n; ++k) if ((u64)ipos[k] != k) return false;
        return true;
    }();
    for (u64 inst = lo; inst < hi; ++inst) {
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
            }
        }
        std::memset(dsa, fill, dn);
        std::memset(dsb, fill, dn);
        run_side(ka, pa, X, 0, gm, gm_size, uba.data(), usa, reca);
        run_side(kb, pb, X, 1, gm, gm_size, ubb.data(), usb, recb);
        res[FZ_FAULTS_A] += reca[0] != FAULT_NONE;
        res[FZ_FAULTS_B] += recb[0] != FAULT_NONE;
        auto raw_of = [&](u64 k) { return sgn ? (u64)(i64)(int)wv[k] : (u64)wv[k]; };
        const bool same = reca[0] == FAULT_NONE && recb[0] == FAULT_NONE && std::memcmp(dsa, dsb, dn) == 0;
        const u64 mask = same ? 0 : fz_exec_mask(P, reca, recb, dsa, dsb, dn, C, VR, VC, raw_of);
        if (mask) {
            res[FZ_DIVERGENT] += 1;
            fz_note(res, mask, inst);
        }
    }
}

}  // namespace

// Tiles inst0 .. inst0+n-1 of campaign `prm` (generator and fact words), executed: exec block
// `ex`, index tile positions `ipos` (element offsets of the n_idx values), side kernels and
// parameter blocks, the shared GM (the table) and each side's UB image (every instance starts
// from it; the targets' UB sizes differ).
// `res`: one result record per thread, as pto_fuzz_native.
extern "C" void pto_fuzz_exec(const i64 *prm, const i64 *ex, const i64 *ipos, void *ka, const i64 *pa,
                              void *kb, const i64 *pb, u8 *gm, i64 gm_size, const u8 *ub_a,
                              const u8 *ub_b, i64 n, u64 *res, int n_res) {
    fz_each_range(prm, n, res, n_res, [&](u64 lo, u64 hi, u64 *r) {
        exec_range(prm, ex, ipos, (pto_block_fn)ka, pa, (pto_block_fn)kb, pb, gm, gm_size, ub_a, ub_b,
                   lo, hi, r);
    });
}

// Valid shapes rng_shape draws for tiles inst0 .. inst0+n-1 (tests compare them with NumPy).
extern "C" void pto_fuzz_shapes(u64 seed, i64 rows, i64 cols, int row_mode, u64 inst0, i64 n, i64 *vr,
                                i64 *vc) {
    for (i64 t = 0; t < n; ++t) {
        u64 r, c;
        rng_shape(rng_key(seed, inst0 + (u64)t), (u64)rows, (u64)cols, row_mode != 0, &r, &c);
        vr[t] = (i64)r;
        vc[t] = (i64)c;
    }
}

// Index values (int64) of tiles inst0 .. inst0+n_inst-1, n_elem each, from every value
// function (rng_value, rng_value_sel; rng_value32's low 32 bits into out3): tests compare
// them with NumPy.
extern "C" void pto_fuzz_gen(u64 seed, int kind, u64 cap, u64 inst0, i64 n_inst, i64 n_elem,
                             i64 *out, i64 *out2, u32 *out3) {
    for (i64 t = 0; t < n_inst; ++t) {
        const u64 key = rng_key(seed, inst0 + (u64)t);
        i64 dup[4];
        rng_dup_values(key, cap, dup);
        for (i64 e = 0; e < n_elem; ++e) {
            const u64 h = rng_word(key, (u64)e);
            out[t * n_elem + e] = rng_value(kind, h, key, cap);
            out2[t * n_elem + e] = rng_value_sel(kind, h, dup, cap);
            const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
            out3[t * n_elem + e] = rng_value32(kind, (u32)key, (u32)(key >> 32), (u64)e, d32, (u32)cap);
        }
    }
}
#endif  // PTO_HOST_SHIM
