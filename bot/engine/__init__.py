"""Pure rules engines: no discord, no asyncio, no I/O, no global random.

Every game's engine (``bot/games/<game>/engine.py``; this package holds what they share) has the same
shape, so storage, the service and the UI treat the games alike:

- ``KIND``: the game's name (its folder's name under ``bot/games/``);
- ``Options``: a frozen dataclass of table settings, with ``to_dict()`` / ``Options.from_dict()``;
- ``State.new(players, seed, options)``: a new game's state with the first round dealt (the class is
  ``State``, never ``Game``: a game is the plug-in of :mod:`bot.games.base`);
- ``game.legal_actions(seat)``, ``game.apply(seat, action) -> list[Event]`` (an illegal action raises a
  :class:`~bot.engine.errors.GameError` and leaves the state untouched), ``game.seats_to_act()``;
- ``game.view(seat | None)``: a JSON-safe dict with nothing hidden from that viewer;
- ``game.is_over``, ``game.results()``;
- ``game.to_dict()`` / ``State.from_dict()``, and ``replay(players, seed, options, actions)``;
- ``action_from_dict(d)`` / ``action.to_dict()``; ``event.to_dict()``.

:func:`bot.games.registry.get_engine` finds a kind's engine.
"""
