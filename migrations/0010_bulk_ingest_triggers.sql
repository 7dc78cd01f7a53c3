-- 0010_bulk_ingest_triggers: no trigger fires per inserted run, attribute,
-- result, mail or quote; the data generation moves once per submission,
-- and the full-text index is written once per transaction.
--
-- Why: inside a transaction, an INSERT into a table with any trigger is a
-- statement that may write several rows and may abort (foreign keys), so
-- SQLite gives it a statement journal: a copy of every page it touches
-- that the transaction touched before. `benchlog ingest` stores many
-- submissions per transaction, so each result's insert copied most of the
-- pages it wrote. Measured on 2,000 result-heavy mails (scripts/
-- bench-ingest.sh, docs/performance.md): 13.9 s with these triggers, 7.2 s
-- without them.
--
-- The generation: rows of these tables are only ever inserted together
-- with their submission, in its transaction, and the submission's own
-- insert trigger (0005) already moves the generation. The one exception,
-- an attribute added to a stored run by an edit, writes a row of
-- run_edit_log (0009) first: that insert moves it now. Updates and
-- deletes keep their triggers (0005): they are one row at a time.
DROP TRIGGER IF EXISTS runs_insert_generation;
DROP TRIGGER IF EXISTS run_attrs_insert_generation;
DROP TRIGGER IF EXISTS mails_insert_generation;
DROP TRIGGER IF EXISTS run_quotes_insert_generation;
CREATE TRIGGER IF NOT EXISTS run_edit_log_insert_generation AFTER INSERT ON run_edit_log BEGIN
    UPDATE data_generation SET generation = generation + 1;
END;

-- The run's tool in its results and attributes (0007) is written by the
-- store's inserts (src/store/submissions.rs), the only writers of these
-- rows; the triggers that filled it for a writer leaving it out cost a
-- statement journal on the two largest tables. A run's tool is never
-- edited; runs_tool_copies (an UPDATE trigger) stays for that case.
DROP TRIGGER IF EXISTS results_tool_filled;
DROP TRIGGER IF EXISTS run_attrs_tool_filled;

-- The full-text index (0002) is written once per transaction instead of
-- once per submission. FTS5 writes out the terms it holds in memory at
-- every statement savepoint of a transaction it takes part in, and every
-- insert into submissions opened one (its triggers): in a transaction of
-- many submissions, each was written out alone and then merged again.
-- Writers now insert the submissions, then, before they commit, index all
-- those above `through` in one statement (store::index_new_submissions).
-- A writer that forgets leaves them unsearchable only until the next
-- writer's commit. Deleting or editing a submission not yet indexed has
-- nothing to take out of the index.
--
-- (IF EXISTS / IF NOT EXISTS: a database whose recorded version was set
-- back, as tests/store.rs does, applies this again.)
CREATE TABLE IF NOT EXISTS fts_indexed (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    through  INTEGER NOT NULL
);
INSERT OR IGNORE INTO fts_indexed (id, through) SELECT 1, coalesce(max(id), 0) FROM submissions;
DROP TRIGGER IF EXISTS submissions_fts_insert;
DROP TRIGGER IF EXISTS submissions_fts_delete;
DROP TRIGGER IF EXISTS submissions_fts_update;
CREATE TRIGGER IF NOT EXISTS submissions_fts_delete AFTER DELETE ON submissions
WHEN old.id <= (SELECT through FROM fts_indexed) BEGIN
    INSERT INTO submissions_fts (submissions_fts, rowid, source_name, author, subject, text)
    VALUES ('delete', old.id, old.source_name, old.author, old.subject, old.text);
END;
CREATE TRIGGER IF NOT EXISTS submissions_fts_update AFTER UPDATE ON submissions
WHEN old.id <= (SELECT through FROM fts_indexed) BEGIN
    INSERT INTO submissions_fts (submissions_fts, rowid, source_name, author, subject, text)
    VALUES ('delete', old.id, old.source_name, old.author, old.subject, old.text);
    INSERT INTO submissions_fts (rowid, source_name, author, subject, text)
    VALUES (new.id, new.source_name, new.author, new.subject, new.text);
END;
