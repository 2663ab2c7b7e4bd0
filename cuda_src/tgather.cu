// tgather.cu — TGATHER and TSCATTER, index forms (docs/tgather.md; ptogpu/isa/tgather,
// ptogpu/isa/tscatter; the vendor's include/pto/{cpu,npu/a2a3,npu/a5}/TGather.hpp, TScatter.hpp).
//
//   kernel          mirrors                                                launch per instance
//   tgather_index   dst[r,c] = src0_flat[idx[r,c]] over dst's valid region  dim3(1): elements in
//   tscatter_index  dst_flat[idx[i,j]] = src[i,j] over idx's valid region   program order
//   tile_mask       the mask-pattern forms of both (each target's element map)
//   tgather_cmp     TGATHER's compare form (A2/A3 and A5)
//
// Row-major tiles without boxes only (the host sends others to NumPy), so every element offset
// is r*Cols + c on every target. pass 0 checks every read and write (a fault: the host runs
// NumPy, which raises it) and flags (rec[3] = 0) a read inside the bytes the call writes (the
// host runs NumPy, which reads everything first); pass 1 writes.
#include "common.cuh"

// A scalar kernel's view of instance `inst`: its parameter block P, fault record rec and UB.

// TGATHER index form. OFFSET_MATH: how an index value becomes a source address.
enum {
    GI_VR = 0, GI_COLS, GI_T, GI_ISZ, GI_ISIGNED, GI_MATH, GI_DST, GI_DST_COLS, GI_IDX, GI_IDX_COLS,
    GI_SRC, GI_SRC_NUMEL, GI_SCRATCH, GI_WORDS
};
enum { GM_LOGICAL = 0, GM_BYTES32 = 1, GM_UNSIGNED = 2 };

// The byte address index value `raw` (sign- or zero-extended) reads; *inside = false: the
// simulator's out-of-tile index (the element is 0).
PTO_DEV i64 gi_source(const i64 *P, u64 raw, bool *inside) {
    const i64 T = P[GI_T];
    *inside = true;
    switch ((int)P[GI_MATH]) {
    case GM_LOGICAL: {                 // cpu/TGather.hpp:72-111 (row-major: the flat offset)
        const i64 v = (i64)raw;
        if (v < 0 || v >= P[GI_SRC_NUMEL]) { *inside = false; return P[GI_SRC]; }
        return P[GI_SRC] + v * T;
    }
    case GM_BYTES32:                   // a2a3: vmuls idx*sizeof(T) in int32, a u32 byte offset
        return P[GI_SRC] + (i64)(((u64)raw * (u64)T) & 0xFFFFFFFFull);
    default: {                         // a5: vgather2's unsigned lanes of the index's width
        const int bits = 8 * (int)P[GI_ISZ];
        const u64 u = bits >= 64 ? raw : (raw & ((1ull << bits) - 1));
        return P[GI_SRC] + (i64)(u * (u64)T);
    }
    }
}

extern "C" __global__ void __launch_bounds__(1024) tgather_index(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 VR = P[GI_VR], C = P[GI_COLS], T = P[GI_T], I = P[GI_ISZ];
        const int sgn = (int)P[GI_ISIGNED];
        const i64 scratch = P[GI_SCRATCH];
        if (pass == 0) {
            // the bytes the call writes: dst's rows, and the scratch rows (a2a3, b16 data)
            const i64 wlo = P[GI_DST], whi = P[GI_DST] + ((VR - 1) * P[GI_DST_COLS] + C) * T;
            const i64 slo = scratch, shi = scratch + ((VR - 1) * P[GI_DST_COLS] + C) * 4;
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < C; ++c) {
                    const u64 e = (u64)(r * C + c);
                    const i64 ia = P[GI_IDX] + (r * P[GI_IDX_COLS] + c) * I;
                    const i64 da = P[GI_DST] + (r * P[GI_DST_COLS] + c) * T;
                    if (!arena_ok(U, (u64)ia, I)) { fault_note(rec, fault_key(PHASE_INDEX, e), (u64)ia, 0); continue; }
                    if (!arena_ok(U, (u64)da, T)) fault_note(rec, fault_key(PHASE_DST, e), (u64)da, 0);
                    if (scratch >= 0 && !arena_ok(U, (u64)(scratch + (r * P[GI_DST_COLS] + c) * 4), 4))
                        fault_note(rec, fault_key(PHASE_DST, e), (u64)scratch, 0);
                    bool inside;
                    const u64 raw = load_index(U.p + ia, (int)I, sgn);
                    const i64 sa = gi_source(P, raw, &inside);
                    if (inside && !arena_ok(U, (u64)sa, T)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)sa, raw);
                    const bool in_w = (ia < whi && wlo < ia + I) || (sa < whi && wlo < sa + T);
                    const bool in_s = scratch >= 0 && ((ia < shi && slo < ia + I) || (sa < shi && slo < sa + T));
                    if (in_w || in_s) rec[3] = 0;
                }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 r = 0; r < VR; ++r)
                for (i64 c = 0; c < C; ++c) {
                    const i64 ia = P[GI_IDX] + (r * P[GI_IDX_COLS] + c) * I;
                    const i64 da = P[GI_DST] + (r * P[GI_DST_COLS] + c) * T;
                    bool inside;
                    const u64 raw = load_index(U.p + ia, (int)I, sgn);
                    const i64 sa = gi_source(P, raw, &inside);
                    if (scratch >= 0) {
                        const u32 off = (u32)(((u64)raw * (u64)T) & 0xFFFFFFFFull);
                        copy_elem(U.p + scratch + (r * P[GI_DST_COLS] + c) * 4, (const u8 *)&off, 4);
                    }
                    if (inside) copy_elem(U.p + da, U.p + sa, (int)T);
                    else zero_elem(U.p + da, (int)T);
                }
        }
    }
}

// TSCATTER index form. CAST: how an index value becomes a dst element offset.
enum {
    SI_VR = 0, SI_COLS, SI_T, SI_ISZ, SI_ISIGNED, SI_CAST, SI_CLEAR, SI_LANES, SI_LOWEST, SI_DST, SI_DST_BYTES,
    SI_SRC, SI_SRC_COLS, SI_IDX, SI_IDX_COLS, SI_WORDS
};
enum { SC_U32 = 0, SC_NATIVE = 1, SC_UNSIGNED = 2 };

PTO_DEV i64 si_target(const i64 *P, u64 raw) {
    switch ((int)P[SI_CAST]) {
    case SC_U32: return P[SI_DST] + (i64)(raw & 0xFFFFFFFFull) * P[SI_T];        // static_cast<unsigned>
    case SC_NATIVE: return P[SI_DST] + (i64)raw * P[SI_T];                       // a2a3: signed reach
    default: {                                                                  // a5: unsigned lanes
        const int bits = 8 * (int)P[SI_ISZ];
        return P[SI_DST] + (i64)(raw & ((1ull << bits) - 1)) * P[SI_T];
    }
    }
}

// One element of the scatter: its addresses.
PTO_DEV void si_elem(const i64 *P, const Arena &U, i64 r, i64 c, i64 *ia, i64 *sa, i64 *da, u64 *raw) {
    const i64 I = P[SI_ISZ];
    *ia = P[SI_IDX] + (r * P[SI_IDX_COLS] + c) * I;
    *sa = P[SI_SRC] + (r * P[SI_SRC_COLS] + c) * P[SI_T];
    *raw = arena_ok(U, (u64)*ia, I) ? load_index(U.p + *ia, (int)I, (int)P[SI_ISIGNED]) : 0;
    *da = si_target(P, *raw);
}

extern "C" __global__ void __launch_bounds__(1024) tscatter_index(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 VR = P[SI_VR], C = P[SI_COLS], T = P[SI_T], I = P[SI_ISZ], B = P[SI_LANES];
        if (pass == 0) {
            i64 lo = P[SI_CLEAR] ? P[SI_DST] : (i64)(~0ull >> 1), hi = P[SI_CLEAR] ? P[SI_DST] + P[SI_DST_BYTES] : -lo;
            for (int phase = 0; phase < 2; ++phase)       // writes first (their span), then the reads
                for (i64 r = 0; r < VR; ++r)
                    for (i64 c = 0; c < C; ++c) {
                        const u64 e = (u64)(r * C + c);
                        i64 ia, sa, da;
                        u64 raw;
                        si_elem(P, U, r, c, &ia, &sa, &da, &raw);
                        if (phase == 0) {
                            if (!arena_ok(U, (u64)ia, I)) { fault_note(rec, fault_key(PHASE_INDEX, e), (u64)ia, 0); continue; }
                            if (!arena_ok(U, (u64)sa, T)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)sa, 0);
                            if (!arena_ok(U, (u64)da, T)) fault_note(rec, fault_key(PHASE_DST, e), (u64)da, raw);
                            if (da < lo) lo = da;
                            if (da + T > hi) hi = da + T;
                        } else if ((ia < hi && lo < ia + I) || (sa < hi && lo < sa + T)) {
                            rec[3] = 0;
                        }
                    }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            if (P[SI_CLEAR]) PTO_MEMSET0(U.p + P[SI_DST], P[SI_DST_BYTES]);
            for (i64 r = 0; r < VR; ++r)
                for (i64 j0 = 0; j0 < C; j0 += B) {        // one vscatter per chunk of B lanes
                    const i64 n = C - j0 < B ? C - j0 : B;
                    for (i64 k = 0; k < n; ++k) {
                        // program order; or the chunk's lanes from its last, so its lowest lane
                        // writes last and stays (SI_LOWEST)
                        const i64 j = j0 + (P[SI_LOWEST] ? n - 1 - k : k);
                        i64 ia, sa, da;
                        u64 raw;
                        si_elem(P, U, r, j, &ia, &sa, &da, &raw);
                        copy_elem(U.p + da, U.p + sa, (int)T);
                    }
                }
        }
    }
}

// ---- the mask-pattern forms ---------------------------------------------------------------
// One map per (instruction, axis, target form); entry e -> (dst element, src element or -1: a
// zero). MK_T is the element size moved (A2/A3's COL copy of 1-byte data moves 2*VC bytes: the
// host sends T = 1 and twice the columns).
enum {
    MK_OP = 0, MK_F, MK_POS, MK_T, MK_SVR, MK_SVC, MK_SRC, MK_SCOLS, MK_DVR, MK_DVC, MK_DST, MK_DCOLS,
    MK_DBYTES, MK_CLEAR, MK_OFF16, MK_WIDE, MK_WORDS
};
enum {
    MO_GROW = 0,      // TGATHER ROW: the selected columns of every src row, one stream from dst's base
    MO_GROW_B64,      // A5 8-byte ROW: rows Cols/F apart, floor(VC/F) (<= WIDE) each
    MO_GCOL_SEL,      // the simulator's COL: the selected rows, in order
    MO_GCOL_ALL,      // the NPUs' COL: src.VR rows, row i from src row F*i + pos
    MO_SROW,          // the NPUs' TSCATTER ROW: src (i, j) to dst (i, F*j + pos)
    MO_SCOL,          // the NPUs' TSCATTER COL: src row i to dst row F*i + pos
    MO_SROW_CUR,      // the simulator's ROW: over dst's valid columns, src by one running cursor
    MO_SCOL_SEL       // the simulator's COL: over dst's valid rows, the selected take src rows in order
};

PTO_DEV i64 mk_sel(i64 n, i64 F, i64 pos) { return F == 1 ? n : (n > pos ? (n - pos + F - 1) / F : 0); }

PTO_DEV i64 mk_entries(const i64 *P) {
    const i64 F = P[MK_F], pos = P[MK_POS];
    switch ((int)P[MK_OP]) {
    case MO_GROW: return P[MK_SVR] * mk_sel(P[MK_SVC], F, pos);
    case MO_GROW_B64: {
        const i64 c = P[MK_SVC] / F;
        return P[MK_SVR] * (c < P[MK_WIDE] ? c : P[MK_WIDE]);
    }
    case MO_GCOL_SEL: return mk_sel(P[MK_SVR], F, pos) * P[MK_SVC];
    case MO_SROW_CUR: return P[MK_SVR] * P[MK_DVC];
    case MO_SCOL_SEL: return P[MK_DVR] * P[MK_DVC];
    case MO_SROW: return P[MK_SVR] * (P[MK_SVC] < P[MK_WIDE] ? P[MK_SVC] : P[MK_WIDE]);
    default: return P[MK_SVR] * P[MK_SVC];
    }
}

PTO_DEV void mk_entry(const i64 *P, i64 e, i64 *d, i64 *s) {
    const i64 F = P[MK_F], pos = P[MK_POS], SC = P[MK_SCOLS], DC = P[MK_DCOLS];
    const bool all = F == 1;
    switch ((int)P[MK_OP]) {
    case MO_GROW: {
        const i64 cnt = mk_sel(P[MK_SVC], F, pos), r = e / cnt, k = e % cnt;
        *d = e; *s = r * SC + (all ? k : F * k + pos);
        return;
    }
    case MO_GROW_B64: {
        const i64 c = P[MK_SVC] / F, cnt = c < P[MK_WIDE] ? c : P[MK_WIDE], r = e / cnt, k = e % cnt;
        *d = r * (DC / F) + k; *s = r * SC + F * k + pos;
        return;
    }
    case MO_GCOL_SEL: {
        const i64 j = e / P[MK_SVC], c = e % P[MK_SVC];
        *d = j * DC + c; *s = (all ? j : F * j + pos) * SC + c;
        return;
    }
    case MO_GCOL_ALL: {
        const i64 i = e / P[MK_SVC], c = e % P[MK_SVC];
        *d = i * DC + c; *s = (F * i + pos) * SC + c;
        return;
    }
    case MO_SROW: {
        const i64 w = P[MK_SVC] < P[MK_WIDE] ? P[MK_SVC] : P[MK_WIDE], i = e / w, j = e % w;
        *d = i * DC + F * j + pos; *s = i * SC + j;
        return;
    }
    case MO_SCOL: {
        const i64 i = e / P[MK_SVC], j = e % P[MK_SVC];
        i64 row = (F * i + pos) * DC;
        if (P[MK_OFF16]) row &= 0xFFFF;                        // the offset is a uint16_t
        *d = row + j; *s = i * SC + j;
        return;
    }
    case MO_SROW_CUR: {
        const i64 r = e / P[MK_DVC], c = e % P[MK_DVC];
        *d = r * DC + c;
        *s = (all || c % F == pos) ? r * mk_sel(P[MK_DVC], F, pos) + mk_sel(c, F, pos) : -1;  // the cursor, flat
        return;
    }
    default: {                                                 // MO_SCOL_SEL
        const i64 r = e / P[MK_DVC], c = e % P[MK_DVC];
        *d = r * DC + c;
        *s = (all || r % F == pos) ? mk_sel(r, F, pos) * SC + c : -1;
        return;
    }
    }
}

extern "C" __global__ void __launch_bounds__(1024) tile_mask(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 M = mk_entries(P), T = P[MK_T];
        if (pass == 0) {
            i64 lo = P[MK_CLEAR] ? P[MK_DST] : (i64)(~0ull >> 1), hi = P[MK_CLEAR] ? P[MK_DST] + P[MK_DBYTES] : -lo;
            for (int phase = 0; phase < 2; ++phase)
                for (i64 e = 0; e < M; ++e) {
                    i64 d, s;
                    mk_entry(P, e, &d, &s);
                    const i64 da = P[MK_DST] + d * T, sa = P[MK_SRC] + s * T;
                    if (phase == 0) {
                        if (s >= 0 && !arena_ok(U, (u64)sa, T)) fault_note(rec, fault_key(PHASE_TABLE, (u64)e), (u64)sa, 0);
                        if (!arena_ok(U, (u64)da, T)) fault_note(rec, fault_key(PHASE_DST, (u64)e), (u64)da, 0);
                        if (da < lo) lo = da;
                        if (da + T > hi) hi = da + T;
                    } else if (s >= 0 && sa < hi && lo < sa + T) {
                        rec[3] = 0;                            // a read of written bytes: NumPy
                    }
                }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            if (P[MK_CLEAR]) PTO_MEMSET0(U.p + P[MK_DST], P[MK_DBYTES]);
            for (i64 e = 0; e < M; ++e) {
                i64 d, s;
                mk_entry(P, e, &d, &s);
                if (s >= 0) copy_elem(U.p + P[MK_DST] + d * T, U.p + P[MK_SRC] + s * T, (int)T);
                else zero_elem(U.p + P[MK_DST] + d * T, (int)T);
            }
        }
    }
}

// ---- TGATHER's compare form ----------------------------------------------------------------
// Per src row i < VR: the columns j < W where src[i, j] cmp k[i], their indices
// offset + i*STRIDE + j left-packed into dst row i (DROW elements apart), their count into
// cdst[i]; every dst write first, then the counts. W and STRIDE from the target's rule (worked
// out here, apart from the NumPy semantics): A2/A3 compares the VC valid columns and steps rows
// by src's Cols; A5 compares whole repeats of 256 bytes (128 lanes for 1-byte types, else 64)
// but only the VC columns on the 32-bit types (plt), and steps rows by the padded width.
enum {
    CM_VR = 0, CM_VC, CM_T, CM_KIND, CM_GT, CM_A5, CM_SRC, CM_SCOLS, CM_K, CM_KSIZE, CM_KSIGNED, CM_DST,
    CM_DROW, CM_CDST, CM_CSIZE, CM_OFFSET, CM_WORDS
};
enum { CK_F32 = 0, CK_F16, CK_I32, CK_U32, CK_I16, CK_U16, CK_I8, CK_U8 };

PTO_DEV void cm_width(const i64 *P, i64 &W, i64 &stride) {
    const i64 VC = P[CM_VC];
    if (!P[CM_A5]) {
        W = VC;
        stride = P[CM_SCOLS];
        return;
    }
    const i64 E = P[CM_T] == 1 ? 128 : 64;
    const int k = (int)P[CM_KIND];
    stride = (VC + E - 1) / E * E;
    W = (k == CK_F32 || k == CK_I32 || k == CK_U32) ? VC : stride;
}

PTO_DEV float cm_bits(u32 b) {
    float f;
    PTO_MEMCPY(&f, &b, 4);
    return f;
}

PTO_DEV float cm_h2f(u32 h) {                            // every half is a float
    const u32 e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    float v;
    if (e == 0) v = (float)m * 5.9604644775390625e-08f;   // m * 2^-24
    else if (e == 31) v = cm_bits(m ? 0x7FC00000u : 0x7F800000u);
    else v = (float)(m | 0x400u) * cm_bits((e + 127u - 25u) << 23);
    return (h >> 15) ? -v : v;
}

PTO_DEV float cm_half_of_int(i64 k) {                    // (half)k for |k| <= 32768: ties to even
    const i64 a = k < 0 ? -k : k;
    int bits = 0;
    while ((a >> bits) > 0) ++bits;
    i64 q = a;
    if (bits > 11) {
        const int sh = bits - 11;
        const i64 rem = a & ((1ll << sh) - 1), h = 1ll << (sh - 1);
        q = a >> sh;
        if (rem > h || (rem == h && (q & 1))) ++q;
        q <<= sh;
    }
    return (float)(k < 0 ? -q : q);
}

// One score against k: true when it matches.
PTO_DEV bool cm_match(const i64 *P, const u8 *sp, const u8 *kp) {
    const int kind = (int)P[CM_KIND];
    bool gt = P[CM_GT] != 0;
    const u64 kraw = load_index(kp, (int)P[CM_KSIZE], (int)P[CM_KSIGNED]);
    const u64 bits = load_index(sp, (int)P[CM_T], 0);
    if (!P[CM_A5]) {                                   // A2/A3: k converted to S, S's own compare
        // (the host reads k as int32 for float data, int16 for half: vconv_s322f32 / s162f16)
        if (kind == CK_F32) {
            const float k = (float)(int)(u32)kraw, v = cm_bits((u32)bits);
            return gt ? v > k : v == k;
        }
        if (kind == CK_F16) {
            const float k = cm_half_of_int((i64)(short)(unsigned short)kraw), v = cm_h2f((u32)bits);
            return gt ? v > k : v == k;
        }
        const int k = (int)(u32)kraw, v = (int)(u32)bits;
        return gt ? v > k : v == k;
    }
    const u64 k32 = kraw & 0xFFFFFFFFull;
    if (kind == CK_F32) {                              // the score rounded to an integer, as u32
        const float x = cm_bits((u32)bits);
        i64 r;
        if (x != x) r = 0;
        else if (x >= 2147483647.0f) r = 2147483647ll;
        else if (x <= -2147483648.0f) r = -2147483648ll;
        else {                                         // to nearest, ties to even (ROUND_R)
            const double d = (double)x;
            r = (i64)d;
            const double f = d - (double)r;
            if (f > 0.5 || (f == 0.5 && (r & 1))) ++r;
            else if (f < -0.5 || (f == -0.5 && (r & 1))) --r;
        }
        const u64 v = (u64)r & 0xFFFFFFFFull;
        return gt ? v > k32 : v == k32;
    }
    if (kind == CK_F16) {
        const float k = (float)(short)(unsigned short)kraw, v = cm_h2f((u32)bits);
        return gt ? v > k : v == k;
    }
    if (kind == CK_U16) gt = false;                    // a5:941-946: b16_eq
    return gt ? bits > k32 : bits == k32;
}

extern "C" __global__ void __launch_bounds__(1024) tgather_cmp(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const i64 VR = P[CM_VR], T = P[CM_T], KS = P[CM_KSIZE], CS = P[CM_CSIZE];
        i64 W, STRIDE;
        cm_width(P, W, STRIDE);
        if (pass == 0) {
            // the bytes written: dst's rows [dlo, dhi) and the counts [clo, chi)
            const i64 clo = P[CM_CDST], chi = P[CM_CDST] + VR * CS;
            i64 dlo = (i64)(~0ull >> 1), dhi = -dlo;
            for (int phase = 0; phase < 2; ++phase)
                for (i64 i = 0; i < VR; ++i) {
                    const i64 ka = P[CM_K] + i * KS, ca = P[CM_CDST] + i * CS;
                    if (phase == 0) {
                        if (!arena_ok(U, (u64)ka, KS)) { fault_note(rec, fault_key(PHASE_INDEX, (u64)i), (u64)ka, 0); continue; }
                        if (!arena_ok(U, (u64)ca, CS)) fault_note(rec, fault_key(PHASE_DST, (u64)i), (u64)ca, 0);
                    } else if ((ka < dhi && dlo < ka + KS) || (ka < chi && clo < ka + KS)) {
                        rec[3] = 0;
                    }
                    i64 n = 0;
                    for (i64 j = 0; j < W; ++j) {
                        const i64 sa = P[CM_SRC] + (i * P[CM_SCOLS] + j) * T;
                        if (phase == 0) {
                            if (!arena_ok(U, (u64)sa, T)) { fault_note(rec, fault_key(PHASE_TABLE, (u64)(i * W + j)), (u64)sa, 0); continue; }
                            if (!arena_ok(U, (u64)ka, KS) || !cm_match(P, U.p + sa, U.p + ka)) continue;
                            const i64 da = P[CM_DST] + (i * P[CM_DROW] + n++) * 4;
                            if (!arena_ok(U, (u64)da, 4)) fault_note(rec, fault_key(PHASE_DST, (u64)(i * W + j)), (u64)da, 0);
                            if (da < dlo) dlo = da;
                            if (da + 4 > dhi) dhi = da + 4;
                        } else if ((sa < dhi && dlo < sa + T) || (sa < chi && clo < sa + T)) {
                            rec[3] = 0;
                        }
                    }
                }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (int phase = 0; phase < 2; ++phase)        // the indices, then the counts
                for (i64 i = 0; i < VR; ++i) {
                    const u8 *kp = U.p + P[CM_K] + i * KS;
                    u64 n = 0;
                    for (i64 j = 0; j < W; ++j) {
                        if (!cm_match(P, U.p + P[CM_SRC] + (i * P[CM_SCOLS] + j) * T, kp)) continue;
                        const u32 v = (u32)(P[CM_OFFSET] + i * STRIDE + j);
                        if (phase == 0) copy_elem(U.p + P[CM_DST] + (i * P[CM_DROW] + (i64)n) * 4, (const u8 *)&v, 4);
                        ++n;
                    }
                    if (phase == 1) copy_elem(U.p + P[CM_CDST] + i * CS, (const u8 *)&n, (int)CS);
                }
        }
    }
}

PTO_EXPORT(tgather_index)
PTO_EXPORT(tscatter_index)
PTO_EXPORT(tile_mask)
PTO_EXPORT(tgather_cmp)
