//! Mail as list archives keep it: mbox files (a month of a list, as
//! pipermail offers it for download) and single RFC 822 messages. Bytes go
//! in; out come the messages, decoded (MIME parts, quoted-printable,
//! base64, charsets) by `mail-parser` and rendered as plain text with a
//! short header block on top, which [`crate::parse`] then reads like any
//! pasted mail.
//!
//! ```
//! let mbox = b"From mv at example.org  Thu Apr 20 09:46:56 2006\n\
//!              From: mv at example.org (Michael Vince)\n\
//!              Subject: smp\n\
//!              Message-ID: <1@example.org>\n\
//!              \n\
//!              hello\n";
//! assert_eq!(parsers::mbox::detect(Some("2006-April.txt"), mbox), parsers::mbox::Kind::Mbox);
//! let raw: Vec<&[u8]> = parsers::mbox::split(mbox).collect();
//! let mail = parsers::mbox::decode(raw[0]).unwrap();
//! assert_eq!(mail.author.as_deref(), Some("Michael Vince"));
//! assert_eq!(mail.email.as_deref(), Some("mv@example.org"));
//! assert!(mail.text.starts_with("From: Michael Vince <mv@example.org>\n"));
//! ```

use std::borrow::Cow;
use std::collections::HashSet;

use mail_parser::{
    Encoding, HeaderValue, Message, MessageParser, MessagePart, MimeHeaders, PartType,
};

use crate::text;

/// What a file holds, judged by its content (and, for single messages,
/// its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Messages one after the other, each under a `From ` envelope line.
    Mbox,
    /// One RFC 822 message with MIME headers (an `.eml` file).
    Message,
    /// Anything else: a paste, a log, an archive page copied as text.
    Text,
}

/// Tells an mbox (first line `From ` followed by header fields) and a
/// single MIME message (`.eml`, or headers that declare MIME) from text.
/// A paste that merely starts with `From:`/`Subject:` lines stays text, so
/// it is stored exactly as pasted.
pub fn detect(file_name: Option<&str>, bytes: &[u8]) -> Kind {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut lines = bytes.split(|&b| b == b'\n').map(trim_cr);
    let first = lines.next().unwrap_or_default();
    if first.starts_with(b"From ") {
        return match lines.next() {
            Some(second) if header_name(second).is_some() => Kind::Mbox,
            _ => Kind::Text,
        };
    }
    let named_eml = file_name.is_some_and(|name| {
        let name = name.to_ascii_lowercase();
        name.ends_with(".eml") || name.ends_with(".eml.gz")
    });
    let mut known = 0;
    let mut mime = false;
    for line in std::iter::once(first).chain(lines).take(200) {
        if line.is_empty() {
            break;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            continue;
        }
        let Some(name) = header_name(line) else {
            return Kind::Text;
        };
        let name = name.to_ascii_lowercase();
        match name.as_slice() {
            b"from" | b"subject" | b"date" | b"message-id" => known += 1,
            b"mime-version"
            | b"content-type"
            | b"content-transfer-encoding"
            | b"received"
            | b"return-path"
            | b"delivered-to" => mime = true,
            _ => {}
        }
    }
    if known >= 1 && (mime || named_eml) {
        Kind::Message
    } else {
        Kind::Text
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `Name:` at the start of a header line.
fn header_name(line: &[u8]) -> Option<&[u8]> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = &line[..colon];
    let valid = !name.is_empty()
        && name.len() <= 76
        && name.iter().all(|&b| b.is_ascii_graphic() && b != b':');
    valid.then_some(name)
}

/// The raw messages of an mbox, without their `From ` envelope lines.
///
/// A message starts at a `From ` line that follows a blank line (or opens
/// the file) and reads like an envelope (`From sender date` with a clock
/// time). Archives do not always escape `From ` at the start of a body
/// line, so a looser rule would cut messages in two.
pub fn split(mbox: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut starts = Vec::new();
    if mbox.starts_with(b"From ") {
        starts.push(0);
    }
    for found in memchr::memmem::find_iter(mbox, b"\nFrom ") {
        let line_start = found + 1;
        let before = &mbox[..found];
        let after_blank = before.ends_with(b"\n") || before.ends_with(b"\n\r") || found == 0;
        if after_blank && is_envelope(line_of(mbox, line_start)) {
            starts.push(line_start);
        }
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([mbox.len()]).collect();
    starts
        .into_iter()
        .zip(ends)
        .filter_map(move |(start, end)| {
            let chunk = &mbox[start..end];
            let body_start = memchr::memchr(b'\n', chunk).map_or(chunk.len(), |i| i + 1);
            let message = trim_trailing_blank(&chunk[body_start..]);
            (!message.is_empty()).then_some(message)
        })
}

fn line_of(bytes: &[u8], start: usize) -> &[u8] {
    let rest = &bytes[start..];
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    &rest[..end]
}

/// `From mv at thebeastie.org  Thu Apr 20 09:46:56 2006`,
/// `From MAILER-DAEMON Fri Jul  8 12:08:34 2011`: a sender and a time.
fn is_envelope(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"From ") else {
        return false;
    };
    if rest.first().is_none_or(|b| b.is_ascii_whitespace()) || line.len() > 200 {
        return false;
    }
    rest.windows(5).any(|w| {
        w[0].is_ascii_digit()
            && w[1].is_ascii_digit()
            && w[2] == b':'
            && w[3].is_ascii_digit()
            && w[4].is_ascii_digit()
    })
}

fn trim_trailing_blank(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    // Keep the last line's newline: the message ends where its text ends.
    let end = if end < bytes.len() && bytes[end] == b'\n' {
        end + 1
    } else {
        end
    };
    &bytes[..end]
}

/// `References:` ids kept per message: the thread's root (the first) and
/// the newest after it. Threading needs only the nearest few, and a header
/// of 400,000 ids must cost no more to keep, show and store than these.
pub const MAX_REFERENCES: usize = 32;

/// Message ids longer than this are dropped: real ones are a few dozen
/// bytes, and each one kept is shown, stored and looked up.
pub const MAX_ID_BYTES: usize = 250;

/// `From:`, `Date:` and `Subject:` are cut to this many bytes (the RFC 5322
/// line limit): they are shown on one line and stored in every row.
pub const MAX_HEADER_BYTES: usize = 998;

/// Forwarded messages (`message/rfc822` parts) are read this deep, a
/// forward of a forward counting two; deeper ones are left out.
pub const MAX_FORWARD_DEPTH: usize = 4;

/// One message, decoded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MailMessage {
    /// The sender's name, or the address when the name is missing.
    pub author: Option<String>,
    /// The sender's address, with archive obfuscation (`user at host`) undone.
    pub email: Option<String>,
    /// The `Date:` header as written.
    pub date: Option<String>,
    /// The date as seconds since 1970 (UTC), when it could be read.
    pub timestamp: Option<i64>,
    /// The `Subject:` header, decoded.
    pub subject: Option<String>,
    /// Message ids without their angle brackets.
    pub message_id: Option<String>,
    /// The message id of the `In-Reply-To:` header.
    pub in_reply_to: Option<String>,
    /// The thread's earlier messages, oldest first, as the `References:`
    /// header lists them: the first and at most [`MAX_REFERENCES`] - 1 of
    /// the newest, each once.
    pub references: Vec<String>,
    /// Names of the text attachments whose text is part of [`Self::text`].
    pub attachments: Vec<String>,
    /// Parts of the message that are not in [`Self::text`], each with why
    /// (a forward nested deeper than [`MAX_FORWARD_DEPTH`] allows), for the
    /// reader to be told.
    pub not_read: Vec<String>,
    /// The message as text: a header block (`From:`, `Date:`, `Subject:`,
    /// `Message-ID:`, `In-Reply-To:`, `References:`), a blank line, the
    /// decoded body, then each text attachment under a `--- attachment:
    /// NAME ---` line and each forwarded message under a `--- forwarded
    /// message ---` line with its own `From:`, `Date:` and `Subject:`.
    pub text: String,
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailError {
    /// Nothing but whitespace.
    #[error("the message is empty")]
    Empty,
    /// Text without mail headers at its top.
    #[error("no mail headers (From, Date, Subject or Message-ID) at the top of the message")]
    NoHeaders,
    /// Headers that the mail parser could not read.
    #[error("the message could not be read as RFC 822 mail")]
    Unreadable,
}

/// The mail parser of [`decode`], built once: it reads the headers
/// whose values are read here, and the MIME headers that its parts are
/// decoded by; every other header (`Received`, `To`, `Cc`, `List-*`, …)
/// is passed over, its name and place kept, its value not read.
/// mail-parser's default reads each header it knows, and a list
/// message's `Received` and `Cc` lines cost more than its body; read as
/// raw text, each value is still copied through a UTF-8 check.
static MAIL_PARSER: std::sync::LazyLock<MessageParser> = std::sync::LazyLock::new(|| {
    MessageParser::new()
        .with_mime_headers()
        .with_date_headers()
        .with_message_ids()
        .header_address(mail_parser::HeaderName::From)
        .header_text(mail_parser::HeaderName::Subject)
        .default_header_ignore()
});

/// Decodes one raw RFC 822 message (as [`split`] gives them).
pub fn decode(raw: &[u8]) -> Result<MailMessage, MailError> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(MailError::Empty);
    }
    let message = MAIL_PARSER.parse(raw).ok_or(MailError::Unreadable)?;
    let known_header = message.headers().iter().any(|h| {
        matches!(
            h.name().to_ascii_lowercase().as_str(),
            "from" | "date" | "subject" | "message-id"
        )
    });
    if !known_header {
        return Err(MailError::NoHeaders);
    }

    let mut mail = MailMessage::default();
    if let Some(from) = header_text(&message, "From") {
        let (name, email) = sender(&from);
        mail.author = if name.is_empty() {
            email.clone()
        } else {
            Some(name)
        };
        mail.email = email;
    }
    mail.date = header_text(&message, "Date").map(|d| d.trim().to_string());
    mail.timestamp = message
        .date()
        .filter(|d| d.is_valid())
        .map(|d| d.to_timestamp());
    mail.subject = header_text(&message, "Subject").map(|s| unfold(&s));
    mail.message_id = message.message_id().and_then(clean_id);
    mail.in_reply_to = newest_ids(message.in_reply_to(), 1).pop();
    mail.references = references(message.references());

    let mut body = String::new();
    push_body(
        &mut body,
        &message,
        0,
        &mut mail.attachments,
        &mut mail.not_read,
    );

    let mut out = String::with_capacity(body.len() + 256);
    let from = display_sender(mail.author.as_deref(), mail.email.as_deref());
    push_header(&mut out, "From", Some(&from));
    push_header(&mut out, "Date", mail.date.as_deref());
    push_header(&mut out, "Subject", mail.subject.as_deref());
    push_header(
        &mut out,
        "Message-ID",
        mail.message_id.as_deref().map(bracket).as_deref(),
    );
    push_header(
        &mut out,
        "In-Reply-To",
        mail.in_reply_to.as_deref().map(bracket).as_deref(),
    );
    if !mail.references.is_empty() {
        let refs: Vec<String> = mail.references.iter().map(|r| bracket(r)).collect();
        push_header(&mut out, "References", Some(&refs.join(" ")));
    }
    out.push('\n');
    out.push_str(&body);
    mail.text = out;
    Ok(mail)
}

/// Appends a message's body parts, then its text attachments and the
/// messages it forwards (at `depth`, 0 for the mail itself), each as a
/// block; names of the attachments read go to `attachments`, what is left
/// out and why to `not_read`.
fn push_body(
    out: &mut String,
    message: &Message<'_>,
    depth: usize,
    attachments: &mut Vec<String>,
    not_read: &mut Vec<String>,
) {
    // mail-parser gives a forwarded message's parts offsets into the
    // outer message but only its own bytes, so its raw bytes cannot be
    // read again by offset.
    let raw = (depth == 0).then(|| message.raw_message());
    let in_body: HashSet<u32> = message.text_body.iter().copied().collect();
    for &index in &message.text_body {
        let Some(part) = message.parts.get(index as usize) else {
            continue;
        };
        // Inline images and other binary parts sit in the body list too.
        if matches!(part.body, PartType::Text(_) | PartType::Html(_)) {
            push_block(out, &part_text(part, raw));
        }
    }
    for &index in &message.attachments {
        if in_body.contains(&index) {
            continue;
        }
        let Some(part) = message.parts.get(index as usize) else {
            continue;
        };
        if let PartType::Message(inner) = &part.body {
            if depth + 1 < MAX_FORWARD_DEPTH {
                push_forwarded(out, inner, depth + 1, attachments, not_read);
            } else {
                not_read.push(format!(
                    "a forwarded message (message/rfc822) nested {} deep was not read: forwards are read {} deep at most",
                    depth + 1,
                    MAX_FORWARD_DEPTH - 1
                ));
            }
            continue;
        }
        let name = part.attachment_name().map(str::to_string);
        let named_text = name.as_deref().is_some_and(|n| {
            let n = n.to_ascii_lowercase();
            n.ends_with(".txt") || n.ends_with(".log")
        });
        let plain = matches!(part.body, PartType::Text(_));
        if !(plain || named_text) {
            continue;
        }
        let text = part_text(part, raw);
        if text.trim().is_empty() {
            continue;
        }
        let name = name.unwrap_or_else(|| "(unnamed)".to_string());
        push_block(out, &format!("--- attachment: {name} ---\n{text}"));
        attachments.push(name);
    }
}

/// A forwarded message as a block: a mark, its sender, date and subject
/// (so the reader sees whose text it is), a blank line and its body.
fn push_forwarded(
    out: &mut String,
    message: &Message<'_>,
    depth: usize,
    attachments: &mut Vec<String>,
    not_read: &mut Vec<String>,
) {
    let mut block = String::from("--- forwarded message ---\n");
    // Its decoded headers, not its raw ones: see push_body.
    let from = message.from().and_then(|from| from.first()).map(|from| {
        // mail-parser takes `user at host (Name)` whole for a name or an
        // address: read it again as the archives write it.
        let written = match (from.name(), from.address()) {
            (Some(name), Some(address)) => format!("\"{name}\" <{address}>"),
            (Some(one), None) | (None, Some(one)) => one.to_string(),
            (None, None) => String::new(),
        };
        let (name, email) = sender(&written);
        display_sender(Some(&name), email.as_deref())
    });
    let date = message.date().map(|date| date.to_rfc822());
    let subject = message.subject().map(unfold);
    for (name, value) in [("From", from), ("Date", date), ("Subject", subject)] {
        if let Some(mut value) = value {
            truncate_at_char(&mut value, MAX_HEADER_BYTES);
            push_header(&mut block, name, Some(&value));
        }
    }
    // push_block puts the blank line between the headers and the body.
    push_body(&mut block, message, depth, attachments, not_read);
    push_block(out, &block);
}

/// `Name <address>`, or whichever of the two is known.
fn display_sender(name: Option<&str>, email: Option<&str>) -> String {
    let name = name.filter(|n| !n.is_empty());
    match (name, email) {
        (Some(name), Some(email)) if name != email => format!("{name} <{email}>"),
        (_, Some(email)) => email.to_string(),
        (Some(name), None) => name.to_string(),
        (None, None) => String::new(),
    }
}

fn push_header(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(value) = value.filter(|v| !v.is_empty()) {
        out.push_str(name);
        out.push_str(": ");
        // One line per header: the header block must stay as many lines as
        // it has fields, whatever the value held.
        out.extend(
            value
                .chars()
                .map(|c| if c == '\n' || c == '\r' { ' ' } else { c }),
        );
        out.push('\n');
    }
}

/// Appends a block of text, separated from what is there by a blank line,
/// with `\r\n` turned into `\n` and a final newline.
fn push_block(out: &mut String, text: &str) {
    let text = text.trim_end_matches(['\n', '\r', ' ', '\t']);
    if text.trim().is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    if text.contains('\r') {
        out.push_str(&text.replace("\r\n", "\n").replace('\r', "\n"));
    } else {
        out.push_str(text);
    }
    out.push('\n');
}

fn bracket(id: &str) -> String {
    format!("<{id}>")
}

/// An id without its brackets; none when empty or longer than
/// [`MAX_ID_BYTES`].
fn clean_id(id: &str) -> Option<String> {
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    (!id.is_empty() && id.len() <= MAX_ID_BYTES).then(|| id.to_string())
}

/// The ids of a header as mail-parser lists them.
fn header_ids<'a>(value: &'a HeaderValue<'_>) -> &'a [Cow<'a, str>] {
    match value {
        HeaderValue::Text(id) => std::slice::from_ref(id),
        HeaderValue::TextList(ids) => ids,
        _ => &[],
    }
}

/// Up to `max` distinct ids of a header, the newest (last listed), oldest
/// first. It stops once it has them, so a header's length costs nothing.
fn newest_ids(value: &HeaderValue<'_>, max: usize) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut kept: Vec<String> = header_ids(value)
        .iter()
        .rev()
        .filter_map(|id| clean_id(id))
        .filter(|id| seen.insert(id.clone()))
        .take(max)
        .collect();
    kept.reverse();
    kept
}

/// The `References:` ids kept (see [`MailMessage::references`]): the
/// first names the thread's root, the newest its nearest messages.
fn references(value: &HeaderValue<'_>) -> Vec<String> {
    let root = header_ids(value).iter().find_map(|id| clean_id(id));
    let mut kept = newest_ids(value, MAX_REFERENCES);
    if let Some(root) = root {
        if !kept.contains(&root) {
            // `kept` is oldest first: the root goes before it, and the
            // oldest of the newest makes room when it is full.
            if kept.len() == MAX_REFERENCES {
                kept.remove(0);
            }
            kept.insert(0, root);
        }
    }
    kept
}

fn unfold(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A header's value as text: encoded words decoded, raw 8-bit bytes read
/// as UTF-8 when valid, windows-1252 otherwise, and cut to
/// [`MAX_HEADER_BYTES`].
fn header_text(message: &Message<'_>, name: &str) -> Option<String> {
    let header = message
        .headers()
        .iter()
        .find(|h| h.name().eq_ignore_ascii_case(name))?;
    let raw = message
        .raw_message()
        .get(header.offset_start() as usize..header.offset_end() as usize)?;
    // Encoded words and folding only shrink a value: four times the limit
    // of raw bytes is more than enough to fill it.
    let raw = &raw[..raw.len().min(4 * MAX_HEADER_BYTES)];
    let raw = eight_bit_text(raw);
    let mut value = decode_encoded_words(&raw).trim().to_string();
    truncate_at_char(&mut value, MAX_HEADER_BYTES);
    Some(value)
}

fn truncate_at_char(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

/// RFC 2047 `=?charset?Q|B?...?=` words, decoded with mail-parser by
/// parsing a one-header message made of the value.
pub(crate) fn decode_encoded_words(value: &str) -> String {
    if !value.contains("=?") {
        return unfold(value);
    }
    let mut one = b"Subject: ".to_vec();
    one.extend_from_slice(value.trim().as_bytes());
    one.extend_from_slice(b"\n\n");
    MessageParser::new()
        .parse_headers(&one)
        .and_then(|m| m.subject().map(str::to_string))
        .unwrap_or_else(|| unfold(value))
}

/// Bytes as text: UTF-8 when valid, else windows-1252 (a superset of
/// ISO-8859-1 in practice, and what old list mail without a charset is).
pub fn eight_bit_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => encoding_rs::WINDOWS_1252.decode(bytes).0,
    }
}

/// `"Name" <user@host>`, `user at host (Name)`, `=?iso-8859-1?q?...?=
/// <user@host>`, a bare address.
fn sender(from: &str) -> (String, Option<String>) {
    let (name, email) = text::split_name_email(from);
    let email = email.map(|e| e.trim().to_string());
    (name, email)
}

/// The text of a body part or text attachment. Text parts are decoded by
/// mail-parser; one that declared no charset and was not valid UTF-8 is
/// read again from its raw bytes as windows-1252, HTML is turned into
/// text, and an attachment sent as binary is read as 8-bit text.
fn part_text<'a>(part: &'a MessagePart<'a>, raw_message: Option<&[u8]>) -> Cow<'a, str> {
    match &part.body {
        PartType::Text(text) => {
            let no_charset = part
                .content_type()
                .is_none_or(|ct| ct.attribute("charset").is_none());
            if text.contains('\u{fffd}') && no_charset && part.encoding == Encoding::None {
                if let Some(raw) = raw_message
                    .and_then(|raw| raw.get(part.offset_body as usize..part.offset_end as usize))
                {
                    return Cow::Owned(eight_bit_text(raw).into_owned());
                }
            }
            Cow::Borrowed(text.as_ref())
        }
        PartType::Html(html) => Cow::Owned(html_to_text(html)),
        PartType::Binary(bytes) | PartType::InlineBinary(bytes) => {
            Cow::Owned(eight_bit_text(bytes).into_owned())
        }
        PartType::Message(inner) => Cow::Owned(eight_bit_text(inner.raw_message()).into_owned()),
        PartType::Multipart(_) => Cow::Borrowed(""),
    }
}

/// HTML as plain text, simply: tags dropped (with `script`, `style` and
/// `head` contents), entities decoded, white space collapsed outside
/// `<pre>`, and a line break at `<br>`, `<p>`, `<div>`, `<tr>`, `<li>` and
/// headings, so that tables of numbers keep one row per line.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    let mut pre = 0usize;
    let mut skip_until: Option<&'static str> = None;
    let mut pending_space = false;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            push_html_text(
                &mut out,
                rest,
                pre > 0,
                &mut pending_space,
                skip_until.is_some(),
            );
            break;
        };
        push_html_text(
            &mut out,
            &rest[..lt],
            pre > 0,
            &mut pending_space,
            skip_until.is_some(),
        );
        rest = &rest[lt..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let Some(gt) = rest.find('>') else {
            push_html_text(
                &mut out,
                rest,
                pre > 0,
                &mut pending_space,
                skip_until.is_some(),
            );
            break;
        };
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if let Some(until) = skip_until {
            if closing && name == until {
                skip_until = None;
            }
            continue;
        }
        match name.as_str() {
            "script" if !closing => skip_until = Some("script"),
            "style" if !closing => skip_until = Some("style"),
            "head" if !closing => skip_until = Some("head"),
            "pre" => {
                if closing {
                    pre = pre.saturating_sub(1);
                } else {
                    pre += 1;
                }
                new_line(&mut out);
                pending_space = false;
            }
            "br" => {
                out.push('\n');
                pending_space = false;
            }
            "p" | "div" | "tr" | "li" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "table"
            | "blockquote" | "ul" | "ol" | "hr" => {
                new_line(&mut out);
                pending_space = false;
            }
            "td" | "th" if !closing => pending_space = true,
            _ => {}
        }
    }
    let trimmed: Vec<&str> = out.lines().map(str::trim_end).collect();
    let mut text = trimmed.join("\n");
    text.push('\n');
    text
}

fn new_line(out: &mut String) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

fn push_html_text(out: &mut String, text: &str, pre: bool, pending_space: &mut bool, skip: bool) {
    if skip || text.is_empty() {
        return;
    }
    let text = decode_entities(text);
    if pre {
        out.push_str(&text);
        return;
    }
    for (i, word) in text.split_ascii_whitespace().enumerate() {
        let space_before = i > 0 || text.starts_with(|c: char| c.is_ascii_whitespace());
        if (space_before || *pending_space) && !out.is_empty() && !out.ends_with(['\n', ' ']) {
            out.push(' ');
        }
        *pending_space = false;
        out.push_str(word);
    }
    if text.ends_with(|c: char| c.is_ascii_whitespace()) {
        *pending_space = true;
    }
}

fn decode_entities(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
            .map(|i| i + 1);
        let decoded = end.filter(|&e| rest[e..].starts_with(';')).and_then(|e| {
            let entity = &rest[1..e];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => entity.strip_prefix('#').and_then(|num| {
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => num.parse().ok(),
                    };
                    code.and_then(char::from_u32)
                }),
            };
            c.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_mbox_message_and_text() {
        let cases: [(Option<&str>, &[u8], Kind); 7] = [
            (
                None,
                b"From a at b.org  Thu Apr 20 09:46:56 2006\nFrom: a\n\nx\n",
                Kind::Mbox,
            ),
            (
                None,
                b"From my tests it looks slower\nthan before\n",
                Kind::Text,
            ),
            (
                None,
                b"From: A <a@b.c>\nSubject: s\nMIME-Version: 1.0\n\nbody\n",
                Kind::Message,
            ),
            (
                Some("x.eml"),
                b"From: A <a@b.c>\nSubject: s\n\nbody\n",
                Kind::Message,
            ),
            (
                Some("x.txt"),
                b"From: A <a@b.c>\nSubject: s\n\nbody\n",
                Kind::Text,
            ),
            (None, b"Setup: dual P3\nKernels: 2.4\n\nbody\n", Kind::Text),
            (None, b"super-smack -d mysql x 10 10\n", Kind::Text),
        ];
        for (i, (name, bytes, kind)) in cases.into_iter().enumerate() {
            assert_eq!(detect(name, bytes), kind, "case {i}");
        }
    }

    #[test]
    fn splits_at_envelope_lines_after_blank_lines_only() {
        let mbox = b"From a at b.org  Thu Apr 20 09:46:56 2006\nFrom: a\n\nfirst\nFrom here on it is prose\n\nFrom my tests\n\nFrom c at d.org  Fri Apr 21 10:00:00 2006\nFrom: c\n\nsecond\n\n";
        let messages: Vec<&[u8]> = split(mbox).collect();
        assert_eq!(messages.len(), 2);
        assert!(
            messages[0].ends_with(b"From my tests\n"),
            "{:?}",
            String::from_utf8_lossy(messages[0])
        );
        assert_eq!(messages[1], b"From: c\n\nsecond\n");
    }

    #[test]
    fn decodes_latin1_quoted_printable_and_obfuscated_sender() {
        let raw = b"From: hadara at bsd.ee (Sven Petai)\nDate: Tue, 4 Apr 2006 17:42:05 +0300\nSubject: =?iso-8859-1?q?r=E9sultats?=\nMessage-ID: <a@b>\nReferences: <r1@x> <r2@x>\nIn-Reply-To: <r2@x>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nd=E9j=E0 vu, a very long line that was =\nwrapped\n";
        let mail = decode(raw).unwrap();
        assert_eq!(mail.author.as_deref(), Some("Sven Petai"));
        assert_eq!(mail.email.as_deref(), Some("hadara@bsd.ee"));
        assert_eq!(mail.subject.as_deref(), Some("résultats"));
        assert_eq!(mail.message_id.as_deref(), Some("a@b"));
        assert_eq!(mail.in_reply_to.as_deref(), Some("r2@x"));
        assert_eq!(mail.references, ["r1@x", "r2@x"]);
        assert!(mail.timestamp.is_some());
        assert_eq!(
            mail.text,
            "From: Sven Petai <hadara@bsd.ee>\nDate: Tue, 4 Apr 2006 17:42:05 +0300\nSubject: résultats\nMessage-ID: <a@b>\nIn-Reply-To: <r2@x>\nReferences: <r1@x> <r2@x>\n\ndéjà vu, a very long line that was wrapped\n"
        );
    }

    #[test]
    fn undeclared_eight_bit_body_is_windows_1252() {
        let mail = decode(b"From: a@b.c\nSubject: s\n\ncaf\xe9 \x93quoted\x94\n").unwrap();
        assert!(mail.text.ends_with("café “quoted”\n"), "{}", mail.text);
    }

    #[test]
    fn base64_body_and_text_attachment() {
        let raw = b"From: A <a@b.c>\nSubject: s\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=XX\n\n--XX\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\naGVsbG8gd29ybGQK\n--XX\nContent-Type: application/octet-stream; name=run.log\nContent-Disposition: attachment; filename=run.log\n\nselect_index 1 2 3\n--XX\nContent-Type: image/png; name=x.png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n--XX--\n";
        let mail = decode(raw).unwrap();
        assert_eq!(mail.attachments, ["run.log"]);
        assert!(
            mail.text
                .ends_with("\n\nhello world\n\n--- attachment: run.log ---\nselect_index 1 2 3\n"),
            "{}",
            mail.text
        );
    }

    #[test]
    fn html_only_becomes_text_with_line_breaks() {
        let html = "<html><head><style>p{}</style></head><body><p>Results:</p><table><tr><td>select_index</td><td>200000</td></tr><tr><td>a &amp; b&nbsp;&lt;c&gt; &#233;</td></tr></table>one<br>two<pre>  keep   this\n  too</pre></body></html>";
        assert_eq!(
            html_to_text(html),
            "Results:\nselect_index 200000\na & b <c> é\none\ntwo\n  keep   this\n  too\n"
        );
    }

    #[test]
    fn refuses_what_is_no_mail() {
        assert_eq!(decode(b"  \n"), Err(MailError::Empty));
        assert!(matches!(
            decode(b"just prose, no headers\n"),
            Err(MailError::NoHeaders | MailError::Unreadable)
        ));
        assert_eq!(decode(b"X-Junk: 1\n\nbody\n"), Err(MailError::NoHeaders));
    }
}

#[cfg(test)]
mod bounds_tests {
    use std::fmt::Write as _;
    use std::time::{Duration, Instant};

    use super::*;

    /// A mail answering `<parent@x>`, whose References list `count`
    /// distinct ids, `<r0@x>` (the root) first and `<r{count-1}@x>` last.
    fn mail_with_references(count: usize) -> Vec<u8> {
        let mut raw = String::from(
            "From: A <a@b.c>\nSubject: s\nMessage-ID: <me@x>\nIn-Reply-To: <parent@x>\nReferences:",
        );
        for i in 0..count {
            let _ = write!(raw, " <r{i}@x>");
            if i % 8 == 7 {
                raw.push('\n');
            }
        }
        raw.push_str("\n\nhello\n");
        raw.into_bytes()
    }

    #[test]
    fn a_huge_references_header_keeps_the_root_and_the_newest() {
        let raw = mail_with_references(200_000);
        assert!(raw.len() < 3_000_000);
        let start = Instant::now();
        let mail = decode(&raw).unwrap();
        let took = start.elapsed();
        assert!(took < Duration::from_secs(1), "decoding took {took:?}");
        assert_eq!(mail.references.len(), MAX_REFERENCES);
        assert_eq!(mail.references[0], "r0@x");
        let newest: Vec<String> = (200_000 - (MAX_REFERENCES - 1)..200_000)
            .map(|i| format!("r{i}@x"))
            .collect();
        assert_eq!(mail.references[1..], newest[..]);
        assert_eq!(mail.in_reply_to.as_deref(), Some("parent@x"));
        let header = mail
            .text
            .lines()
            .find(|l| l.starts_with("References:"))
            .unwrap();
        assert!(
            header.len() < MAX_REFERENCES * (MAX_ID_BYTES + 3) + 12,
            "{}",
            header.len()
        );
    }

    /// A mail forwarding a mail that forwards ... `depth` deep, each
    /// level's body saying its depth.
    fn forwards(depth: usize) -> Vec<u8> {
        let mut raw = String::new();
        for level in 0..depth {
            let _ = write!(
                raw,
                "From: L{level} <l{level}@x>\nSubject: level {level}\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b{level}\"\n\n--b{level}\nContent-Type: text/plain\n\nbody of level {level}\n--b{level}\nContent-Type: message/rfc822\n\n"
            );
        }
        raw.push_str("From: Last <last@x>\nSubject: last\n\nthe innermost text\n");
        for level in (0..depth).rev() {
            let _ = write!(raw, "\n--b{level}--\n");
        }
        raw.into_bytes()
    }

    #[test]
    fn a_forwarded_message_is_read_with_its_headers() {
        let mail = decode(&forwards(1)).unwrap();
        assert!(
            mail.text.ends_with("\n\nbody of level 0\n\n--- forwarded message ---\nFrom: Last <last@x>\nSubject: last\n\nthe innermost text\n"),
            "{}",
            mail.text
        );
        assert_eq!(mail.author.as_deref(), Some("L0"));
    }

    #[test]
    fn forwards_are_read_only_so_deep() {
        let mail = decode(&forwards(MAX_FORWARD_DEPTH + 2)).unwrap();
        assert_eq!(
            mail.text.matches("--- forwarded message ---").count(),
            MAX_FORWARD_DEPTH - 1,
            "{}",
            mail.text
        );
        assert!(mail
            .text
            .contains(&format!("body of level {}", MAX_FORWARD_DEPTH - 1)));
        assert!(!mail.text.contains("the innermost text"));
        // What is left out is said, once: the forwards under it are not
        // looked at.
        assert_eq!(
            mail.not_read,
            [format!("a forwarded message (message/rfc822) nested {MAX_FORWARD_DEPTH} deep was not read: forwards are read {} deep at most", MAX_FORWARD_DEPTH - 1)]
        );
        assert_eq!(
            decode(&forwards(MAX_FORWARD_DEPTH - 1)).unwrap().not_read,
            Vec::<String>::new()
        );
        // Far deeper nesting is still read without harm.
        let deep = forwards(5_000);
        assert_eq!(decode(&deep).unwrap().not_read.len(), 1);
    }

    #[test]
    fn overlong_ids_and_headers_are_bounded() {
        let long_id = format!("<{}@x>", "i".repeat(MAX_ID_BYTES));
        let subject = "é".repeat(MAX_HEADER_BYTES);
        let raw = format!("From: A <a@b.c>\nSubject: {subject}\nMessage-ID: {long_id}\nIn-Reply-To: {long_id}\nReferences: <ok@x> {long_id}\n\nhello\n");
        let mail = decode(raw.as_bytes()).unwrap();
        assert_eq!(mail.message_id, None);
        assert_eq!(mail.in_reply_to, None);
        assert_eq!(mail.references, ["ok@x"]);
        let kept = mail.subject.unwrap();
        assert!(kept.len() <= MAX_HEADER_BYTES && kept.len() > MAX_HEADER_BYTES - 4);
        assert!(kept.chars().all(|c| c == 'é'));
    }
}
