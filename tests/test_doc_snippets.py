"""The Python the documentation shows works: every fenced ```python block of docs/*.md and
README.md is Python, every `import` and `from ... import` in it imports (each statement
alone, in a namespace of its own, in a fresh interpreter: a name moved to another module
is caught), and the blocks that are self-contained and cheap are run whole.

A block is run whole unless NOT_RUN names it (a phrase of the block, and why it is not
run). It runs in a fresh interpreter, in a scratch folder where `specs/` and `examples/`
are the repository's (a block may name a game by its path or by its name) and where the
files a block reads are made first (FILES). A block that is slow, needs what the
documentation leaves out or writes outside its folder goes in NOT_RUN: its imports are
still checked."""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from tabula_rules.tools.cli import main

from conftest import ROOT

DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
FENCE = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)

# (document, a phrase of the block): why the block is not run whole
NOT_RUN = {
    ("docs/simulate.md", "run_batch("): "it plays 200 games on 2 workers",
    ("docs/simulate.md", "write_report("): "it reports the summary the block before it made",
}


def _log_files(folder: Path) -> None:
    """docs/logs.md's From Python: a full log, a player's log and a variant to check it
    against."""
    tiny = str(ROOT / "examples" / "tiny")
    for extra, name in (([], "game.jsonl"), (["--for", "1"], "p2.jsonl")):
        assert main(["run", tiny, "--players", "2", "--seed", "1", "--log",
                     str(folder / name), *extra]) == 0
    (folder / "tiny-bonus.yaml").write_text(f"extends: {tiny}\ngame:\n  id: tiny_bonus\n")


# (document, a phrase of the block): what makes the files it reads, in its folder
FILES = {("docs/logs.md", "read_log("): _log_files}


def blocks() -> list[tuple[str, int, str]]:
    """(document, the line of the block's first line of code, the code) of every block."""
    out = []
    for doc in DOCS:
        text = doc.read_text()
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start(1)) + 1
            out.append((doc.relative_to(ROOT).as_posix(), line, m.group(1)))
    return out


BLOCKS = blocks()


def _chosen(table: dict, doc: str, code: str):
    return next((value for (d, phrase), value in table.items()
                 if d == doc and phrase in code), None)


def test_the_documents_have_python_blocks():
    docs = {doc for doc, _, _ in BLOCKS}
    assert {"README.md", "docs/logs.md", "docs/simulate.md"} <= docs, docs
    # every entry of the tables still names a block
    for table in (NOT_RUN, FILES):
        for doc, phrase in table:
            assert any(d == doc and phrase in code for d, _, code in BLOCKS), (doc, phrase)


def test_every_block_is_python():
    bad = []
    for doc, line, code in BLOCKS:
        try:
            ast.parse(code)
        except SyntaxError as e:
            bad.append(f"{doc}:{line + (e.lineno or 1) - 1}: {e.msg}")
    assert not bad, "a ```python block that is not Python:\n" + "\n".join(bad)


# Executes each statement it is given, which must be one import statement and nothing else,
# in a namespace of its own; prints "where: statement: error" of each that fails, as JSON.
IMPORTER = """
import ast, json, sys, traceback
failed = []
for where, statement in json.load(sys.stdin):
    tree = ast.parse(statement)
    assert len(tree.body) == 1 and isinstance(tree.body[0], (ast.Import, ast.ImportFrom))
    try:
        exec(compile(tree, where, "exec"), {})
    except BaseException:    # any failure of the import is the finding, reported by name
        failed.append(f"{where}: {statement}: {traceback.format_exc(limit=0).strip()}")
print(json.dumps(failed))
"""


def failed_imports(statements: list) -> list[str]:
    """[where, statement] -> those that fail to import, each with its error."""
    proc = subprocess.run([sys.executable, "-c", IMPORTER], input=json.dumps(statements),
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_every_import_of_the_docs_imports():
    statements = []
    for doc, line, code in BLOCKS:
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                statements.append([f"{doc}:{line + node.lineno - 1}", ast.unparse(node)])
    assert len(statements) >= 10, statements
    failed = failed_imports(statements)
    assert not failed, "imports of the documentation that fail:\n" + "\n".join(failed)


def test_a_stale_import_is_caught():
    """A name imported from a module that does not hold it is found (as docs/logs.md once
    imported replay from gamelog), and a sound import is not."""
    failed = failed_imports([["a.md:1", "from tabula_rules.tools.gamelog import read_log, replay"],
                             ["a.md:2", "from tabula_rules.tools.replay import replay"],
                             ["a.md:3", "import tabula_rules.no_such_module"]])
    assert len(failed) == 2, failed
    assert failed[0].startswith("a.md:1: ") and "cannot import name 'replay'" in failed[0]
    assert failed[1].startswith("a.md:3: ") and "No module named" in failed[1]


# Runs each file it is given as a script of its own (fresh globals), in the current folder;
# writes the traceback of each that fails, as JSON, to the file named by its argument (the
# blocks print to stdout).
RUNNER = """
import json, runpy, sys, traceback
failed = []
for path in json.load(sys.stdin):
    try:
        runpy.run_path(path, run_name="__main__")
    except BaseException:    # any failure of the block is the finding, with its traceback
        failed.append(traceback.format_exc())
with open(sys.argv[1], "w") as f:
    json.dump(failed, f)
"""


def test_the_self_contained_blocks_run(tmp_path, capsys):
    for name in ("specs", "examples"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    scripts = []
    for doc, line, code in BLOCKS:
        if _chosen(NOT_RUN, doc, code) is not None:
            continue
        make = _chosen(FILES, doc, code)
        if make is not None:
            make(tmp_path)
        # the block's lines where they are in the document: a traceback names them
        script = tmp_path / f"{doc.replace('/', '_')}_{line}.py"
        script.write_text(f"# {doc}\n" + "\n" * (line - 2) + code)
        scripts.append(str(script))
    capsys.readouterr()
    assert len(scripts) >= 4, scripts
    result = tmp_path / "failed.json"
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(result)],
                          input=json.dumps(scripts), capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    failed = json.loads(result.read_text())
    assert not failed, "blocks of the documentation that fail:\n" + "\n".join(failed)

