//! Labels and attributes.
use crate::{text::Line, Message, Run};
pub fn apply(_lines: &[Line], _messages: &[Message], _runs: &mut [Run]) {}
