"""``ptogpu demo reg``: the AscendC ``GatherVF`` loop (Reg::Gather doc example) on Ascend 950.

The loop gathers ``count`` elements by element index, one 256-byte register per repeat;
``UpdateMask`` activates only the lanes still to do, so the last store is partial and the
memory after ``count`` is never written.
"""
from __future__ import annotations

import numpy as np

import ptogpu as pto
from ptogpu import reg
from ptogpu.memory import Ptr


@reg.simd_vf
def gather_vf(dst_addr: Ptr, src_addr: Ptr, index_addr: Ptr, count: int,
              one_repeat_size: int) -> None:
    """The seed's ``GatherVF<T, U>``, line for line."""
    dst_reg = reg.RegTensor[dst_addr.dtype]()
    index_reg = reg.RegTensor[index_addr.dtype]()
    repeat_times = reg.CeilDivision(count, one_repeat_size) & 0xFFFF     # uint16_t
    for i in range(repeat_times):
        mask, count = reg.UpdateMask[dst_addr.dtype](count)
        reg.LoadAlign(index_reg, index_addr + i * one_repeat_size)
        reg.Gather(dst_reg, src_addr, index_reg, mask)
        reg.StoreAlign(dst_addr + i * one_repeat_size, dst_reg, mask)


def _case(title: str, T, U, S, src: np.ndarray, idx: np.ndarray, count: int) -> None:
    with pto.Core("a5", "numpy") as core:
        SRC, IDX, DST = 0x0000, 0x8000, 0x10000
        core.write("ub", SRC, src)
        core.write("ub", IDX, idx)
        core.write("ub", DST, np.full(1024, 0xEE, np.uint8))     # marker: untouched bytes
        size = np.dtype(T).itemsize
        lanes = reg.lanes(T)
        gather_vf(core.ub_ptr(DST, T), core.ub_ptr(SRC, S), core.ub_ptr(IDX, U), count, lanes)
        got = core.read("ub", DST, count * size).view(np.dtype(T))
        after = core.read("ub", DST + count * size, 8)
        print(f"  {title}: count={count}, {lanes} lanes per repeat, "
              f"{reg.CeilDivision(count, lanes)} repeats")
        print(f"    index[:8] = {idx[:8].tolist()}")
        print(f"    dst[:8]   = {got[:8].tolist()}")
        print(f"    dst[{count - 3}:{count}] = {got[-3:].tolist()}   "
              f"bytes after count: {after.tolist()} (0xEE = untouched)")


def run() -> None:
    print("GatherVF on Ascend 950 (target a5): UpdateMask, LoadAlign, Gather, StoreAlign")
    rng = np.random.default_rng(7)
    src32 = np.arange(512, dtype=np.float32) * 0.5
    _case("float <- float, uint32 index", pto.float32, pto.uint32, pto.float32, src32,
          rng.integers(0, 512, 160).astype(np.uint32), 150)
    src16 = (np.arange(1024) % 97).astype(np.float16)
    _case("half <- half, uint16 index", pto.half, pto.uint16, pto.half, src16,
          rng.integers(0, 1024, 256).astype(np.uint16), 200)
    src8 = np.array([40, -40, 127, -128, 0, 1, -1, 5], np.int8)
    _case("int16 <- int8 (zero-extended), uint16 index", pto.int16, pto.uint16, pto.int8, src8,
          np.arange(128, dtype=np.uint16) % 8, 8)
    print("  note: -40 (0xD8) gathers as 216 and -1 as 255: the high byte is 0, not a sign.")
    for t in ("a2a3", "cpu"):
        with pto.Core(t, "numpy") as core:
            try:
                reg.UpdateMask[pto.float32](8)
            except pto.PtoCheckError as e:
                print(f"  on {t}: PtoCheckError: {e}")


if __name__ == "__main__":
    run()
