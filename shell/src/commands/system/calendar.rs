//! UTC calendar arithmetic, GNU `strftime` formatting and the subset of GNU
//! `date -d` strings scripts use. The sandbox's time zone is always UTC.

use std::fmt::Write;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// A broken-down UTC time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tm {
    /// The year, e.g. 2024.
    pub year: i64,
    /// 1..=12
    pub month: u32,
    /// 1..=31
    pub day: u32,
    /// 0..=23
    pub hour: u32,
    /// 0..=59
    pub min: u32,
    /// 0..=59
    pub sec: u32,
    /// Nanoseconds within the second.
    pub nanos: u32,
    /// Day of the week, 0 = Sunday.
    pub wday: u32,
    /// Day of the year, 0-based.
    pub yday: u32,
    /// Seconds since the epoch.
    pub epoch: i64,
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// The date of a day number (days since 1970-01-01).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Breaks `secs` since the epoch into UTC fields.
pub fn from_epoch(secs: i64, nanos: u32) -> Tm {
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400) as u32;
    let (year, month, day) = civil_from_days(days);
    let yday = (days - days_from_civil(year, 1, 1)) as u32;
    Tm {
        year,
        month,
        day,
        hour: rem / 3600,
        min: rem / 60 % 60,
        sec: rem % 60,
        nanos,
        wday: (days + 4).rem_euclid(7) as u32,
        yday,
        epoch: secs,
    }
}

/// Seconds since the epoch of a UTC date and time.
pub fn to_epoch(y: i64, m: u32, d: u32, h: u32, mi: u32, s: u32) -> i64 {
    days_from_civil(y, m, d) * 86400 + h as i64 * 3600 + mi as i64 * 60 + s as i64
}

/// ISO 8601 week-based year and week number.
fn iso_week(tm: &Tm) -> (i64, u32) {
    let wday = (tm.wday + 6) % 7; // Monday = 0
    let yday = tm.yday as i64;
    let mut year = tm.year;
    let mut week = (yday - wday as i64 + 10) / 7;
    if week < 1 {
        year -= 1;
        let prev_days = if is_leap(year) { 366 } else { 365 };
        week = (yday + prev_days - wday as i64 + 10) / 7;
    } else {
        let days = if is_leap(year) { 366 } else { 365 };
        if week == 53 && yday - wday as i64 + 3 >= days {
            year += 1;
            week = 1;
        }
    }
    (year, week as u32)
}

/// Formats `tm` with GNU `date`'s conversions, flags (`- _ 0 ^ #`), widths
/// and `%:z`.
pub fn strftime(fmt: &str, tm: &Tm) -> String {
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' || i >= chars.len() {
            out.push(c);
            continue;
        }
        let start = i - 1;
        let mut pad: Option<char> = None;
        let mut upper = false;
        let mut swap = false;
        while i < chars.len() && matches!(chars[i], '-' | '_' | '0' | '^' | '#' | '+') {
            match chars[i] {
                '-' => pad = Some('\0'),
                '_' => pad = Some(' '),
                '0' | '+' => pad = Some('0'),
                '^' => upper = true,
                _ => swap = true,
            }
            i += 1;
        }
        let mut width: Option<usize> = None;
        while i < chars.len() && chars[i].is_ascii_digit() {
            width = Some(width.unwrap_or(0) * 10 + chars[i].to_digit(10).unwrap_or(0) as usize);
            i += 1;
        }
        let mut colons = 0;
        while i < chars.len() && chars[i] == ':' {
            colons += 1;
            i += 1;
        }
        if i >= chars.len() {
            out.extend(&chars[start..]);
            break;
        }
        let conv = chars[i];
        i += 1;
        // Numbers: (value, default width, default pad).
        let num = |v: i64, w: usize, p: char| Some((v, w, p));
        let mut text: Option<String> = None;
        let mut number: Option<(i64, usize, char)> = None;
        match conv {
            'Y' => number = num(tm.year, 1, '0'),
            'C' => number = num(tm.year.div_euclid(100), 2, '0'),
            'y' => number = num(tm.year.rem_euclid(100), 2, '0'),
            'm' => number = num(tm.month as i64, 2, '0'),
            'd' => number = num(tm.day as i64, 2, '0'),
            'e' => number = num(tm.day as i64, 2, ' '),
            'H' => number = num(tm.hour as i64, 2, '0'),
            'k' => number = num(tm.hour as i64, 2, ' '),
            'I' => number = num(((tm.hour + 11) % 12 + 1) as i64, 2, '0'),
            'l' => number = num(((tm.hour + 11) % 12 + 1) as i64, 2, ' '),
            'M' => number = num(tm.min as i64, 2, '0'),
            'S' => number = num(tm.sec as i64, 2, '0'),
            'j' => number = num(tm.yday as i64 + 1, 3, '0'),
            'u' => number = num(if tm.wday == 0 { 7 } else { tm.wday as i64 }, 1, '0'),
            'w' => number = num(tm.wday as i64, 1, '0'),
            's' => number = num(tm.epoch, 1, '0'),
            'q' => number = num((tm.month as i64 - 1) / 3 + 1, 1, '0'),
            'U' => number = num((tm.yday as i64 + 7 - tm.wday as i64) / 7, 2, '0'),
            'W' => {
                number = num(
                    (tm.yday as i64 + 7 - ((tm.wday as i64 + 6) % 7)) / 7,
                    2,
                    '0',
                )
            }
            'V' => number = num(iso_week(tm).1 as i64, 2, '0'),
            'G' => number = num(iso_week(tm).0, 1, '0'),
            'g' => number = num(iso_week(tm).0.rem_euclid(100), 2, '0'),
            'N' => {
                let digits = format!("{:09}", tm.nanos);
                let w = width.unwrap_or(9).min(9);
                text = Some(digits[..w.max(1)].to_string());
                width = None;
            }
            'a' => text = Some(DAYS[tm.wday as usize][..3].to_string()),
            'A' => text = Some(DAYS[tm.wday as usize].to_string()),
            'b' | 'h' => text = Some(MONTHS[tm.month as usize - 1][..3].to_string()),
            'B' => text = Some(MONTHS[tm.month as usize - 1].to_string()),
            'p' => text = Some(if tm.hour < 12 { "AM" } else { "PM" }.to_string()),
            'P' => text = Some(if tm.hour < 12 { "am" } else { "pm" }.to_string()),
            'Z' => text = Some(if swap { "utc" } else { "UTC" }.to_string()),
            'z' => {
                text = Some(
                    match colons {
                        0 => "+0000",
                        1 => "+00:00",
                        2 => "+00:00:00",
                        _ => "+00",
                    }
                    .to_string(),
                )
            }
            'n' => text = Some("\n".into()),
            't' => text = Some("\t".into()),
            '%' => text = Some("%".into()),
            'F' => text = Some(strftime("%Y-%m-%d", tm)),
            'T' => text = Some(strftime("%H:%M:%S", tm)),
            'D' | 'x' => text = Some(strftime("%m/%d/%y", tm)),
            'R' => text = Some(strftime("%H:%M", tm)),
            'r' => text = Some(strftime("%I:%M:%S %p", tm)),
            'X' => text = Some(strftime("%H:%M:%S", tm)),
            'c' => text = Some(strftime("%a %b %e %H:%M:%S %Y", tm)),
            '+' => text = Some(strftime("%a %b %e %H:%M:%S %Z %Y", tm)),
            _ => {
                out.extend(&chars[start..i]);
                continue;
            }
        }
        if let Some((v, dw, dp)) = number {
            let p = pad.unwrap_or(dp);
            let w = width.unwrap_or(dw);
            let digits = v.unsigned_abs().to_string();
            let sign = if v < 0 { "-" } else { "" };
            if p == '\0' {
                let _ = write!(out, "{sign}{digits}");
            } else if p == ' ' {
                let s = format!("{sign}{digits}");
                let _ = write!(out, "{s:>w$}");
            } else {
                let w = w.saturating_sub(sign.len());
                let _ = write!(out, "{sign}{digits:0>w$}");
            }
        } else if let Some(mut t) = text {
            if upper || (swap && conv != 'Z') {
                t = t.to_uppercase();
            }
            if let Some(w) = width
                && t.len() < w
            {
                let fill = match pad {
                    Some('0') => '0',
                    _ => ' ',
                };
                if pad != Some('\0') {
                    out.extend(std::iter::repeat_n(fill, w - t.len()));
                }
            }
            out.push_str(&t);
        }
    }
    out
}

fn month_index(s: &str) -> Option<u32> {
    let l = s.to_ascii_lowercase();
    if l.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| {
            m.to_ascii_lowercase().starts_with(&l)
                || l.starts_with(&m.to_ascii_lowercase()[..3]) && l.len() <= m.len()
        })
        .map(|i| i as u32 + 1)
}

fn parse_hms(s: &str) -> Option<(u32, u32, u32, u32)> {
    let (main, frac) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let parts: Vec<&str> = main.split(':').collect();
    if parts.len() < 2
        || parts.len() > 3
        || parts
            .iter()
            .any(|p| p.is_empty() || p.len() > 2 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let h: u32 = parts[0].parse().ok()?;
    let m: u32 = parts[1].parse().ok()?;
    let sec: u32 = if parts.len() == 3 {
        parts[2].parse().ok()?
    } else {
        0
    };
    if h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let nanos = match frac {
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            let mut d = f.to_string();
            d.truncate(9);
            while d.len() < 9 {
                d.push('0');
            }
            d.parse().ok()?
        }
        Some(_) => return None,
        None => 0,
    };
    Some((h, m, sec, nanos))
}

/// Adds `n` months to a date, clamping nothing (GNU normalises overflowed days
/// forward, as mktime does).
fn add_months(secs: i64, n: i64) -> i64 {
    let tm = from_epoch(secs, 0);
    let total = tm.year * 12 + (tm.month as i64 - 1) + n;
    let y = total.div_euclid(12);
    let m = total.rem_euclid(12) as u32 + 1;
    let base = to_epoch(y, m, 1, tm.hour, tm.min, tm.sec);
    base + (tm.day as i64 - 1) * 86400
}

/// Parses a GNU `date -d` string relative to `now` (seconds since the epoch):
/// `@N`, `now`, `today`, `yesterday`, `tomorrow`, `YYYY-MM-DD[ T]HH:MM[:SS[.f]][Z]`,
/// `HH:MM[:SS]`, `Mon D YYYY`, `D Mon YYYY` and relative items (`3 days ago`,
/// `+1 week`, `next month`). Returns (seconds, nanoseconds).
pub fn parse_date(input: &str, now: i64) -> Option<(i64, u32)> {
    let s = input.trim();
    if let Some(rest) = s.strip_prefix('@') {
        let rest = rest.trim();
        let (int, frac) = match rest.split_once('.') {
            Some((a, b)) => (a, b),
            None => (rest, ""),
        };
        let neg = int.starts_with('-');
        let secs: i64 = int
            .parse()
            .ok()
            .or_else(|| (int == "-" || int.is_empty()).then_some(0))?;
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut f = frac.to_string();
        f.truncate(9);
        while f.len() < 9 {
            f.push('0');
        }
        let nanos: u32 = f.parse().ok()?;
        if neg && nanos > 0 {
            return Some((secs - 1, 1_000_000_000 - nanos));
        }
        return Some((secs, nanos));
    }
    let lower = s.to_ascii_lowercase();
    // Split `2024-01-02T03:04:05Z` into date and time tokens.
    let normalized = lower.replacen(
        't',
        " ",
        if lower.contains('-') && lower.find('t').is_some_and(|i| i == 10) {
            1
        } else {
            0
        },
    );
    let tokens: Vec<&str> = normalized.split_whitespace().collect();
    let today = now.div_euclid(86400) * 86400;
    let mut date: Option<(i64, u32, u32)> = None;
    let mut time: Option<(u32, u32, u32, u32)> = None;
    let mut rel_secs: i64 = 0;
    let mut rel_months: i64 = 0;
    let mut day_shift: i64 = 0;
    let mut base_now = false;
    let mut i = 0;
    let unit_secs = |u: &str| -> Option<(i64, i64)> {
        let u = u.trim_end_matches('s');
        Some(match u {
            "sec" | "second" => (1, 0),
            "min" | "minute" => (60, 0),
            "hour" => (3600, 0),
            "day" => (86400, 0),
            "week" => (7 * 86400, 0),
            "fortnight" => (14 * 86400, 0),
            "month" => (0, 1),
            "year" => (0, 12),
            _ => return None,
        })
    };
    while i < tokens.len() {
        let t = tokens[i];
        i += 1;
        match t {
            "now" => {
                base_now = true;
                continue;
            }
            "today" => continue,
            "yesterday" => {
                day_shift -= 1;
                continue;
            }
            "tomorrow" => {
                day_shift += 1;
                continue;
            }
            "utc" | "z" | "gmt" | "+0000" | "+00:00" => continue,
            "ago" => {
                rel_secs = -rel_secs;
                rel_months = -rel_months;
                continue;
            }
            _ => {}
        }
        // YYYY-MM-DD
        let dparts: Vec<&str> = t.split('-').collect();
        if dparts.len() == 3
            && dparts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        {
            let y: i64 = dparts[0].parse().ok()?;
            let m: u32 = dparts[1].parse().ok()?;
            let d: u32 = dparts[2].parse().ok()?;
            if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
                return None;
            }
            date = Some((y, m, d));
            continue;
        }
        // Time, possibly with a trailing zone.
        let tstr = t.trim_end_matches('z');
        let tstr = tstr
            .strip_suffix("+00:00")
            .or_else(|| tstr.strip_suffix("+0000"))
            .unwrap_or(tstr);
        if tstr.contains(':') {
            time = Some(parse_hms(tstr)?);
            continue;
        }
        // Month names: "jan 2 2024" / "2 jan 2024".
        if let Some(m) = month_index(t.trim_end_matches(',')) {
            let d: u32 = tokens.get(i)?.trim_end_matches(',').parse().ok()?;
            i += 1;
            let y = match tokens.get(i).and_then(|y| y.parse::<i64>().ok()) {
                Some(y) => {
                    i += 1;
                    y
                }
                None => from_epoch(now, 0).year,
            };
            date = Some((y, m, d));
            continue;
        }
        if let Ok(d) = t.parse::<u32>()
            && let Some(m) = tokens.get(i).and_then(|m| month_index(m))
        {
            i += 1;
            let y = match tokens.get(i).and_then(|y| y.parse::<i64>().ok()) {
                Some(y) => {
                    i += 1;
                    y
                }
                None => from_epoch(now, 0).year,
            };
            date = Some((y, m, d));
            continue;
        }
        // Relative items: [+-]N unit, next/last unit, unit.
        let (n, unit) = if let Ok(n) = t.parse::<i64>() {
            let u = tokens.get(i)?;
            i += 1;
            (n, *u)
        } else if t == "next" || t == "last" {
            let u = tokens.get(i)?;
            i += 1;
            (if t == "next" { 1 } else { -1 }, *u)
        } else if let Some((num, u)) = t
            .find(|c: char| c.is_ascii_alphabetic())
            .map(|k| t.split_at(k))
            && !num.is_empty()
            && num.parse::<i64>().is_ok()
        {
            (num.parse().ok()?, u)
        } else {
            (1, t)
        };
        let (s1, m1) = unit_secs(unit)?;
        rel_secs += n * s1;
        rel_months += n * m1;
    }
    let mut secs = match (date, time) {
        (Some((y, m, d)), Some((h, mi, s, _))) => to_epoch(y, m, d, h, mi, s),
        (Some((y, m, d)), None) => to_epoch(y, m, d, 0, 0, 0),
        (None, Some((h, mi, s, _))) => today + (h * 3600 + mi * 60 + s) as i64,
        (None, None) => {
            let _ = base_now;
            now
        }
    };
    let nanos = time.map(|t| t.3).unwrap_or(0);
    secs += day_shift * 86400;
    if rel_months != 0 {
        secs = add_months(secs, rel_months);
    }
    secs += rel_secs;
    Some((secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_round_trip() {
        let tm = from_epoch(0, 0);
        assert_eq!((tm.year, tm.month, tm.day, tm.wday), (1970, 1, 1, 4));
        assert_eq!(to_epoch(2024, 2, 29, 12, 0, 0), 1_709_208_000);
        let tm = from_epoch(1_709_208_000, 0);
        assert_eq!(
            (tm.year, tm.month, tm.day, tm.hour, tm.yday),
            (2024, 2, 29, 12, 59)
        );
        assert_eq!(from_epoch(-1, 0).year, 1969);
    }

    #[test]
    fn formats_like_gnu_date() {
        let tm = from_epoch(1_704_067_200 + 3 * 3600 + 5, 0);
        assert_eq!(
            strftime("%Y-%m-%d %H:%M:%S %Z %z %:z", &tm),
            "2024-01-01 03:00:05 UTC +0000 +00:00"
        );
        assert_eq!(
            strftime("%a %A %b %B %e|%-d|%_m|%j|%u|%w|%p|%I|%y|%C", &tm),
            "Mon Monday Jan January  1|1| 1|001|1|1|AM|03|24|20"
        );
        assert_eq!(
            strftime("%^a %s %V %G %U %W %%", &tm),
            "MON 1704078005 01 2024 00 01 %"
        );
        assert_eq!(
            strftime("%3N %10Y", &from_epoch(0, 123_456_789)),
            "123 0000001970"
        );
    }

    #[test]
    fn parses_date_strings() {
        assert_eq!(parse_date("@86400", 0), Some((86400, 0)));
        assert_eq!(parse_date("2024-01-02", 0), Some((1_704_153_600, 0)));
        assert_eq!(
            parse_date("2024-01-02 03:04:05", 0),
            Some((1_704_164_645, 0))
        );
        assert_eq!(
            parse_date("2024-01-02T03:04:05Z", 0),
            Some((1_704_164_645, 0))
        );
        assert_eq!(parse_date("2024-01-02 +1 day", 0), Some((1_704_240_000, 0)));
        assert_eq!(
            parse_date("2 days ago", 1_704_153_600),
            Some((1_703_980_800, 0))
        );
        assert_eq!(
            parse_date("2024-01-31 1 month", 0).map(|x| from_epoch(x.0, 0).month),
            Some(3)
        );
        assert_eq!(parse_date("bogus", 0), None);
    }
}
