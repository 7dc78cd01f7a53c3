//! Which tests do not run by default, and that CI runs them anyway: a
//! test ignored because it needs a program (Chromium, ministat, the
//! sqlite3 shell, Litestream) says so and that `.ci/run` runs it; a stress test is
//! named `stress_*`, which is all the README's test command leaves out.

use std::path::{Path, PathBuf};

use crate::support::repo_path;

/// Every `.rs` file below `folder`.
fn sources(folder: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// Each `#[ignore...]` attribute of the workspace's sources: where, the
/// attribute as written, and the name of the test it is on.
fn ignored_tests() -> Vec<(String, String, String)> {
    let mut files = Vec::new();
    for folder in ["src", "tests", "parsers/src", "parsers/tests", "benches"] {
        sources(&repo_path(folder), &mut files);
    }
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let line = line.trim();
            if !line.starts_with("#[ignore") {
                continue;
            }
            let name = lines[i + 1..]
                .iter()
                .find_map(|next| {
                    let at = next.find("fn ")?;
                    let rest = &next[at + 3..];
                    Some(rest[..rest.find('(')?].to_owned())
                })
                .unwrap_or_default();
            found.push((
                format!("{}:{}", file.display(), i + 1),
                line.to_owned(),
                name,
            ));
        }
    }
    found
}

/// The command under "Run all the tests:" in the README's set-up.
fn readme_test_command() -> String {
    let readme = std::fs::read_to_string(repo_path("README.md")).unwrap();
    let after = &readme[readme
        .find("Run all the tests:")
        .expect("the README says how")..];
    let block = &after[after.find("```sh\n").unwrap() + 6..];
    block[..block.find('\n').unwrap()].to_owned()
}

#[test]
fn every_ignored_test_says_why_and_ci_runs_all_but_the_stress_tests() {
    let ignored = ignored_tests();
    let (mut needs, mut stress) = (0, 0);
    for (place, attribute, name) in &ignored {
        let reason = attribute
            .strip_prefix("#[ignore = \"")
            .and_then(|rest| rest.strip_suffix("\"]"))
            .unwrap_or_else(|| panic!("{place}: an ignored test says why: {attribute}"));
        if name.starts_with("stress_") {
            assert!(reason.starts_with("stress: "), "{place}: {reason}");
            stress += 1;
        } else {
            assert!(
                reason.starts_with("needs ")
                    && (reason.contains("apt-get install") || reason.contains("pip install"))
                    && reason.ends_with(".ci/run runs it"),
                "{place}: {name} is ignored but neither a stress_ test nor one that \
                 needs a program CI installs: {reason}"
            );
            needs += 1;
        }
    }
    // The browser walk-through, two ministat oracles, the sqlite3 client,
    // Litestream's replicas.
    assert_eq!(needs, 5, "{ignored:#?}");
    assert!(stress >= 5, "{ignored:#?}");

    let command = readme_test_command();
    assert_eq!(
        command,
        "cargo test --workspace -- --include-ignored --skip stress_"
    );
    let ci = std::fs::read_to_string(repo_path(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|line| line.trim() == command),
        ".ci/run runs the README's test command: {command}"
    );
}
