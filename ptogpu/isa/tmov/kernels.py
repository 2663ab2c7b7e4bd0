"""TMOV between plain Vec tiles on the kernel backends (cuda_src/tmov.cu, ``tile_move``): one
thread per instance, a check pass then the copy. The kernel works out each target's copy (the
simulator's element loop, A2/A3's 32-byte bursts, A5's row copy) from the tiles' shapes and the
engine word, not from the NumPy semantics it is checked against. Plain tiles only -- this
core's, in UB, row-major, without boxes, of one element type. A5's relayouts (ND -> NZ and ZN in
UB, Vec -> Mat into L1) run ``tile_move_map``, unit by unit, its address maps written out there.
The simulator's conversion (its element loop assigns: a C++ cast) runs TCVT's kernel,
``tile_convert``, as the simulator's cast toward zero without saturation. Mat -> Vec and the
NPUs' copies between types run NumPy. Returns False where NumPy must run (it wrote nothing)."""
from __future__ import annotations

from ...backend import kernel_ok
from ...backend.kernels import ParamBlock, all_clean, enum, launch_on, use_kernels
from ...enums import CompactMode, SLayout, TileType
from ...lowering.tiles import K, SPACES
from ..tcvt import kernels as cvt

F = "tmov.cu"
ENGINES = {"elements": "MV_ELEMENTS", "bursts": "MV_BURSTS", "vregs": "MV_VREGS"}


def _plain(core, t) -> bool:
    return (getattr(t, "core", None) is core and t.addr is not None and t.space == "ub" and t.Loc == TileType.Vec
            and t.SLayout == SLayout.NoneBox and t.isRowMajor)


def run(core, dst, src) -> bool:
    """``TMOV(dst, src)`` as the kernel; False: NumPy."""
    engine = core.target.tmov.engine
    if engine == "elements" and src.DType != dst.DType and _plain(core, dst) and _plain(core, src):
        return cvt.run(core, dst, src, "Z", False)     # (cpu/TMov.hpp:27-32: SetElement(GetElement))
    if engine not in ENGINES or src.DType != dst.DType or not (_plain(core, dst) and _plain(core, src)):
        return False
    if not use_kernels(core) or not kernel_ok(core, dst, src):
        return False
    p = ParamBlock(F, "MV_", ENGINE=enum(F, ENGINES[engine]), T=dst.Element.itemsize, S=src.addr, SC=src.Cols,
                   SVR=src.valid_row, SVC=src.valid_col, D=dst.addr, DR=dst.Rows, DC=dst.Cols, DVR=dst.valid_row,
                   DVC=dst.valid_col, DSTATIC_VC=dst.ValidCol)
    if not all_clean(launch_on(core, "tile_move", p.words, passes=1, writes=())):
        return False
    launch_on(core, "tile_move", p.words, passes=2, writes=("ub",))
    return True


MAP_FORMS = {"nz": "MP_NZ", "zn": "MP_ZN", "flat": "MP_FLAT", "nz_bursts": "MP_NZ_BURSTS"}


def a5_form(dst, src) -> str | None:
    """Which of A5's relayouts ``TMOV(dst, src)`` is (a5/TMov.hpp, TExtract.hpp), or None."""
    nd = src.isRowMajor and src.SLayout == SLayout.NoneBox
    if src.Loc == TileType.Vec and dst.Loc == TileType.Mat:
        return "flat" if nd else "nz_bursts" if (not src.isRowMajor and src.SLayout == SLayout.RowMajor) else None
    if not nd or src.Loc != TileType.Vec or dst.Loc != TileType.Vec:
        return None
    if not dst.isRowMajor and dst.SLayout == SLayout.RowMajor:
        return "nz"
    return "zn" if dst.isRowMajor and dst.SLayout == SLayout.ColMajor else None


def run_map(core, dst, src, form: str) -> bool:
    """One of A5's relayouts as ``tile_move_map``; False: NumPy."""
    ok = all(getattr(t, "core", None) is core and t.addr is not None and t.space in ("ub", "l1") for t in (dst, src))
    if not ok or src.DType != dst.DType or not use_kernels(core) or not kernel_ok(core, dst, src):
        return False
    p = ParamBlock(F, "MP_", FORM=enum(F, MAP_FORMS[form]), T=dst.Element.itemsize, SSPACE=K[SPACES[src.space]],
                   S=src.addr, SR=src.Rows, SC=src.Cols, SVR=src.valid_row, DSPACE=K[SPACES[dst.space]], D=dst.addr,
                   DR=dst.Rows, DVR=dst.valid_row, DVC=dst.valid_col,
                   ROW_PLUS_ONE=int(dst.Compact == CompactMode.RowPlusOne))
    if not all_clean(launch_on(core, "tile_move_map", p.words, passes=1, writes=())):
        return False
    launch_on(core, "tile_move_map", p.words, passes=2, writes=(dst.space,))
    return True
