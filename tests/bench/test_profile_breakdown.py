"""The py-spy breakdown of the table bench (bench/profile_breakdown.py, ``python -m bench.table
--breakdown FILE``) on a small py-spy file: idle samples left out, each busy one in its category."""

from __future__ import annotations

from pathlib import Path

from bench import profile_breakdown


def test_breakdown_of_a_pyspy_file(tmp_path: Path) -> None:
    loop = "thread (1): MainThread;run_forever (asyncio/base_events.py:6);_run_once (asyncio/events.py:9)"
    spy = tmp_path / "spy.txt"
    spy.write_text(
        f"{loop};EpollSelector.select (selectors.py:468) 50\n"  # idle: not counted
        # owned by the computer
        f"{loop};Handle._run (asyncio/events.py:80);_ai_loop (bot/service/computers.py:30);"
        "computer_move (bot/service/computer_moves.py:20);Game.apply (bot/games/skyjo/engine.py:300) 10\n"
        f"{loop};Handle._run (asyncio/events.py:80);TableUI.game_click (bot/ui/clicks.py:50);"
        "PartialMessage.edit (discord/message.py:1423);JSONEncoder.iterencode (json/encoder.py:205) 20\n"
        f"{loop};Handle._run (asyncio/events.py:80);TableUI.game_click (bot/ui/clicks.py:50);"
        "panel_view (bot/games/skyjo/panel.py:90);View.__init__ (discord/ui/view.py:236) 5\n"
        f"{loop};Handle._run (asyncio/events.py:80);ClickPart.click (bot/service/clicks.py:45);"
        "Game.apply (bot/games/skyjo/engine.py:300) 15\n"
        "thread (2): asyncio_0;_worker (concurrent/futures/thread.py:83);_save (PIL/PngImagePlugin.py:1) 7\n"
    )
    lines = profile_breakdown.breakdown(str(spy))
    assert lines[0].strip() == "event loop thread: 50 busy samples (50 idle in select not counted)"
    shares = {line[:27].strip(): line[27:].split()[0] for line in lines[1:5]}
    assert shares == {
        "encode": "40.0%",
        "engine apply": "30.0%",
        "computer players": "20.0%",
        "View construction": "10.0%",
    }
    assert lines[-1].split()[:2] == ["asyncio", "7"]
