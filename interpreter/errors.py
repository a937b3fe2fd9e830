"""Located errors: every user-facing failure of a spec, option, scenario or log.

Input: a message, a source position (file, line, column; 1-based) and an optional hint.
Output: a SpecError whose str() shows file:line:col, the source line with a caret, and
the hint. Stages raise through `fail()` so that no Python traceback reaches a user.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pos:
    """A position in a source file (line and column are 1-based; 0 means unknown)."""

    file: str = ""
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        name = shown_path(self.file) if self.file else "<input>"
        if not self.line:
            return name
        return f"{name}:{self.line}:{self.col}"


def shown_path(path) -> str:
    """A path as a user would type it: relative to the current folder when inside it."""
    p = Path(path)
    if p.is_absolute():
        try:
            return str(p.relative_to(Path.cwd()))
        except ValueError:
            pass
    return str(path)


NOWHERE = Pos()


class TabulaError(Exception):
    """Base of every error Tabula reports to a user (exit code 1)."""


class SpecError(TabulaError):
    """A located problem in a spec, scenario, option or log."""

    def __init__(self, message: str, pos: Pos = NOWHERE, hint: str = "", kind: str = "error"):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.kind = kind

    @property
    def line(self) -> int:
        return self.pos.line

    @property
    def col(self) -> int:
        return self.pos.col

    def __str__(self) -> str:
        out = [f"{self.pos}: {self.kind}: {self.message}"]
        src = source_line(self.pos)
        if src is not None:
            src, caret_col = shown_line(src.rstrip("\n"), max(self.pos.col, 1))
            out.append("    " + src)
            prefix = "".join(ch if ch == "\t" else " " for ch in src[: caret_col - 1])
            out.append("    " + prefix + "^")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


def shown_line(src: str, col: int) -> tuple:
    """(text, caret column) of a source line as an error quotes it: a control character
    (which could drive the terminal) shows as '?'."""
    return "".join(c if c == "\t" or c.isprintable() else "?" for c in src), col


class RuleError(SpecError):
    """A rule that cannot be carried out while a game runs (bad move, step bound, ...)."""

    def __init__(self, message: str, pos: Pos = NOWHERE, hint: str = ""):
        super().__init__(message, pos, hint, kind="rule error")


class IllegalAction(TabulaError):
    """An action that is not among the legal actions of the state."""


_SOURCES: dict[str, list[str]] = {}


_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def split_lines(text: str) -> list:
    """A text's lines as YAML counts them (str.splitlines also breaks at a form feed, a
    vertical tab and other control characters, which YAML does not)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def register_source(file: str, text: str) -> None:
    """Remember a file's text so that errors can quote its lines."""
    _SOURCES[file] = split_lines(text)


def source_line(pos: Pos) -> str | None:
    if not pos.line:
        return None
    lines = _SOURCES.get(pos.file)
    if lines is None:
        try:
            lines = Path(pos.file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return None
        _SOURCES[pos.file] = lines
    if 0 < pos.line <= len(lines):
        return lines[pos.line - 1]
    return None


def fail(message: str, pos: Pos = NOWHERE, hint: str = "") -> "NoReturn":  # noqa: F821
    """Raise a located SpecError: the one way a stage reports a bad input."""
    raise SpecError(message, pos, hint)


def did_you_mean(word: str, candidates) -> str:
    """A hint naming the closest candidate, or the empty string."""
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""
