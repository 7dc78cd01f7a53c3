//! benchlog turns benchmark output posted to mailing lists (super-smack,
//! sysbench, sql-bench, bonnie, diskinfo) into a SQLite results database
//! and a server-rendered dashboard that compares runs.
//!
//! The parsing itself is the pure `parsers` crate; this crate reads its
//! inputs ([`intake`]) from their sources ([`import`]), stores what the
//! parsers find in them ([`ingest`], [`store`]), draws it ([`charts`])
//! and serves it ([`web`]), driven by the command line ([`cli`],
//! [`config`]).
//!
//! ```no_run
//! let mut conn = benchlog::store::open(std::path::Path::new("benchlog.db"))?;
//! let text = std::fs::read_to_string("fixtures/super-smack/seed-000-freebsd-mysql-smp.txt")?;
//! let stored = benchlog::ingest::ingest_text(&mut conn, Some("seed-000"), &text)?;
//! println!("submission {} with {} runs", stored.submission_id, stored.runs);
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod charts;
pub mod cli;
pub mod compare;
pub mod config;
pub mod csv_cell;
pub mod demo;
pub mod embedded;
pub mod import;
pub mod ingest;
pub mod intake;
pub mod limits;
pub mod moments;
pub mod store;
pub mod web;
