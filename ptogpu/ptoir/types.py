"""PTO IR types read into ptogpu's: element types, ``!pto.tile_buf<...>`` into a Tile class,
``!pto.ptr<T>`` / GM memrefs into a pointer's element type, and back into text."""
from __future__ import annotations

import re

from ..enums import DYNAMIC, BLayout, CompactMode, PadValue, SLayout, TileType
from ..errors import PtoCheckError, PtoIRError

ELEMENT = {"i8": "int8", "ui8": "uint8", "si8": "int8", "i16": "int16", "ui16": "uint16", "si16": "int16",
           "i32": "int32", "ui32": "uint32", "si32": "int32", "i64": "int64", "ui64": "uint64", "si64": "int64",
           "f16": "half", "bf16": "bfloat16", "f32": "float32", "f8E4M3FN": "float8_e4m3", "f8E4M3": "float8_e4m3",
           "f8E5M2": "float8_e5m2", "hif8": "hifloat8", "i1": "uint8"}
"""PTO IR element type -> ptogpu dtype name (PTOAS prints ``f8E4M3`` and ``f8E4M3FN`` alike for
Ascend's E4M3, which is the OCP ``fn`` variant)."""
SPELLING = {v: k for k, v in reversed(list(ELEMENT.items())) if k not in ("i1",) and not k.startswith("si")}
SPELLING["float8_e4m3"] = "f8E4M3FN"

LOC = {"vec": TileType.Vec, "mat": TileType.Mat}
BLAYOUT = {"row_major": BLayout.RowMajor, "col_major": BLayout.ColMajor}
SLAYOUT = {"none_box": SLayout.NoneBox, "row_major": SLayout.RowMajor, "col_major": SLayout.ColMajor}
PAD = {0: "Null", 1: "Zero", 2: "Max", 3: "Min"}
COMPACT = {0: "Null", 1: "Normal", 2: "RowPlusOne"}
"""``compact=N`` of a tile_buf (PTOAttrs.td CompactMode: 0 null, 1 normal, 2 row_plus_one)."""
"""``pad=N`` of a tile_buf: the tile's ``PadValue`` (PTOTypeDefs.td: 0 null, 1 zero, 2 max,
3 min; a custom pad value has no spelling there)."""


def element(text: str, where: str) -> str:
    """The ptogpu dtype name of PTO IR element type ``text``."""
    name = ELEMENT.get(text.strip())
    if name is None:
        raise PtoIRError(f"{where}: element type {text.strip()!r} is not one ptogpu has "
                         f"({', '.join(sorted(set(ELEMENT) - {'i1'}))})")
    return name


def _fields(text: str, head: str, where: str) -> dict:
    m = re.fullmatch(rf"!pto\.{head}<(.*)>", text.strip(), re.S)
    if m is None:
        raise PtoIRError(f"{where}: expected a !pto.{head}<...> type, got {text.strip()[:60]!r}")
    parts = [p.strip() for p in m.group(1).split(",")]
    if head == "tile_buf" and parts and "=" not in parts[0]:
        return _compact_tile_buf(parts, where)
    out = {}
    for part in parts:
        k, eq, v = part.partition("=")
        if not eq:
            raise PtoIRError(f"{where}: !pto.{head} field {part!r} is not key=value")
        out[k.strip()] = v.strip()
    return out


def _compact_tile_buf(parts: list, where: str) -> dict:
    """PTOAS's compact tile_buf syntax (what its printer writes, PTOTypeDefs.cpp
    parseCompactTileBufFields): ``<LOC, RxCxT[, valid=VRxVC][, blayout=..][, slayout=..]
    [, fractal=N][, pad=N][, compact=N]>``, as the key=value fields of the long form."""
    shape = re.fullmatch(r"(\d+)x(\d+)x(.+)", parts[1]) if len(parts) > 1 else None
    if shape is None:
        raise PtoIRError(f"{where}: tile_buf <{', '.join(parts)[:60]}>: expected <loc, RxCxT, ...> "
                         "(two static dims and the element type) or the key=value form")
    out = {"loc": parts[0], "rows": shape.group(1), "cols": shape.group(2), "dtype": shape.group(3)}
    for part in parts[2:]:
        k, eq, v = (x.strip() for x in part.partition("="))
        if not eq or k not in ("valid", "blayout", "slayout", "fractal", "pad", "compact"):
            raise PtoIRError(f"{where}: unknown key in tile_buf compact syntax: {part!r}")
        if k in out or (k == "valid" and "v_row" in out):
            raise PtoIRError(f"{where}: duplicate {k} in tile_buf compact syntax")
        if k == "valid":
            vs = re.fullmatch(r"(\d+|\?)x(\d+|\?)", v)
            if vs is None:
                raise PtoIRError(f"{where}: tile_buf valid must have exactly two dims, got {v!r}")
            out["v_row"], out["v_col"] = vs.group(1), vs.group(2)
        else:
            out[k] = v
    return out


def _dim(v: str, what: str, where: str) -> int:
    if v == "?":
        return DYNAMIC
    try:
        return int(v)
    except ValueError:
        raise PtoIRError(f"{where}: tile_buf {what}={v!r} is not a whole number or ?") from None


def tile_class(text: str, where: str) -> tuple[type, int]:
    """The Tile class ``!pto.tile_buf<...>`` names (its ``pad=`` as the class's PadVal), and
    that pad value's number."""
    from ..tile import Tile
    f = _fields(text, "tile_buf", where)
    need = ("loc", "dtype", "rows", "cols")
    miss = [k for k in need if k not in f]
    if miss:
        raise PtoIRError(f"{where}: tile_buf without {', '.join(miss)}")
    odd = set(f) - {"loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad",
                    "compact"}
    if odd:
        raise PtoIRError(f"{where}: tile_buf field {sorted(odd)[0]!r} is not one ptogpu reads")
    loc = LOC.get(f["loc"])
    if loc is None:
        raise PtoIRError(f"{where}: tile_buf loc={f['loc']} is not emulated (vec, mat)")
    for key, table in (("blayout", BLAYOUT), ("slayout", SLAYOUT)):
        if f.get(key, next(iter(table))) not in table:
            raise PtoIRError(f"{where}: tile_buf {key}={f[key]} is not one of {', '.join(table)}")
    pad = _dim(f.get("pad", "0"), "pad", where)
    if pad not in PAD:
        raise PtoIRError(f"{where}: tile_buf pad={pad} is not a PadValue (0 null, 1 zero, 2 max, 3 min)")
    compact = _dim(f.get("compact", "0"), "compact", where)
    if compact not in COMPACT:
        raise PtoIRError(f"{where}: tile_buf compact={compact} is not a CompactMode (0 null, 1 normal, "
                         "2 row_plus_one)")
    rows, cols = _dim(f["rows"], "rows", where), _dim(f["cols"], "cols", where)
    if DYNAMIC in (rows, cols):
        raise PtoIRError(f"{where}: tile_buf rows and cols must be static")
    try:
        cls = Tile[loc, element(f["dtype"], where), rows, cols, BLAYOUT[f.get("blayout", "row_major")],
                   _dim(f.get("v_row", str(rows)), "v_row", where), _dim(f.get("v_col", str(cols)), "v_col", where),
                   SLAYOUT[f.get("slayout", "none_box")], _dim(f.get("fractal", "512"), "fractal", where),
                   PadValue(pad), CompactMode(compact)]
    except PtoIRError:
        raise
    except (TypeError, ValueError) as e:
        raise PtoIRError(f"{where}: tile_buf {e}") from None
    except PtoCheckError as e:                    # (pto_tile.hpp's static_asserts)
        raise PtoCheckError(f"{where}: {e}") from None
    return cls, pad


def tile_text(cls) -> str:
    """``!pto.tile_buf<...>`` of a Tile class (a custom pad value has no spelling: PtoIRError)."""
    if not isinstance(cls.PadVal, PadValue):
        raise PtoIRError(f"{cls.__name__}: a custom pad value ({cls.PadVal!r}) has no PTO IR spelling "
                         "(tile_buf pad= is 0 null, 1 zero, 2 max or 3 min)")
    pad = int(cls.PadVal)
    rv = "?" if cls.ValidRow == DYNAMIC else cls.ValidRow
    cv = "?" if cls.ValidCol == DYNAMIC else cls.ValidCol
    loc = {v: k for k, v in LOC.items()}[cls.Loc]
    bl = {v: k for k, v in BLAYOUT.items()}[cls.BLayout]
    sl = {v: k for k, v in SLAYOUT.items()}[cls.SLayout]
    return (f"!pto.tile_buf<loc={loc}, dtype={SPELLING[cls.DType]}, rows={cls.Rows}, cols={cls.Cols}, "
            f"v_row={rv}, v_col={cv}, blayout={bl}, slayout={sl}, fractal={cls.SFractalSize}, pad={pad}"
            + (f", compact={int(cls.Compact)}" if cls.Compact else "") + ">")


def pointer_element(text: str, where: str) -> str | None:
    """The element type of a GM pointer argument (``!pto.ptr<T>`` or a GM ``memref<..xT, ..>``),
    or None for a scalar argument."""
    t = text.strip()
    m = re.fullmatch(r"!pto\.ptr<(\w+)>", t)
    if m:
        return element(m.group(1), where)
    m = re.fullmatch(r"memref<(?:[0-9?]+x)*(\w+)(,.*)?>", t, re.S)
    if m:
        if m.group(2) and "gm" not in m.group(2):
            raise PtoIRError(f"{where}: a memref argument must be in GM (#pto.address_space<gm>)")
        return element(m.group(1), where)
    return None


def view_element(text: str, where: str) -> tuple[list, str]:
    """Shape and element type of ``!pto.tensor_view<AxBxT>`` / ``!pto.partition_tensor_view<...>``."""
    m = re.fullmatch(r"!pto\.(?:partition_)?tensor_view<((?:[0-9?]+x)*)(\w+)>", text.strip())
    if m is None:
        raise PtoIRError(f"{where}: expected a !pto.tensor_view<...> type, got {text.strip()[:60]!r}")
    dims = [DYNAMIC if d == "?" else int(d) for d in m.group(1).split("x") if d]
    return dims, element(m.group(2), where)


def scalar(text: str) -> str | None:
    """ptogpu dtype name of a scalar type, ``index`` for index, None for anything else."""
    t = text.strip()
    if t == "index":
        return "index"
    return ELEMENT.get(t)
