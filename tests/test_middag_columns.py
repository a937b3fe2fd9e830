"""Kingdom of Middag: the Hunting Field's two columns (issue 13, defect 2).

The Current Hunting Field is the left column in Seasons I and III and the right one in
Seasons II and IIII (the columns swap roles every season). Both columns hold the same
assumed dots and bonuses in middag.yaml, so a spec that always read the left column's
data would pass every scenario of the spec. Here a variant gives the right column other
numbers, and a hunt must read the column that is the current field."""


from tabula_rules.tools.scenario import run_file

from conftest import ROOT

MIDDAG = ROOT / "specs" / "middag" / "middag.yaml"

LEFT = {i: {"dots": d, "taro": t, "meeple": m} for i, (d, t, m) in enumerate(
    [(4, 1, 0), (2, 2, 0), (3, 0, 1), (4, 1, 0), (2, 3, 0), (3, 0, 1), (4, 2, 0), (2, 4, 0),
     (3, 2, 0)], start=1)}
# the right column differs on every space: 1 dot more, 5 Taro more, no extra meeple
RIGHT = {i: {"dots": s["dots"] + 1, "taro": s["taro"] + 5, "meeple": 0} for i, s in LEFT.items()}


def _flow(d):
    return "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"


VARIANT = f"""\
extends: {MIDDAG}
game: {{id: middag_columns, name: Kingdom of Middag with unlike columns}}
override:
  data:
    hunting_spaces:
      source: middag.txt "the number of white dots beside the hunting space"
      assumed: a test's columns, printed unlike so that reading the wrong one shows.
      value:
        left:
{chr(10).join(f"          {i}: {_flow(s)}" for i, s in LEFT.items())}
        right:
{chr(10).join(f"          {i}: {_flow(s)}" for i, s in RIGHT.items())}
"""

SCENARIO = """\
spec: variant.yaml
scenarios:
{body}
"""

ONE = """\
  - id: season-{season}-reads-the-{column}-column
    source: >-
      kingdom-of-middag.txt "Get Prey tokens of the type shown on the Hunting tile from the
      supply equal to the number of white dots beside the hunting space." ... "Gain any bonus
      rewards shown beside the hunting space"
    description: Season {season}, the {column} column is the current field.
    players: 2
    given:
      zones:
        current_field: [[pheasant_1], [deer_1], [hare_1], [pheasant_2], [hare_2], [deer_2], [pheasant_3], [hare_3], [wild_boar]]
      variables:
        season: {season}
        start_player: 0
        taro: {{0: 1, 1: 3}}
        prey[mikado_pheasant]: {{0: 1, 1: 1}}
    do:
      - {{action: hunt pheasant_1 at space 1, player: 0}}
      - "take mikado_pheasant"
    expect:
      variables:
        taro: {{0: {taro}}}
        prey[mikado_pheasant]: {{0: {prey}}}
"""  # noqa: E501  spec text, kept as written


def scenarios(tmp_path):
    (tmp_path / "variant.yaml").write_text(VARIANT)
    body = ""
    for season in (1, 2, 3, 4):
        column = "left" if season % 2 else "right"
        space = (LEFT if column == "left" else RIGHT)[1]
        body += ONE.format(season=season, column=column, taro=1 + space["taro"],
                           prey=1 + space["dots"])
    path = tmp_path / "columns.yaml"
    path.write_text(SCENARIO.format(body=body))
    return path


def test_each_season_reads_its_own_column(tmp_path):
    results = run_file(scenarios(tmp_path))
    assert len(results) == 4
    failed = [str(r) for r in results if not r.passed]
    assert not failed, "\n".join(failed)
