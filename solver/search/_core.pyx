# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The double-dummy search core.

Alpha-beta over single tile plays, with a transposition table probed at
trick boundaries (and, before the last seat of a trick moves, at the
boundaries its moves lead to); the last two tricks are a small closed
minimax (`two_left`). A trick-boundary state of one deal is fully described by
the set of tiles still in the hands and the seat on lead (who holds which
tile never changes), so that 30-bit number is the table key, and an entry
stores lower and upper bounds on the points still to come.

Nothing here touches a Python object while searching: the rules arrive as
C tables (built from `solver.game.rules.Rules`), hands are 28-bit masks, and the
search runs with the GIL released.
"""

import math
import numbers
import operator

from ..game.errors import ArgumentError

from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset
from libc.stdint cimport uint32_t, uint16_t, uint8_t, int8_t, int16_t, int64_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef extern from *:
    int __builtin_ctz(unsigned int) nogil

# A table entry is read and written as one 64-bit word, so that the engines of
# one search split between threads can share a table: a reader sees an old
# entry or a new one, never half of each (relaxed atomics are plain moves on
# x86-64 and arm64).
cdef extern from *:
    """
    static inline uint64_t t42_load_word(const void* p) {
        return __atomic_load_n((const uint64_t*) p, __ATOMIC_RELAXED);
    }
    static inline void t42_store_word(void* p, uint64_t w) {
        __atomic_store_n((uint64_t*) p, w, __ATOMIC_RELAXED);
    }
    """
    uint64_t t42_load_word(const void* p) nogil
    void t42_store_word(void* p, uint64_t w) nogil

# The table the last search of this thread ran on (see Engine._table).
cdef extern from *:
    """
    static __thread const void* t42_last_table = 0;
    """
    const void* t42_last_table

from solver.game._rule_arrays cimport (NT, NCTX, LEAD_CTX, MAXTIERS, mask_t, RuleArrays,
                                      fill_rule_arrays)

cdef enum:
    MAXDEPTH = 32
    NEG_INF = -1000
    POS_INF = 1000

# log2 of the table entries a search with this many tricks left wants: enough
# for the trick-boundary states it visits, no more (a table is zeroed when made).
cdef int[8] TABLE_BITS = [4, 4, 8, 11, 13, 15, 16, 17]
# From this size (6 tricks left) a search on a table that has gone cold in the
# cache is cheaper after zeroing it (see Engine._table).
cdef enum:
    WARM_BITS = 16

cdef enum:
    # Ordering scores rank first; the history of leads breaks ties (kept below HIST_SCALE).
    HIST_SCALE = 4096
    HIST_MAX = 4095
    # A lead that last cut a search off at the same trick for the same seat (the killer)
    # gains this much: a fifth of a trick won outright, so it moves past leads that
    # score alike, not past a lead that wins where it loses (bench/README.md, round 7).
    KILLER_BONUS = 100

cdef enum:
    # Keys are put in canonical form from this many tricks left: the states
    # two tricks from the end are the most numerous and cheapest to search again.
    CANONICAL_TRICKS = 3

cdef struct Ordering:
    int base[2][2]      # [lead, follow][mover, other seat takes the trick it wants]
    int power[2][2]     # per power point of the tile played, same cases
    int count           # per count point: added when the trick goes well, else taken
    int power_lost[2]   # [lead, follow] per power point when the trick goes to a seat it does not want


cdef struct Tables:
    int nactive
    int next_seat[4]
    int maximizer[4]        # 1 for seats of the maximising side
    int scorer[4]           # 1 for seats whose tricks count in the value
    RuleArrays rule             # the declaration's rule tables
    int likes[4][4]             # 1 when seat a wants the trick to go to seat b
    mask_t matched[NCTX][NT]    # other tiles as strong as t when suit c is led
    mask_t absolute             # tiles with the same nonzero power whatever is led
    int free_lead               # 1 when the leader may lead any tile
    int max_count               # the largest count of a tile
    Ordering order[4]           # move-ordering weights of each seat
    mask_t kin[NT]              # tiles of t's count and lead suit: candidates to be alike
    mask_t kin_above[NT]        # the tiles of kin[t] numbered above t
    uint16_t differ[NT][NT]     # suits in which a and b follow or can win differently
    uint16_t spread[NT][NT]     # suits in which a tile could rank between a and b
    mask_t stronger[NCTX][NT]   # tiles stronger than t when suit c is led
    mask_t leads[NCTX]          # tiles that lead suit c
    mask_t powered[NCTX]        # tiles with a nonzero power when suit c is led
    uint16_t always_live        # suits to check whoever holds what (the leader's tiers)
    int scorers_duck            # 1 when the scoring seats want no tricks (nello)

cdef struct State:
    # Whole ints: narrower fields made the state copied at every node smaller
    # but the search slower (measured: +10% CPU time).
    mask_t hand[4]
    mask_t trick_set   # tiles played to this trick
    int sofar      # value already won by the scoring seats
    int avail      # points not yet awarded (tricks and count still to come)
    int win_power  # power of the tile holding this trick so far
    int trick_pts  # what this trick is worth so far: its points and the count played
    int ntrick
    int leader
    int to_move
    int tricks_left
    int ctx         # suit led to this trick (when ntrick > 0)
    int win_seat    # seat holding this trick so far

cdef struct TTEntry:
    uint32_t key
    int8_t lower
    int8_t upper
    int8_t best
    uint8_t meta        # tricks left (low 3 bits) and the table generation (high 5)

cdef union TTWord:      # an entry as the one word it is loaded and stored as
    TTEntry ent
    uint64_t word

cdef struct Search:
    Tables* T
    State st
    TTEntry* tt
    int tt_shift
    int tt_bits         # log2 of the entries allocated (0: not yet allocated)
    int tt_max_bits     # the most the engine may allocate
    uint8_t gen         # current generation, pre-shifted (multiple of 8)
    int64_t nodes
    mask_t own[4]       # tiles known to belong to each seat (held when loaded)
    int aborted
    int* cancel_flag
    int has_deadline
    double deadline
    int64_t node_limit
    int hist[4][NT]     # how often each seat's lead cut a search off: breaks ties between leads
    int killer[8][4]    # by tricks left and seat: the lead that last cut a search off (-1: none)
    # later_seats' figures for a seat's hand and a suit led, kept: a seat's hand is the
    # same at every node of a trick until it plays, and in every trick until then.
    mask_t sim_hand[4][NCTX]    # the hand they were worked out for (~0: none yet)
    int sim_hi[4][NCTX]
    int sim_lo[4][NCTX]


cdef inline mask_t legal_mask(Tables* T, mask_t hand, int ctx) noexcept nogil:
    cdef int k
    cdef mask_t m
    if T.rule.ntiers[ctx] == 1:         # one suit to follow: a conditional move, no branch
        m = hand & T.rule.tiers[ctx][0]
        return m if m != 0 else hand
    for k in range(T.rule.ntiers[ctx]):
        m = hand & T.rule.tiers[ctx][k]
        if m:
            return m
    return hand


cdef inline mask_t legal_now(Search* e) noexcept nogil:
    """Tiles the seat to move may play: any lead, or following the led suit."""
    cdef State* s = &e.st
    cdef int ctx = LEAD_CTX if s.ntrick == 0 else s.ctx
    return legal_mask(e.T, s.hand[s.to_move], ctx)


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int should_stop(Search* e) noexcept nogil:
    if e.cancel_flag != NULL and e.cancel_flag[0]:
        return 1
    if e.node_limit > 0 and e.nodes >= e.node_limit:
        return 1
    if e.has_deadline and now() >= e.deadline:
        return 1
    return 0


cdef inline void play(Search* e, int t) noexcept nogil:
    """Play tile t for the seat to move; settles the trick when it is full."""
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef int seat = s.to_move
    cdef int w, pts, pw
    s.hand[seat] &= ~((<mask_t>1) << t)
    s.trick_set |= (<mask_t>1) << t
    # The trick's holder and worth are kept up to date tile by tile.
    if s.ntrick == 0:
        s.ctx = T.rule.lead_suit[t]
        s.win_power = T.rule.power[s.ctx][t]
        s.win_seat = seat
        s.trick_pts = T.rule.trick_points + T.rule.count[t]
    else:
        pw = T.rule.power[s.ctx][t]
        if pw > s.win_power:
            s.win_power = pw
            s.win_seat = seat
        s.trick_pts += T.rule.count[t]
    s.ntrick += 1
    if s.ntrick < T.nactive:
        s.to_move = T.next_seat[seat]
        return
    w = s.win_seat
    pts = s.trick_pts
    s.trick_set = 0
    if T.scorer[w]:
        s.sofar += pts
    s.avail -= pts
    s.tricks_left -= 1
    s.leader = w
    s.to_move = w
    s.ntrick = 0


cdef inline int later_seats(Search* e, int ctx, int seat, int* seats, int* hi,
                            int* lo) noexcept nogil:
    """The seats still to play in this trick after ``seat`` when suit ``ctx`` was
    led, with the highest and lowest power each of them can play; returns how many."""
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef int k, o = seat, pw, h, l, n = T.nactive - s.ntrick - 1
    cdef mask_t m, pm
    for k in range(n):
        o = T.next_seat[o]
        seats[k] = o
        if e.sim_hand[o][ctx] == s.hand[o]:
            hi[k] = e.sim_hi[o][ctx]
            lo[k] = e.sim_lo[o][ctx]
            continue
        pm = legal_mask(T, s.hand[o], ctx)
        m = pm & T.powered[ctx]     # the others have power 0: only their presence counts
        h = 0
        l = 0 if m != pm else POS_INF
        while m:
            pw = T.rule.power[ctx][__builtin_ctz(m)]
            m &= m - 1
            if pw > h:
                h = pw
            if pw < l:
                l = pw
        hi[k] = h
        lo[k] = l
        e.sim_hand[o][ctx] = s.hand[o]
        e.sim_hi[o][ctx] = h
        e.sim_lo[o][ctx] = l
    return n


cdef inline int likely_winner(Tables* T, int n, int* seats, int* hi, int* lo, int cur,
                              int owner) noexcept nogil:
    """Who probably takes the trick now held by ``owner`` with power ``cur``.

    Each later seat that wants the trick for itself takes it when it can; any
    other seat plays low and takes it only when every tile it may play is
    stronger (then it plays its strongest, for it is losing that trick anyway).
    """
    cdef int k, o
    for k in range(n):
        o = seats[k]
        if T.likes[o][o] and not T.likes[o][owner]:
            if hi[k] > cur:
                cur = hi[k]
                owner = o
        elif lo[k] > cur:
            cur = lo[k] if T.likes[o][o] else hi[k]
            owner = o
    return owner


cdef inline int insert_by_score(int* out, int* scores, int n, int t, int score) noexcept nogil:
    """Insert tile t into out[0..n) kept in falling score order (ties keep their
    order: a later tile goes after an equal one); return the new length."""
    cdef int j = n
    while j > 0 and scores[j - 1] < score:
        scores[j] = scores[j - 1]
        out[j] = out[j - 1]
        j -= 1
    scores[j] = score
    out[j] = t
    return n + 1


cdef int order_last(Search* e, mask_t legal, int ttbest, int* out) noexcept nogil:
    """order_moves for the last seat of a trick: who takes it is known for
    each tile, so no later seats are simulated (the same scores and order)."""
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef int seat = s.to_move, ctx = s.ctx, n = 0, t, p, w, score
    cdef int scores[8]
    cdef Ordering* O = &T.order[seat]
    cdef mask_t m = legal
    while m:
        t = __builtin_ctz(m)
        m &= m - 1
        p = T.rule.power[ctx][t]
        w = seat if p > s.win_power else s.win_seat
        if T.likes[seat][w]:
            score = O.base[1][0 if w == seat else 1] + O.power[1][0 if w == seat else 1] * p \
                + O.count * T.rule.count[t]
        else:
            score = O.power_lost[1] * p - O.count * T.rule.count[t]
        if t == ttbest:
            score += 100000
        n = insert_by_score(out, scores, n, t, score)
    return n


cdef int order_moves(Search* e, mask_t legal, int ttbest, int* out) noexcept nogil:
    """Fill out[] with the legal tiles, the most promising first.

    Each tile is scored by who probably takes the trick after it (see
    likely_winner) and by the weights of the mover's ordering profile: the
    rules' data (solver.game.rules.Ordering) for seats that want tricks, as in the
    point games, or that want to lose them, as everybody does in nello.
    What the later seats can play is worked out once per led suit.
    """
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef int seat = s.to_move
    cdef int n = 0, i, t, ctx = 0, p, score, w, cur, owner, phase, who
    cdef int win_power = 0, win_seat = seat, nlater = 0
    cdef int scores[8]
    cdef int lseats[NCTX][3]
    cdef int lhi[NCTX][3]
    cdef int llo[NCTX][3]
    cdef int nl[NCTX]
    cdef Ordering* O = &T.order[seat]
    cdef mask_t m = legal
    if (legal & (legal - 1)) == 0:
        out[0] = __builtin_ctz(legal)     # a forced play needs no ordering
        return 1
    phase = 0 if s.ntrick == 0 else 1
    if s.ntrick == T.nactive - 1:
        return order_last(e, legal, ttbest, out)
    if phase:
        ctx = s.ctx
        win_power = s.win_power
        win_seat = s.win_seat
        nl[ctx] = later_seats(e, ctx, seat, lseats[ctx], lhi[ctx], llo[ctx])
    else:
        for i in range(NCTX):
            nl[i] = -1
    while m:
        t = __builtin_ctz(m)
        m &= m - 1
        if phase == 0:
            ctx = T.rule.lead_suit[t]
            if nl[ctx] < 0:
                nl[ctx] = later_seats(e, ctx, seat, lseats[ctx], lhi[ctx], llo[ctx])
        p = T.rule.power[ctx][t]
        if phase == 0 or p > win_power:
            cur = p
            owner = seat
        else:
            cur = win_power
            owner = win_seat
        w = likely_winner(T, nl[ctx], lseats[ctx], lhi[ctx], llo[ctx], cur, owner)
        if T.likes[seat][w]:
            who = 0 if w == seat else 1
            score = O.base[phase][who] + O.power[phase][who] * p + O.count * T.rule.count[t]
        else:
            score = O.power_lost[phase] * p - O.count * T.rule.count[t]
        if t == ttbest:
            score += 100000
        if phase == 0:
            if t == e.killer[s.tricks_left][seat]:
                score += KILLER_BONUS
            score = score * HIST_SCALE + e.hist[seat][t]
        else:
            score = score * HIST_SCALE
        n = insert_by_score(out, scores, n, t, score)
    return n


cdef uint32_t boundary_key(Search* e) noexcept nogil:
    """Table key of a trick-boundary state: the tiles held, and the leader.

    Each hand is first put in a canonical form: a tile is swapped for a
    lower-numbered tile of the same seat already played when the two are
    interchangeable now (see alike), so states that differ only in which of
    such tiles was played share one entry (as in partition search). Only
    tiles known to be the seat's (held when the engine was loaded) count,
    and only with CANONICAL_TRICKS or more tricks left.
    """
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef mask_t held = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef mask_t key = held, gone, m, cand, others, swap
    cdef int x, a, b
    cdef uint16_t live
    if s.tricks_left < CANONICAL_TRICKS:
        return key | (<uint32_t>s.leader << 28)
    for x in range(4):
        gone = e.own[x] & ~held
        if gone == 0 or s.hand[x] == 0:
            continue
        # Only held tiles with a kin tile already gone below them can swap.
        m = 0
        cand = gone
        while cand:
            m |= T.kin_above[__builtin_ctz(cand)]
            cand &= cand - 1
        m &= s.hand[x]
        if m == 0:
            continue
        # The other seats' tiles as swapped so far: each swap must keep the state it
        # is made in equivalent, and that state holds the earlier seats' swaps (judged
        # on the tiles really held, two seats' swaps could each pass and together not).
        others = key & ~s.hand[x]
        live = 0xFFFF
        while m:
            a = __builtin_ctz(m)
            m &= m - 1
            cand = T.kin[a] & gone & (((<mask_t>1) << a) - 1)
            while cand:
                b = __builtin_ctz(cand)
                cand &= cand - 1
                if alike(e, a, b, &live, others, others):
                    swap = ((<mask_t>1) << a) | ((<mask_t>1) << b)
                    key ^= swap
                    gone ^= swap
                    m |= T.kin_above[a] & s.hand[x]    # a is gone now
                    break
    return key | (<uint32_t>s.leader << 28)


cdef inline TTEntry* tt_bucket(Search* e, uint32_t key) noexcept nogil:
    # Two entries a bucket: tt_shift addresses buckets, not entries.
    return &e.tt[((<uint32_t>(key * 2654435761u)) >> e.tt_shift) << 1]


cdef enum:
    GEN_STEP = 8        # the generation lives above the 3 bits of tricks left
    DEPTH_BITS = 7


cdef inline int tt_live(Search* e, TTEntry* ent, uint32_t key) noexcept nogil:
    return ent.key == key and (ent.meta & ~DEPTH_BITS) == e.gen


cdef inline int tt_worth(Search* e, TTEntry* ent) noexcept nogil:
    """How much an entry is worth keeping: its tricks left, -1 if from an older generation."""
    if (ent.meta & ~DEPTH_BITS) != e.gen:
        return -1
    return ent.meta & DEPTH_BITS


cdef inline int tt_get(Search* e, uint32_t key, TTEntry* out) noexcept nogil:
    """Copy the live entry for key into out; 0 when the table has none."""
    cdef TTEntry* b = tt_bucket(e, key)
    cdef TTWord w0, w1
    cdef int h0, h1
    # Both entries are read and tested, then one is picked without a branch:
    # whether a state is in the table, and where, is as good as random.
    w0.word = t42_load_word(&b[0])
    w1.word = t42_load_word(&b[1])
    h0 = tt_live(e, &w0.ent, key)
    h1 = tt_live(e, &w1.ent, key)
    w0.word = w0.word if h0 else w1.word
    out[0] = w0.ent
    return h0 | h1


cdef inline int tt_move(Search* e) noexcept nogil:
    """The best move the table holds for the current trick-boundary state, or -1."""
    cdef TTEntry ent
    if e.st.ntrick != 0:
        return -1
    return ent.best if tt_get(e, boundary_key(e), &ent) else -1


cdef inline int last_trick(Search* e) noexcept nogil:
    """Final value when at most one trick is left: every play is forced."""
    cdef State saved
    cdef int v
    if e.st.tricks_left == 0:
        return e.st.sofar
    saved = e.st
    while e.st.tricks_left:
        play(e, __builtin_ctz(e.st.hand[e.st.to_move]))
    v = e.st.sofar
    e.st = saved
    return v


cdef inline mask_t trick_mask(Search* e) noexcept nogil:
    return e.st.trick_set


cdef inline uint16_t live_suits(Search* e, mask_t others) noexcept nogil:
    """Suits a tile of the mover may still meet other tiles in: those another
    seat can lead, the suit of this trick, and the leader's tiers (sevens)."""
    cdef Tables* T = e.T
    cdef uint16_t live = T.always_live
    cdef int c
    for c in range(NCTX):
        if others & T.leads[c]:
            live |= 1 << c
    if e.st.ntrick > 0:
        live |= 1 << e.st.ctx
    return live


cdef inline int alike(Search* e, int a, int b, uint16_t* live, mask_t others,
                      mask_t blockers) noexcept nogil:
    """Are tiles a and b of one seat (same count and lead suit) interchangeable?

    They are when, in every suit they can still meet other tiles in (the
    live suits and their own lead suit), they follow alike and no tile of
    another hand or of this trick ranks between them: every trick then goes
    the same way with either, although tiles between them once stood there.
    ``live`` is worked out on first need (0xFFFF until then) from ``others``,
    the tiles of the other hands.
    """
    cdef Tables* T = e.T
    cdef int c, hi, lo
    cdef uint16_t suits
    cdef mask_t pair
    if T.differ[a][b]:
        if live[0] == 0xFFFF:
            live[0] = live_suits(e, others)
        if T.differ[a][b] & (live[0] | (1 << T.rule.lead_suit[a])):
            return 0
    # Checking a dead suit too is merely cautious, and saves working out live.
    suits = T.spread[a][b]
    pair = ((<mask_t>1) << a) | ((<mask_t>1) << b)
    while suits:
        c = __builtin_ctz(suits)
        suits &= suits - 1
        hi, lo = (a, b) if T.rule.power[c][a] > T.rule.power[c][b] else (b, a)
        if T.stronger[c][lo] & ~T.stronger[c][hi] & blockers & ~pair:
            return 0
    return 1


cdef inline int any_alike(Search* e, int a, mask_t cand, uint16_t* live, mask_t others,
                          mask_t blockers) noexcept nogil:
    """Is tile a interchangeable with one of the tiles in cand?"""
    while cand:
        if alike(e, a, __builtin_ctz(cand), live, others, blockers):
            return 1
        cand &= cand - 1
    return 0


cdef inline int sure_points(Search* e, int* lower) noexcept nogil:
    """Points each side is sure of at a trick boundary, from tiles that cannot lose.

    A tile nobody else can match whatever suit is led (the top trumps still
    out) takes the trick it is played to, so its holder wins one trick per
    such tile. The leader can also cash, one after the other, every tile
    nobody else can match in the suit it leads (when that seat wants tricks
    at all). Each sure trick brings the trick's points and the tile's count.
    At most one seat of a side has such tiles (a higher tile of the other
    seat would spoil them), so the tricks are distinct. Sets lower[0] to the
    scoring side's sure points and returns the other side's.
    """
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef mask_t held = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef mask_t m, others
    cdef int x, t, pts, scoring = 0, other = 0, cash
    for x in range(4):
        if s.hand[x] == 0:
            continue
        others = held & ~s.hand[x]
        cash = x == s.leader and T.free_lead and T.likes[x][x]
        m = s.hand[x] if cash else s.hand[x] & T.absolute
        pts = 0
        while m:
            t = __builtin_ctz(m)
            m &= m - 1
            if (others & T.matched[T.rule.lead_suit[t]][t]) == 0:
                pts += T.rule.trick_points + T.rule.count[t]
        if T.scorer[x]:
            scoring += pts
        else:
            other += pts
    lower[0] = scoring
    if T.scorers_duck and ducks_every_trick(e):
        return s.avail
    return other


cdef inline uint16_t lead_suits(Tables* T, mask_t m) noexcept nogil:
    """The suits the tiles of m lead."""
    cdef uint16_t suits = 0
    while m:
        suits |= 1 << T.rule.lead_suit[__builtin_ctz(m)]
        m &= m - 1
    return suits


cdef inline int ducks_every_trick(Search* e) noexcept nogil:
    """Can the scoring seats, who want no tricks (nello), lose every trick left
    whatever the others do? Yes when another seat is on lead and, in every suit
    the others can lead, each tile a scoring seat may play is weaker than every
    tile the others could lead in it: a scoring seat then plays under the lead
    (or, void, off suit) each time, and the others win every trick, so lead
    every trick. It stays so: the leads left only grow stronger, and a scoring
    seat's plays only fewer (void in a suit, it plays a tile that cannot win it).
    """
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef mask_t theirs = 0, m
    cdef int x, c, t, weakest, pw
    cdef uint16_t suits
    if T.scorer[s.leader]:
        return 0
    for x in range(4):
        if not T.scorer[x]:
            theirs |= s.hand[x]
    suits = lead_suits(T, theirs)
    while suits:
        c = __builtin_ctz(suits)
        suits &= suits - 1
        weakest = POS_INF
        m = theirs & T.leads[c]
        while m:
            t = __builtin_ctz(m)
            m &= m - 1
            if T.rule.power[c][t] < weakest:
                weakest = T.rule.power[c][t]
        for x in range(4):
            if T.scorer[x] and s.hand[x]:
                pw = max_power(T, legal_mask(T, s.hand[x], c), c)
                if pw >= weakest:
                    return 0
    return 1


cdef inline int max_power(Tables* T, mask_t m, int c) noexcept nogil:
    """The highest power among the tiles of m when suit c is led (0 for none)."""
    cdef int pw = 0, k
    m &= T.powered[c]
    while m:
        k = T.rule.power[c][__builtin_ctz(m)]
        m &= m - 1
        pw = k if k > pw else pw
    return pw


cdef inline int min_power(Tables* T, mask_t m, int c) noexcept nogil:
    """The lowest power among the tiles of m when suit c is led (0 if any cannot win)."""
    cdef int pw = POS_INF, k
    if m & ~T.powered[c]:
        return 0
    while m:
        k = T.rule.power[c][__builtin_ctz(m)]
        m &= m - 1
        pw = k if k < pw else pw
    return pw


cdef inline void forced_trick(Search* e, int* scoring) noexcept nogil:
    """Nello, the others on lead: the next trick goes to a scoring seat when the
    leader has a lead under which that seat cannot play, nor can the other seats
    (each plays its weakest tile, helping the scoring seat to the trick)."""
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef int L = s.leader, t, c, x, bar, pw
    cdef mask_t leads = legal_mask(T, s.hand[L], LEAD_CTX)
    while leads:
        t = __builtin_ctz(leads)
        leads &= leads - 1
        c = T.rule.lead_suit[t]
        bar = T.rule.power[c][t]
        for x in range(4):
            if x != L and s.hand[x] and not T.scorer[x]:
                pw = min_power(T, legal_mask(T, s.hand[x], c), c)
                if pw > bar:
                    bar = pw
        for x in range(4):
            if T.scorer[x] and s.hand[x] and min_power(T, legal_mask(T, s.hand[x], c), c) > bar:
                if T.rule.trick_points + T.rule.count[t] > scoring[0]:
                    scoring[0] = T.rule.trick_points + T.rule.count[t]
                break


cdef inline void next_trick(Search* e, int* scoring, int* other) noexcept nogil:
    """Raise the sure points by the next trick alone, when whatever the leader
    leads one side is sure to take it: the leader's side with a lead no
    other seat can beat by following legally (the trick and that tile's
    count), the other side when every lead can be beaten by one of them."""
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef int L = s.leader, t, c, p, o, k, n, win_pts = 0, all_lost = 1, their, ours, pw
    cdef mask_t leads, lm
    cdef uint16_t suits
    cdef int opp[3]
    cdef int mate[3]
    cdef int nopp = 0, nmate = 0
    if T.scorers_duck and not T.scorer[L]:
        forced_trick(e, scoring)
        return
    if not T.likes[L][L]:
        return
    for o in range(4):
        if s.hand[o] == 0 or o == L:
            continue
        if not T.likes[o][o]:
            return          # a seat that does not fight for tricks: no sure outcome
        if T.likes[L][o]:
            mate[nmate] = o
            nmate += 1
        else:
            opp[nopp] = o
            nopp += 1
    leads = legal_mask(T, s.hand[L], LEAD_CTX)
    suits = lead_suits(T, leads)
    # Each suit led once: the best the other seats can follow with in it.
    while suits:
        c = __builtin_ctz(suits)
        suits &= suits - 1
        their = 0
        for k in range(nopp):
            pw = max_power(T, legal_mask(T, s.hand[opp[k]], c), c)
            if pw > their:
                their = pw
        ours = 0
        for k in range(nmate):
            pw = max_power(T, legal_mask(T, s.hand[mate[k]], c), c)
            if pw > ours:
                ours = pw
        lm = leads & T.leads[c]
        while lm:
            t = __builtin_ctz(lm)
            lm &= lm - 1
            p = T.rule.power[c][t]
            if their <= p:     # equal powers only in sevens, where the lead wins
                if T.rule.trick_points + T.rule.count[t] > win_pts:
                    win_pts = T.rule.trick_points + T.rule.count[t]
            if their <= p or their <= ours:
                all_lost = 0
    if T.scorer[L]:
        if win_pts > scoring[0]:
            scoring[0] = win_pts
        if all_lost and T.rule.trick_points > other[0]:
            other[0] = T.rule.trick_points
    else:
        if win_pts > other[0]:
            other[0] = win_pts
        if all_lost and T.rule.trick_points > scoring[0]:
            scoring[0] = T.rule.trick_points



cdef inline void store(Search* e, uint32_t key, int best, int alpha0, int beta0,
                       int bestmove) noexcept nogil:
    """Record a trick-boundary search's result: a bound or the exact value.

    The key's entry is tightened, or a fresh one replaces the bucket's less
    valuable entry; either way it is written back as one word.
    """
    cdef State* s = &e.st
    cdef TTEntry* b = tt_bucket(e, key)
    cdef TTEntry* slot = &b[0]
    cdef TTWord w, other
    w.word = t42_load_word(&b[0])
    if not tt_live(e, &w.ent, key):
        other.word = t42_load_word(&b[1])
        if tt_live(e, &other.ent, key):
            slot = &b[1]
            w = other
        else:
            if tt_worth(e, &w.ent) > tt_worth(e, &other.ent):
                slot = &b[1]
            w.ent.key = key
            w.ent.lower = 0
            w.ent.upper = s.avail
            w.ent.meta = e.gen | s.tricks_left
    if best <= alpha0:
        if best - s.sofar < w.ent.upper:
            w.ent.upper = best - s.sofar
    elif best >= beta0:
        if best - s.sofar > w.ent.lower:
            w.ent.lower = best - s.sofar
    else:
        w.ent.lower = best - s.sofar
        w.ent.upper = best - s.sofar
    w.ent.best = bestmove
    t42_store_word(slot, w.word)


cdef int two_left(Search* e, mask_t* hand, int seat, int ntrick, int ctx, int wp, int ws,
                  int pts, int alpha, int beta) noexcept nogil:
    """Exact value of the last two tricks, the first of them under way (``ntrick``
    tiles played to it, held by ``ws`` with power ``wp``, worth ``pts``; ``seat``
    to move), with the hands in ``hand``. Each seat holds at most two tiles, so
    the tree is tiny: a plain minimax with alpha-beta on local variables, no
    table, no ordering, no copy of the search state. Each tile played to the
    first trick counts as a node; the last trick is forced.
    """
    cdef Tables* T = e.T
    cdef int is_max = T.maximizer[seat], best, v, t, c, p, w, q, o, k, pts2, nws, npw, npts
    cdef mask_t legal = legal_mask(T, hand[seat], LEAD_CTX if ntrick == 0 else ctx)
    cdef mask_t bit
    cdef int ta, tb, sa, sb, ha, hb, n = 0
    cdef int order[2]
    best = NEG_INF if is_max else POS_INF
    ta = __builtin_ctz(legal)
    order[0] = ta
    if legal & (legal - 1):
        # Two choices: the one leaving the trick with a seat the mover likes
        # first (it cuts off more often); with the lead, the stronger tile.
        tb = __builtin_ctz(legal & (legal - 1))
        if ntrick == 0:
            sa = T.rule.power[T.rule.lead_suit[ta]][ta]
            sb = T.rule.power[T.rule.lead_suit[tb]][tb]
        else:
            ha = seat if T.rule.power[ctx][ta] > wp else ws
            hb = seat if T.rule.power[ctx][tb] > wp else ws
            sa = T.likes[seat][ha] * 64 + (T.rule.count[ta] if T.likes[seat][ha] else -T.rule.count[ta])
            sb = T.likes[seat][hb] * 64 + (T.rule.count[tb] if T.likes[seat][hb] else -T.rule.count[tb])
        if sb > sa:
            order[0] = tb
            order[1] = ta
        else:
            order[1] = tb
        legal = 2
    else:
        legal = 1
    while n < legal:
        t = order[n]
        n += 1
        e.nodes += 1
        bit = (<mask_t>1) << t
        if ntrick == 0:
            c = T.rule.lead_suit[t]
            npw = T.rule.power[c][t]
            nws = seat
            npts = T.rule.trick_points + T.rule.count[t]
        else:
            c = ctx
            p = T.rule.power[c][t]
            npw, nws = (p, seat) if p > wp else (wp, ws)
            npts = pts + T.rule.count[t]
        hand[seat] &= ~bit
        if ntrick + 1 < T.nactive:
            v = two_left(e, hand, T.next_seat[seat], ntrick + 1, c, npw, nws, npts, alpha, beta)
        else:
            # The first trick is over: nws leads the last one, every play forced.
            v = e.st.sofar + (npts if T.scorer[nws] else 0)
            q = __builtin_ctz(hand[nws])
            k = T.rule.lead_suit[q]
            p = T.rule.power[k][q]
            w = nws
            pts2 = T.rule.trick_points + T.rule.count[q]
            o = T.next_seat[nws]
            while o != nws:
                q = __builtin_ctz(hand[o])
                if T.rule.power[k][q] > p:
                    p = T.rule.power[k][q]
                    w = o
                pts2 += T.rule.count[q]
                o = T.next_seat[o]
            if T.scorer[w]:
                v += pts2
        hand[seat] |= bit
        if is_max:
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
        else:
            if v < best:
                best = v
                if v < beta:
                    beta = v
        if alpha >= beta:
            break
    return best


cdef inline int etc_last(Search* e, mask_t legal, int alpha, int beta) noexcept nogil:
    """The last seat of a trick: a table entry of the position after one of
    its moves that already decides the search (enhanced transposition
    cutoff); NEG_INF when none does. The key probed is the plain set of tiles
    held and the leader, not its canonical form (computing that for every move
    cost 20% more time for 5% fewer nodes): an entry under the plain key holds
    that very state's bounds all the same, whichever state stored it."""
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef int seat = s.to_move, t, w, base
    cdef int is_max = T.maximizer[seat]
    cdef mask_t held = s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]
    cdef TTEntry ent
    while legal:
        t = __builtin_ctz(legal)
        legal &= legal - 1
        w = seat if T.rule.power[s.ctx][t] > s.win_power else s.win_seat
        if tt_get(e, (held & ~((<mask_t>1) << t)) | (<uint32_t>w << 28), &ent):
            base = s.sofar + (s.trick_pts + T.rule.count[t] if T.scorer[w] else 0)
            if is_max:
                if base + ent.lower >= beta:
                    return base + ent.lower
            elif base + ent.upper <= alpha:
                return base + ent.upper
    return NEG_INF


cdef void halve_history(Search* e) noexcept nogil:
    cdef int a, t
    for a in range(4):
        for t in range(NT):
            e.hist[a][t] >>= 1


cdef int alphabeta(Search* e, int alpha, int beta) noexcept nogil:
    """Fail-soft alpha-beta; returns the final value of the scoring side."""
    cdef State* s = &e.st
    cdef Tables* T = e.T
    cdef TTEntry ent
    cdef uint32_t key = 0
    cdef int lo, hi, ttbest = -1, alpha0, beta0, sure, other
    cdef int seat, n, i, t, v, best, bestmove = -1, is_max
    cdef int moves[8]
    cdef mask_t searched = 0, blockers, cand, legal, rest
    cdef uint16_t live
    cdef State saved

    e.nodes += 1
    if (e.nodes & 1023) == 0 and should_stop(e):
        e.aborted = 1
    if e.aborted:
        return alpha

    if s.ntrick == 0:
        if s.tricks_left <= 1:
            return last_trick(e)
        if s.sofar >= beta:
            return s.sofar
        if s.sofar + s.avail <= alpha:
            return s.sofar + s.avail
    elif s.tricks_left == 2:
        return two_left(e, s.hand, s.to_move, s.ntrick, s.ctx, s.win_power, s.win_seat,
                        s.trick_pts, alpha, beta)
    if s.ntrick == 0:
        key = boundary_key(e)
        if tt_get(e, key, &ent):
            lo = s.sofar + ent.lower
            hi = s.sofar + ent.upper
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            ttbest = ent.best
            if ttbest >= 0 and not (s.hand[s.to_move] >> ttbest) & 1:
                # Stored for the canonical hand: the held tile it stands for.
                cand = T.kin[ttbest] & s.hand[s.to_move]
                ttbest = __builtin_ctz(cand) if cand else -1
        other = sure_points(e, &sure)
        if s.sofar + sure >= beta:
            return s.sofar + sure
        if s.sofar + s.avail - other <= alpha:
            return s.sofar + s.avail - other
        # The next trick alone adds at most a trick and one tile's count:
        # look at it only when that could end the search here, and not with
        # two tricks left, where searching them (two_left) costs less.
        if s.tricks_left > 2 and (s.sofar + T.rule.trick_points + T.max_count >= beta or
                                  s.sofar + s.avail - T.rule.trick_points - T.max_count <= alpha):
            next_trick(e, &sure, &other)
            if s.sofar + sure >= beta:
                return s.sofar + sure
            if s.sofar + s.avail - other <= alpha:
                return s.sofar + s.avail - other
    alpha0 = alpha
    beta0 = beta
    if s.tricks_left == 2:
        best = two_left(e, s.hand, s.to_move, 0, 0, 0, 0, 0, alpha, beta)
        store(e, key, best, alpha0, beta0, -1)
        return best

    seat = s.to_move
    legal = legal_now(e)
    if s.ntrick == T.nactive - 1 and legal & (legal - 1):
        v = etc_last(e, legal, alpha, beta)
        if v != NEG_INF:
            return v
    # The table's move first, on its own: it cuts off often enough that the
    # other moves need ordering only when it does not (same order as before).
    if ttbest >= 0 and (legal >> ttbest) & 1 and legal & (legal - 1):
        moves[0] = ttbest
        n = 1
        rest = legal & ~((<mask_t>1) << ttbest)
    else:
        n = order_moves(e, legal, -1, moves)
        rest = 0
    is_max = T.maximizer[seat]
    best = NEG_INF if is_max else POS_INF

    # Tiles still able to tell two of the mover's tiles apart: the other
    # hands and the trick; suits some other seat can still lead.
    blockers = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3]) & ~s.hand[seat]
    live = 0xFFFF      # worked out on first need

    i = 0
    while True:
        if i == n:
            if rest == 0:
                break
            n += order_moves(e, rest, -1, moves + n)
            rest = 0
        t = moves[i]
        i += 1
        cand = T.kin[t] & searched
        if cand and any_alike(e, t, cand, &live, blockers, blockers | trick_mask(e)):
            continue
        searched |= (<mask_t>1) << t
        saved = s[0]
        play(e, t)
        v = alphabeta(e, alpha, beta)
        s[0] = saved
        if e.aborted:
            return alpha
        if is_max:
            if v > best:
                best = v
                bestmove = t
                if v > alpha:
                    alpha = v
        else:
            if v < best:
                best = v
                bestmove = t
                if v < beta:
                    beta = v
        if alpha >= beta:
            if s.ntrick == 0 and (n > 1 or rest):
                e.killer[s.tricks_left][seat] = t
                e.hist[seat][t] += s.tricks_left * s.tricks_left
                if e.hist[seat][t] > HIST_MAX:
                    halve_history(e)
            break

    if s.ntrick == 0:
        store(e, key, best, alpha0, beta0, bestmove)
    return best


cdef int greedy_playout(Search* e) noexcept nogil:
    """Value of the hand played out by the move-ordering heuristic: a cheap first guess."""
    cdef State saved = e.st
    cdef State* s = &e.st
    cdef int moves[8]
    cdef int v
    while s.tricks_left > 0:
        order_moves(e, legal_now(e), -1, moves)
        play(e, moves[0])
    v = s.sofar
    e.st = saved
    return v


cdef enum:
    # MTD(f) steps by STEP_RUN points once STEP_AFTER probes in a row fail the same way.
    STEP_AFTER = 3
    STEP_RUN = 2
    CHILD_STEP_AFTER = 99     # never: plain MTD(f) steps (+0.1 to +4% nodes otherwise)


cdef int exact_value(Search* e, int guess, int lower, int upper, int step_after) noexcept nogil:
    """Exact value, known to lie in [lower, upper], by null-window searches.

    At a trick boundary the sure-trick bounds narrow [lower, upper] first.
    The first probe tests the guess (moved into the window); after that
    each probe tests the bound the last fail-soft search returned (as
    MTD(f) does), one point further once three probes in a row have moved
    the same way: a long climb (or fall) from a poor guess then takes about
    half the probes, and one that overshoots costs one probe more.
    """
    cdef int m = 0, v = 0, sure, other, run = 0, step
    cdef State* s = &e.st
    if s.ntrick == 0 and s.tricks_left > 1:
        other = sure_points(e, &sure)
        next_trick(e, &sure, &other)
        if s.sofar + sure > lower:
            lower = s.sofar + sure
        if s.sofar + s.avail - other < upper:
            upper = s.sofar + s.avail - other
    if lower >= upper:
        return lower
    if guess < 0:
        guess = greedy_playout(e)
    m = guess if guess > lower else lower + 1
    if m > upper:
        m = upper
    while lower < upper and not e.aborted:
        v = alphabeta(e, m - 1, m)
        if v >= m:
            run = run + 1 if run > 0 else 1
            lower = v
            step = STEP_RUN if run >= step_after else 1
            m = lower + step if lower + step <= upper else upper
        else:
            run = run - 1 if run < 0 else -1
            upper = v
            step = STEP_RUN if run <= -step_after else 1
            m = upper - step + 1 if upper - step + 1 > lower else lower + 1
    return lower


cdef int score_children(Search* e, int* tiles, int* values, int known_tile,
                        int known_value) noexcept nogil:
    """Exact value after each legal move of the current state; returns the move count.

    The most promising move first; each later move's first guess is the
    best value found so far (the position's value, when it is an optimal
    move, settles in one probe). Searching the position itself first to
    bound the children costs more than it saves. A ``known_tile`` >= 0 is a
    move whose value the caller already has (``known_value``): it is not
    searched, and its value is the first guess of the others.
    """
    cdef State saved = e.st
    cdef State* s = &e.st
    cdef int n, i, best, lower, upper
    cdef int is_max = e.T.maximizer[s.to_move]
    best = known_value if known_tile >= 0 else -1
    n = order_moves(e, legal_now(e), tt_move(e), tiles)
    for i in range(n):
        if tiles[i] == known_tile:
            values[i] = known_value
            continue
        play(e, tiles[i])
        lower = s.sofar
        upper = s.sofar + s.avail
        values[i] = exact_value(e, best, lower, upper, CHILD_STEP_AFTER)
        if best < 0 or (is_max and values[i] > best) or (not is_max and values[i] < best):
            best = values[i]
        e.st = saved
        if e.aborted:
            break
    return n


cdef int test_children(Search* e, int target, int* tiles, int* reached) noexcept nogil:
    """Whether the value after each legal move is >= target (a null-window search each,
    none when the points won and still to come settle it); returns the move count."""
    cdef State saved = e.st
    cdef State* s = &e.st
    cdef int n, i
    n = order_moves(e, legal_now(e), tt_move(e), tiles)
    for i in range(n):
        play(e, tiles[i])
        if s.sofar >= target:
            reached[i] = 1
        elif s.sofar + s.avail < target:
            reached[i] = 0
        else:
            reached[i] = alphabeta(e, target - 1, target) >= target
        e.st = saved
        if e.aborted:
            break
    return n


#: Transposition table sizes Engine accepts (log2 of the entries, 8 bytes each):
#: 1,024 entries (8 KiB) to 2**30 (8 GiB), as many as there are table keys.
TT_BITS_MIN = 10
TT_BITS_MAX = 30
#: Largest node budget: the search counts nodes in a signed 64-bit integer.
NODE_BUDGET_MAX = 2**63 - 1


def _whole_number(value, name):
    """``value`` as an int; bools and non-integers are refused (TypeError)."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a whole number, not a bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__}") from None


def _shown(number):
    """An integer for a message: in full when short, by its size when huge."""
    return str(number) if abs(number) < 10**20 else f"a {number.bit_length()}-bit number"


cdef class CancelToken:
    """CancelToken(deadline: float | None = None, node_budget: int | None = None)

    Stops a search: `cancel()` from any thread, a deadline, or a node budget.

    Args:
        deadline: A `time.monotonic()` time to stop at; None: no deadline.
        node_budget: The most nodes the searches it is attached to may search
            in all (1 .. 2**63-1); None: no budget.

    ``deadline`` is None (no deadline) or a time on the `time.monotonic()`
    clock; a time already past (0, a negative number and -inf included)
    stops the search at once, NaN is refused. ``node_budget`` is None (no
    budget) or 1 .. 2**63-1 nodes: an engine the token is attached to stops
    once it has searched that many nodes in all (checked every 1,024 nodes).
    Both are read when the token is attached to a search (`solve(..., token=)`,
    `DealSolver(position, token)`). Bad values raise `ArgumentError` (a
    ValueError), values of the wrong type TypeError. A search it stops raises
    `SearchCancelled`.

    >>> import time
    >>> from solver import CancelToken, solve
    >>> token = CancelToken(deadline=time.monotonic() + 5.0, node_budget=10**9)
    >>> solve(open("examples/deal.json").read(), token=token).value
    31
    >>> token.cancel(); token.cancelled
    True
    """

    cdef int flag
    cdef int has_deadline
    cdef double _deadline
    cdef long long _node_budget  # 0: no budget

    def __init__(self, deadline=None, node_budget=None):
        self.flag = 0
        self.deadline = deadline
        self.node_budget = node_budget

    @property
    def deadline(self):
        """The monotonic time the search stops at, or None."""
        return self._deadline if self.has_deadline else None

    @deadline.setter
    def deadline(self, value):
        cdef double when
        if value is None:
            self.has_deadline = 0
            self._deadline = 0
            return
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"deadline must be None or a time.monotonic() time, "
                            f"not {type(value).__name__}")
        try:
            when = float(value)
        except OverflowError:  # an integer beyond floats: a time that never comes
            when = math.inf if value > 0 else -math.inf
        if math.isnan(when):
            raise ArgumentError("deadline", "NaN is not a time (None: no deadline)")
        self._deadline = when
        self.has_deadline = 1

    @property
    def node_budget(self):
        """Nodes an engine may search in all, or None."""
        return self._node_budget if self._node_budget > 0 else None

    @node_budget.setter
    def node_budget(self, value):
        if value is None:
            self._node_budget = 0
            return
        budget = _whole_number(value, "node_budget")
        if not 1 <= budget <= NODE_BUDGET_MAX:
            raise ArgumentError("node_budget", f"{_shown(budget)} is out of range "
                                f"(1..2**63-1 nodes; None: no budget)")
        self._node_budget = budget

    def cancel(self) -> None:
        """Stop every search the token is attached to (safe from any thread)."""
        self.flag = 1

    @property
    def cancelled(self) -> bool:
        """Whether `cancel` was called (a deadline or budget reached does not set it)."""
        return self.flag != 0

    def __repr__(self):
        return (f"CancelToken(deadline={self.deadline!r}, node_budget={self.node_budget!r}, "
                f"cancelled={self.cancelled})")


#: C rule tables already built: (id(rules), seats, maximizer, scorer) -> (rules, bytes).
_TABLES = {}


class Aborted(Exception):
    """Raised by Engine when its cancel token stopped the search."""


cdef class Engine:
    """One deal and contract: C tables, a transposition table and a current state.

    The transposition table lives as long as the engine, so every query on
    positions of the same deal and contract (scoring moves, walking a line,
    analysing a played hand) reuses what earlier queries learned.
    """

    cdef Tables* T
    cdef Search e
    cdef State stack[MAXDEPTH]
    cdef int depth
    cdef int busy  # a search is running (with the GIL released) on this engine
    cdef int stale  # the table holds only another deal's entries (since clear())
    cdef Engine table_owner  # the engine whose table this one searches with, or None
    cdef int borrowed        # e.tt is table_owner's (a C flag: the garbage collector may
                             # clear table_owner before __dealloc__ runs)
    cdef object token

    def __cinit__(self, rules, seats_in_order, maximizer, scorer, tt_bits=18):
        cdef int bits
        # Checked before anything is allocated: a shift by 0, 1 or 64 used to crash.
        number = _whole_number(tt_bits, "tt_bits")
        if not TT_BITS_MIN <= number <= TT_BITS_MAX:
            raise ArgumentError("tt_bits", f"{_shown(number)} is out of range "
                                f"({TT_BITS_MIN}..{TT_BITS_MAX}: log2 of the table's entries)")
        bits = number
        self.T = <Tables*> calloc(1, sizeof(Tables))
        if self.T == NULL:
            raise MemoryError("no memory for the rule tables")
        # The transposition table is allocated by the first search (see _table).
        self.e.tt_max_bits = bits
        self.e.T = self.T
        # The figures depend on the hand and the rules alone: valid for every deal.
        memset(self.e.sim_hand, 0xff, sizeof(self.e.sim_hand))
        memset(self.e.killer, 0xff, sizeof(self.e.killer))
        # The C tables depend only on the rules and the seats' roles: built
        # once (about 20 us) and copied for every later engine of that kind.
        key = (id(rules), tuple(seats_in_order), tuple(maximizer), tuple(scorer))
        cached = _TABLES.get(key)
        if cached is not None and cached[0] is rules:
            memcpy(self.T, <const char*> cached[1], sizeof(Tables))
            return
        self._load_tables(rules, seats_in_order, maximizer, scorer)
        if len(_TABLES) >= 256:
            _TABLES.clear()
        # The rules object is kept with its tables, so its id is not reused.
        _TABLES[key] = (rules, (<char*> self.T)[:sizeof(Tables)])

    def __dealloc__(self):
        free(self.T)
        if not self.borrowed:
            free(self.e.tt)

    cdef _load_tables(self, rules, seats_in_order, maximizer, scorer):
        cdef Tables* T = self.T
        cdef int c, t, a, b, k, n = len(seats_in_order)
        T.nactive = n
        for k in range(4):
            T.next_seat[k] = -1
            T.maximizer[k] = maximizer[k]
            T.scorer[k] = scorer[k]
        for k in range(n):
            T.next_seat[seats_in_order[k]] = seats_in_order[(k + 1) % n]
        fill_rule_arrays(&T.rule, rules)
        for c in range(NCTX):
            for t in range(NT):
                T.matched[c][t] = 0
                for b in range(NT):
                    if b != t and T.rule.power[c][b] >= T.rule.power[c][t]:
                        T.matched[c][t] |= (<mask_t>1) << b
        T.absolute = 0
        for t in range(NT):
            if T.rule.power[0][t] > 0 and all(T.rule.power[c][t] == T.rule.power[0][t] for c in range(NCTX)):
                T.absolute |= (<mask_t>1) << t
        T.free_lead = T.rule.ntiers[LEAD_CTX] == 0
        T.max_count = max([T.rule.count[t] for t in range(NT)])
        # A trick won by seat b raises the value when b scores; that is what
        # seat a wants when a maximises. In nello nobody wants a trick himself.
        for a in range(4):
            for b in range(4):
                T.likes[a][b] = 1 if scorer[b] == maximizer[a] else 0
        for a in range(4):
            profile = rules.ordering[0] if T.likes[a][a] else rules.ordering[1]
            for k in range(2):
                for c in range(2):
                    T.order[a].base[k][c] = profile.base[k][c]
                    T.order[a].power[k][c] = profile.power[k][c]
            T.order[a].count = profile.count
            for k in range(2):
                T.order[a].power_lost[k] = profile.power_lost[k]
        for c in range(NCTX):
            T.leads[c] = 0
            for t in range(NT):
                T.stronger[c][t] = 0
                for b in range(NT):
                    if T.rule.power[c][b] > T.rule.power[c][t]:
                        T.stronger[c][t] |= (<mask_t>1) << b
        for t in range(NT):
            T.leads[T.rule.lead_suit[t]] |= (<mask_t>1) << t
        for c in range(NCTX):
            T.powered[c] = 0
            for t in range(NT):
                if T.rule.power[c][t] > 0:
                    T.powered[c] |= (<mask_t>1) << t
        T.always_live = (1 << LEAD_CTX) if T.rule.ntiers[LEAD_CTX] else 0
        T.scorers_duck = any(scorer[a] for a in range(4)) and all(
            not T.likes[a][a] for a in range(4) if scorer[a])
        for a in range(NT):
            T.kin[a] = 0
            for b in range(NT):
                T.differ[a][b] = 0
                T.spread[a][b] = 0
                if a != b and T.rule.count[a] == T.rule.count[b] and T.rule.lead_suit[a] == T.rule.lead_suit[b]:
                    T.differ[a][b] = self._differ(a, b)
                    if T.differ[a][b] & (1 << T.rule.lead_suit[a]):
                        continue    # they differ in their own suit: never alike
                    T.kin[a] |= (<mask_t>1) << b
                    T.spread[a][b] = self._spread(a, b)
        for a in range(NT):
            T.kin_above[a] = T.kin[a] & ~(((<mask_t>1) << (a + 1)) - 1)

    cdef uint16_t _spread(self, int a, int b):
        """Suits in which both tiles can win with different powers; for two
        tiles of the same power whatever is led (trumps) one suit tells it all."""
        cdef Tables* T = self.T
        cdef int c
        cdef uint16_t d = 0
        if (T.absolute >> a) & (T.absolute >> b) & 1:
            return (1 << T.rule.lead_suit[a]) if T.rule.power[0][a] != T.rule.power[0][b] else 0
        for c in range(NCTX):
            if T.rule.power[c][a] and T.rule.power[c][b] and T.rule.power[c][a] != T.rule.power[c][b]:
                d |= 1 << c
        return d

    cdef uint16_t _differ(self, int a, int b):
        """Suits in which a and b have different follow duties, or one can win and the other not."""
        cdef Tables* T = self.T
        cdef int c, k
        cdef uint16_t d = 0
        for c in range(NCTX):
            if (T.rule.power[c][a] == 0) != (T.rule.power[c][b] == 0):
                d |= 1 << c
            for k in range(T.rule.ntiers[c]):
                if ((T.rule.tiers[c][k] >> a) & 1) != ((T.rule.tiers[c][k] >> b) & 1):
                    d |= 1 << c
        return d

    cdef _table(self):
        """Allocate (or grow) the table to suit the tricks left before a search.

        A late position needs a few hundred entries, not 2 MiB, and a
        calloc'ed table costs its size in zeroing, so the table grows with
        the positions the engine is asked about.
        """
        global t42_last_table
        cdef int bits = min(self.e.tt_max_bits, TABLE_BITS[min(max(self.e.st.tricks_left, 0), 7)])
        if self.borrowed:
            self._follow_owner()
            return
        if bits <= self.e.tt_bits:
            if self.stale:
                self.stale = 0
                if bits >= WARM_BITS and self.e.tt != t42_last_table:
                    # A long search on a table of another deal that other searches
                    # have since pushed out of the cache: zeroing it brings it back,
                    # which costs less than the misses would (bench/README.md).
                    memset(self.e.tt, 0, ((<size_t>1) << self.e.tt_bits) * sizeof(TTEntry))
                    self.e.gen = 0
            t42_last_table = self.e.tt
            return
        free(self.e.tt)
        self.e.tt = <TTEntry*> calloc((<size_t>1) << bits, sizeof(TTEntry))
        if self.e.tt == NULL:
            self.e.tt_bits = 0
            raise MemoryError(f"no memory for a transposition table of 2**{bits} entries")
        self.e.tt_bits = bits
        self.e.tt_shift = 32 - (bits - 1)
        self.e.gen = 0
        self.stale = 0
        t42_last_table = self.e.tt

    cdef _follow_owner(self):
        # The owner's table as it is now (grown, or cleared to a new generation,
        # since this engine last searched with it).
        cdef Engine owner = self.table_owner
        self.e.tt = owner.e.tt
        self.e.tt_bits = owner.e.tt_bits
        self.e.tt_shift = owner.e.tt_shift
        self.e.gen = owner.e.gen

    def share_table(self, Engine owner):
        """Search with ``owner``'s transposition table from now on (None: a table of
        this engine's own again, empty).

        For the engines of one search split between threads, all on the same
        deal and contract: what one thread stores, the others find. Searches may
        run on the shared table in several threads at once (entries are read and
        written whole), but the owner's table must not grow or be cleared while
        they do: this sizes it for the owner's position, which the others are at
        or below.
        """
        self._idle()
        if owner is self:
            raise ValueError("an engine cannot share its own table")
        if owner is not None and owner.borrowed:
            raise ValueError("share the table of the engine that owns it")
        if not self.borrowed:
            free(self.e.tt)
        self.e.tt = NULL
        self.e.tt_bits = 0
        self.table_owner = owner
        self.borrowed = owner is not None
        if owner is not None:
            owner._idle()
            owner._table()
            self._follow_owner()

    def clear(self):
        """Forget everything the table learned: call before loading another deal.

        A table key is the set of tiles still held plus the leader, which
        names the same state only while every tile keeps its owner. Clearing
        moves to a new generation (older entries no longer match), so it
        costs nothing; the table is zeroed once every 32 clears.
        """
        cdef int i
        self._idle()
        memset(self.e.hist, 0, sizeof(self.e.hist))
        memset(self.e.killer, 0xff, sizeof(self.e.killer))
        for i in range(4):
            self.e.own[i] = 0
        if self.borrowed:
            return  # the owner clears the table it shares
        self.e.gen = <uint8_t> (self.e.gen + GEN_STEP)
        self.stale = 1
        if self.e.gen == 0 and self.e.tt != NULL:
            memset(self.e.tt, 0, ((<size_t>1) << self.e.tt_bits) * sizeof(TTEntry))

    def set_state(self, hands, int leader, trick, int sofar, int avail, int tricks_left):
        """Load a position: hands (4 masks, inactive seats 0), trick [(seat, tile)], points."""
        cdef State* s = &self.e.st
        cdef int i, seat, tile
        self._idle()
        for i in range(4):
            s.hand[i] = hands[i]
            self.e.own[i] |= s.hand[i]
        s.leader = leader
        s.to_move = leader
        s.sofar = sofar
        s.avail = avail
        s.tricks_left = tricks_left
        s.ntrick = 0
        s.trick_set = 0
        # The trick so far, played again to set its holder and worth.
        for seat, tile in trick:
            self.e.own[seat] |= (<mask_t>1) << tile
            s.to_move = seat
            play(&self.e, tile)
        self.depth = 0

    def set_token(self, token):
        """Attach a CancelToken (or None) that later searches obey."""
        cdef CancelToken tok
        self._idle()
        self.token = token
        if token is None:
            self.e.cancel_flag = NULL
            self.e.has_deadline = 0
            self.e.deadline = 0
            self.e.node_limit = 0
        else:
            tok = <CancelToken?> token
            self.e.cancel_flag = &tok.flag
            self.e.has_deadline = tok.has_deadline
            self.e.deadline = tok._deadline
            self.e.node_limit = tok._node_budget

    def play(self, int tile):
        """Play a tile for the seat to move (unchecked: the caller validated it)."""
        self._idle()
        if self.depth >= MAXDEPTH:
            raise IndexError("play stack full")
        self.stack[self.depth] = self.e.st
        self.depth += 1
        play(&self.e, tile)

    def undo(self):
        self._idle()
        if self.depth == 0:
            raise IndexError("nothing to undo")
        self.depth -= 1
        self.e.st = self.stack[self.depth]

    @property
    def to_move(self) -> int:
        return -1 if self.e.st.tricks_left == 0 else self.e.st.to_move

    @property
    def finished(self) -> bool:
        return self.e.st.tricks_left == 0

    @property
    def nodes(self) -> int:
        return self.e.nodes

    def sure_bounds(self):
        """(lower, upper) bounds on the final value from the sure tricks alone,
        at a trick boundary; None mid-trick. Used to test the bound."""
        cdef int lower, other
        cdef State* s = &self.e.st
        self._idle()
        if s.ntrick != 0 or s.tricks_left == 0:
            return None
        other = sure_points(&self.e, &lower)
        next_trick(&self.e, &lower, &other)
        return (s.sofar + lower, s.sofar + s.avail - other)

    def legal(self):
        """Legal tiles of the seat to move, best-looking first (table move first)."""
        cdef int moves[8]
        cdef int n
        cdef State* s = &self.e.st
        self._idle()
        if s.tricks_left == 0:
            return []
        self._table()
        n = order_moves(&self.e, legal_now(&self.e), tt_move(&self.e), moves)
        return [moves[i] for i in range(n)]

    cdef _idle(self):
        # One engine is one search state: a second thread would corrupt it
        # (DealSolver serialises its callers with a lock; see solver/search/solve.py).
        if self.busy:
            raise RuntimeError("this Engine is searching in another thread; "
                               "an Engine serves one thread at a time")

    cdef _start(self):
        self._idle()
        self._table()
        # A token that is already spent stops even a search too small to poll it.
        if should_stop(&self.e):
            raise Aborted()
        self.busy = 1

    cdef _check(self):
        self.busy = 0
        if self.e.aborted:
            self.e.aborted = 0
            raise Aborted()

    def exact(self, int guess=-1) -> int:
        """Exact double-dummy value of the current state."""
        cdef int v
        self._start()
        with nogil:
            v = exact_value(&self.e, guess, self.e.st.sofar, self.e.st.sofar + self.e.st.avail,
                            STEP_AFTER)
        self._check()
        return v

    def at_least(self, int target) -> bool:
        """Null-window test: is the value >= target?"""
        cdef int v
        self._start()
        with nogil:
            v = alphabeta(&self.e, target - 1, target)
        self._check()
        return v >= target

    def at_least_moves(self, int target):
        """Null-window test after each legal move: a list of (tile, value >= target),
        in move order (as `score_moves`, at a fraction of its cost)."""
        cdef int tiles[8]
        cdef int reached[8]
        cdef int n
        if self.e.st.tricks_left == 0:
            return []
        self._start()
        with nogil:
            n = test_children(&self.e, target, tiles, reached)
        self._check()
        return [(tiles[i], reached[i] != 0) for i in range(n)]

    def score_moves(self, int known_tile=-1, int known_value=-1):
        """Exact value after each legal move: a list of (tile, value), in move order.

        ``known_tile``, when given, is a legal move whose value after it the caller
        already knows (``known_value``): it is listed with that value, not searched."""
        cdef int tiles[8]
        cdef int values[8]
        cdef int n
        if self.e.st.tricks_left == 0:
            return []
        self._start()
        with nogil:
            n = score_children(&self.e, tiles, values, known_tile, known_value)
        self._check()
        return [(tiles[i], values[i]) for i in range(n)]
