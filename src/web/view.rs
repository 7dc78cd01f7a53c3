//! What the pages show alike: the addresses of a submission's lines, its
//! runs' edit forms and its thread; a run's values grouped by item and
//! its attributes linked; a quoted run in words; the host a request was
//! asked of. Pages import these from here, never from one another.

use std::collections::{BTreeMap, HashMap};

use crate::limits::PART_LINES;
use crate::store::{StoredQuote, StoredRun};

/// `http://host[:port]` of the request, from its Host header, for links
/// that leave the page (the text view's, pasted into a mail); `None`
/// when the header is missing or is no host name or address.
pub fn request_origin(headers: &axum::http::HeaderMap) -> Option<String> {
    let host = headers.get(axum::http::header::HOST)?.to_str().ok()?;
    let plain = !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
    plain.then(|| format!("http://{host}"))
}

/// The part (1-based) of a submission's page that shows line `line`: a
/// long text is shown [`PART_LINES`] lines at a time.
pub fn part_of_line(line: usize) -> usize {
    line.saturating_sub(1) / PART_LINES + 1
}

/// The address of line `line` of submission `id`'s text, on the part of
/// its page that shows it.
pub fn line_url(id: i64, line: usize) -> String {
    match part_of_line(line) {
        1 => format!("/submissions/{id}#L{line}"),
        part => format!("/submissions/{id}?part={part}#L{line}"),
    }
}

/// The address that opens run `run`'s edit form on submission `id`'s
/// page, on the part (and the page of its runs, `runs`) that lists it:
/// `edit=N` opens it, and the anchor is the form itself, or, for a
/// viewer without the edit token, the form that asks for it
/// (`locked`). Unlocking with `run=N` (and the part) comes back here.
pub fn edit_url(id: i64, part: usize, runs: Option<usize>, run: usize, locked: bool) -> String {
    let mut url = format!("/submissions/{id}?");
    if part > 1 {
        url.push_str(&format!("part={part}&"));
    }
    if let Some(from) = runs {
        url.push_str(&format!("runs={from}&"));
    }
    let anchor = if locked {
        "review".to_owned()
    } else {
        format!("edit-run-{run}")
    };
    url.push_str(&format!("edit={run}#{anchor}"));
    url
}

/// `/threads/{id}` for a thread id, the id percent-encoded as a path segment.
pub fn thread_url(thread_id: &str) -> String {
    let mut url = String::from("/threads/");
    for byte in thread_id.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~@$!*+,;=:".contains(&byte) {
            url.push(byte as char);
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

/// A run's values of one item, in the order printed.
pub struct ItemValues {
    pub item: String,
    pub values: Vec<ValueView>,
}

pub struct ValueView {
    pub metric: String,
    pub value: String,
    pub unit: String,
    pub line: usize,
    pub estimated: bool,
}

/// A run's values grouped by item, items in the order first printed.
pub fn group_by_item(run: &StoredRun) -> Vec<ItemValues> {
    let mut groups: Vec<ItemValues> = Vec::new();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    for r in &run.results {
        let value = ValueView {
            metric: r.metric.clone(),
            value: r.value.to_string(),
            unit: r.unit.clone(),
            line: r.line,
            estimated: r.estimated,
        };
        let index = *group_of.entry(&r.item).or_insert_with(|| {
            groups.push(ItemValues {
                item: r.item.clone(),
                values: Vec::new(),
            });
            groups.len() - 1
        });
        groups[index].values.push(value);
    }
    groups
}

/// Each attribute with the link to the runs that share it
/// (`/runs?where=key:value`): key, value, link.
pub fn attribute_links(attrs: &BTreeMap<String, String>) -> Vec<(String, String, String)> {
    attrs
        .iter()
        .map(|(k, v)| {
            let filter =
                serde_urlencoded::to_string([("where", format!("{k}:{v}"))]).unwrap_or_default();
            (k.clone(), v.clone(), format!("/runs?{filter}"))
        })
        .collect()
}

/// A run in words: `sysbench oltp, 8 threads`.
pub fn describe_run(tool: &str, test: Option<&str>, threads: Option<u32>) -> String {
    let mut what = tool.to_owned();
    if let Some(test) = test {
        what.push(' ');
        what.push_str(test);
    }
    if let Some(threads) = threads {
        what.push_str(&format!(", {threads} threads"));
    }
    what
}

/// "lines 3–8: quoted from run #12 (Steven Hartland)", linked to the run.
pub struct QuoteView {
    pub first_line: usize,
    pub last_line: usize,
    pub run_id: i64,
    pub run_url: String,
    pub what: String,
    pub author: String,
}

pub fn quote_view(quote: &StoredQuote) -> QuoteView {
    QuoteView {
        first_line: quote.lines[0],
        last_line: quote.lines[1],
        run_id: quote.run_id,
        run_url: format!(
            "/submissions/{}#run-{}",
            quote.run_submission_id,
            quote.run_idx + 1
        ),
        what: describe_run(&quote.tool, quote.test.as_deref(), quote.threads),
        author: quote.author.clone().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_first_part_is_linked_on_its_part() {
        assert_eq!(line_url(7, 1), "/submissions/7#L1");
        assert_eq!(
            line_url(7, PART_LINES),
            format!("/submissions/7#L{PART_LINES}")
        );
        assert_eq!(
            line_url(7, PART_LINES + 1),
            format!("/submissions/7?part=2#L{}", PART_LINES + 1)
        );
    }

    #[test]
    fn an_edit_link_names_its_part_runs_and_form() {
        assert_eq!(
            edit_url(3, 1, None, 2, false),
            "/submissions/3?edit=2#edit-run-2"
        );
        assert_eq!(
            edit_url(3, 2, Some(40), 41, true),
            "/submissions/3?part=2&runs=40&edit=41#review"
        );
    }

    #[test]
    fn a_thread_id_is_one_path_segment() {
        assert_eq!(
            thread_url("<00c7$2b@multiplay.co.uk>"),
            "/threads/%3C00c7$2b@multiplay.co.uk%3E"
        );
        assert_eq!(thread_url("a/b c"), "/threads/a%2Fb%20c");
    }
}
