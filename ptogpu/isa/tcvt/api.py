"""``TCVT(dst, src, RoundMode[, SaturationMode])`` with every target's checks and pair table, then
the NumPy semantics (docs/tcvt.md)."""
from __future__ import annotations

from ... import dtypes
from ...core import current_core
from ...enums import RoundMode, SaturationMode, TileType
from ...errors import PtoCheckError, PtoPortabilityWarning, check, warn
from ...ops.events import instruction
from ...semantics.tile_moves import hazard
from ...tile import Tile
from . import kernels as K, semantics as S, semantics_fourbit as F4
from .semantics_minifloats import F8

LETTER = {RoundMode.CAST_RINT: "R", RoundMode.CAST_ROUND: "A", RoundMode.CAST_FLOOR: "F", RoundMode.CAST_CEIL: "C",
          RoundMode.CAST_TRUNC: "Z", RoundMode.CAST_ODD: "O", RoundMode.CAST_NONE: "N"}
CPU_TYPES = S.CPU_TYPES


def letter_for(core, S_: str, D: str, mode: RoundMode) -> str | None:
    """The rounding the target runs for ``mode`` on this pair; None: the pair is not in its code."""
    R = core.target.tcvt
    want = LETTER[mode]
    if R.pairs is None:
        return want
    got = R.pairs.get((S_, D))
    if got is None:
        return None
    modes, none = got
    if R.odd_only is not None and want == "O" and (S_, D) not in R.odd_only:
        want = "N"
    if want != "N" and want in modes:
        return want
    if none is not None:
        return none
    float_to_int = S.is_float(S_) and not S.is_float(D)
    return R.none_float_to_int if float_to_int else R.none_other


@instruction("TCVT")
def TCVT(dst: Tile, src: Tile, mode, sat=None, sat2=None) -> None:
    """Convert src's elements to dst's type: ``TCVT(dst, src, pto.RoundMode.X)`` (the target's
    default saturation), ``TCVT(dst, src, mode, pto.SaturationMode.ON | OFF)``, or either with a
    tmp tile after src (``TCVT(dst, src, tmp, mode[, satMode])``)."""
    core = current_core()
    R, t = core.target.tcvt, core.target.name
    for name, x in (("dst", dst), ("src", src)):
        if not isinstance(x, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(x).__name__}", rule="TCVT operands", target=t)
    tmp = None
    if isinstance(mode, Tile):                  # the tmp forms (pto_instr.hpp:1360-1375)
        tmp, mode, sat = mode, sat, sat2
        if R.tmp_form == "none":
            raise PtoCheckError("TCVT(dst, src, tmp, ...) is declared but has no body on the simulator (the build "
                                "fails: function body not available)", rule="TCVT forms", target=t)
        tmp._bound()
    elif sat2 is not None:
        raise PtoCheckError("TCVT takes (dst, src[, tmp], mode[, satMode])", rule="TCVT forms", target=t)
    if not isinstance(mode, RoundMode):
        raise PtoCheckError(f"TCVT's mode is a pto.RoundMode, got {type(mode).__name__}", rule="TCVT operands", target=t)
    if sat is not None and not isinstance(sat, SaturationMode):
        raise PtoCheckError(f"TCVT's satMode is a pto.SaturationMode, got {type(sat).__name__}",
                            rule="TCVT operands", target=t)
    Sd, Dd = src.DType, dst.DType
    for name, x in (("dst", dst), ("src", src)):
        if x.DType in F8:
            check(R.minifloats is not None, "TCVT: the 8-bit float types", t,
                  f"{name} holds {x.DType}, a type the target does not have (arch_capability.hpp: void)")
        elif x.DType in dtypes.FOUR_BIT:
            check(R.four_bit is not None, "TCVT: the 4-bit types", t, f"{name} holds {x.DType}")
        else:
            check(x.DType in CPU_TYPES, "TCVT: element types ptogpu converts", t,
                  f"{name} holds {x.DType}: TCVT converts {', '.join(CPU_TYPES + F8)}")
        if R.pairs is not None:
            check(x.Loc == TileType.Vec, "TCVT: TileType::Vec", t, f"{name} is TileType.{x.Loc.name}")
    letter = letter_for(core, Sd, Dd, mode)
    for x in (dst, src):
        x._bound()
    if letter is None:
        if R.unsupported == "error":
            raise PtoCheckError(f"{t}/TCvt.hpp has no castData for {Sd} -> {Dd} (a compile error)",
                                rule="TCVT pair", target=t)
        warn(f"[{t}] TCVT {Sd} -> {Dd}: {t}/TCvt.hpp's GenCastCall has no branch for the pair: it compiles and "
             "writes nothing", PtoPortabilityWarning)
        return
    if sat is None:
        on = R.sat_default_on and (Sd, Dd) not in R.narrowing
    else:
        on = sat == SaturationMode.ON
        if R.explicit_off_only_narrowing and (Sd, Dd) not in R.narrowing and not (tmp is not None and
                                                                                  R.tmp_form == "torch"):
            on = True                                   # a2a3/TCvt.hpp:1236-1269 (the tmp form honours it)
    torch = tmp is not None and R.tmp_form == "torch" and not on and (Sd, Dd) in R.torch_pairs
    hazard("TCVT", {"dst": dst}, {"src": src})
    if Sd in dtypes.FOUR_BIT or Dd in dtypes.FOUR_BIT:
        return F4.run(core, dst, src, letter, on)        # (NumPy on every backend: cvt.cu has no 4-bit kinds)
    if K.run(core, dst, src, letter, on, torch): return  # noqa: E701 (native/cupy kernel)
    S.run(core, dst, src, letter, on, torch)
