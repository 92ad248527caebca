"""A game record analysed: every hand with a contract play by play (`analyze_hand`,
double dummy), and beside every call what bid advice would have said (`advise`, with
the caller's seven tiles and the calls before it).

For each call the analysis gives the recommended call and, for the call made and the
recommended one, P(make) and E[marks] (`BidChance`): calibrated figures in 42 (the
measured calibration), double dummy in Moon (which has no calibration). The call made
is scored in the declaration its seat named when it won the auction and declared,
else in the declaration that gives that bid its best P(make); a pass is worth 0
marks. Advice deals ``deals`` deals from ``seed`` for every call, so an analysis
repeats exactly.

This module joins the search (hand analysis) and the hidden-hand layer (bid advice),
so it lives in the hidden layer: `solver.search` never imports `solver.hidden`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..game.auction import SEATS, SPECIAL_CALLS, Call
from ..game.game_record import GameRecord, HandRecord
from ..search.analysis import HandAnalysis, analyze_hand
from ..search._core import CancelToken
from .bidding import BidAdvice, BidChance, advise

#: Deals of bid advice per call, and its seed, unless asked otherwise.
DEFAULT_ADVICE_DEALS = 100
DEFAULT_ADVICE_SEED = 42


@dataclass(frozen=True)
class CallFigures:
    """A call with its figures (`CallAnalysis.made`, `CallAnalysis.advised`).

    Attributes:
        call: A bid, or ``"pass"``, ``"plunge"``, ``"splash"``.
        declaration: What it is scored in (None for a pass, or a bid no
            declaration offers).
        p_make: Its P(make) (calibrated in 42); None for a pass.
        e_marks: Its expected marks; 0 for a pass.
    """

    call: int | str
    declaration: str | None
    p_make: float | None
    e_marks: float | None

    def to_json(self) -> dict:
        """``{"call", "declaration", "p_make", "e_marks"}``."""
        return {"call": self.call, "declaration": self.declaration,
                "p_make": None if self.p_make is None else round(self.p_make, 6),
                "e_marks": None if self.e_marks is None else round(self.e_marks, 6)}


@dataclass(frozen=True)
class CallAnalysis:
    """One call of an auction beside bid advice for it (`GameHandAnalysis.calls`).

    Attributes:
        index: The call's place in the auction (0 first).
        seat: The caller.
        made: The call made, with its figures.
        advised: The call advice recommends, with its figures.
        advice: The whole `BidAdvice` for the caller's tiles and the calls
            before it.
    """

    index: int
    seat: str
    made: CallFigures
    advised: CallFigures
    advice: BidAdvice

    @property
    def agrees(self) -> bool:
        """Whether the call made is the advised one (in the same declaration)."""
        return self.made.call == self.advised.call and (
            self.made.declaration == self.advised.declaration or self.made.call == "pass")

    def to_json(self) -> dict:
        """The call's JSON, as `t42 analyze` writes it for a game record."""
        return {"index": self.index, "seat": self.seat, "made": self.made.to_json(),
                "advised": self.advised.to_json(), "agrees": self.agrees}


@dataclass(frozen=True)
class GameHandAnalysis:
    """One hand of a game: its calls beside bid advice, and its play analysis
    (`GameAnalysis.hands`).

    Attributes:
        index: The hand's place in the game (0 first).
        shaker: The shaker's seat.
        contract: The contract JSON, or None.
        made: Whether the contract made (None: not over, or no contract).
        score: The game's score after the hand.
        calls: Every call beside bid advice (`CallAnalysis`).
        play: The hand's `HandAnalysis`; None when the hand has no contract
            (thrown in, or stopped before the declaration).
    """

    index: int
    shaker: str
    contract: dict | None
    made: bool | None
    score: dict[str, int]
    calls: tuple[CallAnalysis, ...]
    play: HandAnalysis | None

    def to_json(self) -> dict:
        """The hand's JSON, as `t42 analyze` writes it for a game record."""
        return {"hand": self.index, "shaker": self.shaker, "contract": self.contract,
                "made": self.made, "score": dict(self.score),
                "calls": [c.to_json() for c in self.calls],
                "play": None if self.play is None else self.play.to_json()}


@dataclass(frozen=True)
class GameAnalysis:
    """A game record analysed hand by hand, as `analyze_game` returns it.

    Attributes:
        game: The `GameRecord`.
        hands: Every hand analysed (`GameHandAnalysis`).
        deals: Deals of bid advice per call.
        seed: The seed of bid advice.
        p_make: ``"calibrated"`` (42) or ``"double-dummy"`` (Moon).
    """

    game: GameRecord
    hands: tuple[GameHandAnalysis, ...]
    deals: int
    seed: int
    p_make: str

    def to_json(self) -> dict:
        """The analysis JSON, as `t42 analyze --json` writes it for a game record."""
        out: dict[str, Any] = {}
        if self.game.has_id:
            out["id"] = self.game.id
        out["game"] = self.game.game
        out["players"] = self.game.players
        out["advice"] = {"deals": self.deals, "seed": self.seed, "p_make": self.p_make}
        out["hands"] = [h.to_json() for h in self.hands]
        out["score"] = dict(self.game.score)
        out["winner"] = self.game.winner
        out["next"] = self.game.next_action()
        return out


def _figures(chance: BidChance, calibrated: bool) -> tuple[float, float]:
    if calibrated and chance.calibration is not None:
        p = chance.calibration(chance.p_make)
        return p, chance.marks * (2 * p - 1)
    return chance.p_make, chance.e_marks


def _scored(advice: BidAdvice, call: int | str, declaration: str | None,
            calibrated: bool) -> CallFigures:
    """A call's figures in ``declaration`` (None: the declaration that gives the bid its
    best P(make))."""
    if call == "pass":
        return CallFigures("pass", None, None, 0.0)
    bid = SPECIAL_CALLS[call][0] if isinstance(call, str) else call
    if isinstance(call, str):
        declaration = call
    best: tuple[float, str, float] | None = None
    for row in advice.declarations:
        if declaration is not None and row.declaration != declaration:
            continue
        chance = row.chance(bid)
        if chance is None:
            continue
        p, e = _figures(chance, calibrated)
        if best is None or p > best[0]:
            best = (p, row.declaration, e)
    if best is None:
        return CallFigures(call, declaration, None, None)
    return CallFigures(call, best[1], best[0], best[2])


def _advised(advice: BidAdvice, calibrated: bool) -> CallFigures:
    rec = advice.recommendation
    if rec.bid is None or rec.chance is None:
        return CallFigures("pass", None, None, 0.0)
    call: int | str = rec.declaration if rec.declaration in SPECIAL_CALLS else rec.bid
    p, e = _figures(rec.chance, calibrated)
    return CallFigures(call, rec.declaration, p, e)


def _advice_call(call: Call) -> dict:
    """A call as bid advice takes it (plunge and splash as the bids they stand for)."""
    return {"seat": SEATS[call.seat], "bid": "pass" if call.is_pass else call.amount}


def _analyze_calls(game: GameRecord, hand: HandRecord, deals: int, seed: int,
                   calibrated: bool, token: CancelToken | None,
                   threads: int | None) -> tuple[CallAnalysis, ...]:
    rules = game.rules
    declared = hand.contract.declaration.name if hand.contract is not None else None
    winner = hand.auction.winner if hand.auction.is_over else None
    out = []
    calls = hand.auction.calls
    for i, call in enumerate(calls):
        advice = advise(hand.deal[call.seat], SEATS[call.seat],
                        game=rules.game, players=rules.players,
                        auction=[_advice_call(c) for c in calls[:i]], deals=deals, seed=seed,
                        calibrated=calibrated, token=token, threads=threads)
        mine = declared if call.seat == winner and call.kind == "standard" else None
        made = _scored(advice, call.bid, mine, calibrated)
        out.append(CallAnalysis(i, SEATS[call.seat], made, _advised(advice, calibrated),
                                advice))
    return tuple(out)


def _play_record(game: GameRecord, hand: HandRecord) -> dict | None:
    if hand.position is None:
        return None
    record = hand.position.to_json()
    record["id"] = f"{game.id} #{hand.index + 1}" if game.has_id else f"#{hand.index + 1}"
    return record


def analyze_game(record: Mapping[str, Any] | str | bytes | GameRecord, *,
                 deals: int = DEFAULT_ADVICE_DEALS, seed: int = DEFAULT_ADVICE_SEED,
                 token: CancelToken | None = None, threads: int | None = None) -> GameAnalysis:
    """Analyse a game record: every hand with a contract play by play (`analyze_hand`),
    and beside every call what bid advice would have said (`advise`, with the caller's
    seven tiles and the calls before it).

    Args:
        record: A game record (docs/formats.md): a dict, JSON text or bytes, or a
            `GameRecord`.
        deals: Deals of bid advice per call (from ``seed`` for every call, so an
            analysis repeats exactly).
        seed: The seed of bid advice.
        token: Stops the searches (`CancelToken`).
        threads: Bid advice's search threads (None: as `advise` chooses).

    Returns:
        The `GameAnalysis`.

    Raises:
        PositionError: A bad record.
        SearchCancelled: ``token`` stopped a search.

    >>> from solver import analyze_game
    >>> analysis = analyze_game(open("examples/game.json").read(), deals=10, threads=1)
    >>> call = analysis.hands[0].calls[1]
    >>> call.seat, call.made.call, call.advised.call, call.advised.declaration
    ('S', 35, 84, 'sevens')
    """
    game = record if isinstance(record, GameRecord) else GameRecord(record)
    calibrated = game.rules.game == "42"
    hands = []
    for hand in game.hands:
        calls = _analyze_calls(game, hand, deals, seed, calibrated, token, threads)
        play_record = _play_record(game, hand)
        play = None if play_record is None else analyze_hand(play_record, token=token)
        summary = hand.summary_json()
        hands.append(GameHandAnalysis(hand.index, summary["shaker"], summary["contract"],
                                      hand.made, dict(hand.score), calls, play))
    return GameAnalysis(game, tuple(hands), deals, seed,
                        "calibrated" if calibrated else "double-dummy")


__all__ = ["CallAnalysis", "CallFigures", "GameAnalysis", "GameHandAnalysis", "analyze_game"]
