"""Second-writer worker: another process opening the same database file.

usage: python writer_worker.py open DATABASE
       python writer_worker.py write DATABASE CHANNEL BUSY_TIMEOUT_MS

``open`` tries to open it as a second bot (the process lock): prints ``REFUSED <error>`` and exits 3.
``write`` opens it as a tool (no process lock), prints ``STARTING``, waits for a line on stdin, then
creates a game (a write transaction) and prints ``OK <seconds waited>``, or on DatabaseBusy prints
``BUSY <error>`` and exits 4.
"""

from __future__ import annotations

import asyncio
import sys
import time

from bot.service.ledger import GameLedger
from bot.storage import DatabaseBusy, DatabaseInUse, Seat, Storage


async def main(args: list[str]) -> int:
    command, path = args[0], args[1]
    if command == "open":
        try:
            storage = await Storage.open(path, synchronous="FULL")
        except DatabaseInUse as error:
            print(f"REFUSED {type(error).__name__}: {error}", flush=True)
            return 3
        await storage.close()
        print("OPENED", flush=True)
        return 0
    channel, busy_ms = int(args[2]), int(args[3])
    storage = await Storage.open(path, synchronous="FULL", lock=False, busy_timeout_ms=busy_ms)
    try:
        print("STARTING", flush=True)
        sys.stdin.readline()  # the test takes the write lock, then lets us go
        started = time.perf_counter()
        try:
            await GameLedger(storage).create_game(
                guild_id=1,
                channel_id=channel,
                kind="skyjo",
                seats=[Seat(0, "a", user_id=1), Seat(1, "b", ai_level="easy")],
                seed=1,
            )
        except DatabaseBusy as error:
            print(f"BUSY {type(error).__name__}: {error}", flush=True)
            return 4
        print(f"OK {time.perf_counter() - started:.3f}", flush=True)
        return 0
    finally:
        await storage.close()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
