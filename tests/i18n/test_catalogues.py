"""Both catalogues have the same keys and placeholders, and every key the code uses exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.games import registry  # noqa: F401  (every game's catalogue folder)
from bot.i18n import LANGUAGES, catalogue, language_of, placeholders, translate

ROOT = Path(__file__).resolve().parents[2]
KEY_PREFIXES = ("error", "skyjo", "skipbo", "ui", "lobby", "table", "panel", "cmd", "rules", "lb", "stats")
_PREFIX = "|".join(KEY_PREFIXES)
LITERAL = re.compile(rf"""["']((?:{_PREFIX})\.[a-z0-9_]+(?:\.[a-z0-9_]+)*)["']""")
# Keys built at run time from parts; each family is listed here in full.
DYNAMIC_KEYS = {
    f"skyjo.event.exchanged.{source}.{side}" for source in ("discard", "draw") for side in ("up", "down")
}


def _keys_used_in_code() -> set[str]:
    used: set[str] = set()
    for folder in ("bot", "cogs"):
        for path in (ROOT / folder).rglob("*.py"):
            for match in LITERAL.finditer(path.read_text(encoding="utf-8")):
                key = match.group(1)
                if not key.endswith("."):
                    used.add(key)
    return used | DYNAMIC_KEYS


def test_both_catalogues_have_the_same_keys() -> None:
    en, fr = set(catalogue("en")), set(catalogue("fr"))
    assert en - fr == set(), "keys missing in French"
    assert fr - en == set(), "keys missing in English"


def test_placeholders_match_between_languages() -> None:
    en, fr = catalogue("en"), catalogue("fr")
    mismatched = {key for key in en if placeholders(en[key]) != placeholders(fr[key])}
    assert mismatched == set()


def test_every_key_used_in_the_code_exists() -> None:
    used = _keys_used_in_code()
    assert len(used) > 20  # the scan really finds the code's keys
    known = catalogue("en")
    # A counted message (bot.i18n.plural) is used by its base key and catalogued as base.one / base.other.
    missing = {key for key in used if key not in known and not {f"{key}.one", f"{key}.other"} <= set(known)}
    assert missing == set()


def test_engine_error_keys_are_catalogued() -> None:
    source = (ROOT / "bot" / "games" / "skyjo" / "engine.py").read_text(encoding="utf-8")
    keys = set(re.findall(r'"(error\.[a-z_.]+)"', source))
    assert "error.card_already_face_up" in keys
    assert keys <= set(catalogue("en"))


@pytest.mark.parametrize(
    ("locale", "language"),
    [("fr", "fr"), ("fr-FR", "fr"), ("en-US", "en"), ("en-GB", "en"), ("de", "en"), (None, "en"), ("", "en")],
)
def test_language_of_discord_locales(locale: object, language: str) -> None:
    assert language_of(locale) == language


def test_translate_fills_placeholders_and_falls_back_visibly() -> None:
    assert translate("error.player_count", "fr", min=2, max=8) == "Une table accueille de 2 à 8 joueurs."
    assert translate("error.player_count", "en-US", min=2, max=8) == "A table needs 2 to 8 players."
    assert translate("no.such.key", "fr") == "no.such.key"
    # A missing placeholder never raises in front of a player.
    assert "{min}" in translate("error.player_count", "en")


def test_languages_are_english_and_french() -> None:
    assert set(LANGUAGES) == {"en", "fr"}


@pytest.mark.parametrize("kind", ["skyjo", "skipbo"])
def test_every_image_label_is_catalogued_with_the_renderer_placeholders(kind: str) -> None:
    """The table pictures' words come from the catalogues (``table.image.<kind>.<label>``; a computer's
    name and level from the messages every text says them with, ``table.ai.*``)."""
    from bot.games.registry import BY_KIND
    from bot.i18n import template
    from bot.render.images import COMPUTER_LABELS

    renderer = BY_KIND[kind].image
    assert renderer is not None
    for language in LANGUAGES:
        for label, default in renderer.DEFAULT_LABELS.items():
            key = COMPUTER_LABELS.get(label) or f"table.image.{kind}.{label}"
            assert key in catalogue(language), key
            assert placeholders(template(key, language)) == placeholders(default), key
    assert template("table.image.skyjo.round", "fr") == "Manche {round}"
