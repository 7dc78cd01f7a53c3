//! `parse` returns for any input, and what it returns points inside the input.

mod common;

use proptest::prelude::*;

const SEED: &str = include_str!("../../fixtures/super-smack/seed-000-freebsd-mysql-smp.txt");

fn check_invariants(input: &str) {
    let doc = parsers::parse(input);
    let line_count = input.split('\n').count();
    for run in &doc.runs {
        assert!(
            run.lines[0] >= 1 && run.lines[0] <= run.lines[1],
            "{:?}",
            run.lines
        );
        assert!(
            run.lines[1] <= line_count,
            "{:?} past {line_count}",
            run.lines
        );
        assert!(!run.results.is_empty());
        for result in &run.results {
            assert!(result.value.is_finite());
            assert!(
                (run.lines[0]..=run.lines[1]).contains(&result.line),
                "{result:?} outside {:?}",
                run.lines
            );
        }
        if let Some(m) = run.message {
            assert!(m < doc.messages.len());
        }
    }
    for miss in &doc.unparsed {
        assert!(miss.line >= 1 && miss.line <= line_count);
    }
}

/// The seed with some lines dropped, duplicated or cut short.
fn mutated_seed() -> impl Strategy<Value = String> {
    common::mutated(SEED, 1..40, 80)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_text(input in "\\PC*") {
        check_invariants(&input);
    }

    #[test]
    fn report_shaped_noise(input in "((> ?)*(super-smack|Query Barrel Report for client|connect:|max=|ms|from|clients|Query_type|num_queries|max_time|min_time|q_per_s|select_index|==|\\*\\*|[0-9]{1,25}|\\.|[0-9]+\\.[0-9]+| |\n|\r\n| wrote:|----- Original Message -----)){0,60}") {
        check_invariants(&input);
    }

    #[test]
    fn mutated_seed_000(input in mutated_seed()) {
        check_invariants(&input);
    }
}
