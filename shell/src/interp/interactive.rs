//! `bash -i`: an interactive shell, as far as a sandbox without a terminal
//! can have one. It reads its startup file (`--rcfile FILE`, else
//! `~/.bashrc`, none with `--norc`), turns on `emacs` mode and history,
//! sets `PS1`, `PS2` and `HISTFILE`, and loads the history file. Reading a
//! script from stdin, it goes line by line as bash does with a typed
//! session: `PROMPT_COMMAND` runs and the expanded `PS1` goes to stderr
//! before each command line, the line is recorded in the history, and at
//! the end of input it prints `exit` and appends the new history entries to
//! `$HISTFILE` (cut to `$HISTFILESIZE`). Assigning `HISTSIZE` or
//! `HISTFILESIZE` cuts the list or the file at once.

use super::parse::{Script, Step};
use super::{Interp, Interrupt};
use crate::fs::Fs;

/// bash's defaults for an interactive shell.
const DEFAULT_VARS: &[(&str, &str)] = &[
    ("PS1", "\\s-\\v\\$ "),
    ("PS2", "> "),
    ("HISTSIZE", "500"),
    ("HISTFILESIZE", "500"),
];

impl Interp {
    /// Makes this (new) shell process interactive and runs its startup
    /// file. `Err(status)`: the startup file ran `exit`.
    pub(crate) fn start_interactive(
        &mut self,
        rcfile: Option<&str>,
        norc: bool,
    ) -> Result<(), i32> {
        self.interactive = true;
        self.opts.set_set_option("emacs", true);
        self.opts.set_set_option("history", true);
        self.opts.set_set_option("histexpand", true);
        for (name, value) in DEFAULT_VARS {
            if self.vars.get_str(name).is_none() {
                let _ = self
                    .vars
                    .set(name, super::vars::Value::Str(value.to_string()));
            }
        }
        let home = self.vars.get_str("HOME").unwrap_or("").to_string();
        if self.vars.get_str("HISTFILE").is_none() {
            let file = format!("{home}/.bash_history");
            let _ = self.vars.set("HISTFILE", super::vars::Value::Str(file));
        }
        self.load_history();
        let rc = match rcfile {
            Some(f) => Some(f.to_string()),
            None if !norc => Some(format!("{home}/.bashrc")),
            None => None,
        };
        let Some(rc) = rc.filter(|f| self.fs.exists(&Fs::resolve(&self.cwd, f))) else {
            return Ok(());
        };
        let args = ["source".to_string(), rc];
        match super::builtins::source::source(self, &args) {
            Err(Interrupt::Exit(s)) => Err(s),
            Err(Interrupt::Limit(_)) => Err(124),
            _ => Ok(()),
        }
    }

    /// The history file, resolved, when `$HISTFILE` names one.
    fn history_path(&self) -> Option<String> {
        let name = self.vars.get_str("HISTFILE").filter(|f| !f.is_empty())?;
        Some(Fs::resolve(&self.cwd, name))
    }

    /// Reads the history file into the history list, as bash does at the
    /// start of an interactive shell.
    fn load_history(&mut self) {
        let Some(path) = self.history_path() else {
            return;
        };
        if let Ok(data) = self.fs.read(&path) {
            let text = String::from_utf8_lossy(&data).into_owned();
            self.opts.history.extend(text.lines().map(str::to_string));
        }
    }

    /// Appends the entries this shell added to the history file and cuts the
    /// file to its last `$HISTFILESIZE` lines.
    fn save_history(&mut self) {
        let Some(path) = self.history_path() else {
            return;
        };
        let h = &self.opts.history;
        let new = &h[h.len() - self.opts.history_new.min(h.len())..];
        if new.is_empty() {
            return;
        }
        // Without `histappend`, more new lines than the list holds (it was
        // cut by HISTSIZE) make bash rewrite the file from the list.
        let append =
            self.opts.get_shopt("histappend") == Some(true) || self.opts.history_new <= h.len();
        let mut text = match append {
            true => self.fs.read(&path).unwrap_or_default(),
            false => Vec::new(),
        };
        for entry in new {
            text.extend_from_slice(entry.as_bytes());
            text.push(b'\n');
        }
        self.opts.history_new = 0;
        let keep = self
            .vars
            .get_str("HISTFILESIZE")
            .and_then(|v| v.parse::<usize>().ok());
        if let Some(keep) = keep {
            let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
            text = lines[lines.len().saturating_sub(keep)..].concat();
        }
        let _ = self.fs.write(&path, &text);
    }

    /// `HISTSIZE=N` keeps the last N history entries; `HISTFILESIZE=N` cuts
    /// the history file to its last N lines, as bash does on assignment.
    pub(crate) fn limit_history(&mut self, name: &str, value: &str) {
        let Ok(keep) = value.trim().parse::<usize>() else {
            return;
        };
        if name == "HISTSIZE" {
            let h = &mut self.opts.history;
            h.drain(..h.len().saturating_sub(keep));
            return;
        }
        let Some(path) = self.history_path() else {
            return;
        };
        if let Ok(text) = self.fs.read(&path) {
            let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
            if lines.len() > keep {
                let _ = self.fs.write(&path, &lines[lines.len() - keep..].concat());
            }
        }
    }

    /// `\!` in a prompt: the history number of the line being run (with
    /// `set -o history`), or of the next one while a prompt is shown; 1
    /// without history, as bash gives.
    pub(crate) fn history_number(&self) -> usize {
        if self.opts.get_set_option("history") != Some(true) {
            return 1;
        }
        self.opts.history.len() + 1 - usize::from(self.opts.history_line_added)
    }

    /// Records one command line in the history list (when `set -o history`).
    pub(crate) fn record_history(&mut self, line: &str) {
        self.opts.history_line_added = false;
        if self.opts.get_set_option("history") != Some(true) || line.trim().is_empty() {
            return;
        }
        self.opts.history.push(line.to_string());
        self.opts.history_new += 1;
        self.opts.history_line_added = true;
        // The list never grows past `HISTSIZE`.
        if let Some(size) = self.vars.get_str("HISTSIZE").map(str::to_string) {
            self.limit_history("HISTSIZE", &size);
        }
    }

    /// Runs `PROMPT_COMMAND` and writes the prompt (and, as readline does
    /// without a terminal, the line read) to stderr.
    fn show_prompt(&mut self, line: Option<&str>) -> Result<(), Interrupt> {
        if let Some(cmd) = self.vars.get_str("PROMPT_COMMAND").map(str::to_string) {
            let status = self.last_status;
            let args = ["eval".to_string(), cmd];
            super::builtins::source::eval(self, &args)?;
            self.last_status = status;
        }
        let ps1 = self.vars.get_str("PS1").unwrap_or("").to_string();
        let mut text = self.prompt_expand(&ps1)?;
        text.push_str(line.unwrap_or("exit"));
        text.push('\n');
        let _ = self.write_fd(2, text.as_bytes());
        Ok(())
    }

    /// Runs `text` (the shell's stdin) as an interactive session; returns
    /// the shell's exit status.
    pub(crate) fn run_interactive(&mut self, text: &str) -> i32 {
        self.source_depth += 1;
        let r = self.interactive_loop(text);
        self.source_depth -= 1;
        let status = match r {
            Ok(()) => self.last_status,
            Err(Interrupt::Exit(s) | Interrupt::Return(s) | Interrupt::Discard(s)) => s,
            Err(Interrupt::Limit(_)) => return 124,
            Err(_) => self.last_status,
        };
        self.last_status = status;
        self.save_history();
        if self.run_exit_trap().is_err() {
            return 124;
        }
        self.last_status
    }

    /// Reads and runs the command lines of `text` one at a time.
    fn interactive_loop(&mut self, text: &str) -> Result<(), Interrupt> {
        let chars: Vec<char> = text.chars().collect();
        let mut script = Script::new(text);
        loop {
            let from = script.pos();
            let step = if self.opts.expand_aliases {
                let aliases = self.aliases.clone();
                script.next(Some(&aliases), true)
            } else {
                script.next(None, true)
            };
            let cmds = match step {
                Step::Run(cmds) => cmds,
                Step::Error(e) | Step::Skip(e) => {
                    self.show_prompt(Some(""))?;
                    let msg = format!("bash: line {}: {}\n", e.line, e.message);
                    let _ = self.write_fd(2, msg.as_bytes());
                    self.last_status = 2;
                    continue;
                }
                Step::Done => return self.show_prompt(None),
            };
            let line = script.text_since(from, &chars).unwrap_or_default();
            // The last line is done: a prompt's `\!` numbers the next one.
            self.opts.history_line_added = false;
            self.show_prompt(Some(&line))?;
            self.record_history(&line);
            for cc in &cmds {
                self.exec_top(cc, true)?;
            }
        }
    }
}
