"""The card faces as application emojis (issue 40 item 2): their names, ``python -m bot sync``'s upload of
what is missing or changed, and the map the bot reads at start to put a card's emoji on its panel button.

**Names.** Every game with card faces (``Game.card_faces``) gives each face, in each look of the cards,
one emoji named ``card_<prefix>_<look>_<face>_<hash>``: the game's two-letter custom_id prefix, ``c``
(classic) or ``b`` (colour-blind), the face's key (``5``, ``m2`` for -2, a game's own key for a card
without a number) and the first 8 hex digits of the SHA-256 of the face's pixels (its decoded RGBA bytes, so a
new zlib or Pillow encoding the same picture differently changes nothing). ``card_xx_c_m2_1f0c9a3b``
is at most 32 characters of ``[a-z0-9_]``, as Discord wants.

**Sync** compares by name alone: the name carries the content hash, so a face whose picture changed
has a new name. It lists the application's emojis (one request), uploads each wanted name that is
missing, then deletes the emojis it owns whose names are no longer wanted (an old picture, a face no
game has any more). It owns a name that matches the pattern above with a registered game's prefix;
every other emoji of the application (uploaded by hand, by another tool) is never touched.

**At start** the bot lists the application's emojis once (:func:`load`) and maps (prefix, look, face)
to each one it owns; the hash is not checked (an old picture of the right card is still that card),
so starting draws nothing. A Discord that refuses the list (an application without the feature, a
network error) leaves the map empty, and the panels' buttons are exactly what they were before card
emojis: the coloured squares or the shapes (bot/ui/display.py).

**After a sync while the bot runs.** ``sync`` may delete an emoji the bot still maps (a face whose
picture changed): Discord then refuses the panel that shows it, once, and the bot forgets its map
(:func:`refused`, :meth:`CardEmojis.forget`), so the next panels show the squares. Forgetting starts
one re-list in the background (one request, as at start) whose map then replaces the empty one: the
panels show the new emojis a moment later, without a restart. Re-lists are never closer than
:data:`RELIST_EVERY` (a minute) whatever happens: a forget within that minute waits for its end, one
already waiting covers the next forgets, and a re-list Discord refuses is tried again a minute later,
:data:`RELIST_TRIES` times at most, so a broken Discord is not hammered.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import discord
from PIL import Image

from bot.games.base import ButtonSpec
from bot.games.registry import GAMES
from bot.ui import display

log = logging.getLogger(__name__)

LOOKS: Final[Mapping[str, str]] = {display.CLASSIC: "c", display.COLOURBLIND: "b"}
_LOOK_OF: Final = {letter: look for look, letter in LOOKS.items()}
NAME: Final = re.compile(
    r"card_(?P<prefix>[a-z]{2})_(?P<look>[cb])_(?P<face>[a-z0-9]{1,6})_(?P<hash>[0-9a-f]{8})"
)
IMAGE_LIMIT: Final = 256 * 1024  # Discord's largest emoji picture
RELIST_EVERY: Final = 60.0  # seconds: the shortest time between two re-lists after a forget
RELIST_TRIES: Final = 5  # re-lists Discord refuses in a row before the map stays empty until a restart

# What lists the application's emojis as (id, name) pairs: the client's, in one request.
Lister = Callable[[], Awaitable[Iterable[tuple[int, str]]]]


def content_hash(png: bytes) -> str:
    """The first 8 hex digits of the SHA-256 of a picture's pixels (size, mode and RGBA bytes)."""
    with Image.open(io.BytesIO(png)) as image:
        rgba = image.convert("RGBA")
    digest = hashlib.sha256(f"{rgba.width}x{rgba.height}:".encode())
    digest.update(rgba.tobytes())
    return digest.hexdigest()[:8]


@dataclass(frozen=True, slots=True)
class Face:
    """One card face in one look, drawn, and the emoji name it goes by."""

    prefix: str
    look: str
    face: str
    png: bytes
    name: str


def faces() -> list[Face]:
    """Every registered game's card faces in every look, drawn now, with their names."""
    drawn = []
    for game in GAMES:
        card_faces = game.card_faces
        if card_faces is None:
            continue
        for look, letter in LOOKS.items():
            for face, png in card_faces(look).items():
                name = f"card_{game.prefix}_{letter}_{face}_{content_hash(png)}"
                drawn.append(Face(game.prefix, look, face, png, name))
    return drawn


def owned(name: str) -> re.Match[str] | None:
    """The parts of an emoji name sync owns (see the module's docstring), or None."""
    match = NAME.fullmatch(name)
    if match is None or match["prefix"] not in {game.prefix for game in GAMES}:
        return None
    return match


@dataclass(frozen=True, slots=True)
class Plan:
    """What a sync does: the faces to upload, the owned emojis (id, name) to delete, how many stay."""

    upload: list[Face]
    delete: list[tuple[int, str]]
    kept: int


def plan(existing: Iterable[tuple[int, str]], wanted: Sequence[Face]) -> Plan:
    """Compares the application's emojis (id, name) with the faces wanted, by name."""
    names = {face.name for face in wanted}
    ours = [(emoji_id, name) for emoji_id, name in existing if owned(name)]
    present = {name for _, name in ours}
    upload = [face for face in wanted if face.name not in present]
    delete = [(emoji_id, name) for emoji_id, name in ours if name not in names]
    return Plan(upload, delete, len(ours) - len(delete))


def problems(wanted: Sequence[Face]) -> list[str]:
    """What Discord would refuse among the faces: a name out of its rules, twice, a picture too big."""
    found = []
    seen: set[str] = set()
    for face in wanted:
        if not re.fullmatch(r"[A-Za-z0-9_]{2,32}", face.name) or owned(face.name) is None:
            found.append(f"{face.name}: not a name Discord takes or sync owns")
        if face.name in seen:
            found.append(f"{face.name}: twice")
        seen.add(face.name)
        if len(face.png) > IMAGE_LIMIT:
            found.append(f"{face.name}: {len(face.png)} bytes, over Discord's 256 KiB")
    return found


@dataclass(slots=True)
class Report:
    """What :func:`sync` did (or, with ``dry_run``, would do), and how long the drawing took."""

    drawn: int
    draw_seconds: float
    uploaded: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    kept: int = 0

    def line(self) -> str:
        return (
            f"card emojis: {self.drawn} faces drawn in {self.draw_seconds:.2f} s; "
            f"{len(self.uploaded)} uploaded, {len(self.deleted)} outdated deleted, {self.kept} unchanged"
        )


def drawn() -> tuple[list[Face], float]:
    """Every face, and the seconds drawing them took."""
    started = time.perf_counter()
    wanted = faces()
    return wanted, time.perf_counter() - started


async def sync(client: discord.Client) -> Report:
    """Uploads the faces missing from the application's emojis, then deletes its outdated ones."""
    wanted, seconds = drawn()
    refused = problems(wanted)
    if refused:
        raise ValueError("card emojis Discord would refuse: " + "; ".join(refused))
    existing = {emoji.id: emoji for emoji in await client.fetch_application_emojis()}
    todo = plan(((emoji.id, emoji.name) for emoji in existing.values()), wanted)
    report = Report(len(wanted), seconds, kept=todo.kept)
    for face in todo.upload:
        await client.create_application_emoji(name=face.name, image=face.png)
        report.uploaded.append(face.name)
    for emoji_id, name in todo.delete:
        await existing[emoji_id].delete()
        report.deleted.append(name)
    return report


class CardEmojis:
    """The card emojis the application has: (game prefix, look, face) -> ``<:name:id>``; with a
    ``lister``, the map re-lists itself after a forget (see the module's docstring)."""

    def __init__(
        self,
        emojis: Mapping[tuple[str, str, str], str] | None = None,
        *,
        lister: Lister | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.emojis: dict[tuple[str, str, str], str] = dict(emojis or {})
        self._lister = lister
        self._clock = clock
        self._sleep = sleep
        self._listed_at: float | None = None  # the last re-list's start (the start's own list not counted)
        self.relisting: asyncio.Task[None] | None = None  # the re-list under way or waiting, if any
        self.relists = 0  # re-lists sent since the start

    @classmethod
    def of(cls, listed: Iterable[tuple[int, str]], *, lister: Lister | None = None) -> CardEmojis:
        """The map from the application's emojis (id, name); those sync does not own are left out."""
        emojis = cls(lister=lister)
        emojis.emojis = _mapped(listed)
        return emojis

    def __len__(self) -> int:
        return len(self.emojis)

    def get(self, prefix: str, look: str, face: str) -> str | None:
        return self.emojis.get((prefix, look, face))

    def forget(self) -> None:
        """Shows no card emoji from now on, Discord refused one (see :func:`refused`), and lists them
        again in the background: at once, or a minute after the last re-list."""
        if self.emojis:
            log.warning("card emojis refused by Discord: the panels show none until they are listed again")
        self.emojis.clear()
        if self._lister is not None and (self.relisting is None or self.relisting.done()):
            self.relisting = asyncio.get_running_loop().create_task(self._relist(), name="card-emojis-relist")

    async def _relist(self) -> None:
        assert self._lister is not None
        for _ in range(RELIST_TRIES):
            if self._listed_at is not None:
                await self._sleep(max(0.0, self._listed_at + RELIST_EVERY - self._clock()))
            self._listed_at = self._clock()
            self.relists += 1
            try:
                listed = await self._lister()
            except (discord.HTTPException, discord.ClientException, OSError) as error:  # TimeoutError too
                log.warning("card emojis not listed again", extra={"error": repr(error)})
                continue
            self.emojis = _mapped(listed)
            log.info("card emojis listed again", extra={"count": len(self.emojis)})
            return

    def close(self) -> None:
        """Stops a re-list under way or waiting (the bot is closing)."""
        if self.relisting is not None:
            self.relisting.cancel()

    def dress(self, spec: ButtonSpec, prefix: str, look: str) -> ButtonSpec:
        """A panel button (already in its reader's look: :func:`display.shaped`) with its card's emoji
        in that look, when the button shows a card whose emoji the application has; a grid's card
        (``spec.alone``) then shows the emoji alone, without its label."""
        emoji = self.get(prefix, look, spec.face) if spec.face else None
        if emoji is None:
            return spec
        return replace(spec, emoji=emoji, label="") if spec.alone else replace(spec, emoji=emoji)


def _mapped(listed: Iterable[tuple[int, str]]) -> dict[tuple[str, str, str], str]:
    emojis = {}
    for emoji_id, name in listed:
        match = owned(name)
        if match is not None:
            emojis[match["prefix"], _LOOK_OF[match["look"]], match["face"]] = f"<:{name}:{emoji_id}>"
    return emojis


def refused(error: BaseException) -> bool:
    """Whether Discord refused a payload for an emoji it does not know: one of the card emojis was
    deleted after the bot listed them (a ``sync`` that replaced a changed face while the bot ran). The
    map is then forgotten (:meth:`CardEmojis.forget`): that one answer was lost, the next ones show
    the panels as before card emojis until the re-list the forget starts brings the new emojis."""
    return isinstance(error, discord.HTTPException) and error.code == 50035 and "Invalid emoji" in error.text


async def load(client: discord.Client) -> CardEmojis:
    """The application's card emojis, in one request; none when Discord does not give them. The map
    re-lists them through ``client`` after a forget."""

    async def lister() -> list[tuple[int, str]]:
        return [(emoji.id, emoji.name) for emoji in await client.fetch_application_emojis()]

    try:
        listed = await lister()
    except (discord.HTTPException, discord.ClientException) as error:
        log.info("card emojis not listed: the panels keep their squares", extra={"error": repr(error)})
        return CardEmojis()
    emojis = CardEmojis.of(listed, lister=lister)
    log.info("card emojis", extra={"count": len(emojis)})
    return emojis
