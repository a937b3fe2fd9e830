"""The compiler's shape (issue 19): stages that import no other stage, registries merged
with a check, and the small interface the tools read on a Program instead of the
compiler's internals."""
import ast
from pathlib import Path

import pytest

import tabula_rules
from tabula_rules.compiler import common, driver
from tabula_rules.errors import SpecError
from tabula_rules.runtime import effects, readers, values, views

PACKAGE = Path(tabula_rules.__file__).parent
STAGES = ("names", "layout", "expressions", "builtins", "boards", "steps", "decisions",
          "deadcode", "analysis")
# what a stage may import: level-1 and level-2 modules of the package
STAGE_MAY_IMPORT = {"errors", "lang.ast", "lang.types", "lang.loader", "compiler.codegen",
                    "compiler.common", "compiler.flowgraph", "compiler.stencil",
                    "compiler.narrowing",
                    "runtime.values",
                    "runtime.readers", "runtime.model", "runtime.geometry",
                    "runtime.effects", "runtime.templates", "runtime.frames"}


def _imports(path: Path) -> set:
    """The package modules a module of a room imports (function-level imports included)."""
    out = set()
    room = path.parent.name
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = [room][:max(0, 2 - node.level)]
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{target}.{alias.name}" if target else alias.name
                out.add(full if (PACKAGE / (full.replace(".", "/") + ".py")).exists()
                        else target)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""]
            out |= {n.split(".", 1)[1] for n in names if n.startswith("tabula_rules.")}
    return out


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_imports_no_other_stage_and_not_the_parser(stage):
    found = _imports(PACKAGE / "compiler" / f"{stage}.py")
    assert found - STAGE_MAY_IMPORT == set(), found


def test_the_shared_leaf_imports_level_one_modules_only():
    assert _imports(PACKAGE / "compiler" / "common.py") <= {"errors", "lang.types"}


def test_the_runtime_readers_do_not_import_the_effects():
    assert "runtime.effects" not in _imports(PACKAGE / "runtime" / "readers.py")


def test_registries_merge_and_a_name_defined_twice_is_refused():
    assert common.merged("helper", {"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    with pytest.raises(ValueError, match="internal error: the helper 'B_top' is "
                                         "defined twice"):
        common.merged("helper", readers.HELPERS, {"B_top": len})


def test_the_generated_code_helpers_are_the_five_registries():
    tables = (readers.HELPERS, driver.steps.HELPERS, effects.HELPERS, values.HELPERS,
              views.HELPERS)
    assert len(driver.HELPERS) == sum(len(t) for t in tables)
    for table in tables:
        assert all(driver.HELPERS[k] is v for k, v in table.items())


def test_the_catalogue_of_builtins_holds_both_emitters():
    names = set(driver.catalogue(driver.Builtins(None), driver.Boards(None)))
    assert {"size", "top", "neighbour", "cells", "distance"} <= names
    with pytest.raises(ValueError, match="builtin function '[a-z_]+' is defined twice"):
        driver.catalogue(driver.Builtins(None), driver.Builtins(None))


SPEC = """\
game: {id: facts, name: Facts, source: none, players: {min: 2, max: 2}}
enums:
  colour: [red, blue]
data:
  heavy: {source: none, value: 3}
zones:
  board: {kind: grid, width: 3, height: 2}
  pile: {kind: stack}
variables:
  round: {source: none, value: 0}
  score: {source: none, value: 0, per_player: true}
components:
  disc:
    for_each: {colour: "values(colour)"}
    count: 2
    zone: pile
    attributes: {weight: heavy}
play:
  - id: turn
    choose: c in cells(board) where size(c) == 0
    do:
      - move top(pile) to c
      - round += 1
"""


def _game(tmp_path):
    path = tmp_path / "facts.yaml"
    path.write_text(SPEC)
    return tabula_rules.load_game(path)


def test_a_program_tells_what_the_tools_ask(tmp_path):
    prog = _game(tmp_path).prog
    assert prog.attr_types["colour"] == ("enum", "colour")
    assert prog.attr_types["weight"] == ("int",)
    assert prog.enums == {"colour": ("red", "blue")}
    assert prog.var_types == {"round": ("int",), "score": ("int",)}
    assert "turn" in prog.step_ids
    assert prog.usage.own["disc"] == {"heavy"}     # what its own expressions read
    assert not hasattr(prog, "compiler")


def test_an_expression_compiled_against_the_program(tmp_path):
    game = _game(tmp_path)
    st = game.new_state(seed=0)
    assert game.prog.compile_expression("size(pile) + round")(st) == 4
    st.apply(st.legal_actions()[0])
    assert game.prog.compile_expression("round")(st) == 1
    with pytest.raises(SpecError, match="unknown"):
        game.prog.compile_expression("no_such_name + 1")


# ---- a statement and a builtin say what they change and read where they are defined ------

def test_every_statement_declares_what_it_changes_and_the_analysis_has_no_case_for_one():
    """A statement's node names its changed fields (PLACES, TAKES, DRAW, ENDS: lang/ast.py),
    so the analysis reads them and a new statement needs no case in analysis.py."""
    from tabula_rules.lang import ast as tast
    stmts = [c for c in vars(tast).values()
             if isinstance(c, type) and issubclass(c, tast.Stmt) and c is not tast.Stmt]
    assert {c.__name__ for c in stmts} >= {"Move", "Swap", "Shuffle", "Refill", "EndGame"}
    text = (Path(tabula_rules.__file__).parent / "compiler" / "analysis.py").read_text()
    for c in stmts:
        fields = set(c.__dataclass_fields__)
        assert set(c.PLACES) <= fields and set(c.TAKES) <= fields, c.__name__
        assert c.DRAW is None or c.DRAW[1] in fields | {""}, c.__name__
        assert f"ast.{c.__name__}" not in text, f"analysis.py has a case for {c.__name__}"


def test_the_builtins_that_read_a_place_say_so_where_they_are_defined():
    """@reads_place on the emitter, not a list of names in analysis.py."""
    from tabula_rules.compiler.boards import Boards
    from tabula_rules.compiler.builtins import Builtins
    marked = {n[2:] for cls in (Builtins, Boards) for n, f in vars(cls).items()
              if n.startswith("f_") and getattr(f, "reads_place", False)}
    assert {"cell", "column", "level", "under", "left", "right"} <= marked
    assert "count" not in marked and "size" not in marked
    text = (PACKAGE / "compiler" / "analysis.py").read_text()
    assert '"column"' not in text and '"cell"' not in text
