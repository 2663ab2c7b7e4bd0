"""One emulated AI core: a target, a backend and its arenas (GM, UB, L1)."""
from __future__ import annotations

import contextvars
from typing import Mapping

import numpy as np

from . import dtypes
from .backend import resolve_backend
from .interop import as_numpy, cast_exact
from .errors import PtoError
from .memory import SPACES, Arena, Ptr
from .dma_regs import DmaRegs
from .targets import Target, get_target

CURRENT: contextvars.ContextVar[list] = contextvars.ContextVar("ptogpu_core_stack", default=[])


class Core:
    """An emulated core of ``target`` ("cpu" | "a2a3" | "a5") on ``backend``.

    ``quirks`` switches known implementation quirks of the target on or off (see
    ``ptogpu.targets``); unknown names are an error. ``ub_bytes`` / ``l1_bytes`` resize the
    on-chip memories where the target allows it (the CPU simulator's ``PTO_CPU_SIM_UB_BYTES`` /
    ``PTO_CPU_SIM_L1_BYTES``); the NPUs' sizes are hardware. ``strict_hazards`` raises
    :class:`~ptogpu.errors.PtoHazard` (instead of warning) when an A5 SIMT MGATHER's result
    depends on the execution order (aliasing tiles; ``ptogpu.semantics.hazards``).
    """

    def __init__(self, target: str | Target = "a5", backend: str = "auto", *,
                 quirks: Mapping[str, bool] | None = None, strict_hazards: bool = False,
                 ub_bytes: int | None = None, l1_bytes: int | None = None) -> None:
        self.target = get_target(target)
        for what, v in (("ub_bytes", ub_bytes), ("l1_bytes", l1_bytes)):
            if v is not None and not self.target.resizable_memories:
                raise ValueError(f"{what}: {self.target.name}'s memories are fixed by the hardware "
                                 "(only the cpu target's simulator can be resized)")
            if v is not None and not 0 < int(v) <= 1 << 34:
                raise ValueError(f"{what} = {v}: give a size in bytes, 1 .. 16 GiB")
        self.backend, self.backend_reason = resolve_backend(backend)
        self.quirks = dict(self.target.quirks)
        for k, v in (quirks or {}).items():
            if k not in self.quirks:
                raise ValueError(f"unknown quirk {k!r} for target {self.target.name}; "
                                 f"known: {', '.join(self.quirks) or 'none'}")
            self.quirks[k] = bool(v)
        self.gm = Arena("gm", 0, growable=True)
        self.ub = Arena("ub", int(ub_bytes) if ub_bytes else self.target.ub_bytes)
        self.l1 = Arena("l1", int(l1_bytes) if l1_bytes else self.target.l1_bytes)
        # tiles may use all of UB on a resized simulator; else the target's usable part
        self.ub_usable = self.ub.size if ub_bytes else self.target.ub_usable
        self.regs = DmaRegs()           # MTE2 loop/pad registers; persist across instructions
        self._tracers: list = []
        self.strict_hazards = bool(strict_hazards)

    # -- context ---------------------------------------------------------------------------
    def __enter__(self) -> "Core":
        CURRENT.set(CURRENT.get() + [self])
        return self

    def __exit__(self, *exc) -> None:
        stack = CURRENT.get()
        CURRENT.set(stack[:-1])

    def __repr__(self) -> str:
        return f"Core(target={self.target.name!r}, backend={self.backend!r})"

    def trace(self):
        """``with core.trace() as tr:`` records the DMA bursts issued inside (ptogpu.trace)."""
        from .trace import Trace
        return Trace(self)

    # -- memory ----------------------------------------------------------------------------
    def arena(self, space: str) -> Arena:
        if space not in SPACES:
            raise ValueError(f"space must be one of {SPACES}, not {space!r}")
        return getattr(self, space)

    def gm_put(self, array, dtype=None) -> Ptr:
        """Copy ``array`` (anything array-like: NumPy, CuPy, torch, DLPack) into fresh GM;
        returns a typed pointer to it. With ``dtype``, values are cast only where every one
        survives (:mod:`ptogpu.interop`)."""
        a = as_numpy(array)
        dt = dtypes.as_dtype(dtype if dtype is not None else a.dtype)
        a = np.ascontiguousarray(cast_exact(a, dt, "gm_put")).reshape(-1)
        addr = self.gm.alloc(a.nbytes)
        self.gm.write(addr, a)
        return Ptr(self, "gm", addr, dt)

    def gm_alloc(self, count: int, dtype) -> Ptr:
        """Reserve ``count`` zeroed elements of ``dtype`` in GM."""
        dt = dtypes.as_dtype(dtype)
        if count < 0:
            raise ValueError("count must be >= 0")
        return Ptr(self, "gm", self.gm.alloc(int(count) * dt.itemsize), dt)

    def gm_ptr(self, byte_addr: int, dtype) -> Ptr:
        return Ptr(self, "gm", int(byte_addr), dtypes.as_dtype(dtype))

    def l1_ptr(self, byte_addr: int, dtype) -> Ptr:
        return Ptr(self, "l1", int(byte_addr), dtypes.as_dtype(dtype))

    def ub_ptr(self, byte_addr: int, dtype) -> Ptr:
        return Ptr(self, "ub", int(byte_addr), dtypes.as_dtype(dtype))

    def read(self, space: str, byte_addr: int, nbytes: int) -> np.ndarray:
        """Raw bytes (a copy). Inspection only: not an instruction."""
        return self.arena(space).read(int(byte_addr), int(nbytes))

    def write(self, space: str, byte_addr: int, data) -> None:
        """Raw bytes in. Test set-up only: not an instruction."""
        self.arena(space).write(int(byte_addr), data)


def current_core() -> Core:
    """The innermost ``with core:`` of this thread or task: instructions run on it."""
    stack = CURRENT.get()
    if not stack:
        raise PtoError("no current core: create one with `with pto.Core(target, backend):`")
    return stack[-1]
