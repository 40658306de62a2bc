//! Unit tests of the virtual filesystem's contract.

use super::*;
use crate::clock::Clock;
use crate::limits::FsLimits;

fn fs() -> Fs {
    Fs::new(
        FsLimits::default(),
        Clock::fixed(1_000),
        crate::usr_bin_names(),
    )
}

fn names(fs: &Fs, path: &str) -> Vec<String> {
    fs.read_dir(path)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect()
}

#[test]
fn standard_tree() {
    let fs = fs();
    let root = names(&fs, "/");
    for n in ["bin", "dev", "etc", "tmp", "usr", "workspace"] {
        assert!(root.contains(&n.to_string()), "{n} missing from {root:?}");
    }
    assert_eq!(fs.metadata("/tmp").unwrap().mode, 0o1777);
    assert_eq!(fs.metadata("/workspace").unwrap().kind, FileKind::Dir);
    assert_eq!(fs.symlink_metadata("/bin").unwrap().kind, FileKind::Symlink);
    assert_eq!(fs.read_link("/bin").unwrap(), "usr/bin");
    let bash = fs.metadata("/bin/bash").unwrap();
    assert_eq!((bash.kind, bash.mode), (FileKind::File, 0o755));
    assert!(fs.exists("/usr/bin/sh"));
    for d in [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
    ] {
        assert_eq!(fs.metadata(d).unwrap().kind, FileKind::CharDevice, "{d}");
    }
    assert_eq!(fs.metadata("/dev/fd").unwrap().kind, FileKind::Dir);
    assert!(fs.exists("/usr/local/bin"));
    assert!(!fs.exists("/etc/passwd"));
    for name in crate::commands::names() {
        assert!(fs.exists(&format!("/usr/bin/{name}")), "{name}");
    }
}

#[test]
fn files_read_write_append() {
    let fs = fs();
    fs.write("/workspace/a.txt", b"hello").unwrap();
    assert_eq!(fs.read("/workspace/a.txt").unwrap(), b"hello");
    let snap = fs.read_shared("/workspace/a.txt").unwrap();
    fs.append("/workspace/a.txt", b" world").unwrap();
    assert_eq!(&snap[..], b"hello", "snapshot unchanged by later writes");
    assert_eq!(fs.read("/workspace/a.txt").unwrap(), b"hello world");
    fs.append("/workspace/new", b"x").unwrap();
    assert_eq!(fs.metadata("/workspace/new").unwrap().mode, 0o644);
    fs.write_at("/workspace/a.txt", 0, b"J").unwrap();
    fs.write_at("/workspace/a.txt", 13, b"!").unwrap();
    assert_eq!(fs.read("/workspace/a.txt").unwrap(), b"Jello world\0\0!");
    fs.truncate("/workspace/a.txt", 5).unwrap();
    assert_eq!(fs.read("/workspace/a.txt").unwrap(), b"Jello");
    fs.truncate("/workspace/a.txt", 7).unwrap();
    assert_eq!(fs.read("/workspace/a.txt").unwrap(), b"Jello\0\0");
    assert_eq!(fs.metadata("/workspace/a.txt").unwrap().size, 7);
    // Over the end: the inside part overwrites, the rest is appended.
    fs.write_at("/workspace/a.txt", 5, b"-there").unwrap();
    assert_eq!(fs.read("/workspace/a.txt").unwrap(), b"Jello-there");
    fs.write_at("/workspace/fresh", 3, b"ab").unwrap();
    assert_eq!(fs.read("/workspace/fresh").unwrap(), b"\0\0\0ab");
    assert_eq!(fs.read("/workspace"), Err(FsError::IsADirectory));
    assert_eq!(fs.write("/workspace", b""), Err(FsError::IsADirectory));
    assert_eq!(fs.read("/workspace/nope"), Err(FsError::NotFound));
    assert_eq!(fs.write("/workspace/nodir/x", b""), Err(FsError::NotFound));
    assert_eq!(
        fs.write("/workspace/a.txt/x", b""),
        Err(FsError::NotADirectory)
    );
    assert_eq!(fs.read("/workspace/a.txt/"), Err(FsError::NotADirectory));
    assert_eq!(
        fs.write("/workspace/newdir/", b""),
        Err(FsError::IsADirectory)
    );
}

#[test]
fn create_exclusive_and_plain() {
    let fs = fs();
    fs.create("/tmp/x", true).unwrap();
    assert_eq!(fs.create("/tmp/x", true), Err(FsError::AlreadyExists));
    fs.write("/tmp/x", b"keep").unwrap();
    fs.create("/tmp/x", false).unwrap();
    assert_eq!(fs.read("/tmp/x").unwrap(), b"keep");
    fs.symlink("/tmp/target", "/tmp/dangling").unwrap();
    assert_eq!(
        fs.create("/tmp/dangling", true),
        Err(FsError::AlreadyExists)
    );
    assert_eq!(fs.create("/tmp", false), Err(FsError::IsADirectory));
}

#[test]
fn dev_null_discards() {
    let fs = fs();
    fs.write("/dev/null", b"gone").unwrap();
    fs.append("/dev/null", b"gone").unwrap();
    assert_eq!(fs.read("/dev/null").unwrap(), b"");
    assert_eq!(fs.metadata("/dev/null").unwrap().kind, FileKind::CharDevice);
    assert_eq!(fs.remove_all("/dev"), Err(FsError::Busy));
    assert_eq!(fs.remove_all("/"), Err(FsError::Busy));
}

#[test]
fn stream_devices() {
    use std::io::Read;
    let fs = fs();
    for (path, dev) in [
        ("/dev/null", Device::Null),
        ("/dev/zero", Device::Zero),
        ("/dev/full", Device::Full),
        ("/dev/random", Device::Random),
        ("/dev/urandom", Device::Urandom),
        ("/dev/stdin", Device::Descriptor),
    ] {
        let m = fs.metadata(path).unwrap();
        assert_eq!((m.kind, fs.device(path)), (FileKind::CharDevice, Some(dev)));
        assert_eq!(m.size, 0, "{path}");
    }
    assert_eq!(fs.metadata("/dev/zero").unwrap().mode, 0o666);
    assert_eq!(fs.device("/dev"), None);
    assert_eq!(fs.device("/workspace/none"), None);
    assert_eq!(Device::Urandom.numbers(), (1, 9));
    // Whole-file reads of an endless device fail at once instead of looping.
    for path in ["/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"] {
        assert_eq!(fs.read(path), Err(FsError::FileTooLarge), "{path}");
        assert_eq!(fs.read_shared(path), Err(FsError::FileTooLarge), "{path}");
    }
    // Streams: zeros, random bytes, a regular file's snapshot.
    let mut buf = [7u8; 4096];
    let mut z = fs.open_read("/dev/zero", None).unwrap();
    z.read_exact(&mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == 0) && z.is_endless());
    let mut r = fs.open_read("/dev/urandom", Some(1)).unwrap();
    r.read_exact(&mut buf).unwrap();
    assert!(buf.iter().filter(|&&b| b == 0).count() < 100);
    fs.write("/tmp/f", b"abc").unwrap();
    let mut f = fs.open_read("/tmp/f", None).unwrap();
    assert_eq!(f.snapshot().map(|d| d.to_vec()), Some(b"abc".to_vec()));
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    assert_eq!(s, "abc");
    let n = fs.open_read("/dev/null", None).unwrap();
    assert_eq!(n.snapshot().map(|d| d.len()), Some(0));
    assert_eq!(
        fs.open_read("/workspace", None).err(),
        Some(FsError::IsADirectory)
    );
    // Symlinks to devices stream too.
    fs.symlink("/dev/zero", "/tmp/z").unwrap();
    assert!(fs.open_read("/tmp/z", None).unwrap().is_endless());
}

#[test]
fn random_devices_follow_the_seed() {
    use std::io::Read;
    let grab = |fs: &Fs, path: &str, seed: Option<u64>| {
        let mut v = vec![0u8; 64];
        fs.open_read(path, seed)
            .unwrap()
            .read_exact(&mut v)
            .unwrap();
        v
    };
    let (a, b) = (fs(), fs());
    let first = grab(&a, "/dev/urandom", Some(42));
    assert_eq!(first, grab(&b, "/dev/urandom", Some(42)), "same history");
    let second = grab(&a, "/dev/random", Some(42));
    assert_ne!(first, second, "each open has its own stream");
    assert_eq!(second, grab(&b, "/dev/random", Some(42)));
    assert_ne!(
        grab(&a, "/dev/urandom", None),
        grab(&b, "/dev/urandom", None)
    );
}

#[test]
fn dev_full_refuses_writes() {
    let fs = fs();
    assert_eq!(fs.write("/dev/full", b"x"), Err(FsError::NoSpace));
    assert_eq!(fs.append("/dev/full", b"x"), Err(FsError::NoSpace));
    assert_eq!(fs.write_at("/dev/full", 0, b"x"), Err(FsError::NoSpace));
    // Opening it (a truncating write of nothing) works, as on Linux.
    fs.write("/dev/full", b"").unwrap();
    fs.append("/dev/full", b"").unwrap();
    for path in ["/dev/zero", "/dev/urandom", "/dev/random"] {
        fs.write(path, b"swallowed").unwrap();
    }
    assert_eq!(fs.metadata("/dev/full").unwrap().kind, FileKind::CharDevice);
}

#[test]
fn directories_and_sorted_listing() {
    let fs = fs();
    fs.mkdir("/workspace/d", 0o700).unwrap();
    assert_eq!(fs.metadata("/workspace/d").unwrap().mode, 0o700);
    assert_eq!(fs.mkdir("/workspace/d", 0o755), Err(FsError::AlreadyExists));
    assert_eq!(fs.mkdir("/workspace/x/y", 0o755), Err(FsError::NotFound));
    for n in ["b", "a", "C", "_z", "a.txt"] {
        fs.write(&format!("/workspace/d/{n}"), b"").unwrap();
    }
    fs.mkdir("/workspace/d/sub", 0o755).unwrap();
    assert_eq!(
        names(&fs, "/workspace/d"),
        ["C", "_z", "a", "a.txt", "b", "sub"]
    );
    assert_eq!(fs.metadata("/workspace/d").unwrap().nlink, 3);
    fs.mkdir_all("/workspace/p/q/r").unwrap();
    fs.mkdir_all("/workspace/p/q/r/").unwrap();
    assert!(fs.metadata("/workspace/p/q/r").unwrap().kind == FileKind::Dir);
    fs.write("/workspace/f", b"").unwrap();
    assert_eq!(fs.mkdir_all("/workspace/f"), Err(FsError::AlreadyExists));
    assert_eq!(fs.mkdir_all("/workspace/f/g"), Err(FsError::NotADirectory));
    assert_eq!(
        fs.remove_dir("/workspace/d"),
        Err(FsError::DirectoryNotEmpty)
    );
    assert_eq!(fs.remove_dir("/workspace/f"), Err(FsError::NotADirectory));
    assert_eq!(fs.remove_file("/workspace/d"), Err(FsError::IsADirectory));
    fs.remove_dir("/workspace/d/sub").unwrap();
    assert_eq!(fs.metadata("/workspace/d").unwrap().nlink, 2);
    fs.remove_file("/workspace/d/a").unwrap();
    assert_eq!(fs.remove_file("/workspace/d/a"), Err(FsError::NotFound));
    assert_eq!(fs.read_dir("/workspace/f"), Err(FsError::NotADirectory));
    // mkdir -p through a symlink to a directory works.
    fs.symlink("p", "/workspace/plink").unwrap();
    fs.mkdir_all("/workspace/plink/new").unwrap();
    assert!(fs.exists("/workspace/p/new"));
}

#[test]
fn symlink_chains_relative_and_absolute() {
    let fs = fs();
    fs.mkdir_all("/workspace/a/b").unwrap();
    fs.write("/workspace/a/b/f", b"data").unwrap();
    fs.symlink("b/f", "/workspace/a/l1").unwrap();
    fs.symlink("a/l1", "/workspace/l2").unwrap();
    fs.symlink("/workspace/l2", "/tmp/l3").unwrap();
    assert_eq!(fs.read("/tmp/l3").unwrap(), b"data");
    assert_eq!(fs.canonicalize("/tmp/l3").unwrap(), "/workspace/a/b/f");
    assert_eq!(fs.metadata("/tmp/l3").unwrap().kind, FileKind::File);
    let lm = fs.symlink_metadata("/tmp/l3").unwrap();
    assert_eq!(
        (lm.kind, lm.size),
        (FileKind::Symlink, "/workspace/l2".len() as u64)
    );
    // a symlink to a directory, then `..` is physical (as in the kernel).
    fs.symlink("a/b", "/workspace/lb").unwrap();
    assert_eq!(names(&fs, "/workspace/lb"), ["f"]);
    assert_eq!(fs.canonicalize("/workspace/lb/..").unwrap(), "/workspace/a");
    assert_eq!(fs.canonicalize("/workspace/lb/").unwrap(), "/workspace/a/b");
    // writing through a symlink writes the target; a dangling one creates it.
    fs.write("/workspace/l2", b"new").unwrap();
    assert_eq!(fs.read("/workspace/a/b/f").unwrap(), b"new");
    fs.symlink("created", "/workspace/dangle").unwrap();
    assert!(!fs.exists("/workspace/dangle"));
    fs.write("/workspace/dangle", b"c").unwrap();
    assert_eq!(fs.read("/workspace/created").unwrap(), b"c");
    assert_eq!(
        fs.symlink("x", "/workspace/dangle"),
        Err(FsError::AlreadyExists)
    );
    assert_eq!(
        fs.read_link("/workspace/a/b/f"),
        Err(FsError::InvalidArgument)
    );
    // set_mode follows, symlink_metadata doesn't see it.
    fs.set_mode("/workspace/l2", 0o600).unwrap();
    assert_eq!(fs.metadata("/workspace/a/b/f").unwrap().mode, 0o600);
    assert_eq!(fs.symlink_metadata("/workspace/l2").unwrap().mode, 0o777);
}

#[test]
fn symlink_loops_fail_with_eloop() {
    let fs = fs();
    fs.symlink("b", "/tmp/a").unwrap();
    fs.symlink("a", "/tmp/b").unwrap();
    fs.symlink("self", "/tmp/self").unwrap();
    assert_eq!(fs.read("/tmp/a"), Err(FsError::TooManyLinks));
    assert_eq!(fs.metadata("/tmp/self"), Err(FsError::TooManyLinks));
    assert_eq!(fs.write("/tmp/a", b"x"), Err(FsError::TooManyLinks));
    assert_eq!(fs.read_dir("/tmp/a/"), Err(FsError::TooManyLinks));
    assert_eq!(fs.canonicalize("/tmp/self"), Err(FsError::TooManyLinks));
    // the links themselves are still there and removable
    assert_eq!(
        fs.symlink_metadata("/tmp/a").unwrap().kind,
        FileKind::Symlink
    );
    fs.remove_file("/tmp/a").unwrap();
    // a chain of 40 links resolves, 41 does not (Linux's limit)
    fs.write("/tmp/end", b"ok").unwrap();
    let mut prev = "end".to_string();
    for i in 0..41 {
        let name = format!("c{i}");
        fs.symlink(&prev, &format!("/tmp/{name}")).unwrap();
        prev = name;
    }
    assert_eq!(fs.read("/tmp/c39").unwrap(), b"ok");
    assert_eq!(fs.read("/tmp/c40"), Err(FsError::TooManyLinks));
}

#[test]
fn dotdot_never_escapes_the_root() {
    let fs = fs();
    assert_eq!(Fs::resolve("/workspace", "../../../etc"), "/etc");
    assert_eq!(fs.canonicalize("/../../..").unwrap(), "/");
    assert_eq!(names(&fs, "/.."), names(&fs, "/"));
    fs.symlink("/../../etc", "/workspace/esc").unwrap();
    assert_eq!(fs.canonicalize("/workspace/esc").unwrap(), "/etc");
    assert_eq!(fs.read("/workspace/esc/hostname").unwrap(), b"sandbox\n");
    fs.symlink("../../../../../../tmp", "/workspace/esc2")
        .unwrap();
    fs.write("/workspace/esc2/t", b"1").unwrap();
    assert_eq!(fs.read("/tmp/t").unwrap(), b"1");
    assert!(!fs.exists("/etc/passwd"));
    assert_eq!(fs.read("/workspace/esc/passwd"), Err(FsError::NotFound));
}

#[test]
fn limits_leave_old_content() {
    let limits = FsLimits {
        max_total_bytes: 100,
        max_files: 10_000,
        max_file_size: 60,
    };
    let fs = Fs::empty(limits, Clock::fixed(0));
    fs.write("/a", &[1; 50]).unwrap();
    assert_eq!(fs.write("/a", &[2; 61]), Err(FsError::FileTooLarge));
    assert_eq!(fs.read("/a").unwrap(), vec![1; 50]);
    assert_eq!(fs.append("/a", &[3; 11]), Err(FsError::FileTooLarge));
    assert_eq!(fs.write_at("/a", 60, b"x"), Err(FsError::FileTooLarge));
    assert_eq!(fs.truncate("/a", 61), Err(FsError::FileTooLarge));
    fs.write("/b", &[4; 40]).unwrap();
    assert_eq!(fs.write("/c", &[5; 11]), Err(FsError::NoSpace));
    assert!(!fs.exists("/c"), "a failed create leaves nothing behind");
    assert_eq!(fs.append("/b", &[6; 11]), Err(FsError::NoSpace));
    assert_eq!(fs.read("/b").unwrap(), vec![4; 40]);
    assert_eq!(fs.usage().0, 90);
    // rewriting a file smaller frees its bytes
    fs.write("/a", b"").unwrap();
    fs.write("/c", &[5; 50]).unwrap();
    fs.remove_file("/c").unwrap();
    assert_eq!(fs.usage().0, 40);

    let few = FsLimits {
        max_total_bytes: 1 << 20,
        max_files: 3,
        max_file_size: 1 << 20,
    };
    let fs = Fs::empty(few, Clock::fixed(0));
    fs.write("/1", b"").unwrap();
    fs.mkdir("/2", 0o755).unwrap();
    assert_eq!(fs.write("/3", b""), Err(FsError::NoSpace));
    assert_eq!(fs.mkdir("/3", 0o755), Err(FsError::NoSpace));
    assert_eq!(fs.symlink("1", "/3"), Err(FsError::NoSpace));
    assert_eq!(fs.usage(), (0, 3));
    fs.remove_all("/2").unwrap();
    fs.symlink("1", "/3").unwrap();
}

#[test]
fn rename_semantics() {
    let fs = fs();
    fs.write("/workspace/a", b"A").unwrap();
    fs.write("/workspace/b", b"B").unwrap();
    fs.rename("/workspace/a", "/workspace/b").unwrap();
    assert_eq!(fs.read("/workspace/b").unwrap(), b"A");
    assert!(!fs.exists("/workspace/a"));
    assert_eq!(
        fs.rename("/workspace/a", "/workspace/c"),
        Err(FsError::NotFound)
    );
    fs.mkdir_all("/workspace/d1/sub").unwrap();
    fs.write("/workspace/d1/sub/f", b"f").unwrap();
    fs.mkdir("/workspace/empty", 0o755).unwrap();
    fs.mkdir_all("/workspace/full/x").unwrap();
    assert_eq!(
        fs.rename("/workspace/b", "/workspace/empty"),
        Err(FsError::IsADirectory)
    );
    assert_eq!(
        fs.rename("/workspace/d1", "/workspace/b"),
        Err(FsError::NotADirectory)
    );
    assert_eq!(
        fs.rename("/workspace/d1", "/workspace/full"),
        Err(FsError::DirectoryNotEmpty)
    );
    assert_eq!(
        fs.rename("/workspace/d1", "/workspace/d1/sub/in"),
        Err(FsError::InvalidArgument)
    );
    fs.rename("/workspace/d1", "/workspace/empty").unwrap();
    assert_eq!(fs.read("/workspace/empty/sub/f").unwrap(), b"f");
    assert_eq!(
        fs.canonicalize("/workspace/empty/sub").unwrap(),
        "/workspace/empty/sub"
    );
    fs.rename("/workspace/empty/sub", "/tmp/moved").unwrap();
    assert_eq!(fs.canonicalize("/tmp/moved/..").unwrap(), "/tmp");
    assert_eq!(fs.read("/tmp/moved/f").unwrap(), b"f");
    // renaming a symlink moves the link, not its target
    fs.symlink("/tmp/moved", "/workspace/ln").unwrap();
    fs.rename("/workspace/ln", "/workspace/ln2").unwrap();
    assert_eq!(fs.read_link("/workspace/ln2").unwrap(), "/tmp/moved");
    assert!(fs.exists("/tmp/moved/f"));
    // same node: no-op
    fs.rename("/workspace/b", "/workspace/b").unwrap();
    assert_eq!(fs.read("/workspace/b").unwrap(), b"A");
    assert_eq!(fs.rename("/", "/x"), Err(FsError::Busy));
}

#[test]
fn remove_all_does_not_follow_symlinks() {
    let fs = fs();
    fs.mkdir_all("/workspace/keep").unwrap();
    fs.write("/workspace/keep/precious", b"p").unwrap();
    fs.mkdir_all("/workspace/trash/deep/er").unwrap();
    fs.write("/workspace/trash/deep/er/f", b"123").unwrap();
    fs.symlink("/workspace/keep", "/workspace/trash/link")
        .unwrap();
    let (bytes_before, nodes_before) = fs.usage();
    fs.remove_all("/workspace/trash").unwrap();
    assert!(!fs.exists("/workspace/trash"));
    assert_eq!(fs.read("/workspace/keep/precious").unwrap(), b"p");
    assert_eq!(fs.usage(), (bytes_before - 3, nodes_before - 5));
    // a symlink to a directory given directly is removed itself
    fs.symlink("keep", "/workspace/kl").unwrap();
    fs.remove_all("/workspace/kl").unwrap();
    assert!(fs.exists("/workspace/keep/precious"));
    assert_eq!(fs.remove_all("/workspace/none"), Err(FsError::NotFound));
}

#[test]
fn hard_links_share_content() {
    let fs = fs();
    fs.write("/tmp/a", b"1").unwrap();
    fs.hard_link("/tmp/a", "/tmp/b").unwrap();
    assert_eq!(fs.metadata("/tmp/a").unwrap().nlink, 2);
    assert_eq!(
        fs.metadata("/tmp/a").unwrap().ino,
        fs.metadata("/tmp/b").unwrap().ino
    );
    fs.append("/tmp/b", b"2").unwrap();
    assert_eq!(fs.read("/tmp/a").unwrap(), b"12");
    let used = fs.usage().0;
    fs.remove_file("/tmp/a").unwrap();
    assert_eq!(fs.usage().0, used, "content lives while a link remains");
    assert_eq!(fs.read("/tmp/b").unwrap(), b"12");
    assert_eq!(
        fs.hard_link("/tmp", "/tmp/d"),
        Err(FsError::PermissionDenied)
    );
}

#[test]
fn mtimes_follow_the_clock() {
    let fs = Fs::new(
        FsLimits::default(),
        Clock::fixed(1_234),
        crate::usr_bin_names(),
    );
    fs.set_mtime("/workspace", Timestamp { secs: 1, nanos: 0 })
        .unwrap();
    fs.write("/workspace/f", b"x").unwrap();
    assert_eq!(fs.metadata("/workspace/f").unwrap().mtime.secs, 1_234);
    assert_eq!(
        fs.metadata("/workspace").unwrap().mtime.secs,
        1_234,
        "dir mtime on add"
    );
    fs.set_mtime("/workspace/f", Timestamp { secs: 7, nanos: 5 })
        .unwrap();
    assert_eq!(
        fs.metadata("/workspace/f").unwrap().mtime,
        Timestamp { secs: 7, nanos: 5 }
    );
    fs.append("/workspace/f", b"y").unwrap();
    assert_eq!(fs.metadata("/workspace/f").unwrap().mtime.secs, 1_234);
    fs.set_mtime("/workspace", Timestamp { secs: 1, nanos: 0 })
        .unwrap();
    fs.remove_file("/workspace/f").unwrap();
    assert_eq!(
        fs.metadata("/workspace").unwrap().mtime.secs,
        1_234,
        "dir mtime on remove"
    );
    fs.symlink("x", "/tmp/l").unwrap();
    fs.set_symlink_mtime("/tmp/l", Timestamp { secs: 9, nanos: 0 })
        .unwrap();
    assert_eq!(fs.symlink_metadata("/tmp/l").unwrap().mtime.secs, 9);
}

#[test]
fn big_directory_lists_in_linear_time() {
    let limits = FsLimits {
        max_files: 100_000,
        ..FsLimits::default()
    };
    let fs = Fs::empty(limits, Clock::fixed(0));
    fs.mkdir("/d", 0o755).unwrap();
    for i in 0..10_000 {
        fs.write(&format!("/d/f{i:05}"), b"x").unwrap();
    }
    // Count node visits: a listing touches each child a bounded number of
    // times, and a small directory costs nothing extra however big the tree.
    // (vfs's MemoryFS scans every stored path per listing.)
    fs.mkdir("/d2", 0o755).unwrap();
    fs.write("/d2/one", b"").unwrap();
    let visits = |f: &dyn Fn()| {
        let counter = fs.lock().visits.clone();
        counter.store(0, std::sync::atomic::Ordering::SeqCst);
        f();
        counter.load(std::sync::atomic::Ordering::SeqCst)
    };
    let small = visits(&|| assert_eq!(fs.read_dir("/d2").unwrap().len(), 1));
    assert!(
        small < 10,
        "listing a 1-entry directory visited {small} nodes"
    );
    let big = visits(&|| {
        let listed = fs.read_dir("/d").unwrap();
        assert_eq!(listed.len(), 10_000);
        assert_eq!(listed[0].name, "f00000");
        assert_eq!(listed[9_999].name, "f09999");
    });
    assert!(
        big <= 2 * 10_000 + 10,
        "listing 10,000 entries visited {big} nodes"
    );
    let meta = visits(&|| assert_eq!(fs.read_dir_metadata("/d").unwrap().len(), 10_000));
    assert!(
        meta <= 2 * 10_000 + 10,
        "read_dir_metadata visited {meta} nodes"
    );
    // A lookup visits only the nodes along its path.
    let one = visits(&|| assert!(fs.exists("/d/f05000")));
    assert!(one < 10, "a lookup visited {one} nodes");
}

#[test]
fn clones_share_the_tree_across_threads() {
    let fs = fs();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let fs = fs.clone();
            std::thread::spawn(move || {
                for i in 0..100 {
                    fs.append("/tmp/log", format!("{t}:{i}\n").as_bytes())
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(
        fs.read("/tmp/log")
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        400
    );
}

#[test]
fn fifos_queue_what_writers_send() {
    let fs = fs();
    let bytes_before = fs.usage().0;
    fs.mkfifo("/workspace/p", 0o640).unwrap();
    let m = fs.metadata("/workspace/p").unwrap();
    assert_eq!(
        (m.kind, m.mode, m.size, m.nlink),
        (FileKind::Fifo, 0o640, 0, 1)
    );
    assert_eq!(
        fs.mkfifo("/workspace/p", 0o644),
        Err(FsError::AlreadyExists)
    );
    assert_eq!(fs.mkfifo("/workspace/no/p", 0o644), Err(FsError::NotFound));
    // Writes by path queue; truncation writes nothing; a reader drains.
    fs.write("/workspace/p", b"").unwrap();
    fs.write("/workspace/p", b"one ").unwrap();
    fs.append("/workspace/p", b"two ").unwrap();
    fs.write_at("/workspace/p", 99, b"three").unwrap();
    assert_eq!(
        fs.usage().0,
        bytes_before,
        "queued bytes are not file content"
    );
    assert_eq!(fs.read("/workspace/p").unwrap(), b"one two three");
    // Outside a run nothing waits: an empty FIFO reads empty at once.
    assert_eq!(fs.read("/workspace/p").unwrap(), b"");
    fs.remove_file("/workspace/p").unwrap();
    assert!(!fs.exists("/workspace/p"));
}

#[test]
fn fifo_readers_wait_for_open_writers() {
    let fs = fs();
    fs.mkfifo("/tmp/p", 0o644).unwrap();
    let fifo = fs.fifo("/tmp/p").unwrap();
    let writer = fifo.open_writer();
    let mut reader = fs.open_read("/tmp/p", None).unwrap();
    assert!(reader.snapshot().is_none() && reader.is_fifo() && !reader.is_endless());
    let feeder = {
        let fs = fs.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            fs.append("/tmp/p", b"late").unwrap();
            drop(writer);
        })
    };
    let mut got = Vec::new();
    let mut buf = [0u8; 8];
    loop {
        match reader.read_until(&mut buf, &|| false).unwrap() {
            0 => break,
            n => got.extend_from_slice(&buf[..n]),
        }
    }
    feeder.join().unwrap();
    assert_eq!(got, b"late");
    // A reader told to stop while no writer came fails as a cancelled run.
    let mut idle = fs.open_read("/tmp/p", None).unwrap();
    let err = idle.read_until(&mut buf, &|| true).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::Interrupted);
    assert!(fs.fifo("/tmp").is_none());
}

#[test]
fn fifo_writers_get_epipe_once_their_readers_leave() {
    let fs = fs();
    fs.mkfifo("/tmp/p", 0o644).unwrap();
    let fifo = fs.fifo("/tmp/p").unwrap();
    let writer = fifo.open_writer();
    let reader = fs.open_read("/tmp/p", None).unwrap();
    fs.append("/tmp/p", b"unread").unwrap();
    drop(reader);
    assert_eq!(fs.append("/tmp/p", b"more"), Err(FsError::BrokenPipe));
    drop(writer);
    // With the writers gone the FIFO is usable again, its old queue dropped.
    fs.append("/tmp/p", b"fresh").unwrap();
    assert_eq!(fs.read("/tmp/p").unwrap(), b"fresh");
}

#[test]
fn fill_dir_shared_counts_once_and_leaves_nothing_on_a_duplicate() {
    use super::tree::Tree;
    let mut t = Tree::new(FsLimits::default(), Clock::fixed(1_000));
    t.mkdir("/bin", 0o755).unwrap();
    t.mkdir("/sbin", 0o755).unwrap();
    let stub = std::sync::Arc::new(b"#!/bin/sh\n".to_vec());
    let before = t.usage();
    t.fill_dir_shared("/bin", &["ls", "cat"], &stub, 0o755)
        .unwrap();
    // Each stub's bytes counted once, one node each.
    let filled = (before.0 + 2 * 10, before.1 + 2);
    assert_eq!(t.usage(), filled);
    let ls = t.metadata("/bin/ls", true).unwrap();
    let cat = t.metadata("/bin/cat", true).unwrap();
    assert_eq!((ls.kind, ls.mode, ls.size), (FileKind::File, 0o755, 10));
    // Created in the order given.
    assert!(ls.ino < cat.ino);
    // Only into an empty directory, and all or nothing.
    assert_eq!(
        t.fill_dir_shared("/bin", &["sh"], &stub, 0o755),
        Err(FsError::AlreadyExists)
    );
    assert_eq!(
        t.fill_dir_shared("/sbin", &["ip", "ss", "ip"], &stub, 0o755),
        Err(FsError::AlreadyExists)
    );
    assert_eq!(t.usage(), filled);
    assert!(t.read_dir("/sbin").unwrap().is_empty());
}
