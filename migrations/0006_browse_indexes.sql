-- 0006_browse_indexes: indexes for the runs table and the home page's
-- counts on a large database.
--
-- (0005 is another change's number; migrations are applied in the order
-- they are listed in src/store/mod.rs.)

-- /runs?tool=X pages newest first (ORDER BY id DESC, id < ?): entries of
-- one tool are ordered by rowid, so a page reads its 100 runs and stops,
-- where runs_tool_test (tool, test) would sort every run of the tool.
CREATE INDEX IF NOT EXISTS runs_tool ON runs (tool);

-- The home page counts runs and distinct submissions per tool from this
-- index alone, without reading a row of runs.
CREATE INDEX IF NOT EXISTS runs_tool_submission ON runs (tool, submission_id);

-- /runs?where=<attr>:<value> without a tool reads the runs with that value
-- newest first from here (entries of one value are ordered by run_id),
-- instead of every run to look at its attributes. Values match whatever
-- their case (where=scheduler:ule), which run_attrs_key_value, comparing
-- bytes, cannot look up.
CREATE INDEX IF NOT EXISTS run_attrs_key_value_nocase ON run_attrs (key, value COLLATE NOCASE);
