//! The dot-commands of the `sqlite3` shell agents use, declared once as
//! data ([`COMMANDS`]: name, usage, help line, handler) from which both
//! dispatch and `.help` come.

use std::io::Write;

use crate::render::{Mode, Value, quote_ident, sql_literal};
use crate::session::{Failure, Session, SqlError, Target};

/// What a dot-command returns: `Ok` or how it failed.
pub type DotResult = Result<(), Failure>;

type Handler = fn(&mut Session<'_, '_>, &[String]) -> DotResult;

/// One dot-command.
pub struct DotCommand {
    /// Its name without the dot.
    pub name: &'static str,
    /// Its arguments, as `.help` shows them.
    pub usage: &'static str,
    /// One line of help.
    pub help: &'static str,
    handler: Handler,
}

const fn cmd(
    name: &'static str,
    usage: &'static str,
    help: &'static str,
    handler: Handler,
) -> DotCommand {
    DotCommand {
        name,
        usage,
        help,
        handler,
    }
}

/// The dot-commands, in `.help` order.
pub const COMMANDS: &[DotCommand] = &[
    cmd(
        "backup",
        "?DB? FILE",
        "Write the database to FILE",
        dot_backup,
    ),
    cmd(
        "bail",
        "on|off",
        "Stop after hitting an error.  Default OFF",
        dot_bail,
    ),
    cmd(
        "changes",
        "on|off",
        "Show number of rows changed by SQL (accepted)",
        dot_ignore_bool,
    ),
    cmd(
        "databases",
        "",
        "List names and files of attached databases",
        dot_databases,
    ),
    cmd(
        "dump",
        "?OBJECTS?",
        "Render database content as SQL",
        dot_dump,
    ),
    cmd("echo", "on|off", "Turn command echo on or off", dot_echo),
    cmd(
        "eqp",
        "on|off",
        "Automatic EXPLAIN QUERY PLAN (accepted)",
        dot_ignore_value,
    ),
    cmd(
        "exit",
        "?CODE?",
        "Exit this program with return-code CODE",
        dot_exit,
    ),
    cmd(
        "fullschema",
        "",
        "Show schema and the content of sqlite_stat tables",
        dot_fullschema,
    ),
    cmd(
        "headers",
        "on|off",
        "Turn display of headers on or off",
        dot_headers,
    ),
    cmd("help", "?PATTERN?", "Show help text for PATTERN", dot_help),
    cmd(
        "import",
        "FILE TABLE",
        "Import data from FILE into TABLE",
        dot_import,
    ),
    cmd("indexes", "?TABLE?", "Show names of indexes", dot_indexes),
    cmd(
        "load",
        "FILE",
        "Load an extension library (not available)",
        dot_load,
    ),
    cmd("mode", "MODE ?TABLE?", "Set output mode", dot_mode),
    cmd(
        "nullvalue",
        "STRING",
        "Use STRING in place of NULL values",
        dot_nullvalue,
    ),
    cmd(
        "once",
        "FILE",
        "Output for the next SQL command only to FILE",
        dot_once,
    ),
    cmd(
        "open",
        "?FILE?",
        "Close existing database and reopen FILE",
        dot_open,
    ),
    cmd(
        "output",
        "?FILE?",
        "Send output to FILE or stdout if FILE is omitted",
        dot_output,
    ),
    cmd("print", "STRING...", "Print literal STRING", dot_print),
    cmd("quit", "", "Exit this program", dot_quit),
    cmd("read", "FILE", "Read input from FILE", dot_read),
    cmd("save", "FILE", "Write the database to FILE", dot_backup),
    cmd(
        "schema",
        "?PATTERN?",
        "Show the CREATE statements matching PATTERN",
        dot_schema,
    ),
    cmd(
        "separator",
        "COL ?ROW?",
        "Change the column and row separators",
        dot_separator,
    ),
    cmd(
        "shell",
        "CMD ARGS...",
        "Run CMD ARGS... in a system shell (not available)",
        dot_shell,
    ),
    cmd(
        "show",
        "",
        "Show the current values for various settings",
        dot_show,
    ),
    cmd(
        "system",
        "CMD ARGS...",
        "Run CMD ARGS... in a system shell (not available)",
        dot_shell,
    ),
    cmd(
        "tables",
        "?TABLE?",
        "List names of tables matching LIKE pattern TABLE",
        dot_tables,
    ),
    cmd(
        "timer",
        "on|off",
        "Turn SQL timer on or off (accepted)",
        dot_ignore_bool,
    ),
    cmd("stats", "on|off", "Show stats (accepted)", dot_ignore_value),
    cmd(
        "timeout",
        "MS",
        "Wait for locks MS milliseconds (accepted)",
        dot_ignore_value,
    ),
    cmd(
        "width",
        "NUM1 NUM2 ...",
        "Set minimum column widths for columnar output",
        dot_width,
    ),
];

/// Splits a dot-command line into words: blanks separate, '...' and
/// "..." quote (the latter with C escapes).
pub fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&c) = chars.peek() else { break };
        let mut w = String::new();
        if c == '\'' || c == '"' {
            chars.next();
            while let Some(ch) = chars.next() {
                if ch == c {
                    break;
                }
                if c == '"' && ch == '\\' {
                    match chars.next() {
                        Some('n') => w.push('\n'),
                        Some('t') => w.push('\t'),
                        Some('r') => w.push('\r'),
                        Some('\\') => w.push('\\'),
                        Some('"') => w.push('"'),
                        Some(o) => {
                            w.push('\\');
                            w.push(o);
                        }
                        None => w.push('\\'),
                    }
                    continue;
                }
                w.push(ch);
            }
        } else {
            while let Some(&ch) = chars.peek() {
                if ch.is_whitespace() {
                    break;
                }
                w.push(ch);
                chars.next();
            }
        }
        words.push(w);
    }
    words
}

/// Runs one dot-command line (with its leading dot).
pub fn run(s: &mut Session<'_, '_>, line: &str) -> DotResult {
    let words = split_words(line.trim_start().trim_start_matches('.'));
    let Some(name) = words.first() else {
        return Ok(());
    };
    // sqlite3 takes any unambiguous prefix; the first match in table order
    // wins (as its chain of prefix tests does for the common ones).
    let found = COMMANDS
        .iter()
        .find(|c| c.name == name.as_str())
        .or_else(|| {
            let aliases: &[(&str, &str)] = &[
                ("header", "headers"),
                ("indices", "indexes"),
                ("q", "quit"),
                ("sep", "separator"),
            ];
            aliases
                .iter()
                .find(|(a, _)| a == name)
                .and_then(|(_, real)| COMMANDS.iter().find(|c| c.name == *real))
                .or_else(|| {
                    if name.len() < 2 {
                        return None;
                    }
                    COMMANDS.iter().find(|c| c.name.starts_with(name.as_str()))
                })
        });
    match found {
        Some(c) => (c.handler)(s, &words[1..]),
        None => {
            let _ = writeln!(
                s.ctx.stderr,
                "Error: unknown command or invalid arguments:  \"{name}\". Enter \".help\" for help"
            );
            Err(Failure::Status(1))
        }
    }
}

/// sqlite3's boolean words; anything else warns and means "no".
fn boolean(s: &mut Session<'_, '_>, word: &str) -> bool {
    match word.to_ascii_lowercase().as_str() {
        "on" | "yes" | "true" => true,
        "off" | "no" | "false" => false,
        w if w.parse::<i64>().is_ok() => w.parse::<i64>().unwrap_or(0) != 0,
        _ => {
            let _ = writeln!(
                s.ctx.stderr,
                "ERROR: Not a boolean value: \"{word}\". Assuming \"no\"."
            );
            false
        }
    }
}

fn usage(s: &mut Session<'_, '_>, name: &str) -> DotResult {
    let c = COMMANDS.iter().find(|c| c.name == name);
    let text = c
        .map(|c| format!(".{} {}", c.name, c.usage))
        .unwrap_or_default();
    let _ = writeln!(s.ctx.stderr, "Usage: {}", text.trim_end());
    Err(Failure::Status(1))
}

/// Reports a failed internal query as sqlite3 would.
fn sql_failed(s: &mut Session<'_, '_>, e: SqlError) -> Failure {
    match e {
        SqlError::Open(f) => f,
        SqlError::Limit(k) => Failure::Limit(k),
        e => {
            let _ = writeln!(s.ctx.stderr, "Error: {}", e.text());
            Failure::Status(e.status())
        }
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::Text(t) | Value::Blob(t) => String::from_utf8_lossy(t).into_owned(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => crate::render::real_text(*r),
        Value::Null => String::new(),
    }
}

fn dot_bail(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(w) = a.first() else {
        return usage(s, "bail");
    };
    s.bail = boolean(s, w);
    Ok(())
}

fn dot_echo(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(w) = a.first() else {
        return usage(s, "echo");
    };
    s.echo = boolean(s, w);
    Ok(())
}

fn dot_ignore_bool(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    if let Some(w) = a.first() {
        boolean(s, w);
    }
    Ok(())
}

fn dot_ignore_value(_s: &mut Session<'_, '_>, _a: &[String]) -> DotResult {
    Ok(())
}

fn dot_load(s: &mut Session<'_, '_>, _a: &[String]) -> DotResult {
    let _ = writeln!(
        s.ctx.stderr,
        "Error: extensions cannot be loaded in the local sandbox (no host libraries)"
    );
    Err(Failure::Status(1))
}

fn dot_headers(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(w) = a.first() else {
        return usage(s, "headers");
    };
    s.settings.headers = boolean(s, w);
    Ok(())
}

fn dot_exit(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let _ = s;
    let code = a.first().and_then(|w| w.parse::<i32>().ok()).unwrap_or(0);
    Err(Failure::Exit(code))
}

fn dot_quit(_s: &mut Session<'_, '_>, _a: &[String]) -> DotResult {
    Err(Failure::Exit(0))
}

fn dot_help(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let pattern = a.first().map(|p| p.trim_start_matches('.').to_string());
    for c in COMMANDS {
        if pattern
            .as_ref()
            .is_some_and(|p| !c.name.starts_with(p.as_str()))
        {
            continue;
        }
        let head = format!(".{} {}", c.name, c.usage);
        let _ = writeln!(s.out, "{:<21}{}", head.trim_end().to_string() + " ", c.help);
    }
    Ok(())
}

fn dot_mode(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    // Columnar options of 3.38+ (`--wrap N`, `--wordwrap B`, `--quote`,
    // `--noquote`, `-ww`) are accepted; their layout is not reproduced.
    let mut words = Vec::new();
    let mut i = 0;
    while i < a.len() {
        match a[i].as_str() {
            "--wrap" | "--wordwrap" => i += 1,
            w if w.starts_with("--") || w == "-ww" => {}
            _ => words.push(a[i].clone()),
        }
        i += 1;
    }
    let a = &words[..];
    let Some(word) = a.first() else {
        let _ = writeln!(s.out, "current output mode: {}", s.settings.mode.name());
        return Ok(());
    };
    let Some(mode) = Mode::from_word(word) else {
        let _ = writeln!(
            s.ctx.stderr,
            "Error: mode should be one of: ascii box column csv html insert json line list markdown qbox quote table tabs tcl"
        );
        return Err(Failure::Status(1));
    };
    s.settings.set_mode_dot(mode);
    if mode == Mode::Insert {
        s.settings.insert_table = a.get(1).cloned().unwrap_or_else(|| "table".into());
    }
    Ok(())
}

fn dot_nullvalue(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(w) = a.first() else {
        return usage(s, "nullvalue");
    };
    s.settings.null_value = w.clone();
    Ok(())
}

fn dot_separator(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(col) = a.first() else {
        return usage(s, "separator");
    };
    s.settings.col_sep = col.clone();
    if let Some(row) = a.get(1) {
        s.settings.row_sep = row.clone();
    }
    Ok(())
}

fn dot_width(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    s.settings.widths = a.iter().map(|w| w.parse::<i64>().unwrap_or(0)).collect();
    Ok(())
}

fn dot_print(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let _ = writeln!(s.out, "{}", a.join(" "));
    Ok(())
}

fn dot_shell(s: &mut Session<'_, '_>, _a: &[String]) -> DotResult {
    let _ = writeln!(
        s.ctx.stderr,
        "Error: .shell and .system are not available: the local sandbox runs no host processes"
    );
    Err(Failure::Status(1))
}

fn open_output(s: &mut Session<'_, '_>, file: Option<&String>, once: bool) -> DotResult {
    match file.map(String::as_str) {
        None | Some("stdout") => {
            s.redirect(Target::Stdout);
            s.once = false;
            Ok(())
        }
        Some(name) if name.starts_with('|') => {
            let _ = writeln!(
                s.ctx.stderr,
                "Error: cannot open a pipe to \"{}\": the local sandbox runs no host processes",
                &name[1..]
            );
            Err(Failure::Status(1))
        }
        Some(name) => {
            let path = s.ctx.path(name);
            if s.ctx.fs.write(&path, b"").is_err() {
                let _ = writeln!(s.ctx.stderr, "Error: cannot write to \"{name}\"");
                s.redirect(Target::Stdout);
                return Err(Failure::Status(1));
            }
            s.redirect(Target::File(path));
            s.once = once;
            Ok(())
        }
    }
}

fn dot_output(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    open_output(s, a.first(), false)
}

fn dot_once(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(_) = a.first() else {
        return usage(s, "once");
    };
    open_output(s, a.first(), true)
}

fn dot_open(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let name = a.iter().find(|w| !w.starts_with('-')).cloned();
    s.reopen(name);
    s.conn().map(|_| ())
}

fn dot_read(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(name) = a.first() else {
        return usage(s, "read");
    };
    let data = if name == "/dev/stdin" || name == "-" {
        let mut buf = Vec::new();
        let _ = s.ctx.stdin.read_to_end(&mut buf);
        Ok(buf)
    } else {
        let path = s.ctx.path(name);
        s.ctx.fs.read(&path)
    };
    let Ok(data) = data else {
        let _ = writeln!(s.ctx.stderr, "Error: cannot open \"{name}\"");
        return Err(Failure::Status(1));
    };
    let text = String::from_utf8_lossy(&data).into_owned();
    match crate::input::process(s, &text) {
        Ok(0) => Ok(()),
        Ok(_) => Err(Failure::Status(1)),
        Err(f) => Err(f),
    }
}

fn dot_databases(s: &mut Session<'_, '_>, _a: &[String]) -> DotResult {
    let rows = s
        .query("PRAGMA database_list")
        .map_err(|e| sql_failed(s, e))?;
    let read_only = s.read_only;
    for r in rows {
        let name = text_of(&r[1]);
        let file = text_of(&r[2]);
        let _ = writeln!(
            s.out,
            "{name}: {} {}",
            if file.is_empty() {
                "\"\"".to_string()
            } else {
                file
            },
            if read_only { "r/o" } else { "r/w" }
        );
    }
    Ok(())
}

/// Prints `names` in columns as `.tables` and `.indexes` do: as many as
/// fit in 80 characters, filled down then across.
fn print_in_columns(s: &mut Session<'_, '_>, names: &[String]) {
    if names.is_empty() {
        return;
    }
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let per_row = (80 / (width + 2)).max(1);
    let rows = names.len().div_ceil(per_row);
    for i in 0..rows {
        let mut line = String::new();
        let mut j = i;
        let mut first = true;
        while j < names.len() {
            if !first {
                line.push_str("  ");
            }
            first = false;
            line.push_str(&format!("{:<width$}", names[j]));
            j += rows;
        }
        let _ = writeln!(s.out, "{line}");
    }
}

fn like_filter(pattern: Option<&String>) -> String {
    match pattern {
        Some(p) => format!(
            " AND name LIKE {}",
            sql_literal(&Value::Text(p.clone().into_bytes()))
        ),
        None => String::new(),
    }
}

fn dot_tables(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let dbs = s
        .query("PRAGMA database_list")
        .map_err(|e| sql_failed(s, e))?;
    let mut names = Vec::new();
    for db in dbs {
        let schema = text_of(&db[1]);
        let sql = format!(
            "SELECT name FROM {}.sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%'{} ORDER BY 1",
            quote_ident(&schema),
            like_filter(a.first())
        );
        let rows = s.query(&sql).map_err(|e| sql_failed(s, e))?;
        for r in rows {
            let n = text_of(&r[0]);
            names.push(if schema == "main" {
                n
            } else {
                format!("{schema}.{n}")
            });
        }
    }
    names.sort();
    print_in_columns(s, &names);
    Ok(())
}

fn dot_indexes(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let filter = match a.first() {
        Some(t) => format!(
            " AND tbl_name LIKE {}",
            sql_literal(&Value::Text(t.clone().into_bytes()))
        ),
        None => String::new(),
    };
    let sql = format!("SELECT name FROM sqlite_schema WHERE type='index'{filter} ORDER BY 1");
    let rows = s.query(&sql).map_err(|e| sql_failed(s, e))?;
    let names: Vec<String> = rows.iter().map(|r| text_of(&r[0])).collect();
    print_in_columns(s, &names);
    Ok(())
}

/// The schema entries `.schema` shows: `(type, name, sql)`.
fn schema_entries(
    s: &mut Session<'_, '_>,
    pattern: Option<&String>,
) -> Result<Vec<(String, String, String)>, Failure> {
    let filter = match pattern {
        Some(p) => {
            let lit = sql_literal(&Value::Text(p.clone().into_bytes()));
            format!(" AND (name LIKE {lit} OR tbl_name LIKE {lit})")
        }
        None => String::new(),
    };
    let sql = format!(
        "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL{filter} ORDER BY rowid"
    );
    let rows = s.query(&sql).map_err(|e| sql_failed(s, e))?;
    Ok(rows
        .iter()
        .map(|r| (text_of(&r[0]), text_of(&r[1]), text_of(&r[2])))
        .collect())
}

fn print_schema(s: &mut Session<'_, '_>, pattern: Option<&String>) -> DotResult {
    for (kind, name, sql) in schema_entries(s, pattern)? {
        if kind == "view" {
            // sqlite3 notes a view's columns under its statement.
            let cols = s
                .query(&format!("PRAGMA table_info({})", quote_ident(&name)))
                .map(|rows| {
                    rows.iter()
                        .map(|r| quote_ident(&text_of(&r[1])))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let _ = writeln!(
                s.out,
                "{sql}\n/* {}({}) */;",
                quote_ident(&name),
                cols.join(",")
            );
        } else {
            let _ = writeln!(s.out, "{};", schema_line(&sql));
        }
    }
    Ok(())
}

/// A table's CREATE statement as sqlite3 prints it: one whose name is
/// quoted gets `IF NOT EXISTS` (so `.import`'s tables re-create cleanly).
fn schema_line(sql: &str) -> String {
    match sql.strip_prefix("CREATE TABLE ") {
        Some(rest) if rest.starts_with('"') || rest.starts_with('\'') => {
            format!("CREATE TABLE IF NOT EXISTS {rest}")
        }
        _ => sql.to_string(),
    }
}

fn dot_schema(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let pattern = a.iter().find(|w| !w.starts_with("--"));
    print_schema(s, pattern)
}

fn dot_fullschema(s: &mut Session<'_, '_>, _a: &[String]) -> DotResult {
    print_schema(s, None)?;
    let _ = writeln!(s.out, "/* No STAT tables available */");
    Ok(())
}

fn dot_dump(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let patterns: Vec<&String> = a.iter().filter(|w| !w.starts_with("--")).collect();
    let filter = if patterns.is_empty() {
        String::new()
    } else {
        let parts: Vec<String> = patterns
            .iter()
            .map(|p| {
                format!(
                    "tbl_name LIKE {}",
                    sql_literal(&Value::Text(p.as_bytes().to_vec()))
                )
            })
            .collect();
        format!(" AND ({})", parts.join(" OR "))
    };
    let _ = writeln!(s.out, "PRAGMA foreign_keys=OFF;");
    let _ = writeln!(s.out, "BEGIN TRANSACTION;");
    let tables = s
        .query(&format!(
            "SELECT name, sql FROM sqlite_schema WHERE type='table' AND sql IS NOT NULL{filter} ORDER BY name=='sqlite_sequence', rowid"
        ))
        .map_err(|e| sql_failed(s, e))?;
    for t in &tables {
        let name = text_of(&t[0]);
        let sql = text_of(&t[1]);
        if name == "sqlite_sequence" {
            let _ = writeln!(s.out, "DELETE FROM sqlite_sequence;");
        } else if name.starts_with("sqlite_stat") {
            let _ = writeln!(s.out, "ANALYZE sqlite_schema;");
        } else if name.starts_with("sqlite_") {
            continue;
        } else if sql.to_ascii_uppercase().starts_with("CREATE VIRTUAL TABLE") {
            let _ = writeln!(s.out, "PRAGMA writable_schema=ON;");
            let _ = writeln!(
                s.out,
                "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table',{},{},0,{});",
                sql_literal(&Value::Text(name.clone().into_bytes())),
                sql_literal(&Value::Text(name.clone().into_bytes())),
                sql_literal(&Value::Text(sql.clone().into_bytes()))
            );
            continue;
        } else {
            let _ = writeln!(s.out, "{};", schema_line(&sql));
        }
        let rows = s
            .query(&format!("SELECT * FROM {}", quote_ident(&name)))
            .map_err(|e| sql_failed(s, e))?;
        let shown = quote_ident(&name);
        for r in rows {
            let vals: Vec<String> = r.iter().map(sql_literal).collect();
            let _ = writeln!(s.out, "INSERT INTO {shown} VALUES({});", vals.join(","));
            if s.out.len() >= 1 << 16 {
                s.flush();
            }
        }
    }
    let others = s
        .query(&format!(
            "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND type IN ('index','trigger','view'){filter} ORDER BY rowid"
        ))
        .map_err(|e| sql_failed(s, e))?;
    for o in others {
        let _ = writeln!(s.out, "{};", text_of(&o[0]));
    }
    let _ = writeln!(s.out, "COMMIT;");
    Ok(())
}

fn dot_backup(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let Some(file) = a.last() else {
        return usage(s, "backup");
    };
    let path = s.ctx.path(file);
    let _ = s.ctx.fs.remove_file(&path);
    let sql = format!(
        "VACUUM INTO {}",
        sql_literal(&Value::Text(path.into_bytes()))
    );
    s.run_sql(&sql).map_err(|e| sql_failed(s, e))
}

fn dot_show(s: &mut Session<'_, '_>, _a: &[String]) -> DotResult {
    let st = s.settings.clone();
    let esc = |t: &str| {
        t.replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\t', "\\t")
            .replace('\r', "\\r")
    };
    let onoff = |b: bool| if b { "on" } else { "off" };
    let output = match &s.target {
        Target::Stdout => "stdout".to_string(),
        Target::File(p) => p.clone(),
    };
    let widths: Vec<String> = st.widths.iter().map(|w| w.to_string()).collect();
    let filename = s.db_path().unwrap_or_else(|| ":memory:".into());
    let lines = [
        ("echo", onoff(s.echo).to_string()),
        ("eqp", "off".into()),
        ("explain", "auto".into()),
        ("headers", onoff(st.headers).to_string()),
        ("mode", st.mode.name().to_string()),
        ("nullvalue", format!("\"{}\"", esc(&st.null_value))),
        ("output", output),
        ("colseparator", format!("\"{}\"", esc(&st.col_sep))),
        ("rowseparator", format!("\"{}\"", esc(&st.row_sep))),
        ("stats", "off".into()),
        ("width", widths.join(" ")),
        ("filename", filename),
    ];
    for (k, v) in lines {
        let _ = writeln!(s.out, "{k:>12}: {v}");
    }
    Ok(())
}

fn dot_import(s: &mut Session<'_, '_>, a: &[String]) -> DotResult {
    let mut csv = matches!(s.settings.mode, Mode::Csv);
    let mut ascii = matches!(s.settings.mode, Mode::Ascii);
    let mut skip = 0usize;
    let mut schema: Option<String> = None;
    let mut positional = Vec::new();
    let mut i = 0;
    while i < a.len() {
        match a[i].as_str() {
            "--csv" => {
                csv = true;
                ascii = false;
            }
            "--ascii" => {
                ascii = true;
                csv = false;
            }
            "--skip" => {
                i += 1;
                skip = a.get(i).and_then(|n| n.parse().ok()).unwrap_or(0);
            }
            "--schema" => {
                i += 1;
                schema = a.get(i).cloned();
            }
            "-v" => {}
            w if w.starts_with('-') && w.len() > 1 => {
                let _ = writeln!(s.ctx.stderr, "ERROR: unknown option: \"{w}\".  Usage:");
                return Err(Failure::Status(1));
            }
            w => positional.push(w.to_string()),
        }
        i += 1;
    }
    let (Some(file), Some(table)) = (positional.first(), positional.get(1)) else {
        let _ = writeln!(
            s.ctx.stderr,
            "ERROR: missing {} argument. Usage:\n.import FILE TABLE       Import data from FILE into TABLE",
            if positional.is_empty() {
                "FILE"
            } else {
                "TABLE"
            }
        );
        return Err(Failure::Status(1));
    };
    if file.starts_with('|') {
        let _ = writeln!(
            s.ctx.stderr,
            "Error: cannot open \"{file}\": the local sandbox runs no host processes"
        );
        return Err(Failure::Status(1));
    }
    let data = if file == "/dev/stdin" || file == "-" {
        let mut buf = Vec::new();
        let _ = s.ctx.stdin.read_to_end(&mut buf);
        Ok(buf)
    } else {
        let path = s.ctx.path(file);
        s.ctx.fs.read(&path)
    };
    let Ok(data) = data else {
        let _ = writeln!(s.ctx.stderr, "Error: cannot open \"{file}\"");
        return Err(Failure::Status(1));
    };
    let flagged = a.iter().any(|w| w == "--csv" || w == "--ascii");
    if !flagged && matches!(s.settings.mode, Mode::Csv) && s.settings.row_sep == "\r\n" {
        // sqlite3 reads CSV rows by "\n" and, importing in csv mode with
        // the default "\r\n" output separator, keeps that "\n" as the row
        // separator for what it prints afterwards.
        s.settings.row_sep = "\n".into();
    }
    let (col_sep, row_sep) = if csv {
        (",".to_string(), "\n".to_string())
    } else if ascii {
        ("\x1f".to_string(), "\x1e".to_string())
    } else {
        (s.settings.col_sep.clone(), s.settings.row_sep.clone())
    };
    let records = crate::import::parse(&data, &col_sep, &row_sep, csv);
    let mut records = records.into_iter().skip(skip);
    let qualified = match &schema {
        Some(sc) => format!("{}.{}", quote_ident(sc), quote_ident(table)),
        None => quote_ident(table),
    };
    let schema_name = schema.clone().unwrap_or_else(|| "main".into());
    let exists = !s
        .query(&format!(
            "SELECT 1 FROM {}.sqlite_schema WHERE type IN ('table','view') AND name={}",
            quote_ident(&schema_name),
            sql_literal(&Value::Text(table.clone().into_bytes()))
        ))
        .map_err(|e| sql_failed(s, e))?
        .is_empty();
    if !exists {
        let Some((_, header)) = records.next() else {
            return Ok(());
        };
        let cols: Vec<String> = header
            .iter()
            .map(|c| format!("\"{}\" TEXT", c.replace('"', "\"\"")))
            .collect();
        let target = match &schema {
            Some(sc) => format!(
                "\"{}\".\"{}\"",
                sc.replace('"', "\"\""),
                table.replace('"', "\"\"")
            ),
            None => format!("\"{}\"", table.replace('"', "\"\"")),
        };
        let create = format!("CREATE TABLE IF NOT EXISTS {target}(\n{})", cols.join(", "));
        s.run_sql(&create).map_err(|e| sql_failed(s, e))?;
    }
    let ncols = s
        .query(&format!("SELECT * FROM {qualified} LIMIT 0"))
        .map_err(|e| sql_failed(s, e))
        .map(|_| ())
        .and_then(|_| {
            s.query(&format!(
                "SELECT count(*) FROM pragma_table_info({}, {})",
                sql_literal(&Value::Text(table.clone().into_bytes())),
                sql_literal(&Value::Text(schema_name.clone().into_bytes()))
            ))
            .map_err(|e| sql_failed(s, e))
        })?
        .first()
        .and_then(|r| match r[0] {
            Value::Integer(n) => Some(n as usize),
            _ => None,
        })
        .unwrap_or(0);
    let placeholders = vec!["?"; ncols].join(",");
    let insert = format!("INSERT INTO {qualified} VALUES({placeholders})");
    let conn = s.conn()?;
    let tx_started = conn.execute_batch("SAVEPOINT sk_import").is_ok();
    let mut warnings = Vec::new();
    let mut failure = None;
    {
        let conn = s.conn()?;
        match conn.prepare(&insert) {
            Err(e) => {
                let (m, _) = crate::session::error_parts(&e);
                failure = Some(format!("Error: {m}"));
            }
            Ok(mut stmt) => {
                for (line_no, rec) in records {
                    if rec.len() != ncols {
                        if rec.len() > ncols {
                            warnings.push(format!(
                        "{file}:{line_no}: expected {ncols} columns but found {} - extras ignored",
                        rec.len()
                    ));
                        } else {
                            warnings.push(format!(
                        "{file}:{line_no}: expected {ncols} columns but found {} - filling the rest with NULL",
                        rec.len()
                    ));
                        }
                    }
                    let params: Vec<Option<&str>> =
                        (0..ncols).map(|i| rec.get(i).map(String::as_str)).collect();
                    if let Err(e) = stmt.execute(rusqlite::params_from_iter(params.iter())) {
                        let (m, _) = crate::session::error_parts(&e);
                        failure = Some(format!("{insert}\nError: {m}"));
                        break;
                    }
                }
            }
        }
    }
    for w in warnings {
        let _ = writeln!(s.ctx.stderr, "{w}");
    }
    let conn = s.conn()?;
    if tx_started {
        let _ = conn.execute_batch("RELEASE sk_import");
    }
    if let Some(f) = failure {
        let _ = writeln!(s.ctx.stderr, "{f}");
        return Err(Failure::Status(1));
    }
    Ok(())
}
