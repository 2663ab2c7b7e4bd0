"""The mutation check: a fuzzer is only as good as the bugs its verdicts catch. Each bug of
tests/mutations.py is planted, one at a time, in a copy of cuda_src/ (PTOGPU_CUDA_SRC, a private
kernel cache, an -O0 build: the same code, built in seconds) or of the ``ptogpu`` package (the
NumPy semantics, the target tables), and the default ``ptogpu fuzz`` suite must fail for it -- a side that disagrees with its reference, a divergence no rule
explains, or a known campaign whose classes changed. A bug in a verdict itself (a check left
out) shows only against wrong tables, so each of VERDICT_MUTATIONS names the test that must
fail for it instead. The shipped kernels hold none of them."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mutations import MUTATIONS, PY_MUTATIONS, VERDICT_MUTATIONS
from ptogpu.backend import native_backend, sources

pytestmark = [pytest.mark.mutations,
              pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")]

SRC = sources.source_dir()
ROOT = Path(__file__).resolve().parent.parent


def test_the_planted_bugs_are_not_in_the_shipped_kernels():
    names = [m[0] for m in MUTATIONS + VERDICT_MUTATIONS + PY_MUTATIONS]
    assert len(MUTATIONS) >= 6 and len(PY_MUTATIONS) >= 6 and len(set(names)) == len(names)
    for name, f, old, new, *_ in MUTATIONS + VERDICT_MUTATIONS + PY_MUTATIONS:
        text = ((ROOT if f.startswith("ptogpu/") else SRC) / f).read_text()
        assert text.count(old) == 1, (name, "the text to change must occur exactly once")
        assert old != new and text.replace(old, new) != text, name


# The known campaigns that look at a file's code first (``ptogpu fuzz -k``): where they catch the
# planted bug, the whole suite fails too, so the rest need not run; where they do not, the whole
# suite runs. (A speed-up of the check, not part of its verdict.)
HINTS = {
    "sort": ("sort",), "compare": ("cmp", "TCMP", "TSEL"), "cvt": ("cvt", "TCVT"), "tmov": ("mov",),
    "elementwise": ("ew_", "Tile ops", "cmp_bytes", "TMIN ", "TMULS", "TDIV", "TSHL", "TMAX", "TSHRS", "TSUBS"),
    "tgatherb": ("TGATHERB", "tgatherb"), "tgather": ("TGATHER", "TSCATTER", "tgather"),
    "tscatter": ("TSCATTER",), "interleave": ("interleave", "TINTERLEAVE", "TDEINTERLEAVE"),
    "reg_gather": ("reg_gather",), "dma": ("dma_pads", "DMA", "burst"),
    "burst": ("dma_pads", "DMA", "burst", "tload"), "datamove": ("TLOAD", "tload"),
    "mscatter": ("MSCATTER", "mscatter"),
    "mgather": ("Elem", "Row", "MGATHER", "GM->L1", "nz_gather"),
    "rules": ("Elem", "Row", "MGATHER", "GM->L1", "MSCATTER"),
    "datacopy": ("reg_gather", "dma_pads"),
}


def _hints(file: str) -> tuple[str, ...]:
    stem = file.split("/")[-2] if file.startswith("ptogpu/isa/") else Path(file).stem
    return next((v for k, v in HINTS.items() if stem.startswith(k) or k in stem), ())


def _run_mutant(name: str, file: str, old: str, new: str, root: Path, test: str | None = None
                ) -> subprocess.CompletedProcess:
    """The suite (or ``test``) over a copy of cuda_src/ with the bug planted; a ``ptogpu/...``
    file is planted in a copy of the package instead, which the suite then imports (run from
    the copy's folder: it comes first on ``sys.path``), over the shipped kernels."""
    here = root / name.replace(" ", "_")
    tree, cwd = SRC, None
    if file.startswith("ptogpu/"):
        cwd = here
        shutil.copytree(ROOT / "ptogpu", here / "ptogpu", ignore=shutil.ignore_patterns("__pycache__"))
        p = here / file
    else:
        tree = here / "cuda_src"
        shutil.copytree(SRC, tree)
        p = tree / file
    p.write_text(p.read_text().replace(old, new))
    env = dict(os.environ, PTOGPU_CUDA_SRC=str(tree), PTOGPU_CACHE_DIR=str(root / "cache"),
               PTOGPU_NATIVE_OPT="-O0", OMP_NUM_THREADS="1")
    cmd = ([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", str(ROOT / test)] if test else
           [sys.executable, "-m", "ptogpu", "fuzz", "--backend", "native", "--no-shrink", "--quiet", "--exitfirst"])
    run = lambda c: subprocess.run(c, capture_output=True, text=True, env=env, timeout=900,  # noqa: E731
                                   cwd=cwd or ROOT)
    if not test and _hints(file):
        first = run(cmd + [a for h in _hints(file) for a in ("-k", h)])
        if first.returncode == 1:
            return first
    return run(cmd)


@pytest.fixture(scope="module")
def mutant_runs(tmp_path_factory) -> dict:
    """Every planted bug's suite run, one process per CPU side by side (each single-threaded):
    the runs are independent, and this halves the check's wall time on two cores."""
    from concurrent.futures import ThreadPoolExecutor
    root = tmp_path_factory.mktemp("mutants")
    with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as ex:
        futs = {m[0]: ex.submit(_run_mutant, *m[:4], root, *m[4:])
                for m in MUTATIONS + PY_MUTATIONS + VERDICT_MUTATIONS}
        return {k: f.result() for k, f in futs.items()}


@pytest.mark.parametrize("name", [m[0] for m in MUTATIONS + PY_MUTATIONS])
def test_the_default_suite_fails_for_each_planted_bug(name, mutant_runs):
    r = mutant_runs[name]
    caught = [ln.strip() for ln in r.stdout.splitlines()
              if "EMULATOR BUG" in ln or "UNEXPLAINED" in ln or "REGRESSION" in ln]
    assert r.returncode == 1 and (caught or "EmulatorBug" in r.stderr), (name, r.returncode, r.stdout[-2000:], r.stderr[-2000:])


@pytest.mark.parametrize("name", [m[0] for m in VERDICT_MUTATIONS])
def test_the_named_test_fails_for_each_planted_verdict_bug(name, mutant_runs):
    r = mutant_runs[name]
    assert r.returncode == 1 and " failed" in r.stdout, (name, r.returncode, r.stdout[-2000:], r.stderr[-2000:])
