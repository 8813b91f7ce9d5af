"""Every word right and names as written (issue 22): articles, plurals, one line per move, aligned
grids, labelled numbers, computer players named in the message's language, "tu" in French, and
display names that never turn into markup. Each in English and French."""

from __future__ import annotations

import copy
import io
import json
import pickle
import random
import re
import unicodedata
from collections import deque
from types import SimpleNamespace
from typing import Any

import pytest

from bot.games.skipbo import image as skipbo_image
from bot.games.skipbo.message import describe_events as skipbo_describe
from bot.games.skipbo.message import table_body as skipbo_body
from bot.games.skipbo.panel import panel_hint as skipbo_hint
from bot.games.skyjo import engine as skyjo
from bot.games.skyjo import image as skyjo_image
from bot.games.skyjo.engine import Draw, Options, Replace
from bot.games.skyjo.message import recent_lines, table_body
from bot.games.skyjo.panel import panel_hint
from bot.games.skyjo.text import cell_text, describe_events, grid_lines
from bot.i18n import LANGUAGES, a_card, catalogue, catalogue_files, plural, plural_form, takes_an, template
from bot.render.images import one_line_name, picture_labels, picture_name
from bot.render.messages import lobby_body, phrased
from bot.render.names import ComputerName, code_name, computer_name, escape_name, shown_name
from bot.service import Table
from bot.storage import Seat
from tests.games.skipbo.helpers import new, rig
from tests.games.skyjo.helpers import playing_game, set_grid, stack_draw

# The catalogue files this piece owns (others' files are reviewed by their owners).
OWNED = ("core", "skyjo", "skipbo", "skipbo_table", "table", "words")  # file names, shared or a game's
LOCALES = ("en-US", "fr")
NAMES = ["Alice", "Bob", "Chloé"]


def _french(locale: str) -> bool:
    return locale.startswith("fr")


# ------------------------------------------------------------------------------------- articles


def test_an_goes_before_numbers_read_with_a_vowel() -> None:
    assert [v for v in range(-2, 100) if takes_an(v)] == [8, 11, 18, *range(80, 90)]
    assert takes_an(800) and takes_an(8000) and takes_an(11000) and takes_an(18000)
    assert not takes_an(-8) and not takes_an(1100) and not takes_an(9)
    assert [a_card(v, "en") for v in (8, 11, 18, 9, -2)] == ["an 8", "an 11", "an 18", "a 9", "a -2"]
    assert [a_card(v, "fr") for v in (8, 11, 1)] == ["un 8", "un 11", "un 1"]


@pytest.mark.parametrize("value", [8, 11])
def test_skyjo_moves_say_an_8_and_an_11(value: int) -> None:
    game = playing_game(players=2)
    set_grid(game, 0, {0: 3})
    game.face_up[0][0] = True
    stack_draw(game, value)
    drawn = [e.to_dict() for e in game.apply(0, Draw())]
    assert describe_events(drawn, NAMES, "en") == [f"Alice drew an {value}."]
    assert describe_events(drawn, NAMES, "fr") == [f"Alice pioche un {value}."]
    both = drawn + [e.to_dict() for e in game.apply(0, Replace(0))]
    assert describe_events(both, NAMES, "en")[0] == f"Alice drew an {value} and replaced their 3."
    assert describe_events(both, NAMES, "fr")[0] == f"Alice pioche un {value} et remplace son 3."


def test_skipbo_moves_say_an_8() -> None:
    event = {"type": "card_played", "seat": 0, "card": 8, "value": 8, "source": "hand", "index": 0, "pile": 0}
    assert skipbo_describe([event], NAMES, "en") == ["Alice plays an 8 from their hand onto pile 1."]
    assert skipbo_describe([event], NAMES, "fr") == ["Alice pose un 8 de sa main sur la pile 1."]
    assert skipbo_describe([{**event, "card": 9, "value": 9}], NAMES, "en")[0].startswith("Alice plays a 9")


def test_no_english_message_writes_a_before_a_number_placeholder() -> None:
    """ "a {value}" cannot be right for 8 and 11: a card with its article is {card} (bot.i18n.a_card)."""
    for key, text in catalogue("en").items():
        assert not re.search(r"\ban? \{(value|revealed|card|needed)\}", text) or key.startswith(
            "table.card."
        ), key


def test_french_never_writes_de_before_a_player_name() -> None:
    """ "de Alice" must be "d'Alice": French sentences are built so that a name never follows "de"."""
    for key, text in catalogue("fr").items():
        assert not re.search(r"\b(de|à la place de) \{(player|owner|name|winners)\}", text), key


# -------------------------------------------------------------------------------------- plurals


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_message_writes_a_plural_in_brackets(language: str) -> None:
    for path in catalogue_files(language):
        for key, text in json.loads(path.read_text(encoding="utf-8")).items():
            assert not re.search(r"\w\((s|es|x|e)\)", text), f"{path.name}: {key}: {text}"


def test_plural_rules_of_each_language() -> None:
    assert [plural_form(n, "en") for n in (0, 1, 2)] == ["other", "one", "other"]
    assert [plural_form(n, "fr") for n in (0, 1, 2)] == ["one", "one", "other"]
    for language in LANGUAGES:
        words = catalogue(language)
        for key in words:
            if key.endswith(".one"):
                assert key[: -len("one")] + "other" in words, key


@pytest.mark.parametrize(
    ("locale", "one", "two"),
    [
        ("en", "Turn 1 more card face up", "Turn 2 more cards face up"),
        ("fr", "Retourne encore 1 carte :", "Retourne encore 2 cartes :"),
    ],
)
def test_the_reveal_hint_counts_cards(locale: str, one: str, two: str) -> None:
    game = skyjo.State.new(NAMES, 1, Options())
    view = game.view(0)
    view["reveals_left"][0] = 1
    assert panel_hint(view, 0, NAMES, locale=locale).startswith(one)
    view["reveals_left"][0] = 2
    assert panel_hint(view, 0, NAMES, locale=locale).startswith(two)


@pytest.mark.parametrize(
    ("locale", "one", "many"),
    [("en", "Hand: 1 card", "Hand: 5 cards"), ("fr", "Main : 1 carte", "Main : 5 cartes")],
)
def test_skipbo_hand_sizes_are_counted_words(locale: str, one: str, many: str) -> None:
    view = new(2, seed=3).view(None)
    view["hand_sizes"] = [1, 5]
    body = skipbo_body(view, NAMES[:2], locale=locale)
    assert body.embed is not None
    fields = [f["value"] for f in body.embed["fields"]]
    # The table's inline fields break between phrases only (messages.phrased): "5 cards" stays whole.
    assert phrased(one) + "\n" in fields[0] and phrased(many) + "\n" in fields[1]
    assert plural("skipbo.table.hand", 0, locale) == ("Hand: 0 cards" if locale == "en" else "Main : 0 carte")


# ----------------------------------------------------------------------------- one line per move


@pytest.mark.parametrize("locale", LOCALES)
def test_a_draw_then_its_placing_is_one_line_of_last_moves(locale: str) -> None:
    game = playing_game(players=2, turn=1)
    set_grid(game, 1, {0: 11})
    game.face_up[1][0] = True
    stack_draw(game, 10)
    recent: deque[tuple[int, list[dict[str, Any]]]] = deque()
    recent.append((1, [e.to_dict() for e in game.apply(1, Draw())]))
    only_drawn = recent_lines(recent, NAMES, locale)
    assert len(only_drawn) == 1  # the move so far
    recent.append((1, [e.to_dict() for e in game.apply(1, Replace(0))]))
    lines = recent_lines(recent, NAMES, locale)
    expected = (
        "Bob drew a 10 and replaced their 11."
        if locale == "en-US"
        else "Bob pioche un 10 et remplace son 11."
    )
    assert lines == [expected]
    body = table_body(game.view(None), NAMES[:2], locale=locale, recent=recent)
    assert body.embed is not None
    assert body.recent == [expected]  # the table's last moves: the move once, not its draw again


@pytest.mark.parametrize("locale", LOCALES)
def test_a_timed_out_turn_says_so_first_then_the_move_once(locale: str) -> None:
    game = playing_game(players=2)
    set_grid(game, 0, {0: 4})
    game.face_up[0][0] = True
    stack_draw(game, 6)
    recent: deque[tuple[int, list[dict[str, Any]]]] = deque()
    recent.append((0, [e.to_dict() for e in game.apply(0, Draw())]))
    recent.append((0, [{"type": "turn_timed_out", "seat": 0}]))
    recent.append((0, [e.to_dict() for e in game.apply(0, Replace(0))]))
    lines = recent_lines(recent, NAMES, locale)
    assert len(lines) == 2
    assert ("ran out of time" if locale == "en-US" else "n'a pas joué à temps") in lines[0]
    assert lines[1].startswith("Alice drew a 6" if locale == "en-US" else "Alice pioche un 6")


@pytest.mark.parametrize("locale", ["en", "fr"])
def test_a_long_covered_skipbo_turn_still_says_who_ran_out_of_time(locale: str) -> None:
    """Five cards played for Bob: the table's last three lines keep "ran out of time" above the last two."""
    from bot.games.skipbo.message import recent_lines as skipbo_recent

    played = [
        {"type": "card_played", "seat": 1, "card": v, "value": v, "source": "hand", "index": 0, "pile": 0}
        for v in range(1, 6)
    ]
    recent = [(0, [{**played[0], "seat": 0}]), (1, [{"type": "turn_timed_out", "seat": 1}])]
    recent += [(1, [event]) for event in played]
    lines = skipbo_recent(recent, NAMES, locale)
    assert len(lines) == 3
    assert ("ran out of time" if locale == "en" else "n'a pas joué à temps") in lines[0]
    assert lines[1:] == [skipbo_describe([event], NAMES, locale)[0] for event in played[-2:]]
    # Without a timer, the last three moves as before.
    plain = skipbo_recent([(1, [event]) for event in played], NAMES, locale)
    assert plain == [skipbo_describe([event], NAMES, locale)[0] for event in played[-3:]]


# ------------------------------------------------------------------------------- aligned grids


def test_every_grid_cell_is_two_narrow_characters() -> None:
    for cell in ("down", "gone", -2, 0, 5, 12):
        text = cell_text(cell)
        assert len(text) == 2
        assert all(unicodedata.east_asian_width(c) == "Na" for c in text), text
    game = skyjo.State.new(NAMES, 4, Options())
    game.apply(0, skyjo.Reveal(0))
    rows = grid_lines(game.view(None), 0)
    assert len({len(row) for row in rows}) == 1
    assert all(unicodedata.east_asian_width(c) == "Na" for row in rows for c in row)


# --------------------------------------------------------------------------- labelled numbers


@pytest.mark.parametrize("language", LANGUAGES)
def test_picture_numbers_and_computer_names_are_labelled_words(language: str) -> None:
    for renderer, kind in ((skyjo_image, "skyjo"), (skipbo_image, "skipbo")):
        labels = picture_labels(kind, renderer.DEFAULT_LABELS, language)
        assert "pts" in labels["total"].format(total=3)
        computer = ComputerName(2, "hard")
        first, second = picture_name(computer, labels)
        assert (first, second) == (("CPU 2", "hard") if language == "en" else ("Ordi 2", "difficile"))
        assert first == computer.said(language)  # the name every text says
        assert one_line_name(computer, labels) == first  # a sentence says the name alone, as the texts
        assert picture_name("Alice", labels) == ("Alice", "")
    # Issue 47: the French says what the number is, the sum of the cards face up.
    shown = template("table.image.skyjo.shown", language).format(sum=9)
    assert shown == ("showing 9" if language == "en" else "somme visible : 9")


@pytest.mark.parametrize(
    ("locale", "text"),
    [("en", "Stock: top card **5**, 7 left"), ("fr", "Stock : carte du dessus **5**, encore 7")],
)
def test_skipbo_stock_says_which_number_is_which(locale: str, text: str) -> None:
    game = rig(new(2, seed=3), 0, stock_top=[5])
    game.stocks[0][:] = game.stocks[0][-7:]
    game.stocks[0][-1] = 5
    body = skipbo_body(game.view(None), NAMES[:2], locale=locale)
    assert body.embed is not None
    assert body.embed["fields"][0]["value"].startswith(phrased(text))


# ------------------------------------------------------------------------ computer players' names


def _table(*seats: Seat) -> Table:
    # Table.names reads only the stored seats.
    return Table(stored=SimpleNamespace(seats=list(seats)), marks=[])  # type: ignore[arg-type]


def test_a_computer_is_named_in_the_language_of_each_message() -> None:
    # Stored in English when the lobby opened (an older table: with its level); a French message
    # still says it in French, and as every text and picture does now, without its level.
    table = _table(
        Seat(0, "Alice", 1),
        Seat(1, "Computer 1 (normal)", None, "normal"),
        Seat(2, "CPU 2", None, "hard"),
    )
    names = table.names()
    assert names == ["Alice", "Computer 1 (normal)", "CPU 2"]
    assert table.names("fr") == ["Alice", "Ordi 1", "Ordi 2"]
    assert [shown_name(n, "fr") for n in names] == ["Alice", "Ordi 1", "Ordi 2"]
    game = skyjo.State.new(["a", "b", "c"], 1, Options())
    body = table_body(game.view(None), names, locale="fr")
    assert body.embed is not None
    text = json.dumps(body.embed, ensure_ascii=False)
    assert "Ordi 2" in text and "Computer" not in text and "CPU" not in text and "difficile" not in text
    view = game.view(1)
    view["phase"], view["turn"] = "play", 2
    assert "Ordi 2 joue" in panel_hint(view, 0, names, locale="fr")


def test_a_computer_name_survives_copies() -> None:
    name = ComputerName(3, "easy", "CPU 3")
    for copied in (copy.copy(name), copy.deepcopy(name), pickle.loads(pickle.dumps(name))):
        assert isinstance(copied, ComputerName) and copied == name
        assert copied.said("fr") == "Ordi 3" and copied.level == "easy"
    assert json.dumps([name]) == '["CPU 3"]'


def test_the_lobby_names_computers_in_its_language() -> None:
    """The lobby presents each seat: a computer's level is a word of its own after its name."""
    seats = [
        ("Alice", 1, None),
        ("Computer 1 (normal)", None, "normal"),
        ("Ordi 2", None, "hard"),
    ]
    fr = lobby_body(host_id=1, seats=seats, locale="fr", lines=[], game="Skyjo").embed
    en = lobby_body(host_id=1, seats=seats, locale="en", lines=[], game="Skyjo").embed
    assert fr is not None and en is not None
    assert "2. Ordi 1 🤖 · normal" in fr["description"] and "3. Ordi 2 🤖 · difficile" in fr["description"]
    assert "2. CPU 1 🤖 · normal" in en["description"] and "3. CPU 2 🤖 · hard" in en["description"]


def test_terminal_games_name_computers_as_the_table_does() -> None:
    from rich.console import Console

    from bot.games.skyjo import play as play_skyjo

    game = play_skyjo.TerminalGame(1, "hard", 3, lambda _: "q", Console(file=io.StringIO()))
    assert game.players[1] == computer_name(1, "hard") == "CPU 1"


# ------------------------------------------------------------------------------- names as written

HOSTILE = ["@everyone", "[link](https://example.com)", "# Heading", "||spoiler||", "<@&1>", "Eve\u202eevil"]


def _live_markup(text: str) -> list[str]:
    """Markup that Discord would render in ``text`` (an escaped character is preceded by a backslash)."""
    found = []
    patterns = {
        "mention": r"(?<!\\)@everyone|(?<!\\)<(?!\\)@&",  # a role (the table's own user mentions are fine)
        "link": r"(?<!\\)\[link(?<!\\)\]\(",
        "heading": r"(?m)^\s*(?:[•\d.]+\s*)?#",
        "spoiler": r"(?<!\\)\|(?<!\\)\|",
        "rtl": "\u202e",
    }
    for what, pattern in patterns.items():
        if re.search(pattern, text):
            found.append(what)
    return found


def test_escape_name_leaves_no_markup() -> None:
    for name in HOSTILE:
        assert _live_markup(name) != [], name  # as written, each would be markup
        escaped = escape_name(name)
        assert _live_markup(escaped) == [], (name, escaped)
    assert escape_name("\u202e") == "\u2014"
    assert escape_name("[link](https://example.com)") == r"\[link\](https://example.com)"


def test_a_name_in_a_code_block_is_not_backslashed_and_cannot_close_it() -> None:
    assert code_name("a_b*c") == "a_b*c"
    assert "`" not in code_name("```evil```")
    assert "\u202e" not in code_name("Eve\u202eevil")


@pytest.mark.parametrize("locale", LOCALES)
def test_hostile_names_stay_text_everywhere_in_a_skyjo_table(locale: str) -> None:
    names = HOSTILE[:4]
    game = skyjo.State.new(names, 2, Options(score_limit=10))
    recent: deque[tuple[int, list[dict[str, Any]]]] = deque(maxlen=100)
    rng = random.Random(3)
    bodies = []
    while not game.is_over:
        seat = game.seats_to_act()[0]
        recent.append((seat, [e.to_dict() for e in game.apply(seat, rng.choice(game.legal_actions(seat)))]))
        if game.phase == "round_over":
            body = table_body(
                game.view(None), names, locale=locale, recent=recent, waiting_round=[0, 1], replaced=[2]
            )
            bodies.append(body)
            game.apply(0, skyjo.NextRound())
    bodies.append(table_body(game.view(None), names, locale=locale, recent=recent))
    lobby = lobby_body(
        host_id=9, seats=[(n, i, None) for i, n in enumerate(HOSTILE)], locale=locale, lines=[], game="Skyjo"
    )
    for body in [*bodies, lobby]:
        assert body.embed is not None
        texts = [body.embed["description"], *(f["name"] for f in body.embed.get("fields", []))]
        for text in texts:
            assert _live_markup(text) == [], text
    assert r"\@everyone" in bodies[-1].embed["description"]  # type: ignore[index]
    view = game.view(0)
    view["phase"], view["turn"], view["drawn"] = "play", 3, None
    hint = panel_hint(view, 0, HOSTILE, locale=locale)
    assert _live_markup(hint) == [] and "\u202e" not in hint


@pytest.mark.parametrize("locale", LOCALES)
def test_hostile_names_stay_text_in_a_skipbo_table(locale: str) -> None:
    names = HOSTILE[3:6] + HOSTILE[:1]
    game = new(4, seed=5)
    body = skipbo_body(game.view(None), names, locale=locale, replaced=[1])
    assert body.embed is not None
    for text in [body.embed["description"], *(f["name"] for f in body.embed["fields"])]:
        assert _live_markup(text) == [], text
    view = game.view(1)
    hint = skipbo_hint(view, 1, names, locale=locale)
    assert _live_markup(hint) == [], hint
    event = {"type": "card_played", "seat": 2, "card": 3, "value": 3, "source": "hand", "index": 0, "pile": 0}
    line = skipbo_describe([event], [escape_name(n) for n in names], locale)[0]
    assert _live_markup(line) == [] and "\u202e" not in line


# --------------------------------------------------------------------------------- tu in French


def test_french_talks_to_players_with_tu() -> None:
    for path in (path for path in catalogue_files("fr") if path.stem in OWNED):
        for key, text in json.loads(path.read_text(encoding="utf-8")).items():
            assert not re.search(r"\b(vous|votre|vos)\b", text, re.IGNORECASE), key
            # the imperative of "vous": "Ouvrez-en une", "Cliquez sur..."
            assert not re.search(r"\b\w+ez-(en|le|la|les|y|moi)\b", text), key
            assert not re.search(r"(^|[.!:•] )[A-ZÉ]\w*ez\b", text), key
    # The check finds what it looks for.
    assert re.search(r"\b\w+ez-(en|le|la|les|y|moi)\b", "Ouvrez-en une nouvelle.")
