"""The terminal Skip-Bo game, the simulator and the benchmark, driven with scripted input."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator

import pytest
from rich.console import Console

from bot.__main__ import main as cli_main
from bot.games.skipbo import bench, play, sim


def console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=160, force_terminal=False, color_system=None), buffer


def scripted(answers: Iterator[str], prompts: list[str]) -> Callable[[str], str]:
    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    return answer


def always(choice: str) -> Iterator[str]:
    while True:
        yield choice


def test_whole_scripted_game_ends() -> None:
    """Always taking the first listed move plays a whole game to its end."""
    out, buffer = console()
    prompts: list[str] = []
    code = play.main(
        ["--seed", "5", "--opponents", "2", "--stock", "5", "--level", "hard"],
        input_fn=scripted(always("1"), prompts),
        console=out,
    )
    text = buffer.getvalue()
    assert code == 0
    assert prompts, "the human was asked to move"
    assert "won the game" in text or "ends in a draw" in text
    assert "ranks: you" in text
    assert "your hand:" in text
    assert "building piles:" in text


def test_scripted_game_is_deterministic_for_a_seed() -> None:
    texts = []
    for _ in range(2):
        out, buffer = console()
        play.main(
            ["--seed", "9", "--opponents", "1", "--stock", "5"],
            input_fn=scripted(always("1"), []),
            console=out,
        )
        texts.append(buffer.getvalue())
    assert texts[0] == texts[1]


def test_team_game_with_several_rounds() -> None:
    out, buffer = console()
    code = play.main(
        ["--seed", "2", "--opponents", "3", "--stock", "5", "--teams", "--rounds", "--score-limit", "60"],
        input_fn=scripted(always("1"), []),
        console=out,
    )
    text = buffer.getvalue()
    assert code == 0
    assert "(team 1)" in text and "(team 2)" in text
    assert "deal the next round" in text and "Round 2" in text
    assert "won the game" in text or "ends in a draw" in text


def test_bad_input_is_explained_then_quit() -> None:
    out, buffer = console()
    answers = iter(["hello", "999", "q"])
    code = play.main(["--seed", "3", "--opponents", "1"], input_fn=scripted(answers, []), console=out)
    text = buffer.getvalue()
    assert code == 0
    assert text.count("type a number from 1 to") == 2
    assert "bye." in text


def test_end_of_input_quits() -> None:
    out, buffer = console()

    def eof(prompt: str) -> str:
        raise EOFError

    assert play.main(["--seed", "3"], input_fn=eof, console=out) == 0
    assert "bye." in buffer.getvalue()


def test_the_human_sees_only_their_own_hand() -> None:
    """GAME-INFO-1: the table printed for the human shows no other hand."""
    out, buffer = console()
    play.main(["--seed", "4", "--opponents", "2"], input_fn=scripted(iter(["q"]), []), console=out)
    text = buffer.getvalue()
    assert text.count("your hand:") == 1
    assert re.search(r"CPU 1: stock 30 \(top \w+\), hand \d, discards", text)


def test_bad_options_are_refused() -> None:
    out, _ = console()
    assert play.main(["--opponents", "6"], input_fn=scripted(iter([]), []), console=out) == 2
    assert play.main(["--opponents", "2", "--teams"], input_fn=scripted(iter([]), []), console=out) == 2


def _sim(args: list[str]) -> str:
    buffer = io.StringIO()
    assert sim.main(args, out=buffer) == 0
    return buffer.getvalue()


def test_simulator_prints_one_line_per_seat_and_is_deterministic() -> None:
    args = ["--players", "4", "--games", "6", "--ai", "hard,normal,easy", "--seed", "3", "--stock", "6"]
    first, second = _sim(args), _sim(args)
    lines = first.splitlines()
    assert re.fullmatch(r"seat 1 hard: \d+\.\d % wins", lines[0])
    assert re.fullmatch(r"seat 3 easy: \d+\.\d % wins", lines[2])
    assert re.fullmatch(r"seat 4 easy: \d+\.\d % wins", lines[3])
    assert any(line.startswith("turns per game: ") for line in lines)
    assert any(line.startswith("games per second: ") for line in lines)
    strip = [line for line in first.splitlines() if not line.startswith("games per second")]
    assert strip == [line for line in second.splitlines() if not line.startswith("games per second")]
    wins = [float(line.split(": ")[1].split(" %")[0]) for line in lines[:4]]
    draws = float(lines[4].split(": ")[1].split(" %")[0])
    assert abs(sum(wins) + draws - 100.0) < 0.5  # every game is won by one seat or drawn


def test_simulator_through_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli_main(["simulate", "skipbo", "--players", "2", "--games", "2", "--stock", "5", "--seed", "1"]) == 0
    )
    assert "seat 2 normal:" in capsys.readouterr().out
    assert cli_main(["simulate", "skipbo", "--ai", "genius"]) == 2


def test_bench_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bench, "SECONDS", 0.05)
    bench.run()
    out = capsys.readouterr().out
    assert "skipbo random legal:" in out and "games/s" in out
    game = bench.random_game(1, plays_first=True)
    assert game.is_over
