//! Differential tests of word expansion, arithmetic, patterns, globbing and
//! `[[ ]]`: every case runs in our shell and, when `bash` is on the machine,
//! in real bash (`bash -c`) inside a fresh temp directory; stdout and exit
//! status must match. Cases live in `CASES` below (`### name` then the
//! script). `EXPAND_FILTER=substr` runs only the cases whose name contains it.

use crate::support::cases;
use crate::support::suite::Suite;

#[test]
fn expansion_matches_bash() {
    let all = cases::parse("expand", CASES);
    assert!(
        all.len() >= 150,
        "expected at least 150 cases, found {}",
        all.len()
    );
    let mut suite = Suite::new("expand_diff").filter_from("EXPAND_FILTER");
    suite.run_cases(&all);
    suite.finish();
}

/// The cases: `### name`, then the script up to the next `###`.
const CASES: &str = r##"
### split default IFS
x="  a  b   c  "; printf '<%s>' $x; echo
### split custom IFS non-ws
IFS=:; x="a::b:"; printf '<%s>' $x; echo
### split IFS mixed ws and non-ws
IFS=" :"; x="a :: b"; printf '<%s>' $x; echo
### split leading non-ws delimiter
IFS=:; x=":a:b"; printf '<%s>' $x; echo
### split empty IFS
IFS=; x="a b  c"; printf '<%s>' $x; echo
### split unset IFS
unset IFS; x=" a	b
c "; printf '<%s>' $x; echo
### split adjacent to literal
x="1 2"; printf '<%s>' a${x}b; echo
### split quoted parts never split
x="1 2"; printf '<%s>' "a${x}b" "$x"'$x'; echo
### split empty unquoted vanishes
e=; printf '<%s>' $e a $e "" b; echo
### split empty quoted stays
e=; printf '<%s>' "$e" "${e}"; echo
### split expansion then join
x="a b"; y="c d"; printf '<%s>' $x$y; echo
### split trailing whitespace then literal
x="a "; printf '<%s>' ${x}b; echo
### split IFS tab only
IFS=$'\t'; x="a b	c"; printf '<%s>' $x; echo
### split command substitution
printf '<%s>' $(printf 'a b\nc\n\n'); echo
### split command substitution quoted keeps inner newlines
printf '<%s>' "$(printf 'a\n\nb\n\n')"; echo
### at quoted one field per param
set -- a "b c" ""; printf '<%s>' "$@"; echo
### at quoted no params gives no field
set --; printf '<%s>' "$@"; echo "n=$#"
### at quoted with prefix and suffix
set -- a b c; printf '<%s>' "x$@y"; echo
### at unquoted splits
set -- "a b" c; printf '<%s>' $@; echo
### star quoted joins with IFS first char
set -- a b c; IFS=:-; echo "$*"; IFS=; echo "$*"; unset IFS; echo "$*"
### star unquoted
set -- "a b" c; printf '<%s>' $*; echo
### at slice
set -- a b c d; echo "${@:2}" "${@:2:2}" "${@: -1}"
### at length and indirect last
set -- a b c; echo ${#@} ${#*} ${!#}
### positional beyond 9
set -- 1 2 3 4 5 6 7 8 9 10 11; echo $10 ${10} ${11}
### array quoted at
a=(x "y z" ""); printf '<%s>' "${a[@]}"; echo; echo ${#a[@]}
### array star joined
a=(x y z); IFS=,; echo "${a[*]}"
### array element and negative index
a=(1 2 3 4); echo ${a[1]} ${a[-1]} ${a[@]: -2} ${a[i+1]}
### array keys
a=([3]=c [1]=a [7]=g); echo ${!a[@]}; echo "${a[@]}"
### assoc keys and values
declare -A m=([one]=1 [two]=2); echo ${m[one]} ${m[two]}; k=two; echo ${m[$k]}; echo ${#m[@]}
### array slice
a=(a b c d e); echo "${a[@]:1:2}" "${a[@]:3}"
### array pattern ops per element
a=(foo.txt bar.txt baz.c); echo "${a[@]%.txt}" "${a[@]/a/A}" "${a[@]^^}"
### scalar as array
x=hello; echo ${x[0]} ${#x[@]} "${x[@]}"
### default value forms
unset u; e=; s=set; echo "${u:-d1}" "${u-d2}" "${e:-d3}" "[${e-d4}]" "${s:-d5}"
### assign default
unset u; echo ${u:=new} $u; e=; echo ${e:=filled} $e
### alternative value
unset u; e=; s=x; echo "[${u:+alt}]" "[${e:+alt}]" "[${e+alt}]" "[${s:+alt}]"
### error if unset exits 127
unset u; echo ${u:?custom message}; echo never
### error if unset default message
(echo ${u?}); echo status=$?
### error if null
e=; (: ${e:?}); echo status=$?; (: ${e?}); echo status=$?
### default word splits when unquoted
unset u; printf '<%s>' ${u:-a b} "${u:-a b}"; echo
### default with quoted part
unset u; printf '<%s>' ${u:-"a b" c}; echo
### default single quotes in double quotes are literal
unset u; echo "${u:-'x'}" ${u:-'y z'}
### default nested expansion
unset u; v=inner; echo ${u:-${v}-$((1+2))}
### length forms
x="héllo"; echo ${#x}; a=(1 22 333); echo ${#a[@]} ${#a[2]}; unset n; echo ${#n}
### substring forms
x=abcdefg; echo ${x:2} ${x:2:3} ${x: -3} ${x: -3:2} ${x:1:-2} "[${x:10}]"
### substring arithmetic offsets
x=abcdefg; i=1; echo ${x:i+1:i*2} ${x:$i}
### substring negative length error
x=abc; echo ${x:2:-2}; echo never
### remove prefix and suffix
p=/usr/local/lib/file.tar.gz; echo ${p#*/} ${p##*/} ${p%.*} ${p%%.*}
### remove with quoted pattern
x='a*b*c'; echo "${x#*\*}" "${x#"a*"}" ${x%'*c'}
### remove no match
x=abc; echo ${x#z} ${x%z} ${x##} ${x%}
### remove with class pattern
shopt -s extglob
x=abc123def; echo ${x##+([a-z])} ${x%%[0-9]*} ${x//+([0-9])/#}
### replace first and all
x=aXbXc; echo ${x/X/-} ${x//X/-} ${x//X} ${x/#a/A} ${x/%c/C} ${x/#X/Q}
### replace with pattern
x=hello.world.txt; echo ${x//[aeiou]/_} ${x/.*/} ${x//?/.}
### replace ampersand
x=abc; echo ${x/b/[&]} "${x/b/[\&]}" ${x//?/<&>}
### replace empty pattern
x=abc; echo ${x//} ${x/#/pre-} ${x/%/-post}
### replace in positional
set -- aa ba; echo "${@/a/X}" "${*//a/Y}"
### case modification
x="hello World"; echo ${x^} ${x^^} ${x,} ${x,,} ${x^^[lo]} ${x,,[W]}
### case transform operators
x="hello world"; echo ${x@U} ${x@u} ${x@L}
### quote transform
x="it's a \$test"; echo ${x@Q}; y=$'a\nb'; echo ${y@Q}
### escape transform
x='a\tb\x41'; echo "${x@E}"
### assignment transform
x=val; declare -i n=5; echo ${x@A} ${n@A}; a=(1 "2 3"); echo ${a[@]@A}
### attribute transform
declare -rx r=1; declare -ai ai=(1); echo ${r@a} ${ai@a}
### indirection
x=y; y=final; echo ${!x}; a=(p q); n='a[1]'; echo ${!n}
### indirect invalid
x="a b"; echo ${!x}; echo never
### prefix names
abc1=1 abc2=2 abd=3; echo ${!abc*}; printf '<%s>' "${!abc@}"; echo
### bad substitution
echo ${x!}; echo never
### special status and count
false; echo $?; set -- a b; echo $#; true; echo $?
### dollar zero and dash
echo $0; echo $-; set -u; echo $-
### pid and uid shape
[[ $$ =~ ^[0-9]+$ ]] && echo pid-ok; [[ $BASHPID == $$ ]] && echo bashpid-same; [[ $PPID =~ ^[0-9]+$ ]] && echo ppid-ok
### bash version
echo $BASH_VERSION ${BASH_VERSINFO[0]} ${BASH_VERSINFO[1]}
### random range
r=$RANDOM; (( r >= 0 && r < 32768 )) && echo ok; [[ $RANDOM != $RANDOM$RANDOM ]] && echo differ
### lineno
echo $LINENO
echo $LINENO
### funcname
f() { echo "$FUNCNAME ${FUNCNAME[@]}"; g; }; g() { echo "${FUNCNAME[@]}"; }; f
### bash subshell
echo $BASH_SUBSHELL; (echo $BASH_SUBSHELL); echo $(echo $BASH_SUBSHELL)
### set -u unbound
set -u; x=1; echo $x; echo $y; echo never
### set -u in arithmetic
set -u; echo $((nope + 1)); echo never
### set -u allows defaults
set -u; echo "${nope:-d}" "${nope-e}" "[${nope+f}]"; echo "${arr[@]}" ok
### set -u positional
set -u; (echo $1); echo status=$?
### tilde home
[[ ~ == "$HOME" ]] && echo home; [[ ~/x == "$HOME/x" ]] && echo home-slash
### tilde quoted stays
echo "~" '~' \~ ~x-nouser-y
### tilde plus minus
cd /tmp; [[ ~+ == /tmp ]] && echo plus; cd /; cd /tmp; [[ ~- == / ]] && echo minus
### tilde in assignment
x=~; [[ $x == "$HOME" ]] && echo a1; y=a:~/b; [[ $y == "a:$HOME/b" ]] && echo a2
### tilde after unquoted var not expanded
x=~; echo "${x#$HOME}" ok
### brace basics
echo {a,b,c} x{1,2}y {1..5} {a..e} {5..1..2} {01..10..3}
### brace nested and empty
echo {a,{b,c}d} x{,y}z {,}a
### brace literal cases
echo {a} {a,b "{a,b}" \{a,b} {1..}
### brace with variables
x=1; y=2; echo {$x,$y} ${x}{a,b}
### brace then glob
touch f1 f2 g1; echo {f,g}*
### brace cartesian
echo {a,b}{1,2}{x,y}
### arith basic precedence
echo $((1+2*3)) $(((1+2)*3)) $((10-2-3)) $((2**3**2)) $((-2**2)) $((7/2)) $((-7/2)) $((7%3)) $((-7%3))
### arith bases
echo $((0x1F)) $((017)) $((8#17)) $((36#z)) $((64#@)) $((64#_)) $((2#1010))
### arith bitwise and logic
echo $((5&3)) $((5|3)) $((5^3)) $((~5)) $((!5)) $((!0)) $((1<<4)) $((-16>>2)) $((3&&0)) $((3||0))
### arith comparison
echo $((3>2)) $((3<2)) $((3>=3)) $((3<=2)) $((3==3)) $((3!=3)) $(( 1 < 2 > 0 ))
### arith ternary and comma
echo $((1?2:3)) $((0?2:3)) $((1?2:0?4:5)) $((1,2,3))
### arith assignment ops
x=3; echo $((x+=2)) $((x-=1)) $((x*=3)) $((x/=2)) $((x%=4)) $((x<<=3)) $((x>>=1)) $((x|=1)) $((x&=5)) $((x^=7)) $x
### arith increments
x=5; echo $((x++)) $x $((++x)) $x $((x--)) $x $((--x)) $x
### arith recursive variables
x=1+2; echo $((x*2)) $((x)); y=x; echo $((y+1))
### arith variable with spaces and hex
x=" 12 "; y=0x10; echo $((x+1)) $((y))
### arith unset and empty
unset u; e=; echo $((u+1)) $((e+1))
### arith wrapping
echo $((9223372036854775807+1)) $((1<<63)) $((2**63)) $((-9223372036854775807-1))
### arith shift masks
echo $((1<<64)) $((1<<65)) $((8>>65))
### arith short circuit
echo $((0 && 1/0)) $((1 || 1/0)) $((0 ? 1/0 : 2))
### arith division by zero exits
echo $((1/0)); echo never
### arith division by zero in subshell
( echo $((5%0)) ); echo status=$?
### arith syntax error
echo $((1 + )); echo never
### arith value too great
(echo $((08))); echo s=$?; (echo $((2#102))); echo s=$?
### arith negative exponent
(echo $((2**-1))); echo s=$?
### arith arrays
a=(1 2 3); echo $((a[1]+a[2])) $((a)); ((a[2]+=5)); echo ${a[@]}; i=0; echo $((a[i++])) $i
### arith assoc
declare -A m; m[x]=3; k=x; echo $((m[x]+m[$k]+1)); ((m[y]=7)); echo ${m[y]}
### arith dollar vars inside
x=4; y=2; echo $(( $x * $y )) $(( ${x} + $(echo 1) ))
### arith nested
echo $(( $((1+1)) * 3 )) $(( "4" + 1 ))
### arith let and dparen status
((0)); echo $?; ((5)); echo $?; let x=2+3; echo $x $?; let 'y = 0'; echo $?
### arith dparen error continues
((1/0)); echo next $?
### arith recursion error
x=x; echo $((x)); echo never
### arith dollar bracket legacy
echo $[1+2]
### arith empty
echo $(( ))x
### arith readonly
readonly r=1; echo $((r=2)); echo never
### arith in loop
x=0; for i in 1 2 3 4 5; do x=$((x+i)); done; echo $x
### arith c-style for
for ((i=0; i<3; i++)); do echo -n $i; done; echo
### arith assignment via declare -i
declare -i n; n=2+3; echo $n; n+=4; echo $n
### pattern case basics
for w in abc a.txt Zed 123 ""; do case $w in a*c) echo "$w:1";; *.txt) echo "$w:2";; [[:upper:]]*) echo "$w:3";; [0-9]*) echo "$w:4";; *) echo "$w:5";; esac; done
### pattern case quoted
x='*'; case a in "$x") echo q;; $x) echo u;; esac; case '*' in "$x") echo q2;; esac
### pattern case bracket negation
for w in a b c; do case $w in [!a]) echo "$w no-a";; *) echo "$w other";; esac; done
### dbracket pattern
[[ abc == a* ]] && echo 1; [[ abc == "a*" ]] || echo 2; x='a*'; [[ abc == $x ]] && echo 3; [[ abc == "$x" ]] || echo 4
### dbracket extglob always on
[[ foo.txt == @(foo|bar).txt ]] && echo 1; [[ x.c == !(*.txt) ]] && echo 2
### dbracket string compare
[[ a < b ]] && echo lt; [[ b > a ]] && echo gt; [[ a = a ]] && echo eq; [[ a != b ]] && echo ne
### dbracket integers
[[ 10 -gt 9 ]] && echo 1; [[ 2 -le 2 ]] && echo 2; x=3; [[ x+1 -eq 4 ]] && echo 3; [[ 010 -eq 8 ]] && echo 4
### dbracket logic
[[ -n a && ! -z a ]] && echo 1; [[ -z a || -n b ]] && echo 2; [[ ( 1 -eq 2 || 2 -eq 2 ) && a == a ]] && echo 3
### dbracket empty and unset
unset u; [[ -z $u ]] && echo z; [[ -n "" ]] || echo n; [[ $u == "" ]] && echo eq
### dbracket no splitting
x="a b"; [[ $x == "a b" ]] && echo same; y='*'; [[ $y == '*' ]] && echo star
### dbracket regex
[[ abc123 =~ ^([a-z]+)([0-9]+)$ ]] && echo "${BASH_REMATCH[0]} ${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${#BASH_REMATCH[@]}"
### dbracket regex quoted literal
[[ a.c =~ "a.c" ]] && echo 1; [[ abc =~ "a.c" ]] || echo 2; [[ abc =~ a.c ]] && echo 3
### dbracket regex from variable
re='^[0-9]+(\.[0-9]+)?$'; for v in 12 1.5 x; do [[ $v =~ $re ]] && echo "$v yes" || echo "$v no"; done
### dbracket regex no match clears
[[ ab =~ (a) ]]; [[ ab =~ (z) ]]; echo "n=${#BASH_REMATCH[@]}"
### dbracket regex bracket and bound
[[ "a]b" =~ []] ]] && echo 1; [[ aaa =~ ^a{2,3}$ ]] && echo 2; [[ 'x{y' =~ x\{ ]] && echo 3
### dbracket file tests
mkdir d; touch f; echo hi > s; ln -s f l; [[ -e f ]] && echo e; [[ -f f ]] && echo f; [[ -d d ]] && echo d; [[ -s s ]] && echo s; [[ -s f ]] || echo not-s; [[ -L l ]] && echo L; [[ -h l ]] && echo h; [[ -f l ]] && echo lf; [[ -e nope ]] || echo ne
### dbracket exec and perms
touch x; chmod +x x; touch y; [[ -x x ]] && echo x; [[ -x y ]] || echo not-x; [[ -r y && -w y ]] && echo rw
### dbracket nt ot ef
touch -d '2020-01-01' old; touch -d '2021-01-01' new; [[ new -nt old ]] && echo nt; [[ old -ot new ]] && echo ot; [[ old -ef old ]] && echo ef; [[ new -nt missing ]] && echo nt2
### dbracket -v
x=1; a=(1); declare -A m=([k]=v); [[ -v x ]] && echo x; [[ -v nope ]] || echo nope; [[ -v a[0] ]] && echo a0; [[ -v a[5] ]] || echo a5; [[ -v m[k] ]] && echo mk
### dbracket -o option
set -e; [[ -o errexit ]] && echo on; [[ -o nounset ]] || echo off
### dbracket nocasematch
shopt -s nocasematch; [[ ABC == abc ]] && echo 1; [[ ABC =~ ^ab ]] && echo 2; case X in x) echo 3;; esac
### dbracket arith error
[[ 1 -eq 1/0 ]]; echo next $?
### glob star and question
touch a.txt b.txt c.log .hidden; echo *.txt; echo ?.log; echo *
### glob no match stays literal
echo *.nope "*.txt" nomatch?
### glob sorted
touch b a C _x 1; echo *
### glob brackets
touch a1 a2 b1; echo a[12] [!a]1 [[:alpha:]]2
### glob dotglob
touch .h1 v; shopt -s dotglob; echo *
### glob explicit dot
touch .h1 .h2 v; echo .h*; echo .*
### glob nullglob
shopt -s nullglob; printf '<%s>' *.nope x; echo
### glob failglob
shopt -s failglob; echo *.nope; echo never
### glob subdirectories
mkdir -p a/b c; touch a/x a/b/y c/z; echo */*; echo */*/*; echo a/*
### glob trailing slash dirs only
mkdir d1 d2; touch f1; echo */
### glob globstar
mkdir -p a/b; touch a/x a/b/y z; shopt -s globstar; echo **; echo **/y; echo a/**; echo **/
### glob nocaseglob
touch ABC abd; shopt -s nocaseglob; echo ab*
### glob extglob
shopt -s extglob
touch a.txt b.txt c.log; echo !(*.txt); echo @(a|c).*; echo +(a|b).txt
### glob quoted parts literal
touch 'a*b' axb; echo a*b; echo "a*"b; echo 'a*b'
### glob from variable
touch p1 p2; x='p*'; echo $x "$x"
### glob backslash in variable
touch 'x*'; x='x\*'; echo $x
### glob noglob
touch a1; set -f; echo a*; set +f; echo a*
### glob with absolute path
mkdir -p sub; touch sub/q1 sub/q2; for f in "$PWD"/sub/q*; do echo "${f#"$PWD"/}"; done
### glob does not match dot dirs
mkdir .hd; touch .hd/x; echo */x
### glob in assignment not expanded
touch g1; x=g*; echo "$x"
### glob case word not expanded
touch g1; case g* in g\*) echo literal;; esac
### quoting backslash
echo a\ b "a\"b" 'a\b' "a\\b" "a\$b" "\q"
### quoting ansi-c
echo [ $'a\tb' $'\x41\101\u00e9' $'it\'s' $'\cA' ]
### quoting mixed concatenation
x=v; echo 'a'"b"c"$x"'$x'$'\n'd
### quoting empty strings
printf '<%s>' '' "" $'' a''b; echo
### dollar single quote in double quotes is literal
echo "$'x'"
### locale-free dollar double quote
echo $"hello"
### command substitution forms
echo $(echo a) `echo b` "$(echo "c d")" $(echo $(echo nested))
### command substitution trailing newlines
x=$(printf 'a\n\n\n'); echo "[$x]"; y=$(printf '\n\na'); echo "[$y]"
### command substitution status
x=$(exit 3); echo $?; y=$(false) || echo failed
### backquote escapes
x=5; echo `echo \$x` `echo \\\\` "`echo \"q\"`"
### heredoc expansion
x=val; cat <<EOT
a $x ${x^^} $((1+2)) $(echo cmd) \$x "q" 'q'
EOT
### heredoc quoted delimiter
x=val; cat <<'EOT'
a $x $(echo no)
EOT
### here-string
x="a b"; cat <<< "$x $((2*3))"
### assignment no split no glob
touch f1 f2; x="a   b"; y=$x; z=f*; echo "$y" "$z"
### assignment tilde after colon
p=~/a:~/b; [[ $p == "$HOME/a:$HOME/b" ]] && echo ok
### IFS from read-only default
[[ $IFS == $' \t\n' ]] && echo default-ifs
### for loop word splitting
x="1 2 3"; for i in $x; do echo -n "<$i>"; done; echo; for i in "$x"; do echo -n "<$i>"; done; echo
### for loop over at
set -- "a b" c; for i in "$@"; do echo "[$i]"; done; for i; do echo "{$i}"; done
### nameref expansion
declare -n r=target; target=hello; echo $r ${#r} ${r^^}; r=changed; echo $target
### nameref to array element
a=(x y z); declare -n r='a[1]'; echo $r
### expansion in redirection target
x=out; echo hi > "$x.txt"; cat out.txt
### dollar at in string context
set -- a b c; x="$@"; echo "$x"; y=$*; echo "$y"
### star with IFS in assignment
set -- a b c; IFS=:; x="$*"; y=$*; echo "$x" "$y"
### unquoted at with empty elements
set -- a "" b; printf '<%s>' $@; echo; printf '<%s>' "$@"; echo
### SECONDS and EPOCH shapes
[[ $SECONDS =~ ^[0-9]+$ ]] && echo sec; [[ $EPOCHSECONDS =~ ^[0-9]+$ ]] && echo epoch
### expansion order param before split
x='$y'; y=bad; echo $x
### no double expansion of values
x='$(echo hi)'; echo $x "$x"
### glob chars from command substitution
touch m1 m2; echo $(echo 'm*')
### length of special
set -- abc de; echo ${#1} ${#2} ${#}
### default on positional
set -- ""; echo "${1:-empty}" "${1-unset}" "${2-unset2}"
### assign default to positional fails
: ${1:=x}; echo never
### string concatenation of arrays
a=(1 2); b=(3 4); c=("${a[@]}" "${b[@]}"); echo ${#c[@]} "${c[*]}"
### array append and sparse keys
a=(a b); a+=(c); a[10]=k; echo ${#a[@]} ${!a[@]} ${a[@]: -1}
### parameter with braces in default
unset u; echo ${u:-{a,b}} "${u:-}x"
### unicode lengths and substrings
x="añb€c"; echo ${#x} ${x:1:3} ${x^^}
### long prefix removal performance
s=$(printf 'x%.0s' {1..2000}); t=${s%%x*}; echo "[${t}]" ${#s}
### glob backslash from expansion escapes
touch 'a*b' axb 'q.\.t' 'q.*.t'; v='a\*b'; echo $v; v='a\*'; echo $v*; v='q.\*.t'; echo $v; v="\\" u='*.t'; echo q.$v$u
### pattern backslash from expansion
x='\*'; [[ '*' == $x ]] && echo lit; [[ 'a' == $x ]] || echo nomatch; v='[\f]'; p='\f'; echo ${v/$p/_} ${v/"$p"/_}
### per element attribute transform
declare -a a=(1 2 3); argv() { printf '<%s>' "$@"; echo; }; argv "${a[@]@a}"; argv "${a[*]@a}"; argv "${u[@]@a}"
### ifs non-whitespace keeps empty elements of unquoted at
set -- one '' two; IFS=x; printf '<%s>' $@; echo; printf '<%s>' $*; echo; IFS=; printf '<%s>' $@; echo
### ifs x with empty params
IFS=x; set -- "" "" ""; printf '<%s>' =$@=; echo; printf '<%s>' $*; echo
### tilde in assignment-like word
echo x=~ | grep -q "x=$HOME" && echo expanded; echo "x=~"
### tilde in quoted default stays
HOME=/h; echo ${u:-~} "${u:-~}" ${u:-"~"}; x=~:${u-~:~}; echo $x
### quoted default with inner single quotes
v='a b'; printf '<%s>' "${u:-'$v'}" "${u:-}" "${e:+}"; echo
### right brace escape in quoted default
echo "${u-\}}" "${u-'}'}"
### replace slash pattern
x='/a/b/'; echo ${x////_} ${x//'/'/-} ${x///}
### replace star pattern whole
v='a*b'; g='*'; echo ${v//"$g"/-} ${v//$g/-}
### case folding keeps sharp s
s=$'\u00df'; echo ${s^} ${s^^}
### nameref cycle does not hang
declare -n a=b; declare -n b=a; echo "[$a]"; x=y; y=x; echo ${!x}
### nameref to positional name is plain
set -- one; ref=1; declare -n ref; echo $ref
### nameref to array all elements
declare -n r='arr[@]'; arr=('A B' C); printf '<%s>' "$r"; echo
### indirect assign default
z=zz; zz=; echo ${!z:=foo} $zz
### bad substitution abandons only the command
echo ${a b}; echo same
echo after $?
f() { echo ${a b}; echo inf; }; f
(echo ${a b}; echo insub); echo sub $?
x="a b"; echo ${!x}; echo same
echo ${!u}; echo same
echo next $?
### arithmetic error abandons only the command
echo $((1/0)); echo same
echo after $?
x=$((1+)); echo same
echo after $?
(echo $((1/0)); echo insub); echo sub $?
x=abc; echo ${x:1/0}; echo ${x:1:-5}; echo same
echo last $?
### arithmetic readonly assignment
readonly r=1; ((r=2)); echo same $?; let r=3; echo let $?
echo $((r=2)); echo same
echo after $?
### failglob abandons only the command
shopt -s failglob; echo /nonex*; echo same
echo after $?
### fatal expansion errors still exit
echo ${u:?boom}
echo not reached
### nullglob keeps words without a bracket expression
shopt -s nullglob; printf '<%s>' [ [abc "x"[ [\] [x"]" a]b[ \[a] [a] [] a*z; echo
v='[x'; w='[x]'; printf '<%s>' $v $w; echo
[ -d / ] && echo dir
### errexit makes bad substitution exit
set -e; echo $((1/0)); echo same
x=abc; echo ${x:1:-5}
echo after arith
echo ${a b}
echo not reached
### errexit makes failglob exit
set -e; shopt -s failglob; echo *.ZZ || echo or
echo not reached
### errexit makes invalid indirection exit
set -e; echo ${!u}
echo not reached
### prompt transform
p='x\ny'; echo "${p@P}"
"##;
