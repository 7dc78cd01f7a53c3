-- 0011_compare_covering_indexes: a comparison reads its rows from index
-- entries alone.
--
-- (0010 is another change's number; migrations are applied in the order
-- they are listed in src/store/mod.rs.)
--
-- A comparison of one metric reads 12,000 results of 60,000 runs on the
-- scale database. Through results_tool_metric_item it found them in a few
-- hundred index pages, then read each result's value from the table (a
-- run's results are stored together, so one metric's are spread over the
-- tool's part of the table), each run by id and each of its attributes by
-- key: 7,600 pages, read again after every change, since a commit by any
-- connection empties every other connection's page cache. With the
-- columns it needs in indexes that give them in run order, the same
-- comparison reads about 640, and its rows are joined by walking the
-- ranges side by side (src/store/compare.rs).

-- The results of one tool's metric (and item), in the order they were
-- stored (hence the id, before the columns read), with their value and
-- unit. It does everything results_tool_metric_item did (the form's
-- (metric, item) pairs read its first columns), so it replaces it.
CREATE INDEX IF NOT EXISTS results_tool_metric_item_value
    ON results (tool, metric, item, run_id, id, value, unit);
DROP INDEX IF EXISTS results_tool_metric_item;

-- A tool's runs in id order, with the fields a comparison shows and
-- groups by.
CREATE INDEX IF NOT EXISTS runs_tool_id_fields
    ON runs (tool, id, submission_id, test, threads, label, author, first_line);

-- A tool's values of one attribute in run order (run_attrs_tool_key_value
-- has them in value order, for the form's choices).
CREATE INDEX IF NOT EXISTS run_attrs_tool_key_run ON run_attrs (tool, key, run_id, value);

-- A pinned comparison reads the corrections made after its pin, not the
-- whole log.
CREATE INDEX IF NOT EXISTS run_edit_log_after ON run_edit_log (after_submission);
