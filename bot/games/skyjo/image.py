"""Skyjo table images: every grid, the piles and whose turn it is, drawn from a view only (GAME-INFO-1).

The renderer reads nothing but the JSON view of :meth:`bot.games.skyjo.engine.Game.view`, where a
face-down card is the string ``"down"`` and a cleared place ``"gone"``: it cannot show a hidden value
because it is never given one. Card faces, backs and text are drawn once and cached
(:mod:`bot.render.images`); a table is a few dozen pastes of those tiles and a fast PNG encoding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from PIL import Image, ImageChops, ImageDraw

from bot.render.images import (
    RGB,
    SEAT_LABELS,
    THEMES,
    Palette,
    Theme,
    encode_png,
    font,
    hex_rgb,
    is_dark,
    mix,
    one_line_name,
    panel_rgb,
    paste_name,
    paste_text,
    picture_name,
    rounded_box,
    supersampled,
    text_tile,
    text_width,
    theme_named,
    wrap_text,
)

HIDDEN: Final = "down"
GONE: Final = "gone"

# Sizes in pixels. A 4-player table comes out about 700 px wide: Discord on a phone shows it at full
# width, where a card is still a thumb wide and its digit readable at a glance.
CARD_W: Final = 64
CARD_H: Final = 88
CARD_GAP: Final = 6
CARD_RADIUS: Final = 9
CARD_DIGIT: Final = 38
CARD_CORNER: Final = 13
PANEL_PAD: Final = 12
PANEL_HEADER: Final = 40
PANEL_MIN_W: Final = 250
PANEL_GAP: Final = 14
MARGIN: Final = 16
NAME_SIZE: Final = 21
SMALL_SIZE: Final = 16
TITLE_SIZE: Final = 24
STACK_STEP: Final = 3  # offset of the cards drawn under a pile's top card
CAPTION_DY: Final = 18  # from a card's bottom edge to the middle of its caption

DEFAULT_LABELS: Final[Mapping[str, str]] = {
    "round": "Round {round}",
    "turn": "{name} to play",
    "reveal": "Everyone turns up {count} cards",
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


# The game's colour bands: (fill, digit colour). -2 and -1 deep blue, 0 light blue, 1-4 green,
# 5-8 yellow, 9-12 red.
DEEP_BLUE: Final = (hex_rgb("#2f45b5"), hex_rgb("#ffffff"))
LIGHT_BLUE: Final = (hex_rgb("#7fd4f7"), hex_rgb("#0a2236"))
GREEN: Final = (hex_rgb("#5cc34f"), hex_rgb("#0b240a"))
YELLOW: Final = (hex_rgb("#f8d33a"), hex_rgb("#2b2100"))
RED: Final = (hex_rgb("#e5413b"), hex_rgb("#ffffff"))
BANDS: Final = (DEEP_BLUE, LIGHT_BLUE, GREEN, YELLOW, RED)
# Card backs: a quiet violet, far enough from the deep blue of -2 and -1 not to be taken for one.
BACK: Final = hex_rgb("#4e3c86")
BACK_LINE: Final = hex_rgb("#5a4894")
BACK_EDGE: Final = hex_rgb("#2c2050")
BACK_MARK: Final = hex_rgb("#8a74cf")
BLACK: Final = (0, 0, 0)
WHITE: Final = (255, 255, 255)


def band(value: int) -> tuple[RGB, RGB]:
    """The (fill, digit) colours of a card value."""
    if value < 0:
        return DEEP_BLUE
    if value == 0:
        return LIGHT_BLUE
    if value <= 4:
        return GREEN
    if value <= 8:
        return YELLOW
    return RED


def card_label(value: int) -> str:
    """The printed value; a true minus sign reads better than a hyphen at a glance."""
    return f"−{-value}" if value < 0 else str(value)


# --------------------------------------------------------------------------------------------------
# Tiles, drawn once in RGB (supersampled for smooth edges), then kept in each theme's palette


def _card_back(draw: ImageDraw.ImageDraw, big: Image.Image, w: int, h: int, s: int) -> None:
    draw.rounded_rectangle((0, 0, w * s - 1, h * s - 1), CARD_RADIUS * s, fill=BACK_EDGE)
    inner = (3 * s, 3 * s, (w - 3) * s - 1, (h - 3) * s - 1)
    draw.rounded_rectangle(inner, (CARD_RADIUS - 3) * s, fill=BACK)
    # A faint lattice, masked to the inside of the frame.
    lattice = Image.new("L", big.size, 0)
    lines = ImageDraw.Draw(lattice)
    step = 12 * s
    for k in range(-h * s, w * s + h * s, step):
        lines.line((k, 0, k + h * s, h * s), fill=255, width=s)
        lines.line((k, h * s, k + h * s, 0), fill=255, width=s)
    inside = Image.new("L", big.size, 0)
    ImageDraw.Draw(inside).rounded_rectangle(inner, (CARD_RADIUS - 3) * s, fill=255)
    big.paste(BACK_LINE, mask=ImageChops.darker(lattice, inside))
    # A diamond in the middle, the card's emblem.
    cx, cy = w * s / 2, h * s / 2
    for r, fill in ((17 * s, BACK_EDGE), (14 * s, BACK_MARK), (8 * s, BACK)):
        draw.polygon([(cx, cy - r * 1.3), (cx + r, cy), (cx, cy + r * 1.3), (cx - r, cy)], fill=fill)


@lru_cache(maxsize=256)
def card_rgb(cell: int | str, background: RGB) -> Image.Image:
    """One card (a value, ``"down"`` for its back, ``"gone"`` for a cleared place) on ``background``.

    Only ``background`` depends on the theme: a card looks the same everywhere.
    """
    w, h = CARD_W, CARD_H
    big, draw, s = supersampled((w, h), background)
    box = (0, 0, w * s - 1, h * s - 1)
    if cell == GONE:
        dark = is_dark(background)
        slot = mix(background, BLACK, 0.25 if dark else 0.05)
        edge = mix(background, WHITE, 0.14) if dark else mix(background, BLACK, 0.16)
        draw.rounded_rectangle(box, CARD_RADIUS * s, fill=slot, outline=edge, width=2 * s)
    elif cell == HIDDEN:
        _card_back(draw, big, w, h, s)
    elif isinstance(cell, int) and not isinstance(cell, bool):
        fill, ink = band(cell)
        edge = mix(fill, BLACK, 0.45)
        draw.rounded_rectangle(box, CARD_RADIUS * s, fill=edge)
        inner = (2 * s, 2 * s, (w - 2) * s - 1, (h - 2) * s - 1)
        draw.rounded_rectangle(inner, (CARD_RADIUS - 2) * s, fill=fill)
        # The oval in the middle of a real Skyjo card, a shade lighter.
        draw.ellipse((9 * s, 14 * s, (w - 9) * s, (h - 14) * s), fill=mix(fill, WHITE, 0.28))
        text = card_label(cell)
        light_ink = ink == WHITE
        size = CARD_DIGIT  # two glyphs ("12", "−2") a little smaller, to stay inside the oval
        while size > 20 and text_width(text, size) > w - 22:
            size -= 1
        draw.text(
            (w * s // 2, h * s // 2 + s),
            text,
            font=font(size * s),
            fill=ink,
            anchor="mm",
            stroke_width=s if light_ink else 0,
            stroke_fill=edge,
        )
        # Corner indices, the bottom one upside down as on a real card.
        corner = font(CARD_CORNER * s)
        draw.text((6 * s, 4 * s), text, font=corner, fill=ink, anchor="la")
        big = big.rotate(180)
        ImageDraw.Draw(big).text((6 * s, 4 * s), text, font=corner, fill=ink, anchor="la")
        big = big.rotate(180)
    else:
        raise ValueError(f"not a Skyjo cell: {cell!r}")
    return big.reduce(s)


def pill_rgb(text: str, size: int, colour: RGB, fill: RGB, background: RGB) -> Image.Image:
    """A number in a rounded pill: totals, the draw pile's size."""
    w = text_width(text, size) + size
    h = round(size * 1.45)
    pill = rounded_box((w, h), h // 2, fill, background)
    ImageDraw.Draw(pill).text((w // 2, h // 2 + 1), text, font=font(size), fill=colour, anchor="mm")
    return pill


def frame_rgb(colour: RGB, background: RGB) -> Image.Image:
    """The accent frame drawn round the drawn card."""
    return rounded_box((CARD_W + 8, CARD_H + 8), CARD_RADIUS + 3, colour, background)


def icon_rgb(kind: str, colour: RGB, background: RGB, height: int) -> Image.Image:
    """Small language-free marks: ``turn`` (a triangle), ``flag`` (the finisher), ``crown`` (winners)."""
    w = height if kind != "turn" else round(height * 0.8)
    big, draw, s = supersampled((w, height), background)
    W, H = w * s, height * s
    if kind == "turn":
        draw.polygon([(0, H * 0.1), (W, H / 2), (0, H * 0.9)], fill=colour)
    elif kind == "flag":
        draw.rectangle((W * 0.06, H * 0.04, W * 0.17, H), fill=colour)
        x0, x1, y0, y1 = W * 0.17, W * 0.97, H * 0.04, H * 0.6
        cw, ch = (x1 - x0) / 4, (y1 - y0) / 3
        for i in range(4):
            for j in range(3):
                if (i + j) % 2 == 0:
                    draw.rectangle(
                        (x0 + i * cw, y0 + j * ch, x0 + (i + 1) * cw, y0 + (j + 1) * ch), fill=colour
                    )
        draw.rectangle((x0, y0, x1, y1), outline=colour, width=s)
    elif kind == "crown":
        draw.polygon(
            [
                (W * 0.04, H * 0.25),
                (W * 0.3, H * 0.52),
                (W * 0.5, H * 0.08),
                (W * 0.7, H * 0.52),
                (W * 0.96, H * 0.25),
                (W * 0.84, H * 0.88),
                (W * 0.16, H * 0.88),
            ],
            fill=colour,
        )
    else:
        raise ValueError(f"unknown icon {kind!r}")
    return big.reduce(s)


CELLS: Final[tuple[int | str, ...]] = (*range(-2, 13), HIDDEN, GONE)
SAMPLE_TEXT: Final = "Round 0123456789 Σ×+−… AaBbCcDdGgJjMmWwÉé"


def _swatch(theme: Theme) -> Image.Image:
    """One of every tile ``theme`` draws, to build its palette from."""
    tiles: list[Image.Image] = []
    for bg in (theme.panel, theme.background):
        tiles.extend(card_rgb(cell, bg) for cell in CELLS)
    tiles.append(card_rgb(-2, theme.accent))
    tiles.append(card_rgb(12, theme.accent))
    tiles.append(frame_rgb(theme.accent, theme.background))
    tiles.append(panel_rgb((90, 60), theme, True))
    tiles.append(panel_rgb((90, 60), theme, False))
    tiles.append(pill_rgb("-0123456789", NAME_SIZE, theme.panel, theme.text, theme.panel))
    tiles.append(pill_rgb("0123456789", SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK))
    for kind in ("turn", "flag", "crown"):
        tiles.append(icon_rgb(kind, theme.accent_ink, theme.panel, 22))
        tiles.append(icon_rgb(kind, theme.text, theme.panel, 22))
    for bg in (theme.panel, theme.background):
        for ink in (theme.text, theme.muted, theme.accent_ink, theme.bad):
            tiles.append(text_tile(SAMPLE_TEXT, NAME_SIZE, ink, bg))
    width = max(t.width for t in tiles)
    swatch = Image.new("RGB", (width, sum(t.height for t in tiles)), theme.background)
    y = 0
    for part in tiles:
        swatch.paste(part, (0, y))
        y += part.height
    return swatch


@lru_cache(maxsize=len(THEMES))
def palette_of(theme: Theme) -> Palette:
    """The theme's 256 colours: its flat colours exactly, and the shades its tiles need."""
    exact = [
        theme.background,
        theme.panel,
        theme.panel_edge,
        theme.text,
        theme.muted,
        theme.accent,
        theme.accent_ink,
        theme.bad,
        BACK,
        BACK_LINE,
        BACK_EDGE,
        BACK_MARK,
        WHITE,
    ]
    for fill, ink in BANDS:
        exact.extend((fill, ink, mix(fill, WHITE, 0.28), mix(fill, BLACK, 0.45)))
    return Palette(_swatch(theme), exact)


@lru_cache(maxsize=1024)
def tile(theme: Theme, maker: Callable[..., Image.Image], *args: Any) -> Image.Image:
    """``maker(*args)`` converted to the theme's palette, drawn once."""
    return palette_of(theme).convert(maker(*args))


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
    """Panels side by side: two for 2 and 4 players, three otherwise (a phone screen is narrow)."""
    return 2 if players in (1, 2, 4) else 3


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
    canvas.paste(tile(theme, panel_rgb, size, theme, highlighted or winner), origin)
    bg = theme.panel

    # Header: [mark] name, under it the cards showing or the round score ........ (total)
    cy = y0 + PANEL_PAD + PANEL_HEADER // 2 - 4
    x = x0 + PANEL_PAD + 2
    right = x0 + pw - PANEL_PAD
    total_text = labels["total"].format(total=table.totals[seat])
    total = tile(theme, pill_rgb, total_text, SMALL_SIZE + 1, theme.panel, theme.text, bg)
    right -= total.width
    canvas.paste(total, (right, cy - total.height // 2))
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
        marks.append(tile(theme, icon_rgb, "turn", theme.accent_ink, bg, 20))
    if table.finisher == seat:
        marks.append(tile(theme, icon_rgb, "flag", theme.text, bg, 20))
    for mark in marks:
        canvas.paste(mark, (x, cy - 8 - mark.height // 2))
        x += mark.width + 6
    ink = theme.accent_ink if highlighted or winner else theme.text
    # Under the name, in words: a computer's level, then the cards showing or the round's score.
    name, level = table.headers[seat]
    below = f"{level} · {note}" if level else note
    width = max(10, right - x)
    paste_name(canvas, palette, (x, cy), (name, below), (NAME_SIZE - 2, SMALL_SIZE), width, (ink, colour), bg)

    # The grid, column by column (pos = col * rows + row), centred in the panel.
    gw, _ = _grid_size(table.columns, table.rows)
    gx = x0 + (pw - gw) // 2
    gy = y0 + PANEL_PAD + PANEL_HEADER
    rows = table.rows
    for pos, cell in enumerate(grid):
        col, row = divmod(pos, rows)
        xy = (gx + col * (CARD_W + CARD_GAP), gy + row * (CARD_H + CARD_GAP))
        canvas.paste(tile(theme, card_rgb, cell, bg), xy)


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
    under = tile(theme, card_rgb, HIDDEN, bg)
    for k in range(depth, 0, -1):
        canvas.paste(under, (x + k * STACK_STEP, y - k * STACK_STEP))
    if framed:
        canvas.paste(tile(theme, frame_rgb, theme.accent, bg), (x - 4, y - 4))
    canvas.paste(tile(theme, card_rgb, top, theme.accent if framed else bg), (x, y))
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


STRIP_GAP: Final = 26
STRIP_SLOT: Final = CARD_W + 2 * STACK_STEP + STRIP_GAP  # one pile and the space after it
STRIP_TEXT_W: Final = 230


def _strip_height() -> int:
    return MARGIN + 2 * STACK_STEP + CARD_H + 8 + SMALL_SIZE + 8


def _strip_width(table: _Table) -> int:
    piles = 3 if table.drawn is not None else 2
    return 2 * MARGIN + STRIP_TEXT_W + piles * STRIP_SLOT - STRIP_GAP


def _phase_lines(table: _Table, labels: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """(text, size, colour role) of the status text at the top left."""
    lines: list[tuple[str, int, str]] = []
    if table.phase == "game_over":
        lines.append((labels["game_over"], TITLE_SIZE, "text"))
        lines.append((labels["round"].format(round=table.round), SMALL_SIZE, "muted"))
    elif table.phase == "round_over":
        lines.append((labels["round_over"].format(round=table.round), TITLE_SIZE, "text"))
    else:
        lines.append((labels["round"].format(round=table.round), SMALL_SIZE, "muted"))
        if table.phase == "reveal":
            lines.append((labels["reveal"].format(count=table.initial_reveals), SMALL_SIZE + 2, "text"))
        elif table.turn is not None:
            lines.append((labels["turn"].format(name=table.names[table.turn]), TITLE_SIZE, "accent"))
        if table.finisher is not None and table.phase == "play":
            lines.append((labels["last_turns"], SMALL_SIZE + 2, "bad"))
    return lines


def _draw_strip(canvas: Image.Image, table: _Table, theme: Theme, labels: Mapping[str, str]) -> None:
    """The top of the table: the round and whose turn it is, then the draw pile, discard and drawn card."""
    palette = palette_of(theme)
    bg = theme.background
    # The piles keep to the right; the status text has the rest, wrapped on two lines if need be.
    piles = 3 if table.drawn is not None else 2
    x = max(MARGIN + STRIP_TEXT_W, canvas.width - MARGIN - piles * STRIP_SLOT + STRIP_GAP)
    colours = {"text": theme.text, "muted": theme.muted, "accent": theme.accent_ink, "bad": theme.bad}
    lines = [
        (line, size, role)
        for text, size, role in _phase_lines(table, labels)
        for line in wrap_text(text, size, x - MARGIN - 20)
    ]
    heights = [round(size * 1.3) for _, size, _ in lines]
    y = MARGIN + 2 * STACK_STEP + (CARD_H - sum(heights)) // 2
    for (text, size, role), h in zip(lines, heights, strict=True):
        paste_text(canvas, palette, (MARGIN, y + h // 2), text, size, colours[role], bg, anchor="lm")
        y += h

    y = MARGIN + 2 * STACK_STEP
    size = table.draw_pile_size
    if size:
        _draw_card(canvas, (x, y), HIDDEN, theme, labels["draw"], depth=min(2, size - 1))
        # The draw pile's size, in a pill on its top card.
        pill = tile(theme, pill_rgb, str(size), SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK)
        canvas.paste(pill, (x + (CARD_W - pill.width) // 2, y + CARD_H - pill.height - 6))
    else:
        _draw_card(canvas, (x, y), GONE, theme, labels["draw"])
    x += STRIP_SLOT
    _draw_card(canvas, (x, y), _or_gone(table.discard_top), theme, labels["discard"])
    if table.drawn is not None:
        _draw_card(canvas, (x + STRIP_SLOT, y), table.drawn, theme, labels["drawn"], framed=True)


def _or_gone(card: int | None) -> int | str:
    """A card, or an empty place when there is none."""
    return GONE if card is None else card


def _labels(labels: Mapping[str, str] | None) -> Mapping[str, str]:
    return {**DEFAULT_LABELS, **labels} if labels else DEFAULT_LABELS


def _layout(table: _Table) -> tuple[tuple[int, int], list[tuple[int, int]], tuple[int, int]]:
    """(image size, each panel's top-left corner, panel size) of a table."""
    players = len(table.names)
    per_row = panels_per_row(players)
    pw, ph = _panel_size(table.columns, table.rows)
    panel_rows = -(-players // per_row)
    top = _strip_height()
    width = max(2 * MARGIN + per_row * pw + (per_row - 1) * PANEL_GAP, _strip_width(table))
    height = top + panel_rows * ph + (panel_rows - 1) * PANEL_GAP + MARGIN
    origins = []
    # Centre the panels when the strip is the wider of the two, and centre a short last row.
    for seat in range(players):
        row, col = divmod(seat, per_row)
        in_row = min(per_row, players - row * per_row)
        row_w = in_row * pw + (in_row - 1) * PANEL_GAP
        origins.append(((width - row_w) // 2 + col * (pw + PANEL_GAP), top + row * (ph + PANEL_GAP)))
    return (width, height), origins, (pw, ph)


def panel_boxes(view: Mapping[str, Any]) -> list[tuple[int, int, int, int]]:
    """Each seat's panel in :func:`render_table`'s image, as (left, top, right, bottom) pixels."""
    _, origins, (pw, ph) = _layout(_read(view, None, DEFAULT_LABELS))
    return [(x, y, x + pw, y + ph) for x, y in origins]


def table_image(
    view: Mapping[str, Any],
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
) -> Image.Image:
    """The spectator's table as a palette image (see :func:`render_table`)."""
    t = theme_named(theme)
    words = _labels(labels)
    table = _read(view, names, words)
    size, origins, panel = _layout(table)
    canvas = palette_of(t).canvas(size, t.background)
    _draw_strip(canvas, table, t, words)
    for seat, origin in enumerate(origins):
        _draw_panel(canvas, origin, panel, table, seat, t, words)
    return canvas


def render_table(
    view: Mapping[str, Any],
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """A PNG of the whole table as a spectator sees it: every grid, names and totals, the draw pile
    and its size, the discard top, the drawn card, and the player whose turn it is highlighted.

    ``view`` is a :meth:`Game.view` dict (any viewer: in Skyjo they all see the same table);
    ``names`` are the display names by seat (default: the view's players); ``theme`` is ``"dark"``
    or ``"light"``; ``labels`` overrides the few words drawn (see ``DEFAULT_LABELS``), for i18n.
    """
    return encode_png(table_image(view, names, theme, labels))


def grid_image(
    view: Mapping[str, Any],
    seat: int,
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
) -> Image.Image:
    """One player's panel with the discard top and, on their turn, the card they drew."""
    t = theme_named(theme)
    words = _labels(labels)
    table = _read(view, names, words)
    if not 0 <= seat < len(table.names):
        raise ValueError(f"no seat {seat} at a table of {len(table.names)}")
    pw, ph = _panel_size(table.columns, table.rows)
    side = STRIP_SLOT + 8
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
) -> bytes:
    """A PNG of ``seat``'s own grid for their private panel, with the discard top and their drawn
    card. Face-down cards are backs here too: the view never holds their values (GAME-INFO-1)."""
    return encode_png(grid_image(view, seat, names, theme, labels))
