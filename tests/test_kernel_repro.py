"""Reproducers of kernels fuzzed from a Python script stand alone: the kernel's slice of its
file and the shrunk inputs, never the script run again (its campaigns, its FUZZ-less module);
worker processes take the same slice; a kernel that cannot be cut out gets one line saying so."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import os, sys
    import numpy as np
    import ptogpu as pto
    import ptogpu.fuzz

    print("SCRIPT RAN", flush=True)          # a reproducer or a worker must not run this file
    V = pto.TileType.Vec
    N = 8
    Idx = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]]
    Tab = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 100], pto.Stride[100, 100, 100, 100, 1]]


    def scale(t):
        return t


    def gather(table, ids, out):
        it, dt = pto.Tile[V, pto.int32, 1, N](), pto.Tile[V, pto.float32, 1, N]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dt, 0x100)
        pto.TLOAD(it, Idx(ids))
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap](dt, Tab(table), scale(it))   # THE GATHER
        pto.TSTORE(pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]](out), dt)


    def nested():
        def inner(table, ids, out):
            gather(table, ids, out)
        return inner


    fn = nested() if os.environ.get("NESTED") else gather
    rep = pto.fuzz.kernel(fn, inputs={"ids": pto.fuzz.indices(N, cap=100)}, outputs={"out": (N, pto.float32)},
                          fixed={"table": np.arange(100, dtype=np.float32) * 1.5}, n=int(sys.argv[1]),
                          backend="numpy", chunk=int(sys.argv[2]))
    print("ENGINE", rep.engine)
    for k, c in enumerate(rep.classes.values()):
        print("CLASS", c.name, c.count)
        if c.reproducer:
            with open(os.path.join(sys.argv[3], f"repro{k}.py"), "w") as f:
                f.write(c.reproducer)
        else:
            print("NO REPRODUCER", c.shrunk["no_reproducer"])
''')


def _line(marker: str) -> int:
    return next(i for i, ln in enumerate(SCRIPT.splitlines(), 1) if marker in ln)


def _run(tmp_path, *args, env=None):
    path = tmp_path / "my_script.py"
    path.write_text(SCRIPT)
    return subprocess.run([sys.executable, str(path), *map(str, args), str(tmp_path)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})}, cwd=tmp_path)


def test_a_scripts_kernel_reproducer_stands_alone(tmp_path):
    r = _run(tmp_path, 2000, 500)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("SCRIPT RAN") == 1
    assert f"CLASS call 2 MGATHER at my_script.py:{_line('THE GATHER')}: index cast width" in r.stdout
    (repro,) = tmp_path.glob("repro*.py")
    assert "SCRIPT RAN" not in repro.read_text() and "load(" not in repro.read_text()
    os.remove(tmp_path / "my_script.py")                     # it stands alone: the script may go
    got = subprocess.run([sys.executable, str(repro)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert "SCRIPT RAN" not in got.stdout
    assert f"first diverging call: call 2 MGATHER at my_script.py:{_line('THE GATHER')}" in got.stdout


def test_worker_processes_take_the_kernels_slice_not_the_script(tmp_path):
    here = _run(tmp_path, 3000, 500, env={"PTOGPU_WORKERS": "0"})
    pooled = _run(tmp_path, 3000, 500, env={"PTOGPU_WORKERS": "2"})
    assert pooled.returncode == 0, pooled.stderr
    assert pooled.stdout.count("SCRIPT RAN") == 1 and "worker process" in pooled.stdout
    classes = lambda out: [ln for ln in out.splitlines() if ln.startswith("CLASS")]   # noqa: E731
    assert classes(pooled.stdout) == classes(here.stdout) and classes(here.stdout)


def test_a_kernel_that_cannot_be_cut_out_says_so_in_one_line(tmp_path):
    r = _run(tmp_path, 500, 500, env={"NESTED": "1"})
    assert r.returncode == 0, r.stderr
    assert "NO REPRODUCER kernel nested.<locals>.inner: defined inside nested" in r.stdout
    assert not list(tmp_path.glob("repro*.py"))
