// mgather_impl.cuh — the MGATHER-into-UB element semantics every kernel that runs MGATHER
// shares (mgather.cu's kernels, fuzz.cu's fused engine): the parameter block, index reads,
// remapped table reads, the scalar loops of the CPU simulator and A2/A3, and the A5 SIMT
// launches as lock-step warp bodies (mgather.md §3-§6).
#ifndef PTOGPU_MGATHER_IMPL_CUH
#define PTOGPU_MGATHER_IMPL_CUH

#include "common.cuh"
#include "rules_fast.cuh"

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

// row_src of a whole row: column c's byte address is *base + c * *step (row_src is affine in
// c in uint64 arithmetic), so loops over the columns hold no switch and no call.
PTO_DEV void row_src_line(const i64 *P, u64 safe, u64 *base, u64 *step) {
    *base = row_src(P, safe, 0);
    *step = row_src(P, safe, 1) - *base;
}

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

// ---- A5 SIMT launches as lock-step warp bodies (mgather.md §5.3, §5.4) -----------------------
// Geometry: which element each lane of each warp handles in each round. The data kernels, the
// fused fuzz engine and the exhaustive geometry check (pto_a5_geometry_check) all call these.

// Elem (§5.4): dim3{32, warps}, warps = clamp(ceil(total/32), 1, 32), total = (u32)(VR*VC).
// In round k, lane `lane` of warp `warp` handles flat element k*32*warps + warp*32 + lane
// while it is below total; flat element i is (i / VC, i % VC).
PTO_DEV u64 elem_round_base(u32 warp, u32 warps, u64 k) {
    return k * 32ull * (u64)warps + (u64)warp * 32ull;
}

// Row (§5.3): dim3{32, rowWarps*warpsPerRow}. Warp w works on rows w % rowWarps + k*rowWarps;
// its lanes take columns (w / rowWarps)*32 + lane + j*warpsPerRow*32.
struct RowWarp {
    u32 row0, row_step, col0, col_step;
};
// Warp w = wc*rw + wr of a launch of rw row warps and wpr warps per row: (wr, wc) given, so a
// loop over every warp in order (wc outer, wr inner) divides nothing.
PTO_DEV RowWarp row_warp_at(u32 wr, u32 wc, u32 rw, u32 wpr) {
    RowWarp g;
    g.row0 = wr;
    g.row_step = rw;
    g.col0 = wc * 32u;
    g.col_step = wpr * 32u;
    return g;
}
PTO_DEV RowWarp row_warp_of(u32 w, u32 VR, u32 VC) {
    const u32 rw = row_warps(VR), wpr = warps_per_row(VR, VC);
    return row_warp_at(w % rw, w / rw, rw, wpr);
}

// What every lane of one instance shares: arena bases, limits and the shape facts that pick
// the vector form. `fast`: ND index and destination tiles (RowMajor or ColMajor) whose valid
// regions lie inside their arenas, 4-byte indices cast to 32 bits, a table base inside GM and
// arenas under 2 GiB; then only table reads can fault, lanes test them as masks, and every
// offset fits in 32 bits (32-bit gather indices: twice the lanes per vector). Anything else
// runs the generic lanes (every access checked, faults keyed exactly).
struct LaneCtx {
    const u8 *ib, *g;
    u8 *db;
    u64 total, vc, vr;
    u32 cap, last, smax, tb, IC, IR, DC, DR;
    double inv_vc, inv_cap;
    bool fast, linear, irow, drow, pow2;
};

// Byte extent of an ND tile's valid region (kinds TK_ROW / TK_COL; offsets grow with r and c).
PTO_DEV bool nd_region_ok(const Arena &a, const i64 *td, u64 vr, u64 vc, bool flat_row) {
    const int k = (int)td[TD_KIND];
    if (k != TK_ROW && k != TK_COL) return false;
    const u64 R = (u64)td[TD_ROWS], C = (u64)td[TD_COLS], es = (u64)td[TD_ESIZE];
    if (vr == 0 || vc == 0 || vr >> 31 || vc >> 31 || R >> 31 || C >> 31) return false;
    const u64 last = flat_row ? vr - 1 : (k == TK_ROW ? (vr - 1) * C + vc - 1 : (vc - 1) * R + vr - 1);
    const i64 addr = td[TD_ADDR];
    return a.size < (1ll << 31) && addr >= 0 && (u64)addr <= (u64)a.size &&
           (last + 1) * es <= (u64)a.size - (u64)addr;
}

PTO_DEV bool tiles_overlap(const i64 *a, i64 an, const i64 *b, i64 bn) {
    if (a[TD_SPACE] != b[TD_SPACE]) return false;
    return a[TD_ADDR] < b[TD_ADDR] + bn && b[TD_ADDR] < a[TD_ADDR] + an;
}

PTO_DEV LaneCtx lane_ctx(const i64 *L, const Mem &m, bool row_mode) {
    const i64 *dtd = L + MG_DST, *itd = L + MG_IDX;
    LaneCtx x;
    const u64 VR = (u64)(u32)L[MG_VR], VC = (u64)(u32)L[MG_VC], T = (u64)L[MG_T];
    x.vr = VR;
    x.vc = VC;
    x.total = row_mode ? VR * VC : (u64)(u32)(VR * VC);
    x.ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    x.db = m.a[dtd[TD_SPACE]].p + dtd[TD_ADDR];
    x.g = m.a[SPACE_GM].p;
    const u64 tbase = (u64)L[MG_TBASE];
    const i64 gsz = m.a[SPACE_GM].size;
    const u64 glim = gsz >= (i64)T ? (u64)(gsz - (i64)T) : 0;
    const u64 cap = (u64)L[MG_CAP] & 0xFFFFFFFFull;
    x.cap = (u32)cap;
    x.last = (u32)(cap - 1);
    x.pow2 = cap && !(cap & (cap - 1));
    x.inv_cap = cap ? 1.0 / (double)cap : 0.0;
    x.inv_vc = VC ? 1.0 / (double)VC : 0.0;
    x.irow = itd[TD_KIND] == TK_ROW;
    x.drow = dtd[TD_KIND] == TK_ROW;
    x.IC = (u32)itd[TD_COLS];
    x.IR = (u32)itd[TD_ROWS];
    x.DC = (u32)dtd[TD_COLS];
    x.DR = (u32)dtd[TD_ROWS];
    x.linear = !row_mode && x.irow && x.drow && x.IC == VC && x.DC == VC;
    // Largest safe index whose element lies inside GM (Elem: element offsets; Row: row starts
    // are checked per lane against glim).
    const bool tb_in = gsz >= (i64)T && tbase <= glim;
    const u64 smax = tb_in ? (glim - tbase) / T : 0;
    x.smax = (u32)(smax > 0xFFFFFFFFull ? 0xFFFFFFFFull : smax);
    x.tb = (u32)tbase;
    const i64 in = itd[TD_ROWS] * itd[TD_COLS] * itd[TD_ESIZE];
    const i64 dn = dtd[TD_ROWS] * dtd[TD_COLS] * (i64)T;
    x.fast = L[MG_BITS] == 32 && itd[TD_ESIZE] == 4 && tb_in && gsz < (1ll << 31) &&
             (T == 1 || T == 2 || T == 4 || T == 8) && L[MG_OOB] >= 0 && L[MG_OOB] <= 3 &&
             (!row_mode || L[MG_ROWSRC] == ROWSRC_VALID_COLS) && !(L[MG_OOB] == OOB_WRAP && cap == 0) &&
             nd_region_ok(m.a[itd[TD_SPACE]], itd, VR, VC, row_mode) &&
             nd_region_ok(m.a[dtd[TD_SPACE]], dtd, VR, VC, false) &&
             !tiles_overlap(itd, row_mode ? (i64)VR * 4 : in, dtd, dn);
#ifdef PTOGPU_SIMT_TRACE_SHIM_H
    x.fast = false;                  // traced builds log stores through copy_elem / zero_elem
#endif
    return x;
}

// Any nonzero among W lane flags.
template <int W>
PTO_DEV bool lanes_any(const int *f) {
    int a = 0;
    PTO_LANE_LOOP_OR(l, W, a) a |= f[l];
    return a != 0;
}

// Lane position ii of a non-linear Elem instance: its index word and destination element
// (flat ii -> (r, c) by the reciprocal divmod, then each tile's layout). The shape comes as
// values, the caller's locals (a store through the destination cannot alias them).
PTO_DEV void elem_lane_offsets(u32 ii, u32 vc, double inv_vc, bool irow, bool drow, u32 IC, u32 IR, u32 DC,
                               u32 DR, int *io, int *dof) {
    u64 r, c;
    divmod_u32(ii, vc, inv_vc, &r, &c);
    *io = (int)(irow ? (u32)r * IC + (u32)c : (u32)c * IR + (u32)r);
    *dof = (int)(drow ? (u32)r * DC + (u32)c : (u32)c * DR + (u32)r);
}

// One warp-round of Elem, vector form: lanes base .. base+W-1 (FULL: all below total; LIN:
// both tiles RowMajor with VC columns, so a lane's offsets are its flat position). WRITE
// moves every lane's element; otherwise lane l ORs into acc[l] whether its table read leaves
// GM (a per-lane vector, reduced once per pass, not once per round).
// Fields are copied to locals first: a store through `db` could otherwise alias them.
template <int W, int TS, int OOB, bool FULL, bool LIN, bool WRITE>
PTO_DEV void elem_round_fast(const LaneCtx &x, u32 base, int *acc) {
    const u8 *tab = x.g + x.tb;
    const u32 total = (u32)x.total, vc = (u32)x.vc, cap = x.cap, last = x.last, smax = x.smax,
              IC = x.IC, IR = x.IR, DC = x.DC, DR = x.DR;
    const bool irow = x.irow, drow = x.drow, pow2 = x.pow2;
    const double inv_vc = x.inv_vc, inv_cap = x.inv_cap;
    const int active = FULL ? W : (int)(total - base);      // lanes below total
    // LIN: lane l reads index word base+l and writes element base+l (contiguous moves).
    const u8 *ib = LIN ? x.ib + (u64)base * 4 : x.ib;
    u8 *db = LIN ? x.db + (u64)base * TS : x.db;
#ifdef PTO_HOST_SHIM
    if (!LIN && WRITE && W > 1) {
        // Two steps: every lane's offsets (a loop that vectorises), then the lanes' moves in
        // lane order. In one loop, the stores at computed offsets (no byte or 16-bit scatter
        // instruction) kept GCC from vectorising the offsets too: a scalar division a lane.
        int io[W], dof[W];
        PTO_LANE_LOOP(l, W) elem_lane_offsets(FULL || l < active ? base + (u32)l : 0u, vc, inv_vc, irow, drow, IC, IR,
                                              DC, DR, &io[l], &dof[l]);
        for (int l = 0; l < (FULL ? W : active); ++l) {
            bool rd;
            const u32 safe = lane_remap<OOB>((u32)ld_at<4>(ib, io[l]), cap, last, pow2, inv_cap, &rd);
            const u64 v = ld_at<TS>(tab, (int)(rd ? safe : 0u));
            st_at<TS>(db, dof[l], select_nb(rd, v, 0));
        }
        return;
    }
#endif
    PTO_LANE_LOOP(l, W) {
        const bool on = FULL || l < active;
        int io = l, dof = l;
        if (!LIN)                                   // (an inactive lane loads a valid index)
            elem_lane_offsets(on ? base + (u32)l : 0u, vc, inv_vc, irow, drow, IC, IR, DC, DR, &io, &dof);
        bool rd;
        const u32 raw = (u32)(FULL || !LIN || on ? ld_at<4>(ib, io) : 0);
        const u32 safe = lane_remap<OOB>(raw, cap, last, pow2, inv_cap, &rd);
        if (WRITE) {
            // Only a clean instance is written: the check pass proved every lane's read in GM.
            // (1- and 2-byte elements have no gather: the loop stays scalar, and `?:` on the
            // random "read?" became a branch there; select_nb keeps it a select.)
            constexpr bool SEL = TS <= 2 && OOB == OOB_ZERO;     // (only Zero's "read?" varies)
            const u64 v = ld_at<TS>(tab, (int)(SEL ? select_nb(rd && on, safe, 0) : (rd && on ? safe : 0u)));
            if (on) st_at<TS>(db, dof, SEL ? select_nb(rd, v, 0) : (rd ? v : 0));
        } else {
            acc[l] |= (int)(on && rd && safe > smax);
        }
    }
}
// A table element into a lane's register (not a store into an arena: traced builds do not log it).
PTO_DEV void read_elem(u8 *reg, const u8 *s, int n) {
    for (int k = 0; k < n; ++k) reg[k] = s[k];
}

// One warp-round of Elem, generic form: every access checked, in lock-step steps (positions,
// index reads, remap, table reads, destination stores), each a loop over the lanes.
template <int W>
PTO_DEV void elem_round_generic(const i64 *L, const Mem &m, u64 *rec, int act, const LaneCtx &x,
                                u64 base) {
    const i64 *dtd = L + MG_DST, *itd = L + MG_IDX;
    const Arena &I = m.a[itd[TD_SPACE]], &G = m.a[SPACE_GM], &D = m.a[dtd[TD_SPACE]];
    const int isz = (int)itd[TD_ESIZE], T = (int)L[MG_T], bits = (int)L[MG_BITS];
    u64 ia[W], da[W], u[W], src[W], lin[W];          // lin: the flat position i itself
    bool on[W], ok[W], rd[W];
    u8 v[W][8];
    PTO_LANE_LOOP(l, W) {                                            // positions
        const u64 i = base + (u64)l;
        on[l] = i < x.total;
        const u64 r = x.vc ? i / x.vc : 0, c = x.vc ? i % x.vc : 0;
        lin[l] = i;
        ia[l] = tile_addr(itd, (i64)r, (i64)c);
        da[l] = tile_addr(dtd, (i64)r, (i64)c);
    }
    for (int l = 0; l < W; ++l) {                                    // index reads
        ok[l] = on[l] && arena_ok(I, ia[l], isz);
        u[l] = ok[l] ? cast_index(load_index(I.p + ia[l], isz, (int)itd[TD_SIGNED]), bits) : 0;
        if (on[l] && !ok[l]) on_bad(rec, act, fault_key(PHASE_INDEX, lin[l]), ia[l], 0);
    }
    PTO_LANE_LOOP(l, W) {                                            // remap
        const u64 safe = remap(u[l], (u64)L[MG_CAP], (int)L[MG_OOB], bits, &rd[l]);
        src[l] = (u64)L[MG_TBASE] + safe * (u64)T;
    }
    for (int l = 0; l < W; ++l) {                                    // table reads
        if (!ok[l]) continue;
        if (act == ACT_WRITE) {
            if (rd[l]) read_elem(v[l], G.p + src[l], T);
        } else if (rd[l] && !arena_ok(G, src[l], T)) {
            on_bad(rec, act, fault_key(PHASE_TABLE, lin[l]), src[l], u[l]);
        }
    }
    for (int l = 0; l < W; ++l) {                                    // destination stores
        if (!ok[l]) continue;
        if (act == ACT_WRITE) {
            if (rd[l]) copy_elem(D.p + da[l], v[l], T);
            else zero_elem(D.p + da[l], T);
        } else if (!arena_ok(D, da[l], T)) {
            on_bad(rec, act, fault_key(PHASE_DST, lin[l]), da[l], u[l]);
        }
    }
}

// Warp `warp` of an Elem launch of `warps` warps, lanes lane0 .. lane0+W-1, every round.
// `acc` (lock-step pass 0 of a fast instance): the vector-form checks only OR their lanes'
// bad reads into acc; the caller reruns the pass exactly if any lane was bad. Null: each
// round's checks decide at once (the GPU's per-thread form).
template <int W, int TS, int OOB, bool LIN>
PTO_DEV void a5_elem_warp_t(const i64 *L, const Mem &m, u64 *rec, int act, const LaneCtx &x,
                            u32 warp, u32 warps, u32 lane0, int *acc) {
    for (u64 k = 0;; ++k) {
        const u64 base = elem_round_base(warp, warps, k) + lane0;
        if (base >= x.total) break;
        const bool full = base + W <= x.total;
        if (x.fast && act == ACT_WRITE) {
            if (full) elem_round_fast<W, TS, OOB, true, LIN, true>(x, (u32)base, acc);
            else elem_round_fast<W, TS, OOB, false, LIN, true>(x, (u32)base, acc);
            continue;
        }
        if (x.fast && act == ACT_RACE) {
            int own[W] = {0};
            int *a = acc ? acc : own;
            if (full) elem_round_fast<W, TS, OOB, true, LIN, false>(x, (u32)base, a);
            else elem_round_fast<W, TS, OOB, false, LIN, false>(x, (u32)base, a);
            if (acc || !lanes_any<W>(own)) continue;
        }
        elem_round_generic<W>(L, m, rec, act, x, base);
    }
}

template <int W, int TS, int OOB>
PTO_DEV void a5_elem_warp(const i64 *L, const Mem &m, u64 *rec, int act, const LaneCtx &x,
                          u32 warp, u32 warps, u32 lane0, int *acc = nullptr) {
    if (x.linear) a5_elem_warp_t<W, TS, OOB, true>(L, m, rec, act, x, warp, warps, lane0, acc);
    else a5_elem_warp_t<W, TS, OOB, false>(L, m, rec, act, x, warp, warps, lane0, acc);
}

// One warp-round of Row, vector form: lanes take columns col .. col+W-1 of `row`, whose
// source run starts at element `src0` (the A5 rule (u32)(row*VC)); the warp's lanes all load
// the same row index (one load, broadcast).
template <int W, int TS, bool FULL, bool WRITE>
PTO_DEV void row_round_fast(const LaneCtx &x, u32 row, u32 col, u64 src0, bool rd, int *acc) {
    const u8 *g = x.g + x.tb;
    u8 *db = x.db;
    const u32 vc = (u32)x.vc, DC = x.DC, DR = x.DR;
    const u64 smax = x.smax;
    const bool drow = x.drow;
    if (!WRITE) {
        PTO_LANE_LOOP(l, W) {
            const u32 c = col + (u32)l;
            acc[l] |= (int)((FULL || c < vc) && rd && src0 + c > smax);
        }
        return;
    }
    // The write pass of a clean instance: every active lane's read lies inside GM; a row
    // index that reads nothing (Zero) is warp-uniform.
    if (drow && rd) {
        const u8 *s = g + (src0 + col) * TS;
        u8 *d = db + ((u64)row * DC + col) * TS;
        PTO_LANE_LOOP(l, W) {
            if (FULL || col + (u32)l < vc) st_word<TS>(d + l * TS, ld_word<TS>(s + l * TS));
        }
        return;
    }
    PTO_LANE_LOOP(l, W) {
        const u32 c = col + (u32)l;
        const u32 dof = drow ? row * DC + c : c * DR + row;
        if (FULL || c < vc) st_word<TS>(db + (u64)dof * TS, rd ? ld_word<TS>(g + (src0 + c) * TS) : 0);
    }
}

template <int W>
PTO_DEV void row_round_generic(const i64 *L, const Mem &m, u64 *rec, int act, const LaneCtx &x,
                               u64 row, u64 col, u64 u, u64 safe, bool rd) {
    const i64 *dtd = L + MG_DST;
    const Arena &G = m.a[SPACE_GM], &D = m.a[dtd[TD_SPACE]];
    const int T = (int)L[MG_T];
    u64 src[W], da[W];
    bool on[W];
    u8 v[W][8];
    PTO_LANE_LOOP(l, W) {                                            // addresses
        const u64 c = col + (u64)l;
        on[l] = c < x.vc;
        src[l] = row_src(L, safe, (i64)c);
        da[l] = tile_addr(dtd, (i64)row, (i64)c);
    }
    for (int l = 0; l < W; ++l) {                                    // table reads
        if (!on[l]) continue;
        if (act == ACT_WRITE) {
            if (rd) read_elem(v[l], G.p + src[l], T);
        } else if (rd && !arena_ok(G, src[l], T)) {
            on_bad(rec, act, fault_key(PHASE_TABLE, row * x.vc + col + (u64)l), src[l], u);
        }
    }
    for (int l = 0; l < W; ++l) {                                    // destination stores
        if (!on[l]) continue;
        if (act == ACT_WRITE) {
            if (rd) copy_elem(D.p + da[l], v[l], T);
            else zero_elem(D.p + da[l], T);
        } else if (!arena_ok(D, da[l], T)) {
            on_bad(rec, act, fault_key(PHASE_DST, row * x.vc + col + (u64)l), da[l], u);
        }
    }
}

template <int W, int TS, int OOB>
PTO_DEV void a5_row_warp_g(const i64 *L, const Mem &m, u64 *rec, int act, const LaneCtx &x,
                           const RowWarp &g, u32 lane0, int *acc = nullptr) {
    for (u64 row = g.row0; row < x.vr; row += g.row_step) {
        u64 u, safe;
        bool rd;
        if (x.fast) {
            u = ld_word<4>(x.ib + row * 4);
            safe = lane_remap<OOB>((u32)u, x.cap, x.last, x.pow2, x.inv_cap, &rd);
        } else if (!row_index(L, m, rec, act, (i64)row, &u, &safe, &rd)) {
            continue;
        }
        const u64 src0 = (safe * x.vc) & 0xFFFFFFFFull;
        for (u64 col = g.col0 + lane0; col < x.vc; col += g.col_step) {
            const bool full = col + W <= x.vc;
            if (x.fast && act == ACT_WRITE) {
                if (full) row_round_fast<W, TS, true, true>(x, (u32)row, (u32)col, src0, rd, acc);
                else row_round_fast<W, TS, false, true>(x, (u32)row, (u32)col, src0, rd, acc);
                continue;
            }
            if (x.fast && act == ACT_RACE) {
                int own[W] = {0};
                int *a = acc ? acc : own;
                if (full) row_round_fast<W, TS, true, false>(x, (u32)row, (u32)col, src0, rd, a);
                else row_round_fast<W, TS, false, false>(x, (u32)row, (u32)col, src0, rd, a);
                if (acc || !lanes_any<W>(own)) continue;
            }
            row_round_generic<W>(L, m, rec, act, x, row, col, u, safe, rd);
        }
    }
}

template <int W, int TS, int OOB>
PTO_DEV void a5_row_warp(const i64 *L, const Mem &m, u64 *rec, int act, const LaneCtx &x,
                         u32 warp, u32 lane0, int *acc = nullptr) {
    a5_row_warp_g<W, TS, OOB>(L, m, rec, act, x, row_warp_of(warp, (u32)x.vr, (u32)x.vc), lane0, acc);
}

// Can no Elem lane of a fast instance read outside GM? Clamp, Wrap and Zero remap every read
// below cap (lane_remap), so when the first cap slots from the table base lie in GM the
// check pass has nothing to find.
template <int OOB>
PTO_DEV bool lane_reads_fit(const LaneCtx &x) {
    return OOB != OOB_UNDEFINED && x.cap > 0 && x.last <= x.smax;
}

// The same for Row: a remapped row index is below cap, so a lane reads at most element
// (cap-1)*VC + VC-1 = cap*VC - 1 past the table base (no 32-bit wrap of safe*VC below that:
// smax < 2^31 in the fast form); when that lies in GM, no lane can fault.
template <int OOB>
PTO_DEV bool lane_row_reads_fit(const LaneCtx &x) {
    return OOB != OOB_UNDEFINED && x.cap > 0 && x.vc > 0 && (u64)x.cap * x.vc - 1 <= (u64)x.smax;
}

// The write pass of a clean linear Elem instance of at most 1,024 elements, lock-step: each
// warp has one round then, warp w's at element 32w, so warp after warp is element order and
// the rounds run as one loop (the same rounds, lanes and order as each_warp; without the
// per-warp dispatch, ~15% of a 16x16 batch tile's CPU time).
template <int W, int TS, int OOB>
PTO_DEV void a5_elem_write_linear(const LaneCtx &x) {
    static_assert(W == 32, "a warp-round is 32 lanes");
    const u32 total = (u32)x.total;
    u32 base = 0;
    for (; base + W <= total; base += W) elem_round_fast<W, TS, OOB, true, true, true>(x, base, nullptr);
    if (base < total) elem_round_fast<W, TS, OOB, false, true, true>(x, base, nullptr);
}

// The fault of an Elem instance whose vector checks found a bad read (the scalar loops' check
// scan, under scalar_fast_ok; the A5 lanes' fast form): there only table reads can fault, so
// the smallest key the exact passes would note -- phase, then flat position -- is the first
// bad read in position order; its address and index as elem_one and the generic lanes compute
// them. (The exact passes checked every element, the A5 lanes' twice: 7-9 us of most faulting
// Undefined tiles.)
template <int TS, int OOB, int BITS>
PTO_DEV void elem_first_fault(const i64 *P, const Mem &m, u64 *rec) {
    const i64 *itd = P + MG_IDX;
    const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR];
    const u64 VR = (u64)P[MG_VR], VC = (u64)P[MG_VC], cap = (u64)P[MG_CAP], tb = (u64)P[MG_TBASE];
    const u64 glim = (u64)(m.a[SPACE_GM].size - TS);
    const bool irow = itd[TD_KIND] == TK_ROW, sgn = itd[TD_SIGNED] != 0;
    const u64 IC = (u64)itd[TD_COLS], IR = (u64)itd[TD_ROWS];
    for (u64 r = 0; r < VR; ++r)
        for (u64 c = 0; c < VC; ++c) {
            const u32 w = (u32)ld_word<4>(ib + (irow ? r * IC + c : c * IR + r) * 4);
            const u64 u = cast_index(sgn ? (u64)(i64)(int)w : (u64)w, BITS);
            bool rd;
            const u64 src = tb + remap(u, cap, OOB, BITS, &rd) * TS;
            if (rd && src > glim) {
                fault_note(rec, fault_key(PHASE_TABLE, r * VC + c), src, u);
                return;
            }
        }
}

// One instance, lock-step (host): pass 0 runs every warp's checks, then pass 1 writes a clean
// instance (or fills in its first fault), warp after warp, lanes in lock-step.
template <int W, int TS, int OOB>
PTO_DEV void a5_block(const i64 *L, const Mem &m, u64 *rec, bool row_mode) {
    const LaneCtx x = lane_ctx(L, m, row_mode);
    const u32 warps = row_mode ? row_launch_warps((u32)x.vr, (u32)x.vc) : elem_launch_warps((u32)x.total);
    // every warp of the launch in order, w = wc*rw + wr (Elem: rw = warps, wpr = 1)
    const u32 rw = row_mode ? row_warps((u32)x.vr) : warps, wpr = row_mode ? warps_per_row((u32)x.vr, (u32)x.vc) : 1u;
    auto each_warp = [&](int act, int *acc) {
        for (u32 wc = 0; wc < wpr; ++wc)
            for (u32 wr = 0; wr < rw; ++wr) {
                if (row_mode) a5_row_warp_g<W, TS, OOB>(L, m, rec, act, x, row_warp_at(wr, wc, rw, wpr), 0, acc);
                else a5_elem_warp<W, TS, OOB>(L, m, rec, act, x, wc * rw + wr, warps, 0, acc);
            }
    };
    if (x.fast) {
        // Pass 0 in vector form: every lane of every warp-round runs its checks into its
        // accumulator; only if some lane read outside GM does the pass run again with exact
        // per-round checks (which key the fault). A clean instance goes straight to pass 1.
        // (Skipped where no lane can read outside GM: lane_reads_fit, lane_row_reads_fit.)
        int acc[W] = {0};
        if (!(row_mode ? lane_row_reads_fit<OOB>(x) : lane_reads_fit<OOB>(x))) each_warp(ACT_RACE, acc);
        if (!lanes_any<W>(acc)) {
            if (!row_mode && x.linear && x.total <= 32ull * 32ull) a5_elem_write_linear<W, TS, OOB>(x);
            else each_warp(ACT_WRITE, nullptr);
            return;
        }
        if (!row_mode) {
            elem_first_fault<TS, OOB, 32>(L, m, rec);      // (the fast form: a 32-bit cast)
            return;
        }
    }
    for (int pass = 0; pass < 2; ++pass) each_warp(simt_act(pass, rec), nullptr);
}

// One thread of the launch (GPU, and the host's per-thread launch): lane threadIdx.x of warp
// threadIdx.y, in pass `pass`.
template <int TS, int OOB>
PTO_DEV void a5_thread(const i64 *L, const Mem &m, u64 *rec, bool row_mode, int pass) {
    const LaneCtx x = lane_ctx(L, m, row_mode);
    const u32 warps = row_mode ? row_launch_warps((u32)x.vr, (u32)x.vc) : elem_launch_warps((u32)x.total);
    const u32 tx = threadIdx.x, ty = threadIdx.y;
    if (tx >= 32u || ty >= warps) return;              // block sized for a wider instance
    const int act = simt_act(pass, rec);
    if (row_mode) a5_row_warp<1, TS, OOB>(L, m, rec, act, x, ty, tx);
    else a5_elem_warp<1, TS, OOB>(L, m, rec, act, x, ty, warps, tx);
}

// Element size and OOB policy as template arguments (the lane loops then hold no switch).
// Other element sizes (none today) take the generic lanes with TS = 1 as a placeholder.
#define A5_DISPATCH(L, CALL)                                                                 \
    switch ((int)(L)[MG_OOB] * 16 + (int)(L)[MG_T]) {                                       \
    case OOB_CLAMP * 16 + 1: CALL(1, OOB_CLAMP); break;                                      \
    case OOB_CLAMP * 16 + 2: CALL(2, OOB_CLAMP); break;                                      \
    case OOB_CLAMP * 16 + 4: CALL(4, OOB_CLAMP); break;                                      \
    case OOB_CLAMP * 16 + 8: CALL(8, OOB_CLAMP); break;                                      \
    case OOB_WRAP * 16 + 1: CALL(1, OOB_WRAP); break;                                        \
    case OOB_WRAP * 16 + 2: CALL(2, OOB_WRAP); break;                                        \
    case OOB_WRAP * 16 + 4: CALL(4, OOB_WRAP); break;                                        \
    case OOB_WRAP * 16 + 8: CALL(8, OOB_WRAP); break;                                        \
    case OOB_ZERO * 16 + 1: CALL(1, OOB_ZERO); break;                                        \
    case OOB_ZERO * 16 + 2: CALL(2, OOB_ZERO); break;                                        \
    case OOB_ZERO * 16 + 4: CALL(4, OOB_ZERO); break;                                        \
    case OOB_ZERO * 16 + 8: CALL(8, OOB_ZERO); break;                                        \
    case OOB_UNDEFINED * 16 + 1: CALL(1, OOB_UNDEFINED); break;                              \
    case OOB_UNDEFINED * 16 + 2: CALL(2, OOB_UNDEFINED); break;                              \
    case OOB_UNDEFINED * 16 + 4: CALL(4, OOB_UNDEFINED); break;                              \
    case OOB_UNDEFINED * 16 + 8: CALL(8, OOB_UNDEFINED); break;                              \
    default: CALL(1, OOB_UNDEFINED); break;                                                  \
    }

// ---- scalar loops in vector form ----------------------------------------------------------
// The same loops (rows in order, columns in order) with every access that cannot fault
// hoisted: for ND index and destination tiles whose valid regions lie inside their arenas and
// 4-byte indices, only table reads can fault. A check scan ORs those faults as a mask; a clean
// instance is then written by a second scan whose inner loop the compiler vectorises. An Elem
// instance with a bad read has its first fault keyed by a scan that stops there
// (elem_first_fault, above); a Row one goes to the exact loops (first fault, keyed as always).
PTO_DEV bool scalar_fast_ok(const i64 *P, const Mem &m, bool row_mode, bool tail) {
    const i64 *dtd = P + MG_DST, *itd = P + MG_IDX;
    const u64 VR = (u64)P[MG_VR], VC = (u64)P[MG_VC], T = (u64)P[MG_T];
    if (!(T == 1 || T == 2 || T == 4 || T == 8) || P[MG_OOB] < 0 || P[MG_OOB] > 3) return false;
    if (itd[TD_ESIZE] != 4 || (P[MG_BITS] != 32 && P[MG_BITS] != 64)) return false;
    if (P[MG_OOB] == OOB_WRAP && P[MG_CAP] == 0) return false;
    if (m.a[SPACE_GM].size < (i64)T || m.a[SPACE_GM].size >= (1ll << 31)) return false;
    if (!nd_region_ok(m.a[itd[TD_SPACE]], itd, VR, VC, row_mode)) return false;
    u64 vc = VC;
    if (tail) {                                  // A2/A3 fill up to the row's 32-byte boundary
        if (dtd[TD_KIND] != TK_ROW) return false;
        const u64 end = ((VC * T + 31) / 32) * 32 / T;
        vc = end > VC ? end : VC;
    }
    if (!nd_region_ok(m.a[dtd[TD_SPACE]], dtd, VR, vc, false)) return false;
    const i64 in = itd[TD_ROWS] * itd[TD_COLS] * 4, dn = dtd[TD_ROWS] * dtd[TD_COLS] * (i64)T;
    return !tiles_overlap(itd, row_mode ? (i64)VR * 4 : in, dtd, dn);
}

// One scan of the Elem loop (WRITE: move every element of a clean instance; otherwise
// return whether any table read leaves GM).
template <int TS, int OOB, int BITS, bool WRITE>
PTO_DEV int elem_scan(const i64 *P, const Mem &m) {
    const i64 *dtd = P + MG_DST, *itd = P + MG_IDX;
    const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR], *g = m.a[SPACE_GM].p;
    u8 *db = m.a[dtd[TD_SPACE]].p + dtd[TD_ADDR];
    const u64 VR = (u64)P[MG_VR], VC = (u64)P[MG_VC], cap = (u64)P[MG_CAP], tb = (u64)P[MG_TBASE];
    const u64 glim = (u64)(m.a[SPACE_GM].size - TS);
    const bool irow = itd[TD_KIND] == TK_ROW, drow = dtd[TD_KIND] == TK_ROW, sgn = itd[TD_SIGNED] != 0;
    const u64 IC = (u64)itd[TD_COLS], IR = (u64)itd[TD_ROWS], DC = (u64)dtd[TD_COLS], DR = (u64)dtd[TD_ROWS];
    int bad = 0;
    // (index word w) -> (read?, safe index); the table byte address is tb + safe*TS, and
    // `(i64)address < 0` is a huge u64 too, so one unsigned compare checks it.
    auto safe_of = [&](u32 w, bool *rd) {
        const u64 v = sgn ? (u64)(i64)(int)w : (u64)w;
        return remap(cast_index(v, BITS), cap, OOB, BITS, rd);
    };
    // A clean instance's reads all lie in GM, so under 2 GiB of GM a read is element
    // (int)safe of the table: 32-bit gather lanes.
    const u8 *t = g + tb;
    // The element a clean read leaves (0 where nothing is read). 1- and 2-byte elements have no
    // gather: their loop stays scalar, and `?:` on Zero's random "read?" became a branch there;
    // select_nb keeps it a select (as elem_round_fast).
    auto value = [&](bool rd, u64 safe) -> u64 {
        if (TS <= 2 && OOB == OOB_ZERO) return select_nb(rd, ld_at<TS>(t, (int)select_nb(rd, safe, 0)), 0);
        return rd ? ld_at<TS>(t, (int)(rd ? safe : 0)) : 0;
    };
    const bool lin = irow && drow && IC == VC && DC == VC;
    const u64 rows = lin ? 1 : VR, cols = lin ? VR * VC : VC;
    for (u64 r = 0; r < rows; ++r) {
        if (irow && drow) {                       // both RowMajor: contiguous in c
            const u8 *ir = ib + r * IC * 4;
            u8 *dr = db + r * DC * TS;
            PTO_PRAGMA(omp simd reduction(| : bad))
            for (u64 c = 0; c < cols; ++c) {
                bool rd;
                const u64 safe = safe_of((u32)ld_word<4>(ir + c * 4), &rd);
                if (WRITE) st_word<TS>(dr + c * TS, value(rd, safe));
                else bad |= (int)(rd && tb + safe * TS > glim);
            }
            continue;
        }
        PTO_PRAGMA(omp simd reduction(| : bad))
        for (u64 c = 0; c < VC; ++c) {
            const u64 io = irow ? r * IC + c : c * IR + r;
            bool rd;
            const u64 safe = safe_of((u32)ld_word<4>(ib + io * 4), &rd);
            if (WRITE) {
                const u64 dof = drow ? r * DC + c : c * DR + r;
                st_word<TS>(db + dof * TS, value(rd, safe));
            } else {
                bad |= (int)(rd && tb + safe * TS > glim);
            }
        }
    }
    return bad;
}

// One scan of the Row loop; `tail`: the A2/A3 fill from VC to the 32-byte boundary.
template <int TS, int OOB, int BITS, bool WRITE>
PTO_DEV int row_scan(const i64 *P, const Mem &m, bool tail) {
    const i64 *dtd = P + MG_DST, *itd = P + MG_IDX;
    const u8 *ib = m.a[itd[TD_SPACE]].p + itd[TD_ADDR], *g = m.a[SPACE_GM].p;
    u8 *db = m.a[dtd[TD_SPACE]].p + dtd[TD_ADDR];
    const u64 VR = (u64)P[MG_VR], VC = (u64)P[MG_VC], cap = (u64)P[MG_CAP];
    const u64 glim = (u64)(m.a[SPACE_GM].size - TS);
    const bool drow = dtd[TD_KIND] == TK_ROW, sgn = itd[TD_SIGNED] != 0;
    const u64 DC = (u64)dtd[TD_COLS], DR = (u64)dtd[TD_ROWS];
    const u64 end = ((VC * TS + 31) / 32) * 32 / TS;
    int bad = 0;
    for (u64 r = 0; r < VR; ++r) {
        const u32 w = (u32)ld_word<4>(ib + r * 4);
        const u64 v = sgn ? (u64)(i64)(int)w : (u64)w;
        bool rd;
        const u64 safe = remap(cast_index(v, BITS), cap, OOB, BITS, &rd);
        u64 s0, ss;
        row_src_line(P, safe, &s0, &ss);
        if (!WRITE) {
            if (!rd) continue;
            PTO_PRAGMA(omp simd reduction(| : bad))
            for (u64 c = 0; c < VC; ++c) bad |= (int)(s0 + c * ss > glim);
            continue;
        }
        if (drow) {
            u8 *d = db + r * DC * TS;
            PTO_PRAGMA(omp simd)
            for (u64 c = 0; c < VC; ++c)
                st_word<TS>(d + c * TS, rd ? ld_word<TS>(g + s0 + c * ss) : 0);
            if (tail && rd) {
                const u64 first = ld_word<TS>(g + s0);
                for (u64 c = VC; c < end; ++c) st_word<TS>(d + c * TS, first);
            }
        } else {
            for (u64 c = 0; c < VC; ++c)
                st_word<TS>(db + (c * DR + r) * TS, rd ? ld_word<TS>(g + s0 + c * ss) : 0);
        }
    }
    return bad;
}

// Can no Elem table read leave GM? Clamp, Wrap and Zero remap every read below cap (remap,
// either cast width), so when the first cap slots from the table base lie in GM the check
// scan has nothing to find.
PTO_DEV bool elem_reads_fit(const i64 *P, const Mem &m) {
    const u64 cap = (u64)P[MG_CAP], tb = (u64)P[MG_TBASE], T = (u64)P[MG_T];
    const i64 gsz = m.a[SPACE_GM].size;
    if (P[MG_OOB] == OOB_UNDEFINED || cap == 0 || gsz < (i64)T || tb > (u64)gsz - T) return false;
    return cap - 1 <= ((u64)gsz - T - tb) / T;
}

// The whole scalar loop of one instance (check, then write a clean instance), in vector form
// where scalar_fast_ok allows and a scan finds no bad read.
template <int TS, int OOB, int BITS>
PTO_DEV bool scalar_fast_t(const i64 *P, const Mem &m, bool row_mode, bool tail, u64 *rec) {
    if (row_mode && row_scan<TS, OOB, BITS, false>(P, m, tail)) return false;
    if (!row_mode && !elem_reads_fit(P, m) && elem_scan<TS, OOB, BITS, false>(P, m)) {
        elem_first_fault<TS, OOB, BITS>(P, m, rec);
        return true;
    }
    if (row_mode) row_scan<TS, OOB, BITS, true>(P, m, tail);
    else elem_scan<TS, OOB, BITS, true>(P, m);
    return true;
}

// scalar_fast for one element size and OOB policy (those of the block).
template <int TS, int OOB>
PTO_DEV bool scalar_fast_at(const i64 *L, const Mem &m, bool row_mode, bool tail, u64 *rec) {
    if (!scalar_fast_ok(L, m, row_mode, tail)) return false;
    return L[MG_BITS] == 32 ? scalar_fast_t<TS, OOB, 32>(L, m, row_mode, tail, rec)
                            : scalar_fast_t<TS, OOB, 64>(L, m, row_mode, tail, rec);
}

#define SCALAR_FAST_CALL(TS, OOB) done = scalar_fast_at<TS, OOB>(L, m, row_mode, tail, rec)

// True when the instance ran in vector form (clean, or an Elem fault keyed in `rec`); false:
// run the exact loops.
// Host only: a GPU thread gains nothing from it (its loop is scalar either way), and the
// 32 instantiations would multiply the device code NVRTC compiles.
PTO_DEV bool scalar_fast(const i64 *L, const Mem &m, bool row_mode, bool tail, u64 *rec) {
#if defined(PTO_HOST_SHIM) && !defined(PTOGPU_SIMT_TRACE_SHIM_H)
    bool done = false;
    A5_DISPATCH(L, SCALAR_FAST_CALL)
    return done;
#else
    (void)L, (void)m, (void)row_mode, (void)tail, (void)rec;
    return false;                    // (traced builds log stores through copy_elem / zero_elem)
#endif
}

// ---- one instance of each MGATHER-into-UB kernel --------------------------------------------
// The bodies the mgather.cu kernels run per instance, and what the executing fuzz kernel
// (fuzz.cu fuzz_exec_campaign) calls for each side. MGK_*: the kernel kinds.
enum { MGK_A5_ELEM = 0, MGK_A5_ROW, MGK_A5_SCALAR, MGK_A2A3_ROW_ND, MGK_A2A3_ELEM_ND, MGK_CPU };

// A device function compiled once and called (not inlined at every call site: the executing
// fuzz kernel calls these for both sides).
#ifdef PTO_HOST_SHIM
#define PTO_DEV_CALL static inline
#else
#define PTO_DEV_CALL __device__ __noinline__
#endif

// Scalar kernels: check every element (the first fault, keyed), then write a clean instance;
// the vector form where it applies: `fast(row, tail)` runs it and says whether it did
// (scalar_fast). The block is read in place: mg_scalar_instance passes a local copy on the
// host (byte stores cannot alias it); a specialised fuzz build (fuzz_spec.cuh) its
// compile-time constant block, every word folded.
template <class Fast>
PTO_DEV void mg_scalar_run(int kind, const i64 *L, const Mem &m, u64 *rec, Fast fast) {
    if (kind == MGK_A5_SCALAR) {                       // A5 static 1x1 (MGatherScalarImpl)
        elem_one(L, m, rec, ACT_NOTE, 0, 0);
        if (rec[0] == FAULT_NONE) elem_one(L, m, rec, ACT_WRITE, 0, 0);
        return;
    }
    // CPU simulator: one generic routine, rows in order (cpu/MGather.hpp:21-95); A2/A3 ND.
    const bool row = kind == MGK_A2A3_ROW_ND || (kind == MGK_CPU && L[MG_MODE] == MODE_ROW);
    const bool tail = kind == MGK_A2A3_ROW_ND && L[MG_TAIL] != 0;
    if (fast(row, tail)) return;
    for (int act = ACT_NOTE;; act = ACT_WRITE) {
        if (row) row_loop(L, m, rec, act, tail);
        else elem_loop(L, m, rec, act);
        if (act == ACT_WRITE || rec[0] != FAULT_NONE) return;
    }
}

PTO_DEV_CALL void mg_scalar_instance(int kind, const i64 *P, const Mem &m, u64 *rec) {
    MG_COPY_PARAMS(L, P);
    mg_scalar_run(kind, L, m, rec, [&](bool row, bool tail) { return scalar_fast(L, m, row, tail, rec); });
}

// One thread of an A5 SIMT launch (kind MGK_A5_ELEM / MGK_A5_ROW) in `pass`.
#define MG_A5_THREAD(TS, OOB) a5_thread<TS, OOB>(L, m, rec, row, pass)
PTO_DEV_CALL void mg_a5_thread_instance(int kind, const i64 *P, const Mem &m, u64 *rec, int pass) {
    MG_COPY_PARAMS(L, P);
    const bool row = kind == MGK_A5_ROW;
    A5_DISPATCH(L, MG_A5_THREAD)
}

#endif  // PTOGPU_MGATHER_IMPL_CUH
