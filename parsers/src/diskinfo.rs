//! diskinfo output. (Being written.)

use crate::text::Line;
use crate::{Run, Unparsed};

/// Finds every diskinfo report in the lines; reports that start but break off
/// become [`Unparsed`] entries.
pub fn find_runs(_lines: &[Line<'_>], _runs: &mut Vec<Run>, _unparsed: &mut Vec<Unparsed>) {}
