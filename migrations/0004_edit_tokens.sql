-- 0004_edit_tokens: who may change a submission.
--
-- An upload gets a random edit token, given once to the uploader; only its
-- SHA-256 is kept here, so the database never holds a token that works.
-- Submissions without a row (stored with `benchlog ingest`, or before this
-- table existed) can be changed only with the server's admin token.
CREATE TABLE IF NOT EXISTS edit_tokens (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
    -- Hex SHA-256 of the token.
    token_sha256  TEXT NOT NULL
);
