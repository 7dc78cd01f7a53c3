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
