"""Table image benchmark: Skyjo tables of 4 and 8 players and Skip-Bo tables of 4 and 6 players
mid-game, composed and encoded as PNG."""

from __future__ import annotations

import io
import random
import time
from collections.abc import Callable
from typing import Any

from PIL import Image

from bot.games.skipbo import engine as skipbo
from bot.games.skipbo import image as skipbo_image
from bot.games.skyjo import image as skyjo_image
from bot.games.skyjo.engine import (
    GAME_OVER,
    PLAY,
    REVEAL,
    ROUND_OVER,
    DiscardAndReveal,
    Draw,
    NextRound,
    Options,
    Replace,
    Reveal,
    State,
    TakeDiscard,
)

NAMES = ["Alice", "Bérénice", "Chen", "Dmitri", "Esperanza", "Farouk", "Gwendolyn", "Hiro"]


def mid_game(
    players: int,
    seed: int,
    turns: int,
    options: Options | None = None,
    draw_last: bool = True,
    round_number: int = 1,
) -> State:
    """A game in round ``round_number`` after the initial reveals and ``turns`` turns of seeded
    random play (earlier rounds are played out the same way, so totals are not all zero).

    Players follow a rough greedy rule (keep low cards, replace their worst card, else reveal one)
    with seeded random choices, so grids look like real play; with ``draw_last`` the player to act
    has just drawn, so the drawn card shows.
    """
    rng = random.Random(seed)
    game = State.new([f"p{i + 1}" for i in range(players)], seed, options)

    def place(seat: int, card: int) -> int | None:
        """Where a rough player puts ``card``: over their worst higher card, else often face down."""
        grid, up = game.grids[seat], game.face_up[seat]
        shown = [p for p, v in enumerate(grid) if v is not None and up[p]]
        worst = max(shown, key=lambda p: grid[p] or 0, default=None)
        if worst is not None and (grid[worst] or 0) > card + 2:
            return worst
        down = game.face_down_positions(seat)
        return rng.choice(down) if down and card <= 4 else None

    def turn() -> None:
        seat = game.turn
        assert seat is not None
        top = game.discard_pile[-1]
        pos = place(seat, top)
        if top <= 3 and pos is not None:
            game.apply(seat, TakeDiscard(pos))
            return
        game.apply(seat, Draw())
        assert game.drawn is not None
        pos = place(seat, game.drawn)
        down = game.face_down_positions(seat)
        if pos is not None:
            game.apply(seat, Replace(pos))
        elif down:
            game.apply(seat, DiscardAndReveal(rng.choice(down)))
        else:
            game.apply(seat, Replace(rng.choice(game.occupied_positions(seat))))

    def reveals() -> None:
        while game.phase == REVEAL:
            for seat in game.seats_to_act():
                game.apply(seat, Reveal(rng.choice(game.face_down_positions(seat))))

    reveals()
    while game.round < round_number and game.phase != GAME_OVER:
        if game.phase == ROUND_OVER:
            game.apply(0, NextRound())
            reveals()
        else:
            turn()
    for _ in range(turns):
        if game.phase != PLAY:
            break
        turn()
    if draw_last and game.phase == PLAY and game.drawn is None:
        assert game.turn is not None
        game.apply(game.turn, Draw())
    return game


def _skipbo_action(game: skipbo.State, seat: int, rng: random.Random) -> skipbo.Action:
    """A rough seeded player (its own, so the benchmark does not move with the computer players):
    the stock card whenever it fits, else usually a number card that fits, now and then a Skip-Bo
    card; it discards its highest card onto a pile with a higher top or an empty one."""
    actions = game.legal_actions(seat)
    plays = [a for a in actions if isinstance(a, skipbo.Play)]
    stock = [p for p in plays if p.source in (skipbo.STOCK, skipbo.PARTNER_STOCK)]
    if stock:
        return rng.choice(stock)
    numbers = [p for p in plays if p.card != skipbo.WILD]
    if numbers and rng.random() < 0.85:
        return rng.choice(numbers)
    wild = [p for p in plays if p.card == skipbo.WILD]
    if wild and rng.random() < 0.15:
        return rng.choice(wild)
    discards = [a for a in actions if isinstance(a, skipbo.Discard)]
    if not discards:
        return next(a for a in actions if not isinstance(a, skipbo.Play))
    piles = game.discard_piles[seat]
    card = max((d.card for d in discards), key=lambda c: (c != skipbo.WILD, c))
    fits = [i for i, p in enumerate(piles) if not p or p[-1] >= card]
    return skipbo.Discard(card, rng.choice(fits) if fits else rng.randrange(skipbo.DISCARD_PILES))


def skipbo_mid_game(
    players: int,
    seed: int,
    turns: int,
    options: skipbo.Options | None = None,
    round_number: int = 1,
    plays: int = 0,
) -> skipbo.State:
    """A Skip-Bo game in round ``round_number`` (earlier rounds played out) after ``turns`` whole
    turns of seeded rough play, then ``plays`` more actions into the next turn. It stops early if
    the game (or the round) ends."""
    rng = random.Random(seed)
    game = skipbo.State.new([f"p{i + 1}" for i in range(players)], seed, options)

    def act() -> None:
        seat = game.seats_to_act()[0]
        game.apply(seat, _skipbo_action(game, seat, rng))

    while game.round < round_number and game.phase != skipbo.GAME_OVER:
        act()
    start = game.turns
    while game.phase == skipbo.PLAY and game.turns - start < turns:
        act()
    for _ in range(plays):
        if game.phase != skipbo.PLAY:
            break
        act()
    return game


def _measure(
    render: Callable[[dict[str, Any], list[str]], bytes],
    compose: Callable[[dict[str, Any], list[str]], Image.Image],
    view: dict[str, Any],
    names: list[str],
    repeat: int,
) -> tuple[float, float, int]:
    """(mean ms per PNG, mean ms composing only, PNG size in bytes) after a warm-up."""
    for _ in range(5):
        render(view, names)
    started = time.perf_counter()
    for _ in range(repeat):
        png = render(view, names)
    total = (time.perf_counter() - started) / repeat * 1000
    started = time.perf_counter()
    for _ in range(repeat):
        compose(view, names)
    composing = (time.perf_counter() - started) / repeat * 1000
    return total, composing, len(png)


def run() -> None:
    for players, target in ((4, 15), (8, 30)):
        game = mid_game(players, seed=players, turns=3 * players)
        view = game.view(None)
        image = skyjo_image.table_image(view, NAMES[:players])
        total, compose, size = _measure(
            skyjo_image.render_table, skyjo_image.table_image, view, NAMES[:players], 100
        )
        print(
            f"skyjo table, {players} players ({image.width}x{image.height}): {total:.1f} ms per PNG "
            f"(composing {compose:.1f} ms, encoding {total - compose:.1f} ms; {size / 1024:.0f} kB; "
            f"target < {target} ms)"
        )
    for kind, render in (("skyjo", skyjo_image.render_table), ("skipbo", skipbo_image.render_table)):
        view = (
            mid_game(4, seed=4, turns=12) if kind == "skyjo" else skipbo_mid_game(4, seed=4, turns=12)
        ).view(None)
        render(view, NAMES[:4], "dark", None, "colourblind")  # its tiles and palette, drawn once
        started = time.perf_counter()
        for _ in range(100):
            render(view, NAMES[:4], "dark", None, "colourblind")
        print(
            f"{kind} table, 4 players, colour-blind cards: "
            f"{(time.perf_counter() - started) * 10:.1f} ms per PNG"
        )
    game = mid_game(4, seed=4, turns=12)
    started = time.perf_counter()
    for _ in range(100):
        skyjo_image.render_grid(game.view(0), 0, NAMES[:4])
    print(f"skyjo private grid: {(time.perf_counter() - started) * 10:.1f} ms per PNG")
    for players, target in ((4, 15), (6, 25)):
        options = skipbo.Options(teams=True, several_rounds=True)
        sb_game = skipbo_mid_game(players, seed=players, turns=6 * players, options=options)
        view = sb_game.view(None)
        image = skipbo_image.table_image(view, NAMES[:players])
        total, compose, size = _measure(
            skipbo_image.render_table, skipbo_image.table_image, view, NAMES[:players], 100
        )
        print(
            f"skipbo table, {players} players in teams ({image.width}x{image.height}): {total:.1f} ms "
            f"per PNG (composing {compose:.1f} ms, encoding {total - compose:.1f} ms; {size / 1024:.0f} kB; "
            f"target < {target} ms)"
        )
    sb_game = skipbo_mid_game(4, seed=4, turns=12)
    seat = sb_game.turn
    assert seat is not None
    own = sb_game.view(seat)
    started = time.perf_counter()
    for _ in range(100):
        skipbo_image.render_hand(own, seat, NAMES[:4])
    print(f"skipbo private hand: {(time.perf_counter() - started) * 10:.1f} ms per PNG")
    encoders()


# The encoder settings compared by :func:`encoders` (issue 26, item 2): zlib levels of PNG, and WebP
# (lossless, fastest method), which Discord shows inline too.
ENCODERS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("PNG level 0", {"format": "PNG", "compress_level": 0}),
    ("PNG level 1 (used)", {"format": "PNG", "compress_level": 1}),
    ("PNG level 3", {"format": "PNG", "compress_level": 3}),
    ("PNG level 6 (Pillow's default)", {"format": "PNG", "compress_level": 6}),
    ("PNG level 9", {"format": "PNG", "compress_level": 9}),
    ("WebP lossless, method 0", {"format": "WEBP", "lossless": True, "method": 0}),
)


def encoders(repeat: int = 30) -> None:
    """Encoding time and size of one table picture with each of :data:`ENCODERS`."""
    for players in (4, 8):
        game = mid_game(players, seed=players, turns=3 * players)
        image = skyjo_image.table_image(game.view(None), NAMES[:players])
        for label, settings in ENCODERS:
            out = io.BytesIO()
            started = time.perf_counter()
            for _ in range(repeat):
                out = io.BytesIO()
                image.save(out, **settings)
            took = (time.perf_counter() - started) / repeat * 1000
            print(
                f"encoding the skyjo table of {players} players ({image.width}x{image.height}), "
                f"{label}: {took:.1f} ms, {out.tell() / 1024:.0f} kB"
            )
