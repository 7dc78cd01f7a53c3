//! A read replica (`benchlog serve --replica`, docs/replicas.md): every
//! page, image and export is served from the copy Litestream keeps
//! current, as on the primary, and whatever would write (an upload, an
//! edit, an undo, a token's use: every request but GET and HEAD) is
//! answered with a page that sends it to the primary, stored nowhere.
//! Its caches follow the copy by themselves: answers are kept by the data
//! generation the copy holds, which the primary's writes change.

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::state::AppState;
use super::{AppError, Role};

/// Refuses, on a replica, every request that would write.
pub async fn refuse_writes(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Role::Replica { primary_url } = &state.inner.options.role else {
        return next.run(request).await;
    };
    if matches!(*request.method(), Method::GET | Method::HEAD) {
        return next.run(request).await;
    }
    let path = request.uri().path();
    AppError::Forbidden(format!(
        "This server is a read-only copy of {primary_url}, kept current from it: \
         uploads, edits and edit tokens go to the primary. Nothing was stored here; \
         send it to {primary_url}{path} instead."
    ))
    .into_response()
}

/// What `/healthz` says of a replica beside "ok": the primary, and how
/// far behind the primary's last heartbeat the copy is, given
/// `behind_ms` (none: the primary never beat).
pub fn health_lines(primary_url: &str, behind_ms: Option<i64>) -> String {
    let behind = match behind_ms {
        Some(ms) => format!("behind the primary: {:.2} s", ms.max(0) as f64 / 1000.0),
        None => {
            "behind the primary: unknown (no heartbeat yet: is the primary run with --replicated?)"
                .to_owned()
        }
    };
    format!("replica of: {primary_url}\n{behind}\n")
}
