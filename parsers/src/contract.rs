//! Contract 2 of the design, in one place: the names of metrics (with
//! their units and directions), of run attributes and of the run's own
//! fields one may group by, and the few rules about names that every part
//! of benchlog applies the same way. Everything else asks here.

use crate::Tool;

/// Unit and direction of one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricInfo {
    /// Its name in Contract 2: `q_per_s`.
    pub name: &'static str,
    /// The unit values are stored in: `q/s`.
    pub unit: &'static str,
    /// Which way is better.
    pub higher_is_better: bool,
    /// Words for axis titles: "queries per second".
    pub title: &'static str,
}

impl MetricInfo {
    /// A rate (per second, or IOPS): what a scaling efficiency and a
    /// "peak" mean something for.
    pub fn is_rate(&self) -> bool {
        self.unit.ends_with("/s") || self.unit == "IOPS"
    }

    /// A rate where more is better: the metrics ready comparisons prefer.
    pub fn is_throughput(&self) -> bool {
        self.higher_is_better && self.is_rate()
    }

    /// A tally of what a run did (queries run, tests, MiB written): it
    /// grows with how long the run was as much as with how fast, so it
    /// says nothing on its own of which setup is better. Not a rate, a
    /// time or a share.
    pub fn is_count(&self) -> bool {
        !self.is_rate() && !matches!(self.unit, "s" | "ms" | "us" | "%")
    }
}

const fn info(
    name: &'static str,
    unit: &'static str,
    higher_is_better: bool,
    title: &'static str,
) -> MetricInfo {
    MetricInfo {
        name,
        unit,
        higher_is_better,
        title,
    }
}

/// Every metric benchlog knows, in Contract 2's names.
pub const METRICS: &[MetricInfo] = &[
    // super-smack
    info("q_per_s", "q/s", true, "queries per second"),
    info("num_queries", "queries", true, "queries run"),
    // In milliseconds: super-smack's query.cc times each query as
    // `(end.tv_sec - start.tv_sec)*1000 + (end.tv_usec - start.tv_usec)/1000`
    // and prints that integer.
    info("max_time", "ms", false, "longest query"),
    info("min_time", "ms", false, "shortest query"),
    info("max_ms", "ms", false, "slowest connect"),
    info("min_ms", "ms", false, "fastest connect"),
    info("avg_ms", "ms", false, "mean connect time"),
    // sysbench
    info("tps", "tx/s", true, "transactions per second"),
    info("qps", "q/s", true, "queries per second"),
    info(
        "qps_per_thread",
        "q/s",
        true,
        "queries per second per thread",
    ),
    info("transactions", "tx", true, "transactions"),
    info("queries", "queries", true, "queries"),
    info("read_queries", "queries", true, "read queries"),
    info("write_queries", "queries", true, "write queries"),
    info("other_queries", "queries", true, "other queries"),
    info("ignored_errors", "errors", false, "ignored errors"),
    info("reconnects", "reconnects", false, "reconnects"),
    // Interval lines' rates: `err/s: 0.00 reconn/s: 0.00` (1.x),
    // `errors: 0.00, reconnects: 0.00` (0.5 and early 1.0).
    info("err_per_s", "errors/s", false, "errors per second"),
    info(
        "reconn_per_s",
        "reconnects/s",
        false,
        "reconnects per second",
    ),
    info("total_time_s", "s", false, "total time"),
    info("events", "events", true, "events"),
    info("events_per_s", "events/s", true, "events per second"),
    info("latency_min_ms", "ms", false, "minimum latency"),
    info("latency_avg_ms", "ms", false, "mean latency"),
    info("latency_max_ms", "ms", false, "maximum latency"),
    info("latency_p95_ms", "ms", false, "95th percentile latency"),
    info("latency_p99_ms", "ms", false, "99th percentile latency"),
    info("latency_sum_ms", "ms", false, "summed latency"),
    info("rw_requests", "requests", true, "read/write requests"),
    info(
        "rw_requests_per_s",
        "requests/s",
        true,
        "read/write requests per second",
    ),
    info("other_ops", "ops", true, "other operations"),
    info("deadlocks", "deadlocks", false, "deadlocks"),
    info("reads_per_s", "reads/s", true, "reads per second"),
    info("writes_per_s", "writes/s", true, "writes per second"),
    info("fsyncs_per_s", "fsyncs/s", true, "fsyncs per second"),
    info("read_mib_per_s", "MiB/s", true, "read throughput"),
    info("written_mib_per_s", "MiB/s", true, "write throughput"),
    info("reads", "reads", true, "reads"),
    info("writes", "writes", true, "writes"),
    info("total_ops", "ops", true, "operations"),
    info("read_mib", "MiB", true, "read"),
    info("written_mib", "MiB", true, "written"),
    info("transferred_mib", "MiB", true, "transferred"),
    info("mib_per_s", "MiB/s", true, "throughput"),
    info("requests_per_s", "requests/s", true, "requests per second"),
    info("operations", "ops", true, "operations"),
    info("ops_per_s", "ops/s", true, "operations per second"),
    // sql-bench
    info("wallclock_s", "s", false, "wall-clock time"),
    info("usr_s", "s", false, "user CPU time"),
    info("sys_s", "s", false, "system CPU time"),
    info("cusr_s", "s", false, "children's user CPU time"),
    info("csys_s", "s", false, "children's system CPU time"),
    info("cpu_s", "s", false, "CPU time"),
    info("tests", "tests", true, "tests"),
    // bonnie
    info("kb_per_s", "KB/s", true, "throughput"),
    info("per_s", "1/s", true, "operations per second"),
    info("cpu_pct", "%", false, "CPU use"),
    info("latency_us", "us", false, "latency"),
    // diskinfo
    info("ms", "ms", false, "time per operation"),
    info("iops", "IOPS", true, "I/O operations per second"),
];

/// The attribute keys of Contract 2: accepted in `by` and `where` even
/// where no stored run has them yet, and suggested in the edit forms.
pub const ATTRIBUTE_KEYS: [&str; 20] = [
    "os",
    "os_version",
    "kernel_config",
    "arch",
    "distro",
    "scheduler",
    "thread_lib",
    "timer",
    "malloc",
    "fs",
    "patches",
    "cpu",
    "cpus",
    "memory_mb",
    "machine",
    "db_server",
    "db_version",
    "storage_engine",
    "tool_version",
    "variant",
];

/// What says where a run came from, not how it was run: runs differing
/// only in these are still repeats of one configuration.
pub const PROVENANCE: [&str; 4] = ["author", "submission", "message", "date"];

/// The attributes that name a machine. Runs of different posts are
/// repeats of one configuration only when they agree on every attribute
/// (provenance aside) and state one of these: two posts that state less
/// (a `variant` alone, or only their OS) were run on machines nobody
/// named, and the post is what tells their runs apart. See
/// [`configuration_post`].
pub const SETUP_KEYS: [&str; 2] = ["machine", "cpu"];

/// The key under which a configuration that states no [`SETUP_KEYS`]
/// carries its post (the submission number of the run, or of the run it
/// is a copy of): the `by` that splits such runs apart.
pub const POST_KEY: &str = PseudoField::Submission.name();

/// The post a run's configuration is tied to: `None` when its attribute
/// keys state its setup, else `post`. Comparisons and the sums of
/// configurations both apply this one rule.
pub fn configuration_post<'a>(mut keys: impl Iterator<Item = &'a str>, post: i64) -> Option<i64> {
    (!keys.any(|key| SETUP_KEYS.contains(&key))).then_some(post)
}

/// Contract 2's attributes in the order a reader cares about them: the
/// knobs people turn between runs first, the facts of the machine last.
/// Ready comparisons list their `by` keys in this order, and drop the
/// least interesting first when fewer split the runs just as well.
pub const ATTRIBUTES_BY_INTEREST: [&str; 20] = [
    "scheduler",
    "thread_lib",
    "timer",
    "malloc",
    "fs",
    "patches",
    "kernel_config",
    "storage_engine",
    "variant",
    "os",
    "os_version",
    "distro",
    "db_server",
    "db_version",
    "machine",
    "cpu",
    "cpus",
    "memory_mb",
    "arch",
    "tool_version",
];

/// Fields of every run that comparisons may group and filter by like an
/// attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PseudoField {
    /// The run's label (a section banner, say).
    Label,
    /// Who wrote the run.
    Author,
    /// The number of the submission it was read from.
    Submission,
    /// The tool's test (`select-key`, `oltp_read_only`).
    Test,
}

impl PseudoField {
    /// Every field, in the order forms offer them.
    pub const ALL: [PseudoField; 4] = [
        PseudoField::Label,
        PseudoField::Author,
        PseudoField::Submission,
        PseudoField::Test,
    ];

    /// Its name in URLs (`by=label`).
    pub const fn name(self) -> &'static str {
        match self {
            PseudoField::Label => "label",
            PseudoField::Author => "author",
            PseudoField::Submission => "submission",
            PseudoField::Test => "test",
        }
    }

    /// The field of this name, if it is one.
    pub fn from_name(name: &str) -> Option<PseudoField> {
        PseudoField::ALL
            .into_iter()
            .find(|field| field.name() == name)
    }
}

/// The names of [`PseudoField::ALL`], for lists of accepted keys.
pub const PSEUDO_FIELD_NAMES: [&str; 4] = [
    PseudoField::ALL[0].name(),
    PseudoField::ALL[1].name(),
    PseudoField::ALL[2].name(),
    PseudoField::ALL[3].name(),
];

/// The value shown for a run that lacks a grouping attribute; sorted
/// after every real value.
pub const NONE: &str = "(none)";

/// super-smack's `connect` line: an item of its own, but never the one
/// that stands for a run (its query types do).
pub fn is_connect_item(item: &str) -> bool {
    item == "connect"
}

/// sysbench's interim report lines (`t=10s`) are items of their own,
/// left out of comparisons unless asked for.
pub fn is_interim_item(item: &str) -> bool {
    item.starts_with("t=")
}

impl Tool {
    /// Disk benchmarks (bonnie, diskinfo): their runs describe a disk, not
    /// the system facts of a database server.
    pub fn is_disk(self) -> bool {
        match self {
            Tool::Bonnie | Tool::Diskinfo => true,
            Tool::SuperSmack | Tool::Sysbench | Tool::SqlBench => false,
        }
    }

    /// Its headline metrics in Contract 2, for messages that say what a
    /// comparison of it accepts (the table holds more).
    pub fn metrics(self) -> &'static [&'static str] {
        match self {
            Tool::SuperSmack => &[
                "q_per_s",
                "num_queries",
                "max_time",
                "min_time",
                "max_ms",
                "min_ms",
                "avg_ms",
            ],
            Tool::Sysbench => &[
                "tps",
                "qps",
                "qps_per_thread",
                "transactions",
                "queries",
                "events_per_s",
                "latency_avg_ms",
                "latency_p95_ms",
                "latency_max_ms",
                "rw_requests_per_s",
                "reads_per_s",
                "writes_per_s",
                "read_mib_per_s",
                "written_mib_per_s",
                "ops_per_s",
                "mib_per_s",
            ],
            Tool::SqlBench => &[
                "wallclock_s",
                "usr_s",
                "sys_s",
                "cusr_s",
                "csys_s",
                "cpu_s",
                "tests",
            ],
            Tool::Bonnie => &["kb_per_s", "per_s", "cpu_pct", "latency_us"],
            Tool::Diskinfo => &["ms", "kb_per_s", "iops"],
        }
    }

    /// The attribute keys the tool's own output gives a run beside
    /// Contract 2's ([`ATTRIBUTE_KEYS`]): a disk's geometry, a bonnie
    /// run's file size, a sql-bench summary's header fields. Kept as the
    /// runs keep them; a test holds every fixture's runs to these and the
    /// general keys.
    pub fn own_attribute_keys(self) -> &'static [&'static str] {
        match self {
            Tool::SuperSmack => &[],
            Tool::Sysbench => &sysbench_workload_keys::ALL,
            Tool::SqlBench => &[
                "date",
                "arguments",
                "comments",
                "limits_from",
                "optimization",
                "hardware",
                "run_file",
            ],
            Tool::Bonnie => &["size", "chunk_size", "files", "concurrency"],
            Tool::Diskinfo => &diskinfo_keys::ALL,
        }
    }

    /// The title of a comparison's concurrency axis.
    pub fn concurrency_title(self) -> &'static str {
        match self {
            Tool::SuperSmack => "clients (threads)",
            Tool::Sysbench | Tool::SqlBench | Tool::Bonnie | Tool::Diskinfo => "threads",
        }
    }
}

/// Unit and direction of a metric, or `None` for a name benchlog does not know.
pub fn metric_info(name: &str) -> Option<&'static MetricInfo> {
    // Every parsed value asks for its unit here: the length and first byte
    // are compared inline first, so that only a likely name costs a call
    // to compare the rest.
    let first = name.as_bytes().first();
    METRICS
        .iter()
        .find(|m| {
            m.name.len() == name.len() && m.name.as_bytes().first() == first && m.name == name
        })
        .or_else(|| percentile(name))
        .or_else(|| is_latency_percentile(name).then_some(&LATENCY_PERCENTILE))
}

/// sysbench prints whichever percentile it was asked for
/// (`--percentile=1..100`): `latency_p90_ms`. Each has an entry of its own,
/// so that a comparison asks the database for the name it was given.
static PERCENTILES: std::sync::LazyLock<Vec<MetricInfo>> = std::sync::LazyLock::new(|| {
    (1..=100u32)
        .map(|n| MetricInfo {
            // Made once, for the life of the process: 100 short names.
            name: Box::leak(format!("latency_p{n}_ms").into_boxed_str()),
            unit: "ms",
            higher_is_better: false,
            title: Box::leak(
                format!("{n}{} percentile latency", ordinal_suffix(n)).into_boxed_str(),
            ),
        })
        .collect()
});

fn percentile(name: &str) -> Option<&'static MetricInfo> {
    let n: usize = name
        .strip_prefix("latency_p")?
        .strip_suffix("_ms")?
        .parse()
        .ok()?;
    PERCENTILES.get(n.checked_sub(1)?)
}

fn ordinal_suffix(n: u32) -> &'static str {
    match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

/// A percentile outside 1..100 (no sysbench prints one, but a name of that
/// shape is still a latency).
static LATENCY_PERCENTILE: MetricInfo = info("latency_pNN_ms", "ms", false, "percentile latency");

fn is_latency_percentile(name: &str) -> bool {
    name.strip_prefix("latency_p")
        .and_then(|rest| rest.strip_suffix("_ms"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The keys of a sysbench run's workload: the options that make two runs
/// of one test unlike, named after the option (`--file-test-mode` is
/// `file_test_mode`). sysbench's reader writes these names, and
/// [`Tool::own_attribute_keys`] lists them.
pub mod sysbench_workload_keys {
    /// fileio's `--file-test-mode`: `seqwr`, `rndrw`, ...
    pub const FILE_TEST_MODE: &str = "file_test_mode";
    /// fileio's `--file-num`: how many files.
    pub const FILE_NUM: &str = "file_num";
    /// fileio's `--file-total-size`: `2GiB`.
    pub const FILE_TOTAL_SIZE: &str = "file_total_size";
    /// fileio's `--file-block-size`: `16KiB`.
    pub const FILE_BLOCK_SIZE: &str = "file_block_size";
    /// fileio's `--file-rw-ratio`: `1.50`.
    pub const FILE_RW_RATIO: &str = "file_rw_ratio";
    /// fileio's `--file-io-mode`: `sync`, `async`, `mmap`.
    pub const FILE_IO_MODE: &str = "file_io_mode";
    /// cpu's `--cpu-max-prime`: `10000`.
    pub const CPU_MAX_PRIME: &str = "cpu_max_prime";
    /// memory's `--memory-block-size`: `1KiB`.
    pub const MEMORY_BLOCK_SIZE: &str = "memory_block_size";
    /// memory's `--memory-total-size`: `100GiB`.
    pub const MEMORY_TOTAL_SIZE: &str = "memory_total_size";
    /// memory's `--memory-oper`: `read`, `write`.
    pub const MEMORY_OPER: &str = "memory_oper";
    /// memory's `--memory-scope`: `global`, `local`.
    pub const MEMORY_SCOPE: &str = "memory_scope";
    /// memory's `--memory-access-mode`: `seq`, `rnd`.
    pub const MEMORY_ACCESS_MODE: &str = "memory_access_mode";

    /// Every key, in Contract 2's order.
    pub const ALL: [&str; 12] = [
        FILE_TEST_MODE,
        FILE_NUM,
        FILE_TOTAL_SIZE,
        FILE_BLOCK_SIZE,
        FILE_RW_RATIO,
        FILE_IO_MODE,
        CPU_MAX_PRIME,
        MEMORY_BLOCK_SIZE,
        MEMORY_TOTAL_SIZE,
        MEMORY_OPER,
        MEMORY_SCOPE,
        MEMORY_ACCESS_MODE,
    ];
}

/// The keys of diskinfo's header (`diskinfo -v`, `-t` and the one-line
/// header of plain `diskinfo`), and the disk it describes. diskinfo's
/// reader writes these names, and [`Tool::own_attribute_keys`] lists them.
pub mod diskinfo_keys {
    /// The disk: `/dev/ada0`, `ada0`.
    pub const DEVICE: &str = "device";
    /// `# sectorsize`, in bytes.
    pub const SECTORSIZE: &str = "sectorsize";
    /// `# mediasize in bytes`.
    pub const MEDIASIZE_BYTES: &str = "mediasize_bytes";
    /// `# mediasize in sectors`.
    pub const MEDIASIZE_SECTORS: &str = "mediasize_sectors";
    /// `# stripesize`, in bytes.
    pub const STRIPESIZE: &str = "stripesize";
    /// `# stripeoffset`, in bytes.
    pub const STRIPEOFFSET: &str = "stripeoffset";
    /// `# Cylinders according to firmware.`
    pub const CYLINDERS: &str = "cylinders";
    /// `# Heads according to firmware.`
    pub const HEADS: &str = "heads";
    /// `# Sectors according to firmware.`
    pub const SECTORS: &str = "sectors";
    /// `# Disk descr.`: the model.
    pub const DESCRIPTION: &str = "description";
    /// `# Disk ident.`: the serial number.
    pub const IDENT: &str = "ident";
    /// `# Attachment`: the controller.
    pub const ATTACHMENT: &str = "attachment";
    /// `# Physical path`.
    pub const PHYSICAL_PATH: &str = "physical_path";
    /// `# TRIM/UNMAP support`: `Yes`, `No`.
    pub const TRIM: &str = "trim";
    /// `# Rotation rate in RPM`: a number, or `Unknown`.
    pub const ROTATION_RATE: &str = "rotation_rate";
    /// `# Zone Mode`.
    pub const ZONE_MODE: &str = "zone_mode";

    /// Every key, in the order diskinfo prints them.
    pub const ALL: [&str; 16] = [
        DEVICE,
        SECTORSIZE,
        MEDIASIZE_BYTES,
        MEDIASIZE_SECTORS,
        STRIPESIZE,
        STRIPEOFFSET,
        CYLINDERS,
        HEADS,
        SECTORS,
        DESCRIPTION,
        IDENT,
        ATTACHMENT,
        PHYSICAL_PATH,
        TRIM,
        ROTATION_RATE,
        ZONE_MODE,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_snake_case() {
        for (i, m) in METRICS.iter().enumerate() {
            assert!(
                m.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "metric {i} {:?} is not snake case",
                m.name
            );
            assert_eq!(
                METRICS.iter().filter(|o| o.name == m.name).count(),
                1,
                "metric {:?} listed twice",
                m.name
            );
        }
    }

    /// `Tool::metrics` is a list of its own beside the table (in an order
    /// of its own, which messages keep): each name must be the table's, or
    /// a comparison would be told to accept a metric the table refuses.
    #[test]
    fn every_headline_metric_is_in_the_table() {
        for tool in Tool::ALL {
            for name in tool.metrics() {
                assert!(
                    METRICS.iter().any(|m| m.name == *name),
                    "{tool}'s headline metric {name:?} is not in METRICS"
                );
            }
            assert!(!tool.metrics().is_empty(), "{tool} has no headline metric");
        }
    }

    /// A tool's own key is not a general one, is snake case and is listed
    /// once, so that each key has one home.
    #[test]
    fn tools_own_attribute_keys_are_theirs_alone() {
        let mut seen: Vec<&str> = ATTRIBUTE_KEYS.to_vec();
        for tool in Tool::ALL {
            for key in tool.own_attribute_keys() {
                assert!(
                    key.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                    "{tool}'s key {key:?} is not snake case"
                );
                assert!(!seen.contains(key), "{tool}'s key {key:?} is listed twice");
                seen.push(key);
            }
        }
    }

    #[test]
    fn interest_ranks_every_contract_attribute_once() {
        let mut ranked = ATTRIBUTES_BY_INTEREST.to_vec();
        let mut contract = ATTRIBUTE_KEYS.to_vec();
        ranked.sort_unstable();
        contract.sort_unstable();
        assert_eq!(ranked, contract);
    }

    #[test]
    fn every_percentile_sysbench_prints_keeps_its_name() {
        for (name, title) in [
            ("latency_p90_ms", "90th percentile latency"),
            ("latency_p1_ms", "1st percentile latency"),
            ("latency_p12_ms", "12th percentile latency"),
            ("latency_p23_ms", "23rd percentile latency"),
            ("latency_p100_ms", "100th percentile latency"),
            ("latency_p95_ms", "95th percentile latency"),
        ] {
            let info = metric_info(name).unwrap();
            assert_eq!((info.name, info.title, info.unit), (name, title, "ms"));
            assert!(!info.higher_is_better);
        }
        assert_eq!(metric_info("latency_p0_ms").unwrap().name, "latency_pNN_ms");
        assert!(metric_info("latency_pX_ms").is_none());
    }

    #[test]
    fn rates() {
        assert!(metric_info("iops").unwrap().is_rate());
        assert!(metric_info("iops").unwrap().is_throughput());
        assert!(metric_info("q_per_s").unwrap().is_throughput());
        assert!(!metric_info("wallclock_s").unwrap().is_rate());
        assert!(!metric_info("num_queries").unwrap().is_rate());
    }

    #[test]
    fn counts() {
        for count in [
            "num_queries",
            "tests",
            "transactions",
            "operations",
            "written_mib",
        ] {
            assert!(metric_info(count).unwrap().is_count(), "{count}");
        }
        for measure in [
            "q_per_s",
            "iops",
            "wallclock_s",
            "latency_p95_ms",
            "cpu_pct",
            "latency_us",
        ] {
            assert!(!metric_info(measure).unwrap().is_count(), "{measure}");
        }
    }

    #[test]
    fn run_fields_round_trip() {
        for field in PseudoField::ALL {
            assert_eq!(PseudoField::from_name(field.name()), Some(field));
        }
        assert_eq!(PseudoField::from_name("scheduler"), None);
    }

    #[test]
    fn directions() {
        assert!(metric_info("q_per_s").unwrap().higher_is_better);
        assert!(!metric_info("wallclock_s").unwrap().higher_is_better);
        assert!(metric_info("no_such_metric").is_none());
        assert_eq!(metric_info("latency_p90_ms").map(|m| m.unit), Some("ms"));
        assert!(metric_info("latency_p_ms").is_none());
    }
}
