"""``ptogpu fuzz``: run fuzz campaigns from the command line.

With no campaign options it runs the *known suite* (ptogpu.fuzz.suite) in well under a minute:
every divergence between the targets that index tiles can show, each explained by the rule
that predicts it (docs/mgather.md, docs/instructions.md, docs/mscatter.md), and campaigns that
must agree, over the SIMT geometry and the index edges. Every tile gets three verdicts: each
side against its own reference, then the two sides against each other. Exit status 1 when a
side disagrees with its reference or with a side it must agree with (an emulator bug), when
a divergence no rule explains is found, or when a known campaign's classes change."""
from __future__ import annotations

import argparse
import json
import os

from ..errors import KernelError, Terminated
from ..progress import Progress
from .report import Report
from .report_text import format_report, write_reproducers
from ..execution.config import FuzzConfig


RUN_SCHEMA = "ptogpu.fuzz.run/2"
"""``ptogpu fuzz --json``: one document of campaign reports (each ``ptogpu.fuzz.report/2``)."""
SHAPES_DEFAULT = (48, 64)
"""``--shapes`` without ``--shape``: tiles up to 48x64 (3 rounds of 1024 threads, partial warps)."""


def _tuple(s: str | None):
    return None if s is None else tuple(int(x) for x in s.replace("x", ",").split(","))


def _count(v: str) -> int:
    """A non-negative integer option (instances, table elements)."""
    try:
        n = int(v, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{v!r} is not an integer") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{v} is negative")
    return n


def _shape(v: str) -> str:
    """``RxC`` with R, C >= 1."""
    import re
    m = re.fullmatch(r"\s*(\d+)\s*[x,]\s*(\d+)\s*", v)
    if not m:
        raise argparse.ArgumentTypeError(f"{v!r}: expected RxC, e.g. 16x16")
    if int(m[1]) < 1 or int(m[2]) < 1:
        raise argparse.ArgumentTypeError(f"{v!r}: rows and cols must be at least 1")
    return f"{int(m[1])}x{int(m[2])}"


def _byte(v: str) -> int:
    try:
        b = int(v, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{v!r} is not a byte value (0..255, e.g. 0xAB)") from None
    if not 0 <= b <= 255:
        raise argparse.ArgumentTypeError(f"{v} is not a byte value (0..255)")
    return b


def _quirk(v: str) -> tuple[str, bool]:
    name, eq, val = v.partition("=")
    onoff = {"on": True, "1": True, "true": True, "off": False, "0": False, "false": False}
    if not eq or not name or val.lower() not in onoff:
        raise argparse.ArgumentTypeError(f"{v!r}: expected NAME=on or NAME=off")
    return name, onoff[val.lower()]


def add_parser(sub) -> argparse.ArgumentParser:
    f = sub.add_parser("fuzz", help="fuzz campaigns: compare targets, executors and backends",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    from ..execution.instrs import REGISTRY
    f.add_argument("--instr", type=str.lower, choices=tuple(REGISTRY), help="instruction (default mgather)")
    f.add_argument("--kernel", metavar="FILE.py:FN", help="fuzz your own kernel: FN of FILE.py, whose "
                   "FUZZ = dict(inputs=..., outputs=..., fixed=...) says its buffers (docs/fuzz.md)")
    f.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="--kernel: seconds a chunk may run on one side (default 600)")
    f.add_argument("--references", choices=("sample", "all"), default=None,
                   help="--kernel: the instances a kernel side is checked against its NumPy reference: the first "
                        "256 of each chunk and every one whose sides differ (sample, the default) or all "
                        "(the known suite's kernel campaigns: all)")
    f.add_argument("--space", type=str.lower, choices=("ub", "l1"), help="MGATHER destination: ub (Vec) or l1 (GM->L1)")
    f.add_argument("--mode", type=str.lower, choices=("elem", "row"), help="Coalesce mode (default elem)")
    f.add_argument("--oob", type=str.lower, choices=("undefined", "skip", "clamp", "wrap", "zero"),
                   help="GatherOOB (default wrap); MSCATTER: ScatterOOB undefined|skip|clamp|wrap (default skip)")
    f.add_argument("--atomic", type=str.lower, choices=("none", "add", "max", "min"),
                   help="MSCATTER: ScatterAtomicOp (default none)")
    f.add_argument("--op", type=str.lower, default=None, metavar="VARIANT",
                   help="the instruction's operation variant: TCMP/TCMPS cmpMode (eq ne lt gt ge le; TCMPS "
                        "MODE.scalar: its scalar form), TCVT DST.ROUND[.SAT], TMOV DST_TYPE, TCI desc, "
                        "TMRGSORT exhausted (a wrong one is refused with the list)")
    f.add_argument("--dtype", type=str.lower, help="element type (default float32)")
    f.add_argument("--index-dtype", type=str.lower, help="index element type (default int32)")
    f.add_argument("--shape", type=_shape, help="dst valid shape RxC (default 16x16)")
    f.add_argument("--dst-fill", type=_byte, default=None,
                   help="byte the destination holds before the instruction, e.g. 0xAB (default 0)")
    f.add_argument("--mask", type=str, default=None, metavar="PATTERN[.col]",
                   help="TGATHER/TSCATTER: fuzz the mask form (P0101 P1010 P0001 P0010 P0100 P1000 P1111; "
                        ".col for the COL axis): the generated values are src's data")
    f.add_argument("--layout", type=str.lower, choices=("nd", "dn", "nz", "zz"),
                   help="MGATHER into UB: dst and Elem index tile layout (default nd); TMOV --space l1: nz "
                        "for an NZ source")
    f.add_argument("--table-size", type=_count, help="table (or TGATHERB src) elements (default 4096); "
                   "MSCATTER: slots, table rows (Row) or elements (Elem) (default 64)")
    f.add_argument("--table-shape", help="5-D table shape, e.g. 1,1,2,64,16")
    f.add_argument("--table-stride", help="5-D table stride")
    f.add_argument("--quirk", action="append", type=_quirk, metavar="NAME=on|off",
                   help="switch a target quirk (ptogpu targets lists them); repeatable")
    f.add_argument("--gen", default=None, help="generator: uniform oob negative extreme boundary dup mixed "
                   "edge (one index at the capacity edge or the end of GM, the rest in range); "
                   "MSCATTER also equal (one index per tile) and perm (no shared slot); data instructions "
                   "(--instr tmax ...) also edges (half the elements a type's edge values: signed zeros, NaN "
                   "payloads, infinities, denormals, extremes, ties, shift counts)")
    f.add_argument("--pair", action="append", help="sides to compare, A:B with A = target[.exec][@backend] "
                   "(default a5.simt:a2a3); MSCATTER: target[.default|.last][@backend] (default: A5 Default "
                   "and Last vs cpu, A5 Default vs Last, a2a3 vs cpu); repeatable")
    f.add_argument("-n", "--instances", type=_count, default=None, help="instances per campaign (default 100,000; the known suite: 200 to 20,000 by campaign)")
    f.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    f.add_argument("--backend", default="auto", help="auto | numpy | native | cupy (sides without @backend)")
    f.add_argument("--chunk", type=int, default=None, help="instances per chunk")
    f.add_argument("--workers", type=int, default=None,
                   help="NumPy campaigns: worker processes (0: this process; default one per CPU "
                        "for big campaigns)")
    f.add_argument("--suite", type=str.lower, choices=("known",), help="run the known-divergences suite (default without options)")
    f.add_argument("--no-shrink", action="store_true", help="skip shrinking")
    f.add_argument("--engine", type=str.lower, choices=("execute", "formula"), default="execute",
                   help="execute (default): run both sides' kernels (every SIMT lane, every scalar "
                        "loop) and compare their bytes: per tile in C when both sides are on "
                        "native, else in batches; formula: fast screening that compares "
                        "per-element formulas (no lanes run)")
    f.add_argument("--specialise", type=str.lower, choices=("auto", "on", "off"), default=None,
                   help="the executing engine compiled for each campaign's configuration (MGATHER "
                        "into UB on native): on (build first, ~3 s a configuration, cached), off, or "
                        "auto (default: a cached build, or a background build for campaigns of 6e7+ "
                        "tiles); sets PTOGPU_FUZZ_SPECIALISE for this process")
    f.add_argument("--shapes", action="store_true",
                   help="draw each tile's valid shape inside --shape (default 48x64 with --shapes; "
                        "dynamic valid dims: Elem rows and cols, Row rows); executing engine, both "
                        "sides on native")
    f.add_argument("--start", type=_count, default=0, help="first instance number (default 0)")
    f.add_argument("--shard", metavar="I/K", help="run shard I of K (0-based) of each campaign's "
                   "instances; merge the --json outputs with --merge")
    f.add_argument("--dask", metavar="ADDRESS", help="run each campaign as shards on a Dask cluster: "
                   "tcp://HOST:8786, or local:N to start N local worker processes (pip install 'ptogpu[dask]')")
    f.add_argument("--shards", type=int, default=None, metavar="K",
                   help="with --dask: shards per campaign (default 4 per worker thread, none under 100,000 tiles)")
    f.add_argument("--merge", nargs="+", metavar="FILE", help="merge the --json outputs of shard runs "
                   "(ptogpu fuzz ... --shard I/K --json) into the report one run gives, and shrink")
    f.add_argument("--last-scan", type=str.lower, choices=("owner", "reverse"), default="owner",
                   help="MSCATTER: how an a5.last side without its own scan runs on native: owner "
                        "(one pass recording each slot's last writer; default) or reverse (every "
                        "lane's reverse scan, what the hardware runs); a5.last.owner / "
                        "a5.last.reverse name one per side")
    f.add_argument("-x", "--exitfirst", action="store_true",
                   help="stop after the first campaign that fails (exit status 1)")
    f.add_argument("-k", "--select", action="append", metavar="TEXT",
                   help="the known suite: only the campaigns whose title contains TEXT (any case); repeatable")
    f.add_argument("--json", action="store_true", help="one JSON document on stdout")
    f.add_argument("-v", "--verbose", action="store_true",
                   help="print each class's minimal reproducer inline (default: the path of the "
                        "file it is written to)")
    f.add_argument("--repro-dir", default=None, metavar="DIR",
                   help="write each class's minimal reproducer here as a script (default "
                        "$PTOGPU_REPRO_DIR or ./ptogpu-repro in text mode; with --json only when given)")
    f.add_argument("--quiet", action="store_true",
                   help="no progress bar (there is none either when stderr is not a terminal)")
    f.set_defaults(fn=main)
    return f


def _backend(name: str) -> str:
    """``--backend``: a known, available backend (auto chooses); anything else is an error."""
    from ..backend import resolve_backend
    return resolve_backend(name)[0]


def _side(s: str, backend: str) -> str:
    return s if "@" in s else f"{s}@{backend}"


# Run options a merge cannot honour (the shards ran with theirs): option -> (attribute, default).
_MERGE_IGNORES = {
    "--instr": ("instr", None), "--space": ("space", None), "--mode": ("mode", None), "--oob": ("oob", None),
    "--atomic": ("atomic", None), "--dtype": ("dtype", None), "--index-dtype": ("index_dtype", None),
    "--shape": ("shape", None), "--dst-fill": ("dst_fill", None), "--layout": ("layout", None),
    "--mask": ("mask", None), "--op": ("op", None), "--table-size": ("table_size", None), "--table-shape": ("table_shape", None),
    "--table-stride": ("table_stride", None), "--quirk": ("quirk", None), "--gen": ("gen", None),
    "--pair": ("pair", None), "-n": ("instances", None), "--seed": ("seed", 0), "--backend": ("backend", "auto"),
    "--chunk": ("chunk", None), "--workers": ("workers", None), "--suite": ("suite", None),
    "--engine": ("engine", "execute"), "--shapes": ("shapes", False), "--start": ("start", 0),
    "--shard": ("shard", None), "--dask": ("dask", None), "--shards": ("shards", None),
    "--last-scan": ("last_scan", "owner"), "-x": ("exitfirst", False), "--specialise": ("specialise", None),
}


def main(args) -> int:
    """A configuration no target accepts (ValueError) or a table this host cannot hold
    (MemoryError) ends in ``ptogpu.cli``: one line, exit status 2."""
    if args.merge:
        given = [o for o, v in _MERGE_IGNORES.items() if getattr(args, v[0]) != v[1]]
        if given:
            raise ValueError(f"--merge takes the shards' JSON files as they are ({', '.join(given)} would be "
                             "ignored); it goes with --json, --no-shrink, --quiet, -v and --repro-dir only")
        return merge_main(args)
    if args.specialise is not None:
        import os
        os.environ["PTOGPU_FUZZ_SPECIALISE"] = {"on": "1", "off": "0", "auto": "auto"}[args.specialise]
    if args.dask is not None and not args.dask.strip():
        raise ValueError("--dask '': expected a scheduler address (tcp://HOST:8786) or local:N")
    if args.shard is not None:
        from ..execution.shards import Shard
        args.shard = Shard.parse(args.shard)
        if args.dask:
            raise ValueError("--shard runs one slice here; --dask runs every shard on the cluster: choose one")
    if args.shards is not None and (args.shards < 1 or not args.dask):
        raise ValueError("--shards K (K >= 1) goes with --dask")
    # on a cluster, "auto" is each worker's choice (checked and reported there)
    from ..backend import check_name
    backend = check_name(args.backend) if args.dask else _backend(args.backend)
    if args.workers is not None:
        from ..execution import executors
        if args.workers < 0:
            raise ValueError("--workers must be 0 (this process) or a positive count")
        executors.WORKERS = args.workers
    if args.kernel is not None:
        return kernel_main(args, backend)
    if args.time_limit is not None:
        raise ValueError("--time-limit goes with --kernel")
    if args.references is not None:
        raise ValueError("--references goes with --kernel")
    if args.shapes and args.engine != "execute":
        raise ValueError("--shapes runs on the executing engine, not --engine formula")
    custom = args.shapes or any(getattr(args, k) is not None for k in
                 ("instr", "space", "mode", "oob", "dtype", "index_dtype", "shape", "table_size", "layout",
                  "dst_fill", "atomic", "mask", "op",
                  "table_shape", "table_stride", "pair", "gen", "quirk"))
    from .suite import Known
    runs = []
    if args.instances is not None and not custom and not args.suite:
        raise ValueError("-n N sets the tiles of the campaign you name (--pair, --mode, --oob, ...); the "
                         "known suite has fixed sizes: --suite known -n N runs each of its campaigns with N tiles")
    if args.suite and args.instr is not None:
        raise ValueError("--suite known runs its own campaigns: no --instr")
    if args.select and custom and not args.suite:
        raise ValueError("-k TEXT selects campaigns of the known suite: no campaign options with it")
    if args.suite or not custom:
        from . import suite
        for k in suite.campaigns(backend):
            if k.needs_kernels and backend == "numpy":
                continue                   # (shape fuzzing and kernel checks need a kernel backend)
            if args.select and not any(t.lower() in k.title.lower() for t in args.select):
                continue
            runs.append(k if args.instances is None else
                        Known(k.title, k.config, k.a, k.b, k.generator, args.instances, k.shapes, k.kernel, k.expect,
                              k.threads, recorded_n=k.n))
    else:
        from ..execution.instrs import REGISTRY
        from .spec import families
        instr = REGISTRY[args.instr or "mgather"]
        kw = dict(instr.defaults)
        kw.update({k: getattr(args, k) for k in ("instr", "space", "mode", "oob", "dtype", "index_dtype",
                                                  "table_size", "layout", "dst_fill", "atomic", "mask", "op")
                   if getattr(args, k) is not None})
        if args.shape:
            kw["rows"], kw["cols"] = _tuple(args.shape)
        elif args.shapes:                  # room for rounds, partial warps and wide rows
            kw["rows"], kw["cols"] = SHAPES_DEFAULT
        if args.table_shape:
            kw["table_shape"] = _tuple(args.table_shape)
        if args.table_stride:
            kw["table_stride"] = _tuple(args.table_stride)
        if args.quirk:
            kw["quirks"] = tuple(args.quirk)
        cfg = FuzzConfig(**kw)
        family = families()[instr.family]          # what its campaigns take
        if args.engine not in family.ENGINES or (args.shapes and not family.SHAPES):
            raise ValueError(f"--instr {instr.name} runs the executing engine on fixed shapes "
                             "(no --shapes, --engine formula)")
        if args.gen is not None and args.gen not in family.GENERATORS:
            raise ValueError(f"--gen {args.gen!r}: {instr.name.upper()} campaigns take "
                             f"{', '.join(family.GENERATORS)}")
        for title, a, b in _pairs(args, family, cfg):
            runs.append(Known(title, cfg, a, b, args.gen or family.GENERATOR,
                              100_000 if args.instances is None else args.instances, args.shapes))
    if args.select and not runs:
        raise ValueError(f"-k {' -k '.join(args.select)}: no campaign of the known suite on {backend} has that in "
                         "its title")
    if (args.suite or not custom) and not args.json and runs:
        sel = f", those with {' or '.join(repr(t) for t in args.select)} in the title" if args.select else ""
        print(f"the known suite{sel}: {len(runs)} campaigns, {sum(k.n for k in runs):,} tiles "
              f"(seed {args.seed}; --suite known -n N sets each campaign's size)", flush=True)
    return execute(runs, args, backend)


def _pairs(args, family, config) -> list[tuple[str, str, str]]:
    """(title, side a, side b) of each ``--pair`` (each side checked by the family), or the
    family's default pairs for ``config``."""
    if not args.pair:
        return family.default_pairs(config)
    pairs = []
    for p in args.pair:
        if p.count(":") != 1 or not all(p.split(":")):
            raise ValueError(f"--pair {p!r}: expected two sides A:B, e.g. a5.simt:a2a3")
        a, b = p.split(":")
        family.side_of(a), family.side_of(b)
        pairs.append((f"{a} vs {b}", a, b))
    return pairs


def kernel_main(args, backend: str) -> int:
    """``ptogpu fuzz --kernel FILE.py:FN`` (or ``FILE.pto[:FUNC]``): a user's kernel over
    generated inputs, each ``--pair`` (default: its FUZZ's ``pair``, else cpu:a5) a campaign of
    the kernel family."""
    from .user_kernel import KernelReport
    from .user_kernel import load_kernel as load
    given = [o for o in ("instr", "space", "mode", "oob", "atomic", "dtype", "index_dtype", "shape", "dst_fill",
                         "layout", "mask", "op", "table_size", "table_shape", "table_stride", "quirk", "gen", "suite")
             if getattr(args, o) is not None]
    if given or args.shapes or args.engine != "execute":
        raise ValueError(f"--kernel takes its buffers from the kernel's FUZZ dict: no "
                         f"--{(given or ['shapes' if args.shapes else 'engine'])[0].replace('_', '-')}")
    if args.time_limit is not None and not args.time_limit > 0:
        raise ValueError(f"--time-limit {args.time_limit}: a positive number of seconds")
    prog = load(args.kernel)
    pairs = _pairs(args, KernelReport, prog)
    from .suite import Known
    n = 100_000 if args.instances is None else args.instances
    return execute([Known(f"{KernelReport.label_of(prog)}: {t}", prog, a, b, "inputs", n) for t, a, b in pairs],
                   args, backend)


def _one(k, backend: str, args, bar, pool=None):
    """One campaign (a suite.Known) of either kind: MGATHER-family (FuzzConfig) or MSCATTER
    (ScatterConfig), as a spec: here, one shard of it (--shard), or its shards on a Dask
    cluster (--dask)."""
    from .spec import CampaignSpec, run_sharded
    spec = CampaignSpec.of(k.config, _side(k.a, backend), _side(k.b, backend), k.n, generator=k.generator,
                           seed=args.seed, start=args.start, engine=args.engine, shapes=k.shapes,
                           chunk=args.chunk, title=k.title, last_scan=args.last_scan,
                           time_limit=getattr(args, "time_limit", None),
                           references=getattr(args, "references", None) or ("all" if k.expect is not None else "sample"),
                           native_threads="threads" if getattr(k, "threads", False) else None)
    if args.shard is not None:
        whole = {"start": spec.start, "n": spec.n}
        rep = spec.shard(args.shard).run(shrink=False, progress=bar)
        rep.campaign = whole                 # the range the shard is a slice of (--merge checks it)
        return rep
    if pool is None:
        return spec.run(shrink=not args.no_shrink, progress=bar)
    from ..execution import cluster, executors
    k_ = args.shards or cluster.default_shards(k.n, executors.n_slots(pool))
    return run_sharded(spec, k_, pool, shrink=not args.no_shrink, progress=bar)


def execute(runs: list, args, backend: str) -> int:
    """Run (title, config, side a, side b, generator, n) campaigns in order, print each report
    (or one JSON document), and return the exit status."""
    import contextlib
    with contextlib.ExitStack() as stack:
        pool = None
        if args.dask:
            from ..execution import cluster
            pool = cluster.executor(stack.enter_context(cluster.connect(args.dask)))
        return _execute(runs, args, backend, pool)


def _execute(runs: list, args, backend: str, pool) -> int:
    from .suite import kernels_ran
    reports = []
    interrupted = False
    stopped_in = ""
    for k in runs:
        bar = Progress(k.title, not args.quiet)          # stderr, a terminal only; --json too
        try:
            rep, counted = kernels_ran(lambda: _one(k, backend, args, bar, pool))
        except KeyboardInterrupt as e:       # Ctrl-C, SIGTERM: report the campaigns that finished
            interrupted = e
            stopped_in = f"{k.title}: stopped after {bar.done:,} of {k.n:,} tiles"
            break
        except KernelError as e:             # a kernel that misbehaved: what finished is printed,
            bar.close()                      # then its one line (ptogpu.cli: exit 2)
            part = getattr(e, "report", None)
            if part is not None and part.n and not args.json:
                print(_text(k.title, part, args), flush=True)
            raise
        finally:
            bar.close()
        # a known campaign whose classes changed (a shard sees only its slice: see --merge)
        rep.kernel_runs = counted if pool is None else None
        known = k.expect is not None and getattr(args, "shard", None) is None
        _regressions(rep, k if known else None, k.n, args.seed,
                     rep.kernel_runs if backend != "numpy" else None)     # (what ran: docs/fuzz.md)
        reports.append((k.title, rep))
        if not args.json:
            print(_text(k.title, rep, args), flush=True)
        elif args.repro_dir:
            write_reproducers(args.repro_dir, k.title, rep)
        if args.exitfirst and _failed(rep):
            break
    return _emit(reports, args, backend, interrupted, stopped_in, len(runs))


def _kernel_builds() -> dict:
    """The optimisation level of each native kernel family this process loaded (timings from
    a quick first-use build are not the engine's speed)."""
    from ..backend import native_backend
    return {f: native_backend.build_level(f) for f in native_backend.loaded_families()}


def _failed(rep) -> bool:
    return bool(rep.unexplained or rep.bugs or getattr(rep, "regression", None))


def _regressions(rep, k, n: int, seed: int, runs: dict | None) -> None:
    """What changed in the known campaign ``k`` (None: not a known campaign, or not comparable)
    against its record: its classes, its kernel runs where ``runs`` counts them, and (a kernel
    campaign) its sides' output digests; ``rep.regression`` joins them."""
    from .suite import digest_regression, kernel_regression, regression
    rep.class_regression = regression(k, rep, n, seed) if k is not None else None
    rep.kernel_regression = kernel_regression(k, runs, n, seed) if k is not None else None
    rep.digest_regression = digest_regression(k, rep, n, seed) if k is not None else None
    rep.regression = "; ".join(filter(None, (rep.class_regression, rep.kernel_regression,
                                             rep.digest_regression))) or None


def _text(title: str, rep, args=None) -> str:
    verbose = getattr(args, "verbose", True) if args is not None else True
    repro = {}
    where = getattr(args, "repro_dir", None) if args is not None else None
    if args is not None and not getattr(args, "json", False) and where is None:
        import os
        where = os.environ.get("PTOGPU_REPRO_DIR") or "ptogpu-repro"
    if where is not None:
        repro = write_reproducers(where, title, rep)
    lines = [format_report(title, rep, verbose, repro)]
    if getattr(rep, "class_regression", None):
        lines.append(f"   REGRESSION: this known campaign's classes changed ({rep.class_regression})")
    if getattr(rep, "kernel_regression", None):
        lines.append(f"   REGRESSION: this known campaign's kernel runs changed ({rep.kernel_regression})")
    if getattr(rep, "digest_regression", None):
        lines.append(f"   REGRESSION: this known campaign's output bytes changed ({rep.digest_regression})")
    lines += rep.lines()
    if rep.workers:                   # shards: where they ran, on which backends (checked there)
        where = sorted({w.get("address") or f"{w['host']}:{w['pid']}" for w in rep.workers})
        ran = sorted({f"{w['a']} vs {w['b']}" for w in rep.workers})
        lines.append(f"   shards: {len(rep.workers)} on {len(where)} worker(s) ({', '.join(where)}); "
                     f"ran as {'; '.join(ran)}")
    return "\n".join(lines)


def _emit(reports: list, args, backend: str, interrupted, stopped_in: str, n_runs: int) -> int:
    """Print the JSON document or the closing verdict; the exit status."""
    bad = sum(r.unexplained + r.bugs for _, r in reports)
    empty = sum(bool(r.check_error) for _, r in reports)
    changed = [t for t, r in reports if getattr(r, "regression", None)]
    if args.json:
        doc = {"schema": RUN_SCHEMA, "backend": backend,
               "campaigns": [dict(title=t, **r.to_json(), regression=getattr(r, "regression", None),
                                  kernel_runs=getattr(r, "kernel_runs", None),
                                  **({"campaign": r.campaign} if getattr(r, "campaign", None) else {}))
                             for t, r in reports],
               "unexplained_or_bugs": bad, "compared_nothing": empty, "regressions": changed,
               "interrupted": bool(interrupted), "stopped_in": stopped_in or None,
               "kernel_builds": _kernel_builds()}
        if getattr(args, "shard", None) is not None:
            doc["shard"] = str(args.shard)
        if getattr(args, "dask", None):
            doc["dask"] = args.dask
        print(json.dumps(doc, indent=1))
    else:
        tot = sum(r.n for _, r in reports if not r.check_error)
        div = sum(r.divergent for _, r in reports if not r.check_error)
        ncls = sum(len(r.classes) for _, r in reports if not r.check_error)
        verdict = (f"{bad:,} tile(s) unexplained or emulator bugs" if bad else
                   f"every side agrees with its reference; {div:,} divergent tile(s) in {ncls} class(es), "
                   f"each explained by a target-table rule" if div else
                   "every side agrees with its reference; no divergence")
        if not reports:
            verdict = "no campaign finished"
        elif empty == len(reports):
            verdict = "nothing was compared (a static check rejects a side)"
        elif empty:
            verdict += f"; {empty} campaign(s) compared nothing (a static check rejects a side)"
        if changed:
            verdict += f"; {len(changed)} known campaign(s) found other classes than recorded: " + \
                       "; ".join(changed)
        shard = f" (shard {args.shard}: not shrunk; --merge the --json outputs)" \
            if getattr(args, "shard", None) is not None else ""
        print(f"\n{len(reports)} campaign(s), {tot:,} tiles compared, backend {backend}{shard}: {verdict}"
              + (f" -- interrupted: {n_runs - len(reports)} campaign(s) not finished ({stopped_in})"
                 if interrupted else ""))
        quick = sorted(f for f, lv in _kernel_builds().items() if lv != "-O3")
        if quick and not os.environ.get("PTOGPU_NATIVE_OPT"):
            print(f"note: the timings come from quick first-use kernel builds ({', '.join(quick)}); the -O3 "
                  "builds finish in the background (PTOGPU_NATIVE_OPT=-O3 builds them first)")
    if interrupted:
        return 143 if isinstance(interrupted, Terminated) else 130
    # exit status: 1 a divergence no rule explains or an emulator bug; 2 a campaign that could
    # not compare anything (the request cannot run as asked); 0 otherwise
    return 1 if bad or changed else (2 if empty else 0)


def merge_main(args) -> int:
    """``ptogpu fuzz --merge FILE...``: the shard runs' reports (``--shard I/K --json``), merged
    campaign by campaign into what one run reports, then shrunk. Shards that do not tile one
    range (a missing or repeated shard), or an interrupted shard run, are an error."""
    from ..execution.shards import Shard
    from .report import check_counts
    from .spec import families
    families()                        # every family's report class registered for from_json
    groups: dict = {}
    wholes: dict = {}
    backends = set()
    for path in args.merge:
        try:
            with open(path) as f:
                doc = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
        got = doc.get("schema") if isinstance(doc, dict) else None
        if isinstance(got, str) and got.startswith("ptogpu.fuzz.run/") and got != RUN_SCHEMA:
            raise ValueError(f"{path}: a {got} document (an older ptogpu's, without per-side reference "
                             f"verdicts); this ptogpu merges {RUN_SCHEMA}: rerun that shard")
        if got != RUN_SCHEMA:
            raise ValueError(f"{path}: not a 'ptogpu fuzz --json' document ({RUN_SCHEMA})")
        if doc.get("interrupted"):
            raise ValueError(f"{path}: an interrupted run ({doc.get('stopped_in')}); rerun that shard")
        backends.add(doc.get("backend", "?"))
        shard = Shard.parse(doc["shard"]) if doc.get("shard") is not None else Shard(0, 1)
        for c in doc["campaigns"]:
            side = lambda s: s.split("@")[0]
            key = (c["title"], json.dumps(c["settings"], sort_keys=True), side(c["a"]), side(c["b"]),
                   c["generator"], c["seed"])
            try:
                check_counts(c)
                whole = c.get("campaign", {"start": c["start"], "n": c["n"]})
                whole = (int(whole["start"]), int(whole["n"]), shard.count)
                if shard.range(whole[0], whole[1]) != (c["start"], c["n"]):
                    raise ValueError(f"instances {c['start']:,} + {c['n']:,} are not shard {shard} of "
                                     f"{whole[0]:,} + {whole[1]:,}")
                rep = Report.from_json(c)
            except (KeyError, TypeError, ValueError) as e:
                raise ValueError(f"{path}: campaign {c.get('title')!r}: "
                                 f"{e if isinstance(e, ValueError) else f'field {e} missing or malformed'}") \
                    from None
            if wholes.setdefault(key, whole) != whole:
                raise ValueError(f"{path}: {c['title']}: shard of {whole[1]:,} tiles in {whole[2]} shards; "
                                 f"another file's is of {wholes[key][1]:,} in {wholes[key][2]}")
            rep.kernel_runs = c.get("kernel_runs")
            groups.setdefault(key, []).append((shard.index, rep))
    from . import suite
    known = {k.title: k for be in ("native", "cupy", "numpy") for k in suite.campaigns(be)}
    reports = []
    for key, got in groups.items():
        title = key[0]
        start, n, k = wholes[key]
        missing = sorted(set(range(k)) - {i for i, _ in got})
        if missing:
            ranges = [(i, *Shard(i, k).range(start, n)) for i in missing]
            raise ValueError(f"{title}: missing " + ", ".join(
                f"shard {i}/{k} (instances {lo:,} .. {lo + m - 1:,})" for i, lo, m in ranges[:4])
                + (f" and {len(ranges) - 4} more" if len(ranges) > 4 else "") + ": a merge needs every shard")
        reps = [r for _, r in got]
        counts = [r.kernel_runs for r in reps]
        rep = type(reps[0]).merge(reps)
        rep.kernel_runs = None if any(c is None for c in counts) else \
            {x: sum(c.get(x, 0) for c in counts) for x in sorted({x for c in counts for x in c})}
        if not args.no_shrink and not rep.check_error:
            rep.shrink()
        k = known.get(title)                 # a known campaign, merged: its recorded classes
        _regressions(rep, k if k and rep.start == 0 else None, rep.n, rep.seed, None)
        reports.append((title, rep))
        if not args.json:
            print(_text(title, rep, args), flush=True)
        elif args.repro_dir:
            write_reproducers(args.repro_dir, title, rep)
    args.shard = None
    return _emit(reports, args, "+".join(sorted(backends)), False, "", len(reports))
