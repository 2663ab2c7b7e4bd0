"""``TSORT32(dst, src, idx[, tmp])``, ``TMRGSORT(dst, executed, tmp, src0, src1[, src2[, src3]])``
(``TMRGSORT[True](...)``: exhausted mode), ``TMRGSORT(dst, src, blockLen)`` and
``MrgSortExecutedNumList``, with every target's checks, then the NumPy semantics (docs/sort.md)."""
from __future__ import annotations

import numpy as np

from ...core import current_core
from ...enums import SLayout, TileType
from ...errors import PtoCheckError, check
from ...ops.events import instruction
from ...tile import Tile
from . import kernels as K, semantics as S


class MrgSortExecutedNumList:
    """``struct MrgSortExecutedNumList { uint16_t mrgSortList0..3; }``: how many records TMRGSORT
    took from each list. On a core of N each field holds every instance's count."""

    def __init__(self) -> None:
        self._vals: np.ndarray | None = None

    def _set(self, ks: np.ndarray, heads: np.ndarray) -> None:
        core = current_core()
        if self._vals is None or self._vals.shape[0] != core.batch:
            self._vals = np.zeros((core.batch, 4), np.int64)
        self._vals[ks] = heads

    def _field(self, k: int):
        core = current_core()
        vals = np.zeros(core.batch, np.int64) if self._vals is None else self._vals[:, k]
        if core.batch == 1:
            return int(vals[0])
        if core._program:
            from ...instance_values import InstanceValues
            return InstanceValues(core, vals.copy())
        return vals.copy()

    mrgSortList0 = property(lambda self: self._field(0))
    mrgSortList1 = property(lambda self: self._field(1))
    mrgSortList2 = property(lambda self: self._field(2))
    mrgSortList3 = property(lambda self: self._field(3))


def _tiles(call: str, t: str, named: dict) -> None:
    for name, x in named.items():
        if not isinstance(x, Tile):
            raise PtoCheckError(f"{name} must be a Tile, got {type(x).__name__}", rule=f"{call} operands", target=t)


@instruction("TSORT32")
def TSORT32(dst: Tile, src: Tile, idx: Tile, tmp: Tile | None = None) -> None:
    """Per row, each block of 32 src values sorted descending with its idx values, written as
    8-byte (value, index) records (docs/sort.md)."""
    core = current_core()
    R, t = core.target.sort, core.target.name
    named = dict(dst=dst, src=src, idx=idx, **({} if tmp is None else {"tmp": tmp}))
    _tiles("TSORT32", t, named)
    T = src.DType
    check(T in R.dtypes, "TSort32: Invalid data type.", t, f"{T} is not one of {', '.join(R.dtypes)}")
    check(dst.DType == T, "The Src data type must be consistent with the dst data type", t, f"dst {dst.DType}, src {T}")
    check(idx.DType == "uint32", "The Idx data type must be uint32", t, idx.DType)
    for name in ("dst", "src", "idx"):
        x = named[name]
        check(x.isRowMajor, "TSort32: expect row major", t, f"{name} is ColMajor")
        if R.sim_checks:
            check(x.SLayout == SLayout.NoneBox, "TSort32: only NoneBox tiles are supported in CPU sim", t,
                  f"{name} is boxed")
        else:
            check(x.Loc == TileType.Vec, "TileType must be Vec.", t, f"{name} is TileType.{x.Loc.name}")
    if R.sim_checks:
        check(src.Cols == idx.Cols, "The Src stride must be consistent with the idx stride", t,
              f"src Cols {src.Cols}, idx Cols {idx.Cols}")
    for x in named.values():
        x._bound()
    tmp = tmp if R.tail == "drop" else None
    large = S.tail_block(R, src.valid_col, src.Element.itemsize, tmp)
    if (large is None or -(-src.valid_col // 32) % 255) and K.run_tsort32(core, dst, src, idx, tmp):  # the kernel
        return S.tmp_tail(core, dst, src, tmp)
    S.tsort32(core, dst, src, idx, tmp)


def _mrg_checks(core, named: dict, list_tiles: tuple) -> None:
    R, t = core.target.sort, core.target.name
    _tiles("TMRGSORT", t, named)
    dst = named["dst"]
    for name, x in named.items():
        check(8 % x.Element.itemsize == 0, "TMRGSORT: invalid struct size.", t, f"sizeof({x.DType})")
        if R.mrg_dtypes is not None:
            check(x.DType in R.mrg_dtypes, "TMrgsort: Unsupported data type! Supported types is half/float", t,
                  f"{name} holds {x.DType}")
            check(x.DType == dst.DType, "TMrgsort: Destination and Source tile data types must be the same.", t,
                  f"{name} holds {x.DType}")
        check(x.Loc == TileType.Vec, "TMRGSORT: tile type must be Vec.", t, f"{name} is TileType.{x.Loc.name}")
        if R.sim_checks or name != "src3":
            check(x.Rows == 1, "TMRGSORT: tile rows must be 1.", t, f"{name} has {x.Rows} rows")
        check(x.isRowMajor, "TMRGSORT: BLayout must be RowMajor.", t, f"{name} is ColMajor")
    for x in named.values():
        x._bound()


class _TMrgSort:
    """``TMRGSORT(dst, executed, tmp, src0, src1[, src2[, src3]])`` (2 to 4 sorted lists merged;
    ``TMRGSORT[True]`` stops when a list empties: exhausted mode) or ``TMRGSORT(dst, src,
    blockLen)`` (groups of 4 sorted blocks merged in place); docs/sort.md."""

    def __init__(self, exhausted: bool = False, given: bool = False) -> None:
        self.exhausted, self.given = exhausted, given
        self.__doc__ = _TMrgSort.__doc__

    def __getitem__(self, exhausted) -> "_TMrgSort":
        if self.given or not isinstance(exhausted, bool):
            raise PtoCheckError("TMRGSORT[exhausted]: one bool template argument", rule="TMRGSORT template")
        return _TMrgSort(exhausted, True)

    def __repr__(self) -> str:
        return f"TMRGSORT[{self.exhausted}]" if self.given else "TMRGSORT"

    def __call__(self, *args):
        return instruction("TMRGSORT")(self._run)(*args)

    def _run(self, dst, a=None, b=None, s0=None, s1=None, s2=None, s3=None) -> None:
        core = current_core()
        t = core.target.name
        if isinstance(a, Tile) and not isinstance(b, Tile) and s0 is None:     # single list
            if self.given:
                raise PtoCheckError("the single-list TMRGSORT(dst, src, blockLen) has no exhausted parameter",
                                    rule="TMRGSORT forms", target=t)
            if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not 0 <= int(b) < 1 << 32:
                raise PtoCheckError(f"blockLen is a uint32_t, got {b!r}", rule="TMRGSORT operands", target=t)
            _mrg_checks(core, {"dst": dst, "src": a}, ())
            if not K.run_tmrgsort_single(core, dst, a, int(b)):        # native/cupy kernel
                S.tmrgsort_single(core, dst, a, int(b))
            return
        if not isinstance(a, MrgSortExecutedNumList):
            raise PtoCheckError("TMRGSORT(dst, executedNumList, tmp, src0, src1[, src2[, src3]]) or TMRGSORT(dst, "
                                "src, blockLen)", rule="TMRGSORT forms", target=t)
        srcs = [x for x in (s0, s1, s2, s3) if x is not None]
        if len(srcs) < 2:
            raise PtoCheckError("TMRGSORT merges 2 to 4 lists", rule="TMRGSORT forms", target=t)
        named = {"dst": dst, "tmp": b, **{f"src{k}": x for k, x in enumerate(srcs)}}
        _mrg_checks(core, named, tuple(srcs))
        if not K.run_tmrgsort(core, dst, a, b, srcs, self.exhausted):  # native/cupy kernel
            S.tmrgsort(core, dst, a, b, srcs, self.exhausted)


TMRGSORT = _TMrgSort()
