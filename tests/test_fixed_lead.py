"""Bid advice with one opening lead for every deal (``fixed_lead``): the value after each
lead equals a full solve of that deal and lead, each bid's P(make) is that of the lead
that makes it most often, never above the double-dummy figure; the option reaches the
CLI, calibrated advice maps them through the map measured on such figures, and bad uses
are refused with the field."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from solver import PositionError, advise, solve
from solver.game.bid_request import ONE_MARK
from solver.hidden.calibration import bid_calibration

HAND = "5-5 5-4 5-3 5-0 6-6 2-1 3-0"
DECLARATIONS = ["fives", "doubles", "sevens", "nello"]


@pytest.fixture(scope="module")
def pair():
    """The same 12 deals asked with and without a fixed lead, every deal returned."""
    ask = dict(deals=12, seed=5, threads=1, declarations=DECLARATIONS, return_deals=True)
    return advise(HAND, "N", fixed_lead=True, **ask), advise(HAND, "N", **ask)


def test_each_lead_is_valued_as_a_full_solve_of_the_deal(pair):
    fixed, _ = pair
    for deal in fixed.dealt[:4]:
        position = {"hands": deal.hands,
                    "contract": {"declarer": "N", "trump": "fives", "bid": 30}, "plays": []}
        assert deal.leads["fives"] == solve(position, with_line=False, threads=1).moves


def test_double_dummy_values_are_the_best_lead_and_unchanged(pair):
    fixed, plain = pair
    assert [d.hands for d in fixed.dealt] == [d.hands for d in plain.dealt]
    for with_lead, without in zip(fixed.dealt, plain.dealt):
        assert with_lead.values == without.values
        for d in DECLARATIONS:
            assert max(with_lead.leads[d].values()) == with_lead.values[d]
    # Sevens: the tile nearest 7 pips leads, whatever the deal.
    assert all(list(d.leads["sevens"]) == ["5-3"] for d in fixed.dealt)


def test_each_bid_counts_the_deals_of_its_best_single_lead(pair):
    fixed, plain = pair
    for d in DECLARATIONS:
        row, dd = fixed.declaration(d), plain.declaration(d)
        leads = fixed.dealt[0].leads[d]
        for chance, dd_chance in zip(row.bids, dd.bids):
            need = min(chance.bid, ONE_MARK)
            by_lead = [sum(1 for deal in fixed.dealt
                           if (deal.leads[d][lead] >= need if row.unit else deal.leads[d][lead]))
                       for lead in leads]
            assert chance.made == max(by_lead) <= dd_chance.made
    # On these deals one lead for all costs makes: fives 9 of 12 at 30 against 10,
    # doubles 4 at 35 against 5.
    made = {d: [(f.made, p.made) for f, p in zip(fixed.declaration(d).bids,
                                                 plain.declaration(d).bids)]
            for d in ("fives", "doubles")}
    assert made["fives"][0] == (9, 10) and made["doubles"][5] == (4, 5)


def test_answer_names_the_option_only_when_asked(pair):
    fixed, plain = pair
    assert fixed.to_json()["fixed_lead"] is True
    assert "fixed_lead" not in plain.to_json() and not plain.fixed_lead
    assert "leads" in fixed.to_json()["dealt"][0] and "leads" not in plain.to_json()["dealt"][0]


def test_four_player_moon_and_refusals():
    moon = advise("6-6 6-5 6-4 6-3 5-5 4-4 3-3", "N", game="moon", deals=4, seed=1,
                  threads=1, fixed_lead=True, declarations=["sixes"])
    assert moon.fixed_lead and moon.declaration("sixes").chance(4) is not None
    with pytest.raises(PositionError) as err:
        advise("6-6 6-5 6-4 6-3 5-5 4-4 3-3", "N", game="moon", players=3, deals=2,
               fixed_lead=True)
    assert err.value.field == "fixed_lead"
    with pytest.raises(PositionError) as err:
        advise(HAND, "N", deals=2, fixed_lead="yes")
    assert err.value.field == "fixed_lead"


def test_calibrated_fixed_lead_advice_uses_the_map_measured_on_fixed_lead_figures(pair):
    fixed, plain = pair
    ask = dict(deals=12, seed=5, threads=1, declarations=DECLARATIONS)
    calibrated = advise(HAND, "N", fixed_lead=True, calibrated=True, **ask)
    fixed_map, plain_map = bid_calibration(fixed_lead=True), bid_calibration()
    assert calibrated.calibration == fixed_map != plain_map
    assert fixed_map.source["fixed_lead"] is True and "fixed_lead" not in plain_map.source
    assert calibrated.to_json()["calibration"]["fixed_lead"] is True
    mapped = 0
    for row, raw in zip(calibrated.declarations, fixed.declarations):
        for c, r in zip(row.bids, raw.bids):
            # The same deals and fixed-lead counts, mapped through the fixed-lead map.
            assert (c.bid, c.made, c.deals) == (r.bid, r.made, r.deals)
            assert c.p_calibrated == pytest.approx(fixed_map(r.p_make), abs=1e-12)
            mapped += fixed_map(r.p_make) != plain_map(r.p_make)
    assert mapped > 0           # the two maps differ where these figures fall
    rec = calibrated.recommendation
    assert rec.chance is None or rec.chance.p_used >= calibrated.threshold


def test_cli_flag_and_json_request_give_the_api_answer():
    api = advise(HAND, "N", deals=10, seed=2, threads=1, declarations=["fives"],
                 fixed_lead=True).to_json()
    flag = subprocess.run([sys.executable, "-m", "solver", "bid", *HAND.split(), "--seed", "2",
                           "--deals", "10", "--declarations", "fives", "--fixed-lead",
                           "--json"], capture_output=True, text=True, timeout=120)
    request = json.dumps({"hand": HAND.split(), "seat": "N", "deals": 10, "seed": 2,
                          "declarations": ["fives"], "fixed_lead": True})
    piped = subprocess.run([sys.executable, "-m", "solver", "bid", "--json"], input=request,
                           capture_output=True, text=True, timeout=120)
    text = subprocess.run([sys.executable, "-m", "solver", "bid", *HAND.split(), "--seed", "2",
                           "--deals", "10", "--declarations", "fives", "--fixed-lead"],
                          capture_output=True, text=True, timeout=120)
    assert flag.returncode == piped.returncode == text.returncode == 0, flag.stderr
    answers = [json.loads(flag.stdout), json.loads(piped.stdout)]
    for doc in (api, *answers):
        doc.pop("seconds"), doc.pop("nodes")
    assert answers == [api, api]
    assert "declarer leads one tile on every deal" in text.stdout


def test_cli_calibrated_fixed_lead_names_its_map():
    args = [sys.executable, "-m", "solver", "bid", *HAND.split(), "--seed", "2", "--deals",
            "10", "--declarations", "fives", "--fixed-lead", "--calibrated"]
    text = subprocess.run(args, capture_output=True, text=True, timeout=120)
    doc = subprocess.run(args + ["--json"], capture_output=True, text=True, timeout=120)
    assert text.returncode == doc.returncode == 0, text.stderr
    source = bid_calibration(fixed_lead=True).source
    assert (f"P(make) calibrated by play with hidden hands ({source['hands']} hands, seed "
            f"{source['seed']}, one lead for every deal)") in text.stdout
    answer = json.loads(doc.stdout)
    assert answer["p_make_used"] == "calibrated" and answer["fixed_lead"] is True
    assert answer["calibration"]["fixed_lead"] is True
    assert answer["calibration"]["hands"] == source["hands"]
