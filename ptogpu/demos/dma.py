"""``ptogpu demo dma``: the ``asc_copy_gm2l1_align`` page's example on Ascend 950 (a5).

Three bursts of 48 bytes (byte ``i`` of burst ``b`` is ``0x10*(b+1) + i``) are copied into
L1 in Normal (dst stride 64, first-element filler), Compact (dst stride 48, pad 0xA5 only
after the 144-byte whole) and left/right padding mode (4 + 12 bytes of 0xA5 per burst).
Each L1 image is printed as hex rows of 32 bytes; ``^^`` under a byte marks a pad or filler
byte (known from the burst trace, last writer wins), and the page's golden is checked.
"""
from __future__ import annotations

import numpy as np

import ptogpu as pto
from ptogpu import asc

BURSTS, LEN = 3, 48
INPUT = np.array([(0x10 * (b + 1) + i) & 0xFF for b in range(BURSTS) for i in range(LEN)], np.uint8)

MODES = (
    # name, call arguments after (dst, src), image bytes, what the page says
    ("normal", (BURSTS, LEN, 0, 0, False, 4, LEN, 64), 192,
     "dst stride 64: each burst padded to 64 bytes with its first byte"),
    ("compact", (BURSTS, LEN, 0, 0, True, 4, LEN, LEN), 160,
     "dst stride 48: bursts back to back, 16 bytes of 0xA5 after the 144-byte whole"),
    ("left/right", (BURSTS, LEN, 4, 12, False, 4, LEN, 64), 192,
     "4 bytes of 0xA5, 48 data bytes, 12 bytes of 0xA5 per burst (pad register forced)"),
)


def golden(name: str) -> np.ndarray:
    """The page's MakeGolden."""
    g = np.full(160 if name == "compact" else 192, 0xA5, np.uint8)
    for b in range(BURSTS):
        s = INPUT[b * LEN:(b + 1) * LEN]
        if name == "normal":
            g[b * 64: b * 64 + LEN] = s
            g[b * 64 + LEN: (b + 1) * 64] = s[0]
        elif name == "compact":
            g[b * LEN:(b + 1) * LEN] = s
        else:
            g[b * 64 + 4: b * 64 + 4 + LEN] = s
    return g


def pad_mask(bursts, nbytes: int) -> np.ndarray:
    """True where the last burst to write a byte wrote pad or filler there."""
    mask = np.zeros(nbytes, bool)
    for b in bursts:
        a = b.dst_addr
        for lo, hi, is_pad in ((a, a + b.left, True), (a + b.left, a + b.left + b.nbytes, False),
                               (a + b.left + b.nbytes, b.dst_end, True)):
            mask[max(lo, 0):min(hi, nbytes)] = is_pad
    return mask


def show(image: np.ndarray, mask: np.ndarray) -> None:
    for row in range(0, image.size, 32):
        vals, marks = image[row:row + 32], mask[row:row + 32]
        print(f"  {row:04x}: " + " ".join(f"{v:02x}" for v in vals))
        if marks.any():
            print("        " + " ".join("^^" if m else "  " for m in marks).rstrip())


def run() -> None:
    print(__doc__.strip().splitlines()[0].replace("``", ""))
    print(f"input ({INPUT.size} bytes in GM): bursts start 10 11 12 ..., 20 21 22 ..., 30 31 32 ...")
    print("pad register: asc_set_gm2l1_pad(0xA5A5A5A5)\n")
    ok = True
    for name, args, nbytes, what in MODES:
        core = pto.Core("a5", "numpy")
        with core, core.trace() as tr:
            src = core.gm_put(INPUT)
            asc.asc_set_gm2l1_pad(0xA5A5A5A5)
            asc.asc_copy_gm2l1_align(core.l1_ptr(0, pto.uint8), src, *args)
            image = core.read("l1", 0, nbytes)
        same = bool(np.array_equal(image, golden(name)))
        ok &= same
        t = tr.totals()
        print(f"{name}: asc_copy_gm2l1_align(l1, gm, {', '.join(map(str, args))})")
        print(f"  {what}")
        print(f"  {t['bursts']} bursts, {t['payload_bytes']} payload bytes, "
              f"{t['padding_bytes']} pad/filler bytes issued; matches the page's golden: "
              f"{'yes' if same else 'NO'}")
        show(image, pad_mask(tr.bursts, nbytes))
        print()
    print("all three modes match the golden" if ok else "MISMATCH against the golden")
