"""Where the known suite looks: the lines and branches of the kernels, references and engines in
``cuda_src/`` that its campaigns execute (``ptogpu coverage``), and of the Python rules -- the
NumPy semantics, the target tables, the verdicts -- through coverage.py where it is installed.

The suite runs once in a child process over a build of ``cuda_src`` instrumented for gcov
(``PTOGPU_NATIVE_COVERAGE``: ``--coverage``, -O0, a private kernel cache), then ``gcov
--json-format`` reads each family's counts. Only code compiled for the host counts: what sits
under ``#ifndef PTO_HOST_SHIM`` (device-only code) is not in the build, and a header's line counts
as executed when any family executed it. gcov is the well-kept tool for this (GCC's own); the
report is a table of gcov's counts, nothing re-derived. The Python side runs the suite under
``coverage run --branch`` (the suite's own process; worker processes, which big campaigns use,
are not followed) over ``ptogpu/semantics``, ``ptogpu/targets.py``, ``ptogpu/fuzz`` and the
instruction packages' ``semantics`` modules.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..backend import sources


@dataclass
class FileCoverage:
    path: str                                   # relative to cuda_src/
    lines: dict[int, int] = field(default_factory=dict)        # line -> count (max over families)
    branches: dict[tuple[int, int], int] = field(default_factory=dict)   # (line, k) -> count

    @property
    def lines_run(self) -> int:
        return sum(1 for c in self.lines.values() if c)

    @property
    def branches_taken(self) -> int:
        return sum(1 for c in self.branches.values() if c)

    def missed(self, most: int = 6) -> str:
        """The first runs of unexecuted lines, as ``a-b`` ranges."""
        out, run = [], []
        for ln in sorted(k for k, c in self.lines.items() if not c):
            if run and ln != run[-1] + 1:
                out.append(run)
                run = []
            run.append(ln)
        if run:
            out.append(run)
        text = [f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in out[:most]]
        return ", ".join(text) + (f" (+{len(out) - most} more)" if len(out) > most else "")


def pct(a: int, b: int) -> float:
    return 100.0 * a / b if b else 100.0


ENGINES = {
    "fuzz.cu": "the screening engine (--engine formula) and cupy's executing engine (fuzz_exec_campaign, "
               "run through the host shim in the tests): the suite uses the executing engine on native",
    "elementwise_fuzz.cu": "ew_fuzz_campaign is cupy's form of the engine (run through the host shim in the "
                           "tests); the suite runs the native form",
    "fuzz_engine.cuh": "the executing engine's blocks", "fuzz_classes.cuh": "the class table (cupy's form too)",
    "fuzz_spec.cuh": "the engines' parameter words", "mscatter_fuzz.cuh": "MSCATTER's executing engine",
    "counter_rng.cuh": "the counter generators (every kind in C; the suite draws some)",
}
"""The campaign engines (what runs the verdicts, not what a target does), and why parts of them
are not executed by the suite. Everything else in cuda_src is a kernel (or a header of kernels),
``ref/`` the C references; the aim (95 % of their lines) counts those two."""

NOT_RUN = {
    "mgather_impl.cuh": "mg_a5_thread_instance: cupy's executing engine (the suite's per-thread campaigns run "
                        "a5_thread through the native launch); index reads outside UB (an index tile is bound "
                        "inside it); the exact re-check of a lock-step round whose lanes read outside GM; "
                        "the scalar targets' ColMajor fast loops (no target pairs an ND table with them)",
    "mgather.cu": "pto_a5_geometry_check (the tests' check of the launch maps)",
    "mscatter.cu": "dispatch arms of element sizes and OOB modes per kernel, the 64-bit casts of hybrid "
                   "blocks (explanations ask them only on a divergence)",
    "tgather.cu": "the compare form's faults (its tiles are bound inside UB)",
    "compare.cu": "the dispatch switches' default arms and pass 0's refusal of kinds, modes, sizes and walks "
                  "outside the instantiations (the host sends none)",
    "elementwise.cu": "the dispatch switch's default arm (pass 0 sends any other operation or kind to NumPy)",
    "burst.cuh": "a burst that would write past its arena (every DMA call checks its bursts before the engine "
                 "runs them)",
    "host_shim.h": "the shim's error paths (a launch that cannot run)",
    "ref/mgather_ref.cuh": "ref_tile, the scalar image for GM of 2 GiB or more, Wrap of capacity 0 and a GM "
                           "smaller than one element (no campaign's engine runs them)",
}
"""Why a kernel file's lines that the suite does not execute are not executed, where known."""

ROLE_SHIM = ("host_shim.h", "simt_trace_shim.h")


def role(path: str) -> str:
    """A cuda_src file's part: "engine", "reference", "shim" or "kernel"."""
    if path in ENGINES:
        return "engine"
    if path.startswith("ref/"):
        return "reference"
    return "shim" if path in ROLE_SHIM else "kernel"


PY_SOURCES = ("ptogpu/semantics", "ptogpu/targets.py", "ptogpu/fuzz", "ptogpu/isa/*/semantics*.py")
"""What the Python side measures: the rules the references compute and the verdicts."""


def has_coverage_py() -> bool:
    import importlib.util
    return importlib.util.find_spec("coverage") is not None


def run_suite(workdir: Path, args: tuple[str, ...] = (), python: bool = False) -> subprocess.CompletedProcess:
    """The known suite (``ptogpu fuzz``, native) over an instrumented build in ``workdir``; with
    ``python``, under coverage.py (data in ``workdir/.coverage``)."""
    env = dict(os.environ, PTOGPU_NATIVE_COVERAGE=str(workdir / "obj"), PTOGPU_CACHE_DIR=str(workdir / "cache"),
               PTOGPU_NATIVE_OPT="-O0", PTOGPU_NATIVE_BACKGROUND="0", PTOGPU_REPRO_DIR=str(workdir / "repro"))
    run = [sys.executable, "-m", "coverage", "run", "--branch", f"--data-file={workdir / '.coverage'}",
           f"--source={Path(__file__).resolve().parents[1]}", "-m"] if python else [sys.executable, "-m"]
    cmd = [*run, "ptogpu", "fuzz", "--backend", "native", "--no-shrink", "--quiet", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)


def read_python(workdir: Path) -> dict[str, tuple[int, int, int, int, str]]:
    """coverage.py's counts per measured module: (lines run, lines, branches taken, branches,
    the first runs of missing lines)."""
    import fnmatch
    out = workdir / "coverage.json"
    subprocess.run([sys.executable, "-m", "coverage", "json", f"--data-file={workdir / '.coverage'}", "-o", str(out)],
                   capture_output=True, text=True, timeout=600, cwd=workdir)
    if not out.exists():
        return {}
    root = Path(__file__).resolve().parents[2]
    got = {}
    for name, f in json.loads(out.read_text())["files"].items():
        p = Path(name)
        rel = str(p.resolve().relative_to(root)) if p.is_absolute() else name
        if not any(fnmatch.fnmatch(rel, pat) or rel.startswith(pat + "/") for pat in PY_SOURCES):
            continue
        s = f["summary"]
        runs = _runs(f.get("missing_lines", []))
        miss = ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in runs[:6]) + \
            (f" (+{len(runs) - 6} more)" if len(runs) > 6 else "")
        got[rel] = (s["covered_lines"], s["num_statements"], s.get("covered_branches", 0), s.get("num_branches", 0),
                    miss)
    return got


def _runs(lines: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for ln in sorted(lines):
        if out and ln == out[-1][1] + 1:
            out[-1] = (out[-1][0], ln)
        else:
            out.append((ln, ln))
    return out


def read_counts(workdir: Path) -> dict[str, FileCoverage]:
    """gcov's counts of every instrumented family under ``workdir/obj``, merged per source file: a
    line's count is its most in any family; its branches are gcov's list for the line, which runs
    every template instantiation's (and lambda's) branches in turn, merged over the families by
    position. An instantiation the build holds and no target reaches (A5's dispatch switches
    have 8-byte arms; A5 gathers 1- to 4-byte elements) counts its branches as not taken, so the
    branch share is a lower bound on the source branches taken. (The coverage build keeps the
    engines' always-inlined helpers out of line, PTO_COVERAGE: gcov would count each inlined
    copy's branches apart too.)"""
    src = sources.source_dir().resolve()
    files: dict[str, FileCoverage] = {}
    out = workdir / "gcov"
    out.mkdir(exist_ok=True)
    for obj in sorted((workdir / "obj").glob("*/*.o")):
        cu = src / (obj.stem + ".cu")
        subprocess.run(["gcov", "--json-format", "--branch-probabilities", "-o", str(obj), str(cu)], cwd=out,
                       capture_output=True, text=True, timeout=600)
        for js in out.glob("*.gcov.json.gz"):
            for f in json.load(gzip.open(js))["files"]:
                p = Path(f["file"])
                p = p if p.is_absolute() else (out / p)
                try:
                    rel = str(p.resolve().relative_to(src))
                except ValueError:
                    continue                    # (system headers)
                fc = files.setdefault(rel, FileCoverage(rel))
                for ln in f["lines"]:
                    n = ln["line_number"]
                    fc.lines[n] = max(fc.lines.get(n, 0), int(ln["count"]))
                    for k, b in enumerate(ln.get("branches", ())):
                        fc.branches[(n, k)] = max(fc.branches.get((n, k), 0), int(b["count"]))
            js.unlink()
    return files


@dataclass
class Coverage:
    files: dict[str, FileCoverage]
    suite_rc: int
    unloaded: list[str] = field(default_factory=list)     # kernel families no campaign loads
    python: dict = field(default_factory=dict)            # module -> coverage.py's counts (read_python)

    def totals(self, roles: tuple[str, ...] | None = None) -> tuple[int, int, int, int]:
        """Lines run, lines, branches taken, branches of the built files (``roles``: of those parts)."""
        fs = [f for n, f in self.files.items() if roles is None or role(n) in roles]
        return (sum(f.lines_run for f in fs), sum(len(f.lines) for f in fs),
                sum(f.branches_taken for f in fs), sum(len(f.branches) for f in fs))

    def aim(self) -> tuple[int, int, int, int]:
        """The kernels' and the references' counts: what the 95 % aim is about."""
        return self.totals(("kernel", "reference"))

    def by_package(self) -> list[tuple[str, str, tuple[int, int], tuple[int, int]]]:
        """Per instruction package (``ptogpu.isa.X``): its calls, the lines run of its kernel
        files (the declarations' ``native`` hooks and the headers they include, but for the
        shared ``common.cuh`` and ``host_shim.h``) and of its ``semantics`` modules."""
        import re
        from .. import isa
        src = sources.source_dir()

        def with_headers(f: str) -> set[str]:
            text = (src / f).read_text() if (src / f).exists() else ""
            inc = set(re.findall(r'^#include "([^"]+)"', text, re.M)) - {"common.cuh", "host_shim.h"}
            return {f} | inc
        pk: dict[str, tuple[list[str], set[str]]] = {}
        for i in isa.INSTRUCTIONS:
            name = i.hooks["api"].split(".")[2]
            calls, files = pk.setdefault(name, ([], set()))
            calls.extend(i.calls)
            if i.fills("native"):
                files |= with_headers(i.hooks["native"])
        out = []
        for name, (calls, files) in pk.items():
            k = [self.files[f] for f in files if f in self.files]
            kern = (sum(f.lines_run for f in k), sum(len(f.lines) for f in k))
            py = [v for n, v in self.python.items() if n.startswith(f"ptogpu/isa/{name}/semantics")]
            sem = (sum(v[0] for v in py), sum(v[1] for v in py))
            shown = ", ".join(calls[:4]) + (f" (+{len(calls) - 4})" if len(calls) > 4 else "")
            out.append((name, shown, kern, sem))
        return out

    def table(self) -> str:
        rows = [f"{'file':28s} {'lines':>16s} {'branches':>16s}  not executed (lines)"]
        for part in ("kernel", "reference", "engine", "shim"):
            rows.append(f"-- {part}s" if part != "shim" else "-- the host shim")
            for name in sorted(n for n in self.files if role(n) == part):
                f = self.files[name]
                rows.append(f"{name:28s} {f.lines_run:6d}/{len(f.lines):<5d} "
                            f"{pct(f.lines_run, len(f.lines)):4.0f}% {f.branches_taken:6d}/{len(f.branches):<5d} "
                            f"{pct(f.branches_taken, len(f.branches)):4.0f}%  {f.missed()}")
                why = ENGINES.get(name) if part == "engine" else NOT_RUN.get(name)
                if why and f.lines_run < len(f.lines):
                    rows.append(f"{'':28s} why: {why}")
        for name in self.unloaded:
            rows.append(f"{name:28s} {'not built':>16s} {'':>16s}  no campaign of the suite loads this kernel family"
                        + (" (ptogpu simt's traces, not a verdict)" if name == "simt_trace.cu" else ""))
        lr, lt, br, bt = self.aim()
        met = "met" if pct(lr, lt) >= 95 and pct(br, bt) >= 90 else \
            f"not met: {pct(lr, lt):.1f} % of lines, {pct(br, bt):.1f} % of branches"
        rows.append(f"{'kernels and references':28s} {lr:6d}/{lt:<5d} {pct(lr, lt):4.0f}% {br:6d}/{bt:<5d} "
                    f"{pct(br, bt):4.0f}%  (the aim: 95 % of lines, 90 % of branches; {met})")
        lr, lt, br, bt = self.totals()
        rows.append(f"{'all that was built':28s} {lr:6d}/{lt:<5d} {pct(lr, lt):4.0f}% {br:6d}/{bt:<5d} "
                    f"{pct(br, bt):4.0f}%  (a branch: gcov's, per template instantiation)")
        if self.python:
            rows.append("")
            rows.append(f"{'Python (coverage.py)':44s} {'lines':>16s} {'branches':>16s}  not executed (lines)")
            for name, (lr, lt, br, bt, miss) in sorted(self.python.items()):
                rows.append(f"{name:44s} {lr:6d}/{lt:<5d} {pct(lr, lt):4.0f}% {br:6d}/{bt:<5d} {pct(br, bt):4.0f}%  "
                            f"{miss}")
            lr, lt, br, bt = (sum(v[k] for v in self.python.values()) for k in range(4))
            rows.append(f"{'all of them':44s} {lr:6d}/{lt:<5d} {pct(lr, lt):4.0f}% {br:6d}/{bt:<5d} "
                        f"{pct(br, bt):4.0f}%  (the suite's own process)")
        rows.append("")
        rows.append(f"{'per instruction package':44s} {'kernel lines':>16s} {'semantics lines':>16s}")
        for name, calls, (kr, kt), (sr, st) in self.by_package():
            k = f"{kr:6d}/{kt:<5d} {pct(kr, kt):3.0f}%" if kt else f"{'no kernel':>16s}"
            s = f"{sr:6d}/{st:<5d} {pct(sr, st):3.0f}%" if st else f"{'-':>16s}"
            rows.append(f"{name + ' (' + calls + ')':44s} {k} {s}")
        return "\n".join(rows)

    def to_json(self) -> dict:
        lr, lt, br, bt = self.totals()
        ar, at, abr, abt = self.aim()
        return {"suite_exit_status": self.suite_rc, "lines": [lr, lt], "branches": [br, bt],
                "kernels_and_references": {"lines": [ar, at], "branches": [abr, abt]},
                "families_not_loaded": self.unloaded,
                "python": {n: {"lines": [a, b], "branches": [c, d], "not_executed": m}
                           for n, (a, b, c, d, m) in sorted(self.python.items())},
                "packages": {n: {"calls": c, "kernel_lines": list(k), "semantics_lines": list(s)}
                             for n, c, k, s in self.by_package()},
                "files": {n: {"role": role(n), "lines": [f.lines_run, len(f.lines)],
                              "branches": [f.branches_taken, len(f.branches)], "not_executed": f.missed(1000),
                              "why": ENGINES.get(n) or NOT_RUN.get(n)} for n, f in sorted(self.files.items())}}


def measure(args: tuple[str, ...] = (), keep: str | None = None) -> Coverage:
    """Run the known suite over an instrumented build and read gcov's counts (``keep``: a folder
    to leave the build, the counts and gcov's files in; else a temporary one)."""
    ctx = tempfile.TemporaryDirectory() if keep is None else None
    work = Path(keep or ctx.name)
    work.mkdir(parents=True, exist_ok=True)
    for old in ("obj", "gcov", "cache", "repro"):            # a kept folder's earlier builds are not this run's
        shutil.rmtree(work / old, ignore_errors=True)
    try:
        py = has_coverage_py()
        r = run_suite(work, args, python=py)
        if not any((work / "obj").glob("*/*.gcda")):
            raise RuntimeError("the instrumented suite left no gcov counts (no native build ran?): "
                               + (r.stderr.strip().splitlines() or ["no output"])[-1])
        built = {p.stem for p in (work / "obj").glob("*/*.o")}
        unloaded = [p.name for p in sources.kernel_files() if p.stem not in built]
        return Coverage(read_counts(work), r.returncode, unloaded, read_python(work) if py else {})
    finally:
        if ctx is not None:
            ctx.cleanup()


def main(args) -> int:
    """``ptogpu coverage``: the table (or ``--json``); exit 1 when the kernels' and references'
    line coverage is below ``--min-lines`` or the suite itself failed."""
    from ..backend import native_backend
    if shutil.which("gcov") is None:
        raise ValueError("ptogpu coverage needs gcov (GCC's coverage tool) on the PATH")
    ok, why = native_backend.available()
    if not ok:
        raise ValueError(f"ptogpu coverage builds the native kernels: {why}")
    cov = measure(keep=args.keep)
    lr, lt, _, _ = cov.aim()
    if args.json:
        print(json.dumps(cov.to_json(), indent=1))
    else:
        print("cuda_src lines and branches the known suite executes (host build, gcov; device-only code is not "
              "compiled for the host and not counted)")
        print(cov.table())
        if not cov.python:
            print("(the Python rules are measured where coverage.py is installed: pip install 'ptogpu[test]')")
        if cov.suite_rc:
            print(f"the suite itself failed (exit status {cov.suite_rc})")
    below = args.min_lines is not None and pct(lr, lt) < args.min_lines
    if below and not args.json:
        print(f"the kernels' and references' line coverage {pct(lr, lt):.1f}% is below --min-lines "
              f"{args.min_lines}%")
    return 1 if below or cov.suite_rc else 0


def add_parser(sub) -> None:
    c = sub.add_parser("coverage", help="the cuda_src lines and branches the known suite executes (gcov)")
    c.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    c.add_argument("--min-lines", type=float, default=None, metavar="PCT",
                   help="exit 1 when fewer of the kernels' and references' lines than this percentage "
                        "are executed")
    c.add_argument("--keep", default=None, metavar="DIR", help="leave the instrumented build and gcov's files in DIR")
    c.set_defaults(fn=main)
