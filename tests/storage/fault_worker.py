"""Fault-test worker: plays legal Skyjo moves in many games and prints every committed action.

usage: python fault_worker.py DATABASE RUN_SEED GAMES

Each line ``ACK <game> <version> <seat> <action json>`` is printed (and flushed) only after the action
is committed, so the test may SIGKILL this process at any moment and demand every ACK back.
"""

from __future__ import annotations

import asyncio
import random
import sys

from bot.service.ledger import GameLedger
from bot.storage import Seat, Storage, StoredGame
from bot.storage.games import canonical_json


def _seats(rng: random.Random, channel: int) -> list[Seat]:
    n = rng.randint(2, 4)
    seats = []
    for seat in range(n):
        if rng.random() < 0.5:
            seats.append(Seat(seat, f"ai-{seat}", ai_level=rng.choice(["easy", "hard"])))
        else:
            seats.append(Seat(seat, f"user-{channel}-{seat}", user_id=1000 * channel + seat + 1))
    return seats


async def _new_game(storage: Storage, rng: random.Random, channel: int) -> StoredGame:
    # A short score limit, so games finish (and ratings update) within the test's time.
    return await GameLedger(storage).create_game(
        guild_id=7,
        channel_id=channel,
        kind="skyjo",
        seats=_seats(rng, channel),
        seed=rng.randrange(2**31),
        options={"score_limit": 30},
    )


async def main(path: str, run_seed: int, count: int) -> None:
    rng = random.Random(run_seed)
    storage = await Storage.open(path, synchronous="FULL")
    loaded = await GameLedger(storage).load_active(verify="full")
    print(
        f"LOADED {len(loaded.games)} rebuilt={len(loaded.rebuilt)} quarantined={len(loaded.quarantined)}",
        flush=True,
    )
    games = {g.channel_id: g for g in loaded.games}
    for channel in range(1, count + 1):
        if channel not in games:
            games[channel] = await _new_game(storage, rng, channel)
    print("READY", flush=True)
    while True:
        channel = rng.randrange(1, count + 1)
        stored = games[channel]
        game = stored.state
        seat = rng.choice(game.seats_to_act())
        action = rng.choice(game.legal_actions(seat))
        await GameLedger(storage).apply_action(stored, seat, action)
        print(f"ACK {stored.id} {stored.version} {seat} {canonical_json(action.to_dict())}", flush=True)
        if stored.finished is not None:  # the last action also finished the game, atomically
            print(f"FIN {stored.id}", flush=True)
            games[channel] = await _new_game(storage, rng, channel)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
