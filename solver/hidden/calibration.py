"""Calibration of predicted P(make) against what happened at the table: the map that
bid advice applies.

Double-dummy P(make) assumes both sides see every hand; real play does not.
Given observed pairs (the P(make) bid advice predicted for a contract, and
whether the contract made when the hand was played out, e.g. by bots in an
arena), `calibration_table` bins the predictions (0.0-0.1, ..., 0.9-1.0) and
sets each bin's observed make rate, with a Wilson 95% interval, beside the
mean prediction; `CalibrationMap` turns such a table into a monotone map, and
`bid_calibration` is the one shipped with the package. The pairs are measured
by `solver.play.calibration_run`.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass, field
from importlib import resources
from typing import Iterable, Sequence

from .stats import wilson_interval


@dataclass(frozen=True)
class CalibrationBin:
    """Predictions in [low, high) (the last bin includes 1.0) and how they came out.

    Attributes:
        low: The bin's lowest predicted P(make).
        high: Its upper end (excluded, but for the last bin's 1.0).
        count: Predictions in the bin.
        made: ... of which the contract made.
        predicted_sum: The sum of the predictions (their mean is this over count)."""

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
        low, high = wilson_interval(self.made, self.count)
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


@dataclass(frozen=True)
class CalibrationScores:
    """How well predictions fit what happened, each with a bootstrap 95% interval.

    Attributes:
        pairs: The (predicted, made) pairs scored.
        brier: The Brier score: the mean of (predicted - made)**2 (0 is perfect).
        ece: The expected calibration error: over the ten bins of `calibration_table`,
            the mean of |mean predicted - make rate|, each bin weighed by its pairs.
        brier_interval, ece_interval: The 2.5% and 97.5% points of each over
            ``resamples`` bootstrap resamples of the pairs.
        mean_predicted, made_rate: The mean prediction and the make rate.
        bins_outside: The bins of at least `MIN_BIN` pairs whose mean prediction lies
            outside the Wilson 95% interval of their make rate.
        outside_if_calibrated: Bins outside on average when every contract makes with
            exactly its predicted chance (outcomes drawn ``resamples`` times): with ten
            bins each held to a 95% interval, a perfect prediction misses some by chance.
        all_inside_if_calibrated: The share of those draws with no bin outside.
        p_outside: The share of those draws with at least as many bins outside as
            ``bins_outside`` (a small share: more misses than chance explains)."""

    pairs: int
    brier: float
    brier_interval: tuple[float, float]
    ece: float
    ece_interval: tuple[float, float]
    mean_predicted: float
    made_rate: float
    bins_outside: tuple[tuple[float, float], ...]
    outside_if_calibrated: float
    all_inside_if_calibrated: float
    p_outside: float

    def to_json(self) -> dict:
        return {"pairs": self.pairs, "brier": self.brier,
                "brier_interval": list(self.brier_interval), "ece": self.ece,
                "ece_interval": list(self.ece_interval),
                "mean_predicted": self.mean_predicted, "made_rate": self.made_rate,
                "bins_outside": [list(b) for b in self.bins_outside],
                "outside_if_calibrated": self.outside_if_calibrated,
                "all_inside_if_calibrated": self.all_inside_if_calibrated,
                "p_outside": self.p_outside}


#: A bin is held to its interval only with at least this many pairs.
MIN_BIN = 30


def _brier(pairs: Sequence[tuple[float, bool]]) -> float:
    return sum((p - (1.0 if made else 0.0)) ** 2 for p, made in pairs) / len(pairs)


def _ece(pairs: Sequence[tuple[float, bool]]) -> float:
    table = calibration_table(pairs)
    return sum(abs(b.predicted_sum - b.made) for b in table) / len(pairs)


def _bins_outside(pairs: Sequence[tuple[float, bool]]) -> list[tuple[float, float]]:
    outside = []
    for b in calibration_table(pairs):
        if b.count >= MIN_BIN:
            low, high = wilson_interval(b.made, b.count)
            if not low <= b.predicted <= high:
                outside.append((b.low, b.high))
    return outside


def calibration_scores(pairs: Iterable[tuple[float, bool]], resamples: int = 2000,
                       seed: int = 0) -> CalibrationScores:
    """The Brier score and expected calibration error of (predicted P(make), made) pairs,
    with percentile bootstrap intervals, the bins that miss their interval, and how many
    a perfectly calibrated prediction would miss by chance.

    Args:
        pairs: (predicted P(make), made) pairs.
        resamples: Bootstrap resamples for the intervals, and draws of outcomes at the
            predicted chances for the misses by chance.
        seed: Seeds the resampling (the same seed, the same intervals)."""
    pairs = list(pairs)
    if not pairs:
        raise ValueError("no pairs to score")
    rng = random.Random(seed)
    n = len(pairs)
    briers, eces = [], []
    for _ in range(resamples):
        sample = [pairs[rng.randrange(n)] for _ in range(n)]
        briers.append(_brier(sample))
        eces.append(_ece(sample))

    def interval(xs: list[float]) -> tuple[float, float]:
        xs = sorted(xs)
        return xs[int(0.025 * (len(xs) - 1))], xs[int(0.975 * (len(xs) - 1))]
    outside = _bins_outside(pairs)
    # The same predictions, each contract made with exactly its predicted chance.
    chance = [len(_bins_outside([(p, rng.random() < p) for p, _ in pairs]))
              for _ in range(resamples)]
    return CalibrationScores(n, _brier(pairs), interval(briers), _ece(pairs),
                             interval(eces), sum(p for p, _ in pairs) / n,
                             sum(1 for _, m in pairs if m) / n, tuple(outside),
                             sum(chance) / resamples,
                             sum(1 for k in chance if k == 0) / resamples,
                             sum(1 for k in chance if k >= len(outside)) / resamples)


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


#: The package's measured tables (see `bid_calibration`): of double-dummy P(make), and
#: of P(make) with one opening lead for every deal.
BID_CALIBRATION_FILE = "bid_calibration.json"
FIXED_LEAD_CALIBRATION_FILE = "bid_calibration_fixed_lead.json"


def calibration_map_of(data: dict) -> CalibrationMap:
    """The map of a shipped table: ``data`` is its JSON (``bins``, each with its
    ``count``, ``made`` and mean ``predicted``, and the provenance: hands, seed, ...)."""
    table = [CalibrationBin(low, high, b["count"], b["made"],
                            (b["predicted"] or 0.0) * b["count"])
             for b in data["bins"] for low, high in [b["bin"]]]
    keys = ("hands", "seed", "mode", "advice_deals", "hint_deals", "measured", "fixed_lead")
    return CalibrationMap.from_table(table, {k: data[k] for k in keys if k in data})


@functools.lru_cache(maxsize=2)
def bid_calibration(fixed_lead: bool = False) -> CalibrationMap:
    """The calibration `advise(..., calibrated=True)` applies: bid advice's P(make) at
    each hand's winning bid against the contract's result in games of advice bots
    (bench/README.md, "Bid advice calibration"), shipped with the package in
    ``solver/hidden/data``, with its provenance (hands, seed, mode, deals of the
    advice and of the bots' plays, the day) as the map's ``source``. ``fixed_lead``:
    the map measured on P(make) with one opening lead for every deal (its source
    says ``"fixed_lead": true``), which the lower fixed-lead figures need: the
    double-dummy map would take trick 1's optimism out of them twice."""
    name = FIXED_LEAD_CALIBRATION_FILE if fixed_lead else BID_CALIBRATION_FILE
    data = json.loads(resources.files("solver.hidden.data").joinpath(name)
                      .read_text(encoding="utf-8"))
    return calibration_map_of(data)


__all__ = ["BID_CALIBRATION_FILE", "FIXED_LEAD_CALIBRATION_FILE", "MIN_BIN", "CalibrationBin",
           "CalibrationMap", "CalibrationScores", "bid_calibration", "calibrated_p_make",
           "calibration_map_of", "calibration_scores", "calibration_table"]
