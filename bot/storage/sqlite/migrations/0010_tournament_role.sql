-- 0010: the role a server's admins name to organise tournaments (issue 41: "Manage Server, or a role
-- the admins name"), chosen with /skybo settings tournament_role. NULL is the default: only members
-- who may manage the server organise. See docs/discord.md, "Tournaments".

ALTER TABLE server_settings ADD COLUMN tournament_role INTEGER;
