"""``MSCATTER``: template forms, per-target static checks and dispatch.

The argument order is the C++ one, destination first: ``MSCATTER(table, src, idx)``.
"""
from __future__ import annotations

from ... import dtypes
from .kernels import run_mscatter
from ...core import current_core, on_instances
from ...enums import Coalesce, ScatterAtomicOp, ScatterConflict, ScatterOOB, TileType
from ...errors import PtoCheckError, PtoError, PtoHazard, check
from . import semantics as sem
from ...tensor import GlobalTensor
from ...tile import Tile, require_valid_getters
from ...ops.events import RecordEvent, operands, place, record, too_many
from ...ops.checks import a2a3_layout_checks, index_shape_checks, require_assigned

_ATOMIC_ROW = {ScatterAtomicOp.Add: 0, ScatterAtomicOp.Max: 1, ScatterAtomicOp.Min: 2}


def _atomic_types(rules, t, call, T):
    if call.atomic == ScatterAtomicOp.None_:
        return
    allowed = rules.atomic_dtypes[_ATOMIC_ROW[call.atomic]]
    if allowed is not None:
        check(T in allowed, f"MScatterCheck: ScatterAtomicOp::{call.atomic.cname} element type", t,
              f"{T} is not one of {', '.join(allowed)}" if allowed else
              f"ScatterAtomicOp::{call.atomic.cname} is not supported on this target")


def _npu_types(rules, t, call, table, src, idx):
    T = src.DType
    check(T in rules.dtypes, "MScatterCheck: element type", t, f"{T} is not one of {', '.join(rules.dtypes)}")
    check(idx.DType in rules.index_dtypes, "MScatterCheck: index type", t,
          f"index element {idx.DType} is not one of {', '.join(rules.index_dtypes)}")
    check(table.DType == T, "MScatterCheck: GlobalTable::DType == __gm__ T", t,
          f"table holds {table.DType}, src holds {T}")
    check(src.Loc == TileType.Vec, "MScatterCheck: TileSrc::Loc == Vec", t, f"src is {src.Loc.name}")
    check(idx.Loc == TileType.Vec, "MScatterCheck: TileIdx::Loc == Vec", t, f"idx is {idx.Loc.name}")
    _atomic_types(rules, t, call, T)


def check_a5(core, call, table, src, idx):
    t = core.target.name
    rules = core.target.mscatter
    _npu_types(rules, t, call, table, src, idx)
    index_shape_checks(t, call.mode, "MScatterCheck", "src", "TileSrc", src, idx, table,
                       quirk=core.quirks["a5_dynamic_dim_cast"], rx1=True)


def check_a2a3(core, call, table, src, idx):
    t = core.target.name
    rules = core.target.mscatter
    _npu_types(rules, t, call, table, src, idx)
    a2a3_layout_checks(t, "MScatterCheck", "src", "Src", src, idx, table)
    index_shape_checks(t, call.mode, "MScatterCheck", "src", "TileSrc", src, idx, table, quirk=None, rx1=False)


def check_cpu(core, call, table, src, idx):
    t = core.target.name
    from ...semantics.sim_types import SIM_TYPES, check_conversion
    check(dtypes.is_integral(idx.Element), "MSCATTER: indexes must be an integral type", t,
          f"index element {idx.DType}")
    check(src.Element.itemsize == table.Element.itemsize, "MSCATTER: element sizes must match", t,
          f"{src.DType} vs {table.DType}")
    check(call.atomic == ScatterAtomicOp.None_ or call.conflict != ScatterConflict.Last,
          "MSCATTER: Conflict::Last cannot be used together with Atomic operations", t,
          f"ScatterAtomicOp::{call.atomic.cname} with ScatterConflict::Last")
    check_conversion(src.DType, table.DType, "MSCATTER", t)
    if call.atomic != ScatterAtomicOp.None_:
        op = "+=" if call.atomic == ScatterAtomicOp.Add else f"std::{call.atomic.name.lower()}"
        check(table.DType not in SIM_TYPES and src.DType not in SIM_TYPES,
              f"MSCATTER<.., {call.atomic.cname}>: {op} on the simulator's class type", t,
              f"{table.DType if table.DType in SIM_TYPES else src.DType} has no {op}")
    if call.atomic in (ScatterAtomicOp.Max, ScatterAtomicOp.Min):
        check(table.DType == src.DType, f"MSCATTER<.., {call.atomic.cname}>: std::{call.atomic.name.lower()}"
              "(base[i], src) deduces one type", t, f"table {table.DType}, src {src.DType}")


CHECKS = {"cpu": check_cpu, "a2a3": check_a2a3, "a5": check_a5}
_KINDS = (Coalesce, ScatterAtomicOp, ScatterOOB, ScatterConflict)


class MScatterForm:
    """``MSCATTER``: scatter a source tile into a GM table by index, as each target's code does.

    Forms (C++ ``MSCATTER<...>(...)`` with ``[...]`` for ``<...>``)::

        MSCATTER(table, src, idx)                                   # the target's defaults
        MSCATTER[CMode](table, src, idx)                            # Coalesce.Row | Coalesce.Elem
        MSCATTER[CMode, Atomic](table, src, idx)                    # ScatterAtomicOp.None_|Add|Max|Min
        MSCATTER[CMode, Atomic, Oob](table, src, idx)               # ScatterOOB.Undefined|Skip|Clamp|Wrap
        MSCATTER[CMode, Atomic, Oob, Conflict](table, src, idx)     # ScatterConflict.Last|Default (cpu, a5)

    ``table`` is a GlobalTensor, ``src`` a Vec tile, ``idx`` an index tile (Row: one index per
    src row, [1, R] (or [R, 1] on A5); Elem: one per src element). Trailing ``RecordEvent``
    arguments are wait events; the call returns a RecordEvent.

    Defaults of the plain call: ``Elem`` on ``cpu``, ``Row`` on ``a2a3`` and ``a5``; Atomic
    ``None``, Oob ``Undefined``; Conflict ``Last`` on ``a5`` (the slot-centric kernel), the
    inert ``Default`` on ``cpu``; A2/A3 has no Conflict parameter. On A5, ``Conflict::Default``
    and every atomic run the source-centric kernel, whose threads are unordered: the emulation
    leaves one legal schedule's bytes (warps in order, lanes in lock-step) and
    :meth:`outcomes` lists every value each element may end with; ``Core(...,
    strict_hazards=True)`` raises PtoHazard when there is more than one. See docs/mscatter.md.
    """

    def __init__(self, *params) -> None:
        self.params = params

    def __getitem__(self, params) -> "MScatterForm":
        if self.params:
            raise TypeError("template arguments already given")
        if not isinstance(params, tuple):
            params = (params,)
        if not 1 <= len(params) <= 4:
            raise PtoCheckError("MSCATTER<CMode[, Atomic[, Oob[, Conflict]]]> takes 1 to 4 template "
                                "arguments", rule="MSCATTER template")
        for p, k in zip(params, _KINDS):
            if not isinstance(p, k):
                raise PtoCheckError(f"template argument {p!r} is not a {k.__name__}", rule="MSCATTER template")
        return MScatterForm(*params)

    def __repr__(self) -> str:
        names = [f"{type(p).__name__}.{p.name}" for p in self.params]
        return f"MSCATTER[{', '.join(names)}]" if names else "MSCATTER"

    def __call__(self, table: GlobalTensor, src: Tile, idx: Tile, *events) -> RecordEvent:
        """``MSCATTER(table, src, idx[, events...])``; returns a RecordEvent."""
        too_many("MSCATTER", [table, src, idx, *operands(events)], 3)
        place([src, idx])                                   # automatic placement
        on_instances(self._run, name="MSCATTER")(table, src, idx)
        return record("MSCATTER")

    def _run(self, table: GlobalTensor, src: Tile, idx: Tile) -> None:
        core = current_core()
        call = self._prepare(core, table, src, idx)
        W = None
        if call.path == "a5_default" and core.strict_hazards:
            W, out = self._outcomes(core, call, table, src, idx)
            if not out.deterministic:
                k = int(out.racy.argmax())
                raise PtoHazard(
                    f"{call.label}: {int(out.racy.sum())} GM element(s) can end with more than one "
                    f"value (first: byte address {int(out.addr[k]):#x}, "
                    f"{out.counts[k] if out.exact[k] else 'many'} possible values): threads of the "
                    "source-centric kernel are unordered (target a5)")
        if not run_mscatter(core, call, table, src, idx):
            sem.apply(core, call, table, W if W is not None else sem.writes(core, call, table, src, idx))

    def outcomes(self, table: GlobalTensor, src: Tile, idx: Tile):
        """What this call may leave in GM, per element it writes, without writing anything: a
        :class:`~ptogpu.semantics.scatter_outcomes.ScatterOutcomes` (``choices(k)``, ``racy``,
        ``admits(core)``, ``sample()``). Checks and faults are those of the call itself."""
        core = current_core()
        if core.batch > 1:
            raise PtoError("MSCATTER.outcomes describes one instance's call: ask it on a core of "
                           "batch=1", rule="MSCATTER.outcomes", target=core.target.name)
        call = self._prepare(core, table, src, idx)
        return self._outcomes(core, call, table, src, idx)[1]

    def _outcomes(self, core, call, table, src, idx):
        """(the call's writes, their outcome sets); faults as the call raises them."""
        from .semantics_outcomes import outcomes
        W = sem.writes(core, call, table, src, idx)
        sem.check_writes(core, W, table.Element.itemsize, call)
        return W, outcomes(core, call, table, W)

    def _prepare(self, core, table, src, idx) -> sem.Call:
        t = core.target.name
        rules = core.target.mscatter
        for what, x, k in (("table", table, GlobalTensor), ("src", src, Tile), ("idx", idx, Tile)):
            if not isinstance(x, k):
                raise PtoCheckError(f"{what} must be a {k.__name__}, got {type(x).__name__}",
                                    rule="MSCATTER operands", target=t)
        # src.GetValidRow/Col on every target; idx's valid dims only gate static checks
        require_valid_getters(core, "MSCATTER", "mscatter", src=src, idx=idx)
        p = list(self.params)
        if len(p) == 4 and not rules.conflict_form:
            raise PtoCheckError("MSCATTER<Mode, Atomic, Oob, Conflict> does not exist here (no "
                                "ScatterConflict parameter)", rule="MSCATTER template", target=t)
        mode = p[0] if p else rules.default_mode
        atomic = p[1] if len(p) > 1 else ScatterAtomicOp.None_
        oob = p[2] if len(p) > 2 else ScatterOOB.Undefined
        conflict = p[3] if len(p) > 3 else ScatterConflict[rules.default_conflict]
        path = sem.choose_path(core, mode, atomic, conflict, table, src)
        call = sem.Call(mode, atomic, oob, conflict, path)
        CHECKS[rules.checks](core, call, table, src, idx)
        require_assigned(t, ("src", src), ("idx", idx), name="MSCATTER")
        return call


MSCATTER = MScatterForm()
