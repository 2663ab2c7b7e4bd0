"""``ptogpu simt show --instr mscatter``: the map's threads, survivors and scan lengths against
the launch formulas (written here), and the CLI's text, JSON and PNG."""
import json

import numpy as np
import pytest

from ptogpu.cli import main
from ptogpu.simt.scatter_map import scatter_map


def test_elem_default_threads_and_survivors():
    """Elem: thread of position p is p mod LT (LT = 32 * clamp(ceil(N/32), 1, 32)); an element
    written by k threads once each has k possible values; by one thread twice, one."""
    rows, cols = 40, 32                      # N = 1280 > 1024: positions p and p+1024 share a thread
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 64, rows * cols)
    idx[5], idx[5 + 1024] = 100, 100         # one thread writes element 100 twice
    m = scatter_map("elem", rows, cols, idx, slots=128)
    p = np.arange(rows * cols)
    assert (m.src_warp.reshape(-1) == (p % 1024) // 32).all() and (m.src_lane.reshape(-1) == p % 32).all()
    assert (m.src_round.reshape(-1) == p // 1024).all()
    for e in range(64):
        writers = p[idx == e]
        assert m.slot_choices[e] == len({int(w) % 1024 for w in writers})
    assert m.slot_writers[100] == 2 and m.slot_choices[100] == 1


def test_row_last_owner_and_scan_length():
    rows, cols, slots = 8, 16, 6
    idx = np.array([1, 3, 1, 0, 5, 0, 2, 9])  # 9: out of range under Skip; slot 4 never written
    m = scatter_map("row", rows, cols, idx, slots=slots, conflict="last")
    for s in range(slots):
        last = max((r for r in range(rows) if idx[r] == s), default=None)
        e = s * cols
        assert m.slot_scan[e] == (rows - last if last is not None else rows)
        assert m.slot_owner[e] == s % 1024
        if last is not None:
            assert m.winner[e] == last * cols
    assert not m.racy.any()


def test_cli_text_json_png(tmp_path, capsys):
    assert main(["simt", "show", "--instr", "mscatter", "--mode", "elem", "--rows", "4", "--cols", "16",
                 "--indices", "random:1:24", "--cap", "24", "--oob", "skip"]) == 0
    out = capsys.readouterr().out
    assert "RACE" in out and "dim3{32, 2}" in out
    assert main(["simt", "show", "--instr", "mscatter", "--mode", "row", "--rows", "8", "--cols", "16",
                 "--indices", "random:2:6", "--cap", "6", "--conflict", "last", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "ptogpu.simt.show/1" and doc["instr"] == "mscatter" and doc["racing"] == 0
    png = tmp_path / "s.png"
    assert main(["simt", "show", "--instr", "mscatter", "--mode", "elem", "--rows", "8", "--cols", "32",
                 "--indices", "random:3:40", "--cap", "40", "--png", str(png)]) == 0
    assert png.stat().st_size > 10_000


@pytest.mark.parametrize("args,msg", [
    (["--instr", "mscatter", "--mode", "l1_elem"], "row or elem"),
    (["--instr", "mscatter", "--oob", "zero"], "no Zero"),
    (["--conflict", "last"], "belong to --instr mscatter"),
])
def test_bad_options(args, msg, capsys):
    assert main(["simt", "show", *args]) == 2
    assert msg in capsys.readouterr().err
