"""TLOAD, TADD, TSTORE, then a TEXPANDS (no kernel: NumPy on every backend) stored too: what a
campaign's per-call ``executed`` record says (tests/test_fuzz_kernel.py)."""
import ptogpu as pto
import ptogpu.fuzz

V = pto.TileType.Vec
G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 4, 16], pto.Stride[64, 64, 64, 16, 1]]


def add_store(a, b, y):
    x, w = pto.Tile[V, pto.float32, 4, 16](), pto.Tile[V, pto.float32, 4, 16]()
    pto.TLOAD(x, G(a))
    pto.TLOAD(w, G(b))
    pto.TADD(x, x, w)
    pto.TSTORE(G(y), x)
    pto.TEXPANDS(w, 1.0)
    pto.TSTORE(G(y + 64), w)


FUZZ = dict(inputs={"a": pto.fuzz.values(64, pto.float32, "small"), "b": pto.fuzz.values(64, pto.float32, "small")},
            outputs={"y": (128, pto.float32)})
