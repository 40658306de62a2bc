//! `sum`: GNU coreutils' 16-bit checksums of files: the BSD algorithm
//! (`-r`, the default: a rotating checksum and 1K blocks, `%05d %5d`) and
//! the System V one (`-s`: a byte sum folded to 16 bits and 512-byte
//! blocks). The last of `-r`/`-s` wins; names are printed when any FILE
//! operand is given.

use std::io::Write;

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: sum [OPTION]... [FILE]...
Print or check BSD (16-bit) checksums.

With no FILE, or when FILE is -, read standard input.

  -r              use BSD sum algorithm (the default), use 1K blocks
  -s, --sysv      use System V sum algorithm, use 512 bytes blocks
      --help        display this help and exit
      --version     output version information and exit
";

const SPEC: &[OptSpec] = &[
    opt("r", Some('r'), None, Arg::None),
    opt("s", Some('s'), Some("sysv"), Arg::None),
    opt("version", None, Some("version"), Arg::None),
];

/// `sum`
pub fn sum(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("version") {
        let _ = writeln!(ctx.stdout, "sum (GNU coreutils) 9.1");
        return 0;
    }
    let sysv = p.last_of(&["r", "s"]) == Some("s");
    let names = !p.operands.is_empty();
    let operands = if names {
        p.operands.clone()
    } else {
        vec!["-".to_string()]
    };
    // Buffered as stdio buffers a pipe.
    let mut out = std::io::BufWriter::with_capacity(4096, &mut *ctx.stdout);
    let mut status = 0;
    for name in &operands {
        if ctx.control.check().is_err() {
            return 1;
        }
        let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, name) {
            Ok(d) => d,
            Err(e) => {
                // GNU's error() flushes stdout first.
                let _ = out.flush();
                common::err(
                    ctx.stderr,
                    "sum",
                    format_args!("{}: {e}", common::quotef(name)),
                );
                status = 1;
                continue;
            }
        };
        let mut line = sum_line(&data, sysv);
        if names {
            line.push(' ');
            line.push_str(name);
        }
        line.push('\n');
        let _ = out.write_all(line.as_bytes());
    }
    let _ = out.flush();
    status
}

/// The sum and block count as `sum` prints them (and `cksum -a bsd|sysv`).
pub(crate) fn sum_line(data: &[u8], sysv: bool) -> String {
    if sysv {
        let (sum, blocks) = sysv_sum(data);
        format!("{sum} {blocks}")
    } else {
        let (sum, blocks) = bsd_sum(data);
        format!("{sum:05} {blocks:5}")
    }
}

/// The BSD checksum and the count of 1024-byte blocks (rounded up).
fn bsd_sum(data: &[u8]) -> (u16, u64) {
    let mut sum: u16 = 0;
    for &b in data {
        sum = sum.rotate_right(1).wrapping_add(u16::from(b));
    }
    (sum, (data.len() as u64).div_ceil(1024))
}

/// The System V checksum and the count of 512-byte blocks (rounded up).
fn sysv_sum(data: &[u8]) -> (u32, u64) {
    let total: u64 = data.iter().map(|&b| u64::from(b)).sum();
    let r = (total & 0xffff) + ((total & 0xffff_ffff) >> 16);
    let folded = (r & 0xffff) + (r >> 16);
    (folded as u32, (data.len() as u64).div_ceil(512))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_algorithms() {
        assert_eq!(bsd_sum(b"hello\n"), (36979, 1));
        assert_eq!(sysv_sum(b"hello\n"), (542, 1));
        assert_eq!(bsd_sum(b""), (0, 0));
        assert_eq!(sysv_sum(&[0u8; 5000]), (0, 10));
    }
}
