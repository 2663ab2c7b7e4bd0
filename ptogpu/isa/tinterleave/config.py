"""TINTERLEAVE as a fuzz configuration: the two sources are the generated data (any value),
the output is both destinations' storage."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import Instr, pad_to, prefill


class TInterleave(Instr):
    name = "tinterleave"

    def n_idx(self, cfg) -> int:
        return 2 * cfg.rows * cfg.cols          # src0 and src1 values

    def cap(self, cfg) -> int:
        return (1 << 32) - 1

    def label(self, cfg) -> str:
        return f"TINTERLEAVE {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        shp = (max(cfg.rows, 1), pad_to(cfg.cols, 32 // cfg.esize))
        n = shp[0] * shp[1] * cfg.esize
        return {"tile_shape": shp, "addrs": [k * pad_to(n, 32) for k in range(4)]}   # src0, src1, dst0, dst1

    def _n(self, L: dict) -> int:
        r, c = L["tile_shape"]
        return r * c * L["T"]

    def needs(self, cfg, L: dict) -> dict[str, int]:
        return {"ub": L["addrs"][3] + self._n(L)}

    def footprint(self, cfg, L: dict):
        n, a = self._n(L), L["addrs"]
        return {"ub": [(a[2], a[2] + n), (a[3], a[3] + n)]}

    def out_bytes(self, cfg, L: dict) -> int:
        return 2 * self._n(L)

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        st = dtypes.storage(dtypes.as_dtype(cfg.dtype))
        return np.asarray(values, np.int64).astype(np.uint64).astype(np.dtype(f"u{st.itemsize}")).view(st)

    def program(self, pto, core, cfg, L, T, idx, each, before) -> None:
        VR, VC = cfg.rows, cfg.cols
        TT = pto.Tile[pto.TileType.Vec, T, *L["tile_shape"], pto.BLayout.RowMajor, VR, VC]
        s0, s1, d0, d1 = TT(), TT(), TT(), TT()
        for t, a in zip((s0, s1, d0, d1), L["addrs"]):
            pto.TASSIGN(t, a)
        prefill(core, cfg, d0)
        prefill(core, cfg, d1)
        half = idx.shape[-1] // 2
        s0.set(each(idx[..., :half], VR, VC))
        s1.set(each(idx[..., half:], VR, VC))
        before()
        pto.TINTERLEAVE(d1, d0, s1, s0)

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        n = self._n(L)
        return np.concatenate([core.read("ub", L["addrs"][2], n), core.read("ub", L["addrs"][3], n)], axis=-1)

    def positions(self, cfg, L: dict):
        r_, c_ = L["tile_shape"]
        e = np.arange(2 * r_ * c_)
        r, c = (e % (r_ * c_)) // c_, e % c_
        return r, c, (r < cfg.rows) & (c < cfg.cols)

    def candidates(self, cfg, vals, r, c):
        g = vals.reshape(2, cfg.rows, cfg.cols)
        yield dict(rows=1), g[:, r:r + 1].reshape(-1)


TINTERLEAVE = TInterleave()
