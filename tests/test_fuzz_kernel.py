"""Fuzzing a user's own kernel (ptogpu.fuzz.kernel, ptogpu fuzz --kernel): the shipped
examples, a planted divergence found at its call, shrunk and reproduced, the inputs'
generators, the report family (JSON, shards), and kernels that misbehave."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.execution.inputs import draw, indices, values
from ptogpu.execution.program import load, run_program
from ptogpu.fuzz import rules as R
from ptogpu.fuzz.user_kernel import KernelReport, kernel
from ptogpu.fuzz.spec import CampaignSpec, run_sharded

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PLANTED = os.path.join(HERE, "kernels", "planted.py")
EXAMPLES = os.path.join(ROOT, "examples")


def line(marker: str) -> int:
    """The line of tests/kernels/planted.py that holds ``marker``."""
    with open(PLANTED) as f:
        return next(i for i, ln in enumerate(f, 1) if marker in ln)


PLANT = f"planted.py:{line('gather(b, Tab(table + shift), it)')}"


def _classes(rep):
    return {c.name: c.count for c in rep.classes.values()}


def test_the_planted_divergence_is_found_at_its_call_shrunk_and_reproduced(capsys):
    rep = kernel(f"{PLANTED}:planted", n=300, backend="numpy")
    (c,) = rep.classes.values()
    assert c.call == f"call 3 MGATHER at {PLANT}" and c.mask == R.UNEXPLAINED and c.count == 300
    assert rep.unexplained == 300 and rep.divergent == 300
    assert c.shrunk["inputs"]["ids"] == [0] * 8                # the smallest input that shows it
    exec(compile(c.reproducer, "repro", "exec"), {})
    out = capsys.readouterr().out
    assert f"first diverging call: call 3 MGATHER at {PLANT}" in out
    assert "out 16 differing bytes" in out


def test_the_examples(capsys):
    bag = kernel(f"{EXAMPLES}/embedding_bag.py:embedding_bag", n=2000, backend="numpy", shrink=False)
    assert _classes(bag) == {"call 2 MGATHER at embedding_bag.py:26: row source address rule (fault vs value)": 3}
    inter = kernel(f"{EXAMPLES}/interleave_gathers.py:interleave_gathers", n=500, backend="numpy")
    got = _classes(inter)
    assert set(got) == {"call 3 MGATHER at interleave_gathers.py:26: index cast width",
                        "call 4 MGATHER at interleave_gathers.py:27: index cast width"}
    for c in inter.classes.values():                  # each class's script shows its own call
        exec(compile(c.reproducer, "repro", "exec"), {})
        assert f"first diverging call: {c.call}" in capsys.readouterr().out
    moe = kernel(f"{EXAMPLES}/moe_dispatch.py:moe_dispatch", n=300, backend="numpy")
    assert moe.divergent == 0 and moe.faults_a == moe.faults_b == 0


def test_a_kernel_side_is_checked_against_its_numpy_reference():
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    rep = kernel(f"{EXAMPLES}/interleave_gathers.py:interleave_gathers", pair="a5@native:a5@numpy", n=400,
                 shrink=False)
    assert rep.divergent == 0 and rep.ref_bad_a == 0 and rep.executed == {"a": "lanes+loop", "b": "formula"}
    assert rep.calls_ran == {"a": {"MGATHER": "lanes", "TINTERLEAVE": "loop", "TLOAD": "loop", "TSTORE": "loop"}}
    rep = kernel(f"{PLANTED}:planted", pair="cpu@native:a5@native", n=200, shrink=False)
    assert _classes(rep) == {f"call 3 MGATHER at {PLANT}: unexplained": 200}


def test_a_kernel_campaign_says_what_each_call_ran():
    """``executed`` is what the sides' calls ran, not what the target could: a kernel of no
    gather on A5 executes no lanes; a call with no kernel says formula; on NumPy every call is a
    formula and no call is listed. The per-call record survives JSON and shards."""
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    add = os.path.join(HERE, "kernels", "add_store.py") + ":add_store"
    rep = kernel(add, pair="a5@native:a2a3@native", n=300, shrink=False)
    calls = {"TLOAD": "loop", "TADD": "loop", "TSTORE": "loop", "TEXPANDS": "formula"}
    assert rep.calls_ran == {"a": calls, "b": calls}
    assert rep.executed == {"a": "loop+formula", "b": "loop+formula"}
    from ptogpu.fuzz.report_text import format_report
    text = format_report("add", rep)
    assert "executed: a5@native loop+formula, a2a3@native loop+formula" in text
    assert "calls: a5@native TADD loop, TEXPANDS formula, TLOAD loop, TSTORE loop; a2a3@native" in text
    back = KernelReport.from_json(json.loads(json.dumps(rep.to_json())))
    assert back.calls_ran == rep.calls_ran and back.executed == rep.executed
    merged = KernelReport.merge([rep, back.__class__.from_json({**rep.to_json(), "start": 300})])
    assert merged.calls_ran == rep.calls_ran
    rep = kernel(add, pair="cpu@numpy:a5@native", n=100, shrink=False)
    assert rep.executed == {"a": "formula", "b": "loop+formula"} and set(rep.calls_ran) == {"b"}


def _corrupting(monkeypatch, plants: dict):
    """Kernel runs on native whose output byte 0 is flipped at the given instances, per
    target: an emulator bug the references must find (``plants``: instance -> targets)."""
    from ptogpu.fuzz import user_kernel as U
    real = U.run_program

    def run(prog, target, backend, data, **kw):
        r = real(prog, target, backend, data, **kw)
        if backend == "native":
            first = kw.get("first", 0)
            for inst, targets in plants.items():
                if target in targets and 0 <= inst - first < len(r.outputs):
                    r.outputs[inst - first, 0] ^= 1
        return r
    monkeypatch.setattr(U, "run_program", run)
    monkeypatch.setenv("PTOGPU_WORKERS", "0")


def test_a_faulting_instance_s_bytes_are_checked_against_its_reference(monkeypatch):
    """An instance that faults keeps what it wrote before, on every backend: a side on a kernel
    backend whose faulting instance's bytes differ from its target's NumPy run is an emulator
    bug, and so are two sides of one target that differ there (faulting alike or not). Across
    targets, sides that fault in the same phase agree whatever their bytes."""
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    bag = f"{EXAMPLES}/embedding_bag.py:embedding_bag"        # (instance 0 faults on both targets)
    _corrupting(monkeypatch, {0: ("a5",)})
    rep = kernel(bag, pair="a5@native:a5@numpy", n=300, chunk=300, shrink=False)
    assert rep.faults_a > 250 and rep.ref_bad_a == 1
    assert {c.name: c.first for c in rep.classes.values() if R.is_bug(c.mask)}["side A vs its reference"] == [0]
    rep = kernel(bag, pair="cpu@native:a5@native", n=300, chunk=300, shrink=False)
    assert rep.ref_bad_b == 1 and rep.ref_bad_a == 0


def test_references_check_a_sample_and_every_divergent_instance_or_all(monkeypatch):
    from ptogpu.backend import native_backend
    from ptogpu.fuzz.user_kernel import REF_SAMPLED, SAMPLE
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    moe = f"{EXAMPLES}/moe_dispatch.py:moe_dispatch"        # (no instance faults or diverges)
    # instance 700: both sides wrong alike (no divergence: outside the sample, only "all" sees it);
    # 800: side A alone (a divergence: checked under either policy); 100: in the sample
    _corrupting(monkeypatch, {700: ("cpu", "a5"), 800: ("cpu",), 100: ("a5",)})
    rep = kernel(moe, pair="cpu@native:a5@native", n=1000, chunk=1000, shrink=False)
    j = rep.to_json()["references"]
    assert rep.references == {"a": REF_SAMPLED, "b": REF_SAMPLED}
    assert j["a"]["checked"] == j["b"]["checked"] == SAMPLE + 1        # the first SAMPLE, and 800
    assert (rep.ref_bad_a, rep.ref_bad_b) == (1, 1)
    bugs = {c.name: c.first for c in rep.classes.values() if R.is_bug(c.mask)}
    assert bugs == {"side A vs its reference": [800], "side B vs its reference": [100]}
    full = kernel(moe, pair="cpu@native:a5@native", n=1000, chunk=1000, shrink=False, references="all")
    j = full.to_json()["references"]
    assert j["a"]["checked"] == j["b"]["checked"] == 1000 and (full.ref_bad_a, full.ref_bad_b) == (2, 2)
    assert full.references["a"] == "numpy semantics"
    with pytest.raises(ValueError, match="references='some'"):
        kernel(moe, n=10, references="some")


def test_a_kernel_without_inputs_is_one_instance_checked_for_all():
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    Out = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]

    def fill(out):
        t = pto.Tile[pto.TileType.Vec, pto.float32, 1, 8]()
        pto.TASSIGN(t, 0)
        pto.TEXPANDS(t, 1.5)
        pto.TSTORE(Out(out), t)
    rep = kernel(fill, outputs={"out": (8, pto.float32)}, pair="cpu@native:a5@native", n=700, shrink=False)
    j = rep.to_json()["references"]
    assert rep.divergent == 0 and j["a"]["checked"] == j["b"]["checked"] == 700


def test_references_travel_in_the_campaign_spec_and_its_shards():
    prog = load(f"{PLANTED}:planted")
    spec = CampaignSpec.of(prog, "cpu@numpy", "a5@native", 300, references="all", chunk=100)
    back = CampaignSpec.from_json(json.loads(json.dumps(spec.to_json())))
    assert back.references == "all"
    with pytest.raises(ValueError, match="references 'most': sample or all"):
        CampaignSpec.of(prog, "cpu", "a5", 10, references="most")
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        return
    merged = run_sharded(CampaignSpec.of(prog, "cpu@numpy", "a5@native", 900, chunk=300), 3, None, shrink=False)
    j = merged.to_json()["references"]
    assert j["a"]["checked"] == 0 and j["b"]["checked"] == 900         # every instance diverges: all checked
    assert merged.references["b"].startswith("numpy semantics on a sample")


def test_inputs_are_a_pure_function_of_seed_name_and_instance():
    ins = {"i": indices((2, 3), cap=(5, 9), dtype="uint16"), "v": values(4, "bfloat16"), "s": values(3, "half", "small")}
    whole = draw(ins, 7, np.arange(50))
    part = draw(ins, 7, np.arange(20, 30))
    for k in ins:
        np.testing.assert_array_equal(whole[k][20:30].view(np.uint8), part[k].view(np.uint8))
    assert whole["i"].shape == (50, 2, 3) and whole["i"].dtype == np.uint16
    assert whole["v"].dtype == pto.bfloat16 and not np.array_equal(draw(ins, 8, np.arange(50))["i"], whole["i"])
    assert (whole["s"].astype(np.float32) <= 15).all()
    with pytest.raises(ValueError, match="integer type"):
        indices(4, 8, "float32")


def test_call_logs_name_each_call_and_its_bytes():
    prog = load(f"{PLANTED}:planted")
    run = run_program(prog, "a5", "numpy", draw(prog.inputs, 0, np.arange(3)), trace=True)
    assert [c.describe() for c in run.calls] == [
        f"call 1 TLOAD at planted.py:{line('pto.TLOAD(it, Idx(ids))')}",
        f"call 2 MGATHER at planted.py:{line('gather(a, Tab(table), it)')}", f"call 3 MGATHER at {PLANT}",
        f"call 4 TSTORE at planted.py:{line('pto.TSTORE(Out(out), b)')}"]
    ids = draw(prog.inputs, 0, np.arange(3))["ids"]
    b = run.calls[2].outputs[0][:, :32].view(np.float32)
    np.testing.assert_array_equal(b, np.minimum(ids, 63).astype(np.float32) + 1)    # table + 1: the plant


def test_reports_read_back_and_shards_merge_to_the_whole_run():
    prog = load(f"{PLANTED}:planted")
    spec = CampaignSpec.of(prog, "cpu@numpy", "a5@numpy", 120, seed=3)
    whole = spec.run(shrink=False)
    doc = json.loads(json.dumps(whole.to_json()))
    assert doc["family"] == "kernel" and doc["classes"][0]["call"] == f"call 3 MGATHER at {PLANT}"
    back = KernelReport.from_json(doc)
    assert back.to_json()["classes"] == doc["classes"]
    merged = run_sharded(spec, 3, None, shrink=False)
    assert [(c.name, c.count, c.first) for c in merged.classes.values()] == \
        [(c.name, c.count, c.first) for c in whole.classes.values()]


def test_worker_processes_give_the_same_report(monkeypatch):
    monkeypatch.setenv("PTOGPU_WORKERS", "2")
    pooled = kernel(f"{PLANTED}:planted", n=600, chunk=100, backend="numpy", shrink=False)
    monkeypatch.setenv("PTOGPU_WORKERS", "0")
    here = kernel(f"{PLANTED}:planted", n=600, chunk=100, backend="numpy", shrink=False)
    assert "worker process" in pooled.engine
    assert [(c.name, c.count, c.first) for c in pooled.classes.values()] == \
        [(c.name, c.count, c.first) for c in here.classes.values()]


@pytest.mark.parametrize("fn, msg", [
    ("raises", f"instance 0: the kernel raised KeyError: 'no such key' (planted.py:{line('no such key')})"),
    ("returns", "the kernel returned int; a kernel writes its outputs and returns nothing"),
    ("strays", f"the kernel wrote GM outside its buffers (by call 1 TSTORE at planted.py:{line('out + 8')})"),
    ("loops", "the kernel ran past the time limit (1 s for a chunk), at planted.py:"),
    ("strays_early", f"outside its buffers (by call 1 TSTORE at planted.py:{line('the stray write')})"),
    ("exits", f"instance 0: the kernel raised SystemExit: 3 (planted.py:{line('SystemExit(3)')})"),
])
def test_a_kernel_that_misbehaves_is_one_line_and_exit_2(fn, msg):
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--kernel", f"{PLANTED}:{fn}", "-n", "50",
                        "--backend", "numpy", "--time-limit", "1", "--quiet"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_finished_chunks_are_reported_when_a_later_one_fails():
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--kernel", f"{PLANTED}:raises_later", "-n", "3000",
                        "--chunk", "500", "--backend", "numpy", "--quiet", "--no-shrink"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "instance 500: the kernel raised RuntimeError" in r.stderr
    assert "500 instances in" in r.stdout and f"call 3 MGATHER at {PLANT}: unexplained: 500" in r.stdout


@pytest.mark.parametrize("args, msg", [
    (["--kernel", "nowhere.py:fn"], "no file nowhere.py"),
    (["--kernel", f"{PLANTED}:nothing"], "no function 'nothing'"),
    (["--kernel", f"{PLANTED}:planted", "--mode", "row"], "no --mode"),
    (["--kernel", f"{PLANTED}:planted", "--pair", "cpu.last:a5"], "a kernel side is target[@backend]"),
    (["--time-limit", "3"], "--time-limit goes with --kernel"),
])
def test_bad_kernel_requests_are_one_line_exit_2(args, msg):
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "-n", "5", *args], capture_output=True, text=True)
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_the_cli_reports_the_classes_and_writes_reproducers(tmp_path):
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--kernel", f"{PLANTED}:planted", "-n", "100",
                        "--backend", "numpy", "--quiet", "--repro-dir", str(tmp_path), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr                  # an unexplained class fails the run
    doc = json.loads(r.stdout)
    (c,) = doc["campaigns"][0]["classes"]
    assert c["call"] == f"call 3 MGATHER at {PLANT}" and not c["explained"]
    (path,) = list(tmp_path.iterdir())
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and f"first diverging call: call 3 MGATHER at {PLANT}" in out.stdout


def test_a_kernel_campaign_in_shards_on_a_dask_cluster_is_the_local_run():
    pytest.importorskip("distributed")
    args = ["--kernel", f"{EXAMPLES}/interleave_gathers.py:interleave_gathers", "-n", "900", "--backend", "numpy",
            "--quiet", "--no-shrink", "--json"]
    here = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", *args], capture_output=True, text=True, timeout=300)
    far = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", *args, "--dask", "local:2", "--shards", "3"],
                         capture_output=True, text=True, timeout=300)
    assert here.returncode == far.returncode == 0, far.stderr
    a, b = (json.loads(r.stdout)["campaigns"][0] for r in (here, far))
    assert len(b["workers"]) == 3
    assert [(c["class"], c["count"], c["first"]) for c in a["classes"]] == \
        [(c["class"], c["count"], c["first"]) for c in b["classes"]]


HELPER = '''import ptogpu as pto
from ptogpu.core import current_core
N = 8
Idx = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]


def shift():
    return 1 if current_core().target.mgather.simt else 0      # a planted divergence
'''
KERNEL = '''import numpy as np
import ptogpu as pto
import ptogpu.fuzz
from kernel_helpers import N, Idx

Tab = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
Out = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]


def uses_helper(table, ids, out):
    from kernel_helpers import shift           # imported when the kernel runs, too
    it, b = pto.Tile[pto.TileType.Vec, pto.int32, 1, N](), pto.Tile[pto.TileType.Vec, pto.float32, 1, N]()
    pto.TASSIGN(it, 0)
    pto.TASSIGN(b, 0x100)
    pto.TLOAD(it, Idx(ids))
    pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](b, Tab(table + shift()), it)
    pto.TSTORE(Out(out), b)


FUZZ = dict(inputs={"ids": pto.fuzz.indices(N, cap=64)}, outputs={"out": (N, pto.float32)},
            fixed={"table": np.arange(64, dtype=np.float32)}, pair="cpu:a5")
'''


def test_a_kernel_file_imports_helpers_beside_it_in_campaigns_and_reproducers(tmp_path):
    """A real kernel file imports its own helpers: its folder is importable for the kernel
    (at load and at run time), for worker processes, and for the reproducers it writes."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kernel_helpers.py").write_text(HELPER)
    (src / "probe.py").write_text(KERNEL)
    repro = tmp_path / "repro"
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--kernel", f"{src}/probe.py:uses_helper", "-n", "60",
                        "--backend", "numpy", "--quiet", "--repro-dir", str(repro), "--json"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 1, r.stderr                  # the planted divergence, found
    (c,) = json.loads(r.stdout)["campaigns"][0]["classes"]
    assert c["call"] == "call 2 MGATHER at probe.py:16" and c["count"] == 60
    (path,) = list(repro.iterdir())
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd="/")
    assert out.returncode == 0, out.stderr
    assert "first diverging call: call 2 MGATHER at probe.py:16" in out.stdout


# -- real kernels: the vendor's hash probe, a CSR gather ------------------------------------------
def _hash_probe():
    import importlib.util
    spec = importlib.util.spec_from_file_location("hash_probe_example", os.path.join(EXAMPLES, "hash_probe.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_hash_probe_equals_the_vendors_golden_and_its_instances_leave_at_their_own_probe():
    """Three instances on one core of 3: one whose every query sits in its home slot (every lane
    is done at probe 0: it leaves the loop at once), one of misses in empty home slots (also
    at probe 0) mixed with hits, one of random queries (all 64 probes); each ends with the
    vendor's golden (its gen_data.py's scalar lookup), the core of 3 as three single cores."""
    H = _hash_probe()
    home = np.array([k for k in H.KEYS if H.TABLE_KEYS[int(H.hash_u32(np.array([k]))[0]) & (H.CAP - 1)] == k],
                    np.int32)
    rng = np.random.default_rng(3)
    q = np.stack([rng.choice(home, 256), np.where(rng.random(256) < 0.5, rng.choice(home, 256), 0),
                  rng.integers(-2 ** 31, 2 ** 31, 256)]).astype(np.int32)
    prog = load(f"{EXAMPLES}/hash_probe.py:hash_find_portable")
    for target in ("cpu", "a5"):
        run = run_program(prog, target, "numpy", {"queries": q})
        assert run.runs > 1                                   # the instances took their own exits
        for k in range(3):
            want = H.lookup(q[k], H.TABLE_KEYS, H.TABLE_VALS)
            assert run.outputs[k].view(np.int32).tolist() == want.tolist(), (target, k)
            one = run_program(prog, target, "numpy", {"queries": q[k:k + 1]})
            assert one.outputs[0].tobytes() == run.outputs[k].tobytes()


def test_the_real_kernels_fuzzed():
    """The portable hash probe agrees across cpu and a5; the vendor's own compiles on no NPU
    (A5: no castData for TCVT int32 -> uint32; A2/A3: TMULS has no uint32), which the campaign
    says instead of comparing; the CSR gather's out-of-x columns diverge by TGATHER's rule."""
    port = kernel(f"{EXAMPLES}/hash_probe.py:hash_find_portable", n=40, backend="numpy", pair="cpu:a5")
    assert port.divergent == 0 and port.n == 40 and not port.check_error
    for pair, why in (("cpu:a5", "no castData for int32 -> uint32"), ("cpu:a2a3", "TMULS: Invalid data type")):
        vendor = kernel(f"{EXAMPLES}/hash_probe.py:hash_find", n=10, backend="numpy", pair=pair)
        assert why in vendor.check_error
    csr = kernel(f"{EXAMPLES}/csr_gather.py:csr_gather", n=200, backend="numpy", shrink=False)
    assert _classes(csr) == {"call 4 TGATHER at csr_gather.py:97: TGATHER out-of-src0 index rule + TGATHER "
                             "index-to-address rule (fault vs value)": 200}


def test_the_topk_kernel_equals_the_vendors_golden_on_both_npus_and_is_fuzzed():
    import importlib.util
    spec = importlib.util.spec_from_file_location("topk_example", os.path.join(EXAMPLES, "topk.py"))
    K = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(K)
    rng = np.random.default_rng(5)
    src = np.zeros((K.VALID_ROW, K.COLS), np.float32)
    for i in range(K.VALID_ROW):                  # the vendor's gen_data.py: uniform(i, i + valid_col)
        src[i, :K.VALID_COL] = rng.uniform(i, i + K.VALID_COL, K.VALID_COL).astype(np.float32)
    gv, gi = K.golden(src)
    prog = load(f"{EXAMPLES}/topk.py:topk")
    for target in ("a2a3", "a5"):
        run = run_program(prog, target, "numpy", {"src": src.reshape(1, -1)})
        out = run.outputs[0]
        n = K.VALID_ROW * K.TOPK * 4
        assert out[:n].view(np.float32).reshape(K.VALID_ROW, -1).tolist() == gv.tolist(), target
        assert out[n:].view(np.uint32).reshape(K.VALID_ROW, -1).tolist() == gi.tolist(), target
    rep = kernel(f"{EXAMPLES}/topk.py:topk", n=30, backend="numpy")     # small values: many ties
    assert rep.divergent == 0 and rep.n == 30 and not rep.check_error
    cpu = kernel(f"{EXAMPLES}/topk.py:topk", n=5, backend="numpy", pair="cpu:a5")
    assert "Src stride must be consistent with the idx stride" in cpu.check_error   # A2/A3-only code


def test_a_traced_run_of_a_few_instances_makes_no_core_larger_than_the_program_s(monkeypatch):
    # a classification's small traced runs are padded to a kept core; a program whose buffers
    # allow cores of 4 once had them padded to 64 instances (a 126 MB-a-buffer PTO IR module:
    # 20 GB for 2 instances, and the worker was killed)
    import ptogpu.execution.program as P
    n = 8 << 20                                           # 32 MB a buffer: cores of 256 MB / 64 MB = 4
    prog = P.Program(_copy_big, {"src": values(n, pto.float32, gen="small")}, {"dst": (n, pto.float32)})
    assert prog.core_size() == 4
    made = []
    real = P._setup
    monkeypatch.setattr(P, "_setup", lambda prog, t, b, k, q: made.append(k) or real(prog, t, b, k, q))
    x = np.arange(2 * n, dtype=np.float32).reshape(2, n)
    run = run_program(prog, "cpu", "numpy", {"src": x}, trace=True)
    assert made and max(made) <= prog.core_size() and run.outputs.shape == (2, 4 * n)
    assert run.outputs[1].view(np.float32)[:16].tolist() == x[1, :16].tolist()


def _copy_big(src, dst):
    G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
    t = pto.Tile[pto.TileType.Vec, pto.float32, 1, 64]()
    pto.TASSIGN(t, 0)
    pto.TLOAD(t, G(src))
    pto.TSTORE(G(dst), t)


def test_a_tload_that_diverges_first_is_explained_by_tload_s_rules_past_the_int64_bits():
    """TLOAD's rule fields (its package's, no campaign of its own) take class bits from 64 on: a
    kernel campaign's masks are Python ints, and they read back from the report's JSON."""
    assert all(R.BY_PATH[p].bit >> R.WIDE for p in ("pad_values", "tload_fill", "tload_nd2nz", "tload_mat"))
    assert all(f.bit < 1 << R.MASK_BITS for f in R.FIELDS if not f.bit >> R.WIDE)
    prog = load("ptogpu.fuzz.suite_kernels:tload_pads")
    rep = kernel(prog, pair="cpu:a5", n=80, backend="numpy", shrink=False)
    parts = {p for c in rep.classes.values() for p in R.fields_of(c.mask)}
    assert {R.BY_PATH["pad_values"], R.BY_PATH["tload_fill"]} <= parts and rep.divergent == 80
    assert all(c.explained and c.call.startswith("call 3 TLOAD") for c in rep.classes.values())
    doc = json.loads(json.dumps(rep.to_json()))
    back = KernelReport.from_json(doc)
    assert sorted(c.mask for c in back.classes.values()) == sorted(c.mask for c in rep.classes.values())
    a5 = kernel(prog, pair="a2a3:a5", n=80, backend="numpy", shrink=False)
    assert {c.name.split(": ", 1)[1] for c in a5.classes.values()} == {"TLOAD Mat bursts"}
