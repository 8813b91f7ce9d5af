"""The score sheet on the table message (bot/render/score_sheet.py) and /history's lines
(bot/ui/history.py): every round per player, within Discord's limits, in both languages."""

from __future__ import annotations

import random

import pytest

from bot.games.skipbo import engine as skipbo
from bot.games.skipbo.ai import LEVELS as SKIPBO_LEVELS
from bot.games.skipbo.message import table_body as skipbo_body
from bot.games.skyjo import ai as skyjo_ai
from bot.games.skyjo import engine as skyjo
from bot.games.skyjo.message import table_body as skyjo_body
from bot.render import score_sheet
from bot.render.score_sheet import MAX_EMBED, MAX_FIELD, embed_size, sheet_fields
from bot.storage.results import PlayedGame
from bot.ui import history

EIGHT = ["Alice", "Bob", "Chloé", "Dave", "Eve", "Frank", "Gina", "Henri-Philippe de Longnom"]


def skyjo_game(names: list[str], limit: int, *, stop_after: int | None = None, seed: int = 1) -> skyjo.State:
    """A Skyjo game played by the normal computer player, to its end or to the end of a round."""
    game = skyjo.new_game(names, seed=seed, options=skyjo.Options(score_limit=limit))
    rng = random.Random(seed)
    while not game.is_over:
        seat = game.seats_to_act()[0]
        game.apply(seat, skyjo_ai.normal(game.view(seat), rng))
        if stop_after is not None and game.phase == "round_over" and len(game.rounds) == stop_after:
            break
    return game


def sheet_of(embed: dict[str, object]) -> list[dict[str, str]]:
    fields = embed["fields"]
    assert isinstance(fields, list)
    return [f for f in fields if f["name"].startswith(("Score sheet", "Feuille de marque"))]


def rows(field: dict[str, str]) -> list[list[str]]:
    """The code block's lines, split in cells (a name is one word here)."""
    block = field["value"].split("```")[1].strip("\n")
    return [line.split() for line in block.splitlines()]


def test_no_sheet_before_the_first_round_ends() -> None:
    game = skyjo.new_game(EIGHT[:3], seed=2)
    body = skyjo_body(game.view(None), EIGHT[:3], locale="en")
    assert body.embed is not None and sheet_of(body.embed) == []


@pytest.mark.parametrize("locale", ["en-US", "fr"])
def test_between_rounds_the_latest_rounds_and_the_folded_count(locale: str) -> None:
    names = EIGHT[:7]
    game = skyjo_game(names, 10_000, stop_after=9)
    body = skyjo_body(game.view(None), names, locale=locale)
    assert body.embed is not None and embed_size(body.embed) <= MAX_EMBED
    (sheet,) = sheet_of(body.embed)
    assert len(sheet["value"]) <= MAX_FIELD and not sheet["inline"]
    head, *lines = rows(sheet)
    shown = score_sheet.LIVE_ROUNDS
    short = "R" if locale == "en-US" else "M"
    assert head == [f"{short}{n}" for n in range(10 - shown, 10)] + ["|", "Total"]
    for seat, line in enumerate(lines):
        assert line[0] == names[seat]
        scores = [r.scores[seat] for r in game.rounds[-shown:]]
        assert line[1:] == [str(s) for s in scores] + ["|", str(game.totals[seat])]
    folded = 9 - shown
    expected = (
        f"{folded} earlier rounds not shown"
        if locale == "en-US"
        else f"{folded} manches précédentes non affichées"
    )
    assert sheet["value"].endswith("```\n" + expected)
    assert "🏆" not in sheet["value"]  # nobody has won yet


@pytest.mark.parametrize("locale", ["en-US", "fr"])
def test_the_final_sheet_has_every_round_and_the_winner(locale: str) -> None:
    game = skyjo_game(EIGHT, 700)
    assert game.is_over and len(game.rounds) > score_sheet.ROUNDS_PER_FIELD
    view = game.view(None)
    body = skyjo_body(view, EIGHT, locale=locale)
    assert body.embed is not None and embed_size(body.embed) <= score_sheet.SHEET_RESERVE
    sheets = sheet_of(body.embed)
    assert len(sheets) == -(-len(game.rounds) // score_sheet.ROUNDS_PER_FIELD)
    seen: list[list[str]] = [[] for _ in EIGHT]
    for number, field in enumerate(sheets):
        assert len(field["value"]) <= MAX_FIELD
        head, *lines = rows(field)
        last = number == len(sheets) - 1
        assert ("Total" in head) == last
        for seat, line in enumerate(lines):
            cells = line[1:]  # "Henri-Philippe de Longnom" is cut to one word: "Henri-Philip"
            if last:
                assert cells[cells.index("|") + 1] == str(game.totals[seat])
                assert ("🏆" in cells) == (seat in view["winners"])
                cells = cells[: cells.index("|")]
            seen[seat].extend(cells)
    for seat in range(len(EIGHT)):
        assert seen[seat] == [str(r.scores[seat]) for r in game.rounds]
    winners = ", ".join(EIGHT[s] for s in view["winners"])
    word = "winner" if locale == "en-US" else "victoire"  # French genders no player: not "gagnant"
    assert sheets[-1]["name"].endswith(f"{word}: {winners}" if locale == "en-US" else f"{word} : {winners}")
    assert rows(sheets[0])[8][0] == "Henri-Philip"


def test_a_final_sheet_without_room_folds_its_earliest_pages() -> None:
    game = skyjo_game(EIGHT, 700)
    rounds = [r.scores for r in game.rounds]
    fields = sheet_fields(EIGHT, rounds, game.totals, "en", final=True, winners=[0], room=1200)
    assert 1 <= len(fields) < -(-len(rounds) // score_sheet.ROUNDS_PER_FIELD)
    assert sum(len(f["name"]) + len(f["value"]) for f in fields) <= 1200
    assert "Total" in rows(fields[-1])[0]
    first_shown = int(rows(fields[0])[0][0][1:])
    assert fields[0]["value"].endswith(f"\n{first_shown - 1} earlier rounds not shown")
    assert sheet_fields(EIGHT, rounds, game.totals, "en", final=True, room=100) == []


def test_names_cannot_break_the_block() -> None:
    names = ["```@everyone", "Bob"]
    fields = sheet_fields(names, [[3, 4]], [3, 4], "en")
    (field,) = fields
    assert field["value"].count("```") == 2


def test_skipbo_shows_a_sheet_only_with_several_rounds() -> None:
    for several in (False, True):
        options = skipbo.Options(stock_size=5, several_rounds=several)
        game = skipbo.new_game(["Alice", "Bob"], seed=4, options=options)
        rng = random.Random(4)
        policy = SKIPBO_LEVELS["normal"]
        while not game.is_over and len(game.rounds) < 2:
            seat = game.seats_to_act()[0]
            game.apply(seat, policy(game.view(seat), rng))
        body = skipbo_body(game.view(None), ["Alice", "Bob"], locale="en")
        assert body.embed is not None
        sheets = sheet_of(body.embed)
        if not several:
            assert sheets == [] and len(body.embed["fields"]) == 2
            continue
        (sheet,) = sheets
        head, alice, bob = rows(sheet)
        assert head == ["R1", "R2", "|", "Total"]
        assert alice[1:3] == [str(r.scores[0]) for r in game.rounds]
        assert bob[-1] == str(game.totals[1])


@pytest.mark.parametrize(
    ("locale", "first", "second"),
    [("en-US", "1st of 3", "2nd of 2"), ("fr", "1er sur 3", "2e sur 2")],
)
def test_history_lines(locale: str, first: str, second: str) -> None:
    games = [
        PlayedGame(42, "skyjo", 1_700_000_000_123, 1, 3, 27, 4, True),
        PlayedGame(7, "skipbo", 1_600_000_000_000, 2, 2, 0, 1, True),  # one round: no score
        PlayedGame(8, "skipbo", 1_600_000_000_000, 2, 2, 0, 3, True),  # several rounds: a score
    ]
    body = history.history_body("Alice *", games, locale)
    assert body.embed is not None
    lines = body.embed["description"].splitlines()
    points = "27 points"
    assert lines[0] == f"**#42** · <t:1700000000:d> · Skyjo · {first} · {points}"
    assert lines[1] == f"**#7** · <t:1600000000:d> · Skip-Bo · {second}"
    assert lines[2].endswith(" · 0 points" if locale == "en-US" else " · 0 point")  # French: 0 is singular
    assert body.embed["title"].endswith("Alice \\*")
    empty = history.history_body("Carol", [], locale)
    assert empty.embed is not None and "footer" not in empty.embed
    assert "Carol" in empty.embed["description"]


def test_the_sheet_keeps_to_the_fields_left() -> None:
    rounds = [[n, -n] for n in range(40)]
    fields = sheet_fields(["Alice", "Bob"], rounds, [0, 0], "en", final=True, slots=2)
    assert len(fields) == 2 and "Total" in rows(fields[-1])[0]
    assert fields[0]["value"].endswith("\n24 earlier rounds not shown")
