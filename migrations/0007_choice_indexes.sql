-- 0007_choice_indexes: what the /compare form offers for a tool (its
-- metrics and items, attribute keys and values, whether it has thread
-- counts) read from indexes, one seek per distinct value, instead of from
-- every result and attribute of the tool.
--
-- (0005 and 0006 are other changes' numbers; migrations are applied in the
-- order they are listed in src/store/mod.rs.)
--
-- Results and attributes do not name their tool; their run does. An index
-- over (metric, item) alone lists every tool's pairs, and telling that a
-- pair is not the tool's means reading each of its rows: each tool has
-- metrics of its own, so that is most of the table for every page. So the
-- run's tool is copied into its results and attributes, where an index can
-- put it first. The rows are written with their run's tool (the store's
-- inserts look it up), and a run's tool is never edited; should it change,
-- the trigger below carries the change to the copies.

ALTER TABLE results ADD COLUMN tool TEXT;
UPDATE results SET tool = (SELECT r.tool FROM runs r WHERE r.id = results.run_id);
-- /compare reads one tool's metric (and usually one item) across runs, in
-- run order; the form lists the tool's distinct (metric, item) pairs. The
-- tool first also keeps a pair shared with another tool from being read
-- for nothing. It replaces results_metric_item, whose work it does.
DROP INDEX results_metric_item;
CREATE INDEX results_tool_metric_item ON results (tool, metric, item, run_id);

ALTER TABLE run_attrs ADD COLUMN tool TEXT;
UPDATE run_attrs SET tool = (SELECT r.tool FROM runs r WHERE r.id = run_attrs.run_id);
-- The form's attribute keys and `where` suggestions for one tool.
CREATE INDEX run_attrs_tool_key_value ON run_attrs (tool, key, value);

-- Whether any run of a tool has a thread count: the first entry past the
-- NULLs answers, where runs_tool would read every run of a tool that has
-- none (bonnie, diskinfo, sql-bench).
CREATE INDEX runs_tool_threads ON runs (tool, threads);

-- A writer that leaves the copy out (raw SQL, an older tool) still gets
-- it: only such rows pay for the lookup.
CREATE TRIGGER results_tool_filled AFTER INSERT ON results WHEN new.tool IS NULL BEGIN
    UPDATE results SET tool = (SELECT r.tool FROM runs r WHERE r.id = new.run_id)
    WHERE id = new.id;
END;
CREATE TRIGGER run_attrs_tool_filled AFTER INSERT ON run_attrs WHEN new.tool IS NULL BEGIN
    UPDATE run_attrs SET tool = (SELECT r.tool FROM runs r WHERE r.id = new.run_id)
    WHERE run_id = new.run_id AND key = new.key;
END;

CREATE TRIGGER runs_tool_copies AFTER UPDATE OF tool ON runs BEGIN
    UPDATE results SET tool = new.tool WHERE run_id = new.id;
    UPDATE run_attrs SET tool = new.tool WHERE run_id = new.id;
END;
