"""The ``cpu`` target against the vendor's CPU simulator (include/pto/cpu/): memory sizes,
what it accepts and rejects, its loops' addressing and order. Goldens come from the rules,
written out here over plain byte arrays."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto

V, M = pto.TileType.Vec, pto.TileType.Mat
KiB = 1024


def test_cpu_ub_is_512_kib_and_resizable_the_npus_are_fixed():
    assert pto.Core("cpu", "numpy").ub.size == 512 * KiB
    with pto.Core("cpu", "numpy"):
        t = pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(t, 400 * KiB)                      # past A5's 216 KiB, inside the simulator's UB
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(t, 512 * KiB)
    big = pto.Core("cpu", "numpy", ub_bytes=2048 * KiB, l1_bytes=1024 * KiB)
    assert (big.ub.size, big.l1.size) == (2048 * KiB, 1024 * KiB)
    with big:
        pto.TASSIGN(pto.Tile[V, pto.float32, 1, 8](), 1500 * KiB)
        pto.TASSIGN(pto.Tile[M, pto.float32, 16, 8, pto.BLayout.ColMajor, 16, 8, pto.SLayout.RowMajor, 512](),
                    900 * KiB)
    for target in ("a2a3", "a5"):
        with pytest.raises(ValueError, match="fixed by the hardware"):
            pto.Core(target, "numpy", ub_bytes=1024 * KiB)
    with pto.Core("a5", "numpy"):
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(pto.Tile[V, pto.float32, 1, 8](), 400 * KiB)


CM, RM = pto.BLayout.ColMajor, pto.BLayout.RowMajor
NB, SRM, SCM = pto.SLayout.NoneBox, pto.SLayout.RowMajor, pto.SLayout.ColMajor
# (Tile parameters, accepted?): pto_tile.hpp:1399-1425 (inner box), :1516-1531 (the asserts)
TILE_RULES = [
    ((V, pto.float32, 16, 8, RM, 16, 8, NB, 1024), False),    # NoneBox 1024 still has a 16x16 box: Cols % 16
    ((V, pto.float32, 16, 16, RM, 16, 16, NB, 1024), True),
    ((V, pto.float32, 3, 16, RM, 3, 16, NB, 1024), True),     # Vec: exempt from Rows % InnerRows
    ((M, pto.float32, 3, 16, RM, 3, 16, NB, 1024), False),    # Mat: Rows % 16
    ((M, pto.float32, 1, 16, RM, 1, 16, NB, 1024), True),     # ... unless Rows == 1
    ((V, pto.int8, 4, 8, RM, 4, 8, NB, 32), False),           # NoneBox MX: a 2x16 box, Cols % 16
    ((M, pto.int8, 3, 32, RM, 3, 32, SRM, 32), True),         # boxed MX: exempt from Rows % InnerRows
    ((M, pto.float32, 1, 16, CM, 1, 16, SRM, 512), True),     # boxed, Rows == 1: exempt
    ((M, pto.float32, 8, 16, CM, 8, 16, SRM, 512), False),    # boxed Mat: Rows % 16
    ((V, pto.float32, 8, 16, CM, 8, 16, SRM, 512), True),     # boxed Vec: exempt
]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("params,ok", TILE_RULES, ids=[str(i) for i in range(len(TILE_RULES))])
def test_tile_template_asserts_as_pto_tile_hpp(target, params, ok):
    with pto.Core(target, "numpy"):
        if ok:
            pto.Tile[params]()
        else:
            with pytest.raises(pto.PtoCheckError, match="Inner"):
                pto.Tile[params]()


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_cpu_misaligned_tiles_gather_like_aligned_ones(backend):
    """Unaligned TASSIGN on cpu binds (bounds only); MGATHER then writes dst(r, c) at its
    byte address + 4*(r*Cols + c) with table[idx] — on every backend."""
    import warnings
    with pto.Core("cpu", backend) as core, warnings.catch_warnings():
        warnings.simplefilter("ignore", pto.PtoPortabilityWarning)
        vals = np.arange(64, dtype=np.float32) * 3
        T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
        table = T(core.gm_put(vals))
        idx, dst = pto.Tile[V, pto.int32, 2, 8](), pto.Tile[V, pto.float32, 2, 8]()
        pto.TASSIGN(idx, 0x104)
        pto.TASSIGN(dst, 0x205)
        ii = (np.arange(16, dtype=np.int32).reshape(2, 8) * 5) % 64
        idx.set(ii)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        assert core.read("ub", 0x205, 64).tobytes() == vals[ii].tobytes()
