// reg_gather.cu — the register-level gathers of Ascend 950 (ptogpu/reg/datacopy.py).
//
//   kernel        mirrors                                           launch per instance
//   reg_gather    Reg::Gather (vgather2): lane i <- base[index[i]]  dim3(32, ceil(lanes/32)): one
//                 for active lanes, 0 for the others                thread per lane, 2 passes
//   reg_gatherb   Reg::GatherB (vgatherb): block k < 8 <- the 32    dim3(8): one thread per block,
//                 bytes at base + index[k] (rounded down to 32)     2 passes
//
// The destination register is the third arena (the L1 slot of the uniform signature): lanes of
// `dsize` bytes, in order. Index values and the active mask are register contents, so they
// arrive in the parameter block after the header (RG_HDR): index[lanes], then active[lanes].
// pass 0 checks every read (atomicMin of the fault key), pass 1 writes the register of a
// clean instance. b64 lanes read two 32-bit words (2*idx, 2*idx+1, mod 2^32): low words are
// phase 1, high words phase 2. b8 sources zero-extend into b16 lanes.
#include "common.cuh"

enum { RG_LANES = 0, RG_MODE, RG_SSIZE, RG_DSIZE, RG_BASE, RG_HDR };
enum { RG_SAME = 0, RG_B8_TO_B16 = 1, RG_B64_WORDS = 2, RG_BLOCKS = 3 };

extern "C" __global__ void __launch_bounds__(1024) reg_gather(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
        const Arena &U = m.a[SPACE_UB], &R = m.a[SPACE_L1];
        const i64 n = P[RG_LANES], mode = P[RG_MODE], ss = P[RG_SSIZE], ds = P[RG_DSIZE];
        const i64 *idx = P + RG_HDR, *on = P + RG_HDR + n;
        const i64 lane = (i64)(threadIdx.y * 32u + threadIdx.x);
        if (threadIdx.x >= 32u || lane >= n) continue;
        const int act = simt_act(pass, rec);
        if (act == ACT_FILL) continue;
        u8 *out = R.p + lane * ds;
        if (!on[lane]) {
            if (act == ACT_WRITE) zero_elem(out, (int)ds);
            continue;
        }
        const u64 ix = (u64)idx[lane];
        if (mode == RG_B64_WORDS) {
            const u64 lo = (u64)P[RG_BASE] + ((2 * ix) & 0xFFFFFFFFull) * 4;
            const u64 hi = (u64)P[RG_BASE] + ((2 * ix + 1) & 0xFFFFFFFFull) * 4;
            if (act == ACT_WRITE) {
                copy_elem(out, U.p + lo, 4);
                copy_elem(out + 4, U.p + hi, 4);
            } else {
                if (!arena_ok(U, lo, 4)) on_bad(rec, act, fault_key(PHASE_TABLE, (u64)lane), lo, ix);
                if (!arena_ok(U, hi, 4)) on_bad(rec, act, fault_key(PHASE_DST, (u64)lane), hi, ix);
            }
            continue;
        }
        const u64 a = (u64)P[RG_BASE] + ix * (u64)ss;
        if (act != ACT_WRITE) {
            if (!arena_ok(U, a, ss)) on_bad(rec, act, fault_key(PHASE_TABLE, (u64)lane), a, ix);
        } else if (mode == RG_B8_TO_B16) {
            out[0] = U.p[a];
            out[1] = 0;
        } else {
            copy_elem(out, U.p + a, (int)ds);
        }
    }
}

extern "C" __global__ void __launch_bounds__(1024) reg_gatherb(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        PTO_INSTANCE(inst);
        const Arena &U = m.a[SPACE_UB], &R = m.a[SPACE_L1];
        const i64 k = (i64)threadIdx.x;
        if (k >= 8 || threadIdx.y || threadIdx.z) continue;
        const int act = simt_act(pass, rec);
        if (act == ACT_FILL) continue;
        const i64 *idx = P + RG_HDR, *on = P + RG_HDR + 8;
        u8 *out = R.p + k * 32;
        const u64 a = (u64)P[RG_BASE] + (((u64)idx[k] & 0xFFFFFFFFull) & ~31ull);
        if (act == ACT_WRITE) {
            for (int j = 0; j < 32; ++j) out[j] = on[k] ? U.p[a + j] : 0;
        } else if (on[k] && !arena_ok(U, a, 32)) {
            on_bad(rec, act, fault_key(PHASE_TABLE, (u64)k), a, (u64)idx[k]);
        }
    }
}

PTO_EXPORT(reg_gather)
PTO_EXPORT(reg_gatherb)
