"""Per-instance control flow: a kernel that decides on values it reads back (a loop's exit, a
branch on a loaded scalar, a mask of raw bytes) gives every instance of a core of N exactly the
bytes and the fault its single core gives, on numpy and native, and a campaign's verdicts do not
depend on how its instances are chunked (docs/batch.md, "Programs")."""
from __future__ import annotations

import os

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.errors import EmulatorBug, KernelError
from ptogpu.execution.inputs import draw, indices
from ptogpu.execution.program import Program, load, run_program
from ptogpu.fuzz.user_kernel import ENGINE, PARTED, kernel

HERE = os.path.dirname(os.path.abspath(__file__))
PATHS = os.path.join(HERE, "kernels", "paths.py")
V = pto.TileType.Vec


def _single(prog, target, backend, data, k):
    """Instance k alone, on a core of one instance (its fault raised and caught)."""
    return run_program(prog, target, backend, {n: v[k: k + 1] for n, v in data.items()})


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("name", ["chase", "branch", "masked"])
def test_every_instance_ends_as_its_single_core(name, target, backend):
    prog = load(f"{PATHS}:{name}")
    data = draw(prog.inputs, 3, np.arange(96))
    run = run_program(prog, target, backend, data)
    assert run.runs > 1                         # (the instances do part: the test means something)
    for k in range(96):
        one = _single(prog, target, backend, data, k)
        assert one.outputs[0].tobytes() == run.outputs[k].tobytes(), k
        assert one.codes[0] == run.codes[k], k
        assert str(one.faults[0]) == str(run.faults[k]), k


@pytest.mark.parametrize("name", ["chase", "branch"])
def test_campaign_verdicts_do_not_depend_on_the_chunking(name):
    got = {}
    for chunk in (1, 7, 40, 120):
        rep = kernel(f"{PATHS}:{name}", n=120, chunk=chunk, backend="numpy", shrink=False)
        got[chunk] = (rep.divergent, rep.faults_a, rep.faults_b,
                      sorted((c.name, c.count, tuple(c.first)) for c in rep.classes.values()))
        assert rep.engine.startswith(PARTED if chunk > 1 else ENGINE)
    assert got[1][0] > 0                        # cpu and a5 differ on some instances
    assert got[1] == got[7] == got[40] == got[120]


def test_a_divergence_inside_a_data_dependent_loop_is_found_at_its_call():
    rep = kernel(f"{PATHS}:chase", n=120, backend="numpy", shrink=False)
    assert rep.unexplained == 0 and rep.divergent > 0
    assert all("MGATHER at paths.py" in c.name and "index cast width" in c.name for c in rep.classes.values())


def test_core_program_reads_one_value_and_parks_the_instances_that_differ():
    with pto.Core("a5", "numpy", batch=4) as core:
        t = pto.Tile[V, pto.int32, 1, 8]()
        pto.TASSIGN(t, 0)
        t.set(np.array([[[1] * 8], [[1] * 8], [[2] * 8], [[1] * 8]], np.int32))
        with core.program():
            assert not core.batched
            got = t.numpy()
            assert got.shape == (1, 8) and (got == 1).all()
            assert core.parked.tolist() == [False, False, True, False]
            assert core.live.tolist() == [True, True, False, True]
            t.set(np.full((1, 8), 7, np.int32))           # the path's instances only
        assert core.read("ub", 0, 4)[:, 0].tolist() == [7, 7, 2, 7]


def _catches(ids, out):
    it = pto.Tile[V, pto.int32, 1, 8]()
    pto.TASSIGN(it, 0)
    try:
        pto.TASSIGN(it, 3)                      # misaligned: a trap
    except pto.PtoFault:
        pass
    pto.TSTORE(pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]](out), it)


def _exits(ids, out):
    raise SystemExit(3)


def _stores(ids, out):
    it = pto.Tile[V, pto.int32, 1, 8]()
    pto.TASSIGN(it, 0)
    pto.TSTORE(pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]](out), it)


def test_an_exception_inside_ptogpu_is_an_emulator_bug_not_the_kernels(monkeypatch):
    """What ptogpu raises that is not a PtoError (a broken rule, say) is ptogpu's bug: the
    campaign ends as an emulator bug (exit 1), never as bad input (exit 2)."""
    from ptogpu.isa.datamove import api

    monkeypatch.setattr(api, "_tile_gt_addrs", divmod)      # (a builtin: the raise is TSTORE's line)
    prog = Program(_stores, {"ids": indices(8, cap=64)}, {"out": (8, pto.int32)}, {}, "test:_stores")
    with pytest.raises(EmulatorBug, match="ptogpu raised TypeError: divmod.*ptogpu/isa/datamove/api.py"):
        run_program(prog, "a5", "numpy", draw(prog.inputs, 0, np.arange(5)))


@pytest.mark.parametrize("n", [1, 5, 70])
def test_a_kernel_that_catches_its_fault_is_an_error(n):
    prog = Program(_catches, {"ids": indices(8, cap=64)}, {"out": (8, pto.int32)}, {}, "test:_catches")
    with pytest.raises(KernelError, match="PtoFault"):
        run_program(prog, "a5", "numpy", draw(prog.inputs, 0, np.arange(n)))


def test_a_kernel_that_exits_is_a_kernel_error():
    prog = Program(_exits, {"ids": indices(8, cap=64)}, {"out": (8, pto.int32)}, {}, "test:_exits")
    for n in (1, 5):
        with pytest.raises(KernelError, match="SystemExit: 3"):
            run_program(prog, "a5", "numpy", draw(prog.inputs, 0, np.arange(n)))


def test_a_kept_core_holds_no_frames_of_its_callers():
    """A fault raised into the kernel is kept with the core's faults: without its traceback,
    whose frames would hold the caller's arrays (a campaign's chunk outputs) while the core
    waits in the pool."""
    from ptogpu.execution import program as P
    prog = load(f"{PATHS}:masked")
    data = draw(prog.inputs, 0, np.arange(70))
    data["start"][:] = 1 << 20                  # every instance faults: the fault ends the kernel
    run = run_program(prog, "a5", "numpy", data)
    assert (run.codes != 0).all()
    cores = [e[1] for e in P._POOL.values() if e[0] is prog]
    assert cores and all(f is None or f.__traceback__ is None for c in cores for f in c.faults)
