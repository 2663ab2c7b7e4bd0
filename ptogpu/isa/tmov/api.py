"""``TMOV(dst, src)`` between Vec (UB) and Mat (L1) tiles, with every target's checks, then the
NumPy semantics (docs/tmov.md). The matrix forms (Acc, Left, Right, Bias, Scaling, the
quantising and relu forms) are not emulated: a PtoCheckError says so."""
from __future__ import annotations

from ...core import current_core
from ...enums import TileType
from ...errors import PtoCheckError, PtoPortabilityWarning, check, runtime_assert, warn
from ...ops.events import instruction
from ...semantics.tile_moves import hazard
from ...tile import Tile
from . import kernels as K, semantics as S


@instruction("TMOV")
def TMOV(dst: Tile, src: Tile) -> None:
    """Copy src's valid region to dst: on the simulator element by element through both layouts
    (converting the value); on A2/A3 32-byte UB bursts; on A5 a predicated register copy, or
    ND -> NZ fractal columns; Mat -> Vec only on the simulator (docs/tmov.md)."""
    core = current_core()
    R, t = core.target.tmov, core.target.name
    for name, x in (("dst", dst), ("src", src)):
        if not isinstance(x, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(x).__name__}", rule="TMOV operands", target=t)
        if x.Loc not in (TileType.Vec, TileType.Mat):
            raise PtoCheckError(f"{name} is TileType.{x.Loc.name}: TMOV between Vec and Mat tiles is emulated (the "
                                "matrix forms are not)", rule="TMOV forms", target=t)
    pair = (src.Loc.name, dst.Loc.name)
    if R.pairs is not None and pair not in R.pairs:
        raise PtoCheckError(f"{pair[0]} -> {pair[1]} does not compile", rule="TMov: Invalid TileType.", target=t)
    if R.same_shape:
        check((src.Rows, src.Cols) == (dst.Rows, dst.Cols), "TMov: The shape of src needs to be the same as that of "
              "dst.", t, f"src {src.Rows}x{src.Cols}, dst {dst.Rows}x{dst.Cols}")
    if R.same_size:
        check(src.Element.itemsize == dst.Element.itemsize, "TMOV: src and dst data type is different!", t,
              f"src {src.DType}, dst {dst.DType}")
    for x in (dst, src):
        x._bound()
    hazard("TMOV", {"dst": dst}, {"src": src}, in_place_ok=True)
    if R.engine == "elements":
        runtime_assert(core, (src.valid_row, src.valid_col) == (dst.valid_row, dst.valid_col),
                       "TMOV: assert(src and dst valid shapes are the same)",
                       f"src {src.valid_row}x{src.valid_col}, dst {dst.valid_row}x{dst.valid_col}")
        if K.run(core, dst, src): return  # noqa: E701 (native/cupy kernel)
        return S.elements(core, dst, src)
    if R.engine == "bursts":
        if K.run(core, dst, src): return  # noqa: E701
        return S.bursts(core, dst, src)
    if pair == ("Mat", "Vec"):
        warn(f"[{t}] TMOV Mat -> Vec: a5/TMov.hpp's dispatch has no branch for it: it compiles and writes nothing "
             "(read L1 back with copy_cbuf_to_ubuf)", PtoPortabilityWarning)
        return
    form = K.a5_form(dst, src)
    if form is not None and K.run_map(core, dst, src, form): return  # noqa: E701 (native/cupy kernel)
    if pair == ("Vec", "Mat"):                       # a5/TExtract.hpp:399-422, TExtractVecToMat
        if src.isRowMajor and src.SLayout.name == "NoneBox":
            return S.vec_to_mat_flat(core, dst, src)
        if not src.isRowMajor and src.SLayout.name == "RowMajor":
            return S.vec_nz_to_mat(core, dst, src)
        warn(f"[{t}] TMOV Vec -> Mat from a {src.BLayout.name}/{src.SLayout.name} source: TExtractVecToMat has a "
             "branch for ND and NZ sources only: it compiles and writes nothing", PtoPortabilityWarning)
        return
    if K.run(core, dst, src): return  # noqa: E701
    S.vregs(core, dst, src)
