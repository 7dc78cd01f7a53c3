//! The fixtures the test binaries read: every `*.txt` under `fixtures/`
//! with a golden, in path order, and the list of those still read wrong.
//! The parsers' tests and the application's (`tests/golden_cli.rs`) share
//! this one walker.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace's `fixtures/`: the nearest one above this crate.
pub fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("fixtures"))
        .find(|dir| dir.join("SOURCES.md").is_file())
        .expect("a fixtures/ folder with SOURCES.md above the crate")
}

/// The scored corpus below `fixtures/` (`parsers/tests/corpus.rs`).
pub fn corpus_root() -> PathBuf {
    fixtures_root().join(example_logs::CORPUS)
}

/// Every fixture text with a golden `<case>.expected.json`, in path
/// order: the example logs' texts and the corpus's `CASE.txt`. A corpus
/// text that is not UTF-8 (a mail sent as ISO-8859-1, kept as sent) has
/// none: these tests read fixtures as UTF-8; `tests/corpus.rs` scores it,
/// decoding it as `benchlog parse` does.
pub fn fixture_texts() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let root = fixtures_root();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixtures folder") {
            let path = entry.expect("fixture entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "txt")
                && path.strip_prefix(&root).is_ok_and(|below| {
                    example_logs::is_example_log(below)
                        || (below.starts_with(example_logs::CORPUS)
                            && std::fs::read(&path)
                                .is_ok_and(|bytes| std::str::from_utf8(&bytes).is_ok()))
                })
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The real negative posts under `fixtures/negative/`: texts that name a
/// tool, its command line or its options but hold no result.
pub fn negative_texts() -> Vec<PathBuf> {
    let negative = fixtures_root().join("negative");
    fixture_texts()
        .into_iter()
        .filter(|path| path.starts_with(&negative))
        .collect()
}

/// The fixtures of `fixtures/misses.tsv` (path under `fixtures/`, a TAB,
/// what is still missed), as paths under `fixtures/`: their goldens hold
/// what the text says, not what the parsers read today.
pub fn known_misses() -> BTreeSet<String> {
    let root = fixtures_root();
    let text = std::fs::read_to_string(root.join("misses.tsv")).expect("fixtures/misses.tsv");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (path, why) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("misses.tsv: `path<TAB>what is missed`: {line:?}"));
            assert!(
                !why.trim().is_empty(),
                "misses.tsv: {path} says nothing of what is missed"
            );
            assert!(
                root.join(path).is_file(),
                "misses.tsv names {path}, not a fixture"
            );
            path.to_string()
        })
        .collect()
}

/// A fixture's path under `fixtures/`, with `/` between folders.
pub fn fixture_name(path: &Path) -> String {
    path.strip_prefix(fixtures_root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}
