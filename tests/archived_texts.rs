//! An archive's prose does not become the database: a public-inbox
//! import keeps the text of the messages holding runs or near misses and
//! of their thread context, and of the rest only the header block and
//! where the archive keeps them (migrations/0015_archived_texts.sql);
//! and a re-import knows stored messages before it decodes them.

use std::path::Path;

use benchlog::import::public_inbox::{self, KeepTexts};
use benchlog::import::ImportSummary;
use rusqlite::Connection;

use crate::public_inbox::append_mails;
use crate::support::{fresh_db, repo_path, seed_000};

fn mail(id: &str, replying_to: Option<&str>, subject: &str, body: &str) -> String {
    let reply = replying_to.map_or_else(String::new, |to| {
        format!("In-Reply-To: <{to}>\nReferences: <{to}>\n")
    });
    format!(
        "From: Poster <p@example.org>\nDate: Mon, 1 Jan 2007 10:00:00 +0000\n\
         Subject: {subject}\nMessage-ID: <{id}>\n{reply}\n{body}"
    )
}

const PROSE: &str = "I have been wondering about the cache sizes on these boxes; \
                     has anybody compared the defaults with the tuned values?\n";

/// A thread with a run and its context, and a thread of prose only:
/// `q` asks, `a` answers with seed 000's runs, `r` answers `a`; `p` and
/// `p2` (answering `p`) hold no run and answer none.
fn thread_mails() -> Vec<String> {
    vec![
        mail(
            "q@x",
            None,
            "scheduler numbers?",
            "Has anyone measured ULE on the zebrafish boxes?\n",
        ),
        mail("a@x", Some("q@x"), "Re: scheduler numbers?", &seed_000()),
        mail(
            "r@x",
            Some("a@x"),
            "Re: scheduler numbers?",
            "Thanks, very useful.\n",
        ),
        mail("p@x", None, "cache sizes", PROSE),
        mail("p2@x", Some("p@x"), "Re: cache sizes", "No idea, sorry.\n"),
    ]
}

fn import(conn: &mut Connection, inbox: &Path, keep: KeepTexts) -> ImportSummary {
    let inbox = public_inbox::find(inbox).unwrap().expect("an inbox");
    let mut summary = ImportSummary::default();
    crate::support::import_inbox(
        conn,
        &inbox,
        benchlog::limits::BATCH_ITEMS,
        keep,
        &mut summary,
    )
    .expect("import");
    summary
}

/// Per Message-ID: the stored text, its thread, its runs, and the bytes
/// the archive keeps for it (None: the text is stored in full).
fn stored(conn: &Connection) -> Vec<(String, String, String, i64, Option<i64>)> {
    conn.prepare(
        "SELECT m.message_id, s.text, m.thread_id,
                (SELECT count(*) FROM runs r WHERE r.submission_id = s.id),
                a.text_bytes
         FROM mails m JOIN submissions s ON s.id = m.submission_id
         LEFT JOIN archived_texts a ON a.submission_id = s.id
         ORDER BY m.message_id",
    )
    .unwrap()
    .query_map([], |row| {
        Ok((
            row.get(0)?,
            row.get(1)?,
            row.get(2)?,
            row.get(3)?,
            row.get(4)?,
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn prose_keeps_its_headers_and_results_keep_their_thread() {
    let dir = tempfile::tempdir().unwrap();
    let inbox = dir.path().join("list");
    append_mails(&inbox, &thread_mails());

    let (_d1, _p1, mut full) = fresh_db();
    let summary_full = import(&mut full, &inbox, KeepTexts::All);
    let (_d2, _p2, mut lean) = fresh_db();
    let summary = import(&mut lean, &inbox, KeepTexts::WithFindings);
    assert!(summary.failures.is_empty(), "{:?}", summary.failures);
    assert_eq!(summary_full.messages_headers_only, 0);
    // q was stored with its headers, then brought back once `a` answered it.
    assert_eq!(
        (
            summary.messages_added,
            summary.messages_headers_only,
            summary.texts_restored
        ),
        (5, 3, 1)
    );

    let full = stored(&full);
    let lean = stored(&lean);
    assert_eq!(full.len(), 5);
    for (with_all, kept) in full.iter().zip(&lean) {
        let (id, text, thread, runs, _) = with_all;
        assert_eq!((id, thread, runs), (&kept.0, &kept.2, &kept.3), "{id}");
        match id.as_str() {
            // The run, the question it answers and the reply to it: in full.
            "a@x" | "q@x" | "r@x" => {
                assert_eq!(&kept.1, text, "{id} in full");
                assert_eq!(kept.4, None, "{id}");
            }
            // Prose answering no result: its header block, and how much
            // of it the archive keeps.
            "p@x" | "p2@x" => {
                let header = &text[..text.find("\n\n").unwrap() + 1];
                assert_eq!(&kept.1, header, "{id}");
                assert!(header.contains(&format!("Message-ID: <{id}>")), "{header}");
                assert_eq!(kept.4, Some((text.len() - header.len()) as i64), "{id}");
            }
            other => panic!("unexpected message {other}"),
        }
    }
    assert!(
        lean.iter().find(|m| m.0 == "a@x").unwrap().3 > 0,
        "a holds runs"
    );
}

#[test]
fn a_later_result_brings_back_the_prose_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    let inbox = dir.path().join("list");
    append_mails(&inbox, &thread_mails());
    let (_d, _p, mut conn) = fresh_db();
    import(&mut conn, &inbox, KeepTexts::WithFindings);

    // The mirror fetches a reply to the prose thread holding a run.
    let reply = mail("b@x", Some("p2@x"), "Re: cache sizes", &seed_000())
        .replace("References: <p2@x>", "References: <p@x> <p2@x>");
    append_mails(&inbox, &[reply]);
    let summary = import(&mut conn, &inbox, KeepTexts::WithFindings);
    assert_eq!(
        (summary.messages_added, summary.texts_restored),
        (1, 2),
        "p2, which b answers, and p, which b's References name"
    );
    let now = stored(&conn);
    let p2 = now.iter().find(|m| m.0 == "p2@x").unwrap();
    assert!(p2.1.ends_with("No idea, sorry.\n"), "{}", p2.1);
    assert_eq!(p2.4, None);
    let p = now.iter().find(|m| m.0 == "p@x").unwrap();
    assert!(p.1.contains("cache sizes on these boxes"), "{}", p.1);
    // Its messages' rows are those of the full text again.
    let (last_line, lines): (i64, usize) = conn
        .query_row(
            "SELECT max(g.last_line), length(s.text) - length(replace(s.text, char(10), ''))
             FROM messages g JOIN mails m ON m.submission_id = g.submission_id
             JOIN submissions s ON s.id = m.submission_id WHERE m.message_id = 'p@x'",
            [],
            |row| Ok((row.get(0)?, row.get::<_, i64>(1)? as usize)),
        )
        .unwrap();
    assert_eq!(last_line as usize, lines, "the message spans the text");
}

#[test]
fn a_header_only_message_is_found_by_its_headers_not_its_prose() {
    let dir = tempfile::tempdir().unwrap();
    let inbox = dir.path().join("list");
    append_mails(&inbox, &thread_mails());
    let (_d, _p, mut conn) = fresh_db();
    import(&mut conn, &inbox, KeepTexts::WithFindings);
    let found = |query: &str| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM submissions_fts WHERE submissions_fts MATCH ?1",
            [query],
            |row| row.get(0),
        )
        .unwrap()
    };
    assert_eq!(found("\"cache sizes\""), 2, "both subjects");
    assert_eq!(found("tuned"), 0, "the prose is the archive's");
    assert_eq!(
        found("zebrafish"),
        1,
        "the question brought back is indexed"
    );
}

#[tokio::test]
async fn the_page_of_a_header_only_message_says_where_its_text_is() {
    let dir = tempfile::tempdir().unwrap();
    let inbox = dir.path().join("list");
    append_mails(&inbox, &thread_mails());
    let (_d, path, mut conn) = fresh_db();
    import(&mut conn, &inbox, KeepTexts::WithFindings);
    let id: i64 = conn
        .query_row(
            "SELECT submission_id FROM mails WHERE message_id = 'p@x'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    drop(conn);
    let state = benchlog::web::state::AppState::open(&path).unwrap();
    let (status, body) = crate::http::get(&state, &format!("/submissions/{id}")).await;
    assert_eq!(status, 200);
    assert!(body.contains("kept by the archive"), "{body}");
    let canonical = std::fs::canonicalize(&inbox).unwrap();
    assert!(
        body.contains(&*canonical.to_string_lossy()),
        "names the archive: {body}"
    );
}

#[test]
fn a_reimported_mbox_is_known_before_it_is_decoded() {
    let (_d, _p, mut conn) = fresh_db();
    let mbox = repo_path("fixtures/mbox/seed-threads.mbox");
    let mut first = ImportSummary::default();
    crate::support::import_file(&mut conn, &mbox, &mut first).unwrap();
    assert!(first.messages_added > 5, "{first:?}");
    assert_eq!(first.messages_known_unread, 0);
    let mut again = ImportSummary::default();
    crate::support::import_file(&mut conn, &mbox, &mut again).unwrap();
    assert_eq!(
        (
            again.messages_read,
            again.messages_added,
            again.messages_already_stored,
            again.messages_known_unread
        ),
        (
            first.messages_read,
            0,
            first.messages_added,
            first.messages_added
        )
    );
}
