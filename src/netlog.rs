//! Files network denials in the event log of the session that made them
//! (feature `net`). The backend's [`sandkeep_net::Egress`] is shared by every
//! sandbox it creates; each sandbox's `curl`/`wget` (local) or egress relay
//! (docker) get a handle scoped to its session id, and this registry maps that id to the session's open
//! [`EventLog`], so each denial becomes one `net.denied` record (host, port,
//! method, why, the policy in force; never a header value) in the right log.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::eventlog::EventLog;

/// Open event logs by session id.
#[derive(Clone, Debug, Default)]
pub(crate) struct NetLogs {
    logs: Arc<Mutex<HashMap<String, EventLog>>>,
}

impl NetLogs {
    /// Files the denials of session `id` in `log` from now on.
    pub(crate) fn register(&self, id: &str, log: EventLog) {
        self.logs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_string(), log);
    }

    /// Stops filing for session `id`.
    pub(crate) fn unregister(&self, id: &str) {
        self.logs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    /// Makes `egress` report its denials here.
    pub(crate) fn attach(&self, egress: &sandkeep_net::Egress) {
        let logs = self.logs.clone();
        egress.on_denial(Arc::new(move |d: &sandkeep_net::Denial| {
            tracing::info!(
                "network policy denied {} {}:{} ({})",
                d.method,
                d.host,
                d.port,
                d.reason
            );
            let Some(scope) = &d.scope else { return };
            let log = logs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(scope)
                .cloned();
            if let Some(log) = log {
                log.record(
                    "net.denied",
                    json!({
                        "session": scope,
                        "method": d.method,
                        "host": d.host,
                        "port": d.port,
                        "reason": d.reason,
                        "allowed": d.allowed,
                    }),
                );
            }
        }));
    }
}
