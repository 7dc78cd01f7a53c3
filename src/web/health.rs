//! `/healthz`: 200 while the database can be read and written; 503 with
//! the reason in one line otherwise (the file deleted, replaced or
//! read-only), for whatever watches the server.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(healthz))
}

async fn healthz(State(state): State<AppState>) -> Response {
    match state.check_database().await {
        Ok(()) => match state.replica_health().await {
            Some(lines) => format!("ok\n{lines}").into_response(),
            None => "ok\n".into_response(),
        },
        Err(reason) => {
            tracing::warn!("unhealthy: {reason}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("unavailable: {reason}\n"),
            )
                .into_response()
        }
    }
}
