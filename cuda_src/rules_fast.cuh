// rules_fast.cuh — the vectorised forms of rules.cuh's rules, beside them: the same values in
// the lanes' own widths (u32 lanes, a reciprocal for the modulo, the policy a template argument).
#ifndef PTOGPU_RULES_FAST_CUH
#define PTOGPU_RULES_FAST_CUH
#include "rules.cuh"

// Flat position i -> (i / d, i % d) for i, d < 2^32 without a vector-hostile integer
// division: a double reciprocal is within one of the quotient (|error| < 2^-20), then fixed.
PTO_DEV void divmod_u32(u64 i, u64 d, double inv, u64 *q, u64 *r) {
    u64 qq = (u64)((double)i * inv);
    const i64 rem = (i64)i - (i64)(qq * d);
    qq = rem < 0 ? qq - 1 : (rem >= (i64)d ? qq + 1 : qq);
    *q = qq;
    *r = i - qq * d;
}

// u % cap for u, cap < 2^32, cap != 0, by the same reciprocal trick (GatherOOB::Wrap).
PTO_DEV u64 mod_u32(u64 u, u64 cap, double inv) {
    u64 q, r;
    divmod_u32(u, cap, inv, &q, &r);
    return r;
}

// Remap a 32-bit index (mgather.md §3) for the vector form; `rd` false: write 0.
template <int OOB>
PTO_DEV u32 lane_remap(u32 u, u32 cap, u32 last, bool pow2, double inv_cap, bool *rd) {
    *rd = true;
    if (OOB == OOB_CLAMP) return u >= cap ? last : u;
    if (OOB == OOB_WRAP) return pow2 ? (u & last) : (u32)mod_u32(u, cap, inv_cap);
    if (OOB == OOB_ZERO) *rd = u < cap;
    return u;
}

// ms_remap with the policy and the cast width as template arguments, for the vector loops
// (U: the lane type; u32 lanes for 32-bit casts vectorise twice as wide). Wrap needs cap > 0.
template <int OOB, int BITS, class U>
PTO_DEV U remap_t(U u, U cap, int *w) {
    *w = 1;
    if (OOB == SOOB_SKIP) *w = u < cap;
    if (OOB == SOOB_CLAMP)
        return BITS == 64 ? (u < cap - 1 ? u : cap - 1) : (u >= cap ? (U)((cap - 1) & 0xFFFFFFFFull) : u);
    if (OOB == SOOB_WRAP) return u % cap;
    return u;
}

#endif  // PTOGPU_RULES_FAST_CUH
