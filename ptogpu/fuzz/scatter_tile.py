"""MSCATTER campaigns' configurations, sides and tiles: the family's configuration in its own
words (:func:`ScatterConfig`), a side (``target[.conflict[.scan]][@backend]``), one tile through
the public API (:class:`World`), and the index generators the fused engine shares."""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..execution.config import FuzzConfig
from ..isa.mscatter.config import MSCATTER, form
from ..execution.rng import KINDS, generate, instance_keys, mix64
from ..errors import fault_text
from .classes import Side


GENERATORS = {**{k: v for k, v in KINDS.items()}, "equal": 7, "perm": 8, "cycle": 8}
"""Index generators: the shared ones (uniform, oob, negative, extreme, boundary, dup (4 values
per tile: few distinct slots), mixed) and three for scatters: ``equal`` (every index the same),
``perm`` (a rotation of the slots: no two elements share one; it needs n <= slots) and
``cycle`` (the same rotation repeated, any n: element e writes slot (e + r) % slots, so
exactly the elements a multiple of ``slots`` apart share a slot -- a conflict pattern random
indices almost never make alone)."""



def ScatterConfig(mode: str = "elem", atomic: str = "none", oob: str = "skip", dtype: str = "float32",
                  index_dtype: str = "int32", rows: int = 16, cols: int = 16, slots: int = 64,
                  batches: int = 1) -> FuzzConfig:
    """One MSCATTER configuration (everything but the index tile): the registry's
    ``FuzzConfig(instr="mscatter")`` (``isa/mscatter/config.py``), in the family's own
    words. ``slots``: table rows (Row) or elements (Elem); the table is ``Shape(1, 1, batches,
    slots, cols)`` (Row) or ``(1, 1, 1, 1, slots)`` (Elem), dense. ``batches`` > 1 (Row) makes
    the capacities differ: ``Shape[3]`` on cpu and A5, ``Shape[0..3]`` on A2/A3. A campaign's
    sides give the target and the ScatterConflict."""
    if int(batches) != 1 and mode != "row":
        raise ValueError(f"batches {batches}: 1 .. 64, and more than 1 only in Row mode")
    return FuzzConfig(instr="mscatter", mode=mode, atomic=atomic, oob=oob, dtype=dtype,
                      index_dtype=index_dtype, rows=int(rows), cols=int(cols), table_size=int(slots),
                      table_shape=(1, 1, int(batches), int(slots), int(cols)) if int(batches) != 1 else None)


def slots(cfg: FuzzConfig) -> int:
    return MSCATTER.slots(cfg)


def batches(cfg: FuzzConfig) -> int:
    return MSCATTER.batches(cfg)


def settings_of(cfg: FuzzConfig) -> dict:
    """The family's JSON settings of a configuration (``ScatterConfig(**settings)`` rebuilds it)."""
    return {"mode": cfg.mode, "atomic": cfg.atomic, "oob": cfg.oob, "dtype": cfg.dtype,
            "index_dtype": cfg.index_dtype, "rows": cfg.rows, "cols": cfg.cols, "slots": slots(cfg),
            "batches": batches(cfg)}


def on_side(cfg: FuzzConfig, s: Side) -> FuzzConfig:
    """The configuration as side ``s`` runs it (its target; its conflict as the executor)."""
    return cfg.with_(target=s.target, exec=s.conflict or "auto")


def side(text: str, backend: str = "auto") -> Side:
    """An MSCATTER side, ``target[.conflict[.scan]][@backend]``, checked: the conflict is
    ``default`` or ``last``, only on a target whose MSCATTER takes one; only ``.last`` names a
    scan (:data:`SCANS`)."""
    from ..targets import TARGETS
    s = Side.parse(text, backend)
    cf, scan = s.conflict or "", s.scan
    if s.target not in TARGETS:
        raise ValueError(f"side {text!r}: target must be {', '.join(TARGETS)}")
    if cf not in ("", "default", "last") or "." in (scan or ""):
        raise ValueError(f"side {text!r}: conflict must be default or last")
    if scan and (cf != "last" or scan not in SCANS):
        raise ValueError(f"side {text!r}: only a .last side names its scan, one of {', '.join(SCANS)}")
    if cf and not TARGETS[s.target].mscatter.conflict_form:
        raise ValueError(f"{s.target} has no ScatterConflict parameter (write the side as {s.target})")
    return s


def rule_key(s: Side) -> tuple:
    """What of a side MSCATTER's rules depend on: its target and conflict (not the scan)."""
    return (s.target, s.conflict)


SCANS = ("owner", "reverse")
"""How a native ``Conflict::Last`` side finds each slot's winner: ``owner``, one forward pass
recording each slot's last writer (fast); ``reverse``, every lane's own reverse scan, what the
hardware runs (Θ(slots x N) index reads). ``a5.last.reverse`` vs ``a5.last.owner`` must agree."""


# ---- one tile through the public API -----------------------------------------------------------
class World:
    """One side's canonical instance (``isa/mscatter/config.py``: table at GM 0, zeros; source tile at
    UB 0; index tile after it) on a single core, reused tile after tile."""

    def __init__(self, cfg: FuzzConfig, side: Side, backend: str | None = None):
        import ptogpu as pto
        from ..execution.single import layout
        self.cfg, self.side = on_side(cfg, side), side
        self.core = pto.Core(side.target, backend or side.backend)
        L = layout(self.cfg)
        with self.core:
            self.table, self.src, self.idx = MSCATTER.setup(pto, self.core, self.cfg, L,
                                                            dtypes.as_dtype(cfg.dtype))
        self.idx_addr = L["idx_addr"]
        self.form = form(self.cfg)
        self.nbytes = MSCATTER.out_bytes(self.cfg, L)
        self.base = L["table_addr"]

    def set_indices(self, raw: np.ndarray) -> None:
        """The index tile holds ``raw`` cast to the index type (wrapping, as C++ does)."""
        vals = MSCATTER.cast(self.cfg, np.asarray(raw, np.int64))
        with self.core:
            self.idx.set(vals.reshape(self.idx.valid_row, self.idx.valid_col))

    def run(self, raw: np.ndarray) -> tuple[bytes, str | None]:
        """(table bytes after the call, fault message or None) for one index tile."""
        import ptogpu as pto
        c = self.core
        c.gm.data[self.base:self.base + self.nbytes] = 0
        self.set_indices(raw)
        with c:
            try:
                self.form(self.table, self.src, self.idx)
                err = None
            except pto.PtoFault as e:
                err = fault_text(e)
        return c.gm.data[self.base:self.base + self.nbytes].tobytes(), err


def indices(gen: str, seed: int, inst: np.ndarray, n: int, cap: int) -> np.ndarray:
    """Index values (int64, (len(inst), n)) of the instances: the same numbers the fused
    kernel generates."""
    inst = np.asarray(inst, np.int64).reshape(-1)
    k = GENERATORS[gen]
    if k not in (7, 8):
        return generate(k, seed, inst, n, cap)
    keys = instance_keys(seed, inst.astype(np.uint64))
    with np.errstate(over="ignore"):
        if k == 7:
            v = ((mix64(keys + np.uint64(1)) & np.uint64(0xFFFFFFFF)) * np.uint64(cap & 0xFFFFFFFF)) >> np.uint64(32)
            return np.repeat(v.astype(np.int64)[:, None], n, 1)
        off = mix64(keys + np.uint64(7))
        e = np.arange(n, dtype=np.uint64)[None, :]
        return ((e + off[:, None]) % np.uint64(max(cap, 1))).astype(np.int64)
