"""The person's grades on the game page and the page of their finished games, in a real
headless Chromium at the phone (390x844) and desktop (1280x800) sizes.

After a hand the page shows each of the person's calls and plays graded from its seat's
view, the price of hidden information its plays paid and the hand's luck for its side:
the same as `grade_game` for the finished hands' record, that hand, the page's options and
seed (and as the GradeGame answer the page got). At a game's end a summary; the history
page then lists the game (ListFinishedGames for the tokens this browser kept) with its
figures and four SVG charts, the same
figures as `grade_game` and `read_game` give for the game's record. axe-core finds no
serious violation on either. Skipped, with the reason, when Playwright or Chromium is
missing. About 2 minutes (one whole game against the rule bots).
"""

from __future__ import annotations

import json

import pytest
from test_web_play import DESKTOP, PHONE, Table, act, fits, settle, start
from web_helpers import artifacts_dir

from solver import grade_game, read_game

#: Small seeded samples, so that a hand is graded at once (the figures are compared all
#: the same, for these options).
OPTIONS = {"deals": 10, "seed": 42, "adviceDeals": 8, "adviceSeed": 42}
INIT = f"window.T42CoachOptions = {json.dumps(OPTIONS)};"
SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture(scope="module")
def artifacts():
    return artifacts_dir("web-coaching", "coaching")


@pytest.fixture
def open_page(browser, web_server):
    tables: list[Table] = []

    def make(size: str, init: str = INIT) -> Table:
        t = Table(browser, web_server, SIZES[size])
        t.page.add_init_script(init)
        tables.append(t)
        return t
    yield make
    for t in tables:
        t.close()


def python_grades(record: dict, hands: list[int] | None = None):
    return grade_game(record, deals=OPTIONS["deals"], seed=OPTIONS["seed"],
                      advice_deals=OPTIONS["adviceDeals"], advice_seed=OPTIONS["adviceSeed"],
                      threads=1, hands=hands)


def side_sign(hand_grades, seat: str) -> int:
    """+1 when ``seat``'s side wants the graded hand's value high (the declaring side, bar
    nello's declarer), else -1."""
    position = hand_grades.analysis.position
    return 1 if position.maximizer["NESW".index(seat)] else -1


def play_hand(t: Table, bid: bool = False) -> str:
    """The person's moves until the hand is over; returns the state."""
    while (state := settle(t.page)) not in ("hand-over", "game-over"):
        assert state != "error", t.page.inner_text("#error")
        act(t, state, False, 1 if bid else 2)
    return state


def check_hand_grades(t: Table, k: int, seat: str = "S") -> None:
    """The grades shown for hand k are `grade_game`'s for the finished hands' record."""
    page = t.page
    page.wait_for_selector("body[data-grades='shown'][data-busy='0']", timeout=120_000)
    record = page.evaluate("T42Play.finishedRecord()")
    graded = python_grades(record, [k]).hands[0]
    mine = [d for d in graded.decisions if d.seat == seat]
    rows = page.query_selector_all("#grades tbody tr")
    assert len(rows) == len(mine) > 0
    for row, d in zip(rows, mine):
        assert row.get_attribute("data-choice") == d.choice
        assert row.get_attribute("data-kind") == d.kind
        grade = "not graded" if d.method == "ungraded" else "forced" if d.method == "forced" \
            else "mistake" if d.mistake else "fine"
        assert row.get_attribute("data-grade") == grade
        assert row.query_selector("td.grade").inner_text() == grade
        assert row.get_attribute("data-best") == (d.best or "")
        loss = "" if d.loss is None else f"{float(d.loss.value):.2f}"
        marks = "" if d.marks_loss is None else f"{float(d.marks_loss.value):.2f}"
        assert row.get_attribute("data-loss") == loss
        assert row.get_attribute("data-marks-loss") == marks
        better = row.query_selector("td.better").inner_text()
        if d.mistake:   # the better option and what the choice gave up, in words
            assert better.startswith(f"{d.best}: yours gave up ")
            assert (loss or marks) in better
    summary = page.inner_text("#grades-summary")
    seats = graded.seats.get(seat)
    assert summary.startswith(f"{seats.decisions} of your decisions graded, "
                              f"{seats.mistakes} mistake")
    if graded.analysis is not None:
        luck = side_sign(graded, seat) * float(graded.luck)
        assert page.get_attribute("#grades-luck", "data-luck") == f"{luck:.2f}"
        mood = "unlucky" if luck < -0.005 else "lucky" if luck > 0.005 else "neither"
        assert f"for your side ({mood}" in summary
        # The price of hidden information the person's plays paid, apart from luck.
        price = -float(seats.information)
        assert page.get_attribute("#grades-information", "data-price") == f"{price:.2f}"
        assert f"your plays paid {price:.2f} " in summary
        assert f"+ information {'+' if graded.information >= 0 else '-'}" \
            f"{abs(float(graded.information)):.2f} + luck" in summary
    # The page's own answer is the same GradeGame grading.
    asked = [(r, a) for m, r, a in t.answers if m == "GradeGame" and r.get("hands") == [k]]
    assert asked and asked[-1][0]["options"] == OPTIONS
    answer = asked[-1][1]["hands"][0]
    assert [d["choice"] for d in answer["decisions"]] == [d.choice for d in graded.decisions]
    assert abs(answer.get("luck", 0) - float(graded.luck)) < 1e-5
    assert abs(answer.get("information", 0) - float(graded.information)) < 1e-5


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_hands_grades_are_the_python_apis(open_page, axe, artifacts, size):
    """Seed 1 with the rule bots, the person passing: East declares, South defends; the
    person's calls and plays are graded as `grade_game` grades them."""
    t = open_page(size)
    t.open()
    start(t, seed=1, bot="rule")
    play_hand(t)
    check_hand_grades(t, 0)
    page = t.page
    page.wait_for_selector("body[data-analysis='shown'][data-busy='0']")
    if size == "phone":
        fits(page)
    assert axe.blocking(page) == []
    page.locator("#hand-end").screenshot(path=str(artifacts / f"1-hand-grades-{size}.png"))


def test_a_finished_game_its_summary_and_the_history_page(open_page, browser, axe, artifacts):
    """A whole practice game against the rule bots (the person bids when it may): after
    each hand its grades, at the end the game's summary; the history page lists it with
    the figures `grade_game` and `read_game` give for its record, and charts them; at
    the phone size too, where a token the server cannot open is forgotten."""
    t = open_page("desktop")
    t.open()
    page = t.page
    start(t, seed=4, bot="rule")
    hand = 0
    while True:
        state = play_hand(t, bid=True)
        if hand < 2:
            check_hand_grades(t, hand)
        if state == "game-over":
            break
        hand += 1
        page.click("#next-hand")
        page.wait_for_selector(f"body[data-hand='{hand + 1}']")
    page.wait_for_selector("body[data-game-grades='shown'][data-busy='0']", timeout=240_000)
    record = page.evaluate("T42Play.finishedRecord()")
    game = read_game(record)
    assert game.winner is not None and len(game.hands) == hand + 1
    graded = python_grades(record)
    mine = [h.seats.get("S") for h in graded.hands]
    decisions = sum(s.decisions for s in mine if s)
    mistakes = sum(s.mistakes for s in mine if s)
    marks = sum(s.marks_loss for s in mine if s) / len(game.hands)
    luck = sum(side_sign(h, "S") * float(h.luck) for h in graded.hands if h.analysis)
    price = -sum(float(s.information) for s in mine if s) / len(game.hands)
    total = page.query_selector("#game-grades-total")
    assert int(total.get_attribute("data-decisions")) == decisions > 0
    assert int(total.get_attribute("data-mistakes")) == mistakes
    assert total.get_attribute("data-marks-loss") == f"{marks:.2f}"
    assert total.get_attribute("data-luck") == f"{luck:.2f}"
    assert total.get_attribute("data-price") == f"{price:.2f}"
    assert len(page.query_selector_all("#game-grades-table tbody tr")) == len(game.hands)
    assert axe.blocking(page) == []
    page.locator("#game-grades").screenshot(path=str(artifacts / "2-game-grades-desktop.png"))
    tokens = page.evaluate("JSON.parse(localStorage.getItem('t42.finished'))")
    assert len(tokens) == 1
    kept = page.evaluate("localStorage.getItem('t42.grades.2')")

    declared = [k for k, h in enumerate(game.hands) if h.contract is not None and
                h.contract.declarer == "NESW".index("S")]
    made = sum(1 for k in declared if game.hands[k].made)

    def check_history(h: Table, size: str) -> None:
        hp = h.page
        hp.goto(h.base + "history.html")
        hp.wait_for_selector("body[data-state='shown']", timeout=240_000)
        row = hp.query_selector(f"#games tbody tr[data-token='{tokens[0]}']")
        assert row is not None
        assert len(hp.query_selector_all("#games tbody tr")) == 1
        assert int(row.get_attribute("data-hands")) == len(game.hands)
        assert int(row.get_attribute("data-declared")) == len(declared)
        assert int(row.get_attribute("data-made")) == made
        assert int(row.get_attribute("data-mistakes")) == mistakes
        assert int(row.get_attribute("data-decisions")) == decisions
        assert abs(float(row.get_attribute("data-marks-loss")) - marks) < 1e-3
        assert abs(float(row.get_attribute("data-luck")) - luck / len(game.hands)) < 1e-3
        assert abs(float(row.get_attribute("data-price")) - price) < 1e-3
        assert row.get_attribute("data-won") == ("1" if game.winner == "NS" else "0")
        for chart, value in (("loss", marks), ("luck", luck / len(game.hands)),
                             ("information", price),
                             ("made", made / len(declared) if declared else None)):
            points = hp.query_selector_all(f"#chart-{chart} svg circle.point")
            if value is None:
                assert points == []
                continue
            assert len(points) == 1
            assert abs(float(points[0].get_attribute("data-value")) - value) < 1e-3
        assert hp.get_attribute("#chart-loss svg", "role") == "img"
        if size == "phone":
            fits(hp)
        assert axe.blocking(hp) == []
        hp.screenshot(path=str(artifacts / f"3-history-{size}.png"), full_page=True)

    before = len(t.answers)
    check_history(t, "desktop")
    # Graded once: the history page used the grades the game page kept.
    assert [m for m, _, _ in t.answers[before:]] == ["ListFinishedGames"]
    # The phone: another browser profile holding the same token (and grades), and a
    # token this server cannot open, which the page forgets.
    phone = open_page("phone", INIT + (
        "localStorage.setItem('t42.finished', " + json.dumps(json.dumps(
            ["not-a-token", tokens[0]])) + ");"
        "if (!localStorage.getItem('t42.grades.2')) localStorage.setItem('t42.grades.2', " +
        json.dumps(kept) + ");"))
    check_history(phone, "phone")
    assert phone.page.is_visible("#forgotten")
    assert phone.page.evaluate("JSON.parse(localStorage.getItem('t42.finished'))") == tokens
