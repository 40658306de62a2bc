//! Escapes: host files, the host environment and host writes reached
//! from a sandbox, through every reader and path spelling.

use super::*;

pub(super) fn escapes(h: &Host) -> Vec<Case> {
    use Check::*;
    let mut v = Vec::new();
    let f = h.secret_file.display().to_string();
    let d = h.dir.path().display().to_string();
    let readers = [
        ("cat", format!("cat {f}")),
        ("redirect", format!("cat < {f}")),
        ("dollar-lt", format!("echo \"$(< {f})\"")),
        ("source", format!("source {f}")),
        ("head", format!("head {f}")),
        ("tail", format!("tail {f}")),
        ("grep", format!("grep -r . {f}")),
        ("awk", format!("awk 1 {f}")),
        (
            "awk-getline",
            format!("awk 'BEGIN{{while((getline l < \"{f}\")>0) print l}}'"),
        ),
        ("sed", format!("sed -n p {f}")),
        ("jq-raw", format!("jq -R . {f}")),
        ("base64", format!("base64 {f}")),
        ("od", format!("od -c {f}")),
        ("cp", format!("cp {f} x && cat x")),
        ("symlink", format!("ln -s {f} l && cat l")),
        ("hardlink", format!("ln {f} l && cat l")),
        ("tar", format!("tar cf - {f} | tar xOf -")),
        (
            "read-loop",
            format!("while read -r l; do echo \"$l\"; done < {f}"),
        ),
        ("mapfile", format!("mapfile -t a < {f}; echo \"${{a[@]}}\"")),
        ("cd", format!("cd {d} && cat secret.txt")),
        ("find", format!("find {d} -type f -exec cat {{}} +")),
        ("ls", format!("ls -la {d}")),
        ("sort", format!("sort {f}")),
        ("xargs", format!("echo {f} | xargs cat")),
        ("diff", format!("diff {f} /dev/null")),
        ("wc-file", format!("wc -c {f}; cat {f}")),
        ("dd", format!("dd if={f} 2>/dev/null")),
        ("exec-fd", format!("exec 3< {f}; cat <&3")),
        ("tee-read", format!("tee < {f}")),
        ("md5-then-cat", format!("md5sum {f}; cat {f}")),
    ];
    for (name, script) in &readers {
        for (prefix_name, prefix) in [
            ("", ""),
            ("-dotdot", "/../../.."),
            ("-proc-root", "/proc/self/root"),
        ] {
            let script = script.replace(&f, &format!("{prefix}{f}"));
            let script = script.replace(&format!("cd {d}"), &format!("cd {prefix}{d}"));
            v.push(local(
                "escapes",
                &format!("read host file via {name}{prefix_name}"),
                10,
                &script,
                vec![Never(h.marker.clone())],
            ));
        }
    }
    let env_readers = [
        ("env", "env"),
        ("printenv", "printenv"),
        ("declare", "declare -p"),
        ("set", "set"),
        ("export", "export -p"),
        ("expand", "echo \"$SANDKEEP_ATTACK_SECRET\""),
        (
            "proc-environ",
            "cat /proc/self/environ; cat /proc/1/environ",
        ),
        (
            "compgen",
            "compgen -v | while read v; do echo \"${!v}\"; done",
        ),
        (
            "awk-environ",
            "awk 'BEGIN{for(k in ENVIRON) print ENVIRON[k]}'",
        ),
        ("jq-env", "jq -n env"),
        ("jq-ENV", "jq -n '$ENV'"),
        ("bash-c", "bash -c 'echo $SANDKEEP_ATTACK_SECRET'"),
    ];
    for (name, script) in env_readers {
        v.push(local(
            "escapes",
            &format!("host environment via {name}"),
            10,
            script,
            vec![Never(h.env_secret.clone())],
        ));
    }
    let writes = [
        ("redirect", "echo x > {P}"),
        ("tee", "echo x | tee {P}"),
        ("touch", "touch {P}"),
        ("mkdir", "mkdir -p {P}"),
        ("cp", "echo x > a; cp a {P}"),
        ("mv", "echo x > a; mv a {P}"),
        ("ln", "ln -s /etc/passwd {P}"),
        (
            "tar-x",
            "mkdir -p s; echo x > s/f; tar cf t.tar s; tar xf t.tar -C $(dirname {P})",
        ),
        ("dd", "dd if=/dev/zero of={P} bs=1 count=1"),
        ("awk-print", "awk 'BEGIN{print 1 > \"{P}\"}'"),
        ("sed-w", "echo x | sed -n 'w {P}'"),
    ];
    for (i, (name, script)) in writes.iter().enumerate() {
        let target = h.dir.path().join(format!("written-{i}"));
        let script = script.replace("{P}", &target.display().to_string());
        v.push(local(
            "escapes",
            &format!("write a host path via {name}"),
            10,
            &script,
            vec![HostAbsent(target)],
        ));
    }
    let sights = [
        ("root listing", "ls /", "bin\n"),
        ("cd above root", "cd /../../..; pwd", "/\n"),
        ("hostname", "hostname", "sandbox\n"),
        ("whoami", "whoami", "sandbox\n"),
        ("home", "echo $HOME", "/workspace\n"),
    ];
    for (name, script, want) in sights {
        v.push(local(
            "escapes",
            name,
            10,
            script,
            vec![Stdout(want), Status(0)],
        ));
    }
    for (name, script) in [
        (
            "no host programs",
            "perl -e 1 || gcc --version || /usr/bin/env ruby -e 1",
        ),
        (
            "no processes from the embedded python",
            "python3 -c 'import subprocess; subprocess.run([\"id\"])'",
        ),
        (
            "no host os calls from the embedded python",
            "python3 -c 'import os; os.system(\"id\")'",
        ),
        (
            "no network",
            "curl -s http://127.0.0.1:1/ || wget -q http://127.0.0.1:1/",
        ),
        ("no dev tcp", "echo x > /dev/tcp/127.0.0.1/22"),
        ("kill host pid 1", "kill -9 1"),
    ] {
        v.push(local("escapes", name, 10, script, vec![NotStatus(0)]));
    }
    v
}
