"""TSORT32 as a fuzz configuration (``ptogpu fuzz --instr tsort32``): the generated values are the
source's bits (every bit pattern: NaN payloads, signed zeros, ties from the generators' duplicate
values) then the idx tile's uint32 values; the output is dst's storage, the (value, index)
records. A campaign across two targets shows the sort's divergences (the tail block, the tie
order), each explained by a rule field of the sort table. TMRGSORT takes sorted lists, which
generated bits are not: it is fuzzed inside kernels (``ptogpu fuzz --kernel``)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import Instr, pad_to


class Tsort32Instr(Instr):
    oobs = ("undefined",)
    execs = ("auto",)
    name = "tsort32"
    defaults = {"rows": 2, "cols": 40, "oob": "undefined", "dtype": "float32"}

    def validate(self, cfg) -> None:
        super().validate(cfg)
        if cfg.rows < 1 or cfg.cols < 1:
            raise ValueError("TSORT32 campaigns need a valid shape of at least 1x1")

    def n_idx(self, cfg) -> int:
        return 2 * cfg.rows * cfg.cols

    def cap(self, cfg) -> int:
        return (1 << 32) - 1

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        """Raw bits; ``program`` gives the source its type and idx uint32."""
        return np.asarray(values, np.int64).view(np.uint64)

    def label(self, cfg) -> str:
        return f"TSORT32 {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        T = cfg.esize
        cols = pad_to(cfg.cols, 32)
        per = 8 // T                                    # dst elements a record takes
        size = pad_to(cfg.rows * cols * T, 32)
        return {"src_shape": (cfg.rows, cols), "dst_shape": (cfg.rows, cols * per), "per": per, "src_addr": 0,
                "idx_addr": size, "dst_addr": size + cfg.rows * cols * 4}

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
        n, (R, C) = cfg.rows * cfg.cols, L["src_shape"]
        src = pto.Tile[V, T, R, C, RM, cfg.rows, cfg.cols]()
        idx = pto.Tile[V, np.dtype(np.uint32), R, C, RM, cfg.rows, cfg.cols]()
        dst = pto.Tile[V, T, *L["dst_shape"]]()
        for t, a in ((src, "src_addr"), (idx, "idx_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        if cfg.dst_fill:
            core.write("ub", L["dst_addr"], bytes([cfg.dst_fill]) * (L["dst_shape"][0] * L["dst_shape"][1] * L["T"]))
        st = dtypes.storage(T)
        src.set(each(vals[..., :n].astype(np.dtype(f"u{st.itemsize}")).view(st), cfg.rows, cfg.cols))
        idx.set(each(vals[..., n:].astype(np.uint32), cfg.rows, cfg.cols))
        before()
        pto.TSORT32(dst, src, idx)

    def positions(self, cfg, L: dict):
        """dst element k as (row, the record's column, valid)."""
        Rr, Cc = L["dst_shape"]
        e = np.arange(Rr * Cc)
        r, c = e // Cc, (e % Cc) // L["per"]
        return r, c, (r < cfg.rows) & (c < cfg.cols)

    def candidates(self, cfg, vals: np.ndarray, r: int, c: int):
        """Row r alone (of src and idx), then rows 0..r."""
        n = cfg.rows * cfg.cols
        parts = [np.asarray(vals)[k * n:(k + 1) * n].reshape(cfg.rows, cfg.cols) for k in range(2)]
        yield dict(rows=1), np.concatenate([p[r:r + 1].reshape(-1) for p in parts])
        yield dict(rows=r + 1), np.concatenate([p[:r + 1].reshape(-1) for p in parts])


TSORT32 = Tsort32Instr()
