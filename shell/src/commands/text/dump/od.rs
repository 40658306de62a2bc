//! `od`: dump bytes in octal, hex, decimal, characters, floats (`-A -t -j
//! -N -w -v`, the traditional `-a -b -c -d -f -i -l -o -s -x` and GNU's
//! undocumented `-B -D -e -F -h -H -I -L -O -X`), with the old operand forms
//! `od FILE [+]OFFSET` and `od --traditional FILE OFFSET LABEL`.

use super::{common, lines, parse_size, read_some};
use crate::commands::CommandCtx;
use crate::commands::text::common::{Arg, OptSpec, ParseMode, opt};

pub(crate) const USAGE: &str = "\
Usage: od [OPTION]... [FILE]...
Write an unambiguous representation, octal bytes by default,
of FILE to standard output.  With more than one FILE argument,
concatenate them in the listed order to form the input.

  -A, --address-radix=RADIX   output format for file offsets; RADIX is one
                                of [doxn], for Decimal, Octal, Hex or None
  -j, --skip-bytes=BYTES      skip BYTES input bytes first
  -N, --read-bytes=BYTES      limit dump to BYTES input bytes
  -t, --format=TYPE           select output format or formats
  -v, --output-duplicates     do not use * to mark line suppression
  -w[BYTES], --width[=BYTES]  output BYTES bytes per output line;
                                32 is implied when BYTES is not specified
      --help     display this help and exit

Traditional format specifications may be intermixed:
  -a   same as -t a,  select named characters, ignoring high-order bit
  -b   same as -t o1, select octal bytes
  -c   same as -t c,  select printable characters or backslash escapes
  -d   same as -t u2, select unsigned decimal 2-byte units
  -f   same as -t fF, select floats
  -i   same as -t dI, select decimal ints
  -l   same as -t dL, select decimal longs
  -o   same as -t o2, select octal 2-byte units
  -s   same as -t d2, select decimal 2-byte units
  -x   same as -t x2, select hexadecimal 2-byte units

TYPE is made up of one or more of these specifications:
  a          named character, ignoring high-order bit
  c          printable character or backslash escape
  d[SIZE]    signed decimal, SIZE bytes per integer
  f[SIZE]    floating point, SIZE bytes per float
  o[SIZE]    octal, SIZE bytes per integer
  u[SIZE]    unsigned decimal, SIZE bytes per integer
  x[SIZE]    hexadecimal, SIZE bytes per integer
Adding a z suffix to any type displays printable characters at the end
of each output line.
";

const SPEC: &[OptSpec] = &[
    opt("A", Some('A'), Some("address-radix"), Arg::Required),
    opt("j", Some('j'), Some("skip-bytes"), Arg::Required),
    opt("N", Some('N'), Some("read-bytes"), Arg::Required),
    opt("t", Some('t'), Some("format"), Arg::Required),
    opt("v", Some('v'), Some("output-duplicates"), Arg::None),
    opt("w", Some('w'), Some("width"), Arg::Optional),
    opt("a", Some('a'), None, Arg::None),
    opt("b", Some('b'), None, Arg::None),
    opt("c", Some('c'), None, Arg::None),
    opt("d", Some('d'), None, Arg::None),
    opt("i", Some('i'), None, Arg::None),
    opt("l", Some('l'), None, Arg::None),
    opt("o", Some('o'), None, Arg::None),
    opt("s", Some('s'), None, Arg::None),
    opt("x", Some('x'), None, Arg::None),
    opt("f", Some('f'), None, Arg::None),
    opt("B", Some('B'), None, Arg::None),
    opt("D", Some('D'), None, Arg::None),
    opt("e", Some('e'), None, Arg::None),
    opt("F", Some('F'), None, Arg::None),
    opt("h", Some('h'), None, Arg::None),
    opt("H", Some('H'), None, Arg::None),
    opt("I", Some('I'), None, Arg::None),
    opt("L", Some('L'), None, Arg::None),
    opt("O", Some('O'), None, Arg::None),
    opt("X", Some('X'), None, Arg::None),
    opt("traditional", None, Some("traditional"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// One output type.
#[derive(Clone, Copy, Debug)]
struct Ty {
    kind: char,
    size: usize,
    z: bool,
}

impl Ty {
    /// Characters one value needs.
    fn digits(&self) -> usize {
        match (self.kind, self.size) {
            ('a' | 'c', _) => 3,
            ('o', 1) => 3,
            ('o', 2) => 6,
            ('o', 4) => 11,
            ('o', _) => 22,
            ('x', s) => s * 2,
            ('u', 1) => 3,
            ('u', 2) => 5,
            ('u', 4) => 10,
            ('u', _) => 20,
            ('d', 1) => 4,
            ('d', 2) => 6,
            ('d', 4) => 11,
            // GNU's bounds: sign, 9 (17) digits, point, exponent.
            ('f', 4) => 15,
            ('f', _) => 24,
            _ => 20,
        }
    }

    fn render(&self, v: &[u8]) -> String {
        let mut buf = [0u8; 8];
        buf[..v.len()].copy_from_slice(v);
        let u = u64::from_le_bytes(buf);
        match self.kind {
            'a' => {
                const NAMES: [&str; 33] = [
                    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt",
                    "ff", "cr", "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb",
                    "can", "em", "sub", "esc", "fs", "gs", "rs", "us", "sp",
                ];
                let b = v[0] & 0x7f;
                if b <= 0x20 {
                    NAMES[b as usize].to_string()
                } else if b == 0x7f {
                    "del".to_string()
                } else {
                    (b as char).to_string()
                }
            }
            'c' => match v[0] {
                0 => "\\0".into(),
                7 => "\\a".into(),
                8 => "\\b".into(),
                9 => "\\t".into(),
                10 => "\\n".into(),
                11 => "\\v".into(),
                12 => "\\f".into(),
                13 => "\\r".into(),
                b @ 0x20..=0x7e => (b as char).to_string(),
                b => format!("{b:03o}"),
            },
            'o' => format!("{u:0w$o}", w = self.digits()),
            'x' => format!("{u:0w$x}", w = self.digits()),
            'u' => u.to_string(),
            'f' => float_text(u, self.size),
            _ => {
                let bits = self.size * 8;
                let s = if bits == 64 {
                    u as i64
                } else {
                    ((u << (64 - bits)) as i64) >> (64 - bits)
                };
                s.to_string()
            }
        }
    }
}

/// The size after `f` in a type string (`F` 4, `D` 8, or digits); `None`
/// when none is given. Long double (`L`, 16 bytes) is not decoded here.
fn float_size(spec: &str, b: &[u8], i: &mut usize) -> Result<Option<usize>, String> {
    let size = match b[*i] {
        b'F' => 4,
        b'D' => 8,
        b'L' => return Err("long double formats (fL) are not supported in the sandbox".into()),
        c if c.is_ascii_digit() => {
            let st = *i;
            while *i < b.len() && b[*i].is_ascii_digit() {
                *i += 1;
            }
            let size = spec[st..*i].parse().unwrap_or(0);
            if size != 4 && size != 8 {
                return Err(format!(
                    "invalid type string {};\nthis system doesn't provide a {size}-byte floating point type",
                    common::quote_locale(spec)
                ));
            }
            return Ok(Some(size));
        }
        _ => return Ok(None),
    };
    *i += 1;
    Ok(Some(size))
}

/// A float as GNU od shows it: the shortest `%g` (from FLT_DIG/DBL_DIG
/// digits up) that reads back as the same value, as gnulib's `ftoastr`.
fn float_text(bits: u64, size: usize) -> String {
    let (x, negative, min_normal, first_prec, max_prec) = if size == 4 {
        let f = f32::from_bits(bits as u32);
        (
            f as f64,
            f.is_sign_negative(),
            f32::MIN_POSITIVE as f64,
            6,
            9,
        )
    } else {
        let f = f64::from_bits(bits);
        (f, f.is_sign_negative(), f64::MIN_POSITIVE, 15, 17)
    };
    let sign = if negative { "-" } else { "" };
    if x.is_nan() {
        return format!("{sign}nan");
    }
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    let start = if x.abs() < min_normal { 1 } else { first_prec };
    let mut text = String::new();
    for prec in start..=max_prec {
        text = crate::commands::awk::printf::format_number(&format!("%.{prec}g"), x);
        let back = if size == 4 {
            text.parse::<f32>().map(|v| v as f64)
        } else {
            text.parse::<f64>()
        };
        if back.is_ok_and(|v| v == x) {
            break;
        }
    }
    text
}

fn parse_type(spec: &str, out: &mut Vec<Ty>) -> Result<(), String> {
    let b = spec.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let kind = b[i] as char;
        i += 1;
        let mut size = match kind {
            'a' | 'c' => 1,
            'd' | 'o' | 'u' | 'x' => 4,
            'f' => 8,
            _ => {
                return Err(format!(
                    "invalid character '{kind}' in type string '{spec}'"
                ));
            }
        };
        if matches!(kind, 'd' | 'o' | 'u' | 'x') && i < b.len() {
            match b[i] {
                b'C' => {
                    size = 1;
                    i += 1;
                }
                b'S' => {
                    size = 2;
                    i += 1;
                }
                b'I' => {
                    size = 4;
                    i += 1;
                }
                b'L' => {
                    size = 8;
                    i += 1;
                }
                c if c.is_ascii_digit() => {
                    let st = i;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    size = spec[st..i].parse().unwrap_or(0);
                    if ![1, 2, 4, 8].contains(&size) {
                        return Err(format!(
                            "invalid type string {};\nthis system doesn't provide a {size}-byte integral type",
                            common::quote_locale(spec)
                        ));
                    }
                }
                _ => {}
            }
        }
        if kind == 'f' && i < b.len() {
            size = float_size(spec, b, &mut i)?.unwrap_or(size);
        }
        let z = b.get(i) == Some(&b'z');
        if z {
            i += 1;
        }
        out.push(Ty { kind, size, z });
    }
    Ok(())
}

/// What the options ask for.
struct OdOptions {
    /// The output types, one line each per block (default `-t o2`).
    types: Vec<Ty>,
    /// `-A`: the address radix (`n`: none).
    radix: char,
    /// `-j`: bytes to skip.
    skip: u64,
    /// `-N`: bytes to dump at most.
    limit: Option<u64>,
    /// `-w`: bytes a line.
    width: usize,
}

/// The options in order; the error is the message for status 1.
fn parse_options(p: &common::Parsed) -> Result<OdOptions, String> {
    let mut types = Vec::new();
    let mut radix = 'o';
    let (mut skip, mut limit, mut width) = (0u64, None::<u64>, 16usize);
    for (id, v) in &p.opts {
        let v = v.as_deref().unwrap_or("");
        let r: Result<(), String> = match *id {
            "t" => parse_type(v, &mut types),
            "a" => parse_type("a", &mut types),
            "b" => parse_type("o1", &mut types),
            "c" => parse_type("c", &mut types),
            "d" => parse_type("u2", &mut types),
            "i" => parse_type("dI", &mut types),
            "l" => parse_type("dL", &mut types),
            "o" => parse_type("o2", &mut types),
            "s" => parse_type("d2", &mut types),
            "x" | "h" => parse_type("x2", &mut types),
            "f" => parse_type("fF", &mut types),
            "e" | "F" => parse_type("fD", &mut types),
            "B" => parse_type("o2", &mut types),
            "D" => parse_type("u4", &mut types),
            "H" | "X" => parse_type("x4", &mut types),
            "I" | "L" => parse_type("dL", &mut types),
            "O" => parse_type("o4", &mut types),
            "A" => match v {
                "o" | "d" | "x" | "n" => {
                    radix = v.chars().next().unwrap();
                    Ok(())
                }
                _ => Err(format!(
                    "invalid output address radix '{v}'; it must be one character from [doxn]"
                )),
            },
            "j" => parse_size(v)
                .map(|n| skip = n)
                .ok_or_else(|| format!("invalid --skip-bytes argument '{v}'")),
            "N" => parse_size(v)
                .map(|n| limit = Some(n))
                .ok_or_else(|| format!("invalid --read-bytes argument '{v}'")),
            "w" => {
                if v.is_empty() {
                    width = 32;
                    Ok(())
                } else {
                    match v.parse::<usize>() {
                        Ok(n) if n > 0 => {
                            width = n;
                            Ok(())
                        }
                        _ => Err(format!("invalid --width argument '{v}'")),
                    }
                }
            }
            _ => Ok(()),
        };
        r?;
    }
    if types.is_empty() {
        types.push(Ty {
            kind: 'o',
            size: 2,
            z: false,
        });
    }
    Ok(OdOptions {
        types,
        radix,
        skip,
        limit,
        width,
    })
}

/// The width of each field of each type's line for `width` bytes a line.
/// GNU aligns the types' columns: each type's line is padded to the widest
/// type's line, the padding spread over its fields.
fn column_widths(types: &[Ty], width: usize) -> Vec<Vec<usize>> {
    let block = |t: &Ty| (t.digits() + 1) * (width / t.size);
    let widest = types.iter().map(block).max().unwrap_or(0);
    types
        .iter()
        .map(|t| {
            let fields = width / t.size;
            let pad = widest - block(t);
            let mut remaining = pad;
            (0..fields)
                .map(|k| {
                    let i = fields - k;
                    let next = (pad * (i - 1)).checked_div(fields).unwrap_or(0);
                    let w = remaining - next + t.digits() + 1;
                    remaining = next;
                    w
                })
                .collect()
        })
        .collect()
}

/// `od`
pub fn od(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let OdOptions {
        types,
        radix,
        skip,
        limit,
        width,
    } = match parse_options(&p) {
        Ok(o) => o,
        Err(e) => {
            common::err(ctx.stderr, "od", e);
            return 1;
        }
    };
    let modern = ["A", "j", "N", "t", "v", "w"].iter().any(|o| p.has(*o));
    let old = match old_operands(&p.operands, p.has("traditional"), modern) {
        Ok(o) => o,
        Err(extra) => return extra_operand(ctx, &extra),
    };
    let skip = old.skip.unwrap_or(skip);
    // GNU dumps what it can read and fails afterwards.
    let input = read_some(
        ctx,
        &old.files,
        limit.map(|n| skip.saturating_add(n)),
        "'standard input'",
    );
    if !input.opened {
        return 1;
    }
    let (data, all_read) = (input.data, input.all_read);
    if skip > data.len() as u64 {
        common::err(ctx.stderr, "od", "cannot skip past end of combined input");
        return 1;
    }
    let start = skip as usize;
    let end = limit
        .map(|l| (start as u64 + l).min(data.len() as u64) as usize)
        .unwrap_or(data.len());
    let data = &data[start..end];
    let widths = column_widths(&types, width);
    let addresses = Addresses {
        radix,
        label: old.label,
        skip,
    };
    let addr = |off: u64| addresses.text(off);
    let addr_width = addresses.pad_width();
    let mut out = String::new();
    lines(
        data,
        width,
        skip,
        p.has("v"),
        |off, chunk, out| {
            for (k, t) in types.iter().enumerate() {
                if k == 0 {
                    out.push_str(&addr(off));
                } else {
                    out.push_str(&" ".repeat(addr_width));
                }
                let ws = &widths[k];
                let mut n = 0;
                for (f, v) in chunk.chunks(t.size).enumerate() {
                    let s = t.render(v);
                    let w = ws.get(f).copied().unwrap_or(t.digits() + 1);
                    out.push_str(&format!("{s:>w$}"));
                    n = f + 1;
                }
                if t.z {
                    let missing: usize = ws.iter().skip(n).sum();
                    out.push_str(&" ".repeat(missing));
                    out.push_str("  >");
                    out.extend(chunk.iter().map(|b| {
                        if (0x20..0x7f).contains(b) {
                            *b as char
                        } else {
                            '.'
                        }
                    }));
                    out.push('<');
                }
                out.push('\n');
            }
        },
        &mut out,
    );
    if radix != 'n' || old.label.is_some() {
        out.push_str(&addr(skip + data.len() as u64));
        out.push('\n');
    }
    if ctx.stdout.write_all(out.as_bytes()).is_err() || !all_read {
        return 1;
    }
    0
}

/// `--traditional` with two files: GNU's usage error.
fn extra_operand(ctx: &mut CommandCtx<'_>, extra: &str) -> i32 {
    common::err(ctx.stderr, "od", format!("extra operand '{extra}'"));
    common::err(
        ctx.stderr,
        "od",
        "compatibility mode supports at most one file",
    );
    let _ = writeln!(ctx.stderr, "Try 'od --help' for more information.");
    1
}

/// How offsets are shown: `-A`'s radix, and `--traditional`'s LABEL.
struct Addresses {
    radix: char,
    label: Option<u64>,
    skip: u64,
}

impl Addresses {
    fn plain(off: u64, radix: char) -> String {
        match radix {
            'd' => format!("{off:07}"),
            'x' => format!("{off:06x}"),
            'n' => String::new(),
            _ => format!("{off:07o}"),
        }
    }

    /// The offset of a line. With a LABEL, GNU adds the pseudo-address in
    /// parentheses; with -An it shows the real offset (octal) there.
    fn text(&self, off: u64) -> String {
        match self.label {
            None => Self::plain(off, self.radix),
            Some(_) if self.radix == 'n' => format!("({})", Self::plain(off, 'o')),
            Some(label) => {
                let shown = off.wrapping_add(label).wrapping_sub(self.skip);
                format!(
                    "{} ({})",
                    Self::plain(off, self.radix),
                    Self::plain(shown, self.radix)
                )
            }
        }
    }

    /// The blanks before the other types' lines: as without a label.
    fn pad_width(&self) -> usize {
        match (self.radix, self.label) {
            ('n', Some(_)) => 7,
            _ => Self::plain(0, self.radix).len(),
        }
    }
}

/// The operands once the old forms are taken out.
struct OldOperands {
    files: Vec<String>,
    /// `[+]OFFSET`: bytes to skip (overrides `-j`).
    skip: Option<u64>,
    /// `--traditional`'s LABEL: the pseudo-address of the first byte.
    label: Option<u64>,
}

/// GNU's reading of the operands: without options of the modern form
/// (`-A -j -N -t -v -w`), `FILE [+]OFFSET` skips OFFSET when it starts
/// with `+` or (with two operands) a digit; `--traditional` also takes a
/// lone OFFSET and `FILE OFFSET LABEL`, and at most one file. `Err` is the
/// extra operand.
fn old_operands(ops: &[String], traditional: bool, modern: bool) -> Result<OldOperands, String> {
    let mut r = OldOperands {
        files: ops.to_vec(),
        skip: None,
        label: None,
    };
    if modern && !traditional {
        return Ok(r);
    }
    match ops.len() {
        1 if traditional || ops[0].starts_with('+') => {
            if let Some(o) = old_offset(&ops[0]) {
                r.skip = Some(o);
                r.files.clear();
            }
        }
        2 if traditional
            || ops[1].starts_with('+')
            || ops[1].starts_with(|c: char| c.is_ascii_digit()) =>
        {
            if let Some(o2) = old_offset(&ops[1]) {
                match old_offset(&ops[0]).filter(|_| traditional) {
                    Some(o1) => {
                        r.skip = Some(o1);
                        r.label = Some(o2);
                        r.files.clear();
                    }
                    None => {
                        r.skip = Some(o2);
                        r.files.truncate(1);
                    }
                }
            }
        }
        3 if traditional => {
            if let (Some(o1), Some(o2)) = (old_offset(&ops[1]), old_offset(&ops[2])) {
                r.skip = Some(o1);
                r.label = Some(o2);
                r.files.truncate(1);
            }
        }
        _ => {}
    }
    if traditional && r.files.len() > 1 {
        return Err(r.files[1].clone());
    }
    Ok(r)
}

/// `[+]OFFSET[.][b]`: octal, hex after `0x`, decimal when it holds a `.`
/// (which GNU's suffix check then refuses), times 512 after `b`, 1024
/// after `B`.
fn old_offset(s: &str) -> Option<u64> {
    let s = s.strip_prefix('+').unwrap_or(s);
    let (body, radix) = if s.contains('.') {
        (s, 10)
    } else if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else {
        (s, 8)
    };
    let end = body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len());
    if end == 0 {
        return None;
    }
    let n = u64::from_str_radix(&body[..end], radix).ok()?;
    match &body[end..] {
        "" => Some(n),
        "b" => n.checked_mul(512),
        "B" => n.checked_mul(1024),
        _ => None,
    }
}
