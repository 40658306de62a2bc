//! Differential suite of `find` and `xargs`: each case runs after a common
//! setup script (a small tree under `t/`) in our shell and in the host's bash
//! in a fresh temp dir with `LC_ALL=C`. Stdout and exit status must agree;
//! when GNU prints an error, ours must print one too. Output whose order is
//! the filesystem's (readdir order differs) is piped through `sort`.

use crate::support::suite::Suite;

const SETUP: &str = "mkdir -p t/a/b t/c t/d/e; printf x > t/a/f1.txt; printf hello > t/a/b/g.TXT; \
: > t/c/empty; printf '%s\\n' one two > t/d/e/h.log; ln -s ../a t/c/link; chmod 700 t/a/f1.txt; \
printf '%3000s' '' > t/big; ";

/// One case per line; blank lines and `#` comments are skipped.
const CASES: &str = r#"
find t | sort
find t -print | sort
find t -type f | sort
find t -type d | sort
find t -type l
find t -type f,l | sort
find t -name '*.txt'
find t -iname '*.txt' | sort
find t -name 'g*'
find t -name '[fg]*' | sort
find t -not -name '*.txt' -type f | sort
find t ! -type d | sort
find t -maxdepth 1 | sort
find t -maxdepth 0
find t -mindepth 2 -maxdepth 2 | sort
find t -mindepth 3 | sort
find t -path '*a/b*' | sort
find t -ipath '*A/B*' | sort
find t -wholename 't/c/*' | sort
find t -regex '.*\.txt'
find t -regex '.*/\(f1\|g\)\..*' | sort
find t -iregex '.*G\.txt'
find t -regextype posix-extended -regex '.*/(f1|h)\..*' | sort
find t -empty | sort
find t -type f -empty
find t -type d -empty
find t -type f -size +2k
find t -size -2 -type f | sort
find t -size 5c
find t -size +1c -type f | sort
find t -size 3000c
find t -perm 700
find t -perm -u+x -type f
find t -perm /o+w -type f
find t -type f -perm 644 | sort
find t -name '*.txt' -o -name '*.log' | sort
find t \( -name '*.txt' -o -name '*.log' \) -print | sort
find t -name '*.txt' -a -type f
find t -name '*.txt' -and -type f
find t -type f -name '*.log' -or -name 'empty' | sort
find t -path t/a -prune -o -type f -print | sort
find t -name b -prune -o -name '*.TXT' -print
find t -type f -print0 | sort -z | tr '\0' '\n'
find t/a/f1.txt -printf '%p %f %h %s %d %m\n'
find t/a -printf '%P|%d\n' | sort
find t/a/b/g.TXT -printf '%s %y %f\n'
find t/big -printf '%k %s\n'
find t/c/link -printf '%y %l\n'
touch -d '2024-01-02 03:04:05.5' t/a/f1.txt; find t/a/f1.txt -printf '%t|%a|%T@|%T+\n'
touch -d '2024-01-02 03:04:05' t/a/f1.txt; find t/a/f1.txt -printf '%Tc|%TS|%TT|%TX|%TY-%Tm-%Td|%Tk|%Tl|%Tp|%Tr|%Tx|%Tj|%Ta %Tb %Te|%TZ %Tz|%Ts\n'
touch -d '1999-12-31 23:59:59' t/a/f1.txt; find t/a/f1.txt -printf '%AY %AH:%AM %A+\n'
find t/a/b -printf '%-10f|%5s|\n' | sort
find t/a/f1.txt -printf '%M %y\n'
find t -maxdepth 1 -type d -printf '%f\n' | sort
find t -type f -exec echo file {} \; | sort
find t -type f -exec echo {} + | tr ' ' '\n' | sort
find t -name '*.txt' -exec cat {} \;
find t/a -name f1.txt -execdir pwd \; | sed 's|.*/t/|t/|'
find t -name '*.log' -exec wc -l {} \;
find t -type f -exec test -s {} \; -print | sort
find t -name nothing
find missing; echo $?
find t missing | sort
find t -badopt
find t -name
find t -type x
find t \( -name a
find t -maxdepth x
find t -quit
find t -name '*.txt' -print -quit
find t -false
find t -true | wc -l
find t -mtime -1 | sort
find t -mtime +1
find t -mmin -5 -type f | sort
find t -newer t/a/f1.txt -name nope
find t -nouser
find t -links 1 -type f | sort
find t/a -depth | sort
find t -depth -type d | sort
cp -r t u && find u -name '*.txt' -delete && find u -type f | sort
cp -r t u && find u/d -delete && ls u
cp -r t u && find u -empty -delete; find u | sort
find t -type f -size -1k | sort
find t -type f -size 1 | sort
find t -size +5 -type f
find t -type f -perm -600 | sort
find t -type f -perm u=rwx
find t -type d -perm -755 | sort
find t -name '*.txt' , -name '*.log' | sort
find t -type f \( -name 'f*' -o -name 'h*' \) -printf '%f\n' | sort
find . -name f1.txt
find ./t/a/b
find t/ -maxdepth 1 -name a
find t//a -maxdepth 0
find t -name a -type d -exec ls {} \; | sort
find t -type f -name '*.txt' -printf '%h\n'
find t -inum 999999999
find t/a/b -links 2
find t -type f -newer t/a/f1.txt -name nope
find t -newer nosuch
find t -perm 999
find t -size 3x
find t -mtime abc
find t -exec echo
find t -o
find t !
find t \( \)
find t -name a )
find t -printf '%p\t%d\0' -maxdepth 0 2>/dev/null | tr '\0' '\n'
find t -ok echo {} \;
find -L t/c -name f1.txt
find t/c -follow -name f1.txt
find -H t/c/link -maxdepth 0 -type d
find t/c/link -maxdepth 0 -type l
find t -samefile t/big 2>/dev/null; echo x

find t -type f | xargs echo | tr ' ' '\n' | sort
find t -name '*.txt' | xargs cat
find t -type f -print0 | xargs -0 -n1 echo | sort
printf 'a b c\nd e\n' | xargs
printf 'a b c\nd e\n' | xargs -n 2
printf 'a b c\nd e\n' | xargs -L 1
printf 'a b c\nd e\n' | xargs -L 1 echo line
printf 'a\nb\nc\n' | xargs -I X echo [X]
printf 'a\nb\nc\n' | xargs -I{} echo {} {}
printf '  lead  trail  \n' | xargs -I{} echo "<{}>"
printf 'a,b,c' | xargs -d , echo
printf 'a,b,c\n' | xargs -d , -n1 echo
printf 'a\0b c\0' | xargs -0 -n1 echo
printf '' | xargs echo hi
printf '' | xargs -r echo hi
printf '\n\n' | xargs -r echo hi
printf "'a b' \"c d\" e\\\\ f\n" | xargs -n1
printf "'unterminated\n" | xargs echo
printf 'a b\n' | xargs -t echo 2>&1
printf 'x y z\n' | xargs -n1 -t echo 2>/dev/null
printf 'a\nb\n' | xargs false; echo $?
printf 'a\nb\n' | xargs nosuchcmd; echo $?
printf 'a\nb\n' | xargs sh -c 'exit 255'; echo $?
printf 'a\nEND\nb\n' | xargs -E END echo
printf 'a b c d e\n' | xargs -n 2 -P 4 echo | sort
printf 'one\ntwo\n' > in.txt; xargs -a in.txt echo got
xargs -a missing.txt echo
printf 'a b\n' | xargs -s 100 echo
printf 'a\n' | xargs -n x echo
printf 'a\n' | xargs --no-run-if-empty echo y
printf 'a\n' | xargs -Q
printf '1\n2\n3\n' | xargs -n1 sh -c 'echo $(($0*2))'
echo t/a t/c | xargs ls | sort
find t/a -name '*.txt' | xargs -I{} sh -c 'echo {}; cat {}; echo'
"#;

#[test]
fn find_and_xargs_match_gnu() {
    let mut suite = Suite::of_gnu_tools("find_diff");
    suite.run_lines(SETUP, CASES);
    suite.finish();
}
