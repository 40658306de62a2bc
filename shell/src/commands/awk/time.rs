//! gawk's time functions over the sandbox clock in the zone `TZ` names:
//! `strftime()` formatting and `mktime()` parsing.

use crate::time::{self, Flavor, Zone};

/// `strftime(fmt, t, utc)` in the C locale, as glibc's `strftime(3)` (which
/// gawk calls) formats it: local time in `zone`, or with `utc` gmtime's
/// (`%Z` is `GMT`).
pub fn strftime(fmt: &str, t: i64, utc: bool, zone: &Zone) -> String {
    let tm = if utc {
        let mut tm = time::from_epoch(t, 0);
        tm.zone = "GMT".to_string();
        tm
    } else {
        zone.local(t, 0)
    };
    time::strftime_as(Flavor::Libc, fmt, &tm)
}

/// `mktime("YYYY MM DD HH MM SS [DST]")`: seconds since the epoch of a local
/// time in `zone`, fields out of range normalized and DST (positive: in
/// force, zero: not, negative or absent: as the zone says) applied as
/// mktime(3) does; -1 when malformed.
pub fn mktime(spec: &str, zone: &Zone) -> f64 {
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
    let wall = days * 86400 + f[3] * 3600 + f[4] * 60 + f[5];
    let isdst = f.get(6).filter(|d| **d >= 0).map(|d| *d > 0);
    match zone.mktime(wall, isdst) {
        Ok(t) | Err(t) => t as f64,
    }
}
