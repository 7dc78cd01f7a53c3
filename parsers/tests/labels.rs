//! The label set, `fixtures/labels.tsv`: the label each run of the
//! labelled real fixtures should have, measured on the parsers. Prints the
//! accuracy and every miss; fails if the accuracy falls below what it was
//! when the set was last measured ([`MEASURED`]), so a change to the rules
//! in `parsers::context` that reads one post better and another worse is
//! seen.

use std::collections::BTreeMap;
use std::path::Path;

/// The accuracy the set had when last measured, in runs right per
/// thousand: 177 of 178 (the BerePi page's first run still spans the
/// `<pre>` block's caption, which a run's own lines cannot take).
const MEASURED: usize = 994;

/// One row: fixture, run index, the label expected (`None` for `-`).
struct Expected {
    fixture: String,
    run: usize,
    label: Option<String>,
}

fn label_set(root: &Path) -> Vec<Expected> {
    let text = std::fs::read_to_string(root.join("labels.tsv")).expect("fixtures/labels.tsv");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut cells = line.splitn(3, '\t');
            let (Some(fixture), Some(run), Some(label)) =
                (cells.next(), cells.next(), cells.next())
            else {
                panic!("labels.tsv: a row needs three cells: {line:?}");
            };
            Expected {
                fixture: fixture.to_string(),
                run: run
                    .parse()
                    .unwrap_or_else(|_| panic!("labels.tsv: run index {run:?}")),
                label: (label != "-").then(|| label.to_string()),
            }
        })
        .collect()
}

#[test]
fn the_label_set_stays_as_accurate_as_measured() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let rows = label_set(&root);
    assert!(rows.len() >= 150, "the label set has {} runs", rows.len());
    let mut docs = BTreeMap::new();
    let mut misses = Vec::new();
    for row in &rows {
        let doc = docs.entry(row.fixture.as_str()).or_insert_with(|| {
            let path = root.join(format!("{}.txt", row.fixture));
            let input = std::fs::read_to_string(&path)
                .unwrap_or_else(|_| panic!("labels.tsv names {}", path.display()));
            parsers::parse(&input)
        });
        let got = doc.runs.get(row.run).map(|run| run.label.clone());
        if got.as_ref() != Some(&row.label) {
            misses.push(format!(
                "{} run {}: want {:?}, got {:?}",
                row.fixture, row.run, row.label, got
            ));
        }
    }
    let right = rows.len() - misses.len();
    let per_mille = right * 1000 / rows.len();
    println!(
        "label set: {right} of {} runs right ({}.{}%) in {} fixtures",
        rows.len(),
        per_mille / 10,
        per_mille % 10,
        docs.len()
    );
    for miss in &misses {
        println!("  miss: {miss}");
    }
    assert!(
        per_mille >= MEASURED,
        "label set accuracy fell to {per_mille}‰ (measured {MEASURED}‰):\n{}",
        misses.join("\n")
    );
}
