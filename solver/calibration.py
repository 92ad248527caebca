"""Calibration of predicted P(make) against what happened at the table.

Double-dummy P(make) assumes both sides see every hand; real play does not.
Given observed pairs (the P(make) bid advice predicted for a contract, and
whether the contract made when the hand was played out, e.g. by bots in an
arena), `calibration_table` bins the predictions (0.0-0.1, ..., 0.9-1.0) and
sets each bin's observed make rate, with a Wilson 95% interval, beside the
mean prediction.

`play_calibration_hand` makes one such pair: a seeded deal (solver.dealer),
bid advice for the declarer's hand (the declarer rotates N, E, S, W by hand
index), then the hand played out by hint bots on all four seats
(solver.arena's play machinery). `run_calibration` plays many hands over
several processes and hands each record to a sink as it is played.

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

import functools
import json
import multiprocessing
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any, Callable, Iterable, Iterator, Sequence

from . import tiles as T
from .bidding import advise, wilson
from .position import SEATS


@dataclass(frozen=True)
class CalibrationBin:
    """Predictions in [low, high) (the last bin includes 1.0) and how they came out."""

    low: float
    high: float
    count: int
    made: int
    predicted_sum: float

    @property
    def predicted(self) -> float | None:
        return self.predicted_sum / self.count if self.count else None

    @property
    def observed(self) -> float | None:
        return self.made / self.count if self.count else None

    def to_json(self) -> dict:
        low, high = wilson(self.made, self.count)
        return {"bin": [self.low, self.high], "count": self.count, "made": self.made,
                "predicted": self.predicted, "observed": self.observed,
                "observed_low": low if self.count else None,
                "observed_high": high if self.count else None}


def calibration_table(pairs: Iterable[tuple[float, bool]], bins: int = 10
                      ) -> list[CalibrationBin]:
    """Bin (predicted P(make), made) pairs into ``bins`` equal bins of the prediction."""
    counts = [[0, 0, 0.0] for _ in range(bins)]
    for predicted, made in pairs:
        if not 0.0 <= predicted <= 1.0:
            raise ValueError(f"a predicted P(make) lies in [0, 1], not {predicted!r}")
        k = min(int(predicted * bins), bins - 1)
        counts[k][0] += 1
        counts[k][1] += 1 if made else 0
        counts[k][2] += predicted
    return [CalibrationBin(round(k / bins, 6), round((k + 1) / bins, 6), int(c), int(m), s)
            for k, (c, m, s) in enumerate(counts)]


def calibrated_p_make(predicted: float, table: list[CalibrationBin]) -> float:
    """A predicted P(make) mapped through a measured table: the observed make rate of
    its bin (the prediction itself where the bin is empty). A raw reading, neither
    monotone nor smooth; `CalibrationMap` is the monotone map the advice applies."""
    if not 0.0 <= predicted <= 1.0:
        raise ValueError(f"a predicted P(make) lies in [0, 1], not {predicted!r}")
    b = table[min(int(predicted * len(table)), len(table) - 1)]
    return b.observed if b.observed is not None else predicted


@dataclass(frozen=True)
class CalibrationMap:
    """A monotone map from a predicted P(make) to the make rate measured at the table.

    Built from a calibration table (`from_table`): the bins that hold
    predictions become knots (the bin's mean prediction, its observed make
    rate). Where a bin's rate falls below the rate of a bin under it (noise:
    a higher prediction cannot make less often), the two are pooled, weighted
    by their counts, until the rates rise (pool adjacent violators: the
    isotonic fit of the bins). Between knots the map is linear; below the
    first knot it runs from (0, 0) (a contract the defence sets on every deal
    double dummy); above the last it stays at the last knot's rate (no
    measurement says more). ``source`` describes the measurement (hands,
    seed, ...), for the answers that use the map.
    """

    knots: tuple[tuple[float, float], ...]
    source: dict = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def from_table(cls, table: Sequence[CalibrationBin], source: dict | None = None
                   ) -> "CalibrationMap":
        blocks: list[list[float]] = []     # [count, made, sum of predictions], rising rates
        for b in table:
            if not b.count:
                continue
            blocks.append([b.count, b.made, b.predicted_sum])
            while len(blocks) > 1 and blocks[-2][1] * blocks[-1][0] > blocks[-1][1] * blocks[-2][0]:
                count, made, total = blocks.pop()
                blocks[-1][0] += count
                blocks[-1][1] += made
                blocks[-1][2] += total
        if not blocks:
            raise ValueError("a calibration table needs at least one prediction")
        knots = [(total / count, made / count) for count, made, total in blocks]
        if knots[0][0] > 0.0:
            knots.insert(0, (0.0, 0.0))
        return cls(tuple(knots), dict(source or {}))

    def __call__(self, predicted: float) -> float:
        if not 0.0 <= predicted <= 1.0:
            raise ValueError(f"a predicted P(make) lies in [0, 1], not {predicted!r}")
        knots = self.knots
        if predicted <= knots[0][0]:
            return knots[0][1]
        for (x0, y0), (x1, y1) in zip(knots, knots[1:]):
            if predicted <= x1:
                return y0 + (y1 - y0) * (predicted - x0) / (x1 - x0)
        return knots[-1][1]

    def to_json(self) -> dict:
        return {**self.source, "knots": [[round(x, 6), round(y, 6)] for x, y in self.knots]}


#: The package's measured table (see `bid_calibration`).
BID_CALIBRATION_FILE = "bid_calibration.json"


@functools.lru_cache(maxsize=1)
def bid_calibration() -> CalibrationMap:
    """The calibration `advise(..., calibrated=True)` applies: bid advice's P(make)
    against hint bots playing the hand out (bench/README.md, "Bid advice
    calibration"), shipped with the package in ``solver/data``, with its provenance
    (hands, seed, deals of the advice and of the hints) as the map's ``source``."""
    data = json.loads(resources.files("solver.data").joinpath(BID_CALIBRATION_FILE)
                      .read_text(encoding="utf-8"))
    table = [CalibrationBin(low, high, b["count"], b["made"],
                            (b["predicted"] or 0.0) * b["count"])
             for b in data["bins"] for low, high in [b["bin"]]]
    source = {k: data[k] for k in ("hands", "seed", "mode", "advice_deals", "hint_deals",
                                   "measured")}
    return CalibrationMap.from_table(table, source)


def calibration_markdown(table: list[CalibrationBin]) -> str:
    """The table as Markdown, for bench/README.md."""
    lines = ["| predicted P(make) | hands | mean predicted | observed make rate (95% interval) |",
             "|---|---|---|---|"]
    for b in table:
        if not b.count:
            lines.append(f"| {b.low:.1f}-{b.high:.1f} | 0 | - | - |")
            continue
        low, high = wilson(b.made, b.count)
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
    """One hand: the deal, the contract the advice chose, its prediction and the result."""

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
        return asdict(self)

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "CalibrationRecord":
        return cls(**row)


def _hand_seed(seed: int, hand: int) -> int:
    return seed * 1_000_003 + hand


def play_calibration_hand(hand: int, seed: int, *, mode: str = "bid30", advice_deals: int = 100,
                          hint_deals: int = 30) -> CalibrationRecord | None:
    """Deal hand ``hand`` of run ``seed``, advise the declarer, play it out with hint bots.

    None when ``mode`` is ``"advised"`` and the advice is to pass.
    """
    from .arena import play_hand   # the arena imports the bots (and the hint search)
    from .bots import make_bot
    from .dealer import Dealer
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    hand_seed = _hand_seed(seed, hand)
    deal = Dealer().deal(seed=hand_seed)
    declarer = SEATS[hand % 4]
    advice = advise([T.NAMES[t] for t in deal.hands[hand % 4]], declarer, deals=advice_deals,
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
    bot_seed = hand_seed * 2
    end = play_hand(start, make_bot("hint", bot_seed, hint_deals),
                    make_bot("hint", bot_seed + 7919, hint_deals))
    return CalibrationRecord(
        hand=hand, seed=seed, declarer=declarer, declaration=declaration, bid=int(bid),
        predicted=float(predicted), advice_deals=advice_deals, hint_deals=hint_deals,
        recommendation=advice.recommendation.to_json(),
        hands={SEATS[s]: [T.NAMES[t] for t in h] for s, h in deal.hands.items()},
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

    Each hand is seeded by its index, so the records do not depend on
    ``workers``; ``sink`` gets each record as soon as it is played.
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
        with multiprocessing.get_context("fork").Pool(workers) as pool:
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
    """(P(make) at bid b, points >= b) for every record and every bid b of ``bids``.

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


__all__ = ["CalibrationBin", "CalibrationMap", "CalibrationRecord", "bid_calibration", "bid_chances", "calibrated_p_make",
           "calibration_markdown", "calibration_table", "pairs_of", "pairs_over_bids",
           "play_calibration_hand", "run_calibration"]
