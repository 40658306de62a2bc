//! The session's shell state on the docker backend: every agent run is a
//! fresh `bash -c` exec, so the state is captured at the end of a run (an
//! EXIT trap writes bash's own `declare -p`, `declare -f`, `alias -p`,
//! `shopt -p`, `shopt -po`, `umask`, the directory stack and the cwd to a
//! file in the container) and sourced at the start of the next.
//!
//! At a park the state is read out as data ([`ShellSnapshot`], the same
//! format the local backend keeps, so a session record has one format): a
//! fresh shell sources the saved state and prints each variable, function,
//! alias and option NUL-separated. At a resume the snapshot becomes the
//! saved state again, written by Rust in bash's syntax.
//!
//! Not carried here: the state of a run the timeout killed (its trap never
//! runs; the next run starts from the state before it), and of a run that
//! set its own EXIT trap (it replaced the capture).

use std::collections::BTreeMap;

use sandkeep_shell::{ShellSnapshot, SnapshotFunction, SnapshotValue, SnapshotVar};

/// Where the saved state lives in the container.
pub const STATE_DIR: &str = "/tmp/.sandkeep-shell";

/// Variables of the wrapper itself, of the run's plumbing and bash's own
/// (`BASH*`), never kept.
fn unkept(name: &str) -> bool {
    name.starts_with("__sk_")
        || name.starts_with("BASH")
        || name == super::exec::RUN_MARKER
        || sandkeep_shell::UNKEPT_VARIABLES.contains(&name)
}

/// The wrapper a kept-state run executes as `bash -c WRAPPER bash COMMAND
/// CWD NAME...`: restores the saved state, sets the run's own variables
/// (NAME... from the exec's environment) again on top, changes to CWD
/// when given, arms the capture and runs COMMAND in this shell.
const WRAPPER: &str = r#"__sk_env=$(for __sk_n in "${@:3}"; do declare -p "$__sk_n" 2>/dev/null; done)
if [ -r /tmp/.sandkeep-shell/state.sh ]; then . /tmp/.sandkeep-shell/state.sh >/dev/null 2>&1; fi
eval "$__sk_env"
__sk_cmd=$1 __sk_cwd=$2
if [ -n "$__sk_cwd" ]; then cd -- "$__sk_cwd" 2>/dev/null || { printf 'bash: line 0: cd: %s: No such file or directory\n' "$__sk_cwd" >&2; cd /workspace; }; fi
unset __sk_env __sk_n __sk_cwd
trap '{ __sk_st=$? __sk_o=$(shopt -p; shopt -po); set +xv; unset __sk_cmd; } 2>/dev/null; mkdir -p /tmp/.sandkeep-shell && {
 printf "cd -- %q 2>/dev/null\n" "$PWD"
 declare -p
 for __sk_f in $(compgen -A function); do declare -f "$__sk_f"; done
 alias -p
 printf "umask %s\n" "$(umask)"
 for ((__sk_i=${#DIRSTACK[@]}-1; __sk_i>0; __sk_i--)); do printf "pushd -n -- %q >/dev/null\n" "${DIRSTACK[__sk_i]}"; done
} >| /tmp/.sandkeep-shell/state.new 2>/dev/null && printf "%s\n" "$__sk_o" >| /tmp/.sandkeep-shell/opts.new 2>/dev/null && mv -f /tmp/.sandkeep-shell/state.new /tmp/.sandkeep-shell/state.sh && mv -f /tmp/.sandkeep-shell/opts.new /tmp/.sandkeep-shell/opts.sh; exit $__sk_st' EXIT
set --
if [ -r /tmp/.sandkeep-shell/opts.sh ]; then . /tmp/.sandkeep-shell/opts.sh >/dev/null 2>&1; fi
eval "$__sk_cmd""#;

/// The argv of a run that keeps the session's shell state: `command` in
/// the saved shell, `cwd` when the request names one, the request's
/// variables (`env_names`) set again over the restored ones.
pub fn keeping_argv(command: &str, cwd: Option<&str>, env_names: &[String]) -> Vec<String> {
    let mut argv = vec![
        "bash".to_string(),
        "-c".to_string(),
        WRAPPER.to_string(),
        "bash".to_string(),
        command.to_string(),
        cwd.unwrap_or_default().to_string(),
    ];
    argv.extend(
        env_names
            .iter()
            .filter(|n| sandkeep_shell::UNKEPT_VARIABLES.iter().all(|u| u != n))
            .cloned(),
    );
    argv
}

/// A fresh shell's script that prints the saved state NUL-separated (see
/// [`parse_dump`]), or exits 3 when there is none.
pub const DUMP_SCRIPT: &str = r#"[ -r /tmp/.sandkeep-shell/state.sh ] || exit 3
. /tmp/.sandkeep-shell/state.sh >/dev/null 2>&1
printf 'C\0%s\0U\0%s\0' "$PWD" "$(umask)"
for __sk_d in "${DIRSTACK[@]:1}"; do printf 'D\0%s\0' "$__sk_d"; done
for __sk_a in "${!BASH_ALIASES[@]}"; do printf 'A\0%s\0%s\0' "$__sk_a" "${BASH_ALIASES[$__sk_a]}"; done
for __sk_f in $(compgen -A function); do printf 'F\0%s\0%s\0' "$__sk_f" "$(declare -f "$__sk_f")"; done
while read -r _ __sk_o __sk_n; do printf 'S\0%s\0%s\0' "$__sk_n" "$__sk_o"; done < <(. /tmp/.sandkeep-shell/opts.sh >/dev/null 2>&1; shopt -p)
while read -r _ __sk_o __sk_n; do printf 'O\0%s\0%s\0' "$__sk_n" "$__sk_o"; done < <(. /tmp/.sandkeep-shell/opts.sh >/dev/null 2>&1; shopt -po)
for __sk_v in $(compgen -v); do
  case $__sk_v in __sk_*) continue;; esac
  __sk_p=$(declare -p "$__sk_v" 2>/dev/null) || continue
  __sk_fl=${__sk_p#declare -}; __sk_fl=${__sk_fl%% *}; [ "$__sk_fl" = - ] && __sk_fl=
  printf 'V\0%s\0%s\0' "$__sk_v" "$__sk_fl"
  case $__sk_fl in
    *n*) __sk_t=${__sk_p#*=\"}; [ "$__sk_t" != "$__sk_p" ] && printf '=\0%s\0' "${__sk_t%\"}" ;;
    *[aA]*) eval "for __sk_k in \"\${!$__sk_v[@]}\"; do printf 'K\0%s\0%s\0' \"\$__sk_k\" \"\${$__sk_v[\$__sk_k]}\"; done" ;;
    *) [ -n "${!__sk_v+x}" ] && printf '=\0%s\0' "${!__sk_v}" ;;
  esac
done
"#;

/// Reads [`DUMP_SCRIPT`]'s output into a snapshot. Options are kept only
/// where they differ from a new `bash -c`'s, as the local backend keeps
/// them.
pub fn parse_dump(bytes: &[u8]) -> ShellSnapshot {
    let text = String::from_utf8_lossy(bytes);
    let mut fields = text.split('\0');
    let mut snap = ShellSnapshot::default();
    let mut current: Option<SnapshotVar> = None;
    let finish = |snap: &mut ShellSnapshot, var: Option<SnapshotVar>| {
        if let Some(v) = var
            && !unkept(&v.name)
        {
            snap.variables.push(v);
        }
    };
    while let Some(tag) = fields.next() {
        match tag {
            "C" => snap.cwd = fields.next().unwrap_or("/workspace").to_string(),
            "U" => snap.umask = fields.next().and_then(|m| u32::from_str_radix(m, 8).ok()),
            "D" => snap.dir_stack.extend(fields.next().map(str::to_string)),
            "A" => {
                let (name, value) = (fields.next(), fields.next());
                if let (Some(n), Some(v)) = (name, value) {
                    snap.aliases.insert(n.to_string(), v.to_string());
                }
            }
            "F" => {
                let (name, source) = (fields.next(), fields.next());
                if let (Some(n), Some(s)) = (name, source) {
                    snap.functions.push(SnapshotFunction {
                        name: n.to_string(),
                        source: s.to_string(),
                    });
                }
            }
            "S" | "O" => {
                let (name, how) = (fields.next(), fields.next());
                if let (Some(n), Some(h)) = (name, how) {
                    let on = h == "-s" || h == "-o";
                    let map = if tag == "S" {
                        &mut snap.shopt_options
                    } else {
                        &mut snap.set_options
                    };
                    map.insert(n.to_string(), on);
                }
            }
            "V" => {
                finish(&mut snap, current.take());
                let (name, attrs) = (fields.next(), fields.next());
                if let (Some(n), Some(a)) = (name, attrs) {
                    let value = if a.contains('A') {
                        Some(SnapshotValue::Assoc(Vec::new()))
                    } else if a.contains('a') {
                        Some(SnapshotValue::Indexed(Vec::new()))
                    } else {
                        None
                    };
                    current = Some(SnapshotVar {
                        name: n.to_string(),
                        attrs: a.to_string(),
                        value,
                    });
                }
            }
            "=" => {
                let value = fields.next().unwrap_or_default().to_string();
                if let Some(v) = current.as_mut() {
                    v.value = Some(SnapshotValue::Scalar(value));
                }
            }
            "K" => {
                let (k, value) = (fields.next(), fields.next());
                if let (Some(k), Some(value), Some(v)) = (k, value, current.as_mut()) {
                    match &mut v.value {
                        Some(SnapshotValue::Assoc(a)) => a.push((k.to_string(), value.to_string())),
                        Some(SnapshotValue::Indexed(a)) => {
                            if let Ok(i) = k.parse() {
                                a.push((i, value.to_string()));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    finish(&mut snap, current.take());
    // An array declared without elements has no value (as `declare -a a`).
    for v in &mut snap.variables {
        if matches!(&v.value, Some(SnapshotValue::Assoc(a)) if a.is_empty())
            || matches!(&v.value, Some(SnapshotValue::Indexed(a)) if a.is_empty())
        {
            v.value = None;
        }
    }
    snap.variables.sort_by(|a, b| a.name.cmp(&b.name));
    snap.functions.sort_by(|a, b| a.name.cmp(&b.name));
    let defaults = new_shell_options();
    snap.set_options
        .retain(|n, on| defaults.0.get(n.as_str()) != Some(on));
    snap.shopt_options
        .retain(|n, on| defaults.1.get(n.as_str()) != Some(on));
    snap
}

/// A new `bash -c`'s `set -o` and `shopt` options that are on (bash 5.2;
/// every other known option is off).
fn new_shell_options() -> (BTreeMap<&'static str, bool>, BTreeMap<&'static str, bool>) {
    let set_on = ["braceexpand", "hashall", "interactive-comments"];
    let shopt_on = [
        "checkwinsize",
        "cmdhist",
        "complete_fullquote",
        "extquote",
        "force_fignore",
        "globasciiranges",
        "globskipdots",
        "hostcomplete",
        "interactive_comments",
        "patsub_replacement",
        "progcomp",
        "promptvars",
        "sourcepath",
    ];
    let mut set = BTreeMap::new();
    let mut shopt = BTreeMap::new();
    for n in SET_O_NAMES {
        set.insert(*n, set_on.contains(n));
    }
    for n in SHOPT_NAMES {
        shopt.insert(*n, shopt_on.contains(n));
    }
    (set, shopt)
}

const SET_O_NAMES: &[&str] = &[
    "allexport",
    "braceexpand",
    "emacs",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "histexpand",
    "history",
    "ignoreeof",
    "interactive-comments",
    "keyword",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "onecmd",
    "physical",
    "pipefail",
    "posix",
    "privileged",
    "verbose",
    "vi",
    "xtrace",
];

const SHOPT_NAMES: &[&str] = &[
    "autocd",
    "assoc_expand_once",
    "cdable_vars",
    "cdspell",
    "checkhash",
    "checkjobs",
    "checkwinsize",
    "cmdhist",
    "compat31",
    "compat32",
    "compat40",
    "compat41",
    "compat42",
    "compat43",
    "compat44",
    "complete_fullquote",
    "direxpand",
    "dirspell",
    "dotglob",
    "execfail",
    "expand_aliases",
    "extdebug",
    "extglob",
    "extquote",
    "failglob",
    "force_fignore",
    "globasciiranges",
    "globskipdots",
    "globstar",
    "gnu_errfmt",
    "histappend",
    "histreedit",
    "histverify",
    "hostcomplete",
    "huponexit",
    "inherit_errexit",
    "interactive_comments",
    "lastpipe",
    "lithist",
    "localvar_inherit",
    "localvar_unset",
    "login_shell",
    "mailwarn",
    "no_empty_cmd_completion",
    "nocaseglob",
    "nocasematch",
    "noexpand_translation",
    "nullglob",
    "patsub_replacement",
    "progcomp",
    "progcomp_alias",
    "promptvars",
    "restricted_shell",
    "shift_verbose",
    "sourcepath",
    "varredir_close",
    "xpg_echo",
];

/// `text` in single quotes, for bash.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The saved state's two files (`state.sh`, `opts.sh`) for `snapshot`, in
/// the syntax the capture writes.
pub fn restore_files(snapshot: &ShellSnapshot) -> (String, String) {
    let mut state = format!("cd -- {} 2>/dev/null\n", quote(&snapshot.cwd));
    for v in &snapshot.variables {
        if unkept(&v.name) || !is_name(&v.name) {
            continue;
        }
        let flags: String = v
            .attrs
            .chars()
            .filter(|c| "aAilnrtux".contains(*c))
            .collect();
        let flags = if flags.is_empty() {
            "--".to_string()
        } else {
            format!("-{flags}")
        };
        let value = match &v.value {
            None => String::new(),
            Some(SnapshotValue::Scalar(s)) => format!("={}", quote(s)),
            Some(SnapshotValue::Indexed(a)) => {
                let items: Vec<String> = a
                    .iter()
                    .map(|(k, x)| format!("[{k}]={}", quote(x)))
                    .collect();
                format!("=({})", items.join(" "))
            }
            Some(SnapshotValue::Assoc(a)) => {
                let items: Vec<String> = a
                    .iter()
                    .map(|(k, x)| format!("[{}]={}", quote(k), quote(x)))
                    .collect();
                format!("=({})", items.join(" "))
            }
        };
        state.push_str(&format!("declare {flags} {}{value}\n", v.name));
    }
    for f in &snapshot.functions {
        state.push_str(&f.source);
        state.push('\n');
    }
    for (name, value) in &snapshot.aliases {
        state.push_str(&format!("alias {}={}\n", quote(name), quote(value)));
    }
    if let Some(mask) = snapshot.umask {
        state.push_str(&format!("umask {mask:04o}\n"));
    }
    for dir in snapshot.dir_stack.iter().rev() {
        state.push_str(&format!("pushd -n -- {} >/dev/null\n", quote(dir)));
    }
    let mut opts = String::new();
    for (name, on) in &snapshot.shopt_options {
        opts.push_str(&format!(
            "shopt -{} {}\n",
            if *on { 's' } else { 'u' },
            quote(name)
        ));
    }
    for (name, on) in &snapshot.set_options {
        opts.push_str(&format!(
            "set {}o {}\n",
            if *on { '-' } else { '+' },
            quote(name)
        ));
    }
    (state, opts)
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_reads_into_a_snapshot() {
        let dump = b"C\0/workspace/p\0U\x000027\0D\0/workspace\0A\0ll\0ls -1\0F\0f\0f () \n{ \n    echo f\n}\0\
S\0nullglob\0-s\0S\0cmdhist\0-s\0O\0pipefail\0-o\0O\0hashall\0-o\0\
V\0X\0x\0=\0one\0V\0ARR\0a\0K\x000\0a\0K\x003\0b c\0V\0M\0A\0K\0k\0v\0V\0R\0n\0=\0X\0V\0UID\0ir\0=\x001000\0V\0E\0a\0";
        let s = parse_dump(dump);
        assert_eq!(s.cwd, "/workspace/p");
        assert_eq!(s.umask, Some(0o27));
        assert_eq!(s.dir_stack, ["/workspace"]);
        assert_eq!(s.aliases["ll"], "ls -1");
        assert_eq!(s.functions[0].name, "f");
        assert_eq!(s.shopt_options.len(), 1, "only changed options: {s:?}");
        assert_eq!(s.set_options.get("pipefail"), Some(&true));
        let names: Vec<&str> = s.variables.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["ARR", "E", "M", "R", "X"]);
        assert_eq!(
            s.variables[0].value,
            Some(SnapshotValue::Indexed(vec![
                (0, "a".into()),
                (3, "b c".into())
            ]))
        );
        assert_eq!(s.variables[1].value, None);
        let (state, opts) = restore_files(&s);
        assert!(
            state.contains("declare -a ARR=([0]='a' [3]='b c')\n"),
            "{state}"
        );
        assert!(state.contains("declare -n R='X'\n"), "{state}");
        assert!(opts.contains("set -o 'pipefail'\n"), "{opts}");
    }
}
