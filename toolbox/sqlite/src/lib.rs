//! `sqlite3` for sandkeep's local sandbox: the command-line shell of SQLite
//! on the real SQLite engine (rusqlite's bundled library, compiled in),
//! over database files that live in the sandbox's virtual filesystem.
//!
//! The files it writes are ordinary SQLite databases: the host's `sqlite3`
//! and Python's `sqlite3` module read them, and it reads theirs. SQL can
//! name files (`ATTACH`, `VACUUM INTO`) only inside the sandbox: the one
//! VFS SQLite has in this process serves the sandbox ([`vfs`]). A statement
//! that never ends stops at the run's deadline (SQLite's progress handler
//! checks the run), and SQLite's memory is charged to the run's budget.
//!
//! ```
//! use sandkeep_shell::{RunOptions, Shell, ShellConfig};
//! let shell = Shell::new(sandkeep_sqlite::install(ShellConfig::default()));
//! let out = shell.run(
//!     "sqlite3 app.db 'create table t(x); insert into t values (1),(2)'; sqlite3 -csv app.db 'select sum(x) from t'",
//!     RunOptions::default(),
//! );
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "3\n");
//! ```

pub mod dot;
mod engine;
pub mod import;
mod input;
pub mod options;
mod raw;
pub mod render;
pub mod session;
pub mod vfs;

use sandkeep_shell::{CommandCtx, ShellConfig};

use options::{Action, UsageError};
use session::{Failure, Session, SqlError};

/// Adds `sqlite3` to a shell configuration.
pub fn install(config: ShellConfig) -> ShellConfig {
    config.command("sqlite3", sqlite3)
}

/// The engine's version line, as `sqlite3 -version` prints it.
pub fn version() -> String {
    format!("{} {}", rusqlite::version(), source_id())
}

fn source_id() -> String {
    // SAFETY: SQLite returns a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(rusqlite::ffi::sqlite3_sourceid()) }
        .to_string_lossy()
        .into_owned()
}

/// The `sqlite3` command.
pub fn sqlite3(ctx: &mut CommandCtx<'_>) -> i32 {
    let args = ctx.args.get(1..).unwrap_or_default().to_vec();
    let line = match options::parse(&args) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "sqlite3: Error: {e}");
            if matches!(e, UsageError::Unknown(_)) {
                let _ = writeln!(ctx.stderr, "Use -help for a list of options.");
            }
            return 1;
        }
    };
    if line.options.iter().any(|(a, _)| *a == Action::Help) {
        let _ = ctx.stderr.write_all(options::help().as_bytes());
        return 1;
    }
    if line.options.iter().any(|(a, _)| *a == Action::Version) {
        let _ = writeln!(ctx.stdout, "{}", version());
        return 0;
    }
    let _entered = engine::enter(vfs::Context {
        fs: ctx.fs.clone(),
        cwd: ctx.cwd.to_string(),
        clock: ctx.control.clock,
        seed: ctx.control.seed,
    });
    let mut s = Session::new(ctx);
    s.db_name = line.database.clone();
    let mut cmds = Vec::new();
    let mut inits = Vec::new();
    for (action, value) in &line.options {
        let value = value.clone().unwrap_or_default();
        match action {
            Action::Mode(m) => s.settings.set_mode(*m),
            Action::Headers(on) => s.settings.headers = *on,
            Action::Bail => s.bail = true,
            Action::Cmd => cmds.push(value),
            Action::Init => inits.push(value),
            Action::Separator => s.settings.col_sep = value,
            Action::Newline => s.settings.row_sep = value,
            Action::NullValue => s.settings.null_value = value,
            Action::ReadOnly => s.read_only = true,
            Action::Echo => s.echo = true,
            _ => {}
        }
    }
    let status = match run(&mut s, &inits, &cmds, &line.commands) {
        Ok(status) => status,
        Err(Failure::Exit(code)) => code,
        Err(Failure::Status(code)) => code,
        Err(Failure::Limit(kind)) => {
            s.flush();
            let _ = writeln!(s.ctx.stderr, "sqlite3: stopped: {kind} reached");
            kind.exit_status()
        }
    };
    s.flush();
    s.close();
    status
}

/// Reports a command-line SQL error as sqlite3 does; its status.
fn report(s: &mut Session<'_, '_>, e: SqlError) -> Result<i32, Failure> {
    match e {
        SqlError::Limit(k) => Err(Failure::Limit(k)),
        SqlError::Open(f) => Err(f),
        e => {
            let _ = writeln!(s.ctx.stderr, "Error: {}", e.text());
            Ok(e.status())
        }
    }
}

fn run(
    s: &mut Session<'_, '_>,
    inits: &[String],
    cmds: &[String],
    commands: &[String],
) -> Result<i32, Failure> {
    for file in inits {
        let path = s.ctx.path(file);
        if let Ok(data) = s.ctx.fs.read(&path) {
            input::process(s, &String::from_utf8_lossy(&data))?;
        }
    }
    for c in cmds {
        if c.starts_with('.') {
            match dot::run(s, c) {
                Ok(()) => {}
                Err(Failure::Status(code)) if s.bail => return Ok(code),
                Err(Failure::Status(_)) => {}
                Err(f) => return Err(f),
            }
        } else if let Err(e) = s.run_sql(c) {
            let status = report(s, e)?;
            if s.bail {
                return Ok(status);
            }
        }
    }
    if !commands.is_empty() {
        for c in commands {
            if c.starts_with('.') {
                dot::run(s, c)?;
            } else if let Err(e) = s.run_sql(c) {
                return report(s, e);
            }
        }
        return Ok(0);
    }
    let mut buf = Vec::new();
    let _ = s.ctx.stdin.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let errors = input::process(s, &text)?;
    Ok(if errors > 0 { 1 } else { 0 })
}
