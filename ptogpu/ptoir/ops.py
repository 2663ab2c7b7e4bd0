"""The PTO IR instruction ops ptogpu runs, each as the call PTOAS lowers it to
(``lib/PTO/Transforms/PTOToEmitC.cpp``): ``ins(...) outs(...)`` operands into the pto-isa
call's destination-first order, attributes into its template arguments. One entry per op;
an op not here is not emulated (PtoIRError naming it)."""
from __future__ import annotations

from typing import Callable

from ..errors import PtoCheckError, PtoIRError

BINARY = ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "tand", "tor", "txor", "tshl", "tshr")
UNARY = ("tabs", "tneg", "tnot", "tmov")
SCALAR = ("tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins", "tands", "tors", "txors", "tshls", "tshrs")


def word(attr, where: str) -> str:
    """The case of an enum attribute: ``#pto<cmp lt>`` -> ``lt``, ``#pto.mask_pattern<P0101>`` ->
    ``P0101``, a bare word as itself."""
    if isinstance(attr, tuple):
        attr = attr[0]
    s = str(attr)
    if "<" in s and s.endswith(">") and (s.startswith("#") or s.startswith("<")):
        s = s[s.index("<") + 1: s.rindex(">")].split()[-1]
    return s


CMP = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE", "less_than": "LT",
       "less_equal": "LE", "greater_than": "GT", "greater_equal": "GE", "equal": "EQ", "not_equal": "NE"}


def _enum(enum, table: dict | None, attr, what: str, where: str):
    w = word(attr, where)
    key = table.get(w.lower(), w) if table is not None else w
    try:
        return enum[key]
    except KeyError:
        raise PtoIRError(f"{where}: {what} {w!r} is not one of "
                         f"{', '.join(sorted(table or [m.name for m in enum]))}") from None


def _count(op, where: str, ins: tuple, outs: tuple = (1,)) -> None:
    if len(op.ins) not in ins or len(op.outs) not in outs:
        raise PtoIRError(f"{where}: {op.name} takes ins({' or '.join(map(str, ins))} operands) outs("
                         f"{' or '.join(map(str, outs))}), got ins({len(op.ins)}) outs({len(op.outs)})")


def _no_attrs(op, where: str, allowed: tuple = ()) -> None:
    for k, v in op.attrs.items():
        if k not in allowed:
            raise PtoIRError(f"{where}: {op.name} attribute {k!r} is not emulated")


def _plain(name: str, n_in: tuple):
    def run(pto, op, ins, outs, where):
        _count(op, where, n_in)
        _no_attrs(op, where)
        getattr(pto, name.upper())(*outs, *ins)
    return run


def _tload(pto, op, ins, outs, where):
    _count(op, where, (1,))
    _no_attrs(op, where, ("pad_mode",) if word(op.attrs.get("pad_mode", "PadNull"), where) == "PadNull" else ())
    pto.TLOAD(outs[0], ins[0])


def _tstore(pto, op, ins, outs, where):
    _count(op, where, (1,))
    for k, ok in (("atomicType", "atomic_none"), ("reluPreMode", "no_relu"), ("stPhase", "unspecified")):
        if k in op.attrs and word(op.attrs[k], where) != ok:
            raise PtoIRError(f"{where}: pto.tstore {k} = {word(op.attrs[k], where)} is not emulated")
    _no_attrs(op, where, ("atomicType", "reluPreMode", "stPhase"))
    pto.TSTORE(outs[0], ins[0])


def _mgather(pto, op, ins, outs, where):
    _count(op, where, (2,))
    _no_attrs(op, where, ("gatherOob",))
    oob = word(op.attrs.get("gatherOob", "undefined"), where)
    if oob.lower() != "undefined":
        # PTOAS emits MGATHER<pto::GatherOOB::X>(dst, mem, idx); pto_instr.hpp's MGATHER
        # templates all take Coalesce first (2149-2193): the C++ does not compile
        raise PtoCheckError(f"pto.mgather {{gatherOob = {oob}}} lowers to MGATHER<GatherOOB::{oob.capitalize()}>(dst, "
                            "mem, idx), which no MGATHER template takes (each takes Coalesce CMode first)",
                            rule="MGATHER template")
    pto.MGATHER(outs[0], ins[0], ins[1])


def _mscatter(pto, op, ins, outs, where):
    _count(op, where, (2,))
    _no_attrs(op, where, ("scatterAtomicOp", "scatterOob"))
    atomic = word(op.attrs.get("scatterAtomicOp", "none"), where)
    oob = word(op.attrs.get("scatterOob", "undefined"), where)
    if atomic.lower() != "none" or oob.lower() != "undefined":
        raise PtoCheckError(f"pto.mscatter {{scatterAtomicOp = {atomic}, scatterOob = {oob}}} lowers to "
                            "MSCATTER<ScatterAtomicOp[, ScatterOOB]>(mem, src, idx), which no MSCATTER template "
                            "takes (each takes Coalesce Mode first)", rule="MSCATTER template")
    pto.MSCATTER(outs[0], ins[0], ins[1])


def _tgather(pto, op, ins, outs, where):
    _no_attrs(op, where, ("maskPattern", "cmpMode", "offset"))
    if "maskPattern" in op.attrs:
        _count(op, where, (1,))
        pto.TGATHER[_enum(pto.MaskPattern, None, op.attrs["maskPattern"], "maskPattern", where)](outs[0], ins[0])
    elif len(outs) == 2:
        _count(op, where, (3,), (2,))
        mode = _enum(pto.CmpMode, CMP, op.attrs.get("cmpMode", "eq"), "cmpMode", where)
        off = op.attrs.get("offset", 0)
        pto.TGATHER[mode](outs[0], ins[0], ins[1], outs[1], ins[2], int(off[0] if isinstance(off, tuple) else off))
    else:
        _count(op, where, (3,))
        pto.TGATHER(outs[0], *ins)


def _tcmp(pto, op, ins, outs, where):
    _count(op, where, (2,))
    _no_attrs(op, where, ("cmpMode",))
    mode = _enum(pto.CmpMode, CMP, op.attrs.get("cmpMode", "eq"), "cmpMode", where)
    getattr(pto, op.name[4:].upper())(outs[0], ins[0], ins[1], mode)


def _tcvt(pto, op, ins, outs, where):
    if len(op.ins) == 2:
        raise PtoIRError(f"{where}: pto.tcvt with a tmp operand (TCVT(dst, src, tmp, mode)) is not emulated")
    _count(op, where, (1,))
    _no_attrs(op, where, ("rmode", "sat_mode"))
    rm = word(op.attrs.get("rmode", "CAST_RINT"), where).upper()
    mode = _enum(pto.RoundMode, None, rm if rm.startswith("CAST_") else "CAST_" + rm, "rmode", where)
    if "sat_mode" in op.attrs:
        pto.TCVT(outs[0], ins[0], mode, _enum(pto.SaturationMode, None, op.attrs["sat_mode"], "sat_mode", where))
    else:
        pto.TCVT(outs[0], ins[0], mode)


def _tci(pto, op, ins, outs, where):
    """``pto.tci ins(%start : T) outs(%dst) {descending}``: ``TCI[DstTile, T, descending](dst, start)``
    (T is the start operand's type)."""
    from .. import dtypes
    from .types import element
    _count(op, where, (1,))
    _no_attrs(op, where, ("descending",))
    if not op.types:
        raise PtoIRError(f"{where}: pto.tci ins(%start : T): give the start operand's type")
    desc = op.attrs.get("descending", False)
    pto.TCI[type(outs[0]), dtypes.as_dtype(element(op.types[0], where)), bool(desc)](outs[0], ins[0])


def _tsort32(pto, op, ins, outs, where):
    _count(op, where, (2, 3))
    _no_attrs(op, where)
    pto.TSORT32(outs[0], *ins)


def _tmrgsort(pto, op, ins, outs, where):
    _no_attrs(op, where)
    if len(ins) != 2 or len(outs) != 1:
        raise PtoIRError(f"{where}: pto.tmrgsort: only the single-list form ins(src, blockLen) outs(dst) is emulated "
                         "from PTO IR")
    pto.TMRGSORT(outs[0], ins[0], int(ins[1]))


TABLE: dict[str, Callable] = {
    "pto.tload": _tload, "pto.tstore": _tstore, "pto.mgather": _mgather, "pto.mscatter": _mscatter,
    "pto.tgather": _tgather, "pto.tgatherb": _plain("tgatherb", (2,)), "pto.tscatter": _plain("tscatter", (2,)),
    "pto.tcmp": _tcmp, "pto.tcmps": _tcmp, "pto.tsel": _plain("tsel", (4,)), "pto.tsels": _plain("tsels", (4,)),
    "pto.tcvt": _tcvt, "pto.tci": _tci, "pto.texpands": _plain("texpands", (1,)),
    "pto.tsort32": _tsort32, "pto.tmrgsort": _tmrgsort,
    **{f"pto.{n}": _plain(n, (2,)) for n in BINARY},
    **{f"pto.{n}": _plain(n, (1,)) for n in UNARY},
    **{f"pto.{n}": _plain(n, (2,)) for n in SCALAR},
    # TXOR / TXORS take a tmp tile (PTOOps.td: ins(src0, src1, tmp), ins(src, scalar, tmp))
    "pto.txor": _plain("txor", (2, 3)), "pto.txors": _plain("txors", (2, 3)),
}

STRUCTURE = ("func.func", "return", "func.return", "arith.constant", "pto.make_tensor_view", "pto.partition_view",
             "pto.alloc_tile", "pto.tassign", "scf.for", "scf.yield", "scf.if", "func.call", "pto.get_block_idx", "pto.get_block_num",
             "pto.get_subblock_idx", "pto.get_subblock_num", "arith.cmpi", "arith.select", "pto.addptr", "pto.record_event", "pto.wait_event",
             "pto.set_flag", "pto.wait_flag", "pto.barrier",
             *(f"arith.{n}" for n in ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori",
                                      "xori", "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui",
                                      "floordivsi", "ceildivsi", "index_cast", "index_castui", "extsi", "extui",
                                      "trunci")))


class Checking:
    """What the check walk hands an op's entry in place of ``ptogpu``: the enums as they are,
    every instruction a call that does nothing (so counts, attributes and enum cases are read
    before anything runs)."""

    def __getattr__(self, name: str):
        import ptogpu
        got = getattr(ptogpu, name)
        return _Nothing() if name.isupper() else got


class _Nothing:
    def __getitem__(self, _):
        return self

    def __call__(self, *a, **k):
        return None


def emulated() -> set[str]:
    """Every op name ptogpu reads from PTO IR."""
    return set(TABLE) | set(STRUCTURE)
