"""Modals with Discord's new components (fakecord/modals.py): labels around text inputs, selects, radio
groups, checkbox groups and checkboxes, opened by a plain discord.py bot and submitted by the fake in
Discord's MODAL_SUBMIT shapes; what the user's client refuses to submit; and the modals Discord refuses
to open (its docs' rules beyond its description, and the description's own)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import discord
import pytest
from discord.ext import commands

from fakecord import FakeDiscord, FakeInteraction, InteractionRefused
from tests.fakecord.places_bot import delivered

ui = discord.ui


class TableForm(ui.Modal, title="New table"):
    """A table set up with a form: one label around each kind of input."""

    name: ui.Label[TableForm] = ui.Label(
        text="Table name", component=ui.TextInput(custom_id="name", max_length=20)
    )
    game: ui.Label[TableForm] = ui.Label(
        text="Game",
        description="What to play",
        component=ui.Select(
            custom_id="game",
            options=[
                discord.SelectOption(label="Skyjo", value="skyjo"),
                discord.SelectOption(label="Skip-Bo", value="skipbo", default=True),
            ],
        ),
    )
    speed: ui.Label[TableForm] = ui.Label(
        text="Speed",
        component=ui.RadioGroup(
            custom_id="speed",
            options=[
                discord.RadioGroupOption(label="Calm", value="calm", default=True),
                discord.RadioGroupOption(label="Fast", value="fast"),
            ],
        ),
    )
    rules: ui.Label[TableForm] = ui.Label(
        text="House rules",
        component=ui.CheckboxGroup(
            custom_id="rules",
            required=False,
            options=[
                discord.CheckboxGroupOption(label="Column bonus", value="columns"),
                discord.CheckboxGroupOption(label="Jokers", value="jokers"),
            ],
        ),
    )
    bots: ui.Label[TableForm] = ui.Label(text="Computer players", component=ui.Checkbox(custom_id="bots"))

    def __init__(self, forms: list[dict[str, Any]]) -> None:
        super().__init__()
        self.forms = forms

    async def on_submit(self, interaction: discord.Interaction) -> None:
        parts = (self.name, self.game, self.speed, self.rules, self.bots)
        text, game, speed, rules, bots = (p.component for p in parts)
        assert isinstance(text, ui.TextInput) and isinstance(game, ui.Select)
        assert isinstance(speed, ui.RadioGroup) and isinstance(rules, ui.CheckboxGroup)
        assert isinstance(bots, ui.Checkbox)
        self.forms.append(
            {
                "name": text.value,
                "game": game.values,
                "speed": speed.value,
                "rules": rules.values,
                "bots": bots.value,
            }
        )
        await interaction.response.send_message("table set up", ephemeral=True)


class InviteForm(ui.Modal, title="Invite"):
    note = ui.TextDisplay[Any]("Pick up to two players.")
    who: ui.Label[InviteForm] = ui.Label(
        text="Players", component=ui.UserSelect(custom_id="who", max_values=2)
    )

    def __init__(self, picked: list[list[int]]) -> None:
        super().__init__()
        self.picked = picked

    async def on_submit(self, interaction: discord.Interaction) -> None:
        assert isinstance(self.who.component, ui.UserSelect)
        self.picked.append([u.id for u in self.who.component.values])
        await interaction.response.send_message("invited", ephemeral=True)


class FormBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.forms: list[dict[str, Any]] = []
        self.picked: list[list[int]] = []

    async def setup_hook(self) -> None:
        @self.tree.command(name="newtable", description="Set up a table with a form")
        async def newtable(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(TableForm(self.forms))

        @self.tree.command(name="invite", description="Invite players")
        async def invite(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(InviteForm(self.picked))

        await self.tree.sync()


@pytest.fixture
async def bot(connect_bot: Any) -> FormBot:
    connected: FormBot = await connect_bot(FormBot())
    return connected


async def test_a_form_with_the_new_components_submits_discords_shapes(
    fake_discord: FakeDiscord, bot: FormBot
) -> None:
    fake = fake_discord
    alice = fake.user("alice")
    opened = await fake.run_command(alice, "newtable")
    submit = await fake.submit_modal(
        alice, opened, {"name": "Friday", "speed": "fast", "rules": ["jokers"], "bots": True}
    )
    assert (await submit.answer()).content == "table set up"
    data = delivered(fake, submit)["data"]
    assert data["custom_id"] == fake.modals[0][1]["custom_id"]
    assert data["components"] == [
        {"type": 18, "id": 1, "component": {"type": 4, "id": 2, "custom_id": "name", "value": "Friday"}},
        {"type": 18, "id": 3, "component": {"type": 3, "id": 4, "custom_id": "game", "values": ["skipbo"]}},
        {"type": 18, "id": 5, "component": {"type": 21, "id": 6, "custom_id": "speed", "value": "fast"}},
        {"type": 18, "id": 7, "component": {"type": 22, "id": 8, "custom_id": "rules", "values": ["jokers"]}},
        {"type": 18, "id": 9, "component": {"type": 23, "id": 10, "custom_id": "bots", "value": True}},
    ]
    assert bot.forms == [
        {"name": "Friday", "game": ["skipbo"], "speed": "fast", "rules": ["jokers"], "bots": True}
    ]

    # left out: what the form pre-fills (the default game and speed, no rules, the checkbox unticked)
    opened = await fake.run_command(alice, "newtable")
    await (await fake.submit_modal(alice, opened, {"name": "Monday"})).answer()
    assert bot.forms[1] == {"name": "Monday", "game": ["skipbo"], "speed": "calm", "rules": [], "bots": False}


async def test_a_user_select_in_a_form_resolves_the_picked_users(
    fake_discord: FakeDiscord, bot: FormBot
) -> None:
    fake = fake_discord
    alice, bob, carol = fake.user("alice"), fake.user("bob"), fake.user("carol")
    opened = await fake.run_command(alice, "invite")
    submit = await fake.submit_modal(alice, opened, {"who": [bob, carol]})
    await submit.answer()
    data = delivered(fake, submit)["data"]
    assert data["components"][0] == {"type": 10, "id": 1}  # a text display: its type and id alone
    assert data["components"][1]["component"]["values"] == [str(bob.id), str(carol.id)]
    assert set(data["resolved"]["users"]) == set(data["resolved"]["members"]) == {str(bob.id), str(carol.id)}
    assert bot.picked == [[bob.id, carol.id]]


async def test_what_the_users_client_refuses_to_submit(fake_discord: FakeDiscord, bot: FormBot) -> None:
    fake = fake_discord
    alice = fake.user("alice")
    opened = await fake.run_command(alice, "newtable")
    await opened.response()
    wrong: list[tuple[dict[str, Any], str]] = [
        ({"name": ""}, "is required"),
        ({"name": "x" * 21}, "takes 0..20 characters"),
        ({"name": "Friday", "speed": "slow"}, "not an option"),
        ({"name": "Friday", "speed": None}, "radio group 'speed' is required"),
        ({"name": "Friday", "rules": ["columns", "dice"]}, "not options"),
        ({"name": "Friday", "game": ["skyjo", "skipbo"]}, "takes 1..1 values"),
        ({"name": "Friday", "bots": "yes"}, "true or false"),
        ({"name": "Friday", "colour": "red"}, "no inputs"),
    ]
    for values, reason in wrong:
        with pytest.raises(InteractionRefused, match=reason):
            await fake.submit_modal(alice, opened, values)
    with pytest.raises(InteractionRefused, match="only the user who opened"):
        await fake.submit_modal(fake.user("bob"), opened, {"name": "Friday"})
    assert bot.forms == []


async def callback(fake: FakeDiscord, inter: FakeInteraction, data: dict[str, Any]) -> tuple[int, Any]:
    """The bot's MODAL callback, sent as raw HTTP (what discord.py itself would refuse to build)."""
    url = f"{fake.api_base}/interactions/{inter.id}/{inter.token}/callback"
    body = json.dumps({"type": 9, "data": data})
    async with aiohttp.ClientSession() as session:
        headers = {"Content-Type": "application/json"}
        async with session.post(url, data=body, headers=headers) as response:
            text = await response.text()
            return response.status, json.loads(text) if text else None


def label(component: dict[str, Any], text: str = "Field") -> dict[str, Any]:
    return {"type": 18, "label": text, "component": component}


def text_input(custom_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": 4, "custom_id": custom_id, "style": 1, **extra}


def options(*values: str, default: str | None = None) -> list[dict[str, Any]]:
    return [{"label": v, "value": v, **({"default": True} if v == default else {})} for v in values]


async def test_the_modals_discord_refuses_to_open(fake_discord: FakeDiscord, connect_bot: Any) -> None:
    """Each modal breaks one rule and is refused with 400 / 50035 and the path of the field: the docs'
    rules that the description cannot carry, then the description's own; a valid one opens."""
    fake = fake_discord
    client = await connect_bot(discord.Client(intents=discord.Intents.default()))
    await client.http.bulk_upsert_global_commands(
        fake.application_id, [{"name": "form", "description": "A form"}]
    )
    opened = await fake.run_command(fake.user("alice"), "form")
    select = {"type": 3, "custom_id": "pick", "options": options("a", "b")}
    docs = [
        ([label(text_input(f"t{i}")) for i in range(6)], ["components"], "BASE_TYPE_BAD_LENGTH"),
        ([label(text_input("t")), label(text_input("t"))], ["components"], "COMPONENT_CUSTOM_ID_DUPLICATED"),
        ([label({**select, "disabled": True})], ["components", "0", "component", "disabled"], None),
        ([label({**select, "min_values": 0})], ["components", "0", "component", "min_values"], None),
        (
            [
                label(
                    {
                        "type": 21,
                        "custom_id": "r",
                        "options": [*options("a", default="a"), *options("b", default="b")],
                    }
                )
            ],
            ["components", "0", "component", "options"],
            "RADIO_GROUP_DEFAULTS_TOO_MANY",
        ),
        (
            [label(text_input("t", min_length=10, max_length=5))],
            ["components", "0", "component", "min_length"],
            None,
        ),
        (
            [label({"type": 22, "custom_id": "c", "max_values": 3, "options": options("a", "b")})],
            ["components", "0", "component", "max_values"],
            "SELECT_COMPONENT_MAX_VALUES_TOO_HIGH",
        ),
    ]
    description = [
        ([{"type": 1, "components": [select]}], ["components", "0"]),  # a select in a row: only in a label
        ([label(text_input("t"), "x" * 46)], ["components", "0", "label"]),
        (
            [label({"type": 21, "custom_id": "r", "options": options("a")})],
            ["components", "0", "component", "options"],
        ),
    ]
    cases = [(c, p, code) for c, p, code in docs] + [(c, p, None) for c, p in description]
    for components, path, code in cases:
        status, answer = await callback(
            fake, opened, {"custom_id": "m", "title": "Form", "components": components}
        )
        assert (status, answer["code"]) == (400, 50035), components
        node = answer["errors"]["data"]
        for part in path:
            node = node[part]
        if code is not None:
            assert node["_errors"][0]["code"] == code
        [rejection] = fake.take_rejections(50035)
        assert rejection.status == 400
    fake.description_violations.clear()
    assert not opened.acknowledged and fake.modals == []

    valid = [label(text_input("t")), label({"type": 23, "custom_id": "ok"}), {"type": 10, "content": "Hello"}]
    status, _ = await callback(fake, opened, {"custom_id": "m", "title": "Form", "components": valid})
    assert status == 204
    [(source, modal)] = fake.modals
    assert source is opened and [c["id"] for c in modal["components"]] == [1, 3, 5]
