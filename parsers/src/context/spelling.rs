//! Spellings: how a log or a write-up names a scheduler, thread library,
//! timer, file system, OS or architecture, and how Contract 2 spells it
//! (`SCHED_ULE` is `ULE`, `libthr.so.2` is `libthr`, `AMD64` is `amd64`).

/// One word or part of a label as (key, normalised value), if known.
pub(super) fn classify(word: &str) -> Option<(&'static str, &'static str)> {
    // Every known word is short (`libpthread.so.2` at most): lower-case it
    // on the stack, since this runs for many words of many lines.
    const LONGEST: usize = 32;
    let word = word.trim();
    if word.len() > LONGEST {
        return None;
    }
    let mut buffer = [0u8; LONGEST];
    let buffer = &mut buffer[..word.len()];
    buffer.copy_from_slice(word.as_bytes());
    buffer.make_ascii_lowercase();
    let lower = std::str::from_utf8(buffer).ok()?;
    let found = match lower {
        "ule" | "sched_ule" | "ule2" => ("scheduler", "ULE"),
        "4bsd" | "sched_4bsd" => ("scheduler", "4BSD"),
        "cfs" => ("scheduler", "CFS"),
        "bfs" => ("scheduler", "BFS"),
        "libthr" | "thr" => ("thread_lib", "libthr"),
        "libpthread" | "pthread" => ("thread_lib", "libpthread"),
        "kse" | "libkse" => ("thread_lib", "KSE"),
        "libc_r" | "c_r" => ("thread_lib", "libc_r"),
        "nptl" => ("thread_lib", "NPTL"),
        "linuxthreads" => ("thread_lib", "LinuxThreads"),
        "tsc" => ("timer", "TSC"),
        "acpi-fast" | "acpi_fast" | "acpi" => ("timer", "ACPI-fast"),
        "acpi-safe" => ("timer", "ACPI-safe"),
        "i8254" => ("timer", "i8254"),
        "hpet" => ("timer", "HPET"),
        "jemalloc" => ("malloc", "jemalloc"),
        "phkmalloc" => ("malloc", "phkmalloc"),
        "tcmalloc" => ("malloc", "tcmalloc"),
        "ufs" | "ufs2" | "ffs" => ("fs", "UFS"),
        "ext2" => ("fs", "ext2"),
        "ext3" => ("fs", "ext3"),
        "ext4" => ("fs", "ext4"),
        "reiserfs" => ("fs", "ReiserFS"),
        "zfs" => ("fs", "ZFS"),
        "xfs" => ("fs", "XFS"),
        "jfs" => ("fs", "JFS"),
        "btrfs" => ("fs", "Btrfs"),
        "f2fs" => ("fs", "F2FS"),
        "vfat" | "fat32" => ("fs", "vfat"),
        "ntfs" => ("fs", "NTFS"),
        "tmpfs" => ("fs", "tmpfs"),
        "myisam" => ("storage_engine", "MyISAM"),
        "innodb" => ("storage_engine", "InnoDB"),
        _ => return classify_shared_object(lower),
    };
    Some(found)
}

/// `libthr.so.2`, `libpthread.so` name the thread library.
fn classify_shared_object(lower: &str) -> Option<(&'static str, &'static str)> {
    // Byte windows rather than a substring searcher: this runs for every
    // word of the lines that name a thread library.
    let at = lower.as_bytes().windows(3).position(|w| w == b".so")?;
    let stem = &lower[..at];
    match stem {
        "libthr" => Some(("thread_lib", "libthr")),
        "libpthread" => Some(("thread_lib", "libpthread")),
        "libkse" => Some(("thread_lib", "KSE")),
        "libc_r" => Some(("thread_lib", "libc_r")),
        _ => None,
    }
}

/// The systems a kernel banner or prose names, as they spell themselves,
/// with the group an OS-specific fact of theirs belongs to.
pub(super) const OS_NAMES: [(&str, &str); 6] = [
    ("FreeBSD", "FreeBSD"),
    ("NetBSD", "NetBSD"),
    ("OpenBSD", "OpenBSD"),
    ("DragonFly", "DragonFly"),
    ("Linux", "Linux"),
    ("SunOS", "SunOS"),
];

/// The first letters of [`OS_NAMES`] (a test checks they agree).
const OS_INITIALS: &[u8] = b"FNODLS";

/// The OS group of an OS name as `uname` spells it, if it is one.
pub(super) fn os_group(os: &str) -> Option<&'static str> {
    // Most words are no OS name: reject them by their first letter.
    if !os
        .as_bytes()
        .first()
        .is_some_and(|b| OS_INITIALS.contains(b))
    {
        return None;
    }
    OS_NAMES
        .iter()
        .find(|(name, _)| *name == os)
        .map(|&(_, group)| group)
}

/// The architectures `uname -m` prints, as it spells them.
const ARCHES: [&str; 13] = [
    "i386", "i486", "i586", "i686", "amd64", "x86_64", "sparc64", "alpha", "ia64", "powerpc",
    "arm", "aarch64", "arm64",
];

/// An architecture named in prose, in the spelling `uname -m` prints:
/// `AMD64` is `amd64`.
pub(super) fn arch_word(word: &str) -> Option<&'static str> {
    ARCHES
        .into_iter()
        .find(|arch| word.eq_ignore_ascii_case(arch))
}

/// Whether `word` is an architecture as `uname -m` spells it.
pub(super) fn is_arch(word: &str) -> bool {
    ARCHES.contains(&word)
}

/// The OS a machine's name names (`LINUXSMP` is Linux).
pub(super) fn os_in_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    // A thread library named as the machine (`LinuxThreads` beside `NPTL`)
    // says nothing of the system.
    if classify(&lower).is_some_and(|(key, _)| key == "thread_lib") {
        return None;
    }
    if lower.contains("linux") {
        Some("Linux")
    } else if lower.contains("freebsd") {
        Some("FreeBSD")
    } else if lower.contains("netbsd") {
        Some("NetBSD")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_initials_are_the_os_names_first_letters() {
        let mut initials: Vec<u8> = OS_NAMES
            .iter()
            .map(|(name, _)| name.as_bytes()[0])
            .collect();
        initials.sort_unstable();
        initials.dedup();
        let mut want = OS_INITIALS.to_vec();
        want.sort_unstable();
        assert_eq!(initials, want);
    }
}
