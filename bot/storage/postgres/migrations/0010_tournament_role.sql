-- 0010: the role a server's admins name to organise tournaments (issue 41). The PostgreSQL twin of
-- bot/storage/sqlite/migrations/0010_tournament_role.sql: NULL, only server managers organise.

ALTER TABLE server_settings ADD COLUMN tournament_role BIGINT;
