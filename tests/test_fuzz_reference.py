"""The formula reference (cuda_src/ref/mgather_ref.cuh) is what every executing campaign checks a
kernel against, so it must be the target's rules: here it is compared, byte for byte and fault
for fault, with the NumPy semantics on random configurations (every target, mode, OOB policy,
element size, dynamic valid shapes, padded and non-power-of-two tables, fills) and index tiles,
in both of its forms (the element-by-element image and the vector check of given bytes)."""
from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest

from ptogpu.backend import native_backend
from ptogpu.execution.batch import run_chunk
from ptogpu.execution.config import FuzzConfig
from ptogpu.execution.rng import Generator, shapes
from ptogpu.errors import PtoCheckError
from ptogpu.execution.single import F_TABLE, layout, run_single
from ptogpu.fuzz import fused

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")


def _ref():
    f = native_backend.load("fuzz").pto_fuzz_reference
    f.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_uint64] + [ctypes.c_void_p] * 3
    f.restype = None
    return f


def formula(prm, gm, words, dn: int, fill: int, given: np.ndarray):
    """(destination image, fault key, check bits) of the formula reference on one tile of
    index ``words``; the check bits say whether the bytes ``given`` disagree with it."""
    img = np.full(dn, fill, np.uint8)
    fault = np.zeros(3, np.uint64)
    bad = np.zeros(1, np.int32)
    w = np.ascontiguousarray(np.concatenate([words, np.zeros(64, np.uint32)]))
    _ref()(prm.ctypes.data, w.ctypes.data, gm.ctypes.data, img.ctypes.data, dn, fault.ctypes.data,
           np.ascontiguousarray(given).ctypes.data, bad.ctypes.data)
    return img, int(fault[0]), int(bad[0])


def configs(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        mode = rng.choice(["elem", "row"])
        tgt = rng.choice(["cpu", "a2a3", "a5"])
        dt = rng.choice(["uint8", "half", "float32", "uint64"])
        R, Cc = int(rng.integers(1, 48)), int(rng.integers(1, 80))
        kw = dict(mode=mode, target=tgt, oob=str(rng.choice(["undefined", "clamp", "wrap", "zero"])), dtype=dt,
                  index_dtype=str(rng.choice(["int32", "uint32"])), rows=R, cols=Cc,
                  dst_fill=int(rng.choice([0, 0xAB])))
        if mode == "row":
            rows_t = int(rng.integers(1, 70))
            pad = int(rng.choice([0, 0, 3]))
            kw.update(table_shape=(1, 1, 1, rows_t, Cc), table_stride=(1, 1, 1, Cc + pad, 1))
            kw["table_stride"] = (rows_t * (Cc + pad),) * 3 + (Cc + pad, 1)
        else:
            kw["table_size"] = int(rng.choice([7, 100, 999, 1000, 1024, 4096]))
        cfg = FuzzConfig(**kw)
        if cfg.oob == "wrap" and fused.caps(cfg)[0] == 0:
            continue
        try:                                    # what the target's compiler accepts
            run_single(cfg, np.zeros(cfg.n_idx, np.int64))
        except PtoCheckError:
            continue
        out.append(cfg)
    return out


@pytest.mark.parametrize("cfg", configs(60, 1), ids=lambda c: c.label.replace(" ", "_"))
def test_the_formula_reference_is_the_numpy_semantics(cfg):
    gen = Generator(["mixed", "edge", "uniform", "boundary"][hash(cfg.label) % 4], 5)
    full = cfg.with_(storage=(cfg.rows, cfg.cols))
    vr, vc = shapes(5, np.arange(40), cfg.rows, cfg.cols, cfg.mode == "row")
    for inst, r, c in zip(range(40), vr, vc):
        one = full.with_(rows=int(r), cols=int(c))      # a drawn valid shape in the full tile
        words = gen.lo32(np.array([inst]), one.n_idx, one.cap)[0].copy()
        res = run_chunk(one, np.array([inst]), gen, "numpy", raw=words.view(np.dtype(one.index_dtype))[None, :],
                        digest=False)
        want, code, elem = res.outputs[0], int(res.faults[0]), int(res.fault_elem[0])
        prm = fused.params(one, one, gen.seed, gen.counter_kind, inst, 0)
        L = layout(one)
        gm = fused.gm_image(one)
        dn = want.size
        img, key, bad = formula(prm, gm, words, dn, one.dst_fill, want)
        if code:
            assert code == F_TABLE and key >> 56 == 1 and (key & ((1 << 56) - 1)) == elem, (one.label, inst)
        else:
            assert key == 2**64 - 1, (one.label, inst)
        assert img.tobytes() == want.tobytes(), (one.label, inst)
        assert bad == 0, (one.label, inst)                          # the vector check agrees
        if dn:                                                      # ... and sees a flipped byte
            other = want.copy()
            other[(inst * 7) % dn] ^= 0x10
            assert formula(prm, gm, words, dn, one.dst_fill, other)[2] & 1, (one.label, inst)
        assert L["gm_size"] == gm.size
