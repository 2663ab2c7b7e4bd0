"""The fast references are the NumPy semantics, shown exhaustively on small shapes: for every
target, mode, OOB policy, index type and element size below, every index tile over a set of
edge values (0, 1, around the capacity, negative, the 32-bit extremes) runs through

* the public API on a core of N instances (the NumPy semantics, batch-first: the truth),
* the formula reference of the executing and fused engines (``cuda_src/ref/mgather_ref.cuh``),
  which must give the same bytes and faults, and
* the fused NumPy screening engine (``ptogpu.fuzz.fused_numpy``) on every pair of targets,
  which must find exactly the tiles where the two targets' semantics differ.

Campaigns check the same on random tiles (tests/test_fuzz_reference.py,
tests/test_fuzz_fused.py)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ptogpu.backend import native_backend
from ptogpu.errors import PtoCheckError
from ptogpu.execution.config import FuzzConfig
from ptogpu.execution.rng import Generator
from ptogpu.execution.single import F_TABLE, cast_indices, fault_code, layout, run_instances, run_single
from ptogpu.fuzz import fused, fused_numpy
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
def test_the_formula_reference_equals_the_semantics_on_every_small_tile(target):
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
        if not native:
            continue
        for k, t in enumerate(tiles):
            what = (cfg.label, t.tolist(), faults[k])
            words = cast_indices(cfg, t).astype(np.int64).astype(np.uint32)
            img, key, _ = formula(fused.params(cfg, cfg, 0, 0, 0, 0), fused.gm_image(cfg), words, out.shape[1],
                                  cfg.dst_fill, out[k])
            if codes[k]:
                assert codes[k] == F_TABLE and key >> 56 == 1, what
            else:
                assert key == 2**64 - 1, what
                assert img.tobytes() == out[k].tobytes(), what
    assert ran >= 60, f"only {ran} configurations of {target} ran"


def _semantics(cfg: FuzzConfig, tiles: np.ndarray):
    out, faults = run_instances(cfg, tiles, "numpy")
    return out, np.array([0 if f is None else fault_code(f) for f in faults])


@pytest.mark.parametrize("pair", [("cpu", "a2a3"), ("cpu", "a5"), ("a2a3", "a5")], ids="-".join)
def test_the_fused_numpy_engine_finds_exactly_the_tiles_whose_semantics_differ(pair):
    """Its effective sources decide which tiles differ; on every small tile that decision (and
    each side's fault count) is the semantics' own: a tile differs when exactly one side
    faults, or neither does and the bytes differ."""
    ran = 0
    for cfg in (c for c in configs() if c.target == pair[0]):
        ca, cb = cfg, cfg.with_(target=pair[1])
        tiles = np.array(list(itertools.product(edge_values(cfg.cap), repeat=cfg.n_idx)), np.int64)
        try:
            run_single(ca, tiles[0])
            run_single(cb, tiles[0])
        except PtoCheckError:
            continue
        if cfg.oob == "wrap" and 0 in (fused.caps(ca)[0], fused.caps(cb)[0]):
            continue                         # (a capacity of 0: no screening formula)
        ran += 1
        (oa, fa), (ob, fb) = _semantics(ca, tiles), _semantics(cb, tiles)
        differ = ((fa != 0) != (fb != 0)) | ((fa == 0) & (fb == 0) & (oa != ob).any(axis=1))
        camp = fused_numpy.Campaign(ca, cb, Generator(tiles), rel=0, share=True)
        nfa, nfb, pos, _ = camp.chunk(0, len(tiles))
        assert (nfa, nfb) == (int(np.count_nonzero(fa)), int(np.count_nonzero(fb))), cfg.label
        assert pos.tolist() == np.flatnonzero(differ).tolist(), cfg.label
        words = cast_indices(cfg, tiles).astype(np.int64).astype(np.uint32).reshape(len(tiles), -1)
        for which, c, o, f in (("a", ca, oa, fa), ("b", cb, ob, fb)):
            # each side's view: its faults, and every valid element's bits where it does not
            bad, vals = camp.side_values(which, words)
            assert (bad == (f != 0)).all(), (c.label, which)
            R, C = layout(c)["dst_shape"]
            got = o.view(np.dtype(f"u{c.esize}")).reshape(len(tiles), R, C)[:, :c.rows, :c.cols]
            ok = f == 0
            assert (got[ok].reshape(int(ok.sum()), -1).astype(np.uint64) == vals[ok]).all(), (c.label, which)
    assert ran >= 40, f"only {ran} configurations of {pair} ran"
