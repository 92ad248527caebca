"""Bid advice's deals: what one draw costs, and what bid advice costs in all.

* one draw: 2,000 deals of the other hands drawn as `advise` draws them
  (`bidding._deal_batch`, no inference) for each of 50 seeded hands, 42 (N's hand)
  and three-player Moon (E's hand, the widow dealt too); CPU per draw, median over the
  hands;
* one draw with the auction: the same through the pool of auction inference
  (``inference="auction"``; W's hand after N bid 30, E passed and S bid 31): each
  draw weighed by the call model, 100 deals picked a round; CPU per deal drawn;
* bid advice, every declaration: `advise` with 200 deals (one thread, so its time
  is CPU), without inference and with the auction above, for the first
  ``BID_BENCH_HANDS`` (default 20) of the hands; CPU per hand, median, the part of it
  spent dealing (in `_deal_batch`), and the nodes searched, which do not depend on the
  machine's load (the rest of the CPU over the nodes: the search's cost a node, which
  the load moves).

    python -m pytest bench/test_bid_deals_bench.py --benchmark-enable -s
"""

from __future__ import annotations

import os
import statistics
import time

import pytest

from solver.game.bid_request import read_bid_request
from solver.game.position import MOON3_SET
from solver.game.tiles import NAMES
from solver.hidden import bidding
from solver.hidden.bidding import advise
from solver.hidden.inference import AuctionWeigher, calls_seen, read_inference

from test_bidding_bench import seeded_hands

HANDS = int(os.environ.get("BID_BENCH_HANDS", "20"))
DRAWS = 2000
#: N bid 30, E passed, S bid 31: W's view of the auction (the calls before its turn).
AUCTION = [30, "pass", 31]
MOON_TILES = [NAMES[t] for t in sorted(MOON3_SET)]


def per_draw(game: str, auction: bool) -> dict:
    cpu = []
    for i, hand in enumerate(seeded_hands(50, tile_set=NAMES if game == "42" else MOON_TILES)):
        seat = "W" if auction else "N" if game == "42" else "E"
        setup = read_bid_request(hand, seat, game, 4 if game == "42" else 3,
                                 AUCTION if auction else None, "high", 0.75, None)
        weigher = None
        if auction:
            weigher = AuctionWeigher(read_inference("auction").calls,
                                     calls_seen(AUCTION, setup.seat))
        draws = bidding._draws(setup, i, weigher)
        pool = draws if auction else None
        start = time.process_time()
        drawn = 0
        while drawn < DRAWS:
            drawn += bidding._deal_batch(draws, setup, 100 if auction else DRAWS, None,
                                         pool)[2]
        cpu.append((time.process_time() - start) / drawn * 1e6)
    return {"hands": len(cpu), "draws_per_hand": DRAWS, "median_cpu_us": statistics.median(cpu),
            "max_cpu_us": max(cpu)}


@pytest.mark.parametrize("game,auction", [("42", False), ("moon", False), ("42", True)],
                         ids=["42", "moon3", "42-auction"])
def test_one_draw(benchmark, game, auction):
    stats = benchmark.pedantic(per_draw, args=(game, auction), rounds=1, iterations=1)
    benchmark.extra_info.update(stats, load_average=os.getloadavg()[0])
    print(f"\n{benchmark.name}: {stats['median_cpu_us']:.2f} us CPU per draw (median of "
          f"{stats['hands']} hands, slowest {stats['max_cpu_us']:.2f} us), load average "
          f"{os.getloadavg()[0]:.2f}")


def per_advice(auction: bool) -> dict:
    cpu, wall, nodes, drawn, dealing = [], [], [], [], []
    spent = [0.0]
    deal_batch = bidding._deal_batch

    def timed(*args, **kwargs):
        """`_deal_batch`, its CPU time added up: the part of the advice that deals."""
        start = time.process_time()
        try:
            return deal_batch(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - start

    bidding._deal_batch = timed
    try:
        for i, hand in enumerate(seeded_hands(HANDS)):
            spent[0] = 0.0
            start, start_cpu = time.perf_counter(), time.process_time()
            advice = advise(hand, "W" if auction else "N", deals=200, seed=i, threads=1,
                            auction=AUCTION if auction else None,
                            inference="auction" if auction else None)
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            dealing.append(spent[0])
            nodes.append(advice.nodes)
            drawn.append(advice.inference.drawn if advice.inference else advice.deals)
    finally:
        bidding._deal_batch = deal_batch
    return {"hands": HANDS, "median_cpu_s": statistics.median(cpu),
            "total_cpu_s": sum(cpu), "median_wall_s": statistics.median(wall),
            "median_dealing_cpu_ms": 1000 * statistics.median(dealing),
            "total_dealing_cpu_s": sum(dealing),
            "median_nodes": statistics.median(nodes), "total_nodes": sum(nodes),
            "ns_per_node": 1e9 * (sum(cpu) - sum(dealing)) / sum(nodes),
            "median_drawn": statistics.median(drawn)}


@pytest.mark.parametrize("auction", [False, True], ids=["uniform", "auction"])
def test_advice_every_declaration(benchmark, auction):
    stats = benchmark.pedantic(per_advice, args=(auction,), rounds=1, iterations=1)
    benchmark.extra_info.update(stats, load_average=os.getloadavg()[0])
    print(f"\n{benchmark.name}: {stats['hands']} hands x 200 deals, every declaration: "
          f"median {stats['median_cpu_s'] * 1000:.0f} ms CPU (total "
          f"{stats['total_cpu_s']:.2f} s), of which dealing median "
          f"{stats['median_dealing_cpu_ms']:.1f} ms (total {stats['total_dealing_cpu_s']:.3f} s); "
          f"nodes median {stats['median_nodes']:,.0f} (total {stats['total_nodes']:,}), "
          f"{stats['ns_per_node']:.1f} ns CPU a node besides dealing; deals drawn median "
          f"{stats['median_drawn']:,.0f}; load average {os.getloadavg()[0]:.2f}")
