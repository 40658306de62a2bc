//! `seq`: print a sequence of numbers, with GNU's precision rules (decimal
//! arithmetic, so `seq 0.1 0.1 0.3` ends at 0.3), `-w`, `-s` and `-f`.

use crate::commands::CommandCtx;
use crate::commands::files::common::GnuError;
use crate::commands::files::common::{quote_locale, usage_error};
use crate::commands::options::{OptSpec, ParseMode, flag, parse, with_arg};

/// What `seq --help` prints.
pub(crate) const USAGE: &str = "\
Usage: seq [OPTION]... LAST
  or:  seq [OPTION]... FIRST LAST
  or:  seq [OPTION]... FIRST INCREMENT LAST
Print the numbers from FIRST to LAST, INCREMENT apart (a negative INCREMENT
counts down); FIRST and INCREMENT default to 1. Decimal operands are added
exactly, so 'seq 0.1 0.1 0.3' ends at 0.3.

  -f, --format=FORMAT      print each number with the printf floating-point
                             FORMAT (%f, %e, %g, ...)
  -s, --separator=STRING   put STRING between the numbers (default: \\n)
  -w, --equal-width        pad the numbers with leading zeros to one width
      --help        display this help and exit
";

/// A parsed operand: its value, its decimal digits, and the exact scaled form.
#[derive(Clone, Debug)]
struct Num {
    value: f64,
    /// Digits after the point as GNU counts them (exponent-adjusted).
    prec: usize,
    /// Exact value times 10^`scale_digits`, when representable.
    scaled: Option<(i128, usize)>,
    text: String,
    /// The width `-w` gives it, from the operand's text as GNU counts it
    /// (so `seq -w 010 12` pads to 3); `None` for hex operands.
    width: Option<usize>,
}

fn parse_num(s: &str) -> Option<Num> {
    let t = s.trim_start_matches([' ', '\t']);
    let t = t.strip_prefix('+').unwrap_or(t);
    if let Some(n) = parse_hex_int(t, s) {
        return Some(n);
    }
    let value: f64 = t.parse().ok()?;
    if value.is_nan() && !t.eq_ignore_ascii_case("nan") {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let (mant, exp) = match lower.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i64>().ok()?),
        None => (lower.clone(), 0),
    };
    let frac = mant.split_once('.').map(|(_, f)| f.len()).unwrap_or(0) as i64;
    let prec = (frac - exp).max(0) as usize;
    let scaled = if value.is_finite() && !lower.contains("inf") {
        let neg = mant.starts_with('-');
        let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
        let mut v: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        // v = mant * 10^frac; we want value * 10^prec = mant * 10^(exp + prec)
        let shift = exp + prec as i64 - frac;
        if shift >= 0 {
            for _ in 0..shift {
                v = v.checked_mul(10)?;
            }
        } else {
            for _ in 0..(-shift) {
                v /= 10;
            }
        }
        if neg {
            v = -v;
        }
        Some((v, prec))
    } else {
        None
    };
    Some(Num {
        value,
        prec,
        scaled,
        text: s.to_string(),
        width: value.is_finite().then(|| operand_width(t)),
    })
}

/// A hex integer operand (`0x10`): GNU's strtold reads it; it has no
/// decimals and no `-w` width.
fn parse_hex_int(t: &str, s: &str) -> Option<Num> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let hex = body
        .strip_prefix("0x")
        .or_else(|| body.strip_prefix("0X"))?;
    let v = i128::from_str_radix(hex, 16).ok()?;
    let v = if neg { -v } else { v };
    Some(Num {
        value: v as f64,
        prec: 0,
        scaled: Some((v, 0)),
        text: s.to_string(),
        width: None,
    })
}

/// GNU seq's width of an operand `arg` (sign and blanks already skipped
/// as it skips them): its length, adjusted for `.5` (0.5), `5.` (5) and an
/// exponent (which is not printed).
fn operand_width(arg: &str) -> usize {
    let mut width = arg.len() as i64;
    let point = arg.find('.');
    let mut prec: i64 = 0;
    if let Some(p) = point {
        let frac = arg[p + 1..].find(['e', 'E']).unwrap_or(arg.len() - p - 1) as i64;
        prec = frac;
        let bare = p == 0 || !arg.as_bytes()[p - 1].is_ascii_digit();
        width += if frac == 0 { -1 } else { i64::from(bare) };
    }
    if let Some(e) = arg.find(['e', 'E']) {
        let exponent: i64 = leading_int(&arg[e + 1..]);
        prec += if exponent < 0 {
            -exponent
        } else {
            -prec.min(exponent)
        };
        width -= (arg.len() - e) as i64;
        let shift = if exponent < 0 {
            if point.is_none_or(|p| e == p + 1) {
                width += 1;
            }
            -exponent
        } else {
            if point.is_some() && prec == 0 {
                width -= 1;
            }
            -prec.min(exponent)
        };
        width += shift;
    }
    width.max(0) as usize
}

/// The integer at the start of `s`, as strtol reads it (0 when none).
fn leading_int(s: &str) -> i64 {
    let b = s.as_bytes();
    let mut end = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    s[..end].parse().unwrap_or(0)
}

fn rescale(n: &Num, scale: usize) -> Option<i128> {
    let (v, s) = n.scaled?;
    let mut v = v;
    for _ in s..scale {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

fn pow10(n: usize) -> i128 {
    10i128.pow(n as u32)
}

/// Formats an exact scaled integer with `prec` decimals.
fn fixed(v: i128, scale: usize, prec: usize) -> String {
    let v = v / pow10(scale - prec);
    let neg = v < 0;
    let a = v.unsigned_abs();
    let p = pow10(prec) as u128;
    let int = a / p;
    let frac = a % p;
    let sign = if neg { "-" } else { "" };
    if prec == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac:0prec$}")
    }
}

/// C `printf` of one floating-point conversion (`%g`, `%f`, `%e`, with flags,
/// width and precision).
pub fn format_float(
    spec_flags: &str,
    width: Option<usize>,
    prec: Option<usize>,
    conv: char,
    v: f64,
) -> String {
    let upper = conv.is_ascii_uppercase();
    let alt = spec_flags.contains('#');
    let mut body = if !v.is_finite() {
        let s = if v.is_nan() { "nan" } else { "inf" };
        s.to_string()
    } else {
        match conv.to_ascii_lowercase() {
            'f' => format!("{:.*}", prec.unwrap_or(6), v.abs()),
            'e' => exp_form(v.abs(), prec.unwrap_or(6)),
            'a' => format!("{:e}", v.abs()),
            _ => {
                let p = prec.unwrap_or(6).max(1);
                if v == 0.0 {
                    if alt {
                        format!("{:.*}", p - 1, 0.0)
                    } else {
                        "0".to_string()
                    }
                } else {
                    let e = exp_form(v.abs(), p - 1);
                    let exp: i32 = e
                        .rsplit_once('e')
                        .and_then(|(_, x)| x.parse().ok())
                        .unwrap_or(0);
                    let s = if exp < -4 || exp >= p as i32 {
                        e
                    } else {
                        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, v.abs())
                    };
                    if alt { s } else { strip_zeros(&s) }
                }
            }
        }
    };
    if upper {
        body = body.to_uppercase();
    }
    let sign = if v.is_sign_negative() {
        "-"
    } else if spec_flags.contains('+') {
        "+"
    } else if spec_flags.contains(' ') {
        " "
    } else {
        ""
    };
    let w = width.unwrap_or(0);
    let len = sign.len() + body.len();
    if len >= w {
        return format!("{sign}{body}");
    }
    if spec_flags.contains('-') {
        format!("{sign}{body}{}", " ".repeat(w - len))
    } else if spec_flags.contains('0') && v.is_finite() {
        format!("{sign}{}{body}", "0".repeat(w - len))
    } else {
        format!("{}{sign}{body}", " ".repeat(w - len))
    }
}

fn exp_form(v: f64, prec: usize) -> String {
    let s = format!("{:.*e}", prec, v);
    match s.split_once('e') {
        Some((m, e)) => {
            let ev: i32 = e.parse().unwrap_or(0);
            let sign = if ev < 0 { '-' } else { '+' };
            format!("{m}e{sign}{:02}", ev.abs())
        }
        None => s,
    }
}

fn strip_zeros(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => {
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            format!("{m}e{e}")
        }
        None if s.contains('.') => s.trim_end_matches('0').trim_end_matches('.').to_string(),
        None => s.to_string(),
    }
}

/// A validated `-f` format: text before, the conversion, text after.
struct Format {
    pre: String,
    flags: String,
    width: Option<usize>,
    prec: Option<usize>,
    conv: char,
    post: String,
}

fn parse_format(f: &str) -> Result<Format, String> {
    let unpct = |s: &str| s.replace("%%", "%");
    let bytes: Vec<char> = f.chars().collect();
    let mut i = 0;
    let mut found: Option<Format> = None;
    let mut pre = String::new();
    while i < bytes.len() {
        if bytes[i] == '%' {
            if bytes.get(i + 1) == Some(&'%') {
                i += 2;
                continue;
            }
            if found.is_some() {
                return Err(format!(
                    "format {} has too many % directives",
                    quote_locale(f)
                ));
            }
            let start = i;
            i += 1;
            let mut flags = String::new();
            while i < bytes.len() && "-+ #0'".contains(bytes[i]) {
                flags.push(bytes[i]);
                i += 1;
            }
            let mut w = String::new();
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                w.push(bytes[i]);
                i += 1;
            }
            let mut prec = None;
            if i < bytes.len() && bytes[i] == '.' {
                i += 1;
                let mut p = String::new();
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    p.push(bytes[i]);
                    i += 1;
                }
                prec = Some(p.parse().unwrap_or(0));
            }
            if i < bytes.len() && bytes[i] == 'L' {
                i += 1;
            }
            let Some(&conv) = bytes.get(i) else {
                return Err(format!("format {} ends in %", quote_locale(f)));
            };
            if !"eEfFgGaA".contains(conv) {
                return Err(format!(
                    "format {} has unknown %{conv} directive",
                    quote_locale(f)
                ));
            }
            i += 1;
            pre = unpct(&f[..bytes[..start].iter().map(|c| c.len_utf8()).sum::<usize>()]);
            found = Some(Format {
                pre: String::new(),
                flags,
                width: w.parse().ok(),
                prec,
                conv,
                post: String::new(),
            });
            let rest: String = bytes[i..].iter().collect();
            if let Some(fm) = found.as_mut() {
                fm.post = rest;
            }
            continue;
        }
        i += 1;
    }
    match found {
        Some(mut fm) => {
            if fm.post.replace("%%", "").contains('%') {
                return Err(format!(
                    "format {} has too many % directives",
                    quote_locale(f)
                ));
            }
            fm.pre = pre;
            fm.post = unpct(&fm.post);
            Ok(fm)
        }
        None => Err(format!("format {} has no % directive", quote_locale(f))),
    }
}

/// `seq [-w] [-s SEP] [-f FORMAT] [FIRST [INCREMENT]] LAST`
pub fn seq(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(SeqOptions {
        sep,
        format,
        equal,
        ops,
    }) = parse_args(ctx)
    else {
        return 1;
    };
    let Some((first, step, last)) = operands(ctx, &ops) else {
        return 1;
    };
    let fmt = match &format {
        Some(f) => match parse_format(f) {
            Ok(fm) => Some(fm),
            Err(e) => {
                ctx.gnu_error(e);
                return 1;
            }
        },
        None => None,
    };
    if fmt.is_some() && equal {
        ctx.gnu_error("format string may not be specified when printing equal width strings");
        let _ = writeln!(ctx.stderr, "Try 'seq --help' for more information.");
        return 1;
    }
    let prec = first.prec.max(step.prec);
    let scale = prec.max(last.prec);
    let mut out = Output {
        sep: &sep,
        buf: Vec::with_capacity(8192),
    };
    let exact = (
        rescale(&first, scale),
        rescale(&step, scale),
        rescale(&last, scale),
    );
    let printed = if let (Some(f), Some(s), Some(l)) = exact {
        let fixed_point = FixedPoint {
            scale,
            prec,
            width: if equal {
                equal_width(&first, &step, &last)
            } else {
                None
            },
            negative_zero: first.value == 0.0 && first.value.is_sign_negative(),
        };
        print_exact(ctx, &mut out, (f, s, l), fixed_point, fmt.as_ref())
    } else {
        print_float(
            ctx,
            &mut out,
            (first.value, step.value, last.value),
            prec,
            fmt.as_ref(),
        )
    };
    let Some(count) = printed else {
        return 1;
    };
    let term = "\n";
    let mut out = out.buf;
    if count > 0 {
        out.extend_from_slice(term.as_bytes());
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    0
}

/// `-w`'s width, GNU's way: from the widths of FIRST and LAST as written,
/// each widened by the decimals FIRST or INCREMENT add. `None` (no
/// padding) for hex operands.
fn equal_width(first: &Num, step: &Num, last: &Num) -> Option<usize> {
    let prec = first.prec.max(step.prec) as i64;
    let (fw, lw) = (first.width? as i64, last.width? as i64);
    let (fp, lp) = (first.prec as i64, last.prec as i64);
    let mut first_width = fw + (prec - fp);
    let mut last_width = lw + (prec - lp);
    if lp > 0 && prec == 0 {
        last_width -= 1;
    }
    if lp == 0 && prec > 0 {
        last_width += 1;
    }
    if fp == 0 && prec > 0 {
        first_width += 1;
    }
    usize::try_from(first_width.max(last_width)).ok()
}

/// What the command line gives.
struct SeqOptions {
    /// `-s`: between numbers (the last one is followed by a newline).
    sep: String,
    /// `-f`: a printf format for each number.
    format: Option<String>,
    /// `-w`: pad with leading zeros to equal width.
    equal: bool,
    /// FIRST, INCREMENT, LAST as given (1 to 3 of them, unchecked).
    ops: Vec<String>,
}

/// Options and operands; a word like `-1` or `-.5` is a (negative)
/// operand, and options stop at the first operand. `None` after the usage
/// error.
fn parse_args(ctx: &mut CommandCtx<'_>) -> Option<SeqOptions> {
    const SPEC: &[OptSpec] = &[
        flag('w', Some("equal-width"), "w"),
        with_arg(Some('f'), Some("format"), "f"),
        with_arg(Some('s'), Some("separator"), "s"),
    ];
    let mode = ParseMode {
        stop_at_operand: true,
        negative_numbers: true,
        ..ParseMode::default()
    };
    let parsed = match parse(ctx.args, SPEC, mode) {
        Ok(parsed) => parsed,
        Err(e) => {
            usage_error(ctx, &e);
            return None;
        }
    };
    Some(SeqOptions {
        sep: parsed.last("s").unwrap_or("\n").to_string(),
        format: parsed.last("f").map(String::from),
        equal: parsed.has("w"),
        ops: parsed.operands,
    })
}

/// FIRST, INCREMENT and LAST (defaults 1), checked. `None` after the usage
/// error.
fn operands(ctx: &mut CommandCtx<'_>, ops: &[String]) -> Option<(Num, Num, Num)> {
    if ops.is_empty() {
        usage_error(ctx, "missing operand");
        return None;
    }
    if ops.len() > 3 {
        usage_error(ctx, &format!("extra operand {}", quote_locale(&ops[3])));
        return None;
    }
    let mut nums = Vec::new();
    for o in ops {
        match parse_num(o) {
            Some(n) => nums.push(n),
            None => {
                usage_error(
                    ctx,
                    &format!("invalid floating point argument: {}", quote_locale(o)),
                );
                return None;
            }
        }
    }
    let one = || parse_num("1").expect("1 parses");
    let (first, step, last) = match nums.len() {
        1 => (one(), one(), nums[0].clone()),
        2 => (nums[0].clone(), one(), nums[1].clone()),
        _ => (nums[0].clone(), nums[1].clone(), nums[2].clone()),
    };
    if step.value == 0.0 {
        usage_error(
            ctx,
            &format!("invalid Zero increment value: {}", quote_locale(&step.text)),
        );
        return None;
    }
    Some((first, step, last))
}

/// The output: numbers joined by the separator, written out in 8 KiB
/// blocks.
struct Output<'s> {
    sep: &'s str,
    buf: Vec<u8>,
}

impl Output<'_> {
    /// Adds one number's text; false when writing failed or the run must end.
    fn emit(&mut self, ctx: &mut CommandCtx<'_>, s: &str, is_first: bool) -> bool {
        self.emit_with(ctx, is_first, |buf| buf.extend_from_slice(s.as_bytes()))
    }

    /// Adds one number, written into the buffer by `write`.
    fn emit_with(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        is_first: bool,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> bool {
        if !is_first {
            // The usual "\n" as a push: a copy of unknown length calls memmove.
            match self.sep.as_bytes() {
                [one] => self.buf.push(*one),
                sep => self.buf.extend_from_slice(sep),
            }
        }
        write(&mut self.buf);
        self.flush_if_full(ctx)
    }

    /// Writes the buffer out once it holds 8 KiB; false when writing failed
    /// or the run must end.
    fn flush_if_full(&mut self, ctx: &mut CommandCtx<'_>) -> bool {
        if self.buf.len() >= 8192 {
            if ctx.stdout.write_all(&self.buf).is_err() {
                return false;
            }
            self.buf.clear();
            if ctx.control.check().is_err() {
                return false;
            }
        }
        true
    }
}

/// How exact numbers are shown: integers scaled by 10^`scale`, printed with
/// `prec` decimals, zero-padded to `width` with `-w`.
#[derive(Clone, Copy)]
struct FixedPoint {
    scale: usize,
    prec: usize,
    width: Option<usize>,
    /// FIRST is a negative zero (`-0`, `-0.0`): GNU prints it as FIRST
    /// itself, sign and all; the numbers after it are sums, so `0`.
    negative_zero: bool,
}

/// The sequence in exact decimal arithmetic (FIRST, INCREMENT, LAST scaled
/// to integers). The count printed, `None` when output failed.
fn print_exact(
    ctx: &mut CommandCtx<'_>,
    out: &mut Output<'_>,
    (f, s, l): (i128, i128, i128),
    fp: FixedPoint,
    fmt: Option<&Format>,
) -> Option<u64> {
    let FixedPoint { scale, prec, .. } = fp;
    let mut count = 0u64;
    let mut v = f;
    // Plain integers (`seq 1 1000000`), the common case, are written as
    // digits straight into the buffer: no string per number.
    let plain = fmt.is_none() && fp.width.is_none() && scale == 0 && prec == 0;
    // Counting up by one from zero or more (`seq 1 1388000`), the text of
    // the next number is the last one's plus one, done on its digits as GNU
    // seq does: a division per digit costs seven times that.
    if fp.negative_zero && ((s > 0 && 0 <= l) || (s < 0 && 0 >= l)) {
        let text = match (fmt, fp.width) {
            (Some(fm), _) => format!(
                "{}{}{}",
                fm.pre,
                format_float(&fm.flags, fm.width, fm.prec, fm.conv, -0.0),
                fm.post
            ),
            (None, Some(width)) => format!("-{:0>w$}", fixed(0, scale, prec), w = width.max(2) - 1),
            (None, None) => format!("-{}", fixed(0, scale, prec)),
        };
        if !out.emit(ctx, &text, true) {
            return None;
        }
        count = 1;
        v = s;
    }
    let mut counter = (plain && s == 1 && v >= 0).then(|| DecimalCounter::new(v));
    while (s > 0 && v <= l) || (s < 0 && v >= l) {
        if let Some(counter) = counter.as_mut() {
            // Up to ten numbers at a time: those that differ in the last digit.
            let left = usize::try_from(l - v).map_or(usize::MAX, |d| d.saturating_add(1));
            let n = counter.push_run(&mut out.buf, out.sep.as_bytes(), count == 0, left);
            count += n as u64;
            if !out.flush_if_full(ctx) {
                return None;
            }
            // Past i128's end there is no next number (and no wrap-around).
            let Some(next) = v.checked_add(n as i128) else {
                break;
            };
            v = next;
            continue;
        }
        if plain {
            if !out.emit_with(ctx, count == 0, |buf| push_int(buf, v)) {
                return None;
            }
            count += 1;
            // Past i128's end there is no next number (and no wrap-around).
            let Some(next) = v.checked_add(s) else { break };
            v = next;
            continue;
        }
        let text = match (fmt, fp.width) {
            (Some(fm), _) => {
                let x = v as f64 / pow10(scale) as f64;
                format!(
                    "{}{}{}",
                    fm.pre,
                    format_float(&fm.flags, fm.width, fm.prec, fm.conv, x),
                    fm.post
                )
            }
            (None, Some(width)) => {
                let t = fixed(v, scale, prec);
                match t.strip_prefix('-') {
                    Some(d) => format!("-{:0>w$}", d, w = width - 1),
                    None => format!("{t:0>width$}"),
                }
            }
            (None, None) => fixed(v, scale, prec),
        };
        if !out.emit(ctx, &text, count == 0) {
            return None;
        }
        count += 1;
        let Some(next) = v.checked_add(s) else { break };
        v = next;
    }
    Some(count)
}

/// Appends `v` in decimal (what `fixed(v, 0, 0)` gives, without allocating).
/// A number that fits an `i64` (every one seq can print in time) is written
/// into a fixed 20-byte block, the block appended whole and the tail cut
/// off: a copy of constant size compiles to a few moves, where one of the
/// digits' own length calls `memmove` (two calls a number, a third of
/// `seq 1 1388000 > f`'s time).
fn push_int(buf: &mut Vec<u8>, v: i128) {
    /// The longest `i64` in decimal: `-9223372036854775808`.
    const BLOCK: usize = 20;
    let Ok(small) = i64::try_from(v) else {
        push_wide_int(buf, v);
        return;
    };
    let negative = small < 0;
    let mut n = small.unsigned_abs();
    let len = n.checked_ilog10().map_or(1, |d| d as usize + 1) + usize::from(negative);
    let mut block = [0u8; BLOCK];
    if negative {
        block[0] = b'-';
    }
    let mut at = len;
    loop {
        at -= 1;
        block[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = buf.len();
    buf.extend_from_slice(&block);
    buf.truncate(start + len);
}

/// A non-negative integer kept as its decimal digits, for counting by one.
struct DecimalCounter {
    /// The digits, left-aligned; room for `i128::MAX` (39 digits) and one more.
    digits: [u8; 40],
    len: usize,
}

impl DecimalCounter {
    fn new(start: i128) -> DecimalCounter {
        let mut text = Vec::with_capacity(40);
        push_int(&mut text, start);
        let mut digits = [b'0'; 40];
        let len = text.len().min(digits.len());
        digits[..len].copy_from_slice(&text[..len]);
        DecimalCounter { digits, len }
    }

    /// Appends this number and the ones after it that differ only in the
    /// last digit (at most `max`, at least one), each after `sep` but for
    /// the very first of the output (`first`), and moves past them: the
    /// count appended.
    ///
    /// Why by runs: the digits are stored a byte at a time and copied out
    /// sixteen at a time, and a wide load of bytes just stored stalls the
    /// CPU (store forwarding fails): once per number, that stall was half of
    /// `seq 1 1388000`. Within a run the digits are not touched; the last
    /// one is written into the output.
    fn push_run(&mut self, buf: &mut Vec<u8>, sep: &[u8], first: bool, max: usize) -> usize {
        let last = self.len - 1;
        let d0 = self.digits[last];
        let n = usize::from(b'9' - d0 + 1).min(max.max(1));
        buf.reserve(n * (self.digits.len() + sep.len()));
        for i in 0..n {
            if !(first && i == 0) {
                match sep {
                    [one] => buf.push(*one),
                    sep => buf.extend_from_slice(sep),
                }
            }
            // As push_int: a fixed-size copy, then the tail cut off.
            let start = buf.len();
            buf.extend_from_slice(&self.digits);
            buf.truncate(start + last);
            buf.push(d0 + i as u8);
        }
        self.digits[last] = d0 + (n - 1) as u8;
        self.increment();
        n
    }

    /// Adds one: the trailing nines become zeros and the digit before them
    /// goes up; all nines gain a leading one.
    fn increment(&mut self) {
        for d in self.digits[..self.len].iter_mut().rev() {
            if *d < b'9' {
                *d += 1;
                return;
            }
            *d = b'0';
        }
        if self.len < self.digits.len() {
            // The digits are all zeros now: "1" and one zero more.
            self.digits[0] = b'1';
            self.digits[self.len] = b'0';
            self.len += 1;
        }
    }
}

/// [`push_int`] for numbers past the `i64` range.
fn push_wide_int(buf: &mut Vec<u8>, v: i128) {
    let mut digits = [0u8; 40];
    let mut at = digits.len();
    let mut n = v.unsigned_abs();
    while n > 0 {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    if at == digits.len() {
        at -= 1;
        digits[at] = b'0';
    }
    if v < 0 {
        buf.push(b'-');
    }
    buf.extend_from_slice(&digits[at..]);
}

/// The sequence in floating point, for numbers exact arithmetic cannot
/// hold. The count printed, `None` when output failed.
fn print_float(
    ctx: &mut CommandCtx<'_>,
    out: &mut Output<'_>,
    (f, s, l): (f64, f64, f64),
    prec: usize,
    fmt: Option<&Format>,
) -> Option<u64> {
    let mut k = 0u64;
    loop {
        let v = f + s * k as f64;
        if !((s > 0.0 && v <= l) || (s < 0.0 && v >= l)) || !v.is_finite() && k > 0 {
            break;
        }
        let text = match fmt {
            Some(fm) => format!(
                "{}{}{}",
                fm.pre,
                format_float(&fm.flags, fm.width, fm.prec, fm.conv, v),
                fm.post
            ),
            None => format_float("", None, Some(prec), if prec > 0 { 'f' } else { 'g' }, v),
        };
        if !out.emit(ctx, &text, k == 0) {
            return None;
        }
        k += 1;
    }
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_formats() {
        assert_eq!(format_float("", None, None, 'g', 100.0), "100");
        assert_eq!(format_float("", None, None, 'g', 0.1), "0.1");
        assert_eq!(format_float("", None, None, 'g', 1e10), "1e+10");
        assert_eq!(format_float("0", Some(3), None, 'g', 7.0), "007");
        assert_eq!(format_float("", None, Some(2), 'f', 1.5), "1.50");
        assert_eq!(format_float("", None, Some(2), 'e', 1234.5), "1.23e+03");
        assert_eq!(fixed(-5, 1, 1), "-0.5");
        assert_eq!(fixed(25, 1, 1), "2.5");
    }

    #[test]
    fn the_decimal_counter_counts_as_fixed_prints() {
        for start in [0, 1, 8, 9, 98, 99, 999_999_998, i128::from(u64::MAX) - 2] {
            for max in [1, 2, 3, 25] {
                let mut counter = DecimalCounter::new(start);
                let (mut buf, mut v) = (Vec::new(), start);
                while v < start + 25 {
                    let n = counter.push_run(&mut buf, b"\n", v == start, max);
                    assert!((1..=max).contains(&n), "{n} numbers of at most {max}");
                    v += n as i128;
                }
                let want: Vec<String> = (start..v).map(|v| fixed(v, 0, 0)).collect();
                assert_eq!(
                    String::from_utf8(buf).unwrap(),
                    want.join("\n"),
                    "{start} by {max}"
                );
            }
        }
    }

    #[test]
    fn integers_are_pushed_as_fixed_prints_them() {
        for v in [
            0,
            7,
            -7,
            10,
            -10,
            1_388_000,
            i128::from(u64::MAX) + 1,
            i128::MIN,
            i128::MAX,
            i128::from(i64::MIN),
            i128::from(i64::MAX),
            i128::from(i64::MIN) - 1,
            i128::from(i64::MAX) + 1,
            999_999_999,
            -1_000_000_000,
        ] {
            let mut buf = Vec::new();
            push_int(&mut buf, v);
            assert_eq!(String::from_utf8(buf).unwrap(), fixed(v, 0, 0), "{v}");
        }
    }
}
