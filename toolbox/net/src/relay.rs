//! The way out of a container that has no network: a relay inside it
//! ([`RELAY_PY`], run with `python3`) listens on the container's loopback
//! and carries every connection it accepts over its own stdin/stdout, one
//! byte stream to the host side; [`RelayHost`] on the host side splits that
//! stream back into connections ([`MuxConn`]) and serves each with the
//! egress proxy ([`crate::proxy::serve`]) under the session's [`Egress`].
//! The container's programs find the relay through `HTTP_PROXY`; nothing in
//! the container can reach anything but the proxy, which checks everything.
//!
//! Framing, both ways: `u32` connection id (big endian), one kind byte,
//! `u32` payload length, payload. Kinds: `H` (relay to host, id 0: the port
//! it listens on, as decimal text), `O` (a connection was accepted), `D`
//! (bytes), `C` (the sender has finished sending on this connection: the
//! relay's client sent end of file, or the proxy finished its answer), `A`
//! (the receiver has passed on that many bytes of `D`, as a `u32`).
//!
//! Flow control: each direction of each connection may have at most
//! [`WINDOW`] bytes sent and not yet acknowledged with `A`. The relay acks
//! what its client's socket took; the host side acks what the proxy read.
//! A slow reader on either side so holds up only its own connection, and
//! nothing is buffered without bound: not the host side's frames for the
//! relay, not the relay's per-connection queues, not the host side's
//! per-connection channels.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::Egress;
use crate::intercept::Interceptor;
use crate::proxy::ClientConn;

/// The relay, for `python3 -c` in the container. It exits when its stdin
/// closes (the host side went away). Each connection has a reader thread and
/// a writer thread so one slow client never stalls another; at most 64 are
/// open at once (threads count against the container's process limit).
pub const RELAY_PY: &str = r#"
import os, socket, struct, sys, threading, queue
MAX_CONNS = 64
WINDOW = 262144
out_lock = threading.Lock()
conns = {}
conns_lock = threading.Lock()

def send(cid, kind, data=b""):
    frame = struct.pack(">IcI", cid, kind, len(data)) + data
    with out_lock:
        view = memoryview(frame)
        try:
            while view:
                view = view[os.write(1, view):]
        except OSError:
            os._exit(0)

def finish(cid, half):
    with conns_lock:
        st = conns.get(cid)
        if st is None:
            return
        st[half] = True
        if st["up"] and st["down"]:
            del conns[cid]
            try:
                st["sock"].close()
            except OSError:
                pass

def pump_up(cid, sock, st):
    cv = st["cv"]
    try:
        while True:
            with cv:
                while st["unacked"] >= WINDOW and not st["gone"]:
                    cv.wait()
                if st["gone"]:
                    break
            data = sock.recv(65536)
            if not data:
                break
            with cv:
                st["unacked"] += len(data)
            send(cid, b"D", data)
    except OSError:
        pass
    send(cid, b"C")
    finish(cid, "up")

def pump_down(cid, sock, q):
    while True:
        data = q.get()
        if data is None:
            break
        try:
            sock.sendall(data)
        except OSError:
            pass
        send(cid, b"A", struct.pack(">I", len(data)))
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    finish(cid, "down")

def accept(listener):
    cid = 0
    while True:
        sock, _ = listener.accept()
        with conns_lock:
            full = len(conns) >= MAX_CONNS
        if full:
            sock.close()
            continue
        cid += 1
        q = queue.Queue()
        st = {"sock": sock, "q": q, "up": False, "down": False,
              "cv": threading.Condition(), "unacked": 0, "gone": False}
        with conns_lock:
            conns[cid] = st
        send(cid, b"O")
        threading.Thread(target=pump_up, args=(cid, sock, st), daemon=True).start()
        threading.Thread(target=pump_down, args=(cid, sock, q), daemon=True).start()

def read_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(0, n - len(buf))
        if not chunk:
            os._exit(0)
        buf += chunk
    return buf

listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0))
listener.listen(64)
send(0, b"H", str(listener.getsockname()[1]).encode())
threading.Thread(target=accept, args=(listener,), daemon=True).start()
while True:
    cid, kind, n = struct.unpack(">IcI", read_exact(9))
    data = read_exact(n) if n else b""
    with conns_lock:
        st = conns.get(cid)
    if st is None:
        if kind == b"D":
            send(cid, b"A", struct.pack(">I", len(data)))
        continue
    if kind == b"D":
        st["q"].put(data)
    elif kind == b"C":
        st["q"].put(None)
    elif kind == b"A" and len(data) == 4:
        with st["cv"]:
            st["unacked"] = max(0, st["unacked"] - struct.unpack(">I", data)[0])
            st["cv"].notify_all()
    elif kind == b"G":
        with st["cv"]:
            st["gone"] = True
            st["cv"].notify_all()
"#;

/// Largest payload of one frame the host side sends.
const MAX_FRAME: usize = 64 << 10;

/// Largest payload the host side accepts (the relay sends at most 64 KiB).
const MAX_INCOMING: u32 = 1 << 20;

/// Bytes one direction of one connection may have in flight (sent, not yet
/// acknowledged); the relay uses the same figure.
pub const WINDOW: u64 = 256 << 10;

/// How long a write may wait for the relay's client to take its bytes
/// before it fails (the client stopped reading).
const STALL: Duration = Duration::from_secs(120);

/// Why the relay's stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelayError {
    /// A frame the protocol does not have (the stream is not the relay's).
    #[error("egress relay: bad frame (kind {kind:#04x}, {len} bytes)")]
    BadFrame {
        /// The kind byte.
        kind: u8,
        /// The announced length.
        len: u32,
    },
}

/// Where the host side's frames go (the relay's stdin); returns false once
/// the relay is gone.
pub type Outbox = Arc<dyn Fn(Vec<u8>) -> bool + Send + Sync>;

fn frame(id: u32, kind: u8, data: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(9 + data.len());
    f.extend_from_slice(&id.to_be_bytes());
    f.push(kind);
    f.extend_from_slice(&(data.len() as u32).to_be_bytes());
    f.extend_from_slice(data);
    f
}

/// The bytes of one connection's host-to-relay direction that the relay
/// has not acknowledged yet.
#[derive(Default)]
struct Window {
    state: Mutex<WindowState>,
    changed: Condvar,
}

#[derive(Default)]
struct WindowState {
    in_flight: u64,
    /// The relay is gone: writers fail instead of waiting.
    closed: bool,
}

impl Window {
    fn lock(&self) -> std::sync::MutexGuard<'_, WindowState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until `n` more bytes fit, then counts them.
    fn reserve(&self, n: u64) -> std::io::Result<()> {
        let until = std::time::Instant::now() + STALL;
        let mut st = self.lock();
        while st.in_flight > 0 && st.in_flight + n > WINDOW && !st.closed {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(std::io::ErrorKind::TimedOut.into());
            }
            st = self
                .changed
                .wait_timeout(st, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if st.closed {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        st.in_flight += n;
        Ok(())
    }

    fn ack(&self, n: u64) {
        let mut st = self.lock();
        st.in_flight = st.in_flight.saturating_sub(n);
        self.changed.notify_all();
    }

    fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }
}

/// The host side's state of the relayed connections, shared by the stream
/// reader and every connection's halves.
#[derive(Default)]
struct Conns {
    /// Where each connection's incoming bytes go, until the client finishes
    /// sending or the proxy stops reading.
    readers: HashMap<u32, Sender<Vec<u8>>>,
    /// Each connection's host-to-relay window, until the proxy's answer is
    /// over.
    windows: HashMap<u32, Arc<Window>>,
}

type SharedConns = Arc<Mutex<Conns>>;

fn lock(conns: &SharedConns) -> std::sync::MutexGuard<'_, Conns> {
    conns.lock().unwrap_or_else(|e| e.into_inner())
}

/// The read half of a relayed connection: the client's bytes. Each chunk it
/// hands on is acknowledged to the relay (which then reads more from its
/// client); dropping it tells the relay to stop reading.
pub struct MuxReader {
    id: u32,
    incoming: Receiver<Vec<u8>>,
    pending: Vec<u8>,
    offset: usize,
    timeout: Option<Duration>,
    outbox: Outbox,
    conns: SharedConns,
}

impl Read for MuxReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.offset >= self.pending.len() {
            let next = match self.timeout {
                Some(t) => self.incoming.recv_timeout(t).map_err(|e| match e {
                    RecvTimeoutError::Timeout => std::io::ErrorKind::TimedOut,
                    RecvTimeoutError::Disconnected => std::io::ErrorKind::UnexpectedEof,
                }),
                None => self
                    .incoming
                    .recv()
                    .map_err(|_| std::io::ErrorKind::UnexpectedEof),
            };
            match next {
                Ok(data) => {
                    // Taken off the channel: the relay may send as much again.
                    let n = data.len() as u32;
                    let _ = (self.outbox)(frame(self.id, b'A', &n.to_be_bytes()));
                    self.pending = data;
                    self.offset = 0;
                }
                // The client finished sending (or the relay is gone).
                Err(std::io::ErrorKind::UnexpectedEof) => return Ok(0),
                Err(kind) => return Err(kind.into()),
            }
        }
        let n = buf.len().min(self.pending.len() - self.offset);
        buf[..n].copy_from_slice(&self.pending[self.offset..self.offset + n]);
        self.offset += n;
        Ok(n)
    }
}

impl Drop for MuxReader {
    fn drop(&mut self) {
        lock(&self.conns).readers.remove(&self.id);
        let _ = (self.outbox)(frame(self.id, b'G', &[]));
    }
}

/// The write half of a relayed connection; each write waits while
/// [`WINDOW`] bytes are in flight; dropping it tells the relay this side is
/// done (the client reads end of file).
pub struct MuxWriter {
    id: u32,
    outbox: Outbox,
    window: Arc<Window>,
    conns: SharedConns,
}

impl Write for MuxWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len().min(MAX_FRAME);
        if n == 0 {
            return Ok(0);
        }
        self.window.reserve(n as u64)?;
        if (self.outbox)(frame(self.id, b'D', &buf[..n])) {
            Ok(n)
        } else {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for MuxWriter {
    fn drop(&mut self) {
        lock(&self.conns).windows.remove(&self.id);
        let _ = (self.outbox)(frame(self.id, b'C', &[]));
    }
}

/// One connection accepted by the relay, as the proxy sees it.
pub struct MuxConn {
    reader: MuxReader,
    writer: MuxWriter,
}

impl Read for MuxConn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(buf)
    }
}

impl Write for MuxConn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl ClientConn for MuxConn {
    type Reader = MuxReader;
    type Writer = MuxWriter;

    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> std::io::Result<()> {
        self.reader.timeout = timeout;
        Ok(())
    }

    fn split(self) -> std::io::Result<(MuxReader, MuxWriter)> {
        Ok((self.reader, self.writer))
    }
}

/// The host side of one relay: feed it the relay's output, and it serves
/// each connection on its own thread with the egress proxy.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use sandkeep_net::Egress;
/// use sandkeep_net::relay::RelayHost;
///
/// let sent = Arc::new(Mutex::new(Vec::new()));
/// let outbox = { let sent = sent.clone(); Arc::new(move |f: Vec<u8>| { sent.lock().unwrap().extend(f); true }) };
/// let mut host = RelayHost::new(Egress::default(), None, outbox);
/// // The relay says hello: it listens on port 3128.
/// host.feed(b"\0\0\0\0H\0\0\0\x043128").unwrap();
/// assert_eq!(host.port(), Some(3128));
/// ```
pub struct RelayHost {
    egress: Egress,
    interceptor: Option<Arc<Interceptor>>,
    outbox: Outbox,
    buf: Vec<u8>,
    conns: SharedConns,
    port: Option<u16>,
}

impl RelayHost {
    /// A host side serving under `egress` (terminating TLS with
    /// `interceptor` for hosts with an injected header), writing to the
    /// relay through `outbox`.
    pub fn new(egress: Egress, interceptor: Option<Arc<Interceptor>>, outbox: Outbox) -> RelayHost {
        RelayHost {
            egress,
            interceptor,
            outbox,
            buf: Vec::new(),
            conns: SharedConns::default(),
            port: None,
        }
    }

    /// The port the relay listens on in the container, once it said so.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// Takes the next bytes of the relay's output.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), RelayError> {
        self.buf.extend_from_slice(bytes);
        let mut at = 0;
        while self.buf.len() - at >= 9 {
            let h = &self.buf[at..at + 9];
            let id = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
            let kind = h[4];
            let len = u32::from_be_bytes([h[5], h[6], h[7], h[8]]);
            if len > MAX_INCOMING || !matches!(kind, b'H' | b'O' | b'D' | b'C' | b'A') {
                return Err(RelayError::BadFrame { kind, len });
            }
            let end = at + 9 + len as usize;
            if self.buf.len() < end {
                break;
            }
            let payload = self.buf[at + 9..end].to_vec();
            at = end;
            self.dispatch(id, kind, payload)?;
        }
        self.buf.drain(..at);
        Ok(())
    }

    fn dispatch(&mut self, id: u32, kind: u8, payload: Vec<u8>) -> Result<(), RelayError> {
        let mut conns = lock(&self.conns);
        match kind {
            b'H' => {
                self.port = std::str::from_utf8(&payload)
                    .ok()
                    .and_then(|p| p.parse().ok());
                if self.port.is_none() {
                    return Err(RelayError::BadFrame {
                        kind,
                        len: payload.len() as u32,
                    });
                }
            }
            b'O' => {
                let (tx, rx) = channel();
                let window = Arc::new(Window::default());
                conns.readers.insert(id, tx);
                conns.windows.insert(id, window.clone());
                let conn = MuxConn {
                    reader: MuxReader {
                        id,
                        incoming: rx,
                        pending: Vec::new(),
                        offset: 0,
                        timeout: None,
                        outbox: self.outbox.clone(),
                        conns: self.conns.clone(),
                    },
                    writer: MuxWriter {
                        id,
                        outbox: self.outbox.clone(),
                        window,
                        conns: self.conns.clone(),
                    },
                };
                let egress = self.egress.clone();
                let interceptor = self.interceptor.clone();
                drop(conns);
                // On failure the closure (and the connection in it) is
                // dropped, which tells the relay to close it.
                let _ = std::thread::Builder::new()
                    .name("sandkeep-egress-relayed".into())
                    .spawn(move || crate::proxy::serve(conn, &egress, interceptor.as_deref()));
            }
            b'D' => {
                // The relay counts these against the connection's window
                // until the proxy reads them (`MuxReader` acks); a reader
                // that is gone acks nothing, and the relay stopped sending
                // when told so.
                let gone = conns
                    .readers
                    .get(&id)
                    .is_some_and(|tx| tx.send(payload).is_err());
                if gone {
                    conns.readers.remove(&id);
                }
            }
            b'A' => {
                let n = <[u8; 4]>::try_from(payload.as_slice())
                    .map(u32::from_be_bytes)
                    .map_err(|_| RelayError::BadFrame {
                        kind,
                        len: payload.len() as u32,
                    })?;
                if let Some(w) = conns.windows.get(&id) {
                    w.ack(u64::from(n));
                }
            }
            _ => {
                // `C`: the client finished sending; its reader sees end of file.
                conns.readers.remove(&id);
            }
        }
        Ok(())
    }

    /// The relay is gone: every connection's reader sees end of file and
    /// every waiting writer fails.
    pub fn close_all(&mut self) {
        let mut conns = lock(&self.conns);
        conns.readers.clear();
        for (_, w) in conns.windows.drain() {
            w.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_anywhere_are_reassembled_and_bad_ones_refused() {
        let sent = Arc::new(Mutex::new(Vec::<u8>::new()));
        let outbox: Outbox = {
            let sent = sent.clone();
            Arc::new(move |f: Vec<u8>| {
                sent.lock().unwrap().extend(f);
                true
            })
        };
        let mut host = RelayHost::new(Egress::default(), None, outbox);
        let hello = frame(0, b'H', b"40123");
        for b in &hello {
            host.feed(std::slice::from_ref(b)).unwrap();
        }
        assert_eq!(host.port(), Some(40123));
        // A request for a host the (deny-all) policy refuses: the proxy
        // answers 403 on the same connection id, then closes its side.
        let mut stream = frame(7, b'O', b"");
        stream.extend(frame(7, b'D', b"GET http://evil.example/ HTTP/1.1\r\n"));
        stream.extend(frame(7, b'D', b"Host: evil.example\r\n\r\n"));
        host.feed(&stream).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let got = sent.lock().unwrap().clone();
            if got.ends_with(&frame(7, b'C', b"")) {
                let text = String::from_utf8_lossy(&got);
                assert!(text.contains("HTTP/1.1 403 Forbidden"), "{text}");
                assert!(
                    text.contains("network policy denies evil.example:80"),
                    "{text}"
                );
                break;
            }
            assert!(std::time::Instant::now() < deadline, "no answer");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            host.feed(&frame(1, b'X', b"")),
            Err(RelayError::BadFrame { kind: b'X', len: 0 })
        );
    }

    /// The frames in `bytes` (id, kind, payload).
    fn frames(bytes: &[u8]) -> Vec<(u32, u8, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = 0;
        while bytes.len() - at >= 9 {
            let id = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
            let len = u32::from_be_bytes(bytes[at + 5..at + 9].try_into().unwrap()) as usize;
            out.push((id, bytes[at + 4], bytes[at + 9..at + 9 + len].to_vec()));
            at += 9 + len;
        }
        out
    }

    #[test]
    fn a_client_that_does_not_read_holds_back_only_one_window() {
        use std::net::TcpListener;
        const BODY: usize = 3 << 20;
        let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = upstream.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut conn, _) = upstream.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {BODY}\r\n\r\n");
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(&vec![b'x'; BODY]);
        });
        let sent = Arc::new(Mutex::new(Vec::<u8>::new()));
        let outbox: Outbox = {
            let sent = sent.clone();
            Arc::new(move |f: Vec<u8>| {
                sent.lock().unwrap().extend(f);
                true
            })
        };
        let egress = Egress::allowing([addr.to_string()]).unwrap();
        let mut host = RelayHost::new(egress, None, outbox);
        let mut open = frame(5, b'O', b"");
        open.extend(frame(
            5,
            b'D',
            format!("GET http://{addr}/big HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes(),
        ));
        host.feed(&open).unwrap();
        let data_sent = || -> (usize, bool) {
            let all = frames(&sent.lock().unwrap());
            let data = all
                .iter()
                .filter(|(id, k, _)| *id == 5 && *k == b'D')
                .map(|(_, _, p)| p.len())
                .sum();
            (data, all.iter().any(|(id, k, _)| *id == 5 && *k == b'C'))
        };
        // Nothing acknowledged: the proxy stops after one window.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut last = 0;
        loop {
            std::thread::sleep(Duration::from_millis(300));
            let (now, _) = data_sent();
            if now > 0 && now == last {
                break;
            }
            last = now;
            assert!(std::time::Instant::now() < deadline, "no data");
        }
        assert!(
            last as u64 <= WINDOW && last as u64 > WINDOW - MAX_FRAME as u64,
            "{last} bytes in flight unacknowledged"
        );
        // Acknowledge as the relay would: the whole answer arrives.
        let mut acked = 0;
        loop {
            let (now, closed) = data_sent();
            if now > acked {
                host.feed(&frame(5, b'A', &((now - acked) as u32).to_be_bytes()))
                    .unwrap();
                acked = now;
            }
            if closed {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "stalled at {now}");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(acked > BODY, "{acked}");
    }
}
