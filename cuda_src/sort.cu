// sort.cu — TSORT32 (docs/sort.md; ptogpu/isa/sort: the launch plan kernels.py, the rules
// semantics.py mirrors in NumPy).
//
//   kernel       mirrors                                                   launch per instance
//   tile_sort32  per row, each block of 32 (value, index) pairs sorted     dim3(1): rows, then
//                descending by value, NaN last, ties by the index value    blocks, in order
//                (the simulator) or by position (the NPUs), written as
//                8-byte records (value bits, zero pad, uint32 index)
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

extern "C" __global__ void tile_sort32(PTO_KERNEL_PARAMS) {
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
