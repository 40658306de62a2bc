//! The workspace-sync hook: restores `/workspace` from the agent's head
//! generation when a session starts, and keeps a new generation when the
//! session parks or completes.
//!
//! A park is incremental: the sandbox reports what changed since its mark
//! ([`Sandbox::workspace_changes`]: the local backend from its filesystem's
//! change log, exactly; others in one script that lists `/workspace` and
//! tars the files whose status changed since a mark file), the hook applies
//! that to the session's base tree, and only blobs the store lacks are
//! written. A file not reported as written keeps its old content only when
//! its stat agrees too (same mode, size, mtime, and not modified in the
//! second the base was listed); any other is read with
//! [`Sandbox::export_paths`]. A sandbox that cannot say falls back to a full
//! [`Sandbox::list_workspace`] compared by stat. The hook talks to the
//! sandbox only through the [`Sandbox`] trait, so it is the same code on
//! every backend.
//!
//! Every outcome is logged as `[workspace-sync] <session-id> <outcome>`:
//! `nothing kept yet`, `restored generation <id> (N bytes)`,
//! `restore failed: <path>: <reason>`,
//! `kept generation <id>: +A ~M -D (N bytes new)`,
//! `unchanged since generation <id>`, `snapshot failed: <reason>`.
//!
//! A session whose restore failed runs on an empty workspace and never moves
//! the head: its work is kept as a detached generation beside it. A failed
//! snapshot is an error of the park (the head stays the last good generation).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::hooks::{Hook, HookContext, HookError, HookResult};
use crate::mindlog::SANDBOX_MINDLOG_PATH;
use crate::runtime::AgentPaths;
use crate::sandbox::{Listed, ListedKind, Listing, SANDBOX_UID, Sandbox, WorkspaceChanges};
use crate::store::{
    Commit, Entry, GenerationId, Hash, Kind, Manifest, StoreError, read_tar_entries,
};

/// What the hook remembers about one session.
#[derive(Clone, Debug)]
struct SyncState {
    /// The head this session's workspace is based on (the fast path of the
    /// next commit when it is still the head).
    base: Option<GenerationId>,
    /// The tree the sandbox held at the last restore or snapshot.
    tree: Arc<Manifest>,
    /// Its [`Manifest::tree_hash`].
    tree_hash: Hash,
    /// The sandbox clock when `tree` was listed.
    listed_at: i64,
    /// Why the restore failed, if it did: snapshots then never move the head.
    restore_failed: Option<String>,
}

impl Default for SyncState {
    fn default() -> SyncState {
        let tree = Arc::new(Manifest::default());
        SyncState {
            base: None,
            tree_hash: tree.tree_hash(),
            tree,
            listed_at: 0,
            restore_failed: None,
        }
    }
}

/// The workspace-sync hook (registered by default, see
/// [`RuntimeBuilder::default_hooks`](crate::runtime::RuntimeBuilder::default_hooks)).
#[derive(Debug, Default)]
pub struct WorkspaceSync {
    sessions: Mutex<HashMap<String, SyncState>>,
}

fn hook_err(e: impl std::fmt::Display) -> HookError {
    HookError::critical(e.to_string())
}

/// Runs blocking store work off the async runtime.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(StoreError::io("a store task", std::io::Error::other(e))))
}

/// The mindlog copy lives in the workspace but is not part of it.
fn is_kept(path: &str) -> bool {
    Some(path) != SANDBOX_MINDLOG_PATH.strip_prefix("/workspace/")
}

impl WorkspaceSync {
    /// A new hook.
    pub fn new() -> WorkspaceSync {
        WorkspaceSync::default()
    }

    fn state(&self, session: &str) -> SyncState {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(session)
            .cloned()
            .unwrap_or_default()
    }

    fn set_state(&self, session: &str, state: SyncState) {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(session.to_string(), state);
    }

    fn forget(&self, session: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(session);
    }

    async fn restore(&self, ctx: &HookContext) -> HookResult {
        let Some(paths) = ctx.paths() else {
            return Ok(());
        };
        let sid = ctx.session_id();
        let sandbox = ctx.sandbox()?;
        let gens = paths.generations();
        let legacy = paths.archive.clone();
        let loaded = {
            let gens = gens.clone();
            blocking(move || {
                crate::runtime::migrate_legacy_archive(&gens, &legacy)?;
                let Some(head) = gens.head()? else {
                    return Ok(None);
                };
                let tree = gens.manifest(&head.id)?;
                let tar = gens.tar(&head.id, None, SANDBOX_UID)?;
                Ok(Some((head, tree, tar)))
            })
            .await
        };
        let (head, tree, tar) = match loaded {
            Ok(Some(x)) => x,
            Ok(None) => {
                tracing::info!("[workspace-sync] {sid} nothing kept yet");
                self.set_state(sid, SyncState::default());
                return Ok(());
            }
            Err(e) => return self.restore_failed(sid, &e.to_string()),
        };
        if let Err(e) = sandbox.import_workspace(&tar).await {
            return self.restore_failed(sid, &format!("the sandbox refused it: {e}"));
        }
        // What the next park reports as changed starts here.
        if let Err(e) = sandbox.mark_workspace().await {
            return self.restore_failed(sid, &format!("marking the restored tree: {e}"));
        }
        tracing::info!(
            "[workspace-sync] {sid} restored generation {} ({} bytes)",
            head.id,
            tree.content_bytes()
        );
        self.set_state(
            sid,
            SyncState {
                base: Some(head.id),
                tree,
                tree_hash: head.tree,
                listed_at: head.listed_at,
                restore_failed: None,
            },
        );
        Ok(())
    }

    fn restore_failed(&self, sid: &str, reason: &str) -> HookResult {
        let reason = one_line(reason);
        tracing::warn!("[workspace-sync] {sid} restore failed: {reason}");
        self.set_state(
            sid,
            SyncState {
                restore_failed: Some(reason),
                ..SyncState::default()
            },
        );
        Ok(())
    }

    async fn snapshot(&self, ctx: &HookContext) -> HookResult {
        let Some(paths) = ctx.paths() else {
            return Ok(());
        };
        let sid = ctx.session_id().to_string();
        let sandbox = ctx.sandbox()?;
        let state = self.state(&sid);
        let (tree, bytes_new, listed_at) =
            match take_snapshot(sandbox.as_ref(), paths, &state).await {
                Ok(x) => x,
                Err(e) => {
                    let e = one_line(&e);
                    tracing::warn!("[workspace-sync] {sid} snapshot failed: {e}");
                    return Err(hook_err(format!(
                        "snapshot failed: {e}; the last kept generation stays the head"
                    )));
                }
            };
        if state.restore_failed.is_none()
            && state.base.is_some()
            && tree.entries == state.tree.entries
        {
            let base = state
                .base
                .clone()
                .unwrap_or_else(|| GenerationId(String::new()));
            tracing::info!("[workspace-sync] {sid} unchanged since generation {base}");
            self.set_state(&sid, SyncState { listed_at, ..state });
            return Ok(());
        }
        let gens = paths.generations();
        if let Some(reason) = &state.restore_failed {
            let note = format!("the restore had failed: {reason}");
            let sid2 = sid.clone();
            let record = blocking(move || {
                gens.commit_detached(&tree, bytes_new, Some(&sid2), listed_at, &note)
            })
            .await
            .map_err(|e| hook_err(format!("snapshot failed: {e}")))?;
            tracing::warn!(
                "[workspace-sync] {sid} kept generation {} beside the head (the restore had failed, so the head was left as it was)",
                record.id
            );
            return Ok(());
        }
        let tree = Arc::new(tree);
        let commit = {
            let (gens, tree, base, base_tree, sid) = (
                gens.clone(),
                tree.clone(),
                state.base.clone(),
                state.tree.clone(),
                sid.clone(),
            );
            let base_hash = state.tree_hash;
            blocking(move || {
                gens.commit_from(
                    base.as_ref(),
                    Some((base_tree, base_hash)),
                    tree,
                    bytes_new,
                    Some(&sid),
                    listed_at,
                )
            })
            .await
        };
        let commit = match commit {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("[workspace-sync] {sid} snapshot failed: {e}");
                return Err(hook_err(format!(
                    "snapshot failed: {e}; the last kept generation stays the head"
                )));
            }
        };
        log_commit(&sid, &commit);
        self.set_state(
            &sid,
            SyncState {
                base: Some(commit.record.id.clone()),
                tree_hash: if commit.merged {
                    tree.tree_hash()
                } else {
                    commit.record.tree
                },
                tree,
                listed_at,
                restore_failed: None,
            },
        );
        Ok(())
    }
}

fn log_commit(sid: &str, commit: &Commit) {
    let r = &commit.record;
    if !commit.created {
        tracing::info!("[workspace-sync] {sid} unchanged since generation {}", r.id);
        return;
    }
    let merged = if commit.merged {
        format!(
            ", merged with another session's generation {}: {} conflict(s)",
            r.parents.first().map(|p| p.as_str()).unwrap_or("?"),
            commit.conflicts.len()
        )
    } else {
        String::new()
    };
    tracing::info!(
        "[workspace-sync] {sid} kept generation {}: {} ({} bytes new){merged}",
        r.id,
        r.stats,
        r.stats.bytes_new
    );
    for c in &commit.conflicts {
        tracing::warn!("[workspace-sync] {sid} conflict: {c}");
    }
}

/// Finds what changed since `state.tree` (the sandbox's own account of its
/// changes when it has one, else a full listing compared by stat), reads
/// it, stores the new blobs: the new tree, the bytes written, and when it
/// was listed.
async fn take_snapshot(
    sandbox: &dyn Sandbox,
    paths: &AgentPaths,
    state: &SyncState,
) -> Result<(Manifest, u64, i64), String> {
    let changes = sandbox
        .workspace_changes()
        .await
        .map_err(|e| format!("listing /workspace: {e}"))?;
    let (mut tree, needed, listed_at, mut bytes_new) = match changes {
        Some(mut changes) => {
            let tar = std::mem::take(&mut changes.written);
            let (written, bytes) = store_tar(paths, tar).await?;
            let (tree, needed) = apply_changes(&state.tree, state.listed_at, &changes, &written);
            (tree, needed, changes.listing.listed_at, bytes)
        }
        None => {
            let listing = sandbox
                .list_workspace()
                .await
                .map_err(|e| format!("listing /workspace: {e}"))?;
            let (tree, needed) = reuse_unchanged(&listing, &state.tree, state.listed_at);
            (tree, needed, listing.listed_at, 0)
        }
    };
    if needed.is_empty() {
        return Ok((tree, bytes_new, listed_at));
    }
    let tar = sandbox
        .export_paths(&needed)
        .await
        .map_err(|e| format!("reading changed files: {e}"))?;
    let (mut exported, written) = store_tar(paths, tar).await?;
    bytes_new += written;
    for path in &needed {
        match exported.remove(path) {
            Some(e) => {
                tree.entries.insert(path.clone(), e);
            }
            // Gone between the listing and the export.
            None => {
                tree.entries.remove(path);
            }
        }
    }
    Ok((tree, bytes_new, listed_at))
}

/// Reads a tar from the sandbox and stores the blobs the store lacks:
/// each member's entry by path, and the bytes written.
async fn store_tar(
    paths: &AgentPaths,
    tar: Vec<u8>,
) -> Result<(HashMap<String, Entry>, u64), String> {
    if tar.is_empty() {
        return Ok((HashMap::new(), 0));
    }
    let gens = paths.generations();
    blocking(move || {
        let (mut entries, _refused) =
            read_tar_entries(&tar[..]).map_err(|e| StoreError::BadArchive(e.to_string()))?;
        entries.retain(|t| is_kept(&t.path));
        let blobs: Vec<(Hash, &[u8])> = entries
            .iter()
            .filter_map(|t| Some((t.entry.hash?, t.data.as_slice())))
            .collect();
        let written = gens.store().write_blobs(&blobs)?;
        Ok((
            entries
                .into_iter()
                .map(|t| (t.path, t.entry))
                .collect::<HashMap<_, _>>(),
            written,
        ))
    })
    .await
    .map_err(|e| e.to_string())
}

/// `base` with a sandbox's account of its changes applied: the new tree, and
/// the files whose content is neither in `written` nor known from `base`
/// (they must be read).
fn apply_changes(
    base: &Manifest,
    listed_at: i64,
    changes: &WorkspaceChanges,
    written: &HashMap<String, Entry>,
) -> (Manifest, Vec<String>) {
    let mut tree = base.clone();
    for top in &changes.listed_trees {
        remove_below(&mut tree, top, true);
    }
    // A name below a listed directory that the listing lacks is gone.
    let mut present: HashMap<&str, HashSet<&str>> = changes
        .listed_dirs
        .iter()
        .map(|d| (d.as_str(), HashSet::new()))
        .collect();
    for l in &changes.listing.entries {
        let (parent, name) = l.path.rsplit_once('/').unwrap_or(("", &l.path));
        if let Some(names) = present.get_mut(parent) {
            names.insert(name);
        }
    }
    for (dir, names) in &present {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let gone: Vec<String> = tree
            .entries
            .range(prefix.clone()..)
            .take_while(|(p, _)| p.starts_with(&prefix))
            .filter(|(p, _)| {
                let rest = &p[prefix.len()..];
                !rest.contains('/') && !names.contains(rest)
            })
            .map(|(p, _)| p.clone())
            .collect();
        for path in gone {
            remove_below(&mut tree, &path, true);
        }
    }
    let mut needed = Vec::new();
    for l in changes.listing.entries.iter().filter(|l| is_kept(&l.path)) {
        let Some(mut entry) = listed_entry(l) else {
            remove_below(&mut tree, &l.path, true);
            continue;
        };
        if entry.kind != Kind::Dir {
            // A directory replaced by a file or link takes its subtree along.
            remove_below(&mut tree, &l.path, false);
        }
        let old = base.entries.get(&l.path);
        if entry.kind == Kind::File {
            match (written.get(&l.path), old) {
                (Some(w), _) if w.kind == Kind::File => entry = w.clone(),
                // Not written, by the sandbox's account; the stat must agree
                // too (an account kept by timestamps can be fooled).
                (None, Some(o)) if same_file(o, l, listed_at) => entry.hash = o.hash,
                _ => needed.push(l.path.clone()),
            }
        }
        tree.entries.insert(l.path.clone(), entry);
    }
    (tree, needed)
}

/// Removes everything below `path` from `tree`, and `path` itself with
/// `itself` (`""` names the whole tree).
fn remove_below(tree: &mut Manifest, path: &str, itself: bool) {
    if path.is_empty() {
        tree.entries.clear();
        return;
    }
    if itself {
        tree.entries.remove(path);
    }
    let prefix = format!("{path}/");
    let below: Vec<String> = tree
        .entries
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
        .map(|(p, _)| p.clone())
        .collect();
    for p in below {
        tree.entries.remove(&p);
    }
}

/// The listing as a tree, taking each file's hash from `base` when its
/// listing matches and it is not racy; returns the tree and the paths whose
/// content must be read.
fn reuse_unchanged(listing: &Listing, base: &Manifest, listed_at: i64) -> (Manifest, Vec<String>) {
    let mut tree = Manifest::default();
    let mut needed = Vec::new();
    let mut seen = HashSet::new();
    for l in listing.entries.iter().filter(|l| is_kept(&l.path)) {
        seen.insert(l.path.as_str());
        let Some(mut entry) = listed_entry(l) else {
            continue;
        };
        if entry.kind == Kind::File {
            match base.entries.get(&l.path) {
                Some(o) if same_file(o, l, listed_at) => entry.hash = o.hash,
                _ => needed.push(l.path.clone()),
            }
        }
        tree.entries.insert(l.path.clone(), entry);
    }
    (tree, needed)
}

/// A listed path as a manifest entry without a content hash (`None` for a
/// device, fifo or socket: never kept).
fn listed_entry(l: &Listed) -> Option<Entry> {
    let kind = match l.kind {
        ListedKind::File => Kind::File,
        ListedKind::Dir => Kind::Dir,
        ListedKind::Symlink => Kind::Symlink,
        ListedKind::Other => return None,
    };
    Some(Entry {
        kind,
        mode: l.mode,
        mtime: l.mtime,
        size: if kind == Kind::File { l.size } else { 0 },
        hash: None,
        link: l.link.clone(),
    })
}

/// True when `listed` is the file `old` was, by its stat: same kind, mode,
/// size and mtime, and not modified in the second `old`'s tree was listed
/// at (or later), when it may have changed again without its mtime moving.
fn same_file(old: &Entry, listed: &Listed, listed_at: i64) -> bool {
    old.kind == Kind::File
        && old.mode == listed.mode
        && old.size == listed.size
        && old.mtime == listed.mtime
        && listed.mtime < listed_at.saturating_sub(1)
}

/// Collapses a multi-line error (tar's stderr) into one log line.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[async_trait::async_trait]
impl Hook for WorkspaceSync {
    fn name(&self) -> &str {
        "workspace-sync"
    }

    async fn session_started(&self, ctx: &HookContext) -> HookResult {
        self.restore(ctx).await
    }

    async fn session_waiting(&self, ctx: &HookContext) -> HookResult {
        self.snapshot(ctx).await
    }

    async fn session_completed(&self, ctx: &HookContext) -> HookResult {
        let result = self.snapshot(ctx).await;
        self.forget(ctx.session_id());
        result
    }

    async fn session_failed(&self, ctx: &HookContext) -> HookResult {
        self.forget(ctx.session_id());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::local::LocalSandbox;
    use crate::sandbox::{RunRequest, SandboxSpec};

    /// Fills the hashes of `needed` from an export of the sandbox.
    async fn read_needed(sandbox: &LocalSandbox, tree: &mut Manifest, needed: &[String]) {
        let tar = sandbox.export_paths(needed).await.unwrap();
        let (entries, _) = read_tar_entries(&tar[..]).unwrap();
        for t in entries {
            tree.entries.insert(t.path, t.entry);
        }
    }

    /// The tree a full listing and export of every file gives.
    async fn listed_tree(sandbox: &LocalSandbox) -> Manifest {
        let listing = sandbox.list_workspace().await.unwrap();
        let (mut tree, needed) = reuse_unchanged(&listing, &Manifest::default(), 0);
        read_needed(sandbox, &mut tree, &needed).await;
        tree
    }

    #[tokio::test]
    async fn tracked_changes_give_the_tree_a_full_listing_gives() {
        let sandbox = LocalSandbox::new(Default::default(), &SandboxSpec::default());
        let ops = [
            "mkdir -p d$A/e$B && echo $A$B > d$A/e$B/f$C",
            "echo changed$C > d$A/e$B/f$C 2>/dev/null; true",
            "printf %s $A > same$B",
            "rm -rf d$A",
            "mv d$A d$B 2>/dev/null; true",
            "mv same$A d$B/moved 2>/dev/null; true",
            "chmod 600 same$A 2>/dev/null; true",
            "touch -d @$((1700000000 + A)) same$B 2>/dev/null; true",
            "ln -sfn d$A link$B",
            "ln same$A hard$B 2>/dev/null; echo x >> same$A; true",
            "cp -r d$A d$B 2>/dev/null; true",
            "rm -f same$A link$B",
            "mkdir -p same$A 2>/dev/null; true",
            "rm -rf d$A/e$B && echo file > d$A/e$B 2>/dev/null; true",
        ];
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut tree = Manifest::default();
        let (mut tracked, mut largest) = (0, 0);
        for round in 0..300 {
            for _ in 0..1 + next(3) {
                let op = ops[next(ops.len() as u64) as usize];
                let (a, b, c) = (next(4), next(4), next(3));
                let script = format!("A={a} B={b} C={c}; {op}");
                sandbox.run(RunRequest::new(script)).await.unwrap();
            }
            let changes = match sandbox.workspace_changes().await.unwrap() {
                Some(c) => c,
                // A write through a hard link: the caller lists everything.
                None => {
                    tree = listed_tree(&sandbox).await;
                    continue;
                }
            };
            let (entries, _) = read_tar_entries(&changes.written[..]).unwrap();
            let written: HashMap<String, Entry> =
                entries.into_iter().map(|t| (t.path, t.entry)).collect();
            let (mut incremental, needed) = apply_changes(&tree, i64::MAX, &changes, &written);
            read_needed(&sandbox, &mut incremental, &needed).await;
            let full = listed_tree(&sandbox).await;
            assert_eq!(
                incremental.diff(&full),
                Vec::new(),
                "round {round}: the incremental tree differs"
            );
            assert_eq!(incremental, full, "round {round}");
            tracked += 1;
            largest = largest.max(full.entries.len());
            tree = incremental;
        }
        // The comparison ran, on trees worth comparing.
        assert!(tracked > 200 && largest > 10, "{tracked} {largest}");
    }

    fn listed(path: &str, size: u64, mtime: i64) -> Listed {
        Listed {
            path: path.into(),
            kind: ListedKind::File,
            mode: 0o644,
            size,
            mtime,
            link: None,
        }
    }

    #[test]
    fn only_changed_or_racy_files_are_read() {
        let mut base = Manifest::default();
        for p in ["same", "grown", "racy"] {
            let mut e = Entry::file(b"abc");
            e.mtime = if p == "racy" { 999 } else { 100 };
            base.entries.insert(p.into(), e);
        }
        let listing = Listing {
            entries: vec![
                listed("same", 3, 100),
                listed("grown", 4, 100),
                listed("racy", 3, 999),
                listed("new", 1, 100),
                listed("mindlog.jsonl", 1, 100),
            ],
            listed_at: 1000,
        };
        let (tree, mut needed) = reuse_unchanged(&listing, &base, 1000);
        needed.sort();
        assert_eq!(needed, ["grown", "new", "racy"]);
        assert!(tree.entries["same"].hash.is_some());
        assert!(!tree.entries.contains_key("mindlog.jsonl"));
    }
}
