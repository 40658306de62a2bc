//! `mapfile`/`readarray`: lines of input into an indexed array.

use std::collections::BTreeMap;

use super::err;
use crate::builtin_core::quote::quote_backslash;
use crate::interp::vars::is_valid_name;
use crate::interp::{ExecResult, Interp, Value};

const USAGE: &str = "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]";

/// `mapfile` / `readarray`
pub fn mapfile(interp: &mut Interp, args: &[String]) -> ExecResult {
    let name0 = args[0].clone();
    let mut delim = b'\n';
    let (mut count, mut origin, mut skip, mut trim, mut fd) =
        (0usize, None::<i64>, 0usize, false, 0i32);
    let (mut callback, mut quantum) = (None::<String>, 5000usize);
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
        let c = a.as_bytes()[1] as char;
        if c == 't' && a.len() == 2 {
            trim = true;
            i += 1;
            continue;
        }
        if !"dnOsuCc".contains(c) {
            return Ok(super::invalid_option(
                interp,
                &name0,
                super::option_head(a),
                USAGE,
            ));
        }
        let val = if a.len() > 2 {
            a[2..].to_string()
        } else if let Some(v) = args.get(i + 1) {
            i += 1;
            v.clone()
        } else {
            err(
                interp,
                format!("{name0}: -{c}: option requires an argument"),
            );
            let _ = interp.write_fd(2, format!("{name0}: usage: {USAGE}\n").as_bytes());
            return Ok(2);
        };
        let num = |v: &str| v.parse::<i64>().ok().filter(|n| *n >= 0);
        match c {
            'd' => delim = crate::bytes::encode(&val).first().copied().unwrap_or(0),
            'C' => callback = Some(val),
            'n' | 'O' | 's' | 'u' | 'c' => {
                let Some(n) = num(&val) else {
                    let what = match c {
                        'O' => "invalid array origin",
                        'u' => "invalid file descriptor specification",
                        'c' => "invalid callback quantum",
                        _ => "invalid line count",
                    };
                    err(interp, format!("{name0}: {val}: {what}"));
                    return Ok(1);
                };
                match c {
                    'n' => count = n as usize,
                    'O' => origin = Some(n),
                    's' => skip = n as usize,
                    'u' => fd = n as i32,
                    _ => quantum = (n as usize).max(1),
                }
            }
            _ => {}
        }
        i += 1;
    }
    let array = args
        .get(i)
        .cloned()
        .unwrap_or_else(|| "MAPFILE".to_string());
    if !is_valid_name(&array) {
        err(
            interp,
            format!("{name0}: `{array}': not a valid identifier"),
        );
        return Ok(1);
    }
    // Read everything (or just enough lines) from the descriptor.
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut cur = Vec::new();
    let mut buf = [0u8; 1];
    let want = if count == 0 {
        usize::MAX
    } else {
        count.saturating_add(skip)
    };
    loop {
        if lines.len() >= want {
            break;
        }
        match interp.read_fd(fd, &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                if e.raw_os_error() == Some(9) {
                    err(
                        interp,
                        format!("{name0}: {fd}: invalid file descriptor: Bad file descriptor"),
                    );
                    return Ok(1);
                }
                break;
            }
        }
        cur.push(buf[0]);
        if buf[0] == delim {
            lines.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() && lines.len() < want {
        lines.push(cur);
    }
    let mut arr = match (
        origin,
        interp.vars.get(&array).and_then(|v| v.value.clone()),
    ) {
        (Some(_), Some(Value::Indexed(a))) => a,
        (Some(_), Some(Value::Str(s))) => BTreeMap::from([(0, s)]),
        _ => BTreeMap::new(),
    };
    for (idx, (n, mut line)) in
        (origin.unwrap_or(0)..).zip(lines.into_iter().skip(skip).enumerate())
    {
        if trim && line.last() == Some(&delim) {
            line.pop();
        }
        // bash's strings end at a NUL byte (`mapfile -d ''` keeps none).
        if let Some(nul) = line.iter().position(|&b| b == 0) {
            line.truncate(nul);
        }
        let s = crate::bytes::decode_vec(line);
        if let Some(cb) = &callback
            && (n + 1) % quantum == 0
        {
            let cmd = format!("{cb} {idx} {}", quote_backslash(&s));
            interp.run_source(&cmd)?;
        }
        arr.insert(idx, s);
    }
    if let Some(v) = interp.vars.get(&array)
        && v.attrs.has(crate::interp::Attrs::READONLY)
    {
        err(interp, format!("{name0}: {array}: readonly variable"));
        return Ok(1);
    }
    if origin.is_none() {
        let _ = interp.vars.unset(&array);
    }
    if let Err(e) = interp.vars.set(&array, Value::Indexed(arr)) {
        err(interp, format!("{name0}: {e}"));
        return Ok(1);
    }
    Ok(0)
}
