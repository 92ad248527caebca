"""solver.game.progress: a game's last hand as a table shows it (tricks, winners,
points taken, whether it may stop) and what the seat to act may do."""

from __future__ import annotations

from solver.game.game_record import read_game
from solver.game.progress import hand_may_stop, hand_progress, legal_actions
from solver.hidden.dealer import Dealer


def _deal(game: str, players: int, seed: int) -> dict:
    deal = Dealer(game, players).deal(seed=seed)
    hand = {"hands": deal.hands, "auction": []}
    if deal.widow is not None:
        hand["widow"] = deal.widow
    return hand


def test_42_tricks_points_and_stop():
    hand = _deal("42", 4, 7)
    record = {"game": "42", "first_shaker": "N", "hands": [hand]}
    legal = legal_actions(read_game(record))
    assert legal["seat"] == "E" and legal["action"] == "call"
    assert legal["calls"][:2] == ["pass", 30]
    hand["auction"] = [{"seat": "E", "bid": 30}] + [{"seat": s, "bid": "pass"} for s in "SWN"]
    legal = legal_actions(read_game(record))
    assert legal["action"] == "declare" and "follow-me" in legal["declarations"]
    assert legal["doubles"] == ["high", "low", "suit"]
    hand["contract"] = {"declarer": "E", "trump": "fives", "bid": 30}
    hand["plays"] = []
    game = read_game(record)
    assert hand_progress(game) == {"tricks": [], "taken": {"NS": 0, "EW": 0}, "made": None}
    stopped_at = None
    while len(hand["plays"]) < 28:
        legal = legal_actions(game)
        assert legal["action"] == "play" and legal["tiles"] == list(game.legal_plays())
        hand["plays"].append(legal["tiles"][-1])
        game = read_game(record)
        if stopped_at is None and hand_may_stop(game.hands[-1]):
            stopped_at = len(hand["plays"])
            assert hand_progress(game)["made"] is not None
    progress = hand_progress(game)
    pos = game.hands[-1].position
    assert len(progress["tricks"]) == 7 and stopped_at is not None and stopped_at <= 28
    assert sum(t["points"] for t in progress["tricks"]) == 42
    assert progress["taken"]["EW"] == pos.points
    for trick, (winner, played) in zip(progress["tricks"], pos.completed_tricks):
        assert trick["winner"] == "NESW"[winner] and trick["leader"] == "NESW"[played[0][0]]
    assert progress["made"] == game.hands[-1].made


def test_moon_three_players_discard_and_open_trick():
    hand = _deal("moon", 3, 4)
    hand["auction"] = [{"seat": "E", "bid": 5}, {"seat": "S", "bid": "pass"},
                       {"seat": "N", "bid": "pass"}]
    record = {"game": "moon", "first_shaker": "N", "hands": [hand]}
    legal = legal_actions(read_game(record))
    assert legal["action"] == "discard" and legal["seat"] == "E"
    assert sorted(legal["tiles"]) == sorted(hand["hands"]["E"] + [hand["widow"]])
    assert legal["doubles"] == []
    hand["contract"] = {"declarer": "E", "trump": "follow-me", "bid": 5,
                        "discard": hand["widow"]}
    hand["plays"] = []
    game = read_game(record)
    for _ in range(4):
        hand["plays"].append(game.legal_plays()[0])
        game = read_game(record)
    progress = hand_progress(game)
    assert [t["winner"] is None for t in progress["tricks"]] == [False, True]
    assert progress["tricks"][0]["points"] == 1 and progress["tricks"][1]["plays"][0][1] == \
        hand["plays"][3]
    assert sum(progress["taken"].values()) == 1
    assert not hand_may_stop(game.hands[-1])
