//! `make` (GNU make 4.3) for Makefiles whose recipes are shell commands:
//! the makefile is read (`read`), its text expanded (`expand`) and the
//! goals brought up to date by modification time, recipes running in the
//! sandbox's own shell (`build`). Messages and statuses are GNU's: `Nothing
//! to be done`, `is up to date`, `No rule to make target` and a failing
//! recipe's `*** [FILE:LINE: TARGET] Error N` with status 2.
//!
//! Not here: built-in implicit rules (`-r` is the only mode), parallel
//! jobs (`-j` runs one at a time), archive members, `vpath`.

mod build;
mod expand;
mod read;

use std::collections::{HashMap, HashSet};

use super::{Command, CommandCtx};
use crate::fs::Fs;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::declared("make", MakeOpt::HELP, make)];

declare_options! {
    /// GNU make's options (those a Makefile of shell recipes needs; the
    /// others are accepted and do nothing).
    pub(crate) enum MakeOpt {
        usage: "Usage: make [options] [target] ...",
        about: "Options:",
        after: "This program built for x86_64-pc-linux-gnu\nReport bugs to <bug-make@gnu.org>",
        rows: [
            Compat: 'b' - none => "Ignored for compatibility.",
            CompatM: 'm' - none => "Ignored for compatibility.",
            AlwaysMake: 'B' "always-make" none => "Unconditionally make all targets.",
            Directory: 'C' "directory" required "DIRECTORY" => "Change to DIRECTORY before doing anything.",
            Debug: 'd' - none => "Print lots of debugging information (ignored).",
            DebugFlags: - "debug" optional "FLAGS" => "Print various types of debugging information (ignored).",
            EnvOverrides: 'e' "environment-overrides" none => "Environment variables override makefiles.",
            Eval: 'E' "eval" required "STRING" => "Evaluate STRING as a makefile statement.",
            File: 'f' "file" required "FILE" => "Read FILE as a makefile.",
            Makefile: - "makefile" required "FILE" => "",
            IgnoreErrors: 'i' "ignore-errors" none => "Ignore errors from recipes.",
            IncludeDir: 'I' "include-dir" required "DIRECTORY" => "Search DIRECTORY for included makefiles.",
            Jobs: 'j' "jobs" optional "N" => "Allow N jobs at once (recipes run one at a time).",
            KeepGoing: 'k' "keep-going" none => "Keep going when some targets can't be made.",
            LoadAverage: 'l' "load-average" optional "N" => "Ignored.",
            MaxLoad: - "max-load" optional "N" => "",
            CheckSymlinks: 'L' "check-symlink-times" none => "Ignored.",
            JustPrint: 'n' "just-print" none => "Don't actually run any recipe; just print them.",
            DryRun: - "dry-run" none => "",
            Recon: - "recon" none => "",
            OldFile: 'o' "old-file" required "FILE" => "Consider FILE to be very old and don't remake it.",
            AssumeOld: - "assume-old" required "FILE" => "",
            OutputSync: 'O' "output-sync" optional "TYPE" => "Ignored (one job at a time).",
            PrintDataBase: 'p' "print-data-base" none => "Ignored.",
            Question: 'q' "question" none => "Run no recipe; exit status says if up to date.",
            NoBuiltinRules: 'r' "no-builtin-rules" none => "Disable the built-in implicit rules (always).",
            NoBuiltinVariables: 'R' "no-builtin-variables" none => "Disable the built-in variable settings.",
            Silent: 's' "silent" none => "Don't echo recipes.",
            Quiet: - "quiet" none => "",
            NoSilent: - "no-silent" none => "Echo recipes (disable --silent mode).",
            Stop: 'S' "no-keep-going" none => "Turns off -k.",
            StopLong: - "stop" none => "",
            Touch: 't' "touch" none => "Touch targets instead of remaking them.",
            Trace: - "trace" none => "Print tracing information (ignored).",
            Version: 'v' "version" none => "Print the version number of make and exit.",
            PrintDirectory: 'w' "print-directory" none => "Print the current directory.",
            NoPrintDirectory: - "no-print-directory" none => "Turn off -w, even if it was turned on implicitly.",
            WhatIf: 'W' "what-if" required "FILE" => "Consider FILE to be infinitely new.",
            NewFile: - "new-file" required "FILE" => "",
            AssumeNew: - "assume-new" required "FILE" => "",
            WarnUndefined: - "warn-undefined-variables" none => "Ignored.",
        ],
    }
}

/// How a variable expands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavor {
    /// `=`: expanded where it is used.
    Recursive,
    /// `:=`: expanded once, where it is defined.
    Simple,
}

/// Where a variable's value came from (`$(origin)`), which decides who may
/// override it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    Default,
    Environment,
    File,
    EnvironmentOverride,
    CommandLine,
    Override,
    /// `foreach`'s and `call`'s own bindings.
    Automatic,
}

impl Origin {
    fn word(self) -> &'static str {
        match self {
            Origin::Default => "default",
            Origin::Environment => "environment",
            Origin::File => "file",
            Origin::EnvironmentOverride => "environment override",
            Origin::CommandLine => "command line",
            Origin::Override => "override",
            Origin::Automatic => "automatic",
        }
    }
}

/// One variable.
#[derive(Clone, Debug)]
struct Var {
    value: String,
    flavor: Flavor,
    origin: Origin,
    /// Passed to recipes' environment.
    export: bool,
}

/// One line of a recipe, unexpanded, and where it was written.
#[derive(Clone, Debug)]
struct RecipeLine {
    text: String,
    file: String,
    line: usize,
}

/// A target's explicit rule(s), merged.
#[derive(Clone, Debug, Default)]
struct Target {
    prereqs: Vec<String>,
    order_only: Vec<String>,
    recipe: Option<Vec<RecipeLine>>,
    /// A static pattern rule's stem (`$*`).
    stem: Option<String>,
}

/// A pattern rule (`%.o: %.c`) or a static pattern rule's pattern.
#[derive(Clone, Debug)]
struct PatternRule {
    target: String,
    prereqs: Vec<String>,
    order_only: Vec<String>,
    recipe: Vec<RecipeLine>,
}

/// The automatic variables of the recipe being expanded.
#[derive(Clone, Debug, Default)]
struct Auto {
    target: String,
    prereqs: Vec<String>,
    order_only: Vec<String>,
    newer: Vec<String>,
    stem: String,
}

/// A fatal error: `FILE:LINE: *** MESSAGE.  Stop.` (or `make: ***`).
#[derive(Debug)]
struct MakeError {
    place: Option<String>,
    message: String,
}

impl MakeError {
    /// An error at the makefile line being read or expanded, if any.
    fn at_line(make: &Make<'_, '_>, message: &str) -> MakeError {
        MakeError {
            place: make.line.as_ref().map(|(f, l)| format!("{f}:{l}")),
            message: message.to_string(),
        }
    }

    /// An error of make itself (`make: *** ...`).
    fn plain(message: String) -> MakeError {
        MakeError {
            place: None,
            message,
        }
    }
}

/// What the command line asked for.
#[derive(Clone, Debug, Default)]
struct Flags {
    always: bool,
    env_overrides: bool,
    ignore_errors: bool,
    keep_going: bool,
    just_print: bool,
    question: bool,
    silent: bool,
    touch: bool,
    print_directory: Option<bool>,
    old_files: Vec<String>,
    new_files: Vec<String>,
}

/// One make run's state.
struct Make<'c, 'a> {
    ctx: &'c mut CommandCtx<'a>,
    /// The name in messages: `make`, `make[1]` in a sub-make.
    me: String,
    level: usize,
    cwd: String,
    flags: Flags,
    vars: HashMap<String, Var>,
    targets: HashMap<String, Target>,
    /// Targets in the order the makefile names them.
    order: Vec<String>,
    patterns: Vec<PatternRule>,
    phony: HashSet<String>,
    default_goal: Option<String>,
    /// The makefile line being read or whose recipe is expanded.
    line: Option<(String, usize)>,
    /// Recursive variables being expanded (a loop is an error).
    expanding: Vec<String>,
    depth: usize,
    auto: Option<Auto>,
    /// Whether any recipe ran (or was printed) for the current goal.
    ran: bool,
}

impl Make<'_, '_> {
    /// `FILE:LINE` of the current line, or `make`.
    fn place(&self) -> String {
        match &self.line {
            Some((f, l)) => format!("{f}:{l}"),
            None => self.me.clone(),
        }
    }

    fn place_file(&self) -> String {
        self.line
            .as_ref()
            .map_or_else(String::new, |(f, _)| f.clone())
    }

    fn set_simple(&mut self, name: &str, value: &str) {
        self.vars.insert(
            name.to_string(),
            Var {
                value: value.to_string(),
                flavor: Flavor::Simple,
                origin: Origin::Automatic,
                export: false,
            },
        );
    }

    /// The variables recipes see beyond make's own environment: exported
    /// ones, those from the environment or the command line (with the
    /// makefile's value), `MAKELEVEL` one deeper.
    fn exported_env(&mut self) -> Vec<(String, String)> {
        let mut names: Vec<String> = self
            .vars
            .iter()
            .filter(|(_, v)| {
                v.export
                    || matches!(
                        v.origin,
                        Origin::Environment | Origin::CommandLine | Origin::EnvironmentOverride
                    )
            })
            .map(|(k, _)| k.clone())
            .collect();
        names.sort();
        let mut env = Vec::new();
        for n in names {
            if n == "MAKELEVEL" || n == "MAKEFLAGS" {
                continue;
            }
            let saved_auto = self.auto.take();
            let value = self.variable(&n).unwrap_or_default();
            self.auto = saved_auto;
            env.push((n, value));
        }
        env.push(("MAKELEVEL".to_string(), (self.level + 1).to_string()));
        let mut letters = String::new();
        for (on, c) in [
            (self.flags.silent, 's'),
            (self.flags.keep_going, 'k'),
            (self.flags.ignore_errors, 'i'),
            (self.flags.just_print, 'n'),
            (self.flags.env_overrides, 'e'),
            (self.flags.always, 'B'),
        ] {
            if on {
                letters.push(c);
            }
        }
        env.push(("MAKEFLAGS".to_string(), letters));
        env
    }

    /// Prints a fatal error and returns make's status, 2.
    fn fail(&mut self, e: &MakeError) -> i32 {
        let _ = self.ctx.stdout.flush();
        let where_ = e.place.clone().unwrap_or_else(|| self.me.clone());
        let _ = writeln!(self.ctx.stderr, "{where_}: *** {}.  Stop.", e.message);
        2
    }

    /// `make: message` on stderr.
    fn say_err(&mut self, message: &str) {
        let _ = self.ctx.stdout.flush();
        let _ = writeln!(self.ctx.stderr, "{}: {message}", self.me);
    }
}

/// Applies one option to the flags; `Err` carries an exit status.
fn take_option(
    flags: &mut Flags,
    opt: MakeOpt,
    value: Option<&String>,
    files: &mut Vec<String>,
    dirs: &mut Vec<String>,
    evals: &mut Vec<String>,
    ctx: &mut CommandCtx<'_>,
) -> Result<(), i32> {
    let value = value.cloned().unwrap_or_default();
    match opt {
        MakeOpt::AlwaysMake => flags.always = true,
        MakeOpt::Directory => dirs.push(value),
        MakeOpt::EnvOverrides => flags.env_overrides = true,
        MakeOpt::Eval => evals.push(value),
        MakeOpt::File | MakeOpt::Makefile => files.push(value),
        MakeOpt::IgnoreErrors => flags.ignore_errors = true,
        MakeOpt::KeepGoing => flags.keep_going = true,
        MakeOpt::Stop | MakeOpt::StopLong => flags.keep_going = false,
        MakeOpt::JustPrint | MakeOpt::DryRun | MakeOpt::Recon => flags.just_print = true,
        MakeOpt::OldFile | MakeOpt::AssumeOld => flags.old_files.push(value),
        MakeOpt::WhatIf | MakeOpt::NewFile | MakeOpt::AssumeNew => flags.new_files.push(value),
        MakeOpt::Question => flags.question = true,
        MakeOpt::Silent | MakeOpt::Quiet => flags.silent = true,
        MakeOpt::NoSilent => flags.silent = false,
        MakeOpt::Touch => flags.touch = true,
        MakeOpt::PrintDirectory => flags.print_directory = Some(true),
        MakeOpt::NoPrintDirectory => flags.print_directory = Some(false),
        MakeOpt::Version => {
            let _ = ctx.stdout.write_all(
                b"GNU Make 4.3\nBuilt for x86_64-pc-linux-gnu\nCopyright (C) 1988-2020 Free Software Foundation, Inc.\nLicense GPLv3+: GNU GPL version 3 or later <http://gnu.org/licenses/gpl.html>\nThis is free software: you are free to change and redistribute it.\nThere is NO WARRANTY, to the extent permitted by law.\n",
            );
            return Err(0);
        }
        MakeOpt::Jobs
        | MakeOpt::Compat
        | MakeOpt::CompatM
        | MakeOpt::Debug
        | MakeOpt::DebugFlags
        | MakeOpt::IncludeDir
        | MakeOpt::LoadAverage
        | MakeOpt::MaxLoad
        | MakeOpt::CheckSymlinks
        | MakeOpt::OutputSync
        | MakeOpt::PrintDataBase
        | MakeOpt::NoBuiltinRules
        | MakeOpt::NoBuiltinVariables
        | MakeOpt::Trace
        | MakeOpt::WarnUndefined => {}
    }
    Ok(())
}

/// The flags a parent make passed in `MAKEFLAGS` (its single letters).
fn inherited_flags(flags: &mut Flags, makeflags: &str) {
    let first = makeflags.split_whitespace().next().unwrap_or("");
    if first.starts_with('-') || first.contains('=') {
        return;
    }
    for c in first.chars() {
        match c {
            's' => flags.silent = true,
            'k' => flags.keep_going = true,
            'i' => flags.ignore_errors = true,
            'n' => flags.just_print = true,
            'e' => flags.env_overrides = true,
            'B' => flags.always = true,
            _ => {}
        }
    }
}

/// `make [options] [target] ...`
pub fn make(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match MakeOpt::TABLE.parse(ctx.args) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "make: {e}");
            let _ = ctx.stderr.write_all(MakeOpt::help().as_bytes());
            return 2;
        }
    };
    let level: usize = ctx
        .getenv("MAKELEVEL")
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    let mut flags = Flags::default();
    if let Some(mf) = ctx.getenv("MAKEFLAGS") {
        inherited_flags(&mut flags, mf);
    }
    let (mut files, mut dirs, mut evals) = (Vec::new(), Vec::new(), Vec::new());
    for (opt, value) in &p.opts {
        if let Err(status) = take_option(
            &mut flags,
            *opt,
            value.as_ref(),
            &mut files,
            &mut dirs,
            &mut evals,
            ctx,
        ) {
            return status;
        }
    }
    let mut cwd = ctx.cwd.to_string();
    for d in &dirs {
        cwd = Fs::resolve(&cwd, d);
    }
    let me = if level == 0 {
        "make".to_string()
    } else {
        format!("make[{level}]")
    };
    let mut goals = Vec::new();
    let mut assignments = Vec::new();
    for word in &p.operands {
        match word.find('=') {
            Some(at) if at > 0 => assignments.push(word.clone()),
            _ => goals.push(word.clone()),
        }
    }
    let print_dir = flags
        .print_directory
        .unwrap_or((!dirs.is_empty() || level > 0) && !flags.silent);
    let mut m = Make {
        ctx,
        me,
        level,
        cwd,
        flags,
        vars: HashMap::new(),
        targets: HashMap::new(),
        order: Vec::new(),
        patterns: Vec::new(),
        phony: HashSet::new(),
        default_goal: None,
        line: None,
        expanding: Vec::new(),
        depth: 0,
        auto: None,
        ran: false,
    };
    if !dirs.is_empty()
        && !m
            .ctx
            .fs
            .metadata(&m.cwd)
            .is_ok_and(|md| md.kind == crate::fs::FileKind::Dir)
    {
        let e = format!(
            "{}: No such file or directory",
            dirs.last().map_or("", |d| d.as_str())
        );
        m.say_err(&e);
        let _ = writeln!(
            m.ctx.stderr,
            "{}: *** No rule to make target '{}'.  Stop.",
            m.me,
            dirs.last().map_or("", |d| d.as_str())
        );
        return 2;
    }
    if print_dir {
        let _ = writeln!(m.ctx.stdout, "{}: Entering directory '{}'", m.me, m.cwd);
    }
    let status = m.run(&files, &assignments, &evals, &goals);
    if print_dir {
        let _ = writeln!(m.ctx.stdout, "{}: Leaving directory '{}'", m.me, m.cwd);
    }
    status
}
