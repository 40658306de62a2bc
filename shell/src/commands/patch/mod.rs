//! `patch`: GNU patch 2.7.6 over the VFS: unified and context diffs (with
//! `diff --git` headers), `-p`, `-R`, `-N`, `--dry-run`, `-i`, `-o`, `-b`,
//! offsets and fuzz in GNU's words, `.rej` and `.orig` files, creation and
//! deletion of files. There is never a terminal to ask on: each question is
//! printed and answered with its default, as patch does with no tty.

mod apply;
mod parse;

use super::common::GnuError;
use super::{Command, CommandCtx};
use apply::{Cursor, Text};
use parse::FilePatch;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::declared("patch", PatchOpt::HELP, patch)];

declare_options! {
    /// GNU patch's options, in the order of its option table.
    pub(crate) enum PatchOpt {
        usage: "Usage: patch [OPTION]... [ORIGFILE [PATCHFILE]]",
        about: "Apply a diff file to an original: the unified and context diffs of
diff -u/-c and git, read from PATCHFILE or standard input.
",
        after: "There is no terminal here: questions take their default answer.",
        rows: [
            Backup: 'b' "backup" none => "back up the original contents of each file",
            Prefix: 'B' "prefix" required "PREFIX" => "prepend PREFIX to backup file names",
            Context: 'c' "context" none => "interpret the patch as a context diff (read as found)",
            Directory: 'd' "directory" required "DIR" => "change the working directory to DIR first",
            Ifdef: 'D' "ifdef" required "NAME" => "not available here",
            Ed: 'e' "ed" none => "not available here",
            RemoveEmptyFiles: 'E' "remove-empty-files" none => "remove output files that are empty after patching",
            Force: 'f' "force" none => "like -t, but ignore bad-looking patches and assume no -R",
            Fuzz: 'F' "fuzz" required "LINES" => "set the fuzz factor to LINES (default 2)",
            Get: 'g' "get" required "NUM" => "accepted (there is no RCS or SCCS here)",
            Input: 'i' "input" required "PATCHFILE" => "read the patch from PATCHFILE instead of stdin",
            IgnoreWhitespace: 'l' "ignore-whitespace" none => "not available here",
            Merge: - "merge" optional "MERGE" => "not available here",
            Normal: 'n' "normal" none => "interpret the patch as a normal diff (not available)",
            Forward: 'N' "forward" none => "ignore patches that seem to be reversed or already applied",
            Output: 'o' "output" required "FILE" => "output patched files to FILE (- is stdout)",
            Strip: 'p' "strip" required "NUM" => "strip NUM leading components from file names",
            RejectFile: 'r' "reject-file" required "FILE" => "output rejects to FILE",
            Reverse: 'R' "reverse" none => "assume patches were created with old and new files swapped",
            Quiet: 's' "quiet" none => "work silently unless an error occurs",
            Silent: - "silent" none => "",
            Batch: 't' "batch" none => "ask no questions; skip bad-Prereq patches; assume reversed",
            SetTime: 'T' "set-time" none => "accepted and ignored",
            Unified: 'u' "unified" none => "interpret the patch as a unified diff (read as found)",
            Version: 'v' "version" none => "output version info",
            VersionControl: 'V' "version-control" required "STYLE" => "backup names: simple, numbered, existing",
            Debug: 'x' "debug" required "NUM" => "accepted and ignored",
            BasenamePrefix: 'Y' "basename-prefix" required "PREFIX" => "prepend PREFIX to backup file base names",
            Suffix: 'z' "suffix" required "SUFFIX" => "append SUFFIX to backup file names (default .orig)",
            SetUtc: 'Z' "set-utc" none => "accepted and ignored",
            DryRun: - "dry-run" none => "do not actually change any files; just print what would happen",
            Verbose: - "verbose" none => "output extra information about the work being done",
            Binary: - "binary" none => "accepted (files are read as they are)",
            BackupIfMismatch: - "backup-if-mismatch" none => "back up if the patch does not match exactly (default)",
            NoBackupIfMismatch: - "no-backup-if-mismatch" none => "back up mismatches only if otherwise requested",
            Posix: - "posix" none => "conform to the POSIX standard",
            QuotingStyle: - "quoting-style" required "WORD" => "accepted and ignored",
            RejectFormat: - "reject-format" required "FORMAT" => "accepted (rejects are unified diffs)",
            ReadOnly: - "read-only" required "BEHAVIOR" => "accepted and ignored",
            FollowSymlinks: - "follow-symlinks" none => "accepted and ignored",
        ],
    }
}

/// Every setting of one run.
struct Settings {
    strip: Option<usize>,
    reverse: bool,
    forward: bool,
    force: bool,
    batch: bool,
    dry_run: bool,
    silent: bool,
    verbose: bool,
    backup: bool,
    backup_if_mismatch: bool,
    remove_empty: bool,
    fuzz: usize,
    input: Option<String>,
    output: Option<String>,
    reject_file: Option<String>,
    suffix: String,
    prefix: Option<String>,
    numbered: bool,
    dir: Option<String>,
    version: bool,
}

/// GNU's fatal error: `patch: **** MESSAGE`, status 2.
fn fatal(ctx: &mut CommandCtx<'_>, message: &str) -> i32 {
    let _ = ctx.stdout.flush();
    let _ = writeln!(ctx.stderr, "patch: **** {message}");
    2
}

/// The settings the options make, in order; `Err` is the status after
/// GNU's message for a bad number or an option not available here.
fn settings(
    ctx: &mut CommandCtx<'_>,
    opts: &[(PatchOpt, Option<String>)],
) -> Result<Settings, i32> {
    let mut s = Settings {
        strip: None,
        reverse: false,
        forward: false,
        force: false,
        batch: false,
        dry_run: false,
        silent: false,
        verbose: false,
        backup: false,
        backup_if_mismatch: true,
        remove_empty: false,
        fuzz: 2,
        input: None,
        output: None,
        reject_file: None,
        suffix: ".orig".into(),
        prefix: None,
        numbered: false,
        dir: None,
        version: false,
    };
    for (opt, value) in opts {
        let v = value.clone().unwrap_or_default();
        use PatchOpt as O;
        match opt {
            O::Backup => s.backup = true,
            O::Prefix | O::BasenamePrefix => {
                s.prefix = Some(v);
                s.backup = true;
            }
            O::Directory => s.dir = Some(v),
            O::RemoveEmptyFiles => s.remove_empty = true,
            O::Force => s.force = true,
            O::Fuzz => match v.parse() {
                Ok(n) => s.fuzz = n,
                Err(_) => return Err(fatal(ctx, &format!("fuzz factor {v} is not a number"))),
            },
            O::Input => s.input = Some(v),
            O::Forward => s.forward = true,
            O::Output => s.output = Some(v),
            O::Strip => match v.parse() {
                Ok(n) => s.strip = Some(n),
                Err(_) => return Err(fatal(ctx, &format!("strip count {v} is not a number"))),
            },
            O::RejectFile => s.reject_file = Some(v),
            O::Reverse => s.reverse = true,
            O::Quiet | O::Silent => s.silent = true,
            O::Batch => s.batch = true,
            O::Version => s.version = true,
            O::VersionControl => s.numbered = matches!(v.as_str(), "numbered" | "t"),
            O::Suffix => {
                s.suffix = v;
                s.backup = true;
            }
            O::DryRun => s.dry_run = true,
            O::Verbose => s.verbose = true,
            O::BackupIfMismatch => s.backup_if_mismatch = true,
            O::NoBackupIfMismatch => s.backup_if_mismatch = false,
            O::Posix => s.backup_if_mismatch = false,
            O::Ifdef | O::Ed | O::IgnoreWhitespace | O::Merge | O::Normal => {
                return Err(fatal(
                    ctx,
                    "this option is not available in the sandbox's patch",
                ));
            }
            // Formats are read as found; the rest tunes what is not here.
            O::Context
            | O::Unified
            | O::Get
            | O::SetTime
            | O::Debug
            | O::SetUtc
            | O::Binary
            | O::QuotingStyle
            | O::RejectFormat
            | O::ReadOnly
            | O::FollowSymlinks => {}
        }
    }
    Ok(s)
}

/// `patch [OPTION]... [ORIGFILE [PATCHFILE]]`
pub fn patch(ctx: &mut CommandCtx<'_>) -> i32 {
    let parsed = match PatchOpt::TABLE.parse(ctx.args) {
        Ok(p) => p,
        Err(e) => {
            ctx.gnu_error(&e);
            let _ = writeln!(
                ctx.stderr,
                "patch: Try 'patch --help' for more information."
            );
            return 2;
        }
    };
    let s = match settings(ctx, &parsed.opts) {
        Ok(s) => s,
        Err(status) => return status,
    };
    if s.version {
        let _ = ctx.stdout.write_all(
            b"GNU patch 2.7.6\nCopyright (C) 2003, 2009-2012 Free Software Foundation, Inc.\n",
        );
        return 0;
    }
    let mut s = s;
    if parsed.operands.len() > 2 {
        let extra = parsed.operands[2].clone();
        ctx.gnu_error(format_args!("{extra}: extra operand"));
        let _ = writeln!(
            ctx.stderr,
            "patch: Try 'patch --help' for more information."
        );
        return 2;
    }
    let origfile = parsed.operands.first().cloned();
    if let Some(p) = parsed.operands.get(1) {
        s.input = Some(p.clone());
    }
    let base = match &s.dir {
        Some(d) => {
            let dir = ctx.path(d);
            if !ctx
                .fs
                .metadata(&dir)
                .is_ok_and(|m| m.kind == crate::fs::FileKind::Dir)
            {
                return fatal(
                    ctx,
                    &format!("Can't change to directory {d} : No such file or directory"),
                );
            }
            dir
        }
        None => ctx.cwd.to_string(),
    };
    let input = match &s.input {
        Some(name) if name != "-" => match ctx.fs.read(&crate::fs::Fs::resolve(&base, name)) {
            Ok(d) => d,
            Err(e) => return fatal(ctx, &format!("Can't open patch file {name} : {e}")),
        },
        _ => {
            let mut d = Vec::new();
            let _ = ctx.stdin.read_to_end(&mut d);
            d
        }
    };
    let patches = parse::parse(&input);
    if patches.is_empty() {
        if input.iter().all(u8::is_ascii_whitespace) {
            return 0;
        }
        return fatal(ctx, "Only garbage was found in the patch input.");
    }
    let mut run = Run {
        s: &s,
        base,
        status: 0,
    };
    for fp in &patches {
        if ctx.control.check().is_err() {
            return 2;
        }
        run.file(ctx, fp, origfile.as_deref());
    }
    let _ = ctx.stdout.flush();
    run.status
}

/// One run over the file patches.
struct Run<'s> {
    s: &'s Settings,
    /// The directory names are resolved against (`-d`).
    base: String,
    status: i32,
}

/// What the hunks of one file came to.
struct Applied {
    out: Text,
    /// Indexes of the hunks that failed or were skipped.
    failed: Vec<usize>,
    /// Some hunk did not match exactly (a `.orig` is kept).
    mismatch: bool,
    /// The whole file patch was skipped (a reversed patch not applied).
    skipped: bool,
}

/// What to do about a patch that looks reversed.
enum Verdict {
    Apply,
    Swap,
    Skip,
}

impl Run<'_> {
    fn say(&self, ctx: &mut CommandCtx<'_>, text: &str) {
        let _ = ctx.stdout.write_all(text.as_bytes());
    }

    fn abs(&self, name: &str) -> String {
        crate::fs::Fs::resolve(&self.base, name)
    }

    /// A name with `-p` applied (no `-p`: the last component); `None` when
    /// it has fewer components than `-p` strips.
    fn stripped(&self, name: &str) -> Option<String> {
        if name == "/dev/null" {
            return None;
        }
        match self.s.strip {
            None => Some(name.rsplit('/').next().unwrap_or(name).to_string()),
            Some(0) => Some(name.to_string()),
            Some(n) => {
                let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
                (parts.len() > n).then(|| parts[n..].join("/"))
            }
        }
    }

    fn exists(&self, ctx: &CommandCtx<'_>, name: &str) -> bool {
        ctx.fs.metadata(&self.abs(name)).is_ok()
    }

    /// One file patch.
    fn file(&mut self, ctx: &mut CommandCtx<'_>, fp: &FilePatch, origfile: Option<&str>) {
        let s = self.s;
        let creates = fp.old_absent || fp.old_name.as_deref() == Some("/dev/null");
        let deletes = fp.new_absent || fp.new_name.as_deref() == Some("/dev/null");
        let old = fp.old_name.as_deref().and_then(|n| self.stripped(n));
        let new = fp.new_name.as_deref().and_then(|n| self.stripped(n));
        let name = match origfile {
            Some(f) => Some(f.to_string()),
            None => [old.clone(), new.clone()]
                .into_iter()
                .flatten()
                .find(|n| self.exists(ctx, n))
                .or_else(|| {
                    // A patch that creates the file (read backwards with -R:
                    // one that deletes it) names a file not there yet.
                    let creating = if s.reverse { deletes } else { creates };
                    creating.then(|| new.clone().or_else(|| old.clone()))?
                }),
        };
        let hunks_n = fp.hunks.len();
        let Some(name) = name else {
            self.cannot_find(ctx, fp);
            return;
        };
        let path = self.abs(&name);
        let existing = ctx.fs.read(&path).ok();
        let mut reverse = s.reverse;
        // A creation whose file is there already.
        let creation = if reverse { deletes } else { creates };
        if creation && existing.as_ref().is_some_and(|d| !d.is_empty()) {
            let question =
                format!("The next patch would create the file {name},\nwhich already exists!");
            match self.ask_reversed(ctx, &question, reverse) {
                Verdict::Skip => {
                    self.say(
                        ctx,
                        &format!(
                            "{hunks_n} out of {hunks_n} hunk{} ignored\n",
                            plural(hunks_n)
                        ),
                    );
                    self.status = self.status.max(1);
                    return;
                }
                Verdict::Swap => reverse = !reverse,
                Verdict::Apply => {}
            }
        }
        let shown = match &s.output {
            Some(o) => format!("{o} (read from {name})"),
            None => name.clone(),
        };
        if !s.silent {
            let verb = if s.dry_run { "checking" } else { "patching" };
            self.say(ctx, &format!("{verb} file {shown}\n"));
        }
        let input = Text::from_bytes(existing.as_deref().unwrap_or_default());
        let mut hunks: Vec<parse::Hunk> = fp
            .hunks
            .iter()
            .map(|h| if reverse { h.reversed() } else { h.clone() })
            .collect();
        let done = self.apply_hunks(ctx, &input, &mut hunks, &mut reverse);
        let (out, failed, mismatch, skip_rest) =
            (done.out, done.failed, done.mismatch, done.skipped);
        if !failed.is_empty() {
            self.status = self.status.max(1);
        }
        let all_skipped = skip_rest;
        let result = out.to_bytes();
        let target = match &s.output {
            Some(o) => o.clone(),
            None => name.clone(),
        };
        // GNU opens the output file before it knows the result.
        if s.dry_run
            && let Some(o) = s.output.as_deref().filter(|o| *o != "-")
            && !self.exists(ctx, o)
        {
            let _ = ctx.fs.write(&self.abs(o), b"");
        }
        // Writing: nothing when every hunk was skipped or under --dry-run.
        if !s.dry_run && !all_skipped {
            let backup = s.backup || (s.backup_if_mismatch && mismatch);
            if backup && s.output.is_none() && existing.is_some() {
                let bak = self.backup_name(ctx, &name);
                let _ = ctx
                    .fs
                    .write(&self.abs(&bak), existing.as_deref().unwrap_or_default());
            }
            let deleted = if reverse { creates } else { deletes };
            let remove = result.is_empty() && (deleted || s.remove_empty) && s.output.is_none();
            if target == "-" {
                let _ = ctx.stdout.write_all(&result);
            } else if remove {
                let _ = ctx.fs.remove_file(&self.abs(&target));
            } else {
                let abs = self.abs(&target);
                if let Some((dir, _)) = abs.rsplit_once('/')
                    && !dir.is_empty()
                {
                    let _ = ctx.fs.mkdir_all(dir);
                }
                if let Err(e) = ctx.fs.write(&abs, &result) {
                    ctx.gnu_error(format_args!("**** Can't create file {target} : {e}"));
                    self.status = 2;
                }
            }
        }
        if !failed.is_empty() {
            self.report_rejects(ctx, fp, &hunks, &failed, all_skipped, &target);
        }
    }

    /// The per-file summary of failed or ignored hunks, and the reject
    /// file unless `--dry-run` (or `-r -`).
    fn report_rejects(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        fp: &FilePatch,
        hunks: &[parse::Hunk],
        failed: &[usize],
        all_skipped: bool,
        target: &str,
    ) {
        let s = self.s;
        let hunks_n = hunks.len();
        let n = failed.len();
        let word = if all_skipped { "ignored" } else { "FAILED" };
        let mut line = format!("{n} out of {hunks_n} hunk{} {word}", plural(hunks_n));
        let rej = s
            .reject_file
            .clone()
            .unwrap_or_else(|| format!("{target}.rej"));
        if !s.dry_run && rej != "-" {
            line.push_str(&format!(" -- saving rejects to file {rej}"));
            let mut text: Vec<u8> = Vec::new();
            for h in &fp.header {
                text.extend_from_slice(h.as_bytes());
                text.push(b'\n');
            }
            for &i in failed {
                text.extend(apply::unified(&hunks[i]));
            }
            let _ = ctx.fs.write(&self.abs(&rej), &text);
        }
        line.push('\n');
        self.say(ctx, &line);
    }

    /// Looks for and applies each hunk in turn (GNU's main loop): fuzz up
    /// to `-F`, the reversed-patch question on the first hunk.
    fn apply_hunks(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        input: &Text,
        hunks: &mut Vec<parse::Hunk>,
        reverse: &mut bool,
    ) -> Applied {
        let s = self.s;
        let mut out = Text::default();
        let mut cur = Cursor::default();
        let mut failed: Vec<usize> = Vec::new();
        let mut mismatch = false;
        let mut skip_rest = false;
        let mut k = 0;
        while k < hunks.len() {
            let hunk_no = k + 1;
            if skip_rest {
                failed.push(k);
                k += 1;
                continue;
            }
            let max_fuzz = s
                .fuzz
                .min(hunks[k].prefix_context().max(hunks[k].suffix_context()));
            let mut found = None;
            let mut fuzz = 0;
            while fuzz <= max_fuzz {
                found = apply::locate(&hunks[k], input, &mut cur, fuzz);
                mismatch |= found.is_none();
                if found.is_none() && hunk_no == 1 && !s.force && *reverse == s.reverse {
                    let swapped = hunks[k].reversed();
                    let mut trial = Cursor::default();
                    if apply::locate(&swapped, input, &mut trial, fuzz).is_some() {
                        let what = if *reverse {
                            "Unreversed patch detected!"
                        } else {
                            "Reversed (or previously applied) patch detected!"
                        };
                        match self.ask_reversed(ctx, what, *reverse) {
                            Verdict::Swap => {
                                *reverse = !*reverse;
                                *hunks = hunks.iter().map(|h| h.reversed()).collect();
                                found = apply::locate(&hunks[k], input, &mut cur, fuzz);
                            }
                            Verdict::Skip => {
                                skip_rest = true;
                            }
                            Verdict::Apply => {}
                        }
                    }
                }
                if found.is_some() || skip_rest {
                    break;
                }
                fuzz += 1;
            }
            if found.is_none() || fuzz > 0 || cur.in_offset != 0 {
                mismatch = true;
            }
            let h = &hunks[k];
            match found {
                Some(at) if !skip_rest => {
                    if !s.silent && (fuzz > 0 || cur.in_offset != 0 || s.verbose) {
                        let newwhere = at as isize + h.new_start as isize - h.old_start as isize;
                        let mut line = format!("Hunk #{hunk_no} succeeded at {newwhere}");
                        if fuzz > 0 {
                            line.push_str(&format!(" with fuzz {fuzz}"));
                        }
                        if cur.in_offset != 0 {
                            let n = cur.in_offset;
                            line.push_str(&format!(
                                " (offset {n} line{})",
                                if n.abs() == 1 { "" } else { "s" }
                            ));
                        }
                        line.push_str(".\n");
                        self.say(ctx, &line);
                    }
                    apply::apply(h, at, input, &mut cur, &mut out);
                }
                _ => {
                    if !skip_rest && !s.silent {
                        let at = h.old_start as isize + cur.in_offset;
                        self.say(ctx, &format!("Hunk #{hunk_no} FAILED at {at}.\n"));
                    }
                    failed.push(k);
                }
            }
            k += 1;
        }
        apply::finish(input, &mut cur, &mut out);
        Applied {
            out,
            failed,
            mismatch,
            skipped: skip_rest,
        }
    }

    /// GNU's `ok_to_reverse`: the message, then `-N` skips, `-t` swaps,
    /// and otherwise the two questions are asked and answered `n`.
    fn ask_reversed(&mut self, ctx: &mut CommandCtx<'_>, what: &str, reverse: bool) -> Verdict {
        let s = self.s;
        if s.forward {
            self.say(ctx, &format!("{what}  Skipping patch.\n"));
            return Verdict::Skip;
        }
        if s.batch {
            let how = if reverse {
                "Ignoring -R."
            } else {
                "Assuming -R."
            };
            self.say(ctx, &format!("{what}  {how}\n"));
            return Verdict::Swap;
        }
        if s.force {
            return Verdict::Apply;
        }
        let q = if reverse {
            "Ignore -R? [n] "
        } else {
            "Assume -R? [n] "
        };
        self.say(ctx, &format!("{what}  {q}\nApply anyway? [n] \n"));
        if !s.silent {
            self.say(ctx, "Skipping patch.\n");
        }
        Verdict::Skip
    }

    /// `can't find file to patch`, the text leading up to the hunk, and
    /// the patch's hunks counted as ignored.
    fn cannot_find(&mut self, ctx: &mut CommandCtx<'_>, fp: &FilePatch) {
        let at = fp.hunks.first().map_or(0, |h| h.at_line);
        let hint = if self.s.strip.is_some() {
            "Perhaps you used the wrong -p or --strip option?"
        } else {
            "Perhaps you should have used the -p or --strip option?"
        };
        let mut text = format!(
            "can't find file to patch at input line {at}\n{hint}\nThe text leading up to this was:\n--------------------------\n"
        );
        for l in &fp.leading {
            text.push('|');
            text.push_str(l);
            text.push('\n');
        }
        text.push_str("--------------------------\n");
        if self.s.force || self.s.batch {
            text.push_str("No file to patch.  Skipping patch.\n");
        } else {
            text.push_str("File to patch: \nSkip this patch? [y] \nSkipping patch.\n");
        }
        let n = fp.hunks.len();
        text.push_str(&format!("{n} out of {n} hunk{} ignored\n", plural(n)));
        self.say(ctx, &text);
        self.status = self.status.max(1);
    }

    /// The backup's name: `-B PREFIX`, `-V numbered`, or the suffix.
    fn backup_name(&self, ctx: &CommandCtx<'_>, name: &str) -> String {
        if let Some(p) = &self.s.prefix {
            return format!("{p}{name}");
        }
        if self.s.numbered {
            let mut n = 1;
            while self.exists(ctx, &format!("{name}.~{n}~")) {
                n += 1;
            }
            return format!("{name}.~{n}~");
        }
        format!("{name}{}", self.s.suffix)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
