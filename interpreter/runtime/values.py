"""Exact numbers of the rule language, and how values are written as JSON.

Input: values of a running game (ints, exact fractions from `/`, texts, lists, tables).
Output: the helpers generated code calls for `/` and for arithmetic that may involve a
fraction (`B_frac`, `B_num`), and the one JSON encoding of values used by everything that
leaves the engine (state JSON, observations, scores, logs, simulate records).

A number of the language is an int or a `fractions.Fraction`, never a float: a fraction
whose value is whole is given back as an int, so integer games only ever see ints, and the
same game is the same on every machine. Integer arithmetic (the static type INT) is
generated as plain Python; only an expression whose type may be a fraction (NUM) calls
these helpers.

JSON: an int is a JSON number; a fraction is the string "n/d" (lowest terms, d > 1, the
sign on n: "7/3", "-1/2"); a text that has that very shape (the text '7/3') is written
with one more backslash in front ("\\7/3"), so that a fraction and a text never read
back as each other.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from ..errors import Pos, RuleError, fail

_FRACTION = re.compile(r"(\\*)(-?[0-9]+)/([0-9]+)")


def B_frac(a: int | Fraction, b: int | Fraction, pos: Pos) -> int | Fraction:
    """a / b, exactly: an int when whole, else a Fraction."""
    if b == 0:
        fail("division by zero", pos, error=RuleError)
    q = Fraction(a, b)
    return q.numerator if q.denominator == 1 else q


def B_num(x: Any) -> Any:
    """A number as the language keeps it: a whole Fraction becomes an int."""
    if type(x) is Fraction and x.denominator == 1:
        return x.numerator
    return x


# ---- JSON ------------------------------------------------------------------------------

def encode(v: Any) -> Any:
    """A value as JSON data: fractions as "n/d" texts, tuples as lists, keys as texts."""
    t = type(v)
    if t is int or t is bool or v is None:
        return v
    if t is Fraction:
        return f"{v.numerator}/{v.denominator}" if v.denominator != 1 else v.numerator
    if t is str:
        return "\\" + v if _FRACTION.fullmatch(v) else v
    if t is list or t is tuple:
        return [encode(x) for x in v]
    if t is dict:
        return {(encode(k) if type(k) in (Fraction, str) else k): encode(x)
                for k, x in v.items()}
    return v


def decode(v: Any) -> Any:
    """JSON data written by encode() as values again ("7/3" is a fraction again)."""
    t = type(v)
    if t is str:
        m = _FRACTION.fullmatch(v)
        if m is None:
            return v
        if m.group(1):
            return v[1:]
        d = int(m.group(3))
        if d == 0:
            raise ValueError(f"'{v}' is no number (a zero denominator)")
        return B_num(Fraction(int(m.group(2)), d))
    if t is list:
        return [decode(x) for x in v]
    if t is dict:
        return {k: decode(x) for k, x in v.items()}
    return v


def is_number(x: object) -> bool:
    """Is JSON data a number as encode() writes one (an int, or a fraction "n/d")?"""
    if type(x) is int:
        return True
    return type(x) is str and (m := _FRACTION.fullmatch(x)) is not None \
        and not m.group(1) and int(m.group(3)) > 0


def not_text(data: object) -> str | None:
    """Why JSON data read from a file is not text, or None: json reads an escaped lone
    surrogate ("\\ud800") into a string that cannot be written as UTF-8, so a message or
    a report that printed it would fail. Nothing Tabula writes holds one."""
    stack: list[object] = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError as e:
                return (f"a string holds the lone surrogate U+{ord(x[e.start]):04X} (a \\u "
                        "escape), which is not text")
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return None


def as_float(x: Any) -> Any:
    """A number of a record (an int, or a fraction as encode() writes it) for statistics:
    ints stay ints, fractions become floats (reports only; never game state)."""
    if type(x) is str:
        return float(decode(x))
    return x


HELPERS = {"B_frac": B_frac, "B_num": B_num}
