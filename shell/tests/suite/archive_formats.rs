//! `bzip2`, `xz`, `zip` and `unzip` (issue 17) against the host's bzip2
//! 1.0.8, XZ Utils and Info-ZIP: a differential suite of one-line scripts
//! (stdout and status must agree, and ours must complain where the host
//! does), and round trips across the two sides: what ours compresses or
//! archives, the host tool reads back to the same bytes, and the other way
//! round. Each part skips with a note when a host tool is missing.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use crate::support::archive::*;
use crate::support::cases;
use crate::support::suite::Suite;

/// One case per line. Compressed bytes are compared only for bzip2 (the
/// same libbzip2 algorithm on both sides); xz and zip output is compared
/// once decompressed. zip's ratios are hidden where the two deflaters may
/// differ, and listing dates where the host's clock and ours differ.
const CASES: &str = r#"
# bzip2
printf hello | bzip2 | od -c
seq 1000 | bzip2 | od -c | tail -3
seq 1000 | bzip2 -1 | md5sum
seq 20000 | bzip2 -9 | md5sum
: | bzip2 | od -c
printf hello | bzip2 | bunzip2
printf hello | bzip2 | bzcat
printf hello | bzip2 | bzip2 -d
printf hello | bzip2 -c | bzip2 -dc
printf 'hello\n' > a; bzip2 a; ls; bzcat a.bz2
printf 'hello\n' > a; bzip2 -k a; ls; bunzip2 -c a.bz2
printf 'hello\n' > a; bzip2 -k a; bzip2 -k a; echo $?
printf 'hello\n' > a; bzip2 -k a; bzip2 -kf a; echo $?; ls
printf 'hello\n' > a; bzip2 a; bunzip2 a.bz2; ls; cat a
printf 'hello\n' > a; bzip2 a; bzip2 a.bz2; echo $?
printf 'hello\n' > a; bzip2 -k a; mv a.bz2 x.tbz2; bunzip2 x.tbz2; ls
printf 'hello\n' > a; cp a b; bunzip2 b; echo $?; ls
printf 'hello\n' > a; bzip2 -k a; bzip2 -t a.bz2; echo $?
printf 'hello\n' > a; bzip2 -k a; cat a.bz2 a.bz2 | bunzip2
printf 'hello\n' > a; bzip2 -k a; (cat a.bz2; echo junk) | bunzip2; echo $?
seq 5000 | bzip2 > s.bz2; head -c 200 s.bz2 > t.bz2; bzip2 -t t.bz2; echo $?
seq 5000 | bzip2 > s.bz2; head -c 200 s.bz2 | bunzip2 > /dev/null; echo $?
printf junk | bzip2 -d; echo $?
printf junk > j.bz2; bunzip2 j.bz2; echo $?; ls
: | bunzip2; echo $?
bzip2 nope; echo $?
mkdir d; bzip2 d; echo $?
bzip2 -x; echo $?
bzip2 --bogus; echo $?
printf 'hello\n' > a; bzip2 -q -k a; bzip2 -k -q a; echo $?
# xz
printf hello | xz | xz -d
printf hello | xz | unxz
printf hello | xz | xzcat
seq 20000 | xz | xz -d | md5sum
seq 20000 | xz -0 | xz -d | md5sum
seq 20000 | xz -9e | xzcat | md5sum
seq 20000 | xz -C crc32 | xz -d | md5sum
seq 20000 | xz -C sha256 | xz -d | md5sum
seq 20000 | xz -C none | xz -d | md5sum
: | xz | xz -d | wc -c
printf hello | xz -c | xz -dc
printf 'hello\n' > a; xz a; ls; xzcat a.xz
printf 'hello\n' > a; xz -k a; ls; unxz -c a.xz
printf 'hello\n' > a; xz -k a; xz -k a; echo $?
printf 'hello\n' > a; xz -k a; xz -kf a; echo $?; ls
printf 'hello\n' > a; xz a; unxz a.xz; ls; cat a
printf 'hello\n' > a; xz a; xz a.xz; echo $?
printf 'hello\n' > a; xz -k a; mv a.xz x.txz; unxz x.txz; ls
printf 'hello\n' > a; xz -k a; cp a.xz c; unxz c; echo $?
printf 'hello\n' > a; xz -k a; xz -t a.xz; echo $?
printf 'hello\n' > a; xz -k a; cat a.xz a.xz | xz -d
printf 'hello\n' > a; xz -k a; (cat a.xz; printf '\0\0\0\0'; cat a.xz) | xz -d
printf 'hello\n' > a; xz -k a; (cat a.xz; echo junk) | xz -d > /dev/null; echo $?
seq 5000 | xz > s.xz; head -c 200 s.xz > t.xz; xz -t t.xz; echo $?
printf junk | xz -d; echo $?
printf junk > j.xz; unxz j.xz; echo $?; ls
: | xz -d; echo $?
xz nope; echo $?
mkdir d; xz d; echo $?
xz -x; echo $?
xz -C md5; echo $?
xz -F lzip; echo $?
xz --help | head -2
# zip and unzip
printf 'hello\n' > a; zip t.zip a; unzip -p t.zip a
printf 'hello\n' > a; seq 1000 > b; zip t.zip a b | sed 's/(deflated.*/(deflated)/'; unzip -l t.zip | sed 's/20[0-9-]* [0-9:]*/DATE/'
printf 'hello\n' > a; seq 1000 > b; touch -d '2024-01-02 03:04:05' a b; zip -q t.zip a b; unzip -l t.zip
printf 'hello\n' > a; zip -q t a; ls
printf 'hello\n' > a; zip -q t.zip a; zip t.zip a
mkdir -p d/e; echo x > d/e/f; echo y > d/g; zip -qr t.zip d; unzip -l t.zip | awk '{print $1, $NF}' | sort
mkdir -p d/e; echo x > d/e/f; zip t.zip d | sed 's/(.*//'; unzip -l t.zip | awk '{print $1, $NF}'
mkdir -p d/e; echo x > d/e/f; zip -qrj t.zip d; unzip -l t.zip | awk '{print $1, $NF}'
mkdir -p d/e; echo x > d/e/f; zip -qrD t.zip d; unzip -l t.zip | awk '{print $1, $NF}'
mkdir d; echo x > d/a; cd d; zip -qr t.zip .; zip -r t.zip .; unzip -l t.zip | awk '{print $1, $NF}' | sort
mkdir d; echo x > d/a; zip -qr t.zip d; zip -r t.zip . | sed 's/(.*//' | sort; unzip -l t.zip | awk '{print $1, $NF}' | sort
printf 'hello\n' > a; zip t2 a nope; echo $?; unzip -l t2.zip | wc -l
zip t3 nope; echo $?; ls
seq 1000 > b; zip -0 t.zip b; unzip -p t.zip | md5sum
seq 1000 > b; zip -9 t.zip b | sed 's/(deflated.*/(deflated)/'; unzip -p t.zip | md5sum
printf 'hello\n' > a; seq 1000 > b; mkdir -p d/e; echo x > d/e/f; zip -qr t.zip a b d; mkdir o; cd o; unzip ../t.zip; echo $?; cat a; cat d/e/f; wc -l b
printf 'hello\n' > a; zip -q t.zip a; mkdir o; cd o; unzip -q ../t.zip; cat a
printf 'hello\n' > a; zip -q t.zip a; unzip t.zip < /dev/null; echo $?
printf 'hello\n' > a; zip -q t.zip a; echo changed > a; unzip -o t.zip; cat a
printf 'hello\n' > a; zip -q t.zip a; echo changed > a; unzip -n t.zip; echo $?; cat a
printf 'hello\n' > a; zip -q t.zip a; echo changed > a; echo y | unzip t.zip 2>/dev/null; cat a
printf 'hello\n' > a; zip -q t.zip a; echo changed > a; echo n | unzip t.zip 2>/dev/null; echo $?; cat a
printf 'hello\n' > a; seq 3 > b; zip -q t.zip a b; unzip -p t.zip
printf 'hello\n' > a; seq 3 > b; zip -q t.zip a b; unzip -p t.zip b
printf 'hello\n' > a; zip -q t.zip a; unzip -d x t.zip; cat x/a
printf 'hello\n' > a; zip -q t.zip a; unzip -qd x/y t.zip; cat x/y/a
mkdir -p d/e; echo x > d/e/f; zip -qr t.zip d; unzip -j t.zip -d o; ls o
printf 'hello\n' > a; seq 3 > b; zip -q t.zip a b; mkdir o; cd o; unzip ../t.zip 'b*'; ls
printf 'hello\n' > a; zip -q t.zip a; unzip t.zip nomatch; echo $?
printf 'hello\n' > a; zip -q t.zip a; unzip t; echo $?
printf 'hello\n' > a; zip -q t.zip a; unzip -t t.zip; echo $?
printf 'hello\n' > a; zip -q t.zip a; unzip -tq t.zip; echo $?
printf 'hello\n' > a; chmod 751 a; zip -q t.zip a; mkdir o; unzip -q t.zip -d o; ls -l o/a | cut -c1-10
printf 'hello\n' > a; touch -d '2024-01-02 03:04:06' a; zip -q t.zip a; mkdir o; unzip -q t.zip -d o; ls -l --time-style=+%F_%T o/a | awk '{print $6}'
unzip nope.zip; echo $?
echo junk > j.zip; unzip j.zip; echo $?
printf 'hello\n' > a; zip -q t.zip a; head -c 21 t.zip > c.zip; unzip -t c.zip; echo $?
"#;

/// The host programs a case runs.
fn tools(case: &str) -> Vec<&'static str> {
    ["bzip2", "xz", "zip", "unzip"]
        .into_iter()
        .filter(|t| case.contains(&format!("{t} ")) || case.contains(&format!("{t};")))
        .collect()
}

#[test]
fn compressors_match_host_tools() {
    let mut suite = Suite::of_gnu_tools("archive_formats");
    for case in cases::lines(CASES) {
        let label = format!("archive_formats :: {case}");
        if let Some(t) = tools(case).into_iter().find(|t| !has(t))
            && suite.have_bash()
        {
            suite.skip(&label, &format!("no {t} on this host"));
        } else {
            suite.run(&label, case);
        }
    }
    suite.finish();
}

/// Sample inputs: empty, tiny, repetitive, and bytes of every value.
fn samples() -> Vec<Vec<u8>> {
    let mut mixed = Vec::new();
    for i in 0..200_000u32 {
        mixed.push((i.wrapping_mul(2_654_435_761) >> 13) as u8);
    }
    let text: Vec<u8> = (1..20_000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    vec![Vec::new(), b"hello\n".to_vec(), text, mixed]
}

/// Compresses each sample with our `tool` (stdin to stdout) and has the
/// host's `tool -dc` read it back; then the other way round.
fn round_trips(tool: &str) {
    if !has(tool) {
        eprintln!("skipped: no {tool} on the host");
        return;
    }
    let tmp = TempDir::new(tool);
    for (i, data) in samples().iter().enumerate() {
        let fs = new_fs();
        let ours = run_in(&fs, "/workspace", &[tool, "-c"], data);
        assert_eq!(ours.code, 0, "{tool} sample {i}: {}", ours.stderr);
        let packed = tmp.0.join(format!("ours{i}"));
        std::fs::write(&packed, &ours.stdout_bytes).unwrap();
        let back = host(tool, &["-dc", packed.to_str().unwrap()], &tmp.0);
        assert!(
            back.status.success(),
            "host {tool} -d of our sample {i}: {}",
            String::from_utf8_lossy(&back.stderr)
        );
        assert!(
            back.stdout == *data,
            "host {tool} gives back our sample {i}"
        );

        let plain = tmp.0.join(format!("plain{i}"));
        std::fs::write(&plain, data).unwrap();
        let theirs = host(tool, &["-c", plain.to_str().unwrap()], &tmp.0);
        assert!(theirs.status.success());
        let ours = run_in(&fs, "/workspace", &[tool, "-dc"], &theirs.stdout);
        assert_eq!(
            ours.code, 0,
            "our {tool} -d of the host's sample {i}: {}",
            ours.stderr
        );
        assert!(
            ours.stdout_bytes == *data,
            "our {tool} gives back the host's sample {i}"
        );
    }
}

#[test]
fn bzip2_round_trips_with_the_host() {
    round_trips("bzip2");
}

#[test]
fn xz_round_trips_with_the_host() {
    round_trips("xz");
}

/// A tree with a subdirectory, an executable and a binary file.
fn zip_tree(fs: &Fs) {
    fs.mkdir_all("/workspace/src/sub").unwrap();
    fs.write("/workspace/src/a.txt", b"alpha\n").unwrap();
    fs.write("/workspace/src/sub/b.bin", &samples()[3]).unwrap();
    fs.write("/workspace/src/run.sh", b"#!/bin/sh\necho hi\n")
        .unwrap();
    fs.set_mode("/workspace/src/run.sh", 0o755).unwrap();
    fs.write("/workspace/src/empty", b"").unwrap();
}

#[test]
fn host_unzip_reads_our_zip_files() {
    if !has("unzip") {
        eprintln!("skipped: no unzip on the host");
        return;
    }
    let fs = new_fs();
    zip_tree(&fs);
    let out = run(&fs, &["zip", "-qr", "/tmp/ours.zip", "src"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let tmp = TempDir::new("zip");
    let archive = tmp.0.join("ours.zip");
    std::fs::write(&archive, fs.read("/tmp/ours.zip").unwrap()).unwrap();
    let test = host("unzip", &["-t", archive.to_str().unwrap()], &tmp.0);
    assert!(
        test.status.success(),
        "{}",
        String::from_utf8_lossy(&test.stdout)
    );
    let x = host(
        "unzip",
        &["-q", archive.to_str().unwrap(), "-d", "x"],
        &tmp.0,
    );
    assert!(x.status.success(), "{}", String::from_utf8_lossy(&x.stderr));
    for f in ["a.txt", "sub/b.bin", "run.sh", "empty"] {
        let theirs = std::fs::read(tmp.0.join("x/src").join(f)).unwrap();
        assert!(
            theirs == fs.read(&format!("/workspace/src/{f}")).unwrap(),
            "{f}"
        );
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(tmp.0.join("x/src/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "the executable bit survives");
}

#[test]
fn our_unzip_reads_host_zip_files() {
    if !has("zip") {
        eprintln!("skipped: no zip on the host");
        return;
    }
    let tmp = TempDir::new("unzip");
    std::fs::create_dir_all(tmp.0.join("src/sub")).unwrap();
    std::fs::write(tmp.0.join("src/a.txt"), b"alpha\n").unwrap();
    std::fs::write(tmp.0.join("src/sub/b.bin"), &samples()[3]).unwrap();
    std::fs::write(tmp.0.join("src/empty"), b"").unwrap();
    // An odd second: zip rounds the DOS time up to the next minute here,
    // and UnZip shows the exact extended timestamp instead.
    let touched = host(
        "touch",
        &[
            "-d",
            "2024-03-04 05:06:59",
            "src/a.txt",
            "src/sub/b.bin",
            "src/empty",
            "src/sub",
            "src",
        ],
        &tmp.0,
    );
    assert!(touched.status.success());
    let z = host("zip", &["-qr", "theirs.zip", "src"], &tmp.0);
    assert!(z.status.success());
    let fs = new_fs();
    fs.write(
        "/tmp/theirs.zip",
        &std::fs::read(tmp.0.join("theirs.zip")).unwrap(),
    )
    .unwrap();
    let out = run(&fs, &["unzip", "-q", "/tmp/theirs.zip"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for f in ["a.txt", "sub/b.bin", "empty"] {
        let ours = fs.read(&format!("/workspace/src/{f}")).unwrap();
        assert!(
            ours == std::fs::read(tmp.0.join("src").join(f)).unwrap(),
            "{f}"
        );
    }
    let list = run(&fs, &["unzip", "-l", "/tmp/theirs.zip"]);
    let host_list = host("unzip", &["-l", "theirs.zip"], &tmp.0);
    assert_eq!(
        list.stdout.replace("/tmp/theirs.zip", "theirs.zip"),
        String::from_utf8_lossy(&host_list.stdout)
    );
}

#[test]
fn corrupt_input_is_an_error_not_a_panic() {
    let fs = new_fs();
    let mut bz = run_in(&fs, "/workspace", &["bzip2"], &samples()[2]).stdout_bytes;
    let mid = bz.len() / 2;
    bz[mid] ^= 0x55;
    assert_eq!(run_in(&fs, "/workspace", &["bunzip2"], &bz).code, 2);
    let mut xz = run_in(&fs, "/workspace", &["xz"], &samples()[2]).stdout_bytes;
    let mid = xz.len() / 2;
    xz[mid] ^= 0x55;
    assert_eq!(run_in(&fs, "/workspace", &["xz", "-d"], &xz).code, 1);
    fs.write("/workspace/src.txt", &samples()[2]).unwrap();
    assert_eq!(run(&fs, &["zip", "-q", "z.zip", "src.txt"]).code, 0);
    let mut z = fs.read("/workspace/z.zip").unwrap();
    z[60] ^= 0x55;
    z[200] ^= 0x55;
    fs.write("/workspace/z.zip", &z).unwrap();
    let out = run(&fs, &["unzip", "-p", "z.zip"]);
    assert_ne!(out.code, 0, "a corrupt member is reported");
}
