"""Issue 38 item 7: the table's per-player fields (its full text, shown without the picture or for a
player who reads it in words; since issue 40 a text display each) wrap between phrases only
(messages.phrased):
"CPU 1" and "0 points" stay whole, the Skip-Bo stock's "8 left" too. The spaces
inside a phrase are non-breaking; the ones Discord may break at are after ", " and ": ", and round
" · " and " — ". Through the fake Discord (the table is in the server's language, English), and the
French words of the same fields from the same code."""

from __future__ import annotations

from typing import Any

from bot.games.skipbo.message import table_body as skipbo_body
from bot.games.skyjo.message import table_body as skyjo_body
from bot.render.names import ComputerName
from bot.ui.views import table_message as render_table

from .conftest import start_table
from .skipbo_helpers import start_skipbo

NB = "\u00a0"


def breaks(text: str) -> list[str]:
    """The pieces a narrow field may put on lines of their own (split at ordinary spaces)."""
    return text.split(" ")


async def test_skyjo_computer_field_name_breaks_only_before_its_total(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    _, game_id = await start_table(fake, bot, fake.user("alice"), [], computers=1, turn_limit=0)
    await bot.presenter.flush()
    fields = (render_table(bot.service.tables[game_id], "en-US").embed or {})["fields"]  # the full text
    names = [f["name"] for f in fields[:2]]
    computer = next(n for n in names if "CPU" in n)
    assert breaks(computer.removeprefix("▶ ")) == [f"CPU{NB}1", "—", f"0{NB}points"]
    # The French table says it the same way.
    table = bot.service.tables[game_id]
    body = skyjo_body(table.state.view(None), table.names(), locale="fr")
    assert body.embed is not None
    french = next(f["name"] for f in body.embed["fields"] if "Ordi" in f["name"])
    assert breaks(french.removeprefix("▶ ")) == [f"Ordi{NB}1", "—", f"0{NB}points"]


async def test_skipbo_stock_line_keeps_its_phrases_whole(fake_discord: Any, skybo: Any) -> None:
    fake = fake_discord
    bot = await skybo()
    _, game_id = await start_skipbo(
        fake, bot, fake.user("alice"), [], computers=1, stock_size=8, turn_limit=0
    )
    await bot.presenter.flush()
    game = bot.service.tables[game_id].state
    fields = (render_table(bot.service.tables[game_id], "en-US").embed or {})["fields"]  # the full text
    for seat, field in enumerate(fields):
        stock = field["value"].split("\n")[0]
        left = len(game.stocks[seat])
        top = game.stocks[seat][-1]
        label = "SB" if top == 0 else str(top)
        assert breaks(stock) == ["Stock:", f"top{NB}card{NB}**{label}**,", f"{left}{NB}left"], stock
    computer = next(f["name"] for f in fields if "CPU" in f["name"])
    assert breaks(computer.removeprefix("▶ ")) == [f"CPU{NB}1"]
    view = game.view(None)
    names = [n if i == 0 else ComputerName(1, "normal") for i, n in enumerate(game.players)]
    body = skipbo_body(view, names, locale="fr")
    assert body.embed is not None
    stock = body.embed["fields"][0]["value"].split("\n")[0]
    assert breaks(stock)[-1] == f"encore{NB}{len(game.stocks[0])}", stock
