"""TMOV Vec -> Vec as a fuzz configuration (``ptogpu fuzz --instr tmov [--op DST_TYPE]``): the
generated values are src's bits over its valid region; ``op`` names dst's element type when it
differs from src's (the simulator converts the value, the NPUs refuse a size change); the
output is dst's storage, padding included (``--dst-fill`` shows which bytes a target's copy
writes). A campaign across two targets shows the move's divergences, each explained by a rule
field of the TMOV table (or a static check that rejects a side)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import DataOperands, pad_to
from ..tcvt.api import CPU_TYPES
from ..tgather.config import data_cast


class TmovInstr(DataOperands):
    ops = ("",) + CPU_TYPES
    name = "tmov"
    defaults = {"rows": 4, "cols": 20, "oob": "undefined", "dtype": "float32", "dst_fill": 0xAB}

    def dst_type(self, cfg) -> str:
        return cfg.op or cfg.dtype

    def n_idx(self, cfg) -> int:
        return cfg.rows * cfg.cols

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        return data_cast(cfg, values)

    def label(self, cfg) -> str:
        to = f"->{cfg.op}" if cfg.op else ""
        return f"TMOV Vec->Vec {cfg.target} {cfg.dtype}{to} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        # one storage shape for both tiles (A2/A3's static_assert), wide enough for either type
        Td = dtypes.as_dtype(self.dst_type(cfg)).itemsize
        shape = (cfg.rows, pad_to(cfg.cols, 32 // min(cfg.esize, Td)))
        size = pad_to(shape[0] * shape[1] * cfg.esize, 32)
        return {"dst_shape": shape, "Td": Td, "src_addr": 0, "dst_addr": size, "out_bytes": shape[0] * shape[1] * Td}

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
        src = pto.Tile[V, T, *L["dst_shape"], RM, cfg.rows, cfg.cols]()
        dst = pto.Tile[V, dtypes.as_dtype(self.dst_type(cfg)), *L["dst_shape"], RM, cfg.rows, cfg.cols]()
        self.place(pto, core, cfg, L, src, dst, vals, each)
        before()
        pto.TMOV(dst, src)

    def positions(self, cfg, L: dict):
        """Output element k (of src's size) as the dst element its first byte is in."""
        e = np.arange(L["out_bytes"] // L["T"]) * L["T"] // L["Td"]
        r, c = e // L["dst_shape"][1], e % L["dst_shape"][1]
        return r, c, (r < cfg.rows) & (c < cfg.cols)


TMOV = TmovInstr()
