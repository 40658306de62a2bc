//! bc's `-l` math library: `s(x)` sine, `c(x)` cosine, `a(x)` arctangent,
//! `l(x)` natural logarithm, `e(x)` exponential. Each is computed with ten
//! guard digits and truncated to `scale`: the correctly truncated value.
//! GNU bc's libmath works with fewer guard digits, so at small scales its
//! last digit can be lower (`scale=5; s(3)`: GNU `.14111`, here `.14112`,
//! the true value being 0.1411200...).

use super::num::Num;

const GUARD: usize = 10;

fn n(v: i64) -> Num {
    Num::from_i64(v)
}

/// Sums a power series `sum term_k` until the terms vanish at `ws` digits;
/// `next(term, k)` derives term `k` from term `k - 1`.
fn series(first: Num, mut next: impl FnMut(&Num, i64) -> Num) -> Num {
    let mut sum = first.clone();
    let mut term = first;
    let mut k = 1;
    loop {
        term = next(&term, k);
        if term.is_zero() || k > 100_000 {
            return sum;
        }
        sum = sum.add(&term);
        k += 1;
    }
}

/// `e(x)`.
pub fn exp(x: &Num, scale: usize) -> Num {
    let ws = scale + GUARD;
    if x.cmp(&Num::zero()).is_lt() {
        let p = exp_ws(&x.neg(), ws);
        return n(1).div(&p, ws).unwrap_or_default().rescale(scale);
    }
    exp_ws(x, ws).rescale(scale)
}

fn exp_ws(x: &Num, ws: usize) -> Num {
    // Halve until small, then square back.
    let mut x = x.rescale(ws);
    let mut halvings = 0;
    while x.cmp(&n(1)).is_gt() {
        x = x.div(&n(2), ws + halvings).unwrap_or_default();
        halvings += 1;
    }
    let ws2 = ws + halvings;
    let mut r = series(n(1), |t, k| {
        t.mul(&x, ws2).div(&n(k), ws2).unwrap_or_default()
    });
    for _ in 0..halvings {
        r = r.mul(&r, ws2);
    }
    r
}

/// `l(x)`; `None` for `x <= 0`.
pub fn ln(x: &Num, scale: usize) -> Option<Num> {
    if !x.cmp(&Num::zero()).is_gt() {
        return None;
    }
    let ws = scale + GUARD;
    let mut x = x.rescale(ws);
    let mut f = 1i64;
    // Bring x close to 1 with square roots: l(x) = 2 l(sqrt x).
    while x.cmp(&n(2)).is_ge() {
        x = x.sqrt(ws)?;
        f *= 2;
    }
    let half = Num::parse("0.5", 10);
    while x.cmp(&half).is_le() {
        x = x.sqrt(ws)?;
        f *= 2;
    }
    // l(x) = 2 atanh(u), u = (x-1)/(x+1).
    let u = x.sub(&n(1)).div(&x.add(&n(1)), ws)?;
    let u2 = u.mul(&u, ws);
    let mut pow = u.clone();
    let mut sum = u.clone();
    let mut k = 3;
    loop {
        pow = pow.mul(&u2, ws);
        let t = pow.div(&n(k), ws)?;
        if t.is_zero() {
            break;
        }
        sum = sum.add(&t);
        k += 2;
    }
    Some(sum.mul(&n(2 * f), ws).rescale(scale))
}

/// `a(x)`.
pub fn atan(x: &Num, scale: usize) -> Num {
    let ws = scale + GUARD;
    atan_ws(x, ws).rescale(scale)
}

fn atan_ws(x: &Num, ws: usize) -> Num {
    let mut x = x.rescale(ws);
    let mut f = 1i64;
    let small = Num::parse("0.2", 10);
    // a(x) = 2 a(x / (1 + sqrt(1 + x^2))).
    while x.cmp(&small).is_gt() || x.cmp(&small.neg()).is_lt() {
        let r = n(1).add(&x.mul(&x, ws)).sqrt(ws).unwrap_or_default();
        x = x.div(&n(1).add(&r), ws).unwrap_or_default();
        f *= 2;
    }
    let x2 = x.mul(&x, ws);
    let mut pow = x.clone();
    let mut sum = x.clone();
    let mut k = 3;
    let mut sign = -1;
    loop {
        pow = pow.mul(&x2, ws);
        let t = pow.div(&n(k), ws).unwrap_or_default();
        if t.is_zero() {
            break;
        }
        sum = if sign < 0 { sum.sub(&t) } else { sum.add(&t) };
        sign = -sign;
        k += 2;
    }
    sum.mul(&n(f), ws)
}

/// `s(x)`.
pub fn sin(x: &Num, scale: usize) -> Num {
    let ws = scale + GUARD;
    sin_ws(&x.rescale(ws), ws).rescale(scale)
}

/// `c(x)`.
pub fn cos(x: &Num, scale: usize) -> Num {
    let ws = scale + GUARD;
    let half_pi = atan_ws(&n(1), ws).mul(&n(2), ws);
    sin_ws(&x.rescale(ws).add(&half_pi), ws).rescale(scale)
}

fn sin_ws(x: &Num, ws: usize) -> Num {
    // Reduce modulo 2 pi.
    let two_pi = atan_ws(&n(1), ws).mul(&n(8), ws);
    let k = x.div(&two_pi, 0).unwrap_or_default();
    let x = x.sub(&k.mul(&two_pi, ws));
    let x2 = x.mul(&x, ws);
    let mut term = x.clone();
    let mut sum = x.clone();
    let mut k = 1i64;
    loop {
        term = term
            .mul(&x2, ws)
            .div(&n((2 * k) * (2 * k + 1)), ws)
            .unwrap_or_default()
            .neg();
        if term.is_zero() {
            return sum;
        }
        sum = sum.add(&term);
        k += 1;
    }
}
