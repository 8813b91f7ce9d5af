"""The Dockerfile, .dockerignore and compose.yaml, checked without docker (this machine has the docker
client but no daemon and no compose plugin: nothing here builds or starts a container).

The files are parsed (compose.yaml with PyYAML, the Dockerfile with the small instruction parser below)
and checked against the bot's settings: every variable ``bot/config.py`` reads is set in the bot
services or has a default in the code, DATABASE_URL points at the postgres service, the command and the
metrics port match; and with rules in the spirit of hadolint (non-root, pinned base, no secret baked
in, pip without cache, pip and setuptools removed from the venv where it is built, apt lists cleaned, a
health check). Each checker returns its problems as lines, and is also run on bad samples, so every rule
is seen to fail.
"""

from __future__ import annotations

import ast
import copy
import http.server
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot.config import ConfigError, Settings, load_settings

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
COMPOSE = REPO / "compose.yaml"
CONFIG = REPO / "bot" / "config.py"
BOT_COMMAND = ["python", "-m", "bot", "run"]
BOT_SERVICES = ("bot", "bot-1")
# Settings the fleet cannot run without, even though the code tolerates their absence (no token: no
# bot; no DATABASE_URL: SQLite, one process only).
REQUIRED = ("DISCORD_TOKEN", "DATABASE_URL")
SECRET_NAME = re.compile(r"TOKEN|PASSWORD|PASSWD|SECRET|API_?KEY|PRIVATE_?KEY", re.IGNORECASE)


# ------------------------------------------------------------------------------ the settings the bot reads


def literal_env_reads(source: str) -> set[str]:
    """Names read with a literal key: ``env.get("X")``, ``env["X"]``, ``os.environ.get("X")``,
    ``os.environ["X"]``, ``os.getenv("X")``."""

    def is_env(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id in ("env", "environ")) or (
            isinstance(node, ast.Attribute) and node.attr == "environ"
        )

    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        key: ast.expr | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if (node.func.attr == "get" and is_env(node.func.value)) or node.func.attr == "getenv":
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and is_env(node.value):
            key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.add(key.value)
    return names


class _Recorder(dict[str, str]):
    """An environment that notes every name asked of it (the names read through a variable too, like
    the limits read in a loop)."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        super().__init__(values or {})
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.asked.add(key)
        return super().__contains__(key)


def settings_read() -> set[str]:
    """Every environment variable the bot's settings read: bot/config.py's source, and what
    load_settings asks of an environment (so a new setting is checked without editing this test)."""
    recorder = _Recorder()
    load_settings(recorder, dotenv=False)
    return literal_env_reads(CONFIG.read_text(encoding="utf-8")) | recorder.asked


def test_the_settings_are_found_in_the_code() -> None:
    found = settings_read()
    known = {
        "DISCORD_TOKEN",
        "DATABASE_PATH",
        "DATABASE_URL",
        "SQLITE_SYNCHRONOUS",
        "LOG_LEVEL",
        "MAX_TABLES_PER_USER",
        "MAX_TABLES_PER_SERVER",
        "TABLE_COOLDOWN_SECONDS",
    }
    assert known <= found
    assert literal_env_reads('x = env.get("A") or os.environ["B"] or os.getenv("C") or d.get("D")') == {
        "A",
        "B",
        "C",
    }


# ------------------------------------------------------------------------------ compose.yaml

_VARIABLE = re.compile(r"\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}|\$(\w+)")


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Compose's interpolation: ``${X}``, ``${X:-default}``, ``${X-default}``, ``${X:?error}``, ``$X``,
    ``$$`` for a dollar. A required variable that is missing raises ``KeyError``."""

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1) or match.group(4)
        operator, word = match.group(2), match.group(3) or ""
        value = env.get(name)
        if operator in (":-", "-"):
            if value is None or (operator == ":-" and value == ""):
                return word
        elif operator in (":?", "?") and (value is None or (operator == ":?" and value == "")):
            raise KeyError(f"{name}: {word}")
        return value or ""

    return _VARIABLE.sub(one, text)


def resolve(value: Any, env: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return interpolate(value, env)
    if isinstance(value, list):
        return [resolve(v, env) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, env) for k, v in value.items()}
    return value


def environment(service: Mapping[str, Any]) -> dict[str, str]:
    """A service's ``environment`` as a mapping (compose accepts a mapping or a list of ``K=V``)."""
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        return dict(item.split("=", 1) if "=" in item else (item, "") for item in raw)
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


# What the host gives (the secrets, from .env or the environment): everything else falls back to the
# file's own defaults, as on a machine where only these two are set.
HOST = {"DISCORD_TOKEN": "token-for-the-test", "POSTGRES_PASSWORD": "pw4test"}


def profile_commands(text: str) -> dict[str, dict[str, str]]:
    """``VAR=value ... docker compose --profile NAME up`` in the file's comments: NAME -> its variables."""
    found: dict[str, dict[str, str]] = {}
    for match in re.finditer(
        r"^#\s+((?:\w+=\S*\s+)*)docker compose --profile (\S+) up\b", text, re.MULTILINE
    ):
        found[match[2]] = dict(w.split("=", 1) for w in match[1].split())
    return found


def compose_problems(
    compose: Mapping[str, Any],
    dockerfile: Dockerfile,
    *,
    read: set[str] | None = None,
    loader: Callable[..., Settings] = load_settings,
    profiles: Mapping[str, Mapping[str, str]] | None = None,
) -> list[str]:
    """``read``: the variables the bot reads (default: found in the code); ``loader``: the settings
    (default: the bot's own ``load_settings``); ``profiles``: the variables each profile is started
    with (default: as the commands in compose.yaml's comments say). A service of a profile is checked
    with its profile's variables: the second process of a fleet needs the fleet's SHARD_COUNT."""
    problems: list[str] = []
    services = compose.get("services") or {}
    host = HOST
    documented = profile_commands(COMPOSE.read_text(encoding="utf-8")) if profiles is None else profiles
    postgres = services.get("postgres")
    if postgres is None:
        return ["no postgres service"]
    if not str(postgres.get("image", "")).startswith("postgres:15"):
        problems.append(f"postgres: image {postgres.get('image')!r} is not postgres:15")
    if not any(str(v).endswith(":/var/lib/postgresql/data") for v in postgres.get("volumes") or []):
        problems.append("postgres: no volume for /var/lib/postgresql/data")
    test = (postgres.get("healthcheck") or {}).get("test")
    if "pg_isready" not in " ".join(test if isinstance(test, list) else [str(test)]):
        problems.append("postgres: no healthcheck with pg_isready")
    pg_raw = environment(postgres)
    if not re.fullmatch(r"\$\{POSTGRES_PASSWORD(:?\?[^}]*)?\}", pg_raw.get("POSTGRES_PASSWORD", "")):
        problems.append(
            "postgres: POSTGRES_PASSWORD must come from the environment as ${POSTGRES_PASSWORD:?...}"
        )
    pg_env = resolve(pg_raw, host)
    read = settings_read() if read is None else read
    exposed = dockerfile.exposed()
    for name in BOT_SERVICES:
        service = services.get(name)
        if service is None:
            problems.append(f"no {name} service")
            continue
        raw = environment(service)
        in_profiles: list[str] = service.get("profiles") or []
        missing = [p for p in in_profiles if p not in documented]
        if missing:
            problems.append(f"{name}: no command in compose.yaml's comments starts its profile {missing}")
        profile_env = {k: v for p in in_profiles for k, v in documented.get(p, {}).items()}
        env = resolve(raw, {**host, **profile_env})
        for variable in sorted(set(raw) - read):
            problems.append(f"{name}: sets {variable}, which the bot does not read (a typo?)")
        for variable in REQUIRED:
            if not env.get(variable):
                problems.append(f"{name}: {variable} is not set")
        for variable, value in raw.items():
            if SECRET_NAME.search(variable) and "${" not in value:
                problems.append(f"{name}: {variable} is written in the file, not taken from the environment")
        baked = re.search(r"://[^/@:]*:([^@/]*)@", re.sub(r"\$\{[^}]*\}", "\0", raw.get("DATABASE_URL", "")))
        if baked and baked[1] != "\0":
            problems.append(f"{name}: DATABASE_URL holds a password written in the file")
        # Every setting not set here must have a default in the code: the settings load without them.
        unset = sorted(read - set(env))
        try:
            loader(dict(env), dotenv=False)
        except ConfigError as error:
            problems.append(f"{name}: the bot refuses these settings ({unset} unset): {error}")
        url = urlsplit(env.get("DATABASE_URL", ""))
        if url.scheme not in ("postgresql", "postgres") or url.hostname != "postgres":
            problems.append(f"{name}: DATABASE_URL does not point at the postgres service")
        else:
            if (url.port or 5432) != 5432:
                problems.append(f"{name}: DATABASE_URL's port is not PostgreSQL's 5432")
            if url.path.lstrip("/") != pg_env.get("POSTGRES_DB") or url.username != pg_env.get(
                "POSTGRES_USER"
            ):
                problems.append(f"{name}: DATABASE_URL's database or user is not the postgres service's")
            if url.password != pg_env.get("POSTGRES_PASSWORD"):
                problems.append(f"{name}: DATABASE_URL's password is not the postgres service's")
        depends = service.get("depends_on") or {}
        if (
            not isinstance(depends, dict)
            or (depends.get("postgres") or {}).get("condition") != "service_healthy"
        ):
            problems.append(f"{name}: does not wait for postgres to be healthy")
        if service.get("entrypoint") is not None:
            problems.append(f"{name}: overrides the image's entrypoint")
        command = service.get("command")
        if (
            command is not None
            and (shlex.split(command) if isinstance(command, str) else command) != BOT_COMMAND
        ):
            problems.append(f"{name}: its command is {command!r}, not {' '.join(BOT_COMMAND)}")
        if service.get("build") not in (".", {"context": "."}):
            problems.append(f"{name}: not built from the Dockerfile at the repository root")
        for variable in ("SHARD_COUNT", "SHARD_IDS", "METRICS_PORT"):
            if not re.search(r"\$\{\w+:?-", raw.get(variable, "")):
                problems.append(f"{name}: {variable} is not taken from the environment with a default")
        port = env.get("METRICS_PORT", "")
        code_default = getattr(load_settings({}, dotenv=False), "metrics_port", None)
        if code_default is not None and port != str(code_default):
            problems.append(f"{name}: METRICS_PORT {port} is not the code's default {code_default}")
        if port not in exposed:
            problems.append(f"{name}: METRICS_PORT {port} is not EXPOSEd by the Dockerfile ({exposed})")
        published = [str(p).split(":")[-1].split("/")[0] for p in resolve(service.get("expose", []), host)]
        published += [str(p).split(":")[-1].split("/")[0] for p in resolve(service.get("ports", []), host)]
        if port and port != "0" and port not in published:
            problems.append(f"{name}: METRICS_PORT {port} is not in its expose/ports {published}")
        grace = str(service.get("stop_grace_period", "10s"))
        if not grace.endswith("s") or float(grace.removesuffix("s")) <= 10:
            problems.append(f"{name}: stop_grace_period {grace} leaves the 10 s graceful stop no margin")
    return problems


def load_compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))  # merge keys (<<) resolved
    assert isinstance(data, dict)
    return data


# ------------------------------------------------------------------------------ the Dockerfile


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON array form (``CMD ["python", ...]``), or None for the shell form."""
        text = self.args.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except ValueError:
                return None
            return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None
        return None


@dataclass(frozen=True)
class Dockerfile:
    instructions: list[Instruction]
    comments: list[str]

    @classmethod
    def parse(cls, text: str) -> Dockerfile:
        """Instructions with their continuation lines joined (``\\`` at the end of a line), comments
        apart (a comment line inside a continuation is dropped, as docker does)."""
        instructions: list[Instruction] = []
        comments: list[str] = []
        pending, start = "", 0
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("#"):
                comments.append(stripped)
                continue
            if not stripped and not pending:
                continue
            if not pending:
                start = number
            if stripped.endswith("\\"):
                pending += stripped[:-1].rstrip() + " "
                continue
            pending += stripped
            keyword, _, args = pending.partition(" ")
            instructions.append(Instruction(keyword.upper(), args.strip(), start))
            pending = ""
        if pending:
            keyword, _, args = pending.partition(" ")
            instructions.append(Instruction(keyword.upper(), args.strip(), start))
        return cls(instructions, comments)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def final_stage(self) -> list[Instruction]:
        froms = [n for n, i in enumerate(self.instructions) if i.keyword == "FROM"]
        return self.instructions[froms[-1] :] if froms else self.instructions

    def base_args(self) -> dict[str, str]:
        """``ARG NAME=default`` before the first FROM: what a FROM may name as ``${NAME}``."""
        found: dict[str, str] = {}
        for instruction in self.instructions:
            if instruction.keyword == "FROM":
                break
            if instruction.keyword == "ARG":
                found.update((k, v) for k, v in self.env_pairs(instruction) if v is not None)
        return found

    def image_of(self, instruction: Instruction) -> str:
        """A FROM's image with the build arguments at their defaults (what a plain ``docker build`` uses)."""
        args = self.base_args()
        image = instruction.args.split()[0]
        return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args.get(m[1] or m[2], m[0]), image)

    def exposed(self) -> list[str]:
        return [p.split("/")[0] for i in self.all("EXPOSE") for p in i.args.split()]

    def env_pairs(self, instruction: Instruction) -> list[tuple[str, str | None]]:
        """``ENV A=1 B=2`` / ``ENV A 1`` / ``ARG A`` / ``ARG A=1`` as (name, value or None)."""
        words = shlex.split(instruction.args)
        if instruction.keyword == "ENV" and words and "=" not in words[0]:
            return [(words[0], " ".join(words[1:]))]
        return [(w.split("=", 1)[0], w.split("=", 1)[1] if "=" in w else None) for w in words]


PINNED = re.compile(r"^[\w./-]+:(?P<tag>[\w.-]+)@sha256:[0-9a-f]{64}$")


def dockerfile_problems(dockerfile: Dockerfile) -> list[str]:
    problems: list[str] = []
    stages: set[str] = set()
    for instruction in dockerfile.all("FROM"):
        words = instruction.args.split()
        image = dockerfile.image_of(instruction)
        if len(words) >= 3 and words[1].upper() == "AS":
            stages.add(words[2].lower())
        if image.lower() in stages or image == "scratch":
            continue
        pinned = PINNED.match(image)
        if pinned is None:
            problems.append(f"line {instruction.line}: FROM {image} is not pinned by tag and sha256 digest")
        elif pinned["tag"] == "latest" or not re.match(r"^\d+\.\d+\.\d+", pinned["tag"]):
            problems.append(f"line {instruction.line}: FROM {image}: the tag is not a full version (x.y.z)")
        elif "slim" not in pinned["tag"]:
            problems.append(f"line {instruction.line}: FROM {image} is not a slim image")
    final = dockerfile.final_stage()
    users = [i for i in final if i.keyword == "USER"]
    cmds = [n for n, i in enumerate(final) if i.keyword == "CMD"]
    if not cmds:
        problems.append("no CMD")
    else:
        before = [i for i in final[: cmds[-1]] if i.keyword == "USER"]
        if not before:
            problems.append("no USER before CMD: the bot would run as root")
        elif before[-1].args.split(":")[0] in ("root", "0"):
            problems.append(f"line {before[-1].line}: USER {before[-1].args} is root")
        elif users[-1] is not before[-1]:
            problems.append("a USER after CMD")
    for instruction in dockerfile.all("ENV") + dockerfile.all("ARG"):
        for name, _ in dockerfile.env_pairs(instruction):
            if SECRET_NAME.search(name):
                problems.append(f"line {instruction.line}: {instruction.keyword} {name} bakes a secret in")
    for instruction in dockerfile.all("RUN"):
        text = instruction.args
        if re.search(r"\bpip3?\s+install\b", text) and "--no-cache-dir" not in text:
            problems.append(f"line {instruction.line}: pip install without --no-cache-dir")
        if re.search(r"\bapt-get\s+(-\S+\s+)*install\b", text):
            if "--no-install-recommends" not in text:
                problems.append(f"line {instruction.line}: apt-get install without --no-install-recommends")
            if "rm -rf /var/lib/apt/lists" not in text:
                problems.append(f"line {instruction.line}: apt lists not removed in the same RUN")
        if re.search(r"\bsudo\b", text):
            problems.append(f"line {instruction.line}: sudo")
    for instruction in dockerfile.all("ADD"):
        problems.append(f"line {instruction.line}: ADD (use COPY)")
    if not dockerfile.all("HEALTHCHECK") and not any(
        re.match(r"#\s*no HEALTHCHECK:\s*\S", c, re.IGNORECASE) for c in dockerfile.comments
    ):
        problems.append("no HEALTHCHECK, and no '# No HEALTHCHECK: <reason>' comment")
    cmd = final[cmds[-1]].exec_form() if cmds else None
    if cmds and cmd != BOT_COMMAND:
        problems.append(f"CMD is {final[cmds[-1]].args}, not the exec form of {' '.join(BOT_COMMAND)}")
    if not dockerfile.exposed():
        problems.append("no EXPOSE for the metrics port")
    volumes = [n for n, i in enumerate(final) if i.keyword == "VOLUME" and "/data" in i.args]
    if not volumes:
        problems.append("no /data VOLUME")
    elif not any(
        i.keyword == "RUN" and re.search(r"\bchown\b[^&;]*/data\b", i.args) for i in final[: volumes[0]]
    ):
        # A change to a folder after VOLUME declares it is discarded: the user gets it before.
        problems.append("/data is not given to the user (chown) before VOLUME declares it")
    env = dict(p for i in final if i.keyword == "ENV" for p in dockerfile.env_pairs(i))
    if env.get("DATABASE_PATH") != "/data/skybo.sqlite3":
        problems.append("DATABASE_PATH is not /data/skybo.sqlite3")
    installs = [i for i in dockerfile.all("RUN") if re.search(r"\bpip3?\s+install\b", i.args)]
    if not any(re.search(r"install\s+(--\S+\s+)*\.(\s|$)", i.args) for i in installs):
        problems.append("the bot is not installed from pyproject.toml (pip install .)")
    if any(re.search(r"\.\[\w", i.args) for i in installs):
        problems.append("an extra (the test dependencies?) is installed in the image")
    problems += installer_problems(dockerfile)
    return problems


PIP = r"(?P<pip>\S*?)(?:pip3?|python3?\s+-m\s+pip)\s+"
INSTALLERS = {"pip", "setuptools"}


def installer_problems(dockerfile: Dockerfile) -> list[str]:
    """The venv's own installers (pip, setuptools) are removed after the bot's install, in its stage (a
    later stage or layer would not shrink the image), with the same pip (the venv's, not the base's)."""
    stage: list[Instruction] = []
    install: tuple[int, str] | None = None  # where the bot is installed, and with which pip's folder
    for instruction in dockerfile.instructions:
        if instruction.keyword == "FROM":
            if install is not None:
                break
            stage = []
        stage.append(instruction)
        found = re.search(PIP + r"install\s+(--\S+\s+)*\.(\s|$)", instruction.args)
        if instruction.keyword == "RUN" and found and install is None:
            install = (len(stage) - 1, found["pip"])
    if install is None:
        return []  # dockerfile_problems says the bot is not installed from pyproject.toml
    problems: list[str] = []
    removed: set[str] = set()
    for instruction in stage[install[0] :]:
        if instruction.keyword != "RUN":
            continue
        for command in re.split(r"&&|\|\||;", instruction.args):
            found = re.search(PIP + r"uninstall\s+(?P<rest>.*)", command)
            if found is None:
                continue
            words = found["rest"].split()
            if found["pip"] != install[1]:
                problems.append(f"line {instruction.line}: pip uninstall with another pip than the install's")
            elif not {"-y", "--yes"} & set(words):
                problems.append(f"line {instruction.line}: pip uninstall without --yes")
            else:
                removed |= {w.lower() for w in words if not w.startswith("-")}
    problems += [
        f"{tool} stays in the venv (no `pip uninstall --yes pip setuptools` after the install, in its stage)"
        for tool in sorted(INSTALLERS - removed)
    ]
    return problems


# ------------------------------------------------------------------------------ .dockerignore


def _pattern(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):  # any folders, none included
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + "$")


def ignored(path: str, dockerignore: str) -> bool:
    """Whether docker leaves ``path`` out of the build context: the last matching pattern wins, and a
    pattern that matches a folder matches what is in it."""
    rules = []
    for line in dockerignore.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        rules.append((negated, _pattern(line.lstrip("!").strip("/"))))
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    result = False
    for negated, pattern in rules:
        if any(pattern.match(p) for p in prefixes):
            result = not negated
    return result


MUST_BE_LEFT_OUT = (
    ".env",
    ".env.production",
    ".venv/bin/python",
    ".git/HEAD",
    "data/skybo.sqlite3",
    "data/skybo.sqlite3-wal",
    "bot/__pycache__/x.cpython-311.pyc",
    "__pycache__/x.pyc",
)


def dockerignore_problems(dockerignore: str, dockerfile: Dockerfile) -> list[str]:
    problems = [f"{p} is sent to the build" for p in MUST_BE_LEFT_OUT if not ignored(p, dockerignore)]
    for instruction in dockerfile.all("COPY"):
        words = [w for w in instruction.args.split() if not w.startswith("--")]
        if any(w.startswith("--from") for w in instruction.args.split()):
            continue
        for source in words[:-1]:
            if ignored(source.rstrip("/"), dockerignore):
                problems.append(f"line {instruction.line}: COPY {source}, which .dockerignore leaves out")
            elif not (REPO / source).exists():
                problems.append(f"line {instruction.line}: COPY {source}, which does not exist")
    return problems


# ------------------------------------------------------------------------------ the real files


def test_the_dockerfile_follows_the_rules() -> None:
    assert dockerfile_problems(Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))) == []


def test_the_dockerignore_leaves_out_secrets_and_keeps_what_the_image_copies() -> None:
    dockerfile = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))
    assert dockerignore_problems(DOCKERIGNORE.read_text(encoding="utf-8"), dockerfile) == []


def test_compose_matches_the_settings() -> None:
    dockerfile = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))
    assert compose_problems(load_compose(), dockerfile) == []


def test_compose_needs_the_secrets_from_the_environment() -> None:
    bot = environment(load_compose()["services"]["bot"])
    with pytest.raises(KeyError, match="DISCORD_TOKEN"):
        resolve(bot, {"POSTGRES_PASSWORD": "x"})
    with pytest.raises(KeyError, match="POSTGRES_PASSWORD"):
        resolve(bot, {"DISCORD_TOKEN": "x"})


def test_the_fleet_services_split_the_shards() -> None:
    services = load_compose()["services"]
    documented = profile_commands(COMPOSE.read_text(encoding="utf-8"))
    assert documented == {"fleet": {"SHARD_COUNT": "2", "SHARD_IDS": "0"}}
    fleet = {**HOST, **documented["fleet"]}
    owned = []
    for name in BOT_SERVICES:
        shards = load_settings(resolve(environment(services[name]), fleet), dotenv=False).shards
        owned.append(set(shards.shard_ids or ()))
    assert owned == [{0}, {1}]  # each shard in exactly one process
    assert services["bot-1"].get("profiles") == ["fleet"] and "profiles" not in services["bot"]


def test_the_font_lands_where_the_installed_package_looks_for_it() -> None:
    """bot/render/images.py finds the font beside the folder that holds the ``bot`` package; installed
    (not editable), that folder is site-packages."""
    from bot.render import images

    relative = images.FONT_PATH.relative_to(images.REPO_ROOT).as_posix()
    dockerfile = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))
    base = dockerfile.image_of(dockerfile.all("FROM")[-1])
    version = re.search(r"python:(\d+)\.(\d+)\.", base)
    assert version is not None
    site = f"/opt/venv/lib/python{version[1]}.{version[2]}/site-packages"
    copies = {}
    for instruction in dockerfile.final_stage():
        words = instruction.args.split()
        if instruction.keyword == "COPY" and not words[0].startswith("--"):
            copies[words[0].rstrip("/")] = words[-1].rstrip("/")
    folder = str(Path(relative).parent)
    assert copies.get(folder) == f"{site}/{folder}"
    assert (REPO / relative).is_file()
    assert "/opt/venv/bin" in " ".join(i.args for i in dockerfile.all("ENV"))


def _healthcheck_code() -> str:
    (check,) = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8")).all("HEALTHCHECK")
    command = Instruction("CMD", check.args.split(" CMD ", 1)[1], check.line).exec_form()
    assert command is not None and command[:2] == ["python", "-c"]
    return command[2]


class _Health(http.server.BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        self.send_response(self.status if self.path == "/healthz" else 404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize(("status", "expected"), [(200, 0), (503, 1)])
def test_the_healthcheck_asks_healthz_when_metrics_are_on(status: int, expected: int) -> None:
    handler = type("Handler", (_Health,), {"status": status})
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        env = dict(os.environ, METRICS_PORT=str(server.server_address[1]))
        done = subprocess.run(
            [sys.executable, "-c", _healthcheck_code()], env=env, capture_output=True, timeout=30, check=False
        )
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == expected, done.stderr


@pytest.mark.parametrize(("port", "expected"), [("", 0), ("0", 0), ("1", 1)])
def test_the_healthcheck_without_metrics_passes_and_a_dead_port_fails(port: str, expected: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "METRICS_PORT"}
    if port:
        env["METRICS_PORT"] = port  # port 1: nothing listens, the connection is refused
    done = subprocess.run(
        [sys.executable, "-c", _healthcheck_code()], env=env, capture_output=True, timeout=30, check=False
    )
    assert done.returncode == expected, done.stderr


# ------------------------------------------------------------------------------ the checkers fail


GOOD_DOCKERFILE = """\
FROM python:3.11.14-slim-bookworm@sha256:{digest} AS build
RUN python3 -m venv /opt/venv
RUN /opt/venv/bin/pip install --no-cache-dir .
RUN /opt/venv/bin/python -m pip uninstall --yes pip setuptools && test ! -e /opt/venv/bin/pip
FROM python:3.11.14-slim-bookworm@sha256:{digest}
RUN useradd --system skybo && mkdir /data && chown skybo /data
ENV DATABASE_PATH=/data/skybo.sqlite3
VOLUME ["/data"]
USER skybo
EXPOSE 9464
HEALTHCHECK CMD ["python", "-c", "pass"]
CMD ["python", "-m", "bot", "run"]
""".replace("{digest}", "a" * 64)


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("python:3.11.14-slim-bookworm@sha256:" + "a" * 64 + " AS", "python:latest AS", "is not pinned"),
        ("python:3.11.14-slim-bookworm@sha256:" + "a" * 64 + " AS", "python:3.11-slim AS", "is not pinned"),
        (
            "3.11.14-slim-bookworm@sha256:" + "a" * 64 + " AS",
            "latest@sha256:" + "a" * 64 + " AS",
            "full version",
        ),
        (
            "3.11.14-slim-bookworm@sha256:" + "a" * 64 + " AS",
            "3.11.14@sha256:" + "a" * 64 + " AS",
            "not a slim",
        ),
        ("USER skybo\n", "", "no USER before CMD"),
        ("USER skybo\n", "USER root\n", "is root"),
        ("USER skybo\n", "USER 0:0\n", "is root"),
        ("USER skybo\n", "USER skybo\nENV DISCORD_TOKEN=abc\n", "ENV DISCORD_TOKEN bakes a secret in"),
        ("USER skybo\n", "USER skybo\nARG POSTGRES_PASSWORD=pw\n", "ARG POSTGRES_PASSWORD bakes"),
        ("USER skybo\n", "USER skybo\nENV API_SECRET hunter2\n", "ENV API_SECRET bakes"),
        ("pip install --no-cache-dir .", "pip install .", "without --no-cache-dir"),
        ("pip install --no-cache-dir .", "pip install --no-cache-dir '.[test]'", "an extra"),
        (
            "pip install --no-cache-dir .",
            "pip install --no-cache-dir discord.py",
            "not installed from pyproject",
        ),
        (
            "USER skybo\n",
            "RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu\nUSER skybo\n",
            "apt lists not removed",
        ),
        (
            "USER skybo\n",
            "RUN apt-get update && apt-get install -y x && rm -rf /var/lib/apt/lists/*\nUSER skybo\n",
            "without --no-install-recommends",
        ),
        ('HEALTHCHECK CMD ["python", "-c", "pass"]\n', "", "no HEALTHCHECK"),
        ('CMD ["python", "-m", "bot", "run"]', "CMD python -m bot run", "not the exec form"),
        ('CMD ["python", "-m", "bot", "run"]', 'CMD ["python", "-m", "bot", "sandbox"]', "not the exec form"),
        ('CMD ["python", "-m", "bot", "run"]\n', "", "no CMD"),
        ("EXPOSE 9464\n", "", "no EXPOSE"),
        ('VOLUME ["/data"]\n', "", "no /data VOLUME"),
        ("&& chown skybo /data", "", "not given to the user"),
        (
            "ENV DATABASE_PATH=/data/skybo.sqlite3",
            "ENV DATABASE_PATH=data/skybo.sqlite3",
            "DATABASE_PATH is not",
        ),
        ("USER skybo\n", "USER skybo\nADD https://example.invalid/x /x\n", "ADD (use COPY)"),
        (
            "RUN /opt/venv/bin/python -m pip uninstall --yes pip setuptools",
            "RUN true",
            "pip stays in the venv",
        ),
        ("uninstall --yes pip setuptools", "uninstall --yes pip", "setuptools stays in the venv"),
        ("uninstall --yes pip setuptools", "uninstall pip setuptools", "without --yes"),
        ("RUN /opt/venv/bin/python -m pip uninstall", "RUN python3 -m pip uninstall", "another pip"),
        (
            "RUN /opt/venv/bin/python -m pip uninstall --yes pip setuptools && test ! -e /opt/venv/bin/pip\n",
            "",
            "setuptools stays in the venv",
        ),
    ],
)
def test_the_dockerfile_checker_catches(old: str, new: str, problem: str) -> None:
    assert dockerfile_problems(Dockerfile.parse(GOOD_DOCKERFILE)) == []
    assert old in GOOD_DOCKERFILE
    found = dockerfile_problems(Dockerfile.parse(GOOD_DOCKERFILE.replace(old, new, 1)))
    assert any(problem in p for p in found), found


def test_the_installers_go_in_the_build_stage_after_the_install() -> None:
    """Removed in the image that runs, pip and setuptools would still weigh in the copied venv's layer;
    removed before the install, they would come back with it."""
    uninstall = (
        "RUN /opt/venv/bin/python -m pip uninstall --yes pip setuptools && test ! -e /opt/venv/bin/pip\n"
    )
    install = "RUN /opt/venv/bin/pip install --no-cache-dir .\n"
    assert uninstall in GOOD_DOCKERFILE and install in GOOD_DOCKERFILE
    late = GOOD_DOCKERFILE.replace(uninstall, "").replace("USER skybo\n", uninstall + "USER skybo\n")
    early = GOOD_DOCKERFILE.replace(uninstall, "").replace(install, uninstall + install)
    for text in (late, early):
        found = dockerfile_problems(Dockerfile.parse(text))
        assert [p.split(" (")[0] for p in found] == ["pip stays in the venv", "setuptools stays in the venv"]


def test_a_documented_reason_stands_for_a_healthcheck() -> None:
    text = GOOD_DOCKERFILE.replace('HEALTHCHECK CMD ["python", "-c", "pass"]\n', "")
    assert "no HEALTHCHECK" in " ".join(dockerfile_problems(Dockerfile.parse(text)))
    reasoned = "# No HEALTHCHECK: the supervisor probes /healthz itself\n" + text
    assert dockerfile_problems(Dockerfile.parse(reasoned)) == []


def test_the_parser_joins_continuations_and_skips_comments() -> None:
    parsed = Dockerfile.parse("FROM a\nRUN one \\\n    # a comment inside\n    two\nenv A=1 B='x y'\n")
    assert [(i.keyword, i.args, i.line) for i in parsed.instructions] == [
        ("FROM", "a", 1),
        ("RUN", "one two", 2),
        ("ENV", "A=1 B='x y'", 5),
    ]
    assert parsed.env_pairs(parsed.instructions[2]) == [("A", "1"), ("B", "x y")]


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        (".env", ".env is sent"),
        (".venv", ".venv/bin/python is sent"),
        ("data/*", "data/skybo.sqlite3 is sent"),
        ("!data/fonts", "COPY data/fonts/, which .dockerignore leaves out"),
        (".git", ".git/HEAD is sent"),
    ],
)
def test_the_dockerignore_checker_catches(path: str, problem: str) -> None:
    dockerfile = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))
    text = DOCKERIGNORE.read_text(encoding="utf-8")
    assert path in text.splitlines()
    found = dockerignore_problems("\n".join(ln for ln in text.splitlines() if ln != path), dockerfile)
    assert any(problem in p for p in found), found


def _mutations() -> Iterator[tuple[str, Any, str]]:
    def setenv(service: str, name: str, value: str | None) -> Any:
        def change(c: dict[str, Any]) -> None:
            env = c["services"][service]["environment"]
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value

        return change

    def setkey(service: str, key: str, value: Any) -> Any:
        def change(c: dict[str, Any]) -> None:
            if value is None:
                c["services"][service].pop(key, None)
            else:
                c["services"][service][key] = value

        return change

    url = "postgresql://${POSTGRES_USER:-skybo}:${POSTGRES_PASSWORD:?x}@{host}:5432/${POSTGRES_DB:-skybo}"
    yield "host", setenv("bot", "DATABASE_URL", url.replace("{host}", "localhost")), "postgres service"
    yield "sqlite", setenv("bot", "DATABASE_URL", "sqlite:////data/skybo.sqlite3"), "postgres service"
    yield "no url", setenv("bot-1", "DATABASE_URL", None), "DATABASE_URL is not set"
    yield (
        "db name",
        setenv(
            "bot", "DATABASE_URL", url.replace("{host}", "postgres").replace("${POSTGRES_DB:-skybo}", "other")
        ),
        "database or user",
    )
    yield (
        "baked pw",
        setenv("bot", "DATABASE_URL", "postgresql://skybo:hunter2@postgres:5432/skybo"),
        ("password written in the file"),
    )
    yield "no token", setenv("bot", "DISCORD_TOKEN", None), "DISCORD_TOKEN is not set"
    yield "baked token", setenv("bot", "DISCORD_TOKEN", "abc.def"), "written in the file"
    yield "typo", setenv("bot", "SHARDS_IDS", "0"), "sets SHARDS_IDS, which the bot does not read"
    yield "bad value", setenv("bot", "LOG_LEVEL", "${LOG_LEVEL:-LOUD}"), "refuses these settings"
    yield "fixed shards", setenv("bot", "SHARD_COUNT", "2"), "SHARD_COUNT is not taken from the environment"
    yield "port", setenv("bot", "METRICS_PORT", "${METRICS_PORT:-9999}"), "not EXPOSEd"
    yield "expose", setkey("bot-1", "expose", None), "not in its expose/ports"
    yield "command", setkey("bot", "command", "python -m bot sandbox"), "its command is"
    yield "entrypoint", setkey("bot", "entrypoint", ["sh"]), "entrypoint"
    yield "depends", setkey("bot", "depends_on", ["postgres"]), "does not wait for postgres"
    yield "build", setkey("bot", "build", "./other"), "not built from the Dockerfile"
    yield "grace", setkey("bot", "stop_grace_period", "10s"), "no margin"
    yield "fleet", lambda c: c["services"].pop("bot-1"), "no bot-1 service"
    yield "pg image", setkey("postgres", "image", "postgres:latest"), "not postgres:15"
    yield "pg volume", setkey("postgres", "volumes", None), "no volume"
    yield "pg health", setkey("postgres", "healthcheck", {"test": ["CMD", "true"]}), "pg_isready"
    yield "pg pw", setenv("postgres", "POSTGRES_PASSWORD", "hunter2"), "POSTGRES_PASSWORD must come"


@pytest.mark.parametrize(
    ("change", "problem"), [(m[1], m[2]) for m in _mutations()], ids=[m[0] for m in _mutations()]
)
def test_the_compose_checker_catches(change: Any, problem: str) -> None:
    dockerfile = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))
    compose = copy.deepcopy(load_compose())
    change(compose)
    found = compose_problems(compose, dockerfile)
    assert any(problem in p for p in found), found


def test_a_setting_without_a_default_must_be_set() -> None:
    """A setting the code cannot do without (here a made-up one) and the service does not set."""

    def strict(env: dict[str, str], *, dotenv: bool) -> Settings:
        if not env.get("SKYBO_REGION"):
            raise ConfigError("SKYBO_REGION is required")
        return load_settings(env, dotenv=dotenv)

    dockerfile = Dockerfile.parse(DOCKERFILE.read_text(encoding="utf-8"))
    found = compose_problems(
        load_compose(), dockerfile, read=settings_read() | {"SKYBO_REGION"}, loader=strict
    )
    assert any("the bot refuses these settings" in p and "SKYBO_REGION" in p for p in found), found
    compose = copy.deepcopy(load_compose())
    for name in BOT_SERVICES:
        compose["services"][name]["environment"]["SKYBO_REGION"] = "${SKYBO_REGION:-eu}"
    assert compose_problems(compose, dockerfile, read=settings_read() | {"SKYBO_REGION"}, loader=strict) == []


def test_interpolation_follows_compose() -> None:
    env = {"A": "1", "E": ""}
    assert interpolate("${A}-${B:-two}-${E:-three}-${E-four}-$A-$$A", env) == "1-two-three--1-$A"
    with pytest.raises(KeyError, match="B: say why"):
        interpolate("${B:?say why}", env)
    with pytest.raises(KeyError):
        interpolate("${E:?empty is missing too}", env)
