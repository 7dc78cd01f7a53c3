//! The query of a comparison: reading it from a query string or
//! `benchlog export`'s options, the limits that keep it bounded, and
//! checking it against the tools, metrics and attributes benchlog knows.

use parsers::Tool;
use serde::Serialize;

use super::{Confidence, Resolved, XAxis, ATTRIBUTE_KEYS, PSEUDO_FIELD_NAMES};

/// The query string of `/compare`, as the user wrote it (empty fields are
/// absent). Keys repeat for `by` and `where`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CompareQuery {
    pub tool: Option<String>,
    pub test: Option<String>,
    pub item: Option<String>,
    pub metric: Option<String>,
    pub x: Option<String>,
    pub by: Vec<String>,
    #[serde(rename = "where")]
    pub wheres: Vec<(String, String)>,
    /// The name of the series the others are compared with.
    pub baseline: Option<String>,
    /// The confidence level of the differences to the baseline.
    pub conf: Confidence,
    /// Pinned to the data as of this submission (the newest when the link
    /// was made); `None` follows new data.
    pub asof: Option<i64>,
    /// `scale=log`: the chart's value axis is logarithmic.
    pub log_scale: bool,
    /// `y=relative`: the chart draws each series as % of the baseline at
    /// the same x (the numbers of every other form stay absolute).
    pub relative: bool,
}

use crate::limits::{MAX_BY, MAX_QUERY_BYTES, MAX_QUERY_PAIRS, MAX_WHERE};

/// A mistake in the query: the message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QueryError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, QueryError> {
    Err(QueryError(message.into()))
}

impl CompareQuery {
    /// Reads a raw query string (`tool=super-smack&by=scheduler&by=timer`).
    pub fn from_query_string(query: &str) -> Result<Self, QueryError> {
        Self::from_pairs(query_pairs(query)?)
    }

    /// Reads the query's pairs, as a query string or `benchlog export`'s
    /// options give them, within [`MAX_QUERY_PAIRS`], [`MAX_BY`] and
    /// [`MAX_WHERE`].
    pub fn from_pairs(
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, QueryError> {
        let mut query = CompareQuery::default();
        for (count, (key, value)) in pairs.into_iter().enumerate() {
            check_pair_count(count + 1)?;
            let value = value.trim().to_owned();
            if value.is_empty() {
                continue;
            }
            match key.as_str() {
                "tool" => query.tool = Some(value),
                "test" => query.test = Some(value),
                "item" => query.item = Some(value),
                "metric" => query.metric = Some(value),
                "x" => query.x = Some(value),
                "baseline" => query.baseline = Some(value),
                "conf" => {
                    query.conf = Confidence::from_name(&value).ok_or_else(|| {
                        QueryError(format!(
                            "conf={value} is not a confidence level; choose {} (percent, as ministat's -c takes them)",
                            Confidence::names()
                        ))
                    })?
                }
                "asof" => query.asof = Some(parse_asof(&value)?),
                "scale" => {
                    query.log_scale = match value.as_str() {
                        "log" => true,
                        "linear" => false,
                        _ => {
                            return fail(format!(
                                "scale={value} is not a scale; choose scale=log (a logarithmic value axis) or scale=linear"
                            ))
                        }
                    }
                }
                "y" => {
                    query.relative = match value.as_str() {
                        "relative" => true,
                        "absolute" => false,
                        _ => {
                            return fail(format!(
                                "y={value} is not a value axis; choose y=relative (each series as % of the baseline) or y=absolute"
                            ))
                        }
                    }
                }
                "by" => {
                    // A form may send "scheduler, timer" in one box.
                    for key in value.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                        check_attr_key(key)?;
                        if !query.by.iter().any(|k| k == key) {
                            if query.by.len() == MAX_BY {
                                return Err(too_many_by());
                            }
                            query.by.push(key.to_owned());
                        }
                    }
                }
                "where" => {
                    let Some((attr, wanted)) = value.split_once(':') else {
                        return fail(format!(
                            "where={value} needs the form where=<attribute>:<value>, e.g. where=scheduler:ULE"
                        ));
                    };
                    let attr = attr.trim();
                    check_attr_key(attr)?;
                    check_where_count(query.wheres.len() + 1)?;
                    query.wheres.push((attr.to_owned(), wanted.trim().to_owned()));
                }
                other => {
                    return fail(format!(
                        "unknown query parameter {other:?}; /compare takes tool, test, item, metric, x, by, where, baseline, conf, asof, scale and y"
                    ))
                }
            }
        }
        if query.relative && query.baseline.is_none() {
            return fail(
                "y=relative draws each series as % of the baseline, so it needs one: add baseline=<series>, or leave y=relative out",
            );
        }
        Ok(query)
    }

    /// The canonical query string, for links that must keep showing the
    /// same chart.
    pub fn to_query_string(&self) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (key, value) in [
            ("tool", &self.tool),
            ("test", &self.test),
            ("item", &self.item),
            ("metric", &self.metric),
            ("x", &self.x),
        ] {
            if let Some(value) = value {
                pairs.push((key, value.clone()));
            }
        }
        for key in &self.by {
            pairs.push(("by", key.clone()));
        }
        for (attr, value) in &self.wheres {
            pairs.push(("where", format!("{attr}:{value}")));
        }
        if let Some(baseline) = &self.baseline {
            pairs.push(("baseline", baseline.clone()));
        }
        // The verdicts depend on the level: with a baseline a shared link
        // names it even when it is the default. Without one only the form
        // shows it.
        if self.baseline.is_some() || self.conf != Confidence::default() {
            pairs.push(("conf", self.conf.name().to_owned()));
        }
        if let Some(asof) = self.asof {
            pairs.push(("asof", asof.to_string()));
        }
        if self.log_scale {
            pairs.push(("scale", "log".to_owned()));
        }
        if self.relative {
            pairs.push(("y", "relative".to_owned()));
        }
        serde_urlencoded::to_string(&pairs).unwrap_or_default()
    }

    /// The x axis asked for; `None` leaves the choice to the data
    /// (threads where the runs have thread counts). Besides `threads` and
    /// `none`, x may be one of [`x_attribute_keys`] (`x=os_version`),
    /// never one the series are split `by` as well.
    pub fn x_axis(&self, tool: Option<Tool>) -> Result<Option<XAxis>, QueryError> {
        let x = match self.x.as_deref() {
            None => return Ok(None),
            Some("threads") => XAxis::Threads,
            Some("none") => XAxis::None,
            Some(other) => match x_attribute_keys(tool).into_iter().find(|k| *k == other) {
                Some(key) => XAxis::Attribute(key),
                None => {
                    let whose = tool.map_or(String::new(), |tool| format!(" of {tool} runs"));
                    return fail(format!(
                        "x={other} is not supported; the x axis can be threads, none for bars per item, or an attribute{whose}: {}",
                        x_attribute_keys(tool).join(", ")
                    ));
                }
            },
        };
        if let Some(key) = x.attribute() {
            if self.by.iter().any(|by| by == key) {
                return fail(format!(
                    "x={key} and by={key}: each series is drawn across the values of {key}, so it cannot be split by them too; leave {key} out of by, or choose another x"
                ));
            }
        }
        Ok(Some(x))
    }

    /// Checks the query against what benchlog knows and returns what is
    /// needed to read the data. `Ok(None)` when tool or metric is still to
    /// be chosen (the form page then just shows the form).
    pub fn resolve(&self) -> Result<Option<Resolved>, QueryError> {
        let tool = match &self.tool {
            None => None,
            Some(name) => match Tool::from_name(name) {
                Some(tool) => Some(tool),
                None => {
                    let known: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
                    return fail(format!(
                        "unknown tool {name:?}; choose one of {}",
                        known.join(", ")
                    ));
                }
            },
        };
        let metric = match &self.metric {
            None => None,
            Some(name) => match parsers::metric_info(name) {
                Some(info) => Some(info),
                None => {
                    let accepted = match tool {
                        Some(tool) => {
                            format!("{tool} reports {}", tool.metrics().join(", "))
                        }
                        None => "e.g. q_per_s, tps, wallclock_s, kb_per_s, ms".to_owned(),
                    };
                    return fail(format!("unknown metric {name:?}; {accepted}"));
                }
            },
        };
        let x = self.x_axis(tool)?;
        match (tool, metric) {
            (Some(tool), Some(metric)) => Ok(Some(Resolved { tool, metric, x })),
            _ => Ok(None),
        }
    }

    /// Like [`resolve`](Self::resolve), but tool and metric are required
    /// (for the CSV, JSON and image forms).
    pub fn resolve_required(&self) -> Result<Resolved, QueryError> {
        match self.resolve()? {
            Some(resolved) => Ok(resolved),
            None if self.tool.is_none() => fail("tool= is required, e.g. tool=super-smack"),
            None => fail("metric= is required, e.g. metric=q_per_s"),
        }
    }
}

/// The pairs of a raw query string, refused when it is longer than
/// [`MAX_QUERY_BYTES`] or holds more than [`MAX_QUERY_PAIRS`]: every page
/// reading a query string reads it here.
pub fn query_pairs(query: &str) -> Result<Vec<(String, String)>, QueryError> {
    if query.len() > MAX_QUERY_BYTES {
        return fail(format!(
            "the query string is {} bytes long; at most {MAX_QUERY_BYTES} are read: ask for fewer things at once",
            query.len()
        ));
    }
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query)
        .map_err(|e| QueryError(format!("the query string could not be read: {e}")))?;
    if pairs.len() > MAX_QUERY_PAIRS {
        // Name the parameter repeated too often, if one is.
        let count = |name: &str| pairs.iter().filter(|(key, _)| key == name).count();
        check_where_count(count("where"))?;
        if count("by") > MAX_BY {
            return Err(too_many_by());
        }
        check_pair_count(pairs.len())?;
    }
    check_given_once(&pairs)?;
    Ok(pairs)
}

/// The parameters a query may give more than once (`by=a&by=b`); of
/// every other one, the pages read one value.
const REPEATABLE: [&str; 3] = ["by", "where", "uploaded"];

/// Refuses a parameter given twice with two values (`asof=2&asof=1`):
/// read by whichever came last, while another reader of the link (a
/// proxy, a script) may take the first, one link could show two things.
/// A repeat of the same value, or of an empty one, is harmless.
fn check_given_once(pairs: &[(String, String)]) -> Result<(), QueryError> {
    // At most MAX_QUERY_PAIRS pairs: looking back over them is small.
    for (index, (key, value)) in pairs.iter().enumerate() {
        let value = value.trim();
        if value.is_empty() || REPEATABLE.contains(&key.as_str()) {
            continue;
        }
        let earlier = pairs[..index]
            .iter()
            .map(|(k, v)| (k, v.trim()))
            .find(|(k, v)| *k == key && !v.is_empty() && *v != value);
        if let Some((_, first)) = earlier {
            return fail(format!(
                "{key} is given twice ({key}={first} and {key}={value}); give it once"
            ));
        }
    }
    Ok(())
}

/// The submission number of `asof=`: digits only, at least 1.
fn parse_asof(value: &str) -> Result<i64, QueryError> {
    match value.parse::<i64>() {
        Ok(id) if id >= 1 && value.bytes().all(|b| b.is_ascii_digit()) => Ok(id),
        _ => fail(format!(
            "asof={value} is not a submission number; asof pins a comparison to the data as of one submission, e.g. asof=17 (leave it out to follow new data)"
        )),
    }
}

/// Refuses a pin to a submission not given out yet: such a link would
/// follow new data until that number arrives, then stop.
pub fn check_asof(asof: i64, newest: i64) -> Result<(), QueryError> {
    if asof > newest {
        return fail(format!(
            "asof={asof} names no stored submission: the newest is {newest}; a pinned link names a submission stored when the link was made"
        ));
    }
    Ok(())
}

fn too_many_by() -> QueryError {
    QueryError(format!(
        "too many by= attributes: a comparison groups by at most {MAX_BY}; leave some out, or filter with where= instead"
    ))
}

fn check_pair_count(count: usize) -> Result<(), QueryError> {
    if count > MAX_QUERY_PAIRS {
        return fail(format!(
            "the query has too many parameters; at most {MAX_QUERY_PAIRS} are read: ask for fewer things at once"
        ));
    }
    Ok(())
}

/// Refuses a `count`th `where=` filter beyond [`MAX_WHERE`].
pub fn check_where_count(count: usize) -> Result<(), QueryError> {
    if count > MAX_WHERE {
        return fail(format!(
            "too many where= filters: at most {MAX_WHERE} are taken (each value of an attribute is one); drop some"
        ));
    }
    Ok(())
}

pub fn check_attr_key(key: &str) -> Result<(), QueryError> {
    let ok = !key.is_empty()
        && key.len() <= 64
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        fail(format!(
            "{key:?} is not an attribute name; names are lower snake case, like scheduler or thread_lib"
        ))
    }
}

/// `x=date`: when a run ran, by the day: its own `date` (sql-bench's
/// header), else the day its submission was posted (its first mail's
/// Date header); a run with neither has no place along it.
pub const DATE: &str = "date";

/// The attributes the x axis may run across (`x=os_version`): Contract
/// 2's keys ([`ATTRIBUTE_KEYS`]), [`DATE`], then those of the tool's own output
/// (`Tool::own_attribute_keys`: sysbench's `file_block_size`, sql-bench's
/// `date`), or of every tool where none is chosen yet. Exactly these:
/// an attribute a user added has no known order of its values.
pub fn x_attribute_keys(tool: Option<Tool>) -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = ATTRIBUTE_KEYS.to_vec();
    keys.push(DATE);
    let tools = match tool {
        Some(tool) => vec![tool],
        None => Tool::ALL.to_vec(),
    };
    for &key in tools.into_iter().flat_map(Tool::own_attribute_keys) {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

/// The keys a query groups or filters by, with the parameter naming each.
pub(super) fn query_keys(query: &CompareQuery) -> impl Iterator<Item = (&'static str, &str)> {
    query
        .by
        .iter()
        .map(|k| ("by", k.as_str()))
        .chain(query.wheres.iter().map(|(k, _)| ("where", k.as_str())))
}

/// Whether `key` names a field of the result or its run rather than a run
/// attribute.
pub(super) fn is_field(key: &str) -> bool {
    key == "item" || PSEUDO_FIELD_NAMES.contains(&key)
}

pub(super) fn check_keys(
    query: &CompareQuery,
    tool: Tool,
    stored: &[String],
) -> Result<(), QueryError> {
    let known = |key: &str| {
        is_field(key) || ATTRIBUTE_KEYS.contains(&key) || stored.iter().any(|k| k == key)
    };
    for (parameter, key) in query_keys(query) {
        if !known(key) {
            let mut accepted: Vec<&str> = stored.iter().map(String::as_str).collect();
            accepted.extend(PSEUDO_FIELD_NAMES);
            return fail(format!(
                "unknown attribute {key:?} in {parameter}=; {tool} runs can be grouped and filtered by {}",
                accepted.join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> Result<CompareQuery, QueryError> {
        CompareQuery::from_query_string(text)
    }

    #[test]
    fn reads_repeated_keys_and_round_trips() {
        let q = query("tool=super-smack&item=select_index&metric=q_per_s&x=threads&by=scheduler&by=thread_lib&where=timer:TSC&baseline=ULE+%2F+libthr&asof=12").unwrap();
        assert_eq!(q.asof, Some(12));
        assert_eq!(q.by, ["scheduler", "thread_lib"]);
        assert_eq!(q.wheres, [("timer".to_owned(), "TSC".to_owned())]);
        assert_eq!(q.baseline.as_deref(), Some("ULE / libthr"));
        assert_eq!(q.conf, Confidence::P95, "the default level");
        assert_eq!(query(&q.to_query_string()).unwrap(), q);
        assert!(q.to_query_string().ends_with("&conf=95&asof=12"));
        let q = query("tool=sysbench&metric=tps&baseline=a&conf=99.5").unwrap();
        assert_eq!(q.conf, Confidence::P99_5);
        assert_eq!(query(&q.to_query_string()).unwrap(), q);
        // No baseline, no verdicts: the default level is left out.
        let q = query("tool=sysbench&metric=tps&conf=95").unwrap();
        assert_eq!(q.to_query_string(), "tool=sysbench&metric=tps");
        let q = query("tool=sysbench&metric=tps&conf=99").unwrap();
        assert_eq!(q.to_query_string(), "tool=sysbench&metric=tps&conf=99");
    }

    #[test]
    fn a_log_scale_is_part_of_the_link() {
        let q = query("tool=sql-bench&metric=wallclock_s&scale=log&asof=3").unwrap();
        assert!(q.log_scale);
        assert!(q.to_query_string().ends_with("&asof=3&scale=log"));
        assert_eq!(query(&q.to_query_string()).unwrap(), q);
        // Linear is the default, left out of the link.
        let q = query("tool=sql-bench&metric=wallclock_s&scale=linear").unwrap();
        assert_eq!(q.to_query_string(), "tool=sql-bench&metric=wallclock_s");
    }

    #[test]
    fn a_relative_value_axis_is_part_of_the_link() {
        let q = query("tool=sysbench&metric=tps&baseline=Original&y=relative&scale=log").unwrap();
        assert!(q.relative);
        assert!(q.to_query_string().ends_with("&scale=log&y=relative"));
        assert_eq!(query(&q.to_query_string()).unwrap(), q);
        // Absolute is the default, left out of the link.
        let q = query("tool=sysbench&metric=tps&baseline=Original&y=absolute").unwrap();
        assert!(!q.relative);
        assert!(!q.to_query_string().contains("y="));
    }

    #[test]
    fn explains_mistakes() {
        let cases = [
            ("tool=nope&metric=q_per_s", "unknown tool"),
            (
                "tool=super-smack&metric=speed",
                "super-smack reports q_per_s",
            ),
            ("tool=super-smack&metric=q_per_s&x=time", "x axis"),
            ("where=scheduler", "where=<attribute>:<value>"),
            ("by=Bad-Key", "not an attribute name"),
            ("colour=red", "unknown query parameter"),
            ("conf=97", "80, 90, 95, 98, 99 or 99.5"),
            (
                "scale=logarithmic",
                "scale=logarithmic is not a scale; choose scale=log",
            ),
            (
                "tool=sysbench&metric=tps&baseline=a&y=percent",
                "y=percent is not a value axis; choose y=relative",
            ),
            (
                "tool=sysbench&metric=tps&y=relative",
                "y=relative draws each series as % of the baseline, so it needs one: add baseline=",
            ),
            (
                "tool=super-smack&metric=q_per_s&asof=x",
                "not a submission number",
            ),
            (
                "tool=super-smack&metric=q_per_s&asof=0",
                "not a submission number",
            ),
            (
                "tool=super-smack&metric=q_per_s&asof=-3",
                "not a submission number",
            ),
            (
                "tool=super-smack&metric=q_per_s&asof=3x",
                "not a submission number",
            ),
            (
                "tool=super-smack&metric=q_per_s&asof=2&asof=1",
                "asof is given twice (asof=2 and asof=1)",
            ),
            (
                "tool=super-smack&metric=q_per_s&metric=max_time",
                "metric is given twice",
            ),
            ("tool=sysbench&tool=super-smack", "tool is given twice"),
            (
                "tool=super-smack&metric=q_per_s&conf=90&conf=99",
                "conf is given twice",
            ),
        ];
        for (index, (text, want)) in cases.into_iter().enumerate() {
            let error = query(text).and_then(|q| q.resolve_required().map(|_| q));
            let message = error.expect_err(text).0;
            assert!(message.contains(want), "case {index}: {message}");
        }
    }

    #[test]
    fn unknown_attributes_name_the_known_ones() {
        let q = query("tool=sql-bench&metric=wallclock_s&by=kernel_flavour").unwrap();
        let message = check_keys(&q, Tool::SqlBench, &["os_version".to_owned()])
            .unwrap_err()
            .0;
        assert!(message.contains("os_version, label"), "{message}");
        let q =
            query("tool=sql-bench&metric=wallclock_s&by=os_version&by=label&where=scheduler:ULE")
                .unwrap();
        assert!(check_keys(&q, Tool::SqlBench, &["os_version".to_owned()]).is_ok());
    }

    #[test]
    fn x_runs_across_known_attributes_only() {
        let resolved = |text: &str| query(text).and_then(|q| q.resolve_required());
        let x = resolved("tool=super-smack&metric=q_per_s&x=os_version&by=thread_lib")
            .unwrap()
            .x;
        assert_eq!(x, Some(XAxis::Attribute("os_version")));
        // A tool's own key: sysbench's, not super-smack's.
        let x = resolved("tool=sysbench&metric=reads_per_s&x=file_block_size")
            .unwrap()
            .x;
        assert_eq!(x, Some(XAxis::Attribute("file_block_size")));
        let message = resolved("tool=super-smack&metric=q_per_s&x=file_block_size")
            .unwrap_err()
            .0;
        assert!(
            message.contains("x=file_block_size is not supported"),
            "{message}"
        );

        let message = resolved("tool=super-smack&metric=q_per_s&x=bogus")
            .unwrap_err()
            .0;
        assert!(
            message.contains("x=bogus is not supported")
                && message.contains("threads, none for bars per item, or an attribute of super-smack runs: os, os_version, kernel_config,")
                && message.ends_with(", tool_version, variant, date"),
            "{message}"
        );
        // Without a tool, every tool's own keys are offered too.
        let message = query("x=bogus").unwrap().resolve().unwrap_err().0;
        assert!(
            message.contains("file_block_size") && message.contains("sectorsize"),
            "{message}"
        );

        let message =
            resolved("tool=super-smack&metric=q_per_s&x=os_version&by=thread_lib&by=os_version")
                .unwrap_err()
                .0;
        assert!(
            message.contains("x=os_version and by=os_version: each series is drawn across the values of os_version"),
            "{message}"
        );
        let q = query("tool=super-smack&metric=q_per_s&x=os_version").unwrap();
        assert_eq!(query(&q.to_query_string()).unwrap(), q);
    }

    #[test]
    fn empty_fields_are_absent() {
        let q = query("tool=super-smack&test=&metric=&by=").unwrap();
        assert_eq!(q.test, None);
        assert!(q.by.is_empty());
        assert_eq!(q.resolve(), Ok(None));
        assert!(q.resolve_required().unwrap_err().0.contains("metric="));
    }
}
