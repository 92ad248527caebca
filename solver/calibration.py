"""Calibration of predicted P(make) against what happened at the table.

Double-dummy P(make) assumes both sides see every hand; real play does not.
Given observed pairs (the P(make) bid advice predicted for a contract, and
whether the contract made when the hand was played out, e.g. by bots in an
arena), `calibration_table` bins the predictions (0.0-0.1, ..., 0.9-1.0) and
sets each bin's observed make rate, with a Wilson 95% interval, beside the
mean prediction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .bidding import wilson


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


__all__ = ["CalibrationBin", "calibration_markdown", "calibration_table"]
