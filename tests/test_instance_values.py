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
    run = run_program(prog, "cpu", "numpy", {"x": x})
    assert run.outputs.view(np.int32).tolist() == want
    assert run.runs == len(paths)            # one run per distinct sequence of branch outcomes


def test_values_turned_into_numbers_are_answered_by_value():
    def k(x, y):
        t = pto.Tile[V, pto.int32, 1, 8]()
        pto.TLOAD(t, G(x))
        v = int(t.data()[2])                   # a Python number: parks every instance whose value differs
        pto.TADDS(t, t, v)
        pto.TSTORE(G(y), t)
    prog = Program(k, {"x": pto.fuzz.values(8, pto.int32, gen="small")}, {"y": (8, pto.int32)}, {}, "k2", "cpu:a5")
    x = np.arange(32, dtype=np.int32).reshape(4, 8) % 3
    run = run_program(prog, "a5", "numpy", {"x": x})
    assert run.outputs.view(np.int32).tolist() == (x + x[:, 2:3]).tolist()
    assert run.runs == len(set(x[:, 2].tolist()))


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
