"""TGATHER as a fuzz configuration. The index form: the generated values are the index tile;
src0 is a 1 x table_size tile holding the table (1..97 repeating), so a value names the
element it read. The mask form (``cfg.mask``): the generated values are src's data (rows x
cols), and the output runs past dst as far as a target's form may write. The output is the
destination's storage."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import MaskPattern
from ...execution.instrs.base import Instr, pad_to, prefill


def mask_of(cfg) -> tuple[MaskPattern, int]:
    """``cfg.mask`` as (pattern, axis: 0 ROW, 1 COL); ValueError for anything else."""
    name, _, axis = cfg.mask.partition(".")
    if name not in MaskPattern.__members__ or axis not in ("", "row", "col"):
        raise ValueError(f"mask {cfg.mask!r}: a MaskPattern ({', '.join(MaskPattern.__members__)}), "
                         "optionally .row or .col")
    return MaskPattern[name], int(axis == "col")


def data_cast(cfg, values: np.ndarray) -> np.ndarray:
    """Generator values as the data type's bits (any value: NaN payloads, negative zero, ...)."""
    st = dtypes.storage(dtypes.as_dtype(cfg.dtype))
    return np.asarray(values, np.int64).astype(np.uint64).astype(np.dtype(f"u{st.itemsize}")).view(st)


class MaskForms(Instr):
    """What TGATHER's and TSCATTER's configurations share: the mask form (``cfg.mask``), whose
    generated values are src's data and whose output is ``span`` bytes from dst's address."""
    mask_forms = True

    def validate(self, cfg) -> None:
        super().validate(cfg)
        if cfg.table_size < 1:
            raise ValueError(f"{self.name.upper()} needs a table_size of at least one element")
        if cfg.mask:
            mask_of(cfg)

    def n_idx(self, cfg) -> int:
        return cfg.rows * cfg.cols

    def cap(self, cfg) -> int:
        return (1 << 32) - 1 if cfg.mask else cfg.table_size

    def cast(self, cfg, values: np.ndarray) -> np.ndarray:
        return data_cast(cfg, values) if cfg.mask else super().cast(cfg, values)

    def out_bytes(self, cfg, L: dict) -> int:
        return L["span"] if cfg.mask else super().out_bytes(cfg, L)

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        if cfg.mask:
            return core.read("ub", L["dst_addr"], L["span"])
        return super().read_out(core, cfg, L)

    def positions(self, cfg, L: dict):
        if not cfg.mask:
            return super().positions(cfg, L)
        e = np.arange(L["span"] // L["T"])
        return e // max(cfg.cols, 1), e % max(cfg.cols, 1), np.ones(e.size, bool)

    def mask_program(self, pto, core, cfg, L, T, idx, each, before, call) -> None:
        """The mask form's instance: src's data, dst (prefilled over the whole span), then
        ``call(pattern, axis, dst, src)``."""
        pattern, axis = mask_of(cfg)
        SrcT = pto.Tile[pto.TileType.Vec, T, *L["src_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        DstT = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"], pto.BLayout.RowMajor,
                        *(L["dst_valid"] or L["dst_shape"])]
        src, dst = SrcT(), DstT()
        pto.TASSIGN(src, L["src_addr"])
        pto.TASSIGN(dst, L["dst_addr"])
        if cfg.dst_fill:
            core.write("ub", L["dst_addr"], bytes([cfg.dst_fill]) * L["span"])
        src.set(each(idx, cfg.rows, cfg.cols))
        before()
        call(pattern, axis, dst, src)


class TGatherIndex(MaskForms):
    name = "tgather"
    oobs = ("undefined",)
    execs = ("auto",)
    defaults = {"rows": 4, "cols": 32, "table_size": 256, "oob": "undefined"}

    def formula_fields(self, cfg):
        return None

    def label(self, cfg) -> str:
        if cfg.mask:
            return f"TGATHER[{cfg.mask}] {cfg.target} {cfg.dtype} {cfg.rows}x{cfg.cols}"
        return f"TGATHER {cfg.target} {cfg.dtype}/{cfg.index_dtype} {cfg.rows}x{cfg.cols} src0 {cfg.table_size}"

    def mask_layout(self, cfg) -> dict:
        """src rows x cols; dst: ROW the packed stream (one row), COL the selected rows; the
        output reaches as far as any target's form writes (the NPUs' COL over-run, A5's
        8-byte rows Cols/times apart)."""
        pattern, axis = mask_of(cfg)
        T = cfg.esize
        src = (max(cfg.rows, 1), pad_to(cfg.cols, 32 // T))
        if axis == 0:
            dst, valid = (1, pad_to(max(cfg.rows * pattern.count(cfg.cols), 1), 32 // T)), None
        else:
            n = max(pattern.count(cfg.rows), 1)
            dst, valid = (n, src[1]), (n, cfg.cols)
        span = pad_to(max(dst[0] * dst[1], src[0] * max(src[1], dst[1])) * T, 32)
        return {"src_shape": src, "src_addr": 0, "dst_shape": dst, "dst_valid": valid,
                "dst_addr": pad_to(4 * src[0] * src[1] * T, 256), "span": span}   # (the NPUs read F*VR rows)

    def layout(self, cfg) -> dict:
        if cfg.mask:
            return self.mask_layout(cfg)
        # dst, the indices, tmp, then src0: an index past src0 reads free UB, not bytes the call writes
        T, I = cfg.esize, dtypes.as_dtype(cfg.index_dtype).itemsize
        d = {"dst_shape": (max(cfg.rows, 1), pad_to(cfg.cols, 32 // T)), "dst_addr": 0,
             "idx_shape": (max(cfg.rows, 1), pad_to(cfg.cols, 32 // I))}
        d["idx_addr"] = pad_to(d["dst_shape"][0] * d["dst_shape"][1] * T, 32)
        d["tmp_addr"] = pad_to(d["idx_addr"] + d["idx_shape"][0] * d["idx_shape"][1] * I, 32)
        tmp_bytes = max(d["idx_shape"][0] * d["idx_shape"][1] * I, d["dst_shape"][0] * d["dst_shape"][1] * 4)
        d["src_shape"] = (1, pad_to(cfg.table_size, 32 // T))
        d["src_addr"] = pad_to(d["tmp_addr"] + tmp_bytes, 32)         # (A2/A3 writes its scratch in tmp)
        d["past_addr"] = d["src_addr"] + d["src_shape"][1] * T        # what an NPU reads past src0:
        d["past_bytes"] = d["src_shape"][1] * T                       # the table again, reversed
        return d

    def footprint(self, cfg, L: dict):
        if cfg.mask:
            return {"ub": [(L["dst_addr"], L["dst_addr"] + L["span"])]}
        r, c = L["dst_shape"]
        return {"ub": [(L["dst_addr"], L["dst_addr"] + r * c * L["T"]), (L["tmp_addr"], L["src_addr"])]}

    def needs(self, cfg, L: dict) -> dict[str, int]:
        if cfg.mask:
            return {"ub": L["dst_addr"] + L["span"]}
        return {"ub": L["past_addr"] + L["past_bytes"]}

    def past(self, cfg, L: dict) -> np.ndarray:
        """The bytes after src0 (the table reversed): an index past src0 reads them on the
        NPUs, where the simulator gives 0."""
        return np.ascontiguousarray(np.resize(cfg.table, L["src_shape"][1])[::-1]).view(np.uint8)

    def program(self, pto, core, cfg, L, T, idx, each, before) -> None:
        if cfg.mask:
            return self.mask_program(pto, core, cfg, L, T, idx, each, before,
                                     lambda p, a, dst, src: pto.TGATHER[p, pto.GatherAxis(a)](dst, src))
        I = dtypes.as_dtype(cfg.index_dtype)
        SrcT = pto.Tile[pto.TileType.Vec, T, *L["src_shape"]]
        IdxT = pto.Tile[pto.TileType.Vec, I, *L["idx_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        DstT = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]
        src, ix, tmp, dst = SrcT(), IdxT(), IdxT(), DstT()
        for t, a in ((src, "src_addr"), (ix, "idx_addr"), (tmp, "tmp_addr"), (dst, "dst_addr")):
            pto.TASSIGN(t, L[a])
        prefill(core, cfg, dst)
        src.set(np.resize(cfg.table, L["src_shape"]).astype(src.Element))
        core.write("ub", L["past_addr"], self.past(cfg, L))
        ix.set(each(idx, cfg.rows, cfg.cols))
        before()
        pto.TGATHER(dst, src, ix, tmp)


TGATHER = TGatherIndex()
