//! The command line (Contract 4). Every option can also come from the
//! environment, which is how a service manager usually configures a server.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand};

use crate::limits;

/// benchlog: a results database and comparison dashboard for benchmark
/// output posted to mailing lists.
#[derive(Debug, Parser)]
#[command(version, about)]
pub struct Config {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the web dashboard.
    Serve(ServeArgs),
    /// Store files (and folders, recursively) in the database.
    Ingest(IngestArgs),
    /// Parse one input and print what was found; nothing is stored.
    Parse(ParseArgs),
    /// Print stored results as CSV, one row per result.
    Export(ExportArgs),
    /// Serve the dashboard on a fresh database holding the example logs.
    Demo(DemoArgs),
    /// Copy the database to PATH while it stays in use (SQLite's online
    /// backup): a consistent snapshot, even while the server writes. The
    /// database must exist; it is copied as it is, unmigrated.
    Backup(BackupArgs),
}

#[derive(Debug, Args)]
pub struct DbArgs {
    /// The SQLite database; created and migrated on open.
    #[arg(long, env = "BENCHLOG_DB", default_value = "benchlog.db")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct WebArgs {
    /// Address to listen on.
    #[arg(long, env = "BENCHLOG_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Serve /static from this folder instead of the stylesheets built
    /// into the binary (for working on them without a rebuild).
    #[arg(long, env = "BENCHLOG_STATIC_DIR", value_name = "DIR")]
    pub static_dir: Option<PathBuf>,
    /// The largest request body accepted (an upload), in bytes; larger ones
    /// are answered with 413.
    #[arg(long, env = "BENCHLOG_MAX_BODY_BYTES", default_value_t = limits::MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Uploads one client (IP address) may make per minute, after a burst
    /// of as many; more are answered with 429. 0 turns the limit off.
    #[arg(long, env = "BENCHLOG_UPLOADS_PER_MINUTE", default_value_t = limits::UPLOADS_PER_MINUTE)]
    pub uploads_per_minute: u32,
    /// Submissions one client may store per minute (each message of an
    /// uploaded archive is one), after a burst of as many; an upload that
    /// would pass it is answered with 429 and stores nothing. 0 turns the
    /// limit off.
    #[arg(long, env = "BENCHLOG_SUBMISSIONS_PER_MINUTE", default_value_t = limits::SUBMISSIONS_PER_MINUTE)]
    pub submissions_per_minute: u32,
    /// Edits and undos one client may send per minute, and one submission
    /// may take, after a burst of as many; more are answered with 429 and
    /// change nothing. 0 turns the limit off.
    #[arg(long, env = "BENCHLOG_EDITS_PER_MINUTE", default_value_t = limits::EDITS_PER_MINUTE)]
    pub edits_per_minute: u32,
    /// Fields (runs times fields named) the edits of one client, and of one
    /// submission, may change per minute, after a burst of as many; an
    /// edit that would pass it is answered with 429 and changes nothing.
    /// Below 10000 (the most one edit may change) it refuses the largest
    /// edits for good. 0 turns the limit off.
    #[arg(long, env = "BENCHLOG_EDIT_CHANGES_PER_MINUTE", default_value_t = limits::EDIT_CHANGES_PER_MINUTE)]
    pub edit_changes_per_minute: u32,
    /// Bytes (each changed field's name and value and 64 bytes, runs times
    /// fields) the edits of all clients together may write per hour, after a burst of
    /// as many; an edit that would pass it is answered with 503 and
    /// changes nothing. 0 turns the limit off.
    #[arg(long, env = "BENCHLOG_EDIT_BYTES_PER_HOUR", default_value_t = limits::EDIT_BYTES_PER_HOUR)]
    pub edit_bytes_per_hour: u64,
    /// Seconds a request may take before it is answered with 408.
    #[arg(long, env = "BENCHLOG_REQUEST_TIMEOUT", default_value_t = limits::REQUEST_TIMEOUT.as_secs())]
    pub request_timeout_secs: u64,
    /// A token that may change or delete any submission (entered on a
    /// submission's page, or sent as the form field `token`). Without it,
    /// only the uploader of a submission (holding its edit token) can.
    #[arg(long, env = "BENCHLOG_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Seconds a connection may take to send a request's headers, counted
    /// from its opening or its last answer; then it is closed. Silent
    /// connections would otherwise be held for ever.
    #[arg(long, env = "BENCHLOG_HEADER_READ_TIMEOUT",
          default_value_t = limits::HEADER_READ_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_read_timeout_secs: u64,
    /// Seconds an answer may wait for the client to read any of it; then
    /// the connection is closed, so a client that never reads holds
    /// neither its connection nor the answer's memory.
    #[arg(long, env = "BENCHLOG_WRITE_STALL_TIMEOUT",
          default_value_t = limits::WRITE_STALL_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_stall_timeout_secs: u64,
    /// Connections open at once; more are answered 503 and closed. By
    /// default what the open files limit leaves (the soft limit is raised
    /// to the hard one at start), at most 4,096. Keep it well under the
    /// process's file limit (`ulimit -Hn`).
    #[arg(long, env = "BENCHLOG_MAX_CONNECTIONS",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub max_connections: Option<usize>,
    /// Connections open at once from one client (IPv4 address, IPv6 /64
    /// network), so that one client cannot hold them all. Behind a reverse
    /// proxy every client is the proxy: raise it to --max-connections.
    #[arg(long, env = "BENCHLOG_MAX_CONNECTIONS_PER_IP",
          default_value_t = limits::MAX_CONNECTIONS_PER_IP,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub max_connections_per_ip: usize,
    /// Seconds requests under way may take to finish after SIGTERM or
    /// Ctrl-C; connections still busy then are closed.
    #[arg(long, env = "BENCHLOG_SHUTDOWN_GRACE",
          default_value_t = limits::SHUTDOWN_GRACE.as_secs(),
          value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub shutdown_grace_secs: u64,
    /// Megabytes that must stay free on the database's disk: below that,
    /// once the answers kept on disk are dropped, uploads are answered 503
    /// and /healthz says the disk is full, before a write fails half-way.
    /// The answers kept on disk leave more free (the README's limits).
    #[arg(long, env = "BENCHLOG_MIN_FREE_DISK_MB",
          default_value_t = limits::MIN_FREE_DISK_BYTES / (1024 * 1024))]
    pub min_free_disk_mb: u64,
}

impl WebArgs {
    /// The web layer's settings from these options.
    pub fn options(&self) -> crate::web::WebOptions {
        crate::web::WebOptions {
            max_body_bytes: self.max_body_bytes,
            uploads_per_minute: self.uploads_per_minute,
            submissions_per_minute: self.submissions_per_minute,
            edits_per_minute: self.edits_per_minute,
            edit_changes_per_minute: self.edit_changes_per_minute,
            edit_bytes_per_hour: self.edit_bytes_per_hour,
            request_timeout: std::time::Duration::from_secs(self.request_timeout_secs),
            admin_token: self.admin_token.clone().filter(|token| !token.is_empty()),
            header_read_timeout: std::time::Duration::from_secs(self.header_read_timeout_secs),
            write_stall_timeout: std::time::Duration::from_secs(self.write_stall_timeout_secs),
            max_connections: self.max_connections,
            max_connections_per_ip: self.max_connections_per_ip,
            shutdown_grace: std::time::Duration::from_secs(self.shutdown_grace_secs),
            min_free_disk_bytes: self.min_free_disk_mb.saturating_mul(1024 * 1024),
            static_dir: self.static_dir.clone(),
            ..crate::web::WebOptions::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub replication: ReplicationArgs,
    #[command(flatten)]
    pub web: WebArgs,
    /// Serve a read replica: the database is a copy that `litestream
    /// restore -f` keeps current from the primary's replica. It is read
    /// only; uploads and edits are answered with a page sending them to
    /// --primary-url, and `/healthz` tells how far behind the primary the
    /// copy is (docs/replicas.md).
    #[arg(
        long,
        env = "BENCHLOG_REPLICA",
        requires = "primary_url",
        conflicts_with = "replicated"
    )]
    pub replica: bool,
    /// The primary's address, where a replica sends what would write
    /// (`https://benchlog.example.org`).
    #[arg(long, env = "BENCHLOG_PRIMARY_URL", value_name = "URL", requires = "replica",
          value_parser = primary_url)]
    pub primary_url: Option<String>,
}

impl ServeArgs {
    /// What the server is to Litestream.
    pub fn role(&self) -> crate::web::Role {
        match (&self.primary_url, self.replication.replicated) {
            (Some(primary_url), _) if self.replica => crate::web::Role::Replica {
                primary_url: primary_url.clone(),
            },
            (_, true) => crate::web::Role::Primary,
            _ => crate::web::Role::Alone,
        }
    }
}

/// A primary's address: http or https, a host, no query; kept without
/// the `/` at its end.
fn primary_url(given: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(given).map_err(|error| format!("not an address: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("give the primary's http:// or https:// address".to_owned());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("give the primary's address without a query or fragment".to_owned());
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// Whether Litestream replicates the database (docs/replicas.md).
#[derive(Debug, Args)]
pub struct ReplicationArgs {
    /// Litestream replicates the database: leave every checkpoint to it
    /// (none at commit, none after bulk writes), so that no frame of the
    /// log is checkpointed away before it has copied it. The server also
    /// writes a heartbeat every second, by which replicas tell their lag.
    /// A database holding Litestream's own tables is treated so anyway.
    #[arg(long, env = "BENCHLOG_REPLICATED")]
    pub replicated: bool,
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub replication: ReplicationArgs,
    /// Files or folders; folders are read recursively, `.gz` files unpacked.
    /// Mail archives (mbox, `.eml`) become one submission per message; so
    /// do the commits of a public-inbox archive (a folder holding
    /// `git/N.git`, or a v1 repository) not read by an earlier import. An
    /// `http://` or `https://` address is fetched: a pipermail or mailman
    /// month (`2006-April.txt.gz`), or an archive's index page, whose
    /// months are fetched one at a time, those unchanged since the last
    /// import skipped (If-Modified-Since).
    #[arg(required = true, value_name = "PATH|URL")]
    pub paths: Vec<PathBuf>,
    /// Where to write the list of messages that could not be read, and why
    /// (default: `benchlog-ingest-report.txt` next to the database).
    #[arg(long, env = "BENCHLOG_INGEST_REPORT", value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// Texts and mail messages stored per transaction at most; a
    /// transaction also ends at its bounds of text and of time holding the
    /// write lock (the README lists them). A file is reported once the
    /// transaction holding all of it is committed.
    #[arg(long, value_name = "N", default_value_t = limits::BATCH_ITEMS as u64,
          value_parser = clap::value_parser!(u64).range(1..=limits::BATCH_ITEMS as u64))]
    pub batch: u64,
    /// Keep the full text of every message of a public-inbox archive. By
    /// default a message that holds no run or near miss, and answers none,
    /// keeps only its headers and where the archive keeps its text.
    #[arg(long)]
    pub keep_all_text: bool,
    /// Read each public-inbox archive again from its first commit, not
    /// from where the last import stopped: the messages stored already
    /// are found by their bytes and skipped, the others stored (a message
    /// an earlier import could not read, say). Files are always read
    /// whole.
    #[arg(long)]
    pub reread: bool,
}

impl IngestArgs {
    /// Where each public-inbox archive is read from (`--reread`).
    pub fn start(&self) -> crate::import::public_inbox::Start {
        match self.reread {
            true => crate::import::public_inbox::Start::Beginning,
            false => crate::import::public_inbox::Start::Mark,
        }
    }

    /// What a public-inbox archive's messages keep of their text
    /// (`--keep-all-text`).
    pub fn keep(&self) -> crate::import::public_inbox::KeepTexts {
        match self.keep_all_text {
            true => crate::import::public_inbox::KeepTexts::All,
            false => crate::import::public_inbox::KeepTexts::WithFindings,
        }
    }
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// The file to parse, or `-` for standard input.
    pub path: PathBuf,
    /// Print the whole Document as JSON (Contract 1) instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// `benchlog export --csv`: every stored result, or, given a tool and a
/// metric, the comparison `/compare.csv` gives for the same query.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Write CSV (the only format so far).
    #[arg(long)]
    pub csv: bool,
    /// The whole query as /compare takes it, e.g.
    /// 'tool=super-smack&metric=q_per_s&by=scheduler' (instead of the options below).
    #[arg(long, value_name = "QUERY_STRING", conflicts_with_all = ["tool", "test", "item", "metric", "x", "by", "wheres", "baseline", "conf"])]
    pub query: Option<String>,
    /// Only this tool's results (super-smack, sysbench, sql-bench, bonnie, diskinfo).
    #[arg(long)]
    pub tool: Option<String>,
    /// Only runs of this test (e.g. select-key).
    #[arg(long)]
    pub test: Option<String>,
    /// Only this item (e.g. select_index).
    #[arg(long)]
    pub item: Option<String>,
    /// Only this metric (e.g. q_per_s); with --tool, the comparison's CSV.
    #[arg(long)]
    pub metric: Option<String>,
    /// The comparison's x axis: threads, or none for bars per item.
    #[arg(long)]
    pub x: Option<String>,
    /// One series per combination of these attributes (repeat for several).
    #[arg(long, value_name = "ATTR")]
    pub by: Vec<String>,
    /// Only runs whose attribute has this value, as ATTR:VALUE; repeat to
    /// narrow further (the same ATTR twice means either value).
    #[arg(long = "where", value_name = "ATTR:VALUE")]
    pub wheres: Vec<String>,
    /// The series the others are compared with (its name, e.g. "ULE / libthr").
    #[arg(long, value_name = "SERIES")]
    pub baseline: Option<String>,
    /// The confidence level of the differences to the baseline: 80, 90,
    /// 95 (the default), 98, 99 or 99.5.
    #[arg(long, value_name = "PERCENT")]
    pub conf: Option<String>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    #[command(flatten)]
    pub web: WebArgs,
    /// Where the demo database goes; it is recreated on every start.
    #[arg(long, env = "BENCHLOG_DEMO_DIR", default_value = "demo-data")]
    pub data_dir: PathBuf,
    /// Load the example logs of this folder (every *.txt and *.mbox below
    /// it) instead of those built into the binary.
    #[arg(long, env = "BENCHLOG_FIXTURES", value_name = "DIR")]
    pub fixtures: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Where the copy goes; it must not exist yet.
    pub path: PathBuf,
}
