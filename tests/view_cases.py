"""The view cases (tests/cases/views.jsonl, views_bad.jsonl) as pytest parameters.

Shared by every module that tests views: the Python API, the CLI, the
service and the hint. ``views.jsonl`` lines hold a view and its exact
figures from an independent brute-force reference (``count``,
``to_move``, ``side``, ``tile_probabilities``, and for kind ``hint``
``moves`` and ``best_*``), rounded to 1e-9; ``views_bad.jsonl`` lines hold
views that must be refused (``expect.applies_to``: ``view`` or ``hint``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CASES_DIR = Path(__file__).parent / "cases"
#: Figures in the case files are rounded to this.
TOLERANCE = 1e-9


def read_cases(filename: str) -> list[dict]:
    with open(CASES_DIR / filename, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def view_cases(kind: str | None = None) -> list:
    """The good views (optionally only those of one ``kind``) as pytest params, id = case id."""
    return [pytest.param(case, id=case["id"]) for case in read_cases("views.jsonl")
            if kind is None or case["kind"] == kind]


def bad_view_cases(applies_to: str | None = None) -> list:
    """The views to refuse (optionally only those refused at ``applies_to`` level)."""
    return [pytest.param(case, id=case["id"]) for case in read_cases("views_bad.jsonl")
            if applies_to is None or case["expect"]["applies_to"] == applies_to]


def assert_probabilities_match(got: dict, expected: dict, tolerance: float = TOLERANCE) -> None:
    """Same tiles, same places per tile, every probability within ``tolerance``."""
    assert sorted(got) == sorted(expected)
    for tile, places in expected.items():
        assert sorted(got[tile]) == sorted(places), tile
        for place, p in places.items():
            assert got[tile][place] == pytest.approx(p, abs=tolerance), (tile, place)
