//! Comparing our [`Outcome`] with bash's, and the run of a whole suite:
//! selection by a filter variable, skipped cases, the mismatch report and the
//! final `N passed, F failed, S skipped` line and assertion.
//!
//! Without bash on the machine a suite still runs our side of every case and
//! fails only on panics.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::Outcome;
use super::cases::{self, Case};
use super::host::{HostBash, bash_available};
use super::ours;

/// What must agree between our outcome and bash's, beyond stdout and status.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compare {
    /// When bash fails with a message, ours must print one too (its wording
    /// may differ).
    pub stderr_on_failure: bool,
    /// Compare stdout as sorted lines (for output in directory order, which
    /// differs between the host filesystem and ours).
    pub sorted_lines: bool,
}

impl Compare {
    /// Stdout and status only.
    pub const EXACT: Compare = Compare {
        stderr_on_failure: false,
        sorted_lines: false,
    };

    /// Stdout and status, and an error message where GNU prints one.
    pub const WITH_ERRORS: Compare = Compare {
        stderr_on_failure: true,
        sorted_lines: false,
    };

    /// What differs between `ours` and `theirs`; empty when they agree.
    pub fn problems(&self, ours: &Outcome, theirs: &Outcome) -> Vec<String> {
        let mut problems = Vec::new();
        let same_stdout = if self.sorted_lines {
            sorted(&ours.stdout) == sorted(&theirs.stdout)
        } else {
            ours.stdout == theirs.stdout
        };
        if !same_stdout {
            problems.push("stdout differs".to_string());
        }
        if ours.status != theirs.status {
            problems.push(format!(
                "status differs: bash {}, ours {}",
                theirs.status, ours.status
            ));
        }
        if self.stderr_on_failure
            && theirs.status != 0
            && !theirs.stderr.is_empty()
            && ours.stderr.is_empty()
        {
            problems.push("bash printed an error, ours printed none".to_string());
        }
        problems
    }
}

fn sorted(data: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    lines.sort();
    lines
}

/// Held by every suite ([`alone`]) and by the tests that keep cores busy
/// ([`off_suites`]).
static HOST_SUITES: RwLock<()> = RwLock::new(());

/// Waits until no other suite and no [`off_suites`] test of this binary
/// runs, and keeps them waiting until the guard is dropped. Some cases race
/// in bash or gawk, or in our shell (a job that ends before `kill`, a pipe's
/// reader closing, gawk's `print | "cmd"` beside its stderr), and come out
/// as on an idle machine only when their threads and host processes get a
/// core soon, as when each suite was a test binary of its own. [`Suite::new`]
/// takes it; a suite with its own harness calls it.
pub fn alone() -> RwLockWriteGuard<'static, ()> {
    HOST_SUITES.write().unwrap_or_else(|p| p.into_inner())
}

/// For a test that keeps cores busy (runaway loops, endless reads, busy
/// jobs): it waits while a suite runs ([`alone`]) and runs beside other such
/// tests.
pub fn off_suites() -> RwLockReadGuard<'static, ()> {
    HOST_SUITES.read().unwrap_or_else(|p| p.into_inner())
}

/// A suite being run: counts, the report of mismatches and the skip list.
/// It holds [`alone`]'s guard while it lives.
pub struct Suite {
    _alone: RwLockWriteGuard<'static, ()>,
    name: String,
    host: HostBash,
    compare: Compare,
    have_bash: bool,
    filter: Option<String>,
    run_skipped: bool,
    passed: usize,
    failed: usize,
    skipped: usize,
    report: String,
    skips: String,
}

impl Suite {
    /// A suite called `name` (in its final line), comparing with
    /// [`Compare::EXACT`] against [`HostBash::new`].
    /// `DIFF_RUN_SKIPPED=1` runs the cases marked `#skip:` too.
    pub fn new(name: &str) -> Suite {
        let guard = alone();
        let have_bash = bash_available();
        if !have_bash {
            eprintln!("{name}: bash not found; checking our shell for panics only");
        }
        Suite {
            _alone: guard,
            name: name.to_string(),
            host: HostBash::new(),
            compare: Compare::EXACT,
            have_bash,
            filter: None,
            run_skipped: std::env::var_os("DIFF_RUN_SKIPPED").is_some(),
            passed: 0,
            failed: 0,
            skipped: 0,
            report: String::new(),
            skips: String::new(),
        }
    }

    /// A suite of GNU tools: bash runs with `LC_ALL=C`, and where GNU fails
    /// with a message ours must print one too ([`Compare::WITH_ERRORS`]).
    pub fn of_gnu_tools(name: &str) -> Suite {
        Suite::new(name)
            .host(HostBash::new().env("LC_ALL", "C"))
            .compare(Compare::WITH_ERRORS)
    }

    /// Runs bash as `host` says.
    pub fn host(mut self, host: HostBash) -> Suite {
        self.host = host;
        self
    }

    /// Compares as `compare` says.
    pub fn compare(mut self, compare: Compare) -> Suite {
        self.compare = compare;
        self
    }

    /// Runs only the cases whose file or name contains the value of the
    /// environment variable `var`, when it is set.
    pub fn filter_from(mut self, var: &str) -> Suite {
        self.filter = std::env::var(var).ok();
        self
    }

    /// Whether bash is there to compare with.
    pub fn have_bash(&self) -> bool {
        self.have_bash
    }

    /// Whether the filter (if any) lets through a case described by `words`.
    pub fn selects(&self, words: &[&str]) -> bool {
        self.filter
            .as_deref()
            .is_none_or(|f| words.iter().any(|w| w.contains(f)))
    }

    /// Whether a filter is set (count floors do not apply then).
    pub fn filtered(&self) -> bool {
        self.filter.is_some()
    }

    /// Runs every selected case: skipped ones (`#skip:`) are counted and
    /// listed, the others run in a fresh shell of ours and in bash.
    pub fn run_cases(&mut self, cases: &[Case]) {
        for c in cases {
            if !self.selects(&[&c.file, &c.name]) {
                continue;
            }
            match &c.skip {
                Some(reason) if !self.run_skipped => self.skip(&c.label(), reason),
                _ => {
                    self.run(&c.label(), &c.script);
                }
            }
        }
    }

    /// Runs a one-case-per-line list ([`cases::lines`]): each case is
    /// `setup` followed by the line, named by the line.
    pub fn run_lines(&mut self, setup: &str, list: &str) {
        let cases: Vec<Case> = cases::lines(list)
            .map(|line| Case::new(&self.name, line, format!("{setup}{line}")))
            .collect();
        self.run_cases(&cases);
    }

    /// Runs `script` in a fresh shell of ours and in this suite's bash;
    /// returns whether they agreed.
    pub fn run(&mut self, label: &str, script: &str) -> bool {
        let host = self.host.clone();
        self.run_with(label, script, &host)
    }

    /// Like [`Suite::run`] with bash run as `host` says.
    pub fn run_with(&mut self, label: &str, script: &str, host: &HostBash) -> bool {
        // Both sides run in the same locale (a suite of GNU tools sets
        // LC_ALL=C): it decides how messages quote.
        let locale = host.locale();
        let ours = ours::run_fresh_with(script, &locale);
        if !self.have_bash {
            return self.record(label, script, &ours, None, Vec::new());
        }
        let theirs = host.run(script);
        let problems = self.compare.problems(&ours, &theirs);
        self.record(label, script, &ours, Some(&theirs), problems)
    }

    /// Records a case whose outcomes the caller produced: it passes when
    /// `problems` is empty (or, without bash's outcome, when ours did not
    /// panic); a failure goes into the report with both sides in full.
    pub fn record(
        &mut self,
        label: &str,
        script: &str,
        ours: &Outcome,
        theirs: Option<&Outcome>,
        problems: Vec<String>,
    ) -> bool {
        let ok = match theirs {
            Some(_) => problems.is_empty(),
            None => !ours.panicked(),
        };
        if ok {
            self.passed += 1;
            return true;
        }
        self.failed += 1;
        let r = &mut self.report;
        match theirs {
            Some(theirs) => {
                r.push_str(&format!("\n=== MISMATCH {label}\n"));
                for p in &problems {
                    r.push_str(&format!("  * {p}\n"));
                }
                r.push_str(&format!("--- script:\n{}", show(script.as_bytes())));
                r.push_str(&side("bash", theirs));
            }
            None => {
                r.push_str(&format!("\n=== PANIC {label}\n"));
                r.push_str(&format!("--- script:\n{}", show(script.as_bytes())));
            }
        }
        r.push_str(&side("ours", ours));
        false
    }

    /// Counts a case as skipped, listing why.
    pub fn skip(&mut self, label: &str, reason: &str) {
        self.skipped += 1;
        self.skips.push_str(&format!("  skip {label} ({reason})\n"));
    }

    /// (passed, failed, skipped) so far.
    pub fn counts(&self) -> (usize, usize, usize) {
        (self.passed, self.failed, self.skipped)
    }

    /// Prints the report, the skip list and `name: N passed, F failed, S
    /// skipped`; fails the test when a case failed.
    pub fn finish(self) {
        if !self.report.is_empty() {
            eprintln!("{}", self.report);
        }
        if !self.skips.is_empty() {
            eprintln!("skipped cases:\n{}", self.skips);
        }
        let (name, passed, failed, skipped) = (self.name, self.passed, self.failed, self.skipped);
        eprintln!("{name}: {passed} passed, {failed} failed, {skipped} skipped");
        assert_eq!(
            failed, 0,
            "{failed} case(s) of {name} differ from bash; see the report above"
        );
    }
}

/// `b` indented for a report: each line behind `    |`, control characters
/// other than tab escaped, a missing final newline said.
pub fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.is_empty() {
        return "    (empty)\n".to_string();
    }
    let mut out = String::new();
    for line in s.split_terminator('\n') {
        out.push_str("    |");
        for ch in line.chars() {
            if ch.is_control() && ch != '\t' {
                out.extend(ch.escape_debug());
            } else {
                out.push(ch);
            }
        }
        out.push('\n');
    }
    if !s.ends_with('\n') {
        out.push_str("    (no newline at end)\n");
    }
    out
}

/// One side's outcome for a report: status, stdout, stderr.
fn side(who: &str, o: &Outcome) -> String {
    format!(
        "--- {who} (status {}):\n{}--- {who} stderr:\n{}",
        o.status,
        show(&o.stdout),
        show(&o.stderr)
    )
}

/// Prints one script's outcomes on both sides (debugging aid); bash is
/// skipped when `bash` is false or not on the machine.
pub fn show_both(script: &str, bash: bool) {
    eprint!("{}", side("ours", &ours::run_fresh(script)));
    if bash && bash_available() {
        eprint!("{}", side("bash", &HostBash::new().run(script)));
    }
}
