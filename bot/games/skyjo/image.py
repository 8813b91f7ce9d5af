"""Skyjo table images: every grid, the piles and whose turn it is, drawn from a view only (GAME-INFO-1).

The renderer reads nothing but the JSON view of :meth:`bot.games.skyjo.engine.Game.view`, where a
face-down card is the string ``"down"`` and a cleared place ``"gone"``: it cannot show a hidden value
because it is never given one. Card faces, backs and text are drawn once and cached (:mod:`.cards`,
:mod:`bot.render.images`); a table is a few dozen pastes of those tiles and a fast PNG encoding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from PIL import Image

from bot.games.skyjo.cards import (
    BACK,
    BACK_EDGE,
    CAPTION_DY,
    CARD_GAP,
    CARD_H,
    CARD_W,
    GONE,
    HIDDEN,
    MARGIN,
    NAME_SIZE,
    PANEL_GAP,
    PANEL_HEADER,
    PANEL_MIN_W,
    PANEL_PAD,
    SMALL_SIZE,
    STACK_STEP,
    WHITE,
    card_label,
    card_rgb,
    frame_rgb,
    icon_rgb,
    palette_of,
    pill_rgb,
    tile,
)
from bot.render.images import (
    SEAT_DOT,
    SEAT_LABELS,
    Theme,
    dot_rgb,
    encode_png,
    one_line_name,
    panel_rgb,
    paste_name,
    paste_text,
    picture_name,
    theme_named,
)
from bot.render.seats import seat_rgb

DEFAULT_LABELS: Final[Mapping[str, str]] = {
    "round": "Round {round}",
    "turn": "{name} to play",
    "reveal": "Everyone turns up {count} cards",
    "reveal_one": "Everyone turns up {count} card",
    "last_turns": "Last turns!",
    "round_over": "Round {round} over",
    "game_over": "Game over",
    "draw": "Draw",
    "discard": "Discard",
    "drawn": "Drawn",
    # What the first number of a panel's header is (the rest: SEAT_LABELS).
    "shown": "showing {sum}",
    **SEAT_LABELS,
}

# --------------------------------------------------------------------------------------------------
# Reading the view


@dataclass(frozen=True, slots=True)
class _Table:
    """What the renderer needs from a view, checked once."""

    names: list[str]  # on one line, for sentences
    headers: list[tuple[str, str]]  # a panel's name and second line (a computer's level)
    grids: list[list[int | str]]
    columns: int
    rows: int
    discard_top: int | None
    draw_pile_size: int
    drawn: int | None
    turn: int | None
    finisher: int | None
    totals: list[int]
    phase: str
    round: int
    round_scores: list[int] | None  # the last round's scores, once it is over
    doubled: bool
    winners: list[int]
    initial_reveals: int


def _read(view: Mapping[str, Any], names: Sequence[str] | None, labels: Mapping[str, str]) -> _Table:
    players = list(view["players"])
    given = names if names is not None else players
    headers = [picture_name(name, labels) for name in given]
    headers = [(first or f"#{seat + 1}", second) for seat, (first, second) in enumerate(headers)]
    shown = [one_line_name(name, labels) or f"#{seat + 1}" for seat, name in enumerate(given)]
    if len(shown) != len(players):
        raise ValueError(f"{len(shown)} names for {len(players)} players")
    columns, rows = int(view["columns"]), int(view["rows"])
    grids: list[list[int | str]] = []
    for grid in view["grids"]:
        if len(grid) != columns * rows:
            raise ValueError(f"a grid of {len(grid)} cells is not {columns} x {rows}")
        for cell in grid:
            if not (cell in (HIDDEN, GONE) or (isinstance(cell, int) and not isinstance(cell, bool))):
                raise ValueError(f"not a Skyjo cell: {cell!r}")
        grids.append(list(grid))
    if len(grids) != len(players):
        raise ValueError("one grid per player")
    phase = str(view["phase"])
    rounds = view.get("rounds") or []
    over = phase in ("round_over", "game_over") and rounds
    last = rounds[-1] if over else None
    discard = view["discard_pile"]
    return _Table(
        names=shown,
        headers=headers,
        grids=grids,
        columns=columns,
        rows=rows,
        discard_top=discard[-1] if discard else None,
        draw_pile_size=int(view["draw_pile_size"]),
        drawn=view.get("drawn"),
        turn=view.get("turn"),
        finisher=view.get("finisher"),
        totals=[int(t) for t in view["totals"]],
        phase=phase,
        round=int(view["round"]),
        round_scores=list(last["scores"]) if last else None,
        doubled=bool(last["doubled"]) if last else False,
        winners=list(view.get("winners") or []),
        initial_reveals=int((view.get("options") or {}).get("initial_reveals", 2)),
    )


# --------------------------------------------------------------------------------------------------
# Layout and drawing


def _grid_size(columns: int, rows: int) -> tuple[int, int]:
    return columns * CARD_W + (columns - 1) * CARD_GAP, rows * CARD_H + (rows - 1) * CARD_GAP


def _panel_size(columns: int, rows: int) -> tuple[int, int]:
    gw, gh = _grid_size(columns, rows)
    return max(PANEL_MIN_W, gw + 2 * PANEL_PAD), PANEL_HEADER + gh + 2 * PANEL_PAD


def panels_per_row(players: int) -> int:
    """Panels side by side: all of them up to 4 players (one row: a phone shows the picture wider
    than tall, under a few lines of text), else half of them (two rows)."""
    return players if players <= 4 else -(-players // 2)


def _draw_panel(
    canvas: Image.Image,
    origin: tuple[int, int],
    size: tuple[int, int],
    table: _Table,
    seat: int,
    theme: Theme,
    labels: Mapping[str, str],
) -> None:
    x0, y0 = origin
    pw, _ = size
    palette = palette_of(theme)
    highlighted = table.turn == seat and table.phase == "play"
    winner = seat in table.winners
    # The player to act: a border in their seat's colour (the table message's accent); a winner: gold.
    border = seat_rgb(seat) if highlighted else None
    canvas.paste(tile(theme, panel_rgb, size, theme, highlighted or winner, border), origin)
    bg = theme.panel

    # Header: (seat's tag) [mark] name, under it the cards showing or the round score ..... (total)
    cy = _header_middle(y0)
    x = x0 + PANEL_PAD + 2
    canvas.paste(tile(theme, dot_rgb, seat_rgb(seat), bg), (x, cy - 8 - SEAT_DOT // 2))
    x += SEAT_DOT + 6
    right = x0 + pw - PANEL_PAD
    total_text = labels["total"].format(total=table.totals[seat])
    total = tile(theme, pill_rgb, total_text, SMALL_SIZE + 1, theme.panel, theme.text, bg)
    right -= total.width
    # The total sits on the name's line, so that the line under the name (a computer's level, the
    # cards showing or the round's score) has the panel's whole width and is not cut (name_layout).
    canvas.paste(total, (right, cy - 10 - total.height // 2))
    grid = table.grids[seat]
    if table.round_scores is not None:
        score = table.round_scores[seat]
        doubled = table.doubled and seat == table.finisher
        shown = f"+{score}" if score >= 0 else card_label(score)
        if doubled:
            shown += " ×2"
        note = labels["round_score"].format(score=shown)
        colour = theme.bad if doubled else theme.text
    else:
        note = labels["shown"].format(sum=card_label(sum(c for c in grid if isinstance(c, int))))
        colour = theme.muted
    right -= 10
    marks: list[Image.Image] = []
    if winner:
        marks.append(tile(theme, icon_rgb, "crown", theme.accent_ink, bg, 22))
    elif highlighted:
        marks.append(tile(theme, icon_rgb, "turn", seat_rgb(seat), bg, 20))
    if table.finisher == seat:
        marks.append(tile(theme, icon_rgb, "flag", theme.text, bg, 20))
    for mark in marks:
        canvas.paste(mark, (x, cy - 8 - mark.height // 2))
        x += mark.width + 6
    ink = theme.accent_ink if winner else theme.text
    # Under the name, in words: a computer's level, then the cards showing or the round's score.
    name, level = table.headers[seat]
    below = f"{level} · {note}" if level else note
    width = max(10, right - x)
    left = x0 + PANEL_PAD + 2
    under = (left, x0 + pw - PANEL_PAD - left)
    # The name may get as small as the line under it ("Ordinateur 1" beside a turn mark and "99 pts").
    sizes = (NAME_SIZE - 2, SMALL_SIZE - 2)
    paste_name(
        canvas, palette, (x, cy), (name, below), sizes, width, (ink, colour), bg, under, SMALL_SIZE - 2
    )

    # The grid, column by column (pos = col * rows + row), centred in the panel.
    gw, _ = _grid_size(table.columns, table.rows)
    gx = x0 + (pw - gw) // 2
    gy = y0 + PANEL_PAD + PANEL_HEADER
    rows = table.rows
    for pos, cell in enumerate(grid):
        col, row = divmod(pos, rows)
        xy = (gx + col * (CARD_W + CARD_GAP), gy + row * (CARD_H + CARD_GAP))
        canvas.paste(tile(theme, card_rgb, cell, bg, theme.cards), xy)


def _header_middle(y0: int) -> int:
    """The middle of a panel's header (the name's two lines), for a panel whose top is at ``y0``."""
    return y0 + PANEL_PAD + PANEL_HEADER // 2 - 4


def _draw_card(
    canvas: Image.Image,
    xy: tuple[int, int],
    top: int | str,
    theme: Theme,
    caption: str,
    depth: int = 0,
    framed: bool = False,
) -> None:
    """A card on the background with ``caption`` under it; ``depth`` card backs peek out under it
    (a pile), and a ``framed`` card (the drawn one) stands out in the accent colour."""
    x, y = xy
    bg = theme.background
    under = tile(theme, card_rgb, HIDDEN, bg, theme.cards)
    for k in range(depth, 0, -1):
        canvas.paste(under, (x + k * STACK_STEP, y - k * STACK_STEP))
    if framed:
        canvas.paste(tile(theme, frame_rgb, theme.accent, bg), (x - 4, y - 4))
    canvas.paste(tile(theme, card_rgb, top, theme.accent if framed else bg, theme.cards), (x, y))
    ink = theme.accent_ink if framed else theme.muted
    paste_text(
        canvas,
        palette_of(theme),
        (x + CARD_W // 2, y + CARD_H + CAPTION_DY),
        caption,
        SMALL_SIZE,
        ink,
        bg,
        "mm",
    )


# The piles (draw pile, discard, the drawn card) stand in a narrow column right of the panels: the
# round and whose turn it is are said by the message around the picture (its heading and its one
# line), so the picture has no header strip and a 4-player table is one row, wider than tall.
PILE_SLOT_H: Final = CARD_H + CAPTION_DY + SMALL_SIZE // 2 + 6  # a card and its caption
PILES_W: Final = CARD_W + 2 * STACK_STEP + 2 * 10  # the column's width, a pile's stack included
# Room for three (the drawn card's too, whether or not one is drawn: the picture keeps its height).
PILES_H: Final = 2 * STACK_STEP + 3 * PILE_SLOT_H


def _draw_piles(canvas: Image.Image, x: int, table: _Table, theme: Theme, labels: Mapping[str, str]) -> None:
    """The draw pile (its size in a pill), the discard and the drawn card, top down from ``x``."""
    x += (PILES_W - CARD_W) // 2 - STACK_STEP
    y = MARGIN + 2 * STACK_STEP
    size = table.draw_pile_size
    if size:
        _draw_card(canvas, (x, y), HIDDEN, theme, labels["draw"], depth=min(2, size - 1))
        # The draw pile's size, in a pill on its top card.
        pill = tile(theme, pill_rgb, str(size), SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK)
        canvas.paste(pill, (x + (CARD_W - pill.width) // 2, y + CARD_H - pill.height - 6))
    else:
        _draw_card(canvas, (x, y), GONE, theme, labels["draw"])
    y += PILE_SLOT_H
    _draw_card(canvas, (x, y), _or_gone(table.discard_top), theme, labels["discard"])
    if table.drawn is not None:
        _draw_card(canvas, (x, y + PILE_SLOT_H), table.drawn, theme, labels["drawn"], framed=True)


def _or_gone(card: int | None) -> int | str:
    """A card, or an empty place when there is none."""
    return GONE if card is None else card


def _labels(labels: Mapping[str, str] | None) -> Mapping[str, str]:
    return {**DEFAULT_LABELS, **labels} if labels else DEFAULT_LABELS


def _layout(table: _Table) -> tuple[tuple[int, int], list[tuple[int, int]], tuple[int, int]]:
    """(image size, each panel's top-left corner, panel size) of a table: the panels in at most two
    rows (:func:`panels_per_row`), the piles' column at their right."""
    players = len(table.names)
    per_row = panels_per_row(players)
    pw, ph = _panel_size(table.columns, table.rows)
    panel_rows = -(-players // per_row)
    panels_w = per_row * pw + (per_row - 1) * PANEL_GAP
    panels_h = panel_rows * ph + (panel_rows - 1) * PANEL_GAP
    width = 2 * MARGIN + panels_w + PANEL_GAP + PILES_W
    height = 2 * MARGIN + max(panels_h, PILES_H)
    top = MARGIN + (height - 2 * MARGIN - panels_h) // 2
    origins = []
    # A short last row is centred under the full one.
    for seat in range(players):
        row, col = divmod(seat, per_row)
        in_row = min(per_row, players - row * per_row)
        row_w = in_row * pw + (in_row - 1) * PANEL_GAP
        x = MARGIN + (panels_w - row_w) // 2 + col * (pw + PANEL_GAP)
        origins.append((x, top + row * (ph + PANEL_GAP)))
    return (width, height), origins, (pw, ph)


def panel_boxes(view: Mapping[str, Any]) -> list[tuple[int, int, int, int]]:
    """Each seat's panel in :func:`render_table`'s image, as (left, top, right, bottom) pixels."""
    _, origins, (pw, ph) = _layout(_read(view, None, DEFAULT_LABELS))
    return [(x, y, x + pw, y + ph) for x, y in origins]


def card_boxes(view: Mapping[str, Any]) -> list[list[tuple[int, int, int, int]]]:
    """Each seat's grid places in :func:`render_table`'s image, in the view's order, as (left, top,
    right, bottom) pixels (tests read the cards' colours and shapes there)."""
    table = _read(view, None, DEFAULT_LABELS)
    _, origins, (pw, _) = _layout(table)
    gw, _ = _grid_size(table.columns, table.rows)
    boxes = []
    for x0, y0 in origins:
        gx, gy = x0 + (pw - gw) // 2, y0 + PANEL_PAD + PANEL_HEADER
        places = []
        for pos in range(table.columns * table.rows):
            col, row = divmod(pos, table.rows)
            x, y = gx + col * (CARD_W + CARD_GAP), gy + row * (CARD_H + CARD_GAP)
            places.append((x, y, x + CARD_W, y + CARD_H))
        boxes.append(places)
    return boxes


def table_image(
    view: Mapping[str, Any],
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
    cards: str = "classic",
) -> Image.Image:
    """The spectator's table as a palette image (see :func:`render_table`)."""
    t = theme_named(theme, cards)
    words = _labels(labels)
    table = _read(view, names, words)
    size, origins, panel = _layout(table)
    canvas = palette_of(t).canvas(size, t.background)
    _draw_piles(canvas, size[0] - MARGIN - PILES_W, table, t, words)
    for seat, origin in enumerate(origins):
        _draw_panel(canvas, origin, panel, table, seat, t, words)
    return canvas


def render_table(
    view: Mapping[str, Any],
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
    cards: str = "classic",
) -> bytes:
    """A PNG of the whole table as a spectator sees it: every grid, names and totals, the draw pile
    and its size, the discard top, the drawn card, and the player whose turn it is highlighted.

    ``view`` is a :meth:`Game.view` dict (any viewer: in Skyjo they all see the same table);
    ``names`` are the display names by seat (default: the view's players); ``theme`` is ``"dark"``
    or ``"light"``; ``labels`` overrides the few words drawn (see ``DEFAULT_LABELS``), for i18n;
    ``cards`` is ``"classic"`` or ``"colourblind"`` (:data:`bot.render.images.CARD_THEMES`).
    """
    return encode_png(table_image(view, names, theme, labels, cards))


def grid_image(
    view: Mapping[str, Any],
    seat: int,
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
    cards: str = "classic",
) -> Image.Image:
    """One player's panel with the discard top and, on their turn, the card they drew."""
    t = theme_named(theme, cards)
    words = _labels(labels)
    table = _read(view, names, words)
    if not 0 <= seat < len(table.names):
        raise ValueError(f"no seat {seat} at a table of {len(table.names)}")
    pw, ph = _panel_size(table.columns, table.rows)
    side = CARD_W + 2 * STACK_STEP + 34  # the discard and drawn card at the right
    width = 2 * MARGIN + pw + side
    height = max(2 * MARGIN + ph, 2 * MARGIN + 2 * (CARD_H + 40))
    canvas = palette_of(t).canvas((width, height), t.background)
    _draw_panel(canvas, (MARGIN, MARGIN), (pw, ph), table, seat, t, words)
    x = MARGIN + pw + 8 + (side - CARD_W) // 2
    y = MARGIN + 12
    _draw_card(canvas, (x, y), _or_gone(table.discard_top), t, words["discard"])
    if table.drawn is not None and table.turn == seat:
        _draw_card(canvas, (x, y + CARD_H + 44), table.drawn, t, words["drawn"], framed=True)
    return canvas


def render_grid(
    view: Mapping[str, Any],
    seat: int,
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
    cards: str = "classic",
) -> bytes:
    """A PNG of ``seat``'s own grid for their private panel, with the discard top and their drawn
    card. Face-down cards are backs here too: the view never holds their values (GAME-INFO-1)."""
    return encode_png(grid_image(view, seat, names, theme, labels, cards))
