"""Bugs planted one at a time in a copy of cuda_src/ (never in the shipped kernels): each a small,
plausible kernel mistake of its own kind. tests/test_mutations.py requires the default
``ptogpu fuzz`` suite to fail for every one of MUTATIONS (its verdicts, not the tests, must
catch it), and the named test to fail for every one of VERDICT_MUTATIONS: bugs in the verdicts
themselves that no correct kernel can show (a check left out passes while the kernels are
right), caught by tests that hand the verdict wrong tables or compare its two paths.

Each entry: (name, file, the exact text, what it becomes[, the test that must fail]).

PY_MUTATIONS are planted the same way in a copy of the ``ptogpu`` package (paths from the
repository root): the NumPy semantics (each kernel's reference in the suite's kernel-against-
NumPy campaigns) and the target tables (whose rules the cross-target campaigns' recorded
classes pin)."""
from __future__ import annotations

MUTATIONS = [
    # TINTERLEAVE's copies in pass 0, its checks in pass 1: an in-place call is copied before its
    # overlap hands it to NumPy
    ("interleave passes swapped", "interleave.cu",
     "        if (pass == 0) {\n            i64 lo = (i64)(~0ull >> 1), hi = -lo;",
     "        if (pass != 0) {\n            i64 lo = (i64)(~0ull >> 1), hi = -lo;"),
    # the simulator's TCMP words into a uint32 mask holding 2 bits, not 32 (only cmp_types packs
    # into a uint32 mask)
    ("compare simulator words of a uint32 mask", "compare.cu",
     "i64 nwords, i64 DS) {\n    constexpr int T = K >= CK_F16 ? (K == CK_F32 ? 4 : 2) : 1 << (K / 2);\n"
     "    const i64 kb = 8 * DS;",
     "i64 nwords, i64 DS) {\n    constexpr int T = K >= CK_F16 ? (K == CK_F32 ? 4 : 2) : 1 << (K / 2);\n"
     "    const i64 kb = 8 / DS;"),
    # TMRGSORT's copy from tmp to a dst above it (the NPUs' merge into tmp) writing downwards
    ("sort merge copy to a higher dst", "sort.cu",
     "                for (i64 b = db - 1; b >= 0; --b) U.p[P[MG_DST] + b] = U.p[P[MG_TMP] + b];",
     "                for (i64 b = db - 1; b >= 0; --b) U.p[P[MG_DST] - b] = U.p[P[MG_TMP] + b];"),
    # TGATHERB's destination bound refusing a block that ends at UB's last byte (the kernel then
    # leaves the call to NumPy: the right bytes, but the recorded kernel runs change)
    ("tgatherb dst bound at the end of UB", "tgatherb.cu",
     "            if (d < 0 || d + nb > U.size) fault_note(s.rec, fault_key(PHASE_DST, q), (u64)d, 0);",
     "            if (d < 0 || d + nb >= U.size) fault_note(s.rec, fault_key(PHASE_DST, q), (u64)d, 0);"),
    # the compare kernel reading uint16 elements as signed (only cmp_types compares uint16)
    ("compare uint16 as signed", "compare.cu",
     "PTO_DEV i64 cp_ivalue(u64 b, int k) { return fb_int(b, cp_size(k), k % 2 == 0); }",
     "PTO_DEV i64 cp_ivalue(u64 b, int k) { return fb_int(b, cp_size(k), k % 2 == 0 || k == CK_U16); }"),
    # the compare kernel reading bfloat16 elements as half
    ("compare bfloat16 as half", "compare.cu",
     "PTO_DEV double cp_fvalue(u64 b, int k) { return fb_float(b, cp_size(k), k == CK_BF16); }",
     "PTO_DEV double cp_fvalue(u64 b, int k) { return fb_float(b, cp_size(k), false); }"),
    # the element-wise kernel sign-extending uint16 elements (only ew_types runs uint16)
    ("elementwise uint16 as signed", "elementwise_ops.cuh",
     "PTO_DEV bool ew_signed(int k) { return k != K_F32 && (k % 2) == 0; }",
     "PTO_DEV bool ew_signed(int k) { return k != K_F32 && ((k % 2) == 0 || k == K_U16); }"),
    # the burst engine's GetPadValue: bfloat16 Min one ulp short of -inf (TLOAD's NPU bursts)
    ("burst pad table bf16 min", "burst.cuh",
     "    case PADTY_BF16: return mx ? 0x7F80u : 0xFF80u;", "    case PADTY_BF16: return mx ? 0x7F80u : 0xFF7Fu;"),
    # the burst engine's pad element repeating the register's low 2 bytes for 4-byte elements
    ("burst pad tile unit", "burst.cuh",
     "        const i64 unit = f.elem < 4 ? f.elem : 4;", "        const i64 unit = f.elem < 2 ? f.elem : 2;"),
    # the element-wise kernel: vmax lets a NaN in src1 lose (A2/A3 and A5 TMAX)
    ("elementwise vmax nan", "elementwise_ops.cuh",
     "            if (ew_nan(yb)) return true;",
     "            if (ew_nan(yb)) return false;"),
    # the element-wise kernel: the NPUs' float results not flushed (denormals kept)
    ("elementwise ftz result", "elementwise_ops.cuh",
     "    if (ew_nan(rb)) return 0xFFC00000u;\n    return ew_flush(rb, ftz);",
     "    if (ew_nan(rb)) return 0xFFC00000u;\n    return rb;"),
    # the element-wise kernel: the simulator's promoted shift masks the count to 4 bits
    ("elementwise shift count", "elementwise_ops.cuh",
     "        n = ew_int(b, k) & 31;",
     "        n = ew_int(b, k) & 15;"),
    # the element-wise campaign engine compares an alternative block with the wrong side
    ("elementwise engine alternative side", "elementwise_fuzz.cu",
     "if (std::memcmp(oh.data(), X[1] ? ob.data() : oa.data(), n * 4) == 0) {",
     "if (std::memcmp(oh.data(), X[1] ? oa.data() : ob.data(), n * 4) == 0) {"),
    # ... or leaves a scalar form's scalar out (src1 read as the scalar's neighbour)
    ("elementwise engine scalar", "elementwise_fuzz.cu",
     "else if (F[EWF_SCALAR]) { std::fill(ys.begin(), ys.end(), x[n]); y = ys.data(); }",
     "else if (F[EWF_SCALAR]) { std::fill(ys.begin(), ys.end(), x[n - 1]); y = ys.data(); }"),
    # TSCATTER on A5: a vscatter's lanes stored in program order (the last lane wins, not the lowest)
    ("tscatter lowest lane forwards", "tgather.cu",
     "const i64 j = j0 + (P[SI_LOWEST] ? n - 1 - k : k);",
     "const i64 j = j0 + k;"),
    # TSCATTER on A2/A3 and A5: the whole dst tile is not zeroed first
    ("tscatter no clear", "tgather.cu",
     "if (P[SI_CLEAR]) PTO_MEMSET0(U.p + P[SI_DST], P[SI_DST_BYTES]);",
     "if (P[SI_CLEAR] && VR > 1000) PTO_MEMSET0(U.p + P[SI_DST], P[SI_DST_BYTES]);"),
    # the NPUs' TSCATTER ROW mask form: the selected slot ignored (every element to slot 0)
    ("tscatter mask slot", "tgather.cu",
     "*d = i * DC + F * j + pos; *s = i * SC + j;",
     "*d = i * DC + F * j; *s = i * SC + j;"),
    # A2/A3 TGATHER of 2-byte data: the scratch's bound checked for every row but the last
    ("tgather scratch bound last row", "tgather.cu",
     "if (scratch >= 0 && !arena_ok(U, (u64)(scratch + (r * P[GI_DST_COLS] + c) * 4), 4))",
     "if (scratch >= 0 && !arena_ok(U, (u64)(scratch + (r * P[GI_DST_COLS] + c) * 4), 4) && r < VR - 1)"),
    # the simulator's TGATHER COL: the selected rows counted from row 0 (pos ignored)
    ("tgather col rows from zero", "tgather.cu",
     "*d = j * DC + c; *s = (all ? j : F * j + pos) * SC + c;",
     "*d = j * DC + c; *s = (all ? j : F * j) * SC + c;"),
    # the NPUs' TSCATTER COL mask form: the row offset kept past 16 bits (it is a uint16_t)
    ("tscatter col offset not 16 bits", "tgather.cu",
     "        if (P[MK_OFF16]) row &= 0xFFFF;                        // the offset is a uint16_t",
     "        if (P[MK_OFF16]) row &= 0x1FFFF;                       // the offset is a uint16_t"),
    # A5 TGATHER compare form on 1-, 2- and 4-byte integer scores: GT taken as GE (ties match)
    ("tgather cmp integer ge", "tgather.cu",
     "    return gt ? bits > k32 : bits == k32;",
     "    return gt ? bits >= k32 : bits == k32;"),
    # TCVT to float8_e4m3 on A5 (vcvt): an overflow saturates to 448 instead of NaN
    ('cvt e4m3 overflow saturates', 'cvt.cu',
     '    return v > 448.0 ? sign | 0x7Fu : sign | cv_fields(v, 3, -6);',
     '    return v > 448.0 ? sign | 0x7Eu : sign | cv_fields(v, 3, -6);'),
    # TCVT to the simulator's MXType: a value below the smallest normal shifted one bit too little
    ('cvt mx subnormal shift', 'cvt.cu',
     '    if (oe < 0) { om = (om | (1ll << M)) >> ((1 - oe) & 63); oe = 0; }',
     '    if (oe < 0) { om = (om | (1ll << M)) >> ((0 - oe) & 63); oe = 0; }'),
    # TCVT to hifloat8 on A5: a tie goes to the smaller magnitude (the hardware rounds away)
    ('cvt hifloat8 ties to the lower', 'cvt.cu',
     '    else code = (a - lo >= hi - a) ? hc : lc;',
     '    else code = (a - lo > hi - a) ? hc : lc;'),
    # A2/A3 NonSatTorch TCVT: saturated to int16 instead of int32 before the low bits
    ('cvt nonsattorch saturates to int16', 'cvt.cu',
     '        return (u64)(i64)(cv_nan(r) ? 0.0 : cv_clip(r, -2147483648.0, 2147483647.0));',
     '        return (u64)(i64)(cv_nan(r) ? 0.0 : cv_clip(r, -32768.0, 32767.0));'),
    # the simulator's hifloat8 table: the 1-bit-exponent codes lose their top mantissa bit
    ('cvt simulator hifloat8 width 1', 'cvt.cu',
     'else if (p >> 4 == 1) { eb = 1; rem = p & 0x0Fu; }',
     'else if (p >> 4 == 1) { eb = 1; rem = p & 0x07u; }'),
    # A5 MGATHER: 2-byte data under Wrap dispatched to the Clamp lanes
    ('a5 dispatch 2-byte wrap as clamp', 'mgather_impl.cuh',
     '    case OOB_WRAP * 16 + 2: CALL(2, OOB_WRAP); break;                                        \\',
     '    case OOB_WRAP * 16 + 2: CALL(2, OOB_CLAMP); break;                                       \\'),
    # MSCATTER Max/Min on 16-bit integers: compared as 32-bit values (the sign bit lost)
    ('mscatter 16-bit max min compare width', 'mscatter.cu',
     '    const int bits = dt <= DT_U8 ? 8 : dt <= DT_U16 ? 16 : dt <= DT_U32 ? 32 : 64;',
     '    const int bits = dt <= DT_U8 ? 8 : dt <= DT_U16 ? 32 : dt <= DT_U32 ? 32 : 64;'),
    # TGATHER on the CPU simulator: an index outside src0 reads src0[0] instead of giving 0
    ("tgather outside reads", "tgather.cu",
     "else zero_elem(U.p + da, (int)T);",
     "else copy_elem(U.p + da, U.p + P[GI_SRC], (int)T);"),
    # A5 Elem geometry: the rounds of a warp step by one warp too many (elements skipped)
    ("elem round stride", "mgather_impl.cuh",
     "return k * 32ull * (u64)warps + (u64)warp * 32ull;",
     "return k * 32ull * (u64)(warps + 1) + (u64)warp * 32ull;"),
    # A5 Row geometry: a lane's next column is 32 further than the warp's chunk stride
    ("row column step", "mgather_impl.cuh",
     "g.col_step = wpr * 32u;",
     "g.col_step = wpr * 32u + 32u;"),
    # Clamp lets index == cap through (the vector form the A5 lanes run)
    ("clamp bound", "rules_fast.cuh",
     "if (OOB == OOB_CLAMP) return u >= cap ? last : u;",
     "if (OOB == OOB_CLAMP) return u > cap ? last : u;"),
    # the inactive lanes of a partial warp store too
    ("inactive lanes store", "mgather_impl.cuh",
     "if (on) st_at<TS>(db, dof, SEL ? select_nb(rd, v, 0) : (rd ? v : 0));",
     "st_at<TS>(db, dof, SEL ? select_nb(rd, v, 0) : (rd ? v : 0));"),
    # the A5 Wrap remap sign-extends the 32-bit index before the modulo
    ("wrap sign extension", "rules_fast.cuh",
     "if (OOB == OOB_WRAP) return pow2 ? (u & last) : (u32)mod_u32(u, cap, inv_cap);",
     "if (OOB == OOB_WRAP) return pow2 ? (u & last) : (u32)((u64)(i64)(int)u % (u64)cap);"),
    # Conflict::Last's reverse scan runs forwards (the first writer wins)
    ("last scan forwards", "mscatter.cu",
     "const u32 j = count - 1u - k;",
     "const u32 j = k;"),
    # the owner table keeps each slot's first writer
    ("owner keeps first writer", "mscatter.cu",
     "for (u32 j = 0; j < count; ++j) own[tl[j]] = j;",
     "for (u32 j = count; j-- > 0;) own[tl[j]] = j;"),
    # ... or, moving slot by slot (a table no larger than the tile), stops one slot short
    ("owner slot moves one short", "mscatter.cu",
     "        for (u64 s = 0; s < cap; ++s) {\n            const i64 o = own[s];",
     "        for (u64 s = 0; s + 1 < cap; ++s) {\n            const i64 o = own[s];"),
    # the first-fault scan (A5 lanes and scalar loops) keys a faulting Elem instance's table
    # read one position late
    ("first fault position", "mgather_impl.cuh",
     "fault_note(rec, fault_key(PHASE_TABLE, r * VC + c), src, u);",
     "fault_note(rec, fault_key(PHASE_TABLE, r * VC + c + 1), src, u);"),
    # ... or with the wrong index
    ("first fault index", "mgather_impl.cuh",
     "fault_note(rec, fault_key(PHASE_TABLE, r * VC + c), src, u);",
     "fault_note(rec, fault_key(PHASE_TABLE, r * VC + c), src, u + 1);"),
    # the MSCATTER reference rounds a half sum at the wrong binade (its exponent one off)
    ("reference half exponent", "ref/mscatter_ref.cuh",
     "const int e = (int)((x >> 23) & 0xFFu) - 127;",
     "const int e = (int)((x >> 23) & 0xFFu) - 126;"),
    # A5 TGATHERB: the partial last block one element short
    ("tgatherb tail short", "tgatherb.cu",
     "const i64 R = (VC + E - 1) / E, rem = VC % E ? VC % E : E;",
     "const i64 R = (VC + E - 1) / E, rem = VC % E ? VC % E - 1 : E;"),
    # the GM-end check of the A5 lanes one element too lax
    ("gm end check", "mgather_impl.cuh",
     "x.smax = (u32)(smax > 0xFFFFFFFFull ? 0xFFFFFFFFull : smax);",
     "x.smax = (u32)(smax + 1 > 0xFFFFFFFFull ? 0xFFFFFFFFull : smax + 1);"),
    # the A5 Row lanes skip their check pass when the capacity's last row ends one element
    # past GM (the "no read can leave GM" bound one element too lax)
    ("row fit bound", "mgather_impl.cuh",
     "(u64)x.cap * x.vc - 1 <= (u64)x.smax;",
     "(u64)x.cap * x.vc - 1 <= (u64)x.smax + 1;"),
    # the A2/A3 Row tail fill stops one element early
    ("a2a3 tail fill", "mgather_impl.cuh",
     "for (u64 c = VC; c < end; ++c) st_word<TS>(d + c * TS, first);",
     "for (u64 c = VC; c + 1 < end; ++c) st_word<TS>(d + c * TS, first);"),
    # A5 Elem's non-linear write pass drops the last lane of a partial warp-round
    ("a5 elem offsets partial warp", "mgather_impl.cuh",
     "for (int l = 0; l < (FULL ? W : active); ++l) {",
     "for (int l = 0; l < (FULL ? W : active - 1); ++l) {"),
    # MSCATTER's Row runs check the source but not the GM address of their writes
    ("mscatter row run gm bound", "mscatter.cu",
     "ok &= arena_ok(S, sa + (u64)k * ss, T) && arena_ok(G, d + (u64)k * ds, T);",
     "ok &= arena_ok(S, sa + (u64)k * ss, T);"),
    # the scalar Row scan walks a row's columns ignoring the table's column stride
    ("row scan column stride", "mgather_impl.cuh",
     "*step = row_src(P, safe, 1) - *base;",
     "*step = (u64)P[MG_T];"),
    # the reference's Row form fills the A2/A3 tail with the row's last element, not its first
    ("reference row tail", "ref/mgather_ref.cuh",
     "for (u64 c = VC; c < end; ++c) row[c] = row[0];",
     "for (u64 c = VC; c < end; ++c) row[c] = row[VC - 1];"),
    # A5 Elem's linear write pass drops a last warp-round of 8 lanes (a 5x40 float32 tile)
    ("a5 elem linear partial warp", "mgather_impl.cuh",
     "if (base < total) elem_round_fast<W, TS, OOB, false, true, true>(x, base, nullptr);",
     "if (base + 8 < total) elem_round_fast<W, TS, OOB, false, true, true>(x, base, nullptr);"),
    # the whole-table verdict of a plain Elem tile leaves out the sides' comparison where their
    # rules differ (two expected tables, each side equal to its own)
    ("table verdict sides compared", "mscatter_fuzz.cuh",
     "(!same && __builtin_memcmp(ga, gb, E * T)))",
     "(false))"),
    # ... or sees no race on the source-centric side A (its writes counted, never compared)
    ("table verdict race", "mscatter_fuzz.cuh",
     "*race_a = ka == FK_SOURCE && na != oa;",
     "*race_a = false;"),
    # MSCATTER Max keeps the new value on ties of integers (a wrong comparison)
    ("atomic max compare", "mscatter.cu",
     "if (op == AT_MAX) return lt_ov ? v : old;",
     "if (op == AT_MAX) return lt_vo ? v : old;"),
    # the GM->L1 Row nd2nz burst writes its block one row down
    ("l1 row burst row", "mgather_l1.cu",
     "const i64 dst = P[L1_DST] + (b * R + r) * C0 * T;",
     "const i64 dst = P[L1_DST] + (b * R + r + (r + 1 < R ? 1 : 0)) * C0 * T;"),
    # the MSCATTER scalar loop's vector pass reads neighbouring positions' index words swapped
    ("scatter loop index words swapped", "mscatter.cu",
     "ld_word<4>(ib + ((u64)p0 + (u64)l) * 4)",
     "ld_word<4>(ib + ((u64)p0 + (u64)(l ^ 1)) * 4)"),
    # ... and the one-round A5 launch's lanes likewise
    ("scatter a5 lanes index words swapped", "mscatter.cu",
     "remap_t<OOB, 32>((u32)ld_word<4>(ib + (u64)l * 4), cap32, &wr);",
     "remap_t<OOB, 32>((u32)ld_word<4>(ib + (u64)(l ^ 1) * 4), cap32, &wr);"),
    # the MSCATTER fast kernels let a write to the first element past GM through
    ("scatter gm slot limit", "mscatter.cu",
     "    *lim = ok ? (gsz - T - tb) / T : 0;",
     "    *lim = ok ? (gsz - T - tb) / T + 1 : 0;"),
    # the host launch's instance ranges: every block of several drops its last instance
    ("launch range short", "common.cuh",
     "inst##_end = pto_range_first(n_inst, blockIdx.x + 1, gridDim.x);",
     "inst##_end = pto_range_first(n_inst, blockIdx.x + 1, gridDim.x) - (gridDim.x > 1);"),
    # -- the paths the suite's kernels reach against NumPy (issue: coverage of the known suite)
    # Reg::Gather b16 <- b8: the byte sign-extended instead of zero-extended
    ("reg gather b8 sign extension", "reg_gather.cu",
     "            out[1] = 0;",
     "            out[1] = (u8)((signed char)U.p[a] >> 7);"),
    # Reg::GatherB: a misaligned offset rounded down to 16 bytes, not to its 32-byte block
    ("reg gatherb block rounding", "reg_gather.cu",
     "& 0xFFFFFFFFull) & ~31ull);",
     "& 0xFFFFFFFFull) & ~15ull);"),
    # the DMA burst engine: the left pad repeats the payload's first element, not the pad
    ("dma left pad from payload", "burst.cuh",
     "        if (p < L) d[p] = pat[p % e];",
     "        if (p < L) d[p] = s[p % e];"),
    # TINTERLEAVE on A5, odd width: the hole's chunk count rounded down instead of up
    ("interleave odd width chunks", "interleave.cu",
     "const i64 w = 2 * ((h + E - 1) / E) * E; return w < vc ? w : vc;",
     "const i64 w = 2 * (h / E) * E; return w < vc ? w : vc;"),
    # TDEINTERLEAVE (two sources): even and odd elements sent to the other destination
    ("deinterleave two sources swapped", "interleave.cu",
     "        *dn = c % 2; *dc = s * h + c / 2; *sn = s; *sc = c;",
     "        *dn = (c + 1) % 2; *dc = s * h + c / 2; *sn = s; *sc = c;"),
    # TDEINTERLEAVE (one source): likewise
    ("deinterleave one source swapped", "interleave.cu",
     "        *dn = e % 2; *dc = e / 2; *sn = 0; *sc = e;",
     "        *dn = (e + 1) % 2; *dc = e / 2; *sn = 0; *sc = e;"),
    # A2/A3 Elem over an NZ table: dst column blocks placed by the valid rows, not the tile's
    ("nz elem dst block stride", "mgather.cu",
     "const u64 d = (u64)dtd[TD_ADDR] + (u64)((b * R * C0 + r * C0 + k) * T);",
     "const u64 d = (u64)dtd[TD_ADDR] + (u64)((b * VR * C0 + r * C0 + k) * T);"),
    # A2/A3 Row over an NZ table: likewise for the row bursts
    ("nz row dst block stride", "mgather.cu",
     "(((u64)i * (u64)P[MG_S1] + (u64)j) * (u64)(R * C0) +",
     "(((u64)i * (u64)P[MG_S1] + (u64)j) * (u64)(VR * C0) +"),
    # the simulator's TGATHERB with float offsets: rounded, not truncated toward zero
    ("tgatherb float offset rounds", "tgatherb.cu",
     "    return (u64)(i64)v & 0xFFFFFFFFull;",
     "    return (u64)(i64)(v + (v < 0 ? -0.5 : 0.5)) & 0xFFFFFFFFull;"),
    # ... and float8_e4m3 (no infinities) taken as IEEE: every code of the top exponent special
    ("tgatherb e4m3 specials", "tgatherb.cu",
     "*special = ieee ? e == emax : (e == emax && m == (1u << mb) - 1u);",
     "*special = e == emax;"),
    # the element-wise kernel: TSUB's operands swapped
    ("elementwise sub operands", "elementwise_ops.cuh",
     "    case OP_SUB: r = x - y; break;",
     "    case OP_SUB: r = y - x; break;"),
    # the element-wise kernel: the simulator's float TNEG sets the sign instead of flipping it
    ("elementwise neg sign", "elementwise_ops.cuh",
     "            if (P[EW_NEG] == SG_C) return xa ^ sign;",
     "            if (P[EW_NEG] == SG_C) return xa | sign;"),
    # MSCATTER float32 atomic Max: a tie replaces (-0.0 overwrites +0.0)
    ("atomic float max tie", "mscatter.cu",
     "        if (op == AT_MAX) return a < b ? v : old;\n        return b < a ? v : old;\n    }\n    case DT_F16:",
     "        if (op == AT_MAX) return a <= b ? v : old;\n        return b < a ? v : old;\n    }\n    case DT_F16:"),
    # ... and Min lets a NaN source in
    ("atomic float min nan", "mscatter.cu",
     "        return b < a ? v : old;\n    }\n    case DT_F16:",
     "        return !(a <= b) ? v : old;\n    }\n    case DT_F16:"),
    # the compare kernel: GE written as "not less" (a NaN compares true)
    ("compare ge nan", "compare.cu",
     "        case CMP_GE: return x >= y;\n        default: return x <= y;\n        }\n    }\n    if (k == CK_U64)",
     "        case CMP_GE: return !(x < y);\n        default: return x <= y;\n        }\n    }\n    if (k == CK_U64)"),
    # ... and A2/A3's NE: the vnot over the packed bytes only, not the valid rows' whole width
    ("compare ne not width", "compare.cu",
     "for (i64 b = 0; b < VR * P[CP_DSTC] * DS / 2 * 2; ++b) D[b] = (u8)~D[b];",
     "for (i64 b = 0; b < VR * nbytes; ++b) D[b] = (u8)~D[b];"),
    # A2/A3's TMOV: a row's burst not rounded up to whole 32-byte blocks
    ("tmov burst blocks", "tmov.cu",
     "    p.rows = VR;\n    p.len = (VC * T + 31) / 32 * 32;",
     "    p.rows = VR;\n    p.len = VC * T;"),
    # the simulator's float8_e5m2 TGATHERB offsets: the exponent read one bit off
    ("tgatherb e5m2 exponent", "tgatherb.cu",
     "        v = tg_minifloat(p[0] >> 7, (p[0] >> 2) & 31u, p[0] & 3u, 5, 2, true, &special);",
     "        v = tg_minifloat(p[0] >> 7, (p[0] >> 3) & 31u, p[0] & 3u, 5, 2, true, &special);"),
    # TGATHER's mask form misses a source read of the bytes it writes (the kernel then runs in place)
    ("tgather mask alias", "tgather.cu",
     "                        rec[3] = 0;                            // a read of written bytes: NumPy",
     "                        ;                                      // a read of written bytes: NumPy"),
    # TCVT integer -> integer with saturation ON: not clamped to the destination's range
    ("cvt int sat", "cvt.cu",
     "    if (sat) return (u64)((double)xi < dlo ? (i64)dlo : (double)xi > dhi ? (i64)dhi : xi);",
     "    if (sat) return (u64)xi;"),
    # the element-wise kernel's per-(operation, kind) loop: the last element of a many-row tile unwritten
    ("elementwise rows last element", "elementwise.cu",
     "            const u64 v = ew_apply_opk(OP, KD, P, a, b);\n            PTO_MEMCPY(d + c * T, &v, T);",
     "            const u64 v = ew_apply_opk(OP, KD, P, a, b);\n"
     "            if (!(r == VR - 1 && c == VC - 1 && VC > 3)) PTO_MEMCPY(d + c * T, &v, T);"),
    # ... its span check: a source that shares dst's bytes runs in the kernel (NumPy reads all first)
    ("elementwise spans overlap", "elementwise.cu",
     "        if (!same && base < hi && lo < end) return false;",
     "        (void)same;"),
    # the NPUs' TCMP mask rows per (kind, mode): one lane's bit lost
    ("compare npu rows lane", "compare.cu",
     "            if (cp_compare(M, K, x, y, false)) row[c / 8] |= (u8)(1u << (c % 8));",
     "            if (cp_compare(M, K, x, y, false) && c != 9) row[c / 8] |= (u8)(1u << (c % 8));"),
    # TSEL's pass 0 at a glance: the mask walk's span not checked against dst's bytes
    ("compare select mask span", "compare.cu",
     "    if (op != CP_SELECT) return true;",
     "    return true;"),
    # TCMP on A5's uint64: LT as LE
    ("compare u64 lt", "compare.cu",
     "        case CMP_LT: return xb < yb;",
     "        case CMP_LT: return xb <= yb;"),
    # A5's TMOV ND -> NZ: the fractal column's row count from dst's valid rows, not rounded up to 16
    ("tmov nz rows", "tmov.cu",
     "const i64 r = k / P[MP_DVC], c = k % P[MP_DVC], V = (P[MP_DVR] + 15) / 16 * 16 + P[MP_ROW_PLUS_ONE];",
     "const i64 r = k / P[MP_DVC], c = k % P[MP_DVC], V = P[MP_DVR] + P[MP_ROW_PLUS_ONE];"),
    # ... ND -> ZN: source rows Cols apart, not VC
    ("tmov zn source rows", "tmov.cu",
     "*sa = P[MP_S] + ((kf * C0 + i) * P[MP_DVC] + nf * 16 + j) * T;",
     "*sa = P[MP_S] + ((kf * C0 + i) * P[MP_SC] + nf * 16 + j) * T;"),
    # TSORT32: NaN sorted first instead of last
    ("sort32 nan first", "sort.cu",
     "                        if (nx != ny) before = !nx;",
     "                        if (nx != ny) before = nx;"),
    # ... or the simulator's ties by index value not stable for equal indices
    ("sort32 equal index ties", "sort.cu",
     "else before = P[SO_TIES] == TIES_IDX ? ib[x] < ib[y] : x < y;",
     "else before = P[SO_TIES] == TIES_IDX ? ib[x] <= ib[y] : x < y;"),
    # the A5 MGATHER launch's per-thread code (what a GPU runs) leaves each warp's last lane out
    ("mgather per-thread last lane", "mgather_impl.cuh",
     "    if (tx >= 32u || ty >= warps) return;              // block sized for a wider instance",
     "    if (tx >= 31u || ty >= warps) return;              // block sized for a wider instance"),
    # ... or runs a 1-byte Row gather's Wrap as Clamp, a 2-byte Elem gather's Zero as Clamp (the
    # per-thread template arms alone; the lock-step warps keep theirs)
    ("mgather per-thread 1-byte row wrap", "mgather_impl.cuh",
     "    if (row_mode) a5_row_warp<1, TS, OOB>(L, m, rec, act, x, ty, tx);",
     "    if (row_mode) a5_row_warp<1, TS, (TS == 1 && OOB == OOB_WRAP) ? OOB_CLAMP : OOB>(L, m, rec, act, x, ty, tx);"),
    ("mgather per-thread 2-byte elem zero", "mgather_impl.cuh",
     "    else a5_elem_warp<1, TS, OOB>(L, m, rec, act, x, ty, warps, tx);",
     "    else a5_elem_warp<1, TS, (TS == 2 && OOB == OOB_ZERO) ? OOB_CLAMP : OOB>(L, m, rec, act, x, ty, warps, tx);"),
    # ... and MSCATTER's
    ("mscatter per-thread last lane", "mscatter.cu",
     "if (threadIdx.x >= 32u || threadIdx.y >= warps) return;",
     "if (threadIdx.x >= 31u || threadIdx.y >= warps) return;"),
    # A5's TSCATTER: the last vscatter of a row past its columns when the row is not a whole
    # number of vscatters (80 = 64 + 16 lanes)
    ("tscatter last chunk length", "tgather.cu",
     "                    const i64 n = C - j0 < B ? C - j0 : B;",
     "                    const i64 n = C + j0 < B ? C - j0 : B;"),
    # the DMA burst engine: a burst whose fill ends exactly at its arena's end faulted (the
    # kernel then leaves the call to NumPy: its run counts show it), or the fill's rounding of a
    # 32k+1-byte burst one block short
    ("burst end at arena end", "burst.cuh",
     "    if (dst < 0 || burst_end(f, dst, len) > D.size)",
     "    if (dst < 0 || burst_end(f, dst, len) >= D.size)"),
    ("burst fill rounding", "burst.cuh",
     "    return f.fill ? (body + 31) / 32 * 32 : body;",
     "    return f.fill ? (body + 30) / 32 * 32 : body;"),
    # the simulator's TGATHERB: an E4M3 offset's NaN (all ones below the sign) read as a number
    ("tgatherb e4m3 nan offset", "tgatherb.cu",
     "    *special = ieee ? e == emax : (e == emax && m == (1u << mb) - 1u);",
     "    *special = ieee ? e == emax : (e == emax && m == (1u << mb) + 1u);"),
    # MSCATTER Row: the simulator's destination rule (s*Stride[3] + c*Stride[4]) taken for the
    # NPUs' and theirs for it (equal over a dense table; a table of strided columns tells)
    ("mscatter row dst strides", "mscatter.cu",
     "    else if (P[MS_ROWDST] == RD_STRIDES) off = slot * (u64)P[MS_ST3] + (u64)c * (u64)P[MS_ST4];",
     "    else if (P[MS_ROWDST] != RD_STRIDES) off = slot * (u64)P[MS_ST3] + (u64)c * (u64)P[MS_ST4];"),
    # MSCATTER's vector forms over whole-block rows: the scalar targets' Elem loop remaps Clamp
    # as Wrap; A5's block-at-once Elem form does
    ("mscatter seq fast clamp", "mscatter.cu",
     "    case SOOB_CLAMP: SQ_FAST_T(SOOB_CLAMP)",
     "    case SOOB_CLAMP: SQ_FAST_T(SOOB_WRAP)"),
    ("mscatter a5 fast clamp", "mscatter.cu",
     "    case SOOB_CLAMP: MS_FAST_T(SOOB_CLAMP)",
     "    case SOOB_CLAMP: MS_FAST_T(SOOB_WRAP)"),
    # MGATHER's scalar fast loops: a 2-byte element's Wrap runs as Clamp
    ("mgather scalar fast 2-byte wrap", "mgather_impl.cuh",
     "#define SCALAR_FAST_CALL(TS, OOB) done = scalar_fast_at<TS, OOB>(L, m, row_mode, tail, rec)",
     "#define SCALAR_FAST_CALL(TS, OOB) done = scalar_fast_at<TS, (TS == 2 && OOB == OOB_WRAP) ? OOB_CLAMP : OOB>(L, m, row_mode, tail, rec)"),
    # MSCATTER's C reference: an unsigned index sign-extended by a 64-bit cast; float Min
    # keeping the larger; int32 Max/Min compared as unsigned
    ("mscatter ref unsigned index", "ref/mscatter_ref.cuh",
     "        return b32 ? f(oob, N(), B()) : f(oob, N(), N());",
     "        return b32 ? f(oob, N(), B()) : f(oob, B(), N());"),
    ("mscatter ref float min", "ref/mscatter_ref.cuh",
     "        return (op == AT_MAX ? a < b : b < a) ? v : old;",
     "        return (op == AT_MAX ? a < b : a < b) ? v : old;"),
    ("mscatter ref int32 sign", "ref/mscatter_ref.cuh",
     "    const bool sgn = dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64;",
     "    const bool sgn = dt == DT_I8 || dt == DT_I16 || dt == DT_I64;"),
    # ... or stores a bfloat16 source in its check pass too (an Add then adds twice)
    ("mscatter per-thread bf16 twice", "mscatter.cu",
     "        return a5_source_warp<W>(P, m, act, w, l0);",
     "        return a5_source_warp<W>(P, m, W == 1 && P[MS_DT] == DT_BF16 ? 1 : act, w, l0);"),
    # TGATHER's compare form on A2/A3 half scores: k converted by truncation, not to nearest even
    ("tgather cmp half k", "tgather.cu",
     "        if (rem > h || (rem == h && (q & 1))) ++q;",
     "        if (rem > h) ++q;"),
    # MSCATTER half Add: a sum that overflows half saturates instead of becoming infinity
    ("mscatter half add overflow", "mscatter.cu",
     "    if (ee >= 31) return s | 0x7C00u;                                    // overflow: inf",
     "    if (ee >= 31) return s | 0x7BFFu;                                    // overflow: inf"),
    # TMRGSORT: a tie between heads goes to the later list
    ("mrgsort later list on ties", "sort.cu",
     "        if (pick < 0 || v > pv) { pick = j; pv = v; }",
     "        if (pick < 0 || v >= pv) { pick = j; pv = v; }"),
    # ... or the NPUs' exhausted mode runs on after a list empties
    ("mrgsort tmp exhausted", "sort.cu",
     "mg_merge(U.p, addr, n, head, nl, k, P[MG_TMP], -1, P[MG_EXH] != 0);",
     "mg_merge(U.p, addr, n, head, nl, k, P[MG_TMP], -1, false);"),
    # ... or the executed counts of list 1 packed one bit off
    ("mrgsort counts packing", "sort.cu",
     "(u64)(head[1] & 0xFFFF) << 16",
     "(u64)(head[1] & 0xFFFF) << 17"),
    # TCVT CAST_ROUND: every tie rounded up (-0.5 to 0), not away from zero
    ("cvt round ties up", "cvt.cu",
     "    case L_A: return frac > 0.5 ? fl + 1.0 : frac < 0.5 ? fl : (x > 0 ? fl + 1.0 : fl);",
     "    case L_A: return frac > 0.5 ? fl + 1.0 : frac < 0.5 ? fl : fl + 1.0;"),
    # ... and to half or bfloat16, a tie rounded away from zero, not to even
    ("cvt narrow ties away", "cvt.cu",
     "    if (frac > 0.5 || (frac == 0.5 && cv_floor(r * 0.5) * 2.0 != r)) r += 1.0;",
     "    if (frac >= 0.5) r += 1.0;"),
    # A5's TMOV Vec -> Mat from an NZ source: the source's extra rows not skipped between bursts
    ("tmov nz burst gap", "tmov.cu",
     "gap = (P[MP_SR] - P[MP_DR]) & 0xFFFF;",
     "gap = 0;"),
    # TMAX/TMIN on uint64 (the simulator's std::max): the words compared as signed
    ("elementwise u64 max", "elementwise_ops.cuh",
     "        if (model == MM_STD) return mx ? (a < b) : (b < a);",
     "        if (model == MM_STD) return mx ? ((i64)a < (i64)b) : (b < a);"),
    # TCVT to int64 with saturation: clamped at the int32 maximum
    ("cvt int64 bounds", "cvt.cu",
     "*hi = 9223372036854775807.0; return;",
     "*hi = 2147483647.0; return;"),
    # the simulator's TMRGSORT on a signed type: keys read as unsigned
    ("mrgsort signed keys", "sort.cu",
     "    default: return (double)fb_int(b, mg_size(k), true);",
     "    default: return (double)fb_int(b, mg_size(k), false);"),
    # TCVT's round to nearest losing the sign of a negative value that rounds to zero (float32 ->
    # float32 on the NPUs: a random sweep's survivor; cvt_edges now converts to float32 too)
    ("cvt rint negative zero", "cvt.cu",
     "    if (r == 0.0) r = (cv_b(x) >> 63) ? -0.0 : 0.0;",
     "    if (r == 0.0) r = (cv_b(x) >> 63) ? +0.0 : 0.0;"),
]

_TABLE = "tests/test_scatter_table_verdict.py::"
VERDICT_MUTATIONS = [
    # a known campaign's kernel runs not compared with the record (a kernel that declines every
    # call, NumPy running them, would pass)
    ("kernel runs unchecked", "ptogpu/fuzz/suite.py",
     "    if runs == want:\n        return None",
     "    if True:\n        return None",
     "tests/test_fuzz_cli.py::test_a_kernel_that_leaves_its_calls_to_numpy_fails_the_known_campaign"),
    # a known kernel campaign's output digests not compared with the record (a change in a rule
    # that NumPy alone computes, and that classes cannot see, would pass)
    ("digests unchecked", "ptogpu/fuzz/suite.py",
     "    want = DIGESTS.get(_key(k.title))\n",
     "    want = None\n",
     "tests/test_fuzz_cli.py::test_a_rule_no_second_side_computes_fails_the_known_campaign_by_its_digest"),
    # ... or a side's digest blind to its instances' fault codes
    ("digest without faults", "ptogpu/fuzz/user_kernel.py",
     "^ codes.astype(np.uint64) << np.uint64(56)",
     "^ np.uint64(0)",
     "tests/test_fuzz_cli.py::test_digests_are_free_of_chunks_and_see_every_byte_and_fault"),
    # a kernel campaign's side checked against its reference as a cross-target pair is: a
    # faulting instance's bytes not compared (what a faulted instance wrote before goes unseen)
    ("reference check skips faulting bytes", "ptogpu/fuzz/user_kernel.py",
     "        bad = ~_same(r.outputs[pos], code[pos], x.outputs, x.codes)",
     "        bad = ~_agree(r.outputs[pos], code[pos], x.outputs, x.codes)",
     "tests/test_fuzz_kernel.py::test_a_faulting_instance_s_bytes_are_checked_against_its_reference"),
    # TGATHER's compare form on A5: the float score truncated instead of rounded to nearest even
    # (no campaign fuzzes the compare form: its test catches it)
    ("tgather compare truncates", "tgather.cu",
     "if (f > 0.5 || (f == 0.5 && (r & 1))) ++r;",
     "if (f > 0.99) ++r;",
     "tests/test_tgather.py::test_tgather_compare_form"),
    # the MSCATTER reference's Elem list numbers its threads from 0 again every 256 positions
    # (races between threads 256 apart in a one-round launch go unseen where the lists decide)
    ("list thread ids per chunk", "ref/mscatter_ref.cuh",
     "u64 pt = (u64)(p0 + c0) | (u64)(th0 + c0 * step) << 32;",
     "u64 pt = (u64)(p0 + c0) | (u64)th0 << 32;",
     _TABLE + "test_whole_tables_and_write_lists_give_the_same_records"),
    # ... or gives every position of a chunk the same thread (the (pos, thread) word stepped by
    # pos alone)
    ("list thread ids not stepped", "ref/mscatter_ref.cuh",
     "const u64 inc = 1ull | (u64)step << 32;",
     "const u64 inc = 1ull;",
     _TABLE + "test_whole_tables_and_write_lists_give_the_same_records"),
    # the whole-table verdict compares one table of a shared reference, not both
    ("table verdict second table", "mscatter_fuzz.cuh",
     "dv |= (V)(av[e] ^ v) | (TWO ? (V)(bv[e] ^ v) : (V)0);",
     "dv |= (V)(av[e] ^ v);",
     _TABLE + "test_clean_only_when_both_tables_are_the_rules_and_every_corrupt_byte_refuses"),
    # ... or, for an atomic tile, side A's table only
    ("atomic table verdict side B", "mscatter_fuzz.cuh",
     "const bool eq = !__builtin_memcmp(ga, scratch, tb) && !__builtin_memcmp(gb, scratch, tb);",
     "const bool eq = !__builtin_memcmp(ga, scratch, tb);",
     _TABLE + "test_clean_only_when_both_tables_are_the_rules_and_every_corrupt_byte_refuses"),
    # the whole-table verdict lets a write to the first element past GM through (as unwritten)
    ("table verdict end of GM", "mscatter_fuzz.cuh",
     "bad |= keep & (U)(e >= EU);",
     "bad |= keep & (U)(e > EU);",
     _TABLE + "test_a_write_past_gm_is_not_its_to_decide"),
    # the sides' rule words: those that always count are not compared (one reference for
    # sides of other capacities) ...
    ("rule words pass ignored", "mscatter_fuzz.cuh",
     "    if (d) return false;\n    if (A[MS_MODE] != MSM_ELEM",
     "    (void)d;\n    if (A[MS_MODE] != MSM_ELEM",
     _TABLE + "test_sides_of_other_capacities_are_each_judged_by_their_own_rule"),
    # ... or the cast width is never compared
    ("rule words cast width ignored", "mscatter_fuzz.cuh",
     "    return A[MS_BITS] == B[MS_BITS] || ms_bits_moot(A);",
     "    return true;",
     _TABLE + "test_sides_whose_rules_differ_are_each_checked_and_then_compared"),
]


PY_MUTATIONS = [
    # A2/A3 NZ tables: a table of several outer blocks addressed as if it had one (the column
    # block never split by Shape[1]: only nz_gather's 496-apart outer blocks show it)
    ("py nz outer blocks", "ptogpu/isa/mgather/semantics_nz.py",
     "        if S[0] == 1:\n            o0, o1 = np.zeros_like(bcc), bcc",
     "        if S[0] != 1:\n            o0, o1 = np.zeros_like(bcc), bcc"),
    # TLOAD: the NPUs' pad register Min and Max swapped (GetPadValue)
    ("py tload pad register min max swapped", "ptogpu/isa/datamove/semantics_pads.py",
     "    return _NPU_MIN_MAX[name][0 if pad is PadValue.Min else 1]",
     "    return _NPU_MIN_MAX[name][1 if pad is PadValue.Min else 0]"),
    # TLOAD: the simulator's whole-tile fill with Max for a Min tile too
    ("py tload cpu fill always max", "ptogpu/isa/datamove/semantics_pads.py",
     "    one = _limits(tile_cls.DType, pad is PadValue.Min, quirks)",
     "    one = _limits(tile_cls.DType, False, quirks)"),
    # TLOAD: the NPUs' burst filler one element short of the 32-byte boundary
    ("py tload npu filler one element short", "ptogpu/isa/datamove/api.py",
     "    end = -(-along * size // 32) * 32 // size\n    if VR == 0",
     "    end = -(-along * size // 32) * 32 // size - 1\n    if VR == 0"),
    # the burst engine's write span one 32-byte block short: a kept core of N restores less than
    # a chunk wrote, and the next chunk starts from the last one's bytes
    ("py burst span short", "ptogpu/backend/dma_kernels.py",
     "writes=((b.dst_space, int(dst.min()), int(end.max())),))",
     "writes=((b.dst_space, int(dst.min()), int(end.max()) - 32),))"),
    # a launch on a core of N with a few stopped instances: their written bytes not put back
    ("py launch around stopped bytes kept", "ptogpu/backend/kernels.py",
     "        whole[kept, lo:hi] = bytes_\n", "        pass\n"),
    # ... or, with most stopped, the live instances' results copied back to the first one only
    ("py launch around live rows lost", "ptogpu/backend/kernels.py",
     "                whole[live, lo:hi] = rows[:, lo:hi]\n",
     "                whole[live[:1], lo:hi] = rows[:1, lo:hi]\n"),
    # TSTORE: the NPUs' store bursts one element short of the valid row (the burst engine's run)
    ("py tstore bursts one element short", "ptogpu/isa/datamove/kernels.py",
     '    return dma.Bursts("TSTORE", tile.space, "gm", b.dst, b.src, b.length, elem=b.elem, fill=False)',
     '    return dma.Bursts("TSTORE", tile.space, "gm", b.dst, b.src, b.length - b.elem, elem=b.elem, fill=False)'),
    # TLOAD: half's Max pad the largest finite value instead of +inf
    ("py tload half max finite", "ptogpu/isa/datamove/semantics_pads.py",
     '"half": (0xFC00, 0x7C00)', '"half": (0xFC00, 0x7BFF)'),
    # TLOAD: the nd2nz tail stopping one element before the C0 block's end
    ("py tload nd2nz tail one short", "ptogpu/isa/datamove/api.py",
     "    end = -(-along // C0) * C0\n", "    end = -(-along // C0) * C0 - 1\n"),
    # the simulator's TMOV between types on the kernel backends: rounded to nearest, not toward zero
    ("py tmov conversion rounds", "ptogpu/isa/tmov/kernels.py",
     '        return cvt.run(core, dst, src, "Z", False)',
     '        return cvt.run(core, dst, src, "R", False)'),
    # A5's hifloat8 encode in NumPy: a tie goes to the smaller magnitude
    ("py hifloat8 ties to the lower", "ptogpu/isa/tcvt/semantics_minifloats.py",
     "        code = np.where(a - lo >= hi - a, order[pos], order[pos - 1])",
     "        code = np.where(a - lo > hi - a, order[pos], order[pos - 1])"),
    # A2/A3 NonSatTorch in NumPy: saturated to int16 instead of int32
    ("py nonsattorch saturates to int16", "ptogpu/isa/tcvt/semantics.py",
     "        r = np.where(np.isnan(r), 0, np.clip(r, -2.0 ** 31, 2.0 ** 31 - 1)).astype(np.int64)",
     "        r = np.where(np.isnan(r), 0, np.clip(r, -2.0 ** 15, 2.0 ** 15 - 1)).astype(np.int64)"),
    # TINTERLEAVE on A5, odd width: the hole at h % E == 0 forgotten (every column written)
    ("py tinterleave odd hole", "ptogpu/isa/tinterleave/semantics.py",
     "    return min(VC, 2 * (-(-h // E)) * E)",
     "    return VC"),
    # MSCATTER atomic Max: a tie replaces the table's value (-0.0 over +0.0)
    ("py mscatter max tie", "ptogpu/isa/mscatter/semantics.py",
     "            return np.where(old < v, v, old)",
     "            return np.where(old <= v, v, old)"),
    # the DMA burst engine: the payload one byte too long (the first pad byte read from GM)
    ("py dma payload one byte long", "ptogpu/semantics/dma.py",
     "    in_data = (pos >= b.left) & (pos < b.left + L)",
     "    in_data = (pos >= b.left) & (pos <= b.left + L)"),
    # Reg::Gather b16 <- b8: sign-extended
    ("py reg gather b8 sign extension", "ptogpu/reg/datacopy.py",
     "core.ub.data[addrs].astype(np.uint16)",
     "core.ub.data[addrs].view(np.int8).astype(np.int16).view(np.uint16)"),
    # A2/A3 Elem over an NZ table with gShape0 = 1: the column block taken as the outer index
    ("py nz elem outer block", "ptogpu/isa/mgather/semantics_nz.py",
     "            o0, o1 = np.zeros_like(bcc), bcc",
     "            o0, o1 = bcc, np.zeros_like(bcc)"),
    # the simulator's shift of a 1- or 2-byte type: the count masked to the type's width, not
    # to the promoted int's
    ("py c shift count width", "ptogpu/isa/elementwise/semantics_values.py",
     "        n = c & (pw - 1)",
     "        n = c & (w - 1)"),
    # the simulator's TGATHERB float offsets rounded to nearest instead of truncated
    ("py tgatherb float offsets round", "ptogpu/isa/tgatherb/semantics.py",
     "        f = np.trunc(raw.astype(np.float64))",
     "        f = np.rint(raw.astype(np.float64))"),
    # the A5 table: float results not flushed (the kernels read the same table: the
    # cross-target classes move)
    ("table a5 no denormal flush", "ptogpu/isa/elementwise/rules.py",
     'int_div="a5", int_divs="scalar_unit", neg="muls", abs="vabs", ftz=True,',
     'int_div="a5", int_divs="scalar_unit", neg="muls", abs="vabs", ftz=False,'),
    # the A5 MGATHER table: size_t index casts
    ("table a5 index cast", "ptogpu/targets.py",
     'index_bits=32, row_capacity="shape3", row_source="valid_cols", tile_offsets="plain",',
     'index_bits=64, row_capacity="shape3", row_source="valid_cols", tile_offsets="plain",'),
    # TCMP's mask bits packed most significant first
    ("py compare bit order", "ptogpu/isa/compare/semantics.py",
     '    return np.packbits(full, axis=1, bitorder="little")',
     '    return np.packbits(full, axis=1, bitorder="big")'),
    # GE as "greater" (a tie compares false)
    ("py compare ge", "ptogpu/isa/compare/semantics.py",
     "CmpMode.GT: np.greater, CmpMode.GE: np.greater_equal}",
     "CmpMode.GT: np.greater, CmpMode.GE: np.greater}"),
    # ... and in the NumPy semantics
    ("py tmov burst blocks", "ptogpu/isa/tmov/semantics.py",
     "    n = -(-VC * T // 32) * 32\n    r, b = grid(VR, n)",
     "    n = VC * T\n    r, b = grid(VR, n)"),
    # A5's TMOV ND -> NZ fractal columns of dst's valid rows, not rounded up to 16, in the NumPy semantics
    ("py tmov nz rows", "ptogpu/isa/tmov/semantics.py",
     "        V = -(-dst.valid_row // 16) * 16 + (dst.Compact == CompactMode.RowPlusOne)",
     "        V = dst.valid_row + (dst.Compact == CompactMode.RowPlusOne)"),
    # TSORT32's order ascending in the NumPy semantics
    ("py sort32 ascending", "ptogpu/isa/sort/semantics.py",
     "    neg = np.where(nan, 0.0, -vals)",
     "    neg = np.where(nan, 0.0, vals)"),
    # TMRGSORT's NPU merge takes the later list on a tie in the NumPy semantics
    ("py mrgsort later list on ties", "ptogpu/isa/sort/semantics.py",
     "if heads[k] < len(lst) and (pick is None or vals[k][heads[k]] > vals[pick][heads[pick]]):",
     "if heads[k] < len(lst) and (pick is None or vals[k][heads[k]] >= vals[pick][heads[pick]]):"),
    # ... and the simulator's merge stops one record short of dst's capacity
    ("py mrgsort cap short", "ptogpu/isa/sort/semantics.py",
     "        while out < cap:\n",
     "        while out < cap - 1:\n"),
    # TCVT CAST_ROUND's ties up in the NumPy semantics
    ("py cvt round ties up", "ptogpu/isa/tcvt/semantics.py",
     "np.where(frac > 0.5, fl + 1, np.where(frac < 0.5, fl, np.where(x > 0, fl + 1, fl)))",
     "np.where(frac > 0.5, fl + 1, np.where(frac < 0.5, fl, fl + 1))"),
    # ... and CAST_TRUNC to a float type as a floor
    ("py cvt trunc as floor", "ptogpu/isa/tcvt/semantics.py",
     "            pick = np.where(x > 0, down, upb)",
     "            pick = down"),
    # the simulator's MXType rounding its mantissa half up instead of truncating
    ("py fp8 mx rounds", "ptogpu/semantics/sim_types.py",
     "    out_m = (m >> np.uint64(52 - M)).astype(np.int64)",
     "    out_m = ((m + (np.uint64(1) << np.uint64(51 - M))) >> np.uint64(52 - M)).astype(np.int64)"),
    # A5's hifloat8 ties to the lower magnitude, not away from zero
    ("py hif8 ties", "ptogpu/isa/tcvt/semantics_minifloats.py",
     "        code = np.where(a - lo >= hi - a, order[pos], order[pos - 1])",
     "        code = np.where(a - lo > hi - a, order[pos], order[pos - 1])"),
    # the simulator's hifloat8 table decoded as the format says (its D < 2 codes: 3 mantissa bits)
    ("py hif8 cpu table", "ptogpu/semantics/sim_types.py",
     "    mb = 5 - eb\n",
     "    mb = 5 - eb if eb >= 2 else 3\n"),
    # A5's e4m3 overflowing to the largest finite value instead of NaN (the goldens' ml_dtypes)
    ("py fp8 e4m3 saturates", "ptogpu/isa/tcvt/semantics_minifloats.py",
     "            return np.asarray(x, np.float64).astype(OCP[T]).view(np.uint8)",
     "            return np.clip(np.asarray(x, np.float64), -448, 448).astype(OCP[T]).view(np.uint8)"),
    # (found by a random sweep of the semantics, each once a survivor: cmp_bytes catches them)
    # A5's TCMP on 1-byte types writing 33 bytes per 256 columns
    ("py compare b8 chunk bytes", "ptogpu/isa/compare/semantics.py",
     "{1: (256, 32), 2:", "{1: (256, 33), 2:"),
    # A5's TSEL on 1-byte types: the 16-byte step taken per column, not per 256 columns
    ("py select b8 steps", "ptogpu/isa/compare/semantics.py",
     "(16 * (c // 256) + (c % 256) // 8)", "(16 * (c * 256) + (c % 256) // 8)"),
    # A2/A3's pad byte written by every 1-byte op of an odd width, on every target
    ("py pad byte everywhere", "ptogpu/isa/elementwise/semantics.py",
     "if call not in R.pad_byte or dst.Element.itemsize != 1",
     "if call not in R.pad_byte and dst.Element.itemsize != 1"),
    # TNEG of uint64 the identity
    ("py neg u64", "ptogpu/isa/elementwise/semantics_values.py",
     "(np.uint64(0) - a.astype(np.uint64))", "(np.uint64(0) + a.astype(np.uint64))"),
    # A5's TGATHER compare form stepping rows by a floored width (the kernel once took its width
    # from this function, so both agreed; tgather.cu works it out itself now)
    ("py tgather cmp stride", "ptogpu/isa/tgather/semantics.py",
     "    padded = -(-VC // E) * E", "    padded = -(+VC // E) * E"),
    # A2/A3's TGATHERB head repeats reading offsets 9 apart instead of 8 (rows of two repeats)
    ("py tgatherb a2a3 repeats", "ptogpu/isa/tgatherb/semantics.py",
     "parts_o.append((i * ors + rr * 8 + jb).reshape(-1))", "parts_o.append((i * ors + rr * 9 + jb).reshape(-1))"),
    # the NPUs' TSORT32 leaving rows of 255 * k + 1 blocks unsorted instead of 255 * k
    ("py sort chunk bug count", "ptogpu/isa/sort/semantics.py",
     "nb >= 255 and nb % 255 == 0:", "nb >= 255 and nb % 255 == 1:"),
    # the simulator's TCMPS: a mask of one valid column left as zeros (the no-op meant for none)
    ("py compare tcmps one valid column", "ptogpu/isa/compare/semantics.py",
     "    dvc, dvr = dst.valid_col, dst.valid_row\n    if dvc == 0:\n",
     "    dvc, dvr = dst.valid_col, dst.valid_row\n    if dvc == 1:\n"),
    # A2/A3's pad byte (bitwise ops on 1-byte types of an odd width) written for no row
    ("py elementwise pad byte rows", "ptogpu/isa/elementwise/semantics.py",
     "    if call not in R.pad_byte or dst.Element.itemsize != 1 or VC % 2 == 0 or VR == 0:\n",
     "    if call not in R.pad_byte or dst.Element.itemsize != 1 or VC % 2 == 0 or VR != 0:\n"),
    # A5's TCVT table: its float4 conversions modelled as the simulator's (the tables' 4-bit model)
    ("py tcvt a5 four-bit model", "ptogpu/isa/tcvt/rules.py",
     '                    four_bit="fp4"),', '                    four_bit="sim"),'),
]
