//! Byte dumpers: `od` ([`od`]), `xxd` ([`xxd`]) and `hexdump` ([`hexdump`]),
//! in their common forms. They share the input handling (skip, length) and
//! the `*` line that stands for repeated lines.

pub mod hexdump;
pub mod hexfmt;
pub mod od;
pub mod xxd;

use super::common;
use crate::commands::CommandCtx;
use crate::commands::files::input;

/// Reads the operands (stdin when none) as one stream, as the dumpers do,
/// stopping after `max` bytes (`od -N`, `xxd -l`, `hexdump -n`) so that
/// `od -N4 /dev/urandom` ends.
pub fn read_all(
    ctx: &mut CommandCtx<'_>,
    operands: &[String],
    max: Option<u64>,
) -> Result<Vec<u8>, i32> {
    match read_some(ctx, operands, max) {
        (data, true) => Ok(data),
        _ => Err(1),
    }
}

/// As [`read_all`], but keeps what could be read: the data and whether
/// every operand was read (an unreadable one is reported).
pub fn read_some(
    ctx: &mut CommandCtx<'_>,
    operands: &[String],
    max: Option<u64>,
) -> (Vec<u8>, bool) {
    let stdin = ["-".to_string()];
    let names = if operands.is_empty() {
        &stdin[..]
    } else {
        operands
    };
    let mut data = Vec::new();
    let mut ok = true;
    for name in names {
        let left = max.map(|m| m.saturating_sub(data.len() as u64));
        if left == Some(0) {
            break;
        }
        match input::read_prefix(ctx, name, left) {
            Ok(d) => data.extend_from_slice(&d),
            Err(e) => {
                common::err(ctx.stderr, &ctx.args[0], format!("{name}: {e}"));
                ok = false;
            }
        }
    }
    (data, ok)
}

/// Formats `data` in lines of `width` bytes with `line(offset, bytes)`,
/// replacing runs of lines equal to the one before by a single `*`
/// (unless `verbose`).
pub fn lines(
    data: &[u8],
    width: usize,
    base: u64,
    verbose: bool,
    mut line: impl FnMut(u64, &[u8], &mut String),
    out: &mut String,
) {
    let mut prev: Option<&[u8]> = None;
    let mut starred = false;
    for (i, chunk) in data.chunks(width.max(1)).enumerate() {
        if !verbose && chunk.len() == width && prev == Some(chunk) {
            if !starred {
                out.push_str("*\n");
                starred = true;
            }
            continue;
        }
        starred = false;
        prev = Some(chunk);
        line(base + (i * width) as u64, chunk, out);
    }
}

/// Parses a size with optional multiplier suffix (`b`, `k`, `K`, `m`, `M`,
/// `0x` hex prefix), as od and xxd accept for offsets and lengths.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') && s[1..].bytes().all(|b| b.is_ascii_digit()) {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    let split = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let n = u64::from_str_radix(&digits[..split], radix).ok()?;
    let mult = match &digits[split..] {
        "" => 1,
        "b" => 512,
        "k" | "K" | "KiB" => 1024,
        "kB" => 1000,
        "m" | "M" | "MiB" => 1 << 20,
        "MB" => 1_000_000,
        "G" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}
