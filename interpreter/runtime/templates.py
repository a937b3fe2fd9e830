"""Name templates: a piece's name made from its attributes ("{colour} {kind}").

Input: a template text from a spec, and a piece's attribute values. Output: the parts of
the template (checked once, when the game is compiled) and the name they make, by plain
substitution, when a name is read (the compiler checks templates; the engine renders
names of pieces whose attributes change in play).
"""

from __future__ import annotations

import re
from typing import Any

# plain name: no attribute walk, no indexing, no conversion, no format spec. It is read
# here and filled by plain substitution (never str.format, which would reach Python's
# internals through "{n.__class__}" and allocate without bound through "{n:>999999999}").
# "{{" and "}}" stand for a brace.
_TEMPLATE_PART = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


class TemplateError(ValueError):
    """A name template that is not plain names in braces: the message and the offset."""
    def __init__(self, message: str, offset: int, field: str = ""):
        super().__init__(message)
        self.offset = offset
        self.field = field


Parts = tuple[tuple[str, str | None], ...]   # (literal text, attribute name or None)


def template_parts(text: str) -> Parts:
    """The parts of a name template: (literal text, attribute name or None), in order."""
    parts: list[tuple[str, str | None]] = []
    lit: list[str] = []
    at = 0
    for m in _TEMPLATE_PART.finditer(text):
        lit.append(text[at:m.start()])
        at = m.end()
        tok = m.group(0)
        if tok in ("{{", "}}"):
            lit.append(tok[0])
        elif tok in ("{", "}"):
            raise TemplateError(f"a lone '{tok}' in the name template: write '{tok}{tok}' "
                                "for a brace", m.start())
        else:
            field = m.group(1)
            if not _PLAIN_NAME.match(field):
                raise TemplateError(f"'{{{field}}}' is not an attribute name: a name "
                                    "template shows an attribute by its plain name, as "
                                    "{colour}, with no '.', '[', '!' or ':'",
                                    m.start() + 1, field)
            parts.append(("".join(lit), field))
            lit = []
    lit.append(text[at:])
    if "".join(lit):
        parts.append(("".join(lit), None))
    return tuple(parts)


def template_fields(text: str) -> list[str]:
    """The attribute names a template shows ([] when it is not a valid template)."""
    try:
        return [f for _, f in template_parts(text) if f is not None]
    except TemplateError:
        return []


def render_template(parts: Parts, attrs: dict[str, Any]) -> str:
    """A name template filled with attribute values, by plain substitution."""
    out: list[str] = []
    for lit, field in parts:
        out.append(lit)
        if field is not None:
            out.append(value_text(attrs.get(field)))
    return "".join(out)


MAX_TEXT_DIGITS = 4000     # Python's own limit on int to text is 4300 digits


def value_text(v: object) -> str:
    """The text of an attribute value, in the spec's own words (none, true, false, not
    Python's None, True, False); a number too long to show is shown by its size, never
    raising (Python refuses to convert ints beyond 4300 digits)."""
    if v is None or v is True or v is False:
        return "none" if v is None else "true" if v else "false"
    try:
        return str(v)
    except ValueError:
        return f"<a number of more than {MAX_TEXT_DIGITS} digits>"
