"""How the process heap hands NumPy's temporaries back and forth.

A NumPy step over a core of N instances allocates and frees arrays of about a MiB. glibc
returns such blocks to the OS as soon as they are freed (the heap top is trimmed, or the
block was its own mapping), so the next step's arrays are fresh pages: every 4 KiB page is a
page fault and is zeroed by the kernel, which measured here (2-core Zen 4 VM) as 2.4x the
time of the whole MGATHER step. :func:`keep_freed_heap` asks glibc (``mallopt(M_TOP_PAD)``)
to keep 64 MiB of freed heap for reuse. It is process-wide, done once, only on glibc, and
only when a batch runs on NumPy; ``PTOGPU_KEEP_HEAP=0`` leaves the allocator alone. There is
no library for this: it is one documented libc call (mallopt(3)).

A local worker process (``worker=True``) also keeps every array of up to :data:`KEEP_BYTES` on
the heap (glibc's own threshold moves between 128 KiB and 32 MiB) and trims the heap only past
twice that. Nothing bigger: a bigger array is a core of N's reservation of zero pages
(``pages.sparse_zeros``: N instances' UB rows, touched a few KiB each), which must be a
mapping of its own -- taken from the heap, calloc zeroes, so touches, every page of it. With
1 GiB there (before; 2-core VM), a kernel campaign's worker (examples/interleave_gathers.py)
held 2.5-4.4 GB instead of 0.4 GB and ran its chunks 2.8x slower, and an MGATHER campaign's
(perf/bench_pool.py) held 2.4 GB and ran 3.2x slower; NumPy batch chunks ran as fast (their
arrays are a few MiB).
"""
from __future__ import annotations

import ctypes
import os
import sys

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
KEEP_BYTES = 64 << 20
TRIM_BYTES = 2 * KEEP_BYTES

_done = False


def keep_freed_heap(worker: bool = False) -> bool:
    """Keep up to :data:`KEEP_BYTES` of freed heap in the process (once); True when set.
    ``worker``: a local worker process, which exists only for such runs, also keeps every
    array of up to :data:`KEEP_BYTES` on the heap (no mapping of its own) and trims it only
    past :data:`TRIM_BYTES`."""
    global _done
    if _done:
        return True
    _done = True
    if os.environ.get("PTOGPU_KEEP_HEAP", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        if not hasattr(libc, "gnu_get_libc_version"):
            return False                # not glibc (musl has no mallopt tunables)
        if worker:
            libc.mallopt(ctypes.c_int(M_TRIM_THRESHOLD), ctypes.c_int(TRIM_BYTES))
            # (a glibc that takes no threshold past 32 MiB, its most by default, gets that)
            libc.mallopt(ctypes.c_int(M_MMAP_THRESHOLD), ctypes.c_int(KEEP_BYTES)) or \
                libc.mallopt(ctypes.c_int(M_MMAP_THRESHOLD), ctypes.c_int(32 << 20))
        return bool(libc.mallopt(ctypes.c_int(M_TOP_PAD), ctypes.c_int(KEEP_BYTES)))
    except (OSError, AttributeError):
        return False
