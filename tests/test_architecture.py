"""The architecture, held by tests (issue 19, docs/architecture.md).

Input: the source of every module of interpreter/ (the package tabula_rules), read with
Python's ast and never imported for it: every import statement, function-level ones
included, relative and absolute `tabula_rules...` ones resolved to the module they load.
Output: the import graph between modules, and checks over it:

- a table of the import directions allowed between rooms (ALLOWED below, the plan's
  table as data), over every import of every module;
- no import circle of any kind: between modules, and between rooms;
- no module imports a private name (a leading underscore) of another room;
- the longest import chain is at most MAX_CHAIN modules, and at most MAX_ROOT modules
  stay at the package's root;
- generated code stays the compiler's: outside interpreter/compiler/ no module calls
  eval, exec or compile, reads the generated program (a Program's `module`: its chunks,
  its namespace, its source), or reaches through a Program's `compiler`;
- the public interface works: load_game, `import tabula_rules.openspiel`,
  `from tabula_rules.pettingzoo import env`, `python -m tabula_rules --version` and
  every command's -h;
- and the tests' own shape: no test file imports another (shared helpers live in
  tests/helpers.py and conftest.py).

A failure names the offending module, the import (or the expression) and its line.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import networkx as nx

from conftest import ROOT

PACKAGE = "tabula_rules"
SOURCE = ROOT / "interpreter"           # the folder the package is imported from

# ---- the rooms and the directions between them ---------------------------------------------
# A module's room is its subpackage (lang, runtime, compiler, bots, adapters, tools), or
# at the package's root its own name. A room may import itself, and the rooms listed.
ALLOWED = {
    "errors": set(),
    "lang": {"errors"},
    "runtime": {"errors"},                        # never lang, never compiler
    "compiler": {"errors", "lang", "runtime"},
    "spec": {"errors", "lang", "compiler", "runtime"},
    "bots": {"errors", "runtime"},
    "adapters": {"errors", "lang", "runtime", "spec", "bots"},
    "tools": {"errors", "lang", "runtime", "compiler", "spec", "bots", "adapters"},
    "__init__": {"errors", "runtime", "spec"},
    "__main__": {"tools"},
    "openspiel": {"adapters"},                    # the public names' shims
    "pettingzoo": {"adapters"},
}
MAX_CHAIN = 8          # modules on the longest import chain
MAX_ROOT = 8           # modules at the package's root
COMPILER_ROOM = "compiler"

# the only uses of a Program's generated module outside the compiler: the engine maps a
# failure in generated code back to the spec (`position`, if the program has a module:
# `truth`), and `tabula compile` prints the program (`source`); nothing else reads,
# parses, searches or runs its text
GENERATED_MODULE_USES = {
    "position": {"runtime/engine.py"},
    "truth": {"runtime/engine.py"},
    "source": {"tools/cli.py"},
}
# a Module's parts, read through any name (mod = prog.module; mod.chunks)
GENERATED_PARTS = {"chunks": "generated code text", "ns": "the generated code's namespace"}
CODE_RUNNERS = {"eval", "exec", "compile"}


# ---- reading the package ----------------------------------------------------------------------

@dataclass(frozen=True)
class Import:
    """One import of `source` (a module's dotted name): it loads `target` (a module of
    the package) at `line`, taking `name` from it (None: the module itself)."""

    source: str
    target: str
    line: int
    name: str | None
    text: str                                  # the statement, as written

    @property
    def where(self) -> str:
        return f"{relpath(self.source)}:{self.line}: {self.text}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


@cache
def modules() -> dict:
    """dotted name -> path, for every module of the package."""
    return {module_name(p): p for p in sorted(SOURCE.rglob("*.py"))}


def relpath(module: str) -> str:
    return str(modules()[module].relative_to(SOURCE))


def is_package(module: str) -> bool:
    return modules()[module].name == "__init__.py"


@cache
def tree(module: str) -> ast.Module:
    path = modules()[module]
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def room(module: str) -> str:
    """The room of a module: its subpackage, or its own name at the root."""
    parts = module.split(".")[1:]
    if not parts:
        return "__init__"
    return parts[0]


def shown(node: ast.AST) -> str:
    """A statement or expression as written, on one line, at most 100 characters."""
    return " ".join(ast.unparse(node).split())[:100]


def resolve(module: str, node: ast.ImportFrom) -> str | None:
    """The dotted module an ImportFrom names, or None if it is outside the package."""
    if node.level == 0:
        base = node.module or ""
        return base if base == PACKAGE or base.startswith(PACKAGE + ".") else None
    package = module if is_package(module) else module.rpartition(".")[0]
    parts = package.split(".")
    if node.level > 1:
        parts = parts[:-(node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


@cache
def imports(module: str) -> tuple:
    """Every import of the package by `module`, at any depth of its code."""
    found = []
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    found.append(Import(module, alias.name, node.lineno, None,
                                        shown(node)))
        elif isinstance(node, ast.ImportFrom):
            base = resolve(module, node)
            if base is None:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules():                # `from . import steps`: a module
                    found.append(Import(module, sub, node.lineno, None, shown(node)))
                else:
                    found.append(Import(module, base, node.lineno, alias.name,
                                        shown(node)))
    return tuple(sorted(found, key=lambda i: (i.line, i.target, i.name or "")))


def all_imports() -> list:
    return [i for m in modules() for i in imports(m)]


def graph() -> nx.DiGraph:
    """Modules, and an edge for each module another one imports (its imports listed)."""
    g = nx.DiGraph()
    g.add_nodes_from(modules())
    for i in all_imports():
        if i.target != i.source and i.target in modules():
            if g.has_edge(i.source, i.target):
                g.edges[i.source, i.target]["imports"].append(i)
            else:
                g.add_edge(i.source, i.target, imports=[i])
    return g


def first_import(g: nx.DiGraph, a: str, b: str) -> Import:
    return g.edges[a, b]["imports"][0]


# ---- the package is read whole ------------------------------------------------------------

def test_the_walk_reads_every_module_and_resolves_every_import():
    """The walk sees the rooms and modules the package has, and every import of the
    package names a module that exists (an import it could not resolve would escape
    every other check)."""
    found = modules()
    assert len(found) > 40 and f"{PACKAGE}.errors" in found
    unknown = sorted({room(m) for m in found} - set(ALLOWED))
    assert not unknown, (f"rooms missing from the ALLOWED table: {unknown}: say what they "
                         "may import")
    bad = [i.where for i in all_imports() if i.target not in found]
    assert not bad, "imports of modules the package does not have:\n" + "\n".join(bad)
    # function-level imports are walked too: cli.py imports deadcode inside a function
    assert any(i.line > 1 and i.target.endswith(".deadcode")
               for i in imports(f"{PACKAGE}.tools.cli"))


# ---- (a) imports run only in the allowed directions ---------------------------------------

def test_every_import_runs_in_an_allowed_direction():
    wrong = []
    for i in all_imports():
        src, dst = room(i.source), room(i.target)
        if src != dst and dst not in ALLOWED.get(src, set()):
            allowed = ", ".join(sorted(ALLOWED.get(src, ())))
            wrong.append(f"{i.where}\n    {src} imports {dst}: {src} may import "
                         + (f"only {allowed}" if allowed else "nothing of the package"))
    assert not wrong, ("imports against the allowed directions (tests/test_architecture.py "
                       "ALLOWED):\n" + "\n".join(wrong))


# ---- (b) no circle ----------------------------------------------------------------------------

def circles(g: nx.DiGraph) -> list:
    """One circle (a list of nodes) in each group of nodes that reach one another:
    bounded work, where listing every simple cycle could take exponential time."""
    found = []
    for group in nx.strongly_connected_components(g):
        if len(group) > 1:
            edges = nx.find_cycle(g.subgraph(group))
            found.append([a for a, _ in edges])
    return sorted(found, key=lambda c: (len(c), c))


def describe_circle(g: nx.DiGraph, circle: list) -> str:
    steps = [first_import(g, a, b).where for a, b in zip(circle, circle[1:] + circle[:1])]
    return (" -> ".join(m.removeprefix(PACKAGE + ".") for m in circle + circle[:1])
            + "\n      " + "\n      ".join(steps))


def test_no_import_circle_between_modules():
    g = graph()
    found = circles(g)
    assert not found, "import circles between modules:\n  " + \
        "\n  ".join(describe_circle(g, c) for c in found)


def test_no_import_circle_between_rooms():
    g = graph()
    rooms = nx.DiGraph()
    for a, b, data in g.edges(data=True):
        if room(a) != room(b):
            if not rooms.has_edge(room(a), room(b)):
                rooms.add_edge(room(a), room(b), imports=[])
            rooms.edges[room(a), room(b)]["imports"].extend(data["imports"])
    found = circles(rooms)
    assert not found, "import circles between rooms:\n  " + \
        "\n  ".join(describe_circle(rooms, c) for c in found)


# ---- (c) no private name of another room ---------------------------------------------------

def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_aliases(module: str) -> dict:
    """Names bound in `module` to a module of another room -> that module."""
    bound = {}
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules() and alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = resolve(module, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else None
                if sub in modules():
                    bound[alias.asname or alias.name] = sub
    return {n: m for n, m in bound.items() if room(m) != room(module)}


def test_no_module_imports_a_private_name_of_another_room():
    wrong = []
    for i in all_imports():
        if room(i.source) == room(i.target):
            continue
        private = [p for p in i.target.split(".") if is_private(p)]
        if i.name and is_private(i.name):
            private.append(i.name)
        if private:
            wrong.append(f"{i.where}\n    {room(i.source)} takes {', '.join(private)} "
                         f"from {room(i.target)}")
    for m in modules():
        aliases = module_aliases(m)
        for node in ast.walk(tree(m)):
            if (isinstance(node, ast.Attribute) and is_private(node.attr)
                    and isinstance(node.value, ast.Name) and node.value.id in aliases):
                wrong.append(f"{relpath(m)}:{node.lineno}: {shown(node)}\n    "
                             f"{room(m)} uses {node.attr} of {aliases[node.value.id]}")
    assert not wrong, "private names used across rooms:\n" + "\n".join(wrong)


# ---- (d, e) a short chain of imports, a small root --------------------------------------------

def test_the_longest_import_chain_is_at_most_8_modules():
    """Level of a module: 1 + the highest level of what it imports (errors.py, which
    imports nothing, is level 1); the longest chain is the highest level."""
    g = graph()
    assert nx.is_directed_acyclic_graph(g), "an import circle (see the circle tests)"
    chain = nx.dag_longest_path(g)
    levels = {}
    for m in reversed(list(nx.topological_sort(g))):
        levels[m] = 1 + max((levels[t] for t in g.successors(m)), default=0)
    too_high = sorted((lv, m.removeprefix(PACKAGE + ".")) for m, lv in levels.items()
                      if lv > MAX_CHAIN)
    steps = "\n  ".join(first_import(g, a, b).where for a, b in zip(chain, chain[1:]))
    assert len(chain) <= MAX_CHAIN, (
        f"the longest import chain is {len(chain)} modules (at most {MAX_CHAIN}):\n  "
        + " -> ".join(m.removeprefix(PACKAGE + ".") for m in chain)
        + f"\n  {steps}\nmodules above level {MAX_CHAIN}: "
        + ", ".join(f"{m} ({lv})" for lv, m in too_high))


def test_at_most_8_modules_at_the_packages_root():
    root = sorted(p.name for p in SOURCE.glob("*.py"))
    assert len(root) <= MAX_ROOT, (f"{len(root)} modules at the root of interpreter/ (at most "
                                   f"{MAX_ROOT}): {', '.join(root)}")


# ---- (f) generated code is the compiler's ------------------------------------------------------

def outside_the_compiler() -> list:
    return [m for m in modules() if room(m) != COMPILER_ROOM]


def parents(t: ast.AST) -> dict:
    return {child: node for node in ast.walk(t) for child in ast.iter_child_nodes(node)}


def attribute_uses(module: str, attr: str):
    """(line, expression, parent node) of each `X.attr` and getattr(X, "attr"), in the
    order of the lines."""
    t = tree(module)
    up = parents(t)
    for node in sorted(ast.walk(t), key=lambda n: (getattr(n, "lineno", 0),
                                                     getattr(n, "col_offset", 0))):
        if isinstance(node, ast.Attribute) and node.attr == attr:
            yield node.lineno, node, up.get(node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and node.args[1].value == attr):
            yield node.lineno, node, None


def test_no_module_outside_the_compiler_runs_code():
    wrong = []
    for m in outside_the_compiler():
        for node in ast.walk(tree(m)):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else (
                f.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and f.value.id in ("builtins", "__builtins__") else None)
            if name in CODE_RUNNERS:
                wrong.append(f"{relpath(m)}:{node.lineno}: {shown(node)}")
    assert not wrong, ("eval, exec or compile outside interpreter/compiler/ (ask the "
                       "compiler instead):\n" + "\n".join(wrong))


def use_of(node: ast.AST, parent: ast.AST | None) -> str:
    """How an expression is used: the attribute taken from it, `truth` (tested: if X,
    X if ... else, not X, X and ...), or `value` (bound, passed, returned)."""
    if isinstance(parent, ast.Attribute):
        return parent.attr
    if (isinstance(parent, (ast.If, ast.IfExp, ast.While)) and parent.test is node
            or isinstance(parent, ast.BoolOp)
            or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
        return "truth"
    return "value"


def test_no_module_outside_the_compiler_reads_generated_code():
    """The generated program is a Program's `module` (compiler/codegen.py's Module: its
    `chunks` of source text, its namespace `ns`, its `source()`): outside the compiler
    only the uses in GENERATED_MODULE_USES reach it, and no module reads a Module's
    parts (GENERATED_PARTS) through another name."""
    wrong = []
    for m in outside_the_compiler():
        path = relpath(m)
        for line, node, parent in attribute_uses(m, "module"):
            used = use_of(node, parent)
            if path not in GENERATED_MODULE_USES.get(used, ()):
                what = shown(parent if isinstance(parent, ast.Attribute) else node)
                wrong.append((path, line, f"{what}\n    reads the generated program "
                                          f"({used})"))
        for attr, what in GENERATED_PARTS.items():
            for line, node, _ in attribute_uses(m, attr):
                wrong.append((path, line, f"{shown(node)}\n    reads {what}"))
    assert not wrong, ("generated code read outside interpreter/compiler/ (the compiler "
                       "should record what the tool needs):\n"
                       + "\n".join(f"{p}:{n}: {t}" for p, n, t in sorted(wrong)))


def test_nothing_outside_the_compiler_reaches_through_a_programs_compiler():
    wrong = [f"{relpath(m)}:{line}: {shown(node)}"
             for m in outside_the_compiler()
             for line, node, _ in attribute_uses(m, "compiler")]
    assert not wrong, ("reaches through Program.compiler outside interpreter/compiler/ (ask "
                       "the program's interface instead):\n" + "\n".join(wrong))


# ---- (g) the public interface --------------------------------------------------------------

# the commands of `tabula` (README): each must stay, and answer -h
COMMANDS = {"list", "validate", "run", "replay", "graph", "play", "rulings", "test", "bench",
            "simulate", "compile", "diff"}


def python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_load_game_plays_a_game():
    from tabula_rules import load_game
    st = load_game("examples/tic_tac_toe", players=2).new_state(seed=0)
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    assert len(st.scores()) == 2 and st.winners()


def test_importing_tabula_rules_openspiel_registers_the_game():
    run = python("import pyspiel\n"
                 "assert 'tabula' not in pyspiel.registered_names()\n"
                 "import tabula_rules.openspiel\n"
                 "assert 'tabula' in pyspiel.registered_names()\n"
                 "game = pyspiel.load_game('tabula', {'spec': 'examples/tic_tac_toe'})\n"
                 "print(game.num_distinct_actions())\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["9"]


def test_pettingzoo_env_is_public():
    from tabula_rules.pettingzoo import env
    e = env(ROOT / "examples" / "tic_tac_toe")
    e.reset(seed=0)
    assert e.agents == ["player_0", "player_1"]


# `python -m tabula_rules ARGS` for each ARGS in one interpreter: runpy runs __main__ as
# -m does, and its exit code and output are reported per ARGS
RUN_MAIN = """
import contextlib, io, json, runpy, sys
results = []
for argv in json.loads(sys.argv[1]):
    sys.argv = ["tabula", *argv]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_module("tabula_rules", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    results.append([argv, code, out.getvalue(), err.getvalue()])
print(json.dumps(results))
"""


def test_the_command_line_answers_version_and_every_commands_help():
    top = subprocess.run([sys.executable, "-m", PACKAGE, "--version"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert top.returncode == 0 and "tabula" in top.stdout, top.stderr
    top = subprocess.run([sys.executable, "-m", PACKAGE, "-h"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert top.returncode == 0, top.stderr
    listed = {line.split()[0] for line in top.stdout.split("COMMAND\n", 1)[-1]
              .split("\n\n")[0].splitlines() if line.startswith("    ") and line[4] != " "}
    assert COMMANDS <= listed, f"commands gone from `tabula -h`: {sorted(COMMANDS - listed)}"
    run = subprocess.run([sys.executable, "-c", RUN_MAIN,
                          json.dumps([[c, "-h"] for c in sorted(listed)])],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    failed = [f"python -m {PACKAGE} {' '.join(argv)}: exit {code}\n{err}"
              for argv, code, out, err in json.loads(run.stdout)
              if code != 0 or f"usage: tabula {argv[0]}" not in out]
    assert not failed, "\n".join(failed)


# ---- the tests' own shape ---------------------------------------------------------------------

def test_no_test_file_imports_another_test_file():
    """Shared test helpers live in tests/helpers.py and conftest.py: importing a test file
    runs its module a second time (under another name), with its tests and its state."""
    wrong = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            named = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            if any(n.split(".")[0].startswith("test_") for n in named):
                wrong.append(f"tests/{path.name}:{node.lineno}: {shown(node)}")
    assert not wrong, ("test files imported by other test files (move what they share to "
                       "tests/helpers.py):\n" + "\n".join(wrong))
