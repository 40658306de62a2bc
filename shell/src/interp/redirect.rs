//! Redirections and process substitution.
//!
//! Redirections are applied to the shell's own fd table and undone afterwards
//! (for builtins, functions and compound commands as for programs), except
//! for `exec >file` which keeps them. Files are files of the virtual tree;
//! `/dev/null`, `/dev/stdin|stdout|stderr` and `/dev/fd/N` name the shell's
//! own descriptors; the endless devices (`< /dev/zero`, `< /dev/urandom`)
//! are streamed through a pipe, and writes to `/dev/full` fail.
//! `<(cmd)` runs `cmd` to completion first and exposes its
//! output as `/dev/fd/N` (in the fd table, and as a file of that name so
//! commands reading paths see it too); `>(cmd)` collects what is written to
//! `/dev/fd/N` and feeds it to `cmd` once the command is done.

use std::io::Read;
use std::sync::Arc;

use brush_parser::ast::{self, IoFileRedirectKind, IoFileRedirectTarget, ProcessSubstitutionKind};

use super::fd::{ByteSource, FileHandle, FileMode, Handle};
use super::pipe::pipe;
use super::{ExecResult, Interp, Interrupt};
use crate::fs::{Device, Fifo, FileKind, FileReader, Fs};
use crate::interp::fd::Capture;

/// Bytes a device's helper thread writes into its pipe at a time.
const DEVICE_CHUNK: usize = 16 * 1024;

/// A write handle on a device: `/dev/full` goes through the tree, whose
/// writes fail with `ENOSPC` (`echo hi > /dev/full`); every other device
/// swallows what it gets.
fn device_writer(fs: Fs, abs: String, mode: FileMode, dev: Device) -> Handle {
    match dev {
        Device::Full => Handle::File(Arc::new(FileHandle::new(fs, abs, mode, None))),
        _ => Handle::Null,
    }
}

/// A write handle on a FIFO: writes queue through the tree, and the FIFO
/// counts a writer until the handle closes, so its readers wait for the
/// command's output instead of seeing end of input.
fn fifo_writer(fs: Fs, abs: String, mode: FileMode, fifo: &Arc<Fifo>) -> Handle {
    let held = fifo.open_writer();
    Handle::File(Arc::new(FileHandle::new(fs, abs, mode, None).holding(held)))
}

/// A redirection and, for `{name}>file`, the variable that gets the fd.
pub(crate) type RedirRef<'a> = (&'a ast::IoRedirect, Option<&'a str>);

/// What to undo after the command.
#[derive(Default)]
pub(crate) struct Saved {
    fds: Vec<(i32, Option<Handle>)>,
    /// Entries of `fds` that saved the source of a move (`6>&7-`).
    moved: Vec<usize>,
    /// Leave a move's source closed afterwards: bash's bug for a builtin,
    /// function or compound command (`: 6>&7-` closes 7 for good).
    keep_moved_closed: bool,
}

/// A process substitution waiting for its command to finish.
#[derive(Clone)]
pub(crate) struct ProcSub {
    fd: i32,
    path: String,
    writer: Option<(Arc<Capture>, ast::SubshellCommand)>,
}

/// Why opening a redirection failed (already reported).
type Failed = i32;

/// Descriptors a redirection may name are below this (bash's limit is
/// `ulimit -n`, often 1,024; a sandbox has no host descriptors to spare).
const MAX_FD: i32 = 1 << 16;

impl Interp {
    /// Runs `f` with `redirs` applied, restoring the fd table afterwards.
    pub(crate) fn with_redirects(
        &mut self,
        redirs: &[RedirRef<'_>],
        f: impl FnOnce(&mut Interp) -> ExecResult,
    ) -> ExecResult {
        self.with_redirects_in_shell(redirs, true, f)
    }

    /// [`Self::with_redirects`]; `in_shell` is false for a program, which
    /// bash redirects in a child process (a moved fd comes back).
    pub(crate) fn with_redirects_in_shell(
        &mut self,
        redirs: &[RedirRef<'_>],
        in_shell: bool,
        f: impl FnOnce(&mut Interp) -> ExecResult,
    ) -> ExecResult {
        if redirs.is_empty() {
            return f(self);
        }
        let mut saved = match self.open_redirects(redirs) {
            Ok(s) => s,
            Err(Ok(status)) => {
                self.last_status = status;
                return self.redirect_failed(status);
            }
            Err(Err(i)) => return Err(i),
        };
        saved.keep_moved_closed = in_shell;
        let r = f(self);
        self.restore_redirects(saved);
        r
    }

    /// Applies redirections in order; on failure undoes them and returns the status.
    pub(crate) fn open_redirects(
        &mut self,
        redirs: &[RedirRef<'_>],
    ) -> Result<Saved, Result<Failed, Interrupt>> {
        let mut saved = Saved::default();
        for (r, var) in redirs {
            let before = saved.fds.len();
            if let Err(e) = self.open_one(r, *var, &mut saved) {
                self.restore_redirects(saved);
                return Err(e);
            }
            if var.is_some() {
                // `{name}>file` stays open after the command, as in bash.
                saved.fds.truncate(before);
            }
        }
        Ok(saved)
    }

    /// Undoes redirections.
    pub(crate) fn restore_redirects(&mut self, saved: Saved) {
        let keep_closed = |i: usize| saved.keep_moved_closed && saved.moved.contains(&i);
        for (i, (fd, h)) in saved.fds.into_iter().enumerate().rev() {
            if keep_closed(i) {
                continue;
            }
            let installed = self.fds.set(fd, h);
            // A write cut at the file-size limit: say so, naming the limit
            // (a host shell would die of SIGXFSZ with a message).
            if let Some(Handle::File(f)) = &installed
                && f.take_too_large()
            {
                let limit = self.fs.max_file_size();
                self.shell_error(format_args!(
                    "{}: file size limit exceeded ({limit} bytes)",
                    f.path()
                ));
            }
        }
    }

    fn install(&mut self, fd: i32, h: Option<Handle>, saved: &mut Saved) {
        let old = self.fds.set(fd, h);
        saved.fds.push((fd, old));
    }

    fn redir_error(
        &mut self,
        what: &str,
        msg: impl std::fmt::Display,
    ) -> Result<(), Result<Failed, Interrupt>> {
        self.shell_error(format_args!("{what}: {msg}"));
        Err(Ok(1))
    }

    /// Expands a redirection target: one field (globbing included), else
    /// "ambiguous redirect". An expansion error fails the command only.
    fn expand_target(&mut self, w: &ast::Word) -> Result<String, Result<Failed, Interrupt>> {
        let plain = w
            .value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b','));
        if plain {
            return Ok(w.value.clone());
        }
        let fields = match self.expand_words(std::slice::from_ref(w)) {
            Ok(f) => f,
            Err(Interrupt::Exit(n)) => return Err(Ok(n)),
            Err(e) => return Err(Err(e)),
        };
        match <[String; 1]>::try_from(fields) {
            Ok([f]) => Ok(f),
            Err(_) => {
                self.shell_error(format_args!("{}: ambiguous redirect", w.value));
                Err(Ok(1))
            }
        }
    }

    /// Expands a here-string or duplication word (no splitting or globbing).
    fn expand_redir_word(&mut self, w: &ast::Word) -> Result<String, Result<Failed, Interrupt>> {
        match self.expand_string(&w.value) {
            Ok(s) => Ok(s),
            Err(Interrupt::Exit(n)) => Err(Ok(n)),
            Err(e) => Err(Err(e)),
        }
    }

    fn open_one(
        &mut self,
        r: &ast::IoRedirect,
        var: Option<&str>,
        saved: &mut Saved,
    ) -> Result<(), Result<Failed, Interrupt>> {
        match r {
            ast::IoRedirect::File(fd, kind, target) => {
                let input = matches!(
                    kind,
                    IoFileRedirectKind::Read
                        | IoFileRedirectKind::ReadAndWrite
                        | IoFileRedirectKind::DuplicateInput
                );
                let default_fd = if input { 0 } else { 1 };
                match target {
                    IoFileRedirectTarget::Filename(w) => {
                        let path = self.expand_target(w)?;
                        let mode = match kind {
                            IoFileRedirectKind::Read | IoFileRedirectKind::DuplicateInput => {
                                FileMode::Read
                            }
                            IoFileRedirectKind::Write => FileMode::Write,
                            IoFileRedirectKind::Clobber | IoFileRedirectKind::DuplicateOutput => {
                                FileMode::Write
                            }
                            IoFileRedirectKind::Append => FileMode::Append,
                            IoFileRedirectKind::ReadAndWrite => FileMode::ReadWrite,
                        };
                        let clobber = matches!(kind, IoFileRedirectKind::Clobber);
                        let h = self.open_path(&path, mode, clobber)?;
                        let target_fd = self.target_fd(*fd, var, default_fd, saved)?;
                        self.install(target_fd, Some(h), saved);
                        if matches!(kind, IoFileRedirectKind::DuplicateOutput)
                            && fd.is_none()
                            && var.is_none()
                        {
                            // `>&file` is `&>file`.
                            let h = self.fds.get(1).cloned();
                            self.install(2, h, saved);
                        }
                    }
                    IoFileRedirectTarget::Fd(src) => {
                        let target_fd = self.target_fd(*fd, var, default_fd, saved)?;
                        self.dup(*src, target_fd, input, saved)?;
                    }
                    IoFileRedirectTarget::Duplicate(w) => {
                        // Split and globbed like a file name: `>& "$@"` with
                        // two words is an ambiguous redirect.
                        let text = self.expand_target(w)?;
                        if text == "-" {
                            let target_fd = match (fd, var) {
                                (_, Some(v)) => {
                                    match self.vars.get_str(v).and_then(|s| s.parse().ok()) {
                                        Some(n) => n,
                                        None => return self.redir_error(v, "ambiguous redirect"),
                                    }
                                }
                                (Some(f), None) => *f,
                                (None, None) => default_fd,
                            };
                            self.install(target_fd, None, saved);
                            return Ok(());
                        }
                        let (num, mv) = match text.strip_suffix('-') {
                            Some(n) => (n, true),
                            None => (text.as_str(), false),
                        };
                        match num.parse::<i32>() {
                            Ok(src) => {
                                let target_fd = self.target_fd(*fd, var, default_fd, saved)?;
                                self.dup(src, target_fd, input, saved)?;
                                if mv && src != target_fd {
                                    saved.moved.push(saved.fds.len());
                                    self.install(src, None, saved);
                                }
                            }
                            Err(_) => {
                                if !input && var.is_none() {
                                    // `>&file` / `1>&file`: a file name, not a descriptor.
                                    let h = self.open_path(&text, FileMode::Write, false)?;
                                    let target_fd = fd.unwrap_or(1);
                                    self.install(target_fd, Some(h.clone()), saved);
                                    if fd.is_none() {
                                        self.install(2, Some(h), saved);
                                    }
                                } else {
                                    return self.redir_error(&text, "ambiguous redirect");
                                }
                            }
                        }
                    }
                    IoFileRedirectTarget::ProcessSubstitution(pkind, sub) => {
                        let path = self.process_substitution(pkind, sub).map_err(Err)?;
                        let mode = if input {
                            FileMode::Read
                        } else {
                            FileMode::Write
                        };
                        let h = self.open_path(&path, mode, true)?;
                        let target_fd = self.target_fd(*fd, var, default_fd, saved)?;
                        self.install(target_fd, Some(h), saved);
                    }
                }
            }
            ast::IoRedirect::HereDocument(fd, doc) => {
                let mut body = doc.doc.value.clone();
                if doc.requires_expansion {
                    body = join_continued_lines(&body);
                }
                if doc.remove_tabs {
                    body = body
                        .split_inclusive('\n')
                        .map(|l| l.trim_start_matches('\t'))
                        .collect();
                }
                if doc.requires_expansion {
                    body = self.expand_heredoc(&body).map_err(Err)?;
                }
                let target_fd = self.target_fd(*fd, var, 0, saved)?;
                let h = Handle::Bytes(Arc::new(ByteSource::new(crate::bytes::encode_string(body))));
                self.install(target_fd, Some(h), saved);
            }
            ast::IoRedirect::HereString(fd, w) => {
                let mut s = self.expand_redir_word(w)?;
                s.push('\n');
                let target_fd = self.target_fd(*fd, var, 0, saved)?;
                let h = Handle::Bytes(Arc::new(ByteSource::new(crate::bytes::encode_string(s))));
                self.install(target_fd, Some(h), saved);
            }
            ast::IoRedirect::OutputAndError(w, append) => {
                let path = self.expand_target(w)?;
                let mode = if *append {
                    FileMode::Append
                } else {
                    FileMode::Write
                };
                let h = self.open_path(&path, mode, false)?;
                self.install(1, Some(h.clone()), saved);
                self.install(2, Some(h), saved);
            }
        }
        Ok(())
    }

    /// The fd a redirection targets; `{name}>...` allocates one from 10 up.
    fn target_fd(
        &mut self,
        fd: Option<i32>,
        var: Option<&str>,
        default_fd: i32,
        _saved: &mut Saved,
    ) -> Result<i32, Result<Failed, Interrupt>> {
        if let Some(v) = var {
            let n = self.fds.free_from(10);
            if let Err(e) = self.assign(v, &n.to_string(), false) {
                self.shell_error(&e);
                return Err(Ok(1));
            }
            return Ok(n);
        }
        let fd = fd.unwrap_or(default_fd);
        // The table grows to the highest descriptor: `2147483643>f` would
        // ask for gigabytes. bash refuses one past `ulimit -n` the same way.
        if fd >= MAX_FD {
            return self
                .redir_error(&fd.to_string(), "Bad file descriptor")
                .map(|()| fd);
        }
        Ok(fd)
    }

    fn dup(
        &mut self,
        src: i32,
        dst: i32,
        input: bool,
        saved: &mut Saved,
    ) -> Result<(), Result<Failed, Interrupt>> {
        let _ = input;
        match self.fds.get(src).cloned() {
            Some(h) => {
                if src != dst {
                    self.install(dst, Some(h), saved);
                }
                Ok(())
            }
            None => self.redir_error(&src.to_string(), "Bad file descriptor"),
        }
    }

    /// Opens `path` (as written by the user) for a redirection.
    pub(crate) fn open_path(
        &mut self,
        path: &str,
        mode: FileMode,
        force: bool,
    ) -> Result<Handle, Result<Failed, Interrupt>> {
        let dev_fd = match path {
            "/dev/null" => return Ok(Handle::Null),
            "/dev/stdin" => Some(0),
            "/dev/stdout" => Some(1),
            "/dev/stderr" => Some(2),
            p => p
                .strip_prefix("/dev/fd/")
                .and_then(|n| n.parse::<i32>().ok()),
        };
        if let Some(n) = dev_fd
            && let Some(h) = self.fds.get(n)
        {
            return Ok(h.clone());
        }
        if path.is_empty() {
            self.redir_error("", "No such file or directory")?;
        }
        let abs = Fs::resolve(&self.cwd, path);
        let fs = self.fs.clone();
        let fail =
            |sh: &mut Interp, e: crate::fs::FsError| sh.redir_error(path, e).map(|_| Handle::Null);
        match mode {
            FileMode::Read => match fs.open_read(&abs, self.control.seed) {
                Ok(reader) => match reader.snapshot() {
                    Some(data) => Ok(Handle::File(Arc::new(FileHandle::new(
                        fs,
                        abs,
                        mode,
                        Some(Arc::clone(data)),
                    )))),
                    None => self.device_stream(path, reader),
                },
                Err(_)
                    if fs
                        .metadata(&abs)
                        .is_ok_and(|m| m.kind == crate::fs::FileKind::Dir) =>
                {
                    Ok(Handle::Dir)
                }
                Err(e) => fail(self, e),
            },
            FileMode::Write => {
                if self.opts.noclobber
                    && !force
                    && let Ok(m) = fs.metadata(&abs)
                    && m.kind == FileKind::File
                {
                    self.redir_error(path, "cannot overwrite existing file")?;
                }
                if let Some(dev) = fs.device(&abs) {
                    return Ok(device_writer(fs, abs, mode, dev));
                }
                if let Some(fifo) = fs.fifo(&abs) {
                    return Ok(fifo_writer(fs, abs, mode, &fifo));
                }
                let existed = fs.exists(&abs);
                match fs.write(&abs, b"") {
                    Ok(()) => {
                        self.mask_new_file(&abs, existed);
                        Ok(Handle::File(Arc::new(FileHandle::new(fs, abs, mode, None))))
                    }
                    Err(e) => fail(self, e),
                }
            }
            FileMode::Append => {
                if let Some(dev) = fs.device(&abs) {
                    return Ok(device_writer(fs, abs, mode, dev));
                }
                if let Some(fifo) = fs.fifo(&abs) {
                    return Ok(fifo_writer(fs, abs, mode, &fifo));
                }
                let existed = fs.exists(&abs);
                match fs.append(&abs, b"") {
                    Ok(()) => {
                        self.mask_new_file(&abs, existed);
                        Ok(Handle::File(Arc::new(FileHandle::new(fs, abs, mode, None))))
                    }
                    Err(e) => fail(self, e),
                }
            }
            FileMode::ReadWrite if fs.device(&abs).is_some_and(Device::is_endless) => {
                // `<>` on an endless device: its reads are what matters.
                match fs.open_read(&abs, self.control.seed) {
                    Ok(reader) => self.device_stream(path, reader),
                    Err(e) => fail(self, e),
                }
            }
            FileMode::ReadWrite => {
                let existed = fs.exists(&abs);
                match fs.create(&abs, false) {
                    Ok(()) => {
                        self.mask_new_file(&abs, existed);
                        Ok(Handle::File(Arc::new(FileHandle::new(fs, abs, mode, None))))
                    }
                    Err(e) => fail(self, e),
                }
            }
        }
    }

    /// A file a redirection created gets mode 0666 less the `umask`, as
    /// open(2) gives it.
    fn mask_new_file(&self, abs: &str, existed: bool) {
        if !existed {
            let mode = 0o666 & !super::builtins::misc::current_umask(self);
            let _ = self.fs.set_mode(abs, mode);
        }
    }

    /// A read handle over an endless device (`< /dev/zero`, `< /dev/urandom`).
    /// The fd table holds finite handles and pipe ends, so a helper thread
    /// streams the device into a bounded pipe: readers take what they need
    /// (`head -c 16 < /dev/urandom`), and the thread ends when the last
    /// reader closes (the pipe's `EPIPE`), when the run's deadline passes or
    /// a limit trips, whichever comes first; it never buffers more than the
    /// pipe holds.
    fn device_stream(
        &mut self,
        path: &str,
        mut reader: FileReader,
    ) -> Result<Handle, Result<Failed, Interrupt>> {
        let (r, w) = pipe(self.control.clone());
        let control = self.control.clone();
        let spawned = std::thread::Builder::new()
            .name("sandkeep-device".into())
            .spawn(crate::alloc::inheriting(move || {
                // Small first writes, so `head -c 4 < /dev/urandom` makes
                // little more than it takes; then full chunks.
                let mut buf = vec![0u8; 1024];
                while control.check().is_ok() {
                    match reader.read(&mut buf) {
                        Ok(n) if n > 0 && w.write_all(&buf[..n]).is_ok() => {}
                        _ => break,
                    }
                    if buf.len() < DEVICE_CHUNK {
                        buf.resize(buf.len() * 4, 0);
                    }
                }
            }));
        match spawned {
            Ok(_) => Ok(Handle::PipeRead(Arc::new(r))),
            Err(_) => self
                .redir_error(path, "Resource temporarily unavailable")
                .map(|_| Handle::Null),
        }
    }

    /// Runs `<(cmd)` / sets up `>(cmd)`; returns the `/dev/fd/N` path to use.
    pub(crate) fn process_substitution(
        &mut self,
        kind: &ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
    ) -> Result<String, Interrupt> {
        let fd = self
            .fds
            .free_from(63.max(self.procsubs.iter().map(|p| p.fd + 1).max().unwrap_or(63)));
        let path = format!("/dev/fd/{fd}");
        match kind {
            ProcessSubstitutionKind::Read => {
                let buf = Capture::new(self.control.clone());
                let mut child = self.subshell();
                child.fds.set(1, Some(Handle::Capture(buf.clone())));
                let r = child.nest(|sh| sh.exec_list(&sub.list));
                let status = child.finish_subshell(r)?;
                drop(child);
                self.note_procsub_job(status);
                let data = buf.take();
                let _ = self.fs.write(&path, &data);
                self.fds
                    .set(fd, Some(Handle::Bytes(Arc::new(ByteSource::new(data)))));
                self.procsubs.push(ProcSub {
                    fd,
                    path: path.clone(),
                    writer: None,
                });
            }
            ProcessSubstitutionKind::Write => {
                let buf = Capture::new(self.control.clone());
                let _ = self.fs.write(&path, b"");
                self.fds.set(fd, Some(Handle::Capture(buf.clone())));
                self.procsubs.push(ProcSub {
                    fd,
                    path: path.clone(),
                    writer: Some((buf, sub.clone())),
                });
            }
        }
        Ok(path)
    }

    /// After a command: feeds `>(cmd)` consumers and removes `/dev/fd/N` files.
    pub(crate) fn finish_procsubs(&mut self) -> Result<(), Interrupt> {
        if self.procsubs.is_empty() {
            return Ok(());
        }
        let subs = std::mem::take(&mut self.procsubs);
        for p in subs {
            self.fds.set(p.fd, None);
            let from_file = self.fs.read(&p.path).unwrap_or_default();
            let _ = self.fs.remove_file(&p.path);
            if let Some((buf, cmd)) = p.writer {
                let mut data = buf.take();
                if data.is_empty() {
                    data = from_file;
                }
                let mut child = self.subshell();
                child
                    .fds
                    .set(0, Some(Handle::Bytes(Arc::new(ByteSource::new(data)))));
                let r = child.nest(|sh| sh.exec_list(&cmd.list));
                let status = child.finish_subshell(r)?;
                drop(child);
                self.note_procsub_job(status);
            }
        }
        Ok(())
    }

    /// A process substitution is an asynchronous job to bash: `$!` names
    /// it and `wait $!` returns its status. It ended already here; it is
    /// kept out of `jobs` and job specs, as in bash.
    fn note_procsub_job(&mut self, status: i32) {
        let pid = self.jobs.record(String::new(), status);
        self.jobs.disown(pid);
        self.last_bg_pid = Some(pid);
        self.vars.global_entry("!").value = Some(super::vars::Value::Str(pid.to_string()));
    }
}

/// An unquoted here-document's body with each backslash-newline removed
/// (bash joins those lines as it reads them, before `<<-` strips tabs);
/// an escaped backslash before a newline stays.
fn join_continued_lines(body: &str) -> String {
    if !body.contains("\\\n") {
        return body.to_string();
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\n') => {}
            Some(next) => {
                out.push(c);
                out.push(next);
            }
            None => out.push(c),
        }
    }
    out
}
