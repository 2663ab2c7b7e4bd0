"""TCVT as a fuzz configuration (``ptogpu fuzz --instr tcvt --dtype float32 --op int32.rint``):
``dtype`` is the source type, ``op`` the destination type, the RoundMode and optionally the
SaturationMode (``half.floor.off``); the generated values are the source's bits -- every bit
pattern (NaN payloads, infinities, denormals, values past the destination's range) -- and the
output is the destination tile's storage. A campaign across two targets shows the conversion's
divergences, each explained by a rule field of the TCVT table (or a static check that rejects a
side: a pair a target's code does not convert)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import RoundMode, SaturationMode
from ...execution.instrs.base import DataOperands, pad_to
from ..tgather.config import data_cast
from .api import CPU_TYPES
from .semantics_minifloats import F8

ROUNDS = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")
SATS = ("", "on", "off")
DSTS = CPU_TYPES + F8 + dtypes.FOUR_BIT
OPS = tuple(f"{d}.{r}" + (f".{s}" if s else "") for d in DSTS for r in ROUNDS for s in SATS)


def parse(op: str) -> tuple[str, RoundMode, SaturationMode | None]:
    """``DST.ROUND[.SAT]`` as (destination type, RoundMode, SaturationMode or None)."""
    d, r, *s = op.split(".")
    return d, RoundMode[f"CAST_{r.upper()}"], SaturationMode[s[0].upper()] if s else None


class TcvtInstr(DataOperands):
    ops = OPS
    op_form = "DST.ROUND[.SAT] (DST " + "|".join(DSTS) + "; ROUND " + "|".join(ROUNDS) + "; SAT on|off)"
    name = "tcvt"
    defaults = {"rows": 4, "cols": 32, "oob": "undefined", "dtype": "float32", "op": "int32.rint"}

    def n_idx(self, cfg) -> int:
        return cfg.rows * cfg.cols

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        v = data_cast(cfg, values)
        return v & np.uint8(0xF) if dtypes.packed(cfg.dtype) else v    # (a float4 element is a 4-bit code)

    def label(self, cfg) -> str:
        d, r, s = parse(cfg.op)
        sat = f" sat {s.name}" if s is not None else ""
        return f"TCVT {cfg.dtype}->{d} {r.name}{sat} {cfg.target} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        d = parse(cfg.op)[0]
        Ts, Td = cfg.esize, dtypes.as_dtype(d).itemsize          # (sizeof: a float4 byte holds two)
        src, dst = (cfg.rows, pad_to(cfg.cols, 32 // Ts)), (cfg.rows, pad_to(cfg.cols, 32 // Td))
        size = pad_to(src[0] * src[1] * Ts // (2 if dtypes.packed(cfg.dtype) else 1), 32)
        return {"src_shape": src, "dst_shape": dst, "Td": Td, "src_addr": 0, "dst_addr": size,
                "out_bytes": dst[0] * dst[1] * Td // (2 if dtypes.packed(d) else 1)}

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        d, mode, sat = parse(cfg.op)
        V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
        src = pto.Tile[V, T, *L["src_shape"], RM, cfg.rows, cfg.cols]()
        dst = pto.Tile[V, dtypes.as_dtype(d), *L["dst_shape"], RM, cfg.rows, cfg.cols]()
        self.place(pto, core, cfg, L, src, dst, vals, each)
        before()
        pto.TCVT(dst, src, mode, *(() if sat is None else (sat,)))

    def positions(self, cfg, L: dict):
        """Output element k (of the source's size) as the dst element its first byte is in."""
        per_byte = 2 if dtypes.packed(parse(cfg.op)[0]) else 1
        e = np.arange(L["out_bytes"] // L["T"]) * L["T"] * per_byte // L["Td"]
        r, c = e // L["dst_shape"][1], e % L["dst_shape"][1]
        return r, c, (r < cfg.rows) & (c < cfg.cols)


TCVT = TcvtInstr()
