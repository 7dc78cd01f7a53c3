//! Test support the workspace shares, in one place: the parsers' tests,
//! the application's tests, the benchmarks and the examples that write
//! their inputs for the scripts under `scripts/` take it as a
//! dev-dependency.
//!
//! - [`fixture_files`]: the fixtures with goldens, the negative posts, the
//!   corpus and the list of fixtures still read wrong.
//! - [`corpus`]: the ~64 MB mail-like text the parse benchmark reads
//!   (`scripts/bench-parse.sh`).
//! - [`archive`]: the ~56 MB generated list archive the ingest benchmark
//!   imports (`scripts/bench-ingest.sh`).

pub mod archive;
pub mod corpus;
pub mod fixture_files;
