//! Programmable completion builtins: `compgen`, `complete` and `compopt`.
//!
//! A non-interactive shell never completes a command line, but scripts (and
//! bash-completion files sourced by them) still call these: `compgen` prints
//! the candidates a spec generates for a word, `complete` stores, prints and
//! removes specs, and `compopt` only works inside a completion function.
//! Candidate order follows bash 5.2: the named actions (in bash's fixed
//! order), then files/directories, `-G`, `-W`, `-C`, `-F`; then `-X`
//! filtering, then `-P`/`-S`.

use brush_parser::ast::Word;

use super::{err, out};
use crate::fs::{FileKind, Fs};
use crate::interp::options::{SET_O_OPTIONS, SHOPT_OPTIONS};
use crate::interp::pattern::{self, MatchOptions};
use crate::interp::{ExecResult, Interp};

const COMPGEN_USAGE: &str = "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]";
const COMPLETE_USAGE: &str = "complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [name ...]";

/// Reserved words, as `compgen -k` lists them.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// Action names in the order bash generates them; `file` and `directory`
/// come after all of these.
const ACTIONS: &[&str] = &[
    "alias",
    "arrayvar",
    "binding",
    "builtin",
    "command",
    "disabled",
    "enabled",
    "export",
    "function",
    "helptopic",
    "hostname",
    "job",
    "keyword",
    "running",
    "service",
    "setopt",
    "shopt",
    "signal",
    "stopped",
    "user",
    "group",
    "variable",
    "directory",
    "file",
];

/// `-o` option names.
const COMP_OPTIONS: &[&str] = &[
    "bashdefault",
    "default",
    "dirnames",
    "filenames",
    "noquote",
    "nosort",
    "nospace",
    "plusdirs",
];

/// The single-letter action flags and the actions they stand for, in the
/// order `complete -p` prints them.
const LETTER_ACTIONS: &[(char, &str)] = &[
    ('a', "alias"),
    ('b', "builtin"),
    ('c', "command"),
    ('d', "directory"),
    ('e', "export"),
    ('f', "file"),
    ('g', "group"),
    ('j', "job"),
    ('k', "keyword"),
    ('s', "service"),
    ('u', "user"),
    ('v', "variable"),
];

/// A completion specification (the options of `complete`/`compgen`).
#[derive(Clone, Debug, Default)]
struct Spec {
    options: Vec<&'static str>,
    actions: Vec<&'static str>,
    glob: Option<String>,
    words: Option<String>,
    prefix: Option<String>,
    suffix: Option<String>,
    filter: Option<String>,
    function: Option<String>,
    command: Option<String>,
}

/// What was parsed from the command line besides the spec.
#[derive(Default)]
struct Parsed {
    spec: Spec,
    print: bool,
    remove: bool,
    /// `-D`, `-E`, `-I`
    special: Vec<&'static str>,
    operands: Vec<String>,
}

fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

impl Spec {
    /// The `complete ...` line that recreates this spec for `name`.
    fn render(&self, name: &str) -> String {
        let mut s = String::from("complete");
        for o in COMP_OPTIONS {
            if self.options.contains(o) {
                s.push_str(" -o ");
                s.push_str(o);
            }
        }
        for (c, a) in LETTER_ACTIONS {
            if self.actions.contains(a) {
                s.push_str(&format!(" -{c}"));
            }
        }
        for a in ACTIONS {
            if !LETTER_ACTIONS.iter().any(|(_, l)| l == a) && self.actions.contains(a) {
                s.push_str(" -A ");
                s.push_str(a);
            }
        }
        for (flag, v) in [
            ("-G", &self.glob),
            ("-W", &self.words),
            ("-P", &self.prefix),
            ("-S", &self.suffix),
            ("-X", &self.filter),
        ] {
            if let Some(v) = v {
                s.push_str(&format!(" {flag} {}", single_quote(v)));
            }
        }
        if let Some(f) = &self.function {
            s.push_str(&format!(" -F {f}"));
        }
        if let Some(c) = &self.command {
            s.push_str(&format!(" -C {}", single_quote(c)));
        }
        s.push(' ');
        s.push_str(name);
        s
    }
}

/// Parses the options shared by `compgen` and `complete`; `Err(status)` after
/// printing the error.
fn parse(interp: &mut Interp, args: &[String], is_complete: bool) -> Result<Parsed, i32> {
    let name = args[0].as_str();
    let usage = if is_complete {
        COMPLETE_USAGE
    } else {
        COMPGEN_USAGE
    };
    let mut p = Parsed::default();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() < 2 {
            break;
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            let takes_arg = matches!(c, 'o' | 'A' | 'G' | 'W' | 'F' | 'C' | 'X' | 'P' | 'S');
            let value = if takes_arg {
                if j < chars.len() {
                    let v: String = chars[j..].iter().collect();
                    j = chars.len();
                    v
                } else {
                    i += 1;
                    match args.get(i) {
                        Some(v) => v.clone(),
                        None => {
                            err(interp, format!("{name}: -{c}: option requires an argument"));
                            let _ =
                                interp.write_fd(2, format!("{name}: usage: {usage}\n").as_bytes());
                            return Err(2);
                        }
                    }
                }
            } else {
                String::new()
            };
            match c {
                'o' => match COMP_OPTIONS.iter().find(|o| **o == value) {
                    Some(o) => p.spec.options.push(o),
                    None => {
                        err(interp, format!("{name}: {value}: invalid option name"));
                        return Err(2);
                    }
                },
                'A' => match ACTIONS.iter().find(|o| **o == value) {
                    Some(o) => p.spec.actions.push(o),
                    None => {
                        err(interp, format!("{name}: {value}: invalid action name"));
                        return Err(2);
                    }
                },
                'G' => p.spec.glob = Some(value),
                'W' => p.spec.words = Some(value),
                'F' => p.spec.function = Some(value),
                'C' => p.spec.command = Some(value),
                'X' => p.spec.filter = Some(value),
                'P' => p.spec.prefix = Some(value),
                'S' => p.spec.suffix = Some(value),
                'p' if is_complete => p.print = true,
                'r' if is_complete => p.remove = true,
                'D' if is_complete => p.special.push("-D"),
                'E' if is_complete => p.special.push("-E"),
                'I' if is_complete => p.special.push("-I"),
                _ => match LETTER_ACTIONS.iter().find(|(l, _)| *l == c) {
                    Some((_, a)) => p.spec.actions.push(a),
                    None => {
                        return Err(super::invalid_option(interp, name, &format!("-{c}"), usage));
                    }
                },
            }
        }
        i += 1;
    }
    p.operands = args[i..].to_vec();
    Ok(p)
}

/// `compgen [options] [word]`: prints the matching candidates.
pub fn compgen(interp: &mut Interp, args: &[String]) -> ExecResult {
    let p = match parse(interp, args, false) {
        Ok(p) => p,
        Err(status) => return Ok(status),
    };
    let word = p.operands.first().cloned().unwrap_or_default();
    if p.spec.function.is_some() {
        err(
            interp,
            "compgen: warning: -F option may not work as you expect",
        );
    }
    if p.spec.command.is_some() {
        err(
            interp,
            "compgen: warning: -C option may not work as you expect",
        );
    }
    // An expansion error in `-W` or in a `-F` function fails compgen only;
    // the script goes on (bash returns 1 here).
    let found = match generate(interp, &p.spec, &word) {
        Ok(found) => found,
        Err(crate::interp::Interrupt::Discard(_)) => return Ok(1),
        Err(e) => return Err(e),
    };
    if found.is_empty() {
        return Ok(1);
    }
    let mut text = String::new();
    for c in &found {
        text.push_str(c);
        text.push('\n');
    }
    out(interp, text);
    Ok(0)
}

/// The candidates `spec` generates for `word`, filtered and decorated.
fn generate(
    interp: &mut Interp,
    spec: &Spec,
    word: &str,
) -> Result<Vec<String>, crate::interp::Interrupt> {
    let mut found: Vec<String> = Vec::new();
    for action in ACTIONS {
        if !spec.actions.contains(action) {
            continue;
        }
        let mut items = action_items(interp, action, word);
        found.append(&mut items);
    }
    if let Some(g) = &spec.glob {
        let w = Word {
            value: g.clone(),
            loc: None,
        };
        let items = interp.expand_words(&[w])?;
        for it in items {
            if it != *g || interp.fs.exists(&Fs::resolve(&interp.cwd, &it)) {
                found.push(it);
            }
        }
    }
    if let Some(list) = &spec.words {
        let ifs = interp.vars.get_str("IFS").unwrap_or(" \t\n").to_string();
        for piece in split_wordlist(list, &ifs) {
            let w = Word {
                value: piece,
                loc: None,
            };
            for it in interp.expand_words(&[w])? {
                if it.starts_with(word) {
                    found.push(it);
                }
            }
        }
    }
    if let Some(cmd) = &spec.command {
        let source = format!("{cmd} compgen {} ''", single_quote(word));
        let bytes = interp.command_substitution(&source)?;
        for line in String::from_utf8_lossy(&bytes).lines() {
            found.push(line.to_string());
        }
    }
    if let Some(func) = &spec.function {
        call_completion_function(interp, func, word, &mut found)?;
    }
    if let Some(filter) = &spec.filter {
        let (negate, pat) = match filter.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, filter.as_str()),
        };
        let pat = substitute_ampersand(pat, word);
        let mo = MatchOptions {
            extglob: interp.opts.extglob,
            nocase: false,
        };
        // `-X pat` removes what matches; `-X !pat` keeps only what matches.
        found.retain(|c| pattern::matches(&pat, c, mo) == negate);
    }
    let none = found.is_empty();
    if spec.options.contains(&"plusdirs") || (none && spec.options.contains(&"dirnames")) {
        found.extend(file_items(interp, word, true));
    } else if none && spec.options.contains(&"default") {
        found.extend(file_items(interp, word, false));
    }
    if spec.prefix.is_some() || spec.suffix.is_some() {
        let pre = spec.prefix.as_deref().unwrap_or("");
        let suf = spec.suffix.as_deref().unwrap_or("");
        for c in &mut found {
            *c = format!("{pre}{c}{suf}");
        }
    }
    Ok(found)
}

/// Runs a `-F` function as bash's `compgen` does (`$1` the command name
/// `compgen`, `$2` the word, `$3` the previous word) and collects COMPREPLY.
fn call_completion_function(
    interp: &mut Interp,
    func: &str,
    word: &str,
    found: &mut Vec<String>,
) -> Result<(), crate::interp::Interrupt> {
    use crate::interp::Value;
    let _ = interp
        .vars
        .set("COMP_WORDS", Value::Indexed(Default::default()));
    let _ = interp.vars.set_str("COMP_CWORD", "-1");
    let _ = interp.vars.set_str("COMP_LINE", "");
    let _ = interp.vars.set_str("COMP_POINT", "0");
    let args = vec!["compgen".to_string(), word.to_string(), String::new()];
    interp.opts.other.insert("__in_completion".into(), true);
    let r = interp.call_function(func, &args);
    interp.opts.other.remove("__in_completion");
    r?;
    if let Some(val) = interp.vars.get("COMPREPLY").and_then(|v| v.value.as_ref()) {
        found.extend(val.values());
    }
    Ok(())
}

/// Replaces an unescaped `&` in a `-X` pattern with the word (a `\&` stays
/// a literal `&`).
fn substitute_ampersand(pat: &str, word: &str) -> String {
    let mut s = String::new();
    let mut chars = pat.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('&') => s.push('&'),
                Some(n) => {
                    s.push('\\');
                    s.push(n);
                }
                None => s.push('\\'),
            },
            '&' => s.push_str(&pattern::escape(word)),
            c => s.push(c),
        }
    }
    s
}

/// Splits a `-W` word list at IFS characters, keeping quoted text, escaped
/// characters and `$(...)`/`${...}` together; each piece is expanded later.
fn split_wordlist(list: &str, ifs: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            } else if c == '\\'
                && q == '"'
                && let Some(n) = chars.next()
            {
                cur.push(n);
            }
            continue;
        }
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            '\'' | '"' | '`' => {
                quote = Some(c);
                cur.push(c);
            }
            '$' if matches!(chars.peek(), Some('(') | Some('{')) => {
                cur.push(c);
                cur.push(chars.next().unwrap_or('('));
                depth += 1;
            }
            '(' | '{' if depth > 0 => {
                depth += 1;
                cur.push(c);
            }
            ')' | '}' if depth > 0 => {
                depth -= 1;
                cur.push(c);
            }
            c if depth == 0 && ifs.contains(c) => {
                if !cur.is_empty() {
                    pieces.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        pieces.push(cur);
    }
    pieces
}

/// Entries of the directory part of `word` whose names start with its last
/// component; only directories when `dirs_only`.
fn file_items(interp: &Interp, word: &str, dirs_only: bool) -> Vec<String> {
    let (dir, base) = match word.rfind('/') {
        Some(i) => (&word[..=i], &word[i + 1..]),
        None => ("", word),
    };
    let dir_path = Fs::resolve(&interp.cwd, if dir.is_empty() { "." } else { dir });
    let Ok(entries) = interp.fs.read_dir(&dir_path) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .into_iter()
        .filter(|e| e.name.starts_with(base))
        .filter(|e| {
            !dirs_only
                || e.kind == FileKind::Dir
                || (e.kind == FileKind::Symlink
                    && interp
                        .fs
                        .metadata(&format!("{dir_path}/{}", e.name))
                        .is_ok_and(|m| m.kind == FileKind::Dir))
        })
        .map(|e| format!("{dir}{}", e.name))
        .collect();
    names.sort();
    names
}

fn with_prefix<'a>(items: impl IntoIterator<Item = &'a str>, word: &str) -> Vec<String> {
    items
        .into_iter()
        .filter(|n| n.starts_with(word))
        .map(str::to_string)
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The candidates of one `-A` action that start with `word`.
fn action_items(interp: &mut Interp, action: &str, word: &str) -> Vec<String> {
    match action {
        "alias" => sorted(with_prefix(interp.aliases.keys().map(String::as_str), word)),
        "arrayvar" => sorted(
            interp
                .vars
                .visible()
                .into_iter()
                .filter(|(n, v)| {
                    n.starts_with(word) && v.value.as_ref().is_some_and(|x| x.as_scalar().is_none())
                })
                .map(|(n, _)| n)
                .collect(),
        ),
        "builtin" | "enabled" => with_prefix(super::names(), word),
        "command" => {
            let mut v = sorted(with_prefix(interp.aliases.keys().map(String::as_str), word));
            v.extend(with_prefix(KEYWORDS.iter().copied(), word));
            v.extend(sorted(with_prefix(
                interp.funcs.keys().map(String::as_str),
                word,
            )));
            v.extend(with_prefix(super::names(), word));
            let path = interp.vars.get_str("PATH").unwrap_or("").to_string();
            for dir in path.split(':').filter(|d| !d.is_empty()) {
                let dir = Fs::resolve(&interp.cwd, dir);
                if let Ok(entries) = interp.fs.read_dir(&dir) {
                    let mut names: Vec<String> = entries
                        .into_iter()
                        .filter(|e| e.name.starts_with(word) && e.kind != FileKind::Dir)
                        .map(|e| e.name)
                        .collect();
                    names.sort();
                    v.extend(names);
                }
            }
            v
        }
        "export" => sorted(
            interp
                .vars
                .exported()
                .into_iter()
                .map(|(n, _)| n)
                .filter(|n| n.starts_with(word))
                .collect(),
        ),
        "function" => sorted(with_prefix(interp.funcs.keys().map(String::as_str), word)),
        "helptopic" => with_prefix(super::names(), word),
        "hostname" => with_prefix(["localhost"], word),
        "keyword" => with_prefix(KEYWORDS.iter().copied(), word),
        "setopt" => with_prefix(SET_O_OPTIONS.iter().map(|(n, _)| *n), word),
        "shopt" => with_prefix(SHOPT_OPTIONS.iter().map(|(n, _)| *n), word),
        "signal" => with_prefix(
            [
                "SIGHUP",
                "SIGINT",
                "SIGQUIT",
                "SIGILL",
                "SIGTRAP",
                "SIGABRT",
                "SIGBUS",
                "SIGFPE",
                "SIGKILL",
                "SIGUSR1",
                "SIGSEGV",
                "SIGUSR2",
                "SIGPIPE",
                "SIGALRM",
                "SIGTERM",
                "SIGSTKFLT",
                "SIGCHLD",
                "SIGCONT",
                "SIGSTOP",
                "SIGTSTP",
                "SIGTTIN",
                "SIGTTOU",
                "SIGURG",
                "SIGXCPU",
                "SIGXFSZ",
                "SIGVTALRM",
                "SIGPROF",
                "SIGWINCH",
                "SIGIO",
                "SIGPWR",
                "SIGSYS",
            ],
            word,
        ),
        "user" => with_prefix(["root", "sandbox"], word),
        "group" => with_prefix(["root", "sandbox"], word),
        "variable" => sorted(
            interp
                .vars
                .visible()
                .into_iter()
                .map(|(n, _)| n)
                .filter(|n| n.starts_with(word))
                .collect(),
        ),
        "directory" => file_items(interp, word, true),
        "file" => file_items(interp, word, false),
        // No key bindings, jobs, services or disabled builtins here.
        _ => Vec::new(),
    }
}

/// `complete [options] [name ...]`: stores, prints (`-p`) or removes (`-r`)
/// completion specs.
pub fn complete(interp: &mut Interp, args: &[String]) -> ExecResult {
    let p = match parse(interp, args, true) {
        Ok(p) => p,
        Err(status) => return Ok(status),
    };
    let mut names = p.operands.clone();
    names.extend(p.special.iter().map(|s| s.to_string()));
    let has_spec = !p.spec.actions.is_empty()
        || !p.spec.options.is_empty()
        || p.spec.glob.is_some()
        || p.spec.words.is_some()
        || p.spec.function.is_some()
        || p.spec.command.is_some()
        || p.spec.filter.is_some()
        || p.spec.prefix.is_some()
        || p.spec.suffix.is_some();
    if p.remove {
        if names.is_empty() {
            interp.opts.completions.clear();
            return Ok(0);
        }
        let mut status = 0;
        for n in &names {
            let before = interp.opts.completions.len();
            interp.opts.completions.retain(|(k, _)| k != n);
            if interp.opts.completions.len() == before {
                err(
                    interp,
                    format!("complete: {n}: no completion specification"),
                );
                status = 1;
            }
        }
        return Ok(status);
    }
    if p.print || (!has_spec) {
        if names.is_empty() {
            // bash lists its 256-bucket hash table in bucket order, newest
            // first within a bucket.
            let mut specs: Vec<(usize, &(String, String))> =
                interp.opts.completions.iter().enumerate().collect();
            specs.sort_by_key(|(i, (name, _))| (hash_bucket(name), std::cmp::Reverse(*i)));
            let text: String = specs
                .iter()
                .map(|(_, (_, line))| format!("{line}\n"))
                .collect();
            out(interp, text);
            return Ok(0);
        }
        if !p.print && !has_spec {
            // `complete foo`: bash accepts it and stores an empty spec.
            for n in &names {
                store(interp, n, Spec::default().render(n));
            }
            return Ok(0);
        }
        let mut status = 0;
        for n in &names {
            match interp.opts.completions.iter().find(|(k, _)| k == n) {
                Some((_, line)) => {
                    let line = format!("{line}\n");
                    out(interp, line);
                }
                None => {
                    err(
                        interp,
                        format!("complete: {n}: no completion specification"),
                    );
                    status = 1;
                }
            }
        }
        return Ok(status);
    }
    if names.is_empty() {
        let _ = interp.write_fd(2, format!("complete: usage: {COMPLETE_USAGE}\n").as_bytes());
        return Ok(2);
    }
    for n in &names {
        let line = p.spec.render(n);
        store(interp, n, line);
    }
    Ok(0)
}

/// The bucket of bash's completion hash table (FNV-1, 256 buckets) that
/// holds `name`: it decides the order `complete -p` lists specs in.
fn hash_bucket(name: &str) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for b in name.bytes() {
        h = h.wrapping_mul(16_777_619);
        h ^= u32::from(b);
    }
    h & 255
}

fn store(interp: &mut Interp, name: &str, line: String) {
    match interp.opts.completions.iter_mut().find(|(k, _)| k == name) {
        Some(slot) => slot.1 = line,
        None => interp.opts.completions.push((name.to_string(), line)),
    }
}

/// `compopt [-o|+o option] [name]`: only meaningful inside a completion
/// function; elsewhere an error, as in bash.
pub fn compopt(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "-o" || a == "+o" {
            i += 1;
            let Some(v) = args.get(i) else {
                err(interp, format!("compopt: {a}: option requires an argument"));
                return Ok(2);
            };
            if !COMP_OPTIONS.contains(&v.as_str()) {
                err(interp, format!("compopt: {v}: invalid option name"));
                return Ok(2);
            }
        } else if a.starts_with('-') && a != "-D" && a != "-E" && a != "-I" {
            return Ok(super::invalid_option(
                interp,
                "compopt",
                a,
                "compopt [-o|+o option] [-DEI] [name ...]",
            ));
        }
        i += 1;
    }
    if interp.opts.other.contains_key("__in_completion") {
        return Ok(0);
    }
    err(
        interp,
        "compopt: not currently executing completion function",
    );
    Ok(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordlist_splits_at_ifs_but_not_inside_quotes_or_substitutions() {
        assert_eq!(
            split_wordlist("spam:eggs%ham cheese\\:colon", ":%"),
            vec!["spam", "eggs", "ham cheese\\:colon"]
        );
        assert_eq!(
            split_wordlist("a '$(x y)' $(echo a b)", " "),
            vec!["a", "'$(x y)'", "$(echo a b)"]
        );
    }

    #[test]
    fn ampersand_in_filter_is_the_word() {
        assert_eq!(substitute_ampersand("x&y\\&", "w"), "xwy&");
    }
}
