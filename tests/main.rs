//! benchlog's integration tests: one binary, a module per feature.

mod backup;
mod bounded_pages;
mod browse;
mod cli;
mod compare;
mod connections;
mod crash;
mod e2e;
mod golden_cli;
mod home;
mod hostile;
mod http;
mod ingest;
mod limits;
mod load;
mod mbox;
mod pinned;
mod review;
mod rights;
mod scale;
mod store;
mod support;
mod unavailable;
mod upload;
mod upload_limits;
mod web;
