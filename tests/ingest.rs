//! Storing inputs: idempotence, all-or-nothing, decoding.

use std::io::Write;

use benchlog::ingest;
use benchlog::intake::InputError;
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
    assert_eq!(submission.head.author.as_deref(), Some("Michael Vince"));
    assert_eq!(
        submission.head.subject.as_deref(),
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
    assert_eq!(
        benchlog::intake::decode_input(b"  \n\t "),
        Err(InputError::Empty)
    );
    assert_eq!(
        benchlog::intake::decode_input(b"\x7fELF\x02\x01\x00\x00"),
        Err(InputError::Binary)
    );
    // windows-1252, as old list mail often is: 0xE9 is "é".
    assert_eq!(
        benchlog::intake::decode_input(b"caf\xe9 run\n").unwrap(),
        "café run\n"
    );
    assert_eq!(
        benchlog::intake::decode_input("\u{feff}bom\n".as_bytes()).unwrap(),
        "bom\n"
    );

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"select_index 200000 0 0 22061.88\n").unwrap();
    let packed = gz.finish().unwrap();
    assert_eq!(
        benchlog::intake::decode_input(&packed).unwrap(),
        "select_index 200000 0 0 22061.88\n"
    );
    assert!(matches!(
        benchlog::intake::decode_input(&packed[..packed.len() / 2]),
        Err(InputError::BadGzip(_))
    ));
}

/// `len` zero bytes, gzipped: a few KB on disk per MB unpacked.
fn gzip_bomb(len: u64) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let zeros = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        gz.write_all(&zeros[..n]).unwrap();
        left -= n as u64;
    }
    gz.finish().unwrap()
}

/// Ingests a gzip bomb one byte over `limit` and checks it is refused,
/// naming the limit, with nothing stored.
fn bomb_is_refused(limit: u64) {
    let (dir, _path, mut conn) = fresh_db();
    let path = dir.path().join("bomb.txt.gz");
    std::fs::write(&path, gzip_bomb(limit + 1)).unwrap();
    let mut summary = benchlog::import::ImportSummary::default();
    let error = crate::support::import_file_within(&mut conn, &path, limit, &mut summary)
        .expect_err("a file over the limit is refused");
    assert_eq!(
        format!("{error:#}"),
        format!(
            "{} is larger than {} unpacked, the most benchlog reads from one file; split it",
            path.display(),
            benchlog::intake::size_for_people(limit)
        )
    );
    assert_eq!(store::counts(&conn).unwrap(), store::Counts::default());
}

#[test]
fn a_gzip_bomb_over_the_limit_is_refused() {
    bomb_is_refused(1 << 20);
    assert_eq!(benchlog::intake::size_for_people(1 << 20), "1 MiB");
    // At the limit it is read, and refused as what it is: binary.
    let (dir, _path, mut conn) = fresh_db();
    let path = dir.path().join("zeros.gz");
    std::fs::write(&path, gzip_bomb(1 << 20)).unwrap();
    let error = crate::support::import_file_within(
        &mut conn,
        &path,
        1 << 20,
        &mut benchlog::import::ImportSummary::default(),
    )
    .unwrap_err();
    assert!(format!("{error:#}").contains("binary"), "{error:#}");
}

#[test]
fn a_gzip_bomb_over_the_real_limit_is_refused() {
    bomb_is_refused(benchlog::limits::MAX_ARCHIVE_BYTES);
}

#[test]
fn files_are_read_up_to_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.txt");
    std::fs::write(&path, vec![b'x'; 1025]).unwrap();
    assert_eq!(
        benchlog::intake::read_file(&path, 1025).unwrap().len(),
        1025
    );
    let error = benchlog::intake::read_file(&path, 1024).unwrap_err();
    assert!(
        format!("{error:#}").contains("is larger than 1024 bytes, the most benchlog reads"),
        "{error:#}"
    );
    let error = benchlog::intake::read_file(dir.path(), 1024).unwrap_err();
    assert!(format!("{error:#}").contains("is a folder"), "{error:#}");
}

/// A paste copied from a list archive's page starts with the mail's
/// subject and carries no Subject header: its first line is its title,
/// unless that line is an attribution, a report's or the start of a
/// wrapped sentence.
#[test]
fn a_paste_without_a_subject_takes_its_first_line_as_title() {
    let (_dir, _path, mut conn) = fresh_db();
    let report = "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.88\n";
    let fixture = |path: &str| std::fs::read_to_string(crate::support::repo_path(path)).unwrap();
    let cases = [
        (
            fixture("fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt"),
            Some("[Maria-developers] MariaDB scalability: mutexes"),
        ),
        // "On Fri, Sep 28, 2007 at 02:04:00PM -0600, Warner Losh wrote:"
        (
            fixture("fixtures/sysbench/seed-003-script-and-dmesg-no-results.txt"),
            None,
        ),
        // "In order to verify ... I and others" / "have reported ..."
        (
            fixture("fixtures/sql-bench/seed-004-linux-2.4-vs-2.2-smp.txt"),
            None,
        ),
        // Its Subject comes from the archive page's header block.
        (
            fixture(crate::support::SEED_000),
            Some("mysql performance on 4 * dualcore opteron"),
        ),
        // A report's first line is no title.
        (report.to_owned(), None),
    ];
    for (index, (text, title)) in cases.into_iter().enumerate() {
        let stored = ingest::ingest_text(&mut conn, None, &text).unwrap();
        let subject: Option<String> = conn
            .query_row(
                "SELECT subject FROM submissions WHERE id = ?1",
                [stored.submission_id],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(subject.as_deref(), title, "case {index}");
    }
}
