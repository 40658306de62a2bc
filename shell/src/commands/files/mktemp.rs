//! `mktemp`: create a unique temporary file or directory. Names come from
//! the run's seed when it is fixed (reproducible runs), else from the clock.

use super::common::GnuError;
use super::common::{OptSpec, flag, long_opt, parse_or_usage, quote_locale, usage_error, with_arg};
use crate::commands::CommandCtx;
use crate::fs::FsError;

/// What `mktemp --help` prints.
pub(crate) const USAGE: &str = "\
Usage: mktemp [OPTION]... [TEMPLATE]
Create a new file or directory with a name no other node has, and print the
name. The last run of X's in TEMPLATE (three at least) is replaced by random
letters and digits; without TEMPLATE, tmp.XXXXXXXXXX in $TMPDIR or /tmp.
Files are made with mode 600, directories with mode 700.

  -d, --directory     make a directory rather than a file
  -u, --dry-run       make nothing; just print a name that is free
  -q, --quiet         do not report failures
      --suffix=SUFF   put SUFF after the X's (SUFF may not hold a slash);
                        without it, what follows TEMPLATE's last X is one
  -p DIR, --tmpdir[=DIR]  make the name relative to DIR, or to $TMPDIR (else
                        /tmp) when DIR is not given
  -t                  TEMPLATE is a single name, made relative to the DIR of
                        -p, else $TMPDIR, else /tmp
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    flag('d', Some("directory"), "d"),
    flag('u', Some("dry-run"), "u"),
    flag('q', Some("quiet"), "q"),
    flag('t', None, "t"),
    with_arg(Some('p'), None, "p"),
    long_opt("tmpdir", "p"),
    with_arg(None, Some("suffix"), "suffix"),
];

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `mktemp [-dqtu] [-p DIR] [--suffix=SUFF] [TEMPLATE]`
pub fn mktemp(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    if p.operands.len() > 1 {
        usage_error(ctx, "too many templates");
        return 1;
    }
    let quiet = p.has("q");
    let tmpdir_env = ctx
        .getenv("TMPDIR")
        .filter(|s| !s.is_empty())
        .unwrap_or("/tmp")
        .to_string();
    let (template, dir): (String, Option<String>) = match p.operands.first() {
        None => (
            "tmp.XXXXXXXXXX".into(),
            Some(p.last("p").map(String::from).unwrap_or(tmpdir_env)),
        ),
        Some(t) => {
            let use_dir = p.has("t") || p.opts.iter().any(|(k, _)| *k == "p");
            let dir = if use_dir {
                Some(
                    p.last("p")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .unwrap_or(tmpdir_env),
                )
            } else {
                None
            };
            if use_dir && t.contains('/') && p.has("t") {
                ctx.gnu_error(format_args!(
                    "invalid template, {}, contains directory separator",
                    quote_locale(t)
                ));
                return 1;
            }
            (t.clone(), dir)
        }
    };
    let mut suffix = p.last("suffix").unwrap_or("").to_string();
    let mut base = template.clone();
    if p.last("suffix").is_none() && !base.ends_with('X') {
        // GNU: the X's need not be last; what follows the last X run is a suffix.
        if let Some(last_x) = base.rfind('X') {
            suffix = base[last_x + 1..].to_string();
            base.truncate(last_x + 1);
        }
    } else if p.last("suffix").is_some() && suffix.contains('/') {
        ctx.gnu_error(format_args!(
            "invalid suffix {}, contains directory separator",
            quote_locale(&suffix)
        ));
        return 1;
    }
    let xs = base.len() - base.trim_end_matches('X').len();
    if xs < 3 {
        if !quiet {
            ctx.gnu_error(format_args!(
                "too few X's in template {}",
                quote_locale(&template)
            ));
        }
        return 1;
    }
    let prefix = &base[..base.len() - xs];
    let seed = ctx.control.seed.unwrap_or_else(|| {
        let t = ctx.control.clock.now();
        (t.secs as u64).wrapping_mul(1_000_000_007) ^ t.nanos as u64
    });
    let mut rng = Rng(seed ^ 0x6d6b_7465_6d70);
    for _ in 0..1000 {
        let name: String = (0..xs)
            .map(|_| ALPHABET[(rng.next() % ALPHABET.len() as u64) as usize] as char)
            .collect();
        let full = format!("{prefix}{name}{suffix}");
        let shown = match &dir {
            Some(d) => super::common::join(d, &full),
            None => full,
        };
        let path = ctx.path(&shown);
        if ctx.fs.symlink_metadata(&path).is_ok() {
            continue;
        }
        let r = if p.has("u") {
            Ok(())
        } else if p.has("d") {
            ctx.fs.mkdir(&path, 0o700)
        } else {
            ctx.fs
                .create(&path, true)
                .and_then(|()| ctx.fs.set_mode(&path, 0o600))
        };
        match r {
            Ok(()) => {
                let _ = writeln!(ctx.stdout, "{shown}");
                return 0;
            }
            Err(FsError::AlreadyExists) => continue,
            Err(e) => {
                if !quiet {
                    let what = if p.has("d") { "directory" } else { "file" };
                    ctx.gnu_error(format_args!(
                        "failed to create {what} via template {}: {e}",
                        quote_locale(&match &dir {
                            Some(d) => super::common::join(d, &format!("{base}{suffix}")),
                            None => format!("{base}{suffix}"),
                        })
                    ));
                }
                return 1;
            }
        }
    }
    ctx.gnu_error("cannot find a free name");
    1
}
