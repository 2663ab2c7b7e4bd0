"""The README's first command: `ptogpu demo` runs on every target and shows the divergence."""
import subprocess
import sys

import pytest

from ptogpu.cli import main


def test_demo_shows_rows_per_target_and_the_wrap_divergence(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "cpu   rows gathered: [3, 1, 4, 1, 5, 9, 2, 15]" in out
    assert "a2a3  rows gathered: [3, 1, 4, 1, 5, 9, 2, 95]" in out
    assert "a5    rows gathered: [3, 1, 4, 1, 5, 9, 2, 95]" in out
    assert "row 15 on cpu but row 95 on a2a3" in out
    assert "static_cast<uint32_t>" in out
    # 4) MSCATTER: the sequential targets keep the last writer; A5 Default may leave any of them
    # (slots 5 <- 10, 30, 50; 2 <- 20, 60; 7 <- 40, 80; 0 <- 70)
    assert "cpu        table = [70, 0, 60, 0, 0, 50, 0, 80]" in out
    assert "a5.Last    table = [70, 0, 60, 0, 0, 50, 0, 80]" in out
    assert "may also leave: {2: [20, 60], 5: [10, 30, 50], 7: [40, 80]}" in out


def test_unknown_demo_is_an_error(capsys):
    assert main(["demo", "no-such-demo"]) == 2
    assert "available" in capsys.readouterr().err


def test_targets_lists_quirks(capsys):
    from ptogpu.targets import QUIRK_DOCS, TARGETS
    assert main(["targets"]) == 0
    out = capsys.readouterr().out
    assert "a5_dynamic_dim_cast = on: MGatherCheck casts valid dims to uint32" in out
    for t in TARGETS.values():               # every quirk says what it switches
        for q in t.quirks:
            assert len(QUIRK_DOCS[q]) > 40 and f"quirk {q} = " in out


def test_python_dash_m_entry_point():
    r = subprocess.run([sys.executable, "-m", "ptogpu", "targets"], capture_output=True, text=True)
    assert r.returncode == 0 and "a2a3" in r.stdout


def test_every_option_of_every_command_has_help():
    import argparse

    from ptogpu.cli import build_parser

    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    yield from walk(sp, path + [name])
            elif not isinstance(a, (argparse._HelpAction, argparse._VersionAction)):
                yield " ".join(path), a
    bare = [f"{cmd}: {'/'.join(a.option_strings) or a.dest}" for cmd, a in walk(build_parser(), ["ptogpu"])
            if not (a.help or "").strip()]
    assert not bare, bare


BAD_LINES = [
    (["demo", "dma", "--backend", "bogus"], "invalid choice: 'bogus'"),
    (["demo", "reg", "--backend", ""], "invalid choice: ''"),
    (["demo", "dma", "--backend", "native"], "runs on numpy only"),
    (["fuzz", "--dask", "", "--pair", "cpu:a5", "-n", "10"], "expected a scheduler address"),
    (["simt", "sweep", "--dask", ""], "expected a scheduler address"),
    (["fuzz", "--instr", "mscatter", "--gen", "perm", "--shape", "16x16", "--table-size", "64", "-n", "10"],
     "cannot all differ in 64 slots"),
    (["simt", "show", "--cap", str(2**70)], "the capacity is a uint32"),
    (["simt", "show", "--cap", "-1"], "the capacity is a uint32"),
    (["simt", "show", "--rows", "300", "--cols", "300"], "more than A5's UB"),
    (["simt", "show", "--instr", "mscatter", "--rows", "300", "--cols", "300"], "more than A5's UB"),
    (["simt"], "choose sweep or show"),
    (["fuzz", "-n", "1000000"], "-n N sets the tiles of the campaign you name"),
]


def run_cli(argv, capsys) -> tuple[int, str, str]:
    """``ptogpu ARGV`` in this process (argparse's exit included): (status, stdout, stderr)."""
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("argv, msg", BAD_LINES, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_input_it_cannot_run_is_one_line_exit_2(argv, msg, capsys):
    rc, _, err = run_cli(argv, capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and msg in err, (rc, err)


def test_a_bad_line_is_one_line_in_a_real_process_too():
    r = subprocess.run([sys.executable, "-m", "ptogpu", *BAD_LINES[0][0]], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and BAD_LINES[0][1] in r.stderr


@pytest.mark.parametrize("opt", [["--pair", "cpu:a5"], ["--shard", "0/2"], ["-n", "5"], ["--seed", "3"],
                                 ["--backend", "numpy"]])
def test_merge_refuses_run_options_it_would_ignore(opt, tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text("{}")
    rc, _, err = run_cli(["fuzz", "--merge", str(f), *opt], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "would be ignored" in err, err


def test_tassign_takes_integers_only():
    import numpy as np
    import ptogpu as pto
    with pto.Core("a5", "numpy"):
        t = pto.Tile[pto.TileType.Vec, pto.float32, 1, 8, pto.BLayout.RowMajor, 1, 8]()
        pto.TASSIGN(t, np.int64(64))
        assert t.addr == 64
        for bad in ("0x100", 1.5, True, None, [64]):
            with pytest.raises(pto.PtoCheckError, match="TASSIGN takes an integer byte address"):
                pto.TASSIGN(t, bad)
        assert t.addr == 64


def test_info_without_a_driver_says_no_gpu(monkeypatch):
    """cudaErrorInsufficientDriver on a machine with no NVIDIA driver is a missing GPU."""
    import glob
    import os
    from ptogpu.backend import cupy_backend
    monkeypatch.setattr(glob, "glob", lambda pat: [])
    monkeypatch.setattr(os.path, "exists", lambda p: False)
    e = RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version")
    assert cupy_backend._no_device(e).startswith("no GPU (no NVIDIA driver or device on this machine")
    assert cupy_backend._no_device(RuntimeError("cudaErrorLaunchFailure")).startswith("no CUDA device answers")
