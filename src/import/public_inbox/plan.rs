//! Planning an epoch: its first-parent history walked back to its mark
//! and what each commit changes, oldest first.

use std::path::{Path, PathBuf};

use anyhow::Context;
use gix::ObjectId;

use super::{InboxRead, Reopening};
use crate::store::ArchiveMark;

/// What one commit changed, as far as the archive's messages go.
#[derive(Debug, Clone)]
pub(super) enum Change {
    /// It adds the message of this blob.
    Message(ObjectId),
    /// It removes the message of this blob.
    Deletion(ObjectId),
    /// It holds something that is not a message, and what.
    NotMessage(String),
    /// It changes no message.
    Nothing,
}

/// What is to be read of one epoch: the commits after its mark.
pub(super) struct EpochPlan {
    pub(super) epoch: u32,
    pub(super) git_dir: PathBuf,
    /// The name its messages are reported under.
    pub(super) name: String,
    /// Oldest first; a commit may have more than one change (v1).
    pub(super) changes: Vec<(ObjectId, Change)>,
    /// Commits read by earlier imports, skipped.
    pub(super) skipped: u64,
}

/// Walks an epoch's first-parent history from its head back to `mark`
/// (or its first commit) and lists what each commit changes, oldest first.
pub(super) fn plan_epoch(
    epoch: u32,
    git_dir: &Path,
    name: String,
    mark: Option<&ArchiveMark>,
    read: &mut InboxRead,
) -> anyhow::Result<EpochPlan> {
    let mut repo = Reopening::open(git_dir)?;
    let damaged = || format!("reading {} (a damaged archive?)", git_dir.display());
    let head = repo
        .repo
        .head()
        .with_context(damaged)?
        .id()
        .map(|id| id.detach());
    let stop = mark.and_then(|mark| ObjectId::from_hex(mark.commit_id.as_bytes()).ok());
    let mut changes = Vec::new();
    let mut next = head;
    let mut reached_mark = false;
    // Each commit is read once: a v1 commit's parent, read for its tree,
    // is the next commit of the walk.
    let mut parent_read: Option<(ObjectId, ObjectId, Option<ObjectId>)> = None;
    let read_commit = |repo: &gix::Repository,
                       id: ObjectId|
     -> anyhow::Result<(ObjectId, ObjectId, Option<ObjectId>)> {
        let commit = repo.find_commit(id).with_context(damaged)?;
        let tree = commit.tree_id().with_context(damaged)?.detach();
        let parent = commit.parent_ids().next().map(|id| id.detach());
        Ok((id, tree, parent))
    };
    while let Some(id) = next {
        if Some(id) == stop {
            reached_mark = true;
            break;
        }
        let repo = repo.for_next()?;
        let (_, tree, parent) = match parent_read.take() {
            Some(read) if read.0 == id => read,
            _ => read_commit(repo, id)?,
        };
        let mut parent_tree = || -> anyhow::Result<Option<ObjectId>> {
            let Some(parent) = parent else {
                return Ok(None);
            };
            let read = read_commit(repo, parent)?;
            let tree = read.1;
            parent_read = Some(read);
            Ok(Some(tree))
        };
        let mut of_commit = changes_of(repo, tree, &mut parent_tree).with_context(damaged)?;
        // Newest first for now; reversed below.
        of_commit.reverse();
        changes.extend(of_commit.into_iter().map(|change| (id, change)));
        next = parent;
    }
    changes.reverse();
    let skipped = match mark {
        Some(mark) if reached_mark => mark.commits,
        Some(_) => {
            read.marks_lost.push(epoch);
            0
        }
        None => 0,
    };
    Ok(EpochPlan {
        epoch,
        git_dir: git_dir.to_path_buf(),
        name,
        changes,
        skipped,
    })
}

/// What a commit whose tree is `tree` changes from its parent's.
/// `parent_tree` is asked only for a v1 commit.
fn changes_of(
    repo: &gix::Repository,
    tree: ObjectId,
    parent_tree: &mut dyn FnMut() -> anyhow::Result<Option<ObjectId>>,
) -> anyhow::Result<Vec<Change>> {
    let tree = repo.find_tree(tree)?;
    let entries = tree.decode()?.entries;
    // v2: the commit's one message, or the one it deletes.
    for entry in &entries {
        if entry.mode.is_blob() && entry.filename == "m" {
            return Ok(vec![Change::Message(entry.oid.to_owned())]);
        }
        if entry.mode.is_blob() && entry.filename == "d" {
            return Ok(vec![Change::Deletion(entry.oid.to_owned())]);
        }
    }
    // v1: the files at ab/cdef… it adds and removes, read only in the
    // fan-out folders whose tree differs from the parent's (a commit
    // touches one), so that a commit costs one folder, not the archive.
    let new_root = v1_folders(repo, Some(tree.id))?;
    let old_root = v1_folders(repo, parent_tree()?)?;
    // What is not a message is reported by the commit that brings it.
    let mut changes: Vec<Change> = new_root
        .1
        .into_iter()
        .filter(|what| !old_root.1.contains(what))
        .map(Change::NotMessage)
        .collect();
    let (new_root, old_root) = (new_root.0, old_root.0);
    let folders: std::collections::BTreeSet<&String> =
        new_root.keys().chain(old_root.keys()).collect();
    for folder in folders {
        let (in_new, in_old) = (new_root.get(folder), old_root.get(folder));
        if in_new == in_old {
            continue;
        }
        let (new, not_messages) = v1_files(repo, folder, in_new.copied())?;
        let (old, _) = v1_files(repo, folder, in_old.copied())?;
        changes.extend(not_messages.into_iter().map(Change::NotMessage));
        for (name, blob) in &new {
            if old.get(name) != Some(blob) {
                changes.push(Change::Message(*blob));
            }
        }
        for (name, blob) in &old {
            if !new.contains_key(name) {
                changes.push(Change::Deletion(*blob));
            }
        }
    }
    if changes.is_empty() {
        changes.push(Change::Nothing);
    }
    Ok(changes)
}

/// Whether `name` is `len` hexadecimal digits (a v1 fan-out folder or file).
fn is_hex(name: &str, len: usize) -> bool {
    name.len() == len && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a v1 archive's entry that is not a message is reported as.
fn not_a_message(path: &str) -> String {
    format!("{path}: not a public-inbox message (neither m, d, nor ab/cdef…)")
}

/// A v1 tree's fan-out folders (`ab`) by name, and what else it holds.
type V1Folders = (std::collections::BTreeMap<String, ObjectId>, Vec<String>);

fn v1_folders(repo: &gix::Repository, tree: Option<ObjectId>) -> anyhow::Result<V1Folders> {
    let mut folders = std::collections::BTreeMap::new();
    let mut not_messages = Vec::new();
    let Some(tree) = tree else {
        return Ok((folders, not_messages));
    };
    for entry in repo.find_tree(tree)?.decode()?.entries {
        let folder = entry.filename.to_string();
        if entry.mode.is_tree() && is_hex(&folder, 2) {
            folders.insert(folder, entry.oid.to_owned());
        } else {
            not_messages.push(not_a_message(&folder));
        }
    }
    Ok((folders, not_messages))
}

/// One fan-out folder's messages (`cdef…`) by name, and what else it holds.
type V1Files = (std::collections::BTreeMap<String, ObjectId>, Vec<String>);

fn v1_files(
    repo: &gix::Repository,
    folder: &str,
    tree: Option<ObjectId>,
) -> anyhow::Result<V1Files> {
    let mut files = std::collections::BTreeMap::new();
    let mut not_messages = Vec::new();
    let Some(tree) = tree else {
        return Ok((files, not_messages));
    };
    for file in repo.find_tree(tree)?.decode()?.entries {
        let name = file.filename.to_string();
        if file.mode.is_blob() && is_hex(&name, 38) {
            files.insert(name, file.oid.to_owned());
        } else {
            not_messages.push(not_a_message(&format!("{folder}/{name}")));
        }
    }
    Ok((files, not_messages))
}
