"""`tabula serve` (issue 24, 1): the web client, through its API and in a real headless
browser (Chromium driven by Playwright).

Through the API: a seat's view shows only what its observation gives (no piece of a
hand it may not see, in the SVG or anywhere in the page's data); actions, undo and hint;
bad requests are clear JSON errors, never a traceback; a game log replays step by step.
In Chromium: a human plays a whole game of tic-tac-toe by clicking the board's cells;
Medina's board is drawn and a placement is made by clicking a piece, then a cell; the
other seat's page of Kuhn poker does not hold the first seat's card; the replay viewer
steps forward, back and jumps to a decision."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tabula_rules.errors import TabulaError
from tabula_rules.tools.serve import Server

from conftest import EXAMPLES, ROOT, SPEC_FILES
from helpers import MORRA

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def app():
    server = Server("127.0.0.1", 0)
    server.start()
    yield server
    server.stop()


def call(app, path, body=None):
    """(status, JSON) of a request to the server."""
    data = None if body is None else (body if isinstance(body, bytes)
                                      else json.dumps(body).encode())
    req = urllib.request.Request(app.url + path, data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def names_in_svg(svg: str) -> set:
    return set(re.findall(r'font-size="11"[^>]*>([^<]+)</text>', svg))


# ---- through the API ---------------------------------------------------------------------------

def test_a_seat_sees_only_its_observation(app):
    key = app.new_table("kuhn_poker", 2, {}, ["human", "human"], 5)
    t = app.table(key)
    st = t.st
    for seat in (0, 1):
        view = t.view(seat)
        other = st.zones_view(1 - seat)["hand"][str(1 - seat)]
        mine = st.zones_view(seat)["hand"][str(seat)]
        assert mine and names_in_svg(view["svg"]) >= set(mine)
        text = json.dumps(view)
        for card in other:                      # the other hand's card, nowhere
            assert card not in set(mine) and f">{card}<" not in view["svg"], card
        hidden = set(st.hidden_slots(seat))
        pieces = {int(p) for p in re.findall(r'data-piece="(\d+)"', view["svg"])}
        assert all(st.where[p] not in hidden for p in pieces)
        assert "legal_actions" not in text


def test_actions_undo_and_hint(app):
    key = app.new_table("tic_tac_toe", 2, {}, ["human", "random"], 1)
    t = app.table(key)
    v = t.view(0)
    assert v["status"] == "your decision" and len(v["actions"]) == 9
    assert all(len(a["slots"]) == 1 for a in v["actions"])     # each has its cell
    assert v["rule"]["id"] and "source" in v["rule"]
    before = t.version
    t.act(0, 4, v["version"])
    v = t.view(0)
    assert t.version == before + 2 and len(v["actions"]) == 7   # the bot replied
    assert len(v["history"]) == 2 and v["undo"]
    with pytest.raises(TabulaError, match="moved on"):
        t.act(0, 0, before)                                     # a stale page
    t.undo(0)
    assert len(t.view(0)["actions"]) == 9
    with pytest.raises(TabulaError, match="no decision to take back"):
        t.undo(0)
    hint = t.hint(0, "greedy")
    assert 0 <= hint["index"] < 9 and hint["action"]
    with pytest.raises(TabulaError, match="not player 1's decision"):
        t.act(1, 0)


@pytest.mark.parametrize("path, body, status, said", [
    ("/api/nothing", None, 404, "not found"),
    ("/api/tables/t999", None, 400, "no table 't999'"),
    ("/api/tables", b"{not json", 400, "not JSON"),
    ("/api/tables", {"game": "no_such_game"}, 400, "no_such_game"),
    ("/api/tables", {"game": "tic_tac_toe", "players": 7}, 400, "2 to 2 players"),
    ("/api/tables", {"game": "tic_tac_toe", "seats": ["human", "nobody"]}, 400, "nobody"),
    ("/api/game?name=/etc/passwd", None, 400, "/etc/passwd"),
    ("/api/replays", {"path": "/nonexistent.jsonl"}, 400, None),
    ("/api/replays", {"path": ["x"]}, 400, """a log's path '["x"]': not a name"""),
    ("/static/../serve.py", None, 404, None),
    ("/api/tables", {"game": "tic_tac_toe", "players": "abc"}, 400, "players 'abc': not a"),
    ("/api/tables", {"game": "tic_tac_toe", "players": 2.5}, 400, "players '2.5': not a"),
    ("/api/tables", {"game": "tic_tac_toe", "players": True}, 400, "not a whole number"),
    ("/api/tables", {"game": "tic_tac_toe", "options": [1, 2]}, 400, "options '[1, 2]'"),
    ("/api/tables", {"game": "tic_tac_toe", "options": {"a": [1]}}, 400, "an object of"),
    ("/api/tables", {"game": "tic_tac_toe", "seats": 5}, 400, "seats '5': a list of names"),
    ("/api/tables", {"game": "tic_tac_toe", "seats": ["human", 3]}, 400, "a list of names"),
    ("/api/tables", {"game": "tic_tac_toe", "seats": ["human", " "]}, 400, "without a name"),
    ("/api/tables", {"game": "tic_tac_toe", "seed": "x"}, 400, "seed 'x': not a whole"),
    ("/api/tables", {"game": "tic_tac_toe", "seed": [1]}, 400, "seed '[1]': not a whole"),
    ("/api/tables", {"game": "tic_tac_toe", "seed": -1}, 400, "a negative seed"),
    ("/api/tables", {"game": 7}, 400, "a game '7': not a name"),
    ("/api/tables", {}, 400, "name a game"),
    ("/api/tables", b"[1]", 400, "not a JSON object"),
    ("/api/game", None, 400, "name a game"),
    ("/api/tables/t999/act", {"seat": 0}, 400, "no table"),
    ("/replay?spec=tic_tac_toe&seed=abc", None, 400, "seed 'abc': not a whole number"),
    ("/replay?spec=tic_tac_toe&seed=1&players=x", None, 400, "players 'x': not a whole"),
])
def test_bad_requests_are_clear_errors(app, path, body, status, said):
    code, data = call(app, path, body)
    assert code == status and "error" in data, data
    assert "Traceback" not in data["error"] and "root:" not in data["error"]
    if said:
        assert said in data["error"]


def raw(app, request: bytes) -> tuple:
    """(status, JSON) of a request written byte for byte (its headers as given)."""
    import socket
    host, port = app.httpd.server_address[:2]
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request)
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


@pytest.mark.parametrize("length", ["abc", "-1", "99999999999999999999", "2000000"])
def test_a_bad_content_length_is_a_clear_error(app, length):
    code, data = raw(app, (f"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Length: "
                           f"{length}\r\n\r\n{{}}").encode())
    assert code == 400 and "Content-Length" in data["error"], data


@pytest.mark.parametrize("path, body", [
    ("/api/tables", {"game": "tic_tac_toe", "seats": ["human", "mcts:100000000"]}),
    ("/api/tables", {"game": "tic_tac_toe", "seats": ["human", "mcts:60s"]}),
    ("/replay?spec=tic_tac_toe&seed=1&agents=mcts:100000000,random", None),
    ("/replay?spec=tic_tac_toe&seed=1&agents=mcts:5001", None),
    ("HINT&bot=mcts:100000000", None),
    ("HINT&bot=mcts:30s:end", None),
    ("HINT&bot=mcts:5000:end", None),         # playouts to the end: minutes a decision
    ("/api/tables", {"game": "tic_tac_toe", "seats": ["human", "mcts:100:51"]}),
])
def test_a_bot_s_budget_is_capped(app, path, body):
    """A bot the server runs for a request (a seat, a hint, a replayed game) searches at
    most MAX_ITERATIONS iterations with playouts of MAX_PLAYOUT decisions, or MAX_SECONDS
    seconds a decision: more is refused."""
    from tabula_rules.tools.serve import MAX_ITERATIONS, MAX_PLAYOUT, MAX_SECONDS
    if path.startswith("HINT"):
        key = app.new_table("tic_tac_toe", 2, {}, ["human", "random"], 1)
        path = f"/api/tables/{key}/hint{app.table(key).link(0)}" + path[4:]
    code, data = call(app, path, body)
    assert code == 400 and ("at most" in data["error"]), data
    assert f"{MAX_ITERATIONS} iterations" in data["error"] or \
        f"{MAX_SECONDS:g} seconds" in data["error"] or \
        f"at most {MAX_PLAYOUT} decisions" in data["error"]


def test_a_hint_searches_without_the_table_s_lock(app, monkeypatch):
    """While a bot searches for a hint, the table answers others (its lock is free)."""
    import threading

    from tabula_rules.bots.agents import Agent
    from tabula_rules.tools import serve
    started, go = threading.Event(), threading.Event()

    class Slow(Agent):
        def act(self, view):
            started.set()
            assert go.wait(10)
            return view.legal_actions[0]

    monkeypatch.setattr(serve, "make_agent", lambda name: Slow())
    key = app.new_table("tic_tac_toe", 2, {}, ["human", "human"], 1)
    t = app.table(key)
    got: list = []
    thread = threading.Thread(target=lambda: got.append(t.hint(0, "slow")))
    thread.start()
    try:
        assert started.wait(10)
        assert t.lock.acquire(timeout=2)        # held by the search: this waits and fails
        t.lock.release()
        assert t.view(1)["status"].startswith("waiting")
    finally:
        go.set()
        thread.join(10)
    assert got and got[0]["index"] == 0 and got[0]["version"] == t.version


def test_the_lobby_lists_each_game_once(app):
    """One name a spec, as `tabula list` gives them (medang-prambanan's folder is also
    its id, medang_prambanan: listed once)."""
    from tabula_rules.lang import catalog
    code, data = call(app, "/api/games")
    shipped = catalog.shipped()
    assert code == 200 and len(data["games"]) == len(shipped) == len(set(data["games"]))
    assert sorted(s.name for s in shipped) == data["games"]
    assert "tic_tac_toe" in data["games"]


def test_a_seats_string_is_split_at_commas(app):
    code, made = call(app, "/api/tables", {"game": "tic_tac_toe", "seats": "human, random"})
    assert code == 200 and app.table(made["id"]).seats == ["human", "random"]


def test_a_fault_of_the_server_is_a_json_500(app, monkeypatch):
    """Any exception a request meets is answered (a JSON error of one line, 500), never a
    dropped connection."""
    def broken(*args, **kwargs):
        raise ValueError("a fault\nover two lines")
    monkeypatch.setattr(Server, "games", staticmethod(broken))
    code, data = call(app, "/api/games")
    assert code == 500 and data["error"] == "internal error (ValueError): a fault over two lines"


def test_a_request_to_act_through_http(app):
    code, made = call(app, "/api/tables", {"game": "tic_tac_toe", "seats": ["human", "human"],
                                           "seed": 3})
    assert code == 200 and made["humans"] == [0, 1]
    key = made["id"]
    tokens = {p: made["links"][str(p)].split("token=")[1] for p in (0, 1)}
    hot = made["hot"].split("token=")[1]
    assert made["links"]["1"] == f"/play/{key}?seat=1&token={tokens[1]}"
    code, v = call(app, f"/api/tables/{key}?seat=1&token={tokens[1]}")
    assert code == 200 and v["actions"] == [] and v["status"].startswith("waiting")
    code, v = call(app, f"/api/tables/{key}/act", {"seat": 0, "token": tokens[0], "index": 0,
                                                  "version": 0})
    assert code == 200 and v["history"][0]["action"]
    code, v = call(app, f"/api/tables/{key}?seat=hot&token={hot}")
    assert v["seat"] == 1 and len(v["actions"]) == 8
    code, v = call(app, f"/api/tables/{key}/act", {"seat": 0, "token": tokens[0], "index": 0})
    assert code == 400 and "not player 0's decision" in v["error"]
    code, v = call(app, f"/api/tables/{key}/act", {"seat": 1, "token": hot, "index": 0})
    assert code == 200 and len(v["history"]) == 2          # the hot seat acts for each


def seat_page(app, key, seat) -> str:
    """The address of a seat's page (or "hot"), with its token."""
    return f"{app.url}/play/{key}{app.table(key).link(seat)}"


def test_a_seat_s_page_needs_its_token(app):
    """Each human seat's page is opened by its link (a token no one can guess); without
    it, with another seat's, or for a bot's seat, a 403; a page without a seat watches a
    game that hides nothing, and is refused one that hides something."""
    key = app.new_table("kuhn_poker", 2, {}, ["human", "random"], 5)
    t = app.table(key)
    token = t.tokens[0]
    assert len(token) >= 20 and t.hot_token is None
    for path, body in [("?seat=0", None), (f"?seat=0&token=x{token}", None),
                       (f"?seat=1&token={token}", None), ("/hint?seat=0", None),
                       ("/act", {"seat": 0, "index": 0}), ("/undo", {"seat": 0}),
                       ("/act", {"seat": 0, "token": ["x"], "index": 0}),
                       (f"?seat=hot&token={token}", None), ("", None)]:
        code, v = call(app, f"/api/tables/{key}{path}", body)
        assert code == 403 and v["error"], (path, v)
    code, v = call(app, f"/api/tables/{key}?seat=0&token={token}")
    assert code == 200 and v["seat"] == 0
    code, v = call(app, f"/api/tables/{key}/hint?seat=0&token={token}&bot=random")
    assert code == 200 and v["action"]
    public = app.new_table("tic_tac_toe", 2, {}, ["human", "random"], 5)
    code, v = call(app, f"/api/tables/{public}")             # nothing hidden: watched
    assert code == 200 and v["seat"] is None and v["actions"] == [] and v["svg"]
    code, v = call(app, f"/api/tables/{public}/act", {"index": 0})
    assert code == 400 and "name the seat" in v["error"]


def test_the_command_line_prints_each_seat_s_link(capsys, monkeypatch):
    from tabula_rules.tools.cli import main
    monkeypatch.setattr(Server, "serve_forever", lambda self: self.httpd.server_close())
    assert main(["serve", "tic_tac_toe", "--seats", "human,human", "--port", "0"]) == 0
    out = capsys.readouterr().out
    links = re.findall(r"(player \d|hot seat): (http://\S+)", out)
    assert [w for w, _ in links] == ["player 0", "player 1", "hot seat"]
    assert all(re.search(r"\?seat=(\d|hot)&token=[\w-]{20,}$", link) for _, link in links)
    assert len({link.rsplit("=", 1)[1] for _, link in links}) == 3


def test_a_simultaneous_decision_asks_every_chooser_at_once(app):
    """Goofspiel's bids (issue 25): each human seat is offered its own bids at once, in
    any order; a seat's page is the same before and after another's bid (nobody learns
    who has committed); the bids are revealed when both are in."""
    key = app.new_table("goofspiel", 2, {}, ["human", "human"], 3)
    t = app.table(key)
    before = [t.view(0), t.view(1)]
    for v in before:
        assert v["status"] == "simultaneous: choose" and len(v["actions"]) == 13
        assert v["to_move"] == [0, 1] and v["rule"]["id"]
    assert t.hint(1, "random")["action"].startswith("[P1]")
    t.act(1, 2, before[1]["version"])                   # seat 1 first
    assert t.view(0) == before[0]                       # seat 0 sees nothing of it
    mine = t.view(1)
    assert mine["actions"] == [] and "you chose [P1]Bid: 3" in mine["status"]
    with pytest.raises(TabulaError, match="has chosen already"):
        t.act(1, 0)
    t.undo(1)                                           # a held bid, taken back alone
    assert t.view(0) == before[0] and t.view(1) == before[1]
    t.act(1, 2, before[1]["version"])
    t.act(0, 5, before[0]["version"])
    after = t.view(1)
    assert after["version"] > before[1]["version"]
    bids = [e["action"] for e in after["history"] if e["rule"] == "step:round.bid"]
    assert bids == ["[P0]Bid: 6", "[P1]Bid: 3"]         # both revealed, in seat order
    assert after["status"] == "simultaneous: choose"    # the next bid


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "game.jsonl"
    subprocess.run([sys.executable, "-m", "tabula_rules", "run", str(ROOT / "examples" / "tiny"),
                    "--seed", "2", "--log", str(path)], check=True, capture_output=True)
    return path


def test_a_log_replays_step_by_step(app, log):
    rid = app.new_replay(str(log))
    r = app.replay(rid)
    assert r.stop is None and len(r.states) == r.view(0)["steps"] + 1
    assert r.view(0)["steps"] == len(r.decisions) > 10
    first, second = r.view(0), r.view(1)
    assert "decision" not in first and second["decision"]["action"]
    assert second["decision"]["rule"]
    last = r.view(10 ** 6)                       # past the end: the end
    assert last["step"] == last["steps"] and last["terminal"] and last["scores"]
    assert r.view(3, 0)["svg"] != r.view(3)["svg"]    # a seat's view hides a hand


def test_a_replay_names_the_rule_of_a_decision_made_inside_rules():
    """Medina's placements are chosen inside its `rules:` (rule:place_one, rule:put): the
    replay viewer gives their source and ruling as a table's page does."""
    from tabula_rules.spec import load_spec
    from tabula_rules.tools.serve import Replay
    spec = load_spec("medina")
    st = spec.game(2).new_state(seed=1)
    states, decisions, rng = [], [], random.Random(1)
    while not {"rule:place_one", "rule:put"} <= {d["rule"] for d in decisions}:
        a = rng.choice(st.legal_actions())
        states.append(st.clone())
        decisions.append({"who": st.pending.player, "action": st.action_to_string(a),
                          "turn": st.turn, "rule": st.pending.decision.rule})
        st.apply(a)
    replay = Replay(spec, [*states, st], decisions)
    shown = {d["rule"]: replay.view(k + 1)["decision"] for k, d in enumerate(decisions)}
    place, put = shown["rule:place_one"], shown["rule:put"]
    assert place["rule"] == "place_one" and "any type" in place["source"]
    assert place["ruling"].startswith("R8")
    assert put["rule"] == "put" and "empty space" in put["source"]
    first = next(iter(shown.values()))                  # a step's too: setup's, by chance
    assert first["source"] and first["ruling"]


def test_the_command_line_refuses_bad_input(tmp_path):
    run = subprocess.run([sys.executable, "-m", "tabula_rules", "serve", "no_such_game",
                          "--port", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "no_such_game" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("argv, code, said", [
    (["tic_tac_toe", "--seed", "abc"], 2, "argument --seed: not a whole number"),
    (["tic_tac_toe", "--seed", "-1"], 2, "a negative seed"),
    (["tic_tac_toe", "--seed", "99999999999999999999"], 2, "too large"),
    (["tic_tac_toe", "--seats", "random,random", "--seed", "abc"], 2, "--seed"),
    (["tic_tac_toe", "--port", "99999"], 2, "argument --port: not a port"),
    (["tic_tac_toe", "--port=-5"], 2, "argument --port: not a port"),
    (["tic_tac_toe", "--players", "3", "--seats", "random,random"], 1,
     "2 seats named for 3 players"),
    (["tic_tac_toe", "--seats", "random,nobody"], 1, "nobody"),
    (["tic_tac_toe", "--seats", "human,"], 1, "a seat without a name"),
    (["tic_tac_toe", "--seats", ","], 1, "a seat without a name"),
    (["--replay", "game.jsonl", "--seats", "human,human"], 2, "--seats: for the table of a"),
    (["--option", "x=1"], 2, "--option: for the table of a SPEC, and no SPEC"),
    (["--seed", "3", "--players", "2"], 2, "--players, --seed: for the table"),
])
def test_the_command_line_s_bad_arguments_are_one_line_errors(capsys, monkeypatch, argv, code,
                                                             said):
    """Each bad argument is a one-line error (a usage error, exit 2, for a flag's value
    or a flag that has nothing to go with; exit 1 for a table that cannot be made),
    never a traceback, and never silently ignored (the server is never started)."""
    from tabula_rules.tools.cli import main
    monkeypatch.setattr(Server, "serve_forever", lambda self: pytest.fail("served"))
    try:
        got = main(["serve", *argv, "--port", "0"] if "--port" not in " ".join(argv)
                   else ["serve", *argv])
    except SystemExit as e:
        got = e.code
    err = capsys.readouterr().err
    assert got == code and said in err, err
    assert "Traceback" not in err and len(err.splitlines()[-1]) > 10
    assert [line for line in err.splitlines() if not line.startswith((" ", "usage:"))] == \
        [err.splitlines()[-1]]                    # the usage, then one line: the error


# ---- in a real browser --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page():
    exe = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if exe is None:
        pytest.fail("the web client is checked in headless Chromium, which is not installed: "
                    "on Debian or Ubuntu, `apt-get install -y chromium` (.ci/run does it)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox",
                                                               "--disable-dev-shm-usage"])
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.errors = errors
        yield pg
        browser.close()


def test_a_human_plays_a_whole_game_by_clicks(app, page):
    key = app.new_table("tic_tac_toe", 2, {}, ["human", "random"], 4)
    page.goto(seat_page(app, key, 0))
    _click_to_the_end(page, app, key, "svg .slot.target", 6)     # a free cell each time
    assert "The game is over" in page.inner_text("#status")
    assert app.table(key).st.terminal and not page.errors


def test_a_whole_game_of_tiny_by_clicks(app, page):
    """Tiny (cards, a market, piles, a hidden deck): every decision of seat 0 clicked on
    the board where the action has a place, else in the list, to the end."""
    key = app.new_table("tiny", 2, {}, ["human", "random"], 6)
    page.goto(seat_page(app, key, 0))
    on_board = 0
    for _ in range(200):
        page.wait_for_selector("#status[data-state='deciding'], #status[data-state='over']")
        if page.get_attribute("#status", "data-state") == "over":
            break
        before = app.table(key).version
        targets = page.locator("svg .target")
        if targets.count():
            targets.first.click()
            on_board += 1
            # the move made, or the place's several actions listed (and "show every
            # choice" offered): then the first of them
            page.wait_for_function(
                f"document.body.dataset.version !== '{before}' || "
                "document.querySelector('#actions button:not(.action)') !== null")
            if page.get_attribute("body", "data-version") == str(before):
                page.click("#actions button.action >> nth=0")
        else:
            page.click("#actions button.action >> nth=0")
        _wait_version(page, app, key, before)
    assert app.table(key).st.terminal and "The game is over" in page.inner_text("#status")
    assert on_board and not page.errors


def _click_to_the_end(page, app, key, target: str, most: int) -> None:
    """Click the first of `target` at each decision of the page's seat, at most `most`
    times, until the game is over."""
    for _ in range(most):
        page.wait_for_selector("#status[data-state='deciding'], #status[data-state='over']")
        if page.get_attribute("#status", "data-state") == "over":
            break
        before = app.table(key).version
        page.click(f"{target} >> nth=0")
        _wait_version(page, app, key, before)
    page.wait_for_selector("#status[data-state='over']")


def _wait_version(page, app, key, before):
    """Until the server has moved on from `before` and the page shows it. The version is
    read under the table's lock: a decision and the bots' moves after it hold the lock
    throughout, and the page is drawn from the version they end at, never one between."""
    t = app.table(key)
    for _ in range(400):
        if t.version > before:
            break
        page.wait_for_timeout(25)
    with t.lock:
        version = t.version
    page.wait_for_selector(f"body[data-version='{version}']")


def test_medina_s_board_is_played_by_clicks(app, page):
    key = app.new_table("medina", 2, {}, ["human", "random"], 2)
    page.goto(seat_page(app, key, 0))
    page.wait_for_selector("#status[data-state='deciding']")
    cells = page.locator("svg .slot").count()
    assert cells > 200                                   # the 16 x 12 board and the rest
    t = app.table(key)
    for most in (10, 0):                                 # a piece, then where it goes
        before = t.version
        page.click("svg .piece.target >> nth=0")
        _wait_version(page, app, key, before)
        # the cells it may take: many for the first building, beside it for the second
        assert page.locator("svg .slot.target").count() > most
        before = t.version
        page.click("svg .slot.target >> nth=0")
        _wait_version(page, app, key, before)
    assert len(t.view(0)["history"]) >= 5 and not page.errors


def test_a_hidden_hand_is_absent_from_the_other_seat_s_page(app, page):
    key = app.new_table("kuhn_poker", 2, {}, ["human", "human"], 11)
    st = app.table(key).st
    card0 = st.zones_view(0)["hand"]["0"][0]
    card1 = st.zones_view(1)["hand"]["1"][0]
    page.goto(seat_page(app, key, 1))
    page.wait_for_selector("#status:not(:empty)")
    html = page.content()
    assert f">{card1}<" in html and f">{card0}<" not in html
    assert "1 face down" in html
    page.goto(f"{app.url}/play/{key}?seat=0")                # seat 0's page, no token
    page.wait_for_selector("#error:not(:empty)")
    assert "needs its link" in page.inner_text("#error")
    assert f">{card0}<" not in page.content()


def test_both_seats_bid_at_once_in_the_browser(app, page):
    """Goofspiel in two pages: seat 1 bids first by a click, then seat 0's page offers
    its bids as if nothing happened; when it bids, both are revealed."""
    key = app.new_table("goofspiel", 2, {}, ["human", "human"], 3)
    t = app.table(key)
    page.goto(seat_page(app, key, 1))
    page.wait_for_selector("#status[data-state='deciding']")
    assert page.inner_text("#status") == "simultaneous: choose"
    page.click("#actions button.action >> nth=0")
    page.wait_for_selector("#status:has-text('you chose')")
    page.goto(seat_page(app, key, 0))
    page.wait_for_selector("#status[data-state='deciding']")
    assert page.inner_text("#status") == "simultaneous: choose"
    assert "(not yet revealed)" not in page.inner_text("#history")
    before = t.version
    page.click("#actions button.action >> nth=1")
    _wait_version(page, app, key, before)
    assert "[P1]Bid: 1" in page.inner_text("#history") and not page.errors


def test_the_hot_seat_hands_the_screen_over(app, page):
    """Hot seat with hidden hands (Kuhn poker): before a seat's view is drawn, a panel
    asks to pass the screen to that player, and nothing of the last seat's view stays on
    the page meanwhile."""
    key = app.new_table("kuhn_poker", 2, {}, ["human", "human"], 11)
    st = app.table(key).st
    cards = [st.zones_view(p)["hand"][str(p)][0] for p in (0, 1)]
    page.goto(seat_page(app, key, "hot"))
    for p in (0, 1):
        page.wait_for_selector(f"body[data-handover='{p}']")
        assert f"pass the screen to player {p}" in page.inner_text("#handover").lower()
        html = page.content()
        assert f">{cards[0]}<" not in html and f">{cards[1]}<" not in html
        page.click("#handover-ready")
        page.wait_for_selector("#status[data-state='deciding']")
        html = page.content()
        assert page.inner_text("#who") == f"player {p}"
        assert f">{cards[p]}<" in html and f">{cards[1 - p]}<" not in html
        page.click("#actions button.action >> nth=0")
    page.wait_for_selector("body[data-handover='0']")       # back to player 0, or the end
    assert not page.errors


def test_the_replay_viewer_steps(app, page, log):
    rid = app.new_replay(str(log))
    page.goto(f"{app.url}/replay/{rid}")
    page.wait_for_selector("#where[data-step='0']")
    page.click("#forward")
    page.wait_for_selector("#where[data-step='1']")
    page.click("#forward")
    page.wait_for_selector("#where[data-step='2']")
    page.click("#back")
    page.wait_for_selector("#where[data-step='1']")
    page.click("#history li:nth-child(5) a")
    page.wait_for_selector("#where[data-step='5']")
    assert page.inner_text("#decision")
    page.click("#last")
    page.wait_for_function("document.querySelector('#where').dataset.step === "
                           "document.querySelector('#where').textContent.split(' of ')[1]")
    assert "scores" in page.inner_text("#decision") and not page.errors


def test_the_lobby_starts_a_table(app, page):
    page.goto(f"{app.url}/")
    page.wait_for_selector("#game option[value='tic_tac_toe']", state="attached")
    page.select_option("#game", "tic_tac_toe")
    page.wait_for_selector("body[data-game='tic_tac_toe']")   # its options and seats drawn
    page.click("#start")
    page.wait_for_selector("#seat-link-0")
    page.click("#seat-link-0")
    page.wait_for_selector("#status[data-state='deciding']")
    assert page.locator("svg .slot.target").count() == 9 and not page.errors


def test_the_lobby_shows_a_game_of_bots_step_by_step(app, page):
    page.goto(f"{app.url}/")
    page.wait_for_selector("#game option[value='tic_tac_toe']", state="attached")
    page.select_option("#game", "tic_tac_toe")
    page.wait_for_selector("body[data-game='tic_tac_toe']")   # its options and seats drawn
    for seat in page.locator("select.seat").all():
        seat.select_option("random")
    page.fill("#seed", "7")
    page.click("#start")
    page.wait_for_selector("#where[data-step='0']")
    page.click("#last")
    page.wait_for_function("document.querySelector('#where').dataset.step !== '0'")
    assert "scores" in page.inner_text("#decision") and not page.errors


def test_a_report_s_example_games_open_in_the_viewer(app, tmp_path):
    """The simulate report links its shortest, a median and its longest game; the link
    (to a running serve) plays each again: the same scores as the record; the command
    beside it is `tabula run` with the record's seed and bots."""
    from tabula_rules.spec import load_spec
    from tabula_rules.tools.report import example_games, render_report, replay_link
    from tabula_rules.tools.simulate import run_batch
    summary = run_batch(load_spec(str(ROOT / "examples" / "tiny")), 6, agents=["greedy",
                                                                             "random"],
                        rotate=True, seed=3, workers=1)
    page = render_report(summary)
    picked = example_games(summary)
    assert 2 <= len(picked) <= 3 and "Example games" in page
    for _, rec in picked:
        link = replay_link(summary.spec_path, rec)
        assert link.replace("&", "&amp;") in page
        path = link.split("8765", 1)[1]
        req = urllib.request.Request(app.url + path)
        with urllib.request.urlopen(req, timeout=60) as r:       # redirected to the page
            assert r.status == 200 and "/replay/t" in r.url
        r = app.replay(r.url.rsplit("/", 1)[1])
        end = r.view(10 ** 6)
        assert end["terminal"] and end["scores"] == rec["scores"]
        assert end["steps"] == rec["decisions"] + rec["chance"]
        assert f"--seed {rec['seed']} --agents {','.join(rec['agents'])}" in page
    code, data = call(app, "/replay?spec=tic_tac_toe&seed=1&agents=random,nobody")
    assert code == 400 and "nobody" in data["error"]


@pytest.mark.parametrize("path", [*SPEC_FILES, *(e / f"{e.name}.yaml" for e in EXAMPLES
                                                 if (e / f"{e.name}.yaml").exists())],
                         ids=lambda p: p.stem)
def test_every_shipped_game_is_drawn_for_every_seat(path):
    """The SVG of every shipped game, for every seat, at the start and after a few random
    moves: well-formed XML, every zone labelled, no piece number where the seat cannot
    see the piece."""
    from xml.dom import minidom

    from tabula_rules.spec import load_game
    from tabula_rules.tools.boardsvg import draw
    game = load_game(str(path))
    st, rng = game.new_state(seed=1), random.Random(path.stem)
    for _ in range(3):
        for seat in range(game.players):
            svg = draw(st, seat)
            minidom.parseString(svg)
            assert all(f">{z}" in svg for z in game.prog.zones)
            hidden = set(st.hidden_slots(seat))
            shown = {int(p) for p in re.findall(r'data-piece="(\d+)"', svg)}
            assert not {p for p in shown if st.where[p] in hidden}
        for _ in range(4):
            if not st.is_terminal():
                st.apply(rng.choice(st.legal_actions()))


def test_a_piece_s_full_name_is_its_tooltip():
    """A name cut short on the piece ("panangk…") is whole in the piece's <title>, so two
    pieces that read alike are told apart."""
    from tabula_rules.spec import load_game
    from tabula_rules.tools.boardsvg import draw
    st = load_game("medang-prambanan").new_state(seed=1)
    svg = draw(st, None)
    pieces = re.findall(r'<g class="piece"[^>]*><title>([^<]+)</title>.*?'
                        r'font-size="11"[^>]*>([^<]+)</text></g>', svg)
    assert len(pieces) == svg.count('<g class="piece"')
    cut = [(full, shown) for full, shown in pieces if shown != full]
    assert cut and all(shown.endswith("\u2026") and full.startswith(shown[:-1])
                       for full, shown in cut)


HEXES = """\
game: {id: hexes, name: Hexes, source: h.txt, players: {min: 2, max: 2}}
components:
  disc: {name: disc, count: 4, zone: supply}
zones:
  supply: {kind: set, visibility: public}
  board: {kind: hex, width: 4, height: 3, visibility: public}
play:
  - id: turns
    turns: {first: 0, until: 'size(supply) == 0'}
    do:
      - id: place
        choose: c in cells(board) where size(c) == 0
        label: 'disc at {x(c)},{y(c)}'
        do:
          - move first(t for t in supply) to c
scoring:
  points:
    none: {value: '0'}
"""


def test_a_hex_board_is_drawn_as_hexagons_and_played_by_clicks(app, page, tmp_path):
    """Hexagonal cells in offset rows (odd rows half a cell to the right), each a
    clickable place: a game of Hexes played to its end by clicking cells."""
    path = tmp_path / "hexes.yaml"
    path.write_text(HEXES)
    key = app.new_table(str(path), 2, {}, ["human", "human"], 1)
    svg = app.table(key).view(0)["svg"]
    cells = re.findall(r'<polygon class="slot" data-slot="(\d+)" points="([^"]+)"', svg)
    assert len(cells) == 12
    xs = [float(pts.split()[0].split(",")[0]) for _, pts in cells]
    assert xs[4] > xs[0] and xs[8] == xs[0]             # row 1 shifted, row 2 not
    page.goto(seat_page(app, key, "hot"))
    _click_to_the_end(page, app, key, "svg polygon.slot.target", 4)
    assert len(app.table(key).view(None)["svg"].split('fill="#000">disc<')) == 5
    assert not page.errors


def test_the_viewer_checks_a_log_as_replay_does(app, log, tmp_path):
    """A proven log whose decision was edited (its state digest) is refused by the viewer
    as by `tabula replay`: the line where the game diverges is named."""
    lines = log.read_text().splitlines()
    record = json.loads(lines[3])
    record["state"] = "0" * len(record["state"])
    lines[3] = json.dumps(record)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    with pytest.raises(TabulaError, match="diverges"):
        app.new_replay(str(edited))
    run = subprocess.run([sys.executable, "-m", "tabula_rules", "replay", str(edited)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "diverges" in run.stderr



def test_a_game_whose_only_secret_is_a_simultaneous_choice_hands_over_and_undoes_once(
        app, tmp_path):
    """Odds and evens, whose only secret is the choice each seat makes at once: the
    table hides something (the hot seat hands the screen over between the choices, a
    watcher sees nothing), and taking back the revealed choices is one undo, for either
    seat, not one per chooser (the other's stale undo went back to nothing)."""
    path = tmp_path / "morra.yaml"
    path.write_text(MORRA.replace("CHOOSERS", "players"))
    key = app.new_table(str(path), 2, {}, ["human", "human"], 1)
    t = app.table(key)
    assert t.hides and t.hot()["hides"]
    t.act(1, 0)
    t.act(0, 1)                                      # both in: revealed
    assert t.view(0)["undo"] and t.view(1)["undo"]
    t.undo(1)                                        # back before both choices
    assert t.st.history == [] and not t.view(0)["undo"] and not t.view(1)["undo"]
    with pytest.raises(TabulaError, match="no decision to take back"):
        t.undo(0)


def test_a_replay_seen_as_a_seat_hides_what_the_seat_did_not_see(app, tmp_path):
    """The replay viewer as seen by player N: the board as N sees it, and in the list of
    decisions (and the step's own) the text of an action N did not see is hidden (Kuhn
    poker's other deal); the referee's view (no seat) shows every action."""
    path = tmp_path / "kuhn.jsonl"
    subprocess.run([sys.executable, "-m", "tabula_rules", "run",
                    str(ROOT / "examples" / "kuhn_poker"), "--seed", "5", "--log", str(path)],
                   check=True, capture_output=True)
    r = app.replay(app.new_replay(str(path)))
    referee = [d["action"] for d in r.view(2)["decisions"]]
    for seat in (0, 1):
        seen = [d["action"] for d in r.view(2, seat)["decisions"]]
        assert seen[seat] == referee[seat] and seen[1 - seat] == "(out of sight)", seen
        assert seen[2:] == referee[2:]                    # the bets, seen by both
    assert r.view(2, 0)["decision"]["action"] == "(out of sight)"     # player 1's deal
    assert r.view(2)["decision"]["action"] == referee[1]
