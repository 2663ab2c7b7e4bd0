// elementwise_fuzz.cu — the element-wise campaign engine (ptogpu/isa/elementwise/campaign.py):
// a single-instruction campaign of one element-wise call (TADD .. TSHRS on 1-, 2- and 4-byte
// integers and float32) run per tile with no Python in the loop.
//
//   ew_fuzz_campaign   the engine as a kernel: one thread per tile (cupy; the host shim runs it
//                      in the tests)
//   pto_ew_fuzz_native (host) the same, OpenMP over ranges of tiles, the generator's words in
//                      vectorised 32-bit lanes
//
// Per tile: the generator's words (counter_rng.cuh: the low 32 bits of ptogpu.execution.rng's
// values, which is all a <= 4-byte element keeps) are src0, then src1 or the scalar; each side
// computes dst with ew_apply (elementwise_ops.cuh, the very function tile_elementwise runs) under
// its target's models; the valid elements are compared (padding is the same fill on both
// sides). A difference is classified as ptogpu/fuzz/explain.py classifies it: the alternative
// blocks (each side with one rule field, then a pair, of the other's target) in tiers, a block
// explaining when its result equals the other side's on the whole tile; the class is the bits
// of every block of the first tier that explains, else UNEXPLAINED.
#include "counter_rng.cuh"
#include "elementwise_ops.cuh"
#include "fuzz_classes.cuh"

// Campaign block (int64 words), filled by ptogpu/isa/elementwise/campaign.py.
enum {
    EWF_SEED = 0, EWF_INST0, EWF_GEN, EWF_GCAP, EWF_N, EWF_NVAL, EWF_TWO, EWF_SCALAR, EWF_MASK,
    EWF_UNEXPLAINED, EWF_NALT, EWF_A, EWF_B = EWF_A + EW_WORDS, EWF_ALT = EWF_B + EW_WORDS,
    EWF_ALT_WORDS = 3 + EW_WORDS, EWF_MAX_ALT = 16, EWF_WORDS = EWF_ALT + EWF_MAX_ALT * EWF_ALT_WORDS
};
// An alternative block: [tier, direction (0: side B with A's field(s), compared with A; 1: A
// with B's, compared with B), the fields' bits, its EW_* words].

// Element e's (x, y) from the tile's words.
template <class Word>
PTO_DEV void ewf_xy(const i64 *F, Word w, u64 e, u64 *x, u64 *y) {
    const u64 m = (u64)F[EWF_MASK], n = (u64)F[EWF_N];
    *x = (u64)w(e) & m;
    *y = F[EWF_TWO] ? ((u64)w(n + e) & m) : F[EWF_SCALAR] ? ((u64)w(n) & m) : 0ull;
}

// The tile's class: 0 when the sides agree on every valid element.
template <class Word>
PTO_DEV u64 ewf_tile(const i64 *F, Word w) {
    const i64 *A = F + EWF_A, *B = F + EWF_B;
    const u64 m = (u64)F[EWF_MASK], n = (u64)F[EWF_N];
    bool diff = false;
    for (u64 e = 0; e < n && !diff; ++e) {
        u64 x, y;
        ewf_xy(F, w, e, &x, &y);
        diff = ((ew_apply(A, x, y) ^ ew_apply(B, x, y)) & m) != 0;
    }
    if (!diff) return 0;
    u64 cls = 0;
    int tier = -1;
    for (i64 j = 0; j < F[EWF_NALT]; ++j) {
        const i64 *X = F + EWF_ALT + j * EWF_ALT_WORDS;
        if (tier >= 0 && X[0] != tier) break;           // a tier explained: later tiers are not asked
        if (((u64)X[2] & ~cls) == 0) continue;          // (its other direction already explained)
        const i64 *H = X + 3, *O = X[1] ? B : A;
        bool same = true;
        for (u64 e = 0; e < n && same; ++e) {
            u64 x, y;
            ewf_xy(F, w, e, &x, &y);
            same = ((ew_apply(H, x, y) ^ ew_apply(O, x, y)) & m) == 0;
        }
        if (same) {
            cls |= (u64)X[2];
            tier = (int)X[0];
        }
    }
    return cls ? cls : (u64)F[EWF_UNEXPLAINED];
}

// Uniform kernel signature (common.cuh): prm = the campaign block, fault = the result record,
// n_inst = tiles; the memories and pass are unused.
extern "C" __global__ void __launch_bounds__(256) ew_fuzz_campaign(PTO_KERNEL_PARAMS) {
    const i64 *F = prm;
    const u64 stride = (u64)gridDim.x * blockDim.x * blockDim.y;
    const u64 tid0 = (u64)blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
    for (u64 t = tid0; t < (u64)n_inst; t += stride) {
        const u64 inst = (u64)F[EWF_INST0] + t;
        const u64 key = rng_key((u64)F[EWF_SEED], inst);
        i64 dup[4];
        rng_dup_values(key, (u64)F[EWF_GCAP], dup);
        const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
        const u64 cls = ewf_tile(F, [&](u64 k) {
            return rng_value32((int)F[EWF_GEN], (u32)key, (u32)(key >> 32), (u32)k, d32, (u32)(u64)F[EWF_GCAP]);
        });
        if (cls) {
            fz_count(fault, FZ_DIVERGENT, true);
            fz_note(fault, cls, inst, true);
        }
    }
}
PTO_EXPORT(ew_fuzz_campaign)

#ifdef PTO_HOST_SHIM
#include <cstring>
#include <vector>

namespace {
// One side over a tile: out[e] = op(x[e], y[e]) & m, instantiated per (operation, kind) so the
// loop is the operation's own (the switches of ew_apply_opk fold; GCC vectorises what it can).
using EwfOut = void (*)(const i64 *, const u32 *, const u32 *, u32 *, u64, u32);
template <int OP, int KD>
void ewf_out(const i64 *P, const u32 *x, const u32 *y, u32 *out, u64 n, u32 m) {
    for (u64 e = 0; e < n; ++e) out[e] = (u32)ew_apply_opk(OP, KD, P, x[e], y[e]) & m;
}
#define EWF_ROW(OP) {ewf_out<OP, K_I8>, ewf_out<OP, K_U8>, ewf_out<OP, K_I16>, ewf_out<OP, K_U16>, \
                     ewf_out<OP, K_I32>, ewf_out<OP, K_U32>, nullptr, nullptr, ewf_out<OP, K_F32>}
const EwfOut EWF_TABLE[OP_ABS + 1][K_F32 + 1] = {
    EWF_ROW(OP_ADD), EWF_ROW(OP_SUB), EWF_ROW(OP_MUL), EWF_ROW(OP_DIV), EWF_ROW(OP_MAX), EWF_ROW(OP_MIN),
    EWF_ROW(OP_AND), EWF_ROW(OP_OR), EWF_ROW(OP_XOR), EWF_ROW(OP_SHL), EWF_ROW(OP_SHR), EWF_ROW(OP_NOT),
    EWF_ROW(OP_NEG), EWF_ROW(OP_ABS)};

// The per-thread buffers of the host loop: words, the scalar's broadcast, each side's dst.
struct EwfHost {
    std::vector<u32> w, ys, oa, ob, oh;
    EwfOut f;
    explicit EwfHost(const i64 *F)
        : w((size_t)F[EWF_NVAL] + 16), ys((size_t)F[EWF_N]), oa(ys.size()), ob(ys.size()), oh(ys.size()),
          f(EWF_TABLE[F[EWF_A + EW_OP]][F[EWF_A + EW_KIND]]) {}

    // The class of tile `inst` (ewf_tile's, over buffers).
    u64 tile(const i64 *F, u64 inst) {
        const u64 key = rng_key((u64)F[EWF_SEED], inst), n = (u64)F[EWF_N];
        const u32 m = (u32)(u64)F[EWF_MASK];
        i64 dup[4];
        rng_dup_values(key, (u64)F[EWF_GCAP], dup);
        const u32 d32[4] = {(u32)dup[0], (u32)dup[1], (u32)dup[2], (u32)dup[3]};
        rng_words32((int)F[EWF_GEN], (u32)key, (u32)(key >> 32), d32, (u32)(u64)F[EWF_GCAP], (u32)F[EWF_NVAL],
                    w.data());
        const u32 *x = w.data(), *y = x;
        if (F[EWF_TWO]) y = x + n;
        else if (F[EWF_SCALAR]) { std::fill(ys.begin(), ys.end(), x[n]); y = ys.data(); }
        f(F + EWF_A, x, y, oa.data(), n, m);
        f(F + EWF_B, x, y, ob.data(), n, m);
        if (std::memcmp(oa.data(), ob.data(), n * 4) == 0) return 0;
        u64 cls = 0;
        int tier = -1;
        for (i64 j = 0; j < F[EWF_NALT]; ++j) {
            const i64 *X = F + EWF_ALT + j * EWF_ALT_WORDS;
            if (tier >= 0 && X[0] != tier) break;
            if (((u64)X[2] & ~cls) == 0) continue;      // (its other direction already explained)
            f(X + 3, x, y, oh.data(), n, m);
            if (std::memcmp(oh.data(), X[1] ? ob.data() : oa.data(), n * 4) == 0) {
                cls |= (u64)X[2];
                tier = (int)X[0];
            }
        }
        return cls ? cls : (u64)F[EWF_UNEXPLAINED];
    }
};
}  // namespace

// Tiles inst0 .. inst0+n-1, one contiguous range per OpenMP thread, each thread its own result
// record (n_res records of FZ_RESULT_WORDS), so a thread's first instances per class are its
// smallest.
extern "C" void pto_ew_fuzz_native(const i64 *F, i64 n, u64 *res, int n_res) {
#pragma omp parallel num_threads(n_res)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const u64 lo = (u64)F[EWF_INST0] + (u64)n * t / nt, hi = (u64)F[EWF_INST0] + (u64)n * (t + 1) / nt;
        u64 *r = res + (u64)t * FZ_RESULT_WORDS;
        EwfHost h(F);
        for (u64 inst = lo; inst < hi; ++inst) {
            const u64 cls = h.tile(F, inst);
            if (cls) {
                r[FZ_DIVERGENT] += 1;
                fz_note(r, cls, inst);
            }
        }
    }
}

// The class of each listed instance (what the campaign counts): the driver checks them against
// the verdicts of the batch path on a sample of instances.
extern "C" void pto_ew_fuzz_classes(const i64 *F, const i64 *inst, i64 n, u64 *out) {
    EwfHost h(F);
    for (i64 i = 0; i < n; ++i) out[i] = h.tile(F, (u64)inst[i]);
}
#endif
