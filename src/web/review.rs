//! The review page's forms: `POST /submissions/{id}/edit` corrects or adds
//! labels and attributes of one run, of every run of a message, or of every
//! run of the submission; `POST /submissions/{id}/undo` puts back what the
//! parser found. Both need the submission's edit token (see `rights`),
//! check everything before writing anything, write in one transaction and
//! answer with a redirect back to the page.

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::HeaderMap;
use axum::response::Redirect;
use axum::routing::post;
use axum::Router;

use super::rights::require_edit_rights;
use super::{AppError, AppState};
use crate::store::{self, RunField, RunPlace};
use parsers::contract::PseudoField;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/submissions/{id}/edit", post(edit))
        .route("/submissions/{id}/undo", post(undo))
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
}

pub const MAX_KEY_CHARS: usize = 40;
pub const MAX_VALUE_CHARS: usize = 200;

/// The largest edit form: a run's form with [`MAX_ATTRS_PER_RUN`] boxes
/// full is about 20 KB.
pub const MAX_FORM_BYTES: usize = 64 * 1024;

/// Most attributes one run may have (parsers give about ten): every
/// attribute is shown on the run's page and offered in its forms.
pub const MAX_ATTRS_PER_RUN: usize = 64;

/// Most fields (label and attributes) one edit may set.
pub const MAX_FIELDS_PER_EDIT: usize = MAX_ATTRS_PER_RUN + 1;

/// Most changes (runs times fields) one edit may write while it holds
/// the database's write lock.
pub const MAX_CHANGES_PER_EDIT: usize = 20_000;

/// Names that are fields of a run, not attributes: an attribute of the
/// same name could never be compared by.
const RESERVED_KEYS: [&str; 4] = ["tool", "threads", "item", "metric"];

/// Which runs a form changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The run with this `idx`.
    Run(usize),
    /// Every run of the message with this `idx`.
    Message(usize),
    All,
}

/// A checked edit: what to set on every run of the target.
#[derive(Debug)]
struct Edit {
    target: Target,
    /// Some(None) clears the label.
    label: Option<Option<String>>,
    /// None removes the attribute.
    attrs: Vec<(String, Option<String>)>,
}

fn bad(message: impl Into<String>) -> AppError {
    AppError::bad_request(message)
}

fn submission_id(id: &str) -> Result<i64, AppError> {
    id.parse()
        .map_err(|_| bad(format!("{id:?} is not a submission number.")))
}

fn form_pairs(body: &[u8]) -> Result<Vec<(String, String)>, AppError> {
    serde_urlencoded::from_bytes(body).map_err(|e| bad(format!("The form could not be read: {e}.")))
}

/// An attribute name: lower snake case, starting with a letter, at most
/// 40 characters, and not one of the run's own fields.
pub fn check_key(key: &str) -> Result<(), AppError> {
    let well_formed = key.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !well_formed || key.len() > MAX_KEY_CHARS {
        return Err(bad(format!(
            "{key:?} is not an attribute name: use lower snake case (letters, digits and _, starting with a letter), at most {MAX_KEY_CHARS} characters, like scheduler or os_version."
        )));
    }
    if PseudoField::from_name(key).is_some() || RESERVED_KEYS.contains(&key) {
        return Err(bad(format!(
            "{key:?} is a field of every run, not an attribute; choose another name{}.",
            if PseudoField::from_name(key) == Some(PseudoField::Label) {
                " (the label has its own box)"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

/// A value: trimmed, at most 200 characters, no control characters. Empty
/// means none.
pub fn check_value(what: &str, value: &str) -> Result<Option<String>, AppError> {
    let value = value.trim();
    if value.chars().count() > MAX_VALUE_CHARS {
        return Err(bad(format!(
            "The {what} is longer than {MAX_VALUE_CHARS} characters."
        )));
    }
    if value.chars().any(char::is_control) {
        return Err(bad(format!(
            "The {what} contains control characters (line breaks, tabs, ...); give it on one line."
        )));
    }
    Ok((!value.is_empty()).then(|| value.to_owned()))
}

fn number(what: &str, value: &str) -> Result<usize, AppError> {
    match value.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(bad(format!("{what}={value} is not a {what} number."))),
    }
}

fn parse_edit(pairs: Vec<(String, String)>) -> Result<Edit, AppError> {
    let mut target = None;
    let mut set_target = |new: Target| match target.replace(new) {
        Some(old) if old != new => Err(bad(
            "The form names more than one of run, message and all; send one.",
        )),
        _ => Ok(()),
    };
    let mut label = None;
    let mut attrs: Vec<(String, Option<String>)> = Vec::new();
    let (mut new_key, mut new_value) = (String::new(), String::new());
    for (name, value) in pairs {
        match name.as_str() {
            "run" => set_target(Target::Run(number("run", &value)? - 1))?,
            "message" => set_target(Target::Message(number("message", &value)? - 1))?,
            "all" => set_target(Target::All)?,
            "label" => label = Some(check_value("label", &value)?),
            "new_key" => new_key = value.trim().to_owned(),
            "new_value" => new_value = value,
            _ => {
                if let Some(key) = name.strip_prefix("attr.") {
                    check_key(key)?;
                    let value = check_value(&format!("value of {key}"), &value)?;
                    attrs.push((key.to_owned(), value));
                }
                // Anything else (a submit button's name, say) carries no edit.
            }
        }
    }
    let Some(target) = target else {
        return Err(bad(
            "The form does not say which runs to change: send run=N, message=N or all=1.",
        ));
    };
    if !new_key.is_empty() {
        check_key(&new_key)?;
        let Some(value) = check_value(&format!("value of {new_key}"), &new_value)? else {
            return Err(bad(format!(
                "Give a value for {new_key} (to remove an attribute from a run, empty its box in that run's form)."
            )));
        };
        attrs.push((new_key, Some(value)));
    } else if !new_value.trim().is_empty() {
        return Err(bad(
            "A value was given without an attribute name: fill in both.",
        ));
    }
    // On forms for several runs an empty label box means "leave as is".
    if !matches!(target, Target::Run(_)) && label == Some(None) {
        label = None;
    }
    if attrs.len() + usize::from(label.is_some()) > MAX_FIELDS_PER_EDIT {
        return Err(bad(format!(
            "The form sets {} attributes; one edit may set at most {MAX_ATTRS_PER_RUN} (and the label).",
            attrs.len()
        )));
    }
    Ok(Edit {
        target,
        label,
        attrs,
    })
}

/// The ids of the runs a target names, or a message saying it
/// names none.
fn target_runs(runs: &[RunPlace], target: Target) -> Result<Vec<i64>, AppError> {
    let chosen: Vec<i64> = runs
        .iter()
        .filter(|run| match target {
            Target::Run(n) => run.idx == n,
            Target::Message(m) => run.message_idx == Some(m),
            Target::All => true,
        })
        .map(|run| run.id)
        .collect();
    if chosen.is_empty() {
        return Err(bad(match target {
            Target::Run(n) => format!("This submission has no run {}.", n + 1),
            Target::Message(m) => format!("Message {} of this submission has no runs.", m + 1),
            Target::All => "This submission has no runs to change.".to_owned(),
        }));
    }
    Ok(chosen)
}

fn anchor(target: Target) -> String {
    match target {
        Target::Run(n) => format!("#run-{}", n + 1),
        Target::Message(_) | Target::All => "#review".to_owned(),
    }
}

async fn edit(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Redirect, AppError> {
    let id = submission_id(&id)?;
    let pairs = form_pairs(&body)?;
    require_edit_rights(&state, id, &headers, &pairs).await?;
    let edit = parse_edit(pairs)?;
    let target = edit.target;
    let changed = state
        .with_conn(move |conn| {
            let tx = conn.transaction()?;
            let runs = store::run_places(&tx, id)?
                .ok_or_else(|| AppError::NotFound(format!("There is no submission {id}.")))?;
            let chosen = target_runs(&runs, edit.target)?;
            let fields = edit.attrs.len() + usize::from(edit.label.is_some());
            if chosen.len().saturating_mul(fields) > MAX_CHANGES_PER_EDIT {
                return Err(bad(format!(
                    "This edit would change {} fields of {} runs at once; one edit may change at most {MAX_CHANGES_PER_EDIT}. Edit fewer runs at a time (a message's runs, say).",
                    fields,
                    chosen.len()
                )));
            }
            let attrs_before = store::most_attrs_of_a_run(&tx, id)?;
            let mut changed = 0;
            for run_id in chosen {
                if let Some(label) = &edit.label {
                    changed += usize::from(store::set_run_field(
                        &tx,
                        run_id,
                        &RunField::Label,
                        label.as_deref(),
                    )?);
                }
                for (key, value) in &edit.attrs {
                    let field = RunField::Attr(key.clone());
                    changed +=
                        usize::from(store::set_run_field(&tx, run_id, &field, value.as_deref())?);
                }
            }
            let attrs_after = store::most_attrs_of_a_run(&tx, id)?;
            if attrs_after > MAX_ATTRS_PER_RUN && attrs_after > attrs_before {
                // Dropping the transaction undoes the edit.
                return Err(bad(format!(
                    "A run may have at most {MAX_ATTRS_PER_RUN} attributes; this edit would give one {attrs_after}. Remove some first."
                )));
            }
            tx.commit()?;
            Ok(changed)
        })
        .await?;
    Ok(Redirect::to(&format!(
        "/submissions/{id}?saved={changed}{}",
        anchor(target)
    )))
}

async fn undo(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Redirect, AppError> {
    let id = submission_id(&id)?;
    let pairs = form_pairs(&body)?;
    require_edit_rights(&state, id, &headers, &pairs).await?;
    let (mut run, mut field_name, mut key) = (None, None, String::new());
    for (name, value) in pairs {
        match name.as_str() {
            "run" => run = Some(number("run", &value)? - 1),
            "field" => field_name = Some(value),
            "key" => key = value,
            _ => {}
        }
    }
    let Some(run) = run else {
        return Err(bad("The form does not say which run: send run=N."));
    };
    let field = match field_name.as_deref() {
        Some("label") => RunField::Label,
        Some("attr") => {
            check_key(&key)?;
            RunField::Attr(key)
        }
        _ => return Err(bad("Send field=label, or field=attr with key=NAME.")),
    };
    state
        .with_conn(move |conn| {
            let tx = conn.transaction()?;
            let runs = store::run_places(&tx, id)?
                .ok_or_else(|| AppError::NotFound(format!("There is no submission {id}.")))?;
            let run_id = target_runs(&runs, Target::Run(run))?[0];
            if !store::undo_run_edit(&tx, run_id, &field)? {
                let what = match &field {
                    RunField::Label => "label".to_owned(),
                    RunField::Attr(key) => key.clone(),
                };
                return Err(bad(format!(
                    "Run {}'s {what} was not edited: there is nothing to undo.",
                    run + 1
                )));
            }
            tx.commit()?;
            Ok(())
        })
        .await?;
    Ok(Redirect::to(&format!(
        "/submissions/{id}?undone=1#run-{}",
        run + 1
    )))
}
