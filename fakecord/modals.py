"""Modals as Discord's developer docs describe them (components reference: Label 18, Text Input 4, String
Select 3, the user / role / mentionable / channel selects 5-8, File Upload 19, Radio Group 21, Checkbox
Group 22, Checkbox 23, Text Display 10; receiving-and-responding: the MODAL callback and the
MODAL_SUBMIT data).

Three jobs, each a plain function:

* :func:`validate_modal`: what Discord's description cannot check about the modal a bot opens (its
  lengths, counts and the union of component types it checks before the route runs), refused as 400 /
  50035 with the path of the field: at most 5 top-level components (the docs' "Between 1 and 5"; the
  description says 40, and the docs win: ``openapi.DEVIATIONS``), custom ids unique, no disabled
  component ("Using disabled in a modal will result in an error"), a required select or checkbox group
  whose ``min_values`` is at least 1, ``min_values`` <= ``max_values`` <= the number of options, option
  values unique, a radio group with at most one default, a checkbox group with no more defaults than
  ``max_values``, a text input whose ``min_length`` <= ``max_length`` and whose pre-filled ``value``
  fits them.
* :func:`numbered_modal`: the modal as Discord holds it, every component with its ``id`` (the bot's,
  else 1, 2, ... in tree order, skipping the ids the bot set).
* :func:`submit_data`: the MODAL_SUBMIT ``data`` Discord sends when the user submits it: each top-level
  component with its ``id`` (a label wrapping its ``component``, a legacy action row its text inputs, a
  text display its ``type`` and ``id`` alone), each input with ``type``, ``id``, ``custom_id`` and its
  answer (text input and radio group ``value``, a checkbox ``value`` true or false, selects and checkbox
  groups ``values``), and ``resolved`` for the users, roles and channels picked. What the user's client
  would not let them submit (a required input left empty, a text outside its lengths, a value that is
  not an option, too few or too many picks) raises :class:`InteractionRefused`. A file upload's files
  are not modelled (submitting one raises :class:`FakeDiscordError`; an optional one is sent empty).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from fakecord.constants import (
    ACTION_ROW,
    AUTO_SELECTS,
    CHECKBOX,
    CHECKBOX_GROUP,
    FILE_UPLOAD,
    LABEL,
    RADIO_GROUP,
    STRING_SELECT,
    TEXT_DISPLAY,
    TEXT_INPUT,
)
from fakecord.errors import FakeDiscordError, FormErrors, InteractionRefused
from fakecord.validation import walk_components

MAX_MODAL_COMPONENTS = 5  # the docs' "Between 1 and 5 (inclusive) components"
OPTIONED = (STRING_SELECT, RADIO_GROUP, CHECKBOX_GROUP)
PICKED = (STRING_SELECT, *AUTO_SELECTS, CHECKBOX_GROUP, FILE_UPLOAD)  # inputs with min/max_values

# What turns a picked user, role or channel into its id, adding it to ``resolved``: (component type,
# picked value, resolved) -> the id as a string.
Resolver = Callable[[int, Any, dict[str, dict[str, Any]]], str]


# ---------------------------------------------------------------------------------- the bot's modal


def validate_modal(data: dict[str, Any], errors: FormErrors) -> None:
    """Adds to ``errors`` what Discord refuses in a MODAL callback's ``data`` beyond its description."""
    errors.max_length(["data", "title"], data.get("title"), 45)
    errors.max_length(["data", "custom_id"], data.get("custom_id"), 100)
    components = data.get("components")
    if not isinstance(components, list):
        return  # the description refused it
    if not 1 <= len(components) <= MAX_MODAL_COMPONENTS:
        errors.add(
            ["data", "components"],
            "BASE_TYPE_BAD_LENGTH",
            f"Must be between 1 and {MAX_MODAL_COMPONENTS} in length.",
        )
    for i, comp in enumerate(components):
        if not isinstance(comp, dict):
            continue
        path: list[str | int] = ["data", "components", i]
        if comp.get("type") == LABEL and isinstance(comp.get("component"), dict):
            _validate_input(comp["component"], [*path, "component"], errors)
        elif comp.get("type") == ACTION_ROW:
            for j, child in enumerate(comp.get("components") or []):
                if isinstance(child, dict):
                    _validate_input(child, [*path, "components", j], errors)
    seen: set[str] = set()
    for comp in walk_components(c for c in components if isinstance(c, dict)):
        custom_id = comp.get("custom_id")
        if custom_id is not None and custom_id in seen:
            errors.add(
                ["data", "components"],
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        if custom_id is not None:
            seen.add(custom_id)


def _validate_input(comp: dict[str, Any], path: list[str | int], errors: FormErrors) -> None:
    ctype = comp.get("type")
    if comp.get("disabled"):
        errors.add(
            [*path, "disabled"], "COMPONENT_DISABLED_IN_MODAL", "Modals cannot have disabled components."
        )
    if ctype == TEXT_INPUT:
        low, high, value = comp.get("min_length"), comp.get("max_length"), comp.get("value")
        if isinstance(low, int) and isinstance(high, int) and low > high:
            errors.add(
                [*path, "min_length"],
                "TEXT_INPUT_MIN_LENGTH_TOO_HIGH",
                "min_length must not exceed max_length.",
            )
        if isinstance(value, str) and isinstance(high, int) and len(value) > high:
            errors.add([*path, "value"], "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")
    options = comp.get("options") if ctype in OPTIONED else None
    if isinstance(options, list):
        values = [o.get("value") for o in options if isinstance(o, dict)]
        for j, value in enumerate(values):
            if value in values[:j]:
                errors.add(
                    [*path, "options", j, "value"],
                    "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    "Option values must be unique.",
                )
        defaults = sum(1 for o in options if isinstance(o, dict) and o.get("default"))
        if ctype == RADIO_GROUP and defaults > 1:
            errors.add(
                [*path, "options"], "RADIO_GROUP_DEFAULTS_TOO_MANY", "At most one option may be the default."
            )
        if ctype == CHECKBOX_GROUP and defaults > _max_values(comp):
            errors.add(
                [*path, "options"], "CHECKBOX_GROUP_DEFAULTS_TOO_MANY", "More defaults than max_values."
            )
    if ctype in PICKED:
        low, high = comp.get("min_values"), _max_values(comp)
        if isinstance(low, int) and low > high:
            errors.add(
                [*path, "min_values"],
                "SELECT_COMPONENT_MIN_VALUES_TOO_HIGH",
                "min_values must not exceed max_values.",
            )
        if isinstance(options, list) and options and high > len(options):
            errors.add(
                [*path, "max_values"],
                "SELECT_COMPONENT_MAX_VALUES_TOO_HIGH",
                "max_values must be less than or equal to the number of options.",
            )
        if comp.get("required", True) is not False and low == 0:
            errors.add(
                [*path, "min_values"],
                "SELECT_COMPONENT_MIN_VALUES_REQUIRED",
                "min_values must be omitted or at least 1 when the component is required.",
            )


def _max_values(comp: dict[str, Any]) -> int:
    """A component's ``max_values`` as Discord reads it: 1 for a select, the number of options for a
    checkbox group, when unset."""
    high = comp.get("max_values")
    if isinstance(high, int):
        return high
    if comp.get("type") == CHECKBOX_GROUP:
        return len(comp.get("options") or [])
    return 1


def numbered_modal(data: dict[str, Any]) -> dict[str, Any]:
    """The modal as Discord holds it: every component with an ``id`` (the bot's, else the next free)."""
    modal = copy.deepcopy(data)
    tree = [c for c in modal.get("components") or [] if isinstance(c, dict)]
    taken = {c["id"] for c in walk_components(tree) if isinstance(c.get("id"), int) and c["id"] > 0}
    counter = 0
    for comp in walk_components(tree):
        if not (isinstance(comp.get("id"), int) and comp["id"] > 0):
            counter += 1
            while counter in taken:
                counter += 1
            comp["id"] = counter
    return modal


# ---------------------------------------------------------------------------------- the user's submit


def submit_data(modal: dict[str, Any], values: dict[str, Any], resolve: Resolver) -> dict[str, Any]:
    """The MODAL_SUBMIT ``data`` when the user submits ``modal`` (see :func:`numbered_modal`) with
    ``values``: custom id -> a text input's text, a radio group's option value (or None), a checkbox's
    bool, a select's or checkbox group's list. Inputs left out keep what the modal pre-fills (a text
    input's ``value``, the options marked ``default``, a checkbox's ``default``)."""
    inputs = {c.get("custom_id") for c in walk_components(modal.get("components") or [])}
    unknown = set(values) - inputs
    if unknown:
        raise InteractionRefused(f"the modal has no inputs {sorted(unknown)}")
    resolved: dict[str, dict[str, Any]] = {}

    def answer(comp: dict[str, Any]) -> dict[str, Any]:
        ctype = comp.get("type")
        if ctype == ACTION_ROW:
            return {
                "type": ACTION_ROW,
                "id": comp["id"],
                "components": [answer(c) for c in comp["components"]],
            }
        if ctype == LABEL:
            return {"type": LABEL, "id": comp["id"], "component": answer(comp["component"])}
        if ctype == TEXT_DISPLAY:
            return {"type": TEXT_DISPLAY, "id": comp["id"]}
        custom_id = comp["custom_id"]
        out: dict[str, Any] = {"type": ctype, "id": comp["id"], "custom_id": custom_id}
        given = custom_id in values
        value: Any = values.get(custom_id)
        if ctype == TEXT_INPUT:
            out["value"] = _text(comp, value if given else comp.get("value") or "")
        elif ctype in (STRING_SELECT, CHECKBOX_GROUP):
            picked = list(value) if given else [o["value"] for o in comp["options"] if o.get("default")]
            allowed = [o["value"] for o in comp["options"]]
            bad = [v for v in picked if v not in allowed]
            if bad:
                raise InteractionRefused(f"{bad} are not options of {custom_id!r} ({allowed})")
            out["values"] = _count(comp, picked)
        elif ctype in AUTO_SELECTS:
            out["values"] = _count(comp, [resolve(ctype, v, resolved) for v in (value if given else [])])
        elif ctype == RADIO_GROUP:
            default = next((o["value"] for o in comp["options"] if o.get("default")), None)
            choice = value if given else default
            if choice is not None and choice not in [o["value"] for o in comp["options"]]:
                raise InteractionRefused(f"{choice!r} is not an option of {custom_id!r}")
            if choice is None and comp.get("required", True) is not False:
                raise InteractionRefused(f"radio group {custom_id!r} is required")
            out["value"] = choice
        elif ctype == CHECKBOX:
            state = value if given else bool(comp.get("default"))
            if not isinstance(state, bool):
                raise InteractionRefused(f"checkbox {custom_id!r} is true or false, not {state!r}")
            out["value"] = state
        elif ctype == FILE_UPLOAD:
            if given:
                raise FakeDiscordError("the fake does not model the files of a file upload")
            out["values"] = _count(comp, [])
        return out

    data: dict[str, Any] = {
        "custom_id": modal.get("custom_id"),
        "components": [answer(c) for c in modal.get("components") or []],
    }
    if resolved:
        data["resolved"] = resolved
    return data


def _text(comp: dict[str, Any], text: Any) -> str:
    custom_id = comp.get("custom_id")
    if not isinstance(text, str):
        raise InteractionRefused(f"text input {custom_id!r} takes a string, not {text!r}")
    if not text:
        if comp.get("required", True) is not False:
            raise InteractionRefused(f"text input {custom_id!r} is required")
        return text
    low, high = comp.get("min_length") or 0, comp.get("max_length") or 4000
    if not low <= len(text) <= high:
        raise InteractionRefused(f"text input {custom_id!r} takes {low}..{high} characters, not {len(text)}")
    return text


def _count(comp: dict[str, Any], picked: list[Any]) -> list[Any]:
    """``picked``, if its number fits the component (none at all is fine when it is not required)."""
    if not picked and comp.get("required", True) is False:
        return picked
    low = comp.get("min_values")
    low = 1 if low is None else low
    high = _max_values(comp)
    if not low <= len(picked) <= high or (not picked and comp.get("required", True) is not False):
        raise InteractionRefused(f"{comp.get('custom_id')!r} takes {low}..{high} values, got {len(picked)}")
    return picked
