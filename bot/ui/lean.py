"""What the bot never reads, discord.py need not build.

Issue 26's profile of a busy bot (docs/performance.md) found discord.py's parsing among the largest
costs of a click: every click's ``INTERACTION_CREATE`` carries the clicked message whole, and every
edit of a message comes back as the message whole, each turned into a ``Message`` with an object per
embed field, row and button (about 42 ``Button`` objects per move on a private panel). The bot reads
none of it but the clicked message's id and flags and whether the clicked id is on it. So:

* :func:`install` trims a click's message before discord.py parses it (:func:`slim_click`): of its
  components, only the clicked one stays (in its row); its embeds and attachments go. The checks that
  a click is on its message (``clicks.dispatchable``, the boards' ``_on_message``) see the same
  answer as before: the clicked component is there exactly when it was.
* :func:`edit_original` and :func:`edit_channel_message` send the same edit requests as discord.py's
  ``edit_original_response`` / ``Webhook.edit_message`` and ``PartialMessage.edit`` (the payload is
  built by discord.py's own ``handle_message_parameters``, through its HTTP client and webhook adapter:
  same routes, rate limits, retries and REST budget) and drop the answer instead of parsing it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import discord
from discord.http import HTTPClient, handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context

COMPONENT = 3  # the interaction type of a click
NO_MENTIONS = discord.AllowedMentions.none()


class Rest(Protocol):
    """What :func:`edit_channel_message` needs of a client (``discord.Client`` is one)."""

    @property
    def http(self) -> HTTPClient: ...


def slim_click(data: dict[str, Any]) -> None:
    """Keep, of a click's message, only what the bot reads (see the module docstring)."""
    if data.get("type") != COMPONENT:
        return
    message = data.get("message")
    clicked = (data.get("data") or {}).get("custom_id")
    if not isinstance(message, dict) or clicked is None:
        return
    kept: list[dict[str, Any]] = []
    for row in message.get("components") or ():
        for child in row.get("components") or () if isinstance(row, dict) else ():
            if isinstance(child, dict) and child.get("custom_id") == clicked:
                kept = [{**row, "components": [child]}]
                break
        if kept:
            break
    message["components"] = kept
    message["embeds"] = []
    message["attachments"] = []


def install(parsers: dict[str, Callable[[Any], Any]]) -> None:
    """Trim every click before discord.py's ``INTERACTION_CREATE`` parser sees it."""
    parse = parsers["INTERACTION_CREATE"]

    def slimmed(data: Any) -> Any:
        if isinstance(data, dict):
            slim_click(data)
        return parse(data)

    parsers["INTERACTION_CREATE"] = slimmed


async def edit_original(
    webhook: discord.Webhook,
    *,
    content: str | None = MISSING,
    view: discord.ui.View | None = MISSING,
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
) -> None:
    """Edit an interaction's first answer through its webhook (``interaction.followup``: the token
    lasts 15 minutes), as ``Interaction.edit_original_response`` does, without parsing the answer."""
    with handle_message_parameters(content=content, view=view, allowed_mentions=allowed_mentions) as params:
        assert webhook.token is not None  # an interaction's webhook always has its token
        await async_context.get().edit_original_interaction_response(
            webhook.id,
            webhook.token,
            session=webhook.session,
            proxy=webhook.proxy,
            proxy_auth=webhook.proxy_auth,
            payload=params.payload,
            multipart=params.multipart,
            files=params.files,
        )


async def edit_channel_message(
    client: Rest,
    channel_id: int,
    message_id: int,
    *,
    content: str | None = MISSING,
    embed: discord.Embed | None = MISSING,
    view: discord.ui.View | None = MISSING,
    attachments: Sequence[discord.File] = MISSING,
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
) -> None:
    """Edit one of the bot's channel messages, as ``PartialMessage.edit`` does, without parsing the
    answer. Raises discord.py's ``HTTPException`` family like it."""
    with handle_message_parameters(
        content=content,
        embed=embed,
        view=view,
        attachments=attachments,
        allowed_mentions=allowed_mentions,
    ) as params:
        await client.http.edit_message(channel_id, message_id, params=params)
