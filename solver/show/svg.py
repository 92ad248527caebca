"""Pictures (SVG) of a position and of an analysed hand, drawn as dominoes on felt.

- `position_svg`: the four hands (each tile a domino with its pips), the
  contract, the trick in progress, the tricks each seat has won; optionally a
  label under each tile of the seat to move (``{tile: text}``: a double-dummy
  value, a hint's figures, ...) with some tiles highlighted as best.
- `solution_svg`: a position with every legal tile labelled with its
  double-dummy value (a `SolveResult`), the optimal tiles highlighted.
- `view_svg`: what one seat knows (a `solver.game.view.View`): its own tiles face
  up, the others' as tile backs; with a `Hint`, each legal tile labelled
  with its ``p_make`` and ``mean`` and the best tiles highlighted.
- `analysis_svg`: a played hand (`solver.search.analysis.HandAnalysis`) trick by
  trick, each costly play marked with its cost and the tiles that were better.

Every domino is a ``<g class="domino" data-tile="H-L">`` holding two
``<g class="half" data-pips="N">`` groups of N ``<circle class="pip">``, so a
program (or a test) can read the picture back.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Optional
from xml.sax.saxutils import escape, quoteattr

from ..game import tiles as T
from .diagram import contract_line

if TYPE_CHECKING:
    from ..game.position import Position
    from ..game.view import View
    from ..hidden.hint import Hint, MoveFigures
    from ..search.analysis import HandAnalysis
    from ..search.solve import SolveResult

SEATS = ("N", "E", "S", "W")
SEAT_WORDS = {"N": "North", "E": "East", "S": "South", "W": "West"}

FELT, FELT_EDGE, RAIL = "#1d6b3c", "#0f4424", "#5a3a1e"
IVORY, INK, PIP = "#fbf7ea", "#2b2b2b", "#1f1f1f"
GOLD, RED, CHALK = "#f2c14e", "#d64541", "#f4f1e4"

#: Pip centres of a half in a 3 x 3 grid (column, row), for 0 ... 6 pips.
PIP_LAYOUT: tuple[tuple[tuple[int, int], ...], ...] = (
    (),
    ((1, 1),),
    ((0, 0), (2, 2)),
    ((0, 0), (1, 1), (2, 2)),
    ((0, 0), (2, 0), (0, 2), (2, 2)),
    ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
)

#: Vertical domino size; a horizontal one is the same turned.
TILE_W, TILE_H = 30, 60
GAP = 6


def _attrs(**values: object) -> str:
    return "".join(f" {k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}"
                   for k, v in values.items() if v is not None)


def domino(tile: str, x: float, y: float, *, horizontal: bool = False, scale: float = 1.0,
           outline: Optional[str] = None, dim: bool = False, css: str = "domino") -> str:
    """One domino ``tile`` (a tile name) with its top-left corner at (x, y); the high end
    on top, or on the left when ``horizontal``. ``scale`` sizes it, ``outline`` colours
    its border, ``dim`` fades it, ``css`` is its class."""
    high, low = T.ENDS[T.parse_tile(tile, "tile")]
    w, h = TILE_W * scale, TILE_H * scale
    if horizontal:
        w, h = h, w
    half = TILE_W * scale  # each half is a square
    parts = [f'<g{_attrs(class_=css, data_tile=f"{high}-{low}", opacity="0.45" if dim else None)}>',
             f'<rect{_attrs(x=x + 1.5, y=y + 2, width=w, height=h, rx=4 * scale, fill="#000", opacity="0.25")}/>',
             f'<rect{_attrs(x=x, y=y, width=w, height=h, rx=4 * scale, fill=IVORY, stroke=outline or INK, stroke_width=3 if outline else 1)}/>']
    if horizontal:
        parts.append(f'<line{_attrs(x1=x + half, y1=y + 3 * scale, x2=x + half, y2=y + h - 3 * scale, stroke=INK, stroke_width=1.2 * scale)}/>')
        origins = ((x, y), (x + half, y))
    else:
        parts.append(f'<line{_attrs(x1=x + 3 * scale, y1=y + half, x2=x + w - 3 * scale, y2=y + half, stroke=INK, stroke_width=1.2 * scale)}/>')
        origins = ((x, y), (x, y + half))
    for pips, (ox, oy) in zip((high, low), origins):
        parts.append(f'<g{_attrs(class_="half", data_pips=pips)}>')
        step, margin, radius = half * 0.28, half * 0.22, half * 0.085
        for col, row in PIP_LAYOUT[pips]:
            if horizontal:  # turn the pattern with the tile
                col, row = row, 2 - col
            parts.append(f'<circle{_attrs(class_="pip", cx=round(ox + margin + col * step, 2), cy=round(oy + margin + row * step, 2), r=round(radius, 2), fill=PIP)}/>')
        parts.append("</g>")
    parts.append("</g>")
    return "".join(parts)


def tile_back(x: float, y: float, *, dim: bool = False) -> str:
    """A face-down domino at (``x``, ``y``) (a tile the viewer cannot see): no tile named,
    no pips; ``dim`` fades it."""
    return (f'<g{_attrs(class_="back", opacity="0.45" if dim else None)}>'
            f'<rect{_attrs(x=x + 1.5, y=y + 2, width=TILE_W, height=TILE_H, rx=4, fill="#000", opacity="0.25")}/>'
            f'<rect{_attrs(x=x, y=y, width=TILE_W, height=TILE_H, rx=4, fill="#7a1f1f", stroke=INK, stroke_width=1)}/>'
            f'<rect{_attrs(x=x + 4, y=y + 4, width=TILE_W - 8, height=TILE_H - 8, rx=2, fill="none", stroke="#c9a27a", stroke_width=1)}/>'
            "</g>")


def _text(x: float, y: float, text: str, *, size: int = 14, fill: str = CHALK,
          anchor: str = "middle", weight: str = "normal", css: Optional[str] = None,
          data: Optional[str] = None) -> str:
    return (f'<text{_attrs(x=x, y=y, font_size=size, fill=fill, text_anchor=anchor, font_weight=weight, class_=css, data_tile=data)}'
            f' font-family="Georgia, \'DejaVu Serif\', serif">{escape(text)}</text>')


def _label(x: float, y: float, tile: str, text: str, best: bool) -> str:
    """A value badge centred at (x, y) under a tile; a text of several lines stacks them."""
    lines = text.split("\n")
    fill = "#222" if best else CHALK
    if len(lines) == 1:
        width = max(26, 8 * len(text) + 10)
        return (f'<g{_attrs(class_="label", data_tile=tile)}>'
                f'<rect{_attrs(x=x - width / 2, y=y - 11, width=width, height=20, rx=10, fill=GOLD if best else "#0b2e18", stroke=GOLD, stroke_width=1)}/>'
                + _text(x, y + 4, text, size=13, fill=fill, weight="bold")
                + "</g>")
    # Small type, so that the badges of neighbouring tiles stay apart.
    width, height = max(26, 7 * max(map(len, lines)) + 6), 14 * len(lines) + 6
    top = y - height / 2
    spans = "".join(f'<tspan{_attrs(x=x, dy=0 if i == 0 else 14)}>{escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    return (f'<g{_attrs(class_="label", data_tile=tile)}>'
            f'<rect{_attrs(x=x - width / 2, y=top, width=width, height=height, rx=7, fill=GOLD if best else "#0b2e18", stroke=GOLD, stroke_width=1)}/>'
            f'<text{_attrs(x=x, y=top + 15, font_size=12, fill=fill, text_anchor="middle", font_weight="bold")}'
            f' font-family="Georgia, \'DejaVu Serif\', serif">{spans}</text>'
            "</g>")


def _label_height(text: str) -> int:
    lines = text.count("\n") + 1
    return 20 if lines == 1 else 14 * lines + 6


def _document(width: int, height: int, body: Iterable[str], title: str) -> str:
    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg"{_attrs(width=width, height=height, viewBox=f"0 0 {width} {height}")}>',
        f"<title>{escape(title)}</title>",
        '<defs><radialGradient id="felt" cx="50%" cy="45%" r="70%">'
        f'<stop offset="0%" stop-color="#2a8a4f"/><stop offset="100%" stop-color="{FELT}"/>'
        "</radialGradient></defs>",
        f'<rect{_attrs(x=0, y=0, width=width, height=height, rx=28, fill=RAIL)}/>',
        f'<rect{_attrs(x=10, y=10, width=width - 20, height=height - 20, rx=22, fill="url(#felt)", stroke=FELT_EDGE, stroke_width=3)}/>',
        *body,
        "</svg>",
    ])


def _tiles_of(position: "Position", seat: int) -> list[str]:
    return [T.name_of(t) for t in sorted(T.tiles_of(position.remaining[seat]), reverse=True)]


def position_svg(position: "Position", labels: Optional[Mapping[str, object]] = None,
                 best: Iterable[str] = (), *, title: Optional[str] = None,
                 hidden: Iterable[int] = (), notes: Iterable[str] = ()) -> str:
    """The table of ``position``: four hands, the contract, the trick in progress and
    tricks won, under ``title`` (default: the contract line).

    ``labels`` maps tiles of the seat to move to a text drawn under them (for
    example a double-dummy value; a newline stacks lines); the tiles in
    ``best`` are highlighted. The hands of the seats (indices) in ``hidden``
    are drawn face down; ``notes`` are lines of text at the top right.
    """
    labels = {T.name_of(T.parse_tile(k, "labels")): str(v) for k, v in (labels or {}).items()}
    best_tiles = {T.name_of(T.parse_tile(t, "best")) for t in best}
    hidden = set(hidden)
    width, height = 960, 640
    to_move = position.to_move_index
    legal = set(position.legal_tiles())
    body: list[str] = []
    body.append(_text(30, 42, contract_line(position), size=18, anchor="start", weight="bold",
                      css="contract"))
    unit = "tricks" if position.max_value == 7 else "points"
    side = "declarer" if sum(position.scorer) == 1 else "declaring side"
    trick_no = len(position.completed_tricks) + (0 if position.is_complete else 1)
    status = "hand over" if to_move is None else f"trick {trick_no} of 7, {SEATS[to_move]} to play"
    body.append(_text(30, 66, f"{side}: {position.points} {unit}; {status}", size=14,
                      anchor="start", css="status"))
    note_y = 42
    if position.widow is not None and position.discard is not None:
        body.append(_text(width - 30, 42, f"widow {T.name_of(position.widow)}, discard "
                          f"{T.name_of(position.discard)}", anchor="end"))
        note_y = 66
    for k, note in enumerate(notes):
        body.append(_text(width - 30, note_y + 22 * k, note, size=14, anchor="end", css="note"))

    row_w = 7 * TILE_W + 6 * GAP
    # Where each hand sits: (x, y) of its row's top-left corner.
    spots = {0: ((width - row_w) / 2, 92), 2: ((width - row_w) / 2, height - 40 - TILE_H),
             3: (40, (height - TILE_H) / 2), 1: (width - 40 - row_w, (height - TILE_H) / 2)}
    # Labels sit between a hand and the middle of the table: above South, below the others.
    label_h = max((_label_height(text) for text in labels.values()), default=0)
    won = [0, 0, 0, 0]
    for winner, _trick in position.completed_tricks:
        won[winner] += 1
    for seat in range(4):
        if seat not in position.hands:
            continue  # three-player Moon has no West
        x0, y0 = spots[seat]
        active = seat in position.active_seats
        name = SEAT_WORDS[SEATS[seat]] + (" (declarer)" if seat == position.contract.declarer
                                          else "")
        if not active:
            name += ", sits out"
        hand = _tiles_of(position, seat) if active else \
            [T.name_of(t) for t in sorted(position.hands[seat], reverse=True)]
        shift = (7 - len(hand)) * (TILE_W + GAP) / 2  # keep a shrinking hand centred
        x0 += shift
        mover = seat == to_move
        labelled = mover and seat not in hidden and any(t in labels for t in hand)
        # The name clears the labels when they lie on its side of the hand.
        name_y = y0 + TILE_H + 44 if seat == 0 else y0 - 14
        if labelled and seat == 0:
            name_y = max(name_y, y0 + TILE_H + 6 + label_h + 20)
        elif labelled and seat == 2:
            name_y -= label_h + 6
        name = ("\u25b6 " if mover else "") + name
        body.append(_text(x0, name_y, name, size=15, anchor="start",
                          weight="bold" if mover else "normal",
                          fill=GOLD if mover else CHALK, css="seat", data=None))
        # Tricks won: one small tile standing on end each, after the name.
        for k in range(won[seat]):
            body.append(f'<rect{_attrs(class_="won", x=x0 + len(name) * 8.6 + 8 + k * 13, y=name_y - 14, width=9, height=17, rx=2, fill="#e8e2cc", stroke="#111")}/>')
        for i, tile in enumerate(hand):
            x = x0 + i * (TILE_W + GAP)
            if seat in hidden:
                body.append(tile_back(x, y0, dim=not active))
                continue
            is_best = tile in best_tiles
            body.append(domino(tile, x, y0, outline=GOLD if is_best else None, dim=not active or
                               (mover and tile not in legal)))
            if mover and tile in labels:
                half = _label_height(labels[tile]) / 2
                ly = y0 - 6 - half if seat == 2 else y0 + TILE_H + 6 + half
                body.append(_label(x + TILE_W / 2, ly, tile, labels[tile], is_best))
    # The trick in progress, each tile in front of its player.
    cx, cy = width / 2, height / 2
    places = {0: (cx - TILE_W / 2, cy - TILE_H - 22), 2: (cx - TILE_W / 2, cy + 22),
              3: (cx - TILE_W / 2 - TILE_H - 8, cy - TILE_W / 2),
              1: (cx + TILE_W / 2 + 8, cy - TILE_W / 2)}
    for seat, tile in position.trick:
        x, y = places[seat]
        body.append(domino(T.name_of(tile), x, y, horizontal=seat in (1, 3), css="domino played"))
    return _document(width, height, body, title or contract_line(position))


def solution_svg(position: "Position", result: "SolveResult") -> str:
    """`position_svg` of ``position`` with each legal tile labelled with its double-dummy
    value in ``result`` (`solve`'s answer)."""
    return position_svg(position, labels=result.moves, best=result.best_moves)


def hint_label(figures: "MoveFigures") -> str:
    """A move's hint figures as a two-line label: ``p_make`` in whole percent, then ``mean``.

    Halves round up, as the web page's JavaScript rounds them, so both faces
    print the same figures.
    """
    percent = Decimal(figures.p_make * 100).quantize(Decimal(1), ROUND_HALF_UP)
    mean = Decimal(figures.mean).quantize(Decimal("0.1"), ROUND_HALF_UP)
    return f"{percent}%\n{mean}"


def hint_note(h: "Hint") -> list[str]:
    """What the labels of the hint ``h`` are and which deals they come from, in two
    lines."""
    if h.method == "enumerated":
        deals = f"all {h.count:,} consistent deals"
    else:
        deals = f"{h.deals:,} of {h.count:,} consistent deals (seed {h.seed})"
    return [f"{h.to_move}'s hint: P(make) and mean {h.unit} per tile", deals]


def view_svg(view: "View", hint: Optional["Hint"] = None, *, title: Optional[str] = None) -> str:
    """What the seat of ``view`` sees: its own tiles face up, the others' face down.

    With the ``hint`` of the view, each legal tile carries its ``p_make`` and
    ``mean`` (`hint_label`) and the best tiles are outlined. ``title``: as for
    `position_svg`.
    """
    from ..hidden.deals import iter_deals  # any consistent deal: the hidden tiles are never drawn

    table = next(iter_deals(view))
    hidden = [seat for seat in table.hands if seat != view.seat]
    labels = {t: hint_label(m) for t, m in hint.moves.items()} if hint else None
    head = title or f"{SEAT_WORDS[SEATS[view.seat]]}'s view \u2014 {contract_line(table)}"
    return position_svg(table, labels, hint.best if hint else (), title=head, hidden=hidden,
                        notes=hint_note(hint) if hint else ())


def analysis_svg(analysis: "HandAnalysis") -> str:
    """The played hand of ``analysis`` trick by trick; costly plays outlined in red with
    their cost and the better tiles."""
    position = analysis.position
    per_trick = len(position.active_seats)
    plays = analysis.plays
    tricks = [plays[i:i + per_trick] for i in range(0, len(plays), per_trick)]
    winners = [winner for winner, _ in position.completed_tricks]
    row_h, left = 100, 150
    col_w = 200
    width = left + per_trick * col_w + 150
    height = 130 + row_h * len(tricks) + 60
    unit = analysis.unit
    body: list[str] = []
    head = contract_line(position)
    if analysis.id is not None:
        head = f"Hand {analysis.id} \u2014 {head}"
    body.append(_text(30, 44, head, size=18, anchor="start", weight="bold", css="contract"))
    verdict = "should make" if analysis.makes else "should be set"
    made = {True: "made", False: "set", None: "not decided yet"}[analysis.made]
    body.append(_text(30, 70, f"Double-dummy value at the lead: {analysis.value} "
                      f"{_unit(unit, analysis.value)} ({verdict}); result {analysis.result} "
                      f"{_unit(unit, analysis.result)}, {made}",
                      size=14, anchor="start", css="status"))
    costs = ", ".join(f"{s} {summary.total_cost}" for s, summary in analysis.seats.items()
                      if summary.plays)
    body.append(_text(30, 92, f"Cost by seat: {costs}", size=14, anchor="start",
                      css="totals"))
    for k, trick in enumerate(tricks):
        y = 120 + k * row_h
        body.append(_text(30, y + 36, f"Trick {k + 1}", size=15, anchor="start", weight="bold"))
        if k < len(winners):
            body.append(_text(30, y + 56, f"won by {SEATS[winners[k]]}", size=12,
                              anchor="start", css="winner"))
        for j, play in enumerate(trick):
            x = left + j * col_w
            costly = play.cost > 0
            body.append(_text(x, y + 22, play.seat, size=15, anchor="start", weight="bold"))
            body.append(domino(play.tile, x + 20, y, horizontal=True,
                               outline=RED if costly else None,
                               css="domino costly" if costly else "domino"))
            if costly:
                better = ", ".join(play.alternatives)
                body.append(f'<g{_attrs(class_="cost", data_tile=play.tile, data_cost=play.cost)}>'
                            + _text(x + 20, y + 50, f"\u2212{play.cost} {_unit(unit, play.cost)}",
                                    size=13, anchor="start", fill="#ffb3ad", weight="bold")
                            + _text(x + 20, y + 66, f"better: {better}", size=12,
                                    anchor="start", fill="#ffd9d6")
                            + "</g>")
    return _document(width, height, body, head)


def _unit(unit: str, count: int) -> str:
    return unit[:-1] if count == 1 else unit


def save(svg: str, path: str, index: int = 1) -> Path:
    """Write ``svg`` to ``path``; the ``index``-th picture of a run (n > 1) goes to
    ``stem-n.svg``."""
    target = Path(path)
    if index > 1:
        target = target.with_name(f"{target.stem}-{index}{target.suffix or '.svg'}")
    target.write_text(svg, encoding="utf-8")
    return target
