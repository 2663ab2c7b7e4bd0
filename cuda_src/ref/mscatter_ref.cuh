// ref/mscatter_ref.cuh — the independent reference of MSCATTER (host only): each side's writes
// and their order, and the atomic arithmetic, computed again from the rules (docs/mscatter.md)
// and the parameter block. It includes nothing of the kernels (tests/test_cuda_layout.py holds
// it to that): a rule the kernels get wrong cannot be got wrong here the same way by sharing.
#ifndef PTOGPU_MSCATTER_REF_CUH
#define PTOGPU_MSCATTER_REF_CUH
#ifdef PTO_HOST_SHIM
#include "../common.cuh"
#include "../mscatter_params.cuh"
#include <algorithm>
#include <type_traits>
#include <vector>

// ---- the reference: MSCATTER's rules and write orders (docs/mscatter.md) -------------------------
// Nothing here calls the kernels' helpers: casts, remaps, addresses, launch geometry, orders
// and the atomic arithmetic are written again from the rules.
struct MsWrite {
    u32 pos;       // source position r*VC + c
    u32 thread;    // the A5 source-centric thread that stores it
    u64 elem;      // table element (byte address / T; the table is at GM 0)
};
static_assert(sizeof(MsWrite) == 16 && __builtin_offsetof(MsWrite, thread) == 4, "mr_elem_run writes (pos, thread) as one word");

// A write list: its storage is kept across tiles (filled through a raw pointer: push_back on
// a thread-local vector reloaded the vector's end after every store).
struct MsList {
    std::vector<MsWrite> buf;
    usize n = 0;
    const MsWrite *begin() const { return buf.data(); }
    const MsWrite *end() const { return buf.data() + n; }
    void clear() { n = 0; }
    MsWrite *room(usize k) {
        if (buf.size() < k) buf.resize(k);
        return buf.data();
    }
};

// An element of T bytes (1, 2, 4 or 8), as the little-endian number the emulated memory holds.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the host shim reads elements little-endian");
static inline u64 mr_get(const u8 *p, u64 T) {
    switch (T) {
    case 1: return *p;
    case 2: { unsigned short v; __builtin_memcpy(&v, p, 2); return v; }
    case 4: { u32 v; __builtin_memcpy(&v, p, 4); return v; }
    default: { u64 v; __builtin_memcpy(&v, p, 8); return v; }
    }
}
static inline void mr_put(u8 *p, u64 T, u64 v) {
    switch (T) {
    case 1: *p = (u8)v; break;
    case 2: { const unsigned short x = (unsigned short)v; __builtin_memcpy(p, &x, 2); break; }
    case 4: { const u32 x = (u32)v; __builtin_memcpy(p, &x, 4); break; }
    default: __builtin_memcpy(p, &v, 8); break;
    }
}

// The index word `w` as the side's cast leaves it: sign- or zero-extended, then the low 32
// bits kept by a 32-bit cast.
static inline u64 mr_cast(u32 w, bool sgn, bool b32) {
    const u64 raw = sgn ? (u64)(i64)(int)w : (u64)w;
    return b32 ? (raw & 0xFFFFFFFFull) : raw;
}

// The slot of cast index `u` under policy OOB (*w: written at all). U: u64, or u32 where the
// cast is 32-bit and the capacity below 2^32 (every value then fits: the same slots).
template <int OOB, class U = u64>
static inline U mr_remap_t(U u, U cap, bool b32, bool *w) {
    *w = OOB == SOOB_SKIP ? u < cap : true;
    if (OOB == SOOB_CLAMP) {
        const U last = b32 ? (U)((cap - (U)1) & (U)0xFFFFFFFFull) : (U)(cap - (U)1);
        return b32 ? (u >= cap ? last : u) : (u <= last ? u : last);
    }
    if (OOB == SOOB_WRAP) return cap ? (U)(u % cap) : u;
    return u;
}
static u64 mr_remap(const i64 *P, u64 u, bool *w) {
    const u64 cap = (u64)P[MS_CAP];
    const bool b32 = P[MS_BITS] == 32;
    switch ((int)P[MS_OOB]) {
    case SOOB_SKIP: return mr_remap_t<SOOB_SKIP>(u, cap, b32, w);
    case SOOB_CLAMP: return mr_remap_t<SOOB_CLAMP>(u, cap, b32, w);
    case SOOB_WRAP: return mr_remap_t<SOOB_WRAP>(u, cap, b32, w);
    default: return mr_remap_t<SOOB_UNDEFINED>(u, cap, b32, w);
    }
}

// Table element of the write of source column c to slot s (Elem: the slot): the simulator
// s*Stride[3] + c*Stride[4], A2/A3 s*u32(Stride[3]) + c, A5 u32(s*VC) + c.
static u64 mr_elem(const i64 *P, u64 s, u64 c) {
    if (P[MS_MODE] == MSM_ELEM) return s;
    switch ((int)P[MS_ROWDST]) {
    case RD_STRIDES: return s * (u64)P[MS_ST3] + c * (u64)P[MS_ST4];
    case RD_STRIDE3: return s * ((u64)P[MS_ST3] & 0xFFFFFFFFull) + c;
    default: return ((s * (u64)P[MS_VC]) & 0xFFFFFFFFull) + c;
    }
}

static u32 mr_row_warps(u32 vr) { return vr == 0 ? 1u : (vr < 32u ? vr : 32u); }
static u32 mr_wpr(u32 vr, u32 vc) {
    const u32 f = 32u / mr_row_warps(vr), c = (vc + 31u) / 32u, m = f < c ? f : c;
    return m > 1u ? m : 1u;
}
static u32 mr_warps(u64 n) { const u64 w = (n + 31u) / 32u; return w < 1 ? 1u : (w > 32 ? 32u : (u32)w); }

// The reference's Elem rule with the policy and the index cast (SGN: sign-extended; B32: a
// 32-bit cast) as template arguments: `f(oob, sgn, b32)` gets them as integral constants. With
// the cast a run-time choice GCC unswitched the element loops and left some copies scalar (a
// signed index under a 64-bit cast: a quarter of an A5 Last campaign's time).
template <class F>
static auto mr_with_rule(const i64 *P, F f) {
    auto cast = [&](auto oob) {
        const bool sgn = P[MS_IDX + TD_SIGNED] != 0, b32 = P[MS_BITS] == 32;
        using B = std::bool_constant<true>;
        using N = std::bool_constant<false>;
        if (sgn) return b32 ? f(oob, B(), B()) : f(oob, B(), N());
        return b32 ? f(oob, N(), B()) : f(oob, N(), N());
    };
    switch ((int)P[MS_OOB]) {
    case SOOB_SKIP: return cast(std::integral_constant<int, SOOB_SKIP>());
    case SOOB_CLAMP: return cast(std::integral_constant<int, SOOB_CLAMP>());
    case SOOB_WRAP: return cast(std::integral_constant<int, SOOB_WRAP>());
    default: return cast(std::integral_constant<int, SOOB_UNDEFINED>());
    }
}

// Elements and "written" of positions p0 .. p0+m-1 (m <= 256), in a loop that vectorises;
// non-zero: a write leaves GM.
template <int OOB, bool SGN, bool B32, class Word>
static u64 mr_elem_slots(const i64 *P, Word word, u64 tb, u32 p0, u32 m, u64 *el, u32 *on) {
    const u64 cap = (u64)P[MS_CAP], T = (u64)P[MS_T];
    u64 bad = 0;
    PTO_PRAGMA(omp simd reduction(| : bad))
    for (u32 l = 0; l < m; ++l) {
        bool w;
        const u64 e = mr_remap_t<OOB>(mr_cast(word(p0 + l), SGN, B32), cap, B32, &w);
        const u64 byte = e * T;
        bad |= (u64)w & ((byte >> 63) | (u64)(byte + T > tb));
        el[l] = e;
        on[l] = w;
    }
    return bad;
}

// ms_ref_list's Elem writes of positions p0 .. p0+cnt-1 in order (thread th0 + l*step), the
// list filled without a branch per position (a skipped position's entry is written and not
// counted): the indices are random, so a branch on "written" goes either way at random
// (measured: the branch-free list ran faster). Returns whether every write stays in GM.
template <class Word>
static bool mr_elem_run(const i64 *P, Word word, u64 tb, u32 p0, u32 cnt, u32 th0, u32 step, MsWrite *o,
                        usize &k) {
    return mr_with_rule(P, [&](auto oob, auto sgn, auto b32) {
        usize n = k;
        u64 bad = 0;
        // in chunks: every position's element and "written" first, then the list (a scalar
        // loop of a few instructions: its length is the data's)
        enum { CH = 256 };
        u64 el[CH];
        u32 on[CH];
        for (u32 c0 = 0; c0 < cnt; c0 += CH) {
            const u32 m = cnt - c0 < (u32)CH ? cnt - c0 : (u32)CH;
            bad |= mr_elem_slots<oob(), sgn(), b32()>(P, word, tb, p0 + c0, m, el, on);
            // (pos, thread) as one little-endian word stepped by (1, step): GCC otherwise builds
            // each entry's pair in a vector register, lane by lane (half of this function's time)
            u64 pt = (u64)(p0 + c0) | (u64)(th0 + c0 * step) << 32;
            const u64 inc = 1ull | (u64)step << 32;
            for (u32 l = 0; l < m; ++l) {
                __builtin_memcpy(&o[n], &pt, 8);
                o[n].elem = el[l];
                n += on[l];
                pt += inc;
            }
        }
        k = n;
        return !bad;
    });
}

// The side's writes in its order: the scalar loops' program order (rows, then columns); A5
// Default / atomics: warp after warp, each warp's rounds (Row: rows, then column chunks), lanes
// in order; A5 Last: each slot below cap written by its last writer (out-of-range Undefined
// indices dropped), slots in the kernel's order (warps, their slot steps, lanes). `word(e)`:
// index word of position e. False: a write leaves GM (the call faults, nothing is written).
template <class Word>
static bool ms_ref_list(const i64 *P, int kind, Word word, u64 tb, MsList &out, std::vector<i64> &owner,
                        std::vector<u64> &used) {
    const u32 VR = (u32)P[MS_VR], VC = (u32)P[MS_VC];
    const bool row = P[MS_MODE] == MSM_ROW, sgn = P[MS_IDX + TD_SIGNED] != 0;
    const u64 T = (u64)P[MS_T];
    MsWrite *o = out.room((usize)VR * VC);
    usize k = 0;
    auto cast = [&](u32 w) { return mr_cast(w, sgn, P[MS_BITS] == 32); };
    auto put = [&](u32 pos, u32 th, u64 s, u64 c) {
        const u64 e = mr_elem(P, s, c);
        o[k++] = {pos, th, e};
        const i64 byte = (i64)(e * T);
        return byte >= 0 && (u64)byte + T <= tb;
    };
    bool ok = true;
    const u32 n = row ? VR : VR * VC;
    if (kind == FK_SEQ && !row) {
        ok = mr_elem_run(P, word, tb, 0, n, 0, 0, o, k);
        out.n = k;
        return ok;
    }
    if (kind == FK_SEQ) {
        for (u32 j = 0; j < n; ++j) {
            bool w;
            const u64 s = mr_remap(P, cast(word(j)), &w);
            if (!w) continue;
            for (u32 c = 0; c < (row ? VC : 1u); ++c) ok &= put(row ? j * VC + c : j, 0, s, c);
        }
        out.n = k;
        return ok;
    }
    if (kind == FK_SOURCE) {
        if (!row) {
            const u32 lt = 32u * mr_warps(n);
            if (n <= lt) {                        // one round: positions in order, a thread each
                ok = mr_elem_run(P, word, tb, 0, n, 0, 1, o, k);
                out.n = k;
                return ok;
            }
            for (u32 wp = 0; wp * 32u < n && wp * 32u < lt; ++wp)     // (thread (base + l) % lt)
                for (u32 base = 32u * wp; base < n; base += lt)
                    ok &= mr_elem_run(P, word, tb, base, n - base < 32u ? n - base : 32u, 32u * wp, 1, o, k);
            out.n = k;
        return ok;
        }
        const u32 rw = mr_row_warps(VR), wpr = mr_wpr(VR, VC);
        for (u32 ty = 0; ty < rw * wpr; ++ty)
            for (u32 r = ty % rw; r < VR; r += rw) {
                bool w;
                const u64 s = mr_remap(P, cast(word(r)), &w);
                if (!w) continue;
                for (u32 col = 32u * (ty / rw); col < VC; col += 32u * wpr)
                    for (u32 l = 0; l < 32u && col + l < VC; ++l) ok &= put(r * VC + col + l, ty * 32u + l, s, col + l);
            }
        out.n = k;
        return ok;
    }
    // FK_LAST
    const u64 cap = (u64)P[MS_CAP] & 0xFFFFFFFFull;
    if (!cap) {
        out.n = 0;
        return true;
    }
    if (owner.size() < cap + 1) owner.resize(cap + 1, -1);
    if (!row) {
        // Without a branch on the random slots: the scalar writes in order (mr_elem_run, into
        // the list itself), every one claims its slot (the spare slot `cap` past the table),
        // then each slot's last claim is kept, in place.
        usize m = 0;
        (void)mr_elem_run(P, word, tb, 0, n, 0, 0, o, m);
        if (used.size() < m) used.resize(m);          // (grown, never cleared and refilled)
        u64 *ul = used.data();
        i64 *own = owner.data();
        for (usize t = 0; t < m; ++t) {
            ul[t] = select_nb(o[t].elem < cap, o[t].elem, cap);
            own[ul[t]] = (i64)t;
        }
        usize nu = 0;
        for (usize t = 0; t < m; ++t) {
            const u64 at = ul[t];
            ul[nu] = t;
            nu += (at != cap) & (own[at] == (i64)t);
        }
        own[cap] = -1;
        for (usize i = 0; i < nu; ++i) {          // (ul[i] >= i: each entry is read before it is overwritten)
            const MsWrite w = o[ul[i]];
            own[w.elem] = -1;
            ok &= put(w.pos, 0, w.elem, 0);
        }
        out.n = k;
        return ok;
    }
    used.clear();
    for (u32 j = 0; j < n; ++j) {
        bool w;
        const u64 s = mr_remap(P, cast(word(j)), &w);
        if (!w || s >= cap) continue;
        if (owner[s] < 0) used.push_back(s);
        owner[s] = j;
    }
    // Elem slots are distinct elements (any order); Row rows may share elements through the
    // 32-bit s*VC: the kernel's slot order, warp ty = (s % 1024) / 32, then s / 1024, then
    // the lane s % 32
    if (row)
        std::sort(used.begin(), used.end(), [](u64 x, u64 y) {
            const u64 kx = ((x % 1024) / 32) << 40 | (x / 1024) << 5 | (x % 32);
            const u64 ky = ((y % 1024) / 32) << 40 | (y / 1024) << 5 | (y % 32);
            return kx < ky;
        });
    for (usize t = 0; t < used.size(); ++t) {
        const u64 s = used[t];
        const u32 j = (u32)owner[s];
        for (u32 c = 0; c < (row ? VC : 1u); ++c) ok &= put(row ? j * VC + c : j, 0, s, c);
        owner[s] = -1;
    }
    out.n = k;
    return ok;
}

// ms_ref_list, with no writes listed when the call faults (nothing is written then).
template <class Word>
static bool ms_ref(const i64 *P, int kind, Word word, u64 tb, MsList &out, std::vector<i64> &owner,
                   std::vector<u64> &used) {
    const bool ok = ms_ref_list(P, kind, word, tb, out, owner, used);
    if (!ok) out.clear();
    return ok;
}

// ---- the atomic arithmetic, from the rules: integers wrap; half and bfloat16 add through
// float with one round-to-nearest-even; a NaN operand of a float Add comes back quieted (the
// first first), a new NaN is 0xFFC00000; Max keeps the old value unless old < v, Min unless
// v < old (a NaN never replaces, and is never replaced).
static float mr_f(u32 u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
static u32 mr_u(float f) { u32 u; __builtin_memcpy(&u, &f, 4); return u; }
static bool mr_nan(u32 u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu); }
static float mr_add(float a, float b) {
    if (mr_nan(mr_u(a))) return mr_f(mr_u(a) | 0x400000u);
    if (mr_nan(mr_u(b))) return mr_f(mr_u(b) | 0x400000u);
    const float r = a + b;
    return mr_nan(mr_u(r)) ? mr_f(0xFFC00000u) : r;
}
static float mr_h2f(u32 h) {                     // exact: every half is a float
    const int e = (h >> 10) & 31, m = h & 1023;
    const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
    if (e == 31) return mr_f(((h & 0x8000u) << 16) | 0x7F800000u | ((u32)m << 13));
    if (e == 0) return sign * (float)m * 5.9604644775390625e-8f;                  // m * 2^-24
    return sign * (1.0f + (float)m / 1024.0f) * mr_f((u32)(e - 15 + 127) << 23);
}
static u32 mr_f2h(float f) {                     // round to nearest even, through double
    const u32 x = mr_u(f), s = (x >> 16) & 0x8000u;
    if (mr_nan(x)) { const u32 hm = (x & 0x7FFFFFu) >> 13; return s | 0x7C00u | (hm ? hm : 1u); }
    double a = f < 0 ? -(double)f : (double)f;
    if (a >= 65520.0) return s | 0x7C00u;        // rounds to infinity
    if (a < 6.103515625e-05) {                   // subnormal (or zero): units of 2^-24
        const double q = a * 16777216.0;
        double fl = (double)(u64)q;
        const double rem = q - fl;
        if (rem > 0.5 || (rem == 0.5 && ((u64)fl & 1))) fl += 1.0;
        return s | (u32)(u64)fl;                 // may carry into the smallest normal
    }
    // a = 1.m * 2^e: e from the float's exponent field (a normal float here), then a scaled by
    // the exact power of two 2^-e (halving and doubling in a loop, as before, was most of a
    // half Add campaign's reference)
    const int e = (int)((x >> 23) & 0xFFu) - 127;
    double p2;
    const u64 pb = (u64)(1023 - e) << 52;
    __builtin_memcpy(&p2, &pb, 8);
    a *= p2;
    double q = (a - 1.0) * 1024.0;
    double fl = (double)(u64)q;
    const double rem = q - fl;
    if (rem > 0.5 || (rem == 0.5 && ((u64)fl & 1))) fl += 1.0;
    u32 h = (u32)(e + 15) << 10;
    h += (u32)(u64)fl;                           // a carry moves into the exponent
    return s | h;
}
static float mr_b2f(u32 b) { return mr_f(b << 16); }
static u32 mr_f2b(float f) {
    const u32 x = mr_u(f);
    if (mr_nan(x)) return ((x >> 16) & 0x8000u) | 0x7FC0u;
    const u32 lo = x & 0xFFFFu, hi = x >> 16;
    return (lo > 0x8000u || (lo == 0x8000u && (hi & 1u))) ? hi + 1u : hi;
}

static u64 mr_combine(int op, int dt, u64 old, u64 v) {
    if (dt == DT_F32 || dt == DT_F16 || dt == DT_BF16) {
        const float a = dt == DT_F32 ? mr_f((u32)old) : dt == DT_F16 ? mr_h2f((u32)old) : mr_b2f((u32)old);
        const float b = dt == DT_F32 ? mr_f((u32)v) : dt == DT_F16 ? mr_h2f((u32)v) : mr_b2f((u32)v);
        if (op == AT_ADD) {
            const float r = mr_add(a, b);
            return dt == DT_F32 ? mr_u(r) : dt == DT_F16 ? mr_f2h(r) : mr_f2b(r);
        }
        return (op == AT_MAX ? a < b : b < a) ? v : old;
    }
    if (op == AT_ADD) return old + v;
    const int bytes = dt == DT_I8 || dt == DT_U8 ? 1 : dt == DT_I16 || dt == DT_U16 ? 2 : dt == DT_I32 || dt == DT_U32 ? 4 : 8;
    const bool sgn = dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64;
    auto val = [&](u64 x) -> i64 {                 // the element's value, widened
        if (bytes == 8) return (i64)x;
        const u64 m = (1ull << (8 * bytes)) - 1ull, y = x & m;
        return sgn && (y >> (8 * bytes - 1)) ? (i64)(y | ~m) : (i64)y;
    };
    const bool lt = sgn || bytes < 8 ? val(old) < val(v) : old < v, gt = sgn || bytes < 8 ? val(v) < val(old) : v < old;
    return (op == AT_MAX ? lt : gt) ? v : old;
}

// Apply a reference's writes (in order) to table image `tab`; the source value of position p
// is element p of the RowMajor source tile in `ub`.
static void ms_apply(const i64 *P, const MsList &W, const u8 *ub, u8 *tab) {
    const u64 T = (u64)P[MS_T], VC = (u64)P[MS_VC], SC = (u64)P[MS_SRC + TD_COLS];
    const u8 *src = ub + P[MS_SRC + TD_ADDR];
    const int op = (int)P[MS_ATOMIC], dt = (int)P[MS_DT];
    for (const MsWrite &w : W) {
        const u64 at = SC == VC ? w.pos : (w.pos / VC) * SC + w.pos % VC;     // (a dense tile: no division)
        const u64 v = mr_get(src + at * T, T);
        u8 *d = tab + w.elem * T;
        mr_put(d, T, op == AT_NONE ? v : mr_combine(op, dt, mr_get(d, T), v));
    }
}

// A plain (non-atomic) scatter's reference, checked in one backward pass over its writes: the
// last write to an element is the one whose source value both sides' tables `ga` and `gb`
// must hold there (*bad_a, *bad_b: they do not); a write to an element a later write of
// another thread also stores is a race (*race; as ms_races). `own` as ms_races, left marked
// at the listed elements for ms_restore_plain.
template <u64 T, bool TWO>
static void ms_check_last_t(const i64 *P, const MsList &W, const u8 *ub, const u8 *ga, const u8 *gb,
                            u32 *__restrict own, bool *bad_a, bool *bad_b, bool *race) {
    const u64 VC = (u64)P[MS_VC], SC = (u64)P[MS_SRC + TD_COLS];
    const u8 *src = ub + P[MS_SRC + TD_ADDR];
    u64 da = 0, db = 0;
    bool r = false;
    // (without a branch on "overwritten", which random indices make unpredictable; every
    // listed element is inside both tables, so its loads are always safe)
    for (const MsWrite *w = W.end(); w-- != W.begin();) {
        u32 &o = own[w->elem];
        const u32 prev = o;
        const bool later = prev != ~0u;           // an earlier write, overwritten by a later one
        r |= later & (prev != w->thread);
        o = later ? prev : w->thread;
        const u64 at = SC == VC ? w->pos : (w->pos / VC) * SC + w->pos % VC;
        const u64 v = mr_get(src + at * T, T), keep = (u64)later - 1u;
        da |= (mr_get(ga + w->elem * T, T) ^ v) & keep;
        if (TWO) db |= (mr_get(gb + w->elem * T, T) ^ v) & keep;
    }
    *bad_a = da != 0, *race = r;
    if (TWO) *bad_b = db != 0;
}
// (the element size a template argument: its loads are then plain loads, no switch per write;
// `gb` null: one table, *bad_b untouched)
template <bool TWO>
static void ms_check_last_n(const i64 *P, const MsList &W, const u8 *ub, const u8 *ga, const u8 *gb,
                            u32 *__restrict own, bool *bad_a, bool *bad_b, bool *race) {
    switch ((int)P[MS_T]) {
    case 1: return ms_check_last_t<1, TWO>(P, W, ub, ga, gb, own, bad_a, bad_b, race);
    case 2: return ms_check_last_t<2, TWO>(P, W, ub, ga, gb, own, bad_a, bad_b, race);
    case 4: return ms_check_last_t<4, TWO>(P, W, ub, ga, gb, own, bad_a, bad_b, race);
    default: return ms_check_last_t<8, TWO>(P, W, ub, ga, gb, own, bad_a, bad_b, race);
    }
}
static void ms_check_last(const i64 *P, const MsList &W, const u8 *ub, const u8 *ga, const u8 *gb,
                          u32 *__restrict own, bool *bad_a, bool *bad_b, bool *race) {
    if (gb) ms_check_last_n<true>(P, W, ub, ga, gb, own, bad_a, bad_b, race);
    else ms_check_last_n<false>(P, W, ub, ga, gb, own, bad_a, bad_b, race);
}

// One side's table against its own plain reference (ms_check_last on one table), `own` left
// clear: the last writer of every listed element is the value the table must hold there.
static void ms_check_side(const i64 *P, const MsList &W, const u8 *ub, const u8 *g, u32 *__restrict own,
                          bool *bad, bool *race) {
    ms_check_last(P, W, ub, g, nullptr, own, bad, nullptr, race);
    for (const MsWrite &w : W) own[w.elem] = ~0u;
}

// After ms_check_last: `own` cleared and both tables put back, in one pass.
template <u64 T>
static void ms_restore_plain_t(const MsList &W, u32 *__restrict own, u8 *ga, u8 *gb, const u8 *gm) {
    for (const MsWrite &w : W) {
        own[w.elem] = ~0u;
        const u64 v = mr_get(gm + w.elem * T, T);
        mr_put(ga + w.elem * T, T, v);
        mr_put(gb + w.elem * T, T, v);
    }
}
static void ms_restore_plain(const MsList &W, u32 *__restrict own, u8 *ga, u8 *gb, const u8 *gm, u64 T) {
    switch ((int)T) {
    case 1: return ms_restore_plain_t<1>(W, own, ga, gb, gm);
    case 2: return ms_restore_plain_t<2>(W, own, ga, gb, gm);
    case 4: return ms_restore_plain_t<4>(W, own, ga, gb, gm);
    default: return ms_restore_plain_t<8>(W, own, ga, gb, gm);
    }
}

// Two threads of a source-centric launch store to one element (a race: another legal schedule
// may leave the other's value). `own`: one u32 per table element, ~0 before and after.
static bool ms_races(const MsList &W, std::vector<u32> &own) {
    bool race = false;
    for (const MsWrite &w : W) {
        u32 &o = own[w.elem];
        race |= o != ~0u && o != w.thread;
        o = w.thread;
    }
    for (const MsWrite &w : W) own[w.elem] = ~0u;
    return race;
}

#endif  // PTO_HOST_SHIM
#endif  // PTOGPU_MSCATTER_REF_CUH
