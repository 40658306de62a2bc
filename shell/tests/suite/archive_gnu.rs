//! Differential tests of `tar` and `gzip` against GNU tar 1.34 and GNU gzip
//! on the host: archives made by one are read by the other, listings,
//! member names, exclusions, messages and extracted trees agree. Each test
//! skips with a message when the host tool is missing.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use crate::support::archive::*;

/// Copies a virtual directory onto the host.
fn export(fs: &Fs, vdir: &str, host_dir: &Path) {
    for e in fs.read_dir(vdir).unwrap() {
        let vp = format!("{vdir}/{}", e.name);
        let hp = host_dir.join(&e.name);
        match e.kind {
            FileKind::Dir => {
                std::fs::create_dir_all(&hp).unwrap();
                export(fs, &vp, &hp);
            }
            FileKind::File => std::fs::write(&hp, fs.read(&vp).unwrap()).unwrap(),
            FileKind::Symlink => {
                std::os::unix::fs::symlink(fs.read_link(&vp).unwrap(), &hp).unwrap()
            }
            FileKind::CharDevice | FileKind::Fifo => {}
        }
    }
}

#[test]
fn gnu_tar_reads_our_archives() {
    if !has("tar") {
        eprintln!("skipped: no tar on the host");
        return;
    }
    let fs = new_fs();
    populate(&fs);
    fs.write(&format!("/workspace/{}", "n".repeat(150)), b"long name")
        .unwrap();
    let c = run(
        &fs,
        &[
            "tar",
            "czf",
            "/tmp/ours.tgz",
            "-C",
            "/workspace",
            "--exclude=./mindlog.jsonl",
            ".",
        ],
    );
    assert_eq!(c.code, 0);
    let tmp = TempDir::new("ours");
    let archive = tmp.0.join("ours.tgz");
    std::fs::write(&archive, fs.read("/tmp/ours.tgz").unwrap()).unwrap();
    // same listing, short and long
    let gnu = host("tar", &["tzf", archive.to_str().unwrap()], &tmp.0);
    assert!(
        gnu.status.success(),
        "{}",
        String::from_utf8_lossy(&gnu.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&gnu.stdout),
        run(&fs, &["tar", "tzf", "/tmp/ours.tgz"]).stdout
    );
    let gnu = host("tar", &["tvzf", archive.to_str().unwrap()], &tmp.0);
    assert_eq!(
        String::from_utf8_lossy(&gnu.stdout),
        run(&fs, &["tar", "tvzf", "/tmp/ours.tgz"]).stdout
    );
    // extraction gives the same bytes, modes and links
    let out = tmp.0.join("out");
    std::fs::create_dir(&out).unwrap();
    let gnu = host(
        "tar",
        &[
            "xzf",
            archive.to_str().unwrap(),
            "-C",
            out.to_str().unwrap(),
        ],
        &tmp.0,
    );
    assert!(
        gnu.status.success(),
        "{}",
        String::from_utf8_lossy(&gnu.stderr)
    );
    assert_eq!(
        std::fs::read(out.join("sub/deeper/c.log")).unwrap(),
        b"charlie\n"
    );
    assert_eq!(
        std::fs::read(out.join("n".repeat(150))).unwrap(),
        b"long name"
    );
    assert_eq!(
        std::fs::read_link(out.join("link")).unwrap(),
        Path::new("a.txt")
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(out.join("run.sh"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o755
    );
    assert!(!out.join("mindlog.jsonl").exists());
    let mtime = std::fs::metadata(out.join("a.txt"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        mtime
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
        1_600_000_000
    );
}

#[test]
fn we_read_gnu_tar_archives() {
    if !has("tar") {
        eprintln!("skipped: no tar on the host");
        return;
    }
    let tmp = TempDir::new("gnu");
    let src = tmp.0.join("src");
    std::fs::create_dir_all(src.join("dir/inner")).unwrap();
    std::fs::write(src.join("dir/inner/f.txt"), b"inner\n").unwrap();
    std::fs::write(src.join("top.txt"), b"top\n").unwrap();
    let long = "L".repeat(130);
    std::fs::write(src.join(&long), b"long\n").unwrap();
    std::os::unix::fs::symlink("dir/inner", src.join("sl")).unwrap();
    std::fs::write(src.join("exe"), b"#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(src.join("exe"), std::fs::Permissions::from_mode(0o755)).unwrap();
    Command::new("touch")
        .args(["-d", "@1500000000"])
        .arg(src.join("top.txt"))
        .status()
        .unwrap();
    for (args, name) in [
        (&["-czf"][..], "g.tgz"),
        (&["--format=ustar", "-cf"][..], "u.tar"),
        (&["--format=pax", "-cf"][..], "p.tar"),
    ] {
        let archive = tmp.0.join(name);
        let mut a: Vec<&str> = args.to_vec();
        a.push(archive.to_str().unwrap());
        a.extend(["-C", src.to_str().unwrap(), "."]);
        let o = host("tar", &a, &tmp.0);
        if !o.status.success() {
            // ustar can't hold the 130-byte name: GNU refuses that member only.
            assert_eq!(name, "u.tar", "{}", String::from_utf8_lossy(&o.stderr));
        }
        let fs = new_fs();
        fs.write(&format!("/tmp/{name}"), &std::fs::read(&archive).unwrap())
            .unwrap();
        let gnu_list = host("tar", &["tvf", archive.to_str().unwrap()], &tmp.0);
        let ours = run(&fs, &["tar", "tvf", &format!("/tmp/{name}")]);
        assert_eq!(ours.code, 0, "{name}: {}", ours.stderr);
        assert_eq!(
            ours.stdout,
            String::from_utf8_lossy(&gnu_list.stdout),
            "{name}"
        );
        let x = run(&fs, &["tar", "xf", &format!("/tmp/{name}")]);
        assert_eq!(x.code, 0, "{name}: {}", x.stderr);
        assert_eq!(fs.read("/workspace/dir/inner/f.txt").unwrap(), b"inner\n");
        assert_eq!(fs.read_link("/workspace/sl").unwrap(), "dir/inner");
        assert_eq!(fs.metadata("/workspace/exe").unwrap().mode, 0o755);
        assert_eq!(
            fs.metadata("/workspace/top.txt").unwrap().mtime.secs,
            1_500_000_000
        );
        if name != "u.tar" {
            assert_eq!(fs.read(&format!("/workspace/{long}")).unwrap(), b"long\n");
        }
    }
}

#[test]
fn excludes_match_gnu_tar() {
    if !has("tar") {
        eprintln!("skipped: no tar on the host");
        return;
    }
    let fs = new_fs();
    populate(&fs);
    fs.mkdir_all("/workspace/x/y").unwrap();
    fs.write("/workspace/x/y/x", b"").unwrap();
    fs.write("/workspace/.hidden", b"").unwrap();
    let tmp = TempDir::new("ex");
    let src = tmp.0.join("src");
    std::fs::create_dir(&src).unwrap();
    export(&fs, "/workspace", &src);
    let patterns = [
        "./mindlog.jsonl",
        "mindlog.jsonl",
        "*.log",
        "sub",
        "./sub",
        "sub/deeper",
        "x",
        "./x",
        "x/*",
        "*x",
        "./*",
        "sub/",
        ".",
        "?",
        "*.txt",
        "[ab].txt",
        ".hidden",
        "deeper/c.log",
        "nothing",
    ];
    for p in patterns {
        let ex = format!("--exclude={p}");
        let gnu = host(
            "tar",
            &["cf", "-", "-C", src.to_str().unwrap(), &ex, "."],
            &tmp.0,
        );
        let archive = tmp.0.join("x.tar");
        std::fs::write(&archive, &gnu.stdout).unwrap();
        let mut gnu_names: Vec<String> = if gnu.stdout.is_empty() {
            Vec::new()
        } else {
            let l = host("tar", &["tf", archive.to_str().unwrap()], &tmp.0);
            String::from_utf8_lossy(&l.stdout)
                .lines()
                .map(String::from)
                .collect()
        };
        gnu_names.sort();
        let ours = run(
            &fs,
            &["tar", "cf", "/tmp/x.tar", "-C", "/workspace", &ex, "."],
        );
        assert_eq!(ours.code, 0);
        let mut our_names: Vec<String> = run(&fs, &["tar", "tf", "/tmp/x.tar"])
            .stdout
            .lines()
            .map(String::from)
            .collect();
        our_names.sort();
        assert_eq!(our_names, gnu_names, "--exclude={p}");
    }
    // exclusion while listing/extracting, against GNU on one archive
    assert_eq!(run(&fs, &["tar", "cf", "/tmp/all.tar", "."]).code, 0);
    let all = tmp.0.join("all.tar");
    std::fs::write(&all, fs.read("/tmp/all.tar").unwrap()).unwrap();
    for p in ["sub", "*.txt", "./x", "x", "."] {
        let ex = format!("--exclude={p}");
        let gnu = host("tar", &["tf", all.to_str().unwrap(), &ex], &tmp.0);
        let ours = run(&fs, &["tar", "tf", "/tmp/all.tar", &ex]);
        assert_eq!(
            ours.stdout,
            String::from_utf8_lossy(&gnu.stdout),
            "list {ex}"
        );
    }
}

#[test]
fn slip_messages_match_gnu_tar() {
    if !has("tar") {
        eprintln!("skipped: no tar on the host");
        return;
    }
    let evil = raw_tar(&[
        ("../evil", b'0', "", b"x"),
        ("/abs/x", b'0', "", b"abs"),
        ("ok", b'0', "", b"fine"),
        ("x/../y", b'0', "", b"x"),
        ("//dbl/q", b'0', "", b"q"),
    ]);
    let tmp = TempDir::new("slip");
    let archive = tmp.0.join("evil.tar");
    std::fs::write(&archive, &evil).unwrap();
    let out = tmp.0.join("out");
    std::fs::create_dir(&out).unwrap();
    let gnu = host(
        "tar",
        &[
            "xvf",
            archive.to_str().unwrap(),
            "-C",
            out.to_str().unwrap(),
        ],
        &tmp.0,
    );
    let fs = new_fs();
    fs.write("/tmp/evil.tar", &evil).unwrap();
    let ours = run(&fs, &["tar", "xvf", "/tmp/evil.tar"]);
    assert_eq!(ours.code, gnu.status.code().unwrap());
    assert_eq!(ours.stdout, String::from_utf8_lossy(&gnu.stdout));
    assert_eq!(ours.stderr, String::from_utf8_lossy(&gnu.stderr));
    let gnu = host("tar", &["tf", archive.to_str().unwrap()], &tmp.0);
    let ours = run(&fs, &["tar", "tf", "/tmp/evil.tar"]);
    assert_eq!(
        (ours.stdout.as_str(), ours.code),
        (&*String::from_utf8_lossy(&gnu.stdout), 0)
    );
    assert_eq!(ours.stderr, String::from_utf8_lossy(&gnu.stderr));
}

#[test]
fn gzip_interoperates_with_gnu_gzip() {
    if !has("gzip") {
        eprintln!("skipped: no gzip on the host");
        return;
    }
    let fs = new_fs();
    let text: Vec<u8> = (0..5000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    fs.write("/workspace/data", &text).unwrap();
    let c = run(&fs, &["gzip", "-c", "data"]);
    let tmp = TempDir::new("gz");
    std::fs::write(tmp.0.join("data.gz"), &c.stdout_bytes).unwrap();
    let o = host("gzip", &["-dc", "data.gz"], &tmp.0);
    assert!(o.status.success());
    assert_eq!(o.stdout, text);
    let o = host("gzip", &["-lN", "data.gz"], &tmp.0);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("data"),
        "original name stored"
    );
    std::fs::write(tmp.0.join("plain"), &text).unwrap();
    let o = host("gzip", &["-9c", "plain"], &tmp.0);
    let d = run_in(&fs, "/", &["zcat"], &o.stdout);
    assert_eq!((d.code, d.stdout_bytes), (0, text));
}

#[test]
fn gzip_option_errors_match_gnu_gzip() {
    if !has("gzip") {
        eprintln!("skipped: no gzip on the host");
        return;
    }
    let fs = new_fs();
    let tmp = TempDir::new("gzopts");
    // Abbreviations, ambiguities with GNU's list of possibilities, digit
    // options, missing and unwanted arguments; gunzip and zcat report as gzip.
    let cases: &[&[&str]] = &[
        &["gzip", "-x"],
        &["gzip", "-10"],
        &["gzip", "-0"],
        &["gzip", "--bogus"],
        &["gzip", "-S"],
        &["gzip", "--suffix"],
        &["gzip", "--f"],
        &["gzip", "--n"],
        &["gzip", "--s"],
        &["gzip", "--l"],
        &["gzip", "--b"],
        &["gzip", "--fast=3"],
        &["gzip", "--stdout=x"],
        &["gzip", "--u", "-x"],
        &["gzip", "--", "-x"],
        &["gunzip", "--bogus"],
        &["gunzip", "-cS"],
        &["zcat", "-x"],
        &["zcat", "--un", "--q", "-x"],
    ];
    for args in cases {
        let gnu = host(args[0], &args[1..], &tmp.0);
        let ours = run(&fs, args);
        assert_eq!(
            (ours.code, ours.stderr.as_str()),
            (
                gnu.status.code().unwrap(),
                &*String::from_utf8_lossy(&gnu.stderr)
            ),
            "{args:?}"
        );
    }
    // Spellings that compress: GNU gzip reads what they write.
    let text = b"some text\n".repeat(100);
    let spellings: &[&[&str]] = &[
        &["gzip", "--fa", "--to"],
        &["gzip", "-19", "--st"],
        &["gzip", "--silent", "--best"],
        &["gzip", "-c2", "--no-n", "--na"],
    ];
    for args in spellings {
        let ours = run_in(&fs, "/workspace", args, &text);
        assert_eq!((ours.code, ours.stderr.as_str()), (0, ""), "{args:?}");
        std::fs::write(tmp.0.join("o.gz"), &ours.stdout_bytes).unwrap();
        let o = host("gzip", &["-dc", "o.gz"], &tmp.0);
        assert_eq!(o.stdout, text, "{args:?}");
    }
}

/// `path kind detail` lines for everything below a host directory.
fn host_tree(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for e in read_dir_sorted(dir) {
        let name = format!("{prefix}{}", e.file_name().to_string_lossy());
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            out.push(format!(
                "{name} -> {}",
                std::fs::read_link(e.path()).unwrap().display()
            ));
        } else if ft.is_dir() {
            out.push(format!("{name}/"));
            host_tree(&e.path(), &format!("{name}/"), out);
        } else {
            out.push(format!(
                "{name} = {:?}",
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap())
            ));
        }
    }
}

/// The same lines for a virtual directory.
fn fs_tree(fs: &Fs, dir: &str, prefix: &str, out: &mut Vec<String>) {
    for e in fs.read_dir(dir).unwrap() {
        let name = format!("{prefix}{}", e.name);
        let path = format!("{dir}/{}", e.name);
        match e.kind {
            FileKind::Symlink => out.push(format!("{name} -> {}", fs.read_link(&path).unwrap())),
            FileKind::Dir => {
                out.push(format!("{name}/"));
                fs_tree(fs, &path, &format!("{name}/"), out);
            }
            _ => out.push(format!(
                "{name} = {:?}",
                String::from_utf8_lossy(&fs.read(&path).unwrap())
            )),
        }
    }
}

/// Extracts `archive` with GNU tar and with ours; the trees, the exit
/// status and stdout must agree.
fn extract_like_gnu(archive: &[u8], args: &[&str]) {
    let tmp = TempDir::new("cmp");
    std::fs::write(tmp.0.join("a.tar"), archive).unwrap();
    let out = tmp.0.join("out");
    std::fs::create_dir(&out).unwrap();
    let mut gnu_args = args.to_vec();
    gnu_args.extend(["-f", "../a.tar"]);
    let gnu = host("tar", &gnu_args, &out);
    let mut gnu_tree = Vec::new();
    host_tree(&out, "", &mut gnu_tree);

    let fs = new_fs();
    fs.mkdir("/workspace/out", 0o755).unwrap();
    fs.write("/workspace/a.tar", archive).unwrap();
    let mut our_args = vec!["tar"];
    our_args.extend(args);
    our_args.extend(["-f", "../a.tar"]);
    let ours = run_in(&fs, "/workspace/out", &our_args, b"");
    let mut our_tree = Vec::new();
    fs_tree(&fs, "/workspace/out", "", &mut our_tree);
    assert_eq!(our_tree, gnu_tree, "{args:?}");
    assert_eq!(
        Some(ours.code),
        gnu.status.code(),
        "{args:?}: {}",
        ours.stderr
    );
    assert_eq!(ours.stdout, String::from_utf8_lossy(&gnu.stdout));
}

#[test]
fn extraction_trees_match_gnu_tar() {
    if !has("tar") {
        eprintln!("skipped: no tar on the host");
        return;
    }
    // a symlink to a directory, written through, then replaced by a directory
    let relink = raw_tar(&[
        ("real/", b'5', "", b""),
        ("lnk", b'2', "real", b""),
        ("lnk/x", b'0', "", b"x"),
        ("lnk/", b'5', "", b""),
        ("lnk/y", b'0', "", b"y"),
    ]);
    extract_like_gnu(&relink, &["-x"]);
    // slips: .., absolute, symlink-then-file
    let evil = raw_tar(&[
        ("../evil", b'0', "", b"x"),
        ("/abs/x", b'0', "", b"abs"),
        ("lnk", b'2', "/tmp", b""),
        ("lnk/pwn", b'0', "", b"pwned"),
        ("rel", b'2', "../..", b""),
        ("rel/pwn2", b'0', "", b"pwned"),
        ("ok/fine", b'0', "", b"fine"),
    ]);
    extract_like_gnu(&evil, &["-xv"]);
    // a file replacing a file and a symlink; strip-components; hard links
    let mixed = raw_tar(&[
        ("top/a", b'0', "", b"1"),
        ("top/a", b'0', "", b"2"),
        ("top/l", b'2', "a", b""),
        ("top/l", b'0', "", b"now a file"),
        ("top/h", b'1', "top/a", b""),
        ("top/sub/deep", b'0', "", b"d"),
    ]);
    extract_like_gnu(&mixed, &["-x"]);
    extract_like_gnu(&mixed, &["-x", "--strip-components=1"]);
    extract_like_gnu(&mixed, &["-xv", "--exclude=sub"]);
}

#[test]
fn member_names_match_gnu_tar() {
    if !has("tar") {
        eprintln!("skipped: no tar on the host");
        return;
    }
    let fs = new_fs();
    populate(&fs);
    let tmp = TempDir::new("names");
    let ws = tmp.0.join("workspace");
    std::fs::create_dir(&ws).unwrap();
    export(&fs, "/workspace", &ws);
    let forms: &[&[&str]] = &[
        &["."],
        &["sub"],
        &["sub/"],
        &["./sub"],
        &["sub//deeper", "a.txt"],
        &["link", "run.sh"],
        &["-C", "sub", ".", "-C", "deeper", "c.log"],
        &["missing", "a.txt"],
    ];
    for form in forms {
        // GNU lists directories in readdir order unless asked to sort.
        let mut gnu_args = vec!["--sort=name", "-cf", "../out.tar"];
        gnu_args.extend(form.iter());
        let gnu = host("tar", &gnu_args, &ws);
        let gnu_list = host("tar", &["tf", "out.tar"], &tmp.0);
        let mut our_args = vec!["tar", "cf", "/tmp/out.tar"];
        our_args.extend(form.iter());
        let ours = run(&fs, &our_args);
        let our_list = run(&fs, &["tar", "tf", "/tmp/out.tar"]);
        assert_eq!(Some(ours.code), gnu.status.code(), "{form:?}");
        assert_eq!(
            ours.stderr,
            String::from_utf8_lossy(&gnu.stderr),
            "{form:?}"
        );
        assert_eq!(
            our_list.stdout,
            String::from_utf8_lossy(&gnu_list.stdout),
            "{form:?}"
        );
    }
    // absolute operands lose their leading slash, with GNU's message
    let ours = run(&fs, &["tar", "cf", "/tmp/abs.tar", "/workspace/sub/b.txt"]);
    assert_eq!(ours.stderr, "tar: Removing leading `/' from member names\n");
    assert_eq!(
        run(&fs, &["tar", "tf", "/tmp/abs.tar"]).stdout,
        "workspace/sub/b.txt\n"
    );
}

/// GNU tar and ours agree on hard links and FIFOs both ways: our archive of
/// a tree with a twice-linked file lists like GNU's own archive of the same
/// tree (link members after the first name), GNU extracting ours makes one
/// inode with two names, and ours extracting GNU's does too.
#[test]
fn hard_links_and_fifos_cross_gnu_tar() {
    if !has("tar") {
        eprintln!("skipped: no tar on the host");
        return;
    }
    use std::os::unix::fs::MetadataExt;
    let fs = new_fs();
    fs.mkdir_all("/workspace/d/sub").unwrap();
    fs.write("/workspace/d/a", b"shared\n").unwrap();
    fs.hard_link("/workspace/d/a", "/workspace/d/sub/b")
        .unwrap();
    fs.hard_link("/workspace/d/a", "/workspace/d/c").unwrap();
    fs.mkfifo("/workspace/d/p", 0o640).unwrap();
    let ours = run(
        &fs,
        &["tar", "cf", "/tmp/ours.tar", "-C", "/workspace", "d"],
    );
    assert_eq!(ours.code, 0, "{}", ours.stderr);

    // The same tree on the host, archived by GNU tar.
    let tmp = TempDir::new("links");
    let src = tmp.0.join("src");
    std::fs::create_dir_all(src.join("d/sub")).unwrap();
    std::fs::write(src.join("d/a"), b"shared\n").unwrap();
    std::fs::hard_link(src.join("d/a"), src.join("d/sub/b")).unwrap();
    std::fs::hard_link(src.join("d/a"), src.join("d/c")).unwrap();
    let mkfifo = host("mkfifo", &["-m", "640", "d/p"], &src);
    assert!(mkfifo.status.success());
    let gnu_tar = tmp.0.join("gnu.tar");
    let made = host(
        "tar",
        &["--sort=name", "-cf", gnu_tar.to_str().unwrap(), "d"],
        &src,
    );
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let ours_tar = tmp.0.join("ours.tar");
    std::fs::write(&ours_tar, fs.read("/tmp/ours.tar").unwrap()).unwrap();

    // Same members, types and link targets (owners and times differ).
    let list = |archive: &Path| {
        let o = host("tar", &["tvf", archive.to_str().unwrap()], &tmp.0);
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                format!("{} {} {}", f[0], f[2], f[5..].join(" "))
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(list(&ours_tar), list(&gnu_tar));

    // GNU extracting ours keeps one inode under three names, and the FIFO.
    let out = tmp.0.join("out");
    std::fs::create_dir(&out).unwrap();
    let x = host("tar", &["xf", ours_tar.to_str().unwrap()], &out);
    assert!(x.status.success(), "{}", String::from_utf8_lossy(&x.stderr));
    let a = std::fs::metadata(out.join("d/a")).unwrap();
    let b = std::fs::metadata(out.join("d/sub/b")).unwrap();
    assert_eq!((a.nlink(), a.ino()), (3, b.ino()));
    assert!(std::fs::symlink_metadata(out.join("d/p")).unwrap().mode() & 0o170000 == 0o010000);

    // Ours extracting GNU's does the same.
    let fs = new_fs();
    fs.write("/tmp/gnu.tar", &std::fs::read(&gnu_tar).unwrap())
        .unwrap();
    let x = run(&fs, &["tar", "xf", "/tmp/gnu.tar", "-C", "/tmp"]);
    assert_eq!(x.code, 0, "{}", x.stderr);
    let a = fs.metadata("/tmp/d/a").unwrap();
    let b = fs.metadata("/tmp/d/sub/b").unwrap();
    assert_eq!((a.nlink, a.ino), (3, b.ino));
    let p = fs.symlink_metadata("/tmp/d/p").unwrap();
    assert_eq!((p.kind, p.mode), (FileKind::Fifo, 0o640));
    fs.append("/tmp/d/c", b"more\n").unwrap();
    assert_eq!(fs.read("/tmp/d/sub/b").unwrap(), b"shared\nmore\n");
}
