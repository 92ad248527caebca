"""Measuring bid advice's calibration: hands dealt, advised and played out by bots.

`play_calibration_hand` makes one (predicted P(make), made) pair: a seeded deal
(solver.hidden.dealer), bid advice for the declarer's hand (the declarer rotates
N, E, S, W by hand index), then the hand played out by hint bots on all four
seats (solver.play.arena's play machinery). `run_calibration` plays many hands
over several processes and hands each record to a sink as it is played;
`solver.hidden.calibration.calibration_table` bins the pairs.

Measured in games (`game_calibration_hand`, `run_game_calibration`): game records
(of the game arena, advice bots on all four seats) give, for each 42 hand with a
contract of kind standard, the declarer's winning call: bid advice is asked again
for the declarer's seven tiles and the calls before that call, in the declaration it
named, and its double-dummy P(make) at the winning bid is paired with whether the
contract made. This measures the advice where it is used, over real auctions (the
winner's bid is the highest the auction let it win), with the forced bids and the
defence of the bots at the table.

Which contract is played (``mode``):

* ``"bid30"`` (default): the declaration the advice ranks best at a bid of
  30 (highest P(make) at 30, then the highest mean), bid 30, whatever the
  recommendation. Every hand yields a pair and the predictions spread over
  the whole range 0..1, so every bin of the table fills.
* ``"advised"``: the recommended declaration and bid; a hand whose advice
  is to pass yields no pair. Only predictions at or above the advice's
  threshold occur, so only the top bins fill.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..game import tiles as T
from ..game.game_record import GameRecord
from ..game.jsondoc import JSONValue
from ..game.position import SEATS
from ..hidden.bidding import advise
from ..hidden.calibration import CalibrationBin
from ..hidden.dealer import Dealer
from ..hidden.seat_view_bidding import DEFAULT_LEAD_DEALS, seat_view_advise
from ..hidden.stats import wilson_interval
from .arena import play_hand
from .bots import seat_bots
from .processes import ProcessPool


def calibration_markdown(table: list[CalibrationBin]) -> str:
    """The table as Markdown, for bench/README.md."""
    lines = ["| predicted P(make) | hands | mean predicted | observed make rate (95% interval) |",
             "|---|---|---|---|"]
    for b in table:
        if not b.count:
            lines.append(f"| {b.low:.1f}-{b.high:.1f} | 0 | - | - |")
            continue
        low, high = wilson_interval(b.made, b.count)
        lines.append(f"| {b.low:.1f}-{b.high:.1f} | {b.count} | {b.predicted:.2f} | "
                     f"{b.observed:.2f} ({low:.2f}-{high:.2f}) |")
    return "\n".join(lines)


#: Declarations the advice is asked about: those scored in points, which the arena plays
#: (nello, sevens, plunge and splash are make-or-set contracts of their own).
POINT_DECLARATIONS = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes",
                      "doubles", "follow-me")
MODES = ("bid30", "advised")
CALIBRATION_BID = 30


@dataclass(frozen=True)
class CalibrationRecord:
    """One hand: the deal, the contract the advice chose, its prediction and the result.

    Attributes:
        hand: The hand's index in the run.
        seed: The run's seed.
        declarer: The declarer's seat.
        declaration: The declaration advice chose.
        bid: The bid played.
        predicted: The advised P(make) of this declaration at this bid.
        advice_deals: Deals of the advice.
        hint_deals: Deals of the hint bots that played the hand.
        recommendation: The advice's recommendation (JSON), for reference.
        hands: The deal.
        plays: The plays, in order.
        points: The declaring side's points.
        made: Whether the bid made.
    """

    hand: int
    seed: int
    declarer: str
    declaration: str
    bid: int
    predicted: float          # advised P(make) of this declaration at this bid
    advice_deals: int
    hint_deals: int
    recommendation: dict      # the advice's recommendation (JSON), for reference
    hands: dict[str, list[str]]
    plays: list[str]
    points: int
    made: bool

    def to_json(self) -> dict:
        """The record as a JSON Lines row."""
        return asdict(self)

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "CalibrationRecord":
        """A record from its JSON row."""
        return cls(**row)


def _hand_seed(seed: int, hand: int) -> int:
    return seed * 1_000_003 + hand


def play_calibration_hand(hand: int, seed: int, *, mode: str = "bid30", advice_deals: int = 100,
                          hint_deals: int = 30) -> CalibrationRecord | None:
    """Deal hand ``hand`` of run ``seed``, advise the declarer, play it out with hint bots.

    ``mode``: ``"bid30"`` (the declarer bids 30 in the advice's best declaration) or
    ``"advised"`` (the advice's recommended bid; None when it is to pass).
    ``advice_deals`` and ``hint_deals``: the deals of the advice and of the hint bots.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    hand_seed = _hand_seed(seed, hand)
    deal = Dealer().deal(seed=hand_seed)
    declarer = SEATS[hand % 4]
    advice = advise(deal.hands[declarer], declarer, deals=advice_deals,
                    seed=hand_seed, declarations=list(POINT_DECLARATIONS), threads=1)
    if mode == "advised":
        rec = advice.recommendation
        if rec.is_pass or rec.chance is None:
            return None
        declaration, bid, predicted = rec.declaration, rec.bid, rec.chance.p_make
    else:
        def key(row):
            chance = row.chance(CALIBRATION_BID)
            return (chance.p_make if chance else -1.0, row.mean or 0.0)
        best = max(advice.declarations, key=key)
        declaration, bid = best.declaration, CALIBRATION_BID
        predicted = best.chance(CALIBRATION_BID).p_make
    start = deal.position({"declarer": declarer, "trump": declaration, "bid": bid})
    # A hint bot per seat, seeded by the hand and the seat (`seat_seed`).
    bots = seat_bots("hint", hand_seed, hint_deals)
    end = play_hand(start, bots, bots)
    return CalibrationRecord(
        hand=hand, seed=seed, declarer=declarer, declaration=declaration, bid=int(bid),
        predicted=float(predicted), advice_deals=advice_deals, hint_deals=hint_deals,
        recommendation=advice.recommendation.to_json(),
        hands=deal.hands,
        plays=[T.name_of(t) for t in end.plays], points=end.points,
        made=bool(end.makes(end.points)))


def _hand_job(job: tuple) -> CalibrationRecord | None:
    hand, seed, mode, advice_deals, hint_deals = job
    return play_calibration_hand(hand, seed, mode=mode, advice_deals=advice_deals,
                                 hint_deals=hint_deals)


def run_calibration(hands: int, seed: int = 0, *, mode: str = "bid30", advice_deals: int = 100,
                    hint_deals: int = 30, workers: int = 1, first_hand: int = 0,
                    progress: Callable[[int, int], None] | None = None,
                    sink: Callable[[CalibrationRecord], None] | None = None
                    ) -> list[CalibrationRecord]:
    """Play hands ``first_hand`` .. ``first_hand + hands - 1``; their records, by hand.

    Each hand is seeded by ``seed`` and its index, so the records do not depend on
    ``workers``; ``sink`` gets each record as soon as it is played, ``progress``
    (done, total) after each. ``mode``, ``advice_deals`` and ``hint_deals`` as for
    `play_calibration_hand`.
    """
    jobs = [(i, seed, mode, advice_deals, hint_deals)
            for i in range(first_hand, first_hand + hands)]
    out: list[CalibrationRecord] = []

    def take(records: Iterator[CalibrationRecord | None]) -> None:
        for k, rec in enumerate(records):
            if rec is not None:
                out.append(rec)
                if sink:
                    sink(rec)
            if progress:
                progress(k + 1, hands)
    if workers <= 1:
        take(map(_hand_job, jobs))
    else:
        with ProcessPool(workers) as pool:
            take(pool.imap_unordered(_hand_job, jobs))
    out.sort(key=lambda r: r.hand)
    return out


def pairs_of(records: Iterable[CalibrationRecord]) -> list[tuple[float, bool]]:
    """The (predicted P(make), made) pairs of the records, for `calibration_table`."""
    return [(r.predicted, r.made) for r in records]


def bid_chances(record: CalibrationRecord) -> dict[int, float]:
    """P(make) of the played declaration at every bid on offer, from the record's advice.

    The advice is asked again with the record's seed and deal count, for that
    declaration alone (the same deals, so the same P(make) at the played bid).
    """
    advice = advise(record.hands[record.declarer], record.declarer,
                    deals=record.advice_deals, seed=_hand_seed(record.seed, record.hand),
                    declarations=[record.declaration], threads=1)
    return {c.bid: c.p_make for c in advice.declaration(record.declaration).bids}


def pairs_over_bids(records: Iterable[CalibrationRecord], bids: Sequence[int] = range(30, 43)
                    ) -> list[tuple[float, bool]]:
    """(P(make) at bid b, points >= b) for every one of ``records`` and every bid b of
    ``bids``.

    A secondary view that spreads the predictions over the whole range: the
    hand was played for the recorded bid, so higher bids are read off the
    points taken by play that did not aim at them, and the pairs of one hand
    are not independent.
    """
    out = []
    for r in records:
        chances = bid_chances(r)
        out += [(chances[b], r.points >= b) for b in bids if b in chances]
    return out


@dataclass(frozen=True)
class GameCalibrationRecord:
    """One hand of a game: the declarer's winning call, its prediction and the result.

    Attributes:
        game: The game record's ``id``.
        hand: The hand's index in the game.
        declarer: The declarer's seat.
        declaration: The declaration named.
        bid: The winning bid.
        calls_before: The auction before the winning call (calls as JSON).
        predicted: Bid advice's P(make) of the contract.
        advice_deals: Deals of the advice.
        seed: The advice's seed.
        made: Whether the contract made.
        inference: What the advice weighed its deals by (`solver.hidden.inference`).
        fixed_lead: Whether the advice held the declarer to one opening lead for every
            deal (`solver.hidden.bidding.advise`).
        search: ``double-dummy`` or ``playout`` (seat-view bid advice,
            `solver.hidden.seat_view_bidding`, with ``inner_deals``).
        inner_deals: A playout's deals per decision (0: double dummy).
        lead_deals: The deals over which a playout's declarer decided its opening lead
            once for every deal (0: each deal's declarer decided its own, or double
            dummy).
        defended_by: The bot that defended in the game (the arena's record names it),
            or None.
    """

    game: JSONValue           # the game record's id
    hand: int                 # the hand's index in the game
    declarer: str
    declaration: str
    bid: int
    calls_before: list       # the auction before the winning call (calls as JSON)
    predicted: float          # bid advice's double-dummy P(make) of the contract
    advice_deals: int
    seed: int
    made: bool
    #: what the advice weighed its deals by (`solver.hidden.inference`)
    inference: str = "off"
    #: whether the advice held the declarer to one opening lead for every deal
    fixed_lead: bool = False
    #: ``double-dummy`` or ``playout`` (seat-view bid advice)
    search: str = "double-dummy"
    #: a playout's deals per decision (0: double dummy)
    inner_deals: int = 0
    #: the deals a playout's declarer decided its lead over, once (0: per deal, or none)
    lead_deals: int = 0
    #: the bot that defended, as the arena's record names it
    defended_by: str | None = None

    def to_json(self) -> dict:
        out = asdict(self)
        # The records measured before these options read the same.
        for key, default in (("inference", "off"), ("fixed_lead", False),
                             ("search", "double-dummy"), ("inner_deals", 0),
                             ("lead_deals", 0), ("defended_by", None)):
            if out[key] == default:
                del out[key]
        return out

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "GameCalibrationRecord":
        return cls(**row)


def game_calibration_hand(record: GameRecord, index: int, *, advice_deals: int = 100,
                          seed: int = 0, inference: str = "off", fixed_lead: bool = False,
                          search: str = "double-dummy", inner_deals: int = 3,
                          lead_deals: int = DEFAULT_LEAD_DEALS
                          ) -> GameCalibrationRecord | None:
    """The calibration pair of hand ``index`` of a 42 game record, or None for a hand
    that gives none (thrown in, a plunge or splash, not over). ``inference``
    (``auction``): the advice weighs its deals by the calls before the winning one.
    ``advice_deals`` and ``seed`` are the advice's deals and seed; ``fixed_lead`` holds
    the declarer to one opening lead for every deal (`solver.hidden.bidding.advise`).
    ``search`` ``playout``: seat-view bid advice (`seat_view_advise`, its defenders
    seat-view players, ``inner_deals`` deals a decision, the declarer's lead decided once
    over ``lead_deals``) instead of double dummy."""
    hand = record.hands[index]
    c = hand.contract
    if record.rules.game != "42" or c is None or c.kind != "standard" or hand.made is None:
        return None
    calls = hand.auction.calls
    last = max(i for i, call in enumerate(calls) if call.seat == c.declarer and not call.is_pass)
    before = [{"seat": SEATS[call.seat], "bid": "pass" if call.is_pass else call.amount}
              for call in calls[:last]]
    hand_seed = _hand_seed(seed, index)
    if search == "playout":
        if inference != "off" or fixed_lead:
            raise ValueError("a playout's advice takes neither inference nor a fixed lead")
        advice = seat_view_advise(hand.deal[c.declarer], SEATS[c.declarer], auction=before,
                                  deals=advice_deals, inner_deals=inner_deals,
                                  seed=hand_seed, declarations=[c.declaration.name],
                                  threads=1, lead_deals=lead_deals)
    else:
        advice = advise(hand.deal[c.declarer], SEATS[c.declarer],
                        auction=before, deals=advice_deals, seed=hand_seed,
                        declarations=[c.declaration.name], threads=1, inference=inference,
                        fixed_lead=fixed_lead)
    chance = advice.declaration(c.declaration.name).chance(c.bid)
    if chance is None:
        return None
    return GameCalibrationRecord(
        game=record.id, hand=index, declarer=SEATS[c.declarer],
        declaration=c.declaration.name, bid=c.bid, calls_before=before,
        predicted=float(chance.p_make), advice_deals=advice_deals, seed=hand_seed,
        made=bool(hand.made), inference=inference, fixed_lead=fixed_lead, search=search,
        inner_deals=inner_deals if search == "playout" else 0,
        lead_deals=lead_deals if search == "playout" else 0,
        defended_by=_defended_by(record, c.declarer))


def _defended_by(record: GameRecord, declarer: int) -> str | None:
    """The bot of the side that defended, as an arena's record names it (``NS``/``EW``)."""
    arena = (record.meta or {}).get("arena") or {}
    return arena.get("EW" if SEATS[declarer] in "NS" else "NS")


def _game_hands_job(job: tuple) -> tuple[int, list[GameCalibrationRecord]]:
    k, data, advice_deals, seed, inference, fixed_lead, search, inner_deals, lead_deals = job
    record = GameRecord(data)
    found = (game_calibration_hand(record, i, advice_deals=advice_deals, seed=seed,
                                   inference=inference, fixed_lead=fixed_lead,
                                   search=search, inner_deals=inner_deals,
                                   lead_deals=lead_deals)
             for i in range(len(record.hands)))
    return k, [rec for rec in found if rec is not None]


def run_game_calibration(records: Sequence[Any], *, advice_deals: int = 100, seed: int = 0,
                         workers: int = 1, inference: str = "off", fixed_lead: bool = False,
                         search: str = "double-dummy", inner_deals: int = 3,
                         lead_deals: int = DEFAULT_LEAD_DEALS,
                         progress: Callable[[int, int], None] | None = None,
                         sink: Callable[[GameCalibrationRecord], None] | None = None
                         ) -> list[GameCalibrationRecord]:
    """The calibration pairs of every hand of the game records (dicts or JSON), a game
    per job over ``workers`` processes; by game (in the order given), then hand. Each
    hand's advice (``advice_deals`` deals) is seeded by ``seed`` and the hand's index,
    so the pairs do not depend on ``workers``; ``inference``, ``fixed_lead``, ``search``,
    ``inner_deals`` and ``lead_deals`` as for `game_calibration_hand`; ``sink`` gets each game's pairs as they come,
    ``progress`` (done, total) after each game."""
    jobs = [(k, data, advice_deals, seed, inference, fixed_lead, search, inner_deals,
             lead_deals)
            for k, data in enumerate(records)]
    found: list[tuple[int, list[GameCalibrationRecord]]] = []

    def take(results: Iterator[tuple[int, list[GameCalibrationRecord]]]) -> None:
        for done, (k, recs) in enumerate(results):
            found.append((k, recs))
            for rec in recs:
                if sink:
                    sink(rec)
            if progress:
                progress(done + 1, len(jobs))
    if workers <= 1:
        take(map(_game_hands_job, jobs))
    else:
        with ProcessPool(workers) as pool:
            take(pool.imap_unordered(_game_hands_job, jobs))
    return [rec for _, recs in sorted(found, key=lambda kr: kr[0]) for rec in recs]


__all__ = ["CalibrationRecord", "GameCalibrationRecord", "bid_chances",
           "calibration_markdown", "game_calibration_hand", "pairs_of", "pairs_over_bids",
           "play_calibration_hand", "run_calibration", "run_game_calibration"]
