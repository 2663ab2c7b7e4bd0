// mscatter.cu — MSCATTER on every target: the A5 SIMT launches and the scalar loops.
//
//   kernel                 mirrors                                        launch per instance
//   mscatter_a5_source     A5 simt_mscatter_row_kernel / _elem_kernel     dim3(32, W) (Row: rowWarps*warpsPerRow,
//                          (Conflict::Default and every atomic)           Elem: clamp(ceil(N/32), 1, 32)); lock-step warps on the host
//   mscatter_a5_last       A5 simt_mscatter_row_last / _elem_last_kernel  dim3(32, clamp(ceil(cap/32), 1, 32)), slots tid, tid+1024, ...
//   mscatter_seq           the scalar loops: the CPU simulator, A2/A3 ND   dim3(1)
//                          Row and Elem, the A5 static 1x1 path
//
// Semantics are those of ptogpu/semantics/mscatter.py byte for byte. Every kernel checks each
// index read, source read and table write against its arena first (pass 0 on the SIMT
// kernels); an instance with any bad access writes nothing and its record says so (the host
// then lets NumPy raise the fault with its message).
//
// Schedule: on the host each block runs its warps one after another, each warp's steps in
// order, the 32 lanes of a step in lock-step (lane order for stores to one address) -- the
// schedule the NumPy reference follows. On a GPU the warps race; the host hands Default
// stores and float atomics (whose bytes depend on the order) to the host build, so the GPU
// runs the slot-centric kernel, the scalar loops and integer atomics (order-independent).
#include "common.cuh"

enum {
    MS_VR = 0, MS_VC, MS_MODE, MS_ATOMIC, MS_OOB, MS_BITS, MS_CAP, MS_T, MS_DT, MS_TBASE,
    MS_ST3, MS_ST4, MS_ROWDST, MS_LASTSCAN, MS_SRC, MS_IDX = MS_SRC + TD_WORDS, MS_WORDS = MS_IDX + TD_WORDS
};
enum { MSM_ROW = 0, MSM_ELEM = 1 };
enum { SOOB_UNDEFINED = 0, SOOB_SKIP = 1, SOOB_CLAMP = 2, SOOB_WRAP = 3 };
enum { AT_NONE = 0, AT_ADD = 1, AT_MAX = 2, AT_MIN = 3 };
// Element arithmetic types (what Add / Max / Min compute in).
enum { DT_I8 = 0, DT_U8, DT_I16, DT_U16, DT_I32, DT_U32, DT_I64, DT_U64, DT_F16, DT_BF16, DT_F32, DT_RAW };
// How the slot-centric kernel's threads find their winners: SCAN_REVERSE, each lane's own
// reverse scan (what the hardware runs: Θ(cap x N) index reads); SCAN_OWNER (host build only),
// one forward pass recording each slot's last writer, which is the winner every scan finds.
enum { SCAN_REVERSE = 0, SCAN_OWNER = 1 };
// Row destination: cpu u*St3 + j*St4, A2/A3 u*u32(St3) + j, A5 u32(u*VC) + j.
enum { RD_STRIDES = 0, RD_STRIDE3 = 1, RD_VALID_COLS = 2 };

// ---- scalar float conversions (no headers: NVRTC has none) ---------------------------------
PTO_DEV u32 f2u(float f) { u32 u; PTO_MEMCPY(&u, &f, 4); return u; }
PTO_DEV float u2f(u32 u) { float f; PTO_MEMCPY(&f, &u, 4); return f; }

PTO_DEV float half_to_float(u32 h) {
    const u32 s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1Fu) return u2f(s | 0x7F800000u | (m << 13));            // inf / NaN (payload kept)
    if (e == 0) {
        if (!m) return u2f(s);
        float v = (float)m * (1.0f / 16777216.0f);                       // m * 2^-24, exact
        return s ? -v : v;
    }
    return u2f(s | ((e + 112u) << 23) | (m << 13));
}

// float -> half, round to nearest even (NumPy's npy_floatbits_to_halfbits).
PTO_DEV u32 float_to_half(float f) {
    const u32 x = f2u(f), s = (x >> 16) & 0x8000u, e = (x >> 23) & 0xFFu, m = x & 0x7FFFFFu;
    if (e == 0xFFu) {
        if (!m) return s | 0x7C00u;
        u32 hm = m >> 13;
        return s | 0x7C00u | (hm ? hm : 1u);                             // NaN stays NaN
    }
    const int ee = (int)e - 127 + 15;
    if (ee >= 31) return s | 0x7C00u;                                    // overflow: inf
    if (ee <= 0) {                                                       // subnormal half
        if (ee < -10) return s;
        const u32 mm = m | 0x800000u;
        const int sh = 14 - ee;
        u32 hm = mm >> sh;
        const u32 rem = mm & ((1u << sh) - 1u), halfway = 1u << (sh - 1);
        if (rem > halfway || (rem == halfway && (hm & 1u))) ++hm;
        return s | hm;
    }
    u32 h = s | ((u32)ee << 10) | (m >> 13);
    const u32 rem = m & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;             // carries into the exponent
    return h;
}

PTO_DEV float bf16_to_float(u32 b) { return u2f(b << 16); }

// float -> bfloat16, round to nearest even; NaN -> quiet NaN of the same sign (ml_dtypes).
PTO_DEV u32 float_to_bf16(float f) {
    const u32 x = f2u(f);
    if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu)) return ((x >> 16) & 0x8000u) | 0x7FC0u;
    return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}

// float addition with x86's NaN rule made explicit (a compiler may commute `+`): a NaN operand
// comes back quieted, the first first; a new NaN (inf - inf) is the default NaN 0xFFC00000.
PTO_DEV float f32_add(float a, float b) {
    const u32 ua = f2u(a), ub = f2u(b);
    const bool na = (ua & 0x7F800000u) == 0x7F800000u && (ua & 0x7FFFFFu);
    const bool nb = (ub & 0x7F800000u) == 0x7F800000u && (ub & 0x7FFFFFu);
    if (na) return u2f(ua | 0x400000u);
    if (nb) return u2f(ub | 0x400000u);
    const float r = a + b;
    const u32 ur = f2u(r);
    if ((ur & 0x7F800000u) == 0x7F800000u && (ur & 0x7FFFFFu)) return u2f(0xFFC00000u);
    return r;
}

// One atomic step on an element of `dt` (bit patterns in u64): integers wrap; half and bf16 add
// through float with one rounding; Max keeps `old` unless old < v, Min unless v < old.
PTO_DEV u64 ms_combine(int op, int dt, u64 old, u64 v) {
    switch (dt) {
    case DT_F32: {
        const float a = u2f((u32)old), b = u2f((u32)v);
        if (op == AT_ADD) return f2u(f32_add(a, b));
        if (op == AT_MAX) return a < b ? v : old;
        return b < a ? v : old;
    }
    case DT_F16:
    case DT_BF16: {
        const float a = dt == DT_F16 ? half_to_float((u32)old) : bf16_to_float((u32)old);
        const float b = dt == DT_F16 ? half_to_float((u32)v) : bf16_to_float((u32)v);
        if (op == AT_ADD) return dt == DT_F16 ? float_to_half(f32_add(a, b)) : float_to_bf16(f32_add(a, b));
        if (op == AT_MAX) return a < b ? v : old;
        return b < a ? v : old;
    }
    default: break;
    }
    if (op == AT_ADD) return old + v;
    const int bits = dt <= DT_U8 ? 8 : dt <= DT_U16 ? 16 : dt <= DT_U32 ? 32 : 64;
    const bool sgn = dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64;
    const int sh = 64 - bits;
    const bool lt_ov = sgn ? ((i64)(old << sh) >> sh) < ((i64)(v << sh) >> sh)
                           : ((old << sh) >> sh) < ((v << sh) >> sh);   // old < v
    const bool lt_vo = sgn ? ((i64)(v << sh) >> sh) < ((i64)(old << sh) >> sh)
                           : ((v << sh) >> sh) < ((old << sh) >> sh);   // v < old
    if (op == AT_MAX) return lt_ov ? v : old;
    return lt_vo ? v : old;
}

PTO_DEV u64 ld_elem(const u8 *p, int T) {
#ifdef PTO_HOST_SHIM
    switch (T) {
    case 1: return *p;
    case 2: return ld_word<2>(p);
    case 4: return ld_word<4>(p);
    case 8: return ld_word<8>(p);
    default: break;
    }
#endif
    u64 v = 0;
    for (int k = 0; k < T; ++k) v |= (u64)p[k] << (8 * k);
    return v;
}
PTO_DEV void st_elem(u8 *p, int T, u64 v) {
    for (int k = 0; k < T; ++k) p[k] = (u8)(v >> (8 * k));
}

// ---- one write ---------------------------------------------------------------------------------
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

// Index of source (r, c) (Row: flat element r of the index storage).
PTO_DEV bool ms_index(const i64 *P, const Mem &m, i64 r, i64 c, u64 *u) {
    const i64 *itd = P + MS_IDX;
    const Arena &I = m.a[itd[TD_SPACE]];
    const u64 a = P[MS_MODE] == MSM_ROW ? (u64)itd[TD_ADDR] + (u64)(r * itd[TD_ESIZE]) : tile_addr(itd, r, c);
    if (!arena_ok(I, a, itd[TD_ESIZE])) return false;
    *u = cast_index(load_index(I.p + a, (int)itd[TD_ESIZE], (int)itd[TD_SIGNED]), (int)P[MS_BITS]);
    return true;
}

// GM byte address of the write of source (r, c) to `slot`.
PTO_DEV u64 ms_dst(const i64 *P, u64 slot, i64 c) {
    const u64 T = (u64)P[MS_T];
    u64 off;
    if (P[MS_MODE] == MSM_ELEM) off = slot;
    else if (P[MS_ROWDST] == RD_STRIDES) off = slot * (u64)P[MS_ST3] + (u64)c * (u64)P[MS_ST4];
    else if (P[MS_ROWDST] == RD_STRIDE3) off = slot * ((u64)P[MS_ST3] & 0xFFFFFFFFull) + (u64)c;
    else off = ((slot * (u64)P[MS_VC]) & 0xFFFFFFFFull) + (u64)c;
    return (u64)P[MS_TBASE] + off * T;
}

// act 0: check (false on a bad access); act 1: write. One store (or atomic step) of source
// (r, c), whose index `u` remapped to `slot`.
PTO_DEV bool ms_store(const i64 *P, const Mem &m, int act, i64 r, i64 c, u64 slot) {
    const i64 *std_ = P + MS_SRC;
    const Arena &S = m.a[std_[TD_SPACE]], &G = m.a[SPACE_GM];
    const int T = (int)P[MS_T];
    const u64 sa = tile_addr(std_, r, c), d = ms_dst(P, slot, c);
    if (act == 0) return arena_ok(S, sa, T) && arena_ok(G, d, T);
    const u64 v = ld_elem(S.p + sa, T);
    if (P[MS_ATOMIC] == AT_NONE) {
        st_elem(G.p + d, T, v);
        return true;
    }
#ifndef PTO_HOST_SHIM
    if (T == 4 && (d & 3) == 0 && (P[MS_DT] == DT_I32 || P[MS_DT] == DT_U32)) {   // order-free on a GPU
        unsigned *p = (unsigned *)(G.p + d);
        if (P[MS_ATOMIC] == AT_ADD) atomicAdd(p, (unsigned)v);
        else if (P[MS_DT] == DT_U32) (P[MS_ATOMIC] == AT_MAX ? atomicMax(p, (unsigned)v) : atomicMin(p, (unsigned)v));
        else (P[MS_ATOMIC] == AT_MAX ? atomicMax((int *)p, (int)v) : atomicMin((int *)p, (int)v));
        return true;
    }
#endif
    st_elem(G.p + d, T, ms_combine((int)P[MS_ATOMIC], (int)P[MS_DT], ld_elem(G.p + d, T), v));
    return true;
}

// ---- the scalar loops ---------------------------------------------------------------------------
// Rows in order; Elem: row-major; each write checked (act 0) before any is done (act 1).
PTO_DEV bool seq_instance(const i64 *P, const Mem &m, int act) {
    const i64 VR = P[MS_VR], VC = P[MS_VC];
    for (i64 r = 0; r < VR; ++r) {
        if (P[MS_MODE] == MSM_ROW) {
            u64 u;
            if (!ms_index(P, m, r, 0, &u)) return false;
            bool w;
            const u64 s = ms_remap(u, (u64)P[MS_CAP], (int)P[MS_OOB], (int)P[MS_BITS], &w);
            if (!w) continue;
            for (i64 c = 0; c < VC; ++c)
                if (!ms_store(P, m, act, r, c, s)) return false;
            continue;
        }
        for (i64 c = 0; c < VC; ++c) {
            u64 u;
            if (!ms_index(P, m, r, c, &u)) return false;
            bool w;
            const u64 s = ms_remap(u, (u64)P[MS_CAP], (int)P[MS_OOB], (int)P[MS_BITS], &w);
            if (w && !ms_store(P, m, act, r, c, s)) return false;
        }
    }
    return true;
}

#define MS_SETUP(inst)                                                   \
    const i64 *P = prm + (inst) * prm_stride;                            \
    u64 *rec = fault + (inst) * FAULT_WORDS;                             \
    PTO_MEM_OF(m, inst)

#ifdef PTO_HOST_SHIM
// Elem, no atomic, RowMajor src and index tiles of exactly VC columns inside UB, 4-byte
// indices, a power-of-two element size: position p is element p of both tiles.
static bool elem_linear_shape(const i64 *P, const Mem &m) {
    const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
    const u64 VR = (u64)P[MS_VR], VC = (u64)P[MS_VC], T = (u64)P[MS_T], N = VR * VC;
    if (P[MS_MODE] != MSM_ELEM || P[MS_ATOMIC] != AT_NONE || itd[TD_ESIZE] != 4) return false;
    if (std_[TD_KIND] != TK_ROW || itd[TD_KIND] != TK_ROW || (u64)std_[TD_COLS] != VC || (u64)itd[TD_COLS] != VC)
        return false;
    if (!(T == 1 || T == 2 || T == 4 || T == 8) || N == 0 || N >> 31) return false;
    const Arena &S = m.a[std_[TD_SPACE]], &I = m.a[itd[TD_SPACE]];
    return std_[TD_ADDR] >= 0 && itd[TD_ADDR] >= 0 && (u64)std_[TD_ADDR] + N * T <= (u64)S.size &&
           (u64)itd[TD_ADDR] + N * 4 <= (u64)I.size;
}

#endif

#ifdef PTO_HOST_SHIM
// Slot of position j of a linear Elem side (elem_linear_shape): its 4-byte index word at `ib`,
// cast to the side's width and remapped (ms_remap); `w`: written.
PTO_DEV u64 linear_slot(const i64 *P, const u8 *ib, u32 j, bool *w) {
    const u32 w32 = (u32)ld_at<4>(ib, (int)j);
    const u64 u = P[MS_BITS] == 64 && P[MS_IDX + TD_SIGNED] ? (u64)(i64)(int)w32 : (u64)w32;
    return ms_remap(u, (u64)P[MS_CAP], (int)P[MS_OOB], (int)P[MS_BITS], w);
}

// The scalar Elem loop in vector form, for the linear shape of a5_elem_fast: slots of every
// position first (pass 0 ORs the bad writes), then the stores in row-major order.
template <int TS, int OOB, int BITS>
static bool seq_elem_fast_t(const i64 *P, const Mem &m, u32 *os, u8 *oo) {
    const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
    const u32 N = (u32)(P[MS_VR] * P[MS_VC]);
    const u8 *sb = m.a[std_[TD_SPACE]].p + std_[TD_ADDR], *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    u8 *tab = m.a[SPACE_GM].p + P[MS_TBASE];
    const u64 cap = (u64)P[MS_CAP], gsz = (u64)m.a[SPACE_GM].size, tb = (u64)P[MS_TBASE];
    const bool tb_ok = gsz >= (u64)TS && tb <= gsz - TS;
    const u64 lim = tb_ok ? (gsz - TS - tb) / TS : 0;
    const bool sgn = itd[TD_SIGNED] != 0;
    enum { CH = 256 };
    u64 sl[CH];
    int on[CH];
    const bool keep = N <= (u32)CH;                // one chunk: pass 1 reuses pass 0's slots
    for (int pass = 0; pass < 2; ++pass)
        for (u32 p0 = 0; p0 < N; p0 += CH) {
            const int n = N - p0 < (u32)CH ? (int)(N - p0) : CH;
            int bad = 0;
            if (pass == 1 && keep) goto store;
            PTO_PRAGMA(omp simd reduction(| : bad))
            for (int l = 0; l < n; ++l) {
                const u32 w32 = (u32)ld_at<4>(ib, (int)(p0 + l));
                const u64 u = BITS == 32 ? (u64)w32 : (sgn ? (u64)(i64)(int)w32 : (u64)w32);
                int wr;
                const u64 sv = remap_t<OOB, BITS>(u, cap, &wr);
                sl[l] = sv;
                on[l] = wr;
                bad |= wr && (!tb_ok || sv > lim);
            }
            if (pass == 0) {
                if (bad) return false;
                if (os)
                    for (int l = 0; l < n; ++l) {
                        os[p0 + l] = (u32)sl[l];
                        oo[p0 + l] = (u8)on[l];
                    }
                continue;
            }
        store:
            for (int l = 0; l < n; ++l)
                if (on[l]) st_word<TS>(tab + sl[l] * TS, ld_word<TS>(sb + (u64)(p0 + l) * TS));
        }
    return true;
}

// `os`/`oo` (may be null): each position's slot and whether it is written, when it ran clean.
static bool seq_elem_fast(const i64 *P, const Mem &m, u32 *os = nullptr, u8 *oo = nullptr) {
    if (!elem_linear_shape(P, m)) return false;
    if (P[MS_OOB] == SOOB_WRAP && !P[MS_CAP]) return false;
#define SQ_FAST(TS, OOB) \
    return P[MS_BITS] == 32 ? seq_elem_fast_t<TS, OOB, 32>(P, m, os, oo) : seq_elem_fast_t<TS, OOB, 64>(P, m, os, oo);
#define SQ_FAST_T(OOB) \
    switch ((int)P[MS_T]) { case 1: { SQ_FAST(1, OOB) } case 2: { SQ_FAST(2, OOB) } \
                            case 4: { SQ_FAST(4, OOB) } default: { SQ_FAST(8, OOB) } }
    switch ((int)P[MS_OOB]) {
    case SOOB_SKIP: SQ_FAST_T(SOOB_SKIP)
    case SOOB_CLAMP: SQ_FAST_T(SOOB_CLAMP)
    case SOOB_WRAP: SQ_FAST_T(SOOB_WRAP)
    default: SQ_FAST_T(SOOB_UNDEFINED)
    }
#undef SQ_FAST_T
#undef SQ_FAST
}
#endif

extern "C" __global__ void mscatter_seq(PTO_KERNEL_PARAMS) {
    (void)pass;
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        MS_SETUP(inst);
#ifdef PTO_HOST_SHIM
        if (seq_elem_fast(P, m)) continue;
#endif
        if (!seq_instance(P, m, 0)) rec[0] = 0;
        else seq_instance(P, m, 1);
    }
}

// ---- A5 source-centric launch (Conflict::Default, atomics) ------------------------------------
// Warp `ty`, lanes lane0 .. lane0+W-1 (the host's lock-step call: W = 32, lane0 = 0; the GPU:
// W = 1, lane0 = threadIdx.x). Each step is a loop over the lanes, so lane l does step k before
// any lane does step k+1. Returns false (act 0) on a bad access.
template <int W>
PTO_DEV bool a5_source_warp(const i64 *P, const Mem &m, int act, u32 ty, u32 lane0) {
    const u32 VR = (u32)P[MS_VR], VC = (u32)P[MS_VC];
    const u64 cap = (u64)P[MS_CAP];
    const int oob = (int)P[MS_OOB];
    bool ok = true;
    if (P[MS_MODE] == MSM_ROW) {
        const u32 rw = row_warps(VR), wpr = warps_per_row(VR, VC);
        const u32 row_warp = ty % rw, col_seg = ty / rw, cstride = 32u * wpr;
        for (u32 row = row_warp; row < VR; row += rw) {
            u64 u;
            if (!ms_index(P, m, row, 0, &u)) return false;
            bool w;
            const u64 s = ms_remap(u, cap, oob, 32, &w);
            if (!w) continue;
            for (u32 col = 32u * col_seg + lane0; col < VC; col += cstride) {
                PTO_LANE_LOOP(l, W) {
                    const u32 c = col + (u32)l;
                    if (c < VC) ok &= ms_store(P, m, act, row, c, s);
                }
                if (!ok) return false;
            }
        }
        return true;
    }
    const u32 N = VR * VC, lt = 32u * elem_launch_warps(N);
    for (u32 base = 32u * ty + lane0; base < N; base += lt) {
        u64 u[W], s[W];
        bool w[W], in[W];
        PTO_LANE_LOOP(l, W) {                                    // index loads
            const u32 i = base + (u32)l;
            in[l] = i < N;
            if (in[l]) ok &= ms_index(P, m, i / VC, i % VC, &u[l]);
        }
        if (!ok) return false;
        PTO_LANE_LOOP(l, W) s[l] = in[l] ? ms_remap(u[l], cap, oob, 32, &w[l]) : 0;   // remap
        for (int l = 0; l < W; ++l) {                            // stores, lane order
            const u32 i = base + (u32)l;
            if (in[l] && w[l]) ok &= ms_store(P, m, act, i / VC, i % VC, s[l]);
        }
        if (!ok) return false;
    }
    return true;
}

#ifdef PTO_HOST_SHIM
// The whole Elem source-centric block in vector form, for the common shape: RowMajor src and
// index tiles of exactly VC columns (position p is element p of both), 4-byte indices, both
// regions inside UB. The same schedule (warp after warp, each warp's rounds, lanes in
// order); pass 0 ORs the lanes' bad writes, pass 1 stores. False: not this shape, or a bad
// write somewhere (the generic lanes then key it).
template <int TS, int OOB>
static bool a5_elem_fast_t(const i64 *P, const Mem &m, u32 *os, u8 *oo) {
    const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
    const u32 N = (u32)(P[MS_VR] * P[MS_VC]), lt = 32u * elem_launch_warps(N);
    const u8 *sb = m.a[std_[TD_SPACE]].p + std_[TD_ADDR], *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    u8 *tab = m.a[SPACE_GM].p + P[MS_TBASE];
    const u64 cap = (u64)P[MS_CAP] & 0xFFFFFFFFull, gsz = (u64)m.a[SPACE_GM].size, tb = (u64)P[MS_TBASE];
    const bool tb_ok = gsz >= (u64)TS && tb <= gsz - TS;
    const u64 lim = tb_ok ? (gsz - TS - tb) / TS : 0;          // largest slot inside GM
    const u32 cap32 = (u32)cap;
    // pass 0 keeps each round's slots (up to 64 rounds of 32 lanes); longer launches recompute
    enum { KEEP = 64 };
    u32 keep[KEEP][32];
    int keep_on[KEEP][32];
    for (int pass = 0; pass < 2; ++pass) {
        int bad = 0, round = 0;
        for (u32 w = 0; w * 32u < N && w * 32u < lt; ++w)
            for (u32 base = 32u * w; base < N; base += lt, ++round) {
                const int n = N - base < 32u ? (int)(N - base) : 32;
                u32 tmp[32];
                int tmp_on[32];
                u32 *sl = round < KEEP ? keep[round] : tmp;
                int *on = round < KEEP ? keep_on[round] : tmp_on;
                if (pass == 0 || round >= KEEP) {
                    PTO_LANE_LOOP(l, 32) {
                        const u32 u = l < n ? (u32)ld_at<4>(ib, (int)(base + l)) : 0u;
                        int wr;
                        sl[l] = remap_t<OOB, 32>(u, cap32, &wr);
                        on[l] = wr && l < n;
                    }
                }
                if (pass == 0) {
                    PTO_LANE_LOOP_OR(l, 32, bad) bad |= on[l] && (!tb_ok || (u64)sl[l] > lim);
                    if (os)
                        for (int l = 0; l < n; ++l) {
                            os[base + l] = sl[l];
                            oo[base + l] = (u8)on[l];
                        }
                    continue;
                }
                for (int l = 0; l < n; ++l)             // stores in lane order
                    if (on[l]) st_word<TS>(tab + (u64)sl[l] * TS, ld_word<TS>(sb + (u64)(base + l) * TS));
            }
        if (bad) return false;
    }
    return true;
}

static bool a5_elem_fast(const i64 *P, const Mem &m, u32 *os = nullptr, u8 *oo = nullptr) {
    if (!elem_linear_shape(P, m)) return false;
    if (P[MS_OOB] == SOOB_WRAP && !((u64)P[MS_CAP] & 0xFFFFFFFFull)) return false;
    const u64 T = (u64)P[MS_T];
#define MS_FAST(TS, OOB) return a5_elem_fast_t<TS, OOB>(P, m, os, oo);
#define MS_FAST_T(OOB) \
    switch ((int)T) { case 1: { MS_FAST(1, OOB) } case 2: { MS_FAST(2, OOB) } \
                      case 4: { MS_FAST(4, OOB) } default: { MS_FAST(8, OOB) } }
    switch ((int)P[MS_OOB]) {
    case SOOB_SKIP: MS_FAST_T(SOOB_SKIP)
    case SOOB_CLAMP: MS_FAST_T(SOOB_CLAMP)
    case SOOB_WRAP: MS_FAST_T(SOOB_WRAP)
    default: MS_FAST_T(SOOB_UNDEFINED)
    }
#undef MS_FAST_T
#undef MS_FAST
}
#endif

PTO_DEV u32 a5_source_warps(const i64 *P) {
    const u32 VR = (u32)P[MS_VR], VC = (u32)P[MS_VC];
    return P[MS_MODE] == MSM_ROW ? row_launch_warps(VR, VC) : elem_launch_warps(VR * VC);
}

// ---- one instance of an A5 launch --------------------------------------------------------------
// `Warp::run<W>(P, m, act, warp, lane0)` is the warp body (act 0 checks, 1 writes). The host's
// lock-step call runs every warp's checks, then every warp's writes; a GPU thread (or the
// host's per-thread launch) runs its own lane in `pass`.
#ifdef PTO_HOST_SHIM
#define MS_MEMBER inline                       // (PTO_DEV is `static` on the host)
#else
#define MS_MEMBER __device__ __forceinline__
#endif
struct SourceWarp {
    template <int W> MS_MEMBER bool run(const i64 *P, const Mem &m, int act, u32 w, u32 l0) const {
        return a5_source_warp<W>(P, m, act, w, l0);
    }
};

template <class Warp>
PTO_DEV bool a5_lockstep(const i64 *P, const Mem &m, u32 warps, Warp warp) {
    for (u32 w = 0; w < warps; ++w)
        if (!warp.template run<PTO_WARP>(P, m, 0, w, 0)) return false;
    for (u32 w = 0; w < warps; ++w) warp.template run<PTO_WARP>(P, m, 1, w, 0);
    return true;
}

template <class Warp>
PTO_DEV void a5_instance(const i64 *P, const Mem &m, u64 *rec, u32 warps, int pass, Warp warp) {
    if (pto_lockstep_block()) {
        if (!a5_lockstep(P, m, warps, warp)) rec[0] = 0;
        return;
    }
    if (threadIdx.x >= 32u || threadIdx.y >= warps) return;
    if (pass == 0) {
        if (!warp.template run<1>(P, m, 0, threadIdx.y, threadIdx.x)) rec[0] = 0;
    } else if (rec[0] == FAULT_NONE) {
        warp.template run<1>(P, m, 1, threadIdx.y, threadIdx.x);
    }
}

extern "C" __global__ void mscatter_a5_source(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        MS_SETUP(inst);
#ifdef PTO_HOST_SHIM
        if (pto_lockstep_block() && a5_elem_fast(P, m)) continue;   // the vector form of the block
#endif
        a5_instance(P, m, rec, a5_source_warps(P), pass, SourceWarp());
    }
}

// ---- A5 slot-centric launch (Conflict::Last, Atomic None) ---------------------------------------
// Thread tid owns slots tid, tid+1024, ...; for each, a reverse scan over the writers finds the
// last one whose remapped index is the slot; that thread alone writes it (Row: the whole row).
// Lock-step lanes: the 32 slots of a warp step scan together -- each candidate's index is
// loaded and remapped once for all lanes, then compared with every lane's slot.
template <int W>
PTO_DEV bool a5_last_warp(const i64 *P, const Mem &m, int act, u32 ty, u32 lane0) {
    const u32 VR = (u32)P[MS_VR], VC = (u32)P[MS_VC];
    const u64 cap = (u64)P[MS_CAP] & 0xFFFFFFFFull;
    const int oob = (int)P[MS_OOB];
    const bool row = P[MS_MODE] == MSM_ROW;
    const u32 count = row ? VR : VR * VC;
    bool ok = true;
    for (u64 s0 = 32ull * ty + lane0; s0 < cap; s0 += 1024ull) {
        i64 win[W];
        int todo = 0;
        PTO_LANE_LOOP(l, W) {
            win[l] = s0 + (u64)l < cap ? -1 : -2;       // -2: no such slot
            todo += win[l] == -1;
        }
        for (u32 k = 0; k < count && todo; ++k) {
            const u32 j = count - 1u - k;
            u64 u;
            if (!ms_index(P, m, row ? j : j / VC, row ? 0 : j % VC, &u)) return false;
            bool w;
            const u64 s = ms_remap(u, cap, oob, 32, &w);
            if (!w || s >= cap) continue;
            PTO_LANE_LOOP(l, W) {
                if (win[l] == -1 && s == s0 + (u64)l) {
                    win[l] = j;
                    --todo;
                }
            }
        }
        for (int l = 0; l < W; ++l) {
            if (win[l] < 0) continue;
            const u64 s = s0 + (u64)l;
            if (row) {
                for (u32 c = 0; c < VC; ++c) ok &= ms_store(P, m, act, win[l], c, s);
            } else {
                ok &= ms_store(P, m, act, (u32)win[l] / VC, (u32)win[l] % VC, s);
            }
        }
        if (!ok) return false;
    }
    return true;
}

PTO_DEV u32 a5_last_warps(const i64 *P) {
    const u64 cap = (u64)P[MS_CAP] & 0xFFFFFFFFull;
    if (!cap) return 1u;
    const u64 w = (cap + 31u) / 32u;
    return w > 32u ? 32u : (u32)w;
}

#ifdef PTO_HOST_SHIM
#include <algorithm>
#include <vector>
// SCAN_OWNER: every slot's last writer in one forward pass (owner[s] = the largest position
// whose remapped index is s), then each warp's lanes write their slots from it -- the winners
// the reverse scans find, without reading the index tile cap times. Returns false on a bad
// access (the reverse-scan path then keys it) or when the table is too large to index.
static bool a5_last_owner(const i64 *P, const Mem &m) {
    const u32 VR = (u32)P[MS_VR], VC = (u32)P[MS_VC];
    const u64 cap = (u64)P[MS_CAP] & 0xFFFFFFFFull;
    const bool row = P[MS_MODE] == MSM_ROW;
    const u32 count = row ? VR : VR * VC;
    if (cap > (1u << 26)) return false;
    if (!cap) return true;                            // the slot loop never runs
    static thread_local std::vector<i64> owner;       // -1 everywhere between calls
    static thread_local std::vector<u64> touched;
    if (owner.size() < cap) owner.resize(cap, -1);
    touched.clear();
    bool ok = true;
    if (elem_linear_shape(P, m)) {                    // the common shape: direct moves
        const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
        const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR], *sb = m.a[std_[TD_SPACE]].p + std_[TD_ADDR];
        for (u32 j = 0; j < count; ++j) {
            bool w;
            const u64 s2 = linear_slot(P, ib, j, &w);
            if (!w || s2 >= cap) continue;            // Skip, and Undefined past cap
            if (owner[s2] < 0) touched.push_back(s2);
            owner[s2] = j;
        }
        const int T = (int)P[MS_T];
        const u64 gsz = (u64)m.a[SPACE_GM].size, tb = (u64)P[MS_TBASE];
        const bool tb_ok = gsz >= (u64)T && tb <= gsz - T;
        const u64 lim = tb_ok ? (gsz - T - tb) / T : 0;
        for (usize t = 0; t < touched.size(); ++t) ok &= tb_ok && touched[t] <= lim;
        u8 *tab = m.a[SPACE_GM].p + tb;
        for (usize t = 0; t < touched.size() && ok; ++t)
            copy_elem(tab + touched[t] * T, sb + (u64)owner[touched[t]] * T, T);
        for (usize t = 0; t < touched.size(); ++t) owner[touched[t]] = -1;
        return ok;
    }
    for (u32 j = 0; j < count && ok; ++j) {
        u64 u;
        if (!ms_index(P, m, row ? j : j / VC, row ? 0 : j % VC, &u)) { ok = false; break; }
        bool w;
        const u64 s = ms_remap(u, cap, (int)P[MS_OOB], 32, &w);
        if (!w || s >= cap) continue;
        if (owner[s] < 0) touched.push_back(s);
        owner[s] = j;
    }
    // Elem slots are distinct addresses, so their order is free; Row rows may alias through the
    // 32-bit s*VC: the kernel's order (warp, its slot steps, lane), as the key s % 1024, s.
    if (ok && row)
        std::sort(touched.begin(), touched.end(), [](u64 x, u64 y) {
            return x % 1024 < y % 1024 || (x % 1024 == y % 1024 && x < y);
        });
    for (int act = 0; act < 2 && ok; ++act)
        for (usize t = 0; t < touched.size() && ok; ++t) {
            const u64 s = touched[t];
            const i64 j = owner[s];
            if (row) for (u32 c = 0; c < VC; ++c) ok &= ms_store(P, m, act, j, c, s);
            else ok = ms_store(P, m, act, (u32)j / VC, (u32)j % VC, s);
        }
    for (usize t = 0; t < touched.size(); ++t) owner[touched[t]] = -1;
    return ok;
}
#endif

struct LastWarp {
    template <int W> MS_MEMBER bool run(const i64 *P, const Mem &m, int act, u32 w, u32 l0) const {
        return a5_last_warp<W>(P, m, act, w, l0);
    }
};

extern "C" __global__ void mscatter_a5_last(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        MS_SETUP(inst);
#ifdef PTO_HOST_SHIM
        if (P[MS_LASTSCAN] == SCAN_OWNER && a5_last_owner(P, m)) continue;
#endif
        a5_instance(P, m, rec, a5_last_warps(P), pass, LastWarp());
    }
}

PTO_EXPORT(mscatter_seq)
PTO_EXPORT_WARPS(mscatter_a5_source)
PTO_EXPORT_WARPS(mscatter_a5_last)

// ---- the executing fuzz engine ------------------------------------------------------------------
// One instance = one index tile, generated in the kernel from (seed, instance) by the counter
// generators of counter_rng.cuh (plus GEN_EQUAL: one value per tile, and GEN_PERM: a rotation
// of 0..n-1 over the slots), written into a private copy of the UB image; both sides run on
// private copies of the table (the kernels above: the A5 launches as lock-step warps, the
// scalar loops as loops) and their bytes are compared. Output record per instance: word 0 the
// FZ_* bits, word 1 the first differing table byte (or ~0).
#include "counter_rng.cuh"

enum { GEN_EQUAL = 7, GEN_PERM = 8 };
enum { FZ_SEED = 2 * MS_WORDS, FZ_GEN, FZ_INST0, FZ_NIDX, FZ_GCAP, FZ_TBYTES, FZ_UBYTES, FZ_IDX_ADDR,
       FZ_KIND_A, FZ_KIND_B, FZ_IMAGE, FZ_WORDS };
enum { FK_SEQ = 0, FK_SOURCE = 1, FK_LAST = 2 };
enum { FZ_DIFF = 1, FZ_FAULT_A = 2, FZ_FAULT_B = 4, FZ_RACE_A = 8, FZ_RACE_B = 16 };
enum { FZ_NMAX = 4096, FZ_MAX_GM = 16384, FZ_MAX_UB = 65536, FZ_SCRATCH = 2 * FZ_MAX_GM + FZ_MAX_UB + 2 * FZ_MAX_GM };

PTO_DEV i64 fz_value(int gen, u64 key, u64 e, u64 cap) {
    if (gen == GEN_EQUAL) return rng_mulhi(rng_mix64(key + 1ull), cap & 0xFFFFFFFFull);
    if (gen == GEN_PERM) return (i64)((e + rng_mix64(key + 7ull)) % (cap ? cap : 1ull));
    return rng_value(gen, rng_word(key, e), key, cap);
}

// Run one side; `*have` set when its fast form filled `os`/`oo` (slots, written) on the way.
PTO_DEV bool fz_run(const i64 *P, int kind, const Mem &m, u32 *os = nullptr, u8 *oo = nullptr,
                    bool *have = nullptr) {
    if (kind == FK_SEQ) {
#ifdef PTO_HOST_SHIM
        if (seq_elem_fast(P, m, os, oo)) {
            if (have) *have = os != nullptr;
            return true;
        }
#endif
        if (!seq_instance(P, m, 0)) return false;
        seq_instance(P, m, 1);
        return true;
    }
    if (kind == FK_LAST) {
#ifdef PTO_HOST_SHIM
        if (P[MS_LASTSCAN] == SCAN_OWNER && a5_last_owner(P, m)) return true;
#endif
        return a5_lockstep(P, m, a5_last_warps(P), LastWarp());
    }
#ifdef PTO_HOST_SHIM
    if (a5_elem_fast(P, m, os, oo)) {
        if (have) *have = os != nullptr;
        return true;
    }
#endif
    return a5_lockstep(P, m, a5_source_warps(P), SourceWarp());
}

// Visit every table element a side may have written (its writers' addresses inside the local
// table): fn(element, thread). The union over both sides covers every byte either wrote.
template <class F>
PTO_DEV bool fz_touched(const i64 *P, const Mem &m, u64 nelem, F fn) {
    const u32 VR = (u32)P[MS_VR], VC = (u32)P[MS_VC];
#ifdef PTO_HOST_SHIM
    if (P[MS_MODE] == MSM_ELEM && elem_linear_shape(P, m) && !(P[MS_OOB] == SOOB_WRAP && !P[MS_CAP])) {
        const i64 *itd = P + MS_IDX;
        const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
        const u32 N = VR * VC, lt = 32u * elem_launch_warps(N);
        for (u32 j = 0; j < N; ++j) {
            bool w;
            const u64 sv = linear_slot(P, ib, j, &w);
            if (w && sv < nelem) fn(sv, j % lt);
        }
        return true;
    }
#endif
    const u64 T = (u64)P[MS_T], base = (u64)P[MS_TBASE];
    const bool row = P[MS_MODE] == MSM_ROW;
    const u32 rw = row_warps(VR), wpr = warps_per_row(VR, VC), lt = 32u * elem_launch_warps(VR * VC);
    const u32 n = row ? VR : VR * VC;
    for (u32 j = 0; j < n; ++j) {
        u64 u;
        if (!ms_index(P, m, row ? j : j / VC, row ? 0 : j % VC, &u)) return false;
        bool w;
        if (P[MS_OOB] == SOOB_WRAP && !P[MS_CAP]) return false;
        const u64 s = ms_remap(u, (u64)P[MS_CAP], (int)P[MS_OOB], (int)P[MS_BITS], &w);
        if (!w) continue;
        for (u32 c = 0; c < (row ? VC : 1u); ++c) {
            const u64 d = ms_dst(P, s, row ? c : 0);
            if (d < base || (d - base) % T || (d - base) / T >= nelem) continue;
            const u32 th = row ? (j % rw + rw * ((c / 32u) % wpr)) * 32u + c % 32u : j % lt;
            fn((d - base) / T, th);
        }
    }
    return true;
}

#ifdef PTO_HOST_SHIM
// Slot of every position of a linear Elem side (its remap; `on`: written inside the table).
static void fz_slots(const i64 *P, const Mem &m, u64 nelem, u32 *sl, u8 *on) {
    const i64 *itd = P + MS_IDX;
    const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    const u32 N = (u32)(P[MS_VR] * P[MS_VC]);
    for (u32 j = 0; j < N; ++j) {
        bool w;
        const u64 sv = linear_slot(P, ib, j, &w);
        on[j] = w && sv < nelem;
        sl[j] = (u32)sv;
    }
}

// One side's slots: the first byte where the tables differ there (kept in *first), then the
// image put back in both tables.
template <int TS>
static void fz_compare_restore(const u32 *__restrict sl, const u8 *__restrict on, u32 N, u8 *__restrict ga,
                               u8 *__restrict gb, const u8 *__restrict gm, u64 *first) {
    u64 f = *first;
    for (u32 j = 0; j < N; ++j) {
        if (!on[j]) continue;
        const u64 e = sl[j];
        const u64 x = ld_word<TS>(ga + e * TS), y = ld_word<TS>(gb + e * TS);
        if (x != y && e * TS < f)
            for (u64 k = 0; k < (u64)TS; ++k)
                if (((x ^ y) >> (8 * k)) & 0xFF) { f = e * TS + k; break; }
        const u64 v = ld_word<TS>(gm + e * TS);
        st_word<TS>(ga + e * TS, v);
        st_word<TS>(gb + e * TS, v);
    }
    *first = f;
}

// Two or more threads store to one element among a side's slots (thread of position j:
// j mod lt); `own` is all 0xFFFF before and after.
static bool fz_race_slots(const u32 *__restrict sl, const u8 *__restrict on, u32 N, u32 lt,
                          unsigned short *__restrict own) {
    bool race = false;
    for (u32 j = 0; j < N; ++j) {
        if (!on[j]) continue;
        const unsigned short th = (unsigned short)(N <= lt ? j : j % lt);
        const unsigned short o = own[sl[j]];
        race |= o != 0xFFFF && o != th;
        own[sl[j]] = th;
    }
    for (u32 j = 0; j < N; ++j) if (on[j]) own[sl[j]] = 0xFFFF;
    return race;
}

// Compare, note races and restore for two linear Elem sides (both tables at GM 0): the
// FZ_DIFF / FZ_RACE_* bits and the first differing byte. False: not this shape.
template <int TS>
static bool fz_elem_fast(const i64 *PA, const i64 *PB, const Mem &ma, const Mem &mb, int ka, int kb,
                         u64 code, u8 *ga, u8 *gb, const u8 *gm, unsigned short *own, u64 nelem,
                         u64 *code_out, u64 *first_out, u32 *sa, u8 *oa, bool ha, u32 *sb, u8 *ob, bool hb) {
    const u32 N = (u32)(PA[MS_VR] * PA[MS_VC]);
    if (N > FZ_NMAX || PA[MS_TBASE] || PB[MS_TBASE]) return false;
    if (!ha) fz_slots(PA, ma, nelem, sa, oa);      // (a faulted side: where it would have written)
    if (!hb) fz_slots(PB, mb, nelem, sb, ob);
    const u32 lt = 32u * elem_launch_warps(N);
    if (ka == FK_SOURCE && !(code & FZ_FAULT_A) && fz_race_slots(sa, oa, N, lt, own)) code |= FZ_RACE_A;
    if (kb == FK_SOURCE && !(code & FZ_FAULT_B) && fz_race_slots(sb, ob, N, lt, own)) code |= FZ_RACE_B;
    // Compare at each side's slots, then put the image back there. One pass per side: an
    // element side A already compared and restored compares equal when side B meets it.
    u64 first = ~0ull;
    const u64 tbytes = nelem * TS;
    if (tbytes <= 4ull * N * TS) {          // a small table: compare and copy it whole
        for (u64 b = 0; b < tbytes && first == ~0ull; b += 8) {
            const u64 k = tbytes - b < 8 ? tbytes - b : 8;
            u64 x = 0, y = 0;
            PTO_MEMCPY(&x, ga + b, k);
            PTO_MEMCPY(&y, gb + b, k);
            for (u64 q = 0; x != y && q < k; ++q)
                if (ga[b + q] != gb[b + q]) { first = b + q; break; }
        }
        PTO_MEMCPY(ga, gm, tbytes);
        PTO_MEMCPY(gb, gm, tbytes);
    } else {                                 // a large one: only where the sides wrote
        fz_compare_restore<TS>(sa, oa, N, ga, gb, gm, &first);
        fz_compare_restore<TS>(sb, ob, N, ga, gb, gm, &first);
    }
    if (first != ~0ull) code |= FZ_DIFF;
    *code_out = code;
    *first_out = first;
    return true;
}

static bool fz_fast_compare(const i64 *PA, const i64 *PB, const Mem &ma, const Mem &mb, int ka, int kb,
                            u64 code, u8 *ga, u8 *gb, const u8 *gm, unsigned short *own, u64 nelem,
                            u64 *code_out, u64 *first_out, u32 *sa, u8 *oa, bool ha, u32 *sb, u8 *ob, bool hb) {
    if (PA[MS_MODE] != MSM_ELEM || !elem_linear_shape(PA, ma) || !elem_linear_shape(PB, mb)) return false;
    if (ka == FK_LAST || kb == FK_LAST) return false;
#define FZ_CMP(TS) return fz_elem_fast<TS>(PA, PB, ma, mb, ka, kb, code, ga, gb, gm, own, nelem, code_out, \
                                           first_out, sa, oa, ha, sb, ob, hb);
    switch ((int)PA[MS_T]) {
    case 1: FZ_CMP(1)
    case 2: FZ_CMP(2)
    case 4: FZ_CMP(4)
    case 8: FZ_CMP(8)
    default: return false;
    }
#undef FZ_CMP
}
#endif

extern "C" __global__ void mscatter_fuzz(PTO_KERNEL_PARAMS) {
    (void)pass;
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
#ifdef PTO_HOST_SHIM
    // Host: each worker keeps its two tables (and the race owner array) across tiles and puts
    // back only the elements a tile touched; the tables stay in cache.
    // (heap-backed thread-locals: a dlopen'ed library has little static TLS)
    static thread_local std::vector<u8> work(2 * FZ_MAX_GM + FZ_MAX_UB);
    static thread_local std::vector<unsigned short> owners(FZ_MAX_GM, 0xFFFF);
    static thread_local i64 image_id = 0;
    static thread_local std::vector<u32> slots(2 * FZ_NMAX);
    static thread_local std::vector<u8> writes(2 * FZ_NMAX);
    u8 *ga = work.data(), *gb = ga + FZ_MAX_GM, *ubl = gb + FZ_MAX_GM;
    unsigned short *own = owners.data();
    u32 *sa = slots.data(), *sb = sa + FZ_NMAX;
    u8 *oa = writes.data(), *ob = oa + FZ_NMAX;
#endif
    PTO_FOR_EACH_INSTANCE(inst) {
        const i64 *P = prm + inst * prm_stride;
        u64 *rec = fault + inst * FAULT_WORDS;
        const i64 tb = P[FZ_TBYTES], ubn = P[FZ_UBYTES];
#ifndef PTO_HOST_SHIM
        // GPU: the per-instance work space is the L1 arena (a global buffer of at least
        // FZ_SCRATCH bytes per instance); the host launches this engine on native only.
        u8 *ga = l1 + inst * l1_stride, *gb = ga + FZ_MAX_GM, *ubl = gb + FZ_MAX_GM;
        unsigned short *own = (unsigned short *)(ubl + FZ_MAX_UB);
        i64 image_id = 0;
        if (l1_size < FZ_SCRATCH) { rec[0] = ~0ull - 1; continue; }
        for (i64 e = 0; e < FZ_MAX_GM; ++e) own[e] = 0xFFFF;
#endif
        if (tb > FZ_MAX_GM || ubn > FZ_MAX_UB || tb > gm_size || ubn > ub_size) { rec[0] = ~0ull - 1; continue; }
        if (image_id != P[FZ_IMAGE]) {           // a new campaign: fresh copies of its images
            PTO_MEMCPY(ga, gm, tb);
            PTO_MEMCPY(gb, gm, tb);
            PTO_MEMCPY(ubl, ub, ubn);
            for (i64 e = 0; e < FZ_MAX_GM; ++e) own[e] = 0xFFFF;
            image_id = P[FZ_IMAGE];
        }
        const u64 key = rng_key((u64)P[FZ_SEED], (u64)(P[FZ_INST0] + inst));
        const int gen = (int)P[FZ_GEN];
        const u64 gcap = (u64)P[FZ_GCAP];
        u8 *ib = ubl + P[FZ_IDX_ADDR];
        if (gen < GEN_EQUAL) {
            const u32 k1 = (u32)key, k2 = (u32)(key >> 32);
            u32 dup[4];
            i64 d64[4];
            rng_dup_values(key, gcap, d64);
            for (int j = 0; j < 4; ++j) dup[j] = (u32)d64[j];
            const i64 n = P[FZ_NIDX];
            PTO_PRAGMA(omp simd)
            for (i64 e = 0; e < n; ++e)
                st_at<4>(ib, (int)e, rng_value32(gen, k1, k2, (u64)e, dup, (u32)gcap));
        } else {
            for (i64 e = 0; e < P[FZ_NIDX]; ++e) st_at<4>(ib, (int)e, (u32)fz_value(gen, key, (u64)e, gcap));
        }
        Mem ma, mb;
        ma.a[SPACE_GM].p = ga; ma.a[SPACE_GM].size = tb;
        mb.a[SPACE_GM].p = gb; mb.a[SPACE_GM].size = tb;
        ma.a[SPACE_UB].p = mb.a[SPACE_UB].p = ubl;
        ma.a[SPACE_UB].size = mb.a[SPACE_UB].size = ubn;
        ma.a[SPACE_L1].p = mb.a[SPACE_L1].p = l1;
        ma.a[SPACE_L1].size = mb.a[SPACE_L1].size = 0;
        const i64 *PA = P, *PB = P + MS_WORDS;
        const int ka = (int)P[FZ_KIND_A], kb = (int)P[FZ_KIND_B];
        u64 code = 0;
#ifdef PTO_HOST_SHIM
        const bool fit = P[FZ_NIDX] <= FZ_NMAX;
        bool ha = false, hb = false;
        if (!fz_run(PA, ka, ma, fit ? sa : nullptr, oa, &ha)) code |= FZ_FAULT_A, ha = false;
        if (!fz_run(PB, kb, mb, fit ? sb : nullptr, ob, &hb)) code |= FZ_FAULT_B, hb = false;
#else
        if (!fz_run(PA, ka, ma)) code |= FZ_FAULT_A;
        if (!fz_run(PB, kb, mb)) code |= FZ_FAULT_B;
#endif
        const u64 T = (u64)PA[MS_T], nelem = (u64)tb / T;
#ifdef PTO_HOST_SHIM
        if (fz_fast_compare(PA, PB, ma, mb, ka, kb, code, ga, gb, gm, own, nelem, &rec[0], &rec[1],
                            sa, oa, ha, sb, ob, hb))
            continue;
#endif
        // compare where either side may have written; then note races; then restore
        u64 first = ~0ull;
        const int Ti = (int)T;
        auto cmp = [&](u64 e, u32) {
            if (e * T >= first || ld_elem(ga + e * T, Ti) == ld_elem(gb + e * T, Ti)) return;
            for (u64 k = 0; k < T; ++k)
                if (ga[e * T + k] != gb[e * T + k]) { first = e * T + k; return; }
        };
        bool race = false;
        auto note = [&](u64 e, u32 th) {
            if (own[e] == 0xFFFF) own[e] = (unsigned short)th;
            else if (own[e] != th) race = true;
        };
        auto clear = [&](u64 e, u32) {
            copy_elem(ga + e * T, gm + e * T, Ti);
            copy_elem(gb + e * T, gm + e * T, Ti);
        };
        fz_touched(PA, ma, nelem, cmp);
        fz_touched(PB, mb, nelem, cmp);
        if (ka == FK_SOURCE && !(code & FZ_FAULT_A)) {
            fz_touched(PA, ma, nelem, note);
            if (race) code |= FZ_RACE_A;
            fz_touched(PA, ma, nelem, [&](u64 e, u32) { own[e] = 0xFFFF; });
        }
        race = false;
        if (kb == FK_SOURCE && !(code & FZ_FAULT_B)) {
            fz_touched(PB, mb, nelem, note);
            if (race) code |= FZ_RACE_B;
            fz_touched(PB, mb, nelem, [&](u64 e, u32) { own[e] = 0xFFFF; });
        }
        fz_touched(PA, ma, nelem, clear);
        fz_touched(PB, mb, nelem, clear);
        if (first != ~0ull) code |= FZ_DIFF;
        rec[0] = code;
        rec[1] = first;
    }
}

PTO_EXPORT(mscatter_fuzz)
