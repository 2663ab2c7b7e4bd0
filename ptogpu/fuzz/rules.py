"""The rules a divergence can be explained by, and the verdict bits of a class.

A *rule field* is one field of the target tables (``ptogpu.targets``): ``mgather.index_bits``,
``tgatherb.engine``, ... (or, for MSCATTER, the side's conflict resolution). A difference
between two sides is explained by a field only when swapping that field between the two
targets makes their references agree on that tile (``ptogpu.fuzz.explain``): the rule is shown
to predict the difference, never matched by where the bytes differ.

A class mask is an int: the bits of the fields that explain it, the FAULT symptom (one side
faults, the other does not), and the verdict bits: REF_A / REF_B (a side's execution
disagrees with its own reference: an emulator bug), WINDOW (that disagreement includes bytes
outside the destination), UNEXPLAINED (no field nor pair of fields removes the difference),
BACKEND / EXECUTOR (two sides that must agree do not), RACE (MSCATTER: threads of an A5
source-centric launch store to one element)."""
from __future__ import annotations

from dataclasses import dataclass

from .. import isa
from ..targets import field_value


@dataclass(frozen=True)
class Field:
    bit: int
    path: str               # targets.field_value path, or "conflict" (an MSCATTER side's own)
    name: str               # the class name
    doc: str                # where the rule is written down
    coarse: bool = False    # a whole routine or engine: tried only when no narrow field explains
    with_: tuple = ()       # fields that go with it (what its routine's checks read)

    @property
    def copies(self) -> tuple[str, ...]:
        """The field paths a hybrid target takes from the other target for this rule."""
        return ((self.path,) if self.path != "conflict" else ()) + self.with_


FIELDS = (
    Field(1 << 0, "mgather.index_bits", "index cast width", "docs/mgather.md: static_cast<size_t> vs <uint32_t>"),
    Field(1 << 1, "mgather.row_capacity", "capacity rule", "docs/mgather.md: Row capacity Shape[3] vs ∏Shape[0..3]"),
    Field(1 << 2, "mgather.row_source", "row source address rule", "docs/mgather.md: Row source address"),
    Field(1 << 3, "mgather.row_tail_fill", "A2/A3 Row DMA tail fill",
          "docs/mgather.md: the burst fills VC .. the 32-byte boundary with the row's first element"),
    Field(1 << 4, "mgather.tile_offsets", "tile offset rule",
          "docs/mgather.md: A5's tile_offset_2d ignores SLayout (boxed tiles as plain Row/ColMajor)"),
    Field(1 << 5, "mgather.checks", "GM->L1 routine",
          "docs/mgather.md: the simulator's generic loop vs the NPU nd2nz bursts / scratch image", True,
          ("mgather.dtypes", "mgather.index_dtypes", "mgather.value_convert")),
    Field(1 << 6, "dma.nd2nz_tail", "nd2nz tail fill", "docs/mgather.md: a row's last C0 block past VC"),
    Field(1 << 7, "tgatherb.engine", "TGATHERB engine",
          "docs/instructions.md: CPU skips partial / out-of-src blocks; A2/A3 vgatherb repeat stream "
          "(tail rows read offsets 8 apart, 8-block spill); A5 register loop", True),
    Field(1 << 8, "tgatherb.offset_read", "TGATHERB offset read", "docs/instructions.md: value vs bits, row stride"),
    Field(1 << 9, "tgatherb.misaligned", "TGATHERB offset alignment",
          "docs/instructions.md: byte-exact (cpu) vs rounded down to the block (NPU)"),
    Field(1 << 10, "interleave.odd_vc", "TINTERLEAVE odd VC", "docs/instructions.md: odd valid widths"),
    Field(1 << 11, "interleave.single_src_count", "TINTERLEAVE element count", "docs/instructions.md"),
    Field(1 << 12, "interleave.engine", "TINTERLEAVE engine",
          "docs/instructions.md: the simulator's scalar loop vs A5's register loop", True),
    Field(1 << 13, "quirks", "target quirks", "ptogpu targets: implementation quirks and their defaults", True),
    Field(1 << 14, "mscatter.index_bits", "index cast width", "docs/mscatter.md: size_t vs uint32_t"),
    Field(1 << 15, "mscatter.row_capacity", "capacity rule", "docs/mscatter.md: Shape[3] vs ∏Shape[0..3]"),
    Field(1 << 16, "mscatter.row_dst", "row destination address rule", "docs/mscatter.md"),
    Field(1 << 17, "conflict", "conflict resolution",
          "docs/mscatter.md: sequential last writer (cpu, A2/A3), A5 Conflict::Last's slot-centric scan "
          "(out-of-range Undefined dropped), A5 Default's source-centric launch (emulated schedule)", False,
          ("mscatter.simt", "mscatter.scalar_1x1", "mscatter.default_conflict")),
)


MASK_BITS = 63
"""The campaign engines' class masks are int64 (their C class tables, arrays of them): bits
0..62. A rule field takes a bit that no built-in field and no verdict bit below takes."""
WIDE = 64
"""The first bit of the rule fields of instructions that only kernel campaigns explain (their
``fuzz`` hook declined: TLOAD/TSTORE). A kernel campaign's masks are Python ints
(``fuzz.user_kernel``), and no engine's int64 class table ever holds those bits."""


def _declared(taken: int) -> tuple[Field, ...]:
    """The rule fields instruction packages declare (``Instruction.rules``), each given the
    lowest free bit: an instruction's rules live in its package. Those of an instruction with
    campaigns of its own take int64 bits (ImportError when they outgrow them: per-instruction
    bit spaces are the way on from there); those only kernel campaigns explain, bits from
    :data:`WIDE` on."""
    out, bit, wide = [], 0, WIDE
    for i in isa.INSTRUCTIONS:
        for r in i.rules:
            if not i.fills("fuzz"):
                out.append(Field(1 << wide, r.path, r.name, r.doc, r.coarse, r.with_))
                wide += 1
                continue
            while taken & (1 << bit):
                bit += 1
            if bit >= MASK_BITS:
                raise ImportError(f"rule field {r.path}: the int64 class mask has no free bit left")
            out.append(Field(1 << bit, r.path, r.name, r.doc, r.coarse, r.with_))
            bit += 1
    return tuple(out)


_VERDICT_BITS = (1 << 20) | (1 << 21) | (0x3F << 24)     # FAULT, RACE, REF_A .. EXECUTOR (below)
FIELDS = FIELDS + _declared(sum(f.bit for f in FIELDS) | _VERDICT_BITS)
BY_PATH = {f.path: f for f in FIELDS}
FIELD_BITS = sum(f.bit for f in FIELDS)

FAULT = 1 << 20            # symptom: one side faults and the other does not (or another phase)
RACE = 1 << 21             # MSCATTER: two threads of a source-centric launch store to one element
REF_A = 1 << 24            # side A disagrees with its own reference: an emulator bug
REF_B = 1 << 25
WINDOW = 1 << 26           # ... in bytes outside its destination (a stray write)
UNEXPLAINED = 1 << 27
BACKEND = 1 << 28          # same configuration on two backends: an emulator bug
EXECUTOR = 1 << 29         # two executors of one target: an emulator bug
BUGS = REF_A | REF_B | WINDOW | BACKEND | EXECUTOR

_FLAGS = {FAULT: "fault vs value", RACE: "race", REF_A: "side A disagrees with its reference",
          REF_B: "side B disagrees with its reference", WINDOW: "a write outside the destination",
          UNEXPLAINED: "unexplained", BACKEND: "backend disagreement", EXECUTOR: "executor disagreement"}

def candidates(instr: str, space: str = "ub") -> tuple[Field, ...]:
    """The rule fields that can explain a difference of ``instr`` writing ``space`` (its first
    space when it writes no other): its declaration's ``rule_fields`` (``ptogpu.isa``)."""
    rf = isa.by_name(instr).rule_fields
    return tuple(BY_PATH[p] for p in rf.get(space, next(iter(rf.values()), ())))


def differing(instr: str, space: str, ta: str, tb: str) -> tuple[Field, ...]:
    """The candidate fields whose values differ between targets ``ta`` and ``tb``."""
    return tuple(f for f in candidates(instr, space) if f.path != "conflict"
                 and field_value(ta, f.path) != field_value(tb, f.path))


def fields_of(mask: int) -> list[Field]:
    return [f for f in FIELDS if mask & f.bit]


def names(mask: int) -> list[str]:
    """The class's parts by name (the JSON's ``facts``): its fields' names, then its flags."""
    return [f"{f.name} ({f.path})" for f in fields_of(mask)] + [v for k, v in _FLAGS.items() if mask & k]


def class_name(mask: int) -> str:
    fs = " + ".join(f.name for f in fields_of(mask))
    if mask & (REF_A | REF_B):
        both = mask & REF_A and mask & REF_B
        who = "sides A and B vs their references" if both else f"side {'A' if mask & REF_A else 'B'} vs its reference"
        return who + (" (a write outside the destination)" if mask & WINDOW else "")
    if mask & (BACKEND | EXECUTOR):
        return "backend disagreement" if mask & BACKEND else "executor disagreement"
    if mask & UNEXPLAINED:
        fs = "unexplained"
    if mask & RACE:
        fs = " + ".join(x for x in ("race", fs) if x)
    return fs + (" (fault vs value)" if mask & FAULT else "") if fs else "none"


def explained(mask: int) -> bool:
    return not mask & (UNEXPLAINED | BUGS)


def is_bug(mask: int) -> bool:
    return bool(mask & BUGS)


def _value(target: str, f: Field, side=None) -> str:
    if f.path == "conflict":
        return str(side) if side is not None else "?"
    v = field_value(target, f.path)
    if isinstance(v, dict):             # quirk switches by name, or a table such as TCVT's pair list
        on = sorted("->".join(k) if isinstance(k, tuple) else str(k) for k, x in v.items() if x)
        return "{" + ", ".join(on) + "}" if len(on) <= 8 else f"{{{len(on)} entries}}"
    return str(v)


def describe(mask: int, a, b, conflicts: tuple | None = None) -> list[str]:
    """One sentence per rule (its field, both targets' values, where it is written down), or
    the verdict that no rule explains the class. ``a``/``b``: the sides' configurations (with
    ``.target``); ``conflicts``: the MSCATTER sides' conflict resolutions."""
    ca, cb = conflicts or (None, None)
    out = [f"{f.name} ({f.path}): {a.target} {_value(a.target, f, ca)} vs {b.target} "
           f"{_value(b.target, f, cb)}; swapping it makes the two references agree ({f.doc})"
           for f in fields_of(mask)]
    if mask & RACE:
        out.append("race: threads of A5's source-centric launch store to one element; any of them may win "
                   "(the reproducer prints every value the hardware may leave)")
    if mask & FAULT and not mask & BUGS:
        out.append("fault vs value: one side's address leaves its arena (PtoFault), the other's does not "
                   "(or they fault in different phases)")
    if mask & (REF_A | REF_B):
        out.append("a side's execution (its kernel: lanes or loop) disagrees with that target's reference "
                   "(the rules computed independently of the kernel): an emulator bug"
                   + (", including bytes outside the destination" if mask & WINDOW else ""))
    if mask & BACKEND:
        out.append("the same configuration gives different results on two backends: an emulator bug")
    if mask & EXECUTOR:
        out.append("two executors of the same target semantics disagree: an emulator bug")
    if mask & UNEXPLAINED:
        out.append("no rule field of the target tables, alone or with one other, makes the references agree")
    return out


def mask_of_names(parts: list[str]) -> int:
    """The inverse of :func:`names` (reading a report back)."""
    by = {f"{f.name} ({f.path})": f.bit for f in FIELDS} | {v: k for k, v in _FLAGS.items()}
    m = 0
    for p in parts:
        if p not in by:
            raise ValueError(f"unknown class part {p!r}")
        m |= by[p]
    return m
