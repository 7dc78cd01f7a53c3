//! Storing inputs: idempotence, all-or-nothing, decoding.

use std::io::Write;

use benchlog::ingest::{self, InputError};
use benchlog::store;

use crate::store::hand_made_document;
use crate::support::{fresh_db, seed_000};

#[test]
fn the_same_text_twice_is_one_submission() {
    let (_dir, _path, mut conn) = fresh_db();
    let text = seed_000();
    let first = ingest::ingest_text(&mut conn, Some("seed-000.txt"), &text).unwrap();
    assert!(first.created);
    let after_first = store::counts(&conn).unwrap();
    assert_eq!(after_first.submissions, 1);
    assert!(after_first.runs > 0, "seed 000 holds super-smack runs");

    let second = ingest::ingest_text(&mut conn, Some("again.txt"), &text).unwrap();
    assert!(!second.created);
    assert_eq!(second.submission_id, first.submission_id);
    assert_eq!(store::counts(&conn).unwrap(), after_first);
}

#[test]
fn seed_000_is_stored_with_its_runs() {
    let (_dir, _path, mut conn) = fresh_db();
    let stored = ingest::ingest_text(&mut conn, Some("seed-000.txt"), &seed_000()).unwrap();
    assert_eq!(stored.runs, 17);
    let submission = store::get_submission(&conn, stored.submission_id)
        .unwrap()
        .unwrap();
    assert_eq!(submission.author.as_deref(), Some("Michael Vince"));
    assert_eq!(
        submission.subject.as_deref(),
        Some("mysql performance on 4 * dualcore opteron")
    );
    let runs = store::runs_of_submission(&conn, stored.submission_id).unwrap();
    let ule = runs
        .iter()
        .find(|r| r.label.as_deref() == Some("ULE + libthr + TSC") && r.threads == Some(100))
        .expect("the ULE + libthr + TSC run with 100 clients");
    assert_eq!(ule.attrs.get("scheduler").map(String::as_str), Some("ULE"));
    assert_eq!(ule.quote_depth, 2);
    let q_per_s = ule
        .results
        .iter()
        .find(|r| r.item == "select_index" && r.metric == "q_per_s")
        .unwrap();
    assert_eq!(q_per_s.value, 28581.18);
}

#[test]
fn a_failed_ingest_leaves_nothing_behind() {
    let (_dir, _path, mut conn) = fresh_db();
    ingest::ingest_text(&mut conn, Some("seed-000.txt"), &seed_000()).unwrap();
    let before = store::counts(&conn).unwrap();

    // The second run's value cannot be stored: by then the submission, the
    // first run and its results have been written and must be rolled back.
    let mut document = hand_made_document();
    document.runs[1].results[1].value = f64::NAN;
    let error = ingest::ingest_document(&mut conn, Some("broken.txt"), "broken text\n", &document)
        .expect_err("a NaN value must fail the ingest");
    assert!(
        format!("{error:#}").contains("not a finite number"),
        "{error:#}"
    );
    assert_eq!(store::counts(&conn).unwrap(), before);
    assert_eq!(
        store::find_submission_by_sha256(&conn, &ingest::sha256_hex("broken text\n")).unwrap(),
        None
    );
}

#[test]
fn decoding_inputs() {
    assert_eq!(ingest::decode_input(b"  \n\t "), Err(InputError::Empty));
    assert_eq!(
        ingest::decode_input(b"\x7fELF\x02\x01\x00\x00"),
        Err(InputError::Binary)
    );
    // windows-1252, as old list mail often is: 0xE9 is "é".
    assert_eq!(
        ingest::decode_input(b"caf\xe9 run\n").unwrap(),
        "café run\n"
    );
    assert_eq!(
        ingest::decode_input("\u{feff}bom\n".as_bytes()).unwrap(),
        "bom\n"
    );

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"select_index 200000 0 0 22061.88\n").unwrap();
    let packed = gz.finish().unwrap();
    assert_eq!(
        ingest::decode_input(&packed).unwrap(),
        "select_index 200000 0 0 22061.88\n"
    );
    assert!(matches!(
        ingest::decode_input(&packed[..packed.len() / 2]),
        Err(InputError::BadGzip(_))
    ));
}
