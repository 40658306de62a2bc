//! The loopback guard: what keeps a web page in the user's browser from
//! driving a server that runs without tokens on 127.0.0.1.
//!
//! Without tokens the server trusts whoever reaches the loopback address,
//! and a browser reaches it for any page it shows. Three checks close that,
//! on every route (MCP's included):
//! - **Host** must be a loopback name (`localhost`, `127.x.y.z`, `[::1]`),
//!   with any port: a page on `evil.example` whose name was re-bound to
//!   127.0.0.1 (DNS rebinding) sends `Host: evil.example` and gets 403;
//! - **Origin**, when sent (browsers send it on every cross-origin request
//!   and every POST), must be the server's own (`http://` + its Host): a
//!   page on any other origin, `http://localhost:3000` included, gets 403;
//! - a **body** on a JSON route must say `Content-Type: application/json`,
//!   the one type a cross-site form or a no-cors `fetch` cannot send: 415
//!   otherwise. File uploads (`PUT .../files/...`) take raw bytes, and a
//!   browser cannot send a cross-site `PUT` without a CORS preflight, which
//!   this server never answers.
//!
//! With tokens a browser cannot present the bearer token without a CORS
//! preflight either, so the guard is not needed and not installed.

use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// True when `host` (a Host header's value, port and all) names this
/// machine's loopback interface.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((inside, port)) if port.is_empty() || port.starts_with(':') => inside,
            _ => return false,
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            Some(_) => return false,
            None => host,
        }
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    name.parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

fn refuse(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

/// Why a request must be refused in loopback mode, if it must.
fn check(method: &Method, path: &str, headers: &HeaderMap) -> Option<Response> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let Some(host) = text(header::HOST) else {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            "forbidden: no Host header".into(),
        ));
    };
    if !is_loopback_host(host) {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            format!(
                "forbidden: Host '{host}' is not a loopback name; a server without --tokens answers only localhost, 127.0.0.1 and [::1]"
            ),
        ));
    }
    if let Some(origin) = text(header::ORIGIN)
        && !origin.eq_ignore_ascii_case(&format!("http://{host}"))
    {
        return Some(refuse(
            StatusCode::FORBIDDEN,
            format!(
                "forbidden: a request from origin '{origin}' (a web page?); a server without --tokens answers only its own origin"
            ),
        ));
    }
    let has_body = text(header::CONTENT_LENGTH).is_some_and(|n| n != "0")
        || headers.contains_key(header::TRANSFER_ENCODING);
    let raw_upload = *method == Method::PUT && path.contains("/files/");
    if has_body && !raw_upload && *method != Method::GET {
        let json = text(header::CONTENT_TYPE).is_some_and(|t| {
            let essence = t.split(';').next().unwrap_or("").trim();
            essence.eq_ignore_ascii_case("application/json")
        });
        if !json {
            return Some(refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported media type: send the body as Content-Type: application/json".into(),
            ));
        }
    }
    None
}

/// The middleware (installed only when the server has no tokens).
pub(crate) async fn loopback_only(request: Request, next: Next) -> Response {
    if let Some(refusal) = check(request.method(), request.uri().path(), request.headers()) {
        tracing::warn!(
            "refused {} {}: {}",
            request.method(),
            request.uri().path(),
            refusal.status()
        );
        return refusal;
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_nothing_else() {
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "127.5.6.7",
            "[::1]:80",
            "[::1]",
            "LOCALHOST.",
            "app.localhost:9",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "127.0.0.1.evil.example",
            "10.0.0.1:80",
            "[::2]:80",
            "localhost:80:80",
            "[::1]x",
            "",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.insert(n.clone(), v.parse().unwrap());
        }
        h
    }

    #[test]
    fn cross_site_posts_are_refused_and_own_ones_pass() {
        let own = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "http://127.0.0.1:8080"),
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
            (header::CONTENT_LENGTH, "2"),
        ]);
        assert!(check(&Method::POST, "/v1/sessions/x/run", &own).is_none());
        let other_origin = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "http://localhost:3000"),
        ]);
        let r = check(&Method::POST, "/v1/sessions/x/park", &other_origin).unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let form = headers(&[
            (header::HOST, "localhost:8080"),
            (header::CONTENT_TYPE, "text/plain"),
            (header::CONTENT_LENGTH, "10"),
        ]);
        let r = check(&Method::POST, "/v1/agents/a/mindlog", &form).unwrap();
        assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let upload = headers(&[
            (header::HOST, "localhost:8080"),
            (header::CONTENT_TYPE, "application/octet-stream"),
            (header::CONTENT_LENGTH, "10"),
        ]);
        assert!(check(&Method::PUT, "/v1/sessions/x/files/a.bin", &upload).is_none());
        let rebound = headers(&[(header::HOST, "attacker.example:8080")]);
        let r = check(&Method::GET, "/v1/sessions/x/files/a", &rebound).unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
    }
}
