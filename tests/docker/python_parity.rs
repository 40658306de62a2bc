//! Python parity: the same agent-style bash + python scripts on the local
//! backend (CPython 3.12 on the WASI host) and, when a daemon answers, on docker (the
//! image's CPython): local must match docker's stdout and exit status. With
//! no daemon, the local results are still checked against the expected
//! output written here (what CPython prints). Known differences are listed
//! in `KNOWN` with their reason.
//!
//! Run: `cargo test --release --test docker python_parity::` (docker:
//! `DOCKER_HOST=... SANDKEEP_REQUIRE_DOCKER=1`).
#![cfg(feature = "python")]

use crate::docker_support;

use std::sync::Arc;
use std::time::Duration;

use sandkeep::{Backend, LocalBackend, RunRequest, Sandbox, SandboxSpec};

/// (script, the stdout CPython gives, its exit status).
const SCRIPTS: &[(&str, &str, i32)] = &[
    ("python3 -c 'print(sum(range(10)))'", "45\n", 0),
    (
        "echo '{\"items\": [{\"id\": 1, \"ok\": true}, {\"id\": 2, \"ok\": false}]}' > r.json\npython3 -c 'import json; d = json.load(open(\"r.json\")); print([i[\"id\"] for i in d[\"items\"] if i[\"ok\"]])'",
        "[1]\n",
        0,
    ),
    (
        "printf 'name,qty\\na,2\\nb,3\\n' > s.csv\npython3 - <<'EOF'\nimport csv\nwith open(\"s.csv\") as f:\n    rows = list(csv.DictReader(f))\nprint(sum(int(r[\"qty\"]) for r in rows))\nEOF",
        "5\n",
        0,
    ),
    (
        "mkdir -p src/a; touch src/x.py src/a/y.py src/a/z.txt\npython3 - <<'EOF'\nimport os\nout = []\nfor root, dirs, files in os.walk(\"src\"):\n    out += [os.path.join(root, f) for f in files if f.endswith(\".py\")]\nprint(sorted(out))\nEOF",
        "['src/a/y.py', 'src/x.py']\n",
        0,
    ),
    (
        "python3 -c 'import sys; print(sys.argv[1:]); sys.exit(3)' a b; echo \"status $?\"",
        "['a', 'b']\nstatus 3\n",
        0,
    ),
    (
        "seq 1 5 | python3 -c 'import sys; print(sum(int(l) for l in sys.stdin))'",
        "15\n",
        0,
    ),
    (
        "python3 - <<'EOF'\nwith open(\"out.txt\", \"w\") as f:\n    for i in range(3):\n        f.write(f\"line {i}\\n\")\nEOF\nwc -l < out.txt; tail -1 out.txt",
        "3\nline 2\n",
        0,
    ),
    ("python3 -c '1/0' 2>/dev/null; echo $?", "1\n", 0),
    (
        "echo '{\"b\": 1, \"a\": [1, 2]}' | python3 -m json.tool --sort-keys",
        "{\n    \"a\": [\n        1,\n        2\n    ],\n    \"b\": 1\n}\n",
        0,
    ),
    (
        "python3 -c 'import re, collections; print(collections.Counter(re.findall(r\"\\w+\", \"a b a c a\")).most_common(1))'",
        "[('a', 3)]\n",
        0,
    ),
    (
        "python3 - <<'EOF'\nclass AppError(Exception):\n    pass\nclass NotFound(AppError):\n    def __init__(self, key):\n        super().__init__(f\"missing {key}\")\ntry:\n    raise NotFound(\"cfg\")\nexcept AppError as e:\n    print(type(e).__name__, e)\nEOF",
        "NotFound missing cfg\n",
        0,
    ),
    (
        "python3 - <<'EOF'\nfrom dataclasses import dataclass, field\nfrom enum import Enum\nclass Kind(Enum):\n    A = 1\n    B = 2\n@dataclass(order=True)\nclass Job:\n    prio: int\n    kind: Kind = field(compare=False, default=Kind.A)\n    tags: list = field(default_factory=list, compare=False)\nprint(sorted([Job(3), Job(1, Kind.B)]))\nEOF",
        "[Job(prio=1, kind=<Kind.B: 2>, tags=[]), Job(prio=3, kind=<Kind.A: 1>, tags=[])]\n",
        0,
    ),
    (
        "python3 - <<'EOF'\ndef chunks(xs, n):\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\nclass Temp:\n    def __init__(self, c):\n        self._c = c\n    @property\n    def f(self):\n        return self._c * 9 / 5 + 32\nprint(list(chunks([1, 2, 3, 4, 5], 2)), Temp(100).f)\nEOF",
        "[[1, 2], [3, 4], [5]] 212.0\n",
        0,
    ),
    (
        "python3 - <<'EOF'\nfrom decimal import Decimal\nfrom fractions import Fraction\nfrom collections import OrderedDict, ChainMap\nd = OrderedDict(a=1, b=2)\nd.move_to_end('a')\nprint(Decimal('0.1') + Decimal('0.2'), Fraction(1, 3) + Fraction(1, 6), list(d), ChainMap({'x': 1}, {'x': 2, 'y': 3})['y'])\nEOF",
        "0.3 1/2 ['b', 'a'] 3\n",
        0,
    ),
    (
        "python3 - <<'EOF'\nimport sys\nclass Timer:\n    def __enter__(self):\n        print('start')\n        return self\n    def __exit__(self, *exc):\n        print('stop')\ntry:\n    with Timer():\n        int('x')\nexcept ValueError:\n    sys.exit(4)\nEOF\necho \"status $?\"",
        "start\nstop\nstatus 4\n",
        0,
    ),
    (
        "python3 - <<'EOF'\nimport argparse\np = argparse.ArgumentParser(prog='tool')\np.add_argument('--n', type=int, default=2, help='how many')\np.print_help()\nEOF",
        "usage: tool [-h] [--n N]\n\noptions:\n  -h, --help  show this help message and exit\n  --n N       how many\n",
        0,
    ),
    (
        "python3 - <<'EOF'\nimport sqlite3\ncon = sqlite3.connect('t.db')\ncon.execute('create table t (x)')\ncon.executemany('insert into t values (?)', [(1,), (2,)])\ncon.commit()\nprint(con.execute('select sum(x) from t').fetchone()[0])\nEOF\nls t.db",
        "3\nt.db\n",
        0,
    ),
];

/// Scripts whose local result differs from CPython on purpose, and why.
const KNOWN: &[(&str, &str)] = &[(
    "python3 -c 'import socket; socket.socket()' 2>/dev/null; echo $?",
    "the local sandbox has no sockets (CPython on WASI): creating one fails (exit 1) where a container's CPython succeeds",
)];

async fn run(sb: &dyn Sandbox, script: &str) -> (String, i32) {
    let r = sb
        .run(RunRequest::new(script).timeout(Duration::from_secs(60)))
        .await
        .unwrap();
    (r.stdout_text(), r.exit_code)
}

#[tokio::test]
async fn python_scripts_match_across_backends() {
    let spec = |name: &str| SandboxSpec {
        session_id: docker_support::session_id(name),
        agent: "python-parity".into(),
        env: vec![],
    };
    let local: Arc<dyn Backend> = Arc::new(LocalBackend::new());
    let docker = docker_support::backend().await;
    for (i, (script, want, status)) in SCRIPTS.iter().enumerate() {
        let sb = local.create(&spec(&format!("py-local-{i}"))).await.unwrap();
        let (out, code) = run(sb.as_ref(), script).await;
        assert_eq!((out.as_str(), code), (*want, *status), "local: {script}");
        sb.stop().await.ok();
        if let Some(d) = &docker {
            let sb = d.create(&spec(&format!("py-docker-{i}"))).await.unwrap();
            let (dout, dcode) = run(sb.as_ref(), script).await;
            sb.stop().await.ok();
            assert_eq!(
                (out.as_str(), code),
                (dout.as_str(), dcode),
                "local vs docker: {script}"
            );
        }
    }
    for (script, why) in KNOWN {
        let sb = local.create(&spec("py-known")).await.unwrap();
        let (out, _) = run(sb.as_ref(), script).await;
        assert_eq!(out, "1\n", "{script} ({why})");
        sb.stop().await.ok();
    }
}
