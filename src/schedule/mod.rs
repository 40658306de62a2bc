//! Markdown schedules: every cron fire starts a new session of the
//! schedule's agent; the workspace archive and mindlog are what let fire 2
//! see fire 1's work.
//!
//! ```
//! use sandkeep::ScheduleFile;
//!
//! let text = "---\ncron: \"*/15 * * * *\"\nagent: thinker\n---\nLook around.\n\n```bash\necho hi\n```\n";
//! let schedule = sandkeep::parse_schedule(std::path::Path::new("think.md"), text).unwrap();
//! assert_eq!(schedule.agent, "thinker");
//! assert_eq!(schedule.scripts, ["echo hi"]);
//! ```

mod cron;
mod file;
mod fire;
mod scheduler;

pub use cron::{CronError, CronSpec};
pub use file::{Overlap, ScheduleFile, ScheduleFileError, parse as parse_file};
pub use fire::{Agent, FireError, FireReport, ScriptAgent, fire};
pub use scheduler::{Scheduler, own_runtime_key};

use std::path::Path;

/// Loads every `*.md` in `dir`, sorted by name: the schedules that parse,
/// and an error (naming the file and line) for each that does not.
pub fn load_dir(dir: &Path) -> std::io::Result<(Vec<ScheduleFile>, Vec<ScheduleFileError>)> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    paths.sort();
    let (mut ok, mut bad) = (Vec::new(), Vec::new());
    for path in paths {
        match std::fs::read_to_string(&path) {
            Ok(text) => match parse_file(&path, &text) {
                Ok(s) => ok.push(s),
                Err(e) => bad.push(e),
            },
            Err(e) => bad.push(ScheduleFileError {
                path,
                line: None,
                message: e.to_string(),
            }),
        }
    }
    Ok((ok, bad))
}
