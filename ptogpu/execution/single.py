"""One instance through the public API: the reference the batch paths must match byte for
byte, and the text of a runnable reproducer snippet doing exactly the same."""
from __future__ import annotations

import re
import threading

import numpy as np

from .. import dtypes
from ..errors import PtoFault
from .config import FuzzConfig, pad_to

# Fault codes of a batch (0: none). The phase of the first fault, as the NumPy backend
# reports it: an index read, a table (GM) read, a destination write, or anything else.
F_NONE, F_INDEX, F_TABLE, F_DST, F_OTHER = 0, 1, 2, 3, 4


def fault_code(msg: str) -> int:
    m = msg.lower()
    if "index read" in m or "offset read" in m:
        return F_INDEX
    if "table read" in m or "burst read" in m or re.search(r"reads gm", m) or "source" in m:
        return F_TABLE
    if "write" in m or "writes" in m:
        return F_DST
    return F_OTHER


def layout(cfg: FuzzConfig) -> dict:
    """Addresses and tile geometry of the canonical instance (shared with the batch paths)."""
    T, isz = cfg.esize, dtypes.as_dtype(cfg.index_dtype).itemsize
    VR, VC = cfg.tile_shape if cfg.instr == "mgather" and cfg.space == "ub" else (cfg.rows, cfg.cols)
    d: dict = {"T": T, "isz": isz}
    tbytes = cfg.table_elems * T
    d["table_bytes"] = tbytes
    if cfg.instr == "mgather" and cfg.space == "ub":
        def extent(size: int) -> tuple[int, int]:
            """(Rows, Cols) of a VR x VC tile of `size`-byte elements in cfg.layout: the 32-byte
            rule on the contiguous dim (NoneBox), C0 columns and 16 rows per box (boxed)."""
            e = 32 // size
            if cfg.layout == "nd":
                return max(VR, 1), pad_to(VC, e)
            if cfg.layout == "dn":
                return pad_to(VR, e), max(VC, 1)
            return pad_to(VR, 16), pad_to(VC, e)
        if cfg.mode == "elem":
            d["idx_shape"] = (*extent(isz), cfg.rows, cfg.cols)
        else:
            d["idx_shape"] = (1, pad_to(VR, 32 // isz), 1, cfg.rows)
        ir, ic = d["idx_shape"][:2]
        d["idx_addr"] = 0
        d["dst_shape"] = extent(T)
        d["dst_addr"] = pad_to(ir * ic * isz, 32)
        d["gm_size"] = pad_to(tbytes, 64)
    elif cfg.instr == "mgather":
        c0 = 32 // T
        d["dst_shape"] = (pad_to(VR, 16), pad_to(VC, c0))
        d["dst_addr"] = 0
        d["idx_addr"] = pad_to(tbytes, 64)
        n_i = VR * VC if cfg.mode == "elem" else VR
        d["idx_n"] = n_i
        d["scratch_addr"] = pad_to(d["idx_addr"] + n_i * isz, 64) if n_i * isz else d["idx_addr"]
        numel = d["dst_shape"][0] * d["dst_shape"][1]
        d["gm_size"] = pad_to(d["scratch_addr"] + (numel * T if cfg.mode == "elem" else 0), 64)
    elif cfg.instr == "tgatherb":
        d["src_shape"] = (1, pad_to(cfg.table_size, 32 // T))
        d["src_addr"] = 0
        d["off_shape"] = (max(VR, 1), cfg.off_cols)
        d["off_addr"] = pad_to(d["src_shape"][1] * T, 32)
        d["dst_shape"] = (max(VR, 1), pad_to(VC, 32 // T))
        d["dst_addr"] = pad_to(d["off_addr"] + d["off_shape"][0] * d["off_shape"][1] * 4, 32)
    else:
        shp = (max(VR, 1), pad_to(VC, 32 // T))
        n = shp[0] * shp[1] * T
        d["tile_shape"] = shp
        d["addrs"] = [k * pad_to(n, 32) for k in range(4)]     # src0, src1, dst0, dst1
    return d


def check_fits(cfg: FuzzConfig) -> None:
    """ValueError when the canonical instance of ``cfg`` cannot be laid out in its target's
    memories (the batch paths and the reproducers assume it can)."""
    from ..memory import GM_LIMIT
    from ..targets import get_target
    t = get_target(cfg.target)
    L = layout(cfg)
    T = L["T"]
    if cfg.instr == "mgather" and cfg.space == "l1":
        r, c = L["dst_shape"]
        need = {"l1": (r * c * T, t.l1_bytes)}
    elif cfg.instr in ("mgather", "tgatherb"):
        r, c = L["dst_shape"]
        need = {"ub": (L["dst_addr"] + r * c * T, t.ub_usable)}
    else:
        r, c = L["tile_shape"]
        need = {"ub": (L["addrs"][3] + r * c * T, t.ub_usable)}
    need["gm"] = (L.get("gm_size", 0), GM_LIMIT)
    for space, (n, limit) in need.items():
        if n > limit:
            raise ValueError(f"{cfg.label}: the instance needs {n:,} bytes of {space.upper()}, "
                             f"{cfg.target} has {limit:,}")


def tile_classes(cfg: FuzzConfig, L: dict | None = None):
    """(index tile class, destination tile class) of an MGATHER-into-UB configuration."""
    import ptogpu as pto
    from .config import LAYOUTS
    L = L or layout(cfg)
    bl, sl = (getattr(pto.BLayout, LAYOUTS[cfg.layout][0]), getattr(pto.SLayout, LAYOUTS[cfg.layout][1]))
    ir, ic, ivr, ivc = L["idx_shape"]
    vr, vc = cfg.rows, cfg.cols
    if cfg.storage is not None:                    # valid dims set per tile (make_tiles)
        D = pto.DYNAMIC
        if cfg.mode == "elem":
            ivr = ivc = vr = vc = D
        else:                                      # [1, R] index tile; ValidCol stays static
            ivc = vr = D
    
    if cfg.mode == "elem":
        IdxT = pto.Tile[pto.TileType.Vec, cfg.index_dtype, ir, ic, bl, ivr, ivc, sl, 512]
    else:
        IdxT = pto.Tile[pto.TileType.Vec, cfg.index_dtype, ir, ic, pto.BLayout.RowMajor, ivr, ivc]
    DstT = pto.Tile[pto.TileType.Vec, cfg.dtype, *L["dst_shape"], bl, vr, vc, sl, 512]
    return IdxT, DstT


def make_tiles(cfg: FuzzConfig, L: dict | None = None):
    """(index tile, destination tile) instances of an MGATHER-into-UB configuration, with
    their dynamic valid dims set when ``cfg.storage`` is."""
    L = L or layout(cfg)
    IdxT, DstT = tile_classes(cfg, L)
    if cfg.storage is None:
        return IdxT(), DstT()
    if cfg.mode == "row":
        return IdxT(cfg.rows), DstT(cfg.rows)
    return IdxT(cfg.rows, cfg.cols), DstT(cfg.rows, cfg.cols)


def offset_image(idx: np.ndarray, L: dict) -> np.ndarray:
    """TGATHERB's offset tile from the instance's values: with 0 valid rows the tile keeps its
    one (zero) row and nothing is read from it."""
    shape = L["off_shape"]
    if idx.size == shape[0] * shape[1]:
        return idx.reshape(shape)
    img = np.zeros(shape[0] * shape[1], idx.dtype)
    img[: idx.size] = idx
    return img.reshape(shape)


def cast_indices(cfg: FuzzConfig, values: np.ndarray) -> np.ndarray:
    """Generator values (int64) as the instance's index (or data) array, wrapping."""
    v = np.asarray(values, np.int64)
    if cfg.instr == "tgatherb":
        return (v * 32).astype(np.uint32)          # block-granular byte offsets, mod 2^32
    if cfg.instr == "tinterleave":
        st = dtypes.storage(dtypes.as_dtype(cfg.dtype))
        return v.astype(np.uint64).astype(np.dtype(f"u{st.itemsize}")).view(st)
    return v.astype(dtypes.storage(dtypes.as_dtype(cfg.index_dtype)))


def run_single(cfg: FuzzConfig, values, backend: str = "numpy"):
    """Run one instance through the public API. Returns (output bytes, fault message or None)."""
    import warnings

    import ptogpu as pto
    L = layout(cfg)
    idx = cast_indices(cfg, np.asarray(values).reshape(-1))
    core = pto.Core(cfg.target, backend, quirks=cfg.core_quirks)
    T = dtypes.as_dtype(cfg.dtype)
    with core, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = _run(pto, core, cfg, L, T, idx)
            return out, None
        except PtoFault as e:
            return _read_out(core, cfg, L), str(e)


BATCH_CORE = 4096
"""Instances per core of N in :func:`run_instances`."""

STRAY_SLACK = 256
"""Bytes past the program's footprint that :class:`Watch` checks at least in each UB / L1 row
(it checks on to the end of that 4 KiB page: the pages the program touched)."""


class Watch:
    """Which instances' instruction wrote outside its destination (a kernel's stray write):
    :meth:`start` just before the instruction copies each memory's watched bytes, :meth:`stray`
    after it compares. ``keep`` maps a space to the byte ranges the instruction writes. A
    memory all instances still share is watched whole (a change marks every instance: it
    cannot be told whose it was); per-instance rows up to the program's footprint plus
    :data:`STRAY_SLACK` bytes, rounded up to a 4 KiB page (a write further out is not seen:
    reading every instance's whole UB would cost more than the launch)."""

    def __init__(self, core, keep: dict[str, list[tuple[int, int]]]) -> None:
        self.core, self.keep, self.saved = core, keep, {}

    def start(self) -> None:
        for s, b in self.core.banks.items():
            w = window(self.core, self.keep, s)
            self.saved[s] = (w, b.flat[: b.size].copy() if b.shared else b.rows()[:, :w].copy())

    def stray(self) -> np.ndarray:
        n = self.core.batch
        out = np.zeros(n, bool)
        for s, (w, before) in self.saved.items():
            b = self.core.banks[s]
            if b.shared:                # still one row: any change is every instance's
                now, before = b.flat[None, : before.size], before[None]
            else:
                now, before = b.rows()[:, :w], (before[None, :w] if before.ndim == 1 else before)
            hit = _changed(now, before, self.keep.get(s, ()))
            out |= hit if hit.size == n else hit.any()
        return out


def window(core, keep: dict[str, list[tuple[int, int]]], space: str) -> int:
    """The bytes ``[0, window)`` of each instance's ``space`` the program's writes (``keep``,
    its inputs below them, GM's allocations) lie in, plus :data:`STRAY_SLACK`, to the end of
    the page."""
    b = core.banks[space]
    ends = [e for _, e in keep.get(space, ())] + [b.top]
    if b.shared:                        # what the row holds counts as footprint
        nz = np.flatnonzero(b.flat[: b.size])
        ends.append(int(nz[-1]) + 1 if nz.size else 0)
    return min(b.size, -(-(max(ends) + STRAY_SLACK) // 4096) * 4096)


def _changed(now: np.ndarray, before: np.ndarray, keep) -> np.ndarray:
    """Rows of ``now`` that differ from ``before`` outside the ``keep`` byte ranges: first
    8 bytes at a time (the words wholly inside a kept range skipped), then byte by byte for
    the rows that word test flags."""
    w8 = now.shape[1] // 8 * 8
    cand = np.zeros(now.shape[0], bool)
    if w8 and now.strides[1] == 1 and (now.strides[0] % 8 == 0 or now.shape[0] == 1) \
            and now.ctypes.data % 8 == 0:
        d = np.ascontiguousarray(now[:, :w8]).view(np.uint64) != \
            np.ascontiguousarray(np.broadcast_to(before, now.shape)[:, :w8]).view(np.uint64)
        for a, e in keep:
            d[:, -(-a // 8): e // 8] = False
        cand = d.any(axis=1)
        cand |= (now[:, w8:] != before[:, w8:]).any(axis=1)
        rows = np.flatnonzero(cand)
    else:
        rows = np.arange(now.shape[0])
    out = np.zeros(now.shape[0], bool)
    if rows.size:
        d = now[rows] != np.broadcast_to(before, now.shape)[rows]
        for a, e in keep:
            d[:, a:e] = False
        out[rows] = d.any(axis=1)
    return out


def footprint(cfg: FuzzConfig, L: dict) -> dict[str, list[tuple[int, int]]]:
    """The byte ranges the program's instruction writes, by space (what :class:`Watch` keeps)."""
    if cfg.instr == "tinterleave":
        r, c = L["tile_shape"]
        n = r * c * L["T"]
        return {"ub": [(L["addrs"][2], L["addrs"][2] + n), (L["addrs"][3], L["addrs"][3] + n)]}
    r, c = L["dst_shape"]
    n = r * c * L["T"]
    if cfg.instr == "tgatherb":
        # A2/A3's tail stream stores 8 whole blocks per tail row: up to 256 bytes past the tile
        return {"ub": [(L["dst_addr"], L["dst_addr"] + n + 256)]}
    space = "l1" if cfg.instr == "mgather" and cfg.space == "l1" else "ub"
    keep = {space: [(L["dst_addr"], L["dst_addr"] + n)]}
    if space == "l1" and cfg.mode == "elem":
        keep["gm"] = [(L["scratch_addr"], L["scratch_addr"] + n)]
    return keep


def run_instances(cfg: FuzzConfig, values: np.ndarray, backend: str = "numpy", *,
                  watch: bool = False, info: dict | None = None):
    """Many instances (one row of generator values each) through the public API on cores of
    N instances: the program of :func:`run_single`, run once per core of up to
    :data:`BATCH_CORE`. Returns (output bytes, one row per instance; fault messages or None),
    and with ``watch`` the (N,) stray-write mask (:class:`Watch`). ``info`` receives the
    cores' step counts (``Core.steps`` summed)."""
    import warnings

    import ptogpu as pto
    values = np.asarray(values)
    N = len(values)
    L = layout(cfg)
    T = dtypes.as_dtype(cfg.dtype)
    outs, faults, strays = [], [], []
    keep = footprint(cfg, L)
    for a in range(0, N, BATCH_CORE):
        v = values[a: a + BATCH_CORE]
        idx = cast_indices(cfg, v.reshape(-1)).reshape(len(v), -1)
        key, core = _take_core(pto, cfg, backend, len(v))
        w = Watch(core, keep) if watch else None
        with core, warnings.catch_warnings():           # (an exception drops the core)
            warnings.simplefilter("ignore")
            try:                        # (the batch of one is the single core: it raises)
                o = _run(pto, core, cfg, L, T, idx[0] if len(v) == 1 else idx,
                         before=w.start if w else None)
                f = [None if e is None else str(e) for e in core.faults]
            except PtoFault as e:
                o, f = _read_out(core, cfg, L), [str(e)]
        outs.append(o.reshape(len(v), -1))
        faults += f
        if w:
            strays.append(w.stray() if w.saved else np.zeros(len(v), bool))
        if info is not None:
            for k, c in core.steps.items():
                info[k] = info.get(k, 0) + c
        if not (w and strays[-1].any()):    # a stray write may lie past what clear zeroes
            core.clear({s: window(core, keep, s) for s in core.banks})
            _give_back(key, core)
    ob = outs[0].shape[1] if outs else 0
    out = (np.concatenate(outs) if outs else np.zeros((0, ob), np.uint8)), faults
    if watch:
        return (*out, np.concatenate(strays) if strays else np.zeros(0, bool))
    return out


_REUSE = threading.local()


def _take_core(pto, cfg: FuzzConfig, backend: str, n: int):
    """A clean core of n instances for ``cfg``'s target: one this thread cleared after an
    earlier run when there is one (a fresh core of 4096 instances pays a page fault per
    instance), else a new one. Returns (key, core) for :func:`_give_back`."""
    key = (cfg.target, backend, tuple(sorted(cfg.core_quirks.items())), n)
    cores = getattr(_REUSE, "cores", None)
    if cores is None:
        cores = _REUSE.cores = {}
    core = cores.pop(key, None)
    return key, core or pto.Core(cfg.target, backend, quirks=cfg.core_quirks, batch=n)


def _give_back(key, core) -> None:
    """Keep a cleared core for the next run (the three last used: a chunked run needs two
    sizes)."""
    cores = _REUSE.cores
    cores[key] = core
    while len(cores) > 3:
        cores.pop(next(iter(cores)))


def _read_out(core, cfg, L) -> np.ndarray:
    if cfg.instr == "mgather":
        r, c = L["dst_shape"]
        return core.read("ub" if cfg.space == "ub" else "l1", L["dst_addr"], r * c * L["T"])
    if cfg.instr == "tgatherb":
        r, c = L["dst_shape"]
        return core.read("ub", L["dst_addr"], r * c * L["T"])
    r, c = L["tile_shape"]
    n = r * c * L["T"]
    return np.concatenate([core.read("ub", L["addrs"][2], n), core.read("ub", L["addrs"][3], n)], axis=-1)


def _prefill(core, cfg, tile) -> None:
    """The destination's bytes before the instruction (cfg.dst_fill)."""
    if cfg.dst_fill:
        core.write(tile.space, tile.addr, bytes([cfg.dst_fill]) * tile.nbytes)


def _run(pto, core, cfg, L, T, idx, before=None) -> np.ndarray:
    """The instance's program; ``idx`` is one instance's values, or one row per instance of a
    core of N (then every input is per instance and the output has a row per instance).
    ``before()`` is called just before the instruction (after its inputs are in place)."""
    VR, VC = cfg.rows, cfg.cols
    K = core.batch
    before = before or (lambda: None)

    def each(a: np.ndarray, *shape: int) -> np.ndarray:
        return a.reshape(*shape) if K == 1 else a.reshape(K, *shape)
    if cfg.instr == "mgather":
        TableT = pto.GlobalTensor[T, pto.Shape[cfg.shape5], pto.Stride[cfg.stride5], pto.Layout.ND]
        table = TableT(core.gm_put(cfg.table, T))
        mode = pto.Coalesce.Row if cfg.mode == "row" else pto.Coalesce.Elem
        oob = getattr(pto.GatherOOB, cfg.oob.capitalize())
        if cfg.space == "ub":
            ir, ic, ivr, ivc = L["idx_shape"]
            it, dst = make_tiles(cfg, L)
            pto.TASSIGN(it, L["idx_addr"])
            pto.TASSIGN(dst, L["dst_addr"])
            _prefill(core, cfg, dst)
            it.set(each(idx, ivr, ivc))
            before()
            pto.MGATHER[mode, oob](dst, table, it)
        else:
            gi = core.gm_put(idx, cfg.index_dtype, per_instance=K > 1)
            n = idx.size // K
            IdxG = pto.GlobalTensor[cfg.index_dtype, pto.Shape[1, 1, 1, VR if cfg.mode == "elem" else 1,
                                                             VC if cfg.mode == "elem" else n],
                                    pto.Stride[n, n, n, VC if cfg.mode == "elem" else n, 1], pto.Layout.ND]
            gidx = IdxG(gi)
            R, C = L["dst_shape"]
            DstT = pto.Tile[pto.TileType.Mat, T, R, C, pto.BLayout.ColMajor, VR, VC,
                            pto.SLayout.RowMajor, 512]
            dst = DstT()
            pto.TASSIGN(dst, 0)
            _prefill(core, cfg, dst)
            before()
            if cfg.mode == "row":
                pto.MGATHER[mode, oob](dst, table, gidx)
            else:
                sp = core.gm_alloc(R * C, T)
                assert sp.addr == L["scratch_addr"], (sp.addr, L)
                scratch = pto.GlobalTensor[T, pto.Shape[1, 1, 1, 1, R * C],
                                           pto.Stride[R * C, R * C, R * C, R * C, 1], pto.Layout.ND](sp)
                if cfg.exec == "simt":
                    pto.MGATHER[mode, oob, pto.GatherExec.Simt](dst, table, gidx, scratch)
                elif cfg.exec == "scalar" and core.target.mgather.simt:
                    pto.MGATHER[mode, oob, pto.GatherExec.Scalar](dst, table, gidx, scratch)
                else:
                    pto.MGATHER[mode, oob](dst, table, gidx, scratch)
        return _read_out(core, cfg, L)
    if cfg.instr == "tgatherb":
        SrcT = pto.Tile[pto.TileType.Vec, T, *L["src_shape"]]
        OffT = pto.Tile[pto.TileType.Vec, pto.uint32, *L["off_shape"]]
        DstT = pto.Tile[pto.TileType.Vec, T, *L["dst_shape"], pto.BLayout.RowMajor, VR, VC]
        src, off, dst = SrcT(), OffT(), DstT()
        pto.TASSIGN(src, L["src_addr"])
        pto.TASSIGN(off, L["off_addr"])
        pto.TASSIGN(dst, L["dst_addr"])
        _prefill(core, cfg, dst)
        src.set(np.resize(cfg.table, L["src_shape"]).astype(src.Element))
        off.set(offset_image(idx, L) if K == 1 else
                np.stack([offset_image(row, L) for row in idx]))
        before()
        pto.TGATHERB(dst, src, off)
        return _read_out(core, cfg, L)
    TT = pto.Tile[pto.TileType.Vec, T, *L["tile_shape"], pto.BLayout.RowMajor, VR, VC]
    s0, s1, d0, d1 = TT(), TT(), TT(), TT()
    for t, a in zip((s0, s1, d0, d1), L["addrs"]):
        pto.TASSIGN(t, a)
    _prefill(core, cfg, d0)
    _prefill(core, cfg, d1)
    half = idx.shape[-1] // 2
    s0.set(each(idx[..., :half], VR, VC))
    s1.set(each(idx[..., half:], VR, VC))
    before()
    pto.TINTERLEAVE(d1, d0, s1, s0)
    return _read_out(core, cfg, L)
