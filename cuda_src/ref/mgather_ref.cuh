// ref/mgather_ref.cuh — the reference every fuzz campaign checks an MGATHER-into-UB side against:
// the target's rules (index cast, OOB remap, capacity, Row source address, A2/A3 tail fill, the
// GM bound), computed element by element from the side's rule words, in the canonical instance
// of ptogpu/execution/single.py (table at GM byte 0, destination of R x C padded elements).
//
// It shares no code with the kernels (mgather_impl.cuh, common.cuh's casts, remaps, bounds
// and geometry): only the integer typedefs and enum constants of common.cuh. So a bug in a
// kernel -- or in a helper the kernels share -- makes that side disagree with its reference,
// whatever the other side does. tests/test_fuzz_reference.py checks it against the NumPy
// semantics, byte for byte, on random configurations, shapes and index tiles.
//
// Also here: the explanation of a difference between two sides (ref_explain): the reference
// of one side recomputed with rule words of the other (alternative side blocks the Python
// side builds from hybrid target tables, ptogpu/fuzz/execute.py) until the references agree.
#ifndef PTOGPU_FUZZ_REFERENCE_CUH
#define PTOGPU_FUZZ_REFERENCE_CUH

#include "../common.cuh"

// Campaign parameter block (int64 words); the Python side reads these names from this file.
enum {
    FZ_SEED = 0, FZ_INST0, FZ_GEN, FZ_GCAP, FZ_MODE, FZ_OOB, FZ_T, FZ_VR, FZ_VC, FZ_R, FZ_C,
    FZ_SIGNED, FZ_GMSIZE, FZ_REL, FZ_FILL, FZ_A = 16,
    // A side's rule words. SD_SIMT records the executor (results do not depend on it).
    SD_BITS = 0, SD_CAP, SD_ROWSRC, SD_TAIL, SD_S3, SD_S4, SD_SIMT, SIDE_WORDS = 8,
    FZ_B = FZ_A + SIDE_WORDS, FZ_WORDS = FZ_B + SIDE_WORDS
};
enum { MODE_ROW_ = 0, MODE_ELEM_ = 1 };
enum { RS_STRIDES = 0, RS_STRIDE3 = 1, RS_VALID_COLS = 2 };

// Explanation block: the verdict bits (Python's ptogpu/fuzz/rules.py numbers, passed in) and
// the alternative side blocks. Alternative k: its tier (tiers are tried in order; the first
// tier with a match names the class), its direction (0: side B with fields of A, compared
// with A's reference; 1: side A with fields of B, compared with B's), the field bits it
// stands for, and the side words.
enum {
    XP_N = 0, XP_UNEXPLAINED, XP_FAULT, XP_REF_A, XP_REF_B, XP_WINDOW, XP_HEAD = 8,
    XA_TIER = 0, XA_DIR, XA_MASK, XA_S, XA_WORDS = XA_S + SIDE_WORDS, XP_MAX = 64,
    XP_WORDS = XP_HEAD + XP_MAX * XA_WORDS
};

// ---- one element -----------------------------------------------------------------------------
// Index word w (the low 32 bits of the generator's value) as the side casts it: int32 tiles
// sign-extend to 64 bits (static_cast<size_t>), a 32-bit cast keeps the low word.
PTO_DEV u64 ref_u(const i64 *P, const i64 *S, u32 w) {
    const u64 raw = P[FZ_SIGNED] ? (u64)(i64)(int)w : (u64)w;
    return S[SD_BITS] == 32 ? (raw & 0xFFFFFFFFull) : raw;
}

// GatherOOB (mgather.md §3) on the cast value: false when the element is written as 0.
// Clamp: the NPUs' `u >= cap ? cap-1 : u` (uint32); the simulator's std::clamp on size_t,
// min(u, cap-1) with cap-1 wrapping to SIZE_MAX when cap is 0. Wrap needs cap > 0 (the host
// refuses cap 0). Zero: out of range reads nothing. Undefined: the raw index.
PTO_DEV bool ref_remap(const i64 *P, const i64 *S, u64 u, u64 *safe) {
    const u64 cap = (u64)S[SD_CAP];
    const bool b32 = S[SD_BITS] == 32;
    switch ((int)P[FZ_OOB]) {
    case OOB_CLAMP: {
        const u64 last = b32 ? ((cap - 1ull) & 0xFFFFFFFFull) : cap - 1ull;
        *safe = b32 ? (u >= cap ? last : u) : (u <= last ? u : last);
        return true;
    }
    case OOB_WRAP: *safe = cap ? u % cap : u; return true;
    case OOB_ZERO: *safe = u; return u < cap;
    default: *safe = u; return true;
    }
}

// Table element offset of (safe row, column c): the simulator row*Stride[3] + c*Stride[4],
// A2/A3 row*Stride[3] + c, A5 (u32)(row*VC) + c. Elem: the safe index itself.
PTO_DEV u64 ref_off(const i64 *P, const i64 *S, u64 safe, u64 c) {
    if (P[FZ_MODE] == MODE_ELEM_) return safe;
    switch ((int)S[SD_ROWSRC]) {
    case RS_STRIDES: return safe * (u64)S[SD_S3] + c * (u64)S[SD_S4];
    case RS_STRIDE3: return safe * (u64)S[SD_S3] + c;
    default: return ((safe * (u64)P[FZ_VC]) & 0xFFFFFFFFull) + c;
    }
}

// Does a read of T bytes at table element `off` stay inside GM (signed byte address in 0 ..
// gm_size - T, the NumPy rule)?
PTO_DEV bool ref_in_gm(const i64 *P, u64 off) {
    const i64 byte = (i64)(off * (u64)P[FZ_T]);
    return byte >= 0 && byte <= P[FZ_GMSIZE] - P[FZ_T];
}

PTO_DEV u64 ref_load(const i64 *P, const u8 *gm, u64 off) {
    const u64 T = (u64)P[FZ_T], byte = off * T;
    u64 v = 0;
    for (u64 k = 0; k < T; ++k) v |= (u64)gm[byte + k] << (8 * k);
    return v;
}

// The fill pattern (dst_fill repeated) as an element value.
PTO_DEV u64 ref_fill(const i64 *P) {
    u64 v = 0;
    for (int k = 0; k < (int)P[FZ_T]; ++k) v |= (u64)(P[FZ_FILL] & 0xFF) << (8 * k);
    return v;
}

// ---- one tile ----------------------------------------------------------------------------------
// `word(k)`: index word k of the tile (Elem: k = r*VC + c; Row: k = r); VR x VC from P.

// The first table read that leaves GM, in element order (r*VC + c): the fault key
// (PHASE_TABLE << 56 | position) with its byte address and cast index, or FAULT_NONE.
template <class Word>
PTO_DEV u64 ref_fault(const i64 *P, const i64 *S, Word word, u64 *addr, u64 *uu) {
    const u64 VR = (u64)P[FZ_VR], VC = (u64)P[FZ_VC], T = (u64)P[FZ_T];
    const bool elem = P[FZ_MODE] == MODE_ELEM_;
    for (u64 r = 0; r < VR; ++r) {
        u64 u = 0, safe = 0;
        bool rd = true;
        if (!elem) {
            u = ref_u(P, S, word(r));
            rd = ref_remap(P, S, u, &safe);
        }
        for (u64 c = 0; c < VC; ++c) {
            if (elem) {
                u = ref_u(P, S, word(r * VC + c));
                rd = ref_remap(P, S, u, &safe);
            }
            if (!rd) {
                if (!elem) break;
                continue;
            }
            const u64 off = ref_off(P, S, safe, c);
            if (!ref_in_gm(P, off)) {
                *addr = off * T;
                *uu = u;
                return ((u64)PHASE_TABLE << 56) | (r * VC + c);
            }
        }
    }
    return FAULT_NONE;
}

// Destination storage element (r, c) of a clean tile: true and its value when the
// instruction writes it; false when it keeps what it held (padding; rows past VR; the A2/A3
// tail of a row that read nothing).
template <class Word>
PTO_DEV bool ref_at(const i64 *P, const i64 *S, Word word, const u8 *gm, u64 r, u64 c, u64 *v) {
    const u64 VR = (u64)P[FZ_VR], VC = (u64)P[FZ_VC], T = (u64)P[FZ_T];
    const bool elem = P[FZ_MODE] == MODE_ELEM_;
    if (r >= VR) return false;
    const bool pad = c >= VC;
    // A2/A3 Row: the burst fills VC .. the row's 32-byte boundary with the row's first element
    if (pad && (elem || !S[SD_TAIL] || VC == 0 || c * T >= ((VC * T + 31ull) / 32ull) * 32ull)) return false;
    const u64 cc = pad ? 0 : c;
    u64 safe;
    if (!ref_remap(P, S, ref_u(P, S, word(elem ? r * VC + cc : r)), &safe)) {
        *v = 0;
        return !pad;
    }
    *v = ref_load(P, gm, ref_off(P, S, safe, cc));
    return true;
}

PTO_DEV void ref_store(u8 *p, u64 T, u64 v) {
    for (u64 k = 0; k < T; ++k) p[k] = (u8)(v >> (8 * k));
}

// The whole tile: `img` (R x C elements) holds what the destination held before; a clean
// tile gets the instruction's writes. Returns the fault key (a faulting tile writes nothing).
template <class Word>
PTO_DEV u64 ref_tile(const i64 *P, const i64 *S, Word word, const u8 *gm, u8 *img, u64 *addr, u64 *uu) {
    const u64 key = ref_fault(P, S, word, addr, uu);
    if (key != FAULT_NONE) return key;
    const u64 VR = (u64)P[FZ_VR], VC = (u64)P[FZ_VC], T = (u64)P[FZ_T], C = (u64)P[FZ_C];
    const bool elem = P[FZ_MODE] == MODE_ELEM_;
    const u64 end = elem || !S[SD_TAIL] ? VC : ((VC * T + 31ull) / 32ull) * 32ull / T;
    for (u64 r = 0; r < VR; ++r) {
        u8 *row = img + r * C * T;
        if (elem) {
            for (u64 c = 0; c < VC; ++c) {
                u64 safe;
                const bool rd = ref_remap(P, S, ref_u(P, S, word(r * VC + c)), &safe);
                ref_store(row + c * T, T, rd ? ref_load(P, gm, safe) : 0);
            }
            continue;
        }
        u64 safe;
        if (!ref_remap(P, S, ref_u(P, S, word(r)), &safe)) {
            for (u64 c = 0; c < VC; ++c) ref_store(row + c * T, T, 0);
            continue;
        }
        for (u64 c = 0; c < VC; ++c) ref_store(row + c * T, T, ref_load(P, gm, ref_off(P, S, safe, c)));
        if (VC)
            for (u64 c = VC; c < end; ++c) ref_store(row + c * T, T, ref_load(P, gm, ref_off(P, S, safe, 0)));
    }
    return FAULT_NONE;
}

// Do two sides' references agree on this tile? Both fault in the same phase, or neither faults
// and every destination byte agrees (untouched bytes hold the fill on both).
template <class Word>
PTO_DEV bool ref_same(const i64 *P, const i64 *S1, const i64 *S2, Word word, const u8 *gm) {
    u64 a1, u1, a2, u2;
    const u64 k1 = ref_fault(P, S1, word, &a1, &u1), k2 = ref_fault(P, S2, word, &a2, &u2);
    if (k1 != FAULT_NONE || k2 != FAULT_NONE)
        return k1 != FAULT_NONE && k2 != FAULT_NONE && (k1 >> 56) == (k2 >> 56);
    const u64 VR = (u64)P[FZ_VR], C = (u64)P[FZ_C], fill = ref_fill(P);
    for (u64 r = 0; r < VR; ++r)
        for (u64 c = 0; c < C; ++c) {
            u64 v1, v2;
            if (!ref_at(P, S1, word, gm, r, c, &v1)) v1 = fill;
            if (!ref_at(P, S2, word, gm, r, c, &v2)) v2 = fill;
            if (v1 != v2) return false;
        }
    return true;
}

// Explanation mask of a tile whose two sides' references differ: the field bits of every
// alternative of the first tier whose reference agrees with the other side's (XA_DIR 0: an
// alternative of B against A's reference; 1: of A against B's), else XP_UNEXPLAINED.
template <class Word>
PTO_DEV u64 ref_explain(const i64 *P, const i64 *XP, Word word, const u8 *gm) {
    // a difference the references do not show (two implementations of a reference disagree)
    // no rule can explain
    if (ref_same(P, P + FZ_A, P + FZ_B, word, gm)) return (u64)XP[XP_UNEXPLAINED];
    u64 mask = 0;
    i64 tier = -1;
    for (i64 k = 0; k < XP[XP_N]; ++k) {
        const i64 *X = XP + XP_HEAD + k * XA_WORDS;
        if (X[XA_TIER] != tier) {
            if (mask) break;
            tier = X[XA_TIER];
        }
        if (ref_same(P, X + XA_S, X[XA_DIR] ? P + FZ_B : P + FZ_A, word, gm)) mask |= (u64)X[XA_MASK];
    }
    return mask ? mask : (u64)XP[XP_UNEXPLAINED];
}

// Does the index cast's width make no difference to an Elem reference with capacity `cap`?
// It does not where every remapped index lies inside a table that fits GM: a sign-extended
// negative index is >= cap under either cast (Clamp: the last slot; Zero: zero), a
// power-of-two Wrap mask keeps the same low bits, and a zero-extended index is the same
// number -- only Wrap's modulo of a sign-extended index tells the casts apart.
PTO_DEV bool ref_bits_moot(const i64 *P, u64 cap) {
    const int oob = (int)P[FZ_OOB];
    return oob != OOB_UNDEFINED && cap > 0 && cap < (1ull << 31) && (i64)(cap * (u64)P[FZ_T]) <= P[FZ_GMSIZE] &&
           (oob != OOB_WRAP || !(cap & (cap - 1)) || !P[FZ_SIGNED]);
}

// Do two sides share their rules, so that one reference serves both?
PTO_DEV bool ref_same_rules(const i64 *P) {
    const i64 *A = P + FZ_A, *B = P + FZ_B;
    if (P[FZ_MODE] == MODE_ELEM_)                              // Elem reads SD_BITS, SD_CAP only
        return A[SD_CAP] == B[SD_CAP] && (A[SD_BITS] == B[SD_BITS] || ref_bits_moot(P, (u64)A[SD_CAP]));
    for (int w = 0; w < 6; ++w)
        if (A[w] != B[w]) return false;
    return true;
}

#ifdef PTO_HOST_SHIM
// Typed element views of byte arrays (the reference's own; alias-safe).
template <int TS> struct RefWord;
template <> struct RefWord<1> { typedef u8 t; };
template <> struct RefWord<2> { typedef unsigned short __attribute__((aligned(1), may_alias)) t; };
template <> struct RefWord<4> { typedef u32 __attribute__((aligned(1), may_alias)) t; };
template <> struct RefWord<8> { typedef u64 __attribute__((aligned(1), may_alias)) t; };

// The 32-bit remap of an unsigned index under Clamp or Wrap (others: the index itself); a
// non-power-of-two Wrap divides by a double reciprocal, then corrects the quotient by one.
template <int OOB, bool POW2>
static inline u32 ref_remap32(u32 u, u32 c32, double inv) {
    if (OOB == OOB_CLAMP) return u >= c32 ? c32 - 1u : u;
    if (OOB == OOB_WRAP) {
        if (POW2) return u & (c32 - 1u);
        u32 q = (u32)((double)u * inv);
        const i64 rem = (i64)u - (i64)((u64)q * c32);
        q = rem < 0 ? q - 1u : (rem >= (i64)c32 ? q + 1u : q);
        return u - q * c32;
    }
    return u;
}

// ref_elem_row where every remapped index lies below cap, inside GM (Clamp, Wrap, Zero on a
// table that fits): no read can fault, so each element is one remap, one load and one XOR.
// Scalar, four accumulators: GCC would vectorise the loop into 16-lane gathers, which on
// Zen 4 take ~1.6x as long (256 elements, a 16 KiB table: ~150 ns against ~90 ns).
template <int TS, int OOB, bool POW2>
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static inline void ref_elem_row_safe(const u32 *__restrict wr, const typename RefWord<TS>::t *__restrict tab,
                                     const typename RefWord<TS>::t *__restrict out, int nc, u32 c32, double inv,
                                     int *mis) {
    typedef typename RefWord<TS>::t E;
    auto at = [&](int c) -> E {                   // the reference value of element c, XOR the side's
        const u32 u = wr[c];
        const u32 safe = ref_remap32<OOB, POW2>(u, c32, inv);
        const bool zero = OOB == OOB_ZERO && u >= c32;
        // (selects kept selects: `?:` on the random "zero?" became a branch)
        const E v = tab[OOB == OOB_ZERO ? (u32)select_nb(zero, 0, safe) : safe];
        return (E)(out[c] ^ (OOB == OOB_ZERO ? (E)select_nb(zero, 0, v) : v));
    };
    E m0 = 0, m1 = 0, m2 = 0, m3 = 0;
    int c = 0;
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
    for (; c + 4 <= nc; c += 4) {
        m0 |= at(c);
        m1 |= at(c + 1);
        m2 |= at(c + 2);
        m3 |= at(c + 3);
    }
    for (; c < nc; ++c) m0 |= at(c);
    *mis |= (int)((m0 | m1 | m2 | m3) != 0);
}

// One row of an Elem tile against the reference, vectorisable: ORs into *flt whether a read
// leaves GM and into *mis whether an element differs from the bytes the side left.
// B32: a 32-bit cast (the low word itself, 32-bit lanes); else the simulator's size_t.
template <int TS, int OOB, bool B32, bool POW2, bool SAFE>
static inline void ref_elem_row(const u32 *__restrict wr, const u8 *__restrict gm, const u8 *__restrict row, u64 VC,
                                u64 cap, bool sgn, double inv, i64 lim, int *flt, int *mis) {
    typedef typename RefWord<TS>::t E;
    const E *tab = (const E *)gm, *out = (const E *)row;
    int f = 0, m = 0;
    if (B32 && SAFE) {
        ref_elem_row_safe<TS, OOB, POW2>(wr, tab, out, (int)VC, (u32)cap, inv, mis);
        return;
    } else if (B32) {
        // the last element a read may start at (GM is under 2^31 bytes here: 32-bit lanes); the
        // lanes go 32 at a time, reading up to 31 words and elements past the row (the
        // caller's arrays have that much slack). (This form of the conditions is the one GCC
        // turns into 32-bit-index gathers.)
        const u32 c32 = (u32)cap, lime = (u32)((u64)lim / TS);
        const int nc = (int)VC;
        for (int b = 0; b < nc; b += 32) {
#pragma omp simd reduction(| : f, m)
            for (int l = 0; l < 32; ++l) {
                const u32 u = wr[b + l];
                const u32 safe = ref_remap32<OOB, POW2>(u, c32, inv);
                const bool ok = safe <= lime && b + l < nc && (OOB != OOB_ZERO || u < c32);
                f |= (int)(b + l < nc && safe > lime && (OOB != OOB_ZERO || u < c32));
                const E v = tab[(int)(ok ? safe : 0u)];
                m |= (int)(ok && out[b + l] != v);
                if (OOB == OOB_ZERO) m |= (int)(b + l < nc && u >= c32 && out[b + l] != (E)0);
            }
        }
    } else {
        const u64 last = cap - 1ull;
#pragma omp simd reduction(| : f, m)
        for (u64 c = 0; c < VC; ++c) {
            const u64 u = sgn ? (u64)(i64)(int)wr[c] : (u64)wr[c];
            u64 safe = u;
            bool rd = true;
            if (OOB == OOB_CLAMP) safe = u <= last ? u : last;
            if (OOB == OOB_WRAP) safe = POW2 ? (u & last) : u % cap;
            if (OOB == OOB_ZERO) rd = u < cap;
            const i64 byte = (i64)(safe * (u64)TS);      // wraps as the NumPy rule does
            const bool ok = byte >= 0 && byte <= lim;
            f |= (int)(rd && !ok);
            const E v = tab[rd && ok ? (u64)byte / TS : 0];
            m |= (int)(out[c] != (rd ? v : (E)0));
        }
    }
    *flt |= f;
    *mis |= m;
}

// A side's destination `ds` (R x C elements) against the reference, for the common case on the
// host (Elem, the tile's words in order in `w`): each element's reference value is compared
// with the bytes the side left, while the pass ORs whether any read leaves GM (then the exact
// ref_fault keys the fault, and the destination must hold the fill: a faulting tile writes
// nothing). Returns the reference's fault key; *bad: the bytes differ.
template <int TS, int OOB, bool B32, bool POW2, bool SAFE>
static u64 ref_elem_check_t(const i64 *P, const i64 *S, const u32 *w, const u8 *gm, const u8 *ds, bool *bad,
                            u64 *addr, u64 *uu) {
    typedef typename RefWord<TS>::t E;
    const u64 VR = (u64)P[FZ_VR], VC = (u64)P[FZ_VC], C = (u64)P[FZ_C], R = (u64)P[FZ_R];
    const u64 cap = (u64)S[SD_CAP];
    const double inv = cap ? 1.0 / (double)cap : 0.0;
    const E fill = (E)ref_fill(P);
    int flt = 0, mis = 0;
    const bool lin = C == VC;                     // no padding columns: the tile is one run
    for (u64 r = 0; r < (lin ? 1 : VR); ++r) {
        const u8 *row = ds + r * C * TS;
        ref_elem_row<TS, OOB, B32, POW2, SAFE>(w + r * VC, gm, row, lin ? VR * VC : VC, cap, P[FZ_SIGNED] != 0, inv,
                                         P[FZ_GMSIZE] - TS, &flt, &mis);
        for (u64 c = VC; c < C; ++c) mis |= (int)(((const E *)row)[c] != fill);     // padding keeps the fill
    }
    for (u64 b = VR * C * TS; b < R * C * TS; ++b) mis |= (int)(ds[b] != (u8)fill);   // rows past VR
    if (!flt) {
        *bad = mis != 0;
        return FAULT_NONE;
    }
    bool dirty = false;                           // a faulting tile writes nothing
    for (u64 b = 0; b < R * C * TS; ++b) dirty |= ds[b] != (u8)fill;
    *bad = dirty;
    return ref_fault(P, S, [&](u64 k) { return w[k]; }, addr, uu);
}

template <int TS, int OOB, bool B32, bool POW2>
static u64 ref_elem_check(const i64 *P, const i64 *S, const u32 *w, const u8 *gm, const u8 *ds, bool *bad,
                          u64 *addr, u64 *uu) {
    // The safe form: every remapped index inside a table that fits GM, where a 64-bit cast
    // remaps as the 32-bit one does (ref_bits_moot)
    const u64 c = (u64)S[SD_CAP];
    const bool safe = OOB != OOB_UNDEFINED && c > 0 && (i64)(c * TS) <= P[FZ_GMSIZE] &&
                      (B32 || ref_bits_moot(P, c));
    return safe ? ref_elem_check_t<TS, OOB, true, POW2, true>(P, S, w, gm, ds, bad, addr, uu)
                : ref_elem_check_t<TS, OOB, B32, POW2, false>(P, S, w, gm, ds, bad, addr, uu);
}

// Which form checks side S: -1 the scalar reference image (Row, odd element sizes, Wrap of
// capacity 0, GM of 2 GiB or more); else the vector form's template arguments, packed
// T | OOB << 4 | B32 << 8 | POW2 << 9. constexpr: a specialised build (fuzz_spec.cuh) picks
// its form at compile time from its constant blocks.
constexpr int ref_form(const i64 *P, const i64 *S) {
    const int T = (int)P[FZ_T], oob = (int)P[FZ_OOB];
    const bool b32 = S[SD_BITS] == 32;
    const bool fast = P[FZ_MODE] == MODE_ELEM_ && (T == 1 || T == 2 || T == 4 || T == 8) &&
                      !(oob == OOB_WRAP && !S[SD_CAP]) && P[FZ_GMSIZE] < (1ll << 31) && P[FZ_GMSIZE] >= T;
    if (!fast) return -1;
    const u64 cap = (u64)S[SD_CAP];
    const bool pow2 = oob == OOB_WRAP && cap && !(cap & (cap - 1ull)) && (!b32 || cap <= 0xFFFFFFFFull);
    const int o = oob == OOB_CLAMP || oob == OOB_WRAP || oob == OOB_ZERO ? oob : OOB_UNDEFINED;
    return T | o << 4 | (int)b32 << 8 | (int)pow2 << 9;
}

// ref_tile and its compare for Row with the element size a template argument: per row one
// cast and remap, then the row's source offsets A + c*B (ref_off at columns 0 and 1: it is
// affine in c) read as whole elements; at a row that reads outside GM anywhere, the fault's
// key comes from ref_fault and the image is the untouched destination. The same image as
// ref_tile (tests/test_fuzz_reference.py checks the check against the NumPy semantics); the
// scalar form spent ~10 ns an element here.
template <int TS>
static u64 ref_row_check(const i64 *P, const i64 *S, const u32 *w, const u8 *gm, const u8 *ds, u64 dn,
                         u8 *scratch, bool *bad, u64 *addr, u64 *uu) {
    typedef typename RefWord<TS>::t E;
    const u64 VR = (u64)P[FZ_VR], VC = (u64)P[FZ_VC], C = (u64)P[FZ_C];
    const u64 end = !S[SD_TAIL] ? VC : ((VC * TS + 31ull) / 32ull) * 32ull / TS;
    __builtin_memset(scratch, (int)(P[FZ_FILL] & 0xFF), dn);
    for (u64 r = 0; r < VR; ++r) {
        E *row = (E *)(scratch + r * C * TS);
        u64 safe;
        if (!ref_remap(P, S, ref_u(P, S, w[r]), &safe)) {
            for (u64 c = 0; c < VC; ++c) row[c] = 0;
            continue;
        }
        const u64 a = ref_off(P, S, safe, 0), step = ref_off(P, S, safe, 1) - a;   // (affine in c)
        int out = 0;
        for (u64 c = 0; c < VC; ++c) out |= (int)!ref_in_gm(P, a + c * step);
        if (out) {                                // a faulting call writes nothing
            __builtin_memset(scratch, (int)(P[FZ_FILL] & 0xFF), dn);
            *bad = __builtin_memcmp(scratch, ds, dn) != 0;
            return ref_fault(P, S, [&](u64 k) { return w[k]; }, addr, uu);
        }
        for (u64 c = 0; c < VC; ++c) row[c] = *(const E *)(gm + (a + c * step) * TS);
        if (VC)
            for (u64 c = VC; c < end; ++c) row[c] = row[0];
    }
    *bad = __builtin_memcmp(scratch, ds, dn) != 0;
    return FAULT_NONE;
}

// A side's destination `ds` (dn bytes) against its reference for the tile's words `w`, in
// form FORM (ref_form): the reference's fault key (FAULT_NONE: clean) and *bad when the bytes
// differ. `scratch` (dn bytes) holds the reference image of the scalar form.
template <int FORM>
static u64 ref_check_form(const i64 *P, const i64 *S, const u32 *w, const u8 *gm, const u8 *ds, u64 dn,
                          u8 *scratch, bool *bad, u64 *addr, u64 *uu) {
    if constexpr (FORM < 0) {
        if (P[FZ_MODE] == MODE_ROW_ && P[FZ_GMSIZE] >= P[FZ_T]) {
            switch ((int)P[FZ_T]) {
            case 1: return ref_row_check<1>(P, S, w, gm, ds, dn, scratch, bad, addr, uu);
            case 2: return ref_row_check<2>(P, S, w, gm, ds, dn, scratch, bad, addr, uu);
            case 4: return ref_row_check<4>(P, S, w, gm, ds, dn, scratch, bad, addr, uu);
            case 8: return ref_row_check<8>(P, S, w, gm, ds, dn, scratch, bad, addr, uu);
            default: break;
            }
        }
        __builtin_memset(scratch, (int)(P[FZ_FILL] & 0xFF), dn);
        const u64 key = ref_tile(P, S, [&](u64 k) { return w[k]; }, gm, scratch, addr, uu);
        *bad = __builtin_memcmp(scratch, ds, dn) != 0;
        return key;
    } else {
        (void)dn, (void)scratch;
        return ref_elem_check<FORM & 15, (FORM >> 4) & 15, ((FORM >> 8) & 1) != 0, ((FORM >> 9) & 1) != 0>(
            P, S, w, gm, ds, bad, addr, uu);
    }
}

// The same, the form picked at run time.
static u64 ref_check(const i64 *P, const i64 *S, const u32 *w, const u8 *gm, const u8 *ds, u64 dn, u8 *scratch,
                     bool *bad, u64 *addr, u64 *uu) {
    const int form = ref_form(P, S);
    typedef u64 (*Form)(const i64 *, const i64 *, const u32 *, const u8 *, const u8 *, u64, u8 *, bool *, u64 *,
                        u64 *);
#define RF_P(TS, O, B) ref_check_form<TS | O << 4 | B << 8>, ref_check_form<TS | O << 4 | B << 8 | 1 << 9>
#define RF_B(TS, O) RF_P(TS, O, 0), RF_P(TS, O, 1)
    // every vector form, indexed by (OOB, T, B32, POW2)
    static const Form forms[4][4][4] = {{{RF_B(1, 0)}, {RF_B(2, 0)}, {RF_B(4, 0)}, {RF_B(8, 0)}},
                                        {{RF_B(1, 1)}, {RF_B(2, 1)}, {RF_B(4, 1)}, {RF_B(8, 1)}},
                                        {{RF_B(1, 2)}, {RF_B(2, 2)}, {RF_B(4, 2)}, {RF_B(8, 2)}},
                                        {{RF_B(1, 3)}, {RF_B(2, 3)}, {RF_B(4, 3)}, {RF_B(8, 3)}}};
#undef RF_B
#undef RF_P
    if (form < 0) return ref_check_form<-1>(P, S, w, gm, ds, dn, scratch, bad, addr, uu);
    const int T = form & 15, ti = T == 1 ? 0 : T == 2 ? 1 : T == 4 ? 2 : 3;
    return forms[(form >> 4) & 15][ti][(form >> 8 & 1) * 2 + (form >> 9 & 1)](P, S, w, gm, ds, dn, scratch, bad,
                                                                                addr, uu);
}
#endif

#endif  // PTOGPU_FUZZ_REFERENCE_CUH
