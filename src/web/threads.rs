//! `/threads/{id}`: a conversation read from a list archive, its messages
//! in reply order (indented by depth) with their runs and the runs they
//! quote. `{id}` is the thread's first message id (with or without angle
//! brackets), any message id of it, or the number of one of its
//! submissions.
//!
//! The thread is read in one struct (`store::thread`), ordered and made
//! into the page without the database ([`thread_page`], its reply order
//! by [`reply_order`]), and rendered from `threads/show.html`.

use std::collections::{HashMap, HashSet};

use askama::Template;
use axum::extract::{Path, State};
use axum::response::Html;
use axum::routing::get;
use axum::Router;
use rusqlite::Connection;

use super::state::AppState;
use super::view::{describe_run, quote_view, QuoteView};
use super::AppError;
use crate::limits::{MAX_INDENT, MAX_THREAD_MAILS};
use crate::store::{self, StoredQuote, Thread, ThreadMail, ThreadRun};

pub fn router() -> Router<AppState> {
    Router::new().route("/threads/{id}", get(show))
}

#[derive(Template)]
#[template(path = "threads/show.html")]
struct ThreadPage {
    title: String,
    thread_id: String,
    /// Messages in the thread, shown or not.
    total_mails: usize,
    mails: Vec<MailView>,
    runs: usize,
    quotes: usize,
}

struct MailView {
    submission_id: i64,
    /// Reply depth, capped at [`MAX_INDENT`], for the indentation class.
    depth: usize,
    author: String,
    date: String,
    subject: String,
    /// "3 runs", or "17 runs, quoted from submission 4" for a mail whose
    /// runs were all stored earlier; empty without any.
    summary: String,
    runs: Vec<RunLine>,
    quotes: Vec<QuoteView>,
}

struct RunLine {
    url: String,
    number: usize,
    what: String,
    headline: String,
    author: String,
    quote_depth: usize,
}

async fn show(
    State(state): State<AppState>,
    Path(key): Path<String>,
) -> Result<Html<String>, AppError> {
    let wanted = key
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_owned();
    if wanted.is_empty() {
        return Err(AppError::bad_request(
            "Name a thread by a message id or a submission number.",
        ));
    }
    // Read, built and rendered on a blocking thread: a thread may be long.
    state
        .with_conn(move |conn| {
            let (thread_id, total_mails, thread) = read(conn, &wanted)?;
            let page = thread_page(thread_id, total_mails, thread);
            page.render().map(Html).map_err(|e| {
                AppError::Internal(anyhow::Error::new(e).context("rendering a thread page"))
            })
        })
        .await
}

/// The thread `wanted` names (a message id or a submission number): its
/// id, how many mails it has, and its first [`MAX_THREAD_MAILS`] with
/// their runs and quotes.
fn read(conn: &Connection, wanted: &str) -> Result<(String, usize, Thread), AppError> {
    let thread_id = match wanted.parse::<i64>() {
        Ok(submission_id) => store::thread_of_submission(conn, submission_id)?,
        Err(_) => store::thread_of_message_id(conn, wanted)?,
    };
    let Some(thread_id) = thread_id else {
        return Err(AppError::NotFound(format!(
            "No stored mail has the message id or submission number {wanted:?}."
        )));
    };
    let thread = store::thread(conn, &thread_id, MAX_THREAD_MAILS)?;
    let total_mails = store::thread_length(conn, &thread_id)?;
    Ok((thread_id, total_mails, thread))
}

/// The page of a thread as read: its mails in reply order, each with its
/// runs and quotes. No database, no HTTP.
fn thread_page(thread_id: String, total_mails: usize, thread: Thread) -> ThreadPage {
    let Thread {
        mails,
        runs,
        quotes,
    } = thread;
    let mut runs_of: HashMap<i64, Vec<&ThreadRun>> = HashMap::new();
    for run in &runs {
        runs_of.entry(run.submission_id).or_default().push(run);
    }
    let mut quotes_of: HashMap<i64, Vec<&StoredQuote>> = HashMap::new();
    for quote in &quotes {
        quotes_of
            .entry(quote.submission_id)
            .or_default()
            .push(quote);
    }

    let views = reply_order(&mails)
        .into_iter()
        .map(|(i, depth)| {
            let mail = &mails[i];
            let sid = mail.submission_id;
            let own = runs_of.get(&sid).map_or(0, Vec::len);
            let quoted = quotes_of.get(&sid).map(Vec::as_slice).unwrap_or_default();
            MailView {
                summary: mail_summary(own, quoted),
                submission_id: sid,
                depth: depth.min(MAX_INDENT),
                author: mail.author.clone().unwrap_or_else(|| "(unknown)".into()),
                date: mail.date.clone().unwrap_or_default(),
                subject: mail.subject.clone().unwrap_or_default(),
                runs: runs_of
                    .get(&sid)
                    .map(|runs| runs.iter().map(|run| run_line(run)).collect())
                    .unwrap_or_default(),
                quotes: quotes_of
                    .get(&sid)
                    .map(|quotes| quotes.iter().map(|q| quote_view(q)).collect())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let title = mails
        .first()
        .and_then(|m| m.subject.clone())
        .unwrap_or_else(|| "Thread".to_owned());
    ThreadPage {
        title,
        thread_id,
        total_mails,
        mails: views,
        runs: runs.len(),
        quotes: quotes.len(),
    }
}

/// The mails' order on the page, each with its reply depth: each mail
/// under the nearest message it answers that is in the thread, siblings by
/// date (the order `mails` comes in); mails caught in a reply loop (broken
/// headers) at the top level, after the others.
fn reply_order(mails: &[ThreadMail]) -> Vec<(usize, usize)> {
    let index_of: HashMap<&str, usize> = mails
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((m.message_id.as_deref()?, i)))
        .collect();
    let parent: Vec<Option<usize>> = mails
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.in_reply_to
                .iter()
                .chain(m.refs.iter().rev())
                .filter_map(|id| index_of.get(id.as_str()).copied())
                .find(|&p| p != i)
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); mails.len()];
    let mut roots = Vec::new();
    for (i, p) in parent.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    let mut order: Vec<(usize, usize)> = Vec::with_capacity(mails.len());
    let mut seen = HashSet::new();
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&i| (i, 0)).collect();
    while let Some((i, depth)) = stack.pop() {
        if !seen.insert(i) {
            continue;
        }
        order.push((i, depth));
        stack.extend(children[i].iter().rev().map(|&c| (c, depth + 1)));
    }
    order.extend(
        (0..mails.len())
            .filter(|i| !seen.contains(i))
            .map(|i| (i, 0)),
    );
    order
}

/// A mail's runs in words, its quoted copies counted (see
/// [`store::describe_runs`]). `own` counts its copies of earlier runs
/// (each quote with a `copy_run_id`), which are told as quoted, as are
/// the quotes stored before copies were runs.
fn mail_summary(own: usize, quoted: &[&StoredQuote]) -> String {
    let copies = quoted.iter().filter(|q| q.copy_run_id.is_some()).count();
    let mut linked: Vec<i64> = quoted
        .iter()
        .filter(|q| q.copy_run_id.is_none())
        .map(|q| q.run_id)
        .collect();
    linked.sort_unstable();
    linked.dedup();
    let mut from: Vec<i64> = quoted.iter().map(|q| q.run_submission_id).collect();
    from.sort_unstable();
    from.dedup();
    let fresh = own.saturating_sub(copies);
    match (fresh, linked.len() + copies) {
        (0, 0) => String::new(),
        (1, 0) => "1 run".to_owned(),
        (fresh, 0) => format!("{fresh} runs"),
        (fresh, quoted) => store::describe_runs(fresh as i64, quoted as i64, &from),
    }
}

fn run_line(run: &ThreadRun) -> RunLine {
    // The headline: the first rate the run printed, else its first number.
    let rate = run.results.iter().find(|(item, metric, _, _)| {
        !parsers::contract::is_connect_item(item)
            && parsers::metric_info(metric).is_some_and(|info| info.is_throughput())
    });
    let headline = rate
        .or_else(|| run.results.first())
        .map(|(item, metric, value, unit)| format!("{item} {metric} {value} {unit}"))
        .unwrap_or_default();
    let mut what = describe_run(&run.tool, run.test.as_deref(), run.threads);
    if let Some(label) = &run.label {
        what.push_str(&format!(" [{label}]"));
    }
    RunLine {
        url: format!("/submissions/{}#run-{}", run.submission_id, run.idx + 1),
        number: run.idx + 1,
        what,
        headline,
        author: run.author.clone().unwrap_or_default(),
        quote_depth: run.quote_depth,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(submission_id: i64, id: &str, reply_to: Option<&str>, refs: &[&str]) -> ThreadMail {
        ThreadMail {
            submission_id,
            message_id: Some(id.to_owned()),
            in_reply_to: reply_to.map(str::to_owned),
            refs: refs.iter().map(|r| r.to_string()).collect(),
            sent_at: None,
            author: None,
            date: None,
            subject: Some(format!("mail {submission_id}")),
        }
    }

    #[test]
    fn replies_follow_what_they_answer_and_a_loop_comes_last() {
        let mails = [
            mail(1, "a", None, &[]),
            // Answers a mail not in the thread: its references name "a".
            mail(2, "b", Some("gone"), &["a", "gone"]),
            mail(3, "c", None, &[]),
            mail(4, "d", Some("a"), &[]),
            // Each answers the other: a loop no root reaches.
            mail(5, "e", Some("f"), &[]),
            mail(6, "f", Some("e"), &[]),
            mail(7, "g", Some("d"), &[]),
        ];
        assert_eq!(
            reply_order(&mails),
            [(0, 0), (1, 1), (3, 1), (6, 2), (2, 0), (4, 0), (5, 0)]
        );
    }

    #[test]
    fn a_thread_page_indents_its_mails_and_counts_their_runs() {
        let thread = Thread {
            mails: vec![mail(1, "a", None, &[]), mail(2, "b", Some("a"), &[])],
            runs: vec![ThreadRun {
                submission_id: 2,
                run_id: 9,
                idx: 1,
                tool: "sysbench".to_owned(),
                test: Some("oltp".to_owned()),
                label: Some("ULE".to_owned()),
                threads: Some(8),
                author: None,
                quote_depth: 0,
                results: vec![("total".into(), "tps".into(), 1234.5, "tps".into())],
            }],
            quotes: Vec::new(),
        };
        let page = thread_page("a".to_owned(), 5, thread);
        assert_eq!(page.title, "mail 1");
        assert_eq!((page.total_mails, page.runs, page.quotes), (5, 1, 0));
        let depths: Vec<(i64, usize)> = page
            .mails
            .iter()
            .map(|m| (m.submission_id, m.depth))
            .collect();
        assert_eq!(depths, [(1, 0), (2, 1)]);
        assert_eq!(page.mails[0].author, "(unknown)");
        assert_eq!(page.mails[1].summary, "1 run");
        let run = &page.mails[1].runs[0];
        assert_eq!(run.url, "/submissions/2#run-2");
        assert_eq!(run.what, "sysbench oltp, 8 threads [ULE]");
        assert_eq!(run.headline, "total tps 1234.5 tps");
    }

    #[test]
    fn an_iops_value_is_the_headline_of_a_disk_run() {
        let run = ThreadRun {
            submission_id: 1,
            run_id: 1,
            idx: 0,
            tool: "diskinfo".to_owned(),
            test: None,
            label: None,
            threads: None,
            author: None,
            quote_depth: 0,
            results: vec![
                ("command_overhead".into(), "ms".into(), 0.01, "ms".into()),
                (
                    "async_random_reads".into(),
                    "iops".into(),
                    100398.0,
                    "IOPS".into(),
                ),
            ],
        };
        assert_eq!(
            run_line(&run).headline,
            "async_random_reads iops 100398 IOPS"
        );
    }
}
