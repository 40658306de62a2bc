//! A fault-injecting HTTP proxy for the S3 tests: it stands between the
//! store client and moto and, by rules the test sets while it runs, answers
//! an error before forwarding, forwards and then answers an error (the
//! write applied, its answer lost), forwards and then drops the connection,
//! stalls, or refuses the connection outright. Everything else is forwarded
//! as it is.
//!
//! HTTP/1.1 only, as the store client speaks it: request bodies carry a
//! `Content-Length`; responses are re-framed with one.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// What to do to a matching request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Answer this status without forwarding (nothing applied).
    Before(u16),
    /// Forward, then answer this status instead of upstream's (applied,
    /// answer lost).
    After(u16),
    /// Forward, then close the connection without an answer.
    DropAfter,
    /// Wait this long, then forward.
    Stall(Duration),
    /// Close the connection without reading or forwarding the request.
    Refuse,
}

/// One rule: requests whose method is `method` (any when empty) and whose
/// path contains `path` get `fault`, `times` times (`usize::MAX`: always).
#[derive(Clone, Debug)]
pub struct Rule {
    pub method: &'static str,
    pub path: String,
    pub fault: Fault,
    pub times: usize,
}

/// Random faults: each request, with probability `percent`/100, gets one
/// of the fault classes, chosen at random (a seeded xorshift, so a failing
/// run can be replayed with its seed).
#[derive(Debug)]
struct Chaos {
    percent: u64,
    state: u64,
}

impl Chaos {
    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    fn pick(&mut self) -> Option<Fault> {
        if self.percent == 0 || self.next() % 100 >= self.percent {
            return None;
        }
        Some(match self.next() % 5 {
            0 => Fault::Before(500),
            1 => Fault::After(503),
            2 => Fault::DropAfter,
            3 => Fault::Stall(Duration::from_millis(300)),
            _ => Fault::Refuse,
        })
    }
}

/// A running proxy; it stops when dropped.
pub struct FaultProxy {
    pub endpoint: String,
    chaos: Arc<Mutex<Chaos>>,
    rules: Arc<Mutex<Vec<Rule>>>,
    hits: Arc<Mutex<Vec<(String, Fault)>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FaultProxy {
    /// A proxy on a free loopback port in front of `upstream` (`http://HOST:PORT`).
    pub async fn start(upstream: &str) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let rules: Arc<Mutex<Vec<Rule>>> = Arc::default();
        let hits: Arc<Mutex<Vec<(String, Fault)>>> = Arc::default();
        let chaos = Arc::new(Mutex::new(Chaos {
            percent: 0,
            state: 0x9E37_79B9_7F4A_7C15,
        }));
        let upstream = upstream.to_string();
        let task = tokio::spawn({
            let (rules, hits, chaos) = (rules.clone(), hits.clone(), chaos.clone());
            async move {
                let http = reqwest::Client::builder()
                    .timeout(Duration::from_secs(60))
                    .build()
                    .unwrap();
                loop {
                    let Ok((conn, _)) = listener.accept().await else {
                        return;
                    };
                    let (rules, hits, http, upstream, chaos) = (
                        rules.clone(),
                        hits.clone(),
                        http.clone(),
                        upstream.clone(),
                        chaos.clone(),
                    );
                    tokio::spawn(async move {
                        let faults = Faults {
                            rules: &rules,
                            chaos: &chaos,
                            hits: &hits,
                        };
                        let _ = serve(conn, &upstream, &http, faults).await;
                    });
                }
            }
        });
        FaultProxy {
            endpoint,
            chaos,
            rules,
            hits,
            task,
        }
    }

    /// Adds a rule (checked before the ones added earlier).
    pub fn add(&self, method: &'static str, path: &str, fault: Fault, times: usize) {
        self.rules.lock().unwrap().insert(
            0,
            Rule {
                method,
                path: path.to_string(),
                fault,
                times,
            },
        );
    }

    /// Removes every rule and stops the chaos: the proxy forwards all again.
    pub fn heal(&self) {
        self.rules.lock().unwrap().clear();
        self.chaos.lock().unwrap().percent = 0;
    }

    /// Gives `percent` of the requests a random fault class, from `seed`.
    pub fn chaos(&self, percent: u64, seed: u64) {
        let mut chaos = self.chaos.lock().unwrap();
        chaos.percent = percent;
        chaos.state = seed | 1;
    }

    /// The faults injected so far, with the request line each hit.
    pub fn hits(&self) -> Vec<(String, Fault)> {
        self.hits.lock().unwrap().clone()
    }
}

/// Where a connection's requests get their faults.
#[derive(Clone, Copy)]
struct Faults<'a> {
    rules: &'a Mutex<Vec<Rule>>,
    chaos: &'a Mutex<Chaos>,
    hits: &'a Mutex<Vec<(String, Fault)>>,
}

/// The fault for `method path`, counting its rule down; else a random one
/// when chaos is on.
fn take_fault(faults: Faults<'_>, method: &str, path: &str) -> Option<Fault> {
    let mut rules = faults.rules.lock().unwrap();
    let rule = rules.iter_mut().find(|r| {
        (r.method.is_empty() || r.method == method) && path.contains(&r.path) && r.times > 0
    });
    match rule {
        Some(rule) => {
            if rule.times != usize::MAX {
                rule.times -= 1;
            }
            Some(rule.fault)
        }
        None => faults.chaos.lock().unwrap().pick(),
    }
}

async fn serve(
    conn: TcpStream,
    upstream: &str,
    http: &reqwest::Client,
    faults: Faults<'_>,
) -> std::io::Result<()> {
    let mut conn = BufReader::new(conn);
    loop {
        let mut request_line = String::new();
        if conn.read_line(&mut request_line).await? == 0 {
            return Ok(());
        }
        let mut parts = request_line.split_whitespace();
        let (method, target) = match (parts.next(), parts.next()) {
            (Some(m), Some(t)) => (m.to_string(), t.to_string()),
            _ => return Ok(()),
        };
        let fault = take_fault(faults, &method, &target);
        if let Some(f) = fault {
            faults
                .hits
                .lock()
                .unwrap()
                .push((format!("{method} {target}"), f));
        }
        if fault == Some(Fault::Refuse) {
            return Ok(());
        }
        let mut headers = Vec::new();
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            conn.read_line(&mut line).await?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                let (name, value) = (name.trim().to_string(), value.trim().to_string());
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.parse().unwrap_or(0);
                }
                headers.push((name, value));
            }
        }
        let mut body = vec![0u8; length];
        conn.read_exact(&mut body).await?;
        if let Some(Fault::Before(status)) = fault {
            write_response(
                conn.get_mut(),
                status,
                &[],
                b"<Error><Code>InjectedFault</Code></Error>",
            )
            .await?;
            continue;
        }
        if let Some(Fault::Stall(d)) = fault {
            tokio::time::sleep(d).await;
        }
        let mut req = http.request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            format!("{upstream}{target}"),
        );
        for (name, value) in &headers {
            if !name.eq_ignore_ascii_case("content-length")
                && !name.eq_ignore_ascii_case("connection")
            {
                req = req.header(name, value);
            }
        }
        let answer = req.body(body).send().await;
        let (status, out_headers, out_body) = match answer {
            Ok(r) => {
                let status = r.status().as_u16();
                // A HEAD answer keeps upstream's length (of the object it
                // describes) and has no body.
                let is_head = method == "HEAD";
                let headers: Vec<(String, String)> = r
                    .headers()
                    .iter()
                    .filter(|(n, _)| {
                        !["transfer-encoding", "connection"].contains(&n.as_str())
                            && (is_head || n.as_str() != "content-length")
                    })
                    .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
                    .collect();
                (
                    status,
                    headers,
                    r.bytes().await.unwrap_or_default().to_vec(),
                )
            }
            Err(_) => (502, Vec::new(), Vec::new()),
        };
        match fault {
            Some(Fault::DropAfter) => return Ok(()),
            Some(Fault::After(s)) => {
                write_response(
                    conn.get_mut(),
                    s,
                    &[],
                    b"<Error><Code>InjectedFault</Code></Error>",
                )
                .await?
            }
            _ => write_response(conn.get_mut(), status, &out_headers, &out_body).await?,
        }
    }
}

async fn write_response(
    conn: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} X\r\n");
    if !headers.iter().any(|(n, _)| n == "content-length") {
        head.push_str(&format!("content-length: {}\r\n", body.len()));
    }
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    conn.write_all(head.as_bytes()).await?;
    conn.write_all(body).await?;
    conn.flush().await
}
