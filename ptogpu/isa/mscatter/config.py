"""MSCATTER as a fuzz configuration: a source tile of distinct values (1, 2, 3, ...: a value
that survives names its writer) scattered by the index tile into a table of zeros in GM; the
output is the table. ``table_size`` is the table's slots (Elem: elements; Row: rows of
``cols`` elements), ``table_shape`` (1, 1, B, slots, cols) gives Row B batches; ``atomic``
the ScatterAtomicOp; ``exec`` the ScatterConflict a side names (``default``, ``last``; ``auto``:
none named)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...targets import get_target
from ...execution.instrs.base import Instr, pad_to

MAX_SLOTS = 1 << 20


def src_values(cfg) -> np.ndarray:
    """1, 2, 3, ... (a surviving value names its writer); float Add: 1.1, 2.1, 3.1, ... so
    partial sums round and the order of the additions shows; Max and Min on signed and float
    types: -1, 2, -3, 4, ... (under Min the negative ones beat the table's zeros, and a compare
    that loses the sign shows)."""
    dt = dtypes.as_dtype(cfg.dtype)
    v = np.arange(1, cfg.rows * cfg.cols + 1, dtype=np.int64).reshape(cfg.rows, cfg.cols)
    if dtypes.name_of(dt) == "hifloat8":
        return (v % 120 + 1).astype(np.uint8)
    if float_add(cfg):
        return (v + 0.1).astype(dt)
    if cfg.atomic in ("max", "min") and dt.kind in "if":
        v = np.where(v % 2 == 1, -v, v)
    return v.astype(dt)


def float_add(cfg) -> bool:
    """Atomic Add on a floating-point table (its additions round: their order shows)."""
    return cfg.atomic == "add" and dtypes.name_of(dtypes.as_dtype(cfg.dtype)) in ("half", "bfloat16", "float32")


def form(cfg):
    """``MSCATTER[mode, atomic, oob(, conflict)]`` of the configuration."""
    import ptogpu as pto
    args = [pto.Coalesce.Row if cfg.mode == "row" else pto.Coalesce.Elem,
            pto.ScatterAtomicOp["None" if cfg.atomic == "none" else cfg.atomic.capitalize()],
            pto.ScatterOOB[cfg.oob.capitalize()]]
    if cfg.exec in ("default", "last"):
        args.append(pto.ScatterConflict[cfg.exec.capitalize()])
    return pto.MSCATTER[tuple(args)]


class MScatter(Instr):
    name = "mscatter"
    family = "mscatter"
    oobs = ("undefined", "skip", "clamp", "wrap")
    execs = ("auto", "default", "last")
    atomics = ("none", "add", "max", "min")
    defaults = {"oob": "skip", "table_size": 64}

    def validate(self, cfg) -> None:
        super().validate(cfg)
        if cfg.space != "ub" or cfg.dst_fill or cfg.table_stride is not None:
            raise ValueError("MSCATTER scatters a UB tile into a dense GM table: no space, dst_fill "
                             "or table_stride")
        if cfg.index_dtype not in ("int32", "uint32"):
            raise ValueError(f"index dtype {cfg.index_dtype!r}: int32 or uint32")
        if not (1 <= cfg.rows <= 256 and 1 <= cfg.cols <= 256):
            raise ValueError(f"shape {cfg.rows}x{cfg.cols}: 1..256 each")
        if not 0 <= self.slots(cfg) <= MAX_SLOTS:
            raise ValueError(f"slots {self.slots(cfg)}: 0 .. 2^20")
        s = cfg.shape5
        if cfg.table_shape is not None and (cfg.mode != "row" or s[0] != 1 or s[1] != 1 or s[4] != cfg.cols):
            raise ValueError(f"table shape {s}: MSCATTER takes (1, 1, B, slots, cols) in Row mode only "
                             f"(cols = the tile's {cfg.cols})")
        if not 1 <= self.batches(cfg) <= 64:
            raise ValueError(f"batches {self.batches(cfg)}: 1 .. 64, and more than 1 only in Row mode")

    def slots(self, cfg) -> int:
        """Table slots: Elem elements, Row rows (of one batch)."""
        return cfg.shape5[3] if cfg.mode == "row" else cfg.shape5[4]

    def batches(self, cfg) -> int:
        return cfg.shape5[2] if cfg.mode == "row" else 1

    def shape5(self, cfg) -> tuple[int, ...]:
        if cfg.mode == "row":
            return (1, 1, 1, cfg.table_size, cfg.cols)
        return (1, 1, 1, 1, cfg.table_size)

    def table_elems(self, cfg) -> int:
        # the dense table (what the campaigns allocate; at least one element)
        per = cfg.cols * self.batches(cfg) if cfg.mode == "row" else 1
        return max(self.slots(cfg) * per, 1)

    def n_idx(self, cfg) -> int:
        return cfg.rows if cfg.mode == "row" else cfg.rows * cfg.cols

    def cap(self, cfg) -> int:
        return self.slots(cfg)

    def label(self, cfg) -> str:
        ex = f".{cfg.exec}" if cfg.exec != "auto" else ""
        b = self.batches(cfg)
        return (f"MSCATTER<{cfg.mode.capitalize()}, {cfg.atomic.capitalize()}, {cfg.oob.capitalize()}> "
                f"{cfg.target}{ex} {cfg.rows}x{cfg.cols} {cfg.dtype} into {self.slots(cfg)} slots"
                + (f" x {b} batches" if b > 1 else ""))

    def layout(self, cfg) -> dict:
        e = max(32 // cfg.esize, 1)
        ir, ic = (1, cfg.rows) if cfg.mode == "row" else (cfg.rows, cfg.cols)
        src_shape = (cfg.rows, pad_to(cfg.cols, e))
        isz = dtypes.as_dtype(cfg.index_dtype).itemsize
        src_bytes = src_shape[0] * src_shape[1] * cfg.esize
        idx_shape = (ir, pad_to(ic, 8))
        return {"src_shape": src_shape, "src_addr": 0, "idx_shape": idx_shape, "idx_valid": (ir, ic),
                "idx_addr": pad_to(src_bytes, 64), "idx_bytes": idx_shape[0] * idx_shape[1] * isz,
                "table_addr": 0, "gm_size": pad_to(self.table_elems(cfg) * cfg.esize, 64)}

    def needs(self, cfg, L: dict) -> dict[str, int]:
        return {"ub": L["idx_addr"] + L["idx_bytes"]}

    def footprint(self, cfg, L: dict):
        return {"gm": [(L["table_addr"], L["table_addr"] + self.out_bytes(cfg, L))]}

    def out_bytes(self, cfg, L: dict) -> int:
        return self.table_elems(cfg) * L["T"]

    def lo32_cast(self, cfg) -> bool:
        return True

    def setup(self, pto, core, cfg, L: dict, T):
        """The instance before its index tile: (table, src tile, index tile), the table zeros
        at GM ``table_addr`` and the source holding :func:`src_values`."""
        ptr = core.gm_alloc(self.table_elems(cfg), T)
        assert ptr.addr == L["table_addr"], (ptr.addr, L)
        table = pto.GlobalTensor[T, pto.Shape[cfg.shape5], pto.Stride[cfg.stride5]](ptr)
        V = pto.TileType.Vec
        src = pto.Tile[V, T, *L["src_shape"], pto.BLayout.RowMajor, cfg.rows, cfg.cols]()
        idx = pto.Tile[V, dtypes.as_dtype(cfg.index_dtype), *L["idx_shape"], pto.BLayout.RowMajor,
                       *L["idx_valid"]]()
        pto.TASSIGN(src, L["src_addr"])
        pto.TASSIGN(idx, L["idx_addr"])
        src.set(src_values(cfg))
        return table, src, idx

    def program(self, pto, core, cfg, L, T, idx, each, before) -> None:
        table, src, it = self.setup(pto, core, cfg, L, T)
        it.set(each(idx, *L["idx_valid"]))
        before()
        form(cfg)(table, src, it)

    def read_out(self, core, cfg, L: dict) -> np.ndarray:
        return core.read("gm", L["table_addr"], self.out_bytes(cfg, L))

    def runs_lanes(self, cfg) -> bool:
        # A5's launches (source-centric Default, slot-centric Last) execute lanes; its 1x1
        # tile and the other targets run a loop
        m = get_target(cfg.target).mscatter
        return bool(m and m.simt and not (m.scalar_1x1 and cfg.rows == 1 and cfg.cols == 1))


MSCATTER = MScatter()
