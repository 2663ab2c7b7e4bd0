// fuzz_classes.cuh — the result record of the campaign engines and its class table: counters,
// then one slot per divergence class (its mask, its count, its first instances). fuzz.cu's
// engines and elementwise_fuzz.cu fill it; ptogpu/fuzz/fused.py merge() reads it.
#ifndef PTOGPU_FUZZ_CLASSES_CUH
#define PTOGPU_FUZZ_CLASSES_CUH

#include "common.cuh"

// Result record (u64 words): counters (tiles faulting on A, on B, divergent, beyond FZ_MAXC
// classes, disagreeing with their own reference on A, on B, of which with writes outside the
// destination on A, on B), then FZ_MAXC class slots of FZ_SLOT words each:
// [mask, count, n_first, first_0 .. first_{FZ_FIRST-1}].
enum { FZ_FAULTS_A = 0, FZ_FAULTS_B, FZ_DIVERGENT, FZ_OVERFLOW, FZ_REFBAD_A, FZ_REFBAD_B, FZ_STRAY_A,
       FZ_STRAY_B, FZ_HEAD = 8, FZ_MAXC = 64, FZ_FIRST = 5, FZ_SLOT = 3 + FZ_FIRST,
       FZ_RESULT_WORDS = FZ_HEAD + FZ_MAXC * FZ_SLOT };
#define FZ_EMPTY (~0ull)


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

#endif
