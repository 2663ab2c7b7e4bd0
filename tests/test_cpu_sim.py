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
