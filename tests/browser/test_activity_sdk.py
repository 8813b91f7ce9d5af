"""The vendored Embedded App SDK in a real browser, with the fake Discord behind its mock: the chain the
sandbox's Activity frame will use (issue 50). A page loads ``bot/activity/static/vendor`` with
``<script type="module">`` (no build step), makes the SDK's ``DiscordSDKMock`` and replaces its
``authorize`` with a call to the fake's ``POST /_fake/oauth2/authorize`` for a chosen user; the code it
gets is a real one: the fake's ``/oauth2/token`` exchanges it for that user's token."""

from __future__ import annotations

from typing import Any

import aiohttp
from aiohttp import web

from devtools.activity_sdk import BUNDLE, VENDOR
from fakecord import FakeDiscord

PAGE = (
    """<!doctype html><meta charset="utf-8"><title>SDK mock</title>
<script type="module">
import {DiscordSDKMock} from '/vendor/BUNDLE';
const query = new URLSearchParams(location.search);
const sdk = new DiscordSDKMock(query.get('client_id'), query.get('guild_id'), query.get('channel_id'), null);
sdk._updateCommandMocks({
  authorize: async (args) => {
    const body = new URLSearchParams(
      {user_id: query.get('user_id'), client_id: args.client_id, scope: args.scope.join(' ')});
    const answer = await fetch(query.get('fake') + '/_fake/oauth2/authorize', {method: 'POST', body});
    return {code: (await answer.json()).code};
  },
});
await sdk.ready();
const {code} = await sdk.commands.authorize(
  {client_id: query.get('client_id'), response_type: 'code', prompt: 'none', scope: ['identify', 'guilds']});
window.result = {code, instanceId: sdk.instanceId, channelId: sdk.channelId, guildId: sdk.guildId};
</script>"""
).replace("BUNDLE", BUNDLE)


async def test_the_sdks_mock_gets_a_real_code_from_the_fake(browser: Any) -> None:
    fake = await FakeDiscord().start()
    app = web.Application()

    async def index(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    app.router.add_get("/", index)
    app.router.add_static("/vendor/", VENDOR)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    bob, general = fake.user("bob"), fake.channel("general")
    query = (
        f"client_id={fake.application_id}&user_id={bob.id}&guild_id={fake.guild.id}&channel_id={general.id}"
        f"&fake=http://127.0.0.1:{fake.port}"
    )
    page = await browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    try:
        await page.goto(f"http://127.0.0.1:{port}/?{query}")
        await page.wait_for_function("window.result !== undefined", timeout=15000)
        result = await page.evaluate("window.result")
        assert problems == []
        assert (result["channelId"], result["guildId"]) == (str(general.id), str(fake.guild.id))
        form = {
            "grant_type": "authorization_code",
            "code": result["code"],
            "client_id": str(fake.application_id),
            "client_secret": fake.client_secret,
        }
        async with aiohttp.ClientSession() as session:
            async with session.post(f"{fake.api_base}/oauth2/token", data=form) as response:
                token = await response.json()
                assert response.status == 200 and token["scope"] == "identify guilds"
            headers = {"Authorization": f"Bearer {token['access_token']}"}
            async with session.get(f"{fake.api_base}/users/@me", headers=headers) as response:
                assert (await response.json())["id"] == str(bob.id)
    finally:
        await page.close()
        await runner.cleanup()
        await fake.stop()
    fake.assert_clean()
