"""The package as pip installs it: the wheel holds the games (specs/, examples/) and
`tabula serve`'s web client (interpreter/tools/web/), and after `pip install` into a fresh
environment, from a folder outside the repository, `tabula list`, `tabula run medang`,
`tabula test medang` and a variant that extends a shipped game by name all work. Also:
the shipped games have names that do not collide, and the package's code names no game (it
finds them by scanning its data).

The wheel is built from a copy of the sources (the repository stays clean) without build
isolation (offline: setuptools and wheel come with the test extra), and installed with
--no-deps into a new virtual environment that sees this environment's packages only
through a .pth line, after its own: its `tabula_rules` is the wheel's.
"""

import ast
import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

SOURCES = ("pyproject.toml", "README.md", "interpreter", "grammar", "schemas", "specs",
           "examples")
DATA = ("*.yaml", "*.md", "*.txt")          # what pyproject.toml ships of specs/ and examples/


def _run(argv, cwd, check=True, **kw):
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, **kw)
    if check:
        assert proc.returncode == 0, f"{argv}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        item = ROOT / name
        if item.is_dir():
            shutil.copytree(item, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        else:
            shutil.copy2(item, src / name)
    proc = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                 "--no-index", "-q", "-w", str(base / "dist"), str(src)], base, check=False)
    assert proc.returncode == 0, ("building the wheel failed (setuptools and wheel come with "
                                  "pip install '.[test]'):\n" + proc.stderr[-3000:])
    (found,) = (base / "dist").glob("*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed; returns its bin/ folder."""
    env = tmp_path_factory.mktemp("venv") / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env)], env.parent)
    python = env / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--no-index", "-q", str(wheel)], env.parent)
    # the dependencies (lark, PyYAML, jsonschema, networkx, matplotlib) from this
    # environment, after the new one's own site-packages
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                    "['purelib'])"], env.parent).stdout.strip()
    deps = sorted({str(Path(m.__file__).resolve().parents[1]) for m in _dependencies()})
    (Path(purelib) / "zz_outer_dependencies.pth").write_text("\n".join(deps) + "\n")
    return env / "bin"


def _dependencies():
    import jsonschema
    import lark
    import matplotlib
    import networkx
    import yaml
    return (lark, yaml, jsonschema, networkx, matplotlib)


def test_the_wheel_holds_every_shipped_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for section in ("specs", "examples"):
        for pattern in DATA:
            for f in (ROOT / section).rglob(pattern):
                inside = f"tabula_rules/{section}/{f.relative_to(ROOT / section).as_posix()}"
                assert inside in names, f"{inside} is not in the wheel"
    # the web client of `tabula serve` (package-data of tabula_rules.tools): every file of
    # interpreter/tools/web/, so a new asset missing from pyproject.toml's patterns fails
    web = [f for f in (ROOT / "interpreter" / "tools" / "web").iterdir() if f.is_file()]
    assert {"table.html", "app.js", "style.css"} <= {f.name for f in web}
    for f in web:
        assert f"tabula_rules/tools/web/{f.name}" in names, f"web/{f.name} is not in the wheel"
    assert "tabula_rules/grammar/tabula.lark" in names
    assert "tabula_rules/schemas/spec.schema.json" in names
    assert not any(n.startswith("interpreter/") for n in names)   # no top-level `interpreter`
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA")))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f"Name: {project['name']}\n".encode() in meta


def test_installed_from_the_wheel_it_runs_games_by_name(venv, tmp_path):
    """From a folder outside the repository: list, run, test, validate, graph by name."""
    tabula = str(venv / "tabula")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    out = _run([tabula, "--version"], elsewhere).stdout
    assert out == f"tabula ({project['name']}) {project['version']}\n"

    listed = json.loads(_run([tabula, "list", "--json"], elsewhere).stdout)
    home = Path(listed["root"])
    assert home.is_relative_to(venv.parent) and home.name == "tabula_rules"   # the wheel's
    names = {g["name"] for g in listed["games"]}
    shipped = {p.name for s in ("specs", "examples") for p in (ROOT / s).iterdir()
               if p.is_dir() and list(p.glob("*.yaml"))}
    assert shipped <= names
    assert all(Path(g["path"]).is_relative_to(home) for g in listed["games"])
    text = _run([tabula, "list"], elsewhere).stdout
    assert re.search(r"^medang +2-5 +Medang ", text, re.M)

    here = json.loads(_run([sys.executable, "-m", "tabula_rules", "run", "specs/medang",
                            "--seed", "1", "--json"], ROOT).stdout)
    there = json.loads(_run([tabula, "run", "medang", "--seed", "1", "--json"],
                            elsewhere).stdout)
    assert there == here                                # the same game, installed
    assert "winner" in _run([tabula, "run", "medang", "--seed", "1"], elsewhere).stdout

    passed = _run([sys.executable, "-m", "tabula_rules", "test", "specs/medang"], ROOT).stdout
    assert _run([tabula, "test", "medang"], elsewhere).stdout == passed
    assert "ok" in _run([tabula, "validate", "medina_bsw_dm2003", "tic_tac_toe"],
                        elsewhere).stdout
    _run([tabula, "graph", "tiny", "--out", "tiny.svg"], elsewhere)
    assert (elsewhere / "tiny.svg").read_text().startswith("<?xml")
    # `python -m tabula_rules` is the same command
    assert _run([str(venv / "python"), "-m", "tabula_rules", "--version"], elsewhere).stdout == out


def test_installed_a_variant_elsewhere_extends_a_shipped_game(venv, tmp_path):
    tabula = str(venv / "tabula")
    for i, base in enumerate(("tabula:medang", "medang")):
        variant = tmp_path / f"v{i}" / "quick.yaml"
        variant.parent.mkdir()
        variant.write_text(f"extends: {base}\ngame:\n  id: quick_medang\n  name: Quick\n"
                           "remove:\n  - tiebreak.general_height\n")
        out = json.loads(_run([tabula, "run", "quick.yaml", "--seed", "1", "--json"],
                              variant.parent).stdout)
        assert out["spec"] == "quick_medang"
        diff = _run([tabula, "diff", "medang", "quick.yaml"], variant.parent).stdout
        assert "general_height" in diff
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: tabula:medangg\ngame:\n  id: bad\n")
    proc = _run([tabula, "validate", "bad.yaml"], tmp_path, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "bad.yaml:1:10: error: no game named 'medangg'" in proc.stderr
    assert "did you mean 'medang'?" in proc.stderr


# ---- names ------------------------------------------------------------------------------------

def test_every_shipped_spec_has_a_name_and_no_name_is_shared():
    from tabula_rules.lang import catalog
    specs = catalog.shipped(ROOT)
    assert specs, "no shipped specs found"
    for s in specs:
        assert s.names, f"{s.path}: no name (its id or folder is another spec's)"
        if s.main:
            assert s.names[0] == s.folder.name
    all_names = [n for s in specs for n in s.names]
    assert len(all_names) == len(set(all_names))


def test_the_package_names_no_game():
    """interpreter/ finds games by scanning its data: no game's name in its code (string
    constants other than docstrings)."""
    from tabula_rules.lang import catalog
    names = set(catalog.names(ROOT))
    words = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    found = []
    for path in sorted((ROOT / "interpreter").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                        ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr)
                      and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docstrings and words.search(node.value):
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert not found, found


def test_the_distribution_name_is_not_the_taken_one():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] != "tabula"                   # another project's, on PyPI
    assert project["scripts"]["tabula"] == "tabula_rules.tools.cli:main"
    # and the import name is not `interpreter` (another project's top-level package)
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["tabula_rules"] == "interpreter"
    assert not any(p == "interpreter" or p.startswith("interpreter.")
                   for p in setuptools["packages"])
    assert project["name"] in (ROOT / "docs" / "cli.md").read_text()
