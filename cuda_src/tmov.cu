// tmov.cu — TMOV between plain Vec tiles (docs/tmov.md; ptogpu/isa/tmov: the launch plan
// kernels.py, the rules semantics.py mirrors in NumPy).
//
//   kernel     mirrors                                                     launch per instance
//   tile_move  MV_ELEMENTS: the simulator's element loop over src's valid  dim3(1): the copy's
//              region (one type: a bit copy)                               bytes, in order
//              MV_BURSTS: A2/A3's 32-byte UB bursts, min(valid) rows and
//              columns: one flat burst of whole rows where dst's rows are
//              contiguous and full, else a burst per row rounded up to
//              whole blocks (the bytes past VC come along)
//              MV_VREGS: A5's predicated row copy, min(valid) rows and
//              columns, exactly VC elements a row
//
// Which copy a target makes, and its extent, are worked out here from the tiles' shapes and the
// engine word -- not from the NumPy semantics it is checked against. Tiles are plain row-major
// (base + (r * Cols + c) * size). Pass 0 checks every access and flags (rec[3] = 0) a source byte
// the copy also writes (the host runs NumPy, which reads everything first); pass 1 copies.
#include "common.cuh"

enum {
    MV_ENGINE = 0, MV_T, MV_S, MV_SC, MV_SVR, MV_SVC, MV_D, MV_DR, MV_DC, MV_DVR, MV_DVC, MV_DSTATIC_VC,
    MV_WORDS
};
enum { MV_ELEMENTS = 0, MV_BURSTS, MV_VREGS };

// The copy as `rows` runs of `len` bytes: run r reads s + r * ss and writes d + r * ds.
struct MvPlan {
    i64 rows, len, ss, ds;
};

PTO_DEV MvPlan mv_plan(const i64 *P) {
    const i64 T = P[MV_T];
    MvPlan p;
    if (P[MV_ENGINE] == MV_ELEMENTS) {              // src's valid region (the shapes are asserted equal)
        p.rows = P[MV_SVR];
        p.len = P[MV_SVC] * T;
        p.ss = P[MV_SC] * T;
        p.ds = P[MV_DC] * T;
        return p;
    }
    const i64 VR = P[MV_SVR] < P[MV_DVR] ? P[MV_SVR] : P[MV_DVR];
    const i64 VC = P[MV_SVC] < P[MV_DVC] ? P[MV_SVC] : P[MV_DVC];
    p.ss = P[MV_SC] * T;
    p.ds = P[MV_DC] * T;
    if (VR == 0 || VC == 0) {
        p.rows = p.len = 0;
        return p;
    }
    if (P[MV_ENGINE] == MV_VREGS) {
        p.rows = VR;
        p.len = VC * T;
        return p;
    }
    const bool flat = (P[MV_DC] == P[MV_SC] || P[MV_DR] == 1) && (P[MV_DSTATIC_VC] == P[MV_DC] || VC == P[MV_DC]);
    if (flat) {                                     // one burst of VR whole rows, rounded up to blocks
        p.rows = 1;
        p.len = (P[MV_DC] * VR * T + 31) / 32 * 32;
        return p;
    }
    p.rows = VR;
    p.len = (VC * T + 31) / 32 * 32;
    return p;
}

extern "C" __global__ void tile_move(PTO_KERNEL_PARAMS) {
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_UB_INSTANCE(inst);
        const MvPlan p = mv_plan(P);
        if (p.rows == 0 || p.len == 0) continue;
        const i64 lo = P[MV_D], hi = P[MV_D] + (p.rows - 1) * p.ds + p.len;
        if (pass == 0) {
            for (i64 r = 0; r < p.rows; ++r) {
                const i64 s = P[MV_S] + r * p.ss, d = P[MV_D] + r * p.ds;
                if (!arena_ok(U, (u64)s, p.len)) fault_note(rec, fault_key(PHASE_TABLE, (u64)r), (u64)s, 0);
                if (!arena_ok(U, (u64)d, p.len)) fault_note(rec, fault_key(PHASE_DST, (u64)r), (u64)d, 0);
                if (s < hi && lo < s + p.len && !(s == d && p.ss == p.ds)) rec[3] = 0;
            }
        } else if (rec[0] == FAULT_NONE && rec[3] != 0) {
            for (i64 r = 0; r < p.rows; ++r) {
                const u8 *s = U.p + P[MV_S] + r * p.ss;
                u8 *d = U.p + P[MV_D] + r * p.ds;
                for (i64 b = 0; b < p.len; ++b) d[b] = s[b];
            }
        }
    }
}

PTO_EXPORT(tile_move)
