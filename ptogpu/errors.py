"""Error types. Every message names the rule broken and the target it was broken on."""
from __future__ import annotations

import warnings


class PtoError(Exception):
    """Base class of every error ptogpu raises on purpose."""

    def __init__(self, message: str, *, rule: str = "", target: str = "") -> None:
        self.rule = rule
        self.target = target
        prefix = ""
        if rule or target:
            prefix = f"[{target or 'any target'}] {rule}: " if rule else f"[{target}] "
        super().__init__(prefix + message)


class PtoCheckError(PtoError):
    """What the C++ compiler would reject (a ``static_assert``); raised before memory changes."""


class PtoFault(PtoError):
    """What the hardware would trap at run time (misaligned address, out-of-arena access, ...)."""


class BackendUnavailable(PtoError):
    """A backend was asked for by name and cannot run here (no device, no compiler): an error,
    never a quiet fallback to another backend under the requested name."""


class WorkerLost(RuntimeError):
    """A worker process died under a run (killed, out of memory): the run is incomplete."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where SIGINT would be, so a stopped run still reports what finished."""


class PtoHazard(UserWarning):
    """A result that depends on execution order (aliasing tiles)."""


def check(cond: bool, rule: str, target: str, message: str) -> None:
    """Raise PtoCheckError unless ``cond`` holds (mirrors a C++ ``static_assert``)."""
    if not cond:
        raise PtoCheckError(message, rule=rule, target=target)


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    warnings.warn(message, category, stacklevel=3)
