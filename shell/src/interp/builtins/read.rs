//! `read`: one line (or up to a delimiter, or N characters) from a file
//! descriptor, split on `IFS` into variables the way bash does it.

use super::err;
use crate::bytes::encode;
use crate::interp::vars::{VarError, is_valid_name};
use crate::interp::{ExecResult, Interp, Value};

const USAGE: &str = "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]";

struct Opts {
    raw: bool,
    array: Option<String>,
    delim: Option<u8>,
    nchars: Option<usize>,
    exact: bool,
    fd: i32,
    timeout_zero: bool,
}

/// `read`
pub fn read(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut o = Opts {
        raw: false,
        array: None,
        delim: Some(b'\n'),
        nchars: None,
        exact: false,
        fd: 0,
        timeout_zero: false,
    };
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() == 1 {
            break;
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            match c {
                'r' => o.raw = true,
                's' | 'e' => {}
                'a' | 'd' | 'n' | 'N' | 'p' | 't' | 'u' | 'i' => {
                    // The option's argument: the rest of this word, or the next word.
                    let rest: String = chars[k + 1..].iter().collect();
                    let val = if !rest.is_empty() {
                        rest
                    } else if let Some(v) = args.get(i + 1) {
                        i += 1;
                        v.clone()
                    } else {
                        err(interp, format!("read: -{c}: option requires an argument"));
                        let _ = interp.write_fd(2, format!("read: usage: {USAGE}\n").as_bytes());
                        return Ok(2);
                    };
                    match c {
                        'a' => o.array = Some(val),
                        'd' => o.delim = Some(encode(&val).first().copied().unwrap_or(0)),
                        'n' | 'N' => match val.parse::<usize>() {
                            Ok(n) => {
                                o.nchars = Some(n);
                                o.exact = c == 'N';
                            }
                            Err(_) => {
                                err(interp, format!("read: {val}: invalid number"));
                                return Ok(1);
                            }
                        },
                        't' => match val.parse::<f64>() {
                            Ok(t) if t >= 0.0 => o.timeout_zero = t == 0.0,
                            _ => {
                                err(
                                    interp,
                                    format!("read: {val}: invalid timeout specification"),
                                );
                                return Ok(1);
                            }
                        },
                        'u' => match val.parse::<i32>() {
                            Ok(fd) if fd >= 0 => o.fd = fd,
                            _ => {
                                err(
                                    interp,
                                    format!("read: {val}: invalid file descriptor specification"),
                                );
                                return Ok(1);
                            }
                        },
                        _ => {} // -p (prompt only on a terminal), -i (needs -e)
                    }
                    k = chars.len();
                    continue;
                }
                _ => {
                    return Ok(super::invalid_option(
                        interp,
                        "read",
                        &format!("-{c}"),
                        USAGE,
                    ));
                }
            }
            k += 1;
        }
        i += 1;
    }
    let names: Vec<String> = args[i..].to_vec();
    for n in names.iter().chain(o.array.iter()) {
        // `read 'A[$k]'` names an element (its subscript is expanded later).
        let base = match n.split_once('[') {
            Some((b, rest)) if rest.ends_with(']') && o.array.as_ref() != Some(n) => b,
            _ => n.as_str(),
        };
        if !is_valid_name(base) {
            err(interp, format!("read: `{n}': not a valid identifier"));
            return Ok(1);
        }
    }
    if o.timeout_zero {
        return Ok(0);
    }
    if o.exact {
        o.delim = None;
    }

    // Read the raw input: bytes with a flag for backslash-escaped ones.
    let mut data: Vec<(u8, bool)> = Vec::new();
    let mut got_delim = false;
    let mut count = 0usize;
    let mut escaped = false;
    let mut buf = [0u8; 1];
    loop {
        if let Some(n) = o.nchars
            && count >= n
        {
            got_delim = true;
            break;
        }
        let r = interp.read_fd(o.fd, &mut buf);
        match r {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                if data.is_empty() {
                    let msg = if e.raw_os_error() == Some(9) {
                        format!(
                            "read: {}: invalid file descriptor: Bad file descriptor",
                            o.fd
                        )
                    } else {
                        format!("read: read error: {}: {}", o.fd, crate::fs::strerror(&e))
                    };
                    err(interp, msg);
                    return Ok(1);
                }
                break;
            }
        }
        let b = buf[0];
        // bash drops NUL bytes (unless NUL is the delimiter); they do not
        // count for -n either.
        if b == 0 && o.delim != Some(0) {
            continue;
        }
        // UTF-8 continuation bytes do not count as characters for -n/-N.
        let starts_char = b & 0xC0 != 0x80;
        if escaped {
            escaped = false;
            if b == b'\n' {
                continue; // line continuation
            }
            data.push((b, true));
            if starts_char {
                count += 1;
            }
            continue;
        }
        if Some(b) == o.delim {
            got_delim = true;
            break;
        }
        if b == b'\\' && !o.raw {
            escaped = true;
            continue;
        }
        data.push((b, false));
        if starts_char {
            count += 1;
        }
    }
    // Finish a multi-byte character cut by -n.
    let status = if got_delim { 0 } else { 1 };

    let ifs = interp
        .vars
        .get_str("IFS")
        .map(|s| s.to_string())
        .unwrap_or_else(|| " \t\n".to_string());
    let ifs = encode(&ifs);
    let is_ws = |b: u8| ifs.contains(&b) && matches!(b, b' ' | b'\t' | b'\n');
    let is_ifs = |b: u8| ifs.contains(&b);

    let to_string = |v: &[(u8, bool)]| -> String {
        let bytes: Vec<u8> = v.iter().map(|(b, _)| *b).collect();
        crate::bytes::decode_vec(bytes)
    };

    let assign_result: Result<(), VarError> = (|| {
        if let Some(arr) = &o.array {
            let fields = split_fields(&data, &is_ws, &is_ifs, usize::MAX);
            let map = fields
                .iter()
                .enumerate()
                .map(|(k, f)| (k as i64, to_string(f)))
                .collect();
            let _ = interp.vars.unset(arr);
            interp.vars.set(arr, Value::Indexed(map))?;
            return Ok(());
        }
        if names.is_empty() {
            // REPLY keeps the line as read (no IFS trimming).
            let s = to_string(&data);
            return interp.assign("REPLY", &s, false);
        }
        // `-N` assigns what it read as is, without IFS splitting.
        let fields = if o.exact {
            vec![data.clone()]
        } else {
            split_fields(&data, &is_ws, &is_ifs, names.len())
        };
        for (k, n) in names.iter().enumerate() {
            let v = fields.get(k).map(|f| to_string(f)).unwrap_or_default();
            interp.assign(n, &v, false)?;
        }
        Ok(())
    })();
    match assign_result {
        Ok(()) => Ok(status),
        Err(VarError::Interrupted(i)) => Err(i),
        Err(e) => {
            err(interp, format!("read: {e}"));
            Ok(1)
        }
    }
}

/// Splits `data` into at most `max` fields; the last takes the rest of the
/// line (bash's rules: IFS whitespace trimmed at both ends, a single trailing
/// non-whitespace delimiter dropped when the rest is one field).
fn split_fields(
    data: &[(u8, bool)],
    is_ws: &dyn Fn(u8) -> bool,
    is_ifs: &dyn Fn(u8) -> bool,
    max: usize,
) -> Vec<Vec<(u8, bool)>> {
    let sep = |c: &(u8, bool)| !c.1 && is_ifs(c.0);
    let ws = |c: &(u8, bool)| !c.1 && is_ws(c.0);
    let mut fields = Vec::new();
    let mut i = 0;
    // Leading IFS whitespace.
    while i < data.len() && ws(&data[i]) {
        i += 1;
    }
    while i < data.len() {
        if fields.len() + 1 == max {
            // The last variable: the rest, trailing IFS whitespace removed.
            let mut end = data.len();
            while end > i && ws(&data[end - 1]) {
                end -= 1;
            }
            let rest = &data[i..end];
            // One field followed by a single delimiter: drop the delimiter.
            let mut j = 0;
            while j < rest.len() && !sep(&rest[j]) {
                j += 1;
            }
            if j < rest.len() {
                let mut k = j;
                while k < rest.len() && ws(&rest[k]) {
                    k += 1;
                }
                if (k < rest.len() && sep(&rest[k]) && !ws(&rest[k])) || k == j {
                    k += 1;
                }
                while k < rest.len() && ws(&rest[k]) {
                    k += 1;
                }
                if k == rest.len() {
                    fields.push(rest[..j].to_vec());
                    return fields;
                }
            }
            fields.push(rest.to_vec());
            return fields;
        }
        let start = i;
        while i < data.len() && !sep(&data[i]) {
            i += 1;
        }
        fields.push(data[start..i].to_vec());
        if i >= data.len() {
            break;
        }
        // Skip the delimiter: surrounding whitespace plus at most one
        // non-whitespace IFS character.
        while i < data.len() && ws(&data[i]) {
            i += 1;
        }
        if i < data.len() && sep(&data[i]) && !ws(&data[i]) {
            i += 1;
            while i < data.len() && ws(&data[i]) {
                i += 1;
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str, ifs: &str, max: usize) -> Vec<String> {
        let data: Vec<(u8, bool)> = s.bytes().map(|b| (b, false)).collect();
        let ifsb = ifs.as_bytes().to_vec();
        let ifs2 = ifsb.clone();
        let is_ws = move |b: u8| ifsb.contains(&b) && matches!(b, b' ' | b'\t' | b'\n');
        let is_ifs = move |b: u8| ifs2.contains(&b);
        split_fields(&data, &is_ws, &is_ifs, max)
            .into_iter()
            .map(|f| crate::bytes::decode_vec(f.into_iter().map(|(b, _)| b).collect()))
            .collect()
    }

    #[test]
    fn bash_field_rules() {
        assert_eq!(split("a:b:", ":", 2), vec!["a", "b"]);
        assert_eq!(split("a:b::", ":", 2), vec!["a", "b::"]);
        assert_eq!(split("a:b:c:", ":", 2), vec!["a", "b:c:"]);
        assert_eq!(split("a : b : c ", " :", 2), vec!["a", "b : c"]);
        assert_eq!(split("  a  b  ", " \t\n", 1), vec!["a  b"]);
        assert_eq!(split("a b c", " \t\n", usize::MAX), vec!["a", "b", "c"]);
        assert_eq!(split("a::b", ":", usize::MAX), vec!["a", "", "b"]);
    }
}
