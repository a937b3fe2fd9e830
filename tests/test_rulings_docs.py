"""Documents that cannot drift (issue 13): a spec folder's RULINGS.md and its spec files
must name the same things.

How RULINGS.md names a thing of the spec (the only forms checked, so prose is never
flagged):

- a qualified name in backticks, KIND.NAME: `data.city_size`, `functions.can_place`,
  `rules.place_one`, `steps.turn.tea_break` (a step id), `options.temple.default`,
  `variables.passes`, `zones.board`, `components.meeple`, `enums.prey_kind`,
  `points.vp`, `tiebreak.taro`;
- a section heading `## data `NAME`` (one or more backticked names): data entries;
- a table whose header's first cell speaks of data (`| middag.yaml (data:) entry | ...`):
  the backticked names of its first column are data entries;
- a section heading holding a backticked dotted id (`## `turn.tea_break``): a step id of
  the spec, or one of the section names listed in SECTION_NAMES below (rulings the
  spec cites by name but that are not a step id yet; the list may only shrink).

And the other way round:

- every data entry marked `assumed:` in a spec file of the folder appears in a table row
  of RULINGS.md, as `NAME` or `data.NAME` (a RULINGS.md with no table at all, Medang's,
  may head a section `## data `NAME`` instead);
- every `RULINGS.md ID` / `RULINGS.md data NAME` cited in a spec file is a section of
  RULINGS.md.

Every spec folder with a RULINGS.md (specs/*) is checked; the names of all spec files of
the folder count (a variant's `add:` and `override:` included)."""

import re
import shutil
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = sorted(p.parent for p in (ROOT / "specs").glob("*/RULINGS.md"))

TOP_KINDS = ("data", "functions", "rules", "options", "variables", "zones", "components",
             "enums")
KINDS = TOP_KINDS + ("steps", "points", "tiebreak")
QUALIFIED = re.compile(rf"({'|'.join(KINDS)})\.([A-Za-z_]\w*(?:\.\w+)*)")
DOTTED_ID = re.compile(r"[a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)+")
FILE_NAME = re.compile(r".*\.(ya?ml|md|txt|py|json)$")

# Section headings of RULINGS.md that name a ruling, not (yet) a step of the spec. Each is
# a known gap: give the step that id (or rename the section) and take it off this list.
SECTION_NAMES = {
    "medina": {
        "turn.first_turn_single", "end.game_end", "place.building.extend_open_palace",
        "place.building.separation", "place.stable.not_next_to_stable",
        "place.merchant.extend_street", "place.merchant.new_street", "place.wall.gate",
        "place.rooftop.neutral", "score.well", "score.palace.walls",
        "score.palace.merchants", "own.palace_tile", "own.tower_tile",
        "own.tower_tile.merchants", "score.winner",
        "bsw.first_turns", "bsw.tower_bonus", "bsw.last_roofs", "bsw.stable_sit_out",
    },
    "middag": {
        "turn.send.place_or_move", "turn.send.crowding", "turn.send.fee", "turn.hunt.pay",
        "hunt.tile.wild_boar", "hunt.tile.prey_taro_vp", "hunt.tile.two_prey",
        "hut.worship.times", "hut.elder.draw", "season.festival.ties", "story.most.eligible",
        "story.least.eligible", "story.hermit", "end.prey", "small.block",
        "season.next_player", "turn.order", "end.tiebreak", "hut.trade.choose_tile",
    },
}


def _step_ids(node, out: set) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("id"), str):
            out.add(node["id"])
        for v in node.values():
            _step_ids(v, out)
    elif isinstance(node, list):
        for v in node:
            _step_ids(v, out)


def spec_files(folder: Path) -> list:
    return sorted(folder.glob("*.yaml"))


def spec_names(folder: Path) -> dict:
    """Every name the folder's spec files define, by kind; and the assumed data entries."""
    names = {k: set() for k in KINDS}
    assumed = set()
    for f in spec_files(folder):
        doc = yaml.safe_load(f.read_text(encoding="utf-8")) or {}
        for part in (doc, doc.get("add") or {}, doc.get("override") or {}):
            for kind in TOP_KINDS:
                entries = part.get(kind) or {}
                names[kind] |= set(entries)
                if kind == "data":
                    assumed |= {k for k, v in entries.items()
                                if isinstance(v, dict) and "assumed" in v}
            scoring = part.get("scoring") or {}
            names["points"] |= set(scoring.get("points") or {})
            names["points"] |= set(part.get("points") or {})
            for t in (scoring.get("tiebreak") or []) + list(part.get("tiebreak") or {}):
                names["tiebreak"].add(t["id"] if isinstance(t, dict) else t)
            names["steps"] |= set(part.get("steps") or {})
        for key in ("setup", "play", "rules"):
            _step_ids(doc.get(key), names["steps"])
        for part in (doc.get("add") or {}, doc.get("override") or {}):
            _step_ids(part, names["steps"])
    return {"names": names, "assumed": assumed}


def _ticks(text: str) -> list:
    return re.findall(r"`([^`\n]+)`", text)


def problems(folder: Path, section_names: set = frozenset()) -> list:
    """What RULINGS.md names that the spec lacks, and the other way round."""
    md_path = folder / "RULINGS.md"
    md = md_path.read_text(encoding="utf-8")
    got = spec_names(folder)
    names = got["names"]
    out = []

    def where(i):
        return f"{md_path.name}:{i}"

    headings = set()            # dotted ids and data names that head a section
    table_names = set()         # backticked names in table rows
    data_table = False
    for i, line in enumerate(md.splitlines(), start=1):
        for tok in _ticks(line):
            m = QUALIFIED.fullmatch(tok)
            if not m:
                continue
            kind, rest = m.groups()
            name = rest if kind == "steps" else rest.split(".")[0]
            if name not in names[kind]:
                out.append(f"{where(i)}: `{tok}`: no {kind} entry {name!r} in the spec")
        if line.startswith("#"):
            toks = _ticks(line)
            if re.match(r"#+\s+data\b", line):
                for tok in toks:
                    headings.add("data " + tok)
                    if tok not in names["data"]:
                        out.append(f"{where(i)}: heading names data `{tok}`, not in the spec")
            else:
                for tok in toks:
                    if DOTTED_ID.fullmatch(tok) and not FILE_NAME.match(tok):
                        headings.add(tok)
                        if tok not in names["steps"] and tok not in section_names:
                            out.append(f"{where(i)}: heading names `{tok}`, no step of "
                                       f"the spec has that id")
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if set(line.strip()) <= set("|-: "):
                continue
            if not any(_ticks(c) for c in cells) and "data" in cells[0].lower():
                data_table = True           # a header row: a table of data entries
            elif not _ticks(line) and not line.startswith("|-"):
                data_table = "data" in cells[0].lower()
            for tok in _ticks(line):
                table_names.add(tok)
            if data_table:
                for tok in _ticks(cells[0]):
                    if re.fullmatch(r"[a-z_]\w*", tok) and tok not in names["data"]:
                        out.append(f"{where(i)}: table of data entries names `{tok}`, "
                                   f"not in the spec")
        else:
            data_table = False
    has_table = any(line.startswith("|") for line in md.splitlines())
    for entry in sorted(got["assumed"]):
        if not has_table and "data " + entry in headings:
            continue                # a RULINGS.md without tables (medang's): its heading
        if entry not in table_names and f"data.{entry}" not in table_names:
            out.append(f"{md_path.name}: the assumed data entry {entry!r} is in no table "
                       f"row (as `{entry}` or `data.{entry}`)")
    for f in spec_files(folder):
        text = f.read_text(encoding="utf-8")
        for m in re.finditer(r"RULINGS\.md (data [a-z_]\w*|[a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)+)",
                             text):
            if m.group(1) not in headings:
                line = text.count("\n", 0, m.start()) + 1
                out.append(f"{f.name}:{line}: cites RULINGS.md {m.group(1)}, no section "
                           f"of RULINGS.md is headed so")
    return out


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_rulings_name_what_the_spec_has(folder):
    found = problems(folder, SECTION_NAMES.get(folder.name, set()))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_known_section_names_are_still_gaps(folder):
    """SECTION_NAMES only shrinks: an id that has become a step id, or whose section is
    gone, must leave the list."""
    steps = spec_names(folder)["names"]["steps"]
    md = (folder / "RULINGS.md").read_text(encoding="utf-8")
    headed = {t for line in md.splitlines() if line.startswith("#") for t in _ticks(line)}
    for name in sorted(SECTION_NAMES.get(folder.name, set())):
        assert name not in steps, f"{name} is a step id now: take it off SECTION_NAMES"
        assert name in headed, f"{name} heads no section of RULINGS.md any more"


def test_every_spec_folder_with_rulings_is_checked():
    assert {f.name for f in FOLDERS} >= {"medina", "middag", "medang"}


def _copy(tmp_path, name):
    dst = tmp_path / name
    shutil.copytree(ROOT / "specs" / name, dst, ignore=shutil.ignore_patterns("tests"))
    return dst


def _misspell(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_misspelt_function_in_rulings_fails(tmp_path):
    folder = _copy(tmp_path, "medina")
    assert not problems(folder, SECTION_NAMES["medina"])
    _misspell(folder / "RULINGS.md", "`functions.can_place`", "`functions.can_plaec`")
    found = problems(folder, SECTION_NAMES["medina"])
    assert len(found) == 1 and "functions.can_plaec" in found[0], found


def test_a_misspelt_step_id_in_a_heading_fails(tmp_path):
    folder = _copy(tmp_path, "medina")
    _misspell(folder / "RULINGS.md", "## `turn.tea_break`", "## `turn.tea_braek`")
    found = problems(folder, SECTION_NAMES["medina"])
    assert any("turn.tea_braek" in p for p in found), found


def test_a_misspelt_data_entry_in_the_table_fails(tmp_path):
    folder = _copy(tmp_path, "middag")
    assert not problems(folder, SECTION_NAMES["middag"])
    _misspell(folder / "RULINGS.md", "| `hunting_spaces` |", "| `hunting_space` |")
    found = problems(folder, SECTION_NAMES["middag"])
    # the misspelt name is flagged, and the assumed entry is in no table row any more
    assert any("`hunting_space`" in p for p in found), found
    assert any("'hunting_spaces' is in no table row" in p for p in found), found


def test_an_assumed_entry_missing_from_the_table_fails(tmp_path):
    folder = _copy(tmp_path, "middag")
    md = folder / "RULINGS.md"
    md.write_text("\n".join(line for line in md.read_text(encoding="utf-8").splitlines()
                            if not line.startswith("| `elder_area_pile` |")) + "\n",
                  encoding="utf-8")
    found = problems(folder, SECTION_NAMES["middag"])
    assert any("'elder_area_pile' is in no table row" in p for p in found), found


def test_a_misspelt_name_in_the_spec_fails(tmp_path):
    folder = _copy(tmp_path, "middag")
    _misspell(folder / "middag.yaml", "  worship_track:\n", "  worship_trak:\n")
    found = problems(folder, SECTION_NAMES["middag"])
    assert any("worship_track" in p for p in found), found
