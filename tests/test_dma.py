"""The MTE2 burst engine (other-ops.md §D.2, §D.3): loop nesting, registers, last writer wins,
traces, and MGATHER A2/A3 Row issuing its real burst list (§D.4, mgather.md §6.3, §6.4).

Expected bytes come from ``dma_ref`` (the §D.3 rule as a byte loop) or are written by hand.
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu import asc
from ptogpu.semantics import dma
from conftest import OOB, ROW, SENT, new_core, tile
from dma_ref import strided_copy

DT = {1: pto.uint8, 2: pto.uint16, 4: pto.uint32}


@pytest.fixture
def a5():
    core = new_core("a5")
    with core:
        yield core


def _ref(core, src_ptr, gm_len, nbytes=4096):
    gm = bytes(core.read("gm", src_ptr.addr, gm_len))
    return bytearray(core.read("l1", 0, nbytes).tobytes()), gm


def _case(rng):
    elem = int(rng.choice([1, 2, 4]))
    n = int(rng.integers(1, 6))
    length = elem * int(rng.integers(1, 48 // elem + 1))
    pads = rng.random() < 0.4
    left = int(rng.integers(0, 32 // elem + 1)) if pads else 0
    right = int(rng.integers(0, 32 // elem + 1)) if pads else 0
    if not pads and rng.random() < 0.3:
        ds = length                                              # compact
    else:
        ds = 32 * int(rng.integers(0, 6))                        # may overlap (0, 32, ...)
    loops = (not (left or right)) and rng.random() < 0.5
    l1 = (int(rng.integers(0, 4)), int(rng.integers(0, 100)), 32 * int(rng.integers(0, 8))) if loops else (1, 0, 0)
    l2 = (int(rng.integers(1, 3)), int(rng.integers(0, 300)), 32 * int(rng.integers(0, 12))) if loops else (1, 0, 0)
    return dict(elem=elem, n=n, length=length, left=left, right=right, ds=ds, ss=int(rng.integers(0, 80)),
                l1=l1, l2=l2, const=bool(rng.random() < 0.5), dst=32 * int(rng.integers(0, 8)),
                src=int(rng.integers(0, 16)) * elem, pad=int(rng.integers(0, 1 << 32)))


@pytest.mark.parametrize("seed", range(6))
def test_random_transfers_match_the_byte_loop_reference(seed):
    rng = np.random.default_rng(seed)
    for _ in range(120):
        p = _case(rng)
        core = new_core("a5")
        with core:
            data = rng.integers(0, 256, 4096, dtype=np.uint8)
            g = core.gm_put(data)
            T = DT[p["elem"]]
            asc.asc_set_gm2l1_pad(p["pad"])
            asc.asc_set_gm2l1_loop_size(p["l1"][0], p["l2"][0])
            asc.asc_set_gm2l1_loop1_stride(p["l1"][1], p["l1"][2])
            asc.asc_set_gm2l1_loop2_stride(p["l2"][1], p["l2"][2])
            want, gm = _ref(core, g, 4096)
            const = p["const"] or p["left"] or p["right"]
            pe = (p["pad"] & ((1 << (8 * p["elem"])) - 1)).to_bytes(p["elem"], "little") if const else None
            issued = strided_copy(want, gm, src=p["src"], dst=p["dst"], n=p["n"], length=p["length"],
                                  elem=p["elem"], left=p["left"], right=p["right"], const_pad=pe,
                                  ss=p["ss"], ds=p["ds"], loop1=p["l1"], loop2=p["l2"])
            with core.trace() as tr:
                asc.asc_copy_gm2l1_align(core.l1_ptr(p["dst"], T), core.gm_ptr(g.addr + p["src"], T),
                                         p["n"], p["length"], p["left"], p["right"], p["const"], 0,
                                         p["ss"], p["ds"])
            got = core.read("l1", 0, 4096)
            assert bytes(got) == bytes(want), p
            assert [(b.src_addr - g.addr, b.dst_addr) for b in tr.bursts] == issued, p


def test_chunked_overlapping_writes_keep_issue_order(monkeypatch):
    monkeypatch.setattr(dma, "_CHUNK", 64)                        # one or two bursts per chunk
    core = new_core("a5")
    with core:
        data = np.arange(256, dtype=np.uint8)
        g = core.gm_put(data)
        want, gm = _ref(core, g, 256, 512)
        strided_copy(want, gm, src=0, dst=0, n=7, length=50, elem=1, ss=30, ds=32)   # overlapping
        asc.asc_copy_gm2l1_align(core.l1_ptr(0, pto.uint8), g, 7, 50, 0, 0, False, 0, 30, 32)
        assert bytes(core.read("l1", 0, 512)) == bytes(want)


def test_loop_nesting_order_is_loop2_loop1_burst(a5):
    g = a5.gm_put(np.arange(1024, dtype=np.uint8) % 251)
    asc.asc_set_gm2l1_loop_size(2, 3)
    asc.asc_set_gm2l1_loop1_stride(100, 64)
    asc.asc_set_gm2l1_loop2_stride(300, 256)
    with a5.trace() as tr:
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 2, 8, 0, 0, False, 0, 10, 32)
    got = [(b.src_addr - g.addr, b.dst_addr) for b in tr.bursts]
    want = [(i2 * 300 + i1 * 100 + b * 10, i2 * 256 + i1 * 64 + b * 32)
            for i2 in range(3) for i1 in range(2) for b in range(2)]
    assert got == want


def test_register_packing_and_defaults(a5):
    r = a5.regs.out_to_l1
    assert (r.loop1, r.loop2, r.loop1_stride, r.loop2_stride, r.pad) == (1, 1, 0, 0, 0)
    assert r.loop_size == (1 << 21) | 1
    asc.asc_set_gm2l1_loop_size(5, 7)
    asc.asc_set_gm2l1_loop1_stride(0x123456789A, 0x1FFFE0)
    asc.asc_set_gm2l1_loop2_stride(3, 64)
    assert r.loop_size == (7 << 21) | 5
    assert r.loop1_stride == (0x1FFFE0 << 40) | 0x123456789A
    assert r.loop2_stride == (64 << 40) | 3
    assert a5.regs.out_to_ub.loop_size == (1 << 21) | 1           # the UB path is separate
    asc.asc_set_gm2ub_loop_size(2, 3)
    assert a5.regs.out_to_ub.loop_size == (3 << 21) | 2 and r.loop_size == (7 << 21) | 5


def test_pad_element_is_low_bits_of_the_register():
    r = dma.PathRegs(pad=0xDEADBEEF)
    assert r.pad_bytes(1) == b"\xef" and r.pad_bytes(2) == b"\xef\xbe"
    assert r.pad_bytes(4) == b"\xef\xbe\xad\xde"


def test_loop_registers_persist_until_reset(a5):
    g = a5.gm_put(np.arange(64, dtype=np.uint8))
    asc.asc_set_gm2l1_loop_size(3, 1)
    asc.asc_set_gm2l1_loop1_stride(0, 32)
    with a5.trace() as tr:
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 1, 4, 0, 0, False, 0, 4, 32)
        asc.asc_copy_gm2l1_align(a5.l1_ptr(256, pto.uint8), g, 1, 4, 0, 0, False, 0, 4, 32)
        asc.asc_set_gm2l1_loop_size(1, 1)                         # PTO resets with (1<<21)|1
        asc.asc_copy_gm2l1_align(a5.l1_ptr(512, pto.uint8), g, 1, 4, 0, 0, False, 0, 4, 32)
    assert [b.dst_addr for b in tr.bursts] == [0, 32, 64, 256, 288, 320, 512]
    # each 4-byte burst is followed by 28 bytes of its first element (0)
    assert bytes(a5.read("l1", 32, 32)) == bytes([0, 1, 2, 3]) + bytes(28)


def test_registers_are_per_core():
    a, b = new_core("a5"), new_core("a5")
    with a:
        asc.asc_set_gm2l1_loop_size(4, 1)
    assert b.regs.out_to_l1.loop1 == 1 and a.regs.out_to_l1.loop1 == 4


def test_loop_count_zero_is_a_no_op(a5):
    g = a5.gm_put(np.arange(64, dtype=np.uint8))
    before = bytes(a5.read("l1", 0, 256))
    for sizes in ((0, 1), (1, 0)):
        asc.asc_set_gm2l1_loop_size(*sizes)
        with a5.trace() as tr:
            asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 2, 8, 0, 0, False, 0, 8, 32)
        assert tr.totals()["bursts"] == 0
    assert bytes(a5.read("l1", 0, 256)) == before


def test_zero_dst_stride_loop_last_iteration_wins(a5):
    g = a5.gm_put(np.arange(256, dtype=np.uint8))
    asc.asc_set_gm2l1_loop_size(3, 1)
    asc.asc_set_gm2l1_loop1_stride(50, 0)
    asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 1, 10, 0, 0, False, 0, 10, 32)
    # iteration 2 reads bytes 100..109 and rewrites all 32 bytes
    assert bytes(a5.read("l1", 0, 32)) == bytes(range(100, 110)) + bytes([100]) * 22


def test_huge_zero_stride_loops_are_folded(a5, monkeypatch):
    monkeypatch.setattr(dma, "MAX_BURSTS", 16)
    g = a5.gm_put(np.arange(4096, dtype=np.uint8) % 253)
    asc.asc_set_gm2l1_loop_size(10, 7)
    asc.asc_set_gm2l1_loop1_stride(3, 0)                          # folded: last iteration only
    asc.asc_set_gm2l1_loop2_stride(100, 64)
    want, gm = _ref(a5, g, 4096, 1024)
    strided_copy(want, gm, src=0, dst=0, n=2, length=12, elem=1, ss=20, ds=32,
                 loop1=(10, 3, 0), loop2=(7, 100, 64))
    with a5.trace() as tr:
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 2, 12, 0, 0, False, 0, 20, 32)
    assert bytes(a5.read("l1", 0, 1024)) == bytes(want)
    assert tr.totals() == {"bursts": 140, "payload_bytes": 140 * 12, "padding_bytes": 140 * 20}
    monkeypatch.setattr(dma, "MAX_BURSTS", 4)
    asc.asc_set_gm2l1_loop1_stride(3, 32)                         # nothing left to fold
    with pytest.raises(pto.PtoError, match="emulation limit"):
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 2, 12, 0, 0, False, 0, 20, 32)


def test_loop_mode_l1_bound_uses_loop_strides(a5):
    g = a5.gm_put(np.zeros(64, np.uint8))
    asc.asc_set_gm2l1_loop_size(1, 3)
    asc.asc_set_gm2l1_loop2_stride(0, 1 << 18)                    # 2 * 256 KiB = 512 KiB: out
    with pytest.raises(pto.PtoFault):
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 1, 32, 0, 0, False, 0, 32, 32)


# -- traces ---------------------------------------------------------------------------------------
def test_trace_reports_each_burst_and_totals(a5):
    g = a5.gm_put(np.arange(200, dtype=np.uint8))
    asc.asc_set_gm2l1_pad(0)
    asc.asc_set_copy_pad_val(0)
    with a5.trace() as tr:
        asc.asc_copy_gm2l1_align(a5.l1_ptr(64, pto.uint8), g, 2, 40, 4, 12, False, 0, 50, 96)
        asc.asc_copy_gm2ub_align(a5.ub_ptr(0, pto.uint8), g, 1, 10, 0, 0, True, 0, 10, 32)
    b = tr.bursts
    assert len(b) == 3
    assert (b[0].instr, b[0].src_space, b[0].src_addr, b[0].dst_space, b[0].dst_addr) == \
        ("asc_copy_gm2l1_align", "gm", g.addr, "l1", 64)
    assert (b[0].nbytes, b[0].left, b[0].right, b[0].fill, b[0].padding, b[0].dst_end) == \
        (40, 4, 12, 8, 24, 128)
    assert (b[1].src_addr, b[1].dst_addr) == (g.addr + 50, 160)
    assert (b[2].instr, b[2].dst_space, b[2].nbytes, b[2].fill) == ("asc_copy_gm2ub_align", "ub", 10, 22)
    assert tr.totals() == {"bursts": 3, "payload_bytes": 90, "padding_bytes": 70}
    assert tr.totals("asc_copy_gm2ub_align") == {"bursts": 1, "payload_bytes": 10, "padding_bytes": 22}
    assert tr.instructions() == ["asc_copy_gm2l1_align", "asc_copy_gm2ub_align"]
    with a5.trace() as outer:
        with a5.trace() as inner:
            asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 1, 32, 0, 0, False, 0, 32, 32)
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 1, 32, 0, 0, False, 0, 32, 32)
    assert len(inner.bursts) == 1 and len(outer.bursts) == 2 and len(tr.bursts) == 3


def test_fault_records_nothing(a5):
    g = a5.gm_put(np.zeros(64, np.uint8))
    with a5.trace() as tr:
        with pytest.raises(pto.PtoFault):
            asc.asc_copy_gm2l1_align(a5.l1_ptr(512 * 1024 - 32, pto.uint8), g, 2, 32, 0, 0, False, 0, 32, 32)
    assert tr.bursts == [] and tr.totals()["bursts"] == 0


# -- MGATHER A2/A3 Row issues its real burst list ----------------------------------------------
def test_mgather_a2a3_row_nd_tail_is_first_element():
    core = new_core("a2a3")
    with core:
        tab = (np.arange(12 * 16, dtype=np.int16) + 300).reshape(12, 16)
        g = pto.GlobalTensor[pto.int16, pto.Shape[1, 1, 1, 12, 16], pto.Stride[192, 192, 192, 16, 1]](
            core.gm_put(tab))
        idx = tile(pto.int32, 1, 8, 0, vc=3)
        idx.set(np.array([[7, 20, 2]], np.int32))
        dst = tile(pto.int16, 3, 32, 64, vc=5)                    # VC*2 = 10 bytes -> 22 filler
        with core.trace() as tr:
            pto.MGATHER[ROW, OOB.Zero](dst, g, idx)
        raw = dst.raw().reshape(3, 32)
        sent = np.full(1, SENT, np.uint8).repeat(2).view(np.int16)[0]
        for r, row in ((0, 7), (2, 2)):
            assert raw[r, :5].tolist() == tab[row, :5].tolist()
            assert raw[r, 5:16].tolist() == [tab[row, 0]] * 11           # to the 32-byte boundary
            assert (raw[r, 16:] == sent).all()                             # beyond: untouched
        assert raw[1, :5].tolist() == [0] * 5 and (raw[1, 5:] == sent).all()   # Zero row: scalar
    assert [(b.dst_addr, b.nbytes, b.fill) for b in tr.bursts] == [(64, 10, 22), (64 + 128, 10, 22)]
    assert tr.totals() == {"bursts": 2, "payload_bytes": 20, "padding_bytes": 44}


def test_mgather_a2a3_row_nz_bursts():
    core = new_core("a2a3")
    with core:
        # NZ table: 2 batches x 2 column blocks x 1 row block of 16 x 8 floats
        S = (2, 2, 1, 16, 8)
        St = (2 * 16 * 8, 16 * 8, 16 * 8, 8, 1)
        data = np.arange(2 * 2 * 16 * 8, dtype=np.float32)
        T = pto.GlobalTensor[pto.float32, pto.Shape[S], pto.Stride[St], pto.Layout.NZ]
        g = T(core.gm_put(data))
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[5, 1]], np.int32))
        dst = tile(pto.float32, 16, 32, 64, bl=pto.BLayout.ColMajor, sl=pto.SLayout.RowMajor, vr=2)
        with core.trace() as tr:
            pto.MGATHER[ROW, OOB.Undefined](dst, g, idx)
        raw = dst.raw().reshape(4, 16, 8)                         # (column block, row, C0)
        for r, row in ((0, 5), (1, 1)):
            for i in range(2):
                for j in range(2):
                    src0 = i * St[0] + j * St[1] + row * St[3]
                    assert raw[i * 2 + j, r].tolist() == data[src0:src0 + 8].tolist()
    b = tr.bursts
    assert len(b) == 8 and all(x.nbytes == 32 and x.fill == 0 for x in b)
    # one multi-burst DMA per (row, batch): dst stride Rows*32 bytes between its bursts
    assert [x.dst_addr - 64 for x in b[:4]] == [0, 16 * 32, 2 * 16 * 32, 3 * 16 * 32]


def test_huge_transfer_past_l1_faults_before_listing(a5):
    g = a5.gm_put(np.zeros(64, np.uint8))
    asc.asc_set_gm2l1_loop_size((1 << 21) - 1, (1 << 21) - 1)
    asc.asc_set_gm2l1_loop1_stride(0, 32)
    with pytest.raises(pto.PtoFault, match="L1 bound"):
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 100, 32, 0, 0, False, 0, 0, 32)


def test_many_bursts_on_one_block_last_one_wins(a5):
    data = (np.arange(40000, dtype=np.uint32) * 7).view(np.uint8)
    g = a5.gm_put(data)
    with a5.trace() as tr:
        asc.asc_copy_gm2l1_align(a5.l1_ptr(64, pto.uint8), g, 4000, 20, 0, 0, False, 0, 3, 0)
    last = 3 * 3999
    assert bytes(a5.read("l1", 64, 32)) == bytes(data[last:last + 20]) + bytes([data[last]]) * 12
    assert tr.totals() == {"bursts": 4000, "payload_bytes": 80000, "padding_bytes": 48000}


def test_trace_totals_read_as_attributes_too(a5):
    g = a5.gm_put(np.arange(64, dtype=np.uint8))
    with a5.trace() as tr:
        asc.asc_copy_gm2l1_align(a5.l1_ptr(0, pto.uint8), g, 2, 20, 0, 0, False, 0, 20, 32)
    t = tr.totals()
    assert (t.bursts, t.payload_bytes, t.padding_bytes) == (2, 40, 24)
    b = tr.bursts[1]
    assert (b.src - g.addr, b.dst, b.length) == (20, 32, 20)
    assert repr(tr) == "<Trace 2 bursts, 40 payload bytes, 24 padding bytes>"
