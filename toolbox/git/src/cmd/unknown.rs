//! What `git X` prints when X is no git command: git's own "is not a git
//! command" line, then the closest commands by git's weighted edit
//! distance (a common command that starts with X counts as closest), and
//! status 1. A real git command the local sandbox does not have (`push`,
//! `fetch`, ...) gets the same line, without suggestions.

use std::io::Write;

/// The commands of git 2.47's exec path (`git --list-cmds=main`): the names
/// git weighs a mistyped command against.
const MAIN_COMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archimport",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout--worker",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-cache--daemon",
    "credential-store",
    "cvsexportcommit",
    "cvsimport",
    "cvsserver",
    "daemon",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "difftool--helper",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "fsck-objects",
    "fsmonitor--daemon",
    "gc",
    "get-tar-commit-id",
    "grep",
    "hash-object",
    "help",
    "hook",
    "http-backend",
    "http-fetch",
    "http-push",
    "imap-send",
    "index-pack",
    "init",
    "init-db",
    "instaweb",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-octopus",
    "merge-one-file",
    "merge-ours",
    "merge-recursive",
    "merge-recursive-ours",
    "merge-recursive-theirs",
    "merge-resolve",
    "merge-subtree",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "p4",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "pickaxe",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "quiltimport",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "remote-ext",
    "remote-fd",
    "remote-ftp",
    "remote-ftps",
    "remote-http",
    "remote-https",
    "repack",
    "replace",
    "replay",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "send-pack",
    "sh-i18n--envsubst",
    "shell",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "submodule--helper",
    "svn",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-archive--writer",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "web--browse",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// The commands `git help` lists as common: a prefix match among them is
/// the best match there is.
const COMMON_COMMANDS: &[&str] = &[
    "add", "bisect", "branch", "clone", "commit", "diff", "fetch", "grep", "init", "log", "merge",
    "mv", "pull", "push", "rebase", "reset", "restore", "rm", "show", "status", "switch", "tag",
];

/// Beyond this distance a command is not offered.
const SIMILARITY_FLOOR: usize = 7;

/// Edit distance from `from` to `to` with git's weights: swapping two
/// neighbours 0, substituting 2, inserting 1, deleting 3.
fn weighted_distance(from: &[u8], to: &[u8]) -> usize {
    const SWAP: usize = 0;
    const SUBSTITUTE: usize = 2;
    const INSERT: usize = 1;
    const DELETE: usize = 3;
    let (n, m) = (from.len(), to.len());
    // d[i][j]: cost of turning from[..i] into to[..j].
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j * INSERT;
    }
    for i in 1..=n {
        d[i][0] = i * DELETE;
        for j in 1..=m {
            let same = from[i - 1] == to[j - 1];
            let mut best = d[i - 1][j - 1] + if same { 0 } else { SUBSTITUTE };
            if i > 1 && j > 1 && from[i - 2] == to[j - 1] && from[i - 1] == to[j - 2] {
                best = best.min(d[i - 2][j - 2] + SWAP);
            }
            best = best.min(d[i - 1][j] + DELETE);
            best = best.min(d[i][j - 1] + INSERT);
            d[i][j] = best;
        }
    }
    d[n][m]
}

/// The commands git suggests for the unknown `cmd`, best first.
pub fn suggestions(cmd: &str) -> Vec<&'static str> {
    let mut scored: Vec<(usize, &'static str)> = MAIN_COMMANDS
        .iter()
        .filter(|&&c| c != cmd)
        .map(|&c| {
            if COMMON_COMMANDS.contains(&c) && c.starts_with(cmd) {
                (0, c)
            } else {
                (weighted_distance(cmd.as_bytes(), c.as_bytes()) + 1, c)
            }
        })
        .collect();
    scored.sort();
    let prefixed = scored.iter().take_while(|(d, _)| *d == 0).count();
    let best = match scored.get(prefixed) {
        Some((d, _)) => *d,
        None => SIMILARITY_FLOOR + 1,
    };
    if best >= SIMILARITY_FLOOR {
        return Vec::new();
    }
    scored
        .iter()
        .take_while(|(d, _)| *d == 0 || *d == best)
        .map(|(_, c)| *c)
        .collect()
}

/// Writes git's complaint about `cmd` to `err`; the status is 1.
pub fn not_a_command(cmd: &str, err: &mut Vec<u8>) -> i32 {
    let _ = writeln!(err, "git: '{cmd}' is not a git command. See 'git --help'.");
    // A real git command the sandbox lacks gets no "did you mean".
    if MAIN_COMMANDS.contains(&cmd) {
        return 1;
    }
    let similar = suggestions(cmd);
    if !similar.is_empty() {
        let heading = if similar.len() == 1 {
            "The most similar command is"
        } else {
            "The most similar commands are"
        };
        let _ = writeln!(err, "\n{heading}");
        for c in similar {
            let _ = writeln!(err, "\t{c}");
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::suggestions;

    #[test]
    fn git_offers_what_it_offers() {
        assert_eq!(suggestions("stauts"), ["status"]);
        assert_eq!(suggestions("sta"), ["status", "stage", "stash"]);
        assert_eq!(
            suggestions("bran"),
            ["branch", "blame", "clean", "prune", "var"]
        );
        assert_eq!(
            suggestions("rebas"),
            ["rebase", "merge-base", "refs", "repack", "replay"]
        );
        assert_eq!(suggestions("lo"), ["log", "clone"]);
        assert_eq!(
            suggestions("st"),
            ["status", "reset", "stage", "stash", "svn"]
        );
        assert!(suggestions("frobnicate").is_empty());
    }
}
