//! Quoted-printable in a raw pasted message: whether the input is
//! encoded at all (ordinary text has a `=` at a line's end now and then,
//! and `key_buffer=128M`), and the decoding of the lines it touched: soft
//! line breaks joined, the escapes an encoder writes (`=3D`, `=20`,
//! `=C3=A9`) decoded, then markup undone on the decoded text.

use std::borrow::Cow;

use super::{undo_line_markup, MARKUP_BYTES};
use crate::text::marks::MarkedBytes;

/// `Content-Transfer-Encoding: quoted-printable`, any case.
#[inline]
pub(super) fn is_encoding_header(line: &str) -> bool {
    line.get(..26)
        .is_some_and(|h| h.eq_ignore_ascii_case("content-transfer-encoding:"))
        && line.to_ascii_lowercase().contains("quoted-printable")
}

/// Joins what soft breaks cut, decodes the escapes, then undoes markup.
/// `bits` marks at least [`MARKUP_BYTES`]: the decoded lines, which the
/// input's marks do not cover, are marked again with it (one pass rather
/// than a search per markup byte).
pub(super) fn undo_quoted_printable(
    raw: &[(usize, &str)],
    bits: &MarkedBytes,
    rewritten: &mut Vec<(usize, String)>,
    left_out: &mut Vec<usize>,
) {
    let mut i = 0;
    while i < raw.len() {
        let (first, text) = raw[i];
        let mut line: Cow<'_, str> = Cow::Borrowed(text);
        while is_soft_break(&line)
            && raw
                .get(i + 1)
                .is_some_and(|&(next, _)| next == raw[i].0 + 1)
        {
            let mut joined = line.into_owned();
            joined.pop();
            joined.push_str(raw[i + 1].1);
            line = Cow::Owned(joined);
            i += 1;
            left_out.push(raw[i].0 + 1);
        }
        if let Some(decoded) = decode_qp_escapes(&line) {
            line = Cow::Owned(decoded);
        }
        let mark = bits.mark_of(line.as_bytes());
        if mark & bits.mask(MARKUP_BYTES) != 0 {
            let holds = |byte: u8| mark & bits.mask(&[byte]) != 0;
            undo_line_markup(first, line, &holds, rewritten);
        } else if let Cow::Owned(changed) = line {
            rewritten.push((first, changed));
        }
        i += 1;
    }
}

/// A line ending in `=` that is not an RFC 2047 encoded word (`=?..?=`).
#[inline]
pub(super) fn is_soft_break(line: &str) -> bool {
    line.ends_with('=') && !(line.ends_with("?=") && line.contains("=?"))
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Quoted-printable only when it shows: several `=XX` escapes, or the
/// header that says so, or soft breaks at the width encoders wrap at (76).
/// Ordinary text has a line ending in `=` now and then (`key_buffer =`,
/// sql-bench's `csys =` wrapped by a mailer) and no escapes: a ` =` end
/// proves nothing, and a line longer than 76 ending in `=` was never
/// encoded.
pub(super) fn looks_quoted_printable(equals: &[(usize, &str)], declared: bool) -> bool {
    let mut escapes = 0;
    let mut soft_breaks = 0;
    let mut wide_soft_breaks = 0;
    let mut long_soft_breaks = 0;
    for &(_, line) in equals {
        let b = line.as_bytes();
        escapes += telling_escapes(b);
        if is_soft_break(line) {
            soft_breaks += 1;
            if line.len() > 76 {
                long_soft_breaks += 1;
            } else if line.len() >= 70 && !line.ends_with(" =") {
                wide_soft_breaks += 1;
            }
        }
    }
    let seen = escapes + soft_breaks;
    (declared && seen > 0)
        || (escapes >= 2 && seen >= 3)
        || (wide_soft_breaks >= 2 && long_soft_breaks == 0 && wide_soft_breaks * 2 >= soft_breaks)
}

/// The escapes only an encoder writes: `=3D`, a high byte (`=E9`, not
/// `=99`), and
/// `=20`/`=09` at the end of a line or before a soft break. `key_buffer=128M`
/// and `max_connections=200` hold no escape.
fn telling_escapes(b: &[u8]) -> usize {
    let mut n = 0;
    for (i, _) in b.iter().enumerate().filter(|&(_, &c)| c == b'=') {
        let Some(w) = b.get(i..i + 3) else {
            break;
        };
        let at_end = matches!(&b[i + 3..], [] | [b'=']);
        n += usize::from(match (w[1], w[2]) {
            (b'3', b'D') => true,
            (b'2', b'0') | (b'0', b'9') => at_end,
            (hi, lo) => high_byte_with_letter(hi, lo),
        });
    }
    n
}

/// A high byte with a letter in it (`=E9`, `=C3`, `=A9`): one an encoder
/// wrote. Every UTF-8 sequence starts with one (`=C2`-`=F4`), while `=99`
/// is far more often `--percentile=99`.
fn high_byte_with_letter(hi: u8, lo: u8) -> bool {
    matches!(hi, b'8'..=b'9' | b'A'..=b'F')
        && hex(lo).is_some()
        && (hi.is_ascii_uppercase() || lo.is_ascii_uppercase())
}

/// `=3D` -> `=`, `=20` -> space, `=C3=A9` -> `é`, `=E2=80=99` -> `’`:
/// the escapes an encoder writes. Anything else is kept: an encoder never
/// writes a digit, a letter or most controls as an escape, so `=12` in
/// `key_buffer=128M` and `=38` in `key_buffer=384M` are text with a `=`
/// in it, whatever else in the input is quoted-printable. A high byte
/// with no letter (`=80`, `=99`) is decoded only right after another
/// decoded high byte, as inside a UTF-8 sequence.
pub(super) fn decode_qp_escapes(line: &str) -> Option<String> {
    let b = line.as_bytes();
    let digits = |i: usize| Some((*b.get(i + 1)?, *b.get(i + 2)?));
    // Most lines with a `=` hold no escape: nothing is built for them. The
    // text between escapes is copied a piece at a time, not byte by byte.
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0;
    // Where the last decoded high byte's escape ended.
    let mut high_until = None;
    for at in memchr::memchr_iter(b'=', b) {
        // The two hex digits an escape took are no `=`; this keeps the
        // reading from the left even so.
        if at < copied {
            continue;
        }
        let Some((hi, lo)) = digits(at) else {
            continue;
        };
        let (Some(h), Some(l)) = (hex(hi), hex(lo)) else {
            continue;
        };
        let byte = h * 16 + l;
        let written = match byte {
            b'=' | b' ' | b'\t' => true,
            0x80.. => high_byte_with_letter(hi, lo) || high_until == Some(at),
            _ => false,
        };
        if !written {
            continue;
        }
        if byte >= 0x80 {
            high_until = Some(at + 3);
        }
        let out = out.get_or_insert_with(|| Vec::with_capacity(b.len()));
        out.extend_from_slice(b.get(copied..at).unwrap_or_default());
        out.push(byte);
        copied = at + 3;
    }
    let mut out = out?;
    out.extend_from_slice(b.get(copied..).unwrap_or_default());
    // Mail of the tools' years is often Latin-1; a byte that is not UTF-8
    // is read as Latin-1 rather than lost.
    Some(match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => e.into_bytes().iter().map(|&c| char::from(c)).collect(),
    })
}
