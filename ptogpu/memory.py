"""Byte arenas (GM, UB, L1) and typed pointers into them.

Every access the emulator makes goes through :meth:`Arena.check`, so no address an
instruction computes can reach memory outside the arena: it becomes a :class:`PtoFault`.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from . import dtypes
from .errors import F_DST, F_OTHER, HostMemoryError, NotBatched, PtoFault
from .pages import PAGE, drop_pages, mapped_rows, sparse_zeros, written_pages

SPACES = ("gm", "ub", "l1")
GM_LIMIT = 1 << 32
"""Most bytes one Core's GM may hold (4 GiB): a larger allocation is a PtoFault, never a host
MemoryError. Host pages are only touched where the emulator writes."""


ALL = (0, 1 << 62)
"""Bank._dirty when anything may have been written."""
RANGE_MAX = 1 << 16
"""Widest range of writes a restore rewrites in every instance; wider (scattered writes into a
big table, say) goes by the pages written (a whole range would copy, and unshare, the table
in every instance)."""
KEEP_MAX = 256 << 20
"""Most bytes :meth:`Bank.mark` copies of the instances' own writes before it (past that,
restore says it cannot: make a new core)."""
MAP_MIN = 1 << 16
"""Bytes of a shared row from which :meth:`Bank.unshare` maps it into every instance
(copy-on-write) instead of copying it."""


def as_bytes(data) -> np.ndarray:
    """Raw bytes of a NumPy array, of ``bytes``, or of a list of byte values."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(bytes(data), np.uint8)
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return np.asarray(data, dtype=np.uint8).reshape(-1)


class Bank:
    """One memory of every instance of a core: instance ``k``'s bytes are ``flat[k*stride :
    k*stride + size]`` of one flat buffer, the layout a kernel launch over N blocks takes
    (``(flat, size, stride)``). Allocation is shared: every instance's memory has the same
    size and the same allocations, so one address names the same object in each."""

    def __init__(self, name: str, size: int, n: int = 1, *, growable: bool = False,
                 align: int = 64, limit: int = GM_LIMIT) -> None:
        self.name, self.n, self.growable, self.align, self.limit = name, int(n), growable, align, limit
        self.size = size                # bytes that exist (addresses [0, size)) in each instance
        self.top = 0                    # next free byte for allocation (GM)
        self.stride = self._cap(size)
        # Every instance holds the same bytes until one of them is written alone: ``flat`` is
        # then one row, which kernels see with stride 0 and NumPy steps broadcast (a table
        # put once for N instances is one copy, not N; a fresh core touches no pages).
        self.shared = self.n > 1
        self.flat = self._reserve()
        # how restore() gets the rows as made: dropping their pages gives zeros, or the
        # mapped image (``_mapped``); ``_made`` bytes are then written over their start; a
        # bank whose dropped pages would give neither is not restorable
        self._made: np.ndarray | None = None
        self._mapped, self._restorable = False, True
        # bytes written into the rows since mark(): None (none), (lo, hi) (a range holding
        # every write, in any instance), or ALL (a writable view was handed out)
        self._dirty: tuple[int, int] | None = None
        # bytes written into the rows since they were made, in any instance (what mark() keeps)
        self._own: tuple[int, int] | None = None

    def _cap(self, size: int) -> int:
        """Bytes kept per instance. One instance of GM reserves the whole limit at once, as
        zero pages the OS maps only when touched (a large calloc is an anonymous mapping), so
        growing never copies and untouched GM costs no memory; N instances reserve what exists
        and grow by copying (N reservations of 4 GiB would exhaust the address space)."""
        a = self.align
        if self.growable and self.n == 1:
            return max(-(-self.limit // a) * a, size, 64)
        return max(-(-size // a) * a, 64)

    def _reserve(self) -> np.ndarray:
        try:
            return sparse_zeros(self.n * self.stride) if self.n > 1 and not self.shared \
                else np.zeros(self.stride, np.uint8)
        except MemoryError:
            if not (self.growable and self.n == 1):
                raise self._no_room(self.stride) from None
            self.stride = max(-(-self.size // self.align) * self.align, 64)
            return np.zeros(self.stride, np.uint8)

    def _no_room(self, nbytes: int) -> HostMemoryError:
        """This machine cannot hold ``nbytes`` in each of the n instances (a host limit, never
        the target's fault)."""
        return HostMemoryError(f"{self.name.upper()}: {self.n} instances of {nbytes} bytes do not fit "
                               "in host memory (use fewer instances)")

    def rows(self) -> np.ndarray:
        """Every instance's bytes, shape (n, size): a read-only view (write through
        :meth:`write_rows` or :meth:`put`, which note what they wrote)."""
        if self.shared:
            return np.broadcast_to(self.flat[: self.size], (self.n, self.size))
        v = self.flat.reshape(self.n, self.stride)[:, : self.size]
        v.flags.writeable = False
        return v

    def _wrote(self, lo: int, hi: int) -> None:
        """Bytes [lo, hi) of some instances were written (what :meth:`restore` rewrites)."""
        d, o = self._dirty, self._own
        self._dirty = (lo, hi) if d is None else (min(d[0], lo), max(d[1], hi))
        self._own = (lo, hi) if o is None else (min(o[0], lo), max(o[1], hi))

    def writable(self) -> None:
        """A view that may write anywhere is being handed out (a launch, one instance's
        arena): :meth:`restore` can no longer tell what was written from the calls."""
        self._dirty = self._own = ALL

    def launch_view(self, written: bool, span: tuple[int, int] | None = None) -> tuple[np.ndarray, int, int]:
        """``(flat, size, stride)`` for a kernel launch over the n instances: a shared bank
        the kernel only reads goes as one row with stride 0. ``span``: the kernel writes only
        bytes [lo, hi) (noted as a write there; else it may write anywhere)."""
        if self.shared and not written:
            return self.flat, self.size, 0
        self.unshare()
        if written:
            self._wrote(max(span[0], 0), span[1]) if span else self.writable()
        return self.flat, self.size, self.stride

    def unshare(self, room: bool = True) -> None:
        """Give every instance its own copy of the shared row (before one is written alone).
        Only the row's bytes up to its last nonzero one are copied -- or, from
        :data:`MAP_MIN` bytes on, mapped copy-on-write (:func:`pages.mapped_rows`); the rest stay
        untouched zero pages. ``room=False``: the memory will not grow (a program's buffers
        are all allocated), so a mapped row keeps no room ahead (less to look through when
        the core is restored)."""
        if not self.shared:
            return
        row = self.flat
        nz = np.flatnonzero(row[: self.size])
        hi = int(nz[-1]) + 1 if nz.size else 0
        # a big row (a table) is mapped into every instance, copy-on-write: one copy for N
        if hi >= MAP_MIN:
            cap = -(-(self.stride if room else max(self.size, 64)) // PAGE) * PAGE
            flat = mapped_rows(row[:hi], self.n, cap)
            if flat is not None:
                self.flat, self.stride, self.shared = flat, cap, False
                self._made, self._mapped, self._image = None, True, row[:hi].copy()
                self._dirty = self._own = None
                return
        # the row's room ahead (GM grows by 1 MiB) when N of them fit, else just its size
        for cap in dict.fromkeys((self.stride, max(-(-self.size // self.align) * self.align, 64))):
            try:
                flat = sparse_zeros(self.n * cap)
                break
            except MemoryError:
                continue
        else:
            raise self._no_room(self.size)
        self._dirty = self._own = None
        if hi:                          # (the rows as made: not a write of their own)
            flat.reshape(self.n, cap)[:, :hi] = row[:hi]
        self.flat, self.stride, self.shared = flat, cap, False
        self._made, self._mapped = (row[:hi].copy() if hi else None), False

    def write_rows(self, addr: int, rows: np.ndarray) -> None:
        """Bytes ``rows`` (shape (1, m): the same in every instance, or (n, m): one row each)
        at ``addr`` of every instance (checked by the caller)."""
        m = rows.shape[1]
        if self.shared and rows.shape[0] == 1:
            self.flat[addr: addr + m] = rows[0]
            return
        self.unshare()
        self.flat.reshape(self.n, self.stride)[:, addr: addr + m] = rows
        self._wrote(addr, addr + m)

    def _typed(self, addrs: np.ndarray, size: int):
        """Rows as elements of ``size`` bytes and the element columns of ``addrs`` (a slice
        when they are one ascending run), or None when an address is not element-aligned."""
        if size not in (1, 2, 4, 8):
            return None
        a = np.asarray(addrs, np.int64).reshape(-1)
        if a.size and (a & (size - 1)).any():
            return None
        cols = a >> (size.bit_length() - 1)
        rows = self.flat.view(f"u{size}").reshape(1 if self.shared else self.n, self.stride // size)
        if a.size and cols[-1] - cols[0] == a.size - 1 and (a.size == 1 or (cols[1:] - cols[:-1] == 1).all()):
            return rows, slice(int(cols[0]), int(cols[0]) + a.size)
        return rows, cols

    def gather_all(self, addrs: np.ndarray, dtype) -> np.ndarray:
        """Elements of ``dtype`` at byte addresses ``addrs`` (checked by the caller) in every
        instance: shape (n, *addrs.shape)."""
        return self.take_same(np.arange(self.n), addrs, dtype)

    def scatter_all(self, addrs: np.ndarray, values: np.ndarray, live: np.ndarray | None = None) -> None:
        """Write ``values`` (shape addrs.shape: the same in every instance; or (n, *addrs.shape):
        one row each) at ``addrs`` (checked by the caller), in the instances ``live`` marks
        (default: all); of equal addresses the last wins."""
        ks = np.arange(self.n) if live is None else np.flatnonzero(live)
        v = np.asarray(values)
        if v.size != np.size(addrs) and len(ks) != self.n:     # one row each: the live ones'
            v = v.reshape(self.n, -1)[ks]
        self.put(ks, addrs, v)

    def take_same(self, ks: np.ndarray, addrs: np.ndarray, dtype) -> np.ndarray:
        """Instances ``ks``' elements of ``dtype`` at the same ``addrs`` (checked by the
        caller) in each: shape (len(ks), *addrs.shape)."""
        st = dtypes.storage(dtype)
        a = np.asarray(addrs, np.int64)
        t = self._typed(a, st.itemsize)
        if t is None:
            return self.take(ks, np.broadcast_to(a, (len(ks), *a.shape)), dtype)
        rows, cols = t
        if self.shared:
            one = rows[0, cols].view(st).reshape(a.shape)
            return np.ascontiguousarray(np.broadcast_to(one, (len(ks), *a.shape)))
        if len(ks) == self.n:
            got = rows[:, cols]
        elif isinstance(cols, slice):
            got = rows[ks, cols]
        else:                           # some instances, scattered columns
            got = rows[np.ix_(ks, cols)]
        return np.ascontiguousarray(got).view(st).reshape(len(ks), *a.shape)

    def take(self, ks: np.ndarray, addrs: np.ndarray, dtype) -> np.ndarray:
        """Instances ``ks``' elements of ``dtype`` at ``addrs`` (checked by the caller), one
        row of addresses per instance: shape addrs.shape, leading len(ks)."""
        st = dtypes.storage(dtype)
        size = st.itemsize
        a = np.asarray(addrs, np.int64).reshape(len(ks), int(np.prod(addrs.shape[1:])))
        stride = 0 if self.shared else self.stride
        if size in (1, 2, 4, 8) and not (a & (size - 1)).any():
            flat = self.flat.view(f"u{size}")
            e = a >> (size.bit_length() - 1)
            if self.shared:
                return flat[e].view(st).reshape(addrs.shape)
            return flat[ks.astype(np.int64)[:, None] * (stride // size) + e].view(st).reshape(addrs.shape)
        idx = (a[..., None] + np.arange(size, dtype=np.int64)).reshape(len(ks), -1)
        flat = ks.astype(np.int64)[:, None] * stride + idx
        return np.ascontiguousarray(self.flat[flat]).view(st).reshape(addrs.shape)

    def take_runs(self, ks: np.ndarray, starts: np.ndarray, count: int, step: int, dtype) -> np.ndarray:
        """Instances ``ks``' runs of ``count`` elements of ``dtype``, ``step`` bytes apart, from
        the byte addresses ``starts`` (one row per instance; every byte in the memory: checked
        by the caller): shape (*starts.shape, count). Contiguous runs are read as windows of
        the rows (one index per run, not per element)."""
        st = dtypes.storage(dtype)
        size = st.itemsize
        a = np.asarray(starts, np.int64)
        if size in (1, 2, 4, 8) and step == size and count and not (a & (size - 1)).any():
            e = a >> (size.bit_length() - 1)
            elems = self.flat.view(f"u{size}")
            if self.shared:
                win = np.lib.stride_tricks.sliding_window_view(elems[: self.size // size], count)
                return win[e].view(st)
            per = self.stride // size
            win = np.lib.stride_tricks.as_strided(elems, shape=(self.n, per - count + 1, count),
                                                  strides=(self.stride, size, size), writeable=False)
            return win[ks.astype(np.int64).reshape(-1, *([1] * (a.ndim - 1))), e].view(st)
        cells = a[..., None] + np.arange(count, dtype=np.int64) * int(step)
        return self.take(ks, cells, dtype)

    def take_run(self, ks: np.ndarray, addr: int, idx: np.ndarray, dtype, clip: int) -> np.ndarray:
        """Instances ``ks``' elements number ``idx`` (one row per instance; non-negative; a
        number past the run's ``clip`` elements reads its last one) of the run of ``dtype``
        elements that starts at byte ``addr`` (element-aligned; the run lies in the memory:
        checked by the caller): shape idx.shape. What :meth:`take` does with byte addresses,
        in one gather without address arithmetic (NumPy's clipping take is its fastest)."""
        st = dtypes.storage(dtype)
        size = st.itemsize
        flat = self.flat.view(f"u{size}")
        e0 = int(addr) // size
        if self.shared:
            return flat[e0: e0 + clip].take(idx, mode="clip").view(st)
        rows = flat.reshape(self.n, self.stride // size)
        base = ks.astype(np.int64).reshape(-1, *([1] * (idx.ndim - 1))) * (self.stride // size) + e0
        return rows.reshape(-1).take(base + np.minimum(idx, clip - 1)).view(st)

    def put(self, ks: np.ndarray, addrs: np.ndarray, values: np.ndarray) -> None:
        """Write ``values`` at the same ``addrs`` (checked by the caller) of instances ``ks``:
        one row each (leading len(ks), then addrs.shape), or addrs.shape for all of them; in
        each instance the last of equal addresses wins."""
        if len(ks) == 0:
            return
        a = np.asarray(addrs, np.int64).reshape(-1)
        v = np.ascontiguousarray(values)
        size = v.dtype.itemsize
        v = v.reshape(len(ks) if v.size != a.size else 1, a.size)
        if self.shared and not (v.shape[0] == 1 and len(ks) == self.n):
            self.unshare()              # one instance written alone
        if a.size and not self.shared:
            self._wrote(int(a.min()), int(a.max()) + size)
        t = self._typed(a, size)
        if t is not None:
            rows, cols = t
            v = v.view(rows.dtype)
            if len(ks) == self.n:       # ks are distinct rows: every instance (or the shared row)
                rows[:, cols] = v
            elif isinstance(cols, slice):
                rows[ks, cols] = v
            else:
                rows[np.ix_(ks, cols)] = v
            return
        idx = (a[:, None] + np.arange(size, dtype=np.int64)).reshape(-1)
        if self.shared:
            self.flat[idx] = v.view(np.uint8).reshape(-1)
            return
        flat = ks.astype(np.int64)[:, None] * self.stride + idx
        self.flat[flat] = v.view(np.uint8).reshape(v.shape[0], -1)

    def put_each(self, ks: np.ndarray, addrs: np.ndarray, values: np.ndarray) -> None:
        """Write ``values`` at per-instance ``addrs`` (checked by the caller): one row of
        addresses and values per instance of ``ks``; equal addresses in a row carry equal
        values (:func:`ptogpu.semantics.tile_moves.winners` makes them so): a scatter whose
        indices differ per instance."""
        a = np.asarray(addrs, np.int64).reshape(len(ks), -1)
        if not a.size:
            return
        v = np.ascontiguousarray(values).reshape(len(ks), a.shape[1])
        size = v.dtype.itemsize
        if self.shared:
            self.unshare()
        self._wrote(int(a.min()), int(a.max()) + size)
        stride = self.stride if self.n > 1 else 0
        idx = ks.astype(np.int64)[:, None, None] * stride + a[..., None] + np.arange(size, dtype=np.int64)
        self.flat[idx.reshape(-1)] = v.view(np.uint8).reshape(-1)

    def clear(self, upto: int | None = None) -> None:
        """Back to a fresh memory: zero bytes ``[0, upto)`` of every instance (the caller
        knows nothing past ``upto`` was written; default: all) and free every allocation.
        The rows stay mapped, so reusing a bank costs no page faults."""
        w = self.size if upto is None else max(0, min(int(upto), self.size))
        if self.shared:
            self.flat[: self.size] = 0
        else:
            self.flat.reshape(self.n, self.stride)[:, :w] = 0
            self._restorable = not self._mapped and self._made is None
            self.writable()
        self.top = 0
        if self.growable:
            self.size = 0

    def mark(self) -> None:
        """Remember this memory's state for :meth:`restore`: while shared, its row (all
        zero, or a copy); else its rows as they were made (zero, or the bytes they started
        from: a mapped table is its mapping) and a copy of the range the instances' own
        writes since fell in (every instance's bytes there: an input put per instance before
        the mark is part of what restore goes back to, on every batch size)."""
        if self.shared:
            row = self.flat[: self.size]
            self._mark = ("row", row.copy() if row.any() else None)
            self._dirty = None
            return
        d, kept = self._own, None
        if d is not None:
            lo, hi = (0, self.size) if d is ALL else (d[0], min(d[1], self.size))
            kept = False if (hi - lo) * self.n > KEEP_MAX else \
                (lo, self.flat.reshape(self.n, self.stride)[:, lo:hi].copy())
        self._dirty = None
        self._mark = ("rows", self._made, kept)

    def restore(self) -> bool:
        """Back to the state :meth:`mark` remembered, keeping allocations, rows and mappings:
        a core of N reused for the next chunk of a campaign pays no new mappings, only the
        faults of pages touched again (dropped pages read as zero, or as the mapped table,
        again). False where that cannot be done cheaply (the caller makes a new core)."""
        kind, *state = getattr(self, "_mark", ("none",))
        if kind == "row":
            if self.shared:
                self.flat[: self.size] = 0
                if state[0] is not None:
                    m = min(state[0].size, self.size)
                    self.flat[:m] = state[0][:m]
                return True
            if self._mapped:                # (mapped rows: their image, not the marked row)
                return False
            # instances written alone since the mark: every row goes back to the marked row
            # (a copy in each), past what their unsharing copied too
            first = state[0]
            self._wrote(0, max(0 if first is None else first.size, 0 if self._made is None else self._made.size))
            ok = self._back_to(first, first)
        else:
            # (rows grown since are a copy of the same bytes, their writes noted: restorable,
            # unless they were a mapping, whose copy is anonymous: ``_restorable``)
            if kind != "rows" or self._made is not state[0] or not self._restorable or state[1] is False:
                return False
            # (dropped pages read as zero, or as the mapped image: the made bytes go back by hand)
            ok = self._back_to(self._image if self._mapped else self._made, self._made)
            if ok and state[1] is not None:             # the instances' own bytes at the mark
                lo, kept = state[1]
                self.flat.reshape(self.n, self.stride)[:, lo: lo + kept.shape[1]] = kept
        if ok:
            self._dirty = None
        return ok

    def _back_to(self, first: np.ndarray | None, dropped: np.ndarray | None) -> bool:
        """Every byte written since the mark gets the bytes of a row that starts with ``first``
        (None: zeros) and is zero after: the range the writes fell in, else the pages written,
        else every page dropped and ``dropped`` written over each row's start. False where
        none of these can be done."""
        if self._rewrite_range(first) or self._rewrite_pages(first):
            return True
        if not drop_pages(self.flat):
            return False
        if dropped is not None:
            self.flat.reshape(self.n, self.stride)[:, : dropped.size] = dropped
        return True

    def _rewrite_range(self, first: np.ndarray | None) -> bool:
        """Restore from the calls' own record: the range every write since the mark fell in
        gets, in every instance, the bytes of a row that starts with ``first`` (None: zeros)
        and is zero after. False where a writable view went out (:meth:`writable`)."""
        d = self._dirty
        if d is None:
            return True
        if d is ALL:
            return False
        lo, hi = d[0], min(d[1], self.size)
        if hi <= lo:
            return True
        if hi - lo > RANGE_MAX:         # (writes spread over a table: rewrite only the pages written)
            return False
        self.flat.reshape(self.n, self.stride)[:, lo:hi] = _row_bytes(first, lo, hi)
        return True

    def _rewrite_pages(self, first: np.ndarray | None) -> bool:
        """Restore by writing: the pages written since (``pages.written_pages``) get the bytes of
        a row that starts with ``first`` (None: zeros) and is zero after, so the next chunk
        touches pages it already has (a page fault costs more than the copy on the VMs
        measured). False where the pages cannot be read."""
        if self.stride % PAGE:
            return False
        dirty = written_pages(self.flat)
        if dirty is None:
            return False
        per = self.stride // PAGE
        idx = np.flatnonzero(dirty)
        pages = self.flat.reshape(-1, PAGE)
        if first is not None and first.size:       # (pages past the first bytes are zeroed below)
            lead = -(-first.size // PAGE)
            ref = _row_bytes(first, 0, lead * PAGE)
            at = idx % per
            pages[idx[at < lead]] = ref.reshape(lead, PAGE)[at[at < lead]]
            pages[idx[at >= lead]] = 0
        else:
            pages[idx] = 0
        return True

    def alloc(self, nbytes: int) -> int:
        """Reserve ``nbytes`` zeroed bytes in every instance, aligned to ``align``."""
        addr = -(-self.top // self.align) * self.align
        end = addr + max(int(nbytes), 0)
        if end > self.size:
            if not self.growable or end > self.limit:
                raise PtoFault(f"{self.name.upper()} exhausted: need {end} bytes, have {self.size}",
                               rule="arena capacity", code=F_OTHER)
            self._grow(end)
        self.top = end
        return addr

    def _grow(self, end: int) -> None:
        new_size = -(-end // self.align) * self.align
        if new_size > self.stride:
            top = -(-self.limit // self.align) * self.align
            # N instances: reserve room ahead (1 MiB each, as untouched zero pages) so that a
            # kernel's few allocations copy the rows once, not at every gm_put
            ahead = max(new_size, 2 * self.stride, (1 << 20) if self.n > 1 else 0)
            k = 1 if self.shared else self.n
            for cap in dict.fromkeys((min(ahead, top), min(max(new_size, 2 * self.stride), top), new_size)):
                try:
                    flat = sparse_zeros(k * cap) if k > 1 else np.zeros(cap, np.uint8)
                    break
                except MemoryError:
                    continue
            else:
                raise self._no_room(new_size)
            flat.reshape(k, cap)[:, : self.size] = self.flat.reshape(k, self.stride)[:, : self.size]
            if self._mapped and not self.shared:      # (the copy is anonymous: the image goes by hand)
                self._restorable = False
            self.flat, self.stride = flat, cap
        self.size = new_size


def _row_bytes(first: np.ndarray | None, lo: int, hi: int) -> np.ndarray:
    """Bytes [lo, hi) of a row that starts with ``first`` (None: nothing) and is zero after:
    what a restore writes back."""
    out = np.zeros(hi - lo, np.uint8)
    if first is not None and first.size > lo:
        f = first[lo:hi]
        out[: f.size] = f
    return out


def outside_fault(space: str, size: int, addr: int, nbytes: int, what: str, target: str, who: str,
                  code: int = F_OTHER) -> PtoFault:
    """The fault of an access by ``who`` at ``addr`` (+nbytes) outside ``[0, size)`` of memory
    ``space`` (:meth:`Arena.outside`, for a fault built after the arena may have grown)."""
    return PtoFault(f"{what}: {who} accesses {space.upper()} byte address "
                    f"{addr:#x} (+{nbytes}), outside [0, {size:#x})",
                    rule="access outside arena", target=target, code=code)


class Arena:
    """A byte-addressed memory: one instance's row of a :class:`Bank`. GM grows on
    allocation; UB and L1 have a fixed size."""

    def __init__(self, name: str, size: int, *, growable: bool = False, align: int = 64,
                 limit: int = GM_LIMIT, bank: Bank | None = None, row: int = 0) -> None:
        self.bank = bank if bank is not None else Bank(name, size, growable=growable, align=align,
                                                       limit=limit)
        self.row = int(row)
        self.name = name

    growable = property(lambda self: self.bank.growable)
    limit = property(lambda self: self.bank.limit)
    align = property(lambda self: self.bank.align)
    size = property(lambda self: self.bank.size)
    top = property(lambda self: self.bank.top)

    @property
    def _buf(self) -> np.ndarray:
        b = self.bank
        b.unshare()                     # the row may be written through this view
        b.writable()
        return b.flat[self.row * b.stride: (self.row + 1) * b.stride]

    @property
    def data(self) -> np.ndarray:
        b = self.bank
        b.unshare()
        b.writable()
        return b.flat[self.row * b.stride: self.row * b.stride + b.size]

    def alloc(self, nbytes: int) -> int:
        """Reserve ``nbytes`` zeroed bytes, aligned to ``align``; returns the byte address."""
        return self.bank.alloc(nbytes)

    def check(self, addr: int, nbytes: int, what: str, target: str = "", code: int = F_OTHER) -> None:
        """PtoFault (of fault ``code``, the access's phase) unless bytes [addr, addr+nbytes) lie
        inside the arena."""
        if addr < 0 or nbytes < 0 or addr + nbytes > self.size:
            raise PtoFault(f"{what}: bytes [{addr:#x}, {addr + nbytes:#x}) lie outside "
                           f"{self.name.upper()} [0, {self.size:#x})",
                           rule="access outside arena", target=target, code=code)

    @contextmanager
    def undo_on_error(self):
        """Restore every byte if the block raises: a step-by-step execution that faults part-way
        must leave memory as it was (nothing is written on a fault). For on-chip arenas only:
        they are small enough that a whole copy is cheap."""
        saved = self.data.copy()
        try:
            yield
        except BaseException:
            self.data[:] = saved
            raise

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        self.check(addr, nbytes, "read", code=F_OTHER)
        return self.data[addr: addr + nbytes].copy()

    def write(self, addr: int, data) -> None:
        """Write raw bytes: a NumPy array's own bytes, or ``bytes`` / a list of byte values."""
        b = as_bytes(data)
        self.check(addr, b.size, "write", code=F_DST)
        self.data[addr: addr + b.size] = b

    # -- vectorised typed access ---------------------------------------------------------
    def check_many(self, addrs: np.ndarray, nbytes: int, what: str, target: str = "",
                   describe=None, code: int = F_OTHER) -> None:
        """Fault on the first address (in the given order) whose ``nbytes`` leave the arena.

        ``addrs`` are int64 (already wrapped); ``describe(i)`` names element ``i``; ``code`` is
        the access's phase (``errors.F_*``), which the fault carries.
        """
        if addrs.size == 0:
            return
        bad = (addrs < 0) | (addrs > self.size - nbytes)
        if bad.any():
            i = int(np.flatnonzero(bad.reshape(-1))[0])
            raise self.outside(int(addrs.reshape(-1)[i]), nbytes, what, target,
                               describe(i) if describe else f"element {i}", code)

    def outside(self, addr: int, nbytes: int, what: str, target: str, who: str, code: int = F_OTHER) -> PtoFault:
        """The fault of an access by ``who`` at ``addr`` (+nbytes) outside this arena (what
        :meth:`check_many` raises; a batch rule builds one per faulting instance)."""
        return outside_fault(self.name, self.size, addr, nbytes, what, target, who, code)

    def gather(self, addrs: np.ndarray, dtype) -> np.ndarray:
        """Elements of ``dtype`` at byte addresses ``addrs`` (checked by the caller)."""
        st = dtypes.storage(dtype)
        size = st.itemsize
        a = addrs.astype(np.int64, copy=False)
        if a.size and not (a % size).any():
            return self.data.view(st)[a // size]
        idx = a[..., None] + np.arange(size, dtype=np.int64)
        return np.ascontiguousarray(self.data[idx]).view(st).reshape(a.shape)

    def scatter(self, addrs: np.ndarray, values: np.ndarray) -> None:
        """Write ``values`` (one per address, in order; last writer wins)."""
        v = np.ascontiguousarray(values)
        size = v.dtype.itemsize
        a = addrs.astype(np.int64, copy=False).reshape(-1)
        v = v.reshape(-1)
        if a.size and not (a % size).any():
            self.data.view(v.dtype)[a // size] = v
            return
        idx = a[:, None] + np.arange(size, dtype=np.int64)
        self.data[idx] = v.view(np.uint8).reshape(-1, size)


class AllInstances(Arena):
    """``core.gm`` / ``ub`` / ``l1`` while an instruction runs every instance at once: sizes
    and names answer, any access to bytes raises :class:`NotBatched` (a batch rule goes
    through :class:`Bank`), so no step can silently act on one instance only."""

    def _refuse(self, *args, **kw):
        raise NotBatched(self.name)

    _buf = data = property(_refuse)
    gather = scatter = read = write = undo_on_error = alloc = _refuse    # checks only look at sizes


@dataclass(frozen=True)
class Ptr:
    """A typed pointer (``__gm__ T*``, ``__cbuf__ T*``, ``__ubuf__ T*``) of one core."""
    core: object
    space: str
    addr: int
    dtype: np.dtype

    def __add__(self, k: int) -> "Ptr":
        return Ptr(self.core, self.space, self.addr + int(k) * self.dtype.itemsize, self.dtype)

    def __sub__(self, k: int) -> "Ptr":
        return self + (-int(k))

    def cast(self, dtype) -> "Ptr":
        """``reinterpret_cast<T*>(ptr)``: the same address as a pointer to ``dtype`` (the vendor's
        kernels take their packed float4 buffers as ``uint8_t*`` and cast them)."""
        return Ptr(self.core, self.space, self.addr, dtypes.as_dtype(dtype))

    def numpy(self, count: int) -> np.ndarray:
        """``count`` elements starting here (a copy; for inspection)."""
        nbytes = int(count) * self.dtype.itemsize
        return self.core.read(self.space, self.addr, nbytes).view(dtypes.storage(self.dtype))

    def __repr__(self) -> str:
        return f"<{self.space} {dtypes.name_of(self.dtype)}* {self.addr:#x}>"
