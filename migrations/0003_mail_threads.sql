-- 0003_mail_threads: mails read from list archives (mbox, .eml), the
-- threads they form, and runs quoted again in later mails.
--
-- (0002 is another change's number; migrations are applied in the order
-- they are listed in src/store/mod.rs, gaps in the numbering mean nothing.)

-- The mail a submission was read from. Submissions from pastes and plain
-- files have no row here.
CREATE TABLE mails (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
    -- SHA-256 of the raw message bytes (without the mbox "From " envelope
    -- line), hex: the same message imported twice is stored once, even
    -- though the submission keeps the decoded text.
    raw_sha256    TEXT NOT NULL UNIQUE,
    -- Message ids without their angle brackets.
    message_id    TEXT,
    in_reply_to   TEXT,
    -- The References header: ids of the earlier messages, oldest first,
    -- separated by spaces.
    refs          TEXT NOT NULL DEFAULT '',
    -- The thread this mail belongs to: the thread of the message it answers
    -- when that one is stored, else the first id it refers to, else its own
    -- id ("submission-N" for a mail with no ids at all).
    thread_id     TEXT NOT NULL,
    -- The Date header as seconds since 1970, to put a thread in order.
    sent_at       INTEGER
);
CREATE INDEX mails_message_id ON mails (message_id);
CREATE INDEX mails_thread ON mails (thread_id, sent_at);

-- What makes two runs the same run (the tool, test, threads and every
-- item/metric/value), hashed. Written for every run stored from now on, so
-- a run quoted again later is recognised.
CREATE TABLE run_fingerprints (
    run_id      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL
);
CREATE INDEX run_fingerprints_fingerprint ON run_fingerprints (fingerprint, run_id);

-- A run found again in a later mail (quoted in a reply, usually): it is not
-- stored a second time; these lines of the quoting submission point at the
-- stored run instead.
CREATE TABLE run_quotes (
    id            INTEGER PRIMARY KEY,
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    first_line    INTEGER NOT NULL,
    last_line     INTEGER NOT NULL,
    quote_depth   INTEGER NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE
);
CREATE INDEX run_quotes_submission ON run_quotes (submission_id);
CREATE INDEX run_quotes_run ON run_quotes (run_id);
