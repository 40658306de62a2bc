//! Input read as sqlite3 reads a script (stdin, `.read FILE`, `-init`):
//! line by line; a line starting with `.` outside a statement is a
//! dot-command, `#` a comment; SQL lines gather until they make complete
//! statements (`sqlite3_complete`), which then run together. An error is
//! reported with the line the statement began on and the input goes on
//! (unless `-bail`).

use std::ffi::CString;
use std::io::Write;

use rusqlite::ffi;

use crate::session::{Failure, Session, SqlError, Target};

/// Whether `sql` ends with a complete statement.
fn complete(sql: &str) -> bool {
    let Ok(c) = CString::new(sql.replace('\0', " ") + "\n") else {
        return false;
    };
    // SAFETY: a NUL-terminated string.
    unsafe { ffi::sqlite3_complete(c.as_ptr()) != 0 }
}

/// Runs `text` as a script; the number of errors, or how it had to stop.
pub fn process(s: &mut Session<'_, '_>, text: &str) -> Result<usize, Failure> {
    let mut errors = 0usize;
    let mut sql = String::new();
    let mut start_line = 0usize;
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        if sql.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            if line.starts_with('.') {
                if s.echo {
                    let _ = writeln!(s.out, "{line}");
                }
                let r = crate::dot::run(s, line);
                s.flush();
                match r {
                    Ok(()) => {}
                    Err(Failure::Status(_)) => {
                        errors += 1;
                        if s.bail {
                            return Ok(errors);
                        }
                    }
                    Err(other) => return Err(other),
                }
                continue;
            }
            if line.starts_with('#') {
                continue;
            }
            start_line = lineno;
        }
        if !sql.is_empty() {
            sql.push('\n');
        }
        sql.push_str(line);
        if complete(&sql) {
            let chunk = std::mem::take(&mut sql);
            if run_chunk(s, &chunk, start_line)? {
                errors += 1;
                if s.bail {
                    return Ok(errors);
                }
            }
        }
    }
    if !sql.trim().is_empty() && run_chunk(s, &sql, start_line)? {
        errors += 1;
    }
    Ok(errors)
}

/// Runs one gathered chunk of SQL; whether it failed.
fn run_chunk(s: &mut Session<'_, '_>, sql: &str, start_line: usize) -> Result<bool, Failure> {
    if s.echo {
        let _ = write!(s.out, "{sql}");
    }
    let r = s.run_sql(sql);
    s.flush();
    if s.once {
        s.once = false;
        s.redirect(Target::Stdout);
    }
    match r {
        Ok(()) => Ok(false),
        Err(SqlError::Limit(k)) => Err(Failure::Limit(k)),
        Err(SqlError::Open(f)) => Err(f),
        Err(e) => {
            let text = e.text();
            let (kind, tail) = if let Some(t) = text.strip_prefix("in prepare, ") {
                ("Parse error", t)
            } else if let Some(t) = text.strip_prefix("stepping, ") {
                ("Runtime error", t)
            } else {
                ("Error", text.as_str())
            };
            let _ = writeln!(s.ctx.stderr, "{kind} near line {start_line}: {tail}");
            Ok(true)
        }
    }
}
