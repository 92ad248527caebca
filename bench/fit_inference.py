"""Fit the models that inference weighs hidden deals with, from arena game records.

    python bench/fit_inference.py calls   # call model -> solver/hidden/data/call_model.json
    python bench/fit_inference.py plays   # play temperature -> solver/hidden/data/play_model.json

Both fit by maximum likelihood on the ``advice`` seats of the advice vs rule games
(``--train``, made by ``t42 arena advice rule --games 200 --seed 11 --records
bench/results/advice_rule.jsonl``) and report the log-likelihood on the advice vs
advice games (``--valid``, ``t42 arena advice advice --games 43 --seed 7 --records
bench/results/advice_advice.jsonl``), which the fit never sees. Both are deterministic (fixed data order, fixed sample, fixed
optimiser steps).

Calls: the ordinal model of `solver.hidden.call_model` (a hand's strength for each
declaration, linear in a few counts; the strength of the best declaration against
increasing cutpoints), fitted jointly with the declaration softmax's weight kappa by
BFGS (central-difference gradients, backtracking line search) on the negative
log-likelihood plus a tiny ridge (1e-3 * |theta|^2). The baseline for calls fits the
cutpoints alone (the strength held at 0: the levels' frequencies); for declarations
it is uniform over the declarations allowed at the bid.

Plays: each advice play with two or more legal moves, scored with the double-dummy
value after every move on the true deal; the temperature T of
``P(j) = exp(-loss_j / T) / sum_k exp(-loss_k / T)`` by golden-section search on log T,
separately for contracts valued in points and in tricks.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.game import tiles as T
from solver.game.auction import SPECIAL_CALLS
from solver.hidden import call_model as CM

TRAIN = ROOT / "bench" / "results" / "advice_rule.jsonl"
VALID = ROOT / "bench" / "results" / "advice_advice.jsonl"
SEATS = ("N", "E", "S", "W")
DATA = ROOT / "solver" / "hidden" / "data"


# ----------------------------------------------------------------------------- records

def read_games(path: Path) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def arena_command(games: list[dict]) -> str:
    """The `t42 arena` command that played these records (from their ``meta.arena``)."""
    meta = games[0]["meta"]["arena"]
    count = 1 + max(g["meta"]["arena"]["index"] for g in games)
    return (f"t42 arena {meta['a']} {meta['b']} --games {count} --seed {meta['seed']} "
            f"--hint-deals {meta['hint_deals']} --advice-deals {meta['advice_deals']}")


def advice_seats(game: dict) -> set[str]:
    arena = (game.get("meta") or {}).get("arena") or {}
    seats: set[str] = set()
    for side in ("NS", "EW"):
        if arena.get(side) == "advice":
            seats.update(side)
    return seats


def seed_of(games: list[dict]) -> int | None:
    return ((games[0].get("meta") or {}).get("arena") or {}).get("seed") if games else None


def amount(bid) -> int | None:
    if isinstance(bid, int):
        return bid
    return SPECIAL_CALLS[bid][0] if bid in SPECIAL_CALLS else None


def call_events(games: list[dict]):
    """(hand mask, bid, highest) for each informative call by an advice seat, and
    (hand mask, declaration, bid) for each declaration an advice declarer named."""
    calls, decls = [], []
    for game in games:
        seats = advice_seats(game)
        for hand in game["hands"]:
            masks = {s: T.mask_of(T.parse_tiles(hand["hands"][s], "h")) for s in SEATS}
            highest = None
            auction = hand["auction"]
            for i, call in enumerate(auction):
                bid = call["bid"]
                forced = i == 3 and all(c["bid"] == "pass" for c in auction[:3])
                if call["seat"] in seats and not forced and bid not in SPECIAL_CALLS:
                    calls.append((masks[call["seat"]], bid, highest))
                a = amount(bid)
                if a is not None and (highest is None or a > highest):
                    highest = a
            contract = hand.get("contract")
            if contract and contract.get("kind", "standard") == "standard" and \
                    contract["declarer"] in seats:
                decls.append((masks[contract["declarer"]], contract["trump"].lower(),
                              contract["bid"]))
    return calls, decls


# ----------------------------------------------------------------------------- call fit

class Problem:
    """The parameter vector: pip betas, then each other group's alpha and betas, then
    the cutpoints (first, then log gaps), then log kappa."""

    def __init__(self, calls, decls):
        self.groups = CM.GROUPS
        self.sizes = {g: len(CM.FEATURE_NAMES[g]) for g in self.groups}
        self.calls, self.decls = calls, decls
        names = CM.DECLARATIONS
        self.group_of = [CM.GROUP_OF[d] for d in names]
        # Per group, arrays (events, declarations of group, features)
        self.cx = self._stack([m for m, _, _ in calls])
        self.dx = self._stack([m for m, _, _ in decls])
        # Calls: the level index bid and the lowest level index above highest.
        self.c_lo, self.c_hi = [], []   # P = P(L >= lo) - P(L >= hi); lo == -1: pass
        for _, bid, highest in calls:
            lo, hi = CM.call_levels(bid, highest)
            self.c_lo.append(lo)
            self.c_hi.append(hi)
        self.c_lo = np.array(self.c_lo)
        self.c_hi = np.array(self.c_hi)
        # Declarations: allowed mask and chosen index.
        self.d_allowed = np.array([[d in CM.allowed_declarations(bid) for d in names]
                                   for _, _, bid in decls], dtype=bool)
        self.d_chosen = np.array([names.index(d) for _, d, _ in decls])
        self.n_levels = len(CM.LEVELS)

    def _stack(self, masks):
        names = CM.DECLARATIONS
        out = {}
        for g in self.groups:
            ds = [d for d in names if CM.GROUP_OF[d] == g]
            out[g] = np.array([[CM.features(m, d) for d in ds] for m in masks],
                              dtype=float).reshape(len(masks), len(ds), self.sizes[g])
        return out

    def n_params(self):
        return sum(self.sizes[g] + (0 if g == "pip" else 1) for g in self.groups) + \
            self.n_levels + 1

    def unpack(self, theta):
        i = 0
        alpha, beta = {}, {}
        for g in self.groups:
            if g == "pip":
                alpha[g] = 0.0
            else:
                alpha[g] = theta[i]
                i += 1
            beta[g] = theta[i:i + self.sizes[g]]
            i += self.sizes[g]
        c0 = theta[i]
        gaps = np.exp(theta[i + 1:i + self.n_levels])
        cuts = c0 + np.concatenate([[0.0], np.cumsum(gaps)])
        i += self.n_levels
        kappa = math.exp(theta[i])
        return alpha, beta, cuts, kappa

    def strengths(self, X, alpha, beta):
        """(events, declarations in DECLARATIONS order) strengths."""
        cols = []
        for g in self.groups:
            cols.append(alpha[g] + X[g] @ beta[g])
        # reorder to DECLARATIONS order: groups are contiguous in DECLARATIONS
        return np.concatenate(cols, axis=1)

    def nll_calls(self, theta, per_event=False, constant=False):
        alpha, beta, cuts, _ = self.unpack(theta)
        S = self.strengths(self.cx, alpha, beta)[:, :len(CM.LEVEL_DECLARATIONS)].max(axis=1)
        if constant:
            S = np.zeros_like(S)
        def surv(idx):
            out = np.zeros(len(idx))
            ok = idx >= 0
            out[ok] = sigmoid(S[ok] - cuts[idx[ok]])
            out[idx == -2] = 1.0   # P(L >= nothing below) : used for pass
            return out
        # P = surv(lo) - surv(hi) with lo == -2 meaning 1 (pass), hi == -1 meaning 0 (top)
        p = surv(self.c_lo) - surv(self.c_hi)
        p = np.clip(p, 1e-12, None)
        ll = np.log(p)
        return -ll if per_event else -ll.sum()

    def nll_decls(self, theta, per_event=False):
        alpha, beta, _, kappa = self.unpack(theta)
        S = kappa * self.strengths(self.dx, alpha, beta)
        S = np.where(self.d_allowed, S, -np.inf)
        m = S.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(S - m).sum(axis=1))
        ll = S[np.arange(len(S)), self.d_chosen] - lse
        return -ll if per_event else -ll.sum()

    def nll(self, theta, ridge=1e-3):
        return self.nll_calls(theta) + self.nll_decls(theta) + ridge * float(theta @ theta)


def sigmoid(z):
    return 0.5 * (1 + np.tanh(0.5 * z))


def num_grad(f, x, h=1e-5):
    g = np.zeros_like(x)
    for i in range(len(x)):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def bfgs(f, x0, iters=300, tol=1e-6, log=None):
    """BFGS with a backtracking (Armijo) line search and central-difference gradients."""
    x = x0.copy()
    fx = f(x)
    g = num_grad(f, x)
    H = np.eye(len(x))
    for it in range(iters):
        d = -H @ g
        if g @ d >= 0:
            H = np.eye(len(x))
            d = -g
        step = 1.0
        while True:
            xn = x + step * d
            fn = f(xn)
            if np.isfinite(fn) and fn <= fx + 1e-4 * step * (g @ d):
                break
            step *= 0.5
            if step < 1e-12:
                return x, fx
        gn = num_grad(f, xn)
        s, y = xn - x, gn - g
        if y @ s > 1e-12:
            rho = 1 / (y @ s)
            I = np.eye(len(x))
            H = (I - rho * np.outer(s, y)) @ H @ (I - rho * np.outer(y, s)) + rho * np.outer(s, s)
        if log and it % 10 == 0:
            log(f"  iter {it}: nll {fn:.3f}")
        done = abs(fx - fn) < tol * max(1.0, abs(fx)) and np.abs(gn).max() < 1e-3
        x, fx, g = xn, fn, gn
        if done:
            break
    return x, fx


def initial(prob: Problem) -> np.ndarray:
    """Every weight 0, the first cutpoint 0 and the log gaps 0 (gaps of 1), kappa 1."""
    return np.zeros(prob.n_params())


def fit_constant_cuts(prob: Problem, theta):
    """The baseline: S constant (0), only the cutpoints fitted (level frequencies)."""
    i = sum(prob.sizes[g] + (0 if g == "pip" else 1) for g in prob.groups)
    def f(c):
        t = theta.copy()
        t[i:i + prob.n_levels] = c
        return prob.nll_calls(t, constant=True) + 1e-3 * float(c @ c)
    c, _ = bfgs(f, np.zeros(prob.n_levels))
    t = theta.copy()
    t[i:i + prob.n_levels] = c
    return t


def calibration_table(prob: Problem, theta, bins=(0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1.0001)):
    """Predicted P(pass) binned against the observed pass rate, over calls where a pass
    was allowed."""
    alpha, beta, cuts, _ = prob.unpack(theta)
    S = prob.strengths(prob.cx, alpha, beta)[:, :len(CM.LEVEL_DECLARATIONS)].max(axis=1)
    rows = []
    # The pass probability: 1 - P(L >= lowest level above highest).
    _, _, highest = zip(*prob.calls) if prob.calls else ((), (), ())
    lowest = np.array([CM.call_levels("pass", h)[1] for h in highest])
    p_pass = np.where(lowest >= 0, 1 - sigmoid(S - cuts[lowest]), 1.0)
    passed = np.array([bid == "pass" for _, bid, _ in prob.calls])
    for lo, hi in itertools.pairwise(bins):
        sel = (p_pass >= lo) & (p_pass < hi)
        if sel.sum():
            rows.append({"bin": [round(lo, 2), round(min(hi, 1.0), 2)], "n": int(sel.sum()),
                         "predicted": round(float(p_pass[sel].mean()), 3),
                         "observed": round(float(passed[sel].mean()), 3)})
    return rows


def uniform_decl_ll(prob: Problem) -> float:
    return float(-np.log(prob.d_allowed.sum(axis=1)).mean())


def fit_calls(args) -> None:
    t0 = time.time()
    train_games, valid_games = read_games(args.train), read_games(args.valid)
    tc, td = call_events(train_games)
    vc, vd = call_events(valid_games)
    print(f"train: {len(tc)} calls, {len(td)} declarations; "
          f"valid: {len(vc)} calls, {len(vd)} declarations")
    train, valid = Problem(tc, td), Problem(vc, vd)
    theta0 = initial(train)
    base = fit_constant_cuts(train, theta0)
    theta, _ = bfgs(train.nll, base, iters=400, log=print)
    alpha, beta, cuts, kappa = train.unpack(theta)
    _, _, base_cuts, _ = train.unpack(base)

    def per(prob, th, constant=False):
        c = -prob.nll_calls(th, constant=constant) / max(1, len(prob.calls))
        d = -prob.nll_decls(th) / max(1, len(prob.decls))
        return round(float(c), 4), round(float(d), 4)

    tr_c, tr_d = per(train, theta)
    va_c, va_d = per(valid, theta)
    tr_bc, _ = per(train, base, constant=True)
    va_bc, _ = per(valid, base, constant=True)
    calib = calibration_table(valid, theta)
    groups = {g: {"alpha": round(float(alpha[g]), 6),
                  "beta": {n: round(float(b), 6) for n, b in zip(CM.FEATURE_NAMES[g], beta[g])}}
              for g in CM.GROUPS}
    doc = {
        "name": "advice-calls-1",
        "description": "How the advice bot calls and declares in 42: per declaration a "
                       "strength linear in counts of the hand; an ordinal level "
                       "P(L >= b) = sigmoid(max_d S_d - c_b); the declaration by softmax "
                       "of kappa * S_d over the declarations allowed at the bid.",
        "levels": list(CM.LEVELS),
        "cutpoints": [round(float(c), 6) for c in cuts],
        "kappa": round(float(kappa), 6),
        "groups": groups,
        "fitted_on": {"records": arena_command(train_games), "seed": seed_of(train_games),
                      "games": len(train_games), "seats": "advice seats only",
                      "calls": len(tc), "declarations": len(td),
                      "skipped": "forced shaker calls, plunge and splash calls, "
                                 "plunge declarations (named by the partner)",
                      "mean_log_likelihood": {"call": tr_c, "declaration": tr_d,
                                              "call_levels_only": tr_bc,
                                              "declaration_uniform": round(uniform_decl_ll(train), 4)}},
        "validation": {"records": arena_command(valid_games), "seed": seed_of(valid_games),
                       "games": len(valid_games), "calls": len(vc), "declarations": len(vd),
                       "mean_log_likelihood": {"call": va_c, "declaration": va_d,
                                               "call_levels_only": va_bc,
                                               "declaration_uniform": round(uniform_decl_ll(valid), 4)},
                       "pass_calibration": calib},
        "baseline_cutpoints_levels_only": [round(float(c), 6) for c in base_cuts],
    }
    out = DATA / "call_model.json"
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({k: doc[k] for k in ("cutpoints", "kappa", "groups")}, indent=1))
    print(json.dumps(doc["fitted_on"]["mean_log_likelihood"]))
    print(json.dumps(doc["validation"]["mean_log_likelihood"]))
    for row in calib:
        print(row)
    print(f"wrote {out} in {time.time() - t0:.1f} s")


# ----------------------------------------------------------------------------- play fit

def play_jobs(games: list[dict], all_seats: bool) -> list[tuple[dict, str]]:
    """(hand, seats to score) for every played hand, in record order."""
    jobs = []
    for game in games:
        seats = "".join(sorted(advice_seats(game))) if not all_seats else "NESW"
        for hand in game["hands"]:
            if hand.get("contract") and hand.get("plays"):
                jobs.append((hand, seats))
    return jobs


def score_hand(job) -> list[tuple[str, list[int], bool]]:
    """For each play of the hand by one of the seats with two or more legal moves:
    (unit, losses with the move played first, whether the move played changed whether
    the contract makes on the true deal against the best move)."""
    from solver.game.position import Position
    from solver.search.solve import DealSolver
    hand, seats = job
    start = Position({"hands": hand["hands"], "contract": hand["contract"], "plays": []})
    plays = T.parse_tiles(hand["plays"], "plays")
    solver = DealSolver(start, threads=1)
    out = []
    for i, tile in enumerate(plays):
        p = start.with_plays(plays[:i]) if i else start
        seat = p.to_move_index
        if seat is None or SEATS[seat] not in seats or len(p.legal_tiles()) < 2:
            continue
        solver.load(p)
        values = dict(solver.child_values())
        is_max = p.maximizer[seat] == 1
        best = max(values.values()) if is_max else min(values.values())
        losses = {t: (best - v) if is_max else (v - best) for t, v in values.items()}
        unit = "tricks" if p.max_value == 7 else "points"
        flip = p.makes(values[tile]) != p.makes(best)
        out.append((unit, [losses[tile]] + [v for t, v in losses.items() if t != tile], flip))
    return out


def collect_plays(jobs, budget_s: float, limit: int):
    results = []
    t0 = time.time()
    with multiprocessing.Pool(2) as pool:
        for rows in pool.imap(score_hand, jobs, chunksize=2):
            results.extend(rows)
            if len(results) >= limit or time.time() - t0 > budget_s:
                pool.terminate()
                break
    return results[:limit], time.time() - t0


def play_ll(rows, T_):
    ll = 0.0
    for _, losses, _ in rows:
        z = [-l / T_ for l in losses]
        m = max(z)
        ll += z[0] - (m + math.log(sum(math.exp(v - m) for v in z)))
    return ll


#: The lowest temperature the search returns. With no suboptimal play in the sample
#: (the tricks contracts: nello and sevens, a few dozen plays, all optimal) the
#: likelihood grows without end as T falls to 0, and a model at T -> 0 would rule out a
#: deal for one unexpected play; at 0.25 a move that loses one trick (or point) keeps
#: a weight of e^-4 = 0.018 against the best.
T_FLOOR = 0.25


def fit_temperature(rows):
    """Golden-section search of the log-likelihood over log T in [log T_FLOOR, log 1000]."""
    a, b = math.log(T_FLOOR), math.log(1000.0)
    g = (math.sqrt(5) - 1) / 2
    f = lambda x: -play_ll(rows, math.exp(x))
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(60):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return math.exp((a + b) / 2)


def uniform_ll(rows):
    return -sum(math.log(len(losses)) for _, losses, _ in rows)


def play_summary(rows, t_) -> dict:
    """Counts and mean log-likelihoods (model, uniform) over all plays and over the
    decisive ones (where the moves' losses differ)."""
    decisive = [r for r in rows if len(set(r[1])) > 1]
    n, m = max(1, len(rows)), max(1, len(decisive))
    return {"plays": len(rows),
            "optimal_share": round(sum(1 for r in rows if r[1][0] == 0) / n, 4),
            "suboptimal_that_change_the_result": sum(1 for r in rows if r[2]),
            "mean_log_likelihood": round(play_ll(rows, t_) / n, 4),
            "uniform": round(uniform_ll(rows) / n, 4),
            "decisive_plays": len(decisive),
            "decisive_optimal_share": round(sum(1 for r in decisive if r[1][0] == 0) / m, 4),
            "decisive_mean_log_likelihood": round(play_ll(decisive, t_) / m, 4),
            "decisive_uniform": round(uniform_ll(decisive) / m, 4)}


def fit_plays(args) -> None:
    train_games, valid_games = read_games(args.train), read_games(args.valid)
    rng = random.Random(42)
    tj = play_jobs(train_games, False)
    vj = play_jobs(valid_games, True)
    rng.shuffle(tj)
    rng.shuffle(vj)
    train, t_train = collect_plays(tj, args.budget, args.train_plays)
    valid, t_valid = collect_plays(vj, args.budget / 2, args.valid_plays)
    print(f"{len(train)} train plays in {t_train:.0f} s, {len(valid)} valid plays in {t_valid:.0f} s")
    temps, fitted, validation = {}, {}, {}
    for unit in ("points", "tricks"):
        tr = [r for r in train if r[0] == unit]
        va = [r for r in valid if r[0] == unit]
        t_ = fit_temperature(tr)
        temps[unit] = round(t_, 4)
        fitted[unit] = play_summary(tr, t_)
        validation[unit] = play_summary(va, t_)
        print(unit, temps[unit], fitted[unit], validation[unit])
    doc = {"name": "dd-softmax-1",
           "description": "A seat with two or more legal moves plays move j with probability "
                          "exp(-loss_j / T) / sum_k exp(-loss_k / T); loss_j: how much worse "
                          "the double-dummy value after j is than the best move's, for the "
                          "seat (points in 42 point contracts, tricks when the value is in "
                          "tricks: Moon, nello, sevens, mark bids valued by tricks).",
           "temperature": temps,
           "temperature_floor": T_FLOOR,
           "fitted_on": {"records": arena_command(train_games), "seed": seed_of(train_games),
                         "seats": "advice seats only", "sample": "hands shuffled with "
                         "random.Random(42), every advice play with >= 2 legal moves (all of them)",
                         **fitted},
           "validation": {"records": arena_command(valid_games), "seed": seed_of(valid_games),
                          "seats": "all (advice)", **validation}}
    out = DATA / "play_model.json"
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", type=Path, default=TRAIN,
                        help=f"game records to fit on (default {TRAIN.relative_to(ROOT)})")
    parser.add_argument("--valid", type=Path, default=VALID,
                        help=f"game records to validate on (default {VALID.relative_to(ROOT)})")
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("calls", help="fit the call model")
    plays = sub.add_parser("plays", help="fit the play model's temperature")
    plays.add_argument("--train-plays", type=int, default=1_000_000)
    plays.add_argument("--valid-plays", type=int, default=1_000_000)
    plays.add_argument("--budget", type=float, default=1800.0,
                       help="seconds of wall time for the training sample (half for validation)")
    args = parser.parse_args(argv)
    (fit_calls if args.what == "calls" else fit_plays)(args)


if __name__ == "__main__":
    main()
