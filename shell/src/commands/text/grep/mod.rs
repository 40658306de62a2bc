//! `grep`, `egrep`, `fgrep`: print lines that match patterns.
//!
//! Options and operands are read here ([`grep`]); files and directories are
//! walked here too; the search of one buffer and its output live in
//! [`search`]. Patterns compile through [`super::posix_regex`] (BRE, ERE,
//! fixed strings) or, for `-P`, straight through the `regex` crate, whose
//! syntax is Perl-like; `-P` patterns it cannot take (look-around, `\K`,
//! back-references) fall back to `fancy-regex`'s backtracker.

mod search;

use std::io::{BufWriter, Write};

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use super::posix_regex::{Flavor, Regex, RegexOptions, Syntax, Whole};
use crate::commands::CommandCtx;
use crate::fs::{FileKind, Fs};

use search::{Config, Matcher, Searcher};

pub(crate) const USAGE: &str = "\
Usage: grep [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE.
Example: grep -i 'hello world' menu.h main.c
PATTERNS can contain multiple patterns separated by newlines.

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -P, --perl-regexp         PATTERNS are Perl regular expressions
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions in patterns and data
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           a data line ends in 0 byte, not newline

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   assume that binary files are TYPE;
                            TYPE is 'binary', 'text', or 'without-match'
  -a, --text                equivalent to --binary-files=text
  -I                        equivalent to --binary-files=without-match
  -r, --recursive           search directories recursively
  -R, --dereference-recursive  likewise, but follow all symlinks
      --include=GLOB        search only files that match GLOB
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any file pattern from FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -T, --initial-tab         make tabs line up (if needed)
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --color[=WHEN]        accepted; output is never colored

When FILE is '-', read standard input.  With no FILE, read '.' if
recursive, '-' otherwise.  With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.
";

const SPEC: &[OptSpec] = &[
    opt("E", Some('E'), Some("extended-regexp"), Arg::None),
    opt("F", Some('F'), Some("fixed-strings"), Arg::None),
    opt("G", Some('G'), Some("basic-regexp"), Arg::None),
    opt("P", Some('P'), Some("perl-regexp"), Arg::None),
    opt("e", Some('e'), Some("regexp"), Arg::Required),
    opt("f", Some('f'), Some("file"), Arg::Required),
    opt("i", Some('i'), Some("ignore-case"), Arg::None),
    opt("i", Some('y'), None, Arg::None),
    opt("no-i", None, Some("no-ignore-case"), Arg::None),
    opt("w", Some('w'), Some("word-regexp"), Arg::None),
    opt("x", Some('x'), Some("line-regexp"), Arg::None),
    opt("z", Some('z'), Some("null-data"), Arg::None),
    opt("s", Some('s'), Some("no-messages"), Arg::None),
    opt("v", Some('v'), Some("invert-match"), Arg::None),
    opt("V", Some('V'), Some("version"), Arg::None),
    opt("m", Some('m'), Some("max-count"), Arg::Required),
    opt("b", Some('b'), Some("byte-offset"), Arg::None),
    opt("n", Some('n'), Some("line-number"), Arg::None),
    opt("no-n", None, Some("no-line-number"), Arg::None),
    opt("line-buffered", None, Some("line-buffered"), Arg::None),
    opt("H", Some('H'), Some("with-filename"), Arg::None),
    opt("h", Some('h'), Some("no-filename"), Arg::None),
    opt("label", None, Some("label"), Arg::Required),
    opt("o", Some('o'), Some("only-matching"), Arg::None),
    opt("q", Some('q'), Some("quiet"), Arg::None),
    opt("q", None, Some("silent"), Arg::None),
    opt("binary-files", None, Some("binary-files"), Arg::Required),
    opt("a", Some('a'), Some("text"), Arg::None),
    opt("I", Some('I'), None, Arg::None),
    opt("d", Some('d'), Some("directories"), Arg::Required),
    opt("D", Some('D'), Some("devices"), Arg::Required),
    opt("r", Some('r'), Some("recursive"), Arg::None),
    opt("R", Some('R'), Some("dereference-recursive"), Arg::None),
    opt("include", None, Some("include"), Arg::Required),
    opt("exclude", None, Some("exclude"), Arg::Required),
    opt("exclude-from", None, Some("exclude-from"), Arg::Required),
    opt("exclude-dir", None, Some("exclude-dir"), Arg::Required),
    opt("L", Some('L'), Some("files-without-match"), Arg::None),
    opt("l", Some('l'), Some("files-with-matches"), Arg::None),
    opt("c", Some('c'), Some("count"), Arg::None),
    opt("T", Some('T'), Some("initial-tab"), Arg::None),
    opt("Z", Some('Z'), Some("null"), Arg::None),
    opt("B", Some('B'), Some("before-context"), Arg::Required),
    opt("A", Some('A'), Some("after-context"), Arg::Required),
    opt("C", Some('C'), Some("context"), Arg::Required),
    opt("color", None, Some("color"), Arg::Optional),
    opt("color", None, Some("colour"), Arg::Optional),
    opt("U", Some('U'), Some("binary"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// What the options give: the search [`Config`] and how to build the matcher.
struct GrepOptions {
    cfg: Config,
    /// `E`, `F`, `G` or `P` (the last of `-E -F -G -P`, else by argv[0]).
    syntax: &'static str,
    /// The `-e` and `-f` patterns.
    patterns: Vec<Vec<u8>>,
    /// True when `-e` or `-f` gave patterns (else the first operand does).
    have_patterns: bool,
    icase: bool,
    /// `-w` / `-x`.
    whole: Whole,
    /// `-r` (`Some(false)`) or `-R` (`Some(true)`: follow symlinks).
    recursive: Option<bool>,
    /// `-H` / `-h`; by default, names are shown for several files.
    with_name: Option<bool>,
    /// `-B`, `-A`, and `-C`/`-NUM` (the default of both).
    before: Option<usize>,
    after: Option<usize>,
    context: Option<usize>,
}

impl GrepOptions {
    /// The options in order. `Err` is the status to exit with at once, the
    /// message written (`-V` exits 0).
    fn parse(ctx: &mut CommandCtx<'_>, parsed: &common::Parsed) -> Result<GrepOptions, i32> {
        let mut o = GrepOptions {
            cfg: Config::default(),
            syntax: match ctx.args[0].as_str() {
                "egrep" => "E",
                "fgrep" => "F",
                _ => "G",
            },
            patterns: Vec::new(),
            have_patterns: false,
            icase: false,
            whole: Whole::Any,
            recursive: None,
            with_name: None,
            before: None,
            after: None,
            context: None,
        };
        for (id, val) in &parsed.opts {
            o.apply(ctx, id, val.as_deref().unwrap_or(""))?;
        }
        o.cfg.before = o.before.or(o.context).unwrap_or(0);
        o.cfg.after = o.after.or(o.context).unwrap_or(0);
        Ok(o)
    }

    /// `-f FILE`: one pattern a line (an empty file: no pattern at all).
    fn pattern_file(&mut self, ctx: &mut CommandCtx<'_>, v: &str) -> Result<(), i32> {
        let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, v) {
            Ok(d) => d,
            Err(e) => {
                common::err(ctx.stderr, "grep", format!("{v}: {e}"));
                return Err(2);
            }
        };
        let mut d: &[u8] = &data;
        if d.last() == Some(&b'\n') {
            d = &d[..d.len() - 1];
        }
        if !data.is_empty() {
            self.patterns
                .extend(d.split(|b| *b == b'\n').map(|s| s.to_vec()));
        }
        self.have_patterns = true;
        Ok(())
    }

    /// One option `id` with its argument `v` (empty when it takes none).
    fn apply(&mut self, ctx: &mut CommandCtx<'_>, id: &'static str, v: &str) -> Result<(), i32> {
        let name = "grep";
        match id {
            "E" | "F" | "G" | "P" => self.syntax = id,
            "e" => {
                self.patterns
                    .extend(v.split('\n').map(|s| s.as_bytes().to_vec()));
                self.have_patterns = true;
            }
            "f" => self.pattern_file(ctx, v)?,
            "i" => self.icase = true,
            "no-i" => self.icase = false,
            "w" => {
                self.whole = if self.whole == Whole::Line {
                    Whole::Line
                } else {
                    Whole::Word
                }
            }
            "x" => self.whole = Whole::Line,
            "z" => self.cfg.eol = 0,
            "s" => self.cfg.no_messages = true,
            "v" => self.cfg.invert = true,
            "V" => {
                let _ = writeln!(ctx.stdout, "grep (GNU grep compatible) 3.8 (sandkeep)");
                return Err(0);
            }
            "m" => match v.parse::<i64>() {
                Ok(n) => self.cfg.max_count = if n < 0 { None } else { Some(n as u64) },
                Err(_) => {
                    common::err(ctx.stderr, name, "invalid max count");
                    return Err(2);
                }
            },
            "b" => self.cfg.byte_offset = true,
            "n" => self.cfg.line_number = true,
            "no-n" => self.cfg.line_number = false,
            "H" => self.with_name = Some(true),
            "h" => self.with_name = Some(false),
            "label" => self.cfg.label = v.to_string(),
            "o" => self.cfg.only_matching = true,
            "q" => self.cfg.quiet = true,
            "binary-files" => match v {
                "binary" => self.cfg.binary = search::Binary::Report,
                "text" => self.cfg.binary = search::Binary::Text,
                "without-match" => self.cfg.binary = search::Binary::WithoutMatch,
                _ => {
                    common::err(ctx.stderr, name, "unknown binary-files type");
                    return Err(2);
                }
            },
            "a" => self.cfg.binary = search::Binary::Text,
            "I" => self.cfg.binary = search::Binary::WithoutMatch,
            "d" => match v {
                "recurse" => self.recursive = Some(false),
                "skip" => self.cfg.skip_dirs = true,
                "read" => {}
                _ => {
                    common::err(ctx.stderr, name, "invalid argument for --directories");
                    return Err(2);
                }
            },
            "r" => self.recursive = Some(self.recursive.unwrap_or(false)),
            "R" => self.recursive = Some(true),
            "include" => self.cfg.include.push(v.to_string()),
            "exclude" => self.cfg.exclude.push(v.to_string()),
            "exclude-dir" => self.cfg.exclude_dir.push(v.to_string()),
            "exclude-from" => match common::read_file(ctx.fs, ctx.cwd, v) {
                Ok(d) => {
                    for l in common::records(&d, b'\n') {
                        self.cfg
                            .exclude
                            .push(String::from_utf8_lossy(l).into_owned());
                    }
                }
                Err(e) => {
                    common::err(ctx.stderr, name, format!("{v}: {e}"));
                    return Err(2);
                }
            },
            "L" => self.cfg.list = Some(false),
            "l" => self.cfg.list = Some(true),
            "c" => self.cfg.count = true,
            "T" => self.cfg.initial_tab = true,
            "Z" => self.cfg.null = true,
            "A" | "B" | "C" | "NUM" => {
                let Some(n) = common::parse_count(v) else {
                    common::err(
                        ctx.stderr,
                        name,
                        format!("{v}: invalid context length argument"),
                    );
                    return Err(2);
                };
                let n = n.min(usize::MAX as u64) as usize;
                match id {
                    "A" => self.after = Some(n),
                    "B" => self.before = Some(n),
                    _ => self.context = Some(n),
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// GNU grep's answer to a bad invocation: the message (when there is
/// one), its usage line, the Try line; status 2.
fn usage_error(ctx: &mut CommandCtx<'_>, message: &str) -> i32 {
    let _ = ctx.stdout.flush();
    if !message.is_empty() {
        let _ = writeln!(ctx.stderr, "{}: {message}", ctx.args[0]);
    }
    let _ = writeln!(ctx.stderr, "{}", USAGE.lines().next().unwrap_or_default());
    common::try_help(ctx);
    2
}

/// `grep`, `egrep` and `fgrep` (by argv[0]).
pub fn grep(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = "grep";
    let mode = ParseMode {
        digit_option: true,
        ..Default::default()
    };
    let parsed = match common::parse(ctx.args, SPEC, mode) {
        Ok(p) => p,
        Err(e) => {
            return usage_error(ctx, &e);
        }
    };
    let GrepOptions {
        mut cfg,
        syntax,
        mut patterns,
        have_patterns,
        icase,
        whole,
        recursive,
        with_name,
        ..
    } = match GrepOptions::parse(ctx, &parsed) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let mut operands = parsed.operands.into_iter();
    if !have_patterns {
        let Some(p) = operands.next() else {
            return usage_error(ctx, "");
        };
        patterns.extend(p.split('\n').map(|s| s.as_bytes().to_vec()));
    }
    let files: Vec<String> = operands.collect();

    let matcher = match compile(&patterns, syntax, icase, whole, cfg.eol) {
        Ok(m) => m,
        Err(e) => {
            common::err(ctx.stderr, name, e);
            return 2;
        }
    };
    if let Matcher::Posix(re) = &matcher {
        for w in re.warnings() {
            common::err(ctx.stderr, name, format!("warning: {w}"));
        }
    }
    cfg.recursive = recursive;
    // `grep -r PAT` with no operand names files without a leading `./`.
    let implicit_dot = files.is_empty() && recursive.is_some();
    if cfg.only_matching {
        cfg.before = 0;
        cfg.after = 0;
    }
    let files = if files.is_empty() {
        vec![if recursive.is_some() {
            ".".to_string()
        } else {
            "-".to_string()
        }]
    } else {
        files
    };
    cfg.with_name = with_name.unwrap_or(files.len() > 1 || recursive.is_some());
    if matches!(cfg.max_count, Some(0)) {
        return 1;
    }

    search_files(ctx, &cfg, &matcher, &files, implicit_dot)
}

/// Searches each operand (walking directories with `-r`); grep's status:
/// 0 matched, 1 not, 2 trouble (unless `-q` matched).
fn search_files(
    ctx: &mut CommandCtx<'_>,
    cfg: &Config,
    matcher: &Matcher,
    files: &[String],
    implicit_dot: bool,
) -> i32 {
    let mut out = BufWriter::with_capacity(64 * 1024, &mut *ctx.stdout);
    let mut searcher = Searcher::new(cfg, matcher);
    let mut matched = false;
    let mut errors = false;
    for f in files {
        let r = walk(
            ctx.fs,
            ctx.cwd,
            ctx.stdin,
            ctx.stderr,
            ctx.control,
            cfg,
            &mut searcher,
            &mut out,
            f,
            implicit_dot,
            true,
        );
        match r {
            Walk::Done { matched: m, error } => {
                matched |= m;
                errors |= error;
            }
            Walk::Quit => {
                matched = true;
                break;
            }
            Walk::Broken => {
                let _ = out.flush();
                return 2;
            }
        }
        if cfg.quiet && matched {
            break;
        }
    }
    if out.flush().is_err() {
        return 2;
    }
    if errors && !(cfg.quiet && matched) {
        2
    } else if matched {
        0
    } else {
        1
    }
}

/// Compiles the pattern list in the chosen syntax.
fn compile(
    patterns: &[Vec<u8>],
    syntax: &str,
    icase: bool,
    whole: Whole,
    eol: u8,
) -> Result<Matcher, String> {
    if syntax == "P" {
        if patterns.len() > 1 {
            return Err("the -P option only supports a single pattern".into());
        }
        let raw = String::from_utf8_lossy(&patterns[0]).into_owned();
        let p = match whole {
            Whole::Any => raw.clone(),
            Whole::Word => format!(r"\b{{start-half}}(?:{raw})\b{{end-half}}"),
            Whole::Line => format!("^(?:{raw})$"),
        };
        // The inline flag also reaches inside look-behinds, the builder's does not.
        let fancy = if icase {
            format!("(?i){raw}")
        } else {
            raw.clone()
        };
        let fancy = match whole {
            Whole::Any => fancy,
            Whole::Word => format!(r"(?<!\w)(?:{fancy})(?!\w)"),
            Whole::Line => format!("^(?:{fancy})$"),
        };
        let build = |unicode: bool| {
            regex::bytes::RegexBuilder::new(&p)
                .unicode(unicode)
                .case_insensitive(icase)
                .multi_line(true)
                .line_terminator(eol)
                .build()
        };
        return match build(false).or_else(|_| build(true)) {
            Ok(re) => Ok(Matcher::Pcre(re)),
            Err(regex::Error::Syntax(_)) => {
                // Look-around, `\K` and back-references need a backtracker.
                fancy_regex::RegexBuilder::new(&fancy)
                    .backtrack_limit(1_000_000)
                    .build()
                    .map(|re| Matcher::Fancy(Box::new(re)))
                    .map_err(|e| e.to_string())
            }
            Err(e) => {
                let msg = e.to_string();
                let last = msg
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("error:"))
                    .unwrap_or(&msg);
                Err(last.trim_start_matches("error: ").to_string())
            }
        };
    }
    let opts = RegexOptions {
        syntax: if syntax == "E" {
            Syntax::Extended
        } else {
            Syntax::Basic
        },
        flavor: Flavor::Grep,
        icase,
        multiline: false,
        null_data: eol == 0,
    };
    Ok(Matcher::Posix(Regex::new_grep(
        patterns,
        syntax == "F",
        whole,
        opts,
    )?))
}

/// The outcome of searching one operand.
enum Walk {
    /// Finished; whether anything matched and whether an error was reported.
    Done { matched: bool, error: bool },
    /// `-q` matched: stop everything.
    Quit,
    /// Output failed (closed pipe): stop everything.
    Broken,
}

/// Searches one operand: a file, stdin, or (recursively) a directory.
#[allow(clippy::too_many_arguments)]
fn walk(
    fs: &Fs,
    cwd: &str,
    stdin: &mut dyn std::io::Read,
    stderr: &mut dyn Write,
    control: &crate::control::RunControl,
    cfg: &Config,
    searcher: &mut Searcher<'_>,
    out: &mut dyn Write,
    name: &str,
    implicit_dot: bool,
    top: bool,
) -> Walk {
    if control.check().is_err() {
        return Walk::Broken;
    }
    let fail = |stderr: &mut dyn Write, msg: String| {
        if !cfg.no_messages {
            common::err(stderr, "grep", msg);
        }
        Walk::Done {
            matched: false,
            error: true,
        }
    };
    if name == "-" && top {
        let label = if cfg.label.is_empty() {
            "(standard input)"
        } else {
            &cfg.label
        };
        return finish(searcher.search_stream(stdin, label, out, stderr, control));
    }
    let path = Fs::resolve(cwd, name);
    let follow = top || cfg.recursive == Some(true);
    let meta = if follow {
        fs.metadata(&path)
    } else {
        fs.symlink_metadata(&path)
    };
    let meta = match meta {
        Ok(m) => m,
        Err(e) => {
            if !top {
                // A dangling symlink met during a walk is skipped quietly only when not followed.
                if fs.symlink_metadata(&path).is_ok() && !follow {
                    return Walk::Done {
                        matched: false,
                        error: false,
                    };
                }
            }
            return fail(stderr, format!("{name}: {e}"));
        }
    };
    match meta.kind {
        FileKind::Symlink => Walk::Done {
            matched: false,
            error: false,
        },
        FileKind::Dir => {
            let Some(_) = cfg.recursive else {
                if cfg.skip_dirs {
                    return Walk::Done {
                        matched: false,
                        error: false,
                    };
                }
                return fail(stderr, format!("{name}: Is a directory"));
            };
            if (!top || name != ".")
                && !cfg.exclude_dir.is_empty()
                && cfg
                    .exclude_dir
                    .iter()
                    .any(|g| common::fnmatch(g.as_bytes(), base(name).as_bytes()))
            {
                return Walk::Done {
                    matched: false,
                    error: false,
                };
            }
            let entries = match fs.read_dir(&path) {
                Ok(e) => e,
                Err(e) => return fail(stderr, format!("{name}: {e}")),
            };
            let mut matched = false;
            let mut error = false;
            for e in entries {
                let child = if top && implicit_dot {
                    e.name.clone()
                } else if name.ends_with('/') {
                    format!("{name}{}", e.name)
                } else {
                    format!("{name}/{}", e.name)
                };
                match walk(
                    fs, cwd, stdin, stderr, control, cfg, searcher, out, &child, false, false,
                ) {
                    Walk::Done {
                        matched: m,
                        error: er,
                    } => {
                        matched |= m;
                        error |= er;
                    }
                    other => return other,
                }
            }
            Walk::Done { matched, error }
        }
        FileKind::CharDevice if !top => Walk::Done {
            matched: false,
            error: false,
        },
        _ => {
            let b = base(name).as_bytes();
            if !cfg.include.is_empty()
                && !cfg.include.iter().any(|g| common::fnmatch(g.as_bytes(), b))
            {
                return Walk::Done {
                    matched: false,
                    error: false,
                };
            }
            if cfg.exclude.iter().any(|g| common::fnmatch(g.as_bytes(), b)) {
                return Walk::Done {
                    matched: false,
                    error: false,
                };
            }
            let data = match common::read_file(fs, cwd, name) {
                Ok(d) => d,
                Err(e) => return fail(stderr, format!("{name}: {e}")),
            };
            finish(searcher.search(&data, name, out, stderr))
        }
    }
}

fn finish(r: search::Outcome) -> Walk {
    match r {
        search::Outcome::Selected(n) => Walk::Done {
            matched: n > 0,
            error: false,
        },
        search::Outcome::Failed(n) => Walk::Done {
            matched: n > 0,
            error: true,
        },
        search::Outcome::Quit => Walk::Quit,
        search::Outcome::Broken => Walk::Broken,
    }
}

fn base(name: &str) -> &str {
    let t = name.trim_end_matches('/');
    t.rsplit('/').next().unwrap_or(t)
}

#[cfg(test)]
mod tests;
