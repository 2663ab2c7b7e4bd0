// host_shim.h — compile the kernels of cuda_src/ as plain C++ for the CPU (backend "native").
//
// Included first (g++ -include host_shim.h -x c++ mgather.cu). It supplies what CUDA would:
// dim3, threadIdx / blockIdx / blockDim / gridDim (thread-local, so OpenMP workers each have
// their own), the __global__ / __device__ qualifiers, atomicMin, and launchers that run a grid
// as loops, blocks in parallel (OpenMP when enabled):
//   * per thread: the threads of one block one after another in (z, y, x) order, each running
//     the kernel's per-thread code (what the GPU runs); faithful because no kernel
//     synchronises inside a block or uses warp intrinsics (common.cuh);
//   * lock-step warps (kernels exported with PTO_EXPORT_WARPS): one call per block, in which
//     the kernel executes every warp of its launch, the 32 lanes of a warp in lock-step (each
//     step a SIMD loop over the lanes: common.cuh PTO_LANES), every pass of the block before
//     the next block. That is the SIMT model of a warp, vectorised.
// Each PTO_EXPORT(kernel) becomes extern "C" functions host_<kernel>(grid_x, block_x, block_y,
// block_z, <kernel parameters>) and hostp_<kernel>(..., npasses, ...) for ctypes;
// PTO_EXPORT_WARPS(kernel) adds hostw_<kernel> (same arguments as hostp_).
#ifndef PTOGPU_HOST_SHIM_H
#define PTOGPU_HOST_SHIM_H

#define PTO_HOST_SHIM 1

#ifdef _OPENMP
#include <omp.h>
#endif

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// Initial-exec TLS: a plain %fs-relative access instead of a __tls_get_addr call per use
// (the library is dlopen'ed, and these few bytes fit glibc's static TLS reserve).
#define PTO_TLS thread_local __attribute__((tls_model("initial-exec")))
static PTO_TLS dim3 threadIdx, blockIdx, blockDim, gridDim;

// Set while a lock-step launcher runs a kernel: the kernel then runs its whole block itself,
// warp by warp, lanes in lock-step, all passes (common.cuh pto_lockstep_block()).
static PTO_TLS int pto_lockstep = 0;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)

static inline unsigned long long atomicMin(unsigned long long *addr, unsigned long long v) {
    unsigned long long old = __atomic_load_n(addr, __ATOMIC_RELAXED);
    while (v < old &&
           !__atomic_compare_exchange_n(addr, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

// Set this host thread's gridDim/blockDim/blockIdx for linear block number `b`.
static inline void pto_enter_block(dim3 grid, dim3 block, long long b) {
    gridDim = grid;
    blockDim = block;
    blockIdx = dim3((unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y),
                    (unsigned)(b / ((long long)grid.x * grid.y)));
}

// Run kernel `k` over `grid` x `block`: blocks in parallel, threads of a block sequentially.
template <class... Params, class... Args>
static void pto_launch(void (*k)(Params...), dim3 grid, dim3 block, Args... args) {
    const long long nblocks = (long long)grid.x * grid.y * grid.z;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) if (nblocks > 1)
#endif
    for (long long b = 0; b < nblocks; ++b) {
        pto_enter_block(grid, block, b);
        for (unsigned tz = 0; tz < block.z; ++tz)
            for (unsigned ty = 0; ty < block.y; ++ty)
                for (unsigned tx = 0; tx < block.x; ++tx) {
                    threadIdx = dim3(tx, ty, tz);
                    k(args...);
                }
    }
}

// Run `body()` once per block of `grid`, blocks handed to OpenMP workers in chunks, with the
// worker's gridDim/blockDim/blockIdx set for the block.
template <class F>
static void pto_each_block(dim3 grid, dim3 block, F body) {
    const long long nblocks = (long long)grid.x * grid.y * grid.z;
#ifdef _OPENMP
    const long long nt = omp_get_max_threads();
    long long chunk = nblocks / (nt * 16);
    chunk = chunk < 1 ? 1 : (chunk > 256 ? 256 : chunk);
#pragma omp parallel for schedule(dynamic, chunk) if (nblocks > 1)
#endif
    for (long long b = 0; b < nblocks; ++b) {
        pto_enter_block(grid, block, b);
        body();
    }
}

// Run passes 0..npasses-1 of kernel `k` block by block: each block runs all its passes before
// the next block starts (blocks are independent instances, and pass p+1 of an instance reads
// only what pass p of the same instance wrote), so a batch streams through memory once per
// block instead of once per pass.
template <class K>
static void pto_launch_passes(K k, dim3 grid, dim3 block, int npasses, unsigned char *gm,
                              long long gm_size, long long gm_stride, unsigned char *ub,
                              long long ub_size, long long ub_stride, unsigned char *l1,
                              long long l1_size, long long l1_stride, const long long *prm,
                              long long prm_stride, unsigned long long *fault, long long n_inst) {
    pto_each_block(grid, block, [&] {
        for (int p = 0; p < npasses; ++p)
            for (unsigned tz = 0; tz < block.z; ++tz)
                for (unsigned ty = 0; ty < block.y; ++ty)
                    for (unsigned tx = 0; tx < block.x; ++tx) {
                        threadIdx = dim3(tx, ty, tz);
                        k(gm, gm_size, gm_stride, ub, ub_size, ub_stride, l1, l1_size, l1_stride,
                          prm, prm_stride, fault, n_inst, p);
                    }
    });
}

// Lock-step warps: one call per block with threadIdx = (0,0,0) and pto_lockstep set; the
// kernel runs every warp and every pass of its block (its `pass` argument is ignored).
template <class K>
static void pto_launch_warps(K k, dim3 grid, dim3 block, unsigned char *gm, long long gm_size,
                             long long gm_stride, unsigned char *ub, long long ub_size,
                             long long ub_stride, unsigned char *l1, long long l1_size,
                             long long l1_stride, const long long *prm, long long prm_stride,
                             unsigned long long *fault, long long n_inst) {
    pto_each_block(grid, block, [&] {
        threadIdx = dim3(0, 0, 0);
        pto_lockstep = 1;
        k(gm, gm_size, gm_stride, ub, ub_size, ub_stride, l1, l1_size, l1_stride, prm,
          prm_stride, fault, n_inst, 0);
        pto_lockstep = 0;
    });
}

// One block (block 0 of a 1-block grid) on the calling thread, no OpenMP: what the executing
// fuzz engine (fuzz.cu pto_fuzz_exec) calls per tile. Kernels live in their own translation
// units with their own thread-locals, so the engine calls these rather than the kernels.
template <class K>
static void pto_one_block(K k, dim3 block, bool lock, int npasses, unsigned char *gm,
                          long long gm_size, unsigned char *ub, long long ub_size,
                          unsigned char *l1, long long l1_size, const long long *prm,
                          unsigned long long *fault) {
    pto_enter_block(dim3(1), block, 0);
    if (lock) {
        threadIdx = dim3(0, 0, 0);
        pto_lockstep = 1;
        k(gm, gm_size, 0, ub, ub_size, 0, l1, l1_size, 0, prm, 0, fault, 1, 0);
        pto_lockstep = 0;
        return;
    }
    for (int p = 0; p < npasses; ++p)
        for (unsigned tz = 0; tz < block.z; ++tz)
            for (unsigned ty = 0; ty < block.y; ++ty)
                for (unsigned tx = 0; tx < block.x; ++tx) {
                    threadIdx = dim3(tx, ty, tz);
                    k(gm, gm_size, 0, ub, ub_size, 0, l1, l1_size, 0, prm, 0, fault, 1, p);
                }
}

// The signature of the one-block entry points (host1_<name>, host1w_<name>).
typedef void (*pto_block_fn)(unsigned block_x, unsigned block_y, unsigned block_z, int npasses,
                             unsigned char *gm, long long gm_size, unsigned char *ub,
                             long long ub_size, unsigned char *l1, long long l1_size,
                             const long long *prm, unsigned long long *fault);

// The one-block entry point `sym` of kernel `name` (LOCK: lock-step warps).
#define PTO_EXPORT_ONE_BLOCK(sym, name, LOCK)                                               \
    extern "C" void sym(unsigned block_x, unsigned block_y, unsigned block_z, int npasses,  \
                        unsigned char *gm, long long gm_size, unsigned char *ub,            \
                        long long ub_size, unsigned char *l1, long long l1_size,            \
                        const long long *prm, unsigned long long *fault) {                  \
        pto_one_block(name, dim3(block_x, block_y, block_z), LOCK, npasses, gm, gm_size,   \
                      ub, ub_size, l1, l1_size, prm, fault);                                \
    }

// Exported entry points of one kernel (uses the uniform signature of common.cuh):
// host_<name> runs one pass over the grid, hostp_<name> runs `npasses` passes block by block,
// host1_<name> one block with every thread per pass (pto_one_block).
#define PTO_EXPORT(name)                                                                    \
    PTO_EXPORT_ONE_BLOCK(host1_##name, name, false)                                         \
    extern "C" void host_##name(unsigned grid_x, unsigned block_x, unsigned block_y,        \
                                unsigned block_z, PTO_KERNEL_PARAMS) {                      \
        pto_launch(name, dim3(grid_x), dim3(block_x, block_y, block_z), PTO_KERNEL_ARGS);    \
    }                                                                                       \
    extern "C" void hostp_##name(unsigned grid_x, unsigned block_x, unsigned block_y,       \
                                 unsigned block_z, int npasses, PTO_KERNEL_PARAMS) {        \
        (void)pass;                                                                         \
        pto_launch_passes(name, dim3(grid_x), dim3(block_x, block_y, block_z), npasses, gm,  \
                          gm_size, gm_stride, ub, ub_size, ub_stride, l1, l1_size,          \
                          l1_stride, prm, prm_stride, fault, n_inst);                       \
    }

// A kernel that runs lock-step warps on the host (see pto_launch_warps); host1w_<name> is
// its one-block entry point in lock-step.
#define PTO_EXPORT_WARPS(name)                                                              \
    PTO_EXPORT(name)                                                                        \
    PTO_EXPORT_ONE_BLOCK(host1w_##name, name, true)                                         \
    extern "C" void hostw_##name(unsigned grid_x, unsigned block_x, unsigned block_y,       \
                                 unsigned block_z, int npasses, PTO_KERNEL_PARAMS) {        \
        (void)pass;                                                                         \
        (void)npasses;                                                                      \
        pto_launch_warps(name, dim3(grid_x), dim3(block_x, block_y, block_z), gm, gm_size,  \
                         gm_stride, ub, ub_size, ub_stride, l1, l1_size, l1_stride, prm,    \
                         prm_stride, fault, n_inst);                                        \
    }

// The vector ISA this build was compiled for (the lane loops' SIMD width follows it).
extern "C" __attribute__((weak)) const char *pto_vector_isa(void) {
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
    return "avx512";
#elif defined(__AVX2__)
    return "avx2";
#elif defined(__AVX__)
    return "avx";
#elif defined(__SSE4_2__)
    return "sse4.2";
#elif defined(__x86_64__)
    return "sse2";
#elif defined(__ARM_FEATURE_SVE)
    return "sve";
#elif defined(__ARM_NEON)
    return "neon";
#else
    return "scalar";
#endif
}

// Lets the loader tell a shim build from anything else (weak: every .cu includes the shim).
extern "C" __attribute__((weak)) int pto_host_shim_version(void) { return 2; }
extern "C" __attribute__((weak)) int pto_host_shim_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

#endif  // PTOGPU_HOST_SHIM_H
