//! Shell builtins: commands that need the interpreter's state. OWNER: builtins helper.
//!
//! One file per builtin or small family. Each builtin is a [`BuiltinFn`]:
//! it writes through `Interp::write_fd`, reads through `Interp::read_fd`, and
//! reports control flow (`break`, `return`, `exit`) as an [`super::Interrupt`].
//!
//! Calling convention for the declaration builtins (`declare`, `typeset`,
//! `local`, `export`, `readonly`): an argument `name=value` arrives with its
//! value already expanded (no word splitting), while a compound assignment
//! `name=(...)` / `name+=(...)` arrives as its raw source text: the builtin
//! expands the elements itself, as bash does.

mod alias;
mod cd;
mod complete;
mod declare;
mod echo;
mod flow;
mod getopts;
pub(crate) mod help;
mod history;
pub(crate) mod jobs;
mod mapfile;
pub(crate) mod misc;
mod printf;
pub(crate) mod read;
mod set;
pub(crate) mod source;
mod test;
mod trap;
mod types;

use std::fmt::Display;

use super::{ExecResult, Interp};

/// A builtin's entry point: `args[0]` is its name.
pub type BuiltinFn = fn(&mut Interp, &[String]) -> ExecResult;

/// Every builtin, by name.
const BUILTINS: &[(&str, BuiltinFn)] = &[
    (".", source::source),
    (":", misc::colon),
    ("[", test::bracket),
    ("alias", alias::alias),
    ("bg", jobs::fg_bg),
    ("bind", history::bind),
    ("break", flow::break_),
    ("builtin", types::builtin),
    ("caller", flow::caller),
    ("cd", cd::cd),
    ("command", types::command),
    ("compgen", complete::compgen),
    ("complete", complete::complete),
    ("compopt", complete::compopt),
    ("continue", flow::continue_),
    ("declare", declare::declare),
    ("dirs", cd::dirs),
    ("disown", jobs::disown),
    ("echo", echo::echo),
    ("eval", source::eval),
    ("exec", misc::exec),
    ("exit", flow::exit),
    ("export", declare::export),
    ("false", misc::false_),
    ("fc", history::fc),
    ("fg", jobs::fg_bg),
    ("getopts", getopts::getopts),
    ("hash", types::hash),
    ("help", help::help),
    ("history", history::history),
    ("jobs", jobs::jobs),
    ("kill", jobs::kill),
    ("let", misc::let_),
    ("local", declare::local),
    ("logout", flow::exit),
    ("mapfile", mapfile::mapfile),
    ("popd", cd::popd),
    ("printf", printf::printf),
    ("pushd", cd::pushd),
    ("pwd", cd::pwd),
    ("read", read::read),
    ("readarray", mapfile::mapfile),
    ("readonly", declare::readonly),
    ("return", flow::return_),
    ("set", set::set),
    ("shift", flow::shift),
    ("shopt", set::shopt),
    ("source", source::source),
    ("test", test::test),
    ("times", misc::times),
    ("trap", trap::trap),
    ("true", misc::true_),
    ("type", types::type_),
    ("typeset", declare::declare),
    ("ulimit", misc::ulimit),
    ("umask", misc::umask),
    ("unalias", alias::unalias),
    ("unset", declare::unset),
    ("wait", jobs::wait),
];

/// The builtin called `name`, if there is one.
pub fn lookup(name: &str) -> Option<BuiltinFn> {
    BUILTINS
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| BUILTINS[i].1)
}

/// The names of all builtins, sorted.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, _)| *n)
}

/// POSIX special builtins (an assignment before them persists; errors in
/// them are fatal in POSIX mode).
pub fn is_special(name: &str) -> bool {
    matches!(
        name,
        "." | ":"
            | "break"
            | "continue"
            | "eval"
            | "exec"
            | "exit"
            | "export"
            | "readonly"
            | "return"
            | "set"
            | "shift"
            | "source"
            | "times"
            | "trap"
            | "unset"
    )
}

/// Writes to stdout; false when the write failed (closed pipe, full disk).
pub(crate) fn out(interp: &mut Interp, data: impl AsRef<[u8]>) -> bool {
    interp.write_fd(1, data.as_ref()).is_ok()
}

/// Writes `bash: MESSAGE` and a newline to stderr: bash's shape for an error
/// raised by a builtin (`bash: cd: /nope: No such file or directory`).
pub(crate) fn err(interp: &mut Interp, message: impl Display) {
    interp.shell_error(message);
}

/// Parses the clustered one-letter options of a builtin that take no value
/// (`unset -fv`, `shopt -pq`); `--` or the first operand ends them. Returns
/// the letters seen and the index of the first operand, or, for a letter
/// not in `allowed`, the status of bash's invalid-option report.
pub(crate) fn flag_letters(
    interp: &mut Interp,
    name: &str,
    args: &[String],
    allowed: &str,
    usage: &str,
) -> Result<(String, usize), i32> {
    let mut seen = String::new();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() == 1 {
            break;
        }
        for c in a[1..].chars() {
            if !allowed.contains(c) {
                return Err(invalid_option(interp, name, &format!("-{c}"), usage));
            }
            seen.push(c);
        }
        i += 1;
    }
    Ok((seen, i))
}

/// The `-x` an invalid option `arg` is reported by: its dash and first
/// char (a byte slice `&arg[..2]` could end inside a char such as `é`).
pub(crate) fn option_head(arg: &str) -> &str {
    let end = arg.char_indices().nth(2).map_or(arg.len(), |(i, _)| i);
    &arg[..end]
}

/// Reports an invalid option the way bash does and returns status 2.
pub(crate) fn invalid_option(interp: &mut Interp, name: &str, opt: &str, usage: &str) -> i32 {
    err(interp, format!("{name}: {opt}: invalid option"));
    if !usage.is_empty() {
        let _ = interp.write_fd(2, format!("{name}: usage: {usage}\n").as_bytes());
    }
    2
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_is_sorted_for_binary_search() {
        let names: Vec<&str> = super::names().collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert!(super::lookup("echo").is_some());
        assert!(super::lookup("nope").is_none());
    }
}
