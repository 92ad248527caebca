"""Hints and bid advice under hostile counts and time limits: bounded work, no hang.

The counts of a call (a hint's ``deals``, ``enumerate_limit`` and ``max_deals``,
bid advice's ``deals``) are bounded and refused with the error contract beyond
the bound; the deals are drawn or enumerated in batches and a cancelled call or
one past its deadline stops within one batch, while it draws too; the command
line refuses NaN, negative and huge values in one line; the service refuses
out-of-range numbers with a field violation and frees its worker at the
deadline. Nothing here depends on how fast the machine is: draws are counted,
a call is stopped from inside its own drawing, and the service's searches are
held open (the `hold` fixture of conftest.py) until their deadline.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_helpers import assert_invalid, bad_request, connect_json, scrape, wait_for

import solver.hidden.bidding as bidding
import solver.hidden.hint as hint_module
from server.convert import view_from_json
from server.launcher import ServerProcess
from solver import CancelToken, PositionError, SearchCancelled
from solver.game.view import View
from solver.hidden.bidding import DEAL_BATCH, MAX_DEALS, advise
from solver.hidden.deals import MAX_ENUMERATION_LIMIT
from solver.hidden.hint import DRAW_BATCH, hint
from texas42.v1 import bidding_pb2 as bid_pb
from texas42.v1 import hand_analysis_pb2 as hand_pb
from texas42.v1 import hint_pb2
from texas42.v1 import hint_service_pb2_grpc as service_grpc
from texas42.v1 import position_pb2 as pb
from view_cases import read_cases

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60  # a guard against a hang, not a speed check
CASES = {c["id"]: c for c in read_cases("views.jsonl")}
BIG = CASES["views-2026-follow-me-high-5"]["view"]          # 34,650 consistent deals
#: Its adaptive hint with 2 deals a round runs about 1,400 rounds before the lead is clear.
SLOW_TO_CLEAR = CASES["views-2026-nello-low-4"]["view"]
#: The opening lead: 399,072,960 consistent deals.
OPENING = {"seat": "N", "hands": {"N": ["6-6", "6-5", "6-4", "6-1", "5-5", "4-4", "2-0"]},
           "contract": {"declarer": "N", "trump": "sixes", "bid": 30}, "plays": []}
HAND = ["6-6", "6-4", "5-5", "4-4", "3-3", "2-0", "1-1"]
UINT32_MAX = 2 ** 32 - 1
#: CPU seconds the server may spend on a call held until its deadline, from the call to
#: the worker idle again: the Done-when bound. Stopping at once takes milliseconds;
#: drawing 100,000 deals, as a hint did before it looked at its deadline, takes seconds.
IDLE_CPU = 0.5


def cancelled_token() -> CancelToken:
    token = CancelToken()
    token.cancel()
    return token


# ---------------------------------------------------------------- the Python API


@pytest.mark.parametrize("options, field", [
    (dict(deals=MAX_DEALS + 1), "deals"),
    (dict(deals=0), "deals"),
    (dict(deals=-1), "deals"),
    (dict(deals=True), "deals"),
    (dict(deals=2.0), "deals"),
    (dict(enumerate_limit=MAX_ENUMERATION_LIMIT + 1), "enumerate_limit"),
    (dict(enumerate_limit=-1), "enumerate_limit"),
    (dict(adaptive=True, max_deals=0), "max_deals"),
    (dict(adaptive=True, max_deals=-1), "max_deals"),
    (dict(adaptive=True, max_deals=MAX_DEALS + 1), "max_deals"),
    (dict(adaptive=True, deals=50, max_deals=49), "max_deals"),
    (dict(timeout=math.nan), "timeout"),
    (dict(timeout=-1.0), "timeout"),
    (dict(timeout=-math.inf), "timeout"),
    (dict(timeout="1"), "timeout"),
])
def test_hint_counts_and_timeouts_out_of_range_are_refused(options, field):
    # The token is spent: a call that went ahead would stop (SearchCancelled), not hang.
    with pytest.raises(PositionError) as err:
        hint(BIG, token=cancelled_token(), threads=1, **options)
    assert err.value.field == field and err.value.code == "INVALID_VALUE"
    assert len(str(err.value)) < 200


@pytest.mark.parametrize("timeout", [math.inf, 1e300, 10 ** 400])
def test_hint_takes_an_endless_or_huge_timeout_as_none(timeout):
    got = hint(BIG, deals=3, seed=2, threads=1, timeout=timeout)
    assert got.to_json() == hint(BIG, deals=3, seed=2, threads=1).to_json()


def test_the_largest_counts_are_accepted():
    h = hint(BIG, deals=4, seed=1, adaptive=True, max_deals=MAX_DEALS,
             enumerate_limit=0, threads=1)
    assert h.method == "sampled" and 4 <= h.deals <= MAX_DEALS


class CountingDraws:
    """Wraps a view's table: counts the deals drawn (and enumerated) and calls ``at(n)``
    after the n-th, from inside the hint's own drawing."""

    def __init__(self, view: View, at) -> None:
        self.drawn = 0
        self.at = at
        table = view.completions
        sample, enumerate_all = table.sample, table.enumerate

        def counted_sample(rng):
            places = sample(rng)
            self._count()
            return places

        def counted_enumerate():
            for places in enumerate_all():
                yield places
                self._count()

        table.sample = counted_sample
        table.enumerate = counted_enumerate

    def _count(self) -> None:
        self.drawn += 1
        self.at(self.drawn)


@pytest.mark.parametrize("how", ["cancel", "deadline"])
def test_a_hint_stopped_while_it_draws_stops_within_one_batch(how):
    view = View(OPENING)
    token = CancelToken()

    def at(n: int) -> None:
        if n == 10:
            if how == "cancel":
                token.cancel()
            else:
                token.deadline = 0.0   # a time already past: the deadline passes here

    draws = CountingDraws(view, at)
    with pytest.raises(SearchCancelled):
        hint(view, deals=MAX_DEALS, seed=1, token=token, threads=1)
    assert draws.drawn <= DRAW_BATCH


def test_an_enumerating_hint_cancelled_while_it_enumerates_stops_within_one_batch():
    view = View(BIG)
    token = CancelToken()
    draws = CountingDraws(view, lambda n: token.cancel() if n == 10 else None)
    with pytest.raises(SearchCancelled):
        hint(view, enumerate_limit=MAX_DEALS, token=token, threads=1)
    assert draws.drawn <= DRAW_BATCH


def test_a_hint_cancelled_from_another_thread_ends_its_threads():
    """Cancelled once its threads score the first batch and draw the second: the hint
    raises and every thread it started has ended (the join is a guard, not a timing)."""
    view = View(OPENING)
    token = CancelToken()
    reached, resume = threading.Event(), threading.Event()

    def at(n: int) -> None:
        if n == DRAW_BATCH + 1:          # the first deal of the second batch
            reached.set()
            resume.wait(TIMEOUT)

    draws = CountingDraws(view, at)
    outcome: list = []
    threads_before = threading.active_count()

    def run() -> None:
        try:
            outcome.append(hint(view, deals=MAX_DEALS, seed=3, token=token, threads=2))
        except SearchCancelled as exc:
            outcome.append(exc)

    caller = threading.Thread(target=run)
    caller.start()
    assert reached.wait(TIMEOUT)
    token.cancel()
    resume.set()
    caller.join(TIMEOUT)
    assert not caller.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], SearchCancelled)
    assert draws.drawn <= 2 * DRAW_BATCH
    assert wait_for(lambda: threading.active_count() == threads_before)


def test_an_adaptive_hint_reads_each_row_once_per_pair_of_moves(monkeypatch):
    """The lead check adds the new rows to running sums: an adaptive hint of many small
    rounds costs its deals, not its deals times its rounds."""
    calls = [0]
    row_key = hint_module._Ranking.row_key

    def counted(self, made, value):
        calls[0] += 1
        return row_key(self, made, value)

    monkeypatch.setattr(hint_module._Ranking, "row_key", counted)
    h = hint(SLOW_TO_CLEAR, deals=2, adaptive=True, max_deals=3000, enumerate_limit=0,
             seed=1, threads=1)
    rounds = h.deals // 2
    assert rounds > 500
    pairs = len(h.moves) * (len(h.moves) - 1)
    assert calls[0] <= 2 * h.deals * pairs      # before: about rounds * deals (4 million)


def test_bid_advice_stopped_while_it_deals_stops_within_one_batch(monkeypatch):
    token = CancelToken()
    dealt = [0]
    as_deal = bidding._as_deal     # every deal drawn passes through it

    def counted(deal):
        dealt[0] += 1
        if dealt[0] == 10:
            token.cancel()
        return as_deal(deal)

    monkeypatch.setattr(bidding, "_as_deal", counted)
    with pytest.raises(SearchCancelled):
        advise(HAND, "N", deals=MAX_DEALS, seed=1, token=token, threads=1)
    assert dealt[0] <= DEAL_BATCH


@pytest.mark.parametrize("deadline", [math.nan, -1.0, -math.inf])
def test_bid_advice_refuses_a_bad_timeout(deadline):
    with pytest.raises(PositionError) as err:
        advise(HAND, "N", deals=2, seed=1, deadline=deadline)
    assert err.value.field == "timeout"


def test_bid_advice_takes_a_huge_timeout_as_none():
    got = advise(HAND, "N", deals=2, seed=1, deadline=10 ** 400, threads=1).to_json()
    want = advise(HAND, "N", deals=2, seed=1, threads=1).to_json()
    got.pop("seconds"), want.pop("seconds")
    assert got == want


# ------------------------------------------------------------------ the command line


def t42(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=ROOT)


VIEW = str(ROOT / "examples" / "view.json")
HUGE = "9" * 5000


@pytest.mark.parametrize("args, option", [
    (["hint", "--deals", "1000000000", "--timeout", "2", VIEW], "--deals"),
    (["hint", "--deals", "0", VIEW], "--deals"),
    (["hint", "--deals", "-1", VIEW], "--deals"),
    (["hint", "--enumerate-limit", "1000000000", VIEW], "--enumerate-limit"),
    (["hint", "--enumerate-limit", "-1", VIEW], "--enumerate-limit"),
    (["hint", "--adaptive", "--max-deals", "0", VIEW], "--max-deals"),
    (["hint", "--adaptive", "--max-deals", "-1", VIEW], "--max-deals"),
    (["hint", "--adaptive", "--max-deals", "1000000000", VIEW], "--max-deals"),
    (["hint", "--examples", "-1", VIEW], "--examples"),
    (["hint", "--timeout", "nan", VIEW], "--timeout"),
    (["hint", "--timeout", "-1", VIEW], "--timeout"),
    (["hint", "--timeout=-inf", VIEW], "--timeout"),
    (["bid", "--timeout", "nan", *HAND], "--timeout"),
    (["bid", "--timeout", "-5", *HAND], "--timeout"),
    (["bid", "--deals", "1000000000", *HAND], "--deals"),
    (["bid", "--deals", "0", *HAND], "--deals"),
    (["bid", "--auction", f"30,{HUGE}", *HAND], "--auction"),
    (["bid", "--auction", HUGE, *HAND], "--auction"),
    (["bid", "--threshold", "nan", *HAND], "threshold"),
    (["bid", "--threshold", "inf", *HAND], "threshold"),
    (["bid", "--seed", "-1", *HAND], "seed"),
], ids=lambda v: " ".join(v)[:60] if isinstance(v, list) else v)
def test_cli_refuses_bad_numbers_in_one_line(args, option):
    done = t42(*args)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300, done.stderr[-2000:]
    assert lines[0].startswith(f"t42: error: {option}")
    assert done.stdout == ""


@pytest.mark.parametrize("args", [
    ["hint", "--deals", "3", "--seed", "1", "--timeout", "inf", "--json", VIEW],
    ["hint", "--deals", "3", "--seed", "1", "--timeout", "1e400", "--json", VIEW],
    ["bid", "--deals", "2", "--seed", "1", "--timeout", "inf", "--json", *HAND],
    ["bid", "--deals", "2", "--seed", "1", "--auction", "30,pass,0031", "--json", *HAND],
])
def test_cli_takes_an_endless_timeout_and_short_numbers(args):
    done = t42(*args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["deals"] in (2, 3)


# ------------------------------------------------------------------------ the service


@pytest.fixture(scope="module")
def server(hold):
    with ServerProcess("--workers", "2", "--metrics-port", "0", "--http-port", "0",
                       env=hold.env) as proc:
        yield proc


@pytest.fixture(scope="module")
def stub(server):
    with grpc.insecure_channel(server.address) as channel:
        yield service_grpc.HintServiceStub(channel)


def hint_request(view: dict = OPENING, **options) -> hint_pb2.HintRequest:
    return hint_pb2.HintRequest(view=view_from_json(view), **options)


def bid_request(**fields) -> bid_pb.BidAdviceRequest:
    base = dict(hand=HAND, seat=pb.SEAT_NORTH, deals=2, seed=5,
                declarations=[bid_pb.BidDeclaration(declaration=pb.DECLARATION_SIXES)])
    base.update(fields)
    return bid_pb.BidAdviceRequest(**base)


def jobs(server: ServerProcess, outcome: str) -> float:
    return scrape(server.metrics_port).get(f't42_solver_jobs_total{{outcome="{outcome}"}}', 0.0)


def idle(server: ServerProcess) -> bool:
    return scrape(server.metrics_port).get("t42_solver_busy_workers") == 0


def cpu_seconds(server: ServerProcess) -> float:
    """User plus system CPU time of the server process, every thread."""
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(server: ServerProcess) -> float:
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.parametrize("options, field", [
    (dict(deals=UINT32_MAX), "deals"),
    (dict(deals=MAX_DEALS + 1), "deals"),
    (dict(enumerate_limit=UINT32_MAX), "enumerate_limit"),
    (dict(adaptive=True, max_deals=UINT32_MAX), "max_deals"),
    (dict(adaptive=True, deals=50, max_deals=49), "max_deals"),
])
def test_hint_counts_out_of_range_are_invalid_argument(stub, options, field):
    # A 3 s deadline: a call that went ahead would end DEADLINE_EXCEEDED, not refused.
    assert_invalid(lambda: stub.Hint(hint_request(**options), timeout=3), field,
                   "INVALID_VALUE")


@pytest.mark.parametrize("fields, field, code", [
    (dict(auction=[hand_pb.AuctionCall(seat=99, bid=30)]), "auction[0].seat", "UNKNOWN_SEAT"),
    (dict(auction=[hand_pb.AuctionCall(seat=pb.SEAT_EAST, bid=30),
                   hand_pb.AuctionCall(seat=-1, bid=0)]), "auction[1].seat", "UNKNOWN_SEAT"),
    # Three-player Moon has no West.
    (dict(game=pb.GAME_MOON, players=3, hand=["6-6", "6-4", "5-5", "4-4", "3-3", "0-0", "1-1"],
          declarations=[], auction=[hand_pb.AuctionCall(seat=pb.SEAT_WEST, bid=4)]),
     "auction[0].seat", "UNKNOWN_SEAT"),
    (dict(deals=UINT32_MAX), "deals", "INVALID_VALUE"),
    (dict(players=UINT32_MAX), "players", "INVALID_VALUE"),
    (dict(auction=[hand_pb.AuctionCall(seat=pb.SEAT_EAST, bid=UINT32_MAX)]), "auction[0].bid",
     "BID_OUT_OF_RANGE"),
    (dict(threshold=math.nan), "threshold", "INVALID_VALUE"),
])
def test_bid_advice_numbers_out_of_range_are_invalid_argument(stub, fields, field, code):
    assert_invalid(lambda: stub.BidAdvice(bid_request(**fields), timeout=3), field, code)


def test_bid_advice_auction_with_seats_is_answered(stub):
    answer = stub.BidAdvice(bid_request(auction=[
        hand_pb.AuctionCall(seat=pb.SEAT_EAST, bid=30),
        hand_pb.AuctionCall(seat=pb.SEAT_SOUTH, bid=0),
        hand_pb.AuctionCall(bid=31)]), timeout=TIMEOUT).advice
    assert answer.highest_bid == 31 and answer.deals == 2


@pytest.mark.parametrize("rpc", ["Hint", "BidAdvice"])
def test_a_held_call_at_its_deadline_frees_its_worker_at_once(server, stub, hold, rpc):
    """The call is held on its worker until its deadline; then it must stop at once (not
    draw its 100,000 deals first): DEADLINE_EXCEEDED, the job cancelled, the worker idle,
    and hardly any CPU spent."""
    call = {"Hint": lambda: stub.Hint(hint_request(deals=MAX_DEALS), timeout=1.0),
            "BidAdvice": lambda: stub.BidAdvice(bid_request(deals=MAX_DEALS), timeout=1.0)}[rpc]
    wait_for(lambda: idle(server))
    cancelled = jobs(server, "cancelled")
    cpu = cpu_seconds(server)
    with hold:
        with pytest.raises(grpc.RpcError) as err:
            call()
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        wait_for(lambda: jobs(server, "cancelled") == cancelled + 1 and idle(server))
    assert cpu_seconds(server) - cpu < IDLE_CPU


def test_a_connect_call_past_its_timeout_is_answered(server, hold):
    """Connect-Timeout-Ms is the call's deadline: a held hint of 100,000 deals is answered
    deadline_exceeded, and one of 2**32-1 deals is refused with its field."""
    def post(request: hint_pb2.HintRequest) -> tuple[int, dict]:
        return connect_json(server, "Hint", request, {"Connect-Timeout-Ms": "1000"})

    wait_for(lambda: idle(server))
    with hold:
        status, error = post(hint_request(deals=MAX_DEALS))
        assert (status, error["code"]) == (504, "deadline_exceeded")
        status, error = post(hint_request(deals=UINT32_MAX))
        assert (status, error["code"]) == (400, "invalid_argument")
        assert error["message"].startswith("deals: ")
    wait_for(lambda: idle(server))


def test_200_concurrent_oversized_hints_leave_the_server_healthy(server, stub, hold):
    """200 hints of 2**32-1 deals are refused at once; 200 of the largest sample, held
    until their deadline, are answered DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED (the
    queue is bounded) and stop at once; memory stays bounded and the server serves."""
    wait_for(lambda: idle(server))
    rss = rss_mb(server)
    with hold:
        refused = [stub.Hint.future(hint_request(deals=UINT32_MAX), timeout=TIMEOUT)
                   for _ in range(200)]
        codes = [f.exception().code() for f in refused]
        assert codes == [grpc.StatusCode.INVALID_ARGUMENT] * 200
        assert bad_request(refused[0].exception())[0][0][0] == "deals"

        largest = [stub.Hint.future(hint_request(deals=MAX_DEALS), timeout=2.0)
                   for _ in range(200)]
        codes = [f.exception().code() for f in largest]
        assert set(codes) <= {grpc.StatusCode.DEADLINE_EXCEEDED,
                              grpc.StatusCode.RESOURCE_EXHAUSTED}
        assert codes.count(grpc.StatusCode.DEADLINE_EXCEEDED) >= 2   # at least one per worker
        wait_for(lambda: idle(server))
    assert rss_mb(server) - rss < 100
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT).status == \
            health_pb2.HealthCheckResponse.SERVING
    answer = stub.Hint(hint_request(BIG, deals=5, seed=1), timeout=TIMEOUT)
    assert answer.deals == 5 and server.process.poll() is None
