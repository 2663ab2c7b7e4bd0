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

from ..core import on_instances
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
    """The operands of a call, its trailing ``RecordEvent`` wait events taken off (before the
    operands are judged, so an event never lands in an optional operand)."""
    args = list(args)
    while args and isinstance(args[-1], RecordEvent):
        args.pop()
    return args


def record(name: str) -> RecordEvent:
    """The event an instruction returns, numbered in issue order."""
    return RecordEvent(name, next(_seq))


def instruction(name: str):
    """Give a PTO instruction its C++ event arguments: trailing wait events in
    (:func:`operands`), a new ``RecordEvent`` out."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kw):
            step = on_instances(fn, name=name)
            step(*operands(args), **kw)
            return record(name)
        return call
    return wrap


globals().update({p.name: p for p in Pipe})
globals().update({e.name: e for e in EventId})

__all__ = ["Pipe", "EventId", "RecordEvent", "set_flag", "wait_flag", "pipe_barrier", "instruction",
           *(p.name for p in Pipe), *(e.name for e in EventId)]
