"""Progress bars for long runs: tqdm, on stderr, only where a person watches (a terminal)."""
from __future__ import annotations

import sys


class Progress:
    """A ``progress(done, total)`` callable for campaigns and batches, drawn by tqdm with rate
    and ETA. Off when ``enabled`` is false or stderr is not a terminal (pipes and CI logs stay
    clean); ``close()`` always."""

    def __init__(self, title: str, enabled: bool = True, unit: str = "tile") -> None:
        self.title, self.unit = title, unit
        self.on = bool(enabled) and sys.stderr.isatty()
        self._bar = None
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        self.done = done
        if not self.on:
            return
        if self._bar is None:
            from tqdm import tqdm
            self._bar = tqdm(total=total, desc=self.title[:48], unit=self.unit, unit_scale=True,
                             file=sys.stderr, dynamic_ncols=True, mininterval=0.2, leave=False)
        self._bar.total = total
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
