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


# A number computed by the rules (its numerator and its denominator, for a fraction) holds
# at most this many bits: 2^3322 is just over 10^1000. A product, a quotient and a sum of
# fractions are checked (B_mul, B_frac, B_num, B_sum), so that no value a rule computes
# is more than twice that size, and computing with one costs microseconds: without it,
# `let b = a * a in let c = b * b in ...` or a sum of 1/n over a range would compute
# numbers of billions of digits (a hang). A number stored is bounded much lower, by 10^100
# (readers.B_big); this bound is on the numbers in between.
MAX_BITS = 3_322
TOO_BIG = "a number beyond 10^1000 is computed (it grows without bound)"


def _bits(x: Any) -> int:
    """The size of a number in bits (a fraction's: its numerator's or its denominator's,
    the larger); 0 for what is not a number (the operation then fails as it would)."""
    if isinstance(x, int):                      # bool too
        return x.bit_length()
    if isinstance(x, Fraction):
        return max(x.numerator.bit_length(), x.denominator.bit_length())
    return 0


def B_mul(a: Any, b: Any, pos: Pos) -> Any:
    """a * b of two computed whole numbers, refused before it is computed when the product
    would be beyond MAX_BITS (a product holds at least bits(a) + bits(b) - 1 bits). A
    product by a constant (`row * 3`) is generated as plain Python: it grows a number by
    the constant's bits, as often as the rule text writes it."""
    if _bits(a) + _bits(b) > MAX_BITS + 1:
        fail(TOO_BIG, pos, "numbers in a game stay below 10^100", error=RuleError)
    return a * b


def B_frac(a: int | Fraction, b: int | Fraction, pos: Pos) -> int | Fraction:
    """a / b, exactly: an int when whole, else a Fraction (bounded as B_num)."""
    if b == 0:
        fail("division by zero", pos, error=RuleError)
    if _bits(a) + _bits(b) > 2 * MAX_BITS + 2:      # each is bounded: a number of the rules
        fail(TOO_BIG, pos, "numbers in a game stay below 10^100", error=RuleError)
    q = Fraction(a, b)
    if _bits(q) > MAX_BITS:
        fail(TOO_BIG, pos, "numbers in a game stay below 10^100", error=RuleError)
    return q.numerator if q.denominator == 1 else q


def B_num(x: Any) -> Any:
    """A number as the language keeps it: a whole Fraction becomes an int. The result of
    arithmetic that may involve a fraction: beyond MAX_BITS it is an OverflowError (a
    located rule error wherever generated code runs, at the line that computed it)."""
    t = type(x)
    if t is Fraction:
        if x.denominator == 1:
            x = x.numerator
        elif x.numerator.bit_length() > MAX_BITS or x.denominator.bit_length() > MAX_BITS:
            raise OverflowError(TOO_BIG)
        else:
            return x
    if type(x) is int and x.bit_length() > MAX_BITS:
        raise OverflowError(TOO_BIG)
    return x


def B_sum(items: Any) -> Any:
    """sum() of numbers that may be fractions, every partial sum bounded as B_num: a sum of
    fractions with different denominators grows with every item (1/1 + 1/2 + ... + 1/n
    has a denominator of about 1.44 n bits), so the sum is refused as it passes the bound,
    not after computing all of it."""
    n: Any = 0
    for x in items:
        n = B_num(n + x)
    return n


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


TABLE, TUPLE = "#table", "#tuple"     # the two objects of saved() data


def saved(v: Any) -> Any:
    """A value as exact JSON data, for a saved state (State.to_json): what restored()
    reads back is the very value, its type included. Beyond encode(): a table (a data
    table, a tally) is {"#table": [[key, value], ...]} in its order, so a key keeps its
    type (JSON objects take text keys only: a number key would come back as text), and a
    tuple (a ray's cells) is {"#tuple": [...]}; no other object is written."""
    t = type(v)
    if t is list:
        return [saved(x) for x in v]
    if t is tuple:
        return {TUPLE: [saved(x) for x in v]}
    if isinstance(v, dict):
        return {TABLE: [[saved(k), saved(x)] for k, x in v.items()]}
    return encode(v)                    # a number, a fraction, a text, none


def restored(v: Any) -> Any:
    """A value written by saved() again; ValueError for data saved() does not write."""
    t = type(v)
    if t is list:
        return [restored(x) for x in v]
    if t is dict:
        if len(v) == 1 and TABLE in v and type(v[TABLE]) is list:
            out: dict[Any, Any] = {}
            for pair in v[TABLE]:
                if type(pair) is not list or len(pair) != 2:
                    raise ValueError("a table's entry is not a [key, value] pair")
                key = restored(pair[0])
                if type(key) is list:
                    raise ValueError("a table's key is a list")
                out[key] = restored(pair[1])
            return out
        if len(v) == 1 and TUPLE in v and type(v[TUPLE]) is list:
            return tuple(restored(x) for x in v[TUPLE])
        raise ValueError("an object that is neither a saved table nor a tuple")
    return decode(v) if t is str else v


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


HELPERS = {"B_frac": B_frac, "B_num": B_num, "B_mul": B_mul, "B_sum": B_sum}


def explain(exc: Exception, compiling: bool = False) -> str:
    """A failure of generated code in the spec's terms (the Python exception stays
    chained): a rule that cannot be carried out while a game runs (engine), or, with
    `compiling`, a value computed from data, enums and options when the spec compiles
    (compiler/layout.py), where there is no state, no piece and no zone yet."""
    text = str(exc)
    if getattr(exc, "spec_words", False):     # (readers.NoLine: a line read in place)
        return text
    if compiling and isinstance(exc, AttributeError) and "NoneType" in text:
        return ("this must be computed from data, enums and options only: it reads the "
                "game's state, which does not exist yet")
    if "Fraction" in text and "integer" in text:
        return "a fraction is used where a whole number is needed"
    if "NoneType" in text:
        if compiling:
            return "none is used where a value is needed"
        if "operand" in text or "not supported between" in text:
            return ("none is used as a number (a value that may be none: first() of "
                    "nothing, a distance with no way to the goal, no piece or cell)")
        return "there is no piece (none) where one is needed"
    if compiling and "unhashable" in text:
        return "a list or a table is used where a single value is needed"
    if isinstance(exc, IndexError):
        return "an index past the end of a list" if compiling \
            else "a position outside its zone or list"
    if isinstance(exc, KeyError):
        return f"no entry {text} in a table"
    if isinstance(exc, RecursionError):
        return "functions nest too deeply" if compiling \
            else "rules or functions nest too deeply"
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, ValueError) and "string conversion" in text:
        return "a number too long to write out as text (more than 4300 digits)"
    if isinstance(exc, OverflowError):
        return TOO_BIG if text == TOO_BIG else "a number too large to compute with"
    return "a value of the wrong kind is used here"
