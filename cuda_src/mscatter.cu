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

#include "mscatter_params.cuh"
#include "rules_fast.cuh"

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

// ms_store over columns c0 .. c0+n-1 of source row r into `slot`, in column order: a Row
// write's run (the scalar loop's whole row, an A5 warp's lanes of one row). On the host, for
// source tiles whose addresses are affine in the column (RowMajor, ColMajor), both addresses
// step instead of being recomputed per element (Row campaigns spent a third of their time in
// ms_store); the same checks and stores, in the same order.
PTO_DEV bool ms_store_run(const i64 *P, const Mem &m, int act, i64 r, i64 c0, i64 n, u64 slot) {
#ifdef PTO_HOST_SHIM
    const i64 *std_ = P + MS_SRC;
    const int kind = (int)std_[TD_KIND];
    if (P[MS_MODE] == MSM_ROW && (kind == TK_ROW || kind == TK_COL) && n > 1) {
        const Arena &S = m.a[std_[TD_SPACE]], &G = m.a[SPACE_GM];
        const int T = (int)P[MS_T];
        const u64 sa = tile_addr(std_, r, c0), ss = tile_addr(std_, r, c0 + 1) - sa;
        const u64 d = ms_dst(P, slot, c0), ds = ms_dst(P, slot, c0 + 1) - d;
        if (act == 0) {
            bool ok = true;
            for (i64 k = 0; k < n; ++k) ok &= arena_ok(S, sa + (u64)k * ss, T) && arena_ok(G, d + (u64)k * ds, T);
            return ok;
        }
        const int op = (int)P[MS_ATOMIC], dt = (int)P[MS_DT];
        for (i64 k = 0; k < n; ++k) {
            const u64 v = ld_elem(S.p + sa + (u64)k * ss, T);
            u8 *g = G.p + d + (u64)k * ds;
            st_elem(g, T, op == AT_NONE ? v : ms_combine(op, dt, ld_elem(g, T), v));
        }
        return true;
    }
#endif
    bool ok = true;
    for (i64 k = 0; k < n; ++k) ok &= ms_store(P, m, act, r, c0 + k, slot);
    return ok;
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
            if (!ms_store_run(P, m, act, r, 0, VC, s)) return false;
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

#ifdef PTO_HOST_SHIM
// Elem, RowMajor src and index tiles of exactly VC columns inside UB, 4-byte indices, a
// power-of-two element size: position p is element p of both tiles. `atomics`: an atomic op
// may be named too (the fast store kernels combine; A5 Last's owner pass does not).
static bool elem_linear_shape(const i64 *P, const Mem &m, bool atomics = false) {
    const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
    const u64 VR = (u64)P[MS_VR], VC = (u64)P[MS_VC], T = (u64)P[MS_T], N = VR * VC;
    if (P[MS_MODE] != MSM_ELEM || (!atomics && P[MS_ATOMIC] != AT_NONE) || itd[TD_ESIZE] != 4) return false;
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

// The store pass of the Elem fast kernels: source element l (of `src`) to byte `off[l]` of
// `tab`, in order; an atomic op combines with the old value. A skipped lane's offset leads to
// a sink (sink_off), folded in by the vector pass before: no branch follows the random indices,
// and this loop is one load and one store a lane (a select per lane here ran it 1.6x longer).
// Unrolled: rolled, the loop's own branch, not the stores, set its pace (1.6x longer).
template <int TS>
static void fast_stores(u8 *tab, const u64 *off, int n, const u8 *src, int op, int dt) {
    if (op == AT_NONE)
#pragma GCC unroll 8
        for (int l = 0; l < n; ++l) st_word<TS>((u8 *)((u64)tab + off[l]), ld_word<TS>(src + (u64)l * TS));
    else
        for (int l = 0; l < n; ++l) {
            u8 *d = (u8 *)((u64)tab + off[l]);
            st_word<TS>(d, ms_combine(op, dt, ld_word<TS>(d), ld_word<TS>(src + (u64)l * TS)));
        }
}
// The offset from `tab` that fast_stores turns back into `sink` (as integers: no pointer is
// made from a difference of unrelated objects).
static u64 sink_off(const u8 *tab, const u8 *sink) { return (u64)sink - (u64)tab; }
// The largest slot of T-byte elements from table base `tb` that lies inside a GM of `gsz`
// bytes, into *lim; false when not even slot 0 does.
static bool gm_slot_limit(u64 gsz, u64 tb, u64 T, u64 *lim) {
    const bool ok = gsz >= T && tb <= gsz - T;
    *lim = ok ? (gsz - T - tb) / T : 0;
    return ok;
}

// The scalar Elem loop in vector form, for the linear shape of a5_elem_fast: slots of every
// position first (pass 0 ORs the bad writes), then the stores in row-major order.
// U: the lanes' type. u32 where the cast cannot matter (seq_elem_fast: a capacity below 2^31
// and an unsigned index, or Skip/Clamp, under which a sign-extended negative index and its
// 32-bit pattern both land at or past the capacity): twice the lanes per vector.
template <int TS, int OOB, int BITS, class U = u64>
static bool seq_elem_fast_t(const i64 *P, const Mem &m) {
    const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
    const u32 N = (u32)(P[MS_VR] * P[MS_VC]);
    const u8 *sb = m.a[std_[TD_SPACE]].p + std_[TD_ADDR], *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    u8 *tab = m.a[SPACE_GM].p + P[MS_TBASE];
    const u64 cap = (u64)P[MS_CAP];
    u64 lim;
    const bool tb_ok = gm_slot_limit((u64)m.a[SPACE_GM].size, (u64)P[MS_TBASE], TS, &lim);
    const bool sgn = itd[TD_SIGNED] != 0;
    alignas(8) u8 sink[8] = {0};
    const u64 so = sink_off(tab, sink);
    enum { CH = 256 };
    u64 off[CH];
    const bool keep = N <= (u32)CH;                // one chunk: pass 1 reuses pass 0's offsets
    for (int pass = 0; pass < 2; ++pass)
        for (u32 p0 = 0; p0 < N; p0 += CH) {
            const int n = N - p0 < (u32)CH ? (int)(N - p0) : CH;
            int bad = 0;
            if (pass == 1 && keep) goto store;
            // (no `omp simd reduction`: GCC kept its lanes' `bad` on the stack, a load and a
            // store an iteration; plain, the loop vectorises with `bad` in a register)
            for (int l = 0; l < n; ++l) {
                const u32 w32 = (u32)ld_word<4>(ib + ((u64)p0 + (u64)l) * 4);   // (not ld_at's int: a gather)
                const U u = sizeof(U) == 4 || BITS == 32 ? (U)w32 : (U)(sgn ? (u64)(i64)(int)w32 : (u64)w32);
                int wr;
                const U sv = remap_t<OOB, BITS>(u, (U)cap, &wr);
                off[l] = wr ? (u64)sv * TS : so;
                bad |= wr && (!tb_ok || (u64)sv > lim);
            }
            if (pass == 0) {
                if (bad) return false;
                continue;
            }
        store:
            fast_stores<TS>(tab, off, n, sb + (u64)p0 * TS, (int)P[MS_ATOMIC], (int)P[MS_DT]);
        }
    return true;
}

static bool seq_elem_fast(const i64 *P, const Mem &m) {
    if (!elem_linear_shape(P, m, true)) return false;
    if (P[MS_OOB] == SOOB_WRAP && !P[MS_CAP]) return false;
    const bool narrow = P[MS_CAP] >= 1 && (u64)P[MS_CAP] < (1ull << 31) &&
                        (P[MS_BITS] == 32 || !P[MS_IDX + TD_SIGNED] || P[MS_OOB] == SOOB_SKIP || P[MS_OOB] == SOOB_CLAMP);
#define SQ_FAST(TS, OOB) \
    if (narrow) return P[MS_BITS] == 32 ? seq_elem_fast_t<TS, OOB, 32, u32>(P, m) \
                                        : seq_elem_fast_t<TS, OOB, 64, u32>(P, m); \
    return P[MS_BITS] == 32 ? seq_elem_fast_t<TS, OOB, 32>(P, m) : seq_elem_fast_t<TS, OOB, 64>(P, m);
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

extern "C" __global__ void __launch_bounds__(1024) mscatter_seq(PTO_KERNEL_PARAMS) {
    (void)pass;
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
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
                ok &= ms_store_run(P, m, act, row, col, (i64)(VC - col < (u32)W ? VC - col : (u32)W), s);
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
static bool a5_elem_fast_t(const i64 *P, const Mem &m) {
    const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
    const u32 N = (u32)(P[MS_VR] * P[MS_VC]), lt = 32u * elem_launch_warps(N);
    const u8 *sb = m.a[std_[TD_SPACE]].p + std_[TD_ADDR], *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    u8 *tab = m.a[SPACE_GM].p + P[MS_TBASE];
    const u64 cap = (u64)P[MS_CAP] & 0xFFFFFFFFull;
    u64 lim;                                                   // largest slot inside GM
    const bool tb_ok = gm_slot_limit((u64)m.a[SPACE_GM].size, (u64)P[MS_TBASE], TS, &lim);
    const u32 cap32 = (u32)cap;
    alignas(8) u8 sink[8] = {0};
    const u64 so = sink_off(tab, sink);
    const int op = (int)P[MS_ATOMIC], dt = (int)P[MS_DT];
    // One round per warp (N <= lt): the rounds are the positions in order, their offsets one
    // pass and their stores one run. Else pass 0 keeps each round's store offsets (up to 64
    // rounds of 32 lanes; longer launches recompute) and pass 1 stores round by round.
    enum { KEEP = 64 };
    u64 keep[KEEP][32];
    const bool one_run = N <= lt && N <= 32u * KEEP;
    if (one_run) {
        // (warp w's one round is lanes 32w .. 32w+31 of position order: every lane of the
        // launch in one loop, its rounds' offsets where the rounds would keep them)
        u64 *off = &keep[0][0];
        int bad = 0;
        for (u32 l = 0; l < N; ++l) {
            int wr;
            const u32 sv = remap_t<OOB, 32>((u32)ld_word<4>(ib + (u64)l * 4), cap32, &wr);
            off[l] = wr ? (u64)sv * TS : so;
            bad |= wr && (!tb_ok || (u64)sv > lim);
        }
        if (bad) return false;
        fast_stores<TS>(tab, off, (int)N, sb, op, dt);
        return true;
    }
    for (int pass = 0; pass < 2; ++pass) {
        int bad = 0, round = 0;
        for (u32 w = 0; w * 32u < N && w * 32u < lt; ++w)
            for (u32 base = 32u * w; base < N; base += lt, ++round) {
                const int n = N - base < 32u ? (int)(N - base) : 32;
                u64 tmp[32];
                u64 *off = round < KEEP ? keep[round] : tmp;
                if (pass == 0 || round >= KEEP) {
                    int rb = 0;
                    PTO_LANE_LOOP_OR(l, 32, rb) {
                        const u32 u = l < n ? (u32)ld_word<4>(ib + ((u64)base + (u64)l) * 4) : 0u;
                        int wr;
                        const u32 sv = remap_t<OOB, 32>(u, cap32, &wr);
                        const bool on = wr && l < n;
                        off[l] = on ? (u64)sv * TS : so;
                        rb |= on && (!tb_ok || (u64)sv > lim);
                    }
                    bad |= rb;
                }
                if (pass == 0) continue;
                fast_stores<TS>(tab, off, n, sb + (u64)base * TS, op, dt);   // lane order
            }
        if (bad) return false;
    }
    return true;
}

static bool a5_elem_fast(const i64 *P, const Mem &m) {
    if (!elem_linear_shape(P, m, true)) return false;
    if (P[MS_OOB] == SOOB_WRAP && !((u64)P[MS_CAP] & 0xFFFFFFFFull)) return false;
    const u64 T = (u64)P[MS_T];
#define MS_FAST(TS, OOB) return a5_elem_fast_t<TS, OOB>(P, m);
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

extern "C" __global__ void __launch_bounds__(1024) mscatter_a5_source(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
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
// The slot each position of a linear Elem block claims under Conflict::Last (A5: 32-bit
// remap), or `cap` where it writes nothing (Skip, Undefined past cap); the policy a template
// argument, so the loop has no branch on the random indices (and vectorises).
template <int OOB>
static void last_slots_t(const u8 *ib, u32 count, u32 cap, u64 *tl) {
    PTO_PRAGMA(omp simd)
    for (u32 j = 0; j < count; ++j) {
        int w;
        // (the address as u64: ld_at's int index, sign-extended, made every load a gather)
        const u32 s = remap_t<OOB, 32>((u32)ld_word<4>(ib + (u64)j * 4), cap, &w);
        tl[j] = w && s < cap ? s : cap;
    }
}
static void last_slots(const i64 *P, const u8 *ib, u32 count, u32 cap, u64 *tl) {
    if (P[MS_BITS] != 32 && P[MS_IDX + TD_SIGNED]) {    // (a hybrid block's 64-bit cast of a signed index)
        for (u32 j = 0; j < count; ++j) {
            bool w;
            const u64 s = linear_slot(P, ib, j, &w);
            tl[j] = w && s < cap ? s : cap;
        }
        return;
    }
    switch ((int)P[MS_OOB]) {
    case SOOB_SKIP: return last_slots_t<SOOB_SKIP>(ib, count, cap, tl);
    case SOOB_CLAMP: return last_slots_t<SOOB_CLAMP>(ib, count, cap, tl);
    case SOOB_WRAP: return last_slots_t<SOOB_WRAP>(ib, count, cap, tl);
    default: return last_slots_t<SOOB_UNDEFINED>(ib, count, cap, tl);
    }
}

// The moves of a linear Elem block under SCAN_OWNER, slot by slot (each slot a lane of the
// kernel: the winner its reverse scan finds, own[s], or none), where the slots are no more
// than the positions. Nothing is moved if an owned slot lies outside GM; `own` left at -1.
template <int TS>
static bool last_slot_moves_t(u8 *tab, const u8 *sb, i64 *__restrict own, u64 cap, bool tb_ok, u64 lim) {
    u64 bad = 0;
    for (u64 s = 0; s < cap; ++s) bad |= (u64)(own[s] >= 0) & (u64)(!tb_ok || s > lim);
    alignas(8) u8 sink[8] = {0};
    const u64 so = sink_off(tab, sink);
    // (a slot nobody owns stores to the sink: no branch on the random ownership)
    if (!bad)
#pragma GCC unroll 8
        for (u64 s = 0; s < cap; ++s) {
            const i64 o = own[s];
            const bool w = o >= 0;
            st_word<TS>((u8 *)((u64)tab + select_nb(w, s * TS, so)), ld_word<TS>(sb + select_nb(w, (u64)o, 0) * TS));
        }
    for (u64 s = 0; s < cap; ++s) own[s] = -1;
    return !bad;
}
static bool last_slot_moves(int T, u8 *tab, const u8 *sb, i64 *own, u64 cap, bool tb_ok, u64 lim) {
    switch (T) {
    case 1: return last_slot_moves_t<1>(tab, sb, own, cap, tb_ok, lim);
    case 2: return last_slot_moves_t<2>(tab, sb, own, cap, tb_ok, lim);
    case 4: return last_slot_moves_t<4>(tab, sb, own, cap, tb_ok, lim);
    default: return last_slot_moves_t<8>(tab, sb, own, cap, tb_ok, lim);
    }
}

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
    struct Scratch { std::vector<i64> owner; std::vector<u64> touched; };
    static thread_local Scratch scratch;              // (one TLS lookup a call)
    Scratch &sc = scratch;
    std::vector<i64> &owner = sc.owner;               // -1 everywhere between calls
    std::vector<u64> &touched = sc.touched;
    if (owner.size() < cap + 1) owner.resize(cap + 1, -1);
    bool ok = true;
    if (elem_linear_shape(P, m)) {                    // the common shape: direct moves
        const i64 *std_ = P + MS_SRC, *itd = P + MS_IDX;
        const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR], *sb = m.a[std_[TD_SPACE]].p + std_[TD_ADDR];
        // each slot's last writer, in two passes without a branch on random slots: every
        // position stores itself as its slot's owner (an unwritten one, Skip or Undefined past
        // cap, into the spare slot `cap`), then each slot moves its owner's element (a table
        // no larger than the tile), or a position that is still its slot's owner is listed
        if (touched.size() < count) touched.resize(count);
        u64 *tl = touched.data();
        i64 *own = owner.data();
        const int T = (int)P[MS_T];
        u64 lim;                                      // (the largest slot inside GM)
        const bool tb_ok = gm_slot_limit((u64)m.a[SPACE_GM].size, (u64)P[MS_TBASE], (u64)T, &lim);
        u8 *tab = m.a[SPACE_GM].p + P[MS_TBASE];
        last_slots(P, ib, count, (u32)cap, tl);
#pragma GCC unroll 8
        for (u32 j = 0; j < count; ++j) own[tl[j]] = j;
        own[cap] = -1;
        if (cap <= count) return last_slot_moves(T, tab, sb, own, cap, tb_ok, lim);
        usize nt = 0;
        for (u32 j = 0; j < count; ++j) {
            const u64 at = tl[j];
            tl[nt] = at;
            nt += (at != cap) & (own[at] == (i64)j);
        }
        for (usize t = 0; t < nt; ++t) ok &= tb_ok && tl[t] <= lim;
        for (usize t = 0; t < nt && ok; ++t) copy_elem(tab + tl[t] * T, sb + (u64)own[tl[t]] * T, T);
        for (usize t = 0; t < nt; ++t) own[tl[t]] = -1;
        return ok;
    }
    touched.clear();                                  // (the linear shape only grows it: no refill a call)
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

extern "C" __global__ void __launch_bounds__(1024) mscatter_a5_last(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
#ifdef PTO_HOST_SHIM
        if (P[MS_LASTSCAN] == SCAN_OWNER && a5_last_owner(P, m)) continue;
#endif
        a5_instance(P, m, rec, a5_last_warps(P), pass, LastWarp());
    }
}

PTO_EXPORT(mscatter_seq)
PTO_EXPORT_WARPS(mscatter_a5_source)
PTO_EXPORT_WARPS(mscatter_a5_last)

// the executing fuzz engine (host only): it runs the loops above
#include "mscatter_fuzz.cuh"
