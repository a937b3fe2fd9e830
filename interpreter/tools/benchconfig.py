"""The bench suite file (`bench.yaml`): what `tabula bench --suite` measures beyond every
spec at every player count, and the targets it marks as met or missed.

Input: the file's path (read by errors.read_input and loader.load_yaml_source), then the specs
the suite found.
Output: a SuiteFile (games per spec, reference programs, cross-spec ratios, the parallel
run, targets), or an error located at the entry that is wrong (exit 1, no traceback).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import (
    NOWHERE,
    Pos,
    TabulaError,
    check_input,
    did_you_mean,
    fail,
    shown_path,
)
from ..lang.loader import LList, LMap, load_yaml_source

FILE_NAME = "bench.yaml"                 # looked for in the suite's root
KEYS = ("games", "references", "ratios", "parallel", "targets")
RATIO_KEYS = ("spec", "over", "players", "target")
PARALLEL_KEYS = ("spec", "games", "players", "repeat", "target")
PARALLEL_REPEAT = 3
# a target per spec: at least this ratio of Tabula's playouts/s to the yardstick's ...
YARDSTICK_TARGETS = ("reference", "openspiel", "openspiel_python")
# ... or at most this many microseconds for one State.clone()
CLONE_TARGET = "clone_us"
TARGET_KEYS = YARDSTICK_TARGETS + (CLONE_TARGET,)


@dataclass(frozen=True)
class Ratio:
    """Decisions/s of `spec` over those of `over`, both at `players`."""

    spec: str
    over: str
    players: int
    target: float | None = None


@dataclass(frozen=True)
class Parallel:
    """simulate `games` games of `spec` with 2 workers and with 1, `repeat` times each."""

    spec: str
    games: int
    players: int
    repeat: int = PARALLEL_REPEAT
    target: float | None = None


@dataclass
class SuiteFile:
    """A bench.yaml as checked; SuiteFile() is the suite without one."""

    path: Path | None = None
    games: dict = field(default_factory=dict)          # spec id -> games per player count
    references: dict = field(default_factory=dict)     # spec id -> Path of the program
    ratios: list = field(default_factory=list)         # of Ratio
    parallel: Parallel | None = None
    targets: dict = field(default_factory=dict)        # spec id -> {TARGET_KEYS: number}
    doc: LMap | None = field(default=None, repr=False)    # as loaded: to locate errors

    def fail(self, where: tuple, message: str, hint: str = ""):
        fail(f"{_where(where)}: {message}" if where else message,
             _locate(self.doc, where, self.path), hint)

    def check_specs(self, ranges: dict) -> None:
        """Every spec id named must be one of the suite's (ranges: id -> (least, most)
        players), and every player count one the spec allows."""
        for where, spec_id in self.spec_ids():
            if spec_id not in ranges:
                self.fail(where, f"no spec '{spec_id}' in the suite",
                          did_you_mean(spec_id, ranges) or "the specs: " + ", ".join(ranges))
        counts = [(("ratios", i, "players"), spec_id, r.players)
                  for i, r in enumerate(self.ratios) for spec_id in (r.spec, r.over)]
        if self.parallel:
            counts.append((("parallel", "players"), self.parallel.spec, self.parallel.players))
        for where, spec_id, players in counts:
            lo, hi = ranges[spec_id]
            if not lo <= players <= hi:
                self.fail(where, f"{spec_id} is for {lo} to {hi} players, not {players}")

    def spec_ids(self) -> list:
        """(where, spec id) of every spec the file names."""
        out = [((key, spec_id), spec_id) for key in ("games", "references", "targets")
               for spec_id in getattr(self, key)]
        for i, r in enumerate(self.ratios):
            out += [(("ratios", i, "spec"), r.spec), (("ratios", i, "over"), r.over)]
        if self.parallel:
            out.append((("parallel", "spec"), self.parallel.spec))
        return out


def find(root, given=None) -> Path | None:
    """The suite file: `given` (--config, which must exist), else root/bench.yaml if any."""
    if given is not None:
        if not os.path.lexists(given):
            raise TabulaError(f"--config: no file {given}")
        check_input(given, "bench suite file")        # no folder, FIFO, device or loop
        return Path(given)
    path = Path(root) / FILE_NAME
    return path if path.is_file() else None


def load(path) -> SuiteFile:
    """Read and check a suite file (its spec ids are checked later: check_specs)."""
    if path is None:
        return SuiteFile()
    path = Path(path)
    # the one reader of input files (a regular file, bounded) and the one YAML loader
    # (bounded nesting, nodes and alias expansion; located errors); a file of comments
    # only is the suite without entries
    # only a file that shows it is a suite file (a mapping of its keys) is ever quoted;
    # any other is refused by _read without a line of it shown
    doc = load_yaml_source(path, "bench suite file", empty_ok=True, sections=((), KEYS),
                           refuse=False)[0]
    out = SuiteFile(path=path, doc=doc)
    _read(out, {} if doc is None else doc)
    return out


# ---- reading ---------------------------------------------------------------------------------

def _read(out: SuiteFile, data) -> None:
    _mapping(out, data, (), KEYS)
    for spec_id, games in _entries(out, data.get("games", {}), ("games",)):
        out.games[spec_id] = _number(out, games, ("games", spec_id), integer=True)
    for spec_id, script in _entries(out, data.get("references", {}), ("references",)):
        if not isinstance(script, str) or not script:
            out.fail(("references", spec_id), "must be the path of a Python script")
        out.references[spec_id] = (out.path.parent / script).resolve()
    ratios = data.get("ratios", [])
    if not isinstance(ratios, list):
        out.fail(("ratios",), f"must be a list, not {_kind(ratios)}")
    out.ratios = [Ratio(**_fields(out, r, ("ratios", i), RATIO_KEYS, ("spec", "over", "players")))
                  for i, r in enumerate(ratios)]
    if data.get("parallel") is not None:
        out.parallel = Parallel(**_fields(out, data["parallel"], ("parallel",), PARALLEL_KEYS,
                                          ("spec", "games", "players")))
    for spec_id, targets in _entries(out, data.get("targets", {}), ("targets",)):
        where = ("targets", spec_id)
        _mapping(out, targets, where, TARGET_KEYS)
        out.targets[spec_id] = {k: _number(out, v, where + (k,)) for k, v in targets.items()}


def _fields(out: SuiteFile, data, where: tuple, keys: tuple, required: tuple) -> dict:
    """A mapping of spec ids (spec, over) and positive numbers (the other keys)."""
    _mapping(out, data, where, keys)
    for key in required:
        if key not in data:
            out.fail(where, f"needs '{key}' (the keys: {', '.join(keys)})")
    fields = {}
    for key, value in data.items():
        if key in ("spec", "over"):
            fields[key] = _spec_id(out, value, where + (key,))
        else:
            fields[key] = _number(out, value, where + (key,), integer=key != "target")
    return fields


def _mapping(out: SuiteFile, data, where: tuple, keys: tuple) -> None:
    if not isinstance(data, dict):
        out.fail(where, f"must be a mapping, not {_kind(data)}"
                 if where else f"{shown_path(out.path)} must be a mapping (the keys: "
                 f"{', '.join(keys)}), not {_kind(data, quote=False)}")
    for key in data:
        if key not in keys:
            out.fail(where + (key,), f"unknown key '{key}'",
                     did_you_mean(str(key), keys) or f"the keys: {', '.join(keys)}")


def _entries(out: SuiteFile, data, where: tuple) -> list:
    """The (spec id, value) pairs of a mapping keyed by spec id."""
    if not isinstance(data, dict):
        out.fail(where, f"must be a mapping of spec ids, not {_kind(data)}")
    return [(_spec_id(out, k, where + (k,)), v) for k, v in data.items()]


def _spec_id(out: SuiteFile, value, where: tuple) -> str:
    if not isinstance(value, str) or not value:
        out.fail(where, f"must be a spec id, not {_kind(value)}")
    return value


def _number(out: SuiteFile, value, where: tuple, integer: bool = False):
    ok = (isinstance(value, int) if integer else isinstance(value, (int, float)))
    if not ok or isinstance(value, bool) or not value > 0:
        out.fail(where, f"must be a {'whole ' if integer else ''}number greater than 0, "
                        f"not {value!r}")
    return value


def _kind(value, quote: bool = True) -> str:
    """What a value is, for a message; a text quoted (cut short) unless `quote` is false:
    a whole file that is not a mapping is never quoted (it may not be YAML at all)."""
    if not quote and not isinstance(value, (dict, list)):
        return "nothing" if value is None else "a single value"
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text '{value[:60]}'" + ("..." if len(value) > 60 else "")
    return repr(value)


# ---- locating ---------------------------------------------------------------------------------

def _where(where: tuple) -> str:
    """('ratios', 1, 'over') -> 'ratios[1].over'."""
    out = ""
    for part in where:
        index = isinstance(part, int) and not isinstance(part, bool)
        out += f"[{part}]" if index else (f".{part}" if out else str(part))
    return out


def _locate(doc, where: tuple, path) -> Pos:
    """The position of the entry `where` names (of its key, in a mapping), or of the
    nearest entry above it that the file has."""
    if path is None:
        return NOWHERE
    pos = getattr(doc, "pos", None) or Pos(str(path))
    for part in where:
        if isinstance(doc, LMap) and part in doc:
            pos, doc = doc.where_key(part), doc[part]
        elif isinstance(doc, LList) and isinstance(part, int) and 0 <= part < len(doc):
            pos, doc = doc.where(part), doc[part]
        else:
            break
    return pos
