"""Hostile specs against the engine (issue 14): every one is a located error, raised
before the work or allocation it would cause, never a traceback, a hang or a leak of
Python's internals. Built on test_errors.py's small valid spec and helpers."""

from __future__ import annotations

import pytest

from test_errors import BASE, at, check, edit, validate_error


# ---- name templates: plain attribute names, filled without str.format ----------------

@pytest.mark.parametrize("field", ["colour.__class__", "colour.__class__.__subclasses__",
                                   "colour:>999999999", "colour[0]", "colour!r"])
def test_name_template_refuses_walks_indexing_and_format_specs(tmp_path, field):
    text = edit(BASE, ('name: "{colour}"', f'name: "x {{{field}}}"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, f'"x {{{field}}}"', field), "not an attribute name")
    assert "<class" not in str(err) and "type" not in err.message


def test_name_template_unknown_attribute_is_located(tmp_path):
    text = edit(BASE, ('name: "{colour}"', 'name: "{nope} chip"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, '"{nope} chip"', "nope"), "'nope', which is not an attribute")


def test_name_template_lone_brace_is_located(tmp_path):
    text = edit(BASE, ('name: "{colour}"', 'name: "{colour} }"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, '"{colour} }"', '}"'), "a lone '}'")


def test_name_template_substitutes_plain_names_and_escaped_braces(tmp_path):
    from tabula_rules.names import render_template, template_parts
    parts = template_parts("{{{colour}}}-{n}")
    assert render_template(parts, {"colour": "red", "n": 3}) == "{red}-3"
    assert render_template(template_parts("{n}"), {"n": 10 ** 5000}).startswith("<a number")
