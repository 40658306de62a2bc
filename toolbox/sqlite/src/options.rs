//! The `sqlite3` command line: options declared once, as data ([`OPTIONS`]),
//! from which both parsing and `-help` come.
//!
//! sqlite3's own conventions: options are single-dash words (`-csv`), a
//! double dash is accepted as well (`--csv`), options may come before or
//! after the database name, the first non-option is the database and the
//! rest are SQL statements or dot-commands run in order.

use std::fmt::Write as _;

use crate::render::Mode;

/// What an option does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Sets the output mode.
    Mode(Mode),
    /// `-header` / `-noheader`.
    Headers(bool),
    /// `-bail`.
    Bail,
    /// `-cmd COMMAND`.
    Cmd,
    /// `-separator SEP`.
    Separator,
    /// `-newline SEP`.
    Newline,
    /// `-nullvalue TEXT`.
    NullValue,
    /// `-readonly`.
    ReadOnly,
    /// `-echo`.
    Echo,
    /// `-init FILE`.
    Init,
    /// `-version`.
    Version,
    /// `-help`.
    Help,
    /// Accepted for compatibility, no effect here (`-batch`, `-interactive`, ...).
    Ignored,
    /// Accepted with one argument, no effect here (`-mmap N`, ...).
    IgnoredArg,
    /// Recognised but not available in the sandbox (`-A`, `-zip`, ...).
    Unsupported,
}

/// One option: its name without the dash, its argument's name (if any),
/// its help line, and what it does.
pub struct Opt {
    /// The option's word.
    pub name: &'static str,
    /// The argument it takes, as the help names it.
    pub arg: Option<&'static str>,
    /// One line of help.
    pub help: &'static str,
    /// Its effect.
    pub action: Action,
}

const fn opt(name: &'static str, help: &'static str, action: Action) -> Opt {
    Opt {
        name,
        arg: None,
        help,
        action,
    }
}

const fn opt_arg(name: &'static str, arg: &'static str, help: &'static str, action: Action) -> Opt {
    Opt {
        name,
        arg: Some(arg),
        help,
        action,
    }
}

/// Every option `sqlite3` knows.
pub const OPTIONS: &[Opt] = &[
    opt(
        "A",
        "archive commands (not available in the sandbox)",
        Action::Unsupported,
    ),
    opt(
        "append",
        "append the database to a file (not available in the sandbox)",
        Action::Unsupported,
    ),
    opt("ascii", "output mode 'ascii'", Action::Mode(Mode::Ascii)),
    opt("bail", "stop at the first error", Action::Bail),
    opt(
        "batch",
        "batch input (always the case here)",
        Action::Ignored,
    ),
    opt("box", "output mode 'box'", Action::Mode(Mode::Box)),
    opt("column", "output mode 'column'", Action::Mode(Mode::Column)),
    opt_arg("cmd", "COMMAND", "run COMMAND before the rest", Action::Cmd),
    opt("csv", "output mode 'csv'", Action::Mode(Mode::Csv)),
    opt(
        "deserialize",
        "accepted; databases always load into memory here",
        Action::Ignored,
    ),
    opt("echo", "print each input before running it", Action::Echo),
    opt_arg(
        "init",
        "FILENAME",
        "read and run FILENAME first",
        Action::Init,
    ),
    opt("header", "print column names", Action::Headers(true)),
    opt(
        "noheader",
        "do not print column names",
        Action::Headers(false),
    ),
    opt("help", "this help", Action::Help),
    opt("html", "output mode 'html'", Action::Mode(Mode::Html)),
    opt(
        "interactive",
        "accepted; input is never interactive here",
        Action::Ignored,
    ),
    opt("json", "output mode 'json'", Action::Mode(Mode::Json)),
    opt("line", "output mode 'line'", Action::Mode(Mode::Line)),
    opt("list", "output mode 'list'", Action::Mode(Mode::List)),
    opt_arg(
        "lookaside",
        "SIZE N",
        "accepted, no effect",
        Action::IgnoredArg,
    ),
    opt(
        "markdown",
        "output mode 'markdown'",
        Action::Mode(Mode::Markdown),
    ),
    opt_arg("maxsize", "N", "accepted, no effect", Action::IgnoredArg),
    opt("memtrace", "accepted, no effect", Action::Ignored),
    opt_arg("mmap", "N", "accepted, no effect", Action::IgnoredArg),
    opt_arg(
        "newline",
        "SEP",
        "row separator (default '\\n')",
        Action::Newline,
    ),
    opt("nofollow", "accepted, no effect", Action::Ignored),
    opt_arg(
        "nullvalue",
        "TEXT",
        "text for NULL values (default '')",
        Action::NullValue,
    ),
    opt("quote", "output mode 'quote'", Action::Mode(Mode::Quote)),
    opt("readonly", "open the database read-only", Action::ReadOnly),
    opt("safe", "accepted, no effect", Action::Ignored),
    opt_arg(
        "separator",
        "SEP",
        "column separator (default '|')",
        Action::Separator,
    ),
    opt("stats", "accepted, no effect", Action::Ignored),
    opt("table", "output mode 'table'", Action::Mode(Mode::Table)),
    opt("tabs", "output mode 'tabs'", Action::Mode(Mode::Tabs)),
    opt("version", "print the SQLite version", Action::Version),
    opt_arg(
        "vfs",
        "NAME",
        "accepted; the sandbox's own VFS is the only one",
        Action::IgnoredArg,
    ),
    opt(
        "zip",
        "ZIP archives (not available in the sandbox)",
        Action::Unsupported,
    ),
];

/// The parsed command line.
#[derive(Debug, Default)]
pub struct CommandLine {
    /// The database name (`None`: an in-memory database).
    pub database: Option<String>,
    /// SQL and dot-commands after the database name, in order.
    pub commands: Vec<String>,
    /// Options with their arguments, in order, applied before anything runs.
    pub options: Vec<(Action, Option<String>)>,
}

/// Why the command line was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UsageError {
    /// An option nobody knows.
    #[error("unknown option: {0}")]
    Unknown(String),
    /// An option whose argument is missing.
    #[error("missing argument to {0}")]
    MissingArgument(String),
    /// An option the sandbox cannot offer.
    #[error("option {0} is not available in the local sandbox")]
    Unsupported(String),
}

fn find(word: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.name == word)
}

/// Parses `args` (without the program name).
pub fn parse(args: &[String]) -> Result<CommandLine, UsageError> {
    let mut line = CommandLine::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if line.database.is_some() && !a.starts_with('-') {
            line.commands.push(a.clone());
            continue;
        }
        let Some(word) = a.strip_prefix("--").or_else(|| a.strip_prefix('-')) else {
            line.database = Some(a.clone());
            continue;
        };
        if word.is_empty() {
            // A lone `-` is a file name for sqlite3 too.
            line.database = Some(a.clone());
            continue;
        }
        let Some(o) = find(word) else {
            return Err(UsageError::Unknown(a.clone()));
        };
        if o.action == Action::Unsupported {
            return Err(UsageError::Unsupported(a.clone()));
        }
        let value = match o.arg {
            Some(_) => {
                let Some(v) = args.get(i) else {
                    return Err(UsageError::MissingArgument(a.clone()));
                };
                i += 1;
                // `-lookaside SIZE N` and `-pagecache` take two.
                if o.name == "lookaside" {
                    i += 1;
                }
                Some(v.clone())
            }
            None => None,
        };
        line.options.push((o.action, value));
    }
    Ok(line)
}

/// The `-help` text, built from [`OPTIONS`].
pub fn help() -> String {
    let mut s = String::from(
        "Usage: sqlite3 [OPTIONS] FILENAME [SQL]\n\
         FILENAME is an SQLite database in the sandbox; it is created when\n\
         it does not exist yet. Without it the database is in memory.\n\
         OPTIONS include:\n",
    );
    for o in OPTIONS {
        let head = match o.arg {
            Some(arg) => format!("-{} {arg}", o.name),
            None => format!("-{}", o.name),
        };
        let _ = writeln!(s, "   {head:<20} {}", o.help);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_before_and_after_the_database() {
        let l = parse(&args(&["-csv", "a.db", "-header", "select 1", ".tables"])).unwrap();
        assert_eq!(l.database.as_deref(), Some("a.db"));
        assert_eq!(l.commands, ["select 1", ".tables"]);
        assert_eq!(
            l.options,
            [
                (Action::Mode(Mode::Csv), None),
                (Action::Headers(true), None)
            ]
        );
    }

    #[test]
    fn bad_options_are_refused() {
        assert_eq!(
            parse(&args(&["-bogus"])).unwrap_err(),
            UsageError::Unknown("-bogus".into())
        );
        assert_eq!(
            parse(&args(&["-cmd"])).unwrap_err(),
            UsageError::MissingArgument("-cmd".into())
        );
    }

    #[test]
    fn every_option_is_in_the_help() {
        let h = help();
        for o in OPTIONS {
            assert!(h.contains(&format!("-{}", o.name)), "{}", o.name);
        }
    }
}
