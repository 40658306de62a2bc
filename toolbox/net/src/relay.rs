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
//! relay's client sent end of file, or the proxy finished its answer).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
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

def pump_up(cid, sock):
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
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
        with conns_lock:
            conns[cid] = {"sock": sock, "q": q, "up": False, "down": False}
        send(cid, b"O")
        threading.Thread(target=pump_up, args=(cid, sock), daemon=True).start()
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
        continue
    if kind == b"D":
        st["q"].put(data)
    elif kind == b"C":
        st["q"].put(None)
"#;

/// Largest payload of one frame the host side sends.
const MAX_FRAME: usize = 64 << 10;

/// Largest payload the host side accepts (the relay sends at most 64 KiB).
const MAX_INCOMING: u32 = 1 << 20;

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

/// The read half of a relayed connection: the client's bytes.
pub struct MuxReader {
    incoming: Receiver<Vec<u8>>,
    pending: Vec<u8>,
    offset: usize,
    timeout: Option<Duration>,
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

/// The write half of a relayed connection; dropping it tells the relay this
/// side is done (the client reads end of file).
pub struct MuxWriter {
    id: u32,
    outbox: Outbox,
}

impl Write for MuxWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len().min(MAX_FRAME);
        if n == 0 {
            return Ok(0);
        }
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
    conns: Arc<Mutex<HashMap<u32, Sender<Vec<u8>>>>>,
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
            conns: Arc::new(Mutex::new(HashMap::new())),
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
            if len > MAX_INCOMING || !matches!(kind, b'H' | b'O' | b'D' | b'C') {
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
        let mut conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
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
                conns.insert(id, tx);
                let conn = MuxConn {
                    reader: MuxReader {
                        incoming: rx,
                        pending: Vec::new(),
                        offset: 0,
                        timeout: None,
                    },
                    writer: MuxWriter {
                        id,
                        outbox: self.outbox.clone(),
                    },
                };
                let egress = self.egress.clone();
                let interceptor = self.interceptor.clone();
                let spawned = std::thread::Builder::new()
                    .name("sandkeep-egress-relayed".into())
                    .spawn(move || crate::proxy::serve(conn, &egress, interceptor.as_deref()));
                if spawned.is_err() {
                    conns.remove(&id);
                }
            }
            b'D' => {
                let gone = conns.get(&id).is_some_and(|tx| tx.send(payload).is_err());
                if gone {
                    conns.remove(&id);
                }
            }
            _ => {
                // `C`: the client finished sending; its reader sees end of file.
                conns.remove(&id);
            }
        }
        Ok(())
    }

    /// The relay is gone: every connection's reader sees end of file.
    pub fn close_all(&mut self) {
        self.conns.lock().unwrap_or_else(|e| e.into_inner()).clear();
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
}
