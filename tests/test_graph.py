"""tabula graph (DOT, Mermaid, JSON) and the action graphs compared by tabula diff."""

import functools
import html
import json
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from tabula_rules.errors import SpecError
from tabula_rules.spec import Spec
from tabula_rules.tools import cli
from tabula_rules.tools.diff import (
    diff_graphs,
    diff_specs,
    format_diff,
    format_graph_diff,
    graph_diff_json,
)
from tabula_rules.tools.graph import graph_data, mermaid_text, render
from tabula_rules.tools.graphview import natural

from conftest import EXAMPLES, ROOT, SPEC_FILES

ALL_SPECS = SPEC_FILES + EXAMPLES
SPEC_IDS = [str(p.relative_to(ROOT)) for p in ALL_SPECS]
MEDINA = ROOT / "specs" / "medina"


@functools.cache
def compiled(path):
    """A shipped spec and its game, compiled once for the tests that only read them (the
    drawings are pure: test_output_is_sorted_and_the_same_every_time compiles afresh)."""
    spec = Spec(path)
    return spec, spec.game()

HEAD = """\
game: {id: flow, name: Flow, source: flow.txt, players: {min: 2, max: 2}}
components:
  card: {name: "c{n}", for_each: {n: "[1, 2, 3, 4]"}, zone: deck}
zones:
  deck: {kind: stack, visibility: count}
  out: {kind: set, visibility: public}
  hand: {kind: set, per_player: true, visibility: owner}
"""

# two steps in order, a loop, a decision with two options (one calls a rule), a call
FLOW = HEAD + """\
setup:
  - id: s.first
    source: flow.txt "First, shuffle"
    do:
      - shuffle deck
  - id: s.second
    source: flow.txt "Then deal"
    do:
      - move top(deck) to current.hand
play:
  - id: round
    source: flow.txt "Play two rounds"
    repeat: 2
    do:
      - id: round.pick
        source: flow.txt "Draw or pass"
        choose_one:
          - id: pick.draw
            label: draw
            do:
              - call draw
          - id: pick.pass
            label: pass
            do:
              - move top(deck) to out
      - id: round.tidy
        source: flow.txt "Tidy up"
        do:
          - move current.hand to out
rules:
  draw:
    source: flow.txt "Draw a card"
    do:
      - move top(deck) to current.hand
scoring:
  points:
    cards: {source: flow.txt "A card is a point", value: size(player.hand)}
"""


def spec_at(tmp_path, text: str, name: str = "flow.yaml") -> Spec:
    path = tmp_path / name
    path.write_text(text)
    return Spec(path)


def game_of(body: str) -> str:
    """A spec: HEAD and an indented body of steps."""
    return HEAD + textwrap.dedent(body)


def run(capsys, *argv):
    """The command as `tabula graph` runs it."""
    code = cli.main(["graph", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


# ---- every spec ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ALL_SPECS, ids=SPEC_IDS)
def test_every_spec_draws_in_every_format(capsys, path):
    code, dot, err = run(capsys, path, "--format", "dot")
    assert code == 0, err
    assert dot.startswith("digraph ") and dot.rstrip().endswith("}")
    code, mermaid, err = run(capsys, path, "--format", "mermaid")
    assert code == 0, err
    assert "\nflowchart TB\n" in mermaid
    code, out, err = run(capsys, path, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["directed"] and data["nodes"] and data["edges"]


def step_ids(value, out=None) -> dict:
    """{id: source} of every step and choose_one option of a spec document, read from
    the YAML (setup, play, rules; tie-breakers are not steps)."""
    out = {} if out is None else out
    if isinstance(value, dict):
        if "id" in value:
            out[str(value["id"])] = str(value.get("source", ""))
        for v in value.values():
            step_ids(v, out)
    elif isinstance(value, list):
        for v in value:
            step_ids(v, out)
    return out


@pytest.mark.parametrize("path", ALL_SPECS, ids=SPEC_IDS)
def test_json_holds_every_step_id_with_its_citation(path):
    spec, game = compiled(path)
    ids = step_ids([spec.doc.get("setup", []), spec.doc.get("play", []),
                    spec.doc.get("rules", {})])
    assert ids, "every spec has steps with ids"
    nodes = {n["id"]: n for n in graph_data(game)["nodes"]}
    for sid, source in ids.items():
        node = nodes.get(f"step:{sid}")
        assert node is not None, sid
        assert node["kind"] == "step" and node["source"] == source, sid
        assert node["key"] == f"step:{sid}"
    for name, rule in spec.doc.get("rules", {}).items():
        assert nodes[f"rule:{name}"]["source"] == str(rule.get("source", ""))


@pytest.mark.parametrize("path", ALL_SPECS, ids=SPEC_IDS)
def test_phases_and_rules_are_clusters(path):
    spec, game = compiled(path)
    dot, mermaid = render(game, "dot"), render(game, "mermaid")
    titles = re.findall(r'subgraph s\d+\["([^"]*)"\]', mermaid)
    for phase in ("setup", "play", "scoring"):
        assert f'subgraph "cluster_{phase}" {{' in dot
        assert phase in titles
    for name in spec.doc.get("rules", {}):
        assert f'subgraph "cluster_rule:{name}" {{' in dot
        assert f"rule {name}" in titles
    # every step and decision is drawn inside a phase, a rule or a step
    data = graph_data(game)
    kinds = {n["id"]: n["kind"] for n in data["nodes"]}
    for n in data["nodes"]:
        if n["kind"] in ("step", "decision", "score", "tiebreak"):
            assert kinds.get(n["cluster"]) in ("phase", "rule", "step"), n["id"]


@pytest.mark.parametrize("path", ALL_SPECS, ids=SPEC_IDS)
def test_output_is_sorted_and_the_same_every_time(path):
    one, two = Spec(path).game(), Spec(path).game()     # compiled twice
    for fmt in ("dot", "mermaid", "json"):
        assert render(one, fmt) == render(two, fmt)
    data = graph_data(one)
    ids = [n["id"] for n in data["nodes"]]
    assert ids == sorted(ids, key=natural)
    pairs = [(e["source"], e["target"]) for e in data["edges"]]
    assert pairs == sorted(pairs, key=lambda p: (natural(p[0]), natural(p[1])))


# ---- the flow ---------------------------------------------------------------------------------

def flow_edges(game) -> dict:
    g = game.prog.graph
    return {(a, b): d["kind"] for a, b, d in g.edges(data=True) if d["kind"] in ("next", "loop")}


def test_flow_edges_of_a_small_spec(tmp_path):
    game = spec_at(tmp_path, FLOW).game()
    g = game.prog.graph
    assert flow_edges(game) == {
        ("setup", "play"): "next",                       # the phases in order
        ("play", "scoring"): "next",
        ("step:s.first", "step:s.second"): "next",       # two steps in order
        ("step:pick.draw", "rule:draw"): "next",         # an option, then its body
        ("step:round.pick", "step:round.tidy"): "next",
        ("step:round.tidy", "step:round.pick"): "loop",  # the repeat starts again
    }
    # the way into each body: its first node
    entries = {(a, b) for a, b, d in g.edges(data=True) if d.get("entry")}
    assert entries == {("setup", "step:s.first"), ("play", "step:round"),
                       ("step:round", "step:round.pick"), ("step:round.pick", "decision:0"),
                       ("decision:0", "step:pick.draw"), ("decision:0", "step:pick.pass")}
    # structure as before: the decision contains its options, the body calls the rule
    assert g.edges["decision:0", "step:pick.draw"]["kind"] == "contains"
    assert g.edges["decision:0", "rule:draw"]["kind"] == "calls"
    assert g.edges["setup", "step:s.second"] == {"kind": "contains"}
    assert g.edges["step:round.tidy", "step:round.pick"]["within"] == "step:round"
    decision = g.nodes["decision:0"]
    assert decision["rule"] == "step:round.pick" and decision["player"] == "current"
    assert [o["id"] for o in decision["options"]] == ["pick.draw", "pick.pass"]


def test_flow_through_branches_loops_and_up_to(tmp_path):
    game = spec_at(tmp_path, game_of("""\
        play:
          - id: a
            do: [shuffle deck]
          - if: size(deck) > 2
            then:
              - id: b
                do: [shuffle deck]
          - id: c
            for: p in players
            do:
              - choose: t in deck
                player: p
                up_to: 2
                label: "take {t}"
                do:
                  - move t to p.hand
          - call tidy
        rules:
          tidy:
            while: size(deck) > 0
            do:
              - id: tidy.one
                do: [move top(deck) to out]
    """)).game()
    assert flow_edges(game) == {
        ("setup", "play"): "next", ("play", "scoring"): "next",
        ("step:a", "step:b"): "next",
        ("step:a", "step:c"): "next",               # the if may not run b
        ("step:b", "step:c"): "next",
        ("decision:0", "decision:0"): "loop",       # up_to asks again
        ("step:c", "rule:tidy"): "next",
        ("step:tidy.one", "step:tidy.one"): "loop",
    }
    assert game.prog.graph.nodes["decision:0"]["player"] == "p"
    assert game.prog.graph.nodes["decision:0"]["up_to"] == "2"


def test_flow_edges_are_not_calls(tmp_path):
    """Only contains and calls make a rule reachable: a rule that no body calls is an
    error, whatever flow edges there are (tests/test_playouts.py pins the games)."""
    kinds = {d["kind"] for _, _, d in Spec(ROOT / "specs" / "medang").game()
             .prog.graph.edges(data=True)}
    assert kinds == {"contains", "calls", "next", "loop"}
    with pytest.raises(SpecError, match="rule 'lonely' is never called"):
        spec_at(tmp_path, FLOW.replace("rules:\n", "rules:\n  lonely:\n    do: [shuffle deck]\n"),
                "lonely.yaml").game()


def test_decisions_say_who_asks_and_who_decides():
    g = Spec(ROOT / "specs" / "medang").game().prog.graph
    lots = [d for _, d in g.nodes(data=True)
            if d["kind"] == "decision" and d["rule"] == "step:setup.start_player"]
    assert len(lots) == 1 and lots[0]["player"] == "chance"
    dot = render(Spec(ROOT / "specs" / "medang").game(), "dot")
    assert "decision: chance\\nasked by setup.start_player" in dot
    assert "decision: player p\\nasked by setup.discard" in dot


# ---- DOT and Mermaid syntax ----------------------------------------------------------------------

NASTY = HEAD + """\
play:
  - id: odd
    source: 'flow.txt "He said `go` [now] (then) {x} a|b <b> #1 & end --> x; %% c"'
    ruling: 'a back\\slash and "quotes"'
    choose_one:
      - label: 'take "[it]" {top(deck)} | #2'
        do:
          - move top(deck) to out
      - label: "end"
        do:
          - move top(deck) to out
"""


def mermaid_lines_are_valid(text: str) -> None:
    """The Mermaid syntax the renderer relies on, line by line: front matter, one
    flowchart, subgraphs with quoted titles, nodes with quoted labels of escaped text,
    edges between node ids, classes."""
    lines = text.splitlines()
    assert lines[0] == "---" and lines[2] == "---" and lines[3] == "flowchart TB"
    assert re.fullmatch(r'title: "[^"\\]*"', lines[1])
    shapes = {"[": "]", "([": "])", "[[": "]]", "{{": "}}"}
    labels = []
    depth = 0
    for line in lines[4:]:
        if m := re.fullmatch(r'\s*subgraph s\d+\["(.*)"\]', line):
            labels.append(m.group(1))
            depth += 1
        elif re.fullmatch(r"\s*end", line):
            depth -= 1
            assert depth >= 0
        elif m := re.fullmatch(r'\s*n\d+(\(\[|\[\[|\{\{|\[)"(.*)"(\]\)|\]\]|\}\}|\])', line):
            assert shapes[m.group(1)] == m.group(3), line
            labels.append(m.group(2).replace("<br/>", "\n"))
        elif not (re.fullmatch(r"\s*n\d+ (-->|-\.->|-\.->\|loop\||==>\|call\|) n\d+", line)
                  or re.fullmatch(r"\s*classDef \w+ [\w#:,. -]+|\s*class n\d+(,n\d+)* \w+",
                                  line)):
            raise AssertionError(f"not a line of the Mermaid syntax used: {line!r}")
    assert depth == 0
    for label in labels:
        # nothing in a label that Mermaid reads as syntax: only entity codes #...;
        assert not re.search(r'["\[\](){}<>|`&]', label), label
        assert all(re.fullmatch(r"#(\w+|\d+);", m) for m in re.findall(r"#[^;]*;?", label)), label


def unescape_mermaid(label: str) -> str:
    return html.unescape(re.sub(r"#(\d+);", r"&#\1;", re.sub(r"#([a-z]+);", r"&\1;", label)))


def test_mermaid_escaping_is_lossless():
    text = 'He said "go" [now] (then) {x} a|b <b> #1 & `c` end --> x; %% c'
    assert unescape_mermaid(mermaid_text(text)) == text
    assert not re.search(r'["\[\](){}<>|`&]', mermaid_text(text))


@pytest.mark.parametrize("path", ALL_SPECS, ids=SPEC_IDS)
def test_mermaid_syntax(path):
    mermaid_lines_are_valid(render(compiled(path)[1], "mermaid"))


def test_mermaid_and_dot_of_awkward_text(tmp_path):
    game = spec_at(tmp_path, NASTY).game()
    mermaid = render(game, "mermaid")
    mermaid_lines_are_valid(mermaid)
    label = re.search(r'n\d+\["odd<br/>(.*)"\]', mermaid).group(1)
    assert unescape_mermaid(label.replace("<br/>", " ")) == \
        "“He said `go` [now] (then) {x} a|b <b> #1 & end --> x; %% c”"
    assert "1. take #quot;#91;it#93;#quot; #123;top#40;deck#41;#125; #124; #35;2" in mermaid
    dot = render(game, "dot")
    assert '1. take \\"[it]\\" {top(deck)} | #2' in dot
    assert 'ruling: a back\\\\slash and \\"quotes\\"' in dot
    if shutil.which("dot"):
        rendered = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True,
                                  check=False)
        assert rendered.returncode == 0, rendered.stderr
        assert "1. take &quot;[it]&quot; {top(deck)} | #2" in rendered.stdout
        assert "a back\\slash and &quot;quotes&quot;" in rendered.stdout


@pytest.mark.parametrize("path", ALL_SPECS, ids=SPEC_IDS)
def test_dot_renders_with_graphviz(path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz is not installed")
    dot = render(compiled(path)[1], "dot")
    rendered = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True,
                              check=False)
    assert rendered.returncode == 0 and not rendered.stderr, rendered.stderr
    assert "<svg" in rendered.stdout


def test_labels_are_short_and_tooltips_full():
    game = Spec(ROOT / "specs" / "medang").game()
    dot = render(game, "dot")
    line = next(x for x in dot.splitlines() if x.strip().startswith('"step:turn" ['))
    label = re.search(r'label="((?:[^"\\]|\\.)*)"', line).group(1)
    assert label.startswith("turn\\n“Games of Medang are played in")
    assert label.endswith("…") and "medang.txt" not in label     # the game's own rulebook
    assert max(len(x) for x in label.split("\\n")) <= 34
    assert "continuing clockwise" in line                          # in the tooltip


# ---- the command line ----------------------------------------------------------------------------

def test_out_writes_a_file(capsys, tmp_path):
    out = tmp_path / "medang.mmd"
    code, printed, _ = run(capsys, ROOT / "specs" / "medang", "--format", "mermaid",
                           "--out", out)
    assert code == 0 and printed == ""
    assert out.read_text().startswith("---\ntitle:")


def test_players_and_options(capsys):
    code, out, _ = run(capsys, ROOT / "specs" / "medang", "--players", "4", "--option",
                       "temple=sewu", "--format", "json")
    assert code == 0
    assert json.loads(out)["graph"] == {"spec": "medang", "players": 4,
                                        "options": {"temple": "sewu"}}


@pytest.mark.parametrize("argv,message", [
    (["nowhere/at/all"], "no such spec"),
    ([ROOT / "specs" / "medang", "--players", "9"], "not 9"),
    ([ROOT / "specs" / "medang", "--option", "temple"], "KEY=VALUE"),
    ([ROOT / "specs" / "medang", "--option", "temple=atlantis"], "atlantis"),
    ([ROOT / "specs" / "medang", "--out", "/nonexistent-folder/g.dot"], "cannot write"),
])
def test_bad_input_exits_1_with_a_message(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert message in err and "Traceback" not in err


def test_out_that_cannot_be_written(capsys, tmp_path):
    code, _, err = run(capsys, ROOT / "specs" / "medang", "--out", tmp_path)   # a folder
    assert code == 1 and "cannot write" in err


def test_bad_format_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        run(capsys, ROOT / "specs" / "medang", "--format", "png")
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_bad_spec_gives_a_located_error_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(HEAD + "play:\n  - move nothing to nowhere\n")
    done = subprocess.run([sys.executable, "-m", "tabula_rules", "graph", str(bad)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 1 and done.stdout == ""
    assert f"{bad}:9:10: error: unknown name 'nothing'" in done.stderr
    assert "Traceback" not in done.stderr


def test_registered_in_the_tabula_command(capsys):
    from tabula_rules.tools.cli import main, parser
    try:
        parser().parse_args(["graph", "SPEC"])
    except SystemExit:
        pytest.skip("cli.py does not register `graph` yet")
    assert main(["graph", str(ROOT / "examples" / "tiny"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["graph"]["spec"] == "tiny"
    assert main(["graph", "nowhere"]) == 1


# ---- the graphs compared -------------------------------------------------------------------------

PAIR_A = HEAD + """\
setup:
  - id: s.keep
    source: flow.txt "Keep this"
    do: [shuffle deck]
  - id: s.cited
    source: flow.txt "Old words"
    do: [shuffle deck]
  - id: s.gone
    source: flow.txt "Gone"
    do: [shuffle deck]
play:
  - id: p.x
    do:
      - call r
  - call r
rules:
  r:
    do: [move top(deck) to out]
"""
PAIR_B = (PAIR_A.replace('"Old words"', '"New words"')
          .replace('id: s.gone\n    source: flow.txt "Gone"',
                   'id: s.new\n    source: flow.txt "New"')
          .replace("      - call r\n  - call r", "      - shuffle deck\n  - call r"))


def test_graph_diff_of_a_hand_written_pair(tmp_path):
    a = spec_at(tmp_path, PAIR_A, "a.yaml").game()
    b = spec_at(tmp_path, PAIR_B, "b.yaml").game()
    entries = diff_graphs(a, b)
    assert [(e["change"], e["what"], e["id"]) for e in entries] == [
        ("changed", "step", "step:s.cited"),
        # p.x called r (a structural edge), now r only follows p.x
        ("changed", "transition", "step:p.x -> rule:r"),
        ("added", "step", "step:s.new"),
        ("added", "transition", "setup -> step:s.new"),
        ("added", "transition", "step:s.cited -> step:s.new"),
        ("removed", "step", "step:s.gone"),
        ("removed", "transition", "setup -> step:s.gone"),
        ("removed", "transition", "step:s.cited -> step:s.gone"),
    ]
    cited, edge = entries[0], entries[1]
    assert cited["fields"] == [{"name": "source", "a": 'flow.txt "Old words"',
                                "b": 'flow.txt "New words"'}]
    assert {f["name"]: (f["a"], f["b"]) for f in edge["fields"]} == {
        "kind": ("calls", "next"), "entry": (True, None), "within": (None, "play")}
    assert entries[2]["b"]["source"] == 'flow.txt "New"'
    assert entries[4]["b"] == {"kind": "next", "within": "setup"}
    text = format_graph_diff(entries)
    assert "changed step:s.cited\n    source:\n      - flow.txt \"Old words\"\n" in text
    assert "added transition step:s.cited -> step:s.new (next)" in text
    assert text.endswith("8 graph differences: 2 changed, 3 added, 3 removed")
    as_json = graph_diff_json(entries)
    assert [len(as_json[k]) for k in ("changed", "added", "removed")] == [2, 3, 3]
    assert format_graph_diff(as_json) == text
    assert json.loads(json.dumps(as_json)) == as_json


def test_decisions_are_named_by_who_asks_them(tmp_path):
    """A decision added before another does not renumber it; who decides is compared."""
    a = game_of("""\
    play:
      - id: p.pick
        choose: t in deck
        do: [move t to out]
    """)
    b = game_of("""\
    setup:
      - id: s.lots
        choose: p in players
        player: chance
        do: [shuffle deck]
    play:
      - id: p.pick
        choose: t in deck
        player: next_player(current)
        do: [move t to out]
    """)
    entries = diff_graphs(spec_at(tmp_path, a, "a.yaml").game(),
                          spec_at(tmp_path, b, "b.yaml").game())
    assert [(e["change"], e["id"]) for e in entries if e["what"] != "transition"] == [
        ("changed", "step:p.pick/decision"),
        ("added", "step:s.lots"),
        ("added", "step:s.lots/decision"),
    ]
    assert entries[0]["fields"] == [{"name": "player", "a": "current",
                                     "b": "next_player(current)"}]
    assert all("decision:" not in e["id"] for e in entries)


def test_medina_against_its_variant_names_steps_by_id():
    d = diff_specs(Spec(MEDINA), Spec(MEDINA / "bsw-dm2003.yaml"))
    assert len(d["added"]) + len(d["removed"]) + len(d["changed"]) + len(d["renamed"]) == 30
    graph = d["graph"]
    assert graph["players"] == {"a": 2, "b": 2}
    removed = {e["id"] for e in graph["removed"]}
    added = {e["id"] for e in graph["added"]}
    assert {"step:setup.well", "step:setup.start_merchant", "step:turn.tea_break",
            "score:well", "step:setup.well/decision"} <= removed
    assert {"step:bsw.street_start", "step:bsw.colour_retired"} <= added
    # the rule diff's removed setup steps are removed from the graph too
    assert {f"step:{r['id'][len('steps.'):]}" for r in d["removed"]
            if r["id"].startswith("steps.")} <= removed
    for e in graph["added"] + graph["removed"] + graph["changed"]:
        ids = [e["from"], e["to"]] if "from" in e else [e["id"]]
        for i in ids:
            assert re.fullmatch(r"(setup|play|scoring|(step|rule|score|tiebreak|component):"
                                r"[\w.]+)(/decision(#\d+)?)*", i), i
    text = format_diff(d)
    # the 30 entries and the settled ruling R23
    assert "31 differences" in text and "\naction graph (2 and 2 players" in text
    assert "removed step:setup.well\n" in text


def test_a_spec_against_itself_has_no_graph_difference():
    d = diff_specs(Spec(MEDINA), Spec(MEDINA))
    assert d["graph"] == {"players": {"a": 2, "b": 2}, "added": [], "removed": [],
                          "changed": []}
    assert format_diff(d).endswith("0 graph differences: 0 changed, 0 added, 0 removed")


def test_diff_of_a_spec_that_does_not_compile_still_compares_rules(tmp_path):
    good = spec_at(tmp_path, FLOW, "good.yaml")
    bad = spec_at(tmp_path, FLOW.replace("call draw", "call drew"), "bad.yaml")
    d = diff_specs(good, bad)
    assert [c["id"] for c in d["changed"]] == ["steps.round"]
    assert "undefined rule 'drew'" in d["graph"]["error"]
    assert "action graph: not compared" in format_diff(d)


# ---- the documentation ---------------------------------------------------------------------------

def test_docs_show_what_the_command_prints():
    doc = (ROOT / "docs" / "graph.md").read_text()
    block = re.search(r"```mermaid\n(.*?)```", doc, re.DOTALL).group(1)
    assert block == render(Spec(ROOT / "examples" / "tiny").game(), "mermaid")
    assert "![The action graph of Medang](medang-graph.svg)" in doc
    svg = (ROOT / "docs" / "medang-graph.svg").read_text()
    ids = step_ids([Spec(ROOT / "specs" / "medang").doc[k] for k in ("setup", "play", "rules")])
    assert all(f"<title>step:{sid}</title>" in svg for sid in ids)
