"""Python kernels traced into PTO IR (ptogpu.ptoir.trace, ``ptogpu trace``): the traced module,
printed and read back, gives the eager kernel's bytes and fault codes per instance on every
target and backend -- on the shipped examples and on programs drawn at random from the
element-wise instructions; a kernel that decides on data or calls what PTO IR cannot spell is
refused in one line."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.fuzz
from ptogpu.execution.inputs import draw
from ptogpu.execution.program import Program, load, run_program
from ptogpu.ptoir import load_text, module_text, parse
from ptogpu.ptoir.printer import same
from ptogpu.ptoir.trace import TraceError, trace_program

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


def _eager_equals_traced(py: Program, n: int, targets=("cpu", "a5"), backends=("numpy", "native")) -> str:
    text = module_text(trace_program(py))
    assert same(parse(text), parse(module_text(parse(text))))            # printed, read, printed: one program
    k = load_text(text, source="traced.pto")
    ir = Program(k, py.inputs, py.outputs, py.fixed, "traced.pto:" + k.func.name, py.pair)
    data = draw(py.inputs, 11, np.arange(n))
    for t in targets:
        for b in backends:
            r1, r2 = run_program(py, t, b, data), run_program(ir, t, b, data)
            assert r1.outputs.tobytes() == r2.outputs.tobytes() and (r1.codes == r2.codes).all(), (t, b)
    return text


@pytest.mark.parametrize("ref", ["csr_gather.py:csr_gather", "bucket_scatter.py:bucket_scatter"])
def test_the_examples_traced_give_the_eager_bytes(ref):
    text = _eager_equals_traced(load(os.path.join(EXAMPLES, ref)), 24, targets=("cpu", "a2a3", "a5"))
    assert "pto.set_flag" in text or "pto.tscatter" in text
    if ref.startswith("csr"):                 # its double-buffered loop: one body of two tiles' sets, twice
        assert text.count("scf.for") == 1 and "scf.for %i4 = %c0 to %c2 step %c1" in text


def _rows_loop(x, y):
    """A loop of 8 rows: row r loaded, r added (int32), stored; the row tiles alternate."""
    G = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 16], pto.Stride[16, 16, 16, 16, 1]]
    t = [pto.Tile[pto.TileType.Vec, pto.int32, 1, 16]() for _ in range(2)]
    pto.TASSIGN(t[0], 0x0)
    pto.TASSIGN(t[1], 0x100)
    for r in range(8):
        a = t[r % 2]
        pto.TLOAD(a, G(x + 16 * r))
        pto.TADDS(a, a, r * 3 - 5)
        pto.TSTORE(G(y + 16 * r), a)


def test_a_loop_is_traced_as_a_loop_whose_offsets_and_scalars_step():
    py = Program(_rows_loop, {"x": pto.fuzz.values(128, pto.int32, gen="bits")}, {"y": (128, pto.int32)}, {},
                 "", "cpu:a5")
    text = _eager_equals_traced(py, 16, targets=("cpu", "a2a3", "a5"))
    assert text.count("scf.for") == 1 and "to %c4 step %c1" in text      # two rows a body (the tiles alternate)
    assert text.count("pto.tload") == 2 and "arith.index_cast" in text
    from ptogpu.ptoir.buffers import infer
    got = infer(load_text(text, source="rows.pto"))
    assert got["outputs"] == {"y": (128, "int32")} and got["inputs"]["x"].shape == (128,)


def test_the_loop_finder_takes_the_longest_linear_repeat():
    from ptogpu.ptoir.trace import plan
    # A B A B A B C: a body of two, three times, then C
    assert plan(list("ABABABC"), [(0,), (5,), (1,), (7,), (2,), (9,), ()]) == \
        [("loop", 0, 2, 3, [(1,), (2,)]), ("call", 6)]
    # the numbers do not step evenly at the fourth: a body of one covers three, a body of two
    # (0, 1 then 2, 4) all four: the longer repeat wins
    assert plan(list("AAAA"), [(0,), (1,), (2,), (4,)]) == [("loop", 0, 2, 2, [(2,), (3,)])]
    # a tie (a body of one four times, of two twice): the shorter body; the fifth steps unevenly
    assert plan(list("AAAAAB"), [(0,), (1,), (2,), (3,), (7,), ()]) == \
        [("loop", 0, 1, 4, [(1,)]), ("call", 4), ("call", 5)]
    assert plan(list("AB"), [(), ()]) == [("call", 0), ("call", 1)]       # nothing repeats


OPS = {"float32": ["TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TABS", "TNEG", "TADDS", "TMULS", "TMAXS", "TMINS"],
       "int32": ["TADD", "TSUB", "TMUL", "TMAX", "TMIN", "TAND", "TOR", "TXOR", "TNOT", "TNEG", "TABS",
                 "TADDS", "TSUBS", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS"]}


def _random_program(seed: int) -> Program:
    rng = np.random.default_rng(seed)
    dt = ["float32", "int32"][seed % 2]
    R, C = int(rng.choice([1, 2, 4])), int(rng.choice([8, 16, 32]))
    steps = [(str(rng.choice(OPS[dt])), int(rng.integers(3)), int(rng.integers(3)), int(rng.integers(3)),
              int(rng.integers(0, 5))) for _ in range(int(rng.integers(3, 9)))]
    el = getattr(pto, dt)
    G = pto.GlobalTensor[el, pto.Shape[1, 1, 1, R, C], pto.Stride[R * C, R * C, R * C, C, 1]]

    def kernel(a, b, out):
        t = [pto.Tile[pto.TileType.Vec, el, R, C]() for _ in range(3)]
        for k, x in enumerate(t):
            pto.TASSIGN(x, 0x400 * k)
        tmp = pto.Tile[pto.TileType.Vec, el, R, C]()
        pto.TASSIGN(tmp, 0x1000)
        pto.TLOAD(t[0], G(a))
        pto.TLOAD(t[1], G(b))
        pto.TEXPANDS(t[2], 3)
        for name, d, s0, s1, scal in steps:
            f = getattr(pto, name)
            if name in ("TABS", "TNEG", "TNOT"):
                f(t[d], t[s0])
            elif name in ("TXOR", "TXORS"):                 # (their tmp tile: one of their own)
                f(t[d], t[s0], t[s1] if name == "TXOR" else scal, tmp)
            elif name.endswith("S"):
                f(t[d], t[s0], scal if dt == "int32" else scal / 4)
            else:
                f(t[d], t[s0], t[s1])
        pto.TSTORE(G(out), t[steps[-1][1]])
    kernel.__name__ = f"random_{seed}"
    gen = "small" if dt == "float32" else "bits"
    return Program(kernel, {"a": pto.fuzz.values(R * C, el, gen=gen), "b": pto.fuzz.values(R * C, el, gen=gen)},
                   {"out": (R * C, el)}, {}, "", "cpu:a5")


@pytest.mark.parametrize("seed", range(16))
def test_random_element_wise_programs_traced_give_the_eager_bytes(seed):
    _eager_equals_traced(_random_program(seed), 8)


def _reads_then_decides(x, y):
    G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 16], pto.Stride[16, 16, 16, 16, 1]]
    t = pto.Tile[pto.TileType.Vec, pto.float32, 1, 16]()
    pto.TASSIGN(t, 0)
    pto.TLOAD(t, G(x))
    if t.GetValue(0) > 0:                       # a decision on a value the kernel read
        pto.TADDS(t, t, 1.0)
    pto.TSTORE(G(y), t)


def test_a_kernel_that_decides_on_data_is_not_traced():
    prog = Program(_reads_then_decides, {"x": pto.fuzz.values(16, pto.float32, gen="small")},
                   {"y": (16, pto.float32)}, {}, "", "cpu:a5")
    with pytest.raises(TraceError, match="decides on values it reads"):
        trace_program(prog)


def test_the_cli_prints_writes_and_refuses_in_one_line(tmp_path):
    out = tmp_path / "csr.pto"
    r = subprocess.run([sys.executable, "-m", "ptogpu", "trace", f"{EXAMPLES}/csr_gather.py:csr_gather", "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and out.read_text().startswith("module {")
    rep = pto.fuzz.kernel(str(out), n=200, backend="numpy", shrink=False)
    assert rep.divergent == 200 and rep.unexplained == 0         # the TGATHER rule the Python kernel shows
    r = subprocess.run([sys.executable, "-m", "ptogpu", "trace", f"{EXAMPLES}/embedding_bag.py:embedding_bag"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "MGATHER[Coalesce.Row]: no PTO IR form" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
