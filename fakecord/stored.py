"""What Discord makes of the components and embeds a bot sends: what it stores and then returns (in
REST answers and gateway events), with the fields it fills in when the bot left them out and nothing the
bot sent as null.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from fakecord.constants import (
    AUTO_SELECTS,
    CONTAINER,
    FILE,
    MEDIA_GALLERY,
    SEPARATOR,
    STRING_SELECT,
    THUMBNAIL,
)
from fakecord.state import FakeAttachment
from fakecord.validation import walk_components


def stored_components(
    components: Iterable[Any], attachments: Iterable[FakeAttachment], new_id: Callable[[], int]
) -> list[dict[str, Any]]:
    """The component tree as Discord returns it: every component numbered (``id``: the bot's own, else
    1, 2, ... in tree order, skipping the ids the bot set), each with its defaults (select bounds,
    separator spacing, container colour...), emojis as Discord writes them, media resolved (an
    ``attachment://`` URL becomes the attachment's, with its id, type and size) with a media id
    (``new_id``)."""
    by_name = {a.filename: a for a in attachments}
    tree = [_stored_component(c, by_name, new_id) for c in components if isinstance(c, dict)]
    taken = {c["id"] for c in walk_components(tree) if isinstance(c.get("id"), int)}
    counter = 0
    for comp in walk_components(tree):
        if not isinstance(comp.get("id"), int):
            counter += 1
            while counter in taken:
                counter += 1
            comp["id"] = counter
    return tree


def _stored_component(
    comp: dict[str, Any], by_name: dict[str, FakeAttachment], new_id: Callable[[], int]
) -> dict[str, Any]:
    out = {key: copy.deepcopy(value) for key, value in comp.items() if value is not None}
    ctype = out.get("type")
    children = out.get("components")
    if isinstance(children, list):
        out["components"] = [_stored_component(c, by_name, new_id) for c in children if isinstance(c, dict)]
    for key in ("accessory", "component"):
        if isinstance(out.get(key), dict):
            out[key] = _stored_component(out[key], by_name, new_id)
    if isinstance(out.get("emoji"), dict):
        out["emoji"] = _stored_emoji(out["emoji"])
    if ctype in (STRING_SELECT, *AUTO_SELECTS):
        out.setdefault("min_values", 1)
        out.setdefault("max_values", 1)
        options = []
        for option in out.get("options") or []:
            option = {key: value for key, value in option.items() if value is not None}
            if isinstance(option.get("emoji"), dict):
                option["emoji"] = _stored_emoji(option["emoji"])
            options.append(option)
        if ctype == STRING_SELECT:
            out["options"] = options
    elif ctype == THUMBNAIL:
        out["media"] = _stored_media(out.get("media") or {}, by_name, new_id)
        out.setdefault("description", None)
        out.setdefault("spoiler", False)
    elif ctype == MEDIA_GALLERY:
        out["items"] = [
            {
                **item,
                "media": _stored_media(item.get("media") or {}, by_name, new_id),
                "description": item.get("description"),
                "spoiler": bool(item.get("spoiler", False)),
            }
            for item in out.get("items") or []
        ]
    elif ctype == FILE:
        media = out.get("file") or {}
        url = str(media.get("url") or "")
        attachment = (
            by_name.get(url.removeprefix("attachment://")) if url.startswith("attachment://") else None
        )
        out["file"] = _stored_media(media, by_name, new_id)
        out["name"] = attachment.filename if attachment is not None else None
        out["size"] = len(attachment.data) if attachment is not None else None
        out.setdefault("spoiler", False)
    elif ctype == SEPARATOR:
        out.setdefault("spacing", 1)
        out.setdefault("divider", True)
    elif ctype == CONTAINER:
        out.setdefault("accent_color", None)
        out.setdefault("spoiler", False)
    return out


def _stored_emoji(emoji: dict[str, Any]) -> dict[str, Any]:
    """A component's emoji as Discord returns it: a Unicode emoji by its name alone, a custom one with
    its id and ``animated``."""
    out: dict[str, Any] = {"name": emoji.get("name") or ""}
    if emoji.get("id") is not None:
        out["id"] = str(emoji["id"])
        out["animated"] = bool(emoji.get("animated", False))
    return out


def _stored_media(
    media: dict[str, Any], by_name: dict[str, FakeAttachment], new_id: Callable[[], int]
) -> dict[str, Any]:
    """An unfurled media item: Discord's id for it, its URL and proxy URL; an ``attachment://`` one
    points at the attachment (its URL, id, content type, size in pixels)."""
    url = str(media.get("url") or "")
    out: dict[str, Any] = {"id": str(new_id()), "url": url, "proxy_url": url}
    attachment = by_name.get(url.removeprefix("attachment://")) if url.startswith("attachment://") else None
    if attachment is not None:
        pixels = attachment.size_in_pixels
        out.update(
            url=attachment.url,
            proxy_url=attachment.url,
            width=pixels[0] if pixels else None,
            height=pixels[1] if pixels else None,
            content_type=attachment.media_type,
            attachment_id=str(attachment.id),
        )
    return out


def stored_embeds(embeds: Iterable[Any], attachments: Iterable[FakeAttachment]) -> list[dict[str, Any]]:
    """The embeds as Discord returns them: ``type`` "rich" (a bot's embeds always are), nothing sent as
    null, each field's ``inline``, images and icons with their proxy URL (an ``attachment://`` image
    becomes the attachment's URL, with its size in pixels and content type)."""
    by_name = {a.filename: a for a in attachments}
    out = []
    for embed in embeds:
        if not isinstance(embed, dict):
            continue
        stored = {key: copy.deepcopy(value) for key, value in embed.items() if value is not None}
        stored["type"] = "rich"
        if isinstance(stored.get("fields"), list):
            stored["fields"] = [
                {
                    **{k: v for k, v in fld.items() if v is not None},
                    "inline": bool(fld.get("inline", False)),
                }
                for fld in stored["fields"]
                if isinstance(fld, dict)
            ]
        for key in ("image", "thumbnail"):
            part = stored.get(key)
            if isinstance(part, dict):
                stored[key] = _stored_embed_image(part, by_name)
        for key in ("footer", "author"):
            part = stored.get(key)
            if isinstance(part, dict):
                part = {k: v for k, v in part.items() if v is not None}
                if "icon_url" in part:
                    part["proxy_icon_url"] = part["icon_url"]
                stored[key] = part
        out.append(stored)
    return out


def _stored_embed_image(image: dict[str, Any], by_name: dict[str, FakeAttachment]) -> dict[str, Any]:
    url = str(image.get("url") or "")
    out: dict[str, Any] = {"url": url, "proxy_url": url}
    attachment = by_name.get(url.removeprefix("attachment://")) if url.startswith("attachment://") else None
    if attachment is not None:
        out.update(url=attachment.url, proxy_url=attachment.url)
        pixels = attachment.size_in_pixels
        if pixels is not None:
            out["width"], out["height"] = pixels
        if attachment.media_type is not None:
            out["content_type"] = attachment.media_type
    return out
