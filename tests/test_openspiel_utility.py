"""What a spec tells OpenSpiel by itself (issue 24): `game.utility` (the scores' range and
their sum: zero-sum, constant-sum or general-sum) and a small `game.max_decisions`, which
gives the information-state tensor by default. The examples that mirror OpenSpiel's
games load as OpenSpiel's own do, with no parameter; a declaration the scores break is a
located error at the end of the game, never a lie told to OpenSpiel."""

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from tabula_rules import RuleError, SpecError, TabulaError, load_spec  # noqa: E402
from tabula_rules.adapters.openspiel import load  # noqa: E402

from conftest import ROOT  # noqa: E402
from helpers import at, edit, write  # noqa: E402

EXAMPLES = ROOT / "examples"
U = pyspiel.GameType.Utility


def _play(game, seed: int = 0, pick=None):
    """A random game to its end (`pick(state, actions)` chooses a player's action)."""
    rng = random.Random(seed)
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            actions, probs = zip(*st.chance_outcomes())
            st.apply_action(rng.choices(actions, probs)[0])
        elif st.is_simultaneous_node():
            st.apply_actions([rng.choice(st.legal_actions(p))
                              for p in range(game.num_players())])
        else:
            actions = st.legal_actions()
            st.apply_action(pick(st, actions) if pick else rng.choice(actions))
    return st


# -- game.utility: the examples as OpenSpiel's own games ----------------------------------------
@pytest.mark.parametrize("example, players, options, theirs", [
    ("kuhn_poker", None, None, ("kuhn_poker", {})),
    ("leduc_poker", None, None, ("leduc_poker", {})),
    ("tic_tac_toe", None, None, ("tic_tac_toe", {})),
    ("connect_four", None, None, ("connect_four", {})),
    ("hearts", None, None, ("hearts", {})),
    ("liars_dice", None, None, ("liars_dice", {})),
    ("goofspiel", None, None, ("goofspiel", {})),
    ("pig", 4, None, ("pig", {"players": 4})),
    ("backgammon", None, None, ("backgammon", {})),
    ("backgammon", None, {"scoring_type": "full_scoring"},
     ("backgammon", {"scoring_type": "full_scoring"})),
    ("dots_and_boxes", None, None, ("dots_and_boxes", {})),
    ("dots_and_boxes", None, {"utility_margin": "true", "num_rows": "3"},
     ("dots_and_boxes", {"utility_margin": True, "num_rows": 3})),
], ids=lambda x: x if isinstance(x, str) else None)
def test_examples_declare_the_utility_openspiel_gives(example, players, options, theirs):
    """Loaded with no parameter, each example's utility, range and sum are those of
    OpenSpiel's own game (with the same options: an option-dependent range is rule
    text of the options in game.utility)."""
    ours = load(EXAMPLES / example, players, options)
    ref = pyspiel.load_game(theirs[0], theirs[1])
    assert ours.get_type().utility == ref.get_type().utility
    assert (ours.min_utility(), ours.max_utility()) == (ref.min_utility(), ref.max_utility())
    if ref.get_type().utility == U.ZERO_SUM:
        assert ours.utility_sum() == 0.0


def test_exploitability_takes_kuhn_poker_with_no_parameter():
    """The issue's own call: exploitability on the example as loaded (before, "The game
    must be constant- or zero-sum" unless utility=zero_sum was given), with the figure
    OpenSpiel's kuhn_poker gives for the uniform policy."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability
    game = pyspiel.load_game("tabula", {"spec": str(EXAMPLES / "kuhn_poker")})
    ref = pyspiel.load_game("kuhn_poker")
    ours = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
    assert ours == pytest.approx(
        exploitability.exploitability(ref, policy.UniformRandomPolicy(ref)), abs=1e-12)


def test_the_parameters_still_choose():
    """utility=general_sum tells OpenSpiel general-sum; given min/max_utility are the
    range; returns=win_loss is -1..1 (the declaration is of the scores)."""
    kuhn = EXAMPLES / "kuhn_poker"
    general = load(kuhn, utility="general_sum")
    assert general.get_type().utility == U.GENERAL_SUM and general.utility_sum() is None
    assert (general.min_utility(), general.max_utility()) == (-2.0, 2.0)
    wide = load(kuhn, min_utility=-5.0, max_utility=5.0)
    assert (wide.min_utility(), wide.max_utility()) == (-5.0, 5.0)
    assert wide.get_type().utility == U.ZERO_SUM
    won = load(kuhn, returns="win_loss")
    assert (won.min_utility(), won.max_utility(), won.utility_sum()) == (-1.0, 1.0, 0.0)
    assert _play(won).returns() in ([1.0, -1.0], [-1.0, 1.0])


# -- a spec of its own: constant-sum, and declarations its scores break -------------------------
SPLIT = """\
game:
  id: split
  name: Split
  source: a test
  players: {min: 2, max: 2}
  utility: {sum: 4, min: 1, max: 3}
variables:
  took: {value: 0}
play:
  - id: take
    choose: k in range(1, 3)
    player: "0"
    label: "take {k}"
    do:
      - took = k
scoring:
  points:
    share:
      value: "if player == 0 then took else 4 - took"
"""


def _choose(label):
    """A player who always chooses the action of that label."""
    return lambda st, actions: next(a for a in actions if st.action_to_string(a) == label)


def test_a_constant_sum_is_told_and_kept(tmp_path):
    game = load(write(tmp_path, SPLIT))
    assert game.get_type().utility == U.CONSTANT_SUM
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (1.0, 3.0, 4.0)
    for k in (1, 2, 3):
        assert _play(game, pick=_choose(f"take {k}")).returns() == [float(k), 4.0 - k]


@pytest.mark.parametrize("declared, take, message", [
    ("{sum: 3, min: 1, max: 3}", 2, "add up to 4, not 3 as game.utility's sum declares: "
                                    "the game is not constant-sum"),
    ("{sum: 0, min: -3, max: 3}", 1, "add up to 4, not 0 as game.utility's sum declares: "
                                     "the game is not zero-sum"),
    ("{sum: 4, min: 1, max: 2}", 3, "3 is outside its min..max (1..2)"),
], ids=["sum", "zero-sum", "range"])
def test_scores_that_break_the_declaration_are_a_located_error(tmp_path, declared, take,
                                                               message):
    """The game plays, and its end refuses to give OpenSpiel returns that break
    game.utility: a RuleError at the declaration."""
    text = edit(SPLIT, ("{sum: 4, min: 1, max: 3}", declared))
    path = write(tmp_path, text)
    game = load(path)
    st = _play(game, pick=_choose(f"take {take}"))
    with pytest.raises(RuleError) as err:
        st.returns()
    assert message in err.value.message
    assert (err.value.pos.line, err.value.pos.col) == at(text, "utility:")
    assert err.value.pos.file == str(path)


def test_kuhn_poker_declared_zero_sum_with_a_narrower_range_is_caught(tmp_path):
    """An example's declaration is checked as it plays: Kuhn poker claiming its chips
    stay within -1..1 ends a game with a bet called (2 chips) in an error."""
    path = tmp_path / "kuhn_narrow.yaml"
    path.write_text(f"extends: {EXAMPLES / 'kuhn_poker' / 'kuhn_poker.yaml'}\n"
                    "game: {id: kuhn_narrow, name: K, utility: {sum: 0, min: -1, max: 1}}\n")
    game = load(path)
    with pytest.raises(RuleError, match=r"2 is outside its min\.\.max \(-1\.\.1\)"):
        _play(game, pick=_choose("Bet")).returns()


def test_validate_play_checks_the_scores_against_the_declaration(tmp_path, capsys):
    """`tabula validate --play` fails a game whose scores break game.utility, located at
    the declaration, as the adapter does: the spec's author learns it without OpenSpiel."""
    from tabula_rules.tools.cli import main
    path = tmp_path / "kuhn_narrow.yaml"
    path.write_text(f"extends: {EXAMPLES / 'kuhn_poker' / 'kuhn_poker.yaml'}\n"
                    "game: {id: kuhn_narrow, name: K, utility: {sum: 0, min: -1, max: 1}}\n")
    assert main(["validate", str(path), "--play", "20", "--workers", "1"]) == 1
    out, err = capsys.readouterr()
    assert "FAIL" in out and "break game.utility" in err and f"{path}:2:" in err
    assert main(["validate", str(EXAMPLES / "kuhn_poker"), "--play", "20",
                 "--workers", "1"]) == 0
    capsys.readouterr()
    # every game breaks a sum of 1, but its rules ran to the end: what fired is counted
    path = tmp_path / "ttt_sum.yaml"
    path.write_text(f"extends: {EXAMPLES / 'tic_tac_toe' / 'tic_tac_toe.yaml'}\n"
                    "game: {id: ttt_sum, name: T, utility: {sum: 1, min: -1, max: 1}}\n")
    assert main(["validate", str(path), "--play", "20", "--workers", "1"]) == 1
    out, err = capsys.readouterr()
    assert "20 failed" in out and "never fired" not in out, out


@pytest.mark.parametrize("declared, where, message", [
    ("{sum: 4, min: 3, max: 1}", "max: 1", "game.utility: min (3) must be less than max (1)"),
    ("{sum: 4, min: 1}", "{sum: 4, min: 1}", "max"),
    ("{sum: 4, min: 1, max: 1.5}", "1.5", "1.5"),
], ids=["min-above-max", "no-max", "not-an-integer"])
def test_a_bad_declaration_is_refused_when_the_spec_loads(tmp_path, declared, where,
                                                          message):
    text = edit(SPLIT, ("{sum: 4, min: 1, max: 3}", declared))
    with pytest.raises(SpecError) as err:
        load_spec(write(tmp_path, text))
    assert message in err.value.message
    line, _ = at(text, where)
    assert err.value.pos.line == line


@pytest.mark.parametrize("declared, where, message", [
    ('{sum: 4, min: 1, max: "\'many\'"}', "\'many\'", "game.utility.max is a number, not "
                                                      "\'many\'"),
    ("{sum: 4, min: 1, max: option.nope}", "option.nope", "nope"),
    ("{sum: 10, min: 1, max: 3}", "sum:", "the scores of 2 players, each from 1 to 3, "
                                          "cannot add up to 10"),
    ('{sum: 4, min: 1, max: "size(players) - 1"}', "size(", "min (1) must be less than "
                                                           "max (1)"),
], ids=["text", "unknown-option", "impossible-sum", "computed-min-above-max"])
def test_a_bad_value_is_a_located_error_for_each_game(tmp_path, declared, where, message):
    """A value known once the game is compiled (rule text of the options and the player
    count): `tabula validate` (Spec.validate) and the adapter refuse it, located."""
    text = edit(SPLIT, ("{sum: 4, min: 1, max: 3}", declared))
    path = write(tmp_path, text)
    spec = load_spec(path)
    for check in (spec.validate, lambda: load(path)):
        with pytest.raises(SpecError) as err:
            check()
        assert message in err.value.message
        assert err.value.pos.line == at(text, where)[0]


def test_a_zero_sum_claim_against_the_declared_sum_is_refused(tmp_path):
    with pytest.raises(TabulaError, match="utility=zero_sum, but the spec declares that "
                                          "its scores add up to 4"):
        load(write(tmp_path, SPLIT), utility="zero_sum")


def test_rule_text_values_are_of_the_options_and_the_players(tmp_path):
    """Backgammon's range follows its scoring_type, Dots and Boxes' its board; a spec
    without game.utility has none."""
    for scoring, top in (("winloss_scoring", 1), ("enable_gammons", 2), ("full_scoring", 3)):
        game = load(EXAMPLES / "backgammon", None, {"scoring_type": scoring})
        assert (game.min_utility(), game.max_utility()) == (-top, top)
    spec = load_spec(EXAMPLES / "dots_and_boxes")
    got = spec.utility(spec.game(None, {"utility_margin": "true", "num_rows": "4",
                                        "num_cols": "5"}))
    assert got is not None and (got.min, got.max, got.sum) == (-20, 20, 0)
    plain = load_spec(write(tmp_path, edit(SPLIT, ("  utility: {sum: 4, min: 1, max: 3}\n",
                                                   ""))))
    assert plain.utility(plain.game()) is None
    assert load(plain.path).get_type().utility == U.GENERAL_SUM


# -- game.max_decisions: the information-state tensor by default ---------------------------------
# each example's own bound (the comment beside its max_decisions says how it is counted),
# and the tensor's size: the observation tensor, the bound's entries, and the count
BOUNDS = {"kuhn_poker": (5, 95), "leduc_poker": (11, 191), "liars_dice": (15, 173),
          "goofspiel": (36, 1022), "hearts": (117, 2687)}


@pytest.mark.parametrize("example", list(BOUNDS))
def test_imperfect_information_examples_give_the_tensor_by_default(example):
    bound, size = BOUNDS[example]
    game = load(EXAMPLES / example)
    ctx = game.ctx
    assert game.get_type().provides_information_state_tensor
    assert ctx.prog.max_decisions == bound
    assert game.information_state_tensor_size() == size == (
        game.observation_tensor_size() + bound * ctx.history.width + 1)
    st = _play(game, seed=3)
    for p in range(game.num_players()):
        tensor = st.information_state_tensor(p)
        assert len(tensor) == size
        assert tensor[-1] == len(st.tabula.history) <= bound


@pytest.mark.parametrize("example, line", [
    # Kuhn: the two deals, Pass, Bet, Call
    ("kuhn_poker", ["Pass", "Bet", "Bet"]),
    # Leduc: in each round Call, Raise, Raise, Call (the public card between)
    ("leduc_poker", ["Call", "Raise", "Raise", "Call"] * 2),
    # Liar's dice: every bid from the lowest up, then the call
    ("liars_dice", [f"{q}-{f}" for q in (1, 2) for f in range(1, 7)] + ["Liar"]),
], ids=lambda x: x if isinstance(x, str) else None)
def test_the_longest_game_makes_exactly_max_decisions(example, line):
    """The bound is the game's: its longest line of play reaches it (and the game
    stops there, the tensor's last entry filled)."""
    game = load(EXAMPLES / example)
    moves = iter(line)

    def pick(st, actions):
        want = next(moves)
        return next(a for a in actions if st.action_to_string(a) == want)

    st = _play(game, pick=pick)
    assert len(st.tabula.history) == game.ctx.prog.max_decisions
    assert next(moves, None) is None
