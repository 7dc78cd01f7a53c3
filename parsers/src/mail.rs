//! Message headers.
use crate::{text::Line, Message};
pub fn messages(_input: &str, _lines: &[Line]) -> Vec<Message> { Vec::new() }
