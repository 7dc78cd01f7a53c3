//! The order of an attribute's values along a comparison's x axis
//! (`x=os_version`): version order, in one comparator, [`version_cmp`].
//! Dates written year first (`2006-06-13`, `2001-05-17 15:13:54`) are in
//! time order by the same rule, their fields being numbers.

use std::cmp::Ordering;

/// The day a date gives, `YYYY-MM-DD`, which [`version_cmp`] puts in time
/// order: a year-first date's (`1998-10-06 18:04:41`, sql-bench's), or a
/// mail's Date header's (`Wed, 5 Apr 2006 13:41:02 +0100`, pipermail's
/// `Tue Jun  6 12:03:36 CDT 2006`), the day as its sender's clock had it.
/// `None` for anything else.
pub fn day_of(date: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let date = date.trim();
    let bytes = date.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes
            .get(range)
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    let year_first = digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10);
    if year_first {
        return Some(date[..10].to_owned());
    }
    let words: Vec<&str> = date
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let month = words.iter().find_map(|w| {
        let w = w.get(..3)?.to_ascii_lowercase();
        MONTHS.iter().position(|m| *m == w)
    })?;
    let number = |w: &&str, len: std::ops::RangeInclusive<usize>| {
        len.contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit())
    };
    let year = words.iter().find(|w| number(w, 4..=4))?;
    let day: u32 = words.iter().find(|w| number(w, 1..=2))?.parse().ok()?;
    (1..=31)
        .contains(&day)
        .then(|| format!("{year}-{:02}-{day:02}", month + 1))
}

/// One piece of a version string: a run of digits or of letters.
/// Everything else (`.`, `-`, `_`, `+`, spaces) only separates pieces.
#[derive(Debug, Clone, Copy)]
enum Piece<'a> {
    Number(&'a str),
    Word(&'a str),
}

/// The pieces of `text`, in order.
fn pieces(text: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = text;
    std::iter::from_fn(move || {
        rest = rest.trim_start_matches(|c: char| !c.is_alphanumeric());
        let first = rest.chars().next()?;
        let digits = first.is_ascii_digit();
        let end = rest
            .find(|c: char| !c.is_alphanumeric() || c.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(if digits {
            Piece::Number(piece)
        } else {
            Piece::Word(piece)
        })
    })
}

/// Where a version ends: the release itself. A piece ranked below it
/// comes before the release it qualifies (`2.6.16-rc1` < `2.6.16`), one
/// ranked above it after (`6.1-RELEASE` < `6.1-STABLE`).
const RELEASE: u8 = 6;

/// The rank of a word: the known stages of a release, in the order they
/// come (FreeBSD's branch: `CURRENT` is the development head a release is
/// branched from, then `PRERELEASE`, `BETA`, `RC`, `RELEASE`, and
/// `STABLE` the branch after it), and every other word after them all (a
/// build or patch suffix: `-log`, `-smp`, `-p3`).
fn word_rank(word: &str) -> u8 {
    match word.to_ascii_lowercase().as_str() {
        "current" | "head" | "dev" | "devel" | "snapshot" | "nightly" => 0,
        "prerelease" | "pre" => 1,
        "alpha" => 2,
        "beta" => 3,
        "gamma" => 4,
        "rc" => 5,
        "release" | "ga" | "final" => RELEASE,
        "stable" => RELEASE + 1,
        _ => RELEASE + 2,
    }
}

/// A number ranks above every word at the same place: `2.6.16.1` is
/// after `2.6.16-rc1` and after `2.6.16-smp`.
const NUMBER: u8 = RELEASE + 3;

fn rank(piece: Option<Piece>) -> u8 {
    match piece {
        None => RELEASE,
        Some(Piece::Word(word)) => word_rank(word),
        Some(Piece::Number(_)) => NUMBER,
    }
}

/// Two numbers by value, however long (leading zeros aside).
fn number_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Version order: `2.6.9` < `2.6.10` < `2.6.16-rc1` < `2.6.16`;
/// `6.0-RELEASE` < `6.1-PRERELEASE` < `6.1-RC1` < `6.1-RELEASE` <
/// `6.1-STABLE` < `7.0-CURRENT`; `5.1.12-beta` < `5.1.12`.
///
/// The rule: both are cut into pieces, runs of digits and runs of
/// letters (anything else separates them), compared in turn. At each
/// place the pieces are ranked first: a word by the release stage it
/// names ([`word_rank`]: `CURRENT` < `PRERELEASE` < `ALPHA` < `BETA` <
/// `RC` < `RELEASE` < `STABLE` < any other word), a number above every
/// word, and the end of a version as a release, so that what follows a
/// release may come before it (`-rc1`) or after it (`.1`, `-STABLE`,
/// `-p3`; the end comes before a word of the release's own rank, `6.1`
/// before `6.1-RELEASE`). Pieces of one rank compare as numbers by value,
/// words case aside. Values equal by that (`6.1RC1` and `6.1-rc1`) fall back to
/// the order of their bytes, so no two different values are ever equal.
pub fn version_cmp(a: &str, b: &str) -> Ordering {
    let (mut left, mut right) = (pieces(a), pieces(b));
    loop {
        let (l, r) = (left.next(), right.next());
        if l.is_none() && r.is_none() {
            return a.cmp(b);
        }
        let order = rank(l).cmp(&rank(r)).then_with(|| match (l, r) {
            (Some(Piece::Number(l)), Some(Piece::Number(r))) => number_cmp(l, r),
            (Some(Piece::Word(l)), Some(Piece::Word(r))) => l
                .chars()
                .map(|c| c.to_ascii_lowercase())
                .cmp(r.chars().map(|c| c.to_ascii_lowercase())),
            // The end is the empty word of the release's rank: a plain
            // lexicographic order of pieces, so a total one.
            (None, _) => Ordering::Less,
            (_, None) => Ordering::Greater,
            // A number and a word never share a rank.
            _ => Ordering::Equal,
        });
        if order.is_ne() {
            return order;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each list is in version order, as its project numbered them.
    #[test]
    fn real_versions_are_in_release_order() {
        let lists: [&[&str]; 5] = [
            // Linux: release candidates before their release, stable
            // updates and distribution builds after it.
            &[
                "2.0.35",
                "2.2.1",
                "2.2.10",
                "2.2.16-22smp",
                "2.4.0",
                "2.4.6.pre3",
                "2.4.6",
                "2.6.9",
                "2.6.10",
                "2.6.16-rc1",
                "2.6.16-rc2",
                "2.6.16",
                "2.6.16.1",
                "2.6.18-8.el5",
                "3.10.0-1160.el7.x86_64",
            ],
            // FreeBSD: a branch's stages, then the next branch's head.
            &[
                "6.0-BETA5",
                "6.0-RELEASE",
                "6.1-PRERELEASE",
                "6.1-BETA1",
                "6.1-RC1",
                "6.1-RC2",
                "6.1-RELEASE",
                "6.1-RELEASE-p3",
                "6.1-STABLE",
                "7.0-CURRENT",
                "12.0-RELEASE-p3",
            ],
            // MySQL: maturity suffixes.
            &[
                "3.23.58",
                "4.1.22",
                "5.0.27",
                "5.0.27-log",
                "5.1.12-beta",
                "5.1.12",
                "5.1.30-rc",
                "5.1.30",
            ],
            // Year-first dates are in time order.
            &[
                "1999-12-31",
                "2001-05-17 09:03:04",
                "2001-05-17 15:13:54",
                "2001-11-02",
                "2006-06-13",
            ],
            // Numbers by value, not as text.
            &["8", "16", "128", "1024"],
        ];
        for (list_index, list) in lists.iter().enumerate() {
            for (i, a) in list.iter().enumerate() {
                for (j, b) in list.iter().enumerate() {
                    assert_eq!(
                        version_cmp(a, b),
                        i.cmp(&j),
                        "list {list_index}: {a} against {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn dates_give_their_day() {
        let cases = [
            ("Wed, 5 Apr 2006 13:41:02 +0100", Some("2006-04-05")),
            ("Sat, 22 Sep 2001 22:20:13 -0700 (PDT)", Some("2001-09-22")),
            ("04 Feb 2002 01:33:19 +0200", Some("2002-02-04")),
            ("Tue Jun  6 12:03:36 CDT 2006", Some("2006-06-06")),
            ("1998-10-06 18:04:41", Some("1998-10-06")),
            ("2000-12-05 5:18:45", Some("2000-12-05")),
            ("07/12/2013 07:20 PM", None),
            ("yesterday", None),
            ("", None),
        ];
        for (index, (date, day)) in cases.into_iter().enumerate() {
            assert_eq!(day_of(date).as_deref(), day, "case {index}: {date}");
        }
    }

    #[test]
    fn spellings_of_one_version_fall_back_to_byte_order() {
        // 6.1RC1 and 6.1-RC1 are the same version; a total order still
        // tells them apart, the same way every time.
        assert_eq!(version_cmp("6.1RC1", "6.1-RC1"), "6.1RC1".cmp("6.1-RC1"));
        assert_eq!(version_cmp("6.1-rc1", "6.1-RC1"), Ordering::Greater);
        assert_eq!(version_cmp("6.1", "6.1"), Ordering::Equal);
        // The end of a version comes before a word of the release's
        // rank: 6.1 before 6.1-RELEASE.
        assert_eq!(version_cmp("6.1", "6.1-RELEASE"), Ordering::Less);
        // Words no stage names, case aside; then bytes.
        assert_eq!(version_cmp("ext3", "XFS"), Ordering::Less);
        assert_eq!(version_cmp("", "1"), Ordering::Less);
    }
}
