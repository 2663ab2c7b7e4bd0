"""Byte arenas (GM, UB, L1) and typed pointers into them.

Every access the emulator makes goes through :meth:`Arena.check`, so no address an
instruction computes can reach memory outside the arena: it becomes a :class:`PtoFault`.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from . import dtypes
from .errors import PtoFault

SPACES = ("gm", "ub", "l1")
GM_LIMIT = 1 << 32
"""Most bytes one Core's GM may hold (4 GiB): a larger allocation is a PtoFault, never a host
MemoryError. Host pages are only touched where the emulator writes."""


class Arena:
    """A byte-addressed memory. GM grows on allocation; UB and L1 have a fixed size."""

    def __init__(self, name: str, size: int, *, growable: bool = False, align: int = 64,
                 limit: int = GM_LIMIT) -> None:
        self.name = name
        self.growable = growable
        self.limit = limit
        self.align = align
        self.size = size                # bytes that exist (addresses [0, size))
        self._buf = self._reserve(size) if growable else np.zeros(max(size, 64), np.uint8)
        self.top = 0                    # next free byte for allocation (GM)

    @property
    def data(self) -> np.ndarray:
        return self._buf[: self.size]

    def alloc(self, nbytes: int) -> int:
        """Reserve ``nbytes`` zeroed bytes, aligned to ``align``; returns the byte address."""
        addr = -(-self.top // self.align) * self.align
        end = addr + max(int(nbytes), 0)
        if end > self.size:
            if not self.growable or end > self.limit:
                raise PtoFault(f"{self.name.upper()} exhausted: need {end} bytes, have {self.size}",
                               rule="arena capacity")
            self._grow(end)
        self.top = end
        return addr

    def _reserve(self, size: int) -> np.ndarray:
        """GM: the whole limit at once, as zero pages the OS maps only when touched (a large
        calloc is an anonymous mapping), so growing never copies and untouched GM costs no
        memory; where the OS refuses the reservation, grow by copying."""
        try:
            return np.zeros(max(-(-self.limit // self.align) * self.align, size, 64), np.uint8)
        except MemoryError:
            return np.zeros(max(size, 64), np.uint8)

    def _grow(self, end: int) -> None:
        new_size = -(-end // self.align) * self.align
        if new_size > self._buf.size:
            cap = min(max(new_size, 2 * self._buf.size), -(-self.limit // self.align) * self.align)
            buf = np.zeros(cap, np.uint8)
            buf[: self.size] = self._buf[: self.size]
            self._buf = buf
        self.size = new_size

    def check(self, addr: int, nbytes: int, what: str, target: str = "") -> None:
        if addr < 0 or nbytes < 0 or addr + nbytes > self.size:
            raise PtoFault(f"{what}: bytes [{addr:#x}, {addr + nbytes:#x}) lie outside "
                           f"{self.name.upper()} [0, {self.size:#x})",
                           rule="access outside arena", target=target)

    @contextmanager
    def undo_on_error(self):
        """Restore every byte if the block raises: a step-by-step execution that faults part-way
        must leave memory as it was (nothing is written on a fault). For on-chip arenas only:
        they are small enough that a whole copy is cheap."""
        saved = self.data.copy()
        try:
            yield
        except BaseException:
            self.data[:] = saved
            raise

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        self.check(addr, nbytes, "read")
        return self.data[addr: addr + nbytes].copy()

    def write(self, addr: int, data) -> None:
        """Write raw bytes: a NumPy array's own bytes, or ``bytes`` / a list of byte values."""
        if isinstance(data, (bytes, bytearray, memoryview)):
            b = np.frombuffer(bytes(data), np.uint8)
        elif isinstance(data, np.ndarray):
            b = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        else:
            b = np.asarray(data, dtype=np.uint8).reshape(-1)
        self.check(addr, b.size, "write")
        self.data[addr: addr + b.size] = b

    # -- vectorised typed access ---------------------------------------------------------
    def check_many(self, addrs: np.ndarray, nbytes: int, what: str, target: str = "",
                   describe=None) -> None:
        """Fault on the first address (in the given order) whose ``nbytes`` leave the arena.

        ``addrs`` are int64 (already wrapped); ``describe(i)`` names element ``i``.
        """
        if addrs.size == 0:
            return
        bad = (addrs < 0) | (addrs > self.size - nbytes)
        if bad.any():
            i = int(np.flatnonzero(bad.reshape(-1))[0])
            a = int(addrs.reshape(-1)[i])
            who = describe(i) if describe else f"element {i}"
            raise PtoFault(f"{what}: {who} accesses {self.name.upper()} byte address "
                           f"{a:#x} (+{nbytes}), outside [0, {self.size:#x})",
                           rule="access outside arena", target=target)

    def gather(self, addrs: np.ndarray, dtype) -> np.ndarray:
        """Elements of ``dtype`` at byte addresses ``addrs`` (checked by the caller)."""
        st = dtypes.storage(dtype)
        size = st.itemsize
        a = addrs.astype(np.int64, copy=False)
        if a.size and not (a % size).any():
            return self.data.view(st)[a // size]
        idx = a[..., None] + np.arange(size, dtype=np.int64)
        return np.ascontiguousarray(self.data[idx]).view(st).reshape(a.shape)

    def scatter(self, addrs: np.ndarray, values: np.ndarray) -> None:
        """Write ``values`` (one per address, in order; last writer wins)."""
        v = np.ascontiguousarray(values)
        size = v.dtype.itemsize
        a = addrs.astype(np.int64, copy=False).reshape(-1)
        v = v.reshape(-1)
        if a.size and not (a % size).any():
            self.data.view(v.dtype)[a // size] = v
            return
        idx = a[:, None] + np.arange(size, dtype=np.int64)
        self.data[idx] = v.view(np.uint8).reshape(-1, size)


@dataclass(frozen=True)
class Ptr:
    """A typed pointer (``__gm__ T*``, ``__cbuf__ T*``, ``__ubuf__ T*``) of one core."""
    core: object
    space: str
    addr: int
    dtype: np.dtype

    def __add__(self, k: int) -> "Ptr":
        return Ptr(self.core, self.space, self.addr + int(k) * self.dtype.itemsize, self.dtype)

    def __sub__(self, k: int) -> "Ptr":
        return self + (-int(k))

    def numpy(self, count: int) -> np.ndarray:
        """``count`` elements starting here (a copy; for inspection)."""
        nbytes = int(count) * self.dtype.itemsize
        return self.core.read(self.space, self.addr, nbytes).view(dtypes.storage(self.dtype))

    def __repr__(self) -> str:
        return f"<{self.space} {dtypes.name_of(self.dtype)}* {self.addr:#x}>"
