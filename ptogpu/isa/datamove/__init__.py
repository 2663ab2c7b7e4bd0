"""TLOAD / TSTORE (and TASSIGN): GM <-> tile copies through the DMA burst engine (docs/dma.md). Its
``api`` module holds the calls and their checks; the burst engine they run is shared
(``semantics/dma.py``, ``backend/dma_kernels.py``: MGATHER's A2/A3 Row and GM->L1 bursts and the
``asc`` copies use it too)."""
from ..declare import Declined, Form, Instruction

DATAMOVE = Instruction(
    name="datamove", calls=("TLOAD", "TSTORE"), doc="docs/dma.md", spec="other-ops.md §D",
    forms=(Form("TLOAD(tile, gm)", "GM -> tile through the target's DMA bursts"),
           Form("TSTORE(gm, tile)", "tile -> GM")),
    rule_fields={},
    hooks={"api": "ptogpu.isa.datamove.api",
           "fuzz": Declined("no campaign of its own: kernel campaigns run it, and compare what it writes"),
           "repro": Declined("no campaign of its own"),
           "native": "dma.cu", "cupy": "dma.cu",
           "simt": Declined("a DMA copy: bursts, not lanes (ptogpu.Trace records them)")},
    coverage="Reg::Gather/GatherB, the DMA burst engine (TLOAD/TSTORE/asc_copy_*)")
