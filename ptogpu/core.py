"""One emulated AI core: a target, a backend and its arenas (GM, UB, L1)."""
from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import Callable, Mapping

import numpy as np

from . import dtypes
from .backend import resolve_backend
from .backend.kernels import SIMT_KERNELS
from .interop import as_numpy, cast_exact
from .errors import F_DST, F_OTHER, EmulatorBug, KernelError, NotBatched, PtoError, PtoFault, fault_code
from .memory import SPACES, AllInstances, Arena, Bank, Ptr, as_bytes
from .dma_regs import DmaRegs
from .targets import Target, get_target

MAX_BATCH = 1 << 24
CURRENT: contextvars.ContextVar[list] = contextvars.ContextVar("ptogpu_core_stack", default=[])


class FaultList(list):
    """Per instance: None or its PtoFault (a list). A batch rule may record the faults of many
    instances at once, each built only when read (:meth:`defer`): on a campaign's cores most
    instances may fault and only their codes are compared, while a message costs
    microseconds of Python each. :meth:`codes` reads every instance's fault code."""

    def __init__(self, items) -> None:
        super().__init__(items)
        self._codes = np.array([0 if e is None else fault_code(e) for e in items], np.int8)
        self._group: np.ndarray | None = None      # per instance: its deferred group, or -1
        self._pos = self._groups = None

    def __setitem__(self, k: int, e) -> None:
        list.__setitem__(self, k, e)
        self._codes[k] = 0 if e is None else fault_code(e)
        if self._group is not None:
            self._group[k] = -1

    def defer(self, ks: np.ndarray, make: Callable[[int], PtoFault], codes) -> None:
        """Instances ``ks`` fault: instance ``ks[i]`` with ``make(i)``, whose fault code
        (the ``code`` its fault carries) is ``codes`` (one, or one each)."""
        if self._group is None:
            self._group, self._pos, self._groups = np.full(len(self), -1, np.int32), np.zeros(len(self), np.int64), []
        for k in ks.tolist():                   # (a later fault of the step wins, as in __setitem__)
            if list.__getitem__(self, k) is not None:
                list.__setitem__(self, k, None)
        self._group[ks] = len(self._groups)
        self._pos[ks] = np.arange(len(ks))
        self._groups.append(make)
        self._codes[ks] = codes

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        e = list.__getitem__(self, k)
        if e is None and self._group is not None and self._group[k] >= 0:
            e = self._groups[self._group[k]](int(self._pos[k]))
            if e is not None:
                e.code = int(self._codes[k])    # the phase the batch rule gave it, as its own
            list.__setitem__(self, k, e)
        return e

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def _all(self) -> list:
        return [self[i] for i in range(len(self))]

    # what reads every entry sees the faults themselves, not the slots they are built into
    __eq__ = lambda self, other: self._all() == other                     # noqa: E731
    __ne__ = lambda self, other: self._all() != other                     # noqa: E731
    __contains__ = lambda self, x: x in self._all()                       # noqa: E731
    __repr__ = lambda self: repr(self._all())                             # noqa: E731
    count = lambda self, x: self._all().count(x)                          # noqa: E731
    index = lambda self, x, *a: self._all().index(x, *a)                  # noqa: E731
    copy = lambda self: self._all()                                       # noqa: E731
    __hash__ = None

    def __reduce__(self):
        return FaultList, (self._all(),)

    def codes(self) -> np.ndarray:
        """(N,) int8 fault codes (``errors.fault_code``; 0: none)."""
        return self._codes.copy()


class Core:
    """An emulated core of ``target`` ("cpu" | "a2a3" | "a5") on ``backend``.

    ``quirks`` switches known implementation quirks of the target on or off (see
    ``ptogpu.targets``); unknown names are an error. ``ub_bytes`` / ``l1_bytes`` resize the
    on-chip memories where the target allows it (the CPU simulator's ``PTO_CPU_SIM_UB_BYTES`` /
    ``PTO_CPU_SIM_L1_BYTES``); the NPUs' sizes are hardware. ``strict_hazards`` raises
    :class:`~ptogpu.errors.PtoHazard` (instead of warning) when an A5 SIMT MGATHER's result
    depends on the execution order (aliasing tiles; ``ptogpu.semantics.hazards``).

    ``batch=N`` makes a core of N independent instances (docs/batch.md): every Tile and
    GlobalTensor names the same addresses in each instance's own GM, UB and L1, every
    instruction runs on every instance that has not faulted, and reads (``tile.numpy()``,
    ``ptr.numpy(n)``, ``core.read``) have a leading dimension N. A ``PtoFault`` stops only its
    instance (listed in :attr:`faults`); a ``PtoCheckError`` is raised at once, as on one
    core. ``batch=1`` is the single core: faults are raised.
    """

    def __init__(self, target: str | Target = "a5", backend: str = "auto", *,
                 quirks: Mapping[str, bool] | None = None, strict_hazards: bool = False,
                 ub_bytes: int | None = None, l1_bytes: int | None = None,
                 batch: int = 1) -> None:
        self.target = get_target(target)
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) \
                or not 1 <= int(batch) <= MAX_BATCH:
            raise ValueError(f"batch = {batch!r}: give a number of instances, 1 .. {MAX_BATCH}")
        self.batch = int(batch)
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
        n = self.batch
        self.banks = {"gm": Bank("gm", 0, n, growable=True),
                      "ub": Bank("ub", int(ub_bytes) if ub_bytes else self.target.ub_bytes, n),
                      "l1": Bank("l1", int(l1_bytes) if l1_bytes else self.target.l1_bytes, n)}
        self._k = 0                     # the instance an instruction is executing on
        self._executing = False
        self._calls = None              # a CallLog while ``with core.calls():`` is active
        self.all_at_once = False        # a batch rule is running every live instance
        self._program = False           # single-core code runs over every instance (:meth:`program`)
        self.resume = False             # parked instances keep their memory and resume (:meth:`program`)
        self._log: list | None = None   # this run's events (resume): None per instruction, each read's answer
        self._replay: tuple | None = None   # (log, stop[, True]): events before stop are replayed from log
        self._probe = None              # (resume) (key function, always): stop at the first new instruction
                                        # once a read parked instances (always: at once), raise its key
        self._ev = 0                    # the next event's number
        self._raised: PtoFault | None = None    # the fault that ended the program, raised into it
        self._focus(0)
        # tiles may use all of UB on a resized simulator; else the target's usable part
        self.ub_usable = self.ub.size if ub_bytes else self.target.ub_usable
        self.ub_assignable = self.ub.size if ub_bytes else (self.target.ub_assignable or self.target.ub_usable)
        self._tracers: list = []
        self.strict_hazards = bool(strict_hazards)
        self._fresh()

    def _fresh(self) -> None:
        n = self.batch
        self._pending: list = []          # a step's faults, in the order its rules found them
        # how the instructions of a core of N ran: all instances at once (a batch rule: one
        # launch, one NumPy step), instance by instance, or once (uniform steps)
        self.steps = {"at_once": 0, "per_instance": 0, "uniform": 0}
        # (while a kernel campaign runs a program: ``execution.program``) instruction -> how its
        # calls ran ("lanes", "loop", "formula": fuzz.report.EXECUTED), and a step's launches
        self.ran: dict | None = None
        self._launched: list | None = None
        self.faults: FaultList = FaultList([None] * n)
        self.live = np.ones(n, bool)    # instances that have not stopped (faulted, or parked)
        self.parked = np.zeros(n, bool)  # instances a program's read took off its path (:meth:`program`)
        self.park_at = np.full(n, -1, np.int64)   # (resume) the event at which each was parked
        self.regs = DmaRegs()           # MTE2 loop/pad registers; persist across instructions
        from .placement import Placer
        self.placer = Placer(self)      # tiles never TASSIGNed (ptogpu.placement)

    def clear(self, upto: Mapping[str, int] | None = None) -> None:
        """Make this core as it was when built (memories zero, GM empty, no faults, fresh
        registers), keeping its memory mapped: running many rounds of a program on one core
        of N avoids a new core's page faults. ``upto`` maps a space to the end of the bytes
        the program can have written there (only ``[0, upto)`` of each instance is zeroed);
        by default every byte is. Tiles and pointers made before are not valid after."""
        if self._executing:
            raise PtoError("core.clear() inside an instruction")
        for s, b in self.banks.items():
            b.clear(None if upto is None else upto.get(s))
        self._fresh()

    def mark(self) -> None:
        """Remember this core's memories for :meth:`restore` (after a program's buffers are
        put: its tables, its allocations)."""
        for b in self.banks.values():
            b.mark()

    def restore(self) -> bool:
        """Make this core as it was at :meth:`mark` (see :meth:`Bank.restore`: every byte
        written since, in every instance, goes back to what it held then, on every batch
        size), keeping allocations, pointers and mappings; no faults, fresh registers. A campaign runs a program's chunks on one core this way, which
        costs no new mappings. False where it cannot (make a new core)."""
        if self._executing:
            raise PtoError("core.restore() inside an instruction")
        if not all(b.restore() for b in self.banks.values()):
            return False
        self._fresh()
        return True

    # -- context ---------------------------------------------------------------------------
    def __enter__(self) -> "Core":
        CURRENT.set(CURRENT.get() + [self])
        return self

    def __exit__(self, *exc) -> None:
        stack = CURRENT.get()
        CURRENT.set(stack[:-1])

    def __repr__(self) -> str:
        b = f", batch={self.batch}" if self.batch > 1 else ""
        return f"Core(target={self.target.name!r}, backend={self.backend!r}{b})"

    # -- instances -------------------------------------------------------------------------
    def _focus(self, k: int) -> None:
        """Point ``gm`` / ``ub`` / ``l1`` at instance ``k``'s memories."""
        self._k = k
        self.gm, self.ub, self.l1 = (Arena(s, 0, bank=self.banks[s], row=k) for s in SPACES)

    @property
    def instance(self) -> int:
        """The instance an instruction is executing on (0 outside one, and on a single core)."""
        return self._k

    def step_instances(self) -> np.ndarray:
        """The instances a batch-first step acts on: every live one while the core runs all
        at once, else the one executing."""
        return np.flatnonzero(self.live) if self.all_at_once else np.array([self._k])

    @property
    def batched(self) -> bool:
        """Reads have a leading instance dimension: a core of N > 1, outside an instruction
        and outside :meth:`program` (where code reads one instance's value)."""
        return self.batch > 1 and not self._executing and not self._program

    @property
    def reads_all(self) -> bool:
        """A read or host write outside an instruction of a core of N: it takes every
        instance's bytes (then :meth:`answer`), writes every live one."""
        return self.batch > 1 and not self._executing

    @contextlib.contextmanager
    def program(self):
        """``with core.program():`` runs single-core code -- a kernel written for one core --
        over every instance, each instance as its single core would run it. A read of emulated
        memory (``tile.numpy()``, ``GlobalTensor.numpy()``, ``ptr.numpy(n)``, ``core.read``, a
        register) returns one value, as on one core: the value of the instances still on the
        program's path; an instance whose bytes differ from theirs leaves the path there
        (:attr:`parked`: stopped without a fault; its memory no longer counts), since the
        code's decisions on that value may differ for it -- its caller runs the program again
        for the parked instances (``execution.program``), as SIMT hardware runs divergent
        paths one after the other. When the last instance on the path faults, its fault is
        raised into the code, as a single core raises it; code that catches it and goes on is
        a :class:`~ptogpu.errors.KernelError` (a trap ends a kernel). On a single core the
        same: a fault is raised, and going on after it is an error."""
        self._program, self._raised = True, None
        self.parked[:] = False
        self._ev = 0
        if self.resume:
            self._log = [] if self._replay is None else list(self._replay[0][:self._replay[1]])
        try:
            yield
        finally:
            self._program = False

    def stop_here(self, name: str, args: tuple, kw: dict) -> None:
        """(resume) A probe run (``_probe``: its key function, and whether it stops at once or
        only once a read has parked instances) stops at the first instruction it would run: a
        ProbeStop with the key of the kernel's state and of this call (``execution.reconverge``)."""
        if self._probe is not None and self._program and self._log is not None and not self.replaying() \
                and (self._probe[1] or self.parked.any()):
            raise ProbeStop(self._probe[0]((name, args, kw)))

    def replaying(self) -> bool:
        """(resume) The program is replaying the events before the one its instances were
        parked at: instructions are skipped (their effects are in these instances' memory) and
        reads answer what they answered then. A replay ``(log, stop, True)`` (merged paths,
        ``execution.program``) also holds the host writes just before its stop, an instruction:
        its instances' memory holds their own."""
        r = self._replay
        return r is not None and (self._ev < r[1] or (len(r) > 2 and self._ev == r[1]))

    def _event(self):
        """(resume) The next event: (its number, the replayed answer or None to run it)."""
        i = self._ev
        self._ev += 1
        if self._replay is not None and i < self._replay[1]:
            return i, self._replay[0][i]
        return i, None

    def _went_on(self) -> None:
        """Program code called on after the fault that ended it was raised into it."""
        e = self._raised
        if e is not None:
            err = KernelError(f"the kernel went on after a PtoFault ended it ({e}): a hardware trap ends "
                              "a kernel, so a kernel does not catch PtoFault (no `except PtoFault`, "
                              "`except Exception` or bare `except:` around instructions)")
            err.unplaced = True         # (its runner names the instance and the line)
            raise err

    def answer(self, rows: np.ndarray) -> np.ndarray:
        """What a read outside an instruction returns, given every instance's value (leading
        axis N): all of them on a core of N; under :meth:`program`, the value of the first
        instance on the path, parking every instance on the path whose bytes differ."""
        if not self._program:
            return rows
        self._went_on()
        if self._log is not None:
            i, old = self._event()
            if old is not None:
                return old.copy()
        on = np.flatnonzero(self.live)
        if not on.size:                 # (nothing runs: any value will do)
            got = rows[0]
        else:
            if on.size > 1:
                width = rows[0].nbytes
                b = np.ascontiguousarray(rows[on]).view(np.uint8).reshape(on.size, width)
                off = on[(b != b[0]).any(axis=1)]
                self._park(off)
            got = rows[int(on[0])]
        if self._log is not None:
            self._log.append(np.array(got, copy=True))
        return got

    def _park(self, off: np.ndarray) -> None:
        self.live[off] = False
        self.parked[off] = True
        if self._log is not None:
            self.park_at[off] = self._ev - 1

    def decide(self, flags: np.ndarray) -> bool:
        """A branch the program takes on a value it read (``bool()`` of an
        :class:`~ptogpu.instance_values.InstanceValues`): every instance's outcome (leading axis
        N); the first live instance's is the path's, and every live instance whose outcome
        differs is parked (it runs again, taking its own branch)."""
        flags = np.asarray(flags, bool).reshape(-1)
        if not self._program or self.batch == 1:
            return bool(flags[0]) if flags.size == 1 else bool(flags[self._k])
        self._went_on()
        if self._log is not None:
            i, old = self._event()
            if old is not None:
                return bool(old)
        on = np.flatnonzero(self.live)
        first = bool(flags[on[0]]) if on.size else bool(flags[0])
        if on.size:
            self._park(on[flags[on] != first])
        if self._log is not None:
            self._log.append(first)
        return first

    def host_write(self, space: str, addr: int, rows: np.ndarray) -> None:
        """Bytes the host writes (``gm_put``, ``core.write``): ``rows`` (1, m) for every
        instance or (N, m), one each, at ``addr`` (checked by the caller) of every live
        instance: a stopped one keeps the memory it stopped with, as its single core would."""
        if self.replaying():            # (these instances' memory already holds it)
            return
        bank = self.banks[space]
        if self.live.all():
            return bank.write_rows(addr, rows)
        ks = np.flatnonzero(self.live)
        bank.put(ks, np.arange(addr, addr + rows.shape[1], dtype=np.int64), rows if rows.shape[0] == 1 else rows[ks])

    def execute(self, step, *, uniform: bool = False) -> None:
        """Run one instruction, ``step()``, on every live instance: the one dispatch point of
        the instruction API. ``uniform``: the step reads no instance memory (binding a tile,
        setting a register), so it runs once and a fault it raises stops every instance.
        Otherwise the step first runs once with :attr:`all_at_once` set: an instruction with
        a batch rule for the call runs all live instances together (one kernel launch over N
        blocks, one NumPy step along the instance axis) and reports per-instance faults with
        :meth:`fault_instances`; any other touch of memory raises ``NotBatched`` before a
        byte changes, and the step runs instance by instance."""
        if self._executing:
            return step()
        if self._program:
            self._went_on()
            if self._log is not None:
                i, _ = self._event()
                if self._replay is not None and i < self._replay[1]:
                    if uniform:             # (binds Python objects: runs again, touching no instance memory)
                        self._executing = True
                        try:
                            step()
                        finally:
                            self._executing = False
                    return
                self._log.append(None)
        if self.batch == 1:
            try:
                return step()
            except PtoFault as e:
                if self._program:
                    self._raised = e
                raise
        on = np.flatnonzero(self.live)
        if not on.size and not uniform:
            return                      # every instance has stopped (a uniform step still binds)
        self._executing = True
        try:
            if uniform:
                self.steps["uniform"] += 1
                try:
                    step()
                except PtoFault as e:
                    self.stop_all(e)
            elif self._at_once(step):
                self.steps["at_once"] += 1
            else:
                self.steps["per_instance"] += 1
                for k in on:
                    self._focus(int(k))
                    try:
                        step()
                    except PtoFault as e:
                        self._stop(int(k), e)
        finally:
            self._executing = False
            self._focus(0)
        if self._program and on.size and not self.live.any():
            self._raised = self.faults[int(on[0])]      # the path's last instances faulted here
            raise self._raised

    def execute_noting(self, name: str, step) -> None:
        """:meth:`execute` of instruction ``name``, noting in :attr:`ran` how it ran where it
        ran at all (a replayed or stopped step does not): its kernels' launches (the A5 SIMT
        launch's lanes, or a loop; ``backend.kernels.SIMT_KERNELS``) or the NumPy semantics --
        every step without a launch, and one whose kernel left instances to NumPy (its record
        said their reads and writes alias). What a kernel campaign reports as executed."""
        before = self.steps["at_once"] + self.steps["per_instance"]
        self._launched = []
        try:
            self.execute(step)
        finally:
            launched, self._launched = self._launched, None
            if self.steps["at_once"] + self.steps["per_instance"] > before or launched:
                parts = self.ran.setdefault(name, set())
                for kernel, left in launched:
                    parts.add("lanes" if kernel in SIMT_KERNELS else "loop")
                    if left:
                        parts.add("formula")
                if not launched:
                    parts.add("formula")

    def _at_once(self, step) -> bool:
        """Run ``step`` over every live instance at once; False when it has no batch rule.
        A fault raised here came before any instance's memory was read (those raise
        NotBatched), so it is every instance's."""
        self.all_at_once, self._pending = True, []
        self.gm, self.ub, self.l1 = (AllInstances(s, 0, bank=self.banks[s]) for s in SPACES)
        try:
            step()
        except NotBatched:
            return False
        except PtoFault as e:
            self._pending = [{int(k): e for k in np.flatnonzero(self.live)}]
        finally:
            self.all_at_once = False
            self._focus(0)
        for got in self._pending:
            if isinstance(got, dict):
                for k, e in got.items():
                    self._stop(k, e)
            else:
                self.faults.defer(*got)
                self.live[got[0]] = False
        return True

    def fault_of(self, k: int, step) -> PtoFault:
        """Instance ``k``'s fault as the single-core code raises it: a batch rule whose kernel
        reported a fault for ``k`` runs ``step`` (checks only, no writes) on that instance
        alone to name it."""
        saved = (self.gm, self.ub, self.l1)
        self._focus(int(k))
        self.all_at_once = False
        try:
            step()
        except PtoFault as e:
            return e
        finally:
            self.gm, self.ub, self.l1 = saved
            self._k, self.all_at_once = 0, True
        raise EmulatorBug(f"instance {k}: the kernel reported a fault the NumPy semantics do not see "
                          "(an emulator bug: please report it)", rule="batch rule")

    def fault_instances(self, faults: Mapping[int, PtoFault]) -> None:
        """A batch rule's per-instance faults (instance -> its first fault; it wrote nothing)."""
        self._pending.append(dict(faults))

    def fault_group(self, ks: np.ndarray, make: Callable[[int], PtoFault], codes) -> None:
        """A batch rule's faults of instances ``ks`` (they wrote nothing), built only when
        read: instance ``ks[i]``'s is ``make(i)``, of fault code ``codes`` (one, or one each;
        the code its fault carries)."""
        self._pending.append((np.asarray(ks, np.int64), make, codes))

    def stop_all(self, e: PtoFault) -> None:
        """Every live instance stops with ``e`` (a fault that does not depend on an
        instance's memory)."""
        for k in np.flatnonzero(self.live):
            self._stop(int(k), e)

    def _stop(self, k: int, e: PtoFault) -> None:
        self.faults[k] = e.with_traceback(None)     # (its frames would hold the step's arrays)
        self.live[k] = False

    def trace(self):
        """``with core.trace() as tr:`` records the DMA bursts issued inside (ptogpu.trace)."""
        from .trace import Trace
        return Trace(self)

    def calls(self, watch: Callable[[], np.ndarray] | None = None):
        """``with core.calls() as log:`` records each instruction call made inside: its name,
        the program line that made it and the bytes it wrote, per instance (ptogpu.calls);
        ``watch()``, when given, after each call: (N,) flags kept as the call's ``watched``."""
        from .calls import CallLog
        return CallLog(self, watch)

    # -- memory ----------------------------------------------------------------------------
    def arena(self, space: str) -> Arena:
        if space not in SPACES:
            raise ValueError(f"space must be one of {SPACES}, not {space!r}")
        return getattr(self, space)

    def gm_put(self, array, dtype=None, *, per_instance: bool = False) -> Ptr:
        """Copy ``array`` (anything array-like: NumPy, CuPy, torch, DLPack) into fresh GM;
        returns a typed pointer to it. With ``dtype``, values are cast only where every one
        survives (:mod:`ptogpu.interop`). On a core of N instances every instance gets a copy;
        ``per_instance=True`` takes an array of leading dimension N, row k for instance k."""
        a = as_numpy(array)
        dt = dtypes.as_dtype(dtype if dtype is not None else a.dtype)
        a = np.ascontiguousarray(cast_exact(a, dt, "gm_put"))
        if per_instance:
            if a.ndim == 0 or a.shape[0] != self.batch:
                raise ValueError(f"gm_put(per_instance=True): the leading dimension must be the "
                                 f"batch, {self.batch}; got shape {a.shape}")
            rows = a.reshape(self.batch, -1).view(np.uint8)
        else:
            rows = a.reshape(1, -1).view(np.uint8)
        addr = self.gm.alloc(rows.shape[1])
        self.host_write("gm", addr, rows)
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
        """Raw bytes (a copy; shape (N, nbytes) on a core of N instances). Inspection only:
        not an instruction."""
        a = self.arena(space)
        if not self.reads_all:
            return a.read(int(byte_addr), int(nbytes))
        a.check(int(byte_addr), int(nbytes), "read", code=F_OTHER)
        return self.answer(self.banks[space].rows()[:, int(byte_addr): int(byte_addr) + int(nbytes)].copy())

    def write(self, space: str, byte_addr: int, data, per_instance: bool = False) -> None:
        """Raw bytes in, to every live instance; ``per_instance``: ``data``'s leading dimension
        is N and instance k gets row k's bytes (as ``gm_put``). Set-up only: not an instruction."""
        if per_instance:
            a = np.asarray(data)
            if not self.reads_all or a.ndim < 1 or a.shape[0] != self.batch:
                raise ValueError(f"core.write(per_instance=True) takes an array of leading dimension {self.batch} "
                                 f"(one row per instance) outside programs, got shape {a.shape}")
            rows = np.ascontiguousarray(a).reshape(self.batch, -1).view(np.uint8)
            self.arena(space).check(int(byte_addr), rows.shape[1], "write", code=F_DST)
            return self.host_write(space, int(byte_addr), rows)
        if not self.reads_all:
            return self.arena(space).write(int(byte_addr), data)
        b = as_bytes(data)
        self.arena(space).check(int(byte_addr), b.size, "write", code=F_DST)
        self.host_write(space, int(byte_addr), b.reshape(1, -1))


class ProbeStop(BaseException):
    """A probe run reached its first instruction past the replayed events: ``key`` says where
    (``execution.reconverge``; None: nowhere another path can join). A BaseException, so that no
    ``except Exception`` of the kernel's keeps it."""

    def __init__(self, key) -> None:
        super().__init__("probe stop")
        self.key = key


def on_instances(fn=None, *, uniform: bool = False, name: str | None = None):
    """Make ``fn`` an instruction of the current core: it runs on every live instance
    (:meth:`Core.execute`); ``uniform`` for steps that read no instance memory. ``name``: the
    instruction's name in a call log (default: the function's)."""
    def wrap(f):
        @functools.wraps(f)
        def call(*args, **kw):
            stack = CURRENT.get()
            if not stack:
                return f(*args, **kw)           # f raises its own "no current core" error
            core = stack[-1]
            outer = not core._executing
            if outer and core._probe is not None:
                core.stop_here(name or f.__name__, args, kw)
            if outer and not uniform and core.ran is not None:
                core.execute_noting(name or f.__name__, lambda: f(*args, **kw))
            else:
                core.execute(lambda: f(*args, **kw), uniform=uniform)
            if outer and not uniform and core._calls is not None:
                core._calls.record(name or f.__name__, args)
        return call
    return wrap(fn) if fn is not None else wrap


def current_core() -> Core:
    """The innermost ``with core:`` of this thread or task: instructions run on it."""
    stack = CURRENT.get()
    if not stack:
        raise PtoError("no current core: create one with `with pto.Core(target, backend):`")
    return stack[-1]
