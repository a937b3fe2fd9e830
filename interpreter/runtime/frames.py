"""The engine's frames: one running block of instructions each, on State's stack.

Input: a compiled Block (runtime/model.py) and the locals it runs with. Output: a Frame,
which the run loop (runtime/engine.py: State._run) advances and the compiled instructions
(compiler/steps.py, compiler/decisions.py) read and push. A frame is saved by
State.to_json by its fields (block id, pc, locals, loop id, data, at), as the seven-item
lists it replaces were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Frame", "start"]


class Frame:
    """A block being run: `ins` its instructions (block.ins, kept here for the run loop),
    `pc` the next one, `L` the list of local values (named L, as in the generated code
    that indexes it: shared by the frames of one rule), `loop` the Loop that runs the
    block again when it ends (None: it runs once), `data` and `at` that loop's own state (a
    for loop: its items and the next one's index; a counted loop: the rounds left; a while
    loop: the rounds run; a joint move's reveal: the choices and the next one), `block` the
    Block itself. A list in
    `data` is never changed in place (the loop reads it), so copies share it."""

    # slots, not a list read by index: named, and as fast to read and write (measured:
    # a slot read costs less than a list index); only making one costs more, so running
    # games make theirs with start() below (State.clone and effects.R_call, the hottest,
    # set the fields of object.__new__(Frame) in place)
    __slots__ = ("ins", "pc", "L", "loop", "data", "at", "block")

    # loop and block: a model.Loop (or None) and a model.Block, typed Any because this
    # module imports nothing of the runtime's (the engine and the compiler import it)
    def __init__(self, ins: tuple[Callable[[Any, Frame], Any], ...], pc: int, L: list[Any],
                 loop: Any, data: Any, at: Any, block: Any) -> None:
        self.ins = ins
        self.pc = pc
        self.L = L
        self.loop = loop
        self.data = data
        self.at = at
        self.block = block

    def copy(self, L: list[Any]) -> Frame:
        """The frame for a copy of the state: its own locals `L` (shared with the copy's
        other frames of the same rule), the rest as here."""
        return Frame(self.ins, self.pc, L, self.loop, self.data, self.at, self.block)

    def __repr__(self) -> str:
        return f"<frame of block {getattr(self.block, 'id', '?')} at {self.pc}>"


_new_frame = object.__new__


def start(block: Any, L: list[Any], loop: Any = None, data: Any = None, at: Any = None) -> Frame:
    """A frame that runs `block` from its first instruction: Frame(block.ins, 0, L, loop,
    data, at, block), built field by field (a class call runs __init__ through the
    interpreter's slow path: it costs more than the rest of a push, measured)."""
    fr = _new_frame(Frame)
    fr.ins = block.ins
    fr.pc = 0
    fr.L = L
    fr.loop = loop
    fr.data = data
    fr.at = at
    fr.block = block
    return fr
