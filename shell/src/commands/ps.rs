//! `ps` (procps-ng 4.0): the run's processes (the shell, its background
//! jobs still running, and `ps` itself) in the forms agents use: `ps`,
//! `ps -ef`, `ps aux`, `ps -p PID`, `ps -o FORMAT`, `-C NAME`, `--no-headers`.
//! UNIX options (`-e`), BSD ones (`aux`) and GNU long ones mix as in procps.
//! Nothing has a terminal (`?`), times are zero: the sandbox has no
//! scheduler to account for. A job's command is shown as written (`jobs`'
//! words), not as its expanded argv.

use super::{Command, CommandCtx, ProcessEntry};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::own("ps", ps)];

const USAGE: &str = "
Usage:
 ps [options]

 Try 'ps --help <simple|list|output|threads|misc|all>'
  or 'ps --help <s|l|o|t|m|a>'
 for additional help text.

For more details see ps(1).
";

/// Which processes to list.
#[derive(Default)]
struct Select {
    all: bool,
    pids: Vec<u32>,
    ppids: Vec<u32>,
    names: Vec<String>,
    users: Vec<String>,
}

/// How to print them.
#[derive(Default)]
struct Request {
    select: Select,
    full: bool,
    bsd_user: bool,
    bsd: bool,
    format: Vec<(String, Option<String>)>,
    no_headers: bool,
}

/// One process as a row: its entry and the user it runs as.
struct Row<'r> {
    p: &'r ProcessEntry,
    user: &'r str,
    now: &'r str,
}

fn list(value: &str) -> Vec<String> {
    value
        .split([',', ' '])
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The columns of `-o` words (`pid,comm`, `pid=ID,comm=NAME`, `args=`).
fn format_words(value: &str, into: &mut Vec<(String, Option<String>)>) {
    for item in value.split([',', ' ']).filter(|w| !w.is_empty()) {
        match item.split_once('=') {
            Some((key, header)) => into.push((key.to_string(), Some(header.to_string()))),
            None => into.push((item.to_string(), None)),
        }
    }
}

fn usage_error(ctx: &mut CommandCtx<'_>, message: &str) -> i32 {
    let _ = writeln!(ctx.stderr, "error: {message}");
    let _ = ctx.stderr.write_all(USAGE.as_bytes());
    1
}

/// Takes an option's value: the rest of the word, or the next word.
fn value(args: &[String], i: &mut usize, rest: &str) -> Option<String> {
    if !rest.is_empty() {
        return Some(rest.to_string());
    }
    *i += 1;
    args.get(*i).cloned()
}

fn parse(ctx: &mut CommandCtx<'_>) -> Result<Request, i32> {
    let args = ctx.args;
    let mut r = Request::default();
    let mut i = 1;
    while i < args.len() {
        let a = args[i].clone();
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let take = |i: &mut usize| inline.clone().or_else(|| value(args, i, ""));
            match name {
                "pid" | "quick-pid" => r.select.pids.extend(
                    list(&take(&mut i).unwrap_or_default())
                        .iter()
                        .filter_map(|p| p.parse::<u32>().ok()),
                ),
                "ppid" => r.select.ppids.extend(
                    list(&take(&mut i).unwrap_or_default())
                        .iter()
                        .filter_map(|p| p.parse::<u32>().ok()),
                ),
                "format" => format_words(&take(&mut i).unwrap_or_default(), &mut r.format),
                "user" | "User" => r
                    .select
                    .users
                    .extend(list(&take(&mut i).unwrap_or_default())),
                "no-headers" | "no-heading" => r.no_headers = true,
                "sort" | "cols" | "columns" | "width" | "rows" | "lines" => {
                    take(&mut i);
                }
                "forest" | "headers" | "cumulative" => {}
                "help" => {
                    let _ = ctx.stdout.write_all(USAGE.as_bytes());
                    return Err(0);
                }
                "version" | "V" => {
                    let _ = ctx.stdout.write_all(b"ps from procps-ng 4.0.2\n");
                    return Err(0);
                }
                _ => return Err(usage_error(ctx, "unknown gnu long option")),
            }
        } else if let Some(cluster) = a.strip_prefix('-') {
            for (at, c) in cluster.char_indices() {
                let rest = &cluster[at + c.len_utf8()..];
                match c {
                    'e' | 'A' | 'a' | 'd' | 'x' => r.select.all = true,
                    'f' | 'F' => r.full = true,
                    'w' | 'H' | 'l' | 'j' | 'c' | 'L' | 'T' | 'y' | 'M' | 'N' | 'm' => {}
                    'p' | 'q' | 'C' | 'o' | 'O' | 'u' | 'U' | 'g' | 'G' | 's' | 't' | 'k' => {
                        let Some(v) = value(args, &mut i, rest) else {
                            return Err(usage_error(ctx, "list of process IDs must follow -p"));
                        };
                        match c {
                            'p' | 'q' => r
                                .select
                                .pids
                                .extend(list(&v).iter().filter_map(|p| p.parse::<u32>().ok())),
                            'C' => r.select.names.extend(list(&v)),
                            'o' | 'O' => format_words(&v, &mut r.format),
                            'u' | 'U' | 'g' | 'G' => r.select.users.extend(list(&v)),
                            _ => {}
                        }
                        break;
                    }
                    'V' => {
                        let _ = ctx.stdout.write_all(b"ps from procps-ng 4.0.2\n");
                        return Err(0);
                    }
                    _ => return Err(usage_error(ctx, "unsupported SysV option")),
                }
            }
        } else if a.chars().all(|c| c.is_ascii_digit() || c == ',') {
            r.select
                .pids
                .extend(list(&a).iter().filter_map(|p| p.parse::<u32>().ok()));
        } else {
            r.bsd = true;
            for (at, c) in a.char_indices() {
                let rest = &a[at + c.len_utf8()..];
                match c {
                    'a' | 'x' | 'e' | 'A' => r.select.all = true,
                    'u' => r.bsd_user = true,
                    'h' => r.no_headers = true,
                    'w' | 'f' | 'j' | 'l' | 'v' | 'r' | 'c' | 'S' | 'T' | 'n' | 'm' | 'H' => {}
                    'p' | 'q' | 'o' | 'O' | 'U' | 't' | 'k' => {
                        let Some(v) = value(args, &mut i, rest) else {
                            return Err(usage_error(ctx, "something must follow p"));
                        };
                        match c {
                            'p' | 'q' => r
                                .select
                                .pids
                                .extend(list(&v).iter().filter_map(|p| p.parse::<u32>().ok())),
                            'o' | 'O' => format_words(&v, &mut r.format),
                            'U' => r.select.users.extend(list(&v)),
                            _ => {}
                        }
                        break;
                    }
                    _ => return Err(usage_error(ctx, "unsupported option (BSD syntax)")),
                }
            }
        }
        i += 1;
    }
    Ok(r)
}

/// A column: its header, width, whether it is right-aligned.
fn column(key: &str) -> Option<(&'static str, usize, bool)> {
    Some(match key {
        "pid" | "tgid" | "spid" | "lwp" => ("PID", 5, true),
        "ppid" => ("PPID", 5, true),
        "pgid" | "pgrp" => ("PGID", 5, true),
        "sid" | "sess" | "session" => ("SID", 5, true),
        "comm" | "ucomm" | "ucmd" => ("COMMAND", 15, false),
        "cmd" => ("CMD", 27, false),
        "args" | "command" => ("COMMAND", 27, false),
        "user" | "euser" | "uname" | "ruser" => ("USER", 8, false),
        "uid" | "euid" | "ruid" => ("UID", 5, true),
        "stat" => ("STAT", 4, false),
        "s" | "state" => ("S", 1, false),
        "tty" | "tt" | "tname" => ("TT", 8, false),
        "time" | "cputime" => ("TIME", 8, true),
        "etime" => ("ELAPSED", 11, true),
        "etimes" => ("ELAPSED", 7, true),
        "%cpu" | "pcpu" => ("%CPU", 4, true),
        "%mem" | "pmem" => ("%MEM", 4, true),
        "vsz" | "vsize" => ("VSZ", 6, true),
        "rss" | "rssize" => ("RSS", 5, true),
        "start" => ("STARTED", 8, true),
        "stime" | "start_time" => ("STIME", 5, false),
        "ni" | "nice" => ("NI", 3, true),
        "pri" => ("PRI", 3, true),
        "c" => ("C", 2, true),
        "f" | "flags" => ("F", 1, true),
        "wchan" => ("WCHAN", 6, false),
        _ => return None,
    })
}

fn comm(command: &str) -> &str {
    let first = command.split_whitespace().next().unwrap_or("");
    first.rsplit('/').next().unwrap_or(first)
}

/// A cell's text.
fn cell(key: &str, row: &Row<'_>) -> String {
    let p = row.p;
    match key {
        "pid" | "tgid" | "spid" | "lwp" => p.pid.to_string(),
        "ppid" => p.ppid.to_string(),
        "pgid" | "pgrp" | "sid" | "sess" | "session" => p.ppid.max(1).min(p.pid).to_string(),
        "comm" | "ucomm" | "ucmd" => comm(&p.command).to_string(),
        "cmd" | "args" | "command" => p.command.clone(),
        "user" | "euser" | "uname" | "ruser" => row.user.to_string(),
        "uid" | "euid" | "ruid" => "1000".to_string(),
        "stat" => if p.command == "ps" { "R" } else { "S" }.to_string(),
        "s" | "state" => if p.command == "ps" { "R" } else { "S" }.to_string(),
        "tty" | "tt" | "tname" => "?".to_string(),
        "time" | "cputime" => "00:00:00".to_string(),
        "etime" => "00:00".to_string(),
        "etimes" | "ni" | "nice" | "c" | "vsz" | "vsize" | "rss" | "rssize" => "0".to_string(),
        "%cpu" | "pcpu" | "%mem" | "pmem" => "0.0".to_string(),
        "start" => format!("{}:00", row.now),
        "stime" | "start_time" => row.now.to_string(),
        "pri" => "19".to_string(),
        "bsdtime" => "0:00".to_string(),
        "bsdstart" => row.now.to_string(),
        "f" | "flags" => "0".to_string(),
        _ => "-".to_string(),
    }
}

/// Prints the rows under the columns: right-aligned ones padded left, the
/// last left-aligned one unpadded.
fn table(
    out: &mut String,
    cols: &[(String, String, usize, bool)],
    rows: &[Row<'_>],
    headers: bool,
) {
    let mut lines: Vec<Vec<String>> = Vec::new();
    if headers && cols.iter().any(|c| !c.1.is_empty()) {
        lines.push(cols.iter().map(|c| c.1.clone()).collect());
    }
    for r in rows {
        lines.push(cols.iter().map(|c| cell(&c.0, r)).collect());
    }
    for line in lines {
        let mut text = String::new();
        for (k, (value, col)) in line.iter().zip(cols).enumerate() {
            let width = col.2.max(col.1.len());
            if k > 0 {
                text.push(' ');
            }
            if col.3 {
                text.push_str(&format!("{value:>width$}"));
            } else if k + 1 == cols.len() {
                text.push_str(value);
            } else {
                text.push_str(&format!("{value:<width$}"));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
}

/// `ps [options]`
pub fn ps(ctx: &mut CommandCtx<'_>) -> i32 {
    let r = match parse(ctx) {
        Ok(r) => r,
        Err(status) => return status,
    };
    let mut procs = ctx.exec.processes();
    if procs.is_empty() {
        procs.push(ProcessEntry::new(4242, 1, "bash"));
    }
    let me = procs.iter().map(|p| p.pid).max().unwrap_or(4242) + 7;
    procs.push(ProcessEntry::new(me, procs[0].pid, "ps"));
    for a in &ctx.args[1..] {
        procs.last_mut().expect("ps").command.push(' ');
        procs.last_mut().expect("ps").command.push_str(a);
    }
    let user = ctx.getenv("USER").unwrap_or("sandbox").to_string();
    let s = &r.select;
    let chosen: Vec<&ProcessEntry> = procs
        .iter()
        .filter(|p| {
            let by_list = !s.pids.is_empty()
                || !s.ppids.is_empty()
                || !s.names.is_empty()
                || !s.users.is_empty();
            if !by_list {
                return true;
            }
            s.pids.contains(&p.pid)
                || s.ppids.contains(&p.ppid)
                || s.names.iter().any(|n| n == comm(&p.command))
                || s.users.iter().any(|u| *u == user || u == "1000")
        })
        .collect();
    let now = ctx.control.clock.now();
    let secs = now.secs.rem_euclid(86_400);
    let hhmm = format!("{:02}:{:02}", secs / 3600, secs % 3600 / 60);
    let keys: Vec<(String, Option<String>)> = if !r.format.is_empty() {
        r.format.clone()
    } else {
        let words: &[&str] = if r.bsd_user {
            &[
                "user", "pid", "%cpu", "%mem", "vsz", "rss", "tty", "stat", "bsdstart", "bsdtime",
                "args",
            ]
        } else if r.full {
            &["user", "pid", "ppid", "c", "stime", "tty", "time", "cmd"]
        } else if r.bsd {
            &["pid", "tty", "stat", "bsdtime", "args"]
        } else {
            &["pid", "tty", "time", "comm"]
        };
        words.iter().map(|w| (w.to_string(), None)).collect()
    };
    let mut cols = Vec::new();
    for (key, header) in &keys {
        let (name, width, right) = match (key.as_str(), r.full || r.bsd || r.bsd_user) {
            ("bsdtime", _) => ("TIME", 6, true),
            ("user", true) if r.full => ("UID", 8, false),
            ("tty", true) => ("TTY", 8, false),
            ("tty", false) if r.format.is_empty() => ("TTY", 8, false),
            ("comm", false) if r.format.is_empty() => ("CMD", 15, false),
            ("bsdstart", _) => ("START", 5, false),
            (k, _) => match column(k) {
                Some(c) => c,
                None => {
                    let _ = writeln!(
                        ctx.stderr,
                        "error: unknown user-defined format specifier \"{key}\""
                    );
                    let _ = ctx.stderr.write_all(USAGE.as_bytes());
                    return 1;
                }
            },
        };
        let shown = header.clone().unwrap_or_else(|| name.to_string());
        cols.push((key.clone(), shown, width, right));
    }
    let rows: Vec<Row<'_>> = chosen
        .iter()
        .map(|p| Row {
            p,
            user: &user,
            now: &hhmm,
        })
        .collect();
    let mut out = String::new();
    table(&mut out, &cols, &rows, !r.no_headers);
    let _ = ctx.stdout.write_all(out.as_bytes());
    i32::from(chosen.is_empty())
}
