//! The repository's maps stay whole: every test file is a module of this
//! binary (with `autotests = false`, an undeclared one would never run),
//! every script has its row in scripts/README.md, every document its row
//! in docs/README.md.

use std::path::Path;

use crate::support::repo_path;

/// The file names in `dir` (not its folders), sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_file())
        .map(|entry| entry.file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn every_test_file_is_a_module_of_the_test_binary() {
    let main = std::fs::read_to_string(repo_path("tests/main.rs")).unwrap();
    let missing: Vec<String> = files_in(&repo_path("tests"))
        .into_iter()
        .filter_map(|name| name.strip_suffix(".rs").map(str::to_owned))
        .filter(|module| module != "main" && !main.contains(&format!("mod {module};")))
        .collect();
    assert!(
        missing.is_empty(),
        "tests/main.rs does not declare {missing:?}: add `mod NAME;` or they never run"
    );
}

#[test]
fn every_script_and_document_has_its_row_in_the_index() {
    for (dir, extensions) in [("scripts", &["sh", "py"][..]), ("docs", &["md"][..])] {
        let index = std::fs::read_to_string(repo_path(&format!("{dir}/README.md"))).unwrap();
        let missing: Vec<String> = files_in(&repo_path(dir))
            .into_iter()
            .filter(|name| name != "README.md")
            .filter(|name| {
                extensions
                    .iter()
                    .any(|ext| name.ends_with(&format!(".{ext}")))
            })
            .filter(|name| !index.contains(&format!("]({name})")))
            .collect();
        assert!(
            missing.is_empty(),
            "{dir}/README.md has no row for {missing:?}"
        );
    }
}

/// The production part of a Rust source: the lines before its test
/// module (`#[cfg(test)]` at the start of a line).
fn production_lines(source: &str) -> Vec<&str> {
    source
        .lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
        .collect()
}

/// Every `.rs` file under the crates' `src/` folders, from the root.
fn rust_sources() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    for dir in ["src", "parsers/src"] {
        walk(&repo_path(dir), &mut found);
    }
    found.sort();
    found
}

/// Each function of `lines` (as rustfmt lays them out: a `fn` line, and
/// a `}` alone at its indentation closing it) with its first line and
/// its length in lines.
fn functions<'a>(lines: &[&'a str]) -> Vec<(&'a str, usize, usize)> {
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let words: Vec<&str> = body.split_whitespace().take(6).collect();
        let Some(fn_at) = words.iter().position(|word| *word == "fn") else {
            continue;
        };
        let qualifiers = ["pub", "const", "async", "unsafe", "extern"];
        let is_item = words[..fn_at]
            .iter()
            .all(|word| qualifiers.contains(word) || word.starts_with("pub("));
        if !is_item || body.ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[at..].iter().position(|line| *line == close) {
            let name = words.get(fn_at + 1).copied().unwrap_or("");
            let name = name.split(['(', '<']).next().unwrap_or(name);
            found.push((name, at + 1, end + 1));
        }
    }
    found
}

/// The limits the code keeps, so that a file reads as one subject and a
/// function as one step: no production file over 800 lines, no function
/// over 100.
#[test]
fn no_file_over_800_lines_and_no_function_over_100() {
    let mut over = Vec::new();
    for path in rust_sources() {
        let source = std::fs::read_to_string(&path).unwrap();
        let lines = production_lines(&source);
        let shown = path
            .strip_prefix(repo_path(""))
            .unwrap()
            .display()
            .to_string();
        if lines.len() > 800 {
            over.push(format!("{shown}: {} production lines", lines.len()));
        }
        for (name, line, length) in functions(&lines) {
            if length > 100 {
                over.push(format!("{shown}:{line}: fn {name} is {length} lines"));
            }
        }
    }
    assert!(over.is_empty(), "over the limits:\n{}", over.join("\n"));
}

/// Writes are begun, staged and committed by the store alone
/// (`store::Writer`): no transaction is opened by hand elsewhere.
#[test]
fn no_transaction_is_opened_outside_the_store() {
    let mut found = Vec::new();
    for path in rust_sources() {
        let shown = path
            .strip_prefix(repo_path(""))
            .unwrap()
            .display()
            .to_string();
        if shown.starts_with("src/store/") || shown.starts_with("parsers/") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for (at, line) in production_lines(&source).iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if [
                ".transaction()",
                "transaction_with_behavior(",
                "\"BEGIN",
                "\"COMMIT",
            ]
            .iter()
            .any(|opening| code.contains(opening))
            {
                found.push(format!("{shown}:{}: {}", at + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "transactions outside src/store/:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_function_lengths_are_read_as_rustfmt_lays_them_out() {
    let source = "pub(crate) fn a() {\n    x();\n}\n\nimpl B {\n    async fn c(\n        d: u8,\n    ) {\n    }\n    fn e();\n}\n";
    let lines: Vec<&str> = source.lines().collect();
    assert_eq!(functions(&lines), vec![("a", 1, 3), ("c", 6, 4)]);
}
