"""TMOV between Vec and Mat tiles in NumPy, per target engine (docs/tmov.md). Sources are read
before anything is written."""
from __future__ import annotations

import numpy as np

from ...enums import CompactMode
from ...errors import F_DST, F_OTHER
from ...semantics.tile_moves import grid
from ..tcvt.semantics import convert, u


def _move(core, src, dst, sa: np.ndarray, da: np.ndarray, size_s: int, size_d: int, conv=None) -> None:
    t = core.target.name
    core.arena(src.space).check_many(sa, size_s, "TMOV src read", t, code=F_OTHER)
    core.arena(dst.space).check_many(da, size_d, "TMOV dst write", t, code=F_DST)
    ks = core.step_instances()
    bits = core.banks[src.space].take_same(ks, sa, np.dtype(f"u{size_s}")).reshape(len(ks), -1)
    if conv is not None:
        bits = conv(bits)
    core.banks[dst.space].put(ks, da, np.ascontiguousarray(bits))


def elements(core, dst, src) -> None:
    """cpu/TMov.hpp:27-32: dst.SetElement(r, c, src.GetElement(r, c)) over src's valid region,
    each through its tile's layout, the value converted to dst's type as C++ assignment does."""
    r, c = grid(src.valid_row, src.valid_col)
    sa = src.addr + np.asarray(src.offsets(r, c), np.int64) * src.Element.itemsize
    da = dst.addr + np.asarray(dst.offsets(r, c), np.int64) * dst.Element.itemsize
    conv = None
    if src.DType != dst.DType:
        conv = lambda b: convert(core, src.DType, dst.DType, b, "Z", False)   # noqa: E731 (a C++ cast)
    _move(core, src, dst, sa, da, src.Element.itemsize, dst.Element.itemsize, conv)


def bursts(core, dst, src) -> None:
    """a2a3/TMov.hpp:78-132: min(valid) rows and columns, bit copies in 32-byte blocks: one flat
    burst of whole rows where dst's rows are contiguous and full, else a burst per row of
    ceil(VC * sizeof / 32) blocks (the bytes up to the next block boundary come along)."""
    VR, VC = min(src.valid_row, dst.valid_row), min(src.valid_col, dst.valid_col)
    if VR == 0 or VC == 0:
        return
    T = dst.Element.itemsize
    rs_s, rs_d = (src.Cols if src.isRowMajor else 1), (dst.Cols if dst.isRowMajor else 1)
    if (dst.Cols == src.Cols or dst.Rows == 1) and (dst.ValidCol == dst.Cols or VC == dst.Cols):
        n = -(-dst.Cols * VR * T // 32) * 32
        off = np.arange(n, dtype=np.int64)
        return _move(core, src, dst, src.addr + off, dst.addr + off, 1, 1)
    n = -(-VC * T // 32) * 32
    r, b = grid(VR, n)
    _move(core, src, dst, src.addr + r * rs_s * T + b, dst.addr + r * rs_d * T + b, 1, 1)


def vregs(core, dst, src) -> None:
    """a5/TMov.hpp:641-667: min(valid) rows and columns, exactly VC elements a row at RowStride,
    both pointers typed as dst's element type (a bit copy); ND -> NZ (495-543): element (r, c) to
    (c / C0) * V * C0 + r * C0 + c % C0 with V = ceil16(dst's valid rows) (+1 for a RowPlusOne
    dst), src's valid rows only."""
    T = dst.Element.itemsize
    if dst.isRowMajor is False and dst.SLayout.name == "RowMajor" and src.isRowMajor and src.SLayout.name == "NoneBox":
        C0 = 32 // T
        V = -(-dst.valid_row // 16) * 16 + (dst.Compact == CompactMode.RowPlusOne)   # (517-520: isOptForConflict)
        r, c = grid(src.valid_row, dst.valid_col)
        sa = src.addr + (r * src.Cols + c) * T
        da = dst.addr + ((c // C0) * V * C0 + r * C0 + c % C0) * T
        return _move(core, src, dst, sa, da, T, T)
    if dst.isRowMajor and dst.SLayout.name == "ColMajor" and src.isRowMajor and src.SLayout.name == "NoneBox":
        return nd_to_zn(core, dst, src)
    VR, VC = min(src.valid_row, dst.valid_row), min(src.valid_col, dst.valid_col)
    rs_s, rs_d = (src.Cols if src.isRowMajor else 1), (dst.Cols if dst.isRowMajor else 1)
    r, c = grid(VR, VC)
    _move(core, src, dst, src.addr + (r * rs_s + c) * T, dst.addr + (r * rs_d + c) * T, T, T)


def nd_to_zn(core, dst, src) -> None:
    """a5/TMov.hpp:575-639 (TMovNdTo2Zn): whole fractals only (kF = VR // C0 row blocks, nF =
    VC // 16 column blocks of dst's valid shape), src rows VC apart whatever its Cols:
    D[((kf * nF + nf) * 16 + j) * C0 + i] = S[(kf * C0 + i) * VC + nf * 16 + j]."""
    T = dst.Element.itemsize
    C0 = 32 // T
    VR, VC = dst.valid_row, dst.valid_col
    kF, nF = VR // C0, VC // 16
    if kF * nF == 0:
        return
    kf, nf, j, i = (x.reshape(-1) for x in np.meshgrid(np.arange(kF), np.arange(nF), np.arange(16), np.arange(C0),
                                                         indexing="ij"))
    da = dst.addr + (((kf * nF + nf) * 16 + j) * C0 + i) * T
    sa = src.addr + ((kf * C0 + i) * VC + nf * 16 + j) * T
    _move(core, src, dst, sa.astype(np.int64), da.astype(np.int64), T, T)


def vec_to_mat_flat(core, dst, src) -> None:
    """a5/TExtract.hpp:412-415: an ND source goes to L1 as one contiguous copy of
    floor(dst VR * dst VC * sizeof / 32) blocks -- no relayout, whatever dst's layout."""
    n = dst.valid_row * dst.valid_col * dst.Element.itemsize // 32 * 32
    off = np.arange(n, dtype=np.int64)
    _move(core, src, dst, src.addr + off, dst.addr + off, 1, 1)


def vec_nz_to_mat(core, dst, src) -> None:
    """a5/TExtract.hpp:416-421: an NZ source goes to L1 as copy_ubuf_to_cbuf(nBurst =
    ceil(dst VC / C0), lenBurst = ceil16(dst VR) 32-byte blocks, srcGap = Src::Rows - Dst::Rows
    blocks, dstGap = 0): burst k reads src + k * (len + srcGap) * 32 and writes dst + k * len * 32
    (every count a uint16_t, as the code declares them)."""
    c0 = 32 // src.Element.itemsize
    n_burst = (-(-dst.valid_col // c0)) & 0xFFFF
    length = ((-(-dst.valid_row // 16)) * 16 * c0 * src.Element.itemsize // 32) & 0xFFFF
    gap = (src.Rows - dst.Rows) & 0xFFFF
    k = np.arange(n_burst, dtype=np.int64)[:, None]
    off = np.arange(length * 32, dtype=np.int64)[None, :]
    _move(core, src, dst, (src.addr + k * (length + gap) * 32 + off).reshape(-1),
          (dst.addr + k * length * 32 + off).reshape(-1), 1, 1)


__all__ = ["elements", "bursts", "vregs", "vec_to_mat_flat", "vec_nz_to_mat", "u"]
