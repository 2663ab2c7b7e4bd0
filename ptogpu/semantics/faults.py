"""Per-instance first faults of a batch-first step (a core of N running all at once), and the
single core's raise-at-once, behind one interface: the semantics record a fault the same way
on both."""
from __future__ import annotations

import numpy as np

from ..errors import PtoFault


class Faults:
    """Per-instance first faults of a batch-first step: on one instance a fault is raised at
    once (the single core); running all at once, each faulting instance is recorded and drops
    out of the step (it writes nothing) while the others go on."""

    def __init__(self, core, ks: np.ndarray) -> None:
        self.core, self.ks = core, ks
        self.ok = np.ones(len(ks), bool)
        self.found: dict[int, PtoFault] = {}
        self.groups: list = []

    def add(self, j: int, fault: PtoFault) -> None:
        """Instance ``j`` of the step faults with ``fault`` (built by the rule, no check run)."""
        if not self.ok[j]:
            return
        if not self.core.all_at_once:
            raise fault
        self.found[int(self.ks[j])], self.ok[j] = fault, False

    def done(self) -> None:
        if self.found:
            self.core.fault_instances(self.found)
        for g in self.groups:
            self.core.fault_group(*g)

    def first_of(self, bad: np.ndarray, make, code: int | None = None) -> None:
        """Each instance of the step (a row of ``bad`` each, any trailing shape) with a True in
        its row faults with ``make(j, position)``, the position of its first True; with its
        fault ``code`` given, built only when read."""
        flat = bad.reshape(len(self.ks), -1)
        if not flat.size:
            return
        hit = flat.any(axis=1)
        if not hit.any():
            return
        first = flat.argmax(axis=1)
        if code is not None and self.core.all_at_once:      # every one at once, built when read
            js = np.flatnonzero(hit & self.ok)
            self.ok[js] = False
            fj, shape = first[js], bad.shape[1:]
            self.groups.append((self.ks[js], lambda i: make(int(js[i]), np.unravel_index(int(fj[i]), shape)), code))
            return
        for j in np.flatnonzero(hit):
            self.add(int(j), make(int(j), np.unravel_index(int(first[j]), bad.shape[1:])))


def at(fault: PtoFault, row, col) -> PtoFault:
    """``fault`` naming the destination element (row, col) whose access it is (``element``:
    what the batch API reports as the first faulting element)."""
    fault.element = (int(row), int(col))
    return fault
