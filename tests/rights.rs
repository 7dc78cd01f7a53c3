//! Edit rights, cross-site posts and security headers: the uploader (with
//! the token shown once) or the admin may change a submission; everyone
//! else reads.

use axum::http::{header, StatusCode};
use benchlog::store;

use crate::http::{
    cookies_of, get, get_request, get_with_cookies, post_form, read, see_other, send, with_cookies,
};
use crate::support::{counts, seed_000, smack_log, test_state, ADMIN_TOKEN};

/// The token shown in the page's notice.
fn shown_token(page: &str) -> Option<String> {
    let at = page.find(r#"id="edit-token""#)?;
    let code = &page[at..];
    let start = code.find("<code>")? + "<code>".len();
    let end = code.find("</code>")?;
    Some(code[start..end].to_owned())
}

fn labels(db: &std::path::Path) -> Vec<String> {
    let conn = store::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT coalesce(label, '-') FROM runs ORDER BY id")
        .unwrap();
    let rows = stmt.query_map([], |row| row.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

#[tokio::test]
async fn the_uploader_edits_with_the_token_shown_once_and_others_only_read() {
    let (_dir, db, state) = test_state();
    let response = send(&state, post_form("/upload", &[("text", &seed_000())])).await;
    let location = see_other(&response);
    let cookies = cookies_of(&response);
    assert!(cookies.contains("benchlog_edit_1="), "{cookies}");
    let set_cookie = response.headers().get(header::SET_COOKIE).unwrap();
    let set_cookie = set_cookie.to_str().unwrap();
    assert!(set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Lax"));

    // The first view shows the token and clears the flash cookie.
    let first = send(&state, with_cookies(get_request(&location), &cookies)).await;
    let clears = cookies_of(&first);
    let (status, page) = read(first).await;
    assert_eq!(status, 200);
    let token = shown_token(&page).expect("the token is shown after the upload");
    assert_eq!(token.len(), 32, "128 bits as hex: {token}");
    assert!(clears.contains("benchlog_new_token="), "{clears}");
    // The database holds only its hash.
    let conn = store::open(&db).unwrap();
    let stored: String = conn
        .query_row(
            "SELECT token_sha256 FROM edit_tokens WHERE submission_id = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored, benchlog::ingest::sha256_hex(&token));
    let dump: i64 = conn
        .query_row(
            "SELECT count(*) FROM edit_tokens WHERE token_sha256 LIKE '%' || ?1 || '%'",
            [&token],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(dump, 0);

    // Later views (flash cleared) do not show it again but keep the forms.
    let edit_cookie = cookies
        .split("; ")
        .find(|c| c.starts_with("benchlog_edit_"))
        .unwrap();
    let (_, again) = get_with_cookies(&state, &location, edit_cookie).await;
    assert!(shown_token(&again).is_none());
    assert!(again.contains(r#"id="edit-run-1""#) && again.contains("/delete"));

    // A stranger reads the page, sees the unlock form, and cannot edit.
    let (status, stranger) = get(&state, &location).await;
    assert_eq!(status, 200);
    assert!(stranger.contains("/unlock") && !stranger.contains(r#"id="edit-run-1""#));
    let before = labels(&db);
    for (cookie, token_field) in [
        (None, None),
        (
            Some("benchlog_edit_1=00000000000000000000000000000000"),
            None,
        ),
        (None, Some("wrong")),
    ] {
        let mut pairs = vec![("run", "1"), ("label", "stranger's")];
        if let Some(token) = token_field {
            pairs.push(("token", token));
        }
        let mut request = post_form("/submissions/1/edit", &pairs);
        if let Some(cookie) = cookie {
            request = with_cookies(request, cookie);
        }
        let (status, body) = read(send(&state, request).await).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert!(body.contains("edit token"), "{body}");
    }
    let (status, _) = read(
        send(
            &state,
            post_form("/submissions/1/undo", &[("run", "1"), ("field", "label")]),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = read(send(&state, post_form("/submissions/1/delete", &[])).await).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(labels(&db), before, "refused edits changed nothing");

    // The uploader's cookie edits; so does the token as a form field.
    let request = with_cookies(
        post_form(
            "/submissions/1/edit",
            &[("run", "1"), ("label", "by cookie")],
        ),
        edit_cookie,
    );
    assert_eq!(send(&state, request).await.status(), StatusCode::SEE_OTHER);
    let request = post_form(
        "/submissions/1/edit",
        &[("run", "2"), ("label", "by field"), ("token", &token)],
    );
    assert_eq!(send(&state, request).await.status(), StatusCode::SEE_OTHER);
    let after = labels(&db);
    assert_eq!(
        (after[0].as_str(), after[1].as_str()),
        ("by cookie", "by field")
    );

    // Unlocking in another browser: a wrong token is refused, the right one
    // sets a cookie that works.
    let (status, _) = read(
        send(
            &state,
            post_form("/submissions/1/unlock", &[("token", "nope")]),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let unlocked = send(
        &state,
        post_form("/submissions/1/unlock", &[("token", &token)]),
    )
    .await;
    assert_eq!(see_other(&unlocked), "/submissions/1#review");
    let other_browser = cookies_of(&unlocked);
    let (_, page) = get_with_cookies(&state, "/submissions/1", &other_browser).await;
    assert!(page.contains(r#"id="edit-run-1""#));
}

/// The address run `run`'s "edit" link on `page` leads to.
fn edit_link(page: &str, run: usize) -> String {
    let row = &page[page
        .find(&format!(r#"<tr id="run-{run}""#))
        .expect("the run's row")..];
    let link = &row[..row.find(">edit</a>").expect("the row's edit link")];
    let start = link.rfind(r#"href=""#).unwrap() + r#"href=""#.len();
    let end = start + link[start..].find('"').unwrap();
    link[start..end].replace("&amp;", "&")
}

/// A run's "edit" link opens the run's form for a viewer holding the
/// token; without it, it leads to the form asking for the token, which
/// says so and comes back to the run's form, open.
#[tokio::test]
async fn a_runs_edit_link_opens_its_form_or_asks_for_the_token() {
    let (_dir, _db, state) = test_state();
    let response = send(&state, post_form("/upload", &[("text", &seed_000())])).await;
    let location = see_other(&response);
    let cookies = cookies_of(&response);
    let (_, page) = read(send(&state, with_cookies(get_request(&location), &cookies)).await).await;
    let token = shown_token(&page).expect("the token is shown after the upload");
    let edit_cookie = cookies
        .split("; ")
        .find(|c| c.starts_with("benchlog_edit_"))
        .unwrap();

    // With the token, the link opens the run's form; without the link's
    // `edit`, it stays closed.
    let (_, own) = get_with_cookies(&state, "/submissions/1", edit_cookie).await;
    assert!(
        own.contains(r#"<details class="edit-run" id="edit-run-2">"#),
        "{own}"
    );
    let link = edit_link(&own, 2);
    assert_eq!(link, "/submissions/1?edit=2#edit-run-2");
    let (status, opened) = get_with_cookies(&state, &link, edit_cookie).await;
    assert_eq!(status, StatusCode::OK, "{opened}");
    assert!(opened.contains(r#"<details class="edit-run" id="edit-run-2" open>"#));
    assert!(opened.contains(r#"<details class="edit-run" id="edit-run-3">"#));

    // Without it, the link leads to the form asking for the token.
    let (_, stranger) = get(&state, "/submissions/1").await;
    let link = edit_link(&stranger, 2);
    assert_eq!(link, "/submissions/1?edit=2#review");
    let (status, asked) = get(&state, &link).await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    assert!(
        asked.contains("To edit run 2, enter the edit token"),
        "{asked}"
    );
    assert!(asked.contains(r#"<input type="hidden" name="run" value="2">"#));
    assert!(!asked.contains(r#"id="edit-run-2""#));
    // Entering it comes back to run 2's form, open.
    let unlocked = send(
        &state,
        post_form("/submissions/1/unlock", &[("run", "2"), ("token", &token)]),
    )
    .await;
    assert_eq!(see_other(&unlocked), "/submissions/1?edit=2#edit-run-2");
    let other_browser = cookies_of(&unlocked);
    let (_, opened) = get_with_cookies(&state, "/submissions/1?edit=2", &other_browser).await;
    assert!(opened.contains(r#"<details class="edit-run" id="edit-run-2" open>"#));
    // From a later part of a long text, and a later page of its runs,
    // back to that part and page.
    let unlocked = send(
        &state,
        post_form(
            "/submissions/1/unlock",
            &[
                ("run", "5"),
                ("part", "2"),
                ("runs", "3"),
                ("token", &token),
            ],
        ),
    )
    .await;
    assert_eq!(
        see_other(&unlocked),
        "/submissions/1?part=2&runs=3&edit=5#edit-run-5"
    );

    // A run number that is none is refused.
    let (status, body) = get(&state, "/submissions/1?edit=0").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("edit=0 is not a run number"), "{body}");
}

#[tokio::test]
async fn the_admin_token_may_change_and_delete_any_submission() {
    let (_dir, db, state) = test_state();
    // Stored from the command line: no edit token at all.
    let mut conn = store::open(&db).unwrap();
    benchlog::ingest::ingest_text(&mut conn, Some("cli"), &seed_000()).unwrap();
    let (status, _) = read(
        send(
            &state,
            post_form("/submissions/1/edit", &[("run", "1"), ("label", "x")]),
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let request = post_form(
        "/submissions/1/edit",
        &[("run", "1"), ("label", "admin"), ("token", ADMIN_TOKEN)],
    );
    assert_eq!(send(&state, request).await.status(), StatusCode::SEE_OTHER);
    assert_eq!(labels(&db)[0], "admin");
    // The admin's unlock works too, and its page never shows the token back.
    let unlocked = send(
        &state,
        post_form("/submissions/1/unlock", &[("token", ADMIN_TOKEN)]),
    )
    .await;
    let cookies = format!("{}; benchlog_new_token=1", cookies_of(&unlocked));
    let (_, page) = get_with_cookies(&state, "/submissions/1", &cookies).await;
    assert!(page.contains(r#"id="edit-run-1""#) && !page.contains(ADMIN_TOKEN));

    // Delete: everything read from the submission goes.
    let request = post_form("/submissions/1/delete", &[("token", ADMIN_TOKEN)]);
    assert_eq!(see_other(&send(&state, request).await), "/submissions");
    let counts = store::counts(&conn).unwrap();
    assert_eq!(counts, store::Counts::default(), "{counts:?}");
    let (status, _) = get(&state, "/submissions/1").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let request = post_form("/submissions/1/delete", &[("token", ADMIN_TOKEN)]);
    assert_eq!(send(&state, request).await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_label_holding_markup_comes_back_escaped() {
    let (_dir, _db, state) = test_state();
    crate::http::paste(&state, &seed_000()).await;
    let label = r#"<script>alert(1)</script>"><img src=x onerror=alert(2)>"#;
    let request = post_form(
        "/submissions/1/edit",
        &[("run", "1"), ("label", label), ("token", ADMIN_TOKEN)],
    );
    assert_eq!(send(&state, request).await.status(), StatusCode::SEE_OTHER);
    for uri in [
        "/submissions/1",
        "/runs",
        "/compare?tool=super-smack&item=select_index&metric=q_per_s&by=label",
    ] {
        let (status, page) = get(&state, uri).await;
        assert_eq!(status, 200, "{uri}");
        assert!(
            !page.contains("<script>alert") && !page.contains("<img src=x"),
            "{uri} shows the label raw"
        );
        assert!(
            page.contains("&lt;script&gt;alert(1)") || page.contains("&#60;script&#62;alert(1)"),
            "{uri} shows the label escaped"
        );
    }
}

#[tokio::test]
async fn forms_posted_from_other_sites_are_refused() {
    let (_dir, db, state) = test_state();
    let post = |headers: &[(&str, &str)]| {
        let mut request = post_form("/upload", &[("text", "super-smack notes from a stranger")]);
        for (name, value) in headers {
            request.headers_mut().insert(
                header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        request
    };
    for (index, headers) in [
        vec![("sec-fetch-site", "cross-site")],
        vec![("sec-fetch-site", "same-site")],
        vec![
            ("origin", "https://evil.example"),
            ("host", "benchlog.example"),
        ],
        vec![("origin", "null"), ("host", "benchlog.example")],
    ]
    .into_iter()
    .enumerate()
    {
        let (status, body) = read(send(&state, post(&headers)).await).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "case {index}: {body}");
        assert!(
            body.contains("sent from another site"),
            "case {index}: {body}"
        );
        // Editing too, even with the admin token.
        let mut request = post_form(
            "/submissions/1/edit",
            &[("run", "1"), ("token", ADMIN_TOKEN)],
        );
        request
            .headers_mut()
            .insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert_eq!(send(&state, request).await.status(), StatusCode::FORBIDDEN);
    }
    assert_eq!(counts(&db).submissions, 0);
    for headers in [
        vec![
            ("sec-fetch-site", "same-origin"),
            ("origin", "http://benchlog.example"),
        ],
        vec![
            ("origin", "http://benchlog.example"),
            ("host", "benchlog.example"),
        ],
        vec![],
    ] {
        let response = send(&state, post(&headers)).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{headers:?}");
    }
    // GETs from anywhere are fine (links).
    let mut request = get_request("/submissions");
    request
        .headers_mut()
        .insert("sec-fetch-site", "cross-site".parse().unwrap());
    assert_eq!(send(&state, request).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn every_answer_carries_the_security_headers_and_pages_no_inline_code() {
    let (_dir, _db, state) = test_state();
    crate::http::paste(&state, &seed_000()).await;
    for uri in [
        "/",
        "/submissions",
        "/submissions/1",
        "/runs",
        "/compare",
        "/compare?tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler",
        "/compare.svg?tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler",
        "/compare.json?tool=super-smack&item=select_index&metric=q_per_s",
        "/static/style.css",
        "/healthz",
        "/no/such/page",
        "/submissions/999",
    ] {
        let response = send(&state, get_request(uri)).await;
        let headers = response.headers().clone();
        assert_eq!(
            headers
                .get(header::CONTENT_SECURITY_POLICY)
                .map(|v| v.to_str().unwrap()),
            Some(benchlog::web::CONTENT_SECURITY_POLICY),
            "{uri}"
        );
        assert!(benchlog::web::CONTENT_SECURITY_POLICY.starts_with("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"));
        assert_eq!(
            headers.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(),
            "nosniff",
            "{uri}"
        );
        assert_eq!(
            headers.get(header::REFERRER_POLICY).unwrap(),
            "same-origin",
            "{uri}"
        );
        let (_, body) = read(response).await;
        let lower = body.to_ascii_lowercase();
        // Nothing the policy would block: no inline script, no style
        // attributes or elements, no event handler attributes.
        for needle in [
            "<script",
            " style=\"",
            "<style",
            " onclick=",
            " onload=",
            " onerror=",
            "javascript:",
        ] {
            assert!(!lower.contains(needle), "{uri} holds {needle:?}");
        }
    }
}

/// The ids of every stored run.
fn run_ids(db: &std::path::Path) -> Vec<i64> {
    let conn = store::open(db).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM runs ORDER BY id").unwrap();
    let rows = stmt.query_map([], |row| row.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

#[tokio::test]
async fn a_deleted_newest_submission_leaves_its_ids_unused() {
    let (_dir, db, state) = test_state();
    let first = crate::http::paste(&state, &smack_log(1, 2)).await;
    let newest = crate::http::paste(&state, &smack_log(2, 3)).await;
    assert_eq!(
        (first.as_str(), newest.as_str()),
        ("/submissions/1", "/submissions/2")
    );
    let deleted_runs = run_ids(&db);
    assert_eq!(deleted_runs, [1, 2, 3, 4, 5]);

    let request = post_form(&format!("{newest}/delete"), &[("token", ADMIN_TOKEN)]);
    assert_eq!(see_other(&send(&state, request).await), "/submissions");
    assert_eq!(run_ids(&db), [1, 2]);

    // A link to the deleted submission (or its runs) shows nothing, never
    // someone else's data.
    let next = crate::http::paste(&state, &smack_log(3, 2)).await;
    assert_eq!(next, "/submissions/3");
    assert_eq!(get(&state, &newest).await.0, StatusCode::NOT_FOUND);
    assert_eq!(run_ids(&db), [1, 2, 6, 7]);

    // Across a reopen too: the mark is kept in the database.
    drop(state);
    let mut conn = store::open(&db).unwrap();
    assert!(store::delete_submission(&mut conn, 3).unwrap());
    let again = benchlog::ingest::ingest_text(&mut conn, None, &smack_log(4, 1)).unwrap();
    assert_eq!(again.submission_id, 4);
    assert_eq!(run_ids(&db), [1, 2, 8]);
}

#[tokio::test]
async fn answers_carrying_an_edit_token_are_never_cached() {
    let (_dir, _db, state) = test_state();
    let no_store = |response: &axum::response::Response| {
        response
            .headers()
            .get(header::CACHE_CONTROL)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    // The upload's redirect sets the token's cookie.
    let upload = send(&state, post_form("/upload", &[("text", &seed_000())])).await;
    assert_eq!(no_store(&upload).as_deref(), Some("no-store"));
    let location = see_other(&upload);
    let cookies = cookies_of(&upload);
    // The page that shows the token once.
    let first = send(&state, with_cookies(get_request(&location), &cookies)).await;
    assert_eq!(no_store(&first).as_deref(), Some("no-store"));
    let (_, page) = read(first).await;
    let token = shown_token(&page).expect("the token is shown");
    // Later views show no token and may be kept.
    let later = send(&state, get_request(&location)).await;
    assert_eq!(no_store(&later), None);
    // An unlock sets the cookie.
    let unlocked = send(
        &state,
        post_form("/submissions/1/unlock", &[("token", &token)]),
    )
    .await;
    assert_eq!(see_other(&unlocked), "/submissions/1#review");
    assert_eq!(no_store(&unlocked).as_deref(), Some("no-store"));
}
