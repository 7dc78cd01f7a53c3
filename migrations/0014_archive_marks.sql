-- 0014_archive_marks: how far `benchlog ingest` has read each
-- public-inbox archive, so that importing it again reads only the
-- commits added since.
--
-- archive: the archive's canonical path (a v2 inbox's folder, or a v1
-- inbox's repository); epoch: the number of its git/N.git repository (0
-- for v1). commit_id: the last commit of that epoch whose message is
-- stored, written in the same transaction as that message, so a crash
-- never leaves a mark ahead of what is stored; commits: how many of the
-- epoch's commits are read up to it, to tell how many a re-import skips.
CREATE TABLE IF NOT EXISTS archive_marks (
    archive    TEXT NOT NULL,
    epoch      INTEGER NOT NULL,
    commit_id  TEXT NOT NULL,
    commits    INTEGER NOT NULL,
    PRIMARY KEY (archive, epoch)
) WITHOUT ROWID;
