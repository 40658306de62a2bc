//! The one parser for durations users write: `500ms`, `30s`, `5m`, `24h`,
//! `7d`, `2w`, or a bare number of seconds. Shared by schedules, the CLI and
//! retention settings.

use std::time::Duration;

/// Parses a positive duration; `None` for anything else (including values
/// too large to represent, which would otherwise panic in `Duration`).
///
/// ```
/// use std::time::Duration;
/// use sandkeep::cli_support::parse_duration;
///
/// assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
/// assert_eq!(parse_duration("7d"), Some(Duration::from_secs(7 * 86400)));
/// assert_eq!(parse_duration("1e30"), None);
/// assert_eq!(parse_duration("-1s"), None);
/// ```
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let n: f64 = num.parse().ok()?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 0.001,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        "w" => 7.0 * 86400.0,
        _ => return None,
    };
    let secs = n * scale;
    if secs > 0.0 {
        Duration::try_from_secs_f64(secs).ok()
    } else {
        None
    }
}
