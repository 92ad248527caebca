"""How the bots call, declare and discard (`solver.play.bots` holds the bots themselves).

* `rule_call`: a casual player's table of bids (see `solver.play.bots.RuleBot`).
* `advice_choice` / `advice_declaration`: bid advice, held to what the auction and the
  rules allow: a call with the declaration it was made for, and the declaration to
  name at the bid won.
* `CheatTables`: the double-dummy best bid and declaration of a seat on the true deal.

Every call returned is one of the view's `CallView.legal_calls`; every declaration one
of its `CallView.legal_declarations`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from ..game import tiles as T
from ..game.auction import ONE_MARK, PASS, SHOOT, SPECIAL_CALLS, legal_declarations
from ..game.bid_request import ORDER_42, ORDER_MOON
from ..game.call_view import CallView
from ..game.position import SEATS, Position
from ..game.rules import PIP_NAMES
from ..hidden.bidding import DEFAULT_THRESHOLD, BidAdvice, advise, partner_trump
from ..hidden.seat_view_bidding import seat_view_advise
from ..search.discard import best_discards
from ..search.solve import DealSolver
from ..search.table import solve_deal

#: Moon's lowest bid that bid advice scores.
_ADVICE_MOON_LOW = 4

# ------------------------------------------------------------------- helpers


def partner_choice(hand: Iterable[int]) -> str:
    """The plunge or splash partner's trump, from its own tiles ``hand`` (`partner_trump`)."""
    return partner_trump(list(hand), "high")


def _numeric(legal: Sequence[int | str]) -> list[int]:
    return [c for c in legal if isinstance(c, int)]


def _lowest_bid(legal: Sequence[int | str]) -> int | str:
    bids = _numeric(legal)
    return min(bids) if bids else legal[0]


def hand_key(view: CallView) -> tuple:
    """What identifies one seat's hand of a game to a bot: seat, tiles, shaker."""
    return (view.seat, view.hand_ids, view.shaker, view.rules.game)


# ---------------------------------------------------------------------- rule


def _suit_key(tiles: Sequence[int], pip: int) -> tuple[int, bool, int, int]:
    suit = [t for t in tiles if pip in T.ENDS[t]]
    has_double = any(T.is_double(t) for t in suit)
    others = sum(1 for t in tiles if T.is_double(t) and pip not in T.ENDS[t])
    return (len(suit), has_double, others, pip)


def rule_trump(tiles: Sequence[int]) -> str:
    """The casual player's best suit: most tiles, then its double held, then more other
    doubles, then the higher pip."""
    return PIP_NAMES[max(range(7), key=lambda pip: _suit_key(tiles, pip))]


def rule_strength(tiles: Sequence[int]) -> int:
    """The strength of ``tiles``: tiles of the best suit plus the other doubles, one less
    without the suit's double."""
    pip = PIP_NAMES.index(rule_trump(tiles))
    length, has_double, others, _ = _suit_key(tiles, pip)
    return length + others - (0 if has_double else 1)


#: The rule bot's table: strength -> bid (42; Moon: the index into its ladder).
RULE_TABLE_42 = {5: 30, 6: 34, 7: ONE_MARK}
RULE_TABLE_MOON = {5: 4, 6: 5, 7: 6}


def rule_call(view: CallView) -> int | str:
    """The casual player's call for the seat of ``view`` (the table in
    `solver.play.bots.RuleBot`)."""
    legal = view.legal_calls()
    if len(legal) == 1:
        return legal[0]
    doubles = sum(1 for t in view.hand_ids if T.is_double(t))
    if doubles >= 4 and "plunge" in legal:
        return "plunge"
    strength = rule_strength(view.hand_ids)
    table = RULE_TABLE_42 if view.rules.game == "42" else RULE_TABLE_MOON
    want = table.get(strength)
    if want is not None and view.rules.game == "moon":
        want = max(want, view.rules.min_bid)
    if want is not None and want in legal:
        return want
    return PASS if PASS in legal else _lowest_bid(legal)


def weakest(tiles: Iterable[int], trump: str) -> int:
    """The tile of ``tiles`` a casual Moon declarer lays away under ``trump``: outside
    the trump (follow-me and doubles: not a double), not a double, fewest pips."""
    tiles = list(tiles)
    pip = PIP_NAMES.index(trump) if trump in PIP_NAMES else None

    def keep(t: int) -> tuple:
        in_trump = (pip in T.ENDS[t]) if pip is not None else T.is_double(t)
        return (in_trump, T.is_double(t), sum(T.ENDS[t]), t)

    return min(tiles, key=keep)


# -------------------------------------------------------------------- advice


def _worth_asking(tiles: Sequence[int]) -> set[str]:
    """The declarations a hand could bid at all, to spare bid advice hopeless searches:
    the two best pip suits and any other with 3 tiles (2 with its double); doubles and
    follow-me with 3 doubles; sevens with 3 tiles of 7 pips or near (6..8); nello with
    at most 2 tiles of 9 pips or more and no double above 3-3."""
    ranked = sorted(range(7), key=lambda pip: _suit_key(tiles, pip), reverse=True)
    keep = {PIP_NAMES[p] for p in ranked[:2]}
    for pip in range(7):
        length, has_double, _, _ = _suit_key(tiles, pip)
        if length >= 3 or (length >= 2 and has_double):
            keep.add(PIP_NAMES[pip])
    doubles = sum(1 for t in tiles if T.is_double(t))
    if doubles >= 3:
        keep |= {"doubles", "follow-me"}
    if sum(1 for t in tiles if 6 <= sum(T.ENDS[t]) <= 8) >= 3:
        keep.add("sevens")
    high = sum(1 for t in tiles if sum(T.ENDS[t]) >= 9)
    if high <= 2 and not any(T.is_double(t) and T.ENDS[t][0] > 3 for t in tiles):
        keep.add("nello")
    return keep


def declaration_options(view: CallView, highest: int | None, prune: bool = True
                        ) -> tuple[str, ...]:
    """The declarations bid advice is asked about for the seat of ``view`` above the bid
    ``highest``: every one the game has at some bid the auction still allows (nello only
    when its marks are on offer; plunge and splash only when the seat may call them);
    once the auction is over, those of the bid won; with ``prune``, only those
    `_worth_asking` (plunge and splash always)."""
    rules = view.rules
    worth = _worth_asking(view.hand_ids) if prune else None
    if rules.game == "moon":
        return tuple(d for d in ORDER_MOON if worth is None or d in worth)
    legal = view.legal_calls()
    if not legal and view.auction().bid is not None:
        # The auction is over: the declarations of the bid won (nello at 2 marks too).
        allowed = set(view.legal_declarations())
    else:
        bids = _numeric(legal)
        top = max(bids) if bids else ONE_MARK
        allowed = set(legal_declarations(rules, top))
    return tuple(d for d in ORDER_42 if (d in allowed and (worth is None or d in worth))
                 or (d in SPECIAL_CALLS and d in legal))


def advice_for(view: CallView, highest: int | None, options: Sequence[str], *, deals: int,
               seed: int, threshold: float, calibrated: bool, threads: int | None,
               adaptive: bool = True, token: Any = None, inference: str = "off",
               fixed_lead: bool = False) -> Any:
    """`advise` on the seat's seven tiles (Moon: no calibration; bids under 4 count as none).
    ``inference`` ``auction`` (or ``both``) hands the advice the calls so far to weigh its
    deals by (42 only: Moon's auctions have no call model); ``fixed_lead`` holds the
    declarer to one opening lead for every deal (not in three-player Moon)."""
    rules = view.rules
    if rules.game == "moon" and highest is not None and highest < _ADVICE_MOON_LOW:
        highest = None
    auction: Any = highest
    reads_calls = inference in ("auction", "both") and rules.game == "42"
    if reads_calls:
        auction = [c.to_json() for c in view.calls]
    return advise(view.hand, SEATS[view.seat], game=rules.game,
                  players=rules.players, auction=auction, deals=deals, seed=seed,
                  threshold=threshold, declarations=list(options),
                  calibrated=calibrated and rules.game == "42", threads=threads,
                  adaptive=adaptive, token=token,
                  inference="auction" if reads_calls else "off",
                  fixed_lead=fixed_lead and rules.players == 4)


def playout_advice_for(view: CallView, highest: int | None, declarations: Sequence[str], *,
                       deals: int, seed: int, threshold: float, threads: int | None,
                       token: Any = None) -> Any:
    """Bid advice from the seat's view (`seat_view_advise`: every deal played out by
    seat-view players) on the seat's seven tiles, for ``declarations``, as `advice_for`
    asks double dummy (Moon: bids under 4 count as none)."""
    rules = view.rules
    if rules.game == "moon" and highest is not None and highest < _ADVICE_MOON_LOW:
        highest = None
    return seat_view_advise(view.hand, SEATS[view.seat], game=rules.game,
                            players=rules.players, auction=highest, deals=deals, seed=seed,
                            threshold=threshold, declarations=list(declarations),
                            threads=threads, token=token)


def _rank_key(row: Any, chance: Any, order: Sequence[str]) -> tuple:
    """Bid advice's tie-break between declarations at one bid: more deals made, then a
    higher mean (make-or-set declarations after), then table order."""
    mean = row.mean
    return (chance.made, mean is not None, mean or 0.0, -order.index(row.declaration))


def _offered(view: CallView, legal: Sequence[int | str], declaration: str, bid: int
             ) -> int | str | None:
    """The call that bids ``bid`` in ``declaration``, if the auction and rules allow it."""
    if declaration in SPECIAL_CALLS:
        return declaration if declaration in legal and \
            bid == SPECIAL_CALLS[declaration][0] else None
    if bid not in legal:
        return None
    return bid if declaration in legal_declarations(view.rules, bid) else None


def advice_choice(view: CallView, ask: Callable[[int | None, Sequence[str]], Any],
                  threshold: float, prune: bool = True) -> tuple[int | str, str | None]:
    """The highest call bid advice reaches ``threshold`` with that the auction allows
    (see `solver.play.bots.AdviceBot`), for the seat of ``view``, and the declaration
    it reaches the threshold in (the advice's best ranked at that bid; None for a pass
    or a forced bid); ``ask(highest, declarations)`` runs the advice; ``prune`` as for
    `declaration_options`.

    A bid is judged only by the P(make) of a declaration the seat may name at it, the
    one it is to declare if it wins the auction at that bid (an overcall of a plunge
    at 5 marks as much as an opening bid)."""
    legal = view.legal_calls()
    highest = view.highest
    order = ORDER_MOON if view.rules.game == "moon" else ORDER_42
    advice = ask(highest, declaration_options(view, highest, prune))
    found = []
    for row in advice.declarations:
        for chance in row.bids:
            call = _offered(view, legal, row.declaration, chance.bid)
            if call is not None and chance.p_used >= threshold:
                found.append((chance.bid, _rank_key(row, chance, order), call,
                              row.declaration))
    if found:
        _, _, call, declaration = max(found, key=lambda f: (f[0], f[1]))
        return call, declaration
    if PASS in legal:
        return PASS, None
    return _lowest_bid(legal), None


def advice_call(view: CallView, ask: Callable[[int | None, Sequence[str]], Any],
                threshold: float, prune: bool = True) -> int | str:
    """The call of `advice_choice` for the seat of ``view`` (without its declaration):
    ``ask``, ``threshold`` and ``prune`` as there."""
    return advice_choice(view, ask, threshold, prune)[0]


def declaring_highest(view: CallView) -> int | None:
    """The highest bid to ask bid advice with for the declaration of the seat of
    ``view`` once the auction is over: in 42 the bid just under the bid won (a mark under a mark bid, a point
    under a point bid; none under 30), so that the advice scores the bid won (3 marks
    or more are not on offer over no bid); Moon (whose advice scores every bid) and an
    auction with no bid: None."""
    bid = view.auction().bid
    if view.rules.game == "moon" or bid is None or bid <= 30:
        return None
    return bid - ONE_MARK if bid > ONE_MARK else bid - 1


def ranked_at_bid(view: CallView, advice: BidAdvice) -> str | None:
    """The declaration ``advice`` ranks best at the auction's bid, of those the seat of
    ``view`` may name; None when the advice scores that bid in none of them."""
    allowed = view.legal_declarations()
    auction = view.auction()
    bid = auction.bid
    assert bid is not None
    order = ORDER_MOON if view.rules.game == "moon" else ORDER_42
    if view.rules.game == "moon":
        bid = max(bid, _ADVICE_MOON_LOW)
    best = None
    for row in advice.declarations:
        if row.declaration not in allowed:
            continue
        chance = row.chance(bid)
        if chance is None:
            continue
        key = _rank_key(row, chance, order)
        if best is None or key > best[0]:
            best = (key, row.declaration)
    return None if best is None else best[1]


def advice_declaration(view: CallView, advice: BidAdvice) -> str:
    """The declaration ``advice`` (a `BidAdvice`) ranks best at the auction's bid, of
    those the seat of ``view`` may name (`ranked_at_bid`); when it scores that bid in
    none, the one of best mean, else the first allowed."""
    allowed = view.legal_declarations()
    best = ranked_at_bid(view, advice)
    if best is not None:
        return best
    order = ORDER_MOON if view.rules.game == "moon" else ORDER_42
    rows = [r for r in advice.declarations if r.declaration in allowed and r.mean is not None]
    if rows:
        return max(rows, key=lambda r: (r.mean, -order.index(r.declaration))).declaration
    return allowed[0]


# --------------------------------------------------------------------- cheat


#: 42 declarations scored in points, then those that make or fail, in table order.
_POINT_42 = PIP_NAMES + ("doubles", "follow-me")


class CheatTables:
    """Each seat's double-dummy results on one deal, computed once per deal.

    ``makes(seat)`` maps a declaration to the highest bid it makes for ``seat``
    declaring and leading: 42 points 30..41, `ALL` for every trick (any mark bid;
    sevens and nello are make-or-set), None for none; Moon the tricks (7: 21 too).
    """

    ALL = 10 ** 6

    def __init__(self) -> None:
        #: a `CancelToken` the searches look at (a service call's deadline), or None
        self.token: Any = None
        self._key: tuple | None = None
        self._rows: dict[int, dict[str, tuple[int | None, int]]] = {}
        self._discards: dict[int, dict[str, int]] = {}

    def _load(self, view: CallView, hands: Mapping[int, tuple[int, ...]], widow: int | None
              ) -> None:
        key = (view.rules.game, view.rules.players,
               tuple(sorted((s, tuple(h)) for s, h in hands.items())), widow)
        if key == self._key:
            return
        # The key is set once every row is in: a search stopped by the token leaves none.
        self._key, self._rows, self._discards = None, {}, {}
        seats = view.rules.seats
        if view.rules.game == "42":
            table = solve_deal({"hands": {SEATS[s]: [T.name_of(t) for t in hands[s]]
                                          for s in seats}}, threads=1, token=self.token)
            for s in seats:
                row: dict[str, tuple[int | None, int]] = {}
                for d in _POINT_42:
                    pts = table.points[d][SEATS[s]]
                    row[d] = (self.ALL if pts >= ONE_MARK else pts if pts >= 30 else None, pts)
                row["sevens"] = (self.ALL if table.makes["sevens"][SEATS[s]] else None, 0)
                row["nello"] = (self.ALL if table.makes["nello"][SEATS[s]] else None, 0)
                self._rows[s] = row
        else:
            for s in seats:
                self._rows[s] = self._moon_row(view, hands, widow, s)
        self._key = key

    def _moon_row(self, view: CallView, hands: Mapping[int, tuple[int, ...]],
                  widow: int | None, seat: int) -> dict[str, tuple[int | None, int]]:
        names = {SEATS[s]: [T.name_of(t) for t in hands[s]] for s in view.rules.seats}
        row: dict[str, tuple[int | None, int]] = {}
        if widow is not None:
            table = best_discards({"game": "moon", "hands": names, "widow": T.name_of(widow),
                                   "contract": {"declarer": SEATS[seat]}}, token=self.token)
            best: dict[str, int] = {}
            for r in table.rows:   # best first
                if r.trump not in row:
                    row[r.trump] = (r.value, r.value)
                    best[r.trump] = T.parse_tile(r.discard, "discard")
            self._discards[seat] = best
            return row
        for d in ORDER_MOON:
            pos = Position({"game": "moon", "hands": names,
                            "contract": {"declarer": SEATS[seat], "trump": d, "bid": 4}})
            value = DealSolver(pos, self.token).value()
            row[d] = (value, value)
        return row

    def _best_bid(self, view: CallView, seat: int, legal: Sequence[int | str]
                  ) -> tuple[int | None, str | None]:
        """The highest legal bid ``seat`` makes as declarer, and its declaration."""
        row = self._rows[seat]
        best: tuple[tuple, int, str] | None = None
        for bid in _numeric(legal):
            for d in legal_declarations(view.rules, bid):
                made, points = row.get(d, (None, 0))
                if made is None:
                    continue
                if view.rules.game == "42":
                    ok = made == self.ALL if bid >= ONE_MARK else made >= bid
                else:
                    ok = made >= (7 if bid == SHOOT else bid)
                if ok:
                    key = (bid, points, -list(row).index(d))
                    if best is None or key > best[0]:
                        best = (key, bid, d)
        return (None, None) if best is None else (best[1], best[2])

    def call(self, view: CallView, hands: Mapping[int, tuple[int, ...]], widow: int | None
             ) -> int | str:
        legal = view.legal_calls()
        if len(legal) == 1:
            return legal[0]
        self._load(view, hands, widow)
        mine, _ = self._best_bid(view, view.seat, legal)
        auction = view.auction()
        if view.rules.partnerships:
            partner = (view.seat + 2) % 4
            later = partner in auction.order[len(auction.calls) + 1:]
            theirs, _ = self._best_bid(view, partner, legal)
            if auction.top is not None and auction.top.seat == partner and PASS in legal:
                if mine is None or mine < ONE_MARK or (theirs is not None and theirs >= mine):
                    return PASS
            if later and theirs is not None and (mine is None or theirs > mine) and PASS in legal:
                return PASS
        if mine is not None:
            return mine
        return PASS if PASS in legal else _lowest_bid(legal)

    def declaration(self, view: CallView, hands: Mapping[int, tuple[int, ...]],
                    widow: int | None) -> str:
        """The allowed declaration that makes the bid with the most points (tricks)."""
        self._load(view, hands, widow)
        allowed = view.legal_declarations()
        bid = view.auction().bid
        assert bid is not None
        row = self._rows[view.seat]
        order = list(row)

        def key(d: str) -> tuple:
            made, points = row.get(d, (None, 0))
            if view.rules.game == "42":
                ok = made is not None and (made == self.ALL if bid >= ONE_MARK else made >= bid)
            else:
                ok = made is not None and made >= (7 if bid == SHOOT else bid)
            return (ok, points if made is not None else -1, -order.index(d) if d in order
                    else -99)

        return max(allowed, key=key)

    def discard(self, view: CallView, hands: Mapping[int, tuple[int, ...]],
                widow: int | None) -> int:
        """Three-player Moon: the best discard for the declaration `declaration` names."""
        trump = self.declaration(view, hands, widow)
        return self._discards[view.seat][trump]


__all__ = ["CheatTables", "DEFAULT_THRESHOLD", "RULE_TABLE_42", "RULE_TABLE_MOON",
           "advice_call", "advice_choice", "advice_declaration", "declaration_options",
           "declaring_highest", "partner_choice", "ranked_at_bid", "rule_call",
           "rule_strength", "rule_trump", "weakest"]
