//! The one place `src` reads the wall clock and writes timestamps, on jiff:
//! RFC 3339 / ISO 8601 in UTC for event logs, mind logs and schedules, the
//! sortable stamp in session ids, and the plain UTC form the CLI lists.
//! (Durations users write are parsed in [`crate::duration`].)

use jiff::Timestamp;

/// Seconds since the Unix epoch, now (0 on a clock before 1970).
pub fn unix_now() -> i64 {
    Timestamp::now().as_second().max(0)
}

/// Now, in RFC 3339 with milliseconds: `2026-12-03T03:10:43.123Z`.
pub fn now_iso_millis() -> String {
    iso_millis(Timestamp::now())
}

/// `t` in RFC 3339 with milliseconds: `2026-12-03T03:10:43.123Z`.
pub fn iso_millis(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// `secs` since the epoch in RFC 3339 to the second: `2026-12-03T03:10:43Z`;
/// `None` outside jiff's range (years -9999..=9999).
pub fn rfc3339_secs(secs: i64) -> Option<String> {
    let t = Timestamp::from_second(secs).ok()?;
    Some(t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// `secs` since the epoch as `2026-12-04 03:10:00` (UTC); `None` outside
/// jiff's range.
pub fn utc_seconds(secs: i64) -> Option<String> {
    let t = Timestamp::from_second(secs).ok()?;
    Some(t.strftime("%Y-%m-%d %H:%M:%S").to_string())
}

/// Now as `20261203-031500` (UTC): sortable and safe in file names.
pub fn now_compact() -> String {
    Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let t = Timestamp::new(1_796_267_443, 123_999_999).unwrap();
        assert_eq!(iso_millis(t), "2026-12-03T03:10:43.123Z");
        assert_eq!(
            iso_millis(Timestamp::UNIX_EPOCH),
            "1970-01-01T00:00:00.000Z"
        );
        assert_eq!(
            rfc3339_secs(1_796_267_443).as_deref(),
            Some("2026-12-03T03:10:43Z")
        );
        assert_eq!(rfc3339_secs(i64::MAX), None);
        assert_eq!(
            utc_seconds(1_796_267_400).as_deref(),
            Some("2026-12-03 03:10:00")
        );
        assert_eq!(utc_seconds(i64::MIN), None);
        assert_eq!(now_compact().len(), "20261203-031500".len());
        assert!(unix_now() > 1_700_000_000);
    }
}
