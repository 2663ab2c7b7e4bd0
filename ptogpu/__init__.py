"""ptogpu: Huawei Ascend PTO tile instructions, emulated byte for byte per target."""
from __future__ import annotations

from .core import Core, current_core
from .dtypes import (bfloat16, float4_e1m2x2, float4_e2m1x2, float8_e4m3, float8_e5m2, float32, half, hifloat8,
                     hifloat8_to_float32, int4, int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from .enums import (DYNAMIC, BLayout, CmpMode, Coalesce, DivAlgorithm, GatherAxis, GatherExec, GatherOOB, Layout,
                    MaskPattern, RoundMode, SaturationMode, ScatterAtomicOp, ScatterAxis, ScatterConflict, ScatterOOB, SLayout,
                    TileType, PadValue, CompactMode)
from .pad_values import CustomPad, PadCustom, PadValueCustom, PadValueCustom16
from .errors import (BackendUnavailable, PtoAssertWarning, PtoCheckError, PtoError, PtoFault, PtoHazard,
                     PtoPortabilityWarning)
from .isa.datamove.api import TASSIGN, TLOAD, TSTORE
from .ops.events import (EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6,
                         EVENT_ID7, PIPE_ALL, PIPE_FIX, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3,
                         PIPE_MTE4, PIPE_MTE5, PIPE_S, PIPE_V, PIPE_V2, Event, EventId, Op, Pipe,
                         RecordEvent, pipe_barrier, set_flag, wait_flag)
from .isa.mgather.api import MGATHER
from .isa.mscatter.api import MSCATTER
from .isa.tgatherb.api import TGATHERB
from .isa.tinterleave.api import TDEINTERLEAVE, TINTERLEAVE
from .isa.tgather.api import TGATHER
from .isa.tscatter.api import TSCATTER
from .isa.compare.api import TCMP, TCMPS, TSEL, TSELS
from .isa.sort.api import TMRGSORT, TSORT32, MrgSortExecutedNumList
from .isa.tcvt.api import TCVT
from .isa.tmov.api import TMOV
from .isa.elementwise.api import (TABS, TADD, TADDS, TAND, TANDS, TCI, TDIV, TDIVS, TEXPANDS, TMAX, TMAXS,
                                  TMIN, TMINS, TMUL, TMULS, TNEG, TNOT, TOR, TORS, TSHL, TSHLS, TSHR, TSHRS,
                                  TSUB, TSUBS, TXOR, TXORS)
from .targets import TARGETS
from .tensor import GlobalTensor, Shape, Stride
from .tile import Tile
from . import reg  # noqa: E402  (ptogpu.reg: the Ascend 950 register API)
from . import asc  # noqa: E402  (ptogpu.asc: AscendC C-API MTE2 copies with padding)
from .trace import Burst, Trace

float = float32  # noqa: A001  (C++ spelling: pto.float)

__version__ = "0.1.0"

__all__ = [
    "Core", "current_core", "Tile", "GlobalTensor", "Shape", "Stride", "TASSIGN", "TLOAD",
    "TSTORE", "MGATHER", "MSCATTER", "ScatterAtomicOp", "ScatterOOB", "ScatterConflict", "TileType", "BLayout", "SLayout", "PadValue", "CompactMode", "PadCustom", "PadValueCustom", "PadValueCustom16", "CustomPad", "Layout", "GatherOOB", "Coalesce",
    "GatherExec", "DYNAMIC", "PtoError", "PtoCheckError", "PtoFault", "PtoHazard", "BackendUnavailable", "PtoAssertWarning", "PtoPortabilityWarning", "TARGETS",
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "half", "bfloat16",
    "float32", "float", "float8_e4m3", "float8_e5m2", "hifloat8", "hifloat8_to_float32",
    "int4", "float4_e2m1x2", "float4_e1m2x2",
    "TGATHERB", "TINTERLEAVE", "TDEINTERLEAVE", "TGATHER", "TSCATTER", "MaskPattern", "ScatterAxis",
    "GatherAxis", "CmpMode", "DivAlgorithm", "RoundMode", "SaturationMode",
    "TABS", "TADD", "TADDS", "TAND", "TANDS", "TCI", "TDIV", "TDIVS", "TEXPANDS", "TMAX", "TMAXS", "TMIN", "TMINS",
    "TMUL", "TMULS", "TNEG", "TNOT", "TOR", "TORS", "TSHL", "TSHLS", "TSHR", "TSHRS", "TSUB", "TSUBS", "TXOR",
    "TXORS", "TCMP", "TCMPS", "TSEL", "TSELS", "TCVT", "TMOV", "TSORT32", "TMRGSORT", "MrgSortExecutedNumList", "reg",
    "asc", "Trace", "Burst", "RecordEvent", "Event", "Op", "Pipe", "EventId", "set_flag", "wait_flag", "pipe_barrier",
    *(f"PIPE_{p}" for p in ("S", "V", "M", "MTE1", "MTE2", "MTE3", "ALL", "MTE4", "MTE5", "V2", "FIX")),
    *(f"EVENT_ID{k}" for k in range(8)),
]
