"""TMOV per target, for Vec and Mat tiles (the table ``target.tmov`` reads; the vendor's
include/pto/cpu/TMov.hpp, include/pto/npu/a2a3/TMov.hpp, include/pto/npu/a5/TMov.hpp and
TExtract.hpp, summarised in docs/tmov.md)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TmovRules:
    engine: str              # "elements": the simulator's GetElement/SetElement, converting values, any
                             # layout and Loc; "bursts": A2/A3's 32-byte-block UB copies; "vregs": A5's
                             # predicated register copy (ND->NZ: vsstb fractal columns)
    pairs: tuple[tuple[str, str], ...] | None   # (src Loc, dst Loc) that compile (None: any)
    mat_to_vec: str          # "copy" | "error" (static_assert) | "noop" (compiles, writes nothing)
    same_shape: bool         # static_assert Src::Rows == Dst::Rows && Src::Cols == Dst::Cols
    same_size: bool          # static_assert sizeof(src T) == sizeof(dst T)


TABLES = {
    # cpu/TMov.hpp:20-34
    "cpu": TmovRules(engine="elements", pairs=None, mat_to_vec="copy", same_shape=False, same_size=False),
    # a2a3/TMov.hpp:78-167
    "a2a3": TmovRules(engine="bursts", pairs=(("Vec", "Vec"),), mat_to_vec="error", same_shape=True, same_size=True),
    # a5/TMov.hpp:495-797, TExtract.hpp:398-423
    "a5": TmovRules(engine="vregs", pairs=(("Vec", "Vec"), ("Vec", "Mat"), ("Mat", "Vec")), mat_to_vec="noop",
                    same_shape=False, same_size=False),
}
