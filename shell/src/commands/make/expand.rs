//! Expansion of make's text: `$(NAME)`, `${NAME}`, `$X`, `$$`, substitution
//! references (`$(SRCS:.c=.o)`), the automatic variables of a recipe and
//! the text, file-name, conditional and shell functions of GNU make 4.3's
//! manual ("Functions for Transforming Text").

use super::{Flavor, Make, MakeError};
use crate::commands::text::common::fnmatch;
use crate::commands::{ExecMode, ExecRequest};
use crate::fs::{FileKind, Fs};

/// How deep variable references may nest before make calls it a loop.
const MAX_DEPTH: usize = 200;

/// Where `%` splits a pattern, and the text around it.
pub(super) struct Pattern<'p> {
    prefix: &'p str,
    suffix: Option<&'p str>,
}

impl<'p> Pattern<'p> {
    /// A pattern: the first `%` is the wildcard; without one it matches
    /// only itself.
    pub(super) fn new(p: &'p str) -> Pattern<'p> {
        match p.find('%') {
            Some(at) => Pattern {
                prefix: &p[..at],
                suffix: Some(&p[at + 1..]),
            },
            None => Pattern {
                prefix: p,
                suffix: None,
            },
        }
    }

    /// The stem `%` stands for in `word`, if it matches.
    pub(super) fn stem<'w>(&self, word: &'w str) -> Option<&'w str> {
        match self.suffix {
            None => (word == self.prefix).then_some(""),
            Some(s) => (word.len() >= self.prefix.len() + s.len()
                && word.starts_with(self.prefix)
                && word.ends_with(s))
            .then(|| &word[self.prefix.len()..word.len() - s.len()]),
        }
    }
}

/// `replacement` with its first `%` replaced by `stem`.
pub(super) fn substitute(replacement: &str, stem: &str) -> String {
    match replacement.find('%') {
        Some(at) => format!("{}{stem}{}", &replacement[..at], &replacement[at + 1..]),
        None => replacement.to_string(),
    }
}

fn patsubst(pattern: &str, replacement: &str, text: &str) -> String {
    let pat = Pattern::new(pattern);
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| match pat.stem(w) {
            Some(stem) if pat.suffix.is_some() => substitute(replacement, stem),
            Some(_) => replacement.to_string(),
            None => w.to_string(),
        })
        .collect();
    words.join(" ")
}

/// The index of the parenthesis closing the one before `from`, counting
/// nested pairs of the same kind.
fn closing(text: &[u8], from: usize, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0;
    for (i, &c) in text.iter().enumerate().skip(from) {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

/// Splits a function's arguments at the commas outside parentheses, into
/// at most `max` pieces (the last keeps its commas).
fn split_args(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '{' => depth += 1,
            ')' | '}' => depth -= 1,
            ',' if depth == 0 && out.len() + 1 < max => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

/// The functions and how many arguments each splits into.
fn function_arity(name: &str) -> Option<usize> {
    Some(match name {
        "subst" | "patsubst" => 3,
        "strip" | "sort" | "words" | "firstword" | "lastword" | "dir" | "notdir" | "suffix"
        | "basename" | "wildcard" | "realpath" | "abspath" | "shell" | "error" | "warning"
        | "info" | "value" | "origin" | "flavor" | "eval" => 1,
        "findstring" | "filter" | "filter-out" | "word" | "addsuffix" | "addprefix" | "join" => 2,
        "wordlist" | "foreach" | "if" => 3,
        "or" | "and" | "call" => usize::MAX,
        _ => return None,
    })
}

fn each_word(text: &str, f: impl Fn(&str) -> String) -> String {
    text.split_whitespace().map(f).collect::<Vec<_>>().join(" ")
}

/// The directory part of a name (`./` when it has none).
fn dir_of(w: &str) -> String {
    match w.rfind('/') {
        Some(at) => w[..=at].to_string(),
        None => "./".to_string(),
    }
}

/// The name without its directory.
fn notdir(w: &str) -> &str {
    w.rfind('/').map_or(w, |at| &w[at + 1..])
}

/// The `.ext` of the last component, if it has one.
fn suffix_at(w: &str) -> Option<usize> {
    let base = w.rfind('/').map_or(0, |at| at + 1);
    w[base..].rfind('.').map(|at| base + at)
}

impl Make<'_, '_> {
    /// Expands `text` fully.
    pub(super) fn expand(&mut self, text: &str) -> Result<String, MakeError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(MakeError::at_line(
                self,
                "Recursive variable expansion too deep",
            ));
        }
        let result = self.expand_inner(text);
        self.depth -= 1;
        result
    }

    fn expand_inner(&mut self, text: &str) -> Result<String, MakeError> {
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < bytes.len() {
            let Some(off) = text[i..].find('$') else {
                out.push_str(&text[i..]);
                break;
            };
            out.push_str(&text[i..i + off]);
            i += off + 1;
            let Some(&c) = bytes.get(i) else {
                break;
            };
            match c {
                b'$' => {
                    out.push('$');
                    i += 1;
                }
                b'(' | b'{' => {
                    let close = if c == b'(' { b')' } else { b'}' };
                    let Some(end) = closing(bytes, i + 1, c, close) else {
                        return Err(MakeError::at_line(self, "unterminated variable reference"));
                    };
                    let inner = &text[i + 1..end];
                    i = end + 1;
                    out.push_str(&self.reference(inner)?);
                }
                _ => {
                    let ch = text[i..].chars().next().unwrap_or(' ');
                    i += ch.len_utf8();
                    out.push_str(&self.variable(&ch.to_string())?);
                }
            }
        }
        Ok(out)
    }

    /// What `$(inner)` stands for: a function call, a substitution
    /// reference or a variable.
    fn reference(&mut self, inner: &str) -> Result<String, MakeError> {
        let name_end = inner.find([' ', '\t']).unwrap_or(inner.len());
        let name = &inner[..name_end];
        if name_end < inner.len()
            && let Some(arity) = function_arity(name)
        {
            let rest = inner[name_end..].trim_start_matches([' ', '\t']);
            return self.function(name, &split_args(rest, arity));
        }
        let name = self.expand(inner)?;
        // A substitution reference: `NAME:FROM=TO`.
        if let Some(colon) = name.find(':')
            && let Some(eq) = name[colon..].find('=')
        {
            let (var, from, to) = (
                &name[..colon],
                &name[colon + 1..colon + eq],
                &name[colon + eq + 1..],
            );
            let value = self.variable(var)?;
            return Ok(if from.contains('%') {
                patsubst(from, to, &value)
            } else {
                patsubst(&format!("%{from}"), &format!("%{to}"), &value)
            });
        }
        self.variable(&name)
    }

    /// A variable's value, expanded when it is recursive.
    pub(super) fn variable(&mut self, name: &str) -> Result<String, MakeError> {
        if let Some(value) = self.automatic(name) {
            return Ok(value);
        }
        let Some(var) = self.vars.get(name) else {
            return Ok(String::new());
        };
        if var.flavor == Flavor::Simple {
            return Ok(var.value.clone());
        }
        if self.expanding.iter().any(|n| n == name) {
            return Err(MakeError::at_line(
                self,
                &format!("Recursive variable '{name}' references itself (eventually)"),
            ));
        }
        let value = var.value.clone();
        self.expanding.push(name.to_string());
        let result = self.expand(&value);
        self.expanding.pop();
        result
    }

    /// `$@ $< $^ $+ $? $* $|` and their `D`/`F` forms, inside a recipe.
    fn automatic(&self, name: &str) -> Option<String> {
        let auto = self.auto.as_ref()?;
        let (base, part) = match name.len() {
            1 => (name, None),
            2 if name.ends_with(['D', 'F']) => (&name[..1], name[1..].chars().next()),
            _ => return None,
        };
        let words: String = match base {
            "@" => auto.target.clone(),
            "<" => auto.prereqs.first().cloned().unwrap_or_default(),
            "^" => {
                let mut seen: Vec<&String> = Vec::new();
                for p in &auto.prereqs {
                    if !seen.contains(&p) {
                        seen.push(p);
                    }
                }
                seen.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            "+" => auto.prereqs.join(" "),
            "?" => auto.newer.join(" "),
            "*" => auto.stem.clone(),
            "|" => auto.order_only.join(" "),
            _ => return None,
        };
        Some(match part {
            None => words,
            Some('D') => each_word(&words, |w| {
                let d = dir_of(w);
                if d == "./" {
                    ".".to_string()
                } else {
                    d.trim_end_matches('/').to_string()
                }
            }),
            Some(_) => each_word(&words, |w| notdir(w).to_string()),
        })
    }

    fn function(&mut self, name: &str, args: &[&str]) -> Result<String, MakeError> {
        // The lazy ones expand their arguments themselves.
        if let Some(result) = self.lazy_function(name, args) {
            return result;
        }
        let mut a: Vec<String> = Vec::with_capacity(args.len());
        for arg in args {
            a.push(self.expand(arg)?);
        }
        let arg = |i: usize| a.get(i).map_or("", |s| s.as_str());
        if let Some(text) = pure_function(name, &arg) {
            return Ok(text);
        }
        Ok(match name {
            "word" => {
                let n: usize = arg(0).trim().parse().map_err(|_| {
                    MakeError::at_line(
                        self,
                        &format!(
                            "non-numeric first argument to 'word' function: '{}'",
                            arg(0).trim()
                        ),
                    )
                })?;
                if n == 0 {
                    return Err(MakeError::at_line(
                        self,
                        "first argument to 'word' function must be greater than 0",
                    ));
                }
                arg(1)
                    .split_whitespace()
                    .nth(n - 1)
                    .unwrap_or("")
                    .to_string()
            }
            "wildcard" => {
                let mut all = Vec::new();
                for pat in arg(0).split_whitespace() {
                    all.extend(self.glob(pat));
                }
                all.join(" ")
            }
            "realpath" | "abspath" => {
                let real = name == "realpath";
                let words: Vec<String> = arg(0)
                    .split_whitespace()
                    .filter_map(|w| {
                        let p = Fs::resolve(&self.cwd, w);
                        if real {
                            self.ctx.fs.canonicalize(&p).ok()
                        } else {
                            Some(p)
                        }
                    })
                    .collect();
                words.join(" ")
            }
            "shell" => self.shell(arg(0)),
            "error" => return Err(MakeError::at_line(self, arg(0))),
            "warning" => {
                let place = self.place();
                let _ = self.ctx.stdout.flush();
                let _ = writeln!(self.ctx.stderr, "{place}: {}", arg(0));
                String::new()
            }
            "info" => {
                let _ = writeln!(self.ctx.stdout, "{}", arg(0));
                String::new()
            }
            "origin" => match self.vars.get(arg(0)) {
                Some(v) => v.origin.word().to_string(),
                None if self.automatic(arg(0)).is_some() => "automatic".to_string(),
                None => "undefined".to_string(),
            },
            "flavor" => match self.vars.get(arg(0)) {
                Some(v) if v.flavor == Flavor::Simple => "simple".to_string(),
                Some(_) => "recursive".to_string(),
                None => "undefined".to_string(),
            },
            "call" => self.call(&a)?,
            "eval" => {
                let text = arg(0).to_string();
                self.read_text(&text, &self.place_file())?;
                String::new()
            }
            _ => String::new(),
        })
    }

    /// `if`, `or`, `and`, `foreach`, `value`: functions that expand only
    /// the arguments they need; `None` for the others.
    fn lazy_function(&mut self, name: &str, args: &[&str]) -> Option<Result<String, MakeError>> {
        match name {
            "if" => {
                let cond = match self.expand(args[0]) {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                };
                Some(match (cond.trim().is_empty(), args.get(1), args.get(2)) {
                    (false, Some(then), _) => self.expand(then),
                    (true, _, Some(otherwise)) => self.expand(otherwise),
                    _ => Ok(String::new()),
                })
            }
            "or" => {
                for a in args {
                    let v = match self.expand(a) {
                        Ok(v) => v,
                        Err(e) => return Some(Err(e)),
                    };
                    if !v.trim().is_empty() {
                        return Some(Ok(v));
                    }
                }
                Some(Ok(String::new()))
            }
            "and" => {
                let mut last = String::new();
                for a in args {
                    last = match self.expand(a) {
                        Ok(v) => v,
                        Err(e) => return Some(Err(e)),
                    };
                    if last.trim().is_empty() {
                        return Some(Ok(String::new()));
                    }
                }
                Some(Ok(last))
            }
            "foreach" => Some(self.foreach(args)),
            "value" => {
                let var = match self.expand(args[0]) {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                };
                Some(Ok(self
                    .vars
                    .get(&var)
                    .map(|v| v.value.clone())
                    .unwrap_or_default()))
            }
            _ => None,
        }
    }

    /// `$(foreach VAR,LIST,TEXT)`.
    fn foreach(&mut self, args: &[&str]) -> Result<String, MakeError> {
        let var = self.expand(args[0])?.trim().to_string();
        let list = self.expand(args.get(1).copied().unwrap_or(""))?;
        let body = args.get(2).copied().unwrap_or("");
        let saved = self.vars.remove(&var);
        let mut parts = Vec::new();
        for w in list.split_whitespace() {
            self.set_simple(&var, w);
            parts.push(self.expand(body)?);
        }
        self.vars.remove(&var);
        if let Some(v) = saved {
            self.vars.insert(var, v);
        }
        Ok(parts.join(" "))
    }

    /// `$(call NAME,ARGS...)`: NAME's value with `$(1)`... bound.
    fn call(&mut self, a: &[String]) -> Result<String, MakeError> {
        let name = a.first().map_or("", |s| s.trim()).to_string();
        let mut saved = Vec::new();
        for (i, value) in a.iter().enumerate() {
            let key = i.to_string();
            saved.push((key.clone(), self.vars.remove(&key)));
            let v = if i == 0 { name.clone() } else { value.clone() };
            self.set_simple(&key, &v);
        }
        let result = self.variable(&name);
        for (key, old) in saved {
            self.vars.remove(&key);
            if let Some(v) = old {
                self.vars.insert(key, v);
            }
        }
        result
    }

    /// `$(shell CMD)`: its stdout, newlines as spaces, the last ones dropped.
    pub(super) fn shell(&mut self, cmd: &str) -> String {
        let argv = ["/bin/sh".to_string(), "-c".to_string(), cmd.to_string()];
        let env = self.exported_env();
        let mut out = Vec::new();
        let cwd = self.cwd.clone();
        let ctx = &mut *self.ctx;
        ctx.exec.exec(ExecRequest {
            argv: &argv,
            env: &env,
            cwd: &cwd,
            stdin: &mut std::io::empty(),
            stdout: &mut out,
            stderr: ctx.stderr,
            mode: ExecMode::Inherit,
        });
        let text = String::from_utf8_lossy(&out);
        text.trim_end_matches('\n').replace('\n', " ")
    }

    /// The sorted names a glob pattern matches (relative as written).
    pub(super) fn glob(&self, pattern: &str) -> Vec<String> {
        if !pattern.contains(['*', '?', '[']) {
            let p = Fs::resolve(&self.cwd, pattern);
            return if self.ctx.fs.exists(&p) {
                vec![pattern.to_string()]
            } else {
                Vec::new()
            };
        }
        let (mut found, parts): (Vec<String>, Vec<&str>) =
            if let Some(rest) = pattern.strip_prefix('/') {
                (vec!["/".to_string()], rest.split('/').collect())
            } else {
                (vec![String::new()], pattern.split('/').collect())
            };
        for (k, part) in parts.iter().enumerate() {
            let last = k + 1 == parts.len();
            let mut next = Vec::new();
            for base in &found {
                let join = |name: &str| {
                    if base.is_empty() {
                        name.to_string()
                    } else if base.ends_with('/') {
                        format!("{base}{name}")
                    } else {
                        format!("{base}/{name}")
                    }
                };
                if !part.contains(['*', '?', '[']) {
                    let cand = join(part);
                    let p = Fs::resolve(&self.cwd, &cand);
                    if self.ctx.fs.exists(&p) {
                        next.push(cand);
                    }
                    continue;
                }
                let dir = Fs::resolve(&self.cwd, if base.is_empty() { "." } else { base });
                let Ok(entries) = self.ctx.fs.read_dir(&dir) else {
                    continue;
                };
                for e in entries {
                    if e.name.starts_with('.') && !part.starts_with('.') {
                        continue;
                    }
                    if !last && e.kind != FileKind::Dir {
                        continue;
                    }
                    if fnmatch(part.as_bytes(), e.name.as_bytes()) {
                        next.push(join(&e.name));
                    }
                }
            }
            found = next;
        }
        found.sort();
        found
    }
}

/// The functions that only transform their (expanded) arguments' text.
fn pure_function<'s>(name: &str, arg: &impl Fn(usize) -> &'s str) -> Option<String> {
    Some(match name {
        "subst" => {
            if arg(0).is_empty() {
                arg(2).to_string()
            } else {
                arg(2).replace(arg(0), arg(1))
            }
        }
        "patsubst" => patsubst(arg(0), arg(1), arg(2)),
        "strip" => arg(0).split_whitespace().collect::<Vec<_>>().join(" "),
        "findstring" => {
            if arg(1).contains(arg(0)) {
                arg(0).to_string()
            } else {
                String::new()
            }
        }
        "filter" | "filter-out" => {
            let pats: Vec<Pattern> = arg(0).split_whitespace().map(Pattern::new).collect();
            let keep = name == "filter";
            let words: Vec<&str> = arg(1)
                .split_whitespace()
                .filter(|w| pats.iter().any(|p| p.stem(w).is_some()) == keep)
                .collect();
            words.join(" ")
        }
        "sort" => {
            let mut words: Vec<&str> = arg(0).split_whitespace().collect();
            words.sort_unstable();
            words.dedup();
            words.join(" ")
        }
        "wordlist" => {
            let s: usize = arg(0).trim().parse().unwrap_or(1).max(1);
            let e: usize = arg(1).trim().parse().unwrap_or(0);
            let words: Vec<&str> = arg(2).split_whitespace().collect();
            if e < s {
                String::new()
            } else {
                words
                    .iter()
                    .skip(s - 1)
                    .take(e + 1 - s)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        }
        "words" => arg(0).split_whitespace().count().to_string(),
        "firstword" => arg(0).split_whitespace().next().unwrap_or("").to_string(),
        "lastword" => arg(0).split_whitespace().last().unwrap_or("").to_string(),
        "dir" => each_word(arg(0), dir_of),
        "notdir" => each_word(arg(0), |w| notdir(w).to_string()),
        "suffix" => arg(0)
            .split_whitespace()
            .filter_map(|w| suffix_at(w).map(|at| w[at..].to_string()))
            .collect::<Vec<_>>()
            .join(" "),
        "basename" => each_word(arg(0), |w| match suffix_at(w) {
            Some(at) => w[..at].to_string(),
            None => w.to_string(),
        }),
        "addsuffix" => each_word(arg(1), |w| format!("{w}{}", arg(0))),
        "addprefix" => each_word(arg(1), |w| format!("{}{w}", arg(0))),
        "join" => {
            let x: Vec<&str> = arg(0).split_whitespace().collect();
            let y: Vec<&str> = arg(1).split_whitespace().collect();
            (0..x.len().max(y.len()))
                .map(|i| format!("{}{}", x.get(i).unwrap_or(&""), y.get(i).unwrap_or(&"")))
                .collect::<Vec<_>>()
                .join(" ")
        }
        _ => return None,
    })
}
