//! `jq`: jq's command line over the jaq interpreter.
//!
//! The filter sees the sandbox, never the host: `$ENV` and `env` are the
//! script's environment and `now` is the sandbox clock (jaq-std's own `env`
//! and `now` read the host, so they are replaced; so are `localtime`, which
//! reads the host's time zone, and `debug`/`stderr`, which log to the host).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, DataT, Lut, ValT, Vars, data::HasLut};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};

use super::format::{Layout, write_string, write_value};
use super::prelude::JQ_COMPAT;
use crate::commands::CommandCtx;

const USAGE: &str = "Usage:\tjq [OPTIONS] FILTER [FILES...]\n\
\tjq [OPTIONS] --args FILTER [ARGUMENTS...]\n\n\
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

/// Where `debug` and `stderr` write.
trait HasStderr {
    fn stderr(&self) -> &RefCell<Vec<u8>>;
}

impl HasStderr for &Data<'_> {
    fn stderr(&self) -> &RefCell<Vec<u8>> {
        &self.stderr
    }
}

/// `debug` and `stderr` write on the sandbox's stderr, as jq 1.6 does.
fn sandbox_funs<D>() -> impl Iterator<Item = jaq_core::native::Fun<D>>
where
    D: for<'a> DataT<V<'a> = Val>,
    for<'a> D::Data<'a>: HasStderr,
{
    sandbox_base()
        .into_vec()
        .into_iter()
        .map(jaq_core::native::run)
}

fn sandbox_base<D>() -> Box<[jaq_core::native::Filter<jaq_core::RunPtr<D>>]>
where
    D: for<'a> DataT<V<'a> = Val>,
    for<'a> D::Data<'a>: HasStderr,
{
    Box::new([
        ("debug_empty", jaq_core::native::v(0), |cv| {
            let mut err = cv.0.data().stderr().borrow_mut();
            err.extend_from_slice(b"[\"DEBUG:\",");
            err.extend_from_slice(super::values::to_json(&cv.1).as_bytes());
            err.extend_from_slice(b"]\n");
            Box::new(std::iter::empty())
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

pub(super) fn main(ctx: &mut CommandCtx<'_>) -> i32 {
    match run(ctx) {
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

fn parse_json(text: &[u8], what: &str) -> Result<Val, Failure> {
    jaq_json::read::parse_single(text)
        .map_err(|e| fail(2, format!("jq: invalid JSON text passed to {what}: {e}")))
}

fn parse_args(ctx: &mut CommandCtx<'_>) -> Result<Option<Options>, Failure> {
    let mut o = Options::default();
    let args = &ctx.args[1..];
    let mut i = 0;
    let mut rest_are_args: Option<bool> = None; // Some(json?)
    let need = |i: usize, n: usize, flag: &str| {
        if i + n >= args.len() {
            Err(fail(
                2,
                format!("jq: {flag} takes {n} parameter(s)\n{USAGE}"),
            ))
        } else {
            Ok(())
        }
    };
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--help" || a == "-h" {
            return Ok(None);
        }
        if let Some(json) = rest_are_args
            && o.filter.is_some()
            && !a.starts_with('-')
        {
            o.positional.push(if json {
                parse_json(a.as_bytes(), "--jsonargs")?
            } else {
                Val::from(a.to_string())
            });
            i += 1;
            continue;
        }
        match a {
            "--arg" => {
                need(i, 2, a)?;
                o.named
                    .push((args[i + 1].clone(), Val::from(args[i + 2].clone())));
                i += 3;
            }
            "--argjson" => {
                need(i, 2, a)?;
                let v = parse_json(args[i + 2].as_bytes(), "--argjson")?;
                o.named.push((args[i + 1].clone(), v));
                i += 3;
            }
            "--from-file" => {
                need(i, 1, a)?;
                o.from_file = Some(args[i + 1].clone());
                i += 2;
            }
            "--slurpfile" | "--rawfile" | "--argfile" => {
                need(i, 2, a)?;
                let path = ctx.path(&args[i + 2]);
                let bytes = ctx.fs.read(&path).map_err(|e| {
                    fail(2, format!("jq: error: Could not open {}: {e}", args[i + 2]))
                })?;
                let v = if a == "--rawfile" {
                    Val::from(String::from_utf8_lossy(&bytes).into_owned())
                } else {
                    let vals: Result<Vec<Val>, _> = jaq_json::read::parse_many(&bytes).collect();
                    let mut vals = vals.map_err(|e| {
                        fail(2, format!("jq: Bad JSON in {a} {}: {e}", args[i + 1]))
                    })?;
                    // jq 1.6's `--argfile`: a file of one value is that value.
                    if a == "--argfile" && vals.len() == 1 {
                        vals.pop().unwrap_or_default()
                    } else {
                        Val::from_iter(vals)
                    }
                };
                o.named.push((args[i + 1].clone(), v));
                i += 3;
            }
            "--indent" => {
                need(i, 1, a)?;
                let n: usize = args[i + 1]
                    .parse()
                    .map_err(|_| fail(2, format!("jq: --indent takes a number\n{USAGE}")))?;
                if n > 7 {
                    return Err(fail(2, "jq: Cannot indent more than 7 characters"));
                }
                o.layout.indent = if n == 0 { None } else { Some(" ".repeat(n)) };
                i += 2;
            }
            "--tab" => {
                o.layout.indent = Some("\t".into());
                i += 1;
            }
            "--args" => {
                rest_are_args = Some(false);
                i += 1;
            }
            "--jsonargs" => {
                rest_are_args = Some(true);
                i += 1;
            }
            "--null-input" => (o.null_input, i) = (true, i + 1),
            "--raw-input" => (o.raw_input, i) = (true, i + 1),
            "--slurp" => (o.slurp, i) = (true, i + 1),
            "--raw-output" => (o.raw_output, i) = (true, i + 1),
            "--join-output" => (o.join_output, i) = (true, i + 1),
            "--compact-output" => (o.layout.indent, i) = (None, i + 1),
            "--sort-keys" => (o.layout.sort_keys, i) = (true, i + 1),
            "--ascii-output" => (o.layout.ascii, i) = (true, i + 1),
            "--exit-status" => (o.exit_status, i) = (true, i + 1),
            "--color-output" | "--monochrome-output" => i += 1,
            "--version" => (o.version, i) = (true, i + 1),
            "--stream" => (o.stream, i) = (true, i + 1),
            "--seq" => (o.seq, i) = (true, i + 1),
            "-" => {
                o.files.push(a.to_string());
                i += 1;
            }
            s if s.starts_with('-') && !s.starts_with("--") && s.len() > 1 => {
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
                        'h' => return Ok(None),
                        _ => return Err(fail(2, format!("jq: Unknown option: {s}\n{USAGE}"))),
                    }
                }
                if takes_file {
                    need(i, 1, "-f")?;
                    o.from_file = Some(args[i + 1].clone());
                    i += 1;
                }
                i += 1;
            }
            s if s.starts_with("--") => {
                return Err(fail(2, format!("jq: Unknown option: {s}\n{USAGE}")));
            }
            _ => {
                if o.filter.is_none() {
                    o.filter = Some(a.to_string());
                } else if let Some(json) = rest_are_args {
                    o.positional.push(if json {
                        parse_json(a.as_bytes(), "--jsonargs")?
                    } else {
                        Val::from(a.to_string())
                    });
                } else {
                    o.files.push(a.to_string());
                }
                i += 1;
            }
        }
    }
    if o.join_output {
        o.raw_output = true;
    }
    // `-f FILE`: the filter is the file's text, and what looked like the
    // filter is the first input file (or positional argument).
    if let Some(path) = o.from_file.clone() {
        let bytes = ctx
            .fs
            .read(&ctx.path(&path))
            .map_err(|e| fail(2, format!("jq: error: Could not open {path}: {e}")))?;
        if let Some(first) = o
            .filter
            .replace(String::from_utf8_lossy(&bytes).into_owned())
        {
            match rest_are_args {
                Some(true) => o
                    .positional
                    .insert(0, parse_json(first.as_bytes(), "--jsonargs")?),
                Some(false) => o.positional.insert(0, Val::from(first)),
                None => o.files.insert(0, first),
            }
        }
    }
    // The first `--arg` of a name wins, as in jq.
    let mut seen = std::collections::HashSet::new();
    o.named.retain(|(name, _)| seen.insert(name.clone()));
    Ok(Some(o))
}

/// The input sources: each one's name (for `input_filename`) and text.
fn read_input(ctx: &mut CommandCtx<'_>, files: &[String]) -> Result<Vec<(Val, Vec<u8>)>, Failure> {
    let stdin = |ctx: &mut CommandCtx<'_>| {
        let mut buf = Vec::new();
        ctx.stdin
            .read_to_end(&mut buf)
            .map_err(|e| fail(2, format!("jq: error: {e}")))?;
        Ok((Val::from("<stdin>".to_string()), buf))
    };
    if files.is_empty() {
        return Ok(vec![stdin(ctx)?]);
    }
    let mut sources = Vec::new();
    for f in files {
        if f == "-" {
            sources.push(stdin(ctx)?);
            continue;
        }
        let path = ctx.path(f);
        let data = ctx
            .fs
            .read_shared(&path)
            .map_err(|e| fail(2, format!("jq: error: Could not open {f}: {e}")))?;
        sources.push((Val::from(f.clone()), data.to_vec()));
    }
    Ok(sources)
}

/// Input values as jq would produce them from the sources, each with the
/// name of the source it came from.
fn input_values(o: &Options, sources: Vec<(Val, Vec<u8>)>) -> Vec<(Result<Val, String>, Val)> {
    let last_name = sources.last().map(|(n, _)| n.clone()).unwrap_or_default();
    if o.raw_input {
        if o.slurp {
            let text: Vec<u8> = sources.into_iter().flat_map(|(_, t)| t).collect();
            let s = String::from_utf8_lossy(&text).into_owned();
            return vec![(Ok(Val::from(s)), last_name)];
        }
        let mut out = Vec::new();
        for (name, text) in sources {
            let s = String::from_utf8_lossy(&text);
            out.extend(
                s.lines()
                    .map(|l| (Ok(Val::from(l.to_string())), name.clone())),
            );
        }
        return out;
    }
    let mut vals = Vec::new();
    'sources: for (name, text) in sources {
        for v in jaq_json::read::parse_many(&text) {
            let failed = v.is_err();
            vals.push((v.map_err(|e| e.to_string()), name.clone()));
            if failed {
                break 'sources;
            }
        }
    }
    if o.stream {
        let mut events = Vec::new();
        for (v, name) in vals {
            match v {
                Ok(v) => {
                    let mut evs = Vec::new();
                    stream_events(&v, &mut Vec::new(), &mut evs);
                    events.extend(evs.into_iter().map(|e| (Ok(e), name.clone())));
                }
                Err(e) => events.push((Err(e), name)),
            }
        }
        vals = events;
    }
    if o.slurp {
        let mut arr = Vec::new();
        for (v, name) in vals {
            match v {
                Ok(v) => arr.push(v),
                Err(e) => return vec![(Err(e), name)],
            }
        }
        return vec![(Ok(Val::from_iter(arr)), last_name)];
    }
    vals
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
const GLOBALS: [&str; 4] = ["$ENV", "$__sandkeep_now", "$ARGS", "$__sk_filename"];

/// Compiles `code` (with the given `--arg`-style variable names), reusing a
/// filter compiled earlier on this thread: parsing jq's standard library
/// dominates a small `jq` call.
fn compile(code: &str, named: &[String]) -> Result<Rc<jaq_core::Filter<JqData>>, Failure> {
    type Cache = HashMap<(String, Vec<String>), Rc<jaq_core::Filter<JqData>>>;
    thread_local! {
        static FILTERS: RefCell<Cache> = RefCell::new(HashMap::new());
    }
    let key = (code.to_string(), named.to_vec());
    if let Some(f) = FILTERS.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(f);
    }
    // The rewrite prints from jaq's own syntax tree, so its output always
    // parses; should it ever not compile, the filter as written still may.
    let filter = match super::rewrite::rewrite(code) {
        Some(user) => build(&user, named).or_else(|_| build(code, named))?,
        None => build(code, named)?,
    };
    let filter = Rc::new(filter);
    FILTERS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(key, filter.clone());
    });
    Ok(filter)
}

/// Loads and compiles the user's filter `user` after the prelude.
fn build(user: &str, named: &[String]) -> Result<jaq_core::Filter<JqData>, Failure> {
    // `env` and `now` must see the sandbox, not the host.
    let program = format!("def env: $ENV; def now: $__sandkeep_now; {JQ_COMPAT}\n{user}");
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs::<JqData>()
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
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = loader
        .load(
            &arena,
            File {
                code: program.as_str(),
                path: (),
            },
        )
        .map_err(|errs| {
            fail(
                3,
                format!(
                    "jq: error: syntax error in filter ({} error(s))\njq: 1 compile error",
                    errs.len()
                ),
            )
        })?;
    let globals = GLOBALS
        .iter()
        .copied()
        .chain(named.iter().map(|s| s.as_str()));
    Compiler::default()
        .with_funs(funs)
        .with_global_vars(globals)
        .compile(modules)
        .map_err(|errs| {
            let what: Vec<String> = errs
                .iter()
                .flat_map(|(_, es)| es.iter().map(|(name, _)| format!("{name} is not defined")))
                .collect();
            fail(
                3,
                format!("jq: error: {}\njq: 1 compile error", what.join(", ")),
            )
        })
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
    let Some(code) = o.filter.clone() else {
        return Err(fail(2, USAGE));
    };

    let names: Vec<String> = o.named.iter().map(|(n, _)| format!("${n}")).collect();
    let filter = compile(&code, &names)?;
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
    let var_values = [env_object(ctx), now, args_obj];

    let sources = if o.null_input && o.files.is_empty() && !o.raw_input {
        // `-n` still lets `input`/`inputs` read stdin.
        read_input(ctx, &o.files).unwrap_or_default()
    } else {
        read_input(ctx, &o.files)?
    };
    let values = input_values(&o, sources);
    // The source of the input read last, for `input_filename`.
    let current = Rc::new(RefCell::new(Val::Null));
    let iter: Box<dyn Iterator<Item = Result<Val, String>>> = Box::new({
        let current = current.clone();
        values.into_iter().map(move |(v, name)| {
            *current.borrow_mut() = name;
            v
        })
    });
    let inputs = RcIter::new(iter);
    let data = Data {
        lut: &filter.lut,
        inputs: &inputs,
        stderr: RefCell::new(Vec::new()),
    };

    let mut last: Option<Val> = None;
    let mut status = 0;
    let mut out = Vec::new();
    let mut run_one = |input: Val, out: &mut Vec<u8>| -> Result<(), Failure> {
        // As in jq, the exit status follows the last input's run.
        status = 0;
        let filename = if o.null_input {
            Val::Null
        } else {
            current.borrow().clone()
        };
        let globals = var_values.iter().cloned().chain([filename]);
        let vars = Vars::new(globals.chain(o.named.iter().map(|(_, v)| v.clone())));
        let jctx = Ctx::<JqData>::new(&data, vars);
        for y in filter.id.run((jctx, input)) {
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
                Ok(v) => {
                    if o.seq {
                        out.push(0x1e);
                    }
                    match &v {
                        Val::TStr(s) | Val::BStr(s) if o.raw_output => out.extend_from_slice(s),
                        _ => write_value(out, &o.layout, &v),
                    }
                    if !o.join_output {
                        out.push(b'\n');
                    }
                    last = Some(v);
                }
                Err(exn) => {
                    let _ = ctx.stdout.write_all(out);
                    out.clear();
                    // `unwrap_valr` would exit the host process on `halt`: never use it.
                    let err = match exn.get_err() {
                        Ok(err) => err.into_val(),
                        Err(exn) => return Err(fail(exn.get_halt().unwrap_or(5), "")),
                    };
                    if let Some((value, code)) = halt_error(&err) {
                        match &value {
                            Val::TStr(s) | Val::BStr(s) => {
                                let _ = ctx.stderr.write_all(s);
                            }
                            v => {
                                let mut b = Vec::new();
                                write_value(
                                    &mut b,
                                    &Layout {
                                        indent: None,
                                        ..Layout::default()
                                    },
                                    v,
                                );
                                b.push(b'\n');
                                let _ = ctx.stderr.write_all(&b);
                            }
                        }
                        return Err(fail(code, ""));
                    }
                    let _ = match &err {
                        Val::TStr(s) | Val::BStr(s) => {
                            let msg = String::from_utf8_lossy(s);
                            let msg = super::errors::jq_message(&msg).unwrap_or(msg.into_owned());
                            writeln!(ctx.stderr, "jq: error (at <stdin>:0): {msg}")
                        }
                        v => writeln!(
                            ctx.stderr,
                            "jq: error (at <stdin>:0) (not a string): {}",
                            super::values::to_json(v)
                        ),
                    };
                    // An error ends the run on this input, as in jq.
                    status = 5;
                    return Ok(());
                }
            }
            if out.len() > 1 << 16 {
                ctx.stdout.write_all(out).map_err(|_| fail(141, ""))?;
                out.clear();
            }
        }
        Ok(())
    };

    if o.null_input {
        run_one(Val::Null, &mut out)?;
    } else {
        for input in &inputs {
            match input {
                Ok(v) => run_one(v, &mut out)?,
                Err(e) => {
                    let _ = ctx.stdout.write_all(&out);
                    out.clear();
                    let _ = writeln!(
                        ctx.stderr,
                        "jq: error (at <stdin>:0): Cannot parse input: {e}"
                    );
                    return Ok(2);
                }
            }
        }
    }
    let _ = ctx.stdout.write_all(&out);
    if status != 0 {
        return Ok(status);
    }
    if o.exit_status {
        return Ok(match last {
            None => 4,
            Some(Val::Null) | Some(Val::Bool(false)) => 1,
            Some(_) => 0,
        });
    }
    Ok(0)
}

/// Quotes `s` as a JSON string (used in error messages).
#[allow(dead_code)]
fn quoted(s: &str) -> String {
    let mut out = Vec::new();
    write_string(&mut out, s, false);
    String::from_utf8_lossy(&out).into_owned()
}
