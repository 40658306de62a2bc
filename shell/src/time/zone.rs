//! The sandbox's time zones: what `TZ` in the sandbox's environment names,
//! resolved the way glibc's `tzset(3)` resolves it, from the tz database
//! bundled in the binary (jiff's `tzdb-bundle-always`), never the host's
//! zoneinfo. Unset or empty is UTC, the sandbox's default.
//!
//! glibc's order: a leading `:` is dropped; a name the database holds is that
//! zone (`/usr/share/zoneinfo/NAME` is `NAME`); anything else is a POSIX rule
//! string (`EET-2EEST,M3.5.0/3,M10.5.0/4`, `<+03>-3`). What fails both is UTC
//! under the abbreviation glibc salvages from its front (`Nowhere/Land` is
//! `Nowhere`; fewer than three letters leave it empty).
//!
//! [`Zone::mktime`] turns a local wall-clock time back into seconds as
//! glibc's `mktime(3)` does, including which side of a DST overlap it lands
//! on (its search starts from offset 0) and where a time in a gap goes.

use std::cell::Cell;
use std::sync::OnceLock;

use jiff::Timestamp;
use jiff::tz::{TimeZone, TimeZoneDatabase};

use super::{Tm, from_epoch};

/// A time zone as the C library sees `TZ`.
#[derive(Clone, Debug)]
pub struct Zone {
    tz: TimeZone,
    /// The abbreviation glibc keeps for a `TZ` it could not read (the zone
    /// is then UTC).
    salvaged: Option<String>,
    /// The offset `mktime`'s search starts from: glibc keeps the one its
    /// last call found (0 at first), which decides the side of an overlap.
    guess: Cell<i64>,
}

/// The offset in force at one instant.
struct OffsetAt {
    seconds: i32,
    dst: bool,
    abbreviation: String,
}

/// The time zone database compiled into the binary.
fn database() -> &'static TimeZoneDatabase {
    static DB: OnceLock<TimeZoneDatabase> = OnceLock::new();
    DB.get_or_init(TimeZoneDatabase::bundled)
}

/// Where glibc looks for zone files; a `TZ` naming a file there names the
/// bundled zone of the same name.
const ZONEINFO_DIRS: [&str; 2] = ["/usr/share/zoneinfo/", "/usr/share/zoneinfo/posix/"];

/// The rules glibc applies to a POSIX string naming a DST zone without
/// saying when DST starts and ends (those of its `posixrules`, the US ones).
const DEFAULT_RULES: &str = ",M3.2.0,M11.1.0";

impl Zone {
    /// UTC, the sandbox's default.
    pub fn utc() -> Zone {
        Zone {
            tz: TimeZone::UTC,
            salvaged: None,
            guess: Cell::new(0),
        }
    }

    /// The zone of a `TZ` value (`None`: unset).
    pub fn from_tz(value: Option<&str>) -> Zone {
        let Some(value) = value else {
            return Zone::utc();
        };
        let value = value.strip_prefix(':').unwrap_or(value);
        if value.is_empty() {
            return Zone::utc();
        }
        let name = ZONEINFO_DIRS
            .iter()
            .find_map(|dir| value.strip_prefix(dir))
            .unwrap_or(value);
        // The database matches names without regard to case; the C library's
        // file lookup does not.
        if let Ok(tz) = database().get(name)
            && tz.iana_name().is_some_and(|n| n == name)
        {
            return Zone {
                tz,
                salvaged: None,
                guess: Cell::new(0),
            };
        }
        if let Ok(tz) = TimeZone::posix(value) {
            return Zone {
                tz,
                salvaged: None,
                guess: Cell::new(0),
            };
        }
        salvage(value)
    }

    /// The zone `TZ` in `env` names (the last definition wins).
    pub fn from_env(env: &[(String, String)]) -> Zone {
        Zone::from_tz(
            env.iter()
                .rev()
                .find(|(k, _)| k == "TZ")
                .map(|(_, v)| v.as_str()),
        )
    }

    /// The offset, DST flag and abbreviation at `secs` since the epoch
    /// (past jiff's ±9999 years, those at its ends).
    fn at(&self, secs: i64) -> OffsetAt {
        let clamped = secs.clamp(Timestamp::MIN.as_second(), Timestamp::MAX.as_second());
        let ts = Timestamp::from_second(clamped).unwrap_or(Timestamp::UNIX_EPOCH);
        let info = self.tz.to_offset_info(ts);
        OffsetAt {
            seconds: info.offset().seconds(),
            dst: info.dst().is_dst(),
            abbreviation: match &self.salvaged {
                Some(name) => name.clone(),
                None => info.abbreviation().to_string(),
            },
        }
    }

    /// Breaks `secs` since the epoch into local time in this zone.
    pub fn local(&self, secs: i64, nanos: u32) -> Tm {
        let at = self.at(secs);
        let mut tm = from_epoch(secs.saturating_add(i64::from(at.seconds)), nanos);
        tm.epoch = secs;
        tm.offset = at.seconds;
        tm.isdst = at.dst;
        tm.zone = at.abbreviation;
        tm
    }

    /// Seconds since the epoch of the local wall-clock time `wall` (written
    /// as if it were UTC: `time::to_epoch` of the local fields), as glibc's
    /// `mktime` finds it with `tm_isdst` = `isdst` (`None`: -1, let the zone
    /// say). `Err` carries where `mktime` puts a time that a DST gap skipped
    /// (which `date -d` rejects).
    pub fn mktime(&self, wall: i64, isdst: Option<bool>) -> Result<i64, i64> {
        let found = self.search(wall);
        let t = match found {
            Ok(t) | Err(t) => t,
        };
        let Some(want) = isdst else {
            return found;
        };
        if self.at(t).dst == want {
            return found;
        }
        // glibc probes a week at a time, up to 536 days either way, for an
        // instant with the asked DST flag, and applies its offset.
        const STRIDE: i64 = 601_200;
        const BOUND: i64 = 536 * 86_400;
        let mut delta = STRIDE;
        while delta < BOUND {
            for probe in [t.saturating_sub(delta), t.saturating_add(delta)] {
                let at = self.at(probe);
                if at.dst == want {
                    return Ok(wall.saturating_sub(i64::from(at.seconds)));
                }
            }
            delta += STRIDE;
        }
        found
    }

    /// glibc's search: guess with the last offset found, then correct by how far the
    /// local time of the guess is from `wall` until they agree. Two guesses
    /// taking turns mean `wall` is in a gap: the later one is `mktime`'s.
    fn search(&self, wall: i64) -> Result<i64, i64> {
        let mut t = wall.saturating_sub(self.guess.get());
        let mut before: Option<i64> = None;
        let mut found = Err(t);
        for _ in 0..8 {
            let local = t.saturating_add(i64::from(self.at(t).seconds));
            if local == wall {
                found = Ok(t);
                break;
            }
            let next = t.saturating_add(wall - local);
            if before == Some(next) {
                found = Err(t.max(next));
                break;
            }
            before = Some(t);
            t = next;
        }
        let (Ok(t) | Err(t)) = found;
        self.guess.set(wall.saturating_sub(t));
        found
    }
}

/// What glibc makes of a `TZ` it cannot read: a leading name (three or more
/// letters, or `<...>`) and, when one follows, an offset; a DST name after
/// that gets the default rules. Anything unreadable leaves UTC.
fn salvage(value: &str) -> Zone {
    let (name, rest) = posix_name(value);
    if name.len() < 3 {
        return Zone {
            tz: TimeZone::UTC,
            salvaged: Some(String::new()),
            guess: Cell::new(0),
        };
    }
    let offset_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b':'))
        .count();
    if offset_len > 0 {
        let (_, after) = rest.split_at(offset_len);
        let (dst, tail) = posix_name(after);
        if dst.len() >= 3 && !tail.contains(',') {
            let with_rules = format!("{value}{DEFAULT_RULES}");
            if let Ok(tz) = TimeZone::posix(&with_rules) {
                return Zone {
                    tz,
                    salvaged: None,
                    guess: Cell::new(0),
                };
            }
        }
        let fixed = &value[..value.len() - after.len()];
        if let Ok(tz) = TimeZone::posix(fixed) {
            return Zone {
                tz,
                salvaged: None,
                guess: Cell::new(0),
            };
        }
    }
    Zone {
        tz: TimeZone::UTC,
        salvaged: Some(name.to_string()),
        guess: Cell::new(0),
    }
}

/// Splits a POSIX zone name (`EST`, `<+0330>`: the text inside the
/// brackets) off the front of `s`.
fn posix_name(s: &str) -> (&str, &str) {
    if let Some(inner) = s.strip_prefix('<')
        && let Some(end) = inner.find('>')
    {
        return (&inner[..end], &inner[end + 1..]);
    }
    let n = s.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    s.split_at(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::to_epoch;

    fn show(tz: &str, secs: i64) -> String {
        let tm = Zone::from_tz(Some(tz)).local(secs, 0);
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02} {} {}",
            tm.year, tm.month, tm.day, tm.hour, tm.min, tm.zone, tm.offset
        )
    }

    #[test]
    fn names_rules_and_fallbacks_as_glibc_reads_them() {
        assert_eq!(
            show("Europe/Paris", 1_700_000_000),
            "2023-11-14 23:13 CET 3600"
        );
        assert_eq!(
            show(":Europe/Paris", 1_720_000_000),
            "2024-07-03 11:46 CEST 7200"
        );
        assert_eq!(show("<+03>-3", 0), "1970-01-01 03:00 +03 10800");
        assert_eq!(show("Nowhere/Land", 0), "1970-01-01 00:00 Nowhere 0");
        assert_eq!(show("europe/paris", 0), "1970-01-01 00:00 europe 0");
        assert_eq!(show("AB", 0), "1970-01-01 00:00  0");
        assert_eq!(show("", 0), "1970-01-01 00:00 UTC 0");
        assert_eq!(
            show("/usr/share/zoneinfo/Asia/Tokyo", 0),
            "1970-01-01 09:00 JST 32400"
        );
    }

    #[test]
    fn mktime_lands_where_glibc_does() {
        let paris = Zone::from_tz(Some("Europe/Paris"));
        // The spring gap: invalid, mktime's answer one hour on.
        assert_eq!(
            paris.mktime(to_epoch(2024, 3, 31, 2, 30, 0), None),
            Err(1_711_848_600)
        );
        // The autumn overlap: the second 02:30 (CET) from offset 0.
        assert_eq!(
            paris.mktime(to_epoch(2024, 10, 27, 2, 30, 0), None),
            Ok(1_729_992_600)
        );
        assert_eq!(
            paris.mktime(to_epoch(2024, 10, 27, 2, 30, 0), Some(true)),
            Ok(1_729_989_000)
        );
        let ny = Zone::from_tz(Some("America/New_York"));
        // The first 01:30 (EDT) there.
        assert_eq!(
            ny.mktime(to_epoch(2024, 11, 3, 1, 30, 0), None),
            Ok(1_730_611_800)
        );
    }
}
