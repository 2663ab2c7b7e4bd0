"""Host pages under the emulated memories (Linux): zero reservations the OS maps only
when touched, written-page queries, dropping pages, and copy-on-write mappings of one
image into many rows -- the few OS calls (madvise, mmap, /proc/self/pagemap) that keep N
instances of a memory cheap. Everything here answers None or False where the OS cannot
be asked; the caller then copies or zeroes by hand."""
from __future__ import annotations

import ctypes
import functools
import os
import sys

import numpy as np

PAGE = 4096
_MAP_FIXED = 0x10                 # (Linux; not in the mmap module)


def sparse_zeros(nbytes: int) -> np.ndarray:
    """Zeroed bytes an instance touches sparsely (N instances' UB rows, 256 KiB apart, each
    using a few KiB): the OS is asked for small pages, since with transparent huge pages the
    first touch of each row zeroes 2 MiB (measured: 16384 rows, 12.7 s with, 0.04 s without)."""
    buf = np.zeros(nbytes + PAGE, np.uint8)         # (rows start on a page: see Bank.restore)
    buf = buf[-buf.ctypes.data % PAGE:][:nbytes]
    if nbytes >= 1 << 22 and sys.platform.startswith("linux"):
        try:
            start = buf.ctypes.data & ~4095
            c_library().madvise(ctypes.c_void_p(start), ctypes.c_size_t(buf.ctypes.data + nbytes - start),
                            _MADV_NOHUGEPAGE)
        except (OSError, AttributeError):
            pass                        # only a matter of speed
    return buf


_MADV_NOHUGEPAGE = 15
_MADV_DONTNEED = 4


@functools.cache
def c_library() -> ctypes.CDLL:
    """The C library (madvise, mmap), loaded once; OSError where there is none to load."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                          ctypes.c_long]
    return libc


def written_pages(buf: np.ndarray) -> np.ndarray | None:
    """Per whole page of ``buf`` (page-aligned, a whole number of pages): has this process
    written it since it was mapped or dropped? From ``/proc/self/pagemap``: a page present
    (or swapped) and not a page of a file is one the process made its own by writing (or
    read from a zero page: rewritten to zero, harmless). None where the OS cannot say."""
    if buf.ctypes.data % PAGE or buf.size % PAGE or not sys.platform.startswith("linux"):
        return None
    try:
        fd = os.open("/proc/self/pagemap", os.O_RDONLY)
        try:
            raw = os.pread(fd, buf.size // PAGE * 8, buf.ctypes.data // PAGE * 8)
        finally:
            os.close(fd)
    except OSError:
        return None
    pm = np.frombuffer(raw, np.uint64)
    if pm.size != buf.size // PAGE:
        return None
    return ((pm >> np.uint64(62)) != 0) & ((pm >> np.uint64(61)) & np.uint64(1) == 0)


def drop_pages(buf: np.ndarray) -> bool:
    """Give the pages of ``buf`` back to the OS (``MADV_DONTNEED``): anonymous memory reads
    zero again and a private file mapping its file (the copies written since are dropped),
    with no new mapping made. Bytes outside whole pages are zeroed by hand. False where the
    OS cannot be asked (not Linux): nothing changed."""
    if not sys.platform.startswith("linux") or not buf.size:
        return False
    start, end = buf.ctypes.data, buf.ctypes.data + buf.size
    lo, hi = -(-start // PAGE) * PAGE, end // PAGE * PAGE
    if hi <= lo:                                  # no whole page
        buf[:] = 0
        return True
    try:
        if c_library().madvise(ctypes.c_void_p(lo), ctypes.c_size_t(hi - lo), _MADV_DONTNEED) != 0:
            return False
    except (OSError, AttributeError):
        return False
    buf[: lo - start] = 0
    buf[hi - start:] = 0
    return True

def mapped_rows(image: np.ndarray, n: int, cap: int) -> np.ndarray | None:
    """``n`` rows of ``cap`` bytes (a multiple of the page), each starting with ``image`` as
    a private mapping of one copy of it: the instances share its physical pages until one
    writes there, when that page becomes its own (copy-on-write), so N instances of a big
    table cost one table, not N, and no copy. The rest of each row is zero pages. None where
    the OS cannot map it so (not Linux, no memfd, too many mappings): the caller copies."""
    if not sys.platform.startswith("linux") or not hasattr(os, "memfd_create") or cap % PAGE:
        return None
    import mmap
    span = -(-image.size // PAGE) * PAGE
    fd = -1
    try:
        libc = c_library()
        fd = os.memfd_create("ptogpu-rows", os.MFD_CLOEXEC)
        os.ftruncate(fd, span)
        os.pwrite(fd, np.ascontiguousarray(image).tobytes(), 0)
        region = mmap.mmap(-1, n * cap, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        base = ctypes.addressof(ctypes.c_char.from_buffer(region))
        libc.madvise(ctypes.c_void_p(base), ctypes.c_size_t(n * cap), _MADV_NOHUGEPAGE)
        for k in range(n):
            got = libc.mmap(ctypes.c_void_p(base + k * cap), span, mmap.PROT_READ | mmap.PROT_WRITE,
                            mmap.MAP_PRIVATE | _MAP_FIXED, fd, 0)
            if got is None or got == ctypes.c_void_p(-1).value:
                return None                 # (the region, and what was mapped into it, goes)
        return np.frombuffer(region, np.uint8)
    except (OSError, AttributeError, ValueError, TypeError):
        return None
    finally:
        if fd >= 0:
            os.close(fd)
