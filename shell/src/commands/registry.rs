//! The registry: every program of `/usr/bin` as a [`Command`] row (name,
//! `--help` convention, entry point), the families' tables merged into one
//! lookup, and the per-shell [`Registry`] that adds an embedder's programs.
//!
//! `--help` is settled here, before a command runs, by the row's [`Help`]:
//! the commands themselves only parse their own options. The conventions
//! are GNU's (`getopt_long` permuting, `+` stopping at the first operand,
//! `argc == 2` for echo/printf/true/false/`[`), so a command's row says
//! which one its GNU original follows.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::common::TableHelp;
use super::{CommandCtx, CommandFn, CustomCommand};

/// How a command answers `--help`.
#[derive(Clone, Copy, Debug)]
pub enum Help {
    /// GNU `getopt_long` with permutation: an exact `--help` anywhere before
    /// `--` prints the text and exits 0 (`ls -l --help`, `sort f --help`).
    Options(&'static str),
    /// As [`Help::Options`], with the text rendered from the command's
    /// declared option table ([`crate::declare_options!`]).
    Table(TableHelp),
    /// Options stop at the first operand, which the command runs or reads
    /// as data (`env`, `timeout`, `xargs`, `seq`): `--help` counts only
    /// before it, so `env ls --help` runs `ls --help`.
    BeforeOperand(&'static str),
    /// `--help` as the only argument, with this status (GNU `echo`,
    /// `printf`, `true`, `false`, `[`, `expr`): any other use is data.
    Alone(&'static str, i32),
    /// The command follows its own convention (`bc -h`, Info-ZIP's `zip`,
    /// `bzip2`'s banner, the host-only stubs), so the word is passed on.
    Own,
}

impl Help {
    /// The text and status to answer `args` with, if they ask for help.
    fn asked(self, args: &[String]) -> Option<(&'static str, i32)> {
        let words = args.get(1..).unwrap_or_default();
        match self {
            Help::Options(text) => words
                .iter()
                .take_while(|a| *a != "--")
                .any(|a| a == "--help")
                .then_some((text, 0)),
            Help::Table(table) => words
                .iter()
                .take_while(|a| *a != "--")
                .any(|a| a == "--help")
                .then(|| ((table.text)(), 0)),
            Help::BeforeOperand(text) => words
                .iter()
                .take_while(|a| *a != "--" && a.len() > 1 && a.starts_with('-'))
                .any(|a| a == "--help")
                .then_some((text, 0)),
            Help::Alone(text, status) => {
                (words.len() == 1 && words[0] == "--help").then_some((text, status))
            }
            Help::Own => None,
        }
    }
}

/// One program of `/usr/bin`: its name, its `--help`, its entry point.
#[derive(Clone, Copy, Debug)]
pub struct Command {
    /// The name it is found by (`argv[0]`'s last component).
    pub name: &'static str,
    /// How it answers `--help`.
    pub help: Help,
    /// The entry point; gets the arguments (help already answered).
    pub run: CommandFn,
}

impl Command {
    /// A GNU-style command: `--help` among its options prints `usage`.
    /// (Named for the convention, beside `stopping`, `alone` and `own`.)
    pub const fn gnu(name: &'static str, usage: &'static str, run: CommandFn) -> Command {
        Command {
            name,
            help: Help::Options(usage),
            run,
        }
    }

    /// A GNU-style command whose options, parser and `--help` come from one
    /// declared table ([`Help::Table`]).
    pub const fn declared(name: &'static str, table: TableHelp, run: CommandFn) -> Command {
        Command {
            name,
            help: Help::Table(table),
            run,
        }
    }

    /// A command whose options stop at the first operand ([`Help::BeforeOperand`]).
    pub const fn stopping(name: &'static str, usage: &'static str, run: CommandFn) -> Command {
        Command {
            name,
            help: Help::BeforeOperand(usage),
            run,
        }
    }

    /// A command with help only as its sole argument ([`Help::Alone`]).
    pub const fn alone(
        name: &'static str,
        usage: &'static str,
        status: i32,
        run: CommandFn,
    ) -> Command {
        Command {
            name,
            help: Help::Alone(usage, status),
            run,
        }
    }

    /// A command that answers `--help` itself, or not at all ([`Help::Own`]).
    pub const fn own(name: &'static str, run: CommandFn) -> Command {
        Command {
            name,
            help: Help::Own,
            run,
        }
    }

    /// Runs the command: its help when the arguments ask for it, otherwise
    /// its entry point.
    pub fn call(&self, ctx: &mut CommandCtx<'_>) -> i32 {
        match self.help.asked(ctx.args) {
            Some((text, status)) => {
                let _ = ctx.stdout.write_all(text.as_bytes());
                let _ = ctx.stdout.flush();
                status
            }
            None => {
                let caller = super::files::common::set_locale(ctx);
                let status = (self.run)(ctx);
                super::files::common::restore_locale(caller);
                status
            }
        }
    }
}

/// Every command family's table, in lookup order.
const FAMILIES: &[&[Command]] = &[
    super::files::COMMANDS,
    super::archive::COMMANDS,
    super::system::COMMANDS,
    super::text::COMMANDS,
    super::shellutils::COMMANDS,
    super::json::COMMANDS,
    super::awk::COMMANDS,
    super::find::COMMANDS,
    super::misc::COMMANDS,
    super::rg::COMMANDS,
    super::patch::COMMANDS,
    super::envsubst::COMMANDS,
    super::pager::COMMANDS,
    super::basenc::COMMANDS,
    super::iconv::COMMANDS,
    super::diff3::COMMANDS,
    super::make::COMMANDS,
    super::ps::COMMANDS,
];

/// Every built-in command, sorted by name: one sort per process, where a
/// hash map cost a hash of every name and `names` a sort on top (both on
/// every process's first sandbox). No name is in two families (a test).
fn sorted() -> &'static [&'static Command] {
    static SORTED: OnceLock<Vec<&'static Command>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut v: Vec<&'static Command> =
            FAMILIES.iter().flat_map(|family| family.iter()).collect();
        v.sort_unstable_by_key(|c| c.name);
        v
    })
}

/// The built-in command called `name`, if there is one.
pub fn lookup(name: &str) -> Option<&'static Command> {
    let commands = sorted();
    commands
        .binary_search_by_key(&name, |c| c.name)
        .ok()
        .map(|i| commands[i])
}

/// The names of all built-in commands, sorted.
pub fn names() -> Vec<&'static str> {
    sorted().iter().map(|c| c.name).collect()
}

/// A program the registry found.
#[derive(Clone)]
pub enum Program {
    /// A built-in command.
    Builtin(&'static Command),
    /// One the embedder added ([`crate::ShellConfig::command`]).
    Custom(CustomCommand),
}

/// One shell's programs: the built-in commands plus the embedder's, which
/// take precedence over a built-in of the same name.
#[derive(Clone, Default)]
pub struct Registry {
    custom: HashMap<String, CustomCommand>,
}

impl Registry {
    /// The built-in commands plus `custom`.
    pub fn new(custom: &[(String, CustomCommand)]) -> Registry {
        Registry {
            custom: custom.iter().cloned().collect(),
        }
    }

    /// The program called `name`.
    pub fn get(&self, name: &str) -> Option<Program> {
        match self.custom.get(name) {
            Some(f) => Some(Program::Custom(f.clone())),
            None => lookup(name).map(Program::Builtin),
        }
    }

    /// The embedder's program names, in no particular order.
    pub fn custom_names(&self) -> impl Iterator<Item = &str> {
        self.custom.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_in_one_family_and_found() {
        let names = names();
        assert!(names.len() > 100, "{}", names.len());
        let twice: Vec<_> = names.windows(2).filter(|w| w[0] == w[1]).collect();
        assert!(twice.is_empty(), "in two families: {twice:?}");
        for family in FAMILIES {
            for command in *family {
                let found = lookup(command.name).map(|c| c.name);
                assert_eq!(found, Some(command.name));
            }
        }
        assert!(lookup("no-such-command").is_none());
        assert!(lookup("").is_none());
    }
}
