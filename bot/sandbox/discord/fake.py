"""A wire-level fake of Discord (REST API v10 + gateway) for end-to-end tests and the local sandbox.

It lives in the package (``bot.sandbox``) because ``python -m bot sandbox`` runs the real bot against
it.

The fake is a real aiohttp server bound to ``127.0.0.1`` on a random port.  A real
``discord.Client`` / ``commands.Bot`` talks to it over HTTP and a websocket exactly as
it would talk to Discord, once :meth:`FakeDiscord.patch` has pointed
``discord.http.Route.BASE`` and ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` at it.

What it offers (see ``tests/e2e/conftest.py`` for the pytest fixtures):

* **A small world**: one guild (``fake.guild``) with ``@everyone`` and a bot role, two
  text channels (``fake.channel("general")``, ``fake.channel("games")``), three human
  members (``fake.user("alice")``, ``"bob"``, ``"carol"``, French locale for carol) and the
  bot member.  Add more with :meth:`FakeDiscord.add_user` / :meth:`FakeDiscord.add_channel`
  *before* the bot connects, and more guilds with :meth:`FakeDiscord.add_guild` (``shard=(1, 2)``
  picks an id on that shard; added while a bot runs, it is the bot joining a guild).
* **Gateway**: HELLO, heartbeat/ACK, IDENTIFY -> READY -> GUILD_CREATE, zlib-stream
  compression (``compress=zlib-stream``), RESUME with replay of missed events,
  REQUEST_GUILD_MEMBERS -> GUILD_MEMBERS_CHUNK, MESSAGE_CREATE/UPDATE/DELETE events for
  public messages (when the bot asked for the message intents).
  :meth:`FakeDiscord.drop_gateway` and :meth:`FakeDiscord.gateway_outage` cut a socket.
* **Shards**, as Discord routes them: IDENTIFY's ``shard: [shard_id, num_shards]`` (absent: ``[0,
  1]``, the whole bot) makes a :class:`GatewaySession` of that shard; READY lists (and carries the
  ``shard``), and GUILD_CREATE, every guild event (channel update/delete, guild delete, messages,
  raw :meth:`FakeDiscord.dispatch`) and every INTERACTION_CREATE go, only to the sessions whose
  ``(guild_id >> 22) % num_shards == shard_id`` (:func:`shard_of`); DMs to shard 0. Several
  processes or clients (``Client(shard_id=, shard_count=)``, ``AutoShardedClient``) may run
  against one fake at once. Refusals: a malformed or out-of-range shard (``num_shards < 1``,
  ``shard_id >= num_shards``) closes with 4010 Invalid shard; ``sharding_required=True`` (a bot
  past Discord's 2,500 guilds per session) closes an unsharded IDENTIFY with 4011 Sharding
  required; ``GET /gateway/bot`` answers ``recommended_shards``. *Stricter than Discord*: Discord
  accepts a second session on a shard that a live session holds, and sessions whose shard counts
  differ (it routes each event to every session its formula selects, so both would receive, and
  answer, the same interactions: the "Interaction has already been acknowledged" of a bot run
  twice). The fake refuses such a newcomer with 4010 and a protocol violation, because for this
  project it is a bug (two processes driving one shard); ``allow_shard_overlap=True`` models
  Discord exactly. A session that dropped without resuming is not live: a new IDENTIFY on its
  shard (the restarted process) takes over and *retires* it (its RESUME then gets
  INVALID_SESSION), as does one of an older shard count.
* **REST**: users, application info, command sync, interaction callbacks (types
  4, 5, 6, 7, 8, 9), follow-ups and original-response edits through the interaction
  webhook, channel messages (create/edit/delete/fetch/history, embeds, components,
  multipart file attachments served back from ``/attachments/...``), DM channels,
  typing, guild members.  :meth:`FakeDiscord.rate_limit` makes the next N calls to a
  route answer 429 the way Discord does, so discord.py sleeps ``retry_after`` and retries;
  :meth:`FakeDiscord.fail` makes them answer 500/502/503/504, before or after acting on them.
* **Test-side actions**: :meth:`FakeDiscord.run_command`, :meth:`FakeDiscord.click`,
  :meth:`FakeDiscord.autocomplete`, :meth:`FakeDiscord.submit_modal`,
  :meth:`FakeDiscord.send_user_message` send a real gateway event and return a handle
  (:class:`FakeInteraction`) whose coroutines wait for the bot's answers (``response()``: the
  callback; ``answer()``: what the user sees, also when the callback was a deferral).
  :meth:`FakeDiscord.delete_channel` (CHANNEL_DELETE, then 404 10003 on it),
  :meth:`FakeDiscord.remove_bot_from_guild` (GUILD_DELETE, then 403 50001 on its channels and 404
  10004 on the guild; :attr:`FakeDiscord.unavailable_guilds` is an outage instead) and
  :meth:`FakeDiscord.set_overwrite` (channel permission overwrites, e.g. the bot's Send Messages
  denied: 403 50013 on posts, edits of its own messages still allowed) change the world under the
  bot.
* **Strictness** (the reason this exists): double acknowledgement -> 400/40060;
  first answer after 3 s or token use after 15 min (on :attr:`FakeDiscord.clock`, a
  manual clock: ``fake.clock.advance(901)``, or :class:`RealClock`) -> 404/10062 or 401/50027; ephemeral
  messages visible to one user only; clicks on components absent from (or disabled on)
  the message the user sees raise :class:`InteractionRefused`; component/embed/content limits ->
  400/50035 "Invalid Form Body" with Discord's nested ``errors`` shape; unknown routes
  -> 404 *and* recorded.  Every non-2xx answer the fake gives (other than injected
  429s) is a *rejection*.  Clicks are validated like Discord does (COMPONENT_VALIDATION_FAILED):
  a test may click on :meth:`FakeMessage.snapshot` (the message as a user last saw it, before
  the bot's later edits); if the clicked custom_id is no longer on the message as the fake
  holds it now (or is disabled now), the click never reaches the bot, the user's client shows
  "This interaction failed", and the fake records a :class:`FailedClick` (the handle's
  ``failed`` is true and waiting on its answer raises :class:`InteractionFailed`).
  :meth:`FakeDiscord.assert_clean` (run by the fixture at teardown) fails the test if any
  unknown route, rejection, failed click or gateway protocol violation was not consumed by
  the test with :meth:`FakeDiscord.take_rejections` / :meth:`FakeDiscord.take_failed_clicks` /
  :meth:`FakeDiscord.take_protocol_violations`.

Everything the bot sends is recorded in :attr:`FakeDiscord.requests`
(:class:`RecordedRequest`) and every message in :attr:`FakeDiscord.messages`
(:class:`FakeMessage`).  Waiting is done with :meth:`FakeDiscord.wait_until`, which wakes
on every state change of the fake (no polling sleeps).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import datetime as dt
import json
import logging
import math
import mimetypes
import re
import secrets
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiohttp
import discord
import yarl
from aiohttp import web

log = logging.getLogger(__name__)
_T = TypeVar("_T")

API_PREFIX = "/api/v10"
DISCORD_EPOCH_MS = 1420070400000
CALLBACK_DEADLINE = 3.0  # seconds to give the initial answer to an interaction
# What Discord's servers answer for the 5xx statuses FakeDiscord.fail injects: content type, body.
SERVER_ERRORS = {
    500: ("application/json", '{"message": "500: Internal Server Error", "code": 0}'),
    502: (
        "text/html",
        "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway"
        "</h1></center><hr><center>cloudflare</center></body></html>",
    ),
    503: ("text/plain", "upstream connect error or disconnect/reset before headers. reset reason: overflow"),
    504: (
        "text/html",
        "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway "
        "Time-out</h1></center><hr><center>cloudflare</center></body></html>",
    ),
}
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token stays valid
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024

# message flags
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15

# gateway intents we care about
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# component types
ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
AUTO_SELECTS = (5, 6, 7, 8)  # user, role, mentionable, channel selects
SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER = 9, 10, 11, 12, 13, 14, 17
LABEL = 18
KNOWN_COMPONENT_TYPES = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 18}


# --------------------------------------------------------------------------- errors


class FakeDiscordError(Exception):
    """Base class of the errors the fake raises *test-side*."""


class InteractionRefused(FakeDiscordError):
    """A user action that Discord's client would not allow (e.g. clicking an invisible message)."""


class InteractionFailed(FakeDiscordError):
    """Waiting for the bot's answer to a click that failed before reaching it (see :class:`FailedClick`)."""


class DiscordAPIError(Exception):
    """Raised inside a route handler to answer with a Discord error body."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def unknown_message() -> DiscordAPIError:
    return DiscordAPIError(404, 10008, "Unknown Message")


def unknown_channel() -> DiscordAPIError:
    return DiscordAPIError(404, 10003, "Unknown Channel")


class FormErrors:
    """Accumulates Discord's nested ``{"field": {"0": {"_errors": [...]}}}`` error tree."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: Iterable[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def max_length(self, path: list[str | int], value: Any, limit: int) -> None:
        if isinstance(value, str | list) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def __bool__(self) -> bool:
        return bool(self.tree)

    def raise_if_any(self) -> None:
        if self.tree:
            raise DiscordAPIError(400, 50035, "Invalid Form Body", self.tree)


# --------------------------------------------------------------------------- clock & ids


class FakeClock:
    """A manual clock used for every interaction deadline.

    Time only moves when the test calls :meth:`advance`, so deadlines never expire by
    accident on a slow machine and the tests never sleep for real.
    """

    def __init__(self, start: float = 1_000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock cannot go backwards")
        self._now += seconds


class RealClock:
    """Wall-clock time for the fake's deadlines: a late answer fails as it would on Discord (the
    sandbox, and tests of answers on time: ``FakeDiscord(clock=RealClock())``)."""

    def now(self) -> float:
        return time.monotonic()


class SnowflakeFactory:
    """Real-looking, strictly increasing snowflakes (discord.py reads their timestamps)."""

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = now_ms << 22
        self._last = max(candidate, self._last + 1)
        return self._last

    def on_shard(self, shard_id: int, shard_count: int) -> int:
        """A new snowflake whose guild shard, ``(id >> 22) % shard_count``, is ``shard_id``: its
        timestamp moved forward by less than ``shard_count`` milliseconds (still strictly increasing)."""
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"shard {shard_id} is not one of {shard_count}")
        snowflake = self()
        timestamp = snowflake >> 22
        timestamp += (shard_id - timestamp) % shard_count
        self._last = max(self._last, (timestamp << 22) | (snowflake & ((1 << 22) - 1)))
        return self._last


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """Discord's sharding formula: the shard (of ``shard_count``) that receives a guild's events;
    events without a guild (DMs) go to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


# --------------------------------------------------------------------------- world model


@dataclass(eq=False)
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    type: int = 0  # 0 guild text, 1 DM
    guild_id: int | None = None
    position: int = 0
    recipient: FakeUser | None = None
    # Permission overwrites as Discord's overwrite objects: target id -> (type 0 role / 1 member, allow,
    # deny); the @everyone role's id is the guild's. See FakeGuild.permissions_of and set_overwrite.
    overwrites: dict[int, tuple[int, int, int]] = field(default_factory=dict)

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> dict[str, Any]:
        if self.type == 1:
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": None,
                "recipients": [self.recipient.payload()] if self.recipient else [],
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [
                {"id": str(target), "type": kind, "allow": str(allow), "deny": str(deny)}
                for target, (kind, allow, deny) in self.overwrites.items()
            ],
            "nsfw": False,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "flags": 0,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        return data


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def payload(self) -> dict[str, Any]:
        return {
            "user": self.user.payload(),
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    preferred_locale: str = "en-US"
    roles: list[FakeRole] = field(default_factory=list)
    channels: list[FakeChannel] = field(default_factory=list)
    members: dict[int, FakeMember] = field(default_factory=dict)

    def permissions_of(self, user_id: int, channel: FakeChannel | None = None) -> int:
        """Discord's computation: the roles' permissions (none for a non-member), then, in ``channel``,
        its overwrites (@everyone's, the member's roles' together, the member's own; deny before allow).
        The owner and administrators have everything, overwrites or not."""
        if user_id == self.owner_id:
            return discord.Permissions.all().value
        member = self.members.get(user_id)
        if member is None:
            return 0
        value = 0
        for role in self.roles:
            if role.id == self.id or role.id in member.roles:
                value |= role.permissions
        if value & discord.Permissions(administrator=True).value:
            return discord.Permissions.all().value
        if channel is not None and channel.overwrites:
            layers = [channel.overwrites.get(self.id)]
            roles = [channel.overwrites[r] for r in member.roles if r in channel.overwrites]
            layers.append((0, _or(a for _, a, _ in roles), _or(d for _, _, d in roles)) if roles else None)
            layers.append(channel.overwrites.get(user_id))
            for layer in layers:
                if layer is not None:
                    _, allow, deny = layer
                    value = (value & ~deny) | allow
        return value

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "preferred_locale": self.preferred_locale,
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [r.payload() for r in self.roles],
            "channels": [c.payload() for c in self.channels],
            "threads": [],
            "members": [m.payload() for m in self.members.values()],
            "member_count": len(self.members),
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "large": False,
            "lazy": True,
            "unavailable": False,
            "joined_at": iso_now(),
            "max_members": 500000,
            "max_video_channel_users": 25,
            "application_id": None,
            "nsfw": False,
        }


# --------------------------------------------------------------------------- components


def walk_components(components: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Yields every component of a component tree, depth first."""
    for comp in components:
        yield comp
        children = comp.get("components")
        if isinstance(children, list):
            yield from walk_components(children)
        for key in ("accessory", "component"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from walk_components([child])


def _validate_button(comp: dict[str, Any], path: list[str | int], errors: FormErrors) -> None:
    style = comp.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        errors.add([*path, "style"], "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}.")
        return
    errors.max_length([*path, "label"], comp.get("label"), 80)
    if style == 5:
        if not comp.get("url"):
            errors.add([*path, "url"], "BASE_TYPE_REQUIRED", "This field is required")
        if comp.get("custom_id") is not None:
            errors.add(
                [*path, "custom_id"],
                "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                "Link buttons cannot have a custom_id.",
            )
    elif style == 6:
        if not comp.get("sku_id"):
            errors.add([*path, "sku_id"], "BASE_TYPE_REQUIRED", "This field is required")
    else:
        if not comp.get("custom_id"):
            errors.add([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
        if comp.get("url") is not None:
            errors.add(
                [*path, "url"], "BUTTON_COMPONENT_URL_NOT_ALLOWED", "Non-link buttons cannot have a url."
            )
    if style != 6 and not comp.get("label") and not comp.get("emoji"):
        errors.add(path, "BUTTON_COMPONENT_INVALID", "A button must have a label or an emoji.")


def _validate_select(comp: dict[str, Any], path: list[str | int], errors: FormErrors) -> None:
    if not comp.get("custom_id"):
        errors.add([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
    errors.max_length([*path, "placeholder"], comp.get("placeholder"), 150)
    min_values = comp.get("min_values", 1)
    max_values = comp.get("max_values", 1)
    if not isinstance(min_values, int) or not 0 <= min_values <= 25:
        errors.add([*path, "min_values"], "NUMBER_TYPE_MAX", "int value should be between 0 and 25.")
    if not isinstance(max_values, int) or not 1 <= max_values <= 25:
        errors.add([*path, "max_values"], "NUMBER_TYPE_MAX", "int value should be between 1 and 25.")
    if comp.get("type") == STRING_SELECT:
        options = comp.get("options") or []
        if not 1 <= len(options) <= 25:
            errors.add([*path, "options"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length.")
        values = set()
        for j, opt in enumerate(options):
            opath: list[str | int] = [*path, "options", j]
            if not opt.get("label"):
                errors.add([*opath, "label"], "BASE_TYPE_REQUIRED", "This field is required")
            errors.max_length([*opath, "label"], opt.get("label"), 100)
            errors.max_length([*opath, "value"], opt.get("value"), 100)
            errors.max_length([*opath, "description"], opt.get("description"), 100)
            if opt.get("value") in values:
                errors.add(
                    [*opath, "value"],
                    "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    "Option values must be unique.",
                )
            values.add(opt.get("value"))
        if isinstance(max_values, int) and options and max_values > len(options):
            errors.add(
                [*path, "max_values"],
                "SELECT_COMPONENT_MAX_VALUES_TOO_HIGH",
                "max_values must be less than or equal to the number of options.",
            )
    if isinstance(min_values, int) and isinstance(max_values, int) and min_values > max_values:
        errors.add(
            [*path, "min_values"],
            "SELECT_COMPONENT_MIN_VALUES_TOO_HIGH",
            "min_values must not exceed max_values.",
        )


def _validate_component(
    comp: Any, path: list[str | int], errors: FormErrors, *, v2: bool, top_level: bool
) -> None:
    if not isinstance(comp, dict):
        errors.add(path, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
        return
    ctype = comp.get("type")
    if ctype not in KNOWN_COMPONENT_TYPES:
        errors.add(
            [*path, "type"],
            "UNION_TYPE_CHOICES",
            f'Value of field "type" must be one of {sorted(KNOWN_COMPONENT_TYPES)}.',
        )
        return
    if "custom_id" in comp:
        errors.max_length([*path, "custom_id"], comp.get("custom_id"), 100)
    if top_level and not v2 and ctype != ACTION_ROW:
        errors.add(
            [*path, "type"],
            "UNION_TYPE_CHOICES",
            'Value of field "type" must be one of (1,) (layout components need IS_COMPONENTS_V2).',
        )
        return
    if not v2 and ctype in (SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER):
        errors.add(
            [*path, "type"], "COMPONENT_TYPE_INVALID", "Layout components require the IS_COMPONENTS_V2 flag."
        )
        return
    if ctype in (TEXT_INPUT, LABEL):
        errors.add([*path, "type"], "COMPONENT_TYPE_INVALID", "This component type is only valid in modals.")
        return
    if ctype == ACTION_ROW:
        children = comp.get("components") or []
        if not 1 <= len(children) <= 5:
            errors.add([*path, "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
        types = [c.get("type") for c in children if isinstance(c, dict)]
        selects = [t for t in types if t in (STRING_SELECT, *AUTO_SELECTS)]
        if selects and len(children) > 1:
            errors.add(
                [*path, "components"],
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        for j, child in enumerate(children):
            cpath: list[str | int] = [*path, "components", j]
            if isinstance(child, dict) and child.get("type") not in (BUTTON, STRING_SELECT, *AUTO_SELECTS):
                errors.add(
                    [*cpath, "type"], "UNION_TYPE_CHOICES", "Action rows may only hold buttons and selects."
                )
                continue
            _validate_component(child, cpath, errors, v2=v2, top_level=False)
    elif ctype == BUTTON:
        _validate_button(comp, path, errors)
    elif ctype in (STRING_SELECT, *AUTO_SELECTS):
        _validate_select(comp, path, errors)
    elif ctype == TEXT_DISPLAY:
        if not comp.get("content"):
            errors.add([*path, "content"], "BASE_TYPE_REQUIRED", "This field is required")
        errors.max_length([*path, "content"], comp.get("content"), 4000)
    elif ctype == SECTION:
        children = comp.get("components") or []
        if not 1 <= len(children) <= 3:
            errors.add([*path, "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 3 in length.")
        for j, child in enumerate(children):
            _validate_component(child, [*path, "components", j], errors, v2=v2, top_level=False)
        accessory = comp.get("accessory")
        if not isinstance(accessory, dict) or accessory.get("type") not in (BUTTON, THUMBNAIL):
            errors.add(
                [*path, "accessory"], "BASE_TYPE_REQUIRED", "A section needs a button or thumbnail accessory."
            )
        else:
            _validate_component(accessory, [*path, "accessory"], errors, v2=v2, top_level=False)
    elif ctype == CONTAINER:
        children = comp.get("components") or []
        for j, child in enumerate(children):
            _validate_component(child, [*path, "components", j], errors, v2=v2, top_level=False)
    elif ctype == MEDIA_GALLERY:
        items = comp.get("items") or []
        if not 1 <= len(items) <= 10:
            errors.add([*path, "items"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 10 in length.")


def validate_components(components: Any, path: list[str | int], errors: FormErrors, *, flags: int) -> None:
    """Checks a message's components against Discord's documented limits."""
    if components is None:
        return
    if not isinstance(components, list):
        errors.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
        return
    v2 = bool(flags & FLAG_COMPONENTS_V2)
    if not v2 and len(components) > 5:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    for i, comp in enumerate(components):
        _validate_component(comp, [*path, i], errors, v2=v2, top_level=True)
    all_components = list(walk_components(c for c in components if isinstance(c, dict)))
    if v2 and len(all_components) > 40:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length (total components).")
    seen: set[str] = set()
    for comp in all_components:
        custom_id = comp.get("custom_id")
        if custom_id is None:
            continue
        if custom_id in seen:
            errors.add(path, "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
        seen.add(custom_id)


def validate_embeds(embeds: Any, path: list[str | int], errors: FormErrors) -> None:
    if embeds is None:
        return
    if not isinstance(embeds, list):
        errors.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
        return
    if len(embeds) > 10:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        epath: list[str | int] = [*path, i]
        if not isinstance(embed, dict):
            errors.add(epath, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue
        for key, limit in (("title", 256), ("description", 4096)):
            errors.max_length([*epath, key], embed.get(key), limit)
            total += len(embed.get(key) or "")
        footer = embed.get("footer") or {}
        errors.max_length([*epath, "footer", "text"], footer.get("text"), 2048)
        total += len(footer.get("text") or "")
        author = embed.get("author") or {}
        errors.max_length([*epath, "author", "name"], author.get("name"), 256)
        total += len(author.get("name") or "")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.add([*epath, "fields"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, fld in enumerate(fields):
            fpath: list[str | int] = [*epath, "fields", j]
            for key, limit in (("name", 256), ("value", 1024)):
                if not fld.get(key):
                    errors.add([*fpath, key], "BASE_TYPE_REQUIRED", "This field is required")
                errors.max_length([*fpath, key], fld.get(key), limit)
                total += len(fld.get(key) or "")
    if total > 6000:
        errors.add(path, "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")


def validate_message_body(
    body: dict[str, Any], *, path: list[str | int], flags: int, errors: FormErrors
) -> None:
    content = body.get("content")
    if content is not None and not isinstance(content, str):
        errors.add([*path, "content"], "BASE_TYPE_STRING", "Must be a string.")
    errors.max_length([*path, "content"], content, 2000)
    validate_embeds(body.get("embeds"), [*path, "embeds"], errors)
    validate_components(body.get("components"), [*path, "components"], errors, flags=flags)
    if flags & FLAG_COMPONENTS_V2:
        if body.get("content"):
            errors.add(
                [*path, "content"],
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
        if body.get("embeds"):
            errors.add(
                [*path, "embeds"],
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )


# --------------------------------------------------------------------------- messages


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    url: str
    description: str | None = None
    content_type: str | None = None

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.description is not None:
            out["description"] = self.description
        if self.content_type is not None:
            out["content_type"] = self.content_type
        return out


@dataclass(eq=False)
class FakeMessage:
    """A message in the fake's store.  Mutated in place on edit (see :attr:`history`)."""

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    visible_to: int | None = None  # user id for an ephemeral message, None = everyone
    interaction: FakeInteraction | None = None
    webhook_id: int | None = None
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    deleted: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)  # payloads before each edit
    snapshot_revision: int | None = None  # set on the frozen copies made by snapshot()

    @property
    def is_snapshot(self) -> bool:
        return self.snapshot_revision is not None

    @property
    def revision(self) -> int:
        """0 as sent, +1 at each edit; a snapshot keeps the revision it was taken at."""
        return self.snapshot_revision if self.snapshot_revision is not None else len(self.history)

    def snapshot(self, revision: int | None = None) -> FakeMessage:
        """A frozen copy of the message as a user's client shows it: now, or at ``revision``.

        The bot may edit the message after the user last saw it (the store's message is edited
        in place); :meth:`FakeDiscord.click` on a snapshot clicks "from what the user saw" and
        then checks the click against the message as it is now, like Discord.  A past revision
        is rebuilt from :attr:`history` (content, embeds, components, flags; no attachments).
        """
        if self.is_snapshot:
            if revision is None or revision == self.snapshot_revision:
                return self
            raise ValueError("a snapshot has only its own revision")
        now = len(self.history)
        revision = now if revision is None else revision
        if not 0 <= revision <= now:
            raise ValueError(f"message {self.id} has revisions 0..{now}, not {revision}")
        if revision == now:
            shown = self.payload()
            attachments, deleted = list(self.attachments), self.deleted
        else:
            shown, attachments, deleted = self.history[revision], [], False
        # deep copies: the snapshot must not change when the stored message is edited
        return FakeMessage(
            id=self.id,
            channel_id=self.channel_id,
            guild_id=self.guild_id,
            author=self.author,
            content=shown.get("content") or "",
            embeds=copy.deepcopy(list(shown.get("embeds") or [])),
            components=copy.deepcopy(list(shown.get("components") or [])),
            attachments=attachments,
            flags=int(shown.get("flags") or 0),
            type=self.type,
            visible_to=self.visible_to,
            interaction=self.interaction,
            webhook_id=self.webhook_id,
            timestamp=self.timestamp,
            edited_timestamp=shown.get("edited_timestamp"),
            deleted=deleted,
            snapshot_revision=revision,
        )

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & FLAG_LOADING)

    def visible_for(self, user: FakeUser | int) -> bool:
        user_id = user if isinstance(user, int) else user.id
        return not self.deleted and (self.visible_to is None or self.visible_to == user_id)

    def all_components(self) -> list[dict[str, Any]]:
        return list(walk_components(self.components))

    def component(self, custom_id: str) -> dict[str, Any] | None:
        for comp in self.all_components():
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.all_components() if c.get("custom_id")]

    @property
    def button_labels(self) -> list[str]:
        return [c.get("label") or "" for c in self.all_components() if c.get("type") == BUTTON]

    @property
    def text(self) -> str:
        """Content plus embed titles/descriptions/fields and text displays, for loose assertions."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            for fld in embed.get("fields") or []:
                parts += [fld.get("name") or "", fld.get("value") or ""]
            parts.append((embed.get("footer") or {}).get("text") or "")
        parts += [c.get("content") or "" for c in self.all_components() if c.get("type") == TEXT_DISPLAY]
        return "\n".join(p for p in parts if p)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": self.type,
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction is not None:
            inter = self.interaction
            meta: dict[str, Any] = {
                "id": str(inter.id),
                "type": inter.type,
                "user": inter.user.payload(),
                "authorizing_integration_owners": inter.integration_owners(),
            }
            if inter.type == 2:
                meta["name"] = inter.command_name
            if inter.type == 3 and inter.message is not None:
                meta["interacted_message_id"] = str(inter.message.id)
            data["interaction_metadata"] = meta
        return data


# --------------------------------------------------------------------------- records


@dataclass(eq=False)
class RecordedRequest:
    """One HTTP request the bot made, with the fake's answer."""

    method: str
    path: str
    route: str | None  # e.g. "/channels/{channel_id}/messages", None for unknown routes
    query: dict[str, str]
    json: Any
    files: dict[str, tuple[str | None, bytes]]
    headers: dict[str, str]
    clock: float
    status: int = 0
    response: Any = None

    @property
    def key(self) -> str:
        return f"{self.method} {self.route or self.path}"

    def __repr__(self) -> str:
        return f"<RecordedRequest {self.method} {self.path} -> {self.status}>"


RECORD_KEY = web.RequestKey("fake_discord_record", RecordedRequest)


@dataclass(eq=False)
class Rejection:
    """A non-2xx answer the fake gave because the bot broke a Discord rule."""

    request: RecordedRequest
    status: int
    code: int
    message: str
    errors: dict[str, Any] | None

    def __repr__(self) -> str:
        return (
            f"<Rejection {self.request.method} {self.request.path}: {self.status} {self.code} {self.message}>"
        )


@dataclass(eq=False)
class FailedClick:
    """A click Discord failed before it reached the bot: the user's client says "This interaction failed".

    Discord checks a clicked component against the message as Discord holds it (error
    COMPONENT_VALIDATION_FAILED): a user whose client still shows an older version of the message
    can click a button the bot has since removed, renamed or disabled.
    """

    user: FakeUser
    message_id: int
    custom_id: str
    reason: str
    seen_revision: int  # the message revision the user clicked on
    revision: int  # the revision Discord holds
    clock: float

    def __repr__(self) -> str:
        return (
            f"<FailedClick {self.user.username} on {self.custom_id!r} of message {self.message_id} "
            f"(seen r{self.seen_revision}, now r{self.revision}): {self.reason}>"
        )


@dataclass(eq=False)
class CallbackRecord:
    """An accepted interaction callback (``POST /interactions/{id}/{token}/callback``)."""

    type: int
    data: dict[str, Any]
    message: FakeMessage | None
    request: RecordedRequest


@dataclass
class _FailureRule:
    method: str
    route: str
    remaining: int
    status: int
    applied: bool


@dataclass
class _RateLimitRule:
    method: str
    route: str
    remaining: int
    retry_after: float
    is_global: bool
    scope: str


# --------------------------------------------------------------------------- interactions


_Rule = TypeVar("_Rule", _RateLimitRule, _FailureRule)


def _take_rule(rules: list[_Rule], record: RecordedRequest) -> _Rule | None:
    """The first injected fault with calls left that matches ``record`` (one call of it is used)."""
    for rule in rules:
        if rule.remaining > 0 and rule.method == record.method and rule.route in (record.route, record.path):
            rule.remaining -= 1
            return rule
    return None


class FakeInteraction:
    """A handle on one interaction sent to the bot; its coroutines wait for the bot's answers."""

    def __init__(
        self,
        fake: FakeDiscord,
        *,
        type: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        message: FakeMessage | None = None,
        command_name: str | None = None,
    ) -> None:
        self.fake = fake
        self.id = fake.new_id()
        self.token = "fake-interaction-" + secrets.token_urlsafe(24)
        self.type = type
        self.user = user
        self.channel = channel
        self.data = data
        self.message = message  # the clicked message for component interactions
        self.command_name = command_name
        self.created_at = fake.clock.now()
        self.callback: CallbackRecord | None = None
        self.callback_attempts: list[RecordedRequest] = []
        self.original_message: FakeMessage | None = None
        self.followups: list[FakeMessage] = []
        # Messages the bot wrote through the interaction's webhook (follow-ups, edits), in order.
        self.webhook_writes: list[FakeMessage] = []
        self.failure: FailedClick | None = None  # set when Discord failed the click (never sent)
        self.sessions: list[GatewaySession] = []  # the gateway sessions INTERACTION_CREATE went to

    def __repr__(self) -> str:
        return f"<FakeInteraction id={self.id} type={self.type} user={self.user.username}>"

    @property
    def failed(self) -> bool:
        """True when the click never reached the bot (the user saw "This interaction failed")."""
        return self.failure is not None

    def _check_not_failed(self) -> None:
        # waiting would only time out: say why at once
        if self.failure is not None:
            raise InteractionFailed(f"the click never reached the bot: {self.failure!r}")

    @property
    def guild_id(self) -> int | None:
        return self.channel.guild_id

    @property
    def acknowledged(self) -> bool:
        return self.callback is not None

    def integration_owners(self) -> dict[str, str]:
        if self.guild_id is not None:
            return {"0": str(self.guild_id)}
        return {"1": str(self.user.id)}

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request the bot made with this interaction's id or token."""
        return [r for r in self.fake.requests if self.token in r.path]

    async def response(self, timeout: float = 5.0) -> CallbackRecord:
        """Waits for the bot's accepted initial answer (callback) and returns it."""
        self._check_not_failed()

        def ready() -> CallbackRecord | None:
            return self.callback

        try:
            return await self.fake.wait_until(ready, timeout, what=f"an answer to {self!r}")
        except TimeoutError as exc:
            rejected = [r for r in self.callback_attempts if r.status >= 300]
            raise TimeoutError(f"{exc}; rejected attempts: {rejected}") from None

    async def answer(self, timeout: float = 5.0) -> FakeMessage:
        """Waits for what the user sees as the bot's answer and returns the message showing it: the
        callback's own message when the callback carried the answer (types 4 and 7), else (a
        deferral: 5 "thinking", 6 nothing shown) the first message the bot then wrote through the
        interaction's webhook (an edit of the original response or a follow-up)."""
        record = await self.response(timeout)
        if record.type in (4, 7) and record.message is not None:
            return record.message

        def ready() -> FakeMessage | None:
            return self.webhook_writes[0] if self.webhook_writes else None

        return await self.fake.wait_until(ready, timeout, what=f"the answer after the deferral of {self!r}")

    async def original(self, timeout: float = 5.0) -> FakeMessage:
        """Waits until the original response message exists and is no longer "thinking"."""
        self._check_not_failed()

        def ready() -> FakeMessage | None:
            msg = self.original_message
            if msg is not None and not msg.loading:
                return msg
            return None

        return await self.fake.wait_until(ready, timeout, what=f"the original response of {self!r}")

    async def followup(self, index: int = 0, timeout: float = 5.0) -> FakeMessage:
        """Waits for the ``index``-th follow-up message (0-based) and returns it."""
        self._check_not_failed()

        def ready() -> FakeMessage | None:
            return self.followups[index] if len(self.followups) > index else None

        return await self.fake.wait_until(ready, timeout, what=f"follow-up #{index} of {self!r}")

    @property
    def messages(self) -> list[FakeMessage]:
        """Original response (if any) then follow-ups."""
        out = [self.original_message] if self.original_message is not None else []
        return out + [m for m in self.followups if m is not self.original_message]


# --------------------------------------------------------------------------- gateway


class GatewayConnection:
    def __init__(self, ws: web.WebSocketResponse, *, compress: bool, url: str) -> None:
        self.ws = ws
        self.url = url
        self.compress = compress
        self._compressor = zlib.compressobj() if compress else None
        self._lock = asyncio.Lock()
        self.session: GatewaySession | None = None
        self.closed = False
        self.frames_sent = 0
        self.close_code: int | None = None  # the close code the fake sent on this socket, if it closed it
        self.close_reason = ""

    async def close(self, code: int, reason: str) -> None:
        """The fake closes the socket with a gateway close code (kept on the connection for the tests)."""
        self.close_code, self.close_reason = code, reason
        self.closed = True
        with contextlib.suppress(Exception):
            await self.ws.close(code=code, message=reason.encode())

    async def send(self, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload, separators=(",", ":"))
        async with self._lock:
            if self.closed or self.ws.closed:
                return
            try:
                if self._compressor is not None:
                    blob = self._compressor.compress(raw.encode()) + self._compressor.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(blob)
                else:
                    await self.ws.send_str(raw)
                self.frames_sent += 1
            except (ConnectionError, RuntimeError):
                self.closed = True


class GatewaySession:
    """One IDENTIFYed gateway session: shard ``shard_id`` of ``shard_count`` ([0, 1] when the IDENTIFY
    had no ``shard``). It receives the events of the guilds of its shard (DMs: shard 0) until it is
    *retired*: replaced by a new IDENTIFY on its shard while it was disconnected (a RESUME of it then
    gets INVALID_SESSION)."""

    def __init__(
        self,
        session_id: str,
        intents: int,
        identify: dict[str, Any],
        *,
        shard_id: int = 0,
        shard_count: int = 1,
    ) -> None:
        self.session_id = session_id
        self.intents = intents
        self.identify = identify
        self.shard_id = shard_id
        self.shard_count = shard_count
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self.connection: GatewayConnection | None = None
        self.resumes = 0
        self.retired = False

    def __repr__(self) -> str:
        return f"<GatewaySession {self.session_id[:8]} shard=[{self.shard_id}, {self.shard_count}]>"

    @property
    def shard(self) -> tuple[int, int]:
        return self.shard_id, self.shard_count

    @property
    def live(self) -> bool:
        """A socket is attached and open (a dropped session waiting for its RESUME is not live)."""
        conn = self.connection
        return conn is not None and not conn.closed and not conn.ws.closed

    def handles(self, guild_id: int | None) -> bool:
        """Whether this session receives the events of ``guild_id`` (``None``: a DM, shard 0)."""
        return not self.retired and shard_of(guild_id, self.shard_count) == self.shard_id

    async def dispatch(self, event: str, data: Any) -> None:
        self.seq += 1
        payload = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.events.append(payload)
        if self.connection is not None:
            await self.connection.send(payload)


# --------------------------------------------------------------------------- the fake


class FakeDiscord:
    """The fake Discord server.  Use ``await fake.start()`` / ``await fake.stop()``."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        strict_commands: bool = True,
        clock: Any = None,
        users: Iterable[tuple[str, str, str | None]] | None = None,
        guild_name: str = "Skybo Test Guild",
        recommended_shards: int = 1,
        sharding_required: bool = False,
        allow_shard_overlap: bool = False,
    ) -> None:
        """``clock``: anything with ``now()`` (default a manual :class:`FakeClock`); ``users``:
        ``(username, locale, global_name)`` of the human members (default alice, bob, carol (fr)).

        Shards: ``recommended_shards`` is what ``GET /gateway/bot`` answers; ``sharding_required``
        models a bot past Discord's 2,500 guilds per session: an unsharded IDENTIFY (no ``shard``, or a
        count of 1) is closed with 4011; ``allow_shard_overlap`` lets sessions on the same shard, or
        with different shard counts, live together as Discord allows (each receives the events its
        shard formula selects), instead of refusing the newcomer with 4010 (the default)."""
        if recommended_shards < 1:
            raise ValueError("recommended_shards must be at least 1")
        self.token = token
        self.recommended_shards = recommended_shards
        self.sharding_required = sharding_required
        self.allow_shard_overlap = allow_shard_overlap
        self.max_concurrency = 1  # session_start_limit.max_concurrency of GET /gateway/bot
        self.strict_commands = strict_commands
        self.clock = clock if clock is not None else FakeClock()
        self._guild_name = guild_name
        self._initial_users = (
            list(users)
            if users is not None
            else [("alice", "en-US", None), ("bob", "en-US", None), ("carol", "fr", None)]
        )
        self._listeners: list[Callable[[], None]] = []
        self._background: set[asyncio.Future[Any]] = set()
        self.heartbeat_ack_delay = 0.0  # seconds; the sandbox sets a network-like delay
        # Guilds in an outage: READY lists them (unavailable) but no GUILD_CREATE follows.
        self.unavailable_guilds: set[int] = set()
        self.new_id = SnowflakeFactory()
        self.port: int = 0
        self._runner: web.AppRunner | None = None
        self._changed = asyncio.Event()

        # recordings
        self.requests: list[RecordedRequest] = []
        self.unknown_routes: list[RecordedRequest] = []
        self.rejections: list[Rejection] = []
        self.failed_clicks: list[FailedClick] = []
        self.rate_limited: list[RecordedRequest] = []
        self.protocol_violations: list[str] = []
        self.internal_errors: list[str] = []
        self.gateway_urls: list[str] = []
        self.gateway_connections: list[GatewayConnection] = []  # every socket, with .compress/.frames_sent
        # (close code, reason) of every gateway socket the fake closed itself, in order
        self.gateway_closes: list[tuple[int, str]] = []
        self.heartbeats = 0
        self.presence_updates: list[dict[str, Any]] = []
        self._rate_limits: list[_RateLimitRule] = []
        self.server_errors: list[RecordedRequest] = []  # requests answered with an injected 5xx
        self._failures: list[_FailureRule] = []

        # world
        self.bot_user = FakeUser(self.new_id(), "Skybo", bot=True)
        self.application_id = self.bot_user.id
        self.owner = FakeUser(self.new_id(), "owner")
        self.users: dict[int, FakeUser] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self.global_commands: dict[str, dict[str, Any]] = {}
        self.guild_commands: dict[int, dict[str, dict[str, Any]]] = {}
        self.modals: list[tuple[FakeInteraction, dict[str, Any]]] = []
        self.dm_channels: dict[int, FakeChannel] = {}

        # gateway
        self.sessions: dict[str, GatewaySession] = {}
        self.session: GatewaySession | None = None
        self._connections: list[GatewayConnection] = []
        self._gateway_open = asyncio.Event()
        self._gateway_open.set()
        self._clients: list[tuple[discord.Client, asyncio.Task[None]]] = []

        self._build_world()

    # ------------------------------------------------------------------ world

    def _build_world(self) -> None:
        self.users[self.bot_user.id] = self.bot_user
        self.users[self.owner.id] = self.owner
        self.guild = self._new_guild(self.new_id(), self._guild_name)
        self.add_channel("general")
        self.add_channel("games")
        for username, locale, global_name in self._initial_users:
            self.add_user(username, locale=locale, global_name=global_name)

    def _new_guild(self, gid: int, name: str) -> FakeGuild:
        """A guild with @everyone, the bot's role, the owner and the bot as members."""
        everyone = FakeRole(
            gid, "@everyone", (discord.Permissions.general() | discord.Permissions.text()).value
        )
        everyone.permissions &= ~discord.Permissions(
            administrator=True, manage_guild=True, manage_roles=True
        ).value
        bot_role = FakeRole(
            self.new_id(),
            "Skybo",
            (discord.Permissions.text() | discord.Permissions(view_channel=True)).value,
            1,
        )
        guild = FakeGuild(gid, name, owner_id=self.owner.id, roles=[everyone, bot_role])
        self.guilds[gid] = guild
        guild.members[self.owner.id] = FakeMember(self.owner)
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, roles=[bot_role.id])
        return guild

    async def add_guild(
        self,
        name: str,
        *,
        shard: tuple[int, int] | None = None,
        channels: Iterable[str] = (),
        members: Iterable[FakeUser] = (),
    ) -> FakeGuild:
        """Adds a guild the bot is in, with text ``channels`` (names unique in the whole fake, for
        :meth:`channel`) and human ``members``. ``shard=(shard_id, shard_count)`` picks its id so that
        it lands on that shard (``(id >> 22) % shard_count``). Added while bots are connected, it is
        the bot joining a guild: GUILD_CREATE goes to the sessions of its shard."""
        gid = self.new_id() if shard is None else self.new_id.on_shard(*shard)
        guild = self._new_guild(gid, name)
        for channel_name in channels:
            self.add_channel(channel_name, guild=guild)
        for user in members:
            guild.members[user.id] = FakeMember(user)
        await self._guild_event(guild.id, "GUILD_CREATE", guild.payload())
        self._notify()
        return guild

    def add_user(self, username: str, *, locale: str = "en-US", global_name: str | None = None) -> FakeUser:
        """Creates a human user, member of the default guild (do it before the bot connects)."""
        user = FakeUser(self.new_id(), username, global_name=global_name or username.title(), locale=locale)
        self.users[user.id] = user
        self.guild.members[user.id] = FakeMember(user)
        return user

    def add_channel(self, name: str, *, guild: FakeGuild | None = None) -> FakeChannel:
        """Creates a text channel in ``guild`` (default: the default guild; do it before the bot
        connects)."""
        guild = guild or self.guild
        channel = FakeChannel(self.new_id(), name, 0, guild_id=guild.id, position=len(guild.channels))
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    def user(self, username: str) -> FakeUser:
        for user in self.users.values():
            if user.username == username:
                return user
        raise KeyError(username)

    def channel(self, name: str) -> FakeChannel:
        for channel in self.channels.values():
            if channel.name == name:
                return channel
        raise KeyError(name)

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self.new_id(), "", 1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    # ------------------------------------------------------------------ lifecycle

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def resume_gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/resume"

    async def start(self) -> FakeDiscord:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes(app)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]
        log.debug("fake discord listening on %s", self.port)
        return self

    async def stop(self) -> None:
        for client, task in list(self._clients):
            await self._stop_client(client, task)
        self._gateway_open.set()
        for conn in list(self._connections):
            conn.closed = True
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def patch(self, monkeypatch: Any) -> None:
        """Points discord.py at this fake (``monkeypatch`` is pytest's fixture)."""
        monkeypatch.setattr(discord.http.Route, "BASE", self.api_base)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(self.gateway_url))

    @contextlib.contextmanager
    def patched(self) -> Iterator[None]:
        """Same as :meth:`patch` without pytest: a context manager restoring the originals."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    @contextlib.asynccontextmanager
    async def running(
        self,
        client: discord.Client,
        *,
        timeout: float = 10.0,
        guild_ready_timeout: float | None = 0.1,
        sync_commands: bool = False,
        token: str | None = None,
    ) -> AsyncIterator[Any]:
        """Starts ``client`` against the fake, waits until it is ready, closes it on exit.

        ``guild_ready_timeout`` overrides discord.py's wait after the last GUILD_CREATE
        (2 s by default) so that readiness takes a fraction of a second; pass ``None`` to
        keep the client's own value.  ``sync_commands=True`` runs ``client.tree.sync()``
        (global) once ready, for bots that do not sync by themselves.  ``token`` defaults
        to :attr:`token` (the one the fake accepts).  If the client's task dies while the
        block runs, leaving the block raises ``RuntimeError`` chained to the cause.
        """
        client_any: Any = client
        if guild_ready_timeout is not None:
            client_any._connection.guild_ready_timeout = guild_ready_timeout
        task = asyncio.create_task(
            client.start(token or self.token), name=f"fake-discord-client-{id(client)}"
        )
        self._clients.append((client, task))
        try:
            await self._wait_ready(client, task, timeout)
            if sync_commands:
                await client_any.tree.sync()
            yield client
        finally:
            crash = await self._stop_client(client, task)
        if crash is not None:
            raise RuntimeError(f"the client crashed while running: {crash!r}") from crash

    async def _wait_ready(self, client: discord.Client, task: asyncio.Task[None], timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not client.is_ready():
            if task.done():
                exc = None if task.cancelled() else task.exception()
                raise RuntimeError(f"the client stopped before it was ready: {exc!r}") from exc
            if loop.time() > deadline:
                raise TimeoutError(f"the client was not ready after {timeout}s")
            await asyncio.sleep(0.005)

    async def _stop_client(self, client: discord.Client, task: asyncio.Task[None]) -> BaseException | None:
        """Closes the client and returns the exception its task died of, if any."""
        if (client, task) in self._clients:
            self._clients.remove((client, task))
        if not client.is_closed():
            await client.close()
        try:
            await asyncio.wait_for(task, 10)
        except asyncio.CancelledError:
            return None
        except Exception as exc:
            return exc
        return None

    # ------------------------------------------------------------------ waiting & checks

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
        for listener in list(self._listeners):
            listener()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Calls ``listener()`` (synchronously, keep it cheap) on every state change of the fake."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def wait_until(
        self, predicate: Callable[[], _T | None], timeout: float = 5.0, *, what: str = "a condition"
    ) -> _T:
        """Returns ``predicate()`` as soon as it is truthy; raises ``TimeoutError`` after ``timeout``.

        The predicate is re-checked on every state change of the fake and at least every
        20 ms, so it may also look at the bot's own state.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
            event = self._changed
            # wake on any change of the fake, and every 20 ms for conditions on bot-side state
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(remaining, 0.02))

    def take_rejections(self, code: int | None = None) -> list[Rejection]:
        """Removes (and returns) the recorded rejections, all or those with this error code."""
        taken = [r for r in self.rejections if code is None or r.code == code]
        self.rejections = [r for r in self.rejections if r not in taken]
        return taken

    async def wait_rejection(self, code: int, timeout: float = 5.0) -> Rejection:
        """Waits for a rejection with this error code and consumes it."""

        def find() -> Rejection | None:
            return next((r for r in self.rejections if r.code == code), None)

        rejection: Rejection = await self.wait_until(find, timeout, what=f"a rejection with code {code}")
        self.rejections.remove(rejection)
        return rejection

    def take_failed_clicks(self, custom_id: str | None = None) -> list[FailedClick]:
        """Removes (and returns) the recorded failed clicks, all or those on this custom_id."""
        taken = [f for f in self.failed_clicks if custom_id is None or f.custom_id == custom_id]
        self.failed_clicks = [f for f in self.failed_clicks if f not in taken]
        return taken

    def take_protocol_violations(self, needle: str | None = None) -> list[str]:
        """Removes (and returns) the recorded gateway protocol violations, all or those containing
        ``needle``: for a test that provokes one on purpose (e.g. an IDENTIFY on an invalid shard)."""
        taken = [v for v in self.protocol_violations if needle is None or needle in v]
        self.protocol_violations = [v for v in self.protocol_violations if v not in taken]
        return taken

    def assert_clean(self) -> None:
        """Fails on unknown routes, unconsumed rejections or failed clicks, gateway protocol
        violations, fake bugs."""
        problems: list[str] = []
        problems += [f"unknown route: {r.method} {r.path}" for r in self.unknown_routes]
        problems += [f"rejected: {r!r} errors={r.errors}" for r in self.rejections]
        problems += [f"failed click (This interaction failed): {f!r}" for f in self.failed_clicks]
        problems += [f"gateway protocol violation: {v}" for v in self.protocol_violations]
        problems += [f"fake discord internal error: {e}" for e in self.internal_errors]
        if problems:
            raise AssertionError("fake Discord strictness check failed:\n  " + "\n  ".join(problems))

    def requests_to(self, method: str, route: str) -> list[RecordedRequest]:
        """Recorded requests for e.g. ``("POST", "/channels/{channel_id}/messages")`` (template or path)."""
        return [r for r in self.requests if r.method == method and route in (r.route, r.path)]

    # ------------------------------------------------------------------ rate limits

    def rate_limit(
        self,
        method: str,
        route: str,
        count: int = 1,
        *,
        retry_after: float = 0.05,
        is_global: bool = False,
        scope: str = "user",
    ) -> None:
        """Makes the next ``count`` calls of ``method route`` answer 429.

        ``route`` is a template as in :attr:`RecordedRequest.route` (for instance
        ``"/channels/{channel_id}/messages"``) or a concrete path without the ``/api/v10``
        prefix.  Keep ``retry_after`` small: discord.py really sleeps that long.
        """
        self._rate_limits.append(_RateLimitRule(method.upper(), route, count, retry_after, is_global, scope))

    def _take_rate_limit(self, record: RecordedRequest) -> _RateLimitRule | None:
        return _take_rule(self._rate_limits, record)

    # ------------------------------------------------------------------ server errors

    def fail(
        self, method: str, route: str, count: int = 1, *, status: int = 500, applied: bool = False
    ) -> None:
        """Makes the next ``count`` calls of ``method route`` answer ``status`` (500, 502, 503 or 504),
        the way Discord (500: its JSON ``{"message": "500: Internal Server Error", "code": 0}``) or
        its Cloudflare front (502, 504: an HTML page; 503: Envoy's plain text) does.

        ``applied=False``: the request never took effect. ``applied=True``: Discord acted on it and
        then answered the error (a timeout between its own services), so a retried interaction
        callback gets 400/40060 "already acknowledged" and a retried message create posts twice.
        A request the fake would refuse anyway (e.g. a late callback) gets that refusal instead.
        ``route`` as in :meth:`rate_limit`; the failed requests are in :attr:`server_errors`.
        """
        if status not in SERVER_ERRORS:
            raise ValueError(f"status {status} is not one of {sorted(SERVER_ERRORS)}")
        self._failures.append(_FailureRule(method.upper(), route, count, status, applied))

    def _take_failure(self, record: RecordedRequest) -> _FailureRule | None:
        return _take_rule(self._failures, record)

    def _server_error_response(self, record: RecordedRequest, status: int) -> web.Response:
        content_type, body = SERVER_ERRORS[status]
        record.status = status
        record.response = body
        self.server_errors.append(record)
        return web.Response(status=status, body=body.encode(), headers={"Content-Type": content_type})

    # ------------------------------------------------------------------ HTTP plumbing

    def _add_routes(self, app: web.Application) -> None:
        a = API_PREFIX
        r = app.router
        r.add_get("/", self._ws_handler)
        r.add_get("/resume", self._ws_handler)
        r.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._h_cdn)
        routes: list[tuple[str, str, Callable[..., Any]]] = [
            ("GET", "/gateway", self._h_gateway),
            ("GET", "/gateway/bot", self._h_gateway_bot),
            ("GET", "/users/{user_id}", self._h_get_user),
            ("POST", "/users/{user_id}/channels", self._h_create_dm),
            ("GET", "/oauth2/applications/@me", self._h_application),
            ("GET", "/applications/@me", self._h_application),
            ("GET", "/applications/{application_id}/commands", self._h_get_commands),
            ("PUT", "/applications/{application_id}/commands", self._h_put_commands),
            ("POST", "/applications/{application_id}/commands", self._h_post_command),
            ("GET", "/applications/{application_id}/commands/{command_id}", self._h_get_command),
            ("DELETE", "/applications/{application_id}/commands/{command_id}", self._h_delete_command),
            ("GET", "/applications/{application_id}/guilds/{guild_id}/commands", self._h_get_commands),
            ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._h_put_commands),
            ("POST", "/applications/{application_id}/guilds/{guild_id}/commands", self._h_post_command),
            (
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self._h_get_command,
            ),
            (
                "DELETE",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self._h_delete_command,
            ),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._h_callback),
            ("POST", "/webhooks/{application_id}/{token}", self._h_webhook_execute),
            ("GET", "/webhooks/{application_id}/{token}/messages/{message_id}", self._h_webhook_get),
            ("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}", self._h_webhook_edit),
            ("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}", self._h_webhook_delete),
            ("GET", "/channels/{channel_id}", self._h_get_channel),
            ("POST", "/channels/{channel_id}/typing", self._h_typing),
            ("GET", "/channels/{channel_id}/messages", self._h_history),
            ("POST", "/channels/{channel_id}/messages", self._h_create_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._h_get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._h_edit_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._h_delete_message),
            ("GET", "/guilds/{guild_id}", self._h_get_guild),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._h_get_member),
        ]
        for method, path, handler in routes:
            r.add_route(method, a + path, self._wrap(handler))

    def _wrap(self, handler: Callable[..., Any]) -> Callable[[web.Request], Any]:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            record = request[RECORD_KEY]
            result = await handler(request, record, **request.match_info)
            if isinstance(result, web.StreamResponse):
                return result
            if result is None:
                record.status = 204
                return web.Response(status=204)
            status, body = result if isinstance(result, tuple) else (200, result)
            record.status = status
            record.response = body
            return self._json(status, body)

        return wrapped

    @staticmethod
    def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
        # discord.py only parses JSON when the content type is exactly "application/json"
        all_headers = {"Content-Type": "application/json"}
        all_headers.update(headers or {})
        return web.Response(status=status, body=json.dumps(body).encode(), headers=all_headers)

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path in ("/", "/resume") or request.path.startswith("/attachments/"):
            return await handler(request)
        resource = request.match_info.route.resource
        route = None
        if request.match_info.http_exception is None and resource is not None:
            route = resource.canonical.removeprefix(API_PREFIX)
        record = RecordedRequest(
            method=request.method,
            path=request.path.removeprefix(API_PREFIX),
            route=route,
            query=dict(request.query),
            json=None,
            files={},
            headers=dict(request.headers),
            clock=self.clock.now(),
        )
        self.requests.append(record)
        request[RECORD_KEY] = record
        try:
            try:
                await self._read_body(request, record)
                if route is None:
                    self.unknown_routes.append(record)
                    raise DiscordAPIError(404, 0, "404: Not Found")
                rule = self._take_rate_limit(record)
                if rule is not None:
                    return self._rate_limited_response(record, rule)
                needs_auth = not record.path.startswith(("/webhooks/", "/interactions/"))
                if needs_auth and request.headers.get("Authorization") != f"Bot {self.token}":
                    raise DiscordAPIError(401, 0, "401: Unauthorized")
                failure = self._take_failure(record)
                if failure is not None and not failure.applied:
                    return self._server_error_response(record, failure.status)
                response = await handler(request)
                if failure is not None and 200 <= response.status < 300:
                    return self._server_error_response(record, failure.status)  # done, then the error
                return response
            except DiscordAPIError as exc:
                record.status = exc.status
                record.response = exc.body()
                if route is not None:
                    self.rejections.append(Rejection(record, exc.status, exc.code, exc.message, exc.errors))
                return self._json(exc.status, exc.body())
        except Exception as exc:  # a bug in the fake: make it loud
            log.exception("fake discord handler failed")
            self.internal_errors.append(f"{request.method} {request.path}: {exc!r}")
            record.status = 500
            return self._json(500, {"message": "500: Internal Server Error (fake)", "code": 0})
        finally:
            self._notify()

    async def _read_body(self, request: web.Request, record: RecordedRequest) -> None:
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, aiohttp.BodyPartReader):
                    continue
                if part.name == "payload_json":
                    record.json = json.loads(await part.text())
                else:
                    record.files[part.name or ""] = (part.filename, bytes(await part.read()))
            return
        raw = await request.read()
        if raw:
            try:
                record.json = json.loads(raw)
            except ValueError:
                raise DiscordAPIError(400, 50109, "The request body contains invalid JSON.") from None

    def _rate_limited_response(self, record: RecordedRequest, rule: _RateLimitRule) -> web.Response:
        body = {
            "message": "You are being rate limited.",
            "retry_after": rule.retry_after,
            "global": rule.is_global,
        }
        headers = {
            "Via": "1.1 google",
            "Retry-After": str(max(1, math.ceil(rule.retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
            "X-RateLimit-Reset": f"{time.time() + rule.retry_after:.3f}",
            "X-RateLimit-Bucket": "fake-" + str(abs(hash((rule.method, rule.route))) % 10**8),
            "X-RateLimit-Scope": "global" if rule.is_global else rule.scope,
        }
        if rule.is_global:
            headers["X-RateLimit-Global"] = "true"
        record.status = 429
        record.response = body
        self.rate_limited.append(record)
        return self._json(429, body, headers)

    # ------------------------------------------------------------------ simple REST handlers

    async def _h_gateway(self, request: web.Request, record: RecordedRequest) -> Any:
        return {"url": self.gateway_url.rstrip("/")}

    async def _h_gateway_bot(self, request: web.Request, record: RecordedRequest) -> Any:
        return {
            "url": self.gateway_url.rstrip("/"),
            "shards": self.recommended_shards,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 0,
                "max_concurrency": self.max_concurrency,
            },
        }

    async def _h_get_user(self, request: web.Request, record: RecordedRequest, user_id: str) -> Any:
        if user_id == "@me":
            data = self.bot_user.payload()
            data.update({"verified": True, "mfa_enabled": False, "email": None, "locale": "en-US"})
            return data
        user = self.users.get(_int(user_id))
        if user is None:
            raise DiscordAPIError(404, 10013, "Unknown User")
        return user.payload()

    async def _h_create_dm(self, request: web.Request, record: RecordedRequest, user_id: str) -> Any:
        if user_id != "@me":
            raise DiscordAPIError(403, 50001, "Missing Access")
        recipient = self.users.get(_int((record.json or {}).get("recipient_id")))
        if recipient is None or recipient.bot:
            raise DiscordAPIError(400, 50007, "Cannot send messages to this user")
        return self.dm_channel(recipient).payload()

    async def _h_application(self, request: web.Request, record: RecordedRequest) -> Any:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "fake application",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "bot": self.bot_user.payload(),
            "owner": self.owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "summary": "",
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.guilds),
            "integration_types_config": {"0": {}},
        }

    async def _h_cdn(self, request: web.Request) -> web.StreamResponse:
        attachment_id = _int(request.match_info["attachment_id"])
        for msg in self.messages.values():
            for att in msg.attachments:
                if att.id == attachment_id:
                    ctype = att.content_type or mimetypes.guess_type(att.filename)[0]
                    return web.Response(body=att.data, content_type=ctype or "application/octet-stream")
        return web.Response(status=404)

    async def _h_get_channel(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel(channel_id)
        self._bot_can_see(channel)
        return channel.payload()

    async def _h_typing(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        self._bot_can_see(self._channel(channel_id))
        return None

    async def _h_get_guild(self, request: web.Request, record: RecordedRequest, guild_id: str) -> Any:
        guild = self.guilds.get(_int(guild_id))
        if guild is None or not self._bot_in(guild.id):
            # Since 2023 Discord answers the same for a guild the bot is not in as for no guild at all.
            raise DiscordAPIError(404, 10004, "Unknown Guild")
        data = guild.payload()
        for key in ("channels", "members", "threads", "presences", "voice_states"):
            data.pop(key, None)
        return data

    async def _h_get_member(
        self, request: web.Request, record: RecordedRequest, guild_id: str, user_id: str
    ) -> Any:
        guild = self.guilds.get(_int(guild_id))
        if guild is None:
            raise DiscordAPIError(404, 10004, "Unknown Guild")
        if not self._bot_in(guild.id):
            raise DiscordAPIError(403, 50001, "Missing Access")
        member = guild.members.get(_int(user_id))
        if member is None:
            raise DiscordAPIError(404, 10007, "Unknown Member")
        return member.payload()

    def _channel(self, channel_id: str | int) -> FakeChannel:
        channel = self.channels.get(_int(channel_id))
        if channel is None:
            raise unknown_channel()
        return channel

    # ------------------------------------------------------------------ application commands

    def _command_bucket(self, application_id: str, guild_id: str | None) -> dict[str, dict[str, Any]]:
        if _int(application_id) != self.application_id:
            raise DiscordAPIError(403, 50001, "Missing Access")
        if guild_id is None:
            return self.global_commands
        if _int(guild_id) not in self.guilds or not self._bot_in(_int(guild_id)):
            raise DiscordAPIError(403, 50001, "Missing Access")
        return self.guild_commands.setdefault(_int(guild_id), {})

    def _validate_command(self, cmd: Any, path: list[str | int], errors: FormErrors) -> None:
        if not isinstance(cmd, dict):
            errors.add(path, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            return
        ctype = cmd.get("type", 1)
        name = cmd.get("name") or ""
        if ctype == 1 and (not re.fullmatch(r"[-_\w]{1,32}", name) or name != name.lower()):
            errors.add([*path, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        if ctype == 1 and not 1 <= len(cmd.get("description") or "") <= 100:
            errors.add([*path, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        self._validate_options(cmd.get("options") or [], [*path, "options"], errors)

    def _validate_options(
        self, options: list[dict[str, Any]], path: list[str | int], errors: FormErrors
    ) -> None:
        if len(options) > 25:
            errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for i, opt in enumerate(options):
            if not re.fullmatch(r"[-_\w]{1,32}", opt.get("name") or ""):
                errors.add([*path, i, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
            if not 1 <= len(opt.get("description") or "") <= 100:
                errors.add(
                    [*path, i, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
                )
            if len(opt.get("choices") or []) > 25:
                errors.add([*path, i, "choices"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
            if opt.get("type") in (1, 2):
                self._validate_options(opt.get("options") or [], [*path, i, "options"], errors)

    def _store_command(
        self, bucket: dict[str, dict[str, Any]], cmd: dict[str, Any], guild_id: str | None
    ) -> dict[str, Any]:
        existing = bucket.get(cmd["name"])
        stored = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "dm_permission": True,
            "nsfw": False,
            "integration_types": [0],
            "contexts": None,
            **cmd,
            "id": existing["id"] if existing else str(self.new_id()),
            "application_id": str(self.application_id),
            "version": str(self.new_id()),
        }
        if guild_id is not None:
            stored["guild_id"] = guild_id
        bucket[cmd["name"]] = stored
        return stored

    async def _h_get_commands(
        self, request: web.Request, record: RecordedRequest, application_id: str, guild_id: str | None = None
    ) -> Any:
        return list(self._command_bucket(application_id, guild_id).values())

    async def _h_put_commands(
        self, request: web.Request, record: RecordedRequest, application_id: str, guild_id: str | None = None
    ) -> Any:
        bucket = self._command_bucket(application_id, guild_id)
        payload = record.json
        errors = FormErrors()
        if not isinstance(payload, list):
            raise DiscordAPIError(
                400,
                50035,
                "Invalid Form Body",
                {"_errors": [{"code": "BASE_TYPE_ARRAY", "message": "Must be an array."}]},
            )
        if len([c for c in payload if c.get("type", 1) == 1]) > 100:
            errors.add([], "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
        for i, cmd in enumerate(payload):
            self._validate_command(cmd, [i], errors)
        errors.raise_if_any()
        old = dict(bucket)
        bucket.clear()
        for cmd in payload:
            if cmd["name"] in old:
                bucket[cmd["name"]] = old[cmd["name"]]
            self._store_command(bucket, cmd, guild_id)
        return list(bucket.values())

    async def _h_post_command(
        self, request: web.Request, record: RecordedRequest, application_id: str, guild_id: str | None = None
    ) -> Any:
        bucket = self._command_bucket(application_id, guild_id)
        errors = FormErrors()
        self._validate_command(record.json, [], errors)
        errors.raise_if_any()
        return 201, self._store_command(bucket, record.json, guild_id)

    async def _h_get_command(
        self,
        request: web.Request,
        record: RecordedRequest,
        application_id: str,
        command_id: str,
        guild_id: str | None = None,
    ) -> Any:
        for cmd in self._command_bucket(application_id, guild_id).values():
            if cmd["id"] == command_id:
                return cmd
        raise DiscordAPIError(404, 10063, "Unknown application command")

    async def _h_delete_command(
        self,
        request: web.Request,
        record: RecordedRequest,
        application_id: str,
        command_id: str,
        guild_id: str | None = None,
    ) -> Any:
        bucket = self._command_bucket(application_id, guild_id)
        for name, cmd in list(bucket.items()):
            if cmd["id"] == command_id:
                del bucket[name]
                return None
        raise DiscordAPIError(404, 10063, "Unknown application command")

    def registered_command(self, name: str, guild_id: int | None = None) -> dict[str, Any] | None:
        """The synced command ``name`` visible in ``guild_id`` (guild commands first)."""
        if guild_id is not None and name in self.guild_commands.get(guild_id, {}):
            return self.guild_commands[guild_id][name]
        return self.global_commands.get(name)

    # ------------------------------------------------------------------ messages (shared)

    def _make_attachments(
        self,
        channel: FakeChannel,
        body: dict[str, Any],
        files: dict[str, tuple[str | None, bytes]],
        existing: list[FakeAttachment],
    ) -> list[FakeAttachment] | None:
        """Resolves ``attachments`` + ``files[n]``; None means "leave the attachments as they are"."""
        if "attachments" not in body and not files:
            return None
        by_id = {a.id: a for a in existing}
        result: list[FakeAttachment] = []
        used: set[str] = set()
        specs = body.get("attachments")
        if specs is None:
            specs = [{"id": i} for i in range(len(files))]
            result = list(existing)
        errors = FormErrors()
        for i, spec in enumerate(specs):
            ident = spec.get("id")
            key = f"files[{ident}]"
            if key in files and not (isinstance(ident, str) and ident.isdigit() and int(ident) in by_id):
                filename, data = files[key]
                used.add(key)
                if len(data) > ATTACHMENT_SIZE_LIMIT:
                    raise DiscordAPIError(413, 40005, "Request entity too large")
                aid = self.new_id()
                name = spec.get("filename") or filename or "file"
                result.append(
                    FakeAttachment(
                        aid,
                        name,
                        data,
                        url=f"http://127.0.0.1:{self.port}/attachments/{channel.id}/{aid}/{name}",
                        description=spec.get("description"),
                    )
                )
            elif _int(ident) in by_id:
                result.append(by_id[_int(ident)])
            else:
                errors.add(["attachments", i, "id"], "ATTACHMENT_NOT_FOUND", "Unknown attachment")
        unused = set(files) - used
        if unused:
            errors.add(
                ["attachments"], "ATTACHMENT_NOT_FOUND", f"Files without attachment entry: {sorted(unused)}"
            )
        errors.raise_if_any()
        return result

    def _validate_new_message(
        self, body: dict[str, Any], flags: int, files: dict[str, Any], path: list[str | int]
    ) -> None:
        errors = FormErrors()
        validate_message_body(body, path=path, flags=flags, errors=errors)
        errors.raise_if_any()
        if not (
            body.get("content")
            or body.get("embeds")
            or body.get("components")
            or files
            or body.get("sticker_ids")
            or body.get("poll")
        ):
            raise DiscordAPIError(400, 50006, "Cannot send an empty message")

    def _create_message(
        self,
        channel: FakeChannel,
        body: dict[str, Any],
        files: dict[str, tuple[str | None, bytes]],
        *,
        author: FakeUser,
        interaction: FakeInteraction | None = None,
        visible_to: int | None = None,
        extra_flags: int = 0,
        check_empty: bool = True,
        path: list[str | int] | None = None,
    ) -> FakeMessage:
        allowed_flags = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
        if interaction is not None:
            allowed_flags |= FLAG_EPHEMERAL
        flags = (int(body.get("flags") or 0) & allowed_flags) | extra_flags
        if check_empty:
            self._validate_new_message(body, flags, files, path or [])
        else:
            errors = FormErrors()
            validate_message_body(body, path=path or [], flags=flags, errors=errors)
            errors.raise_if_any()
        if flags & FLAG_EPHEMERAL and interaction is not None:
            visible_to = interaction.user.id
        msg = FakeMessage(
            id=self.new_id(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=body.get("content") or "",
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            flags=flags,
            type=20 if interaction is not None and interaction.type == 2 else 0,
            visible_to=visible_to,
            interaction=interaction,
            webhook_id=self.application_id if interaction is not None else None,
        )
        msg.attachments = self._make_attachments(channel, body, files, []) or []
        self.messages[msg.id] = msg
        return msg

    def _edit_message(
        self,
        msg: FakeMessage,
        body: dict[str, Any],
        files: dict[str, tuple[str | None, bytes]],
        *,
        path: list[str | int] | None = None,
    ) -> FakeMessage:
        flags = msg.flags
        if "flags" in body and body["flags"] is not None:
            flags = (msg.flags & ~(FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2)) | (
                int(body["flags"]) & (FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2)
            )
        errors = FormErrors()
        validate_message_body(body, path=path or [], flags=flags, errors=errors)
        errors.raise_if_any()
        channel = self._channel(msg.channel_id)
        attachments = self._make_attachments(channel, body, files, msg.attachments)
        msg.history.append(msg.payload())
        if "content" in body:
            msg.content = body["content"] or ""
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = list(body["components"] or [])
        if attachments is not None:
            msg.attachments = attachments
        msg.flags = flags & ~FLAG_LOADING
        msg.edited_timestamp = iso_now()
        if not (msg.content or msg.embeds or msg.components or msg.attachments):
            msg.history.pop()
            raise DiscordAPIError(400, 50006, "Cannot send an empty message")
        return msg

    async def _message_event(self, event: str, msg: FakeMessage) -> None:
        if msg.visible_to is not None:
            return
        channel = self.channels.get(msg.channel_id)
        if channel is None or (channel.guild_id is not None and not self._bot_in(channel.guild_id)):
            return
        intent = INTENT_DIRECT_MESSAGES if channel.type == 1 else INTENT_GUILD_MESSAGES
        for session in self.sessions_for(channel.guild_id):
            if not session.intents & intent:
                continue
            if event == "MESSAGE_DELETE":
                data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
                if msg.guild_id is not None:
                    data["guild_id"] = str(msg.guild_id)
            else:
                data = msg.payload()
                if msg.author.id != self.bot_user.id and not session.intents & INTENT_MESSAGE_CONTENT:
                    data.update(content="", embeds=[], attachments=[], components=[])
                if msg.guild_id is not None and msg.guild_id in self.guilds:
                    member = self.guilds[msg.guild_id].members.get(msg.author.id)
                    if member is not None:
                        member_data = member.payload()
                        member_data.pop("user")
                        data["member"] = member_data
            await session.dispatch(event, data)

    # ------------------------------------------------------------------ channel message routes

    def _bot_in(self, guild_id: int | None) -> bool:
        """True while the bot is a member of this guild (see :meth:`FakeDiscord.remove_bot_from_guild`)."""
        guild = self.guilds.get(guild_id or 0)
        return guild is not None and self.bot_user.id in guild.members

    def _bot_permissions(self, channel: FakeChannel) -> int:
        if channel.type == 1:
            return discord.Permissions.text().value | discord.Permissions(view_channel=True).value
        if channel.guild_id is None or not self._bot_in(channel.guild_id):
            return 0
        return self.guilds[channel.guild_id].permissions_of(self.bot_user.id, channel)

    def _bot_can_see(self, channel: FakeChannel) -> None:
        """Every channel route: a channel the bot cannot view (or of a guild it is no longer in) answers
        403 50001 Missing Access, as Discord does."""
        if not self._bot_permissions(channel) & discord.Permissions(view_channel=True).value:
            raise DiscordAPIError(403, 50001, "Missing Access")

    def _channel_message(self, channel_id: str, message_id: str) -> FakeMessage:
        msg = self.messages.get(_int(message_id))
        if msg is None or msg.deleted or msg.channel_id != _int(channel_id) or msg.visible_to is not None:
            raise unknown_message()
        return msg

    async def _h_create_message(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel(channel_id)
        self._bot_can_see(channel)
        if not self._bot_permissions(channel) & discord.Permissions(send_messages=True).value:
            raise DiscordAPIError(403, 50013, "Missing Permissions")
        body = record.json or {}
        msg = self._create_message(channel, body, record.files, author=self.bot_user)
        await self._message_event("MESSAGE_CREATE", msg)
        return msg.payload()

    async def _h_get_message(
        self, request: web.Request, record: RecordedRequest, channel_id: str, message_id: str
    ) -> Any:
        self._bot_can_see(self._channel(channel_id))
        return self._channel_message(channel_id, message_id).payload()

    async def _h_history(self, request: web.Request, record: RecordedRequest, channel_id: str) -> Any:
        channel = self._channel(channel_id)
        self._bot_can_see(channel)
        limit = max(1, min(100, int(request.query.get("limit", 50))))
        before = _int(request.query.get("before")) if "before" in request.query else None
        after = _int(request.query.get("after")) if "after" in request.query else None
        found = [
            m
            for m in self.messages.values()
            if m.channel_id == channel.id
            and not m.deleted
            and m.visible_to is None
            and (before is None or m.id < before)
            and (after is None or m.id > after)
        ]
        found.sort(key=lambda m: m.id, reverse=after is None)
        return [m.payload() for m in found[:limit]]

    async def _h_edit_message(
        self, request: web.Request, record: RecordedRequest, channel_id: str, message_id: str
    ) -> Any:
        # No Send Messages needed: Discord lets an author edit (and delete) their messages in a channel
        # where they may no longer post (discord-api-docs#3096); not seeing it is another matter.
        self._bot_can_see(self._channel(channel_id))
        msg = self._channel_message(channel_id, message_id)
        if msg.author.id != self.bot_user.id:
            raise DiscordAPIError(403, 50005, "Cannot edit a message authored by another user")
        self._edit_message(msg, record.json or {}, record.files)
        await self._message_event("MESSAGE_UPDATE", msg)
        return msg.payload()

    async def _h_delete_message(
        self, request: web.Request, record: RecordedRequest, channel_id: str, message_id: str
    ) -> Any:
        self._bot_can_see(self._channel(channel_id))
        msg = self._channel_message(channel_id, message_id)
        msg.deleted = True
        await self._message_event("MESSAGE_DELETE", msg)
        return None

    # ------------------------------------------------------------------ interaction routes

    async def _h_callback(
        self, request: web.Request, record: RecordedRequest, interaction_id: str, token: str
    ) -> Any:
        inter = self.interactions.get(_int(interaction_id))
        if inter is None or inter.token != token:
            raise DiscordAPIError(404, 10062, "Unknown interaction")
        inter.callback_attempts.append(record)
        if inter.acknowledged:
            raise DiscordAPIError(400, 40060, "Interaction has already been acknowledged.")
        if self.clock.now() - inter.created_at > CALLBACK_DEADLINE:
            raise DiscordAPIError(404, 10062, "Unknown interaction")
        body = record.json or {}
        raw_type = body.get("type")
        ctype = raw_type if isinstance(raw_type, int) else -1
        data = body.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[inter.type]
        if ctype not in allowed or (ctype in (6, 7) and inter.message is None):
            errors = FormErrors()
            errors.add(
                ["type"],
                "INTERACTION_RESPONSE_TYPE_INVALID",
                f"Response type {ctype} is invalid for interaction type {inter.type}",
            )
            errors.raise_if_any()
        message: FakeMessage | None = None
        if ctype == 4:
            message = self._create_message(
                inter.channel, data, record.files, author=self.bot_user, interaction=inter, path=["data"]
            )
            inter.original_message = message
        elif ctype == 5:
            flags = int(data.get("flags") or 0) & FLAG_EPHEMERAL
            message = self._create_message(
                inter.channel,
                {"flags": flags},
                {},
                author=self.bot_user,
                interaction=inter,
                extra_flags=FLAG_LOADING,
                check_empty=False,
            )
            inter.original_message = message
        elif ctype in (6, 7):
            assert inter.message is not None
            if inter.message.deleted:
                raise unknown_message()
            message = inter.message
            if ctype == 7:
                self._edit_message(message, data, record.files, path=["data"])
            inter.original_message = message
        elif ctype == 8:
            choices = data.get("choices") or []
            if len(choices) > 25:
                raise DiscordAPIError(
                    400,
                    50035,
                    "Invalid Form Body",
                    {
                        "data": {
                            "choices": {
                                "_errors": [
                                    {
                                        "code": "BASE_TYPE_MAX_LENGTH",
                                        "message": "Must be 25 or fewer in length.",
                                    }
                                ]
                            }
                        }
                    },
                )
        elif ctype == 9:
            errors = FormErrors()
            errors.max_length(["data", "title"], data.get("title"), 45)
            errors.max_length(["data", "custom_id"], data.get("custom_id"), 100)
            if not 1 <= len(data.get("components") or []) <= 5:
                errors.add(
                    ["data", "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length."
                )
            errors.raise_if_any()
            self.modals.append((inter, data))
        inter.callback = CallbackRecord(ctype, data, message, record)
        if message is not None and ctype in (4, 7):
            await self._message_event("MESSAGE_CREATE" if ctype == 4 else "MESSAGE_UPDATE", message)
        if request.query.get("with_response") not in ("1", "true", "True"):
            return None
        interaction_part: dict[str, Any] = {"id": str(inter.id), "type": inter.type}
        result: dict[str, Any] = {"interaction": interaction_part}
        if message is not None:
            interaction_part.update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            result["resource"] = {"type": ctype, "message": message.payload()}
        elif ctype in (8, 9):
            result["resource"] = {"type": ctype}
        return result

    def _interaction_for_token(self, application_id: str, token: str) -> FakeInteraction:
        if _int(application_id) != self.application_id:
            raise DiscordAPIError(404, 10015, "Unknown Webhook")
        inter = self._interactions_by_token.get(token)
        if inter is None or self.clock.now() - inter.created_at > TOKEN_LIFETIME:
            raise DiscordAPIError(401, 50027, "Invalid Webhook Token")
        if not inter.acknowledged:
            raise DiscordAPIError(404, 10015, "Unknown Webhook")
        return inter

    def _webhook_message(self, inter: FakeInteraction, message_id: str) -> FakeMessage:
        if message_id == "@original":
            msg = inter.original_message
        else:
            msg = self.messages.get(_int(message_id))
            if msg is not None and msg is not inter.original_message and msg not in inter.followups:
                msg = None
        if msg is None or msg.deleted:
            raise unknown_message()
        return msg

    async def _h_webhook_execute(
        self, request: web.Request, record: RecordedRequest, application_id: str, token: str
    ) -> Any:
        inter = self._interaction_for_token(application_id, token)
        body = record.json or {}
        original = inter.original_message
        if original is not None and original.loading and not original.deleted:
            # Discord: the first follow-up after a "thinking" defer replaces the loading message
            flags = original.flags | (int(body.get("flags") or 0) & FLAG_COMPONENTS_V2)
            self._validate_new_message(body, flags, record.files, [])
            msg = self._edit_message(original, body, record.files)
            await self._message_event("MESSAGE_UPDATE", msg)
        else:
            msg = self._create_message(
                inter.channel, body, record.files, author=self.bot_user, interaction=inter
            )
            await self._message_event("MESSAGE_CREATE", msg)
        inter.followups.append(msg)
        inter.webhook_writes.append(msg)
        if request.query.get("wait") in ("1", "true", "True"):
            return msg.payload()
        return None

    async def _h_webhook_get(
        self, request: web.Request, record: RecordedRequest, application_id: str, token: str, message_id: str
    ) -> Any:
        inter = self._interaction_for_token(application_id, token)
        return self._webhook_message(inter, message_id).payload()

    async def _h_webhook_edit(
        self, request: web.Request, record: RecordedRequest, application_id: str, token: str, message_id: str
    ) -> Any:
        inter = self._interaction_for_token(application_id, token)
        msg = self._webhook_message(inter, message_id)
        self._edit_message(msg, record.json or {}, record.files)
        inter.webhook_writes.append(msg)
        await self._message_event("MESSAGE_UPDATE", msg)
        return msg.payload()

    async def _h_webhook_delete(
        self, request: web.Request, record: RecordedRequest, application_id: str, token: str, message_id: str
    ) -> Any:
        inter = self._interaction_for_token(application_id, token)
        msg = self._webhook_message(inter, message_id)
        msg.deleted = True
        await self._message_event("MESSAGE_DELETE", msg)
        return None

    # ------------------------------------------------------------------ gateway

    async def _ws_handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        url = str(request.rel_url)
        self.gateway_urls.append(url)
        query = request.query
        if query.get("v") != "10" or query.get("encoding", "json") != "json":
            self.protocol_violations.append(f"unexpected gateway query {url}")
        compress = query.get("compress")
        if compress not in (None, "zlib-stream"):
            self.protocol_violations.append(f"unsupported gateway compression {compress!r}")
        conn = GatewayConnection(ws, compress=compress == "zlib-stream", url=url)
        self._connections.append(conn)
        self.gateway_connections.append(conn)
        try:
            await self._gateway_open.wait()
            if ws.closed:
                return ws
            await conn.send({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
            async for msg in ws:
                if msg.type is aiohttp.WSMsgType.TEXT:
                    await self._gateway_receive(conn, json.loads(msg.data))
                elif msg.type is aiohttp.WSMsgType.BINARY:
                    self.protocol_violations.append("client sent a binary gateway frame")
                if conn.closed:
                    break
        finally:
            conn.closed = True
            if conn.session is not None and conn.session.connection is conn:
                conn.session.connection = None
            if conn in self._connections:
                self._connections.remove(conn)
            self._notify()
        return ws

    async def _gateway_receive(self, conn: GatewayConnection, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if op == 1:
            self.heartbeats += 1
            ack = {"op": 11, "d": None, "s": None, "t": None}
            if self.heartbeat_ack_delay > 0:
                # discord.py notes the heartbeat's send time only after the send completes; an ACK
                # processed before that reads as "Can't keep up, 41.3s behind" (a harmless race that
                # a real network's latency hides). The sandbox runs for hours: answer like a network.
                asyncio.get_running_loop().call_later(
                    self.heartbeat_ack_delay, lambda: self._spawn(conn.send(ack))
                )
            else:
                await conn.send(ack)
        elif op == 2:
            await self._identify(conn, data or {})
        elif op == 6:
            await self._resume(conn, data or {})
        elif conn.session is None:
            self.protocol_violations.append(f"op {op} sent before IDENTIFY")
            await self._close_gateway(conn, 4003, "Not authenticated.")
        elif op == 3:
            self.presence_updates.append(data or {})
        elif op == 4:
            pass  # voice state update: nothing to do
        elif op == 8:
            await self._request_members(conn, data or {})
        else:
            self.protocol_violations.append(f"unknown gateway opcode {op}")
            await self._close_gateway(conn, 4001, "Unknown opcode.")
        self._notify()

    async def _close_gateway(self, conn: GatewayConnection, code: int, reason: str) -> None:
        self.gateway_closes.append((code, reason))
        await conn.close(code, reason)

    def _identify_shard(self, data: dict[str, Any]) -> tuple[int, int] | str:
        """The IDENTIFY's ``[shard_id, num_shards]`` (``[0, 1]`` when absent), or why it is invalid."""
        shard = data.get("shard")
        if shard is None:
            return 0, 1
        if (
            not isinstance(shard, list)
            or len(shard) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
        ):
            return f"IDENTIFY shard must be [shard_id, num_shards], got {shard!r}"
        shard_id, shard_count = shard
        if shard_count < 1 or not 0 <= shard_id < shard_count:
            return f"IDENTIFY shard {shard!r} is out of range (0 <= shard_id < num_shards, num_shards >= 1)"
        return shard_id, shard_count

    def _shard_conflict(self, shard_id: int, shard_count: int) -> str | None:
        """Why a new session on this shard may not join the live ones (``None``: it may)."""
        if self.allow_shard_overlap:
            return None
        for other in self.sessions.values():
            if other.retired or not other.live:
                continue
            here = f"IDENTIFY on shard [{shard_id}, {shard_count}] while live session {other.session_id[:8]}"
            if other.shard_count != shard_count:
                return (
                    f"{here} is on shard [{other.shard_id}, {other.shard_count}]: the shard counts disagree"
                )
            if other.shard_id == shard_id:
                return f"{here} still holds that shard: a second session on one shard"
        return None

    async def _identify(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        if conn.session is not None:
            self.protocol_violations.append("IDENTIFY sent twice on one connection")
            await self._close_gateway(conn, 4005, "Already authenticated.")
            return
        if data.get("token") != self.token:
            await self._close_gateway(conn, 4004, "Authentication failed.")
            return
        shard = self._identify_shard(data)
        if isinstance(shard, str):
            self.protocol_violations.append(shard)
            await self._close_gateway(conn, 4010, "Invalid shard.")
            return
        shard_id, shard_count = shard
        conflict = self._shard_conflict(shard_id, shard_count)
        if conflict is not None:
            self.protocol_violations.append(conflict)
            await self._close_gateway(conn, 4010, "Invalid shard.")
            return
        if self.sharding_required and shard_count == 1:
            await self._close_gateway(conn, 4011, "Sharding required.")
            return
        # The new session takes over its shard: a disconnected session on it (a process that died),
        # or of an older shard layout, will never be resumed; it stops collecting events.
        for old in self.sessions.values():
            if (
                not old.retired
                and not old.live
                and (old.shard_count != shard_count or old.shard_id == shard_id)
            ):
                old.retired = True
                old.events.clear()
        session = GatewaySession(
            secrets.token_hex(16),
            int(data.get("intents") or 0),
            data,
            shard_id=shard_id,
            shard_count=shard_count,
        )
        self.sessions[session.session_id] = session
        self.session = session
        session.connection = conn
        conn.session = session
        ready: dict[str, Any] = {
            "v": 10,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [
                {"id": str(g.id), "unavailable": True}
                for g in self.guilds.values()
                if self._bot_in(g.id) and session.handles(g.id)
            ],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
            "_trace": ["fake-discord"],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        await session.dispatch("READY", ready)
        for guild in self.guilds.values():
            if (
                self._bot_in(guild.id)
                and guild.id not in self.unavailable_guilds
                and session.handles(guild.id)
            ):
                await session.dispatch("GUILD_CREATE", guild.payload())

    async def _resume(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        session = self.sessions.get(data.get("session_id") or "")
        if session is None or session.retired or data.get("token") != self.token:
            await conn.send({"op": 9, "d": False, "s": None, "t": None})
            return
        if conn.url.split("?")[0] != "/resume":
            self.protocol_violations.append(f"RESUME not sent to resume_gateway_url (got {conn.url})")
        seq = int(data.get("seq") or 0)
        if session.connection is not None and session.connection is not conn:
            session.connection.closed = True
        session.connection = conn
        conn.session = session
        for event in session.events:
            if event["s"] > seq:
                await conn.send(event)
        session.resumes += 1
        await session.dispatch("RESUMED", {"_trace": ["fake-discord"]})

    async def _request_members(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        assert conn.session is not None
        guild = self.guilds.get(_int(data.get("guild_id")))
        if guild is None or not self._bot_in(guild.id) or not conn.session.handles(guild.id):
            return
        members = list(guild.members.values())
        if data.get("user_ids"):
            wanted = {_int(u) for u in data["user_ids"]}
            members = [m for m in members if m.user.id in wanted]
        elif data.get("query"):
            members = [m for m in members if m.user.username.startswith(data["query"])]
        if data.get("limit"):
            members = members[: int(data["limit"])]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await conn.session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    def sessions_for(self, guild_id: int | None) -> list[GatewaySession]:
        """The sessions that receive ``guild_id``'s events (``None``: DMs, shard 0), dropped ones
        (queuing for their RESUME) included: one, unless ``allow_shard_overlap`` let several in."""
        return [s for s in self.sessions.values() if s.handles(guild_id)]

    def session_on(self, shard_id: int, shard_count: int | None = None) -> GatewaySession:
        """The newest not retired session on shard ``shard_id`` (of ``shard_count``, any if omitted)."""
        for session in reversed(list(self.sessions.values())):
            if (
                not session.retired
                and session.shard_id == shard_id
                and shard_count in (None, session.shard_count)
            ):
                return session
        raise FakeDiscordError(f"no gateway session on shard {shard_id} of {shard_count}")

    async def _guild_event(self, guild_id: int | None, event: str, data: Any) -> list[GatewaySession]:
        """Dispatches a guild's event (``None``: a DM's) to the sessions of its shard."""
        sessions = self.sessions_for(guild_id)
        for session in sessions:
            await session.dispatch(event, data)
        return sessions

    async def dispatch(self, event: str, data: Any, *, session: GatewaySession | None = None) -> None:
        """Sends a raw DISPATCH event (queued for replay if the socket is down) to ``session``, by
        default to the sessions of the guild in ``data`` (``guild_id``, or ``id`` for GUILD_* events;
        none: shard 0)."""
        if self.session is None:
            raise FakeDiscordError("no bot has identified on the gateway")
        if session is not None:
            await session.dispatch(event, data)
        else:
            raw = data.get("guild_id") if isinstance(data, dict) else None
            if raw is None and isinstance(data, dict) and event.startswith("GUILD_"):
                raw = data.get("id")
            await self._guild_event(None if raw is None else _int(raw), event, data)
        self._notify()

    async def drop_gateway(self, code: int = 4000, *, session: GatewaySession | None = None) -> None:
        """Closes the gateway socket of ``session`` (default: the last one identified) with ``code``
        (a resumable code by default)."""
        session = session or self.session
        if session is None or session.connection is None:
            raise FakeDiscordError("no gateway connection to drop")
        conn = session.connection
        session.connection = None
        conn.closed = True
        conn.close_code, conn.close_reason = code, "dropped by the test"
        await conn.ws.close(code=code, message=b"dropped by the test")
        self._notify()

    @contextlib.asynccontextmanager
    async def gateway_outage(
        self, code: int = 4000, timeout: float = 10.0, *, session: GatewaySession | None = None
    ) -> AsyncIterator[None]:
        """Drops the socket of ``session`` (default: the last one identified) and keeps new
        connections waiting until the block exits.

        Events dispatched inside the block (``dispatch``, ``run_command``, ``click``) are
        queued; on exit the bot reconnects, RESUMEs, and receives them as a replay.  The
        context exit waits for the RESUMED event to be sent.
        """
        target = session or self.session
        if target is None:
            raise FakeDiscordError("no bot has identified on the gateway")
        resumes = target.resumes
        self._gateway_open.clear()
        try:
            await self.drop_gateway(code, session=target)
            yield
        finally:
            self._gateway_open.set()
        await self.wait_until(
            lambda: target.resumes > resumes and target.connection is not None,
            timeout,
            what="the bot to RESUME",
        )

    # ------------------------------------------------------------------ places that change or vanish

    async def delete_channel(self, channel: FakeChannel) -> None:
        """An admin deletes ``channel``. Like Discord: CHANNEL_DELETE goes to the bot (if it is in the
        guild and connected; a stopped bot never hears of it), the channel's messages go with it (no
        click on them any more), and every REST call on it, messages included, answers 404 10003
        Unknown Channel."""
        self.channels.pop(channel.id, None)
        guild = self.guilds.get(channel.guild_id or 0)
        if guild is not None and channel in guild.channels:
            guild.channels.remove(channel)
        for msg in self.messages.values():
            if msg.channel_id == channel.id:
                msg.deleted = True
        if self._bot_in(channel.guild_id):
            await self._guild_event(channel.guild_id, "CHANNEL_DELETE", channel.payload())
        self._notify()

    async def remove_bot_from_guild(self, guild: FakeGuild | None = None) -> None:
        """An admin removes the bot from ``guild`` (default: the test guild): GUILD_DELETE without
        ``unavailable`` (what Discord sends for a removal, as opposed to an outage). Afterwards, as for
        any bot that is not a member: REST on the guild's channels answers 403 50001 Missing Access,
        ``GET /guilds/{id}`` 404 10004 Unknown Guild, READY no longer lists it, no event or interaction
        comes from it."""
        guild = guild or self.guild
        if guild.members.pop(self.bot_user.id, None) is None:
            raise FakeDiscordError(f"the bot is not in {guild.name}")
        await self._guild_event(guild.id, "GUILD_DELETE", {"id": str(guild.id)})
        self._notify()

    async def set_overwrite(
        self,
        channel: FakeChannel,
        target: FakeUser | FakeRole | FakeGuild,
        *,
        allow: discord.Permissions | None = None,
        deny: discord.Permissions | None = None,
    ) -> None:
        """An admin sets ``channel``'s permission overwrite of ``target`` (a member, a role, or the guild
        for @everyone); neither ``allow`` nor ``deny`` removes it. CHANNEL_UPDATE goes to the bot. Take
        the bot's Send Messages away with ``set_overwrite(channel, fake.bot_user,
        deny=discord.Permissions(send_messages=True))``: posting there then answers 403 50013 Missing
        Permissions, while editing or deleting its own messages still works (as on Discord)."""
        kind = 1 if isinstance(target, FakeUser) else 0
        if allow is None and deny is None:
            channel.overwrites.pop(target.id, None)
        else:
            allowed, denied = (allow or discord.Permissions()).value, (deny or discord.Permissions()).value
            channel.overwrites[target.id] = (kind, allowed, denied)
        if self._bot_in(channel.guild_id) and channel.id in self.channels:
            await self._guild_event(channel.guild_id, "CHANNEL_UPDATE", channel.payload())
        self._notify()

    # ------------------------------------------------------------------ test-side actions

    def _interaction_payload(self, inter: FakeInteraction) -> dict[str, Any]:
        channel = inter.channel
        if self.channels.get(channel.id) is not channel:
            raise InteractionRefused(f"channel {channel.id} was deleted")
        if channel.guild_id is not None and not self._bot_in(channel.guild_id):
            raise InteractionRefused(f"the bot is no longer in guild {channel.guild_id}")
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": inter.type,
            "token": inter.token,
            "version": 1,
            "data": inter.data,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "locale": inter.user.locale,
            "entitlements": [],
            "authorizing_integration_owners": inter.integration_owners(),
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            member = guild.members.get(inter.user.id)
            if member is None:
                raise FakeDiscordError(f"{inter.user.username} is not a member of {guild.name}")
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
                guild_locale=guild.preferred_locale,
                # Both in this channel, overwrites included, as Discord computes them.
                member={**member.payload(), "permissions": str(guild.permissions_of(inter.user.id, channel))},
                app_permissions=str(guild.permissions_of(self.bot_user.id, channel)),
                context=0,
            )
        else:
            payload.update(
                user=inter.user.payload(), app_permissions=str(discord.Permissions.text().value), context=1
            )
        if inter.message is not None:
            payload["message"] = inter.message.payload()
        return payload

    async def _send_interaction(self, inter: FakeInteraction) -> FakeInteraction:
        if self.session is None:
            raise FakeDiscordError("no bot has identified on the gateway")
        payload = self._interaction_payload(inter)
        guild_id = inter.channel.guild_id
        sessions = self.sessions_for(guild_id)
        if not sessions:
            where = "DMs" if guild_id is None else f"guild {guild_id}"
            raise FakeDiscordError(f"no gateway session receives the events of {where} (shard 0 for DMs)")
        self.interactions[inter.id] = inter
        self._interactions_by_token[inter.token] = inter
        inter.sessions = sessions
        for session in sessions:
            await session.dispatch("INTERACTION_CREATE", payload)
        self._notify()
        return inter

    async def _find_command(self, name: str, channel: FakeChannel, timeout: float) -> dict[str, Any] | None:
        if not self.strict_commands:
            return self.registered_command(name, channel.guild_id)
        try:
            return await self.wait_until(
                lambda: self.registered_command(name, channel.guild_id),
                timeout,
                what=f"command /{name} to be synced",
            )
        except TimeoutError:
            known = sorted(
                set(self.global_commands) | set(self.guild_commands.get(channel.guild_id or 0, {}))
            )
            raise FakeDiscordError(f"/{name} was never synced (known commands: {known})") from None

    def _build_options(
        self,
        schema: list[dict[str, Any]] | None,
        values: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        guild_id: int | None,
        focused: str | None = None,
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        by_name = {o["name"]: o for o in (schema or [])}
        if schema is not None:
            unknown = set(values) - set(by_name)
            if unknown:
                raise FakeDiscordError(
                    f"unknown options {sorted(unknown)}; the command has {sorted(by_name)}"
                )
            missing = [
                o["name"]
                for o in schema
                if o.get("required") and o["name"] not in values and o["name"] != focused
            ]
            if missing:
                raise FakeDiscordError(f"missing required options {missing}")
        for name, value in values.items():
            spec = by_name.get(name)
            otype = spec["type"] if spec else _infer_option_type(value)
            entry: dict[str, Any] = {"name": name, "type": otype}
            if otype == 6:
                user = value if isinstance(value, FakeUser) else self.users[_int(value)]
                entry["value"] = str(user.id)
                resolved.setdefault("users", {})[str(user.id)] = user.payload()
                if guild_id is not None and user.id in self.guilds[guild_id].members:
                    member = self.guilds[guild_id].members[user.id].payload()
                    member.pop("user")
                    member["permissions"] = str(self.guilds[guild_id].permissions_of(user.id))
                    resolved.setdefault("members", {})[str(user.id)] = member
            elif otype == 7:
                chan = value if isinstance(value, FakeChannel) else self.channels[_int(value)]
                entry["value"] = str(chan.id)
                resolved.setdefault("channels", {})[str(chan.id)] = {
                    **chan.payload(),
                    "permissions": str(discord.Permissions.text().value),
                }
            elif otype == 8:
                role = (
                    value
                    if isinstance(value, FakeRole)
                    else next(r for g in self.guilds.values() for r in g.roles if r.id == _int(value))
                )
                entry["value"] = str(role.id)
                resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            else:
                if spec is not None and name != focused:
                    _check_option_value(spec, value)
                entry["value"] = value
            if name == focused:
                entry["focused"] = True
            out.append(entry)
        return out

    async def _command_interaction(
        self,
        itype: int,
        user: FakeUser,
        name: str,
        subcommand: str | None,
        options: dict[str, Any] | None,
        channel: FakeChannel | None,
        focused: str | None,
        timeout: float,
    ) -> FakeInteraction:
        channel = channel or self.channel("general")
        command = await self._find_command(name, channel, timeout)
        schema: list[dict[str, Any]] | None = command.get("options", []) if command else None
        path = subcommand.split() if subcommand else []
        resolved: dict[str, dict[str, Any]] = {}
        wrappers: list[dict[str, Any]] = []
        for part in path:
            spec = next((o for o in (schema or []) if o["name"] == part and o.get("type") in (1, 2)), None)
            if schema is not None and spec is None:
                raise FakeDiscordError(f"/{name} has no subcommand or group {part!r}")
            wrappers.append({"name": part, "type": spec["type"] if spec else (1 if part == path[-1] else 2)})
            schema = spec.get("options", []) if spec else None
        leaf = self._build_options(schema, options or {}, resolved, channel.guild_id, focused)
        tree: list[dict[str, Any]] = leaf
        for wrapper in reversed(wrappers):
            tree = [{**wrapper, "options": tree}]
        data: dict[str, Any] = {
            "id": command["id"] if command else str(self.new_id()),
            "name": name,
            "type": 1,
            "options": tree,
        }
        if resolved:
            data["resolved"] = resolved
        if command and command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        inter = FakeInteraction(self, type=itype, user=user, channel=channel, data=data, command_name=name)
        return await self._send_interaction(inter)

    async def run_command(
        self,
        user: FakeUser,
        name: str,
        subcommand: str | None = None,
        *,
        options: dict[str, Any] | None = None,
        channel: FakeChannel | None = None,
        timeout: float = 5.0,
    ) -> FakeInteraction:
        """A user runs ``/name [group] [subcommand]`` with ``options`` in ``channel`` (default #general).

        The command must have been synced by the bot (waits up to ``timeout`` for it);
        option names, requiredness, choices and min/max are checked against the synced
        schema.  User/channel/role options take :class:`FakeUser`/:class:`FakeChannel`/
        :class:`FakeRole` (or ids) and get their ``resolved`` data.
        """
        return await self._command_interaction(2, user, name, subcommand, options, channel, None, timeout)

    async def autocomplete(
        self,
        user: FakeUser,
        name: str,
        subcommand: str | None = None,
        *,
        focused: str,
        options: dict[str, Any] | None = None,
        channel: FakeChannel | None = None,
        timeout: float = 5.0,
    ) -> FakeInteraction:
        """A user types in option ``focused`` of ``/name``; the answer is a type 8 callback."""
        values = dict(options or {})
        values.setdefault(focused, "")
        return await self._command_interaction(4, user, name, subcommand, values, channel, focused, timeout)

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        *,
        values: list[Any] | None = None,
    ) -> FakeInteraction:
        """``user`` clicks the button (or picks ``values`` in the select) ``custom_id`` of ``message``.

        ``message`` is what the user's client shows: a message of the store (or its id) means the
        message as it is now; a :meth:`FakeMessage.snapshot` means the message as the user last saw
        it, possibly edited by the bot since.

        Raises :class:`InteractionRefused` when Discord's client would not let the user
        do it on what they see: deleted or ephemeral-for-someone-else message, no such
        component, disabled component, invalid select values.  Then, like Discord, checks the
        click against the message as it is now: when the component is no longer there (or now
        disabled, or the values no longer options), the click never reaches the bot; it is
        recorded in :attr:`failed_clicks` (a :class:`FailedClick`, which :meth:`assert_clean`
        reports until :meth:`take_failed_clicks` consumes it) and the returned handle has
        ``failed`` true.
        """
        seen = message if isinstance(message, FakeMessage) else self.messages.get(message)
        if seen is None:
            raise InteractionRefused(f"unknown message {message}")
        current = self.messages.get(seen.id, seen)
        if not seen.is_snapshot:
            seen = current
        if seen.deleted:
            raise InteractionRefused(f"message {seen.id} was deleted")
        if not seen.visible_for(user):
            raise InteractionRefused(f"message {seen.id} is ephemeral and not visible to {user.username}")
        comp = seen.component(custom_id)
        if comp is None:
            raise InteractionRefused(
                f"message {seen.id} has no component {custom_id!r} (it has {seen.custom_ids})"
            )
        if comp.get("disabled"):
            raise InteractionRefused(f"component {custom_id!r} is disabled")
        ctype = comp["type"]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype == BUTTON:
            if values is not None:
                raise InteractionRefused("a button takes no values")
        else:
            picked = list(values or [])
            low, high = comp.get("min_values", 1), comp.get("max_values", 1)
            if not low <= len(picked) <= high:
                raise InteractionRefused(
                    f"select {custom_id!r} takes {low}..{high} values, got {len(picked)}"
                )
            if ctype == STRING_SELECT:
                allowed = [o.get("value") for o in comp.get("options") or []]
                bad = [v for v in picked if v not in allowed]
                if bad:
                    raise InteractionRefused(f"values {bad} are not options of {custom_id!r} ({allowed})")
                data["values"] = picked
            else:
                resolved: dict[str, dict[str, Any]] = {}
                otype = {5: 6, 6: 8, 7: 6, 8: 7}[ctype]
                ids = []
                for value in picked:
                    if ctype == 7 and isinstance(value, FakeRole):
                        self._build_options(None, {"v": value}, resolved, seen.guild_id)
                    else:
                        self._build_options(
                            [{"name": "v", "type": otype}], {"v": value}, resolved, seen.guild_id
                        )
                    ids.append(str(getattr(value, "id", value)))
                data["values"] = ids
                data["resolved"] = resolved
        channel = self.channels[seen.channel_id]
        # the bot receives the message as Discord holds it, not the user's stale copy
        inter = FakeInteraction(self, type=3, user=user, channel=channel, data=data, message=current)
        reason = self._component_validation(current, custom_id, ctype, data.get("values"))
        if reason is not None:
            failure = FailedClick(
                user=user,
                message_id=seen.id,
                custom_id=custom_id,
                reason=reason,
                seen_revision=seen.revision,
                revision=current.revision,
                clock=self.clock.now(),
            )
            inter.failure = failure
            self.failed_clicks.append(failure)
            log.info("fake discord: %r", failure)
            self._notify()
            return inter
        return await self._send_interaction(inter)

    @staticmethod
    def _component_validation(
        current: FakeMessage, custom_id: str, ctype: int, values: list[Any] | None
    ) -> str | None:
        """Why Discord fails a click on ``custom_id`` given the message as it holds it (None: it passes).

        Discord's COMPONENT_VALIDATION_FAILED: the component must still be on the message,
        of the same kind, enabled, and a string select's values must still be options.
        """
        if current.deleted:
            return "the message was deleted"
        comp = current.component(custom_id)
        if comp is None:
            return f"the message no longer has {custom_id!r} (it has {current.custom_ids})"
        if comp["type"] != ctype:
            return f"{custom_id!r} is now a component of type {comp['type']}, not {ctype}"
        if comp.get("disabled"):
            return f"{custom_id!r} is disabled now"
        if ctype == STRING_SELECT:
            allowed = [o.get("value") for o in comp.get("options") or []]
            gone = [v for v in values or [] if v not in allowed]
            if gone:
                return f"values {gone} are no longer options of {custom_id!r} ({allowed})"
        return None

    async def submit_modal(
        self, user: FakeUser, source: FakeInteraction, values: dict[str, Any], *, timeout: float = 5.0
    ) -> FakeInteraction:
        """``user`` submits the modal the bot opened in answer to ``source`` (type 9 callback).

        ``values`` maps text input custom_ids to strings (select custom_ids to lists).
        """
        if user is not source.user:
            raise InteractionRefused("only the user who opened a modal can submit it")
        await source.response(timeout)
        modal = next((m for i, m in self.modals if i is source), None)
        if modal is None:
            raise InteractionRefused(f"{source!r} was not answered with a modal")
        unknown = set(values) - {c.get("custom_id") for c in walk_components(modal.get("components") or [])}
        if unknown:
            raise InteractionRefused(f"the modal has no inputs {sorted(unknown)}")

        def answer(comp: dict[str, Any]) -> dict[str, Any]:
            ctype = comp.get("type")
            if ctype == ACTION_ROW:
                return {"type": ACTION_ROW, "components": [answer(c) for c in comp.get("components") or []]}
            if ctype == LABEL:
                return {"type": LABEL, "component": answer(comp["component"])}
            out: dict[str, Any] = {"type": ctype, "custom_id": comp.get("custom_id")}
            if ctype == TEXT_INPUT:
                value = values.get(comp.get("custom_id") or "", comp.get("value") or "")
                if comp.get("required", True) and not value:
                    raise InteractionRefused(f"text input {comp.get('custom_id')!r} is required")
                out["value"] = value
            elif ctype in (STRING_SELECT, *AUTO_SELECTS):
                out["values"] = [str(v) for v in values.get(comp.get("custom_id") or "", [])]
            return out

        components = [
            answer(c) for c in modal.get("components") or [] if c.get("type") in (ACTION_ROW, LABEL)
        ]
        data = {"custom_id": modal.get("custom_id"), "components": components}
        inter = FakeInteraction(
            self, type=5, user=user, channel=source.channel, data=data, message=source.message
        )
        return await self._send_interaction(inter)

    async def send_user_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """``user`` posts ``content`` in ``channel``; the bot gets MESSAGE_CREATE if it has the intent."""
        msg = FakeMessage(self.new_id(), channel.id, channel.guild_id, user, content=content)
        self.messages[msg.id] = msg
        await self._message_event("MESSAGE_CREATE", msg)
        self._notify()
        return msg

    # ------------------------------------------------------------------ queries

    def visible_messages(self, user: FakeUser, channel: FakeChannel | None = None) -> list[FakeMessage]:
        """Messages ``user`` can see (public ones plus their own ephemerals), oldest first."""
        return sorted(
            (
                m
                for m in self.messages.values()
                if m.visible_for(user) and (channel is None or m.channel_id == channel.id)
            ),
            key=lambda m: m.id,
        )

    def channel_messages(self, channel: FakeChannel) -> list[FakeMessage]:
        """Public, not deleted messages of ``channel``, oldest first."""
        return sorted(
            (
                m
                for m in self.messages.values()
                if m.channel_id == channel.id and not m.deleted and m.visible_to is None
            ),
            key=lambda m: m.id,
        )

    async def wait_for_message(
        self, predicate: Callable[[FakeMessage], bool], timeout: float = 5.0, *, what: str = "a message"
    ) -> FakeMessage:
        """Waits for a (not deleted) message matching ``predicate``."""

        def find() -> FakeMessage | None:
            return next((m for m in self.messages.values() if not m.deleted and predicate(m)), None)

        return await self.wait_until(find, timeout, what=what)


# --------------------------------------------------------------------------- logging


class ErrorLogCollector(logging.Handler):
    """A logging handler keeping ERROR+ records so that the test can fail on them."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    @staticmethod
    def _describe(record: logging.LogRecord) -> str:
        text = f"{record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            text += f" [{record.exc_info[1]!r}]"
        return text

    def _matches(self, record: logging.LogRecord, needle: str) -> bool:
        return needle in self._describe(record) or (
            record.exc_info is not None
            and needle
            in repr(record.exc_info[1]) + repr(record.exc_info[1].__cause__ if record.exc_info[1] else None)
        )

    def expect(self, needle: str) -> logging.LogRecord:
        """Consumes the first collected record mentioning ``needle`` (message or exception)."""
        for record in self.records:
            if self._matches(record, needle):
                self.records.remove(record)
                return record
        raise AssertionError(f"no ERROR log mentioning {needle!r}; got {self.summary()}")

    async def wait_for(self, needle: str, timeout: float = 5.0) -> logging.LogRecord:
        """Like :meth:`expect`, waiting (polling every 10 ms) for the record to be logged."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            with contextlib.suppress(AssertionError):
                return self.expect(needle)
            if loop.time() > deadline:
                return self.expect(needle)
            await asyncio.sleep(0.01)

    def take(self) -> list[logging.LogRecord]:
        taken, self.records = self.records, []
        return taken

    def summary(self) -> list[str]:
        return [self._describe(r) for r in self.records]


# --------------------------------------------------------------------------- helpers


def _or(values: Iterable[int]) -> int:
    result = 0
    for value in values:
        result |= value
    return result


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _infer_option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    if isinstance(value, FakeUser):
        return 6
    if isinstance(value, FakeChannel):
        return 7
    if isinstance(value, FakeRole):
        return 8
    return 3


def _check_option_value(spec: dict[str, Any], value: Any) -> None:
    otype = spec["type"]
    name = spec["name"]
    expected: dict[int, tuple[type, ...]] = {3: (str,), 4: (int,), 5: (bool,), 10: (int, float)}
    if otype in expected and (
        not isinstance(value, expected[otype]) or (otype in (4, 10) and isinstance(value, bool))
    ):
        raise FakeDiscordError(f"option {name!r} expects type {otype}, got {value!r}")
    choices = spec.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise FakeDiscordError(
            f"option {name!r} must be one of {[c['value'] for c in choices]}, got {value!r}"
        )
    if otype in (4, 10):
        if spec.get("min_value") is not None and value < spec["min_value"]:
            raise FakeDiscordError(f"option {name!r} is below its min_value")
        if spec.get("max_value") is not None and value > spec["max_value"]:
            raise FakeDiscordError(f"option {name!r} is above its max_value")
    if otype == 3:
        if spec.get("min_length") is not None and len(value) < spec["min_length"]:
            raise FakeDiscordError(f"option {name!r} is shorter than its min_length")
        if spec.get("max_length") is not None and len(value) > spec["max_length"]:
            raise FakeDiscordError(f"option {name!r} is longer than its max_length")


__all__ = [
    "CallbackRecord",
    "DiscordAPIError",
    "ErrorLogCollector",
    "FailedClick",
    "FakeAttachment",
    "FakeChannel",
    "FakeClock",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionFailed",
    "InteractionRefused",
    "RecordedRequest",
    "Rejection",
]
