-- 0012_run_copies: a run found again is stored as its uploader's own run.
--
-- (0013 is another change's number; migrations are applied in the order
-- they are listed in src/store/mod.rs.)
--
-- Until now a run identical to a stored one (run_fingerprints) was not
-- stored again: a row of run_quotes pointed the new text's lines at the
-- stored run. The run then belonged to whoever posted it first: the
-- second poster's label and attributes were used nowhere, they could not
-- edit it, the first poster's corrections showed on their numbers, and
-- when the first poster deleted their submission the run left every
-- comparison of the second. From now on the second text gets a run of
-- its own (its label, attributes, author, quote depth and lines as read
-- from it), and this column links the copies of one run.
--
-- copy_key: NULL for a run that repeats no earlier one; for a copy, the
-- key of the earliest stored run with the same fingerprint, which is that
-- run's own copy_key if it is a copy itself, else its id. Every copy of
-- one run so holds the same number, and keeps it when any of them (the
-- first one too) is deleted: run ids are never given twice (0008), so the
-- key of a deleted run is never another run's. A comparison counts the
-- runs of one point that share a key (a run's key is its copy_key, else
-- its id) once; copies in different series stay in each.
--
-- The rows of run_quotes stored before this change stay as they are, so
-- that a pinned link (asof) shows the runs it showed: those quotes are
-- still not runs of the quoting submission. No new rows are added there.
ALTER TABLE runs ADD COLUMN copy_key INTEGER;

-- The copies of one run, for the pages that say which earlier run a copy
-- repeats; only copies have a key, so only they are indexed.
CREATE INDEX runs_copy_key ON runs (copy_key, id) WHERE copy_key IS NOT NULL;

-- A comparison reads each run's key with its other fields, from the
-- index that holds them all (0011).
DROP INDEX IF EXISTS runs_tool_id_fields;
CREATE INDEX runs_tool_id_fields
    ON runs (tool, id, submission_id, test, threads, label, author, first_line, copy_key);
