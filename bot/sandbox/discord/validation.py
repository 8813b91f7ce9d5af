"""Discord's payload limits: components (buttons, selects, V2 layouts), embeds and message bodies,
refused the way Discord refuses them (50035 Invalid Form Body with its nested errors).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from bot.sandbox.discord.constants import (
    ACTION_ROW,
    AUTO_SELECTS,
    BUTTON,
    CONTAINER,
    FILE,
    FLAG_COMPONENTS_V2,
    KNOWN_COMPONENT_TYPES,
    LABEL,
    MEDIA_GALLERY,
    SECTION,
    SEPARATOR,
    STRING_SELECT,
    TEXT_DISPLAY,
    TEXT_INPUT,
    THUMBNAIL,
)
from bot.sandbox.discord.errors import FormErrors


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
