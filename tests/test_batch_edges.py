"""Batches and campaigns agree with the single call on edge configurations (issue 12 §1)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptogpu.backend import backend_available
from ptogpu.execution.batch import run_batch
from ptogpu.fuzz.compare import campaign
from ptogpu.execution.config import FuzzConfig
from ptogpu.execution.rng import Generator
from ptogpu.execution.single import fault_code, run_single

BACKENDS = ["numpy"] + (["native"] if backend_available("native")[0] else [])
ZERO_CAP = [dict(table_size=0), dict(table_shape=(1, 1, 1, 0, 16))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("space,mode,target,kw", [
    (s, m, t, kw) for s, m, t, kw in itertools.product(["ub", "l1"], ["elem", "row"], ["cpu", "a2a3", "a5"], ZERO_CAP)
    if not (m == "row" and "table_size" in kw)])          # a Row table of 0 elements keeps one row
def test_wrap_with_capacity_zero_faults_in_batches_as_in_the_single_call(backend, space, mode, target, kw):
    cfg = FuzzConfig(space=space, mode=mode, target=target, oob="wrap", rows=4, cols=16, **kw)
    gen = Generator("mixed", 1)
    res = run_batch(cfg, 5, backend=backend, generator=gen)
    for i in range(5):
        out, f = run_single(cfg, gen(np.array([i]), cfg.n_idx, cfg.cap)[0])
        assert f is not None and "capacity 0" in f
        assert res.faults[i] == fault_code(f) and np.array_equal(res.outputs[i], out)


def test_a_campaign_on_capacity_zero_counts_the_faults():
    from ptogpu.fuzz.compare import campaign
    be = BACKENDS[-1]
    rep = campaign(FuzzConfig(oob="wrap", table_size=0), f"a5@{be}", f"a2a3@{be}", 50, shrink=False)
    assert rep.faults_a == rep.faults_b == 50 and rep.divergent == 0


def test_backend_names_are_checked_never_replaced_by_numpy():
    import subprocess
    import sys

    import ptogpu as pto
    from ptogpu.fuzz.compare import campaign
    cfg = FuzzConfig(table_size=100)
    for bad in ("gpu", "nativ", "bogus"):
        with pytest.raises(ValueError, match="unknown backend"):
            run_batch(cfg, 3, backend=bad)
        with pytest.raises(ValueError, match="unknown backend"):
            campaign(cfg, f"a5@{bad}", "a2a3", 3)
    if not backend_available("cupy")[0]:
        with pytest.raises(pto.BackendUnavailable, match="not available here"):
            run_batch(cfg, 3, backend="cupy")
        with pytest.raises(pto.BackendUnavailable):
            campaign(cfg, "a5@cupy", "a2a3@cupy", 3)
    rep = campaign(cfg, "a5@auto", "a2a3@numpy", 3, shrink=False)
    assert rep.a.backend in ("numpy", "native", "cupy")        # auto chooses and says which
    for argv in (["--backend", "gpu"], ["--pair", "a5@NATIV:a2a3"], ["--pair", "a5"]) + \
            ((["--backend", "cupy"],) if not backend_available("cupy")[0] else ()):
        r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", *argv, "-n", "5", "--quiet"],
                           capture_output=True, text=True)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (argv, r.stderr)


def test_a_campaign_a_side_rejects_compared_nothing_and_says_so():
    import json
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--dtype", "hifloat8", "--pair", "a2a3:a5",
                        "-n", "100", "--quiet"], capture_output=True, text=True)
    assert r.returncode == 2 and "compared nothing" in r.stdout and "every divergence" not in r.stdout
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--dtype", "hifloat8", "--pair", "a2a3:a5",
                        "-n", "100", "--json"], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    assert r.returncode == 2 and doc["compared_nothing"] == 1
    c = doc["campaigns"][0]
    assert c["compared"] == 0 and c["tiles_per_s"] == 0 and c["check_error"] and c["engine"].startswith("none")


EDGE = [(i, s, m, t, rc) for i, s, m, t, rc in itertools.product(
    ["mgather", "tgatherb", "tinterleave"], ["ub", "l1"], ["elem", "row"], ["cpu", "a2a3", "a5"],
    [(0, 16), (4, 0), (0, 0)]) if i == "mgather" or (s == "ub" and m == "elem")]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("instr,space,mode,target,shape", EDGE, ids=lambda v: str(v))
def test_empty_valid_regions_batch_like_the_single_call(backend, instr, space, mode, target, shape):
    """An empty valid region: the destination keeps what it held (0xAB), or what the target's
    routine writes anyway (the NPU GM->L1 Elem path zeroes the whole tile), never a traceback."""
    import warnings

    from ptogpu.errors import PtoCheckError
    try:
        cfg = FuzzConfig(instr=instr, space=space, mode=mode, target=target, oob="clamp", rows=shape[0],
                         cols=shape[1], table_size=256, dst_fill=0xAB)
    except ValueError:
        pytest.skip("not a configuration")
    gen = Generator("mixed", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = [run_single(cfg, gen(np.array([i]), cfg.n_idx, cfg.cap)[0]) for i in range(3)]
        except PtoCheckError:
            with pytest.raises(PtoCheckError):
                run_batch(cfg, 3, backend=backend, generator=gen)
            return
        res = run_batch(cfg, 3, backend=backend, generator=gen)
    for i, (out, f) in enumerate(ref):
        assert res.faults[i] == (fault_code(f) if f else 0) and np.array_equal(res.outputs[i], out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_huge_dynamic_valid_dims_fault_on_every_backend(backend):
    """TGATHERB, TINTERLEAVE and MGATHER into L1 with a valid region of 2^40 rows: a PtoFault
    naming the rule, at once (it was a MemoryError on numpy and an endless loop on native)."""
    import pathlib
    import subprocess
    import sys
    script = pathlib.Path(__file__).with_name("huge_valid_dims.py")
    r = subprocess.run([sys.executable, str(script), backend], capture_output=True, text=True, timeout=120)
    lines = r.stdout.strip().splitlines()
    assert r.returncode == 0 and len(lines) == 3, r.stdout + r.stderr
    assert all("PtoFault" in ln and "access outside arena" in ln and "cannot fit" in ln for ln in lines), lines


@pytest.mark.parametrize("argv", [["-n", "-5"], ["--shape", "0x16"], ["--shape", "16"], ["--table-size", "-5"],
                                  ["--quirk", "a5_dynamic_dim_cast"], ["--quirk", "a5_dynamic_dim_cast=maybe"],
                                  ["--dst-fill", "zz"], ["--dst-fill", "300"], ["--quirk", "nosuch=on"],
                                  ["--pair", "a5"], ["--bogus-option"]])
def test_fuzz_command_lines_it_cannot_run_end_in_one_line_and_exit_2(argv):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", "--quiet", "--no-shrink", *argv],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, (argv, r.stderr)


def test_pipes_interrupts_and_bad_simt_options_end_cleanly():
    import signal
    import subprocess
    import sys
    import time
    cmd = [sys.executable, "-m", "ptogpu"]
    # `| head`: the reader leaves; no BrokenPipeError traceback
    p = subprocess.Popen(cmd + ["fuzz", "--suite", "known", "-n", "2000", "--no-shrink"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141 and "Traceback" not in err
    # Ctrl-C: one line, status 130, the summary of what finished
    p = subprocess.Popen(cmd + ["fuzz", "-n", "100000000", "--no-shrink", "--quiet", "--pair", "a5:a2a3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and "interrupted" in out + err and "Traceback" not in err
    for argv in (["simt", "show", "--what", "bogus"], ["simt", "sweep", "--dtype", ","]):
        r = subprocess.run(cmd + argv, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (argv, r.stderr)
    r = subprocess.run(cmd + ["--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("ptogpu ")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_tgatherb_offsets_reading_the_destination_see_its_bytes(backend, target):
    """Offsets that land in the destination (or the offset tile) read what the single call's
    UB holds there: the destination's fill, not the batch image's zeros."""
    def offsets(inst, n, cap):      # a pure function of the instance: byte offsets 0 .. 699
        j = np.arange(n)[None, :]
        return ((inst[:, None] * 7919 + j * 104729 + 13) * 2654435761 % (1 << 31)) % 700
    cfg = FuzzConfig(instr="tgatherb", space="ub", mode="elem", target=target, rows=4, cols=16,
                     table_size=64, dst_fill=0xAB, dtype="int32")
    gen = Generator(offsets)
    res = run_batch(cfg, 8, backend=backend, generator=gen)
    for i in range(8):
        out, f = run_single(cfg, gen(np.array([i]), cfg.n_idx, cfg.cap)[0])
        assert res.faults[i] == (fault_code(f) if f else 0) and np.array_equal(res.outputs[i], out), i


@pytest.mark.parametrize("backend", BACKENDS)
def test_instance_numbers_stop_at_2_63(backend):
    """Instance numbers are int64: the last one (2^63 - 1) batches like the single call; a run
    that would pass it, or start below 0, is a ValueError before anything runs."""
    cfg = FuzzConfig(instr="mgather", space="ub", mode="elem", target="a5", rows=4, cols=8, table_size=64)
    last = (1 << 63) - 1
    res = run_batch(cfg, 2, start=last - 1, backend=backend)
    gen = Generator("mixed", 0)
    for k, i in enumerate((last - 1, last)):
        out, f = run_single(cfg, gen(np.array([i]), cfg.n_idx, cfg.cap)[0])
        assert np.array_equal(res.outputs[k], out) and res.faults[k] == (fault_code(f) if f else 0)
    for start, n in ((last, 2), (1 << 63, 1), (-1, 3), (0, -5)):
        with pytest.raises(ValueError, match="instances|negative"):
            run_batch(cfg, n, start=start, backend=backend)
        with pytest.raises(ValueError, match="instances|negative"):
            campaign(cfg, "a5.simt", "a2a3", n, start=start)


def test_the_python_api_defaults_to_auto_and_says_which_backend_ran():
    from ptogpu.backend import resolve_backend
    auto = resolve_backend("auto")[0]
    cfg = FuzzConfig(rows=4, cols=8, table_size=64)
    assert run_batch(cfg, 4).backend == auto
    assert run_batch(cfg, 4, backend="numpy").backend == "numpy"
    rep = campaign(cfg, "a5", "a2a3", 50)
    assert rep.a.backend == rep.b.backend == auto
    assert rep.to_json()["sides"]["a"]["backend"] == auto


def test_backend_names_are_case_insensitive_and_still_validated():
    import ptogpu as pto
    assert pto.Core("a5", "NumPy").backend == "numpy"
    assert run_batch(FuzzConfig(rows=2, cols=8, table_size=64), 2, backend="NUMPY").backend == "numpy"
    with pytest.raises(ValueError, match="unknown backend"):
        pto.Core("a5", "Gpu")


def test_a_campaign_table_is_built_in_about_its_own_size():
    """The shared table (1..97 repeating) is built by copying one converted period: the peak
    memory is the table itself, not int32/int64 temporaries of its length."""
    import tracemalloc

    from ptogpu.execution.config import table_values
    n = 4_000_000
    tracemalloc.start()
    try:
        v = table_values(n, "bfloat16")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert v.nbytes == 2 * n and peak < 1.1 * v.nbytes, peak
    assert v[:3].astype(float).tolist() == [1, 2, 3] and float(v[96]) == 97 and float(v[97]) == 1
    assert float(v[-1]) == (n - 1) % 97 + 1
