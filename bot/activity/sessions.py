"""The Activity's sessions and settings (docs/activity.md, "The sign-in").

A session is what the page holds after signing in: who the user is (read by the bot from Discord, never
from the page), the channel's table it is bound to, the user's language and an expiry, signed with
HMAC-SHA256. Nothing is kept in memory: a session outlives a restart, so the pages reconnect without a
new sign-in. The key is ``ACTIVITY_SESSION_KEY``, else derived from the client secret (a new secret, or
a new key, signs every page in again). Every process of a fleet must sign with the same key: a page signed
in through one process may connect through any other (:mod:`bot.activity.relay`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass

SESSION_LIFETIME_S = 12 * 3600.0  # a session is signed again (a new code) after this long
CHANNEL_SESSION_LIFETIME_S = 15 * 60.0  # a channel session (no table yet): short, renewed by a new sign-in
DEFAULT_HOST = "127.0.0.1"  # behind the operator's HTTPS reverse proxy
MAX_PEER_URL = 512


@dataclass(frozen=True, slots=True)
class ActivitySettings:
    """Where the Activity's public routes listen and what they sign with (from the environment):
    ``ACTIVITY_PORT`` (unset: no Activity), ``ACTIVITY_HOST``, ``DISCORD_CLIENT_SECRET`` (the code
    exchange), ``ACTIVITY_SESSION_KEY`` (optional) and ``ACTIVITY_PEER_URL`` (a fleet: where the other
    processes reach this one's Activity; default ``http://<ACTIVITY_HOST>:<port>``). Its ``repr`` names
    no secret."""

    port: int
    client_secret: str
    host: str = DEFAULT_HOST
    session_key: bytes = b""
    peer_url: str = ""

    def __repr__(self) -> str:
        return f"ActivitySettings(host={self.host}, port={self.port}, client_secret=set)"

    def peer_address(self, port: int) -> str:
        """Where this process's Activity answers its peers, listening on ``port`` (the bound one)."""
        if self.peer_url:
            return self.peer_url
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{port}"

    @property
    def key(self) -> bytes:
        """The sessions' signing key: ``session_key``, else one derived from the client secret."""
        if self.session_key:
            return self.session_key
        return hmac.new(self.client_secret.encode(), b"skybo activity sessions", hashlib.sha256).digest()

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActivitySettings | None:
        """The settings, or None when ``ACTIVITY_PORT`` is unset (the Activity is optional). Raises
        ``ValueError`` with what to fix for a bad port or a port without a client secret."""
        port = (env.get("ACTIVITY_PORT") or "").strip()
        if not port:
            return None
        if not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError(f"ACTIVITY_PORT must be a port number (0-65535), not {port!r}")
        secret = (env.get("DISCORD_CLIENT_SECRET") or "").strip()
        if not secret:
            raise ValueError(
                "ACTIVITY_PORT is set but DISCORD_CLIENT_SECRET is not: the Activity needs the application's "
                "client secret (developer portal, OAuth2) to sign players in"
            )
        host = (env.get("ACTIVITY_HOST") or "").strip() or DEFAULT_HOST
        key = (env.get("ACTIVITY_SESSION_KEY") or "").strip().encode()
        peer = (env.get("ACTIVITY_PEER_URL") or "").strip().rstrip("/")
        if peer and not (peer.startswith(("http://", "https://")) and len(peer) <= MAX_PEER_URL):
            raise ValueError(
                "ACTIVITY_PEER_URL must be an http:// or https:// address the fleet's other processes reach"
                " this one's Activity at (such as http://bot-1:8080), at most 512 characters"
            )
        return cls(port=int(port), client_secret=secret, host=host, session_key=key, peer_url=peer)


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in page: ``user`` (id and name, from Discord's ``/users/@me``), the ``channel`` and
    ``table`` (a game id) it is bound to, its ``language`` and when it ``expires`` (Unix seconds).
    ``guild``: the instance's server (None: no server, a group DM or a DM), whose shard serves the
    table (a fleet's process relays a page of another shard's table to its process)."""

    user: int
    name: str
    channel: int
    table: int
    language: str
    expires: float
    guild: int | None = None

    def sign(self, key: bytes) -> str:
        claims = {
            "u": str(self.user),
            "n": self.name,
            "c": str(self.channel),
            "t": self.table,
            "l": self.language,
            "e": self.expires,
            "g": "" if self.guild is None else str(self.guild),
        }
        body = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode()).decode()
        return f"{body}.{_mac(key, body)}"

    @classmethod
    def read(cls, text: str, key: bytes, *, now: float | None = None) -> Session | None:
        """The session ``text`` signs with ``key``, or None: forged, malformed, or expired."""
        body, _, mac = text.partition(".")
        if not body or not hmac.compare_digest(mac.encode(), _mac(key, body).encode()):
            return None
        try:
            claims = json.loads(base64.urlsafe_b64decode(body.encode()))
            session = cls(
                user=int(claims["u"]),
                name=str(claims["n"]),
                channel=int(claims["c"]),
                table=int(claims["t"]),
                language=str(claims["l"]),
                expires=float(claims["e"]),
                guild=int(claims["g"]) if claims["g"] else None,  # none before fleets: signed in again
            )
        except (ValueError, KeyError, TypeError, binascii.Error):
            return None
        return session if session.expires > (time.time() if now is None else now) else None


@dataclass(frozen=True, slots=True)
class ChannelSession:
    """What a sign-in where no table is answers (docs/activity.md, "Opening a table"): who the user is and
    the channel (and its server) of the activity instance, read by the bot from Discord like a
    :class:`Session`'s, with no table; it lets the page open a table there and wait for it. Signed with
    a key of its own (derived from the sessions' key), so neither kind of session passes for the other;
    short-lived (:data:`CHANNEL_SESSION_LIFETIME_S`)."""

    user: int
    name: str
    channel: int
    guild: int | None
    language: str
    expires: float

    def sign(self, key: bytes) -> str:
        claims = {
            "u": str(self.user),
            "n": self.name,
            "c": str(self.channel),
            "g": None if self.guild is None else str(self.guild),
            "l": self.language,
            "e": self.expires,
        }
        body = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode()).decode()
        return f"{body}.{_mac(_channel_key(key), body)}"

    @classmethod
    def read(cls, text: str, key: bytes, *, now: float | None = None) -> ChannelSession | None:
        """The channel session ``text`` signs with ``key``, or None: forged, malformed, or expired."""
        body, _, mac = text.partition(".")
        if not body or not hmac.compare_digest(mac.encode(), _mac(_channel_key(key), body).encode()):
            return None
        try:
            claims = json.loads(base64.urlsafe_b64decode(body.encode()))
            guild = claims["g"]
            session = cls(
                user=int(claims["u"]),
                name=str(claims["n"]),
                channel=int(claims["c"]),
                guild=None if guild is None else int(guild),
                language=str(claims["l"]),
                expires=float(claims["e"]),
            )
        except (ValueError, KeyError, TypeError, binascii.Error):
            return None
        return session if session.expires > (time.time() if now is None else now) else None


def _channel_key(key: bytes) -> bytes:
    return hmac.new(key, b"skybo activity channel sessions", hashlib.sha256).digest()


def _mac(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()
