//! `help [-dms] [PATTERN ...]`: the synopsis (`-s`) or one-line description
//! (`-d`) of bash's help topics (builtins and keywords), matched as bash
//! does: first by name or shell pattern, then by prefix.
//!
//! The topics, synopses and descriptions are bash 5.2's own (`help -s '*'`
//! and `help -d '*'`), in bash's order. Without `-s`/`-d` (and with `-m`)
//! bash prints a long text per topic; we print the synopsis and the
//! description, which is all the table holds.

use super::{err, out};
use crate::interp::pattern::{self, MatchOptions};
use crate::interp::{ExecResult, Interp};

const USAGE: &str = "help [-dms] [pattern ...]";

/// How `help` shows a topic.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Synopsis,
    Description,
    Long,
}

/// `help`
pub fn help(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut shape = Shape::Long;
    let mut i = 1;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() == 1 {
            break;
        }
        for c in a[1..].chars() {
            shape = match c {
                'd' => Shape::Description,
                's' if shape != Shape::Description => Shape::Synopsis,
                's' | 'm' => shape,
                _ => {
                    return Ok(super::invalid_option(
                        interp,
                        "help",
                        &format!("-{c}"),
                        USAGE,
                    ));
                }
            };
        }
        i += 1;
    }
    let patterns = &args[i..];
    let Some(first) = patterns.first() else {
        return Ok(if out(interp, overview()) { 0 } else { 1 });
    };
    let mut text = String::new();
    if pattern::has_glob_chars(first, false) {
        let plural = if patterns.len() > 1 { "s" } else { "" };
        text.push_str(&format!(
            "Shell commands matching keyword{plural} `{}'\n\n",
            patterns.join(", ")
        ));
    }
    let mut found = 0;
    for p in patterns {
        for topic in matching(p) {
            found += 1;
            text.push_str(&show(topic, shape));
        }
    }
    let ok = out(interp, text);
    if found == 0 {
        let p = patterns.last().map_or("", |p| p.as_str());
        err(
            interp,
            format!(
                "help: no help topics match `{p}'.  Try `help help' or `man -k {p}' or `info {p}'."
            ),
        );
        return Ok(1);
    }
    Ok(if ok { 0 } else { 1 })
}

/// `NAME --help` for a builtin: bash answers it with `help NAME`'s text
/// and status 2, except for the builtins that take `--help` as data (`:`,
/// `true`, `false`, `echo`, `test`, `[`). `None`: run the builtin.
pub fn builtin_help(interp: &mut Interp, args: &[String]) -> Option<ExecResult> {
    let name = args.first()?.as_str();
    if matches!(name, ":" | "true" | "false" | "echo" | "test" | "[") || !asks_help(args) {
        return None;
    }
    let topic = TOPICS.iter().find(|(n, _, _)| *n == name)?;
    out(interp, show(topic, Shape::Long));
    Some(Ok(2))
}

/// Whether `--help` is among a builtin's options, as bash's
/// `internal_getopt` finds it: in the words before the first operand or
/// `--`, not as an option's argument (`read -p --help`). The builtins
/// without options (`shift`, `return`, ...) look at their first word only.
fn asks_help(args: &[String]) -> bool {
    let name = args[0].as_str();
    if matches!(
        name,
        "shift" | "return" | "exit" | "break" | "continue" | "logout"
    ) {
        return args.get(1).is_some_and(|a| a == "--help");
    }
    // Option letters that take the next word as their argument.
    let takes_arg = match name {
        "read" => "adeinNptu",
        "printf" => "v",
        "kill" => "sn",
        "mapfile" | "readarray" => "dnOsuCc",
        "hash" => "p",
        "complete" | "compgen" => "oAGWFCXPS",
        "compopt" | "set" => "o",
        "fc" => "e",
        "history" => "d",
        "exec" => "a",
        "wait" => "p",
        _ => "",
    };
    let mut words = args[1..].iter();
    while let Some(w) = words.next() {
        if w == "--help" {
            return true;
        }
        if w == "--" || w.len() < 2 || !w.starts_with('-') {
            return false;
        }
        if w.ends_with(|c| takes_arg.contains(c)) {
            words.next();
        }
    }
    false
}

/// The topics `pattern` names: those equal to it or matching it as a shell
/// pattern, or else those it is a prefix of.
fn matching(pattern: &str) -> Vec<&'static (&'static str, &'static str, &'static str)> {
    let opts = MatchOptions {
        extglob: true,
        nocase: false,
    };
    let exact: Vec<_> = TOPICS
        .iter()
        .filter(|(name, _, _)| *name == pattern || pattern::matches(pattern, name, opts))
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    TOPICS
        .iter()
        .filter(|(name, _, _)| name.starts_with(pattern))
        .collect()
}

fn show(topic: &(&str, &str, &str), shape: Shape) -> String {
    let (name, synopsis, description) = topic;
    match shape {
        Shape::Synopsis => format!("{name}: {synopsis}\n"),
        Shape::Description => format!("{name} - {description}\n"),
        Shape::Long => format!("{name}: {synopsis}\n    {description}\n\n"),
    }
}

fn overview() -> String {
    let mut text =
        String::from("sandkeep shell: bash builtins. Type `help name' for a synopsis.\n\n");
    for (_, synopsis, _) in TOPICS {
        text.push(' ');
        text.push_str(synopsis);
        text.push('\n');
    }
    text
}

/// bash 5.2's help topics: name, synopsis, description.
const TOPICS: &[(&str, &str, &str)] = &[
    ("%", "job_spec [&]", "Resume job in foreground."),
    (
        "(( ... ))",
        "(( expression ))",
        "Evaluate arithmetic expression.",
    ),
    (
        ".",
        ". filename [arguments]",
        "Execute commands from a file in the current shell.",
    ),
    (":", ":", "Null command."),
    ("[", "[ arg... ]", "Evaluate conditional expression."),
    (
        "[[ ... ]]",
        "[[ expression ]]",
        "Execute conditional command.",
    ),
    (
        "alias",
        "alias [-p] [name[=value] ... ]",
        "Define or display aliases.",
    ),
    ("bg", "bg [job_spec ...]", "Move jobs to the background."),
    (
        "bind",
        "bind [-lpsvPSVX] [-m keymap] [-f filename] [-q name] [-u name] [-r keyseq] [-x keyseq:shell-command] [keyseq:readline-function or readline-command]",
        "Set Readline key bindings and variables.",
    ),
    ("break", "break [n]", "Exit for, while, or until loops."),
    (
        "builtin",
        "builtin [shell-builtin [arg ...]]",
        "Execute shell builtins.",
    ),
    (
        "caller",
        "caller [expr]",
        "Return the context of the current subroutine call.",
    ),
    (
        "case",
        "case WORD in [PATTERN [| PATTERN]...) COMMANDS ;;]... esac",
        "Execute commands based on pattern matching.",
    ),
    (
        "cd",
        "cd [-L|[-P [-e]] [-@]] [dir]",
        "Change the shell working directory.",
    ),
    (
        "command",
        "command [-pVv] command [arg ...]",
        "Execute a simple command or display information about commands.",
    ),
    (
        "compgen",
        "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]",
        "Display possible completions depending on the options.",
    ),
    (
        "complete",
        "complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [name ...]",
        "Specify how arguments are to be completed by Readline.",
    ),
    (
        "compopt",
        "compopt [-o|+o option] [-DEI] [name ...]",
        "Modify or display completion options.",
    ),
    (
        "continue",
        "continue [n]",
        "Resume for, while, or until loops.",
    ),
    (
        "coproc",
        "coproc [NAME] command [redirections]",
        "Create a coprocess named NAME.",
    ),
    (
        "declare",
        "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]",
        "Set variable values and attributes.",
    ),
    ("dirs", "dirs [-clpv] [+N] [-N]", "Display directory stack."),
    (
        "disown",
        "disown [-h] [-ar] [jobspec ... | pid ...]",
        "Remove jobs from current shell.",
    ),
    (
        "echo",
        "echo [-neE] [arg ...]",
        "Write arguments to the standard output.",
    ),
    (
        "enable",
        "enable [-a] [-dnps] [-f filename] [name ...]",
        "Enable and disable shell builtins.",
    ),
    (
        "eval",
        "eval [arg ...]",
        "Execute arguments as a shell command.",
    ),
    (
        "exec",
        "exec [-cl] [-a name] [command [argument ...]] [redirection ...]",
        "Replace the shell with the given command.",
    ),
    ("exit", "exit [n]", "Exit the shell."),
    (
        "export",
        "export [-fn] [name[=value] ...] or export -p",
        "Set export attribute for shell variables.",
    ),
    ("false", "false", "Return an unsuccessful result."),
    (
        "fc",
        "fc [-e ename] [-lnr] [first] [last] or fc -s [pat=rep] [command]",
        "Display or execute commands from the history list.",
    ),
    ("fg", "fg [job_spec]", "Move job to the foreground."),
    (
        "for",
        "for NAME [in WORDS ... ] ; do COMMANDS; done",
        "Execute commands for each member in a list.",
    ),
    (
        "for ((",
        "for (( exp1; exp2; exp3 )); do COMMANDS; done",
        "Arithmetic for loop.",
    ),
    (
        "function",
        "function name { COMMANDS ; } or name () { COMMANDS ; }",
        "Define shell function.",
    ),
    (
        "getopts",
        "getopts optstring name [arg ...]",
        "Parse option arguments.",
    ),
    (
        "hash",
        "hash [-lr] [-p pathname] [-dt] [name ...]",
        "Remember or display program locations.",
    ),
    (
        "help",
        "help [-dms] [pattern ...]",
        "Display information about builtin commands.",
    ),
    (
        "history",
        "history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]",
        "Display or manipulate the history list.",
    ),
    (
        "if",
        "if COMMANDS; then COMMANDS; [ elif COMMANDS; then COMMANDS; ]... [ else COMMANDS; ] fi",
        "Execute commands based on conditional.",
    ),
    (
        "jobs",
        "jobs [-lnprs] [jobspec ...] or jobs -x command [args]",
        "Display status of jobs.",
    ),
    (
        "kill",
        "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]",
        "Send a signal to a job.",
    ),
    (
        "let",
        "let arg [arg ...]",
        "Evaluate arithmetic expressions.",
    ),
    (
        "local",
        "local [option] name[=value] ...",
        "Define local variables.",
    ),
    ("logout", "logout [n]", "Exit a login shell."),
    (
        "mapfile",
        "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
        "Read lines from the standard input into an indexed array variable.",
    ),
    (
        "popd",
        "popd [-n] [+N | -N]",
        "Remove directories from stack.",
    ),
    (
        "printf",
        "printf [-v var] format [arguments]",
        "Formats and prints ARGUMENTS under control of the FORMAT.",
    ),
    (
        "pushd",
        "pushd [-n] [+N | -N | dir]",
        "Add directories to stack.",
    ),
    (
        "pwd",
        "pwd [-LP]",
        "Print the name of the current working directory.",
    ),
    (
        "read",
        "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]",
        "Read a line from the standard input and split it into fields.",
    ),
    (
        "readarray",
        "readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
        "Read lines from a file into an array variable.",
    ),
    (
        "readonly",
        "readonly [-aAf] [name[=value] ...] or readonly -p",
        "Mark shell variables as unchangeable.",
    ),
    ("return", "return [n]", "Return from a shell function."),
    (
        "select",
        "select NAME [in WORDS ... ;] do COMMANDS; done",
        "Select words from a list and execute commands.",
    ),
    (
        "set",
        "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]",
        "Set or unset values of shell options and positional parameters.",
    ),
    ("shift", "shift [n]", "Shift positional parameters."),
    (
        "shopt",
        "shopt [-pqsu] [-o] [optname ...]",
        "Set and unset shell options.",
    ),
    (
        "source",
        "source filename [arguments]",
        "Execute commands from a file in the current shell.",
    ),
    ("suspend", "suspend [-f]", "Suspend shell execution."),
    ("test", "test [expr]", "Evaluate conditional expression."),
    (
        "time",
        "time [-p] pipeline",
        "Report time consumed by pipeline's execution.",
    ),
    ("times", "times", "Display process times."),
    (
        "trap",
        "trap [-lp] [[arg] signal_spec ...]",
        "Trap signals and other events.",
    ),
    ("true", "true", "Return a successful result."),
    (
        "type",
        "type [-afptP] name [name ...]",
        "Display information about command type.",
    ),
    (
        "typeset",
        "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]",
        "Set variable values and attributes.",
    ),
    (
        "ulimit",
        "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]",
        "Modify shell resource limits.",
    ),
    (
        "umask",
        "umask [-p] [-S] [mode]",
        "Display or set file mode mask.",
    ),
    (
        "unalias",
        "unalias [-a] name [name ...]",
        "Remove each NAME from the list of defined aliases.",
    ),
    (
        "unset",
        "unset [-f] [-v] [-n] [name ...]",
        "Unset values and attributes of shell variables and functions.",
    ),
    (
        "until",
        "until COMMANDS; do COMMANDS-2; done",
        "Execute commands as long as a test does not succeed.",
    ),
    (
        "variables",
        "variables - Names and meanings of some shell variables",
        "Common shell variable names and usage.",
    ),
    (
        "wait",
        "wait [-fn] [-p var] [id ...]",
        "Wait for job completion and return exit status.",
    ),
    (
        "while",
        "while COMMANDS; do COMMANDS-2; done",
        "Execute commands as long as a test succeeds.",
    ),
    ("{ ... }", "{ COMMANDS ; }", "Group commands as a unit."),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &str) -> Vec<&'static str> {
        matching(p).into_iter().map(|t| t.0).collect()
    }

    #[test]
    fn exact_names_and_patterns_come_first() {
        assert_eq!(names("read"), vec!["read"]);
        assert_eq!(names("r*"), vec!["read", "readarray", "readonly", "return"]);
    }

    #[test]
    fn prefixes_match_when_nothing_else_does() {
        assert_eq!(names("rea"), vec!["read", "readarray", "readonly"]);
        assert!(names("nosuch").is_empty());
    }
}
