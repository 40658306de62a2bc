//! bc's `-l` math library: `s(x)` sine, `c(x)` cosine, `a(x)` arctangent,
//! `l(x)` natural logarithm, `e(x)` exponential.
//!
//! GNU bc defines these in bc itself, and its results are not the correctly
//! truncated values: each function works a few digits past `scale` with
//! bc's own truncating arithmetic, then truncates. To print the same last
//! digit as GNU (`scale=20; c(3.14159265358979323846)` is
//! `-1.00000000000000000000`, not `-.99999999999999999999`), each function
//! here takes the same steps at the same scales: the same preconditioning
//! (halving for `e`, square roots for `l`, reduction by pi for `s`,
//! subtracting atan(.2) for `a`), the same series, the same stopping rule
//! (a term that truncates to zero) and the same final truncation. bc's
//! scale rules are [`Num`]'s: `+ -` keep the larger scale, `*` keeps
//! `min(a+b, max(scale, a, b))`, `/` gives `scale` digits.

use super::num::Num;

fn n(v: i64) -> Num {
    Num::from_i64(v)
}

/// A decimal constant.
fn k(text: &str) -> Num {
    Num::parse(text, 10)
}

/// pi/4 and atan(.2) to 60 digits: the library answers `a(1)` and `a(.2)`
/// from these (truncated to `scale`) when `scale <= 60`.
const QUARTER_PI: &str = ".785398163397448309615660845819875721049292349843776455243736";
const ATAN_FIFTH: &str = ".197395559849880758370049765194790293447585103787852101517688";

/// The integer part of `v` as a scale (bc truncates when `scale` is set).
fn as_scale(v: &Num) -> usize {
    v.to_i64()
        .unwrap_or(0)
        .clamp(0, super::MAX_SCALE as i64 * 4) as usize
}

/// `e(x)`: halve x below 1 (one more digit per halving), sum the series at
/// `6 + scale + .44*x` digits, square back.
pub fn exp(x: &Num, scale: usize) -> Num {
    let z = scale;
    let minus = x.cmp(&Num::zero()).is_lt();
    let mut x = if minus { x.neg() } else { x.clone() };
    let work = as_scale(&n(6 + z as i64).add(&k(".44").mul(&x, z)));
    let mut sc = x.scale + 1;
    let mut halvings = 0;
    while x.cmp(&n(1)).is_gt() {
        halvings += 1;
        x = x.div(&n(2), sc).unwrap_or_default();
        sc += 1;
    }
    let sc = work;
    let mut v = n(1).add(&x);
    let mut a = x.clone();
    let mut d = n(1);
    let mut i = 2;
    loop {
        a = a.mul(&x, sc);
        d = d.mul(&n(i), sc);
        let e = a.div(&d, sc).unwrap_or_default();
        if e.is_zero() {
            for _ in 0..halvings {
                v = v.mul(&v, sc);
            }
            return if minus {
                n(1).div(&v, z).unwrap_or_default()
            } else {
                v.rescale(z)
            };
        }
        v = v.add(&e);
        i += 1;
    }
}

/// `l(x)`: square roots bring x into (.5, 2), then
/// `2 * sum(u^k / k)` over odd k with `u = (x-1)/(x+1)`, at `scale + 6`.
/// For `x <= 0` GNU answers `(1 - 10^scale)/1`.
pub fn ln(x: &Num, scale: usize) -> Num {
    let z = scale;
    if !x.cmp(&Num::zero()).is_gt() {
        let big = n(10).pow(z as i64, z).unwrap_or_default();
        return n(1).sub(&big).rescale(z);
    }
    let sc = z + 6;
    let mut f = 2i64;
    let mut x = x.clone();
    let half = k(".5");
    while x.cmp(&n(2)).is_ge() {
        f *= 2;
        x = x.sqrt(sc).unwrap_or_default();
    }
    while x.cmp(&half).is_le() {
        f *= 2;
        x = x.sqrt(sc).unwrap_or_default();
    }
    let mut num = x.sub(&n(1)).div(&x.add(&n(1)), sc).unwrap_or_default();
    let mut v = num.clone();
    let m = num.mul(&num, sc);
    let mut i = 3;
    loop {
        num = num.mul(&m, sc);
        let e = num.div(&n(i), sc).unwrap_or_default();
        if e.is_zero() {
            return n(f).mul(&v, sc).rescale(z);
        }
        v = v.add(&e);
        i += 2;
    }
}

/// `a(x)`: the known values at 1 and .2; else subtract .2 steps
/// (`atan(x) = atan(.2) + atan((x-.2)/(1+.2x))`) and sum the series at
/// `scale + 3`.
pub fn atan(x: &Num, scale: usize) -> Num {
    let z = scale;
    let minus = x.cmp(&Num::zero()).is_lt();
    let m = n(if minus { -1 } else { 1 });
    let mut x = if minus { x.neg() } else { x.clone() };
    let fifth = k(".2");
    for (at, value) in [(n(1), QUARTER_PI), (fifth.clone(), ATAN_FIFTH)] {
        if x.cmp(&at).is_eq() && z <= 60 {
            let digits = if z <= 25 {
                25
            } else if z <= 40 {
                40
            } else {
                60
            };
            return k(&value[..=digits]).div(&m, z).unwrap_or_default();
        }
    }
    let atan_fifth = if x.cmp(&fifth).is_gt() {
        atan(&fifth, z + 5)
    } else {
        Num::zero()
    };
    let sc = z + 3;
    let mut steps = 0i64;
    while x.cmp(&fifth).is_gt() {
        steps += 1;
        let den = n(1).add(&x.mul(&fifth, sc));
        x = x.sub(&fifth).div(&den, sc).unwrap_or_default();
    }
    let mut v = x.clone();
    let mut num = x.clone();
    let s = x.neg().mul(&x, sc);
    let mut i = 3;
    loop {
        num = num.mul(&s, sc);
        let e = num.div(&n(i), sc).unwrap_or_default();
        if e.is_zero() {
            let total = n(steps).mul(&atan_fifth, z).add(&v);
            return total.div(&m, z).unwrap_or_default();
        }
        v = v.add(&e);
        i += 2;
    }
}

/// `s(x)`: reduce by the nearest multiple of pi (computed at
/// `1.1*scale + 2`), then sum the series at `scale + 2`.
pub fn sin(x: &Num, scale: usize) -> Num {
    let z = scale;
    let sc = as_scale(&k("1.1").mul(&n(z as i64), z).add(&n(2)));
    let quarter_pi = atan(&n(1), sc);
    let minus = x.cmp(&Num::zero()).is_lt();
    let mut x = if minus { x.neg() } else { x.clone() };
    // At scale 0: the number of half turns, rounded.
    let turns = x
        .div(&quarter_pi, 0)
        .unwrap_or_default()
        .add(&n(2))
        .div(&n(4), 0)
        .unwrap_or_default();
    x = x.sub(&n(4).mul(&turns, 0).mul(&quarter_pi, 0));
    if !turns.rem(&n(2), 0).unwrap_or_default().is_zero() {
        x = x.neg();
    }
    let sc = z + 2;
    let mut v = x.clone();
    let mut e = x.clone();
    let s = x.neg().mul(&x, sc);
    let mut i = 3i64;
    loop {
        let factor = s.div(&n(i * (i - 1)), sc).unwrap_or_default();
        e = e.mul(&factor, sc);
        if e.is_zero() {
            let v = if minus { v.neg() } else { v };
            return v.rescale(z);
        }
        v = v.add(&e);
        i += 2;
    }
}

/// `c(x)`: `s(x + pi/2)` at `1.2*scale`.
pub fn cos(x: &Num, scale: usize) -> Num {
    let z = scale;
    let sc = as_scale(&n(z as i64).mul(&k("1.2"), z));
    let half_pi = atan(&n(1), sc).mul(&n(2), sc);
    sin(&x.add(&half_pi), sc).rescale(z)
}
