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
    kwargs = {"backend": args.backend} if "backend" in mod.run.__code__.co_varnames else {}
    mod.run(**kwargs)
    return 0


def cmd_targets(args) -> int:
    from .targets import TARGETS
    for t in TARGETS.values():
        print(f"{t.name:5s} {t.title}")
        print(f"      UB {t.ub_bytes // 1024} KiB ({t.ub_usable // 1024} KiB for tiles), "
              f"L1 {t.l1_bytes // 1024} KiB")
        m = t.mgather
        print(f"      MGATHER: plain call = {m.default_mode.name}, index cast u{m.index_bits}, "
              f"Row capacity {m.row_capacity}, Row source {m.row_source}")
        for q, v in t.quirks.items():
            print(f"      quirk {q} = {'on' if v else 'off'}")
        for k, v in t.notes.items():
            print(f"      note ({k}): {v}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ptogpu", description="Ascend PTO gather-family emulator")
    sub = p.add_subparsers(dest="cmd")
    d = sub.add_parser("demo", help="run a demonstration (default: main)")
    d.add_argument("name", nargs="?", default="main", help="main | dma | reg | ...")
    d.add_argument("--backend", default="auto", help="auto | numpy | native | cupy")
    d.set_defaults(fn=cmd_demo)
    t = sub.add_parser("targets", help="print the target tables")
    t.set_defaults(fn=cmd_targets)
    args = p.parse_args(argv)
    if not getattr(args, "fn", None):
        p.print_help()
        return 0
    return args.fn(args)
