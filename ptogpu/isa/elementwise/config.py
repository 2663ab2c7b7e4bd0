"""The element-wise tile-tile, unary and tile-scalar calls as fuzz configurations (``ptogpu fuzz
--instr tadd``, ``tadds`` ...): the generated values are the sources' data -- every bit pattern of
the element type (NaN payloads, signed zeros, denormals, the integer edges) -- src0 first, then
src1, or src then the scalar's bits (a value per instance: on a core of N the scalar is an
``InstanceValues``, as ``tile.data()[i]`` reads it); the output is dst's storage. A campaign across two targets shows each call's divergences, each
explained by a rule field of the element-wise table (or a static check that rejects a side)."""
from __future__ import annotations

import numpy as np

from ...execution.instrs.base import DataOperands, pad_to
from ..tgather.config import data_cast
from ...instance_values import InstanceValues
from .api import BINARY, SCALAR, UNARY


class ElementwiseInstr(DataOperands):
    """One call; ``arity`` 2 (tile-tile; TXOR with its tmp) or 1 (unary, and the scalar forms,
    whose scalar is one more generated value)."""

    def __init__(self, call: str) -> None:
        self.call = call
        self.name = call.lower()
        self.arity = 2 if call in BINARY else 1
        self.scalar = call in SCALAR
        self.defaults = {"rows": 4, "cols": 32, "oob": "undefined", "dtype": "int32" if call in (
            "TAND", "TOR", "TXOR", "TSHL", "TSHR", "TNOT", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS") else "float32"}

    def n_idx(self, cfg) -> int:
        return self.arity * cfg.rows * cfg.cols + self.scalar

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        return data_cast(cfg, values)

    def label(self, cfg) -> str:
        return f"{self.call} {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        T = cfg.esize
        shape = (cfg.rows, pad_to(cfg.cols, 32 // T))
        size = pad_to(shape[0] * shape[1] * T, 32)
        return {"dst_shape": shape, "src_shape": shape, "src0_addr": 0, "src1_addr": size, "tmp_addr": 2 * size,
                "dst_addr": 3 * size}

    def footprint(self, cfg, L: dict):
        """dst, and tmp (A2/A3's TXOR writes src0 | src1 there)."""
        r, c = L["dst_shape"]
        n = r * c * L["T"]
        return {"ub": [(L["dst_addr"], L["dst_addr"] + n), (L["tmp_addr"], L["tmp_addr"] + n)]}

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        n = cfg.rows * cfg.cols
        Tile = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        s0, s1, tmp, dst = Tile(), Tile(), Tile(), Tile()
        for t, a in ((s0, "src0_addr"), (s1, "src1_addr"), (tmp, "tmp_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        if cfg.dst_fill:
            core.write("ub", L["dst_addr"], bytes([cfg.dst_fill]) * (L["dst_shape"][0] * L["dst_shape"][1] * L["T"]))
        s0.set(each(vals[..., :n], cfg.rows, cfg.cols))
        if self.arity == 2:
            s1.set(each(vals[..., n:], cfg.rows, cfg.cols))
        if self.scalar:                 # C++: T s = src1.GetValue(0), a value per instance
            s = vals[..., n]
            s = InstanceValues(core, s) if np.ndim(s) else s[()]
        before()
        fn = getattr(pto, self.call)
        if self.scalar:
            fn(dst, s0, s, tmp) if self.call == "TXORS" else fn(dst, s0, s)
        elif self.arity == 1:
            fn(dst, s0)
        elif self.call == "TXOR":
            fn(dst, s0, s1, tmp)
        else:
            fn(dst, s0, s1)

    def candidates(self, cfg, vals: np.ndarray, r: int, c: int):
        """Row r alone (of each source; the scalar kept), then rows 0..r."""
        n = cfg.rows * cfg.cols
        parts = [vals[k * n:(k + 1) * n].reshape(cfg.rows, cfg.cols) for k in range(self.arity)]
        s = vals[n * self.arity:]                   # (an array: an empty list would make the rows float64)
        yield dict(rows=1), np.concatenate([p[r:r + 1].reshape(-1) for p in parts] + [s])
        yield dict(rows=r + 1), np.concatenate([p[:r + 1].reshape(-1) for p in parts] + [s])


class FillInstr(DataOperands):
    """TEXPANDS(dst, scalar) and TCI[Tile, T, descending](dst, start): the one generated value is
    the scalar's bits (a value per instance); dst holds ``dst_fill`` beforehand (0xAB by
    default), so the elements a target writes past the valid region show. TCI's ``op`` is
    ``desc`` for a descending sequence; its tile has one row."""

    def __init__(self, call: str) -> None:
        self.call, self.name = call, call.lower()
        self.ops = ("", "desc") if call == "TCI" else ("",)
        self.defaults = {"rows": 1 if call == "TCI" else 4, "cols": 40 if call == "TCI" else 20, "oob": "undefined",
                         "dtype": "int32" if call == "TCI" else "int8", "dst_fill": 0xAB}

    def validate(self, cfg) -> None:
        super().validate(cfg)
        if cfg.rows < 1 or cfg.cols < 1 or (self.call == "TCI" and cfg.rows != 1):
            raise ValueError(f"{self.call} campaigns need a valid shape of at least 1x1"
                             + (" and one row (TCI: TileData::Rows == 1)" if self.call == "TCI" else ""))

    def n_idx(self, cfg) -> int:
        return 1

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        return data_cast(cfg, values)

    def label(self, cfg) -> str:
        return f"{self.call}{' descending' if cfg.op else ''} {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        return {"dst_shape": (cfg.rows, pad_to(cfg.cols, 32 // cfg.esize)), "dst_addr": 0}

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        Tile = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        dst = Tile()
        pto.TASSIGN(dst, L["dst_addr"])
        if cfg.dst_fill:
            core.write("ub", L["dst_addr"], bytes([cfg.dst_fill]) * (L["dst_shape"][0] * L["dst_shape"][1] * L["T"]))
        s = vals[..., 0]                 # C++: T s = src.GetValue(0), a value per instance
        s = InstanceValues(core, s) if np.ndim(s) else s[()]
        before()
        if self.call == "TCI":
            pto.TCI[Tile, T, int(cfg.op == "desc")](dst, s)
        else:
            pto.TEXPANDS(dst, s)

    def candidates(self, cfg, vals: np.ndarray, r: int, c: int):
        """Row r's width alone, then rows 0..r (the scalar kept)."""
        yield dict(rows=1), vals
        yield dict(rows=r + 1), vals


globals().update({c: ElementwiseInstr(c) for c in (*BINARY, *UNARY, *SCALAR)})
TEXPANDS, TCI = FillInstr("TEXPANDS"), FillInstr("TCI")
