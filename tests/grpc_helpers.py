"""Helpers shared by the service tests: polling, metrics scraping, seeded deals."""

from __future__ import annotations

import random
import time
import urllib.request
from typing import Callable, Optional, TypeVar

from server.convert import position_from_json
from solver.tiles import NAMES
from texas42.v1 import position_pb2 as pb

T = TypeVar("T")


def wait_for(probe: Callable[[], Optional[T]], attempts: int = 400, pause: float = 0.05) -> T:
    """Poll ``probe`` until it returns something truthy (servers log and count asynchronously)."""
    for _ in range(attempts):
        value = probe()
        if value:
            return value
        time.sleep(pause)
    raise AssertionError("condition not reached")


def scrape(port: int) -> dict[str, float]:
    """Prometheus samples of ``/metrics`` as {'name{labels}': value}."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def full_deals(count: int, seed: int) -> list[pb.Position]:
    """Seeded random deals from the opening lead, declarer's longest suit as trump."""
    rng = random.Random(seed)
    pips = ("blanks", "ones", "deuces", "treys", "fours", "fives", "sixes")
    out = []
    for _ in range(count):
        tiles = list(NAMES)
        rng.shuffle(tiles)
        hands = {seat: tiles[7 * i:7 * i + 7] for i, seat in enumerate("NESW")}
        declarer = rng.choice("NESW")
        length = [sum(str(p) in t for t in hands[declarer]) for p in range(7)]
        trump = max(range(7), key=lambda p: (length[p], p))
        out.append(position_from_json({"hands": hands, "contract": {
            "declarer": declarer, "trump": pips[trump], "bid": 30}}))
    return out
