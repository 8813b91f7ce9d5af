-- 0007: a thread per game (issue 40 item 3), chosen by a server's admins with /skybo settings threads.
-- NULL is the default: tables are played in the channel; 1: a game started from a lobby moves to a
-- thread of its own (a table's /<game> new thread: option overrides it). See docs/discord.md, "Threads".

ALTER TABLE server_settings ADD COLUMN threads INTEGER;
