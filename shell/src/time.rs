//! Time in one place for the shell: broken-down UTC time over jiff's civil
//! calendar, and `strftime` formatting with GNU/glibc semantics on top of it.
//! `date`, `touch`, `ls`, `stat`, `find -printf`, `tar tv`, awk's
//! `strftime()`/`mktime()` and the `printf` builtin's `%(fmt)T` all split and
//! format times here, and `sleep` and `timeout` read their intervals here.
//! (`date -d` strings are parsed in `commands::system::dateparse`, which
//! builds on this module.)
//!
//! Local time is that of the zone `TZ` in the sandbox's environment names
//! ([`Zone`], from the tz database bundled in the binary; UTC when unset):
//! [`Zone::local`] breaks a time down with its offset and abbreviation, and
//! [`Zone::mktime`] reads local fields back. The calendar (days, months, weekdays, ISO weeks) is
//! jiff's; the conversions are ours because jiff's `strftime` differs from
//! glibc's (the `#` flag, `%N` widths, unknown conversions printed as
//! written, `%E`/`%O` modifiers), and the two C flavours differ from each
//! other (see [`Flavor`]).

use std::fmt::Write;

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

mod zone;
pub use zone::Zone;

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

/// Days in 400 Gregorian years. The calendar (weekdays included) repeats
/// after them, which carries jiff's ±9999-year range to every `i64` second
/// GNU tools accept.
const CYCLE_DAYS: i64 = 146_097;
/// Seconds in 400 Gregorian years.
const CYCLE_SECS: i64 = CYCLE_DAYS * 86_400;

/// A broken-down time: UTC from [`from_epoch`], local from [`Zone::local`].
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The ISO 8601 week-based year (`%G`).
    pub iso_year: i64,
    /// The ISO 8601 week number, 1..=53 (`%V`).
    pub iso_week: u32,
    /// The zone's abbreviation (`%Z`): `UTC`, `CEST`, `+0530`, or `GMT`
    /// where the C library was asked for `gmtime`.
    pub zone: String,
    /// Seconds east of UTC (`%z`).
    pub offset: i32,
    /// Whether daylight saving time is in force.
    pub isdst: bool,
}

/// Breaks `secs` since the epoch into UTC fields.
pub fn from_epoch(secs: i64, nanos: u32) -> Tm {
    let cycles = secs.div_euclid(CYCLE_SECS);
    // In 1970..2370: always inside jiff's range.
    let within = Timestamp::new(secs.rem_euclid(CYCLE_SECS), 0).unwrap_or(Timestamp::UNIX_EPOCH);
    let dt = TimeZone::UTC.to_datetime(within);
    let iso = dt.date().iso_week_date();
    let years = cycles * 400;
    Tm {
        year: i64::from(dt.year()) + years,
        month: dt.month() as u32,
        day: dt.day() as u32,
        hour: dt.hour() as u32,
        min: dt.minute() as u32,
        sec: dt.second() as u32,
        nanos,
        wday: dt.weekday().to_sunday_zero_offset() as u32,
        yday: (dt.day_of_year() - 1) as u32,
        epoch: secs,
        iso_year: i64::from(iso.year()) + years,
        iso_week: iso.week() as u32,
        zone: "UTC".to_string(),
        offset: 0,
        isdst: false,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date. Out-of-range months
/// and days run on into the next ones, as `mktime(3)` normalizes them.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let months = y.saturating_mul(12).saturating_add(i64::from(m) - 1);
    let (y, m0) = (months.div_euclid(12), months.rem_euclid(12));
    let first = Date::new(y.rem_euclid(400) as i16, m0 as i8 + 1, 1)
        .ok()
        .and_then(|date| TimeZone::UTC.to_timestamp(date.at(0, 0, 0, 0)).ok())
        .map_or(0, |t| t.as_second().div_euclid(86_400));
    y.div_euclid(400)
        .saturating_mul(CYCLE_DAYS)
        .saturating_add(first)
        .saturating_add(i64::from(d) - 1)
}

/// Days in month `m` (1-based) of year `y`.
pub fn days_in_month(y: i64, m: u32) -> u32 {
    (days_from_civil(y, m + 1, 1) - days_from_civil(y, m, 1)) as u32
}

/// Seconds since the epoch of a UTC date and time.
pub fn to_epoch(y: i64, m: u32, d: u32, h: u32, mi: u32, s: u32) -> i64 {
    days_from_civil(y, m, d)
        .saturating_mul(86_400)
        .saturating_add(i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(s))
}

/// Parses a GNU time interval, as `sleep` and `timeout` read theirs (`1.5`,
/// `2m`, `1e-1`, `inf`), into seconds; `None` for anything else.
pub fn parse_interval(s: &str) -> Option<f64> {
    let (num, mult) = match s.chars().last()? {
        's' => (&s[..s.len() - 1], 1.0),
        'm' => (&s[..s.len() - 1], 60.0),
        'h' => (&s[..s.len() - 1], 3600.0),
        'd' => (&s[..s.len() - 1], 86400.0),
        _ => (s, 1.0),
    };
    let lower = num.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(f64::INFINITY);
    }
    if num.is_empty()
        || !num
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'e' || b == b'+' || b == b'-')
    {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    if v < 0.0 || v.is_nan() {
        return None;
    }
    Some(v * mult)
}

/// Which C library's `strftime` to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// gnulib's `nstrftime`, as coreutils (`date`, `ls`, `stat`) and
    /// findutils use it: adds `%N`, `%q` and `%:z`.
    Gnu,
    /// glibc's `strftime(3)`, as bash's `printf %(fmt)T` and gawk's
    /// `strftime()` call it: `%N`, `%q` and `%:z` print as written.
    Libc,
}

/// Formats `tm` with GNU `date`'s conversions, flags (`- _ 0 ^ #`), widths,
/// `E`/`O` modifiers and `%:z`.
pub fn strftime(fmt: &str, tm: &Tm) -> String {
    strftime_as(Flavor::Gnu, fmt, tm)
}

/// Formats `tm` as the `flavor`'s `strftime` does. A conversion it does not
/// know is printed as written.
pub fn strftime_as(flavor: Flavor, fmt: &str, tm: &Tm) -> String {
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
        let (spec, next) = parse_spec(flavor, &chars, i);
        i = next;
        let Some(conv) = chars.get(i).copied() else {
            out.extend(&chars[start..]);
            break;
        };
        i += 1;
        let mut width = spec.width;
        // An unknown conversion is printed as written, padded like text.
        let field = conversion(flavor, conv, tm, &mut width, (spec.colons, spec.flags.pad))
            .unwrap_or_else(|| Field::Text(chars[start..i].iter().collect()));
        write_field(&mut out, field, conv, spec.flags, width, flavor);
    }
    out
}

/// What comes between `%` and the conversion character.
struct Spec {
    flags: Flags,
    width: Option<usize>,
    colons: usize,
}

/// Reads flags, width, colons and an `E`/`O` modifier from `i`; returns
/// them and the index of the conversion character. glibc knows no `+` flag:
/// there it is an (unknown) conversion.
fn parse_spec(flavor: Flavor, chars: &[char], mut i: usize) -> (Spec, usize) {
    let mut flags = Flags {
        pad: None,
        plus: false,
        upper: false,
        swap: false,
    };
    while let Some(&c @ ('-' | '_' | '0' | '^' | '#' | '+')) = chars.get(i) {
        match c {
            '+' if flavor == Flavor::Libc => break,
            '^' => flags.upper = true,
            '#' => flags.swap = true,
            // The last padding flag wins.
            _ => {
                flags.pad = Some(match c {
                    '-' => '\0',
                    '_' => ' ',
                    _ => '0',
                });
                flags.plus = c == '+';
            }
        }
        i += 1;
    }
    let mut width: Option<usize> = None;
    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
        width = Some(
            width
                .unwrap_or(0)
                .saturating_mul(10)
                .saturating_add(d as usize),
        );
        i += 1;
    }
    // GNU ignores a width past an `int`; past printf's 64 MiB field we do
    // too rather than build it.
    if width.is_some_and(|w| w > MAX_WIDTH) {
        width = None;
    }
    let mut colons = 0;
    while chars.get(i) == Some(&':') {
        colons += 1;
        i += 1;
    }
    // The C locale has no alternative forms: `%Ey` is `%y`.
    if matches!(chars.get(i), Some('E' | 'O')) && i + 1 < chars.len() {
        i += 1;
    }
    (
        Spec {
            flags,
            width,
            colons,
        },
        i,
    )
}

/// What one conversion produces.
enum Field {
    /// A number: value, default width, default padding (`0` or space), and
    /// for a year-like one (`%Y %C %G %y`) the digits past which gnulib's
    /// `+` flag writes a sign (0 for the others).
    Number(i64, usize, char, u32),
    /// Text, padded with spaces only when a width is given.
    Text(String),
}

/// The flags of one conversion.
#[derive(Clone, Copy)]
struct Flags {
    /// `-` (`'\0'`: none), `_` (space), `0`/`+` (zero).
    pad: Option<char>,
    /// `+` (gnulib only): zeros, and a `+` on a year past its digits.
    plus: bool,
    /// `^`: upper case.
    upper: bool,
    /// `#`: swap case (upper case, except `%Z` and `%p` in lower).
    swap: bool,
}

/// The field of conversion `conv`, `None` for one the flavour does not know
/// (printed as written). `%N` takes the width as its digit count and clears
/// it.
fn conversion(
    flavor: Flavor,
    conv: char,
    tm: &Tm,
    width: &mut Option<usize>,
    spec: (usize, Option<char>),
) -> Option<Field> {
    let (colons, pad) = spec;
    if flavor == Flavor::Libc && (matches!(conv, 'N' | 'q') || colons > 0) {
        return None;
    }
    if let Some(n) = number(flavor, conv, tm) {
        return Some(n);
    }
    let compound = |f: &str| Field::Text(strftime_as(flavor, f, tm));
    // gnulib's bare `%F` is `%+4Y-%m-%d`: a sign on years past 9999.
    if conv == 'F' && flavor == Flavor::Gnu && width.is_none() && pad.is_none() {
        return Some(compound("%+4Y-%m-%d"));
    }
    Some(match conv {
        'N' => {
            // The width is the digit count (zeros past the ninth), not padding.
            let w = width.take().unwrap_or(9).max(1);
            let mut digits = format!("{:09}", tm.nanos);
            digits.truncate(w);
            digits.extend(std::iter::repeat_n('0', w - digits.len()));
            Field::Text(digits)
        }
        'a' => Field::Text(DAYS[tm.wday as usize][..3].to_string()),
        'A' => Field::Text(DAYS[tm.wday as usize].to_string()),
        'b' | 'h' => Field::Text(MONTHS[tm.month as usize - 1][..3].to_string()),
        'B' => Field::Text(MONTHS[tm.month as usize - 1].to_string()),
        'p' => Field::Text(if tm.hour < 12 { "AM" } else { "PM" }.to_string()),
        'P' => Field::Text(if tm.hour < 12 { "am" } else { "pm" }.to_string()),
        'Z' => Field::Text(tm.zone.to_string()),
        'z' => Field::Text(numeric_zone(tm.offset, colons)),
        'n' => Field::Text("\n".into()),
        't' => Field::Text("\t".into()),
        '%' => Field::Text("%".into()),
        'F' => compound("%Y-%m-%d"),
        'T' | 'X' => compound("%H:%M:%S"),
        'D' | 'x' => compound("%m/%d/%y"),
        'R' => compound("%H:%M"),
        'r' => compound("%I:%M:%S %p"),
        // gnulib hands the locale's `%c` to the C library: an unpadded year.
        'c' => Field::Text(strftime_as(Flavor::Libc, "%a %b %e %H:%M:%S %Y", tm)),
        _ => return None,
    })
}

/// `%z` and gnulib's `%:z`, `%::z`, `%:::z` of an offset in seconds. The
/// seconds of an old local mean time offset are dropped, not rounded, as
/// the C libraries drop them.
fn numeric_zone(offset: i32, colons: usize) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.unsigned_abs();
    let (h, m, s) = (abs / 3600, abs / 60 % 60, abs % 60);
    match colons {
        0 => format!("{sign}{h:02}{m:02}"),
        1 => format!("{sign}{h:02}:{m:02}"),
        2 => format!("{sign}{h:02}:{m:02}:{s:02}"),
        // `%:::z`: only as precise as needed.
        _ if s != 0 => format!("{sign}{h:02}:{m:02}:{s:02}"),
        _ if m != 0 => format!("{sign}{h:02}:{m:02}"),
        _ => format!("{sign}{h:02}"),
    }
}

/// The numeric conversions: value, default width and padding. gnulib pads
/// years (`%Y %G`) to four digits and centuries to two; glibc does not.
fn number(flavor: Flavor, conv: char, tm: &Tm) -> Option<Field> {
    let wday = i64::from(tm.wday);
    let yday = i64::from(tm.yday);
    let h12 = i64::from((tm.hour + 11) % 12 + 1);
    let (year_w, century_w) = match flavor {
        Flavor::Gnu => (4, 2),
        Flavor::Libc => (1, 1),
    };
    let yearish = match conv {
        'Y' | 'G' => 4,
        'C' | 'y' => 2,
        _ => 0,
    };
    let (v, w, p) = match conv {
        'Y' => (tm.year, year_w, '0'),
        // Before year 0 the C libraries truncate: -768 is century -7, year 68.
        'C' => (tm.year / 100, century_w, '0'),
        'y' => ((tm.year % 100).abs(), 2, '0'),
        'm' => (i64::from(tm.month), 2, '0'),
        'd' => (i64::from(tm.day), 2, '0'),
        'e' => (i64::from(tm.day), 2, ' '),
        'H' => (i64::from(tm.hour), 2, '0'),
        'k' => (i64::from(tm.hour), 2, ' '),
        'I' => (h12, 2, '0'),
        'l' => (h12, 2, ' '),
        'M' => (i64::from(tm.min), 2, '0'),
        'S' => (i64::from(tm.sec), 2, '0'),
        'j' => (yday + 1, 3, '0'),
        'u' => (if wday == 0 { 7 } else { wday }, 1, '0'),
        'w' => (wday, 1, '0'),
        's' => (tm.epoch, 1, '0'),
        'q' => ((i64::from(tm.month) - 1) / 3 + 1, 1, '0'),
        'U' => ((yday + 7 - wday) / 7, 2, '0'),
        'W' => ((yday + 7 - (wday + 6) % 7) / 7, 2, '0'),
        'V' => (i64::from(tm.iso_week), 2, '0'),
        'G' => (tm.iso_year, year_w, '0'),
        'g' => ((tm.iso_year % 100).abs(), 2, '0'),
        _ => return None,
    };
    Some(Field::Number(v, w, p, yearish))
}

/// The widest field a conversion pads to (printf's limit too).
const MAX_WIDTH: usize = 1 << 26;

/// Writes `field` with the flags and width.
fn write_field(
    out: &mut String,
    field: Field,
    conv: char,
    f: Flags,
    width: Option<usize>,
    flavor: Flavor,
) {
    match field {
        Field::Number(v, dw, dp, yearish) => {
            let p = f.pad.unwrap_or(dp);
            let w = width.unwrap_or(dw);
            let digits = v.unsigned_abs().to_string();
            let most = if yearish == 2 { 99 } else { 9999 };
            let plus = f.plus
                && yearish > 0
                && (v > most || width.is_some_and(|w| (yearish as usize) < w));
            let sign = if v < 0 {
                "-"
            } else if plus {
                "+"
            } else {
                ""
            };
            if p == '\0' {
                let _ = write!(out, "{sign}{digits}");
            } else if p == ' ' {
                // By hand: `format!` panics past a width of 65,535.
                let fill = w.saturating_sub(sign.len() + digits.len());
                out.extend(std::iter::repeat_n(' ', fill));
                let _ = write!(out, "{sign}{digits}");
            } else {
                let fill = w.saturating_sub(sign.len() + digits.len());
                out.push_str(sign);
                out.extend(std::iter::repeat_n('0', fill));
                out.push_str(&digits);
            }
        }
        Field::Text(mut t) => {
            // `%P` stays lower case whatever the flags; `#` lowers `%p` and
            // `%Z` and raises the rest.
            if conv == 'P' || (f.swap && matches!(conv, 'Z' | 'p')) {
                t = t.to_lowercase();
            } else if f.upper || f.swap {
                t = t.to_uppercase();
            }
            if let Some(w) = width
                && t.len() < w
            {
                let fill = match f.pad {
                    Some('0') => '0',
                    _ => ' ',
                };
                // glibc pads text even under `-`; gnulib does not.
                if f.pad != Some('\0') || flavor == Flavor::Libc {
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
        let tm = from_epoch(-1, 0);
        assert_eq!((tm.year, tm.month, tm.day, tm.sec), (1969, 12, 31, 59));
    }

    #[test]
    fn beyond_jiffs_range_by_400_year_cycles() {
        // 33658-09-27 01:46:39 UTC, a Friday (`date -u -d @999999999999`).
        let tm = from_epoch(999_999_999_999, 0);
        assert_eq!(
            (tm.year, tm.month, tm.day, tm.hour, tm.wday),
            (33658, 9, 27, 1, 5)
        );
        assert_eq!(to_epoch(33658, 9, 27, 1, 46, 39), 999_999_999_999);
        assert_eq!(from_epoch(-62_167_219_200, 0).year, 0);
        assert_eq!(to_epoch(-1, 12, 31, 0, 0, 0), -62_167_305_600);
    }

    #[test]
    fn months_and_days_run_on_like_mktime() {
        assert_eq!(days_from_civil(2024, 13, 1), days_from_civil(2025, 1, 1));
        assert_eq!(days_from_civil(2024, 2, 30), days_from_civil(2024, 3, 1));
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2023, 12), 31);
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
            strftime("%^a %s %V %G %U %W %% %#p %#Z %Ey", &tm),
            "MON 1704078005 01 2024 00 01 % am utc 24"
        );
        assert_eq!(
            strftime("%3N %10Y", &from_epoch(0, 123_456_789)),
            "123 0000001970"
        );
    }

    #[test]
    fn intervals_as_sleep_and_timeout_read_them() {
        assert_eq!(parse_interval("1.5m"), Some(90.0));
        assert_eq!(parse_interval("1e-1"), Some(0.1));
        assert_eq!(parse_interval("2d"), Some(172_800.0));
        assert_eq!(parse_interval("inf"), Some(f64::INFINITY));
        for bad in ["", "s", "1e", "-1", "nan", "1x", "5 s"] {
            assert_eq!(parse_interval(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn libc_prints_gnulib_extensions_as_written() {
        let tm = from_epoch(0, 5);
        assert_eq!(
            strftime_as(Flavor::Libc, "%N|%3N|%q|%:z|%z|%", &tm),
            "%N|%3N|%q|%:z|+0000|%"
        );
    }
}
