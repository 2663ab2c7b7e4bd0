"""Exhaustive A5 launch geometry: for every valid shape of every dtype size up to the UB bound
(see ``shapes``), the lanes of the launch store every destination element exactly once.

Runs the geometry functions the data kernels call (cuda_src/mgather_impl.cuh elem_round_base,
row_warp_of, and the vector form's (r, c) decomposition) through the native build: every
warp, every round, 32 lanes, the kernels' own loop bounds, with a store counter per element.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ptogpu.backend import backend_available

UB_TILE_BYTES = 216 * 1024          # A5: UB usable by tiles (TASSIGN's bound)


def _pad32(nbytes: np.ndarray) -> np.ndarray:
    return -(-nbytes // 32) * 32


def shapes(mode: str, esize: int, limit: int = 4096) -> np.ndarray:
    """(VR, VC) pairs whose destination tile (rows padded to 32 bytes) and int32 index tile fit
    in the UB together: every shape of at most ``limit`` elements, and every shape on the UB
    bound (the largest VC for each VR, and the largest VR for each VC)."""
    out = []
    vr = 1
    while True:
        idx = 32 * -(-vr * 4 // 32) if mode == "row" else None

        def fits(vc):
            d = vr * _pad32(np.asarray(vc) * esize)
            i = idx if mode == "row" else vr * _pad32(np.asarray(vc) * 4)
            return d + i <= UB_TILE_BYTES
        if not fits(1):
            break
        lo, hi = 1, UB_TILE_BYTES
        while lo < hi:                      # largest VC that fits for this VR
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
        vcmax = lo
        small = np.arange(1, min(vcmax, limit // vr) + 1)
        out.append(np.stack([np.full(small.size, vr), small], 1))
        out.append([[vr, vcmax]])
        vr += 1
    pairs = np.concatenate([np.asarray(p, np.int64).reshape(-1, 2) for p in out])
    best_vr = {}                            # the largest VR for each VC on the bound
    for r, c in pairs:
        best_vr[c] = max(best_vr.get(c, 0), r)
    extra = np.array([[r, c] for c, r in best_vr.items()], np.int64)
    return np.unique(np.concatenate([pairs, extra]), axis=0)


def check(mode: str, sh: np.ndarray) -> np.ndarray:
    from ptogpu.backend import native_backend
    lib = native_backend.load()
    f = lib.pto_a5_geometry_check
    f.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p]
    f.restype = ctypes.c_longlong
    vr = np.ascontiguousarray(sh[:, 0], np.int64)
    vc = np.ascontiguousarray(sh[:, 1], np.int64)
    bad = np.zeros(len(sh), np.uint8)
    f(int(mode == "row"), vr.ctypes.data, vc.ctypes.data, len(sh), bad.ctypes.data)
    return sh[bad.astype(bool)]


@pytest.mark.parametrize("mode", ["elem", "row"])
@pytest.mark.parametrize("esize", [1, 2, 4, 8])
def test_every_valid_shape_stores_every_element_exactly_once(mode, esize):
    if not backend_available("native")[0]:
        pytest.skip("native backend unavailable")
    sh = shapes(mode, esize)
    assert len(sh) > 1000
    assert check(mode, sh).tolist() == []


def test_the_check_catches_a_wrong_shape_set():
    """The counter sees a shape whose element count the lanes cannot match (a 2^32-element
    Elem shape: the u32 total of the launch wraps), so a broken mapping would show."""
    if not backend_available("native")[0]:
        pytest.skip("native backend unavailable")
    assert check("elem", np.array([[65536, 65536]], np.int64)).tolist() == [[65536, 65536]]
