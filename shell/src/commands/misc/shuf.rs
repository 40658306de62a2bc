//! `shuf`: print a random permutation of lines, of `-e` arguments or of an
//! `-i LO-HI` range. The generator is seeded from `--random-source` (a hash
//! of the file's bytes), else from the run's seed (deterministic runs),
//! else from the clock.

use crate::commands::CommandCtx;
use crate::commands::files::input;
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};

pub(crate) const USAGE: &str = "\
Usage: shuf [OPTION]... [FILE]
  or:  shuf -e [OPTION]... [ARG]...
  or:  shuf -i LO-HI [OPTION]...
Write a random permutation of the input lines to standard output.

  -e, --echo                treat each ARG as an input line
  -i, --input-range=LO-HI   treat each number LO through HI as an input line
  -n, --head-count=COUNT    output at most COUNT lines
  -o, --output=FILE         write result to FILE instead of standard output
      --random-source=FILE  get random bytes from FILE
  -r, --repeat              output lines can be repeated
  -z, --zero-terminated     line delimiter is NUL, not newline
      --help                display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("e", Some('e'), Some("echo"), Arg::None),
    opt("i", Some('i'), Some("input-range"), Arg::Required),
    opt("n", Some('n'), Some("head-count"), Arg::Required),
    opt("o", Some('o'), Some("output"), Arg::Required),
    opt("src", None, Some("random-source"), Arg::Required),
    opt("r", Some('r'), Some("repeat"), Arg::None),
    opt("z", Some('z'), Some("zero-terminated"), Arg::None),
];

/// A small deterministic generator (splitmix64).
pub struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number below `n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }
}

fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The lines to shuffle: the `-i LO-HI` numbers, the `-e` operands, or the
/// records of the input. `None` after the error message.
fn input_lines(ctx: &mut CommandCtx<'_>, p: &common::Parsed, delim: u8) -> Option<Vec<Vec<u8>>> {
    Some(if let Some(r) = p.last("i") {
        let range = r.split_once('-').and_then(|(a, b)| {
            let (a, b) = (a.parse::<u64>().ok()?, b.parse::<u64>().ok()?);
            (b.wrapping_add(1) >= a).then_some((a, b))
        });
        let Some((lo, hi)) = range else {
            ctx.error(format!("invalid input range: {}", common::quote_locale(r)));
            return None;
        };
        if !p.operands.is_empty() {
            let msg = format!("extra operand {}", common::quote_locale(&p.operands[0]));
            common::usage_error(ctx, &msg);
            return None;
        }
        if hi.saturating_sub(lo) > (ctx.control.limits.max_output_bytes as u64).max(1 << 20) {
            ctx.error("input range too large");
            return None;
        }
        (lo..=hi).map(|i| i.to_string().into_bytes()).collect()
    } else if p.has("e") {
        p.operands.iter().map(|s| s.clone().into_bytes()).collect()
    } else {
        if p.operands.len() > 1 {
            let msg = format!("extra operand {}", common::quote_locale(&p.operands[1]));
            common::usage_error(ctx, &msg);
            return None;
        }
        let (inputs, ok) = common::read_operands_saying(ctx, &p.operands, common::fread_error);
        if !ok {
            return None;
        }
        let data = &inputs[0].1;
        let mut v: Vec<Vec<u8>> = data.split(|b| *b == delim).map(<[u8]>::to_vec).collect();
        if data.last() == Some(&delim) || data.is_empty() {
            v.pop();
        }
        v
    })
}

/// The generator's seed: from `--random-source`, the run's seed, or the clock.
/// `None` after the error message.
fn seed(ctx: &mut CommandCtx<'_>, p: &common::Parsed) -> Option<u64> {
    Some(if let Some(src) = p.last("src") {
        // GNU reads only the bytes it needs; 64 KiB seeds any permutation
        // and keeps `--random-source=/dev/urandom` finite.
        match input::read_prefix(ctx, src, Some(1 << 16)) {
            Ok(d) => fnv(&d),
            Err(e) => {
                ctx.error(format!("{src}: {e}"));
                return None;
            }
        }
    } else if let Some(s) = ctx.control.seed {
        s
    } else {
        let t = ctx.control.clock.now();
        (t.secs as u64).wrapping_mul(1_000_000_007) ^ t.nanos as u64
    })
}

/// `shuf`
pub fn shuf(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let delim = if p.has("z") { 0u8 } else { b'\n' };
    if p.has("e") && p.has("i") {
        common::usage_error(ctx, "cannot combine -e and -i options");
        return 1;
    }
    let count = match p.last("n") {
        Some(n) => match n.parse::<u64>() {
            Ok(v) => Some(v),
            Err(_) => {
                ctx.error(format!("invalid line count: {}", common::quote_locale(n)));
                return 1;
            }
        },
        None => None,
    };
    let Some(lines) = input_lines(ctx, &p, delim) else {
        return 1;
    };
    let Some(seed) = seed(ctx, &p) else {
        return 1;
    };
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    if p.has("r") {
        if !lines.is_empty() {
            let mut left = count;
            while left != Some(0) {
                if ctx.control.check().is_err() {
                    return 1;
                }
                let i = rng.below(lines.len() as u64) as usize;
                out.extend_from_slice(&lines[i]);
                out.push(delim);
                if let Some(l) = left.as_mut() {
                    *l -= 1;
                }
                if out.len() >= 1 << 16 {
                    if ctx.stdout.write_all(&out).is_err() {
                        return 1;
                    }
                    out.clear();
                }
                if count.is_none() && ctx.control.check().is_err() {
                    return 1;
                }
            }
        } else if count.is_some_and(|c| c > 0) {
            ctx.error("no lines to repeat");
            return 1;
        }
    } else {
        let mut lines = lines;
        let n = lines.len();
        let take = count.map_or(n, |c| c.min(n as u64) as usize);
        for i in 0..take {
            let j = i + rng.below((n - i) as u64) as usize;
            lines.swap(i, j);
            out.extend_from_slice(&lines[i]);
            out.push(delim);
        }
    }
    if let Some(o) = p.last("o") {
        let path = ctx.path(o);
        if let Err(e) = ctx.fs.write(&path, &out) {
            ctx.error(format!("{o}: {e}"));
            return 1;
        }
        return 0;
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    0
}
