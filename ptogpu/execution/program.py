"""A user's kernel on cores of N instances: its typed GM buffers made (fixed arrays shared by
every instance, per-instance inputs, zeroed outputs, in that order, as a C++ kernel receives
``__gm__ T*`` arguments), the kernel called once with them, and per instance the outputs'
bytes, the fault (or none), whether it wrote outside its buffers, and, on request, its call
log (``ptogpu.calls``: each instruction call's line and the bytes it wrote).

The instances run as one core of N (``Core(batch=N)``): every instruction is one launch over
N blocks or one NumPy step along the instances, as a core of N runs any program. A program
that cannot be run is a :class:`~ptogpu.errors.KernelError` naming the instance and where
the kernel was: an exception that is not ptogpu's, a returned value, the time limit."""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import dtypes
from ..calls import PACKAGE, caller, restrict
from ..core import FaultList, ProbeStop
from ..interop import cast_exact
from ..memory import GM_LIMIT, MAP_MIN
from ..errors import EmulatorBug, HostMemoryError, KernelError, PtoCheckError, PtoError, PtoFault
from ..targets import get_target
from . import reconverge

GM_BUDGET = 256 << 20
"""Bytes of GM a core of N may hold in all (every instance has its own copy of GM)."""
MAX_CORE = 4096


@dataclass(frozen=True, eq=False)
class Program:
    """A kernel and its buffers. ``fn(**ptrs)`` is the kernel; ``inputs`` maps a name to a
    per-instance generator (``execution.inputs``); ``outputs`` a name to (count, dtype);
    ``fixed`` a name to an array every instance shares; ``ref`` says where ``fn`` lives
    (``path.py:name`` or ``module:qualname``): how worker processes and reproducers find it."""
    fn: Callable
    inputs: dict
    outputs: dict
    fixed: dict = field(default_factory=dict)
    ref: str = ""
    pair: str = "cpu:a5"              # the sides a campaign compares unless told
    family = "kernel"                 # (its campaigns' report: ptogpu.fuzz.user_kernel)

    def __reduce__(self):
        # where it is unpickled (a worker process) a kernel from a file is its slice run again
        # (never the file: a script's other statements run campaigns), one from an importable
        # module is imported
        if getattr(self.fn, "is_pto_ir", False):          # a PTO IR kernel travels as its text
            return (Program, (self.fn, self.inputs, self.outputs, self.fixed, self.ref, self.pair))
        if self.scripted():
            return (_from_slice, (self.slice(), self.inputs, self.outputs, self.fixed, self.ref, self.pair))
        return (_rebuild, (self.ref, self.inputs, self.outputs, self.fixed, self.pair))

    def scripted(self) -> bool:
        """The kernel lives in a file run as a script or read by ``load``, not in a module
        that can be imported: it travels, and stands in reproducers, as its slice."""
        if getattr(self.fn, "is_pto_ir", False):
            return False                 # (travels as its text: PtoKernel pickles itself)
        where = self.ref.rpartition(":")[0]
        return where.endswith(".py") or where == "__main__" or not where

    @functools.cached_property
    def _slice(self):
        from .source import kernel_source
        try:
            return kernel_source(self.fn)
        except ValueError as e:
            return e

    def slice(self):
        """The kernel's stand-alone source (``execution.source``); ValueError where its file
        does not give one."""
        got = self._slice
        if isinstance(got, ValueError):
            raise got
        return got

    def __post_init__(self) -> None:
        """The buffers are checked here, before anything runs: a mistake in them is the
        user's, named by its field in one line (ValueError), never an error inside a run."""
        from .inputs import Indices, Picks, Values
        who = f"kernel {self.ref or getattr(self.fn, '__name__', '?')}"
        for field_, d in (("inputs", self.inputs), ("outputs", self.outputs), ("fixed", self.fixed)):
            if not isinstance(d, dict) or not all(isinstance(k, str) and k.isidentifier() for k in d):
                raise ValueError(f"{who}: {field_}: give a dict of buffer name -> spec")
        names = [*self.fixed, *self.inputs, *self.outputs]
        if len(set(names)) != len(names):
            raise ValueError(f"{who}: a buffer name is used twice in fixed, inputs, outputs")
        for name, g in self.inputs.items():
            if not isinstance(g, (Indices, Picks, Values)):
                raise ValueError(f"{who}: inputs[{name!r}] is a {type(g).__name__}: give a generator, "
                                 "pto.fuzz.indices(shape, cap), pto.fuzz.values(shape, dtype) or pto.fuzz.picks(shape, pool) (an array "
                                 "every instance shares belongs in fixed)")
        if not self.outputs:
            raise ValueError(f"{who}: no outputs: a campaign compares the bytes a kernel writes to its output "
                             "buffers; give at least one")
        total = 0
        for name, spec in self.outputs.items():
            count = spec[0] if isinstance(spec, tuple) and len(spec) == 2 else None
            if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count <= 0:
                raise ValueError(f"{who}: outputs[{name!r}] = {spec!r}: give (count, dtype), a whole count > 0")
            total += int(count) * _dtype_of(who, f"outputs[{name!r}]", spec[1]).itemsize
        for name, a in self.fixed.items():
            try:
                arr = np.asarray(a)
            except Exception as e:                    # (an object NumPy cannot make an array of)
                raise ValueError(f"{who}: fixed[{name!r}]: not an array ({type(e).__name__}: {e})") from None
            if arr.dtype == object or arr.size == 0:
                raise ValueError(f"{who}: fixed[{name!r}]: give a non-empty array of numbers")
            _dtype_of(who, f"fixed[{name!r}]", arr.dtype)
            total += arr.nbytes
        if total > GM_LIMIT:
            raise ValueError(f"{who}: its buffers hold {total} bytes: more than one core's GM ({GM_LIMIT} bytes)")
        _check_params(who, self.fn, names)

    def out_layout(self) -> list[tuple[str, int, np.dtype]]:
        """(name, count, dtype) of each output, in order: the compared bytes."""
        return [(n, int(c), dtypes.as_dtype(d)) for n, (c, d) in self.outputs.items()]

    def out_bytes(self) -> int:
        return sum(c * d.itemsize for _, c, d in self.out_layout())

    def gm_bytes(self) -> int:
        """GM one instance holds: every buffer, 64-byte aligned; a fixed array mapped into
        every instance (``memory.MAP_MIN`` bytes or more, on Linux) counts once per core."""
        mapped = sys.platform.startswith("linux")
        sizes = [b for b in (np.asarray(a).nbytes for a in self.fixed.values()) if not (mapped and b >= MAP_MIN)]
        sizes += [int(np.prod(g.shape)) * dtypes.as_dtype(g.dtype).itemsize for g in self.inputs.values()]
        sizes += [c * d.itemsize for _, c, d in self.out_layout()]
        return sum(-(-max(s, 1) // 64) * 64 for s in sizes)

    def core_size(self) -> int:
        return int(max(1, min(MAX_CORE, GM_BUDGET // max(self.gm_bytes(), 1))))

    def settings(self) -> dict:
        """The program as JSON fields (the fixed arrays by shape, type and SHA-256)."""
        return {"kernel": self.ref,
                "inputs": {n: g.describe() for n, g in self.inputs.items()},
                "outputs": {n: [int(c), dtypes.name_of(dtypes.as_dtype(d))] for n, (c, d) in self.outputs.items()},
                "fixed": {n: {"shape": list(np.shape(a)), "dtype": dtypes.name_of(np.asarray(a).dtype),
                              "sha256": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]}
                          for n, a in self.fixed.items()}}


def _dtype_of(who: str, what: str, dt) -> np.dtype:
    try:
        return dtypes.as_dtype(dt)
    except (TypeError, ValueError, KeyError) as e:
        raise ValueError(f"{who}: {what}: element type {dt!r}: {e}") from None


def _check_params(who: str, fn: Callable, names: list[str]) -> None:
    """The kernel takes exactly its buffers, by name (``fn(**ptrs)``)."""
    import inspect
    if not callable(fn):
        raise ValueError(f"{who}: {fn!r} is not a function")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return                                      # (a builtin or C function: it will say)
    try:
        sig.bind(**{n: None for n in names})
    except TypeError as e:
        raise ValueError(f"{who}: its parameters ({', '.join(sig.parameters)}) do not take the buffers "
                         f"fixed + inputs + outputs ({', '.join(names) or 'none'}): {e}") from None


FUZZ_FIELDS = ("inputs", "outputs", "fixed", "pair")
"""What a kernel file's ``FUZZ`` dict may hold."""


def load(ref: str) -> Program:
    """The program of ``ref``: ``path.py:fn`` (the file's ``FUZZ`` dict gives inputs, outputs
    and fixed) or ``module:fn`` (the same, from an importable module)."""
    where, _, name = ref.rpartition(":")
    if not where or not name:
        raise ValueError(f"kernel {ref!r}: expected path/to/file.py:function (or module:function)")
    if where.endswith(".py"):
        path = os.path.abspath(where)
        if not os.path.isfile(path):
            raise ValueError(f"kernel {ref!r}: no file {where}")
        mod_name = "ptogpu_kernel_" + hashlib.sha1(path.encode()).hexdigest()[:12]
        mod = sys.modules.get(mod_name)
        if mod is None:
            from .source import importable
            importable(path)
            spec = importlib.util.spec_from_file_location(mod_name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = mod
            try:
                spec.loader.exec_module(mod)
            except Exception as e:
                del sys.modules[mod_name]
                raise ValueError(f"kernel {ref!r}: the file does not load: {type(e).__name__}: {e}") from None
        ref = f"{path}:{name}"
    else:
        try:
            mod = importlib.import_module(where)
        except ImportError as e:
            raise ValueError(f"kernel {ref!r}: {e}") from None
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise ValueError(f"kernel {ref!r}: no function {name!r} there")
    fuzz = getattr(mod, "FUZZ", None)
    if isinstance(fuzz, dict) and isinstance(fuzz.get(name), dict) and "outputs" not in fuzz:
        fuzz = fuzz[name]                     # FUZZ = {"fn": dict(...), ...}: several kernels
    if not isinstance(fuzz, dict) or "outputs" not in fuzz:
        raise ValueError(f"kernel {ref!r}: the module defines no FUZZ = dict(inputs=..., outputs=..., "
                         "fixed=...) for it (docs/fuzz.md)")
    odd = [k for k in fuzz if k not in FUZZ_FIELDS]
    if odd:
        raise ValueError(f"kernel {ref!r}: FUZZ field {odd[0]!r} is not one of {', '.join(FUZZ_FIELDS)}")
    parts = {k: fuzz.get(k, {}) for k in ("inputs", "outputs", "fixed")}
    for k, v in parts.items():
        if not isinstance(v, dict):
            raise ValueError(f"kernel {ref!r}: FUZZ {k} is a {type(v).__name__}: give a dict of buffer name -> spec")
    if not isinstance(fuzz.get("pair", ""), str):
        raise ValueError(f"kernel {ref!r}: FUZZ pair: give two sides as a string, e.g. 'cpu:a5'")
    return Program(fn, dict(parts["inputs"]), dict(parts["outputs"]), dict(parts["fixed"]), ref,
                   str(fuzz.get("pair", "cpu:a5")))


def load_fn(ref: str) -> Callable:
    """The kernel function ``ref`` names (``path.py:fn`` or ``module:qualname``)."""
    where, _, name = ref.rpartition(":")
    if where.endswith(".py"):
        return load(ref).fn
    mod = importlib.import_module(where)
    return functools.reduce(getattr, name.split("."), mod)


def _from_slice(src, inputs: dict, outputs: dict, fixed: dict, ref: str, pair: str) -> "Program":
    return Program(src.load(), inputs, outputs, fixed, ref, pair)


def _rebuild(ref: str, inputs: dict, outputs: dict, fixed: dict, pair: str) -> "Program":
    return Program(load_fn(ref), inputs, outputs, fixed, ref, pair)


def ref_of(fn: Callable) -> str:
    """Where a kernel function lives, as ``load`` takes it: its file for a script or a file
    ``load`` read, else ``module:qualname``; a PTO IR kernel's own ``file.pto:func``."""
    if getattr(fn, "is_pto_ir", False):
        return fn.ref
    module = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "?"))
    path = getattr(sys.modules.get(module), "__file__", None)
    if path and (module == "__main__" or module.startswith("ptogpu_kernel_")):
        return f"{os.path.abspath(path)}:{name}"
    return f"{module}:{name}"


@dataclass
class ProgramRun:
    """Instances of one program on one target: outputs (N, out_bytes) uint8, faults (per
    instance None or its PtoFault, built when read) and their codes, the call logs (or None)
    and which instances wrote outside their buffers. ``paths``: the instances that took each
    path through the kernel (positions) and that path's calls, one record per call with a
    row per instance of the path (``ptogpu.calls``); ``runs``: how many times the kernel ran
    (once, unless it decides on values it reads and its instances part: ``Core.program``)."""
    outputs: np.ndarray
    faults: list
    codes: np.ndarray
    paths: list | None
    stray: np.ndarray
    runs: int = 1
    ran: dict = field(default_factory=dict)   # (kernel backends) instruction -> how its calls ran (Core.ran)

    @property
    def calls(self) -> list | None:
        """The call log of a run whose instances all took one path."""
        if self.paths is None:
            return None
        if len(self.paths) != 1:
            raise ValueError(f"the instances took {len(self.paths)} paths through the kernel: read .paths")
        return self.paths[0][1]


def run_program(prog: Program, target: str, backend: str, data: dict[str, np.ndarray], *,
                quirks: dict | None = None, trace: bool = False, first: int = 0,
                limit: float | None = None, shown: int | None = None, gaps: bool = False) -> ProgramRun:
    """The instances whose inputs are ``data`` (one row each; ``first``: the number of the
    first, for messages; ``shown``: how many of them messages count, when the rest pad a
    small run) on one core of N of ``target`` on ``backend``. Each instance ends as its single
    core would: the kernel runs over all of them under ``Core.program``; those its reads
    parked (their values differed from the path's) run it again, until none is left.
    ``trace``: log the calls (``gaps``: each call notes which instances then have bytes
    outside the buffers)."""
    n = instance_count(data)
    todo, acc = np.arange(n), None
    end = None if not limit else time.monotonic() + limit     # (the limit is the chunk's, every run)
    while True:
        part = data if todo.size == n else {k: v[todo] for k, v in data.items()}
        left = None if end is None else max(end - time.monotonic(), 1e-3)
        run, parked = _run_padded(prog, target, backend, part, quirks, trace, first + int(todo[0]), (left, limit),
                                  shown if todo.size == n else None, gaps)
        if acc is None and not parked.any():
            return run                          # one path: every instance ran to its end
        acc = _merge(acc, n, todo, run, parked)
        todo = todo[parked]
        if not todo.size:
            acc.codes = acc.faults.codes()
            return acc


def instance_count(data: dict) -> int:
    """How many instances per-instance inputs ``data`` hold (one, for a kernel without any)."""
    return len(next(iter(data.values()))) if data else 1


def _merge(acc: ProgramRun | None, n: int, todo: np.ndarray, run: ProgramRun, parked: np.ndarray) -> ProgramRun:
    """``acc`` (made for ``n`` instances) with the instances of ``run`` (positions ``todo``)
    that ran to their end."""
    if acc is None:
        acc = ProgramRun(np.zeros((n, run.outputs.shape[1]), np.uint8), FaultList([None] * n),
                         np.zeros(n, np.int8), None if run.paths is None else [], np.zeros(n, bool), 0)
    done = np.flatnonzero(~parked)
    ks = todo[done]
    acc.outputs[ks] = run.outputs[done]
    acc.stray[ks] = run.stray[done]
    acc.faults.defer(ks, lambda i, f=run.faults, d=done: f[int(d[i])], run.codes[done])
    if acc.paths is not None:
        acc.paths += [(todo[pos], calls) for pos, calls in run.paths]
    acc.runs += run.runs
    for name, parts in run.ran.items():
        acc.ran.setdefault(name, set()).update(parts)
    return acc


def _run_padded(prog: Program, target: str, backend: str, data: dict, quirks, trace: bool, first: int,
                limit: tuple, shown, gaps: bool) -> tuple[ProgramRun, np.ndarray]:
    """One run of the kernel over ``data``'s instances; and which of them it parked.
    ``limit``: (seconds left for this run, the chunk's limit), or Nones."""
    n = instance_count(data)
    size = min(POOL_MIN, prog.core_size())          # (never more GM than the program's cores hold)
    if data and n < size and (trace or n > 1):
        # a few instances run as the first of a kept core of POOL_MIN (the rest repeat the
        # last): a classification's many small runs make no core each, and a traced single
        # instance logs its faulting call (one core would raise it)
        pad = {k: np.concatenate([v, np.repeat(v[-1:], size - n, axis=0)]) for k, v in data.items()}
        run, parked = _run_once(prog, target, backend, pad, quirks, trace, first, limit, shown or n, gaps)
        paths = None if run.paths is None else restrict(run.paths, np.arange(n))
        return (ProgramRun(run.outputs[:n], run.faults[:n], run.codes[:n], paths, run.stray[:n], run.runs, run.ran),
                parked[:n])
    return _run_once(prog, target, backend, data, quirks, trace, first, limit, shown or n, gaps)


def _run_once(prog: Program, target: str, backend: str, data: dict, quirks, trace: bool, first: int,
              limit: tuple, shown: int, gaps: bool) -> tuple[ProgramRun, np.ndarray]:
    n = instance_count(data)
    key = (target, backend, n, tuple(sorted((quirks or {}).items())))
    entry = None if n < POOL_MIN else _pool_take(prog, key)
    if entry is None:
        entry = _setup(prog, target, backend, n, quirks)
    core, ptrs, spans = entry
    with core:
        for name, a in data.items():            # per-instance inputs, into their reserved bytes
            g = prog.inputs[name]
            rows = np.ascontiguousarray(cast_exact(a.reshape(n, -1), dtypes.as_dtype(g.dtype), "gm_put"))
            core.banks["gm"].write_rows(ptrs[name].addr, rows.view(np.uint8).reshape(n, -1))
        resume = not trace and n > 1
        core.resume = resume
        core.ran = {} if backend != "numpy" else None
        meet = resume and RECONVERGE and reconverge.analysable(prog.fn)
        top = prog.fn.__code__ if meet else None
        where = (lambda call: reconverge.key(top, call)) if meet else None
        run = functools.partial(_run_path, prog, core, ptrs, trace, gaps, spans, first, limit, shown, target)
        todo = [(None, None)]                 # (replay, instances): the first run, then each parked group
        stops: list = []                      # (meet) (key, log, event, instances) of runs stopped at a call
        runs, faults = 0, None
        try:
            while todo:
                replay, group = todo.pop()
                # (meet: after it parks instances, a run stops at its next call)
                got = _run_group(run, core, replay, group, where and (where, False), stops)
                if got is not None:
                    log, faults = got
                runs += 1
                if resume and core.parked.any():
                    parked = _parked_groups(core)
                    if not meet:
                        todo.extend(parked)
                    else:
                        runs += _advance(run, core, parked, stops, where)
                if not todo and stops:        # every path at its next call: those that meet run on together
                    todo, stops = _merged(stops), []
        finally:
            core.resume, core._replay, core._log, core._probe = False, None, None, None
            ran, core.ran = core.ran or {}, None
        if faults is None:
            faults = core.faults if n > 1 else FaultList([None])
        parked = core.parked.copy() if n > 1 else np.zeros(1, bool)
        outs = [np.ascontiguousarray(core.banks["gm"].rows()[:, ptrs[name].addr: ptrs[name].addr + c * dt.itemsize])
                for name, c, dt in prog.out_layout()]
        stray = _gaps_written(core, spans)
    if n >= POOL_MIN:
        _pool_put(prog, key, entry)
    out = np.concatenate(outs, axis=1) if len(outs) > 1 else outs[0]
    paths = None
    if trace:
        on = np.flatnonzero(~parked)
        paths = [(on, log.calls if on.size == n else [c.rows(on) for c in log.calls])]
    return ProgramRun(out.reshape(n, -1), faults, faults.codes(), paths, stray, runs, ran), parked


RECONVERGE = os.environ.get("PTOGPU_RECONVERGE", "1") != "0"
"""Parked groups whose next instruction call has the same key (``execution.reconverge``) run on
together; ``PTOGPU_RECONVERGE=0``: each group runs alone."""


def _parked_groups(core) -> list:
    """The instances the last run parked, a group per event they were parked at (with the run's
    log to replay up to it); the core's parked marks cleared."""
    at = core.park_at[core.parked]
    ks = np.flatnonzero(core.parked)
    core.parked[:] = False
    return [((core._log, int(e)), ks[at == e]) for e in np.unique(at)]


def _run_group(run, core, replay, group, probe, stops: list):
    """One run of the kernel (``run``: ``_run_path`` with its arguments) over ``group`` (None: the
    live instances), replaying ``replay``, under ``probe`` (``Core._probe``): its (log, faults),
    or None where it stopped at a call (noted in ``stops``)."""
    if group is not None:                     # a parked group resumes: it alone runs, replaying its prefix
        core.live[:] = False
        core.live[group] = True
    core._replay, core._probe = replay, probe
    try:
        return run()
    except ProbeStop as s:
        stops.append((s.key, core._log, len(core._log), np.flatnonzero(core.live)))
        return None


def _advance(run, core, groups: list, stops: list, where) -> int:
    """Each parked group (and each group its run parks in turn) run to its next instruction call
    and stopped there, noted in ``stops``; no instruction runs, so its instances' memory stays
    their own. A group that ends without another call is done. Returns how many runs it took."""
    runs = 0
    while groups:
        replay, group = groups.pop()
        _run_group(run, core, replay, group, (where, True), stops)
        runs += 1
        if core.parked.any():
            groups.extend(_parked_groups(core))
    return runs


def _merged(stops: list) -> list:
    """The runs to do from the stopped ones: those with the same key (``execution.reconverge``)
    as one, replaying the first one's log to its call; one without a key alone."""
    buckets: dict = {}
    for k, log, ev, live in stops:
        if live.size:
            buckets.setdefault(k if k is not None else object(), []).append((log, ev, live))
    return [((b[0][0], b[0][1], True), np.concatenate([x[2] for x in b])) for b in buckets.values()]


def _run_path(prog: Program, core, ptrs: dict, trace: bool, gaps: bool, spans, first: int, limit: tuple,
              shown: int, target: str):
    """One run of the kernel on ``core`` under ``Core.program`` (its live instances); its call
    log (``trace``) and, on a single core, the fault it raised."""
    log = core.calls(watch=(lambda: _gaps_written(core, spans)) if gaps else None) if trace \
        else contextlib.nullcontext()
    faults = None
    with log, _limit(*limit, first, shown), core.program():
        try:
            got = prog.fn(**ptrs)
        except PtoFault as e:
            e.with_traceback(None)        # (kept with the faults: its frames would hold the caller's)
            if core.batch == 1:           # (a single core raises its fault)
                faults = FaultList([e])
            elif e is not core._raised:   # a fault of the host code (a read outside memory):
                core.stop_all(e)          # every instance on the path stops there
            core._raised = got = None
        except PtoCheckError:
            raise
        except KernelError as e:
            if not getattr(e, "unplaced", False):
                raise
            raise KernelError(f"instance {first}: {e} ({where_raised(e, prog.ref)})") from None
        except EmulatorBug as e:          # two parts of ptogpu disagree: a verdict, not the kernel's doing
            raise EmulatorBug(f"instance {first}: {e} ({where_raised(e, prog.ref)})") from None
        except PtoError as e:
            raise KernelError(f"instance {first}: {e} ({where_raised(e, prog.ref)})") from None
        except HostMemoryError:
            raise                         # (this machine's limit: the caller's to report)
        except (Exception, SystemExit) as e:
            inner = _inner(e)
            if inner:                     # raised inside ptogpu: ours, not the kernel's (exit 1)
                raise EmulatorBug(f"instance {first} on {target}: ptogpu raised {type(e).__name__}: {e} at "
                                  f"{inner}, called from {where_raised(e, prog.ref)} (an emulator bug: "
                                  "please report it)") from None
            raise KernelError(f"instance {first}: the kernel raised {type(e).__name__}: {e} "
                              f"({where_raised(e, prog.ref)})") from None
    if core._raised is not None:          # it caught the fault that ended it, and returned
        raise KernelError(f"instance {first}: the kernel caught the PtoFault that ended it "
                          f"({core._raised}) and returned: a hardware trap ends a kernel, so a kernel "
                          "does not catch PtoFault")
    if got is not None:
        raise KernelError(f"instance {first}: the kernel returned {type(got).__name__}; a kernel "
                          "writes its outputs and returns nothing")
    return log, faults


def _setup(prog: Program, target: str, backend: str, n: int, quirks: dict | None):
    """A core of ``n`` with the program's buffers: fixed arrays put (once, shared), inputs and
    outputs reserved in that order; marked (:meth:`Core.mark`) once the inputs' rows are the
    instances' own (a fixed table is then mapped into every instance, not copied)."""
    import ptogpu as pto
    own = get_target(target).quirks
    core = pto.Core(target, backend, batch=n, quirks={k: v for k, v in (quirks or {}).items() if k in own})
    ptrs, spans = {}, []
    with core:
        for name, a in prog.fixed.items():
            a = np.asarray(a)
            ptrs[name] = core.gm_put(a.reshape(-1), dtypes.name_of(a.dtype))
            spans.append((ptrs[name].addr, a.nbytes))
        for name, g in prog.inputs.items():
            count = int(np.prod(g.shape))
            ptrs[name] = core.gm_alloc(count, g.dtype)
            spans.append((ptrs[name].addr, count * dtypes.as_dtype(g.dtype).itemsize))
        for name, c, dt in prog.out_layout():
            ptrs[name] = core.gm_alloc(c, dt)
            spans.append((ptrs[name].addr, c * dt.itemsize))
        if n > 1 and prog.inputs:
            core.banks["gm"].unshare(room=False)
    core.mark()
    return core, ptrs, spans


POOL_MIN = 64
"""Cores of at least this many instances are kept between a program's chunks (the same
sides, targets and sizes come back every chunk) and restored instead of made again."""
POOL_SIZE, POOL_INSTANCES = 32, 6 * MAX_CORE
"""At most this many cores are kept, of at most this many instances in all (a campaign's two
sides and two references at its core size, and the small cores its classifications run on,
one per hybrid target); the oldest go first."""
_POOL: dict = {}
_POOL_LOCK = threading.Lock()


def _pool_take(prog: Program, key: tuple):
    """A kept core of ``prog`` for ``key``, restored (None: make one). Taken out of the pool
    while it runs, so two threads never share one."""
    with _POOL_LOCK:
        entry = _POOL.pop((id(prog), key), None)
    if entry is None or entry[0] is not prog:
        return None
    _, core, ptrs, spans = entry
    return (core, ptrs, spans) if core.restore() else None


def _pool_put(prog: Program, key: tuple, entry: tuple) -> None:
    with _POOL_LOCK:
        _POOL[(id(prog), key)] = (prog, *entry)
        while len(_POOL) > POOL_SIZE or sum(k[1][2] for k in _POOL) > POOL_INSTANCES:
            _POOL.pop(next(iter(_POOL)))


def _gaps_written(core, spans: list[tuple[int, int]]) -> np.ndarray:
    """(N,) bool: instances with a nonzero byte in GM outside every buffer (the alignment gaps
    between them and the end of the last)."""
    bank = core.banks["gm"]
    rows = bank.rows()
    hit = np.zeros(core.batch, bool)
    pos = 0
    for a, nb in sorted(spans) + [(bank.size, 0)]:
        if a > pos:
            hit |= rows[:, pos:a].any(axis=1)
        pos = max(pos, a + nb)
    return hit


def where_raised(e: BaseException, ref: str = "") -> str:
    """``file:line`` where an exception left the kernel's own file (``ref``'s), else the
    innermost frame outside ptogpu, or "?"."""
    mine = os.path.abspath(ref.rpartition(":")[0]) if ref.rpartition(":")[0].endswith(".py") else None
    last = outside = "?"
    for fr in traceback.extract_tb(e.__traceback__):
        p = os.path.abspath(fr.filename)
        if p == mine:
            last = f"{os.path.basename(fr.filename)}:{fr.lineno}"
        elif not p.startswith(PACKAGE):
            outside = f"{os.path.basename(fr.filename)}:{fr.lineno}"
    return last if last != "?" else outside


def _inner(e: BaseException) -> str | None:
    """``file:line`` of the innermost frame when it is in ptogpu (None: the kernel's own, or a
    library's it called)."""
    tb = traceback.extract_tb(e.__traceback__)
    if tb and os.path.abspath(tb[-1].filename).startswith(PACKAGE):
        return f"ptogpu/{os.path.relpath(tb[-1].filename, PACKAGE)}:{tb[-1].lineno}"
    return None


@contextlib.contextmanager
def _limit(seconds: float | None, said: float | None, first: int, n: int):
    """Raise KernelError in the kernel after ``seconds`` (the main thread of a POSIX process
    only: a signal interrupts Python code; elsewhere no limit is kept), saying the chunk's
    limit ``said``."""
    if not seconds or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer"):
        yield
        return

    def over(signum, frame):
        raise KernelError(f"instances {first} .. {first + n - 1}: the kernel ran past the time limit "
                          f"({said:g} s for a chunk), at {caller(frame)}")
    old = signal.signal(signal.SIGALRM, over)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
