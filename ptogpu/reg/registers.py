"""Registers of the Ascend 950 ``__simd_vf__`` API (other-ops.md §C.1).

A vector register is VL = 256 bytes. ``RegTensor[T]`` (``RegTraitNumOne``) holds ``256/sizeof(T)``
elements; ``RegTensor[T, RegTraitNumTwo]`` (64-bit T only) is two VL registers: ``reg[0]`` the
low and ``reg[1]`` the high 32-bit words of 64 elements. ``MaskReg`` has one bit per byte lane:
an element of ``size`` bytes is active when bit ``e*size`` is set (b64 NumTwo: bit ``4e``).
"""
from __future__ import annotations

from enum import Enum
from functools import lru_cache

import numpy as np

from .. import dtypes
from ..errors import PtoCheckError, check

VL = 256                      # bytes in one vector register
M32 = (1 << 32) - 1


class RegTrait:
    """``RegTraitNumOne`` / ``RegTraitNumTwo``: how many VL registers one RegTensor spans."""

    def __init__(self, num: int) -> None:
        self.num = num

    def __repr__(self) -> str:
        return "RegTraitNumOne" if self.num == 1 else "RegTraitNumTwo"


RegTraitNumOne = RegTrait(1)
RegTraitNumTwo = RegTrait(2)


def _target() -> str:
    from ..core import CURRENT
    stack = CURRENT.get()
    return stack[-1].target.name if stack else "any target"


def require_reg_api(what: str):
    """The current core, which must have the register API (Ascend 950 only)."""
    from ..core import current_core
    core = current_core()
    check(core.target.has_reg_api, f"{what}: the register API exists only on Ascend 950",
          core.target.name, "ptogpu.reg (__simd_vf__) is not available on this target")
    return core


def _trait_of(trait) -> RegTrait:
    if trait is None:
        return RegTraitNumOne
    if not isinstance(trait, RegTrait):
        raise PtoCheckError(f"{trait!r} is not RegTraitNumOne or RegTraitNumTwo", rule="RegTrait",
                            target=_target())
    return trait


def lanes(dtype, trait: RegTrait | None = None) -> int:
    """Elements per RegTensor (``VL_T``): 256/size; b64 NumOne 32, b64 NumTwo 64."""
    size = dtypes.as_dtype(dtype).itemsize
    trait = _trait_of(trait)
    check(trait.num == 1 or size == 8, "RegTraitNumTwo: 64-bit element types only", _target(),
          f"sizeof({dtypes.name_of(dtype)}) = {size}")
    return VL // size * trait.num


def mask_group(dtype, trait: RegTrait | None = None) -> int:
    """Mask bits per element: size; b64 NumTwo uses the b32 layout (4 bits)."""
    size = dtypes.as_dtype(dtype).itemsize
    return 4 if _trait_of(trait).num == 2 else size


class _RegTensorMeta(type):
    # a metaclass __getitem__ (not __class_getitem__): type checkers read RegTensor[...] in an
    # expression as this call, whose result is a RegTensor class
    def __getitem__(cls, params) -> "type[RegTensor]":
        if not isinstance(params, tuple):
            params = (params,)
        if not 1 <= len(params) <= 2:
            raise TypeError("RegTensor[T] or RegTensor[T, RegTraitNumTwo]")
        trait = _trait_of(params[1] if len(params) > 1 else None)
        return _reg_class(dtypes.name_of(params[0]), trait.num)


class RegTensor(metaclass=_RegTensorMeta):
    """``RegTensor<T[, Trait]>``: ``RegTensor[pto.half]()``, ``RegTensor[pto.int64, RegTraitNumTwo]()``.

    Starts zeroed (C++ leaves it undefined). ``numpy()``/``set()`` are for inspection and tests.
    """
    dtype: np.dtype = None
    trait: RegTrait = RegTraitNumOne

    def __init__(self) -> None:
        if self.dtype is None:
            raise TypeError("use RegTensor[T] to make a register type")
        from ..core import CURRENT
        stack = CURRENT.get()
        if stack:
            require_reg_api("RegTensor")
        # one register per instance of the core it is made under (a core of N: N registers)
        self._core = stack[-1] if stack else None
        n = self._core.batch if self._core is not None else 1
        self._bs = np.zeros((n, self.trait.num, VL), np.uint8)

    @property
    def _b(self) -> np.ndarray:
        """The register of the instance an instruction is executing on."""
        return self._bs[self._core.instance if self._core is not None else 0]

    def _all(self) -> bool:
        """A host read or write of every instance's register (a core of N, outside an
        instruction; under ``Core.program`` a read answers one value)."""
        return self._core is not None and self._core.reads_all

    @property
    def DType(self) -> str:
        return dtypes.name_of(self.dtype)

    @property
    def lanes(self) -> int:
        return lanes(self.dtype, self.trait)

    def raw(self) -> np.ndarray:
        """The register bytes: reg[0] then reg[1] (a copy; one row per instance on a core of N)."""
        if self._all():
            return self._core.answer(self._bs.reshape(self._bs.shape[0], -1).copy())
        return self._b.reshape(-1).copy()

    def numpy(self) -> np.ndarray:
        """All lanes as elements of T (NumTwo: the two word registers recombined); on a core
        of N instances, shape (N, lanes)."""
        st = dtypes.storage(self.dtype)
        b = self._bs if self._all() else self._b[None]
        if self.trait.num == 1:
            out = b[:, 0].copy().view(st)
        else:
            lo = b[:, 0].copy().view(np.uint32).astype(np.uint64)
            hi = b[:, 1].copy().view(np.uint32).astype(np.uint64)
            out = ((hi << np.uint64(32)) | lo).view(st)
        return self._core.answer(out) if self._all() else out[0]

    def set(self, values) -> None:
        """Fill every lane (tests and set-up; like a C++ ``Duplicate``/``Arange``); on a core
        of N instances, ``lanes`` values for all or an (N, lanes) array, a row each."""
        st = dtypes.storage(self.dtype)
        v = np.asarray(values)
        v = v.astype(st) if v.dtype != st else v
        rows = self._bs.shape[0] if self._all() else 1
        v = np.ascontiguousarray(v)
        if v.size == self.lanes:
            v = np.broadcast_to(v.reshape(1, -1), (rows, self.lanes))
        elif self._core is not None and self._core.batched and v.shape == (rows, self.lanes):
            pass
        else:
            raise ValueError(f"{type(self).__name__}.set: {self.lanes} lanes, got {v.size}")
        if not self._all():
            return self._put(np.ascontiguousarray(v[0]), self._b)
        for k in np.flatnonzero(self._core.live):       # (a stopped instance keeps its register)
            self._put(np.ascontiguousarray(v[k]), self._bs[k])

    def _put(self, v: np.ndarray, b: np.ndarray | None = None) -> None:
        b = self._b if b is None else b
        if self.trait.num == 1:
            b[0] = v.view(np.uint8)
        else:
            w = v.view(np.uint32).reshape(-1, 2)
            b[0] = w[:, 0].copy().view(np.uint8)
            b[1] = w[:, 1].copy().view(np.uint8)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.numpy()!r}>"


@lru_cache(maxsize=None)
def _reg_class(name: str, num: int) -> type:
    dt = dtypes.as_dtype(name)
    check(num == 1 or dt.itemsize == 8, "RegTraitNumTwo: 64-bit element types only", _target(),
          f"RegTensor<{name}, RegTraitNumTwo>")
    trait = RegTraitNumOne if num == 1 else RegTraitNumTwo
    label = f"RegTensor[{name}]" if num == 1 else f"RegTensor[{name}, RegTraitNumTwo]"
    return type(label, (RegTensor,), {"dtype": dt, "trait": trait})


class MaskReg:
    """``MaskReg``: 256 bits, one per byte lane (``bits``, a bool array). Starts all-false."""

    def __init__(self, bits=None) -> None:
        self.bits = np.zeros(VL, bool) if bits is None else np.asarray(bits, bool).reshape(VL).copy()

    def active(self, dtype, trait: RegTrait | None = None) -> np.ndarray:
        """Active elements when read for T: element ``e`` <- bit ``e*group``."""
        g = mask_group(dtype, trait)
        return self.bits[np.arange(lanes(dtype, trait)) * g].copy()

    @classmethod
    def first(cls, n: int, dtype, trait: RegTrait | None = None) -> "MaskReg":
        """The first ``n`` elements of T active; every bit of an active element's group set."""
        g = mask_group(dtype, trait)
        n = max(0, min(int(n), lanes(dtype, trait)))
        bits = np.zeros(VL, bool)
        bits[: n * g] = True
        return cls(bits)

    def numpy(self) -> np.ndarray:
        """The 256 mask bits (bit ``i`` = byte lane ``i``), a bool copy."""
        return self.bits.copy()

    def raw(self) -> np.ndarray:
        """The 32 bytes of the register, bit ``i`` at byte ``i // 8``, bit ``i % 8``."""
        return np.packbits(self.bits, bitorder="little")

    def __eq__(self, other) -> bool:
        return isinstance(other, MaskReg) and bool((self.bits == other.bits).all())

    def __repr__(self) -> str:
        packed = np.packbits(self.bits, bitorder="little")
        return f"MaskReg({int.from_bytes(packed.tobytes(), 'little'):#066x})"


class MaskPattern(Enum):
    """``CreateMask`` patterns (``pset``): the active-element count for ``n`` lanes."""
    ALL = "ALL"
    VL1 = 1
    VL2 = 2
    VL3 = 3
    VL4 = 4
    VL8 = 8
    VL16 = 16
    VL32 = 32
    VL64 = 64
    VL128 = 128
    M3 = "M3"       # largest multiple of 3
    M4 = "M4"       # largest multiple of 4
    H = "H"         # half
    Q = "Q"         # quarter
    ALLF = "ALLF"   # none

    def count(self, n: int) -> int:
        if isinstance(self.value, int):
            return min(self.value, n)   # a VLk beyond the lanes saturates (our choice; unverified)
        return {"ALL": n, "ALLF": 0, "M3": n // 3 * 3, "M4": n // 4 * 4, "H": n // 2,
                "Q": n // 4}[self.value]


class _Template:
    """``Name[T, ...](args)``: a C++ function template called with explicit arguments."""

    def __init__(self, name, fn, arity) -> None:
        self.name, self.fn, self.arity = name, fn, arity

    def __getitem__(self, params):
        if not isinstance(params, tuple):
            params = (params,)
        if not 1 <= len(params) <= self.arity:
            raise TypeError(f"{self.name}[T, ...] takes 1 to {self.arity} template arguments")
        return lambda *a: self.fn(*params, *a)

    def __call__(self, *a):
        """Also callable as ``Name(T, ...)`` (template arguments first)."""
        try:
            dtypes.name_of(a[0])
        except (IndexError, TypeError):
            raise TypeError(f"{self.name} needs its element type: {self.name}[T](...)") from None
        return self.fn(*a)

    def __repr__(self) -> str:
        return self.name


def _update_mask(T, *rest):
    *tmpl, count = rest
    trait = _trait_of(tmpl[0] if tmpl else None)
    require_reg_api("UpdateMask")
    n = lanes(T, trait)
    c = int(count) & M32                        # uint32_t& count
    return MaskReg.first(min(c, n), T, trait), (0 if c < n else c - n)


def _create_mask(T, *rest):
    pattern = rest[0] if rest else MaskPattern.ALL
    trait = _trait_of(rest[1] if len(rest) > 1 else None)
    require_reg_api("CreateMask")
    if not isinstance(pattern, MaskPattern):
        raise PtoCheckError(f"{pattern!r} is not a MaskPattern", rule="CreateMask",
                            target=_target())
    return MaskReg.first(pattern.count(lanes(T, trait)), T, trait)


UpdateMask = _Template("UpdateMask", _update_mask, 2)
UpdateMask.__doc__ = """``mask, count = UpdateMask[T[, Trait]](count)``: the first ``min(count, VL_T)``
elements active; the C++ reference argument comes back decremented (``count < VL_T ? 0 :
count - VL_T``, uint32)."""
CreateMask = _Template("CreateMask", _create_mask, 3)
CreateMask.__doc__ = "``CreateMask[T[, MaskPattern[, Trait]]]()``: a pattern mask (default ALL)."
