//! Programs: what `execvp` would run for a name that is neither a function
//! nor a builtin. A program is a registry command (`/usr/bin/NAME`), a script
//! of the virtual tree (run by a fresh interpreter, as a new `bash` process
//! would), or `bash`/`sh` itself. Also the [`Exec`] implementation through
//! which commands like `xargs`, `find -exec`, `env` and `timeout` run programs.

use std::io::{BufWriter, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::fd::{Borrowed, FdTable, Handle, HandleReader, HandleWriter};
use super::vars::{Attrs, Value};
use super::{ExecResult, Interp, Interrupt};
use crate::commands::{Command, CommandCtx, Exec, ExecMode, ExecRequest, Program};
use crate::fs::{FileKind, Fs};

/// A program found by name.
pub(crate) struct Found {
    /// Where it is (`/usr/bin/ls`, `/workspace/f.sh`).
    pub path: String,
    kind: ProgKind,
}

enum ProgKind {
    Command(&'static Command),
    Extra(crate::commands::CustomCommand),
    Shell,
    Script,
}

/// Directories whose entries are the registry's commands.
fn is_bin_dir(dir: &str) -> bool {
    matches!(
        dir,
        "/usr/bin" | "/bin" | "/usr/local/bin" | "/usr/sbin" | "/sbin"
    )
}

impl Interp {
    fn builtin_program(&self, name: &str) -> Option<ProgKind> {
        if name == "bash" || name == "sh" {
            return Some(ProgKind::Shell);
        }
        self.registry.get(name).map(|p| match p {
            Program::Builtin(c) => ProgKind::Command(c),
            Program::Custom(f) => ProgKind::Extra(f),
        })
    }

    /// Finds a program the way `execvp` does: a path with a `/` as is,
    /// otherwise the first match along `PATH`.
    pub(crate) fn find_program(&self, name: &str) -> Option<Found> {
        let path = self.vars.get_str("PATH").unwrap_or("").to_string();
        self.find_program_in(name, &path)
    }

    /// [`Interp::find_program`] with an explicit `PATH` (`PATH=x cmd`).
    fn find_program_in(&self, name: &str, path: &str) -> Option<Found> {
        if name.is_empty() {
            return None;
        }
        if name.contains('/') {
            let abs = Fs::resolve(&self.cwd, name);
            let (dir, base) = abs.rsplit_once('/').unwrap_or(("", &abs));
            let dir = if dir.is_empty() { "/" } else { dir };
            if is_bin_dir(dir)
                && let Some(kind) = self.builtin_program(base)
            {
                return Some(Found { path: abs, kind });
            }
            return Some(Found {
                path: abs,
                kind: ProgKind::Script,
            });
        }
        for dir in path.split(':') {
            let dir = if dir.is_empty() {
                self.cwd.clone()
            } else {
                Fs::resolve(&self.cwd, dir)
            };
            if is_bin_dir(&dir)
                && let Some(kind) = self.builtin_program(name)
            {
                return Some(Found {
                    path: format!("{dir}/{name}"),
                    kind,
                });
            }
            let cand = format!("{}/{name}", dir.trim_end_matches('/'));
            if let Ok(m) = self.fs.metadata(&cand)
                && m.kind == FileKind::File
                && m.mode & 0o111 != 0
            {
                return Some(Found {
                    path: cand,
                    kind: ProgKind::Script,
                });
            }
        }
        None
    }

    /// The command hash table, emptied first when `PATH` changed since it
    /// was filled (bash empties it on every assignment to `PATH`).
    pub(crate) fn command_hash(&mut self) -> &mut Vec<(String, String, u32)> {
        let path = self.vars.get_str("PATH").unwrap_or("");
        if path != self.command_hash_path {
            self.command_hash_path = path.to_string();
            self.command_hash.clear();
        }
        &mut self.command_hash
    }

    /// Finds `name` through the hash table, as bash does: a remembered
    /// path is used (counting a hit) even when an earlier `PATH` directory
    /// has gained the command; a found one is remembered.
    /// `Err(path)`: the remembered file is gone.
    fn find_hashed(&mut self, name: &str) -> Result<Option<Found>, String> {
        if name.contains('/') {
            return Ok(self.find_program(name));
        }
        let hashed = self
            .command_hash()
            .iter_mut()
            .find(|(n, ..)| n == name)
            .map(|e| {
                e.2 += 1;
                e.1.clone()
            });
        if let Some(path) = hashed {
            return match self.find_program(&path) {
                Some(f) if self.fs.exists(&f.path) || !matches!(f.kind, ProgKind::Script) => {
                    Ok(Some(f))
                }
                _ => Err(path),
            };
        }
        let found = self.find_program(name);
        if let Some(f) = &found {
            let entry = (name.to_string(), f.path.clone(), 1);
            self.command_hash().push(entry);
        }
        Ok(found)
    }

    /// Runs a program with `env` added to the exported environment.
    pub(crate) fn run_program(&mut self, argv: &[String], env: &[(String, String)]) -> ExecResult {
        let name = &argv[0];
        let found = match env.iter().rev().find(|(k, _)| k == "PATH") {
            Some((_, p)) => self.find_program_in(name, p),
            None => match self.find_hashed(name) {
                Ok(f) => f,
                Err(path) => {
                    self.shell_error(format_args!("{path}: No such file or directory"));
                    return Ok(127);
                }
            },
        };
        let Some(found) = found else {
            self.shell_error(format_args!("{name}: command not found"));
            return Ok(127);
        };
        match found.kind {
            ProgKind::Command(c) => Ok(self.run_command_fn(&|ctx| c.call(ctx), argv, env)),
            ProgKind::Extra(f) => {
                // Embedder programs may read any fd (`read_from_fd.py 8`).
                let fds = self.fds.clone();
                EXTRA_FDS.with(|c| *c.borrow_mut() = Some(fds));
                let status = self.run_command_fn(&*f, argv, env);
                EXTRA_FDS.with(|c| *c.borrow_mut() = None);
                Ok(status)
            }
            ProgKind::Shell => self.run_shell(argv, env),
            ProgKind::Script => self.run_script_file(&found.path, argv, env),
        }
    }

    /// The environment a program sees: exported variables plus `env`.
    pub(crate) fn program_env(&self, env: &[(String, String)]) -> Vec<(String, String)> {
        let mut out = self.vars.exported();
        for (k, v) in env {
            if let Some(slot) = out.iter_mut().find(|(n, _)| n == k) {
                slot.1 = v.clone();
            } else {
                out.push((k.clone(), v.clone()));
            }
        }
        out
    }

    /// Runs a registry command on this shell's fds 0, 1, 2.
    fn run_command_fn(
        &mut self,
        f: &dyn Fn(&mut CommandCtx<'_>) -> i32,
        argv: &[String],
        env: &[(String, String)],
    ) -> i32 {
        let env = self.program_env(env);
        let mut stdin = HandleReader(self.fds.get(0).cloned());
        let mut stdout =
            BufWriter::with_capacity(8192, HandleWriter::new(self.fds.get(1).cloned()));
        let mut stderr = HandleWriter::new(self.fds.get(2).cloned());
        let mut exec = ProgramRunner { base: self };
        let status = {
            let mut ctx = CommandCtx {
                args: argv,
                env: &env,
                cwd: &self.cwd,
                fs: &self.fs,
                stdin: &mut stdin,
                stdout: &mut stdout,
                stderr: &mut stderr,
                control: &self.control,
                exec: &mut exec,
            };
            // The command's own cancellation points (`crate::cancel::point`)
            // leave it through this scope.
            let control = ctx.control;
            match catch_unwind(AssertUnwindSafe(|| {
                crate::cancel::scope(control, || f(&mut ctx))
            })) {
                Ok(Ok(s)) => s,
                // The run reports the limit that cancelled it.
                Ok(Err(_)) => 124,
                Err(_) => {
                    let _ = writeln!(ctx.stderr, "{}: internal error", argv[0]);
                    2
                }
            }
        };
        let flushed = stdout.flush();
        // SIGPIPE ends only the program: the shell (a pipeline stage running
        // `{ yes; echo $?; }`) goes on, unlike when a builtin's write breaks.
        if stdout.get_ref().broken_pipe {
            return 141;
        }
        if let Err(e) = flushed {
            // GNU tools report a failed final write (`cat f > /dev/full`).
            let message = crate::fs::strerror(&e);
            let _ = self.write_fd(
                2,
                format!("{}: write error: {message}\n", argv[0]).as_bytes(),
            );
            return if status == 0 { 1 } else { status };
        }
        status
    }

    /// A fresh shell process for a script or `bash -c`: same files, fds,
    /// cwd and exported variables; no functions, aliases or options.
    fn new_process(&self, env: &[(String, String)]) -> Interp {
        let mut child = self.clone();
        child.funcs.clear();
        child.aliases.clear();
        child.traps.clear();
        child.inherited_traps = Default::default();
        child.opts = Default::default();
        child.call_stack.clear();
        child.call_lines.clear();
        child.line_base = 0;
        child.line_map = None;
        child.dir_stack.clear();
        child.errexit_quiet = 0;
        child.errexit_bang_off = 0;
        child.loop_depth = 0;
        child.last_status = 0;
        child.subshell_depth += 1;
        child.process_depth = child.subshell_depth;
        child.pid = super::expand::special::SHELL_PID + 100 * i64::from(child.process_depth);
        child.dash_c = false;
        child.interactive = false;
        child.command_hash.clear();
        child.source_depth = 0;
        let mut vars = super::vars::Vars::default();
        for (k, v) in self.program_env(env) {
            let _ = vars.set(&k, Value::Str(v));
            if let Some(var) = vars.get_raw_mut(&k) {
                var.attrs.insert(Attrs::EXPORT);
            }
        }
        for name in [
            "IFS",
            "PS4",
            "OPTIND",
            "HOSTNAME",
            "BASH_VERSION",
            "UID",
            "EUID",
            "PPID",
        ] {
            if let Some(v) = self.vars.get_str(name)
                && vars.get(name).is_none()
            {
                let _ = vars.set(name, Value::Str(v.to_string()));
            }
        }
        super::run::set_identity(&mut vars);
        // bash gives a shell started without them (`env -i bash`) a default
        // `PATH` and an exported `PWD`.
        if vars.get("PATH").is_none() {
            let _ = vars.set(
                "PATH",
                Value::Str("/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.".into()),
            );
        }
        // Without a `PWD` naming its directory, bash starts in the physical
        // path (`getcwd`), symbolic links resolved.
        if !self.pwd_names_cwd(vars.get_str("PWD")) {
            child.cwd = self.fs.canonicalize(&self.cwd).unwrap_or(self.cwd.clone());
            let _ = vars.set("PWD", Value::Str(child.cwd.clone()));
            if let Some(var) = vars.get_raw_mut("PWD") {
                var.attrs.insert(Attrs::EXPORT);
            }
        }
        // An exported SHELLOPTS carries `set -o` options into child shells:
        // the options on now (bash updates the variable with every `set`).
        if self
            .vars
            .get_raw("SHELLOPTS")
            .is_some_and(|v| v.attrs.has(Attrs::EXPORT))
        {
            let live = self.option_list("SHELLOPTS").unwrap_or_default();
            for name in live.split(':') {
                child.opts.set_set_option(name, true);
            }
        }
        child.vars = vars;
        child
    }

    /// True when `pwd` (a child's inherited `PWD`) names this shell's
    /// directory, as bash checks at startup.
    fn pwd_names_cwd(&self, pwd: Option<&str>) -> bool {
        let Some(pwd) = pwd.filter(|p| p.starts_with('/')) else {
            return false;
        };
        pwd == self.cwd || self.fs.canonicalize(pwd).ok() == self.fs.canonicalize(&self.cwd).ok()
    }

    /// Runs a script of the virtual tree (`./f.sh`, a name found on `PATH`).
    fn run_script_file(
        &mut self,
        path: &str,
        argv: &[String],
        env: &[(String, String)],
    ) -> ExecResult {
        let name = &argv[0];
        if path.split('/').any(|c| c.len() > 255) {
            self.shell_error(format_args!("{name}: File name too long"));
            return Ok(126);
        }
        let meta = match self.fs.metadata(path) {
            Ok(m) => m,
            Err(e) => {
                self.shell_error(format_args!("{name}: {e}"));
                return Ok(127);
            }
        };
        if meta.kind == FileKind::Dir {
            self.shell_error(format_args!("{name}: Is a directory"));
            return Ok(126);
        }
        if meta.mode & 0o111 == 0 {
            self.shell_error(format_args!("{name}: Permission denied"));
            return Ok(126);
        }
        let data = match self.fs.read(path) {
            Ok(d) => d,
            Err(e) => {
                self.shell_error(format_args!("{name}: {e}"));
                return Ok(126);
            }
        };
        if is_binary(&data) {
            self.shell_error(format_args!(
                "{name}: cannot execute binary file: Exec format error"
            ));
            return Ok(126);
        }
        let text = script_file_text(crate::bytes::decode(&data));
        if let Some(first) = text.lines().next()
            && let Some(interp) = first.strip_prefix("#!")
        {
            let mut parts = interp.split_whitespace();
            let mut prog = parts.next().unwrap_or("");
            if prog.ends_with("/env") {
                prog = parts.next().unwrap_or("");
            }
            let base = prog.rsplit('/').next().unwrap_or(prog);
            if base != "bash" && base != "sh" {
                // Another interpreter: run it with the script as argument.
                let mut args = vec![prog.to_string()];
                args.extend(parts.map(str::to_string));
                args.push(path.to_string());
                args.extend(argv[1..].iter().cloned());
                if self.find_program(&args[0]).is_none() {
                    self.shell_error(format_args!(
                        "{name}: {prog}: bad interpreter: No such file or directory"
                    ));
                    return Ok(126);
                }
                return self.run_program(&args, env);
            }
        }
        let mut child = self.new_process(env);
        child.arg0 = name.clone();
        child.positional = argv[1..].to_vec();
        child.script_name = Some(name.clone());
        Ok(child.run_as_process(&text))
    }

    /// Runs `text` as the whole input of a shell process; returns its status.
    pub(crate) fn run_as_process(&mut self, text: &str) -> i32 {
        if self.subshell_depth as usize > self.control.limits.max_call_depth {
            self.control.trip(crate::limits::LimitKind::CallDepth);
            return 124;
        }
        let r = self.run_source(text);
        let status = match r {
            Ok(s) => s,
            Err(Interrupt::Exit(s)) | Err(Interrupt::Return(s)) | Err(Interrupt::Discard(s)) => s,
            Err(Interrupt::Limit(_)) => return 124,
            Err(_) => self.last_status,
        };
        self.last_status = status;
        if self.run_exit_trap().is_err() {
            return 124;
        }
        self.last_status
    }

    /// `bash ARGS` / `sh ARGS`: `-c SCRIPT [ARG0 ARGS]`, `FILE ARGS`, or a
    /// script on stdin; `-e -x -u -v -o NAME` set options.
    fn run_shell(&mut self, argv: &[String], env: &[(String, String)]) -> ExecResult {
        let mut child = self.new_process(env);
        let mut i = 1;
        let mut command: Option<String> = None;
        let mut read_stdin = false;
        let mut interactive = false;
        let mut rcfile: Option<String> = None;
        let mut norc = false;
        while i < argv.len() {
            let a = &argv[i];
            if a == "--" || a == "-" {
                i += 1;
                break;
            }
            if a == "-c" {
                command = Some(String::new());
                i += 1;
                continue;
            }
            if a == "-s" {
                read_stdin = true;
                i += 1;
                continue;
            }
            if a == "-O" || a == "+O" {
                if let Some(name) = argv.get(i + 1) {
                    child.opts.set_shopt(name, a == "-O");
                }
                i += 2;
                continue;
            }
            if a == "--rcfile" || a == "--init-file" {
                rcfile = argv.get(i + 1).cloned();
                i += 2;
                continue;
            }
            if a == "-i" {
                interactive = true;
                i += 1;
                continue;
            }
            if a == "--norc" {
                norc = true;
                i += 1;
                continue;
            }
            if a == "-o" || a == "+o" {
                if let Some(name) = argv.get(i + 1) {
                    child.opts.set_set_option(name, a == "-o");
                }
                i += 2;
                continue;
            }
            if a == "--noprofile" || a == "--posix" || a == "-l" || a == "--login" {
                i += 1;
                continue;
            }
            if a == "--help" {
                let _ = self.write_fd(
                    1,
                    b"GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\nUsage:\tbash [GNU long option] [option] ...\n\tbash [GNU long option] [option] script-file ...\n",
                );
                return Ok(0);
            }
            if a == "--version" {
                let _ = self.write_fd(
                    1,
                    b"GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\n",
                );
                return Ok(0);
            }
            if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
                let on = a.starts_with('-');
                for c in a[1..].chars() {
                    if c == 'c' {
                        command = Some(String::new());
                        continue;
                    }
                    if c == 's' {
                        read_stdin = true;
                        continue;
                    }
                    if c == 'i' {
                        interactive = true;
                        continue;
                    }
                    if let Some(name) = super::options::Options::flag_name(c) {
                        child.opts.set_set_option(name, on);
                    } else {
                        self.shell_error(format_args!("-{c}: invalid option"));
                        return Ok(2);
                    }
                }
                i += 1;
                continue;
            }
            break;
        }
        let rest = &argv[i.min(argv.len())..];
        if interactive && let Err(status) = child.start_interactive(rcfile.as_deref(), norc) {
            return Ok(status);
        }
        if command.is_some() {
            let Some(script) = rest.first() else {
                self.shell_error("-c: option requires an argument");
                return Ok(2);
            };
            child.arg0 = rest.get(1).cloned().unwrap_or_else(|| argv[0].clone());
            child.positional = rest.iter().skip(2).cloned().collect();
            child.script_name = None;
            child.dash_c = true;
            return Ok(child.run_as_process(script));
        }
        if !read_stdin && let Some(file) = rest.first() {
            let path = Fs::resolve(&self.cwd, file);
            let data = match self.fs.read(&path) {
                Ok(d) => d,
                Err(e) => {
                    self.shell_error(format_args!("{file}: {e}"));
                    return Ok(127);
                }
            };
            if is_binary(&data) {
                let msg = format!("{file}: {file}: cannot execute binary file\n");
                let _ = self.write_fd(2, msg.as_bytes());
                return Ok(126);
            }
            child.arg0 = file.clone();
            child.positional = rest[1..].to_vec();
            child.script_name = Some(file.clone());
            let text = script_file_text(crate::bytes::decode(&data));
            return Ok(child.run_as_process(&text));
        }
        // The script comes from stdin.
        let mut data = Vec::new();
        let mut reader = HandleReader(self.fds.get(0).cloned());
        let _ = reader.read_to_end(&mut data);
        child.fds.set(0, Some(Handle::Null));
        child.arg0 = argv[0].clone();
        child.positional = rest.to_vec();
        child.script_name = None;
        let text = script_file_text(crate::bytes::decode(&data));
        if child.interactive {
            return Ok(child.run_interactive(&text));
        }
        Ok(child.run_as_process(&text))
    }
}

/// bash's `check_binary_file`: a NUL byte in the first line (of the first
/// 80 bytes) makes a file binary, which bash refuses to run as a script.
fn is_binary(data: &[u8]) -> bool {
    let sample = &data[..data.len().min(80)];
    let line = sample.split(|b| *b == b'\n').next().unwrap_or_default();
    line.contains(&0)
}

/// Script text with its NUL bytes dropped, as bash reads it, and from a
/// file, a backslash at its very end dropped too (a `-c` string, `eval`
/// and `source` keep it).
fn script_file_text(text: String) -> String {
    let mut text = without_nuls(text);
    if super::parse::ends_in_lone_backslash(&text) {
        text.pop();
    }
    text
}

/// Text with its NUL bytes dropped, as bash reads scripts.
pub(crate) fn without_nuls(text: String) -> String {
    if text.contains('\0') {
        text.replace('\0', "")
    } else {
        text
    }
}

thread_local! {
    static EXTRA_FDS: std::cell::RefCell<Option<FdTable>> = const { std::cell::RefCell::new(None) };
}

/// For embedder programs ([`crate::ShellConfig::command`]) while they
/// run: reads descriptor `fd` of the calling shell to its end (`None`: not open).
pub fn read_caller_fd(fd: i32) -> Option<Vec<u8>> {
    let h = EXTRA_FDS.with(|c| c.borrow().as_ref().and_then(|t| t.get(fd).cloned()))?;
    let mut out = Vec::new();
    let _ = HandleReader(Some(h)).read_to_end(&mut out);
    Some(out)
}

/// Runs programs for commands (`xargs`, `find -exec`, `env`, `timeout`).
struct ProgramRunner<'a> {
    base: &'a Interp,
}

impl Exec for ProgramRunner<'_> {
    fn processes(&self) -> Vec<crate::commands::ProcessEntry> {
        use crate::commands::ProcessEntry;
        let shell = u32::try_from(super::expand::special::SHELL_PID).unwrap_or(1);
        let mut all = vec![ProcessEntry::new(shell, 1, "bash")];
        for job in self.base.jobs.running() {
            all.push(ProcessEntry::new(job.pid, shell, job.command));
        }
        all
    }

    fn exec(&mut self, req: ExecRequest<'_>) -> i32 {
        let ExecRequest {
            argv,
            env,
            cwd,
            stdin,
            stdout,
            stderr,
            mode,
        } = req;
        if argv.is_empty() {
            return 0;
        }
        let input = Borrowed::reader(stdin);
        let output = Borrowed::writer(stdout);
        let errors = Borrowed::writer(stderr);
        let parent = self.base.control.clone();
        let mut nested = None;
        let status = {
            let mut child = self.base.clone();
            // Its jobs end before the borrowed streams are taken back, so
            // nothing they print is lost (bash would let them run on).
            child.jobs = Default::default();
            child.funcs.clear();
            child.cwd = cwd.to_string();
            let mut fds = FdTable::default();
            fds.set(0, Some(Handle::Borrowed(input.clone())));
            fds.set(1, Some(Handle::Borrowed(output.clone())));
            fds.set(2, Some(Handle::Borrowed(errors.clone())));
            child.fds = fds;
            match mode {
                ExecMode::Inherit => {}
                ExecMode::Complete => {
                    // Nothing the caller exported reaches the program.
                    for name in child.vars.names() {
                        if let Some(v) = child.vars.get_raw_mut(&name) {
                            v.attrs.remove(Attrs::EXPORT);
                        }
                    }
                }
                ExecMode::Deadline(d) => {
                    // A nested control block: same limits, clock and seed,
                    // the earlier of the two deadlines.
                    let deadline = parent.deadline.map_or(d, |p| p.min(d));
                    let control = std::sync::Arc::new(crate::control::RunControl::new(
                        parent.limits.clone(),
                        parent.clock,
                        Some(deadline),
                        parent.seed,
                    ));
                    child.control = control.clone();
                    nested = Some(control);
                }
            }
            for (k, v) in env {
                let _ = child.vars.set(k, Value::Str(v.clone()));
                if let Some(var) = child.vars.get_raw_mut(k) {
                    var.attrs.insert(Attrs::EXPORT);
                }
            }
            match child.run_program(argv, &[]) {
                Ok(s) => s,
                Err(Interrupt::Exit(s)) | Err(Interrupt::Discard(s)) => s,
                Err(_) => 124,
            }
        };
        input.revoke();
        output.revoke();
        errors.revoke();
        if let Some(control) = nested
            && let Some(kind) = control.tripped()
        {
            // The nested deadline is the sub-command's own business; any
            // other limit (or the run's deadline) ends the whole run.
            if kind != crate::limits::LimitKind::Timeout || parent.check().is_err() {
                parent.trip(kind);
            }
            return 124;
        }
        status
    }
}
