"""``FuzzConfig``: one instruction configuration, as a small frozen dataclass.

A configuration fixes everything but the index tile (or, for TINTERLEAVE, the source data):
instruction, target, executor, mode, OOB policy, element and index types, shapes, table.
:meth:`FuzzConfig.world` describes the canonical single-instance set-up every backend and
the reproducer snippets share (table at GM address 0, index tile at UB 0, destination next).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from .. import dtypes
from ..targets import get_target
from .instrs import REGISTRY, Instr, pad_to
from .instrs.base import LAYOUTS

INSTRS = tuple(REGISTRY)

OOBS = tuple(dict.fromkeys(o for i in REGISTRY.values() for o in i.oobs))
MODES = ("row", "elem")
EXECS = tuple(dict.fromkeys(e for i in REGISTRY.values() for e in i.execs))


def table_values(n: int, dtype) -> np.ndarray:
    """The table every instance shares: 1..97 repeating (exact in every element type, never 0,
    so a zero-fill never looks like a read)."""
    st = dtypes.storage(dtypes.as_dtype(dtype))
    period = np.arange(1, 98, dtype=np.int32)          # one period, converted once; the table is
    if dtypes.name_of(dtypes.as_dtype(dtype)) in ("hifloat8",):   # its repetition (no n-sized
        period = period.astype(np.uint8)                          # temporaries: peak = the table)
    else:
        period = period.astype(dtypes.as_dtype(dtype)).view(st)
    out = np.empty(n, st)
    if n:
        out[:min(n, 97)] = period[:n]
        k = min(n, 97)
        while k < n:                                   # doubling copies, in place
            m = min(k, n - k)
            out[k:k + m] = out[:m]
            k += m
    return out


@dataclass(frozen=True)
class FuzzConfig:
    """One instruction configuration. ``rows``/``cols`` are the destination's valid shape.

    ``table_size``: elements of the MGATHER table (Elem: Shape (1,1,1,1,n); Row: (1,1,1,n//cols,
    cols)), or of the TGATHERB src tile; ``table_shape``/``table_stride`` override the 5-D
    table view. ``dst_fill``: the byte the destination holds beforehand (0: fresh memory; another
value shows which padding bytes a target writes). ``quirks`` are ``(name, on)`` pairs for ``Core(..., quirks=...)``; a quirk of
another target is ignored (:attr:`core_quirks`). ``storage``: MGATHER into UB with dynamic
valid dims, ``rows`` x ``cols`` valid inside tiles laid out for ``storage`` = (Rows, Cols)
valid (what a shape-fuzzing campaign draws per instance; the table keeps the storage shape).
In Row mode only the rows are dynamic: A5 compares the table's static Shape[4] with the
destination's ValidCol at compile time.
    """
    instr: str = "mgather"
    target: str = "a5"
    space: str = "ub"                 # destination: "ub" (Vec) | "l1" (Mat: MGATHER GM→L1, TMOV Vec→Mat)
    mode: str = "elem"
    oob: str = "wrap"
    dtype: str = "float32"
    index_dtype: str = "int32"
    rows: int = 16
    cols: int = 16
    table_size: int = 4096
    table_shape: tuple[int, ...] | None = None
    table_stride: tuple[int, ...] | None = None
    exec: str = "auto"
    quirks: tuple[tuple[str, bool], ...] = field(default=())
    layout: str = "nd"                # MGATHER into UB: dst (and Elem index) tile layout, LAYOUTS
    dst_fill: int = 0                 # byte the destination tile(s) hold before the instruction
    storage: tuple[int, int] | None = None   # (Rows, Cols) of a dynamic-valid tile (see below)
    atomic: str = "none"              # MSCATTER: the ScatterAtomicOp (none, add, max, min)
    mask: str = ""                    # TGATHER/TSCATTER: "" the index form, else a MaskPattern
                                      # ("P0101"; "P0101.col": the COL axis): the mask form
    op: str = ""                      # an instruction's operation variant (Instr.ops: TCMP's cmpMode, TCVT's
                                      # destination type and RoundMode, ...); "" where it has none

    def __post_init__(self) -> None:
        t = get_target(self.target)
        if self.instr not in INSTRS:
            raise ValueError(f"instr must be one of {INSTRS}")
        ins = REGISTRY[self.instr]
        if self.op not in ins.ops:
            forms = ins.op_form or ", ".join(ins.ops)
            raise ValueError(f"{self.instr.upper()} takes no op (it has no operation variants), not {self.op!r}"
                             if ins.ops == ("",) else f"{self.instr.upper()} takes op {forms}, not {self.op!r}")
        for name, ok in (("oob", ins.oobs), ("mode", MODES), ("exec", ins.execs), ("atomic", ins.atomics)):
            if getattr(self, name) not in ok:
                raise ValueError(f"{self.instr.upper()} takes {name} {', '.join(ok)}, not "
                                 f"{getattr(self, name)!r}")
        if self.space not in ("ub", "l1"):
            raise ValueError("space must be 'ub' or 'l1'")
        if self.exec == "simt" and not t.mgather.simt:
            raise ValueError(f"exec 'simt' needs a SIMT target (a5), not {self.target}")
        if self.rows < 0 or self.cols < 0:
            raise ValueError("rows and cols must be >= 0")
        from ..targets import TARGETS
        known = {q for tt in TARGETS.values() for q in tt.quirks}
        for k, _ in self.quirks:
            if k not in known:
                raise ValueError(f"unknown quirk {k!r}; known: {', '.join(sorted(known))}")
        if not 0 <= self.dst_fill <= 255:
            raise ValueError("dst_fill is a byte value 0..255")
        self.instruction.validate(self)
        if self.table_shape is not None and len(self.table_shape) != 5:
            raise ValueError("table_shape has 5 dims")
        if self.table_stride is not None and len(self.table_stride) != 5:
            raise ValueError("table_stride has 5 dims")
        for name in ("dtype", "index_dtype"):
            try:
                dtypes.as_dtype(getattr(self, name))
            except TypeError as e:
                raise ValueError(f"{name}: {e}") from None
        from ..memory import GM_LIMIT
        if self.table_elems * self.esize > GM_LIMIT:
            raise ValueError(f"a table of {self.table_elems:,} {self.dtype} elements does not fit in "
                             f"one core's GM ({GM_LIMIT >> 30} GiB)")

    @property
    def instruction(self) -> Instr:
        """The registered instruction (``ptogpu.execution.instrs``): what every layer asks."""
        return REGISTRY[self.instr]

    @property
    def core_quirks(self) -> dict:
        """The quirks that apply to this configuration's target (others are ignored, so one
        quirk list can serve both sides of a campaign)."""
        own = get_target(self.target).quirks
        return {k: bool(v) for k, v in self.quirks if k in own}

    def with_(self, **kw) -> "FuzzConfig":
        return replace(self, **kw)

    # -- derived shapes ------------------------------------------------------------------
    @property
    def esize(self) -> int:
        return dtypes.as_dtype(self.dtype).itemsize

    @property
    def shape5(self) -> tuple[int, ...]:
        if self.table_shape is not None:
            return tuple(self.table_shape)
        return self.instruction.shape5(self)

    @property
    def stride5(self) -> tuple[int, ...]:
        if self.table_stride is not None:
            return tuple(self.table_stride)
        s = self.shape5
        out, acc = [0] * 5, 1
        for k in range(4, -1, -1):
            out[k] = acc
            acc *= s[k]
        return tuple(out)

    @property
    def table_elems(self) -> int:
        """Elements the table occupies in GM (its extent under the strides)."""
        return self.instruction.table_elems(self)

    @property
    def tile_shape(self) -> tuple[int, int]:
        """The valid shape the tiles are laid out for: ``storage``, or (rows, cols)."""
        return self.instruction.tile_shape(self)

    @property
    def n_idx(self) -> int:
        """Index values one instance consumes."""
        return self.instruction.n_idx(self)

    @property
    def cap(self) -> int:
        """The capacity generators aim at (Elem: table elements; Row: table rows; TGATHERB:
        src blocks; TINTERLEAVE: 2^32-1 (any value))."""
        return self.instruction.cap(self)

    @property
    def label(self) -> str:
        return self.instruction.label(self)

    @property
    def op_label(self) -> str:
        """The label without target and executor (what two sides of a campaign share)."""
        return self.label.replace(f" {self.target}.{self.exec}", "").replace(f" {self.target}", "")

    @cached_property
    def table(self) -> np.ndarray:
        return table_values(self.table_elems, self.dtype)


def settings(cfg: FuzzConfig) -> dict:
    """A configuration as plain fields, enough to rebuild it (:func:`config_from_settings`)."""
    return {"instr": cfg.instr, "space": cfg.space, "mode": cfg.mode, "oob": cfg.oob,
            "dtype": cfg.dtype, "index_dtype": cfg.index_dtype, "rows": cfg.rows, "cols": cfg.cols,
            "table_size": cfg.table_size, "table_shape": list(cfg.shape5),
            "table_stride": list(cfg.stride5), "layout": cfg.layout, "dst_fill": cfg.dst_fill,
            "quirks": {k: bool(v) for k, v in cfg.quirks},
            "storage": list(cfg.storage) if cfg.storage else None, "atomic": cfg.atomic, "mask": cfg.mask,
            "op": cfg.op}


def config_from_settings(d: dict) -> FuzzConfig:
    """The FuzzConfig a report's ``settings`` describe (table shape and stride as given)."""
    kw = dict(d)
    kw["table_shape"], kw["table_stride"] = tuple(kw["table_shape"]), tuple(kw["table_stride"])
    kw["quirks"] = tuple(kw.get("quirks", {}).items())
    kw["storage"] = tuple(kw["storage"]) if kw.get("storage") else None
    kw["mask"] = kw.get("mask", "")                   # (reports written before masks were fuzzed)
    kw["op"] = kw.get("op", "")                       # (... and before operation variants were)
    return FuzzConfig(**kw)
