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


# Fault codes (0: none): the phase of a first fault -- an index read, a table (GM) or source
# read, a destination write, or anything else. Batches and kernel campaigns compare faults by
# these codes.
F_NONE, F_INDEX, F_TABLE, F_DST, F_OTHER = 0, 1, 2, 3, 4


class PtoFault(PtoError):
    """What the hardware would trap at run time (misaligned address, out-of-arena access, ...).
    ``code`` (``F_*``) is its phase, given where it is raised (an index read, a table or source
    read, a destination write, anything else), carried unchanged to the campaign that compares
    it; nothing reads a phase out of a message."""

    def __init__(self, message: str, *, rule: str = "", target: str = "", code: int = F_OTHER) -> None:
        super().__init__(message, rule=rule, target=target)
        self.code = int(code)


class FaultText(str):
    """A fault's message as the batch channels carry it (a str), with its ``code``."""
    code: int = F_OTHER


def fault_text(e: PtoFault) -> FaultText:
    t = FaultText(str(e))
    t.code = e.code
    return t


def fault_code(f) -> int:
    """The code of a fault or of its :class:`FaultText` (what the batch channels carry)."""
    return int(f.code)


class HostMemoryError(MemoryError):
    """This machine cannot hold the memories the emulated program asks for (N instances of an
    arena, a copy of a table): a limit of the host, not a verdict of the target, so never a
    PtoFault. The command line reports it in one line (exit status 2)."""


class BackendUnavailable(PtoError):
    """A backend was asked for by name and cannot run here (no device, no compiler): an error,
    never a quiet fallback to another backend under the requested name."""


class ClusterError(PtoError):
    """A Dask cluster that cannot be reached, started or used (``--dask``)."""


class EmulatorBug(PtoError):
    """Two parts of ptogpu that must agree do not (say, the kernels' index generator and
    rng.py's): the run's verdicts cannot be trusted."""


class PtoIRError(ValueError):
    """PTO IR text ptogpu cannot run: not the dialect's syntax, an op it does not emulate, a
    type or operand count an op does not take, a loop without constant bounds. The message is
    one line that starts with ``file:line:col``."""


class KernelError(RuntimeError):
    """A user's kernel under a campaign did what no kernel may: raised an exception that is
    not ptogpu's, returned a value, ran past the time limit, or wrote outside its buffers.
    The message names the instance and the call."""


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


class PtoAssertWarning(UserWarning):
    """A run-time assert of the emulated code fails in a build where it is compiled out: the
    code runs on (and ptogpu does what it does), but a build with the assert traps."""


class PtoPortabilityWarning(UserWarning):
    """The target accepts this, but the others trap or reject it (say, the CPU simulator's
    unaligned TASSIGN)."""


def asserts_live(core) -> bool:
    """Are the emulated code's run-time asserts compiled in (the target's assert quirk)?"""
    return bool(core.quirks.get(core.target.assert_quirk, False))


def runtime_assert(core, ok: bool, rule: str, message: str) -> None:
    """One mechanism for every run-time assert of the emulated code: the CPU simulator's
    ``assert`` (live unless NDEBUG: quirk ``cpu_asserts``, on) and the NPUs' ``PTO_ASSERT``
    (live only in a ``_DEBUG`` build: quirk ``pto_debug_asserts``, off). Live and false:
    PtoFault naming the assert (nothing written). Compiled out: a PtoAssertWarning, and the
    caller goes on doing what the code does."""
    if ok:
        return
    q = core.target.assert_quirk
    t = core.target.name
    if asserts_live(core):
        raise PtoFault(message, rule=rule, target=t)
    warnings.warn(f"[{t}] {rule}: {message} (compiled out in this build, quirk {q}=off; "
                  "it traps where it is live)", PtoAssertWarning, stacklevel=3)


class NotBatched(Exception):
    """A step running every instance of a core of N at once touched one instance's memory:
    the instruction has no batch rule for this call, so it runs instance by instance (nothing
    was written). Internal: it never leaves :meth:`ptogpu.Core.execute`."""
