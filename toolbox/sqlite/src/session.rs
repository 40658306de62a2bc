//! One `sqlite3` invocation: the open database, the display settings, where
//! output goes, and the running of SQL text and input streams as sqlite3
//! runs them (statement by statement, errors in its words and statuses).

use std::ffi::{c_int, c_void};

use rusqlite::{Connection, OpenFlags, ffi};
use sandkeep_shell::{CommandCtx, LimitKind};

use crate::raw;
use crate::render::{Renderer, Settings, Value};

/// Where query output goes.
pub enum Target {
    /// The command's stdout.
    Stdout,
    /// A sandbox file (`.output FILE`, `.once FILE`): created when named,
    /// appended to at each flush.
    File(String),
}

/// How running something ended when it did not succeed.
#[derive(Debug)]
pub enum Failure {
    /// An error already reported; the status sqlite3 exits with.
    Status(i32),
    /// `.quit` / `.exit N`: stop with this status.
    Exit(i32),
    /// A limit of the run (deadline, memory) stopped the work.
    Limit(LimitKind),
}

/// The state of one invocation.
pub struct Session<'a, 'c> {
    /// The command's context (streams, filesystem, limits).
    pub ctx: &'a mut CommandCtx<'c>,
    /// The database as named on the command line (`None`: in memory).
    pub db_name: Option<String>,
    /// Open read-only (`-readonly`).
    pub read_only: bool,
    conn: Option<Connection>,
    /// Display settings.
    pub settings: Settings,
    /// Stop at the first error (`-bail`, `.bail on`).
    pub bail: bool,
    /// Print input before running it (`-echo`, `.echo on`).
    pub echo: bool,
    /// Output not yet written.
    pub out: Vec<u8>,
    /// Where output goes.
    pub target: Target,
    /// `.once` is in force: back to stdout after the next SQL.
    pub once: bool,
    /// The control block pointer handed to SQLite's progress handler.
    control_ptr: *const sandkeep_shell::RunControl,
}

/// SQLite's progress handler: a non-zero return interrupts the statement.
/// Called every [`PROGRESS_STEPS`] virtual-machine steps.
unsafe extern "C" fn progress(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the session's RunControl, alive while the connection
    // is (the session closes the connection before the context ends).
    let control = unsafe { &*(arg as *const sandkeep_shell::RunControl) };
    c_int::from(control.check().is_err())
}

const PROGRESS_STEPS: c_int = 10_000;

impl<'a, 'c> Session<'a, 'c> {
    /// A session over `ctx`, nothing opened yet.
    pub fn new(ctx: &'a mut CommandCtx<'c>) -> Session<'a, 'c> {
        let control_ptr = ctx.control as *const _;
        Session {
            ctx,
            db_name: None,
            read_only: false,
            conn: None,
            settings: Settings::default(),
            bail: false,
            echo: false,
            out: Vec::new(),
            target: Target::Stdout,
            once: false,
            control_ptr,
        }
    }

    /// The database file's sandbox path (`None`: in memory).
    pub fn db_path(&self) -> Option<String> {
        match self.db_name.as_deref() {
            None | Some("") | Some(":memory:") => None,
            Some(name) => Some(self.ctx.path(name)),
        }
    }

    /// The open connection, opening the database on first use as sqlite3
    /// does; `Err` with the status after reporting why it could not.
    pub fn conn(&mut self) -> Result<&Connection, Failure> {
        if self.conn.is_none() {
            let conn = self.open()?;
            self.conn = Some(conn);
        }
        Ok(self.conn.as_ref().expect("opened above"))
    }

    fn open(&mut self) -> Result<Connection, Failure> {
        if let Err(rc) = crate::engine::init() {
            let _ = writeln!(
                self.ctx.stderr,
                "Error: the embedded SQLite could not start (code {rc})"
            );
            return Err(Failure::Status(1));
        }
        let mut flags = OpenFlags::SQLITE_OPEN_NO_MUTEX;
        flags |= if self.read_only {
            OpenFlags::SQLITE_OPEN_READ_ONLY
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        };
        let name = self.db_path().unwrap_or_else(|| ":memory:".to_string());
        let conn = match Connection::open_with_flags(&name, flags) {
            Ok(c) => c,
            Err(e) => {
                let shown = self.db_name.clone().unwrap_or_default();
                let _ = writeln!(
                    self.ctx.stderr,
                    "Error: unable to open database \"{shown}\": {}",
                    open_error_message(&e)
                );
                return Err(Failure::Status(1));
            }
        };
        // SAFETY: the handle is live; the pointer stays valid while the
        // connection is (see `progress`).
        unsafe {
            let db = conn.handle();
            ffi::sqlite3_progress_handler(
                db,
                PROGRESS_STEPS,
                Some(progress),
                self.control_ptr as *mut c_void,
            );
            // Strings and blobs no larger than what is left of the run's
            // memory budget (SQLite's own default cap is 1 GB).
            let account = self.ctx.control.memory();
            let left = account
                .limit()
                .saturating_sub(u64::try_from(account.used()).unwrap_or(0));
            let cap = left.clamp(1 << 20, 1_000_000_000) as c_int;
            ffi::sqlite3_limit(db, ffi::SQLITE_LIMIT_LENGTH, cap);
            ffi::sqlite3_db_config(
                db,
                ffi::SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
                0 as c_int,
                std::ptr::null_mut::<c_int>(),
            );
        }
        // The bundled library turns foreign keys on by default; sqlite3's
        // CLI leaves SQLite's default (off).
        let _ = conn.execute_batch("PRAGMA foreign_keys=OFF");
        // generate_series, as the sqlite3 shell has it built in.
        let _ = rusqlite::vtab::series::load_module(&conn);
        Ok(conn)
    }

    /// Closes the database, writing back what it holds.
    pub fn close(&mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = conn.close();
        }
    }

    /// Switches to another database (`.open`).
    pub fn reopen(&mut self, name: Option<String>) {
        self.close();
        self.db_name = name;
    }

    /// Writes pending output to its target.
    pub fn flush(&mut self) {
        if self.out.is_empty() {
            return;
        }
        match &self.target {
            Target::Stdout => {
                let _ = self.ctx.stdout.write_all(&self.out);
                let _ = self.ctx.stdout.flush();
            }
            Target::File(path) => {
                let _ = self.ctx.fs.append(path, &self.out);
            }
        }
        self.out.clear();
    }

    /// Flushes when a stdio buffer would (sqlite3's stdout is fully
    /// buffered on a pipe).
    fn maybe_flush(&mut self) {
        if self.out.len() >= 4096 {
            self.flush();
        }
    }

    /// Sends output to `target` from now on.
    pub fn redirect(&mut self, target: Target) {
        self.flush();
        self.target = target;
    }

    /// Runs SQL text (one command-line argument or one input chunk):
    /// statement after statement, stopping at the first error, which is
    /// returned as (message, primary result code) without being printed.
    pub fn run_sql(&mut self, sql: &str) -> Result<(), SqlError> {
        self.conn().map_err(SqlError::Open)?;
        let mut rest = sql;
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                return Ok(());
            }
            let conn = self.conn.as_ref().expect("opened above");
            // SAFETY: the connection is open for the whole call.
            let db = unsafe { conn.handle() };
            let (mut stmt, consumed) = match raw::prepare(db, rest) {
                Ok((Some(stmt), consumed)) => (stmt, consumed),
                Ok((None, _)) => return Ok(()),
                Err(e) => {
                    if let Some(kind) = self.ctx.control.tripped() {
                        return Err(SqlError::Limit(kind));
                    }
                    return Err(SqlError::Sql {
                        phase: "in prepare",
                        message: e.message,
                        code: e.code,
                        context: e.offset.map(|o| error_context(rest, o)),
                    });
                }
            };
            if stmt.is_query_plan() {
                let mut plan = Vec::new();
                let r = loop {
                    match stmt.step() {
                        Ok(Some(values)) => plan.push(values),
                        Ok(None) => break Ok(()),
                        Err(e) => break Err(e),
                    }
                };
                drop(stmt);
                if let Err(e) = r {
                    return Err(SqlError::Sql {
                        phase: "stepping",
                        message: e.message,
                        code: e.code,
                        context: None,
                    });
                }
                self.out.extend_from_slice(query_plan(&plan).as_bytes());
                rest = &rest[consumed..];
                continue;
            }
            let names = stmt.column_names();
            let settings = self.settings.clone();
            let mut renderer = Renderer::new(&settings, names);
            let step_result = loop {
                match stmt.step() {
                    Ok(Some(values)) => {
                        let _ = renderer.row(&mut self.out, values);
                        if self.out.len() >= 4096 {
                            self.flush();
                        }
                    }
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
            let _ = renderer.finish(&mut self.out);
            drop(stmt);
            self.maybe_flush();
            if let Err(e) = step_result {
                if let Some(kind) = self.ctx.control.tripped() {
                    return Err(SqlError::Limit(kind));
                }
                return Err(SqlError::Sql {
                    phase: "stepping",
                    message: e.message,
                    code: e.code,
                    context: None,
                });
            }
            rest = &rest[consumed..];
        }
    }

    /// A query's rows as values (for the dot-commands' own queries).
    pub fn query(&mut self, sql: &str) -> Result<Vec<Vec<Value>>, SqlError> {
        let conn = self.conn().map_err(SqlError::Open)?;
        let mut stmt = conn.prepare(sql).map_err(|e| {
            let (message, code) = error_parts(&e);
            SqlError::Sql {
                phase: "in prepare",
                message,
                code,
                context: None,
            }
        })?;
        let n = stmt.column_count();
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        loop {
            match rows.next() {
                Ok(Some(row)) => out.push(
                    (0..n)
                        .map(|i| row.get_ref(i).map(Value::from_ref).unwrap_or(Value::Null))
                        .collect(),
                ),
                Ok(None) => return Ok(out),
                Err(e) => {
                    let (message, code) = error_parts(&e);
                    return Err(SqlError::Sql {
                        phase: "stepping",
                        message,
                        code,
                        context: None,
                    });
                }
            }
        }
    }
}

/// `EXPLAIN QUERY PLAN` rows (id, parent, unused, detail) drawn as
/// sqlite3 draws them: `QUERY PLAN`, then a tree of `|--` and `` `-- ``.
fn query_plan(rows: &[Vec<Value>]) -> String {
    let int = |v: &Value| match v {
        Value::Integer(i) => *i,
        _ => 0,
    };
    let text = |v: &Value| match v {
        Value::Text(t) => String::from_utf8_lossy(t).into_owned(),
        _ => String::new(),
    };
    let nodes: Vec<(i64, i64, String)> = rows
        .iter()
        .filter(|r| r.len() >= 4)
        .map(|r| (int(&r[0]), int(&r[1]), text(&r[3])))
        .collect();
    fn draw(
        nodes: &[(i64, i64, String)],
        parent: i64,
        prefix: &str,
        out: &mut String,
        depth: usize,
    ) {
        if depth > 100 {
            return;
        }
        let kids: Vec<&(i64, i64, String)> = nodes.iter().filter(|n| n.1 == parent).collect();
        for (i, (id, _, detail)) in kids.iter().enumerate() {
            let last = i + 1 == kids.len();
            out.push_str(&format!(
                "{prefix}{}{detail}\n",
                if last { "`--" } else { "|--" }
            ));
            let deeper = format!("{prefix}{}", if last { "   " } else { "|  " });
            draw(nodes, *id, &deeper, out, depth + 1);
        }
    }
    let mut out = String::from("QUERY PLAN\n");
    draw(&nodes, 0, "", &mut out, 0);
    out
}

/// Why SQL text failed.
#[derive(Debug)]
pub enum SqlError {
    /// The database could not be opened (already reported).
    Open(Failure),
    /// SQLite refused or failed a statement.
    Sql {
        /// `in prepare` or `stepping`, as sqlite3 names the phase.
        phase: &'static str,
        /// SQLite's message.
        message: String,
        /// The primary result code.
        code: i32,
        /// The statement with a caret under the error, when SQLite knows where.
        context: Option<String>,
    },
    /// A limit of the run interrupted it.
    Limit(LimitKind),
}

impl SqlError {
    /// sqlite3's text after `Error: ` (phase, message, code when > 1, context).
    pub fn text(&self) -> String {
        match self {
            SqlError::Sql {
                phase,
                message,
                code,
                context,
            } => {
                let mut s = format!("{phase}, {message}");
                if *code > 1 {
                    s.push_str(&format!(" ({code})"));
                }
                if let Some(c) = context {
                    s.push_str(c);
                }
                s
            }
            SqlError::Open(_) => String::new(),
            SqlError::Limit(kind) => format!("stopped: {kind} reached"),
        }
    }

    /// The exit status sqlite3 gives this error on the command line.
    pub fn status(&self) -> i32 {
        match self {
            SqlError::Sql { code, .. } => (*code).max(1),
            SqlError::Open(Failure::Status(s)) => *s,
            SqlError::Open(_) => 1,
            SqlError::Limit(kind) => kind.exit_status(),
        }
    }
}

/// SQLite's message and primary code of a rusqlite error.
pub fn error_parts(e: &rusqlite::Error) -> (String, i32) {
    match e {
        rusqlite::Error::SqliteFailure(err, msg) => (
            msg.clone().unwrap_or_else(|| err.to_string()),
            err.extended_code & 0xff,
        ),
        rusqlite::Error::SqlInputError { error, msg, .. } => {
            (msg.clone(), error.extended_code & 0xff)
        }
        other => (other.to_string(), 1),
    }
}

/// Why an open failed, in SQLite's generic words for the code (rusqlite
/// adds the path, sqlite3 does not).
fn open_error_message(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(err, _) => {
            // SAFETY: sqlite3_errstr returns a static string for any code.
            unsafe { std::ffi::CStr::from_ptr(ffi::sqlite3_errstr(err.extended_code)) }
                .to_string_lossy()
                .into_owned()
        }
        other => error_parts(other).0,
    }
}

/// sqlite3's picture of where an error is: the statement text (at most 78
/// bytes, the error within its first 50), whitespace made spaces, and a
/// caret line.
pub fn error_context(sql: &str, offset: usize) -> String {
    let mut start = 0usize;
    let mut off = offset.min(sql.len());
    let bytes = sql.as_bytes();
    while off > 50 {
        off -= 1;
        start += 1;
        while start < bytes.len() && (bytes[start] & 0xc0) == 0x80 {
            start += 1;
            off = off.saturating_sub(1);
        }
    }
    let rest = &bytes[start.min(bytes.len())..];
    let mut len = rest.len().min(78);
    while len > 0 && len < rest.len() && (rest[len] & 0xc0) == 0x80 {
        len -= 1;
    }
    let code: String = String::from_utf8_lossy(&rest[..len])
        .chars()
        .map(|c| if c.is_ascii_whitespace() { ' ' } else { c })
        .collect();
    if off < 25 {
        format!("\n  {code}\n  {}^--- error here", " ".repeat(off))
    } else {
        format!("\n  {code}\n  {}error here ---^", " ".repeat(off - 14))
    }
}
