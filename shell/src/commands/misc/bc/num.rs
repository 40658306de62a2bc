//! bc's numbers: arbitrary-precision decimals, a sign, the decimal digits of
//! the magnitude (least significant first) and a scale (how many of those
//! digits are fractional). Operations truncate toward zero like bc's.

use std::cmp::Ordering;

/// A decimal number: `mag / 10^scale`, negated when `neg`.
#[derive(Clone, Debug, Default)]
pub struct Num {
    neg: bool,
    /// Decimal digits, least significant first, no high zeros.
    mag: Vec<u8>,
    /// Fractional digits.
    pub scale: usize,
}

fn trim(v: &mut Vec<u8>) {
    while v.last() == Some(&0) {
        v.pop();
    }
}

fn cmp_mag(a: &[u8], b: &[u8]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn add_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let mut carry = 0;
    for i in 0..a.len().max(b.len()) {
        let s = a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0) + carry;
        out.push(s % 10);
        carry = s / 10;
    }
    if carry > 0 {
        out.push(carry);
    }
    out
}

/// `a - b` for `a >= b`.
fn sub_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i8;
    for (i, x) in a.iter().enumerate() {
        let mut d = *x as i8 - b.get(i).copied().unwrap_or(0) as i8 - borrow;
        borrow = 0;
        if d < 0 {
            d += 10;
            borrow = 1;
        }
        out.push(d as u8);
    }
    trim(&mut out);
    out
}

fn mul_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut acc = vec![0u32; a.len() + b.len()];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            acc[i + j] += (*x as u32) * (*y as u32);
        }
        // Keep the accumulators small; and a product of big numbers
        // (`2^999999`) is long work: let a cancelled run leave it.
        if i % 64 == 63 {
            normalize(&mut acc);
            crate::cancel::point();
        }
    }
    normalize(&mut acc);
    let mut out: Vec<u8> = acc.into_iter().map(|d| d as u8).collect();
    trim(&mut out);
    out
}

fn normalize(acc: &mut Vec<u32>) {
    let mut carry = 0;
    for d in acc.iter_mut() {
        let s = *d + carry;
        *d = s % 10;
        carry = s / 10;
    }
    while carry > 0 {
        acc.push(carry % 10);
        carry /= 10;
    }
}

/// Floor of `a / b` (`b` non-zero), schoolbook long division.
fn div_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut q = vec![0u8; a.len()];
    let mut r: Vec<u8> = Vec::new();
    for i in (0..a.len()).rev() {
        crate::cancel::point();
        r.insert(0, a[i]);
        trim(&mut r);
        let mut d = 0;
        while cmp_mag(&r, b) != Ordering::Less {
            r = sub_mag(&r, b);
            d += 1;
        }
        q[i] = d;
    }
    trim(&mut q);
    q
}

/// `v * 10^n`.
fn shift(v: &[u8], n: usize) -> Vec<u8> {
    if v.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0; n];
    out.extend_from_slice(v);
    out
}

impl Num {
    /// Zero.
    pub fn zero() -> Num {
        Num::default()
    }

    /// A small integer.
    pub fn from_i64(v: i64) -> Num {
        let mut mag = Vec::new();
        let mut u = v.unsigned_abs();
        while u > 0 {
            mag.push((u % 10) as u8);
            u /= 10;
        }
        Num {
            neg: v < 0,
            mag,
            scale: 0,
        }
    }

    /// Parses a constant in `ibase`, as GNU bc reads it: a lone digit has
    /// its face value whatever the base (`A` is 10, `Z` 35); in longer
    /// numbers a digit too big for the base counts as the base's highest
    /// (`ibase=16; 1G` is 31). Decimal constants clamp each digit to 9. The
    /// fraction of a non-decimal constant keeps as many digits as it had
    /// (`ibase=16; 1.8` is 1.5).
    pub fn parse(text: &str, ibase: u32) -> Num {
        // An integer part of a single digit keeps its face value whatever
        // `ibase` is (`A` is ten, `G.8` sixteen and a half), leading zeros
        // aside (`0A`); elsewhere a digit past the base counts as
        // `ibase - 1` (`1A` in base 9 is 17, `.A` is .8).
        let text = text.trim_start_matches('0');
        if text.len() == 1 && text != "." {
            return Num::from_i64(digit(text.as_bytes()[0]) as i64);
        }
        let (int, frac) = match text.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (text, None),
        };
        if ibase == 10 {
            let frac = frac.unwrap_or("");
            let mut mag: Vec<u8> = frac
                .bytes()
                .rev()
                .chain(int.bytes().rev())
                .map(|b| digit(b).min(9) as u8)
                .collect();
            trim(&mut mag);
            return Num {
                neg: false,
                mag,
                scale: frac.len(),
            };
        }
        let base = Num::from_i64(ibase as i64);
        let top = ibase - 1;
        let mut n = Num::zero();
        for b in int.bytes() {
            let d = if int.len() == 1 {
                digit(b)
            } else {
                digit(b).min(top)
            };
            n = n.mul(&base, 0).add(&Num::from_i64(d as i64));
        }
        let Some(frac) = frac else { return n };
        let mut num = Num::zero();
        let mut den = Num::from_i64(1);
        for b in frac.bytes() {
            num = num
                .mul(&base, 0)
                .add(&Num::from_i64(digit(b).min(top) as i64));
            den = den.mul(&base, 0);
        }
        n.add(&num.div(&den, frac.len()).unwrap_or_default())
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    /// The value as an integer, when it fits (fraction truncated).
    pub fn to_i64(&self) -> Option<i64> {
        let int = self.mag.get(self.scale..).unwrap_or(&[]);
        if int.len() > 18 {
            return None;
        }
        let v = int.iter().rev().fold(0i64, |acc, d| acc * 10 + *d as i64);
        Some(if self.neg { -v } else { v })
    }

    /// This number with `s` fractional digits (truncating or padding).
    pub fn rescale(&self, s: usize) -> Num {
        let mag = if s >= self.scale {
            shift(&self.mag, s - self.scale)
        } else {
            let mut m = self.mag.get(self.scale - s..).unwrap_or(&[]).to_vec();
            trim(&mut m);
            m
        };
        let neg = self.neg && !mag.is_empty();
        Num { neg, mag, scale: s }
    }

    /// Negation.
    pub fn neg(&self) -> Num {
        let mut n = self.clone();
        n.neg = !n.neg && !n.mag.is_empty();
        n
    }

    /// Compares values.
    pub fn cmp(&self, o: &Num) -> Ordering {
        let s = self.scale.max(o.scale);
        let (a, b) = (self.rescale(s), o.rescale(s));
        match (a.neg, b.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => cmp_mag(&a.mag, &b.mag),
            (true, true) => cmp_mag(&b.mag, &a.mag),
        }
    }

    /// `self + o`, at the larger scale.
    pub fn add(&self, o: &Num) -> Num {
        let s = self.scale.max(o.scale);
        let (a, b) = (self.rescale(s), o.rescale(s));
        let (neg, mag) = if a.neg == b.neg {
            (a.neg, add_mag(&a.mag, &b.mag))
        } else if cmp_mag(&a.mag, &b.mag) != Ordering::Less {
            (a.neg, sub_mag(&a.mag, &b.mag))
        } else {
            (b.neg, sub_mag(&b.mag, &a.mag))
        };
        Num {
            neg: neg && !mag.is_empty(),
            mag,
            scale: s,
        }
    }

    /// `self - o`.
    pub fn sub(&self, o: &Num) -> Num {
        self.add(&o.neg())
    }

    /// `self * o`, at bc's scale `min(a+b, max(scale, a, b))`.
    pub fn mul(&self, o: &Num, scale: usize) -> Num {
        let full = Num {
            neg: self.neg != o.neg,
            mag: mul_mag(&self.mag, &o.mag),
            scale: self.scale + o.scale,
        };
        let want = full.scale.min(scale.max(self.scale).max(o.scale));
        full.rescale(want)
    }

    /// `self / o` with `scale` fractional digits; `None` when `o` is zero.
    pub fn div(&self, o: &Num, scale: usize) -> Option<Num> {
        if o.is_zero() {
            return None;
        }
        let num = shift(&self.mag, o.scale + scale);
        let den = shift(&o.mag, self.scale);
        let mag = div_mag(&num, &den);
        Some(Num {
            neg: self.neg != o.neg && !mag.is_empty(),
            mag,
            scale,
        })
    }

    /// bc's `%`: `a - (a / b) * b`, the quotient at `scale` digits.
    pub fn rem(&self, o: &Num, scale: usize) -> Option<Num> {
        let q = self.div(o, scale)?;
        let p = Num {
            neg: q.neg != o.neg,
            mag: mul_mag(&q.mag, &o.mag),
            scale: q.scale + o.scale,
        };
        let r = self.sub(&p);
        Some(r.rescale((scale + o.scale).max(self.scale)))
    }

    /// `self ^ e` for an integer `e`; `None` on division by zero.
    pub fn pow(&self, e: i64, scale: usize) -> Option<Num> {
        let mut base = self.clone();
        let mut acc = Num::from_i64(1);
        let mut k = e.unsigned_abs();
        while k > 0 {
            if k & 1 == 1 {
                acc = acc.mul(&base, usize::MAX);
            }
            k >>= 1;
            if k > 0 {
                base = base.mul(&base, usize::MAX);
            }
        }
        if e < 0 {
            return Num::from_i64(1).div(&acc, scale);
        }
        let want = (self.scale.saturating_mul(e as usize)).min(scale.max(self.scale));
        Some(acc.rescale(want))
    }

    /// Square root at `max(scale, own scale)` digits; `None` when negative.
    pub fn sqrt(&self, scale: usize) -> Option<Num> {
        if self.neg {
            return None;
        }
        let rs = scale.max(self.scale);
        let n = shift(&self.mag, 2 * rs - self.scale);
        if n.is_empty() {
            return Some(Num::zero().rescale(rs));
        }
        // Newton's iteration from above.
        let mut x = shift(&[1], n.len().div_ceil(2));
        loop {
            let y = div_mag(&add_mag(&x, &div_mag(&n, &x)), &[2]);
            if cmp_mag(&y, &x) != Ordering::Less {
                break;
            }
            x = y;
        }
        Some(Num {
            neg: false,
            mag: x,
            scale: rs,
        })
    }

    /// Significant digits (bc's `length`).
    pub fn length(&self) -> usize {
        if self.mag.is_empty() {
            return if self.scale > 0 { self.scale } else { 1 };
        }
        self.mag.len().max(self.scale)
    }

    /// The fraction in base `obase`, GNU's way: one digit for each power
    /// of the base until the power has more digits than the scale, each
    /// taken by multiplying the (truncated) fraction by the base.
    fn push_fraction(&self, s: &mut String, base: &Num, obase: u32, w: usize) {
        if self.scale == 0 {
            return;
        }
        s.push('.');
        let mut frac = self.sub(&self.rescale(0));
        frac.neg = false;
        let mut power = Num::from_i64(1);
        let mut first = true;
        while power.mag.len() <= self.scale {
            frac = frac.mul(base, self.scale);
            let d = frac.to_i64().unwrap_or(0);
            frac = frac.sub(&Num::from_i64(d));
            if obase <= 16 {
                s.push(
                    char::from_digit(d as u32, 16)
                        .unwrap_or('0')
                        .to_ascii_uppercase(),
                );
            } else {
                let sep = if first { "" } else { " " };
                s.push_str(&format!("{sep}{d:0w$}"));
            }
            first = false;
            power = power.mul(base, 0);
        }
    }

    /// Formats in base `obase`, without wrapping.
    pub fn format(&self, obase: u32) -> String {
        let mut s = String::new();
        if self.neg {
            s.push('-');
        }
        if obase != 10 {
            if self.is_zero() {
                return "0".into();
            }
            let mut int = self.rescale(0);
            int.neg = false;
            let base = Num::from_i64(obase as i64);
            let mut digits = Vec::new();
            while !int.is_zero() {
                let q = Num {
                    neg: false,
                    mag: div_mag(&int.mag, &base.mag),
                    scale: 0,
                };
                let r = int.sub(&q.mul(&base, 0)).to_i64().unwrap_or(0) as u32;
                digits.push(r);
                int = q;
            }
            let w = (obase - 1).to_string().len();
            for d in digits.iter().rev() {
                if obase <= 16 {
                    s.push(char::from_digit(*d, 16).unwrap_or('0').to_ascii_uppercase());
                } else {
                    s.push_str(&format!(" {d:0w$}"));
                }
            }
            self.push_fraction(&mut s, &base, obase, w);
            return s;
        }
        let int = self.mag.get(self.scale..).unwrap_or(&[]);
        if int.is_empty() && (self.scale == 0 || self.mag.is_empty()) {
            return "0".into();
        }
        for d in int.iter().rev() {
            s.push((b'0' + d) as char);
        }
        if self.scale > 0 {
            s.push('.');
            for i in (0..self.scale).rev() {
                s.push((b'0' + self.mag.get(i).copied().unwrap_or(0)) as char);
            }
        }
        s
    }
}

fn digit(b: u8) -> u32 {
    match b {
        b'0'..=b'9' => (b - b'0') as u32,
        b'A'..=b'Z' => (b - b'A') as u32 + 10,
        _ => 0,
    }
}
