//! The todo list of a rebase as git keeps it (`pick ID subject` lines in
//! `.git/rebase-merge/git-rebase-todo`) and what `-i` adds: the list
//! handed to `GIT_SEQUENCE_EDITOR` (run by the sandbox's shell on the
//! file), `--autosquash` ordering `fixup!`/`squash!` commits after their
//! target, `--exec` lines, and the steps besides `pick`: `reword`, `edit`,
//! `squash`, `fixup`, `exec`, `drop`, `break`.

use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::G;
use crate::error::{GitError, Result};
use crate::repo::Repo;

/// One step of a todo list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `pick`, `reword`, `edit`, `squash`, `fixup`, `drop`: a commit.
    Commit(Verb, ObjectId),
    /// `exec CMD`.
    Exec(String),
    /// `break`.
    Break,
}

/// What happens to a commit of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// Applied as it is.
    Pick,
    /// Applied, then its message edited.
    Reword,
    /// Applied, then the rebase stops.
    Edit,
    /// Folded into the previous commit, messages joined.
    Squash,
    /// Folded into the previous commit, its message dropped.
    Fixup,
    /// Left out.
    Drop,
}

impl Verb {
    fn parse(word: &str) -> Option<Verb> {
        Some(match word {
            "pick" | "p" => Verb::Pick,
            "reword" | "r" => Verb::Reword,
            "edit" | "e" => Verb::Edit,
            "squash" | "s" => Verb::Squash,
            "fixup" | "f" => Verb::Fixup,
            "drop" | "d" => Verb::Drop,
            _ => return None,
        })
    }

    /// The word git writes.
    pub fn word(self) -> &'static str {
        match self {
            Verb::Pick => "pick",
            Verb::Reword => "reword",
            Verb::Edit => "edit",
            Verb::Squash => "squash",
            Verb::Fixup => "fixup",
            Verb::Drop => "drop",
        }
    }
}

/// `VERB ID subject`.
pub fn commit_line(repo: &Repo<'_>, verb: Verb, id: &ObjectId) -> Result<String> {
    let c = repo.commit(id)?;
    Ok(format!(
        "{} {} {}",
        verb.word(),
        repo.abbrev(id),
        super::status::subject(&c.message.to_str_lossy())
    ))
}

/// Parses one todo line (comments and blank lines give `None`).
pub fn parse_line(repo: &Repo<'_>, line: &str) -> Result<Option<Step>> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let (word, rest) = t.split_once([' ', '\t']).unwrap_or((t, ""));
    match word {
        "exec" | "x" => return Ok(Some(Step::Exec(rest.trim().to_string()))),
        "break" | "b" => return Ok(Some(Step::Break)),
        _ => {}
    }
    let Some(verb) = Verb::parse(word) else {
        return Err(GitError::Raw(
            format!(
                "error: invalid command '{word}'\nerror: invalid line: {t}\nYou can fix this with 'git rebase --edit-todo' and then run 'git rebase --continue'.\nOr you can abort the rebase with 'git rebase --abort'."
            ),
            1,
        ));
    };
    // `fixup -C ID` / `fixup -c ID`: the flag is read as a plain fixup.
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix("-C ")
        .or_else(|| rest.strip_prefix("-c "))
        .unwrap_or(rest);
    let short = rest.split_whitespace().next().unwrap_or("");
    let found = repo.ids_with_prefix(short);
    match found.first() {
        Some(id) if !short.is_empty() => Ok(Some(Step::Commit(verb, *id))),
        _ => Err(GitError::Raw(
            format!(
                "error: invalid line: {t}\nYou can fix this with 'git rebase --edit-todo' and then run 'git rebase --continue'.\nOr you can abort the rebase with 'git rebase --abort'."
            ),
            1,
        )),
    }
}

/// The steps of a todo text.
pub fn parse_todo(repo: &Repo<'_>, text: &str) -> Result<Vec<Step>> {
    let mut out = Vec::new();
    for l in text.lines() {
        if let Some(s) = parse_line(repo, l)? {
            out.push(s);
        }
    }
    Ok(out)
}

/// A step as a todo line.
pub fn step_line(repo: &Repo<'_>, step: &Step) -> Result<String> {
    Ok(match step {
        Step::Commit(v, id) => commit_line(repo, *v, id)?,
        Step::Exec(cmd) => format!("exec {cmd}"),
        Step::Break => "break".into(),
    })
}

/// `--autosquash`: each `fixup! X`/`squash! X`/`amend! X` commit moved
/// after the commit whose subject is X (or starts with it, or whose id
/// starts with X), as fixup or squash.
pub fn autosquash(repo: &Repo<'_>, ids: &[ObjectId]) -> Result<Vec<Step>> {
    let subjects: Vec<String> = ids
        .iter()
        .map(|id| {
            repo.commit(id)
                .map(|c| super::status::subject(&c.message.to_str_lossy()))
        })
        .collect::<Result<_>>()?;
    let mut placed = vec![false; ids.len()];
    let mut followers: Vec<Vec<(Verb, usize)>> = vec![Vec::new(); ids.len()];
    for (i, s) in subjects.iter().enumerate() {
        let (verb, target) = if let Some(t) = s.strip_prefix("fixup! ") {
            (Verb::Fixup, t)
        } else if let Some(t) = s.strip_prefix("amend! ") {
            (Verb::Fixup, t)
        } else if let Some(t) = s.strip_prefix("squash! ") {
            (Verb::Squash, t)
        } else {
            continue;
        };
        // The target: an earlier commit (itself maybe a fixup of another).
        let target = target.trim();
        let found = (0..i).find(|&j| {
            let subj = subjects[j].as_str();
            subj == target
                || repo.abbrev(&ids[j]).starts_with(target)
                || ids[j].to_hex().to_string().starts_with(target)
        });
        let found = found.or_else(|| (0..i).find(|&j| subjects[j].starts_with(target)));
        if let Some(j) = found {
            let mut root = j;
            while let Some(r) = (0..ids.len()).find(|&k| followers[k].iter().any(|f| f.1 == root)) {
                root = r;
            }
            followers[root].push((verb, i));
            placed[i] = true;
        }
    }
    let mut out = Vec::new();
    for i in 0..ids.len() {
        if placed[i] {
            continue;
        }
        out.push(Step::Commit(Verb::Pick, ids[i]));
        for (verb, k) in &followers[i] {
            out.push(Step::Commit(*verb, ids[*k]));
        }
    }
    Ok(out)
}

/// `--exec CMD`: an `exec` line after each commit (after its fixups).
pub fn add_exec(steps: Vec<Step>, cmds: &[String]) -> Vec<Step> {
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        out.push(s.clone());
        let is_commit = matches!(s, Step::Commit(v, _) if *v != Verb::Drop);
        let next_folds = matches!(
            steps.get(i + 1),
            Some(Step::Commit(Verb::Squash | Verb::Fixup, _))
        );
        if is_commit && !next_folds {
            out.extend(cmds.iter().map(|c| Step::Exec(c.clone())));
        }
    }
    out
}

/// The help git appends to the todo list the editor sees.
pub fn help_text(repo: &Repo<'_>, onto: &ObjectId, head: &ObjectId, count: usize) -> String {
    let range = format!("{}..{}", repo.abbrev(onto), repo.abbrev(head));
    let s = if count == 1 { "" } else { "s" };
    format!(
        "\n# Rebase {range} onto {} ({count} command{s})\n#\n# Commands:\n# p, pick <commit> = use commit\n# r, reword <commit> = use commit, but edit the commit message\n# e, edit <commit> = use commit, but stop for amending\n# s, squash <commit> = use commit, but meld into previous commit\n# f, fixup [-C | -c] <commit> = like \"squash\" but keep only the previous\n#                    commit's log message, unless -C is used, in which case\n#                    keep only this commit's message; -c is same as -C but\n#                    opens the editor\n# x, exec <command> = run command (the rest of the line) using shell\n# b, break = stop here (continue rebase later with 'git rebase --continue')\n# d, drop <commit> = remove commit\n#\n# These lines can be re-ordered; they are executed from top to bottom.\n#\n# If you remove a line here THAT COMMIT WILL BE LOST.\n#\n# However, if you remove everything, the rebase will be aborted.\n#\n",
        repo.abbrev(onto)
    )
}

/// Runs an editor command line on `path` through the sandbox's shell, its
/// output on the command's streams; the editor's status.
pub fn run_editor(g: &mut G<'_, '_>, editor: &str, path: &str) -> i32 {
    let argv = vec![
        "sh".to_string(),
        "-c".to_string(),
        format!("{editor} \"$@\""),
        editor.to_string(),
        path.to_string(),
    ];
    run_shell(g, argv)
}

/// Runs `cmd` through the sandbox's shell (an `exec` line); its status.
pub fn run_command(g: &mut G<'_, '_>, cmd: &str) -> i32 {
    run_shell(g, vec!["sh".into(), "-c".into(), cmd.to_string()])
}

fn run_shell(g: &mut G<'_, '_>, argv: Vec<String>) -> i32 {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut empty: &[u8] = &[];
    let status = g.exec.exec(sandkeep_shell::ExecRequest {
        argv: &argv,
        env: &[],
        cwd: &g.cwd,
        stdin: &mut empty,
        stdout: &mut out,
        stderr: &mut err,
        mode: sandkeep_shell::ExecMode::Inherit,
    });
    g.out.extend_from_slice(&out);
    g.err.extend_from_slice(&err);
    status
}

/// The editor for commit messages (`GIT_EDITOR`, `core.editor`, `VISUAL`,
/// `EDITOR`); `None` when none is set or it does nothing (`true`, `:`).
pub fn message_editor(g: &G<'_, '_>, repo: &Repo<'_>) -> Option<String> {
    let e = g
        .getenv("GIT_EDITOR")
        .map(str::to_string)
        .or_else(|| super::config_get(g, Some(repo), "core.editor"))
        .or_else(|| g.getenv("VISUAL").map(str::to_string))
        .or_else(|| g.getenv("EDITOR").map(str::to_string))?;
    (!matches!(e.trim(), "" | "true" | ":")).then_some(e)
}

/// The sequence editor (`GIT_SEQUENCE_EDITOR`, `sequence.editor`, then the
/// message editor's order); `None` when it does nothing.
pub fn sequence_editor(g: &G<'_, '_>, repo: &Repo<'_>) -> Option<String> {
    let e = g
        .getenv("GIT_SEQUENCE_EDITOR")
        .map(str::to_string)
        .or_else(|| super::config_get(g, Some(repo), "sequence.editor"));
    match e {
        Some(e) => (!matches!(e.trim(), "" | "true" | ":")).then_some(e),
        None => message_editor(g, repo),
    }
}

/// Lets the message editor change `msg` (through `.git/COMMIT_EDITMSG`);
/// the message cleaned up as `commit` does.
pub fn edit_message(g: &mut G<'_, '_>, repo: &Repo<'_>, msg: &str) -> Result<String> {
    let Some(editor) = message_editor(g, repo) else {
        return Ok(super::status::cleanup_message(msg, true));
    };
    let path = repo.gp("COMMIT_EDITMSG");
    repo.fs.write(&path, msg.as_bytes())?;
    if run_editor(g, &editor, &path) != 0 {
        return Err(GitError::Raw(
            format!("error: there was a problem with the editor '{editor}'"),
            1,
        ));
    }
    let data = repo.fs.read(&path)?;
    Ok(super::status::cleanup_message(
        &String::from_utf8_lossy(&data),
        true,
    ))
}

/// The message of a squash chain: the previous one, then this commit's
/// (a `squash! X` subject left out, as git comments it out).
pub fn squash_message(prev: &str, this: &str) -> String {
    let this = match this.strip_prefix("squash! ") {
        Some(rest) => rest
            .split_once('\n')
            .map_or("", |x| x.1)
            .trim_start_matches('\n'),
        None => this,
    };
    let mut m = prev.trim_end().to_string();
    if !this.trim().is_empty() {
        m.push_str("\n\n");
        m.push_str(this.trim_end());
    }
    m.push('\n');
    m
}

/// What git says when an `edit` stops.
pub fn stopped_at(g: &mut G<'_, '_>, repo: &Repo<'_>, id: &ObjectId) -> Result<()> {
    let c = repo.commit(id)?;
    let _ = writeln!(
        g.err,
        "Stopped at {}...  {}\nYou can amend the commit now, with\n\n  git commit --amend \n\nOnce you are satisfied with your changes, run\n\n  git rebase --continue",
        repo.abbrev(id),
        super::status::subject(&c.message.to_str_lossy())
    );
    Ok(())
}
