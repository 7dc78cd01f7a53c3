//! `/submissions/{id}`: the runs found in one submission, and its text with
//! the recognised lines marked and linked to their run.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::routing::get;
use axum::Router;

use super::{AppError, AppState};
use crate::compare::CompareQuery;
use crate::store::{self, StoredRun, StoredUnparsed, Submission};

pub fn router() -> Router<AppState> {
    Router::new().route("/submissions/{id}", get(show))
}

#[derive(Template, WebTemplate)]
#[template(path = "submissions/show.html")]
struct SubmissionPage {
    title: String,
    submission: Submission,
    runs: Vec<RunView>,
    lines: Vec<LineView>,
    unparsed: Vec<StoredUnparsed>,
}

struct RunView {
    /// 1-based, as shown and as in the anchor `run-N`.
    number: usize,
    tool: String,
    test: String,
    label: String,
    threads: String,
    author: String,
    quote_depth: usize,
    first_line: usize,
    last_line: usize,
    attrs: String,
    /// Values grouped by item, in the order printed.
    values: Vec<ItemValues>,
    compare_url: Option<String>,
}

struct ItemValues {
    item: String,
    values: Vec<ValueView>,
}

struct ValueView {
    metric: String,
    value: String,
    unit: String,
    line: usize,
    estimated: bool,
}

struct LineView {
    number: usize,
    text: String,
    /// "value" (a number was read here), "run" (inside a run), "miss" (a
    /// near miss) or "".
    class: &'static str,
    /// The run this line belongs to (1-based), if any.
    run: Option<usize>,
}

async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<SubmissionPage, AppError> {
    let id: i64 = id
        .parse()
        .map_err(|_| AppError::bad_request(format!("{id:?} is not a submission number.")))?;
    let (submission, runs, unparsed) = state
        .with_conn(move |conn| {
            let Some(submission) = store::get_submission(conn, id)? else {
                return Err(AppError::NotFound(format!("There is no submission {id}.")));
            };
            Ok((
                submission,
                store::runs_of_submission(conn, id)?,
                store::unparsed_of_submission(conn, id)?,
            ))
        })
        .await?;

    let lines = line_views(&submission.text, &runs, &unparsed);
    let title = submission
        .subject
        .clone()
        .or_else(|| submission.source_name.clone())
        .unwrap_or_else(|| format!("Submission {}", submission.id));
    let runs = runs
        .iter()
        .enumerate()
        .map(|(index, run)| run_view(submission.id, index + 1, run, &runs))
        .collect();
    Ok(SubmissionPage {
        title,
        submission,
        runs,
        lines,
        unparsed,
    })
}

fn run_view(submission_id: i64, number: usize, run: &StoredRun, all: &[StoredRun]) -> RunView {
    RunView {
        number,
        tool: run.tool.clone(),
        test: run.test.clone().unwrap_or_default(),
        label: run.label.clone().unwrap_or_default(),
        threads: run.threads.map(|t| t.to_string()).unwrap_or_default(),
        author: run.author.clone().unwrap_or_default(),
        quote_depth: run.quote_depth,
        first_line: run.lines[0],
        last_line: run.lines[1],
        attrs: run
            .attrs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        values: group_by_item(run),
        compare_url: compare_url(submission_id, run, all),
    }
}

fn group_by_item(run: &StoredRun) -> Vec<ItemValues> {
    let mut groups: Vec<ItemValues> = Vec::new();
    for r in &run.results {
        let value = ValueView {
            metric: r.metric.clone(),
            value: r.value.to_string(),
            unit: r.unit.clone(),
            line: r.line,
            estimated: r.estimated,
        };
        match groups.iter_mut().find(|g| g.item == r.item) {
            Some(group) => group.values.push(value),
            None => groups.push(ItemValues {
                item: r.item.clone(),
                values: vec![value],
            }),
        }
    }
    groups
}

/// A comparison that shows this run among the submission's others: its
/// headline metric against threads, one line per combination of the
/// attributes that tell this submission's runs of the tool apart (or per
/// label when none do).
fn compare_url(submission_id: i64, run: &StoredRun, all: &[StoredRun]) -> Option<String> {
    // The headline is a rate where there is one (q_per_s rather than
    // num_queries), else any higher-is-better number, else the first.
    let rate = |r: &&store::StoredResult| {
        parsers::metric_info(&r.metric)
            .is_some_and(|info| info.higher_is_better && info.unit.ends_with("/s"))
    };
    let better = |r: &&store::StoredResult| {
        parsers::metric_info(&r.metric).is_some_and(|info| info.higher_is_better)
    };
    let measured = || run.results.iter().filter(|r| r.item != "connect");
    let headline = measured()
        .find(rate)
        .or_else(|| measured().find(better))
        .or_else(|| run.results.first())?;
    let siblings: Vec<&StoredRun> = all.iter().filter(|other| other.tool == run.tool).collect();
    let mut by: Vec<String> = run
        .attrs
        .keys()
        .filter(|key| {
            siblings
                .iter()
                .any(|other| other.attrs.get(*key) != run.attrs.get(*key))
        })
        .cloned()
        .collect();
    if by.is_empty() {
        by.push("label".to_owned());
    }
    let query = CompareQuery {
        tool: Some(run.tool.clone()),
        test: run.test.clone(),
        item: Some(headline.item.clone()),
        metric: Some(headline.metric.clone()),
        x: Some("threads".to_owned()),
        by,
        wheres: vec![("submission".to_owned(), submission_id.to_string())],
    };
    Some(format!("/compare?{}", query.to_query_string()))
}

fn line_views(text: &str, runs: &[StoredRun], unparsed: &[StoredUnparsed]) -> Vec<LineView> {
    let mut lines: Vec<LineView> = text
        .lines()
        .enumerate()
        .map(|(index, text)| LineView {
            number: index + 1,
            text: text.to_owned(),
            class: "",
            run: None,
        })
        .collect();
    for miss in unparsed {
        if let Some(line) = lines.get_mut(miss.line.wrapping_sub(1)) {
            line.class = "miss";
        }
    }
    for (index, run) in runs.iter().enumerate() {
        for number in run.lines[0]..=run.lines[1] {
            if let Some(line) = lines.get_mut(number.wrapping_sub(1)) {
                line.run = Some(index + 1);
                if line.class.is_empty() {
                    line.class = "run";
                }
            }
        }
        for result in &run.results {
            if let Some(line) = lines.get_mut(result.line.wrapping_sub(1)) {
                line.class = "value";
                line.run = Some(index + 1);
            }
        }
    }
    lines
}
