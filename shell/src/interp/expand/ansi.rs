//! Backslash escapes of `$'...'` strings (also `${x@E}`, `echo -e`-like
//! decoding for whoever needs it).

use crate::bytes::push_encoded;

/// Decodes the escapes of an ANSI-C quoted string body (`$'...'` without the
/// quotes): `\n \t \\ \' \" \? \a \b \e \E \f \r \v \NNN \xHH \uHHHH
/// \UHHHHHHHH \cX`. Decoding stops at a NUL, as bash's strings do.
///
/// `\xHH` and `\NNN` give bytes, not chars (bash's `$'\xc3\xa9'` is `é`):
/// the result is built as bytes and read back by [`crate::bytes::decode`],
/// so a byte that is no UTF-8 stays one raw byte.
pub fn decode_ansi_c(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < c.len() {
        if c[i] != '\\' || i + 1 >= c.len() {
            push_encoded(&mut out, c[i]);
            i += 1;
            continue;
        }
        i += 1;
        let e = c[i];
        i += 1;
        // Set by `\NNN` and `\xHH`, which give a byte rather than a char.
        let mut byte = None;
        let ch = match e {
            'a' => '\x07',
            'b' => '\x08',
            'e' | 'E' => '\x1b',
            'f' => '\x0c',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0b',
            '\\' => '\\',
            '\'' => '\'',
            '"' => '"',
            '?' => '?',
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                let mut n = 1;
                while n < 3 && i < c.len() && c[i].is_digit(8) {
                    v = v * 8 + c[i].to_digit(8).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                byte = Some((v & 0xff) as u8);
                '\0'
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                let mut n = 0;
                while n < max && i < c.len() && c[i].is_ascii_hexdigit() {
                    v = v * 16 + c[i].to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                if n == 0 {
                    out.push(b'\\');
                    push_encoded(&mut out, e);
                    continue;
                }
                if e == 'x' {
                    byte = Some(v as u8);
                    '\0'
                } else {
                    char::from_u32(v).unwrap_or('\u{fffd}')
                }
            }
            'c' => {
                if i < c.len() {
                    let x = c[i];
                    i += 1;
                    // Control characters: the low five bits (`\c0` is 0x10,
                    // `\c-` is `\r`), except `\c?` for DEL.
                    if x == '?' {
                        '\x7f'
                    } else if x.is_ascii() {
                        char::from_u32((x as u32) & 0x1f).unwrap_or('?')
                    } else {
                        x
                    }
                } else {
                    out.push(b'\\');
                    'c'
                }
            }
            other => {
                out.push(b'\\');
                other
            }
        };
        match byte {
            Some(0) => break,
            Some(b) => out.push(b),
            None if ch == '\0' => break,
            None => push_encoded(&mut out, ch),
        }
    }
    crate::bytes::decode_vec(out)
}
