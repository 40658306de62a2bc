//! The `curl` and `wget` a container runs when its sandbox has an egress
//! (the docker backend installs [`script`] as `/usr/local/bin/curl` and
//! `/usr/local/bin/wget`, ahead of `/usr/bin` in `PATH`, owned by root).
//!
//! Why: the real tools talk to the egress proxy, and a refusal reaches them
//! as a proxy's `403` or a cut connection, which they report in their own
//! words (`CONNECT tunnel failed, response 403`, or the 403 page as if it
//! were the download). The model must learn what the local backend tells
//! it: `curl: (56) sandkeep: network policy denies HOST:PORT (allowed:
//! ...); ask the operator to add it`, exit 56 (`wget: ...`, exit 4).
//!
//! How: the wrapper runs the real tool with a fresh run token as the proxy
//! user name in the proxy variables it finds pointing at the relay
//! ([`crate::proxy::RunToken`]). The proxy (host side) decides, and keeps
//! each refusal's words for that token. When the tool prints its failure
//! line, and once more when it exits, the wrapper asks the proxy for them
//! ([`crate::proxy::VERDICT_METHOD`]) and prints them instead, with the
//! status the local backend gives. The wrapper enforces nothing: the same
//! tool run as `/usr/bin/curl` is refused just the same, only in curl's
//! words. Everything else (stdin, stdout, the progress meter, other
//! errors, signals) passes through unchanged.

/// The wrapper's text (python3, which the relay needs anyway; `-S` skips
/// `site`, halving its start-up) for a relay listening on the container's
/// `127.0.0.1:relay_port`.
///
/// ```
/// let text = sandkeep_net::wrapper::script(40123);
/// assert!(text.starts_with("#!/usr/bin/python3 -IS\n"));
/// assert!(text.contains("PORT = 40123\n"));
/// ```
pub fn script(relay_port: u16) -> String {
    WRAPPER_PY.replace("@PORT@", &relay_port.to_string())
}

const WRAPPER_PY: &str = r#"#!/usr/bin/python3 -IS
# sandkeep: runs the real curl/wget and shows the egress proxy's refusals
# in the local backend's words (see sandkeep_net::wrapper).
import os, signal, socket, subprocess, sys

PORT = @PORT@
BASE = "http://127.0.0.1:%d" % PORT
HERE = os.path.dirname(os.path.realpath(__file__))
TOOL = os.path.basename(sys.argv[0])
VARS = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")


def real_tool():
    for d in os.environ.get("PATH", "").split(":") + ["/usr/bin", "/bin"]:
        if not d or os.path.realpath(d) == HERE:
            continue
        p = os.path.join(d, TOOL)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    sys.stderr.write("%s: command not found\n" % TOOL)
    sys.exit(127)


def is_failure(line):
    if TOOL == "curl":
        return line.startswith(b"curl: (")
    return any(m in line for m in (b"ERROR ", b"Proxy tunneling failed",
                                   b"Unable to establish SSL", b"GnuTLS:",
                                   b"No data received", b"Read error"))


def main():
    path = real_tool()
    token = ("skc" if TOOL == "curl" else "skw") + os.urandom(16).hex()
    env = dict(os.environ)
    marked = False
    for k in VARS:
        if env.get(k, "").rstrip("/") == BASE:
            env[k] = "http://%s:x@127.0.0.1:%d" % (token, PORT)
            marked = True
    if not marked:
        os.execv(path, [TOOL] + sys.argv[1:])
    child = subprocess.Popen([TOOL] + sys.argv[1:], executable=path, env=env,
                             stderr=subprocess.PIPE)

    def forward(sig, _frame):
        try:
            child.send_signal(sig)
        except OSError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)

    def verdicts():
        try:
            s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
            s.sendall(("SANDKEEP-VERDICTS %s HTTP/1.1\r\nHost: sandkeep\r\n\r\n"
                       % token).encode())
            got = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
            s.close()
        except OSError:
            return []
        head, _, body = got.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            return []
        return [l for l in body.decode("utf-8", "replace").split("\n") if l]

    state = {"shown": False, "after": False}

    def show(messages):
        for m in messages:
            if TOOL == "curl":
                line = "curl: (56) %s\n" % m
            else:
                line = "wget: %s\n" % m
            os.write(2, line.encode())
        state["shown"] = True

    def emit(line):
        if is_failure(line):
            told = verdicts()
            if told:
                show(told)
                state["after"] = True
                return
            # The rest of a failure already told in the policy's words.
            if state["after"]:
                return
        else:
            state["after"] = False
        os.write(2, line)

    fd = child.stderr.fileno()
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except InterruptedError:
            continue
        if not chunk:
            break
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            emit(line + b"\n")
        if b"\r" in pending:
            # The progress meter: shown as it comes.
            cut = pending.rindex(b"\r") + 1
            os.write(2, pending[:cut])
            pending = pending[cut:]
    if pending:
        emit(pending)
    while True:
        try:
            status = child.wait()
            break
        except InterruptedError:
            continue
    told = verdicts()
    if told:
        show(told)
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    if state["shown"] and status != 0:
        status = 56 if TOOL == "curl" else 4
    sys.exit(status)


main()
"#;
