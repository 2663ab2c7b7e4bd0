"""``ptogpu simt sweep`` and ``ptogpu simt show``: SIMT launch tables and pictures."""
from __future__ import annotations

import argparse
import re
import sys

import numpy as np

from ..semantics.simt_case import SimtCase
from ..semantics.launch_map import launch_map
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


def parse_int(text: str, what: str) -> int:
    """An integer as users write one: ``42``, ``0x2a``, ``-7``, ``2^31``, ``2^32-1``."""
    t = text.strip().replace("**", "^")
    m = re.fullmatch(r"([+-]?)2\^(\d{1,3})([+-]\d+)?", t)
    try:
        if m:
            v = (1 << int(m.group(2))) * (-1 if m.group(1) == "-" else 1) + int(m.group(3) or 0)
        else:
            v = int(t, 0)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not an integer (e.g. 42, 0x2a, 2^31)") from None
    return v


INDEX_MIN, INDEX_MAX = -(1 << 63), (1 << 64) - 1


def index_pattern(spec: str, mode: str, vr: int, vc: int) -> np.ndarray | None:
    """``identity`` | ``random[:seed[:hi]]`` | ``constant:K`` | ``stride:K`` | ``reverse``.
    Values are index words as the kernel reads them: they must fit 64 bits (int64 or uint64;
    the target then casts them to its index width)."""
    n = vr if mode == "row" else vr * vc
    shape = (vr,) if mode == "row" else (vr, vc)
    kind, *args = spec.split(":")
    nums = [parse_int(a, f"--indices {spec}") for a in args]
    arity = {"identity": 0, "reverse": 0, "random": 2, "constant": 1, "stride": 1}
    if kind not in arity:
        raise ValueError(f"--indices {spec!r}: one of identity, random[:seed[:hi]], constant:K, "
                         "stride:K, reverse")
    if len(nums) > arity[kind]:
        raise ValueError(f"--indices {spec!r}: {kind} takes at most {arity[kind]} value(s)")
    if kind == "identity":
        return None
    if kind == "reverse":
        return np.arange(n)[::-1].reshape(shape).copy()
    if kind == "random":
        seed = nums[0] if nums else 0
        hi = nums[1] if len(nums) > 1 else max(n, 1) * 4
        if seed < 0 or not 1 <= hi <= INDEX_MAX:
            raise ValueError(f"--indices {spec!r}: the seed must be >= 0 and hi in 1 .. 2^64-1")
        return np.random.default_rng(seed).integers(0, hi, shape, dtype=np.uint64 if hi > 1 << 62 else np.int64)
    k = nums[0] if nums else (0 if kind == "constant" else 2)
    vals = [k] if kind == "constant" else [0, k * max(n - 1, 0)]
    if not all(INDEX_MIN <= v <= INDEX_MAX for v in vals):
        raise ValueError(f"--indices {spec!r}: index values must fit 64 bits "
                         f"(-2^63 .. 2^64-1); {kind} {k} gives {max(vals, key=abs)}")
    if kind == "constant":
        return np.full(shape, k, dtype=np.uint64 if k > INDEX_MAX >> 1 else np.int64)
    return (np.arange(n, dtype=object) * k).astype(np.uint64 if k * max(n - 1, 0) > INDEX_MAX >> 1
                                                 else np.int64).reshape(shape)


def output_path(path: str | None, flag: str) -> str | None:
    """Judge an output file before any work: not a directory, in a directory that exists and
    can be written."""
    import os
    if path is None:
        return None
    if os.path.isdir(path):
        raise ValueError(f"{flag} {path}: is a directory; name a file, e.g. {os.path.join(path, 'out')}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ValueError(f"{flag} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ValueError(f"{flag} {path}: not writable")
    return path


def _outputs(png: str | None, csv: str | None = None) -> None:
    """The output files are writable, and matplotlib is there for a PNG, before any work."""
    output_path(csv, "--csv")
    output_path(png, "--png")
    if png:
        from .plot import require_matplotlib
        require_matplotlib()


def cmd_sweep(args) -> int:
    from .sweep import COLUMNS, sweep
    _outputs(args.png, args.csv)
    if args.sort not in COLUMNS:
        raise ValueError(f"--sort: no column {args.sort!r}; one of {', '.join(COLUMNS)}")
    rows, cols = parse_range(args.rows), parse_range(args.cols)
    if not rows or not cols:
        raise ValueError("--rows and --cols must name at least one value each")
    dts = [d.strip() for d in args.dtype.split(",") if d.strip()]
    if not dts:
        raise ValueError(f"--dtype {args.dtype!r}: name at least one element type, e.g. float32,half")
    from .sweep import SweepSpec, run_sharded
    from ..execution.shards import Shard
    spec = SweepSpec(args.mode, tuple(rows), tuple(cols), tuple(dts))
    if args.dask is not None and not args.dask.strip():
        raise ValueError("--dask '': expected a scheduler address (tcp://HOST:8786) or local:N")
    if args.shard is not None and args.dask:
        raise ValueError("--shard runs one slice here; --dask runs every shard on the cluster: choose one")
    if args.shards is not None and (args.shards < 1 or not args.dask):
        raise ValueError("--shards K (K >= 1) goes with --dask")
    where = ""
    if args.dask:
        from ..execution import cluster, executors
        from ..progress import Progress
        with cluster.connect(args.dask) as client:
            ex = cluster.executor(client)
            k = args.shards or cluster.default_shards(spec.size, executors.n_slots(ex), min_instances=10_000)
            bar = Progress("simt sweep", True)
            try:
                s = run_sharded(spec, k, ex, progress=bar)
            finally:
                bar.close()
            where = f", {k} shard(s) on {executors.describe(ex)}"
    elif args.shard is not None:
        sh = Shard.parse(args.shard)
        s = spec.run(sh)
        where = f", shard {sh} (shapes {s.start}..{s.start + len(s) - 1} of {spec.size})"
    else:
        s = sweep(args.mode, rows, cols, dts)
    if not len(s):
        print(f"ptogpu simt sweep: no shapes in this shard{where}")
        return 0
    lu = s["lane_utilisation"]
    print(f"ptogpu simt sweep: {len(s)} shapes ({args.mode}, rows {rows[0]}..{rows[-1]}, cols "
          f"{cols[0]}..{cols[-1]}, {', '.join(s.dtypes)}) in {s.seconds:.3f} s{where}")
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


def cmd_show_scatter(args) -> int:
    """``simt show --instr mscatter``: which lane writes which slot, and where collisions race."""
    from .scatter_map import scatter_map, scatter_png
    if args.mode not in ("row", "elem"):
        raise ValueError(f"--mode {args.mode}: MSCATTER launches are row or elem")
    if args.oob == "zero":
        raise ValueError("--oob zero: MSCATTER has no Zero policy (undefined, skip, clamp, wrap)")
    n = args.rows if args.mode == "row" else args.rows * args.cols
    spec = args.indices if args.indices != "identity" or args.cap is None else "identity"
    idx = index_pattern(spec, args.mode, args.rows, args.cols)
    flat = np.arange(n) if idx is None else np.asarray(idx).reshape(-1)
    slots = args.cap if args.cap is not None else int(min(max(int(flat.max(initial=0)) + 1, 1), 1 << 16))
    if not 0 <= slots <= 1 << 20:
        raise ValueError(f"--cap {slots}: MSCATTER slots 0 .. 2^20")
    if args.rows < 1 or args.cols < 1 or n > 1 << 16:
        raise ValueError("--rows and --cols: at least 1, at most 65536 elements")
    from ..dtypes import as_dtype
    from ..targets import A5
    esize = as_dtype(args.dtype).itemsize
    nbytes = args.rows * -(-args.cols * esize // 32) * 32
    if nbytes > A5.ub_usable:
        raise ValueError(f"--rows {args.rows} --cols {args.cols}: the {args.dtype} source tile is {nbytes:,} "
                         f"bytes, more than A5's UB ({A5.ub_usable:,} bytes)")
    m = scatter_map(args.mode, args.rows, args.cols, flat, slots=slots, oob=args.oob,
                    conflict=args.conflict, dtype=args.dtype)
    if args.json:
        import json
        print(json.dumps({"schema": SHOW_SCHEMA, "instr": "mscatter", "indices": args.indices, **m.to_json()}))
        return 0
    print(m.table())
    if args.png:
        scatter_png(m, args.png)
        print(f"wrote {args.png}")
    return 0


def _fits(case) -> None:
    """The destination tile of the shown launch must fit A5's UB (L1 for l1_elem): a larger one
    is a tile no kernel can declare."""
    from ..targets import A5
    rows, cols = case.padded
    nbytes = rows * cols * case.esize
    space, room = ("L1", A5.l1_bytes) if case.mode == "l1_elem" else ("UB", A5.ub_usable)
    if nbytes > room:
        raise ValueError(f"--rows {case.vr} --cols {case.vc}: a {rows}x{cols} {case.dtype} tile is "
                         f"{nbytes:,} bytes, more than A5's {space} ({room:,} bytes)")


def cmd_show(args) -> int:
    from .render import grid_text, threads_text
    _outputs(args.png)
    if args.instr == "mscatter":
        return cmd_show_scatter(args)
    if args.conflict != "default" or args.oob == "skip":
        raise ValueError("--conflict and --oob skip belong to --instr mscatter")
    if args.cap is not None and not 0 <= args.cap < 1 << 32:
        raise ValueError(f"--cap {args.cap}: the capacity is a uint32 (0 .. 4,294,967,295) on A5")
    idx = index_pattern(args.indices, args.mode, args.rows, args.cols)
    case = SimtCase(args.mode, args.rows, args.cols, dtype=args.dtype, indices=idx, oob=args.oob.capitalize(),
                    cap=args.cap)
    _fits(case)
    from ..semantics.launch_map import GRIDS
    bad = [w for w in args.what.split(",") if w and w not in GRIDS]
    if bad:
        raise ValueError(f"--what {','.join(bad)}: one of {', '.join(GRIDS)}")
    m = launch_map(case)
    if args.json:
        import dataclasses
        import json
        met = launch_metrics(m)
        doc = {"schema": SHOW_SCHEMA,
               "case": {"mode": case.mode, "rows": case.vr, "cols": case.vc, "dtype": case.dtype,
                        "oob": case.oob, "cap": case.capacity(), "indices": args.indices},
               "metrics": {**dataclasses.asdict(met), "sectors_per_element": met.sectors_per_element,
                           "gm_efficiency": met.gm_efficiency},
               "grids": {w: m.grid(w).tolist() for w in args.what.split(",") if w}}
        print(json.dumps(doc))
        return 0
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


SHOW_SCHEMA = "ptogpu.simt.show/1"
"""``ptogpu simt show --json``: the case, its metrics and the asked-for grids (docs/json.md)."""


def register(sub) -> None:
    """Add ``simt`` (with ``sweep`` and ``show``) to the ``ptogpu`` subcommand parser."""
    p = sub.add_parser("simt", help="A5 SIMT thread maps: sweep shapes, show one launch")
    ss = p.add_subparsers(dest="simt_cmd", metavar="{sweep,show}")
    sw = ss.add_parser("sweep", help="metrics over many (rows, cols) shapes: table, CSV, PNG heatmap")
    sw.add_argument("--mode", type=str.lower, choices=("row", "elem"), default="row",
                    help="Coalesce mode of the launches (default row)")
    sw.add_argument("--rows", default="1:100", help="valid rows: 1:100 | 8:256:8 | 1,2,3")
    sw.add_argument("--cols", default="1:100", help="valid cols (same forms)")
    sw.add_argument("--dtype", type=str.lower, default="float32", help="comma list, e.g. float32,half,int8")
    sw.add_argument("--sort", default="lane_utilisation", help="column to rank shapes by")
    sw.add_argument("--top", type=int, default=10, help="rows of the worst/best tables (0: none)")
    sw.add_argument("--csv", help="write every shape's metrics here")
    sw.add_argument("--png", help="write a heatmap here (needs matplotlib)")
    sw.add_argument("--shard", metavar="I/K", help="only shard I of K (0-based) of the shapes, in grid "
                    "order (dtype, rows, cols): the shards' CSV rows, concatenated in shard order, are "
                    "the whole sweep's")
    sw.add_argument("--dask", metavar="ADDRESS", help="run the sweep as shards on a Dask cluster "
                    "(tcp://HOST:8786 or local:N; pip install 'ptogpu[dask]')")
    sw.add_argument("--shards", type=int, default=None, metavar="K",
                    help="with --dask: shards (default 4 per worker thread)")
    sw.set_defaults(fn=cmd_sweep)
    sh = ss.add_parser("show", help="one launch: metrics, text grids, PNG picture")
    sh.add_argument("--mode", type=str.lower, choices=("row", "elem", "l1_elem"), default="row",
                    help="row, elem (MGATHER into UB) or l1_elem (GM->L1 SIMT) (default row)")
    sh.add_argument("--rows", type=int, default=12, help="valid rows")
    sh.add_argument("--cols", type=int, default=80, help="valid cols")
    sh.add_argument("--dtype", type=str.lower, default="float32", help="element type (default float32)")
    sh.add_argument("--indices", default="identity",
                    help="identity | random[:seed[:hi]] | constant:K | stride:K | reverse")
    sh.add_argument("--instr", type=str.lower, choices=("mgather", "mscatter"), default="mgather",
                    help="instruction whose A5 launch to show (default mgather)")
    sh.add_argument("--oob", type=str.lower, default="undefined", choices=("undefined", "skip", "clamp", "wrap", "zero"),
                    help="GatherOOB policy (default undefined); MSCATTER: ScatterOOB undefined|skip|clamp|wrap")
    sh.add_argument("--conflict", type=str.lower, default="default", choices=("default", "last"),
                    help="MSCATTER: ScatterConflict (default: Default, the racing source-centric kernel)")
    sh.add_argument("--cap", type=int, default=None,
                    help="OOB capacity (default: max index + 1); MSCATTER: the table's slots")
    sh.add_argument("--what", default="warp,lane,round",
                    help="text grids to print, comma list of warp, lane, round, seq, src")
    sh.add_argument("--threads", type=int, default=6, help="threads to list with their elements")
    sh.add_argument("--png", help="write the picture here (needs matplotlib)")
    sh.add_argument("--json", action="store_true",
                    help="one JSON document (case, metrics, the --what grids) instead of text")
    sh.set_defaults(fn=cmd_show)
    p.set_defaults(fn=_no_subcommand)


def _no_subcommand(args) -> int:
    print("ptogpu simt: choose sweep or show (ptogpu simt --help)", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ptogpu")
    register(ap.add_subparsers(dest="cmd"))
    args = ap.parse_args(argv)
    return args.fn(args) if getattr(args, "fn", None) else 0


if __name__ == "__main__":
    sys.exit(main())
