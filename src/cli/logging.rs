//! Log output of the CLI: plain lines on stderr, never on stdout (which
//! belongs to the script). `[workspace-sync]` lines show by default, `-q`
//! hides them, `RUST_LOG` tunes everything else.

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// The module whose info lines are the `[workspace-sync]` outcomes.
const SYNC_TARGET: &str = "sandkeep::hooks::workspace_sync";

/// The module whose info lines are the `[schedule]` events (next fire times,
/// skipped and queued fires, shutdown); shown and hidden like the sync lines.
const SCHEDULE_TARGET: &str = "sandkeep::schedule";

/// Installs the stderr logger.
pub fn init(quiet: bool) {
    let base = std::env::var("RUST_LOG")
        .ok()
        .filter(|s| !s.trim().is_empty());
    let Some(base) = base else {
        // The usual case: fixed per-target levels, no directive parsing (an
        // `EnvFilter` compiles regexes to parse them: a tenth of a
        // millisecond of every `sandkeep run`).
        let tagged = if quiet { Level::WARN } else { Level::INFO };
        let targets = Targets::new()
            .with_default(Level::WARN)
            .with_target(SYNC_TARGET, tagged)
            .with_target(SCHEDULE_TARGET, tagged);
        let _ = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .event_format(PlainFormat),
            )
            .with(targets)
            .try_init();
        return;
    };
    let mut directives = base.clone();
    let mentions_sync = base.contains(SYNC_TARGET);
    if quiet {
        directives.push_str(&format!(",{SYNC_TARGET}=warn,{SCHEDULE_TARGET}=warn"));
    } else if !mentions_sync {
        directives.push_str(&format!(",{SYNC_TARGET}=info,{SCHEDULE_TARGET}=info"));
    }
    let filter = EnvFilter::try_new(&directives).unwrap_or_else(|e| {
        eprintln!("sandkeep: ignoring RUST_LOG ({e})");
        EnvFilter::new(format!("warn,{SYNC_TARGET}=info"))
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .event_format(PlainFormat)
        .try_init();
}

/// `message key=value ...`, prefixed with the level for warnings and errors
/// unless the message carries its own tag (`[workspace-sync] ...`).
struct PlainFormat;

impl<S, N> FormatEvent<S, N> for PlainFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut text = String::new();
        ctx.field_format()
            .format_fields(Writer::new(&mut text), event)?;
        if !text.starts_with('[') {
            match *event.metadata().level() {
                Level::ERROR => writer.write_str("sandkeep: error: ")?,
                Level::WARN => writer.write_str("sandkeep: warning: ")?,
                Level::INFO => writer.write_str("sandkeep: ")?,
                level => write!(
                    writer,
                    "sandkeep: {}: ",
                    level.as_str().to_ascii_lowercase()
                )?,
            }
        }
        writeln!(writer, "{text}")
    }
}
