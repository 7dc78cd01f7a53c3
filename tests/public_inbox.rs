//! public-inbox archives in (fixtures/public-inbox/, made by public-inbox
//! 1.9.0 from the seed mbox; fixtures/SOURCES.md says how): what they
//! store equals what the same mails store from the mbox, a re-import
//! reads only new commits, and a damaged archive is an error.
//!
//! `v2` holds four of the seed mails; `v2-next` is the same epoch a
//! generation later, made by the same tools: one more mail, then a `d`
//! commit deleting one of the four.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use benchlog::import::public_inbox::{self, InboxRead, KeepTexts, Version};
use benchlog::import::ImportSummary;
use rusqlite::Connection;

use crate::support::{fresh_db, repo_path};

const MBOX: &str = "fixtures/mbox/seed-threads.mbox";
/// The mails of `v2`, and the one `v2-next` adds and the one it deletes.
const V2_IDS: [&str; 4] = [
    "00c701c658a6$2b6f3b10@multiplay.co.uk",
    "01a201c66464$0badf00d@multiplay.co.uk",
    "20140210120000.GA1@mariadb.org",
    "3A6E9A10.1@example.no",
];
const ADDED_NEXT: &str = "52F9E5A0.1@mariadb.com";
const DELETED_NEXT: &str = "3A6E9A10.1@example.no";

fn import_inbox(conn: &mut Connection, path: &Path) -> (ImportSummary, InboxRead) {
    let inbox = public_inbox::find(path)
        .expect("reading the folder")
        .expect("an inbox");
    let mut summary = ImportSummary::default();
    // Every text in full, to compare with the mbox's (tests/archived_texts.rs
    // holds the default, which keeps only the headers of prose).
    let read = crate::support::import_inbox(
        conn,
        &inbox,
        benchlog::limits::BATCH_ITEMS,
        KeepTexts::All,
        &mut summary,
    )
    .expect("import");
    (summary, read)
}

fn import_mbox(conn: &mut Connection) {
    let mut summary = ImportSummary::default();
    crate::support::import_file(conn, &repo_path(MBOX), &mut summary).expect("mbox import");
    assert!(summary.failures.is_empty(), "{:?}", summary.failures);
}

/// A copy of a fixture archive in a folder of its own, as a mirror would
/// be on disk.
fn copy_of(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("seed");
    copy_dir(&repo_path(fixture), &to);
    (dir, to)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// What a stored message is: its text, thread links and runs (tool,
/// test, threads, and each result), by Message-ID.
type Stored = BTreeMap<String, (String, Option<String>, String, Vec<String>)>;

fn stored(conn: &Connection) -> Stored {
    let mut out = Stored::new();
    let mut mails = conn
        .prepare(
            "SELECT m.message_id, s.text, m.in_reply_to, m.thread_id, s.id
             FROM mails m JOIN submissions s ON s.id = m.submission_id",
        )
        .unwrap();
    let rows = mails
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<String>>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, i64>(4)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (message_id, text, in_reply_to, thread_id, submission) = row.unwrap();
        let mut runs = conn
            .prepare(
                "SELECT r.tool || '|' || ifnull(r.test, '') || '|' || ifnull(r.threads, '')
                        || '|' || group_concat(x.item || '=' || x.metric || '=' || x.value, ',')
                 FROM runs r JOIN results x ON x.run_id = r.id
                 WHERE r.submission_id = ?1 GROUP BY r.id ORDER BY r.idx",
            )
            .unwrap()
            .query_map([submission], |row| row.get::<_, String>(0))
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        runs.sort();
        let previous = out.insert(message_id.clone(), (text, in_reply_to, thread_id, runs));
        assert!(previous.is_none(), "{message_id} stored twice");
    }
    out
}

fn ids(stored: &Stored) -> BTreeSet<&str> {
    stored.keys().map(String::as_str).collect()
}

#[test]
fn a_v2_inbox_stores_what_its_mails_store_from_the_mbox() {
    let (_dir, _path, mut from_mbox) = fresh_db();
    import_mbox(&mut from_mbox);
    let (_dir2, _path2, mut conn) = fresh_db();
    let (summary, read) = import_inbox(&mut conn, &repo_path("fixtures/public-inbox/v2"));
    assert_eq!(
        (
            summary.messages_read,
            summary.messages_added,
            summary.failures.len()
        ),
        (4, 4, 0),
        "{summary:?}"
    );
    assert_eq!(
        (read.commits_read, read.messages, read.commits_skipped),
        (4, 4, 0)
    );

    let inbox = stored(&conn);
    assert_eq!(ids(&inbox), V2_IDS.into_iter().collect());
    let mbox: Stored = stored(&from_mbox)
        .into_iter()
        .filter(|(id, _)| inbox.contains_key(id))
        .collect();
    assert_eq!(inbox, mbox, "texts, thread links and runs");
    let runs: usize = inbox.values().map(|(_, _, _, runs)| runs.len()).sum();
    assert!(runs >= 4, "the seed mails hold runs: {runs}");
}

#[test]
fn a_v1_inbox_is_read_commit_by_commit_and_its_deletion_honoured() {
    let (_dir, _path, mut from_mbox) = fresh_db();
    import_mbox(&mut from_mbox);
    let path = repo_path("fixtures/public-inbox/v1");
    let inbox = public_inbox::find(&path).unwrap().unwrap();
    assert_eq!(inbox.version, Version::V1);
    let (_dir2, _path2, mut conn) = fresh_db();
    let (summary, read) = import_inbox(&mut conn, &path);
    // Five mails delivered, then the last removed by public-inbox-learn rm.
    assert_eq!(
        (
            read.commits_read,
            read.messages,
            read.deletions,
            read.deleted_before_read
        ),
        (6, 5, 1, 1)
    );
    assert_eq!((summary.messages_added, summary.failures.len()), (4, 0));
    let stored_v1 = stored(&conn);
    assert!(!stored_v1.contains_key(DELETED_NEXT));
    assert!(stored_v1.contains_key(ADDED_NEXT));
    let mbox: Stored = stored(&from_mbox)
        .into_iter()
        .filter(|(id, _)| stored_v1.contains_key(id))
        .collect();
    assert_eq!(stored_v1, mbox);
}

#[test]
fn a_reimport_reads_nothing_and_then_only_the_new_commits() {
    let (_dir, inbox) = copy_of("fixtures/public-inbox/v2");
    let (_db_dir, _path, mut conn) = fresh_db();
    import_inbox(&mut conn, &inbox);

    let (summary, read) = import_inbox(&mut conn, &inbox);
    assert_eq!((read.commits_read, read.commits_skipped), (0, 4));
    assert_eq!(summary, ImportSummary::default(), "nothing read");

    // The mirror fetches the next generation: one mail, then a `d`.
    std::fs::remove_dir_all(inbox.join("git/0.git")).unwrap();
    copy_dir(
        &repo_path("fixtures/public-inbox/v2-next/git/0.git"),
        &inbox.join("git/0.git"),
    );
    let (summary, read) = import_inbox(&mut conn, &inbox);
    assert_eq!(
        (
            read.commits_read,
            read.commits_skipped,
            read.messages,
            read.deletions
        ),
        (2, 4, 1, 1)
    );
    assert_eq!((summary.messages_read, summary.messages_added), (1, 1));
    let now = stored(&conn);
    // The reply joins its thread, stored by the first import.
    assert_eq!(now[ADDED_NEXT].2, "20140210120000.GA1@mariadb.org");
    // A deletion after the message was stored keeps it (see public_inbox).
    assert!(now.contains_key(DELETED_NEXT));
    assert_eq!(now.len(), 5);

    let (_, read) = import_inbox(&mut conn, &inbox);
    assert_eq!((read.commits_read, read.commits_skipped), (0, 6));
}

#[test]
fn a_message_deleted_later_in_the_same_import_is_not_stored() {
    let (_dir, _path, mut conn) = fresh_db();
    let (summary, read) = import_inbox(&mut conn, &repo_path("fixtures/public-inbox/v2-next"));
    assert_eq!(
        (read.messages, read.deletions, read.deleted_before_read),
        (5, 1, 1)
    );
    assert_eq!(summary.messages_added, 4);
    assert!(!stored(&conn).contains_key(DELETED_NEXT));
}

#[test]
fn a_mail_in_the_mbox_and_the_inbox_is_stored_once() {
    let (_dir, _path, mut conn) = fresh_db();
    import_mbox(&mut conn);
    let before = stored(&conn);
    let (summary, _) = import_inbox(&mut conn, &repo_path("fixtures/public-inbox/v2"));
    assert_eq!(
        (summary.messages_added, summary.messages_already_stored),
        (0, 4)
    );
    // Found by Message-ID: the mbox's bytes differ (pipermail rewrote them).
    assert_eq!(stored(&conn), before);
}

#[test]
fn a_damaged_or_empty_archive_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let no_epoch = dir.path().join("no-epoch");
    std::fs::create_dir_all(no_epoch.join("git/junk")).unwrap();
    let error = public_inbox::find(&no_epoch).unwrap_err().to_string();
    assert!(error.contains("holds no epoch repository"), "{error}");

    let not_git = dir.path().join("not-git");
    std::fs::create_dir_all(not_git.join("git/0.git")).unwrap();
    std::fs::write(not_git.join("git/0.git/HEAD"), "garbage").unwrap();
    let (_db_dir, _path, mut conn) = fresh_db();
    let mut import_error = |path: &Path| {
        let inbox = public_inbox::find(path).unwrap().unwrap();
        let mut summary = ImportSummary::default();
        let keep = KeepTexts::All;
        crate::support::import_inbox(&mut conn, &inbox, 10, keep, &mut summary).unwrap_err()
    };
    let error = import_error(&not_git);
    assert!(
        format!("{error:#}").contains("is not a git repository that can be read"),
        "{error:#}"
    );

    // Its one pack cut short: its objects cannot be read.
    let (_copy, cut) = copy_of("fixtures/public-inbox/v2");
    let pack_dir = cut.join("git/0.git/objects/pack");
    for entry in std::fs::read_dir(&pack_dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "pack") {
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        }
    }
    let error = import_error(&cut);
    assert!(
        format!("{error:#}").contains("a damaged archive?"),
        "{error:#}"
    );

    // A folder of files is no archive: read as files, as before.
    assert!(public_inbox::find(&repo_path("fixtures/mbox"))
        .unwrap()
        .is_none());
}

#[test]
fn benchlog_ingest_says_how_many_commits_it_skipped() {
    let (_dir, inbox) = copy_of("fixtures/public-inbox/v2");
    let db = inbox.parent().unwrap().join("b.db");
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_benchlog"))
            .args(["ingest", "--db"])
            .arg(&db)
            .arg(&inbox)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let first = run();
    assert!(
        first.contains("4 new commits read (4 messages, 0 deletions); 0 commits skipped"),
        "{first}"
    );
    let again = run();
    assert!(
        again.contains("0 new commits read (0 messages, 0 deletions); 4 commits skipped"),
        "{again}"
    );
}

/// A v2 inbox of `messages` mails laid out as public-inbox writes one (a
/// commit per message, its blob `m`), written with gix: seed 000's text
/// under headers of its own, so that every message is new.
fn write_inbox(dir: &Path, messages: usize) -> PathBuf {
    let inbox = dir.join("big");
    let body = crate::support::seed_000();
    let mails: Vec<String> = (0..messages)
        .map(|i| {
            format!(
                "From: Poster {i} <p{i}@example.org>\nDate: Mon, 1 Jan 2007 10:{:02}:00 +0000\n\
                 Subject: run {i}\nMessage-ID: <run{i}@example.org>\n\n{body}",
                i % 60
            )
        })
        .collect();
    append_mails(&inbox, &mails);
    inbox
}

/// Commits `mails` to the v2 inbox at `inbox` (epoch 0, made if needed),
/// one commit each with its blob `m`, after the epoch's head.
pub fn append_mails(inbox: &Path, mails: &[String]) {
    let git_dir = inbox.join("git/0.git");
    let repo = if git_dir.exists() {
        gix::open(&git_dir).unwrap()
    } else {
        gix::init_bare(&git_dir).unwrap()
    };
    let mut parent: Option<gix::ObjectId> = repo.head_id().ok().map(|id| id.detach());
    for (i, mail) in mails.iter().enumerate() {
        let blob = repo.write_blob(mail.as_bytes()).unwrap().detach();
        let tree = gix::objs::Tree {
            entries: vec![gix::objs::tree::Entry {
                mode: gix::objs::tree::EntryKind::Blob.into(),
                filename: "m".into(),
                oid: blob,
            }],
        };
        let tree = repo.write_object(&tree).unwrap().detach();
        let who = gix::actor::SignatureRef {
            name: "Poster".into(),
            email: "p@example.org".into(),
            time: "1167645600 +0000",
        };
        let commit = repo
            .commit_as(who, who, "HEAD", format!("mail {i}"), tree, parent)
            .unwrap();
        parent = Some(commit.detach());
    }
}

/// `benchlog ingest` killed with SIGKILL six times through an inbox's
/// import, then run to its end: every message is stored, once. A mark
/// committed ahead of its message would make the next import skip it.
#[test]
fn an_import_killed_at_any_moment_skips_no_message() {
    const MESSAGES: usize = 240;
    let dir = tempfile::tempdir().unwrap();
    let inbox = write_inbox(dir.path(), MESSAGES);
    let db = dir.path().join("k.db");
    let ingest = || {
        Command::new(env!("CARGO_BIN_EXE_benchlog"))
            .args(["ingest", "--batch", "4", "--db"])
            .arg(&db)
            .arg(&inbox)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let stored = || {
        Connection::open(&db)
            .and_then(|conn| conn.query_row("SELECT count(*) FROM mails", [], |r| r.get(0)))
            .unwrap_or(0i64)
    };
    // Each import is killed as soon as it has committed more than the
    // one before: the kills land between and inside transactions, on any
    // machine's speed.
    let mut kills = 0;
    for _ in 0..6 {
        let before = stored();
        let mut child = ingest();
        while child.try_wait().unwrap().is_none() {
            if stored() > before {
                child.kill().unwrap();
                kills += 1;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(3));
        }
        child.wait().unwrap();
    }
    let status = ingest().wait().unwrap();
    assert!(status.success());
    let conn = Connection::open(&db).unwrap();
    let (mails, distinct): (i64, i64) = conn
        .query_row(
            "SELECT count(*), count(DISTINCT message_id) FROM mails",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (mails, distinct),
        (MESSAGES as i64, MESSAGES as i64),
        "{kills} kills"
    );
    let commits: i64 = conn
        .query_row("SELECT commits FROM archive_marks", [], |row| row.get(0))
        .unwrap();
    assert_eq!(commits, MESSAGES as i64);
    assert!(kills > 0, "no import was killed: make the inbox larger");
}

/// The loose object files of an inbox's messages (epoch 0), oldest
/// first, as [`append_mails`] writes them.
fn message_objects(inbox: &Path) -> Vec<PathBuf> {
    let git_dir = inbox.join("git/0.git");
    let repo = gix::open(&git_dir).unwrap();
    let mut blobs = Vec::new();
    let mut next = Some(repo.head_id().unwrap().detach());
    while let Some(id) = next {
        let commit = repo.find_commit(id).unwrap();
        let tree = commit.tree_id().unwrap().detach();
        let tree = repo.find_tree(tree).unwrap();
        let entries = tree.decode().unwrap().entries;
        let m = entries.iter().find(|entry| entry.filename == "m").unwrap();
        blobs.push(m.oid.to_owned());
        next = commit.parent_ids().next().map(|id| id.detach());
    }
    blobs.reverse();
    blobs
        .iter()
        .map(|blob| {
            let hex = blob.to_string();
            git_dir.join("objects").join(&hex[..2]).join(&hex[2..])
        })
        .collect()
}

/// A message whose object is missing (a mirror caught mid-fetch) is
/// reported and the others stored; once the object is back, the next
/// import stores it (the mark stayed before it), and nothing twice.
#[test]
fn a_message_missing_from_a_mirror_is_read_again_once_it_is_back() {
    let dir = tempfile::tempdir().unwrap();
    let inbox = write_inbox(dir.path(), 5);
    let object = message_objects(&inbox).remove(2);
    let bytes = std::fs::read(&object).unwrap();
    std::fs::remove_file(&object).unwrap();
    let (_db_dir, _path, mut conn) = fresh_db();

    let (summary, read) = import_inbox(&mut conn, &inbox);
    assert_eq!(summary.messages_added, 4, "{:?}", summary.failures);
    assert_eq!(summary.failures.len(), 1, "{:?}", summary.failures);
    let why = &summary.failures[0].why;
    assert!(why.contains("the next import reads it again"), "{why}");
    assert_eq!(read.held_back, vec![(0, 1)]);
    assert!(read
        .lines(&inbox)
        .iter()
        .any(|line| line.contains("1 messages could not be read now")));
    assert!(!stored(&conn).contains_key("run2@example.org"));

    // Not back yet: read again, still missing, the others not stored twice.
    let (summary, read) = import_inbox(&mut conn, &inbox);
    assert_eq!(
        (summary.messages_added, summary.messages_already_stored),
        (0, 2)
    );
    assert_eq!(read.held_back, vec![(0, 1)]);

    std::fs::write(&object, bytes).unwrap();
    let (summary, read) = import_inbox(&mut conn, &inbox);
    assert!(summary.failures.is_empty(), "{:?}", summary.failures);
    assert_eq!(
        (summary.messages_added, summary.messages_already_stored),
        (1, 2)
    );
    assert!(read.held_back.is_empty());
    let now = stored(&conn);
    assert!(now.contains_key("run2@example.org"));
    assert_eq!(now.len(), 5);

    let (summary, read) = import_inbox(&mut conn, &inbox);
    assert_eq!((read.commits_read, read.commits_skipped), (0, 5));
    assert_eq!(summary, ImportSummary::default(), "nothing read");
}

/// `benchlog ingest --reread` reads an inbox from its first commit: a
/// message an earlier import skipped for good (here, its mark moved past
/// it by hand, as imports before this rule did) is stored, and nothing is
/// stored twice.
#[test]
fn benchlog_ingest_reread_stores_what_was_skipped_and_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let inbox = write_inbox(dir.path(), 4);
    let db = dir.path().join("r.db");
    let ingest = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_benchlog"))
            .arg("ingest")
            .args(extra)
            .arg("--db")
            .arg(&db)
            .arg(&inbox)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let mails = || -> (i64, i64) {
        Connection::open(&db)
            .unwrap()
            .query_row(
                "SELECT count(*), count(DISTINCT message_id) FROM mails",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap()
    };
    let object = message_objects(&inbox).remove(1);
    let bytes = std::fs::read(&object).unwrap();
    std::fs::remove_file(&object).unwrap();
    ingest(&[]);
    assert_eq!(mails(), (3, 3));
    std::fs::write(&object, bytes).unwrap();
    let head = gix::open(inbox.join("git/0.git"))
        .unwrap()
        .head_id()
        .unwrap()
        .to_string();
    Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE archive_marks SET commit_id = ?1, commits = 4",
            [&head],
        )
        .unwrap();
    let again = ingest(&[]);
    assert!(again.contains("0 new commits read"), "{again}");
    assert_eq!(mails(), (3, 3), "the mark is past the message");

    let reread = ingest(&["--reread"]);
    assert!(
        reread.contains("4 new commits read (4 messages, 0 deletions); 0 commits skipped"),
        "{reread}"
    );
    assert_eq!(mails(), (4, 4));
    ingest(&["--reread"]);
    assert_eq!(mails(), (4, 4), "nothing stored twice");
    let after = ingest(&[]);
    assert!(after.contains("0 new commits read"), "{after}");
}
