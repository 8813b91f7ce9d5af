"""The table in words (issue 28 item 7, bot/ui/in_words.py): the whole public table as text for
players who turn images and embeds off, in English and French, never a face-down value or another
player's hand, and within a Discord message even for the largest tables."""

from __future__ import annotations

import re

import pytest

from bench.render import mid_game, skipbo_mid_game
from bot.games.skipbo.engine import Options as SkipboOptions
from bot.games.skyjo.engine import Options as SkyjoOptions
from bot.i18n import translate as t
from bot.ui.display import with_words
from bot.ui.in_words import ELLIPSIS, MESSAGE_LIMIT, table_words

LOCALES = ("en-US", "fr")
# Discord display names are at most 32 characters; markdown in one is escaped, which lengthens it.
LONG_NAMES = [f"*Player_{k}*" + "w" * 21 for k in range(8)]
PANEL_ROOM = 1500  # what a panel leaves for the words: its own lines take a few hundred characters


def grid_cells(line: str) -> list[str]:
    """The cells of a words line ``  1: 3 ? -2 · 2: …``, column by column."""
    return [cell for part in line.strip().split(" · ") for cell in part.split(": ", 1)[1].split(" ")]


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("grid", [(5, 3), (4, 4)])
def test_the_largest_skyjo_table_fits_a_panel_in_full(locale: str, grid: tuple[int, int]) -> None:
    columns, rows = grid
    game = mid_game(8, seed=2, turns=40, options=SkyjoOptions(columns=columns, rows=rows))
    words = table_words("skyjo", game.view(0), LONG_NAMES, locale, PANEL_ROOM)
    assert words is not None
    print(f"8-player Skyjo, {columns}x{rows}, {locale}: {len(words)} characters")
    assert len(words) <= PANEL_ROOM
    assert t("display.words.skyjo.legend", locale) in words  # in full: not the brief form
    assert ELLIPSIS not in words
    for name in LONG_NAMES:
        assert name.replace("*", "\\*").replace("_", "\\_") in words  # escaped, as message text


@pytest.mark.parametrize("locale", LOCALES)
def test_skyjo_words_show_every_grid_and_no_face_down_value(locale: str) -> None:
    game = mid_game(4, seed=106, turns=24, round_number=2)
    names = ["Alice", "Bob", "Chloé", "Dan"]
    words = table_words("skyjo", game.view(1), names, locale)
    assert words is not None
    lines = words.splitlines()
    assert lines[0] == t("display.words.title", locale, table=t("skyjo.table.header", locale, round=2))
    grids = [line for line in lines if re.match(r"^  1: ", line)]
    assert len(grids) == 4
    hidden = 0
    for seat, line in enumerate(grids):
        cells = grid_cells(line)
        assert len(cells) == len(game.grids[seat])
        for pos, cell in enumerate(cells):
            value = game.grids[seat][pos]
            if value is None:
                assert cell == "—"
            elif game.face_up[seat][pos]:
                assert cell == str(value)
            else:
                assert cell == "?"
                hidden += 1
    assert hidden > 0
    # Whose turn it is, the discard's top and the draw pile's size, and each total.
    turn = game.turn
    assert any(line.startswith(f"▶ **{names[turn]}**") for line in lines)
    view = game.view(1)
    assert f"{view['draw_pile_size']}" in lines[2] and str(view["discard_pile"][-1]) in lines[2]
    # The same table for every viewer (Skyjo hides nothing from one player that it shows another).
    assert table_words("skyjo", game.view(None), names, locale) == words


@pytest.mark.parametrize("locale", LOCALES)
def test_skipbo_words_hold_the_own_hand_and_only_it(locale: str) -> None:
    options = SkipboOptions(teams=True, several_rounds=True, stock_size=20)
    game = skipbo_mid_game(4, seed=16, turns=16, options=options, round_number=2, plays=2)
    names = ["Alice", "Bob", "Chloé", "Dan"]
    seat = game.turn
    words = table_words("skipbo", game.view(seat), names, locale)
    spectator = table_words("skipbo", game.view(None), names, locale)
    assert words is not None and spectator is not None
    wild = t("skipbo.card.wild", locale)
    hand = ", ".join(wild if c == 0 else str(c) for c in sorted(game.hands[seat]))
    assert words.splitlines()[-1] == t("display.words.skipbo.hand", locale, cards=hand)
    # The spectator's words are the same table without any hand.
    assert words.splitlines()[:-1] == spectator.splitlines()
    players = [line for line in words.splitlines()[1:] if line.startswith(("**", "▶ **"))]
    assert len(players) == 4
    view = game.view(None)
    for other, line in enumerate(players):
        assert f"({t('display.words.skipbo.team', locale, team=view['teams'][other] + 1)})" in line
        assert f"({view['stock_sizes'][other]} " in line  # the stock's top and size
        assert line.endswith(t("display.words.skipbo.total", locale, total=view["totals"][other]))
        assert f" {view['hand_sizes'][other]} " in line  # the hand's size only
    # Every building pile, a Skip-Bo card on one said as the value it stands for.
    assert t("display.words.skipbo.wild_as", locale, value=11) in words


def test_skipbo_six_players_fit_and_a_too_small_room_is_cut_at_a_line() -> None:
    options = SkipboOptions(teams=True, several_rounds=True, stock_size=20)
    game = skipbo_mid_game(6, seed=12, turns=42, options=options, round_number=2, plays=2)
    full = table_words("skipbo", game.view(0), LONG_NAMES[:6], "fr", PANEL_ROOM)
    assert full is not None and len(full) <= PANEL_ROOM and ELLIPSIS not in full.splitlines()
    # Less room: first the brief form (no legend, only the discard piles' tops), then a cut.
    brief = table_words("skipbo", game.view(0), LONG_NAMES[:6], "fr", len(full) - 1)
    assert brief is not None and len(brief) < len(full)
    assert t("display.words.skipbo.legend", "fr") not in brief
    cut = table_words("skipbo", game.view(0), LONG_NAMES[:6], "fr", 300)
    assert cut is not None and len(cut) <= 300 and cut.endswith("\n" + ELLIPSIS)
    assert full.startswith(cut.removesuffix(ELLIPSIS).split("\n")[0])


def test_a_game_without_words_and_the_panel_limit() -> None:
    assert table_words("highcard", {}, [], "en-US") is None
    game = mid_game(8, seed=2, turns=40, options=SkyjoOptions(columns=4, rows=4))
    # However long the panel's own text, the whole message stays within Discord's limit.
    for size in (10, 900, 1900, 1999, 2000):
        content = "x" * size
        message = with_words(content, "skyjo", game.view(0), LONG_NAMES, "en-US")
        assert message.startswith(content) and len(message) <= MESSAGE_LIMIT
    assert with_words("panel", "highcard", {}, [], "en-US") == "panel"
