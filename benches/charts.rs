//! Chart rendering: one 10-series × 20-point line chart, as `/compare.svg`
//! and `/compare.png` draw it (target: ≤ 5 ms each), and the PNG again
//! with series named in Chinese (glyphs from the CJK fallback font).
//!
//! `cargo bench --bench charts`

use benchlog::charts::{self, Chart, ChartSeries};
use criterion::{criterion_group, criterion_main, Criterion};

fn chart(name: fn(i32) -> String) -> Chart {
    let series = (0..10)
        .map(|s| {
            let values: Vec<(f64, f64)> = (0..20)
                .map(|p| {
                    let threads = f64::from(1 + p * 4);
                    (threads, 1000.0 * f64::from(s + 1) * threads.sqrt())
                })
                .collect();
            ChartSeries::from_values(name(s), &values)
        })
        .collect();
    Chart {
        title: "q_per_s of select_index".to_owned(),
        x_title: "threads".to_owned(),
        y_title: "q/s".to_owned(),
        series,
        categories: None,
        x_labels: None,
        note: None,
        log_scale: false,
        percent_of_baseline: false,
        width: charts::WIDTH,
        height: charts::HEIGHT,
    }
}

fn render(c: &mut Criterion) {
    charts::register_fonts();
    let latin = chart(|s| format!("series {s}"));
    c.bench_function("chart 10x20 svg", |b| {
        b.iter(|| charts::render_svg(&latin).unwrap())
    });
    c.bench_function("chart 10x20 png", |b| {
        b.iter(|| charts::render_png(&latin).unwrap())
    });
    let cjk = chart(|s| format!("内核调度器 {s}"));
    c.bench_function("chart 10x20 png cjk", |b| {
        b.iter(|| charts::render_png(&cjk).unwrap())
    });
}

criterion_group!(benches, render);
criterion_main!(benches);
