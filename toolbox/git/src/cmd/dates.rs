//! Dates as `log --date=` prints them (relative, local, `format:`) and as
//! `--since`/`--until` read them.

use gix_date::Time;

/// `--date=relative`: how long before `now` the time `t` was, in git's
/// rounding (seconds up to 90, minutes up to 90, hours up to 36, days up to
/// 14, weeks up to 70 days, months up to a year, years and months up to
/// five years, then years).
pub fn relative(t: &Time, now: i64) -> String {
    let plural = |n: i64, unit: &str| {
        if n == 1 {
            format!("{n} {unit}")
        } else {
            format!("{n} {unit}s")
        }
    };
    if t.seconds > now {
        return "in the future".to_string();
    }
    let mut diff = now - t.seconds;
    if diff < 90 {
        return format!("{} ago", plural(diff, "second"));
    }
    diff = (diff + 30) / 60;
    if diff < 90 {
        return format!("{} ago", plural(diff, "minute"));
    }
    diff = (diff + 30) / 60;
    if diff < 36 {
        return format!("{} ago", plural(diff, "hour"));
    }
    diff = (diff + 12) / 24;
    if diff < 14 {
        return format!("{} ago", plural(diff, "day"));
    }
    if diff < 70 {
        return format!("{} ago", plural((diff + 3) / 7, "week"));
    }
    if diff < 365 {
        return format!("{} ago", plural((diff + 15) / 30, "month"));
    }
    if diff < 1825 {
        let total_months = (diff * 12 * 2 + 365) / (365 * 2);
        let (years, months) = (total_months / 12, total_months % 12);
        if months > 0 {
            return format!("{}, {} ago", plural(years, "year"), plural(months, "month"));
        }
        return format!("{} ago", plural(years, "year"));
    }
    format!("{} ago", plural((diff + 183) / 365, "year"))
}

/// `--date=format:FMT`: strftime in the time's own offset.
pub fn strftime(t: &Time, fmt: &str) -> String {
    let offset = jiff::tz::Offset::from_seconds(t.offset).unwrap_or(jiff::tz::Offset::UTC);
    match jiff::Timestamp::from_second(t.seconds) {
        Ok(ts) => {
            let zoned = ts.to_zoned(jiff::tz::TimeZone::fixed(offset));
            // jiff refuses what it cannot format; git's strftime prints it as is.
            let mut out = String::new();
            match jiff::fmt::strtime::format(fmt, &zoned) {
                Ok(s) => out.push_str(&s),
                Err(_) => out.push_str(fmt),
            }
            out
        }
        Err(_) => t.seconds.to_string(),
    }
}

/// A date argument of `--since`/`--until`/`--after`/`--before`, in seconds:
/// `YYYY-MM-DD[ HH:MM[:SS]]` in UTC (the sandbox's zone), epoch forms, or
/// what gix-date reads (relative `2 days ago` among them).
pub fn approxidate(s: &str, now: i64) -> Option<i64> {
    let s = s.trim();
    if let Some(t) = calendar(s, now) {
        return Some(t);
    }
    let now_zoned = jiff::Timestamp::from_second(now)
        .ok()
        .map(|ts| ts.to_zoned(jiff::tz::TimeZone::UTC));
    gix_date::parse(s, now_zoned).ok().map(|t| t.seconds)
}

/// `YYYY-MM-DD`, optionally followed by `HH:MM[:SS]` and an offset; a date
/// alone takes the time of day of `now`, as git's approxidate does.
fn calendar(s: &str, now: i64) -> Option<i64> {
    let mut parts = s.split_whitespace();
    let date = parts.next()?;
    let mut ymd = date.split('-');
    let y: i16 = ymd.next()?.parse().ok()?;
    let m: i8 = ymd.next()?.parse().ok()?;
    let d: i8 = ymd.next()?.parse().ok()?;
    if ymd.next().is_some() || !(1..=12).contains(&m) {
        return None;
    }
    let (mut h, mut mi, mut sec) = {
        let day = now.rem_euclid(86_400);
        (
            (day / 3600) as i8,
            ((day / 60) % 60) as i8,
            (day % 60) as i8,
        )
    };
    let mut offset = 0i64;
    for p in parts {
        if p.contains(':') {
            let mut hms = p.split(':');
            h = hms.next()?.parse().ok()?;
            mi = hms.next()?.parse().ok()?;
            sec = match hms.next() {
                Some(v) => v.parse().ok()?,
                None => 0,
            };
        } else if (p.starts_with('+') || p.starts_with('-')) && p.len() == 5 {
            let v: i64 = p[1..].parse().ok()?;
            offset = (v / 100 * 3600 + v % 100 * 60) * if p.starts_with('-') { -1 } else { 1 };
        } else {
            return None;
        }
    }
    let dt = jiff::civil::DateTime::new(y, m, d, h, mi, sec, 0).ok()?;
    let ts = dt.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    Some(ts.as_second() - offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_rounds_as_git_does() {
        let t = Time::new(0, 0);
        assert_eq!(relative(&t, 30), "30 seconds ago");
        assert_eq!(relative(&t, 3600), "60 minutes ago");
        assert_eq!(relative(&t, 86_400 * 3), "3 days ago");
        assert_eq!(relative(&t, 86_400 * 400), "1 year, 1 month ago");
        assert_eq!(relative(&t, 86_400 * 3650), "10 years ago");
    }

    #[test]
    fn calendar_dates_are_utc() {
        assert_eq!(approxidate("2023-11-14 22:16:00", 0), Some(1_700_000_160));
        assert_eq!(approxidate("2023-11-14 22:16", 0), Some(1_700_000_160));
    }
}
