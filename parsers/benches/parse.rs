//! Parse throughput on a large mail-like corpus (`testkit/src/corpus.rs`
//! says what it holds). Reports bytes per second; `scripts/bench-parse.sh`
//! measures the same corpus against grep.
//!
//! `cargo bench -p parsers --bench parse`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use testkit::corpus;

fn parse_throughput(c: &mut Criterion) {
    let text = corpus::corpus();
    let runs = parsers::parse(&text).runs.len();
    eprintln!("corpus: {} MB, {runs} runs", text.len() >> 20);
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("mail_corpus_64mb", |b| {
        b.iter(|| parsers::parse(std::hint::black_box(&text)))
    });
    group.finish();
}

criterion_group!(benches, parse_throughput);
criterion_main!(benches);
