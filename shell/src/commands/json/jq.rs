//! `jq`: jq's command line over the jaq interpreter.
//!
//! The filter sees the sandbox, never the host: `$ENV` and `env` are the
//! script's environment and `now` is the sandbox clock (jaq-std's own `env`
//! and `now` read the host, so they are replaced).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, DataT, Lut, ValT, Vars, data::HasLut};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};

use super::format::{Layout, write_string, write_value};
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
  --args           remaining arguments are string arguments ($ARGS.positional);\n\
  --jsonargs       remaining arguments are JSON arguments.\n";

/// The data a running filter can reach: the lookup table and the inputs.
struct JqData;

impl DataT for JqData {
    type V<'a> = Val;
    type Data<'a> = &'a Data<'a>;
}

struct Data<'a> {
    lut: &'a Lut<JqData>,
    inputs: Inputs<'a, Val>,
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
            "--slurpfile" | "--rawfile" => {
                need(i, 2, a)?;
                let path = ctx.path(&args[i + 2]);
                let bytes = ctx.fs.read(&path).map_err(|e| {
                    fail(2, format!("jq: error: Could not open {}: {e}", args[i + 2]))
                })?;
                let v = if a == "--rawfile" {
                    Val::from(String::from_utf8_lossy(&bytes).into_owned())
                } else {
                    let vals: Result<Vec<Val>, _> = jaq_json::read::parse_many(&bytes).collect();
                    Val::from_iter(vals.map_err(|e| {
                        fail(
                            2,
                            format!("jq: Bad JSON in --slurpfile {}: {e}", args[i + 1]),
                        )
                    })?)
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
            "-" => {
                o.files.push(a.to_string());
                i += 1;
            }
            s if s.starts_with('-') && !s.starts_with("--") && s.len() > 1 => {
                for c in s[1..].chars() {
                    match c {
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
    Ok(Some(o))
}

/// The whole input text: the named files concatenated, or stdin.
fn read_input(ctx: &mut CommandCtx<'_>, files: &[String]) -> Result<Vec<u8>, Failure> {
    if files.is_empty() {
        let mut buf = Vec::new();
        ctx.stdin
            .read_to_end(&mut buf)
            .map_err(|e| fail(2, format!("jq: error: {e}")))?;
        return Ok(buf);
    }
    let mut buf = Vec::new();
    for f in files {
        if f == "-" {
            ctx.stdin
                .read_to_end(&mut buf)
                .map_err(|e| fail(2, format!("jq: error: {e}")))?;
            continue;
        }
        let path = ctx.path(f);
        let data = ctx
            .fs
            .read_shared(&path)
            .map_err(|e| fail(2, format!("jq: error: Could not open {f}: {e}")))?;
        buf.extend_from_slice(&data);
    }
    Ok(buf)
}

/// Input values as jq would produce them from the raw text.
fn input_values(o: &Options, text: &[u8]) -> Vec<Result<Val, String>> {
    if o.raw_input {
        let s = String::from_utf8_lossy(text);
        if o.slurp {
            return vec![Ok(Val::from(s.into_owned()))];
        }
        return s.lines().map(|l| Ok(Val::from(l.to_string()))).collect();
    }
    let vals: Vec<Result<Val, String>> = jaq_json::read::parse_many(text)
        .map(|r| r.map_err(|e| e.to_string()))
        .collect();
    if o.slurp {
        let mut arr = Vec::new();
        for v in vals {
            match v {
                Ok(v) => arr.push(v),
                Err(e) => return vec![Err(e)],
            }
        }
        return vec![Ok(Val::from_iter(arr))];
    }
    vals
}

/// The global variables every program gets, before the `--arg`-style ones.
const GLOBALS: [&str; 3] = ["$ENV", "$__sandkeep_now", "$ARGS"];

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
    // `env` and `now` must see the sandbox, not the host.
    let program = format!(
        "def env: $ENV; def now: $__sandkeep_now; {JQ_COMPAT}\n{}",
        rewrite_formats(code)
    );
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs::<JqData>()
        .chain(jaq_std::funs().filter(|(name, _, _)| *name != "env" && *name != "now"))
        .chain(
            jaq_std::input::funs()
                .into_vec()
                .into_iter()
                .map(jaq_core::native::run),
        )
        .chain(jaq_json::funs());
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
    let filter = Compiler::default()
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
        })?;
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

/// Definitions that make jaq behave like jq where they differ:
/// - `halt_error` logs to the host in jaq: raise a marked error the driver
///   prints on the sandbox's stderr instead;
/// - `del`/`delpaths` delete all paths at once (jaq deletes one after the
///   other, so `del(.[0,2])` removed the wrong element);
/// - `input` fails when the inputs are exhausted; `ltrimstr`/`rtrimstr`
///   ignore non-strings; `leaf_paths`, `tostream`, `@csv`, `@tsv` exist.
const JQ_COMPAT: &str = r#"
def halt_error($code): error({"__sandkeep_halt_error": ., "code": $code});
def halt_error: halt_error(5);
def delpaths($ps): reduce ($ps | unique | reverse)[] as $p (.; getpath($p) |= empty);
def del(f): delpaths([path(f)]);
def input: [limit(1; inputs)] | if length == 0 then error("No more inputs") else .[0] end;
def ltrimstr($x): if type == "string" and ($x | type) == "string" and startswith($x) then .[($x | length):] else . end;
def rtrimstr($x): if type == "string" and ($x | type) == "string" and endswith($x) and ($x | length) > 0 then .[:length - ($x | length)] else . end;
def leaf_paths: paths(scalars);
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def __sandkeep_csv: map(if type == "string" then "\"" + gsub("\""; "\"\"") + "\"" elif type == "null" then "" elif type == "number" or type == "boolean" then tostring else error("\(type) (\(tojson)) is not valid in a csv row") end) | join(",");
def __sandkeep_tsv: map(if type == "string" then gsub("\\\\"; "\\\\") | gsub("\t"; "\\t") | gsub("\n"; "\\n") | gsub("\r"; "\\r") elif type == "null" then "" elif type == "number" or type == "boolean" then tostring else error("\(type) (\(tojson)) is not valid in a tsv row") end) | join("\t");
"#;

/// Replaces the `@csv`/`@tsv` formats (outside string literals) with the
/// definitions in [`JQ_COMPAT`], which jaq lacks.
fn rewrite_formats(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut in_string = false;
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '@' if code[i..].starts_with("@csv") || code[i..].starts_with("@tsv") => {
                out.push_str(if code[i..].starts_with("@csv") {
                    "__sandkeep_csv"
                } else {
                    "__sandkeep_tsv"
                });
                for _ in 0..3 {
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
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
    let mut var_values = vec![env_object(ctx), now, args_obj];
    var_values.extend(o.named.iter().map(|(_, v)| v.clone()));

    let text = if o.null_input && o.files.is_empty() && !o.raw_input {
        // `-n` still lets `input`/`inputs` read stdin.
        read_input(ctx, &o.files).unwrap_or_default()
    } else {
        read_input(ctx, &o.files)?
    };
    let values = input_values(&o, &text);
    let iter: Box<dyn Iterator<Item = Result<Val, String>>> = Box::new(values.into_iter());
    let inputs = RcIter::new(iter);
    let data = Data {
        lut: &filter.lut,
        inputs: &inputs,
    };

    let mut last: Option<Val> = None;
    let mut status = 0;
    let mut out = Vec::new();
    let mut run_one = |input: Val, out: &mut Vec<u8>| -> Result<(), Failure> {
        let vars = Vars::new(var_values.iter().cloned());
        let jctx = Ctx::<JqData>::new(&data, vars);
        for y in filter.id.run((jctx, input)) {
            if ctx.control.check().is_err() {
                return Err(fail(124, ""));
            }
            match y {
                Ok(v) => {
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
                    let msg = match &err {
                        Val::TStr(s) | Val::BStr(s) => String::from_utf8_lossy(s).into_owned(),
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
                            format!("{} (not a string)", String::from_utf8_lossy(&b))
                        }
                    };
                    let _ = writeln!(ctx.stderr, "jq: error (at <stdin>:0): {msg}");
                    status = 5;
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
