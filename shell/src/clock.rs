//! The sandbox's wall clock: real, or fixed for reproducible runs.

use std::time::{SystemTime, UNIX_EPOCH};

/// A timestamp: seconds and nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    pub secs: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
}

/// Where `date`, mtimes and `$SECONDS` get the time from.
#[derive(Clone, Copy, Debug)]
pub enum Clock {
    /// The host's wall clock (read-only; nothing in the sandbox can set it).
    Real,
    /// Always this many seconds since the epoch.
    Fixed(i64),
}

impl Clock {
    /// The host's wall clock.
    pub fn real() -> Clock {
        Clock::Real
    }

    /// A clock stopped at `epoch_secs`.
    pub fn fixed(epoch_secs: i64) -> Clock {
        Clock::Fixed(epoch_secs)
    }

    /// The current time.
    pub fn now(&self) -> Timestamp {
        match self {
            Clock::Real => {
                let d = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default();
                Timestamp {
                    secs: d.as_secs() as i64,
                    nanos: d.subsec_nanos(),
                }
            }
            Clock::Fixed(secs) => Timestamp {
                secs: *secs,
                nanos: 0,
            },
        }
    }

    /// True for a fixed clock.
    pub fn is_fixed(&self) -> bool {
        matches!(self, Clock::Fixed(_))
    }
}
