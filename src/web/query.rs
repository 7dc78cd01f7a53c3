//! Reading the query strings of the browsing pages (`/submissions`,
//! `/runs`, a submission's `part=`): the pieces they share, with the
//! common limits of every query (see [`crate::compare::query_pairs`]).

use super::AppError;

/// The query string's pairs, or a message saying it could not be read.
pub fn query_pairs(raw: Option<&str>) -> Result<Vec<(String, String)>, AppError> {
    Ok(crate::compare::query_pairs(raw.unwrap_or(""))?)
}

/// `page=N` or `part=N` (1-based, `name` saying which), checked.
pub fn page_number(name: &str, value: &str) -> Result<usize, AppError> {
    match value.trim().parse::<usize>() {
        Ok(page) if (1..=100_000).contains(&page) => Ok(page),
        _ => Err(AppError::bad_request(format!(
            "{name}={value} is not a {name} number; {name}s count from 1."
        ))),
    }
}

/// A tool name from a query, checked against the tools benchlog reads.
pub fn tool_name(value: &str) -> Result<String, AppError> {
    match parsers::Tool::from_name(value.trim()) {
        Some(tool) => Ok(tool.name().to_owned()),
        None => {
            let known: Vec<&str> = parsers::Tool::ALL.iter().map(|t| t.name()).collect();
            Err(AppError::bad_request(format!(
                "unknown tool {value:?}; choose one of {}.",
                known.join(", ")
            )))
        }
    }
}
