"""The known suite (``ptogpu fuzz`` with no campaign options): campaigns that between them show
every cross-target divergence index tiles can trigger, explained by the rule that predicts it,
and campaigns that must agree -- chosen to cover the SIMT geometry (several rounds, more than
64 columns, partial warps, ``[R,1]`` tiles), the index edges (one index at the capacity edge or
the end of GM, non-power-of-two tables), both forms of ``Conflict::Last`` and the atomics.

The suite is a regression test: every campaign records the classes and tile counts it finds
(seeded: exact on every backend at these sizes), and ``ptogpu fuzz`` fails, naming the
campaign, when one changes or disappears. ``python -m ptogpu.fuzz.suite`` prints the counts
the current build finds, for updating :data:`EXPECT` after a deliberate change of a rule.
"""
from __future__ import annotations

import itertools
import re

from dataclasses import dataclass, field

from ..execution.config import FuzzConfig


@dataclass(frozen=True)
class Known:
    """One campaign of the suite. ``kernel``: it compares a kernel backend with the NumPy
    semantics, so it runs only when the suite's backend is one; ``shapes``: each tile draws
    its valid shape inside the configured one (a kernel backend runs it)."""
    title: str
    config: object                  # FuzzConfig (MSCATTER's: scatter.ScatterConfig(...))
    a: str
    b: str
    generator: str
    n: int
    shapes: bool = False
    kernel: bool = False
    expect: dict | None = field(default=None, compare=False, hash=False)   # None: not a known campaign
    threads: bool = False           # native launches run each thread's code (the GPU's per-thread bodies)
    recorded_n: int | None = None   # the recorded size, where ``n`` was set otherwise (-n)

    @property
    def needs_kernels(self) -> bool:
        return self.kernel or self.shapes


def campaigns(backend: str = "native") -> list[Known]:
    """The suite, in the order it runs (the quick UB-to-UB campaigns, then the broad geometry and
    edge campaigns, so that ``--exitfirst`` stops early), with each campaign's expected classes."""
    from .scatter import ScatterConfig
    S = ScatterConfig
    row = dict(mode="row", rows=4, cols=16)
    wide = dict(mode="row", rows=40, cols=200, table_size=200 * 60)       # 60 rows of 200
    big = dict(rows=48, cols=64, table_size=1000)                        # up to 3 rounds of 1024
    out = [
        # -- the SIMT geometry and the index edges: every side against its reference
        Known("A5 SIMT vs A2/A3, Elem Wrap into 1000 elements, shapes up to 48x64: must agree",
              FuzzConfig(**big), "a5.simt", "a2a3", "mixed", 3000, shapes=True),
        Known("A5 SIMT vs A2/A3, Elem Clamp, one index at the edge, shapes up to 48x64: must agree",
              FuzzConfig(**big, oob="clamp"), "a5.simt", "a2a3", "edge", 3000, shapes=True),
        Known("A5 SIMT vs A2/A3, Elem Undefined, one index at the end of GM, shapes up to 48x64: must agree",
              FuzzConfig(**big, oob="undefined"), "a5.simt", "a2a3", "edge", 3000, shapes=True),
        Known("A5 SIMT vs A2/A3, Row Clamp, 200 columns, edge rows, shapes up to 40 rows: must agree",
              FuzzConfig(**wide, oob="clamp"), "a5.simt", "a2a3", "edge", 2000, shapes=True),
        Known("A5 SIMT vs A2/A3, Row Undefined, 200 columns, one row at the end of GM: must agree",
              FuzzConfig(**wide, oob="undefined"), "a5.simt", "a2a3", "edge", 2000, shapes=True),
        Known("A5 SIMT vs A2/A3, Row Clamp 12x64 int8, edge rows: must agree",
              FuzzConfig(mode="row", rows=12, cols=64, table_size=3200, oob="clamp", dtype="int8"), "a5.simt",
              "a2a3", "edge", 1000),
        Known("A5 SIMT vs A2/A3, Row Clamp 12x32 half, edge rows: must agree",
              FuzzConfig(mode="row", rows=12, cols=32, table_size=1600, oob="clamp", dtype="half"), "a5.simt",
              "a2a3", "edge", 1000),
        Known("A5 SIMT vs A2/A3, Elem Wrap 8x24 into 500, dst prefilled: must agree",
              FuzzConfig(rows=8, cols=24, table_size=500, dst_fill=0xAB), "a5.simt", "a2a3", "mixed", 1000),
        Known("A5 SIMT vs A2/A3, Elem Zero, 16x16 int8 into 4096: must agree",
              FuzzConfig(oob="zero", dtype="int8"), "a5.simt", "a2a3", "mixed", 5000),
        Known("A5 SIMT vs A2/A3, Elem Clamp 5x40 (a last warp of 8 lanes), one index at the edge: must agree",
              FuzzConfig(rows=5, cols=40, oob="clamp"), "a5.simt", "a2a3", "edge", 2000),
        Known("A5 SIMT vs A2/A3, Elem Wrap 41x24 (31 warps, the last of 24 lanes): must agree",
              FuzzConfig(rows=41, cols=24), "a5.simt", "a2a3", "mixed", 1000),
        Known("CPU sim vs A5, Elem Clamp, one index at the edge, shapes up to 48x64: must agree",
              FuzzConfig(**big, oob="clamp", dtype="half"), "cpu", "a5", "edge", 2000, shapes=True),
        Known("CPU sim vs A2/A3, Row Zero, 200 columns, edge rows, shapes up to 40 rows: must agree",
              FuzzConfig(**wide, oob="zero"), "cpu", "a2a3", "edge", 1000, shapes=True),
        Known("TINTERLEAVE CPU sim vs A5, 8x64 int16, even VC: must agree",
              FuzzConfig(instr="tinterleave", rows=8, cols=64, dtype="int16"), "cpu", "a5", "uniform", 500),
        Known("MSCATTER A5 Last: reverse scan vs owner table, Elem dup into 256 slots: must agree",
              S(rows=16, cols=16, slots=256), "a5.last.reverse", "a5.last.owner", "dup", 2000),
        Known("MSCATTER A5 Last (reverse scan) vs CPU sim, Row 24x40 dup: must agree",
              S(mode="row", rows=24, cols=40, slots=64), "a5.last.reverse", "cpu", "dup", 1000),
        Known("MSCATTER A5 Max vs CPU sim, int32 Elem 40x40 dup (two rounds): races only",
              S(rows=40, cols=40, slots=64, atomic="max", dtype="int32"), "a5", "cpu", "dup", 500),
        Known("MSCATTER A5 Add vs CPU sim, int32 Elem 40x40 mixed, Skip: races only",
              S(rows=40, cols=40, slots=200, atomic="add", dtype="int32"), "a5", "cpu", "mixed", 500),
        Known("MSCATTER A5 Default vs CPU sim, Elem 16x32 (one round of 512 threads), cycle into 256 slots: races only",
              S(rows=16, cols=32, slots=256), "a5.default", "cpu", "cycle", 500),
        Known("MSCATTER A5 Default vs CPU sim, Elem 16x16 (one round of 256 threads), cycle into 128 slots: races only",
              S(rows=16, cols=16, slots=128), "a5.default", "cpu", "cycle", 500),
        # (the same two as atomics: a plain tile is checked by whole tables, an atomic one by its
        # write list, whose thread numbers these keep honest)
        Known("MSCATTER A5 Add vs CPU sim, int32 Elem 16x32 (one round of 512 threads), cycle into 256 slots: races only",
              S(rows=16, cols=32, slots=256, atomic="add", dtype="int32"), "a5", "cpu", "cycle", 500),
        Known("MSCATTER A5 Add vs CPU sim, int32 Elem 16x16 (one round of 256 threads), cycle into 128 slots: races only",
              S(rows=16, cols=16, slots=128, atomic="add", dtype="int32"), "a5", "cpu", "cycle", 500),
        Known("MSCATTER A5 Default vs CPU sim, Row Undefined 8x64, rows at the table's end: both fault",
              S(mode="row", oob="undefined", rows=8, cols=64, slots=16), "a5.default", "cpu", "boundary", 500),
        Known("MSCATTER A5 Default vs CPU sim, Elem Undefined 16x16, one index at the end of GM: races only",
              S(oob="undefined", rows=16, cols=16, slots=64), "a5.default", "cpu", "edge", 500),
        Known("MSCATTER A5 Add vs CPU sim, half Elem 40x40 (two rounds): atomic order",
              S(rows=40, cols=40, slots=64, atomic="add", dtype="half"), "a5", "cpu", "uniform", 200),
        # -- the divergences the target tables explain
        Known("CPU sim vs A5, Elem Wrap: index cast width", FuzzConfig(rows=4, cols=8, table_size=100),
              "cpu", "a5", "mixed", 2000),
        Known("A2/A3 vs A5, Row Wrap: capacity rule",
              FuzzConfig(**row, table_shape=(1, 1, 2, 8, 16), table_stride=(256, 256, 128, 16, 1)),
              "a2a3", "a5", "mixed", 2000),
        Known("A2/A3 vs A5, Row Clamp, padded table: row source rule",
              FuzzConfig(**row, oob="clamp", table_shape=(1, 1, 1, 8, 16), table_stride=(192, 192, 192, 24, 1)),
              "a2a3", "a5", "uniform", 2000),
        Known("A2/A3 vs A5, Row Zero, VC*4 % 32 != 0: A2/A3 DMA tail fill",
              FuzzConfig(mode="row", rows=4, cols=12, oob="zero", table_size=96), "a2a3", "a5", "mixed", 2000),
        Known("CPU sim vs A5, Row Undefined: fault vs value", FuzzConfig(**row, oob="undefined", table_size=128),
              "cpu", "a5", "mixed", 2000),
        Known("CPU sim vs A5, Elem Zero, Nz tiles: tile offset rule",
              FuzzConfig(rows=2, cols=16, table_size=100, oob="zero", layout="nz"), "cpu", "a5", "uniform", 2000),
        Known("CPU sim vs A5, Elem Zero, Zz tiles: tile offset rule",
              FuzzConfig(rows=2, cols=16, table_size=100, oob="zero", layout="zz"), "cpu", "a5", "uniform", 500),
        Known("CPU sim vs A5, GM->L1 Elem, L1 prefilled: the NPU rewrites the padding",
              FuzzConfig(space="l1", rows=4, cols=12, table_size=100, oob="zero", dst_fill=0xAB),
              "cpu", "a5.simt", "uniform", 500),
        Known("CPU sim vs A2/A3, GM->L1 Row Zero, L1 prefilled: the NPU pre-zeroes the tile",
              FuzzConfig(space="l1", mode="row", rows=4, cols=16, table_size=128, oob="zero", dst_fill=0xAB),
              "cpu", "a2a3", "uniform", 500),
        Known("A5 GM->L1 Elem: SIMT vs Scalar executor, must agree",
              FuzzConfig(space="l1", rows=4, cols=12, table_size=100, oob="zero"), "a5.simt", "a5.scalar", "mixed", 500),
        Known("A5 SIMT vs CPU sim, GM->L1 Elem Wrap: index cast width",
              FuzzConfig(space="l1", rows=4, cols=12, table_size=100), "a5.simt", "cpu", "mixed", 500),
        Known("TGATHERB A2/A3 vs A5, 4x72 float32: A2/A3 tail",
              FuzzConfig(instr="tgatherb", rows=4, cols=72, table_size=512), "a2a3", "a5", "uniform", 200),
        Known("TGATHERB CPU sim vs A5, 2x12 float32: partial block",
              FuzzConfig(instr="tgatherb", rows=2, cols=12, table_size=512), "cpu", "a5", "uniform", 200),
        Known("TINTERLEAVE CPU sim (NDEBUG build) vs A5, odd VC",
              FuzzConfig(instr="tinterleave", rows=2, cols=9, dtype="int16", quirks=(("cpu_asserts", False),)),
              "cpu", "a5", "uniform", 2000),
        Known("MSCATTER A5 Default vs CPU sim, Elem 64x32 (two rounds per thread): conflict order",
              S(rows=64, cols=32, slots=256), "a5.default", "cpu", "uniform", 200),
        Known("MSCATTER A5 Default vs CPU sim, Row 40x64: conflict order",
              S(mode="row", rows=40, cols=64, slots=16), "a5.default", "cpu", "dup", 300),
        Known("MSCATTER A5 Add vs CPU sim, float Elem 64x32: atomic order",
              S(rows=64, cols=32, slots=256, atomic="add"), "a5", "cpu", "uniform", 200),
        Known("MSCATTER CPU sim vs A5 Last, Elem Wrap into 7 slots: index cast width",
              S(rows=4, cols=8, slots=7, oob="wrap"), "cpu", "a5.last", "mixed", 2000),
        Known("MSCATTER CPU sim vs A5 Last, Elem Undefined: Last drops out-of-range writes",
              S(rows=4, cols=8, slots=64, oob="undefined"), "cpu", "a5.last", "mixed", 2000),
        Known("MSCATTER A2/A3 vs A5 Last, Row into 2 batches of 8 rows: capacity rule",
              S(mode="row", rows=4, cols=16, slots=8, batches=2, oob="skip"), "a2a3", "a5.last", "oob", 2000),
        Known("MSCATTER A5 Default vs A5 Last, Elem 16x16, perm: must agree",
              S(rows=16, cols=16, slots=512), "a5.default", "a5.last", "perm", 2000),
        Known("TGATHER CPU sim vs A2/A3, 4x32 float32 from 256: out-of-src0 index rule",
              FuzzConfig(instr="tgather", rows=4, cols=32, table_size=256, oob="undefined"), "cpu", "a2a3", "oob", 500),
        Known("TGATHER A2/A3 vs A5, 1x1 half, extreme indices: index-to-address rule",
              FuzzConfig(instr="tgather", rows=1, cols=1, table_size=256, oob="undefined", dtype="half"),
              "a2a3", "a5", "extreme", 500),
        Known("TGATHER CPU sim vs A5, 2x80 int64 from 160 (uint32 indices): A5's 64 columns",
              FuzzConfig(instr="tgather", rows=2, cols=80, table_size=160, oob="undefined", dtype="int64",
                         index_dtype="uint32"), "cpu", "a5", "uniform", 300),
        Known("TSCATTER CPU sim vs A2/A3, 4x32 int32 into 256, dst prefilled: dst clear",
              FuzzConfig(instr="tscatter", rows=4, cols=32, table_size=256, oob="undefined", dtype="int32",
                         dst_fill=0xAB),
              "cpu", "a2a3", "uniform", 300),
        Known("TSCATTER A2/A3 vs A5, 4x32 int32 into 64, dup: collision order",
              FuzzConfig(instr="tscatter", rows=4, cols=32, table_size=64, oob="undefined", dtype="int32"),
              "a2a3", "a5", "dup", 500),
        Known("TGATHER[P1010.col] CPU sim vs A5, 6x16 float32, dst prefilled: COL rows written",
              FuzzConfig(instr="tgather", mask="P1010.col", rows=6, cols=16, oob="undefined", dst_fill=0xAB),
              "cpu", "a5", "mixed", 300),
        Known("TGATHER[P0101] CPU sim vs A5, 3x15 int64: A5's 8-byte rows",
              FuzzConfig(instr="tgather", mask="P0101", rows=3, cols=15, oob="undefined", dtype="int64"),
              "cpu", "a5", "mixed", 300),
        Known("TSCATTER[P0101.col] A2/A3 vs A5, 4x32 int8: A2/A3's 2*VC-byte rows",
              FuzzConfig(instr="tscatter", mask="P0101.col", rows=4, cols=32, oob="undefined", dtype="int8"),
              "a2a3", "a5", "mixed", 300),
        Known("TSCATTER[P0001.col] CPU sim vs A2/A3, 17x1024 int16: the NPU's uint16 row offset wraps",
              FuzzConfig(instr="tscatter", mask="P0001.col", rows=17, cols=1024, oob="undefined", dtype="int16"),
              "cpu", "a2a3", "mixed", 100),
        Known("TSCATTER[P0100] CPU sim vs A2/A3, 4x5 int32, dst prefilled: clear and cursor",
              FuzzConfig(instr="tscatter", mask="P0100", rows=4, cols=5, oob="undefined", dtype="int32",
                         dst_fill=0xAB), "cpu", "a2a3", "mixed", 300),
        Known("TSCATTER CPU sim vs A2/A3, 4x32 int32 into 256, negative: index cast",
              FuzzConfig(instr="tscatter", rows=4, cols=32, table_size=256, oob="undefined", dtype="int32"),
              "cpu", "a2a3", "negative", 100),
    ]
    if backend != "numpy":             # the kernels against the NumPy semantics, batch path
        for mode in ("elem", "row"):
            cfg = FuzzConfig(mode=mode, rows=40, cols=40, table_size=1000, oob="zero" if mode == "elem" else "undefined")
            out.append(Known(f"A5 {mode.capitalize()}: SIMT kernel ({backend}, warp lanes) vs scalar NumPy "
                             f"semantics: must agree", cfg, f"a5.simt@{backend}", "a5.scalar@numpy", "mixed", 500,
                             kernel=True))
            out.append(Known(f"A2/A3 {mode.capitalize()}: scalar-loop kernel ({backend}) vs NumPy: must agree",
                             cfg, "a2a3@numpy", f"a2a3@{backend}", "mixed", 500, kernel=True))
        # the UB -> UB index forms: tgather.cu's kernels against the NumPy semantics, values
        # past the tile (inside UB: the kernel runs) and colliding
        for instr, gen, a2a3_index in (("tgather", "oob", "int32"), ("tscatter", "dup", "int16")):
            for t, dt, it in (("cpu", "int32", "int32"), ("a2a3", "half", a2a3_index), ("a5", "int8", "uint16"),
                              ("a5", "int64", "uint32"), ("a5", "float32", "int32")):     # (80 = 64 + 16 lanes)
                cfg = FuzzConfig(instr=instr, rows=3, cols=80, table_size=300, oob="undefined", dtype=dt,
                                 index_dtype=it, dst_fill=0x5A)
                out.append(Known(f"{instr.upper()} {t} {dt}/{it} 3x80, {gen}: kernel ({backend}) vs NumPy: must agree",
                                 cfg, f"{t}@numpy", f"{t}@{backend}", gen, 300, kernel=True))
        # the mask forms' tile_mask maps against the NumPy semantics
        for instr, mask, t, dt, shape in (("tgather", "P0101", "a5", "half", (5, 40)),
                                          ("tgather", "P0001.col", "a2a3", "float32", (12, 24)),
                                          ("tgather", "P0010.col", "cpu", "int16", (9, 32)),
                                          ("tscatter", "P1010", "cpu", "int32", (4, 20)),
                                          ("tscatter", "P0010.col", "a2a3", "int8", (3, 32)),
                                          ("tscatter", "P1000", "a5", "int64", (2, 70)),
                                          ("tgather", "P1000", "a5", "int64", (2, 70)),
                                          ("tgather", "P0100.col", "a5", "int32", (8, 16)),
                                          ("tscatter", "P0100.col", "cpu", "half", (4, 24)),
                                          ("tscatter", "P1111", "a5", "int16", (3, 32)),
                                          ("tscatter", "P0001", "a2a3", "float32", (4, 20)),
                                          ("tscatter", "P0001.col", "a2a3", "int16", (17, 1024))):
            cfg = FuzzConfig(instr=instr, mask=mask, rows=shape[0], cols=shape[1], oob="undefined", dtype=dt,
                             dst_fill=0x5A)
            out.append(Known(f"{instr.upper()}[{mask}] {t} {dt} {shape[0]}x{shape[1]}: kernel ({backend}) vs NumPy: "
                             "must agree", cfg, f"{t}@numpy", f"{t}@{backend}", "mixed", 300, kernel=True))
        # the DMA bursts each instance issues for the rows it reads (Zero skips the others):
        # the NumPy burst engine's batch rule against the kernels, into UB and into L1
        for space, cols in (("ub", 12), ("l1", 12)):
            cfg = FuzzConfig(space=space, mode="row", rows=6, cols=cols, table_size=96, oob="zero", dst_fill=0xAB)
            out.append(Known(f"A2/A3 Row Zero {'into UB' if space == 'ub' else 'GM->L1'}, DMA bursts per read row: "
                             f"kernel ({backend}) vs NumPy: must agree", cfg, "a2a3@numpy", f"a2a3@{backend}",
                             "mixed", 500, kernel=True))
        # the CPU sim's Row reads rows as runs of addresses (strides): rows that overlap, one
        # ending exactly one element past GM (edge), and table columns two apart
        for what, shape, stride, gen in (("overlapping rows, one ends one element past GM", (1, 1, 1, 100, 29),
                                          (128, 128, 128, 1, 1), "edge"),
                                         ("table columns 2 apart, rows past GM", (1, 1, 1, 330, 3),
                                          (990, 990, 990, 3, 2), "uniform")):
            cfg = FuzzConfig(mode="row", rows=16, cols=24, table_shape=shape, table_stride=stride, oob="undefined")
            out.append(Known(f"CPU sim Row Undefined, {what}: scalar-loop kernel ({backend}) vs NumPy: must agree",
                             cfg, "cpu@numpy", f"cpu@{backend}", gen, 500, kernel=True))
        # A5 Row reads row k at uint32(k*VC): with Shape[3] = 17 rows of 17 (stored 16 apart, so
        # GM holds 288 elements) the last row a remapped index reaches ends exactly one element
        # past GM -- where the lanes' shortcut (no check pass when no read can leave GM) must
        # not apply
        cfg = FuzzConfig(mode="row", rows=16, cols=17, table_shape=(1, 1, 1, 17, 17),
                         table_stride=(289, 289, 289, 16, 1), oob="wrap")
        out.append(Known(f"A5 Row Wrap, the capacity's last row ends one element past GM: SIMT kernel ({backend}, "
                         "warp lanes) vs NumPy: must agree", cfg, "a5@numpy", f"a5@{backend}", "mixed", 500,
                         kernel=True))
    # single element-wise calls on every bit pattern (the element-wise campaign engine on native,
    # the batch path elsewhere): the NaN and tie rules of max/min, a scalar form's shift count
    out.append(Known("TMAX float32 16x16, CPU sim vs A5: max/min NaN and tie rule, denormal flush",
                     FuzzConfig(instr="tmax", oob="undefined"), "cpu", "a5", "mixed", 3000))
    out.append(Known("TSHRS int16 8x16, CPU sim vs A2/A3: scalar shift count rule",
                     FuzzConfig(instr="tshrs", rows=8, dtype="int16", oob="undefined"), "cpu", "a2a3", "mixed", 3000))
    # TMOV Vec -> Mat into L1: the simulator's element copy vs A5's flat copy of whole blocks
    out.append(Known("TMOV Vec->Mat float32 20x24, CPU sim vs A5: TMOV engine",
                     FuzzConfig(instr="tmov", space="l1", rows=20, cols=24, oob="undefined", dst_fill=0xAB), "cpu",
                     "a5", "mixed", 300))
    # ... and from an NZ source 16 rows taller than dst: A5's bursts of ceil16(VR) blocks, a gap each
    out.append(Known("TMOV Vec->Mat from NZ half 20x40, CPU sim vs A5: TMOV engine",
                     FuzzConfig(instr="tmov", space="l1", rows=20, cols=40, oob="undefined", dtype="half",
                                layout="nz", dst_fill=0xAB), "cpu", "a5", "mixed", 200))
    if backend != "numpy":
        out.append(Known(f"TMOV Vec->Mat a5 half 20x40: kernel ({backend}) vs NumPy: must agree",
                         FuzzConfig(instr="tmov", space="l1", rows=20, cols=40, oob="undefined", dtype="half",
                                    dst_fill=0xAB), "a5@numpy", f"a5@{backend}", "mixed", 300, kernel=True))
        out.append(Known(f"TMOV Vec->Mat from NZ a5 float32 20x24: kernel ({backend}) vs NumPy: must agree",
                         FuzzConfig(instr="tmov", space="l1", rows=20, cols=24, oob="undefined", layout="nz",
                                    dst_fill=0xAB), "a5@numpy", f"a5@{backend}", "mixed", 200, kernel=True))
    # ColMajor (dn) index and destination tiles: the scalar loops' column-major walk
    for mode, oob, what in (("elem", "clamp", "must agree"), ("row", "wrap", "index cast width")):
        out.append(Known(f"CPU sim vs A5, {mode.capitalize()} {oob.capitalize()}, ColMajor (dn) tiles 8x16: {what}",
                         FuzzConfig(mode=mode, rows=8, cols=16, table_size=500, oob=oob, layout="dn"), "cpu", "a5",
                         "mixed", 500))
    # MSCATTER's executing engine and its C reference over 1- and 2-byte elements and half atomics
    for what, cfg, a, b, gen in (
            ("int8 Elem 16x16 dup, A5 default vs CPU sim", S(rows=16, cols=16, slots=64, dtype="int8"), "a5.default",
             "cpu", "dup"),
            ("int16 Elem 16x16 dup, A5 default vs A2/A3", S(rows=16, cols=16, slots=64, dtype="int16"), "a5.default",
             "a2a3", "dup"),
            ("int8 Row 8x24, A5 last vs CPU sim", S(mode="row", rows=8, cols=24, slots=64, dtype="int8"), "a5.last",
             "cpu", "mixed"),
            ("half Add Elem 16x16 dup, A5 vs CPU sim", S(rows=16, cols=16, slots=64, atomic="add", dtype="half"), "a5",
             "cpu", "dup")):
        out.append(Known(f"MSCATTER {what}: element sizes", cfg, a, b, gen, 300))
    # ... and over what the campaigns above leave out of its C reference: unsigned indices,
    # Clamp, Max and Min on signed, unsigned and float elements, 1- and 2-byte Wrap and Clamp
    # (56 slots: 2^32 and 2^64 differ modulo 56, so an unsigned index that a 64-bit cast
    # sign-extends lands elsewhere; modulo a power of two both are 0)
    for what, cfg, a, b, gen in (
            ("uint32 Max Elem Clamp 16x16 dup (uint32 indices), A5 vs CPU sim",
             S(rows=16, cols=16, slots=64, atomic="max", dtype="uint32", oob="clamp", index_dtype="uint32"), "a5",
             "cpu", "dup"),
            ("int32 Min Elem Wrap into 56 slots, 16x16 mixed (uint32 indices), A5 vs CPU sim",
             S(rows=16, cols=16, slots=56, atomic="min", dtype="int32", oob="wrap", index_dtype="uint32"), "a5",
             "cpu", "mixed"),
            ("float32 Min Elem Skip 16x16 dup, A5 vs CPU sim",
             S(rows=16, cols=16, slots=64, atomic="min", dtype="float32"), "a5", "cpu", "dup"),
            ("float32 Max Elem Clamp 16x16 mixed, A5 vs CPU sim",
             S(rows=16, cols=16, slots=64, atomic="max", dtype="float32", oob="clamp"), "a5", "cpu", "mixed"),
            ("int32 Elem Wrap into 56 slots, 16x16 mixed (uint32 indices), CPU sim vs A2/A3",
             S(rows=16, cols=16, slots=56, dtype="int32", oob="wrap", index_dtype="uint32"), "cpu", "a2a3", "mixed"),
            ("int8 Elem Clamp 16x16 mixed (uint32 indices), A2/A3 vs CPU sim",
             S(rows=16, cols=16, slots=64, dtype="int8", oob="clamp", index_dtype="uint32"), "a2a3", "cpu", "mixed"),
            ("uint16 Row Wrap 8x24 mixed, A5 last vs A2/A3",
             S(mode="row", rows=8, cols=24, slots=16, dtype="uint16", oob="wrap"), "a5.last", "a2a3", "mixed")):
        out.append(Known(f"MSCATTER {what}: reference rules", cfg, a, b, gen, 300))
    # an empty table (capacity 0, GM smaller than one element): the references' scalar image
    for mode, oob in (("row", "zero"), ("elem", "clamp")):
        out.append(Known(f"A2/A3 vs A5, {mode.capitalize()} {oob.capitalize()} from an empty table: must agree",
                         FuzzConfig(mode=mode, rows=4, cols=8, table_size=0, oob=oob), "a2a3", "a5", "mixed", 500))
    # ... and on edge values (the ``edges`` generator: signed zeros, NaN payloads, infinities,
    # denormals, extremes, ties, shift counts): the rules each instruction has for them
    for instr, dt, op, t1, t2, n, what in (
            ("tmin", "half", None, "cpu", "a2a3", 1000, "max/min NaN and tie rule"),
            ("tmuls", "half", None, "cpu", "a5", 1000, "denormal flush"),
            ("tcvt", "float32", None, "cpu", "a5", 1000, "rounding and saturation"),
            ("tcvt", "float32", "int64.rint", "a2a3", "a5", 500, "must agree"),
            ("tsort32", "float32", None, "cpu", "a5", 500, "tail block and tie order"),
            ("tcmp", "float32", None, "cpu", "a5", 1000, "must agree"),
            ("tdiv", "float32", None, "a2a3", "a5", 1000, "must agree"),
            ("tmax", "uint64", None, "cpu", "a5", 1000, "must agree"),
            ("tshl", "int32", None, "a2a3", "a5", 1000, "shift count rule")):
        from ..execution.instrs import REGISTRY
        kw = {**REGISTRY[instr].defaults, "instr": instr, "dtype": dt, **({"op": op} if op else {})}
        to = f"->{op}" if op else ""
        out.append(Known(f"{instr.upper()} {dt}{to} {kw['rows']}x{kw['cols']}, {t1} vs {t2}, edge values: {what}",
                         FuzzConfig(**kw), t1, t2, "edges", n))
    # TSORT32's 4-operand tail path on a row past 8160 bytes: A5 copies only the tail to tmp
    # (LargeTmpBufferImpl), A2/A3 (under 8160 elements) the whole row; tmp's bytes are output
    out.append(Known("TSORT32 with tmp float32 1x2085, A2/A3 vs A5: tail path",
                     FuzzConfig(instr="tsort32", op="tmp", rows=1, cols=2085, oob="undefined"), "a2a3", "a5",
                     "mixed", 60))
    # a row of 255 blocks (8160 columns) without tmp: the NPUs' last call's repeat is 0 (uint8),
    # nothing sorted; uniform values, so that ties do not explain the tiles where it shows
    out.append(Known("TSORT32 float32 1x8160, CPU sim vs A2/A3: a row of 255 blocks",
                     FuzzConfig(instr="tsort32", rows=1, cols=8160, oob="undefined"), "cpu", "a2a3", "uniform", 20))
    if backend != "numpy":
        out.append(Known(f"TSORT32 with tmp a5 float32 2x2085: kernel ({backend}) vs NumPy: must agree",
                         FuzzConfig(instr="tsort32", op="tmp", rows=2, cols=2085, oob="undefined", dst_fill=0xAB),
                         "a5@numpy", f"a5@{backend}", "mixed", 40, kernel=True))
    # the 8-bit floats: the simulator's truncating casts vs A5's vcvt, a few values a tile so that
    # which tiles diverge shows each model's rounding, overflow and NaN rules
    for dt, op in (("float32", "float8_e4m3.rint"), ("float32", "float8_e5m2.rint"), ("half", "hifloat8.round"),
                   ("hifloat8", "float32.none")):
        out.append(Known(f"TCVT {dt}->{op} 1x2, cpu vs a5, edge values: 8-bit floats",
                         FuzzConfig(instr="tcvt", dtype=dt, op=op, rows=1, cols=2, oob="undefined"), "cpu", "a5",
                         "edges", 2000))
    if backend != "numpy":                  # (the simulator sorts and merges signed integers, by value)
        for dt in ("int16", "int32"):
            out.append(Known(f"TSORT32 {dt} cpu 2x40, dup: kernel ({backend}) vs NumPy: must agree",
                             FuzzConfig(instr="tsort32", dtype=dt, oob="undefined"), "cpu@numpy", f"cpu@{backend}",
                             "dup", 200, kernel=True))
        out.append(Known(f"TMRGSORT int16 cpu: kernel ({backend}) vs NumPy: must agree",
                         FuzzConfig(**{**REGISTRY["tmrgsort"].defaults, "instr": "tmrgsort", "dtype": "int16"}),
                         "cpu@numpy", f"cpu@{backend}", "mixed", 300, kernel=True))
    # the instructions around the gathers, in the suite's kernels (ptogpu.fuzz.suite_kernels): each
    # group's divergences across two targets, explained by its rules; on a kernel backend, the
    # element-wise kernel against the NumPy semantics
    from ..execution.program import load
    for name, what in TILE_OP_KERNELS:
        prog = load(f"ptogpu.fuzz.suite_kernels:{name}")
        a, b = prog.pair.split(":")
        out.append(Known(f"Tile ops: {what}, {a} vs {b}", prog, a, b, "inputs", 300))
    # TLOAD's pads (docs/dma.md): every PadVal over a prefilled tile, Vec and Mat, a case an instance
    for a, b in (("cpu", "a5"), ("a2a3", "a5")):
        out.append(Known(f"TLOAD pads: each PadVal into Vec and Mat tiles over junk, {a} vs {b}",
                         load("ptogpu.fuzz.suite_kernels:tload_pads"), a, b, "inputs", 300))
    out.append(Known("MSCATTER atomics Max, Min (float32) and Add (int32) on edge values, cpu vs a5",
                     load("ptogpu.fuzz.suite_kernels:mscatter_edges"), "cpu", "a5", "inputs", 300))
    # index paths the geometry campaigns do not take, across targets: a Row table whose last
    # stride is not 1; TGATHERB with 1- and 2-byte elements; MSCATTER bfloat16 Add
    strided = FuzzConfig(mode="row", rows=8, cols=12, table_shape=(1, 1, 1, 40, 12),
                         table_stride=(960, 960, 960, 24, 2), oob="clamp")
    out.append(Known("A2/A3 vs A5, Row Clamp, table columns 2 apart: row source rule", strided, "a2a3", "a5",
                     "mixed", 300))
    out.append(Known("TGATHERB A2/A3 vs A5, 4x72 int8: A2/A3 tail",
                     FuzzConfig(instr="tgatherb", rows=4, cols=72, table_size=2048, dtype="int8"), "a2a3", "a5",
                     "uniform", 200))
    out.append(Known("TGATHERB A2/A3 vs A5, 2x136 float32: two head repeats a row, then the tail",
                     FuzzConfig(instr="tgatherb", rows=2, cols=136, table_size=2048, dtype="float32"), "a2a3", "a5",
                     "uniform", 200))
    out.append(Known("TGATHERB CPU sim vs A5, 3x40 half: partial block",
                     FuzzConfig(instr="tgatherb", rows=3, cols=40, table_size=1024, dtype="half"), "cpu", "a5",
                     "uniform", 200))
    out.append(Known("MSCATTER A5 Add vs CPU sim, bfloat16 Elem 16x16 dup: atomic order",
                     S(rows=16, cols=16, slots=64, atomic="add", dtype="bfloat16"), "a5", "cpu", "dup", 300))
    if backend != "numpy":
        for name, t in (("ew_float", "a5"), ("ew_int", "cpu"), ("ew_maxmin", "a2a3")):
            out.append(Known(f"Tile ops: {name} {t}: element-wise kernel ({backend}) vs NumPy: must agree",
                             load(f"ptogpu.fuzz.suite_kernels:{name}"), f"{t}@numpy", f"{t}@{backend}", "inputs", 300,
                             kernel=True))
        # the kernels of the paths above and of those only a kernel reaches (the register
        # gathers, the DMA burst engine's pads, NZ tables, float TGATHERB offsets, odd
        # interleave widths, atomics on edge values, TGATHER's compare form, A5's scalar
        # unit, TCMP/TCMPS/TSEL/TSELS, TSORT32, TMRGSORT and TCVT on edge values, TMOV's copies, TLOAD's
        # NPU bursts and fillers, every element-wise and compare form on every element type) against
        # the NumPy semantics
        for name, t, n in (("ew_edges", "cpu", 300), ("ew_edges", "a2a3", 300), ("ew_edges", "a5", 300),
                           ("reg_gather", "a5", 200), ("dma_pads", "a5", 300), ("dma_edges", "a5", 200),
                           ("interleave", "a5", 200),
                           ("nz_gather", "a2a3", 300), ("tgatherb_float_offsets", "cpu", 300),
                           ("mscatter_edges", "a5", 300), ("mscatter_edges", "cpu", 300),
                           ("mscatter_strided", "cpu", 200), ("mscatter_strided", "a2a3", 200),
                           ("mscatter_strided", "a5", 200),
                           ("tgather_cmp", "a5", 300), ("tgather_cmp", "a2a3", 300),
                           ("tgather_in_place", "a5", 200), ("tgather_in_place", "a2a3", 200),
                           ("tgather_in_place", "cpu", 200), ("tgather_scratch_end", "a2a3", 200),
                           ("tgatherb_misaligned", "a5", 200), ("tgatherb_ub_end", "a5", 200),
                           ("tgatherb_ub_end", "a2a3", 200), ("tgatherb_ub_end", "cpu", 200),
                           ("tgatherb_misaligned", "a2a3", 200),
                           ("cmp_edges", "cpu", 300), ("cmp_edges", "a2a3", 300), ("cmp_edges", "a5", 300),
                           ("cmp_bytes", "a5", 200), ("cmp_narrow", "cpu", 200), ("cmp_narrow", "a2a3", 200),
                           ("cmp_narrow", "a5", 200),
                           ("mov_shapes", "cpu", 300), ("mov_shapes", "a2a3", 300), ("mov_shapes", "a5", 300),
                           ("mov_widths", "cpu", 200), ("mov_widths", "a5", 200),
                           ("mov_relayouts", "a5", 200), ("overlaps", "a5", 200), ("overlaps", "cpu", 200),
                           ("sort_edges", "cpu", 300), ("sort_edges", "a2a3", 300), ("sort_edges", "a5", 300),
                           ("mrgsort_edges", "cpu", 200), ("mrgsort_edges", "a2a3", 200),
                           ("mrgsort_edges", "a5", 200),
                           ("cvt_edges", "cpu", 300), ("cvt_edges", "a2a3", 300), ("cvt_edges", "a5", 300),
                           ("cvt_minifloats", "cpu", 200), ("cvt_minifloats", "a2a3", 200),
                           ("cvt_minifloats", "a5", 200), ("tload_bursts", "a2a3", 200), ("tload_bursts", "a5", 200),
                           ("ew_types", "cpu", 200), ("ew_types", "a2a3", 200), ("ew_types", "a5", 200),
                           ("cmp_types", "cpu", 200), ("cmp_types", "a2a3", 200), ("cmp_types", "a5", 200),
                           ("gm2l1_edges", "a2a3", 200), ("gm2l1_edges", "a5", 200), ("stop_some", "cpu", 300),
                           ("stop_some", "a5", 300), ("fp4_moves", "a5", 200)):
            out.append(Known(f"Kernels: {name} {t}: kernel ({backend}) vs NumPy: must agree",
                             load(f"ptogpu.fuzz.suite_kernels:{name}"), f"{t}@numpy", f"{t}@{backend}", "inputs", n,
                             kernel=True))
        # MGATHER's kernels over every element size, index type and OOB mode each target takes
        # (the NPUs: 1-, 2- and 4-byte data, 32-bit indices; the simulator: any), Elem and Row:
        # the template arms of the launches, against the NumPy semantics (Undefined on indices
        # inside the table: an instance that faults leaves the call to NumPy)
        sweep = [(m, dt, oob, ("int32", "uint32")[j // 2 % 2], ("a5.simt", "a2a3")[(j + j // 4) % 2])
                 for j, (m, dt, oob) in enumerate(itertools.product(("elem", "row"), ("int8", "int16", "float32"),
                                                                     ("undefined", "clamp", "wrap", "zero")))]
        sweep += [(m, dt, ("undefined", "clamp", "wrap", "zero")[j % 4], ("int16", "uint16", "int64", "uint32", "int32")[j % 5],
                   "cpu") for j, (m, dt) in enumerate(itertools.product(("elem", "row"), ("int8", "int16", "float32", "int64")))]
        for mode, dt, oob, it, t in sweep:
            cfg = FuzzConfig(mode=mode, rows=6, cols=20, table_size=250, oob=oob, dtype=dt, index_dtype=it)
            out.append(Known(f"MGATHER {mode.capitalize()} {oob.capitalize()} {dt}/{it} 6x20, {t}: kernel ({backend}) vs "
                             "NumPy: must agree", cfg, f"{t.split('.')[0]}@numpy", f"{t}@{backend}",
                             "uniform" if oob == "undefined" else "mixed", 100, kernel=True))
        # MSCATTER's kernels over every element type and atomic each target takes (the simulator:
        # any; A2/A3: plain and Add; A5: Add on 16- and 32-bit floats and int32, Max/Min on the
        # 32-bit types), OOB modes and index types in turn; indices of every kind (mixed: out of
        # range too), colliding ones under Undefined (dup)
        oobs, its = ("skip", "clamp", "wrap", "undefined"), ("int32", "uint32")
        msw = [(dt, at, "cpu") for j, dt in enumerate(("int8", "int16", "half", "bfloat16", "int32", "float32", "int64"))
               for at in (("none", "add", "max", "min")[j % 4], ("none", "add", "max", "min")[(j + 2) % 4])]
        msw += [(dt, at, "a2a3") for dt in ("int8", "int16", "half", "bfloat16", "int32", "float32")
                for at in ("none", "add")]
        a5 = [(dt, at) for dt in ("int8", "int16", "half", "bfloat16", "int32", "float32")
              for at in ("none", "add", "max", "min")
              if at == "none" or (at == "add" and dt in ("half", "bfloat16", "int32", "float32"))
              or dt in ("int32", "float32")]
        msw += [(dt, at, "a5.default") for dt, at in a5] + [(dt, at, "a5.last") for dt, at in a5[1::2]]
        for j, (dt, at, t) in enumerate(msw):
            cfg = S(rows=6, cols=20, slots=96, atomic=at, dtype=dt, oob=oobs[j % 4], index_dtype=its[j // 4 % 2])
            out.append(Known(f"MSCATTER {at.capitalize()} {oobs[j % 4].capitalize()} {dt}/{its[j // 4 % 2]} 6x20, {t}: "
                             f"kernel ({backend}) vs NumPy: must agree", cfg, f"{t}@numpy", f"{t}@{backend}",
                             "dup" if oobs[j % 4] == "undefined" else "mixed", 40, kernel=True))
        # the A5 launches' per-thread code (what a GPU runs: each lane its own thread; the native
        # launch runs the threads one after another, instead of its lock-step warps)
        for what, cfg, a, gen in (
                ("MGATHER A5 Elem Wrap half 16x40", FuzzConfig(rows=16, cols=40, table_size=1000, oob="wrap",
                                                               dtype="half"), "a5", "mixed"),
                ("MGATHER A5 Elem Clamp int8 4x70", FuzzConfig(rows=4, cols=70, table_size=300, oob="clamp",
                                                               dtype="int8", index_dtype="uint32"), "a5", "mixed"),
                ("MGATHER A5 Elem Undefined float32 16x16, an index at GM's end",
                 FuzzConfig(rows=16, cols=16, table_size=256, oob="undefined"), "a5", "edge"),
                ("MGATHER A5 Row Undefined float32 8x24, a row at GM's end",
                 FuzzConfig(mode="row", rows=8, cols=24, table_size=96, oob="undefined"), "a5", "edge"),
                ("MGATHER A5 Row Clamp int8 8x24", FuzzConfig(mode="row", rows=8, cols=24, table_size=96,
                                                              oob="clamp", dtype="int8"), "a5", "mixed"),
                ("MGATHER A5 Row Zero float32 GM->L1 6x12", FuzzConfig(space="l1", mode="row", rows=6, cols=12,
                                                                       table_size=96, oob="zero"), "a5", "mixed"),
                ("MSCATTER A5 Add int32 16x16", S(rows=16, cols=16, slots=64, atomic="add", dtype="int32"), "a5",
                 "dup"),
                ("MSCATTER A5 Max float32 16x16", S(rows=16, cols=16, slots=64, atomic="max", dtype="float32"),
                 "a5", "dup"),
                ("MSCATTER A5 default 16x16", S(rows=16, cols=16, slots=64), "a5.default", "dup"),
                ("MSCATTER A5 last 16x16", S(rows=16, cols=16, slots=64), "a5.last", "dup"),
                ("MSCATTER A5 Row 8x24", S(mode="row", rows=8, cols=24, slots=16), "a5.default", "mixed")):
            verdict = "races only" if what.startswith("MSCATTER") else "must agree"      # (colliding writes)
            out.append(Known(f"{what}, per-thread launch: SIMT kernel ({backend}) vs NumPy: {verdict}", cfg,
                             f"{a}@numpy", f"{a}@{backend}", gen, 200, kernel=True, threads=True))
        # the MSCATTER and MGATHER sweeps again over tiles whose rows are exactly their valid
        # columns (4x32: a whole number of 32-byte blocks at every element size), the shape the
        # kernels' vector forms take (the scalar targets' fast loops, A5's block-at-once Elem
        # form); the 6x20 rows above are padded
        lin = [("cpu", "int8", "none"), ("cpu", "half", "add"), ("cpu", "float32", "max"), ("cpu", "int64", "none"),
               ("a2a3", "int8", "none"), ("a2a3", "half", "add"), ("a2a3", "int32", "none"),
               ("a2a3", "float32", "add"), ("a5.default", "int8", "none"), ("a5.default", "half", "none"),
               ("a5.default", "float32", "add"), ("a5.default", "int32", "max")]
        for j, (t, dt, at) in enumerate(lin):
            for oob in (("skip", "clamp", "wrap", "undefined") if j % 2 == 0 else ("clamp", "wrap")):
                cfg = S(rows=4, cols=32, slots=96, atomic=at, dtype=dt, oob=oob)
                out.append(Known(f"MSCATTER {at.capitalize()} {oob.capitalize()} {dt} 4x32 (rows of whole blocks), "
                                 f"{t}: kernel ({backend}) vs NumPy: must agree", cfg, f"{t}@numpy", f"{t}@{backend}",
                                 "dup" if oob == "undefined" else "mixed", 40, kernel=True))
        for j, (t, dt) in enumerate((("cpu", "int8"), ("cpu", "int64"), ("a2a3", "half"), ("a2a3", "float32"),
                                     ("a5.simt", "int8"), ("a5.simt", "half"))):
            for oob in ("undefined", "clamp", "wrap", "zero"):
                cfg = FuzzConfig(rows=4, cols=32, table_size=250, oob=oob, dtype=dt,
                                 index_dtype=("int32", "uint32")[j % 2])
                out.append(Known(f"MGATHER Elem {oob.capitalize()} {dt} 4x32 (rows of whole blocks), {t}: kernel "
                                 f"({backend}) vs NumPy: must agree", cfg, f"{t.split('.')[0]}@numpy",
                                 f"{t}@{backend}", "uniform" if oob == "undefined" else "mixed", 40, kernel=True))
        # the per-thread bodies over every element size and OOB mode A5 takes: MGATHER Elem and
        # Row, MSCATTER's plain form (both Conflict orders), Add and Max/Min (the lock-step sweeps
        # above run the same template arms as warps; a GPU runs these)
        for j, (mode, dt, oob) in enumerate(itertools.product(("elem", "row"), ("int8", "half", "float32"),
                                                             ("undefined", "clamp", "wrap", "zero"))):
            it = ("int32", "uint32")[j % 2]
            cfg = FuzzConfig(mode=mode, rows=6, cols=20, table_size=250, oob=oob, dtype=dt, index_dtype=it)
            out.append(Known(f"MGATHER A5 {mode.capitalize()} {oob.capitalize()} {dt}/{it} 6x20, per-thread launch: "
                             f"SIMT kernel ({backend}) vs NumPy: must agree", cfg, "a5@numpy", f"a5@{backend}",
                             "uniform" if oob == "undefined" else "mixed", 40, kernel=True, threads=True))
        mst = [("int8", "none", "a5.default"), ("int8", "none", "a5.last"), ("int16", "none", "a5.last"),
               ("half", "add", "a5.default"), ("bfloat16", "add", "a5.last"), ("float32", "none", "a5.last"),
               ("int32", "add", "a5.default"), ("float32", "max", "a5.default"), ("int32", "min", "a5.last"),
               ("uint32", "max", "a5.default"), ("float32", "min", "a5.default"), ("half", "none", "a5.default")]
        for j, (dt, at, t) in enumerate(mst):
            oob = ("skip", "clamp", "wrap", "undefined")[j % 4]
            cfg = S(rows=6, cols=20, slots=96, atomic=at, dtype=dt, oob=oob,
                    index_dtype=("int32", "uint32")[j // 4 % 2])
            out.append(Known(f"MSCATTER A5 {at.capitalize()} {oob.capitalize()} {dt} 6x20, {t}, per-thread launch: "
                             f"SIMT kernel ({backend}) vs NumPy: races only", cfg, f"{t}@numpy", f"{t}@{backend}",
                             "dup" if oob == "undefined" else "mixed", 40, kernel=True, threads=True))
        # MSCATTER's launches over the element sizes and OOB modes the campaigns above leave out
        for what, cfg, a, gen in (
                ("MSCATTER A5 last Row Wrap 8x24", S(mode="row", rows=8, cols=24, slots=16, oob="wrap"), "a5.last",
                 "mixed"),
                ("MSCATTER A5 default Elem Clamp int8 16x16", S(rows=16, cols=16, slots=64, oob="clamp", dtype="int8"),
                 "a5.default", "mixed"),
                ("MSCATTER A5 last Elem Wrap half 16x16", S(rows=16, cols=16, slots=48, oob="wrap", dtype="half"),
                 "a5.last", "mixed"),
                ("MSCATTER A2/A3 Elem Wrap int16 16x16", S(rows=16, cols=16, slots=48, oob="wrap", dtype="int16"),
                 "a2a3", "mixed"),
                ("MSCATTER CPU sim Row Clamp int8 8x24", S(mode="row", rows=8, cols=24, slots=16, oob="clamp",
                                                           dtype="int8"), "cpu", "mixed")):
            out.append(Known(f"{what}: kernel ({backend}) vs NumPy: races only", cfg, f"{a}@numpy", f"{a}@{backend}",
                             gen, 200, kernel=True))
        out.append(Known(f"A5 Elem Zero 1x1 (the scalar unit): kernel ({backend}) vs NumPy: must agree",
                         FuzzConfig(rows=1, cols=1, table_size=100, oob="zero"), "a5@numpy", f"a5@{backend}",
                         "mixed", 300, kernel=True))
        for t, oob in (("a5", "wrap"), ("a2a3", "clamp")):
            cfg = FuzzConfig(mode="row", rows=8, cols=12, table_shape=(1, 1, 1, 40, 12),
                             table_stride=(960, 960, 960, 24, 2), oob=oob)
            out.append(Known(f"{t} Row {oob.capitalize()}, table columns 2 apart: kernel ({backend}) vs NumPy: "
                             "must agree", cfg, f"{t}@numpy", f"{t}@{backend}", "mixed", 300, kernel=True))
        for t, dt, shape, gen in (("a5", "int8", (4, 72), "uniform"), ("a2a3", "half", (3, 40), "mixed"),
                                  ("cpu", "int8", (2, 64), "mixed")):
            cfg = FuzzConfig(instr="tgatherb", rows=shape[0], cols=shape[1], table_size=1024, dtype=dt)
            out.append(Known(f"TGATHERB {t} {dt} {shape[0]}x{shape[1]}: kernel ({backend}) vs NumPy: must agree",
                             cfg, f"{t}@numpy", f"{t}@{backend}", gen, 200, kernel=True))
    # TGATHER's and TSCATTER's campaigns first, and the suite kernels' against NumPy: each takes
    # a fraction of a second, so a broken UB-to-UB kernel stops --exitfirst before the long
    # geometry campaigns run
    ub_to_ub = lambda k: k.title.startswith(("TGATHER ", "TGATHER[", "TSCATTER", "Kernels: ")) or (   # noqa: E731
        k.title.startswith("Tile ops: ") and k.kernel)
    out = [k for k in out if ub_to_ub(k)] + [k for k in out if not ub_to_ub(k)]
    return [Known(k.title, k.config, k.a, k.b, k.generator, k.n, k.shapes, k.kernel,
                  dict(EXPECT.get(_key(k.title), {})), k.threads) for k in out]


TILE_OP_KERNELS = (
    ("ew_float", "float32 TADD TMAX TDIV, TMUL on every bit pattern"),
    ("ew_maxmin", "float32 TMAX, TMINS with NaN and signed zeros"),
    ("ew_int", "int32 arithmetic, bitwise, shifts by any count"),
    ("ew_subs", "int32 TSUBS by 2^24 + 1"),
    ("ew_pad", "int8 TAND TOR TNOT of 33 valid columns over a prefilled destination"),
    ("cmp", "int32 TCMP GT into a prefilled mask, 10 valid columns"),
    ("sel", "half TSEL by a loaded mask, 10 valid columns"),
    ("cvt", "float32 -> int32 TCVT RINT on every bit pattern"),
    ("cvt_fp4", "bfloat16 <-> float4_e2m1x2 and float4_e1m2x2 TCVT RINT, packed"),
    ("mov", "int16 TMOV of 5 valid columns"),
    ("sort", "TSORT32 of 40 values"),
)


def _key(title: str) -> str:
    """A campaign's key in EXPECT: its title without the backend it names."""
    for be in ("native", "cupy", "numpy"):
        title = title.replace(f" ({be}, warp lanes)", "").replace(f" ({be})", "")
    return title


_LINE = re.compile(r" at [\w./-]+\.py:\d+")


def without_lines(classes: dict[str, int]) -> dict[str, int]:
    """Classes without the source lines a kernel campaign's names hold (``call 3 TADD at
    suite_kernels.py:38: ...``): the call's number and instruction name it already, and a line
    moves whenever a kernel is added above it."""
    out: dict[str, int] = {}
    for name, count in classes.items():
        key = _LINE.sub("", name)
        out[key] = out.get(key, 0) + count
    return out


def regression(k: Known, rep, n: int, seed: int) -> str | None:
    """What changed against the campaign's recorded classes, or None. At the recorded size and
    seed the counts must match exactly; at another size or seed (``-n``, ``--seed``) every
    recorded class must still appear when the campaign is at least as large."""
    got = without_lines({c.name: c.count for c in rep.classes.values()})
    want = without_lines(k.expect)
    if rep.check_error:                 # a known campaign compares something
        return f"compared nothing: {rep.check_error}"
    if n == (k.recorded_n or k.n) and seed == 0:
        if got == want:
            return None
        gone = sorted(set(want) - set(got))
        new = sorted(set(got) - set(want))
        moved = sorted(c for c in set(got) & set(want) if got[c] != want[c])
        parts = ([f"disappeared: {', '.join(gone)}"] if gone else []) + \
                ([f"new: {', '.join(f'{c} ({got[c]:,})' for c in new)}"] if new else []) + \
                [f"{c}: {got[c]:,} tiles, recorded {want[c]:,}" for c in moved]
        return "; ".join(parts)
    if n >= (k.recorded_n or k.n):
        gone = sorted(set(want) - set(got))
        return f"disappeared: {', '.join(gone)}" if gone else None
    return None


def kernels_ran(run):
    """``run()``'s report and the instances each instruction kernel ran in it (their writes, clean),
    or None where part of the campaign ran in other processes (not counted here)."""
    from ..backend.kernels import RUNS
    from ..execution import executors
    before, sent = RUNS.copy(), executors.DISPATCHED
    rep = run()
    if executors.DISPATCHED != sent:
        return rep, None
    return rep, {k: v - before.get(k, 0) for k, v in sorted(RUNS.items()) if v > before.get(k, 0)}


def kernel_regression(k: Known, runs: dict | None, n: int, seed: int) -> str | None:
    """A known campaign's kernel runs against :data:`KERNELS` (on a kernel backend): at the
    recorded size and seed exactly the recorded instances per kernel, else every recorded kernel
    at least once -- a kernel that leaves its calls to NumPy (a check that declines, a fault that
    is not one) changes them although the bytes stay right."""
    want = KERNELS.get(_key(k.title))
    if not want or runs is None:
        return None
    if n != (k.recorded_n or k.n) or seed != 0:
        gone = [x for x in want if not runs.get(x)]
        return f"kernels that did not run: {', '.join(gone)}" if gone else None
    if runs == want:
        return None
    parts = [f"kernel {x} ran {runs.get(x, 0):,} instance(s), recorded {want.get(x, 0):,}"
             for x in sorted(set(want) | set(runs)) if runs.get(x, 0) != want.get(x, 0)]
    return "; ".join(parts)


def digest_regression(k: Known, rep, n: int, seed: int) -> str | None:
    """A known kernel campaign's sides' output digests (``user_kernel.digest``: every instance's
    output bytes and fault code) against :data:`DIGESTS`, at the recorded size and seed: a
    changed byte anywhere the campaign reads back, on a path no second side or reference computes
    independently (an instruction NumPy alone runs, a rule both a side and its hybrid take from
    one function) -- what classes cannot see."""
    want = DIGESTS.get(_key(k.title))
    got = getattr(rep, "digests", None)
    if not want or not got or n != (k.recorded_n or k.n) or seed != 0:
        return None
    parts = [f"side {x} ({getattr(rep, x)}) {got.get(x, 0):016x}, recorded {v}" for x, v in sorted(want.items())
             if f"{got.get(x, 0):016x}" != v]
    return ("output digests: " + "; ".join(parts)) if parts else None


# The classes each campaign finds at its size with seed 0 (python -m ptogpu.fuzz.suite).
EXPECT: dict[str, dict[str, int]] = {
    'TGATHER CPU sim vs A2/A3, 4x32 float32 from 256: out-of-src0 index rule':
        {'TGATHER out-of-src0 index rule + TGATHER index-to-address rule': 500},
    'TGATHER A2/A3 vs A5, 1x1 half, extreme indices: index-to-address rule':
        {'TGATHER index-to-address rule (fault vs value)': 141},
    "TGATHER CPU sim vs A5, 2x80 int64 from 160 (uint32 indices): A5's 64 columns":
        {'TGATHER 8-byte column cap': 300},
    'TSCATTER CPU sim vs A2/A3, 4x32 int32 into 256, dst prefilled: dst clear':
        {'TSCATTER dst clear': 300},
    'TSCATTER A2/A3 vs A5, 4x32 int32 into 64, dup: collision order':
        {'TSCATTER collision order': 500},
    'TGATHER[P1010.col] CPU sim vs A5, 6x16 float32, dst prefilled: COL rows written':
        {'TGATHER COL rows written': 300},
    "TGATHER[P0101] CPU sim vs A5, 3x15 int64: A5's 8-byte rows":
        {'TGATHER 8-byte mask rows': 300},
    "TSCATTER[P0101.col] A2/A3 vs A5, 4x32 int8: A2/A3's 2*VC-byte rows":
        {'TSCATTER COL int16 units': 300},
    "TSCATTER[P0001.col] CPU sim vs A2/A3, 17x1024 int16: the NPU's uint16 row offset wraps":
        {'TSCATTER mask src cursor + TSCATTER COL uint16 offset': 100},
    'TSCATTER[P0100] CPU sim vs A2/A3, 4x5 int32, dst prefilled: clear and cursor':
        {'TSCATTER dst clear + TSCATTER mask src cursor': 300},
    'TSCATTER CPU sim vs A2/A3, 4x32 int32 into 256, negative: index cast':
        {'TSCATTER index cast (fault vs value)': 100},
    'TGATHER cpu int32/int32 3x80, oob: kernel vs NumPy: must agree':
        {},
    'TGATHER a2a3 half/int32 3x80, oob: kernel vs NumPy: must agree':
        {},
    'TGATHER a5 int8/uint16 3x80, oob: kernel vs NumPy: must agree':
        {},
    'TGATHER a5 int64/uint32 3x80, oob: kernel vs NumPy: must agree':
        {},
    'TSCATTER cpu int32/int32 3x80, dup: kernel vs NumPy: must agree':
        {},
    'TSCATTER a2a3 half/int16 3x80, dup: kernel vs NumPy: must agree':
        {},
    'TSCATTER a5 int8/uint16 3x80, dup: kernel vs NumPy: must agree':
        {},
    'TSCATTER a5 int64/uint32 3x80, dup: kernel vs NumPy: must agree':
        {},
    'TGATHER[P0101] a5 half 5x40: kernel vs NumPy: must agree':
        {},
    'TGATHER[P0001.col] a2a3 float32 12x24: kernel vs NumPy: must agree':
        {},
    'TGATHER[P0010.col] cpu int16 9x32: kernel vs NumPy: must agree':
        {},
    'TSCATTER[P1010] cpu int32 4x20: kernel vs NumPy: must agree':
        {},
    'TSCATTER[P0010.col] a2a3 int8 3x32: kernel vs NumPy: must agree':
        {},
    'TSCATTER[P0001.col] a2a3 int16 17x1024: kernel vs NumPy: must agree':
        {},
    'TSCATTER[P1000] a5 int64 2x70: kernel vs NumPy: must agree':
        {},
    'Tile ops: ew_float a5: element-wise kernel vs NumPy: must agree':
        {},
    'Tile ops: ew_int cpu: element-wise kernel vs NumPy: must agree':
        {},
    'Tile ops: ew_maxmin a2a3: element-wise kernel vs NumPy: must agree':
        {},
    'Kernels: ew_edges cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: ew_edges a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: ew_edges a5: kernel vs NumPy: must agree':
        {},
    'Kernels: reg_gather a5: kernel vs NumPy: must agree':
        {},
    'Kernels: dma_pads a5: kernel vs NumPy: must agree':
        {},
    'Kernels: interleave a5: kernel vs NumPy: must agree':
        {},
    'Kernels: nz_gather a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: tgatherb_float_offsets cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: mscatter_edges a5: kernel vs NumPy: must agree':
        {},
    'Kernels: mscatter_edges cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: tgather_cmp a5: kernel vs NumPy: must agree':
        {},
    'Kernels: tgather_cmp a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: cmp_edges cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: cmp_edges a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: cmp_edges a5: kernel vs NumPy: must agree':
        {},
    'Kernels: cmp_bytes a5: kernel vs NumPy: must agree':
        {},
    'Kernels: mov_shapes cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: mov_shapes a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: mov_shapes a5: kernel vs NumPy: must agree':
        {},
    'Kernels: mov_relayouts a5: kernel vs NumPy: must agree':
        {},
    'Kernels: sort_edges cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: sort_edges a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: sort_edges a5: kernel vs NumPy: must agree':
        {},
    'Kernels: mrgsort_edges cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: mrgsort_edges a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: mrgsort_edges a5: kernel vs NumPy: must agree':
        {},
    'Kernels: cvt_edges cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: cvt_edges a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: cvt_edges a5: kernel vs NumPy: must agree':
        {},
    'Kernels: cvt_minifloats cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: cvt_minifloats a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: cvt_minifloats a5: kernel vs NumPy: must agree':
        {},
    'A5 SIMT vs A2/A3, Elem Wrap into 1000 elements, shapes up to 48x64: must agree':
        {},
    'A5 SIMT vs A2/A3, Elem Clamp, one index at the edge, shapes up to 48x64: must agree':
        {},
    'A5 SIMT vs A2/A3, Elem Undefined, one index at the end of GM, shapes up to 48x64: must agree':
        {},
    'A5 SIMT vs A2/A3, Row Clamp, 200 columns, edge rows, shapes up to 40 rows: must agree':
        {},
    'A5 SIMT vs A2/A3, Row Undefined, 200 columns, one row at the end of GM: must agree':
        {},
    'A5 SIMT vs A2/A3, Row Clamp 12x64 int8, edge rows: must agree':
        {},
    'A5 SIMT vs A2/A3, Row Clamp 12x32 half, edge rows: must agree':
        {},
    'A5 SIMT vs A2/A3, Elem Wrap 8x24 into 500, dst prefilled: must agree':
        {},
    'A5 SIMT vs A2/A3, Elem Zero, 16x16 int8 into 4096: must agree':
        {},
    'A5 SIMT vs A2/A3, Elem Clamp 5x40 (a last warp of 8 lanes), one index at the edge: must agree':
        {},
    'A5 SIMT vs A2/A3, Elem Wrap 41x24 (31 warps, the last of 24 lanes): must agree':
        {},
    'CPU sim vs A5, Elem Clamp, one index at the edge, shapes up to 48x64: must agree':
        {},
    'CPU sim vs A2/A3, Row Zero, 200 columns, edge rows, shapes up to 40 rows: must agree':
        {},
    'TINTERLEAVE CPU sim vs A5, 8x64 int16, even VC: must agree':
        {},
    'MSCATTER A5 Last: reverse scan vs owner table, Elem dup into 256 slots: must agree':
        {},
    'MSCATTER A5 Last (reverse scan) vs CPU sim, Row 24x40 dup: must agree':
        {},
    'MSCATTER A5 Max vs CPU sim, int32 Elem 40x40 dup (two rounds): races only':
        {'race': 500},
    'MSCATTER A5 Add vs CPU sim, int32 Elem 40x40 mixed, Skip: races only':
        {'race': 500},
    'MSCATTER A5 Default vs CPU sim, Elem 16x32 (one round of 512 threads), cycle into 256 slots: races only':
        {'race': 500},
    'MSCATTER A5 Default vs CPU sim, Elem 16x16 (one round of 256 threads), cycle into 128 slots: races only':
        {'race': 500},
    'MSCATTER A5 Add vs CPU sim, int32 Elem 16x32 (one round of 512 threads), cycle into 256 slots: races only':
        {'race': 500},
    'MSCATTER A5 Add vs CPU sim, int32 Elem 16x16 (one round of 256 threads), cycle into 128 slots: races only':
        {'race': 500},
    "MSCATTER A5 Default vs CPU sim, Row Undefined 8x64, rows at the table's end: both fault":
        {},
    'MSCATTER A5 Default vs CPU sim, Elem Undefined 16x16, one index at the end of GM: races only':
        {'race': 54},
    'MSCATTER A5 Add vs CPU sim, half Elem 40x40 (two rounds): atomic order':
        {'race + conflict resolution': 200},
    'CPU sim vs A5, Elem Wrap: index cast width':
        {'index cast width': 1994},
    'A2/A3 vs A5, Row Wrap: capacity rule':
        {'capacity rule': 1610},
    'A2/A3 vs A5, Row Clamp, padded table: row source rule':
        {'row source address rule': 1999},
    'A2/A3 vs A5, Row Zero, VC*4 % 32 != 0: A2/A3 DMA tail fill':
        {'A2/A3 Row DMA tail fill': 1962},
    'CPU sim vs A5, Row Undefined: fault vs value':
        {'row source address rule (fault vs value)': 51},
    'CPU sim vs A5, Elem Zero, Nz tiles: tile offset rule':
        {'tile offset rule': 2000},
    'CPU sim vs A5, GM->L1 Elem, L1 prefilled: the NPU rewrites the padding':
        {'GM->L1 routine': 500},
    'CPU sim vs A2/A3, GM->L1 Row Zero, L1 prefilled: the NPU pre-zeroes the tile':
        {'GM->L1 routine': 500},
    'A5 GM->L1 Elem: SIMT vs Scalar executor, must agree':
        {},
    'A5 SIMT vs CPU sim, GM->L1 Elem Wrap: index cast width':
        {'index cast width': 500},
    'TGATHERB A2/A3 vs A5, 4x72 float32: A2/A3 tail':
        {'TGATHERB engine': 200},
    'TGATHERB CPU sim vs A5, 2x12 float32: partial block':
        {'TGATHERB engine': 200},
    'TINTERLEAVE CPU sim (NDEBUG build) vs A5, odd VC':
        {'TINTERLEAVE odd VC': 2000},
    'MSCATTER A5 Default vs CPU sim, Elem 64x32 (two rounds per thread): conflict order':
        {'race + conflict resolution': 200},
    'MSCATTER A5 Default vs CPU sim, Row 40x64: conflict order':
        {'race + conflict resolution': 300},
    'MSCATTER A5 Add vs CPU sim, float Elem 64x32: atomic order':
        {'race + conflict resolution': 200},
    'MSCATTER CPU sim vs A5 Last, Elem Wrap into 7 slots: index cast width':
        {'index cast width': 1708},
    'MSCATTER CPU sim vs A5 Last, Elem Undefined: Last drops out-of-range writes':
        {'conflict resolution (fault vs value)': 2000},
    'MSCATTER A2/A3 vs A5 Last, Row into 2 batches of 8 rows: capacity rule':
        {'capacity rule': 2000},
    'MSCATTER A5 Default vs A5 Last, Elem 16x16, perm: must agree':
        {},
    'A5 Elem: SIMT kernel vs scalar NumPy semantics: must agree':
        {},
    'A2/A3 Elem: scalar-loop kernel vs NumPy: must agree':
        {},
    'A5 Row: SIMT kernel vs scalar NumPy semantics: must agree':
        {},
    'A2/A3 Row: scalar-loop kernel vs NumPy: must agree':
        {},
    'A2/A3 Row Zero into UB, DMA bursts per read row: kernel vs NumPy: must agree':
        {},
    'A2/A3 Row Zero GM->L1, DMA bursts per read row: kernel vs NumPy: must agree':
        {},
    'CPU sim Row Undefined, overlapping rows, one ends one element past GM: scalar-loop kernel vs NumPy: must agree':
        {},
    'CPU sim Row Undefined, table columns 2 apart, rows past GM: scalar-loop kernel vs NumPy: must agree':
        {},
    "A5 Row Wrap, the capacity's last row ends one element past GM: SIMT kernel vs NumPy: must agree":
        {},
    'TMAX float32 16x16, CPU sim vs A5: max/min NaN and tie rule, denormal flush':
        {'denormal flush + max/min NaN and tie rule': 1388, 'max/min NaN and tie rule': 1612},
    'TSHRS int16 8x16, CPU sim vs A2/A3: scalar shift count rule':
        {'scalar shift count rule': 1182},
    'TMIN half 4x32, cpu vs a2a3, edge values: max/min NaN and tie rule':
        {'denormal flush + max/min NaN and tie rule': 1000},
    'TMULS half 4x32, cpu vs a5, edge values: denormal flush':
        {'denormal flush': 802},
    'TCVT float32 4x32, cpu vs a5, edge values: rounding and saturation':
        {'TCVT rounding and saturation': 1000},
    'TSORT32 float32 2x40, cpu vs a5, edge values: tail block and tie order':
        {'TSORT32 tail block': 41, 'TSORT32 tail block + sort tie order': 459},
    'TCMP float32 4x32, cpu vs a5, edge values: must agree':
        {},
    'TDIV float32 4x32, a2a3 vs a5, edge values: must agree':
        {},
    'TSHL int32 4x32, a2a3 vs a5, edge values: shift count rule':
        {'shift count rule': 1000},
    'Tile ops: float32 TADD TMAX TDIV, TMUL on every bit pattern, cpu vs a5':
        {'call 3 TADD at suite_kernels.py:38: denormal flush': 58,
         'call 4 TMAX at suite_kernels.py:39: denormal flush': 94,
         'call 5 TDIV at suite_kernels.py:40: denormal flush': 146,
         'call 7 TMUL at suite_kernels.py:42: denormal flush': 2},
    'Tile ops: float32 TMAX, TMINS with NaN and signed zeros, cpu vs a5':
        {'call 3 TMAX at suite_kernels.py:51: denormal flush': 52,
         'call 3 TMAX at suite_kernels.py:51: denormal flush + max/min NaN and tie rule': 119,
         'call 3 TMAX at suite_kernels.py:51: max/min NaN and tie rule': 69,
         'call 4 TMINS at suite_kernels.py:52: scalar max/min NaN and tie rule': 27},
    'Tile ops: int32 arithmetic, bitwise, shifts by any count, cpu vs a5':
        {'call 9 TSHR at suite_kernels.py:67: shift count rule': 300},
    'Tile ops: int32 TSUBS by 2^24 + 1, cpu vs a2a3':
        {'call 2 TSUBS at suite_kernels.py:76: A2/A3 scalar-form code': 300},
    'Tile ops: int32 TCMP GT into a prefilled mask, 10 valid columns, cpu vs a5':
        {'call 4 TCMP at suite_kernels.py:90: TCMP mask packing': 300},
    'Tile ops: half TSEL by a loaded mask, 10 valid columns, cpu vs a5':
        {'call 4 TSEL at suite_kernels.py:106: mask walk': 300},
    'Tile ops: float32 -> int32 TCVT RINT on every bit pattern, cpu vs a5':
        {'call 2 TCVT at suite_kernels.py:114: TCVT rounding and saturation': 300},
    'Tile ops: int16 TMOV of 5 valid columns, cpu vs a2a3':
        {'call 2 TMOV at suite_kernels.py:128: TMOV engine': 300},
    'Tile ops: TSORT32 of 40 values, cpu vs a2a3':
        {'call 3 TSORT32 at suite_kernels.py:141: TSORT32 tail block': 300},
    'TLOAD pads: each PadVal into Vec and Mat tiles over junk, cpu vs a5':
        {'call 3 TLOAD at suite_kernels.py:999: TLOAD whole-tile fill': 184,
         'call 3 TLOAD at suite_kernels.py:999: TLOAD pad value + TLOAD whole-tile fill': 96,
         'call 3 TLOAD at suite_kernels.py:999: TLOAD whole-tile fill + TLOAD nd2nz tail': 20},
    'TLOAD pads: each PadVal into Vec and Mat tiles over junk, a2a3 vs a5':
        {'call 3 TLOAD at suite_kernels.py:999: TLOAD Mat bursts': 41},
    'MSCATTER atomics Max, Min (float32) and Add (int32) on edge values, cpu vs a5':
        {},
    'A2/A3 vs A5, Row Clamp, table columns 2 apart: row source rule':
        {'row source address rule + A2/A3 Row DMA tail fill': 300},
    'TGATHERB A2/A3 vs A5, 4x72 int8: A2/A3 tail':
        {'TGATHERB engine': 200},
    'TGATHERB A2/A3 vs A5, 2x136 float32: two head repeats a row, then the tail':
        {'TGATHERB engine': 200},
    'TGATHERB CPU sim vs A5, 3x40 half: partial block':
        {'TGATHERB engine': 200},
    'MSCATTER A5 Add vs CPU sim, bfloat16 Elem 16x16 dup: atomic order':
        {'race + target quirks': 300},
    'A5 Elem Zero 1x1 (the scalar unit): kernel vs NumPy: must agree':
        {},
    'a5 Row Wrap, table columns 2 apart: kernel vs NumPy: must agree':
        {},
    'a2a3 Row Clamp, table columns 2 apart: kernel vs NumPy: must agree':
        {},
    'TGATHERB a5 int8 4x72: kernel vs NumPy: must agree':
        {},
    'TGATHERB a2a3 half 3x40: kernel vs NumPy: must agree':
        {},
    'TGATHERB cpu int8 2x64: kernel vs NumPy: must agree':
        {},
    'TGATHER[P1000] a5 int64 2x70: kernel vs NumPy: must agree':
        {},
    'TGATHER[P0100.col] a5 int32 8x16: kernel vs NumPy: must agree':
        {},
    'TSCATTER[P0100.col] cpu half 4x24: kernel vs NumPy: must agree':
        {},
    'TSCATTER[P1111] a5 int16 3x32: kernel vs NumPy: must agree':
        {},
    'TSCATTER[P0001] a2a3 float32 4x20: kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Wrap half 16x40, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Clamp int8 4x70, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    "MGATHER A5 Elem Undefined float32 16x16, an index at GM's end, per-thread launch: SIMT kernel vs NumPy: must agree":
        {},
    'MGATHER A5 Row Clamp int8 8x24, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Zero float32 GM->L1 6x12, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MSCATTER A5 Add int32 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 200},
    'MSCATTER A5 Max float32 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 200},
    'MSCATTER A5 default 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 200},
    'MSCATTER A5 last 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {},
    'MSCATTER A5 Row 8x24, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 108},
    'A2/A3 vs A5, Row Zero from an empty table: must agree':
        {},
    'A2/A3 vs A5, Elem Clamp from an empty table: must agree':
        {},
    'MSCATTER A5 last Row Wrap 8x24: kernel vs NumPy: races only':
        {},
    'MSCATTER A5 default Elem Clamp int8 16x16: kernel vs NumPy: races only':
        {'race': 200},
    'MSCATTER A5 last Elem Wrap half 16x16: kernel vs NumPy: races only':
        {},
    'MSCATTER A2/A3 Elem Wrap int16 16x16: kernel vs NumPy: races only':
        {},
    'MSCATTER CPU sim Row Clamp int8 8x24: kernel vs NumPy: races only':
        {},
    'MSCATTER int8 Elem 16x16 dup, A5 default vs CPU sim: element sizes':
        {'race': 300},
    'MSCATTER int16 Elem 16x16 dup, A5 default vs A2/A3: element sizes':
        {'race': 300},
    'MSCATTER int8 Row 8x24, A5 last vs CPU sim: element sizes':
        {},
    'MSCATTER half Add Elem 16x16 dup, A5 vs CPU sim: element sizes':
        {'race': 300},
    'CPU sim vs A5, Elem Clamp, ColMajor (dn) tiles 8x16: must agree':
        {},
    'CPU sim vs A5, Row Wrap, ColMajor (dn) tiles 8x16: index cast width':
        {'index cast width': 408},
    'CPU sim vs A5, Elem Zero, Zz tiles: tile offset rule':
        {'tile offset rule': 500},
    'TMOV Vec->Mat float32 20x24, CPU sim vs A5: TMOV engine':
        {'TMOV engine': 300},
    'TMOV Vec->Mat a5 half 20x40: kernel vs NumPy: must agree':
        {},
    "MGATHER A5 Row Undefined float32 8x24, a row at GM's end, per-thread launch: SIMT kernel vs NumPy: must agree":
        {},
    'Kernels: tgather_in_place a5: kernel vs NumPy: must agree':
        {},
    'Kernels: tgather_in_place a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: tgather_in_place cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: tgatherb_misaligned a5: kernel vs NumPy: must agree':
        {},
    'Kernels: tgatherb_misaligned a2a3: kernel vs NumPy: must agree':
        {},
    'TMOV Vec->Mat from NZ half 20x40, CPU sim vs A5: TMOV engine':
        {'TMOV engine': 200},
    'TMOV Vec->Mat from NZ a5 float32 20x24: kernel vs NumPy: must agree':
        {},
    'TCVT float32->int64.rint 4x32, a2a3 vs a5, edge values: must agree':
        {},
    'TMAX uint64 4x32, cpu vs a5, edge values: must agree':
        {},
    'TMRGSORT int16 cpu: kernel vs NumPy: must agree':
        {},
    'TCVT float32->float8_e4m3.rint 1x2, cpu vs a5, edge values: 8-bit floats':
        {'TCVT 8- and 4-bit types': 1487},
    'TCVT float32->float8_e5m2.rint 1x2, cpu vs a5, edge values: 8-bit floats':
        {'TCVT 8- and 4-bit types': 1412},
    'TCVT half->hifloat8.round 1x2, cpu vs a5, edge values: 8-bit floats':
        {'TCVT 8- and 4-bit types': 917},
    'TCVT hifloat8->float32.none 1x2, cpu vs a5, edge values: 8-bit floats':
        {'TCVT 8- and 4-bit types': 380},
    'TSORT32 float32 1x8160, CPU sim vs A2/A3: a row of 255 blocks':
        {'sort tie order': 20},
    'TSORT32 with tmp float32 1x2085, A2/A3 vs A5: tail path':
        {'TSORT32 tail path': 60},
    'TSORT32 with tmp a5 float32 2x2085: kernel vs NumPy: must agree':
        {},
    'Kernels: overlaps a5: kernel vs NumPy: must agree':
        {},
    'Kernels: overlaps cpu: kernel vs NumPy: must agree':
        {},
    'TSORT32 int16 cpu 2x40, dup: kernel vs NumPy: must agree':
        {},
    'TSORT32 int32 cpu 2x40, dup: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined int8/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp int8/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap int8/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp int16/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap int16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero int16/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined float32/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap float32/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero float32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Undefined int8/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Clamp int8/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Wrap int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Zero int8/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Undefined int16/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Clamp int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Wrap int16/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Zero int16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Undefined float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Clamp float32/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Wrap float32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Zero float32/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined int8/int16 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp int16/uint16 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap float32/int64 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero int64/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Undefined int8/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Clamp int16/int16 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Wrap float32/uint16 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Row Zero int64/int64 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip int8/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Clamp int8/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Wrap int16/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Min Undefined int16/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Skip half/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Clamp half/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Min Wrap bfloat16/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Undefined bfloat16/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip int32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Clamp int32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Wrap float32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Min Undefined float32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Skip int64/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Clamp int64/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Undefined int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Clamp int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap half/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Undefined half/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip bfloat16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Clamp bfloat16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap int32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Undefined int32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Clamp float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap int8/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Undefined int16/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Skip half/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Clamp half/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Wrap bfloat16/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Undefined bfloat16/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Skip int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Clamp int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Max Wrap int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Min Undefined int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Skip float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Clamp float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Max Wrap float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Min Undefined float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Skip int16/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Clamp half/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Wrap bfloat16/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Undefined int32/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Min Skip int32/uint32 6x20, a5.last: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Clamp float32/uint32 6x20, a5.last: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Min Wrap float32/uint32 6x20, a5.last: kernel vs NumPy: must agree':
        {'race': 40},
    'MGATHER A5 Elem Undefined int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Clamp int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Wrap int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Zero int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Undefined half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Clamp half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Wrap half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Zero half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Undefined float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Clamp float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Wrap float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Elem Zero float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Undefined int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Clamp int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Wrap int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Zero int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Undefined half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Clamp half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Wrap half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Zero half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Undefined float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Clamp float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Wrap float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MGATHER A5 Row Zero float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {},
    'MSCATTER A5 None Skip int8 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 None Clamp int8 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {},
    'MSCATTER A5 None Wrap int16 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {},
    'MSCATTER A5 Add Undefined half 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 Add Skip bfloat16 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 None Clamp float32 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {},
    'MSCATTER A5 Add Wrap int32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 Max Undefined float32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 Min Skip int32 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 Max Clamp uint32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 Min Wrap float32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER A5 None Undefined half 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'race': 40},
    'MSCATTER None Skip int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Clamp int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Undefined int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Clamp half 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Wrap half 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Skip float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Clamp float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Wrap float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER Max Undefined float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Clamp int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Clamp int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Undefined int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Clamp half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Wrap half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Clamp int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Wrap int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Undefined int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Clamp float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER Add Wrap float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MSCATTER None Skip int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Clamp int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Wrap int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Undefined int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Clamp half 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER None Wrap half 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Skip float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Clamp float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Wrap float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Add Undefined float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Max Clamp int32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MSCATTER Max Wrap int32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'race': 40},
    'MGATHER Elem Undefined int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Undefined half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Clamp half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Wrap half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MGATHER Elem Zero half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {},
    'MSCATTER uint32 Max Elem Clamp 16x16 dup (uint32 indices), A5 vs CPU sim: reference rules':
        {'race': 300},
    'MSCATTER float32 Min Elem Skip 16x16 dup, A5 vs CPU sim: reference rules':
        {'race': 300},
    'MSCATTER float32 Max Elem Clamp 16x16 mixed, A5 vs CPU sim: reference rules':
        {'race': 300},
    'MSCATTER int8 Elem Clamp 16x16 mixed (uint32 indices), A2/A3 vs CPU sim: reference rules':
        {},
    'MSCATTER uint16 Row Wrap 8x24 mixed, A5 last vs A2/A3: reference rules':
        {},
    'MSCATTER int32 Min Elem Wrap into 56 slots, 16x16 mixed (uint32 indices), A5 vs CPU sim: reference rules':
        {'race': 300},
    'MSCATTER int32 Elem Wrap into 56 slots, 16x16 mixed (uint32 indices), CPU sim vs A2/A3: reference rules':
        {},
    'Kernels: mov_widths cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: mov_widths a5: kernel vs NumPy: must agree':
        {},
    'Kernels: mscatter_strided cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: mscatter_strided a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: mscatter_strided a5: kernel vs NumPy: must agree':
        {},
    'Kernels: cmp_narrow cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: cmp_narrow a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: cmp_narrow a5: kernel vs NumPy: must agree':
        {},
    'Kernels: dma_edges a5: kernel vs NumPy: must agree':
        {},
    'TGATHER a5 float32/int32 3x80, oob: kernel vs NumPy: must agree':
        {},
    'TSCATTER a5 float32/int32 3x80, dup: kernel vs NumPy: must agree':
        {},
    'Tile ops: int8 TAND TOR TNOT of 33 valid columns over a prefilled destination, a2a3 vs a5':
        {'call 4 TAND at suite_kernels.py:928: A2/A3 writes past the valid region': 300},
    'Tile ops: bfloat16 <-> float4_e2m1x2 and float4_e1m2x2 TCVT RINT, packed, cpu vs a5':
        {'call 2 TCVT at suite_kernels.py:911: TCVT 8- and 4-bit types': 300},
    'Kernels: tgather_scratch_end a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: gm2l1_edges a2a3: kernel vs NumPy: must agree':
        {},
    'Kernels: gm2l1_edges a5: kernel vs NumPy: must agree':
        {},
    'Kernels: stop_some cpu: kernel vs NumPy: must agree':
        {},
    'Kernels: stop_some a5: kernel vs NumPy: must agree':
        {},
    'Kernels: fp4_moves a5: kernel vs NumPy: must agree':
        {},
}


def _record() -> None:               # pragma: no cover (a maintainer's tool)
    import pprint
    from .spec import CampaignSpec
    got, ran, digests = {}, {}, {}
    for k in campaigns("native"):
        spec = CampaignSpec.of(k.config, k.a if "@" in k.a else k.a + "@native",
                               k.b if "@" in k.b else k.b + "@native", k.n, generator=k.generator,
                               shapes=k.shapes, native_threads="threads" if k.threads else None,
                               references="all")
        rep, runs = kernels_ran(lambda: spec.run(shrink=False))
        got[_key(k.title)] = {c.name: c.count for c in sorted(rep.classes.values(), key=lambda c: c.name)}
        if runs:
            ran[_key(k.title)] = runs
        if rep.digests:
            digests[_key(k.title)] = {x: f"{v:016x}" for x, v in sorted(rep.digests.items())}
    pprint.pprint(got, width=120, sort_dicts=False)
    print("# KERNELS")
    pprint.pprint(ran, width=120, sort_dicts=False)
    print("# DIGESTS")
    pprint.pprint(digests, width=120, sort_dicts=False)


# The instances each instruction kernel ran (its writes, clean) in each campaign on a kernel
# backend at its size with seed 0 (python -m ptogpu.fuzz.suite, after "# KERNELS").
KERNELS: dict[str, dict[str, int]] = {
    'TGATHER CPU sim vs A2/A3, 4x32 float32 from 256: out-of-src0 index rule':
        {'tgather_index': 1000},
    "TGATHER CPU sim vs A5, 2x80 int64 from 160 (uint32 indices): A5's 64 columns":
        {'tgather_index': 600},
    'TSCATTER CPU sim vs A2/A3, 4x32 int32 into 256, dst prefilled: dst clear':
        {'tscatter_index': 600},
    'TSCATTER A2/A3 vs A5, 4x32 int32 into 64, dup: collision order':
        {'tscatter_index': 1000},
    'TGATHER[P1010.col] CPU sim vs A5, 6x16 float32, dst prefilled: COL rows written':
        {'tile_mask': 600},
    "TGATHER[P0101] CPU sim vs A5, 3x15 int64: A5's 8-byte rows":
        {'tile_mask': 600},
    "TSCATTER[P0101.col] A2/A3 vs A5, 4x32 int8: A2/A3's 2*VC-byte rows":
        {'tile_mask': 600},
    "TSCATTER[P0001.col] CPU sim vs A2/A3, 17x1024 int16: the NPU's uint16 row offset wraps":
        {'tile_mask': 200},
    'TSCATTER[P0100] CPU sim vs A2/A3, 4x5 int32, dst prefilled: clear and cursor':
        {'tile_mask': 600},
    'TSCATTER CPU sim vs A2/A3, 4x32 int32 into 256, negative: index cast':
        {'tscatter_index': 100},
    'TGATHER cpu int32/int32 3x80, oob: kernel vs NumPy: must agree':
        {'tgather_index': 300},
    'TGATHER a2a3 half/int32 3x80, oob: kernel vs NumPy: must agree':
        {'tgather_index': 300},
    'TGATHER a5 int8/uint16 3x80, oob: kernel vs NumPy: must agree':
        {'tgather_index': 300},
    'TGATHER a5 int64/uint32 3x80, oob: kernel vs NumPy: must agree':
        {'tgather_index': 300},
    'TGATHER a5 float32/int32 3x80, oob: kernel vs NumPy: must agree':
        {'tgather_index': 300},
    'TSCATTER cpu int32/int32 3x80, dup: kernel vs NumPy: must agree':
        {'tscatter_index': 300},
    'TSCATTER a2a3 half/int16 3x80, dup: kernel vs NumPy: must agree':
        {'tscatter_index': 300},
    'TSCATTER a5 int8/uint16 3x80, dup: kernel vs NumPy: must agree':
        {'tscatter_index': 300},
    'TSCATTER a5 int64/uint32 3x80, dup: kernel vs NumPy: must agree':
        {'tscatter_index': 300},
    'TSCATTER a5 float32/int32 3x80, dup: kernel vs NumPy: must agree':
        {'tscatter_index': 300},
    'TGATHER[P0101] a5 half 5x40: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TGATHER[P0001.col] a2a3 float32 12x24: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TGATHER[P0010.col] cpu int16 9x32: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TSCATTER[P1010] cpu int32 4x20: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TSCATTER[P0010.col] a2a3 int8 3x32: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TSCATTER[P1000] a5 int64 2x70: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TGATHER[P1000] a5 int64 2x70: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TGATHER[P0100.col] a5 int32 8x16: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TSCATTER[P0100.col] cpu half 4x24: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TSCATTER[P1111] a5 int16 3x32: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TSCATTER[P0001] a2a3 float32 4x20: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'TSCATTER[P0001.col] a2a3 int16 17x1024: kernel vs NumPy: must agree':
        {'tile_mask': 300},
    'Tile ops: ew_float a5: element-wise kernel vs NumPy: must agree':
        {'dma_bursts': 1200, 'tile_elementwise': 1200},
    'Tile ops: ew_int cpu: element-wise kernel vs NumPy: must agree':
        {'tile_elementwise': 2400},
    'Tile ops: ew_maxmin a2a3: element-wise kernel vs NumPy: must agree':
        {'dma_bursts': 900, 'tile_elementwise': 600},
    'Kernels: ew_edges cpu: kernel vs NumPy: must agree':
        {'tile_elementwise': 18000},
    'Kernels: ew_edges a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 11700, 'tile_elementwise': 9300},
    'Kernels: ew_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 18600, 'tile_elementwise': 16200},
    'Kernels: reg_gather a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1000, 'reg_gather': 800, 'reg_gatherb': 200, 'tile_elementwise': 200},
    'Kernels: dma_pads a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1800},
    'Kernels: dma_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1000},
    'Kernels: interleave a5: kernel vs NumPy: must agree':
        {'dma_bursts': 6400, 'interleave': 2400},
    'Kernels: nz_gather a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 1800, 'mgather_a2a3_elem_nz': 900, 'mgather_a2a3_row_nz': 300},
    'Kernels: tgatherb_float_offsets cpu: kernel vs NumPy: must agree':
        {'tgatherb_cpu': 1176},
    'Kernels: mscatter_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1500, 'mscatter_a5_source': 1800},
    'Kernels: mscatter_edges cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 1800},
    'Kernels: mscatter_strided cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 400},
    'Kernels: mscatter_strided a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 400, 'mscatter_seq': 400},
    'Kernels: mscatter_strided a5: kernel vs NumPy: must agree':
        {'dma_bursts': 400, 'mscatter_a5_last': 400},
    'Kernels: tgather_cmp a5: kernel vs NumPy: must agree':
        {'dma_bursts': 4800, 'tgather_cmp': 1500},
    'Kernels: tgather_cmp a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 3600, 'tgather_cmp': 1200},
    'Kernels: tgather_in_place a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1600},
    'Kernels: tgather_in_place a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 1600},
    'Kernels: tgather_scratch_end a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 800, 'tgather_index': 200},
    'Kernels: tgatherb_misaligned a5: kernel vs NumPy: must agree':
        {'dma_bursts': 600, 'tgatherb_a5': 200},
    'Kernels: tgatherb_ub_end a5: kernel vs NumPy: must agree':
        {'dma_bursts': 600, 'tgatherb_a5': 200},
    'Kernels: tgatherb_ub_end a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 600, 'tgatherb_a2a3': 200},
    'Kernels: tgatherb_ub_end cpu: kernel vs NumPy: must agree':
        {'tgatherb_cpu': 200},
    'Kernels: tgatherb_misaligned a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 600, 'tgatherb_a2a3': 200},
    'Kernels: cmp_edges cpu: kernel vs NumPy: must agree':
        {'tile_compare': 9000},
    'Kernels: cmp_edges a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 11100, 'tile_compare': 9000},
    'Kernels: cmp_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 15300, 'tile_compare': 10800},
    'Kernels: cmp_bytes a5: kernel vs NumPy: must agree':
        {'dma_bursts': 3400, 'tile_compare': 1000, 'tile_elementwise': 400},
    'Kernels: cmp_narrow cpu: kernel vs NumPy: must agree':
        {'tile_compare': 400},
    'Kernels: cmp_narrow a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 1000, 'tile_compare': 400},
    'Kernels: cmp_narrow a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1000, 'tile_compare': 400},
    'Kernels: mov_shapes cpu: kernel vs NumPy: must agree':
        {'tile_move': 1500},
    'Kernels: mov_shapes a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 3300, 'tile_move': 1500},
    'Kernels: mov_shapes a5: kernel vs NumPy: must agree':
        {'dma_bursts': 3300, 'tile_move': 1500},
    'Kernels: mov_widths cpu: kernel vs NumPy: must agree':
        {'tile_move': 600},
    'Kernels: mov_widths a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1400, 'tile_move': 600},
    'Kernels: mov_relayouts a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1000, 'tile_move_map': 400},
    'Kernels: overlaps a5: kernel vs NumPy: must agree':
        {'dma_bursts': 11800, 'mgather_a5_elem': 200, 'tgatherb_a5': 200, 'tile_compare': 600, 'tile_convert': 200, 'tile_elementwise': 1200, 'tile_move': 400, 'tile_move_map': 200, 'tile_sort32': 200},
    'Kernels: overlaps cpu: kernel vs NumPy: must agree':
        {'tile_compare': 400, 'tile_convert': 200, 'tile_elementwise': 200, 'tile_move': 400, 'tile_sort32': 200},
    'Kernels: sort_edges cpu: kernel vs NumPy: must agree':
        {'tile_sort32': 600},
    'Kernels: sort_edges a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 3300, 'tile_sort32': 900},
    'Kernels: sort_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 3300, 'tile_sort32': 900},
    'Kernels: mrgsort_edges cpu: kernel vs NumPy: must agree':
        {'tile_mrgsort': 1600, 'tile_sort32': 200},
    'Kernels: mrgsort_edges a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 8000, 'tile_mrgsort': 1200, 'tile_sort32': 400},
    'Kernels: mrgsort_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 8000, 'tile_mrgsort': 1200, 'tile_sort32': 400},
    'Kernels: cvt_edges cpu: kernel vs NumPy: must agree':
        {'tile_convert': 12900},
    'Kernels: cvt_edges a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 13500, 'tile_convert': 12900},
    'Kernels: cvt_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 12900, 'tile_convert': 12300},
    'Kernels: cvt_minifloats cpu: kernel vs NumPy: must agree':
        {'tile_convert': 2200},
    'Kernels: cvt_minifloats a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 3200, 'tile_convert': 2800},
    'Kernels: cvt_minifloats a5: kernel vs NumPy: must agree':
        {'dma_bursts': 2400, 'tile_convert': 1400},
    'Kernels: tload_bursts a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 11800},
    'Kernels: tload_bursts a5: kernel vs NumPy: must agree':
        {'dma_bursts': 11800},
    'Kernels: ew_types cpu: kernel vs NumPy: must agree':
        {'tile_elementwise': 42000},
    'Kernels: ew_types a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 24400, 'tile_elementwise': 17200},
    'Kernels: ew_types a5: kernel vs NumPy: must agree':
        {'dma_bursts': 41000, 'tile_elementwise': 35000},
    'Kernels: cmp_types cpu: kernel vs NumPy: must agree':
        {'tile_compare': 16400},
    'Kernels: cmp_types a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 13000, 'tile_compare': 8400},
    'Kernels: cmp_types a5: kernel vs NumPy: must agree':
        {'dma_bursts': 30800, 'tile_compare': 26200},
    'TINTERLEAVE CPU sim vs A5, 8x64 int16, even VC: must agree':
        {'interleave': 1000},
    'CPU sim vs A5, Elem Zero, Nz tiles: tile offset rule':
        {'mgather_a5_elem': 2000, 'mgather_cpu': 2000},
    'CPU sim vs A5, Elem Zero, Zz tiles: tile offset rule':
        {'mgather_a5_elem': 500, 'mgather_cpu': 500},
    'CPU sim vs A5, GM->L1 Elem, L1 prefilled: the NPU rewrites the padding':
        {'mgather_cpu': 500, 'mgather_l1_elem_simt': 500},
    'CPU sim vs A2/A3, GM->L1 Row Zero, L1 prefilled: the NPU pre-zeroes the tile':
        {'mgather_cpu': 500, 'mgather_l1_row': 500},
    'A5 GM->L1 Elem: SIMT vs Scalar executor, must agree':
        {'mgather_l1_elem_scalar': 500, 'mgather_l1_elem_simt': 500},
    'A5 SIMT vs CPU sim, GM->L1 Elem Wrap: index cast width':
        {'mgather_cpu': 500, 'mgather_l1_elem_simt': 500},
    'TGATHERB A2/A3 vs A5, 4x72 float32: A2/A3 tail':
        {'tgatherb_a2a3': 200, 'tgatherb_a5': 200},
    'TGATHERB CPU sim vs A5, 2x12 float32: partial block':
        {'tgatherb_a5': 200, 'tgatherb_cpu': 200},
    'TINTERLEAVE CPU sim (NDEBUG build) vs A5, odd VC':
        {'interleave': 4000},
    'A5 Elem: SIMT kernel vs scalar NumPy semantics: must agree':
        {'mgather_a5_elem': 500},
    'A2/A3 Elem: scalar-loop kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 500},
    'A2/A3 Row Zero into UB, DMA bursts per read row: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 500},
    'A2/A3 Row Zero GM->L1, DMA bursts per read row: kernel vs NumPy: must agree':
        {'mgather_l1_row': 500},
    'CPU sim Row Undefined, overlapping rows, one ends one element past GM: scalar-loop kernel vs NumPy: must agree':
        {'mgather_cpu': 174},
    'CPU sim Row Undefined, table columns 2 apart, rows past GM: scalar-loop kernel vs NumPy: must agree':
        {'mgather_cpu': 256},
    "A5 Row Wrap, the capacity's last row ends one element past GM: SIMT kernel vs NumPy: must agree":
        {'mgather_a5_row': 120},
    'TMAX float32 16x16, CPU sim vs A5: max/min NaN and tie rule, denormal flush':
        {'tile_elementwise': 2048},
    'TMOV Vec->Mat float32 20x24, CPU sim vs A5: TMOV engine':
        {'tile_move_map': 300},
    'TMOV Vec->Mat from NZ half 20x40, CPU sim vs A5: TMOV engine':
        {'tile_move_map': 200},
    'TMOV Vec->Mat a5 half 20x40: kernel vs NumPy: must agree':
        {'tile_move_map': 300},
    'TMOV Vec->Mat from NZ a5 float32 20x24: kernel vs NumPy: must agree':
        {'tile_move_map': 200},
    'CPU sim vs A5, Elem Clamp, ColMajor (dn) tiles 8x16: must agree':
        {'mgather_a5_elem': 500, 'mgather_cpu': 500},
    'CPU sim vs A5, Row Wrap, ColMajor (dn) tiles 8x16: index cast width':
        {'mgather_a5_row': 500, 'mgather_cpu': 500},
    'TCVT float32 4x32, cpu vs a5, edge values: rounding and saturation':
        {'tile_convert': 2000},
    'TCVT float32->int64.rint 4x32, a2a3 vs a5, edge values: must agree':
        {'tile_convert': 1000},
    'TSORT32 float32 2x40, cpu vs a5, edge values: tail block and tie order':
        {'tile_sort32': 1000},
    'TCMP float32 4x32, cpu vs a5, edge values: must agree':
        {'tile_compare': 2000},
    'TDIV float32 4x32, a2a3 vs a5, edge values: must agree':
        {'tile_elementwise': 2000},
    'TMAX uint64 4x32, cpu vs a5, edge values: must agree':
        {'tile_elementwise': 2000},
    'TSHL int32 4x32, a2a3 vs a5, edge values: shift count rule':
        {'tile_elementwise': 2000},
    'TSORT32 with tmp float32 1x2085, A2/A3 vs A5: tail path':
        {'tile_sort32': 120},
    'TSORT32 float32 1x8160, CPU sim vs A2/A3: a row of 255 blocks':
        {'tile_sort32': 20},
    'TSORT32 with tmp a5 float32 2x2085: kernel vs NumPy: must agree':
        {'tile_sort32': 40},
    'TCVT float32->float8_e4m3.rint 1x2, cpu vs a5, edge values: 8-bit floats':
        {'tile_convert': 4000},
    'TCVT float32->float8_e5m2.rint 1x2, cpu vs a5, edge values: 8-bit floats':
        {'tile_convert': 4000},
    'TCVT half->hifloat8.round 1x2, cpu vs a5, edge values: 8-bit floats':
        {'tile_convert': 4000},
    'TCVT hifloat8->float32.none 1x2, cpu vs a5, edge values: 8-bit floats':
        {'tile_convert': 4000},
    'TSORT32 int32 cpu 2x40, dup: kernel vs NumPy: must agree':
        {'tile_sort32': 200},
    'TMRGSORT int16 cpu: kernel vs NumPy: must agree':
        {'tile_mrgsort': 300},
    'Tile ops: float32 TADD TMAX TDIV, TMUL on every bit pattern, cpu vs a5':
        {'dma_bursts': 1200, 'tile_elementwise': 2400},
    'Tile ops: float32 TMAX, TMINS with NaN and signed zeros, cpu vs a5':
        {'dma_bursts': 900, 'tile_elementwise': 1200},
    'Tile ops: int32 arithmetic, bitwise, shifts by any count, cpu vs a5':
        {'dma_bursts': 900, 'tile_elementwise': 4800},
    'Tile ops: int32 TSUBS by 2^24 + 1, cpu vs a2a3':
        {'dma_bursts': 600, 'tile_elementwise': 300},
    'Tile ops: int8 TAND TOR TNOT of 33 valid columns over a prefilled destination, a2a3 vs a5':
        {'dma_bursts': 4800, 'tile_elementwise': 900},
    'Tile ops: int32 TCMP GT into a prefilled mask, 10 valid columns, cpu vs a5':
        {'dma_bursts': 900, 'tile_compare': 600},
    'Tile ops: half TSEL by a loaded mask, 10 valid columns, cpu vs a5':
        {'dma_bursts': 1200, 'tile_compare': 600},
    'Tile ops: float32 -> int32 TCVT RINT on every bit pattern, cpu vs a5':
        {'dma_bursts': 600, 'tile_convert': 600},
    'Tile ops: bfloat16 <-> float4_e2m1x2 and float4_e1m2x2 TCVT RINT, packed, cpu vs a5':
        {'dma_bursts': 1200},
    'Tile ops: int16 TMOV of 5 valid columns, cpu vs a2a3':
        {'dma_bursts': 600, 'tile_move': 600},
    'Tile ops: TSORT32 of 40 values, cpu vs a2a3':
        {'dma_bursts': 900, 'tile_sort32': 600},
    'TLOAD pads: each PadVal into Vec and Mat tiles over junk, cpu vs a5':
        {'dma_bursts': 1003},
    'TLOAD pads: each PadVal into Vec and Mat tiles over junk, a2a3 vs a5':
        {'dma_bursts': 2006},
    'MSCATTER atomics Max, Min (float32) and Add (int32) on edge values, cpu vs a5':
        {'dma_bursts': 1500, 'mscatter_a5_source': 1800, 'mscatter_seq': 1800},
    'TGATHERB A2/A3 vs A5, 4x72 int8: A2/A3 tail':
        {'tgatherb_a2a3': 200, 'tgatherb_a5': 200},
    'TGATHERB A2/A3 vs A5, 2x136 float32: two head repeats a row, then the tail':
        {'tgatherb_a2a3': 200, 'tgatherb_a5': 200},
    'TGATHERB CPU sim vs A5, 3x40 half: partial block':
        {'tgatherb_a5': 200, 'tgatherb_cpu': 200},
    'MGATHER Elem Undefined int8/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 100},
    'MGATHER Elem Clamp int8/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 100},
    'MGATHER Elem Wrap int8/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 100},
    'MGATHER Elem Zero int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 100},
    'MGATHER Elem Undefined int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 100},
    'MGATHER Elem Clamp int16/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 100},
    'MGATHER Elem Wrap int16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 100},
    'MGATHER Elem Zero int16/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 100},
    'MGATHER Elem Undefined float32/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 100},
    'MGATHER Elem Clamp float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 100},
    'MGATHER Elem Wrap float32/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 100},
    'MGATHER Elem Zero float32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 100},
    'MGATHER Row Undefined int8/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 100},
    'MGATHER Row Clamp int8/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_row': 100},
    'MGATHER Row Wrap int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 100},
    'MGATHER Row Zero int8/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_row': 100},
    'MGATHER Row Undefined int16/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_row': 100},
    'MGATHER Row Clamp int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 100},
    'MGATHER Row Wrap int16/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_row': 100},
    'MGATHER Row Zero int16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 100},
    'MGATHER Row Undefined float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 100},
    'MGATHER Row Clamp float32/int32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_row': 100},
    'MGATHER Row Wrap float32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 100},
    'MGATHER Row Zero float32/uint32 6x20, a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_row': 100},
    'MGATHER Elem Undefined int8/int16 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MGATHER Elem Clamp int16/uint16 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MGATHER Elem Wrap float32/int64 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MGATHER Elem Zero int64/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MGATHER Row Undefined int8/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MGATHER Row Clamp int16/int16 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MGATHER Row Wrap float32/uint16 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MGATHER Row Zero int64/int64 6x20, cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 100},
    'MSCATTER None Skip int8/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Clamp int8/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Wrap int16/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Min Undefined int16/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Skip half/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Clamp half/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Min Wrap bfloat16/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Undefined bfloat16/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Skip int32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Clamp int32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Wrap float32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Min Undefined float32/int32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Skip int64/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Clamp int64/uint32 6x20, cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Undefined int8/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Skip int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Clamp int16/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap half/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Undefined half/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Skip bfloat16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Clamp bfloat16/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap int32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Undefined int32/uint32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Skip float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Clamp float32/int32 6x20, a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap int8/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Undefined int16/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Skip half/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Clamp half/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Wrap bfloat16/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Undefined bfloat16/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Skip int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Clamp int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Max Wrap int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Min Undefined int32/int32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Skip float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Clamp float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Max Wrap float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Min Undefined float32/uint32 6x20, a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Skip int16/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {'mscatter_a5_last': 40},
    'MSCATTER Add Clamp half/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Wrap bfloat16/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Undefined int32/int32 6x20, a5.last: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Min Skip int32/uint32 6x20, a5.last: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Clamp float32/uint32 6x20, a5.last: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Min Wrap float32/uint32 6x20, a5.last: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MGATHER A5 Elem Wrap half 16x40, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 200},
    'MGATHER A5 Elem Clamp int8 4x70, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 200},
    "MGATHER A5 Elem Undefined float32 16x16, an index at GM's end, per-thread launch: SIMT kernel vs NumPy: must agree":
        {'mgather_a5_elem': 23},
    "MGATHER A5 Row Undefined float32 8x24, a row at GM's end, per-thread launch: SIMT kernel vs NumPy: must agree":
        {'mgather_a5_row': 122},
    'MGATHER A5 Row Clamp int8 8x24, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 200},
    'MGATHER A5 Row Zero float32 GM->L1 6x12, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_l1_row': 200},
    'MSCATTER A5 Add int32 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 200},
    'MSCATTER A5 Max float32 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 200},
    'MSCATTER A5 default 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 200},
    'MSCATTER A5 last 16x16, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_last': 200},
    'MSCATTER A5 Row 8x24, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 200},
    'MSCATTER None Skip int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Clamp int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Undefined int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Clamp half 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Wrap half 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Skip float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Clamp float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Wrap float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Max Undefined float32 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Clamp int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Skip int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Clamp int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Undefined int8 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Clamp half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Wrap half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Skip int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Clamp int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Wrap int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Undefined int32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Clamp float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER Add Wrap float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mscatter_seq': 40},
    'MSCATTER None Skip int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Clamp int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Wrap int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Undefined int8 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Clamp half 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER None Wrap half 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Skip float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Clamp float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Wrap float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Add Undefined float32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Max Clamp int32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MSCATTER Max Wrap int32 4x32 (rows of whole blocks), a5.default: kernel vs NumPy: must agree':
        {'mscatter_a5_source': 40},
    'MGATHER Elem Undefined int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Clamp int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Wrap int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Zero int8 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Undefined int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Clamp int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Wrap int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Zero int64 4x32 (rows of whole blocks), cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 40},
    'MGATHER Elem Undefined half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Clamp half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Wrap half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Zero half 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Undefined float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Clamp float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Wrap float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Zero float32 4x32 (rows of whole blocks), a2a3: kernel vs NumPy: must agree':
        {'mgather_a2a3_elem_nd': 40},
    'MGATHER Elem Undefined int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER Elem Clamp int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER Elem Wrap int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER Elem Zero int8 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER Elem Undefined half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER Elem Clamp half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER Elem Wrap half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER Elem Zero half 4x32 (rows of whole blocks), a5.simt: kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Undefined int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Clamp int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Wrap int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Zero int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Undefined half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Clamp half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Wrap half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Zero half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Undefined float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Clamp float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Wrap float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Elem Zero float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_elem': 40},
    'MGATHER A5 Row Undefined int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Clamp int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Wrap int8/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Zero int8/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Undefined half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Clamp half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Wrap half/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Zero half/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Undefined float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Clamp float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Wrap float32/int32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MGATHER A5 Row Zero float32/uint32 6x20, per-thread launch: SIMT kernel vs NumPy: must agree':
        {'mgather_a5_row': 40},
    'MSCATTER A5 None Skip int8 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 None Clamp int8 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_last': 40},
    'MSCATTER A5 None Wrap int16 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_last': 40},
    'MSCATTER A5 Add Undefined half 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 Add Skip bfloat16 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 None Clamp float32 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_last': 40},
    'MSCATTER A5 Add Wrap int32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 Max Undefined float32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 Min Skip int32 6x20, a5.last, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 Max Clamp uint32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 Min Wrap float32 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 None Undefined half 6x20, a5.default, per-thread launch: SIMT kernel vs NumPy: races only':
        {'mscatter_a5_source': 40},
    'MSCATTER A5 last Row Wrap 8x24: kernel vs NumPy: races only':
        {'mscatter_a5_last': 200},
    'MSCATTER A5 default Elem Clamp int8 16x16: kernel vs NumPy: races only':
        {'mscatter_a5_source': 200},
    'MSCATTER A5 last Elem Wrap half 16x16: kernel vs NumPy: races only':
        {'mscatter_a5_last': 200},
    'MSCATTER A2/A3 Elem Wrap int16 16x16: kernel vs NumPy: races only':
        {'mscatter_seq': 200},
    'MSCATTER CPU sim Row Clamp int8 8x24: kernel vs NumPy: races only':
        {'mscatter_seq': 200},
    'A5 Elem Zero 1x1 (the scalar unit): kernel vs NumPy: must agree':
        {'mgather_a5_scalar': 300},
    'a5 Row Wrap, table columns 2 apart: kernel vs NumPy: must agree':
        {'mgather_a5_row': 300},
    'a2a3 Row Clamp, table columns 2 apart: kernel vs NumPy: must agree':
        {'mgather_a2a3_row_nd': 300},
    'TGATHERB a5 int8 4x72: kernel vs NumPy: must agree':
        {'tgatherb_a5': 200},
    'Kernels: gm2l1_edges a2a3: kernel vs NumPy: must agree':
        {'dma_bursts': 600},
    'Kernels: gm2l1_edges a5: kernel vs NumPy: must agree':
        {'dma_bursts': 600},
    'Kernels: stop_some cpu: kernel vs NumPy: must agree':
        {'mgather_cpu': 239, 'tile_elementwise': 239},
    'Kernels: stop_some a5: kernel vs NumPy: must agree':
        {'dma_bursts': 1139, 'mgather_a5_elem': 239, 'tile_elementwise': 239},
    'Kernels: fp4_moves a5: kernel vs NumPy: must agree':
        {'dma_bursts': 200},
}



# Each kernel campaign's sides' output digests at its size with seed 0 (python -m
# ptogpu.fuzz.suite, after "# DIGESTS"; user_kernel.digest).
DIGESTS: dict[str, dict[str, str]] = {
    'Tile ops: ew_float a5: element-wise kernel vs NumPy: must agree':
        {'a': '99dc6567e4b28b94', 'b': '99dc6567e4b28b94'},
    'Tile ops: ew_int cpu: element-wise kernel vs NumPy: must agree':
        {'a': '93868361b57a85b9', 'b': '93868361b57a85b9'},
    'Tile ops: ew_maxmin a2a3: element-wise kernel vs NumPy: must agree':
        {'a': '147642dcc98d039e', 'b': '147642dcc98d039e'},
    'Kernels: ew_edges cpu: kernel vs NumPy: must agree':
        {'a': '522ddcbdccc46226', 'b': '522ddcbdccc46226'},
    'Kernels: ew_edges a2a3: kernel vs NumPy: must agree':
        {'a': 'fc4df36c76fccd97', 'b': 'fc4df36c76fccd97'},
    'Kernels: ew_edges a5: kernel vs NumPy: must agree':
        {'a': '68a12a06d61a9e32', 'b': '68a12a06d61a9e32'},
    'Kernels: reg_gather a5: kernel vs NumPy: must agree':
        {'a': 'e97430a9193f3c37', 'b': 'e97430a9193f3c37'},
    'Kernels: dma_pads a5: kernel vs NumPy: must agree':
        {'a': 'e62a01952b1d28a0', 'b': 'e62a01952b1d28a0'},
    'Kernels: dma_edges a5: kernel vs NumPy: must agree':
        {'a': 'f25ab2ec2b6d3b20', 'b': 'f25ab2ec2b6d3b20'},
    'Kernels: interleave a5: kernel vs NumPy: must agree':
        {'a': '73676be87eb301da', 'b': '73676be87eb301da'},
    'Kernels: nz_gather a2a3: kernel vs NumPy: must agree':
        {'a': 'ffc60f06a5102181', 'b': 'ffc60f06a5102181'},
    'Kernels: tgatherb_float_offsets cpu: kernel vs NumPy: must agree':
        {'a': '619fab5e01be29fd', 'b': '619fab5e01be29fd'},
    'Kernels: mscatter_edges a5: kernel vs NumPy: must agree':
        {'a': '368f6dd013c90116', 'b': '368f6dd013c90116'},
    'Kernels: mscatter_edges cpu: kernel vs NumPy: must agree':
        {'a': '368f6dd013c90116', 'b': '368f6dd013c90116'},
    'Kernels: mscatter_strided cpu: kernel vs NumPy: must agree':
        {'a': '0bd530240cabbe33', 'b': '0bd530240cabbe33'},
    'Kernels: mscatter_strided a2a3: kernel vs NumPy: must agree':
        {'a': 'f7990c92bfc9abec', 'b': 'f7990c92bfc9abec'},
    'Kernels: mscatter_strided a5: kernel vs NumPy: must agree':
        {'a': 'a6e3af963a1293ea', 'b': 'a6e3af963a1293ea'},
    'Kernels: tgather_cmp a5: kernel vs NumPy: must agree':
        {'a': 'ab1f170d50577d2c', 'b': 'ab1f170d50577d2c'},
    'Kernels: tgather_cmp a2a3: kernel vs NumPy: must agree':
        {'a': 'a34ae4e2c8cf0d56', 'b': 'a34ae4e2c8cf0d56'},
    'Kernels: tgather_in_place a5: kernel vs NumPy: must agree':
        {'a': '2edf677db4d7c129', 'b': '2edf677db4d7c129'},
    'Kernels: tgather_in_place a2a3: kernel vs NumPy: must agree':
        {'a': '2edf677db4d7c129', 'b': '2edf677db4d7c129'},
    'Kernels: tgather_in_place cpu: kernel vs NumPy: must agree':
        {'a': '850e11ab92cff4a6', 'b': '850e11ab92cff4a6'},
    'Kernels: tgather_scratch_end a2a3: kernel vs NumPy: must agree':
        {'a': '89f8727be74a6612', 'b': '89f8727be74a6612'},
    'Kernels: tgatherb_misaligned a5: kernel vs NumPy: must agree':
        {'a': '2a447be937e4af5b', 'b': '2a447be937e4af5b'},
    'Kernels: tgatherb_ub_end a5: kernel vs NumPy: must agree':
        {'a': 'fad2c780459a78d3', 'b': 'fad2c780459a78d3'},
    'Kernels: tgatherb_ub_end a2a3: kernel vs NumPy: must agree':
        {'a': 'fad2c780459a78d3', 'b': 'fad2c780459a78d3'},
    'Kernels: tgatherb_ub_end cpu: kernel vs NumPy: must agree':
        {'a': 'f8dc41755bbf341b', 'b': 'f8dc41755bbf341b'},
    'Kernels: tgatherb_misaligned a2a3: kernel vs NumPy: must agree':
        {'a': '2a447be937e4af5b', 'b': '2a447be937e4af5b'},
    'Kernels: cmp_edges cpu: kernel vs NumPy: must agree':
        {'a': 'c1af6afd7a83506f', 'b': 'c1af6afd7a83506f'},
    'Kernels: cmp_edges a2a3: kernel vs NumPy: must agree':
        {'a': '01ea4dfddca1bd23', 'b': '01ea4dfddca1bd23'},
    'Kernels: cmp_edges a5: kernel vs NumPy: must agree':
        {'a': 'f52a5fa04a054f35', 'b': 'f52a5fa04a054f35'},
    'Kernels: cmp_bytes a5: kernel vs NumPy: must agree':
        {'a': '7d3d1015ad431785', 'b': '7d3d1015ad431785'},
    'Kernels: cmp_narrow cpu: kernel vs NumPy: must agree':
        {'a': '4bc80c45f40d9d70', 'b': '4bc80c45f40d9d70'},
    'Kernels: cmp_narrow a2a3: kernel vs NumPy: must agree':
        {'a': '99560c6665901fbe', 'b': '99560c6665901fbe'},
    'Kernels: cmp_narrow a5: kernel vs NumPy: must agree':
        {'a': 'd93abefd083e395d', 'b': 'd93abefd083e395d'},
    'Kernels: mov_shapes cpu: kernel vs NumPy: must agree':
        {'a': 'da035472b31fee0a', 'b': 'da035472b31fee0a'},
    'Kernels: mov_shapes a2a3: kernel vs NumPy: must agree':
        {'a': '742fd1be63552006', 'b': '742fd1be63552006'},
    'Kernels: mov_shapes a5: kernel vs NumPy: must agree':
        {'a': 'da035472b31fee0a', 'b': 'da035472b31fee0a'},
    'Kernels: mov_widths cpu: kernel vs NumPy: must agree':
        {'a': '211e5bb5c186ca23', 'b': '211e5bb5c186ca23'},
    'Kernels: mov_widths a5: kernel vs NumPy: must agree':
        {'a': '211e5bb5c186ca23', 'b': '211e5bb5c186ca23'},
    'Kernels: mov_relayouts a5: kernel vs NumPy: must agree':
        {'a': 'ae5464310aa2eb03', 'b': 'ae5464310aa2eb03'},
    'Kernels: overlaps a5: kernel vs NumPy: must agree':
        {'a': '5a4304971b750133', 'b': '5a4304971b750133'},
    'Kernels: overlaps cpu: kernel vs NumPy: must agree':
        {'a': 'c6855a711f4eb6f4', 'b': 'c6855a711f4eb6f4'},
    'Kernels: sort_edges cpu: kernel vs NumPy: must agree':
        {'a': '46debf8d39a7c915', 'b': '46debf8d39a7c915'},
    'Kernels: sort_edges a2a3: kernel vs NumPy: must agree':
        {'a': 'bdf17d632be52b06', 'b': 'bdf17d632be52b06'},
    'Kernels: sort_edges a5: kernel vs NumPy: must agree':
        {'a': '096f840677846db5', 'b': '096f840677846db5'},
    'Kernels: mrgsort_edges cpu: kernel vs NumPy: must agree':
        {'a': '8385a0423dd65b6c', 'b': '8385a0423dd65b6c'},
    'Kernels: mrgsort_edges a2a3: kernel vs NumPy: must agree':
        {'a': '6c848e4cb28a8853', 'b': '6c848e4cb28a8853'},
    'Kernels: mrgsort_edges a5: kernel vs NumPy: must agree':
        {'a': '6c848e4cb28a8853', 'b': '6c848e4cb28a8853'},
    'Kernels: cvt_edges cpu: kernel vs NumPy: must agree':
        {'a': 'a3c741a383f31ebc', 'b': 'a3c741a383f31ebc'},
    'Kernels: cvt_edges a2a3: kernel vs NumPy: must agree':
        {'a': '4742e9fef16785d7', 'b': '4742e9fef16785d7'},
    'Kernels: cvt_edges a5: kernel vs NumPy: must agree':
        {'a': 'edc13b967c596bce', 'b': 'edc13b967c596bce'},
    'Kernels: cvt_minifloats cpu: kernel vs NumPy: must agree':
        {'a': 'd0d2c17ad88b6784', 'b': 'd0d2c17ad88b6784'},
    'Kernels: cvt_minifloats a2a3: kernel vs NumPy: must agree':
        {'a': '90394d4d9f28df1f', 'b': '90394d4d9f28df1f'},
    'Kernels: cvt_minifloats a5: kernel vs NumPy: must agree':
        {'a': '45bbcec0d326cd4b', 'b': '45bbcec0d326cd4b'},
    'Kernels: tload_bursts a2a3: kernel vs NumPy: must agree':
        {'a': 'f4d44f5f7195a974', 'b': 'f4d44f5f7195a974'},
    'Kernels: tload_bursts a5: kernel vs NumPy: must agree':
        {'a': 'f4d44f5f7195a974', 'b': 'f4d44f5f7195a974'},
    'Kernels: ew_types cpu: kernel vs NumPy: must agree':
        {'a': 'd8c953f919e52c42', 'b': 'd8c953f919e52c42'},
    'Kernels: ew_types a2a3: kernel vs NumPy: must agree':
        {'a': 'de09b072717c7d0d', 'b': 'de09b072717c7d0d'},
    'Kernels: ew_types a5: kernel vs NumPy: must agree':
        {'a': '7a8c496e29a7635f', 'b': '7a8c496e29a7635f'},
    'Kernels: cmp_types cpu: kernel vs NumPy: must agree':
        {'a': '62458ecab819f17d', 'b': '62458ecab819f17d'},
    'Kernels: cmp_types a2a3: kernel vs NumPy: must agree':
        {'a': '3a089da98ac4f2ec', 'b': '3a089da98ac4f2ec'},
    'Kernels: cmp_types a5: kernel vs NumPy: must agree':
        {'a': '961d586cbfa3a654', 'b': '961d586cbfa3a654'},
    'Tile ops: float32 TADD TMAX TDIV, TMUL on every bit pattern, cpu vs a5':
        {'a': '7d9014dffb621b71', 'b': '99dc6567e4b28b94'},
    'Tile ops: float32 TMAX, TMINS with NaN and signed zeros, cpu vs a5':
        {'a': 'b114103c6224e46c', 'b': '147642dcc98d039e'},
    'Tile ops: int32 arithmetic, bitwise, shifts by any count, cpu vs a5':
        {'a': '93868361b57a85b9', 'b': 'f1e6d32e4e089d07'},
    'Tile ops: int32 TSUBS by 2^24 + 1, cpu vs a2a3':
        {'a': 'babd2905f3c44262', 'b': 'ea9c22c58ad146c6'},
    'Tile ops: int8 TAND TOR TNOT of 33 valid columns over a prefilled destination, a2a3 vs a5':
        {'a': 'd0e402081dd70087', 'b': '84cc5d119c25c06b'},
    'Tile ops: int32 TCMP GT into a prefilled mask, 10 valid columns, cpu vs a5':
        {'a': '36a2c80ccee057d3', 'b': 'a9c32fbcc367b18d'},
    'Tile ops: half TSEL by a loaded mask, 10 valid columns, cpu vs a5':
        {'a': '6fe6785deb6faad4', 'b': '0af208149d240b7b'},
    'Tile ops: float32 -> int32 TCVT RINT on every bit pattern, cpu vs a5':
        {'a': 'ea93cbb43d0f5517', 'b': '152513d2067ea6f2'},
    'Tile ops: bfloat16 <-> float4_e2m1x2 and float4_e1m2x2 TCVT RINT, packed, cpu vs a5':
        {'a': 'e93c5ca4e4521f12', 'b': '8936595a567ff916'},
    'Tile ops: int16 TMOV of 5 valid columns, cpu vs a2a3':
        {'a': '064de8f46c4b7909', 'b': 'e3e56f87148f89e1'},
    'Tile ops: TSORT32 of 40 values, cpu vs a2a3':
        {'a': '9f233125d9b939ea', 'b': '4bb11fd012dce20c'},
    'TLOAD pads: each PadVal into Vec and Mat tiles over junk, cpu vs a5':
        {'a': 'fb4f7bf9c589c923', 'b': '9be1acf68ead1ffa'},
    'TLOAD pads: each PadVal into Vec and Mat tiles over junk, a2a3 vs a5':
        {'a': 'af011b61eaa901fd', 'b': '9be1acf68ead1ffa'},
    'MSCATTER atomics Max, Min (float32) and Add (int32) on edge values, cpu vs a5':
        {'a': '368f6dd013c90116', 'b': '368f6dd013c90116'},
    'Kernels: gm2l1_edges a2a3: kernel vs NumPy: must agree':
        {'a': '1e6e8f628592e9a6', 'b': '1e6e8f628592e9a6'},
    'Kernels: gm2l1_edges a5: kernel vs NumPy: must agree':
        {'a': '1e6e8f628592e9a6', 'b': '1e6e8f628592e9a6'},
    'Kernels: stop_some cpu: kernel vs NumPy: must agree':
        {'a': '7cdf3a6c1fedc407', 'b': '7cdf3a6c1fedc407'},
    'Kernels: stop_some a5: kernel vs NumPy: must agree':
        {'a': '7cdf3a6c1fedc407', 'b': '7cdf3a6c1fedc407'},
    'Kernels: fp4_moves a5: kernel vs NumPy: must agree':
        {'a': '29ec4032a13b1cbc', 'b': '29ec4032a13b1cbc'},
}

if __name__ == "__main__":
    _record()
