//! `/healthz`: 200 while the database answers.

use axum::extract::State;
use axum::routing::get;
use axum::Router;

use super::{AppError, AppState};
use crate::store;

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(healthz))
}

async fn healthz(State(state): State<AppState>) -> Result<&'static str, AppError> {
    state
        .with_conn(|conn| store::ping(conn).map_err(AppError::from))
        .await?;
    Ok("ok\n")
}
