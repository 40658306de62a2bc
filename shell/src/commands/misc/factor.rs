//! `factor`: the prime factors of each NUMBER operand (or of each
//! whitespace-separated word of stdin), as GNU coreutils 9.1 prints them
//! (`12: 2 2 3`). Numbers up to `u128::MAX` are factored by trial division,
//! Miller-Rabin and Pollard's rho (Brent's variant); larger ones, which GNU
//! factors with GMP, are refused as too large.

use std::io::{Read, Write};

use crate::commands::CommandCtx;
use crate::commands::text::common::{self, OptSpec, ParseMode};

pub(crate) const USAGE: &str = "\
Usage: factor [NUMBER]...
  or:  factor OPTION
Print the prime factors of each specified integer NUMBER.  If none
are specified on the command line, read them from standard input.

      --help        display this help and exit
      --version     output version information and exit
";

const SPEC: &[OptSpec] = &[common::opt(
    "version",
    None,
    Some("version"),
    common::Arg::None,
)];

/// `factor`
pub fn factor(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("version") {
        let _ = writeln!(ctx.stdout, "factor (GNU coreutils) 9.1");
        return 0;
    }
    // Buffered as stdio buffers a pipe: messages on stderr come out first
    // when both go to one place, as GNU's do.
    let mut out = std::io::BufWriter::with_capacity(4096, &mut *ctx.stdout);
    let mut ok = true;
    if p.operands.is_empty() {
        ok = from_stdin(ctx.stdin, &mut out, ctx.stderr);
    } else {
        for w in &p.operands {
            if ctx.control.check().is_err() {
                return 1;
            }
            match print_one(&mut out, ctx.stderr, w) {
                Ok(good) => ok &= good,
                Err(()) => return 1,
            }
        }
    }
    let _ = out.flush();
    i32::from(!ok)
}

/// Factors each blank-separated word of stdin, read a block at a time
/// through a cancellation point (so `factor < /dev/zero` ends with its
/// run). False when a word was bad or the output failed.
fn from_stdin(stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> bool {
    let mut ok = true;
    let mut word = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        crate::cancel::point();
        let n = match stdin.read(&mut buf) {
            Ok(0) | Err(_) => 0,
            Ok(n) => n,
        };
        let end = n == 0;
        for &b in buf[..n].iter().chain(end.then_some(&b' ')) {
            if !b.is_ascii_whitespace() {
                word.push(b);
                continue;
            }
            if word.is_empty() {
                continue;
            }
            match print_one(out, err, &String::from_utf8_lossy(&word)) {
                Ok(good) => ok &= good,
                // The reader left (SIGPIPE for GNU): stop.
                Err(()) => return false,
            }
            word.clear();
        }
        if end {
            return ok;
        }
    }
}

/// Prints `N: factors...` for one word, or GNU's message for a bad one;
/// `Err` when stdout cannot be written.
fn print_one(out: &mut dyn Write, err: &mut dyn Write, word: &str) -> Result<bool, ()> {
    match parse(word) {
        Ok(n) => {
            let mut line = format!("{n}:");
            for f in factorize(n) {
                line.push_str(&format!(" {f}"));
            }
            line.push('\n');
            out.write_all(line.as_bytes()).map_err(|_| ())?;
            Ok(true)
        }
        Err(too_large) => {
            let what = if too_large {
                "is too large"
            } else {
                "is not a valid positive integer"
            };
            let _ = writeln!(err, "factor: {} {what}", common::quote_locale(word));
            Ok(false)
        }
    }
}

/// GNU's reading of a number: leading blanks, an optional `+`, then digits
/// only. `Err(true)` when it is a number past `u128`.
fn parse(word: &str) -> Result<u128, bool> {
    let s = word.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(false);
    }
    s.parse::<u128>().map_err(|_| true)
}

/// The prime factors of `n`, ascending (none for 0 and 1).
fn factorize(mut n: u128) -> Vec<u128> {
    let mut out = Vec::new();
    if n < 2 {
        return out;
    }
    for p in [2u128, 3, 5] {
        while n.is_multiple_of(p) {
            out.push(p);
            n /= p;
        }
    }
    // Trial division by the numbers prime to 30, up to a small bound.
    let mut d: u128 = 7;
    let steps = [4u128, 2, 4, 2, 4, 6, 2, 6];
    let mut i = 0;
    while d <= 10_000 && d * d <= n {
        while n.is_multiple_of(d) {
            out.push(d);
            n /= d;
        }
        d += steps[i];
        i = (i + 1) % steps.len();
    }
    if n > 1 {
        split(n, &mut out);
    }
    out.sort_unstable();
    out
}

/// Adds the prime factors of `n` (no factor below 7) to `out`.
fn split(n: u128, out: &mut Vec<u128>) {
    if n == 1 {
        return;
    }
    if is_prime(n) {
        out.push(n);
        return;
    }
    let mut c = 1;
    loop {
        if let Some(d) = rho(n, c) {
            split(d, out);
            split(n / d, out);
            return;
        }
        c += 1;
    }
}

/// `a * b mod m` without overflow.
fn mul_mod(a: u128, b: u128, m: u128) -> u128 {
    if m <= u64::MAX as u128 {
        return a * b % m;
    }
    // Double and add: `m` above 2^64 is rare and its numbers small enough.
    let (mut a, mut b, mut r) = (a % m, b, 0u128);
    while b > 0 {
        if b & 1 == 1 {
            r = add_mod(r, a, m);
        }
        a = add_mod(a, a, m);
        b >>= 1;
    }
    r
}

fn add_mod(a: u128, b: u128, m: u128) -> u128 {
    let (s, over) = a.overflowing_add(b);
    if over || s >= m { s.wrapping_sub(m) } else { s }
}

fn pow_mod(mut b: u128, mut e: u128, m: u128) -> u128 {
    let mut r = 1 % m;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b, m);
        }
        b = mul_mod(b, b, m);
        e >>= 1;
    }
    r
}

/// Miller-Rabin: exact below 3.3e24 with these bases, and with 20 bases
/// beyond it wrong with a chance under 4^-20.
fn is_prime(n: u128) -> bool {
    const BASES: [u128; 20] = [
        2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71,
    ];
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One run of Brent's rho with `x^2 + c`: a proper factor of the composite
/// `n`, or `None` when this `c` fails.
fn rho(n: u128, c: u128) -> Option<u128> {
    let f = |x: u128| add_mod(mul_mod(x, x, n), c, n);
    let (mut y, mut r, mut q, mut g) = (2u128, 1u64, 1u128, 1u128);
    let mut x = y;
    let mut ys = y;
    while g == 1 {
        x = y;
        for _ in 0..r {
            y = f(y);
        }
        let mut k = 0;
        while k < r && g == 1 {
            crate::cancel::point();
            ys = y;
            for _ in 0..(r - k).min(128) {
                y = f(y);
                q = mul_mod(q, x.abs_diff(y), n);
                k += 1;
            }
            g = gcd(q, n);
        }
        r *= 2;
    }
    if g == n {
        // Backtrack one step at a time from the last saved point.
        loop {
            ys = f(ys);
            g = gcd(x.abs_diff(ys), n);
            if g > 1 {
                break;
            }
        }
    }
    (g != n).then_some(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors() {
        assert_eq!(factorize(0), Vec::<u128>::new());
        assert_eq!(factorize(12), vec![2, 2, 3]);
        assert_eq!(
            factorize(18_446_744_073_709_551_617),
            vec![274_177, 67_280_421_310_721]
        );
        assert_eq!(
            factorize(u128::MAX),
            vec![
                3,
                5,
                17,
                257,
                641,
                65_537,
                274_177,
                6_700_417,
                67_280_421_310_721
            ]
        );
        assert_eq!(
            factorize(1_000_000_007 * 998_244_353),
            vec![998_244_353, 1_000_000_007]
        );
        assert_eq!(parse(" +5"), Ok(5));
        assert_eq!(parse("5 "), Err(false));
        assert_eq!(parse("9".repeat(40).as_str()), Err(true));
    }
}
