//! The shell state a session keeps between runs, as an interactive bash
//! keeps it between command lines: the working directory and the directory
//! stack, variables (with their attributes, arrays included), functions,
//! aliases, `set -o`/`shopt` options and the `umask`. Traps, jobs and the
//! positional parameters are not kept.
//!
//! [`ShellState`] is the live form a run starts from and leaves its state
//! in (moved in and out, never copied, so a large state costs nothing per
//! run); [`ShellSnapshot`] the plain data form that outlives the process
//! (serde: functions as their source text, parsed again on restore).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use brush_parser::ast::Command;
use serde::{Deserialize, Serialize};

use super::options::{Options, SET_O_OPTIONS, SHOPT_OPTIONS};
use super::vars::{Attrs, Value, Var, Vars};
use super::{Function, Interp};

/// Variables a run sets itself (identity, dynamic and per-run values):
/// never carried from one run to the next, so a snapshot taken by another
/// bash (the docker backend's) restores the same way as ours.
pub const UNKEPT_VARIABLES: &[&str] = &[
    "_",
    "BASH",
    "BASHOPTS",
    "BASHPID",
    "BASH_ALIASES",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_ARGV0",
    "BASH_CMDS",
    "BASH_COMMAND",
    "BASH_EXECUTION_STRING",
    "BASH_LINENO",
    "BASH_REMATCH",
    "BASH_SOURCE",
    "BASH_SUBSHELL",
    "BASH_VERSINFO",
    "BASH_VERSION",
    "COLUMNS",
    "COMP_WORDBREAKS",
    "DIRSTACK",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "EUID",
    "FUNCNAME",
    "GROUPS",
    "HISTCMD",
    "HOSTNAME",
    "HOSTTYPE",
    "LINENO",
    "LINES",
    "MACHTYPE",
    "OSTYPE",
    "PIPESTATUS",
    "PPID",
    "PWD",
    "RANDOM",
    "SECONDS",
    "SHELLOPTS",
    "SHLVL",
    "SRANDOM",
    "UID",
];

/// The hidden variable the `umask` builtin keeps its mask in.
const UMASK_VAR: &str = "\u{1}umask";

/// A session's shell state between runs. `Default` is a new shell's.
#[derive(Clone, Default)]
pub struct ShellState(pub(crate) Option<Box<Kept>>);

impl std::fmt::Debug for ShellState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => f.write_str("ShellState(new)"),
            Some(k) => f
                .debug_struct("ShellState")
                .field("cwd", &k.cwd)
                .field("functions", &k.funcs.len())
                .field("aliases", &k.aliases.len())
                .finish_non_exhaustive(),
        }
    }
}

/// What a run left: the top shell's own state.
#[derive(Clone)]
pub(crate) struct Kept {
    pub(crate) vars: Vars,
    pub(crate) funcs: HashMap<String, Function>,
    pub(crate) aliases: HashMap<String, String>,
    pub(crate) opts: Options,
    pub(crate) cwd: String,
    pub(crate) dir_stack: Vec<String>,
}

impl Kept {
    /// Takes what a run's top shell reached (its global variables only: a
    /// run cut inside a function leaves that function's locals behind).
    pub(crate) fn take_from(sh: &mut Interp) -> Kept {
        let mut vars = std::mem::take(&mut sh.vars);
        vars.keep_global_scope();
        let mut opts = std::mem::take(&mut sh.opts);
        // The history list is the interactive shell's, not the session's.
        opts.history.clear();
        opts.history_new = 0;
        opts.history_line_added = false;
        Kept {
            vars,
            funcs: std::mem::take(&mut sh.funcs),
            aliases: std::mem::take(&mut sh.aliases),
            opts,
            cwd: std::mem::take(&mut sh.cwd),
            dir_stack: std::mem::take(&mut sh.dir_stack),
        }
    }
}

/// Why a snapshot could not be restored.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// A function's source text does not parse as one function definition.
    #[error("function {name}: its source does not parse as a function definition")]
    Function {
        /// The function's name.
        name: String,
    },
}

impl ShellState {
    /// True for a new shell's state (no run has left anything yet).
    pub fn is_new(&self) -> bool {
        self.0.is_none()
    }

    /// The state as plain data, `None` for a new shell's.
    pub fn snapshot(&self) -> Option<ShellSnapshot> {
        let k = self.0.as_ref()?;
        let mut variables = Vec::new();
        let mut umask = None;
        for (name, var) in k.vars.visible() {
            if name == UMASK_VAR {
                umask = var
                    .value
                    .as_ref()
                    .and_then(Value::as_scalar)
                    .and_then(|s| u32::from_str_radix(s, 8).ok());
                continue;
            }
            if UNKEPT_VARIABLES.contains(&name.as_str()) {
                continue;
            }
            variables.push(SnapshotVar {
                attrs: attr_letters(var.attrs),
                value: var.value.as_ref().map(SnapshotValue::of),
                name,
            });
        }
        let mut functions: Vec<SnapshotFunction> = k
            .funcs
            .iter()
            .map(|(name, def)| SnapshotFunction {
                name: name.clone(),
                source: super::parse::function_text(def),
            })
            .collect();
        functions.sort_by(|a, b| a.name.cmp(&b.name));
        let defaults = Options::default();
        let changed = |list: &[(&str, bool)], get: &dyn Fn(&Options, &str) -> Option<bool>| {
            list.iter()
                .filter_map(|(n, _)| {
                    let now = get(&k.opts, n)?;
                    (get(&defaults, n) != Some(now)).then(|| (n.to_string(), now))
                })
                .collect::<BTreeMap<String, bool>>()
        };
        Some(ShellSnapshot {
            cwd: k.cwd.clone(),
            dir_stack: k.dir_stack.clone(),
            umask,
            variables,
            functions,
            aliases: k
                .aliases
                .iter()
                .map(|(a, b)| (a.clone(), b.clone()))
                .collect(),
            set_options: changed(SET_O_OPTIONS, &|o, n| o.get_set_option(n)),
            shopt_options: changed(SHOPT_OPTIONS, &|o, n| o.get_shopt(n)),
        })
    }

    /// The state a snapshot describes. Identity and dynamic variables
    /// ([`UNKEPT_VARIABLES`]) in it are ignored; a function whose source
    /// does not parse is an error.
    pub fn from_snapshot(snapshot: &ShellSnapshot) -> Result<ShellState, SnapshotError> {
        let mut vars = Vars::default();
        for v in &snapshot.variables {
            if UNKEPT_VARIABLES.contains(&v.name.as_str()) || v.name.starts_with('\u{1}') {
                continue;
            }
            let var = vars.global_entry(&v.name);
            *var = Var {
                value: v.value.as_ref().map(SnapshotValue::to_value),
                attrs: attrs_of(&v.attrs),
            };
        }
        if let Some(mask) = snapshot.umask {
            let _ = vars.set(UMASK_VAR, Value::Str(format!("{:04o}", mask & 0o777)));
        }
        let mut funcs = HashMap::new();
        for f in &snapshot.functions {
            let def = parse_function(&f.source).ok_or_else(|| SnapshotError::Function {
                name: f.name.clone(),
            })?;
            funcs.insert(f.name.clone(), def);
        }
        let mut opts = Options::default();
        for (name, on) in &snapshot.set_options {
            opts.set_set_option(name, *on);
        }
        for (name, on) in &snapshot.shopt_options {
            opts.set_shopt(name, *on);
        }
        Ok(ShellState(Some(Box::new(Kept {
            vars,
            funcs,
            aliases: snapshot.aliases.clone().into_iter().collect(),
            opts,
            cwd: if snapshot.cwd.starts_with('/') {
                snapshot.cwd.clone()
            } else {
                "/workspace".to_string()
            },
            dir_stack: snapshot.dir_stack.clone(),
        }))))
    }
}

/// The one function definition `source` holds.
fn parse_function(source: &str) -> Option<Function> {
    let program = super::parse::parse_whole(source)?;
    let [list] = program.complete_commands.as_slice() else {
        return None;
    };
    let [item] = list.0.as_slice() else {
        return None;
    };
    if !item.0.additional.is_empty() {
        return None;
    }
    match item.0.first.seq.as_slice() {
        [Command::Function(def)] => Some(Arc::new(def.clone())),
        _ => None,
    }
}

/// `declare`'s attribute letters, in its order.
const ATTR_LETTERS: &[(char, Attrs)] = &[
    ('a', Attrs::INDEXED),
    ('A', Attrs::ASSOC),
    ('i', Attrs::INTEGER),
    ('l', Attrs::LOWER),
    ('n', Attrs::NAMEREF),
    ('r', Attrs::READONLY),
    ('t', Attrs::TRACE),
    ('u', Attrs::UPPER),
    ('x', Attrs::EXPORT),
];

fn attr_letters(attrs: Attrs) -> String {
    ATTR_LETTERS
        .iter()
        .filter(|(_, a)| attrs.has(*a))
        .map(|(c, _)| *c)
        .collect()
}

fn attrs_of(letters: &str) -> Attrs {
    let mut attrs = Attrs::default();
    for (c, a) in ATTR_LETTERS {
        if letters.contains(*c) {
            attrs.insert(*a);
        }
    }
    attrs
}

/// A session's shell state as plain data (see the module's header): what
/// the store keeps when a session parks, the same on every backend.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellSnapshot {
    /// The working directory (absolute).
    pub cwd: String,
    /// The `pushd` stack below the working directory, top first.
    #[serde(default)]
    pub dir_stack: Vec<String>,
    /// The file-creation mask, when set.
    #[serde(default)]
    pub umask: Option<u32>,
    /// Variables, sorted by name.
    #[serde(default)]
    pub variables: Vec<SnapshotVar>,
    /// Functions, sorted by name.
    #[serde(default)]
    pub functions: Vec<SnapshotFunction>,
    /// Aliases by name.
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
    /// `set -o` options changed from a new shell's.
    #[serde(default)]
    pub set_options: BTreeMap<String, bool>,
    /// `shopt` options changed from a new shell's.
    #[serde(default)]
    pub shopt_options: BTreeMap<String, bool>,
}

/// One variable of a [`ShellSnapshot`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotVar {
    /// Its name.
    pub name: String,
    /// `declare`'s attribute letters (`aAilnrtux`).
    #[serde(default)]
    pub attrs: String,
    /// Its value; `None` when declared without one (`declare -a a`).
    #[serde(default)]
    pub value: Option<SnapshotValue>,
}

/// A variable's value in a [`ShellSnapshot`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotValue {
    /// A string.
    Scalar(String),
    /// An indexed array: (index, value) in index order.
    Indexed(Vec<(i64, String)>),
    /// An associative array: (key, value) in the shell's order.
    Assoc(Vec<(String, String)>),
}

impl SnapshotValue {
    fn of(value: &Value) -> SnapshotValue {
        match value {
            Value::Str(s) => SnapshotValue::Scalar(s.clone()),
            Value::Indexed(a) => {
                SnapshotValue::Indexed(a.iter().map(|(k, v)| (*k, v.clone())).collect())
            }
            Value::Assoc(a) => {
                SnapshotValue::Assoc(a.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            }
        }
    }

    fn to_value(&self) -> Value {
        match self {
            SnapshotValue::Scalar(s) => Value::Str(s.clone()),
            SnapshotValue::Indexed(a) => Value::Indexed(a.iter().cloned().collect()),
            SnapshotValue::Assoc(a) => Value::Assoc(a.iter().cloned().collect()),
        }
    }
}

/// One function of a [`ShellSnapshot`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotFunction {
    /// Its name.
    pub name: String,
    /// Its definition as `declare -f` prints it.
    pub source: String,
}
