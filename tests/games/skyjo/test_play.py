"""The terminal Skyjo game: whole games with scripted input, input checking, and what the board shows."""

from __future__ import annotations

import io
import itertools
import random
import re

import pytest
from rich.console import Console

from bot.games.skyjo import engine, play

POSITIONS = [f"{c}{r}" for c in "abcd" for r in "123"]


def console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=130, highlight=False, color_system=None), buffer


class Player:
    """Answers every prompt of the terminal game; positions cycle, so cleared or face-up cards are
    sometimes offered and must be refused with a reason before a legal one is accepted."""

    def __init__(self, seed: int, buffer: io.StringIO) -> None:
        self.rng = random.Random(seed)
        self.positions = itertools.cycle(POSITIONS)
        self.buffer = buffer
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        self.buffer.write(prompt + "\n")
        if len(self.prompts) > 5000:
            raise AssertionError("the game does not end")
        if prompt.startswith("Take the discard"):
            return self.rng.choice(["t", "d", "d"])
        if prompt.startswith("Put the") and "or x" in prompt:
            return self.rng.choice(["x", "x", next(self.positions)])
        if prompt.startswith("Press Enter"):
            return ""
        # A card to reveal or to replace: sometimes a number, sometimes a column and a row.
        pos = next(self.positions)
        if self.rng.random() < 0.3:
            return str(POSITIONS.index(pos) + 1)
        return pos


@pytest.mark.parametrize(("level", "opponents", "seed"), [("normal", 3, 1), ("hard", 1, 2), ("easy", 2, 3)])
def test_a_whole_game_plays_to_the_end_with_scripted_input(level: str, opponents: int, seed: int) -> None:
    out, buffer = console()
    player = Player(seed, buffer)
    code = play.main(["--opponents", str(opponents), "--level", level, "--seed", str(seed)], player, out)
    text = buffer.getvalue()
    assert code == 0
    assert "Final standings" in text
    assert re.search(r"wins?!", text)
    assert "Round 1 scores" in text
    assert any(p.startswith("Turn up a card") for p in player.prompts)
    assert any(p.startswith("Take the discard") for p in player.prompts)
    # The last round summary shows a total of 100 or more (SKY-GAME-1).
    totals = [int(x) for x in re.findall(r"│\s+-?\d+\s+│\s+-?\d+\s+│\s+(-?\d+)\s+│", text)]
    assert totals and max(totals) >= 100


def test_the_same_seed_and_answers_give_the_same_game() -> None:
    outputs = []
    for _ in range(2):
        out, buffer = console()
        play.main(["--opponents", "2", "--level", "hard", "--seed", "9"], Player(4, buffer), out)
        outputs.append(buffer.getvalue())
    assert outputs[0] == outputs[1]


def test_invalid_input_is_refused_with_a_reason() -> None:
    out, buffer = console()
    answers = iter(["", "z9", "a7", "99", "a1", "a1", "b1", "maybe", "d", "e1", "x", "a1", "b2", "q"])
    code = play.main(["--opponents", "1", "--seed", "5"], lambda prompt: next(answers), out)
    text = buffer.getvalue()
    assert code == 1  # the player quit
    assert "type a card such as b2" in text
    assert "type a column a to d and a row 1 to 3" in text
    assert "rows go from 1 to 3" in text
    assert "a card number goes from 1 to 12" in text
    assert "a1 is already face up" in text
    assert "answer t to take the discard or d to draw" in text
    assert "Replay this deal with --seed 5" in text


def test_end_of_input_leaves_the_game() -> None:
    out, _ = console()

    def closed(prompt: str) -> str:
        raise EOFError

    assert play.main(["--seed", "1"], closed, out) == 1


def test_bad_arguments() -> None:
    out, _ = console()
    assert play.main(["--opponents", "0"], input, out) == 2
    assert play.main(["--opponents", "8"], input, out) == 2
    assert play.main(["--level", "wizard"], input, out) == 2


def test_parse_position() -> None:
    assert play.parse_position("a1", 4, 3) == 0
    assert play.parse_position("B2", 4, 3) == 4
    assert play.parse_position(" d3 ", 4, 3) == 11
    assert play.parse_position("12", 4, 3) == 11
    assert play.parse_position("1", 4, 3) == 0
    for bad in ("", "e1", "a4", "0", "13", "bb", "a"):
        with pytest.raises(ValueError):
            play.parse_position(bad, 4, 3)
    assert play.position_name(4, 3) == "b2"


def test_the_board_never_shows_a_face_down_card() -> None:
    """GAME-INFO-1: the board is drawn from the human's view; face-down values never appear."""
    game = engine.State.new(["You", "Bot"], 3)
    game.apply(0, engine.Reveal(0))
    game.apply(0, engine.Reveal(1))
    game.apply(1, engine.Reveal(0))
    game.apply(1, engine.Reveal(1))
    out, buffer = console()
    out.print(play.render_board(game.view(0), ["You turn up 3 at a1."]))
    text = buffer.getvalue()
    grid_lines = [line for line in text.splitlines() if re.match(r"│\s+[123]\s", line)]
    assert len(grid_lines) == 3
    # Each panel's row starts with its row label; the numbers after it are cards.
    shown = [
        int(v) for line in grid_lines for panel in line.split("│") for v in re.findall(r"-?\d+", panel)[1:]
    ]
    face_up = [
        v
        for grid, up in zip(game.grids, game.face_up, strict=True)
        for v, u in zip(grid, up, strict=True)
        if u
    ]
    # Every number in the grids (row labels removed) is a face-up card: four of them.
    assert sorted(shown) == sorted(face_up)
    assert text.count("▒▒") == 20
    assert "You turn up 3 at a1." in text


def test_describe_events_in_words() -> None:
    players = ["You", "Bot 1"]
    assert play.describe(engine.CardDrawn(1, 7), players, 3, you=0) == "Bot 1 draws 7."
    assert play.describe(engine.CardDrawn(0, 7), players, 3, you=0) == "You draw 7."
    cleared = play.describe(engine.LineCleared(1, "column", 2, 5, 3), players, 3, you=0)
    assert cleared == "Bot 1 clears column c: 3 × 5 leave the grid!"
    finishing = play.describe(engine.RoundFinishing(0), players, 3, you=0)
    assert finishing is not None and finishing.startswith("You have no face-down card left")
    assert play.describe(engine.TurnStarted(1), players, 3, you=0) is None
