# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Deals drawn uniformly in C (`UniformDeals`), and inference's pool of them (`DealPool`).

`UniformDeals` walks a view's `Completions` table (flattened once into C arrays; its
counts fit in 64 bits, since at most 28 tiles are dealt) with a xoshiro256** generator
seeded from the caller's seed, so a seed gives the same deals, and every consistent
deal is equally likely. Bid advice draws its deals of the other hands there (the view
of a seat holding seven tiles before the auction): in Python a draw cost about 9 us,
and 30 us with its auction weight.

`DealPool` is the pool of auction inference, for a hint and for bid advice, with the
semantics of `solver.hidden.inference.Resampler`: deals drawn uniformly (by
`UniformDeals`) join a pool with their auction log-weights until the pool holds
``min_pool`` deals, its weights sum to the deals asked for times the largest (no deal
is picked twice) and to 1 or more; then the deals are picked from it by weight
(systematic resampling). In Python a draw and its weight cost about 45 us at a hint's
view, as much as searching a deal late in a hand, and inference draws about 20 deals
per deal it is worth: here a draw costs well under a microsecond.

A seat's log-weight is looked up per (seat, tiles as dealt) in an open-addressing
table. On a miss the shipped `CallModel` is evaluated here (`NativeCalls`: its
strengths, call and declaration likelihoods, the same arithmetic in the same order): a
seat may be dealt thousands of hands in a pool, and the model in Python costs 10 to 17
us a hand, which at trick 3 is more than the searches. Any other model is asked from
Python once per hand (`AuctionWeigher.seat_log_weight`), the draw stopping for it.
"""

from libc.math cimport INFINITY, exp, log
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memset

from . import call_model as cm

#: Log-weights are kept within this distance of the largest (exp() stays finite).
LOG_WEIGHT_FLOOR = -700.0
cdef double FLOOR = LOG_WEIGHT_FLOOR


cdef list _systematic(double* weights, Py_ssize_t size, int n, double u):
    """Systematic resampling: ``n`` picks from ``weights`` (not all zero), ``u`` in [0, 1)
    placing the first; [index, times picked] in index order."""
    cdef Py_ssize_t i
    cdef double total = 0.0, carry = 0.0, y, t, step, point, reached = 0.0
    cdef int times, picked = 0
    for i in range(size):
        y = weights[i] - carry      # a compensated sum, as math.fsum
        t = total + y
        carry = (t - total) - y
        total = t
    step = total / n
    point = u * step
    counts = []
    for i in range(size):
        reached += weights[i]
        times = 0
        while picked < n and point < reached:
            times += 1
            picked += 1
            point += step
        if times:
            counts.append([i, times])
    if picked < n:      # the sum's last rounding: the last pick goes to the last deal
        counts[len(counts) - 1][1] += n - picked
    return counts


def systematic_picks(weights, int n, double u) -> list:
    """``n`` picks from ``weights`` (non-negative, not all zero) by systematic
    resampling: one uniform ``u`` in [0, 1) places the first pick, the others follow at
    equal steps of the total weight over ``n``.

    Args:
        weights: Each deal's weight.
        n: How many picks.
        u: A uniform number in [0, 1).

    Returns:
        [index, times picked] per deal picked at least once, in index order.

    >>> systematic_picks([1.0, 0.0, 3.0], 4, 0.5)
    [[0, 1], [2, 3]]
    """
    cdef Py_ssize_t i, size = len(weights)
    cdef double* c_weights = <double*>malloc(max(1, size) * sizeof(double))
    if not c_weights:
        raise MemoryError()
    try:
        for i in range(size):
            c_weights[i] = weights[i]
        return _systematic(c_weights, size, n, u)
    finally:
        free(c_weights)

cdef enum:
    MAX_PLACES = 4      # three other hands and a nello partner's, or two and a discard
    N_TILES = 28
    N_PIPS = 7
    N_STRENGTHS = 12    # the declarations (`call_model.DECLARATIONS`), then the level
    N_LEVELS = 14
    MAX_CALLS = 8


cdef extern from *:
    int __builtin_popcount(unsigned int) nogil


cdef struct SeatCalls:
    # One seat's calls and declaration, as `AuctionWeigher.seat_log_weight` weighs them.
    int n_calls
    int lo[MAX_CALLS]       # `call_model.call_levels`
    int hi[MAX_CALLS]
    double bound[MAX_CALLS]
    int declaration         # its index in DECLARATIONS, or -1
    int n_allowed
    int allowed[N_STRENGTHS]


cdef struct NativeCalls:
    # The parameters of a `CallModel`, and its tile sets.
    double pip_a
    double b[7]             # the pip suits' weights, b[6] already over 7
    double group[4][4]      # doubles, follow-me, sevens, nello: alpha, then the betas
    double cut[N_LEVELS]
    double kappa, lowest
    uint32_t doubles, top3_doubles, count10, count5, seven, six_eight, five_nine, low, high
    uint32_t suit[N_PIPS]
    uint32_t pip_double[N_PIPS]
    uint32_t pip_top3[N_PIPS]


cdef inline int _bits(uint32_t x) noexcept nogil:
    return __builtin_popcount(x)


cdef void _strengths(const NativeCalls* m, uint32_t hand, double* out) noexcept nogil:
    """`CallModel._evaluate`."""
    cdef int p, held, trumps
    cdef int doubles = _bits(hand & m.doubles)
    cdef int top = _bits(hand & m.top3_doubles)
    cdef int count = 2 * _bits(hand & m.count10) + _bits(hand & m.count5)
    cdef double base = m.pip_a + m.b[3] * doubles + m.b[4] * count
    cdef double level
    for p in range(N_PIPS):
        held = 1 if hand & m.pip_double[p] else 0
        trumps = _bits(hand & m.suit[p])
        out[p] = (base + m.b[0] * trumps + (m.b[1] - m.b[3]) * held
                  + m.b[2] * _bits(hand & m.pip_top3[p])
                  + (m.b[5] * (trumps - 3) if trumps > 3 else 0.0)
                  + m.b[6] * (doubles - held) * trumps)
    out[7] = m.group[0][0] + m.group[0][1] * doubles + m.group[0][2] * top + m.group[0][3] * count
    out[8] = m.group[1][0] + m.group[1][1] * doubles + m.group[1][2] * top + m.group[1][3] * count
    out[9] = (m.group[2][0] + m.group[2][1] * _bits(hand & m.seven)
              + m.group[2][2] * _bits(hand & m.six_eight)
              + m.group[2][3] * _bits(hand & m.five_nine))
    out[10] = (m.group[3][0] + m.group[3][1] * doubles + m.group[3][2] * _bits(hand & m.low)
               + m.group[3][3] * _bits(hand & m.high))
    level = out[0]
    for p in range(1, 10):      # every declaration but nello
        if out[p] > level:
            level = out[p]
    out[11] = level


cdef inline double _at_least(const NativeCalls* m, double s, int level) noexcept nogil:
    """`CallModel._at_least`."""
    cdef double z = s - m.cut[level], e
    if z >= 0:
        return 1.0 / (1.0 + exp(-z))
    e = exp(z)
    return e / (1.0 + e)


cdef double _seat_log_weight(const NativeCalls* m, const SeatCalls* c,
                             uint32_t hand) noexcept nogil:
    """`AuctionWeigher.seat_log_weight` with `CallModel.call_likelihood` and
    `CallModel.declaration_likelihood`."""
    cdef double s[N_STRENGTHS]
    cdef double p = 1.0, q, top, total
    cdef int k
    _strengths(m, hand, s)
    for k in range(c.n_calls):
        q = ((1.0 if c.lo[k] == -2 else _at_least(m, s[11], c.lo[k]))
             - (0.0 if c.hi[k] == -1 else _at_least(m, s[11], c.hi[k])))
        p *= (q if q > m.lowest else m.lowest) / c.bound[k]
    if c.declaration >= 0:
        top = s[c.allowed[0]]
        for k in range(1, c.n_allowed):
            if s[c.allowed[k]] > top:
                top = s[c.allowed[k]]
        total = 0.0
        for k in range(c.n_allowed):
            total += exp(m.kappa * (s[c.allowed[k]] - top))
        q = exp(m.kappa * (s[c.declaration] - top)) / total
        p *= q if q > m.lowest else m.lowest
    return log(p) if p > 0 else -INFINITY


cdef bint _native_calls(model, weigher, NativeCalls* m, SeatCalls* seats) except -1:
    """Fill ``m`` and each calling seat's ``seats[seat]`` from a `CallModel` (False,
    nothing to use, for any other model or more calls than a seat holds here)."""
    if type(model) is not cm.CallModel or len(model.cutpoints) != N_LEVELS \
            or len(cm.DECLARATIONS) != N_STRENGTHS - 1:
        return False
    for s in weigher.seats:
        calls = [c for c in weigher.by_seat.get(s, ())
                 if not (isinstance(c.bid, str) and c.bid in cm.SPECIAL_CALLS)]  # likelihood 1
        if len(calls) > MAX_CALLS:
            return False
        seats[s].n_calls = len(calls)
        for k, c in enumerate(calls):
            seats[s].lo[k], seats[s].hi[k] = cm.call_levels(c.bid, c.highest)
            seats[s].bound[k] = weigher._bound(c.bid, c.highest)
        seats[s].declaration = -1
        if weigher.declaration is not None and weigher.declaration[0] == s:
            index = cm._declaration_index(weigher.declaration[1])
            allowed = cm._allowed_indices(weigher.declaration[2])
            if index not in allowed:
                allowed = allowed + (index,)
            seats[s].declaration = index
            seats[s].n_allowed = len(allowed)
            for k, i in enumerate(allowed):
                seats[s].allowed[k] = i
    weights = dict(zip(cm.DECLARATIONS, model._weights))
    m.pip_a, pip_b = weights["blanks"]
    for k in range(7):
        m.b[k] = pip_b[k]
    m.b[6] /= 7
    for g, name in enumerate(("doubles", "follow-me", "sevens", "nello")):
        alpha, beta = weights[name]
        m.group[g][0] = alpha
        for k in range(3):
            m.group[g][k + 1] = beta[k]
    for k in range(N_LEVELS):
        m.cut[k] = model.cutpoints[k]
    m.kappa, m.lowest = model.kappa, cm._LOWEST
    m.doubles, m.top3_doubles = cm._DOUBLES, cm._TOP3_DOUBLES
    m.count10, m.count5, m.seven = cm._COUNT10, cm._COUNT5, cm._SEVEN
    m.six_eight, m.five_nine, m.low, m.high = cm._SIX_EIGHT, cm._FIVE_NINE, cm._LOW, cm._HIGH
    for k in range(N_PIPS):
        m.suit[k], m.pip_double[k], m.pip_top3[k] = \
            cm._SUIT[k], cm._PIP_DOUBLE[k], cm._PIP_TOP3[k]
    return True


cdef struct Move:
    uint64_t cumulative     # completions of this move and the node's earlier ones
    uint64_t after          # completions once the move is made
    int next                # the next node, -1 after the last group
    int counts[MAX_PLACES]  # tiles each place gets


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t _splitmix(uint64_t* s) noexcept nogil:
    s[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef class UniformDeals:
    """Deals of a view drawn uniformly, in C: the walk of its `Completions` table.

    Every consistent deal is equally likely, as with `Completions.sample` (the same
    walk, with a generator of its own): bid advice draws the other hands (and
    three-player Moon's widow) here, and a hint's auction pool (`DealPool`) draws its
    deals the same way. ``view`` gives the table (``completions``), the seat each place
    is dealt to (``place_seats``, ``active_seats``) and the tiles the seats hold outside
    the places (``seat`` and its ``remaining`` tiles, ``played_by``); ``seed`` (an
    int) the draws: a seed gives the same deals.

    >>> from solver.game.view import View
    >>> view = View.from_json(open("examples/view.json").read())
    >>> hands, loose = UniformDeals(view, 7).deals(1)[0]
    >>> [bin(h).count("1") for h in hands], loose
    ([7, 7, 7, 7], 0)
    """

    cdef Move* moves
    cdef int* node_first
    cdef int* node_count
    cdef int* group_start       # a group's tiles are tiles[group_start[g]:group_start[g+1]]
    cdef int* tiles
    cdef int* group_single      # the one place a group's tiles all go to, or -1
    cdef uint32_t* group_mask
    cdef int n_groups, n_places
    cdef uint64_t state[4]
    # the deal drawn: the tiles each place got
    cdef uint32_t cur[MAX_PLACES]
    cdef int place_seat[MAX_PLACES]     # the seat a place's tiles are dealt to, or -1
    cdef uint32_t base[4]               # each seat's tiles as dealt outside the places

    def __init__(self, view, seed):
        cdef int at = 0, g, p, k, m = 0
        cdef uint64_t s0
        completions = view.completions
        if completions.count() >= 2 ** 63:
            raise ValueError("the view's deals are too many to count in 64 bits")
        groups, nodes = completions.flat_table()
        self.n_places = len(completions.capacity)
        if self.n_places > MAX_PLACES:
            raise ValueError(f"a view of {self.n_places} places (at most {MAX_PLACES})")
        self.n_groups = len(groups)
        n_moves = sum(len(moves) for moves in nodes)
        n_tiles = sum(len(tiles) for tiles, _ in groups)
        self.moves = <Move*>malloc(max(1, n_moves) * sizeof(Move))
        self.node_first = <int*>malloc(max(1, len(nodes)) * sizeof(int))
        self.node_count = <int*>malloc(max(1, len(nodes)) * sizeof(int))
        self.group_start = <int*>malloc((self.n_groups + 1) * sizeof(int))
        self.tiles = <int*>malloc(max(1, n_tiles) * sizeof(int))
        self.group_single = <int*>malloc(max(1, self.n_groups) * sizeof(int))
        self.group_mask = <uint32_t*>malloc(max(1, self.n_groups) * sizeof(uint32_t))
        if not (self.moves and self.node_first and self.node_count and self.group_start
                and self.tiles and self.group_single and self.group_mask):
            raise MemoryError()
        for g, (tiles, places) in enumerate(groups):
            self.group_start[g] = at
            self.group_mask[g] = 0
            for t in tiles:
                self.tiles[at] = t
                self.group_mask[g] |= 1u << t
                at += 1
            self.group_single[g] = places[0] if len(places) == 1 else -1
        self.group_start[self.n_groups] = at
        for i, moves in enumerate(nodes):
            self.node_first[i] = m
            self.node_count[i] = len(moves)
            for cumulative, after, nxt, split in moves:
                self.moves[m].cumulative = cumulative
                self.moves[m].after = after
                self.moves[m].next = nxt
                for p in range(MAX_PLACES):
                    self.moves[m].counts[p] = split[p] if p < self.n_places else 0
                m += 1

        # A seat's tiles as dealt: those of its place (when it is in play), those it played,
        # and the viewer's own (`inference.dealt_masks` of `hint._mask_maker`'s masks).
        for s in range(4):
            self.base[s] = view.played_by[s]
        for t in view.remaining:
            self.base[view.seat] |= 1u << t
        for p, seat in enumerate(view.place_seats):
            self.place_seat[p] = seat if seat is not None and seat in view.active_seats else -1
        s0 = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        for k in range(4):
            self.state[k] = _splitmix(&s0)

    def __dealloc__(self):
        free(self.moves)
        free(self.node_first)
        free(self.node_count)
        free(self.group_start)
        free(self.tiles)
        free(self.group_single)
        free(self.group_mask)

    # ----------------------------------------------------------- the generator

    cdef inline uint64_t _next(self) noexcept nogil:
        """xoshiro256**."""
        cdef uint64_t* s = self.state
        cdef uint64_t out = _rotl(s[1] * 5, 7) * 9
        cdef uint64_t t = s[1] << 17
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return out

    cdef inline uint64_t _below(self, uint64_t n) noexcept nogil:
        """Uniform below ``n`` (> 0): the draws under 2^64 mod n are thrown back."""
        cdef uint64_t threshold = (0 - n) % n
        cdef uint64_t r = self._next()
        while r < threshold:
            r = self._next()
        return r % n

    # ------------------------------------------------------------- one deal

    cdef void _deal(self) noexcept nogil:
        """A deal drawn uniformly into ``cur`` (`Completions.sample`'s walk: one number
        below the deals picks every group's split, a shuffle picks its tiles)."""
        cdef int g, p, k, j, at, n, first, lo, hi, mid, node = 0
        cdef int buf[N_TILES]
        cdef uint64_t r
        cdef Move* move
        memset(self.cur, 0, sizeof(self.cur))
        if self.n_groups == 0:
            return
        first = self.node_first[0]
        r = self._below(self.moves[first + self.node_count[0] - 1].cumulative)
        for g in range(self.n_groups):
            first = self.node_first[node]
            lo, hi = first, first + self.node_count[node] - 1
            while lo < hi:      # the first move whose cumulative count is above r
                mid = (lo + hi) >> 1
                if self.moves[mid].cumulative > r:
                    hi = mid
                else:
                    lo = mid + 1
            move = &self.moves[lo]
            # What is left of r is uniform below the completions after the move.
            r = (r - (self.moves[lo - 1].cumulative if lo > first else 0)) % move.after
            node = move.next
            if self.group_single[g] >= 0:
                self.cur[self.group_single[g]] |= self.group_mask[g]
                continue
            n = self.group_start[g + 1] - self.group_start[g]
            for j in range(n):
                buf[j] = self.tiles[self.group_start[g] + j]
            at = 0
            for p in range(self.n_places):
                k = move.counts[p]
                if k == n - at:     # the last place takes the rest
                    for j in range(at, n):
                        self.cur[p] |= 1u << buf[j]
                    break
                for j in range(k):
                    mid = at + <int>self._below(n - at)
                    buf[at], buf[mid] = buf[mid], buf[at]
                    self.cur[p] |= 1u << buf[at]
                    at += 1

    cdef inline void _dealt_masks(self, const uint32_t* places, uint32_t* dealt) noexcept nogil:
        """Each seat's tiles as dealt in the deal of these places, into ``dealt``."""
        cdef int p, s
        for s in range(4):
            dealt[s] = self.base[s]
        for p in range(self.n_places):
            if self.place_seat[p] >= 0:
                dealt[self.place_seat[p]] |= places[p]

    cdef tuple _as_dealt(self, const uint32_t* places):
        """The deal of these places as `deals` gives it."""
        cdef uint32_t dealt[4]
        cdef uint32_t loose = 0
        cdef int p
        self._dealt_masks(places, dealt)
        for p in range(self.n_places):
            if self.place_seat[p] < 0:
                loose |= places[p]
        return [dealt[0], dealt[1], dealt[2], dealt[3]], loose

    def deals(self, int n) -> list:
        """``n`` deals drawn uniformly, each as (the tiles each seat holds as dealt, a mask
        per seat index, 0 for a seat out of play; the tiles of the places no seat in play
        holds, such as three-player Moon's widow or discard, a mask, 0 when none)."""
        cdef int i
        out = []
        for i in range(n):
            self._deal()
            out.append(self._as_dealt(self.cur))
        return out


cdef class DealPool(UniformDeals):
    """The pool of one sampled view: `draw` fills it, `pick` empties it.

    ``view`` gives the table, the places' seats and the tiles played (as for
    `UniformDeals`, whose draws it makes); ``weigher`` (an `AuctionWeigher`) the calling
    seats and their log-weights; ``seed`` (an int) the draws and the picks."""

    cdef int calling[4]
    cdef int n_calling
    # the call model, when it is evaluated here
    cdef bint native
    cdef NativeCalls model
    cdef SeatCalls seat_calls[4]
    # the log-weight of (seat, tiles as dealt); a key 0 is an empty slot
    cdef uint64_t* keys
    cdef double* values
    cdef uint64_t cache_bits, cache_used
    # the pool: each deal's place masks and log-weight, and the running sums
    cdef uint32_t* pooled
    cdef double* log_weights
    cdef Py_ssize_t size, room
    cdef double top, total, squares
    # a deal drawn whose weight waits for the call model
    cdef bint pending
    cdef int miss_seat
    cdef uint32_t miss_mask
    cdef object weigher

    def __init__(self, view, weigher, seed):
        cdef int k
        UniformDeals.__init__(self, view, seed)
        self.weigher = weigher
        self.n_calling = len(weigher.seats)
        for k, s in enumerate(weigher.seats):
            self.calling[k] = s
        self.native = _native_calls(weigher.model, weigher, &self.model, self.seat_calls)

        self.cache_bits = 10
        self.keys = <uint64_t*>calloc(1024, sizeof(uint64_t))
        self.values = <double*>malloc(1024 * sizeof(double))
        if not (self.keys and self.values):
            raise MemoryError()
        self._reset()

    def __dealloc__(self):
        free(self.keys)
        free(self.values)
        free(self.pooled)
        free(self.log_weights)

    cdef inline Py_ssize_t _slot(self, uint64_t key) noexcept nogil:
        cdef uint64_t mask = (1ULL << self.cache_bits) - 1
        cdef uint64_t i = (key * 0x9E3779B97F4A7C15ULL) >> (64 - self.cache_bits)
        while self.keys[i] != 0 and self.keys[i] != key:
            i = (i + 1) & mask
        return <Py_ssize_t>i

    cdef int _weigh(self, double* out) noexcept nogil:
        """The deal's log-weight into ``out`` (0); 1 when a seat's is for Python to find
        (the seat and its tiles in ``miss_seat``, ``miss_mask``), -1 out of memory."""
        cdef uint32_t dealt[4]
        cdef int k, s
        cdef uint64_t key
        cdef Py_ssize_t i
        cdef double total = 0.0, value
        self._dealt_masks(self.cur, dealt)
        for k in range(self.n_calling):
            s = self.calling[k]
            key = (<uint64_t>(s + 1) << 32) | dealt[s]
            i = self._slot(key)
            if self.keys[i] != 0:
                total += self.values[i]
            elif not self.native:
                self.miss_seat, self.miss_mask = s, dealt[s]
                return 1
            else:
                value = _seat_log_weight(&self.model, &self.seat_calls[s], dealt[s])
                if self._remember(s, dealt[s], value) < 0:
                    return -1
                total += value
        out[0] = total
        return 0

    cdef int _remember(self, int seat, uint32_t mask, double value) noexcept nogil:
        """A seat's log-weight into the table (grown to keep it at most half full); -1
        out of memory."""
        cdef uint64_t* old_keys
        cdef double* old_values
        cdef Py_ssize_t i, j, n
        cdef uint64_t key
        if 2 * (self.cache_used + 1) > (1ULL << self.cache_bits):
            old_keys, old_values = self.keys, self.values
            n = (<Py_ssize_t>1) << self.cache_bits
            self.keys = <uint64_t*>calloc(2 * n, sizeof(uint64_t))
            self.values = <double*>malloc(2 * n * sizeof(double))
            if not (self.keys and self.values):
                free(self.keys)
                free(self.values)
                self.keys, self.values = old_keys, old_values
                return -1
            self.cache_bits += 1
            for i in range(n):
                if old_keys[i]:
                    j = self._slot(old_keys[i])
                    self.keys[j], self.values[j] = old_keys[i], old_values[i]
            free(old_keys)
            free(old_values)
        key = (<uint64_t>(seat + 1) << 32) | mask
        i = self._slot(key)
        if self.keys[i] == 0:
            self.cache_used += 1
        self.keys[i], self.values[i] = key, value
        return 0

    # ------------------------------------------------------------- the pool

    cdef void _add(self, double lw) noexcept nogil:
        """``cur`` joins the pool (room reserved) with log-weight ``lw``
        (`Resampler.add`)."""
        cdef int p
        cdef double shift, w
        for p in range(self.n_places):
            self.pooled[self.size * self.n_places + p] = self.cur[p]
        self.log_weights[self.size] = lw
        self.size += 1
        if lw == -INFINITY:
            return
        if lw > self.top:
            shift = exp(self.top - lw) if self.top > -INFINITY else 0.0
            self.total *= shift
            self.squares *= shift * shift
            self.top = lw
        w = exp(lw - self.top)
        self.total += w
        self.squares += w * w

    cdef bint _enough(self, int n, Py_ssize_t min_pool) noexcept nogil:
        """`Resampler.enough`."""
        if self.size < min_pool or self.top == -INFINITY:
            return False
        if self.total < n:      # the weights over the largest: no deal picked twice
            return False
        return self.top >= 0 or log(self.total) + self.top >= 0

    cdef int _run(self, int n, Py_ssize_t min_pool, Py_ssize_t limit,
                  Py_ssize_t* drawn) noexcept nogil:
        """Draw until the pool is enough or ``limit`` deals are drawn (0), or until a
        seat's log-weight is for Python to find (1: the deal waits in ``cur``); -1 out of
        memory."""
        cdef double lw
        cdef int status
        while True:
            if not self.pending:
                if drawn[0] >= limit or self._enough(n, min_pool):
                    return 0
                self._deal()
                self.pending = True
            status = self._weigh(&lw)
            if status:
                return status
            self.pending = False
            self._add(lw)
            drawn[0] += 1

    def draw(self, int n, Py_ssize_t min_pool, Py_ssize_t limit) -> int:
        """Draw deals into the pool until it holds ``min_pool`` deals and is worth ``n``
        picks (`enough`), or ``limit`` deals are drawn; the deals drawn."""
        cdef Py_ssize_t drawn = 0, room
        cdef int status
        cdef uint32_t* deals
        cdef double* log_weights
        if self.size + limit > self.room:
            room = max(2 * self.room, self.size + limit)
            deals = <uint32_t*>realloc(self.pooled, room * max(1, self.n_places) * sizeof(uint32_t))
            if deals:
                self.pooled = deals
            log_weights = <double*>realloc(self.log_weights, room * sizeof(double))
            if log_weights:
                self.log_weights = log_weights
            if not (deals and log_weights):
                raise MemoryError()
            self.room = room
        while True:
            with nogil:
                status = self._run(n, min_pool, limit, &drawn)
            if status == 0:
                return drawn
            if status > 0:
                value = self.weigher.seat_log_weight(self.miss_seat, self.miss_mask)
                status = self._remember(self.miss_seat, self.miss_mask, value)
            if status < 0:
                raise MemoryError()

    def enough(self, int n, Py_ssize_t min_pool) -> bool:
        return self._enough(n, min_pool)

    @property
    def drawn(self) -> int:
        return self.size

    @property
    def effective(self) -> float:
        """The pool's effective number of deals, (sum w)^2 / sum w^2."""
        return self.total * self.total / self.squares if self.squares > 0 else 0.0

    cdef void _reset(self):
        self.size = 0
        self.top = -INFINITY
        self.total = self.squares = 0.0

    def _places(self, Py_ssize_t i):
        """The tiles of each place in deal ``i`` of the pool."""
        cdef int p, t
        cdef uint32_t m
        places = []
        for p in range(self.n_places):
            m = self.pooled[i * self.n_places + p]
            places.append([t for t in range(N_TILES) if m >> t & 1])
        return places

    def contents(self) -> list:
        """The pool as it is: each deal's places and log-weight, in the order drawn."""
        return [(self._places(i), self.log_weights[i]) for i in range(self.size)]

    def pick(self, int n, bint dealt=False):
        """``n`` picks from the pool by weight, as (places, times picked), in the
        order drawn, and a fresh pool for the next round; None when every weight is zero
        (`Resampler.pick`). With ``dealt`` each deal is given as `deals` gives it instead
        of its places."""
        cdef Py_ssize_t i
        cdef double* weights
        cdef double lw
        if self.top == -INFINITY:
            self._reset()
            return None
        weights = <double*>malloc(max(1, self.size) * sizeof(double))
        if not weights:
            raise MemoryError()
        try:
            for i in range(self.size):
                lw = self.log_weights[i]
                weights[i] = exp(max(lw - self.top, FLOOR)) if lw > -INFINITY else 0.0
            counts = _systematic(weights, self.size, n,
                                 <double>(self._next() >> 11) * (1.0 / 9007199254740992.0))
        finally:
            free(weights)
        out = [(self._as_dealt(&self.pooled[i * self.n_places]) if dealt else self._places(i),
                times) for i, times in counts]
        self._reset()
        return out
