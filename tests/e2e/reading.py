"""One reader of what a message shows, for the tests: an embed message (boards, stats, history) and a
Components V2 one (the table, the lobby, the replay, /help: issue 40) alike.

A V2 message is one container (type 17) of text displays (10), a media gallery (12), separators (14)
and action rows (1): its title is the first text display's ``## `` heading, its description the rest
of that display, a field a display ``**name**`` + newline + value, its footer the display in small
print (``-# ``) and, on a table beside its picture, the players' lines the display right after the
gallery (bot/render/messages.py ``layout_of``).
"""

from __future__ import annotations

from typing import Any

from fakecord import FakeMessage
from fakecord.constants import BUTTON, CONTAINER, FLAG_COMPONENTS_V2, MEDIA_GALLERY, TEXT_DISPLAY

Payload = dict[str, Any]


def _payload(message: FakeMessage | Payload) -> Payload:
    return message if isinstance(message, dict) else message.payload()


def _walk(components: list[Payload]) -> list[Payload]:
    found: list[Payload] = []
    for comp in components:
        found.append(comp)
        found += _walk(comp.get("components") or [])
        if isinstance(comp.get("accessory"), dict):
            found.append(comp["accessory"])
    return found


def is_v2(message: FakeMessage | Payload) -> bool:
    return bool(int(_payload(message).get("flags") or 0) & FLAG_COMPONENTS_V2)


def containers_of(message: FakeMessage | Payload) -> list[Payload]:
    return [c for c in _payload(message).get("components") or [] if c.get("type") == CONTAINER]


def displays_of(message: FakeMessage | Payload) -> list[str]:
    """The text displays' contents, in order."""
    comps = _walk(_payload(message).get("components") or [])
    return [str(c.get("content") or "") for c in comps if c.get("type") == TEXT_DISPLAY]


def text_of(message: FakeMessage | Payload) -> str:
    """Every text a reader sees: the content, the embeds' parts, the text displays."""
    payload = _payload(message)
    parts = [str(payload.get("content") or "")]
    for embed in payload.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        for fld in embed.get("fields") or []:
            parts += [fld.get("name") or "", fld.get("value") or ""]
        parts.append((embed.get("footer") or {}).get("text") or "")
    parts += displays_of(payload)
    return "\n".join(p for p in parts if p)


def buttons_of(message: FakeMessage | Payload) -> list[Payload]:
    """Every button, at the top or inside a container."""
    return [c for c in _walk(_payload(message).get("components") or []) if c.get("type") == BUTTON]


def title_of(message: FakeMessage | Payload) -> str:
    payload = _payload(message)
    if payload.get("embeds"):
        return str(payload["embeds"][0].get("title") or "")
    displays = displays_of(payload)
    first = displays[0].split("\n", 1)[0] if displays else ""
    return first.removeprefix("## ") if first.startswith("## ") else ""


def description_of(message: FakeMessage | Payload) -> str:
    """An embed's description, or the first text display under its heading."""
    payload = _payload(message)
    if payload.get("embeds"):
        return str(payload["embeds"][0].get("description") or "")
    displays = displays_of(payload)
    if not displays:
        return ""
    head, _, rest = displays[0].partition("\n")
    return rest if head.startswith("## ") else displays[0]


def fields_of(message: FakeMessage | Payload) -> dict[str, str]:
    """An embed's fields by name, or the text displays said as a field (``**name**`` then the value)."""
    payload = _payload(message)
    if payload.get("embeds"):
        return {f["name"]: f["value"] for f in payload["embeds"][0].get("fields") or []}
    fields = {}
    for display in displays_of(payload):
        head, _, value = display.partition("\n")
        if head.startswith("**") and head.endswith("**") and value:
            fields[head[2:-2]] = value
    return fields


def footer_of(message: FakeMessage | Payload) -> str:
    payload = _payload(message)
    if payload.get("embeds"):
        return str((payload["embeds"][0].get("footer") or {}).get("text") or "")
    # the footer, not the compact table's last moves (small print too, each line "-# • ...")
    small = [d for d in displays_of(payload) if d.startswith("-# ") and not d.startswith("-# • ")]
    return small[-1].removeprefix("-# ") if small else ""


def gallery_urls(message: FakeMessage | Payload) -> list[str]:
    comps = _walk(_payload(message).get("components") or [])
    return [str(item["media"]["url"]) for c in comps if c.get("type") == MEDIA_GALLERY for item in c["items"]]


def _beside_picture(message: FakeMessage | Payload) -> list[str]:
    """The lines of the text display right after a table's media gallery."""
    (box,) = containers_of(message)
    children = box["components"]
    for i, comp in enumerate(children[:-1]):
        if comp.get("type") == MEDIA_GALLERY and children[i + 1].get("type") == TEXT_DISPLAY:
            return str(children[i + 1]["content"]).split("\n")
    return []


def players_of(message: FakeMessage | Payload) -> list[str]:
    """A table's players' lines beside its picture (without the legend under them)."""
    return [line for line in _beside_picture(message) if not line.startswith("-# ")]


def legend_of(message: FakeMessage | Payload) -> list[str]:
    """The small print under a table's players' lines: what their marks mean (Skip-Bo's)."""
    return [line.removeprefix("-# ") for line in _beside_picture(message) if line.startswith("-# ")]


def moves_of(message: FakeMessage | Payload) -> list[str]:
    """The last moves a table shows (its lines starting with a bullet; in small print on the compact
    table beside its picture: ``-# • ``)."""
    lines = [line.removeprefix("-# ") for line in text_of(message).split("\n")]
    return [line[2:] for line in lines if line.startswith("• ")]
