"""The payload rules Discord's OpenAPI description cannot carry, refused the way Discord refuses them
(50035 Invalid Form Body with its nested errors).

One judge per rule: every length, count, type and shape the description states (labels, custom ids,
rows of 1-5, options, embed fields, union of component types...) is checked by the description
(openapi/, before any route runs), never here. What is left here is what no schema says: rules that
depend on other fields (the IS_COMPONENTS_V2 flag, a button's style, a select's options), uniqueness,
totals over a whole message, and where Discord's docs are stricter than the description (a message's
content is 2,000 characters, not 4,000: ``openapi.DEVIATIONS``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from fakecord.constants import (
    ACTION_ROW,
    AUTO_SELECTS,
    BUTTON,
    CONTAINER,
    FILE,
    FLAG_COMPONENTS_V2,
    MEDIA_GALLERY,
    SECTION,
    SEPARATOR,
    STRING_SELECT,
    TEXT_DISPLAY,
    THUMBNAIL,
)
from fakecord.errors import FormErrors


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
    min_values = comp.get("min_values", 1)
    max_values = comp.get("max_values", 1)
    if comp.get("type") == STRING_SELECT:
        options = comp.get("options") or []
        values = set()
        for j, opt in enumerate(options):
            if opt.get("value") in values:
                errors.add(
                    [*path, "options", j, "value"],
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
        return  # the description refused it already
    ctype = comp.get("type")
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
    if ctype == ACTION_ROW:
        items = [c for c in comp.get("components") or [] if isinstance(c, dict)]
        if any(c.get("type") in (STRING_SELECT, *AUTO_SELECTS) for c in items) and len(items) > 1:
            errors.add(
                [*path, "components"],
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
    elif ctype == BUTTON:
        _validate_button(comp, path, errors)
    elif ctype in (STRING_SELECT, *AUTO_SELECTS):
        _validate_select(comp, path, errors)
    inside = comp.get("components")
    for j, child in enumerate(inside if isinstance(inside, list) else []):
        _validate_component(child, [*path, "components", j], errors, v2=v2, top_level=False)
    accessory = comp.get("accessory")
    if isinstance(accessory, dict):
        _validate_component(accessory, [*path, "accessory"], errors, v2=v2, top_level=False)


MAX_V2_TEXT = 4000


def validate_flags_edit(
    old_flags: int, body: dict[str, Any], old: dict[str, Any], errors: FormErrors
) -> None:
    """An edit's IS_COMPONENTS_V2 flag, as Discord's docs say (Edit Message, its flags): the flag can
    be set on a message that lacked it, never unset; setting it, the edit must empty the message's
    ``content`` (null) and ``embeds`` (``[]``) that the message had (else 400).
    ``old``: the message's ``content`` and ``embeds`` before the edit."""
    if "flags" not in body or body["flags"] is None:
        return
    new = int(body["flags"])
    if old_flags & FLAG_COMPONENTS_V2 and not new & FLAG_COMPONENTS_V2:
        errors.add(["flags"], "MESSAGE_FLAGS_INVALID", "The IS_COMPONENTS_V2 flag cannot be removed.")
    elif new & FLAG_COMPONENTS_V2 and not old_flags & FLAG_COMPONENTS_V2:
        for key in ("content", "embeds"):
            if old.get(key) and key not in body:
                errors.add(
                    [key],
                    "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                    f"Setting IS_COMPONENTS_V2, the message's '{key}' must be emptied by the edit.",
                )


def validate_components(components: Any, path: list[str | int], errors: FormErrors, *, flags: int) -> None:
    """Checks what Discord's description cannot carry about a message's components: a message without
    the IS_COMPONENTS_V2 flag holds at most 5 action rows and no layout component, one with it at most
    40 components in all; custom ids are unique; a row with a select holds nothing else; link, premium
    and other buttons have their own required fields; select values are unique and fit the options."""
    if not isinstance(components, list):
        return  # absent, or refused by the description already
    v2 = bool(flags & FLAG_COMPONENTS_V2)
    if not v2 and len(components) > 5:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    for i, comp in enumerate(components):
        _validate_component(comp, [*path, i], errors, v2=v2, top_level=True)
    all_components = list(walk_components(c for c in components if isinstance(c, dict)))
    if v2 and len(all_components) > 40:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length (total components).")
    # The docs (components reference, "Text Display"): the text of all the text displays of a
    # message counts against one limit of 4,000 characters.
    text = sum(len(str(c.get("content") or "")) for c in all_components if c.get("type") == TEXT_DISPLAY)
    if v2 and text > MAX_V2_TEXT:
        errors.add(
            path, "BASE_TYPE_MAX_LENGTH", f"Text displays must hold {MAX_V2_TEXT} characters or fewer."
        )
    seen: set[str] = set()
    for comp in all_components:
        custom_id = comp.get("custom_id")
        if custom_id is None:
            continue
        if custom_id in seen:
            errors.add(path, "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
        seen.add(custom_id)


def validate_embeds(embeds: Any, path: list[str | int], errors: FormErrors) -> None:
    """What the description cannot carry about embeds: a field's name and value are not empty, and the
    characters of all the embeds of a message add up to 6,000 at most."""
    if not isinstance(embeds, list):
        return
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            continue
        for key in ("title", "description"):
            total += len(embed.get(key) or "")
        total += len((embed.get("footer") or {}).get("text") or "")
        total += len((embed.get("author") or {}).get("name") or "")
        for j, fld in enumerate(embed.get("fields") or []):
            for key in ("name", "value"):
                if not fld.get(key):
                    errors.add([*path, i, "fields", j, key], "BASE_TYPE_REQUIRED", "This field is required")
                total += len(fld.get(key) or "")
    if total > 6000:
        errors.add(path, "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")


def validate_message_body(
    body: dict[str, Any], *, path: list[str | int], flags: int, errors: FormErrors
) -> None:
    """The checks of a message body that Discord's description leaves to us (see the module docstring)."""
    content = body.get("content")
    errors.max_length([*path, "content"], content, 2000)  # the docs' 2,000 (openapi.DEVIATIONS)
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
