"""An independent, loop-by-loop reference of one MTE2 burst (other-ops.md §D.3), for tests.

Written from the spec text only: at the destination a burst writes ``left`` pad bytes, the
payload, ``right`` pad bytes, then filler up to the next 32-byte boundary of the absolute
address; pad bytes repeat one element; bursts are applied in issue order.
"""
from __future__ import annotations


def apply_burst(mem: bytearray, gm: bytes, src: int, dst: int, length: int, left: int, right: int,
                pad_elem: bytes) -> None:
    """Write one burst into ``mem`` (``left``/``right`` in bytes; ``pad_elem``: one pad element)."""
    e = pad_elem
    out = []
    for j in range(left):
        out.append(e[j % len(e)])
    out.extend(gm[src: src + length])
    k = 0
    while len(out) < left + length + right or (dst + len(out)) % 32:
        out.append(e[k % len(e)])
        k += 1
    mem[dst: dst + len(out)] = bytes(out)


def strided_copy(mem: bytearray, gm: bytes, *, src: int, dst: int, n: int, length: int, elem: int,
                 left: int = 0, right: int = 0, const_pad: bytes | None = None, ss: int = 0,
                 ds: int = 0, loop1=(1, 0, 0), loop2=(1, 0, 0)) -> list[tuple[int, int]]:
    """for l2, for l1, for b (§D.2): returns the (src, dst) of each burst in issue order.
    ``left``/``right`` in elements; ``const_pad`` None means first-element padding."""
    issued = []
    for i2 in range(loop2[0]):
        for i1 in range(loop1[0]):
            for b in range(n):
                s = src + i2 * loop2[1] + i1 * loop1[1] + b * ss
                d = dst + i2 * loop2[2] + i1 * loop1[2] + b * ds
                pe = const_pad if const_pad is not None else gm[s: s + elem]
                apply_burst(mem, gm, s, d, length, left * elem, right * elem, pe)
                issued.append((s, d))
    return issued
