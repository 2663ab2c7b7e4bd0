"""run_batch on native runs MGATHER into UB (32-bit indices, counter generators) through the
executing engine's kernels per tile (ptogpu.execution.engine, cuda_src/fuzz.cu
pto_batch_exec): the bytes, fault codes, digests and stray-write marks must be the batched
core's, which runs the same kernels over N blocks; a kernel that writes outside its
destination is marked, tile by tile."""
from __future__ import annotations

import numpy as np
import pytest

from ptogpu.backend import native_backend
from ptogpu.execution import batch, engine
from ptogpu.execution.batch import run_batch, run_chunk
from ptogpu.execution.config import FuzzConfig
from ptogpu.errors import PtoCheckError
from ptogpu.execution.rng import Generator
from ptogpu.execution.single import run_single

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")


def configs(n: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        mode = str(rng.choice(["elem", "row"]))
        R, C = int(rng.integers(1, 40)), int(rng.integers(1, 70))
        kw = dict(mode=mode, target=str(rng.choice(["cpu", "a2a3", "a5"])),
                  oob=str(rng.choice(["undefined", "clamp", "wrap", "zero"])),
                  dtype=str(rng.choice(["uint8", "half", "float32", "uint64"])),
                  index_dtype=str(rng.choice(["int32", "uint32"])), rows=R, cols=C,
                  dst_fill=int(rng.choice([0, 0xAB])))
        if mode == "row":
            kw["table_shape"] = (1, 1, 1, int(rng.integers(1, 60)), C)
        else:
            kw["table_size"] = int(rng.choice([7, 100, 1000, 4096]))
        if rng.random() < 0.15:
            kw.update(rows=1, cols=1)                     # A5's scalar path
        cfg = FuzzConfig(**kw)
        out.append((cfg, Generator(str(rng.choice(["mixed", "edge", "uniform", "boundary", "dup"])), int(seed))))
    return out


def _core(monkeypatch, cfg, inst, gen, keep=True):
    with monkeypatch.context() as m:
        m.setattr(batch.engine, "covers", lambda c, g: False)
        return run_chunk(cfg, inst, gen, "native", keep)


@pytest.mark.parametrize("cfg, gen", configs(40, 3), ids=lambda x: getattr(x, "label", repr(x)).replace(" ", "_"))
def test_the_engine_gives_the_batched_cores_bytes_faults_and_digest(cfg, gen, monkeypatch):
    inst = np.arange(10**9, 10**9 + 600, dtype=np.int64)
    try:
        run_single(cfg, gen(inst[:1], cfg.n_idx, cfg.cap)[0])
    except PtoCheckError:
        pytest.skip("a configuration the target's checks reject")
    assert engine.covers(cfg, gen) or cfg.oob == "wrap"
    got = run_chunk(cfg, inst, gen, "native")
    want = _core(monkeypatch, cfg, inst, gen)
    assert got.path == want.path == "kernel"
    np.testing.assert_array_equal(got.faults, want.faults)
    np.testing.assert_array_equal(got.outputs, want.outputs)
    assert got.digest == want.digest and not got.stray.any() and not want.stray.any()
    assert run_chunk(cfg, inst, gen, "native", keep_outputs=False).digest == want.digest


def test_run_batch_takes_the_engine_and_agrees_with_numpy():
    cfg = FuzzConfig(rows=16, cols=16, table_size=4096, oob="undefined")
    got = run_batch(cfg, 5000, seed=4, backend="native", keep_outputs=False)
    ref = run_batch(cfg, 5000, seed=4, backend="numpy", keep_outputs=False)
    assert (got.digest, got.n_faults, got.path) == (ref.digest, ref.n_faults, "kernel") and got.n_faults
    assert engine.covers(cfg, Generator("mixed"))
    assert not engine.covers(cfg, Generator(lambda i, n, c: np.zeros((len(i), n))))     # not a counter
    assert not engine.covers(cfg.with_(index_dtype="int64"), Generator("mixed"))


@pytest.mark.parametrize("where", ["ub", "gm", "idx"])
def test_a_kernel_that_writes_outside_its_destination_is_marked_per_tile(where):
    """The kernel's destination moved 4 KiB further into UB, into GM, or onto the index tile:
    every tile that writes (the clean ones: a faulting tile writes nothing) is marked."""
    from ptogpu.backend import sources
    from ptogpu.isa.mgather.kernels import K as M
    td = sources.enum_values("common.cuh")
    cfg = FuzzConfig(oob="undefined", table_size=4096, target="a5", rows=4, cols=8)
    side = engine._world(cfg)[0]
    saved = side.params.copy()
    d = M.MG_DST
    try:
        if where == "gm":
            side.params[d + td["TD_SPACE"]], side.params[d + td["TD_ADDR"]] = 0, 0
        elif where == "ub":
            side.params[d + td["TD_ADDR"]] += 4096
        else:
            side.params[d + td["TD_ADDR"]] = 0
        _, code, _, stray = engine.run_tiles(cfg, Generator("edge", 2), 0, 3000)
    finally:
        side.params[:] = saved
    assert code.any() and (code == 0).any()
    np.testing.assert_array_equal(stray, code == 0)
    _, code, _, stray = engine.run_tiles(cfg, Generator("edge", 2), 0, 3000)
    assert not stray.any()                               # the world is clean again


def test_a_table_too_big_for_a_private_copy_per_thread_runs_on_cores(monkeypatch):
    cfg = FuzzConfig(rows=4, cols=8, table_size=1 << 16)
    assert engine.covers(cfg, Generator("uniform"))
    monkeypatch.setattr(engine, "PRIVATE_GM", 1 << 16)
    assert not engine.covers(cfg, Generator("uniform"))
    got = run_batch(cfg, 300, generator="uniform", backend="native", keep_outputs=False)
    assert got.path == "kernel" and got.digest == run_batch(cfg, 300, generator="uniform", backend="numpy",
                                                             keep_outputs=False).digest
