"""Computer players: pure functions of one seat's view (never of hidden state) and a seeded generator.

Each game module exposes ``LEVELS: dict[str, Policy]`` with the levels ``easy``, ``normal`` and ``hard``,
where a policy is ``decide(view, rng) -> action`` for the seat named by ``view["viewer"]``.
"""
