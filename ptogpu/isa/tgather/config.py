"""TGATHER (index form) as a fuzz configuration: the generated values are the index tile;
src0 is a 1 x table_size tile holding the table (1..97 repeating), so a value names the
element it read; the output is the destination's storage."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import Instr, pad_to, prefill


class TGatherIndex(Instr):
    name = "tgather"
    oobs = ("undefined",)
    execs = ("auto",)
    defaults = {"rows": 4, "cols": 32, "table_size": 256, "oob": "undefined"}

    def validate(self, cfg) -> None:
        super().validate(cfg)
        if cfg.table_size < 1:
            raise ValueError("TGATHER needs a src0 of at least one element (table_size >= 1)")

    def formula_fields(self, cfg):
        return None

    def n_idx(self, cfg) -> int:
        return cfg.rows * cfg.cols

    def cap(self, cfg) -> int:
        return cfg.table_size

    def label(self, cfg) -> str:
        return f"TGATHER {cfg.target} {cfg.dtype}/{cfg.index_dtype} {cfg.rows}x{cfg.cols} src0 {cfg.table_size}"

    def layout(self, cfg) -> dict:
        T, I = cfg.esize, dtypes.as_dtype(cfg.index_dtype).itemsize
        d = {"src_shape": (1, pad_to(cfg.table_size, 32 // T)), "src_addr": 0}
        d["idx_shape"] = (max(cfg.rows, 1), pad_to(cfg.cols, 32 // I))
        d["idx_addr"] = pad_to(d["src_shape"][1] * T, 32)
        d["tmp_addr"] = pad_to(d["idx_addr"] + d["idx_shape"][0] * d["idx_shape"][1] * I, 32)
        d["dst_shape"] = (max(cfg.rows, 1), pad_to(cfg.cols, 32 // T))
        tmp_bytes = max(d["idx_shape"][0] * d["idx_shape"][1] * I, d["dst_shape"][0] * d["dst_shape"][1] * 4)
        d["dst_addr"] = pad_to(d["tmp_addr"] + tmp_bytes, 32)        # (A2/A3 writes its scratch in tmp)
        return d

    def footprint(self, cfg, L: dict):
        r, c = L["dst_shape"]
        return {"ub": [(L["tmp_addr"], L["dst_addr"]), (L["dst_addr"], L["dst_addr"] + r * c * L["T"])]}

    def program(self, pto, core, cfg, L, T, idx, each, before) -> None:
        I = dtypes.as_dtype(cfg.index_dtype)
        SrcT = pto.Tile[pto.TileType.Vec, T, *L["src_shape"]]
        IdxT = pto.Tile[pto.TileType.Vec, I, *L["idx_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        DstT = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        src, ix, tmp, dst = SrcT(), IdxT(), IdxT(), DstT()
        for t, a in ((src, "src_addr"), (ix, "idx_addr"), (tmp, "tmp_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        prefill(core, cfg, dst)
        src.set(np.resize(cfg.table, L["src_shape"]).astype(src.Element))
        ix.set(each(idx, cfg.rows, cfg.cols))
        before()
        pto.TGATHER(dst, src, ix, tmp)


TGATHER = TGatherIndex()
