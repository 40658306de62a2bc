//! The cases of `builtins_diff.rs`: (name, script) pairs. Scripts avoid
//! printing paths that differ between the sandbox and the host temp dir.

/// Every case, grouped by builtin.
pub const CASES: &[(&str, &str)] = &[
    (
        "compgen words, prefix, filter, decoration",
        r#"compgen -W 'alpha beta alps' al; echo "st=$?"; compgen -W 'ab ac' -X '!*b'; compgen -W 'a b' -P '<' -S '>'; compgen -W 'x y' zz; echo "st=$?"; IFS=':%'; compgen -W 'spam:eggs%ham cheese\:colon'"#,
    ),
    (
        "compgen actions and functions",
        r#"zfa() { :; }; zfb() { :; }; alias zal=1; zvar=1; compgen -A function zf; compgen -a za; compgen -v zv; compgen -k el; compgen -A shopt -P '[' -S ']' nu; compgen -b getop; f() { COMPREPLY=(one two); }; compgen -F f 2>/dev/null; compgen -A nope; echo "st=$?""#,
    ),
    (
        "complete stores, prints and removes specs",
        r#"complete; complete -W 'foo bar' mycmd; complete -p; complete -o default -o nospace -F fn git; complete -d -A function -W 'a b' -P x -X '*z' c2; complete; complete -r c2; complete -p c2; echo "st=$?"; complete -F f; echo "st=$?"; compopt -o filenames; echo "st=$?""#,
    ),
    (
        "history list in a non-interactive shell",
        r#"history; history -s echo one; history -s echo two; history; fc -l; fc -ln; history -d 1; history; history -d 9; echo "st=$?"; history -c; history; echo end"#,
    ),
    (
        "bind without line editing",
        r#"bind -q yank; echo "st=$?"; bind -q vi-subst; echo "st=$?"; bind -p | grep vi-subst; bind -x '"\C-o": echo foo'; bind -X; bind '"\C-o\C-s": yank'; bind -q yank"#,
    ),
    (
        "kill and wait on background jobs",
        // `sleep 5`, not `sleep 0`: a job that may already have ended makes
        // bash's own answer a race.
        r#"sleep 5 & p=$!; kill $p; echo "kill=$?"; wait $p; echo "wait=$?""#,
    ),
    (
        "kill and wait on a job spec",
        r#"sleep 5 & kill -9 %%; echo "kill=$?"; wait %%; echo "wait=$?"; wait %%; echo "wait=$?""#,
    ),
    // ---- echo
    ("echo basic", r#"echo a b  c; echo; echo -n x; echo y"#),
    (
        "echo -e escapes",
        r#"echo -e 'a\tb\x41\u00e9\0101\101\c' after; echo -e 'x\ny'"#,
    ),
    (
        "echo combined flags",
        r#"echo -ne 'a\n'; echo -en 'b\n'; echo -nx; echo -- -n; echo -E 'a\nb'"#,
    ),
    ("echo dash alone", r#"echo -; echo -e; echo -n; echo z"#),
    (
        "echo xpg_echo",
        r#"shopt -s xpg_echo; echo 'a\tb'; echo -E 'a\tb'"#,
    ),
    // ---- printf
    (
        "printf conversions",
        r#"printf '%5.2f|%-5s|%05d|%+d|% d|%x|%X|%o|%#x|%#o\n' 3.14159 ab 42 5 5 255 255 8 255 8"#,
    ),
    (
        "printf floats",
        r#"printf '%e|%g|%g|%g|%G|%E|%.3g|%10.4f|\n' 1234.5 0.0001 1234567 100 1e20 12 3.14159 2.5"#,
    ),
    (
        "printf reuse format",
        r#"printf '%s %s\n' a b c; printf 'x\n' a b; printf '%s\n'"#,
    ),
    (
        "printf star width",
        r#"printf '%.3s|%*d|%-*d|%.*f\n' abcdef 5 42 4 7 2 3.14159"#,
    ),
    (
        "printf precision ints",
        r#"printf '%.2d|%5.3d|%-05d|%.0d|\n' 3 4 5 0"#,
    ),
    (
        "printf char codes",
        r#"printf '%d %d %d %d %d\n' "'A" ' 12' 0x1f 010 -5"#,
    ),
    ("printf unsigned", r#"printf '%i|%u|%x\n' -1 -1 -1"#),
    (
        "printf invalid number",
        r#"printf '%d %d\n' 12abc 3; echo "st=$?"; printf '%d\n' xyz; echo "st=$?""#,
    ),
    (
        "printf bad format",
        r#"printf 'abc%'; echo " st=$?"; printf '%y\n' 1; echo "st=$?""#,
    ),
    (
        "printf %b",
        r#"printf '%b|' '\101' '\0101' '\x41' 'a\nb'; echo; printf '%b\n' 'stop\cnow' ; echo after"#,
    ),
    (
        "printf format escapes",
        r#"printf '\101\x41\u00e9\q\"\t|\n'"#,
    ),
    (
        "printf %q",
        r#"printf '%q\n' 'a b' "it's" '' 'x$y' $'a\tb' 'a,b' '#x' 'a#b' '~x' '*' 'a!'"#,
    ),
    ("printf %c", r#"printf '[%c][%3c][%-3c]\n' hello x y"#),
    (
        "printf -v",
        r#"printf -v out '%s-%d' ab 7; echo "$out"; printf -v 'arr[2]' %s z; echo "${arr[2]}""#,
    ),
    ("printf %%", r#"printf '100%%\n'; printf '%s%%\n' 5"#),
    (
        "printf time fixed",
        r#"printf '%(%Y-%m-%d %H:%M:%S %j %a %b %e)T\n' 0; printf '%(%F %T %A)T\n' 1704067200"#,
    ),
    ("printf time width", r#"printf '[%12(%H:%M)T]\n' 3600"#),
    (
        "printf time glibc flags and gnulib-only conversions",
        r#"printf '%(%N|%3N|%q|%:z|%z|%G|%V|%g|%10Y|%#Z|%^a|%_d|%-d|%05e|%P|%#p|%^P|%Ey|%Od|%C|%#a|%k|%s)T\n' 0"#,
    ),
    (
        "printf time compounds, weeks and negative times",
        r#"printf '%(%-j %_H %^B %#b %c %D %r %x %X %R %u %w %U %W %h %e %l %I %p)T\n' 1700000000; printf '%(%F %T %a %j %s)T\n' -86400; printf '%(%Y %s %V %G)T\n' -62167219200"#,
    ),
    (
        "printf time years before 1000 and glibc's missing plus flag",
        r#"for t in -30636403200 -62009366400 999999999999; do printf '%(%Y|%F|%C|%G|%-Y|%_Y|%c|%+4Y|%+Y|%5+)T\n' $t; done"#,
    ),
    (
        "printf time unknown conversions and widths",
        r#"printf '%(%K|%L|%i|%5K|%10A|%-10A|%_10B|%010B|%3a|%12c|x%)T\n' 0; printf '[%-20(%F)T][%.4(%F)T]\n' 86400 86400"#,
    ),
    (
        "printf missing args",
        r#"printf '%s|%d|%f|\n'; printf '%s-%s\n' only"#,
    ),
    (
        "printf overflow",
        r#"printf '%d\n' 99999999999999999999; echo "st=$?""#,
    ),
    ("printf no format", r#"printf; echo "st=$?""#),
    ("printf negative star", r#"printf '[%*s]\n' -4 ab"#),
    ("printf double dash", r#"printf -- '%s\n' -x"#),
    // ---- test / [
    (
        "test arg counts",
        r#"test; echo $?; test -n; echo $?; test ! -z; echo $?; test a = a -a b; echo $?; test '(' a ')'; echo $?"#,
    ),
    (
        "test errors",
        r#"test 1 -eq a; echo $?; test -q x; echo $?; test a b; echo $?; [ a; echo $?"#,
    ),
    (
        "test parens and or",
        r#"test \( a = b \) -o b; echo $?; test ! ! a; echo $?; test 1 -eq 2 -o 2 -eq 2 -a 3; echo $?"#,
    ),
    (
        "test integers",
        r#"[ " 1 " -eq 1 ]; echo $?; [ -5 -lt 3 ]; echo $?; [ 3 -ge 3 ]; echo $?; [ 2 -ne 2 ]; echo $?"#,
    ),
    (
        "test strings",
        r#"[ a '<' b ]; echo $?; [ b '>' a ]; echo $?; [ abc != abc ]; echo $?; [ x == x ]; echo $?; [ -z '' ]; echo $?"#,
    ),
    (
        "test files",
        r#"mkdir d; echo hi > f; : > e; ln -s f l; [ -d d ] && echo d; [ -f f ] && echo f; [ -s f ] && echo s; [ -s e ] || echo empty; [ -e nope ] || echo nope; [ -L l ] && echo link; [ -h f ] || echo notlink; [ -f l ] && echo follows"#,
    ),
    (
        "test perms",
        r#"echo x > f; chmod 644 f; [ -x f ] || echo notx; chmod +x f; [ -x f ] && echo x; [ -r f ] && echo r; [ -w f ] && echo w"#,
    ),
    (
        "test -v",
        r#"x=1; [ -v x ] && echo set; [ -v y ] || echo unset; a=(1 2); [ -v 'a[1]' ] && echo a1; [ -v 'a[5]' ] || echo no5"#,
    ),
    (
        "test -v arrays",
        r#"typeset -a a; test -v a; echo a=$?; a[0]=1; test -v a; echo a=$?; test -v 'a[1]'; echo $?; test -v 'a[x]'; echo $?; b=(1 2 3 ''); test -v 'b[1+1]'; echo $?; test -v 'b[4+1]'; echo $?; test -v 'b[-1]'; echo $?"#,
    ),
    (
        "test -v assoc key",
        r#"declare -A m=([empty]='' [k]=v); key=empty; test -v 'm[$key]'; echo $?; key=no; test -v 'm[$key]'; echo $?"#,
    ),
    (
        "export element fails",
        r#"export a[7]=8; echo "st=$? ${#a[@]}"; readonly b[1]=2; echo "st=$? ${#b[@]}""#,
    ),
    (
        "nameref invalid target",
        r#"x=1; declare -n x; echo $?; r=ok; declare -n r; declare -p r"#,
    ),
    (
        "local of readonly",
        r#"readonly y; f() { local y=3; echo "st=$? [$y]"; }; f"#,
    ),
    (
        "unset element wrong type",
        r#"declare u; unset -v 'u[1]'; echo $?; a=(1 2); unset -v 'a[1]'; echo $?; declare -A m=([key]=v); k=key; unset -v 'm[$k]'; echo ${#m[@]}"#,
    ),
    (
        "command -v mixed",
        r#"f() { :; }; command -v echo f ZZZ for; echo "st=$?"; command -v ZZZ; echo "st=$?""#,
    ),
    (
        "command -p",
        r#"PATH=/nowhere; command -p ls / >/dev/null; echo "st=$?""#,
    ),
    ("eval invalid option", r#"eval -z; echo $?"#),
    (
        "builtin double dash",
        r#"builtin -- echo hi; builtin; echo $?"#,
    ),
    (
        "set lone plus",
        r#"set -- a; set +; echo "$@"; set - +; echo "$@""#,
    ),
    (
        "trap unsigned reset",
        r#"trap 'echo noprint' EXIT; trap 0 EXIT; echo ok"#,
    ),
    ("kill -l 0", r#"kill -l 0 INT"#),
    (
        "getopts past end",
        r#"set -- -h -c foo x; while getopts hc: o; do :; done; echo $OPTIND; set --; while getopts hc: o; do :; done; echo $OPTIND"#,
    ),
    (
        "printf unsigned range",
        r#"printf '%u\n' 18446744073709551615 -18446744073709551615; printf '%d\n' '' "#,
    ),
    (
        "printf strftime overflow",
        r#"printf '%(%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y)T' 0 | wc -c"#,
    ),
    (
        "read -N no split",
        r#"echo 'a b c' > f; read -N 4 A B < f; echo "[$A][$B]""#,
    ),
    ("cd missing parent", r#"cd nonexistent_ZZ/..; echo "st=$?""#),
    (
        "cd exports OLDPWD",
        r#"mkdir d; cd d; env | grep -c '^OLDPWD=' "#,
    ),
    (
        "pushd options",
        r#"mkdir d; pushd -z; echo $?; pushd -- d >/dev/null; echo $?; popd -- >/dev/null; echo $?"#,
    ),
    (
        "test -o option",
        r#"test -o errexit; echo $?; set -e; test -o errexit; echo $?"#,
    ),
    (
        "test -nt -ot",
        r#"echo a > a; [ a -nt nope ] && echo newer; [ nope -ot a ] && echo older; [ a -ef a ] && echo same"#,
    ),
    (
        "test unary no arg",
        r#"test -e; echo $?; test ')'; echo $?; test a -a; echo $?; test a =; echo $?"#,
    ),
    (
        "bracket missing",
        r#"[ 1 = 1; echo $?; [ ]; echo $?; [ x ]; echo $?"#,
    ),
    (
        "test many args",
        r#"test a = a -a b = b -a c; echo $?; test a = b -o ! c = d; echo $?"#,
    ),
    // ---- read
    (
        "read ifs splitting",
        r#"echo "a:b:" | (IFS=: read x y; echo "[$x][$y]"); echo "a:b::" | (IFS=: read x y; echo "[$y]"); echo "a:b:c:" | (IFS=: read x y; echo "[$y]")"#,
    ),
    (
        "read whitespace",
        r#"echo "  a  b  " | (read x; echo "[$x]"); echo "  a  b  " | (read; echo "[$REPLY]"); echo " a b " | (IFS= read x; echo "[$x]")"#,
    ),
    (
        "read backslashes",
        r#"echo 'a\ b c\' | (read x y; echo "[$x][$y]"); printf 'a\\\nb c\n' | (read x y; echo "[$x][$y]"); echo 'x\y' | (read -r v; echo "$v")"#,
    ),
    (
        "read eof partial",
        r#"printf abc | (read x; echo "$? [$x]"); printf '' | (read x; echo "$? [$x]")"#,
    ),
    (
        "read -a",
        r#"printf 'a b c\n' | (read -a arr; declare -p arr; echo ${#arr[@]})"#,
    ),
    (
        "read -n -N -d",
        r#"printf abcdef | (read -n 3 x; echo "[$x]"); printf 'ab\ncd' | (read -N 4 x; echo "[$x]"); printf 'a,b;c' | (read -d ';' x; echo "[$x]")"#,
    ),
    (
        "read more vars",
        r#"printf 'a b\n' | (read x y z; echo "[$z]" ${z+set}); printf 'a b c d\n' | (read x y; echo "[$y]")"#,
    ),
    (
        "read loop",
        r#"printf '1 one\n2 two\n3 three\n' | while read n w; do echo "$w=$n"; done"#,
    ),
    (
        "read heredoc",
        "read a b <<END\nfirst second third\nEND\necho \"$a|$b\"",
    ),
    (
        "read herestring",
        r#"read -r x <<< 'hello world'; echo "$x"; IFS=, read -ra parts <<< 'a,b,,c'; echo "${#parts[@]} ${parts[2]}x ${parts[3]}""#,
    ),
    (
        "read invalid",
        r#"read -q; echo $?; read 1x <<< a; echo $?"#,
    ),
    (
        "read -u",
        r#"exec 3<<< 'from three'; read -u 3 v; echo "$v""#,
    ),
    (
        "read -d empty",
        r#"printf 'a\0b\0' | { read -d '' x; read -d '' y; echo "$x $y"; }"#,
    ),
    // ---- mapfile
    (
        "mapfile basic",
        r#"printf 'a\nb\nc\n' | { mapfile arr; declare -p arr; }"#,
    ),
    (
        "mapfile -t",
        r#"printf 'a\nb\nc\n' | { mapfile -t arr; echo "${#arr[@]} ${arr[1]}"; }"#,
    ),
    (
        "mapfile -n -s -O",
        r#"printf '1\n2\n3\n4\n5\n' | { mapfile -t -s 1 -n 2 arr; declare -p arr; }; printf 'x\ny\n' | { a=(q); mapfile -t -O 1 a; declare -p a; }"#,
    ),
    (
        "readarray -d",
        r#"printf 'a,b,c' | { readarray -t -d , arr; declare -p arr; }"#,
    ),
    (
        "mapfile default",
        r#"mapfile -t <<< $'l1\nl2'; echo "${MAPFILE[1]}""#,
    ),
    // ---- declare / typeset / local / readonly / export / unset
    (
        "declare -p scalars",
        r#"x=$'a\nb'; y='q"$`\'; z=; declare -p x y z"#,
    ),
    (
        "declare -i",
        r#"declare -i i=2+3; echo $i; i+=4; echo $i; i='i*2'; echo $i; declare -p i"#,
    ),
    (
        "declare case",
        r#"declare -l l=ABC; echo $l; l+=DEF; echo $l; declare -u u=abc; echo $u; declare -p l u"#,
    ),
    (
        "declare arrays",
        r#"declare -a a=(1 "x y" 3); declare -p a; a+=(4); echo ${#a[@]}; declare -A m=([k]=v [k2]=v2); declare -p m"#,
    ),
    (
        "declare empty arrays",
        r#"declare -a e=(); declare -p e; declare -A ea; declare -p ea; declare -a u; declare -p u"#,
    ),
    (
        "declare scalar to array",
        r#"b=x; declare -a b; declare -p b; declare -a c=1; declare -p c"#,
    ),
    (
        "declare assoc pairs",
        r#"declare -A c=(1 2 3 4); declare -p c; declare -A d=(x y z); declare -p d"#,
    ),
    (
        "assoc order like bash",
        r#"declare -A m=([one]=1 [two]=2 [three]=3 [four]=4 [five]=5); echo "${!m[@]}"; m[six]=6; unset 'm[two]'; echo "${m[@]}"; declare -p m"#,
    ),
    (
        "assoc keyed and bare",
        r#"declare -A a; a=([j]=1 2 3); echo "st=$?"; declare -p a"#,
    ),
    (
        "assoc set listing",
        r#"declare -A __m; __m['k e y']='v a l'; __m[a]=b; set | grep '^__'"#,
    ),
    (
        "bare declare listing",
        r#"v1=111; readonly v2='a b'; declare -n v4=v1; declare | grep '^v[0-9]='"#,
    ),
    (
        "declare convert error",
        r#"declare -a d; declare -A d; echo $?; declare 1x=3; echo $?"#,
    ),
    (
        "declare readonly",
        r#"declare -r r=1; declare r=2; echo $?; declare +r r; echo $?; echo $r"#,
    ),
    ("declare -p missing", r#"declare -p nope; echo $?"#),
    (
        "declare -x export",
        r#"declare -x E=1; env | grep '^E='; export -n E; env | grep -c '^E='; export F=2; declare -p F"#,
    ),
    (
        "declare -n nameref",
        r#"declare -n r=x; r=5; echo $x; declare -p r x; unset r; echo "${x-unset}""#,
    ),
    (
        "nameref array element",
        r#"a=(1 2 3); declare -n r='a[1]'; echo $r; r=9; echo "${a[@]}""#,
    ),
    (
        "nameref in function",
        r#"setv() { local -n ref=$1; ref=$2; }; setv target hello; echo $target"#,
    ),
    (
        "declare -g",
        r#"f() { local x=2; declare -g y=7; declare z=3; }; f; echo "$y [${z-unset}]""#,
    ),
    (
        "declare in function is local",
        r#"x=g; f() { declare x=l; echo $x; }; f; echo $x"#,
    ),
    (
        "declare -F",
        r#"f() { :; }; g() { :; }; declare -F; declare -F f; declare -F nope; echo $?"#,
    ),
    ("typeset", r#"typeset -i n=3*3; echo $n; typeset -p n"#),
    (
        "local basics",
        r#"x=g; f() { local x=l; echo $x; g; }; g() { echo "g sees $x"; }; f; echo $x"#,
    ),
    ("local outside function", r#"local y=1; echo $?"#),
    (
        "local unset semantics",
        r#"f() { local x=1; unset x; echo "${x-unset}"; x=2; }; x=g; f; echo $x"#,
    ),
    (
        "unset reveals global",
        r#"g(){ unset x; echo "in g: ${x-unset}"; }; f() { local x=1; g; echo "in f: ${x-unset}"; }; x=gl; f; echo $x"#,
    ),
    (
        "local no value",
        r#"f() { local x; echo "${x-unset}"; declare -p x; }; x=g; f"#,
    ),
    ("local -p", r#"f() { local -a x; local y=3; local; }; f"#),
    (
        "local array",
        r#"f() { local a=(1 2 3); echo ${#a[@]}; }; f; echo "${#a[@]}""#,
    ),
    ("readonly", r#"readonly q=1; q=2; echo unreachable"#),
    (
        "readonly in declare",
        r#"readonly x=1; declare x=3; echo $? $x"#,
    ),
    ("readonly -p", r#"readonly r1=a; readonly -p | grep r1"#),
    (
        "readonly prefix assignment",
        "readonly x=1\nx=2 echo hi; echo st=$?",
    ),
    (
        "export -p",
        r#"export A=1 B="x y"; export -p | grep -E ' (A|B)='"#,
    ),
    (
        "export env to command",
        r#"X=5; export X; env | grep '^X='; Y=6 env | grep '^Y='"#,
    ),
    (
        "unset basics",
        r#"x=1; unset x; echo "${x-gone}"; a=(1 2 3); unset 'a[1]'; declare -p a; unset a; echo "${a-gone}""#,
    ),
    (
        "unset -f -v",
        r#"f() { echo f; }; unset -f f; f 2>/dev/null; echo $?; v=1; unset -v v; echo "${v-gone}""#,
    ),
    (
        "unset invalid",
        r#"unset -v 1a; echo $?; unset nope; echo $?"#,
    ),
    (
        "unset assoc key",
        r#"declare -A m=([a]=1 [b]=2); unset 'm[a]'; declare -p m"#,
    ),
    ("unset readonly", r#"readonly r=1; unset r; echo $? $r"#),
    (
        "unset function fallback",
        r#"f() { echo fun; }; unset f; f 2>/dev/null; echo $?"#,
    ),
    ("array append scalar", r#"s=abc; s+=(def); declare -p s"#),
    (
        "array negative index",
        r#"a=(1 2 3); a[-1]=z; echo "${a[@]}"; unset 'a[-1]'; echo "${a[@]}""#,
    ),
    (
        "array scalar assignment",
        r#"a=(x y); a=z; declare -p a; declare -A m; m=q; declare -p m"#,
    ),
    (
        "integer array",
        r#"declare -ai ia=(1+1 2*3); echo "${ia[@]}"; ia+=(4+4); echo "${ia[@]}""#,
    ),
    (
        "sparse array",
        r#"a[5]=x; a[2]=y; declare -p a; a+=(z); declare -p a"#,
    ),
    ("set -a allexport", r#"set -a; AX=1; env | grep '^AX='"#),
    // ---- set / shopt
    (
        "set positional",
        r#"set -- a b c; echo $# $2; set --; echo $#; set x y; echo $1"#,
    ),
    ("set -o list", r#"set -o | head -5; set +o | head -3"#),
    (
        "set -o pipefail",
        r#"set -o pipefail; false | true; echo $?; set +o pipefail; false | true; echo $?"#,
    ),
    ("set errors", r#"set -o foo; echo $?; set -q; echo $?"#),
    ("set -e", r#"set -e; true; false; echo unreachable"#),
    (
        "set -u",
        r#"set -u; echo ${x-default}; echo $x; echo unreachable"#,
    ),
    ("set -f", r#"touch a b; set -f; echo *; set +f; echo *"#),
    (
        "set -C",
        r#"echo a > f; set -C; echo b > f; echo $?; echo c >| f; cat f"#,
    ),
    (
        "set -x output",
        r#"set -x; echo hi 2>/dev/null; set +x; echo done"#,
    ),
    (
        "set flags dollar dash",
        r#"set -eu; case $- in *e*) echo e;; esac; case $- in *u*) echo u;; esac; set +eu; case $- in *e*) echo still;; *) echo off;; esac"#,
    ),
    (
        "set variable listing",
        r#"x="a b"; y=1; z=; a=(1 "x y"); set | grep -E '^(x|y|z|a)='"#,
    ),
    (
        "set dash dash words",
        r#"set -- "a b" c; for a; do echo "[$a]"; done"#,
    ),
    (
        "shopt basics",
        r#"shopt extglob; echo $?; shopt -s extglob; shopt extglob; shopt -p extglob nullglob; shopt -u extglob; shopt -q extglob; echo $?"#,
    ),
    (
        "shopt errors",
        r#"shopt foo; echo $?; shopt -s nosuch; echo $?"#,
    ),
    (
        "shopt -o",
        r#"shopt -o errexit; shopt -po errexit; shopt -so errexit; shopt -qo errexit; echo $?"#,
    ),
    ("shopt list", r#"shopt | head -4; shopt -s | head -3"#),
    (
        "shopt nullglob",
        r#"shopt -s nullglob; echo start *.nomatch end"#,
    ),
    // ---- cd / pwd / dirs
    (
        "cd basics",
        r#"mkdir -p a/b; cd a; basename "$PWD"; cd b; basename "$OLDPWD"; cd ..; basename "$(pwd)""#,
    ),
    (
        "cd dash",
        r#"mkdir x; cd x; cd - >/dev/null; ls -d x; cd - >/dev/null; basename "$PWD""#,
    ),
    (
        "cd errors",
        r#"cd nope; echo $?; cd a b; echo $?; touch f; cd f; echo $?"#,
    ),
    ("cd no HOME", r#"unset HOME; cd; echo $?"#),
    ("cd empty", r#"cd ""; echo $?"#),
    (
        "cd CDPATH",
        r#"mkdir -p base/sub; CDPATH=./base cd sub >/dev/null; echo $?; basename "$PWD""#,
    ),
    (
        "pwd -P",
        r#"mkdir real; ln -s real link; cd link; basename "$(pwd)"; basename "$(pwd -P)"; basename "$(pwd -L)""#,
    ),
    (
        "pushd popd",
        r#"mkdir -p a/b; pushd a >/dev/null; pushd b >/dev/null; dirs -v | wc -l; popd >/dev/null; basename "$PWD"; popd >/dev/null; popd; echo $?"#,
    ),
    (
        "dirs clear",
        r#"mkdir a; pushd a >/dev/null; dirs -c; dirs -v | wc -l"#,
    ),
    // ---- exit / return / break / continue / shift
    ("exit status", r#"exit 3"#),
    ("exit wraps", r#"exit 257"#),
    ("exit negative", r#"exit -1"#),
    ("exit non numeric", r#"exit abc; echo no"#),
    ("exit default last status", r#"false; exit"#),
    ("exit in subshell", r#"(exit 4); echo $?"#),
    ("return value", r#"f() { return 3; echo no; }; f; echo $?"#),
    ("return default", r#"f() { false; return; }; f; echo $?"#),
    ("return outside", r#"return; echo $?"#),
    ("return non numeric", r#"f() { return abc; }; f; echo $?"#),
    (
        "break nested",
        r#"for i in 1 2 3; do for j in a b c; do [ $j = b ] && break 2; echo $i$j; done; done; echo end"#,
    ),
    (
        "continue nested",
        r#"for i in 1 2; do for j in a b; do [ $j = a ] && continue 2; echo $i$j; done; done; echo end"#,
    ),
    ("break outside loop", r#"break; echo $?; continue; echo $?"#),
    (
        "break 0",
        r#"for i in 1 2; do echo $i; break 0; echo st=$?; done; echo after"#,
    ),
    (
        "shift",
        r#"set -- a b c d; shift; echo $*; shift 2; echo $*; shift 5; echo $? $#"#,
    ),
    (
        "shift errors",
        r#"set -- a; shift abc; echo $?; shift -1; echo $?"#,
    ),
    ("shift in function", r#"f() { shift; echo "$@"; }; f 1 2 3"#),
    // ---- getopts
    (
        "getopts basic",
        r#"set -- -a -b val rest; while getopts "ab:" o; do echo "$o ${OPTARG-}"; done; echo "OPTIND=$OPTIND"; shift $((OPTIND-1)); echo "$@""#,
    ),
    (
        "getopts bundled",
        r#"OPTIND=1; getopts ab: o -abfoo; echo "$o ${OPTARG-} $OPTIND"; getopts ab: o -abfoo; echo "$o $OPTARG $OPTIND"; getopts ab: o -abfoo; echo "$? $o""#,
    ),
    (
        "getopts silent",
        r#"getopts ":ab:" o -b; echo "$? $o [$OPTARG] $OPTIND"; OPTIND=1; getopts ":ab:" o -z; echo "$? $o [$OPTARG] $OPTIND""#,
    ),
    (
        "getopts loud",
        r#"getopts "a" o -z 2>/dev/null; echo "$? $o [${OPTARG-unset}]"; OPTIND=1; getopts "b:" o -b 2>/dev/null; echo "$? $o""#,
    ),
    (
        "getopts double dash",
        r#"set -- -a -- -b; while getopts ab o; do echo $o; done; echo $OPTIND"#,
    ),
    ("getopts usage", r#"getopts; echo $?"#),
    (
        "getopts in function",
        r#"f() { local OPTIND o; while getopts "xy:" o; do echo "$o${OPTARG:+=$OPTARG}"; done; }; f -x -y 1; f -y 2"#,
    ),
    (
        "getopts OPTERR",
        r#"OPTERR=0; getopts a o -q; echo "$? $o""#,
    ),
    // ---- eval / source
    (
        "eval basic",
        r#"eval 'x=1; echo $x'; eval echo '$x' two; eval; echo $?"#,
    ),
    (
        "eval status",
        r#"eval false; echo $?; eval 'exit 5'; echo no"#,
    ),
    ("eval syntax error", r#"eval 'if'; echo $?"#),
    (
        "source file",
        r#"echo 'echo sourced $1 $#; y=2' > lib.sh; source ./lib.sh a b; echo $y; . ./lib.sh; echo $#"#,
    ),
    (
        "source return",
        r#"printf 'echo one\nreturn 4\necho two\n' > r.sh; . ./r.sh; echo $?"#,
    ),
    (
        "source missing",
        r#"source ./nope.sh; echo $?; source; echo $?"#,
    ),
    (
        "source keeps positional",
        r#"echo 'echo in: $@' > s.sh; set -- x y; . ./s.sh; . ./s.sh p; echo out: $@"#,
    ),
    (
        "source functions",
        r#"echo 'hello() { echo hi $1; }' > f.sh; . ./f.sh; hello you"#,
    ),
    // ---- trap
    ("trap exit", r#"trap 'echo bye' EXIT; echo hi"#),
    (
        "trap listing",
        r#"trap 'echo bye' EXIT; trap -p; trap -p EXIT; trap - EXIT; trap -p; echo done"#,
    ),
    (
        "trap signals",
        r#"trap '' INT; trap -p INT; trap 'echo e' ERR TERM; trap -p; trap x FOO; echo $?"#,
    ),
    ("trap exit status", r#"trap 'echo status $?' EXIT; exit 3"#),
    ("trap -l", r#"trap -l | head -2"#),
    (
        "trap reset numeric",
        r#"trap 'echo x' INT TERM; trap 2 15; trap -p; echo none"#,
    ),
    // ---- alias
    (
        "alias define list",
        r#"alias ll='ls -l' la='ls -a'; alias; alias ll; alias nope; echo $?"#,
    ),
    (
        "unalias",
        r#"alias a=b; unalias a; alias a; echo $?; unalias nope; echo $?; alias x=y; unalias -a; alias; echo end"#,
    ),
    (
        "alias expansion",
        "shopt -s expand_aliases\nalias say='echo said'\nsay hello",
    ),
    // ---- type / command / builtin / hash
    (
        "type kinds",
        r#"f() { :; }; type -t if echo f ls; type echo; type if"#,
    ),
    (
        "type not found",
        r#"type nope; echo $?; type -t nope; echo $?"#,
    ),
    ("type -p -P", r#"type -p echo; echo $?; type -P ls"#),
    ("type function body", r#"f() { echo hi; }; type f"#),
    (
        "command -v",
        r#"f() { :; }; command -v f echo if ls; command -v nope; echo $?"#,
    ),
    (
        "command skips functions",
        r#"echo() { printf 'fn\n'; }; echo x; command echo real"#,
    ),
    (
        "command -V",
        r#"command -V echo; command -V nope 2>/dev/null; echo $?"#,
    ),
    (
        "builtin",
        r#"echo() { printf 'fn\n'; }; builtin echo real; builtin nope 2>/dev/null; echo $?"#,
    ),
    (
        "hash",
        r#"hash; hash -r; echo $?; hash nope 2>/dev/null; echo $?"#,
    ),
    // ---- let / : / true / false
    (
        "let",
        r#"let x=3 y=x*2; echo $x $y; let 0; echo $?; let 1+1; echo $?; let; echo $?"#,
    ),
    (
        "let increments",
        r#"i=0; let i++ i+=5; echo $i; let 'z = i > 3 ? 10 : 20'; echo $z"#,
    ),
    (
        "colon true false",
        r#":; echo $?; true; echo $?; false; echo $?; : ignored args $(echo x); echo $?"#,
    ),
    // ---- misc
    ("times", r#"times | wc -l"#),
    ("wait", r#"wait; echo $?; sleep 0 & wait $!; echo $?"#),
    (
        "kill -l",
        r#"kill -l | head -1; kill -l 9; kill -l KILL; kill -l SIGTERM; kill -l 137"#,
    ),
    (
        "kill no process",
        r#"kill 999999; echo $?; kill -9 999998; echo $?; kill; echo $?"#,
    ),
    (
        "umask",
        r#"umask; umask -S; umask -p; umask 077; umask; umask 999; echo $?; umask u=rwx,g=rx,o=; umask"#,
    ),
    ("ulimit", r#"ulimit; ulimit -f"#),
    ("exec command", r#"exec echo replaced; echo never"#),
    ("exec status", r#"exec false; echo never"#),
    ("caller outside", r#"caller; echo $?"#),
    // ---- variables behaviour
    (
        "dynamic scope",
        r#"x=1; f() { local x=2; g; }; g() { echo $x; x=3; }; f; echo $x"#,
    ),
    (
        "local IFS",
        r#"f() { local IFS=,; set -- a b; echo "$*"; }; f; set -- a b; echo "$*""#,
    ),
    ("append string", r#"s=a; s+=b; s+=1; echo $s"#),
    (
        "integer append",
        r#"declare -i n=5; n+=5; echo $n; n=n+1; echo $n"#,
    ),
    ("uppercase array", r#"declare -u a=(x y); declare -p a"#),
    (
        "assoc append",
        r#"declare -A m; m[one]=1; echo ${m[one]} ${#m[@]}; m[one]+=2; echo ${m[one]}"#,
    ),
    (
        "loop assign",
        r#"for i in $(seq 1 2000); do x=$((x+i)); done; echo $x"#,
    ),
];
