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
use std::sync::Arc;

use crate::hooks::{Hook, HookContext, HookError, HookResult, KeptGeneration};
use crate::mindlog::SANDBOX_MINDLOG_PATH;
use crate::sandbox::{Listed, ListedKind, Listing, SANDBOX_UID, Sandbox, WorkspaceChanges};
use crate::store::{
    ChangeStats, Commit, Edit, Entry, GenerationId, Generations, Hash, Kind, Manifest,
    RESTORE_FAILED_NOTE, Record, Retention, Spool, StoreError, manifest_from_tar, read_tar_entries,
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
    /// The session's handle on its agent's generations, kept so that every
    /// park reuses one store index and one record cache.
    gens: Option<Generations>,
    /// A park failed part way: `tree` may be ahead of `base`, so the next
    /// park starts again from `base`'s tree and a full listing.
    stale: bool,
    /// The head's sequence number when the session started.
    start_seq: u64,
    /// The turn whose park was spooled: nothing ran since, so a park in the
    /// same turn (the one `complete` takes after `park`) has nothing to add
    /// and does not wait on the store again.
    spooled_turn: Option<u64>,
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
            gens: None,
            stale: false,
            start_seq: 0,
            spooled_turn: None,
        }
    }
}

/// The workspace-sync hook (registered by default, see
/// [`RuntimeBuilder::default_hooks`](crate::runtime::RuntimeBuilder::default_hooks)).
///
/// History does not grow without bound: a session that completes after the
/// head's sequence number crossed a multiple of [`GC_EVERY`] collects the
/// store with the hook's [`Retention`] (by default
/// [`Retention::default`]), at most once per that many generations whichever
/// process made them.
#[derive(Debug, Default)]
pub struct WorkspaceSync {
    retention: Option<Retention>,
}

/// How many generations pass between automatic collections.
pub const GC_EVERY: u64 = 64;

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

    /// Collects history with `retention` instead of the default.
    pub fn with_retention(mut self, retention: Retention) -> WorkspaceSync {
        self.retention = Some(retention);
        self
    }

    /// Collects the store when the head crossed a multiple of [`GC_EVERY`]
    /// since `start_seq`. A failure is logged: the generations are intact.
    async fn collect_if_due(&self, sid: &str, gens: Generations, start_seq: u64) {
        let retention = self.retention.unwrap_or_default();
        let report = blocking(move || {
            let Some(head) = gens.head()? else {
                return Ok(None);
            };
            if head.seq / GC_EVERY <= start_seq / GC_EVERY {
                return Ok(None);
            }
            gens.gc(retention).map(Some)
        })
        .await;
        match report {
            Ok(Some(r)) => tracing::info!(
                "[workspace-sync] {sid} gc: kept {} generations, removed {}, freed {} bytes",
                r.kept,
                r.removed,
                r.freed_bytes
            ),
            Ok(None) => {}
            Err(e) => tracing::warn!("[workspace-sync] {sid} gc failed: {e}"),
        }
    }

    async fn restore(&self, ctx: &HookContext) -> HookResult {
        let Some(paths) = ctx.paths() else {
            return Ok(());
        };
        let sid = ctx.session_id();
        set_live(sid, true);
        let sandbox = ctx.sandbox()?;
        let gens = paths.generations();
        let legacy = paths.archive.clone();
        let spool = paths.shared_store.is_some().then(|| paths.spool());
        let loaded = {
            let (gens, sid) = (gens.clone(), sid.to_string());
            blocking(move || {
                crate::runtime::migrate_legacy_archive(&gens, &legacy)?;
                // Parks that earlier sessions could only spool come first, so
                // this one starts from them.
                if let Some(spool) = spool {
                    let SpoolUploads { uploaded, left } = upload_spooled(&spool, &gens)?;
                    for (session, record) in uploaded {
                        tracing::info!(
                            "[workspace-sync] {sid} uploaded session {session}'s spooled park as generation {}",
                            record.id
                        );
                    }
                    for (session, why) in left {
                        tracing::warn!(
                            "[workspace-sync] {sid} session {session}'s spooled park stays spooled: {why}"
                        );
                    }
                }
                let load = || -> Result<_, StoreError> {
                    let Some(head) = gens.head()? else {
                        return Ok(None);
                    };
                    let tree = gens.manifest(&head.id)?;
                    let tar = gens.tar(&head.id, None, SANDBOX_UID)?;
                    Ok(Some((head, tree, tar)))
                };
                match load() {
                    // A head that does not read whole (a record or a blob
                    // lost to a storage fault): re-pointed to the newest
                    // generation that does, and loaded again. Checked only
                    // on failure, so a sound restore pays nothing for it.
                    Err(
                        StoreError::NoGeneration(_)
                        | StoreError::Damaged { .. }
                        | StoreError::MissingBlob(_),
                    ) if let Some(repair) = gens.repair()? => {
                        tracing::warn!(
                            "[workspace-sync] {sid} repaired the head: it named {} ({}); it names {} now",
                            repair.broken,
                            repair.reason,
                            repair.head
                        );
                        load()
                    }
                    loaded => loaded,
                }
            })
            .await
        };
        let (head, tree, tar) = match loaded {
            Ok(Some(x)) => x,
            Ok(None) => {
                tracing::info!("[workspace-sync] {sid} nothing kept yet");
                ctx.put_state(SyncState::default());
                return Ok(());
            }
            Err(e) => return restore_failed(ctx, &e.to_string()),
        };
        if let Err(e) = sandbox.import_workspace(&tar).await {
            return restore_failed(ctx, &format!("the sandbox refused it: {e}"));
        }
        // What the next park reports as changed starts here.
        if let Err(e) = sandbox.mark_workspace().await {
            return restore_failed(ctx, &format!("marking the restored tree: {e}"));
        }
        tracing::info!(
            "[workspace-sync] {sid} restored generation {} ({} bytes)",
            head.id,
            tree.content_bytes()
        );
        ctx.put_state(SyncState {
            base: Some(head.id),
            tree,
            tree_hash: head.tree,
            listed_at: head.listed_at,
            restore_failed: None,
            gens: Some(gens),
            stale: false,
            start_seq: head.seq,
            spooled_turn: None,
        });
        Ok(())
    }

    async fn snapshot(&self, ctx: &HookContext) -> HookResult {
        let Some(paths) = ctx.paths() else {
            return Ok(());
        };
        let sid = ctx.session_id().to_string();
        let sandbox = ctx.sandbox()?;
        let mut state = ctx.take_state::<SyncState>().unwrap_or_default();
        if state.spooled_turn == Some(ctx.turn) {
            tracing::info!("[workspace-sync] {sid} unchanged since its spooled park");
            ctx.put_state(state);
            return Ok(());
        }
        let gens = state
            .gens
            .get_or_insert_with(|| paths.generations())
            .clone();
        let result = keep(&sid, sandbox.as_ref(), &gens, &mut state).await;
        let spool = paths.spool();
        match &result {
            Ok(kept) => {
                state.spooled_turn = None;
                if let Some(kept) = kept {
                    ctx.set_kept(kept.clone());
                }
                // The store holds all the spool held, and more.
                if spool.holds(&sid)
                    && let Err(e) = spool.remove(&sid)
                {
                    tracing::warn!("[workspace-sync] {sid} removing its spooled park: {e}");
                }
            }
            Err(e) => {
                tracing::warn!("[workspace-sync] {sid} {e}");
                state.stale = true;
                // A shared store that does not answer: the park is kept on the
                // host and uploaded when it answers again.
                if paths.shared_store.is_some() {
                    let detached = state.restore_failed.is_some();
                    let base = state.base.clone().filter(|_| !detached);
                    match spool_park(&sid, sandbox.as_ref(), spool, (base, detached), e).await {
                        Ok((id, dir)) => {
                            tracing::warn!(
                                "[workspace-sync] {sid} spooled generation {id} in {}: the store was not written ({e}); it is uploaded when the store answers again",
                                dir.display()
                            );
                            state.spooled_turn = Some(ctx.turn);
                            ctx.put_state(state);
                            return Ok(());
                        }
                        Err(spool_error) => tracing::error!(
                            "[workspace-sync] {sid} spooling the park failed too: {spool_error}"
                        ),
                    }
                }
            }
        }
        ctx.put_state(state);
        result
            .map(|_| ())
            .map_err(|e| hook_err(format!("{e}; the last kept generation stays the head")))
    }
}

/// Sessions of this process that have started and not ended: their spooled
/// parks are theirs to replace or remove, so no restore uploads them (an
/// upload of an older tree would bring back files the session deleted
/// since).
static LIVE: std::sync::Mutex<std::collections::BTreeSet<String>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

fn set_live(sid: &str, live: bool) {
    let mut set = LIVE.lock().unwrap_or_else(|p| p.into_inner());
    if live {
        set.insert(sid.to_string());
    } else {
        set.remove(sid);
    }
}

fn is_live(sid: &str) -> bool {
    LIVE.lock().unwrap_or_else(|p| p.into_inner()).contains(sid)
}

/// What [`upload_spooled`] did with one agent's spool.
#[derive(Default)]
pub(crate) struct SpoolUploads {
    /// Sessions whose parks are in the store now, with the generation of each.
    pub(crate) uploaded: Vec<(String, Record)>,
    /// Sessions whose parks are still spooled, with why.
    pub(crate) left: Vec<(String, String)>,
}

/// Uploads the spooled parks of `spool` whose sessions are not live here;
/// what was uploaded, and what is still spooled with why. Blocking.
pub(crate) fn upload_spooled(
    spool: &Spool,
    gens: &Generations,
) -> Result<SpoolUploads, StoreError> {
    // One upload at a time in this process: a restore and the server's
    // retry may reach the same spooled park together.
    static UPLOADING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = UPLOADING.lock().unwrap_or_else(|p| p.into_inner());
    let mut uploaded = Vec::new();
    let mut left = Vec::new();
    for pending in spool.pending()? {
        if is_live(&pending.session) {
            left.push((pending.session, "its session is still live".to_string()));
            continue;
        }
        match spool.upload(&pending.session, gens) {
            Ok(record) => uploaded.push((pending.session, record)),
            Err(e) => left.push((pending.session, e.to_string())),
        }
    }
    Ok(SpoolUploads { uploaded, left })
}

/// Keeps the sandbox's whole workspace in `spool` as session `sid`'s park
/// on `base`; the spooled generation's id and folder.
async fn spool_park(
    sid: &str,
    sandbox: &dyn Sandbox,
    spool: Spool,
    (base, detached): (Option<GenerationId>, bool),
    reason: &str,
) -> Result<(GenerationId, std::path::PathBuf), String> {
    let listing = sandbox
        .list_workspace()
        .await
        .map_err(|e| format!("listing /workspace: {e}"))?;
    let paths: Vec<String> = listing
        .entries
        .iter()
        .filter(|l| is_kept(&l.path))
        .map(|l| l.path.clone())
        .collect();
    let tar = sandbox
        .export_paths(&paths)
        .await
        .map_err(|e| format!("reading /workspace: {e}"))?;
    let (sid, reason) = (sid.to_string(), reason.to_string());
    let listed_at = listing.listed_at;
    blocking(move || {
        let (tree, blobs) = manifest_from_tar(&tar, false)?;
        let id = spool.write(
            &sid,
            base.as_ref(),
            detached,
            &tree,
            &blobs,
            listed_at,
            &reason,
        )?;
        Ok((id, spool.dir().to_path_buf()))
    })
    .await
    .map_err(|e| e.to_string())
}

/// One park: brings `state.tree` up to the sandbox's tree and keeps it as a
/// generation (the head's child, a merge, or beside the head after a failed
/// restore); what it kept, when there is a generation to name.
async fn keep(
    sid: &str,
    sandbox: &dyn Sandbox,
    gens: &Generations,
    state: &mut SyncState,
) -> Result<Option<KeptGeneration>, String> {
    let full = state.stale;
    if full {
        reload_base(gens, state)
            .await
            .map_err(|e| format!("snapshot failed: reading the head: {e}"))?;
    }
    let snap = take_snapshot(sandbox, gens, state, full)
        .await
        .map_err(|e| format!("snapshot failed: {}", one_line(&e)))?;
    state.listed_at = snap.listed_at;
    let changes = snap.edit.diff(&state.tree);
    if state.restore_failed.is_none()
        && let Some(base) = &state.base
        && snap.edit.is_noop(&state.tree)
    {
        tracing::info!("[workspace-sync] {sid} unchanged since generation {base}");
        return Ok(Some(KeptGeneration {
            id: base.clone(),
            created: false,
            merged: false,
            stats: ChangeStats::default(),
            changes,
        }));
    }
    let (ours, listed_at, bytes_new) = (state.tree.clone(), snap.listed_at, snap.bytes_new);
    if let Some(reason) = &state.restore_failed {
        let note = format!("{RESTORE_FAILED_NOTE}: {reason}");
        let (gens, sid2) = (gens.clone(), sid.to_string());
        let record =
            blocking(move || gens.commit_detached(&ours, bytes_new, Some(&sid2), listed_at, &note))
                .await
                .map_err(|e| format!("snapshot failed: {e}"))?;
        tracing::warn!(
            "[workspace-sync] {sid} kept generation {} beside the head (the restore had failed, so the head was left as it was)",
            record.id
        );
        return Ok(None);
    }
    let commit = {
        let (gens, base, base_hash, sid) = (
            gens.clone(),
            state.base.clone(),
            state.tree_hash,
            sid.to_string(),
        );
        let edit = snap.edit;
        blocking(move || match &base {
            Some(base) => gens.commit_edit(
                base,
                base_hash,
                ours,
                &edit,
                bytes_new,
                Some(&sid),
                listed_at,
            ),
            None => gens.commit(None, &ours, bytes_new, Some(&sid), listed_at, None),
        })
        .await
        .map_err(|e| format!("snapshot failed: {e}"))?
    };
    log_commit(sid, &commit);
    state.base = Some(commit.record.id.clone());
    // The sandbox holds our tree, not a merge of it: the next park starts there.
    state.tree_hash = if commit.merged {
        state.tree.tree_hash()
    } else {
        commit.record.tree
    };
    Ok(Some(KeptGeneration {
        id: commit.record.id,
        created: commit.created,
        merged: commit.merged,
        stats: if commit.created {
            commit.record.stats
        } else {
            ChangeStats::default()
        },
        changes,
    }))
}

/// Puts `base`'s tree back in `state` after a park failed part way.
async fn reload_base(gens: &Generations, state: &mut SyncState) -> Result<(), StoreError> {
    let Some(base) = state.base.clone() else {
        *state = SyncState {
            gens: state.gens.take(),
            restore_failed: state.restore_failed.take(),
            ..SyncState::default()
        };
        return Ok(());
    };
    let gens = gens.clone();
    let (tree, record) = blocking(move || Ok((gens.manifest(&base)?, gens.record(&base)?))).await?;
    state.tree = tree;
    state.tree_hash = record.tree;
    state.listed_at = record.listed_at;
    state.stale = false;
    Ok(())
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

/// What a park found.
struct Snapshot {
    /// How `state.tree` was edited into the sandbox's tree.
    edit: Edit,
    /// Bytes of new blobs written to the store.
    bytes_new: u64,
    /// The sandbox clock when it was listed.
    listed_at: i64,
}

/// Brings `state.tree` up to the sandbox's tree (from the sandbox's own
/// account of its changes when it has one and `full` is not asked, else a
/// full listing compared by stat), reading what changed and storing the new
/// blobs.
async fn take_snapshot(
    sandbox: &dyn Sandbox,
    gens: &Generations,
    state: &mut SyncState,
    full: bool,
) -> Result<Snapshot, String> {
    let changes = if full {
        None
    } else {
        sandbox
            .workspace_changes()
            .await
            .map_err(|e| format!("listing /workspace: {e}"))?
    };
    let (mut edit, needed, listed_at, mut bytes_new) = match changes {
        Some(mut changes) => {
            let tar = std::mem::take(&mut changes.written);
            let (written, bytes) = store_tar(gens, tar).await?;
            let tree = Arc::make_mut(&mut state.tree);
            let (edit, needed) = apply_changes(tree, &changes, &written);
            (edit, needed, changes.listing.listed_at, bytes)
        }
        None => {
            let listing = sandbox
                .list_workspace()
                .await
                .map_err(|e| format!("listing /workspace: {e}"))?;
            let (tree, needed) = reuse_unchanged(&listing, &state.tree, state.listed_at);
            let edit = Edit::between(&state.tree, &tree);
            state.tree = Arc::new(tree);
            (edit, needed, listing.listed_at, 0)
        }
    };
    if !needed.is_empty() {
        let tar = sandbox
            .export_paths(&needed)
            .await
            .map_err(|e| format!("reading changed files: {e}"))?;
        let (mut exported, written) = store_tar(gens, tar).await?;
        bytes_new += written;
        let tree = Arc::make_mut(&mut state.tree);
        for path in needed {
            match exported.remove(&path) {
                Some(e) => edit.insert(tree, path, e),
                // Gone between the listing and the export.
                None => edit.remove(tree, &path),
            }
        }
    }
    Ok(Snapshot {
        edit,
        bytes_new,
        listed_at,
    })
}

/// Reads a tar from the sandbox and stores the blobs the store lacks:
/// each member's entry by path, and the bytes written.
async fn store_tar(
    gens: &Generations,
    tar: Vec<u8>,
) -> Result<(HashMap<String, Entry>, u64), String> {
    if tar.is_empty() {
        return Ok((HashMap::new(), 0));
    }
    let gens = gens.clone();
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

/// Applies a sandbox's account of its changes to `tree` in place: what was
/// edited, and the files whose content is neither in `written` nor known
/// from the tree before (they must be read).
fn apply_changes(
    tree: &mut Manifest,
    changes: &WorkspaceChanges,
    written: &HashMap<String, Entry>,
) -> (Edit, Vec<String>) {
    let mut edit = Edit::default();
    for top in &changes.listed_trees {
        remove_below(tree, &mut edit, top, true);
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
            remove_below(tree, &mut edit, &path, true);
        }
    }
    let mut needed = Vec::new();
    for l in changes.listing.entries.iter().filter(|l| is_kept(&l.path)) {
        let Some(mut entry) = listed_entry(l) else {
            remove_below(tree, &mut edit, &l.path, true);
            continue;
        };
        if entry.kind != Kind::Dir {
            // A directory replaced by a file or link takes its subtree along.
            remove_below(tree, &mut edit, &l.path, false);
        }
        if entry.kind == Kind::File {
            match (written.get(&l.path), edit.original(tree, &l.path)) {
                (Some(w), _) if w.kind == Kind::File => entry = w.clone(),
                // Not written, by the sandbox's account; the stat must agree
                // too. A file written in the second of the last listing is
                // not re-read: the account is exact, and re-reading such
                // files cost every docker park a second round trip.
                (None, Some(o)) if same_stat(o, l) => entry.hash = o.hash,
                _ => needed.push(l.path.clone()),
            }
        }
        edit.insert(tree, l.path.clone(), entry);
    }
    (edit, needed)
}

/// Removes everything below `path` from `tree`, and `path` itself with
/// `itself` (`""` names the whole tree).
fn remove_below(tree: &mut Manifest, edit: &mut Edit, path: &str, itself: bool) {
    if path.is_empty() {
        edit.clear(tree);
        return;
    }
    if itself {
        edit.remove(tree, path);
    }
    let prefix = format!("{path}/");
    let below: Vec<String> = tree
        .entries
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
        .map(|(p, _)| p.clone())
        .collect();
    for p in below {
        edit.remove(tree, &p);
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
    same_stat(old, listed) && listed.mtime < listed_at.saturating_sub(1)
}

/// True when `listed` has the stat `old` had: same kind, mode, size and
/// mtime. Enough with the sandbox's own account of what it wrote (which is
/// exact, see [`crate::sandbox::workspace::MARK_SCRIPT`]): the stat only
/// guards against an account that missed a write which changed the size or
/// the mtime.
fn same_stat(old: &Entry, listed: &Listed) -> bool {
    old.kind == Kind::File
        && old.mode == listed.mode
        && old.size == listed.size
        && old.mtime == listed.mtime
}

/// Collapses a multi-line error (tar's stderr) into one log line.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Notes a restore that failed: the session runs on an empty workspace and
/// its parks merge into the head instead of replacing it.
fn restore_failed(ctx: &HookContext, reason: &str) -> HookResult {
    let reason = one_line(reason);
    tracing::warn!(
        "[workspace-sync] {} restore failed: {reason}",
        ctx.session_id()
    );
    ctx.put_state(SyncState {
        restore_failed: Some(reason),
        ..SyncState::default()
    });
    Ok(())
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
        set_live(ctx.session_id(), false);
        // No state (an ephemeral session keeps nothing): nothing to collect.
        if result.is_ok()
            && let Some(state) = ctx.take_state::<SyncState>()
            && let Some(gens) = state.gens
        {
            self.collect_if_due(ctx.session_id(), gens, state.start_seq)
                .await;
        }
        result
    }

    async fn session_failed(&self, ctx: &HookContext) -> HookResult {
        set_live(ctx.session_id(), false);
        ctx.take_state::<SyncState>();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::Hook;
    use crate::sandbox::local::LocalSandbox;
    use crate::sandbox::{RunRequest, SandboxSpec};
    use crate::store::manifest::Delta;
    use std::sync::Mutex;

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
            let before = tree.clone();
            let mut incremental = tree;
            let (edit, needed) = apply_changes(&mut incremental, &changes, &written);
            read_needed(&sandbox, &mut incremental, &needed).await;
            // The edit (whose paths include every file read) describes the
            // change as comparing the whole trees would.
            assert_eq!(
                edit.diff(&incremental),
                before.diff(&incremental),
                "round {round}"
            );
            assert_eq!(
                edit.delta(&incremental),
                Delta::between(&before, &incremental)
            );
            let mut reverted = incremental.clone();
            edit.revert(&mut reverted);
            assert_eq!(reverted, before, "round {round}: the edit does not revert");
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

    /// A hook after the sync that records what each park kept.
    struct Watch(Arc<Mutex<Vec<KeptGeneration>>>);

    #[async_trait::async_trait]
    impl Hook for Watch {
        fn name(&self) -> &str {
            "watch"
        }

        async fn session_waiting(&self, ctx: &HookContext) -> HookResult {
            if let Some(k) = ctx.kept() {
                self.0.lock().unwrap().push(k);
            }
            Ok(())
        }
    }

    #[tokio::test]
    async fn later_hooks_see_what_a_park_kept_and_old_history_is_collected() {
        let dir = tempfile::tempdir().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let rt = crate::Runtime::builder()
            .data_dir(dir.path())
            .default_hooks(false)
            .hook(WorkspaceSync::new().with_retention(Retention::newest(5)))
            .hook(Watch(seen.clone()))
            .build();
        let mut s = rt.session("a").unwrap();
        s.start().await.unwrap();
        s.run_script("mkdir d && echo one > d/f && echo x > gone")
            .await
            .unwrap();
        s.park().await.unwrap();
        s.run_script("echo two > d/f && rm gone").await.unwrap();
        s.park().await.unwrap();
        s.run_script("cat d/f").await.unwrap();
        s.park().await.unwrap();
        let kept = seen.lock().unwrap().clone();
        let lines = |k: &KeptGeneration| {
            k.changes
                .iter()
                .map(|c| format!("{} {}", c.kind.letter(), c.path))
                .collect::<Vec<_>>()
        };
        assert_eq!(kept.len(), 3);
        assert!(kept[0].created);
        assert_eq!(kept[0].stats.to_string(), "+2 ~0 -0");
        assert_eq!(lines(&kept[0]), ["A d", "A d/f", "A gone"]);
        assert_eq!(kept[1].stats.to_string(), "+0 ~1 -1");
        assert_eq!(lines(&kept[1]), ["M d/f", "D gone"]);
        assert!(!kept[2].created && kept[2].changes.is_empty());
        assert_eq!(kept[2].id, kept[1].id);
        for i in 0..70 {
            s.run_script(&format!("echo {i} > n")).await.unwrap();
            s.park().await.unwrap();
        }
        s.complete().await.unwrap();
        let gens = rt.generations("a").unwrap();
        // 72 generations were made; crossing seq 64 collected all but 5.
        assert_eq!(gens.store().record_ids().unwrap().len(), 5);
        let head = gens.head().unwrap().unwrap();
        assert_eq!(head.seq, 72);
        let tar = gens.tar(&head.id, None, 0).unwrap();
        let (entries, _) = read_tar_entries(&tar[..]).unwrap();
        let n = entries.iter().find(|t| t.path == "n").unwrap();
        assert_eq!(n.data, b"69\n");
    }

    #[tokio::test]
    async fn a_park_after_a_failed_one_keeps_the_failed_turns_changes() {
        let dir = tempfile::tempdir().unwrap();
        let rt = crate::Runtime::builder().data_dir(dir.path()).build();
        let mut s = rt.session("a").unwrap();
        s.start().await.unwrap();
        s.run_script("echo one > a").await.unwrap();
        s.park().await.unwrap();
        // Records cannot be written: the next park fails.
        let records = dir.path().join("agents/a/store/generations");
        let aside = dir.path().join("aside");
        std::fs::rename(&records, &aside).unwrap();
        std::fs::write(&records, "").unwrap();
        s.run_script("echo two > b").await.unwrap();
        assert!(s.park().await.is_err());
        std::fs::remove_file(&records).unwrap();
        std::fs::rename(&aside, &records).unwrap();
        s.run_script("echo three > c").await.unwrap();
        s.park().await.unwrap();
        let gens = rt.generations("a").unwrap();
        let head = gens.head().unwrap().unwrap();
        let tar = gens.tar(&head.id, None, 0).unwrap();
        let (entries, _) = read_tar_entries(&tar[..]).unwrap();
        let files: Vec<_> = entries
            .iter()
            .filter(|t| t.entry.kind == Kind::File)
            .map(|t| {
                (
                    t.path.as_str(),
                    String::from_utf8_lossy(&t.data).into_owned(),
                )
            })
            .collect();
        assert_eq!(
            files,
            [
                ("a", "one\n".into()),
                ("b", "two\n".into()),
                ("c", "three\n".into())
            ]
        );
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
