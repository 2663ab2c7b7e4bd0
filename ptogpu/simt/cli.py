"""``ptogpu simt sweep`` and ``ptogpu simt show``: SIMT launch tables and pictures."""
from __future__ import annotations

import argparse
import sys

import numpy as np

from .case import SimtCase
from .launch_map import launch_map
from .metrics import launch_metrics


def parse_range(spec: str) -> list[int]:
    """``"1:100"`` (inclusive), ``"8:256:8"`` (with a step) or ``"1,2,3"``."""
    out: list[int] = []
    try:
        for part in spec.split(","):
            if ":" in part:
                bits = [int(b) for b in part.split(":")]
                lo, hi, step = bits[0], bits[1], bits[2] if len(bits) > 2 else 1
                out.extend(range(lo, hi + 1, step))
            elif part.strip():
                out.append(int(part))
    except ValueError:
        raise ValueError(f"{spec!r}: ranges are LO:HI[:STEP] or a comma list of integers") from None
    return out


def index_pattern(spec: str, mode: str, vr: int, vc: int) -> np.ndarray | None:
    """``identity`` | ``random[:seed[:hi]]`` | ``constant:K`` | ``stride:K`` | ``reverse``."""
    n = vr if mode == "row" else vr * vc
    shape = (vr,) if mode == "row" else (vr, vc)
    kind, *args = spec.split(":")
    if kind == "identity":
        return None
    if kind == "random":
        seed = int(args[0]) if args else 0
        hi = int(args[1]) if len(args) > 1 else max(n, 1) * 4
        return np.random.default_rng(seed).integers(0, hi, shape)
    if kind == "constant":
        return np.full(shape, int(args[0]) if args else 0)
    if kind == "stride":
        return (np.arange(n) * (int(args[0]) if args else 2)).reshape(shape)
    if kind == "reverse":
        return np.arange(n)[::-1].reshape(shape).copy()
    raise ValueError(f"unknown index pattern {spec!r}")


def cmd_sweep(args) -> int:
    from .sweep import COLUMNS, sweep
    if args.sort not in COLUMNS:
        raise ValueError(f"--sort: no column {args.sort!r}; one of {', '.join(COLUMNS)}")
    rows, cols = parse_range(args.rows), parse_range(args.cols)
    if not rows or not cols:
        raise ValueError("--rows and --cols must name at least one value each")
    dts = [d.strip() for d in args.dtype.split(",") if d.strip()]
    if not dts:
        raise ValueError(f"--dtype {args.dtype!r}: name at least one element type, e.g. float32,half")
    s = sweep(args.mode, rows, cols, dts)
    lu = s["lane_utilisation"]
    print(f"ptogpu simt sweep: {len(s)} shapes ({args.mode}, rows {rows[0]}..{rows[-1]}, cols "
          f"{cols[0]}..{cols[-1]}, {', '.join(s.dtypes)}) in {s.seconds:.3f} s")
    print(f"lane utilisation: mean {lu.mean():.3f}, min {lu.min():.3f}; full warps in "
          f"{np.mean(lu == 1.0) * 100:.1f}% of shapes; GM sectors/element: mean "
          f"{s['sectors_per_element'].mean():.3f}, max {s['sectors_per_element'].max():.3f}")
    order = s.order(args.sort)
    if args.top:
        print(f"\nworst {min(args.top, len(s))} by {args.sort}:")
        print(s.table(order, args.top))
        print(f"\nbest {min(args.top, len(s))} by {args.sort}:")
        print(s.table(order[::-1], args.top))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(s.csv())
        print(f"wrote {args.csv}")
    if args.png:
        from .plot import sweep_png
        sweep_png(s, args.png)
        print(f"wrote {args.png}")
    return 0


def cmd_show(args) -> int:
    from .render import grid_text, threads_text
    idx = index_pattern(args.indices, args.mode, args.rows, args.cols)
    case = SimtCase(args.mode, args.rows, args.cols, dtype=args.dtype, indices=idx, oob=args.oob,
                    cap=args.cap)
    from .launch_map import GRIDS
    bad = [w for w in args.what.split(",") if w and w not in GRIDS]
    if bad:
        raise ValueError(f"--what {','.join(bad)}: one of {', '.join(GRIDS)}")
    m = launch_map(case)
    print(launch_metrics(m).table())
    for what in args.what.split(","):
        if what:
            print()
            print(grid_text(m, what))
    if args.threads:
        print()
        print(threads_text(m, args.threads))
    if args.png:
        from .plot import show_png
        show_png(m, args.png)
        print(f"wrote {args.png}")
    return 0


def register(sub) -> None:
    """Add ``simt`` (with ``sweep`` and ``show``) to the ``ptogpu`` subcommand parser."""
    p = sub.add_parser("simt", help="A5 SIMT thread maps: sweep shapes, show one launch")
    ss = p.add_subparsers(dest="simt_cmd")
    sw = ss.add_parser("sweep", help="metrics over many (rows, cols) shapes: table, CSV, PNG heatmap")
    sw.add_argument("--mode", choices=("row", "elem"), default="row")
    sw.add_argument("--rows", default="1:100", help="valid rows: 1:100 | 8:256:8 | 1,2,3")
    sw.add_argument("--cols", default="1:100", help="valid cols (same forms)")
    sw.add_argument("--dtype", default="float32", help="comma list, e.g. float32,half,int8")
    sw.add_argument("--sort", default="lane_utilisation", help="column to rank shapes by")
    sw.add_argument("--top", type=int, default=10, help="rows of the worst/best tables (0: none)")
    sw.add_argument("--csv", help="write every shape's metrics here")
    sw.add_argument("--png", help="write a heatmap here (needs matplotlib)")
    sw.set_defaults(fn=cmd_sweep)
    sh = ss.add_parser("show", help="one launch: metrics, text grids, PNG picture")
    sh.add_argument("--mode", choices=("row", "elem", "l1_elem"), default="row")
    sh.add_argument("--rows", type=int, default=12, help="valid rows")
    sh.add_argument("--cols", type=int, default=80, help="valid cols")
    sh.add_argument("--dtype", default="float32")
    sh.add_argument("--indices", default="identity",
                    help="identity | random[:seed[:hi]] | constant:K | stride:K | reverse")
    sh.add_argument("--oob", default="Undefined", choices=("Undefined", "Clamp", "Wrap", "Zero"))
    sh.add_argument("--cap", type=int, default=None, help="OOB capacity (default: max index + 1)")
    sh.add_argument("--what", default="warp,lane,round",
                    help="text grids to print, comma list of warp, lane, round, seq, src")
    sh.add_argument("--threads", type=int, default=6, help="threads to list with their elements")
    sh.add_argument("--png", help="write the picture here (needs matplotlib)")
    sh.set_defaults(fn=cmd_show)
    p.set_defaults(fn=lambda a: (p.print_help(), 0)[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ptogpu")
    register(ap.add_subparsers(dest="cmd"))
    args = ap.parse_args(argv)
    return args.fn(args) if getattr(args, "fn", None) else 0


if __name__ == "__main__":
    sys.exit(main())
