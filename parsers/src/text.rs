//! Mail text as lines: the quote depth of each line (`> `, `>>`, `> >`),
//! attribution lines that say who wrote each depth, and logical lines that
//! re-join what a mailer wrapped while remembering every source line.
//! What real posts add around a tool's output is undone here once, for
//! every tool: quoted-printable and web-page markup in [`Source`], per-line
//! stamps and prompts in [`lines`].

/// One physical line of the input with its quote markers taken off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the input.
    pub number: usize,
    /// How many quote markers (`>`) preceded the text.
    pub depth: usize,
    /// The text after the quote markers (and the one space after them).
    pub text: &'a str,
}

impl Line<'_> {
    /// Blank once the quote markers are gone (`>` alone is blank too).
    pub fn is_blank(&self) -> bool {
        self.text.bytes().all(|b| b.is_ascii_whitespace())
    }
}

mod marks;
mod markup;
mod prefix;

pub use marks::MarkedBytes;
pub use markup::Source;

/// Splits the input into lines and reads each line's quote depth; a
/// timestamp or a shell prompt before a line is taken off too (see
/// [`prefix::strip_line_prefix`]). `\n` and `\r\n` both end a line.
/// The plain reading the tools' unit tests use; [`Source`] reads the same
/// way and also undoes markup and quoted-printable.
#[cfg(test)]
pub fn lines(input: &str) -> Vec<Line<'_>> {
    raw_lines(input)
        .enumerate()
        .map(|(index, raw)| line_of(index, raw, true))
        .collect()
}

#[cfg(test)]
/// The input's lines: `\n` and `\r\n` both end one, and a final newline
/// ends the last line rather than starting another.
fn raw_lines(input: &str) -> impl Iterator<Item = &str> {
    let body = input.strip_suffix('\n').unwrap_or(input);
    body.split('\n')
        .filter(move |_| !input.is_empty())
        .map(|raw| raw.strip_suffix('\r').unwrap_or(raw))
}

/// The source line at 0-based `index`, read: quote depth, then a stamp or
/// a prompt taken off (a prompt only if the line `may_hold_prompt`: it
/// holds one of [`prefix::PROMPT_BYTES`]). Inlined into the split: it runs
/// for every line, and most lines are done after its first-byte tests.
#[inline]
fn line_of(index: usize, raw: &str, may_hold_prompt: bool) -> Line<'_> {
    let (depth, text) = split_quote(raw);
    Line {
        number: index + 1,
        depth,
        text: prefix::strip_line_prefix_marked(text, may_hold_prompt),
    }
}

/// `str::trim_start`, with the common case first: a line that starts
/// with a visible ASCII byte needs no character decoding. The cheap tests
/// that every line goes through trim with this.
pub fn trim_start(text: &str) -> &str {
    match text.as_bytes().first() {
        Some(b) if b.is_ascii_graphic() => text,
        _ => text.trim_start(),
    }
}

/// `str::trim_end`, with the common case first: a line that ends with a
/// visible ASCII byte needs no character decoding.
pub fn trim_end(text: &str) -> &str {
    match text.as_bytes().last() {
        Some(b) if b.is_ascii_graphic() => text,
        _ => text.trim_end(),
    }
}

/// A typeset book's running head or foot, which a conversion to text
/// leaves inside a report broken across pages: a page number and the
/// chapter or section title on either side of one `|` (`58 | Chapter 2:
/// Benchmarking MySQL`, `Benchmarking Examples | 57`).
///
/// Most lines hold no `|` at all and are ruled out by one `memchr`.
pub fn is_page_furniture(line: &str) -> bool {
    if memchr::memchr(b'|', line.as_bytes()).is_none() {
        return false;
    }
    let line = line.trim().trim_matches('*').trim();
    let Some((left, right)) = line.split_once(" | ") else {
        return false;
    };
    let page = |s: &str| (1..=4).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    let title = |s: &str| s.starts_with(|c: char| c.is_alphabetic()) && !s.contains('|');
    (page(left) && title(right)) || (title(left) && page(right))
}

/// A line where the poster cut something out: `<snip>`, `[snip]`,
/// `[...]`, `...`, `(snipped)`. What follows it belongs to the same table
/// or report.
pub fn is_elision(t: &str) -> bool {
    let t = t.trim();
    let inner = t
        .strip_prefix(['<', '[', '('])
        .and_then(|rest| rest.strip_suffix(['>', ']', ')']))
        .unwrap_or(t)
        .trim();
    inner.len() <= 12
        && matches!(
            inner.to_ascii_lowercase().as_str(),
            "snip" | "snipped" | "..." | "\u{2026}" | "snip..." | "...snip..." | "--snip--"
        )
}

/// Counts the quote markers at the start of a line: `>`, `>>`, `> >`, `>>>`,
/// Supercite's initials (`ZC> `, `> JD> `), with up to three spaces before
/// the first one (up to seven before a markdown `> ` in a list item).
/// Returns the depth and the text after the markers, less
/// the single space that usually follows them.
/// The cheap test is inlined into the callers (every line of the input
/// goes through it); the markers are read only where it says they may be.
#[inline]
pub fn split_quote(raw: &str) -> (usize, &str) {
    let bytes = raw.as_bytes();
    // Cheap first: a quote starts with a space, a `>` or Supercite's
    // capitals with a `>` after one to three of them, and most lines
    // start with none of these.
    let may_quote = match bytes.first() {
        Some(b' ' | b'>') => true,
        Some(b) if b.is_ascii_uppercase() => {
            let marker_at = |i: usize| bytes.get(i) == Some(&b'>');
            marker_at(1) || marker_at(2) || marker_at(3)
        }
        _ => false,
    };
    if !may_quote {
        return (0, raw);
    }
    read_quote_markers(raw)
}

/// The most spaces before the `>` of a markdown quote inside a list item
/// (the item's own indent, up to four, and the three a quote may have).
const MAX_LIST_QUOTE_INDENT: usize = 7;

/// [`split_quote`] for a line that may start with quote markers.
fn read_quote_markers(raw: &str) -> (usize, &str) {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() && i < MAX_LIST_QUOTE_INDENT && bytes[i] == b' ' {
        i += 1;
    }
    // Up to three spaces may stand before a quote; more only before a
    // markdown quote nested in a list item (`- [link](…)` then
    // `    > quoted text`): a `>` followed by a space or ending the line.
    if i > 3 && !(bytes.get(i) == Some(&b'>') && matches!(bytes.get(i + 1), None | Some(b' '))) {
        return (0, raw);
    }
    let mut depth = 0;
    let mut end = i;
    while i < bytes.len() {
        if bytes[i] == b'>' {
            depth += 1;
            i += 1;
            end = i;
        } else if let Some(width) = supercite_marker(&bytes[i..]) {
            depth += 1;
            i += width;
            end = i;
        } else if depth > 0
            && matches!(bytes[i], b' ' | b'\t')
            && (bytes.get(i + 1) == Some(&b'>') || supercite_marker(&bytes[i + 1..]).is_some())
        {
            // `> >`, `> JD>`: a space between markers belongs to the
            // markers only when another marker follows it.
            i += 1;
        } else {
            break;
        }
    }
    if depth == 0 {
        return (0, raw);
    }
    let rest = &raw[end..];
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    // `>>>>> "ZC" == Zlatko Calusic <…> writes:` is Gnus's attribution,
    // written by the replier: its markers are decoration, not quoting.
    if depth == 5 && rest.starts_with('"') && rest.contains("\" == ") {
        return (0, raw.trim_start());
    }
    (depth, rest)
}

/// Supercite's quote marker: the quoted writer's initials, one to three
/// capitals, then `>` and a space (or the end of the line, or another
/// marker). Returns its width, `>` included. `SQL> ` is Oracle's prompt,
/// not a person.
fn supercite_marker(bytes: &[u8]) -> Option<usize> {
    let letters = bytes
        .iter()
        .take(4)
        .take_while(|b| b.is_ascii_uppercase())
        .count();
    if !(1..=3).contains(&letters) || bytes.get(letters) != Some(&b'>') {
        return None;
    }
    if &bytes[..letters] == b"SQL" {
        return None;
    }
    match bytes.get(letters + 1) {
        None | Some(b' ' | b'\t' | b'>') => Some(letters + 1),
        Some(_) => None,
    }
}

/// Several source lines read as one: a report wrapped by a mailer, a
/// section label split over two lines. Offsets in `text` map back to the
/// source line they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogicalLine {
    pub text: String,
    pub depth: usize,
    /// (byte offset in `text`, 1-based source line) for each joined line.
    starts: Vec<(usize, usize)>,
}

impl LogicalLine {
    /// Joins lines with `separator` between them (`" "` re-joins a wrapped
    /// line, `"\n"` keeps the line structure for a parser that wants it).
    pub fn join(lines: &[Line<'_>], separator: &str) -> LogicalLine {
        LogicalLine::join_with(lines, separator, |_, line, text| text.push_str(line))
    }

    /// Joins lines as [`LogicalLine::join`] does, each line written by
    /// `write` (its index among `lines`, its text trimmed at the end, the
    /// text so far): a reader that breaks a line in pieces keeps every
    /// piece on the line's source number, and the line counts as one for
    /// [`LogicalLine::position_at`].
    pub fn join_with(
        lines: &[Line<'_>],
        separator: &str,
        mut write: impl FnMut(usize, &str, &mut String),
    ) -> LogicalLine {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                text.push_str(separator);
            }
            starts.push((text.len(), line.number));
            write(i, line.text.trim_end(), &mut text);
        }
        LogicalLine {
            text,
            depth: lines.first().map_or(0, |line| line.depth),
            starts,
        }
    }

    /// The source line holding byte `offset` of the joined text.
    pub fn line_at(&self, offset: usize) -> usize {
        let i = self.starts.partition_point(|&(start, _)| start <= offset);
        self.starts
            .get(i.saturating_sub(1))
            .map_or(0, |&(_, line)| line)
    }

    /// Which of the joined lines (0 for the first) holds byte `offset`:
    /// the number of lines a reader used is this plus one, where source
    /// line numbers cannot say it (a table's cells are several lines of
    /// one source line).
    pub fn position_at(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&(start, _)| start <= offset)
            .saturating_sub(1)
    }

    /// The source line of the byte where `suffix` (a tail of `text`) starts.
    pub fn line_of_rest(&self, rest: &str) -> usize {
        self.line_at(self.text.len() - rest.len().min(self.text.len()))
    }
}

/// Who wrote the quoted text that follows an attribution line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribution {
    pub author: String,
    pub email: Option<String>,
    pub date: Option<String>,
}

/// Reads an attribution line: `Michael Vince wrote:`, `On Fri, Sep 28,
/// 2007 at 02:04:00PM -0600, Warner Losh wrote:`, `Sergey Vojtovich
/// <svoj@mariadb.org> wrote:`, `----- Original Message ----- From: "Sven
/// Petai" <hadara at bsd.ee>`, `From: Sven Petai` right under an
/// `----- Original Message -----` line (pass that line as `previous`).
///
/// Cheap first: an attribution ends with a colon or follows the Original
/// Message mark, or is that mark itself. Most lines end with a visible
/// ASCII byte other than `:` and start with no `-`, and are rejected by
/// three bytes before any trimming, without a call.
#[inline]
pub fn attribution(text: &str, previous: Option<&str>) -> Option<Attribution> {
    let ends_plainly = text
        .as_bytes()
        .last()
        .is_some_and(|&b| b.is_ascii_graphic() && b != b':');
    let dash_first = |t: &str| {
        t.as_bytes()
            .first()
            .is_none_or(|&b| b == b'-' || !b.is_ascii_graphic())
    };
    if ends_plainly && !dash_first(text) && !previous.is_some_and(dash_first) {
        return None;
    }
    read_attribution(text, previous)
}

/// [`attribution`] for a line its first bytes did not rule out.
#[inline(never)]
fn read_attribution(text: &str, previous: Option<&str>) -> Option<Attribution> {
    let end = trim_end(text);
    let candidate = end.ends_with(':')
        || trim_start(end).starts_with("-----")
        || previous.is_some_and(|p| trim_start(p).starts_with("-----"));
    if !candidate {
        return None;
    }
    let text = trim_start(end);
    if let Some(from) = original_message_from(text, previous) {
        return from_header_author(from);
    }
    let head = ["wrote:", "writes:", "said:"]
        .iter()
        .find_map(|verb| text.strip_suffix(verb))?
        .trim_end();
    // Gnus and Supercite: `>>>>> "ZC" == Zlatko Calusic <…> writes:`.
    let head = supercite_attribution(head).unwrap_or(head);
    // "On <date>, Name wrote:": the name follows the last comma. A date
    // part kept in front is worth keeping.
    // Byte windows rather than `str` searches: their searcher's set-up
    // costs more than these short lines take to scan.
    let bytes = head.as_bytes();
    let find = |needle: &[u8]| bytes.windows(needle.len()).position(|w| w == needle);
    let last_comma = bytes.windows(2).rposition(|w| w == b", ");
    let (date, who) = match last_comma {
        Some(i) if head.starts_with("On ") || find(b" On ").is_some() => {
            let date_start = find(b"On ").map_or(0, |j| j + 3);
            (Some(head[date_start..i].trim().to_string()), &head[i + 2..])
        }
        Some(i) => (None, &head[i + 2..]),
        None => (None, head),
    };
    let (name, email) = split_name_email(who);
    if !plausible_name(&name) {
        return None;
    }
    Some(Attribution {
        author: name,
        email,
        date,
    })
}

/// The name part of Supercite's attribution, `"ZC" == Zlatko Calusic
/// <zcalusic@…>`, after its `>>>>>` markers.
fn supercite_attribution(head: &str) -> Option<&str> {
    let rest = head.trim_start_matches(['>', ' ']).strip_prefix('"')?;
    let close = rest.find('"')?;
    (close <= 4).then_some(())?;
    Some(
        rest[close + 1..]
            .trim_start()
            .strip_prefix("==")?
            .trim_start(),
    )
}

fn original_message_from<'a>(text: &'a str, previous: Option<&str>) -> Option<&'a str> {
    const MARK: &str = "----- Original Message -----";
    if let Some(rest) = text.strip_prefix(MARK) {
        return rest.trim_start().strip_prefix("From:");
    }
    // The mark's first byte before the whole comparison: this runs for
    // every attribution line.
    if previous.is_some_and(|p| trim_start(p).starts_with('-') && p.trim() == MARK) {
        return text.strip_prefix("From:");
    }
    None
}

fn from_header_author(value: &str) -> Option<Attribution> {
    let (name, email) = split_name_email(value);
    let author = if name.is_empty() {
        email.clone()?
    } else {
        name
    };
    Some(Attribution {
        author,
        email,
        date: None,
    })
}

/// `"Sven Petai" <hadara at bsd.ee>` -> (`Sven Petai`, `hadara@bsd.ee`);
/// also `user at host (Name)` and a bare address.
pub fn split_name_email(value: &str) -> (String, Option<String>) {
    let value = value.trim();
    // Each closing bracket is looked for only after its opening one. A
    // plain loop rather than memchr: a name is a few bytes, fewer than
    // the call costs.
    let brackets = |open: u8, close: u8| {
        let bytes = value.as_bytes();
        let open = bytes.iter().position(|&b| b == open)?;
        let close = bytes.iter().rposition(|&b| b == close)?;
        (open < close).then_some((open, close))
    };
    if let Some((open, close)) = brackets(b'<', b'>') {
        let email = deobfuscate_address(&value[open + 1..close]);
        let name = clean_name(&value[..open]);
        return (name, Some(email));
    }
    if let Some((open, close)) = brackets(b'(', b')') {
        if looks_like_address(&value[..open]) {
            let email = deobfuscate_address(&value[..open]);
            return (clean_name(&value[open + 1..close]), Some(email));
        }
    }
    if looks_like_address(value) {
        return (String::new(), Some(deobfuscate_address(value)));
    }
    (clean_name(value), None)
}

fn clean_name(name: &str) -> String {
    let name = trim_start(trim_end(name));
    // Most names have no quotes around them to take off.
    let quoted =
        |b: Option<&u8>| b.is_none_or(|&b| !b.is_ascii_graphic() || b == b'"' || b == b'\'');
    let bytes = name.as_bytes();
    if !quoted(bytes.first()) && !quoted(bytes.last()) {
        return name.to_string();
    }
    name.trim_matches(|c| c == '"' || c == '\'')
        .trim()
        .to_string()
}

/// True for `user@host` and the archives' `user at host`.
pub fn looks_like_address(value: &str) -> bool {
    // Cheap first: an address holds a `@` or the word `at`; most names
    // hold neither.
    // core's byte search, a plain loop on a short text: a name is a few
    // bytes, fewer than a memchr call costs.
    let bytes = value.as_bytes();
    if !bytes.contains(&b'@') && !bytes.windows(2).any(|w| w == b"at") {
        return false;
    }
    // At most four words are looked at: a name of many words is no address.
    let mut words = value.split_whitespace();
    let words = [words.next(), words.next(), words.next(), words.next()];
    match words {
        [Some(one), None, None, None] => {
            one.contains('@') && !one.starts_with('@') && !one.ends_with('@')
        }
        [Some(user), Some("at"), Some(host), None] => !user.is_empty() && host.contains('.'),
        _ => false,
    }
}

/// `mv at thebeastie.org` -> `mv@thebeastie.org`.
pub fn deobfuscate_address(value: &str) -> String {
    value.trim().replace(" at ", "@")
}

fn plausible_name(name: &str) -> bool {
    let words = name.split_whitespace().count();
    (1..=5).contains(&words)
        && name.len() <= 60
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '"')
        && !name.contains(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The span a joined line covers; only these tests need it.
    impl LogicalLine {
        fn first_line(&self) -> usize {
            self.starts.first().map_or(0, |&(_, line)| line)
        }

        fn last_line(&self) -> usize {
            self.starts.last().map_or(0, |&(_, line)| line)
        }
    }

    #[test]
    fn page_furniture_is_a_page_number_and_a_title() {
        assert!(is_page_furniture("**58 | Chapter 2: Benchmarking MySQL**"));
        assert!(is_page_furniture("Benchmarking Examples | 57"));
        assert!(!is_page_furniture("| 1 | 2 |"));
        assert!(!is_page_furniture("threads | tps"));
        assert!(!is_page_furniture("12345 | rows"));
    }

    #[test]
    fn elisions() {
        for t in [
            "<snip>",
            "  [snip]",
            "[...]",
            "...",
            "(snipped)",
            "<SNIP>",
            "\u{2026}",
        ] {
            assert!(is_elision(t), "{t:?}");
        }
        for t in ["", "snip this", "<br>", "connect 2.00", "....."] {
            assert!(!is_elision(t), "{t:?}");
        }
    }

    #[test]
    fn quote_depths() {
        let cases = [
            ("plain text", 0, "plain text"),
            ("> one", 1, "one"),
            (">> two", 2, "two"),
            ("> > two spaced", 2, "two spaced"),
            (">>> three", 3, "three"),
            (">", 1, ""),
            (">>", 2, ""),
            ("  > indented", 1, "indented"),
            ("    > in a list item", 1, "in a list item"),
            ("    >", 1, ""),
            ("    >>not a list quote", 0, "    >>not a list quote"),
            ("        > too deep", 0, "        > too deep"),
            (">>  keeps inner indent", 2, " keeps inner indent"),
            ("a > b", 0, "a > b"),
            ("mysql> select 1;", 0, "mysql> select 1;"),
            ("> >not-a-space", 2, "not-a-space"),
            ("ZC> super-smack", 1, "super-smack"),
            ("JD>  Query_type", 1, " Query_type"),
            ("> JD> two", 2, "two"),
            ("JD> > ZC> three", 3, "three"),
            ("JD>", 1, ""),
            ("ABCD> four capitals", 0, "ABCD> four capitals"),
            ("SQL> select 1;", 0, "SQL> select 1;"),
            ("db> lower case", 0, "db> lower case"),
            ("A>B", 0, "A>B"),
            (">> > mixed", 3, "mixed"),
        ];
        for (i, (raw, depth, text)) in cases.into_iter().enumerate() {
            assert_eq!(split_quote(raw), (depth, text), "case {i}: {raw:?}");
        }
    }

    #[test]
    fn lines_are_numbered_and_crlf_is_stripped() {
        let got = lines("a\r\n> b\n>> c\n");
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[1],
            Line {
                number: 2,
                depth: 1,
                text: "b"
            }
        );
        assert_eq!(got[2].depth, 2);
        assert_eq!(got[0].text, "a");
        assert_eq!(lines("no newline").len(), 1);
        assert!(lines("").len() <= 1);
    }

    #[test]
    fn attributions() {
        type Want<'a> = Option<(&'a str, Option<&'a str>)>;
        let cases: [(&str, Option<&str>, Want); 10] = [
            ("Michael Vince wrote:", None, Some(("Michael Vince", None))),
            (
                ">>>>> \"ZC\" == Zlatko Calusic <Zlatko.Calusic@CARNet.hr> writes:",
                None,
                Some(("Zlatko Calusic", Some("Zlatko.Calusic@CARNet.hr"))),
            ),
            (
                "Steven Hartland wrote:",
                None,
                Some(("Steven Hartland", None)),
            ),
            (
                "On Fri, Sep 28, 2007 at 02:04:00PM -0600, Warner Losh wrote:",
                None,
                Some(("Warner Losh", None)),
            ),
            (
                "Sergey Vojtovich <svoj@mariadb.org> wrote:",
                None,
                Some(("Sergey Vojtovich", Some("svoj@mariadb.org"))),
            ),
            (
                "----- Original Message ----- From: \"Sven Petai\" <hadara at bsd.ee>",
                None,
                Some(("Sven Petai", Some("hadara@bsd.ee"))),
            ),
            (
                "From: \"Sven Petai\" <hadara at bsd.ee>",
                Some("----- Original Message -----"),
                Some(("Sven Petai", Some("hadara@bsd.ee"))),
            ),
            ("From: somebody", None, None),
            ("This is what the manual says: it wrote:", None, None),
            (
                "I think the patch we discussed last week wrote:",
                None,
                None,
            ),
        ];
        for (i, (text, previous, want)) in cases.into_iter().enumerate() {
            let got = attribution(text, previous);
            let got = got
                .as_ref()
                .map(|a| (a.author.as_str(), a.email.as_deref()));
            assert_eq!(got, want, "case {i}: {text:?}");
        }
    }

    #[test]
    fn logical_line_maps_offsets_back() {
        let src =
            lines(">> connect: max=46ms from 100 clients Query_type\n>> num_queries max_time\n");
        let joined = LogicalLine::join(&src, " ");
        assert_eq!(
            joined.text,
            "connect: max=46ms from 100 clients Query_type num_queries max_time"
        );
        assert_eq!(joined.depth, 2);
        assert_eq!(joined.line_at(0), 1);
        assert_eq!(joined.line_at(joined.text.find("num_queries").unwrap()), 2);
        assert_eq!((joined.first_line(), joined.last_line()), (1, 2));
        let rest = &joined.text[joined.text.find("max_time").unwrap()..];
        assert_eq!(joined.line_of_rest(rest), 2);
    }

    #[test]
    fn addresses() {
        assert!(looks_like_address("mv at thebeastie.org"));
        assert!(looks_like_address("a@b.c"));
        assert!(!looks_like_address("look at this"));
        assert_eq!(
            deobfuscate_address("mv at thebeastie.org"),
            "mv@thebeastie.org"
        );
    }
}
