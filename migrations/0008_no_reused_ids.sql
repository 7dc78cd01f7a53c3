-- 0008_no_reused_ids: an id once given to a submission or a run is never
-- given again.
--
-- Links name them (/submissions/{id}, "quoted from run #N", the run_ids
-- of /compare.csv, /runs?before=RUN), and a shared link must never come to
-- point at someone else's data. Without AUTOINCREMENT, SQLite gives a new
-- row max(id) + 1, which is the id of a newest row just deleted.
-- AUTOINCREMENT would mean rebuilding both tables, which the foreign keys,
-- triggers and full-text index of 0001-0007 make risky inside a migration
-- (with foreign keys on, dropping the old table cascades its deletes).
--
-- Instead this table keeps, per table, the highest id deleted (or held when
-- this migration ran: deletions before it are not known), and the store's
-- inserts give new rows an id above both it and every id the table holds
-- (store::submissions::fresh_id). Deletes are rare and inserts are many, so
-- the mark is raised on delete, leaving the insert path free of triggers.
CREATE TABLE id_high_water (
    tbl  TEXT PRIMARY KEY CHECK (tbl IN ('submissions', 'runs')),
    id   INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO id_high_water (tbl, id)
    VALUES ('submissions', (SELECT coalesce(max(id), 0) FROM submissions)),
           ('runs', (SELECT coalesce(max(id), 0) FROM runs));

-- Deleting a submission deletes its runs by ON DELETE CASCADE, which fires
-- the runs trigger as well.
CREATE TRIGGER submissions_delete_high_water AFTER DELETE ON submissions BEGIN
    UPDATE id_high_water SET id = max(id, OLD.id) WHERE tbl = 'submissions';
END;
CREATE TRIGGER runs_delete_high_water AFTER DELETE ON runs BEGIN
    UPDATE id_high_water SET id = max(id, OLD.id) WHERE tbl = 'runs';
END;
