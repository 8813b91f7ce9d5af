"""A game's ``new`` as data: the options a table is opened with, their bounds, choices and words, and
how what a player gave becomes the table's options.

A game declares one :class:`NewTable` (in ``bot/games/<game>/options.py``): its own options, in the
order Discord lists them, then the ones every game shares (:data:`SHARED`: the computer players, their
level, the turn limit and the thread) that it offers, and fixed values for those it does not. The ui
builds ``/<game> new`` from it (``bot/ui/new_command.py``), and the lobby's set-up form from the same
data (``bot/ui/setup_form.py``): :attr:`NewTable.form` is its pages, so an option declared here is in
both. Each option's words are catalogue keys (``name_key``, ``description_key``, a choice's ``key``,
and the form's :attr:`TableOption.label_key`), their English the text Discord shows by default.

The form (issue 49): a Discord modal holds at most :data:`MAX_FORM_FIELDS` components, one per option,
except that a page's yes-or-no options share one (a group of check boxes: :class:`FormField`). When
every option fits one modal, the form is one page; else the game names the options its first page
holds (:attr:`NewTable.form_first`, the common ones: "Set up…") and the rest make the second ("More
options…"). A declaration whose form would need more, or drop an option, is refused when it is made.

The checks: Discord lets a player give only the declared values (an option's ``bounds`` or
``choices``); the table service checks every value again whatever a client sends, against the same
declaration (:attr:`NewTable.ranges` is the game's ``option_ranges``; the shared lists are held equal to
the service's by a test), and then the engine checks the options together. So a value is refused with
the same localized reason whichever way it came. Pure data: nothing of discord, the service or the ui.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

Value = int | bool | str


@dataclass(frozen=True, slots=True)
class Choice:
    """One value a player picks from a list: ``name`` is its English, ``key`` its catalogue key."""

    value: int | str
    name: str
    key: str


@dataclass(frozen=True, slots=True)
class TableOption:
    """One option of ``/<game> new``. ``name`` is Discord's option name and the engine option's (or the
    shared setting's) name, and its English; ``default`` None means "not given": the engine (or the
    server's setting) decides, and the option is left out of what is given to it."""

    name: str
    type: type[Value]  # int, bool or str
    default: Value | None
    description: str  # English: what Discord shows without a localization
    name_key: str  # catalogue key of the localized name (``cmd.<game>.new.opt.<short name>``)
    description_key: str  # catalogue key of the localized description
    bounds: tuple[int, int] | None = None  # an integer's least and most, both allowed
    choices: tuple[Choice, ...] = ()  # the values allowed, in the order they are offered

    @property
    def label_key(self) -> str:
        """Catalogue key of the option's name in the set-up form (words, at most 45 characters)."""
        return f"{self.name_key}.label"

    def allows(self, value: object) -> bool:
        """True when ``value`` is one the declaration offers (its type, bounds or choices)."""
        if type(value) is not self.type:
            return False
        if self.choices:
            return any(choice.value == value for choice in self.choices)
        if self.bounds is not None:
            least, most = self.bounds
            return least <= value <= most  # type: ignore[operator]  # an int: checked above
        return True

    def __post_init__(self) -> None:
        if self.type not in (int, bool, str):
            raise TypeError(f"option {self.name}: {self.type!r} is not int, bool or str")
        if self.bounds is not None and self.type is not int:
            raise TypeError(f"option {self.name}: bounds are for an integer")
        if any(type(choice.value) is not self.type for choice in self.choices):
            raise TypeError(f"option {self.name}: a choice is not a {self.type.__name__}")


# The options every game's ``new`` may offer (``NewTable.shared``), in this order after its own.
COMPUTERS, LEVEL, TURN_LIMIT, THREAD = "computers", "level", "turn_limit", "thread"
SHARED = (COMPUTERS, LEVEL, TURN_LIMIT, THREAD)
LEVELS = (  # the computer players' levels: the registry's AI_LEVELS (a test holds them equal)
    Choice("easy", "easy", "cmd.level.easy"),
    Choice("normal", "normal", "cmd.level.normal"),
    Choice("hard", "hard", "cmd.level.hard"),
)
# Exactly the service's TURN_LIMITS (a test holds them equal): Discord offers nothing the table refuses.
# A long game from an hour (bot.service.letters): 16 choices of Discord's 25.
TURN_LIMITS = (
    Choice(0, "no limit", "cmd.turn_limit.off"),
    Choice(30, "30 s", "cmd.turn_limit.30"),
    Choice(45, "45 s", "cmd.turn_limit.45"),
    Choice(60, "1 min", "cmd.turn_limit.60"),
    Choice(90, "90 s", "cmd.turn_limit.90"),
    Choice(120, "2 min (default)", "cmd.turn_limit.120"),
    Choice(180, "3 min", "cmd.turn_limit.180"),
    Choice(300, "5 min", "cmd.turn_limit.300"),
    Choice(600, "10 min", "cmd.turn_limit.600"),
    Choice(900, "15 min", "cmd.turn_limit.900"),
    Choice(3600, "1 hour (long game: a direct message at your turn)", "cmd.turn_limit.3600"),
    Choice(7200, "2 hours (long game)", "cmd.turn_limit.7200"),
    Choice(14400, "4 hours (long game)", "cmd.turn_limit.14400"),
    Choice(28800, "8 hours (long game)", "cmd.turn_limit.28800"),
    Choice(43200, "12 hours (long game)", "cmd.turn_limit.43200"),
    Choice(86400, "24 hours (long game)", "cmd.turn_limit.86400"),
)
# The turn limit as ``/skybo settings`` and a tournament offer it too (None: the server's default).
TURN_LIMIT_OPTION = TableOption(
    TURN_LIMIT,
    int,
    None,
    "Time per turn before the computer plays it (default: the server's, else 2 min)",
    "cmd.opt.turn_limit",
    "cmd.opt.turn_limit.description",
    choices=TURN_LIMITS,
)


def _shared(max_players: int) -> dict[str, TableOption]:
    """The shared options for a game of at most ``max_players``: the host holds a seat, the computer
    players may take every other one."""
    return {
        COMPUTERS: TableOption(
            COMPUTERS,
            int,
            0,
            "How many computer players sit at the table",
            "cmd.opt.computers",
            "cmd.new.computers",
            bounds=(0, max_players - 1),
        ),
        LEVEL: TableOption(
            LEVEL,
            str,
            "normal",
            "How well the computer players play",
            "cmd.opt.level",
            "cmd.new.level",
            choices=LEVELS,
        ),
        TURN_LIMIT: TURN_LIMIT_OPTION,
        # A thread per game (docs/discord.md, "Threads"): not given, the server's /skybo settings threads.
        THREAD: TableOption(
            THREAD,
            bool,
            None,
            "Play the game in a thread of its own (default: the server's setting)",
            "cmd.opt.thread",
            "cmd.new.thread",
        ),
    }


@dataclass(frozen=True, slots=True)
class TableOptions:
    """What a new table is opened with: the engine's options and the shared settings. ``turn_limit``
    None is the server's default, ``thread`` None the server's setting (``/skybo settings``)."""

    options: dict[str, Any]  # the game's own, for the engine (one not given and without default: left out)
    computers: int
    level: str
    turn_limit: int | None
    thread: bool | None


MAX_FORM_FIELDS = 5  # Discord's: a modal holds 1 to 5 components
MAX_SWITCHES = 10  # Discord's: a checkbox group holds 1 to 10 options


@dataclass(frozen=True, slots=True)
class FormField:
    """One component of the set-up form: one option, or a page's yes-or-no options together (its
    ``switches``: a group of check boxes, one for each)."""

    options: tuple[TableOption, ...]

    @property
    def switches(self) -> bool:
        return all(option.type is bool for option in self.options)


def _fields(options: list[TableOption]) -> tuple[FormField, ...]:
    """A page's components, in the options' order: each option its own, the yes-or-no ones together
    where the first of them stands."""
    switches = tuple(o for o in options if o.type is bool)
    fields = []
    for option in options:
        if option.type is not bool:
            fields.append(FormField((option,)))
        elif option is switches[0]:
            fields.append(FormField(switches))
    return tuple(fields)


@dataclass(frozen=True, slots=True)
class NewTable:
    """A game's ``new``: ``options`` its own, in Discord's order; ``shared`` which of :data:`SHARED` it
    offers after them; ``fixed`` the value of a shared one it does not offer (else that one's default);
    ``form_first`` the options of the set-up form's first page, in its order, when they do not all fit
    one (see the module docstring)."""

    max_players: int  # the game's: the computer players' bound
    options: tuple[TableOption, ...] = ()
    shared: tuple[str, ...] = SHARED
    fixed: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    form_first: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not set(self.shared) <= set(SHARED) or set(self.fixed) & set(self.shared):
            raise ValueError(f"shared options are among {SHARED}, and a fixed one is not offered")
        if {o.name for o in self.options} & set(SHARED):
            raise ValueError("a game's own option has the name of a shared one")
        if not set(self.form_first) <= {o.name for o in self.declared}:
            raise ValueError(f"the form's first page names an option not offered: {self.form_first}")
        pages = self.form
        shown = [o.name for page in pages for f in page for o in f.options]
        if sorted(shown) != sorted(o.name for o in self.declared):  # none dropped, none twice
            raise ValueError(f"the set-up form holds {shown}, not every option once")
        for page in pages:
            if len(page) > MAX_FORM_FIELDS or any(len(f.options) > MAX_SWITCHES for f in page):
                raise ValueError(f"a page of the set-up form holds {len(page)} components (5 at most)")

    @property
    def form(self) -> tuple[tuple[FormField, ...], ...]:
        """The set-up form's pages (see the module docstring): one when every option fits a modal,
        else :attr:`form_first`'s options, then the rest in Discord's order."""
        declared = list(self.declared)
        whole = _fields(declared)
        if len(whole) <= MAX_FORM_FIELDS:
            return (whole,)
        by_name = {o.name: o for o in declared}
        first = _fields([by_name[name] for name in self.form_first])
        rest = _fields([o for o in declared if o.name not in self.form_first])
        return (first, rest) if first else (rest,)

    @property
    def declared(self) -> tuple[TableOption, ...]:
        """Every option offered, in Discord's order: the game's own, then the shared ones it offers."""
        shared = _shared(self.max_players)
        return (*self.options, *(shared[name] for name in SHARED if name in self.shared))

    @property
    def ranges(self) -> dict[str, tuple[int, int]]:
        """The bounds of the game's own integer options: the ``option_ranges`` the service checks."""
        return {o.name: o.bounds for o in self.options if o.bounds is not None}

    def table_options(self, given: Mapping[str, Any]) -> TableOptions:
        """The table's options from what was ``given`` (option name -> value; an option left out is
        its default), unchecked: the service checks them, so the refusals are the same however a
        table is asked for. Anything given that the game does not offer is ignored."""
        own = {o.name: given.get(o.name, o.default) for o in self.options}
        shared: dict[str, Any] = {name: option.default for name, option in _shared(self.max_players).items()}
        shared |= dict(self.fixed)
        shared |= {name: given.get(name, shared[name]) for name in self.shared}
        return TableOptions(
            options={name: value for name, value in own.items() if value is not None},
            computers=shared[COMPUTERS],
            level=shared[LEVEL],
            turn_limit=shared[TURN_LIMIT],
            thread=shared[THREAD],
        )

    def given(self, table: TableOptions) -> dict[str, Value | None]:
        """What a player would give for ``table`` (a lobby's options): every offered option's value,
        the inverse of :meth:`table_options`. An engine's value the declaration does not offer (the
        engine's "official size" for an option not given) reads as its default."""
        shared: dict[str, Any] = {
            COMPUTERS: table.computers,
            LEVEL: table.level,
            TURN_LIMIT: table.turn_limit,
            THREAD: table.thread,
        }
        values: dict[str, Value | None] = {}
        for option in self.declared:
            value = shared[option.name] if option.name in shared else table.options.get(option.name)
            values[option.name] = value if option.allows(value) else option.default
        return values
