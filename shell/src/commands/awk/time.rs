//! gawk's time functions over the sandbox clock, always in UTC (the sandbox
//! has no time zones): `strftime()` formatting and `mktime()` parsing.

use crate::time::{self, Flavor};

/// `strftime(fmt, t, utc)` in the C locale, as glibc's `strftime(3)` (which
/// gawk calls) formats it; `utc` only changes `%Z` (`GMT` from gmtime, `UTC`
/// as the sandbox's local zone).
pub fn strftime(fmt: &str, t: i64, utc: bool) -> String {
    let mut tm = time::from_epoch(t, 0);
    if utc {
        tm.zone = "GMT";
    }
    time::strftime_as(Flavor::Libc, fmt, &tm)
}

/// `mktime("YYYY MM DD HH MM SS [DST]")`: seconds since the epoch, fields
/// out of range normalized as mktime(3) does; -1 when malformed.
pub fn mktime(spec: &str) -> f64 {
    let f: Vec<i64> = match spec
        .split_whitespace()
        .map(|w| w.parse::<i64>())
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(f) if (6..=7).contains(&f.len()) => f,
        _ => return -1.0,
    };
    let (y, mon0) = (f[0], f[1] - 1);
    let (y, mon) = (y + mon0.div_euclid(12), mon0.rem_euclid(12) + 1);
    if !(-1_000_000..=1_000_000).contains(&y) {
        return -1.0;
    }
    let days = time::days_from_civil(y, mon as u32, 1) + f[2] - 1;
    let t = days * 86400 + f[3] * 3600 + f[4] * 60 + f[5];
    t as f64
}
