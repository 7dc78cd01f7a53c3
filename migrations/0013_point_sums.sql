-- 0013_point_sums: the statistics of every comparison point, kept up to
-- date by the writers, so that a comparison reads a row per
-- configuration instead of a row per result.
--
-- Why: the first compare page after a change read every result of its
-- metric, every run of its tool and every attribute of those runs, and
-- so grew with everything stored (177-331 ms at 10M results, its bare
-- SQL 302-530 ms; docs/performance.md). Every upload makes every kept
-- page stale, so a busy site paid that again after each upload.
--
-- configs: each distinct set of a tool's run attributes, provenance aside
-- (author, submission, message, date: parsers::contract::PROVENANCE),
-- as a JSON array of [key, value] pairs sorted by key. Runs differing
-- only in provenance share one: they are repeats of one configuration.
CREATE TABLE IF NOT EXISTS configs (
    id     INTEGER PRIMARY KEY,
    tool   TEXT NOT NULL,
    attrs  TEXT NOT NULL,
    UNIQUE (tool, attrs)
);

-- run_configs: each run's configuration, and how it counts. A run found
-- again (a copy: runs.copy_key, 0012) counts once in a point; `counted`
-- is 0 for a copy whose earlier run of the same key has the same
-- configuration, test and thread count (the two are always in the same
-- point), and `split` is 1 for a copy whose earlier runs of its key all
-- differ from it in one of those: a comparison that does not tell them
-- apart would count it once, which sums cannot, so a tool with such a
-- copy is compared from its results (store::sums).
CREATE TABLE IF NOT EXISTS run_configs (
    run_id     INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    tool       TEXT NOT NULL,
    config_id  INTEGER NOT NULL,
    counted    INTEGER NOT NULL,
    split      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS run_configs_config ON run_configs (config_id, run_id);
CREATE INDEX IF NOT EXISTS run_configs_split ON run_configs (tool) WHERE split = 1;

-- point_sums: one row per tool, metric, item, unit, test, thread count and
-- configuration: how many results it holds (`n`, copies counted once;
-- `rows`, every result), their mean and sum of squared deviations from
-- it (`m2`: merged exactly as the sums of squares are, but without their
-- cancellation, so identical repeats keep a variance of exactly 0), min
-- and max; the id of its first result (the items' print order) and the
-- ids of its first counted results (store::sums::FIRST_RESULTS of them:
-- the runs a table cell links).
--
-- The rows of one comparison are next to each other (WITHOUT ROWID, in
-- key order): a comparison reads a range of pages, not a page per cell
-- (12 ms for 2,780 cells scattered in a rowid table). A key holds no
-- NULL there: a run without a test has test '', one without a thread
-- count threads -1 (no tool prints either).
CREATE TABLE IF NOT EXISTS point_sums (
    tool          TEXT NOT NULL,
    metric        TEXT NOT NULL,
    item          TEXT NOT NULL,
    config_id     INTEGER NOT NULL,
    test          TEXT NOT NULL,
    threads       INTEGER NOT NULL,
    unit          TEXT NOT NULL,
    n             INTEGER NOT NULL,
    rows          INTEGER NOT NULL,
    mean          REAL NOT NULL,
    m2            REAL NOT NULL,
    min           REAL NOT NULL,
    max           REAL NOT NULL,
    first_result  INTEGER NOT NULL,
    first_results TEXT NOT NULL,
    PRIMARY KEY (tool, metric, item, config_id, test, threads, unit)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS point_sums_combo ON point_sums (config_id, test, threads);

-- How many runs each tool has, kept with the sums: the compare form
-- names each tool with its count, which counting the index of runs made
-- grow with them (30 ms of the first page after a change at 600,000
-- runs).
CREATE TABLE IF NOT EXISTS tool_runs (
    tool  TEXT PRIMARY KEY,
    runs  INTEGER NOT NULL
) WITHOUT ROWID;

-- The runs up to `through` are in the sums. Writers add the runs above it
-- before they commit (store::Writer::finish), as they index the new
-- submissions (0010); a comparison reads the sums only when they hold
-- every run. The existing runs are added when the migration is applied
-- (store::migrate).
CREATE TABLE IF NOT EXISTS sums_through (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    through  INTEGER NOT NULL
);
INSERT OR IGNORE INTO sums_through (id, through) VALUES (1, 0);
