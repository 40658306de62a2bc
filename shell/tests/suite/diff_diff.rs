//! Differential suite of `diff`: each case runs after a common setup script
//! (a few files and two directory trees) in our shell and in the host's bash
//! in a fresh temp dir with `LC_ALL=C`. Stdout and exit status must agree;
//! when GNU prints an error, ours must print one too. Unified headers carry
//! host mtimes, so most `-u` cases drop them (`tail -n +3`) or set `--label`.

use crate::support::suite::Suite;

const SETUP: &str = "printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n' > a; printf '1\\n2\\nthree\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11\\n' > b; \
printf 'x\\ny' > nonl; printf 'x\\ny\\n' > nl; printf 'A  b\\nc\\n' > s1; printf 'a b\\n\\nc\\n' > s2; : > empty; \
mkdir -p d1/sub d2/sub d1/only1; printf 'same\\n' > d1/f; printf 'same\\n' > d2/f; printf 'old\\n' > d1/sub/g; \
printf 'new\\n' > d2/sub/g; printf 'x\\n' > d2/extra; seq 1 40 > long1; seq 1 40 | sed 's/^5$/five/; s/^30$/thirty/' > long2; ";

/// One case per line; blank lines and `#` comments are skipped.
const CASES: &str = r#"
diff a a
diff a b
diff b a
diff a empty
diff empty a
diff empty empty
diff nonl nl
diff nl nonl
diff -q a b
diff -q a a
diff --brief a b
diff -s a a
diff -s a b
diff -u a b | tail -n +3
diff -u b a | tail -n +3
diff -U 1 a b | tail -n +3
diff -U0 a b | tail -n +3
diff -U 0 long1 long2 | tail -n +3
diff -u long1 long2 | tail -n +3
diff -U 10 long1 long2 | tail -n +3
diff long1 long2
diff -u nonl nl | tail -n +3
diff -u empty a | tail -n +3
diff -u a empty | tail -n +3
diff -u --label x --label y a b
diff --label=x --label=y -u a b
diff -u a a
diff -i s1 s2
diff -w s1 s2
diff -b s1 s2
diff -B s1 s2
diff -wB s1 s2
diff -iwB s1 s2
diff a missing
diff missing a
diff a
diff
diff a b c
diff -Z a b
printf "a  \nb\n" > x; printf "a\nb\n" > y; diff -Z x y; echo $?
diff d1 d2
diff -r d1 d2
diff -rq d1 d2
diff -qr d1 d2
diff -ru d1 d2 | grep -v '^[-+][-+][-+]'
diff -rN d1 d2
diff -r d1 d1
diff -q d1 d2
diff a d1
diff d1/f d2
printf '1\n2\n' | diff - a
printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n' | diff a -
diff -N a nosuch
diff -N nosuch a
diff -u -N nosuch a | tail -n +3
seq 1 100 > x; seq 1 100 | sed '50d' > y; diff x y
seq 1 100 > x; seq 1 100 | sed '1d;$d' > y; diff x y
seq 1 100 > x; seq 1 100 | sed '1d;$d' > y; diff -u x y | tail -n +3
seq 1 100 > x; seq 1 100 | sed 's/7/X/' > y; diff x y
seq 1 100 > x; seq 1 100 | sed 's/7/X/' > y; diff -u x y | tail -n +3
seq 1 50 > x; seq 1 50 | sort > y; diff x y
seq 1 50 > x; seq 1 50 | sort > y; diff -u x y | tail -n +3
printf 'a\nb\nc\n' > x; printf 'c\nb\na\n' > y; diff x y
printf 'a\nb\nc\n' > x; printf 'c\nb\na\n' > y; diff -u x y | tail -n +3
printf 'a\na\nb\n' > x; printf 'a\nb\nb\n' > y; diff x y
printf 'p\nq\n' > x; printf 'p\nq\nr\ns\n' > y; diff x y; echo $?
printf 'p\nq\nr\ns\n' > x; printf 'q\nr\n' > y; diff x y
printf 'p\nq\nr\ns\n' > x; printf 'q\nr\n' > y; diff -u x y | tail -n +3
diff a b > /dev/null; echo $?
diff a a > /dev/null; echo $?
diff a missing 2>/dev/null; echo $?
cmp a a; echo $?
# option spellings: -NUM (digits of adjacent options run together), -U's
# and --unified's lengths as strtoimax reads them, abbreviations, errors
diff -5 a b
diff -2u long1 long2 | tail -n +3
diff -u2 long1 long2 | tail -n +3
diff -1 -2 -u long1 long2 | tail -n +3
diff -u -1 long1 long2 | tail -n +3
diff -U 1 -5 long1 long2 | tail -n +3
diff -5 -U 1 long1 long2 | tail -n +3
diff -U 6 -U 1 long1 long2 | tail -n +3
diff -u -U 1 long1 long2 | tail -n +3
diff --unified -1 long1 long2 | tail -n +3
diff --unified=1 -U 4 long1 long2 | tail -n +3
diff -0u long1 long2 | tail -n +3
diff -U '' long1 long2 | tail -n +3
diff -U +2 long1 long2 | tail -n +3
diff -U ' 2' long1 long2 | tail -n +3
diff -U -0 long1 long2 | tail -n +3
diff -U 99999999999999999999 long1 long2 | tail -n +3
diff -99999999999999999999u long1 long2 | tail -n +3
diff --unif a b | tail -n +3
diff --rec --bri d1 d2
diff --ignore-c s1 s2
diff --te a b
diff -r -U 1 d1 d2 | grep '^diff'
diff -r -- d1 d2 | grep '^diff'
diff -r d1 -u1 d2 | grep '^diff'
diff d1/sub d2/sub
diff --bogus a b 2>&1; echo $?
diff -U 2>&1; echo $?
diff -U x a b 2>&1; echo $?
diff -U -1 a b 2>&1; echo $?
diff -U ' ' a b 2>&1; echo $?
diff --unified=x a b 2>&1; echo $?
diff --un a b 2>&1; echo $?
diff --i a b 2>&1; echo $?
diff --normal=3 a b 2>&1; echo $?
diff -u --normal a b 2>&1; echo $?
diff --normal -U 2 a b 2>&1; echo $?
diff -U x --normal a b 2>&1; echo $?
diff --label 2>&1; echo $?
diff 2>&1; echo $?
diff a 2>&1; echo $?
diff a b c 2>&1; echo $?
# issue 17: `diff - -` is standard input against itself
printf 'a\n' | diff - -
printf 'a\n' | diff -u - -
printf 'a\n' | diff -s - -
printf 'a\n' | diff - a
printf 'a\n' | diff a -
"#;

#[test]
fn diff_matches_gnu() {
    let mut suite = Suite::of_gnu_tools("diff_diff");
    suite.run_lines(SETUP, CASES);
    suite.finish();
}
