"""Core, arenas and TASSIGN (ARCHITECTURE.md memory model, mgather.md §1.4, API.md)."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import CM, M, NPU, SRM, TARGETS, V, new_core, tile

KiB = 1024
UB_USABLE = {"cpu": 512 * KiB, "a2a3": 192 * KiB, "a5": 216 * KiB}


# -- Core and context ----------------------------------------------------------------------------
def test_current_core_follows_with_blocks():
    a, b = pto.Core("a5", "numpy"), pto.Core("cpu", "numpy")
    with a:
        assert pto.current_core() is a
        with b:
            assert pto.current_core() is b
        assert pto.current_core() is a


def test_no_current_core_is_a_pto_error():
    with pytest.raises(pto.PtoError):
        pto.current_core()


def test_unknown_target_is_rejected():
    with pytest.raises(ValueError):
        pto.Core("a9", "numpy")


def test_each_core_has_its_own_memory():
    a, b = new_core("a5"), new_core("a5")
    a.write("ub", 0, np.arange(4, dtype=np.uint8))
    assert b.read("ub", 0, 4).tolist() == [0xCD] * 4


# -- sizes -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_ub_usable_size_bounds_vec_tiles(target):
    """UB: 192 KiB (A2/A3), 216 KiB usable of 256 (A5: TASSIGN takes the rest with a warning), CPU
    simulator 512 KiB (NPUMemoryModel, all usable)."""
    core = new_core(target)
    with core:
        T = pto.Tile[V, pto.uint8, 32, 32]                   # 1 KiB
        t = T()
        pto.TASSIGN(t, UB_USABLE[target] - 1024)             # last fitting position
        top = {"a5": 256 * KiB}.get(target, UB_USABLE[target])      # TASSIGN's own bound
        if top > UB_USABLE[target]:     # A5: the top 40 KiB take a tile, with a warning (the vendor's
            with pytest.warns(pto.PtoPortabilityWarning, match="SIMT data cache"):  # TSORT32 test puts one there)
                pto.TASSIGN(T(), UB_USABLE[target] - 1024 + 32)
            with pytest.warns(pto.PtoPortabilityWarning):
                pto.TASSIGN(T(), top - 1024)
        if target == "a5":              # a tile passing the end: a warning; its accesses fault there
            with pytest.warns(pto.PtoPortabilityWarning, match="pass the end of UB"):
                u = T()
                pto.TASSIGN(u, top - 1024 + 32)
            with pytest.raises(pto.PtoFault):
                u.numpy()
        else:
            with pytest.raises(pto.PtoFault):
                pto.TASSIGN(T(), top - 1024 + 32)
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(T(), top)


@pytest.mark.parametrize("target", TARGETS)
def test_l1_is_512_kib_for_mat_tiles(target):
    core = new_core(target)
    with core:
        T = pto.Tile[M, pto.float32, 16, 16, CM, 16, 16, SRM]     # 1 KiB NZ
        pto.TASSIGN(T(), 512 * KiB - 1024)
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(T(), 512 * KiB - 992)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("addr", [1, 16, 31, 0x104, -32, -1])
def test_misaligned_or_negative_tassign_faults(target, addr):
    """The NPUs: a 32-byte aligned address inside the buffer, PtoFault otherwise. The CPU
    simulator checks bounds only (NPUMemoryModel): a misaligned in-bounds address binds, with
    a portability warning naming the NPU rule."""
    core = new_core(target)
    with core:
        t = pto.Tile[V, pto.float32, 1, 8]()
        if target == "cpu" and addr >= 0:
            with pytest.warns(pto.PtoPortabilityWarning, match="32-byte aligned is a PtoFault"):
                pto.TASSIGN(t, addr)
            assert t.addr == addr
            t.set(np.arange(8, dtype=np.float32)[None])
            assert core.read("ub", addr, 32).tobytes() == np.arange(8, dtype=np.float32).tobytes()
            return
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(t, addr)
        assert t.addr is None


def test_tassign_rejects_non_emulated_locations():
    core = new_core("a5")
    with core:
        with pytest.raises(pto.PtoCheckError):
            pto.TASSIGN(pto.Tile[pto.TileType.Left, pto.float32, 16, 16](), 0)


# -- aliasing --------------------------------------------------------------------------------------
def test_overlapping_tiles_alias():
    """Overlapping tiles alias exactly as on hardware: writes through one show in the other."""
    core = new_core("a5")
    with core:
        wide = tile(pto.int32, 2, 8, 0x200)
        narrow = tile(pto.uint8, 2, 32, 0x200)
        half = tile(pto.half, 1, 16, 0x220)               # second row of `wide`
        wide.set(np.arange(16, dtype=np.int32).reshape(2, 8) + 0x01020300)
        assert narrow.raw().tobytes() == wide.raw().tobytes()
        assert half.raw().tobytes() == wide.raw().tobytes()[32:]
        half.set(np.zeros((1, 16), np.float16))
        assert wide.numpy()[1].tolist() == [0] * 8
        assert wide.numpy()[0].tolist() == (np.arange(8) + 0x01020300).tolist()


def test_mat_and_vec_tiles_at_the_same_address_are_different_buffers():
    core = new_core("a5")
    with core:
        u = tile(pto.int32, 1, 8, 0)
        l1 = tile(pto.int32, 1, 8, 0, loc=M)
        u.set(np.arange(8, dtype=np.int32)[None])
        assert l1.raw().view(np.uint8).tolist() == [0xCD] * 32


# -- GM --------------------------------------------------------------------------------------------
def test_gm_put_copies_bytes_and_returns_typed_pointer():
    core = pto.Core("a5", "numpy")
    a = np.array([1.5, -0.0, np.nan, 3], np.float32)
    p = core.gm_put(a)
    assert p.space == "gm" and p.dtype == pto.float32
    assert core.read("gm", p.addr, 16).tobytes() == a.tobytes()
    assert p.numpy(4).tobytes() == a.tobytes()


def test_gm_allocations_do_not_overlap_and_grow():
    core = pto.Core("cpu", "numpy")
    ptrs = [core.gm_put(np.full(100 + k, k, np.uint8)) for k in range(50)]
    spans = sorted((p.addr, p.addr + 100 + k) for k, p in enumerate(ptrs))
    assert all(a_end <= b for (_, a_end), (b, _) in zip(spans, spans[1:]))
    for k, p in enumerate(ptrs):
        assert core.read("gm", p.addr, 100 + k).tolist() == [k] * (100 + k)


def test_gm_alloc_is_zeroed_and_pointer_arithmetic_counts_elements():
    core = pto.Core("a2a3", "numpy")
    core.gm_put(np.full(64, 0xFF, np.uint8))
    p = core.gm_alloc(10, pto.int16)
    assert core.read("gm", p.addr, 20).tolist() == [0] * 20
    assert (p + 3).addr == p.addr + 6 and (p + 3 - 1).addr == p.addr + 4
    core.write("gm", (p + 2).addr, np.array([-2], np.int16))
    assert p.numpy(4).tolist() == [0, 0, -2, 0]


def test_gm_put_with_explicit_element_type():
    core = pto.Core("a5", "numpy")
    p = core.gm_put(np.array([0x08, 0x80, 0xEF], np.uint8), pto.hifloat8)
    assert p.dtype == pto.hifloat8
    assert core.read("gm", p.addr, 3).tolist() == [0x08, 0x80, 0xEF]


@pytest.mark.parametrize("count", [2**40, 2**62])
def test_huge_gm_alloc_faults_instead_of_exhausting_host_memory(count):
    core = pto.Core("a5", "numpy")
    with pytest.raises(pto.PtoFault):
        core.gm_alloc(count, pto.float32)


def test_negative_gm_alloc_is_rejected():
    core = pto.Core("a5", "numpy")
    with pytest.raises(ValueError):
        core.gm_alloc(-1, pto.float32)


# -- raw access --------------------------------------------------------------------------------------
@pytest.mark.parametrize("space", ["ub", "l1", "gm"])
def test_read_write_round_trip_and_bounds(space):
    core = pto.Core("a5", "numpy")
    core.gm_alloc(256, pto.uint8)
    data = np.arange(7, dtype=np.uint8)
    core.write(space, 64, data)
    assert core.read(space, 64, 7).tolist() == data.tolist()
    size = core.arena(space).size
    with pytest.raises(pto.PtoFault):
        core.read(space, size - 3, 4)
    with pytest.raises(pto.PtoFault):
        core.write(space, -1, data)
    with pytest.raises(pto.PtoFault):
        core.read(space, 0, -1)


def test_write_accepts_bytes_and_byte_lists():
    core = pto.Core("a5", "numpy")
    core.write("ub", 0, b"\x01\x02\x03")
    core.write("ub", 3, [4, 5])
    assert core.read("ub", 0, 6).tolist() == [1, 2, 3, 4, 5, 0]


def test_unknown_space_is_rejected():
    core = pto.Core("a5", "numpy")
    with pytest.raises(ValueError):
        core.read("l0a", 0, 1)


@pytest.mark.parametrize("target", NPU)
def test_ub_pointer_and_l1_pointer_name_on_chip_addresses(target):
    core = new_core(target)
    p, q = core.ub_ptr(0x40, pto.int32), core.l1_ptr(0x80, pto.half)
    assert (p.space, p.addr, (p + 2).addr) == ("ub", 0x40, 0x48)
    assert (q.space, (q + 1).addr) == ("l1", 0x82)
    core.write("ub", 0x40, np.array([7, 8], np.int32))
    assert p.numpy(2).tolist() == [7, 8]


def test_tassign_takes_a_pointer_of_the_tiles_own_buffer():
    core = new_core("a5")
    with core:
        t = pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(t, core.ub_ptr(0x40, pto.float32))
        assert t.addr == 0x40
        with pytest.raises(pto.PtoCheckError):
            pto.TASSIGN(pto.Tile[V, pto.float32, 1, 8](), core.l1_ptr(0x40, pto.float32))
        with pytest.raises(pto.PtoCheckError):
            pto.TASSIGN(pto.Tile[V, pto.float32, 1, 8](), core.gm_put(np.zeros(8, np.float32)))


def test_gm_growth_touches_no_pages():
    """A 2 GiB GM allocation, then a few more elements: no copy, no resident 2 GB."""
    import resource
    import subprocess
    import sys
    code = ("import resource, ptogpu as pto\n"
            "r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "with pto.Core('a5', 'numpy') as core:\n"
            "    core.gm_alloc(1 << 31, pto.uint8); core.gm_alloc(16, pto.float32)\n"
            "    assert core.gm.size > (1 << 31)\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.strip()) < 200_000          # KiB: far below the 2 GiB it used to touch
