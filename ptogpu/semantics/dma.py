"""The MTE2 DMA burst engine (other-ops.md §D): one engine for every GM→L1 / GM→UB copy.

A transfer is a list of bursts in issue order (loop2, then loop1, then the bursts, §D.2).
At its destination address each burst writes, in order (§D.3): ``left`` pad bytes, the
payload, ``right`` pad bytes, and filler up to the next 32-byte boundary of the absolute
address. Pads and filler repeat one pad element: the path's pad register (its low
``8*sizeof(T)`` bits) in constant mode, else the burst's first element. Bursts are applied
in issue order, last writer wins — that is what makes Compact packing come out right.

Execution is vectorised; where footprints may overlap the last writer of every byte is
found exactly (chunks in issue order, last occurrence within a chunk). All addresses are
checked before anything is written, so a fault leaves memory untouched.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..backend import run_dma_bursts
from ..dma_regs import M21, M40, PathRegs  # noqa: F401 - the registers these bursts read
from ..errors import F_DST, F_OTHER, NotBatched, PtoError, PtoFault
from ..trace import record_bursts
from .faults import Faults

BURST_COUNT_WARN = 4095
MAX_BURSTS = 1 << 22          # emulation limit on distinct bursts in one call
_CHUNK = 1 << 22              # bytes of write matrix built at once


# --------------------------------------------------------------------------------------------
# Burst lists and their execution
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Bursts:
    """Bursts in issue order. ``length`` (payload bytes) may differ per burst; ``left`` and
    ``right`` are pad bytes; ``pad`` is one pad element (``None``: each burst's first
    element); ``repeat`` counts identical issues folded into each listed burst.

    Batch-first: ``src`` may hold one row of source addresses per instance of the step
    (``core.step_instances()``), and ``live`` one row of flags saying which bursts each
    instance issues (default: all); destinations and lengths are every instance's."""
    instr: str
    src_space: str
    dst_space: str
    src: np.ndarray
    dst: np.ndarray
    length: object
    elem: int = 1
    left: int = 0
    right: int = 0
    pad: bytes | None = None
    repeat: int = 1
    fill: bool = True          # pad to the next 32-byte boundary (False: the body only)
    live: np.ndarray | None = None
    pad_tile: int | None = None   # the kernel works ``pad`` out itself: TLOAD's GetPadValue (burst.cuh
                                  # PADMODE_TILE: custom bits | type << 32 | PadVal << 40); NumPy uses ``pad``

    def ends(self, dst, length) -> tuple[np.ndarray, np.ndarray]:
        """Each burst's body end (``dst`` + left pad + ``length`` + right pad) and the end of what
        it writes: the body filled to its next 32-byte boundary (``fill``), else the body."""
        body = np.asarray(dst, np.int64) + self.left + length + self.right
        return body, ((body + 31) // 32 * 32 if self.fill else body)


def _fault(core, instr: str, rule: str, msg: str, code: int = F_OTHER) -> PtoFault:
    return PtoFault(msg, rule=f"{instr}: {rule}", target=core.target.name, code=code)


def execute(core, b: Bursts, prologue=None, ks: np.ndarray | None = None) -> None:
    """Run a burst list on every instance of the step: check every address (an instance's
    first bad burst is its fault, and it writes nothing), trace it, then write (last writer
    wins). ``ks``: the step's instances that issue it (default: every one).

    ``prologue(ks)`` runs for the instances ``ks`` that passed the checks, before the first
    write (e.g. a pre-zero that must not happen when a burst faults); it runs even when there
    is nothing to transfer."""
    kernel = np.ndim(b.src) < 2 and b.live is None and (ks is None or not core.all_at_once)
    if kernel and run_dma_bursts(core, b, prologue): return  # noqa: E701 (native/cupy kernel)
    ks = core.step_instances() if ks is None else ks
    n = len(ks)
    dst = np.asarray(b.dst, np.int64).reshape(-1)
    K = dst.size
    if not K:                                   # no burst: nothing per burst to read (and no
        src, live = np.zeros((n, 0), np.int64), np.ones((n, 0), bool)     # row length to infer)
    else:
        src = np.broadcast_to(np.asarray(b.src, np.int64).reshape(-1 if np.ndim(b.src) < 2 else n, K), (n, K))
        live = np.ones((n, K), bool) if b.live is None else \
            np.broadcast_to(np.asarray(b.live, bool).reshape(-1, K), (n, K))
    length = np.asarray(b.length, np.int64)
    length = np.broadcast_to(length.reshape(-1) if length.ndim else length, (K,))
    body, end = b.ends(dst, length)
    sa, da = core.arena(b.src_space), core.arena(b.dst_space)
    faults = Faults(core, ks)
    faults.first_of(live & ((src < 0) | (src + length > sa.size)), lambda j, k: _fault(
        core, b.instr, "access outside arena",
        f"burst {k[0]} reads {b.src_space.upper()} [{src[j, k[0]]:#x}, {src[j, k[0]] + length[k[0]]:#x}), "
        f"outside [0, {sa.size:#x})"))
    faults.first_of(live & ((dst < 0) | (end > da.size)), lambda j, k: _fault(
        core, b.instr, f"{b.dst_space.upper()} bound",
        f"burst {k[0]} writes {b.dst_space.upper()} [{dst[k[0]]:#x}, {end[k[0]]:#x}), "
        f"outside [0, {da.size:#x})"))
    faults.done()
    ok = faults.ok
    ks, src, live = ks[ok], src[ok], live[ok]
    if n == 1 and not live.all():               # one instance: the bursts it issues
        on = live[0]
        src, dst, length, body, end, live = src[:, on], dst[on], length[on], body[on], end[on], live[:, on]
        K = dst.size
    if not len(ks):
        return
    foot = end - dst
    order = np.argsort(dst, kind="stable")
    disjoint = bool((end[order][:-1] <= dst[order][1:]).all())
    if not disjoint and len(ks) > 1 and not live.all():
        raise NotBatched(b.instr)               # overlapping bursts issued per instance
    if prologue is not None:
        prologue(ks)
    if K == 0 or not length.any() or not live.any():
        return
    if not live.all():                          # (what a burst not issued would read: unused)
        src = np.where(live, src, 0)
    record_bursts(core, b, src[0], dst, length)    # (a core of N records its first instance's)
    if not disjoint and (length == length[0]).all():
        # Equal lengths: bursts with the same start have the same footprint, and the last of
        # them overwrites all of it, so only the last one per start can leave a byte behind.
        _, first_rev = np.unique(dst[::-1], return_index=True)
        keep = np.sort(K - 1 - first_rev)
        if keep.size < K:
            src, dst, length, foot, end, live = (src[:, keep], dst[keep], length[keep], foot[keep],
                                                 end[keep], live[:, keep])
            K = keep.size
            order = np.argsort(dst, kind="stable")
            disjoint = bool((end[order][:-1] <= dst[order][1:]).all())
    F = int(foot.max())
    uniform = np.ndim(b.src) < 2
    for i0 in range(0, len(ks), max(1, _CHUNK // F)):
        i1 = min(len(ks), i0 + max(1, _CHUNK // F))
        step = max(1, _CHUNK // (F * (i1 - i0)))
        for k0 in range(0, K, step):
            sl = slice(k0, k0 + step)
            _write(core, b, ks[i0:i1], src[i0:i1, sl], dst[sl], length[sl], foot[sl], F, disjoint,
                   live[i0:i1, sl], uniform)


def _write(core, b: Bursts, ks, src, dst, length, foot, F, disjoint, live, uniform) -> None:
    """Bursts ``dst`` (the same in every instance ``ks``; sources one row each) written."""
    sb, db = core.banks[b.src_space], core.banks[b.dst_space]
    n = len(ks)
    pos = np.arange(F, dtype=np.int64)[None, :]
    L = length[:, None]
    e = b.elem

    def read(addrs: np.ndarray) -> np.ndarray:          # bytes at (n, ...) source addresses
        if not live.all():
            addrs = np.minimum(addrs, sb.size - 1)
        if uniform:
            return sb.take_same(ks, addrs[0], np.uint8)
        return sb.take(ks, addrs, np.uint8)
    if b.pad is None:
        pat = read(src[:, :, None] + np.arange(e, dtype=np.int64))
    else:
        pat = np.broadcast_to(np.frombuffer(b.pad, np.uint8), (n, src.shape[1], e))
    in_data = (pos >= b.left) & (pos < b.left + L)
    # Pads repeat the element from the start of the left pad and from the end of the payload.
    pidx = np.where(pos < b.left, pos % e, (pos - b.left - L) % e)
    vals = np.take_along_axis(np.ascontiguousarray(pat), np.broadcast_to(pidx, (n, *pidx.shape)), axis=2)
    data = read(np.where(in_data, src[:, :, None] + pos - b.left, 0))
    vals = np.where(in_data, data, vals)
    valid = pos < foot[:, None]
    addrs, v = (dst[:, None] + pos)[valid], vals[:, valid]
    if not disjoint:
        # Row-major flattening keeps issue order; keep each byte's last occurrence.
        uniq, first_rev = np.unique(addrs[::-1], return_index=True)
        addrs, v = uniq, v[:, ::-1][:, first_rev]
    if not live.all():                          # a burst an instance does not issue leaves
        keep = np.broadcast_to(live[:, :, None], (n, *valid.shape))[:, valid]   # its bytes
        v = np.where(keep, v, db.take_same(ks, addrs, np.uint8))
    db.put(ks, addrs, v)


# --------------------------------------------------------------------------------------------
# Strided burst lists (n_burst with head-to-head strides inside loop1 inside loop2)
# --------------------------------------------------------------------------------------------
def strided(n_burst: int, src: int, dst: int, src_stride: int, dst_stride: int,
            loop1: int = 1, loop2: int = 1, l1_src: int = 0, l1_dst: int = 0,
            l2_src: int = 0, l2_dst: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """(src, dst, repeat) of every burst in issue order (§D.2 nesting).

    A loop level whose destination stride is 0 rewrites the same bytes each iteration, so
    when the list would be huge only its last iteration is kept (``repeat`` counts the
    folded issues). Results are unchanged; only the trace lists fewer bursts.
    """
    levels = [[loop2, l2_src, l2_dst], [loop1, l1_src, l1_dst], [n_burst, src_stride, dst_stride]]
    repeat = 1
    base_s, base_d = src, dst
    if loop2 * loop1 * n_burst > MAX_BURSTS:
        for lv in levels:
            if lv[0] > 1 and lv[2] == 0:
                base_s += (lv[0] - 1) * lv[1]
                repeat *= lv[0]
                lv[0] = 1
    total = levels[0][0] * levels[1][0] * levels[2][0]
    if total > MAX_BURSTS:
        raise PtoError(f"{total} distinct bursts in one call exceed the emulation limit "
                       f"({MAX_BURSTS})", rule="DMA emulation limit")
    s = np.int64(base_s)
    d = np.int64(base_d)
    grids = np.meshgrid(*(np.arange(lv[0], dtype=np.int64) for lv in levels), indexing="ij")
    for g, lv in zip(grids, levels):
        s = s + g * lv[1]
        d = d + g * lv[2]
    return np.asarray(s).reshape(-1), np.asarray(d).reshape(-1), repeat


# --------------------------------------------------------------------------------------------
# The instructions' run-time rules
# --------------------------------------------------------------------------------------------
def register_field(core, instr: str, name: str, value, lo: int, hi: int) -> int:
    """A register field: an integer in [lo, hi] or a PtoFault (illegal DMA field value)."""
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise PtoFault(f"{name} = {value!r} is not an integer", rule=f"{instr}: field {name}",
                       target=core.target.name, code=F_OTHER) from None
    if isinstance(value, float) and v != value:
        raise _fault(core, instr, f"field {name}", f"{name} = {value!r} is not an integer")
    if not lo <= v <= hi:
        raise _fault(core, instr, f"field {name}", f"{name} = {v} outside [{lo}, {hi}]")
    return v


def _pads(core, instr, left, right, elem):
    left = register_field(core, instr, "left_padding_count", left, 0, 63)
    right = register_field(core, instr, "right_padding_count", right, 0, 63)
    for name, v in (("left_padding_count", left), ("right_padding_count", right)):
        if v * elem > 32:
            raise _fault(core, instr, "pad <= 32 bytes a side",
                         f"{name} = {v} elements of {elem} bytes = {v * elem} bytes > 32")
    return left, right


def _len_multiple(core, instr, length, elem):
    if length % elem:
        raise _fault(core, instr, "len_burst multiple of sizeof(dtype)",
                     f"len_burst = {length} bytes is not a multiple of {elem}")


def _pad_value(core, instr, path: PathRegs, elem: int) -> bytes:
    if not path.pad_set:
        warnings.warn(f"[{core.target.name}] {instr}: constant padding with a pad register that "
                      f"was never set (hardware: unspecified; emulator: 0)", UserWarning, stacklevel=4)
    return path.pad_bytes(elem)


def _bounds(core, instr, dst, src, length, pads, levels) -> None:
    """Strides are unsigned, so the last burst reaches furthest: check it before building the
    burst list (a transfer too large to list still faults like hardware)."""
    hi_s = src.addr + sum((c - 1) * s for c, s, _ in levels) + length
    last = dst.addr + sum((c - 1) * d for c, _, d in levels) + pads + length
    hi_d = -(-last // 32) * 32
    sa, da = core.arena(src.space), core.arena(dst.space)
    if src.addr < 0 or hi_s > sa.size:
        raise _fault(core, instr, "access outside arena",
                     f"bursts read {src.space.upper()} up to {hi_s:#x}, outside [0, {sa.size:#x})")
    if dst.addr < 0 or hi_d > da.size:
        raise _fault(core, instr, f"{dst.space.upper()} bound",
                     f"bursts write {dst.space.upper()} up to {hi_d:#x}, outside [0, {da.size:#x})", F_DST)


def copy_align_v2(core, instr: str, dst, src, n_burst, len_burst, left, right, constant_pad,
                  cache_ctl, src_stride, dst_stride) -> None:
    """Ascend 950 ``copy_gm_to_{cbuf,ubuf}_align_v2`` (§D.1-§D.3), driven by the path's
    loop and pad registers. ``dst``/``src`` are typed pointers, already type-checked."""
    elem = dst.dtype.itemsize
    n = register_field(core, instr, "n_burst", n_burst, 0, M21)
    length = register_field(core, instr, "len_burst", len_burst, 0, M21)
    left, right = _pads(core, instr, left, right, elem)
    register_field(core, instr, "l2_cache_ctl", cache_ctl, 0, 15)
    ss = register_field(core, instr, "burst_src_stride", src_stride, 0, M40)
    ds = register_field(core, instr, "burst_dst_stride", dst_stride, 0, M21)
    _len_multiple(core, instr, length, elem)
    if n > BURST_COUNT_WARN:
        warnings.warn(f"[{core.target.name}] {instr}: n_burst = {n} exceeds the documented "
                      f"range [0, {BURST_COUNT_WARN}]", UserWarning, stacklevel=3)
    path = core.regs.path(dst.space)
    if n == 0 or length == 0:
        return
    if dst.addr % 32:
        raise _fault(core, instr, "dst 32-byte aligned", f"destination {dst.addr:#x} is not 32-byte aligned")
    padded = bool(left or right)
    if (ds != length or padded) and ds % 32:
        raise _fault(core, instr, "burst_dst_stride 32-byte aligned",
                     f"burst_dst_stride = {ds} differs from len_burst = {length} (or pads are "
                     f"requested) and is not a multiple of 32")
    if path.loop_mode and padded:
        raise _fault(core, instr, "loop mode excludes left/right padding",
                     f"loop sizes ({path.loop1}, {path.loop2}) with left/right padding "
                     f"({left}, {right})")
    for name, v in (("loop1 dst stride", path.loop1_dst), ("loop2 dst stride", path.loop2_dst)):
        if v % 32:
            raise _fault(core, instr, "loop dst strides 32-byte aligned", f"{name} = {v} is not a multiple of 32")
    if path.loop1 == 0 or path.loop2 == 0:
        return                                  # undocumented; zero iterations (§D.2)
    pad = _pad_value(core, instr, path, elem) if (constant_pad or padded) else None
    _bounds(core, instr, dst, src, length, (left + right) * elem,
            ((path.loop2, path.loop2_src, path.loop2_dst), (path.loop1, path.loop1_src, path.loop1_dst),
             (n, ss, ds)))
    s, d, rep = strided(n, src.addr, dst.addr, ss, ds, path.loop1, path.loop2,
                        path.loop1_src, path.loop1_dst, path.loop2_src, path.loop2_dst)
    execute(core, Bursts(instr, src.space, dst.space, s, d, length, elem,
                         left * elem, right * elem, pad, rep))


def copy_align_gap(core, instr: str, dst, src, elem: int, sid, n_burst, len_burst, left, right,
                   src_gap, dst_gap) -> None:
    """A2/A3 ``copy_gm_to_ubuf_align_b{8,16,32}`` (§D.4): gaps converted to head-to-head
    strides (§D.5); pads and filler take ``set_mov_pad_val`` when a pad count is non-zero,
    else each burst's first element."""
    register_field(core, instr, "sid", sid, 0, 15)
    n = register_field(core, instr, "nBurst", n_burst, 0, BURST_COUNT_WARN)
    length = register_field(core, instr, "lenBurst", len_burst, 0, M21)
    left, right = _pads(core, instr, left, right, elem)
    sg = register_field(core, instr, "srcGap", src_gap, 0, M40)
    dg = register_field(core, instr, "dstGap", dst_gap, 0, M21)
    _len_multiple(core, instr, length, elem)
    if n == 0 or length == 0:
        return
    if dst.addr % 32:
        raise _fault(core, instr, "dst 32-byte aligned", f"UB destination {dst.addr:#x} is not "
                     f"32-byte aligned (real A2/A3 silently drops such a transfer)")
    ss = length + sg
    ds = -(-(length + (left + right) * elem) // 32) * 32 + 32 * dg
    pad = _pad_value(core, instr, core.regs.out_to_ub, elem) if (left or right) else None
    _bounds(core, instr, dst, src, length, (left + right) * elem, ((n, ss, ds),))
    s, d, rep = strided(n, src.addr, dst.addr, ss, ds)
    execute(core, Bursts(instr, src.space, dst.space, s, d, length, elem,
                         left * elem, right * elem, pad, rep))
