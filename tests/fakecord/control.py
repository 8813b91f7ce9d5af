"""A client of the control API of ``python -m fakecord serve`` (fakecord/serve.py): a test acts as the
users of a fake Discord that runs in another process or container, and reads what they see.

Waiting waits for the thing itself: :meth:`FakeControl.until` asks the fake for the messages again only
when its world changed (``after=version``, answered at the change), never on a timer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

import aiohttp

T = TypeVar("T")

READY = re.compile(r"at (http://\S+) \(listening on \S+?:(\d+)\), control API on \S+?:(\d+)")


class ControlError(AssertionError):
    """The control API refused (404: unknown thing; 409: Discord's client would not, or no bot hears)."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(f"{status}: {error}")
        self.status = status
        self.error = error


class FakeControl:
    """``async with FakeControl("http://127.0.0.1:8081") as fake: ...``"""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> FakeControl:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        assert self._session is not None, "use FakeControl as an async context manager"
        async with self._session.request(method, self.url + path, **kwargs) as answer:
            data = await answer.json()
            if answer.status != 200:
                raise ControlError(answer.status, str(data.get("error")))
            return data

    async def world(self, *, after: int | None = None, timeout: float = 10) -> dict[str, Any]:
        """The fake's world; with ``after``, once its version passed that (or ``timeout`` passed)."""
        params = {} if after is None else {"after": str(after), "timeout": str(timeout)}
        data: dict[str, Any] = await self._call("GET", "/world", params=params)
        return data

    async def channel_on_shard(self, shard: int) -> str:
        """The id of the first channel of the first guild on ``shard``."""
        for guild in (await self.world())["guilds"]:
            if guild["shard"] == shard:
                return str(guild["channels"][0]["id"])
        raise AssertionError(f"no guild on shard {shard}")

    async def command(
        self, user: str, channel: str, name: str, subcommand: str | None = None, **options: Any
    ) -> str:
        body = {"user": user, "channel": channel, "name": name, "subcommand": subcommand, "options": options}
        return str((await self._call("POST", "/command", json=body))["interaction"])

    async def click(self, user: str, message: dict[str, Any], custom_id: str) -> tuple[str, str | None]:
        """``user`` clicks on ``message`` as they saw it (its revision); (interaction id, why it failed)."""
        body = {"user": user, "message": message["id"], "custom_id": custom_id}
        body["revision"] = message["revision"]
        data = await self._call("POST", "/click", json=body)
        return str(data["interaction"]), data["failed"]

    async def answer(self, interaction: str, timeout: float = 3.5) -> dict[str, Any]:
        """``{"answered", "type", "message"}``: the bot's first answer within ``timeout`` seconds."""
        data: dict[str, Any] = await self._call(
            "GET", f"/interactions/{interaction}", params={"timeout": str(timeout)}
        )
        return data

    async def messages(
        self, user: str, channel: str, *, after: int | None = None, timeout: float = 10
    ) -> tuple[int, list[dict[str, Any]]]:
        params = {"user": user, "channel": channel}
        if after is not None:
            params.update(after=str(after), timeout=str(timeout))
        data = await self._call("GET", "/messages", params=params)
        return int(data["version"]), list(data["messages"])

    async def problems(self) -> dict[str, list[str]]:
        data: dict[str, list[str]] = await self._call("GET", "/problems")
        return data

    async def until(
        self,
        user: str,
        channel: str,
        found: Callable[[list[dict[str, Any]]], T | None],
        what: str,
        timeout: float = 30,
    ) -> T:
        """What ``found`` returns (not None, not False) of ``user``'s messages in ``channel``, asked
        again at each change of the fake's world, for at most ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        version, shown = await self.messages(user, channel)
        while True:
            value = found(shown)
            if value is not None and value is not False:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}; {user} sees: {shown[-3:]}")
            version, shown = await self.messages(user, channel, after=version, timeout=min(left, 10))

    async def sessions_live(self, shards: set[int], timeout: float = 60) -> None:
        """Until a live gateway session runs each of ``shards``, asked again at each change."""
        deadline = time.monotonic() + timeout
        world = await self.world()
        while not shards <= {s["shard"] for s in world["sessions"] if s["live"]}:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no live session on each of shards {shards}: {world['sessions']}")
            world = await self.world(after=world["version"], timeout=min(left, 10))

    async def session_down(self, shard: int, timeout: float = 30) -> None:
        """Until no live gateway session runs ``shard`` (its process died and the fake saw its socket
        close), asked again at each change."""
        deadline = time.monotonic() + timeout
        world = await self.world()
        while any(s["shard"] == shard and s["live"] for s in world["sessions"]):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"shard {shard} still has a live session: {world['sessions']}")
            world = await self.world(after=world["version"], timeout=min(left, 10))


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The enabled buttons with a custom_id of a message's payload (nested rows and containers)."""
    out: list[dict[str, Any]] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for comp in items:
            if comp.get("type") == 2 and comp.get("custom_id") and not comp.get("disabled"):
                out.append(comp)
            walk(comp.get("components") or [])

    walk(message.get("components") or [])
    return out
