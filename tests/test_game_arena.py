"""The game arena: duplicate whole games, their records, statistics and resuming.

Small runs of fast bots (rule, random, cheat; a few seconds): the records are SPEC
game records whose two tables share the deals, the statistics equal those recounted
here from the records' scores, and `t42 arena --games` resumes from its records.
Whether a bot wins is the benchmark's business (bench/).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from solver.game.game_record import read_game
from solver.hidden.stats import wilson_interval
from solver.play.game_arena import (GameArenaRun, complete_games, contract_kind, deal_leads,
                                    finished_games, format_game_stats, game_gap_share,
                                    run_game_arena, summarize_games)
from solver.play.game_play import play_game

TIMEOUT = 300


@pytest.fixture(scope="module")
def rule_vs_random():
    return run_game_arena(GameArenaRun("rule", "random", seed=3), 6)


def test_tables_share_their_deals_and_swap_the_sides(rule_vs_random):
    games = complete_games(rule_vs_random)
    assert sorted(games) == list(range(6))
    for index, (t0, t1) in games.items():
        r0, r1 = read_game(t0), read_game(t1)
        for table, r in enumerate((r0, r1)):
            arena = r.meta["arena"]
            assert (arena["index"], arena["table"]) == (index, table)
            assert (arena["NS"], arena["EW"]) == (("rule", "random") if table == 0
                                                  else ("random", "rule"))
            assert r.winner is not None and max(r.score.values()) >= 7
            last = r.hands[-1]
            assert last.position is not None and last.position.is_complete
            for hand in r.hands[:-1]:
                # a hand stopped early is one whose outcome was decided
                assert hand.made == hand.decided() and hand.made is not None
        assert r0.first_shaker == r1.first_shaker == index % 4
        for h0, h1 in zip(r0.hands, r1.hands):
            assert h0.deal == h1.deal and h0.shaker == h1.shaker


def test_records_do_not_depend_on_the_workers(rule_vs_random):
    assert run_game_arena(GameArenaRun("rule", "random", seed=3), 6, workers=2) == \
        rule_vs_random
    assert run_game_arena(GameArenaRun("rule", "random", seed=3), 2, first_game=4) == \
        rule_vs_random[8:]


def test_a_hand_stopped_once_decided_scores_as_played_out():
    # rule is deterministic: the same game played out and stopped early differ only in
    # the plays after each hand's outcome was decided.
    short = play_game("rule", "rule", seed=11, play_out=False)
    full = play_game("rule", "rule", seed=11)
    assert [h.score for h in short.hands] == [h.score for h in full.hands]
    assert short.winner == full.winner
    assert sum(len(h.plays) for h in short.hands) < sum(len(h.plays) for h in full.hands)
    for s, f in zip(short.hands, full.hands):
        assert f.plays[:len(s.plays)] == s.plays


def test_statistics_are_those_of_the_records(rule_vs_random):
    s = summarize_games(rule_vs_random, "rule", "random")
    records = [read_game(r) for r in rule_vs_random]
    a_keys = ["NS" if r.meta["arena"]["table"] == 0 else "EW" for r in records]
    b_keys = ["EW" if k == "NS" else "NS" for k in a_keys]
    wins_a = sum(r.winner == k for r, k in zip(records, a_keys))
    hands = sum(len(r.hands) for r in records)
    assert (s.games, s.tables, s.hands) == (6, 12, hands)
    assert s.bots["A"].tables_won == wins_a and s.bots["B"].tables_won == 12 - wins_a
    assert s.a_win_share_ci == wilson_interval(wins_a, 12)
    # marks per hand: the final scores hold every mark awarded
    assert s.bots["A"].per_hand == pytest.approx(
        sum(r.score[k] for r, k in zip(records, a_keys)) / hands)
    assert s.bots["B"].per_hand == pytest.approx(
        sum(r.score[k] for r, k in zip(records, b_keys)) / hands)
    # declared and made, recounted by kind
    declared = {"A": 0, "B": 0}
    made = {}
    for r, ka in zip(records, a_keys):
        for i, h in enumerate(r.hands):
            role = "A" if r.rules.key_of(h.contract.declarer) == ka else "B"
            declared[role] += 1
            row = made.setdefault((role, contract_kind(r, i)), [0, 0])
            row[0] += 1
            row[1] += h.made
    assert {k: b.declared for k, b in s.bots.items()} == declared
    for (role, kind), (n, m) in made.items():
        figures = s.bots[role].by_kind[kind]
        assert (figures.declared, figures.made) == (n, m)
    # the paired difference: per deal at both tables, summed over the deals, equals
    # half of A's marks minus B's on those deals
    assert s.deals_paired == sum(min(len(read_game(t0).hands), len(read_game(t1).hands))
                                 for t0, t1 in complete_games(rule_vs_random).values())
    assert s.difference.mean > 0 and s.z > 2     # rule beats random by far


@pytest.mark.parametrize("names", [("rule", "random"), ("advice-auction", "advice-lead")])
def test_the_statistics_table_aligns_for_any_bot_names(rule_vs_random, names):
    s = summarize_games(rule_vs_random, "rule", "random")
    s = dataclasses.replace(s, bots={k: dataclasses.replace(b, name=n)
                                     for (k, b), n in zip(s.bots.items(), names)})
    text = format_game_stats(s)
    table = text.split("\n\n")[-1].splitlines()
    header, rows = table[0], table[1:]
    assert len(rows) >= 4 and all(len(line) <= 100 for line in table)
    # Every row's kind starts, and its count of contracts declared ends, under the header's.
    kind_at, declared_end = header.index("kind"), header.index("declared") + len("declared")
    for row in rows:
        name = next(n for n in names if row.startswith("  " + n + " "))
        assert row[2 + len(name):kind_at].strip() == "" and row[kind_at] != " "
        assert row[declared_end - 1].isdigit() and row[declared_end] == " "


def test_a_bot_against_itself_splits_every_game_evenly():
    # rule is deterministic and the tables deal the same cards: each game is played
    # the same at both tables, so each bot wins one table and every deal pairs to 0.
    records = run_game_arena(GameArenaRun("rule", "rule", seed=2), 3)
    s = summarize_games(records, "rule", "rule")
    assert s.split == 3 and s.bots["A"].tables_won == s.bots["B"].tables_won == 3
    assert s.difference.mean == 0 and s.difference.se == 0 and s.z == 0
    assert s.deals_paired == s.hands // 2


def test_each_seat_is_seeded_the_same_at_both_tables():
    # A bot per seat seeded by the game and the seat alone: random against itself plays
    # both tables alike, auctions and plays, so every deal pairs to 0.
    records = run_game_arena(GameArenaRun("random", "random", seed=4), 2)
    for t0, t1 in complete_games(records).values():
        assert t0["hands"] == t1["hands"]
    s = summarize_games(records, "random", "random")
    assert s.difference.mean == 0 and s.split == 2


def test_cheat_declares_and_wins_more_than_rule():
    s = summarize_games(run_game_arena(GameArenaRun("cheat", "rule", seed=1), 2), "cheat",
                        "rule")
    assert s.bots["A"].tables_won == 4 and s.bots["A"].by_kind
    assert all(k.made == k.declared for k in s.bots["A"].by_kind.values())


def test_the_gap_share_pairs_three_runs_by_deal():
    """rule's share of the random-to-cheat gap against random: rule against rule closes 0
    of it, cheat all of it, and rule by itself what its leads say, on the deals common to
    the three runs (none with another seed)."""
    runs = {bot: run_game_arena(GameArenaRun(bot, "random", seed=2), 2)
            for bot in ("rule", "cheat", "random")}
    leads = {bot: deal_leads(finished_games(r)) for bot, r in runs.items()}
    share = game_gap_share(runs["rule"], runs["random"], runs["cheat"])
    common = set(leads["rule"]) & set(leads["cheat"]) & set(leads["random"])
    assert share.pairs == len(common) >= 4
    x = [leads["rule"][k] - leads["random"][k] for k in sorted(common)]
    y = [leads["cheat"][k] - leads["random"][k] for k in sorted(common)]
    assert share.bot_lead == pytest.approx(sum(x) / len(x))
    assert share.closed == pytest.approx(sum(x) / sum(y)) and share.low < share.closed < share.high
    assert 0 < share.closed < 1 and share.bound_lead > share.bot_lead > 0
    assert game_gap_share(runs["random"], runs["random"], runs["cheat"]).closed == 0
    assert game_gap_share(runs["cheat"], runs["random"], runs["cheat"]).closed == 1
    # None: the opponent itself, 0 over itself on every deal of the bounds' runs.
    base = game_gap_share(None, runs["rule"], runs["cheat"])
    both = set(leads["rule"]) & set(leads["cheat"])
    assert base.pairs == len(both) and base.bot_lead == pytest.approx(
        -sum(leads["rule"][k] for k in both) / len(both))
    # A random-against-random run leads by 0 on average only by luck; its own deals are
    # paired at both tables, so the summary's difference is the mean of its leads.
    assert summarize_games(runs["random"], "random", "random").difference.mean == \
        pytest.approx(sum(leads["random"].values()) / len(leads["random"]))
    other = run_game_arena(GameArenaRun("rule", "random", seed=5), 1)
    assert game_gap_share(other, runs["random"], runs["cheat"]).pairs == 0


def test_four_player_moon_and_house_rules():
    run = GameArenaRun("rule", "random", seed=1, game="moon", rules={"min_bid": 5})
    records = run_game_arena(run, 2)
    s = summarize_games(records, "rule", "random")
    assert s.unit == "points" and s.games == 2
    for r in records:
        g = read_game(r)
        assert g.rules.game == "moon" and g.rules.players == 4 and g.rules.min_bid == 5
        assert all(h.position.is_complete for h in g.hands if h.contract is not None)


# ------------------------------------------------------------- the command


def t42(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True,
                          text=True, timeout=TIMEOUT, **kwargs)


def _as_json(data):
    return json.loads(json.dumps(data))


def test_the_command_prints_the_statistics_and_writes_the_records(tmp_path):
    path = tmp_path / "games.jsonl"
    out = t42("arena", "rule", "random", "--games", "3", "--seed", "3", "--records",
              str(path), "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    expected = run_game_arena(GameArenaRun("rule", "random", seed=3), 3)
    assert stats == _as_json(summarize_games(expected, "rule", "random").to_json())
    written = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(written, key=lambda r: (r["meta"]["arena"]["index"],
                                          r["meta"]["arena"]["table"])) == expected
    # progress on standard error (not a terminal: a line as games finish)
    assert "3/3 games" in out.stderr
    text = t42("arena", "rule", "random", "--games", "3", "--seed", "3", "--no-progress")
    assert text.returncode == 0 and text.stderr == ""
    assert text.stdout.startswith("rule vs random: 3 duplicate games, 6 games played")
    assert "Games won: rule " in text.stdout and "standard errors" in text.stdout


def test_the_command_resumes_from_its_records(tmp_path):
    path = tmp_path / "games.jsonl"
    assert t42("arena", "rule", "random", "--games", "2", "--records", str(path),
               "--no-progress").returncode == 0
    lines = path.read_text().splitlines(keepends=True)
    # killed while writing: the last record cut short (its game is played again)
    path.write_text("".join(lines[:-1]) + lines[-1][:40])
    out = t42("arena", "rule", "random", "--games", "4", "--records", str(path), "--json")
    assert out.returncode == 0, out.stderr
    assert "1 of 4 games already in" in out.stderr
    fresh = run_game_arena(GameArenaRun("rule", "random"), 4)
    written = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(written, key=lambda r: (r["meta"]["arena"]["index"],
                                          r["meta"]["arena"]["table"])) == fresh
    assert json.loads(out.stdout) == _as_json(summarize_games(fresh, "rule", "random").to_json())


@pytest.mark.parametrize("args, words", [
    (["--games", "0"], ["--games", "1..100000"]),
    (["--games", "2", "--workers", "0"], ["--workers"]),
    (["--games", "2", "--seed", "-1"], ["--seed"]),
    (["--games", "2", "--advice-deals", "0"], ["--advice-deals"]),
    (["--games", "2", "--rules", "[1]"], ["--rules", "JSON object"]),
    (["--games", "2", "--rules", "{"], ["--rules", "not JSON"]),
    (["--games", "2", "--rules", '{"splash": 3}'], ["--rules.splash"]),
    (["--games", "2", "--rules", '{"tricks": 3}'], ["--rules", "tricks"]),
    (["--pairs", "2", "--game", "moon"], ["--game", "only with --games"]),
    (["--pairs", "2", "--rules", "{}"], ["--rules", "only with --games"]),
])
def test_bad_options_are_one_line(args, words):
    out = t42("arena", "rule", "random", "--no-progress", *args)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
    for w in words:
        assert w in out.stderr


def test_advice_is_a_bot_of_games_only():
    out = t42("arena", "advice", "rule", "--pairs", "1")
    assert out.returncode == 2
    assert out.stderr == "t42: error: advice: a bot of --games only (--pairs: random, rule, " \
                         "hint, cheat)\n"


def test_records_of_another_run_are_never_mixed_in(tmp_path):
    path = tmp_path / "games.jsonl"
    assert t42("arena", "rule", "random", "--games", "1", "--records", str(path),
               "--no-progress").returncode == 0
    before = path.read_text()
    out = t42("arena", "rule", "cheat", "--games", "1", "--records", str(path))
    assert out.returncode == 2 and 'line 1: a record of another run (b "random")' in out.stderr
    path2 = tmp_path / "hands.jsonl"
    path2.write_text('{"pair": 0}\n')
    out = t42("arena", "rule", "random", "--games", "1", "--records", str(path2))
    assert out.returncode == 2 and "not a record of the game arena" in out.stderr
    assert path.read_text() == before and path2.read_text() == '{"pair": 0}\n'
