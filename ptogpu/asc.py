"""``ptogpu.asc``: the AscendC C-API MTE2 copies with padding, and their register setters.

Same names, argument order and units as the C API (other-ops.md §D):

* Ascend 950 (``a5``): ``asc_copy_gm2l1_align`` / ``asc_copy_gm2ub_align`` (+ ``_sync``), the
  OUT→L1 registers ``asc_set_gm2l1_pad`` / ``_loop_size`` / ``_loop1_stride`` /
  ``_loop2_stride`` and the OUT→UB registers ``asc_set_copy_pad_val`` /
  ``asc_set_gm2ub_loop_size`` / ``_loop1_stride`` / ``_loop2_stride``.
* Atlas A2/A3 (``a2a3``): the gap form ``copy_gm_to_ubuf_align_b8/b16/b32`` and
  ``asc_set_copy_pad_val`` (= ``set_mov_pad_val``).

``dst``/``src`` are typed pointers of the current core (``core.l1_ptr``, ``core.ub_ptr``,
``core.gm_put``). Type problems (wrong memory, wrong or mismatched dtype, an instruction the
target lacks) raise :class:`PtoCheckError`; illegal run-time values (misalignment, field
widths, pads over 32 bytes, the L1 bound) raise :class:`PtoFault`. Registers persist on the
core (``core.regs``) across calls, as on hardware: reset the loop sizes to (1, 1) after use.
"""
from __future__ import annotations

import numpy as np

from . import dtypes
from .core import current_core, on_instances
from .errors import PtoCheckError
from .memory import Ptr
from .semantics import dma

__all__ = [
    "asc_copy_gm2l1_align", "asc_copy_gm2l1_align_sync", "asc_set_gm2l1_pad",
    "asc_set_gm2l1_loop_size", "asc_set_gm2l1_loop1_stride", "asc_set_gm2l1_loop2_stride",
    "asc_copy_gm2ub_align", "asc_copy_gm2ub_align_sync", "asc_set_copy_pad_val", "set_mov_pad_val",
    "asc_set_gm2ub_loop_size", "asc_set_gm2ub_loop1_stride", "asc_set_gm2ub_loop2_stride",
    "copy_gm_to_ubuf_align_b8", "copy_gm_to_ubuf_align_b16", "copy_gm_to_ubuf_align_b32",
]

_HAS = {"gm2l1": "gm2l1_align", "gm2ub": "gm2ub_align", "gap": "gm2ub_align_gap", "pad": "mov_pad_reg"}


def _core_for(instr: str, kind: str):
    core = current_core()
    if not getattr(core.target.dma, _HAS[kind]):
        raise PtoCheckError(f"{instr} does not exist on {core.target.title}",
                            rule=f"{instr}: target support", target=core.target.name)
    return core


def _ptr(core, instr: str, p, space: str, what: str) -> Ptr:
    t = core.target.name
    if not isinstance(p, Ptr):
        raise PtoCheckError(f"{what} must be a typed pointer, got {type(p).__name__}",
                            rule=f"{instr}: {what} type", target=t)
    if p.core is not core:
        raise PtoCheckError(f"{what} {p!r} belongs to another core", rule=f"{instr}: {what} type",
                            target=t)
    if p.space != space:
        c = {"l1": "__cbuf__", "ub": "__ubuf__", "gm": "__gm__"}
        raise PtoCheckError(f"{what} must be a {c[space]} pointer ({space.upper()}), got {p!r}",
                            rule=f"{instr}: {what} memory", target=t)
    return p


def _typed_pair(core, instr: str, dst, src, dst_space: str) -> None:
    dst = _ptr(core, instr, dst, dst_space, "dst")
    src = _ptr(core, instr, src, "gm", "src")
    dn, sn = dtypes.name_of(dst.dtype), dtypes.name_of(src.dtype)
    if dn != sn:
        raise PtoCheckError(f"dst is {dn}*, src is {sn}*", rule=f"{instr}: one <dtype>",
                            target=core.target.name)
    allowed = core.target.dma.align_dtypes
    if dn not in allowed:
        raise PtoCheckError(f"{dn} is not one of {', '.join(allowed)}", rule=f"{instr}: dtype",
                            target=core.target.name)


def _reg_value(core, instr: str, name: str, value, bits: int) -> int:
    """A value for a ``uint{bits}_t`` parameter: a non-negative int that fits, a negative int
    (converted modulo 2**bits, as C++ does), or a NumPy scalar (its bit pattern)."""
    if isinstance(value, np.generic) and not isinstance(value, np.integer):
        v = int(np.asarray(value).reshape(1).view(f"u{value.dtype.itemsize}")[0])
    else:
        v = dma.register_field(core, instr, name, value, -(1 << (bits - 1)), (1 << bits) - 1)
    return v & ((1 << bits) - 1)


# -- Ascend 950: GM → L1 -----------------------------------------------------------------------
@on_instances
def asc_copy_gm2l1_align(dst: Ptr, src: Ptr, n_burst: int, len_burst: int, left_padding_count: int,
                         right_padding_count: int, data_select_bit: bool, l2_cache_ctl: int,
                         burst_src_stride: int, burst_dst_stride: int) -> None:
    """GM → L1 with 32-byte padding (``copy_gm_to_cbuf_align_v2``); lengths and strides in bytes,
    pad counts in elements; ``data_select_bit`` 1 = pad register, 0 = each burst's first
    element (left/right padding forces the pad register)."""
    instr = "asc_copy_gm2l1_align"
    core = _core_for(instr, "gm2l1")
    _typed_pair(core, instr, dst, src, "l1")
    dma.copy_align_v2(core, instr, dst, src, n_burst, len_burst, left_padding_count,
                      right_padding_count, bool(data_select_bit), l2_cache_ctl, burst_src_stride,
                      burst_dst_stride)


def asc_copy_gm2l1_align_sync(dst: Ptr, src: Ptr, n_burst: int, len_burst: int,
                              left_padding_count: int, right_padding_count: int,
                              data_select_bit: bool, l2_cache_ctl: int, burst_src_stride: int,
                              burst_dst_stride: int) -> None:
    """:func:`asc_copy_gm2l1_align` followed by a wait (the emulator is synchronous)."""
    asc_copy_gm2l1_align(dst, src, n_burst, len_burst, left_padding_count, right_padding_count,
                         data_select_bit, l2_cache_ctl, burst_src_stride, burst_dst_stride)


@on_instances(uniform=True)
def asc_set_gm2l1_pad(pad_val: int) -> None:
    """``set_pad_val_outtol1``: the OUT→L1 pad register (a pad element = its low bits)."""
    core = _core_for("asc_set_gm2l1_pad", "gm2l1")
    r = core.regs.out_to_l1
    r.pad = _reg_value(core, "asc_set_gm2l1_pad", "pad_val", pad_val, 32)
    r.pad_set = True


@on_instances(uniform=True)
def _loop_size(path: str, loop1: int, loop2: int) -> None:
    instr = f"asc_set_{path}_loop_size"
    core = _core_for(instr, path)
    l1 = dma.register_field(core, instr, "loop1_size", loop1, 0, dma.M21)
    l2 = dma.register_field(core, instr, "loop2_size", loop2, 0, dma.M21)
    core.regs.path("l1" if path == "gm2l1" else "ub").loop_size = (l2 << 21) | l1


@on_instances(uniform=True)
def _loop_stride(path: str, which: int, src_stride: int, dst_stride: int) -> None:
    instr = f"asc_set_{path}_loop{which}_stride"
    core = _core_for(instr, path)
    s = dma.register_field(core, instr, "src_stride", src_stride, 0, dma.M40)
    d = dma.register_field(core, instr, "dst_stride", dst_stride, 0, 1 << 21)
    setattr(core.regs.path("l1" if path == "gm2l1" else "ub"), f"loop{which}_stride", (d << 40) | s)


def asc_set_gm2l1_loop_size(loop1: int, loop2: int) -> None:
    """``set_loop_size_outtol1((loop2 << 21) | loop1)``; persists until set again."""
    _loop_size("gm2l1", loop1, loop2)


def asc_set_gm2l1_loop1_stride(src_stride: int, dst_stride: int) -> None:
    """``set_loop1_stride_outtol1((dst << 40) | src)``; bytes, head to head."""
    _loop_stride("gm2l1", 1, src_stride, dst_stride)


def asc_set_gm2l1_loop2_stride(src_stride: int, dst_stride: int) -> None:
    """``set_loop2_stride_outtol1((dst << 40) | src)``; bytes, head to head."""
    _loop_stride("gm2l1", 2, src_stride, dst_stride)


# -- Ascend 950: GM → UB -----------------------------------------------------------------------
@on_instances
def asc_copy_gm2ub_align(dst: Ptr, src: Ptr, n_burst: int, len_burst: int, left_padding_count: int,
                         right_padding_count: int, enable_constant_pad: bool, l2_cache_mode: int,
                         src_stride: int, dst_stride: int) -> None:
    """GM → UB with 32-byte padding (``copy_gm_to_ubuf_align_v2``): as the L1 form, with the
    OUT→UB loop registers and the ``asc_set_copy_pad_val`` pad register."""
    instr = "asc_copy_gm2ub_align"
    core = _core_for(instr, "gm2ub")
    _typed_pair(core, instr, dst, src, "ub")
    dma.copy_align_v2(core, instr, dst, src, n_burst, len_burst, left_padding_count,
                      right_padding_count, bool(enable_constant_pad), l2_cache_mode,
                      src_stride, dst_stride)


def asc_copy_gm2ub_align_sync(dst: Ptr, src: Ptr, n_burst: int, len_burst: int,
                              left_padding_count: int, right_padding_count: int,
                              enable_constant_pad: bool, l2_cache_mode: int, src_stride: int,
                              dst_stride: int) -> None:
    """:func:`asc_copy_gm2ub_align` followed by a wait (the emulator is synchronous)."""
    asc_copy_gm2ub_align(dst, src, n_burst, len_burst, left_padding_count, right_padding_count,
                         enable_constant_pad, l2_cache_mode, src_stride, dst_stride)


@on_instances(uniform=True)
def asc_set_copy_pad_val(pad_val: int) -> None:
    """``set_mov_pad_val``: the OUT→UB pad register (A2/A3 and 950)."""
    core = _core_for("asc_set_copy_pad_val", "pad")
    r = core.regs.out_to_ub
    r.pad = _reg_value(core, "asc_set_copy_pad_val", "pad_val", pad_val, 32)
    r.pad_set = True


set_mov_pad_val = asc_set_copy_pad_val


def asc_set_gm2ub_loop_size(loop1: int, loop2: int) -> None:
    """``set_loop_size_outtoub((loop2 << 21) | loop1)``."""
    _loop_size("gm2ub", loop1, loop2)


def asc_set_gm2ub_loop1_stride(src_stride: int, dst_stride: int) -> None:
    """``set_loop1_stride_outtoub((dst << 40) | src)``."""
    _loop_stride("gm2ub", 1, src_stride, dst_stride)


def asc_set_gm2ub_loop2_stride(src_stride: int, dst_stride: int) -> None:
    """``set_loop2_stride_outtoub((dst << 40) | src)``."""
    _loop_stride("gm2ub", 2, src_stride, dst_stride)


# -- Atlas A2/A3: gap form ---------------------------------------------------------------------
@on_instances
def _gap(bits: int, dst, src, sid, nBurst, lenBurst, leftPad, rightPad, srcGap, dstGap) -> None:
    instr = f"copy_gm_to_ubuf_align_b{bits}"
    core = _core_for(instr, "gap")
    dst = _ptr(core, instr, dst, "ub", "dst")
    src = _ptr(core, instr, src, "gm", "src")
    dma.copy_align_gap(core, instr, dst, src, bits // 8, sid, nBurst, lenBurst, leftPad, rightPad,
                       srcGap, dstGap)


def copy_gm_to_ubuf_align_b8(dst: Ptr, src: Ptr, sid: int, nBurst: int, lenBurst: int,
                             leftPad: int, rightPad: int, srcGap: int, dstGap: int) -> None:
    """A2/A3 GM → UB, 1-byte elements (the intrinsic's own parameter names). ``lenBurst`` and
    ``srcGap`` (tail to head) in bytes, ``dstGap`` in 32-byte blocks after the padded burst,
    pads in elements."""
    _gap(8, dst, src, sid, nBurst, lenBurst, leftPad, rightPad, srcGap, dstGap)


def copy_gm_to_ubuf_align_b16(dst: Ptr, src: Ptr, sid: int, nBurst: int, lenBurst: int,
                              leftPad: int, rightPad: int, srcGap: int, dstGap: int) -> None:
    """As :func:`copy_gm_to_ubuf_align_b8`, 2-byte elements."""
    _gap(16, dst, src, sid, nBurst, lenBurst, leftPad, rightPad, srcGap, dstGap)


def copy_gm_to_ubuf_align_b32(dst: Ptr, src: Ptr, sid: int, nBurst: int, lenBurst: int,
                              leftPad: int, rightPad: int, srcGap: int, dstGap: int) -> None:
    """As :func:`copy_gm_to_ubuf_align_b8`, 4-byte elements (b64 data: pass as b32, doubled pads)."""
    _gap(32, dst, src, sid, nBurst, lenBurst, leftPad, rightPad, srcGap, dstGap)
