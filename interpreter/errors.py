"""Located errors: every user-facing failure of a spec, option, scenario or log.

Input: a message, a source position (file, line, column; 1-based) and an optional hint.
Output: a SpecError whose str() shows file:line:col, the source line with a caret, and
the hint. Stages raise through `fail()` so that no Python traceback reaches a user.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NoReturn


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
        if not self.col:                 # a line of a file that has no columns (a log)
            return f"{name}:{self.line}"
        return f"{name}:{self.line}:{self.col}"


def shown_path(path: str | os.PathLike[str]) -> str:
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
        where = f"{self.pos}: " if self.pos.file or self.pos.line else ""   # else: nowhere
        out = [f"{where}{self.kind}: {self.message}"]
        src = source_line(self.pos)
        if src is not None:
            src, caret_col = shown_line(src.rstrip("\n"), max(self.pos.col, 1))
            out.append("    " + src)
            prefix = "".join(ch if ch == "\t" else " " for ch in src[: caret_col - 1])
            out.append("    " + prefix + "^")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


def shown_line(src: str, col: int) -> tuple[str, int]:
    """(text, caret column) of a source line as an error quotes it: a control character
    (which could drive the terminal) shows as '?'."""
    return "".join(c if c == "\t" or c.isprintable() else "?" for c in src), col


class RuleError(SpecError):
    """A rule that cannot be carried out while a game runs (bad move, step bound, ...)."""

    def __init__(self, message: str, pos: Pos = NOWHERE, hint: str = ""):
        super().__init__(message, pos, hint, kind="rule error")


class IllegalAction(TabulaError):
    """An action that is not among the legal actions of the state."""


# ---- reading input files, bounded -------------------------------------------------------

MAX_INPUT_BYTES = 2_000_000      # a spec, a variant's base, a scenario file


def _why(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop"
    if exc.errno == errno.ENAMETOOLONG:
        return "the name is too long"
    return exc.strerror or type(exc).__name__


def check_input(path: str | os.PathLike[str], what: str = "file",
                where: Pos | None = None) -> os.stat_result:
    """Refuse, before opening it, anything but an existing regular file: a folder, a
    FIFO, a device (/dev/zero, /dev/urandom), a socket, a symbolic link loop. Errors are
    located at `where` (the key that names the file) when given, else at the file."""
    name = str(path)
    at = where if where is not None else Pos(name)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        fail(f"no such {what}: {shown_path(name)}", at)
    except (OSError, ValueError) as exc:         # ValueError: a NUL in the name
        reason = _why(exc) if isinstance(exc, OSError) else "a NUL character in the name"
        fail(f"cannot read the {what} {shown_path(name)}: {reason}", at)
    if stat.S_ISDIR(st.st_mode):
        fail(f"{shown_path(name)} is a folder, not a {what}", at)
    if not stat.S_ISREG(st.st_mode):
        fail(f"{shown_path(name)} is not a regular file (a device, a FIFO or a socket), "
             f"so not a {what}", at, "name a file")
    return st


def read_input(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_INPUT_BYTES,
               where: Pos | None = None) -> bytes:
    """The bytes of a user's input file, read safely: only a regular file (check_input),
    refused at once when its size is over `limit`, opened without blocking, and read at
    most `limit` + 1 bytes (a file that grows, or one of /proc that tells no size, is
    refused when it holds more). The one reader of every input file."""
    name = str(path)
    at = where if where is not None else Pos(name)
    too_big = (f"{shown_path(name)} holds more than {limit} bytes; a {what} may hold at "
               f"most {limit}")
    st = check_input(name, what, where)
    if where is None:
        at = Pos(name, 1, 1)
    if st.st_size > limit:
        fail(too_big, at, "a file this large is refused before it is read")
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) |
                     getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        fail(f"cannot read the {what} {shown_path(name)}: {_why(exc)}", at)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):     # replaced since the check
            fail(f"{shown_path(name)} is not a regular file, so not a {what}", at)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        fail(f"cannot read the {what} {shown_path(name)}: {_why(exc)}", at)
    finally:
        os.close(fd)
    if total > limit:
        fail(too_big, at, "a file this large is refused")
    return b"".join(chunks)


def open_input(path: str | os.PathLike[str], what: str = "file",
               where: Pos | None = None) -> BinaryIO:
    """A binary file object on a user's input file that is a regular file (check_input),
    opened without blocking: for readers that go line by line (a game log), which must
    still bound each line they read (readline(limit))."""
    name = str(path)
    check_input(name, what, where)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) |
                     getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        fail(f"cannot read the {what} {shown_path(name)}: {_why(exc)}",
             where if where is not None else Pos(name))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        fail(f"{shown_path(name)} is not a regular file, so not a {what}",
             where if where is not None else Pos(name))
    return os.fdopen(fd, "rb")


# ---- quoting source lines ----------------------------------------------------------------

class SourceLines:
    """The lines of the files read, by file name, for errors to quote (None: a file whose
    lines must not be quoted: one a spec names that did not turn out to be a spec,
    /etc/passwd, /proc/self/environ). One for the process (SOURCES), on purpose: an error
    is formatted far from the loader that read its file, and carries only the file's
    name. A cache, not state a game reads: it changes no result, only what an error
    quotes; the newest read of a file wins. Safe across threads: a lock around every
    read and write (a file's lines are computed outside it)."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str] | None] = {}
        self._lock = threading.Lock()

    def remember(self, file: str, lines: list[str] | None) -> None:
        with self._lock:
            self._lines[file] = lines

    def known(self, file: str) -> tuple[bool, list[str] | None]:
        """(whether the file was read, its lines)."""
        with self._lock:
            if file in self._lines:
                return True, self._lines[file]
            return False, None

    def first(self, file: str, lines: list[str]) -> list[str] | None:
        """Remember `lines` unless the file is known already; the lines to quote."""
        with self._lock:
            return self._lines.setdefault(file, lines)


SOURCES = SourceLines()


_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """A text's lines as YAML counts them (str.splitlines also breaks at a form feed, a
    vertical tab and other control characters, which YAML does not)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def register_source(file: str, text: str | None) -> None:
    """Remember a file's text so that errors can quote its lines (None: never quote)."""
    SOURCES.remember(file, None if text is None else split_lines(text))


def source_line(pos: Pos) -> str | None:
    if not pos.line:
        return None
    known, lines = SOURCES.known(pos.file)
    if not known:
        lines = _head_lines(pos.file)
        if lines is None:
            return None
        lines = SOURCES.first(pos.file, lines)
    if lines is None:
        return None
    if 0 < pos.line <= len(lines):
        return lines[pos.line - 1]
    return None


# the first line of a YAML document that is no comment, directive or `---`: a key and
# its colon, a list item, a flow mapping or list, or a quoted text
_YAML_START = re.compile(r"""(?:-(?:\s|$)|[\[{"']|[^\s#%:=\x00-\x1f][^:=\x00-\x1f]*:(?:\s|$))""")


def looks_like_yaml(text: str) -> bool:
    """Whether a text starts as a YAML document of keys or items does. A file that does
    not (/etc/passwd, /proc/self/environ, a binary) is never quoted in an error, even
    when it is named on the command line: an error quotes only text that is YAML."""
    for line in split_lines(text[:100_000]):
        plain = line.strip()
        if not plain or plain.startswith(("#", "%")) or plain in ("---", "..."):
            continue
        if plain.startswith("--- "):
            plain = plain[4:].lstrip()
        return plain in ("~", "null") or bool(_YAML_START.match(plain))
    return True         # blank lines and comments only: nothing to hide


def _head_lines(file: str, size: int = 1 << 20) -> list[str] | None:
    """The lines within the first `size` bytes of a regular file (the last, maybe cut
    off, left out), for quoting; None if it cannot be read, or does not start as YAML
    does (looks_like_yaml: the same rule for a file no loader registered, such as one
    refused for its size or its encoding before it was parsed)."""
    try:
        check_input(file)
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (SpecError, OSError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    text = data[:size].decode("utf-8", errors="replace")
    if not looks_like_yaml(text):
        return None
    lines = split_lines(text)
    return lines[:-1] if len(data) > size else lines


def fail(message: str, pos: Pos = NOWHERE, hint: str = "",
         error: type[SpecError] = SpecError) -> NoReturn:
    """Raise a located error: the one way every room reports one. A SpecError (the default)
    for a bad spec, option, scenario or log; `error=RuleError` for a rule that cannot be
    carried out while a game runs. Raised inside an `except`, the error keeps the one it
    replaces as its context, for a developer's traceback; a user sees the message only."""
    raise error(message, pos, hint)


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """A hint naming the closest candidate, or the empty string."""
    close = difflib.get_close_matches(str(word), sorted({str(c) for c in candidates}), n=1,
                                      cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def excerpt(text: str, limit: int = 40) -> str:
    """A short, printable quotation of text for an error message (never a whole file)."""
    text = str(text)
    short = text[:limit]
    shown = "".join(c if c.isprintable() else "?" for c in short)
    return repr(shown) + (f" (and {len(text) - limit} more characters)" if len(text) > limit
                          else "")
