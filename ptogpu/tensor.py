"""``Shape``, ``Stride`` and ``GlobalTensor``: 5-D views of GM, static or dynamic per dim."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import dtypes
from .enums import DYNAMIC, Layout
from .errors import F_OTHER, PtoCheckError, PtoFault
from .memory import Ptr

M64 = (1 << 64) - 1


def _target() -> str:
    from .core import CURRENT
    stack = CURRENT.get()
    return stack[-1].target.name if stack else ""


class _DimsMeta(type):
    def __getitem__(cls, dims) -> type:
        if not isinstance(dims, tuple):
            dims = (dims,)
        dims = tuple(int(d) for d in dims)
        if not 1 <= len(dims) <= 5:
            raise TypeError(f"{cls.__name__}[...] takes 1 to 5 dims")
        if len(dims) < 5:
            if cls.kind == "Stride":
                raise TypeError("Stride[...] takes all 5 strides")
            dims = (1,) * (5 - len(dims)) + dims
        return _make_dims(cls, dims)


@lru_cache(maxsize=None)
def _make_dims(base, dims):
    name = f"{base.kind}[{', '.join(map(str, dims))}]"
    return _DimsMeta(name, (base,), {"static": dims})


class _Dims(metaclass=_DimsMeta):
    kind = "Dims"
    static: tuple[int, ...] = (DYNAMIC,) * 5

    def __init__(self, *values: int) -> None:
        dyn = [k for k, d in enumerate(self.static) if d == DYNAMIC]
        if len(values) == 5 and len(dyn) != 5:
            # Full form: every dim given; static ones must agree.
            for k, (s, v) in enumerate(zip(self.static, values)):
                if s != DYNAMIC and s != int(v):
                    raise PtoCheckError(f"dim {k} is static {s}, given {v}",
                                        rule=f"{self.kind} constructor")
            vals = [int(v) for v in values]
        else:
            if len(values) > len(dyn):
                raise TypeError(f"{type(self).__name__} has {len(dyn)} dynamic dims, "
                                f"got {len(values)} values")
            vals = list(self.static)
            for k in dyn:
                vals[k] = 1                              # default-constructed dynamic dims are 1
            for k, v in zip(dyn, values):
                vals[k] = int(v)
        self.values = tuple(vals)

    def __getitem__(self, k: int) -> int:
        return self.values[k]

    def __iter__(self):
        return iter(self.values)

    def __repr__(self) -> str:
        return f"{self.kind}({', '.join(map(str, self.values))})"


class Shape(_Dims):
    """``Shape[d0, d1, d2, d3, d4]``: the 5-D shape of a GlobalTensor (fewer dims are padded
    with leading 1s; -1 marks a dynamic dim, given at construction: ``Shape[1, 1, 1, -1, 16](n)``)."""
    kind = "Shape"


class Stride(_Dims):
    """``Stride[s0, s1, s2, s3, s4]``: element strides of the five dims (all five given; -1
    dynamic, as in Shape)."""
    kind = "Stride"


class _GTMeta(type):
    def __getitem__(cls, params) -> type:
        if not isinstance(params, tuple):
            params = (params,)
        if not 2 <= len(params) <= 4:
            raise TypeError("GlobalTensor[Element, Shape[...], Stride[...], Layout=ND]")
        elem, shape = params[0], params[1]
        stride = params[2] if len(params) > 2 else None
        layout = params[3] if len(params) > 3 else Layout.ND
        if stride is None:
            s = shape.static
            if DYNAMIC in s:
                raise TypeError("a dynamic Shape needs an explicit Stride")
            st, acc = [0] * 5, 1
            for k in range(4, -1, -1):
                st[k] = acc
                acc *= s[k]
            stride = Stride[tuple(st)]
        return _make_gt(dtypes.name_of(elem), shape, stride, Layout(layout))


@lru_cache(maxsize=None)
def _make_gt(elem, shape, stride, layout):
    name = f"GlobalTensor[{elem}, {shape.__name__}, {stride.__name__}, {layout.name}]"
    return _GTMeta(name, (GlobalTensor,), dict(
        Element=dtypes.as_dtype(elem), DType=elem, ShapeT=shape, StrideT=stride, layout=layout,
        staticShape=shape.static, staticStride=stride.static))


class GlobalTensor(metaclass=_GTMeta):
    """A typed 5-D view of GM: (base pointer, shape, stride, layout)."""

    Element: np.dtype
    DType: str
    layout: Layout
    staticShape: tuple[int, ...]
    staticStride: tuple[int, ...]

    def __init__(self, ptr: Ptr, shape: Shape | None = None, stride: Stride | None = None) -> None:
        if type(self) is GlobalTensor:
            raise TypeError("use GlobalTensor[Element, Shape[...], Stride[...], Layout] first")
        self.shape = shape if shape is not None else self.ShapeT()
        self.stride = stride if stride is not None else self.StrideT()
        for got, want, what in ((self.shape, self.ShapeT, "shape"), (self.stride, self.StrideT, "stride")):
            for k, (s, v) in enumerate(zip(want.static, got.values)):
                if s != DYNAMIC and s != v:
                    raise PtoCheckError(f"{what} dim {k}: static {s}, given {v}",
                                        rule="GlobalTensor constructor")
        self._set_ptr(ptr)

    def _set_ptr(self, ptr: Ptr) -> None:
        if not isinstance(ptr, Ptr) or ptr.space != "gm":
            raise PtoCheckError(f"a GlobalTensor needs a GM pointer, got {ptr!r}",
                                rule="GlobalTensor pointer")
        if dtypes.name_of(ptr.dtype) != self.DType:
            raise PtoCheckError(f"pointer type {dtypes.name_of(ptr.dtype)}* does not match "
                                f"__gm__ {self.DType}*", rule="GlobalTensor pointer")
        self.ptr = ptr
        self.core = ptr.core

    def data(self) -> Ptr:
        return self.ptr

    @property
    def addr(self) -> int:
        return self.ptr.addr

    def GetShape(self, k: int) -> int:
        return self.shape.values[k]

    def GetStride(self, k: int) -> int:
        return self.stride.values[k]

    def offsets(self, r, c) -> np.ndarray:
        """Element offsets of 2-D (r, c) under the tensor's layout (mgather.md §1.3).

        The index arithmetic is exact; the final ``Σ i_k * stride_k`` is 64-bit address
        arithmetic (wraps mod 2^64, returned as int64), so any stride is harmless here and an
        address outside GM faults where it is used. A shape dim that the layout divides by must
        be positive when there are elements to place (PtoFault otherwise, not a NumPy warning);
        with none (an empty region) no dim is used, whatever its value.
        """
        r = np.asarray(r, np.int64)
        c = np.asarray(c, np.int64)
        shape = np.broadcast(r, c).shape
        if 0 in shape:                  # no element to place: no dim is divided by, none faults
            return np.zeros(shape, np.int64)
        S = self.shape.values
        lay = self.layout
        divs = {Layout.ND: (1, 2, 3), Layout.DN: (1, 2, 4), Layout.NZ: (1, 3, 4)}[lay]
        for k in divs:
            if S[k] <= 0:
                raise PtoFault(f"{lay.name} addressing divides by Shape[{k}] = {S[k]}",
                               rule="GlobalTensor layout addressing", target=_target(), code=F_OTHER)
        # divisors beyond any index behave like infinity: clamp so NumPy stays in int64
        cap = lambda v: np.int64(min(int(v), 1 << 62))  # noqa: E731
        if lay == Layout.ND:
            s3, s32, s321 = cap(S[3]), cap(S[3] * S[2]), cap(S[3] * S[2] * S[1])
            i4, i3 = c, r % s3
            i2 = (r // s3) % cap(S[2])
            i1 = (r // s32) % cap(S[1])
            i0 = r // s321
        elif lay == Layout.DN:
            s4, s42, s421 = cap(S[4]), cap(S[4] * S[2]), cap(S[4] * S[2] * S[1])
            i3, i4 = r, c % s4
            i2 = (c // s4) % cap(S[2])
            i1 = (c // s42) % cap(S[1])
            i0 = c // s421
        else:  # NZ
            s3, s4 = cap(S[3]), cap(S[4])
            i2, i3, i4 = r // s3, r % s3, c % s4
            blk = c // s4
            i0, i1 = blk // cap(S[1]), blk % cap(S[1])
        return self._linear((i0, i1, i2, i3, i4), shape).view(np.int64)

    def _linear(self, idx, shape) -> np.ndarray:
        """``sum(i_k * Stride[k])`` over the five index arrays, as 64-bit wrapping arithmetic."""
        off = np.zeros(shape, np.uint64)
        for i, sv in zip(idx, self.stride.values):
            off = off + np.asarray(i).astype(np.uint64) * np.uint64(int(sv) & M64)
        return off

    def numel(self) -> int:
        n = 1
        for v in self.shape.values:
            n *= v
        return n

    def numpy(self) -> np.ndarray:
        """The tensor's elements as a 5-D array of its Shape (a copy): element (i0..i4) is at
        ``addr + sum(i_k * Stride[k])`` elements, whatever the Layout (the Layout says how tiles
        map onto it). A shape that cannot fit in GM, or an element outside it, is a PtoFault."""
        S = self.shape.values
        if any(v < 0 for v in S):
            raise PtoFault(f"GlobalTensor.numpy: shape {S} has a negative dim",
                           rule="GlobalTensor shape", target=_target(), code=F_OTHER)
        n, size = self.numel(), self.Element.itemsize
        if n * size > self.core.gm.size:
            raise PtoFault(f"GlobalTensor.numpy: {n} elements cannot fit in GM ({self.core.gm.size} bytes)",
                           rule="access outside arena", target=_target(), code=F_OTHER)
        idx = np.indices(S, dtype=np.int64).reshape(5, -1) if n else np.zeros((5, 0), np.int64)
        off = self._linear(idx, idx.shape[1])
        addrs = (np.uint64(self.addr & M64) + off * np.uint64(size)).view(np.int64)
        self.core.gm.check_many(addrs, size, "GlobalTensor.numpy", _target(), code=F_OTHER)
        if self.core.reads_all:         # a core of N instances: (N, *Shape), or one in a program
            return self.core.answer(self.core.banks["gm"].gather_all(addrs, self.Element)
                                    .reshape(self.core.batch, *S))
        return self.core.gm.gather(addrs, self.Element).reshape(S)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        from .interop import dlpack
        return dlpack(self.numpy(), type(self).__name__)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)                                   # kDLCPU

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.shape} {self.stride} at {self.ptr!r}>"
