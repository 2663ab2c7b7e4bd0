"""TSORT32 as a fuzz configuration (``ptogpu fuzz --instr tsort32``): the generated values are the
source's bits (every bit pattern: NaN payloads, signed zeros, ties from the generators' duplicate
values) then the idx tile's uint32 values; the output is dst's storage, the (value, index)
records. A campaign across two targets shows the sort's divergences (the tail block, the tie
order), each explained by a rule field of the sort table.

TMRGSORT (``ptogpu fuzz --instr tmrgsort [--op exhausted]``) merges two lists of ``cols``
records: the generated values are the lists' keys, each list sorted descending (NumPy's order,
NaNs last) with its positions as indices, as a TSORT32 before it would leave them; the output
is dst's storage and the executed counts."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...execution.instrs.base import DataOperands, pad_to


class Tsort32Instr(DataOperands):
    ops = ("", "tmp")
    name = "tsort32"
    defaults = {"rows": 2, "cols": 40, "oob": "undefined", "dtype": "float32"}

    def n_idx(self, cfg) -> int:
        return 2 * cfg.rows * cfg.cols

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        """Raw bits; ``program`` gives the source its type and idx uint32."""
        return np.asarray(values, np.int64).view(np.uint64)

    def label(self, cfg) -> str:
        return f"TSORT32{' with tmp' if cfg.op else ''} {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"

    def layout(self, cfg) -> dict:
        """``op`` "tmp": the 4-operand form, a tmp tile after dst (room for a row, its pad and 32
        more), whose bytes follow dst's in the output."""
        T = cfg.esize
        cols = pad_to(cfg.cols, 32)
        per = 8 // T                                    # dst elements a record takes
        size = pad_to(cfg.rows * cols * T, 32)
        L = {"src_shape": (cfg.rows, cols), "dst_shape": (cfg.rows, cols * per), "per": per, "src_addr": 0,
             "idx_addr": size, "dst_addr": size + cfg.rows * cols * 4}
        if cfg.op == "tmp":
            dst_bytes = cfg.rows * cols * per * T
            L.update(tmp_addr=L["dst_addr"] + dst_bytes, tmp_cols=cols + 64,
                     out_bytes=dst_bytes + (cols + 64) * T)
        return L

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
        n, (R, C) = cfg.rows * cfg.cols, L["src_shape"]
        src = pto.Tile[V, T, R, C, RM, cfg.rows, cfg.cols]()
        idx = pto.Tile[V, np.dtype(np.uint32), R, C, RM, cfg.rows, cfg.cols]()
        dst = pto.Tile[V, T, *L["dst_shape"]]()
        for t, a in ((src, "src_addr"), (idx, "idx_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        tmp = None
        if cfg.op == "tmp":
            tmp = pto.Tile[V, T, 1, L["tmp_cols"]]()
            pto.TASSIGN(tmp, L["tmp_addr"])
        if cfg.dst_fill:
            core.write("ub", L["dst_addr"], bytes([cfg.dst_fill]) * self.out_bytes(cfg, L))
        st = dtypes.storage(T)
        src.set(each(vals[..., :n].astype(np.dtype(f"u{st.itemsize}")).view(st), cfg.rows, cfg.cols))
        idx.set(each(vals[..., n:].astype(np.uint32), cfg.rows, cfg.cols))
        before()
        pto.TSORT32(dst, src, idx, *(() if tmp is None else (tmp,)))

    def positions(self, cfg, L: dict):
        """dst element k as (row, the record's column, valid); tmp's elements as the last row's
        columns (its copy), not valid."""
        Rr, Cc = L["dst_shape"]
        e = np.arange(self.out_bytes(cfg, L) // L["T"])
        r, c = e // Cc, (e % Cc) // L["per"]
        in_dst = e < Rr * Cc
        r, c = np.where(in_dst, r, cfg.rows - 1), np.where(in_dst, c, e - Rr * Cc)
        return r, c, in_dst & (r < cfg.rows) & (c < cfg.cols)

    def candidates(self, cfg, vals: np.ndarray, r: int, c: int):
        """Row r alone (of src and idx), then rows 0..r."""
        n = cfg.rows * cfg.cols
        parts = [np.asarray(vals)[k * n:(k + 1) * n].reshape(cfg.rows, cfg.cols) for k in range(2)]
        yield dict(rows=1), np.concatenate([p[r:r + 1].reshape(-1) for p in parts])
        yield dict(rows=r + 1), np.concatenate([p[:r + 1].reshape(-1) for p in parts])


class TmrgsortInstr(DataOperands):
    ops = ("", "exhausted")
    name = "tmrgsort"
    defaults = {"rows": 1, "cols": 24, "oob": "undefined", "dtype": "float32", "dst_fill": 0xAB}

    def validate(self, cfg) -> None:
        super().validate(cfg)
        if cfg.rows != 1 or cfg.cols < 1:
            raise ValueError("TMRGSORT campaigns merge two lists of cols >= 1 records: one row")

    def n_idx(self, cfg) -> int:
        return 2 * cfg.cols

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        return np.asarray(values, np.int64).view(np.uint64)

    def label(self, cfg) -> str:
        return f"TMRGSORT{'[exhausted]' if cfg.op else ''} {cfg.target} {cfg.dtype} 2 lists of {cfg.cols}"

    def layout(self, cfg) -> dict:
        per = 8 // cfg.esize                            # elements a record takes
        n = pad_to(cfg.cols * per, 32 // cfg.esize)
        size = n * cfg.esize
        return {"list_cols": n, "dst_shape": (1, 2 * n), "per": per, "src0_addr": 0, "src1_addr": size,
                "tmp_addr": 2 * size, "dst_addr": 4 * size}

    def out_bytes(self, cfg, L: dict) -> int:
        return L["dst_shape"][1] * L["T"] + 8

    def footprint(self, cfg, L: dict):
        n = L["dst_shape"][1] * L["T"]
        return {"ub": [(L["dst_addr"], L["dst_addr"] + n), (L["tmp_addr"], L["tmp_addr"] + n)]}

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        """dst's bytes, then the executed counts of the two lists (uint32 each)."""
        n = L["dst_shape"][1] * L["T"]
        got = core.read("ub", L["dst_addr"], n)
        ex = getattr(self, "_executed", None)           # (this run's list, set by program)
        vals = ex._vals if ex is not None and ex._vals is not None else np.zeros((core.batch, 4), np.int64)
        counts = np.ascontiguousarray(vals[:, :2].astype("<u4")).view(np.uint8)
        return np.concatenate([got, counts.reshape(got.shape[:-1] + (8,))], -1)

    def records(self, cfg, T, vals: np.ndarray) -> list[np.ndarray]:
        """The two lists' records (storage words of T), keys sorted descending."""
        st = dtypes.storage(T)
        u = np.dtype(f"u{st.itemsize}")
        out = []
        for k in range(2):
            keys = vals[..., k * cfg.cols:(k + 1) * cfg.cols].astype(u).view(st).view(T)
            with np.errstate(invalid="ignore"):        # (NaN keys: sorted last)
                order = np.argsort(-keys.astype(np.float64), axis=-1, kind="stable")
            keys = np.take_along_axis(keys, order, -1)
            per = 8 // st.itemsize
            rec = np.zeros(keys.shape[:-1] + (cfg.cols * per,), u)
            rec[..., ::per] = keys.view(u)
            idx = np.broadcast_to(np.arange(cfg.cols, dtype=np.uint32) + 1000 * k, keys.shape)
            rec.reshape(keys.shape[:-1] + (cfg.cols, per))[..., per - 4 // st.itemsize:] = \
                np.ascontiguousarray(idx).view(u).reshape(keys.shape[:-1] + (cfg.cols, 4 // st.itemsize))
            out.append(rec.view(st))
        return out

    def program(self, pto, core, cfg, L, T, vals, each, before) -> None:
        self._executed = None
        V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
        n, per = L["list_cols"], L["per"]
        Src = pto.Tile[V, T, 1, n, RM, 1, cfg.cols * per]
        s0, s1 = Src(), Src()
        tmp, dst = pto.Tile[V, T, 1, 2 * n](), pto.Tile[V, T, 1, 2 * n, RM, 1, 2 * cfg.cols * per]()
        for t, a in ((s0, "src0_addr"), (s1, "src1_addr"), (tmp, "tmp_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        if cfg.dst_fill:
            core.write("ub", L["dst_addr"], bytes([cfg.dst_fill]) * (2 * n * L["T"]))
        r0, r1 = self.records(cfg, T, vals)
        s0.set(each(r0, 1, cfg.cols * per))
        s1.set(each(r1, 1, cfg.cols * per))
        self._executed = ex = pto.MrgSortExecutedNumList()
        before()
        pto.TMRGSORT[cfg.op == "exhausted"](dst, ex, tmp, s0, s1)

    def positions(self, cfg, L: dict):
        """Output element k as (0, its record, valid); the executed counts last."""
        n = self.out_bytes(cfg, L) // L["T"]
        c = np.arange(n) // L["per"]
        return np.zeros(n, np.int64), np.minimum(c, 2 * cfg.cols - 1), c < 2 * cfg.cols

    def candidates(self, cfg, vals: np.ndarray, r: int, c: int):
        """The lists cut to the records up to the first difference."""
        vals = np.asarray(vals)
        for k in sorted({min(cfg.cols, max(1, c // 2 + 1)), cfg.cols}):
            yield dict(cols=k), np.concatenate([vals[:k], vals[cfg.cols:cfg.cols + k]])


TSORT32 = Tsort32Instr()
TMRGSORT = TmrgsortInstr()
