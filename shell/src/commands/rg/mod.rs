//! `rg`: ripgrep 13 over the virtual filesystem, as it behaves when its
//! output is not a terminal (no colour, `path:line:` prefixes only when
//! asked or implied, no headings). The regex engine, the line-oriented
//! searcher and the printers are ripgrep's own crates; the walk, its ignore
//! rules and the command line are here ([`walk`], [`options`]).
//!
//! The one departure: with no path operand, ripgrep searches stdin when it
//! is a file or a pipe, and the working directory otherwise. A command here
//! cannot see what its stdin is, so stdin is searched when it has data.

mod options;
mod search;
mod walk;

use grep_printer::Stats;
use ignore::gitignore::GitignoreBuilder;
use ignore::overrides::OverrideBuilder;
use ignore::types::{Types, TypesBuilder};

use super::{Command, CommandCtx};
pub(crate) use options::RgOpt;
use options::{Config, Output, TypeRule};
use search::Printer;
use walk::{Filters, Flow, Subject, Walker};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::declared("rg", RgOpt::HELP, rg)];

/// What clap prints after a usage error, and ripgrep's status for one.
const USAGE_BLOCK: &str = "\
USAGE:
    
    rg [OPTIONS] PATTERN [PATH ...]
    rg [OPTIONS] -e PATTERN ... [PATH ...]
    rg [OPTIONS] -f PATTERNFILE ... [PATH ...]
    rg [OPTIONS] --files [PATH ...]
    rg [OPTIONS] --type-list
    command | rg [OPTIONS] PATTERN
    rg [OPTIONS] --help
    rg [OPTIONS] --version

For more information try --help
";

/// ripgrep's version lines.
const VERSION: &str = "ripgrep 13.0.0\n-SIMD -AVX (compiled)\n+SIMD +AVX (runtime)\n";

/// `rg [OPTIONS] PATTERN [PATH ...]`
pub fn rg(ctx: &mut CommandCtx<'_>) -> i32 {
    let parsed = match RgOpt::TABLE.parse(ctx.args) {
        Ok(p) => p,
        Err(e) => return usage_error(ctx, &clap_words(&e)),
    };
    let mut cfg = match Config::from_parsed(&parsed) {
        Ok(c) => c,
        Err(e) => return usage_error(ctx, &e.0),
    };
    if cfg.short_help {
        let _ = ctx.stdout.write_all(RgOpt::help().as_bytes());
        return 0;
    }
    if cfg.version {
        let _ = ctx.stdout.write_all(VERSION.as_bytes());
        return 0;
    }
    if cfg.pcre2 {
        let _ = writeln!(
            ctx.stderr,
            "PCRE2 is not available in this build of ripgrep."
        );
        return 2;
    }
    let types = match build_types(&cfg) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "{e}");
            return 2;
        }
    };
    if cfg.type_list {
        return type_list(ctx, &cfg);
    }
    let mut stdin_data: Option<Vec<u8>> = None;
    if let Err(status) = read_pattern_files(ctx, &mut cfg, &mut stdin_data) {
        return status;
    }
    let matcher = if cfg.files {
        None
    } else {
        match search::matcher(&cfg, &cfg.patterns) {
            Ok(m) => Some(m),
            Err(e) => {
                let _ = writeln!(ctx.stderr, "{e}");
                return 2;
            }
        }
    };
    let filters = match build_filters(ctx, &cfg, types) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "{e}");
            return 2;
        }
    };
    let run = Run::new(ctx, &cfg, stdin_data);
    run.go(ctx, &filters, matcher.as_ref())
}

/// State across the files of one run.
struct Run<'c> {
    cfg: &'c Config,
    /// Search stdin (no path operand, and it had data).
    stdin: Option<Vec<u8>>,
    errored: bool,
    matched: bool,
    stats: Stats,
    /// ripgrep would map the files into memory (at most ten operands, all
    /// files): they are searched as one slice.
    mapped: bool,
}

impl<'c> Run<'c> {
    fn new(ctx: &mut CommandCtx<'_>, cfg: &'c Config, read_already: Option<Vec<u8>>) -> Run<'c> {
        let mut stdin = None;
        if cfg.paths.is_empty() && !cfg.files {
            let data = read_already.unwrap_or_else(|| {
                let mut d = Vec::new();
                let _ = ctx.stdin.read_to_end(&mut d);
                d
            });
            if !data.is_empty() {
                stdin = Some(data);
            }
        }
        Run {
            cfg,
            stdin,
            errored: false,
            matched: false,
            stats: Stats::new(),
            mapped: false,
        }
    }

    /// Walks and searches every operand; returns the status.
    fn go(
        mut self,
        ctx: &mut CommandCtx<'_>,
        filters: &Filters,
        matcher: Option<&grep_regex::RegexMatcher>,
    ) -> i32 {
        let cfg = self.cfg;
        let implicit = cfg.paths.is_empty() && self.stdin.is_none();
        let roots: Vec<String> = if implicit {
            vec!["./".to_string()]
        } else if cfg.paths.is_empty() {
            vec!["-".to_string()]
        } else {
            cfg.paths.clone()
        };
        let (with_filename, line_number) = self.layout(ctx, &roots);
        let mut printer = search::printer(cfg, with_filename);
        let mut out: Vec<u8> = Vec::new();
        let warnings: std::cell::RefCell<Vec<String>> = Default::default();
        for root in &roots {
            let flow = if root == "-" {
                let data = match self.stdin.take() {
                    Some(d) => d,
                    None => {
                        let mut d = Vec::new();
                        let _ = ctx.stdin.read_to_end(&mut d);
                        d
                    }
                };
                let subject = Subject {
                    shown: "<stdin>".into(),
                    abs: String::new(),
                    explicit: true,
                };
                self.one(
                    ctx,
                    &mut printer,
                    matcher,
                    &subject,
                    &data,
                    line_number,
                    &mut out,
                )
            } else {
                let (fs, cwd, control) = (ctx.fs, ctx.cwd, ctx.control);
                let walker = Walker {
                    fs,
                    cwd,
                    control,
                    cfg,
                    filters,
                };
                let mut visit = |s: Subject| -> Flow {
                    if ctx.control.check().is_err() {
                        return Flow::Stop;
                    }
                    if cfg.files {
                        out.extend_from_slice(s.shown.as_bytes());
                        out.push(if cfg.null { b'\0' } else { b'\n' });
                        self.matched = true;
                        return Flow::Continue;
                    }
                    let data = match ctx.fs.read_shared(&s.abs) {
                        Ok(d) => d,
                        Err(e) => {
                            let message = format!("{}: {}", s.shown, walk::os_error(&e));
                            warnings.borrow_mut().push(message);
                            return Flow::Continue;
                        }
                    };
                    self.one(ctx, &mut printer, matcher, &s, &data, line_number, &mut out)
                };
                let mut warn = |e: walk::WalkError| warnings.borrow_mut().push(e.0);
                walker.walk(root, implicit, &mut visit, &mut warn)
            };
            let warned = std::mem::take(&mut *warnings.borrow_mut());
            if !warned.is_empty() {
                out.extend(printer.take());
                self.flush(ctx, &mut out);
                self.errored = true;
                if !cfg.no_messages {
                    for w in warned {
                        let _ = writeln!(ctx.stderr, "{w}");
                    }
                }
            }
            if flow == Flow::Stop {
                break;
            }
        }
        out.extend(printer.take());
        if cfg.stats && !cfg.files {
            self.stats_text(&mut out);
        }
        self.flush(ctx, &mut out);
        if ctx.control.check().is_err() {
            return 2;
        }
        if self.matched && (cfg.output == Output::Quiet || !self.errored) {
            0
        } else if self.errored {
            2
        } else {
            1
        }
    }

    /// What the roots decide: whether paths are printed (several roots or
    /// a directory), line numbers (asked for, or implied), and whether the
    /// files are searched as mapped slices.
    fn layout(&mut self, ctx: &CommandCtx<'_>, roots: &[String]) -> (bool, bool) {
        let cfg = self.cfg;
        let first_is_dir = roots.len() == 1
            && roots[0] != "-"
            && ctx
                .fs
                .metadata(&ctx.path(&roots[0]))
                .is_ok_and(|m| m.kind == crate::fs::FileKind::Dir);
        self.mapped = roots.len() <= 10
            && roots.iter().all(|r| {
                r != "-"
                    && ctx
                        .fs
                        .metadata(&ctx.path(r))
                        .is_ok_and(|m| m.kind == crate::fs::FileKind::File)
            });
        let with_filename = cfg
            .with_filename
            .unwrap_or(cfg.vimgrep || roots.len() > 1 || first_is_dir);
        let line_number = match cfg.output {
            Output::Json => true,
            Output::Lines => cfg
                .line_number
                .unwrap_or(cfg.column == Some(true) || cfg.vimgrep),
            _ => false,
        };
        (with_filename, line_number)
    }

    /// Searches one file's contents.
    #[allow(clippy::too_many_arguments)]
    fn one(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        printer: &mut Printer,
        matcher: Option<&grep_regex::RegexMatcher>,
        subject: &Subject,
        data: &[u8],
        line_number: bool,
        out: &mut Vec<u8>,
    ) -> Flow {
        let Some(matcher) = matcher else {
            return Flow::Continue;
        };
        let mut searcher = search::searcher(self.cfg, subject.explicit, line_number);
        let slice = self.mapped && !subject.abs.is_empty();
        match printer.search(
            &mut searcher,
            matcher,
            &subject.shown,
            data,
            slice,
            &mut self.stats,
        ) {
            Ok(found) => self.matched |= found.matched,
            Err(e) => {
                self.errored = true;
                if !self.cfg.no_messages {
                    out.extend(printer.take());
                    self.flush(ctx, out);
                    let _ = writeln!(ctx.stderr, "{}: {e}", subject.shown);
                }
            }
        }
        out.extend(printer.take());
        if out.len() > 64 * 1024 {
            self.flush(ctx, out);
        }
        if self.cfg.output == Output::Quiet && self.matched {
            return Flow::Stop;
        }
        Flow::Continue
    }

    fn flush(&self, ctx: &mut CommandCtx<'_>, out: &mut Vec<u8>) {
        let _ = ctx.stdout.write_all(out);
        let _ = ctx.stdout.flush();
        out.clear();
    }

    /// `--stats`: ripgrep's summary after the results.
    fn stats_text(&self, out: &mut Vec<u8>) {
        let s = &self.stats;
        if self.cfg.output == Output::Json {
            let line = format!(
                "{{\"data\":{{\"elapsed_total\":{{\"human\":\"0.000000s\",\"nanos\":0,\"secs\":0}},\"stats\":{{\"bytes_printed\":{},\"bytes_searched\":{},\"elapsed\":{{\"human\":\"0.000000s\",\"nanos\":0,\"secs\":0}},\"matched_lines\":{},\"matches\":{},\"searches\":{},\"searches_with_match\":{}}}}},\"type\":\"summary\"}}\n",
                s.bytes_printed(),
                s.bytes_searched(),
                s.matched_lines(),
                s.matches(),
                s.searches(),
                s.searches_with_match()
            );
            out.extend_from_slice(line.as_bytes());
            return;
        }
        let text = format!(
            "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n{} bytes printed\n{} bytes searched\n0.000000 seconds spent searching\n0.000000 seconds\n",
            s.matches(),
            s.matched_lines(),
            s.searches_with_match(),
            s.searches(),
            s.bytes_printed(),
            s.bytes_searched()
        );
        out.extend_from_slice(text.as_bytes());
    }
}

/// clap 2's words for what getopt refused.
fn clap_words(getopt: &str) -> String {
    let quoted = |s: &str| s.split('\'').nth(1).map(str::to_string).unwrap_or_default();
    if getopt.starts_with("unrecognized option") {
        let word = quoted(getopt);
        let word = word.split('=').next().unwrap_or_default().to_string();
        format!("Found argument '{word}' which wasn't expected, or isn't valid in this context")
    } else if getopt.starts_with("invalid option") {
        format!(
            "Found argument '-{}' which wasn't expected, or isn't valid in this context",
            quoted(getopt)
        )
    } else if getopt.contains("requires an argument") {
        let name = quoted(getopt);
        let flag = RgOpt::TABLE
            .rows
            .iter()
            .find(|r| {
                Some(name.trim_start_matches('-')) == r.long
                    || r.short.is_some_and(|c| name == c.to_string())
            })
            .map(|r| match (r.short, r.long) {
                (_, Some(l)) => format!("--{l} <{}>", r.value),
                (Some(c), None) => format!("-{c} <{}>", r.value),
                (None, None) => String::new(),
            })
            .unwrap_or(name);
        format!("The argument '{flag}' requires a value but none was supplied")
    } else if getopt.contains("doesn't allow an argument") {
        format!(
            "Found argument '{}' which wasn't expected, or isn't valid in this context",
            quoted(getopt)
        )
    } else {
        getopt.to_string()
    }
}

/// clap's error shape: `error: ...`, the usage block, status 2.
fn usage_error(ctx: &mut CommandCtx<'_>, message: &str) -> i32 {
    let _ = write!(ctx.stderr, "error: {message}\n\n{USAGE_BLOCK}");
    2
}

/// The file types: ripgrep's defaults, then `--type-add`/`--type-clear`
/// and the selections in command-line order.
fn build_types(cfg: &Config) -> Result<Types, String> {
    let mut b = TypesBuilder::new();
    b.add_defaults();
    for rule in &cfg.types {
        match rule {
            TypeRule::Add(def) => b.add_def(def).map_err(|e| e.to_string())?,
            TypeRule::Clear(name) => {
                b.clear(name);
            }
            TypeRule::Select(name) => {
                b.select(name);
            }
            TypeRule::Negate(name) => {
                b.negate(name);
            }
        }
    }
    b.build().map_err(|e| e.to_string())
}

/// `--type-list`: `name: glob, glob` for every type, by name.
fn type_list(ctx: &mut CommandCtx<'_>, cfg: &Config) -> i32 {
    let mut b = TypesBuilder::new();
    b.add_defaults();
    for rule in &cfg.types {
        match rule {
            TypeRule::Add(def) => {
                let _ = b.add_def(def);
            }
            TypeRule::Clear(name) => {
                b.clear(name);
            }
            _ => {}
        }
    }
    let mut text = String::new();
    for def in b.definitions() {
        if def.globs().is_empty() {
            continue;
        }
        text.push_str(&format!("{}: {}\n", def.name(), def.globs().join(", ")));
    }
    let _ = ctx.stdout.write_all(text.as_bytes());
    0
}

/// `-f FILE` (`-` is stdin): one pattern a line. `Err` is the status
/// after the message.
fn read_pattern_files(
    ctx: &mut CommandCtx<'_>,
    cfg: &mut Config,
    stdin_data: &mut Option<Vec<u8>>,
) -> Result<(), i32> {
    for name in cfg.pattern_files.clone() {
        let data = if name == "-" {
            let mut d = Vec::new();
            let _ = ctx.stdin.read_to_end(&mut d);
            *stdin_data = Some(Vec::new());
            d
        } else {
            match ctx.fs.read_shared(&ctx.path(&name)) {
                Ok(d) => d.to_vec(),
                Err(e) => {
                    let _ = writeln!(ctx.stderr, "{name}: {}", walk::os_error(&e));
                    return Err(2);
                }
            }
        };
        for line in String::from_utf8_lossy(&data).lines() {
            cfg.patterns
                .push(line.strip_suffix('\r').unwrap_or(line).to_string());
        }
    }
    Ok(())
}

/// The `-g` overrides, `--ignore-file` rules and types every walk uses.
fn build_filters(ctx: &CommandCtx<'_>, cfg: &Config, types: Types) -> Result<Filters, String> {
    let mut ob = OverrideBuilder::new(ctx.cwd);
    for (glob, case_insensitive) in &cfg.globs {
        ob.case_insensitive(*case_insensitive || cfg.glob_case_insensitive)
            .map_err(|e| e.to_string())?;
        ob.add(glob).map_err(|e| e.to_string())?;
    }
    let overrides = ob.build().map_err(|e| e.to_string())?;
    let mut explicit = Vec::new();
    for name in &cfg.ignore_files {
        let path = ctx.path(name);
        let dir = path
            .rsplit_once('/')
            .map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
        let mut b = GitignoreBuilder::new(dir);
        if let Ok(data) = ctx.fs.read_shared(&path) {
            for line in String::from_utf8_lossy(&data).lines() {
                let _ = b.add_line(None, line);
            }
        }
        explicit.push(b.build().map_err(|e| e.to_string())?);
    }
    Ok(Filters {
        overrides,
        types,
        explicit,
    })
}
