//! The inode tree behind [`super::Fs`]: nodes in a slab indexed by inode
//! number, directories as sorted maps from name to inode, and the path walk
//! that follows symlinks inside the virtual root with loop detection.
//!
//! Every mutation checks the [`FsLimits`] before it changes anything, so a
//! failing write leaves the tree exactly as it was.

mod changes;

use std::collections::BTreeMap;
use std::sync::Arc;

use changes::ChangeLog;
pub use changes::Changes;

use super::device::Device;
use super::fifo::Fifo;
use super::path::{has_trailing_slash, split_parent};
use super::{DirEntry, FileKind, FsError, FsResult, Metadata};
use crate::clock::{Clock, Timestamp};
use crate::limits::FsLimits;

/// Index of a node in the slab.
pub(crate) type Ino = usize;

/// The root directory's slot.
pub(crate) const ROOT: Ino = 0;

/// Symlinks followed in one lookup before `ELOOP` (Linux's limit).
const MAX_LINKS: u32 = 40;

/// The longest path component Linux accepts (`NAME_MAX`), in bytes.
const NAME_MAX: usize = 255;

/// Refuses a path component longer than [`NAME_MAX`] bytes, counting each
/// raw byte kept as an escape char ([`crate::bytes`]) as the one byte it is:
/// a name this tree takes must be one GNU tar can restore on a real
/// filesystem (the docker backend's).
fn check_name(name: &str) -> FsResult<()> {
    // Cheap first: a name of at most 255 chars is at most 255 bytes once
    // encoded unless it holds multi-byte chars.
    if name.len() <= NAME_MAX {
        return Ok(());
    }
    let bytes: usize = name
        .chars()
        .map(|c| crate::bytes::raw_byte(c).map_or(c.len_utf8(), |_| 1))
        .sum();
    if bytes > NAME_MAX {
        return Err(FsError::NameTooLong);
    }
    Ok(())
}

/// Linux's longest path, its terminating NUL included: no directory's
/// absolute path may reach it ([`Tree::check_dir_path`]).
pub(crate) const PATH_MAX: usize = 4096;

/// Size that `stat` reports for a directory, as on ext4.
const DIR_SIZE: u64 = 4096;

/// A directory's contents.
#[derive(Clone)]
pub(crate) struct Dir {
    /// Entries by name; a `BTreeMap` keeps listings sorted and O(entries).
    /// Shared copy-on-write, so cloning the standard tree for a new sandbox
    /// copies no map until a directory is changed.
    pub(crate) children: Arc<BTreeMap<String, Ino>>,
    /// The containing directory (the root is its own parent).
    pub(crate) parent: Ino,
    /// This directory's name in its parent (empty for the root).
    pub(crate) name: String,
}

/// What a node is.
#[derive(Clone)]
pub(crate) enum NodeKind {
    Dir(Dir),
    /// Shared content: snapshots handed out by `read_shared` stay valid,
    /// writers copy on write through `Arc::make_mut`.
    File(Arc<Vec<u8>>),
    Symlink(String),
    /// A character device: `/dev/null`, `/dev/zero`, ..., and the
    /// descriptor nodes (`/dev/stdin`, `/dev/fd/1`, ...) that the interpreter
    /// special-cases in redirections. [`Device`] says how each reads and writes.
    Device(Device),
    /// A FIFO: its queue, shared with every reader and writer that opened it.
    Fifo(Arc<Fifo>),
}

/// What [`Tree::open_read`] finds.
pub(crate) enum Opened {
    /// A regular file's content (a finite device's: empty).
    Data(Arc<Vec<u8>>),
    /// A device to stream.
    Device(Device),
    /// A FIFO to read from.
    Fifo(Arc<Fifo>),
}

/// One inode.
#[derive(Clone)]
pub(crate) struct Node {
    pub(crate) kind: NodeKind,
    pub(crate) mode: u32,
    pub(crate) mtime: Timestamp,
    /// Last access time, as `touch -a` sets it (reads do not change it:
    /// the tree keeps no clock per read); `test -N` compares the two.
    pub(crate) atime: Timestamp,
    pub(crate) nlink: u32,
}

impl Node {
    fn file_kind(&self) -> FileKind {
        match self.kind {
            NodeKind::Dir(_) => FileKind::Dir,
            NodeKind::File(_) => FileKind::File,
            NodeKind::Symlink(_) => FileKind::Symlink,
            NodeKind::Device(_) => FileKind::CharDevice,
            NodeKind::Fifo(_) => FileKind::Fifo,
        }
    }

    fn is_dir(&self) -> bool {
        matches!(self.kind, NodeKind::Dir(_))
    }
}

/// The result of a path walk: the node, and the directory entry that named it
/// (for non-directories, the only way back to a path).
pub(crate) struct Found<'a> {
    pub(crate) ino: Ino,
    pub(crate) parent: Ino,
    pub(crate) name: &'a str,
}

/// Where a create-or-open operation lands.
enum Slot<'a> {
    /// The node, and the entry naming it (`None` for `/`, `.`, `..`).
    Existing(Ino, Option<(Ino, &'a str)>),
    New(Ino, &'a str),
}

/// The whole tree plus its accounting.
#[derive(Clone)]
pub(crate) struct Tree {
    nodes: Vec<Option<Node>>,
    free: Vec<Ino>,
    bytes: u64,
    count: u64,
    limits: FsLimits,
    clock: Clock,
    /// Nodes that can't be removed or renamed (`/dev`).
    pinned: Vec<Ino>,
    /// What changed since tracking started, when it did (`changes.rs`).
    changes: Option<ChangeLog>,
    /// Node visits, so tests can check the cost of an operation by counting.
    #[cfg(test)]
    pub(crate) visits: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Tree {
    /// A tree holding only the root directory.
    pub(crate) fn new(limits: FsLimits, clock: Clock) -> Tree {
        let root = Node {
            kind: NodeKind::Dir(Dir {
                children: Arc::default(),
                parent: ROOT,
                name: String::new(),
            }),
            mode: 0o755,
            mtime: clock.now(),
            atime: clock.now(),
            nlink: 2,
        };
        Tree {
            nodes: vec![Some(root)],
            free: Vec::new(),
            bytes: 0,
            count: 1,
            limits,
            clock,
            pinned: Vec::new(),
            changes: None,
            #[cfg(test)]
            visits: Default::default(),
        }
    }

    // ----- slab access -------------------------------------------------------

    fn node(&self, ino: Ino) -> &Node {
        #[cfg(test)]
        self.visits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Invariant: every ino reachable from a directory is live.
        self.nodes[ino].as_ref().expect("live inode")
    }

    fn node_mut(&mut self, ino: Ino) -> &mut Node {
        self.nodes[ino].as_mut().expect("live inode")
    }

    fn dir(&self, ino: Ino) -> FsResult<&Dir> {
        match &self.node(ino).kind {
            NodeKind::Dir(d) => Ok(d),
            _ => Err(FsError::NotADirectory),
        }
    }

    fn dir_mut(&mut self, ino: Ino) -> &mut Dir {
        match &mut self.node_mut(ino).kind {
            NodeKind::Dir(d) => d,
            _ => unreachable!("dir_mut on a non-directory"),
        }
    }

    fn alloc(&mut self, node: Node) -> Ino {
        self.count += 1;
        match self.free.pop() {
            Some(i) => {
                self.nodes[i] = Some(node);
                i
            }
            None => {
                self.nodes.push(Some(node));
                self.nodes.len() - 1
            }
        }
    }

    fn release(&mut self, ino: Ino) {
        if let Some(node) = self.nodes[ino].take() {
            if let NodeKind::File(data) = &node.kind {
                self.bytes -= data.len() as u64;
            }
            self.count -= 1;
            self.free.push(ino);
        }
    }

    fn now(&self) -> Timestamp {
        self.clock.now()
    }

    fn touch_dir(&mut self, ino: Ino) {
        let now = self.now();
        self.node_mut(ino).mtime = now;
    }

    /// Gives a copy of a template tree its own limits and clock, stamping
    /// every node with the clock's current time.
    pub(crate) fn reset(&mut self, limits: FsLimits, clock: Clock) {
        self.limits = limits;
        self.clock = clock;
        #[cfg(test)]
        {
            self.visits = Default::default();
        }
        let now = clock.now();
        for node in self.nodes.iter_mut().flatten() {
            node.mtime = now;
        }
    }

    /// Marks a node as not removable (`EBUSY`).
    pub(crate) fn pin(&mut self, ino: Ino) {
        self.pinned.push(ino);
    }

    // ----- limits -----------------------------------------------------------

    fn check_new_node(&self) -> FsResult<()> {
        if self.count >= self.limits.max_files {
            return Err(FsError::NoSpace);
        }
        Ok(())
    }

    /// Checks that a file may go from `old` to `new` bytes.
    fn check_size(&self, old: u64, new: u64) -> FsResult<()> {
        if new > self.limits.max_file_size {
            return Err(FsError::FileTooLarge);
        }
        if new > old && self.bytes + (new - old) > self.limits.max_total_bytes {
            return Err(FsError::NoSpace);
        }
        Ok(())
    }

    // ----- path walking -----------------------------------------------------

    /// Walks `path` from `start` (or the root for an absolute path),
    /// following symlinks in the middle and, with `follow_last`, at the end.
    pub(crate) fn walk<'a>(
        &'a self,
        start: Ino,
        path: &'a str,
        follow_last: bool,
        links: &mut u32,
    ) -> FsResult<Found<'a>> {
        if path.is_empty() {
            return Err(FsError::NotFound);
        }
        let trailing = has_trailing_slash(path);
        let mut cur = if path.starts_with('/') { ROOT } else { start };
        let mut found = Found {
            ino: cur,
            parent: self.dir(cur).map(|d| d.parent).unwrap_or(ROOT),
            name: "",
        };
        let mut comps = path.split('/').filter(|c| !c.is_empty()).peekable();
        while let Some(comp) = comps.next() {
            let last = comps.peek().is_none();
            let dir = self.dir(cur)?;
            match comp {
                "." => {}
                ".." => cur = dir.parent,
                name => {
                    check_name(name)?;
                    let child = *dir.children.get(name).ok_or(FsError::NotFound)?;
                    if let NodeKind::Symlink(target) = &self.node(child).kind
                        && (!last || follow_last || trailing)
                    {
                        *links += 1;
                        if *links > MAX_LINKS {
                            return Err(FsError::TooManyLinks);
                        }
                        let inner = self.walk(cur, target, true, links)?;
                        cur = inner.ino;
                        found = inner;
                        continue;
                    }
                    found = Found {
                        ino: child,
                        parent: cur,
                        name,
                    };
                    cur = child;
                    continue;
                }
            }
            // `.` and `..` land on a directory; its own entry names it.
            let d = self.dir(cur)?;
            found = Found {
                ino: cur,
                parent: d.parent,
                name: d.name.as_str(),
            };
        }
        if trailing && !self.node(cur).is_dir() {
            return Err(FsError::NotADirectory);
        }
        found.ino = cur;
        Ok(found)
    }

    /// Resolves an absolute path.
    pub(crate) fn lookup(&self, path: &str, follow: bool) -> FsResult<Ino> {
        self.walk(ROOT, path, follow, &mut 0).map(|f| f.ino)
    }

    /// The directory that would hold `path`'s final component, and that name
    /// (`""` for the root, possibly `.` or `..`).
    fn walk_parent<'p>(
        &self,
        start: Ino,
        path: &'p str,
        links: &mut u32,
    ) -> FsResult<(Ino, &'p str)> {
        if path.is_empty() {
            return Err(FsError::NotFound);
        }
        let (dir, name) = split_parent(path);
        check_name(name)?;
        let parent = if dir == "." {
            start
        } else {
            self.walk(start, dir, true, links)?.ino
        };
        self.dir(parent)?;
        Ok((parent, name))
    }

    /// Finds the node a create-or-open of `path` refers to, following a final
    /// symlink (a dangling one names the file to create, as `open(O_CREAT)` does).
    fn slot<'a>(&'a self, start: Ino, path: &'a str, links: &mut u32) -> FsResult<Slot<'a>> {
        let (parent, name) = self.walk_parent(start, path, links)?;
        if matches!(name, "" | "." | "..") {
            return Ok(Slot::Existing(
                self.walk(start, path, true, links)?.ino,
                None,
            ));
        }
        match self.dir(parent)?.children.get(name) {
            None if has_trailing_slash(path) => Err(FsError::IsADirectory),
            None => Ok(Slot::New(parent, name)),
            Some(&child) => match &self.node(child).kind {
                NodeKind::Symlink(target) => {
                    *links += 1;
                    if *links > MAX_LINKS {
                        return Err(FsError::TooManyLinks);
                    }
                    if target.is_empty() {
                        return Err(FsError::NotFound);
                    }
                    self.slot(parent, target, links)
                }
                _ if has_trailing_slash(path) && !self.node(child).is_dir() => {
                    Err(FsError::NotADirectory)
                }
                _ => Ok(Slot::Existing(child, Some((parent, name)))),
            },
        }
    }

    /// Refuses a directory named `name_len` bytes in `parent` whose deepest
    /// descendant directory would lie `below` bytes under it, when that
    /// descendant's absolute path would not fit in [`PATH_MAX`]: every
    /// directory of the tree can then be named by one path, so a workspace
    /// is always one a park can keep and a restore can rebuild (a chain of
    /// thousands of nested directories made each restore take seconds per
    /// thousand levels, quadratic in the depth). Linux refuses such paths
    /// in one call too ("File name too long"), though it lets `cd` go
    /// deeper step by step.
    fn check_dir_path(&self, parent: Ino, name_len: usize, below: usize) -> FsResult<()> {
        let mut len = 1 + name_len + below;
        let mut ino = parent;
        while ino != ROOT {
            let Ok(d) = self.dir(ino) else { break };
            len += 1 + d.name.len();
            if len >= PATH_MAX {
                return Err(FsError::NameTooLong);
            }
            ino = d.parent;
        }
        if len >= PATH_MAX {
            return Err(FsError::NameTooLong);
        }
        Ok(())
    }

    /// How many bytes the deepest directory under directory `ino` adds to
    /// its path (`/x/yy` under it: 5; 0 without subdirectories).
    fn deepest_below(&self, ino: Ino) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(ino, 0usize)];
        while let Some((dir, len)) = stack.pop() {
            deepest = deepest.max(len);
            let Ok(d) = self.dir(dir) else { continue };
            for (name, &child) in d.children.iter() {
                if self.node(child).is_dir() {
                    stack.push((child, len + 1 + name.len()));
                }
            }
        }
        deepest
    }

    /// The absolute path of a directory, from its parent links.
    fn dir_path(&self, mut ino: Ino) -> String {
        let mut names = Vec::new();
        while ino != ROOT {
            let Ok(d) = self.dir(ino) else { break };
            names.push(d.name.as_str());
            ino = d.parent;
        }
        if names.is_empty() {
            return "/".to_string();
        }
        let mut out = String::new();
        for n in names.iter().rev() {
            out.push('/');
            out.push_str(n);
        }
        out
    }

    // ----- queries ------------------------------------------------------------

    pub(crate) fn metadata(&self, path: &str, follow: bool) -> FsResult<Metadata> {
        let ino = self.lookup(path, follow)?;
        Ok(self.meta_of(ino))
    }

    fn meta_of(&self, ino: Ino) -> Metadata {
        let n = self.node(ino);
        let size = match &n.kind {
            NodeKind::Dir(_) => DIR_SIZE,
            NodeKind::File(d) => d.len() as u64,
            NodeKind::Symlink(t) => t.len() as u64,
            NodeKind::Device(_) | NodeKind::Fifo(_) => 0,
        };
        Metadata {
            kind: n.file_kind(),
            mode: n.mode,
            size,
            mtime: n.mtime,
            ino: ino as u64 + 2,
            nlink: n.nlink,
        }
    }

    /// A file's whole content, or the FIFO to read to its end (outside the
    /// tree's lock: that read waits for writers).
    pub(crate) fn read_shared(&self, path: &str) -> FsResult<Opened> {
        let ino = self.lookup(path, true)?;
        match &self.node(ino).kind {
            NodeKind::File(d) => Ok(Opened::Data(Arc::clone(d))),
            NodeKind::Dir(_) => Err(FsError::IsADirectory),
            NodeKind::Device(d) => d.whole_content().map(Opened::Data),
            NodeKind::Fifo(f) => Ok(Opened::Fifo(Arc::clone(f))),
            NodeKind::Symlink(_) => Err(FsError::TooManyLinks),
        }
    }

    /// What `open_read` of `path` finds: a regular file's content, a device
    /// or a FIFO.
    pub(crate) fn open_read(&self, path: &str) -> FsResult<Opened> {
        let ino = self.lookup(path, true)?;
        match &self.node(ino).kind {
            NodeKind::File(d) => Ok(Opened::Data(Arc::clone(d))),
            NodeKind::Dir(_) => Err(FsError::IsADirectory),
            NodeKind::Device(d) => Ok(Opened::Device(*d)),
            NodeKind::Fifo(f) => Ok(Opened::Fifo(Arc::clone(f))),
            NodeKind::Symlink(_) => Err(FsError::TooManyLinks),
        }
    }

    /// The FIFO at `path` (following symlinks), if it is one.
    pub(crate) fn fifo(&self, path: &str) -> Option<Arc<Fifo>> {
        let ino = self.lookup(path, true).ok()?;
        match &self.node(ino).kind {
            NodeKind::Fifo(f) => Some(Arc::clone(f)),
            _ => None,
        }
    }

    /// Queues `data` on the FIFO `ino` if it is one (a write by path):
    /// `None` for any other node.
    fn push_fifo(&self, ino: Ino, data: &[u8]) -> Option<FsResult<()>> {
        match &self.node(ino).kind {
            NodeKind::Fifo(f) => {
                // A queue holds no more than one file, nor than the tree's
                // free space (queues are not counted in its bytes).
                let free = self.limits.max_total_bytes.saturating_sub(self.bytes);
                Some(f.push(data, self.limits.max_file_size.min(free)))
            }
            _ => None,
        }
    }

    /// The device at `path` (following symlinks), if it is one.
    pub(crate) fn device(&self, path: &str) -> Option<Device> {
        let ino = self.lookup(path, true).ok()?;
        match &self.node(ino).kind {
            NodeKind::Device(d) => Some(*d),
            _ => None,
        }
    }

    pub(crate) fn read_dir(&self, path: &str) -> FsResult<Vec<DirEntry>> {
        let ino = self.lookup(path, true)?;
        let d = self.dir(ino)?;
        Ok(d.children
            .iter()
            .map(|(name, &c)| DirEntry {
                name: name.clone(),
                kind: self.node(c).file_kind(),
            })
            .collect())
    }

    /// Lists a directory with each entry's metadata (symlinks not followed).
    pub(crate) fn read_dir_metadata(&self, path: &str) -> FsResult<Vec<(String, Metadata)>> {
        let ino = self.lookup(path, true)?;
        let d = self.dir(ino)?;
        Ok(d.children
            .iter()
            .map(|(name, &c)| (name.clone(), self.meta_of(c)))
            .collect())
    }

    pub(crate) fn read_link(&self, path: &str) -> FsResult<String> {
        let ino = self.lookup(path, false)?;
        match &self.node(ino).kind {
            NodeKind::Symlink(t) => Ok(t.clone()),
            _ => Err(FsError::InvalidArgument),
        }
    }

    pub(crate) fn canonicalize(&self, path: &str) -> FsResult<String> {
        let found = self.walk(ROOT, path, true, &mut 0)?;
        if self.node(found.ino).is_dir() {
            return Ok(self.dir_path(found.ino));
        }
        let mut out = self.dir_path(found.parent);
        if out != "/" {
            out.push('/');
        }
        out.push_str(found.name);
        Ok(out)
    }

    pub(crate) fn usage(&self) -> (u64, u64) {
        (self.bytes, self.count)
    }

    pub(crate) fn max_file_size(&self) -> u64 {
        self.limits.max_file_size
    }

    // ----- file content -------------------------------------------------------

    /// Creates a new node named `name` in `parent`.
    fn insert(&mut self, parent: Ino, name: &str, node: Node) -> Ino {
        let is_dir = node.is_dir();
        if let NodeKind::File(d) = &node.kind {
            self.bytes += d.len() as u64;
        }
        let ino = self.alloc(node);
        let now = self.now();
        let p = self.node_mut(parent);
        p.mtime = now;
        if is_dir {
            p.nlink += 1;
        }
        Arc::make_mut(&mut self.dir_mut(parent).children).insert(name.to_string(), ino);
        self.note_dir(parent);
        self.note_entry(parent, name, ino);
        ino
    }

    fn new_file(&self, data: Vec<u8>) -> Node {
        Node {
            kind: NodeKind::File(Arc::new(data)),
            mode: 0o644,
            mtime: self.now(),
            atime: self.now(),
            nlink: 1,
        }
    }

    /// Creates `name` in `parent` as a regular file holding `data`, after the
    /// limit checks.
    fn create_file_in(&mut self, parent: Ino, name: &str, data: Vec<u8>) -> FsResult<()> {
        self.check_new_node()?;
        self.check_size(0, data.len() as u64)?;
        let node = self.new_file(data);
        self.insert(parent, name, node);
        Ok(())
    }

    /// Applies `edit` to a file's content after checking that its new length
    /// `new_len` fits; directories refuse, devices do what [`Device::write`]
    /// says (most swallow, `/dev/full` refuses).
    fn edit_file(
        &mut self,
        ino: Ino,
        new_len: impl FnOnce(u64) -> u64,
        edit: impl FnOnce(&mut Arc<Vec<u8>>),
    ) -> FsResult<()> {
        let old = match &self.node(ino).kind {
            NodeKind::File(d) => d.len() as u64,
            NodeKind::Dir(_) => return Err(FsError::IsADirectory),
            NodeKind::Device(d) => return d.write(new_len(0)),
            // Truncating a FIFO does nothing; writes go through `push_fifo`.
            NodeKind::Fifo(_) => return Ok(()),
            NodeKind::Symlink(_) => return Err(FsError::TooManyLinks),
        };
        let new = new_len(old);
        self.check_size(old, new)?;
        let now = self.now();
        let node = self.node_mut(ino);
        if let NodeKind::File(d) = &mut node.kind {
            edit(d);
        }
        node.mtime = now;
        self.bytes = self.bytes - old + new;
        Ok(())
    }

    /// [`Tree::edit_file`] on the node an entry names, recording the change.
    fn edit_entry(
        &mut self,
        entry: Option<(Ino, String)>,
        ino: Ino,
        new_len: impl FnOnce(u64) -> u64,
        edit: impl FnOnce(&mut Arc<Vec<u8>>),
    ) -> FsResult<()> {
        self.edit_file(ino, new_len, edit)?;
        if let Some((parent, name)) = entry {
            self.note_entry(parent, &name, ino);
        }
        Ok(())
    }

    pub(crate) fn write(&mut self, path: &str, data: &[u8]) -> FsResult<()> {
        let slot = self.slot(ROOT, path, &mut 0)?;
        if let Slot::Existing(ino, _) = slot
            && let Some(pushed) = self.push_fifo(ino, data)
        {
            return pushed;
        }
        match slot {
            Slot::Existing(ino, entry) => self.edit_entry(
                entry.map(|(p, n)| (p, n.to_string())),
                ino,
                |_| data.len() as u64,
                // A fresh Arc: no copy of the old content, snapshots keep theirs.
                |d| *d = Arc::new(data.to_vec()),
            ),
            Slot::New(parent, name) => {
                let name = name.to_string();
                self.create_file_in(parent, &name, data.to_vec())
            }
        }
    }

    pub(crate) fn append(&mut self, path: &str, data: &[u8]) -> FsResult<()> {
        let slot = self.slot(ROOT, path, &mut 0)?;
        if let Slot::Existing(ino, _) = slot
            && let Some(pushed) = self.push_fifo(ino, data)
        {
            return pushed;
        }
        match slot {
            Slot::Existing(ino, entry) => self.edit_entry(
                entry.map(|(p, n)| (p, n.to_string())),
                ino,
                |old| old + data.len() as u64,
                |d| Arc::make_mut(d).extend_from_slice(data),
            ),
            Slot::New(parent, name) => {
                let name = name.to_string();
                self.create_file_in(parent, &name, data.to_vec())
            }
        }
    }

    pub(crate) fn write_at(&mut self, path: &str, offset: u64, data: &[u8]) -> FsResult<()> {
        let end = offset
            .checked_add(data.len() as u64)
            .ok_or(FsError::FileTooLarge)?;
        if end > self.limits.max_file_size {
            return Err(FsError::FileTooLarge);
        }
        let (off, end) = (offset as usize, end as usize);
        let slot = self.slot(ROOT, path, &mut 0)?;
        // A FIFO has no positions: what is written is queued.
        if let Slot::Existing(ino, _) = slot
            && let Some(pushed) = self.push_fifo(ino, data)
        {
            return pushed;
        }
        match slot {
            Slot::Existing(ino, entry) => self.edit_entry(
                entry.map(|(p, n)| (p, n.to_string())),
                ino,
                |old| old.max(end as u64),
                |d| splice_at(Arc::make_mut(d), off, data),
            ),
            Slot::New(parent, name) => {
                let name = name.to_string();
                let mut v = Vec::with_capacity(end);
                splice_at(&mut v, off, data);
                self.create_file_in(parent, &name, v)
            }
        }
    }

    pub(crate) fn create(&mut self, path: &str, exclusive: bool) -> FsResult<()> {
        if exclusive {
            // O_EXCL: any existing entry counts, even a dangling symlink.
            let (parent, name) = self.walk_parent(ROOT, path, &mut 0)?;
            if matches!(name, "" | "." | "..") || self.dir(parent)?.children.contains_key(name) {
                return Err(FsError::AlreadyExists);
            }
            if has_trailing_slash(path) {
                return Err(FsError::IsADirectory);
            }
            let name = name.to_string();
            return self.create_file_in(parent, &name, Vec::new());
        }
        match self.slot(ROOT, path, &mut 0)? {
            Slot::Existing(ino, _) if self.node(ino).is_dir() => Err(FsError::IsADirectory),
            Slot::Existing(..) => Ok(()),
            Slot::New(parent, name) => {
                let name = name.to_string();
                self.create_file_in(parent, &name, Vec::new())
            }
        }
    }

    pub(crate) fn truncate(&mut self, path: &str, len: u64) -> FsResult<()> {
        let found = self.walk(ROOT, path, true, &mut 0)?;
        let (ino, parent, name) = (found.ino, found.parent, found.name.to_string());
        if len > self.limits.max_file_size {
            return Err(FsError::FileTooLarge);
        }
        self.edit_entry(
            Some((parent, name)),
            ino,
            |_| len,
            |d| Arc::make_mut(d).resize(len as usize, 0),
        )
    }

    // ----- directories and links ------------------------------------------------

    /// Adds a node called `name` to `parent`, which must not have such an entry.
    fn add_entry(&mut self, parent: Ino, name: &str, kind: NodeKind, mode: u32) -> FsResult<Ino> {
        if matches!(name, "" | "." | "..") || self.dir(parent)?.children.contains_key(name) {
            return Err(FsError::AlreadyExists);
        }
        if matches!(kind, NodeKind::Dir(_)) {
            self.check_dir_path(parent, name.len(), 0)?;
        }
        self.check_new_node()?;
        let node = Node {
            kind,
            mode,
            mtime: self.now(),
            atime: self.now(),
            nlink: 1,
        };
        Ok(self.insert(parent, name, node))
    }

    fn new_dir_kind(parent: Ino, name: &str) -> NodeKind {
        NodeKind::Dir(Dir {
            children: Arc::default(),
            parent,
            name: name.to_string(),
        })
    }

    pub(crate) fn mkdir(&mut self, path: &str, mode: u32) -> FsResult<Ino> {
        let (parent, name) = self.walk_parent(ROOT, path, &mut 0)?;
        let kind = Self::new_dir_kind(parent, name);
        let ino = self.add_entry(parent, name, kind, mode & 0o7777)?;
        self.node_mut(ino).nlink = 2;
        Ok(ino)
    }

    pub(crate) fn mkdir_all(&mut self, path: &str) -> FsResult<()> {
        let mut cur = ROOT;
        let mut comps = path.split('/').filter(|c| !c.is_empty()).peekable();
        while let Some(comp) = comps.next() {
            let last = comps.peek().is_none();
            let dir = self.dir(cur)?;
            match comp {
                "." => {}
                ".." => cur = dir.parent,
                name => match dir.children.get(name) {
                    Some(&child) => {
                        let target = match &self.node(child).kind {
                            NodeKind::Symlink(_) => {
                                let mut links = 0;
                                let mut p = self.dir_path(cur);
                                p.push('/');
                                p.push_str(name);
                                match self.walk(ROOT, &p, true, &mut links) {
                                    Ok(f) => f.ino,
                                    Err(FsError::NotFound) => return Err(FsError::AlreadyExists),
                                    Err(e) => return Err(e),
                                }
                            }
                            _ => child,
                        };
                        if !self.node(target).is_dir() {
                            return Err(if last {
                                FsError::AlreadyExists
                            } else {
                                FsError::NotADirectory
                            });
                        }
                        cur = target;
                    }
                    None => {
                        let kind = Self::new_dir_kind(cur, name);
                        cur = self.add_entry(cur, name, kind, 0o755)?;
                        self.node_mut(cur).nlink = 2;
                    }
                },
            }
        }
        Ok(())
    }

    pub(crate) fn mkfifo(&mut self, path: &str, mode: u32) -> FsResult<()> {
        let (parent, name) = self.walk_parent(ROOT, path, &mut 0)?;
        if has_trailing_slash(path) && !self.dir(parent)?.children.contains_key(name) {
            return Err(FsError::NotFound);
        }
        let kind = NodeKind::Fifo(Arc::default());
        self.add_entry(parent, name, kind, mode & 0o7777)?;
        Ok(())
    }

    pub(crate) fn symlink(&mut self, target: &str, link: &str) -> FsResult<()> {
        if target.is_empty() {
            return Err(FsError::NotFound);
        }
        let (parent, name) = self.walk_parent(ROOT, link, &mut 0)?;
        self.add_entry(parent, name, NodeKind::Symlink(target.to_string()), 0o777)?;
        Ok(())
    }

    pub(crate) fn hard_link(&mut self, existing: &str, new: &str) -> FsResult<()> {
        let ino = self.lookup(existing, false)?;
        if self.node(ino).is_dir() {
            return Err(FsError::PermissionDenied);
        }
        let (parent, name) = self.walk_parent(ROOT, new, &mut 0)?;
        if matches!(name, "" | "." | "..") || self.dir(parent)?.children.contains_key(name) {
            return Err(FsError::AlreadyExists);
        }
        self.node_mut(ino).nlink += 1;
        Arc::make_mut(&mut self.dir_mut(parent).children).insert(name.to_string(), ino);
        self.touch_dir(parent);
        self.note_dir(parent);
        Ok(())
    }

    /// The entry `path` names without following a final symlink, as
    /// `(parent, name, ino)`; `.`, `..` and `/` are rejected with `special`.
    fn entry<'p>(&self, path: &'p str, special: FsError) -> FsResult<(Ino, &'p str, Ino)> {
        let (parent, name) = self.walk_parent(ROOT, path, &mut 0)?;
        if name.is_empty() {
            return Err(FsError::Busy);
        }
        if matches!(name, "." | "..") {
            return Err(special);
        }
        let ino = *self
            .dir(parent)?
            .children
            .get(name)
            .ok_or(FsError::NotFound)?;
        if self.pinned.contains(&ino) {
            return Err(FsError::Busy);
        }
        Ok((parent, name, ino))
    }

    /// Drops one link to `ino`; frees it when none are left.
    fn unlink_node(&mut self, ino: Ino) {
        let n = self.node_mut(ino);
        n.nlink = n.nlink.saturating_sub(1);
        if n.nlink == 0 {
            self.release(ino);
        }
    }

    /// Frees a detached directory and everything below it (no recursion, so
    /// deep trees can't overflow the stack).
    fn free_subtree(&mut self, root: Ino) {
        let mut stack = vec![root];
        while let Some(ino) = stack.pop() {
            if let NodeKind::Dir(d) = &mut self.node_mut(ino).kind {
                let children = std::mem::take(&mut d.children);
                stack.extend(Arc::unwrap_or_clone(children).into_values());
                self.release(ino);
            } else {
                self.unlink_node(ino);
            }
        }
    }

    /// Takes `name` out of `parent` and updates the parent's bookkeeping.
    fn detach(&mut self, parent: Ino, name: &str, is_dir: bool) {
        Arc::make_mut(&mut self.dir_mut(parent).children).remove(name);
        self.note_dir(parent);
        let now = self.now();
        let p = self.node_mut(parent);
        p.mtime = now;
        if is_dir {
            p.nlink -= 1;
        }
    }

    pub(crate) fn remove_file(&mut self, path: &str) -> FsResult<()> {
        let (parent, name, ino) = self.entry(path, FsError::IsADirectory)?;
        if self.node(ino).is_dir() {
            return Err(FsError::IsADirectory);
        }
        if has_trailing_slash(path) {
            return Err(FsError::NotADirectory);
        }
        let name = name.to_string();
        self.detach(parent, &name, false);
        self.unlink_node(ino);
        Ok(())
    }

    pub(crate) fn remove_dir(&mut self, path: &str) -> FsResult<()> {
        let (dir, last) = split_parent(path);
        let _ = dir;
        let special = if last == ".." {
            FsError::DirectoryNotEmpty
        } else {
            FsError::InvalidArgument
        };
        let (parent, name, ino) = self.entry(path, special)?;
        match &self.node(ino).kind {
            NodeKind::Dir(d) if !d.children.is_empty() => return Err(FsError::DirectoryNotEmpty),
            NodeKind::Dir(_) => {}
            _ => return Err(FsError::NotADirectory),
        }
        let name = name.to_string();
        self.detach(parent, &name, true);
        self.release(ino);
        Ok(())
    }

    pub(crate) fn remove_all(&mut self, path: &str) -> FsResult<()> {
        let (parent, name, ino) = self.entry(path, FsError::InvalidArgument)?;
        let is_dir = self.node(ino).is_dir();
        if is_dir && self.pinned.iter().any(|&p| self.is_within(p, ino)) {
            return Err(FsError::Busy);
        }
        let name = name.to_string();
        self.detach(parent, &name, is_dir);
        self.free_subtree(ino);
        Ok(())
    }

    /// True when directory `ino` is `ancestor` or lies below it.
    fn is_within(&self, mut ino: Ino, ancestor: Ino) -> bool {
        loop {
            if ino == ancestor {
                return true;
            }
            if ino == ROOT {
                return false;
            }
            match self.dir(ino) {
                Ok(d) => ino = d.parent,
                Err(_) => return false,
            }
        }
    }

    pub(crate) fn rename(&mut self, from: &str, to: &str) -> FsResult<()> {
        let (fparent, fname, src) = self.entry(from, FsError::InvalidArgument)?;
        let (tparent, tname) = self.walk_parent(ROOT, to, &mut 0)?;
        if tname.is_empty() {
            return Err(FsError::Busy);
        }
        if matches!(tname, "." | "..") {
            return Err(FsError::InvalidArgument);
        }
        let src_dir = self.node(src).is_dir();
        if !src_dir && (has_trailing_slash(from) || has_trailing_slash(to)) {
            return Err(FsError::NotADirectory);
        }
        if src_dir && self.is_within(tparent, src) {
            return Err(FsError::InvalidArgument);
        }
        if src_dir {
            let below = self.deepest_below(src);
            self.check_dir_path(tparent, tname.len(), below)?;
        }
        let dst = self.dir(tparent)?.children.get(tname).copied();
        if dst == Some(src) {
            return Ok(());
        }
        if let Some(d) = dst {
            if self.pinned.contains(&d) {
                return Err(FsError::Busy);
            }
            match (&self.node(d).kind, src_dir) {
                (NodeKind::Dir(dd), true) if !dd.children.is_empty() => {
                    return Err(FsError::DirectoryNotEmpty);
                }
                (NodeKind::Dir(_), true) => {}
                (NodeKind::Dir(_), false) => return Err(FsError::IsADirectory),
                (_, true) => return Err(FsError::NotADirectory),
                (_, false) => {}
            }
        }
        let (fname, tname) = (fname.to_string(), tname.to_string());
        if let Some(d) = dst {
            let d_dir = self.node(d).is_dir();
            self.detach(tparent, &tname, d_dir);
            self.free_subtree(d);
        }
        self.detach(fparent, &fname, src_dir);
        if let NodeKind::Dir(d) = &mut self.node_mut(src).kind {
            d.parent = tparent;
            d.name = tname.clone();
        }
        Arc::make_mut(&mut self.dir_mut(tparent).children).insert(tname.clone(), src);
        self.note_dir(tparent);
        if src_dir {
            self.note_moved(src);
        } else {
            self.note_entry(tparent, &tname, src);
        }
        let now = self.now();
        let p = self.node_mut(tparent);
        p.mtime = now;
        if src_dir {
            p.nlink += 1;
        }
        Ok(())
    }

    // ----- attributes -------------------------------------------------------------

    pub(crate) fn set_mode(&mut self, path: &str, mode: u32) -> FsResult<()> {
        self.set_attr(path, true, |n| n.mode = mode & 0o7777)
    }

    pub(crate) fn set_mtime(&mut self, path: &str, mtime: Timestamp) -> FsResult<()> {
        self.set_attr(path, true, |n| n.mtime = mtime)
    }

    pub(crate) fn set_atime(&mut self, path: &str, atime: Timestamp) -> FsResult<()> {
        self.set_attr(path, true, |n| n.atime = atime)
    }

    /// The access time of the node `path` names (symlinks followed).
    pub(crate) fn atime(&self, path: &str) -> FsResult<Timestamp> {
        let found = self.walk(ROOT, path, true, &mut 0)?;
        Ok(self.node(found.ino).atime)
    }

    /// Changes an attribute of the node `path` names, recording the change.
    fn set_attr(&mut self, path: &str, follow: bool, set: impl FnOnce(&mut Node)) -> FsResult<()> {
        let found = self.walk(ROOT, path, follow, &mut 0)?;
        let (ino, parent, name) = (found.ino, found.parent, found.name.to_string());
        set(self.node_mut(ino));
        self.note_entry(parent, &name, ino);
        Ok(())
    }

    /// Sets the mtime of the node itself (a symlink is not followed), for
    /// `touch -h` and tar extraction.
    pub(crate) fn set_symlink_mtime(&mut self, path: &str, mtime: Timestamp) -> FsResult<()> {
        self.set_attr(path, false, |n| n.mtime = mtime)
    }

    /// Adds a device node (used while building the initial tree).
    pub(crate) fn add_device(&mut self, path: &str, mode: u32, device: Device) -> FsResult<()> {
        let (parent, name) = self.walk_parent(ROOT, path, &mut 0)?;
        self.add_entry(parent, name, NodeKind::Device(device), mode)?;
        Ok(())
    }

    /// Adds a regular file sharing `data` (used while building the initial tree).
    pub(crate) fn add_shared_file(
        &mut self,
        path: &str,
        data: &Arc<Vec<u8>>,
        mode: u32,
    ) -> FsResult<()> {
        let (parent, name) = self.walk_parent(ROOT, path, &mut 0)?;
        self.check_size(0, data.len() as u64)?;
        // `insert` counts the file's bytes.
        self.add_entry(parent, name, NodeKind::File(Arc::clone(data)), mode)?;
        Ok(())
    }

    /// Fills the empty directory `dir` with one regular file per name of
    /// `names` (created in that order), all sharing `data`: the initial
    /// tree's `/usr/bin` stubs. One walk and one map built in a single pass,
    /// where `add_shared_file` per name walked the path and inserted into
    /// the map each time (a fifth of a process's first sandbox).
    pub(crate) fn fill_dir_shared(
        &mut self,
        dir: &str,
        names: &[&str],
        data: &Arc<Vec<u8>>,
        mode: u32,
    ) -> FsResult<()> {
        let parent = self.lookup(dir, true)?;
        if !self.dir(parent)?.children.is_empty() {
            return Err(FsError::AlreadyExists);
        }
        if names
            .iter()
            .any(|n| matches!(*n, "" | "." | "..") || n.contains('/'))
        {
            return Err(FsError::InvalidArgument);
        }
        let count = names.len() as u64;
        if self.count.saturating_add(count) > self.limits.max_files {
            return Err(FsError::NoSpace);
        }
        self.check_size(0, data.len() as u64)?;
        let total = (data.len() as u64).saturating_mul(count);
        if self.bytes.saturating_add(total) > self.limits.max_total_bytes {
            return Err(FsError::NoSpace);
        }
        let now = self.now();
        let inos: Vec<Ino> = names
            .iter()
            .map(|_| {
                self.alloc(Node {
                    kind: NodeKind::File(Arc::clone(data)),
                    mode: mode & 0o7777,
                    mtime: now,
                    atime: now,
                    nlink: 1,
                })
            })
            .collect();
        self.bytes += total;
        // Sorted names (the usual case) make this a linear bulk build.
        let children: BTreeMap<String, Ino> = names
            .iter()
            .zip(&inos)
            .map(|(name, &ino)| (name.to_string(), ino))
            .collect();
        if children.len() != names.len() {
            // A name given twice: undo (`release` takes the bytes back), as
            // a failed `add_entry` leaves nothing behind.
            for &ino in &inos {
                self.release(ino);
            }
            return Err(FsError::AlreadyExists);
        }
        self.node_mut(parent).mtime = now;
        self.dir_mut(parent).children = Arc::new(children);
        self.note_dir(parent);
        for (name, &ino) in names.iter().zip(&inos) {
            self.note_entry(parent, name, ino);
        }
        Ok(())
    }
}

/// Writes `data` over `v` at `off`, growing it as needed: a gap before
/// `off` reads as zeros (a sparse write); the part past the old end is
/// appended, not zero-filled first and then copied over (writes that
/// append, the common case, touch each byte once).
fn splice_at(v: &mut Vec<u8>, off: usize, data: &[u8]) {
    if v.len() <= off {
        v.resize(off, 0);
        v.extend_from_slice(data);
        return;
    }
    let inside = (v.len() - off).min(data.len());
    v[off..off + inside].copy_from_slice(&data[..inside]);
    v.extend_from_slice(&data[inside..]);
}
