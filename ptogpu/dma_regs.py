"""The MTE2 DMA registers of one core (other-ops.md §D.2): loop sizes, strides and the pad
value of the OUT→L1 and OUT→UB paths. They are core state, like the arenas (they persist
across instructions, as on hardware), so they live beside ``Core``; the burst engine that
reads them is ``ptogpu.semantics.dma``."""
from __future__ import annotations

from dataclasses import dataclass, field

M21 = (1 << 21) - 1
M40 = (1 << 40) - 1


@dataclass
class PathRegs:
    """Loop and pad registers of one MTE2 path (OUT→L1 or OUT→UB), stored packed as written.

    ``loop_size = (loop2 << 21) | loop1``; ``loopN_stride = (dst << 40) | src`` (§D.2).
    Power-on state: loop sizes (1, 1), strides 0, pad 0 (never set).
    """
    loop_size: int = (1 << 21) | 1
    loop1_stride: int = 0
    loop2_stride: int = 0
    pad: int = 0
    pad_set: bool = False

    @property
    def loop1(self) -> int:
        return self.loop_size & M21

    @property
    def loop2(self) -> int:
        return (self.loop_size >> 21) & M21

    @property
    def loop1_src(self) -> int:
        return self.loop1_stride & M40

    @property
    def loop1_dst(self) -> int:
        return self.loop1_stride >> 40

    @property
    def loop2_src(self) -> int:
        return self.loop2_stride & M40

    @property
    def loop2_dst(self) -> int:
        return self.loop2_stride >> 40

    @property
    def loop_mode(self) -> bool:
        """Loop mode is on whenever the loop sizes differ from the reset value (1, 1)."""
        return (self.loop1, self.loop2) != (1, 1)

    def pad_bytes(self, elem: int) -> bytes:
        """One pad element: the low ``8*elem`` bits of the register, little-endian (§D.2)."""
        return (self.pad & ((1 << (8 * elem)) - 1)).to_bytes(elem, "little")


@dataclass
class DmaRegs:
    """Per-core MTE2 register state: separate OUT→L1 and OUT→UB paths (§D.2, §E)."""
    out_to_l1: PathRegs = field(default_factory=PathRegs)
    out_to_ub: PathRegs = field(default_factory=PathRegs)

    def path(self, dst_space: str) -> PathRegs:
        return self.out_to_l1 if dst_space == "l1" else self.out_to_ub
