//! Moving `/workspace` across the sandbox boundary as tar streams: the
//! listing a snapshot starts from, the export of changed paths, the import of
//! a restored tree.
//!
//! The [`Sandbox`](super::Sandbox) trait's default methods do this with the
//! shell commands every backend runs the same way (`find -printf`, `tar cf
//! -T`, `tar xf`), so a backend gets them for free; the local backend serves
//! them straight from its virtual filesystem, and parity is kept by the tar
//! format.

use std::time::Duration;

use super::{RunRequest, RunResult, Sandbox, SandboxError};
use crate::archive::names;

/// Where the sync scripts keep their files inside the sandbox.
pub const SYNC_DIR: &str = "/tmp/.sandkeep-sync";

/// How long one listing, export or import may take.
pub const SYNC_TIMEOUT: Duration = Duration::from_secs(300);

/// What a listed path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListedKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A device, fifo or socket: never kept.
    Other,
}

/// One path of `/workspace` as the sandbox sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Relative to `/workspace`.
    pub path: String,
    /// What it is.
    pub kind: ListedKind,
    /// Permission bits.
    pub mode: u32,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, whole seconds since the epoch.
    pub mtime: i64,
    /// The target, for a symlink.
    pub link: Option<String>,
}

/// Everything under `/workspace`, and the sandbox's clock when it was listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// The paths, in no particular order.
    pub entries: Vec<Listed>,
    /// The sandbox's clock, seconds since the epoch, just before the walk.
    pub listed_at: i64,
}

/// What changed under `/workspace` since the sandbox's last mark
/// ([`Sandbox::mark_workspace`](super::Sandbox::mark_workspace) or the last
/// [`Sandbox::workspace_changes`](super::Sandbox::workspace_changes)), as a
/// sandbox that can tell exactly reports it: the paths that may differ, and
/// the content of every file that may have been written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkspaceChanges {
    /// Directories (relative to `/workspace`, `""` for `/workspace` itself)
    /// whose every entry is in `listing`: a name directly below one of them
    /// that `listing` lacks is gone, with everything under it.
    pub listed_dirs: Vec<String>,
    /// Directories whose whole subtree is in `listing` (`""`: everything):
    /// anything under them that `listing` lacks is gone.
    pub listed_trees: Vec<String>,
    /// The current kind, mode, size and mtime of every path that may differ;
    /// a path not in it (nor below a listed directory or tree) is unchanged.
    pub listing: Listing,
    /// An uncompressed tar of every regular file of `listing` whose content
    /// may have changed; a file of `listing` that is not in it kept the
    /// content it had at the same path.
    pub written: Vec<u8>,
}

/// Lists `/workspace` into a file: the clock on the first line, then six
/// NUL-terminated fields per path (type, mode, size, mtime, path, target).
const LIST_SCRIPT: &str = "mkdir -p /tmp/.sandkeep-sync && cd /workspace && \
     { date +%s; find . -mindepth 1 -printf '%y\\0%m\\0%s\\0%T@\\0%P\\0%l\\0'; } \
     > /tmp/.sandkeep-sync/listing";

/// Parses what [`LIST_SCRIPT`] wrote.
pub fn parse_listing(bytes: &[u8]) -> Result<Listing, SandboxError> {
    let bad = |why: &str| SandboxError::Backend(format!("unreadable workspace listing: {why}"));
    let nl = memchr::memchr(b'\n', bytes).ok_or_else(|| bad("no clock line"))?;
    let listed_at = std::str::from_utf8(&bytes[..nl])
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| bad("bad clock line"))?;
    let mut fields = bytes[nl + 1..].split(|&b| b == 0);
    let mut entries = Vec::new();
    while let Some(kind) = fields.next() {
        if kind.is_empty() {
            break;
        }
        let mut next = || fields.next().ok_or_else(|| bad("truncated record"));
        let (mode, size, mtime, path, link) = (next()?, next()?, next()?, next()?, next()?);
        // Names that are not UTF-8 are kept byte-exact (`names`).
        let text = names::from_bytes;
        let num = |b: &[u8]| {
            std::str::from_utf8(b)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
        };
        let mtime = std::str::from_utf8(mtime)
            .ok()
            .and_then(|s| s.split('.').next()?.parse::<i64>().ok())
            .ok_or_else(|| bad("bad mtime"))?;
        let kind = match kind {
            b"f" => ListedKind::File,
            b"d" => ListedKind::Dir,
            b"l" => ListedKind::Symlink,
            _ => ListedKind::Other,
        };
        entries.push(Listed {
            path: text(path),
            kind,
            mode: std::str::from_utf8(mode)
                .ok()
                .and_then(|m| u32::from_str_radix(m, 8).ok())
                .ok_or_else(|| bad("bad mode"))?,
            size: num(size).ok_or_else(|| bad("bad size"))?,
            mtime,
            link: (kind == ListedKind::Symlink).then(|| text(link)),
        });
    }
    Ok(Listing { entries, listed_at })
}

/// Runs a sync script and fails with its stderr when it fails.
async fn run_checked(sandbox: &(impl Sandbox + ?Sized), script: &str) -> Result<(), SandboxError> {
    let out = sandbox
        .run(RunRequest::new(script).timeout(SYNC_TIMEOUT).fresh_shell())
        .await?;
    script_succeeded(&out)
}

/// `Ok` when a sync script exited 0, else its stderr (or its status when
/// it printed nothing) as the error.
pub fn script_succeeded(out: &RunResult) -> Result<(), SandboxError> {
    if out.exit_code == 0 {
        return Ok(());
    }
    let stderr = out.stderr_text();
    Err(SandboxError::Backend(match stderr.trim() {
        "" => format!("exit status {}", out.exit_code),
        text => text.to_string(),
    }))
}

/// [`Sandbox::list_workspace`] through the shell.
pub async fn list_with_shell(sandbox: &(impl Sandbox + ?Sized)) -> Result<Listing, SandboxError> {
    run_checked(sandbox, LIST_SCRIPT).await?;
    let path = format!("{SYNC_DIR}/listing");
    let bytes = sandbox.read_file(&path).await?.unwrap_or_default();
    let _ = sandbox.remove_path(&path).await;
    parse_listing(&bytes)
}

/// [`Sandbox::export_paths`] through the shell: `tar cf` of the named paths.
pub async fn export_with_shell(
    sandbox: &(impl Sandbox + ?Sized),
    paths: &[String],
) -> Result<Vec<u8>, SandboxError> {
    // NUL-terminated and byte-exact: any name a file system holds, newlines
    // and bytes that are not UTF-8 included.
    let mut list = Vec::new();
    for p in paths {
        list.extend_from_slice(b"./");
        list.extend_from_slice(&names::to_bytes(p));
        list.push(0);
    }
    sandbox
        .write_file(&format!("{SYNC_DIR}/paths"), &list)
        .await?;
    // A path deleted since the listing makes tar complain and go on: what it
    // could not read is simply absent from the export.
    let script = "cd /tmp/.sandkeep-sync && tar cf export.tar -C /workspace --no-recursion \
                  --null -T paths 2>errors; test -f export.tar || { cat errors >&2; exit 1; }";
    run_checked(sandbox, script).await?;
    let tar = sandbox
        .read_file(&format!("{SYNC_DIR}/export.tar"))
        .await?
        .unwrap_or_default();
    let _ = sandbox.remove_path(SYNC_DIR).await;
    Ok(tar)
}

/// The script of [`mark_with_shell`]: touches the mark [`CHANGES_SCRIPT`]
/// compares change times with (outside [`SYNC_DIR`], which the other
/// scripts remove when they are done). It runs right after a restore, when
/// nothing else runs in the sandbox, and the next write comes with the next
/// run, a round trip (far more than a tick of the filesystem's clock, see
/// [`CHANGES_SCRIPT`]) later: no wait is needed here.
pub const MARK_SCRIPT: &str = "touch /tmp/.sandkeep-mark";

/// One round trip for a park: lists `/workspace` (as [`LIST_SCRIPT`]), tars
/// every file whose status changed since the mark (every file when there is
/// no mark), appends the listing as the tar's last member, and moves the
/// mark to when it started. (`$m` is the mark, `$d` is [`SYNC_DIR`].)
///
/// What it reports is exact: a file it does not report as written has not
/// been written since the last mark. File times come from a coarse clock (a
/// kernel tick, a few ms), so a write in the same tick as the new mark looks
/// no newer than it and the next park's `-cnewer` would miss it; hence the
/// search for written files starts at least one tick (20 ms) after the mark
/// (the wait runs beside the listing), and such a write is seen by this
/// park instead.
pub const CHANGES_SCRIPT: &str = r#"d=/tmp/.sandkeep-sync m=/tmp/.sandkeep-mark
rm -rf "$d" && mkdir -p "$d" && touch "$d/mark" && cd /workspace || exit 1
sleep 0.02 & tick=$!
{ date +%s; find . -mindepth 1 -printf '%y\0%m\0%s\0%T@\0%P\0%l\0'; } > "$d/listing" || exit 1
wait $tick
if [ -e "$m" ]; then set -- -cnewer "$m"; fi
find . -mindepth 1 -type f "$@" -printf './%P\0' > "$d/written" || exit 1
tar cf "$d/changes.tar" --null --no-recursion -T "$d/written" 2>"$d/errors"
test -f "$d/changes.tar" || { cat "$d/errors" >&2; exit 1; }
tar rf "$d/changes.tar" -C "$d" listing && mv "$d/mark" "$m""#;

/// Where [`CHANGES_SCRIPT`] leaves its tar.
pub const CHANGES_TAR: &str = "/tmp/.sandkeep-sync/changes.tar";

/// [`Sandbox::workspace_changes`](super::Sandbox::workspace_changes) through
/// the shell: the whole listing, and the files whose status changed since
/// the mark, in one script and one read.
pub async fn changes_with_shell(
    sandbox: &(impl Sandbox + ?Sized),
) -> Result<WorkspaceChanges, SandboxError> {
    run_checked(sandbox, CHANGES_SCRIPT).await?;
    let tar = sandbox.read_file(CHANGES_TAR).await?.unwrap_or_default();
    // Left for the next park's script to remove: one exec less per park.
    split_changes(&tar)
}

/// Splits what [`CHANGES_SCRIPT`] wrote: the written files (a tar of its
/// own) and the listing, its last member.
pub fn split_changes(tar: &[u8]) -> Result<WorkspaceChanges, SandboxError> {
    let bad = |why: String| SandboxError::Backend(format!("unreadable workspace changes: {why}"));
    let mut archive = tar::Archive::new(tar);
    let mut last = None;
    for entry in archive.entries().map_err(|e| bad(e.to_string()))? {
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        let start = entry.raw_header_position() as usize;
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut data).map_err(|e| bad(e.to_string()))?;
        last = Some((start, entry.path_bytes().into_owned(), data));
    }
    let Some((start, name, listing)) = last.filter(|l| l.1 == b"listing") else {
        return Err(bad("no listing".into()));
    };
    let mut written = tar[..start].to_vec();
    written.extend_from_slice(&[0; 1024]);
    Ok(WorkspaceChanges {
        listed_dirs: Vec::new(),
        listed_trees: vec![String::new()],
        listing: parse_listing(&listing).map_err(|e| bad(format!("{name:?}: {e}")))?,
        written,
    })
}

/// [`Sandbox::mark_workspace`](super::Sandbox::mark_workspace) through the
/// shell: the mark's mtime is now.
pub async fn mark_with_shell(sandbox: &(impl Sandbox + ?Sized)) -> Result<(), SandboxError> {
    run_checked(sandbox, MARK_SCRIPT).await
}

/// [`Sandbox::import_workspace`] through the shell: `tar xf` into /workspace.
pub async fn import_with_shell(
    sandbox: &(impl Sandbox + ?Sized),
    tar: &[u8],
) -> Result<(), SandboxError> {
    sandbox
        .write_file(&format!("{SYNC_DIR}/import.tar"), tar)
        .await?;
    let script = "mkdir -p /workspace && tar xf /tmp/.sandkeep-sync/import.tar -C /workspace; \
                  s=$?; rm -rf /tmp/.sandkeep-sync; exit $s";
    run_checked(sandbox, script).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_parses_find_printf_output() {
        let bytes = b"1700000000\nd\x00755\x004096\x001700000000.5\x00d\x00\x00\
                      l\x00777\x003\x001.0\x00l\x00d/a\x00";
        let l = parse_listing(bytes).unwrap();
        assert_eq!(l.listed_at, 1_700_000_000);
        assert_eq!(l.entries[0].kind, ListedKind::Dir);
        assert_eq!(l.entries[0].mode, 0o755);
        assert_eq!(l.entries[1].link.as_deref(), Some("d/a"));
        assert!(parse_listing(b"x\n").is_err());
        assert!(parse_listing(b"1\nf\x00644\x00").is_err());
    }
}
