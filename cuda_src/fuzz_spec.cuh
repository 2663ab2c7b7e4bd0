// fuzz_spec.cuh — the executing engine specialised for one campaign configuration (host only).
//
// ptogpu/fuzz/specialise.py writes a translation unit that defines the configuration as
// compile-time constant arrays and includes this file:
//   SP_P[FZ_WORDS]     the campaign block (seed and first instance zero: they are read from the
//                      block the caller passes, the rest must equal it)
//   SP_X[EX_WORDS]     the exec block; SP_IPOS[SP_NIDX] the index tile positions
//   SP_PA[], SP_PB[]   each side's MGATHER parameter block (SP_PWORDS words)
//   SP_KIND_A, SP_KIND_B   each side's kernel (MGK_*), SP_GM_SIZE the GM image's bytes
// It then compiles the very loop of the generic engine (fuzz_engine.cuh exec_range_t) and the
// very per-instance bodies of the kernels (mgather_impl.cuh: a5_block, the lock-step form of
// mgather_a5_elem / mgather_a5_row; mg_scalar_body, the scalar targets' loops), called
// directly instead of through their entry points, so every shape, size, rule and branch of
// this configuration is a constant the compiler folds and its loops have known trip counts.
//
// pto_fuzz_spec refuses (returns 1, runs nothing) a call whose blocks differ from the ones
// it was built for: a stale or mismatched build can never count tiles under another
// configuration's name.
#ifndef PTOGPU_FUZZ_SPEC_CUH
#define PTOGPU_FUZZ_SPEC_CUH

#include "fuzz_engine.cuh"

#ifdef PTO_HOST_SHIM
namespace {

// The template arguments the kernels' dispatch (mgather_impl.cuh A5_DISPATCH) picks for a
// block: element size and OOB policy; anything else runs the generic lanes as (1, Undefined).
constexpr bool sp_known(const i64 *L) {
    return (L[MG_T] == 1 || L[MG_T] == 2 || L[MG_T] == 4 || L[MG_T] == 8) && L[MG_OOB] >= 0 && L[MG_OOB] <= 3;
}
constexpr int sp_ts(const i64 *L) { return sp_known(L) ? (int)L[MG_T] : 1; }
constexpr int sp_oob(const i64 *L) { return sp_known(L) ? (int)L[MG_OOB] : OOB_UNDEFINED; }

// One instance of kernel KIND: what its lock-step one-block entry point runs for it (a5_block
// for the A5 SIMT launches; the scalar loops with their vector form at this TS and OOB).
template <int KIND, int TS, int OOB>
FZ_INLINE void spec_side(const i64 *L, const Mem &m, u64 *rec) {
    if constexpr (KIND == MGK_A5_ELEM || KIND == MGK_A5_ROW) {
        a5_block<PTO_WARP, TS, OOB>(L, m, rec, KIND == MGK_A5_ROW);
    } else {
        mg_scalar_run(KIND, L, m, rec, [&](bool row, bool tail) { return scalar_fast_at<TS, OOB>(L, m, row, tail, rec); });
    }
}

struct SpecSides {
    FZ_INLINE void run(int side, const i64 *prm, u8 *gm, i64 gm_size, u8 *ub, i64 ub_size, u64 *rec) const {
        for (int w = 0; w < FAULT_WORDS; ++w) rec[w] = FAULT_NONE;
        u8 l1 = 0;
        Mem m;
        m.a[SPACE_GM].p = gm;
        m.a[SPACE_GM].size = gm_size;
        m.a[SPACE_UB].p = ub;
        m.a[SPACE_UB].size = ub_size;
        m.a[SPACE_L1].p = &l1;
        m.a[SPACE_L1].size = 0;
        if (side) spec_side<SP_KIND_B, sp_ts(SP_PB), sp_oob(SP_PB)>(prm, m, rec);
        else spec_side<SP_KIND_A, sp_ts(SP_PA), sp_oob(SP_PA)>(prm, m, rec);
    }
    FZ_INLINE u64 check(int side, const i64 *P, const u32 *w, const u8 *gm, const u8 *ds, u64 dn, u8 *scratch,
                        bool *bad, u64 *addr, u64 *uu) const {
        if (side) return ref_check_form<ref_form(SP_P, SP_P + FZ_B)>(P, P + FZ_B, w, gm, ds, dn, scratch, bad, addr, uu);
        return ref_check_form<ref_form(SP_P, SP_P + FZ_A)>(P, P + FZ_A, w, gm, ds, dn, scratch, bad, addr, uu);
    }
};

template <class T, int N>
bool spec_same(const T (&want)[N], const T *got, int from = 0) {
    for (int k = from; k < N; ++k)
        if (want[k] != got[k]) return false;
    return true;
}

}  // namespace

// Tiles inst0 .. inst0+n-1 (inst0 and the seed from `prm`), as pto_fuzz_exec with the
// arguments it was built for; 1 (nothing run) when any block or size differs from those.
extern "C" int pto_fuzz_spec(const i64 *prm, const i64 *ex, const i64 *ipos, const i64 *pa, const i64 *pb,
                             const u8 *gm, i64 gm_size, const u8 *ub_a, const u8 *ub_b, i64 n, u64 *res, int n_res) {
    static_assert(sizeof(SP_P) / sizeof(i64) == FZ_WORDS, "campaign block");
    static_assert(sizeof(SP_X) / sizeof(i64) == EX_WORDS, "exec block");
    if (!spec_same(SP_P, prm, FZ_INST0 + 1) || !spec_same(SP_X, ex) || !spec_same(SP_IPOS, ipos) ||
        !spec_same(SP_PA, pa) || !spec_same(SP_PB, pb) || gm_size != SP_GM_SIZE)
        return 1;
    fz_each_range(prm, n, res, n_res, [&](u64 lo, u64 hi, u64 *r) {
        exec_range_t(SP_P, prm + FZ_WORDS, SP_X, SP_IPOS, SpecSides{}, SP_PA, SP_PB, gm, SP_GM_SIZE, ub_a, ub_b,
                     (u64)prm[FZ_SEED], lo, hi, r);
    });
    return 0;
}
#endif  // PTO_HOST_SHIM

#endif  // PTOGPU_FUZZ_SPEC_CUH
