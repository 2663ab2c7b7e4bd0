"""``ptogpu simt sweep`` / ``ptogpu simt show``: text always, PNG with matplotlib."""
from __future__ import annotations

import importlib.util
import sys
import time

import pytest

from ptogpu.cli import main
from ptogpu.simt.cli import index_pattern, parse_range

HAVE_MPL = importlib.util.find_spec("matplotlib") is not None
needs_mpl = pytest.mark.skipif(not HAVE_MPL, reason="matplotlib not installed (pip install 'ptogpu[plot]')")


def test_parse_range_and_patterns():
    assert parse_range("1:4") == [1, 2, 3, 4]
    assert parse_range("8:32:8,100") == [8, 16, 24, 32, 100]
    assert index_pattern("identity", "row", 3, 4) is None
    assert index_pattern("stride:3", "elem", 2, 2).tolist() == [[0, 3], [6, 9]]
    assert index_pattern("constant:5", "row", 3, 4).tolist() == [5, 5, 5]
    assert index_pattern("random:1", "elem", 2, 3).shape == (2, 3)
    with pytest.raises(ValueError):
        index_pattern("nope", "row", 1, 1)


@pytest.mark.parametrize("mode", ["row", "elem"])
def test_sweep_10000_shapes_text(capsys, tmp_path, mode):
    t = time.perf_counter()
    assert main(["simt", "sweep", "--mode", mode, "--rows", "1:100", "--cols", "1:100",
                 "--csv", str(tmp_path / "s.csv")]) == 0
    assert time.perf_counter() - t < 10
    out = capsys.readouterr().out
    assert "10000 shapes" in out and "worst 10 by lane_utilisation" in out and "lane util" in out
    assert (tmp_path / "s.csv").read_text().count("\n") == 10001


def test_show_text(capsys):
    assert main(["simt", "show", "--rows", "3", "--cols", "40", "--indices", "random:2"]) == 0
    out = capsys.readouterr().out
    assert "dim3{32, 6}" in out and "warp of each element" in out and "lane of each element" in out
    assert "round of each element" in out and "( 0, 0): (0,0), (0,32)" not in out   # 1 col per lane per row


def test_text_output_without_matplotlib(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # import matplotlib -> ImportError
    assert main(["simt", "show", "--mode", "elem", "--rows", "4", "--cols", "9"]) == 0
    assert main(["simt", "sweep", "--rows", "1:5", "--cols", "1:5", "--top", "0"]) == 0
    from ptogpu.simt.plot import NeedsMatplotlib, require_matplotlib
    with pytest.raises(NeedsMatplotlib, match="matplotlib"):
        require_matplotlib()


@needs_mpl
def test_show_png(tmp_path):
    p = tmp_path / "show.png"
    assert main(["simt", "show", "--mode", "row", "--rows", "4", "--cols", "40", "--png", str(p)]) == 0
    assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000
    p2 = tmp_path / "l1.png"
    assert main(["simt", "show", "--mode", "l1_elem", "--rows", "5", "--cols", "9", "--dtype", "half",
                 "--png", str(p2)]) == 0
    assert p2.stat().st_size > 5_000


@needs_mpl
def test_sweep_png(tmp_path):
    p = tmp_path / "sweep.png"
    assert main(["simt", "sweep", "--mode", "elem", "--rows", "1:40", "--cols", "1:40",
                 "--dtype", "float32,int8", "--top", "0", "--png", str(p)]) == 0
    assert p.read_bytes()[:4] == b"\x89PNG" and p.stat().st_size > 10_000


@pytest.mark.parametrize("argv,rc,msg", [
    (["simt", "show", "--rows", "-3", "--cols", "5"], 2, "valid dims"),
    (["simt", "show", "--indices", "garbage"], 2, "one of identity"),
    (["simt", "show", "--dtype", "float64"], 2, "not a ptogpu element type"),
    (["simt", "show", "--mode", "elem", "--rows", "2", "--cols", "4", "--indices", "constant:-1",
      "--oob", "Wrap", "--cap", "0"], 1, "PtoFault"),
    (["simt", "sweep", "--rows", "a:b"], 2, "ranges are LO:HI"),
    (["simt", "sweep", "--rows", "5:1"], 2, "at least one value"),
    (["simt", "sweep", "--sort", "nothing"], 2, "no column 'nothing'"),
])
def test_bad_input_ends_with_one_line_and_an_exit_status(capsys, monkeypatch, argv, rc, msg):
    from ptogpu.cli import main
    monkeypatch.delenv("PTOGPU_TRACEBACK", raising=False)
    assert main(argv) == rc
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    monkeypatch.setenv("PTOGPU_TRACEBACK", "1")
    with pytest.raises(Exception):
        main(argv)


BAD_SIMT = [
    (["simt", "show", "--indices", "constant:2^70"], "must fit 64 bits"),
    (["simt", "show", "--indices", "stride:2^62"], "must fit 64 bits"),
    (["simt", "show", "--indices", "random:x"], "is not an integer"),
    (["simt", "show", "--indices", "constant:1:2"], "at most 1 value"),
    (["simt", "show", "--indices", "bogus"], "one of identity"),
    (["simt", "show", "--what", "bogus"], "--what bogus"),
    (["simt", "show", "--png", "."], "is a directory"),
    (["simt", "sweep", "--csv", "/nonexistent-dir/x.csv"], "does not exist"),
    (["simt", "sweep", "--csv", "/proc/x.csv"], "/proc/x.csv"),
    (["simt", "sweep", "--dtype", ","], "name at least one element type"),
]


@pytest.mark.parametrize("argv,msg", BAD_SIMT, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_simt_input_it_cannot_run_is_one_line_exit_2(argv, msg, capsys):
    from ptogpu.cli import main
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and msg in err, err


def test_extreme_but_valid_index_words_run(capsys):
    from ptogpu.cli import main
    for spec in ("constant:2^64-1", "constant:-2^63", "constant:0xffffffff"):
        assert main(["simt", "show", "--rows", "2", "--cols", "8", "--indices", spec]) == 0


@pytest.mark.parametrize("argv", [["simt", "show"], ["simt", "sweep", "--rows", "1:4", "--cols", "1:4"]])
def test_png_without_matplotlib_is_one_line_exit_2(argv, monkeypatch, tmp_path, capsys):
    import sys
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import matplotlib -> ImportError
    from ptogpu.cli import main
    rc = main(argv + ["--png", str(tmp_path / "x.png")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "pip install 'ptogpu[plot]'" in err
    assert not (tmp_path / "x.png").exists()


def test_tick_labels_stay_apart():
    from ptogpu.simt.plot import _ticks
    for n in (1, 7, 16, 17, 32, 80, 1000):
        t = list(_ticks(n, 16))
        assert t[0] == 0 and len(t) <= 16 and t[-1] < n and (len(t) == n or len(t) >= 8)


@needs_mpl
@pytest.mark.parametrize("cols,panels", [(32, 2), (80, 3)])
def test_show_picture_has_a_round_panel_only_when_there_are_rounds(cols, panels, monkeypatch, tmp_path):
    """32x32 Elem is one round (the round panel would be one flat colour); 32x80 has three."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from ptogpu.simt import SimtCase, launch_map
    from ptogpu.simt.plot import show_png
    seen = {}
    real = plt.Figure.savefig

    def spy(fig, *a, **k):
        seen["titles"] = [ax.get_title() for ax in fig.axes if ax.get_title()]
        seen["xticks"] = [len(ax.get_xticks()) for ax in fig.axes if ax.get_title()]
        return real(fig, *a, **k)
    monkeypatch.setattr(plt.Figure, "savefig", spy)
    show_png(launch_map(SimtCase("elem", 32, cols)), str(tmp_path / "x.png"))
    assert len(seen["titles"]) == panels
    assert any("round" in t for t in seen["titles"][1:-1]) == (panels == 3)
    assert max(seen["xticks"]) <= 17


@needs_mpl
def test_sweep_sectors_scale_starts_at_the_ideal_and_says_so(monkeypatch, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from ptogpu.simt import sweep
    from ptogpu.simt.plot import sweep_png
    seen = {}
    real = plt.Figure.savefig

    def spy(fig, *a, **k):
        seen["labels"] = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
        seen["titles"] = [ax.get_title() for ax in fig.axes]
        return real(fig, *a, **k)
    monkeypatch.setattr(plt.Figure, "savefig", spy)
    sweep_png(sweep("elem", list(range(1, 41)), list(range(1, 41)), ["float32"]), str(tmp_path / "s.png"))
    assert "0.125 ideal" in seen["labels"]
    assert any("ideal 0.125: 8 per sector" in t for t in seen["titles"])
