"""TSCATTER (index form) as a fuzz configuration: the generated values are the index tile (dst
element offsets); src holds 1, 2, 3, ... (distinct: a survivor names its writer); dst is a
1 x table_size tile, placed last in UB's used bytes, so an index past it writes free UB."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import pad_to, prefill
from ..tgather.config import MaskForms, mask_of


class TScatterIndex(MaskForms):
    name = "tscatter"
    oobs = ("undefined",)
    execs = ("auto",)
    writes_by_index = True
    defaults = {"rows": 4, "cols": 32, "table_size": 256, "dtype": "int32", "oob": "undefined"}

    def label(self, cfg) -> str:
        if cfg.mask:
            return f"TSCATTER[{cfg.mask}] {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"
        return f"TSCATTER {cfg.target} {cfg.dtype}/{cfg.index_dtype} {cfg.rows}x{cfg.cols} dst {cfg.table_size}"

    def mask_layout(self, cfg) -> dict:
        """src rows x cols; dst rows x cols*times (ROW) or rows*times x cols (COL), the shapes
        each target's asserts ask; the output runs 256 bytes past dst (A2/A3's 2*VC-byte COL
        rows of 1-byte data)."""
        pattern, axis = mask_of(cfg)
        T, F = cfg.esize, pattern.factor
        src = (max(cfg.rows, 1), pad_to(cfg.cols, 32 // T))
        valid = (cfg.rows, cfg.cols * F) if axis == 0 else (cfg.rows * F, cfg.cols)
        dst = (max(valid[0], 1), pad_to(max(valid[1], 1), 32 // T))
        return {"src_shape": src, "src_addr": 0, "dst_shape": dst, "dst_valid": valid,
                "dst_addr": pad_to(src[0] * src[1] * T, 256), "span": dst[0] * dst[1] * T + 256}

    def needs(self, cfg, L: dict) -> dict[str, int]:
        return {"ub": L["dst_addr"] + L["span"]} if cfg.mask else super().needs(cfg, L)

    def layout(self, cfg) -> dict:
        if cfg.mask:
            return self.mask_layout(cfg)
        T, I = cfg.esize, dtypes.as_dtype(cfg.index_dtype).itemsize
        d = {"src_shape": (max(cfg.rows, 1), pad_to(cfg.cols, 32 // T)), "src_addr": 0}
        d["idx_shape"] = (max(cfg.rows, 1), pad_to(cfg.cols, 32 // I))
        d["idx_addr"] = pad_to(d["src_shape"][0] * d["src_shape"][1] * T, 32)
        d["dst_shape"] = (1, pad_to(cfg.table_size, 32 // T))
        # dst after a gap of its own size: A2/A3's small negative indices land there, not in the
        # index or source tiles (which would make the scalar loop's order matter: its own tests)
        d["dst_addr"] = pad_to(d["idx_addr"] + d["idx_shape"][0] * d["idx_shape"][1] * I + cfg.table_size * T, 256)
        return d

    def footprint(self, cfg, L: dict):
        if cfg.mask:
            return {"ub": [(L["dst_addr"], L["dst_addr"] + L["span"])]}
        # every tile (A2/A3's negative indices reach below dst); an index past dst writes free
        # UB, which the stray-write watch sees (the core is then not reused)
        r, c = L["dst_shape"]
        return {"ub": [(0, L["dst_addr"] + r * c * L["T"])]}

    def program(self, pto, core, cfg, L, T, idx, each, before) -> None:
        if cfg.mask:
            return self.mask_program(pto, core, cfg, L, T, idx, each, before,
                                     lambda p, a, dst, src: pto.TSCATTER[p, pto.ScatterAxis(a)](dst, src))
        I = dtypes.as_dtype(cfg.index_dtype)
        SrcT = pto.Tile[pto.TileType.Vec, T, *L["src_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        IdxT = pto.Tile[pto.TileType.Vec, I, *L["idx_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        DstT = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"]]
        src, ix, dst = SrcT(), IdxT(), DstT()
        for t, a in ((src, "src_addr"), (ix, "idx_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        prefill(core, cfg, dst)
        src.set((np.arange(cfg.rows * cfg.cols) % 97 + 1).astype(src.Element).reshape(cfg.rows, cfg.cols))
        ix.set(each(idx, cfg.rows, cfg.cols))
        before()
        pto.TSCATTER(dst, src, ix)


TSCATTER = TScatterIndex()
