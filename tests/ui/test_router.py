"""The one door for clicks (bot/ui/router.py) and the one funnel for errors (bot/ui/errors.py), with
light fakes of an interaction: the forgery check is made once, before any handler; every handler's
failure becomes one private answer and at most one log line (ERROR only for the unexpected)."""

from __future__ import annotations

import asyncio
import logging
import re
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.games.registry import BY_PREFIX
from bot.i18n import translate as t
from bot.service import Refused
from bot.storage import DatabaseBusy
from bot.ui.clicks import TableUI
from bot.ui.router import Route, Router, prefix_of

LOCALE = "en-US"


class Response:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bool]] = []

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, text: str, *, ephemeral: bool = False) -> None:
        self.sent.append((text, ephemeral))


def click(custom_id: str, on_message: list[str] | None = None) -> Any:
    """A component interaction on a message whose buttons are ``on_message`` (default: the clicked)."""
    shown = [custom_id] if on_message is None else on_message
    row = SimpleNamespace(children=[SimpleNamespace(custom_id=c) for c in shown])
    return SimpleNamespace(
        data={"custom_id": custom_id},
        message=SimpleNamespace(components=[row]),
        user=SimpleNamespace(id=7),
        locale=LOCALE,
        channel_id=3,
        guild_id=None,
        response=Response(),
        command=None,
    )


def answers(interaction: Any) -> list[str]:
    assert all(ephemeral for _, ephemeral in interaction.response.sent), "only the clicker reads it"
    return [text for text, _ in interaction.response.sent]


def router_with(handler: Any, **route: Any) -> Router:
    router = Router()
    router.add(Route("zz:", re.compile(r"zz:(?P<n>\d{1,3})"), handler, **route))
    return router


def test_every_table_prefix_has_one_route_and_the_ids_keep_their_format() -> None:
    ui = TableUI(SimpleNamespace(), SimpleNamespace(), SimpleNamespace())  # type: ignore[arg-type]
    routes = {route.prefix: route for route in ui.routes()}
    assert set(routes) == {f"{prefix}:" for prefix in BY_PREFIX} | {"sl:", "sf:"}
    for prefix in BY_PREFIX:
        assert routes[f"{prefix}:"].pattern.fullmatch(f"{prefix}:12:3:rv:-1")
        assert not routes[f"{prefix}:"].pattern.fullmatch(f"{prefix}:12:3:rv")
    assert routes["sl:"].pattern.fullmatch("sl:42:jn")
    # The set-up form (issue 49): a modal's id is on no message, and only a modal submit carries it.
    form = routes["sf:"]
    assert form.pattern.fullmatch("sf:42:1") and not form.on_message and form.accepts is not None
    submit = SimpleNamespace(type=discord.InteractionType.modal_submit)
    clicked = SimpleNamespace(type=discord.InteractionType.component)
    match = form.pattern.fullmatch("sf:42:0")
    assert match and form.accepts(submit, match) and not form.accepts(clicked, match)
    assert prefix_of("rpl:1:2:n") == "rpl:" and prefix_of("nocolon") == "" and prefix_of(":x") == ""
    with pytest.raises(ValueError, match="two routes"):
        Router().add(*ui.routes(), *ui.routes())


def test_forged_clicks_reach_no_handler_and_get_the_routes_refusal() -> None:
    taken: list[str] = []

    async def handler(interaction: Any, custom_id: str) -> None:
        taken.append(custom_id)

    def small(interaction: Any, match: re.Match[str]) -> bool:
        return int(match["n"]) < 100

    router = router_with(handler, forged_key="lb.error.forged", accepts=small)
    forged = [
        click("zz:abc"),  # malformed
        click("zz:12", on_message=["zz:13"]),  # well formed, not on the clicked message
        click("zz:" + "1" * 200),  # too long for a custom_id
        click("zz:500"),  # refused by the route's own check
    ]
    for interaction in forged:
        asyncio.run(router.dispatch(interaction))
        assert answers(interaction) == [t("lb.error.forged", LOCALE)]
    foreign = click("other:1")  # no route: not ours, unanswered
    asyncio.run(router.dispatch(foreign))
    assert answers(foreign) == []
    good = click("zz:12")
    asyncio.run(router.dispatch(good))
    assert taken == ["zz:12"] and answers(good) == []


def test_a_route_may_waive_the_on_message_check() -> None:
    taken: list[str] = []

    async def handler(interaction: Any, custom_id: str) -> None:
        taken.append(custom_id)

    router = router_with(handler, on_message=False)
    asyncio.run(router.dispatch(click("zz:1", on_message=[])))
    assert taken == ["zz:1"]


@pytest.mark.parametrize(
    ("error", "key", "level"),
    [
        (Refused("table.error.not_your_turn"), "table.error.not_your_turn", logging.DEBUG),
        (DatabaseBusy(5000), "table.error.unavailable", logging.WARNING),
        (RuntimeError("a bug"), "table.error.internal", logging.ERROR),
    ],
)
def test_the_funnel_answers_each_failure_and_logs_it_at_its_level(
    error: Exception, key: str, level: int, caplog: pytest.LogCaptureFixture
) -> None:
    async def handler(interaction: Any, custom_id: str) -> None:
        raise error

    after: list[str] = []

    async def then(interaction: Any, custom_id: str) -> None:
        after.append(custom_id)

    interaction = click("zz:1")
    with caplog.at_level(logging.DEBUG, logger="bot.ui.errors"):
        asyncio.run(router_with(handler, after=then).dispatch(interaction))
    assert answers(interaction) == [t(key, LOCALE)]
    records = [r for r in caplog.records if r.name == "bot.ui.errors"]
    assert [r.levelno for r in records] == [level]
    assert after == ["zz:1"], "a route's after runs even when its handler failed"
