//! Python parity: the same agent-style bash + python scripts on the local
//! backend (embedded Python) and, when a daemon answers, on docker (the
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
];

/// Scripts whose local result differs from CPython on purpose, and why.
const KNOWN: &[(&str, &str)] = &[(
    "python3 -c 'import socket' 2>/dev/null; echo $?",
    "the local sandbox has no network: importing socket fails (exit 1) where CPython succeeds",
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
