"""Helper of tests/test_batch_edges.py: dynamic valid dims far past the arena, on backend argv[1]."""
import sys, ptogpu as pto, numpy as np
be=sys.argv[1]
def run(name, fn):
    try:
        fn(); print(name, "no error")
    except pto.PtoError as e: print(name, type(e).__name__, str(e))
    except Exception as e: print(name, "OTHER", type(e).__name__, str(e))
with pto.Core("a5", be) as core:
    D=pto.DYNAMIC
    def tgb():
        dst=pto.Tile[pto.TileType.Vec, pto.float32, 8, 64, pto.BLayout.RowMajor, D, 64](2**40)
        src=pto.Tile[pto.TileType.Vec, pto.float32, 8, 64](); off=pto.Tile[pto.TileType.Vec, pto.uint32, 8, 8]()
        pto.TASSIGN(dst,0); pto.TASSIGN(src,4096); pto.TASSIGN(off,8192)
        pto.TGATHERB(dst, src, off)
    run("tgatherb", tgb)
    def til():
        T=pto.Tile[pto.TileType.Vec, pto.float32, 8, 64, pto.BLayout.RowMajor, D, 64]
        ts=[T(2**40) for _ in range(4)]
        for k,t in enumerate(ts): pto.TASSIGN(t, k*4096)
        pto.TINTERLEAVE(*ts)
    run("tinterleave", til)
    def l1():
        table=pto.GlobalTensor[pto.float32, pto.Shape[1,1,1,1,256], pto.Stride[256,256,256,256,1], pto.Layout.ND](core.gm_put(np.zeros(256,np.float32)))
        gi=pto.GlobalTensor[pto.int32, pto.Shape[1,1,1,1,16], pto.Stride[16,16,16,16,1], pto.Layout.ND](core.gm_put(np.zeros(16,np.int32)))
        dst=pto.Tile[pto.TileType.Mat, pto.float32, 16, 16, pto.BLayout.ColMajor, D, 16, pto.SLayout.RowMajor, 512](2**40)
        pto.TASSIGN(dst,0)
        pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Clamp](dst, table, gi)
    run("l1 row", l1)
