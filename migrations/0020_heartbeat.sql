-- 0020_heartbeat: when the primary last said it was alive.
--
-- Why: a read replica (`benchlog serve --replica`) is a copy that
-- Litestream keeps current, written by nothing of ours. A primary run
-- with `--replicated` writes the time here every second
-- (store::replication::beat); the replica reads the copy it holds and
-- tells `/healthz` how far behind the primary it is. One row at most.
CREATE TABLE IF NOT EXISTS heartbeat (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at_ms INTEGER NOT NULL
);
