-- 0009_pinned_links: what a comparison pinned to a submission
-- (/compare?...&asof=N) needs to keep showing the data as it stood.
--
-- Submission ids only grow (0008), so "the runs of submissions up to N" is
-- a plain condition. Corrections are another matter: run_edits keeps only
-- what the parser found, and the value in force is overwritten in place
-- (runs.label, run_attrs), so the value a field had at an earlier moment
-- is lost, and nothing says when an edit happened relative to the
-- submissions. This log keeps every correction from now on, stamped with
-- the newest submission id given out at that moment.
--
-- The rule (README, "Pinned links"): a link pinned to N shows the runs of
-- submissions up to N with each field as it stood when the next submission
-- after N was stored. A correction stamped N or lower is in the pin (made
-- before or while N was the newest); a later one is not: the pinned value
-- is the old_value of the field's first logged correction stamped above
-- N, or the value in force when there is none. Corrections made before
-- this migration have no log rows and so count for every pin (no pinned
-- link existed before it). Deleting a submission removes its runs from
-- pinned links too; deleted_submissions lets a pinned page say so.

CREATE TABLE IF NOT EXISTS run_edit_log (
    seq              INTEGER PRIMARY KEY,
    run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    -- As in run_edits: 'label' (key is '') or 'attr' (key is the attribute).
    field            TEXT NOT NULL CHECK (field IN ('label', 'attr')),
    key              TEXT NOT NULL DEFAULT '',
    -- The value before and after the correction; NULL is "none".
    old_value        TEXT,
    new_value        TEXT,
    -- The newest submission id given out when the correction was made
    -- (deleted ones included, as for new ids: see 0008).
    after_submission INTEGER NOT NULL,
    edited_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
-- A pinned comparison looks up, per row and key, the field's corrections.
CREATE INDEX IF NOT EXISTS run_edit_log_field ON run_edit_log (run_id, field, key, seq);

-- Submissions deleted, with the newest submission id given out when they
-- went: a link pinned to N lost runs when a submission up to N was deleted
-- at or after N's arrival.
CREATE TABLE IF NOT EXISTS deleted_submissions (
    id               INTEGER PRIMARY KEY,
    after_submission INTEGER NOT NULL,
    deleted_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TRIGGER IF NOT EXISTS submissions_delete_record AFTER DELETE ON submissions BEGIN
    INSERT OR REPLACE INTO deleted_submissions (id, after_submission)
    VALUES (OLD.id, max(OLD.id,
                        coalesce((SELECT max(id) FROM submissions), 0),
                        coalesce((SELECT id FROM id_high_water WHERE tbl = 'submissions'), 0)));
END;
