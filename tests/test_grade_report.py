"""`t42 report` over seat-view grades: per player decisions and mistakes per hand by phase,
marks and points lost, the price of hidden information and luck per hand with their
intervals (clustered by hand), the worst decisions with their game and hand; text, JSON
and HTML.

The figures are checked twice: on a few hand-made grading lines whose every figure is
known, and on real gradings of arena games between the project's bots, recomputed here
from the grading lines. On those games the report must order the bots as their
duplicate results do: the random bot loses the most per hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from test_batch import t42, write_lines

from solver.hidden.stats import clustered_mean, mean_of, t_quantile_975
from solver.show.grade_report import PHASES, format_grade_report, phase_of, read_grade_report
from solver.show.report import ReportLineError

# ------------------------------------------------------------ hand-made lines


def loss(value: float, low: float | None = None, high: float | None = None) -> dict:
    return {"value": value, "low": value if low is None else low,
            "high": value if high is None else high, "exact": low is None}


def decision(kind: str, seat: str, index: int, *, marks: float = 0.0,
             points: float | None = None, mistake: bool = False, trick: int | None = None,
             method: str = "sampled", choice: str = "x", best: str = "y") -> dict:
    d = {"kind": kind, "index": index, "seat": seat, "choice": choice}
    if trick is not None:
        d["trick"] = trick
    d.update({"best": best, "best_for_make": best, "method": method, "deals": 10,
              "count": None, "unit": None if points is None else "points",
              "loss": None if points is None else loss(points),
              "p_make_loss": None, "marks_loss": loss(marks), "mistake": mistake,
              "options": []})
    return d


def seats(**luck: float) -> dict:
    """Seat summaries with the given luck; each seat's information term minus a tenth of
    its luck's size (a price of a tenth of it)."""
    return {s: {"decisions": 1, "mistakes": 0, "loss": 0, "marks_loss": 0, "skill": 0,
                "information": -abs(v) / 10, "luck": v} for s, v in luck.items()}


def by_hand(values: list[float], hands: list) -> tuple[float, float, float]:
    """(mean, low, high) of ``values`` with a standard error clustered by ``hands``,
    computed here from its formula: G/(G-1) sum_g (Y_g - m n_g)^2 / N^2, t on G-1."""
    n = len(values)
    m = sum(values) / n
    clusters: dict = {}
    for x, h in zip(values, hands):
        y, k = clusters.get(h, (0.0, 0))
        clusters[h] = (y + x, k + 1)
    g = len(clusters)
    se = math.sqrt(g / (g - 1) * sum((y - m * k) ** 2 for y, k in clusters.values()) / n ** 2)
    half = t_quantile_975(g - 1) * se
    return m, m - half, m + half


GAME = {
    "id": "g1", "meta": {"arena": {"NS": "alpha", "EW": "beta"}}, "game": "42",
    "players": 4, "seat_view": {"deals": 10},
    "hands": [
        {"hand": 0, "decisions": [
            decision("call", "N", 0, marks=0.5, mistake=True),
            decision("call", "E", 1),
            decision("declaration", "N", 2, marks=0.2),
            decision("play", "E", 0, trick=1, marks=0.1, points=3.0),
            decision("play", "S", 1, trick=1, points=1.0),
            decision("declaration", "W", 2, method="ungraded", marks=9.0)],
         "seats": seats(N=2.0, E=-1.0, S=2.0)},
        {"hand": 1, "decisions": [
            decision("call", "E", 0, marks=0.3),
            decision("play", "E", 0, trick=1, points=0.0),
            decision("play", "N", 5, trick=2, marks=0.8, points=6.0, mistake=True)],
         "seats": seats(E=0.5, N=-3.0)}],
    "score": {}, "winner": None}
HAND = {"id": "h1", "meta": {"players": {"N": "alpha", "E": "Bob", "S": "Cy", "W": "Dee"}},
        "seat_view": {"deals": 10}, "game": "42",
        "decisions": [decision("play", "N", 0, trick=1, marks=0.4, points=2.0)],
        "seats": seats(N=1.0)}


def test_hand_made_lines_give_their_figures():
    lines = [json.dumps(GAME), '{"error": {"field": "x", "reason": "y", "code": "Z"}}',
             json.dumps(HAND)]
    report = read_grade_report(lines, worst=3)
    assert (report.records, report.hands, report.errors) == (2, 3, 1)
    alpha, beta = report.players["alpha"], report.players["beta"]
    # alpha: N and S of hand 0, N of hand 1, N of the hand record.
    assert alpha.marks_lost == pytest.approx([0.7, 0.0, 0.8, 0.4])
    assert alpha.points_lost == pytest.approx([0.0, 1.0, 6.0, 2.0])
    assert alpha.luck == pytest.approx([2.0, 2.0, -3.0, 1.0])
    assert alpha.information == pytest.approx([0.2, 0.2, 0.3, 0.1])   # the price: >= 0
    assert alpha.hands_of == [(1, 0), (1, 0), (1, 1), (3, None)]
    assert beta.marks_lost == pytest.approx([0.1, 0.3])
    assert beta.points_lost == pytest.approx([3.0, 0.0])
    assert (alpha.decisions, alpha.mistakes, beta.decisions, beta.mistakes) == (5, 2, 4, 0)
    assert {p: (f.decisions, f.mistakes) for p, f in alpha.phases.items()} == {
        "auction": (1, 1), "declaration": (1, 0), "opening lead": (1, 0),
        "later plays": (2, 1)}
    assert {p: f.decisions for p, f in beta.phases.items()} == {
        "auction": 2, "declaration": 0, "opening lead": 2, "later plays": 0}
    assert "Dee" not in report.players            # only an ungraded decision

    out = report.to_json()
    assert list(out["players"]) == ["alpha", "beta"]     # most marks lost first
    # Intervals clustered by hand: N's and S's seat-hands of hand 0 are one cluster.
    figures = out["players"]["alpha"]["marks_lost_per_hand"]
    mean, low, high = by_hand([0.7, 0.0, 0.8, 0.4], alpha.hands_of)
    expected = clustered_mean([0.7, 0.0, 0.8, 0.4], alpha.hands_of)
    assert (expected.mean, expected.low, expected.high) == pytest.approx((mean, low, high))
    assert figures == {"mean": pytest.approx(0.475), "low": pytest.approx(low, abs=1e-6),
                       "high": pytest.approx(high, abs=1e-6)}
    price = out["players"]["alpha"]["information_price_per_hand"]
    assert (price["mean"], price["low"], price["high"]) == pytest.approx(
        by_hand([0.2, 0.2, 0.3, 0.1], alpha.hands_of), abs=1e-6)
    assert out["players"]["alpha"]["phases"]["later plays"]["mistakes_per_hand"] == 0.25
    # The worst three, by marks lost, each with its line, game and hand.
    assert [(w["player"], w["line"], w["id"], w["hand"], w["kind"], w["index"])
            for w in out["worst"]] == [("alpha", 1, "g1", 1, "play", 5),
                                       ("alpha", 1, "g1", 0, "call", 0),
                                       ("alpha", 3, "h1", None, "play", 0)]
    text = format_grade_report(report)
    assert text.startswith("2 records graded, 3 hands, 1 records that could not be graded")
    assert "* alpha  g1 (line 1), hand 2, play 6 (trick 2)" in text
    row = next(r for r in text.splitlines() if r.strip().startswith("alpha "))
    assert row.split()[1:6] == ["4", "5", "2", f"{expected.mean:.2f}", f"({expected.low:.2f}"]
    assert "information price/hand (95%)" in text and "clustered by hand" in text
    assert f"{price['mean']:.2f} ({price['low']:.2f} .. {price['high']:.2f})" in row


def test_intervals_cluster_the_seat_hands_of_a_hand():
    """A bot that holds both seats of a side has two seat-hands a hand, alike when the
    deal favours the side: clustered by hand, its interval is that of one figure a hand
    (the pairs add no independent evidence), not the narrower one of twice as many
    independent seat-hands."""
    lucks = [3.0, -1.0, 4.5, -2.0, 0.5, 1.0, -3.5, 2.0]
    hands = []
    for k, luck in enumerate(lucks):
        hands.append({"hand": k, "decisions": [
            decision("play", "N", 0, trick=1, points=1.0),
            decision("play", "S", 2, trick=1, points=1.0)],
            "seats": seats(N=luck, S=luck)})
    line = {"id": "g", "meta": {"arena": {"NS": "pair", "EW": "other"}}, "game": "42",
            "players": 4, "seat_view": {"deals": 10}, "hands": hands}
    report = read_grade_report([json.dumps(line)])
    pair = report.players["pair"]
    assert pair.hands == 16 and len(set(pair.hands_of)) == 8
    clustered = pair.luck_estimate
    per_hand = mean_of(lucks)
    assert (clustered.mean, clustered.se, clustered.low, clustered.high) == pytest.approx(
        (per_hand.mean, per_hand.se, per_hand.low, per_hand.high))
    independent = mean_of(pair.luck)
    assert independent.high - independent.low < 0.7 * (clustered.high - clustered.low)
    # A player of one seat a hand: clustering changes nothing.
    one = clustered_mean(lucks, list(range(8)))
    assert (one.low, one.high) == pytest.approx((per_hand.low, per_hand.high))


def test_a_grading_made_before_the_information_term_has_no_price():
    old = json.loads(json.dumps(HAND))
    for summary in old["seats"].values():
        del summary["information"]
    report = read_grade_report([json.dumps(old)])
    assert report.players["alpha"].information == [None]
    assert report.to_json()["players"]["alpha"]["information_price_per_hand"] == \
        {"mean": None, "low": None, "high": None}
    row = next(r for r in format_grade_report(report).splitlines()
               if r.strip().startswith("alpha "))
    assert " - " in row


def test_phases():
    assert [phase_of(decision(k, "N", i)) for k, i in
            (("call", 3), ("declaration", 4), ("discard", 4), ("play", 0), ("play", 1))] \
        == ["auction", "declaration", "declaration", "opening lead", "later plays"]
    assert PHASES == ("auction", "declaration", "opening lead", "later plays")


@pytest.mark.parametrize("line, where", [
    ("[1, 2]", "grades: a line must be a JSON object"),
    ('{"hands": []}', "seat_view: required"),
    (json.dumps({**HAND, "decisions": [{**HAND["decisions"][0], "kind": "bid"}]}),
     "decisions[0].kind: unknown kind"),
    (json.dumps({**GAME, "hands": [{**GAME["hands"][0], "seats": {"X": {}}}]}),
     "hands[0].seats.X: unknown seat"),
    (json.dumps({**HAND, "decisions": [{**HAND["decisions"][0],
                                        "marks_loss": {"value": "1"}}]}),
     "decisions[0].marks_loss.value: must be a number"),
])
def test_a_line_that_is_no_grading_is_named(line, where):
    with pytest.raises(ReportLineError) as caught:
        read_grade_report([json.dumps(HAND), line])
    assert caught.value.line == 2
    assert f"{caught.value.field}: {caught.value.reason}".startswith(where)


# ------------------------------------------------------------- arena games

OPTIONS = ("--deals", "8", "--advice-deals", "8", "--enumerate-limit", "40")


@pytest.fixture(scope="module")
def arena(tmp_path_factory) -> dict:
    """Records and duplicate results of random vs rule (two games) and rule vs advice (one),
    and their gradings by `t42 analyze --seat-view --json`."""
    tmp = tmp_path_factory.mktemp("arena")
    out: dict = {"records": tmp / "records.jsonl", "graded": tmp / "graded.jsonl"}
    lines, stats = [], {}
    for a, b, games in (("random", "rule", "2"), ("rule", "advice", "1")):
        records = tmp / f"{a}-{b}.jsonl"
        done = t42("arena", a, b, "--games", games, "--seed", "3", "--workers", "1",
                   "--advice-deals", "10", "--records", str(records), "--no-progress",
                   "--json")
        assert done.returncode == 0, done.stderr
        stats[a, b] = json.loads(done.stdout)
        lines += records.read_text().splitlines()
    write_lines(out["records"], lines)
    graded = t42("analyze", "--seat-view", "--json", "--no-progress", *OPTIONS,
                 str(out["records"]), timeout=600)
    assert graded.returncode == 0, graded.stderr
    out["graded"].write_text(graded.stdout)
    out["stats"] = stats
    return out


def test_the_report_orders_the_bots_as_duplicate_play_does(arena, tmp_path):
    # Duplicate play: the random bot loses to the rule bot.
    assert arena["stats"]["random", "rule"]["difference"]["ci95"][1] < 0
    html = tmp_path / "report.html"
    done = t42("report", str(arena["graded"]), "--json", "--html", str(html))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    players = report["players"]
    assert set(players) == {"random", "rule", "advice"}
    assert list(players)[0] == "random"                  # the most marks lost a hand
    random, rule, advice = (players[p] for p in ("random", "rule", "advice"))
    for p in (random, rule, advice):
        for figure in ("marks_lost_per_hand", "points_lost_per_hand",
                       "information_price_per_hand", "luck_per_hand"):
            e = p[figure]
            assert e["low"] < e["mean"] < e["high"]
        assert p["information_price_per_hand"]["mean"] > 0
    # Clearly apart: random's interval lies above the others' means.
    assert random["marks_lost_per_hand"]["low"] > rule["marks_lost_per_hand"]["mean"]
    assert random["marks_lost_per_hand"]["low"] > advice["marks_lost_per_hand"]["mean"]
    assert random["points_lost_per_hand"]["mean"] > rule["points_lost_per_hand"]["mean"]

    # Every figure recomputed from the grading lines themselves.
    graded = [json.loads(line) for line in arena["graded"].read_text().splitlines()]
    assert report["records"] == len(graded) == 6
    assert report["hands"] == sum(len(g["hands"]) for g in graded)
    marks: dict = {}
    prices: dict = {}
    clusters: dict = {}
    phases: dict = {}
    for g in graded:
        names = {s: g["meta"]["arena"][side] for side in ("NS", "EW") for s in side}
        for hand in g["hands"]:
            per_seat: dict = {}
            for d in hand["decisions"]:
                if d["method"] == "ungraded":
                    continue
                name = names[d["seat"]]
                per_seat[d["seat"]] = per_seat.get(d["seat"], 0) + d["marks_loss"]["value"]
                counts = phases.setdefault(name, {}).setdefault(phase_of(d), [0, 0])
                counts[0] += 1
                counts[1] += d["mistake"]
            for seat, value in per_seat.items():
                marks.setdefault(names[seat], []).append(value)
                prices.setdefault(names[seat], []).append(-hand["seats"][seat]["information"])
                clusters.setdefault(names[seat], []).append((g["id"], hand["hand"]))
    for name, values in marks.items():
        mean, low, high = by_hand(values, clusters[name])
        assert players[name]["hands"] == len(values)
        assert players[name]["marks_lost_per_hand"]["mean"] == pytest.approx(mean, abs=1e-5)
        assert players[name]["marks_lost_per_hand"]["low"] == pytest.approx(low, abs=1e-5)
        price = by_hand(prices[name], clusters[name])
        assert [players[name]["information_price_per_hand"][k] for k in
                ("mean", "low", "high")] == pytest.approx(list(price), abs=1e-5)
        for phase, (n, mistakes) in phases[name].items():
            assert players[name]["phases"][phase]["decisions"] == n
            assert players[name]["phases"][phase]["mistakes"] == mistakes

    # The worst decisions: by marks lost, each found at its line and hand.
    worst = report["worst"]
    assert len(worst) == 10
    values = [w["marks_loss"]["value"] for w in worst]
    assert values == sorted(values, reverse=True)
    for w in worst:
        hand = graded[w["line"] - 1]["hands"][w["hand"]]
        found = [d for d in hand["decisions"]
                 if (d["kind"], d["index"], d["seat"]) == (w["kind"], w["index"], w["seat"])]
        assert found and found[0]["marks_loss"] == w["marks_loss"]
        assert w["id"] == graded[w["line"] - 1]["id"]

    page = html.read_text()
    assert page.count("<svg") == 5 and page.count("</svg>") == 5
    for title in ("Marks lost per hand by player", "Points lost per hand by player",
                  "Mistakes per hand by phase", "Luck per hand by player",
                  "Price of hidden information per hand by player"):
        assert f'title="{title}"' in page
    assert "<script" not in page and "<img" not in page
    assert "random vs rule, seed 3, game 0" in page        # the worst decisions' games


def test_text_report_and_grading_on_the_fly(arena, tmp_path):
    text = t42("report", str(arena["graded"]), "--worst", "3")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].startswith("6 records graded, ")
    players = text.stdout.split("Players")[1].split("\n\n")[0].splitlines()[2:]
    assert [row.split()[0] for row in players][0] == "random"
    worst = text.stdout.split("Worst decisions")[1].splitlines()[2:]
    assert len(worst) == 3 and all("(line " in row and ", hand " in row for row in worst)

    # Grading the first two records here gives the report of their grading lines.
    first = write_lines(tmp_path / "two.jsonl",
                        arena["records"].read_text().splitlines()[:2])
    graded = write_lines(tmp_path / "two-graded.jsonl",
                         arena["graded"].read_text().splitlines()[:2])
    on_the_fly = t42("report", "--seat-view", str(first), "--json", *OPTIONS)
    assert on_the_fly.returncode == 0, on_the_fly.stderr
    assert json.loads(on_the_fly.stdout) == json.loads(t42("report", str(graded),
                                                           "--json").stdout)


def test_report_of_a_grade_batch_and_its_refusals(tmp_path):
    hands = Path(__file__).resolve().parents[1] / "examples" / "hands.jsonl"
    source = write_lines(tmp_path / "hands.jsonl", hands.read_text().splitlines()[:1])
    out = tmp_path / "out"
    done = t42("batch", "grade", str(source), "-o", str(out), "--workers", "1", *OPTIONS)
    assert done.returncode == 0, done.stderr
    report = t42("report", str(out), "--json")
    assert report.returncode == 0, report.stderr
    figures = json.loads(report.stdout)
    assert (figures["records"], figures["hands"]) == (1, 1)
    assert set(figures["players"]) == {"Ann", "Bob", "Cy", "Dee"}

    analysed = tmp_path / "analysed"
    assert t42("batch", "analyze", str(source), "-o", str(analysed),
               "--workers", "1").returncode == 0
    refused = t42("report", str(analysed), "--json")
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "t42: error: --json goes with graded hands (`t42 batch grade`, `t42 analyze "
        "--seat-view --json`); these are analysed hands")
    for args, message in (
            (("--deals", "5"), "t42: error: --deals: goes with --seat-view"),
            (("--seat-view", "--deals", "0"),
             "t42: error: --deals: must be a whole number 1..100000, not 0"),
            (("--worst", "-1"), "t42: error: --worst: must be 0..10,000, not -1")):
        bad = t42("report", str(source), *args)
        assert bad.returncode == 2 and bad.stderr.strip() == message, bad.stderr
    directory = t42("report", str(out), "--seat-view")
    assert directory.returncode == 2
    assert "is a directory: --seat-view grades a file of game or hand records" in \
        directory.stderr
    broken = write_lines(tmp_path / "broken.jsonl",
                         [(out / "results.jsonl").read_text().strip(), '{"seat_view": {}}'])
    failed = t42("report", str(broken))
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert failed.stderr.strip() == f"t42: error: {broken}: line 2: decisions: required"
