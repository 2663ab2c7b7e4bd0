"""Rules that explain cross-target divergences, drawn from the target tables
(``ptogpu.targets``): each fact a divergent element can carry, and the sentence that names
the table fields behind it. A fact is only set when the two sides' fields actually differ,
so a divergence no fact covers is reported as unexplained."""
from __future__ import annotations

from ..targets import get_target

CAST, CAP, ROWSRC, PAD, FAULT, UNDEF, TGB_TAIL, TGB_CPU, ODD, ALIGN, LAYOUT = (1 << k for k in range(11))
UNEXPLAINED = 1 << 15
BACKEND = 1 << 16          # same configuration on two backends: an emulator bug
EXECUTOR = 1 << 17         # same semantics on two executors of one target: an emulator bug

NAMES = {CAST: "index cast width", CAP: "capacity rule", ROWSRC: "row source address rule",
         PAD: "padding / zero-fill outside the valid region", FAULT: "fault vs value",
         UNDEF: "Undefined OOB reads GM beyond the table", TGB_TAIL: "A2/A3 TGATHERB tail",
         TGB_CPU: "CPU TGATHERB skipped blocks", ODD: "TINTERLEAVE odd VC", ALIGN: "offset alignment",
         LAYOUT: "tile offset rule",
         UNEXPLAINED: "unexplained", BACKEND: "backend disagreement (emulator bug)",
         EXECUTOR: "executor disagreement (emulator bug)"}


def _cast_name(bits: int) -> str:
    return "static_cast<size_t> (sign-extends)" if bits == 64 else "static_cast<uint32_t>"


def explain(fact: int, a, b) -> str:
    """The sentence for one fact bit between configurations ``a`` and ``b``."""
    ta, tb = get_target(a.target), get_target(b.target)
    ma, mb = ta.mgather, tb.mgather
    if fact == CAST:
        return (f"index cast width (targets.mgather.index_bits): {a.target} {_cast_name(ma.index_bits)} "
                f"vs {b.target} {_cast_name(mb.index_bits)}; negative indices land elsewhere (docs/mgather.md)")
    if fact == CAP:
        if a.space == "l1" or b.space == "l1":
            return (f"capacity rule (GM->L1 Row): {a.target} {'Shape[3]' if a.target == 'cpu' else '∏Shape[0..3]'} vs "
                    f"{b.target} {'Shape[3]' if b.target == 'cpu' else '∏Shape[0..3]'} (docs/mgather.md)")
        return (f"capacity rule (targets.mgather.row_capacity): {a.target} {ma.row_capacity} vs "
                f"{b.target} {mb.row_capacity} (docs/mgather.md)")
    if fact == ROWSRC:
        return (f"row source address (targets.mgather.row_source): {a.target} {ma.row_source} vs "
                f"{b.target} {mb.row_source} (docs/mgather.md)")
    if fact == PAD:
        return (f"bytes outside the valid region (targets.mgather.row_tail_fill {ma.row_tail_fill}/{mb.row_tail_fill}, "
                f"GM->L1 zero-fill, TGATHERB/TINTERLEAVE stores past VC) differ between {a.target} and {b.target}")
    if fact == FAULT:
        return ("fault vs value: an address one side computes leaves its arena (PtoFault), the other's "
                "does not (or they fault in different phases)")
    if fact == UNDEF:
        return "GatherOOB::Undefined reads whatever GM holds at the computed address (docs/mgather.md)"
    if fact == TGB_TAIL:
        q = {**a.core_quirks, **b.core_quirks}.get("a2a3_tgatherb_tail_stream", True)
        return (f"A2/A3 TGATHERB tail (targets.tgatherb.engine vrepeat, quirk a2a3_tgatherb_tail_stream="
                f"{q}): tail rows read offsets 8 apart and write 8 full blocks (docs/instructions.md)")
    if fact == TGB_CPU:
        return ("CPU TGATHERB (targets.tgatherb.engine cpu) skips partial last blocks and blocks past "
                "the src tile (docs/instructions.md)")
    if fact == ODD:
        return (f"TINTERLEAVE odd VC (targets.interleave.odd_vc): {a.target} {ta.interleave.odd_vc} vs "
                f"{b.target} {tb.interleave.odd_vc} (docs/instructions.md)")
    if fact == LAYOUT:
        return (f"tile offsets (targets.mgather.tile_offsets): {a.target} {ma.tile_offsets} vs {b.target} "
                f"{mb.tile_offsets}: A5's tile_offset_2d ignores SLayout, so a boxed ({a.layout}) tile is "
                f"addressed as plain Row/ColMajor (docs/mgather.md)")
    if fact == ALIGN:
        return "misaligned TGATHERB offsets: byte-exact (cpu) vs rounded down to the block (NPU)"
    if fact == BACKEND:
        return "the same configuration gives different results on two backends: an emulator bug"
    if fact == EXECUTOR:
        return "two executors of the same target semantics disagree: an emulator bug"
    return "no rule of the target tables explains this difference"


def describe(mask: int, a, b) -> list[str]:
    return [explain(f, a, b) for f in sorted(NAMES) if mask & f]


def fact_names(mask: int) -> list[str]:
    """The facts of a class, by name (the JSON's ``facts``)."""
    return [NAMES[f] for f in sorted(NAMES) if mask & f]


def explained(mask: int) -> bool:
    return not mask & (UNEXPLAINED | BACKEND | EXECUTOR)


def class_name(mask: int) -> str:
    return " + ".join(NAMES[f] for f in sorted(NAMES) if mask & f) or "none"
