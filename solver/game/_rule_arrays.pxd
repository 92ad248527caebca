# cython: language_level=3
"""A declaration's rule tables as C arrays, shared by the search core (_core.pyx)
and the fast position reader (_replay.pyx), so both read solver.game.rules.Rules the
same way and the layout is declared once."""

from libc.stdint cimport uint32_t

cdef enum:
    NT = 28         # tiles
    NCTX = 10       # suit contexts (game.rules): the seven pips, the doubles, trumps, the lead
    LEAD_CTX = 9    # the context of a seat leading to a trick
    MAXTIERS = 8    # follow tiers of one context, at most

ctypedef uint32_t mask_t   # a set of tiles: bit t for tile t


cdef struct RuleArrays:
    int lead_suit[NT]               # the suit context a tile leads
    int power[NCTX][NT]             # how strong a tile is when a suit is led (0: cannot win)
    int ntiers[NCTX]
    mask_t tiers[NCTX][MAXTIERS]    # the tiles a seat must follow with, by priority
    int count[NT]                   # the points a tile carries
    int trick_points                # the points a trick itself is worth


cdef inline void fill_rule_arrays(RuleArrays* r, rules) except *:
    """Copy a solver.game.rules.Rules into C arrays."""
    cdef int c, t, k
    r.trick_points = rules.trick_points
    for t in range(NT):
        r.lead_suit[t] = rules.lead_suit[t]
        r.count[t] = rules.count[t]
    for c in range(NCTX):
        r.ntiers[c] = len(rules.tiers[c])
        for k in range(r.ntiers[c]):
            r.tiers[c][k] = rules.tiers[c][k]
        for t in range(NT):
            r.power[c][t] = rules.power[c][t]
