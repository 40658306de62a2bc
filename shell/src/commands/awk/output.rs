//! Output of the awk interpreter: the stdout buffer, files opened by
//! `print > file` / `>> file`, and command pipes opened by `print | "cmd"`.
//!
//! The ordering follows gawk's buffering, which scripts rely on:
//! - stdout is block-buffered; it is flushed before a new output pipe opens,
//!   before `system()`, by `close()` and `fflush()`, and LAST at exit, after
//!   every open file and pipe has been closed (so
//!   `{ print | "sort" } END { print "done" }` prints the sorted lines, then
//!   `done`);
//! - a pipe's command runs when the pipe is closed (`close()` or exit), over
//!   everything printed to it: the commands of the sandbox run in-process,
//!   so a pipe cannot stream. For the filters scripts pipe into (`sort`,
//!   `uniq -c`, `tr`) the bytes come out the same, as those write their
//!   output at the end anyway. `cat` (alone or to stderr) is the exception
//!   gawk scripts notice: it echoes as soon as gawk flushes the pipe, so a
//!   flushed `cat` pipe runs right then over the bytes so far;
//! - `"/dev/stdout"` and `"-"` are redirections of their own that share the
//!   stdout buffer: closing one (explicitly or at exit) flushes stdout;
//! - at exit, pipes and files are closed most recently opened first.

use super::ast::Redirect;
use super::interp::{Fatal, Interp, Res};
use crate::commands::{ExecMode, ExecRequest};

/// An output stream opened by `print > file`, `>> file` or `| cmd`.
pub struct Output {
    /// Bytes not yet written to the file / given to the command.
    buf: Vec<u8>,
    /// Where the bytes go.
    kind: Kind,
}

/// What an [`Output`] writes to.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A file in the virtual filesystem.
    File,
    /// A command's stdin.
    Pipe,
    /// `"/dev/stdout"` / `"-"`: the stdout buffer itself.
    Stdout,
    /// `"/dev/stderr"`: unbuffered stderr.
    Stderr,
}

/// Bytes of stdout buffered before they are written out.
const STDOUT_BUFFER: usize = 64 * 1024;

impl Interp<'_, '_> {
    /// Writes buffered stdout.
    pub fn flush_stdout(&mut self) -> Res<()> {
        if !self.out.is_empty() {
            let r = self.ctx.stdout.write_all(&self.out);
            self.out.clear();
            if r.is_err() {
                return Err(Fatal("write error".into()));
            }
        }
        Ok(())
    }

    /// gawk's `flush_io()`: stdout, then every open file and `cat` pipe,
    /// newest first. Other pipes keep their bytes until they are closed
    /// (see the module doc).
    pub(super) fn flush_all(&mut self) -> Res<()> {
        self.flush_stdout()?;
        let pending: Vec<String> = self
            .outputs
            .iter()
            .rev()
            .filter(|(_, o)| !o.buf.is_empty())
            .map(|(n, _)| n.clone())
            .collect();
        for n in pending {
            self.flush_one(&n)?;
        }
        let _ = self.ctx.stdout.flush();
        Ok(())
    }

    /// Appends `data` to stdout or to the redirection's stream, opening it
    /// on first use.
    pub(super) fn emit(&mut self, redir: &Option<Redirect>, data: &[u8]) -> Res<()> {
        let Some(r) = redir else {
            self.out.extend_from_slice(data);
            if self.out.len() >= STDOUT_BUFFER {
                self.flush_stdout()?;
            }
            return Ok(());
        };
        let (e, append, pipe) = match r {
            Redirect::File(e) => (e, false, false),
            Redirect::Append(e) => (e, true, false),
            Redirect::Pipe(e) => (e, false, true),
        };
        let name = self.eval_str(e)?;
        let kind = match self.outputs.get_mut(&name) {
            Some(o) => o.kind,
            None => self.open_output(&name, append, pipe)?,
        };
        match kind {
            Kind::File | Kind::Pipe => {
                let o = self.outputs.get_mut(&name).expect("open");
                o.buf.extend_from_slice(data);
            }
            Kind::Stdout => {
                self.out.extend_from_slice(data);
                if self.out.len() >= STDOUT_BUFFER {
                    self.flush_stdout()?;
                }
            }
            // Unbuffered, like gawk's stderr: it may overtake stdout.
            Kind::Stderr => {
                let _ = self.ctx.stderr.write_all(data);
            }
        }
        Ok(())
    }

    /// Opens output `name` (gawk's `redirect()`); returns its kind.
    fn open_output(&mut self, name: &str, append: bool, pipe: bool) -> Res<Kind> {
        let kind = match name {
            _ if pipe => Kind::Pipe,
            "/dev/stdout" | "-" => Kind::Stdout,
            "/dev/stderr" => Kind::Stderr,
            _ => Kind::File,
        };
        if name.is_empty() {
            let what = if pipe { "command" } else { "file" };
            return Err(Fatal(format!(
                "expression for `{}' redirection has null string value ({what})",
                if pipe { "|" } else { ">" }
            )));
        }
        if pipe {
            // gawk synchronizes output before starting a new command.
            self.flush_all()?;
        } else if kind == Kind::File && !append {
            // `>` truncates when the file opens, not when it is flushed.
            let path = self.ctx.path(name);
            if let Err(e) = self.ctx.fs.write(&path, b"") {
                return Err(Fatal(format!(
                    "can't redirect to `{name}' ({})",
                    describe_error(&e.to_string())
                )));
            }
        }
        self.outputs.insert(
            name.to_string(),
            Output {
                buf: Vec::new(),
                kind,
            },
        );
        Ok(kind)
    }

    /// Appends file output `name`'s buffer to the file.
    fn write_file(&mut self, name: &str) -> Res<()> {
        let Some(o) = self.outputs.get_mut(name) else {
            return Ok(());
        };
        let data = std::mem::take(&mut o.buf);
        let path = self.ctx.path(name);
        self.ctx.fs.append(&path, &data).map_err(|e| {
            Fatal(format!(
                "can't redirect to `{name}' ({})",
                describe_error(&e.to_string())
            ))
        })
    }

    /// `fflush(name)`: 0 when `name` is open for output, else -1.
    pub(super) fn flush_one(&mut self, name: &str) -> Res<i32> {
        let Some(o) = self.outputs.get_mut(name) else {
            return Ok(if name == "/dev/stdout" || name == "/dev/stderr" {
                self.flush_stdout()?;
                0
            } else {
                -1
            });
        };
        match o.kind {
            Kind::File => self.write_file(name)?,
            Kind::Pipe if is_cat(name) && !o.buf.is_empty() => {
                let data = std::mem::take(&mut o.buf);
                self.run_pipe(name, &data);
            }
            Kind::Pipe | Kind::Stderr => {}
            Kind::Stdout => self.flush_stdout()?,
        }
        Ok(0)
    }

    /// Runs pipe command `cmd` over `input`; returns its exit status.
    fn run_pipe(&mut self, cmd: &str, mut input: &[u8]) -> i32 {
        let argv = ["bash".to_string(), "-c".to_string(), cmd.to_string()];
        let ctx = &mut *self.ctx;
        ctx.exec.exec(ExecRequest {
            argv: &argv,
            env: &[],
            cwd: ctx.cwd,
            stdin: &mut input,
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            mode: ExecMode::Inherit,
        })
    }

    /// Closes output `name`: a file gets its last bytes, a pipe's command
    /// runs over what was printed to it. The result is `close()`'s: 0 for a
    /// file, the command's exit status for a pipe, -1 when not open.
    pub(super) fn close_output(&mut self, name: &str) -> i32 {
        let Some(o) = self.outputs.shift_remove(name) else {
            return -1;
        };
        match o.kind {
            Kind::Pipe => return self.run_pipe(name, &o.buf),
            Kind::Stdout => return if self.flush_stdout().is_ok() { 0 } else { -1 },
            Kind::Stderr => return 0,
            Kind::File => {}
        }
        let path = self.ctx.path(name);
        match self.ctx.fs.append(&path, &o.buf) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(
                    self.ctx.stderr,
                    "awk: can't redirect to `{name}' ({})",
                    describe_error(&e.to_string())
                );
                -1
            }
        }
    }

    /// Closes every output, most recently opened first, then writes stdout:
    /// gawk's order at exit.
    pub fn close_all(&mut self) {
        while let Some(name) = self.outputs.keys().last().cloned() {
            self.close_output(&name);
        }
        let _ = self.flush_stdout();
    }
}

/// Whether pipe command `cmd` is `cat` copying its input to stdout or
/// stderr, which echoes each flush at once in gawk.
fn is_cat(cmd: &str) -> bool {
    let squeezed: String = cmd.split_whitespace().collect();
    matches!(
        squeezed.as_str(),
        "cat" | "cat-" | "cat1>&2" | "cat>&2" | "cat>/dev/stderr" | "cat1>/dev/stderr"
    )
}

/// The errno-style text of a filesystem error.
pub(super) fn describe_error(e: &str) -> String {
    if e.to_lowercase().contains("not found") || e.contains("No such") {
        "No such file or directory".into()
    } else {
        e.to_string()
    }
}
