//! The declaration builtins: `declare`/`typeset`, `local`, `export`,
//! `readonly`, `unset`, and `declare -p`'s output format.

use super::{err, out};
use crate::builtin_core::quote::{quote_double, quote_set_style};
use crate::interp::vars::{ArrayElem, ElemKey, VarError, is_valid_name, split_subscript};
use crate::interp::{Attrs, ExecResult, Interp, Interrupt, Value, Var};

/// Which builtin is running (they share one implementation).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Declare,
    Local,
    Export,
    Readonly,
}

impl Kind {
    fn name(self, args0: &str) -> String {
        match self {
            Kind::Declare => args0.to_string(),
            Kind::Local => "local".into(),
            Kind::Export => "export".into(),
            Kind::Readonly => "readonly".into(),
        }
    }
}

/// `declare` / `typeset`
pub fn declare(interp: &mut Interp, args: &[String]) -> ExecResult {
    run(interp, args, Kind::Declare)
}

/// `local`
pub fn local(interp: &mut Interp, args: &[String]) -> ExecResult {
    if interp.call_stack.is_empty() {
        err(interp, "local: can only be used in a function");
        return Ok(1);
    }
    run(interp, args, Kind::Local)
}

/// `export`
pub fn export(interp: &mut Interp, args: &[String]) -> ExecResult {
    run(interp, args, Kind::Export)
}

/// `readonly`
pub fn readonly(interp: &mut Interp, args: &[String]) -> ExecResult {
    run(interp, args, Kind::Readonly)
}

/// Attribute letters in the order `declare -p` prints them.
const ATTR_ORDER: &[(char, Attrs)] = &[
    ('a', Attrs::INDEXED),
    ('A', Attrs::ASSOC),
    ('i', Attrs::INTEGER),
    ('n', Attrs::NAMEREF),
    ('r', Attrs::READONLY),
    ('t', Attrs::TRACE),
    ('x', Attrs::EXPORT),
    ('l', Attrs::LOWER),
    ('u', Attrs::UPPER),
];

fn attr_of(c: char) -> Option<Attrs> {
    ATTR_ORDER.iter().find(|(l, _)| *l == c).map(|(_, a)| *a)
}

#[derive(Default)]
struct Flags {
    add: Attrs,
    remove: Attrs,
    print: bool,
    funcs: bool,
    func_names: bool,
    global: bool,
    unexport: bool,
}

fn usage(kind: Kind, name: &str) -> &'static str {
    match kind {
        Kind::Declare if name == "typeset" => {
            "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]"
        }
        Kind::Declare => {
            "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]"
        }
        Kind::Local => "local [option] name[=value] ...",
        Kind::Export => "export [-fn] [name[=value] ...] or export -p",
        Kind::Readonly => "readonly [-aAf] [name[=value] ...] or readonly -p",
    }
}

fn run(interp: &mut Interp, args: &[String], kind: Kind) -> ExecResult {
    let name = kind.name(&args[0]);
    let mut f = Flags::default();
    match kind {
        Kind::Export => f.add.insert(Attrs::EXPORT),
        Kind::Readonly => f.add.insert(Attrs::READONLY),
        _ => {}
    }
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            i += 1;
            break;
        }
        let on = match a.as_bytes().first() {
            Some(b'-') => true,
            Some(b'+') => false,
            _ => break,
        };
        if a.len() == 1 {
            break;
        }
        for c in a[1..].chars() {
            let allowed = match kind {
                Kind::Export => "fnp",
                Kind::Readonly => "aAfp",
                _ => "aAfFgiIlnprtux",
            };
            if !allowed.contains(c) {
                let sign = if on { '-' } else { '+' };
                return Ok(super::invalid_option(
                    interp,
                    &name,
                    &format!("{sign}{c}"),
                    usage(kind, &name),
                ));
            }
            match c {
                'p' => f.print = true,
                'f' => f.funcs = true,
                'F' => f.func_names = true,
                'g' => f.global = true,
                'I' => {}
                'n' if kind == Kind::Export => f.unexport = on,
                c => {
                    let attr = attr_of(c).unwrap_or_default();
                    if on {
                        f.add.insert(attr);
                    } else {
                        f.remove.insert(attr);
                    }
                }
            }
        }
        i += 1;
    }
    let names = &args[i..];
    if f.funcs || f.func_names {
        return functions(interp, &name, names, &f);
    }
    if names.is_empty() {
        return list(interp, kind, &f);
    }
    if f.print {
        return print_named(interp, &name, names);
    }
    // `readonly -a NAME` (no value) leaves NAME's kind alone: bash prints
    // `declare -r NAME` for a new one and converts nothing.
    let mut bare = Flags {
        add: f.add,
        remove: f.remove,
        ..Flags::default()
    };
    bare.add.remove(Attrs(Attrs::INDEXED.0 | Attrs::ASSOC.0));
    let mut status = 0;
    for arg in names {
        let bare_readonly = kind == Kind::Readonly && split_assignment(arg).1.is_none();
        let flags = if bare_readonly { &bare } else { &f };
        match declare_one(interp, arg, kind, flags) {
            Ok(()) => {}
            Err(DeclErr::Interrupt(i)) => return Err(i),
            Err(DeclErr::Msg(m)) => {
                err(interp, format!("{name}: {m}"));
                status = 1;
            }
            Err(DeclErr::Silent) => status = 1,
        }
    }
    Ok(status)
}

enum DeclErr {
    Msg(String),
    /// A failure bash reports with status 1 only.
    Silent,
    Interrupt(Interrupt),
}

impl From<VarError> for DeclErr {
    fn from(e: VarError) -> Self {
        match e {
            VarError::Interrupted(i) => DeclErr::Interrupt(i),
            e => DeclErr::Msg(e.to_string()),
        }
    }
}

/// Splits `name=value`, `name+=value`, `name[sub]=value` into parts.
fn split_assignment(arg: &str) -> (&str, Option<(&str, bool)>) {
    let bytes = arg.as_bytes();
    let mut depth = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b'=' if depth <= 0 => {
                if i > 0 && bytes[i - 1] == b'+' {
                    return (&arg[..i - 1], Some((&arg[i + 1..], true)));
                }
                return (&arg[..i], Some((&arg[i + 1..], false)));
            }
            _ => {}
        }
    }
    (arg, None)
}

fn declare_one(interp: &mut Interp, arg: &str, kind: Kind, f: &Flags) -> Result<(), DeclErr> {
    let (lhs, assign) = split_assignment(arg);
    let (base, sub) = split_subscript(lhs);
    // `export`/`readonly` take whole variables only (`export a[1]=x` fails).
    if !is_valid_name(base) || (sub.is_some() && matches!(kind, Kind::Export | Kind::Readonly)) {
        return Err(DeclErr::Msg(format!("`{arg}': not a valid identifier")));
    }
    let local_scope =
        matches!(kind, Kind::Local | Kind::Declare) && !f.global && !interp.call_stack.is_empty();
    // Namerefs: `declare -n r=x` sets the reference itself; other
    // declarations act on the variable the reference points at.
    let nameref_op = f.add.has(Attrs::NAMEREF) || f.remove.has(Attrs::NAMEREF);
    let target = if nameref_op || local_scope && !interp.vars.is_in_current_scope(base) {
        base.to_string()
    } else {
        interp.vars.resolve_name(base)
    };
    let target = split_subscript(&target).0.to_string();

    // Find or create the variable in the right scope.
    let exists_here = if local_scope {
        interp.vars.is_in_current_scope(&target)
    } else {
        true
    };
    if local_scope
        && !exists_here
        && interp
            .vars
            .get(&target)
            .is_some_and(|v| v.attrs.has(Attrs::READONLY))
    {
        // A readonly variable cannot be shadowed by a local.
        return Err(DeclErr::Msg(format!("{target}: readonly variable")));
    }
    if local_scope && !exists_here {
        // `local x` starts unset; `local x` of a visible global does not copy it.
        let var = interp.vars.declare_local(&target);
        *var = Var::default();
    }
    let existing = if f.global {
        Some(interp.vars.global_entry(&target).clone())
    } else {
        interp.vars.get_raw(&target).cloned()
    };
    let cur = existing.clone().unwrap_or_default();
    // bash lets `export`/`declare -x -i -l -u -t` add attributes to a
    // readonly variable; only a value, `+r`, or a change of kind is refused.
    let kind_change = Attrs::INDEXED.0 | Attrs::ASSOC.0 | Attrs::NAMEREF.0;
    if cur.attrs.has(Attrs::READONLY)
        && (assign.is_some()
            || f.remove.has(Attrs::READONLY)
            || (f.add.0 & !cur.attrs.0 & kind_change) != 0)
    {
        return Err(DeclErr::Msg(format!("{target}: readonly variable")));
    }
    let is_indexed = matches!(cur.value, Some(Value::Indexed(_)))
        || (cur.value.is_none() && cur.attrs.has(Attrs::INDEXED));
    let is_assoc = matches!(cur.value, Some(Value::Assoc(_)))
        || (cur.value.is_none() && cur.attrs.has(Attrs::ASSOC));
    if f.add.has(Attrs::ASSOC) && is_indexed {
        return Err(DeclErr::Msg(format!(
            "{target}: cannot convert indexed to associative array"
        )));
    }
    if f.add.has(Attrs::INDEXED) && is_assoc {
        return Err(DeclErr::Msg(format!(
            "{target}: cannot convert associative to indexed array"
        )));
    }
    if f.add.has(Attrs::NAMEREF)
        && assign.is_none()
        && let Some(Value::Str(v)) = &cur.value
        && !cur.attrs.has(Attrs::NAMEREF)
        && !is_valid_name(split_subscript(v).0)
    {
        return Err(DeclErr::Msg(format!(
            "`{v}': invalid variable name for name reference"
        )));
    }
    if f.add.has(Attrs::NAMEREF)
        && let Some((v, _)) = assign
        && (!is_valid_name(split_subscript(v).0) || v == target)
    {
        let msg = if v == target {
            format!("{target}: nameref variable self references not allowed")
        } else {
            format!("`{v}': invalid variable name for name reference")
        };
        return Err(DeclErr::Msg(msg));
    }
    if existing.is_none() && !local_scope {
        interp.vars.global_entry(&target);
    }
    // Apply attributes (before the value, so `-i`, `-l`, `-u` affect it).
    let unexport = f.unexport;
    {
        let var = slot(interp, &target, f.global);
        let mut attrs = var.attrs;
        attrs.insert(f.add);
        attrs.remove(f.remove);
        if unexport {
            attrs.remove(Attrs::EXPORT);
        }
        if attrs.has(Attrs::LOWER) && f.add.has(Attrs::UPPER) {
            attrs.remove(Attrs::LOWER);
        }
        if attrs.has(Attrs::UPPER) && f.add.has(Attrs::LOWER) {
            attrs.remove(Attrs::UPPER);
        }
        // Readonly is applied after the value is stored.
        attrs.remove(Attrs::READONLY);
        attrs.insert(Attrs(var.attrs.0 & Attrs::READONLY.0));
        var.attrs = attrs;
        // Converting a scalar to an array keeps it as element 0.
        if f.add.has(Attrs::INDEXED)
            && let Some(Value::Str(s)) = &var.value
        {
            var.value = Some(Value::Indexed([(0, s.clone())].into_iter().collect()));
        }
        if f.add.has(Attrs::ASSOC)
            && let Some(Value::Str(s)) = &var.value
        {
            let mut m = indexmap::IndexMap::new();
            m.insert("0".to_string(), s.clone());
            var.value = Some(Value::Assoc(m));
        }
    }
    if let Some((value, append)) = assign {
        if f.add.has(Attrs::NAMEREF) {
            let var = slot(interp, &target, f.global);
            var.value = Some(Value::Str(value.to_string()));
        } else if sub.is_none()
            && is_compound(value)
            && (interp.compound_words.iter().any(|w| w == arg)
                || f.add.has(Attrs::INDEXED)
                || f.add.has(Attrs::ASSOC)
                || is_indexed
                || is_assoc)
            && !f.remove.has(Attrs::INDEXED)
            && !f.remove.has(Attrs::ASSOC)
        {
            // `declare +a 'x=(1 2)'` stores the text as a string.
            let elems = compound_elements(interp, &target, &value[1..value.len() - 1])
                .map_err(DeclErr::Interrupt)?;
            let name = target.clone();
            // A plain `declare a=(...)` makes an indexed array.
            {
                let var = slot(interp, &name, f.global);
                if !var.attrs.has(Attrs::ASSOC) && !matches!(var.value, Some(Value::Assoc(_))) {
                    var.attrs.insert(Attrs::INDEXED);
                    if !append {
                        var.value = None;
                    }
                }
            }
            interp.assign_array(&name, elems, append)?;
        } else if let Some(s) = sub {
            interp.assign_elem(&target, s, value, append)?;
        } else if f.global && interp.vars.depth() > 0 && !interp.vars.is_in_current_scope(&target) {
            // `declare -g` from a function: write the global itself.
            let v = value.to_string();
            let old = interp.vars.global_entry(&target).clone();
            let new = if append {
                old.value
                    .as_ref()
                    .and_then(|v| v.as_scalar())
                    .unwrap_or("")
                    .to_string()
                    + &v
            } else {
                v
            };
            let n = if old.attrs.has(Attrs::INTEGER) {
                interp
                    .eval_arith(&new)
                    .map_err(DeclErr::Interrupt)?
                    .to_string()
            } else {
                new
            };
            interp.vars.set_global(&target, Value::Str(n))?;
        } else {
            interp.assign(&target, value, append)?;
        }
    } else if f.add.has(Attrs::INDEXED) || f.add.has(Attrs::ASSOC) {
        // `declare -a x` leaves an existing value; a new one stays unset.
    }
    if f.add.has(Attrs::READONLY) {
        slot(interp, &target, f.global)
            .attrs
            .insert(Attrs::READONLY);
    }
    Ok(())
}

/// The variable a declaration acts on (created unset if missing).
fn slot<'a>(interp: &'a mut Interp, name: &str, global: bool) -> &'a mut Var {
    if global || interp.vars.get_raw(name).is_none() {
        return interp.vars.global_entry(name);
    }
    interp.vars.get_raw_mut(name).expect("checked above")
}

/// True for a compound-assignment value `( ... )`.
fn is_compound(v: &str) -> bool {
    v.len() >= 2 && v.starts_with('(') && v.ends_with(')')
}

/// Splits the inside of `( ... )` into raw words, honouring quotes and
/// nested `$( )`, `${ }`, backquotes.
pub fn split_compound(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
                i += 1;
                continue;
            }
            b'#' if !in_word => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        in_word = true;
        let start = i;
        match c {
            b'\\' => i = (i + 2).min(b.len()),
            b'\'' => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i = (i + 1).min(b.len());
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i = (i + 1).min(b.len());
            }
            b'`' => {
                i += 1;
                while i < b.len() && b[i] != b'`' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i = (i + 1).min(b.len());
            }
            b'$' if i + 1 < b.len() && (b[i + 1] == b'(' || b[i + 1] == b'{') => {
                let (open, close) = if b[i + 1] == b'(' {
                    (b'(', b')')
                } else {
                    (b'{', b'}')
                };
                let mut depth = 0;
                i += 1;
                while i < b.len() {
                    if b[i] == open {
                        depth += 1;
                    } else if b[i] == close {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    } else if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => i += 1,
        }
        // The steps above are bytes; a word ends on a char boundary
        // (`typeset a=(é)` stepped into the `é`).
        let mut i_end = i.min(text.len());
        while !text.is_char_boundary(i_end) {
            i_end += 1;
        }
        i = i_end;
        cur.push_str(&text[start..i]);
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Expands the elements of a compound assignment (see
/// [`Interp::expand_array_literal`]).
pub fn compound_elements(
    interp: &mut Interp,
    name: &str,
    inner: &str,
) -> Result<Vec<ArrayElem>, Interrupt> {
    interp.expand_array_literal(name, &split_compound(inner))
}

/// Lists variables (no names given): `declare -p`-style for `-p` or when
/// attributes filter, `name=value` for a bare `declare`/`typeset`.
fn list(interp: &mut Interp, kind: Kind, f: &Flags) -> ExecResult {
    let mut text = String::new();
    let filter = f.add;
    match kind {
        Kind::Local => {
            for (n, v) in interp.vars.current_locals() {
                text.push_str(&decl_line(&n, v, true));
            }
        }
        Kind::Declare if !f.print && filter == Attrs::default() => {
            for (n, v) in interp.vars.visible() {
                if !is_valid_name(&n) {
                    continue;
                }
                match &v.value {
                    Some(Value::Str(x)) => text.push_str(&format!("{n}={}\n", quote_set_style(x))),
                    Some(val) => text.push_str(&format!("{n}={}\n", array_body(val))),
                    None => {}
                }
            }
        }
        _ => {
            for (n, v) in interp.vars.visible() {
                if filter != Attrs::default() && !has_attrs(v, filter) {
                    continue;
                }
                // Hidden shell state (getopts position, umask) is not a variable.
                if !is_valid_name(&n) {
                    continue;
                }
                text.push_str(&decl_line(&n, v, true));
            }
        }
    }
    Ok(if out(interp, text) { 0 } else { 1 })
}

/// Whether `v` has all of `attrs`, counting an array value as its kind
/// (`x=()` lists under `declare -a`).
fn has_attrs(v: &Var, attrs: Attrs) -> bool {
    let mut own = v.attrs;
    match v.value {
        Some(Value::Indexed(_)) => own.insert(Attrs::INDEXED),
        Some(Value::Assoc(_)) => own.insert(Attrs::ASSOC),
        _ => {}
    }
    own.has(attrs)
}

fn print_named(interp: &mut Interp, name: &str, names: &[String]) -> ExecResult {
    let mut status = 0;
    let mut text = String::new();
    for n in names {
        match interp.vars.get_raw(n) {
            Some(v) => text.push_str(&decl_line(n, v, true)),
            // The option lists exist (read-only) without being stored.
            None if let Some(list) = interp.option_list(n) => {
                let v = Var {
                    value: Some(Value::Str(list)),
                    attrs: Attrs::READONLY,
                };
                text.push_str(&decl_line(n, &v, true));
            }
            None => {
                if !text.is_empty() {
                    out(interp, std::mem::take(&mut text));
                }
                err(interp, format!("{name}: {n}: not found"));
                status = 1;
            }
        }
    }
    if !text.is_empty() && !out(interp, text) {
        return Ok(1);
    }
    Ok(status)
}

/// One `declare -p` line: `declare -ax name=(...)`.
pub fn decl_line(name: &str, v: &Var, with_declare: bool) -> String {
    let mut flags = String::new();
    for (c, a) in ATTR_ORDER {
        let has = match *c {
            'a' => {
                matches!(v.value, Some(Value::Indexed(_)))
                    || (v.value.is_none() && v.attrs.has(Attrs::INDEXED))
            }
            'A' => {
                matches!(v.value, Some(Value::Assoc(_)))
                    || (v.value.is_none() && v.attrs.has(Attrs::ASSOC))
            }
            _ => v.attrs.has(*a),
        };
        if has {
            flags.push(*c);
        }
    }
    if flags.is_empty() {
        flags.push('-');
    }
    let prefix = if with_declare {
        format!("declare -{flags} ")
    } else {
        String::new()
    };
    match &v.value {
        None => format!("{prefix}{name}\n"),
        Some(val) => format!("{prefix}{name}={}\n", value_text(val)),
    }
}

fn value_text(val: &Value) -> String {
    match val {
        Value::Str(s) => quote_double(s),
        _ => array_body(val),
    }
}

/// `([0]="a" [1]="b")` / `([k]="v" )`, as `declare -p` prints arrays.
pub fn array_body(v: &Value) -> String {
    match v {
        Value::Str(s) => quote_double(s),
        Value::Indexed(a) => {
            let parts: Vec<String> = a
                .iter()
                .map(|(k, s)| format!("[{k}]={}", quote_double(s)))
                .collect();
            format!("({})", parts.join(" "))
        }
        Value::Assoc(m) => {
            let mut s = String::from("(");
            for (k, val) in m {
                let key =
                    if k.chars().any(|c| " \t\n\"'\\$`;&|()<>*?[]".contains(c)) || k.is_empty() {
                        quote_double(k)
                    } else {
                        k.clone()
                    };
                s.push_str(&format!("[{key}]={} ", quote_double(val)));
            }
            s.push(')');
            s
        }
    }
}

/// `declare -f/-F`, `export -f`, `readonly -f`.
fn functions(interp: &mut Interp, name: &str, names: &[String], f: &Flags) -> ExecResult {
    let mut text = String::new();
    let mut status = 0;
    if names.is_empty() {
        let mut all: Vec<String> = interp.funcs.keys().cloned().collect();
        all.sort();
        for n in all {
            if f.func_names {
                text.push_str(&format!("declare -f {n}\n"));
            } else if let Some(def) = interp.funcs.get(&n) {
                text.push_str(&crate::interp::parse::function_text(def));
                text.push('\n');
            }
        }
    } else {
        for n in names {
            match interp.funcs.get(n) {
                Some(def) => {
                    if f.func_names {
                        text.push_str(&format!("{n}\n"));
                    } else if f.add == Attrs::default() || f.print {
                        text.push_str(&crate::interp::parse::function_text(def));
                        text.push('\n');
                    }
                }
                None => {
                    if !f.func_names && f.add != Attrs::default() {
                        err(interp, format!("{name}: {n}: not a function"));
                    }
                    status = 1;
                }
            }
        }
    }
    if !text.is_empty() && !out(interp, text) {
        return Ok(1);
    }
    Ok(status)
}

/// `unset [-fvn] NAME...`
pub fn unset(interp: &mut Interp, args: &[String]) -> ExecResult {
    let (flags, i) = match super::flag_letters(
        interp,
        "unset",
        args,
        "fvn",
        "unset [-f] [-v] [-n] [name ...]",
    ) {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    let (funcs, vars_only, nameref) = (
        flags.contains('f'),
        flags.contains('v'),
        flags.contains('n'),
    );
    if funcs && vars_only {
        err(
            interp,
            "unset: cannot simultaneously unset a function and a variable",
        );
        return Ok(1);
    }
    let mut status = 0;
    for n in &args[i..] {
        if funcs {
            interp.funcs.remove(n);
            continue;
        }
        let (base, sub) = split_subscript(n);
        if !is_valid_name(base) {
            err(interp, format!("unset: `{n}': not a valid identifier"));
            status = 1;
            continue;
        }
        let res = match sub {
            Some(s) => unset_element(interp, base, s),
            None if nameref => interp.vars.unset_raw(base).map_err(DeclErr::from),
            None => {
                let had_var = interp.vars.get_raw(base).is_some();
                let r = interp.vars.unset(base).map_err(DeclErr::from);
                if !had_var && !vars_only {
                    interp.funcs.remove(base);
                }
                r
            }
        };
        match res {
            Ok(()) => {}
            Err(DeclErr::Interrupt(i)) => return Err(i),
            Err(DeclErr::Msg(m)) => {
                err(interp, format!("unset: {m}"));
                status = 1;
            }
            Err(DeclErr::Silent) => status = 1,
        }
    }
    Ok(status)
}

fn unset_element(interp: &mut Interp, base: &str, sub: &str) -> Result<(), DeclErr> {
    let target = interp.vars.resolve_name(base);
    let target = split_subscript(&target).0.to_string();
    let is_assoc = interp
        .vars
        .get(&target)
        .is_some_and(|v| v.attrs.has(Attrs::ASSOC) || matches!(v.value, Some(Value::Assoc(_))));
    if sub == "@" || sub == "*" {
        return interp.vars.unset(&target).map_err(DeclErr::from);
    }
    // bash 5.2 names no element by `a[]` and unsets nothing, successfully.
    if sub.is_empty() {
        return Ok(());
    }
    let value_kind = interp.vars.get(&target).map(|v| match &v.value {
        Some(Value::Str(_)) => 1,
        Some(_) => 2,
        None => 0,
    });
    let key = if is_assoc {
        // The subscript is expanded (quotes, `$key`) like a word.
        let k = if sub.contains(['$', '"', '\'', '\\', '`']) {
            interp.expand_string(sub).map_err(DeclErr::Interrupt)?
        } else {
            sub.to_string()
        };
        ElemKey::Key(k)
    } else {
        match interp.try_eval_arith(sub) {
            Ok(i) => ElemKey::Index(i),
            Err(crate::interp::arith::ArithFail::Interrupt(i)) => {
                return Err(DeclErr::Interrupt(i));
            }
            Err(crate::interp::arith::ArithFail::Error(m)) => return Err(DeclErr::Msg(m)),
        }
    };
    match (value_kind, &key) {
        // Unsetting an element of something that is not an array fails.
        (Some(0), _) => return Err(DeclErr::Silent),
        (Some(1), ElemKey::Index(0)) => {}
        (Some(1), _) => return Err(DeclErr::Silent),
        _ => {}
    }
    interp.vars.unset_elem(&target, &key).map_err(|e| match e {
        VarError::BadSubscript(_) => DeclErr::Msg(format!("{base}[{sub}]: bad array subscript")),
        e => e.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compound_split_honours_quotes() {
        assert_eq!(
            split_compound(" a 'b c' \"d e\"  [k]=$(x y) ${a[@]} "),
            vec!["a", "'b c'", "\"d e\"", "[k]=$(x y)", "${a[@]}"]
        );
    }

    #[test]
    fn declare_p_quoting() {
        let v = Var {
            value: Some(Value::Str("3".into())),
            attrs: Attrs(Attrs::INTEGER.0 | Attrs::EXPORT.0),
        };
        assert_eq!(decl_line("i", &v, true), "declare -ix i=\"3\"\n");
    }
}
