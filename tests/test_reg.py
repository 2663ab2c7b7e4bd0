"""ptogpu.reg, the Ascend 950 register API (other-ops.md §C), byte-exact.

Expected bytes are built here from the spec rules (lane counts, bit ``e*size`` of the mask,
zero for inactive lanes, zero extension b8 -> b16, b64 word pairs, first-32-indices rule).
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu import reg

NumOne, NumTwo = reg.RegTraitNumOne, reg.RegTraitNumTwo
UB = 256 * 1024


@pytest.fixture()
def core():
    c = pto.Core("a5", "numpy")
    with c:
        c.write("ub", 0, np.random.default_rng(0).integers(0, 256, c.ub.size, dtype=np.uint8))
        yield c


def mem(core):
    return core.read("ub", 0, UB)


def bits_first(nbits):
    b = np.zeros(256, bool)
    b[:nbits] = True
    return b


# -- registers and masks -----------------------------------------------------------------------------
def test_lanes(core):
    assert reg.RegTensor[pto.uint8]().lanes == 256
    assert reg.RegTensor[pto.half]().lanes == 128
    assert reg.RegTensor[pto.float32]().lanes == 64
    assert reg.RegTensor[pto.int64]().lanes == 32
    assert reg.RegTensor[pto.uint64, NumTwo]().lanes == 64
    assert reg.RegTensor[pto.int64, NumTwo]().raw().size == 512
    with pytest.raises(pto.PtoCheckError):
        reg.RegTensor[pto.float32, NumTwo]()


@pytest.mark.parametrize("T,trait,count,nbits,left", [
    (pto.uint8, NumOne, 5, 5, 0), (pto.half, NumOne, 5, 10, 0), (pto.float32, NumOne, 3, 12, 0),
    (pto.int64, NumOne, 3, 24, 0), (pto.int64, NumTwo, 3, 12, 0),
    (pto.uint8, NumOne, 300, 256, 44), (pto.uint8, NumOne, 256, 256, 0),
    (pto.half, NumOne, 129, 256, 1), (pto.float32, NumOne, 0, 0, 0),
    (pto.int64, NumOne, 40, 256, 8), (pto.int64, NumTwo, 70, 256, 6),
    (pto.uint64, NumOne, 32, 256, 0), (pto.bfloat16, NumOne, -1, 256, 0xFFFFFFFF - 128),
])
def test_update_mask_bits_and_count(core, T, trait, count, nbits, left):
    m, c = reg.UpdateMask[T, trait](count)
    assert c == left
    assert m.bits.tolist() == bits_first(nbits).tolist()


def test_mask_read_with_another_type(core):
    """Element e of T is active when bit e*size is set (b64 NumTwo: bit 4e)."""
    m, _ = reg.UpdateMask[pto.half](3)            # bits 0..5
    assert m.active(pto.float32)[:3].tolist() == [True, True, False]
    assert m.active(pto.uint8)[:7].tolist() == [True] * 6 + [False]
    m = reg.MaskReg(np.arange(256) % 8 == 0)      # every 8th bit
    assert m.active(pto.int64).all()
    assert m.active(pto.int64, NumTwo).tolist() == [e % 2 == 0 for e in range(64)]
    assert m.active(pto.half).tolist() == [e % 4 == 0 for e in range(128)]


@pytest.mark.parametrize("T,pattern,n", [
    (pto.half, reg.MaskPattern.ALL, 128), (pto.half, reg.MaskPattern.ALLF, 0),
    (pto.float32, reg.MaskPattern.VL16, 16), (pto.float32, reg.MaskPattern.M3, 63),
    (pto.uint8, reg.MaskPattern.M3, 255), (pto.float32, reg.MaskPattern.M4, 64),
    (pto.float32, reg.MaskPattern.H, 32), (pto.half, reg.MaskPattern.Q, 32),
    (pto.float32, reg.MaskPattern.VL128, 64), (pto.uint8, reg.MaskPattern.VL1, 1),
])
def test_create_mask(core, T, pattern, n):
    m = reg.CreateMask[T, pattern]()
    size = np.dtype(T).itemsize
    assert m.bits.tolist() == bits_first(n * size).tolist()
    assert reg.CreateMask[T]() == reg.MaskReg(np.ones(256, bool))
    assert reg.CreateMask[pto.int64, reg.MaskPattern.VL8, NumTwo]().bits.sum() == 32


# -- LoadAlign / StoreAlign ----------------------------------------------------------------------------
def test_load_store_numone(core):
    before = mem(core)
    r = reg.RegTensor[pto.float32]()
    reg.LoadAlign(r, core.ub_ptr(0x1000, pto.float32))
    assert r.raw().tobytes() == before[0x1000:0x1100].tobytes()
    m, _ = reg.UpdateMask[pto.float32](10)
    reg.StoreAlign(core.ub_ptr(0x2000, pto.float32), r, m)
    exp = before.copy()
    exp[0x2000:0x2028] = before[0x1000:0x1028]
    assert mem(core).tobytes() == exp.tobytes()


def test_load_store_numtwo_deinterleave(core):
    before = mem(core)
    r = reg.RegTensor[pto.int64, NumTwo]()
    reg.LoadAlign(r, core.ub_ptr(0x3000, pto.int64))
    words = before[0x3000:0x3200].view(np.uint32)
    assert r.raw().tobytes() == words[0::2].tobytes() + words[1::2].tobytes()
    assert r.numpy().tobytes() == before[0x3000:0x3200].tobytes()
    m, _ = reg.UpdateMask[pto.int64, NumTwo](5)
    reg.StoreAlign(core.ub_ptr(0x4000, pto.int64), r, m)
    exp = before.copy()
    exp[0x4000:0x4028] = before[0x3000:0x3028]
    assert mem(core).tobytes() == exp.tobytes()


def test_store_numone_b64_mask_layout(core):
    r = reg.RegTensor[pto.uint64]()
    r.set(np.arange(32, dtype=np.uint64) + 7)
    before = mem(core)
    m = reg.MaskReg(np.arange(256) == 8)          # bit 8 = b64 element 1
    reg.StoreAlign(core.ub_ptr(0x5000, pto.uint64), r, m)
    exp = before.copy()
    exp[0x5008:0x5010] = np.array([8], np.uint64).view(np.uint8)
    assert mem(core).tobytes() == exp.tobytes()


@pytest.mark.parametrize("addr", [16, 0x1004, 1])
def test_misaligned_faults(core, addr):
    r = reg.RegTensor[pto.half]()
    before = mem(core)
    with pytest.raises(pto.PtoFault, match="aligned"):
        reg.LoadAlign(r, core.ub_ptr(addr, pto.half))
    with pytest.raises(pto.PtoFault, match="aligned"):
        reg.StoreAlign(core.ub_ptr(addr, pto.half), r, reg.CreateMask[pto.half]())
    assert mem(core).tobytes() == before.tobytes()


def test_out_of_ub(core):
    r = reg.RegTensor[pto.float32]()
    with pytest.raises(pto.PtoFault):
        reg.LoadAlign(r, core.ub_ptr(UB - 128, pto.float32))
    with pytest.raises(pto.PtoFault):
        reg.LoadAlign(reg.RegTensor[pto.int64, NumTwo](), core.ub_ptr(UB - 256, pto.int64))
    before = mem(core)
    m8, _ = reg.UpdateMask[pto.float32](8)      # 32 bytes: inactive lanes past UB are fine
    reg.StoreAlign(core.ub_ptr(UB - 32, pto.float32), r, m8)
    with pytest.raises(pto.PtoFault):
        reg.StoreAlign(core.ub_ptr(UB - 32, pto.float32), r, reg.UpdateMask[pto.float32](9)[0])
    assert mem(core)[: UB - 32].tobytes() == before[: UB - 32].tobytes()


def test_pointer_checks(core):
    r = reg.RegTensor[pto.float32]()
    with pytest.raises(pto.PtoCheckError):
        reg.LoadAlign(r, core.gm_alloc(64, pto.float32))
    with pytest.raises(pto.PtoCheckError):
        reg.LoadAlign(r, core.ub_ptr(0, pto.half))
    other = pto.Core("a5", "numpy")
    with pytest.raises(pto.PtoCheckError):
        reg.LoadAlign(r, other.ub_ptr(0, pto.float32))
    with pytest.raises(pto.PtoCheckError):
        reg.LoadAlign(r, 0)


# -- Gather ---------------------------------------------------------------------------------------------
B16_B32 = [("int16", "int16", "uint16"), ("uint16", "uint16", "uint16"), ("half", "half", "uint16"),
           ("bfloat16", "bfloat16", "uint16"), ("int32", "int32", "uint32"),
           ("uint32", "uint32", "uint32"), ("float32", "float32", "uint32"),
           ("int16", "int8", "uint16"), ("uint16", "uint8", "uint16")]


def load_index(core, values, U, addr=0x20000, trait=NumOne):
    core.write("ub", addr, np.asarray(values, U))
    r = reg.RegTensor[U, trait]()
    reg.LoadAlign(r, core.ub_ptr(addr, U))
    return r


@pytest.mark.parametrize("t0,t1,t2", B16_B32)
def test_gather_combinations(core, t0, t1, t2):
    T0, T1, T2 = (getattr(pto, n) for n in (t0, t1, t2))
    s0, s1 = np.dtype(T0).itemsize, np.dtype(T1).itemsize
    n = 256 // s0
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 3000, n)
    base = 0x8000
    ir = load_index(core, idx, T2)
    m, _ = reg.UpdateMask[T0](n - 5)
    d = reg.RegTensor[T0]()
    d.set(np.frombuffer(b"\xAB" * 256, dtype=np.dtype(T0).str if t0 != "bfloat16" else np.uint16))
    before = mem(core)
    reg.Gather(d, core.ub_ptr(base, T1), ir, m)
    exp = bytearray(256)
    for i in range(n - 5):
        a = base + int(idx[i]) * s1
        exp[i * s0: i * s0 + s1] = before[a: a + s1].tobytes()   # high byte stays 0 for b8
    assert d.raw().tobytes() == bytes(exp)
    assert mem(core).tobytes() == before.tobytes()


def test_gather_zero_extension_hand(core):
    core.write("ub", 0x100, np.array([40, -40, -1, 127, -128], np.int8))
    ir = load_index(core, [1, 0, 2, 4, 3] + [0] * 123, pto.uint16)
    d = reg.RegTensor[pto.int16]()
    reg.Gather(d, core.ub_ptr(0x100, pto.int8), ir, reg.UpdateMask[pto.int16](5)[0])
    assert d.numpy()[:6].tolist() == [216, 40, 255, 128, 127, 0]


def test_gather_nan_payloads(core):
    core.write("ub", 0x100, np.array([0x7FC00001, 0xFF800001, 0x7F800000], np.uint32))
    core.write("ub", 0x200, np.array([0x7E01, 0xFC03, 0x7FC1], np.uint16))
    d = reg.RegTensor[pto.float32]()
    reg.Gather(d, core.ub_ptr(0x100, pto.float32), load_index(core, [2, 0, 1] + [0] * 61,
               pto.uint32), reg.UpdateMask[pto.float32](3)[0])
    assert d.raw()[:12].view(np.uint32).tolist() == [0x7F800000, 0x7FC00001, 0xFF800001]
    for T in (pto.half, pto.bfloat16):
        h = reg.RegTensor[T]()
        reg.Gather(h, core.ub_ptr(0x200, T), load_index(core, [1, 2, 0] + [0] * 125, pto.uint16),
                   reg.UpdateMask[T](3)[0])
        assert h.raw()[:6].view(np.uint16).tolist() == [0xFC03, 0x7FC1, 0x7E01]


def expected_b64(before, base, idx, active):
    out = np.zeros(len(idx), np.uint64)
    for e, (i, a) in enumerate(zip(idx, active)):
        if a:
            out[e] = before[base + 8 * int(i): base + 8 * int(i) + 8].view(np.uint64)[0]
    return out


@pytest.mark.parametrize("T", ["int64", "uint64"])
@pytest.mark.parametrize("dtrait,U,itrait,used", [
    (NumOne, "uint32", NumOne, 32), (NumTwo, "uint32", NumOne, 64),
    (NumOne, "uint64", NumOne, 32), (NumOne, "uint64", NumTwo, 32),
    (NumTwo, "uint64", NumTwo, 64)])
def test_gather_b64(core, T, dtrait, U, itrait, used):
    T, U = getattr(pto, T), getattr(pto, U)
    rng = np.random.default_rng(2)
    nidx = 32 if (U == pto.uint64 and itrait is NumOne) else 64
    idx = rng.integers(0, 1000, nidx)
    raw_idx = idx | (0xDEAD << 32) if U == pto.uint64 else idx   # high words ignored
    ir = load_index(core, raw_idx, U, trait=itrait)
    count = used - 3
    m, _ = reg.UpdateMask[T, dtrait](count)
    d = reg.RegTensor[T, dtrait]()
    before = mem(core)
    reg.Gather(d, core.ub_ptr(0x8000, T), ir, m)
    want = expected_b64(before, 0x8000, idx[:used], [e < count for e in range(used)])
    if dtrait is NumOne:
        assert d.raw().tobytes() == want.tobytes()
    else:
        w = want.view(np.uint32)
        assert d.raw().tobytes() == w[0::2].tobytes() + w[1::2].tobytes()


@pytest.mark.parametrize("U,itrait", [("uint32", NumOne), ("uint64", NumTwo)])
def test_gather_b64_first_32_indices_only(core, U, itrait):
    """NumOne dst with a 64-entry index: entries 32..63 are never read, even when they would
    address outside UB."""
    U = getattr(pto, U)
    ir = load_index(core, list(range(32)) + [0xFFFFFFFF] * 32, U, trait=itrait)
    d = reg.RegTensor[pto.int64]()
    reg.Gather(d, core.ub_ptr(0, pto.int64), ir, reg.MaskReg(np.ones(256, bool)))
    assert d.raw().tobytes() == mem(core)[:256].tobytes()
    d2 = reg.RegTensor[pto.int64, NumTwo]()
    with pytest.raises(pto.PtoFault, match="lane 32"):
        reg.Gather(d2, core.ub_ptr(0, pto.int64), ir, reg.MaskReg(np.ones(256, bool)))


def test_gather_b64_word_index_wraps(core):
    """Word indices 2*idx, 2*idx+1 are u32: idx 0x80000001 reads element 1 (derived, §C.2)."""
    ir = load_index(core, [0x80000001] + [0] * 63, pto.uint32)
    d = reg.RegTensor[pto.uint64]()
    reg.Gather(d, core.ub_ptr(0x40, pto.uint64), ir, reg.UpdateMask[pto.uint64](1)[0])
    assert d.raw()[:8].tobytes() == mem(core)[0x48:0x50].tobytes()


def test_gather_rejected_combinations(core):
    bad = [(pto.float32, pto.half, pto.uint16), (pto.int32, pto.int32, pto.uint16),
           (pto.half, pto.half, pto.uint32), (pto.int16, pto.uint8, pto.uint16),
           (pto.uint16, pto.int8, pto.uint16), (pto.int16, pto.int16, pto.int16),
           (pto.float8_e4m3, pto.float8_e4m3, pto.uint16), (pto.uint8, pto.uint8, pto.uint16),
           (pto.int64, pto.uint64, pto.uint32), (pto.int64, pto.int64, pto.int32)]
    for T0, T1, T2 in bad:
        with pytest.raises(pto.PtoCheckError):
            reg.Gather(reg.RegTensor[T0](), core.ub_ptr(0, T1), reg.RegTensor[T2](),
                       reg.CreateMask[T0]())
    with pytest.raises(pto.PtoCheckError, match="static_assert"):
        reg.Gather(reg.RegTensor[pto.int64, NumTwo](), core.ub_ptr(0, pto.int64),
                   reg.RegTensor[pto.uint64](), reg.CreateMask[pto.int64]())


def test_gather_inactive_lanes_zero_and_unchecked(core):
    ir = load_index(core, [5, 0xFFFFFFFF, 6] + [0xFFFFFFFF] * 61, pto.uint32)
    m = reg.MaskReg(np.isin(np.arange(256), [0, 8]))  # f32 lanes 0 and 2
    d = reg.RegTensor[pto.float32]()
    d.set(np.ones(64, np.float32))
    reg.Gather(d, core.ub_ptr(0x100, pto.float32), ir, m)
    ub = mem(core)
    exp = np.zeros(256, np.uint8)
    exp[0:4] = ub[0x114:0x118]
    exp[8:12] = ub[0x118:0x11C]
    assert d.raw().tobytes() == exp.tobytes()


def test_gather_active_lane_outside_ub_faults(core):
    ir = load_index(core, [1, 0xFFFFFFFF] + [0] * 62, pto.uint32)
    d = reg.RegTensor[pto.float32]()
    d.set(np.arange(64, dtype=np.float32))
    before_reg = d.raw()
    with pytest.raises(pto.PtoFault, match="lane 1"):
        reg.Gather(d, core.ub_ptr(0, pto.float32), ir, reg.UpdateMask[pto.float32](2)[0])
    assert d.raw().tobytes() == before_reg.tobytes()


def test_gather_u16_index_reach(core):
    """A u16 index reaches 65535 elements: 128 KiB of b16 from the base."""
    ir = load_index(core, [65535] * 128, pto.uint16)
    m = reg.UpdateMask[pto.half](1)[0]
    d = reg.RegTensor[pto.half]()
    reg.Gather(d, core.ub_ptr(0x20000, pto.half), ir, m)         # last element: 256 KiB - 2
    assert d.raw()[:2].tobytes() == mem(core)[UB - 2:UB].tobytes()
    with pytest.raises(pto.PtoFault):
        reg.Gather(d, core.ub_ptr(0x20020, pto.half), ir, m)
    ir8 = load_index(core, [65535] * 128, pto.uint16)
    d16 = reg.RegTensor[pto.uint16]()
    reg.Gather(d16, core.ub_ptr(0x30000, pto.uint8), ir8, reg.UpdateMask[pto.uint16](1)[0])
    assert d16.numpy()[0] == mem(core)[0x30000 + 65535]


def test_gather_base_must_be_aligned(core):
    ir = load_index(core, [0] * 64, pto.uint32)
    with pytest.raises(pto.PtoFault, match="aligned"):
        reg.Gather(reg.RegTensor[pto.float32](), core.ub_ptr(0x104, pto.float32), ir,
                   reg.CreateMask[pto.float32]())


# -- GatherB ---------------------------------------------------------------------------------------------
def test_gatherb_blocks_and_mask(core):
    offs = [0x40, 0x0, 0x1000, 0x20, 0x60, 0x80, 0xA0, 0xC0] + [0xFFFFFFE0] * 56
    ir = load_index(core, offs, pto.uint32)
    before = mem(core)
    base = 0x8000
    for T, count, nblk in ((pto.float32, 5, 5), (pto.half, 5, 3), (pto.uint8, 29, 8),
                           (pto.int64, 2, 4), (pto.uint8, 0, 0)):
        d = reg.RegTensor[T]()
        reg.GatherB(d, core.ub_ptr(base, T), ir, reg.UpdateMask[T](count)[0])
        exp = np.zeros(256, np.uint8)
        for k in range(nblk):                        # block k <- mask bit 4k
            exp[32 * k: 32 * k + 32] = before[base + offs[k]: base + offs[k] + 32]
        assert d.raw().tobytes() == exp.tobytes(), (T, count)


def test_gatherb_disabled_block_unchecked_enabled_faults(core):
    ir = load_index(core, [0, 0xFFFFFFE0] + [0] * 62, pto.uint32)
    d = reg.RegTensor[pto.float32]()
    reg.GatherB(d, core.ub_ptr(0, pto.float32), ir, reg.MaskReg(np.arange(256) < 4))
    assert d.raw()[32:].tobytes() == bytes(224)
    with pytest.raises(pto.PtoFault, match="block 1"):
        reg.GatherB(d, core.ub_ptr(0, pto.float32), ir, reg.CreateMask[pto.float32]())


def test_gatherb_misaligned_rounds_down(core):
    ir = load_index(core, [33, 0x41] + [0] * 62, pto.uint32)
    d = reg.RegTensor[pto.uint8]()
    with pytest.warns(UserWarning, match="aligned"):
        reg.GatherB(d, core.ub_ptr(0x100, pto.uint8), ir, reg.UpdateMask[pto.uint32](2)[0])
    ub = mem(core)
    assert d.raw()[:64].tobytes() == ub[0x120:0x140].tobytes() + ub[0x140:0x160].tobytes()


def test_gatherb_checks(core):
    ir = load_index(core, [0] * 64, pto.uint32)
    m = reg.CreateMask[pto.uint32]()
    with pytest.raises(pto.PtoCheckError):
        reg.GatherB(reg.RegTensor[pto.int64, NumTwo](), core.ub_ptr(0, pto.int64), ir, m)
    with pytest.raises(pto.PtoCheckError):
        reg.GatherB(reg.RegTensor[pto.float32](), core.ub_ptr(0, pto.float32),
                    reg.RegTensor[pto.uint16](), m)
    with pytest.raises(pto.PtoFault):
        reg.GatherB(reg.RegTensor[pto.float32](), core.ub_ptr(8, pto.float32), ir, m)


# -- targets -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_register_api_only_on_a5(target):
    assert not pto.TARGETS[target].has_reg_api and pto.TARGETS["a5"].has_reg_api
    with pto.Core(target, "numpy") as c:
        p = c.ub_ptr(0, pto.float32)
        calls = [lambda: reg.RegTensor[pto.float32](), lambda: reg.UpdateMask[pto.float32](4),
                 lambda: reg.CreateMask[pto.float32](),
                 lambda: reg.LoadAlign(object(), p), lambda: reg.StoreAlign(p, object()),
                 lambda: reg.Gather(object(), p, object(), object()),
                 lambda: reg.GatherB(object(), p, object(), object()),
                 lambda: reg.simd_vf(lambda: None)()]
        for call in calls:
            with pytest.raises(pto.PtoCheckError, match=target):
                call()


# -- the seed's GatherVF loop -----------------------------------------------------------------------------
def gather_vf(dst_addr, src_addr, index_addr, count, one_repeat_size, T, U):
    """AscendC Reg::Gather doc example, as written in C++."""
    dst_reg = reg.RegTensor[T]()
    index_reg = reg.RegTensor[U]()
    repeat_times = -(-count // one_repeat_size)
    for i in range(repeat_times):
        mask, count = reg.UpdateMask[T](count)
        reg.LoadAlign(index_reg, index_addr + i * one_repeat_size)
        reg.Gather(dst_reg, src_addr, index_reg, mask)
        reg.StoreAlign(dst_addr + i * one_repeat_size, dst_reg, mask)


@pytest.mark.parametrize("T,U,count,rep", [
    ("float32", "uint32", 150, 64), ("half", "uint16", 200, 128), ("bfloat16", "uint16", 128, 128),
    ("int32", "uint32", 1, 64), ("int64", "uint32", 70, 32), ("uint64", "uint32", 0, 32)])
def test_gather_vf_loop(core, T, U, count, rep):
    T, U = getattr(pto, T), getattr(pto, U)
    size = np.dtype(T).itemsize
    rng = np.random.default_rng(3)
    nsrc = 0x4000 // size
    idx = rng.integers(0, nsrc, 512).astype(U)
    core.write("ub", 0x10000, idx)
    before = mem(core)
    gather_vf(core.ub_ptr(0x20000, T), core.ub_ptr(0, T), core.ub_ptr(0x10000, U), count, rep,
              T, U)
    exp = before.copy()
    for e in range(count):
        # index entry used for element e: repeat i = e // rep loads from entry i*rep
        k = int(idx[e])
        exp[0x20000 + e * size: 0x20000 + (e + 1) * size] = before[k * size: (k + 1) * size]
    assert mem(core).tobytes() == exp.tobytes()


def test_demo_runs(capsys):
    from ptogpu.demos import reg as demo
    demo.run()
    out = capsys.readouterr().out
    assert "GatherVF" in out and "216" in out and "PtoCheckError" in out


def test_mask_raw_bytes_and_call_form(core):
    m, c = reg.UpdateMask(pto.half, 5)               # template arguments first
    assert c == 0
    assert m.raw().tobytes() == bytes([0xFF, 0x03]) + bytes(30)
    m, c = reg.UpdateMask(pto.int64, NumTwo, 65)
    assert (m.raw().tobytes(), c) == (b"\xff" * 32, 1)
    with pytest.raises(TypeError):
        reg.UpdateMask(5)
