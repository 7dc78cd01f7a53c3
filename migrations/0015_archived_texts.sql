-- 0015_archived_texts: messages of a public-inbox import whose text the
-- archive keeps, not the database.
--
-- Why: a list's whole history is mostly prose. Stored in full, every
-- message's text and its full-text index cost about 6–11 KB a message
-- (measured on generated archives, docs/performance.md): 31–56 GB for a
-- list of 5 million. A message that holds no run and no near miss, and
-- answers none, is stored with its header block only (From, Date,
-- Subject, Message-ID, In-Reply-To, References: what finds it, threads
-- it and attributes the text quoting it) and a row here saying where the
-- archive keeps the rest.
--
-- archive: the archive's canonical path (archive_marks.archive);
-- epoch, blob: the git/N.git repository and the blob holding the raw
-- message (its SHA-256 is mails.raw_sha256, so a rewritten archive is
-- told from the one read); text_bytes: the length of the text left out.
-- wanted: 1 once a message holding runs or near misses is stored that
-- answers this one (its thread context): the import brings its text
-- back from the archive and the row goes.
CREATE TABLE IF NOT EXISTS archived_texts (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
    archive       TEXT NOT NULL,
    epoch         INTEGER NOT NULL,
    blob          TEXT NOT NULL,
    text_bytes    INTEGER NOT NULL,
    wanted        INTEGER NOT NULL DEFAULT 0 CHECK (wanted IN (0, 1))
);
CREATE INDEX IF NOT EXISTS archived_texts_wanted ON archived_texts (archive, submission_id)
WHERE wanted = 1;
