"""``MGATHER``: template forms, per-target static checks (mgather.md §5.1, §6.1) and dispatch."""
from __future__ import annotations

from ... import dtypes
from .kernels import run_mgather_ub
from ...core import current_core, on_instances
from ...enums import DYNAMIC, Coalesce, GatherExec, GatherOOB, Layout, TileType
from ...errors import F_OTHER, PtoCheckError, PtoFault, check
from . import semantics as sem
from . import semantics_nz as sem_nz
from ...tensor import GlobalTensor
from ...tile import Tile, require_valid_getters
from ...ops.events import RecordEvent, operands, place, record, too_many
from ...ops.checks import a2a3_layout_checks, gate, index_shape_checks, require_assigned



def _common_types(rules, t, dst, table, idx, idx_is_tile=True):
    T = dst.DType
    if rules.dtypes is not None:
        check(T in rules.dtypes, "MGatherCheck: element type", t,
              f"{T} is not one of {', '.join(rules.dtypes)}")
    check(idx.DType in rules.index_dtypes, "MGatherCheck: index type", t,
          f"index element {idx.DType} is not one of {', '.join(rules.index_dtypes)}")
    check(table.DType == T, "MGatherCheck: GlobalTable::DType == __gm__ T", t,
          f"table holds {table.DType}, dst holds {T}")


def _npu_ub_common(core, dst, table, idx) -> str:
    """What both NPUs' MGatherCheck asks of a UB gather: the types, Vec dst and index tiles."""
    t = core.target.name
    _common_types(core.target.mgather, t, dst, table, idx)
    check(dst.Loc == TileType.Vec, "MGatherCheck: TileDst::Loc == Vec", t, f"dst is {dst.Loc.name}")
    check(isinstance(idx, Tile) and idx.Loc == TileType.Vec, "MGatherCheck: TileIdx::Loc == Vec",
          t, "the index must be a Vec tile")
    return t


def check_a5_ub(core, mode, dst, table, idx):
    t = _npu_ub_common(core, dst, table, idx)
    index_shape_checks(t, mode, "MGatherCheck", "dst", "TileDst", dst, idx, table,
                       quirk=core.quirks["a5_dynamic_dim_cast"], rx1=True)


def check_a2a3_ub(core, mode, dst, table, idx):
    t = _npu_ub_common(core, dst, table, idx)
    a2a3_layout_checks(t, "MGatherCheck", "dst", "Dst", dst, idx, table)
    index_shape_checks(t, mode, "MGatherCheck", "dst", "TileDst", dst, idx, table, quirk=None, rx1=False)


def check_cpu(core, mode, dst, table, idx):
    t = core.target.name
    check(dtypes.is_integral(idx.Element), "MGATHER: index type is integral", t,
          f"index element {idx.DType}")
    check(dst.Element.itemsize == table.Element.itemsize,
          "MGATHER: sizeof(dst T) == sizeof(table T)", t, f"{dst.DType} vs {table.DType}")
    from ...semantics.sim_types import check_conversion
    check_conversion(table.DType, dst.DType, "MGATHER", t)
    if mode == Coalesce.Row and isinstance(idx, Tile):
        # The reference message wrongly says "Coalesce::Elem"; the rule is about Row.
        check(idx.SLayout.name == "NoneBox", "MGATHER<Row>: index tile SFractal == NoneBox", t,
              f"idx SLayout is {idx.SLayout.name}")


UB_CHECKS = {"cpu": check_cpu, "a2a3": check_a2a3_ub, "a5": check_a5_ub}


class MGatherForm:
    """``MGATHER``: gather table elements from GM by index, as the C++ template does per target.

    Forms (C++ ``MGATHER<...>(...)`` with ``[...]`` for ``<...>``)::

        MGATHER(dst, table, idx)                               # the target's defaults
        MGATHER[CMode](dst, table, idx)                        # Coalesce.Row | Coalesce.Elem
        MGATHER[CMode, Oob](dst, table, idx)                   # GatherOOB.Undefined|Clamp|Wrap|Zero
        MGATHER[CMode, Oob](dst_mat, table, gm_idx)            # GM -> L1 (Mat tile), Row
        MGATHER[CMode, Oob](dst_mat, table, gm_idx, scratch)   # GM -> L1, Elem (GM scratch)
        MGATHER[CMode, Oob, GatherExec.Simt](dst_mat, table, gm_idx, scratch)   # A5 only

    ``dst`` is a Vec (UB) tile, or a Mat (L1) tile for GM -> L1; ``table`` a GlobalTensor;
    ``idx`` an index tile (Row: one index per dst row, a [1, R] or [R, 1] tile; Elem: one per
    dst element) or, for GM -> L1, a GlobalTensor of indices. Trailing ``RecordEvent`` arguments
    are wait events; the call returns a RecordEvent.

    Per-target defaults of the plain call: CMode ``Elem`` on ``cpu``, ``Row`` on ``a2a3`` and
    ``a5``; Oob ``Undefined`` everywhere. What differs per target (index cast: 64-bit
    sign-extension on ``cpu``, ``uint32`` on the NPUs; Row capacity and row addressing; the
    A2/A3 DMA tail fill; A5's SIMT launch ``dim3{32, warps}``) is listed by ``ptogpu targets``
    and explained in docs/mgather.md. ``PtoCheckError``: what that target's compiler rejects;
    ``PtoFault``: what its hardware traps (nothing is written then).
    """

    def __init__(self, mode: Coalesce | None = None, oob: GatherOOB | None = None,
                 exec_: GatherExec | None = None) -> None:
        self.mode, self.oob, self.exec_ = mode, oob, exec_

    def __getitem__(self, params) -> "MGatherForm":
        if self.mode is not None:
            raise TypeError("template arguments already given")
        if not isinstance(params, tuple):
            params = (params,)
        kinds = (Coalesce, GatherOOB, GatherExec)
        if not 1 <= len(params) <= 3:
            raise PtoCheckError("MGATHER<CMode[, Oob[, Exec]]> takes 1 to 3 template arguments",
                                rule="MGATHER template")
        for p, k in zip(params, kinds):
            if not isinstance(p, k):
                raise PtoCheckError(f"template argument {p!r} is not a {k.__name__}",
                                    rule="MGATHER template")
        return MGatherForm(*params)

    def __repr__(self) -> str:
        args = [a.__class__.__name__ + "." + a.name for a in (self.mode, self.oob, self.exec_) if a is not None]
        return f"MGATHER[{', '.join(args)}]" if args else "MGATHER"

    def __call__(self, dst: Tile, table: GlobalTensor, idx, *rest) -> RecordEvent:
        """``MGATHER(dst, table, idx[, scratch][, events...])``; returns a RecordEvent."""
        rest = operands(rest)                                # C++ trailing wait events
        too_many("MGATHER", [dst, table, idx, *rest], 4)
        place([dst, idx])                                   # automatic placement
        on_instances(self._run, name="MGATHER")(dst, table, idx, rest[0] if rest else None)
        return record("MGATHER")

    def _run(self, dst: Tile, table: GlobalTensor, idx, scratch: GlobalTensor | None = None) -> None:
        core = current_core()
        t = core.target.name
        rules = core.target.mgather
        if not isinstance(dst, Tile):
            raise PtoCheckError(f"dst must be a Tile, got {type(dst).__name__}", rule="MGATHER", target=t)
        if not isinstance(table, GlobalTensor):
            raise PtoCheckError(f"table must be a GlobalTensor, got {type(table).__name__}",
                                rule="MGATHER", target=t)
        if not isinstance(idx, (Tile, GlobalTensor)):
            raise PtoCheckError(f"idx must be a Tile or GlobalTensor, got {type(idx).__name__}",
                                rule="MGATHER", target=t)
        # Every form's code calls dst.GetValidRow/Col; the index tile's valid dims only gate
        # static checks (`ValidRow > 0`), so a static 0 there compiles (targets.ValidGetters)
        require_valid_getters(core, "MGATHER", "mgather", dst=dst, idx=idx)
        if self.exec_ is not None and not rules.simt:
            raise PtoCheckError("GatherExec is defined only by the A5 header", rule="MGATHER<.., Exec>",
                                target=t)
        oob = self.oob if self.oob is not None else GatherOOB.Undefined
        if rules.checks == "cpu":
            # One generic routine: every form honours CMode; scratch is ignored (cpu:97-120).
            mode = self.mode if self.mode is not None else rules.default_mode
            check_cpu(core, mode, dst, table, idx)
            from ...semantics.sim_types import SIM_TYPES
            # `idx < cap ? base[idx] : 0` has no common type when base[idx] is one of the
            # simulator's class types (cpu/MGather.hpp:59): the template does not compile
            check(not (mode == Coalesce.Elem and oob == GatherOOB.Zero and table.DType in SIM_TYPES),
                  "MGATHER<Elem, Zero>: `? base[idx] : 0` on a class element type", t,
                  f"{table.DType} and 0 have no common type in the conditional expression")
            require_assigned(t, ("dst", dst), ("idx", idx))
            if run_mgather_ub(core, mode, oob, dst, table, idx): return  # noqa: E701 (native/cupy kernel)
            return sem.gather(core, mode, oob, dst, table, idx)
        if dst.Loc == TileType.Mat or scratch is not None or self.exec_ is not None:
            from .api_l1 import mgather_gm2l1
            return mgather_gm2l1(core, self, dst, table, idx, scratch, oob)
        mode = self.mode if self.mode is not None else rules.default_mode
        UB_CHECKS[rules.checks](core, mode, dst, table, idx)
        require_assigned(t, ("dst", dst), ("idx", idx))
        if rules.simt:                  # dst aliasing idx: PtoHazard on races; run in lock-step
            from ...semantics.hazards import check_mgather
            if check_mgather(core, mode, oob, dst, table, idx): return  # noqa: E701
        if run_mgather_ub(core, mode, oob, dst, table, idx): return  # noqa: E701 (native/cupy kernel)
        if table.layout == Layout.NZ and rules.nz_tables:
            return sem_nz.gather_nz(core, mode, oob, dst, table, idx)
        return sem.gather(core, mode, oob, dst, table, idx)


MGATHER = MGatherForm()
