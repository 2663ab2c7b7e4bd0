"""The fast references are the NumPy semantics, shown exhaustively on small shapes: for every
target, mode, OOB policy, index type and element size below, every index tile over a set of
edge values (0, 1, around the capacity, negative, the 32-bit extremes) runs through

* the public API on a core of N instances (the NumPy semantics, batch-first: the truth),
* the NumPy array twin of ``run_batch`` (``execution.batch._mgather_ub``), and
* the formula reference of the executing and fused engines (``cuda_src/fuzz_reference.cuh``),

and all three agree byte for byte and fault for fault. Campaigns check the same on random
tiles (tests/test_fuzz_reference.py, tests/test_fuzz_fused.py)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptogpu.backend import native_backend
from ptogpu.errors import PtoCheckError
from ptogpu.execution.batch import run_chunk
from ptogpu.execution.config import FuzzConfig
from ptogpu.execution.rng import Generator
from ptogpu.execution.single import F_TABLE, cast_indices, fault_code, run_instances, run_single
from ptogpu.fuzz import fused
from test_fuzz_reference import formula

SHAPES = [("elem", 1, 1), ("elem", 1, 2), ("elem", 2, 1), ("row", 1, 3), ("row", 2, 3)]


def edge_values(cap: int) -> list[int]:
    return sorted({0, 1, cap - 1, cap, cap + 1, 2 * cap, -1, -cap, 2**31 - 1, -(2**31), 2**32 - 1})


def configs():
    for tgt, (mode, r, c), oob, it, dt in itertools.product(
            ("cpu", "a2a3", "a5"), SHAPES, ("undefined", "clamp", "wrap", "zero"), ("int32", "uint32"),
            ("float32", "uint8")):
        kw = dict(target=tgt, mode=mode, rows=r, cols=c, oob=oob, index_dtype=it, dtype=dt)
        kw.update(table_shape=(1, 1, 1, 3, c)) if mode == "row" else kw.update(table_size=5)
        yield FuzzConfig(**kw)


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_twin_and_formula_reference_equal_the_semantics_on_every_small_tile(target):
    native = native_backend.available()[0]
    ran = 0
    for cfg in (c for c in configs() if c.target == target):
        tiles = np.array(list(itertools.product(edge_values(cfg.cap), repeat=cfg.n_idx)), np.int64)
        try:
            run_single(cfg, tiles[0])
        except PtoCheckError:                # a configuration the target's compiler rejects
            continue
        ran += 1
        out, faults = run_instances(cfg, tiles, "numpy")               # the semantics
        codes = np.array([0 if f is None else fault_code(f) for f in faults])
        twin = run_chunk(cfg, np.arange(len(tiles)), Generator(tiles), "numpy", digest=False)
        assert twin.path == "vector", cfg.label
        for k, t in enumerate(tiles):
            what = (cfg.label, t.tolist(), faults[k])
            assert int(twin.faults[k]) == codes[k], what
            assert twin.outputs[k].tobytes() == out[k].tobytes(), what
            if not native:
                continue
            words = cast_indices(cfg, t).astype(np.int64).astype(np.uint32)
            img, key, _ = formula(fused.params(cfg, cfg, 0, 0, 0, 0), fused.gm_image(cfg), words, out.shape[1],
                                  cfg.dst_fill, out[k])
            if codes[k]:
                assert codes[k] == F_TABLE and key >> 56 == 1, what
            else:
                assert key == 2**64 - 1, what
                assert img.tobytes() == out[k].tobytes(), what
    assert ran >= 60, f"only {ran} configurations of {target} ran"
