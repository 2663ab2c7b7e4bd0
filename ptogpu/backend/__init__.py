"""Backend selection. ``numpy`` is the reference and always available."""
from __future__ import annotations

from ..errors import PtoError

BACKENDS = ("auto", "numpy", "cupy", "native")


def resolve_backend(name: str) -> tuple[str, str]:
    """Return (backend, reason it was chosen)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "numpy":
        return "numpy", "requested"
    if name == "auto":
        return "numpy", "auto: the numpy backend (kernel backends are not built into this version)"
    raise PtoError(f"backend {name!r} is not available in this version of ptogpu; "
                   f"use 'numpy' or 'auto'", rule="backend")
