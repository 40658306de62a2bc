//! `getopts OPTSTRING NAME [ARGS]`: POSIX option parsing with bash's
//! messages, silent mode (leading `:`), `OPTIND`/`OPTARG`/`OPTERR`.

use super::err;
use crate::interp::{ExecResult, Interp};

/// Hidden variable holding the position inside a bundled option word
/// (`-abc`): `OPTIND:CHARPOS`. Its name is not a valid identifier, so no
/// script can see or set it.
const STATE: &str = "\u{1}getopts";

/// The outcome of one `getopts` step, separated from the interpreter for testing.
#[derive(Debug, PartialEq, Eq)]
pub struct Step {
    /// Exit status: 0 when an option was found, 1 at the end of options.
    pub status: i32,
    /// The value for NAME.
    pub name: String,
    /// `Some` sets OPTARG, `None` unsets it.
    pub optarg: Option<String>,
    /// The new OPTIND.
    pub optind: usize,
    /// The new position inside the current word (0: at a word start).
    pub charpos: usize,
    /// A diagnostic to print (without the `bash: ` prefix).
    pub message: Option<String>,
}

/// One step of option parsing.
pub fn step(optstring: &str, args: &[String], optind: usize, charpos: usize) -> Step {
    let silent = optstring.starts_with(':');
    let spec = optstring.strip_prefix(':').unwrap_or(optstring);
    let end = |optind| Step {
        status: 1,
        name: "?".into(),
        optarg: None,
        optind,
        charpos: 0,
        message: None,
    };
    let mut optind = optind.max(1);
    let mut charpos = charpos;
    if charpos == 0 {
        // Past the end: bash leaves OPTIND just after the last argument.
        let Some(arg) = args.get(optind - 1) else {
            return end(args.len() + 1);
        };
        if arg == "--" {
            return end(optind + 1);
        }
        if !arg.starts_with('-') || arg == "-" {
            return end(optind);
        }
        charpos = 1;
    }
    let word: Vec<char> = args
        .get(optind - 1)
        .map(|a| a.chars().collect())
        .unwrap_or_default();
    if charpos >= word.len() {
        return end(optind);
    }
    let c = word[charpos];
    charpos += 1;
    let at_end = charpos >= word.len();
    let pos = spec.find(c).filter(|_| c != ':');
    let Some(pos) = pos else {
        if at_end {
            optind += 1;
            charpos = 0;
        }
        return Step {
            status: 0,
            name: "?".into(),
            optarg: silent.then(|| c.to_string()),
            optind,
            charpos,
            message: (!silent).then(|| format!("illegal option -- {c}")),
        };
    };
    let takes_arg = spec[pos + c.len_utf8()..].starts_with(':');
    if !takes_arg {
        if at_end {
            optind += 1;
            charpos = 0;
        }
        return Step {
            status: 0,
            name: c.to_string(),
            optarg: None,
            optind,
            charpos,
            message: None,
        };
    }
    if !at_end {
        let rest: String = word[charpos..].iter().collect();
        return Step {
            status: 0,
            name: c.to_string(),
            optarg: Some(rest),
            optind: optind + 1,
            charpos: 0,
            message: None,
        };
    }
    match args.get(optind) {
        Some(a) => Step {
            status: 0,
            name: c.to_string(),
            optarg: Some(a.clone()),
            optind: optind + 2,
            charpos: 0,
            message: None,
        },
        None => {
            if silent {
                Step {
                    status: 0,
                    name: ":".into(),
                    optarg: Some(c.to_string()),
                    optind: optind + 1,
                    charpos: 0,
                    message: None,
                }
            } else {
                Step {
                    status: 0,
                    name: "?".into(),
                    optarg: None,
                    optind: optind + 1,
                    charpos: 0,
                    message: Some(format!("option requires an argument -- {c}")),
                }
            }
        }
    }
}

/// `getopts`
pub fn getopts(interp: &mut Interp, args: &[String]) -> ExecResult {
    if args.len() < 3 {
        let _ = interp.write_fd(2, b"getopts: usage: getopts optstring name [arg ...]\n");
        return Ok(2);
    }
    let optstring = &args[1];
    let name = &args[2];
    let list: Vec<String> = if args.len() > 3 {
        args[3..].to_vec()
    } else {
        interp.positional.clone()
    };
    let optind_text = interp.vars.get_str("OPTIND").unwrap_or("1").to_string();
    let optind: usize = optind_text
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|v| *v >= 1)
        .map_or(1, |v| v as usize);
    // Resume inside a bundled word only if OPTIND was not changed meanwhile.
    let charpos = interp
        .vars
        .get_str(STATE)
        .and_then(|s| s.split_once(':'))
        .filter(|(i, _)| *i == optind_text)
        .and_then(|(_, c)| c.parse().ok())
        .unwrap_or(0);
    let s = step(optstring, &list, optind, charpos);
    if let Some(m) = &s.message
        && interp.vars.get_str("OPTERR").map(|v| v.trim()) != Some("0")
    {
        err(interp, m);
    }
    let optind_s = s.optind.to_string();
    let _ = interp
        .vars
        .set_str(STATE, format!("{optind_s}:{}", s.charpos));
    let _ = interp.assign("OPTIND", &optind_s, false);
    match s.optarg {
        Some(a) => {
            let _ = interp.assign("OPTARG", &a, false);
        }
        None => {
            let _ = interp.vars.unset("OPTARG");
        }
    }
    if !crate::interp::vars::is_valid_name(name) {
        err(interp, format!("getopts: `{name}': not a valid identifier"));
        return Ok(1);
    }
    if let Err(e) = interp.assign(name, &s.name, false) {
        err(interp, format!("getopts: {e}"));
        return Ok(1);
    }
    Ok(s.status)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn bundled_and_arguments() {
        let args = v(&["-abfoo", "x"]);
        let s = step("ab:", &args, 1, 0);
        assert_eq!((s.name.as_str(), s.optind, s.charpos), ("a", 1, 2));
        let s = step("ab:", &args, s.optind, s.charpos);
        assert_eq!(
            (s.name.as_str(), s.optarg.as_deref(), s.optind),
            ("b", Some("foo"), 2)
        );
        let s = step("ab:", &args, s.optind, s.charpos);
        assert_eq!(s.status, 1);
    }

    #[test]
    fn errors_and_silent_mode() {
        let s = step(":ab:", &v(&["-b"]), 1, 0);
        assert_eq!(
            (s.name.as_str(), s.optarg.as_deref(), s.optind),
            (":", Some("b"), 2)
        );
        let s = step(":ab:", &v(&["-z"]), 1, 0);
        assert_eq!((s.name.as_str(), s.optarg.as_deref()), ("?", Some("z")));
        let s = step("a", &v(&["-z"]), 1, 0);
        assert_eq!(s.message.as_deref(), Some("illegal option -- z"));
        let s = step("a", &v(&["--", "-a"]), 1, 0);
        assert_eq!((s.status, s.optind), (1, 2));
    }
}
