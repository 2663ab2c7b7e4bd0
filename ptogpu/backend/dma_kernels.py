"""The DMA burst executor on the kernel backends (cuda_src/dma.cu ``dma_bursts``).

:func:`run_bursts` is the hook ``semantics/dma.execute`` calls first. It returns False (NumPy
runs the burst list) on the numpy backend, for bursts within one arena, for a first-element
pad pattern wider than a zero-length payload (NumPy reads
past the payload there), and when the kernel finds a fault (NumPy then raises the same fault,
nothing having been written). Otherwise pass 0 checks every burst, the prologue runs, the
burst list is recorded into any active ``core.trace()`` exactly as NumPy records it, and
pass 1 writes every burst in issue order (last writer wins).
"""
from __future__ import annotations

import numpy as np

from ..trace import record_bursts
from .kernels import all_clean, enum, i64, launch_on, use_kernels

FILE = "dma.cu"
_SPACE = {"gm": 0, "ub": 1, "l1": 2}


def burst_params(b, src, dst, length) -> np.ndarray:
    """The parameter block of ``dma_bursts`` for the burst list ``b`` (semantics.dma.Bursts)."""
    hdr = enum(FILE, "DMA_HDR")
    p = np.zeros(hdr + 3 * src.size, np.int64)
    p[enum(FILE, "DMA_K")] = src.size
    p[enum(FILE, "DMA_SRC_SPACE")] = _SPACE[b.src_space]
    p[enum(FILE, "DMA_DST_SPACE")] = _SPACE[b.dst_space]
    f = enum(FILE, "DMA_FMT")
    pad = 0 if b.pad is None else int.from_bytes(bytes(b.pad)[:8], "little")
    mode = "PADMODE_FIRST" if b.pad is None else "PADMODE_BYTES" if b.pad_tile is None else "PADMODE_TILE"
    if b.pad_tile is not None:
        pad = b.pad_tile
    for name, v in (("BF_ELEM", b.elem), ("BF_LEFT", b.left), ("BF_RIGHT", b.right),
                    ("BF_FILL", int(b.fill)), ("BF_PADMODE", enum(FILE, mode)),
                    ("BF_PAD", i64(pad))):
        p[f + enum(FILE, name)] = v
    body = p[hdr:].reshape(-1, 3)
    body[:, 0], body[:, 1], body[:, 2] = src, dst, length
    return p


def run_bursts(core, b, prologue=None) -> bool:
    if not use_kernels(core) or b.src_space == b.dst_space:
        return False
    if b.elem > 8 or (b.pad is not None and len(bytes(b.pad)) < b.elem):
        return False
    src = np.asarray(b.src, np.int64).reshape(-1)
    dst = np.asarray(b.dst, np.int64).reshape(-1)
    length = np.asarray(b.length, np.int64)
    length = np.broadcast_to(length.reshape(-1) if length.ndim else length, (src.size,))
    if src.size == 0 or not length.any():
        return False
    if b.pad is None and (length < b.elem).any():
        return False
    prm = burst_params(b, src, dst, length)
    if not all_clean(launch_on(core, "dma_bursts", prm, passes=1, writes=())):
        return False
    if prologue is not None:
        prologue(core.step_instances())
    record_bursts(core, b, src, dst, length)    # (the same record NumPy's execute() makes)
    _, end = b.ends(dst, length)
    # (what it writes: each burst's [dst, end), so a kept core restores that range alone)
    launch_on(core, "dma_bursts", prm, passes=2, writes=((b.dst_space, int(dst.min()), int(end.max())),))
    return True
