//! `hexdump -e FORMAT`: the BSD/util-linux format language. A format is a
//! list of units `[ITERATIONS][/BYTES] "TEXT"`; each TEXT holds printf
//! conversions that consume input bytes (`%d %i %o %u %x %X` 4 bytes by
//! default, `%e %f %g` 8, `%c` 1, `%s` its precision) and hexdump's own
//! (`%_a[dox]` the offset, `%_A[dox]` the offset at the end, `%_c %_p %_u`
//! a byte as escape, printable or name). Every format reads the same
//! block of input (the largest format's byte count); a block equal to the
//! one before prints as `*`. Past the end of the input a conversion prints
//! as `%s` of nothing (its width kept), and the last iteration of a unit
//! drops one trailing blank.

/// What one conversion prints.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Conv {
    /// Literal text only.
    Text,
    /// `%d %i`: a signed integer of `bytes`.
    Int,
    /// `%o %u %x %X`: an unsigned integer.
    Uint,
    /// `%e %f %g ...`: a float of 4 or 8 bytes.
    Float,
    /// `%c`: the byte itself.
    Char,
    /// `%s`: `bytes` bytes of text.
    Str,
    /// `%_a`: the offset of the byte at hand.
    Addr,
    /// `%_A`: the offset after the input, printed once at the end.
    EndAddr,
    /// `%_c`: a character or its C escape or octal code.
    CChar,
    /// `%_p`: a printable character or `.`.
    Printable,
    /// `%_u`: a character or its ASCII name.
    Named,
}

/// One conversion with the literal text before it.
#[derive(Clone, Debug)]
struct Piece {
    /// Text printed before the conversion.
    text: String,
    /// The printf flags, width and precision (`-08.3`).
    spec: String,
    /// The printf conversion letter (`d`, `x`, `e`, `s`, ...).
    letter: char,
    conv: Conv,
    bytes: usize,
    /// Text after the last conversion of a unit.
    tail: String,
}

/// One format unit.
#[derive(Clone, Debug)]
struct Unit {
    reps: usize,
    /// The iteration count was given.
    reps_given: bool,
    pieces: Vec<Piece>,
}

impl Unit {
    fn bytes(&self) -> usize {
        self.pieces.iter().map(|p| p.bytes).sum()
    }
}

/// A parsed `-e` format.
#[derive(Clone, Debug)]
pub struct Format {
    units: Vec<Unit>,
}

impl Format {
    fn bytes(&self) -> usize {
        self.units.iter().map(|u| u.reps * u.bytes()).sum()
    }
}

/// Parses one `-e` argument; the error is hexdump's message.
pub fn parse(fmt: &str) -> Result<Format, String> {
    let b = fmt.as_bytes();
    let mut i = 0;
    let mut units = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let bad = || format!("bad format {{{fmt}}}");
        let (mut reps, mut reps_given, mut count) = (1, false, None);
        if b[i].is_ascii_digit() {
            reps = number(b, &mut i);
            reps_given = true;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        if b.get(i) == Some(&b'/') {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if !b.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(bad());
            }
            count = Some(number(b, &mut i));
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        if b.get(i) != Some(&b'"') {
            return Err(bad());
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i] != b'"' {
            if b[i] == b'\\' && i + 1 < b.len() {
                i += 1;
            }
            i += 1;
        }
        if i >= b.len() {
            return Err(bad());
        }
        let text = unescape(&fmt[start..i]);
        i += 1;
        let pieces = pieces(&text, count)?;
        units.push(Unit {
            reps,
            reps_given,
            pieces,
        });
    }
    Ok(Format { units })
}

fn number(b: &[u8], i: &mut usize) -> usize {
    let mut n = 0usize;
    while *i < b.len() && b[*i].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add((b[*i] - b'0') as usize);
        *i += 1;
    }
    n
}

/// The backslash escapes of a format's text.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\x0b'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

/// Splits a unit's text into conversions; `count` is the unit's byte
/// count (`/N`), which sets the size of its integer and float conversions.
fn pieces(text: &str, count: Option<usize>) -> Result<Vec<Piece>, String> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < c.len() {
        if c[i] != '%' {
            lit.push(c[i]);
            i += 1;
            continue;
        }
        if c.get(i + 1) == Some(&'%') {
            lit.push('%');
            i += 2;
            continue;
        }
        i += 1;
        let st = i;
        while i < c.len() && "-+ #0123456789.".contains(c[i]) {
            i += 1;
        }
        let spec: String = c[st..i].iter().collect();
        let Some(&letter) = c.get(i) else {
            return Err(format!("bad conversion character %{spec}"));
        };
        i += 1;
        let (conv, letter, bytes) = if letter == '_' {
            let Some(&k) = c.get(i) else {
                return Err(format!("bad conversion character %_{spec}"));
            };
            i += 1;
            underscore(k, &mut i, &c, count)?
        } else {
            plain(letter, &spec, count)?
        };
        out.push(Piece {
            text: std::mem::take(&mut lit),
            spec,
            letter,
            conv,
            bytes,
            tail: String::new(),
        });
    }
    if count.is_some() && out.len() > 1 {
        return Err("byte count with multiple conversion characters".into());
    }
    match out.last_mut() {
        Some(p) => p.tail = lit,
        None => out.push(Piece {
            text: lit,
            spec: String::new(),
            letter: 's',
            conv: Conv::Text,
            bytes: 0,
            tail: String::new(),
        }),
    }
    Ok(out)
}

/// A conversion of printf's: its kind, letter and byte count.
fn plain(letter: char, spec: &str, count: Option<usize>) -> Result<(Conv, char, usize), String> {
    let bad_count = || format!("bad byte count for conversion character {letter}");
    Ok(match letter {
        'd' | 'i' | 'o' | 'u' | 'x' | 'X' => {
            let bytes = match count {
                None | Some(4) => 4,
                Some(n @ (1 | 2 | 8)) => n,
                _ => return Err(bad_count()),
            };
            let conv = if matches!(letter, 'd' | 'i') {
                Conv::Int
            } else {
                Conv::Uint
            };
            (conv, letter, bytes)
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => match count {
            None | Some(8) => (Conv::Float, letter, 8),
            Some(4) => (Conv::Float, letter, 4),
            _ => return Err(bad_count()),
        },
        'c' => match count {
            None | Some(1) => (Conv::Char, 'c', 1),
            _ => return Err(bad_count()),
        },
        's' => {
            let prec = spec
                .split_once('.')
                .and_then(|(_, p)| p.parse::<usize>().ok());
            match prec.or(count) {
                Some(n) => (Conv::Str, 's', n),
                None => return Err("%s requires a precision or a byte count".into()),
            }
        }
        _ => return Err(format!("bad conversion character %{spec}{letter}")),
    })
}

/// `%_a %_A %_c %_p %_u`.
fn underscore(
    k: char,
    i: &mut usize,
    c: &[char],
    count: Option<usize>,
) -> Result<(Conv, char, usize), String> {
    match k {
        'a' | 'A' => {
            let radix = match c.get(*i) {
                Some(&r @ ('d' | 'o' | 'x')) => {
                    *i += 1;
                    r
                }
                _ => return Err(format!("bad conversion character %_{k}")),
            };
            let conv = if k == 'a' { Conv::Addr } else { Conv::EndAddr };
            Ok((conv, radix, 0))
        }
        'c' | 'p' | 'u' => {
            if !matches!(count, None | Some(1)) {
                return Err(format!("bad byte count for conversion character _{k}"));
            }
            let conv = match k {
                'c' => Conv::CChar,
                'p' => Conv::Printable,
                _ => Conv::Named,
            };
            Ok((conv, 's', 1))
        }
        _ => Err(format!("bad conversion character %_{k}")),
    }
}

/// The flags, width and precision of a spec.
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

fn spec_of(s: &str) -> Spec {
    let mut sp = Spec {
        minus: false,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: 0,
        prec: None,
    };
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b"-+ #0".contains(&b[i]) {
        match b[i] {
            b'-' => sp.minus = true,
            b'+' => sp.plus = true,
            b' ' => sp.space = true,
            b'#' => sp.alt = true,
            _ => sp.zero = true,
        }
        i += 1;
    }
    sp.width = number(b, &mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        sp.prec = Some(number(b, &mut i));
    }
    sp
}

/// Pads `body` to the spec's width (zeros after the sign when `numeric`).
fn pad(body: &str, sp: &Spec, numeric: bool) -> String {
    let len = body.chars().count();
    if len >= sp.width {
        return body.to_string();
    }
    let fill = sp.width - len;
    if sp.minus {
        format!("{body}{}", " ".repeat(fill))
    } else if sp.zero && numeric && sp.prec.is_none() {
        let cut = body
            .find(|c: char| !matches!(c, '-' | '+' | ' '))
            .unwrap_or(0);
        let cut = if body[cut..].starts_with("0x") || body[cut..].starts_with("0X") {
            cut + 2
        } else {
            cut
        };
        format!("{}{}{}", &body[..cut], "0".repeat(fill), &body[cut..])
    } else {
        format!("{}{body}", " ".repeat(fill))
    }
}

/// C's `%d %o %u %x %X` of `v` (negative only for `%d`).
fn int_text(v: i128, letter: char, sp: &Spec) -> String {
    let mag = v.unsigned_abs();
    let mut digits = match letter {
        'o' => format!("{mag:o}"),
        'x' => format!("{mag:x}"),
        'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    };
    if let Some(p) = sp.prec {
        if p == 0 && mag == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    let prefix = match letter {
        'o' if sp.alt && !digits.starts_with('0') => "0",
        'x' if sp.alt && mag != 0 => "0x",
        'X' if sp.alt && mag != 0 => "0X",
        _ => "",
    };
    let sign = if v < 0 {
        "-"
    } else if matches!(letter, 'd' | 'i') && sp.plus {
        "+"
    } else if matches!(letter, 'd' | 'i') && sp.space {
        " "
    } else {
        ""
    };
    pad(&format!("{sign}{prefix}{digits}"), sp, true)
}

/// Little-endian bytes as an unsigned integer (missing bytes are zero).
fn le(bytes: &[u8], n: usize) -> u64 {
    let mut buf = [0u8; 8];
    let take = bytes.len().min(n).min(8);
    buf[..take].copy_from_slice(&bytes[..take]);
    u64::from_le_bytes(buf)
}

const NAMES: [&str; 32] = [
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "lf", "vt", "ff", "cr",
    "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc",
    "fs", "gs", "rs", "us",
];

/// One conversion of `p` over `data` (at least one byte of it present).
fn render(p: &Piece, data: &[u8], addr: u64) -> String {
    let sp = spec_of(&p.spec);
    let byte = data.first().copied().unwrap_or(0);
    match p.conv {
        Conv::Text => String::new(),
        Conv::Int => {
            let u = le(data, p.bytes);
            let bits = p.bytes * 8;
            let v = if bits == 64 {
                u as i64
            } else {
                ((u << (64 - bits)) as i64) >> (64 - bits)
            };
            int_text(v as i128, p.letter, &sp)
        }
        Conv::Uint => int_text(le(data, p.bytes) as i128, p.letter, &sp),
        Conv::Addr | Conv::EndAddr => int_text(addr as i128, p.letter, &sp),
        Conv::Float => {
            let u = le(data, p.bytes);
            let x = if p.bytes == 4 {
                f64::from(f32::from_bits(u as u32))
            } else {
                f64::from_bits(u)
            };
            let fmt = format!("%{}{}", p.spec, p.letter);
            crate::commands::awk::printf::format_number(&fmt, x)
        }
        Conv::Char => pad(&char::from(byte).to_string(), &sp, false),
        Conv::Str => {
            let text: String = data.iter().take(p.bytes).map(|b| char::from(*b)).collect();
            let text: String = text.split('\0').next().unwrap_or("").to_string();
            pad(&text, &sp, false)
        }
        Conv::CChar => {
            let t = match byte {
                0 => "\\0".to_string(),
                7 => "\\a".into(),
                8 => "\\b".into(),
                9 => "\\t".into(),
                10 => "\\n".into(),
                11 => "\\v".into(),
                12 => "\\f".into(),
                13 => "\\r".into(),
                0x20..=0x7e => char::from(byte).to_string(),
                _ => format!("{byte:03o}"),
            };
            pad(&t, &sp, false)
        }
        Conv::Printable => {
            let ch = if (0x20..0x7f).contains(&byte) {
                char::from(byte)
            } else {
                '.'
            };
            pad(&ch.to_string(), &sp, false)
        }
        Conv::Named => {
            let t = match byte {
                0..=0x1f => NAMES[byte as usize].to_string(),
                0x7f => "del".into(),
                0x20..=0x7e => char::from(byte).to_string(),
                _ => format!("{byte:x}"),
            };
            pad(&t, &sp, false)
        }
    }
}

/// A conversion past the end of the input: `%s` of nothing at the width.
fn blank(p: &Piece) -> String {
    let sp = spec_of(&p.spec);
    " ".repeat(if sp.prec == Some(0) { 0 } else { sp.width })
}

/// Prints `formats` over `data` (the input after `-s`, at offset `base`).
pub fn dump(formats: &[Format], data: &[u8], base: u64, verbose: bool) -> String {
    let mut formats = formats.to_vec();
    let block = formats.iter().map(Format::bytes).max().unwrap_or(0);
    // A format shorter than the block repeats its last unit, when that
    // unit reads data and had no iteration count.
    for f in &mut formats {
        let have = f.bytes();
        if let Some(last) = f.units.last_mut()
            && have < block
            && !last.reps_given
            && last.bytes() > 0
        {
            last.reps += (block - have) / last.bytes();
        }
    }
    let mut out = String::new();
    if block == 0 {
        return out;
    }
    let end = base + data.len() as u64;
    let mut prev: Option<&[u8]> = None;
    let mut starred = false;
    for (k, chunk) in data.chunks(block).enumerate() {
        if !verbose && chunk.len() == block && prev == Some(chunk) {
            if !starred {
                out.push_str("*\n");
                starred = true;
            }
            continue;
        }
        starred = false;
        prev = Some(chunk);
        let at = base + (k * block) as u64;
        for f in &formats {
            block_text(f, chunk, at, end, &mut out);
        }
    }
    // Nothing read at all: no closing offset either.
    if !data.is_empty() || base > 0 {
        for f in &formats {
            end_text(f, end, &mut out);
        }
    }
    out
}

/// One format over one block starting at offset `at`.
fn block_text(f: &Format, chunk: &[u8], at: u64, end: u64, out: &mut String) {
    let mut pos = 0usize;
    for u in &f.units {
        if u.pieces.iter().any(|p| p.conv == Conv::EndAddr) {
            // That unit (and what follows it) waits for the end.
            break;
        }
        for rep in (0..u.reps).rev() {
            for (n, p) in u.pieces.iter().enumerate() {
                out.push_str(&p.text);
                let addr = at + pos as u64;
                if p.conv == Conv::Text {
                } else if addr >= end {
                    out.push_str(&blank(p));
                } else {
                    out.push_str(&render(p, &chunk[pos.min(chunk.len())..], addr));
                }
                pos += p.bytes;
                let last_piece = n + 1 == u.pieces.len();
                if last_piece {
                    let mut tail = p.tail.as_str();
                    if rep == 0 && u.reps > 1 && tail.ends_with(|c: char| c.is_whitespace()) {
                        let cut = tail.len() - tail.chars().last().map_or(0, char::len_utf8);
                        tail = &tail[..cut];
                    }
                    out.push_str(tail);
                }
            }
        }
    }
}

/// After the input: the first unit holding `%_A` prints once, with the
/// offset past the input.
fn end_text(f: &Format, end: u64, out: &mut String) {
    if let Some(u) = f
        .units
        .iter()
        .find(|u| u.pieces.iter().any(|p| p.conv == Conv::EndAddr))
    {
        for p in &u.pieces {
            out.push_str(&p.text);
            if matches!(p.conv, Conv::EndAddr | Conv::Addr) {
                out.push_str(&render(p, &[], end));
            }
            out.push_str(&p.tail);
        }
    }
}
