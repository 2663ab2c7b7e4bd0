"""Backend selection. ``numpy`` is the reference and always available.

``native`` (the kernels of ``cuda_src/`` compiled for the CPU through the host shim) and
``cupy`` (the same kernels on an NVIDIA GPU) run every instruction family as kernels: MGATHER
(UB and GM->L1, every target), MSCATTER, TGATHERB, TINTERLEAVE/TDEINTERLEAVE, Reg::Gather/GatherB and
the DMA burst engine (TLOAD/TSTORE/asc_copy_*). ``auto`` picks cupy when a CUDA device
answers, else native when a C++ compiler builds the kernels, else numpy; the reason is kept.
"""
from __future__ import annotations

from ..errors import BackendUnavailable

BACKENDS = ("auto", "numpy", "cupy", "native")



def kernel_coverage() -> str:
    """What the kernel backends run, in words: the registry's view (``ptogpu.isa``)."""
    from ..isa import kernel_coverage as coverage
    return coverage()


def backend_available(name: str) -> tuple[bool, str]:
    """(usable, reason) for ``native`` or ``cupy``; builds the native library on first use."""
    if name == "native":
        from . import native_backend
        return native_backend.available()
    if name == "cupy":
        from . import cupy_backend
        return cupy_backend.available()
    if name == "numpy":
        return True, "numpy: always available"
    raise ValueError(f"unknown backend {name!r}")


def check_name(name: str) -> str:
    """A backend name, lower-cased ("NATIVE" = "native"); a ValueError for anything else. Not
    resolved: ``auto`` stays ``auto`` (a Dask worker resolves it for itself)."""
    name = name.lower() if isinstance(name, str) else name
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    return name


def resolve_backend(name: str) -> tuple[str, str]:
    """Return (backend, reason it was chosen). Names are case-insensitive ("NATIVE" = "native")."""
    name = check_name(name)
    if name == "numpy":
        return "numpy", "requested"
    if name == "auto":
        return choose_auto()
    ok, why = backend_available(name)
    if not ok:
        raise BackendUnavailable(f"backend {name!r} is not available here: {why}", rule="backend")
    return name, f"requested; {why}; instructions without kernels run on NumPy"


def choose_auto() -> tuple[str, str]:
    """cupy when a CUDA device answers, else native when the kernels build, else numpy."""
    why = []
    for name in ("cupy", "native"):
        try:
            ok, reason = backend_available(name)
        except Exception as e:  # pragma: no cover - a broken install must not break auto
            ok, reason = False, f"{type(e).__name__}: {e}"
        if ok:
            return name, f"auto: {reason}" + (f" ({'; '.join(why)})" if why else "")
        why.append(f"{name} unusable: {reason.splitlines()[0] if reason else '?'}")
    return "numpy", "auto: numpy, the reference (" + "; ".join(why) + ")"


def kernel_ok(core, *operands) -> bool:
    """A kernel backend, and every tile operand 32-byte aligned: the CPU simulator accepts any
    in-bounds TASSIGN, and its misaligned tiles run on the NumPy reference (the kernels' word
    loads assume the NPUs' alignment)."""
    if core.backend == "numpy":
        return False
    return all(getattr(x, "addr", None) is None or not hasattr(x, "Loc") or x.addr % 32 == 0
               for x in operands)






def run_dma_bursts(core, bursts, prologue=None) -> bool:
    """Run a checked DMA burst list as the ``dma_bursts`` kernel; False: run NumPy."""
    if core.backend == "numpy":
        return False
    from .dma_kernels import run_bursts
    return run_bursts(core, bursts, prologue)




def run_reg_gather(core, dst, base, idx, active, mode) -> bool:
    """Run a checked Reg::Gather as the ``reg_gather`` kernel; False: run NumPy."""
    if core.backend == "numpy":
        return False
    from .ops_kernels import run_reg_gather as run
    return run(core, dst, base, idx, active, mode)


def run_reg_gatherb(core, dst, base, off, on) -> bool:
    """Run a checked Reg::GatherB as the ``reg_gatherb`` kernel; False: run NumPy."""
    if core.backend == "numpy":
        return False
    from .ops_kernels import run_reg_gatherb as run
    return run(core, dst, base, off, on)
