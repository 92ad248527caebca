# cython: language_level=3, boundscheck=False, wraparound=False
"""One optimal line of play from an engine's position, walked in C.

The walk is a few dozen engine calls (legal moves, a null-window probe per
choice, play and undo); made from Python they cost more than the search of a
late position. `optimal_line` makes them from C through the engine's own
methods, so it needs nothing of the engine beyond its Python interface.
"""


def optimal_line(engine, int value, first, maximizer, int seats, int played):
    """The tiles of one line that keeps ``value`` from the engine's position to the end
    of the hand (``first``, when not None, as its first play); the engine is left as
    it was, even when a probe raises (a cancelled search).

    Each play is the first optimal tile in the engine's order, except that a lead
    is the lowest-numbered optimal one (``seats`` in play, ``played`` tiles of the
    hand played before the engine's position: leads are where that count is a
    multiple of ``seats``), so the line does not depend on what the table holds.

    Args:
        engine: The search core (`solver.search._core.Engine`) at the position.
        value: The value the line keeps.
        first: The line's first tile, or None.
        maximizer: Per seat index, whether that seat plays to raise the value
            (the others play to lower it).
        seats: The seats in play.
        played: The tiles of the hand played before the engine's position.

    Returns:
        The line's tiles (numbers), in order.
    """
    cdef list line = []
    cdef list legal
    cdef int seat, n
    play, undo, at_least, get_legal = engine.play, engine.undo, engine.at_least, engine.legal
    try:
        if first is not None and not engine.finished:
            play(first)
            line.append(first)
        while not engine.finished:
            legal = get_legal()
            if len(legal) > 1 and (played + len(line)) % seats == 0:
                legal.sort()
            tile = legal[0]
            if len(legal) > 1:
                # Children of a max node are <= value, of a min node >= value: the
                # first child that reaches it keeps the value.
                seat = engine.to_move
                is_max = maximizer[seat]
                for tile in legal:
                    play(tile)
                    try:
                        keeps = at_least(value) if is_max else not at_least(value + 1)
                    finally:
                        undo()
                    if keeps:
                        break
                else:
                    raise RuntimeError("no move keeps the position's value")
            play(tile)
            line.append(tile)
    finally:
        for n in range(len(line)):
            undo()
    return line
