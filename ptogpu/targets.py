"""Target tables: every difference between cpu, a2a3 and a5 lives here as data.

Instruction code reads these fields; it never branches on a target's name. Known
implementation quirks are listed in ``quirks`` with their default (on = reproduce the
reference implementation); ``Core(..., quirks={name: False})`` switches one off.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping

from .enums import Coalesce

KiB = 1024

_NPU9 = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32")
_A5_12 = _NPU9 + ("hifloat8", "float8_e4m3", "float8_e5m2")
_INTEGRAL = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


@dataclass(frozen=True)
class MGatherRules:
    """How MGATHER behaves on one target (spec mgather.md §2-§7)."""
    checks: str                      # which static-check list applies: "cpu" | "a2a3" | "a5"
    dtypes: tuple[str, ...] | None   # allowed element types (None: any, sizes must match)
    index_dtypes: tuple[str, ...]    # allowed index element types
    default_mode: Coalesce           # mode of the plain 3-argument call
    index_bits: int                  # index cast: 32 = static_cast<uint32_t>, 64 = size_t
    row_capacity: str                # "shape3" | "prod0_3"  (Row mode, UB destination)
    row_source: str                  # "strides" (row*s3 + c*s4) | "stride3" (row*s3 + c) | "valid_cols" (row*VC + c, u32)
    tile_offsets: str                # "full" (layout incl. fractal) | "plain" (Row/ColMajor, SLayout ignored)
    value_convert: bool              # dst and table types may differ (same size), copied by value
    nz_tables: bool                  # NZ GM tables supported (A2/A3 §6.4, §6.6)
    row_tail_fill: bool              # Row DMA fills from VC to the 32-byte boundary (A2/A3, other-ops §D.4)
    scalar_1x1: bool                 # static 1x1 Elem runs on the scalar unit (A5 §5.5)
    simt: bool                       # Row/Elem run as SIMT launches dim3{32, warps} (A5)


@dataclass(frozen=True)
class MScatterRules:
    """How MSCATTER behaves on one target (MScatter.hpp of the simulator, A2/A3 and A5)."""
    checks: str                      # which static-check list applies: "cpu" | "a2a3" | "a5"
    dtypes: tuple[str, ...] | None   # allowed element types (None: any, sizes must match)
    index_dtypes: tuple[str, ...] | None   # allowed index element types (None: any integral)
    default_mode: Coalesce           # mode of the plain 3-argument call
    conflict_form: bool              # MSCATTER<Mode, Atomic, Oob, Conflict> exists
    default_conflict: str            # Conflict of the forms that do not name it: "Default" | "Last"
    index_bits: int                  # index cast: 32 = uint32_t, 64 = size_t (sign-extends)
    row_capacity: str                # "shape3" | "prod0_3"
    row_dst: str                     # "strides" (u*s3 + j*s4) | "stride3" (u*s3 + j) | "valid_cols" (u32(u*VC) + j)
    tile_offsets: str                # "full" (layout incl. fractals) | "plain" (Row/ColMajor; A2/A3 NZ src: its NZ layout)
    atomic_dtypes: tuple[tuple[str, ...] | None, ...]  # per ScatterAtomicOp Add, Max, Min (None: any)
    nz_tables: bool                  # NZ tables take the A2/A3 NZ paths
    simt: bool                       # source-centric / slot-centric SIMT launches (A5)
    scalar_1x1: bool                 # a static 1x1 Elem src runs on the scalar unit (A5)
    row_index_shapes: str            # Row index valid shape: "1xR" | "1xR|Rx1" | "any"


@dataclass(frozen=True)
class TGatherBRules:
    """How TGATHERB behaves on one target (other-ops.md §A)."""
    supported: bool = True
    dtypes: tuple[str, ...] | None = None   # allowed src and dst element types (None: any)
    dst_sizes: tuple[int, ...] | None = None  # allowed dst element sizes (None: any)
    engine: str = "cpu"              # "cpu": scalar loop over full blocks, skip out-of-src (§A.3)
                                     # "vrepeat": A2/A3 vgatherb repeat stream (§A.4)
                                     # "vreg": A5 register loop, masked partial block (§A.5)
    offset_read: str = "value"       # "value": element value -> uint32, row stride = Cols (CPU)
                                     # "bits": offset memory read as uint32*, row stride = RowStride
    misaligned: str = "byte"         # "byte": byte-exact | "round_down": to the 32-byte block, warn
    vec_only: bool = True            # every tile a Vec tile (the NPUs' UB); the simulator: any Loc
    row_major_dst: bool = True       # static_assert isRowMajor (cpu, A2/A3); A5 has no layout check
    width_assert: bool = False       # the simulator's assert(validCol * sizeof(T*) % 32 == 0)


@dataclass(frozen=True)
class InterleaveRules:
    """How TINTERLEAVE / TDEINTERLEAVE behave on one target (other-ops.md §B)."""
    supported: bool = True
    dtypes: tuple[str, ...] | None = None   # allowed element types (None: any)
    odd_vc: str = "skip_last"        # "skip_last": CPU, column VC-1 untouched
                                     # "vreg": A5 chunked register loop (src0[h] in both dsts)
    single_src_count: str = "dst"    # "dst": k < dstVC, srcVC == 2*dstVC (CPU)
                                     # "src_half": k < srcVC//2 (A5)
    engine: str = "cpu_loop"         # "cpu_loop": the simulator's scalar loop (full layout
                                     # offsets, value conversion, program order) | "vreg": A5
    vec_only: bool = False           # every tile a Vec tile (A5 UB); the simulator takes any Loc
    same_dtype: bool = False         # dst T == src T (A5 static_assert); the simulator converts


@dataclass(frozen=True)
class ValidGetters:
    """Whose ``GetValidRow()``/``GetValidCol()`` a target's instruction code calls, per
    instruction: the operand roles (the C++ template parameter: ``dst`` covers dst0 and dst1,
    ``src`` src0, src1 or the one src). pto_tile.hpp:1591-1613 defines both Gets only for a valid
    dim > 0 or DYNAMIC, so a role listed here with a static valid dim of 0 does not compile
    (PtoCheckError); a role not listed is read through its template constants only (the
    ``ValidRow > 0`` gates of the static checks) or not at all, so a static 0 there compiles and
    runs as the code does. Each call reads both dims. ``*_asserts``: called only inside the
    target's run-time assert (``assert`` / ``PTO_ASSERT``), compiled in while its assert quirk is
    on. The defaults are what all three targets share; TINTERLEAVE and TDEINTERLEAVE differ."""
    # every form: cpu/MGather.hpp:29-30, a2a3/MGather.hpp:493-494, 509-510, 573-574,
    # a5/MGather.hpp:550-551, 571-572, 621-622, 654-655
    mgather: tuple[str, ...] = ("dst",)
    # cpu/MScatter.hpp:35-36, a2a3/MScatter.hpp:489-490, a5/MScatter.hpp:500-501
    mscatter: tuple[str, ...] = ("src",)
    # cpu/TGatherB.hpp:53-54, a2a3/TGatherB.hpp:162-163, a5/TGatherB.hpp:109, 125
    tgatherb: tuple[str, ...] = ("dst",)
    # cpu/TLoad.hpp:131-132, common/arch/memory/tload_common.hpp:346-379, a5/TLoad.hpp:543-565
    tload: tuple[str, ...] = ("tile",)
    # cpu/TStore.hpp:51-52, a2a3/TStore.hpp:262-353, a5/TStore.hpp:312-400
    tstore: tuple[str, ...] = ("tile",)
    tinterleave: tuple[str, ...] = ()
    tinterleave_asserts: tuple[str, ...] = ()
    tdeinterleave: tuple[str, ...] = ()     # TDEINTERLEAVE(dst1, dst0, src1, src0)
    tdeinterleave_asserts: tuple[str, ...] = ()
    tdeinterleave_1src: tuple[str, ...] = ()    # TDEINTERLEAVE(dst1, dst0, src)
    tdeinterleave_1src_asserts: tuple[str, ...] = ()


_ALIGN10 = ("int8", "uint8", "hifloat8", "int16", "uint16", "half", "bfloat16", "int32", "uint32",
            "float32")


@dataclass(frozen=True)
class DmaRules:
    """Which MTE2 DMA instructions a target has, and how its DMAs pad (other-ops.md §D)."""
    gm2l1_align: bool = False        # asc_copy_gm2l1_align(+_sync) and the OUT→L1 pad/loop setters (950)
    gm2ub_align: bool = False        # asc_copy_gm2ub_align(+_sync) and the OUT→UB loop setters (950)
    gm2ub_align_gap: bool = False    # copy_gm_to_ubuf_align_b8/b16/b32, gap form (A2/A3, §D.4)
    mov_pad_reg: bool = False        # asc_set_copy_pad_val / set_mov_pad_val (OUT→UB pad register)
    align_dtypes: tuple[str, ...] = _ALIGN10   # <dtype> of the asc_copy_*_align placeholders
    nd2nz_tail: int | None = 0       # GM→L1 nd2nz: value filling a row's last C0 block past VC
                                     # (None: left untouched; mgather.md §5.6 step 4)
    tstore_bursts: bool = False      # TSTORE of an ND (DN) Vec tile is a copy_ubuf_to_gm burst a valid
                                     # row (column), its exact bytes (npu/*/TStore.hpp TStoreUb2gm*Instr);
                                     # the simulator copies element by element


@dataclass(frozen=True)
class Target:
    name: str
    title: str
    ub_bytes: int                    # physical UB
    ub_usable: int                   # bytes tiles occupy by design (automatic placement, fuzz layouts)
    l1_bytes: int
    element_types: tuple[str, ...]   # types a Tile may hold on this target
    mgather: MGatherRules
    quirks: Mapping[str, bool] = field(default_factory=dict)
    notes: Mapping[str, str] = field(default_factory=dict)
    tgatherb: TGatherBRules = TGatherBRules()
    mscatter: MScatterRules | None = None
    interleave: InterleaveRules = InterleaveRules()
    ub_assignable: int | None = None  # TASSIGN's bound where it passes ub_usable (A5: the vendor's TASSIGN stores
                                      # the pointer, PTO_UBUF_SIZE_BYTES; a tile above ub_usable gets a warning)
    resizable_memories: bool = False  # Core(ub_bytes=, l1_bytes=): the CPU simulator only
    assert_quirk: str = "pto_debug_asserts"   # the quirk that makes run-time asserts live
    assert_macro: str = "PTO_ASSERT"          # how the code spells them (the simulator: assert)
    four_bit_moves: str | None = None  # TLOAD/TSTORE of 4-bit tiles: "elements" (the simulator: each element
                                     # through GetElement/SetElement, a float4 one a nibble) | "bytes" (A5:
                                     # ceil(n/2)-byte bursts a row) | None (A2/A3: the data-type static_assert)
    tassign_counts_numel: bool = False  # TASSIGN's bound counts Numel * sizeof(T), not the tile's bytes (the
                                     # simulator's NPUMemoryModel: a float4 tile counts twice its bytes)
    tload_fill: bool = False         # TLOAD first fills the whole tile with its pad value, 0 (the simulator:
                                     # cpu/TLoad.hpp TLOAD_TILE_IMPL's std::fill over GetSizeInUnits)
    vec_layouts_pair: bool = True    # Vec TLOAD/TSTORE static_assert ND2ND / DN2DN / NZ2NZ (the NPUs'
                                     # tload_common.hpp / TStore checks); False: any of ND, DN, NZ with any
                                     # tile, each side addressed by its own layout (cpu/TLoad.hpp, TStore.hpp)
    tload_nd2nz: bool = False        # TLOAD ND -> NZ (DN -> ZN) Mat tiles are nd2nz (dn2nz) bursts: each valid
                                     # row's (column's) last C0 block past VC (VR) takes dma.nd2nz_tail
                                     # (a2a3 tload_common.hpp:251-297, a5 TLoadCubeInstr multi_nd2nz)
    tload_mat: str | None = None     # TLOAD GM -> Mat ND2ND / DN2DN: None (the valid region) | "cube_bursts"
                                     # (A5 TLoadCubeND2ND / DN2DN: every row (column) the tensor's shape
                                     # spans, each burst right-padded to 32 bytes from the L1 pad register)
    pad_values: str = "register"     # what TLOAD writes for a tile's PadVal (isa/datamove/semantics_pads.py):
                                     # "limits" (the simulator: numeric_limits, the whole tile) | "register" (the
                                     # NPUs: GetPadValue into the pad register, each burst's 32-byte filler)
    auto_fill: str = "keep"          # a tile placed automatically holds: "zero" (the simulator's fresh buffer) |
                                     # "keep" (what the space held)
    tassign_misaligned: str = "fault"  # "fault": NPU PtoFault | "warn": the CPU simulator's bounds-only check
    has_reg_api: bool = False        # ptogpu.reg (__simd_vf__ register API, other-ops.md §C)
    dma: DmaRules = DmaRules()       # MTE2 DMA instructions (ptogpu.asc, semantics/dma.py)
    valid_getters: ValidGetters = ValidGetters()  # whose GetValidRow/Col each instruction calls
    tables: Mapping[str, object] = field(default_factory=dict)
    """A variant's replacements of the tables instruction packages own (``ptogpu.isa``)."""

    def __getattr__(self, name: str):
        """``target.tgather``: the rule table an instruction package owns for this target
        (its declaration's ``tables``), or the variant's replacement of it."""
        if name.startswith("_") or name == "tables":
            raise AttributeError(name)
        own = self.__dict__.get("tables", {})
        if name in own:
            got = own[name]
        else:
            from .isa import target_table
            got = target_table(name, self.name.split("~")[0])
        object.__setattr__(self, name, got)     # (kept: the next lookup does not come here)
        return got


# What each quirk switches (on = the value the tables hold unless they say otherwise): `ptogpu
# targets` prints these; Core(..., quirks={name: bool}) sets them.
QUIRK_DOCS: Mapping[str, str] = MappingProxyType({
    'cpu_asserts': (
        "the simulator's run-time asserts (TINTERLEAVE even widths and equal shapes, TGATHERB "
        'widths, ...) are live (a build without NDEBUG); off: compiled out, the loops run on and '
        'a PtoAssertWarning says where an assert would have trapped'),
    'cpu_bfloat16_is_half': (
        "bfloat16_t is _Float16, as the simulator's CMake builds it below C++23 (GCC < 14, e.g. "
        "Debian 12's 12.2, or clang before C++23): bfloat16 elements hold IEEE half bits wherever "
        'a value is formed from them (value conversions, MSCATTER atomics, float TGATHERB '
        'offsets); off: std::bfloat16_t'),
    'cpu_mscatter_row_minmax_operand': (
        'MSCATTER<Row, Max|Min> compares with base[u], the element at flat offset u (the row '
        'number), not the destination element (cpu/MScatter.hpp); off: the destination'),
    'npu_tload_filler': (
        "TLOAD ND->RowMajor (DN->ColMajor) Vec of a tile without a PadVal (copy_gm_to_ubuf_align[_v2], "
        "no pads) fills each row's (column's) bytes past the valid ones to the 32-byte boundary with "
        "its first element (other-ops.md D.3, D.4); off: the valid region only"),
    'pto_debug_asserts': (
        'PTO_ASSERT is compiled in (a _DEBUG build, common/debug.h): a failed assert is a '
        'PtoFault naming it; off: the code runs past it (PtoAssertWarning)'),
    'a2a3_tgatherb_tail_stream': (
        'TGATHERB tail (VC*size % 256 != 0) is one vgatherb per 255-row chunk: row r of a chunk '
        'reads offsets 8r apart and every tail row writes 8 full blocks (other-ops.md A.4); off: '
        "PTOAS's per-row form (repeat 1, offsets at r*OffRowStride + nRep*8, the 8-block spill "
        'kept)'),
    'a5_dynamic_dim_cast': (
        "MGatherCheck casts valid dims to uint32 before its '> 0' gates, so DYNAMIC (-1) becomes "
        '0xFFFFFFFF and is compared instead of skipped (mgather.md 5.1)'),
    'a5_tgatherb_rowwise_b32_store': (
        'TGATHERB RowWise loop order (ceil(Cols/E) > Rows) stores with NORM_B32 for every T: a '
        'b8/b16 partial block also writes up to 3 bytes past VC (other-ops.md A.5)'),
    'a5_tgatherb_unused_block_fault': (
        'TGATHERB: blocks the gather predicate enables but the store never uses still read UB, so '
        'an out-of-UB offset there faults; off (default): unconfirmed on hardware'),
    'a5_interleave_odd_hole': (
        'TINTERLEAVE with odd VC and (VC//2) % E == 0: the loop writes 2*(VC//2) elements and the '
        "last column of both destinations stays unwritten (other-ops.md B.4); off: the golden's "
        'full width'),
})


CPU = Target(
    name="cpu",
    title="PTO CPU simulator",
    ub_bytes=512 * KiB, ub_usable=512 * KiB, l1_bytes=512 * KiB, resizable_memories=True,
    assert_quirk="cpu_asserts", assert_macro="assert", tassign_misaligned="warn", auto_fill="zero", tload_fill=True,
    pad_values="limits", vec_layouts_pair=False, tassign_counts_numel=True,
    element_types=_INTEGRAL + ("half", "bfloat16", "float32", "hifloat8", "float8_e4m3", "float8_e5m2", "int4",
                               "float4_e2m1x2", "float4_e1m2x2"),
    four_bit_moves="elements",
    mgather=MGatherRules(
        checks="cpu", dtypes=None, index_dtypes=_INTEGRAL, default_mode=Coalesce.Elem,
        index_bits=64, row_capacity="shape3", row_source="strides", tile_offsets="full",
        value_convert=True, nz_tables=False, row_tail_fill=False, scalar_1x1=False, simt=False),
    tgatherb=TGatherBRules(engine="cpu", offset_read="value", misaligned="byte", vec_only=False,
                           width_assert=True),
    mscatter=MScatterRules(
        checks="cpu", dtypes=None, index_dtypes=None, default_mode=Coalesce.Elem,
        conflict_form=True, default_conflict="Default", index_bits=64, row_capacity="shape3",
        row_dst="strides", tile_offsets="full", atomic_dtypes=(None, None, None),
        nz_tables=False, simt=False, scalar_1x1=False, row_index_shapes="any"),
    interleave=InterleaveRules(odd_vc="skip_last", single_src_count="dst"),
    # cpu/TInterleave.hpp:45-50, TDeinterleave.hpp:59-64 and 75-79: dst0's Gets, the others' in assert()
    valid_getters=ValidGetters(tinterleave=("dst",), tinterleave_asserts=("src",),
                               tdeinterleave=("dst",), tdeinterleave_asserts=("src",),
                               tdeinterleave_1src=("dst",), tdeinterleave_1src_asserts=("src",)),
    quirks=MappingProxyType({
        "cpu_asserts": True,
        "cpu_bfloat16_is_half": True,
        "cpu_mscatter_row_minmax_operand": True,
    }),
    notes=MappingProxyType({
        "ub": "the simulator's UB is 512 KiB (max(arch UB, 512 KiB), NPUMemoryModel), all of it "
              "usable; Core('cpu', ub_bytes=..., l1_bytes=...) resizes UB and L1 as its "
              "PTO_CPU_SIM_UB_BYTES / PTO_CPU_SIM_L1_BYTES do",
    }),
)

A2A3 = Target(
    name="a2a3",
    title="Atlas A2/A3 (scalar pipe + MTE2 DMA)",
    ub_bytes=192 * KiB, ub_usable=192 * KiB, l1_bytes=512 * KiB,
    element_types=_INTEGRAL + ("half", "bfloat16", "float32", "int4"), tload_nd2nz=True,
    mgather=MGatherRules(
        checks="a2a3", dtypes=_NPU9, index_dtypes=("int32", "uint32"), default_mode=Coalesce.Row,
        index_bits=32, row_capacity="prod0_3", row_source="stride3", tile_offsets="full",
        value_convert=False, nz_tables=True, row_tail_fill=True, scalar_1x1=False, simt=False),
    tgatherb=TGatherBRules(dst_sizes=(1, 2, 4), engine="vrepeat",
                           offset_read="bits", misaligned="round_down"),
    mscatter=MScatterRules(
        checks="a2a3", dtypes=_NPU9, index_dtypes=("int32", "uint32"), default_mode=Coalesce.Row,
        conflict_form=False, default_conflict="Default", index_bits=32, row_capacity="prod0_3",
        row_dst="stride3", tile_offsets="plain",
        atomic_dtypes=(("float32", "int32", "half", "bfloat16", "int16", "int8"), (), ()),
        nz_tables=True, simt=False, scalar_1x1=False, row_index_shapes="1xR"),
    interleave=InterleaveRules(supported=False),
    dma=DmaRules(gm2ub_align_gap=True, mov_pad_reg=True, tstore_bursts=True),
    quirks=MappingProxyType({
        "npu_tload_filler": True,
        "pto_debug_asserts": False,
        "a2a3_tgatherb_tail_stream": True,
    }),
    notes=MappingProxyType({}),
)

A5 = Target(
    name="a5",
    title="Ascend 950PR/DT (SIMT dim3{32, warps})",
    ub_bytes=256 * KiB, ub_usable=216 * KiB, ub_assignable=256 * KiB, l1_bytes=512 * KiB,
    element_types=_INTEGRAL + ("half", "bfloat16", "float32", "hifloat8", "float8_e4m3", "float8_e5m2",
                               "float4_e2m1x2", "float4_e1m2x2"),
    four_bit_moves="bytes", tload_mat="cube_bursts", tload_nd2nz=True,
    mgather=MGatherRules(
        checks="a5", dtypes=_A5_12, index_dtypes=("int32", "uint32"), default_mode=Coalesce.Row,
        index_bits=32, row_capacity="shape3", row_source="valid_cols", tile_offsets="plain",
        value_convert=False, nz_tables=False, row_tail_fill=False, scalar_1x1=True, simt=True),
    tgatherb=TGatherBRules(dst_sizes=(1, 2, 4), engine="vreg",
                           offset_read="bits", misaligned="round_down", row_major_dst=False),
    mscatter=MScatterRules(
        checks="a5", dtypes=_A5_12, index_dtypes=("int32", "uint32"), default_mode=Coalesce.Row,
        conflict_form=True, default_conflict="Last", index_bits=32, row_capacity="shape3",
        row_dst="valid_cols", tile_offsets="plain",
        atomic_dtypes=(("int32", "uint32", "float32", "half", "bfloat16"), ("int32", "uint32", "float32"),
                       ("int32", "uint32", "float32")),
        nz_tables=False, simt=True, scalar_1x1=True, row_index_shapes="1xR|Rx1"),
    interleave=InterleaveRules(dtypes=_NPU9, odd_vc="vreg", single_src_count="src_half",
                               engine="vreg", vec_only=True, same_dtype=True),
    # a5/TInterleave.hpp:36-50,188-194, TDeInterleave.hpp:36-46,173-179: dst0's Gets, the others'
    # in PTO_ASSERT; the one-src form (197-205, 254) reads src's and asserts the dsts'
    valid_getters=ValidGetters(tinterleave=("dst",), tinterleave_asserts=("src",),
                               tdeinterleave=("dst",), tdeinterleave_asserts=("src",),
                               tdeinterleave_1src=("src",), tdeinterleave_1src_asserts=("dst",)),
    has_reg_api=True,
    dma=DmaRules(gm2l1_align=True, gm2ub_align=True, mov_pad_reg=True, tstore_bursts=True),
    quirks=MappingProxyType({
        "npu_tload_filler": True,
        "pto_debug_asserts": False,
        "a5_dynamic_dim_cast": True,
        "a5_tgatherb_rowwise_b32_store": True,
        "a5_tgatherb_unused_block_fault": False,
        "a5_interleave_odd_hole": True,
    }),
    notes=MappingProxyType({
        "ub": "256 KiB physical; the top 40 KiB (8 KiB reserved + 32 KiB SIMT data cache) "
              "hold no tiles by design, so automatic placement uses the low 216 KiB; TASSIGN takes "
              "any address below 256 KiB (the vendor's TASSIGN stores the pointer, "
              "PTO_UBUF_SIZE_BYTES: its own TSORT32 test puts a tmp at 0x3E000) with a "
              "PtoPortabilityWarning above 216 KiB",
    }),
)

TARGETS: dict[str, Target] = {t.name: t for t in (CPU, A2A3, A5)}


_VARIANTS: dict[str, Target] = {}


def get_target(name: str | Target) -> Target:
    if isinstance(name, Target):
        return name
    t = TARGETS.get(name) or _VARIANTS.get(name)
    if t is None:
        raise ValueError(f"unknown target {name!r}; choose one of {', '.join(TARGETS)}")
    return t


def field_value(t: Target | str, path: str):
    """The value of one rule field, ``"mgather.index_bits"`` (table.field), ``"pad_values"`` (a
    field of the target itself) or ``"quirks"`` (the whole quirk table)."""
    t = get_target(t)
    if path == "quirks":
        return dict(t.quirks)
    if "." not in path:                 # a field of the target itself (TLOAD's: ``pad_values``)
        return getattr(t, path)
    table, _, attr = path.partition(".")
    return getattr(getattr(t, table), attr)


def variant(base: str, donor: str, fields: tuple[str, ...]) -> str:
    """The name of a target that is ``base`` with the rule ``fields`` (paths as in
    :func:`field_value`) taken from ``donor``: what the fuzzer runs to ask whether one rule
    explains a difference between two targets (docs/fuzz.md). Registered on first use, never
    listed among TARGETS."""
    fields = tuple(sorted(set(fields)))
    name = f"{base}~{donor}:{'+'.join(fields)}"
    if name in _VARIANTS:
        return name
    tb, td = get_target(base), get_target(donor)
    kw: dict = {}
    for path in fields:
        if path == "quirks":
            # a quirk the base reads keeps its value unless the donor has it too
            kw["quirks"] = MappingProxyType({**tb.quirks, **td.quirks})
            continue
        if "." not in path:             # a field of the target itself
            kw[path] = getattr(td, path)
            continue
        table, _, attr = path.partition(".")
        owned = table not in tb.__dataclass_fields__          # a table an instruction package owns
        cur = kw.get("tables", {}).get(table) if owned else kw.get(table)
        cur = getattr(tb, table) if cur is None else cur
        if cur is None or getattr(td, table) is None:
            raise ValueError(f"{path}: {base} or {donor} has no {table} table")
        new = replace(cur, **{attr: getattr(getattr(td, table), attr)})
        if owned:
            kw["tables"] = {**kw.get("tables", dict(tb.tables)), table: new}
        else:
            kw[table] = new
    _VARIANTS[name] = replace(tb, name=name, title=f"{tb.title} with {donor}'s {', '.join(fields)}", **kw)
    return name
