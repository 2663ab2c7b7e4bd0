"""``ptogpu fuzz``: the default suite explains every divergence (exit 0), custom campaigns,
--json, and exit status 1 on unexplained divergences."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from ptogpu.cli import main
from ptogpu.fuzz import explain
from ptogpu.fuzz import rules as R
from ptogpu.fuzz import suite


def test_default_suite_json(capsys):
    """On numpy the suite runs the campaigns NumPy can (no shape fuzzing, no kernel checks), at
    their recorded sizes: every recorded class found with its recorded count."""
    assert main(["fuzz", "--json", "--backend", "numpy", "--no-shrink"]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = [k for k in suite.campaigns("numpy") if not k.needs_kernels]
    assert doc["unexplained_or_bugs"] == 0 and doc["regressions"] == [] and len(doc["campaigns"]) == len(want)
    assert doc["schema"] == "ptogpu.fuzz.run/2" and all(c["schema"] == "ptogpu.fuzz.report/2" for c in doc["campaigns"])
    for k, c in zip(want, doc["campaigns"]):
        assert c["title"] == k.title and \
            suite.without_lines({x["class"]: x["count"] for x in c["classes"]}) == suite.without_lines(k.expect)


def test_default_suite_checks_the_kernel_backend(capsys):
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    assert main(["fuzz", "--json", "--backend", "native", "--no-shrink"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["campaigns"]) == len(suite.campaigns("native")) and doc["regressions"] == []
    assert any(c["a"].startswith("a5.simt@native") and c["b"] == "a5.scalar@numpy" for c in doc["campaigns"])
    assert all(c["divergent"] == 0 for c in doc["campaigns"] if "must agree" in c["title"])
    assert all(c["references"]["a"]["mismatched"] == c["references"]["b"]["mismatched"] == 0
               for c in doc["campaigns"])
    assert any(c["shapes"] for c in doc["campaigns"] if "shapes" in c)
    classes = {c["class"] for camp in doc["campaigns"] for c in camp["classes"]}
    for name in ("index cast width", "capacity rule", "row source address rule", "TGATHERB engine",
                 "TINTERLEAVE odd VC", "tile offset rule", "race + conflict resolution", "race"):
        assert name in classes, (name, classes)


def test_a_kernel_that_leaves_its_calls_to_numpy_fails_the_known_campaign(monkeypatch, capsys):
    """Right bytes are not enough: a known campaign records how many instances each instruction
    kernel ran (suite.KERNELS), so a kernel whose checks decline every call -- NumPy then runs
    them, and the sides agree -- fails the campaign, and so does one that runs more."""
    from ptogpu.backend import native_backend
    from ptogpu.isa.tcvt import kernels as tk
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    want = suite.KERNELS["Kernels: cvt_edges a5: kernel vs NumPy: must agree"]
    assert main(["fuzz", "-k", "cvt_edges a5", "--backend", "native", "--no-shrink", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["campaigns"][0]["kernel_runs"] == want and want["tile_convert"] > 0
    monkeypatch.setattr(tk, "run", lambda *a, **kw: False)
    assert main(["fuzz", "-k", "cvt_edges a5", "--backend", "native", "--no-shrink", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert ("REGRESSION: this known campaign's kernel runs changed (kernel tile_convert ran 0 instance(s), "
            f"recorded {want['tile_convert']:,})") in out
    # on numpy nothing is compared with the record (no kernel runs there)
    assert main(["fuzz", "-k", "TCVT float32 4x32, cpu vs a5", "--backend", "numpy", "--no-shrink", "--quiet"]) == 0
    monkeypatch.undo()
    # at another size (-n) the counts cannot be compared: every recorded kernel ran, every class appears
    assert main(["fuzz", "--suite", "known", "-n", "40", "-k", "cvt_edges a5", "-k", "CPU sim vs A5, Elem Wrap: index",
                 "--backend", "native", "--no-shrink", "--quiet"]) == 0


def test_a_rule_no_second_side_computes_fails_the_known_campaign_by_its_digest(monkeypatch, capsys):
    """The simulator's 4-bit conversions run on NumPy alone, on every backend, and cpu and a5
    already differ at that call whatever its bytes: the campaign's classes cannot see a change in
    them; its sides' recorded output digests (suite.DIGESTS) do. Both are in the JSON."""
    from ptogpu.isa.tcvt import semantics_fourbit as F
    title = "Tile ops: bfloat16 <-> float4_e2m1x2 and float4_e1m2x2 TCVT RINT, packed, cpu vs a5"
    sel = ["fuzz", "-k", "float4_e2m1x2 and float4_e1m2x2 TCVT", "--backend", "numpy", "--no-shrink"]
    assert main(sel + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["campaigns"][0]
    assert doc["digests"] == suite.DIGESTS[title]
    real = F.sim_convert

    def off_by_one(Sn, Dn, raw, letter, sat):
        got = real(Sn, Dn, raw, letter, sat)
        return got ^ 1 if Dn in F.FOUR else got
    monkeypatch.setattr(F, "sim_convert", off_by_one)
    assert main(sel + ["--quiet"]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION: this known campaign's output bytes changed (output digests: side a (cpu@numpy)" in out
    assert "classes changed" not in out and "side b" not in out.split("output bytes changed")[1].splitlines()[0]


def test_digests_are_free_of_chunks_and_see_every_byte_and_fault():
    """A side's digest sums its instances' terms: the chunks and their order do not matter; a
    flipped byte, a moved instance or another fault code changes it."""
    from ptogpu.fuzz.user_kernel import digest
    rng = np.random.default_rng(3)
    out = rng.integers(0, 256, (50, 13), dtype=np.uint8)
    codes = rng.integers(0, 3, 50).astype(np.int8)
    inst = np.arange(100, 150)
    whole = digest(out, codes, inst)
    parts = sum(digest(out[a:b], codes[a:b], inst[a:b]) for a, b in ((30, 50), (0, 7), (7, 30))) % (1 << 64)
    assert whole == parts
    for k in range(13):
        bad = out.copy()
        bad[17, k] ^= 0x80
        assert digest(bad, codes, inst) != whole
    moved = codes.copy()
    moved[4] = 3 - moved[4]
    assert digest(out, moved, inst) != whole
    assert digest(out, codes, inst + 1) != whole
    assert digest(out[:0], codes[:0], inst[:0]) == 0


def test_a_known_campaign_whose_classes_change_fails_and_is_named(monkeypatch, capsys):
    """The suite is a regression test: a class that vanishes (or a count that moves) fails."""
    real = suite.campaigns

    def edited(backend="native"):
        out = [k for k in real(backend) if k.title.startswith(("CPU sim vs A5, Elem Wrap: index cast width",
                                                               "A2/A3 vs A5, Row Wrap: capacity rule"))]
        out[0].expect["index cast width"] += 1          # what this build finds is not recorded
        out[1].expect["a class that vanished"] = 5
        return out
    monkeypatch.setattr(suite, "campaigns", edited)
    rc = main(["fuzz", "--backend", "numpy", "--no-shrink", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "REGRESSION: this known campaign's classes changed (index cast width: 1,994 tiles, recorded 1,995)" in out
    assert "disappeared: a class that vanished" in out
    assert "2 known campaign(s) found other classes than recorded: CPU sim vs A5, Elem Wrap" in out


def test_exitfirst_stops_at_the_first_failing_campaign(monkeypatch, capsys):
    real = suite.campaigns

    def edited(backend="native"):
        out = [k for k in real(backend) if k.title.startswith(("A5 SIMT vs A2/A3, Elem Zero", "CPU sim vs A5, Elem Wrap",
                                                               "A2/A3 vs A5, Row Wrap"))]
        out[1].expect["nothing"] = 1
        return out
    monkeypatch.setattr(suite, "campaigns", edited)
    assert main(["fuzz", "--backend", "numpy", "--no-shrink", "--quiet", "-x", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [c["title"][:12] for c in doc["campaigns"]] == ["A5 SIMT vs A", "CPU sim vs A"]


def test_custom_campaign_text(capsys, tmp_path, monkeypatch):
    """A summary by default: one rule line per class, the reproducer written to
    ./ptogpu-repro/ and named; -v prints the reproducer inline too."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PTOGPU_REPRO_DIR", raising=False)
    argv = ["fuzz", "--mode", "row", "--shape", "4x16", "--table-shape", "1,1,2,8,16",
            "--table-stride", "256,256,128,16,1", "--pair", "a2a3:a5", "--pair", "a5.simt:a5@numpy",
            "-n", "300", "--gen", "oob", "--backend", "numpy", "--quiet"]
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc == 0
    assert "[explained] capacity rule" in out and "seed 0, generator oob" in out
    files = sorted((tmp_path / "ptogpu-repro").glob("*.py"))
    assert files and f"non-trivial index value(s)): ptogpu-repro/{files[0].name}" in out
    assert "executed: a2a3@numpy numpy (array formulas, no lanes or loops)" in out
    assert "pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Wrap]" not in out
    assert "pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Wrap]" in files[0].read_text()
    assert out.count("== ") == 2 and "divergent tile(s) in 1 class(es), each explained" in out
    r = subprocess.run([sys.executable, str(files[0])], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr                 # the reproducer runs: the divergence is real
    assert main(argv + ["-v", "--repro-dir", str(tmp_path / "other")]) == 0
    out = capsys.readouterr().out
    assert "pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Wrap]" in out and (tmp_path / "other").is_dir()


def test_exit_status_1_on_unexplained(monkeypatch, capsys):
    real = explain.explain

    def fake(*a, **k):
        m = real(*a, **k)
        m[:1] = R.UNEXPLAINED
        return m
    monkeypatch.setattr(explain, "explain", fake)
    rc = main(["fuzz", "--space", "l1", "--shape", "2x8", "--table-size", "100", "--pair", "a5.simt:cpu", "-n", "50", "--backend", "numpy",
               "--no-shrink"])
    assert rc == 1
    assert "UNEXPLAINED" in capsys.readouterr().out


def test_exit_status_1_on_unexplained_in_the_fused_numpy_campaign(monkeypatch, capsys):
    from test_fuzz_compare import inject_fused
    inject_fused(monkeypatch, instance=3)
    rc = main(["fuzz", "--shape", "2x8", "-n", "50", "--backend", "numpy", "--no-shrink", "--engine", "formula"])
    assert rc == 1
    out = capsys.readouterr().out
    assert "UNEXPLAINED" in out and "fused numpy" in out
    assert isinstance(np.int8(rc), np.int8)


def test_bad_configurations_are_reported_not_raised(capsys):
    assert main(["fuzz", "--pair", "a2a3.simt:a5", "-n", "10", "--backend", "numpy"]) == 2
    assert "SIMT" in capsys.readouterr().err
    # a static check rejecting one side (A5 Row: staticShape[4] == dst ValidCol) is reported,
    # and the campaign compared nothing: exit 2
    rc = main(["fuzz", "--mode", "row", "--shape", "4x16", "--table-shape", "1,1,1,8,32",
               "--pair", "a2a3:a5", "-n", "20", "--backend", "native", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 2 and "staticShape[4]" in doc["campaigns"][0]["check_error"]
    assert doc["campaigns"][0]["compared"] == 0 and doc["compared_nothing"] == 1


def _under_a_terminal(args: list[str]) -> tuple[int, str, str]:
    """Run ``ptogpu fuzz ARGS`` with stderr on a 120-column pseudo-terminal."""
    import sys

    from terminal import run_with_tty_stderr
    return run_with_tty_stderr([sys.executable, "-m", "ptogpu", "fuzz", *args])


ARGS = ["--pair", "a5:a2a3", "--backend", "numpy", "-n", "40000", "--chunk", "4096"]


def test_progress_bar_on_a_terminal_with_rate_and_eta_also_with_json():
    rc, out, err = _under_a_terminal(ARGS + ["--json"])
    assert rc == 0 and json.loads(out)["campaigns"][0]["n"] == 40000
    assert "tile/s" in err and "<" in err and "%|" in err        # tqdm: rate, ETA, bar


def test_no_progress_bar_with_quiet_or_off_a_terminal():
    import subprocess
    import sys
    rc, out, err = _under_a_terminal(ARGS + ["--quiet"])
    assert rc == 0 and "tile/s" not in err and "%|" not in err
    r = subprocess.run([sys.executable, "-m", "ptogpu", "fuzz", *ARGS], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "" and "40,000 tiles" in r.stdout


def test_quirk_switch_changes_the_tgatherb_classes(capsys):
    base = ["fuzz", "--instr", "tgatherb", "--shape", "4x72", "--table-size", "512", "--pair", "a2a3:a5",
            "--gen", "uniform", "-n", "60", "--backend", "numpy", "--json", "--no-shrink"]
    assert main(base) == 0
    on = json.loads(capsys.readouterr().out)["campaigns"][0]
    assert main(base + ["--quirk", "a2a3_tgatherb_tail_stream=off"]) == 0
    off = json.loads(capsys.readouterr().out)["campaigns"][0]
    assert on["divergent"] > 0 and off["divergent"] > 0
    assert on["classes"][0]["class"] == off["classes"][0]["class"] == "TGATHERB engine"


def test_workers_option(monkeypatch, capsys):
    from ptogpu.execution import executors as pool
    monkeypatch.setattr(pool, "WORKERS", None)
    monkeypatch.delenv("PTOGPU_FUZZ_WORKERS", raising=False)
    rc = main(["fuzz", "--shape", "2x8", "-n", "3000", "--backend", "numpy", "--no-shrink", "--workers", "2",
               "--pair", "cpu:a5", "--json"])
    assert rc == 0
    assert "2 worker processes" in capsys.readouterr().out
    assert main(["fuzz", "--shape", "2x8", "-n", "30", "--backend", "numpy", "--workers", "-1"]) == 2


def test_a_table_beyond_gm_or_host_memory_is_a_clear_error(monkeypatch, capsys):
    assert main(["fuzz", "--table-size", str(2**32 - 1), "--backend", "numpy"]) == 2
    assert "does not fit in one core's GM" in capsys.readouterr().err
    from ptogpu.execution import config

    def boom(*a, **k):
        raise MemoryError("Unable to allocate 16.0 GiB")
    monkeypatch.setattr(config, "table_values", boom)
    assert main(["fuzz", "--table-size", "5000", "--backend", "numpy", "-n", "10", "--no-shrink"]) == 2
    assert "out of host memory" in capsys.readouterr().err


def test_zero_instances_run_nothing(capsys):
    assert main(["fuzz", "--shape", "4x4", "-n", "0", "--backend", "numpy", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["n"] for c in doc["campaigns"]] == [0]


@pytest.mark.parametrize("args,msg", [
    (["--shape", "4096x4096"], "bytes of UB"),
    (["--space", "l1", "--shape", "512x512"], "bytes of L1"),
    (["--instr", "tinterleave", "--shape", "200x200"], "bytes of UB"),
    (["--dtype", "float64"], "not a ptogpu element type"),
    (["--shape", "4x4", "--chunk", "-5"], "chunk must be at least 1"),
])
def test_configurations_that_cannot_run_exit_2_with_the_reason(capsys, args, msg):
    assert main(["fuzz", "--backend", "numpy", "-n", "3", *args]) == 2
    assert msg in capsys.readouterr().err


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _children(pid: int) -> list[int]:
    import pathlib
    kids = []
    for p in pathlib.Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(p.name))
            except (OSError, IndexError, ValueError):
                pass
    return kids


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads /proc")
def test_sigterm_reports_what_finished_and_exits_143():
    import signal
    import subprocess
    import sys
    import time
    p = subprocess.Popen([sys.executable, "-m", "ptogpu", "fuzz", "--pair", "a5:a2a3", "--backend", "numpy",
                          "--workers", "0", "-n", "50000000", "--chunk", "65536"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 143 and "Traceback" not in err
    assert "interrupted" in out and "stopped after" in out and "of 50,000,000 tiles" in out


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads /proc")
def test_a_killed_worker_is_one_line_and_exit_2():
    import os
    import signal
    import subprocess
    import sys
    import time
    p = subprocess.Popen([sys.executable, "-m", "ptogpu", "fuzz", "--pair", "a5:a2a3", "--backend", "numpy",
                          "--workers", "2", "-n", "50000000", "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kids = []
    for _ in range(100):
        time.sleep(0.1)
        kids = [k for k in _children(p.pid) if b"popen_loky" in _cmdline(k)]    # workers, not trackers
        if kids:
            break
    assert kids, "no worker started"
    time.sleep(1.0)
    os.kill(kids[0], signal.SIGKILL)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "worker process died (killed by signal 9)" in err


@pytest.mark.parametrize("how,said", [("on", True), ("off", False)])
def test_specialise_on_and_off_from_the_command_line(how, said, capsys, monkeypatch):
    from ptogpu.backend import native_backend
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    monkeypatch.setenv("PTOGPU_FUZZ_SPECIALISE", "auto")       # the option sets it: put back after
    assert main(["fuzz", "--pair", "a5.simt@native:a2a3@native", "--oob", "clamp", "--table-size", "300",
                 "-n", "300", "--no-shrink", "--json", "--specialise", how]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert ("(specialised build)" in doc["campaigns"][0]["engine"]) == said, doc["campaigns"][0]["engine"]


def test_k_selects_known_campaigns_by_title(capsys):
    assert main(["fuzz", "--json", "--backend", "numpy", "--no-shrink", "-k", "edge values", "-k", "TSHRS"]) == 0
    doc = json.loads(capsys.readouterr().out)
    titles = [c["title"] for c in doc["campaigns"]]
    want = [k.title for k in suite.campaigns("numpy") if "edge values" in k.title.lower() or "tshrs" in k.title.lower()]
    assert titles == want and len(titles) >= 8
    assert main(["fuzz", "--backend", "numpy", "-k", "no such campaign"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no campaign of the known suite" in err[0]
    assert main(["fuzz", "-k", "TSHRS", "--pair", "cpu:a5"]) == 2


def test_a_spec_runs_its_native_launches_per_thread_and_restores_the_environment(monkeypatch):
    import os

    from ptogpu.backend import native_backend
    from ptogpu.backend import kernels as BK
    from ptogpu.execution.config import FuzzConfig
    from ptogpu.fuzz.spec import CampaignSpec
    if not native_backend.available()[0]:
        pytest.skip("no native backend")
    with pytest.raises(ValueError, match="native_threads"):
        CampaignSpec.of(FuzzConfig(), "a5@numpy", "a5@native", 10, native_threads="lanes")
    seen = []
    real = BK.launch

    def spy(*a, **k):
        seen.append(os.environ.get("PTOGPU_NATIVE_THREADS"))
        return real(*a, **k)
    monkeypatch.setattr(BK, "launch", spy)
    monkeypatch.delenv("PTOGPU_NATIVE_THREADS", raising=False)
    spec = CampaignSpec.of(FuzzConfig(rows=4, cols=40, table_size=100, oob="wrap"), "a5@numpy", "a5@native", 20,
                           native_threads="threads")
    assert CampaignSpec.from_json(spec.to_json()) == spec
    rep = spec.run(shrink=False)
    assert not rep.classes and seen and set(seen) == {"threads"}
    assert "PTOGPU_NATIVE_THREADS" not in os.environ


def test_a_space_an_instruction_does_not_take_is_refused(capsys):
    """--space l1 is MGATHER's GM->L1 and TMOV's Vec->Mat: elsewhere it is refused in one line,
    never run in UB under the name asked for."""
    assert main(["fuzz", "--instr", "tadd", "--space", "l1", "--pair", "cpu:a5", "-n", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "TADD campaigns take space ub" in err[0]
    assert main(["fuzz", "--instr", "tmov", "--space", "l1", "--pair", "cpu:a5", "-n", "20", "--backend", "numpy",
                 "--no-shrink", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["campaigns"][0]["config"].startswith("TMOV Vec->Mat")


def test_a_kernel_campaigns_classes_compare_without_their_source_lines():
    """A kernel added above another in suite_kernels.py moves the lines its classes name; the
    call's number and instruction name it, so the recorded classes still match -- but a class that
    moves to another call, or a count that changes, does not."""
    from types import SimpleNamespace
    k = [k for k in suite.campaigns("native") if any(" at suite_kernels.py:" in c for c in k.expect)][0]
    moved = {c.replace(" at suite_kernels.py:", " at suite_kernels.py:9"): n for c, n in k.expect.items()}
    assert moved != k.expect

    def rep(classes):
        return SimpleNamespace(check_error=None, classes={i: SimpleNamespace(name=c, count=n)
                                                          for i, (c, n) in enumerate(classes.items())})
    assert suite.regression(k, rep(moved), k.recorded_n or k.n, 0) is None
    name = next(iter(k.expect))
    other = dict(moved)
    other[name.replace("call ", "call 9", 1)] = other.pop(name.replace(" at suite_kernels.py:", " at suite_kernels.py:9"))
    assert "disappeared" in suite.regression(k, rep(other), k.recorded_n or k.n, 0)
    more = dict(moved)
    more[next(iter(more))] += 1
    assert "recorded" in suite.regression(k, rep(more), k.recorded_n or k.n, 0)
