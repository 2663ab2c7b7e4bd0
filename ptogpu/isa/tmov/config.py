"""TMOV Vec -> Vec as a fuzz configuration (``ptogpu fuzz --instr tmov [--op DST_TYPE]``): the
generated values are src's bits over its valid region; ``op`` names dst's element type when it
differs from src's (the simulator converts the value, the NPUs refuse a size change); the
output is dst's storage, padding included (``--dst-fill`` shows which bytes a target's copy
writes). ``--space l1``: Vec -> Mat, dst an NZ tile in L1 (rows and columns padded to whole
fractals), its L1 bytes the output; with ``--layout nz`` the source is an NZ tile 16 rows taller
than dst (A5's bursts then skip a gap per column block). A campaign across two targets shows the move's divergences, each explained by a rule
field of the TMOV table (or a static check that rejects a side)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import LAYOUTS, DataOperands, pad_to
from ..tcvt.api import CPU_TYPES
from ..tgather.config import data_cast


class TmovInstr(DataOperands):
    ops = ("",) + CPU_TYPES
    name = "tmov"
    defaults = {"rows": 4, "cols": 20, "oob": "undefined", "dtype": "float32", "dst_fill": 0xAB}
    spaces = ("ub", "l1")

    def layouts(self, cfg) -> tuple[str, ...]:
        return ("nd", "nz") if cfg.space == "l1" else ("nd",)      # (the NZ-source Vec -> Mat form)

    def dst_type(self, cfg) -> str:
        return cfg.op or cfg.dtype

    def n_idx(self, cfg) -> int:
        return cfg.rows * cfg.cols

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        return data_cast(cfg, values)

    def label(self, cfg) -> str:
        to = f"->{cfg.op}" if cfg.op else ""
        nz = " from NZ" if cfg.layout == "nz" else ""
        return (f"TMOV Vec->{'Mat' if cfg.space == 'l1' else 'Vec'}{nz} {cfg.target} {cfg.dtype}{to} "
                f"{cfg.rows}x{cfg.cols}")

    def layout(self, cfg) -> dict:
        # one storage shape for both tiles (A2/A3's static_assert), wide enough for either type
        Td = dtypes.as_dtype(self.dst_type(cfg)).itemsize
        shape = (cfg.rows, pad_to(cfg.cols, 32 // min(cfg.esize, Td)))
        if cfg.space == "l1":                       # whole fractals: 16 rows by 32 bytes
            shape = (pad_to(cfg.rows, 16), pad_to(cfg.cols, max(16, 32 // min(cfg.esize, Td))))
        size = pad_to(shape[0] * shape[1] * cfg.esize, 32)
        L = {"dst_shape": shape, "Td": Td, "src_addr": 0, "dst_addr": 0 if cfg.space == "l1" else size,
             "out_bytes": shape[0] * shape[1] * Td}
        if cfg.layout == "nz":
            L["src_shape"] = (shape[0] + 16, shape[1])
        return L

    def needs(self, cfg, L: dict) -> dict[str, int]:
        if cfg.space != "l1":
            return super().needs(cfg, L)
        r, c = L.get("src_shape", L["dst_shape"])
        return {"ub": r * c * L["T"], "l1": L["out_bytes"]}

    def footprint(self, cfg, L: dict):
        return {"l1": [(L["dst_addr"], L["dst_addr"] + L["out_bytes"])]} if cfg.space == "l1" else \
            super().footprint(cfg, L)

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        return core.read("l1", L["dst_addr"], L["out_bytes"]) if cfg.space == "l1" else super().read_out(core, cfg, L)

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
        bl, sl = (getattr(pto.BLayout, LAYOUTS[cfg.layout][0]), getattr(pto.SLayout, LAYOUTS[cfg.layout][1]))
        src = pto.Tile[V, T, *L.get("src_shape", L["dst_shape"]), bl, cfg.rows, cfg.cols, sl]()
        Td = dtypes.as_dtype(self.dst_type(cfg))
        dst = (pto.Tile[pto.TileType.Mat, Td, *L["dst_shape"], pto.BLayout.ColMajor, cfg.rows, cfg.cols,
                        pto.SLayout.RowMajor]() if cfg.space == "l1" else
               pto.Tile[V, Td, *L["dst_shape"], RM, cfg.rows, cfg.cols]())
        self.place(pto, core, cfg, L, src, dst, vals, each)
        before()
        pto.TMOV(dst, src)

    def positions(self, cfg, L: dict):
        """Output element k (of src's size) as the dst element its first byte is in."""
        e = np.arange(L["out_bytes"] // L["T"]) * L["T"] // L["Td"]
        r, c = e // L["dst_shape"][1], e % L["dst_shape"][1]
        return r, c, (r < cfg.rows) & (c < cfg.cols)


TMOV = TmovInstr()
