//! `cksum`: GNU coreutils 9.1's, which prints POSIX's CRC and size by
//! default and, with `-a`, the BSD or System V sums of `sum` or any digest
//! of the `*sum` commands (tagged unless `--untagged`); `-c` checks tagged
//! digest lines of any algorithm.

use crc::{CRC_32_CKSUM, Crc};

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use super::sums::{self, Algorithm, Expect};
use crate::commands::CommandCtx;
use crate::commands::files::common::invalid_choice;

pub(crate) const USAGE: &str = concat!(
    "Usage: cksum [OPTION]... [FILE]...
Print or verify checksums.
By default use the 32 bit CRC algorithm.

With no FILE, or when FILE is -, read standard input.

  -a, --algorithm=TYPE  select the digest type to use.  See DIGEST below.
  -c, --check           read checksums from the FILEs and check them
  -l, --length=BITS     digest length in bits; must not exceed the maximum for
                          the blake2 algorithm and must be a multiple of 8
      --tag             create a BSD-style checksum (the default)
      --untagged        create a reversed style checksum, without digest type
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

",
    sums::check_options_help!(),
    "
      --help        display this help and exit

DIGEST determines the digest algorithm and default output format:
  sysv      (equivalent to sum -s)
  bsd       (equivalent to sum -r)
  crc       (equivalent to cksum)
  md5       (equivalent to md5sum)
  sha1      (equivalent to sha1sum)
  sha224    (equivalent to sha224sum)
  sha256    (equivalent to sha256sum)
  sha384    (equivalent to sha384sum)
  sha512    (equivalent to sha512sum)
  blake2b   (equivalent to b2sum)
  sm3       (only available through cksum)
"
);

const SPEC: &[OptSpec] = &[
    opt("a", Some('a'), Some("algorithm"), Arg::Required),
    opt("c", Some('c'), Some("check"), Arg::None),
    opt("l", Some('l'), Some("length"), Arg::Required),
    opt("tag", None, Some("tag"), Arg::None),
    opt("untagged", None, Some("untagged"), Arg::None),
    opt("z", Some('z'), Some("zero"), Arg::None),
];

/// The words of `-a`, in GNU's order.
const ALGORITHMS: [&str; 11] = [
    "bsd", "sysv", "crc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3",
];

/// `cksum`
pub fn cksum(ctx: &mut CommandCtx<'_>) -> i32 {
    let spec: Vec<OptSpec> = SPEC.iter().chain(sums::CHECK_SPEC).copied().collect();
    let p = match common::start(ctx, &spec, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let word = p.last("a").unwrap_or("crc").to_string();
    if !ALGORITHMS.contains(&word.as_str()) {
        let valid: Vec<&[&str]> = ALGORITHMS.iter().map(std::slice::from_ref).collect();
        return invalid_choice(ctx, "--algorithm", &word, &valid);
    }
    if p.last("l").is_some() && word != "blake2b" {
        common::err(
            ctx.stderr,
            "cksum",
            "--length is only supported with --algorithm=blake2b",
        );
        return 1;
    }
    let bits = match sums::length_option(ctx, &p) {
        Ok(bits) => bits.unwrap_or(512),
        Err(status) => return status,
    };
    let digest = match word.as_str() {
        "md5" => Some(Algorithm::Md5),
        "sha1" => Some(Algorithm::Sha1),
        "sha224" => Some(Algorithm::Sha224),
        "sha256" => Some(Algorithm::Sha256),
        "sha384" => Some(Algorithm::Sha384),
        "sha512" => Some(Algorithm::Sha512),
        "blake2b" => Some(Algorithm::Blake2b(bits)),
        "sm3" => Some(Algorithm::Sm3),
        _ => None,
    };
    if p.has("c") {
        return match (digest, p.last("a")) {
            (Some(Algorithm::Blake2b(_)), _) => sums::check(ctx, Expect::Blake2bAnyLength, &p),
            (Some(a), _) => sums::check(ctx, Expect::Only(a), &p),
            (None, None) => sums::check(ctx, Expect::AnyTagged, &p),
            (None, Some(_)) => {
                let why = "--check is not supported with --algorithm={bsd,sysv,crc}";
                common::err(ctx.stderr, "cksum", why);
                1
            }
        };
    }
    match digest {
        Some(a) => sums::print_digests(ctx, a, &p, !p.has("untagged")),
        None => print_sums(ctx, &word, &p),
    }
}

/// `crc`, `bsd` or `sysv`: the sum and size of each operand, its name
/// after them when operands were given.
fn print_sums(ctx: &mut CommandCtx<'_>, word: &str, p: &common::Parsed) -> i32 {
    let named = !p.operands.is_empty();
    let names = if named {
        p.operands.clone()
    } else {
        vec!["-".to_string()]
    };
    let eol = if p.has("z") { '\0' } else { '\n' };
    let mut out = String::new();
    let mut status = 0;
    for name in &names {
        let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, name) {
            Ok(d) => d,
            Err(e) => {
                let _ = ctx.stdout.write_all(std::mem::take(&mut out).as_bytes());
                common::err(
                    ctx.stderr,
                    "cksum",
                    format!("{}: {e}", common::quotef(name)),
                );
                status = 1;
                continue;
            }
        };
        out.push_str(&match word {
            "crc" => format!("{} {}", posix_crc(&data), data.len()),
            _ => super::sum::sum_line(&data, word == "sysv"),
        });
        if named {
            out.push(' ');
            out.push_str(name);
        }
        out.push(eol);
    }
    let _ = ctx.stdout.write_all(out.as_bytes());
    status
}

/// POSIX `cksum`'s CRC: the data, then its length in as few bytes as it
/// takes (least significant first), through CRC-32/CKSUM.
fn posix_crc(data: &[u8]) -> u32 {
    const CKSUM: Crc<u32> = Crc::<u32>::new(&CRC_32_CKSUM);
    let mut digest = CKSUM.digest();
    digest.update(data);
    let mut len = data.len() as u64;
    while len > 0 {
        digest.update(&[len as u8]);
        len >>= 8;
    }
    digest.finalize()
}

#[cfg(test)]
mod tests {
    use super::posix_crc;

    #[test]
    fn crc_is_posix_cksum() {
        // `printf 'hello\n' | cksum` and `cksum < /dev/null` under GNU.
        assert_eq!(posix_crc(b"hello\n"), 3015617425);
        assert_eq!(posix_crc(b""), 4294967295);
    }
}
