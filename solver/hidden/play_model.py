"""How likely a seat was to make the plays it made, given its hand: the play model of
inference (docs/guides/players.md, "Inference").

The model: a seat at a position with two or more legal moves plays move ``j`` with
probability ``exp(-loss_j / T) / sum_k exp(-loss_k / T)``, where ``loss_j`` is how much
worse move ``j`` is than the best move for the seat's side, double dummy on the deal
(points for 42's point contracts; tricks for Moon, nello and sevens), and the
temperature ``T`` per unit was fitted by maximum likelihood on game records of the
``advice`` bot (``data/play_model.json``; ``bench/fit_inference.py plays``). A seat that
plays well but not perfectly: the best move is the likeliest, a move that costs a trick
is much less likely, one that costs nothing is as likely as the best.

`PlayReplay` weighs one deal of a view: it loads the deal as dealt into an engine,
plays the view's plays, and at every play of another seat since the viewer's own last
play (at most one round of plays), where that seat had a choice, scores its legal
moves (`Engine.score_moves`), from the latest play back, so that the move played, whose
value is that of the position after it, is never searched again. Earlier plays are not
judged: a search from an earlier point of the hand is much larger, and the whole history
would cost 35 to 110 times the hint itself at tricks 3 to 5. The engine keeps
its transposition table across the plays of one deal (every tile keeps its owner, so
a state means the same thing all along): the judging reuses the table of the scorer's
search of the view's position, which comes first.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..game.position import Position
from ..game.view import View
from ..search._core import Engine

MODEL_FILE = Path(__file__).parent / "data" / "play_model.json"


@dataclass(frozen=True)
class PlayModel:
    """A softmax over double-dummy loss with one temperature per unit of value.

    Attributes:
        name: The model's name (``dd-softmax-1``).
        temperature: The temperature per unit of value (``points``, ``tricks``).
        fitted_on: Where it was fitted (the arena command of its records).
    """

    name: str
    temperature: Mapping[str, float]
    fitted_on: Mapping[str, Any] | None = None

    def to_json(self) -> dict:
        """``{"name", "temperature"}``."""
        return {"name": self.name, "temperature": dict(self.temperature)}

    def log_probability(self, values: list[tuple[int, int]], played: int, maximizing: bool,
                        unit: str) -> float:
        """log P(``played``) among the moves ``values`` ((tile, value) after each)."""
        t = self.temperature[unit]
        sign = 1 if maximizing else -1
        best = max(sign * v for _, v in values)
        # exp(-loss / T): the best move's term is 1, so the sum never underflows to 0.
        logits = {tile: (sign * v - best) / t for tile, v in values}
        total = sum(math.exp(x) for x in logits.values())
        return logits[played] - math.log(total)


@functools.cache
def shipped_play_model() -> PlayModel:
    """The package's fitted play model (``data/play_model.json``)."""
    data = json.loads(MODEL_FILE.read_text())
    return PlayModel(data["name"], {k: float(v) for k, v in data["temperature"].items()},
                     data.get("fitted_on"))


class PlayReplay:
    """The log-likelihood of a view's plays by the seats other than the viewer, on one
    deal at a time (`log_weight`), under a `PlayModel`.

    ``template`` is any consistent deal of the ``view`` as a `Position` (the rules, the
    contract and the plays are those of every deal); ``model`` the `PlayModel`."""

    def __init__(self, view: View, template: Position, model: PlayModel) -> None:
        self.model = model
        start = Position({**template.to_json(), "plays": []})
        self.leader = start.leader
        self.available = start.available
        self.unit = "tricks" if template.max_value == 7 else "points"
        self.maximizer = template.maximizer
        self.plays = tuple(view.plays)
        self.seats = tuple(view.play_seats)
        self.played_by = tuple(view.played_by)
        # The plays judged: those of the other seats since the viewer's own last play.
        # Judging earlier ones means searching from earlier, larger positions: the whole
        # history costs 35 to 110 times the hint at trick 3 to 5, this window 1 to 3 times.
        # Every play after the viewer's last is another seat's: the window is a tail.
        last = max((i for i, s in enumerate(self.seats) if s == view.seat), default=-1)
        #: index of the first play judged (all from it to the last play are)
        self.first_judged = last + 1
        self.any_judged = self.first_judged < len(self.plays)

    def log_weight(self, engine: Engine, held: tuple[int, int, int, int],
                   value_now: int | None) -> float:
        """log P(the other seats' plays | this deal); ``held`` are the tiles each seat
        still holds (the scorer's masks) and ``value_now`` the double-dummy value of the
        view's position on this deal (the scorer's best move's), or None if unknown. The
        engine is left at the start of the window.

        The plays are judged from the latest back: the value after each judged play is
        the value of the position it led to, known already (``value_now``, then the
        best of the moves judged after it), so only the other moves are searched."""
        if not self.any_judged:
            return 0.0
        dealt = [held[s] | self.played_by[s] for s in range(4)]
        engine.set_state(dealt, self.leader, (), 0, self.available, 7)
        for tile in self.plays:
            engine.play(tile)
        total = 0.0
        value = value_now
        for i in range(len(self.plays) - 1, self.first_judged - 1, -1):
            engine.undo()
            maximizing = bool(self.maximizer[self.seats[i]])
            values = (engine.score_moves() if value is None
                      else engine.score_moves(self.plays[i], value))
            if len(values) > 1:
                total += self.model.log_probability(values, self.plays[i], maximizing,
                                                    self.unit)
                value = (max if maximizing else min)(v for _, v in values)
        return total


__all__ = ["MODEL_FILE", "PlayModel", "PlayReplay", "shipped_play_model"]
