"""What the `tabula` command line shares with the modules whose commands it registers
(graph, replay, bench, ...): exit codes, KEY=VALUE options, argument types, the random
bots' generator, the progress line and the package's version. It imports nothing of the
package but errors.py, so that any module can use it without importing the command line
(cli.py imports the modules of its commands, never the other way round).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from contextlib import contextmanager

from ..errors import TabulaError

DISTRIBUTION = "tabula-rules"      # the name pip knows the package by (docs/cli.md, Names)
EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2     # fine; a located input error; a usage error


def package_version() -> str:
    """The installed distribution's version (its metadata), or why there is none."""
    from importlib import metadata
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return f"(not installed as {DISTRIBUTION}: run from a source tree)"


def bot_rng(seed: int) -> random.Random:
    """The random bots' own generator in `tabula run` (and bench): separate from the
    game's, derived from the seed."""
    return random.Random(f"tabula-bots:{seed}")


def cannot_write(path, e: OSError) -> TabulaError:
    """An output file that cannot be written (no such folder, no permission, a full
    disk, ...) as a clear error: exit 1, never a traceback."""
    return TabulaError(f"cannot write {path}: {e.strerror or e}")


@contextmanager
def writing(path):
    """Around every write of an output file (opening, writing, flushing, closing): an
    OSError is cannot_write(path, e)."""
    try:
        yield
    except OSError as e:
        raise cannot_write(path, e) from None


def positive(kind):
    """An argparse type: a number greater than 0 (a usage error otherwise)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: '{text}'") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
        return value
    parse.__name__ = f"positive {kind.__name__}"
    return parse


class Progress:
    """One line on stderr: how many done of how many, how fast, the time left; only when
    enabled (on a terminal: `Progress.on_terminal`). Call it with the count done;
    clear() wipes the line before something else is printed to the same terminal;
    finish() ends a line whose count never reached the total; Progress.wipe() wipes the
    lines of runs that failed (the command line's error handler calls it)."""

    WIDTH = 30
    active: set = set()             # the instances whose line is on the terminal now

    def __init__(self, total: int, enabled: bool, unit: str = "games", stream=None):
        self.total, self.enabled, self.unit = total, enabled, unit
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.shown = False
        self.done = 0

    @staticmethod
    def on_terminal(stream=None) -> bool:
        stream = stream if stream is not None else sys.stderr
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False

    def __call__(self, done: int, note: str = "") -> None:
        self.done = done
        if not self.enabled:
            return
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = done / elapsed
        left = f"{(self.total - done) / rate:5.0f} s left" if rate else "  ? s left"
        bar = "#" * int(self.WIDTH * min(done, self.total) / max(self.total, 1))
        self.stream.write(f"\r[{bar:<{self.WIDTH}}] {done}/{self.total} {self.unit}  "
                          f"{rate:6.1f} {self.unit}/s  {left} {note}\033[K")
        self._shown(True)
        if done >= self.total:
            self.stream.write("\n")
            self._shown(False)
        self.stream.flush()

    def _shown(self, shown: bool) -> None:
        self.shown = shown
        (Progress.active.add if shown else Progress.active.discard)(self)

    def clear(self) -> None:
        """Wipe the line (before other output to the terminal); the next call redraws it."""
        if self.enabled and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown(False)

    def begin(self) -> "Progress":
        """Show 0 done at once (a run's first result may take a while)."""
        self(0)
        return self

    @classmethod
    def wipe(cls) -> None:
        """Wipe every line still shown (a run that failed: its error comes next)."""
        for p in list(cls.active):
            p.clear()

    def finish(self) -> None:
        """End the line if the count never reached the total (a run cut short)."""
        if self.enabled and self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown(False)
