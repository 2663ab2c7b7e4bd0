"""The ``ptogpu`` command line."""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys


def _demos() -> list[str]:
    from . import demos
    return sorted(m.name for m in pkgutil.iter_modules(demos.__path__))


def cmd_demo(args) -> int:
    names = _demos()
    if args.name not in names:
        print(f"unknown demo {args.name!r}; available: {', '.join(names)}", file=sys.stderr)
        return 2
    mod = importlib.import_module(f"ptogpu.demos.{args.name}")
    takes = "backend" in mod.run.__code__.co_varnames
    if not takes and args.backend not in ("auto", "numpy"):
        print(f"ptogpu demo: demo {args.name!r} runs on numpy only (--backend does not apply)", file=sys.stderr)
        return 2
    kwargs = {"backend": args.backend} if takes else {}
    mod.run(**kwargs)
    return 0


def _fmt(v) -> str:
    return v.name if hasattr(v, "name") else str(v)


TARGETS_SCHEMA = "ptogpu.targets/1"


def _plain(v):
    """A target-table value as JSON: enums by name, sets and tuples as sorted lists."""
    import dataclasses
    if dataclasses.is_dataclass(v):
        return {f.name: _plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (set, frozenset)):
        return sorted(_plain(x) for x in v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "name") and not isinstance(v, (str, int, float, bool)):
        return v.name
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return str(v)


def cmd_targets(args) -> int:
    """Print every target table: sizes, per-instruction rules, quirks (with their switch)."""
    import dataclasses

    from .targets import QUIRK_DOCS, TARGETS
    if args.json:
        import json
        print(json.dumps({"schema": TARGETS_SCHEMA,
                          "targets": {k: _plain(t) for k, t in TARGETS.items()},
                          "quirks": dict(QUIRK_DOCS)}, indent=1))
        return 0
    print("quirks are switched per core: pto.Core(target, quirks={name: True/False})")
    for t in TARGETS.values():
        print(f"{t.name:5s} {t.title}")
        top = f", TASSIGN up to {t.ub_assignable // 1024}" if t.ub_assignable else ""
        print(f"      UB {t.ub_bytes // 1024} KiB ({t.ub_usable // 1024} KiB for tiles{top}), "
              f"L1 {t.l1_bytes // 1024} KiB, register API (ptogpu.reg): "
              f"{'yes' if t.has_reg_api else 'no'}")
        for f in dataclasses.fields(t):
            v = getattr(t, f.name)
            if dataclasses.is_dataclass(v):
                items = ", ".join(f"{g.name}={_fmt(getattr(v, g.name))}" for g in dataclasses.fields(v)
                                  if not g.name.endswith("dtypes"))
                print(f"      {f.name}: {items}")
        for q, v in t.quirks.items():
            print(f"      quirk {q} = {'on' if v else 'off'}: {QUIRK_DOCS[q]}")
        for k, v in t.notes.items():
            print(f"      note ({k}): {v}")
    return 0


class _Parser(argparse.ArgumentParser):
    """Command lines it cannot parse end in one line and exit status 2 (argparse's own error
    prints the whole usage first)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (--help for usage)\n")


def build_parser() -> argparse.ArgumentParser:
    """The whole ``ptogpu`` command line (every subcommand)."""
    from . import __version__
    p = _Parser(prog="ptogpu", description="Ascend PTO gather-family emulator")
    p.add_argument("--version", action="version", version=f"ptogpu {__version__}")
    sub = p.add_subparsers(dest="cmd", parser_class=_Parser)
    d = sub.add_parser("demo", help="run a demonstration (default: main)")
    d.add_argument("name", nargs="?", default="main", help="main | dma | reg | ...")
    d.add_argument("--backend", type=str.lower, default="auto", choices=("auto", "numpy", "native", "cupy"),
                   help="auto | numpy | native | cupy")
    d.set_defaults(fn=cmd_demo)
    t = sub.add_parser("targets", help="print the target tables")
    t.add_argument("--json", action="store_true", help="the tables as one JSON document")
    t.set_defaults(fn=cmd_targets)
    from .backend.info import register as register_info
    register_info(sub)                  # ptogpu info
    from .simt.cli import register as register_simt
    register_simt(sub)                  # ptogpu simt sweep | show
    from .fuzz.cli import add_parser as register_fuzz
    register_fuzz(sub)                  # ptogpu fuzz
    from .fuzz.coverage import add_parser as register_coverage
    register_coverage(sub)              # ptogpu coverage
    from .ptoir.cli import add_parser as register_trace
    register_trace(sub)                 # ptogpu trace
    return p


# Options whose value may start with "-" (a shard like -1/4): argparse would read the value as
# an option and say only "expected one argument"; joined as --shard=-1/4, the shard rule answers.
_DASH_VALUES = ("--shard",)


def _join_dash_values(argv: list[str]) -> list[str]:
    out, it = [], iter(argv)
    for a in it:
        if a in _DASH_VALUES:
            nxt = next(it, None)
            if nxt is not None and nxt.startswith("-") and nxt[1:2].isdigit():
                out.append(f"{a}={nxt}")
                continue
            out.append(a)
            if nxt is not None:
                out.append(nxt)
            continue
        out.append(a)
    return out


def main(argv: list[str] | None = None) -> int:
    import sys
    p = build_parser()
    args = p.parse_args(_join_dash_values(list(sys.argv[1:] if argv is None else argv)))
    if not getattr(args, "fn", None):
        p.print_help()
        return 0
    return _run(args)


def _run(args) -> int:
    """Bad input ends with one line naming the problem, not a traceback (PTOGPU_TRACEBACK=1
    shows it): 1 when the emulated target rejects or traps, 2 for a request that cannot run."""
    import os
    import signal
    import sys
    from .errors import BackendUnavailable, ClusterError, KernelError, PtoError, Terminated, WorkerLost

    def _term(signum, frame):
        raise Terminated()
    signal.signal(signal.SIGTERM, _term)     # a stopped run reports what finished, as on Ctrl-C
    try:
        return args.fn(args)
    except BrokenPipeError:                  # `ptogpu ... | head`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141                           # 128 + SIGPIPE, as a shell reports it
    except KeyboardInterrupt as e:
        term = isinstance(e, Terminated)
        print(f"ptogpu {args.cmd}: {'terminated' if term else 'interrupted'}", file=sys.stderr)
        return 143 if term else 130          # 128 + SIGTERM / SIGINT
    except (BackendUnavailable, WorkerLost, ClusterError, KernelError) as e:   # a request this machine cannot run
        if os.environ.get("PTOGPU_TRACEBACK"):
            raise
        print(f"ptogpu {args.cmd}: {e}", file=sys.stderr)
        return 2
    except PtoError as e:
        if os.environ.get("PTOGPU_TRACEBACK"):
            raise
        print(f"ptogpu {args.cmd}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    except (ValueError, TypeError, KeyError, MemoryError, OSError, ImportError) as e:
        if os.environ.get("PTOGPU_TRACEBACK"):
            raise
        what = "out of host memory: " if isinstance(e, MemoryError) else ""
        if isinstance(e, OSError) and e.filename:      # an unwritable --csv/--png, a full disk
            what = f"{e.filename}: "
            e = e.strerror or e
        print(f"ptogpu {args.cmd}: {what}{e}", file=sys.stderr)
        return 2
