//! Chart rendering: one 10-series × 20-point line chart, as `/compare.svg`
//! and `/compare.png` draw it (target: ≤ 5 ms each).
//!
//! `cargo bench --bench charts`

use benchlog::charts::{self, Chart, ChartSeries};
use criterion::{criterion_group, criterion_main, Criterion};

fn chart() -> Chart {
    let series = (0..10)
        .map(|s| {
            let values: Vec<(f64, f64)> = (0..20)
                .map(|p| {
                    let threads = f64::from(1 + p * 4);
                    (threads, 1000.0 * f64::from(s + 1) * threads.sqrt())
                })
                .collect();
            ChartSeries::from_values(format!("series {s}"), &values)
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
    let chart = chart();
    c.bench_function("chart 10x20 svg", |b| {
        b.iter(|| charts::render_svg(&chart).unwrap())
    });
    c.bench_function("chart 10x20 png", |b| {
        b.iter(|| charts::render_png(&chart).unwrap())
    });
}

criterion_group!(benches, render);
criterion_main!(benches);
