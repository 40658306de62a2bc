//! The synopsis git prints after an option a subcommand does not know
//! (`error: unknown option `x'` then `usage: git NAME ...`, status 129).
//! Only the synopsis lines: git goes on with the list of every option,
//! which is not repeated here.

/// The synopsis of `name`, if it is one of the subcommands listed.
pub fn synopsis(name: &str) -> Option<&'static str> {
    SYNOPSES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

const SYNOPSES: &[(&str, &str)] = &[
    (
        "add",
        r#"usage: git add [<options>] [--] <pathspec>...
"#,
    ),
    (
        "branch",
        r#"usage: git branch [<options>] [-r | -a] [--merged] [--no-merged]
   or: git branch [<options>] [-f] [--recurse-submodules] <branch-name> [<start-point>]
   or: git branch [<options>] [-l] [<pattern>...]
   or: git branch [<options>] [-r] (-d | -D) <branch-name>...
   or: git branch [<options>] (-m | -M) [<old-branch>] <new-branch>
   or: git branch [<options>] (-c | -C) [<old-branch>] <new-branch>
   or: git branch [<options>] [-r | -a] [--points-at]
   or: git branch [<options>] [-r | -a] [--format]
"#,
    ),
    (
        "checkout",
        r#"usage: git checkout [<options>] <branch>
   or: git checkout [<options>] [<branch>] -- <file>...
"#,
    ),
    (
        "clone",
        r#"usage: git clone [<options>] [--] <repo> [<dir>]
"#,
    ),
    (
        "commit",
        r#"usage: git commit [-a | --interactive | --patch] [-s] [-v] [-u<mode>] [--amend]
                  [--dry-run] [(-c | -C | --squash) <commit> | --fixup [(amend|reword):]<commit>]
                  [-F <file> | -m <msg>] [--reset-author] [--allow-empty]
                  [--allow-empty-message] [--no-verify] [-e] [--author=<author>]
                  [--date=<date>] [--cleanup=<mode>] [--[no-]status]
                  [-i | -o] [--pathspec-from-file=<file> [--pathspec-file-nul]]
                  [(--trailer <token>[(=|:)<value>])...] [-S[<keyid>]]
                  [--] [<pathspec>...]
"#,
    ),
    (
        "fetch",
        r#"usage: git fetch [<options>] [<repository> [<refspec>...]]
   or: git fetch [<options>] <group>
   or: git fetch --multiple [<options>] [(<repository> | <group>)...]
   or: git fetch --all [<options>]
"#,
    ),
    (
        "merge",
        r#"usage: git merge [<options>] [<commit>...]
   or: git merge --abort
   or: git merge --continue
"#,
    ),
    (
        "mv",
        r#"usage: git mv [<options>] <source>... <destination>
"#,
    ),
    (
        "pull",
        r#"usage: git pull [<options>] [<repository> [<refspec>...]]
"#,
    ),
    (
        "push",
        r#"usage: git push [<options>] [<repository> [<refspec>...]]
"#,
    ),
    (
        "rebase",
        r#"usage: git rebase [-i] [options] [--exec <cmd>] [--onto <newbase> | --keep-base] [<upstream> [<branch>]]
   or: git rebase [-i] [options] [--exec <cmd>] [--onto <newbase>] --root [<branch>]
   or: git rebase --continue | --abort | --skip | --edit-todo
"#,
    ),
    (
        "reset",
        r#"usage: git reset [--mixed | --soft | --hard | --merge | --keep] [-q] [<commit>]
   or: git reset [-q] [<tree-ish>] [--] <pathspec>...
   or: git reset [-q] [--pathspec-from-file [--pathspec-file-nul]] [<tree-ish>]
   or: git reset --patch [<tree-ish>] [--] [<pathspec>...]
"#,
    ),
    (
        "restore",
        r#"usage: git restore [<options>] [--source=<branch>] <file>...
"#,
    ),
    (
        "rm",
        r#"usage: git rm [-f | --force] [-n] [-r] [--cached] [--ignore-unmatch]
              [--quiet] [--pathspec-from-file=<file> [--pathspec-file-nul]]
              [--] [<pathspec>...]
"#,
    ),
    (
        "status",
        r#"usage: git status [<options>] [--] [<pathspec>...]
"#,
    ),
    (
        "switch",
        r#"usage: git switch [<options>] [<branch>]
"#,
    ),
    (
        "tag",
        r#"usage: git tag [-a | -s | -u <key-id>] [-f] [-m <msg> | -F <file>] [-e]
               [(--trailer <token>[(=|:)<value>])...]
               <tagname> [<commit> | <object>]
   or: git tag -d <tagname>...
   or: git tag [-n[<num>]] -l [--contains <commit>] [--no-contains <commit>]
               [--points-at <object>] [--column[=<options>] | --no-column]
               [--create-reflog] [--sort=<key>] [--format=<format>]
               [--merged <commit>] [--no-merged <commit>] [<pattern>...]
   or: git tag -v [--format=<format>] <tagname>...
"#,
    ),
];
