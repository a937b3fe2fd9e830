"""Which cells a condition on a board's cells can hold for: a loop over every cell
narrowed to the neighbours of a list in hand.

Input: the AST of a generator's condition over `cells(zone)`, the name of its variable,
and the compiler's spec functions. Output: the AST of a list L (in the generator's own
scope: it reads neither the variable nor anything bound inside the condition) and the
neighbourhood ("adj4" for `adjacent`, "adj8" for `around`) when the condition requires
`any(... a in L ... for a in adjacent(c))` as one of its parts joined by `and` (spec
functions looked into at their calls): the condition can then hold only for a neighbour
of an item of L, and the loop goes over those (the board's adjacency is symmetric:
compiler/builtins.py checks it). None otherwise. docs/compiler.md, "Views".

As compiler/stencil.py, this module reads the AST only, telling nodes apart by their
class's name; it imports only that leaf, so the stages that ask it stay on their floor
(docs/architecture.md), and is handed the language's `name_uses` (lang/ast.py).
"""

from __future__ import annotations

from .stencil import NEAR

MAX_DEPTH = 16


def required_near(cond, var: str, comp, uses, depth: int = 0, env: dict | None = None):
    """(L, "adj4" or "adj8") or None: see the module's docstring. `uses(node)` gives the
    names an AST reads (lang.ast.name_uses). `env` maps the names of the spec functions'
    parameters looked into to the AST they stand for (and its own env)."""
    env = env or {}
    for part in _conjuncts(cond):
        found = _part(part, var, comp, uses, depth, env)
        if found is not None:
            return found
    return None


def _conjuncts(node) -> list:
    out, todo = [], [node]
    while todo:
        n = todo.pop(0)
        if type(n).__name__ == "BoolOp" and n.op == "and":
            todo[:0] = [n.left, n.right]
        else:
            out.append(n)
    return out


def _resolve(node, env: dict):
    """A name standing for a function's argument: that argument (and its env)."""
    while type(node).__name__ == "Name" and node.id in env:
        node, env = env[node.id]
    return node, env


def _is_var(node, var: str, env: dict) -> bool:
    node, env = _resolve(node, env)
    return type(node).__name__ == "Name" and node.id == var and not env


def _part(part, var: str, comp, uses, depth: int, env: dict):
    kind = type(part).__name__
    if kind == "Func" and part.name in comp.functions and depth < MAX_DEPTH:
        params = [str(p) for p in comp.functions[part.name].get("params", [])]
        if len(params) != len(part.args):
            return None
        inner = {p: (a, env) for p, a in zip(params, part.args)}
        return required_near(comp.builtins.function_ast(part.name), var, comp, uses,
                             depth + 1, inner)
    if kind != "Aggregate" or part.name != "any":
        return None
    gen = part.gen
    src = gen.source
    if type(src).__name__ != "Func" or src.name not in NEAR or len(src.args) != 1 \
            or not _is_var(src.args[0], var, env):
        return None
    pieces = _conjuncts(gen.elt) + (_conjuncts(gen.cond) if gen.cond is not None else [])
    for p in pieces:
        if type(p).__name__ == "Compare" and p.op == "in" and \
                type(p.left).__name__ == "Name" and p.left.id == gen.var:
            whole, wenv = _resolve(p.right, env)
            if wenv or set(uses(whole)) & ({var, gen.var} | {n for n, _ in gen.lets}):
                continue                    # not a list of the generator's own scope
            return whole, NEAR[src.name]
    return None
