"""``TASSIGN``, ``TLOAD`` and ``TSTORE``."""
from __future__ import annotations

import operator

import numpy as np

from ... import dtypes, nibbles
from ...core import current_core, on_instances
from ...enums import PadValue, TileType
from ...errors import F_DST, F_OTHER, PtoCheckError, PtoFault, PtoPortabilityWarning, warn
from ...memory import Ptr
from ...tensor import GlobalTensor
from ...tile import Tile, require_valid_getters
from ...trace import record_bursts
from . import kernels, semantics_pads as pads
from ...ops.events import instruction


@on_instances(uniform=True)
def TASSIGN(obj, addr) -> None:
    """Bind a tile to a byte address of UB (Vec) or L1 (Mat); or a GlobalTensor to a GM pointer."""
    core = current_core()
    t = core.target.name
    if isinstance(obj, GlobalTensor):
        obj._set_ptr(addr)
        return
    if not isinstance(obj, Tile):
        raise PtoCheckError(f"TASSIGN takes a Tile or GlobalTensor, got {type(obj).__name__}",
                            rule="TASSIGN", target=t)
    if obj.Loc not in (TileType.Vec, TileType.Mat):
        raise PtoCheckError(f"TileType.{obj.Loc.name} buffers are not emulated (Vec and Mat are)",
                            rule="TASSIGN", target=t)
    space = obj.space
    if isinstance(addr, Ptr):
        if addr.space != space:
            raise PtoCheckError(f"a {obj.Loc.name} tile lives in {space.upper()}, not in "
                                f"{addr.space.upper()} ({addr!r})", rule="TASSIGN pointer space",
                                target=t)
        addr = addr.addr
    try:                       # an integer type, as the C++ call takes (a str, float or bool is not)
        if isinstance(addr, bool):
            raise TypeError
        addr = operator.index(addr)
    except TypeError:
        raise PtoCheckError(f"TASSIGN takes an integer byte address or a {space.upper()} pointer, got "
                            f"{type(addr).__name__} {addr!r}", rule="TASSIGN address", target=t) from None
    limit = core.ub_assignable if space == "ub" else core.l1.size
    # A5 (ub_assignable): the vendor's TASSIGN stores the pointer, so a tile no larger than UB may
    # start anywhere in it and its extent may pass the end (its own TSORT32 test declares an
    # 8,352-byte tmp at 0x3E000 and uses 8 KiB of it); every access is checked where it happens
    # the simulator's bound (NPUMemoryModel) counts Numel * sizeof(T): a float4 tile's unpacked size
    size = obj.Numel * obj.Element.itemsize if core.target.tassign_counts_numel else obj.nbytes
    lax = space == "ub" and core.target.ub_assignable is not None and 0 <= addr < limit and size <= limit
    if (addr < 0 or addr + size > limit) and not lax:
        raise PtoFault(f"tile of {size} bytes at {addr:#x} does not fit in "
                       f"{space.upper()} [0, {limit:#x})", rule="TASSIGN bounds", target=t, code=F_OTHER)
    if lax and addr + obj.nbytes > limit:
        warn(f"[{t}] TASSIGN at {addr:#x}: the tile's {obj.nbytes} bytes pass the end of UB ({limit:#x}); "
             "the vendor's TASSIGN does not check, an access past the end faults", PtoPortabilityWarning)
    elif space == "ub" and addr + obj.nbytes > core.ub_usable:
        warn(f"[{t}] TASSIGN at {addr:#x}: the tile reaches past {core.ub_usable // 1024} KiB, into UB's top "
             f"{(core.ub_assignable - core.ub_usable) // 1024} KiB (8 KiB reserved and the SIMT data cache on the "
             "device; the vendor's TASSIGN does not check, and SIMT instructions may overwrite it there)",
             PtoPortabilityWarning)
    if addr % 32:
        if core.target.tassign_misaligned != "warn":
            raise PtoFault(f"tile address {addr:#x} is not 32-byte aligned",
                           rule="TASSIGN alignment", target=t, code=F_OTHER)
        warn(f"[{t}] TASSIGN at {addr:#x}: the simulator checks bounds only "
             "(NPUMemoryModel); on a2a3 and a5 an address that is not 32-byte aligned is a "
             "PtoFault (TASSIGN alignment)", PtoPortabilityWarning)
    core.placer.release(obj)
    core.placer.check_manual(obj, space, addr, obj.nbytes)
    obj.core = core
    obj.addr = addr


_PAIRS = {"ND": "RowMajor/NoneBox", "DN": "ColMajor/NoneBox", "NZ": "NZ (ColMajor + SLayout RowMajor, 512)"}


def _vec_layout_pairs(tile: Tile, gt: GlobalTensor) -> bool:
    """Vec TLOAD/TSTORE move ND<->ND, DN<->DN, NZ<->NZ (a 1-row or 1-column tile is the same
    memory either way, so it pairs with ND and DN alike)."""
    lay = gt.layout.name
    if lay in ("ND", "DN") and tile.SLayout.name == "NoneBox" and (tile.Rows == 1 or tile.Cols == 1):
        return True
    if lay == "ND":
        return tile.is_nd()
    if lay == "DN":
        return not tile.isRowMajor and tile.SLayout.name == "NoneBox"
    return tile.is_nz()


def _tile_gt_addrs(core, tile: Tile, gt: GlobalTensor, what: str, region: tuple[int, int] | None = None):
    t = core.target.name
    if not isinstance(tile, Tile) or not isinstance(gt, GlobalTensor):
        raise PtoCheckError(f"{what} takes a Tile and a GlobalTensor", rule=what, target=t)
    if tile.DType != gt.DType:
        raise PtoCheckError(f"tile holds {tile.DType}, tensor holds {gt.DType}",
                            rule=f"{what}: element types match", target=t)
    if tile.Loc not in (TileType.Vec, TileType.Mat):
        raise PtoCheckError(f"TileType.{tile.Loc.name} tiles are not loaded/stored from GM here "
                            f"(Vec and Mat are)", rule=f"{what}: tile Loc", target=t)
    if tile.Loc == TileType.Vec and core.target.vec_layouts_pair and not _vec_layout_pairs(tile, gt):
        raise PtoCheckError(f"a {gt.layout.name} tensor pairs with a {_PAIRS[gt.layout.name]} "
                            f"Vec tile, not {tile.BLayout.name}/{tile.SLayout.name}",
                            rule=f"{what}: layouts ND2ND / DN2DN / NZ2NZ", target=t)
    if tile.addr is None:
        raise PtoFault("tile has no address: TASSIGN it first", rule=what, target=t, code=F_OTHER)
    size = tile.Element.itemsize
    # the valid region's (r, c): a region that cannot fit in the tile's arena faults before any
    # array of its size is built; an empty one builds none (a 0 x 2^31 region reads nothing)
    if region is None:
        r, c = tile._grid()
    else:                                   # (rows, cols) past the valid region: bounded by the caller
        r, c = np.meshgrid(np.arange(region[0], dtype=np.int64), np.arange(region[1], dtype=np.int64),
                           indexing="ij")
    off = gt.offsets(r, c).view(np.uint64)
    g = (np.uint64(gt.addr & ((1 << 64) - 1)) + off * np.uint64(size)).view(np.int64)  # 64-bit, wrapping
    a = tile.addr + tile.offsets(r, c) * size
    return g, a


_NO_FOUR_BIT = {   # a2a3 tload_common.hpp:300-315, tstore_common.hpp:325-338 (int4b_t is in neither list)
    "TLOAD": "Fix: Data type must be int8_t/uint8_t/int16_t/uint16_t/int32_t/uint32_t/half/bfloat16_t/float/"
             "int64_t/uint64_t!",
    "TSTORE": "Data type must be int8_t/uint8_t/int16_t/uint16_t/int32_t/uint32_t/int64_t/uint64_t/half/"
              "bfloat16_t/float!"}


def _four_bit(core, tile: Tile, gt: GlobalTensor, what: str) -> bool:
    """TLOAD/TSTORE of a 4-bit tile by the target's rule (``target.four_bit_moves``); False where
    the element moves as any 1-byte one (the simulator's int4b_t: a byte each)."""
    if not isinstance(tile, Tile) or not isinstance(gt, GlobalTensor) or tile.DType not in dtypes.FOUR_BIT \
            or gt.DType != tile.DType:
        return False                        # (_tile_gt_addrs judges the rest)
    t = core.target
    if t.four_bit_moves is None:
        raise PtoCheckError(f"{what} of a {tile.DType} tile: {_NO_FOUR_BIT[what]} (a static_assert; the "
                            "vendor's own kernels move such tiles through a uint8_t tile at the same address)",
                            rule=f"{what}: element types", target=t.name)
    if not dtypes.packed(tile.Element):
        return False
    g, a = _tile_gt_addrs(core, tile, gt, what)          # (the checks; the byte addresses follow)
    ks = core.step_instances()
    banks = core.banks
    acc = {sp: (lambda x, b=banks[sp]: b.take_same(ks, x, dtypes.uint8), lambda x, v, b=banks[sp]: b.put(ks, x, v))
           for sp in ("gm", tile.space)}
    src, dst = ("gm", tile.space) if what == "TLOAD" else (tile.space, "gm")
    if t.four_bit_moves == "elements":          # each valid element's nibble, as GetElement/SetElement
        r, c = tile._grid()
        off = {"gm": np.asarray(gt.offsets(r, c), np.int64), tile.space: np.asarray(tile.offsets(r, c), np.int64)}
        base = {"gm": gt.addr, tile.space: tile.addr}
        for sp in ("gm", tile.space):
            core.arena(sp).check_many(nibbles.split(base[sp], off[sp])[0], 1, f"{what} {sp}", t.name,
                                      code=F_OTHER if sp == src else F_DST)
        codes = nibbles.read(acc[src][0], base[src], off[src])
        if what == "TLOAD" and t.tload_fill:
            acc[dst][1](tile.addr + np.arange(tile.nbytes, dtype=np.int64), pads.cpu_fill(type(tile), core.quirks))
        nibbles.write(*acc[dst], base[dst], off[dst], codes)
        return True
    # "bytes" (A5 TLoadVecND2ND / TStoreVecND, DN2DN / TStoreVecDN, NZ2NZ / TStoreVecNZ): b8 bursts,
    # the fp4 offsets halved (GetByteSize: ceil(n/2); dim 0: Stride[0] >> 1). ND (DN): each valid row
    # (column) a burst of ceil(VC/2) (ceil(VR/2)) bytes, GM bursts ceil(Stride[3]/2) (ceil(Stride[4]/2))
    # bytes apart, dims 1-2 ceil(Stride/2), UB bursts Cols/2 (Rows/2) apart. NZ: each 64-element column
    # block a burst of VR * 32 bytes, GM blocks ceil(Stride[1]/2) apart, UB blocks Rows * 32.
    VR, VC = tile.valid_row, tile.valid_col
    S, St = gt.shape.values, gt.stride.values
    ceil = lambda v: (int(v) + 1) >> 1                                          # noqa: E731 (GetByteSize)
    lay = gt.layout.name
    if tile.Loc == TileType.Vec and lay == "NZ" and tile.is_nz():
        b = np.arange(int(S[0]) * int(S[1]), dtype=np.int64)
        i0, i1 = b // S[1], b % S[1]
        gm_burst = gt.addr + (i0 * int(St[0])) // 2 + i1 * ceil(St[1])
        ub_burst, nbytes = tile.addr + b * (tile.Rows * 32), VR * 32
    elif tile.Loc == TileType.Vec and ((lay == "ND" and tile.is_nd()) or (lay == "DN" and tile.is_dn())):
        nd = lay == "ND"
        n, along, pitch, inner = (VR, VC, tile.Cols, 3) if nd else (VC, VR, tile.Rows, 4)
        b = np.arange(n, dtype=np.int64)
        i_in, i2 = b % S[inner], (b // S[inner]) % S[2]
        i1, i0 = (b // (S[inner] * S[2])) % S[1], b // (S[inner] * S[2] * S[1])
        gm_burst = gt.addr + (i0 * int(St[0])) // 2 + i1 * ceil(St[1]) + i2 * ceil(St[2]) + i_in * ceil(St[inner])
        ub_burst, nbytes = tile.addr + b * (pitch // 2), (along + 1) // 2
    else:
        raise PtoCheckError(f"{what} of a {tile.DType} tile: ptogpu moves 4-bit tiles ND <-> RowMajor, DN <-> "
                            "ColMajor and NZ <-> NZ Vec only", rule=f"{what}: 4-bit element types", target=t.name)
    j = np.arange(nbytes, dtype=np.int64)
    addr = {"gm": gm_burst[:, None] + j, tile.space: ub_burst[:, None] + j}
    core.arena(src).check_many(addr[src], 1, f"{what} read", t.name, code=F_OTHER)
    core.arena(dst).check_many(addr[dst], 1, f"{what} write", t.name, code=F_DST)
    got = acc[src][0](addr[src])
    if what == "TLOAD" and VR and VC:
        bits = pads.npu_register_bits(type(tile))
        if bits is not None or core.quirks.get("npu_tload_filler", False):
            _set_pad_register(core, tile, bits)
            at, got = _with_fillers(addr[dst], got, bits)
            core.arena(dst).check_many(at, 1, f"{what} write", t.name, code=F_DST)
            addr[dst] = at
    acc[dst][1](addr[dst], got)
    return True


@instruction("TLOAD")
def TLOAD(tile: Tile, gt: GlobalTensor) -> None:
    """GM → tile: the tile's valid (r, c) takes the tensor's (r, c) under its layout; on the
    NPU targets an ND → RowMajor Vec load also writes each row's 32-byte DMA filler."""
    core = current_core()
    require_valid_getters(core, "TLOAD", "tload", tile=tile)
    if _four_bit(core, tile, gt, "TLOAD"):
        return
    cube = _cube_region(core, tile, gt)
    g, a = _tile_gt_addrs(core, tile, gt, "TLOAD", cube)
    arena = core.arena(tile.space)
    core.gm.check_many(g, tile.Element.itemsize, "TLOAD read", core.target.name, code=F_OTHER)
    arena.check_many(a, tile.Element.itemsize, "TLOAD write", core.target.name, code=F_DST)
    filler, pad = _filler(core, tile, gt)
    bursts = _npu_bursts(core, tile, gt, g, a, cube, filler, pad)
    if bursts is not None and kernels.run(core, bursts):     # the burst engine (kernel backends)
        return
    if core.all_at_once:            # batch rule: the same addresses in every live instance
        bank = core.banks[tile.space]
        vals = core.banks["gm"].gather_all(g, tile.Element)
        def put(addrs, v):
            bank.scatter_all(addrs, v, core.live)
    else:
        vals = core.gm.gather(g, tile.Element)
        put = arena.scatter
    if core.target.tload_fill:      # the whole tile to its pad value first, then the copy
        put(tile.addr + np.arange(tile.nbytes, dtype=np.int64), pads.cpu_fill(type(tile), core.quirks))
    put(a, vals)
    if cube is not None:
        _cube_pads(core, put, tile, cube)
    if core.target.tload_nd2nz and tile.Loc == TileType.Mat:
        _nd2nz_tail(core, put, tile, gt)
    if filler:                      # the NumPy semantics: each line's filler from the rule
        _burst_filler(put, tile, vals, pad)
    if bursts is not None:
        record_bursts(core, bursts, bursts.src, bursts.dst, bursts.length)


def _filler(core, tile: Tile, gt: GlobalTensor) -> tuple[bool, np.ndarray | None]:
    """Whether the NPUs' ND/DN Vec load writes each burst's filler, and the pad element it takes
    (None: the burst's first element); a PadVal sets the pad register first."""
    if core.target.pad_values != "register" or tile.Loc != TileType.Vec \
            or not ((gt.layout.name == "ND" and tile.is_nd()) or (gt.layout.name == "DN" and tile.is_dn())):
        return False, None
    bits = pads.npu_register_bits(type(tile))
    if bits is None and not core.quirks.get("npu_tload_filler", False):
        return False, None
    _set_pad_register(core, tile, bits)
    return True, None if bits is None else pads.npu_pad_element(type(tile), bits)


def _npu_bursts(core, tile: Tile, gt: GlobalTensor, g, a, cube, filler: bool, pad):
    """The load as the bursts the NPUs issue, where the burst engine may run it (kernels.py): a
    filled Vec load's lines, an ND -> NZ (DN -> ZN) Mat load's C0 blocks; None otherwise (the
    simulator's whole-tile fill, A5's cube bursts, anything else)."""
    t = core.target
    if t.tload_fill:
        return None
    if filler:
        return kernels.row_bursts(tile, g, a, None if pad is None else pad.tobytes())
    tail = t.dma.nd2nz_tail
    if t.tload_nd2nz and tile.Loc == TileType.Mat and tail is not None and cube is None \
            and ((gt.layout.name == "ND" and tile.is_nz()) or (gt.layout.name == "DN" and tile.is_zn())):
        return kernels.block_bursts(tile, g, a, tail)
    return None


def _with_fillers(at: np.ndarray, got: np.ndarray, bits: int | None) -> tuple[np.ndarray, np.ndarray]:
    """A 4-bit tile's bursts (one a row, bytes ``at``, shape (VR, n)) each followed by its
    filler to the next 32-byte boundary of the absolute address -- the burst's first byte, or
    the pad register's low byte (``bits``) --, in burst order: a row pitch of Cols/2 bytes need
    not be a multiple of 32, so a burst's filler can land on the next row, which that row's
    burst then overwrites (§D.3; a put's last write of an address wins)."""
    vr, n = at.shape
    ends = at[:, -1] + 1
    k = np.arange(32, dtype=np.int64)
    fill = ends[:, None] + k
    keep = np.concatenate([np.ones((vr, n), bool), k < (-ends % 32)[:, None]], axis=1)
    lead = got.shape[:-2]
    vals = got.reshape(*lead, vr, n)
    fv = vals[..., :1] if bits is None else np.uint8(bits & 0xFF)
    both = np.concatenate([vals, np.broadcast_to(fv, (*lead, vr, 32))], axis=-1)
    return np.concatenate([at, fill], axis=1)[keep], both[..., keep]


def _cube_region(core, tile: Tile, gt: GlobalTensor) -> tuple[int, int] | None:
    """A5's TLOAD into an ND (DN) Mat tile (TLoadCubeND2ND / DN2DN, a5/TLoad.hpp:419-530) moves
    every row (column) the tensor's shape spans -- Shape0*1*2*3 rows of VC elements (Shape0*1*2*4
    columns of VR) --, whatever the tile's valid rows (columns): that region, or None for any
    other load. Faults (the L1 bound) before building an index per element of a huge shape."""
    if core.target.tload_mat != "cube_bursts" or not isinstance(tile, Tile) or not isinstance(gt, GlobalTensor) \
            or tile.Loc != TileType.Mat or tile.addr is None or tile.DType in dtypes.FOUR_BIT:
        return None                         # (_tile_gt_addrs judges what is not a cube burst load)
    S = gt.shape.values
    if gt.layout.name == "ND" and tile.is_nd():
        region, pitch = (int(S[0]) * int(S[1]) * int(S[2]) * int(S[3]), tile.valid_col), tile.Cols
        bursts = region[0]
    elif gt.layout.name == "DN" and tile.is_dn():
        region, pitch = (tile.valid_row, int(S[0]) * int(S[1]) * int(S[2]) * int(S[4])), tile.Rows
        bursts = region[1]
    else:
        return None
    if region[0] <= 0 or region[1] <= 0:
        return (0, 0)
    size, l1 = tile.Element.itemsize, core.arena(tile.space)
    if tile.addr + bursts * pitch * size > l1.size:
        raise PtoFault(f"TLOAD: {bursts} bursts of the tensor's shape {tuple(int(v) for v in S)} reach L1 byte "
                       f"{tile.addr + bursts * pitch * size:#x}, past its {l1.size:#x} (TLoadCube moves them all, "
                       "whatever the tile's valid region)", rule="TLOAD write", target=core.target.name, code=F_DST)
    return region


def _line_tails(tile: Tile, n: int, start: int, end: int, rows: bool) -> np.ndarray:
    """Byte addresses of elements [start, end) along each of the tile's first ``n`` rows (``rows``)
    or columns, shape (n, end - start): where the fillers, right pads and nd2nz tails of a load's
    bursts land."""
    line, k = np.meshgrid(np.arange(n, dtype=np.int64), np.arange(start, end, dtype=np.int64), indexing="ij")
    r, c = (line, k) if rows else (k, line)
    return tile.addr + tile.offsets(r, c) * tile.Element.itemsize


def _cube_pads(core, put, tile: Tile, region: tuple[int, int]) -> None:
    """Each TLoadCube burst's right pad: (Cols - VC) % (32/sizeof) elements (DN: Rows - VR) from the
    L1 pad register (TLoadCubeInstr: data select on), which a PadVal other than Null / Zero sets to
    GetPadValue for the load and back to 0 after; 8-byte elements pad as two 32-bit units."""
    nr, nc = region
    size = tile.Element.itemsize
    nd = tile.is_nd()
    along, bursts = (nc, nr) if nd else (nr, nc)
    n = ((tile.Cols if nd else tile.Rows) - along) % (32 // size)
    if n == 0 or bursts == 0:
        return
    reg = core.regs.out_to_l1
    own = tile.PadVal not in (PadValue.Null, PadValue.Zero)
    bits = pads.npu_register_bits(type(tile)) if own else reg.pad
    at = _line_tails(tile, bursts, along, along + n, nd)
    put(at, np.broadcast_to(pads.npu_pad_element(type(tile), bits), at.shape))
    if own:
        reg.pad, reg.pad_set = 0, True


def _nd2nz_tail(core, put, tile: Tile, gt: GlobalTensor) -> None:
    """An ND -> NZ (DN -> ZN) Mat load is nd2nz (dn2nz) bursts of whole C0 blocks: each valid row's
    (column's) last block past VC (VR) takes ``dma.nd2nz_tail`` (0), as MGATHER's GM -> L1
    rows do (a2a3 tload_common.hpp:251-297)."""
    nz, zn = gt.layout.name == "ND" and tile.is_nz(), gt.layout.name == "DN" and tile.is_zn()
    tail = core.target.dma.nd2nz_tail
    VR, VC, C0, size = tile.valid_row, tile.valid_col, tile.C0, tile.Element.itemsize
    along, n = (VC, VR) if nz else (VR, VC)
    end = -(-along // C0) * C0
    if not (nz or zn) or tail is None or n == 0 or end == along:
        return
    at = _line_tails(tile, n, along, end, nz)
    one = (int(tail) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    put(at, np.broadcast_to(np.frombuffer(one, tile.Element), at.shape))


def _set_pad_register(core, tile: Tile, bits: int | None) -> None:
    """A tile with a PadVal sets the OUT->UB pad register first (``set_mov_pad_val``), and it
    keeps the value after the load."""
    if bits is not None:
        reg = core.regs.out_to_ub
        reg.pad, reg.pad_set = bits, True


def _burst_filler(put, tile: Tile, vals: np.ndarray, pad: np.ndarray | None) -> None:
    """PTO's NPU TLOAD (ND2ND, DN2DN) issues one DMA burst per valid row (ND) or column (DN).
    Without a PadVal (left = right = 0, no data select: A5 copy_gm_to_ubuf_align_v2,
    A2/A3 copy_gm_to_ubuf_align) each burst's filler up to the next 32-byte boundary is the
    burst's first element (other-ops.md §D.3, §D.4); with one it is the pad element ``pad``
    (A5: the data-select bit, A2/A3: a right pad of (Cols - VC) % (32/sizeof) elements: the same
    bytes). The tile is 32-byte aligned with a 32-byte row (column) pitch, so the filler lies
    inside each row (column)."""
    VR, VC, size = tile.valid_row, tile.valid_col, tile.Element.itemsize
    along, n = (VC, VR) if tile.is_nd() else (VR, VC)      # burst length, bursts
    end = -(-along * size // 32) * 32 // size
    if VR == 0 or VC == 0 or end == along:
        return
    at = _line_tails(tile, n, along, end, tile.is_nd())
    lead = vals.shape[:-2] if vals.ndim > 2 else ()     # (N,) on a core of N instances
    grid = vals.reshape(*lead, VR, VC)
    first = grid[..., :1] if tile.is_nd() else np.swapaxes(grid[..., :1, :], -1, -2)
    put(at, np.broadcast_to(first, (*lead, *at.shape)) if pad is None else np.broadcast_to(pad, at.shape))


@instruction("TSTORE")
def TSTORE(gt: GlobalTensor, tile: Tile) -> None:
    """Tile → GM: the inverse of TLOAD over the tile's valid region."""
    core = current_core()
    require_valid_getters(core, "TSTORE", "tstore", tile=tile)
    if _four_bit(core, tile, gt, "TSTORE"):
        return
    g, a = _tile_gt_addrs(core, tile, gt, "TSTORE")
    arena = core.arena(tile.space)
    arena.check_many(a, tile.Element.itemsize, "TSTORE read", core.target.name, code=F_OTHER)
    core.gm.check_many(g, tile.Element.itemsize, "TSTORE write", core.target.name, code=F_DST)
    bursts = _store_bursts(core, tile, gt, g, a)
    if bursts is not None and kernels.run(core, bursts):     # the burst engine (kernel backends)
        return
    if core.all_at_once:            # batch rule: the same addresses in every live instance
        vals = core.banks[tile.space].gather_all(a, tile.Element)
        core.banks["gm"].scatter_all(g, vals, core.live)
    else:
        core.gm.scatter(g, arena.gather(a, tile.Element))
    if bursts is not None:
        record_bursts(core, bursts, bursts.src, bursts.dst, bursts.length)


def _store_bursts(core, tile: Tile, gt: GlobalTensor, g, a):
    """The store as the bursts the NPUs issue (``DmaRules.tstore_bursts``): an ND -> ND or DN ->
    DN Vec tile's lines; None otherwise (the simulator's element copy, other layouts)."""
    if not core.target.dma.tstore_bursts or tile.Loc != TileType.Vec \
            or not ((gt.layout.name == "ND" and tile.is_nd()) or (gt.layout.name == "DN" and tile.is_dn())):
        return None
    return kernels.store_bursts(tile, g, a)
