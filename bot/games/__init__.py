"""The games, one folder each (engine, computer players, panel, table text, picture, rules, terminal
game), each exporting one :class:`bot.games.base.Game`; :mod:`bot.games.registry` lists them."""
