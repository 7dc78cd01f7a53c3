//! A bonnie++ 1.0x report whose line breaks a page lost (a syntax
//! highlighter's copy, say): the command, the headers, the rows and the
//! CSV line all on one line, each line run into the next:
//!
//! ```text
//! # bonnie++ -d /data/tmpVersion 1.03d       ------Sequential Output------ ...
//! ...Machine        Size K/sec %CP ... /sec %CPserver           2G 10862  91 ...
//! ```
//!
//! The line is cut where bonnie++ starts its lines: before `Version` and
//! `Machine`, before the indent of the decorations and of the `files`
//! header, after a header's last `%CP`, and before the CSV record, which
//! starts with the machine name of the row above it.

/// Shortest line worth cutting: a header and a row at the least.
const MIN_GLUED_LEN: usize = 200;

/// How many bytes of a line may be searched for its cuts.
const MAX_GLUED_LEN: usize = 8192;

/// Fields of a bonnie++ 1.0x CSV record.
const V1_FIELDS: usize = 27;

/// The lines of a glued report, or `None` when `text` is not one.
pub(super) fn unglue(text: &str) -> Option<Vec<String>> {
    if text.len() < MIN_GLUED_LEN
        || text.len() > MAX_GLUED_LEN
        || !text.contains("------Sequential Output")
        || !text.contains("-Per Chr-")
        || text.contains("Concurrency")
    {
        return None;
    }
    let mut cuts: Vec<usize> = Vec::new();
    for mark in ["Version ", "Machine "] {
        cuts.extend(
            text.match_indices(mark)
                .map(|(at, _)| at)
                .filter(|&at| at > 0),
        );
    }
    for mark in [
        "-Per Chr-",
        "------Sequential Create",
        "-Create--",
        "files ",
    ] {
        if let Some(at) = text.find(mark) {
            let indent = text[..at].len() - text[..at].trim_end_matches(' ').len();
            if indent >= 5 && at > indent {
                cuts.push(at - indent);
            }
        }
    }
    for (at, cp) in text.match_indices("%CP") {
        let after = at + cp.len();
        let rest = text[after..].trim_start_matches(' ');
        let more_header = ["K/sec", "/sec", "M/sec", "%CP"]
            .iter()
            .any(|h| rest.starts_with(h));
        if !more_header && after < text.len() {
            cuts.push(after);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut pieces: Vec<String> = Vec::new();
    let mut from = 0;
    for &at in &cuts {
        if at > from && text.is_char_boundary(at) {
            pieces.push(text[from..at].to_string());
            from = at;
        }
    }
    pieces.push(text[from..].to_string());
    split_csv(&mut pieces);
    (pieces.len() >= 4).then_some(pieces)
}

/// Cuts the CSV record off the row it was run into, and the text run
/// into the record's last field off the record.
fn split_csv(pieces: &mut Vec<String>) {
    let Some(header) = pieces.iter().position(|p| p.starts_with("Machine ")) else {
        return;
    };
    let Some(name) = pieces
        .get(header + 1)
        .and_then(|row| row.split_whitespace().next())
        .map(|name| format!("{name},"))
    else {
        return;
    };
    let Some((k, at)) = pieces
        .iter()
        .enumerate()
        .skip(header + 2)
        .find_map(|(k, p)| p.find(&name).filter(|&at| at > 0).map(|at| (k, at)))
    else {
        return;
    };
    let record = pieces[k].split_off(at);
    let mut fields = 0;
    let mut end = record.len();
    for (i, b) in record.bytes().enumerate() {
        if b == b',' {
            fields += 1;
            if fields == V1_FIELDS - 1 {
                let last = &record[i + 1..];
                let figure = last
                    .bytes()
                    .take_while(|b| b.is_ascii_digit() || matches!(b, b'.' | b'+'))
                    .count();
                end = i + 1 + figure;
                break;
            }
        }
    }
    let (record, rest) = record.split_at(end);
    let mut tail = vec![record.to_string()];
    if !rest.is_empty() {
        tail.push(rest.to_string());
    }
    pieces.splice(k + 1..k + 1, tail);
}

#[cfg(test)]
mod tests {
    use super::*;

    const GLUED: &str = "# bonnie++ -d /data/tmpVersion 1.03d       ------Sequential Output------ --Sequential Input- --Random-                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CPserver           2G 10862  91 63699  27 29931  12 11483  91 83455  22 196.7   0                    ------Sequential Create------ --------Random Create--------                    -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--              files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP                 16  2693  67 +++++ +++  3467  37  2948  47 +++++ +++  3131  38server,2G,10862,91,63699,27,29931,12,11483,91,83455,22,196.7,0,16,2693,67,+++++,+++,3467,37,2948,47,+++++,+++,3131,38## sync# dd if=/dev/zero bs=16384";

    #[test]
    fn a_report_run_into_one_line_is_cut_into_its_lines() {
        let pieces = unglue(GLUED).expect("cut");
        assert_eq!(pieces[0], "# bonnie++ -d /data/tmp");
        assert!(pieces[1].starts_with("Version 1.03d "));
        assert!(pieces[2].starts_with("                    -Per Chr-"));
        assert!(pieces[3].starts_with("Machine ") && pieces[3].ends_with("/sec %CP"));
        assert!(pieces[4].starts_with("server           2G 10862"));
        assert!(pieces
            .iter()
            .any(|p| p.starts_with("              files  /sec %CP")));
        assert!(pieces.iter().any(|p| p
            == "                 16  2693  67 +++++ +++  3467  37  2948  47 +++++ +++  3131  38"));
        assert!(pieces
            .iter()
            .any(|p| p.starts_with("server,2G,") && p.ends_with(",3131,38")));
        assert_eq!(
            pieces.last().map(String::as_str),
            Some("## sync# dd if=/dev/zero bs=16384")
        );
    }

    #[test]
    fn lines_with_their_breaks_are_left() {
        assert_eq!(
            unglue(
                "Version 1.03d       ------Sequential Output------ --Sequential Input- --Random-"
            ),
            None
        );
        assert_eq!(unglue(&"word ".repeat(60)), None);
    }
}
