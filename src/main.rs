use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// glibc's allocator kept most of what a burst of uploads had used (60 MB
/// of a 140 MB peak, for good); jemalloc, with its background thread,
/// gives it back to the system within seconds. It is built unprefixed
/// (Cargo.toml), so it is also the C code's malloc: SQLite's; its options
/// are set where it is built (`.cargo/config.toml`).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let config = benchlog::config::Config::parse();
    // The filter alone decides what is logged: a formatter built with
    // `fmt()` would keep its own limit of `info` under it.
    tracing_subscriber::registry()
        .with(log_filter())
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                // Colours only for a person at a terminal: a log kept in
                // a file or read through a pipe gets plain text, no
                // escape codes.
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())),
        )
        .init();
    benchlog::charts::register_fonts();
    match benchlog::cli::run(config) {
        Ok(code) => code,
        // `benchlog export --csv | head` closes the pipe early: not an error.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// What is logged: `RUST_LOG` as a list of levels by target (`warn`,
/// `info,benchlog::web=debug`), or `info` when it is unset or not such a
/// list. tracing-subscriber's `Targets` reads it, not `EnvFilter`, whose
/// span and field filters nobody used and whose regex engine was a
/// twentieth of a clean build.
fn log_filter() -> Targets {
    std::env::var("RUST_LOG")
        .ok()
        .and_then(|directives| directives.parse().ok())
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::INFO))
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<csv::Error>()
                .is_some_and(|csv| matches!(csv.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe))
    })
}
