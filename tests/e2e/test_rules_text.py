"""Issue 38 item 1: the Rules button says the rules of THIS table's grid, in English and French.

The engine clears a column when its ``rows`` cards are face up and equal, and a row (row clearing on)
when its ``columns`` cards are (``bot/games/skyjo/engine.py``); the Rules text says those numbers,
not the default grid's three (SKY-COL-1, SKY-ROW-1).
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import button, private_answer, start_table


async def rules_of(fake: Any, user: Any, table_message: Any) -> str:
    answer = await private_answer(await fake.click(user, table_message, button(table_message, "ru")))
    return str(answer.text)


@pytest.mark.parametrize(
    ("options", "english", "french"),
    [
        (
            {"columns": 5, "rows": 4},
            ["A column whose 4 cards are face up and equal leaves your grid at once."],
            ["Une colonne dont les 4 cartes sont visibles et identiques quitte aussitôt ta grille."],
        ),
        (
            {"columns": 3, "rows": 2, "row_clearing": True, "edition": "voyage"},
            [
                "A column whose 2 cards are face up and equal leaves your grid at once.",
                "a row whose 3 cards are face up and equal leaves your grid too.",
            ],
            [
                "Une colonne dont les 2 cartes sont visibles et identiques quitte aussitôt ta grille.",
                "une rangée dont les 3 cartes sont visibles et identiques quitte ta grille.",
            ],
        ),
        (
            {"columns": 5, "rows": 4, "row_clearing": True},
            [
                "A column whose 4 cards are face up and equal leaves your grid at once; once a row has"
                " left, the cards still in the column are enough, 3 at least.",
                "a row whose 5 cards are face up and equal leaves your grid too; once a column has left,"
                " the cards still in the row are enough, 3 at least.",
            ],
            [
                "Une colonne dont les 4 cartes sont visibles et identiques quitte aussitôt ta grille ;"
                " une fois une rangée partie, les cartes restées dans la colonne suffisent, 3 au moins.",
                "une rangée dont les 5 cartes sont visibles et identiques quitte ta grille ; une fois"
                " une colonne partie, les cartes restées dans la rangée suffisent, 3 au moins.",
            ],
        ),
    ],
)
async def test_the_rules_say_how_many_equal_cards_clear_a_line_of_this_grid(
    fake_discord: Any, skybo: Any, options: dict[str, Any], english: list[str], french: list[str]
) -> None:
    """SKY-COL-1 / SKY-ROW-1 with another grid: the numbers of the table's own grid, in both languages."""
    fake = fake_discord
    bot = await skybo()
    alice, carol = fake.user("alice"), fake.user("carol")  # carol reads French
    table_message, game_id = await start_table(fake, bot, alice, [carol], **options)
    game = bot.service.tables[game_id].state
    assert (game.options.columns, game.options.rows) == (options["columns"], options["rows"])
    en, fr = await rules_of(fake, alice, table_message), await rules_of(fake, carol, table_message)
    assert en.startswith("**Skyjo — the rules at this table**") and f"{options['columns']} × " in en
    assert fr.startswith("**Skyjo — les règles de cette table**")
    for sentence in english:
        assert sentence in en, en
    for sentence in french:
        assert sentence in fr, fr
    # Nothing of the default grid's "three" is left.
    assert "Three equal" not in en and "Trois cartes" not in fr
    assert ("row" in en.replace("rows", "").lower()) == bool(options.get("row_clearing"))
