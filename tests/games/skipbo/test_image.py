"""Skip-Bo table images: golden images with a tolerance, no hidden card (SB-INFO-1, GAME-INFO-1),
2 to 6 players and teams, layout and themes.

Golden cases are stored as the view they render (``golden/skipbo_NAME.json``) and the expected image
(``golden/skipbo_NAME.png``), so an engine change does not move them. To regenerate them after a
deliberate change of the drawing, run ``UPDATE_GOLDEN=1 .venv/bin/pytest tests/games/skipbo/test_image.py``
and look at the PNGs.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from bench.render import NAMES, skipbo_mid_game
from bot.games.skipbo import cards as skipbo_cards
from bot.games.skipbo import image as skipbo_image
from bot.games.skipbo.engine import WILD, Options, State
from bot.games.skipbo.image import render_hand, render_table
from bot.render.images import SEAT_DOT
from bot.render.seats import seat_rgb

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
# A pixel is wrong when a channel is off by more than this (font hinting and resampling may move a
# shade or two between Pillow or FreeType versions); an image fails with more wrong pixels than that.
CHANNEL_TOLERANCE = 48
MAX_BAD_PIXELS = 40

View = dict[str, Any]


def bad_pixels(a: Image.Image, b: Image.Image) -> int:
    """How many pixels differ by more than the tolerance on some channel (the sizes must match)."""
    assert a.size == b.size, f"size {a.size} != {b.size}"
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    r, g, bl = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), bl)
    return worst.point(lambda v: 255 if v > CHANNEL_TOLERANCE else 0).histogram()[255]


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image


def copy(view: View) -> View:
    result: View = json.loads(json.dumps(view))
    return result


# ------------------------------------------------------------------------------------------------
# Golden cases: name -> (the view, a render function of the view)

TEAMS = Options(teams=True, several_rounds=True, stock_size=20)


def _teams_4() -> State:
    """Round 2 of a team game of 4 with totals, a Skip-Bo card standing for 11 on a building pile,
    two plays into a turn."""
    return skipbo_mid_game(4, seed=16, turns=16, options=TEAMS, round_number=2, plays=2)


def _teams_6() -> State:
    return skipbo_mid_game(6, seed=12, turns=42, options=TEAMS, round_number=2, plays=2)


def _two() -> State:
    return skipbo_mid_game(2, seed=11, turns=14, plays=1)


def _own(game: State, seat: int | None = None) -> View:
    return game.view(game.turn if seat is None else seat)


LONG_NAME = "A very long player name that cannot fit"
CASES: dict[str, tuple[Callable[[], View], Callable[[View], bytes]]] = {
    "skipbo_2p_dark": (lambda: _two().view(None), lambda v: render_table(v, ["Zoé", LONG_NAME])),
    "skipbo_4p_teams_dark": (lambda: _teams_4().view(None), lambda v: render_table(v, NAMES[:4])),
    "skipbo_4p_teams_light": (
        lambda: _teams_4().view(None),
        lambda v: render_table(v, NAMES[:4], theme="light"),
    ),
    "skipbo_5p_light": (
        lambda: skipbo_mid_game(5, seed=5, turns=25).view(None),
        lambda v: render_table(v, NAMES[:5], theme="light"),
    ),
    "skipbo_6p_teams_dark": (lambda: _teams_6().view(None), lambda v: render_table(v, NAMES[:6])),
    "skipbo_3p_round_over_dark": (
        lambda: skipbo_mid_game(
            3, seed=2, turns=400, options=Options(several_rounds=True, stock_size=8)
        ).view(None),
        lambda v: render_table(v),
    ),
    "skipbo_2p_game_over_light": (
        lambda: skipbo_mid_game(2, seed=1, turns=400).view(None),
        lambda v: render_table(v, NAMES[:2], theme="light"),
    ),
    "skipbo_hand_4p_teams_dark": (
        lambda: _own(_teams_4()),
        lambda v: render_hand(v, v["viewer"], NAMES[:4]),
    ),
    "skipbo_hand_2p_light": (
        lambda: _own(_two(), 0),
        lambda v: render_hand(v, 0, ["Zoé", LONG_NAME], theme="light"),
    ),
}


def stored_view(name: str) -> View:
    if UPDATE:
        view = CASES[name][0]()
        (GOLDEN / f"{name}.json").write_text(json.dumps(view, sort_keys=True) + "\n")
        return view
    result: View = json.loads((GOLDEN / f"{name}.json").read_text())
    return result


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_image(name: str) -> None:
    """Each case renders like its stored golden image, within the tolerance."""
    view = stored_view(name)
    image = decode(CASES[name][1](view))
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        image.save(path, optimize=True)  # smaller in the repository; compared by pixels anyway
    golden = Image.open(path)
    assert bad_pixels(image, golden) <= MAX_BAD_PIXELS, f"{name} differs from {path}"


def test_golden_cases_match_their_description() -> None:
    """The stored views are what their names say: player counts, teams, phases."""
    expect = {
        "skipbo_2p_dark": (2, False, "play"),
        "skipbo_4p_teams_dark": (4, True, "play"),
        "skipbo_5p_light": (5, False, "play"),
        "skipbo_6p_teams_dark": (6, True, "play"),
        "skipbo_3p_round_over_dark": (3, False, "round_over"),
        "skipbo_2p_game_over_light": (2, False, "game_over"),
        "skipbo_hand_4p_teams_dark": (4, True, "play"),
    }
    for name, (players, teams, phase) in expect.items():
        view = stored_view(name)
        assert (len(view["players"]), view["teams"] is not None, view["phase"]) == (players, teams, phase)
    four = stored_view("skipbo_4p_teams_dark")
    assert WILD in four["building_tops"] and four["options"]["several_rounds"] and max(four["totals"]) > 0
    assert any(len(pile) >= 3 for piles in four["discard_piles"] for pile in piles)
    assert stored_view("skipbo_2p_game_over_light")["winners"]
    hand = stored_view("skipbo_hand_4p_teams_dark")
    assert hand["viewer"] == hand["turn"] and hand["hand"]


def test_tolerance_forgives_a_few_stray_pixels() -> None:
    golden = Image.open(GOLDEN / "skipbo_4p_teams_dark.png").convert("RGB")
    noisy = golden.copy()
    rng = random.Random(1)
    for _ in range(10):
        xy = (rng.randrange(noisy.width), rng.randrange(noisy.height))
        r, g, b = noisy.getpixel(xy)  # type: ignore[misc]
        noisy.putpixel(xy, (255 - r, 255 - g, 255 - b))
    assert 0 < bad_pixels(noisy, golden) <= MAX_BAD_PIXELS


IN_BAND = (1, 2, 3, 5, 6, 7, 9, 10, 11)  # one more is still in the same colour band


def _discard_top(view: View, values: tuple[int, ...]) -> tuple[int, int]:
    """A seat and discard pile whose top is in ``values``."""
    for seat, piles in enumerate(view["discard_piles"]):
        for i, pile in enumerate(piles):
            if pile and pile[-1] in values:
                return seat, i
    raise AssertionError(f"no discard top in {values}")


def _wrong_discard_top(view: View) -> None:
    seat, i = _discard_top(view, IN_BAND)  # the same colour, only the digits change
    view["discard_piles"][seat][i][-1] += 1


def _wrong_stock_top(view: View) -> None:
    seat = next(s for s, top in enumerate(view["stock_tops"]) if top in IN_BAND)
    view["stock_tops"][seat] += 1


def _wrong_wild_value(view: View) -> None:
    """The Skip-Bo card on a building pile standing for one more."""
    slot = view["building_tops"].index(WILD)
    view["building_piles"][slot] += 1 if view["building_piles"][slot] < 12 else -1


def _wrong_building_card(view: View) -> None:
    """A number card on a building pile where a Skip-Bo card stands for the same value."""
    slot = view["building_tops"].index(WILD)
    view["building_tops"][slot] = view["building_piles"][slot]


def _wrong_hand_size(view: View) -> None:
    seat = next(s for s, n in enumerate(view["hand_sizes"]) if n < 5)
    view["hand_sizes"][seat] += 1


def _wrong_stock_size(view: View) -> None:
    view["stock_sizes"][0] += 1


@pytest.mark.parametrize(
    "change",
    [
        _wrong_discard_top,
        _wrong_stock_top,
        _wrong_wild_value,
        _wrong_building_card,
        _wrong_hand_size,
        _wrong_stock_size,
    ],
)
def test_one_wrong_card_fails_the_comparison(change: Callable[[View], None]) -> None:
    """A single card off by one (even within its colour band, only its digits changing), a Skip-Bo
    card standing for another value, or a count off by one, fails against the golden image."""
    view = stored_view("skipbo_4p_teams_dark")
    golden = Image.open(GOLDEN / "skipbo_4p_teams_dark.png")
    wrong = copy(view)
    change(wrong)
    assert bad_pixels(decode(render_table(wrong, NAMES[:4])), golden) > MAX_BAD_PIXELS


def test_a_wrong_hand_card_fails_the_comparison() -> None:
    view = stored_view("skipbo_hand_4p_teams_dark")
    golden = Image.open(GOLDEN / "skipbo_hand_4p_teams_dark.png")
    wrong = copy(view)
    k = next(k for k, c in enumerate(wrong["hand"]) if c in IN_BAND)
    wrong["hand"][k] += 1
    wrong["hand"].sort()
    assert bad_pixels(decode(render_hand(wrong, wrong["viewer"], NAMES[:4])), golden) > MAX_BAD_PIXELS


# ------------------------------------------------------------------------------------------------
# SB-INFO-1 / GAME-INFO-1


def _hidden_shuffled(game: State, seed: int, keep_hand: int | None = None) -> State:
    """The same game with its hidden cards dealt differently: the hands (but ``keep_hand``'s), the
    draw pile's order and the stock cards under each top, every pile keeping its size."""
    other = State.from_dict(game.to_dict())
    places: list[tuple[list[int], int]] = []
    for seat, hand in enumerate(other.hands):
        if seat != keep_hand:
            places.extend((hand, k) for k in range(len(hand)))
    places.extend((other.draw_pile, k) for k in range(len(other.draw_pile)))
    for stock in other.stocks:
        places.extend((stock, k) for k in range(len(stock) - 1))  # the top stays: it is face up
    values = [pile[k] for pile, k in places]
    rng = random.Random(seed)
    while True:
        rng.shuffle(values)
        if any(pile[k] != v for (pile, k), v in zip(places, values, strict=True)):
            break
    for (pile, k), v in zip(places, values, strict=True):
        pile[k] = v
    return other


GAMES = {
    2: lambda: skipbo_mid_game(2, seed=21, turns=12, plays=2),
    4: lambda: skipbo_mid_game(4, seed=22, turns=14, options=TEAMS, plays=1),
    6: lambda: skipbo_mid_game(6, seed=23, turns=20, options=TEAMS, plays=1),
}


@pytest.mark.parametrize("players", sorted(GAMES))
def test_game_info_1_hidden_cards_never_change_the_table(players: int) -> None:
    """GAME-INFO-1: two states that differ only in hidden cards (hands, the draw pile's order, the
    stocks under their tops) render to the same bytes, whoever's view the table is drawn from."""
    game = GAMES[players]()
    other = _hidden_shuffled(game, seed=players)
    assert other.hands != game.hands and other.draw_pile != game.draw_pile
    assert [s[:-1] for s in other.stocks] != [s[:-1] for s in game.stocks]
    spectator = render_table(game.view(None))
    assert render_table(other.view(None)) == spectator
    for seat in range(players):
        # A seat's view holds its hand: the table never reads it.
        assert render_table(game.view(seat)) == spectator
        assert render_table(other.view(seat)) == spectator


@pytest.mark.parametrize("players", sorted(GAMES))
def test_game_info_1_a_private_hand_shows_only_that_hand(players: int) -> None:
    """A seat's private image changes with its own hand only, not with anyone else's hidden cards."""
    game = GAMES[players]()
    for seat in range(players):
        other = _hidden_shuffled(game, seed=seat, keep_hand=seat)
        assert render_hand(game.view(seat), seat) == render_hand(other.view(seat), seat)


def test_a_private_hand_needs_that_seat_s_own_view() -> None:
    game = GAMES[4]()
    with pytest.raises(ValueError, match="own view"):
        render_hand(game.view(None), 0)
    with pytest.raises(ValueError, match="own view"):
        render_hand(game.view(1), 0)
    with pytest.raises(ValueError, match="seat"):
        render_hand(game.view(0), 4)


def test_game_info_1_the_renderer_refuses_engine_state() -> None:
    """The full state (``to_dict``, with hidden cards) is not a view and is refused."""
    state = GAMES[2]().to_dict()
    with pytest.raises((ValueError, KeyError)):
        render_table(state)
    with pytest.raises((ValueError, KeyError)):
        render_hand(state, 0)


# ------------------------------------------------------------------------------------------------
# Layout, themes, cards


def _rgb(image: Image.Image, xy: tuple[int, int]) -> tuple[int, int, int]:
    pixel = image.convert("RGB").getpixel(xy)
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_player_to_act_is_highlighted(theme: str) -> None:
    """The panel of the seat to play has a border in that seat's colour (bot.render.seats: the table
    message's accent), and every seat's tag before its name is its colour."""
    view = stored_view("skipbo_4p_teams_dark")
    image = decode(render_table(view, theme=theme)).convert("RGB")
    for seat, (left, top, right, _) in enumerate(skipbo_image.panel_boxes(view)):
        edge = _rgb(image, ((left + right) // 2, top + 2))
        near = max(abs(a - b) for a, b in zip(edge, seat_rgb(seat), strict=True)) <= 8
        assert near == (seat == view["turn"]), seat
        # The tag: a disc before the name, its middle column over the header in the seat's colour.
        x = left + skipbo_cards.PANEL_PAD + 2 + SEAT_DOT // 2
        column = [_rgb(image, (x, y)) for y in range(top + 4, top + 52)]
        assert column.count(seat_rgb(seat)) >= 10, seat


@pytest.mark.parametrize(
    ("players", "teams", "rows"), [(2, False, 1), (3, False, 2), (4, True, 2), (5, False, 3), (6, True, 3)]
)
def test_panels_are_laid_out_two_a_row(players: int, teams: bool, rows: int) -> None:
    options = Options(teams=teams)
    view = skipbo_mid_game(players, seed=players, turns=players, options=options).view(None)
    boxes = skipbo_image.panel_boxes(view)
    image = decode(render_table(view))
    assert len({top for _, top, _, _ in boxes}) == rows
    for left, top, right, bottom in boxes:
        assert 0 <= left < right <= image.width and 0 <= top < bottom <= image.height
    for a, b in itertools.combinations(boxes, 2):  # no two panels overlap
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert image.width <= 820  # two panels wide, whatever the number of players


@pytest.mark.parametrize("players", [4, 6])
def test_partners_sit_side_by_side(players: int) -> None:
    """SB-VAR-TEAM-1: partners sit apart at the table but share a row of the image, team by team."""
    view = skipbo_mid_game(players, seed=3, turns=players, options=TEAMS).view(None)
    boxes = skipbo_image.panel_boxes(view)
    half = players // 2
    for seat in range(half):
        partner = seat + half
        assert view["teams"][seat] == view["teams"][partner]
        assert boxes[seat][1] == boxes[partner][1] and boxes[seat][0] < boxes[partner][0]
    assert sorted({box[1] for box in boxes}) == sorted(boxes[s][1] for s in range(half))


def test_teams_and_totals_are_drawn_only_when_played() -> None:
    game = skipbo_mid_game(4, seed=3, turns=4)
    view = game.view(None)
    teams = copy(view)
    teams["teams"] = [0, 1, 0, 1]
    rounds = copy(view)
    rounds["options"]["several_rounds"] = True
    plain = render_table(view)
    assert render_table(teams) != plain and render_table(rounds) != plain
    changed = copy(view)
    changed["totals"] = [5, 10, 5, 10]  # not drawn in a single round
    assert render_table(changed) == plain


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_theme_background(theme: str) -> None:
    image = decode(render_table(stored_view("skipbo_4p_teams_dark"), theme=theme))
    assert _rgb(image, (2, 2)) == skipbo_cards.THEMES[theme].background


def test_dark_and_light_differ() -> None:
    view = stored_view("skipbo_4p_teams_dark")
    assert bad_pixels(decode(render_table(view)), decode(render_table(view, theme="light"))) > 10_000


def test_card_colour_bands() -> None:
    """1-4 blue, 5-8 green, 9-12 red, Skip-Bo cards orange; the back is none of them."""
    expected = {
        "blue": (range(1, 5), skipbo_cards.BLUE[0]),
        "green": (range(5, 9), skipbo_cards.GREEN[0]),
        "red": (range(9, 13), skipbo_cards.RED[0]),
        "orange": (range(0, 1), skipbo_cards.ORANGE[0]),
    }
    theme = skipbo_cards.THEMES["dark"]
    fills = set()
    for values, colour in expected.values():
        for value in values:
            card = skipbo_image.tile(theme, skipbo_image.card_rgb, value, theme.panel)
            assert _rgb(card, (3, skipbo_image.CARD_H // 2)) == colour, value
        fills.add(colour)
    assert len(fills) == 4
    back = skipbo_image.tile(theme, skipbo_image.card_rgb, "back", theme.panel)
    assert _rgb(back, (3, skipbo_image.CARD_H // 2)) not in fills
    faces = {skipbo_image.card_rgb(v, theme.panel).tobytes() for v in range(13)}
    wilds = {skipbo_image.card_rgb(WILD, theme.panel, v).tobytes() for v in range(1, 13)}
    assert len(faces) == 13 and len(wilds) == 12 and not faces & wilds


def test_a_wild_card_on_a_building_pile_shows_its_value() -> None:
    view = stored_view("skipbo_4p_teams_dark")
    slot = view["building_tops"].index(WILD)
    as_number = copy(view)
    as_number["building_tops"][slot] = view["building_piles"][slot]
    assert render_table(as_number) != render_table(view)


def test_a_table_is_composed_from_cached_tiles() -> None:
    view = stored_view("skipbo_6p_teams_dark")
    render_table(view, NAMES[:6])
    before = skipbo_image.tile.cache_info().misses, skipbo_image.card_rgb.cache_info().misses
    render_table(view, NAMES[:6])
    assert (skipbo_image.tile.cache_info().misses, skipbo_image.card_rgb.cache_info().misses) == before


def test_png_is_a_small_palette_image() -> None:
    image = decode(render_table(stored_view("skipbo_4p_teams_dark"), NAMES[:4]))
    assert image.mode == "P"


def test_characters_the_font_lacks_are_left_out() -> None:
    view = stored_view("skipbo_4p_teams_dark")
    assert render_table(view, ["Alice 🎲", *NAMES[1:4]]) == render_table(view, NAMES[:4])
    assert render_table(view, ["🎲", *NAMES[1:4]]) == render_table(view, ["#1", *NAMES[1:4]])


def test_labels_can_be_translated() -> None:
    view = stored_view("skipbo_4p_teams_dark")
    french = {
        "draw": "Pioche",
        "building": "Piles de construction",
        "stock": "Talon",
        "team": "Équipe {team}",
        "turn": "À {name} de jouer",
    }
    assert render_table(view, labels=french) != render_table(view)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda v: v["discard_piles"][0][0].append(13), "not a Skip-Bo card"),
        (lambda v: v["discard_piles"][0].pop(), "discard piles"),
        (lambda v: v["stock_tops"].__setitem__(0, "7"), "not a Skip-Bo card"),
        (lambda v: v["building_piles"].__setitem__(0, 13), "building pile"),
        (lambda v: v["building_tops"].__setitem__(0, None), "building pile"),
        (lambda v: v["hand_sizes"].pop(), "hand_sizes"),
        (lambda v: v.__setitem__("players", v["players"][:3]), "names"),
        (lambda v: v.__setitem__("teams", [0, 0, 1, 1, 2]), "teams"),
    ],
)
def test_malformed_views_are_refused(change: Callable[[View], None], message: str) -> None:
    view = copy(stored_view("skipbo_4p_teams_dark"))
    change(view)
    with pytest.raises(ValueError, match=message):
        render_table(view, NAMES[:4])


def test_unknown_theme_is_refused() -> None:
    with pytest.raises(ValueError, match="theme"):
        render_table(stored_view("skipbo_4p_teams_dark"), theme="sepia")


def test_a_team_player_s_private_image_shows_the_partner_s_piles() -> None:
    """SB-VAR-TEAM-1: a player may play the partner's stock and discard tops, so their private image
    shows the partner's panel too (public cards only); without teams, only their own."""
    view = stored_view("skipbo_hand_4p_teams_dark")
    seat, partner = view["viewer"], view["partner"]
    changed = copy(view)
    changed["discard_piles"][partner][1].append(12)
    assert render_hand(changed, seat) != render_hand(view, seat)
    other = next(s for s in range(4) if s not in (seat, partner))
    changed = copy(view)
    changed["discard_piles"][other][1].append(12)
    assert render_hand(changed, seat) == render_hand(view, seat)
    alone = decode(render_hand(stored_view("skipbo_hand_2p_light"), 0))
    assert decode(render_hand(view, seat)).height > alone.height + skipbo_image.panel_size()[1]
