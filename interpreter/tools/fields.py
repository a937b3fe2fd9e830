"""Fields of JSON input that a tool reads back: a game log's header and decisions, a
simulation's records. Each field has a kind (its type and its size) checked before the
field is used, so that a bad file is a located refusal naming the field, never an
exception deep in the code that uses it, and so that an error quotes at most a short
piece of it (docs/language.md 9, docs/logs.md).

Input: a record (a dict read from one JSON line) and {field: kind}. Output: None, or the
first problem as a sentence ("'scores' is not a list of numbers ...: [1, ...").
"""

from __future__ import annotations

import json

from ..runtime.readers import MAX_NUMBER  # the engine stores no larger number
from ..runtime.values import is_number

MAX_TEXT = 10_000    # characters of a text field (an action, a spec id, a path, an option)
MAX_ITEMS = 1_000    # items of a list or object field (a tuple, options, agents, scores)


def is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x) -> bool:
    """A number as a log or a record writes it (values.encode): an integer, or a fraction
    as "7/3", within the engine's bound on stored numbers (so a statistic can take it as
    a float); never a float (JSON's 1e999 is an infinity, NaN no number)."""
    if type(x) is int:
        return -MAX_NUMBER <= x <= MAX_NUMBER
    return is_number(x) and len(x) <= 2 * 102


def _text(x) -> bool:
    return isinstance(x, str) and len(x) <= MAX_TEXT


def _items(x, kind) -> bool:
    return isinstance(x, kind) and len(x) <= MAX_ITEMS


KINDS = {
    "an integer": is_int,
    "a number of players (1 or more)": lambda x: is_int(x) and x >= 1,
    "a whole number, 0 or more": lambda x: is_int(x) and x >= 0,
    "a string": _text,
    "an object": lambda x: isinstance(x, dict),
    "a list": lambda x: isinstance(x, list),
    "an object of option values": lambda x: _items(x, dict) and all(
        _text(k) and (_text(v) or isinstance(v, (int, float, bool))) for k, v in x.items()),
    "a list of strings": lambda x: _items(x, list) and all(_text(v) for v in x),
    "a list of numbers": lambda x: _items(x, list) and all(is_num(v) for v in x),
    "a list of integers": lambda x: _items(x, list) and all(is_int(v) for v in x),
    "an action tuple (2 integers, then values)": lambda x: _items(x, list) and len(
        x) >= 2 and is_int(x[0]) and is_int(x[1]) and all(
        v is None or _text(v) or isinstance(v, (int, float)) for v in x[2:]),
    "an object of lists of numbers": lambda x: _items(x, dict) and all(
        _text(k) and _items(v, list) and all(is_num(n) for n in v) for k, v in x.items()),
    "an object of counts": lambda x: isinstance(x, dict) and len(x) <= 100 * MAX_ITEMS and all(
        _text(k) and is_int(v) and v >= 0 for k, v in x.items()),
    "a seat or none": lambda x: x is None or is_int(x) and x >= 0,
    "true": lambda x: x is True,
    "a digest (16 hex digits)": lambda x: isinstance(x, str) and len(x) == 16 and all(
        c in "0123456789abcdef" for c in x),
}
_UNSIZED = ("an integer", "true", "a number of players (1 or more)",
            "a whole number, 0 or more", "a seat or none", "a digest (16 hex digits)")


def shown(value) -> str:
    """A field's value as JSON, cut short for a message."""
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:60] + "..."


def bad_field(record: dict, fields: dict) -> str | None:
    """The first field of `record` that is missing or not of its kind, as a sentence."""
    for key, kind in fields.items():
        if key not in record:
            return f"no '{key}'"
        if not KINDS[kind](record[key]):
            size = ("" if kind in _UNSIZED else
                    f" (at most {MAX_TEXT} characters, {MAX_ITEMS} items)")
            return f"'{key}' is not {kind}{size}: {shown(record[key])}"
    return None
