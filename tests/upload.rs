//! Uploading through the front page's form: several files at once, gzip,
//! broken gzip, and the same text twice.

use benchlog::store;

use crate::http::{fixture, get, multipart, paste, post_form, read, see_other, send};
use crate::support::{counts, gzip, seed_000, test_state};

const BONNIE: &str = "fixtures/bonnie/bonnie-classic-two-machines.txt";

#[tokio::test]
async fn several_files_become_several_submissions() {
    let (_dir, db, state) = test_state();
    let short = "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.88\n";
    let seed = seed_000();
    let bonnie_gz = gzip(fixture(BONNIE).as_bytes());
    let response = send(
        &state,
        multipart(&[
            ("text", None, b""),
            ("file", Some("seed-000.txt"), seed.as_bytes()),
            ("file", Some("short.log"), short.as_bytes()),
            ("file", Some("bonnie.txt.gz"), &bonnie_gz),
        ]),
    )
    .await;
    let location = see_other(&response);
    assert_eq!(location, "/submissions/1?uploaded=1,2,3");
    let stored = counts(&db);
    assert_eq!(stored.submissions, 3);

    let (status, page) = get(&state, &location).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("3 inputs uploaded"), "{page}");
    for name in ["seed-000.txt", "short.log", "bonnie.txt.gz"] {
        assert!(page.contains(name), "the notice lists {name}");
    }
    // The gzipped file was unpacked: its runs are bonnie's.
    let (_, third) = get(&state, "/submissions/3").await;
    assert!(third.contains("seq_output_block"), "{third}");
}

#[tokio::test]
async fn broken_gzip_is_refused_and_nothing_is_stored() {
    let (_dir, db, state) = test_state();
    let good = gzip(fixture(BONNIE).as_bytes());
    let truncated = &good[..good.len() / 2];
    // (what, parts, what the answer says)
    type Case<'a> = (&'a str, Vec<(&'a str, Option<&'a str>, &'a [u8])>, &'a str);
    let cases: [Case; 3] = [
        (
            "truncated",
            vec![
                ("file", Some("seed.txt"), seed_000().leak().as_bytes()),
                ("file", Some("cut.gz"), truncated),
            ],
            "cut.gz",
        ),
        (
            "not gzip at all",
            vec![("file", Some("plain.log.gz"), b"Version 1.03 plain text\n")],
            "not gzip-compressed",
        ),
        (
            "corrupt body",
            vec![(
                "file",
                Some("noise.gz"),
                &[
                    0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0xff,
                ],
            )],
            "could not be unpacked",
        ),
    ];
    for (index, (name, parts, message)) in cases.into_iter().enumerate() {
        let (status, body) = read(send(&state, multipart(&parts)).await).await;
        assert_eq!(status, 400, "case {index} ({name}): {body}");
        assert!(body.contains(message), "case {index} ({name}): {body}");
    }
    assert_eq!(counts(&db), store::Counts::default());
}

#[tokio::test]
async fn the_same_text_twice_lands_on_the_existing_submission() {
    let (_dir, db, state) = test_state();
    let first = paste(&state, &seed_000()).await;
    assert_eq!(first, "/submissions/1");
    // The answer says it was there already, not a silent redirect.
    let already = format!("{first}?already=1");
    assert_eq!(paste(&state, &seed_000()).await, already);
    // As a file (any name, gzipped or not) it is still the same text.
    let gz = gzip(seed_000().as_bytes());
    let again = see_other(&send(&state, multipart(&[("file", Some("again.gz"), &gz)])).await);
    assert_eq!(again, already);
    assert_eq!(counts(&db).submissions, 1);
    assert_eq!(counts(&db).runs, 17);
}

/// The form's optional title names the pasted text (before the mail's
/// subject or its first line), or the one file sent alone; an archive's
/// messages keep their subjects, and a title past the limit is refused
/// with nothing stored.
#[tokio::test]
async fn an_upload_takes_the_title_its_form_gives() {
    let (_dir, db, state) = test_state();
    let seed_002 = fixture("fixtures/sysbench/seed-002-mariadb-mutexes-lost-line-breaks.txt");
    let location = see_other(
        &send(
            &state,
            post_form(
                "/upload",
                &[
                    ("text", &seed_002),
                    ("title", "  Mutexes on\n MariaDB 10.0  "),
                ],
            ),
        )
        .await,
    );
    let (_, page) = get(&state, &location).await;
    assert!(page.contains("<title>Mutexes on MariaDB 10.0"), "{page}");
    let (_, list) = get(&state, "/submissions").await;
    assert!(list.contains("Mutexes on MariaDB 10.0"), "{list}");
    // The title given, not the first line, names it everywhere.
    let (_, home) = get(&state, "/").await;
    assert!(
        !home.contains("[Maria-developers] MariaDB scalability"),
        "{home}"
    );

    // One file sent alone takes the title too (multipart, as the browser
    // sends the form).
    let response = send(
        &state,
        multipart(&[
            ("text", None, b""),
            ("file", Some("seed-000.txt"), seed_000().as_bytes()),
            ("title", None, b"FreeBSD 6.1 schedulers"),
        ]),
    )
    .await;
    let location = see_other(&response);
    let (_, page) = get(&state, &location).await;
    assert!(page.contains("<title>FreeBSD 6.1 schedulers"), "{page}");

    let before = counts(&db);
    let long = "x".repeat(101);
    let response = send(
        &state,
        post_form(
            "/upload",
            &[("text", "select_index 1 0 0 1.0"), ("title", &long)],
        ),
    )
    .await;
    let (status, message) = read(response).await;
    assert_eq!(status, 400, "{message}");
    assert!(
        message.contains("The title is 101 characters long; give at most 100"),
        "{message}"
    );
    assert_eq!(counts(&db).submissions, before.submissions);
}

/// A text pasted with no title and no Subject is named by its first
/// meaningful line, or, where it has none, by what it holds: never just
/// "paste". A file keeps its name.
#[tokio::test]
async fn an_untitled_paste_is_named_by_its_text() {
    let (_dir, _db, state) = test_state();
    let report = "super-smack -d mysql select-key.smack 10 10000\nQuery Barrel Report for client smacker1\nconnect: max=4ms min=1ms avg= 2ms from 10 clients\nQuery_type num_queries max_time min_time q_per_s\nselect_index 200000 0 0 22061.88\n";
    // A greeting, a separator and a prompt alone, then a caption.
    let captioned = format!("Hi all,\n\n-----\n$\nULE on the dual Opteron\n\n{report}")
        .replace("22061.88", "23061.88");
    let bare = paste(&state, report).await;
    let (_, page) = get(&state, &bare).await;
    assert!(
        page.contains("<title>super-smack select-key: 1 run"),
        "{page}"
    );
    paste(&state, &captioned).await;
    // The same report in a file keeps the file's name.
    let response = send(
        &state,
        multipart(&[
            ("text", None, b""),
            (
                "file",
                Some("smack.log"),
                report.replace("22061.88", "24061.88").as_bytes(),
            ),
        ]),
    )
    .await;
    see_other(&response);
    let (_, list) = get(&state, "/submissions").await;
    let (_, home) = get(&state, "/").await;
    for (name, html) in [("/submissions", &list), ("/", &home)] {
        for title in [
            "super-smack select-key: 1 run",
            "ULE on the dual Opteron",
            "smack.log",
        ] {
            assert!(
                html.contains(&format!(">{title}</a>")),
                "{title} on {name}: {html}"
            );
        }
        assert!(!html.contains(">paste</a>"), "{name}: {html}");
    }
}
