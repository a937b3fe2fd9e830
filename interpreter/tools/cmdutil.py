"""What the `tabula` command line shares with the modules whose commands it registers
(play, replay, ...): the one way to declare a command (Command: its name, help, function
and arguments, each argument an Arg, the common ones defined once here: SPEC, PLAYERS,
SEED, OPTION, JSON, AGENTS, ...), the parser built from the commands, exit codes,
argument types, the range of seeds, numbers typed by a user, the lock of an output file
that a run appends to, the random bots' generator, the progress line and the package's
version. It imports nothing of the package but errors.py, so that any module can use it
without importing the command line (cli.py imports the modules of its commands, never
the other way round).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import stat
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..errors import TabulaError, excerpt
from ..runtime import model

try:                                    # POSIX: an output file is locked while written
    import fcntl
except ImportError:                     # pragma: no cover - not on POSIX: no lock
    fcntl = None  # type: ignore[assignment]

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


# ---- seeds ------------------------------------------------------------------------------------

# the range of seeds, and the aliases refused: runtime/model.py (the engine refuses them
# too; docs/cli.md, Seeds)
SEED_LIMIT, SEED_RANGE, seed_alias, seed_problem = (model.SEED_LIMIT, model.SEED_RANGE,
                                                    model.seed_alias, model.seed_problem)


def seed_arg(text: str) -> int:
    """The argparse type of --seed: a seed (seed_problem), else a usage error (exit 2)."""
    value = typed_int(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"not a whole number: {excerpt(text)}; {SEED_RANGE}")
    why = seed_problem(value)
    if why is not None:
        raise argparse.ArgumentTypeError(f"{value}: {why}")
    return value


seed_arg.__name__ = "seed"


# ---- numbers a user types ----------------------------------------------------------------------

MAX_GAMES = 1_000_000       # games a run plays at most (its records are kept in memory)
MAX_TYPED_DIGITS = 100      # more digits than any count, seat, seed or index can need
_TYPED_INT = re.compile(r"\s*[+-]?[0-9]+\s*")


def typed_int(text: str, digits: int = MAX_TYPED_DIGITS) -> int | None:
    """The whole number a user typed (ASCII digits, a sign, spaces around), or None: for
    anything else, and for a number of more than `digits` digits, which int() of the text
    would refuse with a ValueError past 4,300 digits (never an internal error)."""
    if not isinstance(text, str) or not _TYPED_INT.fullmatch(text):
        return None
    text = text.strip()
    sign, number = ("-" if text[0] == "-" else ""), text.lstrip("+-").lstrip("0") or "0"
    if len(number) > digits:          # int() counts leading zeros toward its 4,300
        return None
    return int(sign + number)


def whole_arg(text: str) -> int:
    """The argparse type of a whole number (a seat, a count, an index): typed_int, else a
    usage error that quotes the text only in part."""
    value = typed_int(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"not a whole number: {excerpt(text)}")
    return value


whole_arg.__name__ = "whole number"


# ---- output files --------------------------------------------------------------------------------

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


_HELD: set = set()        # the descriptors of the locks this process holds (exclusive)


def _forget_locks_in_child() -> None:
    """In a child made by fork (a pool's worker): close its copies of the lock
    descriptors, so that only the process that took a lock holds it, and a worker that
    outlives a killed parent does not keep the file locked. A lock of flock() is released
    when the last descriptor of its open file is closed; closing a copy (never LOCK_UN)
    leaves the parent's lock as it is."""
    for fd in list(_HELD):
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks_in_child)


@contextmanager
def exclusive(path, writer: str = "tabula simulate"):
    """Hold an exclusive lock on the file `path` (created empty if missing) for the block,
    so that two runs never write one file: flock() on a descriptor of the file's own,
    taken without waiting; a file another process holds is a TabulaError naming it (exit
    1), raised before anything is read or written. The kernel releases the lock when the
    block ends or the process dies, however (a SIGKILL too): a holder killed never blocks
    the next run. Forked workers drop their copy (_forget_locks_in_child). A path that is
    not a regular file (/dev/null, a FIFO) is not locked, nor is any file where flock()
    is missing (not POSIX) or refused (a file system without locks)."""
    name = str(path)
    fd = None
    if fcntl is not None:
        try:
            st = os.stat(name)
        except FileNotFoundError:
            st = None
        except (OSError, ValueError):
            st = False               # cannot tell: the writer's own open says why
        if st is None or (st and stat.S_ISREG(st.st_mode)):
            try:
                fd = os.open(name, os.O_RDONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) |
                             getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0), 0o666)
            except OSError as e:
                raise cannot_write(name, e) from None
            if not stat.S_ISREG(os.fstat(fd).st_mode):      # replaced since the stat
                os.close(fd)
                fd = None
    if fd is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise TabulaError(f"cannot write {name}: another {writer} is writing it (it holds "
                              "the file's lock until it ends); wait for it to end, or write "
                              "another file") from None
        except OSError:              # no locks here (ENOLCK): write as before, unlocked
            os.close(fd)
            fd = None
    if fd is not None:
        _HELD.add(fd)
    try:
        yield
    finally:
        if fd is not None:
            _HELD.discard(fd)
            os.close(fd)


def worker_count(workers) -> int:
    """--workers as a number of processes: None is one a CPU; below 1 is an error."""
    import os
    n = (os.cpu_count() or 1) if workers is None else int(workers)
    if n < 1:
        raise TabulaError(f"--workers must be 1 or more, not {workers}")
    return n


CHUNK_SHARE = 4        # a chunk is at most 1/(workers * 4) of the games left


def guided_chunks(todo: list, workers: int, most: int) -> list:
    """A pool's work in guided chunks: big while much is left (fewer messages), at most
    `most`, down to single games at the end (so that no worker is left alone with a long
    chunk)."""
    chunks, at = [], 0
    while at < len(todo):
        size = max(1, min(most, (len(todo) - at) // (workers * CHUNK_SHARE)))
        chunks.append(todo[at:at + size])
        at += size
    return chunks


def pool_context(method=None):
    """A process pool's context: fork where it is safe and cheap (Linux: workers inherit
    the compiled game); elsewhere the platform's default (spawn: each worker unpickles
    the spec once)."""
    import multiprocessing
    if method is None and sys.platform.startswith("linux"):
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return multiprocessing.get_context(method)


def games_count(games, name: str = "--games", least: int = 1) -> None:
    """A library caller's count of games, as the command line's: a whole number from
    `least` to MAX_GAMES (a run keeps its records in memory)."""
    if type(games) is not int or not least <= games <= MAX_GAMES:
        raise TabulaError(f"{name} must be a whole number from {least} to {MAX_GAMES:,}, "
                          f"not {excerpt(str(games))}")


def positive(kind, most=None):
    """An argparse type: a number greater than 0, and at most `most` if given (a usage
    error otherwise)."""
    def parse(text: str):
        short = len(text) <= 40 and text.isprintable()
        shown = text if short else excerpt(text)
        if len(text) > MAX_TYPED_DIGITS:
            raise argparse.ArgumentTypeError(f"a number of at most {MAX_TYPED_DIGITS} "
                                             f"characters, not {shown}")
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"not a number: {repr(text) if short else shown}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {shown}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:,}, not {shown}")
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

    def begin(self) -> Progress:
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


# ---- commands and their arguments ---------------------------------------------------------------

@dataclass(frozen=True)
class Arg:
    """One argument of a command: argparse.add_argument's flags (or a positional's name)
    and keywords. A command that needs a shared argument with its own help or default
    takes it with but(...), so that what the argument is (its flags, type, metavar) is
    said once."""
    flags: tuple
    kw: dict = field(default_factory=dict)

    def but(self, **kw) -> Arg:
        """This argument with some keywords changed (help, default, nargs, ...)."""
        return Arg(self.flags, {**self.kw, **kw})

    def add_to(self, p: argparse.ArgumentParser) -> None:
        # a list default (--option's []) is each parser's own, as if written out there
        p.add_argument(*self.flags, **{k: list(v) if isinstance(v, list) else v
                                       for k, v in self.kw.items()})


def arg(*flags, **kw) -> Arg:
    """An Arg, written as argparse's add_argument is called."""
    return Arg(flags, kw)


@dataclass(frozen=True)
class Command:
    """A `tabula` command: its name, its one-line help (`tabula -h`), its description
    (`tabula NAME -h`; the help line unless given), its arguments in the order -h shows
    them, and fn(args) -> exit code. Every command is declared this way and registered by
    build_parser; args.usage_error(text) is its parser's error (exit 2, with its usage)."""
    name: str
    fn: object
    help: str
    args: tuple = ()
    description: str | None = None


SPEC_HELP = ("a spec file, a game's folder, or the name of a game that comes with tabula "
             "(tabula list); a path wins over a name")
AGENTS_HELP = ("one bot per seat, or one for all: random, greedy, mcts[:N|Ns[:DEPTH|end]] "
               "(default: random for every seat)")
STRICT_HELP = ("strict play: a choice that must be made but has nothing legal (no else:, "
               "not optional) is a rule error at the decision, not a silent skip")

# the arguments several commands share (a command's own help: .but(help=...))
SPEC = arg("spec", metavar="SPEC", help=SPEC_HELP)
PLAYERS = arg("--players", type=whole_arg, default=None, metavar="N",
              help="the player count (default: the least the game allows)")
SEED = arg("--seed", type=seed_arg, default=1, metavar="S",
           help="the seed: the same seed gives the same games (0 to 2^53 - 1)")
OPTION = arg("--option", action="append", metavar="K=V", default=[],
             help="a game option, KEY=VALUE (repeatable; default: the spec's defaults)")
JSON = arg("--json", action="store_true", help="print one JSON object")
AGENTS = arg("--agents", metavar="A,B,...", help=AGENTS_HELP)
WORKERS = arg("--workers", type=positive(int), default=None, metavar="K",
              help="processes (default: all cores); results do not depend on it")
STRICT = arg("--strict", action="store_true", help=STRICT_HELP)
LOG = arg("--log", metavar="FILE", help="write the game log (JSON lines) to FILE")
FOR = arg("--for", dest="for_player", type=whole_arg, metavar="PLAYER",
          help="with --log: write what PLAYER saw instead of the full log")
OUT = arg("--out", metavar="FILE", help="write to FILE instead of standard output")
REPORT = arg("--report", metavar="FILE.html",
             help="write the summary and its plots as one self-contained HTML file")


class HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, unless the help already says what the
    default is or there is none to say (a flag, an option that is off unless given)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (text and action.option_strings and "default" not in text
                and action.default not in (None, False, [], argparse.SUPPRESS)):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """The `tabula` parser and every command's: HelpFormatter, unless told otherwise."""

    def __init__(self, *a, **kw):
        kw.setdefault("formatter_class", HelpFormatter)
        super().__init__(*a, **kw)


class _Version(argparse.Action):
    """--version: read from the installed package's metadata only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"tabula ({DISTRIBUTION}) {package_version()}")
        parser.exit()


def build_parser(commands, **kw) -> argparse.ArgumentParser:
    """The `tabula` parser (Parser(**kw), with --version) and one sub-parser per command,
    in the order given (the order `tabula -h` lists them)."""
    ap = Parser(**kw)
    ap.add_argument("--version", action=_Version,
                    help=f"print the version installed (the {DISTRIBUTION} distribution) "
                         "and exit")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for c in commands:
        p = sub.add_parser(c.name, help=c.help, description=c.description or c.help)
        for a in c.args:
            a.add_to(p)
        p.set_defaults(fn=c.fn, usage_error=p.error)
    return ap
