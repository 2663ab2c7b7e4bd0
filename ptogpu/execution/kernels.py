"""The canonical MGATHER-into-UB instance the executing fuzz engine plans from
(``batch_world``, ``idx_tile``)."""
from __future__ import annotations

from .config import FuzzConfig
from .single import layout


def batch_world(cfg: FuzzConfig):
    """A Core holding the canonical instance (no indices) and the kernel plan for it."""
    import ptogpu as pto
    from ..isa.mgather.kernels import plan_mgather
    L = layout(cfg)
    core = pto.Core(cfg.target, "numpy", quirks=cfg.core_quirks)
    with core:
        TableT = pto.GlobalTensor[cfg.dtype, pto.Shape[cfg.shape5], pto.Stride[cfg.stride5], pto.Layout.ND]
        table = TableT(core.gm_put(cfg.table, cfg.dtype))
        idx, dst = cfg.instruction.make_tiles(cfg, L)
        pto.TASSIGN(idx, L["idx_addr"])
        pto.TASSIGN(dst, L["dst_addr"])
        mode = pto.Coalesce.Row if cfg.mode == "row" else pto.Coalesce.Elem
        oob = getattr(pto.GatherOOB, cfg.oob.capitalize())
        plan = plan_mgather(core, mode, oob, dst, table, idx)
    return core, plan, L, dst


def idx_tile(cfg: FuzzConfig, L: dict):
    return cfg.instruction.make_tiles(cfg, L)[0]
