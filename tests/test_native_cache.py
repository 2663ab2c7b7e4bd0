"""The native build cache: builds of other sources are kept (two checkouts sharing a cache do
not rebuild each other), killed builds' leftovers go, and concurrent builders take turns."""
from __future__ import annotations

import os
import threading
import time

from ptogpu.backend import native_backend as nb
from ptogpu.backend import native_build as nbuild


def _touch(p, age_s=0.0):
    p.write_bytes(b"x")
    t = time.time() - age_s
    os.utime(p, (t, t))


def test_prune_keeps_other_builds_and_drops_leftovers(tmp_path):
    keep = tmp_path / "ptogpu_native_aaaa.so"
    _touch(keep)
    other = tmp_path / "ptogpu_native_bbbb.so"            # another checkout's build
    _touch(other, 100)
    fresh_tmp = tmp_path / "tmpx1.so.tmp"                  # a build in progress elsewhere
    _touch(fresh_tmp)
    stale_tmp = tmp_path / "tmpx2.so.tmp"                  # a killed build's leftover
    _touch(stale_tmp, nbuild.STALE_S + 60)
    stale_dir = tmp_path / "tmp_objs"
    stale_dir.mkdir()
    os.utime(stale_dir, (time.time() - nbuild.STALE_S - 60,) * 2)
    nbuild.prune(keep)
    assert keep.exists() and other.exists() and fresh_tmp.exists()
    assert not stale_tmp.exists() and not stale_dir.exists()


def test_prune_keeps_at_most_the_recent_builds(tmp_path):
    libs = []
    for k in range(nbuild.KEEP_BUILDS + 3):
        p = tmp_path / f"ptogpu_native_{k:04d}.so"
        _touch(p, 1000 - k)                                # higher k: more recent
        libs.append(p)
    nbuild.prune(libs[0])                                     # the oldest is the one in use
    left = sorted(p.name for p in tmp_path.glob("ptogpu_native_*.so"))
    assert libs[0].name in left and len(left) == nbuild.KEEP_BUILDS


def test_prune_takes_a_build_another_process_just_pruned_in_its_stride(tmp_path, monkeypatch):
    """Processes share the cache: a build listed and then deleted by another process's prune
    before this one looks at it is skipped (it raised FileNotFoundError, and a campaign whose
    kernels had just been built failed with it)."""
    libs = []
    for k in range(nbuild.KEEP_BUILDS + 3):
        p = tmp_path / f"ptogpu_native_{k:04d}_fam.so"
        _touch(p, 1000 - k)
        libs.append(p)
    gone = libs[2]
    real = type(gone).glob

    def glob(self, pattern):
        got = list(real(self, pattern))
        if gone.exists():
            gone.unlink()                                  # (the other process, in between)
        return iter(got)
    monkeypatch.setattr(type(gone), "glob", glob)
    nbuild.prune(libs[-1])
    left = sorted(p.name for p in tmp_path.glob("ptogpu_native_*.so"))
    assert libs[-1].name in left and len(left) <= nbuild.KEEP_BUILDS


def test_builders_take_turns(tmp_path):
    lock = tmp_path / "ptogpu_native_k.lock"
    order = []

    def builder(name, hold):
        with nbuild.BuildLock(lock):
            order.append(f"{name}+")
            time.sleep(hold)
            order.append(f"{name}-")
    a = threading.Thread(target=builder, args=("a", 0.3))
    a.start()
    time.sleep(0.1)
    b = threading.Thread(target=builder, args=("b", 0.0))
    b.start()
    a.join()
    b.join()
    assert order == ["a+", "a-", "b+", "b-"]


def test_each_kernel_family_is_built_when_first_needed_and_says_so(tmp_path):
    """A TGATHERB call on native builds tgatherb.cu (and the tiny dma.cu that answers "does
    native work here"), not the 20-40 s of every kernel; at a terminal it says what it builds
    and how long it took."""
    import sys

    from terminal import run_with_tty_stderr
    code = ("import numpy as np, ptogpu as pto\n"
            "with pto.Core('a5', 'native') as core:\n"
            "    s = pto.Tile[pto.TileType.Vec, pto.float32, 1, 64](); pto.TASSIGN(s, 0)\n"
            "    o = pto.Tile[pto.TileType.Vec, pto.uint32, 1, 8](); pto.TASSIGN(o, 0x100)\n"
            "    d = pto.Tile[pto.TileType.Vec, pto.float32, 1, 64](); pto.TASSIGN(d, 0x200)\n"
            "    s.set(np.arange(64, dtype=np.float32)[None]); o.set(np.zeros((1, 8), np.uint32))\n"
            "    pto.TGATHERB(d, s, o)\n"
            "    print(d.numpy()[0, :8].tolist())\n")
    env = dict(os.environ, PTOGPU_CACHE_DIR=str(tmp_path))
    rc, out, text = run_with_tty_stderr([sys.executable, "-c", code], env=env)
    assert rc == 0 and out.strip() == str([float(v) for v in range(8)])
    built = sorted(q.name.split("_", 3)[3][:-3] for q in tmp_path.glob("ptogpu_native_*.so"))
    assert built == ["dma", "tgatherb"], built
    assert "building native kernels (first use): tgatherb.cu" in text and " s" in text and "done in" in text


def test_family_of_maps_every_exported_symbol_to_its_source():
    assert nb.family_of("host_mgather_a5_row") == "mgather"
    assert nb.family_of("hostw_mgather_a5_elem") == "mgather"
    assert nb.family_of("host1w_mgather_a5_elem") == "mgather"
    assert nb.family_of("host_mgather_l1_row") == "mgather_l1"
    assert nb.family_of("pto_fuzz_exec") == "fuzz"
    assert nb.family_of("pto_a5_geometry_check") == "mgather"
    assert nb.family_of("hostp_tgatherb_a5") == "tgatherb"
    assert nb.family_of("pto_vector_isa") == nb.SHIM_FAMILY


def test_a_compile_that_times_out_is_killed_with_its_children(monkeypatch):
    """A compiler process past PTOGPU_COMPILE_TIMEOUT is killed with its whole process group
    (g++ and the cc1plus it started), not left running while the next build starts."""
    import os
    import time
    from ptogpu.backend import native_backend as nb
    monkeypatch.setenv("PTOGPU_COMPILE_TIMEOUT", "0.5")
    marker = "31.4159"
    t0 = time.monotonic()
    err = nbuild.run_all([["sh", "-c", f"sleep {marker} & sleep {marker}; wait"], ["true"]])
    assert "timed out after 0.5 s" in err and time.monotonic() - t0 < 10

    def alive() -> list[str]:
        out = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        cmd = f.read().replace(b"\0", b" ").decode()
                    with open(f"/proc/{pid}/stat") as f:
                        state = f.read().rsplit(")", 1)[1].split()[0]
                except OSError:
                    continue
                if marker in cmd and state != "Z":
                    out.append(cmd)
        return out
    deadline = time.monotonic() + 5
    while alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive()
    assert nbuild.run_all([["true"], ["true"]]) == ""
    assert "exit" in nbuild.run_all([["sh", "-c", "echo exit >&2; exit 3"]])


def test_first_use_builds_quick_then_optimised_in_the_background(tmp_path):
    """Without PTOGPU_NATIVE_OPT a family's first use is a quick -O0 build in the foreground
    (said on stderr even when it is not a terminal), then a detached -O3 build; the next
    process loads the -O3 library and builds nothing."""
    import os
    import subprocess
    import sys
    import time
    from ptogpu.backend import native_backend as nb
    env = {k: v for k, v in os.environ.items() if k != "PTOGPU_NATIVE_OPT"}
    env["PTOGPU_CACHE_DIR"] = str(tmp_path)
    code = ("from ptogpu.backend import native_backend as nb; nb.PREBUILD = ('dma',); "
            "nb.load('dma'); print(nb.build_level('dma'))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == nb.QUICK_OPT != "-O3", r.stderr
    assert f"ptogpu: building native kernels (first use, quick {nb.QUICK_OPT} build; the -O3 build follows" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    deadline = time.monotonic() + 240
    while len(list(tmp_path.glob("ptogpu_native_*_dma.so"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert len(list(tmp_path.glob("ptogpu_native_*_dma.so"))) == 2
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "-O3" and r.stderr == "", r.stderr


def test_a_run_on_quick_builds_says_so(tmp_path):
    """Timings from a quick first-use build are labelled: the JSON names each family's level
    and the text report adds a note."""
    import json
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "PTOGPU_NATIVE_OPT"}
    env.update(PTOGPU_CACHE_DIR=str(tmp_path), PTOGPU_NATIVE_BACKGROUND="0")
    argv = [sys.executable, "-m", "ptogpu", "fuzz", "--pair", "cpu:a5", "--shape", "2x8", "-n", "50",
            "--quiet", "--no-shrink"]
    r = subprocess.run(argv + ["--json"], capture_output=True, text=True, env=env, timeout=600)
    builds = json.loads(r.stdout)["kernel_builds"]
    assert builds and set(builds.values()) == {"-O0"}, builds
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert "note: the timings come from quick first-use kernel builds" in r.stdout
