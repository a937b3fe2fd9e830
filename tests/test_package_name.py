"""No document or message names the package by its folder (issue 24, 5): the import
package is `tabula_rules` (pyproject.toml maps the repository's folder interpreter/ to
it), so a doc, a docstring, a message or a page that tells a user to `import interpreter`,
`from interpreter import ...`, to use `interpreter.report` or `python -m interpreter`, or
shows `site-packages/interpreter`, is wrong. A source file named by its path in the
repository (`interpreter/tools/report.py`) is right: that is where it is."""

import re

from conftest import ROOT

# what is read by users: the README, the docs, the package's docstrings, messages and web
# pages, the games' notes, the schemas' descriptions (shown by editors)
FILES = sorted({ROOT / "README.md",
                *(ROOT / "docs").rglob("*.md"),
                *(ROOT / "interpreter").rglob("*.py"),
                *(ROOT / "interpreter" / "tools" / "web").rglob("*"),
                *(ROOT / "specs").rglob("*.md"),
                *(ROOT / "examples").rglob("*.md"),
                *(ROOT / "schemas").glob("*.json")})

STALE = re.compile(
    r"\b(?:import|from)\s+interpreter\b"                  # import interpreter, from interpreter
    r"|(?<![\w/.-])interpreter\.(?!py\b|md\b)[a-z_]"      # interpreter.report (a module name)
    r"|-m\s+interpreter\b"                                # python -m interpreter
    r"|site-packages/interpreter\b"                       # the installed folder
    r"|(?<![\w/.-])interpreter/(?:specs|examples|grammar|schemas)\b")   # the wheel's data


def stale(text: str) -> list[tuple[int, str]]:
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
            if STALE.search(line)]


def test_the_pattern():
    for wrong in ("import interpreter", "from interpreter import load_game",
                  "from Python `interpreter.report`", "Made by tabula (interpreter.report)",
                  "python -m interpreter run", "(21 specs in /.../site-packages/interpreter)",
                  "a wheel holds them as `interpreter/specs`", "interpreter.bots.agents"):
        assert stale(wrong), wrong
    for right in ("interpreter/tools/report.py", "`interpreter/` (imported as `tabula_rules`)",
                  "the generic Python interpreter. It", "tabula_rules.tools.report",
                  "from tabula_rules import load_game", "the interpreter's own tests",
                  "src/interpreter.py", "a Python interpreter.", "repo/interpreter/specs"):
        assert not stale(right), right


def test_no_doc_or_message_names_the_folder_as_the_package():
    assert len(FILES) > 50
    found = [f"{f.relative_to(ROOT)}:{n}: {line}" for f in FILES if f.is_file()
             for n, line in stale(f.read_text(encoding="utf-8", errors="replace"))]
    assert not found, "the import package is tabula_rules:\n" + "\n".join(found)
