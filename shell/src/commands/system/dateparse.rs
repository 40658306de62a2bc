//! The subset of GNU `date -d` strings scripts use: `@N`, ISO dates and
//! times with zones, `M/D/Y`, month names, `am`/`pm`, weekday names and
//! relative items (`3 days ago`, `+1 week`, `next month`, `yesterday`).
//! A time without a zone of its own is local time in the zone `TZ` names.

use crate::time::{DAYS, MONTHS, Zone, days_in_month, from_epoch, to_epoch};

/// A time of day: hours, minutes, seconds, nanoseconds, and the UTC offset
/// in seconds it was written in (`None`: local time).
type TimeOfDay = (u32, u32, u32, u32, Option<i64>);

fn month_index(s: &str) -> Option<u32> {
    let l = s.trim_end_matches([',', '.']);
    if l.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| {
            let m = m.to_ascii_lowercase();
            m.starts_with(l) || (l == "sept" && m == "september")
        })
        .map(|i| i as u32 + 1)
}

fn weekday_index(s: &str) -> Option<u32> {
    let l = s.trim_end_matches([',', '.']);
    if l.len() < 3 {
        return None;
    }
    let aliases = [("tues", 2), ("wednes", 3), ("thur", 4), ("thurs", 4)];
    if let Some((_, d)) = aliases.iter().find(|(a, _)| *a == l) {
        return Some(*d);
    }
    DAYS.iter()
        .position(|d| d.to_ascii_lowercase().starts_with(l) && (l.len() == 3 || l.len() == d.len()))
        .map(|i| i as u32)
}

/// Parses `+HH`, `+HHMM`, `+HH:MM` (and `-`) into seconds east of UTC.
fn parse_zone(s: &str) -> Option<i64> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || rest.starts_with(':') {
        return None;
    }
    let (h, m) = match digits.len() {
        1 | 2 => (digits.parse::<i64>().ok()?, 0),
        4 => (
            digits[..2].parse::<i64>().ok()?,
            digits[2..].parse::<i64>().ok()?,
        ),
        _ => return None,
    };
    if h > 24 || m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

/// `HH:MM[:SS[.frac]][am|pm][zone]`, or `Ham`/`Hpm`.
fn parse_time(s: &str) -> Option<TimeOfDay> {
    let mut body = s;
    let mut zone = None;
    if let Some(b) = body.strip_suffix('z') {
        body = b;
        zone = Some(0);
    } else if let Some(i) = body.rfind(['+', '-'])
        && i > 0
    {
        zone = Some(parse_zone(&body[i..])?);
        body = &body[..i];
    }
    let mut ampm = None;
    for (suf, pm) in [("am", false), ("pm", true), ("a.m.", false), ("p.m.", true)] {
        if let Some(b) = body.strip_suffix(suf) {
            body = b;
            ampm = Some(pm);
            break;
        }
    }
    let (main, frac) = match body.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (body, None),
    };
    let parts: Vec<&str> = main.split(':').collect();
    let valid = |p: &&str| !p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() > 3 || !parts.iter().all(valid) || (parts.len() == 1 && ampm.is_none()) {
        return None;
    }
    let mut h: u32 = parts[0].parse().ok()?;
    let m: u32 = parts.get(1).map_or(Some(0), |p| p.parse().ok())?;
    let sec: u32 = parts.get(2).map_or(Some(0), |p| p.parse().ok())?;
    if let Some(pm) = ampm {
        if !(1..=12).contains(&h) {
            return None;
        }
        h = match (h, pm) {
            (12, false) => 0,
            (12, true) => 12,
            (h, true) => h + 12,
            (h, false) => h,
        };
    }
    if h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let nanos = match frac {
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            let mut d: String = f.chars().take(9).collect();
            while d.len() < 9 {
                d.push('0');
            }
            d.parse().ok()?
        }
        Some(_) => return None,
        None => 0,
    };
    Some((h, m, sec, nanos, zone))
}

/// `YYYY-MM-DD`, `YYYY/MM/DD`, `MM/DD/YYYY`, `MM/DD`, `YYYYMMDD`.
fn parse_calendar_date(t: &str, this_year: i64) -> Option<(i64, u32, u32)> {
    let num = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (y, m, d) = if let Some((y, rest)) = t.split_once('-') {
        let (m, d) = rest.split_once('-')?;
        (num(y)?, num(m)?, num(d)?)
    } else if t.contains('/') {
        let parts: Vec<&str> = t.split('/').collect();
        match parts.len() {
            2 => (this_year, num(parts[0])?, num(parts[1])?),
            3 if parts[0].len() == 4 => (num(parts[0])?, num(parts[1])?, num(parts[2])?),
            3 => {
                let mut y = num(parts[2])?;
                if parts[2].len() <= 2 {
                    y += if y < 69 { 2000 } else { 1900 };
                }
                (y, num(parts[0])?, num(parts[1])?)
            }
            _ => return None,
        }
    } else if t.len() == 8 {
        (num(&t[..4])?, num(&t[4..6])?, num(&t[6..])?)
    } else {
        return None;
    };
    let (m, d) = (u32::try_from(m).ok()?, u32::try_from(d).ok()?);
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some((y, m, d))
}

/// Seconds, days and months of a relative unit (days and weeks move the
/// calendar, not the clock).
fn unit(u: &str) -> Option<(i64, i64, i64)> {
    let u = u
        .strip_suffix('s')
        .filter(|b| !b.is_empty() && *b != "mins" && *b != "secs")
        .unwrap_or(u);
    Some(match u {
        "sec" | "second" => (1, 0, 0),
        "min" | "minute" => (60, 0, 0),
        "hour" => (3600, 0, 0),
        "day" => (0, 1, 0),
        "week" => (0, 7, 0),
        "fortnight" => (0, 14, 0),
        "month" => (0, 0, 1),
        "year" => (0, 0, 12),
        _ => return None,
    })
}

/// Adds `n` months to a wall-clock time, letting an overflowing day run into
/// the next month as GNU (via `mktime`) does: Jan 31 + 1 month = Mar 2 (or 3).
fn add_months(secs: i64, n: i64) -> i64 {
    let tm = from_epoch(secs, 0);
    let total = tm.year * 12 + (tm.month as i64 - 1) + n;
    let y = total.div_euclid(12);
    let m = total.rem_euclid(12) as u32 + 1;
    to_epoch(y, m, 1, tm.hour, tm.min, tm.sec) + (tm.day as i64 - 1) * 86400
}

/// Parses a GNU `date -d` string relative to `now` (seconds since the
/// epoch), reading local times in `zone`. Returns (seconds, nanoseconds),
/// or `None` when GNU would say `invalid date` (a local time that a DST
/// gap skips is one).
pub fn parse_date(input: &str, now: i64, zone: &Zone) -> Option<(i64, u32)> {
    let s = input.trim();
    if let Some(rest) = s.strip_prefix('@') {
        return parse_epoch(rest.trim());
    }
    let mut lower = s.to_ascii_lowercase();
    // `2024-01-02T03:04:05Z`: the T separates date and time.
    if lower.len() > 10 && lower.as_bytes()[10] == b't' && lower[..10].matches('-').count() == 2 {
        lower.replace_range(10..11, " ");
    }
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    let this_year = zone.local(now, 0).year;
    let mut items = Items {
        date: None,
        time: None,
        zone: None,
        rel: Vec::new(),
        day_shift: 0,
        weekday: None,
        pending_sign: 1,
        ordinal: None,
    };
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        i += 1;
        items.item(t, &tokens, &mut i, this_year)?;
    }
    items.resolve(now, zone)
}

/// What the items of a date string have said so far.
struct Items {
    /// A calendar date (year, month, day).
    date: Option<(i64, u32, u32)>,
    time: Option<TimeOfDay>,
    /// A zone word (`utc`, `z`): the time is in UTC.
    zone: Option<i64>,
    /// Relative items: (seconds, days, months), in order.
    rel: Vec<(i64, i64, i64)>,
    /// `yesterday` / `tomorrow`, in days.
    day_shift: i64,
    /// A day of the week and its ordinal (`next` 1, `last` -1, else 0).
    weekday: Option<(u32, i64)>,
    /// A lone `+`/`-` before a relative item.
    pending_sign: i64,
    /// `next` / `last` before a unit or a weekday.
    ordinal: Option<i64>,
}

impl Items {
    /// One item `t`; `tokens[*i..]` follow it (an item may take some).
    /// `None` when the string is invalid.
    fn item(&mut self, t: &str, tokens: &[&str], i: &mut usize, this_year: i64) -> Option<()> {
        if self.keyword(t)? {
            return Some(());
        }
        if (t.starts_with('+') || t.starts_with('-'))
            && self.time.is_some_and(|tt| tt.4.is_none())
            && *i >= 2
            && tokens[*i - 2].contains(':')
            && t[1..].bytes().next().is_some_and(|b| b.is_ascii_digit())
        {
            // A zone right after a time: `10:00 +0100`. GNU's grammar reads
            // `10:00 +1 day` so too (a zone of +01, then one day).
            let z = parse_zone(t)?;
            if let Some(tt) = self.time.as_mut() {
                tt.4 = Some(z);
            }
            return Some(());
        }
        if t.bytes().next().is_some_and(|b| b.is_ascii_digit())
            && !t.contains(':')
            && (t.contains('-')
                || t.contains('/')
                || (t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit())))
            && tokens.get(*i).is_none_or(|n| unit(n).is_none())
        {
            self.date = Some(parse_calendar_date(t, this_year)?);
            return Some(());
        }
        if t.contains(':') || t.ends_with("am") || t.ends_with("pm") {
            if let Some(tt) = parse_time(t) {
                self.time = Some(tt);
                return Some(());
            }
            if t.contains(':') {
                return None;
            }
        }
        if let Some(date) = month_name_date(t, tokens, i, this_year)? {
            self.date = Some(date);
            return Some(());
        }
        if let Some(wd) = weekday_index(t) {
            self.weekday = Some((wd, self.ordinal.take().unwrap_or(0)));
            return Some(());
        }
        self.relative(t, tokens, i)
    }

    /// The words that only set state (`now`, `yesterday`, `next`, `ago`, a
    /// lone sign, `am`/`pm`...): true when `t` was one.
    fn keyword(&mut self, t: &str) -> Option<bool> {
        match t {
            "now" | "today" | "this" => {}
            "utc" | "gmt" | "z" | "ut" => self.zone = Some(0),
            "yesterday" => self.day_shift -= 1,
            "tomorrow" => self.day_shift += 1,
            "next" => self.ordinal = Some(1),
            "last" => self.ordinal = Some(-1),
            "ago" => {
                let last = self.rel.last_mut()?;
                *last = (-last.0, -last.1, -last.2);
            }
            "+" => self.pending_sign = 1,
            "-" => self.pending_sign = -1,
            "am" | "pm" | "a.m." | "p.m." => {
                let (h, m, sec, ns, z) = self.time?;
                let fixed = parse_time(&format!("{h}:{m}:{sec}{t}"))?;
                self.time = Some((fixed.0, fixed.1, fixed.2, ns, z));
            }
            _ => return Some(false),
        }
        Some(true)
    }

    /// Relative items: `[+-]N unit`, `next unit`, `unit`, `3days`.
    fn relative(&mut self, t: &str, tokens: &[&str], i: &mut usize) -> Option<()> {
        let (n, u) = if let Ok(n) = t.parse::<i64>() {
            let u = *tokens.get(*i)?;
            *i += 1;
            (n, u)
        } else if let Some(k) = t.find(|c: char| c.is_ascii_alphabetic())
            && k > 0
            && t[..k].parse::<i64>().is_ok()
        {
            (t[..k].parse().ok()?, &t[k..])
        } else {
            (self.ordinal.take().unwrap_or(1), t)
        };
        let (s1, d1, m1) = unit(u)?;
        let n = n * self.pending_sign;
        self.pending_sign = 1;
        self.rel.push((n * s1, n * d1, n * m1));
        Some(())
    }

    /// The time the items name: the date and time (else today, now) on the
    /// local wall clock, moved by the weekday, the day shift and the
    /// calendar's relative items (days, months), read back in `zone` (or at
    /// the offset the string gave); then the relative seconds, which count
    /// elapsed time. `None` when the wall-clock time does not exist.
    fn resolve(self, now: i64, zone: &Zone) -> Option<(i64, u32)> {
        let (date, time) = (self.date, self.time);
        let explicit = time.and_then(|t| t.4).or(self.zone);
        let local_now = match explicit {
            Some(z) => now + z,
            None => now + i64::from(zone.local(now, 0).offset),
        };
        let today = local_now.div_euclid(86400) * 86400;
        let hms = |h: u32, mi: u32, s: u32| i64::from(h * 3600 + mi * 60 + s);
        let (mut wall, nanos) = match (date, time) {
            (Some((y, m, d)), Some((h, mi, s, ns, _))) => (to_epoch(y, m, d, h, mi, s), ns),
            (Some((y, m, d)), None) => (to_epoch(y, m, d, 0, 0, 0), 0),
            (None, Some((h, mi, s, ns, _))) => (today + hms(h, mi, s), ns),
            (None, None) => (local_now, 0),
        };
        let mut calendar_moved = false;
        if let Some((wd, ord)) = self.weekday
            && date.is_none()
        {
            let cur = from_epoch(wall, 0).wday as i64;
            let mut diff = (wd as i64 - cur).rem_euclid(7);
            match ord {
                1 if diff == 0 => diff = 7,
                -1 => diff -= 7,
                _ => {}
            }
            if time.is_none() {
                wall = wall.div_euclid(86400) * 86400;
            }
            wall += diff * 86400;
            calendar_moved = true;
        }
        wall += self.day_shift * 86400;
        let mut elapsed = 0;
        for (s1, d1, m1) in self.rel {
            if m1 != 0 {
                wall = add_months(wall, m1);
            }
            wall += d1 * 86400;
            elapsed += s1;
            calendar_moved |= m1 != 0 || d1 != 0;
        }
        calendar_moved |= self.day_shift != 0;
        let secs = match explicit {
            Some(z) => wall - z,
            // Nothing but elapsed time: now, whatever the zone does.
            None if date.is_none() && time.is_none() && !calendar_moved => now,
            None => zone.mktime(wall, None).ok()?,
        };
        Some((secs + elapsed, nanos))
    }
}

/// `jan 2 [2024]` or `2 jan [2024]` starting at `t` (`*i` moves past the
/// words taken). `Some(None)`: not such a date; `None`: an invalid one.
fn month_name_date(
    t: &str,
    tokens: &[&str],
    i: &mut usize,
    this_year: i64,
) -> Option<Option<(i64, u32, u32)>> {
    if let Some(m) = month_index(t) {
        // `jan 2 [2024]`
        let d: u32 = tokens.get(*i)?.trim_end_matches(',').parse().ok()?;
        *i += 1;
        let y = match tokens
            .get(*i)
            .and_then(|y| y.parse::<i64>().ok())
            .filter(|_| tokens[*i].len() == 4)
        {
            Some(y) => {
                *i += 1;
                y
            }
            None => this_year,
        };
        if d == 0 || d > days_in_month(y, m) {
            return None;
        }
        return Some(Some((y, m, d)));
    }
    if let Ok(d) = t.parse::<u32>()
        && let Some(m) = tokens.get(*i).and_then(|m| month_index(m))
    {
        // `2 jan [2024]`
        *i += 1;
        let y = match tokens.get(*i).and_then(|y| y.parse::<i64>().ok()) {
            Some(y) => {
                *i += 1;
                y
            }
            None => this_year,
        };
        if d == 0 || d > days_in_month(y, m) {
            return None;
        }
        return Some(Some((y, m, d)));
    }
    Some(None)
}

/// `@SECONDS[.FRACTION]`
fn parse_epoch(rest: &str) -> Option<(i64, u32)> {
    let (int, frac) = rest.split_once('.').unwrap_or((rest, ""));
    let neg = int.starts_with('-');
    let digits = int.strip_prefix(['-', '+']).unwrap_or(int);
    if (digits.is_empty() && frac.is_empty()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    let secs = if neg { -secs } else { secs };
    let mut f: String = frac.chars().take(9).collect();
    while f.len() < 9 {
        f.push('0');
    }
    let nanos: u32 = f.parse().ok()?;
    if neg && nanos > 0 {
        return Some((secs - 1, 1_000_000_000 - nanos));
    }
    Some((secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_796_268_366; // Thu 2026-12-03 03:26:06 UTC

    fn fmt(s: &str) -> Option<String> {
        parse_date(s, NOW, &Zone::utc())
            .map(|(secs, _)| crate::time::strftime("%F %T %a", &from_epoch(secs, 0)))
    }

    #[test]
    fn absolute_forms() {
        assert_eq!(parse_date("@86400", 0, &Zone::utc()), Some((86400, 0)));
        assert_eq!(
            parse_date("@-1.5", 0, &Zone::utc()),
            Some((-2, 500_000_000))
        );
        assert_eq!(
            fmt("2024-01-02").as_deref(),
            Some("2024-01-02 00:00:00 Tue")
        );
        assert_eq!(
            fmt("2024-01-02T03:04:05Z").as_deref(),
            Some("2024-01-02 03:04:05 Tue")
        );
        assert_eq!(
            fmt("2024-01-05 10:00 +0100").as_deref(),
            Some("2024-01-05 09:00:00 Fri")
        );
        assert_eq!(
            fmt("2024-01-05T10:00:00-05:00").as_deref(),
            Some("2024-01-05 15:00:00 Fri")
        );
        assert_eq!(
            fmt("01/05/2024").as_deref(),
            Some("2024-01-05 00:00:00 Fri")
        );
        assert_eq!(
            fmt("2024/01/05").as_deref(),
            Some("2024-01-05 00:00:00 Fri")
        );
        assert_eq!(fmt("20240105").as_deref(), Some("2024-01-05 00:00:00 Fri"));
        assert_eq!(
            fmt("5 Jan 2024").as_deref(),
            Some("2024-01-05 00:00:00 Fri")
        );
        assert_eq!(fmt("Jan 5").as_deref(), Some("2026-01-05 00:00:00 Mon"));
        assert_eq!(
            fmt("2024-01-03 3:30pm").as_deref(),
            Some("2024-01-03 15:30:00 Wed")
        );
        assert_eq!(
            fmt("2024-01-03 12am").as_deref(),
            Some("2024-01-03 00:00:00 Wed")
        );
        assert_eq!(fmt("2024-02-30"), None);
        assert_eq!(fmt("noon"), None);
    }

    #[test]
    fn relative_forms() {
        assert_eq!(
            fmt("2024-01-03 1 day 2 hours ago").as_deref(),
            Some("2024-01-03 22:00:00 Wed")
        );
        assert_eq!(
            fmt("2024-01-03 -2 days").as_deref(),
            Some("2024-01-01 00:00:00 Mon")
        );
        assert_eq!(
            fmt("2024-01-03 + 2 hours").as_deref(),
            Some("2024-01-03 02:00:00 Wed")
        );
        assert_eq!(
            fmt("2024-01-03 last month").as_deref(),
            Some("2023-12-03 00:00:00 Sun")
        );
        assert_eq!(
            fmt("2024-01-31 +1 month").as_deref(),
            Some("2024-03-02 00:00:00 Sat")
        );
        assert_eq!(
            fmt("tomorrow 10:00").as_deref(),
            Some("2026-12-04 10:00:00 Fri")
        );
        assert_eq!(fmt("thursday").as_deref(), Some("2026-12-03 00:00:00 Thu"));
        assert_eq!(
            fmt("next thursday").as_deref(),
            Some("2026-12-10 00:00:00 Thu")
        );
        assert_eq!(
            fmt("last thursday").as_deref(),
            Some("2026-11-26 00:00:00 Thu")
        );
        assert_eq!(
            fmt("next friday").as_deref(),
            Some("2026-12-04 00:00:00 Fri")
        );
        assert_eq!(
            fmt("last friday").as_deref(),
            Some("2026-11-27 00:00:00 Fri")
        );
        assert_eq!(fmt("monday").as_deref(), Some("2026-12-07 00:00:00 Mon"));
        assert_eq!(fmt("fri 3pm").as_deref(), Some("2026-12-04 15:00:00 Fri"));
        assert_eq!(
            fmt("2024-01-03 monday").as_deref(),
            Some("2024-01-03 00:00:00 Wed")
        );
    }
}
