//! Myers' O(ND) shortest edit script between two line sequences.

/// One step of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Line `a[i]` equals `b[j]`.
    Equal(usize, usize),
    /// Line `a[i]` is deleted.
    Delete(usize),
    /// Line `b[j]` is inserted.
    Insert(usize),
}

/// The shortest edit script turning `a` into `b` (deletions before
/// insertions within a change, as GNU diff prints them).
pub fn diff<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Op> {
    // Trim the common prefix and suffix: cheap, and the usual case.
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops: Vec<Op> = (0..pre).map(|i| Op::Equal(i, i)).collect();
    let mid = myers(am, bm);
    ops.extend(mid.into_iter().map(|op| match op {
        Op::Equal(i, j) => Op::Equal(i + pre, j + pre),
        Op::Delete(i) => Op::Delete(i + pre),
        Op::Insert(j) => Op::Insert(j + pre),
    }));
    let (ao, bo) = (a.len() - suf, b.len() - suf);
    ops.extend((0..suf).map(|k| Op::Equal(ao + k, bo + k)));
    ops
}

fn myers<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Op> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m) as usize;
    let off = max as isize + 1;
    let mut v = vec![0isize; 2 * max + 3];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    'outer: for d in 0..=max as isize {
        trace.push(v.clone());
        let mut k = -d;
        while k <= d {
            let idx = (k + off) as usize;
            let mut x = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
                v[idx + 1]
            } else {
                v[idx - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[idx] = x;
            if x >= n && y >= m {
                trace.push(v.clone());
                break 'outer;
            }
            k += 2;
        }
    }
    // Backtrack through the saved frontiers.
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..trace.len() as isize - 1).rev() {
        let v = &trace[d as usize];
        let k = x - y;
        let idx = (k + off) as usize;
        let prev_k = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = v[(prev_k + off) as usize];
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            x -= 1;
            y -= 1;
            ops.push(Op::Equal(x as usize, y as usize));
        }
        if x == prev_x {
            y -= 1;
            ops.push(Op::Insert(y as usize));
        } else {
            x -= 1;
            ops.push(Op::Delete(x as usize));
        }
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        ops.push(Op::Equal(x as usize, y as usize));
    }
    ops.reverse();
    // Within each change, put deletions first.
    let mut out = Vec::with_capacity(ops.len());
    let mut i = 0;
    while i < ops.len() {
        if matches!(ops[i], Op::Equal(..)) {
            out.push(ops[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < ops.len() && !matches!(ops[i], Op::Equal(..)) {
            i += 1;
        }
        out.extend(ops[start..i].iter().filter(|o| matches!(o, Op::Delete(_))));
        out.extend(ops[start..i].iter().filter(|o| matches!(o, Op::Insert(_))));
    }
    out
}
