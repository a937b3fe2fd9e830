"""YAML loading with source positions, safely.

Input: a path to a YAML file. Output: plain Python data whose containers and strings
remember where they came from (LMap, LList, LStr), so every later stage can point at a
file, line and column. Loading is safe (no tags, no object construction), bounded in
size, depth and node count (aliases included), and refuses duplicate keys.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import stat
from importlib import resources
from pathlib import Path

import yaml

from ..errors import (
    Pos,
    SpecError,
    did_you_mean,
    excerpt,
    fail,
    read_input,
    register_source,
    shown_path,
    split_lines,
)

MAX_FILE_BYTES = 2_000_000
MAX_DEPTH = 64
MAX_NODES = 50_000       # the largest shipped file has 3,000; schema checks cost per node
MAX_EXPANDED_CHARS = 20_000_000     # characters of all scalars, each alias counted again


class LMap(dict):
    """A mapping with the position of itself, of each key and of each value."""

    pos: Pos
    key_pos: dict
    val_pos: dict

    def where(self, key) -> Pos:
        return self.val_pos.get(key, self.pos)

    def where_key(self, key) -> Pos:
        return self.key_pos.get(key, self.pos)


class LList(list):
    """A list with the position of itself and of each item."""

    pos: Pos
    item_pos: list

    def where(self, i: int) -> Pos:
        return self.item_pos[i] if 0 <= i < len(self.item_pos) else self.pos


class LStr(str):
    """A string scalar that can map an offset inside its text back to the file."""

    pos: Pos
    segments: tuple  # ((offset in text, line, col, length), ...) sorted by offset

    @classmethod
    def at(cls, text: str, pos: Pos) -> LStr:
        """A string written at `pos` on one line (a piece cut out of another LStr)."""
        s = cls(text)
        s.pos, s.segments = pos, ((0, pos.line, pos.col, len(text)),)
        return s

    def pos_at(self, offset: int) -> Pos:
        """File position of the character at `offset` (0-based) in this string; an offset
        past the end is just after the text."""
        segs = getattr(self, "segments", ())
        if not segs:
            return self.pos
        starts = self.__dict__.get("_starts")
        if starts is None:              # a quoted text has a segment per character: a
            starts = self._starts = [seg[0] for seg in segs]    # search, not a scan
        voff, line, col, length = segs[max(bisect.bisect_right(starts, offset) - 1, 0)]
        return Pos(self.pos.file, line, col + min(max(offset - voff, 0), length))


def plain(v):
    """Located YAML data -> plain Python data (for data tables and option values)."""
    if isinstance(v, dict):
        return {plain(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, LStr):
        return str(v)
    return v


def where(node, default: Pos) -> Pos:
    return getattr(node, "pos", default)


_ESCAPE_LEN = {"x": 4, "u": 6, "U": 10}


def _quoted_line(node, line_text: str) -> tuple:
    """Per-character segments of a one-line quoted scalar: escapes take several columns
    in the file but one character of the text."""
    style = node.style
    col = node.start_mark.column + 1        # just after the opening quote (0-based)
    end = node.end_mark.column - 1          # the closing quote
    segs, voff, run = [], 0, None
    line = node.start_mark.line + 1
    while col < end and voff < len(node.value):
        width = 1
        if style == '"' and line_text[col] == "\\":
            width = _ESCAPE_LEN.get(line_text[col + 1: col + 2], 2)
        elif style == "'" and line_text[col: col + 2] == "''":
            width = 2
        if width == 1:              # a run of plain characters is one segment
            if run is None:
                run = [voff, line, col + 1, 0]
            run[3] += 1
        else:                       # an escape: a character of its own
            if run is not None:
                segs.append(tuple(run))
                run = None
            segs.append((voff, line, col + 1, 1))
        voff += 1
        col += width
    if run is not None:
        segs.append(tuple(run))
    return tuple(segs) or ((0, line, node.start_mark.column + 2, 0),)


def _segments(node: yaml.ScalarNode, lines: list[str]) -> tuple:
    """Where each piece of the scalar's text sits in the file. One-line scalars map
    character by character; multi-line ones are aligned line by line with the text."""
    start, end = node.start_mark, node.end_mark
    style = node.style
    value = node.value
    if start.line == end.line:
        if style in ("'", '"'):
            return _quoted_line(node, lines[start.line])
        return ((0, start.line + 1, start.column + 1, len(value)),)
    segs, voff = [], 0
    first = start.line + 1 if style in ("|", ">") else start.line
    for ln in range(first, min(end.line + 1, len(lines))):
        text = lines[ln]
        lo = start.column + (1 if style in ("'", '"') else 0) if ln == start.line else 0
        hi = len(text)
        if ln == end.line:
            hi = end.column - (1 if style in ("'", '"') else 0)
        piece = text[lo:hi]
        stripped = piece.strip()
        if not stripped:
            continue
        idx = value.find(stripped, voff)
        if idx < 0:
            continue                        # an escape changed this line: skip it
        col = lo + len(piece) - len(piece.lstrip()) + 1
        segs.append((idx, ln + 1, col, len(stripped)))
        voff = idx + len(stripped)
    return tuple(segs) or ((0, start.line + 1, start.column + 1, 0),)


class _Builder:
    def __init__(self, file: str, lines: list[str]):
        self.file = file
        self.lines = lines
        self.ctor = yaml.SafeLoader("")

    def pos(self, node) -> Pos:
        return Pos(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def check_size(self, root) -> None:
        """Count the nodes the document expands to, and the characters of its scalars
        (an alias counts its whole tree again), before building anything, so that an
        alias bomb (few nodes, each a long text, repeated) is refused at once."""
        sizes: dict = {}
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if id(node) in sizes:
                continue
            kids = ([n for pair in node.value for n in pair]
                    if isinstance(node, yaml.MappingNode) else
                    node.value if isinstance(node, yaml.SequenceNode) else [])
            if not done:
                stack.append((node, True))
                stack.extend((k, False) for k in kids if id(k) not in sizes)
                continue
            nodes = 1 + sum(sizes[id(k)][0] for k in kids)
            chars = (len(node.value) if isinstance(node, yaml.ScalarNode) else
                     sum(sizes[id(k)][1] for k in kids))
            sizes[id(node)] = (nodes, chars)
            if nodes > MAX_NODES:
                fail(f"the document expands to more than {MAX_NODES} nodes (aliases "
                     "included)", self.pos(node), "a spec this large is refused, to keep "
                     "loading bounded")
            if chars > MAX_EXPANDED_CHARS:
                fail(f"the document expands to more than {MAX_EXPANDED_CHARS} characters of "
                     "text (aliases included)", self.pos(node), "an alias repeats the "
                     "text it names: a spec this large is refused, to keep loading bounded")

    def build(self, node, depth: int = 0):
        if not node.tag.startswith(_CORE) or node.tag[len(_CORE):] not in _CORE_TAGS:
            fail(f"the tag {node.tag!r} is not allowed", self.pos(node),
                 "specs are plain YAML: remove the tag")
        if depth > MAX_DEPTH:
            fail(f"the document nests deeper than {MAX_DEPTH} levels", self.pos(node))
        if isinstance(node, yaml.MappingNode):
            out = LMap()
            out.pos, out.key_pos, out.val_pos = self.pos(node), {}, {}
            for knode, vnode in node.value:
                key = self.build(knode, depth + 1)
                if isinstance(key, (dict, list)):
                    fail("a mapping key must be a plain value", self.pos(knode))
                if key in out:
                    first = next(k for k in out if k == key)
                    same = ("" if type(first) is type(key) else
                            f" (YAML reads {excerpt(knode.value)} as {key!r}, equal to "
                            f"the key {first!r}: quote the keys to keep them apart)")
                    fail(f"duplicate key {excerpt(str(key))}", self.pos(knode),
                         f"it was first given at line {out.key_pos[key].line}{same}")
                out[key] = self.build(vnode, depth + 1)
                out.key_pos[key] = self.pos(knode)
                out.val_pos[key] = self.pos(vnode)
            return out
        if isinstance(node, yaml.SequenceNode):
            items = LList()
            items.pos, items.item_pos = self.pos(node), []
            for item in node.value:
                items.append(self.build(item, depth + 1))
                items.item_pos.append(self.pos(item))
            return items
        tag = node.tag
        if tag == _BOOL and node.value.lower() not in ("true", "false") and not node.style:
            truth = str(node.value.lower() in ("yes", "on")).lower()
            fail(f"YAML reads {node.value} as the truth value {truth} (an old YAML rule for "
                 "yes, no, on and off), not as the text or name "
                 f"{excerpt(node.value)}", self.pos(node),
                 f"quote it ('{node.value}') for a name or a text, or write {truth} for a "
                 "truth value")
        if tag in _PLAIN_TAGS and node.style not in ("'", '"', "|", ">"):
            try:
                return self.ctor.construct_object(node)
            except (yaml.YAMLError, ValueError) as exc:
                fail(f"bad {tag.rsplit(':', 1)[-1]} value {excerpt(node.value)}: "
                     f"{excerpt(str(exc), 80)}", self.pos(node))
        if node.style == '"':
            # an escape ("\0", "\e", "\ud800") makes a character the file itself may not
            # hold: the same rule applies to it
            bad = yaml.reader.Reader.NON_PRINTABLE.search(node.value)
            if bad:
                fail(f"the text holds the character {_char_name(bad.group())} (written as an "
                     "escape), which is not printable text", self.pos(node),
                     "a spec's texts are printable: a lone surrogate (\\ud800) or a control "
                     "character would reach a terminal or fail to print")
        s = LStr(node.value)
        s.pos = self.pos(node)
        s.segments = _segments(node, self.lines)
        return s


_CORE = "tag:yaml.org,2002:"
_CORE_TAGS = ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_PLAIN_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:bool",
               "tag:yaml.org,2002:null", "tag:yaml.org,2002:float")


def load_yaml(path: str | Path, what: str = "file", where: Pos | None = None):
    """Load one YAML file into located data; every problem is a SpecError.

    The file is read by errors.read_input (a regular file only, at most MAX_FILE_BYTES).
    `what`: what the file must be ("spec", "scenario file", ...): its lines are quoted in
    an error only once it shows it is one (a mapping with its sections: shows_sections),
    and a file that does not is refused without a line of it shown. `where`: the position
    of the key that names this file in another one (`extends:`, a scenario's `spec:`).
    Such a file is not trusted to be a spec: no line of it is quoted in an error, and
    unless it is a mapping with a `game:` section it is refused at `where` without
    showing anything of it (/etc/passwd, /proc/self/environ)."""
    return load_yaml_source(path, what, where)[0]


def load_yaml_source(path: str | Path, what: str = "file", where: Pos | None = None,
                     empty_ok: bool = False, sections: tuple | None = None,
                     refuse: bool = True):
    """(located data, text) of a YAML file: load_yaml, with the text it was read from.
    empty_ok: a file of blank lines and comments only gives None, not an error.
    sections: (required, known) top-level keys of a `what` (default: its schema's, for a
    spec and a scenario file). refuse: a file that does not show it is a `what` is
    refused as none (else only never quoted: its reader says what is wrong)."""
    name = str(path)
    # nothing of the file is quoted until it shows it is a `what` (load_yaml_text): not
    # for a refusal of its size or its encoding either
    register_source(name, None)
    if sections is None:
        sections = sections_of(what)
    try:
        raw = read_input(name, what, MAX_FILE_BYTES, where)
    except SpecError as exc:
        if where is None and exc.pos.line:      # too large: quoted if its head shows
            _quote_if_shown(name, _head(name), sections)
        raise
    named = "" if where is None else f"{what} named at {where}: "
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if where is not None:
            fail(f"{shown_path(name)} is not a {what}: it is not UTF-8 text", where)
        _quote_if_shown(name, raw.decode("utf-8", errors="replace"), sections)
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        fail(f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start})", Pos(name, line, col),
             "save the file as UTF-8")
    if where is None:
        return load_yaml_text(text, name, empty_ok=empty_ok, what=what,
                              sections=sections, refuse=refuse), text
    try:
        doc = load_yaml_text(text, name, quote=False)
    except SpecError as exc:
        if not _looks_like_spec(text):
            fail(f"{shown_path(name)} is not a {what} (not a YAML mapping with a 'game:' "
                 "section); its content is not shown", where)
        exc.hint = (exc.hint + "; " if exc.hint else "") + named.rstrip(": ")
        raise
    if not (isinstance(doc, LMap) and isinstance(doc.get("game"), LMap)):
        fail(f"{shown_path(name)} is not a {what} (not a YAML mapping with a 'game:' "
             "section); its content is not shown", where)
    register_source(name, text)
    return doc, text


HEAD_BYTES = 1 << 20      # what is read of a file refused for its size, to tell its kind


def _head(name: str) -> str:
    """The whole lines within the first HEAD_BYTES of a regular file, or "" if it cannot
    be read."""
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) |
                     getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        data = os.read(fd, HEAD_BYTES + 1)
    except OSError:
        return ""
    finally:
        os.close(fd)
    text = data[:HEAD_BYTES].decode("utf-8", errors="replace")
    return text[:text.rfind("\n") + 1] if len(data) > HEAD_BYTES else text


def _quote_if_shown(name: str, text: str, sections: tuple | None) -> None:
    """Let errors quote `text` as the file's (a file refused before it was parsed: too
    large, not UTF-8) if as far as it reads it shows it is of its kind (shows_sections)."""
    bad = yaml.reader.Reader.NON_PRINTABLE.search(text)
    kind, keys, _ = _kind_of_text(text[:bad.start()] if bad else text,
                                  sections[0] if sections else ())
    if shows_sections(kind, keys, sections):
        register_source(name, text)


def _looks_like_spec(text: str) -> bool:
    """Whether a file that failed to load still starts out as a spec does: a line
    `game:` at the top level. Only then are its YAML errors shown."""
    return any(line.rstrip() == "game:" or line.startswith("game: {")
               for line in split_lines(text))


# ---- what a file shows it is, before a line of it is quoted -------------------------------

# the kinds of file whose sections are their schema's: (required keys, every key)
_SCHEMAS = {"spec": "spec.schema.json", "scenario file": "scenario.schema.json"}
_SECTIONS: dict = {}


def sections_of(what: str) -> tuple | None:
    """(required, known) top-level keys of a `what` with a schema, else None."""
    if what not in _SCHEMAS:
        return None
    got = _SECTIONS.get(what)
    if got is None:
        schema = json.loads((schema_dir() / _SCHEMAS[what]).read_text(encoding="utf-8"))
        got = _SECTIONS.setdefault(what, (tuple(schema.get("required", ())),
                                          tuple(schema.get("properties", {}))))
    return got


def shows_sections(kind: str, keys: list, sections: tuple | None) -> bool:
    """Whether a document (its `kind` and its top-level `keys`, as far as YAML read it)
    shows it is of the kind whose `sections` are (required, known): a mapping that holds
    every section required (one at least), or whose keys (one at least) are all sections
    of the kind. The positive test before a line of a file is quoted: a credentials file,
    a .env, a JSON document of other keys, a key, a script never pass it. Without
    sections (a YAML file of no kind said), any mapping does."""
    if kind != "mapping":
        return False
    if sections is None:
        return True
    required, known = sections
    if required and all(k in keys for k in required):
        # and no key that is not a section or a slip of one: `game:` beside an
        # aws_secret_access_key line does not make a credentials file a spec
        return all(k in known or did_you_mean(str(k), known) for k in keys)
    return bool(keys) and all(k in known for k in keys)


def _kind_of_node(node) -> tuple:
    """(kind, top-level keys) of a composed document's root."""
    if isinstance(node, yaml.MappingNode):
        return "mapping", [k.value if isinstance(k, yaml.ScalarNode) else None
                           for k, _ in node.value]
    if isinstance(node, yaml.SequenceNode):
        return "list", []
    return "text", []


def _kind_of_text(text: str, required: tuple = ()) -> tuple:
    """(kind, top-level keys, the YAML error that stopped the reading or None) of the first
    document of a text YAML cannot compose: its events read up to the error (PyYAML's
    parser keeps a stack, no recursion), the root's kind ('mapping', 'list', 'text' or
    'none') and the keys of a root mapping that came before it; it stops as soon as every
    `required` key (one at least) is among them, which is enough to know."""
    kind, keys, depth, key_next = "none", [], 0, True
    nodes = (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent,
             yaml.SequenceStartEvent)
    try:
        for ev in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(ev, (yaml.DocumentEndEvent, yaml.StreamEndEvent)):
                break                                     # the first document only
            if not isinstance(ev, (*nodes, yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                continue
            if depth == 0 and kind == "none" and isinstance(ev, nodes):
                kind = ("mapping" if isinstance(ev, yaml.MappingStartEvent) else
                        "list" if isinstance(ev, yaml.SequenceStartEvent) else "text")
            elif depth == 1 and kind == "mapping" and isinstance(ev, nodes):
                if key_next:
                    keys.append(ev.value if isinstance(ev, yaml.ScalarEvent) else None)
                    if required and all(k in keys for k in required):
                        break
                key_next = not key_next
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
            elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        return kind, keys, exc
    except yaml.YAMLError as exc:       # pragma: no cover - every PyYAML error is marked
        return kind, keys, exc
    return kind, keys, None


_KINDS_SAID = {"mapping": "a YAML mapping, but not of a {what}'s sections",
               "list": "a list, not a mapping of keys",
               "text": "a single text, not a mapping of keys",
               "none": "not YAML"}
_SHAPES = {"spec": "a YAML mapping of sections with game: among them (zones:, play:, "
                   "scoring:, ...)",
           "scenario file": "a YAML mapping with spec: and scenarios:"}


def _not_one(name: str, what: str, sections: tuple, kind: str, where: str) -> SpecError:
    """The refusal of a file that does not show it is a `what`: what it is, what a `what`
    is, and nothing of its content."""
    required, known = sections
    shape = _SHAPES.get(what) or (
        "a YAML mapping with " + ", ".join(f"{k}:" for k in required) if required else
        "a YAML mapping of " + ", ".join(f"{k}:" for k in known[:-1]) + f" or {known[-1]}:")
    said = _KINDS_SAID[kind].format(what=what)
    return SpecError(f"not a {what}: the file is {said}{where}; a {what} is {shape}; its "
                     "content is not shown", Pos(name, 1, 1))


def _stop(exc) -> str:
    """ ' (YAML fails at line L, column C)' for a YAML error, else ''."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return "" if mark is None else f" (YAML fails at line {mark.line + 1}, column " \
                                   f"{mark.column + 1})"


# libyaml's parser, when PyYAML has it, composes the same nodes (tags, values, styles,
# marks: checked on every YAML file of the project) about seven times faster than PyYAML's
# own, and refuses nesting beyond 1,000 levels itself
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def compose(text: str):
    """The YAML node tree of a text. A text libyaml refuses is composed again by PyYAML's
    own parser, whose errors (the messages and marks this module explains) are the ones
    reported."""
    if _FAST_LOADER is not None:
        try:
            return yaml.compose(text, Loader=_FAST_LOADER)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=yaml.SafeLoader)


def load_yaml_text(text: str, name: str = "<input>", quote: bool = True,
                   empty_ok: bool = False, what: str = "file", sections: tuple | None = None,
                   refuse: bool = True):
    """Located data of a YAML text read from the file `name`. quote: its lines may be
    quoted in an error once it shows it is a `what` (shows_sections; `sections` default
    to the schema's of a spec or a scenario file): until then nothing of it is, and a
    text that does not show it (a credentials file, a .env, a key, a script) is refused
    as no `what` without a line of it shown (with refuse False, only never quoted: the
    caller's checks say what is wrong). A text without a document (blank lines,
    comments, `---`, `~`) is said to be empty at its first line, as before."""
    if sections is None:
        sections = sections_of(what)
    register_source(name, None)
    lines = split_lines(text)
    required = sections[0] if sections else ()

    def shown_or_refused(kind: str, keys: list, where: str = "") -> None:
        """Quote the text from now on if it shows it is a `what`; else refuse it."""
        if not quote:
            return
        if shows_sections(kind, keys, sections):
            register_source(name, text)
        elif sections is not None and refuse:
            if kind == "mapping" and not where and all(k in keys for k in sections[0]):
                # its sections are there, but for a key of another kind: name the key
                stray = next(k for k in keys if k not in sections[1])
                where = (f" (beside {', '.join(f'{k}:' for k in sections[0])} it has the "
                         f"key {excerpt(str(stray))}, which no {what} has)")
            raise _not_one(name, what, sections, kind, where)

    bad = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if bad:
        pos = _offset_pos(text, bad.start(), name)
        kind, keys, _ = _kind_of_text(text[:bad.start()], required)
        shown_or_refused(kind, keys, f" (it holds the non-printable character "
                                     f"{_char_name(bad.group())} at line {pos.line}, column "
                                     f"{pos.col})")
        fail(f"the file holds the non-printable character {_char_name(bad.group())}, which YAML "
             "does not allow", pos,
             "remove it (a spec is plain text: tabs, newlines and printable characters)")
    try:
        node = compose(text)
    except yaml.MarkedYAMLError as exc:
        kind, keys, stop = _kind_of_text(text, required)
        shown_or_refused(kind, keys, _stop(stop or exc))
        raise _yaml_error(exc, name, text, lines) from None
    except RecursionError:
        kind, keys, _ = _kind_of_text(text, required)
        shown_or_refused(kind, keys)
        fail(f"the document nests deeper than {MAX_DEPTH} levels", _deep_pos(text, name))
    except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML error is marked
        fail(f"YAML: {excerpt(str(exc), 80)}", Pos(name, 1, 1))
    if node is None or (isinstance(node, yaml.ScalarNode) and node.tag == _NULL):
        # no document: nothing of one to hide (the error is at line 1)
        if quote:
            register_source(name, text)
        if node is None:
            if empty_ok:
                return None
            fail("the file is empty", Pos(name, 1, 1))
    else:
        shown_or_refused(*_kind_of_node(node))
    builder = _Builder(name, lines)
    builder.check_size(node)
    return builder.build(node)


def _char_name(ch: str) -> str:
    names = {"\0": "NUL", "\f": "form feed", "\v": "vertical tab", "\x1b": "escape",
             "\x7f": "delete"}
    return f"U+{ord(ch):04X}" + (f" ({names[ch]})" if ch in names else "")


def _offset_pos(text: str, offset: int, name: str) -> Pos:
    """The line and column of a character offset, lines counted as YAML counts them."""
    before = split_lines(text[:offset] + "x")      # "x": a break just before starts a line
    return Pos(name, len(before), len(before[-1]))


def _yaml_error(exc, name: str, text: str, lines: list) -> SpecError:
    mark = exc.problem_mark or exc.context_mark
    context = exc.context or ""
    if exc.context_mark is not None and ("quoted scalar" in context or
                                         mark is None or mark.line >= len(lines)):
        mark = exc.context_mark         # an unclosed quote: point at where it opened
    problem = exc.problem or context
    hint = "check the indentation and the quoting of this line"
    line, col = (mark.line, mark.column) if mark else (0, 0)
    opened = _swallowing_quote(text, lines, line)
    if opened is not None:
        return SpecError("YAML syntax: a quoted text is not closed on its line",
                         Pos(name, opened[0] + 1, opened[1] + 1),
                         "close the quote (YAML read on to the next quote, far below)")
    if "quoted scalar" in context:
        problem = "a quoted text is not closed"
        hint = "close the quote, or use a block scalar (|) for long text"
    elif problem == "mapping values are not allowed here" and line < len(lines):
        text = lines[line]
        start = col
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        col = start
        hint = ("check the indentation: this key is indented more than the keys beside it "
                "(or a value holds ': ' and needs quotes)")
    return SpecError(f"YAML syntax: {problem}", Pos(name, line + 1, col + 1), hint)


# a line that YAML would read as a key or a list item, had a quote not swallowed it
_STRUCTURE = re.compile(r"""^\s*(?:-\s|[A-Za-z_][\w.]*\s*:(?:\s|$))""")


def _swallowing_quote(text: str, lines: list, upto: int):
    """(line, col) of a quoted text, before line `upto`, that YAML read on past the end
    of its line and over lines that are keys or list items of the file: a quote opened
    and not closed where it was meant to be, whose text ran to the next quote far below,
    where YAML then failed. Only real quoted texts count, as YAML's scanner finds them
    (a quote inside a plain value is a character: `label: take {c}, 'the best`); of
    several, the one nearest the failure."""
    found = None
    try:
        for tok in yaml.scan(text, Loader=yaml.SafeLoader):
            start, end = tok.start_mark.line, tok.end_mark.line
            if start >= upto:
                break
            if isinstance(tok, yaml.ScalarToken) and tok.style in ("'", '"') and end > start \
                    and any(_STRUCTURE.match(lines[ln]) for ln in range(start + 1,
                                                                      min(end + 1, len(lines)))):
                found = (start, tok.start_mark.column)
    except yaml.YAMLError:
        pass
    return found


def _deep_pos(text: str, name: str) -> Pos:
    """Where collections first nest deeper than MAX_DEPTH (the scanner does not recurse,
    so this works where composing ran out of stack)."""
    depth = 0
    opens = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken,
             yaml.FlowMappingStartToken, yaml.FlowSequenceStartToken)
    closes = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
    try:
        for tok in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(tok, opens):
                depth += 1
                if depth > MAX_DEPTH + 1:
                    return Pos(name, tok.start_mark.line + 1, tok.start_mark.column + 1)
            elif isinstance(tok, closes):
                depth -= 1
    except yaml.YAMLError:
        pass
    return Pos(name, 1, 1)


# ---- JSON Schema ------------------------------------------------------------------------

def schema_dir() -> Path:
    """grammar/ and schemas/ sit beside the package in a checkout and inside it when
    installed from a wheel."""
    here = Path(__file__).resolve().parent.parent     # the package (lang/ is one of its rooms)
    for candidate in (here / "schemas", here.parent / "schemas"):
        if candidate.is_dir():
            return candidate
    return Path(str(resources.files(__package__.rpartition(".")[0]) / "schemas"))


# schema file name -> its compiled validator: a cache of package data (the schemas ship
# with the package and never change while it runs), shared by every load in every thread.
# Safe across threads: nothing changes a validator once built (with jsonschema >= 4.18,
# iter_errors keeps its state in the call: a $ref is looked up through the immutable
# resolvers of `referencing`, and descending makes new validators with evolve()), and two
# threads building the same one at once keep the first (dict.setdefault, atomic).
_VALIDATORS: dict = {}


def check_schema(doc, schema_name: str) -> None:
    """Validate located data against schemas/<schema_name>; the first error (in file
    order) is raised as a SpecError at the offending line."""
    validator = _VALIDATORS.get(schema_name)
    if validator is None:
        schema = json.loads((schema_dir() / schema_name).read_text(encoding="utf-8"))
        validator = _VALIDATORS.setdefault(schema_name, _validator_class()(schema))
    if validator.schema.get("type") == "object" and not isinstance(doc, dict):
        # never jsonschema's message, which would quote the whole document
        fail(f"the file is {_kind_of(doc)}, not a mapping of keys (key: value lines)",
             getattr(doc, "pos", Pos()))
    errors = list(validator.iter_errors(doc))
    if not errors:
        return
    errors = [_deepest(e) for e in errors]
    located = [(_error_pos(doc, e), e) for e in errors]
    # a misspelt key also makes the right key "missing": report the misspelling
    located.sort(key=lambda pe: (pe[1].validator == "required", pe[0].line, pe[0].col,
                                 -len(pe[1].absolute_path)))
    pos, err = located[0]
    pos = _error_pos(doc, err)
    fail(_schema_message(err), pos, _schema_hint(err, doc))


def _validator_class():
    """JSON Schema 2020-12, but a name given as a key must be text: YAML reads `1:`,
    `~:` or `true:` as a number, null or truth value, which `pattern` (it checks texts
    only) would let through to the compiler as a name. Where numbers are keys (a
    player's number in a scenario's per-player zones, a case's value), the reader of the
    mapping checks its keys itself."""
    import jsonschema

    base = jsonschema.Draft202012Validator

    def property_names(validator, names, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        numbered = None                 # do numbers name things here (a player's)?
        for key in instance:
            if isinstance(key, str):
                yield from validator.descend(instance=key, schema=names)
                continue
            if numbered is None:
                numbered = validator.evolve(schema=names).is_valid("0")
            if not numbered:        # names only: a number, null or truth value is none
                yield jsonschema.ValidationError(_not_a_name(key), instance=key)
            # (where numbers are keys, what reads them says which are not: "null is not a
            # player of this game")

    return jsonschema.validators.extend(base, {"propertyNames": property_names})


def _not_a_name(key) -> str:
    kind = ("null" if key is None else "a truth value" if isinstance(key, bool)
            else "a number")
    return f"YAML reads the key {excerpt(str(key))} as {kind}, not as a name"


def _kind_of(value) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a single text"
    if value is None:
        return "empty"
    return "a single value"


def _deepest(err):
    """For anyOf/oneOf failures pick the most specific sub-error."""
    while err.context:
        best = max(err.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
        if len(best.absolute_path) < len(err.absolute_path):
            break
        err = best
    return err


def _walk(doc, path):
    node, parent, last = doc, None, None
    for key in path:
        parent, last = node, key
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
    return node, parent, last


def _error_pos(doc, err) -> Pos:
    node, parent, last = _walk(doc, list(err.absolute_path))
    if err.validator == "propertyNames" and isinstance(node, LMap) \
            and not isinstance(err.instance, (str, dict)) and err.instance in node:
        return node.where_key(err.instance)    # a key that is no name: the key itself
    if err.validator == "required" and isinstance(parent, LMap) and last in parent:
        return parent.where_key(last)       # the mapping that lacks a key: its name
    if err.validator == "additionalProperties" and isinstance(node, LMap):
        extra = _extra_keys(err)
        for key in extra:
            if key in node:
                return node.where_key(key)
    if hasattr(node, "pos"):
        return node.pos
    if isinstance(parent, LMap):
        return parent.where(last)
    if isinstance(parent, LList) and isinstance(last, int):
        return parent.where(last)
    return getattr(doc, "pos", Pos())


def _extra_keys(err) -> list:
    if isinstance(err.instance, dict) and isinstance(err.schema, dict):
        known = set(err.schema.get("properties", {}))
        return [k for k in err.instance if k not in known]
    return []


def _schema_message(err) -> str:
    where_ = ".".join(str(p) for p in err.absolute_path) or "the document"
    if err.validator == "additionalProperties":
        extra = _extra_keys(err)
        if extra:
            return f"unknown key '{extra[0]}' in {where_}"
    if err.validator == "required":
        return f"{where_}: {_short(err.message)}"
    if err.validator == "enum":
        allowed = ", ".join(map(str, err.validator_value))
        return f"{where_}: {err.instance!r} is not one of {allowed}"
    if err.validator == "pattern" and isinstance(err.schema, dict) \
            and "patternErrorMessage" in err.schema:
        return f"{where_}: {err.schema['patternErrorMessage']}"
    return f"{where_}: {_short(err.message)}"


def _short(message: str, limit: int = 200) -> str:
    """A schema message cut short: jsonschema quotes the whole offending value (for a
    file that is not a spec, its whole text)."""
    message = "".join(c if c.isprintable() else "?" for c in message)
    return message if len(message) <= limit else message[:limit] + "..."


def _schema_hint(err, doc) -> str:
    if err.validator == "propertyNames" and not isinstance(err.instance, (str, dict)):
        return ("a name is a word that starts with a letter (quote a word YAML reads as "
                "another value: 'null', 'true')")
    if err.validator == "additionalProperties":
        extra = _extra_keys(err)
        if extra and isinstance(err.schema, dict):
            return did_you_mean(str(extra[0]), err.schema.get("properties", {}))
    if err.validator == "enum" and isinstance(err.instance, str):
        return did_you_mean(err.instance, [str(v) for v in err.validator_value])
    return ""


def as_spec_error(exc: Exception, pos: Pos) -> SpecError:
    if isinstance(exc, SpecError):
        return exc
    return SpecError(str(exc), pos)
