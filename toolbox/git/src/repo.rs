//! A repository on the virtual filesystem: finding `.git`, the loose object
//! store (zlib-compressed `type size\0data`, ids from gix-object/gix-hash),
//! refs and `packed-refs`, `HEAD`, and the index file (gix-index encodes and
//! decodes it). Everything here goes through [`Fs`], never the host, so the
//! `.git` it writes is the one real git reads after the workspace moves to a
//! container.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use bstr::{BStr, ByteSlice};
use gix_hash::ObjectId;
use gix_object::{Kind, WriteTo};
use sandkeep_shell::FileKind;
use sandkeep_shell::Fs;

use crate::config::Config;
use crate::error::{GitError, Result};

/// The hash kind of every repository here (SHA-1, git's default).
pub const HASH: gix_hash::Kind = gix_hash::Kind::Sha1;

/// One entry of the index as the commands use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    /// Repository-relative, slash-separated path.
    pub path: String,
    /// The blob's id.
    pub id: ObjectId,
    /// 0o100644, 0o100755 or 0o120000.
    pub mode: u32,
    /// 0 normally; 1, 2, 3 for the base, ours and theirs of a conflict.
    pub stage: u8,
    /// Size of the file when it was added (for the quick clean check).
    pub size: u64,
    /// Modification time (seconds, nanoseconds) when it was added.
    pub mtime: (i64, u32),
}

/// An open repository.
pub struct Repo<'a> {
    /// The virtual filesystem.
    pub fs: &'a Fs,
    /// Absolute path of `.git`.
    pub git_dir: String,
    /// Absolute path of the work tree (the directory holding `.git`).
    pub work_tree: String,
    /// Repository config merged over the global one.
    pub config: Config,
    /// Where the global config lives (`$HOME/.gitconfig`), if `HOME` is set.
    pub global_config_path: Option<String>,
    /// Commits and trees already read by this command (objects never
    /// change once written), so a walk that meets them again skips zlib.
    cache: RefCell<ObjectCache>,
    /// One zlib inflater reused for every loose object: making one per
    /// object (tables zeroed, buffers allocated) cost more than inflating
    /// a small commit.
    inflater: RefCell<flate2::Decompress>,
    /// How many ref deltas deep the current packed read is: a crafted pack
    /// whose delta names itself as its base would otherwise recurse until
    /// the stack overflows.
    ref_delta_depth: std::cell::Cell<usize>,
    /// Who moves refs in this command (`Name <email> secs +zone`), for the
    /// reflog; `None` when no identity is known (nothing is logged then).
    pub reflog_ident: RefCell<Option<String>>,
    /// Why refs move now (`commit: subject`, `reset: moving to X`); the
    /// command sets it before it moves a ref, and only then is it logged.
    pub reflog_msg: RefCell<Option<String>>,
    /// A bare repository (no work tree).
    pub bare: bool,
    /// Where the shared parts live (objects, refs, config): `git_dir`
    /// itself, or the main repository's `.git` for a linked work tree
    /// (whose `git_dir` is `.git/worktrees/<name>`).
    pub common_dir: String,
}

/// The deepest chain of ref deltas across packs that is read (git writes
/// chains of at most 4095, almost always within one pack as offset deltas).
const MAX_REF_DELTA_DEPTH: usize = 128;

/// Decoded commits and trees of one command run, bounded in bytes.
#[derive(Default)]
struct ObjectCache {
    objects: HashMap<ObjectId, (Kind, std::rc::Rc<[u8]>)>,
    bytes: usize,
}

/// The most object bytes one command keeps cached.
const CACHE_LIMIT: usize = 64 << 20;

impl ObjectCache {
    fn get(&self, id: &ObjectId) -> Option<(Kind, std::rc::Rc<[u8]>)> {
        self.objects.get(id).cloned()
    }

    fn put(&mut self, id: ObjectId, kind: Kind, data: std::rc::Rc<[u8]>) {
        if matches!(kind, Kind::Commit | Kind::Tree) && self.bytes + data.len() <= CACHE_LIMIT {
            self.bytes += data.len();
            self.objects.insert(id, (kind, data));
        }
    }
}

/// Inflates one zlib stream into exactly `out`'s spare capacity and beyond,
/// reusing `z`.
fn inflate_all(z: &mut flate2::Decompress, input: &[u8], out: &mut Vec<u8>) -> bool {
    z.reset(true);
    loop {
        if out.len() == out.capacity() {
            out.reserve(out.capacity().max(256));
        }
        let before_in = z.total_in() as usize;
        let before_out = z.total_out();
        let status = match z.decompress_vec(
            &input[before_in.min(input.len())..],
            out,
            // `Finish` asks for all the output at once: miniz_oxide fails a
            // stream whose output outgrows the buffer that way.
            flate2::FlushDecompress::None,
        ) {
            Ok(s) => s,
            Err(_) => return false,
        };
        match status {
            flate2::Status::StreamEnd => return true,
            _ if z.total_in() as usize == before_in
                && z.total_out() == before_out
                && out.len() < out.capacity() =>
            {
                // No progress with room to spare: the stream is truncated.
                return false;
            }
            _ => {}
        }
    }
}

/// Joins a directory and a relative path (either may be empty).
pub fn join(dir: &str, rel: &str) -> String {
    if rel.is_empty() {
        dir.to_string()
    } else if dir.is_empty() {
        rel.to_string()
    } else if dir.ends_with('/') {
        format!("{dir}{rel}")
    } else {
        format!("{dir}/{rel}")
    }
}

impl<'a> Repo<'a> {
    /// Finds the repository holding `cwd` (walking up to `/`).
    pub fn discover(fs: &'a Fs, cwd: &str, home: Option<&str>) -> Result<Repo<'a>> {
        let mut dir = cwd.to_string();
        loop {
            let candidate = join(&dir, ".git");
            if fs
                .metadata(&candidate)
                .is_ok_and(|m| m.kind == FileKind::Dir)
                && fs.exists(&join(&candidate, "HEAD"))
            {
                return Repo::open(fs, &dir, home);
            }
            if let Some(linked) = Repo::gitdir_file(fs, &dir) {
                return Repo::open_linked(fs, &dir, &linked, home);
            }
            if Repo::is_git_dir(fs, &dir) {
                return Repo::open_bare(fs, &dir, home);
            }
            if dir == "/" || dir.is_empty() {
                return Err(GitError::fatal(
                    "not a git repository (or any of the parent directories): .git",
                ));
            }
            dir = match dir.rfind('/') {
                Some(0) => "/".to_string(),
                Some(i) => dir[..i].to_string(),
                None => "/".to_string(),
            };
        }
    }

    /// Whether `dir` is itself a repository directory (a bare repository:
    /// `HEAD`, `objects/` and `refs/` in it).
    pub fn is_git_dir(fs: &Fs, dir: &str) -> bool {
        fs.metadata(&join(dir, "HEAD"))
            .is_ok_and(|m| m.kind == FileKind::File)
            && fs
                .metadata(&join(dir, "objects"))
                .is_ok_and(|m| m.kind == FileKind::Dir)
            && fs
                .metadata(&join(dir, "refs"))
                .is_ok_and(|m| m.kind == FileKind::Dir)
    }

    /// Opens the bare repository `git_dir` (its work tree is itself: the
    /// commands that need a work tree are not meant for it).
    pub fn open_bare(fs: &'a Fs, git_dir: &str, home: Option<&str>) -> Result<Repo<'a>> {
        let mut repo = Repo::open(fs, git_dir, home)?;
        repo.git_dir = git_dir.to_string();
        if let Ok(data) = fs.read(&join(git_dir, "config")) {
            let mut config = Config::default();
            if let Some(p) = &repo.global_config_path
                && let Ok(global) = fs.read(p)
            {
                config = Config::parse(&global);
            }
            config.merge(Config::parse(&data));
            repo.config = config;
        }
        repo.bare = true;
        repo.common_dir = git_dir.to_string();
        Ok(repo)
    }

    /// Opens a linked work tree (`worktree add`): `work_tree/.git` is a
    /// file naming its own directory under the main `.git/worktrees/`.
    pub fn open_linked(
        fs: &'a Fs,
        work_tree: &str,
        git_dir: &str,
        home: Option<&str>,
    ) -> Result<Repo<'a>> {
        let common = match fs.read(&join(git_dir, "commondir")) {
            Ok(c) => Fs::resolve(git_dir, c.to_str_lossy().trim()),
            Err(_) => git_dir.to_string(),
        };
        let mut repo = Repo::open(fs, work_tree, home)?;
        repo.git_dir = git_dir.to_string();
        repo.common_dir = common.clone();
        let mut config = Config::default();
        if let Some(p) = &repo.global_config_path
            && let Ok(global) = fs.read(p)
        {
            config = Config::parse(&global);
        }
        if let Ok(data) = fs.read(&join(&common, "config")) {
            config.merge(Config::parse(&data));
        }
        repo.config = config;
        Ok(repo)
    }

    /// The directory a `.git` file (`gitdir: PATH`) points at.
    pub fn gitdir_file(fs: &Fs, dir: &str) -> Option<String> {
        let dotgit = join(dir, ".git");
        if !fs.metadata(&dotgit).is_ok_and(|m| m.kind == FileKind::File) {
            return None;
        }
        let data = fs.read(&dotgit).ok()?;
        let text = data.to_str_lossy();
        let target = text.trim().strip_prefix("gitdir:")?.trim().to_string();
        let path = Fs::resolve(dir, &target);
        fs.exists(&join(&path, "HEAD")).then_some(path)
    }

    /// Opens the repository at `path`: a work tree holding `.git`, or a
    /// bare repository directory.
    pub fn open_any(fs: &'a Fs, path: &str, home: Option<&str>) -> Option<Repo<'a>> {
        let dotgit = join(path, ".git");
        if Repo::is_git_dir(fs, &dotgit) {
            return Repo::open(fs, path, home).ok();
        }
        if Repo::is_git_dir(fs, path) {
            return Repo::open_bare(fs, path, home).ok();
        }
        None
    }

    /// Opens the repository whose work tree is `work_tree`.
    pub fn open(fs: &'a Fs, work_tree: &str, home: Option<&str>) -> Result<Repo<'a>> {
        let git_dir = join(work_tree, ".git");
        let global_config_path = home.map(|h| join(h, ".gitconfig"));
        let mut config = Config::default();
        if let Some(p) = &global_config_path
            && let Ok(data) = fs.read(p)
        {
            config = Config::parse(&data);
        }
        if let Ok(data) = fs.read(&join(&git_dir, "config")) {
            config.merge(Config::parse(&data));
        }
        Ok(Repo {
            fs,
            git_dir: git_dir.clone(),
            work_tree: work_tree.to_string(),
            config,
            global_config_path,
            cache: RefCell::new(ObjectCache::default()),
            inflater: RefCell::new(flate2::Decompress::new(true)),
            ref_delta_depth: std::cell::Cell::new(0),
            reflog_ident: RefCell::new(None),
            reflog_msg: RefCell::new(None),
            bare: false,
            common_dir: git_dir,
        })
    }

    /// A path inside `.git`.
    pub fn gp(&self, rel: &str) -> String {
        if self.common_dir == self.git_dir || Repo::per_worktree(rel) {
            join(&self.git_dir, rel)
        } else {
            join(&self.common_dir, rel)
        }
    }

    /// Whether a path inside `.git` belongs to one work tree (`HEAD`, the
    /// index, pseudo-refs, `HEAD`'s reflog, rebase and sequencer state)
    /// rather than to the repository every work tree shares.
    fn per_worktree(rel: &str) -> bool {
        let first = rel.split('/').next().unwrap_or(rel);
        rel == "index"
            || rel == "logs/HEAD"
            || rel.starts_with("refs/bisect")
            || first.starts_with("rebase-")
            || first == "sequencer"
            || (!first.is_empty() && first.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
    }

    /// A path inside the work tree.
    pub fn wp(&self, rel: &str) -> String {
        join(&self.work_tree, rel)
    }

    // ---- objects -------------------------------------------------------

    fn loose_path(&self, id: &ObjectId) -> String {
        let hex = id.to_hex().to_string();
        self.gp(&format!("objects/{}/{}", &hex[..2], &hex[2..]))
    }

    /// Whether the object exists.
    pub fn has_object(&self, id: &ObjectId) -> bool {
        self.fs.exists(&self.loose_path(id)) || self.read_packed(id).is_some()
    }

    /// Writes an object (if it is not there yet) and returns its id.
    pub fn write_object(&self, kind: Kind, data: &[u8]) -> Result<ObjectId> {
        let id = gix_object::compute_hash(HASH, kind, data)
            .map_err(|e| GitError::fatal(format!("hashing an object: {e}")))?;
        let path = self.loose_path(&id);
        if self.fs.exists(&path) {
            return Ok(id);
        }
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        let header = gix_object::encode::loose_header(kind, data.len() as u64);
        enc.write_all(&header)
            .and_then(|_| enc.write_all(data))
            .map_err(|e| GitError::fatal(format!("compressing an object: {e}")))?;
        let compressed = enc
            .finish()
            .map_err(|e| GitError::fatal(format!("compressing an object: {e}")))?;
        let dir = &path[..path.rfind('/').unwrap_or(0)];
        self.fs.mkdir_all(dir)?;
        self.fs.write(&path, &compressed)?;
        let _ = self.fs.set_mode(&path, 0o444);
        Ok(id)
    }

    /// Encodes and writes a gix object.
    pub fn write(&self, obj: &impl WriteTo) -> Result<ObjectId> {
        let mut buf = Vec::new();
        obj.write_to(&mut buf)
            .map_err(|e| GitError::fatal(format!("encoding an object: {e}")))?;
        self.write_object(obj.kind(), &buf)
    }

    /// Reads an object: its kind and data.
    pub fn read_object(&self, id: &ObjectId) -> Result<(Kind, Vec<u8>)> {
        self.read_object_shared(id)
            .map(|(kind, data)| (kind, data.to_vec()))
    }

    /// Reads an object without copying what this command already read.
    pub fn read_object_shared(&self, id: &ObjectId) -> Result<(Kind, std::rc::Rc<[u8]>)> {
        if let Some(found) = self.cache.borrow().get(id) {
            return Ok(found);
        }
        let (kind, data): (Kind, std::rc::Rc<[u8]>) =
            if let Ok(compressed) = self.fs.read_shared(&self.loose_path(id)) {
                let corrupt = || GitError::fatal(format!("loose object {id} is corrupt"));
                let mut raw = Vec::with_capacity(compressed.len() * 3 + 64);
                if !inflate_all(&mut self.inflater.borrow_mut(), &compressed, &mut raw) {
                    return Err(corrupt());
                }
                let (kind, size, header_len) = gix_object::decode::loose_header(&raw)
                    .map_err(|e| GitError::fatal(format!("loose object {id} is corrupt: {e}")))?;
                if (raw.len() - header_len) as u64 != size {
                    return Err(corrupt());
                }
                (kind, raw[header_len..].into())
            } else if let Some(found) = self.read_packed(id) {
                let (kind, data) = found?;
                (kind, data.into())
            } else {
                return Err(GitError::fatal(format!("unable to read object {id}")));
            };
        self.cache.borrow_mut().put(*id, kind, data.clone());
        Ok((kind, data))
    }

    /// Reads an object of an expected kind.
    pub fn read_kind(&self, id: &ObjectId, want: Kind) -> Result<Vec<u8>> {
        self.read_kind_shared(id, want).map(|d| d.to_vec())
    }

    /// Reads an object of an expected kind without copying a cached one.
    pub fn read_kind_shared(&self, id: &ObjectId, want: Kind) -> Result<std::rc::Rc<[u8]>> {
        let (kind, data) = self.read_object_shared(id)?;
        if kind != want {
            return Err(GitError::fatal(format!(
                "object {id} is a {kind}, not a {want}"
            )));
        }
        Ok(data)
    }

    /// Reads and decodes a commit.
    pub fn commit(&self, id: &ObjectId) -> Result<gix_object::Commit> {
        let data = self.read_kind_shared(id, Kind::Commit)?;
        let c = gix_object::CommitRef::from_bytes(&data, HASH)
            .map_err(|e| GitError::fatal(format!("commit {id} is corrupt: {e}")))?;
        c.try_into()
            .map_err(|e| GitError::fatal(format!("commit {id} is corrupt: {e:?}")))
    }

    /// Reads a tree into (name, mode, id) entries, in tree order.
    pub fn tree(&self, id: &ObjectId) -> Result<Vec<(String, u32, ObjectId)>> {
        let data = self.read_kind_shared(id, Kind::Tree)?;
        let t = gix_object::TreeRef::from_bytes(&data, HASH)
            .map_err(|e| GitError::fatal(format!("tree {id} is corrupt: {e}")))?;
        Ok(t.entries
            .iter()
            .map(|e| {
                (
                    e.filename.to_str_lossy().into_owned(),
                    e.mode.value() as u32,
                    e.oid.to_owned(),
                )
            })
            .collect())
    }

    /// Every blob of a tree, recursively: path -> (mode, id), sorted by path.
    pub fn flatten_tree(&self, id: &ObjectId) -> Result<BTreeMap<String, (u32, ObjectId)>> {
        let mut out = Vec::new();
        self.flatten_into(id, &mut String::new(), &mut out)?;
        // Built in one go from a list: cheaper than an insert per path.
        Ok(out.into_iter().collect())
    }

    /// Appends every blob under tree `id` to `out`, `prefix` (reused as a
    /// buffer) naming its directory.
    fn flatten_into(
        &self,
        id: &ObjectId,
        prefix: &mut String,
        out: &mut Vec<(String, (u32, ObjectId))>,
    ) -> Result<()> {
        let data = self.read_kind_shared(id, Kind::Tree)?;
        let t = gix_object::TreeRef::from_bytes(&data, HASH)
            .map_err(|e| GitError::fatal(format!("tree {id} is corrupt: {e}")))?;
        let at = prefix.len();
        for e in &t.entries {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(&e.filename.to_str_lossy());
            let mode = e.mode.value() as u32;
            if mode == 0o40000 {
                self.flatten_into(&e.oid.to_owned(), prefix, out)?;
            } else {
                out.push((prefix.clone(), (mode, e.oid.to_owned())));
            }
            prefix.truncate(at);
        }
        Ok(())
    }

    /// The tree of a commit, flattened; empty for `None`.
    pub fn commit_files(
        &self,
        commit: Option<&ObjectId>,
    ) -> Result<BTreeMap<String, (u32, ObjectId)>> {
        match commit {
            Some(c) => {
                let tree = self.commit(c)?.tree;
                self.flatten_tree(&tree)
            }
            None => Ok(BTreeMap::new()),
        }
    }

    /// Writes the tree of `files` (path -> (mode, id)) and returns its id.
    pub fn write_tree(&self, files: &[(&str, u32, ObjectId)]) -> Result<ObjectId> {
        self.write_tree_level(files, "")
    }

    fn write_tree_level(&self, files: &[(&str, u32, ObjectId)], prefix: &str) -> Result<ObjectId> {
        let mut entries: Vec<gix_object::tree::Entry> = Vec::new();
        let mut i = 0;
        while i < files.len() {
            let rel = &files[i].0[prefix.len()..];
            if let Some(slash) = rel.find('/') {
                let dir = &rel[..slash];
                let sub_prefix = format!("{prefix}{dir}/");
                let mut j = i;
                while j < files.len() && files[j].0.starts_with(&sub_prefix) {
                    j += 1;
                }
                let oid = self.write_tree_level(&files[i..j], &sub_prefix)?;
                entries.push(gix_object::tree::Entry {
                    mode: gix_object::tree::EntryKind::Tree.into(),
                    filename: dir.into(),
                    oid,
                });
                i = j;
            } else {
                let kind = match files[i].1 {
                    0o100755 => gix_object::tree::EntryKind::BlobExecutable,
                    0o120000 => gix_object::tree::EntryKind::Link,
                    0o160000 => gix_object::tree::EntryKind::Commit,
                    _ => gix_object::tree::EntryKind::Blob,
                };
                entries.push(gix_object::tree::Entry {
                    mode: kind.into(),
                    filename: rel.into(),
                    oid: files[i].2,
                });
                i += 1;
            }
        }
        entries.sort();
        self.write(&gix_object::Tree { entries })
    }

    // ---- packs (read only) ----------------------------------------------

    fn read_packed(&self, id: &ObjectId) -> Option<Result<(Kind, Vec<u8>)>> {
        let dir = self.gp("objects/pack");
        let entries = self.fs.read_dir(&dir).ok()?;
        for e in entries {
            if let Some(stem) = e.name.strip_suffix(".idx") {
                let idx = self.fs.read_shared(&join(&dir, &e.name)).ok()?;
                if let Some(offset) = crate::pack::find_offset(&idx, id) {
                    let pack = self
                        .fs
                        .read_shared(&join(&dir, &format!("{stem}.pack")))
                        .ok()?;
                    let depth = self.ref_delta_depth.get();
                    if depth >= MAX_REF_DELTA_DEPTH {
                        return Some(Err(GitError::fatal(format!(
                            "packed object {id} is corrupt (a delta chain too deep or a cycle)"
                        ))));
                    }
                    self.ref_delta_depth.set(depth + 1);
                    let found =
                        crate::pack::read_at(&pack, offset, &|base| self.read_object(base).ok());
                    self.ref_delta_depth.set(depth);
                    return Some(
                        found.ok_or_else(|| {
                            GitError::fatal(format!("packed object {id} is corrupt"))
                        }),
                    );
                }
            }
        }
        None
    }

    // ---- refs -----------------------------------------------------------

    /// The packed refs: name -> id.
    pub fn packed_refs(&self) -> BTreeMap<String, ObjectId> {
        let mut out = BTreeMap::new();
        if let Ok(data) = self.fs.read(&self.gp("packed-refs")) {
            for line in data.lines() {
                if line.starts_with(b"#") || line.starts_with(b"^") {
                    continue;
                }
                let line = line.to_str_lossy();
                if let Some((hex, name)) = line.split_once(' ')
                    && let Ok(id) = ObjectId::from_hex(hex.as_bytes())
                {
                    out.insert(name.to_string(), id);
                }
            }
        }
        out
    }

    /// The raw content of a ref file (trimmed), if it is a loose ref.
    fn loose_ref(&self, name: &str) -> Option<String> {
        let data = self.fs.read(&self.gp(name)).ok()?;
        Some(data.to_str_lossy().trim().to_string())
    }

    /// Resolves a full ref name (`HEAD`, `refs/heads/x`) to an id, following
    /// symbolic refs; `None` when it does not exist (an unborn branch).
    pub fn resolve_ref(&self, name: &str) -> Option<ObjectId> {
        let mut name = name.to_string();
        for _ in 0..10 {
            match self.loose_ref(&name) {
                Some(content) => {
                    if let Some(target) = content.strip_prefix("ref: ") {
                        name = target.trim().to_string();
                        continue;
                    }
                    return ObjectId::from_hex(content.as_bytes()).ok();
                }
                None => return self.packed_refs().get(&name).copied(),
            }
        }
        None
    }

    /// Whether a ref exists.
    pub fn ref_exists(&self, name: &str) -> bool {
        self.resolve_ref(name).is_some()
    }

    /// Sets the message the next ref moves are logged with.
    pub fn reflog_message(&self, msg: impl Into<String>) {
        *self.reflog_msg.borrow_mut() = Some(msg.into());
    }

    /// Appends one entry to the reflog of `name` (`HEAD` or a full ref) as
    /// git writes it: `old new ident\tmessage`, when a message and an
    /// identity are set.
    pub fn append_reflog(&self, name: &str, old: Option<ObjectId>, new: &ObjectId) {
        let (Some(ident), Some(msg)) = (
            self.reflog_ident.borrow().clone(),
            self.reflog_msg.borrow().clone(),
        ) else {
            return;
        };
        let zero = "0".repeat(40);
        let old = old.map(|o| o.to_hex().to_string()).unwrap_or(zero);
        let line = format!("{old} {} {ident}\t{msg}\n", new.to_hex());
        let path = self.gp(&format!("logs/{name}"));
        if let Some(i) = path.rfind('/') {
            let _ = self.fs.mkdir_all(&path[..i]);
        }
        let _ = self.fs.append(&path, line.as_bytes());
    }

    /// The entries of a reflog, newest first: (old, new, message).
    pub fn reflog(&self, name: &str) -> Vec<(ObjectId, ObjectId, String)> {
        let data = self
            .fs
            .read(&self.gp(&format!("logs/{name}")))
            .unwrap_or_default();
        let mut out: Vec<(ObjectId, ObjectId, String)> = data
            .lines()
            .filter_map(|l| {
                let l = l.to_str_lossy();
                let (head, msg) = l.split_once('\t').unwrap_or((&l, ""));
                let mut w = head.split(' ');
                let old = ObjectId::from_hex(w.next()?.as_bytes()).ok()?;
                let new = ObjectId::from_hex(w.next()?.as_bytes()).ok()?;
                Some((old, new, msg.to_string()))
            })
            .collect();
        out.reverse();
        out
    }

    /// Writes a ref (full name) to point at `id`, logging the move in its
    /// reflog (and `HEAD`'s, when `HEAD` names it) when a message is set.
    pub fn set_ref(&self, name: &str, id: &ObjectId) -> Result<()> {
        let logged = name.starts_with("refs/heads/") || name == "HEAD";
        let old = if logged { self.resolve_ref(name) } else { None };
        self.write_ref(name, id)?;
        if logged {
            self.append_reflog(name, old, id);
            if name != "HEAD" && self.head_ref().as_deref() == Some(name) {
                self.append_reflog("HEAD", old, id);
            }
        }
        Ok(())
    }

    fn write_ref(&self, name: &str, id: &ObjectId) -> Result<()> {
        let path = self.gp(name);
        if let Some(i) = path.rfind('/') {
            self.fs.mkdir_all(&path[..i])?;
        }
        self.fs
            .write(&path, format!("{}\n", id.to_hex()).as_bytes())?;
        Ok(())
    }

    /// Deletes a ref, loose and packed.
    pub fn delete_ref(&self, name: &str) -> Result<()> {
        let _ = self.fs.remove_file(&self.gp(name));
        let _ = self.fs.remove_file(&self.gp(&format!("logs/{name}")));
        let packed = self.packed_refs();
        if packed.contains_key(name)
            && let Ok(data) = self.fs.read(&self.gp("packed-refs"))
        {
            let mut out = Vec::new();
            let mut skip_peel = false;
            for line in data.lines_with_terminator() {
                if skip_peel && line.starts_with(b"^") {
                    continue;
                }
                skip_peel = false;
                let t = line.trim_end();
                if t.len() > 41 && &t[41..] == name.as_bytes() {
                    skip_peel = true;
                    continue;
                }
                out.extend_from_slice(line);
            }
            self.fs.write(&self.gp("packed-refs"), &out)?;
        }
        Ok(())
    }

    /// Every ref under `prefix` (e.g. `refs/heads/`): full name -> id, sorted.
    pub fn refs(&self, prefix: &str) -> BTreeMap<String, ObjectId> {
        let mut out: BTreeMap<String, ObjectId> = self
            .packed_refs()
            .into_iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .collect();
        let mut stack = vec![prefix.trim_end_matches('/').to_string()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = self.fs.read_dir(&self.gp(&dir)) else {
                continue;
            };
            for e in entries {
                let name = format!("{dir}/{}", e.name);
                if e.kind == FileKind::Dir {
                    stack.push(name);
                } else if let Some(id) = self.resolve_ref(&name) {
                    out.insert(name, id);
                }
            }
        }
        out
    }

    /// What `HEAD` names: `Some(branch ref)` when it is symbolic, `None`
    /// when detached.
    pub fn head_ref(&self) -> Option<String> {
        let content = self.loose_ref("HEAD")?;
        content.strip_prefix("ref: ").map(|s| s.trim().to_string())
    }

    /// The short branch name of `HEAD` (`None` when detached).
    pub fn head_branch(&self) -> Option<String> {
        self.head_ref()
            .map(|r| r.strip_prefix("refs/heads/").unwrap_or(&r).to_string())
    }

    /// The commit `HEAD` points at (`None` on an unborn branch).
    pub fn head(&self) -> Option<ObjectId> {
        self.resolve_ref("HEAD")
    }

    /// Points `HEAD` at a branch (symbolic).
    pub fn set_head_symbolic(&self, branch_ref: &str) -> Result<()> {
        self.fs
            .write(&self.gp("HEAD"), format!("ref: {branch_ref}\n").as_bytes())?;
        Ok(())
    }

    /// Detaches `HEAD` at `id`.
    pub fn set_head_detached(&self, id: &ObjectId) -> Result<()> {
        self.fs
            .write(&self.gp("HEAD"), format!("{}\n", id.to_hex()).as_bytes())?;
        Ok(())
    }

    /// Moves what `HEAD` points at (the branch, or `HEAD` when detached).
    pub fn update_head(&self, id: &ObjectId) -> Result<()> {
        match self.head_ref() {
            Some(r) => self.set_ref(&r, id),
            None => {
                let old = self.head();
                self.set_head_detached(id)?;
                self.append_reflog("HEAD", old, id);
                Ok(())
            }
        }
    }

    // ---- index ----------------------------------------------------------

    /// Reads the index (empty when there is none).
    pub fn read_index(&self) -> Result<Vec<IndexEntry>> {
        let Ok(data) = self.fs.read(&self.gp("index")) else {
            return Ok(Vec::new());
        };
        let (state, _) = gix_index::State::from_bytes(
            &data,
            filetime::FileTime::zero(),
            HASH,
            Default::default(),
        )
        .map_err(|e| GitError::fatal(format!("index file corrupt: {e}")))?;
        Ok(state
            .entries()
            .iter()
            .map(|e| IndexEntry {
                path: e.path(&state).to_str_lossy().into_owned(),
                id: e.id,
                mode: e.mode.bits(),
                stage: e.stage_raw() as u8,
                size: e.stat.size as u64,
                mtime: (e.stat.mtime.secs as i64, e.stat.mtime.nsecs),
            })
            .collect())
    }

    /// Writes the index from `entries` (sorted here).
    pub fn write_index(&self, entries: &[IndexEntry]) -> Result<()> {
        let mut state = gix_index::State::new(HASH);
        for e in entries {
            let stat = gix_index::entry::Stat {
                mtime: gix_index::entry::stat::Time {
                    secs: e.mtime.0.clamp(0, u32::MAX as i64) as u32,
                    nsecs: e.mtime.1,
                },
                ctime: gix_index::entry::stat::Time {
                    secs: e.mtime.0.clamp(0, u32::MAX as i64) as u32,
                    nsecs: e.mtime.1,
                },
                size: e.size as u32,
                ..Default::default()
            };
            let stage = match e.stage {
                1 => gix_index::entry::Stage::Base,
                2 => gix_index::entry::Stage::Ours,
                3 => gix_index::entry::Stage::Theirs,
                _ => gix_index::entry::Stage::Unconflicted,
            };
            state.dangerously_push_entry(
                stat,
                e.id,
                gix_index::entry::Flags::from_stage(stage),
                gix_index::entry::Mode::from_bits_retain(e.mode),
                BStr::new(e.path.as_bytes()),
            );
        }
        state.sort_entries();
        let mut out = Vec::new();
        state
            .write_to(
                &mut out,
                gix_index::write::Options {
                    extensions: gix_index::write::Extensions::None,
                    skip_hash: false,
                },
            )
            .map_err(|e| GitError::fatal(format!("writing the index: {e}")))?;
        // The trailing checksum over everything before it.
        let mut hasher = gix_hash::hasher(HASH);
        hasher.update(&out);
        let sum = hasher
            .try_finalize()
            .map_err(|e| GitError::fatal(format!("writing the index: {e}")))?;
        out.extend_from_slice(sum.as_slice());
        self.fs.write(&self.gp("index"), &out)?;
        Ok(())
    }

    /// The tree id of the index's stage-0 entries (written to the store).
    pub fn write_index_tree(&self, entries: &[IndexEntry]) -> Result<ObjectId> {
        let files: Vec<(&str, u32, ObjectId)> = entries
            .iter()
            .filter(|e| e.stage == 0)
            .map(|e| (e.path.as_str(), e.mode, e.id))
            .collect();
        self.write_tree(&files)
    }

    /// Abbreviates an id to 7 hex digits (more when ambiguous among loose objects).
    pub fn abbrev(&self, id: &ObjectId) -> String {
        self.abbrev_len(id, 7)
    }

    /// Abbreviates an id to at least `min` hex digits (more when ambiguous
    /// among loose objects).
    pub fn abbrev_len(&self, id: &ObjectId, min: usize) -> String {
        let hex = id.to_hex().to_string();
        let mut n = min.clamp(4, 40);
        let dir = self.gp(&format!("objects/{}", &hex[..2]));
        if let Ok(entries) = self.fs.read_dir(&dir) {
            while n < 40
                && entries
                    .iter()
                    .filter(|e| e.name.starts_with(&hex[2..n]))
                    .count()
                    > 1
            {
                n += 1;
            }
        }
        hex[..n].to_string()
    }

    /// Every object id that starts with `prefix` (hex, at least 4 digits).
    pub fn ids_with_prefix(&self, prefix: &str) -> Vec<ObjectId> {
        let mut out = Vec::new();
        if prefix.len() < 4 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return out;
        }
        let prefix = prefix.to_ascii_lowercase();
        let dir = self.gp(&format!("objects/{}", &prefix[..2]));
        if let Ok(entries) = self.fs.read_dir(&dir) {
            for e in entries {
                if e.name.starts_with(&prefix[2..])
                    && let Ok(id) =
                        ObjectId::from_hex(format!("{}{}", &prefix[..2], e.name).as_bytes())
                {
                    out.push(id);
                }
            }
        }
        out.extend(crate::pack::ids_with_prefix(self, &prefix));
        out.sort();
        out.dedup();
        out
    }
}
