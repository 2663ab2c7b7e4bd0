"""The batch twin on the kernel backends for the one configuration whose batches do not yet
run on a core of N instances: NPU GM->L1 (mgather_l1.cu; GM copied per instance); one launch
per chunk, one block per instance, arenas strided per instance. (MGATHER into UB, TGATHERB
and TINTERLEAVE batches run on cores of N: ``execution.batch.on_core``.)
``batch_world`` is the canonical MGATHER-into-UB instance the executing fuzz engine plans from.
``native`` runs on the host arrays in place; ``cupy`` copies them to the device and back
(``cupy_backend.launch_raw``; unverified here: no GPU in CI)."""
from __future__ import annotations

import numpy as np

from .config import FuzzConfig
from .single import layout, make_tiles


def _stray(arena: np.ndarray, before: np.ndarray, N: int, stride: int, keep: list[tuple[int, int]],
           shared: tuple = ()) -> np.ndarray:
    """(N,) bool: instance k wrote outside its destination. ``arena`` holds the N instances'
    ``stride``-byte windows (then the last one's spill room), ``before`` its bytes before the
    launch, ``keep`` the byte ranges of a window the instruction writes. ``shared``: (array,
    copy before) pairs of arenas all instances share: a change there cannot be told apart,
    so it marks every instance."""
    rows, rows0 = arena[: N * stride].reshape(N, stride), before[: N * stride].reshape(N, stride)
    d = rows != rows0
    for a, b in keep:
        d[:, a:b] = False
    out = d.any(1)
    if (arena[N * stride:] != before[N * stride:]).any() or any((x != y).any() for x, y in shared):
        out[:] = True
    return out


def batch_world(cfg: FuzzConfig):
    """A Core holding the canonical instance (no indices) and the kernel plan for it."""
    import ptogpu as pto
    from ..lowering.mgather_kernels import plan_mgather
    L = layout(cfg)
    core = pto.Core(cfg.target, "numpy", quirks=cfg.core_quirks)
    with core:
        TableT = pto.GlobalTensor[cfg.dtype, pto.Shape[cfg.shape5], pto.Stride[cfg.stride5], pto.Layout.ND]
        table = TableT(core.gm_put(cfg.table, cfg.dtype))
        idx, dst = make_tiles(cfg, L)
        pto.TASSIGN(idx, L["idx_addr"])
        pto.TASSIGN(dst, L["dst_addr"])
        mode = pto.Coalesce.Row if cfg.mode == "row" else pto.Coalesce.Elem
        oob = getattr(pto.GatherOOB, cfg.oob.capitalize())
        plan = plan_mgather(core, mode, oob, dst, table, idx)
    return core, plan, L, dst


def idx_tile(cfg: FuzzConfig, L: dict):
    return make_tiles(cfg, L)[0]


# Per-instance arenas of one launch stay under this many bytes (a chunk sized for NumPy can
# hold 10^6 instances; a GM copy each would not fit): larger chunks launch in parts.
ARENA_BUDGET = 64 << 20


def _parts(fn, cfg, raw, backend, per_instance: int):
    """``fn`` over slices of ``raw`` small enough for :data:`ARENA_BUDGET`, concatenated; None
    when the slice size is already fine (the caller goes on)."""
    lim = max(1, ARENA_BUDGET // max(per_instance, 1))
    N = raw.shape[0]
    if N <= lim:
        return None
    got = [fn(cfg, raw[i: i + lim], backend) for i in range(0, N, lim)]
    if any(g is None for g in got):
        return False
    return tuple(np.concatenate([g[k] for g in got]) for k in range(5))


def _kernel_backend(backend: str):
    from ..backend import backend_available
    from ..backend.kernels import backend_module
    try:
        if not backend_available(backend)[0]:
            return None
        return backend_module(backend)
    except Exception:
        return None


def mgather_l1_batch(cfg: FuzzConfig, raw: np.ndarray, backend: str):
    """NPU MGATHER GM->L1 batches on the mgather_l1.cu kernels (Row; Elem scalar and SIMT
    executors): one launch per chunk; every instance gets its own copy of the canonical GM
    (table, its index tensor, the scratch: all of GM, so every read is exact) and its own L1
    window (the destination). Instances whose kernel check pass faults or flags a read of the
    scratch are marked for NumPy (which reports the fault / runs the aliasing executor).
    Returns (outputs, codes, elem, fallback mask), or None without a kernel path (the CPU sim,
    whose GM->L1 routine has no kernel; Wrap with capacity 0; no backend)."""
    if backend not in ("native", "cupy") or cfg.instr != "mgather" or cfg.space != "l1":
        return None
    if _kernel_backend(backend) is None:
        return None
    import warnings

    import ptogpu as pto
    from .. import dtypes
    from ..lowering import mgather_l1_kernels as l1k
    from ..backend.kernels import ALIAS_FLAG_WORD
    from ..backend.kernels import backend_module
    L = layout(cfg)
    core = pto.Core(cfg.target, backend, quirks=cfg.core_quirks)
    if core.target.mgather.checks == "cpu":        # the simulator's generic routine: NumPy
        return None
    if not core.target.mgather.simt and cfg.exec == "simt":
        return None
    T = dtypes.as_dtype(cfg.dtype)
    VR, VC = cfg.rows, cfg.cols
    N = raw.shape[0]
    with core, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pto.GlobalTensor[T, pto.Shape[cfg.shape5], pto.Stride[cfg.stride5], pto.Layout.ND](
            core.gm_put(cfg.table, T))
        n = L["idx_n"]
        gi = core.gm_alloc(n, cfg.index_dtype)
        if gi.addr != L["idx_addr"]:
            return None
        elem = cfg.mode == "elem"
        gidx = pto.GlobalTensor[cfg.index_dtype, pto.Shape[1, 1, 1, VR if elem else 1, VC if elem else n],
                                pto.Stride[n, n, n, VC if elem else n, 1], pto.Layout.ND](gi)
        R, C = L["dst_shape"]
        dst = pto.Tile[pto.TileType.Mat, T, R, C, pto.BLayout.ColMajor, VR, VC, pto.SLayout.RowMajor, 512]()
        pto.TASSIGN(dst, 0)
        scratch = None
        if elem:
            sp = core.gm_alloc(R * C, T)
            if sp.addr != L["scratch_addr"]:
                return None
            scratch = pto.GlobalTensor[T, pto.Shape[1, 1, 1, 1, R * C],
                                       pto.Stride[R * C, R * C, R * C, R * C, 1], pto.Layout.ND](sp)
        oob = getattr(pto.GatherOOB, cfg.oob.capitalize())
        pl = l1k.plan(core, oob, dst, table, gidx, scratch, cfg.exec == "simt" and elem)
    if pl is None or N == 0:
        return None
    kernel, block, p = pl
    gsz = core.gm.size
    gstride = -(-gsz // 64) * 64
    big = _parts(mgather_l1_batch, cfg, raw, backend, gstride + dst.nbytes + 64)
    if big is not None:
        return big or None
    gm = np.zeros((N - 1) * gstride + gsz, np.uint8)
    grows = gm[: N * gstride].reshape(N, gstride) if gstride == gsz else None
    base = core.read("gm", 0, gsz)
    ib = np.ascontiguousarray(raw).astype(dtypes.storage(dtypes.as_dtype(cfg.index_dtype)),
                                          copy=False).view(np.uint8).reshape(N, -1)
    ia = L["idx_addr"]
    for k in range(N) if grows is None else ():
        gm[k * gstride: k * gstride + gsz] = base
        gm[k * gstride + ia: k * gstride + ia + ib.shape[1]] = ib[k]
    if grows is not None:
        grows[:] = base
        grows[:, ia: ia + ib.shape[1]] = ib
    nb = dst.nbytes
    lstride = -(-nb // 64) * 64
    lsz = core.l1.size
    l1 = np.zeros((N - 1) * lstride + lsz, np.uint8)
    lrows = l1[: N * lstride].reshape(N, lstride)
    lrows[:, :nb] = cfg.dst_fill
    ub = np.zeros(64, np.uint8)
    arenas = {"gm": (gm, gsz, gstride), "ub": (ub, 64, 0), "l1": (l1, lsz, lstride)}
    g0, l0 = gm.copy(), l1.copy()
    fault = backend_module(backend).launch_raw(kernel, block, N, arenas, p, passes=2)
    back = (fault[:, 0] != np.uint64(0xFFFFFFFFFFFFFFFF)) | (fault[:, ALIAS_FLAG_WORD] == 0)
    # GM: the table and the index tensor are read-only; the Elem scratch is written
    sk = [(L["scratch_addr"], L["scratch_addr"] + dst.nbytes)] if elem else []
    stray = _stray(l1, l0, N, lstride, [(0, nb)], ((ub, 0),)) | _stray(gm, g0, N, gstride, sk)
    return lrows[:, :nb].copy(), np.zeros(N, np.int8), np.full(N, -1, np.int64), back, stray & ~back
