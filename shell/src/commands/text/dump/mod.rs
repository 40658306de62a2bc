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
use crate::fs::FsError;

/// Reads the operands (stdin when none) as one stream, as the dumpers do,
/// stopping after `max` bytes (`od -N`, `xxd -l`, `hexdump -n`) so that
/// `od -N4 /dev/urandom` ends.
pub fn read_all(
    ctx: &mut CommandCtx<'_>,
    operands: &[String],
    max: Option<u64>,
) -> Result<Vec<u8>, i32> {
    let input = read_some(ctx, operands, max, "-");
    if input.all_read {
        Ok(input.data)
    } else {
        Err(1)
    }
}

/// What [`read_some`] got from the operands.
pub struct Input {
    /// Their bytes, as one stream.
    pub data: Vec<u8>,
    /// Whether every operand was read.
    pub all_read: bool,
    /// Whether any operand was opened: a directory (`od dir`, `od < dir`)
    /// opens and then fails to read, as on Linux. GNU od dumps (at least
    /// the final offset) once one was, and prints nothing when none was.
    pub opened: bool,
}

/// As [`read_all`], but keeps what could be read; an unreadable operand is
/// reported, stdin under the name `stdin_name` (od's `'standard input'`).
pub fn read_some(
    ctx: &mut CommandCtx<'_>,
    operands: &[String],
    max: Option<u64>,
    stdin_name: &str,
) -> Input {
    let stdin = ["-".to_string()];
    let names = if operands.is_empty() {
        &stdin[..]
    } else {
        operands
    };
    let mut input = Input {
        data: Vec::new(),
        all_read: true,
        opened: false,
    };
    for name in names {
        let left = max.map(|m| m.saturating_sub(input.data.len() as u64));
        if left == Some(0) {
            break;
        }
        match input::read_prefix(ctx, name, left) {
            Ok(d) => {
                input.data.extend_from_slice(&d);
                input.opened = true;
            }
            Err(e) => {
                let shown = if name == "-" {
                    stdin_name.to_string()
                } else {
                    common::quotef(name)
                };
                common::err(ctx.stderr, &ctx.args[0], format!("{shown}: {e}"));
                input.all_read = false;
                input.opened |= e == FsError::IsADirectory;
            }
        }
    }
    input
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
