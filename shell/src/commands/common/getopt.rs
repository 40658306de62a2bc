//! The GNU-style option parser every command family shares: `getopt_long`
//! with short clusters (`-la`), glued and separate arguments (`-n5`, `-n 5`),
//! long options with unambiguous abbreviations (`--max=3`), argument
//! permutation (options after operands), `--`, and a lone `-` as operand.
//!
//! Errors are the first line of GNU's message without the command name
//! (`invalid option -- 'z'`); each family adds its name and "Try --help".
//!
//! A spec lists long options in the order of the GNU tool's table: an
//! ambiguous abbreviation names its possibilities in that order, as glibc's
//! `getopt_long` does. Long options a command knows by name but does not
//! implement ([`unimplemented`]) take part in abbreviation, so `--un` is
//! ambiguous where GNU's is, and are then reported as unrecognized.

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

/// What an option is reported as in [`Parsed::opts`]: a string id in the
/// older tables, an enum of the command's options in the declared ones
/// ([`crate::declare_options!`]).
pub trait OptionId: Copy + PartialEq + std::fmt::Debug + 'static {
    /// The id `-NUM` is reported under with [`ParseMode::digit_option`].
    const DIGITS: Option<Self>;
    /// True for a long name the command knows but does not implement
    /// ([`unimplemented`]).
    fn is_unimplemented(self) -> bool;
}

impl OptionId for &'static str {
    const DIGITS: Option<Self> = Some("NUM");
    fn is_unimplemented(self) -> bool {
        self == UNIMPLEMENTED
    }
}

/// One option of a command: an id, its short letter, its long name, and
/// (in a declared table) the words of its `--help` line.
#[derive(Clone, Copy, Debug)]
pub struct OptSpec<T = &'static str> {
    /// The id reported in [`Parsed::opts`].
    pub id: T,
    /// The short letter, if any.
    pub short: Option<char>,
    /// The long name without `--`, if any.
    pub long: Option<&'static str>,
    /// The argument kind.
    pub arg: Arg,
    /// The argument's name in the help (`COLS` of `--width=COLS`).
    pub value: &'static str,
    /// The help line's description; lines after the first are
    /// continuation lines. Empty: the option is not listed.
    pub help: &'static str,
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
        value: "",
        help: "",
    }
}

/// Shorthand for a flag with a short and an optional long name.
pub const fn flag(short: char, long: Option<&'static str>, id: &'static str) -> OptSpec {
    OptSpec {
        short: Some(short),
        long,
        arg: Arg::None,
        id,
        value: "",
        help: "",
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
        value: "",
        help: "",
    }
}

/// Shorthand for a long-only flag.
pub const fn long_flag(long: &'static str, id: &'static str) -> OptSpec {
    OptSpec {
        short: None,
        long: Some(long),
        arg: Arg::None,
        id,
        value: "",
        help: "",
    }
}

/// Shorthand for a long option with an optional `=value`.
pub const fn long_opt(long: &'static str, id: &'static str) -> OptSpec {
    OptSpec {
        short: None,
        long: Some(long),
        arg: Arg::Optional,
        id,
        value: "",
        help: "",
    }
}

/// The id of an [`unimplemented`] option.
const UNIMPLEMENTED: &str = "";

/// A long option of the GNU tool that the command does not implement: it
/// counts for abbreviations and ambiguity, and using it is an
/// `unrecognized option` error.
pub const fn unimplemented(long: &'static str) -> OptSpec {
    OptSpec {
        short: None,
        long: Some(long),
        arg: Arg::None,
        id: UNIMPLEMENTED,
        value: "",
        help: "",
    }
}

/// The result of parsing argv.
#[derive(Debug)]
pub struct Parsed<T = &'static str> {
    /// Options in command-line order, with their argument.
    pub opts: Vec<(T, Option<String>)>,
    /// Operands in order.
    pub operands: Vec<String>,
    /// The words that were options, their separate arguments and a `--`, as
    /// given (what GNU's `argv[1..optind]` holds after permutation).
    pub words: Vec<String>,
    /// Options and operands in the order given, for commands where an
    /// option affects only the operands after it (tar's `-C`).
    pub order: Vec<Item>,
}

/// One entry of [`Parsed::order`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// The option at this index of [`Parsed::opts`].
    Opt(usize),
    /// The operand at this index of [`Parsed::operands`].
    Operand(usize),
}

impl<T> Default for Parsed<T> {
    fn default() -> Self {
        Parsed {
            opts: Vec::new(),
            operands: Vec::new(),
            words: Vec::new(),
            order: Vec::new(),
        }
    }
}

impl<T: Copy> Parsed<T> {
    /// True when `id` was given.
    pub fn has<Q: Copy>(&self, id: Q) -> bool
    where
        T: PartialEq<Q>,
    {
        self.opts.iter().any(|(k, _)| *k == id)
    }

    /// The last value given for `id`.
    pub fn last<Q: Copy>(&self, id: Q) -> Option<&str>
    where
        T: PartialEq<Q>,
    {
        self.opts
            .iter()
            .rev()
            .find(|(k, _)| *k == id)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Every value given for `id`, in order.
    pub fn values<Q: Copy>(&self, id: Q) -> Vec<&str>
    where
        T: PartialEq<Q>,
    {
        self.opts
            .iter()
            .filter(|(k, _)| *k == id)
            .filter_map(|(_, v)| v.as_deref())
            .collect()
    }

    /// Which of `ids` was given last ("the last one wins", as with `rm -f -i`).
    pub fn last_of<Q: Copy>(&self, ids: &[Q]) -> Option<T>
    where
        T: PartialEq<Q>,
    {
        self.opts
            .iter()
            .rev()
            .find(|(k, _)| ids.iter().any(|i| *k == *i))
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
    /// A word starting with `-` followed by a digit or `.` is an operand
    /// (for commands taking negative numbers, as `seq -1` and `seq -.5`).
    pub negative_numbers: bool,
    /// No long options, as with POSIX `getopts`: a word starting with `--`
    /// (other than `--` itself) is a cluster of letters, the first being `-`.
    pub no_long: bool,
    /// Long names only as written, never abbreviated (clap's rule, which
    /// ripgrep follows): `--max-co` is unrecognized.
    pub exact_long: bool,
}

/// Parses `args[1..]` GNU-style. The error is the full first line of the
/// message (`invalid option -- 'z'`), without the command name.
pub fn parse<T: OptionId>(
    args: &[String],
    spec: &[OptSpec<T>],
    mode: ParseMode,
) -> Result<Parsed<T>, String> {
    let mut p = Parsed::default();
    let mut noted = (0, 0);
    let mut i = 1;
    while i < args.len() {
        note_order(&mut p, &mut noted);
        let a = &args[i];
        i += 1;
        if a == "--" {
            p.words.push(a.clone());
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
        let first = i - 1;
        if let Some(body) = a.strip_prefix("--").filter(|_| !mode.no_long) {
            parse_long(args, &mut i, body, spec, mode.exact_long, &mut p)?;
            p.words.extend(args[first..i].iter().cloned());
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let body = &a[1..];
            if mode.negative_numbers
                && (body.as_bytes()[0].is_ascii_digit() || body.starts_with('.'))
            {
                p.operands.push(a.clone());
                if mode.stop_at_operand {
                    p.operands.extend(args[i..].iter().cloned());
                    break;
                }
                continue;
            }
            parse_short_cluster(args, &mut i, body, spec, mode, &mut p)?;
            p.words.extend(args[first..i].iter().cloned());
            continue;
        }
        p.operands.push(a.clone());
        if mode.stop_at_operand {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
    }
    note_order(&mut p, &mut noted);
    Ok(p)
}

/// Adds to [`Parsed::order`] the options and operands not in it yet (one
/// word adds only options or only operands); `noted` counts the options and
/// operands already in it, so each word costs the same however many came
/// before (counting them again made `touch {1..1000000}` quadratic: minutes
/// in the parser, where no deadline reached).
fn note_order<T>(p: &mut Parsed<T>, noted: &mut (usize, usize)) {
    p.order.extend((noted.0..p.opts.len()).map(Item::Opt));
    p.order
        .extend((noted.1..p.operands.len()).map(Item::Operand));
    *noted = (p.opts.len(), p.operands.len());
}

/// tar's old-style first word (`tar czf ARCHIVE DIR`): when `args[1]` is
/// no option, each of its letters is one, and those taking an argument take
/// the next words in turn. Returns argv in the usual style (`tar -c -z -f
/// ARCHIVE DIR`) for [`parse`]; the error is GNU tar's message for a letter
/// whose argument is missing.
pub fn expand_old_style<T>(args: &[String], spec: &[OptSpec<T>]) -> Result<Vec<String>, String> {
    let Some(first) = args.get(1).filter(|a| !a.is_empty() && !a.starts_with('-')) else {
        return Ok(args.to_vec());
    };
    let mut out = vec![args[0].clone()];
    let mut rest = args[2..].iter();
    for c in first.chars() {
        out.push(format!("-{c}"));
        let takes_arg = spec
            .iter()
            .any(|s| s.short == Some(c) && s.arg == Arg::Required);
        if takes_arg {
            let Some(value) = rest.next() else {
                return Err(format!("Old option '{c}' requires an argument."));
            };
            out.push(value.clone());
        }
    }
    out.extend(rest.cloned());
    Ok(out)
}

/// One `--NAME[=VALUE]` word (`body` is it without the dashes), resolving
/// unambiguous abbreviations as glibc does. A required argument not given
/// with `=` is the next word: `*i` (the index of the next word) moves past it.
fn parse_long<T: OptionId>(
    args: &[String],
    i: &mut usize,
    body: &str,
    spec: &[OptSpec<T>],
    mode_exact: bool,
    p: &mut Parsed<T>,
) -> Result<(), String> {
    let a = &args[*i - 1];
    let (name, val) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (body, None),
    };
    let exact = spec.iter().find(|s| s.long == Some(name));
    let cands: Vec<&OptSpec<T>> = match exact {
        Some(s) => vec![s],
        None if mode_exact => Vec::new(),
        None => spec
            .iter()
            .filter(|s| s.long.is_some_and(|l| l.starts_with(name)))
            .collect(),
    };
    let Some(&s) = cands.first() else {
        return Err(format!("unrecognized option '{a}'"));
    };
    // glibc: a candidate that behaves unlike the first one makes the
    // abbreviation ambiguous; the message lists those after the first.
    let differs = |o: &&OptSpec<T>| o.id != s.id || o.arg != s.arg || o.id.is_unimplemented();
    if cands[1..].iter().any(differs) {
        let names: Vec<String> = std::iter::once(s)
            .chain(cands[1..].iter().copied().filter(differs))
            .map(|o| format!(" '--{}'", o.long.unwrap_or_default()))
            .collect();
        return Err(format!(
            "option '{a}' is ambiguous; possibilities:{}",
            names.concat()
        ));
    }
    if s.id.is_unimplemented() {
        return Err(format!("unrecognized option '{a}'"));
    }
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
                None if *i < args.len() => {
                    *i += 1;
                    args[*i - 1].clone()
                }
                None => return Err(format!("option '--{long}' requires an argument")),
            };
            p.opts.push((s.id, Some(v)));
        }
    }
    Ok(())
}

/// One `-abc` cluster (`body` is it without the dash): letters until one
/// that takes an argument, which is the rest of the word or else the next
/// word (`*i` moves past it). With `digit_option`, a run of digits is `NUM`.
fn parse_short_cluster<T: OptionId>(
    args: &[String],
    i: &mut usize,
    body: &str,
    spec: &[OptSpec<T>],
    mode: ParseMode,
    p: &mut Parsed<T>,
) -> Result<(), String> {
    let chars: Vec<(usize, char)> = body.char_indices().collect();
    let mut k = 0;
    while k < chars.len() {
        let (off, c) = chars[k];
        k += 1;
        if let Some(digits) = T::DIGITS.filter(|_| mode.digit_option && c.is_ascii_digit()) {
            let mut end = k;
            while end < chars.len() && chars[end].1.is_ascii_digit() {
                end += 1;
            }
            let stop = if end < chars.len() {
                chars[end].0
            } else {
                body.len()
            };
            p.opts.push((digits, Some(body[off..stop].to_string())));
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
                } else if *i < args.len() {
                    *i += 1;
                    args[*i - 1].clone()
                } else {
                    return Err(format!("option requires an argument -- '{c}'"));
                };
                p.opts.push((s.id, Some(v)));
                break;
            }
        }
    }
    Ok(())
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
            "option '--al' is ambiguous; possibilities: '--all' '--almost'"
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
        let getopts = ParseMode {
            no_long: true,
            stop_at_operand: true,
            ..ParseMode::default()
        };
        let err = parse(&argv(&["x", "--all"]), SPEC, getopts).unwrap_err();
        assert_eq!(err, "invalid option -- '-'");
        let p = parse(&argv(&["x", "-a", "--", "-n"]), SPEC, getopts).unwrap();
        assert_eq!(p.operands, vec!["-n"]);
    }

    /// gzip's shape: aliases, digit flags, names it knows but lacks.
    const GZIP: &[OptSpec] = &[
        flag('c', Some("to-stdout"), "c"),
        long_flag("stdout", "c"),
        flag('f', Some("force"), "f"),
        unimplemented("list"),
        unimplemented("license"),
        flag('1', Some("fast"), "1"),
        flag('9', None, "9"),
        with_arg(Some('S'), Some("suffix"), "S"),
    ];

    #[test]
    fn ambiguity_lists_what_differs_from_the_first_candidate() {
        let err = |a: &str| parse(&argv(&["gzip", a]), GZIP, ParseMode::default()).unwrap_err();
        assert_eq!(
            err("--f"),
            "option '--f' is ambiguous; possibilities: '--force' '--fast'"
        );
        assert_eq!(
            err("--li"),
            "option '--li' is ambiguous; possibilities: '--list' '--license'"
        );
        assert_eq!(err("--lis"), "unrecognized option '--lis'");
        assert_eq!(err("--list=x"), "unrecognized option '--list=x'");
        // Two names of one option are no ambiguity.
        let aliases = [long_flag("silent", "q"), long_flag("silence", "q")];
        let p = parse(&argv(&["x", "--sil"]), &aliases, ParseMode::default());
        assert!(p.unwrap().has("q"));
        let p = parse(&argv(&["gzip", "--to", "-19"]), GZIP, ParseMode::default()).unwrap();
        assert_eq!(p.last_of(&["c", "1", "9"]), Some("9"));
        assert!(p.has("c") && p.has("1"));
    }

    #[test]
    fn words_are_the_option_words_as_given() {
        let p = parse(
            &argv(&[
                "gzip", "a", "-cS", ".z", "b", "--suffix", "x", "-f", "--", "-c",
            ]),
            GZIP,
            ParseMode::default(),
        )
        .unwrap();
        assert_eq!(p.words, ["-cS", ".z", "--suffix", "x", "-f", "--"]);
        assert_eq!(p.operands, ["a", "b", "-c"]);
        assert_eq!(p.values("S"), [".z", "x"]);
    }

    #[test]
    fn order_keeps_options_between_operands() {
        let p = parse(
            &argv(&["x", "f", "-a", "g", "-n1"]),
            SPEC,
            ParseMode::default(),
        )
        .unwrap();
        assert_eq!(
            p.order,
            [
                Item::Operand(0),
                Item::Opt(0),
                Item::Operand(1),
                Item::Opt(1)
            ]
        );
    }

    #[test]
    fn old_style_letters_take_the_next_words() {
        let tar = [
            flag('c', None, "c"),
            with_arg(Some('f'), None, "f"),
            flag('z', None, "z"),
        ];
        let got = expand_old_style(&argv(&["tar", "cfz", "a.tgz", "d"]), &tar).unwrap();
        assert_eq!(got, argv(&["tar", "-c", "-f", "a.tgz", "-z", "d"]));
        let same = expand_old_style(&argv(&["tar", "-cf", "a"]), &tar).unwrap();
        assert_eq!(same, argv(&["tar", "-cf", "a"]));
        let err = expand_old_style(&argv(&["tar", "cf"]), &tar).unwrap_err();
        assert_eq!(err, "Old option 'f' requires an argument.");
    }

    #[test]
    fn digit_runs_are_separate_entries_per_word() {
        let diff_like = ParseMode {
            digit_option: true,
            ..ParseMode::default()
        };
        let p = parse(&argv(&["diff", "-1", "-5a", "-2"]), SPEC, diff_like).unwrap();
        let got: Vec<_> = p.opts.iter().map(|(k, v)| (*k, v.as_deref())).collect();
        assert_eq!(
            got,
            [
                ("NUM", Some("1")),
                ("NUM", Some("5")),
                ("all", None),
                ("NUM", Some("2"))
            ]
        );
    }
}
