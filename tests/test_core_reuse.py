"""A campaign's cores kept between chunks (Core.mark / Core.restore, execution.program's pool)
and faults built only when read (FaultList.defer): a restored core runs a program as a new
one does, on every backend, after the program wrote into its own table, UB and outputs; a
deferred fault's code is the code of its message, and the message is the single core's."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.execution import program as P
from ptogpu.execution.program import Program, run_program
from ptogpu.fuzz import indices
from ptogpu.memory import MAP_MIN

V = pto.TileType.Vec
NTAB = 65536                                            # 256 KiB of float32: mapped, not copied
Ids = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
Tab = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, NTAB], pto.Stride[NTAB, NTAB, NTAB, NTAB, 1]]
Row = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
TABLE = (np.arange(NTAB) % 1009).astype(np.float32)


def backends():
    out = ["numpy"]
    if pto.Core("a5", "auto").backend != "numpy":
        out.append("native")
    return out


def writes_its_table(table, ids, out):
    """Gathers, writes the gathered row into its own table (each instance's own copy), then
    gathers again (reads what it wrote where an index points there) and stores."""
    it, dt = pto.Tile[V, pto.int32, 1, 8](), pto.Tile[V, pto.float32, 1, 8]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(dt, 0x100)
    pto.TLOAD(it, Ids(ids))
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dt, Tab(table), it)
    pto.TSTORE(Row(table + 8), dt)
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dt, Tab(table), it)
    pto.TSTORE(Row(out), dt)


def program() -> Program:
    return Program(writes_its_table, {"ids": indices(8, cap=16, gen="uniform")}, {"out": (8, pto.float32)},
                   {"table": TABLE}, "tests/test_core_reuse.py:writes_its_table")


def data(seed: int, n: int) -> dict:
    rng = np.random.default_rng(seed)
    return {"ids": rng.integers(0, 16, (n, 8)).astype(np.int32)}


def expected(d: dict) -> np.ndarray:
    """The rule, per instance: out[j] = t[ids[j]] where t is the table with elements 8..15
    replaced by the first gather (Clamp: indices are in range here)."""
    out = []
    for ids in d["ids"]:
        t = TABLE.copy()
        t[8:16] = TABLE[ids]
        out.append(t[ids])
    return np.array(out, np.float32).view(np.uint8).reshape(len(out), -1)


@pytest.mark.parametrize("backend", backends())
def test_a_restored_core_runs_the_next_chunk_as_a_new_core_does(backend):
    assert NTAB * 4 >= MAP_MIN
    prog, n = program(), P.POOL_MIN
    P._POOL.clear()
    for seed in range(4):                                 # the first makes the core, the rest restore it
        d = data(seed, n)
        run = run_program(prog, "a5", backend, d)
        assert not run.codes.any()
        np.testing.assert_array_equal(run.outputs, expected(d), err_msg=f"chunk {seed}")
    (entry,) = [v for k, v in P._POOL.items() if k[0] == id(prog)]
    core = entry[1]
    import mmap
    base = core.banks["gm"].flat.base
    assert isinstance(getattr(base, "obj", base), mmap.mmap)  # the table still mapped, not copied
    assert core.restore()
    gm = core.banks["gm"].rows()
    assert (gm[:, : TABLE.nbytes] == TABLE.view(np.uint8)).all() and not gm[:, TABLE.nbytes:].any()
    assert not core.banks["ub"].rows().any()
    P._POOL.clear()


@pytest.mark.parametrize("way", ["range", "pagemap", "drop", "new"])
def test_each_way_of_restoring_gives_the_same_bytes(monkeypatch, way):
    """A NumPy run notes the range its writes fell in and restore rewrites that range; where a
    writable view went out (a kernel launch) the written pages are read from pagemap; where
    pagemap cannot be read they are dropped; where they cannot be dropped either a new core
    is made. Each gives the same bytes, and only the last makes cores."""
    from ptogpu import memory
    if way != "range":
        monkeypatch.setattr(memory.Bank, "_rewrite_range", lambda self, first: False)
    if way in ("drop", "new"):
        monkeypatch.setattr(memory, "written_pages", lambda buf: None)
    if way == "new":
        monkeypatch.setattr(memory, "drop_pages", lambda buf: False)
    prog = program()
    P._POOL.clear()
    cores = []
    for seed in range(3):
        d = data(seed, P.POOL_MIN)
        np.testing.assert_array_equal(run_program(prog, "a5", "numpy", d).outputs, expected(d))
        cores += [v[1] for k, v in P._POOL.items() if k[0] == id(prog)]
    assert len(set(map(id, cores))) == (3 if way == "new" else 1)
    P._POOL.clear()


def test_rows_are_read_only_and_writes_note_their_range():
    with pto.Core("a5", "numpy", batch=4) as core:
        gm = core.banks["gm"]
        ids = np.arange(16, dtype=np.int32).reshape(4, 4)
        p = core.gm_put(ids, per_instance=True)
        assert gm._dirty == (p.addr, p.addr + 16)      # (written since the rows were made)
        core.mark()                                    # (kept: the instances' own bytes at the mark)
        assert gm._dirty is None
        assert core.restore() and gm._dirty is None
        assert gm.rows()[:, p.addr: p.addr + 16].view(np.int32).tolist() == ids.tolist()
        with pytest.raises(ValueError):
            gm.rows()[:, 0] = 1
        gm.put(np.array([1, 2]), np.array([p.addr + 4, p.addr + 8]), np.array([[7, 7], [8, 8]], np.int32))
        assert gm._dirty == (p.addr + 4, p.addr + 12)
        core.gm.data                                   # a writable view of one instance
        assert gm._dirty is memory_ALL()
        assert core.restore() and gm.rows()[:, p.addr: p.addr + 16].view(np.int32).tolist() == ids.tolist()
        assert not gm.rows()[:, p.addr + 16:].any()


def memory_ALL():
    from ptogpu.memory import ALL
    return ALL


@pytest.mark.parametrize("backend", backends())
@pytest.mark.parametrize("mode", ["Row", "Elem"])
def test_deferred_faults_have_their_messages_codes_and_the_single_cores_message(backend, mode):
    """Table reads out of GM on a core of N: each faulting instance's fault is built when
    read; its code is the fault's own, and the message is what a single core of that
    instance raises -- also when read after GM has grown."""
    n = 48
    rng = np.random.default_rng(7)
    ids = rng.integers(-3, 400, (n, 8)).astype(np.int32)
    ids[::5] = rng.integers(0, 4, (len(ids[::5]), 8))           # some instances do not fault
    Idx = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
    Small = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 4, 8], pto.Stride[32, 32, 32, 8, 1]]
    coal = getattr(pto.Coalesce, mode)

    def run(core, ids_in):
        tab = core.gm_put(np.arange(32, dtype=np.float32))
        gi = core.gm_put(ids_in, per_instance=core.batch > 1)
        it = pto.Tile[V, pto.int32, 1, 8]()
        dt = pto.Tile[V, pto.float32, 8, 8]() if mode == "Row" else pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, 0x100)
        pto.TLOAD(it, Idx(gi))
        pto.MGATHER[coal, pto.GatherOOB.Undefined](dt, Small(tab), it)

    with pto.Core("a5", backend, batch=n) as core:
        run(core, ids)
        core.gm_alloc(1 << 20, pto.uint8)                       # GM grows after the faults
        codes = core.faults.codes()
        faults = list(core.faults)
    assert codes.any() and not codes.all()
    for k in range(n):
        assert codes[k] == (0 if faults[k] is None else faults[k].code), k
        with pto.Core("a5", backend) as one:
            try:
                run(one, ids[k])
                want = None
            except pto.PtoFault as e:
                want = str(e)
        assert (None if faults[k] is None else str(faults[k])) == want, k


def test_a_fault_list_reads_as_the_list_of_its_faults():
    """Deferred entries are built when read by every way of reading a list (index, slice,
    iteration, equality, membership, count, pickling), once; a later fault of a step wins."""
    import pickle
    from ptogpu.core import FaultList
    from ptogpu.errors import F_DST, F_TABLE, PtoFault
    built = []

    def make(i):
        built.append(i)
        return PtoFault(f"MGATHER table read: number {i}")
    f = FaultList([None, PtoFault("an index read"), None, None])
    f.defer(np.array([1, 3]), make, F_TABLE)
    assert list(f.codes()) == [0, F_TABLE, 0, F_TABLE] and built == []
    assert str(f[3]) == "MGATHER table read: number 1" and built == [1]
    assert f == [None, f[1], None, f[3]] and None in f and f.count(None) == 2 and built == [1, 0]
    assert [str(e) for e in f[1:]] == ["MGATHER table read: number 0", "None", "MGATHER table read: number 1"]
    g = pickle.loads(pickle.dumps(f))
    assert [str(e) for e in g] == [str(e) for e in f] and list(g.codes()) == list(f.codes())
    f[3] = PtoFault("dst write: later", code=F_DST)
    assert str(f[3]) == "dst write: later" and f.codes()[3] == F_DST


def test_dropping_pages_zeroes_bytes_outside_whole_pages():
    from ptogpu import memory, pages
    raw = np.ones(5 * memory.PAGE, np.uint8)
    for a, b in [(100, 5000), (100, 3000), (0, 4096), (4000, 13000), (4096, 4096 * 3)]:
        raw[:] = 1
        assert pages.drop_pages(raw[a:b])
        assert not raw[a:b].any() and raw[:a].all() and raw[b:].all(), (a, b)


@pytest.mark.skipif("native" not in backends(), reason="no C++ compiler")
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("mode", ["Row", "Elem"])
@pytest.mark.parametrize("layout, valid", [("RowMajor", (3, 8)), ("RowMajor", (4, 16)), ("ColMajor", (4, 8)),
                                           ("RowMajor", (1, 1))])
def test_an_mgather_launch_writes_only_the_span_it_declares(target, mode, layout, valid):
    """A kept core restores what an MGATHER launch wrote from the byte range the launch
    declares (isa.mgather.kernels._dst_span): every UB byte outside it is left as it was
    (here 0xCD), on every target's kernel, layout and valid shape tried."""
    from ptogpu.isa.mgather import kernels as mk
    BL = getattr(pto.BLayout, layout)
    coal = getattr(pto.Coalesce, mode)
    with pto.Core(target, "native", batch=3) as core:
        core.write("ub", 0, np.full(core.ub.size, 0xCD, np.uint8))
        tab = core.gm_put(np.arange(256, dtype=np.float32) + 1)
        rows, cols = (8, 16) if layout == "RowMajor" else (16, 8)
        vr, vc = valid
        tc = vc if mode == "Row" else 16                 # (A5 Row: the table's rows are VC long)
        Tab = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 16, tc], pto.Stride[256, 256, 256, tc, 1]]
        dst = pto.Tile[V, pto.float32, rows, cols, BL, vr, vc]()
        it = pto.Tile[V, pto.int32, 8, 16, pto.BLayout.RowMajor, vr, vc]() if mode == "Elem" else \
            pto.Tile[V, pto.int32, 1, 8, pto.BLayout.RowMajor, 1, vr]()
        pto.TASSIGN(dst, 0x400)
        pto.TASSIGN(it, 0x100)
        rng = np.random.default_rng(5)
        it.set(rng.integers(0, 16 if mode == "Row" else 256, (3, *it.numpy().shape[1:])).astype(np.int32))
        try:
            plan = mk.plan_mgather(core, coal, pto.GatherOOB.Clamp, dst, Tab(tab), it)
        except pto.PtoCheckError:
            pytest.skip("the target rejects this call")
        if plan is None or plan.kernel is None:
            pytest.skip("NumPy runs this one")
        span = mk._dst_span(core, plan, dst)
        before = core.read("ub", 0, core.ub.size)
        try:
            pto.MGATHER[coal, pto.GatherOOB.Clamp](dst, Tab(tab), it)
        except pto.PtoCheckError:
            pytest.skip("the target rejects this call")
        after = core.read("ub", 0, core.ub.size)
    assert core.faults == [None] * 3
    if isinstance(span, str):
        pytest.skip(f"{plan.kernel}: no span declared (pages are looked up)")
    _, lo, hi = span
    changed = np.flatnonzero((after != before).any(axis=0))
    assert changed.size and lo <= changed.min() and changed.max() < hi, (plan.kernel, lo, hi, changed[[0, -1]])


def test_a_wide_range_of_writes_is_restored_by_the_pages_written(monkeypatch):
    """Writes spread over more than memory.RANGE_MAX bytes (scattered into a big table) are
    not rewritten as one range in every instance (that would copy the table into each): the
    pages written are, and the bytes are the rule's."""
    from ptogpu import memory
    calls = []
    real = memory.Bank._rewrite_pages
    monkeypatch.setattr(memory.Bank, "_rewrite_pages", lambda self, first: calls.append(self.name) or real(self, first))
    with pto.Core("a5", "numpy", batch=8) as core:
        gm = core.banks["gm"]
        tab = core.gm_put(TABLE)
        core.gm_put(np.zeros((8, 4), np.int32), per_instance=True)
        core.mark()
        gm.put(np.array([2]), np.array([tab.addr, tab.addr + 200_000]), np.array([[7, 7]], np.uint8))
        assert gm._dirty[1] - gm._dirty[0] > memory.RANGE_MAX
        assert core.restore() and "gm" in calls
        np.testing.assert_array_equal(gm.rows()[:, : TABLE.nbytes], np.broadcast_to(TABLE.view(np.uint8), (8, TABLE.nbytes)))


def test_a_narrow_write_into_a_mapped_table_is_restored_from_the_table():
    """The range path with the table under it: one instance writes 8 bytes of its mapped
    table; restore writes the table's own bytes back there, in every instance."""
    with pto.Core("a5", "numpy", batch=8) as core:
        gm = core.banks["gm"]
        tab = core.gm_put(TABLE)
        core.gm_put(np.zeros((8, 4), np.int32), per_instance=True)
        core.mark()
        assert gm._mapped and core.restore()
        gm.put(np.array([5]), np.arange(tab.addr + 100, tab.addr + 108), np.array([[1, 2, 3, 4, 5, 6, 7, 8]], np.uint8))
        assert gm._dirty == (tab.addr + 100, tab.addr + 108)
        assert core.restore()
        np.testing.assert_array_equal(gm.rows()[:, : TABLE.nbytes], np.broadcast_to(TABLE.view(np.uint8), (8, TABLE.nbytes)))
