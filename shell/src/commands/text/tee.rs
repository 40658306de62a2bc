//! `tee`: copy stdin to stdout and to files (`-a`), chunk by chunk so it
//! works in the middle of a pipeline.

use super::common;
use crate::commands::CommandCtx;
use crate::fs::Fs;

declare_options! {
    /// tee's options.
    pub(crate) enum TeeOpt {
        usage: "Usage: tee [OPTION]... [FILE]...",
        about: "Copy standard input to each FILE, and also to standard output.
",
        after: "",
        column: 28,
        rows: [
            Append: 'a' "append" none => "append to the given FILEs, do not overwrite",
            IgnoreInterrupts: 'i' "ignore-interrupts" none => "ignore interrupt signals",
            Pipe: 'p' - none => "diagnose errors writing to non pipes",
            OutputError: - "output-error" optional "MODE" => "set behavior on write error (accepted)",
        ],
    }
}

/// `tee`
pub fn tee(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = "tee";
    let Some(parsed) = TeeOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let mut append = false;
    for (opt, _) in &parsed.opts {
        match opt {
            TeeOpt::Append => append = true,
            // No signals reach a sandboxed run, and every write error is
            // reported: these change nothing here.
            TeeOpt::IgnoreInterrupts | TeeOpt::Pipe | TeeOpt::OutputError => {}
        }
    }
    let mut status = 0;
    // Files that could be opened, with their resolved paths.
    let mut files: Vec<(String, String)> = Vec::new();
    for f in &parsed.operands {
        let path = Fs::resolve(ctx.cwd, f);
        let r = if append {
            ctx.fs.append(&path, b"")
        } else {
            ctx.fs.write(&path, b"")
        };
        match r {
            Ok(()) => files.push((f.clone(), path)),
            Err(e) => {
                common::err(ctx.stderr, name, format!("{}: {e}", common::quotef(f)));
                status = 1;
            }
        }
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut stdout_ok = true;
    loop {
        let n = match ctx.stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                common::err(
                    ctx.stderr,
                    name,
                    format!("read error: {}", crate::fs::strerror(&e)),
                );
                return 1;
            }
        };
        if ctx.control.check().is_err() {
            return 1;
        }
        let chunk = &buf[..n];
        if stdout_ok && (ctx.stdout.write_all(chunk).is_err() || ctx.stdout.flush().is_err()) {
            // Like SIGPIPE: stop once nobody reads stdout and no file needs the data.
            stdout_ok = false;
            if files.is_empty() {
                return 1;
            }
        }
        let mut failed = Vec::new();
        for (i, (f, path)) in files.iter().enumerate() {
            if let Err(e) = ctx.fs.append(path, chunk) {
                common::err(ctx.stderr, name, format!("{}: {e}", common::quotef(f)));
                status = 1;
                failed.push(i);
            }
        }
        for i in failed.into_iter().rev() {
            files.remove(i);
        }
    }
    status
}
