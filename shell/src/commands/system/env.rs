//! `env` and `printenv`.

use crate::commands::files::common::GnuError;
use crate::commands::files::common::{quote_locale, usage_error};
use crate::commands::{CommandCtx, ExecMode, ExecRequest};

/// What the options say.
struct EnvOptions {
    /// `-i`/`-`: start from an empty environment.
    clear: bool,
    /// `-u NAME`: variables to remove.
    unset: Vec<String>,
    /// `-0`: end printed variables with NUL.
    zero: bool,
    /// `-C DIR`: run the command there.
    chdir: Option<String>,
    /// The index in `args` of the first word after the options.
    next: usize,
}

/// The options of `args` (argv); they end at the first word that is not
/// one, or after `--`. `None` after the usage error.
fn parse_options(ctx: &mut CommandCtx<'_>, args: &[String]) -> Option<EnvOptions> {
    let mut clear = false;
    let mut unset: Vec<String> = Vec::new();
    let mut zero = false;
    let mut chdir: Option<String> = None;
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "-" {
            clear = true;
            i += 1;
            continue;
        }
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() == 1 {
            break;
        }
        i += 1;
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            match name {
                "ignore-environment" => clear = true,
                "null" => zero = true,
                "unset" | "chdir" => {
                    let v = match val.or_else(|| {
                        i += 1;
                        args.get(i - 1).cloned()
                    }) {
                        Some(v) => v,
                        None => {
                            usage_error(ctx, &format!("option '--{name}' requires an argument"));
                            return None;
                        }
                    };
                    if name == "unset" {
                        unset.push(v);
                    } else {
                        chdir = Some(v);
                    }
                }
                _ => {
                    usage_error(ctx, &format!("unrecognized option '{a}'"));
                    return None;
                }
            }
            continue;
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            match c {
                'i' => clear = true,
                '0' => zero = true,
                'u' | 'C' => {
                    let rest: String = chars[j..].iter().collect();
                    let v = if !rest.is_empty() {
                        rest
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].clone()
                    } else {
                        usage_error(ctx, &format!("option requires an argument -- '{c}'"));
                        return None;
                    };
                    if c == 'u' {
                        unset.push(v);
                    } else {
                        chdir = Some(v);
                    }
                    break;
                }
                _ => {
                    usage_error(ctx, &format!("invalid option -- '{c}'"));
                    return None;
                }
            }
        }
    }
    Some(EnvOptions {
        clear,
        unset,
        zero,
        chdir,
        next: i,
    })
}

/// `env [-i] [-u NAME]... [-0] [NAME=VALUE]... [COMMAND [ARG]...]`
pub fn env(ctx: &mut CommandCtx<'_>) -> i32 {
    let args = ctx.args.to_vec();
    let Some(EnvOptions {
        clear,
        unset,
        zero,
        chdir,
        next: mut i,
    }) = parse_options(ctx, &args)
    else {
        return 125;
    };
    let mut env: Vec<(String, String)> = if clear { Vec::new() } else { ctx.env.to_vec() };
    env.retain(|(k, _)| !unset.contains(k));
    while i < args.len() {
        match args[i].split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                env.retain(|(x, _)| x != k);
                env.push((k.to_string(), v.to_string()));
                i += 1;
            }
            _ => break,
        }
    }
    if i >= args.len() {
        if zero {
            for (k, v) in &env {
                let _ = write!(ctx.stdout, "{k}={v}\0");
            }
        } else {
            let mut out = String::new();
            for (k, v) in &env {
                out.push_str(&format!("{k}={v}\n"));
            }
            let _ = ctx.stdout.write_all(out.as_bytes());
        }
        return 0;
    }
    let cwd = match &chdir {
        Some(d) => {
            let p = ctx.path(d);
            if !ctx
                .fs
                .metadata(&p)
                .is_ok_and(|m| m.kind == crate::fs::FileKind::Dir)
            {
                ctx.gnu_error(format_args!(
                    "cannot change directory to {}: No such file or directory",
                    quote_locale(d)
                ));
                return 125;
            }
            p
        }
        None => ctx.cwd.to_string(),
    };
    let argv = args[i..].to_vec();
    let path_var = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| "/bin:/usr/bin".to_string());
    if super::which::find_in_path(ctx.fs, &path_var, &cwd, &argv[0]).is_none()
        && !matches!(argv[0].as_str(), "bash" | "sh")
    {
        ctx.gnu_error(format_args!(
            "{}: No such file or directory",
            quote_locale(&argv[0])
        ));
        return 127;
    }
    // `env` is the complete environment: `-i` and `-u` hide variables.
    ctx.exec.exec(ExecRequest {
        argv: &argv,
        env: &env,
        cwd: &cwd,
        stdin: ctx.stdin,
        stdout: ctx.stdout,
        stderr: ctx.stderr,
        mode: ExecMode::Complete,
    })
}

/// `printenv [-0] [NAME]...`
pub fn printenv(ctx: &mut CommandCtx<'_>) -> i32 {
    let mut zero = false;
    let mut names = Vec::new();
    for a in &ctx.args[1..] {
        match a.as_str() {
            "-0" | "--null" => zero = true,
            s if s.starts_with('-') && s.len() > 1 => {
                let msg = if s.starts_with("--") {
                    format!("unrecognized option '{s}'")
                } else {
                    format!("invalid option -- '{}'", &s[1..2])
                };
                usage_error(ctx, &msg);
                return 2;
            }
            s => names.push(s.to_string()),
        }
    }
    let term = if zero { "\0" } else { "\n" };
    if names.is_empty() {
        let mut out = String::new();
        for (k, v) in ctx.env {
            out.push_str(&format!("{k}={v}{term}"));
        }
        let _ = ctx.stdout.write_all(out.as_bytes());
        return 0;
    }
    let mut status = 0;
    for n in &names {
        match ctx.getenv(n).map(String::from) {
            Some(v) if !n.contains('=') => {
                let _ = write!(ctx.stdout, "{v}{term}");
            }
            _ => status = 1,
        }
    }
    let _ = quote_locale;
    status
}
