"""Skyjo table images: every grid, the piles and whose turn it is, drawn from a view only (GAME-INFO-1).

The renderer reads nothing but the JSON view of :meth:`bot.games.skyjo.engine.State.view`, where a
face-down card is the string ``"down"`` and a cleared place ``"gone"``: it cannot show a hidden value
because it is never given one. Card faces, backs and text are drawn once and cached (:mod:`.cards`,
:mod:`bot.render.images`); a table is a few dozen pastes of those tiles and a fast PNG encoding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from PIL import Image, ImageFont

from bot.games.skyjo.cards import (
    BACK,
    BACK_EDGE,
    CAPTION_DY,
    CAPTION_SIZE,
    CARD_GAP,
    CARD_H,
    CARD_W,
    GONE,
    HIDDEN,
    MARGIN,
    NAME_LEAST,
    NAME_LINE,
    NAME_SIZE,
    NUMBERS_LINE,
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
    font,
    name_layout,
    panel_rgb,
    paste_text,
    text_width,
    theme_named,
)
from bot.render.seats import seat_rgb
from bot.render.table_picture import TablePicture, png_of, seat_names, with_defaults

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
    shown, headers = seat_names(view, names, labels)
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


LEVEL_GAP: Final = 8  # between a computer's name and its level


@lru_cache(maxsize=64)
def _ascent(size: int) -> int:
    """How far the bundled font's baseline is from the top of a text tile of ``size``."""
    f = font(size)
    return f.getmetrics()[0] if isinstance(f, ImageFont.FreeTypeFont) else size


def panels_per_row(players: int) -> int:
    """Panels side by side: two up to 4 players (issue 47 item 8: a 3- or 4-player table in two rows
    of two, two grids wide, so that a phone shows its cards and names big enough to read), else half
    of them (two rows)."""
    return min(players, 2) if players <= 4 else -(-players // 2)


@dataclass(frozen=True, slots=True)
class _Header:
    """What a panel's header shows, as it fits: its marks, the name, a computer's level after it, the
    cards showing (or the round's score) under them, the total."""

    marks: list[Image.Image]
    name: tuple[str, int]  # (text, size)
    level: tuple[str, int]  # ("" for a person)
    note: tuple[str, int]
    note_colour: Any
    total: Image.Image


def _header(table: _Table, seat: int, theme: Theme, labels: Mapping[str, str], pw: int) -> _Header:
    """The header of ``seat``'s panel, ``pw`` pixels wide. First line: the seat's tag, the marks, the
    name as big as :data:`NAME_SIZE` (smaller only if it must: down to :data:`NAME_LEAST`, then cut)
    and a computer's level after it in small print, as every text says it ("CPU 1 · normal"). Second
    line: the cards showing (or the round's score), the total's pill at the right."""
    bg = theme.panel
    highlighted = table.turn == seat and table.phase == "play"
    marks: list[Image.Image] = []
    if seat in table.winners:
        marks.append(tile(theme, icon_rgb, "crown", theme.accent_ink, bg, 26))
    elif highlighted:
        marks.append(tile(theme, icon_rgb, "turn", seat_rgb(seat), bg, 24))
    if table.finisher == seat:
        marks.append(tile(theme, icon_rgb, "flag", theme.text, bg, 24))
    total_text = labels["total"].format(total=table.totals[seat])
    total = tile(theme, pill_rgb, total_text, SMALL_SIZE + 1, theme.panel, theme.text, bg)
    grid = table.grids[seat]
    if table.round_scores is not None:
        score = table.round_scores[seat]
        doubled = table.doubled and seat == table.finisher
        shown = f"+{score}" if score >= 0 else card_label(score)
        if doubled:
            shown += " ×2"
        note = labels["round_score"].format(score=shown)
        colour = theme.bad if doubled else theme.muted
    else:
        note = labels["shown"].format(sum=card_label(sum(c for c in grid if isinstance(c, int))))
        colour = theme.muted
    name, level = table.headers[seat]
    inner = pw - 2 * PANEL_PAD - 4
    line = inner - SEAT_DOT - 8 - sum(mark.width + 6 for mark in marks)
    level_width = text_width(level, SMALL_SIZE) + LEVEL_GAP if level else 0
    (fitted, size), _ = name_layout((name, ""), (NAME_SIZE, NAME_LEAST), line - level_width)
    room = line - text_width(fitted, size) - LEVEL_GAP
    (_, _), under = name_layout(("", level), (SMALL_SIZE + 2, SMALL_SIZE + 2), room, room, SMALL_SIZE)
    (_, _), below = name_layout(("", note), (SMALL_SIZE + 2, SMALL_SIZE + 2), 0, inner - total.width - 10)
    return _Header(marks, (fitted, size), under if level else ("", SMALL_SIZE), below, colour, total)


def name_sizes(
    view: Mapping[str, Any], names: Sequence[str] | None = None, labels: Mapping[str, str] | None = None
) -> list[tuple[str, int]]:
    """Each seat's name as :func:`render_table` draws it: (the text, cut or whole, and its size)."""
    return [name for name, _, _ in header_texts(view, names, labels)]


def header_texts(
    view: Mapping[str, Any], names: Sequence[str] | None = None, labels: Mapping[str, str] | None = None
) -> list[tuple[tuple[str, int], tuple[str, int], tuple[str, int]]]:
    """Each seat's header words as :func:`render_table` draws them: its name, a computer's level
    (``""`` for a person) and the cards showing or the round's score, each (text, size)."""
    words = with_defaults(DEFAULT_LABELS, labels)
    table = _read(view, names, words)
    theme = theme_named("dark")
    _, _, (pw, _), _ = _layout(table)
    headers = [_header(table, seat, theme, words, pw) for seat in range(len(table.names))]
    return [(h.name, h.level, h.note) for h in headers]


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
    header = _header(table, seat, theme, labels, pw)

    # First line: (seat's tag) [marks] the name, a computer's level. Second: the cards showing ... (total)
    cy = y0 + PANEL_PAD + NAME_LINE // 2
    left = x0 + PANEL_PAD + 2
    x = left
    canvas.paste(tile(theme, dot_rgb, seat_rgb(seat), bg), (x, cy - SEAT_DOT // 2))
    x += SEAT_DOT + 8
    for mark in header.marks:
        canvas.paste(mark, (x, cy - mark.height // 2))
        x += mark.width + 6
    ink = theme.accent_ink if winner else theme.text
    (name, name_size), (level, level_size), (note, note_size) = header.name, header.level, header.note
    width, height = paste_text(canvas, palette, (x, cy), name, name_size, ink, bg, "lm")
    if level:  # on the name's baseline
        baseline = cy - height // 2 + _ascent(name_size)
        xy = (x + width + LEVEL_GAP, baseline - _ascent(level_size))
        paste_text(canvas, palette, xy, level, level_size, theme.muted, bg)
    below = y0 + PANEL_PAD + NAME_LINE + 4 + NUMBERS_LINE // 2
    total = header.total
    canvas.paste(total, (x0 + pw - PANEL_PAD - 2 - total.width, below - total.height // 2))
    if note:
        paste_text(canvas, palette, (left, below), note, note_size, header.note_colour, bg, "lm")

    # The grid, column by column (pos = col * rows + row), centred in the panel.
    gw, _ = _grid_size(table.columns, table.rows)
    gx = x0 + (pw - gw) // 2
    gy = y0 + PANEL_PAD + PANEL_HEADER
    rows = table.rows
    for pos, cell in enumerate(table.grids[seat]):
        col, row = divmod(pos, rows)
        xy = (gx + col * (CARD_W + CARD_GAP), gy + row * (CARD_H + CARD_GAP))
        canvas.paste(tile(theme, card_rgb, cell, bg, theme.cards), xy)


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
        CAPTION_SIZE,
        ink,
        bg,
        "mm",
    )


# The piles (draw pile, discard, the drawn card) stand side by side, in the last row's free place
# (3, 5 or 7 players) or in a strip under the panels: the round and whose turn it is are said by the
# message around the picture (its heading and its one line), so the picture has no header strip.
PILE_SLOT_W: Final = CARD_W + 2 * STACK_STEP + 24  # a card, a pile's stack, the room to the next one
PILES_W: Final = 3 * PILE_SLOT_W - 24
# Room for the drawn card's place whether or not one is drawn: the picture keeps its size.
PILES_H: Final = 2 * STACK_STEP + CARD_H + CAPTION_DY + CAPTION_SIZE // 2 + 4


def _draw_piles(
    canvas: Image.Image, xy: tuple[int, int], table: _Table, theme: Theme, labels: Mapping[str, str]
) -> None:
    """The draw pile (its size in a pill), the discard and the drawn card, left to right from ``xy``
    (the top-left corner of a :data:`PILES_W` x :data:`PILES_H` box)."""
    x, y = xy[0], xy[1] + 2 * STACK_STEP
    size = table.draw_pile_size
    if size:
        _draw_card(canvas, (x, y), HIDDEN, theme, labels["draw"], depth=min(2, size - 1))
        # The draw pile's size, in a pill on its top card.
        pill = tile(theme, pill_rgb, str(size), SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK)
        canvas.paste(pill, (x + (CARD_W - pill.width) // 2, y + CARD_H - pill.height - 6))
    else:
        _draw_card(canvas, (x, y), GONE, theme, labels["draw"])
    x += PILE_SLOT_W
    _draw_card(canvas, (x, y), _or_gone(table.discard_top), theme, labels["discard"])
    if table.drawn is not None:
        _draw_card(canvas, (x + PILE_SLOT_W, y), table.drawn, theme, labels["drawn"], framed=True)


def _or_gone(card: int | None) -> int | str:
    """A card, or an empty place when there is none."""
    return GONE if card is None else card


def _layout(
    table: _Table,
) -> tuple[tuple[int, int], list[tuple[int, int]], tuple[int, int], tuple[int, int]]:
    """(image size, each panel's top-left corner, panel size, the piles' top-left corner) of a table:
    the panels in rows of :func:`panels_per_row`, the piles in the last row's free place when it has
    one, else in a strip under the panels."""
    players = len(table.names)
    per_row = panels_per_row(players)
    pw, ph = _panel_size(table.columns, table.rows)
    panel_rows = -(-players // per_row)
    panels_w = per_row * pw + (per_row - 1) * PANEL_GAP
    panels_h = panel_rows * ph + (panel_rows - 1) * PANEL_GAP
    in_last = players - (panel_rows - 1) * per_row
    origins = [
        (MARGIN + col * (pw + PANEL_GAP), MARGIN + row * (ph + PANEL_GAP))
        for row, col in (divmod(seat, per_row) for seat in range(players))
    ]
    free_x = MARGIN + in_last * (pw + PANEL_GAP)
    free_w = MARGIN + panels_w - free_x
    if in_last < per_row and free_w >= PILES_W and ph >= PILES_H:  # the last row's free place
        width, height = 2 * MARGIN + panels_w, 2 * MARGIN + panels_h
        top = MARGIN + (panel_rows - 1) * (ph + PANEL_GAP)
        piles = (free_x + (free_w - PILES_W) // 2, top + (ph - PILES_H) // 2)
    else:  # a strip under the panels; a short last row is centred under the full ones
        width = 2 * MARGIN + max(panels_w, PILES_W)
        height = 2 * MARGIN + panels_h + PANEL_GAP + PILES_H
        shift = (width - 2 * MARGIN - panels_w) // 2
        last = (panels_w - (in_last * pw + (in_last - 1) * PANEL_GAP)) // 2
        origins = [
            (x + shift + (last if seat >= players - in_last and in_last < per_row else 0), y)
            for seat, (x, y) in enumerate(origins)
        ]
        piles = ((width - PILES_W) // 2, MARGIN + panels_h + PANEL_GAP)
    return (width, height), origins, (pw, ph), piles


def panel_boxes(view: Mapping[str, Any]) -> list[tuple[int, int, int, int]]:
    """Each seat's panel in :func:`render_table`'s image, as (left, top, right, bottom) pixels."""
    _, origins, (pw, ph), _ = _layout(_read(view, None, DEFAULT_LABELS))
    return [(x, y, x + pw, y + ph) for x, y in origins]


def card_boxes(view: Mapping[str, Any]) -> list[list[tuple[int, int, int, int]]]:
    """Each seat's grid places in :func:`render_table`'s image, in the view's order, as (left, top,
    right, bottom) pixels (tests read the cards' colours and shapes there)."""
    table = _read(view, None, DEFAULT_LABELS)
    _, origins, (pw, _), _ = _layout(table)
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


_PICTURE: Final = TablePicture(DEFAULT_LABELS, _read)


@_PICTURE.table
def table_image(table: _Table, theme: Theme, words: Mapping[str, str]) -> Image.Image:
    """The whole table as a spectator sees it, as a palette image: every grid, names and totals, the
    draw pile and its size, the discard top, the drawn card, and the player whose turn it is
    highlighted. Called as ``table_image(view, names=None, theme="dark", labels=None,
    cards="classic")`` (:class:`~bot.render.table_picture.TableImage`).

    ``view`` is a :meth:`Game.view` dict (any viewer: in Skyjo they all see the same table);
    ``names`` are the display names by seat (default: the view's players); ``theme`` is ``"dark"``
    or ``"light"``; ``labels`` overrides the few words drawn (see ``DEFAULT_LABELS``), for i18n;
    ``cards`` is ``"classic"`` or ``"colourblind"`` (:data:`bot.render.images.CARD_THEMES`).
    """
    size, origins, panel, piles = _layout(table)
    canvas = palette_of(theme).canvas(size, theme.background)
    _draw_piles(canvas, piles, table, theme, words)
    for seat, origin in enumerate(origins):
        _draw_panel(canvas, origin, panel, table, seat, theme, words)
    return canvas


render_table: Final = png_of(table_image, "render_table")


@_PICTURE.private
def grid_image(
    table: _Table, seat: int, theme: Theme, words: Mapping[str, str], view: Mapping[str, Any]
) -> Image.Image:
    """``seat``'s own grid for their private panel, as a palette image: their panel with the discard
    top and, on their turn, the card they drew. Called as ``grid_image(view, seat, names=None,
    theme="dark", labels=None, cards="classic")``. Face-down cards are backs here too: the view never
    holds their values (GAME-INFO-1)."""
    pw, ph = _panel_size(table.columns, table.rows)
    side = CARD_W + 2 * STACK_STEP + 34  # the discard and drawn card at the right
    width = 2 * MARGIN + pw + side
    height = max(2 * MARGIN + ph, 2 * MARGIN + 2 * (CARD_H + 40))
    canvas = palette_of(theme).canvas((width, height), theme.background)
    _draw_panel(canvas, (MARGIN, MARGIN), (pw, ph), table, seat, theme, words)
    x = MARGIN + pw + 8 + (side - CARD_W) // 2
    y = MARGIN + 12
    _draw_card(canvas, (x, y), _or_gone(table.discard_top), theme, words["discard"])
    if table.drawn is not None and table.turn == seat:
        _draw_card(canvas, (x, y + CARD_H + 44), table.drawn, theme, words["drawn"], framed=True)
    return canvas


render_grid: Final = png_of(grid_image, "render_grid")
