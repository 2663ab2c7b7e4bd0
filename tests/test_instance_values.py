"""Branching on what a kernel reads, on a core of N (docs/batch.md): tile.data()[i] carries
every instance's value; a branch parks only the instances whose outcome differs, and a parked
group resumes from its branch (its prefix replayed) with the bytes its single core gives."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.fuzz
from ptogpu.execution.program import Program, run_program

V = pto.TileType.Vec
pytestmark = pytest.mark.usefixtures("fresh_stack")
G = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]


def kernel(x, y):
    t = pto.Tile[V, pto.int32, 1, 8]()
    pto.TLOAD(t, G(x))
    n = 0
    while t.data()[0] > 0:                 # count down: each instance leaves at its own iteration
        pto.TADDS(t, t, -1)
        n += 1
    if t.data()[1] * 2 + 1 == 7:           # arithmetic on every instance's value, then a branch
        pto.TMULS(t, t, 10)
    pto.TSTORE(G(y), t)


def test_a_branch_parks_by_outcome_and_parked_groups_resume_from_their_branch():
    prog = Program(kernel, {"x": pto.fuzz.values(8, pto.int32, gen="small")}, {"y": (8, pto.int32)}, {}, "k", "cpu:a5")
    x = np.zeros((6, 8), np.int32)
    x[:, 0] = [3, 3, 0, 5, 1, 3]
    x[:, 1] = [3, 0, 3, 3, 9, 3]
    paths = set()
    want = []
    for row in x.astype(np.int64):
        t, n = row.copy(), 0
        while t[0] > 0:
            t -= 1
            n += 1
        hit = t[1] * 2 + 1 == 7
        want.append((t * 10 if hit else t).tolist())
        paths.add((n, hit))
    from ptogpu.execution import program as P
    P.RECONVERGE = False                     # (paths that meet again run apart: execution.reconverge)
    try:
        run = run_program(prog, "cpu", "numpy", {"x": x})
    finally:
        P.RECONVERGE = True
    assert run.outputs.view(np.int32).tolist() == want
    assert run.runs == len(paths)            # one run per distinct sequence of branch outcomes
    assert run_program(prog, "cpu", "numpy", {"x": x}).outputs.view(np.int32).tolist() == want


def test_values_turned_into_numbers_are_answered_by_value():
    def k(x, y):
        t = pto.Tile[V, pto.int32, 1, 8]()
        pto.TLOAD(t, G(x))
        v = int(t.data()[2])                   # a Python number: parks every instance whose value differs
        pto.TADDS(t, t, v)
        pto.TSTORE(G(y), t)
    prog = Program(k, {"x": pto.fuzz.values(8, pto.int32, gen="small")}, {"y": (8, pto.int32)}, {}, "k2", "cpu:a5")
    x = np.arange(32, dtype=np.int32).reshape(4, 8) % 3
    from ptogpu.execution import program as P
    run = run_program(prog, "a5", "numpy", {"x": x})
    assert run.outputs.view(np.int32).tolist() == (x + x[:, 2:3]).tolist()
    P.RECONVERGE = False                    # (the paths meet at TADDS, but its operand differs: apart anyway)
    try:
        assert run_program(prog, "a5", "numpy", {"x": x}).runs == len(set(x[:, 2].tolist()))
    finally:
        P.RECONVERGE = True


def test_on_one_core_data_reads_are_plain_numbers():
    with pto.Core("cpu", "numpy"):
        t = pto.Tile[V, pto.int32, 1, 8]()
        t.set(np.arange(8, dtype=np.int32).reshape(1, 8))
        assert t.data()[3] == 3 and len(t.data()) == 8
        with pytest.raises(pto.PtoFault, match="outside"):
            t.data()[8]


def test_data_as_an_address_and_get_set_value_as_the_scalar_unit_does():
    """``(uint64_t)t.data()`` is the tile's address, ``t.data() + n`` a pointer to element n
    (TASSIGN takes both, as the vendor's top-k rebinds row tiles); GetValue/SetValue read and
    store one element, each instance its own on a core of N running a program."""
    with pto.Core("a5", "numpy"):
        a = pto.Tile[V, pto.float32, 1, 16]()
        pto.TASSIGN(a, 0x100)
        b, c = pto.Tile[V, pto.float32, 1, 8](), pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(b, a.data() + 8)
        pto.TASSIGN(c, a.data())
        assert (b.addr, c.addr, int(a.data())) == (0x120, 0x100, 0x100)
        a.SetValue(3, 2.5)
        assert a.GetValue(3) == 2.5 and a.numpy()[0, 3] == 2.5
        m = pto.Tile[pto.TileType.Mat, pto.float32, 16, 8, pto.BLayout.ColMajor, 16, 8, pto.SLayout.RowMajor]()
        with pytest.raises(pto.PtoCheckError, match="Location of tile must be Location::Vec"):
            m.GetValue(0)

    def k(x, y):
        t = pto.Tile[V, pto.int32, 1, 8]()
        pto.TLOAD(t, G(x))
        t.SetValue(7, t.GetValue(0) * 3)          # per instance, no parking
        pto.TSTORE(G(y), t)
    prog = Program(k, {"x": pto.fuzz.values(8, pto.int32, gen="small")}, {"y": (8, pto.int32)}, {}, "k3", "cpu:a5")
    x = np.arange(40, dtype=np.int32).reshape(5, 8)
    run = run_program(prog, "cpu", "numpy", {"x": x})
    want = x.copy()
    want[:, 7] = x[:, 0] * 3
    assert run.outputs.view(np.int32).tolist() == want.tolist() and run.runs == 1


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_a_scalar_read_from_data_serves_every_instance_in_one_run(target):
    # C++: T s = t.GetValue(2); TADDS(t, t, s); TSUBS(u, t, s); TMAXS(u, u, s): each instance its own s
    def k(x, y):
        t = pto.Tile[V, pto.int32, 1, 8]()
        pto.TLOAD(t, G(x))
        s = t.GetValue(2)
        pto.TADDS(t, t, s)
        pto.TSUBS(t, t, s)
        pto.TMAXS(t, t, s)
        pto.TSTORE(G(y), t)
    prog = Program(k, {"x": pto.fuzz.values(8, pto.int32, gen="small")}, {"y": (8, pto.int32)}, {}, "k3", "cpu:a5")
    x = (np.arange(48, dtype=np.int32).reshape(6, 8) * 7919) % 23 - 11
    run = run_program(prog, target, "numpy", {"x": x})
    assert run.outputs.view(np.int32).tolist() == np.maximum(x, x[:, 2:3]).tolist()
    assert run.runs == 1                        # no instance parked by its scalar's value


def test_a_float_scalar_passes_its_bits_as_they_are():
    # a signalling NaN read with GetValue reaches TEXPANDS unconverted (C++ passes the float as it
    # is; a trip through double would quiet it to 0x7FC00001)
    with pto.Core("cpu", "numpy"):
        t = pto.Tile[V, pto.float32, 1, 8]()
        d = pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(t, 0)
        pto.TASSIGN(d, 64)
        t.set(np.array([[0x7F800001, 0, 0, 0, 0, 0, 0, 0]], np.uint32).view(np.float32))
        pto.TEXPANDS(d, t.GetValue(0))
        assert d.raw().view(np.uint32).tolist() == [0x7F800001] * 8


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_compare_and_select_take_a_scalar_per_instance(target):
    # TCMPS(m, t, s, GT) then TSELS(d, m, t, tmp, s): d = t > s ? t : s, each instance its own s
    H = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 32], pto.Stride[32, 32, 32, 32, 1]]

    def k(x, y):
        t = pto.Tile[V, pto.float32, 1, 32]()
        d = pto.Tile[V, pto.float32, 1, 32]()
        m = pto.Tile[V, pto.uint8, 1, 32, pto.BLayout.RowMajor, 1, 4]()
        tmp = pto.Tile[V, pto.uint8, 1, 32]()
        pto.TLOAD(t, H(x))
        s = t.GetValue(5)
        pto.TCMPS(m, t, s, pto.CmpMode.GT)
        pto.TSELS(d, m, t, tmp, s)
        pto.TSTORE(H(y), d)
    prog = Program(k, {"x": pto.fuzz.values(32, pto.float32, gen="small")}, {"y": (32, pto.float32)}, {}, "k4",
                   "cpu:a5")
    x = ((np.arange(4 * 32).reshape(4, 32) * 37) % 29 - 14).astype(np.float32)
    run = run_program(prog, target, "numpy", {"x": x})
    assert run.outputs.view(np.float32).tolist() == np.maximum(x, x[:, 5:6]).tolist()
    assert run.runs == 1
