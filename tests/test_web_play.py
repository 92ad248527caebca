"""The game page (play.html) in a real headless Chromium: a person plays whole games
against the bots of a real `t42 serve --http-port 0`.

The page holds no rules and sees no hidden hand: the deal travels as the server's sealed
token. The tests play seeded games to the end at a desktop and a phone size (clicks in
one, the keyboard in the other), check the hint and the bid advice against the Python
API for the same view and seed, the score pad against CheckGame and `read_game` on the
downloaded record, and that no network answer during a hand holds a tile of a hidden
hand, and that axe-core finds no serious or critical violation (at the desktop size on
the setup form, the auction, the play and the hand's end; on the phone on those and on
the final score of its game; on the desktop game's final score too). At both sizes: no
label or bubble on the table covers a tile, a defender's hint is its own side's, the bid
advice says why a cell is blank and (on the phone) that it scrolls, the Moon widow is
marked when a tile is laid away, New game asks before it ends a game, and the Rules link
opens the served rules page. Screenshots go to ``test-artifacts/web-play/`` (or
``$T42_ARTIFACTS``). Skipped, with the reason, when Playwright, Chromium or axe-core is
missing. About 4 minutes on the 2-core machine (the two whole games are 3 of them).
"""

from __future__ import annotations

import base64
import json
import re
import statistics
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from web_helpers import artifacts_dir

from solver import advise, hint, read_game
from solver.hidden.seat_view_bidding import bid_advice

SERVICE = "/texas42.v1.HintService/"
BLANK = "\u2013"  # a cell of the bid advice that has no figure
SEAT_WORD = {"N": "NORTH", "E": "EAST", "S": "SOUTH", "W": "WEST"}
TILE = re.compile(r'"(\d-\d)"')
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# The states in which the page waits for the person (or is done).
SETTLED = ",".join(f"body[data-busy='0'][data-state='{s}']"
                   for s in ("call", "declare", "discard", "play", "hand-over", "game-over",
                             "error"))


@pytest.fixture(scope="module")
def artifacts() -> Path:
    return artifacts_dir("web-play", "game page")


class Table:
    """A page of the game, with every Connect answer it got, in order."""

    def __init__(self, browser, server, viewport: dict) -> None:
        self.context = browser.new_context(viewport=viewport, accept_downloads=True)
        self.page = self.context.new_page()
        self.base = f"http://127.0.0.1:{server.http_port}/"
        self.errors: list[str] = []
        self.answers: list[tuple[str, dict, dict]] = []  # (method, request, answer)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("response", self._response)
        # Small seeded samples, so that a game is quick (the figures are checked all
        # the same against the Python API for these deals and seeds).
        self.page.add_init_script("window.T42Play = {hintOptions: {deals: 30, seed: 42}, "
                                  "adviceOptions: {deals: 20, seed: 42}, "
                                  "callAdviceOptions: {deals: 5, seed: 42}, "
                                  "playoutAdviceOptions: {deals: 4, seed: 42}};")

    def _response(self, response) -> None:
        if SERVICE not in response.url:
            return
        method = response.url.rsplit("/", 1)[1]
        request = json.loads(response.request.post_data or "{}")
        try:
            answer = json.loads(response.text())
        except Exception:  # noqa: BLE001 - an answer without a body: nothing to check
            answer = {}
        self.answers.append((method, request, answer))

    def open(self, fragment: str = "") -> None:
        self.page.goto(self.base + "play.html" + fragment)
        self.page.wait_for_selector("body[data-ready='1']")

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors


@pytest.fixture
def table(browser, web_server):
    tables: list[Table] = []

    def make(viewport: dict) -> Table:
        t = Table(browser, web_server, viewport)
        tables.append(t)
        return t
    yield make
    for t in tables:
        t.close()


def connect(server, method: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.http_port}{SERVICE}{method}", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def record_message(record: dict) -> dict:
    from google.protobuf import json_format

    from server.game_convert import record_from_json
    return json_format.MessageToDict(record_from_json(record))


def js_round(p: float) -> int:
    """A share in whole percent, rounded as the page's Math.round rounds it."""
    return int(p * 100 + 0.5)


def js_percent(p: float) -> str:
    return f"{js_round(p)}%"


def start(t: Table, *, seed: int, bot: str, game: str = "42", seat: str = "S") -> None:
    page = t.page
    page.check(f"input[name='game'][value='{game}']")
    page.select_option("#seat", seat)
    page.select_option("#bot", bot)
    page.fill("#game-seed", str(seed))
    page.fill("#pause", "0")
    page.click("#start")


def settle(page) -> str:
    page.wait_for_selector(SETTLED, timeout=120_000)
    return page.get_attribute("body", "data-state")


def fits(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), \
        page.evaluate("[document.documentElement.scrollWidth, innerWidth]")


def shot(t: Table, artifacts: Path, name: str, phone: bool) -> None:
    if phone:
        fits(t.page)
    t.page.screenshot(path=str(artifacts / f"{name}-{'phone' if phone else 'desktop'}.png"),
                      full_page=True)


# What covers what on the table: every pair of the played tiles, their labels, the line
# that names the trick's winner, the seats' names and their hands (tiles or backs) whose
# boxes meet by more than half a pixel; and any label of the trick outside the trick's box.
OVERLAPS_JS = """() => {
  const items = [];
  const add = (selector, what) => document.querySelectorAll(selector).forEach((node) => {
    const r = node.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) items.push({ what: what(node), r });
  });
  add("#table .trick .played svg", (n) => `tile ${n.parentNode.dataset.tile}`);
  add("#table .trick .who", (n) => `label ${n.textContent}`);
  add("#trick-winner", (n) => `bubble ${n.textContent}`);
  add("#table .seat .name", (n) => `name ${n.textContent}`);
  add("#table .seat .hand", (n) => `hand of ${n.closest('.seat').dataset.seat}`);
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
    a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const out = [];
  items.forEach((a, i) => items.slice(i + 1).forEach((b) => {
    if (meet(a.r, b.r)) out.push(`${a.what} meets ${b.what}`);
  }));
  const trick = document.querySelector("#table .trick").getBoundingClientRect();
  for (const { what, r } of items) {
    if (/^(label|bubble)/.test(what) && (r.left < trick.left - 0.5 || r.right > trick.right + 0.5 ||
        r.top < trick.top - 0.5 || r.bottom > trick.bottom + 0.5)) {
      out.push(`${what} outside the trick`);
    }
  }
  return out;
}"""


def check_nothing_covered(page) -> None:
    """No tile, label, bubble or seat on the table covers another."""
    overlaps = page.evaluate(OVERLAPS_JS)
    assert overlaps == [], overlaps


def check_advice(t: Table, fixed_lead: bool = False, playout: bool = False) -> None:
    """The bid advice shown is `advise` for the person's tiles, the calls so far, the
    same deals and seed (with ``fixed_lead``, asked with the box for one opening lead
    ticked; with ``playout``, the box for hands played out by seat-view players)."""
    page = t.page
    if fixed_lead:
        page.check("#advice-fixed-lead")
    if playout:
        page.check("#advice-playout")
    page.click("#advice-button")
    # A guard against a hang, not a speed check: a playout on a busy machine takes long.
    page.wait_for_selector("body[data-advice='shown']", timeout=600_000)
    st = page.evaluate("T42Play.state()")
    options = page.evaluate("T42Play.playoutAdviceOptions" if playout
                            else "T42Play.adviceOptions")
    hand = st["record"]["hands"][-1]
    me = page.input_value("#seat")
    auction = [{"seat": c["seat"], "bid": 168 if c["bid"] == "plunge" else
                84 if c["bid"] == "splash" else c["bid"]} for c in hand["auction"]]
    a = bid_advice(st["live"]["mine"], me, auction=auction or None, deals=options["deals"],
                   seed=options["seed"], fixed_lead=fixed_lead,
                   search="playout" if playout else "double-dummy")
    assert ("one opening lead" in page.inner_text("#advice-note")) == fixed_lead
    assert ("played out by players who see only their own tiles"
            in page.inner_text("#advice-note")) == playout
    if playout:  # every declaration is on offer, so the default screen leaves some out
        assert a.screened and page.inner_text("#advice-screened") == \
            f"not played out: {', '.join(a.screened)}"
    rec = a.recommendation
    shown = page.inner_text("#advice-recommendation")
    if rec.bid is None or rec.declaration is None:
        assert shown == "pass"
    else:
        assert shown.startswith(str(rec.bid) if rec.bid < 42 else f"{rec.bid // 42} mark")
        assert rec.declaration in shown
        assert js_percent(rec.chance.made / rec.chance.deals) in shown
    assert f"over {a.deals} random deals" in page.inner_text("#advice-note")
    cells = 0
    # Nello needs the house rule's marks (2 by default): below them its cells are blank.
    nello_least = 42 * st["record"].get("rules", {}).get("nello_min_marks", 2)
    for d in a.declarations:
        row = page.query_selector(f"#advice-table tr[data-declaration='{d.declaration}']")
        assert row is not None, d.declaration
        for chance in d.bids:
            cell = row.query_selector(f"td[data-bid='{chance.bid}']")
            if cell is None:
                continue
            if d.declaration == "nello" and chance.bid < nello_least:
                assert cell.inner_text() == BLANK and "na" in cell.get_attribute("class")
            else:
                assert cell.inner_text() == js_percent(chance.made / chance.deals)
                cells += 1
    assert cells > 0


def shown_hint(page) -> dict[str, tuple[str, float]]:
    """The hint table's figures by tile: the chance as shown ("80%") and the mean."""
    return {r.get_attribute("data-tile"): (r.query_selector("td.chance").inner_text(),
                                           float(r.query_selector("td.mean").inner_text()))
            for r in page.query_selector_all("#hint-table tbody tr")}


def check_hint(t: Table) -> None:
    """The hint shown is `hint` for the person's view, the same deals and seed, from the
    person's side: the declaring side's P(make) and mean, or a defender's P(set) (100%
    less the P(make) shown rounded) and the points (tricks) the defenders take."""
    page = t.page
    page.click("#hint-button")
    page.wait_for_selector("body[data-hint='shown']")
    st = page.evaluate("T42Play.state()")
    options = page.evaluate("T42Play.hintOptions")
    hand = st["record"]["hands"][-1]
    me = page.input_value("#seat")
    view = {"seat": me, "hands": {me: st["live"]["mine"]}, "contract": hand["contract"],
            "plays": hand["plays"]}
    h = hint(view, deals=options["deals"], seed=options["seed"])
    total = 7 if h.unit == "tricks" else 42
    assert page.get_attribute("#hint-table", "data-side") == \
        ("declaring" if h.declaring else "defending")
    assert page.inner_text("#hint-table th.chance") == ("P(make)" if h.declaring else "P(set)")
    assert page.inner_text("#hint-side").startswith("You declare" if h.declaring else "You defend")
    shown = shown_hint(page)
    assert set(shown) == set(h.moves)
    for tile, move in h.moves.items():
        chance = js_round(move.p_make) if h.declaring else 100 - js_round(move.p_make)
        mean = move.mean if h.declaring else total - move.mean
        assert shown[tile][0] == f"{chance}%"
        assert abs(shown[tile][1] - mean) <= 0.05 + 1e-9
    note = page.inner_text("#hint-note")
    if h.method == "sampled":
        assert f"{h.deals} of {h.count:,} consistent deals, sampled (seed {h.seed})" in note
    else:
        assert f"all {h.count:,} consistent deals (exact)" in note
    best = {r.get_attribute("data-tile") for r in page.query_selector_all("#hint-table tr.best")}
    assert best == set(h.best)


def act(t: Table, state: str, keyboard: bool, hand_no: int) -> None:
    """The person's move: a call (pass when it may, else the lowest bid; in every third
    hand the lowest bid), the first declaration, the first tile to lay away, the first
    legal tile; by click or by keyboard."""
    page = t.page
    done = int(page.get_attribute("body", "data-actions"))
    _act(t, state, keyboard, hand_no)
    # Each move of the person counts once the page has taken it (the state may come
    # back to the same one at once: the person leads the next trick).
    page.wait_for_function(f"Number(document.body.dataset.actions) > {done}")


def _act(t: Table, state: str, keyboard: bool, hand_no: int) -> None:
    page = t.page
    if state == "call":
        buttons = page.query_selector_all("#calls button")
        bids = [b.get_attribute("data-bid") for b in buttons]
        bid = next((b for b in bids if b != "pass"), "pass")
        want = "pass" if "pass" in bids and hand_no % 3 != 1 else bid
        target = f"#calls button[data-bid='{want}']"
    elif state in ("declare", "discard"):
        if state == "discard" and not page.query_selector("#discard-tiles button.chosen"):
            tile = page.query_selector("#discard-tiles button")
            tile.click() if not keyboard else (tile.focus(), page.keyboard.press("Enter"))
            page.wait_for_selector("#discard-tiles button.chosen")
        target = "#declarations button:not([disabled])"
    else:
        target = "#my-hand button.legal:not([disabled])"
    if not keyboard:
        page.click(target)
        return
    # Tab from the table into the choices, as a person with a keyboard would.
    page.focus("#table")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches(\"{target}\")"):
            break
    else:
        raise AssertionError(f"Tab never reached {target}")
    if state == "play":
        # Arrows move among the legal tiles only; the last one wraps to the first.
        legal = page.query_selector_all(target)
        if len(legal) > 1:
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowLeft")
        assert page.evaluate("document.activeElement.classList.contains('legal')")
    page.keyboard.press("Enter")


def check_hand_end(t: Table, web_server) -> None:
    """The hand's analysis: a row per play (costs as AnalyzeHand gives them), bid advice
    beside every call, and the replay with all hands open."""
    page = t.page
    page.wait_for_selector("body[data-analysis='shown'][data-busy='0']")
    st = page.evaluate("T42Play.state()")
    hand = st["record"]["hands"][-1]
    assert set(hand["hands"]) >= {"N", "E", "S"}
    rows = page.query_selector_all("#call-advice tbody tr")
    assert len(rows) == len(hand["auction"])
    assert all(r.get_attribute("data-advice") for r in rows)
    assert "Deal seed" in page.inner_text("#seed-note")   # a seeded game: a practice table
    assert page.is_visible("#practice-note")
    # Each bot's calls and plays, with the figures it used (RevealHand's decisions).
    me = st["record"]["hands"][-1]
    bot_calls = [c for c in me["auction"] if c["seat"] != "S"]
    reasons = page.query_selector_all("#bot-reasons tbody tr")
    assert len(reasons) >= len(bot_calls) and (reasons or not bot_calls)
    if hand.get("contract"):
        assert len(page.query_selector_all("#analysis tbody tr")) == len(hand["plays"])
        page.click("#replay-button")
        page.wait_for_selector("body[data-replay-step='0']")
        page.click("#replay-forward")
        page.wait_for_selector("body[data-replay-step='1']")
        # Every seat's tiles are face up in the replay.
        faces = page.query_selector_all("#replay-table .seat .tile")
        assert len(faces) == 7 * len(hand["hands"]) - 1


def play_game(t: Table, web_server, artifacts: Path, *, phone: bool, keyboard: bool,
              a11y: Callable[[str], None] | None = None) -> dict:
    """Plays the game to its end; returns the downloaded record. `a11y(screen)`, when
    given, checks the auction, the play with a hint, the first hand's end and the final
    score as each is first shown."""
    page = t.page
    a11y = a11y or (lambda screen: None)
    hand_no = 1
    advised = hinted = False
    shots = set()
    while True:
        state = settle(page)
        assert state != "error", page.inner_text("#error")
        check_nothing_covered(page)
        if state == "call" and not advised:
            check_advice(t)
            shot(t, artifacts, "1-auction", phone)
            a11y("auction, advice")
            advised = True
        if state == "play" and not hinted:
            check_hint(t)
            shot(t, artifacts, "2-play-hint", phone)
            a11y("play, hint")
            hinted = True
        if state in ("call", "declare", "discard", "play"):
            act(t, state, keyboard, hand_no)
            continue
        check_hand_end(t, web_server)
        if "3-hand-end" not in shots:
            shot(t, artifacts, "3-hand-end", phone)
            a11y("hand end, analysis, replay")
            shots.add("3-hand-end")
        if state == "game-over":
            break
        hand_no += 1
        page.click("#next-hand")
        page.wait_for_selector(f"body[data-hand='{hand_no}']")
    page.wait_for_selector("#final:not([hidden])")
    shot(t, artifacts, "4-final", phone)
    a11y("final score")
    with page.expect_download() as download:
        page.click("#download")
    return json.loads(Path(download.value.path()).read_text())


def check_pad(t: Table, web_server, record: dict) -> None:
    """The score pad is CheckGame's on the downloaded record, and `read_game`'s."""
    game = read_game(record)
    assert game.winner is not None
    answer = connect(web_server, "CheckGame", {"record": record_message(record)})
    assert answer["winner"] == game.winner
    rows = t.page.query_selector_all("#score-pad tbody tr")
    assert len(rows) == len(answer["hands"]) == len(record["hands"])
    for row, result, hand in zip(rows, answer["hands"], game.hands):
        shown = {c.get_attribute("data-key"): int(c.inner_text())
                 for c in row.query_selector_all("td[data-key]")}
        assert shown == {k: result.get("score", {}).get(k, 0) for k in shown}
        assert shown == {k: hand.score.get(k, 0) for k in shown}
        text = row.inner_text()
        if hand.made is not None:
            assert ("made" if hand.made else "set") in text
    assert f"{game.winner} wins" in t.page.inner_text("#final")
    assert game.score == answer["score"]
    # The final score names the sides (players) in the pad's order, with the pad's last line.
    keys = [c.get_attribute("data-key") for c in rows[-1].query_selector_all("td[data-key]")]
    assert f"Final score {', '.join(f'{k} {game.score.get(k, 0)}' for k in keys)}." in \
        t.page.inner_text("#final")


def _tiles(data) -> set[str]:
    """Every tile named in a request or an answer: of a record only its last hand (the
    earlier ones are revealed), the sealed token left out."""
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "sealed"}
        if "record" in data:
            data["record"] = (data["record"].get("hands") or [{}])[-1]
        if "score" in data and "hands" in data:  # a score pad: the last hand is the one in play
            data["hands"] = data["hands"][-1:]
    return set(TILE.findall(json.dumps(data)))


def check_nothing_hidden(t: Table, record: dict, me: str) -> None:
    """From a hand's deal to its reveal, no request or answer names a tile of another
    seat's hand (or the widow) that has not been played yet."""
    hand_index = -1
    live = False
    played: set[str] = set()
    checked = 0
    for method, request, answer in t.answers:
        if method == "DealHand":
            hand_index = len(request["record"].get("hands", []))
            live, played, mine = True, set(), set(answer["hand"])
            full = record["hands"][hand_index]
            hidden = {tile for seat, tiles in full["hands"].items() if seat != me
                      for tile in tiles} | ({full["widow"]} if full.get("widow") else set())
            assert _tiles(answer) <= mine
            continue
        if method == "RevealHand":
            live = False
            continue
        if not live:
            continue
        assert method in ("CheckGame", "NextAction", "Hint", "BidAdvice", "TakeWidow"), method
        hand = (request.get("record") or {}).get("hands", [{}])[-1:] or [{}]
        played |= set(hand[0].get("plays", [])) | set(request.get("view", {}).get("plays", []))
        assert not hand[0].get("hands") or set(hand[0]["hands"]) <= {
            {"N": "north", "E": "east", "S": "south", "W": "west"}[me]}
        if method == "NextAction" and answer.get("action") == "GAME_ACTION_PLAY":
            played.add(answer["tile"])
        if method == "TakeWidow" or answer.get("next") == {
                "seat": f"SEAT_{SEAT_WORD[me]}", "action": "GAME_ACTION_DISCARD"}:
            played |= _tiles(answer)  # the person won the auction: the widow is theirs
        leaked = (_tiles(request) | _tiles(answer)) & hidden - played
        assert not leaked, (method, leaked, hand_index)
        checked += 1
    assert checked > 20


def bot_median(t: Table) -> dict[str, float]:
    timings = t.page.evaluate("T42Play.timings")
    out = {}
    for bot in sorted({x["bot"] for x in timings}):
        ms = [x["ms"] for x in timings if x["bot"] == bot]
        out[bot] = statistics.median(ms)
        print(f"\nbot {bot}: median {out[bot]:.0f} ms from its turn to its call or play on the "
              f"page, over {len(ms)} turns (max {max(ms):.0f} ms)")
    return out


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_whole_seeded_game(table, web_server, artifacts, axe, size):
    """A game to its end. axe-core finds no serious violation on its final score (on a
    phone also on the setup form, the auction, the play and the hand's end: the desktop
    has those in test_no_serious_accessibility_violation)."""
    phone = size == "phone"
    t = table(PHONE if phone else DESKTOP)
    t.open()
    found: dict[str, list] = {}

    def a11y(screen: str) -> None:
        if phone or screen == "final score":
            found[screen] = axe.blocking(t.page)
    a11y("setup")
    # The table's advice bots at modest deals: a whole game stays quick.
    t.page.evaluate("T42Play.botOptions = {adviceDeals: 24, hintDeals: 24}")
    start(t, seed=7 if phone else 3, bot="advice")
    record = play_game(t, web_server, artifacts, phone=phone, keyboard=phone, a11y=a11y)
    assert found == {screen: [] for screen in found}, found
    assert "final score" in found
    check_pad(t, web_server, record)
    check_nothing_hidden(t, record, "S")
    medians = bot_median(t)
    assert set(medians) == {"advice"}   # the table's bots, fixed when it was set
    assert medians["advice"] < 1000

    # The same game in a link: the page loads it to replay and analyse its hands.
    other = table(PHONE if phone else DESKTOP)
    fragment = "#game=" + base64.urlsafe_b64encode(json.dumps(record).encode()).decode().rstrip("=")
    other.open(fragment)
    other.page.wait_for_selector("body[data-state='game-over'][data-analysis='shown'][data-busy='0']")
    check_pad(other, web_server, record)
    # Besides the bots on offer (ListBots), only the record is checked and analysed.
    assert not other.answers or all(m in ("CheckGame", "AnalyzeHand", "BidAdvice", "ListBots")
                                    for m, _, _ in other.answers)


def test_the_same_game_seed_deals_the_same_hands(table, web_server):
    """Hand k's deal comes from the game seed: two pages with one seed get one deal."""
    hands = []
    for _ in range(2):
        t = table(DESKTOP)
        t.open()
        start(t, seed=11, bot="rule")
        settle(t.page)
        hands.append(t.page.evaluate("T42Play.state().live.mine"))
        assert hands[-1] and len(hands[-1]) == 7
    assert hands[0] == hands[1]


def test_a_loaded_game_in_progress_goes_on(table, web_server):
    """A record of the first hand, loaded from a link, is played on from its second hand
    (dealt with the game seed's second seed)."""
    t = table(DESKTOP)
    t.open()
    start(t, seed=13, bot="rule")
    page = t.page
    while (state := settle(page)) not in ("hand-over", "game-over"):
        act(t, state, False, 2)
    page.wait_for_selector("body[data-analysis='shown'][data-busy='0']")
    page.click("#copy-link")
    page.wait_for_function("location.hash.startsWith('#game=')")
    fragment = page.evaluate("location.hash")
    record = page.evaluate("T42Play.finishedRecord()")
    assert len(record["hands"]) == 1

    other = table(DESKTOP)
    other.open(fragment)
    other.page.wait_for_selector("body[data-state='review'][data-analysis='shown'][data-busy='0']")
    assert other.page.evaluate("T42Play.finishedRecord()") == record
    other.page.click("#continue-game")
    other.page.fill("#game-seed", "13")
    other.page.select_option("#bot", "rule")
    other.page.fill("#pause", "0")
    other.page.click("#start")
    other.page.wait_for_selector("body[data-hand='2']")
    settle(other.page)
    deal = [a for m, _, a in other.answers if m == "DealHand"]
    assert len(deal) == 1
    page.click("#next-hand")
    page.wait_for_selector("body[data-hand='2']")
    settle(page)
    assert page.evaluate("T42Play.state().live.mine") == deal[0]["hand"]


def test_the_page_offers_every_bot_that_plays_from_its_view():
    """The page's bots are NextAction's, less the two that are not a table's opponents:
    ``cheat`` (sees every hand) and ``hint`` (``advice`` playing the full hint)."""
    from server.game_convert import NEXT_ACTION_BOTS
    html = (Path(__file__).parent.parent / "solver/show/web/play.html").read_text()
    select = html[html.index('<select id="bot">'):]
    offered = re.findall(r'<option value="([^"]+)"', select[:select.index("</select>")])
    assert sorted(offered) == sorted(set(NEXT_ACTION_BOTS) - {"cheat", "hint"})


@pytest.mark.parametrize("bot", ["advice-lead", "advice-both", "seat-view-calls"])
def test_advice_bots_and_advice_with_one_opening_lead(table, web_server, bot):
    """The advice-lead, inference and seat-view-calls bots call through NextAction, and
    the person's bid advice with one opening lead for every deal is
    `advise(..., fixed_lead=True)`'s."""
    t = table(DESKTOP)
    t.open()
    page = t.page
    page.evaluate("T42Play.botOptions = {adviceDeals: 16, hintDeals: 16}")
    start(t, seed=19, bot=bot)
    advised = False
    while (state := settle(page)) == "call" or not advised:
        assert state != "error", page.inner_text("#error")
        if state == "call" and not advised:
            check_advice(t, fixed_lead=True)
            advised = True
        act(t, state, False, 2)
    # The table's bots are set with the table (DealHand), not asked per turn.
    dealt = [r for m, r, _ in t.answers if m == "DealHand"]
    assert [sorted(b["bot"] for b in r["bots"]) for r in dealt] == [[bot] * 3]
    assert all(b["adviceDeals"] == 16 for b in dealt[0]["bots"])
    asked = [r for m, r, _ in t.answers if m == "NextAction"]
    assert asked and not any("bot" in r or "seed" in r for r in asked)
    assert any("call" in a for m, _, a in t.answers if m == "NextAction")


def test_moon_three_players_is_played_to_the_end(table, web_server, artifacts):
    """Three-player Moon: the widow and the discard; a bot's discard stays hidden."""
    t = table(DESKTOP)
    t.open()
    start(t, seed=5, bot="rule", game="moon3", seat="N")
    page = t.page
    hand_no = 1
    while True:
        state = settle(page)
        assert state != "error", page.inner_text("#error")
        if state == "call":
            # No advice with one opening lead: the declarer leads after its discard.
            assert page.is_hidden("#fixed-lead-label")
        if state in ("call", "declare", "discard", "play"):
            act(t, state, False, hand_no)
            continue
        page.wait_for_selector("body[data-analysis='shown'][data-busy='0']")
        if state == "game-over" or hand_no >= 4:
            break
        hand_no += 1
        page.click("#next-hand")
        page.wait_for_selector(f"body[data-hand='{hand_no}']")
    record = page.evaluate("T42Play.finishedRecord()")
    game = read_game(record)
    assert len(game.hands) == hand_no
    assert any(h.get("widow") for h in record["hands"])
    check_nothing_hidden(t, record, "N")
    page.screenshot(path=str(artifacts / "5-moon.png"), full_page=True)


def test_no_serious_accessibility_violation(table, web_server, axe):
    t = table(DESKTOP)
    t.open()

    def serious() -> list:
        return axe.blocking(t.page)
    assert serious() == []  # the setup form
    start(t, seed=3, bot="rule")
    state = settle(t.page)
    assert state == "call"
    assert serious() == []  # the auction
    while state != "play":
        act(t, state, False, 1)
        state = settle(t.page)
    check_hint(t)
    assert serious() == []  # the play, with a hint
    while state not in ("hand-over", "game-over"):
        act(t, state, False, 1)
        state = settle(t.page)
    t.page.wait_for_selector("body[data-analysis='shown'][data-busy='0']")
    t.page.click("#replay-button")
    t.page.wait_for_selector("body[data-replay-step='0']")
    assert serious() == []  # the hand's analysis and its replay


def defended_hand(t: Table) -> None:
    """Seed 1 with the rule bots, the person passing: East declares (deuces, 30), and
    the page waits for the person's first play."""
    start(t, seed=1, bot="rule")
    while (state := settle(t.page)) == "call":
        act(t, state, False, 2)
    assert state == "play"
    assert t.page.evaluate("T42Play.state().record.hands[0].contract.declarer") == "E"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_defenders_hint_is_the_defending_sides(table, web_server, artifacts, size):
    """A defender's hint shows its own side's figures: P(set), 100% less the declarer's
    P(make) as the page rounds it, and the points the defenders take, 42 less the
    declaring side's mean, from the same Hint answer; the tiles' badges say the same,
    and the best tiles are those that set the contract most often."""
    phone = size == "phone"
    t = table(PHONE if phone else DESKTOP)
    t.open()
    defended_hand(t)
    page = t.page
    check_hint(t)
    answer = [a for m, _, a in t.answers if m == "Hint"][-1]
    assert not answer.get("declaring")
    assert page.inner_text("#hint-table th.chance") == "P(set)"
    assert page.inner_text("#hint-table th.mean") == "your side's points (mean)"
    assert "100% less the declarer's P(make)" in page.inner_text("#hint-side")
    shown = shown_hint(page)
    for move in answer["moves"]:
        p_set = 100 - js_round(move.get("pMake", 0))
        assert shown[move["tile"]][0] == f"{p_set}%"
        assert abs(shown[move["tile"]][1] - (42 - move.get("mean", 0))) <= 0.05 + 1e-9
        badge = page.inner_text(f"#my-hand button[data-tile='{move['tile']}'] .badge").split()
        assert badge == [f"{p_set}%", f"{42 - move.get('mean', 0):.1f}"]
    best = {r.get_attribute("data-tile") for r in page.query_selector_all("#hint-table tr.best")}
    assert best == set(answer["best"])
    top = max(int(chance[:-1]) for chance, _ in shown.values())
    assert all(int(shown[tile][0][:-1]) == top for tile in best)
    shot(t, artifacts, "6-defender-hint", phone)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_trick_and_its_winner_cover_no_tile(table, web_server, artifacts, size):
    """Every play of a hand and its last trick with the line naming its winner: no
    label, bubble or tile on the table covers another, and the trick's labels stay in
    the trick's box (on a phone the bubble once covered North's tile)."""
    phone = size == "phone"
    t = table(PHONE if phone else DESKTOP)
    t.open()
    defended_hand(t)
    page = t.page
    state = "play"
    while state not in ("hand-over", "game-over"):
        check_nothing_covered(page)
        act(t, state, False, 2)
        state = settle(page)
    assert page.is_visible("#trick-winner")
    assert len(page.query_selector_all("#table .trick .played")) == 4
    check_nothing_covered(page)
    page.locator("#table").screenshot(path=str(
        artifacts / f"7-trick-winner-{'phone' if phone else 'desktop'}.png"))


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_bid_advice_says_why_cells_are_blank_and_that_it_scrolls(table, web_server, artifacts,
                                                                  size):
    """Sevens and nello have no figure below the marks they need (1, and the house rule's 2)
    and no mean, and a note says so; on a phone the table is wider than its box, and a
    line above it says that it scrolls sideways (on the desktop it fits, with no line)."""
    phone = size == "phone"
    t = table(PHONE if phone else DESKTOP)
    t.open()
    start(t, seed=1, bot="rule")
    assert settle(t.page) == "call"
    check_advice(t)
    page = t.page
    for name, least in (("sevens", 42), ("nello", 84)):
        row = f"#advice-table tr[data-declaration='{name}']"
        assert page.inner_text(f"{row} td.mean") == BLANK
        cells = page.query_selector_all(f"{row} td[data-bid]")
        assert cells and any(int(c.get_attribute("data-bid")) < least for c in cells)
        for cell in cells:
            if int(cell.get_attribute("data-bid")) < least:
                assert cell.inner_text() == BLANK
            else:
                assert cell.inner_text().endswith("%")
    note = page.inner_text("#advice-blanks")
    assert "sevens on a bid of 1 mark or more" in note
    assert "nello on 2 marks or more (house rule)" in note
    assert "Sevens and nello have no mean" in note
    page.wait_for_selector("#advice .scroll[data-overflow]", state="attached")
    overflow = page.evaluate("(() => { const r = document.querySelector('#advice .scroll'); "
                             "return r.scrollWidth > r.clientWidth; })()")
    assert overflow == phone
    assert page.get_attribute("#advice .scroll", "data-overflow") == ("1" if phone else "0")
    assert page.is_visible("#advice .scroll-cue") == phone
    if phone:
        assert "Scroll sideways" in page.inner_text("#advice .scroll-cue")
    shot(t, artifacts, "8-bid-advice", phone)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_new_game_mid_hand_asks_first(table, web_server, artifacts, axe, size):
    """New game during a hand opens a dialog (axe finds nothing serious in it): Cancel
    (or Escape) keeps the hand as it was; Leave goes to the setup form."""
    phone = size == "phone"
    t = table(PHONE if phone else DESKTOP)
    t.open()
    page = t.page
    start(t, seed=1, bot="rule")
    assert settle(page) == "call"
    before = page.evaluate("T42Play.state()")
    page.click("#new-game")
    page.wait_for_selector("#leave-dialog[open]")
    assert page.evaluate("document.activeElement.id") == "leave-cancel"
    assert "Leave this game?" in page.inner_text("#leave-dialog")
    assert axe.blocking(page) == []
    shot(t, artifacts, "9-leave-dialog", phone)
    page.click("#leave-cancel")
    page.wait_for_selector("#leave-dialog", state="hidden")
    assert page.get_attribute("body", "data-state") == "call"
    assert page.is_visible("#game") and page.is_hidden("#setup")
    assert page.evaluate("T42Play.state()") == before
    page.click("#new-game")
    page.wait_for_selector("#leave-dialog[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#leave-dialog", state="hidden")
    assert page.evaluate("T42Play.state()") == before
    # The hand goes on after a Cancel.
    act(t, "call", phone, 2)
    assert settle(page) in ("call", "declare", "play")
    page.click("#new-game")
    page.wait_for_selector("#leave-dialog[open]")
    page.click("#leave-confirm")
    page.wait_for_selector("body[data-state='setup']")
    assert page.is_visible("#setup") and page.is_hidden("#game")
    # With no game under way, New game asks nothing.
    page.click("#new-game")
    assert page.is_hidden("#leave-dialog") and page.is_visible("#setup")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_moon_lay_away_marks_the_widow(table, web_server, artifacts, size):
    """Three-player Moon: of the eight tiles the declarer may lay away, the widow (and
    only it) carries a visible mark, and its name says so."""
    phone = size == "phone"
    t = table(PHONE if phone else DESKTOP)
    t.open()
    page = t.page
    start(t, seed=5, bot="rule", game="moon3", seat="N")
    while (state := settle(page)) == "call":
        act(t, state, False, 1)
    assert state == "discard"
    widow = page.evaluate("T42Play.state().live.widow")
    tiles = page.query_selector_all("#discard-tiles button")
    assert len(tiles) == 8
    marked = [b.get_attribute("data-tile") for b in tiles if b.query_selector(".widow-mark")]
    assert marked == [widow]
    mark = page.locator(f"#discard-tiles button[data-tile='{widow}'] .widow-mark")
    assert mark.is_visible() and mark.inner_text() == "widow"
    assert page.get_attribute(f"#discard-tiles button[data-tile='{widow}']", "aria-label") == \
        f"{widow} (the widow)"
    page.locator("#declare-panel").screenshot(path=str(
        artifacts / f"10-moon-widow-{'phone' if phone else 'desktop'}.png"))


def test_the_rules_page_is_written_from_the_rules_docs():
    """rules.html, which the server serves, is docs/rules/texas42.md and moon.md as
    docs/_gen/rules_page.py writes them: run it after editing either page."""
    pytest.importorskip("markdown")
    import importlib.util
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("rules_page", root / "docs/_gen/rules_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (root / "solver/show/web/rules.html").read_text() == module.rules_html(), \
        "rules.html is out of date: python docs/_gen/rules_page.py"


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_rules_link_opens_the_rules(table, web_server, artifacts, axe, size):
    """The game page links the rules in a new tab (the game goes on), at the Moon rules
    for a Moon game; the rules page is served, fits a phone and passes axe."""
    phone = size == "phone"
    t = table(PHONE if phone else DESKTOP)
    t.open()
    page = t.page
    assert page.get_attribute("#rules-link", "target") == "_blank"
    page.check("input[name='game'][value='moon3']")
    assert page.evaluate("new URL(document.getElementById('rules-link').href).hash") == "#moon"
    page.check("input[name='game'][value='42']")
    assert page.evaluate("new URL(document.getElementById('rules-link').href).hash") == ""
    with t.context.expect_page() as opened:
        page.click("#rules-link")
    rules = opened.value
    rules.wait_for_load_state()
    assert rules.url.endswith("/rules.html")
    headings = rules.locator("main h2").all_inner_texts()
    assert headings == ["The rules of 42", "The rules of Moon"]
    assert rules.locator("#moon-three-players").count() == 1
    assert rules.evaluate("document.documentElement.scrollWidth <= innerWidth")
    assert axe.blocking(rules) == []
    rules.screenshot(path=str(artifacts / f"11-rules-{size}.png"))
    assert page.get_attribute("body", "data-state") == "setup"  # the game page stays
