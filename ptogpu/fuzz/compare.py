"""Campaigns: run one configuration on two sides (target, executor, backend) over N instances,
compare raw bytes and faults, group divergences into classes, shrink each class.

A side is written ``target[.exec][@backend]``: ``a5.simt``, ``a2a3``, ``cpu@native``,
``a5@numpy``. Two sides that differ only in backend must agree (a difference is an emulator
bug: class BACKEND); two sides of one target that differ only in executor must agree too
(class EXECUTOR). Everything else is explained by the rules of ``ptogpu.fuzz.rules`` or
flagged unexplained.
"""
from __future__ import annotations

import time
from concurrent.futures import Executor
from typing import Callable, ClassVar

import numpy as np

from .. import isa
from ..execution.batch import chunk_size, poolable, run_chunk
from ..execution.single import core_size
from ..errors import PtoCheckError
from ..execution import executors
from . import rules as R
from .classes import DivClass, Side, example_of, instance_configs, note_sparse, relation
from .report import REF_NUMPY, REF_SELF_NUMPY, Report, joined
from ..execution.config import FuzzConfig, config_from_settings, settings
from ..execution.rng import KINDS, VALUE_KINDS, Generator, check_instances
from ..execution.single import cast_indices, check_fits, run_single

class GatherReport(Report):
    """The report of an MGATHER-family campaign (MGATHER, TGATHERB, TINTERLEAVE)."""
    FAMILY: ClassVar[str] = "mgather"
    CONFIG: ClassVar[type] = FuzzConfig

    ENGINES: ClassVar[tuple[str, ...]] = ("execute", "formula")
    GENERATORS: ClassVar[tuple[str, ...]] = (*KINDS, *VALUE_KINDS)
    SHAPES: ClassVar[bool] = True
    settings_of = staticmethod(settings)
    config_of = staticmethod(config_from_settings)

    @staticmethod
    def default_pairs(config: FuzzConfig) -> list[tuple[str, str, str]]:
        if "simt" not in config.instruction.execs:      # (a vector instruction on every target)
            return [("cpu vs a5", "cpu", "a5"), ("cpu vs a2a3", "cpu", "a2a3")]
        return [("a5.simt vs a2a3", "a5.simt", "a2a3")]

    @staticmethod
    def label_of(config: FuzzConfig) -> str:
        return config.op_label

    def regenerate(self, classes: list[DivClass]) -> None:
        gen = Generator(self.generator, self.seed)
        for c in classes:
            c.example = example_of(self, gen, c)

    def shrink_class(self, c: DivClass) -> None:
        from .shrink import shrink_class
        ca, cb = self.a.config(self.config), self.b.config(self.config)
        if c.shape and c.first:
            ca, cb = instance_configs(ca, cb, Generator(self.generator, self.seed), c.first[0])
        shrink_class(c, ca, cb, self.a, self.b)

    @classmethod
    def run_spec(cls, spec, *, shrink: bool, progress, executor) -> "GatherReport":
        a, b = spec.sides()
        return campaign(spec.config(), a, b, spec.n, generator=spec.generator, seed=spec.seed,
                        start=spec.start, chunk=spec.chunk, shrink=shrink, progress=progress,
                        fused=True if spec.engine == "formula" else None, shapes=spec.shapes,
                        executor=executor)


REF_FORMULA = "formula reference (cuda_src/ref/mgather_ref.cuh: the target's rules, no kernel code)"
REF_SELF_FORMULA = "none: this side ran the formula reference itself (no lanes or loops to check)"

def runs_lanes(cfg: FuzzConfig) -> bool:
    """Does this configuration's kernel run a SIMT launch? A5 MGATHER into UB always does
    (GatherExec exists only for GM->L1: ``a5.scalar`` into UB is the same launch), except the
    1x1 tile, which A5 runs on its scalar path; GM->L1 runs lanes only for Elem with
    ``GatherExec::Simt``."""
    return cfg.instruction.runs_lanes(cfg)


def executed(cfg: FuzzConfig, side: Side, path: str) -> str:
    """The EXECUTED label of one side whose batch ran on ``path`` ("kernel", "vector",
    "loop", "kernel+vector", ...): kernel and public-API runs on a kernel backend execute
    lanes or loops, array code runs formulas; a mix names each part."""
    kernel_kind = "lanes" if runs_lanes(cfg) else "loop"
    parts = set()
    for p in path.split("+"):
        if p == "kernel" or (p == "loop" and side.backend in ("native", "cupy")):
            parts.add(kernel_kind)
        else:                        # array code, or the public API on NumPy: per-element results
            parts.add("formula")
    return joined(parts)


def _run_side(cfg, inst, gen, side, values, raw=None):
    return run_chunk(cfg, inst, gen, side.backend, values=values, raw=raw, digest=False)


# Run the NumPy array path once when it computes the same bytes for both sides by construction
# (see shared_semantics); perf/bench_fuzz.py --no-share measures the two sides separately.
SHARE_SIDES = True

def shared_semantics(ca: FuzzConfig, cb: FuzzConfig, a: Side, b: Side) -> bool:
    """True when both sides run the NumPy semantics and every target-table field they read
    for this configuration (the instruction's ``formula_fields``) is equal: the two results
    would be the same bytes, so one computation serves both (no divergence is possible).
    Decided from the target tables, never from target names."""
    from ..targets import field_value
    if not SHARE_SIDES or a.backend != "numpy" or b.backend != "numpy":
        return False
    fields = ca.instruction.formula_fields(ca)
    if fields is None or ca.core_quirks != cb.core_quirks:
        return False
    return all(field_value(ca.target, f) == field_value(cb.target, f) for f in fields)


def campaign(base: FuzzConfig, a: Side | str, b: Side | str, n: int, *, generator: str | Generator = "mixed",
             seed: int = 0, start: int = 0, chunk: int | None = None, shrink: bool = True,
             fused: bool | None = None, shapes: bool = False,
             progress: Callable[[int, int], None] | None = None,
             executor: Executor | None = None) -> GatherReport:
    """Compare sides ``a`` and ``b`` on instances ``start .. start+n-1`` of ``base``.

    By default both sides' bytes are built through ``ptogpu.execution.batch`` and compared: on the
    kernel backends that executes every SIMT lane of every A5 launch and the scalar targets'
    loops (``Report.executed`` says what ran per side). ``fused=True`` asks for the formula
    screening mode where the configuration is covered (``fused.covers``): the kernel of
    ``cuda_src/fuzz.cu`` (native, cupy) or its array-code twin ``fused_numpy`` (numpy) compare
    per-element formulas of the two sides and keep only class counts -- fast, but it executes
    no lanes, so it cannot see a lane-mapping error. Big NumPy campaigns run in worker
    processes (``ptogpu.execution.executors``); ``executor`` (any
    ``concurrent.futures.Executor``: the local pool, a Dask client's) runs those chunks instead.

    Where both sides are on native and the configuration is covered (``execute.prepare``), the
    default runs the executing engine (``cuda_src/fuzz.cu`` pto_fuzz_exec): the same kernels
    as the batch path, per tile, compared in C (same report, much faster). ``shapes=True``
    draws each instance's valid (rows, cols) inside the rows x cols tile (dynamic valid dims;
    Row mode: rows only), on the executing engine only."""
    from ..backend import resolve_backend
    a = Side.parse(a) if isinstance(a, str) else a
    b = Side.parse(b) if isinstance(b, str) else b
    # a backend named is a backend used: unknown or unavailable ones raise; auto chooses
    a, b = (Side(s.target, s.exec, resolve_backend(s.backend)[0]) for s in (a, b))
    ca, cb = a.config(base), b.config(base)
    if chunk is not None and chunk < 1:
        raise ValueError(f"chunk must be at least 1 instance, not {chunk}")
    check_instances(start, n)
    check_fits(ca)
    check_fits(cb)
    gen = generator if isinstance(generator, Generator) else Generator(generator, seed)
    rep = GatherReport(a, b, base, n, gen.kind, gen.seed, start=start)
    t0 = time.perf_counter()
    rel = relation(a, b)
    from . import execute as X
    from . import fused as F
    camp = X.prepare(ca, cb, gen, a, b, rel, shapes=shapes) if fused is None else None
    if shapes and camp is None:
        raise ValueError("shape fuzzing runs on the executing native engine (or its cupy kernel): "
                         "both sides @native or both @cupy, MGATHER into UB, nd layout, "
                         "int32/uint32 indices, a counter generator, not the formula screening")
    use_fused = bool(fused) and F.covers(ca, cb, gen, a, b)
    decl, own = isa.by_name(ca.instr), None     # an instruction's own campaign engine (its declaration's hook)
    if fused is None and not shapes and decl.fills("campaign"):
        own = decl.hook("campaign")
        own = own if own.covers(ca, cb, gen, a, b) else None
    rep.shapes = shapes
    if n:
        # The array paths and the fused kernel run no static checks: let the public API judge
        # one instance first (with shapes: the dynamic-valid tiles, in the full shape).
        try:
            pa, pb = (c.with_(storage=(c.rows, c.cols)) for c in (ca, cb)) if shapes else (ca, cb)
            v0 = gen(np.array([start], np.int64), ca.n_idx, ca.cap)[0]
            run_single(pa, v0)
            run_single(pb, v0)
        except PtoCheckError as e:
            rep.check_error = str(e)
            rep.engine = "none: a static check rejects a side, nothing was compared"
            rep.seconds = time.perf_counter() - t0
            return rep
    if use_fused:
        F.run(ca, cb, gen, a, b, n, start, rep, rel, chunk=chunk, progress=progress, executor=executor,
              share=SHARE_SIDES)
        rep.executed = {"a": "formula", "b": "formula"}
        rep.references = {"a": REF_SELF_FORMULA, "b": REF_SELF_FORMULA}
    elif own is not None:
        own.run(ca, cb, gen, a, b, n, start, rep, chunk=chunk, progress=progress)
        rep.executed = {"a": executed(ca, a, "kernel"), "b": executed(cb, b, "kernel")}
    elif camp is not None:
        X.run(camp, a.backend, n, start, rep, chunk=chunk, progress=progress)
        rep.executed = {"a": executed(ca, a, "kernel"), "b": executed(cb, b, "kernel")}
        rep.references = {"a": REF_FORMULA, "b": REF_FORMULA}
    else:
        rep.references = {k: REF_SELF_NUMPY if s.backend == "numpy" else REF_NUMPY for k, s in (("a", a), ("b", b))}
        step = chunk or (chunk_size(base, n) // 2 if {a.backend, b.backend} & {"native", "cupy"}
                         else min(chunk_size(base, n), 4 * core_size(base, "numpy")))
        done = 0
        paths: set = set()
        ex: dict = {"a": set(), "b": set()}
        share = shared_semantics(ca, cb, a, b)
        pool, ran_on = executors.choose(executor, n * ca.n_idx, a.backend == b.backend and poolable(a.backend, gen))
        per = step * (TASK_CHUNKS if pool is not None else 1)
        tasks = ((s, min(per, start + n - s), step) for s in range(start, start + n, per))
        try:
            for res in executors.ordered_map(vector_task, tasks, pool, shared=(ca, cb, gen, a, b, share)):
                for s, m, fa, fb, div, masks, path, pa, pb, xa, xb in res:
                    paths.add(path)
                    ex["a"].add(executed(ca, a, pa))
                    ex["b"].add(executed(cb, b, pb))
                    rep.faults_a += fa
                    rep.faults_b += fb
                    rep.ref_bad_a += xa
                    rep.ref_bad_b += xb
                    note_sparse(rep, s + div, masks, gen, ca)
                    done += m
                if progress:
                    progress(done, n)
        except PtoCheckError as e:                      # a static check rejects one side
            rep.check_error = str(e)
        rep.engine = ", ".join(sorted(paths)) or "numpy"     # e.g. "native:kernel vs numpy:vector"
        rep.executed = {k: "+".join(sorted(v)) for k, v in ex.items() if v}
        for k in rep.executed:          # a kernel backend whose kernels left every call to NumPy
            if rep.executed[k] == "formula":
                rep.references[k] = REF_SELF_NUMPY
        if ran_on:
            rep.engine += f", {ran_on}"
    rep.seconds = time.perf_counter() - t0
    if shrink:
        rep.shrink()
    return rep


TASK_CHUNKS = 4       # chunks per worker task (amortises shipping the campaign to a worker)


def vector_task(ctx: tuple, s: int, m: int, step: int) -> list:
    """Instances ``s .. s+m-1`` in chunks of ``step``, both sides, their references and the
    class masks (no report state: worker processes run it); ``ctx`` = (config a, config b,
    generator, side a, side b, one run for both). [(start, size, faults A, faults B,
    positions with a class, masks, path, path of side a, path of side b, reference
    mismatches A, B)]."""
    from .explain import verdicts
    ca, cb, gen, a, b, share = ctx
    lanes32 = ca.instruction.lo32_cast(ca)
    out = []
    for c in range(s, s + m, step):
        inst = np.arange(c, min(c + step, s + m), dtype=np.int64)
        # one generation and one cast serve both sides; 32-bit index types take the
        # generator's low 32 bits, computed in 32-bit lanes (the same wrapping cast)
        lo32 = gen.lo32(inst, ca.n_idx, ca.cap) if lanes32 else None
        if lo32 is not None:
            vals, raw = None, lo32.view(np.dtype(ca.index_dtype)).reshape(inst.size, -1)
        else:
            vals = gen(inst, ca.n_idx, ca.cap)
            raw = cast_indices(ca, vals).reshape(inst.size, -1)
        ra = _run_side(ca, inst, gen, a, vals, raw)
        rb = ra if share else _run_side(cb, inst, gen, b, vals, raw)
        if rb is ra:
            mk = np.zeros(inst.size, np.int64)
            path = f"{a.backend}:{ra.path}, one run for both sides (equal target-table rules)"
        else:
            mk = verdicts(ca, cb, a, b, inst, gen, raw, ra, rb, relation(a, b))
            path = f"{a.backend}:{ra.path} vs {b.backend}:{rb.path}"
        div = np.flatnonzero(mk)
        out.append((c, inst.size, int(np.count_nonzero(ra.faults)), int(np.count_nonzero(rb.faults)),
                    div, mk[div], path, ra.path, rb.path,
                    int(np.count_nonzero(mk & R.REF_A)), int(np.count_nonzero(mk & R.REF_B))))
    return out


