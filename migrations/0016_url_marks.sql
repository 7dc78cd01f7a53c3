-- 0016_url_marks: what a web server said of each month archive that
-- `benchlog ingest URL` imported, so that a re-run asks it with
-- If-Modified-Since (and If-None-Match) and reads only the months that
-- changed.
--
-- url: the month's address as fetched; last_modified, etag: the
-- response's Last-Modified and ETag headers, as sent (either may be
-- missing). Written in the same transaction as the month's last message,
-- so a crash never records a month as read before all of it is stored.
CREATE TABLE IF NOT EXISTS url_marks (
    url           TEXT PRIMARY KEY,
    last_modified TEXT,
    etag          TEXT
) WITHOUT ROWID;
