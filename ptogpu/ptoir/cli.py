"""``ptogpu trace FILE.py:FN [-o OUT.pto]``: a Python kernel (its file's FUZZ dict gives its
buffers) traced into a PTO IR module, printed or written."""
from __future__ import annotations


def add_parser(sub) -> None:
    t = sub.add_parser("trace", help="a Python kernel as a PTO IR module (its calls, loops unrolled)")
    t.add_argument("kernel", metavar="FILE.py:FN", help="the kernel (its file defines FUZZ, as for ptogpu fuzz --kernel)")
    t.add_argument("-o", "--output", default=None, metavar="OUT.pto", help="write the module here (default: print it)")
    t.set_defaults(fn=main)


def main(args) -> int:
    from .trace import trace
    text = trace(args.kernel)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {args.output}: {len(text.splitlines())} lines")
    else:
        print(text, end="")
    return 0
