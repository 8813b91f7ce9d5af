"""The games, one folder each (engine, computer players, panel, table text and words, picture, rules,
commands, strings, terminal game, bench), each exporting one :class:`bot.games.base.Game`;
:mod:`bot.games.registry` lists them, and everything per game is built from that list."""
