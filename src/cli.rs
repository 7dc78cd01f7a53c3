//! The subcommands of Contract 4: serve, ingest, parse, export (and demo).

use std::collections::BTreeSet;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use parsers::contract::PseudoField;

use crate::compare::{self, CompareQuery};
use crate::config::{
    BackupArgs, Command, Config, DemoArgs, ExportArgs, IngestArgs, ParseArgs, ServeArgs,
};
use crate::import::{self, pipermail, public_inbox};
use crate::store::{self, ExportFilter, ExportRow};
use crate::web;
use crate::{csv_cell, demo, intake};

/// Runs one subcommand. Errors carry context for each step; `main` prints
/// the chain.
pub fn run(config: Config) -> anyhow::Result<ExitCode> {
    match config.command {
        Command::Serve(args) => serve(args),
        Command::Ingest(args) => ingest_paths(args),
        Command::Parse(args) => parse(args),
        Command::Export(args) => export(args),
        Command::Demo(args) => demo(args),
        Command::Backup(args) => backup(args),
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Database work runs a few pieces at a time (web::BUSY_CONNECTIONS),
        // yet under load tokio kept starting threads for it (58 seen), each
        // with a malloc arena keeping what it once held.
        .max_blocking_threads(crate::limits::BLOCKING_THREADS)
        .build()
        .context("starting the async runtime")
}

fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    if args.replication.replicated {
        store::leave_checkpoints_to_litestream();
    }
    let options = web::WebOptions {
        role: args.role(),
        ..args.web.options()
    };
    let state = web::state::AppState::open_with(&args.db.db, options)
        .with_context(|| format!("opening {}", args.db.db.display()))?;
    state.verify_in_background();
    runtime()?.block_on(web::serve(state, args.web.listen))?;
    Ok(ExitCode::SUCCESS)
}

fn ingest_paths(args: IngestArgs) -> anyhow::Result<ExitCode> {
    if args.replication.replicated {
        store::leave_checkpoints_to_litestream();
    }
    let mut conn =
        store::open(&args.db.db).with_context(|| format!("opening {}", args.db.db.display()))?;
    let mut out = std::io::stdout().lock();
    let (addresses, inboxes, paths) = classify(&args.paths)?;
    // The archives named (by address or path) first, in order, then the
    // files named or found under the folders named.
    let mut archives = Vec::new();
    for address in &addresses {
        let months = pipermail::Months::fetch(&conn, address, Default::default())
            .with_context(|| format!("importing {address}"))?;
        archives.push(Archive::Months(months, address));
    }
    for inbox in &inboxes {
        let (start, keep) = (args.start(), args.keep());
        let epochs = public_inbox::Epochs::new(&conn, inbox, start, keep, args.batch as usize)
            .with_context(|| format!("importing {}", inbox.path.display()))?;
        archives.push(Archive::Epochs(epochs, &inbox.path));
    }
    let files = match paths.is_empty() {
        true => Vec::new(),
        false => files_to_ingest(&args, &paths)?,
    };
    let mut told = Told::new(&files, &mut out)?;
    let mut files = import::Files::new(files);
    let mut sources: Vec<&mut dyn import::Source> =
        archives.iter_mut().map(Archive::source).collect();
    sources.push(&mut files);
    let options = import::Options::in_batches(args.batch as usize);
    let imported = import::import(&mut conn, &mut sources, options, &mut told);
    told.bar.finish_and_clear();
    told.written?;
    let mut imported = imported?;
    for (at, archive) in archives.into_iter().enumerate() {
        for line in archive.lines(&imported, at)? {
            writeln!(out, "{line}")?;
        }
    }
    let summary = &mut imported.summary;
    for line in summary.lines() {
        writeln!(out, "{line}")?;
    }
    write_report(&args, summary, &mut out)?;
    Ok(if summary.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The arguments of `benchlog ingest`: addresses, public-inbox archives
/// and the other paths, each in the order given.
fn classify(
    arguments: &[PathBuf],
) -> anyhow::Result<(Vec<String>, Vec<public_inbox::Inbox>, Vec<PathBuf>)> {
    let (mut addresses, mut inboxes, mut paths) = (Vec::new(), Vec::new(), Vec::new());
    for path in arguments {
        if let Some(address) = path.to_str().filter(|arg| pipermail::is_url(arg)) {
            addresses.push(address.to_owned());
            continue;
        }
        match public_inbox::find(path)? {
            Some(inbox) => inboxes.push(inbox),
            None => paths.push(path.clone()),
        }
    }
    Ok((addresses, inboxes, paths))
}

/// An archive named on the command line, as a source of the import.
enum Archive<'a> {
    Months(pipermail::Months, &'a str),
    Epochs(public_inbox::Epochs<'a>, &'a Path),
}

impl Archive<'_> {
    fn source(&mut self) -> &mut dyn import::Source {
        match self {
            Archive::Months(months, _) => months,
            Archive::Epochs(epochs, _) => epochs,
        }
    }

    /// The lines printed for it once imported, the source at `at`.
    fn lines(self, imported: &import::Imported, at: usize) -> anyhow::Result<Vec<String>> {
        Ok(match self {
            Archive::Months(months, address) => months.read_of(imported, at).lines(address),
            Archive::Epochs(epochs, path) => epochs
                .finish()
                .with_context(|| format!("importing {}", path.display()))?
                .lines(path),
        })
    }
}

/// What `benchlog ingest` tells as it imports: each file once it is
/// committed, in order, and a bar counting the bytes and messages stored,
/// drawn only on a terminal.
struct Told<'o, W: Write> {
    bar: ProgressBar,
    out: &'o mut W,
    /// Whether writing to `out` failed: then nothing more is written.
    written: std::io::Result<()>,
}

impl<'o, W: Write> Told<'o, W> {
    fn new(files: &[PathBuf], out: &'o mut W) -> anyhow::Result<Told<'o, W>> {
        Ok(Told {
            bar: progress_bar(files)?,
            out,
            written: Ok(()),
        })
    }
}

impl<W: Write> import::Observer for Told<'_, W> {
    fn progress(&mut self, on_disk: u64) {
        self.bar.inc(on_disk);
    }

    fn expect(&mut self, messages: u64) {
        self.bar.inc_length(messages);
    }

    fn file_done(&mut self, done: &import::FileDone) {
        match &done.outcome {
            Ok(outcome) if self.written.is_ok() => {
                let line = outcome_line(&done.shown, outcome);
                let out = &mut self.out;
                self.written = self.bar.suspend(|| writeln!(out, "{line}"));
            }
            Ok(_) => {}
            Err(why) => self.bar.suspend(|| eprintln!("error: {why}")),
        }
    }
}

/// The files named or found under the directories named, less the
/// database itself: `benchlog ingest --db mails/benchlog.db mails/` would
/// read it as an input, so it is skipped, never opened.
fn files_to_ingest(args: &IngestArgs, paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = intake::collect_input_files(paths)?;
    let db_file = store::DatabaseFile::of(&args.db.db);
    files.retain(|file| {
        let database = db_file.holds(file);
        if database {
            eprintln!("{}: skipped, it is the database itself", file.display());
        }
        !database
    });
    Ok(files)
}

/// A bar counting the files' bytes on disk, and the messages of the
/// archives as their epochs are planned, drawn only on a terminal.
fn progress_bar(files: &[PathBuf]) -> anyhow::Result<ProgressBar> {
    let total: u64 = files
        .iter()
        .filter_map(|file| std::fs::metadata(file).ok())
        .map(|meta| meta.len())
        .sum();
    Ok(if std::io::stderr().is_terminal() {
        ProgressBar::new(total).with_style(
            ProgressStyle::with_template("{bar:40} {percent}% {per_sec} {msg}")
                .context("the progress bar's template")?,
        )
    } else {
        ProgressBar::hidden()
    })
}

/// The line printed for a file once it is committed.
fn outcome_line(file: &dyn std::fmt::Display, outcome: &import::FileOutcome) -> String {
    match outcome {
        import::FileOutcome::Text(done) if done.created => format!(
            "{}: submission {} ({} runs, {} near misses)",
            file, done.submission_id, done.runs, done.unparsed
        ),
        import::FileOutcome::Text(done) => format!(
            "{}: already stored as submission {}",
            file, done.submission_id
        ),
        import::FileOutcome::Mail { messages } => {
            format!("{file}: {messages} mail messages")
        }
        import::FileOutcome::Unchanged => {
            format!("{file}: unchanged since the last import (HTTP 304), not read")
        }
    }
}

/// Writes the report file (every failure, and why) when something failed
/// or `--report` asks for one: by default beside the database.
fn write_report(
    args: &IngestArgs,
    summary: &import::ImportSummary,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    if summary.failures.is_empty() && summary.parts_not_read.is_empty() && args.report.is_none() {
        return Ok(());
    }
    let report = args.report.clone().unwrap_or_else(|| {
        args.db
            .db
            .parent()
            .unwrap_or(Path::new(""))
            .join("benchlog-ingest-report.txt")
    });
    std::fs::write(&report, summary.report())
        .with_context(|| format!("writing {}", report.display()))?;
    writeln!(
        out,
        "report (what could not be read, and why): {}",
        report.display()
    )?;
    Ok(())
}

/// One input to parse: a bounded regular file, or at most as much of
/// standard input as a file may hold (so `/dev/zero` or an endless pipe
/// is refused instead of filling memory).
fn read_input(path: &Path) -> anyhow::Result<String> {
    let limit = crate::limits::MAX_INPUT_BYTES;
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
        if bytes.len() as u64 > limit {
            anyhow::bail!(
                "standard input is longer than {}, the most benchlog reads from one input",
                intake::size_for_people(limit)
            );
        }
        bytes
    } else {
        intake::read_file(path, limit)?
    };
    intake::decode_input(&bytes).with_context(|| format!("reading {}", path.display()))
}

fn parse(args: ParseArgs) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.path)?;
    let document = parsers::parse(&text);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &document).context("writing JSON")?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{} messages, {} runs, {} near misses",
        document.messages.len(),
        document.runs.len(),
        document.unparsed.len()
    )?;
    for run in &document.runs {
        let mut line = format!("lines {}-{}  {}", run.lines[0], run.lines[1], run.tool);
        if let Some(test) = &run.test {
            line.push_str(&format!(" {test}"));
        }
        if let Some(threads) = run.threads {
            line.push_str(&format!("  threads={threads}"));
        }
        if let Some(label) = &run.label {
            line.push_str(&format!("  [{label}]"));
        }
        for result in &run.results {
            line.push_str(&format!(
                "  {} {}={}",
                result.item, result.metric, result.value
            ));
        }
        writeln!(out, "{line}")?;
    }
    for near_miss in &document.unparsed {
        writeln!(
            out,
            "near miss at line {}: {}",
            near_miss.line, near_miss.why
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    if !args.csv {
        bail!("choose an output format: --csv");
    }
    // The same names and checks as /compare's query string.
    let query = match &args.query {
        Some(text) => CompareQuery::from_query_string(text)?,
        None => {
            let mut pairs = Vec::new();
            for (key, value) in [
                ("tool", &args.tool),
                ("test", &args.test),
                ("item", &args.item),
                ("metric", &args.metric),
                ("x", &args.x),
                ("baseline", &args.baseline),
                ("conf", &args.conf),
            ] {
                if let Some(value) = value {
                    pairs.push((key.to_owned(), value.clone()));
                }
            }
            pairs.extend(args.by.iter().map(|b| ("by".to_owned(), b.clone())));
            pairs.extend(args.wheres.iter().map(|w| ("where".to_owned(), w.clone())));
            CompareQuery::from_pairs(pairs)?
        }
    };
    let resolved = query.resolve()?;
    // Exporting reads what is stored: a mistyped path is refused, never
    // made into an empty database that exports nothing and exits 0.
    let conn = store::open_existing_file(&args.db.db)
        .with_context(|| format!("opening {}", args.db.db.display()))?;
    let mut out = std::io::stdout().lock();

    // A tool and a metric make a comparison: the CSV of /compare.csv.
    if let Some(resolved) = resolved {
        let comparison = compare::compare(&conn, &query, resolved, compare::Detail::EveryRun)?;
        for notice in &comparison.notices {
            eprintln!("note: {notice}");
        }
        out.write_all(&comparison.to_csv().context("writing CSV")?)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    if !query.by.is_empty() || query.x.is_some() || query.baseline.is_some() {
        bail!("--by, --x and --baseline shape a comparison, which needs --tool and --metric");
    }
    if query.asof.is_some() {
        bail!("asof pins a comparison, which needs tool and metric");
    }
    // Otherwise every result matching the filters, one row per result.
    let filter = ExportFilter {
        tool: query.tool.clone(),
        test: query.test.clone(),
        item: query.item.clone(),
        metric: query.metric.clone(),
    };
    let rows: Vec<ExportRow> = store::export_rows(&conn, &filter)
        .context("reading the results")?
        .into_iter()
        .filter(|row| compare::matches_wheres(|key| export_key_value(row, key), &query.wheres))
        .collect();
    write_export_csv(out, &rows)?;
    Ok(ExitCode::SUCCESS)
}

/// The export's own columns, in order; the attributes' follow. Columns
/// are only ever added at the end of this list (scripts read them by
/// position too). `copy_of` is the run a copy repeats
/// ([`ExportRow::copy_of`]), empty for an original.
const EXPORT_COLUMNS: [&str; 19] = [
    "submission_id",
    "source_name",
    "run_id",
    "tool",
    "test",
    "label",
    "threads",
    "quote_depth",
    "author",
    "command",
    "first_line",
    "last_line",
    "item",
    "metric",
    "value",
    "unit",
    "line",
    "estimated",
    "copy_of",
];

/// A row's value of a `--where` key: a run field, the result's item, or
/// an attribute.
fn export_key_value(row: &ExportRow, key: &str) -> Option<String> {
    match PseudoField::from_name(key) {
        Some(PseudoField::Label) => row.label.clone(),
        Some(PseudoField::Author) => row.author.clone(),
        Some(PseudoField::Submission) => Some(row.submission_id.to_string()),
        Some(PseudoField::Test) => row.test.clone(),
        None if key == "item" => Some(row.item.clone()),
        None => row.attrs.get(key).cloned(),
    }
}

/// One row per result: the run's fields, then one column per attribute
/// key found in the rows (sorted; `attr_` prefixed if it would clash).
pub fn write_export_csv(out: impl Write, rows: &[ExportRow]) -> anyhow::Result<()> {
    let attr_keys: BTreeSet<&str> = rows
        .iter()
        .flat_map(|row| row.attrs.keys().map(String::as_str))
        .collect();
    let mut writer = csv::Writer::from_writer(out);
    let mut header: Vec<String> = EXPORT_COLUMNS.iter().map(|c| c.to_string()).collect();
    header.extend(attr_keys.iter().map(|key| {
        if EXPORT_COLUMNS.contains(key) {
            format!("attr_{key}")
        } else {
            key.to_string()
        }
    }));
    csv_cell::write_record(&mut writer, &header)?;
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    for row in rows {
        let mut record = vec![
            row.submission_id.to_string(),
            text(&row.source_name),
            row.run_id.to_string(),
            row.tool.clone(),
            text(&row.test),
            text(&row.label),
            row.threads.map(|t| t.to_string()).unwrap_or_default(),
            row.quote_depth.to_string(),
            text(&row.author),
            text(&row.command),
            row.first_line.to_string(),
            row.last_line.to_string(),
            row.item.clone(),
            row.metric.clone(),
            row.value.to_string(),
            row.unit.clone(),
            row.line.to_string(),
            u8::from(row.estimated).to_string(),
            row.copy_of.map(|id| id.to_string()).unwrap_or_default(),
        ];
        record.extend(
            attr_keys
                .iter()
                .map(|key| row.attrs.get(*key).cloned().unwrap_or_default()),
        );
        csv_cell::write_record(&mut writer, &record)?;
    }
    writer.flush()?;
    Ok(())
}

fn demo(args: DemoArgs) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("creating {}", args.data_dir.display()))?;
    let db = args.data_dir.join("benchlog-demo.db");
    // Fresh every time, so the demo shows the current parsers' reading of
    // the example logs.
    let loaded = demo::make(&db, args.fixtures.as_deref())?;
    let from = args.fixtures.as_ref().map_or_else(
        || "the binary".to_owned(),
        |folder| folder.display().to_string(),
    );
    tracing::info!(
        "demo database {} holds {} example logs ({} runs) from {from}",
        db.display(),
        loaded.logs,
        loaded.runs,
    );
    let state = web::state::AppState::open_with(&db, args.web.options())
        .with_context(|| format!("opening {}", db.display()))?;
    runtime()?.block_on(web::serve(state, args.web.listen))?;
    Ok(ExitCode::SUCCESS)
}

fn backup(args: BackupArgs) -> anyhow::Result<ExitCode> {
    let conn = store::open_as_is(&args.db.db)
        .with_context(|| format!("backing up {}", args.db.db.display()))?;
    let pages = store::backup(&conn, &args.path).with_context(|| {
        format!(
            "backing up {} to {}",
            args.db.db.display(),
            args.path.display()
        )
    })?;
    println!(
        "{} backed up to {} ({pages} pages)",
        args.db.db.display(),
        args.path.display()
    );
    Ok(ExitCode::SUCCESS)
}
