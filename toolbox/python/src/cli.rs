//! The `python3` command line: which program to run (`-c`, `-m`, a file, a
//! script on stdin), what `sys.argv` holds, and the flags CPython accepts that
//! change nothing here (`-u`, `-B`, `-E`, `-s`, `-S`, `-I`, `-O`, `-q`, `-W`,
//! `-X`). Parsed by hand because CPython's rules are not getopt's: everything
//! after `-c CODE`, `-m MOD` or the script name belongs to the program.

/// Where the program text comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `-c CODE`.
    Code(String),
    /// `-m MODULE`.
    Module(String),
    /// A script file in the virtual filesystem.
    File(String),
    /// The script is standard input (`-`, or no argument at all).
    Stdin,
}

/// What one `python3` command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Run a program.
    Run {
        /// The program.
        source: Source,
        /// `sys.argv` as CPython builds it.
        argv: Vec<String>,
    },
    /// `-V` / `--version`.
    Version,
    /// `-h` / `--help`.
    Help,
}

/// A command line CPython would refuse, with CPython's message.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UsageError {
    /// An option that needs an argument came last.
    #[error("Argument expected for the {0} option")]
    MissingArgument(String),
    /// An option CPython does not have.
    #[error("Unknown option: {0}")]
    UnknownOption(String),
}

/// Options that take no argument and change nothing in the sandbox.
const NO_OP_FLAGS: &str = "uBEsSIOqdbiRv";

/// Parses `args` (without the program name).
///
/// ```
/// use sandkeep_python::cli::{parse, Invocation, Source};
/// let args: Vec<String> = ["-u", "-c", "print(1)", "x"].iter().map(|s| s.to_string()).collect();
/// assert_eq!(
///     parse(&args).unwrap(),
///     Invocation::Run { source: Source::Code("print(1)".into()), argv: vec!["-c".into(), "x".into()] }
/// );
/// ```
pub fn parse(args: &[String]) -> Result<Invocation, UsageError> {
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--version" {
            return Ok(Invocation::Version);
        }
        if arg == "--help" {
            return Ok(Invocation::Help);
        }
        if arg == "-" {
            return Ok(run(Source::Stdin, "-", &args[i + 1..]));
        }
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg.len() < 2 {
            break;
        }
        if arg.starts_with("--") {
            return Err(UsageError::UnknownOption(arg.clone()));
        }
        // A cluster of one-letter options, e.g. `-uB` or `-uc CODE`.
        let letters: Vec<char> = arg[1..].chars().collect();
        for (k, &c) in letters.iter().enumerate() {
            match c {
                'V' => return Ok(Invocation::Version),
                'h' | '?' => return Ok(Invocation::Help),
                'c' | 'm' | 'W' | 'X' => {
                    let rest: String = letters[k + 1..].iter().collect();
                    let value = if !rest.is_empty() {
                        rest
                    } else if let Some(v) = args.get(i + 1) {
                        i += 1;
                        v.clone()
                    } else {
                        return Err(UsageError::MissingArgument(format!("-{c}")));
                    };
                    match c {
                        'c' => return Ok(run(Source::Code(value), "-c", &args[i + 1..])),
                        'm' => return Ok(run(Source::Module(value), "-m", &args[i + 1..])),
                        _ => break,
                    }
                }
                c if NO_OP_FLAGS.contains(c) => {}
                c => return Err(UsageError::UnknownOption(format!("-{c}"))),
            }
        }
        i += 1;
    }
    match args.get(i) {
        None => Ok(Invocation::Run {
            source: Source::Stdin,
            argv: vec![String::new()],
        }),
        Some(file) if file == "-" => Ok(run(Source::Stdin, "-", &args[i + 1..])),
        Some(file) => Ok(run(Source::File(file.clone()), file, &args[i + 1..])),
    }
}

fn run(source: Source, argv0: &str, rest: &[String]) -> Invocation {
    let mut argv = vec![argv0.to_string()];
    argv.extend(rest.iter().cloned());
    Invocation::Run { source, argv }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(words: &[&str]) -> Result<Invocation, UsageError> {
        let args: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        parse(&args)
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn code_file_stdin_and_module() {
        assert_eq!(
            p(&["-c", "x", "a", "-v"]).unwrap(),
            Invocation::Run {
                source: Source::Code("x".into()),
                argv: argv(&["-c", "a", "-v"])
            }
        );
        assert_eq!(
            p(&["-uBc", "x"]).unwrap(),
            Invocation::Run {
                source: Source::Code("x".into()),
                argv: argv(&["-c"])
            }
        );
        assert_eq!(
            p(&["s.py", "-c", "1"]).unwrap(),
            Invocation::Run {
                source: Source::File("s.py".into()),
                argv: argv(&["s.py", "-c", "1"])
            }
        );
        assert_eq!(
            p(&["-", "a"]).unwrap(),
            Invocation::Run {
                source: Source::Stdin,
                argv: argv(&["-", "a"])
            }
        );
        assert_eq!(
            p(&[]).unwrap(),
            Invocation::Run {
                source: Source::Stdin,
                argv: argv(&[""])
            }
        );
        assert_eq!(
            p(&["-m", "json.tool", "f"]).unwrap(),
            Invocation::Run {
                source: Source::Module("json.tool".into()),
                argv: argv(&["-m", "f"])
            }
        );
        assert_eq!(p(&["-V"]).unwrap(), Invocation::Version);
        assert_eq!(p(&["-u", "--version"]).unwrap(), Invocation::Version);
    }

    #[test]
    fn usage_errors() {
        assert_eq!(
            p(&["-c"]).unwrap_err(),
            UsageError::MissingArgument("-c".into())
        );
        assert_eq!(
            p(&["-Z"]).unwrap_err(),
            UsageError::UnknownOption("-Z".into())
        );
        assert_eq!(
            p(&["--frob"]).unwrap_err(),
            UsageError::UnknownOption("--frob".into())
        );
    }
}
