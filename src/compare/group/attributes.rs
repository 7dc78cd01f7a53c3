//! What the series were run with: each series' attribute values, and
//! the attributes table of a comparison.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

use parsers::contract::PROVENANCE;

use super::natural_cmp;
use crate::compare::{interest, AttributeRow, Series, NONE};
use crate::store::MetricRow;

/// A series' value of each attribute its runs have (provenance aside):
/// the one value, or the distinct ones joined by `, `, and `(none)` in
/// the list where some runs lack it. Looks at each distinct
/// configuration once.
pub(super) fn series_attributes<'a>(
    rows: &[MetricRow],
    indices: impl Iterator<Item = &'a usize>,
) -> BTreeMap<String, String> {
    let mut seen: HashSet<*const ()> = HashSet::new();
    let configs: Vec<&[(Rc<str>, Rc<str>)]> = indices
        .map(|&index| &rows[index].config)
        .filter(|config| seen.insert(Rc::as_ptr(config) as *const ()))
        .map(|config| &config[..])
        .collect();
    let mut values: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for config in &configs {
        for (key, value) in config.iter() {
            if !PROVENANCE.contains(&&**key) {
                values.entry(key).or_default().insert(value);
            }
        }
    }
    values
        .into_iter()
        .map(|(key, mut found)| {
            let all = configs
                .iter()
                .all(|c| c.binary_search_by(|(k, _)| (**k).cmp(key)).is_ok());
            if !all {
                found.insert(NONE);
            }
            let mut found: Vec<&str> = found.into_iter().collect();
            found.sort_by(|a, b| natural_cmp(a, b));
            (key.to_owned(), found.join(", "))
        })
        .collect()
}

/// The attributes table: every key some series has, with each series'
/// value (`(none)` where it has none), those that differ first, then in
/// order of interest.
pub(super) fn attribute_rows(
    series: &[Series],
    attrs: Vec<BTreeMap<String, String>>,
) -> Vec<AttributeRow> {
    let keys: BTreeSet<&str> = attrs
        .iter()
        .flat_map(|a| a.keys())
        .map(String::as_str)
        .collect();
    let mut rows: Vec<AttributeRow> = keys
        .into_iter()
        .map(|key| {
            let values: BTreeMap<String, String> = series
                .iter()
                .zip(&attrs)
                .map(|(s, a)| {
                    (
                        s.name.clone(),
                        a.get(key).map_or(NONE, String::as_str).to_owned(),
                    )
                })
                .collect();
            let mut distinct = values.values();
            let first = distinct.next();
            AttributeRow {
                key: key.to_owned(),
                differs: distinct.any(|v| Some(v) != first),
                values,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.differs
            .cmp(&a.differs)
            .then_with(|| interest(&a.key).cmp(&interest(&b.key)))
    });
    rows
}
