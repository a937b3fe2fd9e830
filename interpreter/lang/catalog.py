"""The games that come with the package, found by name.

Input: a name, as `tabula run NAME` or `extends: NAME` gives it: a shipped game's folder
name or a shipped spec's id (a variant's id may differ from its folder's name), bare or
after `tabula:` (`tabula:NAME`, which never means a file). Output: the spec file, and for
`tabula list` every shipped spec with its names, title, player counts, place and what it extends.

The shipped games are the spec folders of `specs/` and `examples/`: inside the package
when it is installed from a wheel (tabula_rules/specs, tabula_rules/examples:
package data), beside it in a checkout. They are found by scanning those folders, never from a
list of names: a folder added there is a game of the next wheel.

A name that is also a path (a file or folder of that name in the current folder, or beside
a variant) is the path: a local game always wins over a shipped one of the same name;
`tabula:NAME` asks for the shipped one whatever the current folder holds.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import Pos, check_input, did_you_mean, excerpt, fail

PREFIX = "tabula:"
SECTIONS = ("specs", "examples")
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")      # no path separator in a name

_Loader: type[yaml.SafeLoader] | type[yaml.CSafeLoader]
try:
    _Loader = yaml.CSafeLoader
except AttributeError:               # PyYAML without libyaml
    _Loader = yaml.SafeLoader


def root() -> Path | None:
    """The folder holding the shipped specs/ and examples/: the package itself when
    installed from a wheel, the repository (beside the package) in a checkout."""
    here = Path(__file__).resolve().parent.parent     # the package (lang/ is one of its rooms)
    if any((here / s).is_dir() for s in SECTIONS):
        return here
    checkout = here.parent
    if (checkout / "grammar" / "tabula.lark").is_file() and \
            any((checkout / s).is_dir() for s in SECTIONS):
        return checkout
    return None


@dataclass
class Shipped:
    """One shipped spec file."""
    section: str                  # specs or examples
    folder: Path                  # the game's folder
    path: Path                    # the spec file
    main: bool                    # the folder's own spec (named by the folder)
    id: str | None                # game.id as the file gives it (None: inherited)
    extends: str | None           # the file's extends: text
    names: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The name to type: the folder's for its own spec, else the spec id."""
        return self.names[0] if self.names else str(self.path)


def _read(path: Path) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def _main_spec(folder: Path, files: list[Path]) -> Path | None:
    """A folder's own spec, as load_spec(folder) finds it: <folder>.yaml, else its only
    spec file."""
    own = folder / f"{folder.name}.yaml"
    if own.is_file():
        return own
    return files[0] if len(files) == 1 else None


class Scans:
    """The shipped specs found in each folder scanned (shipped()), kept: the games that
    come with the package change only when it is installed again. A cache of package
    data that no game reads, one for the process (SCANS); safe across threads: a lock
    makes two threads that scan the same folder at once share one scan. The lists it
    gives are shared: read them, never change them."""

    def __init__(self) -> None:
        self._found: dict[Path, list[Shipped]] = {}
        self._lock = threading.Lock()

    def get(self, base: Path) -> list[Shipped]:
        with self._lock:
            found = self._found.get(base)
            if found is None:
                found = self._found[base] = _scan(base)
            return found

    def clear(self) -> None:
        with self._lock:
            self._found.clear()


def shipped(base: Path | None = None) -> list[Shipped]:
    """Every shipped spec (cached per folder: SCANS): each game folder's own spec first,
    then the other spec files beside it (variants); specs/ before examples/, folders
    sorted."""
    base = root() if base is None else Path(base)
    if base is None:
        return []
    return SCANS.get(base)


def _scan(base: Path) -> list[Shipped]:
    found: list[Shipped] = []
    for section in SECTIONS:
        top = base / section
        if not top.is_dir():
            continue
        for folder in sorted(p for p in top.iterdir() if p.is_dir()):
            docs: dict[Path, dict[str, Any]] = {}
            for f in sorted(folder.glob("*.yaml")):
                doc = _read(f)
                if isinstance(doc, dict) and isinstance(doc.get("game"), dict):
                    docs[f] = doc
            main = _main_spec(folder, list(docs))
            for f in sorted(docs, key=lambda f: (f != main, f.name)):
                doc = docs[f]
                gid = doc["game"].get("id")
                ext = doc.get("extends")
                found.append(Shipped(section, folder, f, f == main,
                                     None if gid is None else str(gid),
                                     None if ext is None else str(ext)))
    _name(found)
    return found


SCANS = Scans()


def _name(found: list[Shipped]) -> None:
    """Give every spec its names: a folder's own spec the folder's name, every spec its id;
    a name two specs would share names neither (find() then says so)."""
    claims: dict[str, list[Shipped]] = {}
    for s in found:
        if s.main:
            claims.setdefault(s.folder.name, []).append(s)
    for s in found:
        if s.id and s not in claims.get(s.id, []):
            claims.setdefault(s.id, []).append(s)
    for name, specs in claims.items():
        if len(specs) == 1:
            specs[0].names.append(name)


def names(base: Path | None = None) -> dict[str, Shipped]:
    """{name: Shipped} of every unambiguous name."""
    return {n: s for s in shipped(base) for n in s.names}


def split(text: str) -> tuple[bool, str]:
    """(explicit, name): `tabula:NAME` is explicitly a shipped game's name."""
    text = str(text)
    if text.startswith(PREFIX):
        return True, text[len(PREFIX):]
    return False, text


def is_name(text: str) -> bool:
    """Could this be a shipped game's name (rather than a path)?"""
    explicit, name = split(text)
    return explicit or bool(NAME.match(name)) and not name.endswith((".yaml", ".yml"))


def find(text: str, where: Pos | None = None) -> Shipped | None:
    """The shipped spec a name names, or None when it names none; `tabula:NAME` that names
    none is an error (located at `where`), and so is a name two shipped specs share."""
    explicit, name = split(text)
    if explicit or is_name(name):
        spec = names().get(name)
        if spec is not None:
            return spec
        sharing = [s for s in shipped() if name in (s.id, s.folder.name if s.main else None)]
        if len(sharing) > 1:
            fail(f"'{name}' names {len(sharing)} shipped specs: "
                 + ", ".join(str(s.path) for s in sharing), where or Pos(),
                 "give the spec file's path")
    if explicit:
        fail(f"no game named '{name}' comes with tabula", where or Pos(),
             unknown_hint(name))
    return None


def unknown_hint(name: str) -> str:
    """The hint of a name that names nothing: the nearest name, or where the list is."""
    near = did_you_mean(name, names())
    return (near + " " if near else "") + "`tabula list` shows the games that come with tabula"


def scenario_files(spec: Shipped) -> list[Path]:
    """The scenario files of a shipped spec: those in its folder (*.test.yaml, or YAML in a
    tests/ folder) whose `spec:` is that spec file; a file whose spec cannot be read is
    kept, so that running it says why."""
    out: list[Path] = []
    for f in sorted(spec.folder.rglob("*.yaml")):
        if not (f.name.endswith(".test.yaml") or f.parent.name == "tests"):
            continue
        doc = _read(f)
        target = doc.get("spec") if isinstance(doc, dict) else None
        if target is None or (f.parent / str(target)).resolve() == spec.path.resolve():
            out.append(f)
    return out


# ---- a spec named on the command line or by extends: -----------------------------------

MAX_PATH_BYTES = 4096       # the longest path a system takes (PATH_MAX on Linux)


def resolve_spec_path(path: str | Path) -> Path:
    """A spec file, or a folder holding <folder-name>.yaml (or a single spec), or the name
    of a game that comes with the package (catalog.py): a path that exists wins over a
    name, and `tabula:NAME` is always a name."""
    name = str(path)
    if "\0" in name or len(name.encode("utf-8", "replace")) > MAX_PATH_BYTES:
        fail(f"{excerpt(name, 80)} is not a name a file can have (too long, or a NUL "
             "character), so no spec")
    if name.startswith(PREFIX):
        found = find(name)
        assert found is not None    # a `tabula:NAME` that names none fails in find
        return found.path
    try:
        return _resolve(Path(path))
    except OSError as exc:          # a name the system refuses (too long a part, say)
        fail(f"cannot read the spec {excerpt(name, 80)}: {exc.strerror or type(exc).__name__}")


def _resolve(p: Path) -> Path:
    if not p.exists() and os.path.lexists(p):
        check_input(p, "spec")              # a link loop or a dangling link: say which
    if not p.exists() and is_name(str(p)):
        shipped = find(str(p))
        if shipped is not None:
            return shipped.path
        fail(f"no such spec: {p}", hint=unknown_hint(str(p)))
    if p.is_dir():
        own = p / f"{p.name}.yaml"
        if own.is_file():
            return own
        candidates = sorted(x for x in p.glob("*.yaml") if not x.name.endswith(".test.yaml"))
        if len(candidates) == 1:
            return candidates[0]
        fail(f"{p} is a folder without {p.name}.yaml", Pos(str(p)),
             "name the spec file, or call it after its folder")
    if not p.exists():
        fail(f"no such spec: {p}")
    return p
