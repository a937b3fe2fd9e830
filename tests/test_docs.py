"""The documentation does not lie: every YAML example of docs/language.md parses and
compiles (examples/tiny/check_docs.py), and the README's commands exist."""

import subprocess
import sys

from conftest import ROOT


def test_language_reference_examples_compile():
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "tiny" / "check_docs.py")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert " 0 problem(s)" in proc.stdout


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = next(line.strip() for line in ci.splitlines() if "pytest" in line)
    assert command in readme


def test_compiler_doc_names_the_modules_there_are():
    """docs/compiler.md's table of stages names real modules, and every module of the
    compiler is in it."""
    import re
    text = (ROOT / "docs" / "compiler.md").read_text()
    named = set(re.findall(r"`((?!tests/)(?:[a-z_]+/)?[a-z_]+\.py)`", text))
    assert named, "no module named"
    for module in named:
        assert (ROOT / "interpreter" / module).is_file(), module
    stages = {f"compiler/{m}.py" for m in ("driver", "names", "layout", "expressions", "builtins",
                                           "boards", "steps", "decisions", "flowgraph", "codegen")}
    stages |= {f"runtime/{m}.py" for m in ("geometry", "readers", "effects", "engine", "model")}
    assert stages <= named, stages - named
