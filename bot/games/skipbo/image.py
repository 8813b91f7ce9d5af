"""Skip-Bo table images: the building piles, every stock and discard pile, hand sizes and whose turn
it is, drawn from a view only (SB-INFO-1, GAME-INFO-1).

The renderer reads nothing but the JSON view of :meth:`bot.games.skipbo.engine.Game.view`. A spectator's
table (:func:`render_table`) uses only what is public: stock sizes and tops, discard piles, building
piles, hand sizes, the draw pile's size. It never looks at ``hand``, even in a seat's view, so a
hidden card cannot reach it. :func:`render_hand` draws one seat's private panel from that seat's own
view and refuses any other. Card faces, backs and text are drawn once and cached
(:mod:`bot.render.images`); an image is a hundred-odd pastes of those tiles and a fast PNG encoding.

Cards follow the colours of the real deck: 1-4 blue, 5-8 green, 9-12 red, the Skip-Bo (wild) card
orange. A Skip-Bo card on a building pile carries a badge with the value it stands for there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from PIL import Image, ImageDraw

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
    swatch,
    text_tile,
    text_width,
    theme_named,
    wrap_text,
)

WILD: Final = 0
TOP_VALUE: Final = 12
BUILDING_PILES: Final = 4
DISCARD_PILES: Final = 4
BACK: Final = "back"
EMPTY: Final = "empty"

# Sizes in pixels. A table of 4 is about 800 px wide: Discord on a phone shows it at full width,
# where a card's digit is still readable at a glance.
CARD_W: Final = 60
CARD_H: Final = 84
CARD_RADIUS: Final = 8
CARD_FRAME: Final = 5  # the coloured frame round a number card's white face
CARD_DIGIT: Final = 36
CARD_CORNER: Final = 12
FAN_STEP: Final = 21  # what shows of each card under a discard pile's top: its corner index
FAN_CARDS: Final = 3  # cards shown of a discard pile, the top one whole
STACK_STEP: Final = 3  # offset of the card backs peeking out under a stock or the draw pile
PILE_GAP: Final = 8
STOCK_GAP: Final = 22
PANEL_PAD: Final = 12
PANEL_HEADER: Final = 38
PANEL_GAP: Final = 14
MARGIN: Final = 16
NAME_SIZE: Final = 20
SMALL_SIZE: Final = 15
TITLE_SIZE: Final = 24
MINI_W: Final = 17  # the little card backs counting a hand
MINI_H: Final = 24
MINI_STEP: Final = 8
PER_ROW: Final = 2  # panels side by side (a phone screen is narrow)

DEFAULT_LABELS: Final[Mapping[str, str]] = {
    "round": "Round {round}",
    "turn": "{name} to play",
    "round_over": "Round {round} over",
    "game_over": "Game over",
    "won": "{names} won",
    "stalled": "Nobody can play: a draw",
    "draw": "Draw",
    "building": "Building piles",
    "stock": "Stock",
    "hand": "Hand",
    "team": "Team {team}",
    "and": "{first} and {second}",
    **SEAT_LABELS,  # a panel header's numbers, a computer player's name
}


# The deck's colour bands: (frame, digit). 1-4 blue, 5-8 green, 9-12 red; Skip-Bo cards orange.
BLUE: Final = (hex_rgb("#1f6fd1"), hex_rgb("#134a96"))
GREEN: Final = (hex_rgb("#22a04b"), hex_rgb("#116b2d"))
RED: Final = (hex_rgb("#e0305f"), hex_rgb("#a8123f"))
ORANGE: Final = (hex_rgb("#ff8a1c"), hex_rgb("#8a3c00"))
BANDS: Final = (BLUE, GREEN, RED, ORANGE)
FACE: Final = hex_rgb("#fbfaf5")  # the white face of a number card
# Card backs: a deep navy with an orange mark, darker than any face so a back never reads as a card.
BACK_FILL: Final = hex_rgb("#1d2a5e")
BACK_EDGE: Final = hex_rgb("#0e1536")
BACK_MARK: Final = hex_rgb("#ff8a1c")
# Teams (SB-VAR-TEAM-1): a pill of the team's colour on each partner's panel.
TEAM_COLOURS: Final = (hex_rgb("#4cc3f0"), hex_rgb("#f07cc0"), hex_rgb("#9bd84a"))
TEAM_INK: Final = hex_rgb("#10131a")
BLACK: Final = (0, 0, 0)
WHITE: Final = (255, 255, 255)


def band(value: int) -> tuple[RGB, RGB]:
    """The (frame, digit) colours of a card: 1-4 blue, 5-8 green, 9-12 red, a Skip-Bo card orange."""
    if value == WILD:
        return ORANGE
    if value <= 4:
        return BLUE
    if value <= 8:
        return GREEN
    return RED


# --------------------------------------------------------------------------------------------------
# Tiles, drawn once in RGB (supersampled for smooth edges), then kept in each theme's palette


def _fitting(text: str, size: int, width: int) -> int:
    while size > 10 and text_width(text, size) > width:
        size -= 1
    return size


def _corners(big: Image.Image, text: str, ink: RGB, s: int, inset: int) -> Image.Image:
    """Corner indices, the bottom one upside down as on a real card."""
    corner = font(CARD_CORNER * s)
    ImageDraw.Draw(big).text((inset * s, (inset - 2) * s), text, font=corner, fill=ink, anchor="la")
    big = big.rotate(180)
    ImageDraw.Draw(big).text((inset * s, (inset - 2) * s), text, font=corner, fill=ink, anchor="la")
    return big.rotate(180)


@lru_cache(maxsize=256)
def card_rgb(card: int | str, background: RGB, stands_for: int = 0) -> Image.Image:
    """One card on ``background``: a value 1..12, ``WILD`` (0) for a Skip-Bo card, ``"back"`` or
    ``"empty"`` (a free place). A Skip-Bo card ``stands_for`` a value on a building pile: a badge
    shows it. Only ``background`` depends on the theme: a card looks the same everywhere."""
    w, h = CARD_W, CARD_H
    big, draw, s = supersampled((w, h), background)
    box = (0, 0, w * s - 1, h * s - 1)
    r = CARD_RADIUS * s
    if card == EMPTY:
        dark = is_dark(background)
        slot = mix(background, BLACK, 0.25 if dark else 0.05)
        edge = mix(background, WHITE, 0.14) if dark else mix(background, BLACK, 0.16)
        draw.rounded_rectangle(box, r, fill=slot, outline=edge, width=2 * s)
    elif card == BACK:
        draw.rounded_rectangle(box, r, fill=BACK_EDGE)
        inner = (3 * s, 3 * s, (w - 3) * s - 1, (h - 3) * s - 1)
        draw.rounded_rectangle(inner, r - 3 * s, fill=BACK_FILL)
        cx, cy = w * s / 2, (h / 2 - 7) * s  # above the pill of the draw pile's size
        draw.ellipse((cx - 21 * s, cy - 13 * s, cx + 21 * s, cy + 13 * s), fill=BACK_MARK)
        draw.ellipse((cx - 18 * s, cy - 10 * s, cx + 18 * s, cy + 10 * s), fill=BACK_EDGE)
        draw.text((cx, cy + s), "SB", font=font(15 * s), fill=BACK_MARK, anchor="mm")
    elif card == WILD:
        fill, ink = ORANGE
        draw.rounded_rectangle(box, r, fill=ink)
        inner = (2 * s, 2 * s, (w - 2) * s - 1, (h - 2) * s - 1)
        draw.rounded_rectangle(inner, r - 2 * s, fill=fill)
        draw.ellipse((8 * s, 16 * s, (w - 8) * s, (h - 16) * s), fill=mix(fill, WHITE, 0.25))
        cy = h * s // 2 + s if not stands_for else 25 * s
        size = _fitting("SB", 27 if not stands_for else 24, w - 18)
        draw.text(
            (w * s // 2, cy),
            "SB",
            font=font(size * s),
            fill=WHITE,
            anchor="mm",
            stroke_width=s,
            stroke_fill=ink,
        )
        if not stands_for:
            big = _corners(big, "SB", ink, s, 5)
        else:
            # The value it stands for, in that value's colours, in a disc low on the card (no bottom
            # corner index: the disc is what the eye reads).
            vfill, _ = band(stands_for)
            cx, cy, rad = w * s / 2, 57 * s, 18 * s
            draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=WHITE)
            rad -= 2 * s
            draw.ellipse((cx - rad, cy - rad, cx + rad, cy + rad), fill=vfill)
            text = str(stands_for)
            draw.text((cx, cy + s), text, font=font(_fitting(text, 21, 28) * s), fill=WHITE, anchor="mm")
    elif isinstance(card, int) and not isinstance(card, bool) and 1 <= card <= TOP_VALUE:
        fill, ink = band(card)
        draw.rounded_rectangle(box, r, fill=mix(fill, BLACK, 0.3))
        draw.rounded_rectangle((s, s, (w - 1) * s - 1, (h - 1) * s - 1), r - s, fill=fill)
        f = CARD_FRAME
        face = (f * s, f * s, (w - f) * s - 1, (h - f) * s - 1)
        draw.rounded_rectangle(face, r - 3 * s, fill=FACE)
        text = str(card)
        size = _fitting(text, CARD_DIGIT, w - 2 * f - 8)
        draw.text((w * s // 2, h * s // 2 + 2 * s), text, font=font(size * s), fill=ink, anchor="mm")
        big = _corners(big, text, ink, s, f + 3)
    else:
        raise ValueError(f"not a Skip-Bo card: {card!r}")
    return big.reduce(s)


def mini_hand_rgb(count: int, background: RGB) -> Image.Image:
    """``count`` little card backs fanned, then the count: the size of a hand without its cards."""
    shown = max(1, min(count, 5))
    backs_w = MINI_W + (shown - 1) * MINI_STEP
    text = str(count)
    w = backs_w + 4 + text_width(text, SMALL_SIZE + 1)
    big, draw, s = supersampled((w, MINI_H), background)
    dark = is_dark(background)
    rim = mix(BACK_FILL, WHITE, 0.55) if dark else BACK_EDGE
    if count == 0:
        edge = mix(background, WHITE, 0.3) if dark else mix(background, BLACK, 0.3)
        box = (s, s, MINI_W * s - 1, MINI_H * s - 1)
        draw.rounded_rectangle(box, 3 * s, outline=edge, width=s)
    for k in range(min(count, 5)):
        x = k * MINI_STEP * s
        draw.rounded_rectangle((x, 0, x + MINI_W * s - 1, MINI_H * s - 1), 3 * s, fill=rim)
        inner = (x + s, s, x + (MINI_W - 1) * s - 1, (MINI_H - 1) * s - 1)
        draw.rounded_rectangle(inner, 3 * s, fill=BACK_FILL)
        if k == min(count, 5) - 1:  # the mark of the deck's backs, on the top card only
            cx, cy = x + MINI_W * s / 2, MINI_H * s / 2
            draw.ellipse((cx - 4 * s, cy - 6 * s, cx + 4 * s, cy + 6 * s), outline=BACK_MARK, width=s)
    ink = WHITE if dark else BLACK
    ink = mix(ink, background, 0.25)
    draw.text(
        ((backs_w + 4) * s, MINI_H * s // 2 + s), text, font=font((SMALL_SIZE + 1) * s), fill=ink, anchor="lm"
    )
    return big.reduce(s)


def pill_rgb(text: str, size: int, colour: RGB, fill: RGB, background: RGB) -> Image.Image:
    """Text in a rounded pill: totals, pile sizes, team names."""
    w = text_width(text, size) + size
    h = round(size * 1.45)
    pill = rounded_box((w, h), h // 2, fill, background)
    ImageDraw.Draw(pill).text((w // 2, h // 2 + 1), text, font=font(size), fill=colour, anchor="mm")
    return pill


def icon_rgb(kind: str, colour: RGB, background: RGB, height: int) -> Image.Image:
    """Small language-free marks: ``turn`` (a triangle), ``crown`` (winners)."""
    w = height if kind != "turn" else round(height * 0.8)
    big, draw, s = supersampled((w, height), background)
    W, H = w * s, height * s
    if kind == "turn":
        draw.polygon([(0, H * 0.1), (W, H / 2), (0, H * 0.9)], fill=colour)
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


CARDS: Final[tuple[int | str, ...]] = (*range(0, TOP_VALUE + 1), BACK, EMPTY)
SAMPLE_TEXT: Final = "Round 0123456789 ×+−… AaBbCcDdGgJjMmWwÉé"


def _swatch(theme: Theme) -> Image.Image:
    """One of every tile ``theme`` draws, to build its palette from."""
    tiles: list[Image.Image] = []
    for bg in (theme.panel, theme.background):
        tiles.extend(card_rgb(card, bg) for card in CARDS)
        tiles.extend(card_rgb(WILD, bg, v) for v in (1, 5, 12))
        tiles.append(mini_hand_rgb(5, bg))
    tiles.append(panel_rgb((90, 60), theme, True))
    tiles.append(panel_rgb((90, 60), theme, False))
    tiles.append(pill_rgb("0123456789", NAME_SIZE, theme.panel, theme.text, theme.panel))
    tiles.append(pill_rgb("0123456789", SMALL_SIZE, theme.text, theme.panel_edge, theme.panel))
    tiles.append(pill_rgb("0123456789", SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK_FILL))
    for colour in TEAM_COLOURS:
        tiles.append(pill_rgb("Team 123", SMALL_SIZE, TEAM_INK, colour, theme.panel))
    for kind in ("turn", "crown"):
        tiles.append(icon_rgb(kind, theme.accent_ink, theme.panel, 22))
    for bg in (theme.panel, theme.background):
        for ink in (theme.text, theme.muted, theme.accent_ink, theme.bad):
            tiles.append(text_tile(SAMPLE_TEXT, NAME_SIZE, ink, bg))
    return swatch(tiles, theme.background)


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
        FACE,
        BACK_FILL,
        BACK_EDGE,
        BACK_MARK,
        TEAM_INK,
        WHITE,
        *TEAM_COLOURS,
    ]
    for fill, ink in BANDS:
        exact.extend((fill, ink, mix(fill, BLACK, 0.3)))
    exact.append(mix(ORANGE[0], WHITE, 0.25))
    return Palette(_swatch(theme), exact)


@lru_cache(maxsize=1024)
def tile(theme: Theme, maker: Callable[..., Image.Image], *args: Any) -> Image.Image:
    """``maker(*args)`` converted to the theme's palette, drawn once."""
    return palette_of(theme).convert(maker(*args))


# --------------------------------------------------------------------------------------------------
# Reading the view


def _card(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not WILD <= value <= TOP_VALUE:
        raise ValueError(f"not a Skip-Bo card in {what}: {value!r}")
    return value


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a count in {what}: {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class _Table:
    """What the renderer needs from a view, checked once. Nothing hidden: no hand."""

    names: list[str]  # on one line, for sentences
    headers: list[tuple[str, str]]  # a panel's name and second line (a computer's level)
    hand_sizes: list[int]
    stock_sizes: list[int]
    stock_tops: list[int | None]
    discards: list[list[list[int]]]  # per seat, 4 piles, bottom -> top
    building_values: list[int]  # value reached per slot, 0 = free
    building_tops: list[int | None]  # the card on top: a value or WILD
    draw_pile_size: int
    turn: int | None
    phase: str
    round: int
    several_rounds: bool
    totals: list[int]
    round_scores: list[int] | None  # the last round's scores, once it is over (several rounds)
    round_winners: list[int]  # the last round's winners, once it is over
    stalled: bool
    winners: list[int]
    teams: list[int] | None


def _read(view: Mapping[str, Any], names: Sequence[str] | None, labels: Mapping[str, str]) -> _Table:
    players = list(view["players"])
    n = len(players)
    given = names if names is not None else players
    headers = [picture_name(name, labels) for name in given]
    headers = [(first or f"#{seat + 1}", second) for seat, (first, second) in enumerate(headers)]
    shown = [one_line_name(name, labels) or f"#{seat + 1}" for seat, name in enumerate(given)]
    if len(shown) != n:
        raise ValueError(f"{len(shown)} names for {n} players")

    def per_seat(key: str) -> list[Any]:
        values = list(view[key])
        if len(values) != n:
            raise ValueError(f"{key}: {len(values)} values for {n} players")
        return values

    hand_sizes = [_count(c, "hand_sizes") for c in per_seat("hand_sizes")]
    stock_sizes = [_count(c, "stock_sizes") for c in per_seat("stock_sizes")]
    stock_tops = [None if c is None else _card(c, "stock_tops") for c in per_seat("stock_tops")]
    for size, top in zip(stock_sizes, stock_tops, strict=True):
        if (size == 0) != (top is None):
            raise ValueError("a stock's top and size disagree")
    discards: list[list[list[int]]] = []
    for piles in per_seat("discard_piles"):
        if len(piles) != DISCARD_PILES:
            raise ValueError(f"{len(piles)} discard piles, not {DISCARD_PILES}")
        discards.append([[_card(c, "discard_piles") for c in pile] for pile in piles])
    values = [_count(v, "building_piles") for v in view["building_piles"]]
    tops = [None if c is None else _card(c, "building_tops") for c in view["building_tops"]]
    if len(values) != BUILDING_PILES or len(tops) != BUILDING_PILES:
        raise ValueError(f"not {BUILDING_PILES} building piles")
    for value, top in zip(values, tops, strict=True):
        if value > TOP_VALUE or (value == 0) != (top is None) or top not in (None, WILD, value):
            raise ValueError(f"building pile at {value} with {top!r} on top")
    teams = view.get("teams")
    if teams is not None:
        teams = [_count(t, "teams") for t in teams]
        if len(teams) != n or n not in (4, 6) or sorted(teams) != sorted(list(range(n // 2)) * 2):
            raise ValueError(f"teams {teams!r} for {n} players")
    phase = str(view["phase"])
    rounds = view.get("rounds") or []
    last = rounds[-1] if phase in ("round_over", "game_over") and rounds else None
    options = view.get("options") or {}
    turn = view.get("turn")
    if turn is not None and not (isinstance(turn, int) and 0 <= turn < n):
        raise ValueError(f"no seat {turn!r} to play")
    return _Table(
        names=shown,
        headers=headers,
        hand_sizes=hand_sizes,
        stock_sizes=stock_sizes,
        stock_tops=stock_tops,
        discards=discards,
        building_values=values,
        building_tops=tops,
        draw_pile_size=_count(view["draw_pile_size"], "draw_pile_size"),
        turn=turn,
        phase=phase,
        round=int(view["round"]),
        several_rounds=bool(options.get("several_rounds", False)),
        totals=[int(t) for t in per_seat("totals")],
        round_scores=[int(s) for s in last["scores"]] if last else None,
        round_winners=[int(s) for s in last["winners"]] if last else [],
        stalled=bool(last["stalled"]) if last else False,
        winners=[int(s) for s in view.get("winners") or []],
        teams=teams,
    )


# --------------------------------------------------------------------------------------------------
# Layout and drawing


def _fan_height() -> int:
    return (FAN_CARDS - 1) * FAN_STEP + CARD_H


def _stock_w() -> int:
    return CARD_W + 2 * STACK_STEP


def panel_size() -> tuple[int, int]:
    """Every player's panel is this size: the stock, then the four discard piles, under a header."""
    width = 2 * PANEL_PAD + _stock_w() + STOCK_GAP + DISCARD_PILES * CARD_W + (DISCARD_PILES - 1) * PILE_GAP
    height = PANEL_PAD + PANEL_HEADER + 2 * STACK_STEP + _fan_height() + 24 + PANEL_PAD // 2
    return width, height


def _highlighted(table: _Table, seat: int) -> bool:
    return table.phase == "play" and table.turn == seat


def _crowned(table: _Table, seat: int) -> bool:
    return seat in table.winners or (table.phase == "round_over" and seat in table.round_winners)


def _stacked(
    canvas: Image.Image, theme: Theme, xy: tuple[int, int], top: int | str, depth: int, bg: RGB
) -> None:
    """A pile of ``depth`` backs peeking out up and right under the ``top`` card."""
    x, y = xy
    under = tile(theme, card_rgb, BACK, bg)
    for k in range(depth, 0, -1):
        canvas.paste(under, (x + k * STACK_STEP, y - k * STACK_STEP))
    canvas.paste(tile(theme, card_rgb, top, bg), (x, y))


def _pill_on(canvas: Image.Image, theme: Theme, x: int, y: int, text: str) -> None:
    """A size in a dark pill, centred on the card at ``x`` with its bottom at ``y``."""
    pill = tile(theme, pill_rgb, text, SMALL_SIZE + 2, WHITE, BACK_EDGE, BACK_FILL)
    canvas.paste(pill, (x + (CARD_W - pill.width) // 2, y - pill.height))


def _draw_panel(
    canvas: Image.Image,
    origin: tuple[int, int],
    table: _Table,
    seat: int,
    theme: Theme,
    labels: Mapping[str, str],
) -> None:
    x0, y0 = origin
    pw, ph = panel_size()
    palette = palette_of(theme)
    highlighted = _highlighted(table, seat)
    crowned = _crowned(table, seat)
    canvas.paste(tile(theme, panel_rgb, (pw, ph), theme, highlighted or crowned), origin)
    bg = theme.panel

    # Header: [mark] name .... [team] [hand as card backs] [total]
    cy = y0 + PANEL_PAD + PANEL_HEADER // 2 - 5
    x = x0 + PANEL_PAD + 2
    right = x0 + pw - PANEL_PAD
    notes: list[str] = []  # under the name: a computer's level, the last round's score
    if table.headers[seat][1]:
        notes.append(table.headers[seat][1])
    if table.several_rounds:
        total_text = labels["total"].format(total=table.totals[seat])
        total = tile(theme, pill_rgb, total_text, SMALL_SIZE + 1, theme.panel, theme.text, bg)
        right -= total.width
        canvas.paste(total, (right, cy - total.height // 2))
        if table.round_scores is not None:
            notes.append(labels["round_score"].format(score=f"+{table.round_scores[seat]}"))
        right -= 10
    hand = tile(theme, mini_hand_rgb, table.hand_sizes[seat], bg)
    right -= hand.width
    canvas.paste(hand, (right, cy - hand.height // 2))
    right -= 12
    if table.teams is not None:
        team = table.teams[seat]
        text = labels["team"].format(team=team + 1)
        pill = tile(theme, pill_rgb, text, SMALL_SIZE - 1, TEAM_INK, TEAM_COLOURS[team % 3], bg)
        right -= pill.width
        canvas.paste(pill, (right, cy - pill.height // 2))
        right -= 10
    mark = None
    if crowned:
        mark = tile(theme, icon_rgb, "crown", theme.accent_ink, bg, 22)
    elif highlighted:
        mark = tile(theme, icon_rgb, "turn", theme.accent_ink, bg, 20)
    ink = theme.accent_ink if highlighted or crowned else theme.text
    lines = (table.headers[seat][0], " · ".join(notes))
    if mark is not None:
        canvas.paste(mark, (x, cy - (8 if lines[1] else 0) - mark.height // 2))
        x += mark.width + 6
    width = max(10, right - x)
    if lines[1]:
        paste_name(
            canvas, palette, (x, cy), lines, (NAME_SIZE - 2, SMALL_SIZE), width, (ink, theme.muted), bg
        )
    else:  # one line, as tall as the panel's header
        paste_name(
            canvas, palette, (x, cy + 8), lines, (NAME_SIZE, SMALL_SIZE), width, (ink, theme.muted), bg
        )

    # The stock: its top card face up on the cards under it, its size in a pill below.
    top_y = y0 + PANEL_PAD + PANEL_HEADER + 2 * STACK_STEP
    sx = x0 + PANEL_PAD
    size = table.stock_sizes[seat]
    stock_top = table.stock_tops[seat]
    _stacked(
        canvas, theme, (sx, top_y), EMPTY if stock_top is None else stock_top, min(2, max(0, size - 1)), bg
    )
    pill = tile(theme, pill_rgb, str(size), SMALL_SIZE + 1, theme.text, theme.panel_edge, bg)
    py = top_y + CARD_H + 6
    canvas.paste(pill, (sx + (CARD_W - pill.width) // 2, py))
    paste_text(
        canvas,
        palette,
        (sx + CARD_W // 2, py + pill.height + 2),
        labels["stock"],
        SMALL_SIZE - 1,
        theme.muted,
        bg,
        anchor="mt",
    )

    # The discard piles: up to three top cards fanned downwards (their corner indices show), the
    # pile's size under it when it holds more than one card.
    dx = sx + _stock_w() + STOCK_GAP
    caption_y = top_y + _fan_height() + 12
    for pile in table.discards[seat]:
        if not pile:
            canvas.paste(tile(theme, card_rgb, EMPTY, bg), (dx, top_y))
        else:
            for k, card in enumerate(pile[-FAN_CARDS:]):
                canvas.paste(tile(theme, card_rgb, card, bg), (dx, top_y + k * FAN_STEP))
        if len(pile) > 1:
            paste_text(
                canvas,
                palette,
                (dx + CARD_W // 2, caption_y),
                f"×{len(pile)}",
                SMALL_SIZE,
                theme.muted,
                bg,
                "mm",
            )
        dx += CARD_W + PILE_GAP


def _building_width() -> int:
    return BUILDING_PILES * CARD_W + (BUILDING_PILES - 1) * PILE_GAP


def _centre_width() -> int:
    """The draw pile and the building piles side by side."""
    return _stock_w() + STOCK_GAP + _building_width()


def _centre_height() -> int:
    return 2 * STACK_STEP + CARD_H + 8 + SMALL_SIZE + 6


def _draw_centre(
    canvas: Image.Image, xy: tuple[int, int], table: _Table, theme: Theme, labels: Mapping[str, str]
) -> None:
    """The draw pile (backs and its size) and the four building piles, with captions under them."""
    palette = palette_of(theme)
    bg = theme.background
    x, y = xy
    y += 2 * STACK_STEP
    caption_y = y + CARD_H + 8 + SMALL_SIZE // 2
    size = table.draw_pile_size
    if size:
        _stacked(canvas, theme, (x, y), BACK, min(2, size - 1), bg)
        _pill_on(canvas, theme, x, y + CARD_H - 6, str(size))
    else:
        canvas.paste(tile(theme, card_rgb, EMPTY, bg), (x, y))
    paste_text(
        canvas, palette, (x + CARD_W // 2, caption_y), labels["draw"], SMALL_SIZE, theme.muted, bg, "mm"
    )
    x += _stock_w() + STOCK_GAP
    for value, top in zip(table.building_values, table.building_tops, strict=True):
        if top is None:
            card = tile(theme, card_rgb, EMPTY, bg)
        elif top == WILD:
            card = tile(theme, card_rgb, WILD, bg, value)
        else:
            card = tile(theme, card_rgb, top, bg)
        canvas.paste(card, (x, y))
        x += CARD_W + PILE_GAP
    middle = xy[0] + _stock_w() + STOCK_GAP + _building_width() // 2
    paste_text(canvas, palette, (middle, caption_y), labels["building"], SMALL_SIZE, theme.muted, bg, "mm")


def _joined(names: Sequence[str], labels: Mapping[str, str]) -> str:
    if len(names) == 1:
        return names[0]
    return labels["and"].format(first=", ".join(names[:-1]), second=names[-1])


def _phase_lines(table: _Table, labels: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """(text, size, colour role) of the status text at the top left."""
    lines: list[tuple[str, int, str]] = []
    winners = table.winners if table.phase == "game_over" else table.round_winners
    if table.phase in ("game_over", "round_over"):
        title = labels["game_over"] if table.phase == "game_over" else labels["round_over"]
        lines.append((title.format(round=table.round), TITLE_SIZE, "text"))
        if table.stalled:
            lines.append((labels["stalled"], SMALL_SIZE + 2, "bad"))
        elif winners:
            names = _joined([table.names[s] for s in winners], labels)
            lines.append((labels["won"].format(names=names), SMALL_SIZE + 2, "accent"))
        if table.several_rounds and table.phase == "game_over":
            lines.append((labels["round"].format(round=table.round), SMALL_SIZE, "muted"))
    else:
        if table.several_rounds:
            lines.append((labels["round"].format(round=table.round), SMALL_SIZE, "muted"))
        if table.turn is not None:
            lines.append((labels["turn"].format(name=table.names[table.turn]), TITLE_SIZE, "accent"))
    return lines


def _draw_status(
    canvas: Image.Image, table: _Table, theme: Theme, labels: Mapping[str, str], width: int
) -> None:
    palette = palette_of(theme)
    colours = {"text": theme.text, "muted": theme.muted, "accent": theme.accent_ink, "bad": theme.bad}
    lines = [
        (line, size, role)
        for text, size, role in _phase_lines(table, labels)
        for line in wrap_text(text, size, width)
    ]
    heights = [round(size * 1.3) for _, size, _ in lines]
    y = MARGIN + 2 * STACK_STEP + (CARD_H - sum(heights)) // 2
    for (text, size, role), h in zip(lines, heights, strict=True):
        paste_text(canvas, palette, (MARGIN, y + h // 2), text, size, colours[role], theme.background, "lm")
        y += h


def _labels(labels: Mapping[str, str] | None) -> Mapping[str, str]:
    return {**DEFAULT_LABELS, **labels} if labels else DEFAULT_LABELS


STATUS_MIN_W: Final = 200


def _order(table: _Table) -> list[int]:
    """The seats in panel order: seat order, or team by team (partners side by side) with teams."""
    seats = list(range(len(table.names)))
    if table.teams is None:
        return seats
    teams = table.teams
    return sorted(seats, key=lambda s: (teams[s], s))


def _layout(table: _Table) -> tuple[tuple[int, int], dict[int, tuple[int, int]]]:
    """(image size, each seat's panel top-left corner) of a table."""
    players = len(table.names)
    pw, ph = panel_size()
    rows = -(-players // PER_ROW)
    top = MARGIN + _centre_height() + 4
    width = max(
        2 * MARGIN + PER_ROW * pw + (PER_ROW - 1) * PANEL_GAP,
        2 * MARGIN + STATUS_MIN_W + _centre_width(),
    )
    height = top + rows * ph + (rows - 1) * PANEL_GAP + MARGIN
    origins: dict[int, tuple[int, int]] = {}
    for k, seat in enumerate(_order(table)):
        row, col = divmod(k, PER_ROW)
        in_row = min(PER_ROW, players - row * PER_ROW)
        row_w = in_row * pw + (in_row - 1) * PANEL_GAP
        origins[seat] = ((width - row_w) // 2 + col * (pw + PANEL_GAP), top + row * (ph + PANEL_GAP))
    return (width, height), origins


def panel_boxes(view: Mapping[str, Any]) -> list[tuple[int, int, int, int]]:
    """Each seat's panel in :func:`render_table`'s image, as (left, top, right, bottom) pixels."""
    _, origins = _layout(_read(view, None, DEFAULT_LABELS))
    pw, ph = panel_size()
    return [(x, y, x + pw, y + ph) for x, y in (origins[s] for s in sorted(origins))]


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
    size, origins = _layout(table)
    canvas = palette_of(t).canvas(size, t.background)
    centre_x = size[0] - MARGIN - _centre_width()
    _draw_status(canvas, table, t, words, centre_x - MARGIN - 16)
    _draw_centre(canvas, (centre_x, MARGIN), table, t, words)
    for seat, origin in origins.items():
        _draw_panel(canvas, origin, table, seat, t, words)
    return canvas


def render_table(
    view: Mapping[str, Any],
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """A PNG of the whole table as a spectator sees it: the draw pile's size and the building piles,
    then a panel per player (stock top and size, the four discard piles fanned, the hand's size as
    card backs, the team and the totals with several rounds), the player to act highlighted.

    ``view`` is a :meth:`Game.view` dict of any viewer (a hand in it is never read); ``names`` are the
    display names by seat (default: the view's players); ``theme`` is ``"dark"`` or ``"light"``;
    ``labels`` overrides the few words drawn (see ``DEFAULT_LABELS``), for i18n.
    """
    return encode_png(table_image(view, names, theme, labels))


HAND_GAP: Final = 10


def hand_image(
    view: Mapping[str, Any],
    seat: int,
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
) -> Image.Image:
    """``seat``'s private image as a palette image (see :func:`render_hand`)."""
    t = theme_named(theme)
    words = _labels(labels)
    table = _read(view, names, words)
    if not (isinstance(seat, int) and 0 <= seat < len(table.names)):
        raise ValueError(f"no seat {seat!r} at a table of {len(table.names)}")
    hand = view.get("hand")
    if view.get("viewer") != seat or not isinstance(hand, list):
        raise ValueError(f"not seat {seat}'s own view: its hand is not in it")
    cards = sorted(_card(c, "hand") for c in hand)
    if len(cards) != table.hand_sizes[seat]:
        raise ValueError("the hand and its size disagree")
    palette = palette_of(t)
    bg = t.background
    pw, ph = panel_size()
    slots = max(5, len(cards))
    hand_w = slots * CARD_W + (slots - 1) * HAND_GAP
    width = 2 * MARGIN + max(pw, hand_w, _centre_width())
    label_h = SMALL_SIZE + 10
    hand_top = MARGIN + _centre_height() + 6
    panel_top = hand_top + label_h + CARD_H + 14
    partner = view.get("partner")
    if table.teams is not None and isinstance(partner, int) and 0 <= partner < len(table.names):
        seats = [seat, partner]  # SB-VAR-TEAM-1: the partner's stock and discards are playable too
    else:
        seats = [seat]
    height = panel_top + len(seats) * (ph + PANEL_GAP) - PANEL_GAP + MARGIN
    canvas = palette.canvas((width, height), bg)
    _draw_centre(canvas, ((width - _centre_width()) // 2, MARGIN), table, t, words)
    x = (width - hand_w) // 2
    paste_text(canvas, palette, (x, hand_top), words["hand"], SMALL_SIZE, t.muted, bg)
    y = hand_top + label_h
    for k in range(slots):
        card = tile(t, card_rgb, cards[k] if k < len(cards) else EMPTY, bg)
        canvas.paste(card, (x + k * (CARD_W + HAND_GAP), y))
    for k, shown in enumerate(seats):
        _draw_panel(canvas, ((width - pw) // 2, panel_top + k * (ph + PANEL_GAP)), table, shown, t, words)
    return canvas


def render_hand(
    view: Mapping[str, Any],
    seat: int,
    names: Sequence[str] | None = None,
    theme: str = "dark",
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """A PNG for ``seat``'s private panel: the draw pile and building piles, the seat's hand face up,
    then its own panel (stock top and size, its discard piles) and in a team game its partner's,
    whose cards it may play too. ``view`` must be that seat's own view (``Game.view(seat)``): any
    other is refused, so no one else's hand can be drawn."""
    return encode_png(hand_image(view, seat, names, theme, labels))
