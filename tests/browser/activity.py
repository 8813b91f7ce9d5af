"""What the Activity page's browser tests share: the fake Discord and the stand-in backend
(tests/activity/page_server.py), a page per player with every websocket frame it received, and moves
made the way a player makes them: by tapping (clicking) the cards the move needs.

A move is chosen by a computer player's policy on the page's own latest frame (what that player sees),
then found among the frame's listed moves and played through the page's elements (``data-key``)."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from bot.games.registry import find
from fakecord import FakeDiscord
from tests.activity.page_server import PageServer

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
WAIT = 20000  # ms: the longest a page may take to show what the bot sent (a loaded machine)


@dataclass
class Player:
    """One player's page and every frame its websocket received, in order."""

    page: Any
    user: Any
    frames: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    async def table(self) -> dict[str, Any]:
        return dict(await self.page.evaluate("window.skybo.table"))

    async def tap(self, key: str) -> None:
        await self.page.click(f'[data-key="{key}"]', no_wait_after=True)


@asynccontextmanager
async def stand_in(
    *, cards: dict[str, str] | None = None
) -> AsyncIterator[tuple[FakeDiscord, PageServer, Any]]:
    """A fake Discord with Activities on and a voice channel, and the stand-in backend before it.
    ``cards``: a username's display choice (``colourblind``)."""
    fake = await FakeDiscord().start()
    fake.enable_activities()
    voice = fake.add_voice_channel("cards")
    choices = {fake.user(name).id: look for name, look in (cards or {}).items()}
    server = await PageServer(fake, cards=choices).start()
    try:
        yield fake, server, voice
    finally:
        await server.stop()
        await fake.stop()
    fake.assert_clean()


async def open_player(
    browser: Any, server: PageServer, user: Any, channel: Any, viewport: dict[str, int], **context: Any
) -> Player:
    """``user``'s page, launched in ``channel``, shown once it holds the table."""
    page = await (await browser.new_context(viewport=viewport, **context)).new_page()
    player = Player(page, user)

    def on_socket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: player.frames.append(json.loads(payload)))

    page.on("websocket", on_socket)
    page.on("pageerror", lambda error: player.problems.append(str(error)))
    await page.goto(server.url(user, channel))
    await page.wait_for_function("window.skybo.table && window.skybo.connection === 'open'", timeout=WAIT)
    return player


def chosen_move(frame: dict[str, Any], seed: int) -> dict[str, Any]:
    """The move the normal computer player would make from this frame's view, among its listed moves."""
    spec = find(frame["view"]["kind"])
    assert spec is not None
    if frame["moves"] == [{"act": "nx", "arg": 0}] or frame["view"]["phase"] == "reveal":
        return random.Random(seed).choice(frame["moves"])
    action = spec.levels["normal"](frame["view"], random.Random(seed))
    for move in frame["moves"]:
        if spec.panel.action_for(move["act"], move["arg"]) == action:
            return move
    raise AssertionError(f"the policy's {action} is not among the page's moves")


def taps(frame: dict[str, Any], move: dict[str, Any]) -> list[str]:
    """The elements (``data-key``) a player taps for ``move``, in order."""
    act, arg = move["act"], move["arg"]
    if act == "nx":
        return ["next"]
    if frame["view"]["kind"] == "skyjo":
        return {"dr": ["draw"], "tk": ["discard", f"cell-{arg}"], "dv": ["discard", f"cell-{arg}"]}.get(
            act, [f"cell-{arg}"]
        )
    if act == "et":
        return ["end"]
    if act == "dc":
        return [f"hand-{frame['view']['hand'].index(move['card'])}", f"mine-discard-{move['pile']}"]
    if move["source"] == "hand":
        return [f"hand-{frame['view']['hand'].index(move['card'])}", f"pile-{move['pile']}"]
    source = {
        "stock": "mine-stock",
        "discard": f"mine-discard-{move['index']}",
        "partner_stock": "partner-stock",
        "partner_discard": f"partner-discard-{move['index']}",
    }[move["source"]]
    return [source, f"pile-{move['pile']}"]


async def play_one(player: Player, seed: int) -> bool:
    """If the page offers a move now, make the one chosen by tapping its cards, and wait until the bot
    answered it; False when the page has nothing to play."""
    state = await player.page.evaluate("({table: window.skybo.table, pending: window.skybo.pending})")
    frame = state["table"]
    if state["pending"] or not frame["moves"]:
        return False
    move = chosen_move(frame, seed)
    for key in taps(frame, move):
        await player.tap(key)
    await player.page.wait_for_function(
        "v => window.skybo.pending === null && window.skybo.table.version > v",
        arg=frame["version"],
        timeout=WAIT,
    )
    return True
