"""The Discord side: the one router of clicks and funnel of errors, click handlers, the one owner of
a click's answer, the surfaces of a channel (public messages, followed panels, mentions), component
payloads, button ids read back, the 3-second callback policy and the REST budget; and what the bot
shows of every game, reading the registry: leaderboards and stats cards, ``/history``, the places of
stored games, the table in words."""
