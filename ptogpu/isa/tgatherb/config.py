"""TGATHERB as a fuzz configuration: the generated values are block numbers (byte offsets
``32 * v``) of the offset tile; the src tile holds the table."""
from __future__ import annotations

import numpy as np

from ...execution.instrs.base import Instr, pad_to, prefill


def offset_image(idx: np.ndarray, L: dict) -> np.ndarray:
    """The offset tile from the instance's values: with 0 valid rows the tile keeps its one
    (zero) row and nothing is read from it."""
    shape = L["off_shape"]
    if idx.size == shape[0] * shape[1]:
        return idx.reshape(shape)
    img = np.zeros(shape[0] * shape[1], idx.dtype)
    img[: idx.size] = idx
    return img.reshape(shape)


class TGatherB(Instr):
    name = "tgatherb"

    def off_cols(self, cfg) -> int:
        """Offset tile columns: ceil(VC/B) rounded up to 8 entries (32 bytes)."""
        return pad_to(-(-cfg.cols // (32 // cfg.esize)), 8)

    def n_idx(self, cfg) -> int:
        return cfg.rows * self.off_cols(cfg)

    def cap(self, cfg) -> int:
        return max(cfg.table_size * cfg.esize // 32, 1)       # src blocks

    def label(self, cfg) -> str:
        return f"TGATHERB {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        T, VR, VC = cfg.esize, cfg.rows, cfg.cols
        d = {"src_shape": (1, pad_to(cfg.table_size, 32 // T)), "src_addr": 0,
             "off_shape": (max(VR, 1), self.off_cols(cfg))}
        d["off_addr"] = pad_to(d["src_shape"][1] * T, 32)
        d["dst_shape"] = (max(VR, 1), pad_to(VC, 32 // T))
        d["dst_addr"] = pad_to(d["off_addr"] + d["off_shape"][0] * d["off_shape"][1] * 4, 32)
        return d

    def footprint(self, cfg, L: dict):
        # A2/A3's tail stream stores 8 whole blocks per tail row: up to 256 bytes past the tile
        return {"ub": [(L["dst_addr"], L["dst_addr"] + self.out_bytes(cfg, L) + 256)]}

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        return (np.asarray(values, np.int64) * 32).astype(np.uint32)   # block-granular bytes, mod 2^32

    def program(self, pto, core, cfg, L, T, idx, each, before) -> None:
        SrcT = pto.Tile[pto.TileType.Vec, T, *L["src_shape"]]
        OffT = pto.Tile[pto.TileType.Vec, pto.uint32, *L["off_shape"]]
        DstT = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        src, off, dst = SrcT(), OffT(), DstT()
        pto.TASSIGN(src, L["src_addr"])
        pto.TASSIGN(off, L["off_addr"])
        pto.TASSIGN(dst, L["dst_addr"])
        prefill(core, cfg, dst)
        src.set(np.resize(cfg.table, L["src_shape"]).astype(src.Element))
        off.set(offset_image(idx, L) if core.batch == 1 else np.stack([offset_image(row, L) for row in idx]))
        before()
        pto.TGATHERB(dst, src, off)

    def candidates(self, cfg, vals, r, c):
        g = vals.reshape(cfg.rows, self.off_cols(cfg))
        yield dict(rows=1), g[r:r + 1].reshape(-1)
        yield dict(rows=r + 1), g[: r + 1].reshape(-1)


TGATHERB = TGatherB()
