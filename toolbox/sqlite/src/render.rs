//! Output modes of the `sqlite3` shell: how a statement's rows are printed
//! (`.mode list|csv|json|line|column|box|table|markdown|...`).
//!
//! Rows arrive one at a time ([`Renderer::row`]); the row-per-line modes
//! print each at once, the columnar ones (column, box, table, markdown)
//! hold the statement's rows to size their columns, as sqlite3 does.
//! Nothing is printed for a statement that returns no rows, headers
//! included.

use std::ffi::{CString, c_char};
use std::io::Write;

use rusqlite::ffi;

/// An output mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Values separated by `.separator` (default `|`).
    List,
    /// RFC 4180 CSV.
    Csv,
    /// An array of objects.
    Json,
    /// One `name = value` line per column, a blank line between rows.
    Line,
    /// Aligned columns under a dashed header rule.
    Column,
    /// Columns drawn with box characters.
    Box,
    /// Columns drawn with `+-|`.
    Table,
    /// A Markdown table.
    Markdown,
    /// Tab-separated values.
    Tabs,
    /// HTML `<TR>` rows.
    Html,
    /// `INSERT` statements.
    Insert,
    /// SQL literals separated by commas.
    Quote,
    /// Unit and record separators (0x1F, 0x1E).
    Ascii,
}

impl Mode {
    /// The mode a `.mode` word names (any unambiguous prefix, as sqlite3).
    pub fn from_word(word: &str) -> Option<Mode> {
        const NAMES: &[(&str, Mode)] = &[
            ("ascii", Mode::Ascii),
            ("box", Mode::Box),
            ("column", Mode::Column),
            ("csv", Mode::Csv),
            ("html", Mode::Html),
            ("insert", Mode::Insert),
            ("json", Mode::Json),
            ("line", Mode::Line),
            ("list", Mode::List),
            ("markdown", Mode::Markdown),
            ("quote", Mode::Quote),
            ("table", Mode::Table),
            ("tabs", Mode::Tabs),
        ];
        if word == "lines" {
            return Some(Mode::Line);
        }
        if word == "columns" {
            return Some(Mode::Column);
        }
        NAMES
            .iter()
            .find(|(n, _)| *n == word)
            .or_else(|| {
                let mut hits = NAMES
                    .iter()
                    .filter(|(n, _)| n.starts_with(word) && !word.is_empty());
                let first = hits.next();
                if hits.next().is_some() { None } else { first }
            })
            .map(|(_, m)| *m)
    }

    /// The mode's name as `.mode` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::List => "list",
            Mode::Csv => "csv",
            Mode::Json => "json",
            Mode::Line => "line",
            Mode::Column => "column",
            Mode::Box => "box",
            Mode::Table => "table",
            Mode::Markdown => "markdown",
            Mode::Tabs => "tabs",
            Mode::Html => "html",
            Mode::Insert => "insert",
            Mode::Quote => "quote",
            Mode::Ascii => "ascii",
        }
    }

    fn columnar(self) -> bool {
        matches!(
            self,
            Mode::Column | Mode::Box | Mode::Table | Mode::Markdown
        )
    }
}

/// One value of a result row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer.
    Integer(i64),
    /// A floating-point number.
    Real(f64),
    /// Text (bytes as stored; normally UTF-8).
    Text(Vec<u8>),
    /// A blob.
    Blob(Vec<u8>),
}

impl Value {
    /// From rusqlite's borrowed value.
    pub fn from_ref(v: rusqlite::types::ValueRef<'_>) -> Value {
        use rusqlite::types::ValueRef;
        match v {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(r) => Value::Real(r),
            ValueRef::Text(t) => Value::Text(t.to_vec()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        }
    }
}

/// SQLite's own `printf` of a real with `format` (`%!.15g` and friends),
/// so numbers print exactly as the engine's text conversion does.
pub fn sqlite_printf_real(format: &str, r: f64) -> String {
    let Ok(fmt) = CString::new(format) else {
        return r.to_string();
    };
    // SAFETY: a valid format taking one double; the result is freed below.
    unsafe {
        let p: *mut c_char = ffi::sqlite3_mprintf(fmt.as_ptr(), r);
        if p.is_null() {
            return r.to_string();
        }
        let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
        ffi::sqlite3_free(p.cast());
        s
    }
}

/// A real as sqlite3 3.40's JSON mode prints it (`%!.20g`): 20
/// significant digits, cut rather than rounded (its digits came from
/// 80-bit arithmetic, whose last digit this only approximates), trailing
/// zeros dropped but one kept after the point, exponent form below 1e-4
/// and from 1e20.
pub fn json_real(r: f64) -> String {
    if r == 0.0 {
        return "0.0".into();
    }
    if !r.is_finite() {
        return real_text(r);
    }
    let sci = format!("{:.40e}", r.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa
        .chars()
        .filter(char::is_ascii_digit)
        .take(20)
        .collect();
    let sign = if r < 0.0 { "-" } else { "" };
    let trim = |s: &str| -> String {
        let t = s.trim_end_matches('0');
        if t.is_empty() {
            "0".to_string()
        } else {
            t.to_string()
        }
    };
    if !(-4..20).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let rest = trim(rest);
        let e_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}.{rest}e{e_sign}{:02}", exp.abs())
    } else if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        format!("{sign}0.{zeros}{}", trim(&digits))
    } else {
        let (int, frac) = digits.split_at((exp + 1) as usize);
        format!("{sign}{int}.{}", trim(frac))
    }
}

/// A real as SQLite converts it to text (`CAST(r AS TEXT)`).
pub fn real_text(r: f64) -> String {
    sqlite_printf_real("%!.15g", r)
}

/// A value as SQL literal text (`quote()`'s form, lower-case blob hex as the
/// shell's quote and insert modes and `.dump` print it).
pub fn sql_literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => {
            if r.is_infinite() {
                return if *r > 0.0 {
                    "1e999".into()
                } else {
                    "-1e999".into()
                };
            }
            let s = real_text(*r);
            // Keep the value exact when 15 digits lose it.
            if s.parse::<f64>().ok() == Some(*r) {
                s
            } else {
                sqlite_printf_real("%!.20e", *r)
            }
        }
        Value::Text(t) => {
            let s = String::from_utf8_lossy(t);
            let mut out = String::with_capacity(s.len() + 2);
            let needs_functions = s.contains('\n') || s.contains('\r');
            if needs_functions {
                // sqlite3 spells newlines with replace() so the statement
                // stays on one line.
                let body = s
                    .replace('\'', "''")
                    .replace('\n', "\\n")
                    .replace('\r', "\\r");
                let mut expr = format!("'{body}'");
                if s.contains('\n') {
                    expr = format!("replace({expr},'\\n',char(10))");
                }
                if s.contains('\r') {
                    expr = format!("replace({expr},'\\r',char(13))");
                }
                return expr;
            }
            out.push('\'');
            out.push_str(&s.replace('\'', "''"));
            out.push('\'');
            out
        }
        Value::Blob(b) => {
            let mut s = String::with_capacity(b.len() * 2 + 3);
            s.push_str("X'");
            for byte in b {
                s.push_str(&format!("{byte:02x}"));
            }
            s.push('\'');
            s
        }
    }
}

/// An identifier as sqlite3 prints it: bare when it can be, else in
/// double quotes.
pub fn quote_ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let keyword = {
        let n = name.len() as i32;
        // SAFETY: pointer and length of a live str.
        plain && unsafe { ffi::sqlite3_keyword_check(name.as_ptr().cast(), n) } != 0
    };
    if plain && !keyword {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The shell's display settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The mode.
    pub mode: Mode,
    /// Print column names.
    pub headers: bool,
    /// Between columns in list-like modes.
    pub col_sep: String,
    /// After each row in list-like modes.
    pub row_sep: String,
    /// How NULL prints.
    pub null_value: String,
    /// `.width` values (0: automatic).
    pub widths: Vec<i64>,
    /// The table name of insert mode.
    pub insert_table: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mode: Mode::List,
            headers: false,
            col_sep: "|".into(),
            row_sep: "\n".into(),
            null_value: String::new(),
            widths: Vec::new(),
            insert_table: "table".into(),
        }
    }
}

impl Settings {
    /// `.mode MODE`: as [`Settings::set_mode`], but `.mode csv` also ends
    /// rows with CRLF (RFC 4180), which the `-csv` option does not.
    pub fn set_mode_dot(&mut self, mode: Mode) {
        self.set_mode(mode);
        if mode == Mode::Csv {
            self.row_sep = "\r\n".into();
        }
    }

    /// Switches to `mode`, with the separators that mode implies.
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
        match mode {
            Mode::List => {
                self.col_sep = "|".into();
                self.row_sep = "\n".into();
            }
            Mode::Csv => {
                self.col_sep = ",".into();
                self.row_sep = "\n".into();
            }
            Mode::Tabs => {
                self.col_sep = "\t".into();
                self.row_sep = "\n".into();
            }
            Mode::Ascii => {
                self.col_sep = "\x1f".into();
                self.row_sep = "\x1e".into();
            }
            Mode::Quote => {
                self.col_sep = ",".into();
                self.row_sep = "\n".into();
            }
            _ => {}
        }
    }
}

/// Prints one statement's rows.
pub struct Renderer<'s> {
    settings: &'s Settings,
    names: Vec<String>,
    rows: usize,
    held: Vec<Vec<Value>>,
}

impl<'s> Renderer<'s> {
    /// Starts a statement whose columns are `names`.
    pub fn new(settings: &'s Settings, names: Vec<String>) -> Renderer<'s> {
        Renderer {
            settings,
            names,
            rows: 0,
            held: Vec::new(),
        }
    }

    /// Prints (or holds) one row.
    pub fn row(&mut self, out: &mut dyn Write, values: Vec<Value>) -> std::io::Result<()> {
        let s = self.settings;
        let first = self.rows == 0;
        self.rows += 1;
        if s.mode.columnar() {
            self.held.push(values);
            return Ok(());
        }
        match s.mode {
            Mode::List | Mode::Tabs | Mode::Ascii => {
                if first && s.headers {
                    out.write_all(self.names.join(&s.col_sep).as_bytes())?;
                    out.write_all(s.row_sep.as_bytes())?;
                }
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.write_all(s.col_sep.as_bytes())?;
                    }
                    write_plain(out, v, &s.null_value)?;
                }
                out.write_all(s.row_sep.as_bytes())?;
            }
            Mode::Csv => {
                if first && s.headers {
                    let names: Vec<String> = self
                        .names
                        .iter()
                        .map(|n| csv_field(n.as_bytes(), &s.col_sep))
                        .collect();
                    out.write_all(names.join(&s.col_sep).as_bytes())?;
                    out.write_all(s.row_sep.as_bytes())?;
                }
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.write_all(s.col_sep.as_bytes())?;
                    }
                    match v {
                        Value::Null => out.write_all(s.null_value.as_bytes())?,
                        Value::Integer(n) => write!(out, "{n}")?,
                        Value::Real(r) => out.write_all(real_text(*r).as_bytes())?,
                        Value::Text(t) | Value::Blob(t) => {
                            out.write_all(csv_field(t, &s.col_sep).as_bytes())?
                        }
                    }
                }
                out.write_all(s.row_sep.as_bytes())?;
            }
            Mode::Quote => {
                if first && s.headers {
                    let names: Vec<String> = self
                        .names
                        .iter()
                        .map(|n| sql_literal(&Value::Text(n.as_bytes().to_vec())))
                        .collect();
                    out.write_all(names.join(&s.col_sep).as_bytes())?;
                    out.write_all(s.row_sep.as_bytes())?;
                }
                let vals: Vec<String> = values.iter().map(sql_literal).collect();
                out.write_all(vals.join(&s.col_sep).as_bytes())?;
                out.write_all(s.row_sep.as_bytes())?;
            }
            Mode::Json => {
                out.write_all(if first { b"[{" } else { b",\n{" })?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b",")?;
                    }
                    let name = self.names.get(i).map(String::as_str).unwrap_or("");
                    out.write_all(json_string(name.as_bytes()).as_bytes())?;
                    out.write_all(b":")?;
                    match v {
                        Value::Null => out.write_all(b"null")?,
                        Value::Integer(n) => write!(out, "{n}")?,
                        Value::Real(r) if r.is_infinite() => {
                            out.write_all(if *r > 0.0 { b"1e999" } else { b"-1e999" })?
                        }
                        Value::Real(r) => out.write_all(json_real(*r).as_bytes())?,
                        Value::Text(t) | Value::Blob(t) => {
                            out.write_all(json_string(t).as_bytes())?
                        }
                    }
                }
                out.write_all(b"}")?;
            }
            Mode::Line => {
                // sqlite3 gives the names at least five columns.
                let width = self
                    .names
                    .iter()
                    .map(|n| n.chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(5);
                if !first {
                    out.write_all(s.row_sep.as_bytes())?;
                }
                for (i, v) in values.iter().enumerate() {
                    let name = self.names.get(i).map(String::as_str).unwrap_or("");
                    write!(out, "{name:>width$} = ")?;
                    write_plain(out, v, &s.null_value)?;
                    out.write_all(s.row_sep.as_bytes())?;
                }
            }
            Mode::Html => {
                if first && s.headers {
                    out.write_all(b"<TR>")?;
                    for n in &self.names {
                        writeln!(out, "<TH>{}</TH>", html_escape(n.as_bytes()))?;
                    }
                    out.write_all(b"</TR>\n")?;
                }
                out.write_all(b"<TR>")?;
                for v in &values {
                    let text = match v {
                        Value::Null => s.null_value.clone(),
                        other => html_escape(&plain_bytes(other)),
                    };
                    writeln!(out, "<TD>{text}</TD>")?;
                }
                out.write_all(b"</TR>\n")?;
            }
            Mode::Insert => {
                let table = quote_ident(&s.insert_table);
                write!(out, "INSERT INTO {table}")?;
                if s.headers {
                    let cols: Vec<String> = self.names.iter().map(|n| quote_ident(n)).collect();
                    write!(out, "({})", cols.join(","))?;
                }
                let vals: Vec<String> = values.iter().map(sql_literal).collect();
                writeln!(out, " VALUES({});", vals.join(","))?;
            }
            Mode::Column | Mode::Box | Mode::Table | Mode::Markdown => {}
        }
        Ok(())
    }

    /// Ends the statement: closes a JSON array, prints held columnar rows.
    pub fn finish(self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        match self.settings.mode {
            Mode::Json => out.write_all(b"]\n"),
            m if m.columnar() => columnar(self.settings, &self.names, &self.held, out),
            _ => Ok(()),
        }
    }
}

/// A value's bytes as list mode prints them (NULL handled by the caller).
fn plain_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Null => Vec::new(),
        Value::Integer(n) => n.to_string().into_bytes(),
        Value::Real(r) => real_text(*r).into_bytes(),
        Value::Text(t) | Value::Blob(t) => t.clone(),
    }
}

fn write_plain(out: &mut dyn Write, v: &Value, null: &str) -> std::io::Result<()> {
    match v {
        Value::Null => out.write_all(null.as_bytes()),
        Value::Text(t) | Value::Blob(t) => out.write_all(t),
        other => out.write_all(&plain_bytes(other)),
    }
}

/// A CSV field, quoted when it holds the separator, a double or single
/// quote, a control character, a space or a non-ASCII byte (sqlite3's
/// `needCsvQuote` table), or is empty.
fn csv_field(t: &[u8], sep: &str) -> String {
    let s = String::from_utf8_lossy(t);
    let needs = t.is_empty()
        || t.iter()
            .any(|&b| b <= b' ' || b == b'"' || b == b'\'' || b >= 0x7f)
        || (!sep.is_empty() && s.contains(sep));
    if needs {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

fn json_string(t: &[u8]) -> String {
    let s = String::from_utf8_lossy(t);
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn html_escape(t: &[u8]) -> String {
    let s = String::from_utf8_lossy(t);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A cell's lines as the columnar modes show them: tabs expanded to the
/// next multiple of 8, other control characters dropped, one entry per line.
fn cell_lines(text: &str) -> Vec<String> {
    text.split('\n')
        .map(|line| {
            let mut out = String::new();
            let mut col = 0usize;
            for c in line.chars() {
                match c {
                    '\t' => {
                        let next = (col / 8 + 1) * 8;
                        out.extend(std::iter::repeat_n(' ', next - col));
                        col = next;
                    }
                    '\r' => {}
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            out
        })
        .collect()
}

/// Splits a line into pieces of at most `width` characters.
fn wrap(line: &str, width: usize) -> Vec<String> {
    if width == 0 || line.chars().count() <= width {
        return vec![line.to_string()];
    }
    let chars: Vec<char> = line.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect()).collect()
}

fn display_width(s: &str) -> usize {
    s.chars().count()
}

fn pad_left_aligned(s: &str, width: usize) -> String {
    let w = display_width(s);
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

fn pad_centered(s: &str, width: usize) -> String {
    let w = display_width(s);
    let total = width.saturating_sub(w);
    let left = total / 2;
    format!("{}{s}{}", " ".repeat(left), " ".repeat(total - left))
}

fn pad_right_aligned(s: &str, width: usize) -> String {
    let w = display_width(s);
    format!("{}{s}", " ".repeat(width.saturating_sub(w)))
}

/// Prints held rows as column, box, table or markdown.
fn columnar(
    s: &Settings,
    names: &[String],
    rows: &[Vec<Value>],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let n = names.len();
    // Each cell as its display lines, wrapped to a set width.
    let set_width = |i: usize| s.widths.get(i).copied().unwrap_or(0);
    let text_of = |v: &Value| match v {
        Value::Null => s.null_value.clone(),
        other => String::from_utf8_lossy(&plain_bytes(other)).into_owned(),
    };
    let cells: Vec<Vec<Vec<String>>> = rows
        .iter()
        .map(|r| {
            (0..n)
                .map(|i| {
                    let text = r.get(i).map(text_of).unwrap_or_default();
                    let w = set_width(i).unsigned_abs() as usize;
                    cell_lines(&text).iter().flat_map(|l| wrap(l, w)).collect()
                })
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = (0..n)
        .map(|i| {
            let w = set_width(i);
            if w != 0 {
                return w.unsigned_abs() as usize;
            }
            let head = display_width(&names[i]);
            let body = cells
                .iter()
                .flat_map(|r| r[i].iter().map(|l| display_width(l)))
                .max()
                .unwrap_or(0);
            head.max(body)
        })
        .collect();
    if s.mode == Mode::Column {
        for w in widths.iter_mut() {
            *w = (*w).max(1);
        }
    }
    let right = |i: usize| set_width(i) < 0;
    let cell = |text: &str, i: usize, header: bool| -> String {
        if header && s.mode != Mode::Column {
            pad_centered(text, widths[i])
        } else if right(i) {
            pad_right_aligned(text, widths[i])
        } else {
            pad_left_aligned(text, widths[i])
        }
    };
    let (left, mid, rightb, hline) = match s.mode {
        Mode::Box => ("│ ", " │ ", " │", "─"),
        Mode::Table | Mode::Markdown => ("| ", " | ", " |", "-"),
        _ => ("", "  ", "", "-"),
    };
    let rule = |l: &str, m: &str, r: &str| -> String {
        let parts: Vec<String> = widths.iter().map(|w| hline.repeat(w + 2)).collect();
        format!("{l}{}{r}\n", parts.join(m))
    };
    let mut text = String::new();
    match s.mode {
        Mode::Box => text.push_str(&rule("┌", "┬", "┐")),
        Mode::Table => text.push_str(&rule("+", "+", "+")),
        _ => {}
    }
    let header_on = s.headers || s.mode != Mode::Column;
    if header_on {
        let heads: Vec<String> = (0..n).map(|i| cell(&names[i], i, true)).collect();
        text.push_str(left);
        text.push_str(&heads.join(mid));
        text.push_str(rightb);
        text.push('\n');
        match s.mode {
            Mode::Box => text.push_str(&rule("├", "┼", "┤")),
            Mode::Table => text.push_str(&rule("+", "+", "+")),
            Mode::Markdown => text.push_str(&rule("|", "|", "|")),
            _ => {
                let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
                text.push_str(&dashes.join("  "));
                text.push('\n');
            }
        }
    }
    for r in &cells {
        let height = r.iter().map(Vec::len).max().unwrap_or(1).max(1);
        for line in 0..height {
            let parts: Vec<String> = (0..n)
                .map(|i| cell(r[i].get(line).map(String::as_str).unwrap_or(""), i, false))
                .collect();
            text.push_str(left);
            text.push_str(&parts.join(mid));
            text.push_str(rightb);
            text.push('\n');
        }
    }
    match s.mode {
        Mode::Box => text.push_str(&rule("└", "┴", "┘")),
        Mode::Table => text.push_str(&rule("+", "+", "+")),
        _ => {}
    }
    out.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_sqlite3_quotes() {
        assert_eq!(csv_field(b"a-b", ","), "a-b");
        assert_eq!(csv_field(b"a b", ","), "\"a b\"");
        assert_eq!(csv_field(b"", ","), "\"\"");
        assert_eq!(csv_field(b"x,y", ","), "\"x,y\"");
        assert_eq!(csv_field(b"q\"", ","), "\"q\"\"\"");
    }

    #[test]
    fn json_reals_as_sqlite3_3_40() {
        assert_eq!(json_real(0.1), "0.10000000000000000555");
        assert_eq!(json_real(1e16), "10000000000000000.0");
        assert_eq!(json_real(2.5e20), "2.5e+20");
        assert_eq!(json_real(123456789.123), "123456789.12299999594");
        assert_eq!(json_real(1e-10), "1.0000000000000000364e-10");
        assert_eq!(json_real(-1.5), "-1.5");
    }

    #[test]
    fn mode_prefixes() {
        assert_eq!(Mode::from_word("mark"), Some(Mode::Markdown));
        assert_eq!(Mode::from_word("t"), None);
        assert_eq!(Mode::from_word("tabs"), Some(Mode::Tabs));
    }
}
