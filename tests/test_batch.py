"""Batched execution: the vectorised NumPy path (and the mgather.cu kernels on native) give
exactly the bytes and faults of the single-instance public API; chunking changes nothing;
digest-only runs keep memory bounded whatever N."""
from __future__ import annotations

import functools
import os
import operator
import tracemalloc

import numpy as np
import pytest

from ptogpu.execution.batch import chunk_size, iter_batches, run_batch
from ptogpu.fuzz import FuzzConfig, run_single
from ptogpu.execution.single import cast_indices, fault_code
from ptogpu.execution.rng import Generator

DTYPES = ("float32", "half", "int8", "uint16", "int32", "bfloat16")


def random_configs(k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < k:
        instr = rng.choice(["mgather"] * 6 + ["tinterleave", "tgatherb"])
        tgt = str(rng.choice(["cpu", "a2a3", "a5"]))
        dt = str(rng.choice(DTYPES))
        rows, cols = int(rng.integers(1, 6)), int(rng.integers(1, 20))
        if instr == "tgatherb":
            dt = str(rng.choice(["float32", "half", "int8"]))
            q = (("a2a3_tgatherb_tail_stream", bool(rng.random() < 0.5)),) if tgt == "a2a3" else ()
            out.append(FuzzConfig(instr="tgatherb", target=tgt, dtype=dt, rows=rows, cols=int(rng.integers(1, 300)),
                                  table_size=int(rng.integers(64, 1024)), quirks=q))
            continue
        if instr == "tinterleave":
            if tgt == "a2a3":
                continue
            out.append(FuzzConfig(instr="tinterleave", target=tgt, dtype=dt, rows=rows, cols=cols))
            continue
        space = str(rng.choice(["ub", "ub", "l1"]))
        mode = str(rng.choice(["row", "elem"]))
        oob = str(rng.choice(["undefined", "clamp", "wrap", "zero"]))
        ex = str(rng.choice(["auto", "simt", "scalar"])) if tgt == "a5" and space == "l1" and mode == "elem" else "auto"
        idt = str(rng.choice(["int32", "uint32"]))
        size = int(rng.integers(8, 200))
        shape = stride = None
        if mode == "row" and space == "ub" and rng.random() < 0.5:
            s2, s3 = int(rng.integers(1, 3)), int(rng.integers(1, 9))
            pitch = cols + int(rng.integers(0, 5))
            shape, stride = (1, 1, s2, s3, cols), (s2 * s3 * pitch,) * 2 + (s3 * pitch, pitch, 1)
        fill = int(rng.choice([0, 0, 0xAB]))
        lay = "nd"
        if space == "ub" and tgt != "a2a3" and shape is None and rng.random() < 0.4:
            lay = str(rng.choice(["dn", "nz", "zz"]))
        out.append(FuzzConfig(target=tgt, space=space, mode=mode, oob=oob, dtype=dt, index_dtype=idt,
                              rows=rows, cols=cols, table_size=size, table_shape=shape,
                              table_stride=stride, exec=ex, layout=lay, dst_fill=fill))
    return out


@pytest.mark.parametrize("cfg", random_configs(36), ids=lambda c: c.label.replace(" ", "_"))
def test_vector_path_matches_the_public_api(cfg):
    n = 24
    res = run_batch(cfg, n, seed=11, path="vector")
    assert res.path == "vector"
    vals = Generator("mixed", 11)(np.arange(n), cfg.n_idx, cfg.cap)
    for i in range(n):
        out, fault = run_single(cfg, vals[i])
        assert res.outputs[i].tobytes() == out.tobytes(), (i, fault)
        assert res.faults[i] == (fault_code(fault) if fault else 0), (i, fault)


ELEM32 = [FuzzConfig(target=t, oob=o, index_dtype=i, rows=3, cols=c, table_size=ts, dst_fill=f, dtype=d)
          for t, o, i, c, ts, f, d in [
              ("a5", "wrap", "int32", 8, 64, 0, "float32"), ("a2a3", "wrap", "uint32", 5, 100, 0xAB, "half"),
              ("a5", "clamp", "int32", 16, 100, 0, "int8"), ("a2a3", "zero", "int32", 8, 64, 0, "float32"),
              ("a5", "zero", "uint32", 7, 100, 0xAB, "float32"), ("a5", "undefined", "int32", 8, 4096, 0, "float32"),
              ("a2a3", "undefined", "uint32", 8, 20, 0, "half"), ("a5", "wrap", "int32", 8, 1, 0, "float32")]]


@pytest.mark.parametrize("cfg", ELEM32, ids=lambda c: c.label.replace(" ", "_"))
def test_elem_32bit_lane_path_matches_the_public_api(cfg):
    """The uint32-lane Elem path (no faults possible, or none found) and its fallback."""
    n = 40
    for gen in ("mixed", "uniform"):
        res = run_batch(cfg, n, generator=gen, seed=2, path="vector")
        vals = Generator(gen, 2)(np.arange(n), cfg.n_idx, cfg.cap)
        for i in range(n):
            out, fault = run_single(cfg, vals[i])
            assert res.outputs[i].tobytes() == out.tobytes(), (gen, i, fault)
            assert res.faults[i] == (fault_code(fault) if fault else 0), (gen, i, fault)


@pytest.mark.parametrize("cfg", [c for c in random_configs(60, 1) if c.instr == "mgather" and c.space == "ub"][:12],
                         ids=lambda c: c.label.replace(" ", "_"))
def test_native_kernels_match_numpy_batch(cfg):
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    v = run_batch(cfg, 200, seed=4, path="vector")
    k = run_batch(cfg, 200, seed=4, backend="native")
    assert k.path == "kernel"
    np.testing.assert_array_equal(v.outputs, k.outputs)
    np.testing.assert_array_equal(v.faults, k.faults)
    assert ((k.fault_elem == -1) | (k.fault_elem == v.fault_elem)).all()   # -1: not known


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("gen", ["uniform", "mixed"])
def test_tgatherb_vector_path_matches_the_loop_path(target, gen):
    cfg = FuzzConfig(instr="tgatherb", target=target, rows=4, cols=72, table_size=512)
    v = run_batch(cfg, 30, generator=gen, seed=2, path="vector")
    lo = run_batch(cfg, 30, generator=gen, seed=2, path="loop")
    assert v.path == "vector" and lo.path == "loop" and v.outputs.shape == (30, 4 * 72 * 4)
    np.testing.assert_array_equal(v.outputs, lo.outputs)
    np.testing.assert_array_equal(v.faults, lo.faults)


def test_chunking_and_streaming_change_nothing():
    cfg = FuzzConfig(rows=4, cols=8, table_size=100, oob="undefined")
    a = run_batch(cfg, 1000, seed=3, chunk=1000)
    b = run_batch(cfg, 1000, seed=3, chunk=77)
    np.testing.assert_array_equal(a.outputs, b.outputs)
    assert a.digest == b.digest and a.n_faults == b.n_faults > 0
    c = run_batch(cfg, 1000, seed=3, chunk=64, keep_outputs=False)
    assert c.outputs is None and c.digest == a.digest and c.n_faults == a.n_faults
    tail = next(iter_batches(cfg, 10, seed=3, start=990))
    np.testing.assert_array_equal(tail.outputs, a.outputs[990:])
    assert chunk_size(FuzzConfig(), 10**9) <= 1 << 20


def test_digest_only_memory_does_not_grow_with_n():
    cfg = FuzzConfig(rows=4, cols=8, table_size=100)

    def peak(n):
        tracemalloc.start()
        run_batch(cfg, n, seed=1, chunk=2000, keep_outputs=False)
        p = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return p

    small, big = peak(4000), peak(40000)
    assert big < small * 1.3 + 200_000, (small, big)


@pytest.mark.parametrize("cfg", [FuzzConfig(rows=4, cols=8, table_size=100, oob="undefined"),
                                 FuzzConfig(instr="tgatherb", rows=2, cols=24, table_size=256)],
                         ids=["mgather", "tgatherb"])
def test_digest_only_batches_in_worker_processes_match_this_process(monkeypatch, cfg):
    got = []
    for w in ("0", "2"):
        monkeypatch.setenv("PTOGPU_FUZZ_WORKERS", w)
        parts = list(iter_batches(cfg, 3000, seed=4, chunk=400, keep_outputs=False))
        got.append(([(p.start, p.n, p.digest, p.n_faults, p.faults.tolist()) for p in parts]))
    assert got[0] == got[1] and sum(p[3] for p in got[0]) > 0
    monkeypatch.setenv("PTOGPU_FUZZ_WORKERS", "2")
    whole = run_batch(cfg, 3000, seed=4, chunk=400, keep_outputs=True)     # outputs: shared rows
    assert whole.digest == functools.reduce(operator.xor, [p[2] for p in got[0]])
    monkeypatch.setenv("PTOGPU_FUZZ_WORKERS", "0")
    here = run_batch(cfg, 3000, seed=4, chunk=400, keep_outputs=True)
    assert here.outputs.tobytes() == whole.outputs.tobytes() and here.faults.tolist() == whole.faults.tolist()
    assert not [f for f in os.listdir("/dev/shm") if f.startswith("ptogpu-rows-")] if os.path.isdir("/dev/shm") else True


def test_cast_indices_wrap_like_the_index_type():
    cfg = FuzzConfig(index_dtype="uint32")
    assert cast_indices(cfg, np.array([-1, 2**32 + 5])).tolist() == [2**32 - 1, 5]


def test_array_paths_raise_the_static_check_errors():
    from ptogpu.errors import PtoCheckError
    with pytest.raises(PtoCheckError):       # A2/A3: the index tile must be RowMajor
        run_batch(FuzzConfig(target="a2a3", layout="dn"), 10)


@pytest.mark.parametrize("cfg", [
    FuzzConfig(instr="tinterleave", target="a5", dtype="int16", rows=2, cols=9),
    FuzzConfig(instr="tinterleave", target="cpu", dtype="int16", rows=3, cols=9, dst_fill=0xAB,
               quirks=(("cpu_asserts", False),)),       # NDEBUG: the loop runs on odd widths
    FuzzConfig(instr="tinterleave", target="a5", dtype="float32", rows=4, cols=16, dst_fill=0x5A),
    FuzzConfig(instr="tinterleave", target="cpu", dtype="half", rows=1, cols=40),
    FuzzConfig(instr="tinterleave", target="a5", dtype="int8", rows=5, cols=7),
    FuzzConfig(instr="tinterleave", target="a5", dtype="bfloat16", rows=2, cols=64),
], ids=lambda c: c.label.replace(" ", "_") + f"_fill{c.dst_fill}")
def test_tinterleave_kernel_batch_matches_numpy_batch(cfg):
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    v = run_batch(cfg, 300, seed=6, path="vector")
    k = run_batch(cfg, 300, seed=6, backend="native")
    assert k.path == "kernel"
    assert np.array_equal(k.outputs, v.outputs) and np.array_equal(k.faults, v.faults)
    assert k.digest == v.digest


@pytest.mark.parametrize("cfg", [
    FuzzConfig(instr="tgatherb", target="a2a3", rows=4, cols=72, table_size=512),
    FuzzConfig(instr="tgatherb", target="a2a3", rows=4, cols=72, table_size=512, dtype="half",
               quirks=(("a2a3_tgatherb_tail_stream", False),)),
    FuzzConfig(instr="tgatherb", target="a5", rows=3, cols=300, table_size=1000, dtype="int8"),
    FuzzConfig(instr="tgatherb", target="a5", rows=2, cols=12, table_size=512, dst_fill=0xAB),
    FuzzConfig(instr="tgatherb", target="cpu", rows=2, cols=12, table_size=512, dst_fill=0xAB),
    FuzzConfig(instr="tgatherb", target="cpu", rows=4, cols=72, table_size=512, dtype="half"),
], ids=lambda c: c.label.replace(" ", "_") + ("_nostream" if c.quirks else "") + f"_fill{c.dst_fill}")
def test_tgatherb_kernel_batch_matches_numpy_batch(cfg):
    """In-window instances run the tgatherb.cu kernel, the others (reads past the
    instance's UB window, faults) NumPy; the bytes are the NumPy batch's either way."""
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    for gen in ("uniform", "mixed"):
        v = run_batch(cfg, 200, generator=gen, seed=6, path="vector")
        k = run_batch(cfg, 200, generator=gen, seed=6, backend="native")
        assert np.array_equal(k.outputs, v.outputs) and np.array_equal(k.faults, v.faults), gen
        if gen == "uniform" and not (cfg.target == "cpu" and cfg.esize < 4 and cfg.cols == 12):
            assert k.path == "kernel"


@pytest.mark.parametrize("cfg", [
    FuzzConfig(space="l1", target="a2a3", mode="row", oob="zero", rows=4, cols=16, table_size=128, dst_fill=0xAB),
    FuzzConfig(space="l1", target="a5", mode="row", oob="undefined", rows=3, cols=12, table_size=100, dtype="half"),
    FuzzConfig(space="l1", target="a2a3", oob="wrap", rows=4, cols=12, table_size=100, index_dtype="uint32"),
    FuzzConfig(space="l1", target="a5", exec="simt", oob="zero", rows=4, cols=12, table_size=100, dst_fill=0xAB),
    FuzzConfig(space="l1", target="a5", exec="scalar", oob="undefined", rows=5, cols=40, table_size=300, dtype="int8"),
    FuzzConfig(space="l1", target="a5", exec="simt", oob="clamp", rows=3, cols=16, table_size=128, dtype="half"),
], ids=lambda c: c.label.replace(" ", "_"))
def test_gm2l1_kernel_batch_matches_numpy_batch(cfg):
    """NPU GM->L1 batches on mgather_l1.cu (own GM copy per instance); faults and scratch
    reads fall back to NumPy (and its loop path); same bytes and faults as the NumPy batch."""
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    for gen in ("uniform", "mixed"):
        v = run_batch(cfg, 150, generator=gen, seed=8, path="vector")
        k = run_batch(cfg, 150, generator=gen, seed=8, backend="native")
        assert np.array_equal(k.outputs, v.outputs) and np.array_equal(k.faults, v.faults), gen
        assert "kernel" in k.path or gen == "mixed"      # mixed: every tile may fault


def test_kernel_batches_run_on_cores_in_parts_with_the_same_bytes(monkeypatch):
    """A chunk runs on cores of at most BATCH_CORE instances (what bounds a launch's memory):
    cores of 32 give the bytes of one core, and of NumPy."""
    from ptogpu.backend import native_backend
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    import ptogpu.execution.single as S
    for cfg in (FuzzConfig(space="l1", target="a5", exec="simt", oob="zero", rows=4, cols=12, table_size=100),
                FuzzConfig(space="l1", target="a2a3", mode="row", oob="clamp", rows=4, cols=12, table_size=100),
                FuzzConfig(instr="tgatherb", target="a2a3", rows=4, cols=72, table_size=512),
                FuzzConfig(instr="tinterleave", target="a5", dtype="int16", rows=2, cols=9)):
        v = run_batch(cfg, 90, generator="uniform", seed=8, path="vector")
        whole = run_batch(cfg, 90, generator="uniform", seed=8, backend="native")
        monkeypatch.setattr(S, "BATCH_CORE", 32)
        k = run_batch(cfg, 90, generator="uniform", seed=8, backend="native")
        monkeypatch.undo()
        assert k.path == whole.path == "kernel" and np.array_equal(k.outputs, v.outputs)
        assert np.array_equal(whole.outputs, v.outputs) and np.array_equal(k.faults, v.faults)


def test_tinterleave_batch_on_an_odd_width_traps_where_the_simulators_assert_is_live():
    from ptogpu.execution.single import F_OTHER
    cfg = FuzzConfig(instr="tinterleave", target="cpu", dtype="int16", rows=3, cols=9, dst_fill=0xAB)
    for backend in ("numpy", "native"):
        res = run_batch(cfg, 20, seed=6, backend=backend)
        assert (res.faults == F_OTHER).all() and (res.outputs == 0xAB).all()


@pytest.mark.parametrize("prints", [True, False], ids=["fingerprints", "copies"])
def test_a_kernel_that_writes_outside_its_destination_is_a_stray_instance(monkeypatch, prints):
    """A kernel batch on a core of N is watched: a byte changed outside the destination of
    one instance marks that instance; a change to a memory all instances share marks all.
    Both ways of watching: native's row fingerprints, and the copies other backends compare."""
    from ptogpu.backend import native_backend
    from ptogpu.execution import single
    from ptogpu.execution.batch import run_chunk
    from ptogpu.execution.single import layout
    ok, why = native_backend.available()
    if not ok:
        pytest.skip(why)
    init = single.Watch.__init__

    def watch(self, core, keep):
        init(self, core, keep)
        assert self.prints == (core.backend == "native")
        self.prints = prints
    monkeypatch.setattr(single.Watch, "__init__", watch)
    from ptogpu.execution import batch
    monkeypatch.setattr(batch.engine, "covers", lambda c, g: False)   # the batched core's watch
    cfg = FuzzConfig(target="a5", mode="elem", oob="clamp", rows=4, cols=8)
    gen = Generator("mixed", 1)
    clean = run_chunk(cfg, np.arange(6), gen, "native")
    assert clean.path == "kernel" and not clean.stray.any()
    L = layout(cfg)
    end = L["dst_addr"] + L["dst_shape"][0] * L["dst_shape"][1] * L["T"]
    real = native_backend.launch_raw

    def planted(kernel, block, n, arenas, params, **kw):
        rec = real(kernel, block, n, arenas, params, **kw)
        ub, _, stride = arenas["ub"]
        ub[2 * stride + end + 40] ^= 1               # instance 2: past its destination
        return rec
    monkeypatch.setattr(native_backend, "launch_raw", planted)
    got = run_chunk(cfg, np.arange(6), gen, "native")
    assert got.stray.tolist() == [False, False, True, False, False, False]
    np.testing.assert_array_equal(got.outputs, clean.outputs)   # the destination is the same

    def shared(kernel, block, n, arenas, params, **kw):
        rec = real(kernel, block, n, arenas, params, **kw)
        gm, _, stride = arenas["gm"]
        assert stride == 0                           # the table: one row for every instance
        gm[3] ^= 1
        return rec
    monkeypatch.setattr(native_backend, "launch_raw", shared)
    assert run_chunk(cfg, np.arange(6), gen, "native").stray.all()

    def unshared(kernel, block, n, arenas, params, **kw):   # a kept range changes nothing
        rec = real(kernel, block, n, arenas, params, **kw)
        ub, _, stride = arenas["ub"]
        ub[4 * stride + end - 1] ^= 1                # instance 4: the last byte of its destination
        ub[5 * stride + L["dst_addr"] - 1] ^= 1      # instance 5: the byte before it
        return rec
    monkeypatch.setattr(native_backend, "launch_raw", unshared)
    got = run_chunk(cfg, np.arange(6), gen, "native")
    assert got.stray.tolist() == [False] * 5 + [L["dst_addr"] > 0]


def test_every_registered_instruction_is_served_by_each_layer():
    """The registry is the one list: configurations, the reproducer text and the batch API
    know every registered instruction (and no other)."""
    from ptogpu.execution.config import INSTRS
    from ptogpu.execution.instrs import REGISTRY
    from ptogpu import isa
    from ptogpu.fuzz.repro import lines_of
    assert set(INSTRS) == set(REGISTRY) == {i.name for i in isa.fuzzed()}
    assert all(callable(lines_of(n)) for n in REGISTRY)
    for name in REGISTRY:
        oob = {k: REGISTRY[name].defaults[k] for k in ("oob", "op") if k in REGISTRY[name].defaults}
        dt = REGISTRY[name].defaults.get("dtype", "float32")          # (the bitwise calls: integers)
        rows = min(2, REGISTRY[name].defaults.get("rows", 2))            # (TCI: one row)
        cfg = FuzzConfig(instr=name, target="a5", dtype=dt, rows=rows, cols=8, table_size=256, **oob)
        assert cfg.instruction is REGISTRY[name] and cfg.label.split()[0].lower().startswith(name[:5])
        res = run_batch(cfg, 5, seed=1, backend="numpy")
        vals = Generator("mixed", 1)(np.arange(5), cfg.n_idx, cfg.cap)
        for i in range(5):
            out, _ = run_single(cfg, vals[i])
            assert res.outputs[i].tobytes() == out.tobytes()
