//! Lines of mail text: quote depth, attribution, re-joining of wrapped lines.
pub struct Line;
pub fn logical_lines(_input: &str) -> Vec<Line> { Vec::new() }
