//! The limit `benchlog ingest` is measured against: copies every row of a
//! database into a fresh one of the same schema in one transaction
//! (`INSERT INTO … SELECT` per table, with its indexes and triggers), then
//! writes the full-text index as the store's writers do.
//!
//! `cargo run --release --example copy_rows -- FROM.db TO.db`

use std::path::PathBuf;

/// Tables the migrations fill themselves, and the full-text index's own.
fn copied(table: &str) -> bool {
    !table.starts_with("sqlite_")
        && !table.starts_with("submissions_fts")
        && !matches!(
            table,
            "data_generation" | "id_high_water" | "fts_indexed" | "sums_through"
        )
}

fn main() -> anyhow::Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [from, to] = args.as_slice() else {
        anyhow::bail!("usage: copy_rows FROM.db TO.db");
    };
    let mut conn = benchlog::store::open(to)?;
    conn.execute("ATTACH ?1 AS src", [from.to_string_lossy()])?;
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM src.sqlite_master WHERE type = 'table' ORDER BY rowid")?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let started = std::time::Instant::now();
    // Through the store's one writer: its finish indexes the copied
    // submissions and finds no new runs to sum (the sums are copied).
    let writer = benchlog::store::Writer::begin(&mut conn, None)?;
    let tx = writer.tx();
    for table in tables.iter().filter(|table| copied(table)) {
        tx.execute(
            &format!("INSERT INTO main.{table} SELECT * FROM src.{table}"),
            [],
        )?;
    }
    // The sums were copied with the rest: they hold what they held there.
    tx.execute(
        "UPDATE main.sums_through SET through = (SELECT through FROM src.sums_through)",
        [],
    )?;
    writer.finish()?.commit()?;
    println!("copied in {:.3} s", started.elapsed().as_secs_f64());
    Ok(())
}
