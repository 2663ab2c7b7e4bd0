// tgatherb.cu — TGATHERB, one kernel per target engine (other-ops.md §A;
// ptogpu/semantics/tgatherb.py).
//
//   kernel          mirrors                                             launch per instance
//   tgatherb_cpu    CPU simulator: full blocks, skip when uint32(off+32)  dim3(1), blocks in order
//                   exceeds the src tile, byte-granular offsets (§A.3)
//   tgatherb_a5     A5 register loop: rows x 256-byte repeats x 8 blocks, dim3(1), blocks in order
//                   predicate "first count elements", store count (§A.5)
//   tgatherb_a2a3   A2/A3 vgatherb repeat stream: head repeats row by    dim3(1), blocks in order
//                   row, then the tail per 255-row chunk or per row (§A.4)
//
// Each offset moves one 32-byte block of UB. pass 0 reads and checks every offset (phase 0),
// every source block (phase 1) and every destination range (phase 2) in issue order, counts
// offsets that are not 32-byte aligned (NPU engines round them down; rec[1] = first, rec[2] =
// count, for the host's warning), and flags (rec[3] = 0) a read that lands in the bytes the
// instruction writes. pass 1 writes the blocks of a clean, unflagged instance in issue order
// (last writer wins), reading sources as they were before the instruction.
#include "common.cuh"

enum {
    TG_VR = 0, TG_VC, TG_T, TG_DST, TG_DST_COLS, TG_DST_RSTRIDE, TG_SRC, TG_SRC_BYTES,
    TG_OFF, TG_OFF_COLS, TG_OFF_RSTRIDE, TG_OFF_ESIZE, TG_OFF_SIGNED, TG_ROWWISE_B32,
    TG_UNUSED_FAULT, TG_TAIL_STREAM, TG_OFF_KIND, TG_WORDS
};
// CPU simulator offsets of a floating type are converted with static_cast<uint32_t> through
// int64 (truncation toward zero; NaN, infinities and |x| >= 2^63 give INT64_MIN, as x86 does).
enum { OFFK_INT = 0, OFFK_HALF, OFFK_BF16, OFFK_F32, OFFK_E4M3FN, OFFK_E5M2 };

PTO_DEV double tg_p2(int k) {               // 2^k for the small k used below
    u64 bits = (u64)(k + 1023) << 52;
    double d;
    PTO_MEMCPY(&d, &bits, 8);
    return d;
}

// Sign s, biased exponent e of `eb` bits, mantissa m of `mb` bits; `ieee`: the all-ones
// exponent means inf/NaN (else only all-ones exponent and mantissa is NaN: E4M3FN).
PTO_DEV double tg_minifloat(u32 s, u32 e, u32 m, int eb, int mb, bool ieee, bool *special) {
    const u32 emax = (1u << eb) - 1u, bias = (1u << (eb - 1)) - 1u;
    *special = ieee ? e == emax : (e == emax && m == (1u << mb) - 1u);
    if (*special) return 0.0;
    const double v = e == 0 ? (double)m * tg_p2(1 - (int)bias - mb)
                            : (double)((1u << mb) + m) * tg_p2((int)e - (int)bias - mb);
    return s ? -v : v;
}

PTO_DEV u64 tg_float_offset(const u8 *p, int kind) {
    double v = 0.0;
    bool special = false;
    switch (kind) {
    case OFFK_HALF: {
        const u32 b = (u32)p[0] | ((u32)p[1] << 8);
        v = tg_minifloat(b >> 15, (b >> 10) & 31u, b & 1023u, 5, 10, true, &special);
        break;
    }
    case OFFK_BF16: case OFFK_F32: {
        u32 b = kind == OFFK_BF16 ? ((u32)p[0] | ((u32)p[1] << 8)) << 16
                                  : (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) | ((u32)p[3] << 24);
        float f;
        PTO_MEMCPY(&f, &b, 4);
        v = (double)f;
        special = ((b >> 23) & 255u) == 255u;
        break;
    }
    case OFFK_E4M3FN:
        v = tg_minifloat(p[0] >> 7, (p[0] >> 3) & 15u, p[0] & 7u, 4, 3, false, &special);
        break;
    default:
        v = tg_minifloat(p[0] >> 7, (p[0] >> 2) & 31u, p[0] & 3u, 5, 2, true, &special);
        break;
    }
    const double lim = 9223372036854775808.0;   // 2^63
    if (special || v >= lim || v <= -lim) return 0x8000000000000000ull & 0xFFFFFFFFull;
    return (u64)(i64)v & 0xFFFFFFFFull;              // (i64)v truncates toward zero
}
enum { TG_BLK = 32, TG_VL = 256 };

// One block in issue order: where its offset lives, where it lands, how many bytes it stores,
// whether it reads at all (need).
struct TgBlock {
    i64 oaddr, dst, stored;
    bool need;
};

struct TgState {
    const i64 *P;
    const Mem *m;
    u64 *rec;
    int act;           // ACT_NOTE (check), ACT_WRITE, or -1 (alias scan)
    bool npu;
    i64 lo, hi;        // hull of the written bytes (check pass)
    u64 mis_first, mis_count;
};

PTO_DEV bool tg_overlaps(const TgState &s, i64 a, i64 n) { return a < s.hi && s.lo < a + n; }

PTO_DEV void tg_visit(TgState &s, u64 q, const TgBlock &b) {
    const i64 *P = s.P;
    const Arena &U = s.m->a[SPACE_UB];
    const i64 esz = s.npu ? 4 : P[TG_OFF_ESIZE];
    i64 o = 0, nb = s.npu ? (b.need ? b.stored : 0) : TG_BLK;
    bool zero = !b.need;
    if (b.need) {
        if (s.act == -1) {
            if (tg_overlaps(s, b.oaddr, esz)) s.rec[3] = 0;
        } else if (!arena_ok(U, (u64)b.oaddr, esz)) {
            if (s.act == ACT_NOTE) fault_note(s.rec, fault_key(PHASE_INDEX, q), (u64)b.oaddr, 0);
            return;
        }
        if (s.act == -1 && s.rec[3] == 0) return;
        if (!arena_ok(U, (u64)b.oaddr, esz)) return;
        const u64 raw = !s.npu && P[TG_OFF_KIND] != OFFK_INT
                            ? tg_float_offset(U.p + b.oaddr, (int)P[TG_OFF_KIND])
                            : load_index(U.p + b.oaddr, (int)esz, s.npu ? 0 : (int)P[TG_OFF_SIGNED]);
        o = (i64)(raw & 0xFFFFFFFFull);
        if (s.npu) {
            if (o % TG_BLK) {
                if (s.mis_count++ == 0) s.mis_first = (u64)o;
            }
            o &= ~(i64)(TG_BLK - 1);
        } else {
            const bool ok = (i64)(((u64)o + TG_BLK) & 0xFFFFFFFFull) <= P[TG_SRC_BYTES];
            nb = ok ? TG_BLK : 0;
            zero = !ok;
        }
    }
    const i64 src = P[TG_SRC] + o, d = b.dst;
    if (s.act == -1) {
        if (!zero && tg_overlaps(s, src, TG_BLK)) s.rec[3] = 0;
        return;
    }
    if (s.act == ACT_NOTE) {
        if (!zero && !arena_ok(U, (u64)src, TG_BLK))
            fault_note(s.rec, fault_key(PHASE_TABLE, q), (u64)src, (u64)o);
        if (nb > 0) {
            if (d < 0 || d + nb > U.size) fault_note(s.rec, fault_key(PHASE_DST, q), (u64)d, 0);
            if (d < s.lo) s.lo = d;
            if (d + nb > s.hi) s.hi = d + nb;
        }
        return;
    }
    for (i64 j = 0; j < nb; ++j) U.p[d + j] = zero ? 0 : U.p[src + j];
}

PTO_DEV void tg_cpu_blocks(TgState &s) {
    const i64 *P = s.P;
    const i64 T = P[TG_T], B = TG_BLK / T, VR = P[TG_VR], nblk = P[TG_VC] / B;
    u64 q = 0;
    for (i64 r = 0; r < VR; ++r)
        for (i64 k = 0; k < nblk; ++k, ++q) {
            TgBlock b;
            b.oaddr = P[TG_OFF] + (r * P[TG_OFF_COLS] + k) * P[TG_OFF_ESIZE];
            b.dst = P[TG_DST] + (r * P[TG_DST_COLS] + k * B) * T;
            b.stored = TG_BLK;
            b.need = true;
            tg_visit(s, q, b);
        }
}

PTO_DEV void tg_a5_blocks(TgState &s) {
    const i64 *P = s.P;
    const i64 T = P[TG_T], E = TG_VL / T, VR = P[TG_VR], VC = P[TG_VC];
    const i64 R = (VC + E - 1) / E, rem = VC % E ? VC % E : E;
    u64 q = 0;
    for (i64 i = 0; i < VR; ++i)
        for (i64 j = 0; j < R; ++j)
            for (i64 k = 0; k < 8; ++k, ++q) {
                const i64 count = j < R - 1 ? E : rem;
                i64 cbytes = count * T;
                if (P[TG_ROWWISE_B32]) cbytes = (cbytes + 3) / 4 * 4;
                i64 stored = cbytes - k * TG_BLK;
                stored = stored < 0 ? 0 : (stored > TG_BLK ? TG_BLK : stored);
                const bool enabled = 4 * k < count * T;
                TgBlock b;
                b.need = P[TG_UNUSED_FAULT] ? enabled : stored > 0;
                b.oaddr = P[TG_OFF] + (i * P[TG_OFF_RSTRIDE] + 8 * j + k) * 4;
                b.dst = P[TG_DST] + (i * P[TG_DST_RSTRIDE] + j * E) * T + k * TG_BLK;
                b.stored = stored;
                tg_visit(s, q, b);
            }
}

PTO_DEV void tg_a2a3_blocks(TgState &s) {
    const i64 *P = s.P;
    const i64 T = P[TG_T], E = TG_VL / T, B = TG_BLK / T, VR = P[TG_VR], VC = P[TG_VC];
    const i64 nrep = VC / E, rem = VC % E, ors = P[TG_OFF_RSTRIDE], drs = P[TG_DST_RSTRIDE];
    u64 q = 0;
    TgBlock b;
    b.stored = TG_BLK;
    b.need = true;
    for (i64 i = 0; i < VR; ++i)
        for (i64 rr = 0; rr < nrep; ++rr)
            for (i64 jb = 0; jb < 8; ++jb, ++q) {
                b.oaddr = P[TG_OFF] + (i * ors + rr * 8 + jb) * 4;
                b.dst = P[TG_DST] + i * drs * T + rr * TG_VL + jb * TG_BLK;
                tg_visit(s, q, b);
            }
    if (!rem) return;
    for (i64 r = 0; r < VR; ++r)
        for (i64 jb = 0; jb < 8; ++jb, ++q) {
            i64 flat;
            if (P[TG_TAIL_STREAM]) {
                const i64 c0 = (r / 255) * 255, rr = r - c0, rep = (drs / B) & 0xFF;
                flat = c0 * ors + nrep * 8 + rr * 8 + jb;
                b.dst = P[TG_DST] + (c0 * drs + nrep * E) * T + TG_BLK * (rr * rep + jb);
            } else {
                flat = r * ors + nrep * 8 + jb;
                b.dst = P[TG_DST] + (r * drs + nrep * E) * T + TG_BLK * jb;
            }
            b.oaddr = P[TG_OFF] + flat * 4;
            tg_visit(s, q, b);
        }
}

#define TG_KERNEL(name, walk, is_npu)                                                 \
    extern "C" __global__ void __launch_bounds__(1024) name(PTO_KERNEL_PARAMS) {                              \
        if (threadIdx.x | threadIdx.y | threadIdx.z) return;                          \
        PTO_FOR_EACH_INSTANCE(inst) {                                                 \
            PTO_MEM_OF(m, inst);                                                      \
            TgState s;                                                                \
            s.P = prm + inst * prm_stride;                                            \
            s.m = &m;                                                                 \
            s.rec = fault + inst * FAULT_WORDS;                                       \
            s.npu = is_npu;                                                           \
            s.lo = (i64)(~0ull >> 1);                                                 \
            s.hi = -s.lo;                                                             \
            s.mis_first = 0;                                                          \
            s.mis_count = 0;                                                          \
            if (pass == 0) {                                                          \
                s.act = ACT_NOTE;                                                     \
                walk(s);                                                              \
                if (s.rec[0] != FAULT_NONE) continue;                                 \
                s.rec[1] = s.mis_first;                                               \
                s.rec[2] = s.mis_count;                                               \
                if (s.lo < s.hi) {                                                    \
                    s.act = -1;                                                       \
                    walk(s);                                                          \
                }                                                                     \
            } else if (s.rec[0] == FAULT_NONE && s.rec[3] != 0) {                     \
                s.act = ACT_WRITE;                                                    \
                walk(s);                                                              \
            }                                                                         \
        }                                                                             \
    }

TG_KERNEL(tgatherb_cpu, tg_cpu_blocks, false)
TG_KERNEL(tgatherb_a5, tg_a5_blocks, true)
TG_KERNEL(tgatherb_a2a3, tg_a2a3_blocks, true)

PTO_EXPORT(tgatherb_cpu)
PTO_EXPORT(tgatherb_a5)
PTO_EXPORT(tgatherb_a2a3)
