//! Who wrote what: the message headers at the top of an input (RFC 822
//! headers, or the `Subject / Author / user at host / Date` head of a list
//! archive page) and the quoted messages inside it, found from attribution
//! lines. Every line of the input is assigned to one message.

use crate::text::{self, Line};
use crate::Message;

/// The messages of an input, and for each line (by index into the lines)
/// the message it belongs to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Messages {
    pub messages: Vec<Message>,
    /// Indices into `messages` as `u32`: there is one per line of the
    /// input, and at half the size of a `usize` fewer pages of memory are
    /// touched (page faults were a fifth of the time on a large input).
    /// An index past `u32::MAX` saturates and finds no message.
    of_line: Vec<u32>,
}

impl Messages {
    /// The message holding line `index` (an index into the lines).
    pub fn at(&self, index: usize) -> Option<(usize, &Message)> {
        let m = usize::try_from(*self.of_line.get(index)?).ok()?;
        Some((m, self.messages.get(m)?))
    }
}

/// A message's index as [`Messages`] keeps it for a line.
fn line_owner(m: usize) -> u32 {
    u32::try_from(m).unwrap_or(u32::MAX)
}

/// Finds the input's own message and the messages quoted inside it.
pub fn messages(lines: &[Line<'_>]) -> Messages {
    let (top, body_start) = top_message(lines);
    let mut messages = vec![top];
    let mut of_line = vec![0; lines.len()];
    // Each message's span grows as its lines are assigned, in line order,
    // rather than in a second pass over every line.
    for line in lines.iter().take(body_start) {
        cover(&mut messages[0], line);
    }
    // current[d]: the message whose text is at quote depth d right now.
    let mut current: Vec<Option<usize>> = vec![Some(0)];
    // The quoted message an Outlook-style header block is still filling.
    let mut filling: Option<(usize, usize)> = None;
    // opening[d]: no line of the message at depth d is read yet but blank
    // ones: its body's first line may be git's in-body `From:`.
    let mut opening: Vec<bool> = vec![true];

    for (i, line) in lines.iter().enumerate().skip(body_start) {
        let d = line.depth;
        if let Some((m, depth)) = filling {
            if d == depth && fill_quoted_header(&mut messages[m], line.text) {
                of_line[i] = line_owner(m);
                cover(&mut messages[m], line);
                continue;
            }
            filling = None;
        }
        let opens = !line.is_blank() && opening.get(d).copied().unwrap_or(d > 0);
        if !line.is_blank() && opening.len() > d {
            opening[d] = false;
        }
        if opens {
            if let Some(author) = in_body_from(lines, i) {
                // The patch's author wrote what follows (its commit
                // message, with the figures in it): its own message at
                // this depth, as a forward's is.
                let mut message = Message {
                    quote_depth: d,
                    ..Message::default()
                };
                set_from(&mut message, author);
                let m = owns_from_here(&mut messages, &mut current, message);
                filling = Some((m, d));
                of_line[i] = line_owner(m);
                cover(&mut messages[m], line);
                continue;
            }
        }
        if forward_starts(lines, i) {
            // The forwarded text is at the forwarder's depth but is the
            // forwarded message's: its own message, filled from the header
            // block under the mark, owns what follows at this depth.
            let message = Message {
                quote_depth: d,
                ..Message::default()
            };
            let m = owns_from_here(&mut messages, &mut current, message);
            filling = Some((m, d));
            of_line[i] = line_owner(m);
            cover(&mut messages[m], line);
            continue;
        }
        let previous = i
            .checked_sub(1)
            .map(|p| lines[p])
            .filter(|p| p.depth == d)
            .map(|p| p.text);
        if let Some(attr) = text::attribution(line.text, previous) {
            let m = messages.len();
            messages.push(Message {
                author: Some(attr.author),
                email: attr.email,
                date: attr.date,
                quote_depth: d + 1,
                lines: [line.number, line.number],
                ..Message::default()
            });
            if current.len() <= d + 1 {
                current.resize(d + 2, None);
            }
            current[d + 1] = Some(m);
            current.truncate(d + 2);
            filling = Some((m, d));
            if opening.len() <= d + 1 {
                opening.resize(d + 2, false);
            }
            opening[d + 1] = true;
            opening.truncate(d + 2);
        }
        let m = owner(&mut current, &mut messages, d, line);
        of_line[i] = line_owner(m);
        cover(&mut messages[m], line);
    }
    Messages { messages, of_line }
}

/// Adds `message`, which owns what follows at its depth from here on (a
/// forward's, or a patch author's), and gives its index.
fn owns_from_here(
    messages: &mut Vec<Message>,
    current: &mut Vec<Option<usize>>,
    message: Message,
) -> usize {
    let d = message.quote_depth;
    let m = messages.len();
    messages.push(message);
    if current.len() <= d {
        current.resize(d + 1, None);
    }
    current[d] = Some(m);
    current.truncate(d + 1);
    m
}

/// Widens a message's first and last line to take in `line`, one of its
/// own: a blank line only when the message has no line yet.
fn cover(message: &mut Message, line: &Line<'_>) {
    let span = &mut message.lines;
    if !line.is_blank() || *span == [0, 0] {
        if span[0] == 0 || line.number < span[0] {
            span[0] = line.number;
        }
        span[1] = span[1].max(line.number);
    }
}

/// The message a line at depth `d` belongs to; quoted text with no
/// attribution before it gets a message of its own with no author.
fn owner(
    current: &mut Vec<Option<usize>>,
    messages: &mut Vec<Message>,
    d: usize,
    line: &Line<'_>,
) -> usize {
    if current.len() <= d {
        current.resize(d + 1, None);
    }
    if let Some(m) = current[d] {
        return m;
    }
    if line.is_blank() {
        // A bare `>` line between two quotes is nobody's text.
        return current[..d]
            .iter()
            .rev()
            .flatten()
            .next()
            .copied()
            .unwrap_or(0);
    }
    let m = messages.len();
    messages.push(Message {
        quote_depth: d,
        ..Message::default()
    });
    current[d] = Some(m);
    m
}

/// The author and address of a `From:` field's value: its name, or its
/// address where it gives no name. Outlook writes `Name [mailto:user@host]`.
fn set_from(message: &mut Message, value: &str) {
    let value = match value.split_once("[mailto:") {
        Some((name, rest)) => format!("{name}<{}>", rest.trim_end_matches(']')),
        None => value.to_owned(),
    };
    let (author, email) = text::split_name_email(&decoded(&value));
    message.author = if author.is_empty() {
        email.clone()
    } else {
        Some(author)
    };
    message.email = email;
}

/// `To:`, `Sent:`, `Subject:`, `Date:` under an `----- Original Message -----`
/// attribution, and `From:` too under a forwarded message's mark (see
/// [`forward_starts`]). Blank lines between the mark and the first field
/// (Apple Mail puts one there) are the block's too.
fn fill_quoted_header(message: &mut Message, text: &str) -> bool {
    if text.trim().is_empty() {
        return message.author.is_none() && message.date.is_none() && message.subject.is_none();
    }
    let Some((name, value)) = header_field(text) else {
        return false;
    };
    let value = value.trim().to_string();
    match name.to_ascii_lowercase().as_str() {
        "sent" | "date" => message.date = Some(value),
        "subject" => message.subject = Some(value),
        "from" if message.author.is_none() => set_from(message, &value),
        "to" | "cc" | "from" | "reply-to" => {}
        _ => return false,
    }
    true
}

/// Lines looked at after a forward's mark for its first header field.
const FORWARD_HEADER_WITHIN: usize = 3;

/// Whether line `i` opens a forwarded message: a mark alone on its line
/// (`---------- Forwarded message ---------` of Gmail, `Begin forwarded
/// message:` of Apple Mail, `-------- Original Message --------` of
/// Thunderbird and Outlook, `--- forwarded message ---` of
/// [`crate::mbox::decode`]) with a header field (`From:`, `Date:`,
/// `Subject:`, `Sent:`, `To:`) right under it, at its depth.
fn forward_starts(lines: &[Line<'_>], i: usize) -> bool {
    let line = &lines[i];
    // Cheap first: this runs on every line, and its first visible byte
    // rules out most before any trimming from the end.
    let start = text::trim_start(line.text);
    if !matches!(start.as_bytes().first(), Some(b'-' | b'B' | b'b')) {
        return false;
    }
    let mark = start.trim_end();
    if !(17..=60).contains(&mark.len()) {
        return false;
    }
    let dashed = mark
        .strip_prefix("---")
        .and_then(|rest| rest.strip_suffix("---"))
        .map(|inner| inner.trim_matches(|c: char| c == '-' || c.is_whitespace()));
    let is_mark = match dashed {
        Some(inner) => {
            inner.eq_ignore_ascii_case("forwarded message")
                || inner.eq_ignore_ascii_case("original message")
        }
        None => mark.eq_ignore_ascii_case("begin forwarded message:"),
    };
    if !is_mark {
        return false;
    }
    lines[i + 1..]
        .iter()
        .take(FORWARD_HEADER_WITHIN)
        .take_while(|next| next.depth == line.depth)
        .find(|next| !next.is_blank())
        .and_then(|next| header_field(next.text))
        .is_some_and(|(name, _)| {
            matches!(
                name.to_ascii_lowercase().as_str(),
                "from" | "date" | "sent" | "subject" | "to"
            )
        })
}

/// The value of git's in-body `From:` at line `i`: `git format-patch` and
/// `git send-email` open the body with `From: Author <address>` (then
/// perhaps `Date:` and `Subject:`) and a blank line when the one sending
/// the patch is not its author, and `git am` takes the author from it.
/// Asked only of a message's first line; the value must hold an address.
fn in_body_from<'a>(lines: &[Line<'a>], i: usize) -> Option<&'a str> {
    let line = &lines[i];
    let (name, value) = header_field(line.text)?;
    if !name.eq_ignore_ascii_case("from") || !value.contains('@') && !value.contains(" at ") {
        return None;
    }
    // The block ends with a blank line at its depth, after at most the
    // other fields git writes there.
    let mut after = lines[i + 1..]
        .iter()
        .take_while(|next| next.depth == line.depth);
    loop {
        match after.next() {
            None => return None,
            Some(next) if next.is_blank() => return Some(value.trim()),
            Some(next) => match header_field(next.text) {
                Some((name, _))
                    if name.eq_ignore_ascii_case("date")
                        || name.eq_ignore_ascii_case("subject") => {}
                _ => return None,
            },
        }
    }
}

fn header_field(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once(':')?;
    // Exchange stamps names of up to 49 characters
    // (`X-MS-Exchange-Transport-CrossTenantHeadersStamped`); the limit is
    // the one `mbox::detect` uses.
    let valid = !name.is_empty()
        && name.len() <= 76
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    valid.then_some((name, value))
}

/// The input's own message: RFC 822 headers or an archive page's head, and
/// the index of the first line after them.
fn top_message(lines: &[Line<'_>]) -> (Message, usize) {
    if let Some(found) = rfc822_headers(lines) {
        return found;
    }
    if let Some(found) = archive_page_head(lines) {
        return found;
    }
    (Message::default(), 0)
}

/// `From:`, `Subject:`, `Date:`, `Message-ID:` ... up to the first blank
/// line, with folded continuation lines; an mbox `From ` line may precede.
fn rfc822_headers(lines: &[Line<'_>]) -> Option<(Message, usize)> {
    let mut message = Message::default();
    let mut start = 0;
    if lines
        .first()
        .is_some_and(|l| l.depth == 0 && l.text.starts_with("From "))
    {
        start = 1;
    }
    let mut i = start;
    let mut fields: Vec<(String, String)> = Vec::new();
    while let Some(line) = lines.get(i) {
        if line.depth != 0 || line.is_blank() {
            break;
        }
        if line.text.starts_with([' ', '\t']) {
            let (_, value) = fields.last_mut()?;
            value.push(' ');
            value.push_str(line.text.trim());
        } else {
            let (name, value) = header_field(line.text)?;
            fields.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
        i += 1;
    }
    let known = fields
        .iter()
        .filter(|(name, _)| matches!(name.as_str(), "from" | "subject" | "date" | "message-id"))
        .count();
    if known < 2 {
        return None;
    }
    for (name, value) in fields {
        match name.as_str() {
            "from" => set_from(&mut message, &value),
            "subject" => message.subject = Some(decoded(&value)),
            "date" => message.date = Some(value),
            "message-id" => message.message_id = Some(value),
            "in-reply-to" => message.in_reply_to = Some(value),
            _ => {}
        }
    }
    Some((message, i))
}

/// A header value with its RFC 2047 words decoded. A value that already
/// holds 8-bit text was decoded once before (an archive's copy): left as
/// it is rather than decoded twice.
fn decoded(value: &str) -> String {
    if value.is_ascii() {
        crate::mbox::decode_encoded_words(value)
    } else {
        value.to_string()
    }
}

/// The head of a list archive page: subject, author's name, `user at
/// host`, date, one per line.
fn archive_page_head(lines: &[Line<'_>]) -> Option<(Message, usize)> {
    let [subject, author, address, date, ..] = lines else {
        return None;
    };
    let all_top = [subject, author, address, date]
        .iter()
        .all(|l| l.depth == 0 && !l.is_blank());
    if !all_top || !text::looks_like_address(address.text) || !looks_like_date(date.text) {
        return None;
    }
    let message = Message {
        author: Some(author.text.trim().to_string()),
        email: Some(text::deobfuscate_address(address.text)),
        date: Some(date.text.trim().to_string()),
        subject: Some(subject.text.trim().to_string()),
        ..Message::default()
    };
    Some((message, 4))
}

/// `Thu Apr 20 09:46:56 UTC 2006`, `Fri, 20 Oct 2006 18:59:54 -0400`: a
/// year and a clock time.
fn looks_like_date(text: &str) -> bool {
    let has_year = text.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_ascii_digit());
        w.len() == 4 && (w.starts_with("19") || w.starts_with("20"))
    });
    let has_clock = text.split_whitespace().any(|w| {
        let parts: Vec<&str> = w.split(':').collect();
        parts.len() >= 2
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    });
    has_year && has_clock && text.len() < 80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authors(input: &str) -> (Vec<Option<String>>, Vec<Option<String>>) {
        let lines = text::lines(input);
        let found = messages(&lines);
        let per_line = (0..lines.len())
            .map(|i| found.at(i).and_then(|(_, m)| m.author.clone()))
            .collect();
        let all = found.messages.iter().map(|m| m.author.clone()).collect();
        (all, per_line)
    }

    #[test]
    fn archive_page_head_gives_the_top_message() {
        let lines = text::lines(
            "mysql performance\nMichael Vince\nmv at thebeastie.org\nThu Apr 20 09:46:56 UTC 2006\nbody\n",
        );
        let found = messages(&lines);
        let top = &found.messages[0];
        assert_eq!(top.author.as_deref(), Some("Michael Vince"));
        assert_eq!(top.email.as_deref(), Some("mv@thebeastie.org"));
        assert_eq!(top.subject.as_deref(), Some("mysql performance"));
        assert_eq!(top.date.as_deref(), Some("Thu Apr 20 09:46:56 UTC 2006"));
        assert_eq!(top.lines, [1, 5]);
    }

    #[test]
    fn rfc822_headers_with_folding() {
        let lines = text::lines(
            "From: \"Rune Hansen\" <rune@example.no>\nSubject: SMP\n tests\nDate: Wed, 24 Jan 2001 10:00:00 +0100\nMessage-ID: <a@b>\n\nbody\n",
        );
        let top = &messages(&lines).messages[0];
        assert_eq!(top.author.as_deref(), Some("Rune Hansen"));
        assert_eq!(top.subject.as_deref(), Some("SMP tests"));
        assert_eq!(top.message_id.as_deref(), Some("<a@b>"));
    }

    #[test]
    fn encoded_words_in_from_and_subject() {
        // The From of a 2003 LKML reply, as the archive keeps it.
        let lines = text::lines(
            "From: =?ISO-8859-1?Q?Luis_Miguel_Garc=EDa?= <ktech@wanadoo.es>\nSubject: =?UTF-8?B?546L6LSH?=\nDate: Thu, 25 Dec 2003 21:37:40 +0100\n\nbody\n",
        );
        let top = &messages(&lines).messages[0];
        assert_eq!(top.author.as_deref(), Some("Luis Miguel García"));
        assert_eq!(top.email.as_deref(), Some("ktech@wanadoo.es"));
        assert_eq!(top.subject.as_deref(), Some("王贇"));
        // Already 8-bit: an archive decoded it once; it is not decoded again.
        let lines =
            text::lines("From: =?ISO-8859-1?Q?Gérard_Roudier?=\nDate: x\nSubject: y\n\nbody\n");
        assert_eq!(
            messages(&lines).messages[0].author.as_deref(),
            Some("=?ISO-8859-1?Q?Gérard_Roudier?=")
        );
    }

    #[test]
    fn long_exchange_header_names_stay_in_the_header_block() {
        let input = "From: A <a@b.c>\nX-MS-Exchange-Transport-CrossTenantHeadersStamped: X\nSubject: s\nDate: d\n\nhello\n";
        let lines = text::lines(input);
        let top = &messages(&lines).messages[0];
        assert_eq!(top.author.as_deref(), Some("A"));
        assert_eq!(top.subject.as_deref(), Some("s"));
    }

    #[test]
    fn prose_with_a_colon_is_not_a_header() {
        let lines = text::lines("Setup: dual P3\nKernels: 2.4\n\nbody\n");
        assert_eq!(messages(&lines).messages[0].author, None);
    }

    #[test]
    fn each_depth_gets_the_author_of_its_attribution() {
        let input = "Me\nYou wrote:\n> quoted by you\n> Him wrote:\n>> quoted by him\n> you again\n\
                     >> ----- Original Message ----- From: \"Her\" <her at x.org>\n>> Sent: Tuesday\n>> Subject: s\n>>> hers\nmine\n";
        let (all, per_line) = authors(input);
        assert_eq!(
            per_line,
            [
                None,
                None,
                Some("You"),
                Some("You"),
                Some("Him"),
                Some("You"),
                Some("Him"),
                Some("Her"),
                Some("Her"),
                Some("Her"),
                None
            ]
            .map(|a| a.map(String::from))
        );
        assert_eq!(all.len(), 4, "{all:?}");
        let lines = text::lines(input);
        let her = &messages(&lines).messages[3];
        assert_eq!(
            (her.date.as_deref(), her.subject.as_deref(), her.quote_depth),
            (Some("Tuesday"), Some("s"), 3)
        );
        assert_eq!(her.email.as_deref(), Some("her@x.org"));
    }

    #[test]
    fn quote_without_attribution_has_no_author() {
        let (all, per_line) = authors("From: A <a@b.c>\nSubject: s\n\nhello\n> someone said\n");
        assert_eq!(per_line[3].as_deref(), Some("A"));
        assert_eq!(per_line[4], None);
        assert_eq!(all.len(), 2);
    }

    #[test]
    fn a_forwarded_block_is_its_senders() {
        // The marks of Gmail, Apple Mail, Thunderbird, Outlook and of
        // mbox::decode, each over the forwarded message's header block.
        for (mark, fields) in [
            ("---------- Forwarded message ---------", "From: Peter Zaitsev <pz@x.org>\nDate: Mon, 3 Apr 2006\nSubject: numbers\nTo: list@x.org\n"),
            ("Begin forwarded message:", "\nFrom: Peter Zaitsev <pz@x.org>\nSubject: numbers\nDate: Mon, 3 Apr 2006\n"),
            ("-------- Original Message --------", "Subject: \tnumbers\nDate: \tMon, 3 Apr 2006\nFrom: \tPeter Zaitsev <pz@x.org>\n"),
            ("-----Original Message-----", "From: Peter Zaitsev [mailto:pz@x.org]\nSent: Monday\nTo: list\nSubject: numbers\n"),
            ("--- forwarded message ---", "From: Peter Zaitsev <pz@x.org>\nSubject: numbers\n"),
        ] {
            let input = format!("From: Fwd <f@y.org>\nSubject: Fwd: numbers\nDate: x\n\nSee below.\n\n{mark}\n{fields}\nthe report\n> quoted by Peter\nmore report\n");
            let (all, per_line) = authors(&input);
            let line = |text: &str| {
                let at = input.lines().position(|l| l == text).unwrap();
                per_line[at].clone()
            };
            assert_eq!(line("See below.").as_deref(), Some("Fwd"), "{mark}");
            assert_eq!(line(mark).as_deref(), Some("Peter Zaitsev"), "{mark}");
            assert_eq!(line("the report").as_deref(), Some("Peter Zaitsev"), "{mark}");
            assert_eq!(line("more report").as_deref(), Some("Peter Zaitsev"), "{mark}");
            assert_eq!(line("> quoted by Peter"), None, "{mark}: quoted without attribution");
            assert_eq!(all.len(), 3, "{mark}: {all:?}");
            let lines = text::lines(&input);
            let forwarded = &messages(&lines).messages[1];
            assert_eq!(
                (forwarded.subject.as_deref(), forwarded.quote_depth),
                (Some("numbers"), 0),
                "{mark}"
            );
        }
    }

    #[test]
    fn git_in_body_from_names_the_patch_author_at_any_depth() {
        let input = "From: Sasha Levin <sashal@kernel.org>\nSubject: [PATCH AUTOSEL] x\n\nFrom: Filipe Manana <fdmanana@suse.com>\n\n[ Upstream commit 1234 ]\n\nBefore this change:\n";
        let (all, per_line) = authors(input);
        assert_eq!(per_line[3].as_deref(), Some("Filipe Manana"));
        assert_eq!(per_line[5].as_deref(), Some("Filipe Manana"));
        assert_eq!(per_line[7].as_deref(), Some("Filipe Manana"));
        assert_eq!(all.len(), 2, "{all:?}");

        // Quoted under its sender's attribution, with git's Date: too.
        let input = "From: D <d@x.org>\nSubject: Re: x\n\nOn Fri, Sasha Levin wrote:\n> From: Filipe Manana <fdmanana@suse.com>\n> Date: Tue, 30 Jan 2024\n>\n> Before this change:\n\nNo.\n";
        let (_, per_line) = authors(input);
        assert_eq!(per_line[4].as_deref(), Some("Filipe Manana"));
        assert_eq!(per_line[7].as_deref(), Some("Filipe Manana"));
        assert_eq!(per_line[9].as_deref(), Some("D"));

        // Not the first line, no blank line after it, or no address:
        // the writer's own text.
        for input in [
            "From: A <a@b.c>\nSubject: s\n\nhello\nFrom: B <b@c.d>\n\ntext\n",
            "From: A <a@b.c>\nSubject: s\n\nFrom: B <b@c.d> wrote the report below\ntext\n",
            "From: A <a@b.c>\nSubject: s\n\nFrom: the lab\n\ntext\n",
        ] {
            let (all, per_line) = authors(input);
            let text = input.lines().position(|line| line == "text").unwrap();
            assert_eq!(all.len(), 1, "{input}");
            assert_eq!(per_line[text].as_deref(), Some("A"), "{input}");
        }
    }

    #[test]
    fn a_forward_mark_without_headers_is_the_writers_text() {
        let input =
            "From: A <a@b.c>\nSubject: s\n\n---------- Forwarded message ---------\nthe report\n";
        let (all, per_line) = authors(input);
        assert_eq!(all.len(), 1);
        assert_eq!(per_line[4].as_deref(), Some("A"));
    }
}
