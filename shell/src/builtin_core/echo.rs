//! What `echo [-neE] ARGS` prints ([`echo_bytes`]), and the backslash
//! escapes it shares with `printf %b` ([`unescape`]).

use crate::bytes::encode;

/// What `echo ARGS` prints (`args` without the command name), as bytes
/// ([`encode`]: a raw byte of a value is printed as that byte). Leading
/// arguments made only of `n`, `e`, `E` after a `-` are options; `--` is
/// printed literally. `escapes_default` is `shopt xpg_echo`.
pub fn echo_bytes(args: &[String], escapes_default: bool) -> Vec<u8> {
    let mut newline = true;
    let mut escapes = escapes_default;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_bytes();
        if a.len() < 2 || a[0] != b'-' || !a[1..].iter().all(|c| matches!(c, b'n' | b'e' | b'E')) {
            break;
        }
        for c in &a[1..] {
            match c {
                b'n' => newline = false,
                b'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut outb = Vec::new();
    for (n, a) in args[i..].iter().enumerate() {
        if n > 0 {
            outb.push(b' ');
        }
        if escapes {
            if unescape(&encode(a), EscapeMode::Echo, &mut outb) {
                return outb;
            }
        } else {
            outb.extend_from_slice(&encode(a));
        }
    }
    if newline {
        outb.push(b'\n');
    }
    outb
}

/// Which escape dialect [`unescape`] speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EscapeMode {
    /// `echo -e`: octal only as `\0NNN`.
    Echo,
    /// `printf %b`: `\0NNN` and `\NNN`.
    PrintfB,
    /// A printf format string: `\NNN` (1-3 digits), `\"`, no `\c`.
    Format,
}

fn hex_val(c: u8) -> Option<u32> {
    (c as char).to_digit(16)
}

/// Appends `s` with backslash escapes interpreted to `outb`. Returns true
/// when a `\c` asked to stop all further output.
pub fn unescape(s: &[u8], mode: EscapeMode, outb: &mut Vec<u8>) -> bool {
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c != b'\\' || i + 1 >= s.len() {
            outb.push(c);
            i += 1;
            continue;
        }
        let e = s[i + 1];
        i += 2;
        match e {
            b'a' => outb.push(7),
            b'b' => outb.push(8),
            b'e' | b'E' => outb.push(27),
            b'f' => outb.push(12),
            b'n' => outb.push(b'\n'),
            b'r' => outb.push(b'\r'),
            b't' => outb.push(b'\t'),
            b'v' => outb.push(11),
            b'\\' => outb.push(b'\\'),
            b'"' if mode == EscapeMode::Format => outb.push(b'"'),
            b'\'' if mode == EscapeMode::Format => outb.push(b'\''),
            b'?' if mode == EscapeMode::Format => outb.push(b'?'),
            b'c' if mode != EscapeMode::Format => return true,
            b'0'..=b'7' => {
                // `\0NNN` in echo and %b (up to three digits after the 0);
                // `\NNN` in formats and %b.
                let (start, max) = match (mode, e) {
                    (EscapeMode::Echo, b'0') | (EscapeMode::PrintfB, b'0') => (i, 3),
                    (EscapeMode::Echo, _) => {
                        outb.push(b'\\');
                        outb.push(e);
                        continue;
                    }
                    _ => (i - 1, 3),
                };
                let mut v: u32 = 0;
                let mut j = start;
                while j < s.len() && j < start + max && (b'0'..=b'7').contains(&s[j]) {
                    v = v * 8 + (s[j] - b'0') as u32;
                    j += 1;
                }
                outb.push(v as u8);
                i = j;
            }
            b'x' => {
                let mut v = 0;
                let mut j = i;
                while j < s.len() && j < i + 2 {
                    match hex_val(s[j]) {
                        Some(d) => v = v * 16 + d,
                        None => break,
                    }
                    j += 1;
                }
                if j == i {
                    outb.extend_from_slice(b"\\x");
                } else {
                    outb.push(v as u8);
                }
                i = j;
            }
            b'u' | b'U' => {
                let max = if e == b'u' { 4 } else { 8 };
                let mut v = 0u32;
                let mut j = i;
                while j < s.len() && j < i + max {
                    match hex_val(s[j]) {
                        Some(d) => v = v.wrapping_mul(16).wrapping_add(d),
                        None => break,
                    }
                    j += 1;
                }
                if j == i {
                    outb.push(b'\\');
                    outb.push(e);
                } else {
                    let ch = char::from_u32(v).unwrap_or('\u{fffd}');
                    let mut buf = [0u8; 4];
                    outb.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                i = j;
            }
            other => {
                outb.push(b'\\');
                outb.push(other);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(args: &[&str]) -> String {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        String::from_utf8(echo_bytes(&v, false)).unwrap()
    }

    #[test]
    fn raw_bytes_are_printed_as_bytes() {
        let v: [String; 3] = [
            crate::bytes::decode(b"\xff\xc3\xa9"),
            "-e".into(),
            "\\xfe".into(),
        ];
        assert_eq!(echo_bytes(&v[..1], false), b"\xff\xc3\xa9\n");
        assert_eq!(echo_bytes(&v[1..], false), b"\xfe\n");
    }

    #[test]
    fn options_and_escapes() {
        assert_eq!(e(&["-n", "a"]), "a");
        assert_eq!(e(&["-e", "a\\tb\\x41\\0101\\101"]), "a\tbAA\\101\n");
        assert_eq!(e(&["--", "-n"]), "-- -n\n");
        assert_eq!(e(&["-nx"]), "-nx\n");
        assert_eq!(e(&["-ne", "a\\cb", "c"]), "a");
        assert_eq!(e(&["-e", "\\u00e9"]), "é\n");
        assert_eq!(e(&["-"]), "-\n");
    }
}
