"""The web page in a real headless Chromium (Playwright driving Debian's `chromium`).

The page is served by a real `t42 serve --http-port 0` and talks to it only over
Connect JSON. The figures it shows are checked against the Python API for the
same positions. Screenshots of each state go to ``test-artifacts/web/`` (or
``$T42_ARTIFACTS``); the path is printed. Skipped, with the reason, when
Playwright or Chromium is missing. About 3 minutes on the 2-core machine under
load (a browser start, a page load per test with its analysis and deal table,
a few hundred small solves, two small hints and four axe passes).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from web_helpers import ROOT, artifacts_dir

from solver import Position, PositionError, solve
from solver.game.position import POSITION_FIELDS
from solver.hidden.hint import hint
from solver.search.analysis import analyze_hand, parse_record
from solver.show.svg import hint_label

DEAL = json.loads((ROOT / "examples" / "deal.json").read_text())
RECORDS = [json.loads(line) for line in (ROOT / "examples" / "hands.jsonl").read_text().splitlines()]
EXAMPLES = json.loads((ROOT / "solver" / "show" / "web" / "examples.json").read_text())


def test_page_examples_are_the_repository_examples():
    """The page's examples (package data) are copies of examples/: keep them in step."""
    docs = [e["doc"] for e in EXAMPLES]
    assert docs == [DEAL, json.loads((ROOT / "examples" / "moon.json").read_text()), *RECORDS]


@pytest.fixture(scope="module")
def artifacts() -> Path:
    return artifacts_dir("web", "web page")


@pytest.fixture
def page(browser, web_server):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.base = f"http://127.0.0.1:{web_server.http_port}/"
    yield page
    context.close()
    assert not errors, errors  # nothing on the page broke


def open_page(page, fragment: str = "") -> None:
    page.goto(page.base + fragment)
    page.wait_for_selector("body[data-ready='1']")


def loads(page, count: int) -> None:
    page.wait_for_selector(f"body[data-loaded='{count}'][data-busy='0']")


def at_step(page, step: int) -> None:
    page.wait_for_selector(f"body[data-step='{step}'][data-busy='0']")


def pick_example(page, name_start: str, count: int) -> None:
    index = next(i for i, e in enumerate(EXAMPLES) if e["name"].startswith(name_start))
    page.select_option("#example", str(index))
    loads(page, count)


def shown_values(page) -> dict[str, int]:
    return {b.get_attribute("data-tile"): int(b.inner_text())
            for b in page.query_selector_all(".tile .badge")}


def check_values(page, doc: dict, plays: list[str]) -> None:
    """The tiles' values, the best tiles and the value are the solver's for this position."""
    # A hand record's "id" and "meta" are no fields of a position.
    result = solve(Position({**{k: v for k, v in doc.items() if k in POSITION_FIELDS},
                             "plays": plays}))
    assert shown_values(page) == result.moves
    best = {t.get_attribute("data-tile") for t in page.query_selector_all(".tile.best")}
    assert best == set(result.best_moves)
    assert int(page.inner_text("#value")) == result.value
    assert ("makes" if result.makes else "is set") in page.inner_text("#verdict")
    mover = page.query_selector(".seat .name.to-move")
    assert mover is not None and result.to_move in "NESW"
    trick_size = 4
    current = plays[len(plays) - (len(plays) % trick_size or (trick_size if plays else 0)):]
    assert [t.get_attribute("data-tile") for t in page.query_selector_all(".trick .played")] \
        == current


def test_load_an_example_and_step_forward_and_back(page, artifacts):
    record = RECORDS[0]
    open_page(page)
    pick_example(page, "Hand club-1", 1)
    at_step(page, 0)
    assert page.inner_text("#step").startswith("play 0 of 28")
    check_values(page, record, [])
    page.screenshot(path=str(artifacts / "1-loaded.png"), full_page=True)

    for step in range(1, 6):
        page.keyboard.press("ArrowRight")
        at_step(page, step)
    check_values(page, record, record["plays"][:5])
    page.screenshot(path=str(artifacts / "2-forward-5.png"), full_page=True)

    page.keyboard.press("ArrowLeft")
    at_step(page, 4)
    page.click("#back")
    at_step(page, 3)
    check_values(page, record, record["plays"][:3])
    page.screenshot(path=str(artifacts / "3-back-to-3.png"), full_page=True)

    page.click("#last")
    at_step(page, 28)
    assert shown_values(page) == {}
    assert "hand over" in page.inner_text("#verdict")
    assert int(page.inner_text("#value")) == analyze_hand(record).result
    page.click("#first")
    at_step(page, 0)


def test_clicking_a_legal_tile_plays_it_and_forward_past_the_record_plays_the_best(page):
    open_page(page)
    pick_example(page, "Deal: W", 1)
    line = solve(Position(DEAL)).line
    page.click(".tile.legal[data-tile='4-0']")  # not the best lead
    at_step(page, 1)
    check_values(page, DEAL, ["4-0"])
    best = solve(Position({**DEAL, "plays": ["4-0"]})).line[0]
    page.click("#forward")
    at_step(page, 2)
    assert "(past the record)" in page.inner_text("#step")
    check_values(page, DEAL, ["4-0", best])
    assert line[0] != "4-0"


def test_the_analysis_marks_the_costly_plays_of_every_example_hand(page, artifacts):
    open_page(page)
    for count, record in enumerate(RECORDS, start=1):
        pick_example(page, f"Hand {record['id']}:", count)
        hand = analyze_hand(record)
        rows = page.query_selector_all("#analysis tbody tr")
        assert len(rows) == len(hand.plays)
        costly = [(int(r.get_attribute("data-index")), r.get_attribute("data-tile"),
                   int(r.get_attribute("data-cost")), r.query_selector("td:last-child").inner_text())
                  for r in page.query_selector_all("#analysis tbody tr.costly")]
        assert costly == [(p.index, p.tile, p.cost, " ".join(p.alternatives))
                          for p in hand.costly_plays]
        totals = {r.get_attribute("data-seat"): [int(td.inner_text()) for td in
                                                 r.query_selector_all("td")[2:]]
                  for r in page.query_selector_all("#seat-totals tbody tr")}
        assert totals == {seat: [s.plays, s.costly_plays, s.total_cost]
                          for seat, s in hand.seats.items() if s.plays}
        summary = page.inner_text("#analysis-summary")
        assert f"opening lead: {hand.value} " in summary and f"result {hand.result} " in summary
        if record["id"] == "club-1":
            page.wait_for_selector("#deal-panel:not([hidden])")
            page.screenshot(path=str(artifacts / "4-analysis-club-1.png"), full_page=True)
    # A costly play's row shows the position before it, where the better tiles are best.
    pick_example(page, "Hand club-1", len(RECORDS) + 1)
    page.click("#analysis tbody tr[data-index='3']")
    at_step(page, 3)
    assert {t.get_attribute("data-tile") for t in page.query_selector_all(".tile.best")} \
        == {"3-0"}
    page.screenshot(path=str(artifacts / "5-before-costly-play.png"), full_page=True)


def test_deal_table_matches_the_api(page):
    from solver.search.table import solve_deal
    open_page(page)
    pick_example(page, "Deal: W", 1)
    page.wait_for_selector("#deal-panel:not([hidden])")
    table = solve_deal(DEAL)
    for trump, points in table.points.items():
        cells = page.query_selector_all(f"#deal-table tr[data-declaration='{trump}'] td")
        assert [int(c.inner_text()) for c in cells[1:]] == [points[s] for s in "NESW"]
    cells = page.query_selector_all("#deal-table tr[data-declaration='sevens'] td")
    assert [c.inner_text() == "makes" for c in cells[1:]] == \
        [table.makes["sevens"][s] for s in "NESW"]


def _expected_error(doc: dict) -> tuple[str, str]:
    """The field and reason `t42 analyze` gives for ``doc`` (SPEC JSON paths)."""
    try:
        parse_record(doc)
    except PositionError as exc:
        return exc.field, exc.reason
    raise AssertionError("the document was expected to be bad")


@pytest.mark.parametrize("broken", ["duplicate-tile", "illegal-play"])
def test_a_broken_pasted_position_shows_the_service_field_and_reason(page, artifacts, broken):
    open_page(page)
    pick_example(page, "Deal: W", 1)
    doc = json.loads(json.dumps(DEAL))
    if broken == "duplicate-tile":
        doc["hands"]["N"][3] = "6-6"  # E holds 6-6 too
    else:
        doc["plays"] = ["1-1", "6-6"]  # N does not hold 6-6
    field, reason = _expected_error(doc)
    page.click("#paste-toggle")
    page.fill("#paste-input", json.dumps(doc))
    page.click("#paste-load")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error .error-field") == field
    assert page.inner_text("#error .error-reason") == reason
    page.screenshot(path=str(artifacts / f"6-error-{broken}.png"), full_page=True)
    # The hand on the table is still the one loaded before, and still works.
    page.keyboard.press("End")  # focus is on the button, not in the text box
    page.click("#forward")
    at_step(page, 1)
    assert page.query_selector_all(".tile .badge")


def test_malformed_json_is_reported_at_the_input_box(page):
    open_page(page)
    page.click("#paste-toggle")
    page.fill("#paste-input", '{"hands": ')
    page.click("#paste-load")
    page.wait_for_selector("#error:not([hidden])")
    # As `t42` words it: the document's field, and the JSON parser's reason.
    assert page.inner_text("#error .error-field") == "position"
    assert page.inner_text("#error .error-reason").startswith("not valid JSON: ")


@pytest.mark.parametrize("broken,field,reason", [
    ({"game": "banana"}, "game", "unknown game 'banana' (\"42\" or \"moon\", as strings)"),
    ({"plyas": []}, "plyas", "unknown field of a hand record (known: game, hands, contract, "
                             "plays, widow, discard, id, meta)"),
    ({"contract": {**DEAL["contract"], "trump": "fourz"}}, "contract.trump",
     "unknown declaration 'fourz' (one of blanks, ones, deuces, treys, fours, fives, sixes, "
     "doubles, follow-me, nello, sevens)"),
    ({"players": 4}, "players", None),
], ids=["game", "unknown-field", "contract-value", "position-field"])
def test_a_pasted_document_is_judged_by_the_cli_reader(page, broken, field, reason):
    """The page is no looser than `t42`: the server reads the pasted text with the CLI's
    reader, and the error names the field and the whole reason (the bad value too)."""
    doc = {**DEAL, **broken}
    expected = _expected_error(doc)
    assert expected[0] == field and (reason is None or expected[1] == reason)
    open_page(page)
    page.click("#paste-toggle")
    page.fill("#paste-input", json.dumps(doc))
    page.click("#paste-load")
    page.wait_for_selector("#error:not([hidden])")
    assert (page.inner_text("#error .error-field"),
            page.inner_text("#error .error-reason")) == expected
    assert page.query_selector(".tile") is None  # nothing was loaded


def test_a_pasted_document_is_shown_as_the_cli_reads_it(page):
    """Spellings `t42` accepts are shown in its canonical form; an ``id`` that is not a
    string (free data) is shown as its JSON."""
    doc = {**DEAL, "id": {}, "contract": {"declarer": "W", "trump": "4", "bid": 30},
           "hands": {seat: [t.replace("-", "") for t in tiles]
                     for seat, tiles in DEAL["hands"].items()}}
    open_page(page)
    page.click("#paste-toggle")
    page.fill("#paste-input", json.dumps(doc))
    page.click("#paste-load")
    loads(page, 1)
    contract = page.inner_text("#contract")
    assert "W bids 30, fours" in contract and "hand {}" in contract
    assert "object" not in contract
    check_values(page, DEAL, [])


def test_a_link_carries_the_position_and_seat_view_shows_one_hand(page, artifacts):
    doc = {**RECORDS[1]}
    fragment = "#pos=" + base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=") \
        + "&step=6"
    open_page(page, fragment)
    loads(page, 1)
    at_step(page, 6)
    check_values(page, doc, doc["plays"][:6])
    page.check("input[name='mode'][value='seat']")
    page.select_option("#view-seat", "S")
    page.wait_for_function("document.querySelectorAll('.seat .tile:not(.hidden)').length > 0 && "
                           "!document.querySelector('.tile .badge')")
    visible = {t.get_attribute("data-seat") for t in page.query_selector_all(".seat .tile[data-seat]")}
    assert visible == {"S"}
    north_left = 7 - sum(1 for t in doc["plays"][:6] if t in doc["hands"]["N"])
    assert len(page.query_selector_all(".seat[data-seat='N'] .back")) == north_left
    assert page.query_selector("#value") is None  # no double-dummy figures in a seat view
    page.screenshot(path=str(artifacts / "7-seat-view.png"), full_page=True)

    # The hint hook: labels under the legal tiles of the seat in view when it is to move.
    position = Position({**{k: v for k, v in doc.items() if k in POSITION_FIELDS},
                         "plays": doc["plays"][:6]})
    page.evaluate("() => { T42.hintLabels = async (position, seat) => Object.fromEntries("
                  "position.hands[{N: 'north', E: 'east', S: 'south', W: 'west'}[seat]]"
                  ".map((tile) => [tile, seat + ' ' + tile])); }")
    page.select_option("#view-seat", position.to_move)
    page.wait_for_selector(".badge.hint")
    hints = {b.get_attribute("data-tile"): b.inner_text()
             for b in page.query_selector_all(".badge.hint")}
    assert hints == {t: f"{position.to_move} {t}" for t in solve(position).moves}


def _link(doc: dict, step: int) -> str:
    return "#pos=" + base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=") \
        + f"&step={step}"


def test_seat_view_shows_the_hint_of_the_seat_to_move(page, artifacts):
    """The seat to move sees each legal tile's P(make) and mean from the Hint RPC: the
    figures of `hint()` for the same view, deals and seed; the best tiles outlined."""
    record, step = RECORDS[1], 13  # club-2: S to play the fourth trick's second tile
    plays = record["plays"][:step]
    seat = Position({**{k: v for k, v in record.items() if k in POSITION_FIELDS},
                     "plays": plays}).to_move
    open_page(page, _link(record, step))
    loads(page, 1)
    at_step(page, step)
    options = page.evaluate("() => T42.hintOptions")
    page.check("input[name='mode'][value='seat']")
    page.select_option("#view-seat", seat)
    page.wait_for_selector("body[data-hint='shown']")

    h = hint({"seat": seat, "hands": {seat: record["hands"][seat]},
              "contract": record["contract"], "plays": plays},
             deals=options["deals"], seed=options["seed"])
    shown = {b.get_attribute("data-tile"): b.inner_text()
             for b in page.query_selector_all(".badge.hint")}
    assert shown == {t: hint_label(m) for t, m in h.moves.items()}
    assert len(shown) > 1
    best = {t.get_attribute("data-tile") for t in page.query_selector_all(".tile.best")}
    assert best == set(h.best)
    note = page.inner_text("#hint-note")
    assert h.method == "sampled" and \
        f"{h.deals} of {h.count:,} consistent deals, sampled (seed {h.seed})" in note
    assert "P(make) and mean points" in note
    assert page.query_selector("#value") is None  # still no double-dummy figures
    page.screenshot(path=str(artifacts / "8-seat-view-hint.png"), full_page=True)

    # Another seat's view, or the next play: the seat in view is not to move, no call.
    page.click("#forward")
    at_step(page, step + 1)
    page.wait_for_selector("body[data-hint='none']")
    assert not page.query_selector_all(".badge") and page.query_selector("#hint-note") is None
    page.click("#back")
    at_step(page, step)
    page.wait_for_selector("body[data-hint='shown']")
    assert {b.get_attribute("data-tile"): b.inner_text()
            for b in page.query_selector_all(".badge.hint")} == shown


def test_seat_view_hint_late_in_the_hand_scores_every_deal(page):
    """Few consistent deals: the hint scores them all and says so."""
    record = RECORDS[0]
    step = 16  # club-1: four tricks played, E to lead with 700 consistent deals left
    plays = record["plays"][:step]
    seat = Position({**{k: v for k, v in record.items() if k in POSITION_FIELDS},
                     "plays": plays}).to_move
    open_page(page, _link(record, step))
    loads(page, 1)
    at_step(page, step)
    page.select_option("#view-seat", seat)
    page.check("input[name='mode'][value='seat']")
    page.wait_for_selector("body[data-hint='shown']")
    options = page.evaluate("() => T42.hintOptions")
    h = hint({"seat": seat, "hands": {seat: record["hands"][seat]},
              "contract": record["contract"], "plays": plays},
             deals=options["deals"], seed=options["seed"])
    assert h.method == "enumerated"
    assert {b.get_attribute("data-tile"): b.inner_text()
            for b in page.query_selector_all(".badge.hint")} == \
        {t: hint_label(m) for t, m in h.moves.items()}
    assert f"all {h.count:,} consistent deals" in page.inner_text("#hint-note")


def test_a_hint_the_service_refuses_shows_its_field_and_reason(page, artifacts):
    record, step = RECORDS[1], 13
    open_page(page, _link(record, step))
    loads(page, 1)
    at_step(page, step)
    page.evaluate("() => { T42.hintOptions = {...T42.hintOptions, objective: 7}; }")
    page.select_option("#view-seat", "S")  # S is to move
    page.check("input[name='mode'][value='seat']")
    page.wait_for_selector("body[data-hint='error']")
    assert page.inner_text("#error .error-field") == "objective"
    assert page.inner_text("#error .error-reason") == "unknown objective value 7"
    assert not page.query_selector_all(".badge")
    page.screenshot(path=str(artifacts / "9-hint-error.png"), full_page=True)
    # Good options again: the next drawing asks again, the labels come and the error goes.
    page.evaluate("() => { delete T42.hintOptions.objective; }")
    page.check("input[name='mode'][value='open']")
    page.check("input[name='mode'][value='seat']")
    page.wait_for_selector("body[data-hint='shown']")
    assert page.query_selector_all(".badge.hint")
    assert page.is_hidden("#error")


# ------------------------------------------------------------ layout, keys, access

def _inside(page, selector: str) -> None:
    """The element is drawn and lies across the viewport's width, not off its side."""
    box = page.locator(selector).first.bounding_box()
    width = page.evaluate("window.innerWidth")
    assert box is not None and box["width"] > 0, selector
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box, width)


def _fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), \
        page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    seats = [s for s in "NESW" if page.query_selector(f".seat[data-seat='{s}'] .hand")]
    assert len(seats) == 4
    for seat in seats:
        _inside(page, f".seat[data-seat='{seat}'] .hand")
    _inside(page, ".modes")
    _inside(page, "#view-seat")
    _inside(page, "#step")
    if page.query_selector("#value"):
        _inside(page, "#value")


@pytest.mark.parametrize("width,height", [(390, 844), (360, 740)])
def test_the_page_fits_a_phone(page, artifacts, width, height):
    page.set_viewport_size({"width": width, "height": height})
    open_page(page)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    pick_example(page, "Hand club-1", 1)
    page.wait_for_selector("#deal-panel:not([hidden])")
    _fits(page)
    _inside(page, "#value")
    page.click("#forward")
    at_step(page, 1)
    page.click("#forward")
    at_step(page, 2)
    _fits(page)
    for selector in [".trick .played", "#analysis-panel", "#deal-panel", "#play-link"]:
        _inside(page, selector)
    page.screenshot(path=str(artifacts / f"10-phone-{width}-open.png"), full_page=True)
    page.check("input[name='mode'][value='seat']")
    page.wait_for_selector("#analysis-panel[hidden]", state="attached")
    _fits(page)
    page.screenshot(path=str(artifacts / f"11-phone-{width}-seat.png"), full_page=True)


def test_the_desktop_layout_keeps_the_table(page, artifacts):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page)
    pick_example(page, "Hand club-1", 1)
    page.wait_for_selector("#deal-panel:not([hidden])")
    _fits(page)
    box = {s: page.locator(f".seat[data-seat='{s}'] .hand").bounding_box() for s in "NESW"}
    trick = page.locator("#trick").bounding_box()
    felt = page.locator("#table").bounding_box()
    assert felt["width"] == 900 and felt["height"] == 600  # the table as it was
    # North at the top, South at the bottom, West and East either side of the trick.
    assert box["N"]["y"] + box["N"]["height"] <= trick["y"] + 1
    assert box["S"]["y"] >= trick["y"] + trick["height"] - 1
    assert box["W"]["x"] + box["W"]["width"] <= trick["x"] + 1
    assert box["E"]["x"] >= trick["x"] + trick["width"] - 1
    assert abs(box["W"]["y"] - box["E"]["y"]) < 40
    page.screenshot(path=str(artifacts / "12-desktop-1280.png"), full_page=True)


def test_every_table_heading_lines_up_with_its_column(page):
    open_page(page)
    pick_example(page, "Hand club-1", 1)
    page.wait_for_selector("#deal-panel:not([hidden])")
    tables = ["#analysis", "#seat-totals", "#deal-table"]
    for table in tables:
        # Per column: the heading's and each row's cell box, and where the text sits
        # (its left edge, centre or right edge, as the heading is aligned).
        columns = page.evaluate("""(table) => {
          const textBox = (cell) => {
            const range = document.createRange();
            range.selectNodeContents(cell);
            return range.getBoundingClientRect();
          };
          const anchor = (cell, align) => {
            const r = textBox(cell);
            if (!cell.textContent.trim()) return null; // an empty cell
            return align === "center" ? (r.left + r.right) / 2
              : ["right", "end"].includes(align) ? r.right : r.left;
          };
          const heads = [...document.querySelectorAll(`${table} thead th`)];
          return [...document.querySelectorAll(`${table} tbody tr`)].map((row) => {
            const cells = [...row.children];
            return {count: [heads.length, cells.length], columns: cells.map((cell, i) => {
              const head = heads[i];
              if (!head) return null;
              const align = getComputedStyle(head).textAlign;
              return {head: [head.getBoundingClientRect().left, anchor(head, align)],
                      cell: [cell.getBoundingClientRect().left, anchor(cell, align)],
                      text: [head.innerText, cell.innerText]};
            })};
          });
        }""", table)
        assert columns, table
        for row in columns:
            assert row["count"][0] == row["count"][1], (table, row["count"])
            for column in row["columns"]:
                assert abs(column["head"][0] - column["cell"][0]) < 0.5, (table, column)
                assert column["cell"][1] is None or \
                    abs(column["head"][1] - column["cell"][1]) <= 2, (table, column)


def _seat_letter(index: int) -> str:
    return "NESW"[index]


@pytest.mark.parametrize("record", [r for r in RECORDS if
                                    Position({k: v for k, v in r.items()
                                              if k in POSITION_FIELDS}).is_complete],
                         ids=lambda r: r["id"])
def test_every_trick_of_a_finished_hand_names_its_taker(page, artifacts, record):
    position = Position({k: v for k, v in record.items() if k in POSITION_FIELDS})
    tricks = position.completed_tricks
    assert len(tricks) == 7
    size = len(record["plays"]) // 7
    open_page(page, _link(record, len(record["plays"])))
    loads(page, 1)
    at_step(page, len(record["plays"]))
    assert "hand over" in page.inner_text("#verdict")
    won = {s: len(page.query_selector_all(f".seat[data-seat='{s}'] .won i")) for s in "NESW"}
    assert sum(won.values()) == 7
    assert won == {s: sum(1 for w, _ in tricks if _seat_letter(w) == s) for s in "NESW"}
    if record["id"] == "club-2":
        page.screenshot(path=str(artifacts / "13-last-trick.png"), full_page=True)
    # At each trick's end, the taker is named on the table.
    for number, (winner, _) in enumerate(tricks, start=1):
        if number < 7:  # a row of the analysis shows the position before its play
            page.click(f"#analysis tbody tr[data-index='{size * number}']")
        else:
            page.click("#last")
        at_step(page, size * number)
        names = [w.inner_text() for w in page.query_selector_all(".trick .played .who")]
        assert len(names) == size and \
            [n for n in names if n.endswith(" wins")] == [f"{_seat_letter(winner)} wins"], \
            (number, names)


def test_a_bad_step_in_a_link_is_ignored(page):
    record = RECORDS[1]
    for step, shown in [("abc", 0), ("-3", 0), ("1e400", 0), ("99", len(record["plays"]))]:
        page.goto("about:blank")  # a new document, not a change of the fragment
        open_page(page, _link(record, 0).replace("step=0", f"step={step}"))
        loads(page, 1)
        at_step(page, shown)
        assert page.inner_text("#step").startswith(f"play {shown} of 28")
        assert "NaN" not in page.inner_text("body")
    page.keyboard.press("Home")
    at_step(page, 0)
    page.keyboard.press("ArrowRight")
    at_step(page, 1)
    assert "NaN" not in page.inner_text("body") and "NaN" not in page.url


def test_the_keyboard_steps_and_plays_whatever_was_clicked(page):
    record = RECORDS[1]
    open_page(page, _link(record, 4))
    loads(page, 1)
    at_step(page, 4)
    page.click("input[name='mode'][value='seat']")
    page.keyboard.press("ArrowRight")
    at_step(page, 5)
    assert page.is_checked("input[name='mode'][value='seat']")
    page.keyboard.press("ArrowLeft")
    at_step(page, 4)
    page.select_option("#view-seat", "E")
    page.keyboard.press("ArrowRight")
    at_step(page, 5)
    assert page.input_value("#view-seat") == "E"
    page.click("input[name='mode'][value='open']")
    page.keyboard.press("ArrowLeft")
    at_step(page, 4)
    assert page.is_checked("input[name='mode'][value='open']")
    # Tab reaches the legal tiles (buttons); Enter plays one, Space the next.
    page.focus("#last")
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.tile.legal')"):
            break
    tile = page.evaluate("document.activeElement.dataset.tile")
    assert tile and page.evaluate("document.activeElement.tagName") == "BUTTON"
    page.keyboard.press("Enter")
    at_step(page, 5)
    assert page.evaluate("document.querySelector('.trick .played:last-child').dataset.tile") == tile
    page.wait_for_function("document.activeElement.matches('.tile.legal')")
    following = page.evaluate("document.activeElement.dataset.tile")
    page.keyboard.press(" ")
    at_step(page, 6)
    assert page.evaluate("document.querySelector('.trick .played:last-child').dataset.tile") \
        == following


def test_seat_view_shows_nothing_of_the_hidden_hands(page):
    record, step, seat = RECORDS[0], 6, "S"
    open_page(page, _link(record, step))
    loads(page, 1)
    at_step(page, step)
    page.wait_for_selector("#deal-panel:not([hidden])")
    page.select_option("#view-seat", seat)
    page.check("input[name='mode'][value='seat']")
    page.wait_for_selector("body[data-hint='none'], body[data-hint='shown']")
    page.wait_for_selector("#analysis-panel", state="hidden")
    page.wait_for_selector("#deal-panel", state="hidden")
    text = page.inner_text("body")
    played = set(record["plays"][:step])
    hidden = {t for s, tiles in record["hands"].items() if s != seat for t in tiles} - played
    assert not [t for t in hidden if t in text], text
    assert page.query_selector("#value") is None and "double dummy" not in text.lower()
    assert "makes" not in text and "is set" not in text
    # Open hands again: the panels come back.
    page.check("input[name='mode'][value='open']")
    page.wait_for_selector("#analysis-panel:not([hidden])")
    page.wait_for_selector("#deal-panel:not([hidden])")


def test_the_header_links_the_game_page_and_names_the_game(page):
    open_page(page)
    link = page.locator("header a#play-link")
    assert link.inner_text() == "Play a game" and link.get_attribute("href") == "play.html"
    pick_example(page, "Hand club-1", 1)
    contract = page.inner_text("#contract")
    assert "Texas 42" in contract and "\n42" not in contract


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_axe_finds_no_serious_accessibility_violation(page, artifacts, axe, width, height):
    page.set_viewport_size({"width": width, "height": height})
    open_page(page)
    found = {}

    def check(state: str) -> None:
        found[state] = axe.blocking(page)

    check("empty")
    pick_example(page, "Hand club-1", 1)
    page.wait_for_selector("#deal-panel:not([hidden])")
    check("open hands, analysis")
    page.click("#paste-toggle")
    check("paste panel")
    page.click("#paste-toggle")
    page.check("input[name='mode'][value='seat']")
    page.select_option("#view-seat", "N")  # N leads: the hint's labels
    page.wait_for_selector("body[data-hint='shown']")
    check("seat view, hint")
    page.screenshot(path=str(artifacts / f"14-axe-{width}-seat.png"), full_page=True)
    assert found == {state: [] for state in found}, found
