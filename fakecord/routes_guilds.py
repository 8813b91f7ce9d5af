"""REST routes around the application and its guilds: gateway info, users and DMs, the application
and its commands (sync, validated like Discord), channels, guilds, members, the CDN.
"""

from __future__ import annotations

import mimetypes
import re
from typing import Any

from aiohttp import web

from fakecord.clock import to_int
from fakecord.constants import CHAT_INPUT_COMMAND, MESSAGE_COMMAND, USER_COMMAND
from fakecord.errors import DiscordAPIError, FormErrors
from fakecord.gateway import Gateway
from fakecord.records import RecordedRequest

# The fields of a guild that only the gateway's GUILD_CREATE carries, not ``GET /guilds/{guild_id}``.
GATEWAY_ONLY_GUILD_FIELDS = (
    "channels",
    "members",
    "threads",
    "presences",
    "voice_states",
    "stage_instances",
    "guild_scheduled_events",
    "soundboard_sounds",
    "member_count",
    "large",
    "lazy",
    "unavailable",
    "joined_at",
)

# How many commands of each type a scope (global, or one guild) holds (Discord's docs, Registering a Command).
COMMAND_LIMITS = {CHAT_INPUT_COMMAND: 100, USER_COMMAND: 15, MESSAGE_COMMAND: 15}


class GuildRoutes(Gateway):
    """REST handlers for the application, its commands and the guilds."""

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
        user = self.users.get(to_int(user_id))
        if user is None:
            raise DiscordAPIError(404, 10013, "Unknown User")
        return user.payload()

    async def _h_create_dm(self, request: web.Request, record: RecordedRequest, user_id: str) -> Any:
        if user_id != "@me":
            raise DiscordAPIError(403, 50001, "Missing Access")
        recipient = self.users.get(to_int((record.json or {}).get("recipient_id")))
        if recipient is None or recipient.bot:
            raise DiscordAPIError(400, 50007, "Cannot send messages to this user")
        return self.dm_channel(recipient).payload()

    async def _h_application(self, request: web.Request, record: RecordedRequest) -> Any:
        # Discord's application object as its owner's bot reads it: installable where
        # ``integration_types`` says (guild install only by default), owned by a user (no team), no
        # verification, none of the optional URLs.
        return {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "fake application",
            "type": None,
            "bot": self.bot_user.payload(),
            "summary": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": 0,
            "flags_new": "0",
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "owner": self.owner.payload(),
            "team": None,
            "approximate_guild_count": len(self.guilds),
            "approximate_user_install_count": len(self.user_installs),
            "approximate_user_authorization_count": 0,
            "explicit_content_filter": 0,
            "eligible_oauth2_scopes": ["bot", "applications.commands"],
            "integration_types_config": {str(kind): {} for kind in sorted(self.integration_types)},
        }

    async def _h_cdn(self, request: web.Request) -> web.StreamResponse:
        attachment_id = to_int(request.match_info["attachment_id"])
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
        guild = self.guilds.get(to_int(guild_id))
        if guild is None or not self._bot_in(guild.id):
            # Since 2023 Discord answers the same for a guild the bot is not in as for no guild at all.
            raise DiscordAPIError(404, 10004, "Unknown Guild")
        data = guild.payload()
        # what only the gateway's GUILD_CREATE carries
        for key in GATEWAY_ONLY_GUILD_FIELDS:
            data.pop(key, None)
        if request.query.get("with_counts") in ("1", "true", "True"):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return data

    async def _h_get_member(
        self, request: web.Request, record: RecordedRequest, guild_id: str, user_id: str
    ) -> Any:
        guild = self.guilds.get(to_int(guild_id))
        if guild is None:
            raise DiscordAPIError(404, 10004, "Unknown Guild")
        if not self._bot_in(guild.id):
            raise DiscordAPIError(403, 50001, "Missing Access")
        member = guild.members.get(to_int(user_id))
        if member is None:
            raise DiscordAPIError(404, 10007, "Unknown Member")
        return member.payload()

    # ------------------------------------------------------------------ application commands

    def _command_bucket(
        self, application_id: str, guild_id: str | None
    ) -> dict[tuple[int, str], dict[str, Any]]:
        if to_int(application_id) != self.application_id:
            raise DiscordAPIError(403, 50001, "Missing Access")
        if guild_id is None:
            return self.commands[None]
        if to_int(guild_id) not in self.guilds or not self._bot_in(to_int(guild_id)):
            raise DiscordAPIError(403, 50001, "Missing Access")
        return self.commands.setdefault(to_int(guild_id), {})

    def _validate_command(self, cmd: Any, path: list[str | int], errors: FormErrors) -> None:
        """What Discord's description does not say about a command (its lengths, counts and types, and
        that ``integration_types`` and ``contexts`` hold known values, are checked by the description
        before this route runs): a slash command's and option's name is one lowercase word and a slash
        command has a description; a user or message command (types 2, 3) has neither description nor
        options (an Entry Point command, type 4: routes_activities); a command's installation contexts
        are among the application's (:attr:`integration_types`: "as long as any included contexts are
        already supported on the application-level")."""
        if not isinstance(cmd, dict):
            return
        ctype = cmd.get("type") or CHAT_INPUT_COMMAND
        name = cmd.get("name") or ""
        if ctype == CHAT_INPUT_COMMAND:
            if not re.fullmatch(r"[-_'\w]{1,32}", name) or name != name.lower():
                errors.add([*path, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
            if not cmd.get("description"):
                errors.add(
                    [*path, "description"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
                )
        elif ctype in (USER_COMMAND, MESSAGE_COMMAND):  # the docs: "The description field is not allowed"
            if cmd.get("description"):
                errors.add(
                    [*path, "description"],
                    "APPLICATION_COMMAND_DESCRIPTION_NOT_ALLOWED",
                    "A user or message command takes no description.",
                )
            if cmd.get("options"):
                errors.add(
                    [*path, "options"],
                    "APPLICATION_COMMAND_OPTIONS_NOT_ALLOWED",
                    "A user or message command takes no options.",
                )
        allowed = sorted(self.integration_types)
        for j, kind in enumerate(cmd.get("integration_types") or []):
            if kind not in allowed:
                errors.add(
                    [*path, "integration_types", j],
                    "BASE_TYPE_CHOICES",
                    f"Value must be one of {tuple(allowed)} (the application's installation contexts).",
                )
        self._validate_options(cmd.get("options") or [], [*path, "options"], errors)

    def _validate_options(
        self, options: list[dict[str, Any]], path: list[str | int], errors: FormErrors
    ) -> None:
        for i, opt in enumerate(options):
            name = opt.get("name") or ""
            if not re.fullmatch(r"[-_'\w]{1,32}", name) or name != name.lower():
                errors.add([*path, i, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
            if opt.get("type") in (1, 2):
                self._validate_options(opt.get("options") or [], [*path, i, "options"], errors)

    def _store_command(
        self, bucket: dict[tuple[int, str], dict[str, Any]], cmd: dict[str, Any], guild_id: str | None
    ) -> dict[str, Any]:
        """Stores a command as Discord does and returns what Discord answers for it: what the bot sent,
        with Discord's defaults where it sent nothing (or null), the permissions as a string, and
        Discord's ids."""
        key = (cmd.get("type") or CHAT_INPUT_COMMAND, cmd["name"])
        existing = bucket.get(key)
        stored = {
            "type": 1,
            "description": "",
            "options": [],
            "dm_permission": True,
            "nsfw": False,
            **{key: value for key, value in cmd.items() if value is not None},
            "id": existing["id"] if existing else str(self.new_id()),
            "application_id": str(self.application_id),
            "version": str(self.new_id()),
        }
        permissions = cmd.get("default_member_permissions")
        stored["default_member_permissions"] = None if permissions is None else str(permissions)
        # Unset, the installation contexts are the application's ("Defaults to your app's configured
        # contexts"), and a global command may be used everywhere ("By default, all interaction context
        # types included for new commands") but in DMs if dm_permission says no; a guild command has
        # no contexts (it is used in its guild only).
        if not cmd.get("integration_types"):
            stored["integration_types"] = sorted(self.integration_types)
        if cmd.get("contexts") is None:
            everywhere = [0, 1, 2] if stored["dm_permission"] else [0]
            stored["contexts"] = everywhere if guild_id is None else None
        if guild_id is not None:
            stored["guild_id"] = guild_id
        bucket[key] = stored
        return stored

    @staticmethod
    def _check_command_list(payload: list[Any], errors: FormErrors) -> None:
        """A whole list's rules (Discord's docs, Registering a Command): names are unique per command
        type, and a scope holds at most 100 slash, 15 user and 15 message commands."""
        seen: set[tuple[Any, Any]] = set()
        counts: dict[Any, int] = {}
        for cmd in payload:
            if not isinstance(cmd, dict):
                continue
            key = (cmd.get("type") or CHAT_INPUT_COMMAND, cmd.get("name"))
            if key in seen:
                errors.add(
                    [], "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"
                )
            seen.add(key)
            counts[key[0]] = counts.get(key[0], 0) + 1
        for kind, limit in COMMAND_LIMITS.items():
            if counts.get(kind, 0) > limit:  # the description says 130 commands in all
                errors.add([], "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length (type {kind}).")

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
        if not isinstance(payload, list):  # the description refused it when judging is on
            raise DiscordAPIError(
                400,
                50035,
                "Invalid Form Body",
                {"_errors": [{"code": "BASE_TYPE_ARRAY", "message": "Must be an array."}]},
            )
        self._check_command_list(payload, errors)
        for i, cmd in enumerate(payload):
            self._validate_command(cmd, [i], errors)
        errors.raise_if_any()
        old = dict(bucket)
        bucket.clear()
        for cmd in payload:
            key = (cmd.get("type") or CHAT_INPUT_COMMAND, cmd["name"])
            if key in old:
                bucket[key] = old[key]
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
        for key, cmd in list(bucket.items()):
            if cmd["id"] == command_id:
                del bucket[key]
                return None
        raise DiscordAPIError(404, 10063, "Unknown application command")
