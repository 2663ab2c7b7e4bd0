"""Fuzz your own kernel: a PTO program over millions of generated inputs, target against target.

``kernel(fn, inputs=..., outputs=..., fixed=..., pair="cpu:a5", n=...)`` runs ``fn(**ptrs)``
-- a kernel written with the public API from typed GM pointers, as a C++ kernel is from
``__gm__ T*`` arguments -- on both sides for every instance, on cores of N instances
(``execution.program``), and compares the output buffers' bytes and the faults. Per
instance, three verdicts where a reference exists: each side on a kernel backend against
the same target on NumPy (a disagreement is an emulator bug), then the two sides against each
other. A difference is classified by the first instruction call (program order, with its
source line) whose written bytes differ between the sides (or after which exactly one side
has faulted), and by the rule that explains that call's difference: the kernel run again on
a hybrid target that takes one rule field of the other side's target table, narrow fields
first, then coarse ones, then pairs, as for single instructions (``fuzz.explain``); a call
that no field or pair explains is UNEXPLAINED. An instance that faults on one side only
carries the FAULT symptom. The first instance of each class is shrunk over its inputs
(neutral elements, smaller magnitudes, fewer distinct values) to a stand-alone script that
calls the kernel on both targets and prints the differing bytes and the first diverging call.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, ClassVar

import numpy as np

from .. import isa
from ..errors import KernelError, PtoCheckError, PtoError
from ..execution import executors
from ..execution.inputs import draw
from ..calls import call_at, pairs, restrict
from ..execution.program import Program, ProgramRun, instance_count, load, ref_of, run_program
from ..targets import TARGETS, field_value, get_target, variant
from . import rules as R
from .classes import FIRST, DivClass, Side, relation
from .explain import rows_differ
from .report import REF_NUMPY, REF_SELF_NUMPY, Report, joined, widened


ENGINE = "cores of N: the kernel once per chunk on each side"
PARTED = ("cores of N: the kernel once per chunk on each side, and again for each group of instances "
          "that read other values than the first (it decides on values it reads: docs/batch.md)")
"""What a campaign's engine says when a chunk's instances took several paths through the kernel."""

TIME_LIMIT = 600.0
"""Seconds a chunk may take on one side before the kernel is stopped (KernelError)."""

SAMPLE = 256
"""``references="sample"``: the instances of each chunk a kernel side is checked against its
NumPy reference, its first ones, besides every instance whose two sides differ."""
REFERENCES = ("sample", "all")
"""Which instances a kernel side on a kernel backend is checked against the NumPy semantics:
a sample (the first :data:`SAMPLE` of each chunk and every instance whose sides differ) or all.
The sample finds what a divergence shows at the cost of a few references per chunk; a bug
that two kernel sides share on instances outside it needs ``all``."""
REF_SAMPLED = (f"numpy semantics on a sample (the first {SAMPLE} instances of each chunk and every "
               "instance whose sides differ; the others ran the kernel alone)")


def side(text: str, backend: str = "auto") -> Side:
    """A kernel side, ``target[@backend]`` (``.simt`` accepted on a SIMT target: its launches
    are what every run of it executes on a kernel backend)."""
    s = Side.parse(text, backend)
    if s.target not in TARGETS:
        raise ValueError(f"side {text!r}: target must be one of {', '.join(TARGETS)}")
    if s.exec not in ("auto", "simt") or (s.exec == "simt" and not get_target(s.target).mgather.simt):
        raise ValueError(f"side {text!r}: a kernel side is target[@backend] (a kernel names its own "
                         "executors and conflicts in its calls)")
    return s


def pair_of(text: str, backend: str = "auto") -> tuple[Side, Side]:
    if text.count(":") != 1 or not all(text.split(":")):
        raise ValueError(f"pair {text!r}: expected two sides A:B, e.g. cpu:a5")
    a, b = text.split(":")
    return side(a, backend), side(b, backend)


# ---- one chunk ------------------------------------------------------------------------------
@dataclass
class Chunk:
    """What a chunk of instances found: fault counts, reference mismatches, and the divergent
    instances with their class masks and first diverging calls."""
    start: int
    n: int
    faults_a: int
    faults_b: int
    ref_bad_a: int
    ref_bad_b: int
    div: np.ndarray          # positions in the chunk
    masks: np.ndarray
    calls: list              # per divergent instance: its first diverging call, described (or None)
    runs: int = 2            # runs of the kernel on the two sides (more: its instances parted)
    checked_a: int = 0       # instances checked against each side's reference
    checked_b: int = 0
    ran_a: dict = field(default_factory=dict)   # (kernel backends) instruction -> how its calls ran
    ran_b: dict = field(default_factory=dict)
    digest_a: int = 0        # each side's outputs and faults (:func:`digest`)
    digest_b: int = 0


_MIX = np.random.default_rng(0x70746F).integers(0, 1 << 63, 1 << 12, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def digest(outputs: np.ndarray, codes: np.ndarray, inst: np.ndarray) -> int:
    """A 64-bit digest of instances' output bytes (``outputs``, a row each) and fault codes,
    free of the order and the chunks they ran in (a sum over instances, mod 2^64): a known
    campaign's record of what each side computed (``suite.DIGESTS``), so that a change in a rule
    no other side or reference computes again (a NumPy-only path, a rule a hybrid shares) still
    changes the suite's verdict. Each row's words are weighted by odd constants (a changed word
    changes its term), then mixed with the instance number and its fault code (splitmix64). A
    kernel without inputs runs once for all its instances: that one row stands for each."""
    if outputs.shape[0] != inst.size:
        outputs, codes = np.broadcast_to(outputs, (inst.size, outputs.shape[1])), np.broadcast_to(codes, inst.shape)
    m = outputs.shape[0]
    if not m:
        return 0
    nb = outputs.shape[1]
    if nb % 8 == 0 and outputs.flags.c_contiguous:
        rows = outputs
    else:
        rows = np.zeros((m, -(-nb // 8) * 8), np.uint8)
        rows[:, :nb] = outputs
    w = rows.view("<u8")
    k = np.resize(_MIX, w.shape[1])
    with np.errstate(over="ignore"):
        h = w @ k                       # (uint64: wraps mod 2^64)
        h ^= inst.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) ^ codes.astype(np.uint64) << np.uint64(56)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
        return int(h.sum(dtype=np.uint64))


def _agree(oa, fa, ob, fb) -> np.ndarray:
    """(N,) bool: both fault in the same phase, or neither does and the bytes agree."""
    return (fa == fb) & ((fa != 0) | ~rows_differ(oa, ob))


def _same(oa, fa, ob, fb) -> np.ndarray:
    """(N,) bool: the same fault (or none) and the same bytes -- a side against its own target's
    reference, where an instance that faults keeps, on every backend, what it wrote before."""
    return (fa == fb) & ~rows_differ(oa, ob)


def run_chunk(prog: Program, a: Side, b: Side, seed: int, s: int, m: int, quirks: dict | None = None,
              limit: float | None = TIME_LIMIT, references: str = "sample") -> Chunk:
    """Instances ``s .. s+m-1``: both sides, their references (``references``: on which
    instances, :data:`REFERENCES`), the verdicts and classes."""
    inst = np.arange(s, s + m, dtype=np.int64)
    data = draw(prog.inputs, seed, inst)
    runs = {}
    for key, sd in (("a", a), ("b", b)):
        r = run_program(prog, sd.target, sd.backend, data, quirks=quirks, first=s, limit=limit)
        _stray(prog, sd, data, r, s, quirks)
        runs[key] = r
    ca, cb = runs["a"].codes, runs["b"].codes
    rel = relation(a, b)                    # (one target twice: every byte, faulting instances' too)
    differ = ~(_same if rel else _agree)(runs["a"].outputs, ca, runs["b"].outputs, cb)
    masks = _masks(m)
    checked = {"a": 0, "b": 0}
    for key, sd, code, bit in (("a", a, ca, R.REF_A), ("b", b, cb, R.REF_B)):
        if sd.backend == "numpy":
            continue                        # (this side is the NumPy semantics itself)
        r = runs[key]
        pos = np.arange(len(r.outputs)) if references == "all" or not data or m <= SAMPLE else \
            np.union1d(np.arange(SAMPLE), np.flatnonzero(differ))      # (no inputs: one instance ran)
        x = _reference(prog, sd.target, data, pos, quirks, s, limit)
        bad = ~_same(r.outputs[pos], code[pos], x.outputs, x.codes)
        masks[pos[bad]] |= bit
        checked[key] = m if not data else pos.size
    bad_a, bad_b = int(np.count_nonzero(masks & R.REF_A)), int(np.count_nonzero(masks & R.REF_B))
    calls: list = [None] * m
    todo = np.flatnonzero(differ & (masks == 0))
    if todo.size and rel:
        masks[todo] = rel
    elif todo.size:                         # (there each side agrees with its reference)
        sub = {k: v[todo] for k, v in data.items()}
        got, where = classify(prog, a, b, sub, ca[todo], cb[todo], quirks, s)
        masks[todo] = got
        for j, k in enumerate(todo):
            calls[k] = where[j]
    masks[differ & (masks == 0)] |= R.UNEXPLAINED          # (bits already set stay: bugs)
    div = np.flatnonzero(masks)
    return Chunk(s, m, int(np.count_nonzero(ca)), int(np.count_nonzero(cb)), bad_a, bad_b, div, masks[div],
                 [calls[k] for k in div], runs["a"].runs + runs["b"].runs, checked["a"], checked["b"],
                 runs["a"].ran, runs["b"].ran, digest(runs["a"].outputs, ca, inst), digest(runs["b"].outputs, cb, inst))


def _masks(m: int) -> np.ndarray:
    """(m,) zero class masks, Python ints: a kernel's calls may be explained by the rule fields
    past the int64 bits (``rules.WIDE``: TLOAD's)."""
    out = np.empty(m, object)
    out[:] = 0
    return out


def _reference(prog: Program, target: str, data: dict, pos: np.ndarray, quirks, first: int, limit):
    """The NumPy run of the instances at positions ``pos`` of ``data`` (all of them: the run
    itself). A part runs on a core of a power-of-two size, the last instance repeated, so
    that the chunks' references reuse their kept cores (``execution.program``)."""
    n = instance_count(data)
    if pos.size == n:
        return run_program(prog, target, "numpy", data, quirks=quirks, first=first, limit=limit)
    size = min(n, max(64, 1 << (int(pos.size) - 1).bit_length()))
    at = np.concatenate([pos, np.repeat(pos[-1:], size - pos.size)])
    x = run_program(prog, target, "numpy", {k: v[at] for k, v in data.items()}, quirks=quirks,
                    first=first + int(pos[0]), limit=limit, shown=int(pos.size))
    k = int(pos.size)
    return ProgramRun(x.outputs[:k], x.faults[:k], x.codes[:k], None, x.stray[:k], x.runs)


def _stray(prog: Program, sd: Side, data: dict, run, first: int, quirks) -> None:
    """A kernel that wrote outside its buffers (the gaps between them, or past the last) is an
    error naming the first such instance and the call after which those bytes appeared."""
    hit = np.flatnonzero(run.stray)
    if not hit.size:
        return
    k = int(hit[0])
    one = {n: v[k: k + 1] for n, v in data.items()}
    again = run_program(prog, sd.target, sd.backend, one, quirks=quirks, trace=True, first=first + k, gaps=True)
    calls = again.paths[0][1] if again.paths else []
    by = next((c for c in calls if c.watched is not None and c.watched[0]), None)
    where = (f"by {by.describe()}" if by is not None else
             f"by the host code after {calls[-1].describe()}" if calls else "before its first instruction")
    raise KernelError(f"instance {first + k} on {sd}: the kernel wrote GM outside its buffers ({where})")


def first_call(pa: list, pb: list, n: int) -> np.ndarray:
    """(n,) the index of the first call whose written bytes (or faulted instances, or the
    instruction itself: the paths part there) differ between two runs' paths of one program
    (-1: none of its calls does)."""
    out = np.full(n, -1, np.int64)
    for both, ca, ia, cb, ib in pairs(pa, pb):
        o = np.full(both.size, -1, np.int64)
        for c in range(min(len(ca), len(cb))):
            o[(o < 0) & _call_differs(ca[c], ia, cb[c], ib)] = c
        if len(ca) != len(cb):                  # (the program's calls themselves differ)
            o[o < 0] = min(len(ca), len(cb))
        out[both] = o
    return out


def _call_differs(x, ia: np.ndarray, y, ib: np.ndarray) -> np.ndarray:
    """Per instance (rows ``ia`` of ``x``, ``ib`` of ``y``): two records of a call left
    different bytes or running instances, or are not the same call of the program."""
    if x.site() != y.site():
        return np.ones(ia.size, bool)
    d = x.live[ia] != y.live[ib]
    for p, q in zip(x.outputs, y.outputs):
        if p is not None and q is not None and p.shape[1] == q.shape[1] and p.shape[1]:
            d |= rows_differ(p[ia], q[ib])
    return d


def _call_agrees(pa: list, pb: list, c: int, n: int) -> np.ndarray:
    """(n,) bool: call ``c`` left the same bytes and the same instances running in both runs."""
    ok = np.zeros(n, bool)
    for both, ca, ia, cb, ib in pairs(pa, pb):
        if c < len(ca) and c < len(cb):
            ok[both] = ~_call_differs(ca[c], ia, cb[c], ib)
    return ok


def candidates(call, ta: str, tb: str) -> tuple:
    """The rule fields that may explain a difference made by ``call``: its instruction's (for
    its destination's memory), or any field the two targets differ in (an instruction that
    declares none for that memory: TSTORE's GM)."""
    known = isa.find(call.name)             # the instruction whose rule fields can explain it
    if known is not None and known.rule_fields and known.rule_fields.get(call.space, True):
        return R.differing(known.name, call.space, ta, tb)
    return tuple(f for f in R.FIELDS if f.path != "conflict" and field_value(ta, f.path) != field_value(tb, f.path))


def classify(prog: Program, a: Side, b: Side, data: dict, fa: np.ndarray, fb: np.ndarray,
             quirks: dict | None, first: int) -> tuple[np.ndarray, list]:
    """Class masks and first diverging calls of the instances ``data`` (whose two sides
    differ): their NumPy references traced call by call; each first diverging call explained
    by the hybrid targets of its rule fields."""
    ra = run_program(prog, a.target, "numpy", data, quirks=quirks, trace=True, first=first)
    rb = run_program(prog, b.target, "numpy", data, quirks=quirks, trace=True, first=first)
    m = len(fa)
    c0 = first_call(ra.paths, rb.paths, m)
    at_a, at_b = call_at(ra.paths, m, c0), call_at(rb.paths, m, c0)
    at = [x if x is not None else y for x, y in zip(at_a, at_b)]
    masks = _masks(m)
    calls = [None if x is None else x.describe() for x in at]
    groups: dict = {}                           # (call number, instruction, memory) -> instances
    for k, x in enumerate(at):
        groups.setdefault(None if x is None else (int(c0[k]), x.name, x.space), []).append(k)
    for key, ks in groups.items():
        sel = np.array(ks, np.int64)
        if key is None:
            masks[sel] = R.UNEXPLAINED
            continue
        c = key[0]
        cand = candidates(at[ks[0]], a.target, b.target)
        tiers = [[(f,) for f in cand if not f.coarse], [(f,) for f in cand if f.coarse], list(combinations(cand, 2))]
        todo = sel.copy()
        for tier in tiers:
            hit = _masks(len(todo))
            for fs in tier:
                if not todo.size:
                    break
                part = {k: v[todo] for k, v in data.items()}
                ok = np.zeros(len(todo), bool)
                for mine, other, log in ((b, a, ra.paths), (a, b, rb.paths)):
                    tv = variant(mine.target, other.target, tuple(p for f in fs for p in f.copies))
                    try:
                        h = run_program(prog, tv, "numpy", part, quirks=quirks, trace=True, first=first)
                    except (PtoError, ValueError, KernelError):
                        continue                 # the hybrid does not compile (or run): it cannot explain
                    ok |= _call_agrees(h.paths, restrict(log, todo), c, len(todo))
                hit[ok] |= sum(f.bit for f in fs)
            masks[todo] |= hit
            todo = todo[hit == 0]
            if not todo.size:
                break
        masks[todo] |= R.UNEXPLAINED
    masks[(fa != 0) != (fb != 0)] |= R.FAULT
    return masks, calls


# ---- the report family ------------------------------------------------------------------------
class KernelReport(Report):
    """The report of a kernel campaign: classes name their first diverging call."""
    FAMILY: ClassVar[str] = "kernel"
    CONFIG: ClassVar[type] = Program
    GENERATOR: ClassVar[str] = "inputs"
    UNIT: ClassVar[str] = "instances"

    @staticmethod
    def settings_of(config: Program) -> dict:
        return config.settings()

    @staticmethod
    def config_of(settings: dict) -> Program:
        prog = load_kernel(settings["kernel"])
        if prog.settings() != settings:
            raise ValueError(f"kernel {settings['kernel']}: its FUZZ buffers are not the ones this report "
                             "ran (the file changed)")
        return prog

    @staticmethod
    def label_of(config: Program) -> str:
        where, _, name = config.ref.rpartition(":")
        return f"kernel {where.rsplit('/', 1)[-1]}:{name}"

    side_of = staticmethod(side)

    @staticmethod
    def default_pairs(config: Program) -> list[tuple[str, str, str]]:
        a, b = config.pair.split(":")
        return [(f"{a} vs {b}", a, b)]

    def regenerate(self, classes: list[DivClass]) -> None:
        for c in classes:
            c.example = (draw(self.config.inputs, self.seed, np.array(c.first[:1], np.int64))
                         if c.first else None)

    def shrink_class(self, c: DivClass) -> None:
        shrink_class(self, c)

    @classmethod
    def run_spec(cls, spec, *, shrink: bool, progress, executor) -> "KernelReport":
        a, b = spec.sides()
        return campaign(spec.config(), a, b, spec.n, seed=spec.seed, start=spec.start, chunk=spec.chunk,
                        shrink=shrink, progress=progress, executor=executor,
                        time_limit=spec.time_limit or TIME_LIMIT, references=spec.references)


def _note(rep: KernelReport, ch: Chunk) -> None:
    rep.faults_a += ch.faults_a
    rep.faults_b += ch.faults_b
    rep.ref_bad_a += ch.ref_bad_a
    rep.ref_bad_b += ch.ref_bad_b
    rep.ref_checked_a = (rep.ref_checked_a or 0) + ch.checked_a
    rep.ref_checked_b = (rep.ref_checked_b or 0) + ch.checked_b
    rep.divergent += int(np.count_nonzero(ch.masks & ~R.RACE))
    for k, d in (("a", ch.digest_a), ("b", ch.digest_b)):
        rep.digests[k] = (rep.digests.get(k, 0) + d) % (1 << 64)
    for k, ran in (("a", ch.ran_a), ("b", ch.ran_b)):
        calls = rep.calls_ran.setdefault(k, {}) if ran else {}
        for name, parts in ran.items():
            calls[name] = widened(calls.get(name, ""), parts)
    for pos, mask, call in zip(ch.div, ch.masks, ch.calls):
        k = DivClass(int(mask), call=call)
        c = rep.classes.setdefault(k.key, k)
        c.count += 1
        if len(c.first) < FIRST:
            c.first.append(ch.start + int(pos))


# ---- campaigns --------------------------------------------------------------------------------
def kernel(fn: Callable | str | Program, *, inputs: dict | None = None, outputs: dict | None = None,
           pair: str | None = None, n: int = 100_000, seed: int = 0, backend: str = "auto",
           fixed: dict | None = None, executor=None, start: int = 0, chunk: int | None = None,
           shrink: bool = True, progress=None, quirks: dict | None = None,
           time_limit: float | None = TIME_LIMIT, references: str = "sample") -> KernelReport:
    """Fuzz kernel ``fn`` (a function, ``"path.py:fn"`` whose file defines ``FUZZ``, a PTO IR
    kernel: ``"path.pto[:func]"`` or ``ptogpu.ptoir.load_text(...)``, or a ``Program``) on ``n`` instances, side ``pair`` = ``"A:B"`` (``target[@backend]``;
    default the program's, else ``cpu:a5``). ``inputs``: name -> ``indices(...)`` /
    ``values(...)``; ``outputs``: name -> (count, dtype), zeroed per instance, the bytes
    compared; ``fixed``: name -> array every instance shares. The kernel is called as
    ``fn(**ptrs)`` with one typed GM pointer per name: fixed arrays first, then inputs, then
    outputs. ``references``: which instances a side on a kernel backend is checked against its
    NumPy reference, ``"sample"`` (the first :data:`SAMPLE` of each chunk and every instance
    whose sides differ) or ``"all"``; the report says how many were. Returns the campaign's
    report (``KernelReport``)."""
    if isinstance(fn, Program):
        prog = fn
    elif isinstance(fn, str):
        prog = load_kernel(fn)
    elif getattr(fn, "is_pto_ir", False) and outputs is None:    # buffers read from the function
        from ..ptoir.program import program
        prog = program(fn, pair=pair)
    else:
        if outputs is None:
            raise ValueError("kernel(fn, ...): give outputs= (name -> (count, dtype)); inputs= and fixed= too")
        prog = Program(fn, dict(inputs or {}), dict(outputs), dict(fixed or {}), ref_of(fn), pair or "cpu:a5")
    a, b = pair_of(pair or prog.pair, backend)
    return campaign(prog, a, b, n, seed=seed, start=start, chunk=chunk, shrink=shrink, progress=progress,
                    executor=executor, quirks=quirks, time_limit=time_limit, references=references)


def load_kernel(ref: str) -> Program:
    """The program ``ref`` names: ``path.py:fn`` / ``module:fn`` (``execution.program.load``) or a
    PTO IR kernel ``path.pto[:func]`` (``ptoir.program.load``)."""
    from ..ptoir.program import is_pto, load as load_pto
    return load_pto(ref) if is_pto(ref) else load(ref)


def campaign(prog: Program, a: Side | str, b: Side | str, n: int, *, seed: int = 0, start: int = 0,
             chunk: int | None = None, shrink: bool = True, progress=None, executor=None,
             quirks: dict | None = None, time_limit: float | None = TIME_LIMIT,
             references: str = "sample") -> KernelReport:
    """Sides ``a`` and ``b`` of program ``prog`` on instances ``start .. start+n-1``."""
    if references not in REFERENCES:
        raise ValueError(f"references={references!r}: one of {', '.join(REFERENCES)}")
    from ..backend.heap import keep_freed_heap
    keep_freed_heap()                       # (every chunk runs NumPy steps: its references)
    from ..backend import resolve_backend
    from ..execution.rng import check_instances
    a = side(a) if isinstance(a, str) else a
    b = side(b) if isinstance(b, str) else b
    a, b = (Side(s.target, s.exec, resolve_backend(s.backend)[0]) for s in (a, b))
    check_instances(start, n)
    rep = KernelReport(a, b, prog, n, "inputs", seed, start=start)
    rep.engine = ENGINE
    rep.executed = {"a": "formula", "b": "formula"}     # (a kernel backend's: what its calls ran, below)
    rep.references = {k: REF_SELF_NUMPY if s.backend == "numpy" else REF_NUMPY if references == "all" else REF_SAMPLED
                      for k, s in (("a", a), ("b", b))}
    t0 = time.perf_counter()
    if n:
        try:                                # a static check is the compiler's verdict: nothing runs
            one = draw(prog.inputs, seed, np.array([start], np.int64))
            for s in (a, b):
                run_program(prog, s.target, "numpy", one, quirks=quirks, first=start, limit=time_limit)
        except PtoCheckError as e:
            rep.check_error = str(e)
            rep.engine = "none: a static check rejects a side, nothing was compared"
            rep.seconds = time.perf_counter() - t0
            return rep
    step = chunk or prog.core_size()
    values = n * max(1, sum(int(np.prod(g.shape)) for g in prog.inputs.values()))
    pool, ran_on = executors.choose(executor, values, poolable=_poolable(prog))
    tasks = ((s, min(step, start + n - s)) for s in range(start, start + n, step))
    done, parted = 0, False
    try:
        for ch in executors.ordered_map(chunk_task, tasks, pool, shared=(prog, a, b, seed, quirks, time_limit,
                                                                               references)):
            _note(rep, ch)
            done += ch.n
            parted |= ch.runs > 2
            if progress:
                progress(done, n)
    except KernelError as e:                # what finished is reported; the error says the rest
        rep.n, rep.seconds = done, time.perf_counter() - t0
        rep.engine += f"; stopped: {e}"
        e.report = rep
        raise
    for k, s in (("a", a), ("b", b)):
        if s.backend != "numpy":
            rep.executed[k] = joined({p for v in rep.calls_ran.get(k, {}).values() for p in v.split("+")})
    if parted:
        rep.engine = PARTED
    if ran_on:
        rep.engine += f", {ran_on}"
    rep.seconds = time.perf_counter() - t0
    rep.regenerate(list(rep.classes.values()))
    if shrink:
        rep.shrink()
    return rep


def _poolable(prog: Program) -> bool:
    """A worker process can load the kernel (its slice of a file, or an importable module)."""
    if not prog.scripted():
        return True
    try:
        prog.slice()
        return True
    except ValueError:
        return False


def chunk_task(ctx: tuple, s: int, m: int) -> Chunk:
    """A worker's task: one chunk (``ctx`` = program, sides, seed, quirks, time limit,
    references)."""
    prog, a, b, seed, quirks, limit, references = ctx
    return run_chunk(prog, a, b, seed, s, m, quirks, limit, references)


# ---- shrinking and reproducers ---------------------------------------------------------------
def _class_of(prog: Program, a: Side, b: Side, data: dict, quirks=None) -> tuple[int, str | None]:
    """(mask, first diverging call) of one instance's inputs (0: the sides agree)."""
    return _classes_of(prog, a, b, data, quirks)[0]


def _classes_of(prog: Program, a: Side, b: Side, data: dict, quirks=None) -> list[tuple[int, str | None]]:
    """(mask, first diverging call) of each row of ``data``, every row an instance of one core of
    N (each gets its single core's result, so a batch of candidates costs one run per side)."""
    ch_a = run_program(prog, a.target, "numpy", data, quirks=quirks)
    ch_b = run_program(prog, b.target, "numpy", data, quirks=quirks)
    fa, fb = ch_a.codes, ch_b.codes
    agree = _agree(ch_a.outputs, fa, ch_b.outputs, fb)
    out: list[tuple[int, str | None]] = [(0, None)] * len(agree)
    idx = np.flatnonzero(~agree)
    if idx.size:
        masks, calls = classify(prog, a, b, {k: v[idx] for k, v in data.items()}, fa[idx], fb[idx], quirks, 0)
        for j, i in enumerate(idx):
            out[i] = (int(masks[j]), calls[j])
    return out


def _tries(v: np.ndarray):
    """Smaller candidates for one input array, smallest change first: all zero, halves and
    single elements zeroed, magnitudes halved, fewer distinct values."""
    flat = v.reshape(-1)
    yield np.zeros_like(v)
    size = max(flat.size // 2, 1)
    while size >= 1:
        for k0 in range(0, flat.size, size):
            t = flat.copy()
            t[k0: k0 + size] = 0
            yield t.reshape(v.shape)
        size //= 2
    if flat.dtype.kind in "iu":
        t = flat.copy()
        t //= 2
        yield t.reshape(v.shape)
        vals, counts = np.unique(flat, return_counts=True)
        if vals.size > 1:
            t = flat.copy()
            t[t != vals[np.argmax(counts)]] = vals[np.argmax(counts)]
            yield t.reshape(v.shape)


def shrink_class(rep: KernelReport, c: DivClass, budget: int = 200) -> None:
    """Greedy and deterministic: keep each smaller input that keeps the class (its mask and
    first diverging call)."""
    if not c.first:
        return
    prog, a, b = rep.config, rep.a, rep.b
    data = draw(prog.inputs, rep.seed, np.array(c.first[:1], np.int64))
    want = (c.mask, c.call)
    if _class_of(prog, a, b, data) != want:
        return
    tries = 0
    for name in prog.inputs:
        changed = True
        while changed and tries < budget:
            changed = False
            # the round's candidates, in order, run as cores of N of 1, 8, 64, ... instances: the
            # first that keeps the class is taken, as a one-by-one greedy search would take it
            # (and counts its tries), at one run per side and batch
            cands = []
            for t in _tries(data[name][0]):
                if len(cands) >= budget - tries:
                    break
                if not np.array_equal(t, data[name][0]):
                    cands.append(t)
            lo, step = 0, 1
            while lo < len(cands) and not changed:
                part = cands[lo: lo + step]
                batch = {k: np.repeat(v, len(part), axis=0) for k, v in data.items()}
                batch[name] = np.stack(part)
                hit = next((j for j, g in enumerate(_classes_of(prog, a, b, batch)) if g == want), None)
                tries += len(part) if hit is None else hit + 1
                if hit is not None:
                    data, changed = {**data, name: part[hit][None]}, True
                lo, step = lo + len(part), step * 8
    c.shrunk = {"what": ", ".join(f"{k}: {int(np.count_nonzero(v))} non-zero of {v.size}" for k, v in data.items()),
                "inputs": {k: v[0].tolist() for k, v in data.items()}}
    try:
        c.reproducer = script(prog, a, b, {k: v[0] for k, v in data.items()})
    except ValueError as e:                 # (no stand-alone source: said, never a re-run)
        c.shrunk["no_reproducer"] = str(e)


def _quoted(text: str) -> str:
    """``text`` as a Python literal, a readable triple-quoted raw string where it can be."""
    if "\'\'\'" in text or text.endswith("\\") or "\r" in text:
        return repr(text)
    return "r\'\'\'" + text + "\'\'\'"


def _embedded(a: np.ndarray) -> str:
    """An expression that rebuilds array ``a`` bytes-exact (zlib and base64 of its bytes)."""
    import base64
    import zlib
    from .. import dtypes
    blob = base64.b64encode(zlib.compress(np.ascontiguousarray(a).tobytes(), 9)).decode()
    return (f"np.frombuffer(zlib.decompress(base64.b64decode({blob!r})), pto.{dtypes.name_of(a.dtype)})"
            f".reshape({a.shape!r})")


def script(prog: Program, a: Side, b: Side, inputs: dict) -> str:
    """A stand-alone program (public API only) that calls the kernel on both targets with
    these inputs and prints the differing output bytes and the first diverging call. A kernel
    from a file travels as its slice (``execution.source``): the file is never run again."""
    import os
    from .. import dtypes
    where, _, name = prog.ref.rpartition(":")
    if prog.scripted():                     # the kernel's slice of its file, not the file
        src = prog.slice()
        load_fn = [f"FILE = {src.path!r}",
                   "# the kernel and what it uses, cut from its file: first line there -> those lines",
                   "KERNEL = {"]
        for at, text in src.blocks():
            load_fn.append(f"    {at}: {_quoted(text)},")
        load_fn += ["}", "lines = []",
                    "for at, text in KERNEL.items():           # (laid at their lines: calls name them as there)",
                    "    lines += [''] * (at - 1 - len(lines)) + text.splitlines()",
                    "sys.path.insert(0, os.path.dirname(os.path.abspath(FILE)))   # its helpers beside it",
                    "space = {}",
                    f"exec(compile('\\n'.join(lines) + '\\n', {os.path.basename(src.path)!r}, 'exec'), space)",
                    f"kernel = space[{src.name!r}]"]
    elif getattr(prog.fn, "is_pto_ir", False):   # a PTO IR kernel: its module's text, read here
        load_fn = ["from ptogpu.ptoir import load_text", "",
                   f"MODULE = {_quoted(prog.fn.text)}",
                   f"kernel = load_text(MODULE, {prog.fn.func.name!r}, {os.path.basename(where)!r}, {prog.fn.named!r})"]
    else:
        load_fn = [f"from {where} import {name.split('.')[0]} as kernel"]
    fixed = "{" + ", ".join(f"{k!r}: {_embedded(np.asarray(v))}" for k, v in prog.fixed.items()) + "}"
    lines = ["import base64", "import os", "import sys", "import zlib", "", "import numpy as np", "import ptogpu as pto", "", *load_fn, "",
             f"fixed = {fixed}",
             "inputs = {"]
    for k, v in inputs.items():
        g = prog.inputs[k]
        want = dtypes.as_dtype(g.dtype)
        dt = dtypes.name_of(want)
        flat = np.asarray(v).reshape(-1).astype(want, copy=False)   # (shrunk inputs come back as lists)
        if flat.dtype.kind in "iub":              # integers read as numbers; floats bytes-exact (NaN payloads)
            lines.append(f"    {k!r}: np.array({flat.tolist()!r}, dtype=pto.{dt}),")
        else:
            lines.append(f"    {k!r}: {_embedded(flat)},")
    lines += ["}",
              f"outputs = {{{', '.join(f'{k!r}: ({int(cnt)}, pto.{dtypes.name_of(dtypes.as_dtype(d))})' for k, (cnt, d) in prog.outputs.items())}}}",
              "runs = {}",
              f"for side in ({str(a).replace('.simt', '')!r}, {str(b).replace('.simt', '')!r}):",
              "    target, backend = side.split('@')",
              "    with pto.Core(target, backend) as core:",
              "        ptrs = {k: core.gm_put(np.asarray(v).reshape(-1)) for k, v in fixed.items()}",
              "        ptrs.update({k: core.gm_put(v) for k, v in inputs.items()})",
              "        ptrs.update({k: core.gm_alloc(n, dt) for k, (n, dt) in outputs.items()})",
              "        with core.calls() as log:",
              "            try:",
              "                kernel(**ptrs)",
              "                fault = None",
              "            except pto.PtoFault as e:",
              "                fault = str(e)",
              "        out = {k: ptrs[k].numpy(n) for k, (n, dt) in outputs.items()}",
              "        runs[side] = (out, fault, log.calls)",
              "        print(side, 'faults:' if fault else 'runs', fault or '', [c.describe() for c in log.calls])",
              "(oa, fa, la), (ob, fb, lb) = runs.values()",
              "for c, (x, y) in enumerate(zip(la, lb)):       # the first call whose written bytes differ",
              "    if any(p is not None and q is not None and (p != q).any() for p, q in zip(x.outputs, y.outputs)):",
              "        print('first diverging call:', x.describe())",
              "        break",
              "else:",
              "    if len(la) != len(lb):",
              "        print('first diverging call:', (la if len(la) > len(lb) else lb)[min(len(la), len(lb))].describe(),",
              "              '(runs on one side only: the other faulted)')",
              "for k in outputs:",
              "    x, y = oa[k].view(np.uint8), ob[k].view(np.uint8)",
              "    diff = np.flatnonzero(x != y)",
              "    print(k, len(diff), 'differing bytes', diff[:8].tolist(), x[diff[:8]].tolist(), y[diff[:8]].tolist())",
              "assert fa != fb or any((oa[k] != ob[k]).any() for k in outputs), 'no divergence'"]
    return "\n".join(lines) + "\n"
