-- 0018_run_label_sources: where in its post's outline each run's label
-- came from, so that the review page can show why a run is called what
-- it is.
--
-- The parsers give each run `label_from` (Contract 1): the blocks its
-- label was read from, outermost first, each a kind (heading, banner,
-- list item, lead-in, caption, as `parsers::LabelKind::name` spells it)
-- and its first and last line of the submission's text. A row per block;
-- pos is its place in that list (0 for the outermost). A run keeps at
-- most `limits::MAX_LABEL_SOURCES` of them (the nearest to it).
--
-- submission_id is the run's, copied in, so that the review page finds
-- the blocks on the lines it shows (and the runs they name, which may be
-- on another part of a long text) in one range of the index below.
--
-- Rows are written only with their run, in its submission's transaction,
-- and go with it (ON DELETE CASCADE); no trigger (0010 says why). Runs
-- stored before this migration have no row: their label's source is not
-- known, and the page says nothing of it.
CREATE TABLE IF NOT EXISTS run_label_sources (
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    pos           INTEGER NOT NULL,
    submission_id INTEGER NOT NULL,
    kind          TEXT NOT NULL,
    first_line    INTEGER NOT NULL,
    last_line     INTEGER NOT NULL,
    PRIMARY KEY (run_id, pos)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS run_label_sources_lines
    ON run_label_sources (submission_id, first_line, last_line);
