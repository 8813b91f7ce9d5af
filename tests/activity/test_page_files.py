"""The Activity page's static files agree with the bot (issue 50): its cards have the colours and shapes
of the bot's pictures (classic and colour-blind), its seats and teams their colours, its table the dark
theme's; its words exist in English and French with the same placeholders, say "tu" and gender no
player, and are the bot's own words where the two say the same thing (strings/same-as-bot.json); and
no script puts anything it received into the page as HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.activity import frames
from bot.games.registry import find
from bot.games.skipbo.cards import TEAM_COLOURS, TEAM_INK
from bot.i18n import catalogue, placeholders
from bot.render.images import SHAPE_MARKS, THEMES
from bot.render.seats import SEAT_COLOURS
from tests.i18n.test_french import french_problems

STATIC = Path(frames.__file__).resolve().parent / "static"
CSS = (STATIC / "style.css").read_text(encoding="utf-8")
SCRIPTS = {
    path.relative_to(STATIC).as_posix(): path.read_text(encoding="utf-8") for path in STATIC.glob("**/*.js")
}
SCRIPTS = {name: text for name, text in SCRIPTS.items() if not name.startswith("vendor/")}
WORDS = {
    lang: json.loads((STATIC / "strings" / f"{lang}.json").read_text(encoding="utf-8"))
    for lang in ("en", "fr")
}
SAME_AS_BOT = json.loads((STATIC / "strings" / "same-as-bot.json").read_text(encoding="utf-8"))


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _rule(selector: str) -> dict[str, str]:
    """The custom properties of the CSS rule whose selector is exactly ``selector``."""
    found = re.search(r"(?m)^" + re.escape(selector) + r" \{([^}]*)\}", CSS)
    assert found, f"no rule {selector!r} in style.css"
    return dict(re.findall(r"(--[\w-]+):\s*([^;]+);", found.group(1)))


def test_the_table_seats_and_teams_have_the_bots_colours() -> None:
    root = _rule(":root")
    dark = THEMES["dark"]
    theme = {
        "bg": dark.background, "panel": dark.panel, "edge": dark.panel_edge, "text": dark.text,
        "muted": dark.muted, "accent": dark.accent, "bad": dark.bad,
    }  # fmt: skip
    assert {name: root[f"--{name}"] for name in theme} == {name: _hex(rgb) for name, rgb in theme.items()}
    assert [root[f"--seat-{i}"] for i in range(len(SEAT_COLOURS))] == [_hex(c.rgb) for c in SEAT_COLOURS]
    assert [root[f"--team-{i}"] for i in range(len(TEAM_COLOURS))] == [_hex(c) for c in TEAM_COLOURS]
    assert root["--team-ink"] == _hex(TEAM_INK)


@pytest.mark.parametrize("kind", ["skyjo", "skipbo"])
def test_the_cards_have_the_pictures_colours_and_shapes(kind: str) -> None:
    cards = __import__(f"bot.games.{kind}.cards", fromlist=["BANDS"])
    classic, safe = _rule(f".{kind}"), {**_rule(f".{kind}"), **_rule(f".colourblind.{kind}")}
    for look, bands in ((classic, cards.BANDS), (safe, cards.SAFE_BANDS)):
        assert len(bands) == len(cards.SHAPES)
        for n, (fill, ink) in enumerate(bands):
            assert (look[f"--g{n}-fill"], look[f"--g{n}-ink"]) == (_hex(fill), _hex(ink)), (kind, n)
    for n, shape in enumerate(cards.SHAPES):
        rule = f'.colourblind.{kind} .g{n} .shape::after {{ content: "{SHAPE_MARKS[shape]}"; }}'
        assert rule in CSS
    assert f".colourblind.{kind} .g{len(cards.SHAPES)} " not in CSS  # no group the game does not have


def test_both_languages_have_every_word_with_the_same_placeholders() -> None:
    assert WORDS["en"].keys() == WORDS["fr"].keys()
    for key, text in WORDS["en"].items():
        assert placeholders(text) == placeholders(WORDS["fr"][key]), key


def test_the_words_the_bot_also_says_are_the_bots() -> None:
    assert len(SAME_AS_BOT) > 40
    for language in ("en", "fr"):
        bot = catalogue(language)
        assert find("skyjo") is not None  # the games' catalogues are loaded
        differ = {
            k: (WORDS[language][k], bot[b]) for k, b in SAME_AS_BOT.items() if WORDS[language][k] != bot[b]
        }
        assert differ == {}, language


def test_french_says_tu_and_genders_no_player() -> None:
    problems = {key: found for key, text in WORDS["fr"].items() if (found := french_problems(text))}
    assert problems == {}


def test_every_word_a_script_asks_for_exists() -> None:
    asked = set()
    for text in SCRIPTS.values():
        asked |= set(re.findall(r"\bt\('([\w.]+)'", text))
        asked |= {
            f"{key}.{form}" for key in re.findall(r"\bplural\('([\w.]+)'", text) for form in ("one", "other")
        }
    # the words chosen by a code: a connection's end, a game's end, a refused sign-in
    asked |= {f"status.{reason}" for reason in frames.BYE_REASONS}
    asked |= {f"ended.{how}" for how in frames.ENDINGS if how != "finished"}
    asked |= {f"status.{reason}" for reason in ("not_in_discord", "sign_in_failed", "no_table")}
    assert len(asked) > 60
    assert asked - WORDS["en"].keys() == set()


def test_no_script_writes_html() -> None:
    """Names, moves and reasons come from the bot and from players: the page sets them as text only."""
    for name, text in SCRIPTS.items():
        assert not re.search(
            r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function", text
        ), name
