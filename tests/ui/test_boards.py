"""Leaderboard pages, player cards and rating-change lines: words, numbers, ids, Discord's embed limits."""

from __future__ import annotations

from typing import Any

import pytest

from bot.render.names import escape_name
from bot.storage.ratings import HistoryEntry, LeaderboardPage, PlayerStats, RatingChange
from bot.storage.stats import KindOverview
from bot.ui import boards

LOCALES = ("en-US", "fr")


def _row(rank: int, player: str, name: str = "Alice", **kw: Any) -> PlayerStats:
    values: dict[str, Any] = {
        "kind": "skyjo",
        "scope": 7,
        "rank": rank,
        "player": player,
        "display_name": name,
        "mu": 30.0,
        "sigma": 2.0,
        "conservative": 24.0,
        "games": 12,
        "wins": 7,
        "round_count": 40,
        "round_sum": 600,
        "round_min": -4,
        "round_max": 41,
        "stats": {"columns_cleared": 9},
    }
    values.update(kw)
    return PlayerStats(**values)


def _history(n: int) -> list[HistoryEntry]:
    """``n`` games, newest first, the rating going up and down (no shown rating: mu - 3 sigma)."""
    entries = []
    mu, sigma = 25.0, 8.333
    for i in range(n):
        after_mu, after_sigma = mu + (1.5 if i % 3 else -1.0), sigma * 0.95
        entries.append(
            HistoryEntry(i + 1, 1 + i % 3, mu, sigma, after_mu, after_sigma, 1_700_000_000_000 + i)
        )
        mu, sigma = after_mu, after_sigma
    return list(reversed(entries))


def _limits(embed: dict[str, Any]) -> None:
    assert len(embed.get("title") or "") <= 256
    assert len(embed.get("description") or "") <= 4096
    assert len(embed.get("fields") or []) <= 25
    for fld in embed.get("fields") or []:
        assert fld["name"] and fld["value"]
        assert len(fld["name"]) <= 256 and len(fld["value"]) <= 1024
    assert len((embed.get("footer") or {}).get("text") or "") <= 2048
    assert boards.embed_size(embed) <= 6000


# ---------------------------------------------------------------------------------- custom ids


def test_board_ids_round_trip_and_forgeries_are_refused() -> None:
    cid = boards.board_id("skyjo", "server", 2)
    assert cid == "lb:skyjo:server:2"
    assert boards.parse_board_id(cid) == boards.BoardId("skyjo", "server", 2)
    assert boards.parse_board_id("lb:skipbo:global:999999") == boards.BoardId("skipbo", "global", 999999)
    for forged in (
        "lb:skyjo:server:0",
        "lb:skyjo:server:-1",
        "lb:skyjo:server:01",
        "lb:skyjo:server:1000000",
        "lb:chess:server:1",
        "lb:skyjo:guild:1",
        "lb:skyjo:server:1:x",
        "lb:skyjo:server:1\n",
        " lb:skyjo:server:1",
        "lb:skyjo:server:",
        "lb:skyjo:server:１",  # a full-width digit
        "sk:1:2:tk:3",
        "",
        "lb:" + "9" * 200,
        None,
        12,
    ):
        assert boards.parse_board_id(forged) is None, forged
    with pytest.raises(ValueError):
        boards.board_id("skyjo", "server", 0)


@pytest.mark.parametrize("locale", LOCALES)
def test_paging_buttons(locale: str) -> None:
    assert boards.paging_buttons("skyjo", "server", 1, 1, locale) == []
    first = boards.paging_buttons("skyjo", "server", 1, 3, locale)
    assert [b["custom_id"] for b in first] == ["lb:skyjo:server:1", "lb:skyjo:server:2"]
    assert [b["disabled"] for b in first] == [True, False]
    middle = boards.paging_buttons("skyjo", "global", 2, 3, locale)
    assert [b["custom_id"] for b in middle] == ["lb:skyjo:global:1", "lb:skyjo:global:3"]
    assert not any(b["disabled"] for b in middle)
    last = boards.paging_buttons("skipbo", "server", 3, 3, locale)
    assert [b["custom_id"] for b in last] == ["lb:skipbo:server:2", "lb:skipbo:server:3"]
    assert [b["disabled"] for b in last] == [False, True]
    for buttons in (first, middle, last):
        assert len({b["custom_id"] for b in buttons}) == 2  # Discord refuses duplicate ids
        assert all(b["label"] and len(b["label"]) <= 80 for b in buttons)
    labels = [b["label"] for b in first]
    assert labels == (["◀ Précédent", "Suivant ▶"] if locale == "fr" else ["◀ Previous", "Next ▶"])


# ---------------------------------------------------------------------------------- formatting


def test_numbers_follow_the_language() -> None:
    assert boards.number(27.345, "en-US") == "27.3"
    assert boards.number(27.345, "fr") == "27,3"
    assert boards.number(-0.04, "en") == "0.0"  # never -0.0
    assert boards.signed(2.26, "en") == "+2.3"
    assert boards.signed(-1.0, "fr") == "-1,0"
    assert boards.signed(0.0, "en") == "+0.0"
    assert boards.percent(7, 12, "en") == "58%"
    assert boards.percent(7, 12, "fr") == "58 %"
    assert boards.percent(0, 0, "en") == "0%"
    assert [boards.plural(n, "en") for n in (0, 1, 2)] == ["other", "one", "other"]
    assert [boards.plural(n, "fr") for n in (0, 1, 2)] == ["one", "one", "other"]


def test_sparkline_and_trend() -> None:
    assert boards.sparkline([]) == ""
    assert boards.sparkline([1.0, 1.0, 1.0]) == "▄▄▄"
    assert boards.sparkline([0.0, 7.0, 1.0, 3.0]) == "▁█▂▄"
    history = _history(10)
    values = boards.trend_values(history)
    assert len(values) == 11
    oldest = history[-1]
    assert values[0] == pytest.approx(oldest.mu_before - 3 * oldest.sigma_before)
    assert values[-1] == pytest.approx(history[0].mu_after - 3 * history[0].sigma_after)
    line = boards.trend_line(history, "en")
    assert line is not None and line.startswith("Last 10 games: +")
    assert len(line.split()[-1]) == 11 and set(line.split()[-1]) <= set(boards.SPARK_BLOCKS)
    one = boards.trend_line(history[:1], "fr")
    assert one is not None and one.startswith("Dernière partie : ")
    assert boards.trend_line([], "en") is None


def test_names_are_mentions_computers_or_escaped_text() -> None:
    assert boards.player_name("user:42", "Alice", "en") == "<@42>"
    assert boards.player_name("user:42", "**Al_ice**", "en", mention=False) == r"\*\*Al\_ice\*\*"
    assert boards.player_name("ai:hard", "whatever", "en") == "Computer (hard)"
    assert boards.player_name("ai:easy", "whatever", "fr") == "Ordinateur (facile)"
    assert boards.player_name("user:42", "x" * 200, "en", mention=False).endswith("…")
    assert boards.player_name("user:42", "a\nb  <@1>", "en", mention=False) == escape_name("a b  <@1>")


# Display names chosen to break a message: mentions, a link, a heading, a spoiler, a role mention,
# and a right-to-left override that would reverse the text after it.
HOSTILE = ("@everyone", "[link](https://x.example)", "# Heading", "||x||", "<@&1>", "\u202eevil")


def _inert(text: str) -> None:
    """Nothing in ``text`` is live Discord markup: every mention, link, heading or spoiler character
    is escaped with a backslash, and no direction override is left."""
    assert "\u202e" not in text
    for at, char in enumerate(text):
        if char in "@<>[]|#":
            assert at > 0 and text[at - 1] == "\\", (char, text)


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("locale", LOCALES)
def test_hostile_names_are_inert_everywhere(name: str, locale: str) -> None:
    # names.py owns the exact escaping; what matters here is that every place uses it.
    escaped = escape_name(name)
    assert escaped != name
    # The end-of-game lines, with the name the table gives (raw) and with the stored one.
    change = RatingChange(0, "user:1", name, 2, 25.0, 8.333, 24.0, 8.0, 0.0, -1.0)
    for names in ({"user:1": name}, {}):
        (line,) = boards.rating_change_lines([change], names, locale)
        assert line.startswith(escaped), line
        _inert(line)
    # The global board (stored names) and the stats card's title.
    page = LeaderboardPage("skyjo", 0, 0, boards.PER_PAGE, 1, [_row(1, "user:1", name)])
    board = boards.leaderboard_body(page, "global", locale).embed
    assert board is not None and escaped in board["description"]
    _inert(board["description"])
    card = boards.stats_body(name, [_overview()], "server", locale).embed
    assert card is not None and card["title"].endswith(escaped)
    _inert(card["title"])


# ---------------------------------------------------------------------------------- rating changes


def test_rating_change_lines_pick_the_server_board_and_order_by_place() -> None:
    changes = [
        RatingChange(0, "user:1", "Alice", 1, 25.0, 8.333, 27.0, 7.9),
        RatingChange(0, "user:2", "Bob", 2, 25.0, 8.333, 23.0, 7.9),
        RatingChange(9, "user:2", "Bob", 2, 25.0, 8.333, 22.5, 7.8),
        RatingChange(9, "user:1", "Alice", 1, 25.0, 8.333, 27.5, 7.8),
        RatingChange(9, "ai:hard", "Computer 1 (hard)", 3, 30.0, 5.0, 29.0, 4.9),
    ]
    names = {"user:1": "Alice", "user:2": "Bob"}
    lines = boards.rating_change_lines(changes, names, "en")
    assert lines == [  # changes without a shown rating (built by hand) show mu - 3 sigma
        "Alice: 0.0 → 4.1 (+4.1)",
        "Bob: 0.0 → -0.9 (-0.9)",
        "Computer (hard): 15.0 → 14.3 (-0.7)",
    ]
    global_lines = boards.rating_change_lines(changes, names, "fr", scope=0)
    assert len(global_lines) == 2 and global_lines[0].startswith("Alice : ") and "," in global_lines[0]
    by_mean = boards.rating_change_lines(changes, names, "en", measure="mu")
    assert by_mean[0] == "Alice: 25.0 → 27.5 (+2.5)"
    only_global = [c for c in changes if c.scope == 0]
    assert boards.rating_change_lines(only_global, {}, "en")[1].startswith("Bob: ")  # stored name
    assert boards.rating_change_lines([], names, "en") == []


@pytest.mark.parametrize(
    ("locale", "expected"), [("en", "Bob: 3.2 → 3.2 (+0.0)"), ("fr", "Bob : 3,2 → 3,2 (+0,0)")]
)
def test_a_loser_line_shows_the_shown_rating_not_the_estimate(locale: str, expected: str) -> None:
    """Second place: openskill raised Bob's mu - 3 sigma (3.2 -> 4.9), the shown rating stays."""
    bob = RatingChange(0, "user:2", "Bob", 2, 28.0, 8.27, 29.0, 8.03, 3.2, 3.2)
    assert bob.conservative_after > bob.conservative_before  # what the old line showed
    assert boards.rating_change_lines([bob], {"user:2": "Bob"}, locale) == [expected]


@pytest.mark.parametrize("locale", LOCALES)
def test_footers_explain_the_rating(locale: str) -> None:
    page = LeaderboardPage("skyjo", 7, 0, boards.PER_PAGE, 1, [_row(1, "user:5")])
    board = boards.leaderboard_body(page, "server", locale).embed
    card = boards.stats_body("Alice", [_overview()], "server", locale).embed
    assert board is not None and card is not None
    if locale == "fr":
        assert "une victoire ne fait jamais baisser la cote" in board["footer"]["text"]
        assert "toute autre place ne la fait jamais monter" in card["footer"]["text"]
    else:
        assert "a win never lowers a rating, any other place never raises it" in board["footer"]["text"]
        assert "a win never lowers it and any other place never raises it" in card["footer"]["text"]


# ---------------------------------------------------------------------------------- the board


@pytest.mark.parametrize("locale", LOCALES)
def test_a_full_page_of_long_names_fits(locale: str) -> None:
    rows = [
        _row(i + 1, f"user:{10**17 + i}", "W" * 32, conservative=1000.0 - i, games=999_999, wins=999_998)
        for i in range(boards.PER_PAGE - 1)
    ]
    rows.append(_row(10, "ai:normal", "C", conservative=-12.3))
    page = LeaderboardPage("skipbo", 7, 4, boards.PER_PAGE, 100_000, rows)
    for scope in boards.SCOPES:
        body = boards.leaderboard_body(page, scope, locale)
        assert body.embed is not None
        _limits(body.embed)
        text = body.embed["description"]
        assert text.count("\n") == boards.PER_PAGE - 1
        assert ("<@100000000000000000>" in text) == (scope == "server")
        assert ("W" * 32 in text) == (scope == "global")
        assert ("Ordinateur (normal)" if locale == "fr" else "Computer (normal)") in text
        assert "-12" in text
        assert "Page 5" in body.embed["footer"]["text"] and "10000" in body.embed["footer"]["text"]
        ids = [b["custom_id"] for b in body.extra["buttons"]]
        assert ids == [f"lb:skipbo:{scope}:4", f"lb:skipbo:{scope}:6"]


def test_board_words_in_english_and_french() -> None:
    rows = [_row(1, "user:5", games=5, wins=1), _row(2, "user:6", games=6, wins=0, conservative=3.25)]
    page = LeaderboardPage("skyjo", 7, 0, boards.PER_PAGE, 2, rows)
    en = boards.leaderboard_body(page, "server", "en-GB").embed
    fr = boards.leaderboard_body(page, "server", "fr").embed
    assert en is not None and fr is not None
    assert en["title"] == "Skyjo leaderboard — this server"
    assert fr["title"] == "Classement Skyjo — ce serveur"
    assert en["description"].splitlines() == [
        "🥇 <@5> — **24.0** · 5 games · 1 win",
        "🥈 <@6> — **3.2** · 6 games · 0 wins",
    ]
    assert fr["description"].splitlines()[1] == "🥈 <@6> — **3,2** · 6 parties · 0 victoire"
    # Fewer than five rated games: provisional, no figure (issue 38 item 10).
    newcomer = LeaderboardPage("skyjo", 7, 0, boards.PER_PAGE, 1, [_row(1, "user:5", games=1, wins=0)])
    shown = boards.leaderboard_body(newcomer, "server", "fr").embed
    assert shown is not None and shown["description"] == "🥇 <@5> — **provisoire** · 1 partie · 0 victoire"
    assert boards.leaderboard_body(page, "server", "en").extra["buttons"] == []  # one page


@pytest.mark.parametrize("locale", LOCALES)
def test_empty_board_says_so(locale: str) -> None:
    body = boards.leaderboard_body(LeaderboardPage("skipbo", 0, 0, 10, 0, []), "global", locale)
    assert body.embed is not None
    _limits(body.embed)
    assert "Skip-Bo" in body.embed["description"]
    expected = "Aucune partie" if locale == "fr" else "No rated Skip-Bo game"
    assert expected in body.embed["description"]
    assert body.extra["buttons"] == []


# ---------------------------------------------------------------------------------- a player's card


def _overview(kind: str = "skyjo", *, played: bool = True, history: int = 10) -> KindOverview:
    if not played:
        return KindOverview(kind, 7, None, 3, [], None, None)
    stats = _row(3, "user:5", kind=kind, scope=7)
    return KindOverview(kind, 7, stats, 41, _history(history), 12, 47.3)


@pytest.mark.parametrize("locale", LOCALES)
def test_stats_card(locale: str) -> None:
    body = boards.stats_body("Alice", [_overview(), _overview("skipbo", played=False)], "server", locale)
    embed = body.embed
    assert embed is not None
    _limits(embed)
    assert [f["name"] for f in embed["fields"]] == ["Skyjo"]  # kinds without a game are left out
    value = embed["fields"][0]["value"]
    if locale == "fr":
        assert embed["title"] == "Statistiques — Alice"
        assert "Parties : **12** · victoires : **7** (58 %)" in value
        assert "Cote : **24,0** · rang 3 sur 41" in value
        assert "10 dernières parties : " in value
        assert "Manches : 40 · meilleure -4 · moyenne 15,0" in value
        assert "Totaux finaux : meilleur 12 · moyenne 47,3" in value
        assert "Colonnes éliminées : 9" in value
    else:
        assert embed["title"] == "Stats — Alice"
        assert "Games: **12** · wins: **7** (58%)" in value
        assert "Rating: **24.0** · rank 3 of 41" in value
        assert "Last 10 games: " in value
        assert "Rounds: 40 · best -4 · mean 15.0" in value
        assert "Final totals: best 12 · mean 47.3" in value
        assert "Columns cleared: 9" in value
    assert "<t:1700000000:R>" in value
    assert "🥇" in value


def test_trend_follows_the_shown_rating() -> None:
    history = [  # newest first: a win to 6.0, a loss held at 2.0 though mu - 3 sigma rose
        HistoryEntry(2, 1, 26.0, 7.5, 28.0, 7.0, 2_000, 2.0, 7.0),
        HistoryEntry(1, 2, 25.0, 8.333, 26.0, 7.5, 1_000, 2.0, 2.0),
    ]
    assert boards.trend_values(history) == [2.0, 2.0, 7.0]
    assert boards.trend_line(history, "en") == "Last 2 games: +5.0 ▁▁█"


@pytest.mark.parametrize("locale", LOCALES)
def test_skipbo_card_shows_only_figures_that_mean_something(locale: str) -> None:
    """A one-round Skip-Bo game scores 0 for everybody: no "best 0 · mean 0.0" rounds or totals,
    but the stock cards left at the end of a round; Skyjo's card keeps its round figures."""
    stats = _row(
        2,
        "user:5",
        kind="skipbo",
        round_count=4,
        round_sum=0,
        round_min=0,
        round_max=0,
        stats={"stock_left": 10},
    )
    skipbo = KindOverview("skipbo", 7, stats, 5, _history(4), 0, 0.0)
    embed = boards.stats_body("Alice", [_overview("skyjo"), skipbo], "server", locale).embed
    assert embed is not None
    _limits(embed)
    skyjo_value, skipbo_value = (f["value"] for f in embed["fields"])
    if locale == "fr":
        assert "Parties : **12** · victoires : **7** (58 %)" in skipbo_value
        assert "Cartes restées dans le stock en fin de manche : 2,5 en moyenne" in skipbo_value
        banned = ("Manches", "Totaux", "meilleur", "moyenne 0", "Colonnes")
        assert "Manches : 40" in skyjo_value and "Totaux finaux" in skyjo_value
    else:
        assert "Games: **12** · wins: **7** (58%)" in skipbo_value
        assert "Stock cards left at the end of a round: 2.5 on average" in skipbo_value
        banned = ("Rounds", "totals", "best", "mean 0", "Columns")
        assert "Rounds: 40" in skyjo_value and "Final totals" in skyjo_value
    for word in banned:
        assert word not in skipbo_value, word
    assert "Stock" not in skyjo_value and "stock" not in skyjo_value


@pytest.mark.parametrize("locale", LOCALES)
def test_stats_card_without_games_and_at_its_largest(locale: str) -> None:
    empty = boards.stats_body(
        "Bob", [_overview(played=False), _overview("skipbo", played=False)], "global", locale
    )
    assert empty.embed is not None
    assert empty.embed["fields"] == []
    assert ("Aucune partie classée" if locale == "fr" else "No rated game yet") in empty.embed["description"]
    big = boards.stats_body(
        "N" * 300, [_overview(history=10), _overview("skipbo", history=10)], "global", locale
    )
    assert big.embed is not None
    _limits(big.embed)
    assert len(big.embed["fields"]) == 2


@pytest.mark.parametrize("locale", LOCALES)
def test_a_board_without_computers_says_so_and_its_buttons_keep_the_choice(locale: str) -> None:
    rows = [_row(11, f"user:{i}", conservative=50.0 - i) for i in range(boards.PER_PAGE)]
    page = LeaderboardPage("skyjo", 0, 1, boards.PER_PAGE, 35, rows)
    body = boards.leaderboard_body(page, "global", locale, computers=False)
    assert body.embed is not None
    _limits(body.embed)
    footer = body.embed["footer"]["text"]
    hidden = "Joueurs ordinateurs masqués" if locale == "fr" else "Computer players hidden"
    assert footer.startswith(hidden) and ("Page 2 sur 4" if locale == "fr" else "Page 2 of 4") in footer
    ids = [b["custom_id"] for b in body.extra["buttons"]]
    assert ids == ["lb:skyjo:global:1:h", "lb:skyjo:global:3:h"]
    assert [boards.parse_board_id(i) for i in ids] == [
        boards.BoardId("skyjo", "global", 1, computers=False),
        boards.BoardId("skyjo", "global", 3, computers=False),
    ]
    shown = boards.leaderboard_body(page, "global", locale)
    assert shown.embed is not None and hidden not in shown.embed["footer"]["text"]
    assert [b["custom_id"] for b in shown.extra["buttons"]] == ["lb:skyjo:global:1", "lb:skyjo:global:3"]


@pytest.mark.parametrize(
    ("custom_id", "parsed"),
    [
        ("lb:skyjo:server:2", boards.BoardId("skyjo", "server", 2)),  # a button from before the choice
        ("lb:skipbo:global:7:h", boards.BoardId("skipbo", "global", 7, computers=False)),
        ("lb:skyjo:server:2:x", None),
        ("lb:skyjo:server:2:h:h", None),
        ("lb:skyjo:server:2:H", None),
        ("lb:skyjo:server:h", None),
    ],
)
def test_board_ids_with_and_without_the_choice(custom_id: str, parsed: boards.BoardId | None) -> None:
    assert boards.parse_board_id(custom_id) == parsed
    if parsed is not None:
        assert parsed.encode() == custom_id
