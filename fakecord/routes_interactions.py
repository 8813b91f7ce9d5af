"""Interaction routes: the callback (3 s to answer, 40060 on a second answer) and the interaction's
webhook (follow-ups, original-response edits and deletes while the 15-minute token lives: after it, every
webhook call answers 401 50027); a follow-up cap of 5 where only a user install authorized the
interaction (400 40094), and the ephemerality Discord forces (fakecord/places.py).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakecord.clock import to_int
from fakecord.constants import (
    CALLBACK_DEADLINE,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    TOKEN_LIFETIME,
    USER_INSTALL_FOLLOWUP_LIMIT,
)
from fakecord.errors import DiscordAPIError, FormErrors, unknown_message
from fakecord.interaction import FakeInteraction
from fakecord.modals import numbered_modal, validate_modal
from fakecord.records import CallbackRecord, RecordedRequest
from fakecord.routes_activities import LAUNCH_ACTIVITY, ActivityRoutes, FakeActivityInstance
from fakecord.state import FakeMessage


class InteractionRoutes(ActivityRoutes):
    """The interaction callback and webhook routes."""

    async def _h_callback(
        self, request: web.Request, record: RecordedRequest, interaction_id: str, token: str
    ) -> Any:
        inter = self.interactions.get(to_int(interaction_id))
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
        # LAUNCH_ACTIVITY (12) answers a command, a component or a modal submit (routes_activities.py)
        allowed = {2: {4, 5, 9, 12}, 3: {4, 5, 6, 7, 9, 12}, 4: {8}, 5: {4, 5, 6, 7, 12}}[inter.type]
        if ctype not in allowed or (ctype in (6, 7) and inter.message is None):
            errors = FormErrors()
            errors.add(
                ["type"],
                "INTERACTION_RESPONSE_TYPE_INVALID",
                f"Response type {ctype} is invalid for interaction type {inter.type}",
            )
            errors.raise_if_any()
        message: FakeMessage | None = None
        instance: FakeActivityInstance | None = None
        forced = FLAG_EPHEMERAL if inter.forced_ephemeral else 0  # Discord shows it to the user alone
        if ctype == LAUNCH_ACTIVITY:
            instance = self._launch_by_callback(inter)
        elif ctype == 4:
            message = self._create_message(
                inter.channel,
                data,
                record.files,
                author=self.bot_user,
                interaction=inter,
                path=["data"],
                extra_flags=forced,
            )
            inter.original_message = message
        elif ctype == 5:
            flags = (int(data.get("flags") or 0) & FLAG_EPHEMERAL) | forced
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
            validate_modal(data, errors)
            errors.raise_if_any()
            self.modals.append((inter, numbered_modal(data)))
        inter.callback = CallbackRecord(ctype, data, message, record)
        if message is not None and ctype in (4, 7):
            await self._message_event("MESSAGE_CREATE" if ctype == 4 else "MESSAGE_UPDATE", message)
        if request.query.get("with_response") not in ("1", "true", "True"):
            return None
        # Discord's interaction callback response: the interaction, with the message the callback
        # made (4, 5) or updated (7); the resource, a message, only for 4 and 7 (a deferral, an
        # autocomplete or a modal has none), the Activity's instance for 12.
        interaction_part: dict[str, Any] = {"id": str(inter.id), "type": inter.type}
        result: dict[str, Any] = {"interaction": interaction_part}
        if message is not None and ctype in (4, 5, 7):
            interaction_part.update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
        if message is not None and ctype in (4, 7):
            result["resource"] = {"type": ctype, "message": message.payload()}
        if instance is not None:
            interaction_part["activity_instance_id"] = instance.instance_id
            result["resource"] = {"type": ctype, "activity_instance": {"id": instance.instance_id}}
        return result

    def _interaction_for_token(self, application_id: str, token: str) -> FakeInteraction:
        if to_int(application_id) != self.application_id:
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
            msg = self.messages.get(to_int(message_id))
            if msg is not None and msg is not inter.original_message and msg not in inter.followups:
                msg = None
        if msg is None or msg.deleted:
            raise unknown_message()
        return msg

    async def _h_webhook_execute(
        self, request: web.Request, record: RecordedRequest, application_id: str, token: str
    ) -> Any:
        """Create Followup Message. Where only a user install authorized the interaction, Discord allows
        it 5 follow-ups (this endpoint's calls, the one replacing a "thinking" message included), then
        400 40094."""
        inter = self._interaction_for_token(application_id, token)
        body = record.json or {}
        original = inter.original_message
        if inter.user_install_only and len(inter.followups) >= USER_INSTALL_FOLLOWUP_LIMIT:
            raise DiscordAPIError(
                400, 40094, "This interaction has hit the maximum number of follow up messages"
            )
        if original is not None and original.loading and not original.deleted:
            # Discord: the first follow-up after a "thinking" defer replaces the loading message
            flags = original.flags | (int(body.get("flags") or 0) & FLAG_COMPONENTS_V2)
            self._validate_new_message(body, flags, record.files, [])
            msg = self._edit_message(original, body, record.files)
            await self._message_event("MESSAGE_UPDATE", msg)
        else:
            forced = FLAG_EPHEMERAL if inter.forced_ephemeral else 0
            public = not (int(body.get("flags") or 0) | forced) & FLAG_EPHEMERAL
            if public:  # a public follow-up in an archived thread unarchives it (routes_threads)
                await self._before_post(inter.channel)
            msg = self._create_message(
                inter.channel, body, record.files, author=self.bot_user, interaction=inter, extra_flags=forced
            )
            if public:
                self._after_post(inter.channel)
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
