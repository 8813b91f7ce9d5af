"""The card emojis' names, the sync plan and the panel's buttons (bot/ui/card_emojis.py, issue 40 item 2),
without Discord: the fake's round trip is tests/e2e/test_card_emojis.py.

No face-down card ever gets a face (SKY-TURN-1: a face-down card is not looked at, by its owner
either): whatever the face-down cards of every grid are, each seat's panel is the same, emojis
included, and a grid button names a face exactly when its card lies face up, that card's face."""

from __future__ import annotations

import io
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.games.base import ButtonSpec
from bot.games.registry import GAMES
from bot.games.skyjo.engine import Options, State
from bot.games.skyjo.faces import face as skyjo_face
from bot.games.skyjo.panel import MODE_DISCARD, MODE_MAIN, MODE_TAKE, panel_rows
from bot.ui import display
from bot.ui.card_emojis import (
    CardEmojis,
    Face,
    content_hash,
    faces,
    owned,
    plan,
    problems,
)
from bot.ui.views import panel_view
from tests.games.skyjo.helpers import advance


def test_every_face_of_both_looks_has_one_name_discord_takes_and_sync_owns() -> None:
    drawn = faces()
    expected = sum(2 * len(game.card_faces("classic")) for game in GAMES if game.card_faces is not None)
    assert len(drawn) == expected == 58  # Skyjo's 15 faces and its back, Skip-Bo's 13
    assert problems(drawn) == []
    assert len({face.name for face in drawn}) == len(drawn)
    for face in drawn:
        assert len(face.name) <= 32 and owned(face.name) is not None
        assert face.name.endswith("_" + content_hash(face.png))
    # Same pixels, same hash; one pixel more, another.
    again = {face.name for face in faces()}
    assert again == {face.name for face in drawn}
    picture = Image.open(io.BytesIO(drawn[0].png))
    picture.putpixel((64, 64), (1, 2, 3, 255))
    changed = io.BytesIO()
    picture.save(changed, "PNG")
    assert content_hash(changed.getvalue()) != content_hash(drawn[0].png)
    same = io.BytesIO()
    Image.open(io.BytesIO(drawn[0].png)).save(same, "PNG", compress_level=1)  # the same pixels, encoded anew
    assert same.getvalue() != drawn[0].png and content_hash(same.getvalue()) == content_hash(drawn[0].png)


def test_owned_names_are_only_those_of_a_registered_game() -> None:
    assert owned("card_sk_c_m2_0123abcd") is not None
    assert owned("card_sb_b_sb_0123abcd") is not None
    for name in (
        "card_zz_c_5_0123abcd",
        "card_sk_x_5_0123abcd",
        "card_sk_c_5_0123abc",
        "skybo_logo",
        "sk_c_5",
    ):
        assert owned(name) is None, name


def _face(name: str) -> Face:
    return Face("sk", "classic", name.split("_")[3], b"", name)


def test_the_plan_uploads_the_missing_deletes_the_outdated_and_keeps_the_rest() -> None:
    wanted = [_face("card_sk_c_5_aaaaaaaa"), _face("card_sk_c_6_bbbbbbbb"), _face("card_sk_c_7_cccccccc")]
    existing = [
        (1, "card_sk_c_5_aaaaaaaa"),  # the same picture: kept
        (2, "card_sk_c_6_00000000"),  # an older picture of the 6: deleted, the new one uploaded
        (3, "skybo_logo"),  # not sync's: untouched
        (4, "card_zz_c_1_00000000"),  # no such game: not sync's either
    ]
    todo = plan(existing, wanted)
    assert [face.name for face in todo.upload] == ["card_sk_c_6_bbbbbbbb", "card_sk_c_7_cccccccc"]
    assert todo.delete == [(2, "card_sk_c_6_00000000")]
    assert todo.kept == 1
    assert plan([(i, f.name) for i, f in enumerate(wanted)], wanted).upload == []


def test_the_map_knows_only_sync_s_emojis_and_dresses_only_a_face() -> None:
    emojis = CardEmojis.of([(11, "card_sk_c_5_aaaaaaaa"), (12, "card_sk_b_5_bbbbbbbb"), (13, "skybo_logo")])
    assert len(emojis) == 2
    assert emojis.get("sk", display.COLOURBLIND, "5") == "<:card_sk_b_5_bbbbbbbb:12>"
    card = ButtonSpec("sk:1:1:rp:0", "5", "secondary", False, "🟨", "◆", "5")
    back = ButtonSpec("sk:1:1:rp:1", "?")
    assert emojis.dress(card, "sk", display.CLASSIC).emoji == "<:card_sk_c_5_aaaaaaaa:11>"
    assert emojis.dress(back, "sk", display.CLASSIC) == back
    assert emojis.dress(card, "sb", display.CLASSIC) == card  # another game's emoji: none
    assert CardEmojis().dress(card, "sk", display.CLASSIC) == card


def _game(players: int, seed: int, steps: int) -> State:
    game = State.new([f"p{i}" for i in range(players)], seed, Options(score_limit=60))
    return advance(game, random.Random(seed), steps, random_seat=True)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 10_000), st.integers(0, 200), st.integers(0, 2**16))
def test_sky_turn_1_no_panel_button_shows_a_face_down_card(
    players: int, seed: int, steps: int, shuffle: int
) -> None:
    game = _game(players, seed, steps)
    modes = (MODE_MAIN, MODE_TAKE, MODE_DISCARD)
    before = {(s, m): panel_rows(game.view(s), s, 1, 1, m) for s in range(players) for m in modes}
    for seat in range(players):
        grid, up = game.grids[seat], game.face_up[seat]
        for pos, cell in enumerate(grid):
            layout = before[seat, MODE_MAIN]
            rows = game.options.rows
            spec = layout[pos % rows][pos // rows]
            if cell is None:
                assert spec.face is None  # a cleared column
            elif up[pos]:
                assert spec.face == skyjo_face(cell)
            else:
                assert spec.face == "back" and spec.label == "?"  # the back, the same for every card
    # Every face-down card of every grid dealt again at random: no panel changes, faces included.
    rng = random.Random(shuffle)
    for seat in range(players):
        for pos, cell in enumerate(game.grids[seat]):
            if cell is not None and not game.face_up[seat][pos]:
                game.grids[seat][pos] = rng.randint(-2, 12)
    after = {(s, m): panel_rows(game.view(s), s, 1, 1, m) for s in range(players) for m in modes}
    assert after == before


def test_a_panel_without_emojis_is_exactly_as_before() -> None:
    from bot.service import PanelState

    game = _game(2, 7, 30)
    state = PanelState(1, 1, 0, game.view(0), ["a", "b"], kind="skyjo")
    emojis = CardEmojis.of((100 + i, f.name) for i, f in enumerate(faces()))
    for look in (display.CLASSIC, display.COLOURBLIND):
        plain = panel_view(state, None, look).to_components()
        assert panel_view(state, None, look, CardEmojis()).to_components() == plain
        dressed = panel_view(state, None, look, emojis).to_components()
        assert len(dressed) == len(plain)
        for row, row_plain in zip(dressed, plain, strict=True):
            for got, was in zip(row["components"], row_plain["components"], strict=True):
                # A grid's card shows its emoji alone (issue 47 item 7): it loses its label.
                assert {k: v for k, v in got.items() if k not in ("emoji", "label")} == {
                    k: v for k, v in was.items() if k not in ("emoji", "label")
                }
                assert "label" in got or "id" in got["emoji"]


def test_every_grid_button_shows_one_short_thing_in_every_look() -> None:
    """Issue 47 item 7: Skyjo's grid lines up in columns because each of its buttons is Discord's
    narrowest (60 px, its content under 28 px): ONE thing on it, the card's emoji alone or a label of
    at most two characters alone, whatever the look, with every emoji, none, or all but the back's
    (emojis synced before the back existed). The discard and the drawn card keep words and emoji."""
    from bot.service import PanelState

    every = CardEmojis.of((100 + i, f.name) for i, f in enumerate(faces()))
    no_back = CardEmojis({key: value for key, value in every.emojis.items() if key[2] != "back"})
    for seed, steps in ((7, 0), (7, 30), (3, 80), (11, 140)):
        game = _game(3, seed, steps)
        for seat in range(3):
            rows = game.options.rows
            for mode in (MODE_MAIN, MODE_TAKE, MODE_DISCARD):
                state = PanelState(1, 1, seat, game.view(seat), ["a", "b", "c"], kind="skyjo", mode=mode)
                for look in (display.CLASSIC, display.COLOURBLIND):
                    for emojis in (CardEmojis(), every, no_back):
                        grid = panel_view(state, None, look, emojis).to_components()[:rows]
                        for row in grid:
                            for cell in row["components"]:
                                shown = [k for k in ("label", "emoji") if k in cell]
                                assert len(shown) == 1, cell
                                assert len(cell.get("label", "")) <= 2, cell
                                if emojis is every:  # every card its emoji; a cleared place "·"
                                    assert "emoji" in cell or cell["label"] == "·", cell
                                elif not emojis:  # the words alone, never a square or a shape
                                    assert "emoji" not in cell, cell


async def test_a_forget_lists_the_emojis_again_in_the_background_never_twice_within_a_minute() -> None:
    """After a sync while the bot runs: the forgotten map comes back from one re-list, and re-lists
    (tries Discord refused included) are at least RELIST_EVERY apart, on the injected clock."""
    now = [0.0]
    waits: list[float] = []
    listed_at: list[float] = []
    answers: list[list[tuple[int, str]] | Exception] = [
        [(21, "card_sk_c_5_cccccccc")],
        OSError("Discord down"),
        [(31, "card_sk_c_5_dddddddd"), (32, "skybo_logo")],
    ]

    async def lister() -> list[tuple[int, str]]:
        listed_at.append(now[0])
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    mapped = {("sk", display.CLASSIC, "5"): "<:card_sk_c_5_aaaaaaaa:11>"}
    emojis = CardEmojis(mapped, lister=lister, clock=lambda: now[0], sleep=sleep)
    emojis.forget()
    assert len(emojis) == 0  # at once: the next panels show the squares
    emojis.forget()  # a second refusal while the re-list is on its way: the same re-list
    assert emojis.relisting is not None
    await emojis.relisting
    assert listed_at == [0.0] and waits == []
    assert emojis.get("sk", display.CLASSIC, "5") == "<:card_sk_c_5_cccccccc:21>"
    now[0] = 10.0
    emojis.forget()  # 10 s later: waits for the minute's end; refused, tried again a minute after
    await emojis.relisting
    assert waits == [50.0, 60.0] and listed_at == [0.0, 60.0, 120.0] and emojis.relists == 3
    assert len(emojis) == 1 and emojis.get("sk", display.CLASSIC, "5") == "<:card_sk_c_5_dddddddd:31>"
    assert CardEmojis().relisting is None  # no lister (nothing listed at start): nothing to list again
