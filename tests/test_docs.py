"""Every code block of README.md and docs/*.md runs here, and printed output is checked where
a page shows it. The conventions, so a page stays checkable:

* ``python`` blocks of one page run in order in one namespace (a later block may use what an
  earlier one made), from a scratch directory. A block followed by a line ``prints`` and a
  ``text`` block must print exactly that text.
* ``bash`` / ``console`` blocks are commands (``$ `` prompts, ``# comments`` and ``\\``
  continuations allowed); ``ptogpu ...`` runs as ``python -m ptogpu ...`` from a scratch
  directory and must exit 0. ``pip install`` steps and the test command itself are what CI
  runs around this file, so they are skipped; without matplotlib ``--png FILE`` is dropped.
* A ``text`` block right after ``<!-- output of: COMMAND -->`` is that command's output: its
  lines must appear in order, numbers may differ, and ``...`` stands for anything.
* Other ``text`` blocks are illustrations and are not run. Every block names its language.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
LANGS = {"python", "bash", "console", "text", "json", "cpp"}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
MARK = re.compile(r"<!-- output of: (.*?) -->\s*$")


def _blocks(page: pathlib.Path):
    """(lang, body, line, prints, output_of) per fenced block."""
    text = page.read_text()
    out = []
    for m in FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").split("\n")
        last = before[-1].strip() if before else ""
        mark = MARK.match(last)
        out.append((m.group(1), m.group(2), text[:m.start()].count("\n") + 1, last == "prints",
                    mark.group(1) if mark else None))
    return out


def _rel(page):
    return page.relative_to(ROOT).as_posix()


def test_every_block_names_its_language_and_pages_stand_alone():
    bad = [f"{_rel(p)}:{line} [{lang or 'none'}]" for p in PAGES for lang, _, line, _, _ in _blocks(p)
           if lang not in LANGS]
    assert not bad, bad
    for p in PAGES:
        t = p.read_text()
        assert "../shared" not in t and "§" not in t, f"{_rel(p)} points at files users do not have"


# -- python ------------------------------------------------------------------------------------
PY_PAGES = [p for p in PAGES if any(b[0] == "python" for b in _blocks(p))]


@pytest.mark.parametrize("page", PY_PAGES, ids=_rel)
def test_python_blocks_run_and_print_what_the_page_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _examples(tmp_path)
    ns: dict = {"__name__": f"doc_{page.stem}"}
    blocks = _blocks(page)
    for k, (lang, body, line, _, _) in enumerate(blocks):
        if lang != "python":
            continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(body, f"{_rel(page)}:{line}", "exec"), ns)
        nxt = blocks[k + 1] if k + 1 < len(blocks) else None
        if nxt and nxt[0] == "text" and nxt[3]:
            want = [ln.rstrip() for ln in nxt[1].rstrip("\n").split("\n")]
            got = [ln.rstrip() for ln in buf.getvalue().rstrip("\n").split("\n")]
            assert got == want, f"{_rel(page)}:{line} prints\n" + "\n".join(got)


# -- commands ----------------------------------------------------------------------------------
HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


def _commands(body: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", body)
    cmds = []
    for ln in joined.split("\n"):
        ln = ln.strip()
        if ln.startswith("$ "):
            ln = ln[2:]
        elif not ln or ln.startswith("#") or not re.match(r"(pip|ptogpu|python|bash)\b", ln):
            continue                                 # console output lines, comments
        ln = re.sub(r"\s+#.*$", "", ln)
        for part in ln.split("&&"):
            part = part.strip()
            if part and not part.startswith("pip install") and "pytest" not in part:
                cmds.append(part)
    return cmds


def _argv(cmd: str) -> list[str]:
    argv = shlex.split(cmd)
    if argv[0] == "ptogpu":
        argv = [sys.executable, "-m", "ptogpu"] + argv[1:]
    elif argv[0] == "python":
        argv = [sys.executable] + argv[1:]
    if not HAVE_MPL and "--png" in argv:
        k = argv.index("--png")
        del argv[k:k + 2]
    return argv


_ran: dict[str, subprocess.CompletedProcess] = {}


def _examples(cwd: pathlib.Path) -> None:
    """The pages name the shipped kernels as a checkout has them: ``examples/...``."""
    if not (cwd / "examples").exists():
        (cwd / "examples").symlink_to(ROOT / "examples", target_is_directory=True)


def _run(cmd: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    if cmd not in _ran:
        (cwd / "docs").mkdir(exist_ok=True)
        _examples(cwd)
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop("PTOGPU_REPRO_DIR", None)          # the pages show the default (./ptogpu-repro)
        _ran[cmd] = subprocess.run(_argv(cmd), cwd=cwd, capture_output=True, text=True, timeout=600,
                                   env=env)
    return _ran[cmd]


CMDS = sorted({(_rel(p), c) for p in PAGES for lang, body, _, _, _ in _blocks(p)
               if lang in ("bash", "console") for c in _commands(body)})


@pytest.mark.parametrize("page,cmd", CMDS, ids=[f"{p}: {c[:60]}" for p, c in CMDS])
def test_commands_run(page, cmd, tmp_path_factory):
    r = _run(cmd, tmp_path_factory.mktemp("cmd"))
    assert r.returncode == 0, f"{page}: `{cmd}` exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"


NUM = r"\d+(?:[.,]\d+)*(?:e[+-]?\d+)?"


def _pattern(line: str) -> re.Pattern:
    """An expected output line: numbers may differ, ``...`` is anything, runs of spaces match
    any run of spaces."""
    parts = []
    for tok in re.split(rf"(\.\.\.|{NUM})", line.strip()):
        if tok == "...":
            parts.append(".*")
        elif tok and tok[0].isdigit():
            parts.append(NUM)
        elif tok:
            parts.append(re.sub(r"(?:\\ )+", r"\\s+", re.escape(tok)))
    return re.compile("".join(parts))


SHOWN = [(_rel(p), line, mark, body) for p in PAGES for lang, body, line, _, mark in _blocks(p) if mark]


@pytest.mark.parametrize("page,line,cmd,body", SHOWN, ids=[f"{p}:{ln}" for p, ln, _, _ in SHOWN])
def test_shown_output_is_what_the_command_prints(page, line, cmd, body, tmp_path_factory):
    r = _run(cmd, tmp_path_factory.mktemp("out"))
    assert r.returncode == 0, r.stderr
    got = [ln.strip() for ln in r.stdout.split("\n")]
    at = 0
    for want in body.rstrip("\n").split("\n"):
        if not want.strip() or want.strip() == "...":
            continue
        pat = _pattern(want)
        while at < len(got) and not pat.fullmatch(got[at]):
            at += 1
        assert at < len(got), f"{page}:{line}: `{want.strip()}` is not in the output of `{cmd}` (in order)"
        at += 1
