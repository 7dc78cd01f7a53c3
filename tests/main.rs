//! benchlog's integration tests: one binary, a module per feature.

mod cli;
mod golden_cli;
mod ingest;
mod store;
mod support;
mod web;
