-- 0005: a player's own choices (issue 28), whatever the server: direct messages when their turn comes
-- in a long game (/skybo notify), the card theme and the table as text (/skybo display).
-- One row per user who changed something; a user without a row uses the defaults. NULL is the default
-- everywhere: turn messages on, the classic cards, the table as a picture.

CREATE TABLE user_prefs (
    user_id         INTEGER PRIMARY KEY,
    notify          INTEGER,                 -- 0: no direct message when a long game's turn comes
    cards           TEXT,                    -- 'colourblind': cards with shapes besides colours
    table_view      TEXT,                    -- 'text': the table in words in the private panel
    locale          TEXT,                    -- the user's Discord language, as their last click or command
                                             -- said (a long game's direct messages use it); NULL: unknown
    updated_at      INTEGER NOT NULL
);
