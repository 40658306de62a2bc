//! Reading a makefile (the manual's "Writing Makefiles"): logical lines
//! (backslash-newline joins), comments, conditionals (`ifeq ifneq ifdef
//! ifndef else endif`), `define`/`endef`, `include`/`-include`,
//! `export`/`override`, assignments (`= := ::= ?= += !=`), rules with their
//! tab-led recipes, pattern and static pattern rules, special targets.

use super::expand::{Pattern, substitute};
use super::{Flavor, Make, MakeError, Origin, PatternRule, RecipeLine, Target, Var};
use crate::commands::text::common::read_file;

/// A rule whose recipe lines are still being read.
struct Pending {
    targets: Vec<String>,
    prereqs: Vec<String>,
    order_only: Vec<String>,
    /// A static pattern rule's target pattern and prerequisite patterns.
    static_pattern: Option<(String, Vec<String>)>,
    recipe: Vec<RecipeLine>,
}

/// One level of `ifeq`/`ifdef` nesting.
struct Cond {
    /// Lines here are read.
    active: bool,
    /// Whether the enclosing level is active.
    outer: bool,
    /// Whether a branch of this conditional was taken.
    taken: bool,
}

/// A `define` being collected.
struct Define {
    name: String,
    op: String,
    lines: Vec<String>,
    depth: usize,
    origin: Origin,
    export: bool,
}

/// What a statement started.
enum Statement {
    Define(Define),
    Rule(Pending),
    Done,
}

/// Where the first top-level `:` or `=` of a line is, and what it starts.
enum Split {
    /// An assignment: name, operator, value.
    Assign(String, String, String),
    /// A rule: what is before the colon, what is after.
    Rule(String, String),
    None,
}

fn split_line(line: &str) -> Split {
    let bytes = line.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let (name_end, op) = match i.checked_sub(1).map(|k| bytes[k]) {
                    Some(c @ (b'?' | b'+' | b'!')) => (i - 1, format!("{}=", c as char)),
                    _ => (i, "=".to_string()),
                };
                return Split::Assign(
                    line[..name_end].trim().to_string(),
                    op,
                    line[i + 1..].trim_start().to_string(),
                );
            }
            b':' if depth == 0 => {
                if line[i..].starts_with("::=") {
                    return Split::Assign(
                        line[..i].trim().to_string(),
                        ":=".into(),
                        line[i + 3..].trim_start().into(),
                    );
                }
                if line[i..].starts_with(":=") {
                    return Split::Assign(
                        line[..i].trim().to_string(),
                        ":=".into(),
                        line[i + 2..].trim_start().into(),
                    );
                }
                // A drive-less `::` rule reads as `:` here.
                let rest = line[i + 1..].strip_prefix(':').unwrap_or(&line[i + 1..]);
                return Split::Rule(line[..i].to_string(), rest.to_string());
            }
            _ => {}
        }
        i += 1;
    }
    Split::None
}

/// The line without its comment (an unescaped `#`).
fn strip_comment(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'#') => {
                out.push('#');
                chars.next();
            }
            '#' => break,
            _ => out.push(c),
        }
    }
    out
}

/// Splits at the first top-level `c`.
fn split_top(text: &str, c: char) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    for (i, ch) in text.char_indices() {
        match ch {
            '(' | '{' => depth += 1,
            ')' | '}' => depth -= 1,
            _ if ch == c && depth == 0 => return Some((&text[..i], &text[i + 1..])),
            _ => {}
        }
    }
    None
}

/// The two operands of `ifeq (a,b)` or `ifeq "a" "b"`.
fn eq_operands(text: &str) -> Option<(String, String)> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        let (a, b) = split_top(inner, ',')?;
        return Some((a.trim().to_string(), b.trim().to_string()));
    }
    let mut parts = Vec::new();
    let mut rest = t;
    for _ in 0..2 {
        let q = rest.chars().next()?;
        if q != '"' && q != '\'' {
            return None;
        }
        let end = rest[1..].find(q)? + 1;
        parts.push(rest[1..end].to_string());
        rest = rest[end + 1..].trim_start();
    }
    Some((parts.remove(0), parts.remove(0)))
}

impl Make<'_, '_> {
    /// Reads a makefile from the virtual tree; `Ok(false)` when it is
    /// missing.
    pub(super) fn read_makefile(&mut self, name: &str) -> Result<bool, MakeError> {
        let data = if name == "-" {
            let mut v = Vec::new();
            let _ = self.ctx.stdin.read_to_end(&mut v);
            v
        } else {
            match read_file(self.ctx.fs, &self.cwd, name) {
                Ok(d) => d.to_vec(),
                Err(_) => return Ok(false),
            }
        };
        let text = String::from_utf8_lossy(&data).into_owned();
        let shown = if name == "-" { "-" } else { name };
        self.read_text(&text, shown)?;
        Ok(true)
    }

    /// Reads makefile text; `file` names it in messages.
    pub(super) fn read_text(&mut self, text: &str, file: &str) -> Result<(), MakeError> {
        let saved_line = self.line.take();
        let lines: Vec<&str> = text.split('\n').collect();
        let mut conds: Vec<Cond> = Vec::new();
        let mut pending: Option<Pending> = None;
        let mut define: Option<Define> = None;
        let mut i = 0;
        while i < lines.len() {
            let number = i + 1;
            self.line = Some((file.to_string(), number));
            if self.ctx.control.check().is_err() {
                return Err(MakeError::plain("interrupted".into()));
            }
            let active = conds.last().is_none_or(|c| c.active);
            let raw = lines[i];
            i += 1;
            if let Some(d) = define.as_mut() {
                let word = raw.split_whitespace().next().unwrap_or("");
                if word == "define" {
                    d.depth += 1;
                } else if word == "endef" {
                    if d.depth == 0 {
                        let d = define.take().expect("define");
                        if active {
                            self.assign(&d.name, &d.op, &d.lines.join("\n"), d.origin, d.export)?;
                        }
                        continue;
                    }
                    d.depth -= 1;
                }
                d.lines.push(raw.to_string());
                continue;
            }
            // A recipe line: a tab after a rule.
            if raw.starts_with('\t') && pending.is_some() {
                let mut text = raw[1..].to_string();
                while text.ends_with('\\')
                    && (text.len() - text.trim_end_matches('\\').len()) % 2 == 1
                    && i < lines.len()
                {
                    text.push('\n');
                    text.push_str(lines[i].strip_prefix('\t').unwrap_or(lines[i]));
                    i += 1;
                }
                if active && let Some(p) = pending.as_mut() {
                    p.recipe.push(RecipeLine {
                        text,
                        file: file.to_string(),
                        line: number,
                    });
                }
                continue;
            }
            // Join continuation lines with one space.
            let mut logical = raw.to_string();
            while logical.ends_with('\\')
                && (logical.len() - logical.trim_end_matches('\\').len()) % 2 == 1
                && i < lines.len()
            {
                logical.pop();
                let kept = logical.trim_end().to_string();
                logical = format!("{kept} {}", lines[i].trim_start());
                i += 1;
            }
            let line = strip_comment(&logical);
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let (word, rest) = match trimmed.find([' ', '\t']) {
                Some(at) => (&trimmed[..at], trimmed[at..].trim_start()),
                None => (trimmed, ""),
            };
            if self.conditional(word, rest, &mut conds)? {
                continue;
            }
            if !active {
                continue;
            }
            if let Some(p) = pending.take() {
                self.commit(p)?;
            }
            self.line = Some((file.to_string(), number));
            match self.statement(raw, trimmed)? {
                Statement::Define(d) => define = Some(d),
                Statement::Rule(p) => pending = Some(p),
                Statement::Done => {}
            }
        }
        if let Some(p) = pending.take() {
            self.commit(p)?;
        }
        if !conds.is_empty() {
            return Err(MakeError::at_line(self, "missing 'endif'"));
        }
        if define.is_some() {
            return Err(MakeError::at_line(
                self,
                "missing 'endef', unterminated 'define'",
            ));
        }
        self.line = saved_line;
        Ok(())
    }

    /// One makefile statement (not a recipe line, not a conditional):
    /// a directive, an assignment or the start of a rule.
    fn statement(&mut self, raw: &str, trimmed: &str) -> Result<Statement, MakeError> {
        let (mut origin, mut export, mut body) = (Origin::File, false, trimmed);
        loop {
            let (w, r) = match body.find([' ', '\t']) {
                Some(at) => (&body[..at], body[at..].trim_start()),
                None => (body, ""),
            };
            match w {
                "override" if !r.is_empty() => origin = Origin::Override,
                "export" => export = true,
                _ => break,
            }
            body = r;
            if body.is_empty() {
                break;
            }
        }
        let (word, rest) = match body.find([' ', '\t']) {
            Some(at) => (&body[..at], body[at..].trim_start()),
            None => (body, ""),
        };
        match word {
            "define" => {
                let (name, op) = match rest.rsplit_once(|c: char| c.is_whitespace()) {
                    Some((n, op)) if matches!(op, "=" | ":=" | "::=" | "?=" | "+=" | "!=") => {
                        (n.trim(), op)
                    }
                    _ => (rest.trim_end_matches(['=', ' ']), "="),
                };
                let name = self.expand(name)?;
                return Ok(Statement::Define(Define {
                    name,
                    op: if op == "::=" { ":=".into() } else { op.into() },
                    lines: Vec::new(),
                    depth: 0,
                    origin,
                    export,
                }));
            }
            "include" | "-include" | "sinclude" => {
                self.include(rest, word != "include")?;
                return Ok(Statement::Done);
            }
            "unexport" | "vpath" => return Ok(Statement::Done),
            _ => {}
        }
        if export && body.is_empty() {
            return Ok(Statement::Done);
        }
        match split_line(body) {
            Split::Assign(name, op, value) => {
                let name = self.expand(&name)?;
                self.assign(&name, &op, &value, origin, export)?;
            }
            Split::Rule(_, _) if export => {
                // `export NAME` lists of names.
                for n in self.expand(body)?.split_whitespace() {
                    if let Some(v) = self.vars.get_mut(n) {
                        v.export = true;
                    }
                }
            }
            Split::Rule(left, right) => return Ok(Statement::Rule(self.rule(&left, &right)?)),
            Split::None if export => {
                for n in self.expand(body)?.split_whitespace() {
                    if let Some(v) = self.vars.get_mut(n) {
                        v.export = true;
                    }
                }
            }
            Split::None => {
                // A line of function calls (`$(info ...)`) is expanded;
                // what it leaves must be a rule or nothing.
                let expanded = self.expand(body)?;
                if expanded.trim().is_empty() {
                    return Ok(Statement::Done);
                }
                if let Split::Rule(left, right) = split_line(&expanded) {
                    return Ok(Statement::Rule(self.rule(&left, &right)?));
                }
                let message = if raw.starts_with("        ") {
                    "missing separator (did you mean TAB instead of 8 spaces?)"
                } else if raw.starts_with('\t') {
                    "recipe commences before first target"
                } else {
                    "missing separator"
                };
                return Err(MakeError::at_line(self, message));
            }
        }
        Ok(Statement::Done)
    }

    /// Handles a conditional directive; false when `word` is none.
    fn conditional(
        &mut self,
        word: &str,
        rest: &str,
        conds: &mut Vec<Cond>,
    ) -> Result<bool, MakeError> {
        let active = conds.last().is_none_or(|c| c.active);
        match word {
            "ifeq" | "ifneq" | "ifdef" | "ifndef" => {
                let truth = if active {
                    self.test(word, rest)?
                } else {
                    false
                };
                conds.push(Cond {
                    active: active && truth,
                    outer: active,
                    taken: truth,
                });
            }
            "else" => {
                let Some(c) = conds.last_mut() else {
                    return Err(MakeError::at_line(self, "extraneous 'else'"));
                };
                let (outer, taken) = (c.outer, c.taken);
                let (w, r) = match rest.find([' ', '\t']) {
                    Some(at) => (&rest[..at], rest[at..].trim_start()),
                    None => (rest, ""),
                };
                let truth = if w.is_empty() {
                    true
                } else if outer && !taken {
                    self.test(w, r)?
                } else {
                    false
                };
                let c = conds.last_mut().expect("cond");
                c.active = outer && !taken && truth;
                c.taken |= c.active;
            }
            "endif" => {
                if conds.pop().is_none() {
                    return Err(MakeError::at_line(self, "extraneous 'endif'"));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether a conditional's test holds.
    fn test(&mut self, word: &str, rest: &str) -> Result<bool, MakeError> {
        Ok(match word {
            "ifdef" | "ifndef" => {
                let name = self.expand(rest.trim())?;
                let defined = self
                    .vars
                    .get(name.trim())
                    .is_some_and(|v| !v.value.is_empty());
                defined == (word == "ifdef")
            }
            _ => {
                let Some((a, b)) = eq_operands(rest) else {
                    return Err(MakeError::at_line(self, "invalid syntax in conditional"));
                };
                let same = self.expand(&a)? == self.expand(&b)?;
                same == (word == "ifeq")
            }
        })
    }

    /// `include FILES` (`optional`: `-include`, `sinclude`).
    fn include(&mut self, rest: &str, optional: bool) -> Result<(), MakeError> {
        let names = self.expand(rest)?;
        for name in names.split_whitespace() {
            let saved = self.line.clone();
            let found = self.read_makefile(name)?;
            self.line = saved;
            if !found && !optional {
                let place = self.place();
                let _ = self.ctx.stdout.flush();
                let _ = writeln!(
                    self.ctx.stderr,
                    "{place}: {name}: No such file or directory"
                );
                return Err(MakeError::plain(format!("No rule to make target '{name}'")));
            }
        }
        Ok(())
    }

    /// An assignment with its operator, respecting who may override whom.
    pub(super) fn assign(
        &mut self,
        name: &str,
        op: &str,
        value: &str,
        origin: Origin,
        export: bool,
    ) -> Result<(), MakeError> {
        let name = name.trim();
        if let Some(old) = self.vars.get(name) {
            let protected = match old.origin {
                Origin::CommandLine => origin < Origin::Override,
                Origin::Override => origin < Origin::Override,
                Origin::Environment | Origin::EnvironmentOverride => {
                    self.flags.env_overrides && origin < Origin::Override
                }
                _ => false,
            };
            if protected {
                if export && let Some(v) = self.vars.get_mut(name) {
                    v.export = true;
                }
                return Ok(());
            }
        }
        let was_env = self
            .vars
            .get(name)
            .is_some_and(|v| v.export || matches!(v.origin, Origin::Environment));
        let (value, flavor) = match op {
            ":=" => (self.expand(value)?, Flavor::Simple),
            "?=" => {
                if self.vars.contains_key(name) {
                    return Ok(());
                }
                (value.to_string(), Flavor::Recursive)
            }
            "+=" => match self.vars.get(name) {
                Some(old) if old.flavor == Flavor::Simple => {
                    let old = old.value.clone();
                    let add = self.expand(value)?;
                    (join_words(&old, &add), Flavor::Simple)
                }
                Some(old) => (join_words(&old.value, value), Flavor::Recursive),
                None => (value.to_string(), Flavor::Recursive),
            },
            "!=" => {
                let cmd = self.expand(value)?;
                (self.shell(&cmd), Flavor::Recursive)
            }
            _ => (value.to_string(), Flavor::Recursive),
        };
        let origin = if name == "MAKE" {
            Origin::Default.max(origin)
        } else {
            origin
        };
        self.vars.insert(
            name.to_string(),
            Var {
                value,
                flavor,
                origin,
                export: export || was_env,
            },
        );
        Ok(())
    }

    /// A rule line: its targets and prerequisites, expanded now.
    fn rule(&mut self, left: &str, right: &str) -> Result<Pending, MakeError> {
        let targets: Vec<String> = self
            .expand(left)?
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let (deps, inline) = match split_top(right, ';') {
            Some((d, r)) => (d, Some(r.trim_start().to_string())),
            None => (right, None),
        };
        let (static_pattern, deps) = match split_top(deps, ':') {
            Some((pat, rest)) => (Some(self.expand(pat)?.trim().to_string()), rest),
            None => (None, deps),
        };
        let (normal, order) = match split_top(deps, '|') {
            Some((n, o)) => (n, o),
            None => (deps, ""),
        };
        let prereqs: Vec<String> = self
            .expand(normal)?
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let order_only: Vec<String> = self
            .expand(order)?
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let mut recipe = Vec::new();
        if let Some(text) = inline {
            let (file, line) = self.line.clone().unwrap_or_default();
            recipe.push(RecipeLine { text, file, line });
        }
        let (static_pattern, prereqs) = match static_pattern {
            Some(p) => (Some((p, prereqs)), Vec::new()),
            None => (None, prereqs),
        };
        Ok(Pending {
            targets,
            prereqs,
            order_only,
            static_pattern,
            recipe,
        })
    }

    /// Files a finished rule under its targets.
    fn commit(&mut self, p: Pending) -> Result<(), MakeError> {
        let has_recipe = !p.recipe.is_empty();
        for t in &p.targets {
            match t.as_str() {
                ".PHONY" => {
                    self.phony.extend(p.prereqs.iter().cloned());
                    continue;
                }
                ".SILENT" if p.prereqs.is_empty() => {
                    self.flags.silent = true;
                    continue;
                }
                ".EXPORT_ALL_VARIABLES" => {
                    for v in self.vars.values_mut() {
                        v.export = true;
                    }
                    continue;
                }
                _ => {}
            }
            if let Some((pat, prereq_pats)) = &p.static_pattern {
                let pattern = Pattern::new(pat);
                let Some(stem) = pattern.stem(t) else {
                    let place = self.place();
                    let _ = writeln!(
                        self.ctx.stderr,
                        "{place}: target '{t}' doesn't match the target pattern"
                    );
                    continue;
                };
                let prereqs = prereq_pats.iter().map(|q| substitute(q, stem)).collect();
                let entry = self.entry(t);
                entry.prereqs = prereqs;
                entry.order_only.extend(p.order_only.iter().cloned());
                entry.recipe = Some(p.recipe.clone());
                entry.stem = Some(stem.to_string());
                continue;
            }
            if t.contains('%') {
                self.patterns.push(PatternRule {
                    target: t.clone(),
                    prereqs: p.prereqs.clone(),
                    order_only: p.order_only.clone(),
                    recipe: p.recipe.clone(),
                });
                continue;
            }
            if self.default_goal.is_none() && (!t.starts_with('.') || t.contains('/')) {
                self.default_goal = Some(t.clone());
            }
            let entry = self.entry(t);
            entry.prereqs.extend(p.prereqs.iter().cloned());
            entry.order_only.extend(p.order_only.iter().cloned());
            if has_recipe {
                entry.recipe = Some(p.recipe.clone());
            }
        }
        Ok(())
    }

    fn entry(&mut self, t: &str) -> &mut Target {
        if !self.targets.contains_key(t) {
            self.order.push(t.to_string());
        }
        self.targets.entry(t.to_string()).or_default()
    }
}

fn join_words(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else if b.is_empty() {
        a.to_string()
    } else {
        format!("{a} {b}")
    }
}

/// A default variable (`MAKE`, `SHELL`, `CURDIR`).
pub(super) fn default_var(value: &str, flavor: Flavor) -> Var {
    Var {
        value: value.to_string(),
        flavor,
        origin: Origin::Default,
        export: false,
    }
}
