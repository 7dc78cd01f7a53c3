//! What an import did: counted for its summary, and told file by file.

use std::fmt::Write as _;

use crate::ingest;
use crate::intake::MailFailure;

/// What a bulk import did, for its summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Files read as plain text (not mail): stored, or already stored.
    pub texts_added: usize,
    pub texts_already_stored: usize,
    pub messages_read: usize,
    /// Messages in which at least one run was found (stored or quoted).
    pub messages_with_results: usize,
    pub messages_added: usize,
    /// Of `messages_added`, those stored with their header block only,
    /// their text kept by the archive (`ingest::store_mail`).
    pub messages_headers_only: usize,
    /// Messages stored with their header block only whose text was
    /// brought back from the archive: a message answering them holds runs.
    pub texts_restored: usize,
    pub messages_already_stored: usize,
    /// Of `messages_already_stored`, those known by their raw bytes
    /// before they were decoded and parsed.
    pub messages_known_unread: usize,
    pub runs_added: usize,
    /// Of `runs_added`, those found again in a later message: each is
    /// stored as that message's own run, linked to the earlier one as its
    /// copy.
    pub runs_quoted: usize,
    /// Files and messages that could not be read or stored, and why.
    pub failures: Vec<MailFailure>,
    /// Parts of messages read that were left out of their text, and why
    /// (a forward nested too deep).
    pub parts_not_read: Vec<MailFailure>,
}

impl ImportSummary {
    /// Adds what another part of the same import did.
    pub fn add(&mut self, other: ImportSummary) {
        // Destructured, so a new field cannot be forgotten here.
        let ImportSummary {
            texts_added,
            texts_already_stored,
            messages_read,
            messages_with_results,
            messages_added,
            messages_headers_only,
            texts_restored,
            messages_already_stored,
            messages_known_unread,
            runs_added,
            runs_quoted,
            failures,
            parts_not_read,
        } = other;
        self.texts_added += texts_added;
        self.texts_already_stored += texts_already_stored;
        self.messages_read += messages_read;
        self.messages_with_results += messages_with_results;
        self.messages_added += messages_added;
        self.messages_headers_only += messages_headers_only;
        self.texts_restored += texts_restored;
        self.messages_already_stored += messages_already_stored;
        self.messages_known_unread += messages_known_unread;
        self.runs_added += runs_added;
        self.runs_quoted += runs_quoted;
        self.failures.extend(failures);
        self.parts_not_read.extend(parts_not_read);
    }

    /// The summary as printed at the end of `benchlog ingest`.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{} added, {} already stored, {} failed",
            self.texts_added + self.messages_added,
            self.texts_already_stored + self.messages_already_stored,
            self.failures.len()
        )];
        if self.messages_read > 0 {
            lines.push(format!(
                "mail: {} messages read, {} with results, {} runs added ({} of them quoted again, linked to the earlier run); duplicates skipped: {} messages already stored ({} of them known before decoding); {} messages could not be read",
                self.messages_read,
                self.messages_with_results,
                self.runs_added,
                self.runs_quoted,
                self.messages_already_stored,
                self.messages_known_unread,
                self.failures.len()
            ));
        }
        if self.messages_headers_only > 0 || self.texts_restored > 0 {
            lines.push(format!(
                "{} messages with no results stored with their headers only (the archive keeps their text); {} texts brought back from the archive as the thread context of results",
                self.messages_headers_only, self.texts_restored
            ));
        }
        if !self.parts_not_read.is_empty() {
            lines.push(format!(
                "{} parts of messages read could not be read themselves",
                self.parts_not_read.len()
            ));
        }
        lines
    }

    /// The report file's text: the summary, then every failure with why.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for line in self.lines() {
            let _ = writeln!(out, "{line}");
        }
        if !self.failures.is_empty() {
            let _ = writeln!(out, "\nCould not be read or stored:");
        }
        for failure in &self.failures {
            let _ = writeln!(out, "{}: {}", failure.source_name, failure.why);
        }
        if !self.parts_not_read.is_empty() {
            let _ = writeln!(out, "\nParts of messages not read:");
        }
        for part in &self.parts_not_read {
            let _ = writeln!(out, "{}: {}", part.source_name, part.why);
        }
        out
    }
}

/// What an import found in one file (or a fetched page, or an input
/// given already read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOutcome {
    /// Plain text, stored as one submission.
    Text(ingest::Ingested),
    /// A mail archive or message; its messages are counted in the summary.
    Mail { messages: usize },
    /// Fetched by its address, it has not changed since it was read (the
    /// server answered 304 to the mark recorded last time): not read.
    Unchanged,
}

/// One file of a source, once the transaction holding the last of it is
/// committed: what [`super::Observer::file_done`] is told and
/// [`super::Imported::files`] keeps, in the order the files were read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDone {
    /// The source it came from: its place in the import's sources.
    pub source: usize,
    /// How people know it: a path as given, an address.
    pub shown: String,
    /// What became of it, or why it could not be read or stored (the
    /// error's chain); such a file is also among the summary's failures.
    pub outcome: Result<FileOutcome, String>,
}
