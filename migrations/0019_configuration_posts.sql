-- 0019_configuration_posts: a configuration that names no machine is
-- tied to its post.
--
-- Why: runs of two posts that state too little to tell their setups
-- apart (a `variant` alone, say) were one configuration, so two pastes
-- that each called a series `base` gave one point of ten "repeats",
-- with an interval and a verdict. A configuration now holds the post's
-- number (key `submission`) unless its attributes name the machine
-- (parsers::contract::SETUP_KEYS); a copy holds its original's. The
-- sums are rebuilt from the runs as they are (store::migrate adds every
-- run above `through`).
DELETE FROM point_sums;
DELETE FROM run_configs;
DELETE FROM configs;
DELETE FROM tool_runs;
UPDATE sums_through SET through = 0;
