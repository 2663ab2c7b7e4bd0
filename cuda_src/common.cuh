// common.cuh — what every ptogpu kernel shares: the uniform kernel signature, bounds-checked
// arena access, the per-instance fault record, tile layout offsets, index casts and OOB
// remapping, and the A5 SIMT launch geometry (mgather.md §1.2, §3, §5.3, §5.4).
//
// Compiled two ways from the same text:
//   * by NVRTC for the GPU (backend "cupy"): no standard headers are available, so this file
//     uses only built-in types;
//   * by the system C++ compiler for the CPU (backend "native"), with host_shim.h included
//     first (it defines PTO_HOST_SHIM, dim3, threadIdx/blockIdx/..., __global__/__device__).
//
// Rules every kernel follows (ARCHITECTURE.md "Backends and kernels"):
//   * one CUDA block per emulated instance; blockIdx.x selects the instance (grid-stride over
//     instances when the grid is smaller than the batch);
//   * no intra-block synchronisation, no warp intrinsics (the host shim runs the threads of a
//     block one after another);
//   * every emulated address is checked against its arena before it is touched: an address
//     outside the arena sets the instance's fault record and nothing of that instance is
//     written. SIMT kernels run twice: pass 0 checks every access (atomicMin of a fault key),
//     pass 1 writes when the instance is clean, or fills in the address of the first fault.
//     Scalar kernels check everything, then write, in one thread.
#ifndef PTOGPU_COMMON_CUH
#define PTOGPU_COMMON_CUH

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned char u8;
typedef decltype(sizeof(0)) usize;

// Raw byte copies (callers have checked both ranges).
#ifdef PTO_HOST_SHIM
#define PTO_MEMCPY(d, s, n) __builtin_memcpy((d), (s), (usize)(n))
#define PTO_MEMSET0(d, n) __builtin_memset((d), 0, (usize)(n))
#else
#define PTO_MEMCPY(d, s, n) memcpy((d), (s), (usize)(n))
#define PTO_MEMSET0(d, n) memset((d), 0, (usize)(n))
#endif

#ifndef PTO_HOST_SHIM
#define PTO_EXPORT(name)
#define PTO_EXPORT_WARPS(name)
#define PTO_DEV __device__ __forceinline__
#else
#define PTO_DEV static inline
#endif

// ---- lanes -----------------------------------------------------------------------------------
// A SIMT kernel is written as warp bodies templated on W, the lanes one call executes: every
// step of the body is a loop over its W lanes (PTO_LANE_LOOP), so lane l does step k before
// any lane does step k+1 -- the lock-step model of one warp. On the GPU W = 1 (the hardware
// runs the lanes; lane = threadIdx.x). On the host, a lock-step launch (host_shim.h
// pto_launch_warps) runs W = PTO_WARP = 32 and the compiler turns each lane loop into SIMD;
// the per-thread host launch runs W = 1 like the GPU.
#define PTO_WARP 32
#ifdef PTO_HOST_SHIM
#define PTO_LANE_LOOP(l, W) _Pragma("omp simd") for (int l = 0; l < (W); ++l)
#define PTO_PRAGMA(x) _Pragma(#x)
#define PTO_LANE_LOOP_OR(l, W, acc) PTO_PRAGMA(omp simd reduction(|:acc)) for (int l = 0; l < (W); ++l)
PTO_DEV bool pto_lockstep_block() { return pto_lockstep != 0; }
#else
#define PTO_LANE_LOOP(l, W) for (int l = 0; l < (W); ++l)
#define PTO_PRAGMA(x)
#define PTO_LANE_LOOP_OR(l, W, acc) for (int l = 0; l < (W); ++l)
PTO_DEV bool pto_lockstep_block() { return false; }
#endif

// Element loads and stores of 1/2/4/8 bytes at any byte address (emulated addresses need no
// alignment). Host: unaligned, alias-safe typed moves, which the vectoriser turns into
// gathers, scatters and masked moves. GPU: byte moves (a misaligned word access traps there).
#ifdef PTO_HOST_SHIM
template <int TS> struct Word;
template <> struct Word<1> { typedef u8 t; };
template <> struct Word<2> { typedef unsigned short __attribute__((aligned(1), may_alias)) t; };
template <> struct Word<4> { typedef u32 __attribute__((aligned(1), may_alias)) t; };
template <> struct Word<8> { typedef u64 __attribute__((aligned(1), may_alias)) t; };
template <int TS> PTO_DEV u64 ld_word(const u8 *p) { return (u64)*(const typename Word<TS>::t *)p; }
template <int TS> PTO_DEV void st_word(u8 *p, u64 v) {
    *(typename Word<TS>::t *)p = (typename Word<TS>::t)v;
}
// Element k of an array of TS-byte words starting at any byte address p (k < 2^31): indexed
// form, so gathers take p as base and k as 32-bit lanes (twice the lanes of 64-bit addresses).
template <int TS> PTO_DEV u64 ld_at(const u8 *p, int k) { return (u64)((const typename Word<TS>::t *)p)[k]; }
template <int TS> PTO_DEV void st_at(u8 *p, int k, u64 v) {
    ((typename Word<TS>::t *)p)[k] = (typename Word<TS>::t)v;
}
// `a` where `c`, else `b`, without a branch: selects on random data (a scatter's skipped
// lanes) then cost no misprediction. The mask is hidden from the optimiser, which otherwise
// turns such a select back into a branch (and a store to a sink it sees as dead, too).
PTO_DEV u64 select_nb(bool c, u64 a, u64 b) {
    u64 m = 0 - (u64)c;
    __asm__("" : "+r"(m));
    return (a & m) | (b & ~m);
}
// `base + off` where `on`, else `sink` (the address formed as an integer: a skipped lane's
// offset may point anywhere, and no pointer is made from it)
PTO_DEV u8 *pick_or_sink(bool on, u8 *base, u64 off, u8 *sink) {
    return (u8 *)select_nb(on, (u64)base + off, (u64)sink);
}
#else
template <int TS> PTO_DEV u64 ld_word(const u8 *p) {
    u64 v = 0;
    for (int k = 0; k < TS; ++k) v |= (u64)p[k] << (8 * k);
    return v;
}
template <int TS> PTO_DEV void st_word(u8 *p, u64 v) {
    for (int k = 0; k < TS; ++k) p[k] = (u8)(v >> (8 * k));
}
template <int TS> PTO_DEV u64 ld_at(const u8 *p, int k) { return ld_word<TS>(p + (i64)k * TS); }
template <int TS> PTO_DEV void st_at(u8 *p, int k, u64 v) { st_word<TS>(p + (i64)k * TS, v); }
PTO_DEV u64 select_nb(bool c, u64 a, u64 b) { return c ? a : b; }     // (a GPU thread: a select)
#endif

// ---- the uniform kernel signature ----------------------------------------------------------
// Three arenas (GM, UB, L1); each instance k sees `base + k*stride` (stride 0: shared).
// `prm` holds the int64 parameter block of instance k at `prm + k*prm_stride` (stride 0: one
// block for the whole batch). `fault` has FAULT_WORDS u64 per instance. `pass` is 0 (check)
// or 1 (write) for SIMT kernels; scalar kernels ignore it and run once.
#define PTO_KERNEL_PARAMS                                                        \
    u8 *gm, i64 gm_size, i64 gm_stride, u8 *ub, i64 ub_size, i64 ub_stride,      \
    u8 *l1, i64 l1_size, i64 l1_stride, const i64 *prm, i64 prm_stride,          \
    u64 *fault, i64 n_inst, int pass
#define PTO_KERNEL_ARGS                                                          \
    gm, gm_size, gm_stride, ub, ub_size, ub_stride, l1, l1_size, l1_stride, prm, \
    prm_stride, fault, n_inst, pass

// ---- arenas --------------------------------------------------------------------------------
enum { SPACE_GM = 0, SPACE_UB = 1, SPACE_L1 = 2 };

struct Arena {
    u8 *p;
    i64 size;
};

struct Mem {
    Arena a[3];
};

// The arenas instance `inst` sees (per-instance strides; stride 0 shares an arena).
#define PTO_MEM_OF(m, inst)                                                        \
    Mem m;                                                                         \
    m.a[SPACE_GM].p = gm + (inst) * gm_stride; m.a[SPACE_GM].size = gm_size;       \
    m.a[SPACE_UB].p = ub + (inst) * ub_stride; m.a[SPACE_UB].size = ub_size;       \
    m.a[SPACE_L1].p = l1 + (inst) * l1_stride; m.a[SPACE_L1].size = l1_size

// A kernel's instance: its parameter block P, fault record rec and memory m (PTO_UB_INSTANCE:
// and its UB, U).
#define PTO_INSTANCE(inst)                                                         \
    const i64 *P = prm + (inst) * prm_stride;                                      \
    u64 *rec = fault + (inst) * FAULT_WORDS;                                       \
    PTO_MEM_OF(m, inst)
#define PTO_UB_INSTANCE(inst)                                                      \
    PTO_INSTANCE(inst);                                                            \
    const Arena &U = m.a[SPACE_UB]

// One block per instance; grid-stride when the batch is larger than the grid. On the host
// shim a smaller grid gives each block a contiguous range of instances instead: a batch's
// arenas are laid out by instance, so a host thread streams through them (grid-stride hopped
// a grid's width of rows at each step).
#ifdef PTO_HOST_SHIM
#define PTO_FOR_EACH_INSTANCE(inst)                                                              \
    for (i64 inst = pto_range_first(n_inst, blockIdx.x, gridDim.x),                            \
             inst##_end = pto_range_first(n_inst, blockIdx.x + 1, gridDim.x);                    \
         inst < inst##_end; ++inst)
static inline i64 pto_range_first(i64 n, u64 b, u64 g) { return (i64)((__int128)n * (i64)b / (i64)g); }
#else
#define PTO_FOR_EACH_INSTANCE(inst) \
    for (i64 inst = (i64)blockIdx.x; inst < n_inst; inst += (i64)gridDim.x)
#endif

// The NumPy rule (memory.Arena.check_many): a signed byte address `a` (uint64 arithmetic
// reinterpreted) is inside when 0 <= a <= size - nbytes.
PTO_DEV bool arena_ok(const Arena &ar, u64 addr, i64 nbytes) {
    i64 a = (i64)addr;
    return a >= 0 && a <= ar.size - nbytes;
}

// Unchecked element copies: callers have checked both addresses first.
// Emulated addresses need not be aligned to the element size, so copies are byte-wise (the
// host build lets the compiler turn fixed-size memcpy into single moves).
PTO_DEV void copy_elem(u8 *d, const u8 *s, int n) {
#ifdef PTO_HOST_SHIM
    switch (n) {
    case 1: *d = *s; return;
    case 2: __builtin_memcpy(d, s, 2); return;
    case 4: __builtin_memcpy(d, s, 4); return;
    case 8: __builtin_memcpy(d, s, 8); return;
    default: break;
    }
#endif
    for (int k = 0; k < n; ++k) d[k] = s[k];
}

PTO_DEV void zero_elem(u8 *d, int n) {
    for (int k = 0; k < n; ++k) d[k] = 0;
}

// Integer of `size` bytes at p, sign- or zero-extended to 64 bits, then reinterpreted as u64
// (static_cast<size_t>); the caller masks to 32 bits for static_cast<uint32_t>.
PTO_DEV u64 load_index(const u8 *p, int size, int is_signed) {
    u64 v = 0;
#ifdef PTO_HOST_SHIM
    if (size == 4) {
        u32 w;
        __builtin_memcpy(&w, p, 4);                               // x86/arm64: little-endian
        v = w;
    } else
#endif
    for (int k = 0; k < size; ++k) v |= (u64)p[k] << (8 * k);   // little-endian, as NumPy
    if (is_signed && size < 8) {
        const int sh = 64 - 8 * size;
        v = (u64)(((i64)(v << sh)) >> sh);
    }
    return v;
}

// ---- fault record ----------------------------------------------------------------------------
// Per instance: [key, address, index value, spare]. key = phase << 56 | linear position, so the
// smallest key is the fault the NumPy backend reports first (it checks every index read, then
// every table read, then every destination write, each in its own element order).
enum { FAULT_WORDS = 4 };
enum { PHASE_INDEX = 0, PHASE_TABLE = 1, PHASE_DST = 2 };
#define FAULT_NONE (~0ull)

PTO_DEV u64 fault_key(int phase, u64 linear) { return ((u64)phase << 56) | linear; }

// Scalar kernels (one thread per instance): keep the smallest key with its address and index.
PTO_DEV void fault_note(u64 *rec, u64 key, u64 addr, u64 u) {
    if (key < rec[0]) {
        rec[0] = key;
        rec[1] = addr;
        rec[2] = u;
    }
}

// SIMT kernels, pass 0: many threads race; only the key is combined (atomicMin is not
// intra-block synchronisation). Pass 1 lets the owner of the winning key fill in the rest.
PTO_DEV void fault_race(u64 *rec, u64 key) {
    if (key < rec[0]) atomicMin(&rec[0], key);
}

PTO_DEV void fault_fill(u64 *rec, u64 key, u64 addr, u64 u) {
    if (rec[0] == key) {
        rec[1] = addr;
        rec[2] = u;
    }
}

// What a kernel body does with one element: SIMT pass 0 (ACT_RACE), scalar check (ACT_NOTE),
// SIMT pass 1 of a faulted instance (ACT_FILL), or the write of a clean instance (ACT_WRITE).
enum { ACT_RACE = 0, ACT_NOTE = 1, ACT_FILL = 2, ACT_WRITE = 3 };

PTO_DEV void on_bad(u64 *rec, int act, u64 key, u64 addr, u64 u) {
    if (act == ACT_RACE) fault_race(rec, key);
    else if (act == ACT_NOTE) fault_note(rec, key, addr, u);
    else if (act == ACT_FILL) fault_fill(rec, key, addr, u);
}

// The action of a SIMT thread in `pass` for an instance whose record is `rec`.
PTO_DEV int simt_act(int pass, const u64 *rec) {
    return pass == 0 ? ACT_RACE : (rec[0] != FAULT_NONE ? ACT_FILL : ACT_WRITE);
}

// ---- tile descriptors and layout offsets (mgather.md §1.2) -----------------------------------
// Kinds: 0 ND RowMajor, 1 ND ColMajor, 2 Nz, 3 Zn, 4 Zz, 5 Nn (the full CPU-simulator rule,
// tile_offsets.hpp), 6 GM rows (r*row_stride + c, a GlobalTensor index). A5's tile_offset_2d
// (SLayout ignored) is kinds 0/1 chosen from BLayout alone.
enum { TK_ROW = 0, TK_COL = 1, TK_NZ = 2, TK_ZN = 3, TK_ZZ = 4, TK_NN = 5, TK_GMROWS = 6 };

// A tile descriptor occupies TD_WORDS int64 in the parameter block.
enum { TD_SPACE = 0, TD_ADDR, TD_KIND, TD_ROWS, TD_COLS, TD_IR, TD_IC, TD_RSTRIDE, TD_ESIZE,
       TD_SIGNED, TD_WORDS };

PTO_DEV i64 tile_offset(const i64 *td, i64 r, i64 c) {
    const i64 R = td[TD_ROWS], C = td[TD_COLS];
    switch ((int)td[TD_KIND]) {
    case TK_ROW: return r * C + c;
    case TK_COL: return c * R + r;
    case TK_GMROWS: return (i64)((u64)r * (u64)td[TD_RSTRIDE] + (u64)c);   // wraps, no UB
    default: break;
    }
    const i64 ir_ = td[TD_IR], ic_ = td[TD_IC];
    const i64 sr = r / ir_, ir = r % ir_, sc = c / ic_, ic = c % ic_;
    const i64 inner = ir_ * ic_;
    switch ((int)td[TD_KIND]) {
    case TK_NZ: return sc * R * ic_ + sr * inner + ir * ic_ + ic;
    case TK_ZN: return sr * C * ir_ + sc * inner + ic * ir_ + ir;
    case TK_ZZ: return sr * C * ir_ + sc * inner + ir * ic_ + ic;
    default: return sc * R * ic_ + sr * inner + ic * ir_ + ir;   // TK_NN
    }
}

PTO_DEV u64 tile_addr(const i64 *td, i64 r, i64 c) {
    return (u64)td[TD_ADDR] + (u64)tile_offset(td, r, c) * (u64)td[TD_ESIZE];
}

// ---- index cast and OOB remap (mgather.md §3) ------------------------------------------------
enum { OOB_UNDEFINED = 0, OOB_CLAMP = 1, OOB_WRAP = 2, OOB_ZERO = 3 };

#endif  // PTOGPU_COMMON_CUH
