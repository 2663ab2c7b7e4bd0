"""Cores of N instances: each instance byte for byte what a single core does with its inputs.

The reference here is N single cores (batch=1), one per instance, run with that instance's
inputs: programs of TLOAD, MGATHER (every target, mode and OOB rule), MSCATTER and TSTORE
whose index tiles differ per instance, some of them out of range so that instances fault at
different instructions. Whole memories are compared, and every fault (type and message).
"""
from __future__ import annotations


import numpy as np
import pytest

import ptogpu as pto
from conftest import TARGETS, V

N = 6
GT = pto.GlobalTensor


def _gt(dtype, n, ptr):
    return GT[dtype, pto.Shape[1, 1, 1, 1, n], pto.Stride[n, n, n, n, 1]](ptr)


def _table(dtype, rows, cols, ptr):
    return GT[dtype, pto.Shape[1, 1, 1, rows, cols], pto.Stride[rows * cols, rows * cols,
                                                                  rows * cols, cols, 1]](ptr)


def _program(target, mode, oob, tab_np, ids, rows=8, cols=16):
    """A kernel: load an index tile from GM, MGATHER, store the result to GM, then gather again
    from the stored result (a second instruction that reads what the first wrote)."""
    def run(core):
        table = core.gm_put(tab_np)
        gi = core.gm_put(ids, per_instance=core.batch > 1)
        out = core.gm_alloc(rows * cols, pto.float32)
        nidx = ids.shape[-1]
        I = pto.Tile[V, pto.int32, 1 if mode == pto.Coalesce.Row else rows,
                     nidx if mode == pto.Coalesce.Row else cols]
        D = pto.Tile[V, pto.float32, rows, cols]
        it, dt = I(), D()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, 4096)
        pto.TLOAD(it, GT[pto.int32, pto.Shape[1, 1, 1, I.Rows, I.Cols],
                         pto.Stride[I.Numel, I.Numel, I.Numel, I.Cols, 1]](gi))
        tab = _table(pto.float32, tab_np.size // cols, cols, table) if mode == pto.Coalesce.Row \
            else _gt(pto.float32, tab_np.size, table)
        pto.MGATHER[mode, oob](dt, tab, it)
        pto.TSTORE(_table(pto.float32, rows, cols, out), dt)
        pto.MGATHER[mode, oob](dt, tab, it)
        return out
    return run


def _ids(rng, mode, rows, cols, cap):
    n = (N, 1, rows) if mode == pto.Coalesce.Row else (N, rows, cols)
    ids = rng.integers(0, cap, n).astype(np.int32)
    ids[1].flat[rng.integers(ids[1].size)] = cap + 7          # out of range in instance 1
    ids[3].flat[0] = -5                                     # negative in instance 3
    ids[4].flat[-1] = 1 << 30                               # far out in instance 4
    return ids.reshape(N, -1)


def _singles(target, backend, run, ids):
    cores, faults = [], []
    for k in range(N):
        with pto.Core(target, backend) as c:
            try:
                run_one = run(ids[k])
                run_one(c)
                faults.append(None)
            except pto.PtoFault as e:
                faults.append(e)
        cores.append(c)
    return cores, faults


def _same_memories(batched, singles):
    for space in ("gm", "ub", "l1"):
        rows = batched.banks[space].rows()
        for k, c in enumerate(singles):
            a = c.arena(space).data
            assert rows.shape[1] == a.size, space
            diff = np.flatnonzero(rows[k] != a)
            assert diff.size == 0, f"instance {k} {space} differs at byte {diff[0]:#x}"


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", [pto.Coalesce.Row, pto.Coalesce.Elem])
@pytest.mark.parametrize("oob", list(pto.GatherOOB))
def test_batched_mgather_program_is_each_single_core(target, backend, mode, oob):
    if backend == "native":
        pytest.importorskip("ptogpu.backend.native_backend")
        if pto.Core(target, "auto").backend == "numpy":
            pytest.skip("no C++ compiler")
    rng = np.random.default_rng(hash((target, mode.name, oob.name)) & 0xFFFF)
    rows, cols, trows = 8, 16, 12
    tab_np = rng.standard_normal(trows * cols).astype(np.float32)
    cap = trows if mode == pto.Coalesce.Row else trows * cols
    ids = _ids(rng, mode, rows, cols, cap)
    if target == "cpu" and mode == pto.Coalesce.Row:
        ids = ids % cap                                      # cpu Row reads whole table rows
    prog = _program(target, mode, oob, tab_np, ids)
    singles, want = _singles(target, backend, lambda one: _program(target, mode, oob, tab_np,
                                                                   one[None]), ids)
    with pto.Core(target, backend, batch=N) as core:
        prog(core)
    assert [None if e is None else (type(e), str(e)) for e in core.faults] == \
           [None if e is None else (type(e), str(e)) for e in want]
    _same_memories(core, singles)
    assert core.steps["at_once"] > 0, core.steps     # a batch rule ran, not only a loop
    assert core.faults[0] is None and core.faults[2] is None      # in range: no fault
    if oob == pto.GatherOOB.Undefined and not (target == "cpu" and mode == pto.Coalesce.Row):
        assert core.faults[3] is not None                         # -5: far outside GM


def _index_and_data_tiles(core, ids):
    """A [1, 16] int32 index tile loaded from per-instance ``ids``, and a [1, 16] float32 tile."""
    gi = core.gm_put(ids, per_instance=True)
    it, dt = pto.Tile[V, pto.int32, 1, 16](), pto.Tile[V, pto.float32, 1, 16]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(dt, 1024)
    pto.TLOAD(it, _gt(pto.int32, 16, gi))
    return it, dt


def test_faulted_instance_stops_and_keeps_its_memory():
    with pto.Core("a5", "numpy", batch=3) as core:
        tab = core.gm_put(np.arange(32, dtype=np.float32))
        ids = np.tile(np.arange(16, dtype=np.int32), (3, 1))
        ids[1, 5] = 1000
        it, dt = _index_and_data_tiles(core, ids)
        dt.set(np.full((1, 16), 7, np.float32))
        pto.MGATHER[pto.Coalesce.Elem](dt, _gt(pto.float32, 32, tab), it)
        assert [e is None for e in core.faults] == [True, False, True]
        assert "dst(0,5) with index 0x3e8" in str(core.faults[1])
        pto.TLOAD(dt, _gt(pto.float32, 16, tab + 16))        # skipped on instance 1
        got = dt.numpy()
        assert got.shape == (3, 1, 16)
        assert (got[0] == np.arange(16, 32)).all() and (got[2] == got[0]).all()
        assert (got[1] == 7).all()                           # nothing written after its fault
        assert list(core.live) == [True, False, True]


def test_check_error_is_raised_at_once_and_batch_1_raises_faults():
    with pto.Core("a5", "numpy", batch=4) as core:
        t = pto.Tile[V, pto.float32, 1, 16]()
        pto.TASSIGN(t, 0)
        with pytest.raises(pto.PtoCheckError):
            pto.MGATHER(t, _gt(pto.int32, 16, core.gm_alloc(16, pto.int32)), t)
        assert core.faults == [None] * 4
        pto.TASSIGN(t, 10 ** 9)                              # a uniform fault: every instance
        assert all(isinstance(e, pto.PtoFault) for e in core.faults)
    with pto.Core("a5", "numpy") as core:
        t = pto.Tile[V, pto.float32, 1, 16]()
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(t, 10 ** 9)
        assert core.batch == 1 and core.faults == [None]


def test_inputs_and_reads_have_the_instance_axis():
    with pto.Core("a2a3", "numpy", batch=5) as core:
        with pytest.raises(ValueError, match="leading dimension"):
            core.gm_put(np.zeros((4, 3), np.int32), per_instance=True)
        p = core.gm_put(np.arange(15, dtype=np.int16).reshape(5, 3), per_instance=True)
        assert p.numpy(3).shape == (5, 3) and (p.numpy(3)[:, 0] == [0, 3, 6, 9, 12]).all()
        assert core.read("gm", p.addr, 2).shape == (5, 2)
        with pytest.raises(ValueError, match="leading dimension"):
            core.write("ub", 0, np.zeros((4, 3), np.uint8), per_instance=True)
        core.write("ub", 0x1000, np.arange(10, dtype=np.uint16).reshape(5, 2), per_instance=True)
        assert (core.read("ub", 0x1000, 4).view(np.uint16) == np.arange(10).reshape(5, 2)).all()
        t = pto.Tile[V, pto.int16, 2, 16]()
        pto.TASSIGN(t, 64)
        t.set(np.ones((2, 16), np.int16))
        assert np.asarray(t).shape == (5, 2, 16)
        per = np.arange(5 * 32, dtype=np.int16).reshape(5, 2, 16)
        t.set(per)
        assert (t.numpy() == per).all() and t.raw().shape == (5, 32)
        assert _gt(pto.int16, 3, p).numpy().shape == (5, 1, 1, 1, 1, 3)
    for bad in (0, -1, 2.5, True, 1 << 30):
        with pytest.raises(ValueError, match="batch"):
            pto.Core("a5", "numpy", batch=bad)


def test_mscatter_runs_per_instance_and_outcomes_ask_for_one():
    with pto.Core("a5", "numpy", batch=3) as core:
        out = core.gm_alloc(64, pto.float32)
        ids = np.stack([np.arange(16, dtype=np.int32) * (k + 1) for k in range(3)])
        it, st = _index_and_data_tiles(core, ids)
        st.set(np.arange(1, 17, dtype=np.float32)[None])
        pto.MSCATTER[pto.Coalesce.Elem](_gt(pto.float32, 64, out), st, it)
        g = out.numpy(64)
        assert g[0, 15] == 16 and g[1, 30] == 16 and g[2, 45] == 16
        assert [e is None for e in core.faults] == [True, True, True]
        with pytest.raises(pto.PtoError, match="batch=1"):
            pto.MSCATTER[pto.Coalesce.Elem].outcomes(_gt(pto.float32, 64, out), st, it)


def test_registers_are_per_instance():
    with pto.Core("a5", "numpy", batch=2) as core:
        u = core.ub_ptr(0, pto.int32)
        t = pto.Tile[V, pto.int32, 1, 64]()
        pto.TASSIGN(t, 0)
        t.set(np.stack([np.arange(64), -np.arange(64)]).astype(np.int32)[:, None])
        r = pto.reg.RegTensor[pto.int32]()
        pto.reg.LoadAlign(r, u)
        assert r.numpy().shape == (2, 64) and (r.numpy()[1] == -np.arange(64)).all()
        pto.reg.StoreAlign(u + 64, r)
        assert (core.read("ub", 256, 256).view(np.int32)[1] == -np.arange(64)).all()


def test_mirror_mode_catches_an_instance_that_differs():
    """The harness that runs the instruction tests on cores of 3 fails when one instance's
    bytes differ (so its passing means every instance matched)."""
    from batch_mirror import mirrored
    with mirrored(3):
        with pto.Core("a5", "numpy") as core:
            t = pto.Tile[V, pto.float32, 1, 8]()
            pto.TASSIGN(t, 0)
            assert t.numpy().shape == (1, 8)                 # the single core's view
            core.banks["ub"].unshare()                       # (a fresh core's banks are one shared row)
            core.banks["ub"].put(np.array([2]), np.array([4]), np.array([[1]], np.uint8))   # instance 2 differs
            with pytest.raises(AssertionError, match="instance 2"):
                t.numpy()


def test_batch_rule_never_acts_on_one_instance():
    """While all instances run at once, any step without a batch rule that touches bytes is
    refused before it writes, and runs instance by instance instead."""
    from ptogpu.errors import NotBatched
    from ptogpu.memory import AllInstances, Bank
    a = AllInstances("ub", 0, bank=Bank("ub", 64, 2))
    for f in (lambda: a.data, lambda: a.read(0, 1), lambda: a.write(0, b"x"),
              lambda: a.gather(np.zeros(1, np.int64), np.uint8)):
        with pytest.raises(NotBatched):
            f()
    assert a.size == 64
    for rows, at_once in ((4, 1), (6, 0)):
        # A2/A3 Row runs the DMA engine's bursts: batch-first while the rows are apart; rows
        # that share storage (6 valid rows in a 4-row tile) overwrite each other in loop
        # order, which has no batch rule
        with pto.Core("a2a3", "numpy", batch=2) as core:
            tab = core.gm_put(np.stack([np.arange(64), np.arange(64) + 100]).astype(np.float32),
                              per_instance=True)
            it = pto.Tile[V, pto.int32, 1, 8, pto.BLayout.RowMajor, 1, pto.DYNAMIC](rows)
            dst = pto.Tile[V, pto.float32, 4, 16, pto.BLayout.RowMajor, pto.DYNAMIC, 16](rows)
            pto.TASSIGN(it, 0)
            pto.TASSIGN(dst, 512)
            it.set(np.array([[3, 1, 0, 2, 1, 0][:rows]] * 2, np.int32)[:, None])
            pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Undefined](dst, _table(pto.float32, 4, 16, tab), it)
            assert (core.steps["per_instance"], core.steps["at_once"]) == (1 - at_once, at_once), rows
            assert core.faults == [None, None]
            assert (dst.raw()[1, :16] == np.arange(48, 64) + 100).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("backend, named", [("numpy", 0.25), ("native", 0.25), ("native", 1.0)],
                         ids=["numpy", "native", "native-kernel-names-faults"])
def test_tgatherb_and_tinterleave_run_all_instances_at_once(target, backend, named, monkeypatch):
    """Their NumPy semantics are batch-first: one step over every instance, each instance's
    bytes and first fault (offsets past UB in some instances) those of a single core. On
    native the TGATHERB kernel runs the clean instances and the semantics name each faulting
    one's fault where few fault (``named``: the share allowed), else the batch rule runs."""
    if pto.Core(target, "auto").backend == "numpy" and backend == "native":
        pytest.skip("no C++ compiler")
    from ptogpu.isa.tgatherb import kernels as tgk
    monkeypatch.setattr(tgk, "NAMED_FAULTS", named)
    asked = []
    real = pto.Core.fault_of
    monkeypatch.setattr(pto.Core, "fault_of", lambda self, k, step: asked.append(k) or real(self, k, step))
    rng = np.random.default_rng(3)
    offs = (rng.integers(0, 12, (N, 2, 16)) * 32).astype(np.uint32)
    offs[1, 0, 5] = 0x7FFFFFE0                       # instance 1: a source block past UB
    offs[4, 1, 2] = 0xFFFFFFE0                       # instance 4 (second row; skipped on the CPU sim)
    data = rng.integers(-500, 500, (N, 2, 2, 32)).astype(np.int16)

    def run(core, k):
        per = k is None
        sel = (lambda a: a) if per else (lambda a: a[k])
        src, dst = pto.Tile[V, pto.float32, 4, 64](), pto.Tile[V, pto.float32, 2, 64]()
        off = pto.Tile[V, pto.uint32, 2, 16]()
        for t, a in ((src, 0x0), (off, 0x400), (dst, 0x800)):
            pto.TASSIGN(t, a)
        src.set(np.arange(256, dtype=np.float32).reshape(4, 64))
        off.set(sel(offs))
        T16 = pto.Tile[V, pto.int16, 2, 32]          # (every input in place before the first
        s0, s1, d0, d1 = T16(), T16(), T16(), T16()  # instruction: a single core stops at its fault)
        for j, t in enumerate((s0, s1, d0, d1)):
            pto.TASSIGN(t, 0x1000 + 0x100 * j)
        s0.set(sel(data[:, 0]))
        s1.set(sel(data[:, 1]))
        pto.TGATHERB(dst, src, off)
        if core.target.interleave.supported:
            pto.TINTERLEAVE(d1, d0, s1, s0)
    singles = []
    for k in range(N):
        with pto.Core(target, backend) as c:
            try:
                run(c, k)
                c.faults = [None]
            except pto.PtoFault as e:
                c.faults = [e]
        singles.append(c)
    with pto.Core(target, backend, batch=N) as core:
        run(core, None)
    assert [None if e is None else (type(e), str(e)) for e in core.faults] == \
        [None if c.faults[0] is None else (type(c.faults[0]), str(c.faults[0])) for c in singles]
    assert (core.faults[1] is None) == (target == "cpu")    # the CPU sim skips such blocks
    _same_memories(core, singles)
    assert core.steps["per_instance"] == 0, core.steps
    faulting = [k for k, e in enumerate(core.faults) if e is not None]
    kernel = backend == "native" and len(faulting) <= named * N    # else the batch rule ran
    assert asked == (faulting if kernel else []), asked


def _ops_program(k_data):
    """TGATHERB, TINTERLEAVE, a GM->L1 DMA copy and a register Gather, on per-instance data."""
    from ptogpu import asc, reg

    def run(core):
        per = core.batch > 1
        data = k_data if per else k_data[None]
        Vt = pto.TileType.Vec
        src, dst = pto.Tile[Vt, pto.float32, 1, 64](), pto.Tile[Vt, pto.float32, 1, 64]()
        off = pto.Tile[Vt, pto.uint32, 1, 8]()
        for t, a in ((src, 0x0), (off, 0x100), (dst, 0x200)):
            pto.TASSIGN(t, a)
        src.set(data[:, None, :64].astype(np.float32) if per else data[0, None, :64].astype(np.float32))
        offs = ((data[:, 64:72] % 8) * 32).astype(np.uint32)
        off.set(offs[:, None] if per else offs[0, None])
        pto.TGATHERB(dst, src, off)
        T16 = pto.Tile[Vt, pto.int16, 1, 16]
        s0, s1, d0, d1 = T16(), T16(), T16(), T16()
        for j, t in enumerate((s0, s1, d0, d1)):
            pto.TASSIGN(t, 0x400 + 0x40 * j)
        a16 = data[:, :16].astype(np.int16)
        s0.set(a16[:, None] if per else a16[0, None])
        s1.set((a16 + 100)[:, None] if per else (a16 + 100)[0, None])
        pto.TINTERLEAVE(d1, d0, s1, s0)
        g = core.gm_put(data.astype(np.uint8), per_instance=per) if per else \
            core.gm_put(data[0].astype(np.uint8))
        asc.asc_copy_gm2l1_align(core.l1_ptr(0, pto.uint8), g, 2, 40, 0, 0, False, 0, 48, 64)
        core.write("ub", 0x1000, np.arange(64, dtype=np.float32) * 10)
        ix = (data[:, :64] % 64).astype(np.uint32)
        it = pto.Tile[Vt, pto.uint32, 1, 64]()
        pto.TASSIGN(it, 0x2000)
        it.set(ix[:, None] if per else ix[0, None])
        index, out = reg.RegTensor[pto.uint32](), reg.RegTensor[pto.float32]()
        mask, _ = reg.UpdateMask[pto.float32](64)
        reg.LoadAlign(index, core.ub_ptr(0x2000, pto.uint32))
        reg.Gather(out, core.ub_ptr(0x1000, pto.float32), index, mask)
        reg.StoreAlign(core.ub_ptr(0x3000, pto.float32), out)
    return run


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_other_instructions_batched_are_each_single_core(backend):
    if pto.Core("a5", "auto").backend == "numpy" and backend == "native":
        pytest.skip("no C++ compiler")
    rng = np.random.default_rng(7)
    data = rng.integers(0, 200, (N, 200))
    singles = []
    for k in range(N):
        with pto.Core("a5", backend) as c:
            _ops_program(data[k])(c)
        singles.append(c)
    with pto.Core("a5", backend, batch=N) as core:
        _ops_program(data)(core)
    assert core.faults == [None] * N
    _same_memories(core, singles)
    if backend == "native":     # TGATHERB, TINTERLEAVE and the DMA copy: one launch over N blocks
        assert core.steps["at_once"] >= 3, core.steps


def _scatter_program(ids, atomic):
    def run(core):
        per = core.batch > 1
        out = core.gm_alloc(64, pto.float32)
        gi = core.gm_put(ids if per else ids[0], per_instance=per)
        It, St = pto.Tile[V, pto.int32, 1, 16], pto.Tile[V, pto.float32, 1, 16]
        it, st = It(), St()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(st, 1024)
        pto.TLOAD(it, _gt(pto.int32, 16, gi))
        st.set(np.arange(1, 17, dtype=np.float32)[None])
        pto.MSCATTER[pto.Coalesce.Elem, atomic](_gt(pto.float32, 64, out), st, it)
        pto.MSCATTER[pto.Coalesce.Elem, atomic](_gt(pto.float32, 64, out), st, it)
    return run


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("atomic", [pto.ScatterAtomicOp.None_, pto.ScatterAtomicOp.Add])
def test_batched_mscatter_is_each_single_core(backend, target, atomic):
    if pto.Core(target, "auto").backend == "numpy" and backend == "native":
        pytest.skip("no C++ compiler")
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 40, (N, 16)).astype(np.int32)     # collisions; an atomic sums them
    ids[2, 7] = 1 << 24                                      # instance 2 writes outside GM
    singles, want = [], []
    for k in range(N):
        with pto.Core(target, backend) as c:
            try:
                _scatter_program(ids[k:k + 1], atomic)(c)
                want.append(None)
            except pto.PtoFault as e:
                want.append(str(e))
        singles.append(c)
    with pto.Core(target, backend, batch=N) as core:
        _scatter_program(ids, atomic)(core)
    assert [None if e is None else str(e) for e in core.faults] == want
    assert want[0] is None and (want[2] is not None or target == "a5")   # A5 Last: out-of-range stores dropped
    if atomic == pto.ScatterAtomicOp.Add or target != "a5":   # A5's default kernel may race
        _same_memories(core, singles)
    if backend == "native":
        assert core.steps["at_once"] >= 2, core.steps


def _configs():
    from test_batch import random_configs
    return random_configs(36) + random_configs(24, 1)


@pytest.mark.parametrize("cfg", _configs(), ids=lambda c: c.label.replace(" ", "_"))
def test_run_instances_is_run_single_per_instance(cfg):
    """The batch API's public-API path runs the single-instance program on cores of N: every
    instance byte for byte, with its own fault message, as ``run_single`` (numpy; native for
    the GM->L1 and UB MGATHERs of the second set)."""
    from ptogpu.execution import Generator
    from ptogpu.execution.single import run_instances, run_single
    vals = Generator("mixed", 5)(np.arange(12), cfg.n_idx, cfg.cap)
    backends = ["numpy"] + (["native"] if cfg.instr == "mgather" and
                            pto.Core("a5", "auto").backend != "numpy" else [])
    for be in backends:
        out, faults = run_instances(cfg, vals, be)
        again = run_instances(cfg, vals, be)              # on the same core, cleared
        assert np.array_equal(out, again[0]) and faults == again[1]
        for i in range(len(vals)):
            o, f = run_single(cfg, vals[i], be)
            assert out[i].tobytes() == o.tobytes(), (be, i, f)
            assert faults[i] == f, (be, i)


def test_bank_is_one_shared_row_until_an_instance_is_written_alone():
    """A table put once for N instances is held once (kernels see it with stride 0); the
    first write of one instance alone gives every instance its own copy of what was there."""
    from ptogpu.memory import Bank
    b = Bank("gm", 0, 5, growable=True)
    a = b.alloc(8)
    b.write_rows(a, np.arange(8, dtype=np.uint8)[None])
    assert b.shared and b.flat.size == b.stride                      # one row for 5 instances
    assert b.launch_view(written=False)[2] == 0
    with pytest.raises(ValueError):                                  # no write behind its back
        b.rows()[1, 0] = 9
    b.put(np.arange(5), np.array([2]), np.array([7], np.uint8))      # the same in every one
    assert b.shared and (b.rows()[:, 2] == 7).all()
    b.put(np.array([3]), np.array([4]), np.array([[99]], np.uint8))  # instance 3 alone
    assert not b.shared
    want = np.tile(np.array([0, 1, 7, 3, 4, 5, 6, 7], np.uint8), (5, 1))
    want[3, 4] = 99
    assert (b.rows()[:, :8] == want).all()
    assert b.launch_view(written=False)[2] == b.stride


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", TARGETS)
def test_shared_table_program_is_each_single_core(target, backend):
    """The table is put once (shared), the indices set per instance in UB; MGATHER reads the
    shared table, TSTORE then writes GM per instance and a second MGATHER reads it back."""
    if backend == "native" and pto.Core(target, "auto").backend == "numpy":
        pytest.skip("no C++ compiler")
    rng = np.random.default_rng(7)
    tab_np = rng.standard_normal(64).astype(np.float32)
    ids = rng.integers(0, 64, (N, 1, 16)).astype(np.int32)
    ids[2, 0, 3] = 1 << 30                                           # instance 2 faults

    def run(core, idx):
        tab = _gt(pto.float32, 64, core.gm_put(tab_np))
        out = core.gm_alloc(16, pto.float32)
        it, dt = pto.Tile[V, pto.int32, 1, 16](), pto.Tile[V, pto.float32, 1, 16]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, 1024)
        it.set(idx)
        shared = core.banks["gm"].shared
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Undefined](dt, tab, it)
        pto.TSTORE(_gt(pto.float32, 16, out), dt)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dt, _gt(pto.float32, 16, out), it)
        return shared
    singles, want = [], []
    for k in range(N):
        with pto.Core(target, backend) as c:
            try:
                run(c, ids[k])
                want.append(None)
            except pto.PtoFault as e:
                want.append(str(e))
        singles.append(c)
    with pto.Core(target, backend, batch=N) as core:
        assert run(core, ids)                                        # MGATHER ran on a shared GM
    assert not core.banks["gm"].shared                               # TSTORE gave each its own
    assert [None if e is None else str(e) for e in core.faults] == want and want[2]
    _same_memories(core, singles)


def test_a_kernel_that_writes_gm_gets_every_instance_its_own():
    """MSCATTER writes GM: a shared table is copied per instance before the launch."""
    if pto.Core("a5", "auto").backend == "numpy":
        pytest.skip("no C++ compiler")
    ids = np.stack([np.arange(16, dtype=np.int32) + k for k in range(3)])
    with pto.Core("a5", "native", batch=3) as core:
        tab = _gt(pto.float32, 64, core.gm_put(np.zeros(64, np.float32)))
        it, st = pto.Tile[V, pto.int32, 1, 16](), pto.Tile[V, pto.float32, 1, 16]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(st, 1024)
        it.set(ids[:, None])
        st.set(np.ones((1, 16), np.float32))
        assert core.banks["gm"].shared
        pto.MSCATTER[pto.Coalesce.Elem, pto.ScatterAtomicOp.None_](tab, st, it)
        assert core.steps["at_once"] == 1, core.steps              # one launch over 3 blocks
    got = tab.numpy().reshape(3, 64)
    for k in range(3):
        assert (got[k] == (np.isin(np.arange(64), ids[k]))).all(), k


def test_a_cleared_core_is_a_fresh_core():
    """core.clear() forgets memories, allocations, faults and registers; a program then
    gives what it gives on a new core (the batch API reuses its cores this way)."""
    ids = np.arange(16, dtype=np.int32)[None].repeat(3, 0)
    ids[1, 2] = 1 << 28
    with pto.Core("a5", "numpy", batch=3) as core:
        it, dt = _index_and_data_tiles(core, ids)
        pto.MGATHER[pto.Coalesce.Elem](dt, _gt(pto.float32, 16, core.gm_put(np.ones(16, np.float32))), it)
        assert core.faults[1] is not None and core.read("ub", 1024, 4).any()
        core.clear()
        assert core.faults == [None] * 3 and core.live.all() and core.gm.size == 0
        assert core.steps == {"at_once": 0, "per_instance": 0, "uniform": 0}
        for s in ("gm", "ub", "l1"):
            assert not core.banks[s].rows().any(), s
        ptr = core.gm_put(np.arange(4, dtype=np.float32))
        assert ptr.addr == 0 and (ptr.numpy(4) == np.arange(4)).all()


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_a_big_table_is_mapped_into_every_instance_and_written_per_instance(backend):
    """A shared GM row of 64 KiB or more is mapped copy-on-write into every instance when one
    is first written alone (memory.MAP_MIN): reads see the table, an instance's write stays
    its own, on every backend -- each instance's bytes are a single core's."""
    if pto.Core("a5", "auto").backend == "numpy" and backend == "native":
        pytest.skip("no C++ compiler")
    from ptogpu.memory import MAP_MIN
    n_tab = 65536                                          # 256 KiB of float32
    assert n_tab * 4 >= MAP_MIN
    table = (np.arange(n_tab) % 1009).astype(np.float32)
    ids = np.array([[0, 5, n_tab - 1, 7] * 2, [3] * 8, [n_tab - 2, 1, 2, 9] * 2], np.int32)
    Ids = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
    Tab = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, n_tab], pto.Stride[n_tab, n_tab, n_tab, n_tab, 1]]
    Out = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]

    def program(core, ids_in):
        tab = core.gm_put(table)
        gi = core.gm_put(ids_in, per_instance=core.batch > 1)
        it, dt = pto.Tile[V, pto.int32, 1, 8](), pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, 0x100)
        pto.TLOAD(it, Ids(gi))
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dt, Tab(tab), it)
        pto.TSTORE(Out(tab + 8), dt)                      # into the table: each instance's own
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dt, Tab(tab), it)
        return dt, tab
    with pto.Core("a5", backend, batch=3) as core:
        dt, tab = program(core, ids)
        got, head = dt.numpy(), tab.numpy(16)
        import mmap
        base = core.banks["gm"].flat.base
        assert isinstance(getattr(base, "obj", base), mmap.mmap)     # mapped, not copied
    for k in range(3):
        with pto.Core("a5", backend) as one:
            dt1, tab1 = program(one, ids[k])
            np.testing.assert_array_equal(got[k], dt1.numpy())
            np.testing.assert_array_equal(head[k], tab1.numpy(16))
    assert not np.array_equal(head[0], head[1])            # written per instance
