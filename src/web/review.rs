//! The review page's forms: `POST /submissions/{id}/edit` corrects or adds
//! labels and attributes of one run, of every run of a message, or of every
//! run of the submission; `POST /submissions/{id}/undo` puts back what the
//! parser found. Both need the submission's edit token (see `rights`),
//! are rate-limited per client and per submission ([`EditLimits`]),
//! check everything before writing anything, write through one
//! [`store::Correction`], which holds the write lock from its start, and
//! answer with a redirect back to the page.

use std::net::IpAddr;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::HeaderMap;
use axum::response::Redirect;
use axum::routing::post;
use axum::Router;

use super::guard::{PeerIp, RateLimiter};
use super::rights::require_edit_rights;
use super::state::AppState;
use super::{AppError, WebOptions};
use crate::limits::{
    EDIT_CHANGE_BYTES, MAX_ATTRS_PER_RUN, MAX_CHANGES_PER_EDIT, MAX_EDIT_BYTES,
    MAX_FIELDS_PER_EDIT, MAX_FORM_BYTES, MAX_KEY_CHARS, MAX_VALUE_CHARS,
};
use crate::store::{self, RunField, RunPlace};
use parsers::contract::PseudoField;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/submissions/{id}/edit", post(edit))
        .route("/submissions/{id}/undo", post(undo))
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
}

/// Whose budget of edits a request draws on: its client's (IP address)
/// and the submission's, so that neither many edits from one address nor
/// edits of one submission from many can fill the disk or the write lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum EditBucket {
    Client(Option<IpAddr>),
    Submission(i64),
}

/// The rate limits of edits and undos (`benchlog serve
/// --edits-per-minute`, `--edit-changes-per-minute`): requests, and the
/// fields they may change (runs times fields; an undo is one), per
/// client and per submission. What an edit would change is charged
/// before it writes, so a refused one writes nothing; an edit that
/// changes less than it named is charged what it named.
pub struct EditLimits {
    edits: RateLimiter<EditBucket>,
    changes: RateLimiter<EditBucket>,
    /// What every client's edits together may write an hour (`benchlog
    /// serve --edit-bytes-per-hour`), one bucket for all.
    bytes: RateLimiter<()>,
}

impl EditLimits {
    pub fn new(options: &WebOptions) -> Self {
        EditLimits {
            edits: RateLimiter::keyed_per_minute(options.edits_per_minute),
            changes: RateLimiter::keyed_per_minute(options.edit_changes_per_minute),
            bytes: RateLimiter::keyed_per_window(
                u32::try_from(options.edit_bytes_per_hour).unwrap_or(u32::MAX),
                Duration::from_secs(3600),
            ),
        }
    }

    /// `bytes` more written by edits, from the budget all clients share:
    /// the last check before an edit writes, so that an edit refused for
    /// anything else takes none of it.
    fn bytes(&self, bytes: usize) -> Result<(), AppError> {
        let per_hour = self.bytes.per_window;
        self.bytes
            .check_cost(
                (),
                u32::try_from(bytes).unwrap_or(u32::MAX),
            )
            .map_err(|wait| AppError::Busy {
                message: format!(
                    "Edits on this server have written as much as it allows for now ({} an hour, from every client together); please wait and send it again. Nothing was changed.",
                    crate::intake::size_for_people(u64::from(per_hour))
                ),
                retry_after: wait.as_secs().clamp(1, 3600),
            })
    }

    /// One more edit from this client: charged before anything is read, so
    /// that refused requests (bad forms, wrong tokens) count too.
    fn client_edit(&self, peer: Option<IpAddr>) -> Result<(), AppError> {
        self.edits.check(EditBucket::Client(peer)).map_err(|wait| {
            too_many(
                wait,
                format!(
                    "Too many edits from your address in a short time ({} a minute are allowed)",
                    self.edits.per_window
                ),
            )
        })
    }

    /// One more edit of submission `id`: charged once the request has
    /// shown it may change it, so that no one else can use up its edits.
    fn submission_edit(&self, id: i64) -> Result<(), AppError> {
        self.edits
            .check(EditBucket::Submission(id))
            .map_err(|wait| {
                too_many(
                    wait,
                    format!(
                        "Submission {id} was changed too often in a short time ({} edits a minute are allowed)",
                        self.edits.per_window
                    ),
                )
            })
    }

    /// `changes` fields more, from the client's and the submission's
    /// budgets both, or from neither.
    fn changes(&self, peer: Option<IpAddr>, id: i64, changes: usize) -> Result<(), AppError> {
        let cost = u32::try_from(changes).unwrap_or(u32::MAX);
        let per_minute = self.changes.per_window;
        self.changes
            .check_cost_of_each([EditBucket::Client(peer), EditBucket::Submission(id)], cost)
            .map_err(|wait| {
                if wait == Duration::MAX {
                    return AppError::TooManyRequests {
                        message: format!(
                            "This edit would change {changes} fields; at most {per_minute} may be changed a minute. Edit fewer runs at a time (a message's runs, say). Nothing was changed."
                        ),
                        retry_after: 3600,
                    };
                }
                too_many(
                    wait,
                    format!(
                        "This edit would change {changes} fields, more than your address and submission {id} may change now ({per_minute} a minute are allowed)"
                    ),
                )
            })
    }
}

/// 429 saying `what` and how long to wait.
fn too_many(wait: Duration, what: String) -> AppError {
    let retry_after = wait.as_secs().clamp(1, 3600);
    AppError::TooManyRequests {
        message: format!(
            "{what}; please wait {retry_after} s and send it again. Nothing was changed."
        ),
        retry_after,
    }
}

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

impl Edit {
    /// The fields to set on each run, the label first.
    fn fields(&self) -> Vec<(RunField, Option<String>)> {
        let label = self.label.clone().map(|label| (RunField::Label, label));
        label
            .into_iter()
            .chain(
                self.attrs
                    .iter()
                    .map(|(key, value)| (RunField::Attr(key.clone()), value.clone())),
            )
            .collect()
    }

    /// What it writes on each run, as [`MAX_EDIT_BYTES`] counts it: each
    /// field's name and value and [`EDIT_CHANGE_BYTES`].
    fn bytes_per_run(&self) -> usize {
        self.fields()
            .iter()
            .map(|(field, value)| {
                field.name().len() + value.as_ref().map_or(0, String::len) + EDIT_CHANGE_BYTES
            })
            .sum()
    }
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

/// The runs a target names, or a message saying it names none.
fn target_runs(runs: &[RunPlace], target: Target) -> Result<Vec<RunPlace>, AppError> {
    let chosen: Vec<RunPlace> = runs
        .iter()
        .filter(|run| match target {
            Target::Run(n) => run.idx == n,
            Target::Message(m) => run.message_idx == Some(m),
            Target::All => true,
        })
        .copied()
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

/// Refuses an edit that would give a run more than [`MAX_ATTRS_PER_RUN`]
/// attributes (and more than it has: a run the parser gave more keeps
/// them), reading only: a refused edit writes nothing.
fn check_attr_limit(
    correction: &store::Correction,
    id: i64,
    chosen: &[RunPlace],
    attrs: &[(String, Option<String>)],
) -> Result<(), AppError> {
    if attrs.iter().all(|(_, value)| value.is_none()) {
        return Ok(());
    }
    let counts = correction.attr_counts_after(id, attrs)?;
    for run in chosen {
        let (before, after) = counts.of(run.id);
        if after > MAX_ATTRS_PER_RUN && after > before {
            return Err(bad(format!(
                "A run may have at most {MAX_ATTRS_PER_RUN} attributes; this edit would give run {} {after}. Remove some first.",
                run.idx + 1
            )));
        }
    }
    Ok(())
}

async fn edit(
    State(state): State<AppState>,
    Path(id): Path<String>,
    PeerIp(peer): PeerIp,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Redirect, AppError> {
    let id = submission_id(&id)?;
    state.inner.edit_limits.client_edit(peer)?;
    let pairs = form_pairs(&body)?;
    require_edit_rights(&state, id, &headers, &pairs).await?;
    state.inner.edit_limits.submission_edit(id)?;
    let edit = parse_edit(pairs)?;
    // A read-only, deleted or full database is told as it is to uploads,
    // before anything is written, not after SQLite wrote to a file no
    // longer at its path.
    state.check_database_file()?;
    let target = edit.target;
    let limits = state.clone();
    let changed = state
        .with_conn(move |conn| {
            // The write lock first (see store::Correction).
            let correction = store::Correction::begin(conn)?;
            let runs = correction
                .run_places(id)?
                .ok_or_else(|| AppError::NotFound(format!("There is no submission {id}.")))?;
            let chosen = target_runs(&runs, edit.target)?;
            let fields = edit.attrs.len() + usize::from(edit.label.is_some());
            let changes = chosen.len().saturating_mul(fields);
            if changes > MAX_CHANGES_PER_EDIT {
                return Err(bad(format!(
                    "This edit would change {} fields of {} runs at once; one edit may change at most {MAX_CHANGES_PER_EDIT}. Edit fewer runs at a time (a message's runs, say).",
                    fields,
                    chosen.len()
                )));
            }
            let per_run = edit.bytes_per_run();
            let bytes = chosen.len().saturating_mul(per_run);
            if bytes > MAX_EDIT_BYTES {
                return Err(AppError::TooLarge(format!(
                    "This edit would write {} ({} runs, {} each: every field's name and value and {EDIT_CHANGE_BYTES} bytes for the rows that keep it); one edit may write at most {}. Edit fewer runs, or shorter values, at a time. Nothing was changed.",
                    crate::intake::size_for_people(bytes as u64),
                    chosen.len(),
                    crate::intake::size_for_people(per_run as u64),
                    crate::intake::size_for_people(MAX_EDIT_BYTES as u64),
                )));
            }
            check_attr_limit(&correction, id, &chosen, &edit.attrs)?;
            limits.inner.edit_limits.changes(peer, id, changes)?;
            limits.inner.edit_limits.bytes(bytes)?;
            let run_ids: Vec<i64> = chosen.iter().map(|run| run.id).collect();
            Ok(correction.set_run_fields(&run_ids, &edit.fields())?)
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
    PeerIp(peer): PeerIp,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Redirect, AppError> {
    let id = submission_id(&id)?;
    state.inner.edit_limits.client_edit(peer)?;
    let pairs = form_pairs(&body)?;
    require_edit_rights(&state, id, &headers, &pairs).await?;
    state.inner.edit_limits.submission_edit(id)?;
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
    state.check_database_file()?;
    let limits = state.clone();
    state
        .with_conn(move |conn| {
            // The write lock first, as for an edit.
            let correction = store::Correction::begin(conn)?;
            let runs = correction
                .run_places(id)?
                .ok_or_else(|| AppError::NotFound(format!("There is no submission {id}.")))?;
            let run_id = target_runs(&runs, Target::Run(run))?[0].id;
            if !correction.has_run_edit(run_id, &field)? {
                return Err(bad(format!(
                    "Run {}'s {} was not edited: there is nothing to undo.",
                    run + 1,
                    field.name()
                )));
            }
            limits.inner.edit_limits.changes(peer, id, 1)?;
            correction.undo_run_edit(run_id, &field)?;
            Ok(())
        })
        .await?;
    Ok(Redirect::to(&format!(
        "/submissions/{id}?undone=1#run-{}",
        run + 1
    )))
}
