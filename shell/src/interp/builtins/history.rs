//! History and line-editing builtins of a non-interactive shell: `history`,
//! `fc` and `bind`.
//!
//! A `bash -c` script records no commands of its own, but it can still fill
//! and edit the history list (`history -s`, `history -r` from `$HISTFILE`)
//! and list it (`history`, `fc -l`). `bind` works on a small readline model:
//! readline's function names and variables, a few default key bindings, and
//! the bindings a script adds (`bind '"\C-o": yank'`, `bind -x`). Every
//! `bind` call warns that line editing is off, as bash does.

use super::{err, out};
use crate::fs::Fs;
use crate::interp::{ExecResult, Interp};

/// Readline's bindable function names (`bind -l`).
const READLINE_FUNCTIONS: &[&str] = &[
    "abort",
    "accept-line",
    "alias-expand-line",
    "arrow-key-prefix",
    "backward-byte",
    "backward-char",
    "backward-delete-char",
    "backward-kill-line",
    "backward-kill-word",
    "backward-word",
    "beginning-of-history",
    "beginning-of-line",
    "bracketed-paste-begin",
    "call-last-kbd-macro",
    "capitalize-word",
    "character-search",
    "character-search-backward",
    "clear-display",
    "clear-screen",
    "complete",
    "complete-command",
    "complete-filename",
    "complete-hostname",
    "complete-into-braces",
    "complete-username",
    "complete-variable",
    "copy-backward-word",
    "copy-forward-word",
    "copy-region-as-kill",
    "dabbrev-expand",
    "delete-char",
    "delete-char-or-list",
    "delete-horizontal-space",
    "digit-argument",
    "display-shell-version",
    "do-lowercase-version",
    "downcase-word",
    "dump-functions",
    "dump-macros",
    "dump-variables",
    "dynamic-complete-history",
    "edit-and-execute-command",
    "emacs-editing-mode",
    "end-kbd-macro",
    "end-of-history",
    "end-of-line",
    "exchange-point-and-mark",
    "fetch-history",
    "forward-backward-delete-char",
    "forward-byte",
    "forward-char",
    "forward-search-history",
    "forward-word",
    "glob-complete-word",
    "glob-expand-word",
    "glob-list-expansions",
    "history-and-alias-expand-line",
    "history-expand-line",
    "history-search-backward",
    "history-search-forward",
    "history-substring-search-backward",
    "history-substring-search-forward",
    "insert-comment",
    "insert-completions",
    "insert-last-argument",
    "kill-line",
    "kill-region",
    "kill-whole-line",
    "kill-word",
    "magic-space",
    "menu-complete",
    "menu-complete-backward",
    "next-history",
    "next-screen-line",
    "non-incremental-forward-search-history",
    "non-incremental-forward-search-history-again",
    "non-incremental-reverse-search-history",
    "non-incremental-reverse-search-history-again",
    "old-menu-complete",
    "operate-and-get-next",
    "overwrite-mode",
    "possible-command-completions",
    "possible-completions",
    "possible-filename-completions",
    "possible-hostname-completions",
    "possible-username-completions",
    "possible-variable-completions",
    "previous-history",
    "previous-screen-line",
    "print-last-kbd-macro",
    "quoted-insert",
    "re-read-init-file",
    "redraw-current-line",
    "reverse-search-history",
    "revert-line",
    "self-insert",
    "set-mark",
    "shell-backward-kill-word",
    "shell-backward-word",
    "shell-expand-line",
    "shell-forward-word",
    "shell-kill-word",
    "shell-transpose-words",
    "skip-csi-sequence",
    "spell-correct-word",
    "start-kbd-macro",
    "tab-insert",
    "tilde-expand",
    "transpose-chars",
    "transpose-words",
    "tty-status",
    "undo",
    "universal-argument",
    "unix-filename-rubout",
    "unix-line-discard",
    "unix-word-rubout",
    "upcase-word",
    "vi-append-eol",
    "vi-append-mode",
    "vi-arg-digit",
    "vi-bWord",
    "vi-back-to-indent",
    "vi-backward-bigword",
    "vi-backward-word",
    "vi-bword",
    "vi-change-case",
    "vi-change-char",
    "vi-change-to",
    "vi-char-search",
    "vi-column",
    "vi-complete",
    "vi-delete",
    "vi-delete-to",
    "vi-eWord",
    "vi-edit-and-execute-command",
    "vi-editing-mode",
    "vi-end-bigword",
    "vi-end-word",
    "vi-eof-maybe",
    "vi-eword",
    "vi-fWord",
    "vi-fetch-history",
    "vi-first-print",
    "vi-forward-bigword",
    "vi-forward-word",
    "vi-fword",
    "vi-goto-mark",
    "vi-insert-beg",
    "vi-insertion-mode",
    "vi-match",
    "vi-movement-mode",
    "vi-next-word",
    "vi-overstrike",
    "vi-overstrike-delete",
    "vi-prev-word",
    "vi-put",
    "vi-redo",
    "vi-replace",
    "vi-rubout",
    "vi-search",
    "vi-search-again",
    "vi-set-mark",
    "vi-subst",
    "vi-tilde-expand",
    "vi-undo",
    "vi-unix-word-rubout",
    "vi-yank-arg",
    "vi-yank-pop",
    "vi-yank-to",
    "yank",
    "yank-last-arg",
    "yank-nth-arg",
    "yank-pop",
];

/// Readline variables and their values in a non-interactive bash (`bind -v`).
const READLINE_VARIABLES: &[(&str, &str)] = &[
    ("bind-tty-special-chars", "on"),
    ("blink-matching-paren", "off"),
    ("byte-oriented", "off"),
    ("colored-completion-prefix", "off"),
    ("colored-stats", "off"),
    ("completion-ignore-case", "off"),
    ("completion-map-case", "off"),
    ("convert-meta", "off"),
    ("disable-completion", "off"),
    ("echo-control-characters", "on"),
    ("enable-active-region", "on"),
    ("enable-bracketed-paste", "on"),
    ("enable-keypad", "off"),
    ("enable-meta-key", "on"),
    ("expand-tilde", "off"),
    ("history-preserve-point", "off"),
    ("horizontal-scroll-mode", "off"),
    ("input-meta", "on"),
    ("mark-directories", "on"),
    ("mark-modified-lines", "off"),
    ("mark-symlinked-directories", "off"),
    ("match-hidden-files", "on"),
    ("menu-complete-display-prefix", "off"),
    ("meta-flag", "on"),
    ("output-meta", "on"),
    ("page-completions", "on"),
    ("prefer-visible-bell", "on"),
    ("print-completions-horizontally", "off"),
    ("revert-all-at-newline", "off"),
    ("show-all-if-ambiguous", "off"),
    ("show-all-if-unmodified", "off"),
    ("show-mode-in-prompt", "off"),
    ("skip-completed-text", "off"),
    ("visible-stats", "off"),
    ("bell-style", "audible"),
    ("comment-begin", "#"),
    ("completion-display-width", "-1"),
    ("completion-prefix-display-length", "0"),
    ("completion-query-items", "100"),
    ("editing-mode", "emacs"),
    ("emacs-mode-string", "@"),
    ("history-size", "0"),
    ("keymap", "emacs"),
    ("keyseq-timeout", "500"),
    ("vi-cmd-mode-string", "(cmd)"),
    ("vi-ins-mode-string", "(ins)"),
];

/// Default emacs-mode bindings kept in the model (key sequence, function).
const DEFAULT_BINDINGS: &[(&str, &str)] = &[
    ("\\C-a", "beginning-of-line"),
    ("\\C-b", "backward-char"),
    ("\\C-d", "delete-char"),
    ("\\C-e", "end-of-line"),
    ("\\C-f", "forward-char"),
    ("\\C-k", "kill-line"),
    ("\\C-l", "clear-screen"),
    ("\\C-n", "next-history"),
    ("\\C-p", "previous-history"),
    ("\\C-r", "reverse-search-history"),
    ("\\C-t", "transpose-chars"),
    ("\\C-u", "unix-line-discard"),
    ("\\C-w", "unix-word-rubout"),
    ("\\C-y", "yank"),
];

/// Entries of the `bind` model, kept in `Options::other`-like state: the
/// bindings are stored in `interp.opts.history`'s sibling list through
/// these keys, as `KEY\0FUNCTION` (a function) or `KEY\x01COMMAND` (`-x`).
fn bindings(interp: &Interp) -> Vec<(String, String, bool)> {
    let mut v: Vec<(String, String, bool)> = DEFAULT_BINDINGS
        .iter()
        .map(|(k, f)| (k.to_string(), f.to_string(), false))
        .collect();
    for entry in &interp.opts.key_bindings {
        v.retain(|(k, _, _)| *k != entry.0);
        if !entry.1.is_empty() {
            v.push(entry.clone());
        }
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn set_binding(interp: &mut Interp, key: &str, target: &str, command: bool) {
    let list = &mut interp.opts.key_bindings;
    list.retain(|(k, _, _)| k != key);
    list.push((key.to_string(), target.to_string(), command));
}

/// Splits `"KEYSEQ": VALUE` into its key sequence and value (quotes removed).
fn parse_binding(spec: &str) -> Option<(String, String)> {
    let spec = spec.trim();
    let rest = spec.strip_prefix('"')?;
    let mut key = String::new();
    let mut chars = rest.char_indices();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                key.push('\\');
                if let Some((_, n)) = chars.next() {
                    key.push(n);
                }
            }
            '"' => {
                end = Some(i + 1);
                break;
            }
            c => key.push(c),
        }
    }
    let value = rest[end?..].trim_start().strip_prefix(':')?.trim();
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value);
    Some((key, value.to_string()))
}

fn keys_of(list: &[(String, String, bool)], func: &str) -> Vec<String> {
    list.iter()
        .filter(|(_, f, c)| !c && f == func)
        .map(|(k, _, _)| format!("\"{k}\""))
        .collect()
}

/// `bind [-lpsvPSVX] [-m keymap] [-q name] [-r keyseq] [-x keyseq:cmd] [keyseq:func]`
pub fn bind(interp: &mut Interp, args: &[String]) -> ExecResult {
    err(interp, "bind: warning: line editing not enabled");
    let mut i = 1;
    let mut status = 0;
    while i < args.len() {
        let a = args[i].clone();
        if !a.starts_with('-') || a.len() < 2 {
            match parse_binding(&a) {
                Some((k, f)) => set_binding(interp, &k, &f, false),
                None => {
                    err(interp, format!("bind: `{a}': invalid key binding"));
                    status = 1;
                }
            }
            i += 1;
            continue;
        }
        for c in a[1..].chars() {
            let needs = matches!(c, 'm' | 'q' | 'u' | 'r' | 'f' | 'x');
            let value = if needs {
                i += 1;
                match args.get(i) {
                    Some(v) => v.clone(),
                    None => {
                        err(interp, format!("bind: -{c}: option requires an argument"));
                        return Ok(2);
                    }
                }
            } else {
                String::new()
            };
            match c {
                'm' | 'f' => {}
                'l' => {
                    let text: String = READLINE_FUNCTIONS
                        .iter()
                        .map(|f| format!("{f}\n"))
                        .collect();
                    out(interp, text);
                }
                'p' | 'P' => {
                    let list = bindings(interp);
                    let mut text = String::new();
                    for f in READLINE_FUNCTIONS {
                        let keys = keys_of(&list, f);
                        match (c, keys.is_empty()) {
                            ('p', true) => text.push_str(&format!("# {f} (not bound)\n")),
                            ('p', false) => {
                                for k in keys {
                                    text.push_str(&format!("{k}: {f}\n"));
                                }
                            }
                            (_, true) => text.push_str(&format!("{f} is not bound to any keys\n")),
                            (_, false) => text
                                .push_str(&format!("{f} can be found on {}.\n", keys.join(", "))),
                        }
                    }
                    out(interp, text);
                }
                'v' | 'V' => {
                    let text: String = READLINE_VARIABLES
                        .iter()
                        .map(|(n, v)| {
                            if c == 'v' {
                                format!("set {n} {v}\n")
                            } else {
                                format!("{n} is set to `{v}'\n")
                            }
                        })
                        .collect();
                    out(interp, text);
                }
                's' | 'S' => {}
                'X' => {
                    let text: String = bindings(interp)
                        .iter()
                        .filter(|(_, _, cmd)| *cmd)
                        .map(|(k, v, _)| format!("\"{k}\": \"{v}\"\n"))
                        .collect();
                    out(interp, text);
                }
                'q' => {
                    if !READLINE_FUNCTIONS.contains(&value.as_str()) {
                        err(interp, format!("bind: `{value}': unknown function name"));
                        return Ok(1);
                    }
                    let keys = keys_of(&bindings(interp), &value);
                    if keys.is_empty() {
                        out(interp, format!("{value} is not bound to any keys.\n"));
                        status = 1;
                    } else {
                        out(
                            interp,
                            format!("{value} can be invoked via {}.\n", keys.join(", ")),
                        );
                    }
                }
                'u' => {
                    let keys: Vec<String> = bindings(interp)
                        .into_iter()
                        .filter(|(_, f, cmd)| !cmd && *f == value)
                        .map(|(k, _, _)| k)
                        .collect();
                    for k in keys {
                        set_binding(interp, &k, "", false);
                    }
                }
                'r' => set_binding(interp, &value, "", false),
                'x' => match parse_binding(&value) {
                    Some((k, cmd)) => set_binding(interp, &k, &cmd, true),
                    None => {
                        err(interp, "bind: no colon separator");
                        status = 1;
                    }
                },
                _ => {
                    return Ok(super::invalid_option(
                        interp,
                        "bind",
                        &format!("-{c}"),
                        "bind [-lpsvPSVX] [-m keymap] [-f filename] [-q name] [-u name] [-r keyseq] [-x keyseq:shell-command] [keyseq:readline-function or readline-command]",
                    ));
                }
            }
        }
        i += 1;
    }
    Ok(status)
}

/// The history file: `$HISTFILE`, or `~/.bash_history`.
fn histfile(interp: &Interp, explicit: Option<&String>) -> Option<String> {
    let name = match explicit {
        Some(f) => f.clone(),
        None => match interp.vars.get_str("HISTFILE") {
            Some(f) => f.to_string(),
            None => return None,
        },
    };
    if name.is_empty() {
        return None;
    }
    Some(Fs::resolve(&interp.cwd, &name))
}

fn print_history(interp: &mut Interp, count: Option<usize>) {
    let h = &interp.opts.history;
    let start = count.map_or(0, |n| h.len().saturating_sub(n));
    let text: String = h[start..]
        .iter()
        .enumerate()
        .map(|(i, e)| format!("{:5}  {e}\n", start + i + 1))
        .collect();
    out(interp, text);
}

/// `history [n]`, `history -c`, `history -d offset`, `history -anrw [file]`,
/// `history -p arg...`, `history -s arg...`
pub fn history(interp: &mut Interp, args: &[String]) -> ExecResult {
    let usage =
        "history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]";
    let mut flags = String::new();
    let mut i = 1;
    let mut delete: Option<String> = None;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        if args[i] == "--" {
            i += 1;
            break;
        }
        for c in args[i][1..].chars() {
            match c {
                'c' | 'a' | 'n' | 'r' | 'w' | 'p' | 's' => flags.push(c),
                'd' => {
                    i += 1;
                    match args.get(i) {
                        Some(v) => delete = Some(v.clone()),
                        None => {
                            err(interp, "history: -d: option requires an argument");
                            return Ok(2);
                        }
                    }
                }
                _ => {
                    return Ok(super::invalid_option(
                        interp,
                        "history",
                        &format!("-{c}"),
                        usage,
                    ));
                }
            }
        }
        i += 1;
    }
    let rest = &args[i..];
    if flags.contains('c') {
        interp.opts.history.clear();
        interp.opts.history_new = 0;
        interp.opts.history_line_added = false;
    }
    if let Some(d) = delete {
        let len = interp.opts.history.len() as i64;
        let idx = d
            .parse::<i64>()
            .ok()
            .map(|n| if n < 0 { len + n } else { n - 1 });
        match idx {
            Some(k) if k >= 0 && k < len => {
                interp.opts.history.remove(k as usize);
            }
            _ => {
                err(
                    interp,
                    format!("history: {d}: history position out of range"),
                );
                return Ok(1);
            }
        }
        return Ok(0);
    }
    if flags.contains('s') {
        // The `history -s` line itself gives way to the entry, as in bash.
        if std::mem::take(&mut interp.opts.history_line_added) {
            interp.opts.history.pop();
        }
        interp.opts.history.push(rest.join(" "));
        return Ok(0);
    }
    if flags.contains('p') {
        let text: String = rest.iter().map(|a| format!("{a}\n")).collect();
        out(interp, text);
        return Ok(0);
    }
    for op in ['r', 'n', 'w', 'a'] {
        if !flags.contains(op) {
            continue;
        }
        let Some(path) = histfile(interp, rest.first()) else {
            return Ok(1);
        };
        match op {
            'r' | 'n' => match interp.fs.read(&path) {
                Ok(data) => {
                    let text = String::from_utf8_lossy(&data).into_owned();
                    let lines: Vec<String> = text.lines().map(str::to_string).collect();
                    let skip = if op == 'n' {
                        interp.opts.history.len().min(lines.len())
                    } else {
                        0
                    };
                    interp.opts.history.extend(lines.into_iter().skip(skip));
                }
                Err(e) => {
                    err(interp, format!("history: {path}: {e}"));
                    return Ok(1);
                }
            },
            _ => {
                // `-a` appends only the entries added since the last `-a`.
                let h = &interp.opts.history;
                let from = if op == 'a' {
                    h.len() - interp.opts.history_new.min(h.len())
                } else {
                    0
                };
                let text: String = h[from..].iter().map(|e| format!("{e}\n")).collect();
                interp.opts.history_new = 0;
                let r = if op == 'w' {
                    interp.fs.write(&path, text.as_bytes())
                } else {
                    interp.fs.append(&path, text.as_bytes())
                };
                if let Err(e) = r {
                    err(interp, format!("history: {path}: {e}"));
                    return Ok(1);
                }
            }
        }
        return Ok(0);
    }
    if !flags.is_empty() {
        return Ok(0);
    }
    match rest {
        [] => print_history(interp, None),
        [n] => match n.parse::<usize>() {
            Ok(n) => print_history(interp, Some(n)),
            Err(_) => {
                err(interp, format!("history: {n}: numeric argument required"));
                return Ok(1);
            }
        },
        _ => {
            err(interp, "history: too many arguments");
            return Ok(1);
        }
    }
    Ok(0)
}

/// `fc -l [-nr] [first [last]]` lists history entries; re-executing or
/// editing entries (`fc`, `fc -s`) needs an interactive history.
pub fn fc(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut list = false;
    let mut numbers = true;
    let mut reverse = false;
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() < 2 || a[1..].chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        for c in a[1..].chars() {
            match c {
                'l' => list = true,
                'n' => numbers = false,
                'r' => reverse = true,
                's' => {}
                'e' => i += 1,
                _ => {
                    return Ok(super::invalid_option(
                        interp,
                        "fc",
                        &format!("-{c}"),
                        "fc [-e ename] [-lnr] [first] [last] or fc -s [pat=rep] [command]",
                    ));
                }
            }
        }
        i += 1;
    }
    // Like bash, the listing leaves out the `fc` line itself.
    let mut h = interp.opts.history.clone();
    if interp.opts.history_line_added {
        h.pop();
    }
    if !list {
        err(interp, "fc: no command found");
        return Ok(1);
    }
    if h.is_empty() {
        return Ok(0);
    }
    let len = h.len() as i64;
    // A number is an entry; a negative one counts back from the end.
    let pos = |s: &str| -> Option<i64> {
        let n: i64 = s.parse().ok()?;
        Some(if n < 0 { len + 1 + n } else { n }.clamp(1, len))
    };
    let operands = &args[i..];
    let (mut first, mut last) = match operands {
        [] => ((len - 15).max(1), len),
        [f] => (pos(f).unwrap_or(1), len),
        [f, l, ..] => (pos(f).unwrap_or(1), pos(l).unwrap_or(len)),
    };
    let mut rev = reverse;
    if first > last {
        std::mem::swap(&mut first, &mut last);
        rev = true;
    }
    let mut idx: Vec<i64> = (first..=last).collect();
    if rev {
        idx.reverse();
    }
    let text: String = idx
        .iter()
        .map(|n| {
            let e = &h[(*n - 1) as usize];
            if numbers {
                format!("{n}\t {e}\n")
            } else {
                format!("\t {e}\n")
            }
        })
        .collect();
    out(interp, text);
    Ok(0)
}
