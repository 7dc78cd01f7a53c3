-- 0017_unused_configs: configurations no run is in, removed once.
--
-- Why: an edit used to move its runs to a new configuration for every
-- attribute it set, each holding the whole growing set of attributes
-- (up to 64 values of 200 characters), and nothing removed the ones left
-- behind: one edit of 60 attributes on 300 runs left 18,000 of them,
-- 300 MB with their unique index. Edits now move a run once and remove
-- the configurations they leave empty (store::sums::refresh_runs, and
-- delete_submission); this removes those left by earlier edits. Their
-- cells in point_sums went with their last run.
DELETE FROM configs
WHERE NOT EXISTS (SELECT 1 FROM run_configs WHERE run_configs.config_id = configs.id);
