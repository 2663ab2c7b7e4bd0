"""Static checks the gather-family instructions share (MGATHER and MSCATTER): the NPUs' index
shapes, A2/A3's layouts, and operands that have no address yet."""
from __future__ import annotations

from ..enums import Coalesce, Layout
from ..errors import F_OTHER, PtoFault, check
from ..tile import Tile

U32 = (1 << 32) - 1


def gate(quirk: bool):
    """A5's "> 0" gates: on uint32-cast values when the quirk is on (DYNAMIC -> 0xFFFFFFFF)."""
    if quirk:
        return (lambda v: v & U32), (lambda v: (v & U32) > 0)
    return (lambda v: v), (lambda v: v > 0)


def index_shape_checks(t: str, mode: Coalesce, prefix: str, data_name: str, tile_name: str, data, idx,
                       table, *, quirk: bool | None, rx1: bool) -> None:
    """The index-shape rules MGATHER and MSCATTER share on the NPUs: Row index tiles ``[1, R]``
    (A5 also ``[R, 1]``) and A5's ``staticShape[4] == ValidCol``; Elem index valid shape = the
    data tile's. ``quirk`` None: A2/A3's int gates (dynamic dims skipped); else A5's, on
    uint32-cast values when True (DYNAMIC -> 0xFFFFFFFF)."""
    cast, pos = gate(bool(quirk)) if quirk is not None else ((lambda v: v), (lambda v: v > 0))
    f = (lambda v: f"{v:#x}") if quirk is not None else str
    dvr, dvc = cast(data.ValidRow), cast(data.ValidCol)
    ivr, ivc = cast(idx.ValidRow), cast(idx.ValidCol)
    if mode == Coalesce.Row:
        if pos(data.ValidRow) and pos(idx.ValidRow) and pos(idx.ValidCol):
            check((ivr == 1 and ivc == dvr) or (rx1 and ivr == dvr and ivc == 1),
                  f"{prefix}<Row>: index tile is [1, R]" + (" or [R, 1]" if rx1 else ""), t,
                  f"idx valid {f(ivr)}x{f(ivc)}, {data_name} valid rows {f(dvr)}")
        s4 = table.staticShape[4]
        if quirk is not None and pos(data.ValidCol) and pos(s4):
            check(cast(s4) == dvc, f"{prefix}<Row>: GlobalTable::staticShape[4] == {tile_name}::ValidCol",
                  t, f"staticShape[4] = {f(cast(s4))}, {data_name} ValidCol = {f(dvc)}")
        return
    if pos(idx.ValidRow) and pos(data.ValidRow):
        check(ivr == dvr, f"{prefix}<Elem>: idx ValidRow == {data_name} ValidRow", t, f"{f(ivr)} != {f(dvr)}")
    if pos(idx.ValidCol) and pos(data.ValidCol):
        check(ivc == dvc, f"{prefix}<Elem>: idx ValidCol == {data_name} ValidCol", t, f"{f(ivc)} != {f(dvc)}")


def a2a3_layout_checks(t: str, prefix: str, data_name: str, cls: str, data, idx, table) -> None:
    """A2/A3's layout rules for MGATHER and MSCATTER alike: a RowMajor unboxed index tile, an ND
    or NZ table paired with an ND or NZ data tile, 32-byte rows, and the NZ table's shape."""
    check(idx.isRowMajor, f"{prefix}: index tile is RowMajor", t, "idx is ColMajor")
    check(idx.SLayout.name == "NoneBox", f"{prefix}: index tile SFractal == NoneBox", t,
          f"idx SLayout is {idx.SLayout.name}")
    check(table.layout in (Layout.ND, Layout.NZ), f"{prefix}: table layout ND or NZ", t,
          f"table layout is {table.layout.name}")
    nd_pair = table.layout == Layout.ND and data.is_nd()
    nz_pair = table.layout == Layout.NZ and data.is_nz()
    check(nd_pair or nz_pair, f"{prefix}: (ND table, ND {data_name}) or (NZ table, NZ {data_name})", t,
          f"table {table.layout.name} with {data_name} {data.BLayout.name}/{data.SLayout.name}")
    size = data.Element.itemsize
    check(data.Cols * size % 32 == 0, f"{prefix}: {cls}::Cols*sizeof(T) % 32 == 0", t, f"Cols = {data.Cols}")
    if table.layout == Layout.NZ:
        c0 = 32 // size
        check(table.staticShape[3] == 16, f"{prefix}<NZ>: staticShape[3] == 16", t,
              f"staticShape[3] = {table.staticShape[3]}")
        check(table.staticShape[4] == c0, f"{prefix}<NZ>: staticShape[4] == C0", t,
              f"staticShape[4] = {table.staticShape[4]}, C0 = {c0}")
        check(data.Cols % c0 == 0, f"{prefix}<NZ>: {cls}::Cols % C0 == 0", t, f"Cols = {data.Cols}")
        check(data.Rows % 16 == 0, f"{prefix}<NZ>: {cls}::Rows % 16 == 0", t, f"Rows = {data.Rows}")


def require_assigned(t: str, *operands, name: str = "MGATHER") -> None:
    """A tile operand without a TASSIGNed address has no storage: a PtoFault, not a crash."""
    for what, x in operands:
        if isinstance(x, Tile) and x.addr is None:
            raise PtoFault(f"{what} tile {type(x).__name__} has no address: TASSIGN it first",
                           rule=f"{name} operand", target=t, code=F_OTHER)
