"""Shared fixtures and small, independent reference helpers for the foundation tests.

Goldens are derived here from the spec (mgather.md), never by calling the implementation:
the helpers below are the spec's formulas written out in plain Python/NumPy.
"""
from __future__ import annotations

import os
import signal
import tempfile
import warnings

import numpy as np
import pytest

import ptogpu as pto

TARGETS = ("cpu", "a2a3", "a5")
NPU = ("a2a3", "a5")
V, M = pto.TileType.Vec, pto.TileType.Mat
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
NB, SRM, SCM = pto.SLayout.NoneBox, pto.SLayout.RowMajor, pto.SLayout.ColMajor
ROW, ELEM = pto.Coalesce.Row, pto.Coalesce.Elem
OOB = pto.GatherOOB
SENT = 0xCD                      # byte every UB/L1 starts with in these tests ("untouched")


# The suite builds every kernel family at -O3 in the foreground, in parallel, before the first
# test (ptogpu's default, a quick -O1 build now and -O3 in the background, has its own test in
# test_native_cache.py): subprocess tests then never build, and their stderr holds only
# what the command says.
os.environ.setdefault("PTOGPU_NATIVE_OPT", "-O3")


@pytest.fixture(scope="session", autouse=True)
def _kernels_built_up_front():
    if os.environ.get("PTOGPU_NATIVE_OPT") == "-O3":
        from ptogpu.backend import native_backend
        native_backend.prebuild()
    yield


# A suite started in the background of a shell without job control inherits SIGINT ignored,
# and so would every `ptogpu` it starts (an ignored disposition survives exec): the Ctrl-C
# tests would then see their command run on. Give this process Python's own handler, so the
# commands it starts get the default disposition, as from a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# ptogpu fuzz writes reproducers to ./ptogpu-repro by default: tests running in the checkout
# write them to a scratch folder instead (tests of the default unset this).
os.environ.setdefault("PTOGPU_REPRO_DIR", tempfile.mkdtemp(prefix="ptogpu-repro-tests-"))


@pytest.fixture(autouse=True)
def _numpy_warnings_are_errors():
    """No adversarial value may make NumPy warn (overflow, divide by zero, invalid cast)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with np.errstate(all="raise"):
            yield


def new_core(target: str, **kw) -> pto.Core:
    core = pto.Core(target, "numpy", **kw)
    core.write("ub", 0, np.full(core.ub.size, SENT, np.uint8))
    core.write("l1", 0, np.full(core.l1.size, SENT, np.uint8))
    return core


@pytest.fixture
def fresh_stack():
    """No enclosing ``with core:`` and target warnings (aliasing hazards and the like) quiet:
    for files whose tests build their own cores and check no warning themselves."""
    from ptogpu.core import CURRENT
    token = CURRENT.set([])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield
    CURRENT.reset(token)


@pytest.fixture(params=TARGETS)
def core(request):
    c = new_core(request.param)
    with c:
        yield c


@pytest.fixture(params=NPU)
def npu_core(request):
    c = new_core(request.param)
    with c:
        yield c


def tile(dtype, rows, cols, addr, *, bl=RM, vr=None, vc=None, sl=NB, fs=512, loc=V, valid=()):
    """A TASSIGNed tile instance of Tile[loc, dtype, rows, cols, bl, vr, vc, sl, fs]."""
    T = pto.Tile[loc, dtype, rows, cols, bl, rows if vr is None else vr,
                 cols if vc is None else vc, sl, fs]
    t = T(*valid)
    pto.TASSIGN(t, addr)
    return t


def gt(core, data, dtype, shape, stride, layout=pto.Layout.ND, *, static=True):
    """A GlobalTensor over ``data`` (flat, put into GM) with the given 5-D shape/stride."""
    ptr = core.gm_put(np.asarray(data).reshape(-1), dtype)
    if static:
        T = pto.GlobalTensor[dtype, pto.Shape[tuple(shape)], pto.Stride[tuple(stride)], layout]
        return T(ptr)
    T = pto.GlobalTensor[dtype, pto.Shape[(-1,) * 5], pto.Stride[(-1,) * 5], layout]
    return T(ptr, pto.Shape[(-1,) * 5](*shape), pto.Stride[(-1,) * 5](*stride))


def nd_table(core, mat, dtype=None):
    """A canonical packed 2-D ND table (Shape(1,1,1,R,C), Stride(RC,RC,RC,C,1))."""
    mat = np.asarray(mat)
    dtype = dtype if dtype is not None else mat.dtype
    R, C = mat.shape
    return gt(core, mat, dtype, (1, 1, 1, R, C), (R * C, R * C, R * C, C, 1))


def sentinel(nelem: int, dtype) -> np.ndarray:
    """``nelem`` elements whose bytes are all SENT (the untouched-UB pattern), as ``dtype``."""
    st = np.dtype(np.uint8) if dtype == pto.hifloat8 else np.dtype(dtype)
    return np.full(nelem * st.itemsize, SENT, np.uint8).view(st)


def assert_bytes(got, want) -> None:
    """Byte-exact comparison (NaN payloads and -0.0 included)."""
    g = np.ascontiguousarray(got)
    w = np.ascontiguousarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    gb, wb = g.view(np.uint8).reshape(-1), w.view(np.uint8).reshape(-1)
    if not np.array_equal(gb, wb):
        bad = np.flatnonzero(gb != wb)
        raise AssertionError(f"{bad.size} bytes differ, first at byte {bad[0]}: "
                             f"got {gb[bad[:8]]}, want {wb[bad[:8]]}\ngot  {g!r}\nwant {w!r}")


def ub_snapshot(core) -> bytes:
    return core.read("ub", 0, core.ub.size).tobytes()


# -- spec §3: index cast and OOB remap, written independently --------------------------------
def cast_u(x: int, target: str, idx_signed: bool = True) -> int:
    """NPU: static_cast<uint32_t>; CPU sim: static_cast<size_t> (sign-extends signed types)."""
    if target == "cpu":
        return x % 2**64 if idx_signed else x
    return x % 2**32


def remap_ref(u: int, cap: int, oob, target: str):
    """(effective index, read?) per §3; ``cap`` already in the target's unsigned width."""
    width = 2**64 if target == "cpu" else 2**32
    cap %= width
    if oob == OOB.Clamp:
        if target == "cpu":                       # std::clamp(u, 0, cap-1) on size_t
            return min(u, (cap - 1) % width), True
        return ((cap - 1) % width if u >= cap else u), True   # u >= cap ? cap-1 : u
    if oob == OOB.Wrap:
        return u % cap, True
    if oob == OOB.Zero:
        return u, u < cap
    return u, True


@pytest.fixture(scope="session")
def native_available():
    """Skip a test where the native backend (a C++ compiler) is missing."""
    from ptogpu.backend import backend_available
    ok, why = backend_available("native")
    if not ok:
        pytest.skip(f"no native backend: {why}")


# The instruction tests run twice: on the single core, and on cores of 3 identical instances
# (tests/batch_mirror.py), every read checked byte for byte in every instance.
BATCHED_MODULES = {
    "test_mgather_ub", "test_mgather_oob", "test_mgather_alias", "test_mgather_store_order",
    "test_mgather_checks", "test_mgather_nz", "test_mgather_l1", "test_cpu_sim", "test_datamove",
    "test_reg", "test_asc", "test_dma", "test_mscatter", "test_tgatherb", "test_tinterleave",
    "test_events", "test_tile", "test_tensor", "test_tgather",
}
# (The kernel modules test_kernels_* compare native with numpy on one core; the batched
# launches are compared with single cores, on every target, in tests/test_batch_core.py.)


def pytest_generate_tests(metafunc):
    if metafunc.module.__name__.rsplit(".", 1)[-1] in BATCHED_MODULES:
        metafunc.fixturenames.append("_instances")
        metafunc.parametrize("_instances", [1, 3], ids=["batch1", "batch3"], indirect=True)


@pytest.fixture
def _instances(request):
    if request.param == 1:
        yield 1
        return
    from batch_mirror import mirrored
    with mirrored(request.param):
        yield request.param


@pytest.fixture(params=["native", "stand-in", pytest.param("cupy", marks=pytest.mark.gpu)])
def kernel_backend(request, monkeypatch):
    """The Core backend a kernel test compares with NumPy: ``native`` (the host shim), the cupy
    glue driven by a stand-in device that runs the host-shim build (no GPU needed: the RawModule
    per .cu file, the argument order, the arenas copied in and back), and ``cupy`` on a real
    device (gpu-marked; skipped where none answers)."""
    from ptogpu.backend import backend_available
    if request.param == "cupy":
        ok, why = backend_available("cupy")
        if not ok:
            pytest.skip(f"cupy backend unavailable: {why}")
        return "cupy"
    if request.param == "stand-in":
        from test_kernels_mgather import _FakeCupy
        _FakeCupy().install(monkeypatch)
        return "cupy"
    return "native"
