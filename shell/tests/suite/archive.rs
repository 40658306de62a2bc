//! `tar` and `gzip`/`gunzip`/`zcat` called directly as commands over a virtual
//! tree: option spellings, round trips, messages and exit statuses, and
//! hostile archives (tar slips) that must not write outside the target.
//! Comparisons against the host's GNU tools are in `archive_gnu.rs`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use crate::support::archive::*;

#[test]
fn sync_pair_round_trip() {
    let fs = new_fs();
    populate(&fs);
    let c = run(
        &fs,
        &[
            "tar",
            "czf",
            "/tmp/a.tgz",
            "-C",
            "/workspace",
            "--exclude=./mindlog.jsonl",
            ".",
        ],
    );
    assert_eq!((c.code, c.stderr.as_str()), (0, ""));
    let list = run(&fs, &["tar", "tzf", "/tmp/a.tgz"]);
    assert_eq!(
        lines(&list.stdout),
        [
            "./",
            "./a.txt",
            "./link",
            "./run.sh",
            "./sub/",
            "./sub/b.txt",
            "./sub/deeper/",
            "./sub/deeper/c.log",
            "./sub/mindlog.jsonl"
        ]
    );
    // restore in a fresh sandbox, as the sync hook does
    let bytes = fs.read("/tmp/a.tgz").unwrap();
    let fresh = Fs::new(
        FsLimits::default(),
        Clock::fixed(EPOCH + 1000),
        sandkeep_shell::usr_bin_names(),
    );
    fresh.write("/tmp/a.tgz", &bytes).unwrap();
    fresh.mkdir_all("/workspace").unwrap();
    let x = run(&fresh, &["tar", "xzf", "/tmp/a.tgz", "-C", "/workspace"]);
    assert_eq!((x.code, x.stderr.as_str()), (0, ""));
    assert_eq!(fresh.read("/workspace/a.txt").unwrap(), b"alpha\n");
    assert_eq!(
        fresh.read("/workspace/sub/deeper/c.log").unwrap(),
        b"charlie\n"
    );
    assert_eq!(fresh.read_link("/workspace/link").unwrap(), "a.txt");
    assert_eq!(fresh.metadata("/workspace/run.sh").unwrap().mode, 0o755);
    assert_eq!(
        fresh.metadata("/workspace/a.txt").unwrap().mtime.secs,
        1_600_000_000
    );
    assert_eq!(
        fresh.metadata("/workspace/sub").unwrap().mtime.secs,
        EPOCH,
        "dir mtime restored"
    );
    assert!(!fresh.exists("/workspace/mindlog.jsonl"));
    assert!(fresh.exists("/workspace/sub/mindlog.jsonl"));
}

#[test]
fn option_spellings_agree() {
    let fs = new_fs();
    populate(&fs);
    let forms: &[&[&str]] = &[
        &["tar", "czf", "/tmp/1.tgz", "-C", "/workspace", "."],
        &["tar", "-czf", "/tmp/2.tgz", "-C", "/workspace", "."],
        &[
            "tar",
            "-c",
            "-z",
            "-f",
            "/tmp/3.tgz",
            "--directory=/workspace",
            ".",
        ],
        &[
            "tar",
            "--create",
            "--gzip",
            "--file=/tmp/4.tgz",
            "-C/workspace",
            ".",
        ],
        &["tar", "-C", "/workspace", "-czf/tmp/5.tgz", "."],
        &[
            "tar",
            "--cre",
            "--gz",
            "--file",
            "/tmp/6.tgz",
            "--directory",
            "/workspace",
            ".",
        ],
    ];
    let mut listings = Vec::new();
    for f in forms {
        let c = run(&fs, f);
        assert_eq!(c.code, 0, "{f:?}: {}", c.stderr);
    }
    for i in 1..=6 {
        let path = format!("/tmp/{i}.tgz");
        listings.push(run(&fs, &["tar", "-tzf", &path]).stdout);
        assert_eq!(
            run(&fs, &["tar", "--list", "-f", &path]).stdout,
            listings[0],
            "auto-detected gzip"
        );
    }
    assert!(listings.iter().all(|l| *l == listings[0]));
    // stdin/stdout with -f -
    let c = run(&fs, &["tar", "cf", "-", "-C", "/workspace", "sub"]);
    assert_eq!(c.code, 0);
    let t = run_in(&fs, "/", &["tar", "tf", "-"], &c.stdout_bytes);
    assert_eq!(
        lines(&t.stdout),
        [
            "sub/",
            "sub/b.txt",
            "sub/deeper/",
            "sub/deeper/c.log",
            "sub/mindlog.jsonl"
        ]
    );
    let t = run_in(&fs, "/", &["tar", "t"], &c.stdout_bytes);
    assert_eq!(t.code, 0, "no -f reads stdin");
}

#[test]
fn usage_errors() {
    let fs = new_fs();
    let c = run(&fs, &["tar", "cf", "/tmp/x.tar"]);
    assert_eq!(c.code, 2);
    assert!(
        c.stderr
            .contains("Cowardly refusing to create an empty archive")
    );
    let c = run(&fs, &["tar", "-f", "x"]);
    assert_eq!(c.code, 2);
    assert!(c.stderr.contains("You must specify one of the"));
    // argp's own errors exit with EX_USAGE, as GNU tar's do.
    let c = run(&fs, &["tar", "--bogus"]);
    assert_eq!(
        (c.code, c.stderr.lines().next()),
        (64, Some("tar: unrecognized option '--bogus'"))
    );
    let c = run(&fs, &["tar", "cxf", "x"]);
    assert_eq!(c.code, 2);
    let c = run(&fs, &["tar", "cf", "/tmp/x.tar", "missing", "."]);
    assert_eq!(c.code, 2);
    assert!(
        c.stderr
            .contains("tar: missing: Cannot stat: No such file or directory")
    );
    assert!(
        c.stderr
            .ends_with("tar: Exiting with failure status due to previous errors\n")
    );
    assert!(fs.exists("/tmp/x.tar"), "the archive is still written");
    let c = run(&fs, &["tar", "xf", "/tmp/none.tar"]);
    assert_eq!(c.code, 2);
    assert_eq!(
        c.stderr,
        "tar: /tmp/none.tar: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n"
    );
    let c = run(&fs, &["tar", "cf", "/nodir/x.tar", "."]);
    assert_eq!(c.code, 2);
    fs.write("/tmp/junk", &[b'x'; 2000]).unwrap();
    let c = run(&fs, &["tar", "tf", "/tmp/junk"]);
    assert_eq!(c.code, 2);
    assert!(c.stderr.contains("This does not look like a tar archive"));
    let c = run(&fs, &["tar", "tzf", "/tmp/junk"]);
    assert_eq!(c.code, 2);
    assert!(c.stderr.contains("gzip: stdin: not in gzip format"));
    fs.write("/tmp/empty", b"").unwrap();
    assert_eq!(run(&fs, &["tar", "tf", "/tmp/empty"]).code, 2);
    // truncated gzip archive
    populate(&fs);
    assert_eq!(run(&fs, &["tar", "czf", "/tmp/t.tgz", "."]).code, 0);
    let full = fs.read("/tmp/t.tgz").unwrap();
    fs.write("/tmp/t.tgz", &full[..full.len() / 2]).unwrap();
    let c = run(&fs, &["tar", "tzf", "/tmp/t.tgz"]);
    assert_eq!(c.code, 2, "{}", c.stderr);
    // the late --exclude warning of GNU tar in create mode
    let c = run(&fs, &["tar", "cf", "/tmp/late.tar", ".", "--exclude=x"]);
    assert_eq!(c.code, 2);
    assert!(c.stderr.contains("has no effect"));
}

#[test]
fn the_archive_is_not_archived_into_itself() {
    let fs = new_fs();
    populate(&fs);
    let c = run(&fs, &["tar", "cf", "self.tar", "."]);
    assert_eq!(c.code, 0);
    assert_eq!(
        c.stderr,
        "tar: ./self.tar: file is the archive; not dumped\n"
    );
    let t = run(&fs, &["tar", "tf", "self.tar"]);
    assert!(!t.stdout.contains("self.tar"));
}

#[test]
fn verbose_and_long_listing() {
    let fs = new_fs();
    populate(&fs);
    let c = run(
        &fs,
        &["tar", "cvf", "/tmp/v.tar", "-C", "/workspace", "sub"],
    );
    assert_eq!(
        lines(&c.stdout),
        [
            "sub/",
            "sub/b.txt",
            "sub/deeper/",
            "sub/deeper/c.log",
            "sub/mindlog.jsonl"
        ]
    );
    let c = run(&fs, &["tar", "cvf", "-", "sub"]);
    assert!(
        c.stderr.starts_with("sub/\n"),
        "verbose goes to stderr when the archive is stdout"
    );
    let t = run(&fs, &["tar", "tvf", "/tmp/v.tar"]);
    assert_eq!(
        lines(&t.stdout)[..2],
        [
            "drwxr-xr-x sandbox/sandbox   0 2024-01-01 00:00 sub/",
            "-rw-r--r-- sandbox/sandbox   6 2024-01-01 00:00 sub/b.txt",
        ]
    );
    assert_eq!(run(&fs, &["tar", "cf", "/tmp/l.tar", "link"]).code, 0);
    let t = run(&fs, &["tar", "tvf", "/tmp/l.tar"]);
    assert_eq!(
        t.stdout,
        "lrwxrwxrwx sandbox/sandbox   0 2024-01-01 00:00 link -> a.txt\n"
    );
    fs.mkdir("/tmp/out", 0o755).unwrap();
    let x = run(&fs, &["tar", "xvf", "/tmp/v.tar", "-C", "/tmp/out"]);
    assert_eq!(x.stdout, c.stderr);
}

#[test]
fn strip_components_and_to_stdout() {
    let fs = new_fs();
    populate(&fs);
    assert_eq!(run(&fs, &["tar", "czf", "/tmp/s.tgz", "."]).code, 0);
    fs.mkdir("/tmp/s", 0o755).unwrap();
    let x = run(
        &fs,
        &[
            "tar",
            "xzf",
            "/tmp/s.tgz",
            "-C",
            "/tmp/s",
            "--strip-components=2",
        ],
    );
    assert_eq!(x.code, 0, "{}", x.stderr);
    let mut names: Vec<String> = fs
        .read_dir("/tmp/s")
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    names.sort();
    assert_eq!(names, ["b.txt", "deeper", "mindlog.jsonl"]);
    let o = run(
        &fs,
        &["tar", "xzOf", "/tmp/s.tgz", "./a.txt", "./sub/b.txt"],
    );
    assert_eq!((o.code, o.stdout.as_str()), (0, "alpha\nbravo\n"));
    let o = run(&fs, &["tar", "xzf", "/tmp/s.tgz", "-O", "nope"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("tar: nope: Not found in archive"));
}

#[test]
fn extraction_replaces_but_never_writes_through_symlinks() {
    let fs = new_fs();
    fs.write("/workspace/f", b"archived").unwrap();
    assert_eq!(run(&fs, &["tar", "cf", "/tmp/f.tar", "f"]).code, 0);
    fs.remove_file("/workspace/f").unwrap();
    fs.write("/tmp/precious", b"keep me").unwrap();
    fs.symlink("/tmp/precious", "/workspace/f").unwrap();
    let x = run(&fs, &["tar", "xf", "/tmp/f.tar"]);
    assert_eq!(x.code, 0);
    assert_eq!(fs.read("/tmp/precious").unwrap(), b"keep me");
    assert_eq!(
        fs.symlink_metadata("/workspace/f").unwrap().kind,
        FileKind::File
    );
    assert_eq!(fs.read("/workspace/f").unwrap(), b"archived");
    // -k keeps existing files, with GNU's error
    fs.write("/workspace/f", b"local").unwrap();
    let x = run(&fs, &["tar", "xkf", "/tmp/f.tar"]);
    assert_eq!(x.code, 2);
    assert!(x.stderr.contains("tar: f: Cannot open: File exists"));
    assert_eq!(fs.read("/workspace/f").unwrap(), b"local");
}

#[test]
fn tar_slips_stay_inside() {
    let fs = new_fs();
    fs.mkdir_all("/workspace/target").unwrap();
    let before: Vec<String> = fs
        .read_dir("/")
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    let evil = raw_tar(&[
        ("../evil", b'0', "", b"x"),
        ("/etc/x", b'0', "", b"abs"),
        ("a/../../b", b'0', "", b"x"),
        ("ok", b'0', "", b"fine"),
        ("lnk", b'2', "/etc", b""),
        ("rel", b'2', "../../tmp", b""),
        ("lnk/pwn", b'0', "", b"pwned"),
        ("rel/pwn2", b'0', "", b"pwned"),
        ("hl", b'1', "../../etc/hostname", b""),
    ]);
    fs.write("/tmp/evil.tar", &evil).unwrap();
    let x = run_in(
        &fs,
        "/workspace/target",
        &["tar", "xf", "/tmp/evil.tar"],
        b"",
    );
    assert_eq!(x.code, 2);
    let err = x.stderr;
    for expected in [
        "tar: Removing leading `../' from member names",
        "tar: ../evil: Member name contains '..'",
        "tar: Removing leading `/' from member names",
        "tar: a/../../b: Member name contains '..'",
        "tar: lnk/pwn: Cannot open: Not a directory",
        "tar: rel/pwn2: Cannot open: Not a directory",
        "tar: Exiting with failure status due to previous errors",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in\n{err}");
    }
    assert!(!fs.exists("/workspace/evil") && !fs.exists("/evil") && !fs.exists("/b"));
    assert_eq!(fs.read("/workspace/target/etc/x").unwrap(), b"abs");
    assert_eq!(fs.read("/workspace/target/ok").unwrap(), b"fine");
    assert!(!fs.exists("/etc/pwn") && !fs.exists("/tmp/pwn2"));
    assert_eq!(fs.read("/etc/hostname").unwrap(), b"sandbox\n");
    // the symlinks themselves are created at the end, as GNU does
    assert_eq!(fs.read_link("/workspace/target/lnk").unwrap(), "/etc");
    assert_eq!(fs.read_link("/workspace/target/rel").unwrap(), "../../tmp");
    let after: Vec<String> = fs
        .read_dir("/")
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(before, after);
    // a pre-existing symlink out of the target is not followed either
    fs.mkdir_all("/workspace/t2").unwrap();
    fs.symlink("/tmp", "/workspace/t2/out").unwrap();
    fs.write("/tmp/through.tar", &raw_tar(&[("out/x", b'0', "", b"no")]))
        .unwrap();
    let x = run_in(
        &fs,
        "/workspace/t2",
        &["tar", "xf", "/tmp/through.tar"],
        b"",
    );
    assert_eq!(x.code, 2);
    assert!(!fs.exists("/tmp/x"));
    // -P keeps absolute names (still inside the sandbox)
    fs.write("/tmp/abs.tar", &raw_tar(&[("/tmp/abs-ok", b'0', "", b"p")]))
        .unwrap();
    let x = run(&fs, &["tar", "xPf", "/tmp/abs.tar"]);
    assert_eq!(x.code, 0, "{}", x.stderr);
    assert_eq!(fs.read("/tmp/abs-ok").unwrap(), b"p");
}

#[test]
fn busybox_style_ustar_with_prefix_field() {
    let fs = new_fs();
    // Longer than the 100-byte name field: ustar splits it into prefix/name.
    let long_dir = format!("{}/{}", "d".repeat(80), "e".repeat(40));
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_ustar();
    h.set_mode(0o750);
    h.set_mtime(1_000_000);
    h.set_entry_type(tar::EntryType::Directory);
    h.set_size(0);
    h.set_path(&long_dir).unwrap();
    h.set_cksum();
    b.append(&h, &b""[..]).unwrap();
    let mut h = tar::Header::new_ustar();
    h.set_mode(0o600);
    h.set_mtime(1_000_000);
    h.set_size(5);
    h.set_path(format!("{long_dir}/file.txt")).unwrap();
    h.set_cksum();
    b.append(&h, &b"hello"[..]).unwrap();
    let data = b.into_inner().unwrap();
    fs.write("/tmp/bb.tar", &data).unwrap();
    let x = run(&fs, &["tar", "xf", "/tmp/bb.tar"]);
    assert_eq!(x.code, 0, "{}", x.stderr);
    let p = format!("/workspace/{long_dir}/file.txt");
    assert_eq!(fs.read(&p).unwrap(), b"hello");
    assert_eq!(fs.metadata(&p).unwrap().mode, 0o600);
    assert_eq!(
        fs.metadata(&format!("/workspace/{long_dir}")).unwrap().mode,
        0o750
    );
    assert_eq!(fs.metadata(&p).unwrap().mtime.secs, 1_000_000);
}

#[test]
fn long_names_round_trip() {
    let fs = new_fs();
    let deep = format!("/workspace/{}/{}", "x".repeat(90), "y".repeat(90));
    fs.mkdir_all(&deep).unwrap();
    fs.write(&format!("{deep}/file"), b"deep").unwrap();
    fs.symlink(&format!("{deep}/file"), "/workspace/longlink")
        .unwrap();
    assert_eq!(run(&fs, &["tar", "czf", "/tmp/long.tgz", "."]).code, 0);
    let fresh = new_fs();
    fresh
        .write("/tmp/long.tgz", &fs.read("/tmp/long.tgz").unwrap())
        .unwrap();
    let x = run(&fresh, &["tar", "xzf", "/tmp/long.tgz"]);
    assert_eq!(x.code, 0, "{}", x.stderr);
    assert_eq!(fresh.read(&format!("{deep}/file")).unwrap(), b"deep");
    assert_eq!(
        fresh.read_link("/workspace/longlink").unwrap(),
        format!("{deep}/file")
    );
}

#[test]
fn hard_links_are_archived_once() {
    let fs = new_fs();
    fs.write("/workspace/one", b"same").unwrap();
    fs.hard_link("/workspace/one", "/workspace/two").unwrap();
    assert_eq!(run(&fs, &["tar", "cf", "/tmp/h.tar", "one", "two"]).code, 0);
    let t = run(&fs, &["tar", "tvf", "/tmp/h.tar"]);
    assert!(
        t.stdout
            .lines()
            .nth(1)
            .unwrap()
            .ends_with("two link to one"),
        "{}",
        t.stdout
    );
    let fresh = new_fs();
    fresh
        .write("/tmp/h.tar", &fs.read("/tmp/h.tar").unwrap())
        .unwrap();
    assert_eq!(run(&fresh, &["tar", "xf", "/tmp/h.tar"]).code, 0);
    assert_eq!(fresh.metadata("/workspace/two").unwrap().nlink, 2);
    assert_eq!(fresh.read("/workspace/two").unwrap(), b"same");
}

#[test]
fn gzip_gunzip_zcat() {
    let fs = new_fs();
    fs.write("/workspace/f.txt", b"hello hello hello\n")
        .unwrap();
    fs.set_mode("/workspace/f.txt", 0o600).unwrap();
    fs.set_mtime(
        "/workspace/f.txt",
        Timestamp {
            secs: 1_000_000,
            nanos: 0,
        },
    )
    .unwrap();
    let g = run(&fs, &["gzip", "f.txt"]);
    assert_eq!((g.code, g.stderr.as_str()), (0, ""));
    assert!(!fs.exists("/workspace/f.txt"));
    let m = fs.metadata("/workspace/f.txt.gz").unwrap();
    assert_eq!((m.mode, m.mtime.secs), (0o600, 1_000_000));
    let z = run(&fs, &["zcat", "f.txt.gz"]);
    assert_eq!((z.code, z.stdout.as_str()), (0, "hello hello hello\n"));
    let z = run(&fs, &["zcat", "f.txt"]);
    assert_eq!(z.stdout, "hello hello hello\n", "zcat finds NAME.gz");
    let d = run(&fs, &["gunzip", "f.txt.gz"]);
    assert_eq!(d.code, 0);
    assert_eq!(fs.read("/workspace/f.txt").unwrap(), b"hello hello hello\n");
    assert!(!fs.exists("/workspace/f.txt.gz"));
    assert_eq!(
        fs.metadata("/workspace/f.txt").unwrap().mtime.secs,
        1_000_000
    );
    // -k keeps, and a second run refuses to overwrite without -f
    assert_eq!(run(&fs, &["gzip", "-k", "f.txt"]).code, 0);
    assert!(fs.exists("/workspace/f.txt") && fs.exists("/workspace/f.txt.gz"));
    let again = run(&fs, &["gzip", "-k", "f.txt"]);
    assert_eq!(
        (again.code, again.stderr.as_str()),
        (2, "gzip: f.txt.gz already exists;\tnot overwritten\n")
    );
    assert_eq!(run(&fs, &["gzip", "-kf", "f.txt"]).code, 0);
    let suf = run(&fs, &["gzip", "f.txt.gz"]);
    assert_eq!(
        (suf.code, suf.stderr.as_str()),
        (2, "gzip: f.txt.gz already has .gz suffix -- unchanged\n")
    );
    let missing = run(&fs, &["gzip", "nope"]);
    assert_eq!(
        (missing.code, missing.stderr.as_str()),
        (1, "gzip: nope: No such file or directory\n")
    );
    let missing = run(&fs, &["gunzip", "nope"]);
    assert_eq!(missing.stderr, "gzip: nope.gz: No such file or directory\n");
    let dir = run(&fs, &["gzip", "/tmp"]);
    assert_eq!(
        (dir.code, dir.stderr.as_str()),
        (2, "gzip: /tmp is a directory -- ignored\n")
    );
    fs.write("/workspace/bad.gz", b"zz\n").unwrap();
    let bad = run(&fs, &["gunzip", "bad.gz"]);
    assert_eq!(
        (bad.code, bad.stderr.as_str()),
        (1, "gzip: bad.gz: not in gzip format\n")
    );
    let unk = run(&fs, &["gunzip", "f.txt"]);
    assert_eq!(
        (unk.code, unk.stderr.as_str()),
        (2, "gzip: f.txt: unknown suffix -- ignored\n")
    );
    // stdin to stdout, and -c keeps the file
    let c = run_in(&fs, "/workspace", &["gzip"], b"piped\n");
    let d = run_in(&fs, "/workspace", &["gzip", "-d"], &c.stdout_bytes);
    assert_eq!(d.stdout, "piped\n");
    let c = run(&fs, &["gzip", "-c", "f.txt"]);
    assert_eq!(c.code, 0);
    assert!(fs.exists("/workspace/f.txt"));
    let d = run_in(&fs, "/", &["gunzip", "-c"], &c.stdout_bytes);
    assert_eq!(d.stdout, "hello hello hello\n");
    // x.tgz -> x.tar
    fs.write("/workspace/x.tgz", &c.stdout_bytes).unwrap();
    assert_eq!(run(&fs, &["gunzip", "x.tgz"]).code, 0);
    assert!(fs.exists("/workspace/x.tar"));
}

#[test]
fn a_thousand_files_pack_quickly() {
    let fs = new_fs();
    for i in 0..1000 {
        let dir = format!("/workspace/d{}", i % 10);
        if i < 10 {
            fs.mkdir(&dir, 0o755).unwrap();
        }
        let content = format!("content of file {i}\n");
        fs.write(&format!("{dir}/file{i}.txt"), content.as_bytes())
            .unwrap();
    }
    // best of a few runs: the machine is shared
    let best = |f: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let start = std::time::Instant::now();
                f();
                start.elapsed()
            })
            .min()
            .unwrap()
    };
    let pack = best(&mut || {
        assert_eq!(
            run(&fs, &["tar", "czf", "/tmp/ws.tgz", "-C", ".", "."]).code,
            0
        )
    });
    let list = best(&mut || {
        let t = run(&fs, &["tar", "tzf", "/tmp/ws.tgz"]);
        assert_eq!(t.stdout.lines().count(), 1 + 10 + 1000);
    });
    let archive = fs.read("/tmp/ws.tgz").unwrap();
    let unpack = best(&mut || {
        let fresh = new_fs();
        fresh.write("/tmp/ws.tgz", &archive).unwrap();
        assert_eq!(run(&fresh, &["tar", "xzf", "/tmp/ws.tgz"]).code, 0);
        assert_eq!(
            fresh.read("/workspace/d7/file567.txt").unwrap(),
            b"content of file 567\n"
        );
    });
    eprintln!("1,000 files: pack {pack:?}, list {list:?}, unpack {unpack:?}");
}
