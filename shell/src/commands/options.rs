//! The GNU-style option parser every command family shares: `getopt_long`
//! with short clusters (`-la`), glued and separate arguments (`-n5`, `-n 5`),
//! long options with unambiguous abbreviations (`--max=3`), argument
//! permutation (options after operands), `--`, and a lone `-` as operand.
//!
//! Errors are the first line of GNU's message without the command name
//! (`invalid option -- 'z'`); each family adds its name and "Try --help".

/// Whether an option takes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A flag.
    None,
    /// Always takes an argument (`-m 5`, `-m5`, `--max-count=5`, `--max-count 5`).
    Required,
    /// Takes an argument only when attached (`-i.bak`, `--in-place=.bak`).
    Optional,
}

/// One option of a command: an id, its short letter, its long name.
#[derive(Clone, Copy, Debug)]
pub struct OptSpec {
    /// The id reported in [`Parsed::opts`].
    pub id: &'static str,
    /// The short letter, if any.
    pub short: Option<char>,
    /// The long name without `--`, if any.
    pub long: Option<&'static str>,
    /// The argument kind.
    pub arg: Arg,
}

/// Shorthand for an [`OptSpec`].
pub const fn opt(
    id: &'static str,
    short: Option<char>,
    long: Option<&'static str>,
    arg: Arg,
) -> OptSpec {
    OptSpec {
        id,
        short,
        long,
        arg,
    }
}

/// Shorthand for a flag with a short and an optional long name.
pub const fn flag(short: char, long: Option<&'static str>, id: &'static str) -> OptSpec {
    OptSpec {
        short: Some(short),
        long,
        arg: Arg::None,
        id,
    }
}

/// Shorthand for an option taking a required argument.
pub const fn with_arg(
    short: Option<char>,
    long: Option<&'static str>,
    id: &'static str,
) -> OptSpec {
    OptSpec {
        short,
        long,
        arg: Arg::Required,
        id,
    }
}

/// Shorthand for a long-only flag.
pub const fn long_flag(long: &'static str, id: &'static str) -> OptSpec {
    OptSpec {
        short: None,
        long: Some(long),
        arg: Arg::None,
        id,
    }
}

/// Shorthand for a long option with an optional `=value`.
pub const fn long_opt(long: &'static str, id: &'static str) -> OptSpec {
    OptSpec {
        short: None,
        long: Some(long),
        arg: Arg::Optional,
        id,
    }
}

/// The result of parsing argv.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Options in command-line order, with their argument.
    pub opts: Vec<(&'static str, Option<String>)>,
    /// Operands in order.
    pub operands: Vec<String>,
}

impl Parsed {
    /// True when `id` was given.
    pub fn has(&self, id: &str) -> bool {
        self.opts.iter().any(|(k, _)| *k == id)
    }

    /// The last value given for `id`.
    pub fn last(&self, id: &str) -> Option<&str> {
        self.opts
            .iter()
            .rev()
            .find(|(k, _)| *k == id)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Every value given for `id`, in order.
    pub fn values(&self, id: &str) -> Vec<&str> {
        self.opts
            .iter()
            .filter(|(k, _)| *k == id)
            .filter_map(|(_, v)| v.as_deref())
            .collect()
    }

    /// Which of `ids` was given last ("the last one wins", as with `rm -f -i`).
    pub fn last_of(&self, ids: &[&str]) -> Option<&'static str> {
        self.opts
            .iter()
            .rev()
            .find(|(k, _)| ids.contains(k))
            .map(|(k, _)| *k)
    }
}

/// How argv is split into options and operands.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseMode {
    /// Stop at the first operand (POSIX mode) instead of permuting.
    pub stop_at_operand: bool,
    /// `-NUM` is reported as option id `"NUM"` with the digits as argument (grep's `-5`).
    pub digit_option: bool,
    /// A lone `-NUM`... word starting with `-` followed by a digit is an operand (for
    /// commands taking negative numbers).
    pub negative_numbers: bool,
}

/// Parses `args[1..]` GNU-style. The error is the full first line of the
/// message (`invalid option -- 'z'`), without the command name.
pub fn parse(args: &[String], spec: &[OptSpec], mode: ParseMode) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, val) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let exact = spec.iter().find(|s| s.long == Some(name));
            let cands: Vec<&OptSpec> = match exact {
                Some(s) => vec![s],
                None => spec
                    .iter()
                    .filter(|s| s.long.is_some_and(|l| l.starts_with(name)))
                    .collect(),
            };
            let mut ids: Vec<&str> = cands.iter().map(|s| s.id).collect();
            ids.dedup();
            if cands.is_empty() {
                return Err(format!("unrecognized option '{a}'"));
            }
            if ids.len() > 1 {
                return Err(format!("option '{a}' is ambiguous"));
            }
            let s = cands[0];
            let long = s.long.unwrap_or(name);
            match s.arg {
                Arg::None => {
                    if val.is_some() {
                        return Err(format!("option '--{long}' doesn't allow an argument"));
                    }
                    p.opts.push((s.id, None));
                }
                Arg::Optional => p.opts.push((s.id, val)),
                Arg::Required => {
                    let v = match val {
                        Some(v) => v,
                        None if i < args.len() => {
                            i += 1;
                            args[i - 1].clone()
                        }
                        None => return Err(format!("option '--{long}' requires an argument")),
                    };
                    p.opts.push((s.id, Some(v)));
                }
            }
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let body = &a[1..];
            if mode.negative_numbers && body.as_bytes()[0].is_ascii_digit() {
                p.operands.push(a.clone());
                continue;
            }
            let chars: Vec<(usize, char)> = body.char_indices().collect();
            let mut k = 0;
            while k < chars.len() {
                let (off, c) = chars[k];
                k += 1;
                if mode.digit_option && c.is_ascii_digit() {
                    let mut end = k;
                    while end < chars.len() && chars[end].1.is_ascii_digit() {
                        end += 1;
                    }
                    let stop = if end < chars.len() {
                        chars[end].0
                    } else {
                        body.len()
                    };
                    p.opts.push(("NUM", Some(body[off..stop].to_string())));
                    k = end;
                    continue;
                }
                let Some(s) = spec.iter().find(|s| s.short == Some(c)) else {
                    return Err(format!("invalid option -- '{c}'"));
                };
                match s.arg {
                    Arg::None => p.opts.push((s.id, None)),
                    Arg::Optional => {
                        let rest = &body[off + c.len_utf8()..];
                        p.opts
                            .push((s.id, (!rest.is_empty()).then(|| rest.to_string())));
                        break;
                    }
                    Arg::Required => {
                        let rest = &body[off + c.len_utf8()..];
                        let v = if !rest.is_empty() {
                            rest.to_string()
                        } else if i < args.len() {
                            i += 1;
                            args[i - 1].clone()
                        } else {
                            return Err(format!("option requires an argument -- '{c}'"));
                        };
                        p.opts.push((s.id, Some(v)));
                        break;
                    }
                }
            }
            continue;
        }
        p.operands.push(a.clone());
        if mode.stop_at_operand {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    const SPEC: &[OptSpec] = &[
        flag('a', Some("all"), "all"),
        with_arg(Some('n'), Some("lines"), "lines"),
        long_flag("almost", "almost"),
    ];

    #[test]
    fn permutes_and_clusters() {
        let p = parse(
            &argv(&["x", "f", "-an3", "g", "--lines=4", "--", "-a"]),
            SPEC,
            ParseMode::default(),
        )
        .unwrap();
        assert_eq!(p.operands, vec!["f", "g", "-a"]);
        assert!(p.has("all"));
        assert_eq!(p.values("lines"), vec!["3", "4"]);
    }

    #[test]
    fn errors_have_getopt_shape() {
        assert_eq!(
            parse(&argv(&["x", "-z"]), SPEC, ParseMode::default()).unwrap_err(),
            "invalid option -- 'z'"
        );
        assert_eq!(
            parse(&argv(&["x", "-n"]), SPEC, ParseMode::default()).unwrap_err(),
            "option requires an argument -- 'n'"
        );
        assert_eq!(
            parse(&argv(&["x", "--al"]), SPEC, ParseMode::default()).unwrap_err(),
            "option '--al' is ambiguous"
        );
        assert!(
            parse(&argv(&["x", "--alm"]), SPEC, ParseMode::default())
                .unwrap()
                .has("almost")
        );
    }

    #[test]
    fn modes_change_what_is_an_operand() {
        let posix = ParseMode {
            stop_at_operand: true,
            ..ParseMode::default()
        };
        let p = parse(&argv(&["x", "f", "-a"]), SPEC, posix).unwrap();
        assert_eq!(p.operands, vec!["f", "-a"]);
        let grep_like = ParseMode {
            digit_option: true,
            ..ParseMode::default()
        };
        let p = parse(&argv(&["x", "-a5"]), SPEC, grep_like).unwrap();
        assert_eq!(p.last("NUM"), Some("5"));
        let numeric = ParseMode {
            negative_numbers: true,
            ..ParseMode::default()
        };
        let p = parse(&argv(&["x", "-3", "-a"]), SPEC, numeric).unwrap();
        assert_eq!(p.operands, vec!["-3"]);
        assert_eq!(p.last_of(&["all", "lines"]), Some("all"));
    }
}
