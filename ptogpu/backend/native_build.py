"""The native backend's build: the compiler, its flags and this CPU's features, one library per
kernel family (a ``.cu``) compiled in parallel processes into the cache, under a lock, pruned;
the quick foreground build and the detached optimised one. ``native_backend`` loads and
launches what this builds."""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from . import sources

FLAGS = ("-O3", "-fopenmp", "-shared", "-fPIC", "-std=c++17")
NATIVE_ARCH = ("-march=native", "-mprefer-vector-width=512")


def cache_dir() -> Path:
    env = os.environ.get("PTOGPU_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ptogpu"


def compiler() -> str | None:
    for name in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def cpu_features() -> str:
    """This CPU's feature flags (``/proc/cpuinfo``), part of the build's cache key: a
    ``-march=native`` build must not be loaded on a CPU that lacks its instructions."""
    import platform
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return platform.machine() + ":" + " ".join(sorted(line.split(":", 1)[1].split()))
    except OSError:
        pass
    return platform.machine() + ":" + platform.processor()


def base_flags() -> tuple[str, ...]:
    """FLAGS with ``$PTOGPU_NATIVE_OPT`` (``-O0``..``-O3``) in place of ``-O3``: a quicker
    build where speed does not matter (the mutation check builds a kernel tree per planted
    bug). Part of the cache key, like every flag."""
    opt = os.environ.get("PTOGPU_NATIVE_OPT", "-O3")
    if opt not in ("-O0", "-O1", "-O2", "-O3"):
        raise NativeUnavailable(f"PTOGPU_NATIVE_OPT={opt!r}: one of -O0, -O1, -O2, -O3")
    flags = tuple(opt if f == "-O3" else f for f in FLAGS)
    return flags + COVERAGE_FLAGS if coverage_dir() else flags


COVERAGE_FLAGS = ("--coverage", "-fprofile-update=atomic", "-DPTO_COVERAGE")
"""gcov instrumentation (``ptogpu coverage``): line and branch counts, thread-safe under OpenMP;
PTO_COVERAGE keeps the engines' always-inlined helpers out of line (one count per branch)."""


def coverage_dir() -> Path | None:
    """``$PTOGPU_NATIVE_COVERAGE``: where an instrumented build keeps its object files, beside
    which gcov's count files land when the process exits (``ptogpu.fuzz.coverage`` reads them)."""
    d = os.environ.get("PTOGPU_NATIVE_COVERAGE")
    return Path(d) if d else None


def flag_sets() -> list[tuple[str, ...]]:
    """Builds to try, best first: native ISA with OpenMP, portable with OpenMP, portable alone."""
    flags = base_flags()
    no_omp = tuple(f for f in flags if f != "-fopenmp")
    sets = [flags, no_omp]
    if os.environ.get("PTOGPU_NATIVE_MARCH", "1") != "0":
        sets.insert(0, flags + NATIVE_ARCH)
    return sets


def compiler_id(cxx: str) -> str:
    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.splitlines()[0] if out.stdout else cxx
    except (OSError, subprocess.SubprocessError):
        return cxx


def _build(cxx: str, flags: tuple[str, ...], out: Path, files: list[Path] | None = None) -> str:
    """Compile ``files`` (default: every ``.cu``) into ``out``; returns "" on success, else the
    compiler's complaint. Each file is compiled to an object file in its own process (in
    parallel, one per CPU), then linked."""
    src = sources.source_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so.tmp", dir=out.parent)
    os.close(fd)
    cflags = [f for f in flags if f != "-shared"]
    cov = coverage_dir() if "--coverage" in flags else None
    if cov is not None:                 # the objects stay: gcov reads them and their counts
        (cov / out.stem).mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(str(cov / out.stem)) if cov is not None
          else tempfile.TemporaryDirectory(dir=out.parent)) as objdir:
        jobs, objs = [], []
        for p in files or sources.kernel_files():
            obj = os.path.join(objdir, p.stem + ".o")
            objs.append(obj)
            jobs.append([cxx, *cflags, "-c", "-include", str(src / "host_shim.h"), "-I", str(src),
                         "-x", "c++", str(p), "-o", obj])
        link = [cxx, *flags, *objs, "-o", tmp]
        width = max(1, os.cpu_count() or 1)
        try:
            for k in range(0, len(jobs), width):
                bad = run_all(jobs[k:k + width])
                if bad:
                    os.unlink(tmp)
                    return bad
            bad = run_all([link])
        except (OSError, subprocess.SubprocessError) as e:
            os.unlink(tmp)
            return f"{cxx}: {e}"
        if bad:
            os.unlink(tmp)
            return bad
    os.replace(tmp, out)
    return ""


def _timeout() -> float:
    """Seconds one compiler process may take (PTOGPU_COMPILE_TIMEOUT, default 600)."""
    try:
        return float(os.environ.get("PTOGPU_COMPILE_TIMEOUT", "") or 600)
    except ValueError:
        return 600.0


def run_all(cmds: list[list[str]]) -> str:
    """Run ``cmds`` side by side, each in its own process group; "" when all succeed, else the
    first failure's command and complaint. A failure, a timeout or an interrupt kills every
    group (the driver and its cc1plus/as/ld children), so no compiler outlives the build."""
    import signal
    import time
    procs = [(c, subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True)) for c in cmds]
    try:
        end = time.monotonic() + _timeout()
        for c, pr in procs:
            try:
                _, err = pr.communicate(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                return f"{' '.join(c)}\ntimed out after {_timeout():g} s (PTOGPU_COMPILE_TIMEOUT); killed"
            if pr.returncode != 0:
                return f"{' '.join(c)}\n{err[-4000:]}"
        return ""
    finally:
        for _, pr in procs:
            if pr.poll() is None:
                try:
                    os.killpg(pr.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                pr.wait()


# Builds kept in the cache, per kernel family: other checkouts (or older sources) sharing the
# cache keep theirs, so two trees do not rebuild each other; beyond this many, the least
# recently used go.
KEEP_BUILDS = 8
# A temporary build file or object folder untouched this long is a killed build's leftover.
STALE_S = 3600


def _mtime(p: Path) -> float:
    """A build's modification time; -1 for one another process has just pruned (gone between
    the listing and the look: the cache is shared by concurrent processes)."""
    try:
        return p.stat().st_mtime
    except OSError:
        return -1.0


def prune(keep: Path) -> None:
    """Drop the least recently used builds beyond KEEP_BUILDS and killed builds' leftovers (a
    process that still maps a library keeps its copy)."""
    import time
    try:
        os.utime(keep)                                  # "recently used"
    except OSError:
        pass
    d = keep.parent
    fam = lambda p: p.stem[len("ptogpu_native_"):].partition("_")[2]   # noqa: E731  (key_family)
    libs = sorted((p for p in d.glob("ptogpu_native_*.so") if fam(p) == fam(keep)), key=_mtime, reverse=True)
    old = [p for p in libs[KEEP_BUILDS:] if p != keep]
    now = time.time()
    for p in list(d.glob("*.so.tmp")) + [q for q in d.glob("tmp*") if q.is_dir()]:
        try:
            if now - p.stat().st_mtime > STALE_S:
                old.append(p)
        except OSError:
            pass
    for p in old:
        try:
            shutil.rmtree(p) if p.is_dir() else p.unlink()
            if p.suffix == ".so":
                p.with_suffix(".lock").unlink(missing_ok=True)
        except OSError:
            pass


class BuildLock:
    """An exclusive file lock per build key: concurrent processes wait for one compiler run
    instead of each compiling the same library."""

    def __init__(self, path: Path):
        self.path, self.fd = path, None

    def __enter__(self):
        try:
            import fcntl
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (ImportError, OSError):                  # no flock here: build unlocked
            self.fd = None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)                           # releases the lock


def announce(msg: str, end: str = "\n") -> None:
    """Build progress, on stderr whatever it is (a first run must not look hung in a pipe or a
    log): one line per foreground build."""
    import sys
    try:
        sys.stderr.write(msg + end)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):   # a closed or missing stderr
        pass


# The first use of a family builds it twice: a quick -O0 build in the foreground (seconds), then
# the -O3 build in a detached background process (half a minute for mgather.cu or fuzz.cu);
# later processes load the -O3 one from the cache. PTOGPU_NATIVE_OPT names one level and builds
# only that, in the foreground (the benchmarks set -O3, so they never time a quick build).
QUICK_OPT = "-O0"                    # mgather.cu: 2 s, against 29.5 s at -O3 and 7.5 s at -O1
# Families the quick tier builds together (in parallel, one compiler per CPU) when the first of
# them is asked for: what `ptogpu demo` and the single-instruction API reach first.
PREBUILD = ("mgather", "mscatter", "dma")


def forced_opt() -> bool:
    return bool(os.environ.get("PTOGPU_NATIVE_OPT"))


def quick(flags: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(QUICK_OPT if f == "-O3" else f for f in flags)


def lib_path(cid: str, flags: tuple[str, ...], feats: str, family: str) -> Path:
    key = sources.digest(f"{cid}\0{' '.join(flags)}\0{feats if NATIVE_ARCH[0] in flags else ''}")
    return cache_dir() / f"ptogpu_native_{key}_{family}.so"


def build_locked(cxx: str, flags: tuple[str, ...], path: Path, src: Path, say: bool) -> str:
    """Build ``src`` into ``path`` under its lock unless another process already has."""
    import time
    with BuildLock(path.with_suffix(".lock")):
        if path.exists():
            return ""
        t0 = time.perf_counter()
        opt = next((f for f in flags if f.startswith("-O")), "")
        isa = " ".join(f for f in flags if f.startswith("-m")) or "portable"
        if say:
            announce(f"ptogpu: building native kernels (first use): {src.name}, {opt} {isa} ...", end="")
        err = _build(cxx, flags, path, [src])
        if say:
            announce(f" {'failed' if err else 'done'} in {time.perf_counter() - t0:.1f} s")
        return err


def build_parallel(cxx: str, flags: tuple[str, ...], jobs: list[tuple[str, Path, Path]]) -> dict:
    """Build several families at once (one compiler process each, up to one per CPU):
    family -> error ("" on success). The first in ``jobs`` is the one asked for."""
    import time
    from concurrent.futures import ThreadPoolExecutor
    width = max(1, min(len(jobs), os.cpu_count() or 1))
    names = ", ".join(src.name for _, _, src in jobs)
    t0 = time.perf_counter()
    opt = next((f for f in flags if f.startswith("-O")), "")
    how = (f"quick {opt} build; the -O3 build follows in the background" if not forced_opt()
           else f"{opt}, PTOGPU_NATIVE_OPT")
    announce(f"ptogpu: building native kernels (first use, {how}): {names} ...", end="")
    with ThreadPoolExecutor(width) as ex:
        futs = {f: ex.submit(build_locked, cxx, flags, path, src, False) for f, path, src in jobs}
        errs = {f: fu.result() for f, fu in futs.items()}
    bad = [f for f, e in errs.items() if e]
    announce(f" {'failed: ' + ', '.join(bad) if bad else 'done'} in {time.perf_counter() - t0:.1f} s")
    return errs


def spawn_optimised(families: list[str], flags: tuple[str, ...]) -> None:
    """Build the -O3 libraries of ``families`` in a detached, niced process (no output): this
    process goes on with its quick builds; the next one loads the optimised ones."""
    import sys
    if os.environ.get("PTOGPU_NATIVE_BACKGROUND", "1") == "0" or not families:
        return
    code = ("import sys; from ptogpu.backend.native_build import background; "
            "background(sys.argv[1].split(','), tuple(sys.argv[2:]))")
    try:
        subprocess.Popen([sys.executable, "-c", code, ",".join(families), *flags],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        pass


def background(families: list[str], flags: tuple[str, ...]) -> None:
    """The detached optimised build (see :func:`spawn_optimised`)."""
    try:
        os.nice(10)
    except OSError:
        pass
    cxx = compiler()
    if cxx is None:
        return
    cid, feats = compiler_id(cxx), cpu_features()
    files = {p.stem: p for p in sources.kernel_files()}
    for fam in families:
        if fam in files:
            build_locked(cxx, flags, lib_path(cid, flags, feats, fam), files[fam], say=False)
