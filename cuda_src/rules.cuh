// rules.cuh — the kernels' target rules, one home each (docs/architecture.md "Where each rule
// lives"): the index cast, the GatherOOB remap (MGATHER), the ScatterOOB remap (MSCATTER) and
// the A5 SIMT launch geometry. Kernels include it; the independent references under ref/ do
// not (tests/test_cuda_layout.py), so a rule a kernel gets wrong cannot reach its reference.
#ifndef PTOGPU_RULES_CUH
#define PTOGPU_RULES_CUH
#include "common.cuh"
#include "mscatter_params.cuh"

// ---- index cast and OOB remap (mgather.md §3) ------------------------------------------------
PTO_DEV u64 cast_index(u64 raw64, int bits) { return bits == 32 ? (raw64 & 0xFFFFFFFFull) : raw64; }

// `cap` is already masked to `bits`; Wrap with cap == 0 is refused by the host (NumPy faults).
PTO_DEV u64 remap(u64 u, u64 cap, int oob, int bits, bool *read) {
    const u64 mask = bits == 32 ? 0xFFFFFFFFull : ~0ull;
    *read = true;
    switch (oob) {
    case OOB_CLAMP:
        // NPU: u >= cap ? cap-1 : u (uint32). CPU sim: std::clamp(u, 0, cap-1) on size_t,
        // so with cap 0 (cap-1 = SIZE_MAX) every u passes unchanged.
        if (bits == 64) return u < cap - 1 ? u : cap - 1;
        return u >= cap ? ((cap - 1) & mask) : u;
    case OOB_WRAP:
        // The same value as u % cap, without a 64-bit division where it is not needed (a GPU
        // emulates one in ~70 instructions): a mask for a power of two, 32-bit division when
        // both operands fit (always for 32-bit index casts).
        if (!cap) return u;
        if (!(cap & (cap - 1))) return u & (cap - 1);
        if ((u >> 32) == 0 && (cap >> 32) == 0) return (u64)((u32)u % (u32)cap);
        return u % cap;
    case OOB_ZERO: *read = u < cap; return u;
    default: return u;
    }
}

// ---- A5 SIMT launch geometry (mgather.md §5.3, §5.4) -----------------------------------------
PTO_DEV u32 row_warps(u32 vr) { return vr == 0 ? 1u : (vr < 32u ? vr : 32u); }
PTO_DEV u32 free_warps(u32 vr) { return 32u / row_warps(vr); }
PTO_DEV u32 col_chunks(u32 vc) { return (vc + 31u) / 32u; }
PTO_DEV u32 warps_per_row(u32 vr, u32 vc) {
    u32 f = free_warps(vr), c = col_chunks(vc);
    u32 m = f < c ? f : c;
    return m > 1u ? m : 1u;
}
PTO_DEV u32 row_launch_warps(u32 vr, u32 vc) { return row_warps(vr) * warps_per_row(vr, vc); }
PTO_DEV u32 elem_launch_warps(u32 total) {
    u32 w = (u32)(((u64)total + 31u) / 32u);
    return w < 1u ? 1u : (w > 32u ? 32u : w);
}

// ---- MSCATTER: one write's slot (mscatter.md) ---------------------------------------------------
// The ScatterOOB rule on `bits`-wide unsigned values; `last`: the slot-centric kernels (a slot
// is written only below cap). Wrap with cap 0 never reaches a kernel (the host refuses it).
PTO_DEV u64 ms_remap(u64 u, u64 cap, int oob, int bits, bool *w) {
    const u64 mask = bits == 32 ? 0xFFFFFFFFull : ~0ull;
    *w = true;
    switch (oob) {
    case SOOB_SKIP: *w = u < cap; return u;
    case SOOB_CLAMP:
        if (bits == 64) return u < cap - 1 ? u : cap - 1;
        return u >= cap ? ((cap - 1) & mask) : u;
    case SOOB_WRAP: return cap ? u % cap : u;
    default: return u;
    }
}

#endif  // PTOGPU_RULES_CUH
