"""TCMP / TCMPS / TSEL / TSELS in NumPy, batch-first over a step's instances: each target's
comparison, the bytes its mask rows take (packing, padding lanes, the zeroed or inverted bytes)
and how TSEL / TSELS walk a mask. Everything is read before anything is written; an access
outside an arena faults the instance with nothing written."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import CmpMode
from ...errors import F_DST, F_OTHER
from ...semantics.tile_moves import grid


# -- reading and writing ---------------------------------------------------------------------------
def read(core, tile, addrs: np.ndarray, size: int, what: str) -> np.ndarray:
    """Each instance's elements of ``size`` bytes at ``addrs`` of the tile's space (checked)."""
    core.arena(tile.space).check_many(addrs, size, what, core.target.name, code=F_OTHER)
    ks = core.step_instances()
    return core.banks[tile.space].take_same(ks, addrs, np.dtype(f"u{size}")).reshape(len(ks), -1)


def write(core, tile, addrs: np.ndarray, values: np.ndarray, size: int, what: str) -> None:
    core.arena(tile.space).check_many(addrs, size, what, core.target.name, code=F_DST)
    ks = core.step_instances()
    core.banks[tile.space].put(ks, addrs, np.ascontiguousarray(np.broadcast_to(values, (len(ks), addrs.size))))


def layout_addrs(tile, r, c) -> np.ndarray:
    return tile.addr + np.asarray(tile.offsets(r, c), np.int64) * tile.Element.itemsize


def row_addrs(tile, r, c) -> np.ndarray:
    """The NPUs' ``base + (r * Cols + c) * sizeof(T)`` (their row-major addressing)."""
    return tile.addr + (r * tile.Cols + c) * tile.Element.itemsize


# -- comparing ---------------------------------------------------------------------------------------
def numbers(bits: np.ndarray, T: str, half_bits: bool = False) -> np.ndarray:
    """Element bits as exact float64 / int64 (uint64 kept) values; ``half_bits``: 16-bit integers
    read as half (A2/A3's TCMPS reinterprets them)."""
    if half_bits and T in ("int16", "uint16"):
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    dt = dtypes.as_dtype(T)
    v = bits.astype(np.dtype(f"u{dt.itemsize}")).view(dt)
    if dt.kind == "f" or T in ("half", "bfloat16"):
        with np.errstate(invalid="ignore"):          # (NaN payloads cast as they are)
            return v.astype(np.float64)
    return v if T == "uint64" else v.astype(np.int64)


def compare(mode: CmpMode, x: np.ndarray, y: np.ndarray, tolerant: bool = False) -> np.ndarray:
    """``x mode y``: IEEE (NaN: EQ and the orders false, NE true; -0 == +0); ``tolerant``: the
    simulator's TCMPS, EQ as |x - y| < 1e-9 in double and NE as NaN-or-|x - y| > 1e-9 (so
    inf == inf is false, and so is inf != inf)."""
    with np.errstate(invalid="ignore", over="ignore"):
        if tolerant and mode in (CmpMode.EQ, CmpMode.NE):
            d = np.abs(x.astype(np.float64) - y.astype(np.float64))
            if mode == CmpMode.EQ:
                return d < 1e-9
            return np.isnan(x.astype(np.float64)) | np.isnan(y.astype(np.float64)) | (d > 1e-9)
        return {CmpMode.EQ: np.equal, CmpMode.NE: np.not_equal, CmpMode.LT: np.less, CmpMode.LE: np.less_equal,
                CmpMode.GT: np.greater, CmpMode.GE: np.greater_equal}.get(mode, np.equal)(x, y)


def pack(bits: np.ndarray, nbytes: int) -> np.ndarray:
    """(instances, n) booleans as (instances, nbytes) bytes, bit c at byte c/8, bit c%8."""
    n = bits.shape[1]
    full = np.zeros((bits.shape[0], nbytes * 8), bool)
    full[:, :min(n, nbytes * 8)] = bits[:, :nbytes * 8]
    return np.packbits(full, axis=1, bitorder="little")


def mode_of(R, mode: CmpMode, T: str) -> CmpMode:
    """The comparison a target runs for ``mode``: A2/A3's int32 is always EQ (vcmpv_eq), and
    its NE is EQ then NOT."""
    if R.int32_eq_only and T == "int32":
        return CmpMode.EQ
    if R.ne_by_not and mode == CmpMode.NE:
        return CmpMode.EQ
    return mode


# -- TCMP / TCMPS: the NPUs' rows ------------------------------------------------------------------
def npu_rows(core, dst, src0, other, mode: CmpMode, *, scalar=None, elementwise=True, half_bits=False) -> None:
    """dst's mask rows on A2/A3 and A5: ``other`` a tile (compared element by element) or None
    with ``scalar`` the bits compared with."""
    R = core.target.compare
    T, size = src0.DType, src0.Element.itemsize
    VR, VC = src0.valid_row, src0.valid_col
    m = mode_of(R, mode, T)
    drow = dst.Cols * dst.Element.itemsize              # Dst::RowStride * sizeof(DstT) bytes
    if R.packing == "repeats":                          # whole repeats: the padding lanes are compared too
        E = 256 // size
        lanes = -(-VC // E) * E
        nbytes = lanes // 8
    else:                                               # A5: predicated chunks, bits past VC are 0
        lanes = VC if size != 8 else min(VC, R.b64_cols or VC)
        step_cols, step_bytes = {1: (256, 32), 2: (128, 16), 4: (128, 16), 8: (1 << 62, 32)}[size]
        nbytes = (-(-VC // step_cols) * step_bytes) if size != 8 else (32 if VC else 0)
    if VR == 0 or nbytes == 0:
        return _ne_not(core, dst, VR, mode)
    r, c = grid(VR, lanes)
    xb = read(core, src0, row_addrs(src0, r, c), size, "TCMP src0 read")
    if other is not None and elementwise:
        yb = read(core, other, row_addrs(other, r, c), size, "TCMP src1 read")
    else:
        yb = np.broadcast_to(np.asarray(scalar).reshape(-1, 1) if np.ndim(scalar) else scalar, xb.shape)
    bits = compare(m, numbers(xb, T, half_bits), numbers(np.asarray(yb), T, half_bits))
    out = pack(bits.reshape(-1, lanes), nbytes).reshape(xb.shape[0], VR, nbytes)    # (n, VR, nbytes)
    rr, bb = grid(VR, nbytes)
    write(core, dst, dst.addr + rr * drow + bb, out.reshape(out.shape[0], -1), 1, "TCMP dst write")
    _ne_not(core, dst, VR, mode)


def _ne_not(core, dst, VR: int, mode: CmpMode) -> None:
    """A2/A3's NE: vnot over bytes [0, VR * Dst::Cols) of dst (every byte of the valid rows)."""
    R = core.target.compare
    if not (R.ne_by_not and mode == CmpMode.NE) or VR == 0:
        return
    n = VR * dst.Cols * dst.Element.itemsize // 2 * 2
    a = dst.addr + np.arange(n, dtype=np.int64)
    b = read(core, dst, a, 1, "TCMP NE vnot read")
    write(core, dst, a, ~b.astype(np.uint8), 1, "TCMP NE vnot write")


# -- TCMP: the simulator's words ------------------------------------------------------------------
def cpu_words(core, dst, src0, src1, mode: CmpMode) -> None:
    """cpu/TCmp.h:41-80: dst zeroed (Rows * RowStride elements), then per src0 valid row the
    words of k = 8 or 32 bits (uint8 / uint32 dst), at most dst's valid width of them."""
    k = 8 * dst.Element.itemsize
    VR, VC = src0.valid_row, src0.valid_col
    T = src0.DType
    nwords = min(-(-VC // k), dst.valid_col)
    zero_n = dst.Rows * (dst.Cols if dst.isRowMajor else 1)
    za = dst.addr + np.arange(zero_n, dtype=np.int64) * dst.Element.itemsize
    cols = nwords * k
    r, c = grid(VR, VC)
    x = numbers(read(core, src0, layout_addrs(src0, r, c), src0.Element.itemsize, "TCMP src0 read"), T)
    y = numbers(read(core, src1, layout_addrs(src1, r, c), src1.Element.itemsize, "TCMP src1 read"), T)
    bits = compare(mode, x, y).reshape(x.shape[0], VR, VC)     # (0 valid rows: the dst is zeroed only)
    n = bits.shape[0]
    full = np.zeros((n, VR, max(cols, 1)), bool)
    full[:, :, :min(VC, cols)] = bits[:, :, :min(VC, cols)]
    words = np.packbits(full[:, :, :cols].reshape(n, VR, cols), axis=2, bitorder="little") if cols else \
        np.zeros((n, VR, 0), np.uint8)
    if k == 32:
        words = words.reshape(n, VR, nwords, 4).view("<u4").reshape(n, VR, nwords)
    wr, wc = grid(VR, nwords)
    wa = layout_addrs(dst, wr, wc)
    core.arena(dst.space).check_many(za, dst.Element.itemsize, "TCMP dst zero", core.target.name, code=F_DST)
    core.arena(dst.space).check_many(wa, dst.Element.itemsize, "TCMP dst write", core.target.name, code=F_DST)
    write(core, dst, za, np.zeros(1, np.dtype(f"u{dst.Element.itemsize}")), dst.Element.itemsize, "TCMP dst zero")
    if wa.size:
        write(core, dst, wa, words.reshape(n, -1), dst.Element.itemsize, "TCMP dst write")


def cpu_cmps(core, dst, src0, other, mode: CmpMode, scalar) -> None:
    """cpu/TCmps.hpp:54-176: compare into a Src::Rows x Src::Cols grid, pack Src::Cols/8 bytes
    per row, flat; dst zeroed whole, then byte c of the stream into dst element (c / dst.VC,
    c % dst.VC), one byte per element."""
    H, W = src0.Rows, src0.Cols
    VR, VC = src0.valid_row, src0.valid_col
    T = src0.DType
    r, c = grid(VR, VC)
    x = numbers(read(core, src0, layout_addrs(src0, r, c), src0.Element.itemsize, "TCMPS src0 read"), T)
    if other is not None:
        y = numbers(read(core, other, layout_addrs(other, r, c), other.Element.itemsize, "TCMPS src1 read"), T)
    else:
        y = numbers(np.asarray(scalar).reshape(-1, 1), T)          # one scalar, or one per instance
    got = compare(mode, x, y, tolerant=core.target.compare.cmps_eq_tolerance)
    n = got.shape[0]
    golden = np.zeros((n, H, W), bool)
    golden[:, :VR, :VC] = got.reshape(n, VR, VC)
    per = W // 8
    stream = np.packbits(golden[:, :, :per * 8].reshape(n, H, per, 8), axis=3, bitorder="little").reshape(n, -1)
    numel = dst.Rows * dst.Cols
    za = layout_addrs(dst, *grid(dst.Rows, dst.Cols))
    size = dst.Element.itemsize
    core.arena(dst.space).check_many(za, size, "TCMPS dst write", core.target.name, code=F_DST)
    write(core, dst, za, np.zeros(1, np.dtype(f"u{size}")), size, "TCMPS dst zero")
    dvc, dvr = dst.valid_col, dst.valid_row
    if dvc == 0:
        return
    cc = np.arange(min(stream.shape[1], numel), dtype=np.int64)
    i, j = cc // dvc, cc % dvc
    keep = i < dvr
    if keep.any():
        write(core, dst, layout_addrs(dst, i[keep], j[keep]), stream[:, cc[keep]].astype(np.dtype(f"u{size}")),
              size, "TCMPS dst write")


# -- TSEL / TSELS --------------------------------------------------------------------------------
def mask_bits(core, mask, VR: int, VC: int, *, walk: str, elem_size: int) -> np.ndarray:
    """(instances, VR * VC) mask bits of dst element (r, c), as the target walks the mask."""
    R = core.target.compare
    r, c = grid(VR, VC)
    msz = mask.Element.itemsize
    if walk == "flat":                                   # cpu/TSel.hpp:21-47: one stream, low 8 bits
        n = r * VC + c
        e, bit = n // 8, n % 8
        mvc = mask.valid_col
        mr, mc = (e // mvc, e % mvc) if mvc else (np.zeros_like(e), e)
        vals = read(core, mask, layout_addrs(mask, mr, mc), msz, "TSEL mask read")
        return ((vals.astype(np.uint64) >> bit.astype(np.uint64)) & 1).astype(bool)
    if walk == "words":                                  # cpu/TSelS.hpp:30-43: element (r, c / bits)
        bits = 8 * msz
        vals = read(core, mask, layout_addrs(mask, r, c // bits), msz, "TSELS mask read")
        return ((vals.astype(np.uint64) >> (c % bits).astype(np.uint64)) & 1).astype(bool)
    if walk == "rows_elems" and elem_size != 8:          # a5/TSel.hpp: r * RowStride bytes; b8: 16-byte steps
        base = mask.addr + r * mask.Cols
        byte = (16 * (c // 256) + (c % 256) // 8) if elem_size == 1 else c // 8
    else:
        base = mask.addr + r * mask.Cols * msz
        byte = c // 8
    vals = read(core, mask, base + byte, 1, "TSEL mask read")
    return ((vals >> (c % 8).astype(np.uint8)) & 1).astype(bool)


def select(core, call: str, dst, mask, src0, src1, scalar, walk: str) -> None:
    """dst = bit ? src0 : (src1 or the scalar) over dst's valid region (A5's 8-byte elements:
    the first 64 columns)."""
    R = core.target.compare
    size = dst.Element.itemsize
    VR, VC = dst.valid_row, dst.valid_col
    if size == 8 and R.b64_cols is not None:
        VC = min(VC, R.b64_cols)
    if VR * VC == 0:
        return
    at = layout_addrs if walk in ("flat", "words") else row_addrs
    r, c = grid(VR, VC)
    bits = mask_bits(core, mask, VR, VC, walk=walk, elem_size=size)
    a = read(core, src0, at(src0, r, c), size, f"{call} src0 read")
    b = read(core, src1, at(src1, r, c), size, f"{call} src1 read") if src1 is not None else \
        np.broadcast_to(scalar, a.shape)
    write(core, dst, at(dst, r, c), np.where(bits, a, b), size, f"{call} dst write")
