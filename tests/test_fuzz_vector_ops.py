"""TCMP, TCMPS (tile form), TSEL and TCVT as single-instruction campaigns (``ptogpu fuzz --instr tcmp
--op lt``, ``--instr tcvt --op int32.rint`` ...): the generated values are the operands' bits (and
TSEL's mask bytes); every cross-target
divergence is explained by a rule field of the compare table, the expected rule shows up where the
targets' rules differ, a static check that rejects a side is reported as such, and each class's
reproducer runs."""
from __future__ import annotations

import numpy as np
import pytest

from ptogpu.fuzz import FuzzConfig
from ptogpu.fuzz import compare as C
from ptogpu.fuzz import rules as R

CASES = [  # (call, op, dtype, pair, a rule the campaign must show or None)
    ("tcmp", "lt", "float32", "cpu:a2a3", "TCMP mask packing"),
    ("tcmp", "eq", "half", "cpu:a5", None),
    ("tcmp", "ne", "int32", "a5:a2a3", None),
    ("tcmps", "le", "half", "cpu:a5", "TCMPS layout"),
    ("tcmps", "gt", "float32", "a5:a2a3", None),
    ("tcmps", "eq.scalar", "half", "cpu:a2a3", "TCMPS layout"),      # a scalar per instance
    ("tcmps", "lt.scalar", "int32", "a5:a2a3", None),
    ("tsel", "", "float32", "cpu:a5", "mask walk"),
    ("tsel", "", "int16", "cpu:a2a3", "mask walk"),
    ("tcvt", "int32.rint", "float32", "cpu:a5", "TCVT rounding and saturation"),
    ("tcvt", "int8.trunc.off", "float32", "cpu:a2a3", "TCVT pair list"),      # a2a3: compiles, writes nothing
    ("tcvt", "half.floor", "float32", "a5:a2a3", None),
    ("tcvt", "int16.round.on", "half", "cpu:a5", None),
    ("tcvt", "float4_e2m1x2.rint", "bfloat16", "cpu:a5", "TCVT 8- and 4-bit types"),
    ("tcvt", "bfloat16.rint", "float4_e1m2x2", "cpu:a5", "TCVT 8- and 4-bit types"),
    ("tcvt", "int4.floor", "half", "cpu:a2a3", None),
    ("tsort32", "", "float32", "cpu:a5", "TSORT32 tail block"),
    ("tsort32", "", "half", "a5:a2a3", None),
    ("tmov", "", "int8", "cpu:a2a3", "TMOV engine"),
    ("tmov", "half", "float32", "cpu:a5", "TMOV engine"),       # the simulator converts the value
    ("tmov", "", "int16", "a5:a2a3", None),
    ("tsels", "", "float32", "cpu:a2a3", None),
    ("tsels", "", "half", "a5:a2a3", None),
]


@pytest.mark.parametrize("call,op,dtype,pair,want", CASES)
def test_every_divergence_is_explained(call, op, dtype, pair, want):
    a, b = pair.split(":")
    fill = 0xAB if call in ("tmov", "tsels") else 0
    rep = C.campaign(FuzzConfig(instr=call, op=op, rows=2, cols=20, oob="undefined", dtype=dtype, dst_fill=fill),
                     f"{a}@numpy",
                     f"{b}@numpy", 300, seed=3, shrink=False)
    assert rep.check_error is None
    assert all(R.explained(c.mask) for c in rep.classes.values()), (call, pair, rep.classes)
    if want:
        assert any(want in c.name for c in rep.classes.values()), [c.name for c in rep.classes.values()]


def test_a_static_check_is_reported_not_compared():
    # A2/A3's TCMP takes int32, half and float32 sources only (a2a3/TCmp.hpp static_assert)
    rep = C.campaign(FuzzConfig(instr="tcmp", op="lt", rows=2, cols=16, oob="undefined", dtype="int16"),
                     "cpu@numpy", "a2a3@numpy", 50, shrink=False)
    assert rep.check_error and "TCMP" in rep.check_error and rep.divergent == 0


def test_the_mask_is_what_the_rule_says():
    # the packed mask of one generated instance against a golden computed here: bit c of byte
    # c / 8 of row r = src0[r, c] < src1[r, c] (A5 chunks: the bits past VC zero, the rest kept)
    from ptogpu.execution.single import run_single
    cfg = FuzzConfig(instr="tcmp", op="lt", target="a5", rows=2, cols=20, oob="undefined", dtype="int32")
    rng = np.random.default_rng(0)
    vals = rng.integers(-5, 5, size=cfg.n_idx)
    out, fault = run_single(cfg, vals)
    assert fault is None
    x, y = vals[:40].reshape(2, 20).astype(np.int32), vals[40:].reshape(2, 20).astype(np.int32)
    bits = np.zeros((2, 24), bool)
    bits[:, :20] = x < y
    want = np.packbits(bits, axis=1, bitorder="little")
    got = out.reshape(2, 32)[:, :3]
    assert got.tobytes() == want.tobytes()


def test_an_op_is_required_and_checked():
    with pytest.raises(ValueError, match="op"):
        FuzzConfig(instr="tcmp", op="", oob="undefined")
    with pytest.raises(ValueError, match="op"):
        FuzzConfig(instr="tsel", op="lt", oob="undefined")


def test_a_class_reproducer_runs():
    rep = C.campaign(FuzzConfig(instr="tsel", rows=2, cols=16, oob="undefined"), "cpu@numpy", "a2a3@numpy", 60,
                     seed=0)
    (c, *_) = rep.classes.values()
    exec(compile(c.reproducer, "repro", "exec"), {})


def test_the_conversion_is_what_the_rule_says():
    # A5 float32 -> int32 CAST_RINT: round half to even (values in range, so no saturation rule)
    from ptogpu.execution.single import run_single
    cfg = FuzzConfig(instr="tcvt", op="int32.rint", target="a5", rows=1, cols=8, oob="undefined")
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 3.7, -3.7, 1e6 + 0.5], np.float32)
    out, fault = run_single(cfg, x.view(np.uint32).astype(np.int64))
    assert fault is None
    assert out[:32].view(np.int32).tolist() == [0, 2, 2, 0, -2, 4, -4, 1000000]


def test_tcvt_refuses_a_pair_a5_does_not_convert():
    rep = C.campaign(FuzzConfig(instr="tcvt", op="half.odd", dtype="int32", rows=2, cols=16, oob="undefined"),
                     "cpu@numpy", "a5@numpy", 50, shrink=False)
    assert rep.check_error and "int32 -> half" in rep.check_error


def test_tcvt_reproducer_runs():
    rep = C.campaign(FuzzConfig(instr="tcvt", op="int32.floor", rows=1, cols=16, oob="undefined"), "cpu@numpy",
                     "a2a3@numpy", 60, seed=0)
    (c, *_) = rep.classes.values()
    exec(compile(c.reproducer, "repro", "exec"), {})


def test_tsort32_records_are_what_the_rule_says():
    # A5, one full block of distinct values: sorted descending, (value, idx) records of 8 bytes
    from ptogpu.execution.single import run_single
    cfg = FuzzConfig(instr="tsort32", target="a5", rows=1, cols=32, oob="undefined")
    x = (np.arange(32, dtype=np.float32) * 1.5 - 7)[::-1].copy()
    np.random.default_rng(1).shuffle(x)
    ix = np.arange(100, 132, dtype=np.uint32)
    out, fault = run_single(cfg, np.concatenate([x.view(np.uint32), ix]).astype(np.int64))
    assert fault is None
    order = np.argsort(-x, kind="stable")
    rec = out[:256].view(np.uint32).reshape(32, 2)
    assert rec[:, 0].tobytes() == x[order].tobytes() and rec[:, 1].tolist() == ix[order].tolist()


def test_tsort32_reproducer_runs():
    rep = C.campaign(FuzzConfig(instr="tsort32", rows=1, cols=40, oob="undefined"), "cpu@numpy", "a5@numpy", 20,
                     seed=0)
    for c in rep.classes.values():
        exec(compile(c.reproducer, "repro", "exec"), {})


def test_tmov_copies_the_valid_region_on_a5():
    # A5's predicated register copy: the valid 2x5 region moved, the rest of dst kept (0xAB)
    from ptogpu.execution.single import run_single
    cfg = FuzzConfig(instr="tmov", target="a5", rows=2, cols=5, dtype="int16", oob="undefined", dst_fill=0xAB)
    vals = np.arange(1, 11)
    out, fault = run_single(cfg, vals)
    assert fault is None
    want = np.full((2, 16), 0xABAB, np.uint16)
    want[:, :5] = vals.reshape(2, 5)
    assert out.tobytes() == want.tobytes()


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_tmov_from_an_nz_source_into_l1_is_a5s_bursts(backend):
    # --space l1 --layout nz: src an NZ tile 16 rows taller than dst (32x32 int16 for a 16x32
    # dst). A5 (a5/TExtract.hpp: copy_ubuf_to_cbuf) moves ceil(VC / C0) = 2 bursts of ceil16(VR)
    # = 16 blocks, burst k from src + k * (16 + 16) * 32 bytes: each of src's column blocks, its
    # first 16 rows -- fresh UB zeros beyond the valid 3x20 -- over the whole dst. The simulator
    # copies the valid elements, leaving dst's 0xAB elsewhere.
    from ptogpu.backend import native_backend
    from ptogpu.execution.single import run_single
    if backend == "native" and not native_backend.available()[0]:
        pytest.skip("no native backend")
    vals = np.arange(1, 61)
    r, c = np.divmod(np.arange(60), 20)
    nz = (c // 16) * 256 + r * 16 + c % 16                  # dst's NZ element offsets, 16x32
    for target, fill in (("a5", 0), ("cpu", 0xABAB)):
        cfg = FuzzConfig(instr="tmov", target=target, space="l1", layout="nz", rows=3, cols=20,
                         dtype="int16", oob="undefined", dst_fill=0xAB)
        out, fault = run_single(cfg, vals, backend)
        assert fault is None
        want = np.full(16 * 32, fill, np.uint16)
        want[nz] = vals
        assert out.tobytes() == want.tobytes(), target


def test_tmov_takes_an_nz_source_only_into_l1():
    from ptogpu.execution.instrs import REGISTRY
    with pytest.raises(ValueError, match="layouts other than nd"):
        REGISTRY["tmov"].validate(FuzzConfig(instr="tmov", layout="nz", oob="undefined"))


def test_tsels_selects_with_a_scalar_per_instance():
    # a core of N: each instance's scalar is its own last generated value
    from ptogpu.execution.batch import run_batch
    from ptogpu.execution.rng import Generator
    cfg = FuzzConfig(instr="tsels", target="a5", rows=1, cols=16, oob="undefined", dtype="int32")
    res = run_batch(cfg, 5, seed=2, backend="numpy")
    vals = Generator("mixed", 2)(np.arange(5), cfg.n_idx, cfg.cap)
    for k in range(5):
        mask = vals[k, :32].astype(np.uint8)
        src = vals[k, 32:48].astype(np.uint64).astype(np.uint32).view(np.int32)
        s = np.int64(vals[k, 48]).astype(np.uint64).astype(np.uint32).view(np.int32)
        bits = np.unpackbits(mask[:2], bitorder="little")[:16].astype(bool)
        want = np.where(bits, src, s)
        assert res.outputs[k].view(np.int32)[:16].tolist() == want.tolist()


def test_tmrgsort_merges_two_generated_lists():
    # two lists sorted descending here: the merged records are every key in descending order with
    # its index; the simulator writes the executed counts (every record of both lists), A5 only
    # in exhausted mode (sort.counts_always)
    from ptogpu.execution.single import run_single
    cfg = FuzzConfig(instr="tmrgsort", target="cpu", rows=1, cols=8, oob="undefined", dst_fill=0)
    keys = np.array([3.5, -1, 7, 0.25, 2, 9, -4, 1, 6, 5.5, -2, 8, 0, 4, 3, 10], np.float32)
    out, fault = run_single(cfg, keys.view(np.uint32).astype(np.int64))
    assert fault is None
    rec = out[:128].view(np.uint32).reshape(16, 2)
    order = np.argsort(-keys, kind="stable")
    assert rec[:, 0].view(np.float32).tolist() == keys[order].tolist()
    assert rec[:, 1].tolist() == [int(i) if i < 8 else 1000 + int(i) - 8 for i in
                                  [np.flatnonzero(np.sort(keys[:8])[::-1] == keys[j])[0] if j < 8 else
                                   8 + np.flatnonzero(np.sort(keys[8:])[::-1] == keys[j])[0] for j in order]]
    assert out[128:136].view(np.uint32).tolist() == [8, 8]
    out5, _ = run_single(cfg.with_(target="a5"), keys.view(np.uint32).astype(np.int64))
    assert out5[:128].tobytes() == out[:128].tobytes() and out5[128:136].view(np.uint32).tolist() == [0, 0]


def test_tmrgsort_campaign_explains_and_reproduces():
    rep = C.campaign(FuzzConfig(instr="tmrgsort", rows=1, cols=6, oob="undefined", dst_fill=0xAB), "cpu@numpy",
                     "a2a3@numpy", 40, seed=1)
    assert rep.classes and all(R.explained(m) for m in rep.classes)
    for c in rep.classes.values():
        exec(compile(c.reproducer, "repro", "exec"), {})


def test_a_wrong_op_is_one_line_exit_2():
    import subprocess
    import sys
    for args, want in ((["--instr", "tadd", "--op", "lt"], "takes no op"),
                       (["--instr", "tcvt", "--op", "bogus"], "DST.ROUND[.SAT]"),
                       (["--instr", "tcmp", "--op", "xx"], "eq, ne, lt")):
        r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", *args, "-n", "10"], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 2 and want in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)


def test_a_kernel_backend_whose_kernel_leaves_the_call_to_numpy_says_so():
    """TCVT to a float4 type runs the NumPy semantics on every backend (cvt.cu has no 4-bit
    kinds): a native campaign reports it executed formulas, each side its own reference -- not
    loops checked against NumPy; a conversion the kernel takes still reports loops."""
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    four = C.campaign(FuzzConfig(instr="tcvt", op="float4_e2m1x2.rint", rows=2, cols=32, oob="undefined",
                                 dtype="bfloat16"), "cpu@native", "a5@native", 100, shrink=False)
    assert four.executed == {"a": "formula", "b": "formula"}
    assert set(four.references.values()) == {"none: this side is the numpy semantics itself"}
    eight = C.campaign(FuzzConfig(instr="tcvt", op="float8_e4m3.rint", rows=2, cols=32, oob="undefined",
                                  dtype="float32"), "cpu@native", "a5@native", 100, shrink=False)
    assert eight.executed == {"a": "loop", "b": "loop"} and set(eight.references.values()) == {"numpy semantics"}
