"""The progress callbacks of the long calls: `hint(progress=...)` and
`advise(progress=...)` report every deal scored (every search) against the work planned,
and the CLI's `Meter` holds what they last reported."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from solver import advise, hint
from solver.cli.common import Meter

ROOT = Path(__file__).resolve().parent.parent
VIEW = json.loads((ROOT / "examples" / "view.json").read_text())


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.lock = threading.Lock()

    def __call__(self, done: int, planned: int) -> None:
        with self.lock:
            self.calls.append((done, planned))


def test_hint_reports_every_deal_scored_against_the_deals_planned():
    seen = Recorder()
    h = hint(VIEW, deals=30, seed=4, threads=2, enumerate_limit=0, progress=seen)
    assert h.deals == 30
    assert sorted(seen.calls) == [(k, 30) for k in range(1, 31)]
    # The same answer as without a callback.
    plain = hint(VIEW, deals=30, seed=4, threads=2, enumerate_limit=0)
    assert h.to_json() == plain.to_json()


def test_adaptive_hint_plans_its_budget_and_may_stop_sooner():
    seen = Recorder()
    h = hint(VIEW, deals=20, max_deals=60, adaptive=True, seed=4, threads=1,
             enumerate_limit=0, progress=seen)
    assert [c[1] for c in seen.calls] == [60] * h.deals
    assert [c[0] for c in seen.calls] == list(range(1, h.deals + 1))


def test_inferred_hint_reports_its_deals_too():
    seen = Recorder()
    h = hint(dict(VIEW, auction=[{"seat": "W", "bid": 30}, {"seat": "N", "bid": "pass"},
                                 {"seat": "E", "bid": "pass"}, {"seat": "S", "bid": "pass"}]),
             deals=20, seed=4, threads=1, enumerate_limit=0, inference="auction",
             progress=seen)
    assert h.inference is not None
    assert seen.calls and all(planned == 20 for _, planned in seen.calls)
    assert [c[0] for c in seen.calls] == list(range(1, len(seen.calls) + 1))


def test_advise_reports_every_search():
    seen = Recorder()
    advice = advise("6-6 6-4 5-5 4-4 3-3 2-0 1-1", "N", deals=12, seed=1, threads=2,
                    declarations="fours,sixes,doubles", progress=seen)
    assert advice.deals == 12
    assert sorted(seen.calls) == [(k, 36) for k in range(1, 37)]


def test_meter_holds_the_last_report():
    meter = Meter()
    assert (meter.done, meter.planned) == (0, None)
    meter(3, 10)
    assert (meter.done, meter.planned) == (3, 10)
