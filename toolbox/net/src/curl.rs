//! `curl` for the local shell: the options agents use (`-s -S -f -L -o -O -X
//! -H -d --data-binary @file -u -I -i -w --fail-with-body -m --retry`, and a
//! few neighbours such as `--connect-to`), over the host-side client in
//! [`crate::http`], so every request and every redirect hop passes the
//! session's policy (on `--connect-to`, both the URL's host and the one
//! connected to). Files land in
//! the virtual filesystem under its limits; the exit statuses and messages are
//! curl 7.88's (checked side by side in `tests/net/curl_diff.rs`).
//!
//! Not emulated: the progress meter (curl prints it to a non-terminal stderr
//! without `-s`; its numbers are timing noise), `-v` traces, cookies, forms.

use std::time::{Duration, Instant};

use base64::Engine;
use sandkeep_shell::CommandCtx;

use crate::Egress;
use crate::http::{Deadline, NetError, Request, Response};

/// What curl sends as `User-Agent` unless told otherwise.
pub const USER_AGENT: &str = "curl/7.88.1";

#[derive(Default)]
struct Options {
    silent: bool,
    show_error: bool,
    fail: bool,
    fail_with_body: bool,
    location: bool,
    include: bool,
    head: bool,
    get: bool,
    method: Option<String>,
    headers: Vec<(String, String)>,
    data: Option<Vec<u8>>,
    form_data: bool,
    user: Option<String>,
    user_agent: Option<String>,
    write_out: Option<String>,
    max_time: Option<Duration>,
    connect_timeout: Option<Duration>,
    retry: u32,
    retry_delay: Option<Duration>,
    max_redirs: Option<u32>,
    dump_header: Option<String>,
    /// `--connect-to HOST1:PORT1:HOST2:PORT2` entries, in order.
    connect_to: Vec<String>,
    /// URLs with the output each one goes to (`None`: stdout; `Some("")`: -O).
    urls: Vec<(String, Option<String>)>,
}

/// A usage error: curl's exit status 2 with its message.
struct Usage(String);

fn seconds(opt: &str, v: &str) -> Result<Duration, Usage> {
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            Usage(format!(
                "option {opt}: expected a proper numerical parameter"
            ))
        })
}

fn parse(ctx: &CommandCtx<'_>) -> Result<Options, Usage> {
    let mut o = Options::default();
    let mut pending_outputs: Vec<Option<String>> = Vec::new();
    let args = &ctx.args[1..];
    let mut i = 0;
    let mut only_urls = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if only_urls || !arg.starts_with('-') || arg == "-" {
            o.urls.push((arg.clone(), None));
            continue;
        }
        if arg == "--" {
            only_urls = true;
            continue;
        }
        // Expand `-sSfL` and `-XPOST` into (option, attached value).
        let mut opts: Vec<(String, Option<String>)> = Vec::new();
        if let Some(long) = arg.strip_prefix("--") {
            opts.push((format!("--{long}"), None));
        } else {
            let chars: Vec<char> = arg[1..].chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                j += 1;
                if "oXHdumwAeDT".contains(c) && j < chars.len() {
                    opts.push((format!("-{c}"), Some(chars[j..].iter().collect())));
                    break;
                }
                opts.push((format!("-{c}"), None));
            }
        }
        for (name, attached) in opts {
            let value = |i: &mut usize| -> Result<String, Usage> {
                if let Some(v) = attached.clone() {
                    return Ok(v);
                }
                let v = args
                    .get(*i)
                    .cloned()
                    .ok_or_else(|| Usage(format!("option {name}: requires parameter")))?;
                *i += 1;
                Ok(v)
            };
            match name.as_str() {
                "-s" | "--silent" => o.silent = true,
                "-S" | "--show-error" => o.show_error = true,
                "-f" | "--fail" => o.fail = true,
                "--fail-with-body" => o.fail_with_body = true,
                "-L" | "--location" => o.location = true,
                "-i" | "--include" => o.include = true,
                "-I" | "--head" => o.head = true,
                "-G" | "--get" => o.get = true,
                "-X" | "--request" => o.method = Some(value(&mut i)?),
                "-H" | "--header" => {
                    let h = value(&mut i)?;
                    match h.split_once(':') {
                        Some((n, v)) => {
                            o.headers.push((n.trim().to_string(), v.trim().to_string()))
                        }
                        None => {
                            if let Some(n) = h.strip_suffix(';') {
                                o.headers.push((n.trim().to_string(), String::new()));
                            }
                        }
                    }
                }
                "-d" | "--data" | "--data-ascii" | "--data-binary" | "--data-raw"
                | "--data-urlencode" => {
                    let v = value(&mut i)?;
                    let bytes = data_arg(ctx, &name, &v)?;
                    let data = o.data.get_or_insert_with(Vec::new);
                    if !data.is_empty() {
                        data.push(b'&');
                    }
                    data.extend(bytes);
                    o.form_data = true;
                }
                "-u" | "--user" => o.user = Some(value(&mut i)?),
                "-A" | "--user-agent" => o.user_agent = Some(value(&mut i)?),
                "-e" | "--referer" => {
                    let v = value(&mut i)?;
                    o.headers.push(("Referer".into(), v));
                }
                "-w" | "--write-out" => {
                    let v = value(&mut i)?;
                    o.write_out = Some(match v.strip_prefix('@') {
                        Some("-") => String::new(),
                        Some(path) => String::from_utf8_lossy(
                            &ctx.fs
                                .read(&ctx.path(path))
                                .map_err(|e| Usage(format!("Failed to open {path}: {e}")))?,
                        )
                        .into_owned(),
                        None => v,
                    });
                }
                "-m" | "--max-time" => o.max_time = Some(seconds(&name, &value(&mut i)?)?),
                "--connect-timeout" => o.connect_timeout = Some(seconds(&name, &value(&mut i)?)?),
                "--retry" => {
                    o.retry = value(&mut i)?.parse().map_err(|_| {
                        Usage(format!(
                            "option {name}: expected a proper numerical parameter"
                        ))
                    })?
                }
                "--retry-delay" => o.retry_delay = Some(seconds(&name, &value(&mut i)?)?),
                "--max-redirs" => {
                    let v = value(&mut i)?;
                    o.max_redirs = match v.parse::<i64>() {
                        Ok(n) if n < 0 => None,
                        Ok(n) => Some(n.min(u32::MAX as i64) as u32),
                        Err(_) => {
                            return Err(Usage(format!(
                                "option {name}: expected a proper numerical parameter"
                            )));
                        }
                    };
                    if v.parse::<i64>().is_ok_and(|n| n < 0) {
                        o.max_redirs = Some(u32::MAX);
                    }
                }
                "-D" | "--dump-header" => o.dump_header = Some(value(&mut i)?),
                "--connect-to" => o.connect_to.push(value(&mut i)?),
                "-o" | "--output" => pending_outputs.push(Some(value(&mut i)?)),
                "-O" | "--remote-name" => pending_outputs.push(Some(String::new())),
                "--url" => o.urls.push((value(&mut i)?, None)),
                // Accepted and without effect here: no progress meter to
                // change, no compression asked for, no buffering to turn off.
                "--compressed"
                | "-N"
                | "--no-buffer"
                | "-#"
                | "--progress-bar"
                | "--no-progress-meter" => {
                    if name == "--no-progress-meter" {
                        o.silent |= false;
                    }
                }
                "-k" | "--insecure" => {
                    return Err(Usage(
                        "option --insecure: certificate checks cannot be turned off in this sandbox"
                            .into(),
                    ));
                }
                _ => {
                    return Err(Usage(format!(
                        "option {name}: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information"
                    )));
                }
            }
        }
    }
    // `-o`/`-O` pair with URLs in order, as curl does.
    for (url, out) in o.urls.iter_mut() {
        let _ = url;
        if !pending_outputs.is_empty() {
            *out = pending_outputs.remove(0);
        }
    }
    Ok(o)
}

fn data_arg(ctx: &CommandCtx<'_>, opt: &str, v: &str) -> Result<Vec<u8>, Usage> {
    if opt == "--data-raw" {
        return Ok(v.as_bytes().to_vec());
    }
    if opt == "--data-urlencode" {
        let (name, content) = match v.split_once('=') {
            Some((n, c)) => (Some(n), c.to_string()),
            None => (None, v.to_string()),
        };
        let enc: String = url::form_urlencoded::byte_serialize(content.as_bytes()).collect();
        return Ok(match name {
            Some(n) if !n.is_empty() => format!("{n}={enc}").into_bytes(),
            _ => enc.into_bytes(),
        });
    }
    let Some(path) = v.strip_prefix('@') else {
        return Ok(v.as_bytes().to_vec());
    };
    let data = if path == "-" {
        return Err(Usage(
            "reading data from stdin is not supported here; use @FILE".into(),
        ));
    } else {
        ctx.fs
            .read(&ctx.path(path))
            .map_err(|_| Usage(format!("Failed to open {path}")))?
    };
    if opt == "--data-binary" {
        Ok(data)
    } else {
        // -d @file drops carriage returns and newlines, as curl does.
        Ok(data
            .into_iter()
            .filter(|b| *b != b'\r' && *b != b'\n')
            .collect())
    }
}

/// What one transfer ended with, for `-w`.
#[derive(Default)]
struct Transfer {
    url: String,
    method: String,
    last: Option<Response>,
    redirects: u32,
    redirect_url: Option<String>,
    header_size: usize,
    download_size: usize,
    exit: i32,
    error: String,
    started: Option<Instant>,
}

/// Runs `curl` over `ctx` through `egress`; returns curl's exit status.
pub fn run(ctx: &mut CommandCtx<'_>, egress: &Egress) -> i32 {
    let o = match parse(ctx) {
        Ok(o) => o,
        Err(Usage(msg)) => {
            let _ = writeln!(ctx.stderr, "curl: {msg}");
            return 2;
        }
    };
    if o.urls.is_empty() {
        let _ = writeln!(
            ctx.stderr,
            "curl: no URL specified!\ncurl: try 'curl --help' or 'curl --manual' for more information"
        );
        return 2;
    }
    let mut status = 0;
    for (url, output) in &o.urls {
        // curl exits with the status of the last transfer.
        status = transfer(ctx, egress, &o, url, output.as_deref());
    }
    status
}

/// Where `--connect-to` sends a request for `url`: the first entry whose
/// `HOST1:PORT1` matches (empty parts match anything) and that names a host
/// or a port, as curl 7.88 reads them (entries that do not parse are
/// ignored; a bad PORT2 is curl's error 49).
///
fn connect_to_for(entries: &[String], url: &url::Url) -> Result<Option<(String, u16)>, NetError> {
    // A URL without a host or a known port fails in the client, with
    // curl's words for it.
    let Ok((host, port)) = crate::http::host_port(url) else {
        return Ok(None);
    };
    let shown = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.clone()
    };
    for entry in entries {
        let rest = match entry.strip_prefix(':') {
            Some(rest) => rest,
            None => {
                let Some(head) = entry.get(..shown.len()) else {
                    continue;
                };
                if !head.eq_ignore_ascii_case(&shown) || !entry[shown.len()..].starts_with(':') {
                    continue;
                }
                &entry[shown.len() + 1..]
            }
        };
        let rest = match rest.strip_prefix(':') {
            Some(rest) => rest,
            None => {
                let Some((want, after)) = rest.split_once(':') else {
                    continue;
                };
                // strtol: the leading digits count, the rest is ignored.
                let digits: String = want.chars().take_while(char::is_ascii_digit).collect();
                if digits.parse::<u64>().ok() != Some(u64::from(port)) {
                    continue;
                }
                after
            }
        };
        let (to_host, to_port) = if let Some(v6) = rest.strip_prefix('[') {
            match v6.split_once(']') {
                Some((h, after)) => (h.to_string(), after.strip_prefix(':')),
                None => continue,
            }
        } else {
            match rest.split_once(':') {
                Some((h, p)) => (h.to_string(), Some(p)),
                None => (rest.to_string(), None),
            }
        };
        let to_port = match to_port {
            Some(p) if !p.is_empty() => Some(p.parse::<u16>().map_err(|_| {
                NetError::ConnectTo(format!(
                    "No valid port number in connect to host string ({p})"
                ))
            })?),
            _ => None,
        };
        if to_host.is_empty() && to_port.is_none() {
            continue;
        }
        let to_host = if to_host.is_empty() {
            host.clone()
        } else {
            to_host
        };
        return Ok(Some((to_host, to_port.unwrap_or(port))));
    }
    Ok(None)
}

fn show_error(ctx: &mut CommandCtx<'_>, o: &Options, code: i32, msg: &str) {
    if !o.silent || o.show_error {
        let _ = writeln!(ctx.stderr, "curl: ({code}) {msg}");
    }
}

/// Accepts `host`, `host:port/path` and other scheme-less forms as curl does.
fn parse_url(raw: &str) -> Result<url::Url, NetError> {
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    url::Url::parse(&with_scheme).map_err(|e| match e {
        url::ParseError::EmptyHost => NetError::BadUrl("No host part in the URL".into()),
        _ => NetError::BadUrl("Malformed input to a URL function".into()),
    })
}

fn transfer(
    ctx: &mut CommandCtx<'_>,
    egress: &Egress,
    o: &Options,
    raw_url: &str,
    output: Option<&str>,
) -> i32 {
    let started = Instant::now();
    let mut t;
    let mut left = o.retry;
    let mut delay = o.retry_delay.unwrap_or(Duration::from_secs(1));
    loop {
        t = Transfer {
            url: raw_url.to_string(),
            started: Some(started),
            ..Transfer::default()
        };
        let result = fetch(ctx, egress, o, raw_url, output, &mut t);
        // curl's transient failures: a timeout, or 408/429/5xx gateway-ish
        // answers; each attempt's output and message are shown.
        let transient = match &result {
            Ok(_) => t
                .last
                .as_ref()
                .is_some_and(|r| matches!(r.status, 408 | 429 | 500 | 502 | 503 | 504)),
            Err(e) => matches!(e, NetError::Timeout(_)),
        };
        t.exit = match result {
            Ok(code) => code,
            Err(e) => {
                t.error = e.to_string();
                if matches!(e, NetError::Denied { .. } | NetError::Limit(_)) {
                    // The policy's words reach the model even under -s: it
                    // must learn why the request failed and whom to ask.
                    let _ = writeln!(ctx.stderr, "curl: ({}) {}", e.curl_code(), t.error);
                } else {
                    show_error(ctx, o, e.curl_code(), &t.error);
                }
                e.curl_code()
            }
        };
        if left == 0 || !transient {
            break;
        }
        if !o.silent {
            let what = if t.last.is_some() {
                "HTTP error"
            } else {
                "Timeout"
            };
            let _ = writeln!(
                ctx.stderr,
                "Warning: Problem : {what}. Will retry in {} seconds. {left} retries left.",
                delay.as_secs()
            );
        }
        left -= 1;
        let until = Instant::now() + delay;
        while Instant::now() < until {
            if ctx.control.check().is_err() {
                return 42;
            }
            std::thread::sleep(Duration::from_millis(20).min(until - Instant::now()));
        }
        if o.retry_delay.is_none() {
            delay = (delay * 2).min(Duration::from_secs(600));
        }
    }
    if let Some(fmt) = &o.write_out {
        write_out(ctx, fmt, &t);
    }
    t.exit
}

fn fetch(
    ctx: &mut CommandCtx<'_>,
    egress: &Egress,
    o: &Options,
    raw_url: &str,
    output: Option<&str>,
    t: &mut Transfer,
) -> Result<i32, NetError> {
    let mut url = parse_url(raw_url)?;
    if o.get
        && let Some(data) = &o.data
    {
        let q = String::from_utf8_lossy(data).into_owned();
        let joined = match url.query() {
            Some(old) if !old.is_empty() => format!("{old}&{q}"),
            _ => q,
        };
        url.set_query(Some(&joined));
    }
    t.url = url.to_string();
    let mut method = o.method.clone().unwrap_or_else(|| {
        if o.head {
            "HEAD".into()
        } else if o.data.is_some() && !o.get {
            "POST".into()
        } else {
            "GET".into()
        }
    });
    let mut body = if o.get { None } else { o.data.clone() };
    let mut headers = o.headers.clone();
    if body.is_some()
        && o.form_data
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
        let creds = if user.contains(':') {
            user.clone()
        } else {
            format!("{user}:")
        };
        let enc = base64::engine::general_purpose::STANDARD.encode(creds);
        headers.push(("Authorization".into(), format!("Basic {enc}")));
    }
    let first_host = url.host_str().map(str::to_string);
    let own_deadline = o
        .max_time
        .filter(|d| !d.is_zero())
        .map(|d| t.started.unwrap_or_else(Instant::now) + d);
    let at = match (own_deadline, ctx.control.deadline) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let control = ctx.control;
    let cancelled = || control.check().is_err();
    let deadline = Deadline {
        at,
        cancelled: &cancelled,
        started: t.started.unwrap_or_else(Instant::now),
    };
    let max_redirs = o.max_redirs.unwrap_or(50);
    let mut shown_heads: Vec<u8> = Vec::new();
    let response = loop {
        t.method = method.clone();
        let same_host = url.host_str().map(str::to_string) == first_host;
        let hop_headers: Vec<(String, String)> = headers
            .iter()
            .filter(|(n, _)| {
                same_host
                    || !(n.eq_ignore_ascii_case("authorization")
                        || n.eq_ignore_ascii_case("cookie"))
            })
            .cloned()
            .collect();
        let req = Request {
            method: method.clone(),
            url: url.clone(),
            headers: hop_headers,
            body: body.clone(),
            user_agent: o.user_agent.clone().unwrap_or_else(|| USER_AGENT.into()),
            connect_timeout: o.connect_timeout,
            read_timeout: None,
        };
        let connect_to = connect_to_for(&o.connect_to, &url)?;
        let via = connect_to.as_ref().map(|(h, p)| (h.as_str(), *p));
        let response = match egress.send_via(&req, via, deadline) {
            Ok(r) => r,
            Err(NetError::Partial {
                remaining,
                received,
            }) => {
                // curl hands over what arrived before it reports the loss.
                if !o.head && output.is_none_or(|p| p == "-") {
                    let _ = ctx.stdout.write_all(&received);
                }
                return Err(NetError::Partial {
                    remaining,
                    received: Vec::new(),
                });
            }
            Err(e) => return Err(e),
        };
        t.header_size += response.head.len();
        t.last = Some(response.clone());
        let location = response
            .header("location")
            .and_then(|l| url.join(l.trim()).ok());
        t.redirect_url = location.as_ref().map(|u| u.to_string());
        if o.include || o.head {
            shown_heads.extend_from_slice(&response.head);
        }
        let is_redirect = matches!(response.status, 301 | 302 | 303 | 307 | 308);
        if !(o.location && is_redirect) || location.is_none() {
            break response;
        }
        if t.redirects >= max_redirs {
            return Err(NetError::TooManyRedirects(max_redirs));
        }
        t.redirects += 1;
        t.redirect_url = None;
        url = location.unwrap_or(url);
        t.url = url.to_string();
        // curl: 303 turns into GET (unless HEAD); 301/302 turn a POST into
        // GET; a method set with -X stays for every hop.
        if o.method.is_none() {
            let to_get = response.status == 303 && method != "HEAD"
                || matches!(response.status, 301 | 302) && method == "POST";
            if to_get {
                method = "GET".into();
                body = None;
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case("content-type") || !o.form_data);
            }
        }
    };
    t.download_size = response.body.len();
    if let Some(path) = &o.dump_header {
        let heads = t.last.as_ref().map(|r| r.head.clone()).unwrap_or_default();
        if path == "-" {
            let _ = ctx.stdout.write_all(&heads);
        } else if ctx.fs.write(&ctx.path(path), &heads).is_err() {
            return Err(NetError::Write(format!("Failed to open {path}")));
        }
    }
    let failed = response.status >= 400 && (o.fail || o.fail_with_body);
    if failed && !o.fail_with_body {
        show_error(
            ctx,
            o,
            22,
            &format!("The requested URL returned error: {}", response.status),
        );
        return Ok(22);
    }
    let mut out = shown_heads;
    if !o.head {
        out.extend_from_slice(&response.body);
    }
    let write_ok = match output {
        None | Some("-") | Some("/dev/stdout") => ctx.stdout.write_all(&out).is_ok(),
        Some("/dev/stderr") => ctx.stderr.write_all(&out).is_ok(),
        Some(name) => {
            let name = if name.is_empty() {
                let seg = url
                    .path_segments()
                    .and_then(|mut s| s.next_back())
                    .unwrap_or("");
                if seg.is_empty() {
                    return Err(NetError::Write("Remote file name has no length".into()));
                }
                seg.to_string()
            } else {
                name.to_string()
            };
            ctx.fs.write(&ctx.path(&name), &out).is_ok()
        }
    };
    if !write_ok {
        return Err(NetError::Write(
            "Failure writing output to destination".into(),
        ));
    }
    if failed {
        show_error(
            ctx,
            o,
            22,
            &format!("The requested URL returned error: {}", response.status),
        );
        return Ok(22);
    }
    Ok(0)
}

fn write_out(ctx: &mut CommandCtx<'_>, fmt: &str, t: &Transfer) {
    let mut out: Vec<u8> = Vec::new();
    let mut to_stderr = false;
    let flush = |buf: &mut Vec<u8>, err: bool, ctx: &mut CommandCtx<'_>| {
        let _ = if err {
            ctx.stderr.write_all(buf)
        } else {
            ctx.stdout.write_all(buf)
        };
        buf.clear();
    };
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            match chars[i + 1] {
                'n' => out.push(b'\n'),
                'r' => out.push(b'\r'),
                't' => out.push(b'\t'),
                other => {
                    out.push(b'\\');
                    let mut b = [0u8; 4];
                    out.extend_from_slice(other.encode_utf8(&mut b).as_bytes());
                }
            }
            i += 2;
            continue;
        }
        if c == '%' && i + 1 < chars.len() && chars[i + 1] == '%' {
            out.push(b'%');
            i += 2;
            continue;
        }
        let rest: String = chars[i..].iter().collect();
        if let Some(after) = rest.strip_prefix("%header{")
            && let Some(end) = after.find('}')
        {
            let name = &after[..end];
            if let Some(v) = t.last.as_ref().and_then(|r| r.header(name)) {
                out.extend_from_slice(v.as_bytes());
            }
            i += "%header{".len() + end + 1;
            continue;
        }
        if let Some(after) = rest.strip_prefix("%{")
            && let Some(end) = after.find('}')
        {
            let var = &after[..end];
            i += 2 + end + 1;
            match var {
                "stdout" => {
                    flush(&mut out, to_stderr, ctx);
                    to_stderr = false;
                }
                "stderr" => {
                    flush(&mut out, to_stderr, ctx);
                    to_stderr = true;
                }
                _ => match variable(var, t) {
                    Some(v) => out.extend_from_slice(v.as_bytes()),
                    None => {
                        flush(&mut out, to_stderr, ctx);
                        let _ = writeln!(ctx.stderr, "curl: unknown --write-out variable: '{var}'");
                    }
                },
            }
            continue;
        }
        let mut b = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        i += 1;
    }
    flush(&mut out, to_stderr, ctx);
}

fn variable(name: &str, t: &Transfer) -> Option<String> {
    let r = t.last.as_ref();
    let secs = |d: Duration| format!("{:.6}", d.as_secs_f64());
    let total = t.started.map(|s| s.elapsed()).unwrap_or_default();
    Some(match name {
        "http_code" | "response_code" => format!("{:03}", r.map_or(0, |r| r.status)),
        "url_effective" | "url" => t.url.clone(),
        "method" => t.method.clone(),
        "num_redirects" => t.redirects.to_string(),
        "redirect_url" => t.redirect_url.clone().unwrap_or_default(),
        "content_type" => r
            .and_then(|r| r.header("content-type"))
            .unwrap_or("")
            .to_string(),
        "size_download" => t.download_size.to_string(),
        "size_header" => t.header_size.to_string(),
        "http_version" => match r.map(|r| r.version.as_str()) {
            Some("HTTP/1.0") => "1.0".into(),
            Some(_) => "1.1".into(),
            None => "0".into(),
        },
        "scheme" => url::Url::parse(&t.url)
            .map(|u| u.scheme().to_ascii_uppercase())
            .unwrap_or_default(),
        "exitcode" => t.exit.to_string(),
        "errormsg" => t.error.clone(),
        "remote_ip" => r
            .and_then(|r| r.peer)
            .map(|p| p.ip().to_string())
            .unwrap_or_default(),
        "remote_port" => r
            .and_then(|r| r.peer)
            .map(|p| p.port().to_string())
            .unwrap_or_default(),
        "num_connects" => u32::from(r.is_some()).to_string(),
        "time_total" | "time_starttransfer" | "time_connect" | "time_namelookup"
        | "time_pretransfer" | "time_appconnect" | "time_redirect" => secs(total),
        "speed_download" => {
            let s = total.as_secs_f64();
            if s > 0.0 {
                format!("{}", (t.download_size as f64 / s) as u64)
            } else {
                "0".into()
            }
        }
        _ => return None,
    })
}
