"""Automatic placement (ptogpu.placement): tiles never TASSIGNed get UB (Vec) or L1 (Mat)
bytes from the core, first fit from the bottom up, 32-byte aligned, freed when the tile dies;
a fresh tile holds zeros on the simulator (its own zero-filled buffer) and what the space held
on the NPUs; no room is a PtoCheckError naming the tile and the bytes; a TASSIGN over a live
automatic tile is a PtoCheckError."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import ptogpu as pto

V, M = pto.TileType.Vec, pto.TileType.Mat
pytestmark = pytest.mark.usefixtures("fresh_stack")


def pad32(n: int) -> int:
    return -(-n // 32) * 32


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_first_fit_from_the_bottom_aligned_and_freed_with_the_tile(target):
    with pto.Core(target, "numpy"):
        a = pto.Tile[V, pto.float32, 4, 8]()            # 128 bytes
        b = pto.Tile[V, pto.int8, 3, 32]()              # 96 bytes
        c = pto.Tile[V, pto.half, 1, 16]()              # 32 bytes
        for t in (a, b, c):
            t.numpy()                                   # first use places it
        assert (a.addr, b.addr, c.addr) == (0, 128, 128 + 96)
        del b
        gc.collect()
        d = pto.Tile[V, pto.int32, 2, 8]()              # 64 bytes: fits the lowest hole (b's 96)
        d.numpy()
        assert d.addr == 128
        e = pto.Tile[V, pto.int32, 2, 8]()              # 64 bytes: the hole's 32 left do not fit
        e.numpy()
        assert e.addr == 128 + 96 + 32
        m = pto.Tile[M, pto.half, 16, 16]()             # a Mat tile: L1
        m.numpy()
        assert m.space == "l1" and m.addr == 0


@pytest.mark.parametrize("target, fill", [("cpu", 0), ("a2a3", 0xAB), ("a5", 0xAB)])
def test_a_fresh_tile_holds_zeros_on_the_simulator_and_what_ub_held_on_the_npus(target, fill):
    with pto.Core(target, "numpy") as core:
        core.write("ub", 0, np.full(core.ub.size, 0xAB, np.uint8))
        t = pto.Tile[V, pto.uint8, 2, 32]()
        assert t.raw().tobytes() == bytes([fill]) * 64


def test_an_instruction_places_its_operands_before_it_runs():
    with pto.Core("a5", "numpy") as core:
        src = pto.Tile[V, pto.float32, 2, 16]()
        dst = pto.Tile[V, pto.float32, 1, 16]()
        src.set(np.arange(32, dtype=np.float32).reshape(2, 16))
        pto.TGATHER[pto.MaskPattern.P0101](dst, src)
        assert (src.addr, dst.addr) == (0, 128) and dst.numpy().tolist() == [list(range(0, 32, 2))]


def test_no_room_is_a_check_error_naming_the_tile_its_line_and_the_bytes():
    with pto.Core("a5", "numpy") as core:
        held = [pto.Tile[V, pto.float32, 64, 64]() for _ in range(core.ub_usable // 16384)]
        for t in held:
            t.numpy()
        late = pto.Tile[V, pto.float32, 64, 64]()
        with pytest.raises(pto.PtoCheckError, match=r"UB has no room for Tile\[Vec, float32, 64, 64.* made at "
                           r"test_placement.py:\d+ \(16384 bytes") as e:
            late.numpy()
        assert f"{len(held) * 16384} of {core.ub_usable} bytes are held by {len(held)} live tile(s)" in str(e.value)
        assert e.value.target == "a5"


def test_tassign_over_an_automatic_tile_is_refused_and_tassign_takes_a_tile_out_of_automatic_placement():
    with pto.Core("cpu", "numpy") as core:
        auto = pto.Tile[V, pto.float32, 1, 8]()
        auto.numpy()
        manual = pto.Tile[V, pto.float32, 1, 8]()
        with pytest.raises(pto.PtoCheckError, match="automatic placement and TASSIGN"):
            pto.TASSIGN(manual, auto.addr + 16)
        pto.TASSIGN(auto, 0x1000)                      # by hand now: its automatic bytes are free
        again = pto.Tile[V, pto.float32, 1, 8]()
        again.numpy()
        assert again.addr == 0
        pto.TASSIGN(manual, 0x2000)                    # clear of the live automatic tile: fine


def test_a_program_on_a_core_of_n_places_its_tiles_alike_on_every_run():
    with pto.Core("cpu", "numpy", batch=4) as core:
        seen = []
        for _ in range(3):
            t = pto.Tile[V, pto.int32, 1, 8]()
            t.set(np.arange(8, dtype=np.int32).reshape(1, 8))
            seen.append(t.addr)
            assert t.numpy().shape == (4, 1, 8)
            del t
        assert seen == [0] * 3
