//! super-smack.
use crate::{text::Line, Run, Unparsed};
pub fn find_runs(_lines: &[Line], _runs: &mut Vec<Run>, _unparsed: &mut Vec<Unparsed>) {}
