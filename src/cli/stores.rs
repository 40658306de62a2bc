//! `sandkeep mindlog ...` and `sandkeep archive ...`: the host-side stores,
//! read and written without any sandbox.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use sandkeep::cli_support::names::{self, quote};
use sandkeep::cli_support::parse_duration;
use sandkeep::{
    ChangeStats, Generations, ManifestEntry, ManifestKind, MindlogEntry, MindlogKind, Record,
    Retention, Runtime, StoreError,
};

use super::{ArchiveCommand, Cli, MindlogCommand};

fn print_entries(entries: &[MindlogEntry], json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    for e in entries {
        if json {
            writeln!(out, "{}", serde_json::to_string(e)?)?;
        } else {
            match &e.generation {
                Some(g) => writeln!(out, "{}  {:<7}  [{g}]  {}", e.at, e.kind.as_str(), e.text)?,
                None => writeln!(out, "{}  {:<7}  {}", e.at, e.kind.as_str(), e.text)?,
            }
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
            let kind: MindlogKind = kind.parse()?;
            let log = runtime(cli).mindlog(agent)?;
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
            let log = runtime(cli).mindlog(agent)?;
            print_entries(&log.read(*limit, before.as_deref())?, *json)?;
        }
        MindlogCommand::Search {
            agent,
            query,
            limit,
            json,
        } => {
            let log = runtime(cli).mindlog(agent)?;
            print_entries(&log.search(query, *limit)?, *json)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs an `archive` subcommand.
pub fn archive(cli: &Cli, cmd: &ArchiveCommand) -> anyhow::Result<ExitCode> {
    let gens =
        |agent: &str| -> anyhow::Result<Generations> { Ok(runtime(cli).generations(agent)?) };
    let mut out = std::io::stdout().lock();
    match cmd {
        ArchiveCommand::Log { agent, limit } => {
            let log = gens(agent)?.log(*limit)?;
            if log.is_empty() {
                eprintln!("sandkeep: agent {agent} has no generations yet");
                return Ok(ExitCode::from(1));
            }
            for r in log {
                writeln!(out, "{}", log_line(&r))?;
            }
        }
        ArchiveCommand::Diff {
            agent,
            from,
            to,
            stat,
        } => {
            let g = gens(agent)?;
            let from = g.resolve(from.as_deref().unwrap_or("HEAD~1"))?;
            let to = g.resolve(to.as_deref().unwrap_or("HEAD"))?;
            let changes = g.manifest(&from)?.diff(&*g.manifest(&to)?);
            let mut total = 0;
            for c in changes.iter().filter(|c| c.entry_kind != ManifestKind::Dir) {
                if *stat {
                    writeln!(out, "{}\t{}\t{}", c.kind.letter(), quote(&c.path), c.size)?;
                    total += c.size;
                } else {
                    writeln!(out, "{}\t{}", c.kind.letter(), quote(&c.path))?;
                }
            }
            if *stat {
                writeln!(out, "{}, {total} bytes", ChangeStats::of(&changes))?;
            }
        }
        ArchiveCommand::Show { agent, spec } => {
            let (generation, path) = spec
                .split_once(':')
                .context("give GEN:PATH, e.g. HEAD:notes.txt")?;
            let g = gens(agent)?;
            let id = g.resolve(generation)?;
            let tree = g.manifest(&id)?;
            // A name as `archive ls` quoted it reads back to its bytes.
            let unquoted = quote_path(path);
            let path = unquoted.trim_start_matches("./").trim_start_matches('/');
            let path = path.strip_prefix("workspace/").unwrap_or(path);
            let entry = tree
                .entries
                .get(path)
                .with_context(|| format!("generation {id} has no {}", quote(path)))?;
            match (entry.kind, entry.hash) {
                (ManifestKind::File, Some(h)) => out.write_all(&g.store().read_blob(&h)?)?,
                (ManifestKind::Symlink, _) => {
                    out.write_all(&names::to_bytes(entry.link.as_deref().unwrap_or("")))?;
                    out.write_all(b"\n")?;
                }
                _ => anyhow::bail!("{} is a directory in generation {id}", quote(path)),
            }
        }
        ArchiveCommand::Ls { agent, generation } => {
            let g = gens(agent)?;
            let id = match g.resolve(generation.as_deref().unwrap_or("HEAD")) {
                Err(StoreError::Empty) => {
                    eprintln!("sandkeep: agent {agent} has no workspace kept yet");
                    return Ok(ExitCode::from(1));
                }
                other => other?,
            };
            for (path, e) in &g.manifest(&id)?.entries {
                writeln!(out, "{}", long_line(path, e))?;
            }
        }
        ArchiveCommand::Checkout { agent, generation } => {
            let g = gens(agent)?;
            let id = g.resolve(generation)?;
            let c = g.checkout(&id)?;
            println!("{}", c.record.id);
        }
        ArchiveCommand::Fork {
            agent,
            to,
            generation,
        } => {
            let g = gens(agent)?;
            let id = g.resolve(generation.as_deref().unwrap_or("HEAD"))?;
            let c = g.fork_to(&gens(to)?, &id)?;
            println!("{}", c.record.id);
        }
        ArchiveCommand::Export {
            agent,
            generation,
            output,
        } => {
            let g = gens(agent)?;
            let id = g.resolve(generation.as_deref().unwrap_or("HEAD"))?;
            let bytes = g.export_tgz(&id)?;
            if output.as_os_str() == "-" {
                out.write_all(&bytes)?;
            } else {
                sandkeep::cli_support::write_atomic(output, &bytes)
                    .with_context(|| format!("writing {}", output.display()))?;
            }
        }
        ArchiveCommand::Import { agent, file } => {
            let bytes =
                std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
            let c = gens(agent)?.import_tgz(&bytes, &format!("import of {}", file.display()))?;
            println!("{}", c.record.id);
        }
        ArchiveCommand::Verify { agent } => {
            let problems = gens(agent)?.verify()?;
            for p in &problems {
                eprintln!("sandkeep: damaged: {p}");
            }
            if !problems.is_empty() {
                return Ok(ExitCode::from(1));
            }
            eprintln!("sandkeep: every generation of {agent} verifies");
        }
        ArchiveCommand::Repair { agent } => match gens(agent)?.repair()? {
            Some(r) => eprintln!(
                "sandkeep: HEAD named {} ({}); it names {} now, the newest generation that reads whole",
                r.broken, r.reason, r.head
            ),
            None => eprintln!("sandkeep: the head of {agent} reads whole; nothing to repair"),
        },
        ArchiveCommand::Gc {
            agent,
            keep,
            keep_within,
        } => {
            let mut retention = Retention::default();
            if let Some(n) = keep {
                retention = Retention::newest(*n);
            }
            if let Some(d) = keep_within {
                let age = parse_duration(d)
                    .with_context(|| format!("--keep-within: not a duration: {d}"))?;
                retention = retention.within(Some(age));
            } else if keep.is_some() {
                retention = retention.within(None);
            }
            let report = gens(agent)?.gc(retention)?;
            println!(
                "kept {} generation(s), removed {}, freed {} bytes",
                report.kept, report.removed, report.freed_bytes
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The stores need no sandbox: the default (local) backend is never used.
fn runtime(cli: &Cli) -> Runtime {
    super::run::runtime_builder(cli).build()
}

/// `2026-12-04 03:10:00`, UTC.
fn utc(secs: i64) -> String {
    sandkeep::cli_support::utc_seconds(secs).unwrap_or_else(|| "????-??-?? ??:??:??".into())
}

/// `ID  TIME  SESSION  +A ~M -D  N bytes new  [note]`.
fn log_line(r: &Record) -> String {
    let mut line = format!(
        "{}  {}Z  {}  {}  {} bytes new",
        r.id,
        utc(r.created),
        r.session.as_deref().unwrap_or("-"),
        r.stats,
        r.stats.bytes_new
    );
    if let Some(note) = &r.note {
        line.push_str(&format!("  ({note})"));
    }
    line
}

/// `-rw-r--r--       12 2026-12-03 03:10 notes.txt`, like `tar tv`.
/// `GEN:PATH`'s path: a name in git's quotes (as `archive ls` prints one
/// that is not printable UTF-8) is read back to the name it stands for;
/// anything else is taken as it is.
fn quote_path(path: &str) -> String {
    if let Some(name) = names::unquote(path) {
        return name;
    }
    path.to_string()
}

fn long_line(path: &str, e: &ManifestEntry) -> String {
    let type_char = match e.kind {
        ManifestKind::File => '-',
        ManifestKind::Dir => 'd',
        ManifestKind::Symlink => 'l',
    };
    let mut mode = String::with_capacity(10);
    mode.push(type_char);
    for shift in [6, 3, 0] {
        let bits = (e.mode >> shift) & 7;
        mode.push(if bits & 4 != 0 { 'r' } else { '-' });
        mode.push(if bits & 2 != 0 { 'w' } else { '-' });
        mode.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    let when = &utc(e.mtime)[..16];
    // Names that are not printable UTF-8 are quoted as git quotes them.
    let shown = quote(path);
    let name = match e.kind {
        ManifestKind::Dir => format!("{shown}/"),
        ManifestKind::Symlink => format!("{shown} -> {}", quote(e.link.as_deref().unwrap_or(""))),
        ManifestKind::File => shown.into_owned(),
    };
    format!("{mode} {:>10} {when} {name}", e.size)
}
