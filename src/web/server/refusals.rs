//! The log of connections refused or closed to make room: one line per
//! [`REFUSAL_LOG_INTERVAL`] at most, so a client hammering the caps
//! cannot flood the log.

use std::time::Instant;

use super::slots::{Holder, Refusal, Slots};
use crate::limits::REFUSAL_LOG_INTERVAL;

/// The refusals and closings since the last line logged about them.
#[derive(Default)]
pub(super) struct RefusalLog {
    last_logged: Option<Instant>,
    refused: u64,
    closed: u64,
    /// The client named in the line: the last one refused or closed.
    client: Option<Holder>,
}

impl RefusalLog {
    pub(super) fn refused(&mut self, refusal: Refusal, slots: &Slots) {
        self.refused += 1;
        self.client = Some(Holder::Client(refusal.client));
        self.log_if_due(slots);
    }

    pub(super) fn closed(&mut self, holder: Holder, slots: &Slots) {
        self.closed += 1;
        self.client = Some(holder);
        self.log_if_due(slots);
    }

    fn log_if_due(&mut self, slots: &Slots) {
        if self
            .last_logged
            .is_none_or(|at| at.elapsed() >= REFUSAL_LOG_INTERVAL)
        {
            self.flush(slots);
        }
    }

    /// Logs what happened since the last line, if anything did.
    pub(super) fn flush(&mut self, slots: &Slots) {
        if self.refused == 0 && self.closed == 0 {
            return;
        }
        let (total, heaviest) = slots.census();
        let since = self.last_logged.map_or(String::new(), |at| {
            format!(" in the last {} s", at.elapsed().as_secs())
        });
        let client = self
            .client
            .map_or(String::new(), |c| format!(" (last {c})"));
        let heaviest = heaviest.map_or(String::new(), |(c, n)| {
            format!("; {c} holds the most ({n})")
        });
        tracing::warn!(
            "too many connections{since}: refused {}, closed {} to make room{client}; {total} of {} open{heaviest}",
            self.refused,
            self.closed,
            slots.max_total,
        );
        self.refused = 0;
        self.closed = 0;
        self.last_logged = Some(Instant::now());
    }
}
