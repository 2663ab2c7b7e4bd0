"""The element-wise family: tile-tile TADD TSUB TMUL TDIV TMAX TMIN TAND TOR TXOR TSHL TSHR, unary
TNOT TNEG TABS, tile-scalar TADDS TSUBS TMULS TDIVS TMAXS TMINS TANDS TORS TXORS TSHLS TSHRS and the
generators TEXPANDS and TCI (docs/elementwise.md; the vendor's include/pto/cpu/ElementOp.h and
include/pto/npu/{a2a3,a5}/T*.hpp). One package, one declaration per call: they share their
modules -- ``rules`` (the per-target table, ``target.elementwise``), ``semantics_values`` (what each call
computes, per target model), ``semantics`` (where it reads and writes), ``api`` (the calls and
their checks)."""
from ..declare import Declined, Form, Instruction, Rule

E = "elementwise."
RULES = (
    Rule(E + "ftz", "denormal flush", "docs/elementwise.md: the NPUs flush float denormals to zero"),
    Rule(E + "minmax", "max/min NaN and tie rule", "docs/elementwise.md: std::max/min vs vmax vs the ISA pseudo-code"),
    Rule(E + "minmax_scalar", "scalar max/min NaN and tie rule",
         "docs/elementwise.md: TMAXS/TMINS: std::max/min vs the ISA pseudo-code"),
    Rule(E + "shift", "shift count rule", "docs/elementwise.md: C's promoted shift vs the vector shift's width"),
    Rule(E + "shift_scalar", "scalar shift count rule",
         "docs/elementwise.md: TSHLS/TSHRS: C's promoted shift vs the vector shift's width"),
    Rule(E + "neg", "sign rule", "docs/elementwise.md: -x and x < 0 ? -x : x vs vmuls(x, -1) and vabs",
         with_=(E + "abs",)),
    Rule(E + "subs_float", "A2/A3 scalar-form code",
         "docs/elementwise.md: TSUBS through float, in-place TDIVS and TANDS/TORS/TXORS",
         with_=(E + "divs_inplace", E + "bitwise_s_inplace")),
    Rule(E + "pad_byte", "A2/A3 writes past the valid region",
         "docs/elementwise.md: the u16 view's pad byte, TXOR's tmp, flat TEXPANDS",
         with_=(E + "xor_tmp", E + "expands_flat", E + "expands_b8_extra")),
)
_FILLS = ("TEXPANDS", "TCI")
_FIELDS = {
    "ftz": ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TNEG", "TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS",
            "TMINS"),
    "minmax": ("TMAX", "TMIN"), "minmax_scalar": ("TMAXS", "TMINS"), "shift": ("TSHL", "TSHR"),
    "shift_scalar": ("TSHLS", "TSHRS"),
    "neg": ("TNEG", "TABS"), "subs_float": ("TSUBS", "TDIVS", "TANDS", "TORS", "TXORS"),
    "pad_byte": ("TAND", "TOR", "TXOR", "TNOT", "TEXPANDS", "TXORS"),
}

_FORMS = {
    **{c: "(dst, src0, src1)" for c in ("TADD", "TSUB", "TMUL", "TDIV", "TMAX", "TMIN", "TAND", "TOR", "TSHL", "TSHR")},
    "TXOR": "(dst, src0, src1, tmp)",
    **{c: "(dst, src)" for c in ("TNOT", "TNEG", "TABS")},
    **{c: "(dst, src, scalar)" for c in ("TADDS", "TSUBS", "TMULS", "TDIVS", "TMAXS", "TMINS", "TANDS", "TORS",
                                        "TSHLS", "TSHRS")},
    "TXORS": "(dst, src, scalar, tmp)", "TEXPANDS": "(dst, scalar)",
    "TCI": "[TileData, T, descending](dst, start) / [TileData, Tmp, T, descending](dst, start, tmp)",
}


def _declare(call: str) -> Instruction:
    return Instruction(
        name=call.lower(), calls=(call,), doc="docs/elementwise.md", spec=f"include/pto/*/{call.title()}.hpp",
        forms=(Form(f"{call}{_FORMS[call]}", "element by element over dst's valid region"),),
        tables="ptogpu.isa.elementwise.rules:TABLES", table="elementwise",
        rules=RULES if call == "TADD" else (),
        rule_fields={"ub": tuple(E + f for f, calls in _FIELDS.items() if call in calls) or (E + "ftz",)},
        hooks={"api": "ptogpu.isa.elementwise.api",
               "fuzz": f"ptogpu.isa.elementwise.config:{call}", "repro": "ptogpu.isa.elementwise.repro:lines",
               **({} if call in _FILLS else {"campaign": "ptogpu.isa.elementwise.campaign"}),
               **({"native": "elementwise.cu", "cupy": "elementwise.cu"} if call not in _FILLS else
                  {r: Declined("a fill: the NumPy semantics on every backend") for r in ("native", "cupy")}),
               "simt": Declined("a vector instruction on every target: no SIMT lanes")},
        coverage="" if call in _FILLS else f"{call} (integers, float32)")


ELEMENTWISE: tuple[Instruction, ...] = tuple(_declare(c) for c in _FORMS)
