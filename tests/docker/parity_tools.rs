//! Backend parity for the tools agents call beyond coreutils (issue 39):
//! `rg`, `patch`, `sqlite3`, `node`, `make`, `diff3`, `envsubst` run on the
//! local backend (the sandbox's own implementations) and, when a daemon
//! answers, on docker (the image's real tools), with the same expected
//! stdout and status on both.

use crate::docker_support;

use std::sync::Arc;
use std::time::Duration;

use sandkeep::{Backend, LocalBackend, RunRequest, SandboxSpec};

/// A script, its expected stdout and exit status.
struct Case {
    script: &'static str,
    stdout: &'static str,
    exit: i32,
}

const fn case(script: &'static str, stdout: &'static str, exit: i32) -> Case {
    Case {
        script,
        stdout,
        exit,
    }
}

const CASES: &[Case] = &[
    // rg: path:line: prefixes on a pipe, counts, no match is status 1.
    case(
        "printf 'a\\nTODO one\\nb\\n' > f.txt; mkdir -p src; printf 'TODO two\\n' > src/m.rs; rg -n TODO | sort",
        "f.txt:2:TODO one\nsrc/m.rs:1:TODO two\n",
        0,
    ),
    case(
        "printf 'x\\nX\\nx\\n' > f; rg -c -i x f; rg -l x .",
        "3\n./f\n",
        0,
    ),
    case("printf 'a\\n' > f; rg nothing f", "", 1),
    // patch: a unified diff applied, then reversed.
    case(
        "printf 'one\\ntwo\\nthree\\n' > f.txt; printf 'one\\n2\\nthree\\n' > g.txt; diff -u f.txt g.txt > d.patch; patch f.txt < d.patch; cat f.txt; patch -R f.txt < d.patch; cat f.txt",
        "patching file f.txt\none\n2\nthree\npatching file f.txt\none\ntwo\nthree\n",
        0,
    ),
    case(
        "printf 'a\\nb\\n' > f; printf -- '--- f\\n+++ f\\n@@ -1,2 +1,2 @@\\n-x\\n-y\\n+c\\n+d\\n' | patch -s f > /dev/null; echo $?; ls f.rej",
        "1\nf.rej\n",
        0,
    ),
    // sqlite3: a database file written and read back, modes.
    case(
        "sqlite3 t.db 'create table t(x integer, y text); insert into t values (1, \"a\"), (2, \"b\");'; sqlite3 t.db 'select sum(x) from t'; sqlite3 -csv t.db 'select * from t order by x'",
        "3\n1,a\n2,b\n",
        0,
    ),
    case(
        "echo 'select 6*7;' | sqlite3; sqlite3 :memory: '.mode json' \"select 1 as n\"",
        "42\n[{\"n\":1}]\n",
        0,
    ),
    case("sqlite3 :memory: 'select * from nope' 2>/dev/null", "", 1),
    // node: -e, -p, a script with arguments, an uncaught error's status.
    case(
        "node -e 'console.log([1, 2, 3].map(x => x * 2).join(\",\"))'; node -p '6 * 7'",
        "2,4,6\n42\n",
        0,
    ),
    case(
        "printf 'const fs = require(\"fs\");\\nfs.writeFileSync(\"out.txt\", process.argv.slice(2).join(\"+\"));\\n' > w.js; node w.js a b; cat out.txt; echo",
        "a+b\n",
        0,
    ),
    case("node -e 'throw new Error(\"boom\")' 2>/dev/null", "", 1),
    // make: a build by mtime, then up to date; a failing recipe is status 2.
    case(
        "printf 'out.txt: in.txt\\n\\tcp in.txt out.txt\\n' > Makefile; echo hi > in.txt; touch -d 2020-01-01 in.txt; make; make; cat out.txt",
        "cp in.txt out.txt\nmake: 'out.txt' is up to date.\nhi\n",
        0,
    ),
    case(
        "printf '.PHONY: test\\ntest:\\n\\t@echo $(NAME) ok\\n' > Makefile; make -s NAME=suite test",
        "suite ok\n",
        0,
    ),
    case(
        "printf 'all:\\n\\t@false\\n' > Makefile; make 2>/dev/null",
        "",
        2,
    ),
    case("make nope 2>/dev/null", "", 2),
    // diff3 -m and envsubst.
    case(
        "printf 'a\\nb\\nc\\n' > o; printf 'A\\nb\\nc\\n' > m; printf 'a\\nb\\nC\\n' > y; diff3 -m m o y",
        "A\nb\nC\n",
        0,
    ),
    case(
        "export NAME=world; echo 'hello ${NAME}' | envsubst",
        "hello world\n",
        0,
    ),
];

#[tokio::test]
async fn toolbox_commands_agree_on_every_backend() {
    let mut backends: Vec<(&str, Arc<dyn Backend>)> =
        vec![("local", Arc::new(LocalBackend::new()))];
    if let Some(docker) = docker_support::backend().await {
        backends.push(("docker", Arc::new(docker)));
    }
    for (name, backend) in backends {
        let spec = SandboxSpec {
            session_id: docker_support::session_id("parity-tools"),
            agent: "parity".into(),
            env: vec![],
        };
        let sb = backend.create(&spec).await.expect("create a sandbox");
        let mut failures = Vec::new();
        for c in CASES {
            sb.run(RunRequest::new(
                "rm -rf /workspace/* /workspace/.[!.]* 2>/dev/null; true",
            ))
            .await
            .unwrap();
            let r = sb
                .run(RunRequest::new(c.script).timeout(Duration::from_secs(60)))
                .await
                .unwrap();
            if r.exit_code != c.exit || r.stdout_text() != c.stdout {
                failures.push(format!(
                    "[{name}] {:?}\n  status {} (want {})\n  stdout {:?}\n  want   {:?}\n  stderr {:?}",
                    c.script,
                    r.exit_code,
                    c.exit,
                    r.stdout_text(),
                    c.stdout,
                    r.stderr_text()
                ));
            }
        }
        sb.stop().await.unwrap();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
