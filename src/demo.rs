//! `benchlog demo`'s database: a fresh one holding the example logs, the
//! ones built into the binary ([`embedded::EXAMPLE_LOGS`]) or, with
//! `--fixtures`, those of a folder.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rusqlite::Connection;

use crate::intake::{self, Input, Policy};
use crate::limits::MAX_INPUT_BYTES;
use crate::{embedded, import, store};
use example_logs::is_example_log;

/// What the demo database holds once made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loaded {
    /// Example logs read: texts and archives.
    pub logs: usize,
    /// Runs stored from them.
    pub runs: usize,
}

/// Makes `db` anew (removing any earlier file and its WAL) holding the
/// example logs of `fixtures`, or the built-in ones when it is None.
pub fn make(db: &Path, fixtures: Option<&Path>) -> anyhow::Result<Loaded> {
    for suffix in ["", "-wal", "-shm"] {
        let path = PathBuf::from(format!("{}{suffix}", db.display()));
        if path.exists() {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    let mut conn = store::open(db).with_context(|| format!("opening {}", db.display()))?;
    load_examples(&mut conn, fixtures)
}

/// Stores the example logs of `fixtures`, or the built-in ones when it is
/// None, as [`make`] does.
pub fn load_examples(conn: &mut Connection, fixtures: Option<&Path>) -> anyhow::Result<Loaded> {
    let logs: Vec<(String, Cow<'static, [u8]>)> = match fixtures {
        None => embedded::EXAMPLE_LOGS
            .iter()
            .map(|(name, bytes)| (name.to_string(), Cow::Borrowed(*bytes)))
            .collect(),
        Some(folder) => intake::collect_input_files(&[folder.to_path_buf()])?
            .into_iter()
            .filter(|path| path.strip_prefix(folder).is_ok_and(is_example_log))
            .map(|path| {
                let bytes = intake::read_file(&path, MAX_INPUT_BYTES)?;
                Ok((path.display().to_string(), Cow::Owned(bytes)))
            })
            .collect::<anyhow::Result<_>>()?,
    };
    load(conn, &logs)
}

/// Stores each log: the texts first, then the archives, each message of
/// which becomes a submission (for the thread pages), in one import.
fn load(conn: &mut Connection, logs: &[(String, Cow<'_, [u8]>)]) -> anyhow::Result<Loaded> {
    let (archives, texts): (Vec<_>, Vec<_>) = logs
        .iter()
        .partition(|(name, _)| Path::new(name).extension().is_some_and(|ext| ext == "mbox"));
    let policy = Policy::import(MAX_INPUT_BYTES);
    let mut inputs = import::Inputs::default();
    for (name, bytes) in texts {
        let text = intake::decode_input(bytes).with_context(|| format!("reading {name}"))?;
        let document = parsers::parse(&text);
        let file_name = Path::new(name)
            .file_name()
            .map_or(Cow::from(name.as_str()), |n| n.to_string_lossy());
        let input = Input::Text(text, document);
        inputs.push(file_name.into_owned(), input, import::Title::Named);
    }
    for (name, bytes) in &archives {
        let file_name = Path::new(name)
            .file_name()
            .map_or(Cow::from(name.as_str()), |n| n.to_string_lossy());
        match intake::read(&file_name, bytes, &policy).with_context(|| format!("reading {name}"))? {
            input @ Input::Mails(_) => inputs.push(name.clone(), input, import::Title::Named),
            Input::Text(..) => anyhow::bail!("{name} holds no mail"),
        }
    }
    let imported = import::import(conn, &mut [&mut inputs], Default::default(), &mut ())?;
    // A text that cannot be stored fails the demo; a message of an
    // archive that cannot be read is left out, as any import leaves it.
    if let Some((shown, Err(why))) = imported
        .files
        .iter()
        .map(|d| (&d.shown, &d.outcome))
        .find(|(_, o)| o.is_err())
    {
        anyhow::bail!("{shown}: {why}");
    }
    let runs: usize = imported
        .files
        .iter()
        .filter_map(|done| match done.outcome {
            Ok(import::FileOutcome::Text(stored)) => Some(stored.runs),
            _ => None,
        })
        .sum();
    Ok(Loaded {
        logs: logs.len(),
        runs: runs + imported.summary.runs_added,
    })
}
