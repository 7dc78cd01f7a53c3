//! The context around a report: section labels such as `== ULE + libthr +
//! TSC ==`, markdown headings and labels in prose (`Before this change:`,
//! see [`prose`]) and the attributes they name; facts about the system from
//! dmesg, `uname -a`, `Running tests on:` and `Server version:` lines; and
//! who wrote the report.
//!
//! One module a job, each using those before it:
//!
//! - [`spelling`]: how the text spells a scheduler, thread library, timer,
//!   OS or architecture, and how Contract 2 spells it (`SCHED_ULE` is `ULE`);
//! - [`outline`]: the post's headings by level, read once, and the
//!   input's own lines for the marks undoing markup took off;
//! - [`labels`]: section banners, headings and labels in prose, the
//!   attributes a label names and the label in force on a line, by one
//!   rule written out there: the nearest heading above a report at its
//!   own depth names it;
//! - [`facts`]: what lines state about the system (dmesg, `uname -a`,
//!   banners) and remarks on thread libraries in prose;
//! - [`apply`]: gives each run its label, author, message and facts.

mod apply;
mod facts;
mod labels;
mod outline;
mod prose;
mod spelling;

pub(crate) use apply::{apply, Outlined};
pub(crate) use facts::{FactClues, FACT_CLUE_BYTES};
