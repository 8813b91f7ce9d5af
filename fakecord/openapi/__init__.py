"""Discord's own OpenAPI description of its HTTP API (v10), the judge of what the bot and the fake say.

``openapi.json`` beside this file is Discord's published description, unchanged (``SOURCE.md`` names
the repository and commit, ``LICENSE`` is its MIT licence). Refresh it from a newer copy with
``python -m fakecord.openapi refresh DIR`` (DIR holds ``openapi.json``, ``LICENSE`` and
``SOURCE.md``; ``make discord-spec SPEC=DIR`` does the same).

:func:`check_request` checks a request (route and method exist, the JSON or ``payload_json`` body
matches the request schema with its lengths and counts) and :func:`check_response` an answer (its
status is described, its body matches the response schema), both with ``jsonschema`` (Draft 2020-12),
compiled once per operation and cached. A violation is a :class:`Violation`: the path of the field in
the body and what is wrong with it, in the words and codes of Discord's 50035 "Invalid Form Body".

Where Discord's notes say the description differs from the live API, :data:`DEVIATIONS` says how the
checker reads it, in this one place (the file itself is never edited).
"""

from __future__ import annotations

import copy
import functools
import json
import re
import time
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from fakecord.openapi import documented

HERE = Path(__file__).resolve().parent
SPEC_FILE = HERE / "openapi.json"
SPEC_FILES = ("openapi.json", "LICENSE", "SOURCE.md")
_BASE_URI = "urn:discord-openapi"

# How the checker reads the description where Discord's own notes (SOURCE.md, from the description's
# README) or its developer docs say the live API differs. Each entry: what, and why.
DEVIATIONS: dict[str, str] = {
    "SnowflakeType accepts a JSON integer": (
        "Discord accepts a snowflake as a JSON number where the description says string (SOURCE.md); "
        "discord.py sends numbers, e.g. in allowed_mentions and attachment ids."
    ),
    "anyOf stays anyOf": (
        "Discord's notes say every anyOf (x-discord-union: oneOf) means the value is one of the listed "
        "shapes; the shapes are partial objects that may overlap (a webhook message's content and tts "
        "fit both the create and the update shape), so JSON Schema's anyOf is that reading, and oneOf "
        "would refuse what Discord accepts."
    ),
    "a field error's code is a string": (
        "the description types every Error.code as an integer; inside the errors tree of a 400 / 50035 "
        "Discord's docs (Error Messages) and its live answers name each field error with a string "
        "code such as BASE_TYPE_REQUIRED, and the docs win."
    ),
    "routes the docs describe and the description lacks": (
        "POST /oauth2/token (the OAuth2 token URL, topics/oauth2) is not in the description; documented.py "
        "writes it from the docs (a form body, the access token answer, OAuth2's error body) and "
        "document() adds it, so that the one checker judges it too."
    ),
    "message content is at most 2,000 characters": (
        "the description says 4,000 (what Nitro users may post); Discord's developer docs say 2,000 for "
        "a bot's message, and the docs win: the fake's own check (validation.py) keeps 2,000."
    ),
    "a modal holds at most 5 components": (
        "the description lets a MODAL callback hold 40 top-level components; Discord's developer docs say "
        "between 1 and 5 (receiving-and-responding, Modal), and the docs win: the fake's own check "
        "(modals.py) keeps 5."
    ),
}


@dataclass
class Cost:
    """What checking has cost in this process (the test suite prints it): bodies checked, seconds."""

    checks: int = 0
    seconds: float = 0.0


COST = Cost()


@dataclass(frozen=True)
class Violation:
    """One way a body breaks the description: ``path`` inside the body, Discord's error ``code``."""

    path: tuple[str | int, ...]
    code: str
    message: str

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "(body)"
        return f"{where}: {self.code} {self.message}"


class UnknownRoute(Exception):
    """No operation of the description has this method and path."""


@dataclass(frozen=True)
class Operation:
    """One method on one path of the description."""

    template: str  # e.g. "/channels/{channel_id}/messages"
    method: str  # lower case, as in the description
    pointer: str  # JSON pointer of the operation object in the document

    @property
    def operation_id(self) -> str:
        return str(_operation_object(self)["operationId"])


@functools.cache
def document() -> dict[str, Any]:
    """The description as the checker reads it (:data:`DEVIATIONS` applied in memory)."""
    doc: dict[str, Any] = json.loads(SPEC_FILE.read_text(encoding="utf-8"))
    schemas = doc["components"]["schemas"]
    snowflake = schemas["SnowflakeType"]
    schemas["SnowflakeType"] = {"oneOf": [snowflake, {"type": "integer", "minimum": 0}]}
    schemas["InnerErrors"] = copy.deepcopy(schemas["InnerErrors"])
    field_error = {
        "type": "object",
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        "required": ["code", "message"],
    }
    schemas["InnerErrors"]["properties"]["_errors"]["items"] = field_error
    for name, schema in documented.SCHEMAS.items():
        schemas.setdefault(name, copy.deepcopy(schema))
    for path, operations in documented.PATHS.items():
        doc["paths"].setdefault(path, copy.deepcopy(operations))
    return doc


def version() -> str:
    """What :func:`document` is: the API version and the source commit (from SOURCE.md)."""
    source = (HERE / "SOURCE.md").read_text(encoding="utf-8")
    found = re.search(r"commit ([0-9a-f]{7,40})", source)
    commit = found.group(1)[:12] if found else "unknown commit"
    return f"Discord HTTP API v{document()['info']['version']} (discord-api-spec {commit})"


@functools.cache
def _registry() -> Registry[Any]:
    resource: Resource[Any] = Resource.from_contents(document(), default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(_BASE_URI, resource)
    return registry


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


@functools.cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    """(regex, template) of every path, literal segments before parameters (``/users/@me`` before
    ``/users/{user_id}``)."""
    routes = []
    for template in document()["paths"]:
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        routes.append((re.compile(f"^{pattern}$"), template))
    routes.sort(key=lambda r: (r[1].count("{"), [("{" in part, part) for part in r[1].split("/")]))
    return routes


def _operation_object(op: Operation) -> dict[str, Any]:
    return dict(document()["paths"][op.template][op.method])


@functools.lru_cache(maxsize=4096)  # bounded: concrete paths carry ids and interaction tokens
def find_operation(method: str, path: str) -> Operation:
    """The operation a request is for; :class:`UnknownRoute` when the description has none."""
    method = method.lower()
    path = path.split("?", 1)[0].rstrip("/") or "/"
    paths = document()["paths"]
    matched = False
    for regex, template in _routes():
        if regex.match(path):
            matched = True
            if method in paths[template]:
                pointer = f"#/paths/{_escape(template)}/{method}"
                return Operation(template, method, pointer)
    raise UnknownRoute(f"{method.upper()} {path}: " + ("method not allowed" if matched else "no such route"))


def _ref(pointer: str) -> dict[str, str]:
    return {"$ref": _BASE_URI + urllib.parse.quote(pointer, safe="/~#@")}


@functools.cache
def _fast_registry() -> jsonschema_rs.Registry:
    return jsonschema_rs.Registry([(_BASE_URI, document())])


@functools.cache
def _fast(pointer: str) -> Any:
    return jsonschema_rs.Draft202012Validator(_ref(pointer), registry=_fast_registry())


@functools.cache
def _validator(pointer: str) -> Draft202012Validator:
    return Draft202012Validator(_ref(pointer), registry=_registry())


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = document()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def _request_pointer(op: Operation) -> str | None:
    body = _operation_object(op).get("requestBody")
    if body is None:
        return None
    content = _resolve(body)["content"]
    kind = "application/json" if "application/json" in content else next(iter(content))
    return f"{op.pointer}/requestBody/content/{_escape(kind)}/schema"


def _response_pointer(op: Operation, status: int) -> str | None:
    """The schema of this status's answer; ``""`` when the status has no body; None when the
    description does not list the status at all."""
    responses = _operation_object(op)["responses"]
    for key in (str(status), f"{str(status)[0]}XX", "default"):
        if key in responses:
            content = _resolve(responses[key]).get("content")
            if not content:
                return ""
            kind = "application/json" if "application/json" in content else next(iter(content))
            if "$ref" in responses[key]:
                ref = responses[key]["$ref"]
                return f"{ref}/content/{_escape(kind)}/schema"
            return f"{op.pointer}/responses/{key}/content/{_escape(kind)}/schema"
    return None


def _costed(check: Any) -> Any:
    """Counts a check and its time (description loading, compiling and explaining included) in COST."""

    @functools.wraps(check)
    def costed(*args: Any) -> list[Violation]:
        started = time.perf_counter()
        try:
            result: list[Violation] = check(*args)
            return result
        finally:
            COST.checks += 1
            COST.seconds += time.perf_counter() - started

    return costed


@_costed
def check_request(method: str, path: str, body: Any) -> list[Violation]:
    """What is wrong with this request (empty: nothing). ``path`` is the API path without ``/api/v10``,
    ``body`` the JSON body or multipart ``payload_json`` (None when there is none). Raises
    :class:`UnknownRoute` when the description has no such route and method."""
    op = find_operation(method, path)
    pointer = _request_pointer(op)
    if pointer is None:
        if body not in (None, {}, b"", ""):
            return [Violation((), "BASE_TYPE_INVALID", "This route takes no body.")]
        return []
    if body is None:
        required = _resolve(_operation_object(op)["requestBody"]).get("required", False)
        return [Violation((), "BASE_TYPE_REQUIRED", "This field is required")] if required else []
    return _violations(pointer, body)


@_costed
def check_response(method: str, path: str, status: int, body: Any) -> list[Violation]:
    """What is wrong with an answer the fake gave (empty: nothing): the status must be one the
    description lists for the operation, the body must match that status's schema (a 204 none)."""
    op = find_operation(method, path)
    pointer = _response_pointer(op, status)
    if pointer is None:
        return [Violation((), "UNDESCRIBED_STATUS", f"{op.operation_id} has no {status} answer")]
    if pointer == "":
        if body not in (None, b"", ""):
            return [Violation((), "UNEXPECTED_BODY", f"a {status} answer of {op.operation_id} has no body")]
        return []
    return _violations(pointer, body)


def check_schema(name: str, instance: Any) -> list[Violation]:
    """``instance`` against one named schema of the description (``components/schemas/<name>``)."""
    return _violations(f"#/components/schemas/{_escape(name)}", instance)


# ---------------------------------------------------------------------------------- errors, Discord's way


def _violations(pointer: str, instance: Any) -> list[Violation]:
    fast = _fast(pointer)
    if fast.is_valid(instance):
        return []
    errors = list(_validator(pointer).iter_errors(instance))
    if not errors:  # the two libraries disagree: say what the compiled one found, never pass it
        return [
            Violation(tuple(e.instance_path), "BASE_TYPE_INVALID", e.message[:160])
            for e in fast.iter_errors(instance)
        ]
    found: dict[tuple[tuple[str | int, ...], str], Violation] = {}
    for error in errors:
        for leaf in _leaves(error):
            violation = _as_violation(leaf)
            found.setdefault((violation.path, violation.code), violation)
    return list(found.values())


def _branch_of(error: ValidationError) -> int:
    return int(error.relative_schema_path[0]) if error.relative_schema_path else -1


def _discriminator_failed(errors: Iterable[ValidationError]) -> bool:
    """True if a branch of a union failed on what tells the branches apart (its ``type`` field's
    ``const``/``enum``, or the instance's JSON type): that branch was not the one meant."""
    for err in errors:
        rel = list(err.relative_path)
        if err.validator in ("const", "enum") and rel == ["type"]:
            return True
        if err.validator == "type" and not rel:
            return True
    return False


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    """The errors that name a field: inside a union, those of the one branch the instance meant."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        yield error
        return
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(_branch_of(sub), []).append(sub)
    meant = [errs for errs in branches.values() if not _discriminator_failed(errs)]
    if len(meant) == 1:
        for sub in meant[0]:
            yield from _leaves(sub)
        return
    yield error


def _type_choices(error: ValidationError) -> list[Any]:
    """The values of ``type`` each branch of a union takes (empty if the branches are not told apart
    by a ``type`` field)."""
    choices: list[Any] = []
    for sub in error.context or ():
        rel = list(sub.relative_path)
        if sub.validator in ("const", "enum") and rel == ["type"]:
            value = sub.validator_value
            for choice in value if isinstance(value, list) else [value]:
                if choice not in choices:
                    choices.append(choice)
    return sorted(choices, key=lambda c: (isinstance(c, str), c if isinstance(c, int) else 0, str(c)))


def _bounds(schema: Any, low: str, high: str) -> tuple[Any, Any]:
    if not isinstance(schema, dict):
        return None, None
    return schema.get(low), schema.get(high)


_LENGTH_BOUNDS = {
    "maxLength": ("minLength", "maxLength"),
    "minLength": ("minLength", "maxLength"),
    "maxItems": ("minItems", "maxItems"),
    "minItems": ("minItems", "maxItems"),
    "maxProperties": ("minProperties", "maxProperties"),
    "minProperties": ("minProperties", "maxProperties"),
}


def _as_violation(error: ValidationError) -> Violation:
    path = tuple(error.absolute_path)
    kind = error.validator
    value = error.validator_value
    if kind in _LENGTH_BOUNDS:
        low, high = _bounds(error.schema, *_LENGTH_BOUNDS[kind])
        if low is not None and high is not None:
            return Violation(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")
        if kind.startswith("max"):
            return Violation(path, "BASE_TYPE_MAX_LENGTH", f"Must be {value} or fewer in length.")
        return Violation(path, "BASE_TYPE_MIN_LENGTH", f"Must be {value} or more in length.")
    if kind == "required":
        absent = [name for name in value if name not in error.instance]  # one error per absent field
        missing = next((name for name in absent if repr(name) in error.message), absent[0] if absent else "?")
        return Violation((*path, missing), "BASE_TYPE_REQUIRED", "This field is required")
    if kind == "maximum":
        return Violation(path, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {value}.")
    if kind == "minimum":
        return Violation(path, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {value}.")
    if kind in ("enum", "const"):
        choices = value if kind == "enum" else [value]
        return Violation(path, "BASE_TYPE_CHOICES", f"Value must be one of {choices}.")
    if kind == "type":
        return Violation(path, "BASE_TYPE_INVALID", f"Must be of type {value}, not {error.instance!r:.40}.")
    if kind == "pattern":
        return Violation(path, "STRING_TYPE_REGEX", "String value did not match validation regex.")
    if kind in ("oneOf", "anyOf"):
        choices = _type_choices(error)
        if choices and isinstance(error.instance, dict):
            listed = ", ".join(str(c) for c in choices)
            return Violation(path, "UNION_TYPE_CHOICES", f'Value of field "type" must be one of ({listed}).')
        return Violation(
            path, "UNION_TYPE_CHOICES", f"Value matches none of the allowed shapes: {error.instance!r:.60}"
        )
    if kind == "additionalProperties":
        return Violation(path, "BASE_TYPE_INVALID", error.message[:120])
    return Violation(path, "BASE_TYPE_INVALID", f"{kind}: {error.message[:120]}")


def errors_tree(violations: Iterable[Violation], prefix: Iterable[str | int] = ()) -> dict[str, Any]:
    """Discord's nested ``{"field": {"0": {"_errors": [{"code", "message"}]}}}`` tree of violations."""
    tree: dict[str, Any] = {}
    for violation in violations:
        node = tree
        for part in (*prefix, *violation.path):
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": violation.code, "message": violation.message})
    return tree


# ---------------------------------------------------------------------------------- refresh


def refresh(source: Path) -> list[str]:
    """Copies a newer copy of the description (``openapi.json``, ``LICENSE``, ``SOURCE.md``) over this
    one, after checking it parses and still has the routes the fake serves; returns what changed."""
    new = json.loads((source / "openapi.json").read_text(encoding="utf-8"))
    if "paths" not in new or "components" not in new:
        raise ValueError(f"{source / 'openapi.json'} is not an OpenAPI description")
    changed = []
    for name in SPEC_FILES:
        data = (source / name).read_bytes()
        target = HERE / name
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
            changed.append(name)
    for cached in (document, _registry, _fast_registry, _routes, find_operation, _fast, _validator):
        cached.cache_clear()
    return changed
