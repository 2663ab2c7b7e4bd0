"""``LoadAlign``, ``StoreAlign``, ``Gather`` and ``GatherB`` (other-ops.md §C.1-§C.3).

Addresses are typed UB pointers of the current core (``core.ub_ptr(addr, T)``). Alignment and
out-of-UB addresses of *active* lanes are run-time faults (``PtoFault``); type combinations
the C++ headers reject are ``PtoCheckError``. Inactive lanes are never address-checked.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..backend import run_reg_gather, run_reg_gatherb
from ..core import on_instances
from ..errors import F_DST, F_OTHER, PtoCheckError, PtoFault, check, warn
from ..memory import Ptr
from ..ops.template import TemplateFunction
from .registers import M32, VL, MaskReg, RegTensor, RegTraitNumOne, require_reg_api

# Gather (dst T0, src T1, index T2), the seed's table; b64 trait rules are checked separately.
GATHER_TYPES = frozenset({
    ("int16", "int8", "uint16"), ("int16", "int16", "uint16"), ("uint16", "uint8", "uint16"),
    ("uint16", "uint16", "uint16"), ("half", "half", "uint16"), ("bfloat16", "bfloat16", "uint16"),
    ("int32", "int32", "uint32"), ("uint32", "uint32", "uint32"), ("float32", "float32", "uint32"),
    ("int64", "int64", "uint32"), ("int64", "int64", "uint64"),
    ("uint64", "uint64", "uint32"), ("uint64", "uint64", "uint64"),
})


def _ptr(core, p, what: str, arg: str) -> Ptr:
    t = core.target.name
    if not isinstance(p, Ptr):
        raise PtoCheckError(f"{arg} must be a __ubuf__ pointer (core.ub_ptr), got "
                            f"{type(p).__name__}", rule=what, target=t)
    check(p.space == "ub", f"{what}: {arg} is a __ubuf__ pointer", t, f"{arg} points into "
          f"{p.space.upper()}")
    check(p.core is core, f"{what}: {arg} belongs to the current core", t,
          "the pointer was made by another Core")
    return p


def _reg(r, what: str, arg: str, core) -> RegTensor:
    if not isinstance(r, RegTensor):
        raise PtoCheckError(f"{arg} must be a RegTensor, got {type(r).__name__}", rule=what,
                            target=core.target.name)
    return r


def _mask(m, core, what: str) -> MaskReg:
    if not isinstance(m, MaskReg):
        raise PtoCheckError(f"mask must be a MaskReg, got {type(m).__name__}", rule=what,
                            target=core.target.name)
    return m


def _aligned(core, addr: int, what: str, arg: str) -> None:
    if addr % 32:
        raise PtoFault(f"{arg} {addr:#x} is not 32-byte aligned", rule=f"{what}: 32-byte alignment",
                       target=core.target.name, code=F_OTHER)


def _same_size(core, what, reg, p) -> None:
    check(reg.dtype.itemsize == p.dtype.itemsize, f"{what}: sizeof(T) of register and pointer",
          core.target.name, f"RegTensor<{reg.DType}> with __ubuf__ {dtypes.name_of(p.dtype)}*")


@on_instances
def LoadAlign(dst: RegTensor, src: Ptr) -> None:
    """VL contiguous bytes (2·VL for NumTwo, 32-bit words deinterleaved) from a 32-byte-aligned
    UB address."""
    core = require_reg_api("LoadAlign")
    _reg(dst, "LoadAlign", "dst", core)
    src = _ptr(core, src, "LoadAlign", "src")
    _same_size(core, "LoadAlign", dst, src)
    _aligned(core, src.addr, "LoadAlign", "src")
    n = VL * dst.trait.num
    core.ub.check(src.addr, n, "LoadAlign read", core.target.name, code=F_OTHER)
    b = core.ub.data[src.addr: src.addr + n]
    if dst.trait.num == 1:
        dst._b[0] = b
    else:                                    # DIST_DINTLV_B32: even words -> reg[0]
        w = b.view(np.uint32).reshape(-1, 2)
        dst._b[0] = w[:, 0].copy().view(np.uint8)
        dst._b[1] = w[:, 1].copy().view(np.uint8)


@on_instances
def StoreAlign(dst: Ptr, src: RegTensor, mask: MaskReg | None = None) -> None:
    """Write the active elements of ``src`` to a 32-byte-aligned UB address; inactive memory is
    left unchanged (``mask=None``: every element)."""
    core = require_reg_api("StoreAlign")
    _reg(src, "StoreAlign", "src", core)
    dst = _ptr(core, dst, "StoreAlign", "dst")
    _same_size(core, "StoreAlign", src, dst)
    _aligned(core, dst.addr, "StoreAlign", "dst")
    size = src.dtype.itemsize
    act = np.ones(src.lanes, bool) if mask is None else \
        _mask(mask, core, "StoreAlign").active(src.dtype, src.trait)
    e = np.flatnonzero(act)
    addrs = dst.addr + e * size
    core.ub.check_many(addrs, size, "StoreAlign write", core.target.name,
                       lambda i: f"element {int(e[i])}", code=F_DST)
    vals = src.numpy().view(np.uint8).reshape(-1, size)[e]
    core.ub.data[(addrs[:, None] + np.arange(size)).reshape(-1)] = vals.reshape(-1)


def _index_low32(index: RegTensor) -> np.ndarray:
    """Index lanes as int64 (u64 indices: only the low 32 bits are used)."""
    if index.DType == "uint64":
        if index.trait.num == 2:
            return index._b[0].view(np.uint32).astype(np.int64)
        return index._b[0].view(np.uint32)[0::2].astype(np.int64)
    return index.numpy().astype(np.int64)


@on_instances
def _gather(dst: RegTensor, base: Ptr, index: RegTensor, mask: MaskReg) -> None:
    """Element gather (``vgather2``): active lane ``i`` <- ``base[index[i]]`` (index in source
    elements); inactive lanes are 0 and never address-checked. b8 sources zero-extend to b16.
    b64 goes through 32-bit words ``2*idx``, ``2*idx+1`` (computed mod 2^32); a NumOne b64 dst
    uses only the first 32 indices."""
    core = require_reg_api("Gather")
    t = core.target.name
    _reg(dst, "Gather", "dst", core)
    _reg(index, "Gather", "index", core)
    base = _ptr(core, base, "Gather", "base")
    mask = _mask(mask, core, "Gather")
    combo = (dst.DType, dtypes.name_of(base.dtype), index.DType)
    check(combo in GATHER_TYPES, "Gather: (T0, T1, T2) combination", t,
          f"dst {combo[0]}, src {combo[1]}, index {combo[2]} is not in the supported table")
    if dst.dtype.itemsize == 8:
        check(not (dst.trait.num == 2 and index.DType == "uint64" and index.trait.num == 1),
              "Gather: RegTensor<b64, NumTwo> dst with RegTensor<uint64, NumOne> index", t,
              "rejected by static_assert")
    _aligned(core, base.addr, "Gather", "base")
    n = dst.lanes
    act = mask.active(dst.dtype, dst.trait)
    idx = _index_low32(index)[:n]
    if idx.size < n:                          # cannot happen with the table; defensive
        raise PtoCheckError("index register has too few lanes", rule="Gather", target=t)
    e = np.flatnonzero(act)
    mode = "b64" if dst.dtype.itemsize == 8 else (
        "same" if base.dtype.itemsize == dst.dtype.itemsize else "b8_to_b16")
    if run_reg_gather(core, dst, base, idx, act, mode): return  # noqa: E701 (native/cupy kernel)
    if dst.dtype.itemsize == 8:
        lo = base.addr + ((2 * idx[e]) & M32) * 4
        hi = base.addr + ((2 * idx[e] + 1) & M32) * 4
        for a, w in ((lo, "low"), (hi, "high")):
            core.ub.check_many(a, 4, f"Gather {w} word read", t,
                               lambda i: f"lane {int(e[i])} (index {int(idx[e[i]])})", code=F_OTHER)
        v = np.zeros(n, np.uint64)
        v[e] = (core.ub.gather(hi, np.uint32).astype(np.uint64) << np.uint64(32)) | \
            core.ub.gather(lo, np.uint32).astype(np.uint64)
        dst._put(v)
        return
    ssize = base.dtype.itemsize
    addrs = base.addr + idx[e] * ssize
    core.ub.check_many(addrs, ssize, "Gather read", t,
                       lambda i: f"lane {int(e[i])} (index {int(idx[e[i]])})", code=F_OTHER)
    st = dtypes.storage(dst.dtype)
    out = np.zeros(n, st)
    if ssize == dst.dtype.itemsize:
        out[e] = core.ub.gather(addrs, base.dtype).view(st) if e.size else out[e]
    else:                                     # b8 -> b16: low byte = source, high byte = 0
        out.view(np.uint16)[e] = core.ub.data[addrs].astype(np.uint16)
    dst._put(out)


@on_instances
def _gatherb(dst: RegTensor, base: Ptr, index: RegTensor, mask: MaskReg) -> None:
    """Block gather (``vgatherb``): block ``k < 8`` of dst = the 32 bytes at ``base + index[k]``
    (bytes); block ``k`` is enabled by mask bit ``4k``; disabled blocks are zero (C-API and PTO
    docs). A misaligned index is rounded down to its block, with a warning."""
    core = require_reg_api("GatherB")
    t = core.target.name
    _reg(dst, "GatherB", "dst", core)
    _reg(index, "GatherB", "index", core)
    base = _ptr(core, base, "GatherB", "base")
    mask = _mask(mask, core, "GatherB")
    check(dst.trait is RegTraitNumOne, "GatherB: RegTraitNumOne registers only", t,
          f"dst is {type(dst).__name__}")
    check(index.DType == "uint32", "GatherB: index is RegTensor<uint32_t>", t,
          f"index is {type(index).__name__}")
    _same_size(core, "GatherB", dst, base)
    _aligned(core, base.addr, "GatherB", "base")
    k = np.arange(8)
    off = index.numpy()[:8].astype(np.int64)
    mis = off % 32 != 0
    if mis.any():
        warn(f"[{t}] GatherB: index {int(off[mis][0]):#x} not 32-byte aligned; rounded down")
    on = mask.bits[4 * k]
    if run_reg_gatherb(core, dst, base, off, on): return  # noqa: E701 (native/cupy kernel)
    off &= ~np.int64(31)
    kk = np.flatnonzero(on)
    addrs = base.addr + off[kk]
    core.ub.check_many(addrs, 32, "GatherB block read", t,
                       lambda i: f"block {int(kk[i])} (index {int(off[kk[i]]):#x})", code=F_OTHER)
    out = np.zeros((8, 32), np.uint8)
    if kk.size:
        out[kk] = core.ub.data[addrs[:, None] + np.arange(32)]
    dst._b[0] = out.reshape(-1)


def _elem(x, T) -> bool:
    """Operand ``x`` (a RegTensor or a typed pointer) has element type ``T``."""
    try:
        have = x.DType if isinstance(x, RegTensor) else dtypes.name_of(x.dtype)
        return have == dtypes.name_of(T)
    except (AttributeError, KeyError, TypeError):
        return False


_T012 = [("T0", 0, _elem), ("T1", 1, _elem), ("T2", 2, _elem)]
Gather = TemplateFunction(_gather, "Gather", _T012)
"""``Gather(dst, base, index, mask)`` or ``Gather[T0[, T1[, T2]]](...)`` (dst, base, index types)."""
GatherB = TemplateFunction(_gatherb, "GatherB", _T012)
"""``GatherB(dst, base, index, mask)`` or ``GatherB[T0[, T1[, T2]]](...)``."""
