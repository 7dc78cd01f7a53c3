//! CSV cells that a spreadsheet opens as text, never as a formula.
//!
//! Both CSVs benchlog writes (`/compare.csv` and `benchlog export --csv`)
//! carry what people posted: labels, authors, attributes. Excel,
//! LibreOffice and Google Sheets run a cell that starts with `=`, `+`, `-`
//! or `@` (and some a tab or carriage return before one) as a formula, so a
//! label like `=HYPERLINK(...)` would act in the reader's spreadsheet.
//! As OWASP recommends ("CSV Injection"), such a cell gets a leading `'`,
//! which spreadsheets take as "text follows" and hide; the csv writer still
//! quotes whatever needs quoting, so the file stays RFC 4180. A spreadsheet
//! set to `;` as its separator (Excel in much of Europe) starts a cell after
//! every `;` of an unquoted cell too, so each such start is neutralised the
//! same way; `|` (a DDE call) and the full-width `＝＋－＠`, which some
//! spreadsheets read as their ASCII forms, count as formula starts.
//!
//! Numbers are left alone, or `-12.5` would stop being a number: a cell is a
//! number when all of it parses as a finite `f64` (Rust's grammar: an
//! optional sign, digits with an optional point, an optional exponent, so
//! `-12.5`, `+3`, `1e-5`, but not `-1+2`, `-inf` or ` -3`).

use std::borrow::Cow;
use std::io::Write;

/// The characters a spreadsheet may read as the start of a formula.
const FORMULA_STARTS: [char; 11] = [
    '=', '+', '-', '@', '\t', '\r', '|', '\u{ff1d}', '\u{ff0b}', '\u{ff0d}', '\u{ff20}',
];

/// Where a spreadsheet that splits cells at `;` starts another cell.
const SECOND_SEPARATOR: char = ';';

/// `cell`, with a `'` before every place a spreadsheet would otherwise
/// start a formula: its beginning, and each `;`'s end.
pub fn neutralise(cell: &str) -> Cow<'_, str> {
    let risky = |piece: &str| piece.starts_with(FORMULA_STARTS);
    if !cell.split(SECOND_SEPARATOR).any(risky) || cell.parse::<f64>().is_ok_and(f64::is_finite) {
        return Cow::Borrowed(cell);
    }
    let mut safe = String::with_capacity(cell.len() + 2);
    for (index, piece) in cell.split(SECOND_SEPARATOR).enumerate() {
        if index > 0 {
            safe.push(SECOND_SEPARATOR);
        }
        if risky(piece) {
            safe.push('\'');
        }
        safe.push_str(piece);
    }
    Cow::Owned(safe)
}

/// Writes one record with every cell [`neutralise`]d: the way every CSV
/// row of benchlog is written, header included (attribute keys are
/// people's words too).
pub fn write_record<W: Write, I>(writer: &mut csv::Writer<W>, record: I) -> csv::Result<()>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    writer.write_record(
        record
            .into_iter()
            .map(|cell| neutralise(cell.as_ref()).into_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::neutralise;

    #[test]
    fn formula_starts_get_a_quote_and_numbers_stay() {
        let cases = [
            (
                "=HYPERLINK(\"http://x\",\"y\")",
                "'=HYPERLINK(\"http://x\",\"y\")",
            ),
            ("+1+1", "'+1+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
            ("--fast", "'--fast"),
            ("-", "'-"),
            ("-inf", "'-inf"),
            ("-NaN", "'-NaN"),
            ("-12.5", "-12.5"),
            ("+3", "+3"),
            ("1e-5", "1e-5"),
            ("-1.5E+3", "-1.5E+3"),
            ("ULE + libthr", "ULE + libthr"),
            ("a=b", "a=b"),
            ("'=already", "'=already"),
            ("a;=1+1", "a;'=1+1"),
            ("=1;-2;x", "'=1;'-2;x"),
            ("ULE; libthr", "ULE; libthr"),
            ("|calc", "'|calc"),
            ("\u{ff1d}1+1", "'\u{ff1d}1+1"),
            ("\u{ff20}SUM(A1)", "'\u{ff20}SUM(A1)"),
            (";", ";"),
            ("", ""),
        ];
        for (index, (cell, expected)) in cases.into_iter().enumerate() {
            assert_eq!(neutralise(cell), expected, "case {index}: {cell:?}");
        }
    }
}
