// mgather.cu — MGATHER into a Vec (UB) tile on every target, and the CPU simulator's generic
// routine (any destination arena) (mgather.md §3-§6).
//
//   kernel                    mirrors                                   launch per instance
//   mgather_a5_row            A5 simt_mgather_row_kernel (§5.3)         dim3(32, rowWarps*warpsPerRow), 2 passes
//   mgather_a5_elem           A5 simt_mgather_elem_kernel (§5.4)        dim3(32, clamp(ceil(VR*VC/32),1,32)), 2 passes
//   mgather_a5_scalar         A5 MGatherScalarImpl, static 1x1 (§5.5)   dim3(1)
//   mgather_a2a3_row_nd       A2/A3 MGatherRowImpl (§6.3)               dim3(1), scalar loop
//   mgather_a2a3_elem_nd      A2/A3 MGatherElemImpl (§6.5)              dim3(1), scalar loop
//   mgather_a2a3_row_nz       A2/A3 MGatherRowNzImpl (§6.4)             dim3(1), scalar loop
//   mgather_a2a3_elem_nz      A2/A3 MGatherElemNzImpl (§6.6)            dim3(1), scalar loop
//   mgather_cpu               CPU simulator MGATHER_IMPL (§4)           dim3(1), scalar loop
//
// The semantics are those of ptogpu/semantics/mgather.py and mgather_nz.py, byte for byte,
// including which fault is reported first. Host-side decisions (capacity, index width, the
// Row source rule, whether the A2/A3 tail fill applies) arrive in the parameter block.
#include "common.cuh"

// Parameter block of one instance (int64 words). The Python side reads these names from this
// file, so the order here is the only definition.
enum {
    MG_VR = 0, MG_VC, MG_OOB, MG_BITS, MG_CAP, MG_T, MG_TBASE,
    MG_S0, MG_S1, MG_S2, MG_S3, MG_S4, MG_ST0, MG_ST1, MG_ST2, MG_ST3, MG_ST4,
    MG_MODE, MG_ROWSRC, MG_TAIL, MG_DST_NBYTES,
    MG_DST, MG_IDX = MG_DST + TD_WORDS, MG_WORDS = MG_IDX + TD_WORDS
};
enum { MODE_ROW = 0, MODE_ELEM = 1 };
// Row source address rule: CPU row*s3 + c*s4, A2/A3 row*s3 + c, A5 (u32)(row*VC) + c.
enum { ROWSRC_STRIDES = 0, ROWSRC_STRIDE3 = 1, ROWSRC_VALID_COLS = 2 };

#define MG_INSTANCE_SETUP(inst)                        \
    const i64 *P = prm + (inst) * prm_stride;          \
    u64 *rec = fault + (inst) * FAULT_WORDS;           \
    PTO_MEM_OF(m, inst)

// Read the raw index at byte `addr` of the index arena; false if the read leaves the arena.
PTO_DEV bool read_index(const Mem &m, const i64 *itd, u64 addr, u64 *raw) {
    const Arena &a = m.a[itd[TD_SPACE]];
    const int n = (int)itd[TD_ESIZE];
    if (!arena_ok(a, addr, n)) return false;
    *raw = load_index(a.p + addr, n, (int)itd[TD_SIGNED]);
    return true;
}

// Move one element: table[src] (or 0) -> dst, or check both addresses, per `act`.
PTO_DEV void move_one(const i64 *P, const Mem &m, u64 *rec, int act, bool rd, u64 src, u64 dst,
                      u64 lin, u64 u) {
    const int T = (int)P[MG_T];
    const Arena &G = m.a[SPACE_GM];
    const Arena &D = m.a[P[MG_DST + TD_SPACE]];
    if (act == ACT_WRITE) {
        if (rd) copy_elem(D.p + dst, G.p + src, T);
        else zero_elem(D.p + dst, T);
        return;
    }
    if (rd && !arena_ok(G, src, T)) on_bad(rec, act, fault_key(PHASE_TABLE, lin), src, u);
    if (!arena_ok(D, dst, T)) on_bad(rec, act, fault_key(PHASE_DST, lin), dst, u);
}

// Elem mode, element (r, c): index at the index tile's layout offset, flat table read.
PTO_DEV void elem_one(const i64 *P, const Mem &m, u64 *rec, int act, i64 r, i64 c) {
    const i64 *dtd = P + MG_DST, *itd = P + MG_IDX;
    const u64 lin = (u64)(r * P[MG_VC] + c);
    const u64 iaddr = tile_addr(itd, r, c);
    u64 raw;
    if (!read_index(m, itd, iaddr, &raw)) {
        on_bad(rec, act, fault_key(PHASE_INDEX, lin), iaddr, 0);
        return;
    }
    const int bits = (int)P[MG_BITS];
    const u64 u = cast_index(raw, bits);
    bool rd;
    const u64 safe = remap(u, (u64)P[MG_CAP], (int)P[MG_OOB], bits, &rd);
    const u64 src = (u64)P[MG_TBASE] + safe * (u64)P[MG_T];
    move_one(P, m, rec, act, rd, src, tile_addr(dtd, r, c), lin, u);
}

// Row mode, row r: read the flat index, remap; returns false when the index read faults.
PTO_DEV bool row_index(const i64 *P, const Mem &m, u64 *rec, int act, i64 r, u64 *u, u64 *safe,
                       bool *rd) {
    const i64 *itd = P + MG_IDX;
    const u64 iaddr = (u64)itd[TD_ADDR] + (u64)(r * itd[TD_ESIZE]);
    u64 raw;
    if (!read_index(m, itd, iaddr, &raw)) {
        on_bad(rec, act, fault_key(PHASE_INDEX, (u64)r), iaddr, 0);
        return false;
    }
    const int bits = (int)P[MG_BITS];
    *u = cast_index(raw, bits);
    *safe = remap(*u, (u64)P[MG_CAP], (int)P[MG_OOB], bits, rd);
    return true;
}

// Row mode, source element offset of (safe row, c) per the target's rule.
PTO_DEV u64 row_src(const i64 *P, u64 safe, i64 c) {
    u64 off;
    switch ((int)P[MG_ROWSRC]) {
    case ROWSRC_STRIDES: off = safe * (u64)P[MG_ST3] + (u64)c * (u64)P[MG_ST4]; break;
    case ROWSRC_STRIDE3: off = safe * (u64)P[MG_ST3] + (u64)c; break;
    default: off = ((safe * (u64)P[MG_VC]) & 0xFFFFFFFFull) + (u64)c; break;
    }
    return (u64)P[MG_TBASE] + off * (u64)P[MG_T];
}

// ---- A5 SIMT ------------------------------------------------------------------------------

// Whole-block threads: launched with a block of ONE thread (the host shim's fast mode), a
// SIMT kernel below does the work of its whole block: thread 0 walks the union of every
// thread's iterations. That is the same set of element moves (no two threads of a block write
// the same byte, and no thread reads what another writes), and pass 0 combines faults by
// minimum key, so the bytes and the fault record are the same. On the GPU the kernels are
// always launched with the block of the hardware launch.
// Host: a local copy of the parameter block, so byte stores into the arenas cannot alias it
// and the compiler keeps it in registers. Device: read in place (one copy per thread would
// cost more loads than the thread's own element moves).
#ifdef PTO_HOST_SHIM
#define MG_COPY_PARAMS(L, P)                     \
    i64 L[MG_WORDS];                             \
    for (int w_ = 0; w_ < MG_WORDS; ++w_) L[w_] = P[w_]
#else
#define MG_COPY_PARAMS(L, P) const i64 *L = P
#endif

// ---- whole-block fast paths ------------------------------------------------------------
// A whole-block thread owns its instance, so it may check and write in one pass, like the
// scalar kernels: gather into a private buffer while checking, and store the buffer only when
// nothing faulted. The fast paths take the common shapes (ND tiles in an on-chip arena, a
// 4-byte index, 32-bit casts, at most FAST_MAX elements) and return false for anything else,
// or on any fault, leaving the instance untouched; the generic path then runs (and finds the
// same fault the two-pass SIMT execution reports).
enum { FAST_MAX = 4096 };

// Byte range [addr, addr + n) of a tile's valid region inside its arena? (ND kinds only.)
PTO_DEV bool fast_tile_ok(const Mem &m, const i64 *td, i64 vr, i64 vc) {
    const int k = (int)td[TD_KIND];
    if ((k != TK_ROW && k != TK_COL) || td[TD_SPACE] == SPACE_GM) return false;
    const i64 last = tile_offset(td, vr - 1, vc - 1);
    return arena_ok(m.a[td[TD_SPACE]], (u64)td[TD_ADDR], (last + 1) * td[TD_ESIZE]);
}

// Elem, Clamp, 4-byte elements, row-major index tile: a loop the compiler vectorises (a
// gather). Indices `idx[r*ic + c]`, table words `tab[0..lim]`; an out-of-range read comes from
// tab[0] instead and makes the result "bad" (the caller then writes nothing). Returns bad.
// On x86-64 it is compiled twice, for the baseline and for AVX2 (tuned so that GCC uses
// hardware gathers), and the CPU picks at run time.
#ifdef PTO_HOST_SHIM
#define PTO_GATHER_U32_CLAMP_BODY                                       \
    int bad = 0;                                                        \
    for (i64 r = 0; r < vr; ++r) {                                      \
        const u32 *ir = idx + r * ic;                                   \
        u32 *o = out + r * vc;                                          \
        for (i64 c = 0; c < vc; ++c) {                                  \
            const u32 u = ir[c];                                        \
            const u32 sf = u >= cap ? last : u;                         \
            const int ok = sf <= lim;                                   \
            bad |= !ok;                                                 \
            o[c] = tab[ok ? sf : 0u];                                   \
        }                                                               \
    }                                                                   \
    return bad

#define PTO_GATHER_U32_CLAMP_ARGS                                                      \
    const u32 *__restrict idx, i64 ic, i64 vr, i64 vc, const u32 *__restrict tab,     \
        u32 lim, u32 cap, u32 last, u32 *__restrict out

extern "C" char *getenv(const char *);

static int gather_u32_clamp_base(PTO_GATHER_U32_CLAMP_ARGS) { PTO_GATHER_U32_CLAMP_BODY; }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx2,tune=skylake")))
static int gather_u32_clamp_avx2(PTO_GATHER_U32_CLAMP_ARGS) { PTO_GATHER_U32_CLAMP_BODY; }
#endif

static int gather_u32_clamp(PTO_GATHER_U32_CLAMP_ARGS) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    // PTOGPU_NATIVE_NO_AVX2=1 forces the baseline build (tests run both).
    static const bool avx2 = __builtin_cpu_supports("avx2") && !getenv("PTOGPU_NATIVE_NO_AVX2");
    if (avx2) return gather_u32_clamp_avx2(idx, ic, vr, vc, tab, lim, cap, last, out);
#endif
    return gather_u32_clamp_base(idx, ic, vr, vc, tab, lim, cap, last, out);
}
#endif

template <int OOB, int TS>
PTO_DEV bool elem_fast_t(const i64 *L, const Mem &m) {
    const i64 *dtd = L + MG_DST, *itd = L + MG_IDX;
    const i64 VR = L[MG_VR], VC = L[MG_VC];
    const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    u8 *db = m.a[dtd[TD_SPACE]].p + dtd[TD_ADDR];
    const u8 *g = m.a[SPACE_GM].p;
    const i64 glim = m.a[SPACE_GM].size - TS;
    const u64 cap = (u64)L[MG_CAP] & 0xFFFFFFFFull, last = (cap - 1) & 0xFFFFFFFFull;
    const u64 tbase = (u64)L[MG_TBASE];
    const bool irow = itd[TD_KIND] == TK_ROW, drow = dtd[TD_KIND] == TK_ROW;
    const i64 IR = itd[TD_ROWS], IC = itd[TD_COLS], DR = dtd[TD_ROWS], DC = dtd[TD_COLS];
    u8 buf[FAST_MAX * TS];
    bool bad = false;
    i64 k = 0;
#ifdef PTO_HOST_SHIM
    if (OOB == OOB_CLAMP && TS == 4 && irow && cap != 0 && (i64)tbase >= 0 && (i64)tbase <= glim &&
        tbase % 4 == 0 && itd[TD_ADDR] % 4 == 0 &&
        ((unsigned long long)(usize)g) % 4 == 0 && ((unsigned long long)(usize)ib) % 4 == 0) {
        const u64 words = (u64)(glim - (i64)tbase) / 4;
        if (gather_u32_clamp((const u32 *)(const void *)ib, IC, VR, VC,
                             (const u32 *)(const void *)(g + tbase),
                             (u32)(words > 0xFFFFFFFFull ? 0xFFFFFFFFull : words), (u32)cap,
                             (u32)last, (u32 *)(void *)buf))
            return false;
        goto store;
    }
#endif
    for (i64 r = 0; r < VR; ++r)
        for (i64 c = 0; c < VC; ++c, ++k) {
            u32 u;
            PTO_MEMCPY(&u, ib + 4 * (irow ? r * IC + c : c * IR + r), 4);
            u64 safe = u;
            bool rd = true;
            if (OOB == OOB_CLAMP) safe = u >= cap ? last : u;
            else if (OOB == OOB_WRAP) safe = u % cap;
            else if (OOB == OOB_ZERO) rd = u < cap;
            const i64 src = (i64)(tbase + safe * (u64)TS);
            const bool ok = src >= 0 && src <= glim;
            bad |= rd && !ok;
            if (rd && ok) PTO_MEMCPY(buf + k * TS, g + src, TS);
            else PTO_MEMSET0(buf + k * TS, TS);
        }
    if (bad) return false;
#ifdef PTO_HOST_SHIM
store:
#endif
    if (drow && DC == VC) {
        PTO_MEMCPY(db, buf, VR * VC * TS);
        return true;
    }
    k = 0;
    for (i64 r = 0; r < VR; ++r)
        for (i64 c = 0; c < VC; ++c, ++k)
            PTO_MEMCPY(db + TS * (drow ? r * DC + c : c * DR + r), buf + k * TS, TS);
    return true;
}

template <int OOB>
PTO_DEV bool elem_fast_o(const i64 *L, const Mem &m) {
    switch ((int)L[MG_T]) {
    case 1: return elem_fast_t<OOB, 1>(L, m);
    case 2: return elem_fast_t<OOB, 2>(L, m);
    case 4: return elem_fast_t<OOB, 4>(L, m);
    default: return false;
    }
}

PTO_DEV bool elem_fast(const i64 *L, const Mem &m) {
    const i64 VR = L[MG_VR], VC = L[MG_VC];
    if (VR < 1 || VC < 1 || VR * VC > FAST_MAX || L[MG_BITS] != 32 || L[MG_IDX + TD_ESIZE] != 4)
        return false;
    if (!fast_tile_ok(m, L + MG_IDX, VR, VC) || !fast_tile_ok(m, L + MG_DST, VR, VC)) return false;
    if (L[MG_DST + TD_SPACE] == L[MG_IDX + TD_SPACE]) {   // index tile overlapping dst: generic
        const i64 ia = L[MG_IDX + TD_ADDR], da = L[MG_DST + TD_ADDR];
        const i64 in = L[MG_IDX + TD_ROWS] * L[MG_IDX + TD_COLS] * 4;
        const i64 dn = L[MG_DST + TD_ROWS] * L[MG_DST + TD_COLS] * L[MG_T];
        if (ia < da + dn && da < ia + in) return false;
    }
    switch ((int)L[MG_OOB]) {
    case OOB_CLAMP: return elem_fast_o<OOB_CLAMP>(L, m);
    case OOB_WRAP: return L[MG_CAP] & 0xFFFFFFFFll ? elem_fast_o<OOB_WRAP>(L, m) : false;
    case OOB_ZERO: return elem_fast_o<OOB_ZERO>(L, m);
    default: return elem_fast_o<OOB_UNDEFINED>(L, m);
    }
}

// Row mode: each row is one contiguous source run (the A5 rule (u32)(row*VC) + c).
PTO_DEV bool row_fast(const i64 *L, const Mem &m) {
    const i64 VR = L[MG_VR], VC = L[MG_VC], T = L[MG_T];
    const i64 *dtd = L + MG_DST, *itd = L + MG_IDX;
    if (VR < 1 || VC < 1 || VR * VC * T > FAST_MAX * 8 || L[MG_BITS] != 32 ||
        itd[TD_ESIZE] != 4 || L[MG_ROWSRC] != ROWSRC_VALID_COLS || dtd[TD_KIND] != TK_ROW ||
        dtd[TD_SPACE] == SPACE_GM || itd[TD_SPACE] == SPACE_GM)
        return false;
    const Arena &I = m.a[itd[TD_SPACE]], &G = m.a[SPACE_GM];
    if (!arena_ok(I, (u64)itd[TD_ADDR], VR * 4) || !fast_tile_ok(m, dtd, VR, VC)) return false;
    if (dtd[TD_SPACE] == itd[TD_SPACE]) {
        const i64 ia = itd[TD_ADDR], da = dtd[TD_ADDR], dn = dtd[TD_ROWS] * dtd[TD_COLS] * T;
        if (ia < da + dn && da < ia + VR * 4) return false;
    }
    const u64 cap = (u64)L[MG_CAP] & 0xFFFFFFFFull;
    const int oob = (int)L[MG_OOB];
    if (oob == OOB_WRAP && cap == 0) return false;
    u8 buf[FAST_MAX * 8];
    const i64 rb = VC * T;
    for (i64 r = 0; r < VR; ++r) {
        u32 u;
        PTO_MEMCPY(&u, I.p + itd[TD_ADDR] + 4 * r, 4);
        bool rd;
        const u64 safe = remap(u, cap, oob, 32, &rd);
        if (!rd) {
            PTO_MEMSET0(buf + r * rb, rb);
            continue;
        }
        const i64 src = (i64)((u64)L[MG_TBASE] + ((safe * (u64)VC) & 0xFFFFFFFFull) * (u64)T);
        if (!arena_ok(G, (u64)src, rb)) return false;
        PTO_MEMCPY(buf + r * rb, G.p + src, rb);
    }
    u8 *db = m.a[dtd[TD_SPACE]].p + dtd[TD_ADDR];
    const i64 drb = dtd[TD_COLS] * T;
    if (drb == rb) {
        PTO_MEMCPY(db, buf, VR * rb);
    } else {
        for (i64 r = 0; r < VR; ++r) PTO_MEMCPY(db + r * drb, buf + r * rb, rb);
    }
    return true;
}

extern "C" __global__ void mgather_a5_row(PTO_KERNEL_PARAMS) {
    const bool whole = blockDim.x * blockDim.y * blockDim.z == 1u;
    if (whole && pass != 0) return;          // a whole-block thread checked and wrote in pass 0
    PTO_FOR_EACH_INSTANCE(inst) {
        MG_INSTANCE_SETUP(inst);
        MG_COPY_PARAMS(L, P);                       // a local copy: byte stores cannot alias it
        const i64 *dtd = L + MG_DST;
        const u32 VR = (u32)L[MG_VR], VC = (u32)L[MG_VC];
        const u32 rowWarps = row_warps(VR), wpr = warps_per_row(VR, VC);
        const u32 tx = threadIdx.x, ty = threadIdx.y;
        if (!whole && (tx >= 32u || ty >= rowWarps * wpr)) continue;   // block sized for a wider instance
        int act = simt_act(pass, rec);
        if (whole) {                         // one thread owns the instance: check, then write
            if (pass != 0 || row_fast(L, m)) continue;
            act = ACT_NOTE;
        }
    again:
        const u32 rowWarp = whole ? 0u : ty % rowWarps, colSeg = whole ? 0u : ty / rowWarps;
        const u32 rowStep = whole ? 1u : rowWarps, colStride = whole ? 1u : wpr * 32u;
        for (u32 row = rowWarp; row < VR; row += rowStep) {
            u64 u, safe;
            bool rd;
            if (!row_index(L, m, rec, act, row, &u, &safe, &rd)) continue;
            for (u32 col = whole ? 0u : colSeg * 32u + tx; col < VC; col += colStride)
                move_one(L, m, rec, act, rd, row_src(L, safe, col), tile_addr(dtd, row, col),
                         (u64)row * VC + col, u);
        }
        if (act == ACT_NOTE && rec[0] == FAULT_NONE) {
            act = ACT_WRITE;
            goto again;
        }
    }
}

// The element loop of one thread, with the action fixed at compile time.
template <int ACT>
PTO_DEV void elem_range(const i64 *L, const Mem &m, u64 *rec, u32 first, u32 step, u32 total,
                        u32 VC) {
    if (step == 1u) {                                // whole-block thread: rows, then columns
        for (u32 r = 0, i = 0; i < total; ++r)
            for (u32 c = 0; c < VC && i < total; ++c, ++i) elem_one(L, m, rec, ACT, r, c);
        return;
    }
    for (u32 i = first; i < total; i += step) {
        const u32 r = VC == 1u ? i : i / VC, c = VC == 1u ? 0u : i % VC;
        elem_one(L, m, rec, ACT, (i64)r, (i64)c);
    }
}

extern "C" __global__ void mgather_a5_elem(PTO_KERNEL_PARAMS) {
    const bool whole = blockDim.x * blockDim.y * blockDim.z == 1u;
    if (whole && pass != 0) return;          // a whole-block thread checked and wrote in pass 0
    PTO_FOR_EACH_INSTANCE(inst) {
        MG_INSTANCE_SETUP(inst);
        MG_COPY_PARAMS(L, P);
        const u64 VR = (u64)L[MG_VR], VC = (u64)L[MG_VC];
        const u64 total = (u64)(u32)(VR * VC);
        const u32 launchWarps = elem_launch_warps((u32)total);
        const u32 tx = threadIdx.x, ty = threadIdx.y;
        if (!whole && (tx >= 32u || ty >= launchWarps)) continue;
        const int act = simt_act(pass, rec);
        const u32 first = whole ? 0u : ty * 32u + tx, step = whole ? 1u : 32u * launchWarps;
        const u32 t32 = (u32)total, vc = (u32)VC;
        if (whole) {                         // one thread owns the instance: check, then write
            if (pass != 0 || elem_fast(L, m)) continue;
            elem_range<ACT_NOTE>(L, m, rec, 0, 1, t32, vc);
            if (rec[0] == FAULT_NONE) elem_range<ACT_WRITE>(L, m, rec, 0, 1, t32, vc);
            continue;
        }
        if (act == ACT_WRITE) elem_range<ACT_WRITE>(L, m, rec, first, step, t32, vc);
        else if (act == ACT_RACE) elem_range<ACT_RACE>(L, m, rec, first, step, t32, vc);
        else elem_range<ACT_FILL>(L, m, rec, first, step, t32, vc);
    }
}

extern "C" __global__ void mgather_a5_scalar(PTO_KERNEL_PARAMS) {
    (void)pass;
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        MG_INSTANCE_SETUP(inst);
        elem_one(P, m, rec, ACT_NOTE, 0, 0);
        if (rec[0] == FAULT_NONE) elem_one(P, m, rec, ACT_WRITE, 0, 0);
    }
}

// ---- scalar loops: CPU simulator and A2/A3 ND ----------------------------------------------

// Row mode, sequential rows; `tail` adds the A2/A3 fill from VC to the row's 32-byte boundary
// with the burst's first element (semantics/mgather.py _with_tail_fill).
PTO_DEV void row_loop(const i64 *P, const Mem &m, u64 *rec, int act, bool tail) {
    const i64 *dtd = P + MG_DST;
    const i64 VR = P[MG_VR], VC = P[MG_VC], T = P[MG_T];
    const i64 end = ((VC * T + 31) / 32) * 32 / T, ntail = tail ? end - VC : 0;
    i64 rowpos = 0;
    for (i64 r = 0; r < VR; ++r) {
        u64 u, safe;
        bool rd;
        if (!row_index(P, m, rec, act, r, &u, &safe, &rd)) continue;
        for (i64 c = 0; c < VC; ++c)
            move_one(P, m, rec, act, rd, row_src(P, safe, c), tile_addr(dtd, r, c),
                     (u64)(r * VC + c), u);
        if (!rd || ntail <= 0) continue;
        const u64 first = row_src(P, safe, 0);
        for (i64 k = 0; k < ntail; ++k) {
            const u64 d = (u64)dtd[TD_ADDR] + (u64)((r * dtd[TD_COLS] + VC + k) * T);
            move_one(P, m, rec, act, true, first, d, (u64)(VR * VC + rowpos * ntail + k), u);
        }
        ++rowpos;
    }
}

PTO_DEV void elem_loop(const i64 *P, const Mem &m, u64 *rec, int act) {
    const i64 VR = P[MG_VR], VC = P[MG_VC];
    for (i64 r = 0; r < VR; ++r)
        for (i64 c = 0; c < VC; ++c) elem_one(P, m, rec, act, r, c);
}

#define SCALAR_KERNEL(name, ...)                                   \
    extern "C" __global__ void name(PTO_KERNEL_PARAMS) {           \
        (void)pass;                                                \
        if (threadIdx.x | threadIdx.y | threadIdx.z) return;       \
        PTO_FOR_EACH_INSTANCE(inst) {                              \
            MG_INSTANCE_SETUP(inst);                               \
            int act = ACT_NOTE;                                    \
            __VA_ARGS__;                                           \
            if (rec[0] != FAULT_NONE) continue;                    \
            act = ACT_WRITE;                                       \
            __VA_ARGS__;                                           \
        }                                                          \
    }

// CPU simulator: one generic routine, rows in order (cpu/MGather.hpp:21-95).
SCALAR_KERNEL(mgather_cpu,
              if (P[MG_MODE] == MODE_ROW) row_loop(P, m, rec, act, false);
              else elem_loop(P, m, rec, act))

SCALAR_KERNEL(mgather_a2a3_row_nd, row_loop(P, m, rec, act, P[MG_TAIL] != 0))

SCALAR_KERNEL(mgather_a2a3_elem_nd, elem_loop(P, m, rec, act))

// ---- A2/A3 NZ tables -----------------------------------------------------------------------

// Row NZ (§6.4): per read row, gShape0 multi-burst DMAs of gShape1 32-byte bursts; Zero
// pre-zeroes the whole destination tile. ValidCol is ignored.
PTO_DEV void row_nz_loop(const i64 *P, const Mem &m, u64 *rec, int act) {
    const i64 *dtd = P + MG_DST;
    const i64 VR = P[MG_VR], T = P[MG_T], C0 = 32 / T, R = dtd[TD_ROWS];
    const i64 n0 = P[MG_S0] > 0 ? P[MG_S0] : 0;
    const i64 nb = (i64)((u64)P[MG_S1] & 0xFFFFull);            // nBurst is a uint16
    const i64 nblk = n0 * nb;
    const u64 base = (u64)P[MG_TBASE];
    if (act == ACT_WRITE && P[MG_OOB] == OOB_ZERO) {
        const Arena &D = m.a[dtd[TD_SPACE]];
        if (arena_ok(D, (u64)dtd[TD_ADDR], P[MG_DST_NBYTES]))
            for (i64 b = 0; b < P[MG_DST_NBYTES]; ++b) D.p[dtd[TD_ADDR] + b] = 0;
    }
    i64 rowpos = 0;
    for (i64 r = 0; r < VR; ++r) {
        u64 u, safe;
        bool rd;
        if (!row_index(P, m, rec, act, r, &u, &safe, &rd)) continue;
        if (!rd) continue;
        const u64 sbr = safe / 16, sri = safe % 16;
        for (i64 i = 0; i < n0; ++i)
            for (i64 j = 0; j < nb; ++j)
                for (i64 k = 0; k < C0; ++k) {
                    const u64 el = (u64)i * (u64)P[MG_ST0] + (u64)j * (u64)P[MG_ST1] +
                                   sbr * (u64)P[MG_ST2] + sri * (u64)P[MG_ST3] + (u64)k;
                    const u64 src = base + el * (u64)T;
                    const u64 d = (u64)dtd[TD_ADDR] +
                                  (((u64)i * (u64)P[MG_S1] + (u64)j) * (u64)(R * C0) +
                                   (u64)(r * C0 + k)) * (u64)T;
                    move_one(P, m, rec, act, true, src, d,
                             (u64)(rowpos * nblk * C0 + (i * nb + j) * C0 + k), u);
                }
        ++rowpos;
    }
}

// Elem NZ (§6.6): column block outer, then rows, then the block's columns; the index is a
// logical row-major position in the un-tiled matrix, translated by MGatherNZGmOffset. gShape
// and gStride arrive as sign-extended 32-bit ints; the divisors are their uint32 values.
PTO_DEV void elem_nz_loop(const i64 *P, const Mem &m, u64 *rec, int act) {
    const i64 *dtd = P + MG_DST, *itd = P + MG_IDX;
    const i64 VR = P[MG_VR], VC = P[MG_VC], T = P[MG_T], C0 = 32 / T, R = dtd[TD_ROWS];
    const u64 M32 = 0xFFFFFFFFull;
    const u64 nlc = ((u64)P[MG_S0] * (u64)P[MG_S1] * (u64)C0) & M32;   // > 0 (host refuses 0)
    const u64 g1 = (u64)P[MG_S1] & M32, g = g1 > 1 ? g1 : 1;
    const bool one = P[MG_S0] == 1;
    for (i64 b = 0; b * C0 < VC; ++b)
        for (i64 r = 0; r < VR; ++r)
            for (i64 k = 0; k < C0 && b * C0 + k < VC; ++k) {
                const i64 c = b * C0 + k;
                const u64 lin = (u64)(r * VC + c);
                const u64 iaddr = tile_addr(itd, r, c);
                u64 raw;
                if (!read_index(m, itd, iaddr, &raw)) {
                    on_bad(rec, act, fault_key(PHASE_INDEX, lin), iaddr, 0);
                    continue;
                }
                const u64 u = cast_index(raw, 32);
                bool rd;
                const u64 safe = remap(u, (u64)P[MG_CAP], (int)P[MG_OOB], 32, &rd);
                u64 src = 0;
                if (rd) {
                    const u64 lr = safe / nlc, lc = safe % nlc;
                    const u64 bcc = lc / (u64)C0, k0 = lc % (u64)C0, br = lr / 16, ri = lr % 16;
                    const u64 o0 = one ? 0 : bcc / g, o1 = one ? bcc : bcc % g;
                    const u64 off = o0 * (u64)P[MG_ST0] + o1 * (u64)P[MG_ST1] +
                                    br * (u64)P[MG_ST2] + ri * (u64)P[MG_ST3] +
                                    k0 * (u64)P[MG_ST4];
                    src = (u64)P[MG_TBASE] + off * (u64)T;
                }
                const u64 d = (u64)dtd[TD_ADDR] + (u64)((b * R * C0 + r * C0 + k) * T);
                move_one(P, m, rec, act, rd, src, d, lin, u);
            }
}

SCALAR_KERNEL(mgather_a2a3_row_nz, row_nz_loop(P, m, rec, act))

SCALAR_KERNEL(mgather_a2a3_elem_nz, elem_nz_loop(P, m, rec, act))

PTO_EXPORT(mgather_a5_row)
PTO_EXPORT(mgather_a5_elem)
PTO_EXPORT(mgather_a5_scalar)
PTO_EXPORT(mgather_a2a3_row_nd)
PTO_EXPORT(mgather_a2a3_elem_nd)
PTO_EXPORT(mgather_a2a3_row_nz)
PTO_EXPORT(mgather_a2a3_elem_nz)
PTO_EXPORT(mgather_cpu)
