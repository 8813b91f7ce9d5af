"""French talks to a player with "tu" and never genders a player (issue 38 item 3), says one thing with
words and no "que 1", and a public message addresses no one reader (issue 47 item 10).

Every value of every ``bot/i18n/fr/*.json`` file is scanned: the messages, the image labels, the errors
and the slash commands' French names and descriptions (``cmd.*`` keys, which
``bot.client.CatalogueTranslator`` sends to Discord; ``tests/e2e/test_french.py`` runs the same check on
the localizations the fake Discord really received).

**"vous"** (:func:`vous_problems`): the words "vous", "votre", "vos", and a verb in the "vous" form, i.e.
any word ending in "-ez" ("Changez-les", "Choisissez", "utilisez-la"). French has few other words
ending in "-ez"; the ones that may appear are allowed in ``NOT_VOUS``.

**Gender** (:func:`gender_problems`). The bot never knows a player's gender, so no word may agree with
one. The heuristic:

- A *player reference* is a placeholder that holds a player's name (``PLAYER_FIELDS``: ``{player}``,
  ``{partner}``, ``{owner}``...) or a word for the reader ("tu", "toi", "te", "t'").
- A *gender-marked word* is one whose form changes with the gender of the person it is about
  (``GENDER_MARKED``: "il", "elle", "parti", "prêt", "prête", "seul", "coéquipier", "retirée"...). Words
  that also name things ("partie" is a game, "cachée" a card) are left out: they would flag sound
  sentences, and the phrases below catch their use about a person.
- A message fails when a gender-marked word stands within ``WINDOW`` words of a player reference
  ("Ton coéquipier {player} joue (il peut…)", "{player} est parti", "Tu es prêt"), or when it holds one
  of the ``GENDERED_PHRASES`` wherever it stands ("son coéquipier", "sois le premier", "est partie").

The window is short on purpose: "{player} complète une colonne de {value} : elle quitte la grille" has
"elle" (the column) six words after the name. Generic rule text ("le joueur qui…", "chacun") is not a
player's name and is not flagged. Exceptions go in ``ALLOWED`` with their reason; there are none.
"""

from __future__ import annotations

import json
import re

import pytest

from bot.games import registry  # noqa: F401  (adds every game's catalogue folder)
from bot.i18n import catalogue_files

VOUS = re.compile(r"\b(vous|votre|vos)\b", re.IGNORECASE)
EZ_WORD = re.compile(r"\b(\w+ez)\b", re.IGNORECASE)
NOT_VOUS = frozenset({"chez", "assez", "nez", "rez"})

PLAYER_FIELDS = frozenset(
    {"player", "players", "name", "names", "partner", "owner", "user", "host", "winners", "first", "second"}
)
READER = frozenset({"tu", "toi", "te", "t"})
GENDER_MARKED = frozenset(
    {
        "il", "ils", "elle", "elles", "celui", "celle",
        "parti", "partis",
        "prêt", "prête", "prêts", "prêtes",
        "seul", "seule", "seuls", "seules",
        "coéquipier", "coéquipière", "coéquipiers", "coéquipières",
        "retiré", "retirée", "retirés", "retirées",
        "exclu", "exclue", "remplacé", "remplacée",
        "premier", "première", "dernier", "dernière",
        "gagnant", "gagnante", "perdant", "perdante",
        "absent", "absente", "revenu", "revenue", "arrivé", "arrivée",
        "assis", "assise", "content", "contente", "sûr", "sûre",
    }
)  # fmt: skip
GENDERED_PHRASES = re.compile(
    r"\b((ton|ta|son|sa|votre) (coéquipier|coéquipière)"
    r"|sois (le premier|la première|le dernier|la dernière)"
    r"|est (parti|partie|prêt|prête|seul|seule|retiré|retirée)"
    r"|es (prêt|prête|seul|seule))\b",
    re.IGNORECASE,
)
WINDOW = 4
ALLOWED: dict[str, str] = {}  # key -> why its wording is fine (none so far)

TOKEN = re.compile(r"\{(\w+)\}|([^\W\d_]+)")


def vous_problems(text: str) -> list[str]:
    """The "vous" words of ``text`` (empty when it says "tu")."""
    found = [m.group(0) for m in VOUS.finditer(text)]
    found += [m.group(1) for m in EZ_WORD.finditer(text) if m.group(1).lower() not in NOT_VOUS]
    return found


def gender_problems(text: str) -> list[str]:
    """The gendered constructions of ``text`` about a player (see the module docstring)."""
    tokens = [(field, word.lower()) for field, word in TOKEN.findall(text)]
    refs = [i for i, (field, word) in enumerate(tokens) if field in PLAYER_FIELDS or word in READER]
    found = [m.group(0) for m in GENDERED_PHRASES.finditer(text)]
    for i in refs:
        for j in range(max(0, i - WINDOW), min(len(tokens), i + WINDOW + 1)):
            if tokens[j][1] in GENDER_MARKED:
                ref = "{" + tokens[i][0] + "}" if tokens[i][0] else tokens[i][1]
                found.append(f"{tokens[j][1]} (near {ref})")
    return found


def french_problems(text: str) -> list[str]:
    return [f"vous: {w}" for w in vous_problems(text)] + [f"gender: {g}" for g in gender_problems(text)]


def french_catalogue() -> dict[str, str]:
    """Every French value, file by file (``catalogue("fr")`` would also fall back to nothing here)."""
    values: dict[str, str] = {}
    for path in catalogue_files("fr"):  # the shared files and every game's own
        values.update(json.loads(path.read_text(encoding="utf-8")))
    return values


def test_every_french_message_says_tu_and_genders_no_player() -> None:
    problems = {
        key: found
        for key, text in french_catalogue().items()
        if key not in ALLOWED and (found := french_problems(text))
    }
    assert problems == {}


@pytest.mark.parametrize(
    "text",
    [
        "Changez-les avec /skybo affichage.",
        "Choisissez la table dans la liste.",
        "**Vos choix** (sur tous les serveurs)",
        "L'allure de la table pour vous",
        "Ton coéquipier {player} joue (il peut jouer ton stock).",
        "{player} pose un 3 du stock de son coéquipier {owner}.",
        "{player} est parti : un joueur ordinateur prend sa place.",
        "Tu es prêt pour la manche suivante.",
        "• Sois le premier à vider ton stock.",
    ],
)
def test_the_check_finds_what_it_looks_for(text: str) -> None:
    assert french_problems(text)


@pytest.mark.parametrize(
    "text",
    [
        "Change-les avec /skybo affichage.",
        "Ton équipe : {player} joue ({player} peut jouer ton stock).",
        "{player} a quitté la table : un joueur ordinateur prend sa place.",
        "{player} complète une colonne de {value} : elle quitte la grille !",
        "Tu as arrêté la partie.",
        "{player} n'a encore aucune partie terminée sur ce serveur.",
    ],
)
def test_the_check_passes_sound_french(text: str) -> None:
    assert french_problems(text) == []


# What the bot posts for everyone in a channel (a lobby's and a table's lines, the reminders that
# mention several players, the final table's footer): "tu" there speaks to one reader among many.
PUBLIC_KEYS = (
    "table.lobby.intro", "table.lobby.how", "table.lobby.how_counts", "table.lobby.help",
    "table.lobby.rematch_invited", "table.lobby.rematch_held.one", "table.lobby.rematch_held.other",
    "table.lobby.cancelled", "table.lobby.expired", "table.options.turn_limit", "table.options.no_turn_limit",
    "long_games.lobby.limit", "long_games.lobby.letters", "table.turn.reminder", "long_games.reminder",
    "sheet.game_id", "threads.lobby", "season.announced",
)  # fmt: skip
ONE_READER = re.compile(r"\b(tu|ta|ton|tes|toi|te)\b|\bt'", re.IGNORECASE)


def test_a_public_message_addresses_no_one_reader() -> None:
    french = french_catalogue()
    addressed = {key: french[key] for key in PUBLIC_KEYS if ONE_READER.search(french[key])}
    assert addressed == {}


def test_a_counted_french_message_says_one_thing_in_words() -> None:
    """A ``.one`` message read with 1: "Il n'y a qu'une page", never "Il n'y a que 1 page"."""
    french = french_catalogue()
    wrong = {}
    for key, text in french.items():
        if key.endswith(".one"):
            said = re.sub(r"\{count\}", "1", text)
            if re.search(r"\bque 1\b", said):
                wrong[key] = said
    assert wrong == {}
    assert re.search(r"\bque 1\b", "Il n'y a que 1 page : la voici.")  # the check sees what it looks for
