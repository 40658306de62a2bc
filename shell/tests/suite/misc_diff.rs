//! Differential suite of the misc commands (`expr`, `truncate`, `shuf`,
//! `split`, `du`, `tree`, `file`, `timeout`, `dd`, `factor`, `tsort`, `sum`, host-only names, the command
//! lines of `env`, `printenv`, `sleep`, `which`, `seq`, `xargs`, `chmod`): each case is a
//! one-line script run by our shell (fresh virtual filesystem, cwd
//! `/workspace`) and by the host's bash in a fresh temp dir with `LC_ALL=C`
//! (`C.UTF-8` for `tree`, which draws its box characters only then).
//! Stdout and exit status must agree; when the host fails with a message,
//! ours must print one too. Cases needing a host tool that is missing
//! (`file`, `tree`) are skipped with a note.
//!
//! The cases avoid what legitimately differs: random output (`shuf` is
//! compared after `sort` or by count) and directory listing order (`du`
//! output is sorted; `tree` sorts itself).

use crate::support::cases;
use crate::support::host::{HostBash, host_has};
use crate::support::suite::Suite;

/// One case per line; blank lines and `#` comments are skipped.
const CASES: &str = r#"
# expr: arithmetic and precedence
expr 1 + 2
expr 2 + 3 \* 4
expr \( 2 + 3 \) \* 4
expr 10 / 3
expr 10 % 3
expr -10 / 3
expr -5 % 3
expr 5 - -3
expr 007
expr 007 + 0
expr 0
expr ''
expr 1 - 1
expr 99999999999999 \* 99999
expr 7 / 0
expr 7 % 0
expr a + 1
expr 1 +
expr 1 2
expr
expr -- 5
expr 3 \< 10
expr a \< b
expr b \< a
expr 10 \> 9
expr 10 \>= 10
expr 3 \<= 2
expr abc = abc
expr 1 = 1.0
expr 01 = 1
expr '' = 0
expr a != b
expr 2 == 2
expr 5 \> 3 = 1
# expr: | and &
expr 0 \| ''
expr '' \| 0
expr a \| b
expr 0 \| b
expr '' \& 1
expr a \& b
expr a \& 0
expr 1 \| 1 \& 0
# expr: strings and regex
expr abc : 'a\(.\)'
expr abc : 'x'
expr abc : 'ab'
expr abc : '.*'
expr hello : 'h.*o'
expr hello : '\(h.*\)l'
expr foo.txt : '.*\.\(.*\)'
expr abc : 'b'
expr abc : '^a'
expr aaa : 'a*'
expr '' : 'a*'
expr abc : '\('
expr match abc 'a.*'
expr match hello 'he\(l*\)'
expr substr hello 2 3
expr substr hello 0 2
expr substr hello 4 10
expr substr hello 6 1
expr substr hello 1 0
expr index hello lo
expr index hello z
expr index abc cba
expr length hello
expr length ''
expr length
expr + match
expr + length
expr - 1
expr \( 1 + 2
expr \( 1 \)
expr length abc + 1
expr x : x \& y
expr 3 \* \( 4 - 1 \) / 2
# truncate
printf 'hello\n' > f; truncate -s 3 f; cat f; echo; wc -c < f
printf 'hello\n' > f; truncate -s +3 f; wc -c < f
printf 'hello\n' > f; truncate -s -2 f; cat f
printf 'hello\n' > f; truncate -s -20 f; wc -c < f
printf 'hello\n' > f; truncate -s %4 f; wc -c < f
printf 'hello\n' > f; truncate -s /4 f; wc -c < f
printf 'hello\n' > f; truncate -s '<3' f; wc -c < f
printf 'hello\n' > f; truncate -s '>3' f; wc -c < f
printf 'hello\n' > f; truncate -s '>30' f; wc -c < f
truncate -s 10 new; wc -c < new; od -c new
truncate -s 1K k; wc -c < k
truncate -s 2KB k; wc -c < k
truncate -c -s 5 nope; echo $?; ls
truncate -s 5 a b; wc -c a b
truncate f
truncate -s abc f
truncate -s 5
truncate -s 5 d/x
mkdir d; truncate -s 5 d
truncate -s 0 f; wc -c < f
printf 'abc' > f; truncate --size=1 f; cat f
# shuf (random order: compare sorted or by count)
shuf -e a b c | sort
shuf -i 1-10 | sort -n
shuf -i 1-10 | wc -l
shuf -n 3 -i 1-100 | wc -l
shuf -n 0 -e a
shuf -e
shuf -i 3-2
shuf -i 5-3
shuf -i a-3
shuf -e a b -i 1-2
shuf -n x -e a
printf 'a\nb\nc\n' > f; shuf f | sort
printf 'a\nb\nc' | shuf | sort
printf 'a\nb\n' | shuf -n 5 | sort
shuf -r -n 5 -e x | tr -d '\n'
shuf -r -n 4 -i 7-7
shuf -z -e a b | tr '\0' '\n' | sort
shuf -i 1-5 -o out; sort -n out
shuf nope
shuf -n 2 -e a a a
seq 100 | shuf | sort -n | md5sum
# split
seq 10 > s; split -l 3 s; ls; cat xab
seq 10 > s; split -l 3 s p; cat pad
seq 10 > s; split -n 3 s p; wc -c p*
printf 'abcdefghijklmnopqrst' > b; split -n 3 b p; wc -c p*
seq 10 > s; split -n l/3 s q; wc -c q*
seq 2 > two; split -n 4 two r; wc -c r*
seq 10 > s; split -d -l 4 s; ls x*; cat x02
seq 10 > s; split -l 4 --additional-suffix=.txt s y; ls y*
seq 10 > s; split -a 3 -l 5 s; ls x*
seq 10 | split -l 6; cat xab
printf 'abcdefgh' | split -b 3; cat xaa; echo; cat xac
printf '%2500s' x > z; split -b 1K z; wc -c x*
seq 5 > s; split -b 4 s; cat xab
split -l 0 s
seq 30 > s; split -a 1 -l 1 s z
seq 3 | split -n 2
split nope
split -l 2 -d -a 3 <(seq 5) n; ls n*
seq 3 > s; split s; cat xaa
: > e; split e; ls
seq 3 > s; split -l 1 s -; ls
seq 700 | split -l 1; ls | sed -n '649,652p;675,678p'; ls | wc -l; cat xzaab
seq 100 | split -d -l 1; ls | sed -n '89,92p'; cat x9000
seq 30 | split -a 1 -d -l 3; ls
# du (ext4-like sizes; the host's /tmp is ext4)
mkdir -p d/s; printf hello > d/a; du -b d/a
mkdir -p d/s; printf hello > d/a; du -ab d | sort -k2
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du -a d | sort -k2
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du d | sort -k2
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du -s d
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du -sh d
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du -sb d
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du -ah d | sort -k2
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du -c d d/s
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du -d 0 d
mkdir -p d/s/t; du --max-depth=1 d | sort -k2
mkdir -p d/s/t; du -d 1 -a d | sort -k2
mkdir -p d/s; printf hello > d/a; printf '%5000s' x > d/s/b; du --apparent-size -h d | sort -k2
mkdir -p d/s; printf '%5000s' x > d/s/b; du -k d/s/b
mkdir -p d/s; printf '%5000s' x > d/s/b; du -b d/s/b d/s | sort -k2
mkdir -p d; : > d/e; du -a d | sort -k2
mkdir -p d; printf '%4096s' x > d/x; du -a d | sort -k2
mkdir -p d; printf '%4097s' x > d/x; du -ah d | sort -k2
printf '%2000000s' x > big; du -h big
printf '%2000000s' x > big; du -bh big
du nope
mkdir d; du -sa d
mkdir d; du -s -d 1 d
mkdir d; du -d x d
mkdir d; cd d; du
mkdir -p d/s; cd d; du | sort -k2
printf x > f; du -c f f
mkdir d; du d/
# tree (tree 2.x)
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree d
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree -a -f d
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree -d .
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree -L 1 .
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree -I 's*' d
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree --noreport d
mkdir -p d/s; printf hello > d/a; : > d/s/b; tree -L 0 d
mkdir -p d/s; printf hello > d/a; : > d/s/b; touch d/.h; tree d
mkdir -p d/s; printf hello > d/a; : > d/s/b; touch d/.h; tree -a d
mkdir -p d/s; : > d/a; ln -s a d/l; ln -s s d/ls; tree d
mkdir -p d/s; : > d/a; ln -s a d/l; ln -s s d/ls; tree -d d
tree nope
: > f; tree f
mkdir -p d/s; : > d/a; tree d/
mkdir -p d/s d/t; : > d/s/x; : > d/t/y; tree d d/s
mkdir -p a/b/c/d; : > a/b/c/d/e; tree a
mkdir -p a/b/c/d; : > a/b/c/d/e; tree -L 2 a
mkdir -p a/b c; : > a/b/x; : > a/y; : > c/z; tree
mkdir -p d; : > d/b; : > d/a; : > d/C; : > d/_x; tree d
mkdir -p d; : > d/x.log; : > d/y.txt; : > d/z.log; tree -I '*.log' d
mkdir -p d; : > d/x.log; : > d/y.txt; : > d/z.md; tree -I '*.log|*.md' d
mkdir -p d/e; tree --noreport -d d
# file
: > empty; file empty
printf 'hello\n' > t; file t
printf 'hello\n' > t; file -b t
printf 'a\r\nb\r\n' > crlf; file crlf
printf 'a\rb\r' > cr; file cr
printf 'no newline' > nn; file nn
printf 'h\303\251llo\n' > u; file u
printf 'h\303\251llo' > u; file u
printf '\351t\351\n' > lat; file lat
printf '{"a":1}\n' > j.json; file j.json
printf '[1,2]' > arr; file arr
printf '{}' > eo; file eo
printf '{"a":}' > bad; file bad
printf '123\n' > num; file num
printf '#!/bin/bash\necho hi\n' > s.sh; file s.sh
printf '#!/usr/bin/env bash\nx\n' > s; file s
printf '#!/bin/sh\necho\n' > s; file s
printf '#!/usr/bin/env python3\nprint(1)\n' > p; file p
printf '#!/usr/bin/python\nprint(1)\n' > p; file p
printf '#!/usr/bin/perl\n' > pl; file pl
printf '#!/usr/bin/env node\n' > nd; file nd
printf '#!/bin/foo\n' > fo; file fo
printf '#!/bin/bash\r\necho\r\n' > b; file b
printf '<html>\n' > h; file h
printf '\033[1m\n' > esc; file esc
printf 'a\000b' > bin; file bin
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\000\001\000\000\000\001\010\006\000\000\000' > i.png; file i.png
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\000\002\000\000\000\001\000\010\002\000\000\001' > i.png; file i.png
printf 'GIF89a\001\000\001\000\000' > g.gif; file g.gif
printf 'GIF87a\040\000\020\000\000' > g.gif; file g.gif
printf '%%PDF-1.4\n%%%%EOF\n' > d.pdf; file d.pdf
printf 'hi\n' > t; tar cf x.tar t; file x.tar
printf 'hi\n' > t; tar cf x.tar t; file --mime-type x.tar
mkdir dd; file dd
printf 'x\n' > t; ln -s t lt; file lt
printf 'x\n' > t; ln -s t lt; file -L lt
printf 'x\n' > t; ln -s t lt; file -h lt
ln -s nope broken; file broken
file nope; echo $?
file
printf 'x\n' > t; mkdir dd; : > empty; file t dd empty
printf 'hello\n' > t; printf '{}' > j; printf '#!/bin/sh\n' > s; mkdir dd; : > e; file --mime-type t j s dd e
printf '#!/usr/bin/env python3\n' > p; file --mime-type p
printf 'a\000' > bin; file --mime-type bin
printf 'hi\n' > t; file -i t
printf 'hi' | file -
printf 'hi\n' | file -b -
# bc
echo '1+2' | bc
echo '2+3*4' | bc
echo '(2+3)*4' | bc
echo '10/3' | bc
echo 'scale=2; 10/3' | bc
echo 'scale=5; 1/3*3' | bc
echo '2^100' | bc
echo '2^400' | bc
echo '2^10^2' | bc
echo '-7%3' | bc
echo 'scale=3; -7%3' | bc
echo '0.5*3' | bc
echo '1.50+1' | bc
echo '1.0/3' | bc
echo '-0.25' | bc
echo '-(3)' | bc
echo '-2^2' | bc
echo '7/2*2' | bc
echo 'x=5; x*2' | bc
echo 'a=3; a+=2; a' | bc
echo 'a=3; a++; a; --a' | bc
echo 'sqrt(2)' | bc
echo 'scale=10; sqrt(2)' | bc
echo 'sqrt(16)' | bc
echo 'scale=4; sqrt(0.25)' | bc
echo '2^-1' | bc
echo 'scale=3; 2^-2' | bc
echo '3 > 2' | bc
echo '3 < 2; 2 <= 2; 1 != 1' | bc
echo '5 == 5.0' | bc
echo '!0; 1 && 0; 0 || 3' | bc
echo 'length(123.45)' | bc
echo 'scale(1.230)' | bc
echo 'obase=16; 255' | bc
echo 'obase=2; 10' | bc
echo 'ibase=2; 101' | bc
echo 'ibase=16; FF' | bc
echo '"hi"' | bc
echo 'quit' | bc
printf '1\n2\nquit\n3\n' | bc
echo '1/0' | bc
echo '1+' | bc
echo 'x' | bc
echo 'scale=20; 1/7' | bc
echo '1/7' | bc -l
echo '123456789*987654321' | bc
echo '99999999999999999999+1' | bc
echo '0.1+0.2' | bc
echo '1.5*1.5' | bc
echo 'scale=1; 1.55*1.55' | bc
echo '-5/2' | bc
echo 'scale=2; -5/2' | bc
echo '.5' | bc
echo '00012' | bc
echo 'for (i=0; i<3; i++) i' | bc
echo 'i=0; while (i<3) { i; i=i+1 }' | bc
echo 'if (1 > 2) 5 else 6' | bc
echo 'x=2; if (x == 2) { "two"; 2 }' | bc
echo '/* c */ 4 # x' | bc
echo 'scale=2; 3.14159 * 2' | bc
echo '10 % 3; 10.5 % 3' | bc
printf '1+1\n' > f; bc f < /dev/null
echo '2^64' | bc
echo 's(1)' | bc -l
echo 'c(1)' | bc -l
echo 'a(1)' | bc -l
echo 'l(2)' | bc -l
echo 'e(1)' | bc -l
echo 'e(-1)' | bc -l
echo 'l(10)' | bc -l
echo 's(-2)' | bc -l
echo 'c(0)' | bc -l
echo 'a(-3)' | bc -l
echo 'e(5)' | bc -l
echo 'l(0.5)' | bc -l
echo '4*a(1)' | bc -l
echo 'e(0)' | bc -l
echo 's(100)' | bc -l
echo 'l(1)' | bc -l
echo '10^67' | bc
echo '10^68' | bc
echo '-10^68' | bc
echo '-2^3' | bc
echo '2^-2^2' | bc
echo '2*-3' | bc
echo 'scale=50; sqrt(2)' | bc
echo 'scale=100; 4*1/3' | bc
# issue 17: bc's continue, print, and loop-less break/continue
echo 'for(i=0;i<5;i++){ if(i==2) continue; print i, "\n" }' | bc
echo 'i=0; while(i<5){ i=i+1; if(i==2) continue; i }' | bc
echo 'for(i=0;i<3;i++){ for(j=0;j<3;j++){ if(j==1) continue; if (j==2) break; print i,j,"\n"}}' | bc
printf 'for(i=0;i<6;i++){ if(i%%2) continue\ni }\n' | bc
echo 'continue; 5' | bc 2>&1; echo $?
echo 'break; 5' | bc 2>&1; echo $?
echo 'x=5; print x, " ", x*2, "\n"; last' | bc
echo 'obase=16; print 255, "\n"' | bc
echo 'print "a\zb\\c\ed\qe\tf\n"' | bc
# issue 17: the math library's last digit, as GNU's libmath computes it
echo 'scale=20; c(3.14159265358979323846)' | bc -l
echo 'scale=20; s(1); a(1); l(2); e(1); c(1)' | bc -l
echo 'scale=30; s(1); a(1); l(2); e(1); c(1)' | bc -l
echo 'scale=50; s(2); c(2); a(2); l(3); e(2)' | bc -l
echo 'scale=70; a(1); a(.2); a(.5); s(.5)' | bc -l
echo 'scale=5; s(3); c(3); a(3); l(3); e(3)' | bc -l
echo 'scale=0; s(3); e(3); l(30); a(3)' | bc -l
echo 'scale=10; e(-2); e(10); e(0.001); l(0.001); l(1000)' | bc -l
echo 's(-1); c(-1); a(-1); a(-.2); s(7); c(100)' | bc -l
echo 'scale=25; a(1); a(.2); scale=40; a(1); scale=60; a(.2)' | bc -l
echo 'l(0); l(-1)' | bc -l
echo 'scale=4; l(0)' | bc -l
echo 'e(l(2)*3); l(e(2)); e(l(10)/2)' | bc -l
echo 'x=l(2); y=e(x); x; y; l(1.5)*1000' | bc -l
echo 'scale=100; e(1)' | bc -l
echo 'scale=100; l(2)' | bc -l
echo 'for(i=1;i<=5;i++) e(i)' | bc -l
echo 'for(i=1;i<=5;i++) l(i)' | bc -l
# issue 17: ibase digits past the base, lone digits, fractions, bases to 36
echo 'ibase=16; FF; 1G; G; ZZ; 1.Z; .G' | bc
echo 'ibase=16; 1.; 1.8; G.8; A; 1A.A1; 10.01' | bc
echo 'A; 1A; A.A; .A; 1.A; Z' | bc
echo 'ibase=2; 1.1; 11.11; 2; 12; 1.2' | bc
echo 'ibase=17; G; 10; GG' | bc
echo 'ibase=36; Z; 10; ZZ' | bc 2>/dev/null
echo 'ibase=16; obase=10; FF.F' | bc
echo 'ibase=8; 777; 8; 18; 7.4' | bc
echo 'obase=16; 0.5; 255.9; -1.25; 3.14159' | bc
echo 'obase=20; 12.5; 0.37' | bc
echo 'obase=2; 5.625' | bc
echo 'scale=3; obase=8; 1/3' | bc
# issue 17: programs with define, auto, return (and l/e inside them)
printf 'define f(x) { return x*2 }\nf(3)\n' | bc
printf 'define g(a,b) {\n auto t\n t = a+b\n return (t*t)\n}\ng(1,2)\n' | bc
printf 'define h() { "hi\n"; return; }\nh()\n' | bc
printf 'define r(n) { if (n<=1) return 1; return n*r(n-1) }\nr(10)\nr(25)\n' | bc
printf 'define p(x) { x = x + 1; return x }\nx=10; p(1); x\n' | bc
printf 'define k() { auto t; t=1; return t }\nt=5; k(); t\n' | bc
printf 'define f(x) { return x }\nf(1,2)\nq(1)\n' | bc 2>/dev/null; echo $?
echo 'define f(x) { scale=2; return x/3 }; f(1); scale' | bc
printf 'define v(x) { x }\nz=v(4)\nz\n' | bc
printf 'define f(x) {\n return (x)\n}\nf(2)\ndefine f(x) { return (x+1) }\nf(2)\n' | bc
printf 'define pw(b, x) { return e(x*l(b)) }\npw(2, 10); pw(10, 0.5)\n' | bc -l
printf 'define log10(x) { return l(x)/l(10) }\nscale=10; log10(1000); log10(2)\n' | bc -l
printf 'define round(x, n) { auto s; s = scale; scale = n; x = (x + 5/10^(n+1)) / 1; scale = s; return x }\nround(3.14159, 2)\n' | bc -l
printf 'define fib(n) { if (n < 2) return n; return fib(n-1) + fib(n-2) }\nfor (i = 0; i < 15; i++) print fib(i), " "\nprint "\n"\n' | bc
echo 'return 5' | bc; echo $?
echo '1/0; 5' | bc
printf '1/0; 5\n6\n' | bc
printf '5; 1+; 6\n7\n' | bc
echo '5; quit' | bc
echo 'if (0) quit; 5' | bc
printf '5\nquit\n6\n' | bc
echo 'x = 2; y = x * 3; y; if (y > 5) halt; 9' | bc
echo 'scale=0; e(1); l(2); s(1); c(1); a(1)' | bc -l
echo 'scale=3; e(-10); e(50); l(1e3); l(.000001)' | bc -l
echo 'scale=15; s(3.14159); s(-100); c(-3); a(100); a(-.5)' | bc -l
echo 'scale=8; e(.5)^2; sqrt(e(1)); l(sqrt(2))*2' | bc -l
echo 'a(.2); a(1); scale=61; a(1); a(.2)' | bc -l
echo 'x=3; define sq(x) { return x*x }; sq(4); x' | bc
printf 'define f(n) {\n auto i, s\n for (i = 1; i <= n; i++) s += i\n return s\n}\nf(100); i; s\n' | bc
echo 'define z() { }; z()' | bc
printf 'define a(x) { return x+1 }\na(1)\n' | bc -l
printf 'define c(n) { if (n == 0) return 0; if (n %% 2 == 0) continue; return 1 }\n' | bc 2>&1
# timeout
timeout 5 echo hi
timeout 5 true; echo $?
timeout 5 false; echo $?
timeout 5 sh -c 'exit 3'; echo $?
timeout 0.2 sleep 3; echo $?
timeout 0 echo zero
timeout 1s echo s
timeout 0.2 sleep 3 || echo timed out $?
timeout --preserve-status 0.2 sleep 3; echo $?
timeout -s KILL --preserve-status 0.2 sleep 3; echo $?
timeout -s 9 0.2 sleep 3; echo $?
timeout -k 1 5 echo k
timeout; echo $?
timeout 1; echo $?
timeout x true; echo $?
timeout 1e-1 true; echo $?
timeout inf echo inf; echo $?
timeout .1s true; echo $?
timeout 1e true; echo $?
timeout -k 1e-1 5 echo k; echo $?
timeout -k nan 5 true; echo $?
timeout -s NOPE 1 true; echo $?
timeout 1 nosuchprogram; echo $?
printf 'abc\n' | timeout 5 cat
timeout 5 timeout 0.2 sleep 3; echo $?
# env, printenv, sleep, which: their command lines through the option parser
env -i A=1 B=2
env -i -u A A=1 B=2
env -i --unset=B A=1 B=2
env -iuA A=1
env - A=1
env -i -- A=1
env -i --nu A=1 B=2 | od -c
env -i0 A=1 | od -c
env --d 2>&1; echo $?
env --unset 2>&1; echo $?
env -u 2>&1; echo $?
env -z 2>&1; echo $?
env --nope 2>&1; echo $?
env -i A=1 printenv A
env -i A=1 B=2 printenv -0 B A | od -c
env -i A=1 printenv --nu A | od -c
printenv -x 2>&1; echo $?
printenv --nope 2>&1; echo $?
sleep 0 -- 0; echo $?
sleep --foo 2>&1; echo $?
sleep -1 2>&1; echo $?
sleep -- 2>&1; echo $?
which -z 2>&1; echo $?
which --foo 2>&1; echo $?
which -as 2>&1; echo $?
which -- nosuchprogram; echo $?
which nosuchprogram -z; echo $?
seq -1 2
seq -s, 3
seq -s , 3
seq --sep=: 3
seq -w 8 10
seq -ws, 9 11
seq -f %.2f 1 2
seq -.5 1
seq 1 -1 -3
seq -- -1 1
seq 1 1388000 | md5sum; seq 1 1388000 | tail -c 20
seq -s' ' 7 -3 -9; seq 0; seq 10 -1 10
seq 18446744073709551614 18446744073709551617
seq -z 2>&1; echo $?
seq --nope 1 2>&1; echo $?
seq -s 2>&1; echo $?
seq 3 -w; echo $?
printf 'a b c d\n' | xargs -0n1 echo
printf 'a b c d\n' | xargs -tn2 echo 2>&1
printf 'a b c\n' | xargs --max-a=2 echo
printf 'a\nb\n' | xargs -l echo x
printf 'a\nb\n' | xargs -i echo [{}]
printf 'a\nEOF\nb\n' | xargs -eEOF echo
printf 'a\n' | xargs --max 2>&1; echo $?
printf 'a\n' | xargs -n 2>&1; echo $?
printf 'a\n' | xargs -z 2>&1; echo $?
printf 'a\n' | xargs echo -n x; echo
printf 'a\n' | xargs -- echo -n; echo
printf 'a\n' | xargs --eof; echo $?
printf 'a b c d e\n' | xargs -n2 -t echo 2>&1
# issue 17: seq -w widths as GNU counts them from the operands' text
seq -w 1 10
seq -w -1 1
seq -w -10 1
seq -w 5 -1 -5
seq -w 1 0.5 2
seq -w 0.5 1 3
seq -w 010 12
seq -w 1e1 12
seq -w 9 11
seq -w -5 -3
seq -w 1 000010
seq -w 0 0.01 0.03
seq -w -0.5 0.5 1
seq -w 1 1e2 300
seq -w 99 101
seq -w 1.0 3
seq -w .5 2
seq -w +5 7
seq -w 1 -1
seq -w -1e0 1
seq -w 1 2 10
seq -w 0.1e1 3
seq -w 1e-1 0.1 0.3
seq -w 5. 7
seq 0x10 0x12
seq -w 0x10 0x12
seq -w 08 10
# issue 17: xargs -s counts each word and its NUL (when a line is too
# long, GNU's message races with the command still running: compared apart)
printf 'a b c d e f g h\n' | xargs -s 12 echo
printf 'a b c d e f g h\n' | xargs -s 5 echo 2>&1; echo $?
printf 'aaaaaaaaaa b\n' | xargs -s 12 echo 2>&1; echo $?
printf 'aaaa b\n' | xargs -s 10 echo
printf 'a\n' | xargs -s 3 echo 2>&1; echo $?
printf 'a b c\n' | xargs -s 0 echo 2>&1; echo $?
printf 'a b c\n' | xargs -s x echo 2>&1; echo $?
printf 'a b c\n' | xargs -s 10 -n 1 echo
printf 'a bb ccc dddd\n' | xargs -s 14 -t echo 2>&1
printf 'a bbbbbbbbbbbbb c\n' | xargs -s 10 echo 2>/dev/null; echo $?
printf 'a bbbbbbbbbbbbb c\n' | xargs -s 10 echo 2>&1 >/dev/null; echo $?
printf 'a b c d e f\n' | xargs -s 9 -L 1 echo 2>&1; echo $?
printf 'a b\nc d e f\n' | xargs -s 11 -L 1 echo 2>/dev/null; echo $?
printf 'a b\nc d e f\n' | xargs -s 11 -L 1 echo 2>&1 >/dev/null; echo $?
printf 'a b\n' | xargs -s 7 -I{} echo {} 2>&1; echo $?
printf 'a b\n' | xargs -x -s 8 -n 2 echo 2>&1; echo $?
printf 'a b c d\n' | xargs -s 9 -n 3 echo
printf 'ab\n' | xargs -s 7 2>&1; echo $?
printf 'a\0bb\0c\0' | xargs -0 -s 10 echo
printf 'a\nb\nc d e f g\nh\n' | xargs -s 9 -L 1 echo 2>/dev/null; echo $?
printf 'a\nb\nc d e f g\nh\n' | xargs -s 9 -L 1 echo 2>&1 >/dev/null; echo $?
printf 'a b c bbbbbbbbbbbbb c\n' | xargs -n 1 -s 10 echo 2>/dev/null; echo $?
printf 'a b c bbbbbbbbbbbbb c\n' | xargs -n 1 -s 10 echo 2>&1 >/dev/null; echo $?
printf 'a\n' | xargs -n 0 echo 2>&1; echo $?
printf 'a\n' | xargs -L 0 echo 2>&1; echo $?
printf 'a\n' | xargs -n x echo 2>&1; echo $?
: | xargs -s 20 echo x
# issue 17: xargs -I strips leading blanks of each line, keeps trailing ones
printf '  a b  \n\t c\n   \nd  \n' | xargs -I{} echo "[{}]"
printf '  a "b c"  d\n' | xargs -I{} echo "[{}]"
printf 'a\\ b\n' | xargs -I{} echo "[{}]"
printf ' \t x\n' | xargs -I X echo "<X>"
printf '  x\n  y\n' | xargs -i echo "<{}>"
printf '  x\n  y\n' | xargs -d '\n' -I{} echo "<{}>"
printf '  x\0  y\0' | xargs -0 -I{} echo "<{}>"
printf '  a b  \n' | xargs -L1 echo "["
: > f; chmod -w f; ls -l f | cut -c1-10
: > f; chmod -w,+x f; ls -l f | cut -c1-10
: > f; chmod -w -x f; ls -l f | cut -c1-10
: > f; chmod 600 f; ls -l f | cut -c1-10
: > f; chmod -- -w f; ls -l f | cut -c1-10
: > f; chmod f -w; ls -l f | cut -c1-10
: > f; chmod -cR 640 f; chmod -v 604 f; chmod --ch 604 f
: > f; chmod 600 f; : > g; chmod --ref=f g; ls -l g | cut -c1-10
chmod 2>&1; echo $?
chmod -w 2>&1; echo $?
chmod 644; echo $?
: > f; chmod --re f 2>&1; echo $?
: > f; chmod -z f 2>&1; echo $?
: > f; chmod --nope f 2>&1; echo $?
# issue 17: dd (the summary compared up to "copied": the time and speed differ)
seq 1000 > s; dd if=s of=o bs=100 count=3 2>&1 | sed 's/copied.*/copied/'; wc -c o
seq 1000 > s; dd if=s of=o 2>&1 | sed 's/copied.*/copied/'; cmp s o && echo same
seq 1000 > s; dd if=s of=o bs=1M 2>&1 | sed 's/copied.*/copied/'
seq 1000 > s; dd if=s of=o bs=1000 2>&1 | sed 's/copied.*/copied/'
seq 10000 > s; dd if=s of=o bs=1024 count=40 2>&1 | sed 's/copied.*/copied/'
seq 1000 > s; dd if=s bs=7 count=2 status=noxfer
seq 1000 > s; dd if=s bs=7 count=2 status=none
seq 1000 > s; dd if=s bs=1 count=1 2>&1 | sed 's/copied.*/copied/'
printf abcdef > f; dd if=f bs=4 conv=sync status=none | od -c
printf abcdef > f; dd if=f ibs=4 obs=3 conv=sync of=o 2>&1 | sed 's/copied.*/copied/'; od -c o
printf abcdef > f; dd if=f ibs=2 obs=4 of=o 2>&1 | sed 's/copied.*/copied/'; cat o
printf abcdefg > f; dd if=f ibs=3 obs=2 of=o 2>&1 | sed 's/copied.*/copied/'; cat o
printf abcdef > f; dd if=f seek=2 of=g bs=1 status=none; od -c g
printf abcdef > f; printf 123456789 > g; dd if=f of=g conv=notrunc bs=1 count=2 seek=3 status=none; cat g
printf abcdef > f; printf 123456789 > g; dd if=f of=g bs=1 count=2 seek=3 status=none; cat g
printf abcdef > f; printf 123456789 > g; dd if=f of=g bs=2 seek=1 oflag=seek_bytes status=none; cat g
printf abcdef > f; dd if=f skip=2 bs=1 status=none
printf abcdef > f; dd if=f skip=1 bs=2 count=1 status=none
printf abcdef > f; dd if=f iseek=1 bs=2 count=1 status=none
printf abcdef > f; dd if=f iflag=skip_bytes,count_bytes skip=1 count=3 bs=2 status=none
printf abcdef > f; dd if=f bs=2x2 status=none
printf abcdef > f; dd if=f of=g status=none; dd if=f of=g oflag=append conv=notrunc status=none; cat g
printf abcdef > f; dd if=f of=g conv=excl status=none; dd if=f of=g conv=excl status=none; echo $?
printf abcdef > f; dd if=f of=g conv=nocreat status=none; echo $?; ls
printf 'Hello World' | dd conv=ucase status=none
printf 'Hello World' | dd conv=lcase status=none
printf 'abcdef' | dd conv=swab status=none
printf 'abcde' | dd conv=swab,ucase status=none
dd if=/dev/zero bs=1k count=3 status=none | wc -c
dd if=/dev/zero bs=512 count=3 2>&1 >/dev/null | sed 's/copied.*/copied/'
dd if=/dev/zero of=/dev/null bs=1M count=4 2>&1 | sed 's/copied.*/copied/'
head -c 3000 /dev/zero | dd bs=2K iflag=fullblock 2>&1 >/dev/null | sed 's/copied.*/copied/'
yes | dd bs=1 count=5 status=none
dd if=/dev/zero bs=1 | head -c 3 | od -c; echo ${PIPESTATUS[@]}
timeout 0.5 dd if=/dev/zero of=/dev/null; echo $?
: | dd 2>&1 | sed 's/copied.*/copied/'
printf abcdef > f; dd if=f count=0 2>&1 | sed 's/copied.*/copied/'
printf abcdef > f; dd if=f skip=10 bs=1 2>&1 | sed 's/copied.*/copied/'; echo $?
printf abc | dd bs=0; echo $?
dd bs=x; echo $?
dd bs=-1; echo $?
dd if=nope; echo $?
mkdir d; dd if=d; echo $?
dd foo=1; echo $?
dd nonsense; echo $?
dd conv=nope; echo $?
dd conv=ucase,lcase; echo $?
dd iflag=bogus; echo $?
dd oflag=fullblock,bogus; echo $?
dd status=bogus; echo $?
printf abcdef > f; dd if=f count=99999999999999999999; echo $?
printf abcdef > f; dd if=f bs=1T; echo $?
dd --help | head -1
dd -x; echo $?
# issue 17: factor
factor 0 1 2 3 4 12 +12 97 100
factor 18446744073709551615 18446744073709551617 18446744073709551557
factor 340282366920938463463374607431768211455 170141183460469231731687303715884105727
factor 1000000000000000000000000000000000001
factor 999999999999999989 1000000016000000063 4611686014132420609
factor 600851475143 9007199254740993 123456789012345678
factor ' 12' '12 ' '' + ++5 abc 0x10 1e3 2>&1; echo $?
factor -- -1; echo $?
factor -1; echo $?
factor -h; echo $?
printf '6 9\nx 10\n\n  15\t21 ' | factor; echo $?
echo 4294967297 | factor
yes 12 | factor | head -2; echo ${PIPESTATUS[@]}
timeout 0.5 factor < /dev/zero; echo $?
seq 2 30 | factor
factor --help | head -1
# issue 17: tsort
printf 'a b\nb c\n' | tsort
printf 'a b\nb c\nc a\nd e\n' | tsort; echo $?
printf 'a b\nb c\nc a\nd e\n' | tsort 2>&1 >/dev/null
printf 'x y z w\nw v\ny v\n' | tsort
printf 'b a\nc a\nd a\na e\n' | tsort
printf 'a a\nb b\n' | tsort
printf 'a b c' | tsort; echo $?
printf '1 2\n2 3\n3 1\n3 4\n4 5\n5 3\n' | tsort 2>&1; echo $?
printf 'main parse\nmain eval\nparse lex\neval lex\neval print\nlex util\nprint util\n' | tsort
printf 'a b\n' > f; tsort f; tsort f f; echo $?
tsort nope; echo $?
: | tsort; echo $?
printf 'a\tb\n\nc   d\n' | tsort
tsort --help | head -1
tsort -x; echo $?
# issue 17: sum
printf 'hello\n' > a; seq 1000 > b; sum a; sum a b; sum -s a; sum -s a b
printf x | sum; printf x | sum -s; printf x | sum -
printf 'hello\n' > a; sum -rs a; sum -sr a; sum --sysv a
head -c 5000 /dev/zero | sum; head -c 5000 /dev/zero | sum -s
seq 100000 | sum; seq 100000 | sum -s
: | sum; : | sum -s
sum nope; echo $?
mkdir d; sum d; echo $?
sum -x; echo $?
sum --help | head -2
"#;

/// Cases that need a host tool; skipped when it is missing.
fn needs(case: &str) -> Option<&'static str> {
    ["file", "tree"].into_iter().find(|t| {
        case.split([';', '|'])
            .any(|w| w.trim().starts_with(&format!("{t} ")) || w.trim() == *t)
    })
}

#[test]
fn misc_commands_match_gnu() {
    let mut suite = Suite::of_gnu_tools("misc_diff");
    // tree draws its box characters only in a UTF-8 locale.
    let utf8 = HostBash::new().env("LC_ALL", "C.UTF-8");
    for case in cases::lines(CASES) {
        let label = format!("misc_diff :: {case}");
        let tool = needs(case);
        if let Some(tool) = tool
            && suite.have_bash()
            && !host_has(tool)
        {
            suite.skip(&label, &format!("no {tool} on this host"));
        } else if tool == Some("tree") {
            suite.run_with(&label, case, &utf8);
        } else {
            suite.run(&label, case);
        }
    }
    suite.finish();
}
