"""The game page at a table the server keeps, in a real headless Chromium, at the desktop
and the phone size: a reload resumes the game (ResumeTable), a hand whose outcome is
decided plays itself out, the bots' calls and plays are shown with their figures after
the hand, and a server that no longer knows the table (restarted without its database)
offers to deal the hand again with the game kept. Skipped, with the reason, when
Playwright or Chromium is missing."""

from __future__ import annotations

import socket

import pytest
from test_web_play import DESKTOP, PHONE, Table, act, check_advice, js_round, settle, shown_hint

from server.launcher import ServerProcess

SIZES = {"desktop": DESKTOP, "phone": PHONE}


def start_sealed(t: Table, bot: str = "rule") -> None:
    """A new game at a sealed table (no game seed), no pause after the bots."""
    page = t.page
    page.check("input[name='game'][value='42']")
    page.select_option("#seat", "S")
    page.select_option("#bot", bot)
    page.fill("#game-seed", "")
    page.fill("#pause", "0")
    page.click("#start")


def play_until(t: Table, done, limit: int = 400, next_hands: bool = False) -> str:
    """The person's moves until ``done(state)``; returns the state. The person bids when
    it may, so the hand is never thrown in (all four passing would end it unplayed).
    With ``next_hands``, a hand that ends first (a decided hand plays itself out, and
    may do so before the state waited for) is followed by the next one."""
    for _ in range(limit):
        state = settle(t.page)
        assert state != "error", t.page.inner_text("#error")
        if done(state):
            return state
        if state == "hand-over" and next_hands:
            hand = int(t.page.get_attribute("body", "data-hand"))
            t.page.click("#next-hand")
            t.page.wait_for_selector(f"body[data-hand='{hand + 1}']")
            continue
        assert state not in ("hand-over", "game-over"), f"the hand ended first ({state})"
        act(t, state, False, 1)
    raise AssertionError("never reached")


@pytest.fixture
def page_table(browser):
    tables: list[Table] = []

    def make(server, size: str) -> Table:
        t = Table(browser, server, SIZES[size])
        tables.append(t)
        return t
    yield make
    for t in tables:
        t.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_reload_resumes_the_game(page_table, web_server, size):
    t = page_table(web_server, size)
    t.open()
    start_sealed(t)
    page = t.page
    assert page.is_hidden("#practice-note")   # no seed: a sealed table
    play_until(t, lambda s: s == "play" and
               len(page.evaluate("T42Play.state().record.hands.at(-1).plays")) >= 5,
               next_hands=True)
    before = page.evaluate("T42Play.state()")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    state = settle(page)
    assert state == "play", page.inner_text("#error")
    after = page.evaluate("T42Play.state()")
    hand_before, hand_after = before["record"]["hands"][-1], after["record"]["hands"][-1]
    assert hand_after["auction"] == hand_before["auction"]
    assert hand_after["contract"] == hand_before["contract"]
    assert hand_after["plays"] == hand_before["plays"]
    assert after["live"]["mine"] == before["live"]["mine"]
    resumed = [a for m, _, a in t.answers if m == "ResumeTable"]
    assert len(resumed) == 1 and not resumed[0]["record"]["hands"][-1]["hands"].get("north")
    # The hand goes on to its end; the bots' decisions are shown with their figures.
    state = play_until(t, lambda s: s in ("hand-over", "game-over"))
    page.wait_for_selector("body[data-analysis='shown'][data-busy='0']")
    rows = page.query_selector_all("#bot-reasons tbody tr")
    bot_calls = [c for c in page.evaluate("T42Play.state().record.hands.at(-1).auction")
                 if c["seat"] != "S"]
    assert len(rows) >= len(bot_calls) > 0
    assert "no search" in rows[0].inner_text()   # the rule bot has no figures


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_decided_hand_plays_itself_out(page_table, web_server, size):
    t = page_table(web_server, size)
    t.open()
    start_sealed(t)
    page = t.page
    play_until(t, lambda s: s in ("hand-over", "game-over"))
    hand = page.evaluate("T42Play.state().record.hands[0]")
    if not hand.get("contract"):
        pytest.skip("thrown in")
    assert len(hand["plays"]) == 28   # played out, for the score
    log = page.inner_text("#log")
    decided = [a for m, _, a in t.answers
               if m == "CheckGame" and a.get("progress", {}).get("over")]
    assert decided
    # Once decided, the person was not asked: its plays, if any were left, went by
    # themselves (the log says so).
    mine_after = "the hand plays itself out" in log
    asked = [a for m, _, a in t.answers if m == "CheckGame"
             and a.get("progress", {}).get("over")
             and a.get("next") == {"seat": "SEAT_SOUTH", "action": "GAME_ACTION_PLAY"}]
    assert mine_after == bool(asked)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_lost_table_offers_to_deal_the_hand_again(page_table, size):
    """The server restarts without its table database: the page says so and deals the
    hand again at a new table that carries the finished hands; the marks are kept."""
    port = str(_free_port())
    first = ServerProcess("--workers", "2", "--http-port", port).start()
    try:
        t = page_table(first, size)
        t.open()
        start_sealed(t)
        page = t.page
        play_until(t, lambda s: s in ("hand-over", "game-over"))
        pad_before = page.inner_text("#score-pad")
        page.click("#next-hand")
        page.wait_for_selector("body[data-hand='2']")
        settle(page)
    finally:
        first.stop()
    second = ServerProcess("--workers", "2", "--http-port", port).start()
    try:
        state = settle(page)
        if state not in ("error",):
            act(t, state, False, 2)
        page.wait_for_selector("#redeal", timeout=60_000)
        assert page.get_attribute("body", "data-state") == "error"
        assert "deal the hand again" in page.inner_text("#error .error-reason")
        assert page.inner_text("#redeal") == "Deal this hand again (the game is kept)"
        page.click("#redeal")
        page.wait_for_selector("body[data-hand='2']")
        state = settle(page)
        assert state != "error", page.inner_text("#error")
        dealt = [(r, a) for m, r, a in t.answers if m == "DealHand"][-1]
        assert not dealt[0].get("sealed") and len(dealt[0]["record"]["hands"]) == 1
        assert dealt[1]["carried"] == 1
        assert page.inner_text("#score-pad") == pad_before
        assert len(page.evaluate("T42Play.finishedRecord().hands")) == 1
    finally:
        second.stop()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_hint_by_what_the_player_can_know(page_table, web_server, size):
    """With the box ticked the hint is the postponed seat-view search's for the same view,
    deals and seed, and says so."""
    from solver.hidden.seat_view import seat_view_hint
    t = page_table(web_server, size)
    t.open()
    start_sealed(t)
    page = t.page
    play_until(t, lambda s: s == "play", next_hands=True)
    page.check("#hint-seat-view")
    page.click("#hint-button")
    page.wait_for_selector("body[data-hint='shown']")
    st = page.evaluate("T42Play.state()")
    options = page.evaluate("T42Play.hintOptions")
    hand = st["record"]["hands"][-1]
    view = {"seat": "S", "hands": {"S": st["live"]["mine"]}, "contract": hand["contract"],
            "plays": hand["plays"]}
    h = seat_view_hint(view, deals=options["deals"], seed=options["seed"], depth=1)
    assert page.get_attribute("#hint-note", "data-search") == "postponed"
    assert "made once for the deals you cannot tell apart" in page.inner_text("#hint-note")
    shown = shown_hint(page)
    assert set(shown) == set(h.moves)
    total = 7 if h.unit == "tricks" else 42
    for tile, move in h.moves.items():
        chance = js_round(move.p_make) if h.declaring else 100 - js_round(move.p_make)
        mean = move.mean if h.declaring else total - move.mean
        assert shown[tile][0] == f"{chance}%"
        assert abs(shown[tile][1] - mean) <= 0.05 + 1e-9


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_bid_advice_played_out_by_what_the_seats_can_know(page_table, web_server, size):
    """With the box ticked, the bid advice is the playout advice (every deal played out
    by seat-view players) for the person's tiles and the calls so far, and says so."""
    t = page_table(web_server, size)
    t.open()
    start_sealed(t)
    play_until(t, lambda s: s == "call")
    check_advice(t, playout=True)


def test_the_page_offers_the_servers_program_bots(page_table):
    """A server started with --bot NAME=COMMAND: the page lists NAME after the built-in
    bots (ListBots), and a game against it is played at a table of that bot."""
    import sys
    command = f"{sys.executable} examples/bots/random_bot.py"
    with ServerProcess("--workers", "2", "--http-port", "0",
                       "--bot", f"pyrandom={command}") as server:
        t = page_table(server, "desktop")
        t.open()
        page = t.page
        page.wait_for_selector("#bot option[value='pyrandom']", state="attached")
        start_sealed(t, bot="pyrandom")
        play_until(t, lambda s: s in ("hand-over", "game-over"))
        dealt = [r for m, r, _ in t.answers if m == "DealHand"][0]
        assert {b["bot"] for b in dealt["bots"]} == {"pyrandom"}
