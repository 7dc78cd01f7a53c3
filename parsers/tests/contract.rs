//! Every metric a parser stores is one the contract table knows, in the
//! table's unit: otherwise the compare form would refuse a metric that the
//! database holds, or label its values with a unit they were not read in.

use testkit::fixture_files;

use std::collections::BTreeSet;

use parsers::metric_info;

#[test]
fn every_metric_the_fixtures_give_is_in_the_contract_with_its_unit() {
    let cases = fixture_files::fixture_texts();
    assert!(!cases.is_empty(), "no fixtures found");
    let mut problems = BTreeSet::new();
    let mut metrics_seen = BTreeSet::new();
    for case in &cases {
        let input = std::fs::read_to_string(case).expect("fixture is UTF-8");
        for run in parsers::parse(&input).runs {
            for result in &run.results {
                metrics_seen.insert(result.metric.clone());
                match metric_info(&result.metric) {
                    None => problems.insert(format!(
                        "{}: {} {} is not in the contract table",
                        run.tool.name(),
                        result.item,
                        result.metric
                    )),
                    Some(info) if info.unit != result.unit => problems.insert(format!(
                        "{}: {} is stored in `{}`, the contract says `{}`",
                        run.tool.name(),
                        result.metric,
                        result.unit,
                        info.unit
                    )),
                    // Being in the table is having a direction
                    // (`higher_is_better`), so nothing more to check.
                    Some(_) => false,
                };
            }
        }
    }
    assert!(
        metrics_seen.len() > 20,
        "the fixtures gave only {metrics_seen:?}"
    );
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Every attribute key a parser gives a run is one of Contract 2's general
/// keys or one of its tool's own (`Tool::own_attribute_keys`): a key of
/// no contract would reach the database and the forms unnamed.
#[test]
fn every_attribute_key_the_fixtures_give_is_general_or_the_tools_own() {
    let cases = fixture_files::fixture_texts();
    assert!(!cases.is_empty(), "no fixtures found");
    let mut problems = BTreeSet::new();
    let mut keys_seen = BTreeSet::new();
    for case in &cases {
        let input = std::fs::read_to_string(case).expect("fixture is UTF-8");
        for run in parsers::parse(&input).runs {
            for key in run.attrs.keys() {
                keys_seen.insert(key.clone());
                let general = parsers::contract::ATTRIBUTE_KEYS.contains(&key.as_str());
                if !general && !run.tool.own_attribute_keys().contains(&key.as_str()) {
                    problems.insert(format!(
                        "{}: {} gives `{key}`, in no contract",
                        case.display(),
                        run.tool.name()
                    ));
                }
            }
        }
    }
    assert!(keys_seen.len() > 20, "the fixtures gave only {keys_seen:?}");
    assert!(problems.is_empty(), "{problems:#?}");
}
