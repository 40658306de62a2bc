//! `sandkeep mindlog ...` and `sandkeep archive ls`: the host-side stores,
//! read and written without any sandbox.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use sandkeep::archive::{ArchiveEntry, EntryKind};
use sandkeep::mindlog::{Entry, Kind};
use sandkeep::runtime::AgentPaths;
use sandkeep::{Runtime, archive::ArchiveStore, mindlog::Mindlog};

use super::{ArchiveCommand, Cli, MindlogCommand};

fn paths(cli: &Cli, agent: &str) -> anyhow::Result<AgentPaths> {
    let mut builder = Runtime::builder().data_dir(&cli.data);
    if let Some(p) = &cli.workspace_archive {
        builder = builder.workspace_archive(p);
    }
    if let Some(p) = &cli.mindlog_file {
        builder = builder.mindlog_file(p);
    }
    Ok(builder.build().paths(agent)?)
}

fn print_entries(entries: &[Entry], json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    for e in entries {
        if json {
            writeln!(out, "{}", serde_json::to_string(e)?)?;
        } else {
            writeln!(out, "{}  {:<7}  {}", e.at, e.kind.as_str(), e.text)?;
        }
    }
    Ok(())
}

/// Runs a `mindlog` subcommand.
pub fn mindlog(cli: &Cli, cmd: &MindlogCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        MindlogCommand::Append {
            agent,
            kind,
            session,
            text,
        } => {
            let kind: Kind = kind.parse()?;
            let log = Mindlog::new(paths(cli, agent)?.mindlog);
            match log.append(kind, &text.join(" "), session.as_deref())? {
                Some(entry) => println!("{}", entry.id),
                None => eprintln!("sandkeep: nothing appended (the text is blank)"),
            }
        }
        MindlogCommand::Read {
            agent,
            limit,
            before,
            json,
        } => {
            let log = Mindlog::new(paths(cli, agent)?.mindlog);
            print_entries(&log.read(*limit, before.as_deref())?, *json)?;
        }
        MindlogCommand::Search {
            agent,
            query,
            limit,
            json,
        } => {
            let log = Mindlog::new(paths(cli, agent)?.mindlog);
            print_entries(&log.search(query, *limit)?, *json)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs an `archive` subcommand.
pub fn archive(cli: &Cli, cmd: &ArchiveCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        ArchiveCommand::Ls { agent } => {
            let store = ArchiveStore::new(paths(cli, agent)?.archive);
            let Some(tree) = store.list().with_context(|| format!("agent {agent}"))? else {
                eprintln!(
                    "sandkeep: agent {agent} has no workspace archive yet ({})",
                    store.path().display()
                );
                return Ok(ExitCode::from(1));
            };
            let mut out = std::io::stdout().lock();
            for entry in tree.entries.values() {
                writeln!(out, "{}", long_line(entry))?;
            }
            for refused in &tree.refused {
                eprintln!(
                    "sandkeep: warning: refused entry {:?}: {}",
                    refused.name, refused.reason
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `-rw-r--r--       12 2026-12-03 03:10 notes.txt`, like `tar tv`.
fn long_line(e: &ArchiveEntry) -> String {
    let type_char = match e.kind {
        EntryKind::File => '-',
        EntryKind::Dir => 'd',
        EntryKind::Symlink => 'l',
        EntryKind::HardLink => 'h',
    };
    let mut mode = String::with_capacity(10);
    mode.push(type_char);
    for shift in [6, 3, 0] {
        let bits = (e.mode >> shift) & 7;
        mode.push(if bits & 4 != 0 { 'r' } else { '-' });
        mode.push(if bits & 2 != 0 { 'w' } else { '-' });
        mode.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    let when = time::OffsetDateTime::from_unix_timestamp(e.mtime as i64)
        .map(|t| {
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute()
            )
        })
        .unwrap_or_else(|_| "????-??-?? ??:??".into());
    let name = match e.kind {
        EntryKind::Dir => format!("{}/", e.path),
        EntryKind::Symlink => format!("{} -> {}", e.path, e.link.as_deref().unwrap_or("")),
        EntryKind::HardLink => format!("{} link to {}", e.path, e.link.as_deref().unwrap_or("")),
        EntryKind::File => e.path.clone(),
    };
    format!("{mode} {:>10} {when} {name}", e.size())
}
