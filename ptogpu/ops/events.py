"""Pipe synchronisation, so vendor code ports line for line: ``set_flag``, ``wait_flag``,
``pipe_barrier``, the ``PIPE_*`` pipes and ``EVENT_ID*`` events, and the event arguments of
every PTO instruction (trailing wait events in, a ``RecordEvent`` out).

The emulator runs each instruction to completion before the next starts, so every order a
kernel could observe on hardware with correct synchronisation is already the emulated order:
these are documented no-ops. They still check their arguments, so a call that would not
compile in C++ (a pipe where an event belongs) does not pass here either.
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from enum import IntEnum

from .. import dtypes
from ..core import CURRENT, current_core, on_instances
from ..enums import TileType
from ..errors import PtoCheckError


class Pipe(IntEnum):
    """``pipe_t`` with the CANN values."""
    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10


class EventId(IntEnum):
    """``event_t``."""
    EVENT_ID0 = 0
    EVENT_ID1 = 1
    EVENT_ID2 = 2
    EVENT_ID3 = 3
    EVENT_ID4 = 4
    EVENT_ID5 = 5
    EVENT_ID6 = 6
    EVENT_ID7 = 7


Op = IntEnum("Op", [(name, k) for k, name in enumerate("""
    TLOAD TSTORE_VEC SCALAR TRESHAPE VECTOR TADD TADDS TAXPY TSUB TMUL TMULS TDIV
    TDIVS TMIN TMINS TMAX TAND TOR TSEL TSHL TSHR TEXP TSELS TSQRT TRSQRT
    TEXPANDS TEXPANDS_MAT TPARTADD TPARTMUL TPARTMAX TPARTMIN TPOW TPOWS TCMPS
    TMRGSORT TSORT32 TCI TGATHER TGATHERB TCVT TROWSUM TROWPROD TROWMAX TROWMIN
    TROWEXPAND TRANDOM TCOLSUM TCOLPROD TCOLMAX TCOLMIN TTRANS TTRI TREM TFMOD TREMS
    TFMODS TSUBS TMAXS TLRELU TPRELU TMOV_V2V TMOV_V2M TEXTRACT_V2M TMOV_M2B TMOV_M2L
    TMOV_M2R TMOV_M2S TMOV_A2V TMOV_A2M TSTORE_ACC TSTORE_MAT TMATMUL TGEMV
    TEXTRACT_M2LR TANDS TORS TSHLS TSHRS TXOR TXORS TEXTRACT_A2M TINSERT_A2M TIMG2COL
    SETFMATRIX SET_IMG2COL_RPT SET_IMG2COL_PADDING TCONCAT TDEQUANT TADDDEQRELU TABS
    TNEG TRELU TNOT TLOG TRECIP TCMP TSCATTER TCOLEXPAND TCOLEXPANDDIV TCOLEXPANDMUL
    TCOLEXPANDADD TCOLEXPANDMAX TCOLEXPANDMIN TCOLEXPANDSUB TCOLEXPANDEXPDIF
    TROWEXPANDDIV TROWEXPANDMUL TROWEXPANDSUB TROWEXPANDADD TROWEXPANDMAX TROWEXPANDMIN
    TROWEXPANDEXPDIF TPAIRREDUCESUM TSUBRELUCONV TADDRELUCONV TFUSEDMULADD TMULADDDST
    TSUBRELU TFUSEDMULADDRELU TPARTARGMAX TPARTARGMIN TCOLARGMAX TCOLARGMIN TROWARGMAX
    TROWARGMIN TPREFETCH TFILLPAD_VEC TFILLPAD_MAT MGATHER_VEC MGATHER_MAT MSCATTER
    TQUANT THISTOGRAM TINTERLEAVE TDEINTERLEAVE
""".split())])
Op.__doc__ = """``pto::Op`` (include/pto/common/event.hpp), in its order: the operations an ``Event``
names as its source and destination."""


class Event:
    """``Event<SrcOp, DstOp[, AutoToken, EventID]>``: a wait event declared before an
    instruction's ``RecordEvent`` is assigned to it (``e = pto.Event[pto.Op.TLOAD,
    pto.Op.TAND]()``, then ``e = pto.TLOAD(...)``, as the vendor's kernels write it). Passed to
    an instruction it is a wait, a no-op like every wait here."""
    src: Op
    dst: Op

    def __class_getitem__(cls, params) -> type:
        params = params if isinstance(params, tuple) else (params,)
        if not 2 <= len(params) <= 4 or not all(isinstance(p, Op) for p in params[:2]):
            raise PtoCheckError(f"Event[{', '.join(map(repr, params))}]: Event<SrcOp, DstOp[, AutoToken, "
                                "EventID]> takes two pto.Op values first", rule="Event template")
        return _event_class(*params[:2])

    def __repr__(self) -> str:
        return f"Event[Op.{self.src.name}, Op.{self.dst.name}]()"


@functools.lru_cache(maxsize=None)
def _event_class(src: Op, dst: Op) -> type:
    return type(f"Event[Op.{src.name}, Op.{dst.name}]", (Event,), {"src": src, "dst": dst})


WAITS = (Event,)            # (RecordEvent joins below: what a trailing wait argument may be)

_seq = itertools.count(1)


@dataclass(frozen=True)
class RecordEvent:
    """What an instruction returns (C++ ``RecordEvent``): pass it to a later instruction as a
    wait event. ``seq`` numbers instructions in issue order."""
    instruction: str
    seq: int

    def __repr__(self) -> str:
        return f"RecordEvent({self.instruction} #{self.seq})"


def _pipe(p, what: str) -> Pipe:
    if not isinstance(p, Pipe):
        raise PtoCheckError(f"{what}: {p!r} is not a pipe_t (pto.PIPE_S .. pto.PIPE_FIX)",
                            rule=f"{what} arguments")
    return p


def _flag_args(what: str, src, dst, event) -> None:
    _pipe(src, what), _pipe(dst, what)
    if not isinstance(event, EventId):
        raise PtoCheckError(f"{what}: {event!r} is not an event_t (pto.EVENT_ID0 .. 7)",
                            rule=f"{what} arguments")


def set_flag(src: Pipe, dst: Pipe, event: EventId) -> None:
    """``set_flag(src_pipe, dst_pipe, event)``: a no-op (the emulator is synchronous)."""
    _flag_args("set_flag", src, dst, event)


def wait_flag(src: Pipe, dst: Pipe, event: EventId) -> None:
    """``wait_flag(src_pipe, dst_pipe, event)``: a no-op (the emulator is synchronous)."""
    _flag_args("wait_flag", src, dst, event)


def pipe_barrier(pipe: Pipe) -> None:
    """``pipe_barrier(pipe)``: a no-op (the emulator is synchronous)."""
    _pipe(pipe, "pipe_barrier")


def operands(args) -> list:
    """The operands of a call, its trailing wait events (``RecordEvent``, ``Event``) taken off
    (before the operands are judged, so an event never lands in an optional operand)."""
    args = list(args)
    while args and isinstance(args[-1], WAITS):
        args.pop()
    return args


def too_many(name: str, ops: list, most: int) -> None:
    """An instruction given more operands than it takes: the first extra one is no wait event
    (C++ ``WaitEvents&...`` binds Event objects only: the call does not compile)."""
    if len(ops) > most:
        bad = ops[most]
        stack = CURRENT.get()
        raise PtoCheckError(f"{name}: argument {most + 1} ({bad!r}) is neither an operand nor a wait event "
                            "(a RecordEvent an instruction returned, or a pto.Event[SrcOp, DstOp]())",
                            rule=f"{name}(..., WaitEvents&... events)",
                            target=stack[-1].target.name if stack else "")


def _most(fn) -> int:
    """How many positional operands ``fn`` takes."""
    import inspect
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in kinds for p in inspect.signature(fn).parameters.values())


def _least(fn) -> int:
    """How many operands ``fn``'s code requires (its parameters without defaults; 0 for a
    ``*ops`` step)."""
    f = getattr(fn, "__func__", fn)
    code = getattr(f, "__code__", None)
    if code is None:
        return 0
    n = code.co_argcount - len(getattr(f, "__defaults__", None) or ())
    return max(0, n - (1 if hasattr(fn, "__self__") else 0))


def too_few(name: str, ops, least: int) -> None:
    """Fewer operands than every overload takes does not compile: PtoCheckError, not TypeError."""
    if len(ops) < least:
        raise PtoCheckError(f"{name} takes at least {least} operands, got {len(ops)}: no overload matches",
                            rule=f"{name} operands")


def record(name: str) -> RecordEvent:
    """The event an instruction returns, numbered in issue order."""
    return RecordEvent(name, next(_seq))


def place(ops) -> None:
    """Tiles an instruction takes that were never TASSIGNed get their automatic placement now,
    before the instruction runs (``ptogpu.placement``)."""
    for x in ops:
        if getattr(x, "_auto", 0) is None and x.addr is None and x.Loc in (TileType.Vec, TileType.Mat):
            current_core().placer.place(x)


FOUR_BIT_OPS = ("TLOAD", "TSTORE", "TCVT")     # the instructions ptogpu runs on 4-bit tiles


def four_bit(name: str, ops) -> None:
    """A tile of a 4-bit type (int4, float4_*) reaches only the instructions that ptogpu runs on
    such tiles (their vendor code moves or converts them); any other is refused before it runs."""
    if name in FOUR_BIT_OPS:
        return
    for x in ops:
        dt = getattr(x, "DType", None)
        if isinstance(dt, str) and dt in dtypes.FOUR_BIT and hasattr(x, "Loc"):
            stack = CURRENT.get()
            raise PtoCheckError(f"{name} on a {dt} tile: ptogpu emulates 4-bit tiles in {', '.join(FOUR_BIT_OPS)} "
                                "(and TASSIGN) only", rule=f"{name}: 4-bit element types",
                                target=stack[-1].target.name if stack else "")


def instruction(name: str):
    """Give a PTO instruction its C++ event arguments: trailing wait events in
    (:func:`operands`), a new ``RecordEvent`` out."""
    def wrap(fn):
        most, least = _most(fn), _least(fn)
        run = on_instances(fn, name=name)

        @functools.wraps(fn)
        def call(*args, **kw):
            ops = operands(args)
            too_many(name, ops, most)
            too_few(name, ops, least)
            four_bit(name, ops)
            place(ops)
            run(*ops, **kw)
            return record(name)
        return call
    return wrap


WAITS = (Event, RecordEvent)

globals().update({p.name: p for p in Pipe})
globals().update({e.name: e for e in EventId})

__all__ = ["Pipe", "EventId", "RecordEvent", "Op", "Event", "set_flag", "wait_flag", "pipe_barrier", "instruction",
           *(p.name for p in Pipe), *(e.name for e in EventId)]
