"""TLOAD's NPU Vec loads as the DMA bursts the vendor's TLoad issues (copy_gm_to_ubuf_align and
its v2: one burst a valid row of an ND -> RowMajor load, a valid column of DN -> ColMajor, each
filled to its 32-byte boundary with the pad element, or with the burst's first element where the
tile has no PadVal). On the kernel backends the burst engine (``cuda_src/dma.cu``) runs them and
works the pad element out itself (burst.cuh ``npu_pad_bits``: GetPadValue written again in C); the
NumPy semantics write the same bytes from the rule (``api._burst_filler``, ``semantics_pads``), so
the suite's kernel-against-NumPy campaigns check one against the other. A burst trace records the bursts on
every backend. So do the nd2nz (dn2nz) bursts of an ND -> NZ (DN -> ZN) Mat load: the last C0
block of each line filled with the tail value (``api._nd2nz_tail`` on NumPy)."""
from __future__ import annotations

import numpy as np

from ...backend.kernels import enum, use_kernels
from ...enums import PadValue
from ...pad_values import CustomPad
from ...semantics import dma

_TYPES = {"float32": "PADTY_F32", "int32": "PADTY_I32", "uint32": "PADTY_U32", "half": "PADTY_F16",
          "bfloat16": "PADTY_BF16", "int16": "PADTY_I16", "uint16": "PADTY_U16", "int8": "PADTY_I8",
          "uint8": "PADTY_U8"}
"""The element types burst.cuh's GetPadValue table maps (by its enum names; any other: PADTY_OTHER)."""


def pad_code(tile_cls) -> int | None:
    """What the burst engine works a tile's pad element out from (burst.cuh PADMODE_TILE): its
    custom bits, type and PadVal; None for PadVal Null (the burst's first element)."""
    pad = tile_cls.PadVal
    if pad is PadValue.Null:
        return None
    kind = "PADK_CUSTOM" if isinstance(pad, CustomPad) else \
        {PadValue.Zero: "PADK_ZERO", PadValue.Min: "PADK_MIN", PadValue.Max: "PADK_MAX"}[pad]
    custom = pad.bits if isinstance(pad, CustomPad) else 0
    ty = enum("dma.cu", _TYPES.get(tile_cls.DType, "PADTY_OTHER"))
    return (custom & 0xFFFFFFFF) | ty << 32 | enum("dma.cu", kind) << 40


def row_bursts(tile, g: np.ndarray, a: np.ndarray, pad: bytes | None) -> dma.Bursts | None:
    """The load's bursts (GM byte addresses ``g``, tile byte addresses ``a`` of the valid (r, c)),
    or None where a line is not contiguous on both sides (a GM stride other than 1 along it):
    no single burst moves it."""
    VR, VC, size = tile.valid_row, tile.valid_col, tile.Element.itemsize
    if VR == 0 or VC == 0:
        return None
    gg, aa = np.asarray(g, np.int64).reshape(VR, VC), np.asarray(a, np.int64).reshape(VR, VC)
    if not tile.is_nd():                        # DN -> ColMajor: a burst a column
        gg, aa = gg.T, aa.T
    step = np.arange(gg.shape[1], dtype=np.int64) * size
    if not ((gg - gg[:, :1]) == step).all() or not ((aa - aa[:, :1]) == step).all():
        return None
    return dma.Bursts("TLOAD", "gm", tile.space, gg[:, 0].copy(), aa[:, 0].copy(), gg.shape[1] * size,
                      elem=size, pad=pad, pad_tile=None if pad is None else pad_code(type(tile)))


def store_bursts(tile, g: np.ndarray, a: np.ndarray) -> dma.Bursts | None:
    """An NPU TSTORE of an ND (DN) Vec tile as its copy_ubuf_to_gm bursts: one a valid row
    (column) from the tile (byte addresses ``a``) to GM (``g``), its exact bytes (no filler in
    GM); None where a line is not contiguous on both sides."""
    b = row_bursts(tile, g, a, None)
    if b is None:
        return None
    return dma.Bursts("TSTORE", tile.space, "gm", b.dst, b.src, b.length, elem=b.elem, fill=False)


def block_bursts(tile, g: np.ndarray, a: np.ndarray, tail: int) -> dma.Bursts | None:
    """An ND -> NZ (DN -> ZN) Mat load's nd2nz (dn2nz) bursts: one a C0 block of each valid row
    (column), the last one's bytes past the valid ones to its 32-byte end the tail value ``tail``
    (the burst's filler); None where a block is not one contiguous, 32-byte aligned run on both
    sides."""
    VR, VC, size, C0 = tile.valid_row, tile.valid_col, tile.Element.itemsize, tile.C0
    if VR == 0 or VC == 0 or C0 * size != 32:
        return None
    gg, aa = np.asarray(g, np.int64).reshape(VR, VC), np.asarray(a, np.int64).reshape(VR, VC)
    if not tile.is_nz():                        # ZN: a column's blocks
        gg, aa = gg.T, aa.T
    along = gg.shape[1]
    starts = np.arange(0, along, C0, dtype=np.int64)
    lengths = np.minimum(C0, along - starts)
    k = np.arange(along, dtype=np.int64)
    first = starts[k // C0]
    step = (k - first) * size
    if not ((gg - gg[:, first]) == step).all() or not ((aa - aa[:, first]) == step).all() \
            or (aa[:, starts] % 32).any():
        return None
    one = (int(tail) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    return dma.Bursts("TLOAD", "gm", tile.space, gg[:, starts].reshape(-1), aa[:, starts].reshape(-1),
                      np.tile(lengths * size, gg.shape[0]), elem=size, pad=one)


def run(core, b: dma.Bursts) -> bool:
    """Run the bursts through the burst engine on a kernel backend; False on NumPy."""
    if not use_kernels(core):
        return False
    dma.execute(core, b)
    return True
