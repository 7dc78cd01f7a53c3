//! Which files below `fixtures/` are example logs: the one rule that
//! `build.rs` embeds them by, `benchlog demo --fixtures` loads them by
//! and the parsers' golden tests walk them by (each includes this file).
//! It uses nothing but `std`, so that each of them can.

use std::path::Path;

/// Whether a file, by its path below the fixtures folder, is an example
/// log: a tool's text (`*.txt`) or a list's mbox (`*.mbox`), not a golden
/// `.json`. The files below `pipermail/` are not: they are a web
/// archive's pages and months as its server sends them, served to the
/// tests of `benchlog ingest URL`.
pub fn is_example_log(below_fixtures: &Path) -> bool {
    !below_fixtures.starts_with("pipermail")
        && below_fixtures
            .extension()
            .is_some_and(|ext| ext == "txt" || ext == "mbox")
}
