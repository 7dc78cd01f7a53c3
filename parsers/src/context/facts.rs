//! Facts about the system the runs ran on, from the lines that state them:
//! dmesg's kernel banner, `CPU:`, CPU count and memory; `uname -a`;
//! /proc/cpuinfo and /proc/meminfo; `Running tests on:`; `Server version:`
//! and `mysqld Ver` banners; "running FreeBSD 6.1-PRERELEASE (i386)" in
//! prose; and remarks on thread libraries ([`remarks`]).

use std::borrow::Cow;

mod remarks;

pub(super) use remarks::remarks_before_runs;

use super::spelling::{arch_word, is_arch, os_group, OS_NAMES};
use crate::text::{trim_end, trim_start, Line, MarkedBytes};

/// One thing the text says about the system the runs ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fact {
    /// Index of the line it was read from.
    pub index: usize,
    /// The quote depth of that line.
    pub depth: usize,
    /// Its Contract 2 key (`os`, `cpu`, `thread_lib`, ...).
    pub key: &'static str,
    /// Borrowed when it is a fixed name (a thread library, one line in 13
    /// of a long thread), so that those facts allocate nothing.
    pub value: Cow<'static, str>,
    /// The operating system an OS-specific fact belongs to (`os_version`
    /// of FreeBSD must not land on a Linux run).
    pub group: Option<&'static str>,
    /// A remark in prose ("without libthr it is slower") rather than what
    /// the system printed: it announces the runs after it
    /// ([`apply`](super::apply::apply)).
    pub remark: bool,
}

/// A mail header that names the sender's own system (`X-Mailer: Mozilla
/// 4.74 [en] (X11; U; Linux 2.2.19 i686)`), not the benchmarked one.
fn is_mailer_header(text: &str) -> bool {
    // Each starts with `X` or `U`, as few lines do.
    if !matches!(text.as_bytes().first(), Some(b'X' | b'x' | b'U' | b'u')) {
        return false;
    }
    ["X-Mailer:", "User-Agent:", "X-Newsreader:", "X-MimeOLE:"]
        .iter()
        .any(|h| {
            text.as_bytes()
                .get(..h.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(h.as_bytes()))
        })
}

/// Reads every fact the lines state: dmesg's kernel banner, `CPU:`, CPU
/// count and memory; `uname -a`; `Running tests on:`; `Server version:`;
/// `mysqld Ver` banners; and "running FreeBSD 6.1-PRERELEASE (i386)" in prose.
#[cfg(test)]
fn facts(lines: &[Line<'_>]) -> Vec<Fact> {
    let bits = MarkedBytes::new(&[FACT_CLUE_BYTES]);
    let marks: Vec<u32> = lines
        .iter()
        .map(|line| bits.mark_of(line.text.as_bytes()))
        .collect();
    let clues = FactClues::new(&marks, &bits);
    let mut found = facts_where(lines, &clues, |_, _| true);
    found.extend(lines.iter().enumerate().filter_map(|(index, line)| {
        remarks::remark(line, index, &clues).map(|lib| remarks::remark_fact(index, line, lib))
    }));
    found.sort_by_key(|fact| fact.index);
    found
}

/// The bytes a line's mark must tell of for [`FactClues`]: the capitals
/// some facts need, and the `:` or `(` every fact read after a fixed head
/// holds.
pub const FACT_CLUE_BYTES: &[u8] = b"MVBLKN:(";

/// What each line's mark says of the facts it may state, so that a line
/// is searched only for the facts it could hold: `:` or `(`, which every
/// fact read after a fixed head (`CPU: `, `real memory`) and every mailer
/// header holds; `M` of `Multiprocessor`; `V` of `Ver`; `B`/`L` of `BSD`
/// and `Linux`; `K`/`N` of `KSE` and `NPTL`.
pub struct FactClues<'m> {
    marks: &'m [u32],
    /// `:` or `(`: the line may be a head and what follows it.
    headed: u32,
    /// `M`: the line may count CPUs (`Multiprocessor System Detected`).
    cpu_count: u32,
    /// `V`: the line may be a `mysqld Ver` banner.
    mysqld_ver: u32,
    /// `B` or `L`: the line may name an OS in prose (`FreeBSD`, `Linux`).
    os_name: u32,
    /// `K` or `N`: the line may name a thread library in prose (`KSE`,
    /// `NPTL`).
    thread_lib: u32,
}

impl<'m> FactClues<'m> {
    /// `marks` holds a mark per line under `marked`, which include
    /// [`FACT_CLUE_BYTES`].
    pub fn new(marks: &'m [u32], marked: &MarkedBytes) -> FactClues<'m> {
        FactClues {
            marks,
            headed: marked.mask(b":("),
            cpu_count: marked.mask(b"M"),
            mysqld_ver: marked.mask(b"V"),
            os_name: marked.mask(b"BL"),
            thread_lib: marked.mask(b"KN"),
        }
    }
}

/// The facts of the lines `wanted` picks (by index and quote depth), but
/// for the remarks on thread libraries ([`remarks_before_runs`]).
pub(super) fn facts_where(
    lines: &[Line<'_>],
    clues: &FactClues<'_>,
    mut wanted: impl FnMut(usize, usize) -> bool,
) -> Vec<Fact> {
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(text) = fact_start(line) else {
            continue;
        };
        if !wanted(index, line.depth) {
            continue;
        }
        let Some((text, mark)) = fact_text(text, index, clues) else {
            continue;
        };
        let mut push = |key: &'static str, value: &str, group: Option<&'static str>| {
            let value = value.trim();
            if !value.is_empty() && value.len() <= 120 {
                found.push(Fact {
                    index,
                    depth: line.depth,
                    key,
                    value: Cow::Owned(value.to_string()),
                    group,
                    remark: key == "thread_lib",
                });
            }
        };
        line_facts(text, mark, clues, &mut push);
    }
    found
}

/// Gives `push` the facts one line states (`text` from [`fact_text`], with
/// its `mark`) as (key, value, OS group). The first kind of line it is
/// read as decides, whether or not that gives a fact.
#[inline]
fn line_facts(text: &str, mark: u32, clues: &FactClues<'_>, push: &mut impl Push) {
    let headed = mark & clues.headed != 0;
    // Most prose holds neither `:` nor `(`: its heads are not compared.
    let after = |head: &str| headed.then(|| text.strip_prefix(head)).flatten();
    if let Some(rest) = after("CPU: ") {
        push("cpu", dmesg_cpu(rest), None);
    } else if let Some(rest) = after("model name") {
        if let Some(name) = cpuinfo_model(rest) {
            push("cpu", &name, None);
        }
    } else if let Some(rest) = after("MemTotal:") {
        if let Some(mb) = meminfo_mb(rest) {
            push("memory_mb", &mb.to_string(), None);
        }
    } else if let Some(rest) = after("real memory") {
        if let Some(mb) = real_memory_mb(rest) {
            push("memory_mb", mb, None);
        }
    } else if text.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
        && mark & clues.cpu_count != 0
        && finders::SMP.find(text.as_bytes()).is_some()
    {
        if let Some(n) = smp_cpus(text) {
            push("cpus", n, None);
        }
    } else if let Some(rest) = after("Running tests on: ") {
        running_tests_on(rest, push);
    } else if let Some(rest) = after("Server version:") {
        server_version(rest, push);
    } else if let Some(banner) = kernel_banner(text) {
        let group = os_group(banner.os);
        push("os", banner.os, group);
        push("os_version", banner.version, group);
        if let Some(config) = banner.kernel_config {
            push("kernel_config", config, group);
        }
        if let Some(arch) = banner.arch {
            push("arch", arch, None);
        }
    } else if let Some(i) = (mark & clues.mysqld_ver != 0)
        .then(|| finders::VER.find(text.as_bytes()))
        .flatten()
    {
        mysqld_ver(text, i, push);
    } else if let Some((os, version, arch)) = os_in_prose(text, mark & clues.os_name != 0) {
        let group = os_group(os);
        push("os", os, group);
        push("os_version", version, group);
        if let Some(arch) = arch {
            push("arch", arch, None);
        }
    }
}

/// What takes a line's facts: (key, value, the OS group of an OS-specific
/// fact).
trait Push: FnMut(&'static str, &str, Option<&'static str>) {}

impl<F: FnMut(&'static str, &str, Option<&'static str>)> Push for F {}

/// The CPU of dmesg's `CPU: AMD Athlon(tm) 64 X2 Dual Core Processor 4200+
/// (2194.52-MHz K8-class CPU)`, without its clock.
fn dmesg_cpu(rest: &str) -> &str {
    match rest.rfind(" (") {
        Some(i) if rest.ends_with(')') && rest[i..].contains("MHz") => &rest[..i],
        _ => rest,
    }
}

/// The CPU of Linux /proc/cpuinfo's `model name\t: Intel(R) Xeon(R) CPU
/// E5-2670 0 @ 2.60GHz`, its spaces collapsed.
fn cpuinfo_model(rest: &str) -> Option<String> {
    let (_, name) = rest.split_once(':')?;
    Some(name.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The memory in MB of Linux /proc/meminfo's `MemTotal:        8167848 kB`.
fn meminfo_mb(rest: &str) -> Option<u64> {
    let kb = rest.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    Some(kb / 1024)
}

/// The memory in MB of dmesg's `real memory = 5368709120 (5120 MB)`.
fn real_memory_mb(rest: &str) -> Option<&str> {
    between(rest, "(", " MB)").filter(|mb| mb.bytes().all(|b| b.is_ascii_digit()))
}

/// The CPU count of `FreeBSD/SMP: Multiprocessor System Detected: 2 CPUs`.
fn smp_cpus(text: &str) -> Option<&str> {
    between(text, "Detected: ", " CPUs").filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

/// sql-bench's `Running tests on: Linux 2.4.0 i686`, `Windows NT Version
/// 4.0`: read as sql-bench reads its own header, and taken when it names
/// two things or more.
fn running_tests_on(rest: &str, push: &mut impl Push) {
    let attrs = crate::sql_bench::machine_attrs(rest);
    let group = attrs
        .iter()
        .find(|(key, _)| *key == "os")
        .and_then(|(_, os)| os_group(os));
    if attrs.len() >= 2 {
        for (key, value) in &attrs {
            push(key, value, if *key == "arch" { None } else { group });
        }
    }
}

/// `mysqld  Ver 5.0.51a-24 for debian-linux-gnu on x86_64`, where ` Ver `
/// is found at `i`.
fn mysqld_ver(text: &str, i: usize, push: &mut impl Push) {
    let program = text[..i].trim();
    if !(program.ends_with("mysqld") || program.ends_with("mariadbd")) {
        return;
    }
    if let Some(version) = text[i + 5..].split_whitespace().next() {
        let server = if version.contains("MariaDB") {
            "MariaDB"
        } else {
            "MySQL"
        };
        push("db_server", server, None);
        push(
            "db_version",
            version.split('-').next().unwrap_or(version),
            None,
        );
    }
}

/// A line's text from its first visible character when a fact may start
/// there. Every fact starts with a letter (or a `(` of prose); most prose
/// lines are rejected by their first byte before any trimming or searching.
fn fact_start<'t>(line: &Line<'t>) -> Option<&'t str> {
    let text = trim_start(line.text);
    // A parenthesis opens prose too: `(single core 3.60GHz) using the
    // AMD64 build of FreeBSD`.
    text.as_bytes()
        .first()
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'(')
        .then_some(text)
}

/// The text (from [`fact_start`]) of line `index` with its mark, unless
/// it is too short or too long to state a fact or is a mailer header.
#[inline]
fn fact_text<'t>(text: &'t str, index: usize, clues: &FactClues<'_>) -> Option<(&'t str, u32)> {
    // A line without a mark could hold any of the bytes.
    let mark = clues.marks.get(index).copied().unwrap_or(u32::MAX);
    let headed = mark & clues.headed != 0;
    let text = trim_end(text);
    let fits = (6..=400).contains(&text.len()) && !(headed && is_mailer_header(text));
    fits.then_some((text, mark))
}

/// Substring searchers built once: most lines are prose and must cost little.
mod finders {
    use std::sync::LazyLock;

    use memchr::memmem::Finder;

    pub static THR: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("thr"));
    pub static KSE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("KSE"));
    pub static NPTL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("NPTL"));
    pub static BSD: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("BSD"));
    pub static LINUX: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("Linux"));
    pub static VER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(" Ver "));
    pub static SMP: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new("Multiprocessor System Detected:"));
}

/// The text between the first `open` and the `close` after it.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(&text[start..start + len])
}

/// `Server version: MySQL 3.23.32 log` (sql-bench) or `Server version:
/// 5.0.45-log Source distribution` (the mysql client).
fn server_version(rest: &str, push: &mut impl Push) {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let (server, version) = match words.as_slice() {
        [name, version, ..] if !name.starts_with(|c: char| c.is_ascii_digit()) => (*name, *version),
        // The mysql client's own line: MySQL and MariaDB versions have
        // three parts (`5.0.45-log`); a bare `2.1` is some other server's
        // (sql-bench's FrontBase summary), named nowhere.
        [version, ..] if has_three_parts(version) => {
            let server = if rest.contains("MariaDB") {
                "MariaDB"
            } else {
                "MySQL"
            };
            (server, *version)
        }
        [version, ..] => {
            if version.starts_with(|c: char| c.is_ascii_digit()) {
                push("db_version", version, None);
            }
            return;
        }
        [] => return,
    };
    if version.starts_with(|c: char| c.is_ascii_digit()) {
        push("db_server", server, None);
        let version = version.split('-').next().unwrap_or(version);
        push("db_version", version, None);
    }
}

/// `5.0.45-log`, `10.1.22`: three numbers joined by dots before any suffix.
fn has_three_parts(version: &str) -> bool {
    let number = version.split('-').next().unwrap_or(version);
    let parts: Vec<&str> = number.split('.').collect();
    parts.len() >= 3
        && parts[..3]
            .iter()
            .all(|p| p.starts_with(|c: char| c.is_ascii_digit()))
}

/// The kernel's own words about itself.
#[derive(Debug, PartialEq, Eq)]
struct KernelBanner<'a> {
    os: &'a str,
    version: &'a str,
    kernel_config: Option<&'a str>,
    arch: Option<&'a str>,
}

/// `FreeBSD 6.2-PRERELEASE #1: Thu Oct 19 02:57:52 EDT 2006` (dmesg),
/// `FreeBSD host 6.1-STABLE FreeBSD 6.1-STABLE #0: ... :/usr/obj/usr/src/sys/GENERIC  amd64`
/// and `Linux host 2.6.18-1 #1 SMP ... x86_64 GNU/Linux` (`uname -a`),
/// `Linux version 2.6.18 (root@host) (gcc ...) #1 SMP ...` (Linux dmesg).
/// Inlined with its first-byte test, which most of the lines facts read
/// fail; [`read_kernel_banner`] reads the rest.
#[inline]
fn kernel_banner(text: &str) -> Option<KernelBanner<'_>> {
    // Cheap first: almost no line starts with an OS name.
    let first = *text.as_bytes().first()?;
    if !matches!(first, b'F' | b'N' | b'O' | b'D' | b'L' | b'S') {
        return None;
    }
    read_kernel_banner(text)
}

fn read_kernel_banner(text: &str) -> Option<KernelBanner<'_>> {
    if !OS_NAMES.iter().any(|(name, _)| text.starts_with(name)) {
        return None;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let os = *words.first()?;
    os_group(os)?;
    let is_version = |w: &str| w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.');
    match words.as_slice() {
        // Linux dmesg
        [_, "version", version, ..] if os == "Linux" && is_version(version) => Some(KernelBanner {
            os,
            version,
            kernel_config: None,
            arch: None,
        }),
        // BSD dmesg: `FreeBSD 6.2-PRERELEASE #1: ...`
        [_, version, build, ..] if is_version(version) && build.starts_with('#') => {
            Some(KernelBanner {
                os,
                version,
                kernel_config: None,
                arch: None,
            })
        }
        // uname -a
        [_, _host, version, rest @ ..]
            if is_version(version) && rest.iter().any(|w| w.starts_with('#')) =>
        {
            let last = rest.last().copied();
            let (kernel_config, arch) = if os == "Linux" {
                let arch = rest
                    .iter()
                    .rev()
                    .find(|w| !w.contains('/') && !w.is_empty())
                    .copied();
                (None, arch.filter(|a| is_arch(a)))
            } else {
                let config = rest
                    .iter()
                    .find_map(|w| w.rsplit_once("/sys/").map(|(_, c)| c))
                    .or_else(|| {
                        rest.iter()
                            .find_map(|w| w.rsplit_once("/compile/").map(|(_, c)| c))
                    });
                (config, last.filter(|a| is_arch(a)))
            };
            Some(KernelBanner {
                os,
                version,
                kernel_config,
                arch,
            })
        }
        _ => None,
    }
}

/// `running FreeBSD 6.1-PRERELEASE (i386)`, `install of i386 FreeBSD
/// 6.1RC1`: an OS name followed by a version number; or an architecture
/// and an OS name without one (`the AMD64 build of FreeBSD`).
/// `may_name_os`: the line holds a `B` or an `L`.
/// Inlined with the test of the line's mark, which most lines fail;
/// [`read_os_in_prose`] reads the rest.
#[inline]
fn os_in_prose(text: &str, may_name_os: bool) -> Option<(&str, &str, Option<&str>)> {
    // Both names hold a capital few prose lines have.
    may_name_os.then(|| read_os_in_prose(text)).flatten()
}

fn read_os_in_prose(text: &str) -> Option<(&str, &str, Option<&str>)> {
    let b = text.as_bytes();
    // A version (below) holds a `.` with a digit after it: one byte
    // search rejects most prose naming a system (`FreeBSD results?`)
    // before the two substring searches.
    let digit_after_dot = |at: usize| b.get(at + 1).is_some_and(u8::is_ascii_digit);
    // Without a version only an architecture can be read (`the AMD64
    // build of FreeBSD`), and the common ones hold `86` or `64`.
    let may_name_arch = || [b"86", b"64"].iter().any(|n| b.windows(2).any(|w| w == *n));
    if !memchr::memchr_iter(b'.', b).any(digit_after_dot) && !may_name_arch() {
        return None;
    }
    if !(finders::BSD.find(b).is_some() || finders::LINUX.find(b).is_some()) {
        return None;
    }
    // Word by word, no list of them: the word before an OS name and the
    // two after it are all that is looked at.
    let mut previous: Option<&str> = None;
    // The three words before the OS name, for `<arch> build of <OS>`.
    let mut behind: [&str; 3] = [""; 3];
    let mut words = text.split_whitespace();
    while let Some(os) = words.next() {
        if os_group(os).is_none() {
            previous = Some(os);
            behind = [behind[1], behind[2], os];
            continue;
        }
        // Without a version, only `<arch> build of <OS>` names the system
        // run on: `which had AMD64 FreeBSD on before hand` is the past.
        let [arch, build, of] = behind;
        let arch_build = (matches!(
            build,
            "build" | "version" | "port" | "install" | "installation"
        ) && of == "of")
            .then(|| arch_word(arch))
            .flatten();
        let mut ahead = words.clone();
        let Some(version) = ahead.next() else {
            return arch_build.map(|arch| (os, "", Some(arch)));
        };
        let version = version.trim_end_matches([',', '.', ';', ':', ')']);
        let first_dot = version.find('.');
        let versionlike = version.starts_with(|c: char| c.is_ascii_digit())
            && first_dot
                .is_some_and(|d| version[d + 1..].starts_with(|c: char| c.is_ascii_digit()))
            && version.len() <= 24;
        if !versionlike {
            if arch_build.is_some() {
                return Some((os, "", arch_build));
            }
            previous = Some(os);
            behind = [behind[1], behind[2], os];
            continue;
        }
        let arch = ahead
            .next()
            .map(|w| w.trim_matches(['(', ')', ',', '.']))
            .and_then(arch_word)
            .or_else(|| previous.and_then(arch_word))
            .or(arch_build);
        return Some((os, version, arch));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::spelling::os_in_name;
    use crate::text;

    #[test]
    fn facts_not_taken_from_mailers_or_thread_libraries() {
        // The X-Mailer of a 2001 LKML mail names the sender's desktop.
        let lines = text::lines(
            "X-Mailer: Mozilla 4.74 [en] (X11; U; Linux 2.2.19 i686)\n\
             Running tests on: Windows NT Version 4.0\n",
        );
        let got: Vec<(&str, String)> = facts(&lines)
            .into_iter()
            .map(|f| (f.key, f.value.into_owned()))
            .collect();
        assert_eq!(
            got,
            [
                ("os", "Windows NT".to_string()),
                ("os_version", "4.0".to_string())
            ]
        );
        // NPTL against LinuxThreads: rows named after a thread library.
        assert_eq!(os_in_name("LinuxThreads"), None);
        assert_eq!(os_in_name("LINUXSMP"), Some("Linux"));
    }

    #[test]
    fn facts_from_dmesg_uname_and_servers() {
        let input = "FreeBSD 6.2-PRERELEASE #1: Thu Oct 19 02:57:52 EDT 2006\n\
            CPU: AMD Athlon(tm) 64 X2 Dual Core Processor 4200+ (2194.52-MHz K8-class CPU)\n\
            real memory = 5368709120 (5120 MB)\n\
            FreeBSD/SMP: Multiprocessor System Detected: 2 CPUs\n\
            > FreeBSD fw 6.1-STABLE FreeBSD 6.1-STABLE #0: Sun May 7 12:00:00 BST 2006 root@fw:/usr/obj/usr/src/sys/SMP  amd64\n\
            Linux db1 2.6.18-1.2798.fc6 #1 SMP Mon Oct 16 14:37:32 EDT 2006 x86_64 x86_64 x86_64 GNU/Linux\n\
            Running tests on: Linux 2.4.0 i686\n\
            Server version: MySQL 3.23.32 log\n\
            Server version: 5.0.45-log Source distribution\n\
            Dual 244, 2Gb running FreeBSD 6.1-PRERELEASE (i386)\n\
            mysqld  Ver 5.0.51a-24 for debian-linux-gnu on x86_64\n\
            I like FreeBSD a lot, Linux 2 much.\n\
            model name\t: Intel(R) Xeon(R)  CPU E5-2670 0 @ 2.60GHz\n\
            MemTotal:        8167848 kB\n\
            Server version:      2.1\n";
        let lines = text::lines(input);
        let got: Vec<(usize, usize, &str, String)> = facts(&lines)
            .into_iter()
            .map(|f| (f.index, f.depth, f.key, f.value.into_owned()))
            .collect();
        let want: Vec<(usize, usize, &str, &str)> = vec![
            (0, 0, "os", "FreeBSD"),
            (0, 0, "os_version", "6.2-PRERELEASE"),
            (
                1,
                0,
                "cpu",
                "AMD Athlon(tm) 64 X2 Dual Core Processor 4200+",
            ),
            (2, 0, "memory_mb", "5120"),
            (3, 0, "cpus", "2"),
            (4, 1, "os", "FreeBSD"),
            (4, 1, "os_version", "6.1-STABLE"),
            (4, 1, "kernel_config", "SMP"),
            (4, 1, "arch", "amd64"),
            (5, 0, "os", "Linux"),
            (5, 0, "os_version", "2.6.18-1.2798.fc6"),
            (5, 0, "arch", "x86_64"),
            (6, 0, "os", "Linux"),
            (6, 0, "os_version", "2.4.0"),
            (6, 0, "arch", "i686"),
            (7, 0, "db_server", "MySQL"),
            (7, 0, "db_version", "3.23.32"),
            (8, 0, "db_server", "MySQL"),
            (8, 0, "db_version", "5.0.45"),
            (9, 0, "os", "FreeBSD"),
            (9, 0, "os_version", "6.1-PRERELEASE"),
            (9, 0, "arch", "i386"),
            (10, 0, "db_server", "MySQL"),
            (10, 0, "db_version", "5.0.51a"),
            (12, 0, "cpu", "Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz"),
            (13, 0, "memory_mb", "7976"),
            (14, 0, "db_version", "2.1"),
        ];
        let want: Vec<(usize, usize, &str, String)> = want
            .into_iter()
            .map(|(i, d, k, v)| (i, d, k, v.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_arch_build_of_an_os_in_prose() {
        let lines = text::lines(
            "(single core 3.60GHz) using the AMD64 build of FreeBSD and got similar\n\
             AMD64 FreeBSD on before hand) and run the exact same tests\n\
             Interestingly I just did a install of i386 FreeBSD 6.1RC1 and installed\n",
        );
        let got: Vec<(usize, &str, String)> = facts(&lines)
            .into_iter()
            .map(|f| (f.index, f.key, f.value.into_owned()))
            .collect();
        let want = [
            (0, "os", "FreeBSD"),
            (0, "arch", "amd64"),
            (2, "os", "FreeBSD"),
            (2, "os_version", "6.1RC1"),
            (2, "arch", "i386"),
        ];
        let want: Vec<(usize, &str, String)> = want
            .into_iter()
            .map(|(i, k, v)| (i, k, v.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn each_kind_of_line_reads_its_own_value() {
        assert_eq!(
            dmesg_cpu("AMD Athlon(tm) 64 Processor 3000+ (1809.28-MHz K8-class CPU)"),
            "AMD Athlon(tm) 64 Processor 3000+"
        );
        assert_eq!(
            dmesg_cpu("Intel Pentium III (no clock)"),
            "Intel Pentium III (no clock)"
        );
        assert_eq!(
            cpuinfo_model("\t: Intel(R)  Xeon(R) CPU").as_deref(),
            Some("Intel(R) Xeon(R) CPU")
        );
        assert_eq!(cpuinfo_model(" Intel"), None);
        assert_eq!(meminfo_mb("   2048000 kB"), Some(2000));
        assert_eq!(meminfo_mb("   2048000 MB"), None);
        assert_eq!(real_memory_mb(" = 536870912 (512 MB)"), Some("512"));
        assert_eq!(real_memory_mb(" = 536870912 (0.5 MB)"), None);
        assert_eq!(
            smp_cpus("FreeBSD/SMP: Multiprocessor System Detected: 4 CPUs"),
            Some("4")
        );
        assert_eq!(smp_cpus("Multiprocessor System Detected: many CPUs"), None);
    }

    /// The facts `line_facts` gives for one line, as (key, value, group).
    fn facts_of_line(text: &str) -> Vec<(&'static str, String, Option<&'static str>)> {
        let bits = MarkedBytes::new(&[FACT_CLUE_BYTES]);
        let marks = [bits.mark_of(text.as_bytes())];
        let clues = FactClues::new(&marks, &bits);
        let mut got = Vec::new();
        line_facts(text, marks[0], &clues, &mut |key, value: &str, group| {
            got.push((key, value.to_string(), group));
        });
        got
    }

    #[test]
    fn the_first_kind_a_line_is_read_as_decides() {
        let mysqld = facts_of_line("mysqld  Ver 10.1.2-MariaDB for Linux on x86_64");
        assert_eq!(
            mysqld,
            [
                ("db_server", "MariaDB".to_string(), None),
                ("db_version", "10.1.2".to_string(), None)
            ]
        );
        // The mysql client's banner gives nothing, and is not read again
        // as prose naming a system.
        assert!(
            facts_of_line("mysql  Ver 14.12 Distrib 5.0.51a, for FreeBSD 6.1 (i386)").is_empty()
        );
        assert_eq!(facts_of_line("I run FreeBSD 6.1 (i386)").len(), 3);
        // `Running tests on:` naming one thing gives nothing.
        assert!(facts_of_line("Running tests on: FreeBSD").is_empty());
        // A `CPU: ` line is a CPU even when it names a system.
        assert_eq!(
            facts_of_line("CPU: Linux 2.6.18 box"),
            [("cpu", "Linux 2.6.18 box".to_string(), None)]
        );
        let sql_bench = facts_of_line("Running tests on: Linux 2.4.0 i686");
        assert_eq!(
            sql_bench,
            [
                ("os", "Linux".to_string(), Some("Linux")),
                ("os_version", "2.4.0".to_string(), Some("Linux")),
                ("arch", "i686".to_string(), None)
            ]
        );
    }
}
