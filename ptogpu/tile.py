"""``Tile[Loc, Element, Rows, Cols, BLayout, RowValid, ColValid, SLayout, SFractalSize, PadVal, Compact]``.

A Tile class mirrors the C++ template (same parameter order and defaults) and runs the
template's static checks when it is created; an instance is a typed view of UB (Vec) or L1
(Mat) once ``TASSIGN`` gives it an address. Tiles that overlap alias, as on hardware.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import dtypes
from .enums import DYNAMIC, BLayout, CompactMode, PadValue, SLayout, TileType
from .pad_values import CustomPad, as_pad
from .errors import F_OTHER, PtoCheckError, PtoError, PtoFault, check
from .interop import as_numpy, cast_exact
from .interop import dlpack as _dlpack

_SPACE = {TileType.Vec: "ub", TileType.Mat: "l1"}


def _target_name() -> str:
    from .core import CURRENT
    stack = CURRENT.get()
    return stack[-1].target.name if stack else "any target"


class TileUsageError(PtoCheckError, TypeError):
    """A constructor/setter form the C++ Tile does not have for these template arguments."""


class ValidDimError(PtoFault, ValueError):
    """A negative runtime valid dim."""


def _require_getter(tile, dim: str, rule: str, who: str, name: str = "tile",
                    target: str | None = None) -> None:
    """pto_tile.hpp:1591-1613 defines ``Get<dim>()`` only for a static dim > 0 or DYNAMIC: on a
    tile whose static ``dim`` is 0, ``who``'s call does not compile."""
    if getattr(type(tile), dim) == 0:
        raise PtoCheckError(f"{name} {type(tile).__name__} has a static {dim} of 0 and {who} calls "
                            f"{name}.Get{dim}(), which pto_tile.hpp defines only for a {dim} > 0 or "
                            "DYNAMIC (-1): it does not compile (a dynamic dim of 0 is an empty "
                            "region)", rule=rule, target=target or _target_name())


def require_valid_getters(core, instr: str, key: str, **operands) -> None:
    """The compile-time verdict on static valid dims of 0 for one instruction call: every operand
    whose role (its name less a trailing 0/1: ``dst0`` -> ``dst``) the target's
    ``valid_getters.<key>`` lists has its ``GetValidRow()``/``GetValidCol()`` called by the
    target's code, so a static 0 there is a PtoCheckError naming the instruction, the operand and
    the target; ``<key>_asserts`` roles only while the target's run-time asserts are compiled in
    (its assert quirk). Operands of other roles are not judged: their code never calls a Get."""
    from .errors import asserts_live
    g = core.target.valid_getters
    always = getattr(g, key)
    asserted = getattr(g, key + "_asserts", ()) if asserts_live(core) else ()
    t = core.target.name
    for roles, where in ((always, ""), (asserted, f" in its run-time {core.target.assert_macro} "
                                                  f"(compiled in: quirk {core.target.assert_quirk} on)")):
        for name, tile in operands.items():
            if isinstance(tile, Tile) and name.rstrip("01") in roles:
                for dim in ("ValidRow", "ValidCol"):
                    _require_getter(tile, dim, f"{instr}: {name}.Get{dim}() needs a static {dim} > 0 "
                                    "or DYNAMIC", f"{t}'s {instr}{where}", name, t)


class TileMeta(type):
    def __getitem__(cls, params) -> type:
        if not isinstance(params, tuple):
            params = (params,)
        if len(params) < 4 or len(params) > 11:
            raise TypeError("Tile[Loc, Element, Rows, Cols, BLayout=RowMajor, RowValid=Rows, "
                            "ColValid=Cols, SLayout=NoneBox, SFractalSize=512, PadVal=PadValue.Null, "
                            "Compact=CompactMode.Null]")
        loc, elem, rows, cols = params[:4]
        blayout = params[4] if len(params) > 4 else BLayout.RowMajor
        rv = params[5] if len(params) > 5 else rows
        cv = params[6] if len(params) > 6 else cols
        slayout = params[7] if len(params) > 7 else SLayout.NoneBox
        fsize = params[8] if len(params) > 8 else 512
        pad = as_pad(params[9]) if len(params) > 9 else PadValue.Null
        compact = CompactMode(params[10]) if len(params) > 10 else CompactMode.Null
        name = dtypes.name_of(elem)
        if name in dtypes.FOUR_BIT:
            _four_bit_on_target(name)
        return _make_tile(TileType(loc), name, int(rows), int(cols),
                          BLayout(blayout), int(rv), int(cv), SLayout(slayout), int(fsize), pad, compact)


def _four_bit_on_target(elem: str) -> None:
    """A 4-bit element type exists on the targets whose code has it (the simulator: int4b_t and
    both float4 types; A2/A3: int4b_t; A5: the float4 types, void elsewhere: arch_capability.hpp)."""
    from .core import CURRENT
    stack = CURRENT.get()
    if stack and elem not in stack[-1].target.element_types:
        t = stack[-1].target
        raise PtoCheckError(f"{t.title} has no element type {elem} (4-bit types there: "
                            f"{', '.join(x for x in dtypes.FOUR_BIT if x in t.element_types) or 'none'})",
                            rule="Tile: element type", target=t.name)


def _inner_box(slayout: SLayout, fsize: int, c0: int) -> tuple[int, int]:
    """``getInnerRow/Col`` of pto_tile.hpp: the 1024 and 32 (MX) fractal sizes fix the box
    whatever the SLayout (a NoneBox tile gets 16x16, or 2x16 for MX); 512 boxes only boxed
    layouts."""
    if fsize == 1024:
        return 16, 16
    if fsize == 32:
        return (16, 2) if slayout == SLayout.RowMajor else (2, 16)
    if slayout == SLayout.NoneBox:
        return 1, 1
    return (16, c0) if slayout == SLayout.RowMajor else (c0, 16)


@lru_cache(maxsize=None)
def _make_tile(loc, elem, rows, cols, blayout, rv, cv, slayout, fsize, pad=PadValue.Null,
               compact=CompactMode.Null) -> type:
    t = _target_name()
    dt = dtypes.as_dtype(elem)
    size = dt.itemsize
    check(rows > 0, "Tile: Rows > 0", t, f"Rows = {rows}")
    check(cols > 0, "Tile: Cols > 0", t, f"Cols = {cols}")
    check(rv == DYNAMIC or 0 <= rv <= rows, "Tile: ValidRow <= Rows", t,
          f"RowValid = {rv}, Rows = {rows}")
    check(cv == DYNAMIC or 0 <= cv <= cols, "Tile: ValidCol <= Cols", t,
          f"ColValid = {cv}, Cols = {cols}")
    check(fsize in (512, 1024, 32), "Tile: SFractalSize in {512, 1024, 32}", t,
          f"SFractalSize = {fsize}")
    c0 = 32 // size if size <= 32 else 1
    ir, ic = _inner_box(slayout, fsize, c0)
    check(cols % ic == 0, "Tile: Cols % InnerCols == 0", t,
          f"Cols = {cols}, inner box {ir}x{ic}")
    if not (loc == TileType.Vec or fsize == 32 or rows == 1):
        check(rows % ir == 0, "Tile: Rows % InnerRows == 0 (non-Vec, unless MX or Rows == 1)", t,
              f"Rows = {rows}, inner box {ir}x{ic}")
    if slayout == SLayout.NoneBox:
        if blayout == BLayout.RowMajor:
            check(cols * size % 32 == 0, "Tile: 32-byte rule (RowMajor: Cols*sizeof(T) % 32 == 0)",
                  t, f"Cols = {cols}, sizeof({elem}) = {size}")
        else:
            check(rows * size % 32 == 0, "Tile: 32-byte rule (ColMajor: Rows*sizeof(T) % 32 == 0)",
                  t, f"Rows = {rows}, sizeof({elem}) = {size}")
    name = (f"Tile[{loc.name}, {elem}, {rows}, {cols}, {blayout.name}, {rv}, {cv}, "
            f"{slayout.name}, {fsize}"
            + (f", {pad.name}" if pad is not PadValue.Null or compact is not CompactMode.Null else "")
            + (f", {compact.name}" if compact is not CompactMode.Null else "") + "]")
    ns = dict(Loc=loc, Element=dt, DType=elem, Rows=rows, Cols=cols, BLayout=blayout,
              ValidRow=rv, ValidCol=cv, SLayout=slayout, SFractalSize=fsize, PadVal=pad, Compact=compact,
              InnerRows=ir, InnerCols=ic, C0=c0, Numel=rows * cols,
              nbytes=rows * cols * size // (2 if dtypes.packed(elem) else 1),    # (GetSizeInBytes)
              isRowMajor=blayout == BLayout.RowMajor,
              RowStride=cols if blayout == BLayout.RowMajor else 1,
              ColStride=1 if blayout == BLayout.RowMajor else rows)
    return TileMeta(name, (Tile,), ns)


class Tile(metaclass=TileMeta):
    """Base of every Tile class; instantiate ``Tile[...]`` classes, not this."""

    Loc: TileType
    Element: np.dtype
    DType: str
    Rows: int
    Cols: int
    BLayout: BLayout
    ValidRow: int
    ValidCol: int
    SLayout: SLayout
    SFractalSize: int
    PadVal: PadValue | CustomPad
    Compact: CompactMode

    def __init__(self, *valid: int) -> None:
        if type(self) is Tile:
            raise TypeError("use Tile[Loc, Element, Rows, Cols, ...] to make a Tile class")
        # A static valid dim of 0 constructs (Tile() exists for it, pto_tile.hpp:1458); only its
        # GetValidRow/Col do not exist: require_valid_getters judges the instructions that call them.
        dyn_r, dyn_c = self.ValidRow == DYNAMIC, self.ValidCol == DYNAMIC
        vr, vc = self.ValidRow, self.ValidCol
        if len(valid) == 2:
            if not (dyn_r and dyn_c):
                raise TileUsageError(f"{type(self).__name__}(vr, vc) needs both valid dims dynamic (-1)",
                                     rule="Tile(VR, VC) constructor")
            vr, vc = valid
        elif len(valid) == 1:
            if dyn_r == dyn_c:
                raise TileUsageError(f"{type(self).__name__}(v) needs exactly one dynamic valid dim",
                                     rule="Tile(V) constructor")
            if dyn_r:
                vr = valid[0]
            else:
                vc = valid[0]
        elif valid:
            raise TileUsageError("Tile(), Tile(valid) or Tile(valid_row, valid_col)",
                                 rule="Tile constructor")
        # Default-constructed dynamic dims are the full extent (what the C++ default mask holds).
        self._vr = self.Rows if vr == DYNAMIC else int(vr)
        self._vc = self.Cols if vc == DYNAMIC else int(vc)
        for v in (self._vr, self._vc):
            if v < 0:
                raise ValidDimError(f"valid dims must be >= 0, got {v}", rule="Tile valid dims")
        self.core = None
        self.addr: int | None = None
        self._auto = None               # (placer, space, key) while placed automatically
        from .placement import site
        self._site = site()            # where the kernel made it (automatic placement's errors)

    # -- valid region ------------------------------------------------------------------------
    @property
    def valid_row(self) -> int:
        return self._vr

    @property
    def valid_col(self) -> int:
        return self._vc

    def GetValidRow(self) -> int:
        """``GetValidRow()``: defined for a static ValidRow > 0 or DYNAMIC only (PtoCheckError)."""
        _require_getter(self, "ValidRow", "Tile::GetValidRow() needs a static ValidRow > 0 or DYNAMIC",
                        "this code")
        return self._vr

    def GetValidCol(self) -> int:
        """``GetValidCol()``: defined for a static ValidCol > 0 or DYNAMIC only (PtoCheckError)."""
        _require_getter(self, "ValidCol", "Tile::GetValidCol() needs a static ValidCol > 0 or DYNAMIC",
                        "this code")
        return self._vc

    def set_valid_row(self, v: int) -> None:
        if self.ValidRow != DYNAMIC:
            raise TileUsageError("SetValidRow needs a dynamic (-1) RowValid", rule="SetValidRow")
        if int(v) < 0:
            raise ValidDimError("valid row must be >= 0", rule="SetValidRow")
        self._vr = int(v)

    def set_valid_col(self, v: int) -> None:
        if self.ValidCol != DYNAMIC:
            raise TileUsageError("SetValidCol needs a dynamic (-1) ColValid", rule="SetValidCol")
        if int(v) < 0:
            raise ValidDimError("valid col must be >= 0", rule="SetValidCol")
        self._vc = int(v)

    SetValidRow = set_valid_row
    SetValidCol = set_valid_col

    def set_valid_shape(self, vr: int, vc: int) -> None:
        self.set_valid_row(vr)
        self.set_valid_col(vc)

    # -- layout ------------------------------------------------------------------------------
    @classmethod
    def offsets(cls, r, c) -> np.ndarray:
        """Element offsets of logical (r, c), the full layout rule (fractal boxes included)."""
        r = np.asarray(r, np.int64)
        c = np.asarray(c, np.int64)
        R, C = cls.Rows, cls.Cols
        if cls.SLayout == SLayout.NoneBox:
            return r * C + c if cls.isRowMajor else c * R + r
        ir_, ic_ = cls.InnerRows, cls.InnerCols
        sr, ir, sc, ic = r // ir_, r % ir_, c // ic_, c % ic_
        inner = ir_ * ic_
        if not cls.isRowMajor and cls.SLayout == SLayout.RowMajor:      # Nz
            return sc * R * ic_ + sr * inner + ir * ic_ + ic
        if cls.isRowMajor and cls.SLayout == SLayout.ColMajor:          # Zn
            return sr * C * ir_ + sc * inner + ic * ir_ + ir
        if cls.isRowMajor:                                              # Zz
            return sr * C * ir_ + sc * inner + ir * ic_ + ic
        return sc * R * ic_ + sr * inner + ic * ir_ + ir                # Nn

    @classmethod
    def plain_offsets(cls, r, c) -> np.ndarray:
        """A5 ``tile_offset_2d``: Row/ColMajor on the padded extent, SLayout ignored."""
        r = np.asarray(r, np.int64)
        c = np.asarray(c, np.int64)
        return r * cls.Cols + c if cls.isRowMajor else c * cls.Rows + r

    @classmethod
    def is_nz(cls) -> bool:
        return (not cls.isRowMajor and cls.SLayout == SLayout.RowMajor
                and cls.SFractalSize == 512)

    @classmethod
    def is_zn(cls) -> bool:
        return cls.isRowMajor and cls.SLayout == SLayout.ColMajor and cls.SFractalSize == 512

    @classmethod
    def is_nd(cls) -> bool:
        return cls.isRowMajor and cls.SLayout == SLayout.NoneBox

    @classmethod
    def is_dn(cls) -> bool:
        return not cls.isRowMajor and cls.SLayout == SLayout.NoneBox

    # -- memory ------------------------------------------------------------------------------
    @property
    def space(self) -> str:
        try:
            return _SPACE[self.Loc]
        except KeyError:
            raise PtoError(f"TileType.{self.Loc.name} buffers are not emulated (only Vec and Mat)",
                           rule="Tile Loc") from None

    def shares_bytes(self, other: "Tile") -> bool:
        """Both tiles' storage (Rows x Cols elements) has a byte in common in one arena."""
        return (self.space == other.space and self.addr < other.addr + other.nbytes
                and other.addr < self.addr + self.nbytes)

    def _bound(self):
        if self.addr is None and self.Loc in (TileType.Vec, TileType.Mat):
            from .core import current_core
            try:
                core = current_core()
            except Exception:
                core = None
            if core is not None:
                core.placer.place(self)
        if self.addr is None:
            raise PtoFault(f"{type(self).__name__} has no address: TASSIGN it first",
                           rule="unassigned tile", code=F_OTHER)
        return self.core.arena(self.space)

    def _grid(self):
        arena = self.core.arena(self.space) if self.core is not None else None
        if arena is not None and self._vr * self._vc * self.Element.itemsize > arena.size:
            raise PtoFault(f"valid region {self._vr}x{self._vc} of {type(self).__name__} cannot "
                           f"fit in {arena.name.upper()} ({arena.size} bytes)",
                           rule="access outside arena", target=self.core.target.name, code=F_OTHER)
        z = np.zeros((self._vr, self._vc), np.int64)      # (cheaper than meshgrid)
        if z.size == 0:                            # empty: no arange of the other dim (2^40 x 0)
            return z, z
        return np.arange(self._vr)[:, None] + z, np.arange(self._vc) + z

    def element_addrs(self) -> np.ndarray:
        """Byte addresses of the valid region, shape (valid_row, valid_col)."""
        r, c = self._grid()
        return self.addr + self.offsets(r, c) * self.Element.itemsize

    def numpy(self) -> np.ndarray:
        """The valid region as a (valid_row, valid_col) array of the element type; on a core of
        N instances, (N, valid_row, valid_col)."""
        arena = self._bound()
        if dtypes.packed(self.Element):
            return self._codes(arena)
        addrs = self.element_addrs()
        arena.check_many(addrs, self.Element.itemsize, "Tile.numpy", code=F_OTHER)
        if self.core.reads_all:         # a core of N: (N, valid_row, valid_col), or one in a program
            return self.core.answer(self.core.banks[self.space].gather_all(addrs, self.Element))
        return arena.gather(addrs, self.Element)

    def set(self, array) -> None:
        """Write the valid region from anything array-like (NumPy, CuPy, torch, DLPack): the
        element type bytes-exact, other types only where every value survives the cast
        (:mod:`ptogpu.interop`; a lossy cast is a ValueError naming the first bad value)."""
        arena = self._bound()
        a = as_numpy(array)
        batched = self.core.batched
        shapes = [(self._vr, self._vc)] + ([(self.core.batch, self._vr, self._vc)] if batched else [])
        if a.shape not in shapes:
            raise ValueError(f"{type(self).__name__}.set: expected shape "
                             f"{' or '.join(map(str, shapes))}, got {a.shape}")
        st = dtypes.storage(self.Element)
        a = cast_exact(a, self.Element, f"{type(self).__name__}.set")
        if self.core.replaying():       # a resumed program's replayed write: its instances hold it
            return                      # (as Core.host_write; a merged path's log is another's)
        if dtypes.packed(self.Element):
            return self._set_codes(arena, a)
        addrs = self.element_addrs()
        arena.check_many(addrs, st.itemsize, "Tile.set", code=F_OTHER)
        if self.core.reads_all:         # every live instance, or (N, vr, vc): a region each
            return self.core.banks[self.space].scatter_all(addrs, a.view(st), self.core.live)
        arena.scatter(addrs, a)

    def _offsets(self) -> np.ndarray:
        r, c = self._grid()
        return np.asarray(self.offsets(r, c), np.int64)

    def _codes(self, arena) -> np.ndarray:
        """A float4 tile's valid region as its elements' 4-bit codes (uint8, 0..15)."""
        from . import nibbles
        o = self._offsets()
        arena.check_many(nibbles.split(self.addr, o)[0], 1, "Tile.numpy", code=F_OTHER)
        if self.core.reads_all:
            bank = self.core.banks[self.space]
            return self.core.answer(nibbles.read(lambda a: bank.gather_all(a, dtypes.uint8), self.addr, o))
        return nibbles.read(lambda a: arena.gather(a, dtypes.uint8), self.addr, o)

    def _set_codes(self, arena, a: np.ndarray) -> None:
        """Each valid element's nibble from the codes in ``a`` (0..15; the other nibble kept)."""
        from . import nibbles
        if (np.asarray(a) > 15).any():
            raise ValueError(f"{type(self).__name__}.set: a {self.DType} element is a 4-bit code, 0..15")
        o = self._offsets()
        arena.check_many(nibbles.split(self.addr, o)[0], 1, "Tile.set", code=F_OTHER)
        core = self.core
        ks = np.flatnonzero(core.live) if core.reads_all else core.step_instances()
        if np.ndim(a) == 3:             # (N, vr, vc): each live instance its own region
            a = np.asarray(a)[ks]
        bank = core.banks[self.space]
        nibbles.write(lambda x: bank.take_same(ks, x, dtypes.uint8), lambda x, v: bank.put(ks, x, v),
                      self.addr, o, a)

    # Read-only array protocol over the valid region (what numpy() returns), so a tile reads
    # like the array it holds: t.shape, t.dtype, len(t), t[i, j], t[1:, ::2].
    @property
    def shape(self) -> tuple[int, int]:
        return (self._vr, self._vc)

    @property
    def dtype(self) -> np.dtype:
        return self.Element

    ndim = 2

    @property
    def size(self) -> int:
        return self._vr * self._vc

    def __len__(self) -> int:
        return self._vr

    def __bool__(self) -> bool:          # a tile is an object first: one with no valid rows is not "false"
        return True

    def __getitem__(self, key):
        return self.numpy()[key]

    def __setitem__(self, key, value) -> None:
        raise TypeError(f"{type(self).__name__} is read-only through [] (its bytes live in the "
                        f"emulated {self.space.upper()}): write the valid region with set(), or an instruction")

    def __iter__(self):
        return iter(self.numpy())

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """``np.asarray(tile)``: the valid region (a copy), as :meth:`numpy`."""
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export of the valid region (a host copy), for torch.from_dlpack & co."""
        return _dlpack(self.numpy(), type(self).__name__)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)                                   # kDLCPU: the arenas live in host memory

    def data(self) -> "TileData":
        """The tile's storage as C++'s ``tile.data()`` gives it: ``t.data()[i]`` reads storage
        element i (``r * Cols + c`` for a row-major tile). On a core of N running a program
        (``core.program()``) the element is every instance's value
        (:class:`~ptogpu.instance_values.InstanceValues`): a branch on it parks only the
        instances whose outcome differs."""
        self._bound()
        return TileData(self)

    def GetValue(self, offset: int):
        """``Tile::GetValue(offset)`` (pto_tile.hpp:1451): storage element ``offset`` of a Vec
        tile, read by the scalar unit (as ``data()[offset]``)."""
        self._vec_only("GetValue")
        return self.data()[offset]

    def SetValue(self, offset: int, value) -> None:
        """``Tile::SetValue(offset, val)`` (pto_tile.hpp:1444): the scalar unit stores ``value``
        (converted to the element type as C++ converts it; on a core of N running a program, an
        ``InstanceValues`` gives each instance its own) at storage element ``offset``."""
        self._vec_only("SetValue")
        from .core import on_instances
        on_instances(self._set_value, name="SetValue")(int(offset), value)

    def _vec_only(self, what: str) -> None:
        if self.Loc != TileType.Vec:
            raise PtoCheckError(f"{type(self).__name__}.{what}: Location of tile must be Location::Vec.",
                                rule=f"Tile::{what}")

    def _set_value(self, offset: int, value) -> None:
        from .instance_values import InstanceValues
        arena = self._bound()
        if not 0 <= offset < self.Rows * self.Cols:
            raise PtoFault(f"{type(self).__name__}.SetValue({offset}) is outside its {self.Rows * self.Cols} "
                           "elements", rule="Tile::SetValue bounds", code=F_OTHER)
        core = self.core
        ks = core.step_instances()
        st = dtypes.storage(self.Element)
        if isinstance(value, InstanceValues):
            v = np.asarray(value.values)[ks]
        else:
            v = np.full(len(ks), value)
        with np.errstate(all="ignore"):
            bits = v.astype(self.Element).view(st) if v.dtype != self.Element else v.view(st)
        addr = np.array([self.addr + offset * self.Element.itemsize], np.int64)
        arena.check_many(addr, self.Element.itemsize, "Tile::SetValue", code=F_OTHER)
        core.banks[self.space].put(ks, addr, bits.reshape(len(ks), 1))

    def raw(self) -> np.ndarray:
        """The whole padded storage (Rows*Cols elements, storage order), bytes-exact."""
        self._bound()
        return self.core.read(self.space, self.addr, self.nbytes).view(dtypes.storage(self.Element))

    def __repr__(self) -> str:
        where = "unassigned" if self.addr is None else f"{self.space}@{self.addr:#x}"
        return f"<{type(self).__name__} valid={self._vr}x{self._vc} {where}>"


class TileData:
    """``tile.data()``: element i of the tile's storage per ``[i]``; as an integer
    (``int(t.data())``, ``operator.index``: what ``(uint64_t)tile.data()`` gives a kernel) the
    tile's byte address, and ``t.data() + n`` the pointer to element n (a ``Ptr``: ``TASSIGN``
    takes either)."""
    __slots__ = ("tile",)

    def __init__(self, tile: Tile) -> None:
        self.tile = tile

    def __index__(self) -> int:
        return int(self.tile.addr)

    __int__ = __index__

    def __add__(self, n):
        from .memory import Ptr
        t = self.tile
        return Ptr(t.core, t.space, int(t.addr) + int(n) * t.Element.itemsize, t.Element)

    def __len__(self) -> int:
        return self.tile.Rows * self.tile.Cols

    def __getitem__(self, i):
        t = self.tile
        i = int(i)
        if not 0 <= i < len(self):
            raise PtoFault(f"{type(t).__name__}.data()[{i}] is outside its {len(self)} elements",
                           rule="Tile.data() bounds", code=F_OTHER)
        size = t.Element.itemsize
        st = dtypes.storage(t.Element)
        core = t.core
        addr = t.addr + i * size
        if core.batch > 1 and not core._executing:
            rows = core.banks[t.space].gather_all(np.array([addr], np.int64), t.Element).reshape(-1)
            if core._program:
                from .instance_values import InstanceValues
                return InstanceValues(core, rows.view(st))
            return rows.view(st)
        return core.arena(t.space).gather(np.array([addr], np.int64), t.Element).view(st)[0]
