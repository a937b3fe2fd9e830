"""YAML loading with source positions, safely.

Input: a path to a YAML file. Output: plain Python data whose containers and strings
remember where they came from (LMap, LList, LStr), so every later stage can point at a
file, line and column. Loading is safe (no tags, no object construction), bounded in
size, depth and node count (aliases included), and refuses duplicate keys.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import yaml

from .errors import Pos, SpecError, did_you_mean, fail, register_source

MAX_FILE_BYTES = 2_000_000
MAX_DEPTH = 64
MAX_NODES = 200_000


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
    segments: tuple  # ((line, col, length), ...): where each source piece of the text sits

    def pos_at(self, offset: int) -> Pos:
        """File position of the character at `offset` (0-based) in this string."""
        segs = getattr(self, "segments", ())
        if not segs:
            return self.pos
        for line, col, length in segs:
            if offset <= length:
                return Pos(self.pos.file, line, col + offset)
            offset -= length + 1  # one separator character between source pieces
        line, col, length = segs[-1]
        return Pos(self.pos.file, line, col + length)


def where(node, default: Pos) -> Pos:
    return getattr(node, "pos", default)


def _segments(node: yaml.ScalarNode, lines: list[str]) -> tuple:
    start = node.start_mark
    line0, col0 = start.line + 1, start.column + 1
    style = node.style
    if style in ("'", '"'):
        if node.start_mark.line == node.end_mark.line:
            return ((line0, col0 + 1, len(node.value)),)
        style = None
    if style in ("|", ">"):
        segs = []
        indent = None
        for ln in range(start.line + 1, node.end_mark.line + 1):
            if ln >= len(lines):
                break
            text = lines[ln]
            if not text.strip():
                segs.append((ln + 1, 1, 0))
                continue
            if indent is None:
                indent = len(text) - len(text.lstrip(" "))
            body = text[indent:]
            segs.append((ln + 1, indent + 1, len(body)))
        return tuple(segs)
    segs = [(line0, col0, len(lines[start.line][start.column:].rstrip()))]
    for ln in range(start.line + 1, node.end_mark.line + 1):
        if ln >= len(lines):
            break
        text = lines[ln]
        stripped = text.strip()
        if stripped:
            segs.append((ln + 1, len(text) - len(text.lstrip()) + 1, len(stripped)))
    return tuple(segs)


class _Builder:
    def __init__(self, file: str, lines: list[str]):
        self.file = file
        self.lines = lines
        self.count = 0
        self.ctor = yaml.SafeLoader("")

    def pos(self, node) -> Pos:
        return Pos(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def build(self, node, depth: int = 0):
        self.count += 1
        if self.count > MAX_NODES:
            fail(f"the document has more than {MAX_NODES} nodes (aliases included)",
                 self.pos(node), "a spec this large is refused to keep loading bounded")
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
                    fail(f"duplicate key '{key}'", self.pos(knode),
                         f"it was first given at line {out.key_pos[key].line}")
                out[key] = self.build(vnode, depth + 1)
                out.key_pos[key] = self.pos(knode)
                out.val_pos[key] = self.pos(vnode)
            return out
        if isinstance(node, yaml.SequenceNode):
            out = LList()
            out.pos, out.item_pos = self.pos(node), []
            for item in node.value:
                out.append(self.build(item, depth + 1))
                out.item_pos.append(self.pos(item))
            return out
        tag = node.tag
        if tag in _PLAIN_TAGS and node.style not in ("'", '"', "|", ">"):
            try:
                return self.ctor.construct_object(node)
            except (yaml.YAMLError, ValueError) as exc:
                fail(f"bad {tag.rsplit(':', 1)[-1]} value {node.value!r}: {exc}", self.pos(node))
        s = LStr(node.value)
        s.pos = self.pos(node)
        s.segments = _segments(node, self.lines)
        return s


_PLAIN_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:bool",
               "tag:yaml.org,2002:null", "tag:yaml.org,2002:float")


def load_yaml(path: str | Path, what: str = "file"):
    """Load one YAML file into located data; every problem is a SpecError."""
    path = Path(path)
    name = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        fail(f"no such {what}: {name}")
    except IsADirectoryError:
        fail(f"{name} is a directory, not a {what}")
    except OSError as exc:
        fail(f"cannot read {name}: {exc.strerror}")
    if len(raw) > MAX_FILE_BYTES:
        fail(f"{name} is {len(raw)} bytes; a {what} may hold at most {MAX_FILE_BYTES}",
             Pos(name, 1, 1))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start})", Pos(name, 1, 1))
    return load_yaml_text(text, name)


def load_yaml_text(text: str, name: str = "<input>"):
    register_source(name, text)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = Pos(name, mark.line + 1, mark.column + 1) if mark else Pos(name, 1, 1)
        fail(f"YAML syntax: {exc.problem or exc.context}", pos,
             "check the indentation and the quoting of this line")
    except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML error is marked
        fail(f"YAML: {exc}", Pos(name, 1, 1))
    if node is None:
        fail("the file is empty", Pos(name, 1, 1))
    return _Builder(name, text.splitlines()).build(node)


# ---- JSON Schema ------------------------------------------------------------------------

def schema_dir() -> Path:
    """grammar/ and schemas/ sit beside the package in a checkout and inside it when
    installed from a wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "schemas", here.parent / "schemas"):
        if candidate.is_dir():
            return candidate
    return Path(str(resources.files("interpreter") / "schemas"))


_VALIDATORS: dict = {}


def check_schema(doc, schema_name: str) -> None:
    """Validate located data against schemas/<schema_name>; the first error (in file
    order) is raised as a SpecError at the offending line."""
    import jsonschema

    validator = _VALIDATORS.get(schema_name)
    if validator is None:
        schema = json.loads((schema_dir() / schema_name).read_text(encoding="utf-8"))
        validator = jsonschema.Draft202012Validator(schema)
        _VALIDATORS[schema_name] = validator
    errors = list(validator.iter_errors(doc))
    if not errors:
        return
    located = [(_error_pos(doc, e), e) for e in errors]
    located.sort(key=lambda pe: (pe[0].line, pe[0].col, -len(pe[1].absolute_path)))
    pos, err = located[0]
    err = _deepest(err)
    pos = _error_pos(doc, err)
    raise SpecError(_schema_message(err), pos, _schema_hint(err, doc))


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
        return f"{where_}: {err.message}"
    if err.validator == "enum":
        return f"{where_}: {err.instance!r} is not one of {', '.join(map(str, err.validator_value))}"
    return f"{where_}: {err.message}"


def _schema_hint(err, doc) -> str:
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
