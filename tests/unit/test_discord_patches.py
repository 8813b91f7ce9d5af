"""The discord.py patches (bot/discord_patches.py) are checked on the installed discord.py.

An upgrade of discord.py fails here first: whoever upgrades re-checks each patch against the new
version's source (the module docstring says how) and adds the version to ``CHECKED_ON``. The names and
signatures the patches lean on are asserted too, so a change there names the patch it breaks.
"""

from __future__ import annotations

import inspect

import discord
from discord.http import HTTPClient, Route, handle_message_parameters
from discord.state import ConnectionState
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot import discord_patches
from bot.discord_patches import CHECKED_ON, ButtonsView, unchecked_version


def test_installed_discord_py_is_a_version_every_patch_was_checked_on() -> None:
    assert unchecked_version() is None, (
        f"discord.py {discord.__version__} is installed, but bot/discord_patches.py was checked on "
        f"{', '.join(CHECKED_ON)} only: re-check each patch there, then add the version to CHECKED_ON"
    )
    assert unchecked_version("0.0.1") == "0.0.1"


def test_every_patch_says_what_why_and_where_it_was_checked() -> None:
    patches = [
        discord_patches.trim_clicks,
        discord_patches.watch_interactions,
        discord_patches.answer_on_time,
        discord_patches.budget_rest_requests,
        discord_patches.ButtonsView,
        discord_patches.edit_original,
        discord_patches.edit_channel_message,
        discord_patches.quiet_voice_warnings,
        discord_patches.point_at_fake,
    ]
    for patch in patches:
        doc = inspect.getdoc(patch) or ""
        assert "**Checked on** :data:`CHECKED_ON`" in doc, patch.__name__
        assert "**Why**" in doc or "**why**" in doc, patch.__name__


def test_the_internals_the_patches_lean_on_are_still_there() -> None:
    # 1, 2: the parser of INTERACTION_CREATE, called with the raw payload.
    assert callable(ConnectionState.parse_interaction_create)
    # 3: the webhook adapter's request, as OnTimeAdapter overrides it, and where discord.py finds it.
    wanted = {"payload", "multipart", "proxy", "proxy_auth", "files", "reason", "auth_token", "params"}
    assert wanted <= set(inspect.signature(AsyncWebhookAdapter.request).parameters)
    assert isinstance(async_context.get(), AsyncWebhookAdapter)
    assert callable(discord.utils._to_json)
    # 4: every bot-token request goes through HTTPClient.request(route, ...).
    assert list(inspect.signature(HTTPClient.request).parameters)[:2] == ["self", "route"]
    # 5: the private state ButtonsView sets instead of calling View.__init__.
    source = inspect.getsource(discord.ui.view.BaseView.__init__)
    assert "self.__timeout = timeout" in source and "self._children" in source
    view = ButtonsView([[{"type": 2, "style": 2, "label": "a", "custom_id": "x"}]])
    assert view.timeout is None and view.is_finished() and not view.is_dispatchable()
    assert view.to_components() == [{"type": 1, "components": [view._rows[0][0]]}]
    # 6: the edits built by discord.py's own parameter handling.
    params = set(inspect.signature(handle_message_parameters).parameters)
    assert {"content", "embed", "view", "attachments", "allowed_mentions"} <= params
    assert callable(AsyncWebhookAdapter.edit_original_interaction_response)
    assert callable(HTTPClient.edit_message)
    # 7: the voice warnings are class attributes.
    assert hasattr(discord.VoiceClient, "warn_nacl") and hasattr(discord.VoiceClient, "warn_dave")
    # 8: every URL is built on Route.BASE; the gateway falls back to DEFAULT_GATEWAY.
    assert "self.BASE + self.path" in inspect.getsource(Route.__init__)
    assert "cls.DEFAULT_GATEWAY" in inspect.getsource(discord.gateway.DiscordWebSocket.from_client)
