//! Every resource limit of the app, and the defaults of the `benchlog
//! serve` options, each with the reason for its value (as SQLite's
//! `sqliteLimit.h` keeps its own). The code that enforces a limit imports
//! it from here, so a value is written once; the parsers crate keeps its
//! own few (`parsers::mbox::MAX_REFERENCES` and its neighbours).
//!
//! The README's options and limits tables say these numbers to users: a
//! test below reads both tables and fails when a number there is not the
//! one here.

use std::ffi::c_int;
use std::time::Duration;

// ---------------------------------------------------------------------
// Uploads (`POST /upload`)
// ---------------------------------------------------------------------

/// The largest request body accepted by default (uploads), the default of
/// `--max-body-bytes`. axum's own 2 MB default is switched off so that
/// [`crate::web::WebOptions::max_body_bytes`] is the one limit.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Inputs larger than this (after gunzip) are refused; the largest real
/// archive month is a few MB.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Lines longer than this are refused: no benchmark prints one, and a
/// megabyte-long line is some other kind of file.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// The longest title: a first line taken for one, or one given with an
/// upload.
pub const MAX_TITLE_CHARS: usize = 100;

/// Most inputs (the pasted text and files) one upload may carry.
pub const MAX_UPLOAD_PARTS: usize = 20;

/// Most submissions one upload may store (each message of an archive is
/// one; a busy list's month is a few hundred): more would hold the write
/// lock for long. `benchlog ingest` takes archives of any count.
pub const MAX_SUBMISSIONS_PER_UPLOAD: usize = 1_000;

/// Request bodies all uploads in flight may hold at once, in KiB (64 MiB):
/// each waits for its Content-Length's share (the body limit when it has
/// none) before it is read.
pub const BODY_BUDGET_KIB: usize = 64 * 1024;

/// The part of [`BODY_BUDGET_KIB`] one client's uploads may hold at once,
/// in KiB: a quarter, one body of the default [`MAX_BODY_BYTES`]. Four
/// slow 16 MiB bodies from one address held the whole budget until their
/// request timeout, and another client's paste waited 59 s; now a
/// client's further bodies wait for its own part, and one body alone
/// always goes (as [`CLIENT_ANSWER_BYTES`] does for answers).
pub const CLIENT_BODY_KIB: usize = BODY_BUDGET_KIB / 4;

/// The window in which a request body being read must bring
/// [`MIN_BODY_BYTES_PER_WINDOW`] (or the rest of it): nginx's
/// `client_body_timeout` idea, so that a body sent a few bytes at a time
/// gives its part of the budget up within seconds, not at the request
/// timeout. Long enough for a stalled mobile link to recover.
pub const BODY_RATE_WINDOW: Duration = Duration::from_secs(10);

/// The least a body must bring in each [`BODY_RATE_WINDOW`]: 64 KiB in
/// 10 s is 52 kbit/s, slower than any link a paste is sent over today
/// (and at that rate a 16 MiB body would miss the request timeout by far
/// anyway). Less gets 408, and nothing is stored.
pub const MIN_BODY_BYTES_PER_WINDOW: usize = 64 * 1024;

/// Uploads at work at once (unpacking, decoding, parsing and storing):
/// the rest wait their turn holding only their bodies, which
/// [`BODY_BUDGET_KIB`] bounds. Uploads are stored one after another
/// anyway (there is one writer), so more at work bought no speed, only
/// memory: each holds its text, its parsed messages and runs, and a
/// connection's bulk page cache ([`BULK_CACHE_KIB`]). Three 16 MB mboxes
/// posted at once were answered at 2.1, 4.3 and 6.4 s with all three at
/// work, 2.3, 4.5 and 7.1 s with one, and the server's peak RSS fell from
/// 321 to 224 MB (scripts/upload-memory.py, median of three rounds).
pub const UPLOADS_AT_WORK: usize = 1;

/// How long the edit token of an upload committed after its client left
/// (so that nobody received it) is kept for that client's next try of the
/// same upload: a retry comes within seconds or a minute, and the
/// shorter the time, the less chance another party at the same address
/// sends the same public text first.
pub const UNRECEIVED_TOKEN_KEPT: Duration = Duration::from_secs(10 * 60);

/// Such uploads kept at most, the oldest forgotten first: each is a token
/// and up to [`MAX_SUBMISSIONS_PER_UPLOAD`] ids. Clients leaving during
/// a commit are rare (3 of 44 stopped at random moments).
pub const MAX_UNRECEIVED_KEPT: usize = 256;

/// Most submissions one upload's notice lists in its redirect; more get a
/// page of their own.
pub const MAX_UPLOADED_IN_URL: usize = 100;

/// Most submissions one upload's notice lists.
pub const MAX_UPLOADED_SHOWN: usize = 100;

/// The default of `--uploads-per-minute`: uploads one client may make a
/// minute, after a burst of as many.
pub const UPLOADS_PER_MINUTE: u32 = 30;

/// The default of `--submissions-per-minute`: submissions one client may
/// store a minute (each message of an archive is one), after a burst of
/// as many: two uploads of the most messages.
pub const SUBMISSIONS_PER_MINUTE: u32 = 2_000;

/// The default of `--min-free-disk-mb` (in bytes): what one upload may
/// unpack, so that an upload let in finds room for its text.
pub const MIN_FREE_DISK_BYTES: u64 = MAX_INPUT_BYTES;

// ---------------------------------------------------------------------
// Ingest (`benchlog ingest`)
// ---------------------------------------------------------------------

/// The largest file `benchlog ingest` reads, on disk and unpacked
/// (uploads keep the smaller [`MAX_INPUT_BYTES`]). A file is held whole
/// while its messages are read, so this bounds the memory an import takes;
/// a busy list's month is a few MB, a year of one under 100 MB.
pub const MAX_ARCHIVE_BYTES: u64 = 256 * 1024 * 1024;

/// Ancestors looked up for a mail: one per quote depth that real threads
/// reach, and each costs a query under the write lock.
pub const MAX_ANCESTORS: usize = 16;

/// Blocks of a post's outline (headings, banners, list items, lead-ins,
/// captions) stored per run as where its label came from, for uploads and
/// imports alike: the nearest ones to the run are kept. The parsers give
/// a path of nested headings and the caption or list item under them;
/// markdown has six levels of heading, so real posts give one to three
/// and 8 is never reached but by a made-up text.
pub const MAX_LABEL_SOURCES: usize = 8;

/// Objects (messages, or commits with their trees) a public-inbox import
/// reads through one opening of a repository before it opens it again,
/// unmapping the pages of its packs read so far
/// (`public_inbox::Reopening`): a few ms each time, against up to a
/// whole pack in the import's RSS.
pub const PACK_WINDOW_OBJECTS: usize = 4096;

/// Threads decoding and parsing an import's messages at once
/// (`import::prepare`), at most: the machine's cores up to this. Each
/// holds one message; the queue bounds how many wait.
pub const MAX_PREPARE_THREADS: usize = 4;

/// Steps in flight between the reading thread and the writer; each holds
/// at most one message or one text (up to [`MAX_INPUT_BYTES`]), and all
/// of them [`QUEUE_BYTES`] of text. Enough for the reading thread and
/// the workers to go on while the writer finishes and commits a batch
/// (its full-text index, sums and attributes, written at once): with 64
/// they stopped after 64 messages, and an import of linux-btrfs (75,581
/// messages) took 10.34 s; with 1,024, 8.88 s (peak RSS 218 -> 230 MB;
/// 2,048 gained nothing more for 10 MB, 4,096 passed 250 MB).
pub const QUEUE: usize = 1024;

/// Text those steps hold at most (a larger step goes alone): with
/// [`BATCH_BYTES`], what an import holds of what it read, whatever its
/// messages' sizes.
pub const QUEUE_BYTES: usize = 64 * 1024 * 1024;

/// Texts and messages stored per transaction at most, unless told fewer
/// (`benchlog ingest --batch`): one commit per message would cost more
/// than the parsing.
pub const BATCH_ITEMS: usize = 4096;

/// Bytes of text stored per transaction at most.
pub const BATCH_BYTES: usize = 64 * 1024 * 1024;

/// The longest a transaction of an import takes texts and messages for,
/// unless one text alone takes longer. It then stores the batch's staged
/// attributes and writes its full-text index ([`crate::store::Writer::finish`]),
/// work that grows with what the batch took, and commits: 0.81-0.89 s after
/// 1.18 s of storing 2,000 result-heavy mails, 0.46 s after 0.25 s of
/// storing 4,096 messages of the prose-heavy archive (scripts/bench-ingest.sh's
/// inputs).
pub const MAX_LOCK_HOLD: Duration = Duration::from_secs(2);

// ---------------------------------------------------------------------
// Archives by their address (`benchlog ingest URL`)
// ---------------------------------------------------------------------

/// The largest index page read: mailman's index of 25 years of months is
/// about 100 KiB (a real one of 20 months: 9 KiB). A page is read up to
/// this before it must show itself a month to be read on (to
/// [`MAX_ARCHIVE_BYTES`]), so an index never costs more.
pub const MAX_INDEX_BYTES: u64 = 4 * 1024 * 1024;

/// Month archives followed from one index page: 25 years of a list's
/// weekly archives (mailman's smallest period but daily) are 1,300.
pub const MAX_INDEX_MONTHS: usize = 2_000;

/// How much of a fetched page is unpacked to tell a month from an index:
/// more than the header lines `mbox::detect` reads of a first message.
pub const SNIFF_BYTES: usize = 256 * 1024;

/// The longest `Last-Modified` or `ETag` kept as a month's mark (an HTTP
/// date is 29 bytes, a tag a quoted hash).
pub const MAX_MARK_BYTES: usize = 256;

/// Redirects followed for one request (http to https, a page moved on
/// its host). One to another host or port is refused, as an index's
/// links to one are (`pipermail::same_archive`).
pub const MAX_REDIRECTS: usize = 5;

/// The longest a server's `Retry-After` (on 429 or 503) is waited for
/// before a request is made once more; a longer wait, or a second such
/// answer, fails that month, with why.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// How long a request waits to connect, and for each read or write: a
/// server that stops sending fails the month, with why, not the import.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest one page (a month or the index) may take, from the
/// request to its last byte. [`HTTP_TIMEOUT`] alone let a server that
/// sends a byte every 59 s hold an import for ever; a busy list's month
/// is a few MB, read in seconds, and the largest allowed
/// ([`MAX_ARCHIVE_BYTES`]) arrives in this time at 450 KB/s. Past it the
/// page fails, with why, as a stalled one does.
pub const MAX_TRANSFER_TIME: Duration = Duration::from_secs(600);

// ---------------------------------------------------------------------
// Pages and queries
// ---------------------------------------------------------------------

/// The most `by` attributes a comparison groups by. Each is one more
/// column and lookup per result row in one SQL statement, whose size
/// SQLite bounds (2,100 of them made a 500), and multiplies the series
/// past what a chart can show.
pub const MAX_BY: usize = 8;

/// The most `where=` filters a comparison or the runs table takes. Each
/// is a condition or a lookup in one SQL statement, whose size SQLite
/// bounds (a thousand made a 500).
pub const MAX_WHERE: usize = 16;

/// The most `key=value` pairs a query string may hold, empty ones
/// included: room for every field, the `by` and `where` limits and a
/// form's empty boxes.
pub const MAX_QUERY_PAIRS: usize = 64;

/// The longest query string read, in bytes (before decoding).
pub const MAX_QUERY_BYTES: usize = 32 * 1024;

/// How many run ids one statement binds: a page's runs in one query each,
/// far below SQLite's limit on parameters (32,766), which a whole
/// submission's runs could pass.
pub const IDS_PER_QUERY: usize = 10_000;

/// Submissions per page of the list.
pub const SUBMISSIONS_PER_PAGE: usize = 50;

/// Runs per page of `/runs`.
pub const RUNS_PER_PAGE: usize = 100;

/// Runs a run's page (`/runs/{id}`) lists as most like it: a screen of
/// rows to read side by side, few enough that the comparison of them all
/// stays a chart one reads (the rest are counted: "and N more").
pub const LIKE_RUNS_SHOWN: usize = 20;

/// Comparison points (a configuration at one thread count) of a run's
/// tool, test and item that its page reads to find the runs most like
/// it, the newest configurations first: a range of one index, ranked in
/// memory in well under a millisecond. Older configurations past it are
/// not considered, and the page says so.
pub const LIKE_POINTS_READ: usize = 2_000;

/// Lines of a run's report its page shows: reports are a screen or less;
/// a longer span is cut, and its submission's page has the rest.
pub const RUN_SOURCE_LINES: usize = 200;

/// Lines of text a submission's page shows.
pub const PART_LINES: usize = 2_000;

/// Most runs, messages and near misses a submission's page lists (those
/// touching its lines); /runs lists every run.
pub const PART_ROWS: usize = 500;

/// Runs a block of a submission's text tagged "label of run N" names on
/// its page (a heading may name every run of a long text); the rest are
/// counted ("and 40 more runs").
pub const LABEL_TAGS_PER_BLOCK: usize = 8;

/// Characters of one line a page shows: a line may be 1 MiB long.
pub const SHOWN_LINE_CHARS: usize = 2_000;

/// Bytes of HTML the text of one page may take (escaped: a `<` is four):
/// past it, the lines of the part are cut. [`PART_LINES`] lines of
/// [`SHOWN_LINE_CHARS`] characters would be up to 20 MB.
pub const PART_TEXT_BYTES: usize = 2 * 1024 * 1024;

/// Bytes of HTML (about) one page may spend on its runs, their values,
/// attributes and forms: the rest of the part's runs are listed on further
/// pages (`runs=N`). 500 runs of 63 attributes made a 28 MB page.
pub const PART_RUN_BYTES: usize = 2 * 1024 * 1024;

/// Bytes of text a page shows, beyond which it is rendered on a blocking
/// thread.
pub const SMALL_PAGE_BYTES: usize = 256 * 1024;

/// Most messages a thread's page shows (the first, by date).
pub const MAX_THREAD_MAILS: usize = 1_000;

/// Most runs (and most quotes) a thread's page reads.
pub const MAX_THREAD_RUNS: usize = 2_000;

/// Deeper replies are drawn at this depth: the page stays readable.
pub const MAX_INDENT: usize = 8;

/// How many of the submissions a message quotes runs from a list names.
pub const QUOTED_FROM_SHOWN: usize = 3;

/// Newest submissions the home page lists; the rest are on /submissions.
pub const RECENT: usize = 10;

/// Ready comparisons the home page draws; each submission page links its
/// own.
pub const READY: usize = 6;

/// How many groups of runs (a submission's runs of one tool and test) are
/// weighed for the [`READY`] drawn: those with the most proven
/// differences are drawn first.
pub const READY_CANDIDATES: usize = 24;

/// How many of the newest runs are looked through for ready comparisons:
/// a home page shows recent ones, and looking costs a read of each run's
/// attributes.
pub const READY_SCAN_RUNS: usize = 3000;

/// Most items a test gets ready-comparison links for; sql-bench prints
/// dozens.
pub const MAX_ITEMS_PER_TEST: usize = 12;

/// The most series a small chart on the home page shows: as many as
/// there are distinct colours; more no longer read at a glance.
pub const MAX_HEADLINE_SERIES: usize = 12;

/// Runs linked per table cell: enough to reach a source, few enough that a
/// point of thousands of repeats stays a line.
pub const RUN_LINKS: usize = 8;

/// How many attribute values the comparison form suggests at most.
pub const ATTR_VALUE_LIMIT: usize = 500;

/// At most this many cells (items × series) make a matrix. Neither the
/// items (the tool's names found in the data) nor the series (one per
/// combination of the `by` values found) have a bound of their own, and
/// a sparse comparison (each series with an item of its own) would
/// otherwise grow as their product while its points stay few; past this
/// the table stays one row per point, which grows only with the points.
/// 2,000 holds sql-bench's ~60 items by 24 series, or bonnie's ~50
/// machines by its items, with room.
pub const MAX_MATRIX_CELLS: usize = 2_000;

/// The most series one chart draws; past it, panels.
pub const MAX_SERIES: usize = 12;

/// The most values an attribute along x (`x=os_version`) is drawn at:
/// the first this many in version order; the results at the others are
/// left out, and a notice counts them and says to narrow with `where=`.
/// Each value is a tick (labels that would touch are skipped) and a row
/// of every series' table; the sql-bench fixtures' dozen kernels and
/// FreeBSD's releases of a decade fit well under it.
pub const MAX_X_VALUES: usize = 60;

/// The most bars one chart of bars draws; past it, a panel per category.
pub const MAX_BARS: usize = 40;

/// The tallest image drawn; panels past it are left out, and the note
/// says how many.
pub const MAX_HEIGHT: u32 = 6000;

/// The widest grid drawn, for many panels with long labels.
pub const MAX_GRID_WIDTH: u32 = 2000;

// ---------------------------------------------------------------------
// Edits (`POST /submissions/{id}/edit`, `/undo`)
// ---------------------------------------------------------------------

/// The longest attribute name an edit may set: a name (like
/// `os_version`), not a text.
pub const MAX_KEY_CHARS: usize = 40;

/// The longest label or attribute value an edit may set: a word or a
/// short phrase, which the run's page shows several times.
pub const MAX_VALUE_CHARS: usize = 200;

/// The largest edit form: a run's form with [`MAX_ATTRS_PER_RUN`] boxes
/// full is about 20 KB.
pub const MAX_FORM_BYTES: usize = 64 * 1024;

/// Most attributes one run may have (parsers give about ten): every
/// attribute is shown on the run's page and offered in its forms.
pub const MAX_ATTRS_PER_RUN: usize = 64;

/// Most fields (label and attributes) one edit may set.
pub const MAX_FIELDS_PER_EDIT: usize = MAX_ATTRS_PER_RUN + 1;

/// Most changes (runs times fields) one edit may write while it holds
/// the database's write lock: about half a second of it (an edit of
/// 19,656 changes held it for 3.8 s and made others' uploads wait past
/// the busy timeout), and 500 runs of 20 fields.
pub const MAX_CHANGES_PER_EDIT: usize = 10_000;

/// What each change of an edit counts for [`MAX_EDIT_BYTES`] besides its
/// name and value: the rows and index entries that keep it (the value in
/// force, the correction log, the parser's original), about 300 bytes on
/// disk, of which the name and value are repeated in several.
pub const EDIT_CHANGE_BYTES: usize = 64;

/// Most bytes one edit may write, counted as its changes' names and
/// values and [`EDIT_CHANGE_BYTES`] each. A value is stored about ten
/// times (in force with its four indexes, in the correction log, in the
/// run's new configuration with its unique index), and the write-ahead
/// log holds it once more until a checkpoint: an edit of this size grows
/// the database and its log by at most about 25 MB (one of 60 attributes
/// of 200 characters on 300 runs, 3.7 MB, grew them by 600 MB). 300 runs
/// given one 200-character attribute each count 80 KB.
pub const MAX_EDIT_BYTES: usize = 1 << 20;

/// The default of `--edit-bytes-per-hour`: what the edits of every client
/// together may write an hour ([`MAX_EDIT_BYTES`]' measure), after a
/// burst of as many. Per-client limits alone let many addresses (a /64
/// holds 2^64) fill the disk through the correction log, which keeps
/// every value a pinned link may show: this holds the database's growth
/// by edits to about 40 MB an hour, whoever sends them (eight edits of
/// the largest size, 9,984 changes each, grew it and its log by 36 MB;
/// scripts/edit-growth.py log).
pub const EDIT_BYTES_PER_HOUR: u64 = 8 << 20;

// The most changes one edit may make fit in its bytes with values to
// spare, and the largest edit fits in an hour's budget.
const _: () = assert!(MAX_CHANGES_PER_EDIT * EDIT_CHANGE_BYTES <= MAX_EDIT_BYTES * 2 / 3);
const _: () = assert!(MAX_EDIT_BYTES as u64 <= EDIT_BYTES_PER_HOUR);

/// The default of `--edits-per-minute`: edits and undos one client may
/// send a minute, and one submission may take, after a burst of as many.
pub const EDITS_PER_MINUTE: u32 = 60;

/// The default of `--edit-changes-per-minute`: one edit of the most
/// fields, then a field every 6 ms.
pub const EDIT_CHANGES_PER_MINUTE: u32 = MAX_CHANGES_PER_EDIT as u32;

/// Most edit-token cookies one request is checked with.
pub const MAX_TOKEN_COOKIES: usize = 50;

// ---------------------------------------------------------------------
// Server: requests, connections, answers and memory
// ---------------------------------------------------------------------

/// The longest request target (path and query) answered; longer ones get
/// 414. The longest comparison link the pages make is far below this.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The most header bytes (names, values and their separators) a request
/// may carry; more get 431. Browsers send a few KiB, most of it cookies.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// The most header fields a request may carry; more get 431. hyper's own
/// default limit, which it would answer with an empty 431.
pub const MAX_HEADER_COUNT: usize = 100;

/// What hyper parses before the server's `refuse_oversized_heads` sees
/// the request: twice [`MAX_HEADER_COUNT`], so that a request a little
/// over it is told why.
pub const HYPER_MAX_HEADERS: usize = 2 * MAX_HEADER_COUNT;

/// hyper's read buffer per connection, the most of a request head it holds
/// while parsing. Heads larger than this get hyper's own empty 431, so it
/// is kept well above [`MAX_URI_BYTES`] + [`MAX_HEADER_BYTES`] for nearly
/// every oversized request to reach the server's `refuse_oversized_heads`;
/// and it bounds what silent clients can make the server hold (128 KiB
/// times [`MAX_CONNECTIONS`]: 512 MiB at most).
pub const READ_BUFFER_BYTES: usize = 128 * 1024;

const _: () = assert!(READ_BUFFER_BYTES >= 2 * (MAX_URI_BYTES + MAX_HEADER_BYTES));

/// The default of `--request-timeout-secs`: longer requests are answered
/// with 408.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The default of `--header-read-timeout-secs`: a connection that has not
/// sent a whole request head this long after opening (or after its last
/// answer) is closed; silent connections would otherwise be held for ever.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long an answer may wait for its client to read any of it: a client
/// that asks and never reads would otherwise hold its connection, and the
/// answer's memory, for as long as it likes (50 such clients of a 28 MB
/// page held 1.5 GB). The default of `--write-stall-timeout-secs`.
pub const WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The most connections `benchlog serve` holds at once when
/// `--max-connections` is not given ([`max_connections_for`]), for memory:
/// a silent connection costs about 3 KB (3,000 of them grew the server by
/// 8 MiB), but one sending a long request head slowly can
/// hold hyper's whole read buffer ([`READ_BUFFER_BYTES`]) until the
/// header-read timeout, so 4,096 of them hold 512 MiB at worst. It used
/// to be 512, under the usual soft file limit of 1,024: 520 addresses,
/// each holding one silent connection, took every place.
pub const MAX_CONNECTIONS: usize = 4_096;

/// Open files kept back from connections for everything else the server
/// opens: three per database connection (the database, its WAL and
/// shared memory; the dashboard's, the light lane's, the checkpointer's
/// and the writer's), two per answer kept on disk, a socket per
/// connection waiting for a place ([`MAX_WAITING`]), and 64 more (the
/// listener, the event loop, logs, uploads' temporary files).
pub const FILES_KEPT_BACK: u64 = 3
    * (IDLE_CONNECTIONS + BUSY_CONNECTIONS + LIGHT_THREADS + 2) as u64
    + 2 * (DISK_CACHE_BYTES / DISK_ANSWER_BYTES)
    + MAX_WAITING as u64
    + 64;

/// The default of `--max-connections`, from the process's open files
/// limit (`benchlog serve` raises its soft limit to the hard one at
/// start): what [`FILES_KEPT_BACK`] leaves, at most [`MAX_CONNECTIONS`];
/// half the limit when it is too low to keep that many back.
pub const fn max_connections_for(files: u64) -> usize {
    let left = if files > 2 * FILES_KEPT_BACK {
        files - FILES_KEPT_BACK
    } else {
        files / 2
    };
    if left > MAX_CONNECTIONS as u64 {
        MAX_CONNECTIONS
    } else {
        left as usize
    }
}

/// The default of `--max-connections-per-ip`: connections open at once
/// from one client (IPv4 address, IPv6 /64), so that one client cannot
/// hold them all.
pub const MAX_CONNECTIONS_PER_IP: usize = 64;

/// The default of `--shutdown-grace-secs`: how long requests under way may
/// finish after SIGTERM or Ctrl-C.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Refused and closed connections are logged at most once this often,
/// with how many there were: an attack would otherwise write a line per
/// connection, and a quiet log hid one that refused 99% of requests.
pub const REFUSAL_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// How long a connection of a client at its cap whose connections are all
/// busy waits for one of them to end before it is refused: a client that
/// closes a connection and opens the next at once was refused when the
/// server had not seen the close yet (0.7–2.8% of such reconnections).
pub const RECONNECT_GRACE: Duration = Duration::from_millis(100);

/// Connections waiting for a place ([`RECONNECT_GRACE`]) at most; more are
/// refused at once.
pub const MAX_WAITING: usize = 128;

/// The most of an answer given to hyper at a time. hyper takes a body's
/// data whole and drops the body, so what the server's `Holding` holds
/// would be let go before a byte is sent; in pieces, hyper asks for the
/// next only when it has room to write (its buffer is
/// [`READ_BUFFER_BYTES`]), and the body lives until its last piece is on
/// its way.
pub const ANSWER_CHUNK_BYTES: usize = 64 * 1024;

/// The most of an answer kept on disk read from its file at a time: one
/// buffer, filled by `pread` without being zeroed first and handed on to
/// hyper in [`ANSWER_CHUNK_BYTES`] slices without a copy. Zeroed 64 KiB
/// buffers cost a third of the server's time in page faults and TLB
/// flushes; a 25.8 MB answer is now 99 reads. A connection holds about
/// one at a time: [`MAX_CONNECTIONS`] slow readers, 1 GiB at most.
pub const FILE_PIECE_BYTES: usize = 256 * 1024;

/// Answers this large or larger (uncompressed) count against the answer
/// budget; smaller ones hold too little to matter, however many wait.
pub const LARGE_ANSWER_BYTES: u64 = 256 * 1024;

/// Bytes of large answers being sent at once, in all.
pub const ANSWER_BUDGET_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes of large answers being sent at once to one client (as the
/// server counts clients): a quarter of the budget, so that one client
/// cannot hold it all.
pub const CLIENT_ANSWER_BYTES: u64 = ANSWER_BUDGET_BYTES / 4;

/// Bytes of large answers sent from unnamed files beside the database at
/// once, when the answers being sent from memory hold the whole
/// [`ANSWER_BUDGET_BYTES`] (a client at most a quarter of them): a few
/// never-reading clients holding that budget refused a 4.6 MB page to
/// everyone (58 of 66 asks). A file costs no memory but the piece being
/// sent; each lasts until its answer is sent or its client stalls
/// ([`WRITE_STALL_TIMEOUT`]), and none is written below the disk's free
/// space floor (`--min-free-disk-mb`).
pub const SPILLED_ANSWER_BYTES: u64 = 512 * 1024 * 1024;

/// Bytes of answers the answer cache keeps at most (bodies, keys and
/// tags). A comparison page is 10–100 KB, a chart 5–60 KB: a few hundred
/// answers.
pub const CACHE_BYTES: u64 = 24 * 1024 * 1024;

/// Bytes the answer cache keeps in memory for large answers (those a part
/// of the main store could not hold, up to [`DISK_ANSWER_BYTES`]), in
/// one part: four of the largest.
pub const LARGE_CACHE_BYTES: u64 = 32 * 1024 * 1024;

/// Answers larger than this are kept on disk, not in memory. The cache
/// library refuses an item over about 32.5 MB whatever its budget, so
/// the 32.7 MB `/compare.json` of 10.8M results was made again for every
/// request (3.3 req/s); and four of them in memory would be most of what
/// the server may hold. From a file in the page cache they are sent as
/// fast as the client reads, in pieces, holding no more than a piece.
pub const DISK_ANSWER_BYTES: u64 = 8 * 1024 * 1024;

/// Bytes of answers kept on disk (each one's body and its gzip copy), in
/// unnamed files beside the database, oldest out first: a dozen
/// comparisons of 10M results. They also keep to a floor of free space
/// of their own, above the uploads' one ([`DISK_CACHE_HEADROOM_BYTES`],
/// [`DISK_CACHE_SHARE_PERCENT`]).
pub const DISK_CACHE_BYTES: u64 = 512 * 1024 * 1024;

/// Free space the answers kept on disk leave above `--min-free-disk-mb`
/// (the uploads' floor), at least: two of the largest uploads. With the
/// floor alone, 25 comparisons took a 325 MB disk to 84 MB free, 20 MB
/// above it, and the next 3.5 MB paste left uploads and `/healthz` saying
/// the disk was full; now a disk the cache filled still takes uploads
/// before anything must be dropped (and the files go, oldest first,
/// before anyone is told the disk is full).
pub const DISK_CACHE_HEADROOM_BYTES: u64 = 2 * MAX_INPUT_BYTES;

/// The share (percent) of the room above `--min-free-disk-mb` that the
/// answers kept on disk may hold, their own files counted in that room:
/// half, so that they never leave the uploads less than they take, on a
/// small disk as on a large one.
pub const DISK_CACHE_SHARE_PERCENT: u64 = 50;

/// Rate-limit buckets kept before full ones are forgotten (a full bucket
/// is the same as none).
pub const MAX_BUCKETS: usize = 10_000;

/// Threads (each with its own connection) of the light lane: one per core
/// of the machines benchlog runs on; each piece of work is a few
/// microseconds of SQLite.
pub const LIGHT_THREADS: usize = 2;

/// Pieces of light work waiting at most; more wait to be queued, on the
/// async side, holding nothing but their request.
pub const LIGHT_QUEUE: usize = 1024;

// ---------------------------------------------------------------------
// Database connections
// ---------------------------------------------------------------------

/// Idle dashboard connections kept for reuse; more are opened under load
/// and closed after.
pub const IDLE_CONNECTIONS: usize = 8;

/// The page cache of each dashboard connection, in KiB. SQLite's default
/// (2,000 KiB, 500 pages) is less than the 910 or so pages the form's
/// choices and one comparison of the 1M-result database read, and a
/// least-recently-used cache smaller than a scan keeps none of it: every
/// comparison read all of them from the file again, on the connection
/// whose cache a change had left valid too. This holds them twice over,
/// and fills only as far as pages are read.
pub const PAGE_CACHE_KIB: i64 = 8 * 1024;

/// Database work (queries, and the charts drawn with their rows) running
/// at once; the rest waits its turn without holding a connection.
pub const BUSY_CONNECTIONS: usize = 4;

/// Threads for the database work (and static files): one per piece of
/// [`BUSY_CONNECTIONS`]. More did not serve more requests, and each kept a
/// malloc arena of its own (peak RSS under writes 58 MB with 4, 97 MB
/// with 8, 128 MB with tokio's default of up to 512).
pub const BLOCKING_THREADS: usize = BUSY_CONNECTIONS;

/// Prepared statements kept per connection: every statement of an
/// ingest and of the pages, with room to spare.
pub const STATEMENT_CACHE: usize = 128;

/// How long a connection waits for another one's lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The page cache of a connection writing many submissions at once, in
/// KiB (negative, as `PRAGMA cache_size` takes KiB).
pub const BULK_CACHE_KIB: i64 = -64 * 1024;

/// Pages in the log past which a commit has it checkpointed: SQLite's own
/// default for `wal_autocheckpoint`.
pub const CHECKPOINT_PAGES: c_int = 1000;

/// How often a primary that Litestream replicates (`--replicated`) writes
/// the time into its `heartbeat` row, by which a replica tells how far
/// behind it is: a lag reads as up to this much more than it is. Each
/// beat is a commit of one page, which every connection's page cache
/// then reads again.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(1);

/// Waits of 50 ms for a lock a backup makes at most: 10 s.
pub const MAX_WAITS: u32 = 200;

/// The README's two tables of limits read back: every number they give a
/// user is the one the code runs with.
#[cfg(test)]
mod readme {
    use super::*;
    use clap::{CommandFactory, Parser};

    const README: &str = include_str!("../README.md");

    /// The body rows of the README's table whose header row starts with
    /// `header`, split into cells.
    fn table(header: &str) -> Vec<Vec<&'static str>> {
        let mut lines = README.lines().skip_while(|line| !line.starts_with(header));
        assert!(lines.next().is_some(), "the README has no table {header:?}");
        lines
            .skip(1) // |---|---|
            .take_while(|line| line.starts_with('|'))
            .map(cells)
            .collect()
    }

    /// A table row's cells; `\|` inside a cell is a literal bar.
    fn cells(line: &'static str) -> Vec<&'static str> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        let bytes = inner.as_bytes();
        let mut cells = Vec::new();
        let mut start = 0;
        for (i, &byte) in bytes.iter().enumerate() {
            if byte == b'|' && (i == 0 || bytes[i - 1] != b'\\') {
                cells.push(inner[start..i].trim());
                start = i + 1;
            }
        }
        cells.push(inner[start..].trim());
        cells
    }

    /// The quantities a cell states, in order: "1,000" is 1000, "32 KiB"
    /// 32768, "2 s" 2000 and "100 ms" 100 (durations in milliseconds).
    fn quantities(cell: &str) -> Vec<u128> {
        let mut found = Vec::new();
        let mut rest = cell;
        while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
            // A digit inside a word (`rfc822`, `IPv6`) is no quantity.
            let inside_word = rest[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '/');
            let digits = rest[start..]
                .find(|c: char| !(c.is_ascii_digit() || c == ','))
                .map_or(rest.len(), |end| start + end);
            let number = rest[start..digits].trim_end_matches(',');
            let after = &rest[start + number.len()..];
            rest = &rest[digits..];
            if inside_word {
                continue;
            }
            let value: u128 = number.replace(',', "").parse().unwrap();
            let unit = after.trim_start_matches(' ');
            let word = unit
                .split(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or("");
            let scale = match word {
                "KiB" => 1 << 10,
                "MiB" => 1 << 20,
                "GiB" => 1 << 30,
                "s" => 1000,
                _ => 1,
            };
            found.push(value * scale);
        }
        found
    }

    fn ms(duration: Duration) -> u128 {
        duration.as_millis()
    }

    #[test]
    fn quantities_are_read_as_written() {
        assert_eq!(
            quantities("20 texts and files, 64 MiB unpacked, 1,000 submissions"),
            [20, 64 << 20, 1000]
        );
        assert_eq!(quantities("`message/rfc822` parts read 4 levels"), [4]);
        assert_eq!(
            quantities("2 s of the write lock, 32 KiB"),
            [2000, 32 << 10]
        );
    }

    /// Each row of the fixed-limits table, by its first cell, with the
    /// constants behind the numbers of its "limit" cell in order.
    #[test]
    fn the_readme_limits_table_states_the_constants() {
        let expected: Vec<(&str, Vec<u128>)> = vec![
            ("address (URI)", vec![MAX_URI_BYTES as u128]),
            (
                "request headers",
                vec![MAX_HEADER_BYTES as u128, MAX_HEADER_COUNT as u128],
            ),
            (
                "query of",
                vec![
                    MAX_BY as u128,
                    MAX_WHERE as u128,
                    MAX_QUERY_PAIRS as u128,
                    MAX_QUERY_BYTES as u128,
                ],
            ),
            (
                "one upload",
                vec![
                    MAX_UPLOAD_PARTS as u128,
                    MAX_INPUT_BYTES as u128,
                    MAX_SUBMISSIONS_PER_UPLOAD as u128,
                ],
            ),
            (
                "all uploads in flight",
                vec![
                    BODY_BUDGET_KIB as u128 * 1024,
                    CLIENT_BODY_KIB as u128 * 1024,
                    MIN_BODY_BYTES_PER_WINDOW as u128,
                    ms(BODY_RATE_WINDOW),
                    UPLOADS_AT_WORK as u128,
                ],
            ),
            ("a line of text", vec![MAX_LINE_BYTES as u128]),
            (
                "a mail's headers",
                vec![
                    parsers::mbox::MAX_REFERENCES as u128,
                    parsers::mbox::MAX_ID_BYTES as u128,
                    parsers::mbox::MAX_HEADER_BYTES as u128,
                    parsers::mbox::MAX_FORWARD_DEPTH as u128,
                ],
            ),
            (
                "edits",
                vec![
                    MAX_ATTRS_PER_RUN as u128,
                    // "fields an edit": the attributes, the label besides.
                    (MAX_FIELDS_PER_EDIT - 1) as u128,
                    MAX_CHANGES_PER_EDIT as u128,
                    MAX_EDIT_BYTES as u128,
                    EDIT_CHANGE_BYTES as u128,
                    MAX_FORM_BYTES as u128,
                ],
            ),
            (
                "pages",
                vec![
                    PART_LINES as u128,
                    PART_ROWS as u128,
                    PART_RUN_BYTES as u128,
                    PART_TEXT_BYTES as u128,
                    MAX_THREAD_MAILS as u128,
                    MAX_THREAD_RUNS as u128,
                    LIKE_RUNS_SHOWN as u128,
                    LIKE_POINTS_READ as u128,
                    RUN_SOURCE_LINES as u128,
                ],
            ),
            (
                "answers being sent",
                vec![
                    LARGE_ANSWER_BYTES as u128,
                    ANSWER_BUDGET_BYTES as u128,
                    CLIENT_ANSWER_BYTES as u128,
                    SPILLED_ANSWER_BYTES as u128,
                    DISK_CACHE_HEADROOM_BYTES as u128,
                ],
            ),
            (
                "answers kept",
                vec![
                    DISK_ANSWER_BYTES as u128,
                    DISK_CACHE_BYTES as u128,
                    DISK_CACHE_HEADROOM_BYTES as u128,
                    DISK_CACHE_SHARE_PERCENT as u128,
                ],
            ),
            (
                "`benchlog ingest`",
                vec![
                    MAX_ARCHIVE_BYTES as u128,
                    QUEUE_BYTES as u128,
                    BATCH_ITEMS as u128,
                    BATCH_BYTES as u128,
                    ms(MAX_LOCK_HOLD),
                ],
            ),
            (
                "`benchlog ingest URL`",
                vec![
                    MAX_INDEX_BYTES as u128,
                    MAX_INDEX_MONTHS as u128,
                    MAX_ARCHIVE_BYTES as u128,
                    MAX_REDIRECTS as u128,
                    ms(MAX_RETRY_AFTER),
                    ms(HTTP_TIMEOUT),
                    ms(MAX_TRANSFER_TIME),
                ],
            ),
        ];
        let table = table("| what | limit |");
        let firsts: Vec<&str> = table.iter().map(|cells| cells[0]).collect();
        assert_eq!(
            firsts.len(),
            expected.len(),
            "the README's limits table has rows {firsts:?}: check each here"
        );
        for ((first, want), cells) in expected.iter().zip(&table) {
            assert!(
                cells[0].starts_with(first),
                "README row {:?}, expected {first:?}",
                cells[0]
            );
            assert_eq!(
                &quantities(cells[1]),
                want,
                "README limits row {first:?} says {:?}",
                cells[1]
            );
        }
    }

    /// The options table's defaults are clap's, which are
    /// `WebOptions::default()`'s; and every option of `benchlog serve`
    /// but where it reads and listens has a row.
    #[test]
    fn the_readme_options_table_states_the_defaults() {
        let command = crate::config::Config::command();
        let serve = command.find_subcommand("serve").unwrap();
        let mut documented = Vec::new();
        for cells in table("| `benchlog serve` option |") {
            let option = cells[0]
                .trim_matches('`')
                .split(' ')
                .next()
                .unwrap()
                .trim_start_matches("--");
            let arg = serve
                .get_arguments()
                .find(|arg| arg.get_long() == Some(option))
                .unwrap_or_else(|| panic!("README option --{option} is not one of serve's"));
            // A switch is off unless given.
            if arg.get_default_values() == ["false"] {
                assert_eq!(cells[2], "off", "README default of --{option}");
                documented.push(option);
                continue;
            }
            let default: Vec<u128> = arg
                .get_default_values()
                .iter()
                .map(|value| value.to_str().unwrap().parse().unwrap())
                .collect();
            let readme = if cells[2] == "none" {
                Vec::new()
            } else {
                quantities(cells[2])
            };
            assert_eq!(readme, default, "README default of --{option}");
            documented.push(option);
        }
        for arg in serve.get_arguments() {
            let long = arg.get_long().unwrap_or("");
            if !["db", "listen", "static-dir", "help"].contains(&long) {
                assert!(
                    documented.contains(&long),
                    "--{long} has no row in the README's options table"
                );
            }
        }
        let parsed = crate::config::Config::try_parse_from(["benchlog", "serve"]).unwrap();
        let crate::config::Command::Serve(args) = parsed.command else {
            unreachable!("serve parses as serve")
        };
        assert_eq!(
            format!("{:?}", args.web.options()),
            format!("{:?}", crate::web::WebOptions::default()),
            "`benchlog serve`'s defaults are WebOptions::default()"
        );
    }
}
