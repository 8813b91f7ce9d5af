"""Application emojis: the emojis an application owns (``/applications/{application.id}/emojis``), usable
by its bot everywhere (a button's emoji), and the check that a component's custom emoji is one of them.

Discord's rules, as its description and developer docs give them: a name of 2 to 32 characters of
``[A-Za-z0-9_]``, unique among the application's emojis (a second one answers 400 50035 with
``APPLICATION_EMOJI_NAME_ALREADY_TAKEN`` on ``name``); an image given as a data URI
(``data:image/png;base64,...``; PNG, JPEG, GIF, WebP or AVIF) of at most 256 KiB (``BINARY_TYPE_MAX_SIZE``
on ``image``); at most 2,000 emojis per application (400 30008 *Maximum number of emojis reached*);
an unknown emoji id answers 404 10014 *Unknown Emoji*. A component (button, select option) whose emoji
carries an ``id`` the application does not own is refused as Discord refuses it: 400 50035 with
``BUTTON_COMPONENT_INVALID_EMOJI`` *Invalid emoji* at the emoji's ``id`` (the fake's world has no guild
emoji, so an application emoji is the only custom emoji a bot may show).

``FakeDiscord(emojis=False)`` is a Discord without the feature (an application from before it, or a
test of the bot's fallback): every emoji route answers ``404: Not Found`` (code 0), as for a route
that does not exist, recorded as a rejection; a component's custom emoji is then always invalid.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from aiohttp import web

from fakecord.clock import to_int
from fakecord.errors import DiscordAPIError, FormErrors
from fakecord.places import Places
from fakecord.records import RecordedRequest
from fakecord.state import FakeEmoji

EMOJI_NAME = re.compile(r"[A-Za-z0-9_]{2,32}")
EMOJI_IMAGE_LIMIT = 256 * 1024  # bytes of the decoded image
APPLICATION_EMOJI_LIMIT = 2000
_DATA_URI = re.compile(r"data:(image/(?:png|jpeg|jpg|gif|webp|avif));base64,(.*)", re.DOTALL)


class EmojiRoutes(Places):
    """The application's emojis and the check of the custom emojis a message's components carry."""

    def __init__(self, *, emojis: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # False: the fake is a Discord without application emojis (see the module's docstring).
        self.emoji_support = emojis
        self.app_emojis: dict[int, FakeEmoji] = {}

    def emoji_image(self, emoji_id: int | str) -> bytes | None:
        """The image of the application emoji ``emoji_id`` as uploaded (what Discord's CDN serves at
        ``/emojis/{id}.png``), or None for an emoji the application does not own."""
        emoji = self.app_emojis.get(to_int(emoji_id))
        return None if emoji is None else emoji.image

    def emoji_named(self, name: str) -> FakeEmoji | None:
        """The application emoji called ``name``, if any."""
        return next((e for e in self.app_emojis.values() if e.name == name), None)

    # ------------------------------------------------------------------ checks

    def _own_application(self, application_id: str) -> None:
        if not self.emoji_support:
            raise DiscordAPIError(404, 0, "404: Not Found")
        if to_int(application_id) != self.application_id:
            raise DiscordAPIError(403, 50001, "Missing Access")

    def _emoji(self, emoji_id: str) -> FakeEmoji:
        emoji = self.app_emojis.get(to_int(emoji_id))
        if emoji is None:
            raise DiscordAPIError(404, 10014, "Unknown Emoji")
        return emoji

    def _check_name(self, name: Any, errors: FormErrors, *, other_than: int | None = None) -> None:
        if not isinstance(name, str) or not EMOJI_NAME.fullmatch(name):
            errors.add(["name"], "STRING_TYPE_REGEX", "String value did not match validation regex.")
        elif any(e.name == name and e.id != other_than for e in self.app_emojis.values()):
            errors.add(["name"], "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "Emoji name already taken.")

    def _check_component_emojis(
        self, body: dict[str, Any], path: list[str | int], errors: FormErrors
    ) -> None:
        """Every custom emoji (one with an ``id``) of the message's components must be the application's."""
        components = body.get("components")
        if isinstance(components, list):
            self._check_emojis_in(components, [*path, "components"], errors)

    def _check_emojis_in(self, components: list[Any], path: list[str | int], errors: FormErrors) -> None:
        for index, comp in enumerate(components):
            if not isinstance(comp, dict):
                continue
            here: list[str | int] = [*path, index]
            self._check_one_emoji(comp.get("emoji"), [*here, "emoji"], errors)
            for number, option in enumerate(comp.get("options") or []):
                if isinstance(option, dict):
                    self._check_one_emoji(option.get("emoji"), [*here, "options", number, "emoji"], errors)
            if isinstance(comp.get("components"), list):
                self._check_emojis_in(comp["components"], [*here, "components"], errors)
            for key in ("accessory", "component"):
                if isinstance(comp.get(key), dict):
                    self._check_emojis_in_one(comp[key], [*here, key], errors)

    def _check_emojis_in_one(self, comp: dict[str, Any], path: list[str | int], errors: FormErrors) -> None:
        self._check_one_emoji(comp.get("emoji"), [*path, "emoji"], errors)
        if isinstance(comp.get("components"), list):
            self._check_emojis_in(comp["components"], [*path, "components"], errors)

    def _check_one_emoji(self, emoji: Any, path: list[str | int], errors: FormErrors) -> None:
        if not isinstance(emoji, dict) or emoji.get("id") is None:
            return
        if not self.emoji_support or to_int(emoji["id"]) not in self.app_emojis:
            errors.add([*path, "id"], "BUTTON_COMPONENT_INVALID_EMOJI", "Invalid emoji")

    # ------------------------------------------------------------------ routes

    async def _h_list_emojis(self, request: web.Request, record: RecordedRequest, application_id: str) -> Any:
        self._own_application(application_id)
        return {"items": [emoji.payload() for emoji in self.app_emojis.values()]}

    async def _h_create_emoji(
        self, request: web.Request, record: RecordedRequest, application_id: str
    ) -> Any:
        self._own_application(application_id)
        body = record.json or {}
        errors = FormErrors()
        self._check_name(body.get("name"), errors)
        decoded = self._decode_image(body.get("image"), errors)
        errors.raise_if_any()
        if len(self.app_emojis) >= APPLICATION_EMOJI_LIMIT:
            raise DiscordAPIError(400, 30008, f"Maximum number of emojis reached ({APPLICATION_EMOJI_LIMIT})")
        assert decoded is not None
        content_type, image = decoded
        emoji = FakeEmoji(self.new_id(), body["name"], image, content_type, self.bot_user)
        self.app_emojis[emoji.id] = emoji
        return 201, emoji.payload()

    @staticmethod
    def _decode_image(image: Any, errors: FormErrors) -> tuple[str, bytes] | None:
        match = _DATA_URI.fullmatch(image) if isinstance(image, str) else None
        data = None
        if match is not None:
            try:
                data = base64.b64decode(match.group(2), validate=True)
            except (binascii.Error, ValueError):
                data = None
        if match is None or not data:
            errors.add(["image"], "IMAGE_INVALID", "Invalid image data")
            return None
        if len(data) > EMOJI_IMAGE_LIMIT:
            errors.add(["image"], "BINARY_TYPE_MAX_SIZE", "File cannot be larger than 256.0 kb.")
            return None
        return match.group(1), data

    async def _h_get_emoji(
        self, request: web.Request, record: RecordedRequest, application_id: str, emoji_id: str
    ) -> Any:
        self._own_application(application_id)
        return self._emoji(emoji_id).payload()

    async def _h_edit_emoji(
        self, request: web.Request, record: RecordedRequest, application_id: str, emoji_id: str
    ) -> Any:
        self._own_application(application_id)
        emoji = self._emoji(emoji_id)
        body = record.json or {}
        if "name" in body:
            errors = FormErrors()
            self._check_name(body["name"], errors, other_than=emoji.id)
            errors.raise_if_any()
            emoji.name = body["name"]
        return emoji.payload()

    async def _h_delete_emoji(
        self, request: web.Request, record: RecordedRequest, application_id: str, emoji_id: str
    ) -> Any:
        self._own_application(application_id)
        del self.app_emojis[self._emoji(emoji_id).id]
        return None
