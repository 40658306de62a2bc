//! `wget` for the local shell: download URLs into the virtual filesystem (or
//! stdout with `-O -`) through the host-side client, following redirects the
//! way wget does, each hop checked against the policy. Exit statuses are
//! GNU Wget 1.21's (4 network failure, 8 server error, 3 file error, 2 usage).
//!
//! The non-quiet log is a short version of wget's (the URL, the response
//! line, where it was saved); there is no progress bar.

use std::time::{Duration, Instant};

use base64::Engine;
use sandkeep_shell::CommandCtx;

use crate::Egress;
use crate::http::{Deadline, NetError, Request, Response};

/// What wget sends as `User-Agent` unless told otherwise.
pub const USER_AGENT: &str = "Wget/1.21.3";

#[derive(Default)]
struct Options {
    quiet: bool,
    output: Option<String>,
    prefix: Option<String>,
    server_response: bool,
    headers: Vec<(String, String)>,
    method: Option<String>,
    body: Option<Vec<u8>>,
    user_agent: Option<String>,
    timeout: Option<Duration>,
    tries: u32,
    max_redirect: u32,
    user: Option<String>,
    password: Option<String>,
    content_on_error: bool,
    urls: Vec<String>,
}

fn parse(ctx: &CommandCtx<'_>) -> Result<Options, String> {
    let mut o = Options {
        tries: 20,
        max_redirect: 20,
        ..Options::default()
    };
    // Split short clusters first: `-qO-` is `-q -O -`, `-T5` is `-T 5`.
    let mut args: Vec<String> = Vec::new();
    for arg in &ctx.args[1..] {
        if arg.starts_with("--") || !arg.starts_with('-') || arg.len() <= 2 || arg == "-nv" {
            args.push(arg.clone());
            continue;
        }
        let body = &arg[1..];
        for (k, c) in body.char_indices() {
            args.push(format!("-{c}"));
            if "OTtUP".contains(c) {
                let rest = &body[k + c.len_utf8()..];
                if !rest.is_empty() {
                    args.push(rest.to_string());
                }
                break;
            }
        }
    }
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].clone();
        i += 1;
        if !arg.starts_with('-') || arg == "-" {
            o.urls.push(arg);
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let value = |i: &mut usize| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            let v = args.get(*i).cloned().ok_or_else(|| {
                format!(
                    "option requires an argument -- '{}'",
                    name.trim_start_matches('-')
                )
            })?;
            *i += 1;
            Ok(v)
        };
        let secs = |v: String| {
            v.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| format!("Invalid time period ‘{v}’"))
        };
        match name.as_str() {
            "-q" | "--quiet" => o.quiet = true,
            "-nv" | "--no-verbose" => {}
            "-O" | "--output-document" => o.output = Some(value(&mut i)?),
            "-P" | "--directory-prefix" => o.prefix = Some(value(&mut i)?),
            "-S" | "--server-response" => o.server_response = true,
            "--header" => {
                let h = value(&mut i)?;
                if let Some((n, v)) = h.split_once(':') {
                    o.headers.push((n.trim().to_string(), v.trim().to_string()));
                }
            }
            "--post-data" | "--body-data" => {
                o.body = Some(value(&mut i)?.into_bytes());
                if name == "--post-data" {
                    o.method = Some("POST".into());
                }
            }
            "--post-file" | "--body-file" => {
                let path = value(&mut i)?;
                o.body = Some(
                    ctx.fs
                        .read(&ctx.path(&path))
                        .map_err(|e| format!("{path}: {e}"))?,
                );
                if name == "--post-file" {
                    o.method = Some("POST".into());
                }
            }
            "--method" => o.method = Some(value(&mut i)?.to_ascii_uppercase()),
            "-U" | "--user-agent" => o.user_agent = Some(value(&mut i)?),
            "-T" | "--timeout" | "--read-timeout" | "--connect-timeout" => {
                o.timeout = Some(secs(value(&mut i)?)?)
            }
            "-t" | "--tries" => {
                let v = value(&mut i)?;
                o.tries = v
                    .parse()
                    .map_err(|_| format!("--tries: Invalid number ‘{v}’."))?;
            }
            "--max-redirect" => {
                let v = value(&mut i)?;
                o.max_redirect = v
                    .parse()
                    .map_err(|_| format!("--max-redirect: Invalid number ‘{v}’."))?;
            }
            "--user" | "--http-user" => o.user = Some(value(&mut i)?),
            "--password" | "--http-password" => o.password = Some(value(&mut i)?),
            "--content-on-error" => o.content_on_error = true,
            "--no-check-certificate" => {
                return Err("--no-check-certificate: certificate checks cannot be turned off in this sandbox".into());
            }
            _ => return Err(format!("unrecognized option '{name}'")),
        }
    }
    Ok(o)
}

/// Runs `wget` over `ctx` through `egress`; returns wget's exit status.
pub fn run(ctx: &mut CommandCtx<'_>, egress: &Egress) -> i32 {
    let o = match parse(ctx) {
        Ok(o) => o,
        Err(msg) => {
            let _ = writeln!(
                ctx.stderr,
                "wget: {msg}\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options."
            );
            return 2;
        }
    };
    if o.urls.is_empty() {
        let _ = writeln!(
            ctx.stderr,
            "wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options."
        );
        return 1;
    }
    // `-O FILE` is opened (and emptied) before anything is fetched.
    if let Some(out) = &o.output
        && out != "-"
        && ctx.fs.write(&ctx.path(out), b"").is_err()
    {
        let _ = writeln!(ctx.stderr, "{out}: No such file or directory");
        return 3;
    }
    let mut status = 0;
    for url in o.urls.clone() {
        let code = one(ctx, egress, &o, &url);
        // wget reports the most serious failure; larger codes are not
        // always more serious, but network (4) and server (8) are the ones
        // that occur here.
        if code != 0 && (status == 0 || code < status) {
            status = code;
        }
    }
    status
}

fn log(ctx: &mut CommandCtx<'_>, o: &Options, line: &str) {
    if !o.quiet {
        let _ = writeln!(ctx.stderr, "{line}");
    }
}

fn net_status(e: &NetError) -> i32 {
    match e {
        NetError::BadUrl(_) | NetError::Scheme(_) => 1,
        NetError::Tls { .. } => 5,
        NetError::Write(_) => 3,
        _ => 4,
    }
}

fn one(ctx: &mut CommandCtx<'_>, egress: &Egress, o: &Options, raw: &str) -> i32 {
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    let mut url = match url::Url::parse(&with_scheme) {
        Ok(u) => u,
        Err(_) => {
            let _ = writeln!(ctx.stderr, "{raw}: Invalid URL.");
            return 1;
        }
    };
    let started = Instant::now();
    let control = ctx.control;
    let cancelled = || control.check().is_err();
    let deadline = Deadline {
        at: ctx.control.deadline,
        cancelled: &cancelled,
        started,
    };
    let mut method = o.method.clone().unwrap_or_else(|| "GET".into());
    let mut body = o.body.clone();
    let mut headers = o.headers.clone();
    if body.is_some()
        && !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
    {
        headers.push((
            "Content-Type".into(),
            "application/x-www-form-urlencoded".into(),
        ));
    }
    if let Some(user) = &o.user {
        let creds = format!("{user}:{}", o.password.clone().unwrap_or_default());
        let enc = base64::engine::general_purpose::STANDARD.encode(creds);
        headers.push(("Authorization".into(), format!("Basic {enc}")));
    }
    let mut redirects = 0;
    let response: Response = loop {
        log(ctx, o, &format!("--{}--  {url}", timestamp(ctx)));
        let req = Request {
            method: method.clone(),
            url: url.clone(),
            headers: headers.clone(),
            body: body.clone(),
            user_agent: o.user_agent.clone().unwrap_or_else(|| USER_AGENT.into()),
            connect_timeout: o.timeout,
            read_timeout: o.timeout,
        };
        let mut tries = 0;
        let result = loop {
            tries += 1;
            let r = egress.send(&req, deadline);
            let again = matches!(&r, Err(NetError::Timeout(_)))
                || matches!(&r, Ok(r) if matches!(r.status, 500 | 502 | 503 | 504));
            if !again || (o.tries != 0 && tries >= o.tries) || cancelled() {
                break r;
            }
            log(ctx, o, "Retrying.\n");
            std::thread::sleep(Duration::from_millis(100));
        };
        let response = match result {
            Ok(r) => r,
            Err(e) => {
                match &e {
                    NetError::Denied { .. } | NetError::Limit(_) => {
                        // The policy's words, whatever -q says: the model must
                        // learn why it failed.
                        let _ = writeln!(ctx.stderr, "wget: {e}");
                    }
                    NetError::Resolve(host) => log(
                        ctx,
                        o,
                        &format!("wget: unable to resolve host address ‘{host}’"),
                    ),
                    other => log(ctx, o, &format!("failed: {other}.")),
                }
                return net_status(&e);
            }
        };
        log(
            ctx,
            o,
            &format!(
                "HTTP request sent, awaiting response... {} {}",
                response.status,
                reason(&response)
            ),
        );
        if o.server_response {
            let head = String::from_utf8_lossy(&response.head).into_owned();
            for line in head.lines().filter(|l| !l.is_empty()) {
                let _ = writeln!(ctx.stderr, "  {line}");
            }
        }
        let location = response
            .header("location")
            .and_then(|l| url.join(l.trim()).ok());
        if matches!(response.status, 301 | 302 | 303 | 307 | 308)
            && let Some(next) = location
        {
            if redirects >= o.max_redirect {
                log(
                    ctx,
                    o,
                    &format!("{} redirections exceeded.", o.max_redirect),
                );
                return 8;
            }
            redirects += 1;
            log(ctx, o, &format!("Location: {next} [following]"));
            if (301..=303).contains(&response.status) && method == "POST" {
                method = "GET".into();
                body = None;
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-type"));
            }
            url = next;
            continue;
        }
        break response;
    };
    if response.status >= 400 {
        log(
            ctx,
            o,
            &format!(
                "{} ERROR {}: {}.",
                timestamp(ctx),
                response.status,
                reason(&response)
            ),
        );
        if !o.content_on_error {
            return if response.status == 401 { 6 } else { 8 };
        }
    }
    let save = match &o.output {
        Some(out) if out == "-" => {
            let _ = ctx.stdout.write_all(&response.body);
            None
        }
        Some(out) => {
            let path = ctx.path(out);
            let ok = ctx.fs.append(&path, &response.body).is_ok();
            if !ok {
                let _ = writeln!(ctx.stderr, "wget: {out}: Cannot write to ‘{out}’.");
                return 3;
            }
            Some(out.clone())
        }
        None => {
            let name = url
                .path_segments()
                .and_then(|mut s| s.next_back())
                .filter(|s| !s.is_empty())
                .map(|s| {
                    url::form_urlencoded::parse(format!("x={s}").as_bytes())
                        .next()
                        .map(|(_, v)| v.into_owned())
                        .unwrap_or_else(|| s.to_string())
                })
                .unwrap_or_else(|| "index.html".into());
            let dir = o.prefix.clone().unwrap_or_else(|| ".".into());
            let base = ctx.path(&format!("{dir}/{name}"));
            let mut path = base.clone();
            let mut n = 1;
            while ctx.fs.exists(&path) {
                path = format!("{base}.{n}");
                n += 1;
            }
            if ctx.fs.write(&path, &response.body).is_err() {
                let _ = writeln!(ctx.stderr, "wget: Cannot write to ‘{name}’.");
                return 3;
            }
            Some(path.rsplit('/').next().unwrap_or(&name).to_string())
        }
    };
    if let Some(name) = save {
        log(
            ctx,
            o,
            &format!(
                "Saving to: ‘{name}’\n\n{} - ‘{name}’ saved [{}]\n",
                timestamp(ctx),
                response.body.len()
            ),
        );
    }
    if response.status >= 400 {
        return if response.status == 401 { 6 } else { 8 };
    }
    0
}

fn reason(r: &Response) -> String {
    let head = String::from_utf8_lossy(&r.head);
    let first = head.lines().next().unwrap_or("");
    first.splitn(3, ' ').nth(2).unwrap_or("").to_string()
}

fn timestamp(ctx: &CommandCtx<'_>) -> String {
    let secs = ctx.fs.clock().now().secs;
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
