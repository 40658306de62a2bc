//! Simple commands: assignments, `X=1 cmd` prefixes, word expansion, tracing,
//! and what a command name means (function, builtin, program).
//!
//! Lookup order is bash's: function, builtin, then a program found on `PATH`
//! (see `program.rs`); a name with a `/` is always a program path.

use brush_parser::ast::{self, AssignmentName, AssignmentValue, CommandPrefixOrSuffixItem};

use super::builtins;
use super::redirect::RedirRef;
use super::vars::{Attrs, VarError};
use super::{ExecResult, Interp, Interrupt};

/// What a command name resolves to (`type`, `command -v`, `which`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandKind {
    /// An alias, with its value.
    Alias(String),
    /// A reserved word (`if`, `while`, ...).
    Keyword,
    /// A shell function.
    Function,
    /// A shell builtin.
    Builtin,
    /// A program, at this path (`/usr/bin/ls`, `./f.sh`).
    Program(String),
    /// Nothing.
    NotFound,
}

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// Builtins whose `name=value` arguments are assignments (no splitting).
fn is_declaration(name: &str) -> bool {
    matches!(
        name,
        "declare" | "typeset" | "local" | "export" | "readonly"
    )
}

/// Quotes a word for `set -x` output the way bash does.
pub(crate) fn trace_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-' | b'.' | b'/' | b',' | b':' | b'=' | b'+' | b'@' | b'%'
                )
        })
    {
        return s.to_string();
    }
    if !s.contains('\'') && !s.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return format!("'{s}'");
    }
    if s.bytes().any(|b| b < 0x20 || b == 0x7f) {
        let mut out = String::from("$'");
        for c in s.chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                    out.push_str(&format!("\\{:03o}", c as u32));
                }
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Interp {
    /// What `name` would run as a command.
    pub fn resolve_command(&self, name: &str) -> CommandKind {
        if let Some(v) = self.aliases.get(name) {
            return CommandKind::Alias(v.clone());
        }
        if KEYWORDS.contains(&name) {
            return CommandKind::Keyword;
        }
        if self.funcs.contains_key(name) {
            return CommandKind::Function;
        }
        if builtins::lookup(name).is_some() {
            return CommandKind::Builtin;
        }
        match self.find_program(name) {
            Some(p) => CommandKind::Program(p.path),
            None => CommandKind::NotFound,
        }
    }

    /// Runs an already expanded command line: a function (unless
    /// `skip_functions`), a builtin, or a program. Used by `command`,
    /// `builtin`-less paths, `exec CMD`, `xargs`-style callers.
    pub fn run_argv(&mut self, argv: &[String], skip_functions: bool) -> ExecResult {
        let Some(name) = argv.first() else {
            return Ok(0);
        };
        if !skip_functions && self.funcs.contains_key(name.as_str()) {
            return self.call_function(name, &argv[1..]);
        }
        if let Some(b) = builtins::lookup(name) {
            return self.run_builtin(b, argv);
        }
        self.run_program(argv, &[])
    }

    /// Executes a simple command.
    pub(crate) fn exec_simple(&mut self, sc: &ast::SimpleCommand) -> ExecResult {
        self.control.count_command().map_err(Interrupt::Limit)?;
        if self.broken_pipe {
            return Err(Interrupt::Exit(141));
        }
        let mut assigns: Vec<&ast::Assignment> = Vec::new();
        let mut redirs: Vec<RedirRef<'_>> = Vec::new();
        let mut words: Vec<&CommandPrefixOrSuffixItem> = Vec::new();
        if let Some(p) = &sc.prefix {
            collect_items(&p.0, &mut assigns, &mut redirs, &mut words, true);
        }
        if let Some(line) = command_line(sc) {
            self.set_line(line);
        } else if let Some(a) = assigns.first() {
            self.set_line(a.loc.start.line);
        } else if let Some(line) = redirs.iter().find_map(|(r, _)| redirect_line(r)) {
            self.set_line(line);
        }
        let name_item;
        if let Some(w) = &sc.word_or_name {
            name_item = CommandPrefixOrSuffixItem::Word(w.clone());
            words.push(&name_item);
        }
        if let Some(s) = &sc.suffix {
            collect_items(&s.0, &mut assigns, &mut redirs, &mut words, false);
        }
        let late = late_assignments(&mut words);
        assigns.extend(late.iter());
        let resplit = sc.prefix.as_ref().map(|p| resplit_elements(&p.0));
        for fixed in resplit.iter().flatten() {
            if let Some(slot) = assigns.iter_mut().find(|a| std::ptr::eq(**a, fixed.0)) {
                *slot = &fixed.1;
            }
        }
        self.last_cmdsub_status = None;
        self.debug_trap()?;
        let r = self.exec_simple_parts(&assigns, &redirs, &words);
        let f = self.finish_procsubs();
        let status = r?;
        f?;
        Ok(status)
    }

    fn exec_simple_parts(
        &mut self,
        assigns: &[&ast::Assignment],
        redirs: &[RedirRef<'_>],
        words: &[&CommandPrefixOrSuffixItem],
    ) -> ExecResult {
        let argv = self.expand_command_words(words)?;
        if argv.is_empty() {
            return self.exec_assignments_only(assigns, redirs);
        }
        if argv[0] == "exec" && (argv.len() == 1 || (argv.len() == 2 && argv[1] == "--")) {
            // `exec >file`: the redirections stay.
            if self.opts.xtrace {
                self.trace(&argv.join(" "));
            }
            return match self.open_redirects(redirs) {
                Ok(_) => Ok(0),
                Err(Ok(status)) => self.redirect_failed(status),
                Err(Err(i)) => Err(i),
            };
        }
        if self.opts.xtrace {
            self.trace_command(&argv, assigns);
        }
        let in_shell = self.funcs.contains_key(&argv[0]) || builtins::lookup(&argv[0]).is_some();
        let r = self.with_redirects_in_shell(redirs, in_shell, |sh| {
            sh.exec_argv_with_assigns(&argv, assigns)
        });
        // `$_`: the last argument of the previous command (`declare a=(1 2)`
        // leaves the name alone).
        if let Some(last) = argv.last() {
            let last = match last.split_once("=(") {
                Some((name, _)) if is_declaration(&argv[0]) => name,
                _ => last.as_str(),
            };
            if self.vars.get_str("_") != Some(last) {
                let _ = self.vars.set_str("_", last.to_string());
            }
        }
        r
    }

    /// A redirection failed: a special builtin's failure would end a POSIX
    /// shell; bash just fails the command.
    pub(crate) fn redirect_failed(&mut self, status: i32) -> ExecResult {
        Ok(status)
    }

    fn expand_command_words(
        &mut self,
        items: &[&CommandPrefixOrSuffixItem],
    ) -> Result<Vec<String>, Interrupt> {
        // Fast path: plain words only.
        let declaration = matches!(items.first(), Some(CommandPrefixOrSuffixItem::Word(w)) if is_declaration(&w.value));
        if declaration {
            self.compound_words.clear();
        }
        let mut argv = Vec::new();
        let mut pending: Vec<ast::Word> = Vec::new();
        for item in items {
            match item {
                CommandPrefixOrSuffixItem::Word(w) => pending.push(w.clone()),
                CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    if declaration {
                        if !pending.is_empty() {
                            argv.extend(self.expand_words(&pending)?);
                            pending.clear();
                        }
                        argv.push(self.declaration_arg(a, w)?);
                    } else {
                        pending.push(w.clone());
                    }
                }
                CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                    if !pending.is_empty() {
                        argv.extend(self.expand_words(&pending)?);
                        pending.clear();
                    }
                    argv.push(self.process_substitution(kind, sub)?);
                }
                CommandPrefixOrSuffixItem::IoRedirect(_) => {}
            }
        }
        if !pending.is_empty() {
            argv.extend(self.expand_words(&pending)?);
        }
        Ok(argv)
    }

    /// `declare x=$y`: the value expanded without splitting; `a=(...)` raw.
    fn declaration_arg(&mut self, a: &ast::Assignment, w: &ast::Word) -> Result<String, Interrupt> {
        let op = if a.append { "+=" } else { "=" };
        let name = match &a.name {
            AssignmentName::VariableName(n) => n.clone(),
            AssignmentName::ArrayElementName(n, i) => {
                let i = self.expand_string(i)?;
                format!("{n}[{i}]")
            }
        };
        match &a.value {
            AssignmentValue::Scalar(v) => {
                let v = self.expand_assignment_value(&v.value)?;
                Ok(format!("{name}{op}{v}"))
            }
            AssignmentValue::Array(_) => {
                self.compound_words.push(w.value.clone());
                Ok(w.value.clone())
            }
        }
    }

    /// Performs one assignment statement.
    pub(crate) fn do_assignment(&mut self, a: &ast::Assignment) -> Result<bool, Interrupt> {
        let r = match (&a.name, &a.value) {
            (AssignmentName::VariableName(n), AssignmentValue::Scalar(v)) => {
                let v = self.expand_assignment_value(&v.value)?;
                if self.opts.xtrace {
                    let op = if a.append { "+=" } else { "=" };
                    let t = format!("{n}{op}{}", trace_quote(&v));
                    self.trace(&t);
                }
                self.assign(n, &v, a.append)
            }
            (AssignmentName::ArrayElementName(n, i), AssignmentValue::Scalar(_))
                if i.is_empty() =>
            {
                Err(VarError::BadSubscript(format!("{n}[]")))
            }
            (AssignmentName::ArrayElementName(n, i), AssignmentValue::Scalar(v)) => {
                let idx = self.expand_string(i)?;
                let v = self.expand_assignment_value(&v.value)?;
                if self.opts.xtrace {
                    let op = if a.append { "+=" } else { "=" };
                    let t = format!("{n}[{idx}]{op}{}", trace_quote(&v));
                    self.trace(&t);
                }
                self.assign_elem(n, &idx, &v, a.append)
            }
            (AssignmentName::VariableName(n), AssignmentValue::Array(items)) => {
                // The elements as written: keyed ones are told apart (and
                // expanded) with bash's rules, not brush-parser's.
                let words: Vec<String> = items
                    .iter()
                    .map(|(k, v)| match k {
                        Some(k) => format!("[{}]={}", k.value, v.value),
                        None => v.value.clone(),
                    })
                    .collect();
                let elems = self.expand_array_literal(n, &words)?;
                if self.opts.xtrace {
                    // bash shows the words as written, not their values.
                    let op = if a.append { "+=" } else { "=" };
                    let t = format!("{n}{op}({})", words.join(" "));
                    self.trace(&t);
                }
                self.assign_array(n, elems, a.append)
            }
            (AssignmentName::ArrayElementName(n, _), AssignmentValue::Array(_)) => {
                Err(VarError::ListToMember(n.clone()))
            }
        };
        match r {
            Ok(()) => Ok(true),
            Err(VarError::Interrupted(i)) => Err(i),
            Err(e) => {
                self.shell_error(&e);
                Ok(false)
            }
        }
    }

    fn exec_assignments_only(
        &mut self,
        assigns: &[&ast::Assignment],
        redirs: &[RedirRef<'_>],
    ) -> ExecResult {
        let mut ok = true;
        for a in assigns {
            if !self.do_assignment(a)? {
                ok = false;
            }
        }
        let cmdsub = self.last_cmdsub_status.take();
        // A command of assignments only leaves `$_` empty.
        if self.vars.get_str("_").is_some_and(|v| !v.is_empty()) {
            let _ = self.vars.set_str("_", String::new());
        }
        if !redirs.is_empty() {
            // Redirections without a command: files are created/truncated.
            match self.open_redirects(redirs) {
                Ok(saved) => self.restore_redirects(saved),
                Err(Ok(status)) => return Ok(status),
                Err(Err(i)) => return Err(i),
            }
        }
        if !ok {
            // bash abandons the rest of the current command line; under
            // `set -e` the failed assignment ends the shell, even in a
            // condition.
            if self.opts.errexit {
                return Err(Interrupt::Exit(1));
            }
            return Err(Interrupt::Discard(1));
        }
        Ok(cmdsub.unwrap_or(0))
    }

    /// `set -x` for a command line, before its redirections apply.
    fn trace_command(&mut self, argv: &[String], assigns: &[&ast::Assignment]) {
        let mut t = String::new();
        for a in assigns {
            if let (AssignmentName::VariableName(n), AssignmentValue::Scalar(v)) =
                (&a.name, &a.value)
            {
                let v = self.expand_assignment_value(&v.value).unwrap_or_default();
                t.push_str(&format!("{n}={} ", trace_quote(&v)));
            }
        }
        let words: Vec<String> = argv.iter().map(|a| trace_quote(a)).collect();
        t.push_str(&words.join(" "));
        self.trace(&t);
    }

    fn exec_argv_with_assigns(
        &mut self,
        argv: &[String],
        assigns: &[&ast::Assignment],
    ) -> ExecResult {
        if assigns.is_empty() {
            return self.dispatch(argv, &[]);
        }
        let name = argv[0].as_str();
        let is_fn = self.funcs.contains_key(name);
        let builtin = builtins::lookup(name);
        // Functions and builtins see the assignments as temporarily exported
        // variables; special builtins keep them in POSIX mode, others (and
        // all builtins outside POSIX mode) restore.
        let special = builtin.is_some() && self.posix_special(name);
        // `eval` and `source` see their bindings as a scope of their own,
        // as a function does: `unset` there uncovers the outer value.
        let scoped = is_fn || (builtin.is_some() && matches!(name, "eval" | "source" | "."));
        if scoped && !special {
            return self.call_with_temp_scope(argv, assigns);
        }
        let mut saved = Vec::new();
        // Already traced with the command line.
        let xtrace = std::mem::replace(&mut self.opts.xtrace, false);
        let mut failed = None;
        for a in assigns {
            let target = match &a.name {
                AssignmentName::VariableName(n) => {
                    let t = self.temp_target(n);
                    saved.push((t.clone(), self.vars.get_raw(&t).cloned()));
                    self.clear_array_for_binding(&t);
                    Some(t)
                }
                _ => None,
            };
            if let Err(e) = self.temp_binding(a) {
                failed = Some(e);
                break;
            }
            // Even a special builtin's kept bindings stay exported, as in bash.
            if let Some(n) = &target
                && let Some(v) = self.vars.get_raw_mut(n)
            {
                v.attrs.insert(Attrs::EXPORT);
            }
        }
        self.opts.xtrace = xtrace;
        let r = match failed {
            Some(e) => Err(e),
            None => self.dispatch(argv, &[]),
        };
        for (n, old) in saved.into_iter().rev() {
            // A special builtin (POSIX mode) keeps its bindings, unless it
            // unset one (`x=tmp unset x` leaves the old `x`).
            let kept = special && self.vars.get_raw(&n).is_some();
            if kept || propagates_binding(argv, &n) {
                continue;
            }
            match old {
                Some(var) => {
                    if let Some(cur) = self.vars.get_raw_mut(&n) {
                        *cur = var;
                    } else {
                        *self.vars.global_entry(&n) = var;
                    }
                }
                None => {
                    let _ = self.vars.unset_raw(&n);
                }
            }
        }
        r
    }

    /// The variable a `name=value` before a command binds: the one a
    /// nameref `name` ends at (bash binds and restores that one).
    fn temp_target(&self, name: &str) -> String {
        let target = self.vars.resolve_name(name);
        if crate::interp::vars::is_valid_name(&target) {
            target
        } else {
            name.to_string()
        }
    }

    /// A binding before a command over an array gives a plain string
    /// variable for the command (bash's tempenv holds only strings): the
    /// array is emptied in place first; the caller restores it.
    fn clear_array_for_binding(&mut self, name: &str) {
        if let Some(v) = self.vars.get_raw_mut(name)
            && matches!(
                v.value,
                Some(super::Value::Indexed(_) | super::Value::Assoc(_))
            )
        {
            *v = Default::default();
        }
    }

    /// One `name=value` before a command. An array value cannot be an
    /// environment binding: bash binds the text `(w1 w2)` of its expanded
    /// words instead.
    fn temp_binding(&mut self, a: &ast::Assignment) -> Result<bool, Interrupt> {
        if self.refuse_element_binding(a) {
            return Ok(true);
        }
        let (AssignmentName::VariableName(n), AssignmentValue::Array(items)) = (&a.name, &a.value)
        else {
            return self.do_assignment(a);
        };
        let mut words = Vec::new();
        for (k, v) in items {
            match k {
                Some(k) => {
                    let v = self.expand_string(&v.value)?;
                    words.push(format!("[{}]={v}", k.value));
                }
                None => words.extend(self.expand_words(std::slice::from_ref(v))?),
            }
        }
        let text = format!("({})", words.join(" "));
        match self.assign(n, &text, a.append) {
            Ok(()) => Ok(true),
            Err(VarError::Interrupted(i)) => Err(i),
            Err(e) => {
                self.shell_error(&e);
                Ok(false)
            }
        }
    }

    /// `a[1]=x cmd`: bash binds no array element for a command; it says so
    /// and runs the command anyway.
    fn refuse_element_binding(&mut self, a: &ast::Assignment) -> bool {
        let AssignmentName::ArrayElementName(n, sub) = &a.name else {
            return false;
        };
        self.shell_error(format_args!("`{n}[{sub}]': not a valid identifier"));
        true
    }

    /// `x=tmp f`: the bindings live in a scope of their own between the
    /// caller and the function, so `unset x` in `f` reveals the caller's `x`
    /// and nothing leaks out after the call.
    fn call_with_temp_scope(
        &mut self,
        argv: &[String],
        assigns: &[&ast::Assignment],
    ) -> ExecResult {
        let xtrace = std::mem::replace(&mut self.opts.xtrace, false);
        self.vars.push_temp_scope();
        let mut failed = None;
        for a in assigns {
            let AssignmentName::VariableName(n) = &a.name else {
                if self.refuse_element_binding(a) {
                    continue;
                }
                if let Err(e) = self.do_assignment(a) {
                    failed = Some(e);
                    break;
                }
                continue;
            };
            // Assign where bash would (so `x=$x:1` reads the visible `x`),
            // then move the result into the temporary scope.
            let n = &self.temp_target(n);
            let in_temp = self.vars.is_in_top_scope(n);
            let before = self.vars.get_raw(n).cloned();
            self.clear_array_for_binding(n);
            if let Err(e) = self.temp_binding(a) {
                failed = Some(e);
                break;
            }
            if !in_temp {
                let new = self.vars.get_raw(n).cloned().unwrap_or_default();
                match before {
                    Some(old) => {
                        if let Some(cur) = self.vars.get_raw_mut(n) {
                            *cur = old;
                        }
                    }
                    None => {
                        let _ = self.vars.unset_raw(n);
                    }
                }
                *self.vars.declare_in_top_scope(n) = new;
            }
            if let Some(v) = self.vars.get_raw_mut(n) {
                v.attrs.insert(Attrs::EXPORT);
            }
        }
        self.opts.xtrace = xtrace;
        let r = match failed {
            Some(e) => Err(e),
            None => self.dispatch(argv, &[]),
        };
        self.vars.pop_scope();
        r
    }

    /// Runs builtin `b`; a write that failed (other than on a closed pipe)
    /// gets bash's `bash: line N: echo: write error: ...` and status 1.
    fn run_builtin(&mut self, b: builtins::BuiltinFn, argv: &[String]) -> ExecResult {
        if let Some(answered) = builtins::help::builtin_help(self, argv) {
            return answered;
        }
        let outer = self.write_error.take();
        let r = b(self, argv);
        if let Some(e) = std::mem::replace(&mut self.write_error, outer) {
            self.shell_error(format!("{}: write error: {e}", argv[0]));
            return r.map(|s| if s == 0 { 1 } else { s });
        }
        r
    }

    /// Runs an expanded command line by bash's lookup order.
    fn dispatch(&mut self, argv: &[String], env: &[(String, String)]) -> ExecResult {
        let name = argv[0].as_str();
        // POSIX mode finds a special builtin before a function of its name.
        if self.funcs.contains_key(name) && !self.posix_special(name) {
            return self.call_function(name, &argv[1..]);
        }
        if let Some(b) = builtins::lookup(name) {
            return self.run_builtin(b, argv);
        }
        self.run_program(argv, env)
    }
}

/// `X=1 export X` and `X=1 readonly X`: the builtin hands the temporary
/// binding of `X` on to the scope it would have been restored in.
fn propagates_binding(argv: &[String], name: &str) -> bool {
    matches!(argv[0].as_str(), "export" | "readonly")
        && !argv[1..]
            .iter()
            .any(|a| a.starts_with('-') && a.contains(['n', 'f']))
        && argv[1..]
            .iter()
            .any(|a| a.split_once('=').map_or(a.as_str(), |(n, _)| n) == name)
}

/// True for a `{name}` word that names the fd of the redirection after it.
fn fd_var_name(w: &str) -> Option<&str> {
    let inner = w.strip_prefix('{')?.strip_suffix('}')?;
    super::vars::is_valid_name(inner).then_some(inner)
}

/// Sorts the items of a command prefix or suffix.
/// Assignments bash reads where brush-parser saw words: `a[ i[1] ]=x` and
/// `a[i[1]+1]=x` (nested brackets in the subscript), and the assignment
/// words after them. Takes them off the front of `words`.
fn late_assignments(words: &mut Vec<&CommandPrefixOrSuffixItem>) -> Vec<ast::Assignment> {
    let mut late = Vec::new();
    while let Some(first) = words.first() {
        let a = match first {
            CommandPrefixOrSuffixItem::Word(w) => match element_assignment(w) {
                Some(a) => a,
                None => break,
            },
            CommandPrefixOrSuffixItem::AssignmentWord(a, _) if !late.is_empty() => a.clone(),
            _ => break,
        };
        late.push(a);
        words.remove(0);
    }
    late
}

/// Prefix assignments whose subscript brush-parser cut at a nested `]`
/// (`a[ a[2]=3 ]=Y` read as `a[ a[2]` = `3 ]=Y`), each with bash's reading.
fn resplit_elements(
    items: &[CommandPrefixOrSuffixItem],
) -> Vec<(&ast::Assignment, ast::Assignment)> {
    let mut out = Vec::new();
    for item in items {
        if let CommandPrefixOrSuffixItem::AssignmentWord(a, w) = item
            && let AssignmentName::ArrayElementName(_, sub) = &a.name
            && sub.contains('[')
            && let Some(fixed) = element_assignment(w)
            && matches!(&fixed.name, AssignmentName::ArrayElementName(_, s) if s != sub)
        {
            out.push((a, fixed));
        }
    }
    out
}

/// `name[subscript]=value` or `+=` with brackets nested in the subscript.
fn element_assignment(w: &ast::Word) -> Option<ast::Assignment> {
    let open = w.value.find('[')?;
    let name = &w.value[..open];
    if !super::vars::is_valid_name(name) {
        return None;
    }
    let (sub, append, value) = super::array_literal::keyed_element(&w.value[open..])?;
    Some(ast::Assignment {
        name: AssignmentName::ArrayElementName(name.to_string(), sub.to_string()),
        value: AssignmentValue::Scalar(ast::Word {
            value: value.to_string(),
            loc: w.loc.clone(),
        }),
        append,
        loc: w.loc.clone().unwrap_or_default(),
    })
}

fn collect_items<'a>(
    items: &'a [CommandPrefixOrSuffixItem],
    assigns: &mut Vec<&'a ast::Assignment>,
    redirs: &mut Vec<RedirRef<'a>>,
    words: &mut Vec<&'a CommandPrefixOrSuffixItem>,
    prefix: bool,
) {
    let mut i = 0;
    while i < items.len() {
        match &items[i] {
            CommandPrefixOrSuffixItem::AssignmentWord(a, _) if prefix => assigns.push(a),
            CommandPrefixOrSuffixItem::IoRedirect(r) => redirs.push((r, None)),
            CommandPrefixOrSuffixItem::Word(w)
                if matches!(
                    items.get(i + 1),
                    Some(CommandPrefixOrSuffixItem::IoRedirect(
                        ast::IoRedirect::File(None, _, _)
                    ))
                ) && fd_var_name(&w.value).is_some() =>
            {
                if let Some(CommandPrefixOrSuffixItem::IoRedirect(r)) = items.get(i + 1) {
                    redirs.push((r, fd_var_name(&w.value)));
                }
                i += 1;
            }
            other => words.push(other),
        }
        i += 1;
    }
}

/// The line bash gives a simple command: the line its parser had reached
/// when it made the command, which is after the token that follows the
/// first word (`echo "a<newline>b" $LINENO` is on the second line, and so
/// is the text of a `$(...)` in that token).
fn command_line(sc: &ast::SimpleCommand) -> Option<usize> {
    let item_end = |item: &CommandPrefixOrSuffixItem| match item {
        CommandPrefixOrSuffixItem::Word(w) | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
            w.loc.as_ref().map(|l| l.end.line)
        }
        CommandPrefixOrSuffixItem::IoRedirect(r) => redirect_line(r),
        CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => Some(sub.loc.end.line),
    };
    let prefix = sc.prefix.iter().flat_map(|p| p.0.iter().map(item_end));
    let name = sc
        .word_or_name
        .iter()
        .map(|w| w.loc.as_ref().map(|l| l.end.line));
    let suffix = sc.suffix.iter().flat_map(|s| s.0.iter().map(item_end));
    let mut lines = prefix.chain(name).chain(suffix);
    let first = lines.next()??;
    Some(lines.next().flatten().unwrap_or(first))
}

/// The line of a redirection, from its target word.
fn redirect_line(r: &ast::IoRedirect) -> Option<usize> {
    let w = match r {
        ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::Filename(w))
        | ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::Duplicate(w))
        | ast::IoRedirect::HereString(_, w)
        | ast::IoRedirect::OutputAndError(w, _) => w,
        _ => return None,
    };
    w.loc.as_ref().map(|l| l.start.line)
}
