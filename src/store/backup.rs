//! `benchlog backup`: a consistent copy of a database that stays in use.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use rusqlite::backup::{Backup, StepResult};
use rusqlite::Connection;

/// Copies the database of `conn` to `dest` with SQLite's online backup API
/// and checks the copy. The copy is taken in one step, inside one read
/// transaction: in WAL mode writers carry on meanwhile, and the copy is the
/// database as it was when the step began (a backup in several steps would
/// start over each time another connection writes). It is written next to
/// `dest` under a temporary name and renamed when complete, so `dest`
/// never names a partial copy. Returns the number of pages copied.
pub fn backup(conn: &Connection, dest: &Path) -> anyhow::Result<i32> {
    if dest.exists() {
        bail!("{} already exists; choose a new file name", dest.display());
    }
    let partial = PathBuf::from(format!("{}.partial", dest.display()));
    let _ = std::fs::remove_file(&partial);
    let result = copy_to(conn, &partial);
    let pages = match result {
        Ok(pages) => pages,
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            return Err(error);
        }
    };
    std::fs::rename(&partial, dest)
        .with_context(|| format!("renaming {} to {}", partial.display(), dest.display()))?;
    Ok(pages)
}

use crate::limits::MAX_WAITS;

fn copy_to(conn: &Connection, path: &Path) -> anyhow::Result<i32> {
    let mut copy =
        Connection::open(path).with_context(|| format!("creating {}", path.display()))?;
    {
        let backup = Backup::new(conn, &mut copy).context("starting the backup")?;
        let mut waits = 0;
        loop {
            // -1: every page in one step (see above).
            match backup.step(-1).context("copying pages")? {
                StepResult::Done => break,
                // Another connection holds a lock the copy needs: wait a little.
                StepResult::Busy | StepResult::Locked if waits < MAX_WAITS => {
                    waits += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                StepResult::More => {}
                _ => bail!("the database stayed locked for 10 s; try again"),
            }
        }
    }
    let pages: i32 = copy.query_row("PRAGMA page_count", [], |row| row.get(0))?;
    let check: String = copy.query_row("PRAGMA integrity_check", [], |row| row.get(0))?;
    if check != "ok" {
        bail!("the copy failed its integrity check: {check}");
    }
    // A copy of a WAL database is in WAL mode too; fold everything into the
    // one file so that it can be moved on its own.
    copy.pragma_update_and_check(None, "journal_mode", "DELETE", |row| {
        row.get::<_, String>(0)
    })
    .context("closing the copy's journal")?;
    drop(copy);
    Ok(pages)
}
