"""Message catalogues (English and French) and the lookup every user-facing string goes through.

Catalogues are flat JSON files, one folder per language (``en/``, ``fr/``) and one file per area of
the bot (``core.json``, ``table.json``...), merged at load; a key defined twice is an error. A game's
own strings live in its folder (``bot/games/<game>/i18n/<language>/*.json``, every key naming the game:
``cmd.<game>.*``, ``<game>.*``, ``table.image.<game>.*``...); the registry adds each game's folder
here (:func:`add_folder`), so this module names no game and a new game brings its words with it. One key
per message, with ``{name}`` placeholders filled by :func:`translate`. A Discord locale such as
``fr`` or ``en-GB`` picks the catalogue by its language; any other language gets English. A key
missing from French falls back to English; a key missing everywhere returns the key itself, so a bug
shows up as a visible key and never as a crash in front of a player.

Words that change with a number are never written "card(s)". A counted message has two keys,
``<key>.one`` and ``<key>.other``, and :func:`plural` picks one by the language's rule (English: one
for 1 only; French: one for 0 and 1) and passes ``count``. An English card named with its article
("a 9", "an 8", "an 11") goes through :func:`a_card` (keys ``table.card.a`` / ``table.card.an``;
French always "un").

French (``fr/``) follows two rules, checked on every value of every file (messages, image labels, errors,
and the slash commands' French names and descriptions, the ``cmd.*`` keys) by ``tests/i18n/test_french.py``:

- **"tu", never "vous"**: "Tes choix", "Change-les avec…", "Les parties de qui (toi)", "utilise-la". No
  "vous", "votre", "vos", and no verb in the "vous" form ("-ez").
- **No gendered word about a player.** The bot never knows a player's gender, so nothing may agree with
  a player's name or with the reader: not "Ton coéquipier Alice joue (il…)" but "Ton équipe : Alice joue
  (Alice peut…)"; not "Alice est parti" but "Alice a quitté la table"; not "Tu es prêt" but "Tu as déjà
  cliqué"; not "gagnant : Alice" but "victoire : Alice"; not "Sois le premier à…" but "… avant les autres".
  A partner is "l'autre membre de ton équipe" or, in a short label, "Stock allié" / "Défausse alliée" (the
  adjective agrees with the pile). Generic rule text ("le joueur qui…", "chacun") names nobody and stays.

A message posted for everyone in a channel (a lobby's or a table's lines, a reminder mentioning several
players, the final table's footer) says "tu" to nobody: "l'ordinateur joue le tour", not "joue à ta
place" (``PUBLIC_KEYS`` in ``tests/i18n/test_french.py``). A ``.one`` message says one thing in words
("Il n'y a qu'une page"), never "que 1".

French command and option names keep their accents (``réglages``, ``état``, ``règles``): Discord accepts
any lowercase letter in a name (``bot.command_check``). A French counted word follows :func:`plural`
("0 point", "1 point", "2 points").
"""

from __future__ import annotations

import json
import logging
import string
from functools import cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

LANGUAGES: tuple[str, ...] = ("en", "fr")
DEFAULT_LANGUAGE = "en"
_HERE = Path(__file__).resolve().parent
# The folders holding catalogues, each with one subfolder per language: the shared ones, then each
# game's own (bot.games.registry adds them).
_FOLDERS: list[Path] = [_HERE]


def add_folder(folder: Path) -> None:
    """Load the catalogues of ``folder`` (``<folder>/<language>/*.json``) too: a game's own strings.
    Adding a folder twice changes nothing."""
    folder = Path(folder).resolve()
    if folder not in _FOLDERS:
        _FOLDERS.append(folder)
        catalogue.cache_clear()


def remove_folder(folder: Path) -> None:
    """Forget the catalogues of ``folder`` (a test's game, unregistered)."""
    folder = Path(folder).resolve()
    if folder in _FOLDERS and folder != _HERE:
        _FOLDERS.remove(folder)
        catalogue.cache_clear()


def catalogue_files(language: str) -> list[Path]:
    """Every catalogue file of one language: the shared ones, then each game's."""
    return [path for folder in _FOLDERS for path in sorted((folder / language).glob("*.json"))]


@cache
def catalogue(language: str) -> dict[str, str]:
    """The messages of one language (every file of :func:`catalogue_files`), loaded once."""
    data: dict[str, str] = {}
    for path in catalogue_files(language):
        with path.open(encoding="utf-8") as handle:
            part: dict[str, str] = json.load(handle)
        twice = set(part) & set(data)
        if twice:
            raise ValueError(f"{path} defines keys already defined: {sorted(twice)[:5]}")
        data.update(part)
    return data


def language_of(locale: object) -> str:
    """``"fr"``, ``"fr-FR"`` or a discord.Locale whose value starts with fr -> ``"fr"``; else English."""
    text = str(getattr(locale, "value", locale) or "").lower()
    language = text.split("-", 1)[0].split("_", 1)[0]
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def placeholders(template: str) -> set[str]:
    """The ``{name}`` fields of a message."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def translate(key: str, locale: object = None, /, **params: Any) -> str:
    """The message ``key`` in the language of ``locale``, with its placeholders filled."""
    language = language_of(locale)
    template = catalogue(language).get(key)
    if template is None:
        template = catalogue(DEFAULT_LANGUAGE).get(key)
    if template is None:
        log.warning("missing message key", extra={"key": key, "language": language})
        return key
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        log.warning("message placeholders do not match", extra={"key": key, "language": language})
        return template


def template(key: str, locale: object = None) -> str:
    """The message ``key`` in the language of ``locale`` with its placeholders left in (for code that
    fills them itself, like the image renderers' labels); the key itself if it is missing."""
    found = catalogue(language_of(locale)).get(key) or catalogue(DEFAULT_LANGUAGE).get(key)
    if found is None:
        log.warning("missing message key", extra={"key": key})
        return key
    return found


t = translate


def plural_form(count: int, locale: object = None) -> str:
    """``"one"`` or ``"other"``: the form of a counted word in the language of ``locale``."""
    if language_of(locale) == "fr":
        return "one" if abs(count) < 2 else "other"
    return "one" if count == 1 else "other"


def plural(key: str, count: int, locale: object = None, /, **params: Any) -> str:
    """The message ``key.one`` or ``key.other`` for ``count`` (also passed as ``{count}``)."""
    return translate(f"{key}.{plural_form(count, locale)}", locale, count=count, **params)


def takes_an(value: int) -> bool:
    """English says "an" before numbers read with a vowel first: 8, 11, 18, 80-89, 800-899, 8000..."""
    if value < 0:
        return False  # "a minus two"
    digits = str(value)
    lead = digits[: len(digits) % 3 or 3]  # the group read first: "11" of 11000, "800" of 800
    return lead.startswith("8") or lead in ("11", "18")


def a_card(value: object, locale: object = None) -> str:
    """ "a 9", "an 8" in English, "un 9" in French: a card value with its indefinite article."""
    key = "table.card.an" if isinstance(value, int) and takes_an(value) else "table.card.a"
    return translate(key, locale, value=value)
