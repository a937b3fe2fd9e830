"""The fuzz campaign's second set of input kinds (tests/fuzz.py, docs/fuzzing.md): what a
hostile-input campaign found that line and token edits did not.

- semantic mutations of the shipped specs, each still a spec by the schema: numbers,
  counts and board sizes at 0, 1 and huge, identifiers swapped, player counts at the
  edges, constant expressions in counts, capacities, `for_each` and attributes that
  index past a list or divide by zero;
- endless games: a spec edited so that its game cannot end (`until: false`, `end game`
  removed, an effect emptied), run in a process of its own under RLIMIT_AS;
- adapter calls with hostile arguments and tampered serializations (OpenSpiel: load_game
  parameters, states played into corners, deserialize_state of edited JSON or of a
  pickle that would create a file; PettingZoo: reset, observe, step and the rest with
  bad agents, actions and seeds, before reset and after the end), each script run in a
  forked process that reports every call's outcome;
- two writers of one `tabula simulate --out` file at once.

`fork_call` runs a function in a forked process (its own address-space limit, CPU limit,
stdout and stderr to files) and reports how it ended: the campaign's alarm stops the
waiting parent, which then kills the child.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import math
import os
import pickle
import re
import resource
import signal
import sys
import traceback
from functools import partial
from pathlib import Path

import yaml

import tabula_rules  # where the package's modules are (their frames: judged)

ROOT = Path(__file__).resolve().parent.parent
OURS = str(Path(tabula_rules.__file__).parent) + os.sep
FRAMEWORKS = tuple(os.sep + p + os.sep for p in ("pettingzoo", "gymnasium", "pyspiel",
                                                  "open_spiel"))
BARE = (KeyError, IndexError, AttributeError, TypeError)

# the specs the new kinds edit most (the rest of the shipped specs now and then)
TARGETS = [ROOT / "examples" / "tiny" / "tiny.yaml",
           ROOT / "examples" / "kuhn_poker" / "kuhn_poker.yaml",
           ROOT / "examples" / "tic_tac_toe" / "tic_tac_toe.yaml",
           ROOT / "examples" / "goofspiel" / "goofspiel.yaml",
           ROOT / "specs" / "medang" / "medang.yaml",
           ROOT / "specs" / "medina" / "medina.yaml"]
OTHERS = sorted(p for p in set((ROOT / "examples").glob("*/*.yaml")) |
                set((ROOT / "specs").glob("*/*.yaml"))
                if p not in TARGETS and not p.read_text(encoding="utf-8").startswith("extends:")
                and "\nextends:" not in p.read_text(encoding="utf-8"))

_DOCS: dict = {}


def doc_of(path: Path) -> dict:
    """The spec as plain data (a fresh copy each time)."""
    if path not in _DOCS:
        _DOCS[path] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return copy.deepcopy(_DOCS[path])


def dump(doc) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)


# ---- how an exception ended ---------------------------------------------------------------------

def judged(exc: BaseException) -> str | None:
    """None when `exc` is a clear error: a TabulaError; the framework's own exception
    with a message (raised in pettingzoo, gymnasium or pyspiel, or by pyspiel's C++);
    or one our code raises on purpose (`raise ValueError("...")`, as OpenSpiel's Python
    games do), with a message and not a KeyError, IndexError, AttributeError or
    TypeError. Else what is wrong, with the traceback."""
    from tabula_rules.errors import TabulaError
    if isinstance(exc, TabulaError):
        return None
    frames = traceback.extract_tb(exc.__traceback__)
    inner = frames[-1] if frames else None
    ours = any(f.filename.startswith(OURS) for f in frames)
    said = str(exc).strip()
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-2500:]
    if inner is not None and inner.filename.startswith(OURS):
        if (inner.line or "").lstrip().startswith("raise ") and said and \
                not isinstance(exc, BARE):
            return None
        return f"{type(exc).__name__} in the adapter\n{text}"
    if inner is not None and any(m in inner.filename for m in FRAMEWORKS):
        return None if said else f"{type(exc).__name__} without a message\n{text}"
    if not ours:                  # raised by pyspiel's C++ (no Python frame of its own)
        return None if said else f"{type(exc).__name__} without a message\n{text}"
    return f"{type(exc).__name__} from inside the adapter's calls\n{text}"


# ---- a forked process ---------------------------------------------------------------------------

def fork_call(fn, folder: Path, name: str, limit_mb: int = 1024, cpu_s: int = 120,
              wait: bool = True):
    """Run fn() in a forked process: its RLIMIT_AS `limit_mb`, RLIMIT_CPU `cpu_s`, stdout
    and stderr to files of `folder`; fn's result (JSON) written to a file. With wait, a
    dict: code (exit code, or None), signal (or None), peak_kb (its peak resident memory),
    out, err, result; else the pid (fork_wait(pid, ...) gives the dict)."""
    paths = [folder / f"{name}.{k}" for k in ("out", "err", "json")]
    for p in paths:
        if p.exists():
            p.unlink()
    pid = os.fork()
    if pid == 0:                                        # the child
        code = 70
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            for fd, p in ((1, paths[0]), (2, paths[1])):
                f = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(f, fd)
                os.close(f)
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                          errors="strict", line_buffering=True)
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                          errors="backslashreplace", line_buffering=True)
            _, hard = resource.getrlimit(resource.RLIMIT_AS)
            limit = limit_mb << 20
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
            _, hard = resource.getrlimit(resource.RLIMIT_CPU)
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, hard))
            result = fn()
            with open(paths[2], "w", encoding="utf-8") as fh:
                json.dump(result, fh)
            code = result.get("code", 0) if isinstance(result, dict) else 0
        except BaseException:  # noqa: BLE001  (reported to the parent)
            try:
                sys.stderr.write("fuzz child: " + traceback.format_exc())
            except BaseException:  # noqa: BLE001
                pass
            code = 70
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) and 0 <= code < 256 else 70)
    return fork_wait(pid, paths) if wait else (pid, paths)


def fork_wait(pid: int, paths: list) -> dict:
    """Wait for a forked child (killing it when the wait is interrupted: the alarm's
    Hang); how it ended."""
    try:
        _, status, ru = os.wait4(pid, 0)
    except BaseException:
        kill(pid)
        raise
    out = {"code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
           "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
           "peak_kb": ru.ru_maxrss}
    for key, p in zip(("out", "err"), paths):
        out[key] = p.read_text(encoding="utf-8", errors="replace") if p.exists() else ""
    try:
        out["result"] = json.loads(paths[2].read_text(encoding="utf-8"))
    except (OSError, ValueError):
        out["result"] = None
    return out


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def rss_kb() -> int:
    """The process's resident memory now (VmRSS), in kB."""
    try:
        for line in open("/proc/self/status", encoding="ascii"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ---- semantic mutations -------------------------------------------------------------------------

HUGE = [10 ** 5, 10 ** 6, 10 ** 9, 10 ** 18, 2 ** 63, 10 ** 30]
PROSE = {"source", "description", "ruling", "assumed", "name", "label", "id", "done",
         "optional"}
# constant expressions that index past a list or divide by zero ({L}: a data list, {n}:
# its length; {M}: a data table)
CONSTANTS = ["1 // 0", "7 % 0", "3 / 0", "1 / 2", "size(players) // 0", "[][0]", "[1, 2][5]",
             "range(1, 0)[0]", "max(x for x in [])", "first([])", "players[99]",
             "option.nope", "-(1 // 0)", "10000000 * 10000000 * 10000000", "-1", "0",
             "range(1, 100000)", "[1, 2, 3][-4]", "none", "current", "size(players) - 99",
             "'x'", "true", "sum(x for x in range(1, 99999))", "{L}[{n}]", "{L}[{n} + 5]",
             "{L}[-{n} - 1]", "{M}['nope']", "{M}[999]", "{L}[0] // 0",
             "{L}[size({L})]", "size({L}) // (size({L}) - {n})"]


def _leaves(doc, path=(), out=None, keys=False) -> list:
    """(path, value) of every leaf of doc (not under prose keys)."""
    out = [] if out is None else out
    if isinstance(doc, dict):
        for k, v in doc.items():
            if str(k) in PROSE:
                continue
            _leaves(v, path + (k,), out, keys)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            _leaves(v, path + (i,), out, keys)
    else:
        out.append((path, doc))
    return out


def _set(doc, path, value) -> None:
    for k in path[:-1]:
        doc = doc[k]
    doc[path[-1]] = value


def _names(doc) -> dict:
    """{kind: [declared names]} of a spec."""
    out: dict = {}
    for section in ("zones", "variables", "data", "functions", "rules", "enums", "options"):
        if isinstance(doc.get(section), dict):
            out[section] = [str(k) for k in doc[section]]
    values = [str(v) for vs in (doc.get("enums") or {}).values() if isinstance(vs, list)
              for v in vs]
    if values:
        out["enum values"] = values
    attrs = []
    for c in (doc.get("components") or {}).values():
        if isinstance(c, dict):
            attrs += [str(a) for a in (c.get("attributes") or {})]
            attrs += [str(a) for a in (c.get("for_each") or {})]
    if attrs:
        out["attributes"] = sorted(set(attrs))
    return {k: v for k, v in out.items() if v}


def _rule_texts(doc) -> list:
    """(path, text) of the strings of a spec that are rule text (not prose)."""
    return [(p, v) for p, v in _leaves(doc) if isinstance(v, str) and p and
            p[0] in ("components", "zones", "variables", "functions", "setup", "play",
                     "rules", "scoring", "invariants")]


def _constant(doc, rng) -> str:
    lists = [(str(k), len(v["value"])) for k, v in (doc.get("data") or {}).items()
             if isinstance(v, dict) and isinstance(v.get("value"), list)]
    maps = [str(k) for k, v in (doc.get("data") or {}).items()
            if isinstance(v, dict) and isinstance(v.get("value"), dict)]
    text = rng.choice(CONSTANTS)
    if "{L}" in text:
        if not lists:
            return "[1, 2][5]"
        name, n = rng.choice(lists)
        text = text.replace("{L}", name).replace("{n}", str(n))
    if "{M}" in text:
        if not maps:
            return "1 // 0"
        text = text.replace("{M}", rng.choice(maps))
    return text


def semantic(doc: dict, rng) -> list:
    """1 to 3 schema-valid mutations of doc (in place); what was done."""
    done = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        kind = rng.choice(["number", "number", "size", "count", "swap", "swap", "players",
                           "constant", "constant", "constant", "loop", "option"])
        done.append(kind + ": " + _semantic_one(doc, kind, rng))
    return done


def _semantic_one(doc, kind, rng) -> str:
    comps = [c for c in (doc.get("components") or {}).values() if isinstance(c, dict)]
    zones = [z for z in (doc.get("zones") or {}).values() if isinstance(z, dict)]
    if kind == "number":
        ints = [(p, v) for p, v in _leaves(doc) if isinstance(v, int)
                and not isinstance(v, bool)]
        if ints:
            p, v = rng.choice(ints)
            new = rng.choice([0, 1, -1, 2, v + 1, v - 1, v * 1000] + HUGE)
            _set(doc, p, new)
            return f"{'.'.join(map(str, p))} = {new}"
    if kind == "size" and zones:
        z = rng.choice(zones)
        key = rng.choice(["width", "height", "capacity", "capacities", "width"])
        value = rng.choice([0, 1, -1] + HUGE[:4])
        if key == "capacities":
            value = rng.choice([[], [0], [value], [value] * 3, "[1, 2][5]"])
        z[key] = value
        return f"zone {key} = {value!r}"
    if kind == "count" and comps:
        c = rng.choice(comps)
        c["count"] = rng.choice([0, 1, -1, 10 ** 5, 10 ** 6, 10 ** 9, _constant(doc, rng)])
        return f"count = {c['count']!r}"
    if kind == "swap":
        names = _names(doc)
        if names:
            k1 = rng.choice(sorted(names))
            k2 = k1 if rng.random() < 0.7 else rng.choice(sorted(names))
            a, b = rng.choice(names[k1]), rng.choice(names[k2])
            if a != b:
                texts = _rule_texts(doc)
                if rng.random() < 0.3 and texts:
                    texts = [rng.choice(texts)]           # in one place only
                pa, pb = re.compile(rf"\b{re.escape(a)}\b"), re.compile(rf"\b{re.escape(b)}\b")
                for p, t in texts:
                    t2 = pb.sub("\0", pa.sub("\1", t)).replace("\1", b).replace("\0", a)
                    _set(doc, p, t2)
                return f"{a} <-> {b}"
    if kind == "players":
        g = doc.setdefault("game", {})
        pl = g.get("players") if isinstance(g.get("players"), dict) else {}
        lo, hi = (x if type(x) is int else 2 for x in (pl.get("min", 2), pl.get("max", 2)))
        new = dict(pl)                    # (an earlier mutation may have made them text)
        new[rng.choice(["min", "max"])] = rng.choice([0, 1, -1, 2, lo - 1, hi + 1, 16, 17,
                                                      10 ** 6, 2 ** 63])
        g["players"] = new
        return f"players {new}"
    if kind == "constant":
        where = []
        for c in comps:
            where.append((c, "count"))
            for a in (c.get("attributes") or {}):
                where.append((c["attributes"], a))
            for a in (c.get("for_each") or {}):
                where.append((c["for_each"], a))
        for z in zones:
            for key in ("capacity", "capacities", "width", "height"):
                if key in z:
                    where.append((z, key))
        if where:
            holder, key = rng.choice(where)
            holder[key] = _constant(doc, rng)
            return f"{key}: {holder[key]!r}"
    if kind == "loop":
        steps = [(p, v) for p, v in _leaves(doc)
                 if p and str(p[-1]) in ("repeat", "max", "up_to", "max_steps")]
        if steps:
            p, v = rng.choice(steps)
            new = rng.choice([0, -1, 1, 10 ** 8, 10 ** 8 + 1, 10 ** 9, "1 // 0"])
            _set(doc, p, new)
            return f"{'.'.join(map(str, p))} = {new!r}"
    if kind == "option" and isinstance(doc.get("options"), dict) and doc["options"]:
        o = doc["options"][rng.choice(sorted(doc["options"]))]
        if isinstance(o, dict):
            edit = rng.choice(["default", "choices", "players"])
            if edit == "default":
                o["default"] = rng.choice([10 ** 9, -1, "nope", None, True, 0])
            elif edit == "choices":
                o["choices"] = rng.choice([[], [o.get("default")] * 2, [10 ** 9, -1],
                                           list(range(200))])
            else:
                o["players"] = {str(o.get("default")): {"min": rng.choice([0, 1, 99]),
                                                        "max": rng.choice([0, 1, 99])}}
            return f"option {edit}"
    return "nothing"


def players_asked(doc, rng):
    """A player count to ask for: none (the smallest), the edges, 0, 1, huge."""
    pl = (doc.get("game") or {}).get("players") or {}
    lo = pl.get("min", 2) if isinstance(pl, dict) else 2
    hi = pl.get("max", 2) if isinstance(pl, dict) else 2
    lo, hi = (x if type(x) is int else 2 for x in (lo, hi))    # a mutation may make text
    return rng.choice([None, None, None, lo, hi, 0, 1, -1, hi + 1, 10 ** 6, 2 ** 63])


# ---- endless games ------------------------------------------------------------------------------

def endless(doc: dict, rng, steps: list, effects: bool = True) -> list:
    """Edits that keep a game from ending (in place), its max_steps set to one of
    `steps` and now and then its max_decisions to 1 or 20,000: every `until:` false,
    every `end game` removed, a loop's `while:` true, an effect emptied (a step list
    cleared or a statement that moves pieces removed); what was done. Without `effects`,
    no effect is emptied."""
    done = []
    lists = []                   # every step list of the spec

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in ("do", "then", "else") and isinstance(v, list):
                    lists.append(v)
                if k == "until":
                    x[k] = "false"
                    done.append("until: false")
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for key in ("setup", "play", "rules"):
        walk(doc.get(key))
    for lst in lists:
        kept = [s for s in lst if not (isinstance(s, str) and s.strip() == "end game")]
        if len(kept) != len(lst):
            lst[:] = kept
            done.append("end game removed")
    for _ in range(rng.choice([0, 1, 1, 2]) if effects else 0):
        if not lists:
            break
        lst = rng.choice(lists)
        moves = [i for i, s in enumerate(lst) if isinstance(s, str) and
                 re.match(r"\s*(move|refill|swap)\b", s)]
        if moves and rng.random() < 0.7:
            i = rng.choice(moves)
            done.append(f"effect removed: {lst[i]!r}")
            del lst[i]
        elif lst:
            done.append(f"a step list of {len(lst)} emptied")
            lst.clear()
    g = doc.setdefault("game", {})
    g["max_steps"] = rng.choice(steps)
    done.append(f"max_steps {g['max_steps']}")
    if rng.random() < 0.25:     # else the default decision bound (100,000)
        g["max_decisions"] = rng.choice([1, 20_000])
        done.append(f"max_decisions {g['max_decisions']}")
    return done


# ---- adapters -----------------------------------------------------------------------------------

ADAPTER_SPECS = [ROOT / "examples" / n for n in ("tiny", "kuhn_poker", "tic_tac_toe",
                                                  "goofspiel", "leduc_poker", "pig")] + \
    [ROOT / "specs" / "medang"]
NAN, INF = float("nan"), float("inf")


class Script:
    """A script of adapter calls (run in a forked child): each call's outcome recorded
    as (call, 'ok' | 'error' | 'bad', detail); impossible states accepted and files the
    input created ('code run') collected apart."""

    def __init__(self, rng, folder: Path, secrets: list):
        self.rng = rng
        self.folder = folder
        self.secrets = secrets
        self.events: list = []
        self.impossible: list = []
        self.code_run: list = []
        self.said: list = []            # what errors of Tabula's code said
        self.framework: list = []       # what the frameworks' own errors said

    def call(self, what: str, fn):
        from tabula_rules.errors import TabulaError
        try:
            out = fn()
        except MemoryError:
            self.events.append((what, "bad", "MemoryError"))
            return None
        except TabulaError as e:
            self.said.append(str(e))
            self.events.append((what, "error", str(e)[:300]))
            return None
        except Exception as e:  # noqa: BLE001  (judged)
            wrong = judged(e)
            frames = traceback.extract_tb(e.__traceback__)
            if any(f.filename.startswith(OURS) for f in frames):
                self.said.append(str(e))
            else:               # the framework's own words (pybind's '<class 'int'>')
                self.framework.append(str(e))
            self.events.append((what, "bad" if wrong else "error",
                                wrong or f"{type(e).__name__}: {str(e)[:300]}"))
            return None
        self.events.append((what, "ok", ""))
        return out

    def result(self) -> dict:
        return {"events": self.events, "impossible": self.impossible,
                "code_run": self.code_run, "said": "\n".join(self.said)[-20000:],
                "framework": "\n".join(self.framework)[-20000:]}

    # -- OpenSpiel
    def params(self) -> dict:
        rng = self.rng
        spec = rng.choice(ADAPTER_SPECS)
        params: dict = {"spec": str(spec)}
        hostile = {
            "players": [0, 1, -1, 2, 3, 5, 99, 2 ** 31 - 1, 2 ** 40],
            "seed": [0, 1, -1, 2 ** 31, 2 ** 53 - 1, 2 ** 53, 2 ** 63 - 1],
            "int_span": [0, -1, 1, 2, 2 ** 31 - 1],
            "max_utility": [NAN, INF, -INF, 0.0, 1e308, -1.0],
            "min_utility": [NAN, -INF, 0.0, 1e308],
            "options": ["deck=short;deck=full", "deck=short,deck=short", "x=y", "deck", "=",
                        ";;;", "deck=" + "s" * 300, "deck:short", "num_cards=0",
                        "num_cards=99999999999999999999", "temple=nowhere", "num_cards=5",
                        "imp_info=maybe", "a=1;b=2;c=3", "\x00=\x00"],
            "returns": ["nope", "win_loss", "scores", ""],
            "utility": ["zero_sum", "nope", "general_sum"],
            "spec": self.secrets + ["/dev/zero", str(self.folder), "tabula:tiny",
                                    "no/such/spec", "", "examples/tiny"],
        }
        for _ in range(rng.randint(1, 3)):
            key = rng.choice(sorted(hostile) + ["unknown"])
            if key == "unknown":
                params[rng.choice(["nope", "spec ", "Players", "seed2"])] = rng.choice(
                    [1, "x", 1.5])
            else:
                params[key] = rng.choice(hostile[key])
        return params

    def openspiel_load(self):
        import pyspiel

        import tabula_rules.openspiel  # noqa: F401  (registers the game)
        rng = self.rng
        params = self.params()
        if rng.random() < 0.3:        # a game string, keys repeated now and then
            items = [f"{k}={v}" for k, v in params.items() if isinstance(v, (int, str))
                     and "," not in str(v) and "(" not in str(v) and ")" not in str(v)]
            if rng.random() < 0.5 and items:
                items.append(rng.choice(items).split("=")[0] + "=" +
                             rng.choice(["2", "3", "x", "99999999999999999999"]))
            text = "tabula(" + ",".join(items) + ")"
            game = self.call(f"load_game({text!r})", lambda: pyspiel.load_game(text))
        else:
            game = self.call(f"load_game('tabula', {params!r})",
                             lambda: pyspiel.load_game("tabula", params))
        if game is not None:
            self.play(game, rng.randint(0, 40))

    def honest_game(self):
        import pyspiel

        import tabula_rules.openspiel  # noqa: F401
        rng = self.rng
        spec = rng.choice(ADAPTER_SPECS)
        params = {"spec": str(spec), "seed": rng.choice([0, 1, 7])}
        return self.call(f"load_game('tabula', {params!r})",
                         lambda: pyspiel.load_game("tabula", params))

    def play(self, game, steps: int):
        """Random legal actions (chance by its outcomes) for up to `steps` steps."""
        rng = self.rng
        st = self.call("new_initial_state()", game.new_initial_state)
        if st is None:
            return None
        for _ in range(steps):
            if st.is_terminal():
                break
            if st.is_chance_node():
                outcomes = self.call("chance_outcomes()", st.chance_outcomes)
                if not outcomes:
                    return st
                a = rng.choice(outcomes)[0]
                ok = self.call(f"apply_action({a}) (chance)", partial(st.apply_action, a))
            elif st.is_simultaneous_node():
                joint = [rng.choice(st.legal_actions(p)) for p in range(game.num_players())]
                ok = self.call(f"apply_actions({joint})", partial(st.apply_actions, joint))
            else:
                legal = st.legal_actions()
                a = rng.choice(legal)
                ok = self.call(f"apply_action({a})", partial(st.apply_action, a))
            if ok is None and self.events[-1][1] != "ok":
                break
        return st

    def openspiel_state(self):
        """A state played to some point (or the end), then hostile calls on it."""
        rng = self.rng
        game = self.honest_game()
        if game is None:
            return
        st = self.play(game, rng.choice([0, 1, 3, 10, 1000]))
        if st is None:
            return
        n = game.num_players()
        calls = [
            ("apply_action(-1)", lambda: st.apply_action(-1)),
            ("apply_action(10**9)", lambda: st.apply_action(10 ** 9)),
            ("apply_action(2**62)", lambda: st.apply_action(2 ** 62)),
            ("apply_action(an illegal id)", lambda: st.apply_action(
                max([0] + list(st.legal_actions())) + 1)),
            ("legal_actions(99)", lambda: st.legal_actions(99)),
            ("legal_actions(-5)", lambda: st.legal_actions(-5)),
            ("action_to_string(99, 0)", lambda: st.action_to_string(99, 0)),
            ("action_to_string(-1, 10**12)", lambda: st.action_to_string(-1, 10 ** 12)),
            ("action_to_string(0, -7)", lambda: st.action_to_string(0, -7)),
            ("chance_outcomes()", st.chance_outcomes),
            ("observation_string(99)", lambda: st.observation_string(99)),
            ("observation_string(-3)", lambda: st.observation_string(-3)),
            ("information_state_string(n)", lambda: st.information_state_string(n)),
            ("observation_tensor(99)", lambda: st.observation_tensor(99)),
            ("returns()", st.returns),
            ("rewards()", st.rewards),
            ("current_player()", st.current_player),
            ("str(state)", lambda: str(st)),
            ("clone()", st.clone),
            ("serialize()", st.serialize),
            ("resample_from_infostate(99, ...)",
             lambda: st.resample_from_infostate(99, lambda: 0.5)),
            ("resample_from_infostate(0, nan)",
             lambda: st.resample_from_infostate(0, lambda: NAN)),
            ("resample_from_infostate(0, 2.0)",
             lambda: st.resample_from_infostate(0, lambda: 2.0)),
            ("apply_actions([0])", lambda: st.apply_actions([0])),
            ("apply_actions([0] * (n + 1))", lambda: st.apply_actions([0] * (n + 1))),
            ("child(-1)", lambda: st.child(-1)),
            ("new_initial_state('x')", lambda: game.new_initial_state("x")),
            ("make_py_observer(params)", lambda: game.make_py_observer(None, {"x": 1})),
            ("deserialize_state('')", lambda: game.deserialize_state("")),
            ("deserialize_state(None)", lambda: game.deserialize_state(None)),
        ]
        for what, fn in rng.sample(calls, rng.randint(3, 10)):
            self.call(what, fn)

    def openspiel_deserialize(self):
        """A state's serialization tampered with (its JSON edited, a pickle put in,
        the game's parameters edited, a character changed, a cut) or not, read back:
        refused with a clear error, or loaded as a state the game reaches (its own
        history replayed from the game's seed gives it back)."""
        import pyspiel
        rng = self.rng
        game = self.honest_game()
        if game is None:
            return
        st = self.play(game, rng.choice([0, 1, 2, 5, 12, 40, 1000]))
        if st is None:
            return
        text = self.call("serialize_game_and_state", lambda: pyspiel.serialize_game_and_state(
            game, st))
        if text is None:
            return
        kind = rng.choice(["honest", "json", "json", "json", "json", "pickle", "pickle",
                           "game", "text"])
        marker = self.folder / f"pwned-{os.getpid()}"
        tampered, what = tamper_serialization(text, kind, rng, marker, self.secrets)
        route = rng.choice(["pyspiel", "pyspiel", "game"])
        if route == "pyspiel":
            loaded = self.call(f"deserialize_game_and_state ({what})",
                               lambda: pyspiel.deserialize_game_and_state(tampered))
            state = loaded[1] if loaded is not None else None
        else:
            section = tampered.split("[State]\n", 1)[-1]
            state = self.call(f"game.deserialize_state ({what})",
                              lambda: game.deserialize_state(section))
        if marker.exists():
            self.code_run.append(f"{what}: the file {marker.name} was created")
            try:
                marker.unlink() if marker.is_file() else marker.rmdir()
            except OSError:
                pass
        if kind == "honest" and state is None:
            self.events.append((f"honest state refused ({what})", "bad",
                                self.events[-1][2] if self.events else ""))
        if state is not None:
            wrong = unreachable(state)
            if wrong:
                self.impossible.append(f"{what}: {wrong}\n{tampered[:4000]}")
            self.play_on(state)

    def play_on(self, st):
        """A loaded state is played on: its calls must work or fail clearly."""
        rng = self.rng
        for what, fn in [("legal_actions()", st.legal_actions), ("str()", lambda: str(st)),
                         ("returns()", st.returns), ("current_player()", st.current_player),
                         ("history()", st.history)]:
            self.call("loaded: " + what, fn)
        for _ in range(3):
            if st.is_terminal() or st.is_simultaneous_node():
                break
            legal = (st.chance_outcomes() if st.is_chance_node() else
                     [(a, 1) for a in st.legal_actions()])
            if not legal:
                break
            a = rng.choice(legal)[0]
            if self.call(f"loaded: apply_action({a})", partial(st.apply_action, a)) is None \
                    and self.events[-1][1] != "ok":
                break

    # -- PettingZoo
    def pettingzoo(self):
        import numpy as np

        from tabula_rules.pettingzoo import env as make_env
        rng = self.rng
        spec = rng.choice(ADAPTER_SPECS)
        kwargs: dict = {}
        if rng.random() < 0.4:
            key = rng.choice(["players", "options", "returns", "int_span", "render_mode"])
            kwargs[key] = rng.choice({
                "players": [0, 1, -1, 99, 2 ** 63, "2", 2.5],
                "options": ["x=y", {"deck": "nope"}, {"num_cards": 0}, "deck=short;deck=full",
                            {"x": None}, 7],
                "returns": ["nope", "win_loss", None],
                "int_span": [0, -1, 10 ** 9],
                "render_mode": ["nope", "ansi", "human", 1]}[key])
        e = self.call(f"env({spec.name}, {kwargs!r})", lambda: make_env(str(spec), **kwargs))
        if e is None:
            return
        agents = list(getattr(e, "possible_agents", [])) or ["player_0"]
        bad_agents = ["player_99", None, 0, "", "player_-1", "PLAYER_0", ("player_0",)]
        seeds = [None, 0, 1, -1, 2 ** 53 - 1, 2 ** 53, 2 ** 64, 1.5, "x", NAN, True]

        def legal():
            try:
                mask = e.observe(e.agent_selection)["action_mask"]
                ids = [int(i) for i in np.flatnonzero(mask)]
                return rng.choice(ids) if ids else 0
            except Exception:  # noqa: BLE001  (a plain guess then)
                return 0

        def to_end():
            for _ in range(2000):
                if not e.agents:
                    return
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                ids = [int(i) for i in np.flatnonzero(obs["action_mask"])]
                e.step(rng.choice(ids) if ids else 0)

        bad_actions = [None, -1, 10 ** 9, "a", 1.5, [0], np.int64(0), True, NAN]

        def ops():
            seed, bad, action = (rng.choice(seeds), rng.choice(bad_agents),
                                 rng.choice(bad_actions))
            anyone = rng.choice(agents + bad_agents)
            return [
                (f"reset(seed={seed!r})", partial(e.reset, seed=seed)),
                ("reset()", e.reset),
                ("observe(agent)", lambda: e.observe(e.agent_selection)),
                (f"observe({bad!r})", partial(e.observe, bad)),
                ("step(legal)", lambda: e.step(legal())),
                (f"step({action!r})", partial(e.step, action)),
                ("step(np.int64 legal)", lambda: e.step(np.int64(legal()))),
                ("last()", e.last),
                (f"legal_action_strings({anyone!r})", partial(e.legal_action_strings, anyone)),
                ("render()", e.render),
                (f"action_space({bad!r})", partial(e.action_space, bad)),
                (f"observation_space({anyone!r})", partial(e.observation_space, anyone)),
                ("play to the end", to_end),
                ("close()", e.close),
            ]
        if rng.random() < 0.7:
            seed = rng.choice(seeds[:5])
            self.call(f"reset(seed={seed!r})", partial(e.reset, seed=seed))
        for _ in range(rng.randint(4, 14)):
            what, fn = rng.choice(ops())
            self.call(what, fn)


def unreachable(state) -> str | None:
    """None if the loaded OpenSpiel state is one its game reaches: its own history
    played from the game's seed (Game.new_state(seed)) gives back the very state (its
    JSON); else how it is not."""
    st = getattr(state, "tabula", None)
    ctx = getattr(state, "ctx", None)
    if st is None or ctx is None:
        return "a loaded state that holds no tabula state"
    if getattr(ctx, "draws", False):
        return _unreached_by_moves(state)
    try:
        fresh = ctx.game.new_state(seed=ctx.seed)
        for i, a in enumerate(st.history):
            if fresh.terminal:
                return f"its history goes on after the end (decision {i + 1})"
            fresh.apply(a)
    except Exception as e:  # noqa: BLE001  (the history is not playable)
        return f"its history does not play from seed {ctx.seed}: {type(e).__name__}: {e}"
    if fresh.to_json_text() != st.to_json_text():
        a, b = fresh.to_json(), st.to_json()
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        return f"its history plays to another state (differing: {', '.join(keys)})"
    return None


def _unreached_by_moves(state) -> str | None:
    """unreachable() where shuffles are chance nodes (the adapter's chance_shuffles):
    the Tabula history has no draws, so the state's OpenSpiel history is played from
    a new state of its game (a simultaneous node takes a joint action, one entry per
    player) and must give the same state, its shuffle in progress included."""
    game = state.get_game()
    fresh = game.new_initial_state()
    history = state.history()
    i = 0
    try:
        while i < len(history):
            if fresh.is_terminal():
                return f"its history goes on after the end (move {i + 1})"
            if fresh.is_simultaneous_node():
                n = game.num_players()
                fresh.apply_actions(history[i:i + n])
                i += n
            else:
                fresh.apply_action(history[i])
                i += 1
    except Exception as e:  # noqa: BLE001  (the history is not playable)
        return f"its history does not play from a new state: {type(e).__name__}: {e}"
    if str(fresh) != str(state) or fresh.tabula.to_json_text() != state.tabula.to_json_text():
        a, b = fresh.tabula.to_json(), state.tabula.to_json()
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        return f"its history plays to another state (differing: {', '.join(keys) or 'draws'})"
    return None


def _hostile_json_value(rng):
    return rng.choice([None, -1, 0, 1, 10 ** 30, -(10 ** 30), 1.5, NAN, INF, True, "x", [],
                       {}, [[0]], [-1], "7/3", [None], list(range(30))])


def tamper_state_json(d: dict, rng) -> str:
    """One edit of a state's JSON data (in place); what was done."""
    keys = sorted(d)
    kind = rng.choice(["slots", "slots", "value", "value", "history", "frames", "rng",
                       "header", "delete", "current", "type"])
    if kind == "slots" and d.get("slots"):
        slots = d["slots"]
        full = [i for i, s in enumerate(slots) if isinstance(s, list) and s]
        if full:
            i = rng.choice(full)
            j = rng.randrange(len(slots))
            piece = rng.choice(slots[i])
            how = rng.choice(["move", "copy", "drop", "foreign", "reorder"])
            if how == "move" and isinstance(slots[j], list):
                slots[i].remove(piece)
                slots[j].append(piece)
            elif how == "copy" and isinstance(slots[j], list):
                slots[j].append(piece)
            elif how == "drop":
                slots[i].remove(piece)
            elif how == "foreign":
                slots[i].append(rng.choice([99999, -1, len(slots) * 100]))
            else:
                slots[i].reverse()
                rng.shuffle(slots[i])
            return f"slots: piece {piece} {how} ({i} -> {j})"
    if kind == "value":
        for key in ("globals", "player_vars", "attributes", "locals", "fired"):
            if d.get(key):
                target = d[key]
                while isinstance(target, (list, dict)) and target:
                    k = rng.choice(list(target) if isinstance(target, dict)
                                   else range(len(target)))
                    if not isinstance(target[k], (list, dict)) or rng.random() < 0.3:
                        old = target[k]
                        target[k] = rng.choice([
                            old + 1 if isinstance(old, int) and not isinstance(old, bool)
                            else not old if isinstance(old, bool) else 0,
                            _hostile_json_value(rng)])
                        return f"{key}: {old!r} -> {target[k]!r}"
                    target = target[k]
    if kind == "history" and isinstance(d.get("history"), list):
        h = d["history"]
        how = rng.choice(["drop", "dup", "swap", "edit", "empty", "append"])
        if how == "drop" and h:
            del h[rng.randrange(len(h))]
        elif how == "dup" and h:
            i = rng.randrange(len(h))
            h.insert(i, list(h[i]))
        elif how == "swap" and len(h) > 1:
            i, j = rng.sample(range(len(h)), 2)
            h[i], h[j] = h[j], h[i]
        elif how == "edit" and h:
            a = h[rng.randrange(len(h))]
            if isinstance(a, list) and a:
                a[rng.randrange(len(a))] += rng.choice([1, -1, 1000])
        elif how == "empty":
            h.clear()
        else:
            h.append(list(h[-1]) if h else [0, 0, 0])
        return f"history {how}"
    if kind == "frames" and d.get("frames"):
        f = rng.choice(d["frames"])
        key = rng.choice(["block", "pc", "locals", "loop", "a", "b"])
        old = f.get(key)
        f[key] = rng.choice([(old or 0) + 1 if isinstance(old, int) else 0, -1, 10 ** 6,
                             None, _hostile_json_value(rng)])
        if rng.random() < 0.2:
            d["frames"].pop(rng.randrange(len(d["frames"])))
        return f"frame {key}: {old!r} -> {f.get(key)!r}"
    if kind == "rng" and isinstance(d.get("rng"), list) and len(d["rng"]) == 3:
        r = d["rng"]
        how = rng.choice(["state", "version", "length", "zero", "pos"])
        if how == "state" and isinstance(r[1], list) and r[1]:
            r[1][rng.randrange(len(r[1]))] ^= 1
        elif how == "version":
            r[0] = rng.choice([2, 4, -1])
        elif how == "length" and isinstance(r[1], list):
            r[1] = r[1][:-1]
        elif how == "zero" and isinstance(r[1], list):
            r[1] = [0] * len(r[1])
        elif isinstance(r[1], list) and r[1]:
            r[1][-1] = rng.choice([0, 625, 10 ** 9, -1])
        return f"rng {how}"
    if kind == "header":
        key = rng.choice(["format", "spec", "players", "options", "terminal", "steps",
                          "turn", "pending_frame", "to_act"])
        old = d.get(key)
        d[key] = rng.choice([_hostile_json_value(rng), not old if isinstance(old, bool)
                             else (old + 1 if isinstance(old, int) else "tiny")])
        return f"{key}: {old!r} -> {d[key]!r}"
    if kind == "delete" and keys:
        key = rng.choice(keys)
        del d[key]
        return f"{key} deleted"
    if kind == "current":
        old = d.get("current")
        d["current"] = rng.choice([-1, -2, 1, 0, 2, 99, old + 1 if type(old) is int else 0])
        return f"current {old!r} -> {d['current']!r}"
    if keys:
        key = rng.choice(keys)
        old = d[key]
        d[key] = rng.choice([str(old)[:50], [old], {"x": old}, None])
        return f"{key}: its type changed"
    return "nothing"


def _evil_pickle(marker: Path, rng) -> bytes:
    """A pickle that, loaded, creates `marker` (the 'code run' the adapters must never
    do)."""
    class Evil:
        def __reduce__(self):
            return rng.choice([(os.mkdir, (str(marker),)),
                               (open, (str(marker), "w"))])
    return pickle.dumps({"_box": Evil(), "x": 1}, protocol=rng.choice([2, 4, 5]))


def tamper_serialization(text: str, kind: str, rng, marker: Path, secrets: list) -> tuple:
    """(the tampered text of pyspiel.serialize_game_and_state, what was done)."""
    head, sep, state = text.partition("[State]\n")
    if kind == "honest":
        return text, "honest"
    if kind == "pickle":
        payload = _evil_pickle(marker, rng)
        b64 = base64.b64encode(payload).decode("ascii")
        how = rng.choice(["dict line", "dict line", "section", "raw", "json field"])
        if how == "dict line":
            new = f"history=\nmove_number=0\n__dict__={b64}\n"
        elif how == "section":
            new = b64 + "\n"
        elif how == "raw":
            new = payload.decode("latin-1") + "\n"
        else:
            try:
                d = json.loads(state)
                d["rng"] = b64
                new = json.dumps(d) + "\n"
            except ValueError:
                new = f"__dict__={b64}\n"
        return head + sep + new, f"pickle payload ({how})"
    if kind == "game":
        lines = head.split("\n")
        i = next((k for k, line in enumerate(lines) if line.startswith("tabula(")), None)
        if i is None:
            return text, "no game line"
        key = rng.choice(["seed", "players", "options", "spec", "int_span", "returns"])
        value = rng.choice({"seed": ["1", "2", "99", "-1"], "players": ["3", "1", "0", "9"],
                            "options": ["num_cards:5", "deck:short", "x:y"],
                            "spec": [str(ROOT / "examples" / "tiny"), *secrets[:1],
                                     str(ROOT / "examples" / "kuhn_poker")],
                            "int_span": ["1", "0"], "returns": ["scores", "win_loss"]}[key])
        lines[i] = re.sub(rf"\b{key}=[^,)]*", f"{key}={value}", lines[i])
        return "\n".join(lines) + sep + state, f"game {key}={value}"
    if kind == "text":
        how = rng.choice(["char", "cut", "line"])
        if how == "char" and state:
            k = rng.randrange(len(state))
            return head + sep + state[:k] + chr(rng.randrange(32, 127)) + state[k + 1:], \
                f"character {k}"
        if how == "cut" and state:
            return head + sep + state[:rng.randrange(len(state))], "cut"
        return head + sep + state + state, "state written twice"
    try:
        d = json.loads(state)
    except ValueError:
        return text, "no JSON"
    if not isinstance(d, dict):
        return text, "no JSON object"
    what = [tamper_state_json(d, rng) for _ in range(rng.choice([1, 1, 1, 2]))]
    return head + sep + json.dumps(d, separators=(",", ":"), allow_nan=True) + "\n", \
        "json: " + "; ".join(what)


def adapter_script(rng, folder: Path, secrets: list, kind: str) -> dict:
    s = Script(rng, folder, secrets)
    getattr(s, kind)()
    return s.result()


ADAPTER_KINDS = ("openspiel_load", "openspiel_state", "openspiel_deserialize",
                 "openspiel_deserialize", "pettingzoo", "pettingzoo")


# ---- two writers ------------------------------------------------------------------------------

LOCKED = "another tabula simulate is writing it"


def run_of(record: dict):
    return (record.get("seed"), record.get("spec"), record.get("spec_hash"),
            record.get("players"), json.dumps(record.get("options"), sort_keys=True),
            json.dumps(record.get("agents")))


def records_in(path: Path) -> tuple:
    """(complete lines, the records among them) of a simulate file."""
    try:
        data = path.read_bytes()
    except OSError:
        return [], []
    lines = data.split(b"\n")[:-1]
    recs = []
    for line in lines:
        try:
            r = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if isinstance(r, dict) and isinstance(r.get("index"), int):
            recs.append(r)
    return lines, recs


def math_ok(x) -> bool:
    return isinstance(x, float) and math.isfinite(x)
