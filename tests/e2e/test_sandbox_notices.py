"""The sandbox page shows what Discord's description refused: a request of the bot's that breaks it (the
400 / 50035 with the field's path) and an answer of the sandbox's own that Discord would not give."""

from __future__ import annotations

from typing import Any

import aiohttp

from bot.sandbox.server import Sandbox


async def test_what_discords_description_refuses_shows_on_the_page() -> None:
    sandbox = Sandbox(bot_factory=lambda: None, port=0)
    fake = sandbox.fake
    await fake.start()
    try:
        channel_id = next(c.id for c in fake.channels.values() if c.guild_id is not None)
        button: dict[str, Any] = {"type": 2, "style": 1, "custom_id": "a", "label": "L" * 81}
        body = {"content": "x", "components": [{"type": 1, "components": [button]}]}
        async with (
            aiohttp.ClientSession() as http,
            http.post(
                f"{fake.api_base}/channels/{channel_id}/messages",
                json=body,
                headers={"Authorization": f"Bot {fake.token}"},
            ) as answer,
        ):
            assert answer.status == 400 and (await answer.json())["code"] == 50035
        sandbox._drain_fake_problems()
        [refused] = sandbox.problems
        assert refused.startswith("warning: Discord refused POST /channels/")
        assert '"label": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH"' in refused

        fake.answer_violations.append("GET /users/{user_id} -> 200: username: BASE_TYPE_REQUIRED")
        sandbox._drain_fake_problems()
        assert sandbox.problems[-1] == (
            "error: the sandbox answered what Discord would not: "
            "GET /users/{user_id} -> 200: username: BASE_TYPE_REQUIRED"
        )
        assert fake.answer_violations == [] and fake.rejections == []
    finally:
        await fake.stop()
