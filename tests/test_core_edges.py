"""Cores of N at their edges: restore on every batch size, host memory exhaustion as a host
error, stopped instances that keep their memory whatever the host does, host steps after every
instance has stopped."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu import memory, reg
from ptogpu.errors import HostMemoryError

V = pto.TileType.Vec
Tab = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 32], pto.Stride[32, 32, 32, 32, 1]]
BACKENDS = ["numpy", "native"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch", [1, 2, 5])
def test_restore_keeps_what_was_put_before_mark_on_every_batch_size(batch, backend):
    table = np.arange(16, dtype=np.int32) + 1
    with pto.Core("a5", backend, batch=batch) as core:
        t = core.gm_put(table)
        o = core.gm_alloc(16, pto.int32)
        core.mark()
        core.write("gm", o.addr, np.full(16, 9, np.int32))
        core.write("gm", t.addr, np.full(4, 7, np.int32))
        assert core.restore()
        got_t, got_o = core.read("gm", t.addr, 64), core.read("gm", o.addr, 64)
    assert np.array_equal(np.reshape(got_t, (-1, 64)), np.tile(table.view(np.uint8), (batch, 1)))
    assert not np.reshape(got_o, (-1, 64)).any()


@pytest.fixture
def scarce_memory(monkeypatch):
    """Host memory that holds no row buffer over 1 MiB."""
    real = memory.sparse_zeros

    def scarce(nbytes):
        if nbytes > 1 << 20:
            raise MemoryError
        return real(nbytes)
    monkeypatch.setattr(memory, "sparse_zeros", scarce)


def test_host_memory_exhaustion_is_a_host_error_not_a_fault(scarce_memory):
    with pto.Core("a5", "numpy", batch=64) as core:
        core.gm_put(np.zeros(1 << 15, np.uint8))                 # one shared row: fine
        with pytest.raises(HostMemoryError, match="do not fit in host memory") as e:
            core.gm_put(np.zeros((64, 1 << 15), np.uint8), per_instance=True)
        assert not isinstance(e.value, pto.PtoFault)
        assert core.faults.codes().tolist() == [0] * 64 and core.live.all()


def _faulting_core(backend):
    """A core of 3 on which instance 1 has faulted (a table read far outside GM)."""
    core = pto.Core("a5", backend, batch=3)
    with core:
        table = Tab(core.gm_put(np.arange(32, dtype=np.float32)))
        it, dt = pto.Tile[V, pto.int32, 1, 8](), pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, 0x100)
        ids = np.tile(np.arange(8, dtype=np.int32), (3, 1, 1))
        ids[1, 0, 3] = 1 << 24
        it.set(ids)
        pto.MGATHER[pto.Coalesce.Elem](dt, table, it)
    assert [e is not None for e in core.faults] == [False, True, False]
    return core, it, dt


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_stopped_instance_keeps_its_memory_whatever_the_host_writes(backend):
    core, it, dt = _faulting_core(backend)
    with core:
        ub1, gm1 = core.read("ub", 0, 512)[1].copy(), core.read("gm", 0, 128)[1].copy()
        it.set(np.full((1, 8), 5, np.int32))
        dt.set(np.full((3, 1, 8), 2.5, np.float32))
        core.write("ub", 0x200, np.full(8, 0xAB, np.uint8))
        p = core.gm_put(np.full(8, 3, np.int32))
        r = reg.RegTensor[pto.int32]()
        r.set(np.arange(64, dtype=np.int32))
        got_ub, got_gm = core.read("ub", 0, 512), core.read("gm", 0, 128)
        new = p.numpy(8)
        lanes = r.numpy()
    assert got_ub[1].tobytes() == ub1.tobytes() and got_gm[1].tobytes() == gm1.tobytes()
    assert (got_ub[[0, 2], :32].view(np.int32) == 5).all()
    assert (got_ub[[0, 2], 0x200:0x208] == 0xAB).all()
    assert new.tolist() == [[3] * 8, [0] * 8, [3] * 8]         # a fresh allocation: zeros in it
    assert lanes[[0, 2]].tolist() == [list(range(64))] * 2 and not lanes[1].any()


@pytest.mark.parametrize("backend", BACKENDS)
def test_host_steps_after_every_instance_has_stopped_are_no_error(backend):
    with pto.Core("a5", backend, batch=2) as core:
        table = Tab(core.gm_put(np.arange(32, dtype=np.float32)))
        it, dt = pto.Tile[V, pto.int32, 1, 8](), pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, 0x100)
        it.set(np.full((1, 8), 1 << 24, np.int32))
        pto.MGATHER[pto.Coalesce.Elem](dt, table, it)          # both instances fault
        assert not core.live.any()
        before = core.read("ub", 0, 0x400)
        t2 = pto.Tile[V, pto.int32, 1, 8]()
        pto.TASSIGN(t2, 0x300)                                 # binds, as on the single cores' code
        t2.set(np.ones((1, 8), np.int32))                      # writes no stopped instance
        pto.MGATHER[pto.Coalesce.Elem](dt, table, it)          # runs on no instance
        assert t2.addr == 0x300
        assert core.read("ub", 0, 0x400).tobytes() == before.tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_batch_reports_host_memory_exhaustion_as_a_host_error(backend, scarce_memory):
    from ptogpu.execution.batch import run_batch
    from ptogpu.fuzz import FuzzConfig
    cfg = FuzzConfig(target="a5", mode="elem", oob="clamp", rows=4, cols=8, table_size=64)
    with pytest.raises(HostMemoryError):
        run_batch(cfg, 4096, backend=backend, chunk=4096, path="cores")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch", [1, 2, 5])
def test_restore_keeps_per_instance_inputs_put_before_mark(batch, backend):
    ids = np.arange(batch * 8, dtype=np.int32).reshape(batch, 8) * 3 + 1
    with pto.Core("a5", backend, batch=batch) as core:
        t = core.gm_put(np.arange(8, dtype=np.int32) + 100)
        p = core.gm_put(ids if batch > 1 else ids[0], per_instance=batch > 1)
        core.mark()
        for _ in range(2):
            core.write("gm", p.addr, np.zeros(32, np.uint8))
            core.write("gm", t.addr, np.zeros(32, np.uint8))
            assert core.restore()
            got = np.reshape(core.read("gm", p.addr, 32), (batch, 32)).view(np.int32)
            tab = np.reshape(core.read("gm", t.addr, 32), (batch, 32)).view(np.int32)
            assert got.tolist() == ids.tolist() and (tab == np.arange(8) + 100).all()


def test_a_fault_carries_the_code_its_raise_gives_not_one_read_from_its_message():
    """The fault protocol: a PtoFault's code is the one its raise site passes (the access's
    phase); a message that reads like another phase does not change it, and the batch channels
    carry it unchanged (FaultText)."""
    import pickle

    from ptogpu.errors import F_DST, F_INDEX, F_OTHER, PtoFault, fault_code, fault_text
    e = PtoFault("index read at 0x10 (a write)", code=F_DST)
    assert fault_code(e) == F_DST and fault_code(fault_text(e)) == F_DST
    assert fault_code(pickle.loads(pickle.dumps(fault_text(e)))) == F_DST
    assert PtoFault("table read").code == F_OTHER                      # no phase from words
    with pto.Core("a5", "numpy") as core:
        ix = pto.Tile[pto.TileType.Vec, pto.int32, 1, 8]()
        pto.TASSIGN(ix, 0)
        ix.set(np.full((1, 8), 1 << 28, np.int32))
        src, dst = pto.Tile[pto.TileType.Vec, pto.float32, 1, 8](), pto.Tile[pto.TileType.Vec, pto.float32, 1, 8]()
        pto.TASSIGN(src, 0x100)
        pto.TASSIGN(dst, 0x200)
        with pytest.raises(pto.PtoFault) as got:
            pto.TGATHER(dst, src, ix, ix)
        assert got.value.code == pto.errors.F_TABLE
        with pytest.raises(pto.PtoFault) as got:
            pto.TSCATTER(dst, src, ix)
        assert got.value.code == F_DST and F_INDEX != F_DST
