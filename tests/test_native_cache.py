"""The native build cache: builds of other sources are kept (two checkouts sharing a cache do
not rebuild each other), killed builds' leftovers go, and concurrent builders take turns."""
from __future__ import annotations

import os
import threading
import time

from ptogpu.backend import native_backend as nb


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
    _touch(stale_tmp, nb.STALE_S + 60)
    stale_dir = tmp_path / "tmp_objs"
    stale_dir.mkdir()
    os.utime(stale_dir, (time.time() - nb.STALE_S - 60,) * 2)
    nb._prune(keep)
    assert keep.exists() and other.exists() and fresh_tmp.exists()
    assert not stale_tmp.exists() and not stale_dir.exists()


def test_prune_keeps_at_most_the_recent_builds(tmp_path):
    libs = []
    for k in range(nb.KEEP_BUILDS + 3):
        p = tmp_path / f"ptogpu_native_{k:04d}.so"
        _touch(p, 1000 - k)                                # higher k: more recent
        libs.append(p)
    nb._prune(libs[0])                                     # the oldest is the one in use
    left = sorted(p.name for p in tmp_path.glob("ptogpu_native_*.so"))
    assert libs[0].name in left and len(left) == nb.KEEP_BUILDS


def test_builders_take_turns(tmp_path):
    lock = tmp_path / "ptogpu_native_k.lock"
    order = []

    def builder(name, hold):
        with nb._BuildLock(lock):
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
