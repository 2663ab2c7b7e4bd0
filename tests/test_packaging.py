"""Installs ship the kernel sources: ``cuda_src/`` (top of the checkout) goes into wheels as
``ptogpu/_cuda_src``, and ``sources.source_dir()`` finds, in order, ``$PTOGPU_CUDA_SRC``, the
checkout's ``cuda_src/``, the installed copy."""
from __future__ import annotations

import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from ptogpu.backend import sources

ROOT = Path(__file__).resolve().parents[1]
CUDA_SRC = ROOT / "cuda_src"


def test_source_dir_order(monkeypatch, tmp_path):
    # Whatever ptogpu is imported from, the sources are there; from a checkout, its cuda_src/.
    monkeypatch.delenv("PTOGPU_CUDA_SRC", raising=False)
    assert (sources.source_dir() / "host_shim.h").is_file()
    if Path(sources.__file__).resolve().parents[2] == ROOT:
        assert sources.source_dir() == CUDA_SRC

    # $PTOGPU_CUDA_SRC wins over everything.
    monkeypatch.setenv("PTOGPU_CUDA_SRC", str(tmp_path / "elsewhere"))
    assert sources.source_dir() == tmp_path / "elsewhere"
    monkeypatch.delenv("PTOGPU_CUDA_SRC")

    # An installed layout: site/ptogpu/backend/sources.py, no site/cuda_src -> site/ptogpu/_cuda_src.
    site = tmp_path / "site"
    fake = site / "ptogpu" / "backend" / "sources.py"
    fake.parent.mkdir(parents=True)
    fake.touch()
    monkeypatch.setattr(sources, "__file__", str(fake))
    assert sources.source_dir() == site / "ptogpu" / "_cuda_src"
    # ... and a cuda_src/ beside the package (checkout) is preferred to the installed copy.
    (site / "cuda_src").mkdir()
    assert sources.source_dir() == site / "cuda_src"


def _shipped_names() -> set[str]:
    return {p.relative_to(CUDA_SRC).as_posix() for p in CUDA_SRC.rglob("*") if p.is_file() and not p.name.startswith(".")}


def _copy_project(dst: Path) -> Path:
    """The files the build reads, so building never writes build/ or egg-info into the checkout."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    dst.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, dst / name)
    for name in ("ptogpu", "cuda_src"):
        shutil.copytree(ROOT / name, dst / name, ignore=ignore)
    return dst


def _built_files(tmp_path: Path) -> tuple[str, set[str]]:
    """Build offline with the setuptools already installed: a wheel if ``bdist_wheel`` exists
    (setuptools >= 70.1 or the ``wheel`` package), else ``build_py`` (exactly what a wheel
    packs). Returns (how, every packed path relative to the install root)."""
    def version(dist: str) -> tuple[int, ...] | None:
        """From the metadata: importing setuptools here would patch distutils in this process."""
        try:
            return tuple(int(x) for x in re.findall(r"\d+", metadata.version(dist))[:2])
        except metadata.PackageNotFoundError:
            return None

    st = version("setuptools")
    if st is None or st < (61, 0):
        pytest.skip(f"setuptools {st or 'missing'}: cannot read [tool.setuptools] of pyproject.toml offline")
    proj = _copy_project(tmp_path / "proj")
    has_bdist_wheel = st >= (70, 1) or version("wheel") is not None
    if has_bdist_wheel and importlib.util.find_spec("pip") is not None:
        out = tmp_path / "whl"
        r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--no-index", "-q", str(proj), "-w", str(out)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        (whl,) = out.glob("ptogpu-*.whl")
        with zipfile.ZipFile(whl) as z:
            return "wheel", set(z.namelist())
    lib = tmp_path / "lib"
    r = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q",
                        "build_py", "--build-lib", str(lib)],
                       cwd=proj, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return "build_py", {p.relative_to(lib).as_posix() for p in lib.rglob("*") if p.is_file()}


@pytest.mark.skipif(not (CUDA_SRC.is_dir() and (ROOT / "pyproject.toml").is_file()),
                    reason="not run from a source checkout: nothing to build")
def test_install_ships_cuda_sources_and_every_module(tmp_path):
    how, files = _built_files(tmp_path)
    want = {f"ptogpu/_cuda_src/{n}" for n in _shipped_names()}
    assert len(want) >= 10
    missing = sorted(want - files)
    assert not missing, (f"{how} lacks {missing}: add their suffixes to [tool.setuptools.package-data] "
                         f"in pyproject.toml")
    # The package list in pyproject.toml is explicit: every module of ptogpu must be in it.
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ptogpu").rglob("*.py")
               if "__pycache__" not in p.parts}
    missing = sorted(modules - files)
    assert not missing, (f"{how} lacks {missing}: add the subpackage to [tool.setuptools] packages "
                         f"in pyproject.toml")
    assert "ptogpu/py.typed" in files                    # PEP 561: the type hints are for users
    if how == "wheel":
        meta = next(f for f in files if f.endswith(".dist-info/METADATA"))
        assert any(f.endswith("LICENSE") and ".dist-info/" in f for f in files), sorted(files)[:5]
        assert meta


def test_installed_metadata_names_the_license():
    md = metadata.metadata("ptogpu")
    assert md.get("License") == "Apache-2.0" or "Apache" in (md.get("License-Expression") or "")
    assert any("Apache" in c for c in md.get_all("Classifier") or [])


def test_the_gpu_check_runs_on_a_bare_device_machine():
    """perf/gpu_check.sh installs nothing from a registry: ptogpu from the tree, its other
    run-time dependencies from perf/wheels (pure-Python wheels, unpacked with --no-index), and
    only the test files that hold gpu-marked tests (the rest may need hypothesis)."""
    import re
    root = pathlib.Path(__file__).resolve().parents[1]
    script = (root / "perf" / "gpu_check.sh").read_text()
    assert "--no-index --no-deps --target" in script and 'PYTHONPATH="$ROOT:$SITE' in script
    assert "@pytest\\.mark\\.gpu" in script
    wheels = {w.name.split("-")[0].lower(): w for w in (root / "perf" / "wheels").glob("*.whl")}
    toml = (root / "pyproject.toml").read_text()
    deps = re.search(r"^dependencies = \[(.*?)\]", toml, re.M).group(1)
    preinstalled = {"numpy", "ml_dtypes", "tqdm"}           # on the device machine already
    for d in re.findall(r'"([A-Za-z0-9_.-]+)', deps):
        assert d.lower() in preinstalled or d.lower() in wheels, f"{d}: no wheel in perf/wheels"
    assert "cloudpickle" in wheels                       # loky's own dependency
    assert all(w.name.endswith("-py3-none-any.whl") for w in wheels.values())
    gpu_files = [p for p in (root / "tests").glob("test_*.py")
                 if re.search(r"^ *(@pytest\.mark\.gpu|pytestmark = pytest\.mark\.gpu)", p.read_text(), re.M)]
    assert len(gpu_files) >= 5
    for p in gpu_files:                                   # what the device lacks is not imported
        head = "\n".join(ln for ln in p.read_text().splitlines() if ln.startswith(("import ", "from ")))
        assert "hypothesis" not in head and "dask" not in head and "matplotlib" not in head, p.name
