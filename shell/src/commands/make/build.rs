//! Bringing goals up to date (the manual's "How make Processes a
//! Makefile"): each target's prerequisites first, then its recipe when the
//! target is missing, phony, or older than a prerequisite; recipe lines
//! each in a shell of their own, with `@`, `-` and `+` prefixes, `-n`,
//! `-s`, `-i`, `-k`, `-q`, `-t`, and GNU's messages.

use std::collections::HashMap;

use super::read::default_var;
use super::{Auto, Flavor, Make, MakeError, Origin, RecipeLine, Var};
use crate::clock::Timestamp;
use crate::commands::{ExecMode, ExecRequest};
use crate::fs::Fs;

/// A target's state after its update: when it was last changed.
#[derive(Clone, Copy, Debug)]
enum Stamp {
    /// No file (phony, or a recipe that made none): newer than anything.
    Missing,
    /// The file's modification time.
    At(Timestamp),
}

/// Why an update did not succeed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fail {
    /// Everything stops (status 2 without `-k`, or the run's limits).
    Stop,
    /// This target failed; with `-k` others go on.
    Failed,
}

/// Per-target progress.
#[derive(Clone, Copy)]
enum State {
    Busy,
    Done(Result<Stamp, Fail>),
}

/// What a target's update found to do.
struct Plan {
    prereqs: Vec<String>,
    order_only: Vec<String>,
    recipe: Option<Vec<RecipeLine>>,
    stem: String,
}

impl Make<'_, '_> {
    /// Sets the variables make starts with, reads the makefiles and
    /// updates the goals; returns the exit status.
    pub(super) fn run(
        &mut self,
        files: &[String],
        assignments: &[String],
        evals: &[String],
        goals: &[String],
    ) -> i32 {
        self.init_vars(assignments);
        let names: Vec<String> = if files.is_empty() {
            ["GNUmakefile", "makefile", "Makefile"]
                .iter()
                .find(|n| self.ctx.fs.exists(&Fs::resolve(&self.cwd, n)))
                .map(|n| vec![n.to_string()])
                .unwrap_or_default()
        } else {
            files.to_vec()
        };
        if names.is_empty() {
            let message = match goals.first() {
                Some(g) => format!("No rule to make target '{g}'"),
                None => "No targets specified and no makefile found".to_string(),
            };
            return self.fail(&MakeError::plain(message));
        }
        for name in &names {
            match self.read_makefile(name) {
                Ok(true) => {}
                Ok(false) => {
                    self.say_err(&format!("{name}: No such file or directory"));
                    return self.fail(&MakeError::plain(format!(
                        "No rule to make target '{name}'"
                    )));
                }
                Err(e) => return self.fail(&e),
            }
        }
        for e in evals {
            if let Err(e) = self.read_text(e, "--eval") {
                return self.fail(&e);
            }
        }
        self.line = None;
        let goals: Vec<String> = if goals.is_empty() {
            let chosen = self
                .vars
                .get(".DEFAULT_GOAL")
                .map(|v| v.value.trim().to_string())
                .filter(|g| !g.is_empty())
                .or_else(|| self.default_goal.clone());
            match chosen {
                Some(g) => vec![g],
                None => return self.fail(&MakeError::plain("No targets".into())),
            }
        } else {
            goals.to_vec()
        };
        self.update_goals(&goals)
    }

    fn init_vars(&mut self, assignments: &[String]) {
        for (k, v) in self.ctx.env {
            if k == "SHELL" || k == "MAKEFLAGS" || k == "MAKELEVEL" {
                continue;
            }
            self.vars.insert(
                k.clone(),
                Var {
                    value: v.clone(),
                    flavor: Flavor::Recursive,
                    origin: if self.flags.env_overrides {
                        Origin::EnvironmentOverride
                    } else {
                        Origin::Environment
                    },
                    export: true,
                },
            );
        }
        let make = self.ctx.args[0].clone();
        // The built-in variables Makefiles lean on (`CC ?= gcc` keeps `cc`).
        for (name, value) in [
            ("CC", "cc"),
            ("CXX", "g++"),
            ("CPP", "$(CC) -E"),
            ("AR", "ar"),
            ("ARFLAGS", "rv"),
            ("AS", "as"),
            ("RM", "rm -f"),
            ("LEX", "lex"),
            ("YACC", "yacc"),
            ("MAKEFILE_LIST", ""),
        ] {
            self.vars
                .entry(name.to_string())
                .or_insert_with(|| default_var(value, Flavor::Recursive));
        }
        self.vars
            .insert("MAKE".into(), default_var(&make, Flavor::Recursive));
        self.vars
            .insert("SHELL".into(), default_var("/bin/sh", Flavor::Recursive));
        self.vars.insert(
            "CURDIR".into(),
            default_var(&self.cwd.clone(), Flavor::Simple),
        );
        self.vars.insert(
            "MAKELEVEL".into(),
            default_var(&self.level.to_string(), Flavor::Simple),
        );
        for a in assignments {
            let at = a.find('=').unwrap_or(0);
            let (name, flavor) = match a[..at].strip_suffix(':') {
                Some(n) => (n.strip_suffix(':').unwrap_or(n), Flavor::Simple),
                None => (&a[..at], Flavor::Recursive),
            };
            let raw = a[at + 1..].to_string();
            let value = if flavor == Flavor::Simple {
                self.expand(&raw).unwrap_or_default()
            } else {
                raw
            };
            self.vars.insert(
                name.trim().to_string(),
                Var {
                    value,
                    flavor,
                    origin: Origin::CommandLine,
                    export: true,
                },
            );
        }
    }

    fn update_goals(&mut self, goals: &[String]) -> i32 {
        let mut states: HashMap<String, State> = HashMap::new();
        let mut status = 0;
        for goal in goals {
            self.ran = false;
            match self.update(goal, None, &mut states) {
                Ok(_) => {
                    if self.flags.question {
                        if self.ran {
                            status = 1;
                        }
                        continue;
                    }
                    if !self.ran {
                        let has_recipe = self.has_recipe(goal);
                        let words = if has_recipe && !self.phony.contains(goal) {
                            format!("'{goal}' is up to date.")
                        } else {
                            format!("Nothing to be done for '{goal}'.")
                        };
                        let _ = writeln!(self.ctx.stdout, "{}: {words}", self.me);
                    }
                }
                Err(Fail::Stop) => {
                    return if self.flags.question {
                        1.max(status)
                    } else {
                        2
                    };
                }
                Err(Fail::Failed) => {
                    status = 2;
                }
            }
        }
        status
    }

    /// Whether `name` has a recipe (explicit or from a pattern rule), or
    /// is a file without any rule.
    fn has_recipe(&self, name: &str) -> bool {
        match self.targets.get(name) {
            Some(t) if t.recipe.is_some() => true,
            Some(_) => self.pattern_for(name).is_some(),
            None => {
                self.pattern_for(name).is_some()
                    || self.ctx.fs.exists(&Fs::resolve(&self.cwd, name))
            }
        }
    }

    fn stamp_of(&self, name: &str) -> Option<Timestamp> {
        if self.phony.contains(name) {
            return None;
        }
        self.ctx
            .fs
            .metadata(&Fs::resolve(&self.cwd, name))
            .ok()
            .map(|m| m.mtime)
    }

    /// Whether a file is there, or some rule names it as a target.
    fn can_have(&self, name: &str) -> bool {
        self.targets.contains_key(name) || self.ctx.fs.exists(&Fs::resolve(&self.cwd, name))
    }

    /// The first pattern rule with a recipe whose prerequisites can be had.
    fn pattern_for(&self, name: &str) -> Option<Plan> {
        for rule in &self.patterns {
            if rule.recipe.is_empty() {
                continue;
            }
            let pattern = super::expand::Pattern::new(&rule.target);
            let Some(stem) = pattern.stem(name) else {
                continue;
            };
            let prereqs: Vec<String> = rule
                .prereqs
                .iter()
                .map(|p| super::expand::substitute(p, stem))
                .collect();
            if prereqs.iter().all(|p| self.can_have(p)) {
                return Some(Plan {
                    prereqs,
                    order_only: rule
                        .order_only
                        .iter()
                        .map(|p| super::expand::substitute(p, stem))
                        .collect(),
                    recipe: Some(rule.recipe.clone()),
                    stem: stem.to_string(),
                });
            }
        }
        None
    }

    /// What updating `name` involves, or `None` when no rule covers it.
    fn plan(&self, name: &str) -> Option<Plan> {
        let explicit = self.targets.get(name);
        let mut plan = match explicit {
            Some(t) if t.recipe.is_some() || self.phony.contains(name) => Plan {
                prereqs: t.prereqs.clone(),
                order_only: t.order_only.clone(),
                recipe: t.recipe.clone(),
                stem: t.stem.clone().unwrap_or_default(),
            },
            Some(t) => match self.pattern_for(name) {
                Some(mut p) => {
                    p.prereqs.extend(t.prereqs.iter().cloned());
                    p.order_only.extend(t.order_only.iter().cloned());
                    p
                }
                None => Plan {
                    prereqs: t.prereqs.clone(),
                    order_only: t.order_only.clone(),
                    recipe: None,
                    stem: String::new(),
                },
            },
            None => self.pattern_for(name)?,
        };
        plan.prereqs.retain(|p| !p.is_empty());
        Some(plan)
    }

    fn no_rule(&mut self, name: &str, parent: Option<&str>) -> Fail {
        let needed = parent.map_or_else(String::new, |p| format!(", needed by '{p}'"));
        let _ = self.ctx.stdout.flush();
        if self.flags.keep_going {
            let _ = writeln!(
                self.ctx.stderr,
                "{}: *** No rule to make target '{name}'{needed}.",
                self.me
            );
            Fail::Failed
        } else {
            let _ = writeln!(
                self.ctx.stderr,
                "{}: *** No rule to make target '{name}'{needed}.  Stop.",
                self.me
            );
            Fail::Stop
        }
    }

    fn update(
        &mut self,
        name: &str,
        parent: Option<&str>,
        states: &mut HashMap<String, State>,
    ) -> Result<Stamp, Fail> {
        if let Some(State::Done(r)) = states.get(name) {
            return *r;
        }
        if self.ctx.control.check().is_err() {
            return Err(Fail::Stop);
        }
        states.insert(name.to_string(), State::Busy);
        let result = self.update_fresh(name, parent, states);
        states.insert(name.to_string(), State::Done(result));
        result
    }

    fn update_fresh(
        &mut self,
        name: &str,
        parent: Option<&str>,
        states: &mut HashMap<String, State>,
    ) -> Result<Stamp, Fail> {
        let Some(plan) = self.plan(name) else {
            return match self.stamp_of(name) {
                Some(t) => Ok(Stamp::At(t)),
                None => Err(self.no_rule(name, parent)),
            };
        };
        let mut failed = false;
        let mut stamps = Vec::new();
        for (k, p) in plan
            .prereqs
            .iter()
            .chain(plan.order_only.iter())
            .enumerate()
        {
            if matches!(states.get(p), Some(State::Busy)) {
                let _ = writeln!(
                    self.ctx.stderr,
                    "{}: Circular {name} <- {p} dependency dropped.",
                    self.me
                );
                continue;
            }
            match self.update(p, Some(name), states) {
                Ok(s) if k < plan.prereqs.len() => stamps.push((p.clone(), s)),
                Ok(_) => {}
                Err(Fail::Stop) => return Err(Fail::Stop),
                Err(Fail::Failed) => failed = true,
            }
        }
        if failed {
            if parent.is_none() {
                let _ = self.ctx.stdout.flush();
                let _ = writeln!(
                    self.ctx.stderr,
                    "{}: Target '{name}' not remade because of errors.",
                    self.me
                );
            }
            return Err(Fail::Failed);
        }
        let old = self.flags.old_files.iter().any(|f| f == name);
        let mine = self.stamp_of(name);
        let newer: Vec<String> = stamps
            .iter()
            .filter(|(p, s)| {
                self.flags.new_files.contains(p)
                    || match (s, mine) {
                        (_, None) => true,
                        (Stamp::Missing, _) => true,
                        (Stamp::At(t), Some(m)) => *t > m,
                    }
            })
            .map(|(p, _)| p.clone())
            .collect();
        let remake = !old && (self.flags.always || mine.is_none() || !newer.is_empty());
        let recipe = plan.recipe.clone().unwrap_or_default();
        if !remake || recipe.is_empty() {
            return Ok(match mine {
                Some(t) => Stamp::At(t),
                None => Stamp::Missing,
            });
        }
        if self.flags.question {
            self.ran = true;
            return Err(Fail::Stop);
        }
        let auto = Auto {
            target: name.to_string(),
            prereqs: plan.prereqs.clone(),
            order_only: plan.order_only.clone(),
            newer: if mine.is_none() {
                dedup(&plan.prereqs)
            } else {
                newer
            },
            stem: plan.stem.clone(),
        };
        self.run_recipe(name, &recipe, auto)?;
        Ok(match self.stamp_of(name) {
            Some(t) => Stamp::At(t),
            None => Stamp::Missing,
        })
    }

    /// Expands the whole recipe, then runs its lines one by one.
    fn run_recipe(&mut self, name: &str, recipe: &[RecipeLine], auto: Auto) -> Result<(), Fail> {
        let mut lines = Vec::with_capacity(recipe.len());
        for line in recipe {
            self.line = Some((line.file.clone(), line.line));
            self.auto = Some(auto.clone());
            let expanded = self.expand(&line.text);
            self.auto = None;
            match expanded {
                Ok(text) => lines.push((text, line)),
                Err(e) => {
                    self.fail(&e);
                    return Err(Fail::Stop);
                }
            }
        }
        self.line = None;
        if self.flags.touch {
            self.ran = true;
            if !self.flags.silent {
                let _ = writeln!(self.ctx.stdout, "touch {name}");
            }
            if !self.flags.just_print {
                let path = Fs::resolve(&self.cwd, name);
                if !self.ctx.fs.exists(&path) {
                    let _ = self.ctx.fs.write(&path, b"");
                }
                let _ = self.ctx.fs.set_mtime(&path, self.ctx.control.clock.now());
            }
            return Ok(());
        }
        for (text, line) in lines {
            let mut body = text.as_str();
            let (mut silent, mut ignore, mut force) =
                (self.flags.silent, self.flags.ignore_errors, false);
            loop {
                match body.chars().next() {
                    Some('@') => silent = true,
                    Some('-') => ignore = true,
                    Some('+') => force = true,
                    Some(c) if c == ' ' || c == '\t' => {}
                    _ => break,
                }
                body = &body[1..];
            }
            if body.is_empty() {
                continue;
            }
            self.ran = true;
            if self.flags.just_print && !force {
                let _ = writeln!(self.ctx.stdout, "{body}");
                continue;
            }
            if !silent {
                let _ = writeln!(self.ctx.stdout, "{body}");
            }
            let status = self.sh(body);
            if self.ctx.control.check().is_err() {
                return Err(Fail::Stop);
            }
            if status == 0 {
                continue;
            }
            let _ = self.ctx.stdout.flush();
            let at = format!("{}:{}: {name}", line.file, line.line);
            if ignore {
                let _ = writeln!(
                    self.ctx.stderr,
                    "{}: [{at}] Error {status} (ignored)",
                    self.me
                );
                continue;
            }
            let _ = writeln!(self.ctx.stderr, "{}: *** [{at}] Error {status}", self.me);
            return Err(if self.flags.keep_going {
                Fail::Failed
            } else {
                Fail::Stop
            });
        }
        Ok(())
    }

    /// Runs one recipe line in the sandbox's shell; its status.
    fn sh(&mut self, body: &str) -> i32 {
        let argv = ["/bin/sh".to_string(), "-c".to_string(), body.to_string()];
        let env = self.exported_env();
        let cwd = self.cwd.clone();
        let ctx = &mut *self.ctx;
        ctx.exec.exec(ExecRequest {
            argv: &argv,
            env: &env,
            cwd: &cwd,
            stdin: ctx.stdin,
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            mode: ExecMode::Inherit,
        })
    }
}

fn dedup(words: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words {
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}
