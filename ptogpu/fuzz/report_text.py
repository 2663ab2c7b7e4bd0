"""A campaign report as text (what ``ptogpu fuzz`` prints) and its reproducers as script files."""
from __future__ import annotations

from .report import Report


def format_report(title: str, rep: Report, verbose: bool = True, repro: dict | None = None) -> str:
    """A campaign's report as text: each class with its rule lines and, with ``verbose``, its
    minimal reproducer inline; else the path of its reproducer file (``repro``: class -> path)."""
    j = rep.to_json()
    repro = repro or {}
    if rep.check_error:
        return "\n".join([f"== {title}", f"   {j['config']}: {j['a']} vs {j['b']}: compared nothing "
                          f"(0 of {j['n']:,} {rep.UNIT})",
                          f"   a static check rejects one side: {rep.check_error}"])
    u = rep.UNIT
    out = [f"== {title}", f"   {j['config']}: {j['a']} vs {j['b']}, {j['n']:,} {u} in {j['seconds']:.2f}s "
           f"({j['tiles_per_s']:,.0f} {u}/s, {j['engine']}); seed {j['seed']}, generator {j['generator']}"
           + (f", instances from {j['start']:,}" if j['start'] else "")]
    if j["executed"]:
        said = lambda k, side: ("numpy (array formulas, no lanes or loops)"      # noqa: E731
                                if j["executed"].get(k) == "formula" and str(side).endswith("@numpy")
                                else j["executed"].get(k, "-"))
        out.append(f"   executed: {rep.a} {said('a', rep.a)}, {rep.b} {said('b', rep.b)}"
                   + ("  (formula screening: per-element results, no lanes or loops ran; "
                      "--engine execute runs them)" if rep.engine.startswith("fused") else ""))
    if j.get("executed_calls"):
        out.append("   calls: " + "; ".join(
            f"{j[k]} " + ", ".join(f"{name} {how}" for name, how in sorted(calls.items()))
            for k, calls in sorted(j["executed_calls"].items()) if calls))
    out.append(references_line(rep, j))
    out.append(f"   faults: {j['a']} {j['faults_a']:,}, {j['b']} {j['faults_b']:,}; "
               f"divergent {u}: {j['divergent']:,}")
    if not j["classes"]:
        out.append("   no divergence")
    for c in j["classes"]:
        tag = "explained" if c["explained"] else ("EMULATOR BUG" if c["emulator_bug"] else "UNEXPLAINED")
        shp = f", shape {c['shape'][0]}x{c['shape'][1]}" if c.get("shape") else ""
        out.append(f"   [{tag}] {c['class']}: {c['count']:,} {u} (first: {', '.join(map(str, c['first']))}{shp})")
        for r in c["rules"]:
            out.append(f"      rule: {r}")
        if c["shrunk"]:
            s = c["shrunk"]
            what = s.get("what") or f"{s['rows']}x{s['cols']}, {s['nontrivial']} non-trivial index value(s)"
            if s.get("no_reproducer"):
                out.append(f"      no stand-alone reproducer ({what}): {s['no_reproducer']}")
            if c["class"] in repro:
                out.append(f"      minimal reproducer ({what}): {repro[c['class']]}")
            if verbose and c["reproducer"]:
                out.append(f"      minimal reproducer ({what}):")
                out += ["        " + ln for ln in c["reproducer"].rstrip().splitlines()]
    return "\n".join(out)


def write_reproducers(directory: str, title: str, rep) -> dict:
    """Each shrunk class's reproducer as a script in ``directory``: class name -> path. A
    PTO IR kernel's also gets its module beside the script (``.pto``: what PTOAS takes; the
    script embeds the same text and the shrunk inputs)."""
    import os
    import re
    slug = lambda t: re.sub(r"[^A-Za-z0-9.]+", "-", t).strip("-")[:80] or "campaign"   # noqa: E731
    out = {}
    for c in rep.to_json()["classes"]:
        if not (c["shrunk"] and c["reproducer"]):
            continue
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, f"{slug(title)}--{slug(c['class'])}.py")
        with open(path, "w") as f:
            f.write(f"# ptogpu fuzz: {title}\n# class {c['class']} ({c['count']:,} {rep.UNIT}, "
                    f"first instance {c['first'][0] if c['first'] else '-'})\n")
            f.write(c["reproducer"])
        fn = getattr(rep.config, "fn", None)
        if getattr(fn, "is_pto_ir", False):
            with open(path[:-3] + ".pto", "w") as f:
                f.write(f"// ptogpu fuzz: {title}\n// class {c['class']}: function @{fn.func.name}; its shrunk "
                        f"inputs and both sides' run: {os.path.basename(path)}\n")
                f.write(fn.text)
        out[c["class"]] = path
    return out


def references_line(rep, j: dict) -> str:
    """Verdicts 1 and 2 in one line: each side's tiles off its own reference, and what that
    reference is."""
    parts, what = [], []
    for k, side in (("a", rep.a), ("b", rep.b)):
        r = j["references"][k]
        if r["reference"].startswith("none"):
            parts.append(f"{side} is its own reference")
        else:
            some = r.get("checked", j["n"]) < j["n"]
            parts.append(f"{side} {r['mismatched']:,} tile(s) off" +
                         (f" of {r['checked']:,} checked" if some else ""))
            what.append(r["reference"].split(" (")[0])
    return ("   references: " + ", ".join(parts) +
            (f" (against the {' and the '.join(dict.fromkeys(what))})" if what else ""))
