// sort.cu — TSORT32 and TMRGSORT (docs/sort.md; ptogpu/isa/sort: the launch plan kernels.py,
// the rules semantics.py mirrors in NumPy).
//
//   kernel        mirrors                                                  launch per instance
//   tile_sort32   per row, each block of 32 (value, index) pairs sorted    dim3(1): rows, then
//                 descending by value, NaN last, ties by the index value   blocks, in order
//                 (the simulator) or by position (the NPUs), written as
//                 8-byte records (value bits, zero pad, uint32 index)
//   tile_mrgsort  2 to 4 sorted record lists merged (the greatest head;    dim3(1): record by
//                 the lower list on a tie; a NaN head never wins), or a    record
//                 row's groups of 4 sorted blocks merged
//
// The rows, blocks and lanes a target sorts (the simulator's partial last block; the NPUs'
// dropped tail, or with tmp a tail padded with NaN), an idx tile of one row serving every row,
// the simulator's nothing-at-all on an idx of another valid shape, are worked out here from the
// target's rule words, not from the NumPy semantics it is checked against. The host sends plain
// row-major tiles and no case of the two modelled vendor bugs (A2/A3 and A5 rows of 255 * k
// blocks, the simulator's 2-byte block offsets). Pass 0 checks every access and flags (rec[3] = 0)
// a read of bytes the call writes; pass 1 sorts and writes.
#include "float_bits.cuh"

enum {
    SO_KIND = 0, SO_SRC, SO_SC, SO_SVR, SO_SVC, SO_IDX, SO_IC, SO_IVR, SO_IVC, SO_DST, SO_DC, SO_DVR, SO_TAIL,
    SO_HAS_TMP, SO_TIES, SO_ROWS_DST, SO_IDX_BCAST, SO_IDX_SAME, SO_WORDS
};
enum { SK_F32 = 0, SK_F16, SK_BF16, SK_I32, SK_I16 };
enum { TAIL_PARTIAL = 0, TAIL_DROP = 1 };
enum { TIES_IDX = 0, TIES_POSITION = 1 };

PTO_DEV int so_size(int k) { return k == SK_F32 || k == SK_I32 ? 4 : 2; }

// A value's sort key (NaN as NaN; integers exact).
PTO_DEV double so_key(u32 b, int k) {
    if (k == SK_I32 || k == SK_I16) return (double)fb_int(b, so_size(k), true);
    return fb_float(b, so_size(k), k == SK_BF16);
}

struct SoGeo {
    i64 rows, nb, lanes;        // rows sorted, blocks a row, lanes that are the row's (< lanes: inside)
};

PTO_DEV SoGeo so_geo(const i64 *P) {
    SoGeo g = {0, 0, 0};
    const i64 C = P[SO_SVC];
    if (P[SO_IDX_SAME] && (P[SO_SVR] == 0 || C == 0 || P[SO_IVR] != P[SO_SVR] || P[SO_IVC] != C)) return g;
    g.rows = P[SO_ROWS_DST] ? P[SO_DVR] : P[SO_SVR];
    if (P[SO_TAIL] == TAIL_PARTIAL) {
        g.nb = (C + 31) / 32;
        g.lanes = C;
    } else if (!P[SO_HAS_TMP]) {
        g.nb = C / 32;
        g.lanes = g.nb * 32;
    } else {
        g.nb = (C + 31) / 32;
        g.lanes = g.nb * 32;
    }
    if (g.rows == 0 || g.nb == 0) g.rows = g.nb = 0;
    return g;
}

// Records of block b of row r that are written: the first `n` (the simulator's partial block).
PTO_DEV i64 so_count(const i64 *P, const SoGeo &g, i64 b) {
    return P[SO_TAIL] == TAIL_PARTIAL && b == g.nb - 1 ? P[SO_SVC] - 32 * (g.nb - 1) : 32;
}

extern "C" __global__ void __launch_bounds__(1024) tile_sort32(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const int k = (int)P[SO_KIND], T = so_size(k), E = 8 / T;
        const SoGeo g = so_geo(P);
        if (g.rows == 0) continue;
        const i64 C = P[SO_SVC];
        const bool bcast = P[SO_IDX_BCAST] && P[SO_IVR] == 1;
        const i64 lo = P[SO_DST], hi = P[SO_DST] + ((g.rows - 1) * P[SO_DC] + 32 * (g.nb - 1) * E + 32 * E) * T;
        if (pass == 0) {
            for (i64 r = 0; r < g.rows; ++r) {
                const i64 ri = bcast ? 0 : r;
                for (i64 c = 0; c < g.nb * 32; ++c) {
                    const u64 e = (u64)(r * g.nb * 32 + c);
                    const i64 sa = P[SO_SRC] + (r * P[SO_SC] + (c < C ? c : 0)) * T;
                    const i64 ia = P[SO_IDX] + (ri * P[SO_IC] + (c < g.lanes ? c : 0)) * 4;
                    if (!arena_ok(U, (u64)sa, T)) fault_note(rec, fault_key(PHASE_TABLE, e), (u64)sa, 0);
                    if (!arena_ok(U, (u64)ia, 4)) fault_note(rec, fault_key(PHASE_INDEX, e), (u64)ia, 0);
                    if ((sa < hi && lo < sa + T) || (ia < hi && lo < ia + 4)) rec[3] = 0;
                    const i64 b = c / 32, p = c % 32;
                    if (p < so_count(P, g, b)) {
                        const i64 da = P[SO_DST] + (r * P[SO_DC] + 32 * b * E + p * E) * T;
                        if (!arena_ok(U, (u64)da, 8)) fault_note(rec, fault_key(PHASE_DST, e), (u64)da, 0);
                    }
                }
            }
            continue;
        }
        if (rec[0] != FAULT_NONE || rec[3] == 0) continue;
        const u32 nan_bits = T == 4 ? 0x7FC00000u : 0x7E00u;
        for (i64 r = 0; r < g.rows; ++r) {
            const i64 ri = bcast ? 0 : r;
            for (i64 b = 0; b < g.nb; ++b) {
                u32 vb[32], ib[32];
                double key[32];
                int ord[32];
                for (int p = 0; p < 32; ++p) {
                    const i64 c = 32 * b + p;
                    u32 v = 0, ix = 0;
                    PTO_MEMCPY(&v, U.p + P[SO_SRC] + (r * P[SO_SC] + (c < C ? c : 0)) * T, T);
                    PTO_MEMCPY(&ix, U.p + P[SO_IDX] + (ri * P[SO_IC] + (c < g.lanes ? c : 0)) * 4, 4);
                    vb[p] = c < C ? v : nan_bits;
                    ib[p] = ix;
                    key[p] = c < g.lanes ? so_key(vb[p], k) : so_key(nan_bits, SK_F32);
                    ord[p] = p;
                }
                // stable insertion sort: NaN last, then descending, then the tie rule
                for (int i = 1; i < 32; ++i) {
                    const int x = ord[i];
                    int j = i - 1;
                    for (; j >= 0; --j) {
                        const int y = ord[j];
                        const bool nx = key[x] != key[x], ny = key[y] != key[y];
                        bool before;                            // x before y?
                        if (nx != ny) before = !nx;
                        else if (!nx && key[x] != key[y]) before = key[x] > key[y];
                        else before = P[SO_TIES] == TIES_IDX ? ib[x] < ib[y] : x < y;
                        if (!before) break;
                        ord[j + 1] = y;
                    }
                    ord[j + 1] = x;
                }
                const i64 n = so_count(P, g, b);
                for (i64 p = 0; p < n; ++p) {
                    u8 *d = U.p + P[SO_DST] + (r * P[SO_DC] + 32 * b * E + p * E) * T;
                    const u64 recd = (u64)vb[ord[p]] | ((u64)ib[ord[p]] << 32);
                    PTO_MEMCPY(d, &recd, 8);
                }
            }
        }
    }
}

PTO_EXPORT(tile_sort32)

// ---- TMRGSORT --------------------------------------------------------------------------------
// The target's rule words: where the merge goes (MERGE_DST, the simulator: record by record into
// dst, at most dst's records, heads read from memory as it is written; MERGE_TMP, the NPUs: every
// record into tmp, then dst's valid bytes in whole 32-byte blocks from tmp), whether the counts
// are written without exhausted mode, and the single-list form's group count (from dst's or
// src's valid columns, the latter a uint8 repeat) and early returns. The host sends the tiles'
// addresses and valid columns; the record counts are worked out here. The counts come back in
// the instance's record: rec[1] the four 16-bit heads, rec[2] 1 where they were written.
enum {
    MG_KIND = 0, MG_FORM, MG_NL, MG_S0, MG_S1, MG_S2, MG_S3, MG_V0, MG_V1, MG_V2, MG_V3, MG_DST, MG_DVC, MG_TMP,
    MG_EXH, MG_MERGE, MG_COUNTS_ALWAYS, MG_SRC, MG_SVC, MG_BLOCK, MG_SINGLE_FROM_DST, MG_SINGLE_CHECKS,
    MG_WORDS
};
enum { MK_F32 = 0, MK_F16, MK_BF16, MK_I8, MK_U8, MK_I16, MK_U16, MK_I32, MK_U32, MK_I64, MK_U64 };
enum { FORM_LISTS = 0, FORM_SINGLE = 1 };
enum { MERGE_DST = 0, MERGE_TMP = 1 };

PTO_DEV int mg_size(int k) {
    return k == MK_F32 || k == MK_I32 || k == MK_U32 ? 4 : k == MK_F16 || k == MK_BF16 || k == MK_I16 || k == MK_U16
           ? 2 : k == MK_I8 || k == MK_U8 ? 1 : 8;
}

// A record's value as the merge compares it (a double: NaN never greater).
PTO_DEV double mg_value(const u8 *p, int k) {
    u64 b = 0;
    PTO_MEMCPY(&b, p, mg_size(k));
    switch (k) {
    case MK_F32: case MK_F16: case MK_BF16: return fb_float(b, mg_size(k), k == MK_BF16);
    case MK_U64: return (double)b;
    case MK_U8: case MK_U16: case MK_U32: return (double)fb_int(b, mg_size(k), false);
    default: return (double)fb_int(b, mg_size(k), true);
    }
}

// The next list to take from: the first with records left whose head is greater than every
// earlier candidate's (strict: the lower list keeps a tie; a NaN head loses to every other).
PTO_DEV int mg_pick(const u8 *base, const i64 *addr, const i64 *n, const i64 *head, int nl, int k) {
    int pick = -1;
    double pv = 0;
    for (int j = 0; j < nl; ++j) {
        if (head[j] >= n[j]) continue;
        const double v = mg_value(base + addr[j] + 8 * head[j], k);
        if (pick < 0 || v > pv) { pick = j; pv = v; }
    }
    return pick;
}

PTO_DEV bool mg_any_empty(const i64 *n, const i64 *head, int nl) {
    for (int j = 0; j < nl; ++j)
        if (head[j] == n[j]) return true;
    return false;
}

// The lists merged into 8-byte records at `out` on, at most `cap` of them (cap < 0: no bound),
// stopping after the record that empties a list when `exh`. A record goes through a register:
// `out` may be a list's own bytes (the simulator merging a row into itself).
PTO_DEV void mg_merge(u8 *base, const i64 *addr, const i64 *n, i64 *head, int nl, int k, i64 out, i64 cap,
                      bool exh) {
    for (i64 w = 0; cap < 0 || w < cap; ++w) {
        const int j = mg_pick(base, addr, n, head, nl, k);
        if (j < 0) return;
        u8 r8[8];
        PTO_MEMCPY(r8, base + addr[j] + 8 * head[j], 8);
        PTO_MEMCPY(base + out + 8 * w, r8, 8);
        ++head[j];
        if (exh && mg_any_empty(n, head, nl)) return;
    }
}

PTO_DEV bool mg_overlap(i64 a, i64 an, i64 b, i64 bn) { return an > 0 && bn > 0 && a < b + bn && b < a + an; }

extern "C" __global__ void __launch_bounds__(1024) tile_mrgsort(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const int k = (int)P[MG_KIND];
        const i64 E = 8 / mg_size(k);
        if (P[MG_FORM] == FORM_SINGLE) {
            const i64 bl = P[MG_BLOCK];
            if (P[MG_SINGLE_CHECKS] && (bl == 0 || bl % E)) continue;
            const i64 S = bl / E;
            const i64 groups = bl == 0 ? 0 : P[MG_SINGLE_FROM_DST] ? P[MG_DVC] / (4 * bl) : (P[MG_SVC] / (4 * bl)) % 256;
            if (groups == 0 || S == 0) continue;
            const i64 nbytes = groups * 4 * S * 8;
            if (pass == 0) {
                if (!arena_ok(U, (u64)P[MG_SRC], nbytes)) fault_note(rec, fault_key(PHASE_TABLE, 0), (u64)P[MG_SRC], 0);
                if (!arena_ok(U, (u64)P[MG_DST], nbytes)) fault_note(rec, fault_key(PHASE_DST, 0), (u64)P[MG_DST], 0);
                if (mg_overlap(P[MG_SRC], nbytes, P[MG_DST], nbytes)) rec[3] = 0;   // every block is read first
                continue;
            }
            if (rec[0] != FAULT_NONE || rec[3] == 0) continue;
            for (i64 g = 0; g < groups; ++g) {
                i64 addr[4], n[4] = {S, S, S, S}, head[4] = {0, 0, 0, 0};
                for (int j = 0; j < 4; ++j) addr[j] = P[MG_SRC] + (g * 4 + j) * S * 8;
                mg_merge(U.p, addr, n, head, 4, k, P[MG_DST] + g * 4 * S * 8, -1, false);
            }
            continue;
        }
        const int nl = (int)P[MG_NL];
        i64 addr[4], n[4], head[4] = {0, 0, 0, 0}, total = 0;
        for (int j = 0; j < 4; ++j) {
            addr[j] = j < nl ? P[MG_S0 + j] : 0;
            n[j] = j < nl ? P[MG_V0 + j] / E : 0;
            total += n[j];
        }
        const i64 cap = P[MG_DVC] / E;
        if (P[MG_MERGE] == MERGE_DST) {
            i64 lo = P[MG_DST], hi = P[MG_DST] + cap * 8;
            for (int j = 0; j < nl; ++j) {
                lo = addr[j] < lo ? addr[j] : lo;
                hi = addr[j] + n[j] * 8 > hi ? addr[j] + n[j] * 8 : hi;
            }
            if (hi <= lo) continue;                         // nothing read, nothing written, no counts
            if (pass == 0) {
                for (int j = 0; j < nl; ++j)
                    if (n[j] && !arena_ok(U, (u64)addr[j], n[j] * 8)) fault_note(rec, fault_key(PHASE_TABLE, j), (u64)addr[j], 0);
                if (cap && !arena_ok(U, (u64)P[MG_DST], cap * 8)) fault_note(rec, fault_key(PHASE_DST, 0), (u64)P[MG_DST], 0);
                continue;                                   // (in place: what the merge wrote is what it reads)
            }
            if (rec[0] != FAULT_NONE || rec[3] == 0) continue;
            mg_merge(U.p, addr, n, head, nl, k, P[MG_DST], cap, P[MG_EXH] != 0);
        } else {
            const i64 db = (P[MG_DVC] * mg_size(k) + 31) / 32 * 32;     // whole blocks tmp -> dst
            if (pass == 0) {
                for (int j = 0; j < nl; ++j) {
                    if (n[j] && !arena_ok(U, (u64)addr[j], n[j] * 8)) fault_note(rec, fault_key(PHASE_TABLE, j), (u64)addr[j], 0);
                    if (mg_overlap(addr[j], n[j] * 8, P[MG_TMP], total * 8)) rec[3] = 0;   // lists are read first
                }
                if (total && !arena_ok(U, (u64)P[MG_TMP], total * 8)) fault_note(rec, fault_key(PHASE_DST, 1), (u64)P[MG_TMP], 0);
                if (db && !arena_ok(U, (u64)P[MG_TMP], db)) fault_note(rec, fault_key(PHASE_INDEX, 0), (u64)P[MG_TMP], 0);
                if (db && !arena_ok(U, (u64)P[MG_DST], db)) fault_note(rec, fault_key(PHASE_DST, 2), (u64)P[MG_DST], 0);
                continue;
            }
            if (rec[0] != FAULT_NONE || rec[3] == 0) continue;
            mg_merge(U.p, addr, n, head, nl, k, P[MG_TMP], -1, P[MG_EXH] != 0);
            if (P[MG_DST] < P[MG_TMP])                      // tmp -> dst as one read then one write
                for (i64 b = 0; b < db; ++b) U.p[P[MG_DST] + b] = U.p[P[MG_TMP] + b];
            else
                for (i64 b = db - 1; b >= 0; --b) U.p[P[MG_DST] + b] = U.p[P[MG_TMP] + b];
            if (!P[MG_EXH] && !P[MG_COUNTS_ALWAYS]) continue;
        }
        rec[1] = (u64)(head[0] & 0xFFFF) | (u64)(head[1] & 0xFFFF) << 16 | (u64)(head[2] & 0xFFFF) << 32 |
                 (u64)(head[3] & 0xFFFF) << 48;
        rec[2] = 1;
    }
}

PTO_EXPORT(tile_mrgsort)
