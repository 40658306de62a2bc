//! UTC calendar arithmetic and GNU `strftime` formatting. The sandbox's time
//! zone is always UTC. (`date -d` strings are parsed in `dateparse`.)

use std::fmt::Write;

/// Month names, January first.
pub const MONTHS: [&str; 12] = [
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
/// Day names, Sunday first.
pub const DAYS: [&str; 7] = [
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

/// True for a Gregorian leap year.
pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days in month `m` (1-based) of year `y`.
pub fn days_in_month(y: i64, m: u32) -> u32 {
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
        let Some(field) = conversion(conv, tm, &mut width, colons, swap) else {
            out.extend(&chars[start..i]);
            continue;
        };
        write_field(&mut out, field, conv, Flags { pad, upper, swap }, width);
    }
    out
}

/// What one conversion produces.
enum Field {
    /// A number: value, default width, default padding (`0` or space).
    Number(i64, usize, char),
    /// Text, padded with spaces only when a width is given.
    Text(String),
}

/// The flags of one conversion.
#[derive(Clone, Copy)]
struct Flags {
    /// `-` (`'\0'`: none), `_` (space), `0`/`+` (zero).
    pad: Option<char>,
    /// `^`: upper case.
    upper: bool,
    /// `#`: swap case (upper case, except `%Z` in lower).
    swap: bool,
}

/// The field of conversion `conv`, `None` for an unknown one (printed as
/// written). `%N` takes the width as its digit count and clears it.
fn conversion(
    conv: char,
    tm: &Tm,
    width: &mut Option<usize>,
    colons: usize,
    swap: bool,
) -> Option<Field> {
    Some(match conv {
        'Y' => Field::Number(tm.year, 1, '0'),
        'C' => Field::Number(tm.year.div_euclid(100), 2, '0'),
        'y' => Field::Number(tm.year.rem_euclid(100), 2, '0'),
        'm' => Field::Number(tm.month as i64, 2, '0'),
        'd' => Field::Number(tm.day as i64, 2, '0'),
        'e' => Field::Number(tm.day as i64, 2, ' '),
        'H' => Field::Number(tm.hour as i64, 2, '0'),
        'k' => Field::Number(tm.hour as i64, 2, ' '),
        'I' => Field::Number(((tm.hour + 11) % 12 + 1) as i64, 2, '0'),
        'l' => Field::Number(((tm.hour + 11) % 12 + 1) as i64, 2, ' '),
        'M' => Field::Number(tm.min as i64, 2, '0'),
        'S' => Field::Number(tm.sec as i64, 2, '0'),
        'j' => Field::Number(tm.yday as i64 + 1, 3, '0'),
        'u' => Field::Number(if tm.wday == 0 { 7 } else { tm.wday as i64 }, 1, '0'),
        'w' => Field::Number(tm.wday as i64, 1, '0'),
        's' => Field::Number(tm.epoch, 1, '0'),
        'q' => Field::Number((tm.month as i64 - 1) / 3 + 1, 1, '0'),
        'U' => Field::Number((tm.yday as i64 + 7 - tm.wday as i64) / 7, 2, '0'),
        'W' => Field::Number(
            (tm.yday as i64 + 7 - ((tm.wday as i64 + 6) % 7)) / 7,
            2,
            '0',
        ),
        'V' => Field::Number(iso_week(tm).1 as i64, 2, '0'),
        'G' => Field::Number(iso_week(tm).0, 1, '0'),
        'g' => Field::Number(iso_week(tm).0.rem_euclid(100), 2, '0'),
        'N' => {
            let digits = format!("{:09}", tm.nanos);
            let w = width.unwrap_or(9).min(9);
            // The width was the digit count, not padding.
            *width = None;
            Field::Text(digits[..w.max(1)].to_string())
        }
        'a' => Field::Text(DAYS[tm.wday as usize][..3].to_string()),
        'A' => Field::Text(DAYS[tm.wday as usize].to_string()),
        'b' | 'h' => Field::Text(MONTHS[tm.month as usize - 1][..3].to_string()),
        'B' => Field::Text(MONTHS[tm.month as usize - 1].to_string()),
        'p' => Field::Text(if tm.hour < 12 { "AM" } else { "PM" }.to_string()),
        'P' => Field::Text(if tm.hour < 12 { "am" } else { "pm" }.to_string()),
        'Z' => Field::Text(if swap { "utc" } else { "UTC" }.to_string()),
        'z' => Field::Text(
            match colons {
                0 => "+0000",
                1 => "+00:00",
                2 => "+00:00:00",
                _ => "+00",
            }
            .to_string(),
        ),
        'n' => Field::Text("\n".into()),
        't' => Field::Text("\t".into()),
        '%' => Field::Text("%".into()),
        'F' => Field::Text(strftime("%Y-%m-%d", tm)),
        'T' => Field::Text(strftime("%H:%M:%S", tm)),
        'D' | 'x' => Field::Text(strftime("%m/%d/%y", tm)),
        'R' => Field::Text(strftime("%H:%M", tm)),
        'r' => Field::Text(strftime("%I:%M:%S %p", tm)),
        'X' => Field::Text(strftime("%H:%M:%S", tm)),
        'c' => Field::Text(strftime("%a %b %e %H:%M:%S %Y", tm)),
        '+' => Field::Text(strftime("%a %b %e %H:%M:%S %Z %Y", tm)),
        _ => return None,
    })
}

/// Writes `field` with the flags and width.
fn write_field(out: &mut String, field: Field, conv: char, f: Flags, width: Option<usize>) {
    match field {
        Field::Number(v, dw, dp) => {
            let p = f.pad.unwrap_or(dp);
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
        }
        Field::Text(mut t) => {
            if f.upper || (f.swap && conv != 'Z') {
                t = t.to_uppercase();
            }
            if let Some(w) = width
                && t.len() < w
            {
                let fill = match f.pad {
                    Some('0') => '0',
                    _ => ' ',
                };
                if f.pad != Some('\0') {
                    out.extend(std::iter::repeat_n(fill, w - t.len()));
                }
            }
            out.push_str(&t);
        }
    }
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
}
