"""What the vendor's system-test ports share: the byte comparison of their goldens, element by
element, and the vendor's ``ResultCmp`` (tests/common/test_common.h:231) where the target's
arithmetic is the hardware's."""
from __future__ import annotations

import numpy as np


def assert_bytes(got: np.ndarray, golden: np.ndarray, what: str) -> None:
    want = np.ascontiguousarray(golden).reshape(-1)
    got = np.ascontiguousarray(got).reshape(-1)
    assert got.itemsize == want.itemsize and got.size == want.size, f"{what}: shape/dtype"
    g, w = got.view(np.uint8).reshape(got.size, -1), want.view(np.uint8).reshape(want.size, -1)
    bad = np.flatnonzero((g != w).any(axis=1))
    if bad.size:
        e = int(bad[0])
        raise AssertionError(f"{what}: {bad.size} of {want.size} elements differ; first at {e}: "
                             f"got {g[e].tobytes().hex()} ({got[e]!r}) want {w[e].tobytes().hex()} ({want[e]!r})")


def result_cmp(golden, got, eps: float, what: str) -> None:
    """tests/common/test_common.h ResultCmp: values as float; an element fails when
    ``diff > eps && |diff / exp| > eps`` or exactly one is NaN; passes while failures <= size*eps
    and at most 1000 outputs are ~0 where the golden is not (size: the element count)."""
    e = np.asarray(golden).reshape(-1).astype(np.float32)
    a = np.asarray(got).reshape(-1).astype(np.float32)
    with np.errstate(all="ignore"):
        diff = np.abs(e - a)
        rel = np.abs(diff / e)
        err = ((diff > eps) & (rel > eps)) | (np.isnan(e) != np.isnan(a))
    zeros = int(((np.abs(a) <= 1e-6) & (np.abs(e) > 1e-6)).sum())
    threshold = int(e.size * eps)
    assert int(err.sum()) <= threshold and zeros <= 1000, (
        f"{what}: ResultCmp(eps={eps}) {int(err.sum())} errors > {threshold} (first at "
        f"{int(np.flatnonzero(err)[0]) if err.any() else -1}), {zeros} zeros")


def assert_same_bytes(got, golden, what: str) -> None:
    """Byte for byte over the whole compared buffer (the ports that compare raw memory images)."""
    got = np.ascontiguousarray(got).reshape(-1).view(np.uint8)
    want = np.ascontiguousarray(golden).reshape(-1).view(np.uint8)
    assert got.size == want.size, f"{what}: {got.size} bytes compared, golden has {want.size}"
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (f"{what}: {bad.size} of {want.size} bytes differ; first at byte {bad[0]}: "
                           f"got {got[bad[:8]].tolist()} want {want[bad[:8]].tolist()}")
