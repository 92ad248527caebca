"""Answers of the Python API on many positions, for checking that speed-ups change none.

    python bench/answers.py record FILE     # JSON Lines: one line per query
    python bench/answers.py compare FILE    # the same queries again, compared line by line
    python bench/answers.py cli-record FILE / cli-compare FILE   # the same through t42

The CLI form writes the inputs as one JSON Lines file and runs `t42 solve --json`,
`t42 solve --json --best-only` and `t42 make-or-set --json` on it, then every other
command on seeded inputs from the repository (analyze, table, discard, deal, hint,
bid, report, arena, text output and refused options; stdout, stderr and exit status
are compared); run the record step with PYTHONPATH set to a checkout of the tree
before the change.

The queries: 3,000 seeded late positions (<= 2 tricks left) and 3,000 mid-hand ones
(3..5 tricks left) over every 42 declaration, 40 opening leads, the shared check
positions of 42 and Moon, and 3,000 broken inputs made from them (a tile respelt,
swapped, duplicated or removed, a play cut, swapped or repeated, a field dropped or
given another type). Each gives the position's derived fields, `solve`, best-only
`solve` and `make_or_set` as JSON, or the `PositionError` it raises (field, reason,
code). Recorded before a change and compared after it, answers must be identical.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).parent))
from deals import deals_42  # noqa: E402
from percall import late_positions  # noqa: E402

from solver import PositionError, make_or_set, solve  # noqa: E402
from solver.game.position import Position  # noqa: E402
from solver.game.tiles import NAMES  # noqa: E402

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases"


def inputs(scale: int = 1000) -> list[Any]:
    """The positions (good and broken) to query; ``scale`` is the per-kind count of
    seeded late, mid-hand and broken positions (1000 gives ~9,000 inputs in all)."""
    good: list[Any] = late_positions(3 * scale, seed=7)
    good += late_positions(3 * scale, seed=8, tricks_left=5)
    good += deals_42(max(10, scale // 25), seed=3)
    for name in ("texas42.jsonl", "moon.jsonl"):
        with open(CASES / name, encoding="utf-8") as f:
            good += [json.loads(line)["position"] for line in f if line.strip()]
    rng = random.Random(5)
    bad = [broken(rng, copy.deepcopy(rng.choice(good))) for _ in range(3 * scale)]
    return good + bad


def broken(rng: random.Random, p: dict) -> Any:
    """``p`` with one random change; most make it invalid, a few (respellings) do not."""
    hands = p["hands"]
    seat = rng.choice(sorted(hands))
    plays = p.setdefault("plays", [])
    kind = rng.randrange(14)
    if kind == 0:  # a tile respelt (valid: L-H, HL, H:L, a number, padded)
        i = rng.randrange(7)
        h, l = hands[seat][i].split("-")
        hands[seat][i] = rng.choice([f"{l}-{h}", f"{h}{l}", f"{l}:{h}", int(f"{h}{l}") if
                                     h != "0" else "00", f" {h}-{l}", f"{h}-{l}\n"])
    elif kind == 1:  # a tile of another hand: a duplicate
        other = rng.choice(sorted(hands))
        hands[seat][rng.randrange(7)] = rng.choice(hands[other])
    elif kind == 2:  # a tile dropped or added
        if rng.random() < 0.5:
            hands[seat].pop()
        else:
            hands[seat].append(rng.choice(list(NAMES)))
    elif kind == 3 and plays:  # plays swapped
        i, j = rng.randrange(len(plays)), rng.randrange(len(plays))
        plays[i], plays[j] = plays[j], plays[i]
    elif kind == 4 and plays:  # a play repeated or cut
        if rng.random() < 0.5:
            plays.append(rng.choice(plays))
        else:
            del plays[rng.randrange(len(plays))]
    elif kind == 5:  # an unknown play
        plays.append(rng.choice(list(NAMES) + ["7-7", "x", 5, None, 6.0, True, ["6-6"]]))
    elif kind == 6:  # a contract field dropped or odd
        key = rng.choice(["declarer", "trump", "bid", "kind", "doubles"])
        if rng.random() < 0.4:
            p["contract"].pop(key, None)
        else:
            p["contract"][key] = rng.choice(["N", "x", "Sixes", " fives ", 4, 7, 30, 41, 42,
                                             84, 29, 300, None, True, 30.0, "plunge", "LOW",
                                             "suit", "splash", "high", [], {}])
    elif kind == 7:  # an unknown field or value type at the top
        key = rng.choice(["game", "extra", "plays", "hands", "contract", "widow", "seat"])
        p[key] = rng.choice(["42", "moon", "MOON", 42, None, [], {}, "6-6", float("nan"),
                             "\ud800"])
    elif kind == 8:  # a hand of another type or seat
        hands[rng.choice(["N", "E", "S", "W", "X", 1])] = rng.choice([None, "6-6", {}, [],
                                                                     hands[seat][:]])
    elif kind == 9:  # a tile of odd type
        hands[seat][rng.randrange(7)] = rng.choice([None, 6.4, True, "6-4 ", "66x", -1, 64.0,
                                                    "٦-٤", 2 ** 70])
    elif kind == 10:  # a hand dropped
        del hands[seat]
    elif kind == 11:  # too many plays
        plays.extend(rng.choice(NAMES) for _ in range(rng.randrange(1, 30)))
    elif kind == 12:  # the contract replaced
        p["contract"] = rng.choice([None, [], "N", {}, {"declarer": "N"},
                                    {"declarer": "E", "trump": "doubles", "bid": 84,
                                     "kind": "plunge"}])
    else:  # the document as text, or of another type
        return rng.choice([json.dumps(p), json.dumps(p).encode(), [p], None, 42, "{"])
    return p


def answer(data: Any) -> dict:
    """What the API says about one input: its derived fields and three queries."""
    try:
        p = Position(data)
    except PositionError as exc:
        return {"error": exc.to_json()}
    fields = {"to_move": p.to_move, "legal": p.legal_ids(), "remaining": p.remaining,
              "leader": p.leader, "trick": p.trick, "points": p.points,
              "available": p.available, "tricks_left": p.tricks_left,
              "tricks_won": p.tricks_won, "completed": p.completed_tricks,
              "plays": p.plays, "json": p.to_json(), "text": str(p),
              "active": p.active_seats, "max_value": p.max_value}
    out: dict[str, Any] = {"position": fields}
    for name, query in (("solve", lambda q: solve(q)), ("best", lambda q: solve(q, best_only=True)),
                        ("mos", lambda q: make_or_set(q))):
        try:
            out[name] = query(data).to_json()
        except PositionError as exc:  # pragma: no cover - a valid position solves
            out[name] = {"error": exc.to_json()}
    return out


def lines(scale: int = 1000) -> Iterator[str]:
    for data in inputs(scale):
        yield json.dumps(answer(data), sort_keys=True)


#: Every other command on files of the repository (seeded, so answers repeat): each
#: entry is (arguments, standard input or None); a file argument is relative to the
#: repository's root.
def _other_commands(tmp: str) -> list[tuple[list[str], bytes | None]]:
    root = Path(__file__).resolve().parents[1]
    views = [json.loads(line) for line in (root / "tests" / "cases" / "views.jsonl")
             .read_text(encoding="utf-8").splitlines() if line.strip()]
    hint_views = [v["view"] for v in views if v.get("kind") == "hint"][::8][:40]
    bad_views = [json.loads(line).get("view") for line in (root / "tests" / "cases" /
                 "views_bad.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    views_text = "\n".join(json.dumps(v) for v in hint_views + bad_views[:40]) + "\n"
    deals = subprocess.run([sys.executable, "-m", "solver", "deal", "--seed", "7", "--count",
                            "4"], capture_output=True, check=True).stdout
    bids = "\n".join(json.dumps({"hand": v["hands"][v["seat"]], "seat": v["seat"]})
                     for v in hint_views[:6]) + "\n"
    analyses = Path(tmp) / "analyses.jsonl"
    analyses.write_bytes(subprocess.run(
        [sys.executable, "-m", "solver", "analyze", "--json", str(root / "examples" /
                                                                  "hands.jsonl")],
        capture_output=True).stdout)
    examples = root / "examples"
    return [
        (["analyze", "--json", str(examples / "hands.jsonl")], None),
        (["analyze", str(examples / "hands.jsonl")], None),
        (["table", "--json"], deals),
        (["discard", "--json", str(examples / "moon-discard.json")], None),
        (["discard", str(examples / "moon-discard.json")], None),
        (["deal", "--seed", "11", "--count", "50"], None),
        (["deal", "--seed", "3", "--count", "20", "--hand", "N=6-6,6-5,6-4"], None),
        (["deal", "--count", "30", "--seed", "5", "--view", "-"], views_text.encode()),
        (["deal", "--stats", "--view", "-"], views_text.encode()),
        (["hint", "--json", "--seed", "3", "--deals", "12"], views_text.encode()),
        (["hint", "--seed", "3", "--deals", "12", str(examples / "view.json")], None),
        (["bid", "--json", "--seed", "1", "--deals", "6"], bids.encode()),
        (["report", str(analyses)], None),
        (["solve", str(examples / "deal.json")], None),
        (["solve", "--json", str(examples / "moon.json")], None),
        (["hint", "--deals", "0", str(examples / "view.json")], None),
        (["bid", "--deals", "x"], None),
        (["arena", "rule", "random", "--pairs", "2", "--json", "--no-progress"], None),
    ]


def cli_outputs(scale: int = 1000) -> list[str]:
    """What t42 answers on the inputs as JSON Lines: per command, status, stdout, stderr."""
    import tempfile
    rows = []
    for data in inputs(scale):
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else \
            data if isinstance(data, str) else json.dumps(data)
        rows.append(text.replace("\n", " "))
    out = []
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
        f.flush()
        for args in (["solve", "--json"], ["solve", "--json", "--best-only"],
                     ["make-or-set", "--json"]):
            done = subprocess.run([sys.executable, "-m", "solver", *args, f.name],
                                  capture_output=True, text=True)
            out.append(json.dumps({"args": args, "status": done.returncode}))
            out += done.stdout.splitlines() + done.stderr.splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        for args, stdin in _other_commands(tmp):
            done = subprocess.run([sys.executable, "-m", "solver", *args], input=stdin,
                                  capture_output=True)
            shown = [a.replace(str(Path(__file__).resolve().parents[1]), ".").replace(tmp, "TMP")
                     for a in args]
            out.append(json.dumps({"args": shown, "status": done.returncode}))
            out += [line.replace(tmp, "TMP") for line in
                    done.stdout.decode("utf-8", "replace").splitlines() +
                    done.stderr.decode("utf-8", "replace").splitlines()]
    return out


def _timeless(line: str) -> str:
    """A line of output without the time it reports (bid advice's ``seconds``)."""
    return re.sub(r'"seconds": [0-9.e+-]+', '"seconds": 0', line)


def main(argv: list[str]) -> int:
    what, path = argv[0], argv[1]
    scale = int(argv[2]) if len(argv) > 2 else 1000
    if what.startswith("cli-"):
        got = cli_outputs(scale)
        if what == "cli-record":
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(got) + "\n")
            return 0
        with open(path, encoding="utf-8") as f:
            expected = f.read().splitlines()
        differ = [i for i, (a, b) in enumerate(zip(expected, got))
                  if _timeless(a) != _timeless(b)]
        print(json.dumps({"lines": len(got), "expected": len(expected), "differ": len(differ),
                          "first": differ[:5]}))
        return 0 if not differ and len(got) == len(expected) else 1
    if what == "record":
        with open(path, "w", encoding="utf-8") as f:
            for line in lines(scale):
                f.write(line + "\n")
        return 0
    with open(path, encoding="utf-8") as f:
        expected = f.read().splitlines()
    got = list(lines(scale))
    differ = [i for i, (a, b) in enumerate(zip(expected, got)) if a != b]
    print(json.dumps({"queries": len(got), "expected": len(expected), "differ": len(differ),
                      "first": differ[:5]}))
    return 0 if not differ and len(got) == len(expected) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
