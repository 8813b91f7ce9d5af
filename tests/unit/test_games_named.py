"""A game is one folder (issue 39 item 2): no module of ``bot/`` or ``cogs/`` outside a game's folder
names a game, but the registry's lines that list them; no shared catalogue (``bot/i18n/<language>/*.json``)
names one either (issue 47 item 11): a shared string says "this table" or takes the game's name as a
placeholder, and a list of games is built from the registry.

Every game the registry knows is looked for, and the test-only third game of tests/e2e/highcard/ too
(proof that adding it changed nothing shared): its name (``skipbo``), its title (``Skip-Bo``) and the
title without its punctuation (``skip-bo``, ``skip bo``), case-insensitive, in every token of every
module: identifiers, string literals, docstrings and comments. What counts as naming is on purpose
wide (a docstring giving a game as an example names it too: the next game's author would have to
read and update it). The few exceptions are listed in ``ALLOWED``, each with its reason.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

from bot.games import registry
from bot.games.new_table import NewTable

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "cogs")
GAMES_FOLDER = ROOT / "bot" / "games"
SHARED_CATALOGUES = ROOT / "bot" / "i18n"  # <language>/*.json: the strings every game shares
THIRD_GAME = ("highcard", "Highest card")  # tests/e2e/highcard: lives outside bot/, named nowhere in it
# The only lines that name the games: the registry's list.
REGISTRY = "bot/games/registry.py"
REGISTRY_LINES = 3  # two imports and the GAMES line
ALLOWED = {
    "bot/__init__.py": "the product's one-line description says which games Skybo hosts",
}

# Identifiers, strings (docstrings and f-strings: one token before Python 3.12, parts after) and comments.
TOKENS = {
    tokenize.NAME,
    tokenize.STRING,
    tokenize.COMMENT,
    getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING),
}


def _game_words() -> list[str]:
    words = set()
    for name, title in [*((g.name, g.title) for g in registry.games()), THIRD_GAME]:
        words |= {name, title, re.sub(r"[^\w]+", "-", title), re.sub(r"[^\w]+", " ", title)}
    return sorted({word.lower() for word in words})


def _naming_lines(path: Path, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """(line, token) of every token of ``path`` that names a game."""
    source = path.read_text(encoding="utf-8")
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in TOKENS and pattern.search(token.string):
            found.append((token.start[0], token.string[:80]))
    return found


def _own_folder(path: Path) -> bool:
    """A file inside one game's own folder (``bot/games/<game>/``)."""
    parts = path.relative_to(GAMES_FOLDER).parts if path.is_relative_to(GAMES_FOLDER) else ()
    return len(parts) > 1 and parts[0] in registry.BY_KIND


def test_no_shared_module_names_a_game() -> None:
    words = _game_words()
    assert "highcard" in words and len(words) > 4  # every game of the registry, and the third
    pattern = re.compile("|".join(re.escape(word) for word in words), re.IGNORECASE)
    naming: dict[str, list[tuple[int, str]]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if _own_folder(path) or relative in ALLOWED:
                continue
            found = _naming_lines(path, pattern)
            if relative == REGISTRY:
                assert len({line for line, _ in found}) == REGISTRY_LINES, found
                continue
            if found:
                naming[relative] = found
    assert naming == {}, f"shared modules that name a game (move it to the game's folder): {naming}"


def _naming_entries(path: Path, pattern: re.Pattern[str]) -> list[str]:
    """The keys of the catalogue ``path`` whose key or message names a game."""
    messages: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return [key for key, text in messages.items() if pattern.search(key) or pattern.search(text)]


def test_no_shared_catalogue_names_a_game() -> None:
    """A shared message read at any game's table names none ("This channel already has a Skyjo table"
    told Skip-Bo players; /help and the caps listed two games by hand, so a third was missing)."""
    pattern = re.compile("|".join(re.escape(word) for word in _game_words()), re.IGNORECASE)
    files = sorted(SHARED_CATALOGUES.glob("*/*.json"))
    assert len(files) > 20 and {p.parent.name for p in files} == {"en", "fr"}
    naming = {}
    for path in files:
        found = _naming_entries(path, pattern)
        if found:
            naming[path.relative_to(ROOT).as_posix()] = found
    assert naming == {}, f"shared catalogue keys naming a game (say 'this table', or a placeholder): {naming}"


def test_the_catalogue_scan_sees_a_name_in_a_key_and_in_a_message(tmp_path: Path) -> None:
    catalogue = tmp_path / "shared.json"
    messages = {"a.skyjo.key": "plain", "b.key": "A Skip-Bo table", "c.key": "this table"}
    catalogue.write_text(json.dumps(messages), encoding="utf-8")
    pattern = re.compile("|".join(re.escape(word) for word in _game_words()), re.IGNORECASE)
    assert _naming_entries(catalogue, pattern) == ["a.skyjo.key", "b.key"]


def test_the_allowed_files_still_name_a_game() -> None:
    """An exception that no longer names a game is dropped from ``ALLOWED`` (it would hide a new one)."""
    pattern = re.compile("|".join(re.escape(word) for word in _game_words()), re.IGNORECASE)
    stale = [relative for relative in ALLOWED if not _naming_lines(ROOT / relative, pattern)]
    assert stale == []


def test_the_scan_sees_a_name_in_code_in_a_docstring_and_in_a_comment(tmp_path: Path) -> None:
    module = tmp_path / "shared.py"
    module.write_text(
        '"""For Skip-Bo."""\nKIND = "skipbo"  # like Skyjo\nskyjo_table = None\n', encoding="utf-8"
    )
    pattern = re.compile("|".join(re.escape(word) for word in _game_words()), re.IGNORECASE)
    assert [line for line, _ in _naming_lines(module, pattern)] == [1, 2, 2, 3]


def test_every_game_lives_in_its_folder() -> None:
    """Each game's object comes from its own folder, which holds its ``new`` (as data), strings and words."""
    for game in registry.GAMES:
        folder = GAMES_FOLDER / game.name
        assert type(game).__module__.startswith(f"bot.games.{game.name}.")
        assert (folder / "options.py").is_file() and isinstance(game.new, NewTable)
        assert game.strings is not None and game.strings.parent == folder
        assert {p.name for p in game.strings.iterdir()} == {"en", "fr"}
