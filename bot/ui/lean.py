"""What the bot never reads, discord.py need not build.

Issue 26's profile of a busy bot (docs/performance.md) found discord.py's parsing among the largest
costs of a click: every click's ``INTERACTION_CREATE`` carries the clicked message whole, and every
edit of a message comes back as the message whole, each turned into a ``Message`` with an object per
embed field, row and button (about 42 ``Button`` objects per move on a private panel). The bot reads
none of it but the clicked message's id and flags and whether the clicked id is on it. So:

* :func:`slim_click` trims a click's message before discord.py parses it (installed by
  :func:`bot.discord_patches.trim_clicks`): of its components, only the clicked one stays (in its
  row); its embeds and attachments go. The router's check that a click is on its message
  (:func:`bot.ui.router.on_message`) sees the same answer as before: the clicked component is there
  exactly when it was.
* :func:`bot.discord_patches.edit_original` and :func:`~bot.discord_patches.edit_channel_message`
  send the same edit requests as discord.py's ``edit_original_response`` / ``Webhook.edit_message``
  and ``PartialMessage.edit`` (the payload is built by discord.py's own ``handle_message_parameters``,
  through its HTTP client and webhook adapter: same routes, rate limits, retries and REST budget) and
  drop the answer instead of parsing it. They lean on discord.py's internals, hence live with its
  patches.
"""

from __future__ import annotations

from typing import Any

COMPONENT = 3  # the interaction type of a click
ACTION_ROW = 1


def slim_click(data: dict[str, Any]) -> None:
    """Keep, of a click's message, only what the bot reads (see the module docstring)."""
    if data.get("type") != COMPONENT:
        return
    message = data.get("message")
    clicked = (data.get("data") or {}).get("custom_id")
    if not isinstance(message, dict) or clicked is None:
        return
    kept: list[dict[str, Any]] = []
    # Rows at the top (a message of rows) or inside a Components V2 container: the clicked
    # button's row is kept at the top, alone, where the router looks (its other parts are not read).
    todo = [c for c in message.get("components") or () if isinstance(c, dict)]
    while todo and not kept:
        row = todo.pop(0)
        children = [c for c in row.get("components") or () if isinstance(c, dict)]
        if row.get("type") == ACTION_ROW:
            kept = [{**row, "components": [c]} for c in children if c.get("custom_id") == clicked][:1]
        else:
            todo[:0] = children
    message["components"] = kept
    message["embeds"] = []
    message["attachments"] = []
