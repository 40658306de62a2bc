//! The lines an operator reads (the `[workspace-sync] ...` outcomes, the
//! network policy's denials) carried to the MCP client as
//! `notifications/message`.
//!
//! The MCP server runs its session work (start, every tool call) under a
//! [`Tap`]: a tracing subscriber that hands every event to the one that was
//! in place (the CLI's stderr logger, or none) and also keeps the events of
//! the sync hook and the network log (the local backend runs each command
//! under its caller's subscriber). What it kept is sent at the end of
//! each call, and at `logging/setLevel` (so the restore at session start is
//! not lost), filtered by the level the client asked for; before a client
//! asks for a level nothing is sent.

use std::sync::{Arc, Mutex};

#[allow(deprecated)]
use rmcp::model::LoggingLevel;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Level, Metadata, Subscriber};

/// The modules whose events become MCP log messages, and the logger name
/// each is sent under.
const TAPPED: &[(&str, &str)] = &[
    ("sandkeep::hooks::workspace_sync", "workspace-sync"),
    ("sandkeep::netlog", "network"),
];

/// Lines kept while no level is set or between sends, at most.
const MAX_PENDING: usize = 256;

/// One kept line.
#[derive(Clone, Debug)]
pub struct Line {
    pub level: Level,
    pub logger: &'static str,
    pub text: String,
}

fn logger_of(meta: &Metadata<'_>) -> Option<&'static str> {
    TAPPED
        .iter()
        .find(|(target, _)| {
            meta.target() == *target || meta.target().starts_with(&format!("{target}::"))
        })
        .map(|(_, name)| *name)
}

/// A subscriber that forwards to `inner` and keeps the tapped lines.
pub struct Tap {
    inner: Dispatch,
    pending: Arc<Mutex<Vec<Line>>>,
    /// The most verbose level any subscriber wanted when the tap was made,
    /// and at least info (the tapped lines' level).
    hint: LevelFilter,
}

impl Tap {
    /// A tap over the current default subscriber; its kept lines go to `pending`.
    pub fn dispatch(pending: Arc<Mutex<Vec<Line>>>) -> Dispatch {
        Dispatch::new(Tap {
            inner: tracing::dispatcher::get_default(Dispatch::clone),
            pending,
            hint: LevelFilter::current().max(LevelFilter::INFO),
        })
    }
}

/// The `message` field of an event, as its text.
struct MessageText(String);

impl Visit for MessageText {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = value.to_string();
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl Subscriber for Tap {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if logger_of(meta).is_some() {
            Interest::sometimes()
        } else {
            self.inner.register_callsite(meta)
        }
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        (logger_of(meta).is_some() && meta.is_event()) || self.inner.enabled(meta)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        // The inner subscriber's own hint is not readable through its
        // Dispatch; the global maximum taken before the tap existed is its.
        Some(self.hint)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner.record(span, values)
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner.record_follows_from(span, follows)
    }

    fn event(&self, event: &Event<'_>) {
        let meta = event.metadata();
        if let Some(logger) = logger_of(meta) {
            let mut text = MessageText(String::new());
            event.record(&mut text);
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            if pending.len() >= MAX_PENDING {
                pending.remove(0);
            }
            pending.push(Line {
                level: *meta.level(),
                logger,
                text: text.0,
            });
        }
        if self.inner.enabled(meta) {
            self.inner.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        self.inner.enter(span)
    }

    fn exit(&self, span: &Id) {
        self.inner.exit(span)
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner.try_close(id)
    }
}

/// MCP's level for a tracing level.
#[allow(deprecated)]
pub fn mcp_level(level: Level) -> LoggingLevel {
    match level {
        Level::ERROR => LoggingLevel::Error,
        Level::WARN => LoggingLevel::Warning,
        Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

/// The rank of an MCP level, least severe first.
#[allow(deprecated)]
pub fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tap_keeps_sync_lines_and_forwards_everything() {
        let pending = Arc::new(Mutex::new(Vec::new()));
        let dispatch = Tap::dispatch(pending.clone());
        tracing::dispatcher::with_default(&dispatch, || {
            tracing::info!(target: "sandkeep::hooks::workspace_sync", "[workspace-sync] s1 kept generation abc");
            tracing::warn!(target: "sandkeep::hooks::workspace_sync::inner", "[workspace-sync] s1 gc failed: x");
            tracing::info!(target: "sandkeep::netlog", "network policy denied GET example.com:443 (x)");
            tracing::info!(target: "sandkeep::other", "not tapped");
            tracing::info!(target: "sandkeep::hooks::workspace_syncs", "a prefix is not the module");
        });
        let lines = pending.lock().unwrap().clone();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[0].text, "[workspace-sync] s1 kept generation abc");
        assert_eq!(lines[0].logger, "workspace-sync");
        assert_eq!(lines[0].level, Level::INFO);
        assert_eq!(lines[1].text, "[workspace-sync] s1 gc failed: x");
        assert_eq!(lines[1].level, Level::WARN);
        assert_eq!(lines[2].logger, "network");
    }

    #[test]
    #[allow(deprecated)]
    fn levels_rank_by_severity() {
        assert!(rank(mcp_level(Level::WARN)) > rank(LoggingLevel::Info));
        assert!(rank(LoggingLevel::Debug) < rank(LoggingLevel::Emergency));
    }
}
