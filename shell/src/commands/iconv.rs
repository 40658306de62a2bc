//! `iconv` (glibc 2.36) for the encodings scripts meet: UTF-8, ASCII,
//! ISO-8859-1 (Latin-1), UTF-16 and UTF-32 (BOM on output, little-endian
//! without one on input, as glibc on x86), their LE/BE forms; `-c` and
//! `//IGNORE` drop what cannot be converted, `//TRANSLIT` approximates it.
//! Text is decoded to characters, then encoded: one engine per side.

use super::common::GnuError;
use super::{Command, CommandCtx};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::declared("iconv", IconvOpt::HELP, iconv)];

declare_options! {
    /// glibc iconv's options (argp: `--from-code=NAME`, `-f NAME`).
    pub(crate) enum IconvOpt {
        usage: "Usage: iconv [OPTION...] [FILE...]",
        about: "Convert encoding of given files from one encoding to another.

 Input/Output format specification:",
        after: "",
        rows: [
            FromCode: 'f' "from-code" required "NAME" => "encoding of original text",
            ToCode: 't' "to-code" required "NAME" => "encoding for output",
            List: 'l' "list" none => "list all known coded character sets",
            Omit: 'c' - none => "omit invalid characters from output",
            Output: 'o' "output" required "FILE" => "output file",
            Silent: 's' "silent" none => "suppress warnings",
            Verbose: - "verbose" none => "print progress information",
            Help: '?' "help" none => "give this help list",
            Usage: - "usage" none => "give a short usage message",
            Version: 'V' "version" none => "print program version",
        ],
    }
}

/// An encoding iconv knows here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Charset {
    Utf8,
    Ascii,
    Latin1,
    Utf16,
    Utf16Le,
    Utf16Be,
    Utf32,
    Utf32Le,
    Utf32Be,
}

/// What to do with a character the target cannot hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unmappable {
    Fail,
    Omit,
    Translit,
}

/// `NAME[//TRANSLIT][//IGNORE]`: the charset and the suffixes' asks.
fn charset(name: &str) -> Option<(Charset, Option<Unmappable>)> {
    let mut parts = name.split("//");
    let base = parts.next().unwrap_or_default().to_ascii_uppercase();
    let mut how = None;
    for suffix in parts {
        match suffix.to_ascii_uppercase().as_str() {
            "TRANSLIT" => how = Some(Unmappable::Translit),
            "IGNORE" => how = how.or(Some(Unmappable::Omit)),
            "" => {}
            _ => return None,
        }
    }
    let cs = match base.as_str() {
        "UTF-8" | "UTF8" => Charset::Utf8,
        "ASCII" | "US-ASCII" | "ANSI_X3.4-1968" | "646" => Charset::Ascii,
        "ISO-8859-1" | "ISO8859-1" | "ISO_8859-1" | "LATIN1" | "L1" | "LATIN-1" => Charset::Latin1,
        "UTF-16" | "UTF16" => Charset::Utf16,
        "UTF-16LE" | "UTF16LE" => Charset::Utf16Le,
        "UTF-16BE" | "UTF16BE" => Charset::Utf16Be,
        "UTF-32" | "UTF32" => Charset::Utf32,
        "UTF-32LE" | "UTF32LE" => Charset::Utf32Le,
        "UTF-32BE" | "UTF32BE" => Charset::Utf32Be,
        _ => return None,
    };
    Some((cs, how))
}

/// Why decoding stopped early.
enum Stop {
    /// Bytes that are no character, at this offset.
    Illegal(usize),
    /// A character cut off by the end of the input.
    Incomplete,
}

/// The characters of `data`, each with its input offset, and why decoding
/// stopped early, if it did.
fn decode(cs: Charset, data: &[u8]) -> (Vec<(usize, char)>, Option<Stop>) {
    let mut out = Vec::new();
    match cs {
        Charset::Utf8 => match std::str::from_utf8(data) {
            Ok(text) => (text.char_indices().collect(), None),
            Err(e) => {
                let good = e.valid_up_to();
                let text = std::str::from_utf8(&data[..good]).unwrap_or_default();
                let stop = match e.error_len() {
                    Some(_) => Stop::Illegal(good),
                    None => Stop::Incomplete,
                };
                (text.char_indices().collect(), Some(stop))
            }
        },
        Charset::Ascii => {
            for (i, &b) in data.iter().enumerate() {
                if b >= 0x80 {
                    return (out, Some(Stop::Illegal(i)));
                }
                out.push((i, b as char));
            }
            (out, None)
        }
        Charset::Latin1 => (
            data.iter()
                .enumerate()
                .map(|(i, &b)| (i, b as char))
                .collect(),
            None,
        ),
        Charset::Utf16 | Charset::Utf16Le | Charset::Utf16Be => {
            let (mut big, mut start) = (cs == Charset::Utf16Be, 0);
            if cs == Charset::Utf16 && data.len() >= 2 {
                match (data[0], data[1]) {
                    (0xFF, 0xFE) => start = 2,
                    (0xFE, 0xFF) => (big, start) = (true, 2),
                    _ => {}
                }
            }
            let units: Vec<(usize, u16)> = data[start..]
                .chunks(2)
                .enumerate()
                .filter(|(_, c)| c.len() == 2)
                .map(|(k, c)| {
                    let u = if big {
                        u16::from_be_bytes([c[0], c[1]])
                    } else {
                        u16::from_le_bytes([c[0], c[1]])
                    };
                    (start + 2 * k, u)
                })
                .collect();
            let mut k = 0;
            while k < units.len() {
                let (at, u) = units[k];
                let decoded = char::decode_utf16(units[k..].iter().map(|(_, u)| *u)).next();
                match decoded {
                    Some(Ok(c)) => {
                        out.push((at, c));
                        k += c.len_utf16();
                    }
                    _ if (0xD800..0xDC00).contains(&u) && k + 1 == units.len() => {
                        return (out, Some(Stop::Incomplete));
                    }
                    _ => return (out, Some(Stop::Illegal(at))),
                }
            }
            if (data.len() - start) % 2 == 1 {
                return (out, Some(Stop::Incomplete));
            }
            (out, None)
        }
        Charset::Utf32 | Charset::Utf32Le | Charset::Utf32Be => {
            let (mut big, mut start) = (cs == Charset::Utf32Be, 0);
            if cs == Charset::Utf32 && data.len() >= 4 {
                if data[..4] == [0xFF, 0xFE, 0, 0] {
                    start = 4;
                } else if data[..4] == [0, 0, 0xFE, 0xFF] {
                    (big, start) = (true, 4);
                }
            }
            for (k, c) in data[start..].chunks(4).enumerate() {
                let at = start + 4 * k;
                if c.len() < 4 {
                    return (out, Some(Stop::Incomplete));
                }
                let v = if big {
                    u32::from_be_bytes([c[0], c[1], c[2], c[3]])
                } else {
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                };
                match char::from_u32(v) {
                    Some(ch) => out.push((at, ch)),
                    None => return (out, Some(Stop::Illegal(at))),
                }
            }
            (out, None)
        }
    }
}

/// An ASCII stand-in for `c` (`//TRANSLIT`), as glibc's tables give for
/// the common cases.
fn translit(c: char) -> Option<&'static str> {
    Some(match c {
        'À'..='Å' => "A",
        'à'..='å' => "a",
        'Ç' => "C",
        'ç' => "c",
        'È'..='Ë' => "E",
        'è'..='ë' => "e",
        'Ì'..='Ï' => "I",
        'ì'..='ï' => "i",
        'Ñ' => "N",
        'ñ' => "n",
        'Ò'..='Ö' | 'Ø' => "O",
        'ò'..='ö' | 'ø' => "o",
        'Ù'..='Ü' => "U",
        'ù'..='ü' => "u",
        'Ý' => "Y",
        'ý' | 'ÿ' => "y",
        'ß' => "ss",
        'Æ' => "AE",
        'æ' => "ae",
        '€' => "EUR",
        '‘' | '’' | '′' => "'",
        '“' | '”' | '″' => "\"",
        '–' | '—' => "-",
        '…' => "...",
        '©' => "(C)",
        '®' => "(R)",
        '«' => "<<",
        '»' => ">>",
        '\u{a0}' => " ",
        _ => return None,
    })
}

/// Appends `c` in `cs`; false when `cs` cannot hold it.
fn encode_char(cs: Charset, c: char, out: &mut Vec<u8>) -> bool {
    let mut buf = [0u16; 2];
    match cs {
        Charset::Utf8 => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        Charset::Ascii if (c as u32) < 0x80 => out.push(c as u8),
        Charset::Latin1 if (c as u32) < 0x100 => out.push(c as u32 as u8),
        Charset::Ascii | Charset::Latin1 => return false,
        Charset::Utf16 | Charset::Utf16Le => {
            for u in c.encode_utf16(&mut buf) {
                out.extend_from_slice(&u.to_le_bytes());
            }
        }
        Charset::Utf16Be => {
            for u in c.encode_utf16(&mut buf) {
                out.extend_from_slice(&u.to_be_bytes());
            }
        }
        Charset::Utf32 | Charset::Utf32Le => out.extend_from_slice(&(c as u32).to_le_bytes()),
        Charset::Utf32Be => out.extend_from_slice(&(c as u32).to_be_bytes()),
    }
    true
}

/// argp's usage error: the message, the Try line, status 64.
fn argp_error(ctx: &mut CommandCtx<'_>, message: &str) -> i32 {
    ctx.gnu_error(message);
    let _ = writeln!(
        ctx.stderr,
        "Try `iconv --help' or `iconv --usage' for more information."
    );
    64
}

/// The names, `-c` and `-o` the options give; `Err` is the status of an
/// option that answers by itself (`-l`, `-?`, `--usage`, `-V`).
#[allow(clippy::type_complexity)]
fn settings(
    ctx: &mut CommandCtx<'_>,
    opts: &[(IconvOpt, Option<String>)],
) -> Result<(String, String, bool, Option<String>), i32> {
    let (mut from, mut to) = ("UTF-8".to_string(), "UTF-8".to_string());
    let (mut omit, mut output) = (false, None::<String>);
    for (opt, v) in opts {
        let v = v.clone().unwrap_or_default();
        match opt {
            IconvOpt::FromCode => from = v,
            IconvOpt::ToCode => to = v,
            IconvOpt::Omit => omit = true,
            IconvOpt::Output => output = Some(v),
            IconvOpt::List => {
                let names = "ANSI_X3.4-1968, ASCII, ISO-8859-1, ISO8859-1, L1, LATIN1, US-ASCII, UTF-16, UTF-16BE, UTF-16LE, UTF-32, UTF-32BE, UTF-32LE, UTF-8, UTF8\n";
                let _ = ctx.stdout.write_all(names.as_bytes());
                return Err(0);
            }
            IconvOpt::Help => {
                let _ = ctx.stdout.write_all(IconvOpt::help().as_bytes());
                return Err(0);
            }
            IconvOpt::Usage => {
                let _ = ctx.stdout.write_all(
                    b"Usage: iconv [-cls?V] [-f NAME] [-t NAME] [-o FILE] [--from-code=NAME]\n",
                );
                return Err(0);
            }
            IconvOpt::Version => {
                let _ = ctx
                    .stdout
                    .write_all(b"iconv (Debian GLIBC 2.36-9+deb12u4) 2.36\n");
                return Err(0);
            }
            // Warnings and progress: there are none to print.
            IconvOpt::Silent | IconvOpt::Verbose => {}
        }
    }
    Ok((from, to, omit, output))
}

/// `iconv [-c] [-f FROM] [-t TO] [-o FILE] [FILE...]`
pub fn iconv(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match IconvOpt::TABLE.parse(ctx.args) {
        Ok(p) => p,
        Err(e) => return argp_error(ctx, &e),
    };
    let (from, to, omit, output) = match settings(ctx, &p.opts) {
        Ok(v) => v,
        Err(status) => return status,
    };
    let (Some((src, _)), Some((dst, how))) = (charset(&from), charset(&to)) else {
        ctx.gnu_error("failed to start conversion processing: No such file or directory");
        return 1;
    };
    // glibc reports what //IGNORE dropped once the buffer is done, as an
    // illegal sequence at its end (-c drops silently).
    let ignore_suffix = how == Some(Unmappable::Omit) && !omit;
    let how = how.unwrap_or(if omit {
        Unmappable::Omit
    } else {
        Unmappable::Fail
    });
    let files = if p.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        p.operands.clone()
    };
    let mut out = Vec::new();
    if matches!(dst, Charset::Utf16 | Charset::Utf32) {
        out.extend_from_slice(if dst == Charset::Utf16 {
            &[0xFF, 0xFE][..]
        } else {
            &[0xFF, 0xFE, 0, 0][..]
        });
    }
    let mut status = 0;
    for name in &files {
        let data = if name == "-" {
            let mut d = Vec::new();
            let _ = ctx.stdin.read_to_end(&mut d);
            d
        } else {
            match ctx.fs.read(&ctx.path(name)) {
                Ok(d) => d,
                Err(e) => {
                    ctx.gnu_error(format_args!("cannot open input file `{name}': {e}"));
                    status = 1;
                    continue;
                }
            }
        };
        // With -c, bytes that are no character are dropped and decoding
        // goes on after them.
        let mut chars = Vec::new();
        let mut from_at = 0;
        let stop = loop {
            let (mut got, stop) = decode(src, &data[from_at..]);
            chars.extend(got.drain(..).map(|(at, c)| (at + from_at, c)));
            match stop {
                Some(Stop::Illegal(at)) if omit => {
                    status = 1;
                    from_at += at + 1;
                }
                Some(Stop::Illegal(at)) => break Some(Stop::Illegal(at + from_at)),
                other => break other,
            }
        };
        let mut dropped = false;
        for (at, c) in chars {
            if encode_char(dst, c, &mut out) {
                continue;
            }
            match how {
                Unmappable::Omit => dropped = true,
                Unmappable::Translit => {
                    let approx = translit(c).unwrap_or("?");
                    out.extend_from_slice(approx.as_bytes());
                }
                Unmappable::Fail => {
                    finish(ctx, &out, output.as_deref());
                    ctx.gnu_error(format_args!("illegal input sequence at position {at}"));
                    return 1;
                }
            }
        }
        match stop {
            Some(Stop::Illegal(at)) => {
                finish(ctx, &out, output.as_deref());
                ctx.gnu_error(format_args!("illegal input sequence at position {at}"));
                return 1;
            }
            Some(Stop::Incomplete) => {
                finish(ctx, &out, output.as_deref());
                ctx.gnu_error("incomplete character or shift sequence at end of buffer");
                return 1;
            }
            None => {}
        }
        if dropped && ignore_suffix {
            finish(ctx, &out, output.as_deref());
            ctx.gnu_error(format_args!(
                "illegal input sequence at position {}",
                data.len()
            ));
            return 1;
        }
    }
    finish(ctx, &out, output.as_deref());
    status
}

/// Writes the converted text to stdout or the `-o` file.
fn finish(ctx: &mut CommandCtx<'_>, out: &[u8], output: Option<&str>) {
    match output {
        Some(name) => {
            let path = ctx.path(name);
            if let Err(e) = ctx.fs.write(&path, out) {
                ctx.gnu_error(format_args!("cannot open output file: {e}"));
            }
        }
        None => {
            let _ = ctx.stdout.write_all(out);
        }
    }
}
