// mgather.cu — MGATHER into a Vec (UB) tile on every target, and the CPU simulator's generic
// routine (any destination arena) (mgather.md §3-§6).
//
//   kernel                    mirrors                                   launch per instance
//   mgather_a5_row            A5 simt_mgather_row_kernel (§5.3)         dim3(32, rowWarps*warpsPerRow), 2 passes, lock-step warps on the host
//   mgather_a5_elem           A5 simt_mgather_elem_kernel (§5.4)        dim3(32, clamp(ceil(VR*VC/32),1,32)), 2 passes, lock-step warps on the host
//   mgather_a5_scalar         A5 MGatherScalarImpl, static 1x1 (§5.5)   dim3(1)
//   mgather_a2a3_row_nd       A2/A3 MGatherRowImpl (§6.3)               dim3(1), scalar loop
//   mgather_a2a3_elem_nd      A2/A3 MGatherElemImpl (§6.5)              dim3(1), scalar loop
//   mgather_a2a3_row_nz       A2/A3 MGatherRowNzImpl (§6.4)             dim3(1), scalar loop
//   mgather_a2a3_elem_nz      A2/A3 MGatherElemNzImpl (§6.6)            dim3(1), scalar loop
//   mgather_cpu               CPU simulator MGATHER_IMPL (§4)           dim3(1), scalar loop
//
// The semantics are those of ptogpu/semantics/mgather.py and mgather_nz.py, byte for byte,
// including which fault is reported first. The element semantics live in mgather_impl.cuh. Host-side decisions (capacity, index width, the
// Row source rule, whether the A2/A3 tail fill applies) arrive in the parameter block.
#include "mgather_impl.cuh"

// ---- A5 SIMT kernels ---------------------------------------------------------------------
// On the GPU (and the host's per-thread launch) each thread runs its lane of its warp in pass
// `pass`; on the host's lock-step launch one call runs the whole block: both passes, every
// warp, the lanes of each warp in lock-step (mgather_impl.cuh a5_block).
#ifdef PTO_HOST_SHIM
#define A5_LOCKSTEP(ROW)                                                     \
    if (pto_lockstep_block()) {                                              \
        A5_DISPATCH(L, A5_BLOCK_##ROW)                                       \
        continue;                                                            \
    }
#else
#define A5_LOCKSTEP(ROW)
#endif
#define A5_BLOCK_ROW(TS, OOB) a5_block<PTO_WARP, TS, OOB>(L, m, rec, true)
#define A5_BLOCK_ELEM(TS, OOB) a5_block<PTO_WARP, TS, OOB>(L, m, rec, false)
#define A5_THREAD_ROW(TS, OOB) a5_thread<TS, OOB>(L, m, rec, true, pass)
#define A5_THREAD_ELEM(TS, OOB) a5_thread<TS, OOB>(L, m, rec, false, pass)

extern "C" __global__ void __launch_bounds__(1024) mgather_a5_row(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        MG_INSTANCE_SETUP(inst);
        MG_COPY_PARAMS(L, P);                       // a local copy: byte stores cannot alias it
        A5_LOCKSTEP(ROW)
        A5_DISPATCH(L, A5_THREAD_ROW)
    }
}

extern "C" __global__ void __launch_bounds__(1024) mgather_a5_elem(PTO_KERNEL_PARAMS) {
    PTO_FOR_EACH_INSTANCE(inst) {
        MG_INSTANCE_SETUP(inst);
        MG_COPY_PARAMS(L, P);
        A5_LOCKSTEP(ELEM)
        A5_DISPATCH(L, A5_THREAD_ELEM)
    }
}

extern "C" __global__ void __launch_bounds__(1024) mgather_a5_scalar(PTO_KERNEL_PARAMS) {
    (void)pass;
    if (threadIdx.x | threadIdx.y | threadIdx.z) return;
    PTO_FOR_EACH_INSTANCE(inst) {
        MG_INSTANCE_SETUP(inst);
        mg_scalar_instance(MGK_A5_SCALAR, P, m, rec);
    }
}

// The scalar targets' loops, one thread (mgather_impl.cuh mg_scalar_instance).
#define SCALAR_KERNEL(name, KIND)                                  \
    extern "C" __global__ void __launch_bounds__(1024) name(PTO_KERNEL_PARAMS) {           \
        (void)pass;                                                \
        if (threadIdx.x | threadIdx.y | threadIdx.z) return;       \
        PTO_FOR_EACH_INSTANCE(inst) {                              \
            MG_INSTANCE_SETUP(inst);                               \
            mg_scalar_instance(KIND, P, m, rec);                   \
        }                                                          \
    }

SCALAR_KERNEL(mgather_cpu, MGK_CPU)
SCALAR_KERNEL(mgather_a2a3_row_nd, MGK_A2A3_ROW_ND)
SCALAR_KERNEL(mgather_a2a3_elem_nd, MGK_A2A3_ELEM_ND)

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

// Check every element first (the first fault, keyed), then write a clean instance.
#define NZ_KERNEL(name, LOOP)                                      \
    extern "C" __global__ void __launch_bounds__(1024) name(PTO_KERNEL_PARAMS) {           \
        (void)pass;                                                \
        if (threadIdx.x | threadIdx.y | threadIdx.z) return;       \
        PTO_FOR_EACH_INSTANCE(inst) {                              \
            MG_INSTANCE_SETUP(inst);                               \
            LOOP(P, m, rec, ACT_NOTE);                             \
            if (rec[0] == FAULT_NONE) LOOP(P, m, rec, ACT_WRITE);  \
        }                                                          \
    }

NZ_KERNEL(mgather_a2a3_row_nz, row_nz_loop)
NZ_KERNEL(mgather_a2a3_elem_nz, elem_nz_loop)

PTO_EXPORT_WARPS(mgather_a5_row)
PTO_EXPORT_WARPS(mgather_a5_elem)
PTO_EXPORT(mgather_a5_scalar)
PTO_EXPORT(mgather_a2a3_row_nd)
PTO_EXPORT(mgather_a2a3_elem_nd)
PTO_EXPORT(mgather_a2a3_row_nz)
PTO_EXPORT(mgather_a2a3_elem_nz)
PTO_EXPORT(mgather_cpu)

// ---- exhaustive launch-geometry check (host build only) -------------------------------------
// For each shape (VR[k], VC[k]) run the A5 launch geometry exactly as the kernels do
// (elem_round_base / row_warp_of, 32 lanes per warp-round, the same loop bounds) and count
// the stores each valid element receives; a shape passes when every element is stored
// exactly once. Returns the number of failing shapes; bad[] gets 1 for each.
#ifdef PTO_HOST_SHIM
#include <vector>
extern "C" long long pto_a5_geometry_check(int row_mode, const long long *VR, const long long *VC,
                                           long long n, unsigned char *bad) {
    long long fails = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : fails)
#endif
    for (long long k = 0; k < n; ++k) {
        const u32 vr = (u32)VR[k], vc = (u32)VC[k];
        const u64 total = (u64)vr * vc;
        if (!row_mode && (u64)(u32)total != total) {   // the launch's u32 total wraps
            bad[k] = 1;
            ++fails;
            continue;
        }
        std::vector<unsigned short> cnt(total, 0);
        bool ok = true;
        if (row_mode) {
            const u32 warps = row_launch_warps(vr, vc);
            for (u32 w = 0; w < warps; ++w) {
                const RowWarp g = row_warp_of(w, vr, vc);
                for (u64 row = g.row0; row < vr; row += g.row_step)
                    for (u64 col = g.col0; col < vc; col += g.col_step)
                        for (u32 l = 0; l < 32; ++l)
                            if (col + l < vc) ++cnt[row * vc + col + l];
            }
        } else {
            const u64 t32 = total;
            const u32 warps = elem_launch_warps((u32)t32);
            for (u32 w = 0; w < warps && ok; ++w)
                for (u64 r = 0;; ++r) {
                    const u64 base = elem_round_base(w, warps, r);
                    if (base >= t32) break;
                    for (u32 l = 0; l < 32; ++l) {
                        const u64 i = base + l;
                        if (i >= t32) continue;
                        u64 q, c;
                        divmod_u32(i, vc, 1.0 / (double)vc, &q, &c);   // the vector form's (r, c)
                        if (q >= vr || c >= vc || q * vc + c != i) ok = false;
                        else ++cnt[i];
                    }
                }
        }
        for (u64 e = 0; e < total && ok; ++e) ok = cnt[e] == 1;
        bad[k] = !ok;
        fails += !ok;
    }
    return fails;
}
#endif
