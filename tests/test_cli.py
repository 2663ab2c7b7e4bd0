"""The README's first command: `ptogpu demo` runs on every target and shows the divergence."""
import subprocess
import sys

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
    assert main(["targets"]) == 0
    assert "a5_dynamic_dim_cast = on" in capsys.readouterr().out


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
