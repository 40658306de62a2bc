//! Statements through SQLite's C API directly: sqlite3 runs SQL text one
//! statement at a time, needing where each statement ends (the tail) and
//! where an error is (`sqlite3_error_offset`), which rusqlite's `Batch`
//! keeps to itself.

use std::ffi::{CStr, c_char, c_int};

use rusqlite::ffi;

use crate::render::Value;

/// A failed prepare or step: SQLite's message, primary code and, for a
/// prepare, the byte offset of the error in the text when SQLite knows it.
#[derive(Debug)]
pub struct RawError {
    /// SQLite's message.
    pub message: String,
    /// The primary result code.
    pub code: i32,
    /// Where in the statement text the error is.
    pub offset: Option<usize>,
}

/// A prepared statement, finalized on drop.
pub struct Stmt {
    db: *mut ffi::sqlite3,
    stmt: *mut ffi::sqlite3_stmt,
}

fn errmsg(db: *mut ffi::sqlite3) -> String {
    // SAFETY: a live handle; SQLite owns the returned string.
    unsafe {
        let p = ffi::sqlite3_errmsg(db);
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// Prepares the first statement of `sql`: the statement (`None` when only
/// blanks and comments were left) and the bytes of `sql` it used.
pub fn prepare(db: *mut ffi::sqlite3, sql: &str) -> Result<(Option<Stmt>, usize), RawError> {
    let mut stmt = std::ptr::null_mut();
    let mut tail: *const c_char = std::ptr::null();
    let Ok(len) = c_int::try_from(sql.len()) else {
        return Err(RawError {
            message: "string or blob too big".into(),
            code: ffi::SQLITE_TOOBIG,
            offset: None,
        });
    };
    // SAFETY: `sql` is live for the call and its length is given; `tail`
    // points into it afterwards.
    let rc = unsafe { ffi::sqlite3_prepare_v2(db, sql.as_ptr().cast(), len, &mut stmt, &mut tail) };
    if rc != ffi::SQLITE_OK {
        // SAFETY: a live handle.
        let off = unsafe { ffi::sqlite3_error_offset(db) };
        return Err(RawError {
            message: errmsg(db),
            code: rc & 0xff,
            offset: usize::try_from(off).ok(),
        });
    }
    let used = if tail.is_null() {
        sql.len()
    } else {
        (tail as usize)
            .saturating_sub(sql.as_ptr() as usize)
            .min(sql.len())
    };
    if stmt.is_null() {
        return Ok((None, used));
    }
    Ok((Some(Stmt { db, stmt }), used))
}

impl Stmt {
    /// The result columns' names.
    pub fn column_names(&self) -> Vec<String> {
        // SAFETY: a live statement.
        let n = unsafe { ffi::sqlite3_column_count(self.stmt) };
        (0..n)
            .map(|i| {
                // SAFETY: `i` is a valid column index.
                unsafe {
                    let p = ffi::sqlite3_column_name(self.stmt, i);
                    if p.is_null() {
                        String::new()
                    } else {
                        CStr::from_ptr(p).to_string_lossy().into_owned()
                    }
                }
            })
            .collect()
    }

    /// Whether this is `EXPLAIN QUERY PLAN` (sqlite3 draws those as a tree).
    pub fn is_query_plan(&self) -> bool {
        // SAFETY: a live statement.
        unsafe { ffi::sqlite3_stmt_isexplain(self.stmt) == 2 }
    }

    /// Steps once: the next row, `None` at the end.
    pub fn step(&mut self) -> Result<Option<Vec<Value>>, RawError> {
        // SAFETY: a live statement.
        let rc = unsafe { ffi::sqlite3_step(self.stmt) };
        match rc {
            ffi::SQLITE_ROW => Ok(Some(self.row())),
            ffi::SQLITE_DONE => Ok(None),
            rc => Err(RawError {
                message: errmsg(self.db),
                code: rc & 0xff,
                offset: None,
            }),
        }
    }

    fn row(&self) -> Vec<Value> {
        // SAFETY: a statement positioned on a row; pointers SQLite returns
        // stay valid until the next step, and are copied here.
        unsafe {
            let n = ffi::sqlite3_column_count(self.stmt);
            (0..n)
                .map(|i| match ffi::sqlite3_column_type(self.stmt, i) {
                    ffi::SQLITE_INTEGER => Value::Integer(ffi::sqlite3_column_int64(self.stmt, i)),
                    ffi::SQLITE_FLOAT => Value::Real(ffi::sqlite3_column_double(self.stmt, i)),
                    ffi::SQLITE_TEXT => {
                        let p = ffi::sqlite3_column_text(self.stmt, i);
                        let len = ffi::sqlite3_column_bytes(self.stmt, i).max(0) as usize;
                        if p.is_null() {
                            Value::Text(Vec::new())
                        } else {
                            Value::Text(std::slice::from_raw_parts(p, len).to_vec())
                        }
                    }
                    ffi::SQLITE_BLOB => {
                        let p = ffi::sqlite3_column_blob(self.stmt, i) as *const u8;
                        let len = ffi::sqlite3_column_bytes(self.stmt, i).max(0) as usize;
                        if p.is_null() {
                            Value::Blob(Vec::new())
                        } else {
                            Value::Blob(std::slice::from_raw_parts(p, len).to_vec())
                        }
                    }
                    _ => Value::Null,
                })
                .collect()
        }
    }
}

impl Drop for Stmt {
    fn drop(&mut self) {
        // SAFETY: finalized exactly once.
        unsafe {
            ffi::sqlite3_finalize(self.stmt);
        }
    }
}
