//! End-to-end import speed of a list archive: a generated mbox of about
//! 56 MB (4200 messages: threads of prose replies quoting each other, a
//! few percent carrying the fixtures' real benchmark output, some of them
//! quoted-printable or base64) read from disk into a fresh SQLite file,
//! exactly as `benchlog ingest` does it.
//!
//! `cargo bench --bench ingest` prints the throughput in MiB/s.

use std::path::Path;
use std::time::{Duration, Instant};

use benchlog::import::{self, ImportSummary};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use testkit::archive as generated;

fn import(path: &Path) -> (Duration, ImportSummary) {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = benchlog::store::open(&dir.path().join("bench.db")).unwrap();
    let start = Instant::now();
    let mut files = import::Files::new(vec![path.to_path_buf()]);
    let imported =
        import::import(&mut conn, &mut [&mut files], Default::default(), &mut ()).unwrap();
    (start.elapsed(), imported.summary)
}

fn bench(c: &mut Criterion) {
    // Kept under target/ so `benchlog ingest` can be timed on it too.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-archive");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2006-April.txt");
    let bytes = generated::archive();
    std::fs::write(&path, &bytes).unwrap();
    let (elapsed, summary) = import(&path);
    let mb = bytes.len() as f64 / (1024.0 * 1024.0);
    println!(
        "archive: {mb:.1} MiB, {} messages ({} with results), {} runs added, {} quoted again, {} failed; first import {:.2} s = {:.1} MiB/s",
        summary.messages_read,
        summary.messages_with_results,
        summary.runs_added,
        summary.runs_quoted,
        summary.failures.len(),
        elapsed.as_secs_f64(),
        mb / elapsed.as_secs_f64()
    );

    let mut group = c.benchmark_group("ingest");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("mbox_into_fresh_sqlite", |b| {
        b.iter_custom(|iterations| (0..iterations).map(|_| import(&path).0).sum())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
