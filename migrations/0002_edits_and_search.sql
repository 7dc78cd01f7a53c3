-- 0002_edits_and_search: people's corrections of runs, the quote depth of
-- messages, and full-text search over submissions.

-- A label or attribute of a run that someone changed. The value in force
-- stays where every reader already looks (runs.label, run_attrs), so
-- comparisons group by the corrected value with their queries unchanged;
-- this table keeps what the parser had found, so the original stays
-- visible and the edit can be undone (write parsed_value back, delete the
-- row). One row per edited field: editing it again keeps the first
-- original.
CREATE TABLE run_edits (
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    -- 'label' (key is '') or 'attr' (key is the attribute).
    field        TEXT NOT NULL CHECK (field IN ('label', 'attr')),
    key          TEXT NOT NULL DEFAULT '',
    -- What the parser found; NULL when it found nothing (the edit added it).
    parsed_value TEXT,
    edited_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (run_id, field, key)
) WITHOUT ROWID;

-- 0 for the input's own message, 1 for one quoted once, ... (NULL for
-- messages stored before this column existed).
ALTER TABLE messages ADD COLUMN quote_depth INTEGER;

-- /submissions?q= searches source name, author, subject and the whole text.
-- An external-content index: the text is stored once, in submissions, and
-- the triggers keep the index in step with it.
CREATE VIRTUAL TABLE submissions_fts USING fts5(
    source_name, author, subject, text,
    content = 'submissions', content_rowid = 'id'
);
INSERT INTO submissions_fts (submissions_fts) VALUES ('rebuild');

CREATE TRIGGER submissions_fts_insert AFTER INSERT ON submissions BEGIN
    INSERT INTO submissions_fts (rowid, source_name, author, subject, text)
    VALUES (new.id, new.source_name, new.author, new.subject, new.text);
END;

CREATE TRIGGER submissions_fts_delete AFTER DELETE ON submissions BEGIN
    INSERT INTO submissions_fts (submissions_fts, rowid, source_name, author, subject, text)
    VALUES ('delete', old.id, old.source_name, old.author, old.subject, old.text);
END;

CREATE TRIGGER submissions_fts_update AFTER UPDATE ON submissions BEGIN
    INSERT INTO submissions_fts (submissions_fts, rowid, source_name, author, subject, text)
    VALUES ('delete', old.id, old.source_name, old.author, old.subject, old.text);
    INSERT INTO submissions_fts (rowid, source_name, author, subject, text)
    VALUES (new.id, new.source_name, new.author, new.subject, new.text);
END;

