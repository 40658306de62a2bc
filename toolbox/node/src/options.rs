//! The `node` command line: options declared once as data ([`OPTIONS`]),
//! from which parsing and `--help` come. Node's conventions: options come
//! before the script; the first non-option (or `-`) is the script and
//! everything after it belongs to the script; `-e`/`-p` take the code as
//! their value, and `--` ends the options.

use std::fmt::Write as _;

/// What an option does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `-e CODE`.
    Eval,
    /// `-p CODE`.
    Print,
    /// `-v`.
    Version,
    /// `-h`.
    Help,
    /// `--input-type=module|commonjs`.
    InputType,
    /// `-r MODULE`: preload a module.
    Require,
    /// `-c`: check the syntax only.
    Check,
    /// Accepted, no effect here.
    Ignored,
    /// Accepted with a value, no effect here.
    IgnoredValue,
    /// Recognised, not available in the sandbox.
    Unsupported,
}

/// One option.
pub struct Opt {
    /// Long name without `--`.
    pub long: &'static str,
    /// Short letter, if any.
    pub short: Option<char>,
    /// Whether it takes a value (`--x=V` or `--x V`).
    pub value: bool,
    /// One line of help.
    pub help: &'static str,
    /// Its effect.
    pub action: Action,
}

const fn opt(
    long: &'static str,
    short: Option<char>,
    value: bool,
    help: &'static str,
    action: Action,
) -> Opt {
    Opt {
        long,
        short,
        value,
        help,
        action,
    }
}

/// Every option `node` knows here.
pub const OPTIONS: &[Opt] = &[
    opt("eval", Some('e'), true, "evaluate script", Action::Eval),
    opt(
        "print",
        Some('p'),
        true,
        "evaluate script and print result",
        Action::Print,
    ),
    opt(
        "check",
        Some('c'),
        false,
        "syntax check script without executing",
        Action::Check,
    ),
    opt(
        "require",
        Some('r'),
        true,
        "module to preload (option can be repeated)",
        Action::Require,
    ),
    opt(
        "input-type",
        None,
        true,
        "set module type for string input (module or commonjs)",
        Action::InputType,
    ),
    opt(
        "version",
        Some('v'),
        false,
        "print Node.js version",
        Action::Version,
    ),
    opt(
        "help",
        Some('h'),
        false,
        "print node command line options",
        Action::Help,
    ),
    opt(
        "no-warnings",
        None,
        false,
        "silence all process warnings",
        Action::Ignored,
    ),
    opt(
        "no-deprecation",
        None,
        false,
        "silence deprecation warnings",
        Action::Ignored,
    ),
    opt(
        "enable-source-maps",
        None,
        false,
        "accepted, no effect",
        Action::Ignored,
    ),
    opt(
        "trace-warnings",
        None,
        false,
        "accepted, no effect",
        Action::Ignored,
    ),
    opt(
        "trace-uncaught",
        None,
        false,
        "accepted, no effect",
        Action::Ignored,
    ),
    opt(
        "experimental-vm-modules",
        None,
        false,
        "accepted, no effect",
        Action::Ignored,
    ),
    opt(
        "experimental-modules",
        None,
        false,
        "accepted, no effect",
        Action::Ignored,
    ),
    opt(
        "experimental-specifier-resolution",
        None,
        true,
        "accepted, no effect",
        Action::IgnoredValue,
    ),
    opt(
        "max-old-space-size",
        None,
        true,
        "accepted; the run's memory budget applies",
        Action::IgnoredValue,
    ),
    opt(
        "stack-size",
        None,
        true,
        "accepted, no effect",
        Action::IgnoredValue,
    ),
    opt(
        "unhandled-rejections",
        None,
        true,
        "accepted, no effect",
        Action::IgnoredValue,
    ),
    opt(
        "title",
        None,
        true,
        "accepted, no effect",
        Action::IgnoredValue,
    ),
    opt(
        "interactive",
        Some('i'),
        false,
        "REPL (not available: input is never a terminal here)",
        Action::Unsupported,
    ),
    opt(
        "inspect",
        None,
        false,
        "debugger (not available in the sandbox)",
        Action::Unsupported,
    ),
    opt(
        "inspect-brk",
        None,
        false,
        "debugger (not available in the sandbox)",
        Action::Unsupported,
    ),
    opt(
        "test",
        None,
        false,
        "test runner (not available in the sandbox)",
        Action::Unsupported,
    ),
    opt(
        "watch",
        None,
        false,
        "watch mode (not available in the sandbox)",
        Action::Unsupported,
    ),
];

/// Where the program comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `-e CODE` (`print`: `-p`).
    Eval { code: String, print: bool },
    /// A script file.
    File(String),
    /// Standard input (no script, or `-`).
    Stdin,
}

/// The parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// `--version`.
    Version,
    /// `--help`.
    Help,
    /// Run something.
    Run {
        /// The program.
        source: Source,
        /// `--input-type=module`.
        module: bool,
        /// `-c`.
        check_only: bool,
        /// `-r` modules.
        preload: Vec<String>,
        /// The script's arguments (after the script, or after `--`).
        args: Vec<String>,
        /// `-` was the script.
        dash: bool,
    },
}

/// Why the command line was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UsageError {
    /// An unknown option (node exits 9).
    #[error("bad option: {0}")]
    BadOption(String),
    /// An option without its value.
    #[error("{0} requires an argument")]
    MissingValue(String),
    /// An option the sandbox cannot offer.
    #[error("{0} is not available in the local sandbox's embedded node")]
    Unsupported(String),
}

/// Parses `args` (without the program name).
pub fn parse(args: &[String]) -> Result<Invocation, UsageError> {
    let mut source = None;
    let mut module = false;
    let mut check_only = false;
    let mut preload = Vec::new();
    let mut version = false;
    let mut help = false;
    let mut i = 0;
    let mut dash = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            break;
        }
        if a == "-" {
            dash = true;
            break;
        }
        if !a.starts_with('-') {
            if source.is_none() {
                source = Some(Source::File(a.clone()));
            } else {
                // After -e, the first plain word starts the script's arguments.
                i -= 1;
            }
            break;
        }
        let (o, inline) = if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            match OPTIONS.iter().find(|o| o.long == name) {
                Some(o) => (o, inline),
                None => return Err(UsageError::BadOption(a.clone())),
            }
        } else {
            let mut chars = a[1..].chars();
            let c = chars.next().unwrap_or('-');
            let rest: String = chars.collect();
            match OPTIONS.iter().find(|o| o.short == Some(c)) {
                Some(o) if o.value && !rest.is_empty() => (o, Some(rest)),
                Some(o) if rest.is_empty() => (o, None),
                _ => return Err(UsageError::BadOption(a.clone())),
            }
        };
        let value = if o.value {
            match inline {
                Some(v) => Some(v),
                None => {
                    let Some(v) = args.get(i) else {
                        return Err(UsageError::MissingValue(a.clone()));
                    };
                    i += 1;
                    Some(v.clone())
                }
            }
        } else {
            None
        };
        let value = value.unwrap_or_default();
        match o.action {
            Action::Eval => {
                source = Some(Source::Eval {
                    code: value,
                    print: false,
                })
            }
            Action::Print => {
                source = Some(Source::Eval {
                    code: value,
                    print: true,
                })
            }
            Action::Version => version = true,
            Action::Help => help = true,
            Action::InputType => module = value == "module",
            Action::Require => preload.push(value),
            Action::Check => check_only = true,
            Action::Ignored | Action::IgnoredValue => {}
            Action::Unsupported => return Err(UsageError::Unsupported(a.clone())),
        }
    }
    if version {
        return Ok(Invocation::Version);
    }
    if help {
        return Ok(Invocation::Help);
    }
    Ok(Invocation::Run {
        source: source.unwrap_or(Source::Stdin),
        module,
        check_only,
        preload,
        args: args[i.min(args.len())..].to_vec(),
        dash,
    })
}

/// The `--help` text, from [`OPTIONS`].
pub fn help() -> String {
    let mut s = String::from(
        "Usage: node [options] [ -e script | script.js | - ] [arguments]\n\n\
         sandkeep's embedded node: QuickJS with the Node.js APIs scripts use most,\n\
         over the sandbox's files.\n\nOptions:\n",
    );
    for o in OPTIONS {
        let head = match (o.short, o.value) {
            (Some(c), true) => format!("-{c}, --{}=...", o.long),
            (Some(c), false) => format!("-{c}, --{}", o.long),
            (None, true) => format!("--{}=...", o.long),
            (None, false) => format!("--{}", o.long),
        };
        let _ = writeln!(s, "  {head:<38} {}", o.help);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn script_arguments_follow_the_script() {
        let Invocation::Run { source, args, .. } = parse(&v(&["a.js", "-e", "x"])).unwrap() else {
            panic!()
        };
        assert_eq!(source, Source::File("a.js".into()));
        assert_eq!(args, ["-e", "x"]);
    }

    #[test]
    fn eval_with_arguments_and_double_dash() {
        let Invocation::Run { args, .. } = parse(&v(&["-e", "1", "--", "x"])).unwrap() else {
            panic!()
        };
        assert_eq!(args, ["x"]);
        let Invocation::Run { args, .. } = parse(&v(&["-p", "1", "a", "b"])).unwrap() else {
            panic!()
        };
        assert_eq!(args, ["a", "b"]);
    }

    #[test]
    fn bad_options() {
        assert_eq!(
            parse(&v(&["--bogus"])),
            Err(UsageError::BadOption("--bogus".into()))
        );
        assert_eq!(
            parse(&v(&["-e"])),
            Err(UsageError::MissingValue("-e".into()))
        );
    }
}
