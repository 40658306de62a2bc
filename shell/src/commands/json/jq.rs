//! `jq`: jq's command line over the jaq interpreter.
//!
//! The filter sees the sandbox, never the host: `$ENV` and `env` are the
//! script's environment and `now` is the sandbox clock (jaq-std's own `env`
//! and `now` read the host, so they are replaced; so are `localtime`, which
//! reads the host's time zone, and `debug`/`stderr`, which log to the host).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, DataT, Lut, ValT, Vars, data::HasLut};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};

use super::format::{Layout, write_string, write_value};
use super::modules::ModulePaths;
use super::prelude::JQ_COMPAT;
use super::values::JSON_DEPTH;
use crate::commands::CommandCtx;

const USAGE: &str = "jq - commandline JSON processor [version 1.6]\n\n\
Usage:\tjq [options] <jq filter> [file...]\n\
\tjq [options] --args <jq filter> [strings...]\n\
\tjq [options] --jsonargs <jq filter> [JSON_TEXTS...]\n\n\
jq is a tool for processing JSON inputs, applying the given filter to\n\
its JSON text inputs and producing the filter's results as JSON on\n\
standard output.\n\n\
Options:\n\
  -c               compact instead of pretty-printed output;\n\
  -n               use `null` as the single input value;\n\
  -e               set the exit status code based on the output;\n\
  -s               read (slurp) all inputs into an array;\n\
  -r               output raw strings, not JSON texts;\n\
  -j               like -r but no newline after each output;\n\
  -a               output ASCII with escapes for the rest;\n\
  -S               sort keys of objects on output;\n\
  -R               read raw strings, not JSON texts;\n\
  --tab            indent with tabs;\n\
  --indent n       indent with n spaces;\n\
  --arg a v        set $a to the string v;\n\
  --argjson a v    set $a to the JSON value v;\n\
  --slurpfile a f  set $a to an array of the JSON texts in file f;\n\
  --rawfile a f    set $a to the contents of file f;\n\
  --argfile a f    set $a to the JSON value(s) in file f;\n\
  -f file          read the filter from file;\n\
  --args           remaining arguments are string arguments ($ARGS.positional);\n\
  --jsonargs       remaining arguments are JSON arguments;\n\
  --stream         read inputs as streams of [path, leaf] events;\n\
  --seq            write a record separator before each output;\n\
  --version        print the version.\n";

/// The data a running filter can reach: the lookup table and the inputs.
struct JqData;

impl DataT for JqData {
    type V<'a> = Val;
    type Data<'a> = &'a Data<'a>;
}

struct Data<'a> {
    lut: &'a Lut<JqData>,
    inputs: Inputs<'a, Val>,
    /// What `debug` and `stderr` wrote, for the sandbox's stderr.
    stderr: RefCell<Vec<u8>>,
    /// Where the input read last came from.
    position: Rc<RefCell<Position>>,
    /// Where modules are found, for `modulemeta`.
    modules: ModulePaths<'a>,
}

/// Where the input read last came from, as jq tells it: in error messages
/// (`jq: error (at <stdin>:3): ...`), `input_filename` and
/// `input_line_number`. Nothing is read yet under `-n` until `input`.
#[derive(Clone, Default)]
struct Position {
    /// The source's name (`<stdin>` or the file), once one is read.
    name: Option<Val>,
    /// How many lines of the source jq 1.6 has read by then.
    line: usize,
}

impl Position {
    /// `<stdin>:3`, or `<unknown>` before any input.
    fn describe(&self) -> String {
        match &self.name {
            Some(Val::TStr(n) | Val::BStr(n)) => {
                format!("{}:{}", String::from_utf8_lossy(n), self.line)
            }
            _ => "<unknown>".to_string(),
        }
    }
}

/// jaq-std natives that would reach the host (its logger, its time zone):
/// replaced by [`sandbox_funs`] and the prelude.
const HOST_FUNS: &[&str] = &[
    "env",
    "now",
    "debug_empty",
    "stderr_empty",
    "localtime",
    "strflocaltime",
];

/// What the sandbox natives reach: where `debug` and `stderr` write, and
/// the position of the input read last.
trait Session {
    fn stderr(&self) -> &RefCell<Vec<u8>>;
    fn position(&self) -> &RefCell<Position>;
    fn module_meta(&self, name: &str) -> Result<Val, String>;
}

impl Session for &Data<'_> {
    fn stderr(&self) -> &RefCell<Vec<u8>> {
        &self.stderr
    }
    fn position(&self) -> &RefCell<Position> {
        &self.position
    }
    fn module_meta(&self, name: &str) -> Result<Val, String> {
        self.modules.module_meta(name)
    }
}

/// `debug` and `stderr` write on the sandbox's stderr, as jq 1.6 does;
/// `input_filename` and `input_line_number` tell the input's position.
fn sandbox_funs<D>() -> impl Iterator<Item = jaq_core::native::Fun<D>>
where
    D: for<'a> DataT<V<'a> = Val>,
    for<'a> D::Data<'a>: Session,
{
    sandbox_base()
        .into_vec()
        .into_iter()
        .map(jaq_core::native::run)
        .chain([tick_fun()])
}

/// `__sk_tick`: the identity, also as a path and under an update, that
/// checks the run first ([`tick`]); every recursive definition
/// starts with it (see [`super::ticks`]).
fn tick_fun<D>() -> jaq_core::native::Fun<D>
where
    D: for<'a> DataT<V<'a> = Val>,
{
    use jaq_core::box_iter::box_once;
    let native = jaq_core::Native::new(|cv| {
        tick();
        box_once(Ok(cv.1))
    })
    .with_paths(|cv| {
        tick();
        box_once(Ok(cv.1))
    })
    .with_update(|cv, f| {
        tick();
        f(cv.1)
    });
    (super::ticks::TICK, jaq_core::native::v(0), native)
}

fn sandbox_base<D>() -> Box<[jaq_core::native::Filter<jaq_core::RunPtr<D>>]>
where
    D: for<'a> DataT<V<'a> = Val>,
    for<'a> D::Data<'a>: Session,
{
    Box::new([
        // jaq's `range/3` with a cancellation check per value.
        ("range", jaq_core::native::v(3), |mut cv| {
            let by = cv.0.pop_var();
            let to = cv.0.pop_var();
            let from = cv.0.pop_var();
            let direction = by
                .partial_cmp(&Val::from(0isize))
                .unwrap_or(std::cmp::Ordering::Equal);
            let mut next = Some(from);
            let mut failed: Option<jaq_core::Error<Val>> = None;
            Box::new(std::iter::from_fn(move || {
                tick();
                if let Some(e) = failed.take() {
                    return Some(Err(jaq_core::Exn::from(e)));
                }
                let x = next.take()?;
                let more = match direction {
                    std::cmp::Ordering::Greater => x < to,
                    std::cmp::Ordering::Less => x > to,
                    std::cmp::Ordering::Equal => x != to,
                };
                if !more {
                    return None;
                }
                match x.clone() + by.clone() {
                    Ok(n) => next = Some(n),
                    Err(e) => failed = Some(e),
                }
                Some(Ok(x))
            }))
        }),
        ("debug_empty", jaq_core::native::v(0), |cv| {
            let mut err = cv.0.data().stderr().borrow_mut();
            err.extend_from_slice(b"[\"DEBUG:\",");
            err.extend_from_slice(super::values::to_json(&cv.1).as_bytes());
            err.extend_from_slice(b"]\n");
            Box::new(std::iter::empty())
        }),
        ("input_filename", jaq_core::native::v(0), |cv| {
            let name = cv.0.data().position().borrow().name.clone();
            Box::new(std::iter::once(Ok(name.unwrap_or_default())))
        }),
        ("input_line_number", jaq_core::native::v(0), |cv| {
            let line = cv.0.data().position().borrow().line;
            Box::new(std::iter::once(Ok(Val::from(line))))
        }),
        ("modulemeta", jaq_core::native::v(0), |cv| {
            let meta = match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => {
                    cv.0.data()
                        .module_meta(&String::from_utf8_lossy(s))
                        .map_err(|e| jaq_core::Exn::from(jaq_core::Error::str(e)))
                }
                _ => Err(jaq_core::Exn::from(jaq_core::Error::str(
                    "modulemeta input module name must be a string",
                ))),
            };
            Box::new(std::iter::once(meta))
        }),
        ("stderr_empty", jaq_core::native::v(0), |cv| {
            let json = super::values::to_json(&cv.1);
            cv.0.data()
                .stderr()
                .borrow_mut()
                .extend_from_slice(json.as_bytes());
            Box::new(std::iter::empty())
        }),
    ])
}

impl<'a> HasLut<'a, JqData> for &'a Data<'a> {
    fn lut(&self) -> &'a Lut<JqData> {
        self.lut
    }
}

impl<'a> HasInputs<'a, Val> for &'a Data<'a> {
    fn inputs(&self) -> Inputs<'a, Val> {
        self.inputs
    }
}

/// Parsed command line.
#[derive(Default)]
struct Options {
    filter: Option<String>,
    files: Vec<String>,
    null_input: bool,
    raw_input: bool,
    slurp: bool,
    raw_output: bool,
    join_output: bool,
    exit_status: bool,
    /// `--version`: print the jq version this one answers like.
    version: bool,
    /// `-f FILE`: read the filter from FILE.
    from_file: Option<String>,
    /// `--stream`: each input as its `[path, leaf]` / `[path]` events.
    stream: bool,
    /// `--seq`: each output after an ASCII record separator.
    seq: bool,
    layout: Layout,
    named: Vec<(String, Val)>,
    positional: Vec<Val>,
    /// `-L DIR`: where modules are looked for (jq's defaults when empty).
    library: Vec<String>,
}

/// How a run of jq ended badly, with jq's exit status.
struct Failure {
    status: i32,
    message: String,
}

fn fail(status: i32, message: impl Into<String>) -> Failure {
    Failure {
        status,
        message: message.into(),
    }
}

/// Cancellation inside jaq: jaq's evaluator has no hook of its own, so the
/// natives that can loop without yielding (`range`, under `[range(1e9)]` or
/// `reduce range(1e12)`) and every recursive definition (through
/// `__sk_tick`, see [`super::ticks`]: `def f: f; f`, `repeat`, `until`,
/// `recurse`) call this, which unwinds out of jaq once the run is cancelled
/// or over its memory budget (see [`crate::cancel`]). A recursion that nests
/// instead of looping (`def f: 1 + f; f`) unwinds the same way once the
/// thread's stack runs low, before it can overflow.
fn tick() {
    crate::cancel::deep_point();
}

pub(super) fn main(ctx: &mut CommandCtx<'_>) -> i32 {
    let control = ctx.control;
    let result = match crate::cancel::scope(control, || run(ctx)) {
        Ok(result) => result,
        Err(crate::cancel::Stop::Cancelled) => return 124,
        // jq 1.6 grows its stack until memory runs out; here a recursion
        // that deep is an error of the filter, as jq's other limits are.
        Err(crate::cancel::Stop::TooDeep) => Err(fail(
            5,
            "jq: error: recursion too deep (the stack is exhausted)",
        )),
    };
    match result {
        Ok(status) => status,
        Err(f) => {
            if !f.message.is_empty() {
                let _ = ctx.stderr.write_all(f.message.as_bytes());
                if !f.message.ends_with('\n') {
                    let _ = ctx.stderr.write_all(b"\n");
                }
            }
            f.status
        }
    }
}

/// What jq 1.6 says after a command-line mistake.
const HINT: &str = "Use jq --help for help with command-line options,\n\
or see the jq manpage, or online docs  at https://stedolan.github.io/jq";

fn parse_json(text: &[u8], what: &str) -> Result<Val, Failure> {
    if crate::depth::nesting(text, crate::depth::Syntax::Json, JSON_DEPTH) > JSON_DEPTH {
        return Err(fail(
            2,
            format!("jq: invalid JSON text passed to {what}\n{HINT}"),
        ));
    }
    jaq_json::read::parse_single(text)
        .map_err(|_| fail(2, format!("jq: invalid JSON text passed to {what}\n{HINT}")))
}

/// What one command-line word asks for.
enum Step {
    /// Go on with the next word.
    Next,
    /// `-h`/`--help`: print the usage and stop.
    Help,
}

/// jq 1.6's command line, read as jq's own `main.c` reads it rather than by
/// getopt: `--arg` and friends take two words, long options never
/// abbreviate, `-L` glues its directory, a `-` before a non-letter (`-1`,
/// `-.a`) starts a filter, and after `--args`/`--jsonargs` the words after
/// the filter are positional arguments.
struct ArgReader<'w> {
    args: &'w [String],
    /// The index of the word after the one being read.
    next: usize,
    /// After `--args` (`Some(false)`) or `--jsonargs` (`Some(true)`).
    rest_are_args: Option<bool>,
    o: Options,
}

fn parse_args(ctx: &mut CommandCtx<'_>) -> Result<Option<Options>, Failure> {
    let ctx: &CommandCtx<'_> = ctx;
    let args = &ctx.args[1..];
    let mut reader = ArgReader {
        args,
        next: 0,
        rest_are_args: None,
        o: Options::default(),
    };
    while reader.next < args.len() {
        let word = &args[reader.next];
        reader.next += 1;
        if let Step::Help = reader.word(ctx, word)? {
            return Ok(None);
        }
    }
    reader.finish(ctx).map(Some)
}

impl ArgReader<'_> {
    /// Reads one word (and the parameters it takes).
    fn word(&mut self, ctx: &CommandCtx<'_>, a: &str) -> Result<Step, Failure> {
        if a == "--help" || a == "-h" {
            return Ok(Step::Help);
        }
        if self.rest_are_args.is_some() && self.o.filter.is_some() && !a.starts_with('-') {
            return self.operand(a);
        }
        match a {
            "-L" | "--library-path" => {
                let Some(dir) = self.args.get(self.next) else {
                    return Err(fail(
                        2,
                        "-L takes a parameter: (e.g. -L /search/path or -L/search/path)",
                    ));
                };
                self.o.library.push(dir.clone());
                self.next += 1;
            }
            s if s.starts_with("-L") => self.o.library.push(s[2..].to_string()),
            "-" => self.o.files.push(a.to_string()),
            s if s.starts_with("--") => return self.long_option(ctx, s),
            // `-1`, `-.a`: jq 1.6 reads a `-` before a non-letter as a filter.
            s if s.starts_with('-') && s.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic) => {
                return self.short_cluster(s);
            }
            _ => return self.operand(a),
        }
        Ok(Step::Next)
    }

    /// The `n` words after an option that takes them; jq's message names
    /// what the option wanted when they are missing.
    fn params(&mut self, flag: &str, n: usize) -> Result<&[String], Failure> {
        if self.next + n > self.args.len() {
            let what = match flag {
                "--arg" => "two parameters (e.g. --arg varname value)".to_string(),
                "--argjson" => "two parameters (e.g. --argjson varname text)".to_string(),
                f if n == 2 => format!("two parameters (e.g. {f} varname filename)"),
                _ => "one parameter".to_string(),
            };
            return Err(fail(2, format!("jq: {flag} takes {what}\n{HINT}")));
        }
        self.next += n;
        Ok(&self.args[self.next - n..self.next])
    }

    /// The one word after an option that takes it.
    fn param(&mut self, flag: &str) -> Result<String, Failure> {
        Ok(self.params(flag, 1)?[0].clone())
    }

    /// The two words after an option that takes a name and a value.
    fn param_pair(&mut self, flag: &str) -> Result<(String, String), Failure> {
        let words = self.params(flag, 2)?;
        Ok((words[0].clone(), words[1].clone()))
    }

    /// A `--NAME` word: jq 1.6 knows only whole names.
    fn long_option(&mut self, ctx: &CommandCtx<'_>, a: &str) -> Result<Step, Failure> {
        match a {
            "--arg" => {
                let (name, value) = self.param_pair(a)?;
                self.o.named.push((name, Val::from(value)));
            }
            "--argjson" => {
                let (name, text) = self.param_pair(a)?;
                let value = parse_json(text.as_bytes(), "--argjson")?;
                self.o.named.push((name, value));
            }
            "--slurpfile" | "--rawfile" | "--argfile" => {
                let (name, path) = self.param_pair(a)?;
                let value = file_value(ctx, a, &name, &path)?;
                self.o.named.push((name, value));
            }
            "--from-file" => self.o.from_file = Some(self.param(a)?),
            "--indent" => self.o.layout.indent = indent(&self.param(a)?)?,
            "--args" => self.rest_are_args = Some(false),
            "--jsonargs" => self.rest_are_args = Some(true),
            _ if long_flag(&mut self.o, a) => {}
            _ => return Err(fail(2, format!("jq: Unknown option {a}\n{HINT}"))),
        }
        Ok(Step::Next)
    }

    /// A `-abc` cluster of one-letter flags; an `f` in it takes the next word
    /// as the filter's file once the whole cluster is read.
    fn short_cluster(&mut self, s: &str) -> Result<Step, Failure> {
        let o = &mut self.o;
        let mut takes_file = false;
        for c in s[1..].chars() {
            match c {
                'f' => takes_file = true,
                'n' => o.null_input = true,
                'R' => o.raw_input = true,
                's' => o.slurp = true,
                'r' => o.raw_output = true,
                'j' => {
                    o.raw_output = true;
                    o.join_output = true
                }
                'c' => o.layout.indent = None,
                'S' => o.layout.sort_keys = true,
                'a' => o.layout.ascii = true,
                'e' => o.exit_status = true,
                'C' | 'M' => {}
                'h' => return Ok(Step::Help),
                _ => return Err(fail(2, format!("jq: Unknown option {s}\n{HINT}"))),
            }
        }
        if takes_file {
            self.o.from_file = Some(self.param("-f")?);
        }
        Ok(Step::Next)
    }

    /// A word that is no option: the filter, then files, or positional
    /// arguments after `--args`/`--jsonargs`.
    fn operand(&mut self, a: &str) -> Result<Step, Failure> {
        if self.o.filter.is_none() {
            self.o.filter = Some(a.to_string());
        } else if let Some(json) = self.rest_are_args {
            let value = positional(a, json)?;
            self.o.positional.push(value);
        } else {
            self.o.files.push(a.to_string());
        }
        Ok(Step::Next)
    }

    /// After the last word: `-j` implies `-r`, `-f FILE` replaces the filter
    /// with the file's text (what looked like the filter is then the first
    /// input file or positional argument), and the first `--arg` of a name
    /// wins, as in jq.
    fn finish(self, ctx: &CommandCtx<'_>) -> Result<Options, Failure> {
        let mut o = self.o;
        if o.join_output {
            o.raw_output = true;
        }
        if let Some(path) = o.from_file.clone() {
            let bytes = ctx
                .fs
                .read(&ctx.path(&path))
                .map_err(|e| fail(2, format!("jq: Could not open {path}: {e}")))?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if let Some(first) = o.filter.replace(text) {
                match self.rest_are_args {
                    Some(json) => o.positional.insert(0, positional(&first, json)?),
                    None => o.files.insert(0, first),
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        o.named.retain(|(name, _)| seen.insert(name.clone()));
        Ok(o)
    }
}

/// A long option that is a flag of `o`; false for any other word.
fn long_flag(o: &mut Options, a: &str) -> bool {
    match a {
        "--tab" => o.layout.indent = Some("\t".into()),
        "--null-input" => o.null_input = true,
        "--raw-input" => o.raw_input = true,
        "--slurp" => o.slurp = true,
        "--raw-output" => o.raw_output = true,
        "--join-output" => o.join_output = true,
        "--compact-output" => o.layout.indent = None,
        "--sort-keys" => o.layout.sort_keys = true,
        "--ascii-output" => o.layout.ascii = true,
        "--exit-status" => o.exit_status = true,
        "--color-output" | "--monochrome-output" => {}
        "--version" => o.version = true,
        "--stream" => o.stream = true,
        "--seq" => o.seq = true,
        _ => return false,
    }
    true
}

/// A positional argument: a string after `--args`, JSON after `--jsonargs`.
fn positional(word: &str, json: bool) -> Result<Val, Failure> {
    if json {
        parse_json(word.as_bytes(), "--jsonargs")
    } else {
        Ok(Val::from(word.to_string()))
    }
}

/// `--indent N`: jq 1.6 reads the number with atoi (`x` is 0) and takes -1
/// (a tab) to 7.
fn indent(word: &str) -> Result<Option<String>, Failure> {
    let n: i64 = word.trim().parse().unwrap_or(0);
    if !(-1..=7).contains(&n) {
        return Err(fail(
            2,
            format!("jq: --indent takes a number between -1 and 7\n{HINT}"),
        ));
    }
    Ok(match n {
        -1 => Some("\t".into()),
        0 => None,
        n => Some(" ".repeat(n as usize)),
    })
}

/// The value `--slurpfile`, `--rawfile` or `--argfile` (`flag`) binds to
/// `$name` from the file at `path`, with jq 1.6's messages.
fn file_value(ctx: &CommandCtx<'_>, flag: &str, name: &str, path: &str) -> Result<Val, Failure> {
    let bad = |why: String| fail(2, format!("jq: Bad JSON in {flag} {name} {path}: {why}"));
    let bytes = ctx
        .fs
        .read(&ctx.path(path))
        .map_err(|e| bad(format!("Could not open {path}: {e}")))?;
    if flag == "--rawfile" {
        return Ok(Val::from(String::from_utf8_lossy(&bytes).into_owned()));
    }
    if crate::depth::nesting(&bytes, crate::depth::Syntax::Json, JSON_DEPTH) > JSON_DEPTH {
        return Err(bad("Exceeds depth limit for parsing".to_string()));
    }
    let vals: Result<Vec<Val>, _> = jaq_json::read::parse_many(&bytes).collect();
    let mut vals =
        vals.map_err(|e| bad(super::parse_errors::message(&bytes).unwrap_or(e.to_string())))?;
    // jq 1.6's `--argfile`: a file of one value is that value.
    Ok(if flag == "--argfile" && vals.len() == 1 {
        vals.pop().unwrap_or_default()
    } else {
        Val::from_iter(vals)
    })
}

/// The input sources: each one's name (for `input_filename`) and text. A
/// file that can't be read is reported and skipped (`missing`), as in jq.
fn read_input(
    ctx: &mut CommandCtx<'_>,
    files: &[String],
    missing: &mut bool,
) -> Result<Vec<(Val, Vec<u8>)>, Failure> {
    let stdin = |ctx: &mut CommandCtx<'_>| {
        let mut buf = Vec::new();
        ctx.stdin.read_to_end(&mut buf).map_err(|e| {
            match crate::fs::FsError::reported_read(&e) {
                // jq 1.6 says nothing of a directory on stdin; status 2.
                Some(_) => fail(2, ""),
                None => fail(2, format!("jq: error: {}", crate::fs::strerror(&e))),
            }
        })?;
        Ok((Val::from("<stdin>".to_string()), buf))
    };
    if files.is_empty() {
        return Ok(vec![stdin(ctx)?]);
    }
    let mut sources = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if f == "-" {
            sources.push(stdin(ctx)?);
            continue;
        }
        let path = ctx.path(f);
        match ctx.fs.read_shared(&path) {
            Ok(data) => sources.push((Val::from(f.clone()), data.to_vec())),
            // jq 1.6 opens a directory and fails its read, which it
            // reports only on moving on to a next file.
            Err(crate::fs::FsError::IsADirectory) => {
                if i + 1 < files.len() {
                    let _ = writeln!(ctx.stderr, "Input error: Is a directory");
                }
                *missing = true;
            }
            Err(e) => {
                let _ = writeln!(ctx.stderr, "jq: error: Could not open file {f}: {e}");
                *missing = true;
            }
        }
    }
    Ok(sources)
}

/// An input value (or why it could not be read) and where it came from.
type Input = (Result<Val, String>, Position);

/// Input values as jq would produce them from the sources, each with its
/// position, and the position once all are read.
fn input_values(o: &Options, sources: Vec<(Val, Vec<u8>)>) -> (Vec<Input>, Position) {
    let at = |name: &Val, line: usize| Position {
        name: Some(name.clone()),
        line,
    };
    let end = sources
        .last()
        .map(|(n, t)| at(n, super::reading::LineCount::new(t).lines_read(t.len())))
        .unwrap_or_default();
    if o.raw_input {
        if o.slurp {
            let text: Vec<u8> = sources.into_iter().flat_map(|(_, t)| t).collect();
            let s = String::from_utf8_lossy(&text).into_owned();
            return (vec![(Ok(Val::from(s)), end.clone())], end);
        }
        let mut out = Vec::new();
        for (name, text) in sources {
            let s = String::from_utf8_lossy(&text);
            let mut lines: Vec<&str> = s.split('\n').collect();
            if lines.last() == Some(&"") {
                lines.pop();
            }
            let count = lines.len();
            let ended = s.ends_with('\n');
            out.extend(lines.into_iter().enumerate().map(|(i, l)| {
                let line = if i + 1 < count || ended { i + 1 } else { i };
                (Ok(Val::from(l.to_string())), at(&name, line))
            }));
        }
        return (out, end);
    }
    let mut sources = sources;
    // jq skips a byte order mark at the start of its input.
    if let Some((_, text)) = sources.first_mut()
        && text.starts_with(b"\xEF\xBB\xBF")
    {
        text.drain(..3);
    }
    let mut vals = Vec::new();
    'sources: for (name, text) in sources {
        if crate::depth::nesting(&text, crate::depth::Syntax::Json, JSON_DEPTH) > JSON_DEPTH {
            // jq 1.6 refuses input nested deeper than 256 levels; the
            // recursive reader must never see it.
            let pos = at(&name, 0);
            vals.push((
                Err(format!(
                    "jq: error (at {}): Exceeds depth limit for parsing",
                    pos.describe()
                )),
                pos,
            ));
            break 'sources;
        }
        let read = vals.len();
        if parse_source(&name, &text, &mut vals) {
            // jaq's reader stopped; strtod's other spellings of NaN and
            // infinity may be why: read the source again with jaq's.
            if let Cow::Owned(spelled) = super::reading::specials_spelled(&text) {
                vals.truncate(read);
                if !parse_source(&name, &spelled, &mut vals) {
                    continue 'sources;
                }
            }
            break 'sources;
        }
    }
    if o.stream {
        let mut events = Vec::new();
        for (v, pos) in vals {
            match v {
                Ok(v) => {
                    let mut evs = Vec::new();
                    stream_events(&v, &mut Vec::new(), &mut evs);
                    events.extend(evs.into_iter().map(|e| (Ok(e), pos.clone())));
                }
                Err(e) => events.push((Err(e), pos)),
            }
        }
        vals = events;
    }
    if o.slurp {
        let mut arr = Vec::new();
        for (v, pos) in vals {
            match v {
                Ok(v) => arr.push(v),
                Err(e) => return (vec![(Err(e), pos)], end),
            }
        }
        return (vec![(Ok(Val::from_iter(arr)), end.clone())], end);
    }
    (vals, end)
}

/// Reads the values of the source `name` onto `vals`, each with its
/// position, up to the first that fails; says whether one failed.
fn parse_source(name: &Val, text: &[u8], vals: &mut Vec<Input>) -> bool {
    let at = |line: usize| Position {
        name: Some(name.clone()),
        line,
    };
    let long_integers = super::reading::may_hold_long_integers(text);
    let mut offset = 0;
    let mut lines = super::reading::LineCount::new(text);
    for v in jaq_json::read::parse_many(text) {
        offset = value_end(text, offset);
        let pos = at(lines.lines_read(offset));
        let v = match v {
            // jq 1.6 holds every number as a double.
            Ok(v) if long_integers => Ok(super::reading::as_doubles(v)),
            Ok(v) => Ok(v),
            // The whole message, in jq 1.6's words when they can be found.
            Err(e) => Err(match super::parse_errors::message(text) {
                Some(m) => format!("parse error: {m}"),
                None => format!("jq: error (at {}): Cannot parse input: {e}", pos.describe()),
            }),
        };
        let failed = v.is_err();
        vals.push((v, pos));
        if failed {
            return true;
        }
    }
    false
}

/// Where the JSON value after `from` (and any blanks or `#` comments)
/// ends; for text jaq parsed already, so it need not check anything.
fn value_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) != Some(&b'#') {
            break;
        }
        while i < b.len() && b[i] != b'\n' {
            i += 1;
        }
    }
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ if depth > 0 => i += 1,
            _ => {
                while i < b.len() && !b" \t\r\n[]{},:\"#".contains(&b[i]) {
                    i += 1;
                }
            }
        }
        if depth == 0 {
            return i.min(b.len());
        }
    }
    b.len()
}

/// `--stream`'s events for `v` at `path`: `[path, leaf]` for each scalar or
/// empty container, and `[path]` after the last child of each container.
fn stream_events(v: &Val, path: &mut Vec<Val>, out: &mut Vec<Val>) {
    let children: Vec<(Val, &Val)> = match v {
        Val::Arr(a) => a
            .iter()
            .enumerate()
            .map(|(i, c)| (Val::from(i as isize), c))
            .collect(),
        Val::Obj(o) => o.iter().map(|(k, c)| (k.clone(), c)).collect(),
        _ => Vec::new(),
    };
    let Some(last) = children.last().map(|(k, _)| k.clone()) else {
        let p = Val::from_iter(path.iter().cloned());
        out.push(Val::from_iter([p, v.clone()]));
        return;
    };
    for (k, c) in children {
        path.push(k);
        stream_events(c, path, out);
        path.pop();
    }
    let p = Val::from_iter(path.iter().cloned().chain([last]));
    out.push(Val::from_iter([p]));
}

/// The global variables every program gets, before the `--arg`-style ones.
const GLOBALS: [&str; 3] = ["$ENV", "$__sandkeep_now", "$ARGS"];

/// How deep a filter's brackets may nest: jaq's parser and compiler
/// recurse per level (and the rewrite adds levels), so deeper filters are
/// refused before they can overflow the stack.
const PROGRAM_DEPTH: usize = 500;

/// Compiles `code` (with the given `--arg`-style variable names), reusing a
/// filter compiled earlier on this thread: parsing jq's standard library
/// dominates a small `jq` call.
fn compile(
    code: &str,
    named: &[String],
    modules: &ModulePaths<'_>,
) -> Result<(Rc<jaq_core::Filter<JqData>>, Vec<Val>), Failure> {
    type Cache = HashMap<(String, Vec<String>), Rc<jaq_core::Filter<JqData>>>;
    thread_local! {
        static FILTERS: RefCell<Cache> = RefCell::new(HashMap::new());
    }
    if crate::depth::nesting(code.as_bytes(), crate::depth::Syntax::Json, PROGRAM_DEPTH)
        > PROGRAM_DEPTH
    {
        return Err(fail(
            3,
            format!(
                "jq: error: {}\njq: 1 compile error",
                crate::depth::too_deep(PROGRAM_DEPTH)
            ),
        ));
    }
    if let Some(message) = super::alternatives::constant_errors(code) {
        return Err(fail(3, message));
    }
    // A program that may load modules reads files, which may change between
    // runs: it is not cached.
    if ["import", "include", "modulemeta"]
        .iter()
        .any(|w| code.contains(w))
    {
        let mut data = Vec::new();
        let user = super::modules::data_var_names(code);
        let filter = build(&user, code, named, modules, &mut data)?;
        return Ok((Rc::new(filter), data));
    }
    let key = (code.to_string(), named.to_vec());
    if let Some(f) = FILTERS.with(|c| c.borrow().get(&key).cloned()) {
        return Ok((f, Vec::new()));
    }
    // The rewrite prints from jaq's own syntax tree, so its output always
    // parses; should it ever not compile, the filter as written still may.
    let dotted = super::alternatives::leading_dot_numbers(code);
    let code_read = dotted.as_deref().unwrap_or(code);
    let keyed = super::alternatives::variable_key_patterns(code_read);
    let code_read = keyed.as_deref().unwrap_or(code_read);
    let alternatives = super::alternatives::rewrite(code_read);
    let jq = alternatives.as_deref().unwrap_or(code_read);
    let filter = match super::rewrite::rewrite(jq) {
        Some(user) => build(&user, code, named, modules, &mut Vec::new())
            .or_else(|_| build(jq, code, named, modules, &mut Vec::new()))?,
        None => build(jq, code, named, modules, &mut Vec::new())?,
    };
    let filter = Rc::new(filter);
    FILTERS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(key, filter.clone());
    });
    Ok((filter, Vec::new()))
}

/// The jq definitions of [`JQ_COMPAT`], with `env` and `now` seeing the
/// sandbox, not the host; parsed once.
fn compat_defs() -> Vec<jaq_core::load::parse::Def<&'static str>> {
    const SANDBOX: &str = "def env: $ENV; def now: $__sandkeep_now;";
    let parse = |code: &'static str| jaq_core::load::parse(code, |p| p.defs()).unwrap_or_default();
    let mut defs = parse(SANDBOX);
    defs.extend(parse(JQ_COMPAT));
    defs
}

/// Loads and compiles the user's filter `user` (rewritten from `original`)
/// over the prelude, its modules found through `modules`; the values of its
/// data imports (`import "f" as $f`) go to `data`, in the order the
/// filter's variables expect them.
fn build(
    user: &str,
    original: &str,
    named: &[String],
    modules: &ModulePaths<'_>,
    data: &mut Vec<Val>,
) -> Result<jaq_core::Filter<JqData>, Failure> {
    let program = user;
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .chain(compat_defs())
        .map(super::ticks::def);
    let funs = jaq_core::funs::<JqData>()
        .filter(|(name, _, _)| *name != "range")
        .chain(jaq_std::funs().filter(|(name, _, _)| !HOST_FUNS.contains(name)))
        .chain(
            jaq_std::input::funs()
                .into_vec()
                .into_iter()
                .map(jaq_core::native::run),
        )
        .chain(jaq_json::funs())
        .chain(super::paths::funs())
        .chain(super::values::funs())
        .chain(super::regex::funs())
        .chain(super::errors::funs())
        .chain(sandbox_funs());
    let loader = Loader::new(defs)
        .with_read(|import: jaq_core::load::Import<&str, String>| modules.read_module(import));
    let arena = Arena::default();
    let loaded = loader
        .load(
            &arena,
            File {
                code: program,
                path: String::new(),
            },
        )
        .map_err(|errs| {
            let io: Vec<String> = errs
                .iter()
                .filter_map(|(_, e)| match e {
                    jaq_core::load::Error::Io(es) => Some(es.iter().map(|(_, m)| m.clone())),
                    _ => None,
                })
                .flatten()
                .collect();
            if io.is_empty() {
                fail(
                    3,
                    format!(
                        "jq: error: syntax error in filter ({} error(s))\njq: 1 compile error",
                        errs.len()
                    ),
                )
            } else {
                let n = io.len();
                let lines: String = io.iter().map(|m| format!("jq: error: {m}\n")).collect();
                fail(
                    3,
                    format!(
                        "{lines}jq: {n} compile error{}",
                        if n == 1 { "" } else { "s" }
                    ),
                )
            }
        })?;
    jaq_core::load::import(&loaded, |import| {
        data.push(modules.read_data(import)?);
        Ok(())
    })
    .map_err(|_| {
        fail(
            3,
            "jq: error: could not load a data module\njq: 1 compile error",
        )
    })?;
    let modules = loaded;
    let globals = GLOBALS
        .iter()
        .copied()
        .chain(named.iter().map(|s| s.as_str()));
    Compiler::default()
        .with_funs(funs)
        .with_global_vars(globals)
        .compile(modules)
        .map_err(|errs| {
            let undefined: Vec<(&str, Option<usize>)> = errs
                .iter()
                .flat_map(|(_, es)| es.iter())
                .map(|(name, what)| match what {
                    jaq_core::compile::Undefined::Filter(arity) => (*name, Some(*arity)),
                    _ => (*name, None),
                })
                .collect();
            fail(3, undefined_message(original, &undefined))
        })
}

/// jq's compile error for undefined names, each `(name, arity)` (no arity
/// for a variable) shown at its first use in `code`:
///
/// ```text
/// jq: error: foo/0 is not defined at <top-level>, line 1:
/// 1 + foo    (the line, then as many spaces as the name's column)
/// jq: 1 compile error
/// ```
fn undefined_message(code: &str, undefined: &[(&str, Option<usize>)]) -> String {
    let toks = super::alternatives::tokens(code);
    let mut used = Vec::new();
    let mut found: Vec<(usize, String)> = Vec::new();
    for &(name, arity) in undefined {
        let call = |i: usize| {
            let (s, e, _) = toks[i];
            let called = toks.get(i + 1).is_some_and(|t| &code[t.0..t.1] == "(");
            let key = code[..s].ends_with('.')
                || i > 0 && &code[toks[i - 1].0..toks[i - 1].1] == "def"
                || toks.get(i + 1).is_some_and(|t| &code[t.0..t.1] == ":");
            &code[s..e] == name && !key && arity.is_none_or(|a| called == (a > 0))
        };
        let at = (0..toks.len())
            .find(|&i| !used.contains(&i) && call(i))
            .inspect(|&i| used.push(i))
            .map_or(0, |i| toks[i].0);
        let what = match arity {
            Some(a) => format!("{name}/{a}"),
            None => name.to_string(),
        };
        found.push((at, what));
    }
    found.sort_by_key(|(at, _)| *at);
    let mut msg = String::new();
    for (at, what) in &found {
        let line_start = code[..*at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = code[*at..].find('\n').map_or(code.len(), |i| at + i);
        let line = code[..*at].matches('\n').count() + 1;
        msg.push_str(&format!(
            "jq: error: {what} is not defined at <top-level>, line {line}:\n{}{}\n",
            &code[line_start..line_end],
            " ".repeat(at - line_start)
        ));
    }
    let n = found.len();
    msg.push_str(&format!(
        "jq: {n} compile error{}",
        if n == 1 { "" } else { "s" }
    ));
    msg
}

/// The marker key of the error value our `halt_error` raises.
const HALT_KEY: &str = "__sandkeep_halt_error";

/// The value and exit code of a `halt_error` raised by the prelude.
fn halt_error(err: &Val) -> Option<(Val, i32)> {
    let Val::Obj(map) = err else { return None };
    let value = map.get(&Val::from(HALT_KEY.to_string()))?.clone();
    let code = match map.get(&Val::from("code".to_string())) {
        Some(Val::Num(n)) => super::format::num_to_f64(n) as i32,
        _ => 5,
    };
    Some((value, code))
}

/// An object from string-keyed entries.
fn object(entries: impl IntoIterator<Item = (Val, Val)>) -> Val {
    <Val as ValT>::from_map(entries).unwrap_or_default()
}

fn env_object(ctx: &CommandCtx<'_>) -> Val {
    let map = ctx
        .env
        .iter()
        .map(|(k, v)| (Val::from(k.clone()), Val::from(v.clone())));
    object(map)
}

fn run(ctx: &mut CommandCtx<'_>) -> Result<i32, Failure> {
    let Some(o) = parse_args(ctx)? else {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return Ok(0);
    };
    if o.version {
        let _ = ctx.stdout.write_all(b"jq-1.6\n");
        return Ok(0);
    }
    let (filter, data_imports) = compile_program(ctx, &o)?;
    // The values of the program's variables: the globals, the named
    // arguments, then the data its imports bound.
    let vars: Vec<Val> = global_values(ctx, &o)
        .into_iter()
        .chain(o.named.iter().map(|(_, v)| v.clone()))
        .chain(data_imports)
        .collect();

    let mut missing = false;
    let sources = if o.null_input && o.files.is_empty() && !o.raw_input {
        // `-n` still lets `input`/`inputs` read stdin.
        read_input(ctx, &o.files, &mut missing).unwrap_or_default()
    } else {
        read_input(ctx, &o.files, &mut missing)?
    };
    let (values, end) = input_values(&o, sources);
    let position = Rc::new(RefCell::new(Position::default()));
    let inputs = RcIter::new(tracked(values, end, position.clone()));
    let data = Data {
        lut: &filter.lut,
        inputs: &inputs,
        stderr: RefCell::new(Vec::new()),
        position,
        modules: module_paths(ctx, &o),
    };

    let mut outcome = Outcome::default();
    let program = Program {
        o: &o,
        filter: &filter,
        vars: &vars,
    };
    if o.null_input {
        program.run_on(ctx, &data, Val::Null, &mut outcome)?;
    } else {
        for input in &inputs {
            match input {
                Ok(v) => program.run_on(ctx, &data, v, &mut outcome)?,
                Err(e) => {
                    let _ = ctx.stdout.write_all(&outcome.out);
                    let _ = writeln!(ctx.stderr, "{e}");
                    return Ok(2);
                }
            }
        }
    }
    let _ = ctx.stdout.write_all(&outcome.out);
    Ok(exit_status(&o, missing, &outcome))
}

/// Compiles the filter (`.` when there is none or it is blank, as jq 1.6
/// runs it when stdin or stdout is no terminal, which in the sandbox they
/// never are), with the named arguments as variables and modules looked for
/// where `-L` or jq's defaults say.
fn compile_program(
    ctx: &CommandCtx<'_>,
    o: &Options,
) -> Result<(Rc<jaq_core::Filter<JqData>>, Vec<Val>), Failure> {
    let code = o
        .filter
        .clone()
        .filter(|f| !f.trim().is_empty())
        .unwrap_or_else(|| ".".to_string());
    let names: Vec<String> = o.named.iter().map(|(n, _)| format!("${n}")).collect();
    compile(&code, &names, &module_paths(ctx, o))
}

/// Where `-L` or jq's defaults say modules are.
fn module_paths<'a>(ctx: &CommandCtx<'a>, o: &Options) -> ModulePaths<'a> {
    let env: &'a [(String, String)] = ctx.env;
    let home = env
        .iter()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| v.as_str());
    ModulePaths {
        fs: ctx.fs,
        cwd: ctx.cwd,
        home,
        library: if o.library.is_empty() {
            super::modules::default_library()
        } else {
            o.library.clone()
        },
    }
}

/// The values of [`GLOBALS`]: `$ENV`, the sandbox clock's now, `$ARGS`.
fn global_values(ctx: &CommandCtx<'_>, o: &Options) -> [Val; 3] {
    let named = object(
        o.named
            .iter()
            .map(|(n, v)| (Val::from(n.clone()), v.clone())),
    );
    let args_obj = object([
        (
            Val::from("positional".to_string()),
            Val::from_iter(o.positional.iter().cloned()),
        ),
        (Val::from("named".to_string()), named),
    ]);
    let now = ctx.control.clock.now();
    let now = Val::from(now.secs as f64 + f64::from(now.nanos) / 1e9);
    [env_object(ctx), now, args_obj]
}

/// The input values as an iterator that moves `position` to each value's
/// source and line as it is read, and past the end leaves it at the end of
/// the last source.
fn tracked(
    values: Vec<Input>,
    end: Position,
    position: Rc<RefCell<Position>>,
) -> Box<dyn Iterator<Item = Result<Val, String>>> {
    let mut values = values.into_iter();
    Box::new(
        std::iter::from_fn(move || match values.next() {
            Some((v, pos)) => {
                *position.borrow_mut() = pos;
                Some(v)
            }
            None => {
                *position.borrow_mut() = end.clone();
                None
            }
        })
        .fuse(),
    )
}

/// What the runs over the inputs leave behind.
#[derive(Default)]
struct Outcome {
    /// The status of the last input's run (5 after an error), as jq's.
    status: i32,
    /// The last value output, for `-e`.
    last: Option<Val>,
    /// Output not written yet.
    out: Vec<u8>,
}

/// jq's exit status once every input has run.
fn exit_status(o: &Options, missing: bool, outcome: &Outcome) -> i32 {
    if missing {
        return 2;
    }
    if outcome.status != 0 {
        return outcome.status;
    }
    if o.exit_status {
        return match outcome.last {
            None => 4,
            Some(Val::Null) | Some(Val::Bool(false)) => 1,
            Some(_) => 0,
        };
    }
    0
}

/// A compiled filter with what each of its runs needs.
struct Program<'p> {
    o: &'p Options,
    filter: &'p jaq_core::Filter<JqData>,
    /// The values of the program's variables, in the compiler's order.
    vars: &'p [Val],
}

impl Program<'_> {
    /// Runs the filter on one input, writing its outputs; an error ends the
    /// run on this input (status 5), a `halt` or `halt_error` the whole jq.
    fn run_on<'a>(
        &self,
        ctx: &mut CommandCtx<'_>,
        data: &'a Data<'a>,
        input: Val,
        outcome: &mut Outcome,
    ) -> Result<(), Failure> {
        // As in jq, the exit status follows the last input's run.
        outcome.status = 0;
        let vars = Vars::new(self.vars.iter().cloned());
        let jctx = Ctx::<JqData>::new(data, vars);
        for y in self.filter.id.run((jctx, input)) {
            if ctx.control.check().is_err() {
                return Err(fail(124, ""));
            }
            {
                let mut err = data.stderr.borrow_mut();
                if !err.is_empty() {
                    let _ = ctx.stderr.write_all(&err);
                    err.clear();
                }
            }
            match y {
                Ok(v) => self.output(v, outcome),
                Err(exn) => {
                    let _ = ctx.stdout.write_all(&outcome.out);
                    outcome.out.clear();
                    // `unwrap_valr` would exit the host process on `halt`: never use it.
                    let err = match exn.get_err() {
                        Ok(err) => err.into_val(),
                        Err(exn) => return Err(fail(exn.get_halt().unwrap_or(5), "")),
                    };
                    let at = data.position.borrow().describe();
                    report_error(ctx, &err, &at)?;
                    outcome.status = 5;
                    return Ok(());
                }
            }
            if outcome.out.len() > 1 << 16 {
                ctx.stdout
                    .write_all(&outcome.out)
                    .map_err(|_| fail(141, ""))?;
                outcome.out.clear();
            }
        }
        Ok(())
    }

    /// One output value, as `-r`, `-j`, `--seq` and the layout say.
    fn output(&self, v: Val, outcome: &mut Outcome) {
        let out = &mut outcome.out;
        if self.o.seq {
            out.push(0x1e);
        }
        match &v {
            Val::TStr(s) | Val::BStr(s) if self.o.raw_output => out.extend_from_slice(s),
            _ => write_value(out, &self.o.layout, &v),
        }
        if !self.o.join_output {
            out.push(b'\n');
        }
        outcome.last = Some(v);
    }
}

/// An error the filter raised, on stderr as jq 1.6 words it (`at` is the
/// input's position). A `halt_error` writes its value and ends jq with its
/// code instead.
fn report_error(ctx: &mut CommandCtx<'_>, err: &Val, at: &str) -> Result<(), Failure> {
    if let Some((value, code)) = halt_error(err) {
        match &value {
            Val::TStr(s) | Val::BStr(s) => {
                let _ = ctx.stderr.write_all(s);
            }
            Val::Null => {}
            v => {
                let mut b = Vec::new();
                let compact = Layout {
                    indent: None,
                    ..Layout::default()
                };
                write_value(&mut b, &compact, v);
                b.push(b'\n');
                let _ = ctx.stderr.write_all(&b);
            }
        }
        return Err(fail(code, ""));
    }
    let _ = match err {
        Val::TStr(s) | Val::BStr(s) => {
            let msg = String::from_utf8_lossy(s);
            let msg = super::errors::jq_message(&msg).unwrap_or(msg.into_owned());
            writeln!(ctx.stderr, "jq: error (at {at}): {msg}")
        }
        v => writeln!(
            ctx.stderr,
            "jq: error (at {at}) (not a string): {}",
            super::values::to_json(v)
        ),
    };
    Ok(())
}

/// Quotes `s` as a JSON string (used in error messages).
#[allow(dead_code)]
fn quoted(s: &str) -> String {
    let mut out = Vec::new();
    write_string(&mut out, s, false);
    String::from_utf8_lossy(&out).into_owned()
}
