//! `sandkeep schedule`: load markdown schedules and fire them (forever, once,
//! or just list them).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use sandkeep::{BackendChoice, FireError, FireReport, ScheduleFile, Scheduler};

use super::run::{backend_for, runtime};
use super::{Cli, ScheduleArgs};

/// Prints a fire's output on stdout, each line prefixed with the schedule's
/// name; errors and stderr go to stderr the same way.
fn print_report(schedule: &ScheduleFile, result: Result<&FireReport, &FireError>) {
    let prefix = |text: &str, out: &mut dyn Write| {
        for line in text.lines() {
            let _ = writeln!(out, "[{}] {line}", schedule.name);
        }
    };
    match result {
        Ok(report) => {
            prefix(&report.stdout, &mut std::io::stdout().lock());
            prefix(&report.stderr, &mut std::io::stderr().lock());
            if report.status != 0 {
                tracing::warn!(
                    "[schedule] {} exited with status {}",
                    schedule.name,
                    report.status
                );
            }
        }
        Err(e) => prefix(&format!("error: {e}"), &mut std::io::stderr().lock()),
    }
}

async fn wait_for_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

pub async fn schedule(cli: &Cli, args: &ScheduleArgs) -> anyhow::Result<ExitCode> {
    let dir = args.dir.as_deref().unwrap_or(Path::new("schedules"));
    let (schedules, errors) = sandkeep::load_schedules(dir)
        .with_context(|| format!("reading schedules from {}", dir.display()))?;
    for e in &errors {
        eprintln!("sandkeep: schedule {e}");
    }
    if args.list {
        let now = chrono::Utc::now();
        for s in &schedules {
            let next: Vec<String> = s
                .cron
                .next_fires(now, 3)
                .iter()
                .filter_map(|t| sandkeep::cli_support::rfc3339_secs(t.timestamp()))
                .collect();
            println!(
                "{}\tagent={}\tcron={:?}\tnext: {}",
                s.name,
                s.agent,
                s.cron.source,
                next.join(", ")
            );
        }
        return Ok(if errors.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }

    let default_backend = backend_for(&args.backend).await?;
    let mut scheduler = Scheduler::new(runtime(cli, default_backend)).on_report(print_report);
    for name in ["local", "docker", "auto"] {
        if schedules.iter().any(|s| s.backend.as_deref() == Some(name)) {
            let choice: BackendChoice = name.parse().map_err(anyhow::Error::msg)?;
            let backend = backend_for(&super::BackendArgs {
                backend: Some(choice),
                allow_net: args.backend.allow_net.clone(),
                net_header: args.backend.net_header.clone(),
                isolation: args.backend.isolation,
                storage: args.backend.storage,
            })
            .await?;
            scheduler = scheduler.with_backend(name, runtime(cli, backend));
        }
    }
    // `allow_net:` in a schedule's frontmatter: its own runtime, whose
    // egress has the scheduler's rules and the schedule's.
    for s in schedules.iter().filter(|s| !s.allow_net.is_empty()) {
        let choice = match &s.backend {
            Some(b) => Some(b.parse::<BackendChoice>().map_err(anyhow::Error::msg)?),
            None => args.backend.backend,
        };
        let mut allow_net = args.backend.allow_net.clone();
        allow_net.extend(s.allow_net.iter().cloned());
        let backend = backend_for(&super::BackendArgs {
            backend: choice,
            allow_net,
            net_header: args.backend.net_header.clone(),
            isolation: args.backend.isolation,
            storage: args.backend.storage,
        })
        .await?;
        scheduler =
            scheduler.with_backend(sandkeep::schedule_runtime_key(s), runtime(cli, backend));
    }

    if let Some(name) = &args.once {
        let Some(s) = schedules.iter().find(|s| &s.name == name) else {
            bail!("no schedule named {name:?} in {}", dir.display());
        };
        return Ok(match scheduler.fire_now(s).await {
            Ok(report) => ExitCode::from(report.status.clamp(0, 255) as u8),
            Err(_) => ExitCode::from(1),
        });
    }
    if schedules.is_empty() {
        bail!("no usable schedule in {}", dir.display());
    }
    let scheduler = Arc::new(scheduler);
    Scheduler::clone(&scheduler)
        .run(schedules, wait_for_signal())
        .await?;
    Ok(ExitCode::SUCCESS)
}
