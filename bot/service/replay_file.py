"""Replay an exported game in the terminal (``python -m bot replay FILE``): the rules run here, in the
service layer, on an export of :mod:`bot.storage.export` (storage runs no game's rules).

``-`` reads stdin; each action is printed with the events it caused, then the results, and whether the
replayed state matches the stored snapshot.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from bot.engine.errors import GameError
from bot.games.registry import get_engine
from bot.storage.export import FORMAT
from bot.storage.games import canonical_json, snapshot_hash


def _describe(data: dict[str, Any]) -> str:
    """An action or an event in words: its type then its fields (``replace pos=4``)."""
    kind = data.get("type", data.get("kind", "?"))
    rest = " ".join(f"{k}={json.dumps(v)}" for k, v in data.items() if k not in ("type", "kind"))
    return f"{kind} {rest}".strip()


def replay_export(exported: dict[str, Any], out: TextIO, *, as_json: bool = False) -> int:
    """Rebuild an exported game action by action, printing what happened; 0 if it all replays."""
    if exported.get("format") != FORMAT:
        print(f"replay: not a {FORMAT} export", file=out)
        return 2
    engine = get_engine(exported["kind"])
    players = exported["players"]
    names = [p["name"] for p in players]
    labels = {p["seat"]: f"seat {p['seat']} ({p.get('display_name') or p['name']})" for p in players}
    game = engine.State.new(names, exported["seed"], engine.Options.from_dict(exported["options"]))
    print(
        f"{exported['kind']} game {exported.get('game_id')}: seed {exported['seed']}, {len(names)} players",
        file=out,
    )
    print(f"options: {json.dumps(exported['options'], sort_keys=True)}", file=out)
    for entry in exported["actions"]:
        seq, seat, data = entry["seq"], entry["seat"], entry["action"]
        try:
            action = engine.action_from_dict(data)
            events = game.apply(seat, action)
        except GameError as error:
            print(
                f"#{seq} {labels.get(seat, f'seat {seat}')}: {_describe(data)} -> REFUSED {error.key}",
                file=out,
            )
            return 1
        print(f"#{seq} {labels.get(seat, f'seat {seat}')}: {_describe(data)}", file=out)
        for event in events:
            shown = json.dumps(event.to_dict()) if as_json else _describe(event.to_dict())
            print(f"    {shown}", file=out)
    print("results: " + json.dumps(game.results(), sort_keys=True), file=out)
    digest = exported.get("snapshot_hash")
    if digest:
        same = snapshot_hash(canonical_json(game.to_dict())) == digest
        print(
            "the replayed state matches the stored snapshot"
            if same
            else "the replayed state DIFFERS from the stored snapshot",
            file=out,
        )
    return 0


def main_replay(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot replay", description="Replay an exported game.")
    parser.add_argument("file", metavar="FILE", help="an export-game JSON file, or - for stdin")
    parser.add_argument("--json", action="store_true", help="print events as JSON")
    options = parser.parse_args(args)
    try:
        text = sys.stdin.read() if options.file == "-" else Path(options.file).read_text(encoding="utf-8")
        exported = json.loads(text)
    except (OSError, ValueError) as error:
        print(f"replay: cannot read {options.file}: {error}", file=sys.stderr)
        return 2
    try:
        return replay_export(exported, sys.stdout, as_json=options.json)
    except BrokenPipeError:  # `... | head` closed our output: not an error of the game
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the interpreter's final flush quiet
        return 0
    except (GameError, KeyError, TypeError) as error:
        print(f"replay: the export cannot be replayed: {type(error).__name__} {error}", file=sys.stderr)
        return 1
