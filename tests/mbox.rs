//! Mailing-list archives: an mbox built from the seeds (two threads, a
//! Latin-1 quoted-printable mail, a base64 one, a result in a text
//! attachment, an HTML-only mail), imported from the command line's code,
//! uploaded through the router, and imported again.

use std::path::Path;

use axum::http::{header, StatusCode};
use benchlog::import::{FileOutcome, ImportSummary};
use benchlog::store;
use rusqlite::Connection;

use crate::http::{get, multipart, read, send};
use crate::support::{fresh_db, repo_path, test_state};

const MBOX: &str = "fixtures/mbox/seed-threads.mbox";
const MBOX_GZ: &str = "fixtures/mbox/seed-threads.mbox.gz";
const ROOT_ID: &str = "00c701c658a6$2b6f3b10@multiplay.co.uk";

fn import(conn: &mut Connection, path: &str) -> ImportSummary {
    let mut summary = ImportSummary::default();
    let outcome =
        crate::support::import_file(conn, &repo_path(path), &mut summary).expect("import");
    assert!(
        matches!(outcome, FileOutcome::Mail { messages: 8 }),
        "{outcome:?}"
    );
    summary
}

/// The submission whose mail has this subject and author.
fn submission(conn: &Connection, author: &str, subject_part: &str) -> i64 {
    conn.query_row(
        "SELECT id FROM submissions WHERE author = ?1 AND instr(subject, ?2) > 0",
        [author, subject_part],
        |row| row.get(0),
    )
    .unwrap_or_else(|e| panic!("no submission by {author} about {subject_part}: {e}"))
}

fn runs_of(conn: &Connection, submission_id: i64) -> Vec<store::StoredRun> {
    store::runs_of_submission(conn, submission_id).unwrap()
}

fn value(run: &store::StoredRun, item: &str, metric: &str) -> Option<f64> {
    run.results
        .iter()
        .find(|r| r.item == item && r.metric == metric)
        .map(|r| r.value)
}

#[test]
fn the_seed_mbox_becomes_one_submission_per_message() {
    let (_dir, _path, mut conn) = fresh_db();
    let summary = import(&mut conn, MBOX);
    assert_eq!(
        (
            summary.messages_read,
            summary.messages_added,
            summary.messages_with_results,
            summary.runs_added,
            summary.runs_quoted,
            summary.messages_already_stored,
        ),
        // The 3 runs quoted again are stored as the quoting mails' own
        // copies: 20 found first and 3 copies.
        (8, 8, 8, 26, 3, 0),
        "{summary:?}"
    );
    assert!(summary.failures.is_empty(), "{:?}", summary.failures);
    let counts = store::counts(&conn).unwrap();
    assert_eq!((counts.submissions, counts.runs), (8, 26));

    let mut authors: Vec<String> = conn
        .prepare("SELECT author FROM submissions ORDER BY id")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    authors.sort();
    assert_eq!(
        authors,
        [
            "Axel Schwenke",
            "Michael Vince",
            "Mike Tancsa",
            "Rune Hansen",
            "Sergey Vojtovich",
            "Steven Hartland",
            "Steven Hartland",
            "Sven Petai"
        ]
    );

    // Latin-1, quoted-printable, with an encoded-word subject and the
    // archive's "user at host (Name)" sender.
    let tancsa = submission(&conn, "Mike Tancsa", "à la RT");
    let text = store::get_submission(&conn, tancsa).unwrap().unwrap().text;
    assert!(
        text.starts_with("From: Mike Tancsa <mike@sentex.net>\n"),
        "{text}"
    );
    assert!(
        text.contains("Résumé des mesures (très parlant) :"),
        "{text}"
    );
    let tools: Vec<String> = runs_of(&conn, tancsa).into_iter().map(|r| r.tool).collect();
    assert_eq!(tools, ["bonnie", "bonnie", "bonnie", "diskinfo"]);

    // base64: seed 002's nine one-line sysbench summaries.
    let vojtovich = submission(&conn, "Sergey Vojtovich", "mutexes");
    let runs = runs_of(&conn, vojtovich);
    assert_eq!(runs.len(), 9);
    assert!(runs
        .iter()
        .all(|r| r.tool == "sysbench" && r.threads == Some(64)));
    assert_eq!(value(&runs[0], "total", "qps"), Some(191678.0));

    // A text attachment: seed 004's two sql-bench runs.
    let hansen = submission(&conn, "Rune Hansen", "sql-bench");
    let text = store::get_submission(&conn, hansen).unwrap().unwrap().text;
    assert!(
        text.contains("--- attachment: sql-bench-2.4-vs-2.2.txt ---\n"),
        "{text}"
    );
    let runs = runs_of(&conn, hansen);
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r.tool == "sql-bench"));

    // HTML only: <br> kept the report's lines apart.
    let petai = submission(&conn, "Sven Petai", "8 cores");
    let runs = runs_of(&conn, petai);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].threads, Some(20));
    assert_eq!(value(&runs[0], "select_index", "q_per_s"), Some(21412.77));
}

#[test]
fn quoted_runs_belong_to_their_author_and_are_stored_once() {
    let (_dir, _path, mut conn) = fresh_db();
    import(&mut conn, MBOX);
    let hartland = submission(&conn, "Steven Hartland", "mysql performance");
    let vince = submission(&conn, "Michael Vince", "Re: mysql");
    let reply = conn
        .query_row(
            "SELECT id FROM submissions WHERE author = 'Steven Hartland' AND subject LIKE 'Re:%'",
            [],
            |row| row.get::<_, i64>(0),
        )
        .unwrap();

    // The baseline run is stored in the first mail, and again as a copy
    // in each of the two replies that quote it, all with one copy key.
    let baseline: Vec<(i64, i64, Option<i64>)> = conn
        .prepare(
            "SELECT r.id, r.submission_id, r.copy_key FROM runs r
             JOIN results x ON x.run_id = r.id
             WHERE x.item = 'select_index' AND x.metric = 'q_per_s' AND x.value = 18624.60
             ORDER BY r.id",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let first = baseline[0].0;
    assert_eq!(
        baseline,
        [
            (first, hartland, None),
            (baseline[1].0, vince, Some(first)),
            (baseline[2].0, reply, Some(first))
        ]
    );
    let original = runs_of(&conn, hartland);
    assert_eq!(original.len(), 4);
    assert_eq!(original[0].id, first);
    assert_eq!(original[0].author.as_deref(), Some("Steven Hartland"));

    // Michael Vince quotes it with no attribution line: the run is Steven
    // Hartland's, known from In-Reply-To.
    let quotes = store::quotes_of_submission(&conn, vince, &store::LineWindow::ALL).unwrap();
    assert_eq!(quotes.len(), 1);
    assert_eq!(quotes[0].run_id, first);
    assert_eq!(quotes[0].copy_run_id, Some(baseline[1].0));
    assert_eq!(quotes[0].author.as_deref(), Some("Steven Hartland"));
    assert_eq!(quotes[0].quote_depth, 1);
    // His mail owns its copy (by the author it quotes), and his own run.
    let vince_runs = runs_of(&conn, vince);
    assert_eq!(vince_runs.len(), 2);
    assert_eq!(vince_runs[0].id, baseline[1].0);
    assert_eq!(vince_runs[0].author.as_deref(), Some("Steven Hartland"));
    assert_eq!(vince_runs[0].quote_depth, 1);
    assert_eq!(vince_runs[1].author.as_deref(), Some("Michael Vince"));
    // The quoted message inside his mail is Steven Hartland's too.
    let quoted_author: Option<String> = conn
        .query_row(
            "SELECT author FROM messages WHERE submission_id = ?1 AND first_line > 7
             ORDER BY idx LIMIT 1",
            [vince],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(quoted_author.as_deref(), Some("Steven Hartland"));

    // The reply quotes both at depths 1 and 2 and adds one run.
    let quotes = store::quotes_of_submission(&conn, reply, &store::LineWindow::ALL).unwrap();
    let mut quoted: Vec<(usize, Option<String>)> = quotes
        .iter()
        .map(|q| (q.quote_depth, q.author.clone()))
        .collect();
    quoted.sort();
    assert_eq!(
        quoted,
        [
            (1, Some("Michael Vince".to_owned())),
            (2, Some("Steven Hartland".to_owned()))
        ]
    );
    let new_runs: Vec<store::StoredRun> = runs_of(&conn, reply)
        .into_iter()
        .filter(|run| quotes.iter().all(|q| q.copy_run_id != Some(run.id)))
        .collect();
    assert_eq!(runs_of(&conn, reply).len(), 3, "two copies and one new run");
    assert_eq!(new_runs.len(), 1);
    assert_eq!(
        value(&new_runs[0], "select_index", "q_per_s"),
        Some(28581.18)
    );
    // Line numbers point into the stored text.
    let text = store::get_submission(&conn, reply).unwrap().unwrap().text;
    let line = new_runs[0]
        .results
        .iter()
        .find(|r| r.metric == "q_per_s")
        .unwrap()
        .line;
    assert!(text.lines().nth(line - 1).unwrap().contains("28581.18"));

    // A quoted summary its parent does not hold is stored, attributed to
    // the author of the message answered (no attribution line).
    let schwenke = submission(&conn, "Axel Schwenke", "mutexes");
    let runs = runs_of(&conn, schwenke);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].author.as_deref(), Some("Sergey Vojtovich"));
    assert_eq!(runs[0].quote_depth, 1);

    // One thread of three mails under the first one's id.
    let thread = store::thread(&conn, ROOT_ID, 1_000).unwrap();
    let ids: Vec<i64> = thread.mails.iter().map(|m| m.submission_id).collect();
    assert_eq!(ids, [hartland, vince, reply]);
    assert_eq!(thread.runs.len(), 9, "6 found first, 3 copies");
    assert_eq!(thread.quotes.len(), 3);

    // A page of a thread reads its first mails only, and their runs.
    let first_two = store::thread(&conn, ROOT_ID, 2).unwrap();
    let ids: Vec<i64> = first_two.mails.iter().map(|m| m.submission_id).collect();
    assert_eq!(ids, [hartland, vince]);
    assert!(first_two
        .runs
        .iter()
        .chain(thread.runs.iter().filter(|r| r.submission_id != reply))
        .all(|r| r.submission_id != reply));
    assert_eq!(
        first_two.runs.len(),
        thread
            .runs
            .iter()
            .filter(|r| r.submission_id != reply)
            .count()
    );
    assert!(first_two.quotes.iter().all(|q| q.submission_id != reply));
    assert_eq!(store::thread_length(&conn, ROOT_ID).unwrap(), 3);
}

#[test]
fn importing_again_adds_nothing() {
    let (_dir, _path, mut conn) = fresh_db();
    import(&mut conn, MBOX);
    let before = store::counts(&conn).unwrap();
    let quotes_before: i64 = conn
        .query_row("SELECT count(*) FROM run_quotes", [], |row| row.get(0))
        .unwrap();
    for path in [MBOX_GZ, MBOX] {
        let summary = import(&mut conn, path);
        assert_eq!(summary.messages_already_stored, 8, "{path}");
        assert_eq!(
            (
                summary.messages_added,
                summary.runs_added,
                summary.runs_quoted
            ),
            (0, 0, 0)
        );
    }
    assert_eq!(store::counts(&conn).unwrap(), before);
    let quotes_after: i64 = conn
        .query_row("SELECT count(*) FROM run_quotes", [], |row| row.get(0))
        .unwrap();
    assert_eq!(quotes_after, quotes_before);
}

#[test]
fn the_gzipped_archive_reads_the_same() {
    let (_dir, _path, mut conn) = fresh_db();
    let summary = import(&mut conn, MBOX_GZ);
    assert_eq!(
        (
            summary.messages_added,
            summary.runs_added,
            summary.runs_quoted
        ),
        (8, 26, 3)
    );
}

const GOOD: &str = "From a at b.org  Mon Jan  1 10:00:00 2007\nFrom: A <a@b.org>\nSubject: one\nMessage-ID: <one@b.org>\n\nsuper-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.88\n";

#[test]
fn a_bad_message_is_reported_and_the_rest_imported() {
    let (dir, _path, mut conn) = fresh_db();
    let mbox = format!(
        "{GOOD}\nFrom junk  Mon Jan  1 10:01:00 2007\nX-Junk: 1\n\nno headers here\n\nFrom c at b.org  Mon Jan  1 10:02:00 2007\nFrom: C <c@b.org>\nSubject: three\n\nprose\n"
    );
    let path = dir.path().join("2007-January.txt");
    std::fs::write(&path, mbox).unwrap();
    let mut summary = ImportSummary::default();
    crate::support::import_file(&mut conn, &path, &mut summary).unwrap();
    assert_eq!((summary.messages_read, summary.messages_added), (3, 2));
    assert_eq!(summary.failures.len(), 1);
    assert_eq!(
        summary.failures[0].source_name,
        "2007-January.txt, message 2"
    );
    assert!(
        summary.failures[0].why.contains("no mail headers"),
        "{:?}",
        summary.failures
    );
    assert!(summary
        .report()
        .contains("2007-January.txt, message 2: no mail headers"));
}

/// A mail forwarding a mail that forwards ... `depth` deep.
fn nested_forwards(depth: usize) -> String {
    let mut raw = String::new();
    for level in 0..depth {
        raw.push_str(&format!(
            "From: L{level} <l{level}@x>\nSubject: level {level}\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b{level}\"\n\n--b{level}\nContent-Type: text/plain\n\nbody of level {level}\n--b{level}\nContent-Type: message/rfc822\n\n"
        ));
    }
    raw.push_str("From: Last <last@x>\nSubject: last\n\nthe innermost text\n");
    for level in (0..depth).rev() {
        raw.push_str(&format!("\n--b{level}--\n"));
    }
    raw
}

/// An mbox of a good message, one with no mail headers, and one whose
/// innermost forward is nested too deep to be read.
fn mbox_with_what_cannot_be_read() -> String {
    let deep = nested_forwards(parsers::mbox::MAX_FORWARD_DEPTH + 1);
    format!(
        "{GOOD}\nFrom junk  Mon Jan  1 10:01:00 2007\nX-Junk: 1\n\nno headers here\n\nFrom l0 at x  Mon Jan  1 10:02:00 2007\n{deep}"
    )
}

#[tokio::test]
async fn an_upload_says_what_of_an_archive_was_not_read_and_why() {
    let (_dir, db, state) = test_state();
    let mbox = mbox_with_what_cannot_be_read();
    let response = send(
        &state,
        multipart(&[("file", Some("2007-January.txt"), mbox.as_bytes())]),
    )
    .await;
    // A page rather than a redirect: it lists what was not read.
    assert!(response.headers().get(header::SET_COOKIE).is_some());
    let (status, page) = read(response).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("2 submissions stored, 2 not read"), "{page}");
    assert!(
        page.contains("2007-January.txt, message 2: no mail headers"),
        "{page}"
    );
    assert!(
        page.contains("2007-January.txt, message 3: a forwarded message (message/rfc822) nested 4 deep was not read"),
        "{page}"
    );
    assert!(page.contains(r#"href="/submissions/1""#), "{page}");
    assert!(page.contains(r#"href="/submissions/2""#), "{page}");
    assert_eq!(crate::support::counts(&db).submissions, 2);

    // benchlog ingest reports the same.
    let (dir, _path, mut conn) = fresh_db();
    let path = dir.path().join("2007-January.txt");
    std::fs::write(&path, &mbox).unwrap();
    let mut summary = ImportSummary::default();
    crate::support::import_file(&mut conn, &path, &mut summary).unwrap();
    assert_eq!((summary.messages_read, summary.messages_added), (3, 2));
    let report = summary.report();
    assert!(
        report.contains("2007-January.txt, message 2: no mail headers"),
        "{report}"
    );
    assert!(
        report.contains("Parts of messages not read:\n2007-January.txt, message 3: a forwarded message (message/rfc822) nested 4 deep was not read: forwards are read 3 deep at most\n"),
        "{report}"
    );
}

#[test]
fn a_message_that_fails_to_store_leaves_nothing_and_spares_its_batch() {
    let (_dir, _path, mut conn) = fresh_db();
    let first =
        benchlog::intake::prepare_mail("first".into(), b"From: A <a@b.org>\nSubject: a\n\nprose\n")
            .unwrap();
    let mut broken = benchlog::intake::prepare_mail(
        "broken".into(),
        GOOD.split_once('\n').unwrap().1.as_bytes(),
    )
    .unwrap();
    broken.document.runs[0].results[0].value = f64::NAN;
    let last = benchlog::intake::prepare_mail(
        "last".into(),
        b"From: C <c@b.org>\nSubject: c\n\nmore prose\n",
    )
    .unwrap();
    let mut summary = ImportSummary::default();
    crate::support::import_mails(
        &mut conn,
        vec![Ok(first), Ok(broken), Ok(last)],
        &mut summary,
    )
    .unwrap();
    assert_eq!(summary.messages_added, 2);
    assert_eq!(summary.failures.len(), 1);
    assert_eq!(summary.failures[0].source_name, "broken");
    let counts = store::counts(&conn).unwrap();
    assert_eq!((counts.submissions, counts.runs, counts.results), (2, 0, 0));
    let mails: i64 = conn
        .query_row("SELECT count(*) FROM mails", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mails, 2);
}

#[tokio::test]
async fn an_uploaded_archive_shows_its_threads_and_quotes() {
    let (_dir, db, state) = test_state();
    let gz = std::fs::read(repo_path(MBOX_GZ)).unwrap();
    let response = send(
        &state,
        multipart(&[("file", Some("2006-April.txt.gz"), &gz)]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    // The first message, with the others of the upload listed beside it.
    let location = response.headers()[header::LOCATION].to_str().unwrap();
    assert!(
        location.starts_with("/submissions/1?uploaded=1,2,3"),
        "{location}"
    );
    let conn = store::open(Path::new(&db)).unwrap();
    assert_eq!(store::counts(&conn).unwrap().submissions, 8);

    // Michael Vince's reply: its quote and the way to the thread.
    let vince = submission(&conn, "Michael Vince", "Re: mysql");
    let (status, page) = get(&state, &format!("/submissions/{vince}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        page.contains("quoted from <a href=\"/submissions/1#run-1\">run #1</a>"),
        "{page}"
    );
    assert!(page.contains("Show the whole thread"), "{page}");

    for uri in [
        format!("/threads/{}", ROOT_ID.replace('$', "%24")),
        format!("/threads/%3C{ROOT_ID}%3E"),
        format!("/threads/{vince}"),
    ] {
        let (status, page) = get(&state, &uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {page}");
        assert_eq!(page.matches("class=\"mail depth-").count(), 3, "{uri}");
        assert!(page.contains("class=\"mail depth-2\""), "{uri}");
        assert_eq!(page.matches("quoted from <a").count(), 3, "{uri}");
        assert!(page.contains("Michael Vince"), "{uri}");
    }
    let (status, page) = get(&state, "/threads/no-such-message@example.org").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{page}");
    let (status, _) = get(&state, "/threads/9999").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[test]
fn the_command_line_imports_an_archive_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.db");
    let gz = repo_path(MBOX_GZ);
    let run = |extra: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_benchlog"));
        command
            .arg("ingest")
            .arg("--db")
            .arg(&db)
            .args(extra)
            .env_remove("BENCHLOG_DB")
            .env_remove("BENCHLOG_INGEST_REPORT");
        command.output().unwrap()
    };
    let first = run(&[gz.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{out}");
    assert!(
        out.contains("8 messages read, 8 with results, 26 runs added (3 of them quoted again, linked to the earlier run); duplicates skipped: 0 messages already stored (0 of them known before decoding); 0 messages could not be read"),
        "{out}"
    );
    assert!(!dir.path().join("benchlog-ingest-report.txt").exists());

    let junk = dir.path().join("broken.mbox");
    std::fs::write(
        &junk,
        "From x  Mon Jan  1 10:01:00 2007\nX-Junk: 1\n\nno headers\n",
    )
    .unwrap();
    let again = run(&[gz.to_str().unwrap(), junk.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&again.stdout);
    assert!(
        !again.status.success(),
        "a message that could not be read fails the command"
    );
    assert!(out.contains("0 runs added (0 of them quoted again, linked to the earlier run); duplicates skipped: 8 messages already stored (8 of them known before decoding); 1 messages could not be read"), "{out}");
    let report = std::fs::read_to_string(dir.path().join("benchlog-ingest-report.txt")).unwrap();
    assert!(
        report.contains("broken.mbox, message 1: no mail headers"),
        "{report}"
    );
}

/// A mail with `count` distinct References ids, `<r0@x>` (the root) first
/// and `<r{count-1}@x>` last; under 1 MB for 100,000 ids.
fn mail_with_references(message_id: &str, in_reply_to: Option<&str>, count: usize) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut raw = format!("From: B <b@b.org>\nSubject: Re: one\nMessage-ID: <{message_id}>\n");
    if let Some(parent) = in_reply_to {
        let _ = writeln!(raw, "In-Reply-To: <{parent}>");
    }
    raw.push_str("References:");
    for i in 0..count {
        let _ = write!(raw, " <r{i}@x>");
        if i % 8 == 7 {
            raw.push('\n');
        }
    }
    raw.push_str("\n\nagreed\n");
    raw.into_bytes()
}

fn stored_mail(conn: &Connection, message_id: &str) -> (String, String) {
    conn.query_row(
        "SELECT refs, thread_id FROM mails WHERE message_id = ?1",
        [message_id],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
    .unwrap()
}

#[test]
fn a_mail_with_200000_references_is_stored_at_once_and_threaded() {
    let (_dir, _path, mut conn) = fresh_db();
    // The thread's last message, then two answers to it: one saying so in
    // In-Reply-To, one only as the last of 200,000 References.
    let parent = benchlog::intake::prepare_mail(
        "parent".into(),
        b"From: A <a@b.org>\nSubject: one\nMessage-ID: <r199999@x>\nReferences: <root@x>\n\nfirst\n",
    )
    .unwrap();
    crate::support::import_mails(&mut conn, vec![Ok(parent)], &mut ImportSummary::default())
        .unwrap();
    let (_, parent_thread) = stored_mail(&conn, "r199999@x");
    assert_eq!(parent_thread, "root@x");

    for (message_id, in_reply_to) in [("a@x", Some("r199999@x")), ("b@x", None)] {
        let raw = mail_with_references(message_id, in_reply_to, 200_000);
        let start = std::time::Instant::now();
        let prepared = benchlog::intake::prepare_mail(message_id.into(), &raw).unwrap();
        let mut summary = ImportSummary::default();
        crate::support::import_mails(&mut conn, vec![Ok(prepared)], &mut summary).unwrap();
        let took = start.elapsed();
        assert_eq!(summary.messages_added, 1, "{summary:?}");
        assert!(
            took < std::time::Duration::from_secs(1),
            "{message_id}: {took:?}"
        );

        let (refs, thread) = stored_mail(&conn, message_id);
        let refs: Vec<&str> = refs.split(' ').collect();
        assert_eq!(refs.len(), parsers::mbox::MAX_REFERENCES, "{message_id}");
        assert_eq!(refs[0], "r0@x", "the root is kept");
        assert_eq!(refs[refs.len() - 1], "r199999@x", "the newest is kept");
        assert_eq!(
            refs[1],
            format!("r{}@x", 200_000 - (parsers::mbox::MAX_REFERENCES - 1))
        );
        assert_eq!(
            thread, parent_thread,
            "{message_id} joins its parent's thread"
        );
    }
}

const FORWARD: &str = "From: Fwd Person <f@example.org>\nSubject: Fwd: mysql performance\nDate: Fri, 21 Apr 2006 10:00:00 +0200\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"fwd\"\n\n--fwd\nContent-Type: text/plain\n\nSee the numbers below.\n--fwd\nContent-Type: message/rfc822\n\nFrom: mv at thebeastie.org (Michael Vince)\nDate: Thu, 20 Apr 2006 09:46:56 +1000\nSubject: mysql performance on 4 * dualcore opteron\nMIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\n\n";

#[test]
fn a_forwarded_report_gives_its_runs() {
    let (_dir, _path, mut conn) = fresh_db();
    // Seed 000's own text (lines 41-59): two super-smack runs.
    let seed = crate::support::seed_000();
    let report: Vec<&str> = seed.lines().skip(40).take(19).collect();
    assert!(report[0].starts_with("Interestingly"), "{report:?}");
    let raw = format!("{FORWARD}{}\n\n--fwd--\n", report.join("\n"));

    let input = benchlog::intake::prepare_input(Some("fwd.eml"), raw.as_bytes(), 1_000).unwrap();
    let ids = crate::support::import_input(&mut conn, "fwd.eml", input);
    assert_eq!(ids.len(), 1);
    let text = store::get_submission(&conn, ids[0]).unwrap().unwrap().text;
    assert!(
        text.contains("--- forwarded message ---\nFrom: Michael Vince <mv@thebeastie.org>\nDate: Thu, 20 Apr 2006 09:46:56 +1000\nSubject: mysql performance on 4 * dualcore opteron\n\nInterestingly"),
        "{text}"
    );
    let runs = runs_of(&conn, ids[0]);
    let values: Vec<(Option<u32>, Option<f64>)> = runs
        .iter()
        .map(|run| (run.threads, value(run, "select_index", "q_per_s")))
        .collect();
    assert_eq!(
        values,
        [(Some(10), Some(19234.02)), (Some(10), Some(16583.43))],
        "{text}"
    );
    let authors: Vec<Option<&str>> = runs.iter().map(|run| run.author.as_deref()).collect();
    assert_eq!(
        authors,
        [Some("Michael Vince"); 2],
        "the forwarded runs are their writer's, not the forwarder's"
    );
}

/// A mail whose base64 body decodes to text with a NUL in it.
const NUL_IN_BASE64: &str = "From: A <a@b.org>\nSubject: core\nMessage-ID: <nul@b.org>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: base64\n\naGVsbG8Ad29ybGQK\n";

/// A mail with a line of 2 MiB, as a paste could not have.
fn long_line_mail() -> String {
    format!(
        "From: A <a@b.org>\nSubject: long\nMessage-ID: <long@b.org>\nMIME-Version: 1.0\n\nfirst\n{}\n",
        "x".repeat(2 * 1024 * 1024)
    )
}

#[test]
fn mailed_text_is_refused_as_a_paste_would_be() {
    use benchlog::intake::InputError;
    let long = long_line_mail();
    // The same text pasted, for the messages to compare with.
    let pasted_long =
        benchlog::intake::decode_input(format!("first\n{}\n", "x".repeat(2 << 20)).as_bytes());
    assert_eq!(pasted_long, Err(InputError::LongLine(2)));

    for (name, raw, want) in [
        ("nul.eml", NUL_IN_BASE64.to_owned(), InputError::Binary),
        // Line 6 of the decoded text: its From, Subject and Message-ID,
        // a blank line and "first" come before it.
        ("long.eml", long.clone(), InputError::LongLine(6)),
    ] {
        let error = benchlog::intake::prepare_input(Some(name), raw.as_bytes(), 1_000).unwrap_err();
        assert_eq!(error, want, "{name}");
    }

    // In an mbox the message is named; ingest reports it and keeps the rest.
    let mbox = format!(
        "{GOOD}\nFrom a at b.org  Mon Jan  1 10:01:00 2007\n{NUL_IN_BASE64}\nFrom a at b.org  Mon Jan  1 10:02:00 2007\n{long}"
    );
    assert_eq!(
        benchlog::intake::prepare_input(Some("2007-January.txt"), mbox.as_bytes(), 1_000)
            .unwrap_err(),
        InputError::InMessage {
            message: 2,
            error: Box::new(InputError::Binary)
        }
    );
    let (dir, _path, mut conn) = fresh_db();
    let path = dir.path().join("2007-January.txt");
    std::fs::write(&path, &mbox).unwrap();
    let mut summary = ImportSummary::default();
    crate::support::import_file(&mut conn, &path, &mut summary).unwrap();
    assert_eq!((summary.messages_read, summary.messages_added), (3, 1));
    let failures: Vec<(&str, &str)> = summary
        .failures
        .iter()
        .map(|f| (f.source_name.as_str(), f.why.as_str()))
        .collect();
    assert_eq!(
        failures,
        [
            (
                "2007-January.txt, message 2",
                InputError::Binary.to_string().as_str()
            ),
            (
                "2007-January.txt, message 3",
                InputError::LongLine(6).to_string().as_str()
            ),
        ]
    );
    assert_eq!(store::counts(&conn).unwrap().submissions, 1);
}

#[tokio::test]
async fn an_uploaded_mail_with_a_nul_or_a_long_line_is_a_400_and_stores_nothing() {
    let (_dir, db, state) = test_state();
    let long = long_line_mail();
    let mbox = format!("{GOOD}\nFrom a at b.org  Mon Jan  1 10:01:00 2007\n{NUL_IN_BASE64}");
    for (name, raw, message) in [
        ("nul.eml", NUL_IN_BASE64.as_bytes(), "binary"),
        ("long.eml", long.as_bytes(), "line 6 is longer than"),
        (
            "2007-January.txt",
            mbox.as_bytes(),
            "message 2 of the archive",
        ),
    ] {
        let response = send(&state, multipart(&[("file", Some(name), raw)])).await;
        let (status, page) = read(response).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{name}");
        assert!(page.contains(message), "{name}: {page}");
    }
    let conn = store::open(Path::new(&db)).unwrap();
    assert_eq!(store::counts(&conn).unwrap().submissions, 0);
}
