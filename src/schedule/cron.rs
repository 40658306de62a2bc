//! Cron expressions as cron users write them, translated for croner (which
//! tokio-cron-scheduler uses): a seconds field is required there, and a day
//! of month together with a day of week means "both" there but "either" in
//! cron. So a standard expression becomes one or two croner expressions
//! whose fire times, merged, are the cron times.

use chrono::{DateTime, Timelike, Utc};
use croner::Cron;
use croner::parser::{CronParser, Seconds};

/// A schedule's fire times.
#[derive(Clone, Debug)]
pub struct CronSpec {
    /// The expression as written.
    pub source: String,
    /// The croner expressions (seconds first) whose union is the schedule.
    pub parts: Vec<String>,
    crons: Vec<Cron>,
}

/// Why a cron expression was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cron expression {expr:?}: {reason}")]
pub struct CronError {
    /// The expression as written.
    pub expr: String,
    /// What is wrong with it.
    pub reason: String,
}

fn parser() -> CronParser {
    CronParser::builder()
        .seconds(Seconds::Required)
        .dom_and_dow(true)
        .build()
}

impl CronSpec {
    /// Parses a 5-field expression (minute hour day-of-month month
    /// day-of-week, UTC), a 6-field one with seconds first, or a nickname
    /// (`@hourly`, `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`,
    /// `@annually`).
    pub fn parse(expr: &str) -> Result<CronSpec, CronError> {
        let err = |reason: &str| CronError {
            expr: expr.to_string(),
            reason: reason.to_string(),
        };
        let text = expr.trim();
        let expanded = match text.to_ascii_lowercase().as_str() {
            "@yearly" | "@annually" => "0 0 1 1 *".to_string(),
            "@monthly" => "0 0 1 * *".to_string(),
            "@weekly" => "0 0 * * 0".to_string(),
            "@daily" | "@midnight" => "0 0 * * *".to_string(),
            "@hourly" => "0 * * * *".to_string(),
            "@reboot" => return Err(err("@reboot is not supported (schedules fire on time)")),
            t if t.starts_with('@') => return Err(err("unknown nickname")),
            _ => text.to_string(),
        };
        let mut fields: Vec<&str> = expanded.split_whitespace().collect();
        match fields.len() {
            5 => fields.insert(0, "0"),
            6 => {}
            n => {
                return Err(err(&format!(
                    "expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got {n}"
                )));
            }
        }
        let restricted = |f: &str| f != "*" && f != "?";
        let parts: Vec<String> = if restricted(fields[3]) && restricted(fields[5]) {
            // cron: either the day of month or the day of week matches.
            let mut by_dom = fields.clone();
            by_dom[5] = "*";
            let mut by_dow = fields.clone();
            by_dow[3] = "*";
            vec![by_dom.join(" "), by_dow.join(" ")]
        } else {
            vec![fields.join(" ")]
        };
        let crons = parts
            .iter()
            .map(|p| parser().parse(p).map_err(|e| err(&e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CronSpec {
            source: expr.to_string(),
            parts,
            crons,
        })
    }

    /// The next `n` fire times strictly after `after`.
    pub fn next_fires(&self, after: DateTime<Utc>, n: usize) -> Vec<DateTime<Utc>> {
        // Fires fall on whole seconds; croner keeps the start's fraction.
        let after = after.with_nanosecond(0).unwrap_or(after);
        let mut times: Vec<DateTime<Utc>> = self
            .crons
            .iter()
            .flat_map(|c| c.iter_after(after).take(n))
            .collect();
        times.sort();
        times.dedup();
        times.truncate(n);
        times
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
    }

    fn next(expr: &str, after: DateTime<Utc>, n: usize) -> Vec<String> {
        CronSpec::parse(expr)
            .unwrap()
            .next_fires(after, n)
            .into_iter()
            .map(|t| t.format("%Y-%m-%d %H:%M:%S %a").to_string())
            .collect()
    }

    // Expected times computed by hand from cron(5)'s rules (and checked with
    // a calendar: 2024-01-01 is a Monday).
    #[test]
    fn steps_and_ranges() {
        assert_eq!(
            next("*/15 * * * *", at(2024, 1, 1, 0, 7), 3),
            [
                "2024-01-01 00:15:00 Mon",
                "2024-01-01 00:30:00 Mon",
                "2024-01-01 00:45:00 Mon"
            ]
        );
        assert_eq!(
            next("0 9 * * 1-5", at(2024, 1, 6, 12, 0), 2),
            ["2024-01-08 09:00:00 Mon", "2024-01-09 09:00:00 Tue"]
        );
        assert_eq!(
            next("30 2 * * *", at(2024, 1, 1, 3, 0), 1),
            ["2024-01-02 02:30:00 Tue"]
        );
    }

    #[test]
    fn day_of_month_or_day_of_week() {
        // cron: the 1st of the month OR a Friday.
        assert_eq!(
            next("0 0 1 * 5", at(2024, 1, 1, 0, 0), 4),
            [
                "2024-01-05 00:00:00 Fri",
                "2024-01-12 00:00:00 Fri",
                "2024-01-19 00:00:00 Fri",
                "2024-01-26 00:00:00 Fri"
            ]
        );
        assert_eq!(
            next("0 0 1 * 5", at(2024, 1, 26, 0, 0), 2),
            ["2024-02-01 00:00:00 Thu", "2024-02-02 00:00:00 Fri"]
        );
    }

    #[test]
    fn sunday_is_0_or_7_or_sun() {
        for expr in ["0 0 * * 0", "0 0 * * 7", "0 0 * * SUN", "@weekly"] {
            assert_eq!(
                next(expr, at(2024, 1, 1, 0, 0), 1),
                ["2024-01-07 00:00:00 Sun"],
                "{expr}"
            );
        }
    }

    #[test]
    fn nicknames() {
        assert_eq!(
            next("@hourly", at(2024, 1, 1, 0, 7), 1),
            ["2024-01-01 01:00:00 Mon"]
        );
        assert_eq!(
            next("@daily", at(2024, 1, 1, 0, 7), 1),
            ["2024-01-02 00:00:00 Tue"]
        );
        assert_eq!(
            next("@monthly", at(2024, 1, 1, 0, 7), 1),
            ["2024-02-01 00:00:00 Thu"]
        );
        assert_eq!(
            next("@yearly", at(2024, 1, 1, 0, 7), 1),
            ["2025-01-01 00:00:00 Wed"]
        );
    }

    #[test]
    fn seconds_form() {
        assert_eq!(
            next("*/20 * * * * *", at(2024, 1, 1, 0, 0), 3),
            [
                "2024-01-01 00:00:20 Mon",
                "2024-01-01 00:00:40 Mon",
                "2024-01-01 00:01:00 Mon"
            ]
        );
    }

    #[test]
    fn bad_expressions_are_refused_with_a_reason() {
        for expr in [
            "",
            "* * *",
            "61 * * * *",
            "* * * * * * * *",
            "@reboot",
            "@often",
            "a b c d e",
        ] {
            let e = CronSpec::parse(expr).unwrap_err();
            assert!(!e.reason.is_empty(), "{expr}");
        }
    }
}
