"""TLOAD / TSTORE (and TASSIGN): GM <-> tile copies through the DMA burst engine (docs/dma.md). Its
``api`` module holds the calls and their checks; the burst engine they run is shared
(``semantics/dma.py``, ``backend/dma_kernels.py``: MGATHER's A2/A3 Row and GM->L1 bursts and the
``asc`` copies use it too)."""
from ..declare import Declined, Form, Instruction, Rule

RULES = (
    Rule("pad_values", "TLOAD pad value",
         "docs/dma.md: the simulator's numeric_limits over the whole tile vs the NPUs' GetPadValue in each "
         "burst's 32-byte filler"),
    Rule("tload_fill", "TLOAD whole-tile fill",
         "docs/dma.md: the simulator fills the whole tile with its pad value before the copy"),
    Rule("tload_nd2nz", "TLOAD nd2nz tail", "docs/dma.md: ND -> NZ Mat loads write each line's last C0 block "
         "past the valid region as 0"),
    Rule("tload_mat", "TLOAD Mat bursts", "docs/dma.md: A5 moves every row the tensor's shape spans into an "
         "ND/DN Mat tile, each burst right-padded from the L1 pad register"),
)
"""TLOAD's rule fields (fields of the target itself). No campaign of its own: kernel campaigns
explain a TLOAD that diverges first by them (their class bits: ``fuzz.rules.WIDE``)."""

DATAMOVE = Instruction(
    name="datamove", calls=("TLOAD", "TSTORE"), doc="docs/dma.md", spec="other-ops.md §D",
    forms=(Form("TLOAD(tile, gm)", "GM -> tile through the target's DMA bursts"),
           Form("TSTORE(gm, tile)", "tile -> GM")),
    spaces=("ub", "l1", "gm"), rules=RULES,
    rule_fields={"ub": ("pad_values", "tload_fill", "quirks"),
                 "l1": ("pad_values", "tload_fill", "tload_nd2nz", "tload_mat"),
                 "gm": ()},               # (TSTORE: none of its own; any field the targets differ in)
    hooks={"api": "ptogpu.isa.datamove.api",
           "fuzz": Declined("no campaign of its own: kernel campaigns run it, and compare what it writes"),
           "repro": Declined("no campaign of its own"),
           "native": "dma.cu", "cupy": "dma.cu",
           "simt": Declined("a DMA copy: bursts, not lanes (ptogpu.Trace records them)")},
    coverage="Reg::Gather/GatherB, the DMA burst engine (TLOAD/TSTORE/asc_copy_*)")
