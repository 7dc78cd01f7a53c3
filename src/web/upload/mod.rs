//! `POST /upload`: pasted text (`text`) or one or more files (`file`:
//! `.txt`, `.log`, `.gz`, ...), as multipart or urlencoded form.
//!
//! Everything is checked before anything is stored, and what one upload
//! may cost is bounded: its parts, the bytes it unpacks, the submissions
//! it makes (per upload and per client a minute), and the memory all
//! uploads in flight take (request bodies wait for their share of a
//! budget, each client's bodies for their part of it, and a body that
//! comes too slowly is dropped: see [`super::bodies`]; one upload at a
//! time is read, parsed and stored). Then all its submissions are stored
//! in one transaction, committed only while the uploader still waits for
//! the answer that carries their edit token: an upload that times out or
//! whose client goes away stores nothing. The answer redirects to the
//! first submission's review, which lists the others (`?uploaded=ID,...`),
//! or, for more than a page of them or when messages of an archive could
//! not be read, is a page listing them and what was not read, with why.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use askama::Template;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_LENGTH, SET_COOKIE};
use axum::http::StatusCode;
use axum::response::{AppendHeaders, Html, IntoResponse, Redirect, Response};
use axum::routing::post;
use axum::Router;
use rusqlite::Connection;

mod form;

use super::bodies::MinimumRate;
use super::state::AppState;
use super::{guard, rights, AppError};
use crate::import;
use crate::intake::{self, Input, InputError};
use crate::limits::MAX_INPUT_BYTES;
use crate::store;
use form::read_form;

use crate::limits::{BODY_BUDGET_KIB, MAX_SUBMISSIONS_PER_UPLOAD};

use crate::limits::{
    MAX_UNRECEIVED_KEPT, MAX_UPLOADED_IN_URL, MIN_BODY_BYTES_PER_WINDOW, UNRECEIVED_TOKEN_KEPT,
};

pub fn router() -> Router<AppState> {
    Router::new().route("/upload", post(upload))
}

/// One input of the form, before decoding.
struct Part {
    /// The file's name, or None for the pasted text.
    file_name: Option<String>,
    bytes: axum::body::Bytes,
}

/// What became of an upload being stored: still wanted, given up by its
/// client, or past the point of no return. The storing thread and the
/// request each move it on from [`Fate::WANTED`] with one
/// compare-and-swap, so exactly one wins: an upload given up before its
/// commit leaves nothing, and one whose commit began is answered.
struct Fate {
    stage: AtomicU8,
    /// An upload committed after its request left: what nobody received.
    after_commit: Mutex<AfterCommit>,
}

/// Who of the request and the storing thread comes last after a commit
/// whose request left: that one hands the token to [`Unreceived`].
#[derive(Default)]
struct AfterCommit {
    /// The request left after the commit began.
    left: bool,
    /// What the commit stored, once it is done.
    stored: Option<UnreceivedUpload>,
}

impl Fate {
    const WANTED: u8 = 0;
    const ABANDONED: u8 = 1;
    const COMMITTING: u8 = 2;

    fn new() -> Arc<Self> {
        Arc::new(Fate {
            stage: AtomicU8::new(Self::WANTED),
            after_commit: Mutex::new(AfterCommit::default()),
        })
    }

    /// The request left after the commit began: what it stored, if the
    /// commit is done, is nobody's yet.
    fn left_after_commit(&self, unreceived: &Unreceived) {
        let mut after = self.after_commit.lock().unwrap_or_else(|e| e.into_inner());
        after.left = true;
        if let Some(upload) = after.stored.take() {
            unreceived.keep(upload);
        }
    }

    /// The commit is done: when the request has left already, what it
    /// stored is nobody's yet.
    fn committed(&self, upload: UnreceivedUpload, unreceived: &Unreceived) {
        let mut after = self.after_commit.lock().unwrap_or_else(|e| e.into_inner());
        if after.left {
            unreceived.keep(upload);
        } else {
            after.stored = Some(upload);
        }
    }

    /// Gives the upload up, unless its commit began: whether it was.
    fn abandon(&self) -> bool {
        self.stage
            .compare_exchange(
                Self::WANTED,
                Self::ABANDONED,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    fn is_abandoned(&self) -> bool {
        self.stage.load(Ordering::SeqCst) == Self::ABANDONED
    }

    /// Begins the commit, unless the upload was given up: whether it may.
    fn commit(&self) -> bool {
        self.stage
            .compare_exchange(
                Self::WANTED,
                Self::COMMITTING,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }
}

/// Gives the upload up when the request's future is dropped (the client
/// gone) so that the storing, which goes on on its own thread, does not
/// commit submissions whose edit token nobody will receive. Dropped once
/// the commit began, its token is kept for the client's next try
/// ([`Unreceived`]).
struct Abandoned {
    fate: Arc<Fate>,
    state: AppState,
    /// The storing came back: nothing is left to give up.
    answered: bool,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        if self.answered || self.fate.abandon() {
            return;
        }
        if self.fate.stage.load(Ordering::SeqCst) == Fate::COMMITTING {
            self.fate.left_after_commit(&self.state.inner.unreceived);
        }
    }
}

/// The edit tokens of uploads committed after their client left (it
/// closed the connection while the commit was under way), so that nobody
/// received them: inherent to committing before answering. The same
/// client sending the same upload again within [`UNRECEIVED_TOKEN_KEPT`]
/// is stored nothing new (every text is stored already) and is given the
/// token, once. Only uploads nobody received are kept, so a token handed
/// over is never handed to a second party; whoever else shares the
/// client's address (a NAT) and sends the same texts first, in those
/// minutes, would get it instead, where otherwise nobody could edit them.
#[derive(Default)]
pub(super) struct Unreceived {
    kept: Mutex<VecDeque<UnreceivedUpload>>,
}

/// An upload whose answer nobody received.
struct UnreceivedUpload {
    client: Option<IpAddr>,
    ids: Vec<i64>,
    token: String,
    at: Instant,
}

impl Unreceived {
    fn keep(&self, upload: UnreceivedUpload) {
        tracing::info!(
            submissions = upload.ids.len(),
            "an upload was committed after its client left; its token is kept for a while"
        );
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|old| old.at.elapsed() < UNRECEIVED_TOKEN_KEPT);
        if kept.len() >= MAX_UNRECEIVED_KEPT {
            kept.pop_front();
        }
        kept.push_back(upload);
    }

    /// The token of an upload of `client` nobody received that stored
    /// exactly `ids`, given once.
    fn take(&self, client: Option<IpAddr>, ids: &[i64]) -> Option<String> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|old| old.at.elapsed() < UNRECEIVED_TOKEN_KEPT);
        let at = kept
            .iter()
            .position(|old| old.client == client && old.ids == ids)?;
        kept.remove(at).map(|upload| upload.token)
    }
}

#[derive(Template)]
#[template(path = "upload/stored.html")]
struct StoredPage {
    title: String,
    ids: Vec<i64>,
    token: Option<String>,
    /// Messages of an uploaded archive, and parts of them, that were not
    /// read, each with why.
    not_read: Vec<intake::MailFailure>,
}

/// `/upload` is not under the router's request timeout ([`super::app`]):
/// it keeps its own, so that a timeout that comes once the commit began
/// waits for it and answers with the token, instead of a 408 for an upload
/// that was stored all the same. Before that point, the timeout gives the
/// upload up and nothing is stored.
async fn upload(State(state): State<AppState>, request: Request) -> Result<Response, AppError> {
    let fate = Fate::new();
    let deadline = tokio::time::Instant::now() + state.options().request_timeout;
    let work = receive_and_store(state, request, Arc::clone(&fate));
    tokio::pin!(work);
    match tokio::time::timeout_at(deadline, &mut work).await {
        Ok(answer) => answer,
        Err(_) if fate.abandon() => Ok(StatusCode::REQUEST_TIMEOUT.into_response()),
        Err(_) => work.await,
    }
}

/// The upload's steps, in order: each check comes before anything that
/// costs more than it, and nothing is stored until all have passed.
async fn receive_and_store(
    state: AppState,
    request: Request,
    fate: Arc<Fate>,
) -> Result<Response, AppError> {
    let peer = guard::peer_ip(&request);
    check_upload_rate(&state, peer)?;
    // The body's share is held until the answer is made; the turn at
    // work until what the upload read, parsed and stored is dropped.
    let declared = declared_length(&request);
    let _body_share = state
        .inner
        .upload_bodies
        .take(peer, body_kib(&state, declared))
        .await;
    let window = state.options().body_rate_window;
    let request = request.map(|body| {
        Body::new(MinimumRate::new(
            body,
            declared,
            window,
            MIN_BODY_BYTES_PER_WINDOW,
        ))
    });
    let (parts, title) = read_form(request, &state).await?;
    let work_permit = take_budget(&state.inner.upload_work, 1).await?;
    let (texts, paste) = tokio::task::spawn_blocking(move || prepare_parts(parts))
        .await
        .map_err(|error| {
            AppError::Internal(anyhow::Error::new(error).context("reading an upload"))
        })??;
    // The title names the pasted text, or the one file sent alone.
    let titled = paste.or((texts.len() == 1).then_some(0));
    let title = title.and_then(|title| Some((titled?, title)));
    check_submission_rate(&state, peer, &texts)?;

    // Told on the answer's page, as `benchlog ingest` reports them.
    let not_read: Vec<intake::MailFailure> = texts
        .iter()
        .flat_map(|(_, input)| input.not_read())
        .collect();
    let (ids, token) = store_texts(&state, peer, texts, title, paste, fate).await?;
    drop(work_permit);
    // The same upload again, whose first answer its client never got.
    let token = token.or_else(|| state.inner.unreceived.take(peer, &ids));
    stored_answer(ids, token, not_read)
}

/// Refuses an upload from a client that sent more than
/// `uploads_per_minute` of them lately.
fn check_upload_rate(state: &AppState, peer: Option<IpAddr>) -> Result<(), AppError> {
    let Err(wait) = state.inner.upload_limiter.check(peer) else {
        return Ok(());
    };
    let retry_after = wait.as_secs().max(1);
    Err(AppError::TooManyRequests {
        message: format!(
            "Too many uploads from your address in a short time ({} a minute are allowed); please wait {retry_after} s and send it again.",
            state.options().uploads_per_minute
        ),
        retry_after,
    })
}

/// The body's length as its Content-Length declares it.
fn declared_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok())
}

/// The body's share of [`BODY_BUDGET_KIB`]: its declared length, or the
/// most a body may be when it declares none (or more).
fn body_kib(state: &AppState, declared: Option<u64>) -> usize {
    let max_body = state.options().max_body_bytes;
    let declared = declared
        .and_then(|declared| usize::try_from(declared).ok())
        .unwrap_or(max_body)
        .min(max_body);
    kib(declared).min(BODY_BUDGET_KIB)
}

/// Waits for one of the [`crate::limits::UPLOADS_AT_WORK`] turns.
async fn take_budget(
    budget: &tokio::sync::Semaphore,
    share: usize,
) -> Result<tokio::sync::SemaphorePermit<'_>, AppError> {
    budget
        .acquire_many(share as u32)
        .await
        .map_err(|_| AppError::Internal(anyhow::anyhow!("the upload queue is closed")))
}

/// Refuses an upload holding more submissions than the client may store
/// now (`submissions_per_minute`, each submission one token).
fn check_submission_rate(
    state: &AppState,
    peer: Option<IpAddr>,
    texts: &[(String, Input)],
) -> Result<(), AppError> {
    let submissions: usize = texts.iter().map(|(_, input)| input.submissions()).sum();
    let cost = u32::try_from(submissions).unwrap_or(u32::MAX);
    let Err(wait) = state.inner.submission_limiter.check_cost(peer, cost) else {
        return Ok(());
    };
    let retry_after = wait.as_secs().clamp(1, 3600);
    Err(AppError::TooManyRequests {
        message: format!(
            "This upload holds {submissions} submissions, more than your address may store now ({} a minute are allowed); please wait {retry_after} s and send it again, or split it.",
            state.inner.submission_limiter.per_window
        ),
        retry_after,
    })
}

/// Stores the texts in one transaction, committed only while `fate` says
/// the uploader still waits; the ids stored and the edit token.
async fn store_texts(
    state: &AppState,
    client: Option<IpAddr>,
    texts: Vec<(String, Input)>,
    title: Option<(usize, String)>,
    paste: Option<usize>,
    fate: Arc<Fate>,
) -> Result<(Vec<i64>, Option<String>), AppError> {
    state.check_database_file()?;
    let mut abandoned = Abandoned {
        fate: Arc::clone(&fate),
        state: state.clone(),
        answered: false,
    };
    let writer = state.clone();
    let stored = state
        .with_conn(move |conn| {
            let title = title.as_ref().map(|(at, title)| (*at, title.as_str()));
            let checkpointer = writer.inner.checkpointer.as_ref();
            let stored =
                store_upload_checkpointed(conn, checkpointer, texts, title, paste, &|stage| {
                    match stage {
                        UploadStage::Committing => !fate.commit(),
                        UploadStage::Storing { .. } => fate.is_abandoned(),
                    }
                })?;
            if let (ids, Some(token)) = &stored {
                let upload = UnreceivedUpload {
                    client,
                    ids: ids.clone(),
                    token: token.clone(),
                    at: Instant::now(),
                };
                fate.committed(upload, &writer.inner.unreceived);
            }
            Ok(stored)
        })
        .await;
    abandoned.answered = true;
    stored
}

/// The answer to a stored upload, with its edit token's cookies: a
/// redirect to the first submission's review, or, for more than
/// [`MAX_UPLOADED_IN_URL`] of them or when some messages were not read, a
/// page listing them.
fn stored_answer(
    ids: Vec<i64>,
    token: Option<String>,
    not_read: Vec<intake::MailFailure>,
) -> Result<Response, AppError> {
    let first = *ids
        .first()
        .ok_or_else(|| AppError::bad_request("Nothing to store."))?;
    let cookies: Vec<_> = token
        .as_ref()
        .map(|token| rights::new_upload_cookies(first, token).to_vec())
        .unwrap_or_default();
    if ids.len() > MAX_UPLOADED_IN_URL || !not_read.is_empty() {
        // The token is on this page; the flash cookie would show it again.
        let mut title = match ids.len() {
            1 => "1 submission stored".to_owned(),
            n => format!("{n} submissions stored"),
        };
        if !not_read.is_empty() {
            title.push_str(&format!(", {} not read", not_read.len()));
        }
        let page = StoredPage {
            title,
            ids,
            token,
            not_read,
        };
        let html = page.render().map_err(|e| {
            AppError::Internal(anyhow::Error::new(e).context("rendering the upload page"))
        })?;
        let cookie = cookies
            .into_iter()
            .take(1)
            .map(|cookie| (SET_COOKIE, cookie));
        return Ok((AppendHeaders(cookie), Html(html)).into_response());
    }
    let redirect = match ids.as_slice() {
        // No token: nothing new was stored, the text was there already.
        [only] if token.is_none() => Redirect::to(&format!("/submissions/{only}?already=1")),
        [only] => Redirect::to(&format!("/submissions/{only}")),
        _ => {
            let list: Vec<String> = ids.iter().map(i64::to_string).collect();
            Redirect::to(&format!("/submissions/{first}?uploaded={}", list.join(",")))
        }
    };
    let cookies = cookies.into_iter().map(|cookie| (SET_COOKIE, cookie));
    Ok((AppendHeaders(cookies), redirect).into_response())
}

/// Where [`store_upload`] asks whether the upload is still wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadStage {
    /// Before storing the next submission, `stored` of them stored so far
    /// (0: before any).
    Storing { stored: usize },
    /// After [`store::Writer::finish`], right before the commit: the last
    /// moment the upload can still leave nothing behind. Saying "not
    /// abandoned" here is the promise to commit.
    Committing,
}

/// Stores an upload's inputs in one transaction and returns the
/// submissions (new or already stored) and, when it created any, the edit
/// token that lets its uploader change them. `title` names the text of
/// `texts[at]`; `texts[paste]` is the pasted one, which without a title
/// of its own is named by [`ingest::title::paste_title`]. `abandoned` is asked
/// at every [`UploadStage`]: when it says yes, the transaction is rolled
/// back and nothing is stored, since nobody would receive the token.
/// Storing a large upload and finishing its writes take seconds, so it is
/// asked between submissions (an abandoned upload stops early) and, last,
/// right before the commit.
pub fn store_upload(
    conn: &mut Connection,
    texts: Vec<(String, Input)>,
    title: Option<(usize, &str)>,
    paste: Option<usize>,
    abandoned: &dyn Fn(UploadStage) -> bool,
) -> Result<(Vec<i64>, Option<String>), AppError> {
    store_upload_checkpointed(conn, None, texts, title, paste, abandoned)
}

/// [`store_upload`], asking `checkpointer` for a checkpoint after the
/// commit: one import of the upload's inputs, all or nothing.
fn store_upload_checkpointed(
    conn: &mut Connection,
    checkpointer: Option<&store::Checkpointer>,
    texts: Vec<(String, Input)>,
    title: Option<(usize, &str)>,
    paste: Option<usize>,
    abandoned: &dyn Fn(UploadStage) -> bool,
) -> Result<(Vec<i64>, Option<String>), AppError> {
    let mut inputs = import::Inputs::default();
    for (at, (name, input)) in texts.into_iter().enumerate() {
        let title = match title {
            Some((titled, title)) if titled == at => import::Title::Typed(title.to_owned()),
            _ if paste == Some(at) => import::Title::Pasted,
            _ => import::Title::Named,
        };
        inputs.push(name, input, title);
    }
    // The uploader's right to change what this upload adds (see
    // `rights`): submissions numbered above the newest one now.
    let token = rights::new_token()?;
    let mut receipt = Receipt {
        token_hash: rights::token_hash(&token),
        newest_before: 0,
        ids: Vec::new(),
        seen: std::collections::HashSet::new(),
        stored: 0,
        created: false,
        abandoned,
    };
    let options = import::Options {
        commit: import::Commit::AllOrNothing,
        checkpointer,
    };
    import::import(conn, &mut [&mut inputs], options, &mut receipt)?;
    Ok((receipt.ids, receipt.created.then_some(token)))
}

/// What an upload's import tells its uploader: the submissions it is, in
/// order, and whether it created any (then the token is theirs), asking
/// at every [`UploadStage`] whether the upload is still wanted.
struct Receipt<'a> {
    token_hash: String,
    /// The newest submission before the upload's transaction began.
    newest_before: i64,
    ids: Vec<i64>,
    seen: std::collections::HashSet<i64>,
    /// Submissions stored so far, an input stored twice counted twice.
    stored: usize,
    created: bool,
    abandoned: &'a dyn Fn(UploadStage) -> bool,
}

impl Receipt<'_> {
    /// An error, which rolls the transaction back, when the upload was
    /// abandoned at `stage`.
    fn still_wanted(&self, stage: UploadStage) -> anyhow::Result<()> {
        if (self.abandoned)(stage) {
            tracing::info!(
                ?stage,
                "an upload was abandoned by its client; nothing stored"
            );
            anyhow::bail!(
                "the upload was abandoned by its client before it was stored; nothing was kept"
            );
        }
        Ok(())
    }
}

impl import::Observer for Receipt<'_> {
    fn began(&mut self, tx: &rusqlite::Transaction) -> anyhow::Result<()> {
        self.still_wanted(UploadStage::Storing { stored: 0 })?;
        self.newest_before = store::max_submission_id(tx)?;
        Ok(())
    }

    fn stored(&mut self, tx: &rusqlite::Transaction, id: i64) -> anyhow::Result<()> {
        if id > self.newest_before && store::insert_edit_token(tx, id, &self.token_hash)? {
            self.created = true;
        }
        if self.seen.insert(id) {
            self.ids.push(id);
        }
        self.stored += 1;
        self.still_wanted(UploadStage::Storing {
            stored: self.stored,
        })
    }

    fn committing(&mut self) -> anyhow::Result<()> {
        self.still_wanted(UploadStage::Committing)
    }
}

fn kib(bytes: usize) -> usize {
    bytes.div_ceil(1024).max(1)
}

/// Unpacks, decodes and parses each part (on a blocking thread), refusing
/// the whole upload when one part is bad or together they pass a limit.
/// Also says which of the texts is the pasted one.
type Prepared = (Vec<(String, Input)>, Option<usize>);

fn prepare_parts(parts: Vec<Part>) -> Result<Prepared, AppError> {
    let mut texts = Vec::new();
    let mut paste = None;
    let mut text_bytes = 0;
    let mut submissions = 0;
    for part in parts {
        let what = match &part.file_name {
            Some(name) => format!("The file {name:?}"),
            None => "The pasted text".to_owned(),
        };
        // A .gz that is not gzip would otherwise be stored as text.
        let gz_name = part
            .file_name
            .as_deref()
            .is_some_and(|name| name.to_ascii_lowercase().ends_with(".gz"));
        if gz_name && !part.bytes.starts_with(&[0x1f, 0x8b]) {
            return Err(AppError::bad_request(format!(
                "{what} is named .gz but is not gzip-compressed; upload it as it is (renamed to .txt) or compress it with gzip."
            )));
        }
        // Mail archives (mbox, .eml) become one submission per message.
        let most = MAX_SUBMISSIONS_PER_UPLOAD - submissions;
        let input = match intake::prepare_input(part.file_name.as_deref(), &part.bytes, most) {
            Ok(input) => input,
            // An empty text box next to a chosen file is not a mistake.
            Err(InputError::Empty) => continue,
            Err(InputError::TooManyMessages(_)) => return Err(too_many_submissions()),
            Err(error @ InputError::TooLarge) => return Err(error.into()),
            Err(error) => return Err(AppError::bad_request(format!("{what}: {error}."))),
        };
        text_bytes += input.text_bytes();
        if text_bytes as u64 > MAX_INPUT_BYTES {
            return Err(InputError::TooLarge.into());
        }
        submissions += input.submissions();
        if submissions > MAX_SUBMISSIONS_PER_UPLOAD {
            return Err(too_many_submissions());
        }
        if part.file_name.is_none() {
            paste = Some(texts.len());
        }
        texts.push((part.file_name.unwrap_or_else(|| "paste".to_owned()), input));
    }
    if texts.is_empty() {
        return Err(AppError::bad_request(
            "Nothing to store: paste some benchmark output into the text box or choose a file.",
        ));
    }
    Ok((texts, paste))
}

fn too_many_submissions() -> AppError {
    AppError::TooLarge(format!(
        "The upload holds more than {MAX_SUBMISSIONS_PER_UPLOAD} submissions (each message of an archive is one); split it, or import the archive with `benchlog ingest`."
    ))
}

#[cfg(test)]
mod tests {
    use super::Fate;

    #[test]
    fn an_upload_is_either_abandoned_or_committed_never_both() {
        let fate = Fate::new();
        assert!(fate.commit(), "a wanted upload may commit");
        assert!(!fate.abandon(), "one whose commit began is answered");
        assert!(!fate.is_abandoned());

        let fate = Fate::new();
        assert!(fate.abandon(), "a wanted upload may be given up");
        assert!(fate.is_abandoned());
        assert!(!fate.commit(), "one given up never commits");
    }
}
