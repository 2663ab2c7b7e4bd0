"""The batch-vs-single-core differential: random programs of 2-6 calls over MGATHER, MSCATTER,
TGATHERB, TINTERLEAVE, TLOAD and TSTORE, with per-instance inputs that make some instances
fault and some decide differently (a branch on a loaded value, a loop whose exit the data
decides), run on one core of N instances and on N single cores: every instance must end with
the same output bytes, fault code and fault message."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.execution.inputs import draw, indices, values
from ptogpu.execution.program import Program, run_program

V = pto.TileType.Vec
N = 8
F32 = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]
I32 = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]
U32 = pto.GlobalTensor[pto.uint32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]
TAB = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 96], pto.Stride[96, 96, 96, 96, 1]]
H32 = pto.GlobalTensor[pto.int16, pto.Shape[1, 1, 1, 1, 32], pto.Stride[32, 32, 32, 32, 1]]
OOB = [pto.GatherOOB.Undefined, pto.GatherOOB.Clamp, pto.GatherOOB.Wrap, pto.GatherOOB.Zero]
SOOB = [pto.ScatterOOB.Undefined, pto.ScatterOOB.Skip, pto.ScatterOOB.Clamp, pto.ScatterOOB.Wrap]
INPUTS = {"ids": indices(N, cap=96), "offs": indices(N, cap=256, dtype="uint32"),
          "vals": values(N, "float32", "small"), "halves": values(32, "int16", "small")}
OUTPUTS = {"out": (N, pto.float32), "hout": (32, pto.int16)}


class Tiles:
    """The program's tiles, bound once (the same addresses in every instance)."""

    def __init__(self):
        self.idx, self.dst, self.src = pto.Tile[V, pto.int32, 1, N](), pto.Tile[V, pto.float32, 1, N](), \
            pto.Tile[V, pto.float32, 1, N]()
        self.off, self.blk = pto.Tile[V, pto.uint32, 1, N](), pto.Tile[V, pto.float32, 1, 64]()
        H = pto.Tile[V, pto.int16, 1, 32]
        self.h0, self.h1, self.d0, self.d1 = H(), H(), H(), H()
        for t, a in ((self.idx, 0), (self.dst, 0x100), (self.src, 0x200), (self.off, 0x300), (self.blk, 0x400),
                     (self.h0, 0x600), (self.h1, 0x700), (self.d0, 0x800), (self.d1, 0x900)):
            pto.TASSIGN(t, a)


def _step(kind: str, arg: int):
    """One call (or, for branch/loop, a data-dependent piece) of a random program."""
    def run(t: Tiles, b: dict):
        if kind == "load_ids":
            pto.TLOAD(t.idx, I32(b["ids"]))
        elif kind == "load_vals":
            pto.TLOAD(t.src, F32(b["vals"]))
        elif kind == "gather":
            pto.MGATHER[pto.Coalesce.Elem, OOB[arg % 4]](t.dst, TAB(b["table"]), t.idx)
        elif kind == "scatter":
            pto.MSCATTER[pto.Coalesce.Elem, pto.ScatterAtomicOp.None_, SOOB[arg % 4]](TAB(b["table"]), t.src, t.idx)
        elif kind == "gatherb":
            pto.TLOAD(t.off, U32(b["offs"]))
            pto.TGATHERB(t.blk, t.blk, t.off)
        elif kind == "interleave":
            pto.TLOAD(t.h0, H32(b["halves"]))
            pto.TINTERLEAVE(t.d1, t.d0, t.h0, t.h0 if arg % 2 else t.h1)
            pto.TSTORE(H32(b["hout"]), t.d0 if arg % 3 else t.d1)
        elif kind == "store":
            pto.TSTORE(F32(b["out"]), t.dst if arg % 2 else t.src)
        elif kind == "branch":                 # a branch on a loaded value
            v = t.dst.numpy()
            if float(v[0, arg % N]) > 40:
                pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](t.src, TAB(b["table"]), t.idx)
            else:
                pto.TSTORE(F32(b["out"]), t.dst)
        elif kind == "loop":                   # a loop whose exit the data decides
            for _ in range(4):
                pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap](t.dst, TAB(b["table"]), t.idx)
                if (t.dst.numpy() > 100).any():
                    break
                t.idx.set((t.idx.numpy() * 5 + 3) % 97)
    return run


KINDS = ["load_ids", "load_vals", "gather", "scatter", "gatherb", "interleave", "store", "branch", "loop"]


def random_program(seed: int, target: str) -> Program:
    rng = np.random.default_rng(seed)
    kinds = [k for k in KINDS if k != "interleave" or pto.TARGETS[target].interleave.supported]
    steps = [("load_ids", 0)] + [(kinds[rng.integers(len(kinds))], int(rng.integers(12)))
                                 for _ in range(rng.integers(2, 7))] + [("store", int(rng.integers(2)))]
    calls = [_step(k, a) for k, a in steps]

    def kernel(table, ids, offs, vals, halves, out, hout):
        t = Tiles()
        b = dict(table=table, ids=ids, offs=offs, vals=vals, halves=halves, out=out, hout=hout)
        for c in calls:
            c(t, b)
    table = (np.arange(96, dtype=np.float32) * 1.25).astype(np.float32)
    return Program(kernel, dict(INPUTS), dict(OUTPUTS), {"table": table}, f"random:{seed}:{steps}")


@pytest.mark.filterwarnings("ignore::UserWarning")      # (TGATHERB's unaligned offsets: said per call)
@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_random_programs_on_a_core_of_n_equal_n_single_cores(target, backend):
    kinds_run, parted, faulted = set(), 0, 0
    for seed in range(25):
        prog = random_program(1000 * ["cpu", "a2a3", "a5"].index(target) + seed, target)
        data = draw(prog.inputs, seed, np.arange(10))
        try:
            batched = run_program(prog, target, backend, data)
        except pto.PtoCheckError as e:          # the compiler's verdict: the single cores say the same
            with pytest.raises(pto.PtoCheckError, match=str(e.rule)):
                run_program(prog, target, backend, {k: v[:1] for k, v in data.items()})
            continue
        kinds_run.update(k for k, _ in eval(prog.ref.split(":", 2)[2]))
        parted += batched.runs > 1
        faulted += bool(np.count_nonzero(batched.codes))
        for k in range(10):
            one = run_program(prog, target, backend, {n: v[k: k + 1] for n, v in data.items()})
            where = f"{prog.ref}, instance {k}"
            assert one.outputs[0].tobytes() == batched.outputs[k].tobytes(), where
            assert one.codes[0] == batched.codes[k], where
            assert str(one.faults[0]) == str(batched.faults[k]), where
    assert faulted and parted and {"branch", "loop", "scatter", "gather"} <= kinds_run


# -- host programs: per-instance host writes, mark, restore -------------------------------------
HOST_OPS = ["set_idx", "gather", "scatter", "store", "load", "mark", "restore", "write", "put", "load_idx"]


def _host_program(ops, target: str, backend: str, batch: int, rows: np.ndarray):
    """Run ``ops`` on a core of ``batch`` instances, instance k taking row ``rows[k]`` of every
    per-instance operand; (every instance's GM and UB bytes, faults, restore answers)."""
    said = []
    with pto.Core(target, backend, batch=batch) as core:
        tab = core.gm_put(np.arange(96, dtype=np.float32) * 0.5)
        pin, out = core.gm_alloc(N, pto.int32), core.gm_alloc(N, pto.float32)
        t = Tiles()
        marked = False

        def mine(x):                                     # the instances' rows, as that core takes them
            return x[rows][:, None, :] if batch > 1 else x[rows[0]][None, :]
        for kind, x, a in ops:
            if kind == "set_idx":
                t.idx.set(mine(x))
            elif kind == "gather":
                pto.MGATHER[pto.Coalesce.Elem, OOB[a]](t.dst, TAB(tab), t.idx)
            elif kind == "scatter":
                pto.MSCATTER[pto.Coalesce.Elem, pto.ScatterAtomicOp.None_, SOOB[a]](TAB(tab), t.src, t.idx)
            elif kind == "store":
                pto.TSTORE(F32(out), t.dst)
            elif kind == "load":
                pto.TLOAD(t.src, F32(out))
            elif kind == "load_idx":
                pto.TLOAD(t.idx, I32(pin))
            elif kind == "mark":
                core.mark()
                marked = True
            elif kind == "restore" and marked:
                said.append(core.restore())
            elif kind == "write":                       # the same bytes into every instance
                core.write("gm", pin.addr, x[0].view(np.uint8))
            elif kind == "put":                         # a fresh allocation, one row each
                core.gm_put(x[rows] if batch > 1 else x[rows[0]], per_instance=batch > 1)
        mem = [np.reshape(core.read("gm", 0, core.gm.size), (batch, -1)), np.reshape(core.read("ub", 0, 0xA00), (batch, -1))]
        faults = list(core.faults) if batch > 1 else [None]
    return mem, faults, said


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_random_host_programs_with_mark_and_restore_equal_single_cores(target, backend):
    compared = restores = 0
    for seed in range(120):
        rng = np.random.default_rng(seed)
        ops = [(HOST_OPS[rng.integers(len(HOST_OPS))], rng.integers(-20, 110, size=(4, N)).astype(np.int32),
                int(rng.integers(4))) for _ in range(rng.integers(3, 10))]
        mem, faults, said = _host_program(ops, target, backend, 4, np.arange(4))
        for k in range(4):
            if faults[k] is not None:
                continue                                # (its single core raised: nothing to compare)
            try:
                one, _, said1 = _host_program(ops, target, backend, 1, np.array([k]))
            except pto.PtoFault:
                continue                                # (a restore after its fault made it live again)
            where = f"seed {seed}, instance {k}, {[o[0] for o in ops]}"
            assert said1 == said, where
            assert one[0][0].tobytes() == mem[0][k].tobytes() and one[1][0].tobytes() == mem[1][k].tobytes(), where
            compared += 1
            restores += len(said)
    assert compared > 200 and restores > 50
