-- 0001_init: the first schema of benchlog's results database.
--
-- A submission is one input exactly as it was pasted or uploaded; everything
-- else hangs off it and goes when it goes (ON DELETE CASCADE). Rows mirror the
-- parsers' Document (Contract 1) so that a run can always be traced back to
-- the lines of the text it was read from.

CREATE TABLE submissions (
    id          INTEGER PRIMARY KEY,
    -- The verbatim text: pages show it with the recognised lines marked.
    text        TEXT NOT NULL,
    -- SHA-256 of the text, hex: the same text twice is one submission.
    sha256      TEXT NOT NULL UNIQUE,
    -- File name or "paste"; where the text came from, for people.
    source_name TEXT,
    -- From the first message of the text, when it has headers.
    author      TEXT,
    date        TEXT,
    subject     TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

-- The mails found in a submission, in order (idx is the Document's index).
CREATE TABLE messages (
    id            INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    author        TEXT,
    email         TEXT,
    date          TEXT,
    subject       TEXT,
    message_id    TEXT,
    in_reply_to   TEXT,
    first_line    INTEGER NOT NULL,
    last_line     INTEGER NOT NULL,
    UNIQUE (submission_id, idx)
);

-- One execution of a benchmark tool.
CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    -- Position of the run within its submission (0-based, in text order).
    idx           INTEGER NOT NULL,
    -- Index of the message holding the run (messages.idx), if known.
    message_idx   INTEGER,
    tool          TEXT NOT NULL,
    test          TEXT,
    label         TEXT,
    -- Concurrency (super-smack clients, sysbench threads); NULL when none.
    threads       INTEGER,
    quote_depth   INTEGER NOT NULL,
    author        TEXT,
    command       TEXT,
    -- 1-based lines of the submission's text, first and last.
    first_line    INTEGER NOT NULL,
    last_line     INTEGER NOT NULL,
    UNIQUE (submission_id, idx)
);
-- /compare filters runs by tool (and test) before anything else.
CREATE INDEX runs_tool_test ON runs (tool, test);

-- Normalised attributes of a run (Contract 2 keys: scheduler, thread_lib, ...).
CREATE TABLE run_attrs (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
-- where=<attr>:<value> and the attribute pickers look attributes up by key.
CREATE INDEX run_attrs_key_value ON run_attrs (key, value);

-- One number a tool printed.
CREATE TABLE results (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    item      TEXT NOT NULL,
    metric    TEXT NOT NULL,
    value     REAL NOT NULL,
    unit      TEXT NOT NULL,
    -- 1-based line of the submission's text the value was read from.
    line      INTEGER NOT NULL,
    -- 1 when the tool marked the value as estimated (sql-bench's "+").
    estimated INTEGER NOT NULL DEFAULT 0 CHECK (estimated IN (0, 1))
);
-- /compare picks one metric (and usually one item) across runs.
CREATE INDEX results_metric_item ON results (metric, item, run_id);
CREATE INDEX results_run ON results (run_id);

-- Blocks that looked like a report but could not be read as one.
CREATE TABLE unparsed (
    id            INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    line          INTEGER NOT NULL,
    text          TEXT NOT NULL,
    why           TEXT NOT NULL
);
CREATE INDEX unparsed_submission ON unparsed (submission_id);
