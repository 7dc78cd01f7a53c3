//! Which files below `fixtures/` are example logs: the one rule that
//! `build.rs` embeds them by, `benchlog demo --fixtures` loads them by
//! and the tests walk them by (`testkit::fixture_files`), with the
//! corpus's texts. A crate of its own, using nothing but `std`, so that
//! the application, its build script and the test support all depend on
//! the one rule.

use std::path::Path;

/// The folder below the fixtures folder holding the scored corpus
/// (`parsers/tests/corpus.rs`): real posts, each `CASE.txt` beside the
/// `CASE.expect.json` of the runs a reader checked in it by hand. Its
/// texts have goldens as every fixture text has, but are a test set that
/// grows as posts are gathered, not the demo's example logs.
pub const CORPUS: &str = "corpus";

/// The folder below the fixtures folder holding fresh posts gathered to
/// score the parsers on text no one had seen (`CORPUS=fixtures/fresh`
/// with `parsers/tests/corpus.rs`): `CASE.txt` beside `CASE.expect.json`
/// as in the [`CORPUS`], but without goldens, so neither example logs
/// nor golden fixtures.
pub const FRESH: &str = "fresh";

/// Whether a file, by its path below the fixtures folder, is an example
/// log: a tool's text (`*.txt`) or a list's mbox (`*.mbox`), not a golden
/// `.json`. The files below `pipermail/` are not: they are a web
/// archive's pages and months as its server sends them, served to the
/// tests of `benchlog ingest URL`. Nor are the texts of the [`CORPUS`]
/// or of [`FRESH`].
pub fn is_example_log(below_fixtures: &Path) -> bool {
    !below_fixtures.starts_with("pipermail")
        && !below_fixtures.starts_with(CORPUS)
        && !below_fixtures.starts_with(FRESH)
        && below_fixtures
            .extension()
            .is_some_and(|ext| ext == "txt" || ext == "mbox")
}
