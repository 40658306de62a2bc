//! `printf [-v VAR] FORMAT [ARGS]`: bash's printf. The formatting is
//! [`crate::builtin_core::printf::format`], shared with the program; this
//! file parses `-v` and stores or prints the result.

use super::{err, out};
use crate::builtin_core::printf::{TimeCtx, format};
use crate::interp::{ExecResult, Interp};

/// `printf`
pub fn printf(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut i = 1;
    let mut var = None;
    while i < args.len() {
        match args[i].as_str() {
            "--" => {
                i += 1;
                break;
            }
            "-v" => {
                let Some(v) = args.get(i + 1) else {
                    err(interp, "printf: -v: option requires an argument");
                    let _ =
                        interp.write_fd(2, b"printf: usage: printf [-v var] format [arguments]\n");
                    return Ok(2);
                };
                var = Some(v.clone());
                i += 2;
            }
            a if a.starts_with("-v") => {
                var = Some(a[2..].to_string());
                i += 1;
            }
            a if a.starts_with('-') && a.len() > 1 => {
                return Ok(super::invalid_option(
                    interp,
                    "printf",
                    super::option_head(a),
                    "printf [-v var] format [arguments]",
                ));
            }
            _ => break,
        }
    }
    let Some(fmt) = args.get(i) else {
        let _ = interp.write_fd(2, b"printf: usage: printf [-v var] format [arguments]\n");
        return Ok(2);
    };
    if let Some(v) = &var {
        let (base, _) = crate::interp::vars::split_subscript(v);
        if !crate::interp::vars::is_valid_name(base) {
            err(interp, format!("printf: `{v}': not a valid identifier"));
            return Ok(2);
        }
    }
    let now = interp.control.clock.now().secs;
    let tctx = TimeCtx {
        now,
        start: now,
        zone: interp.local_zone(),
    };
    let f = format(fmt, &args[i + 1..], tctx);
    for e in &f.errors {
        err(interp, format!("printf: {e}"));
    }
    match var {
        Some(v) => {
            let s = crate::bytes::decode(&f.output);
            if let Err(e) = interp.assign(&v, &s, false) {
                if let crate::interp::vars::VarError::Interrupted(i) = e {
                    return Err(i);
                }
                err(interp, format!("printf: {e}"));
                return Ok(1);
            }
        }
        None => {
            if !out(interp, &f.output) {
                return Ok(1);
            }
        }
    }
    Ok(f.status)
}

impl Interp {
    /// The zone bash's own times (`printf %(fmt)T`, prompts) are in: the
    /// C library's `localtime` sees `TZ` only once it is exported (a `TZ=zone
    /// printf` assignment is).
    pub(crate) fn local_zone(&self) -> crate::time::Zone {
        let tz = self
            .vars
            .get("TZ")
            .filter(|v| v.attrs.has(crate::interp::vars::Attrs::EXPORT))
            .and_then(|_| self.vars.get_str("TZ"));
        crate::time::Zone::from_tz(tz)
    }
}
