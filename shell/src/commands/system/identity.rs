//! Fixed facts about the sandbox: `whoami`, `hostname`,
//! `uname`, `id`, `nproc`, `arch`, `sync`, `tty`, `clear`, `logname`, `groups`.

use crate::commands::CommandCtx;
use crate::commands::files::common::GnuError;
use crate::commands::files::common::{
    OptSpec, flag, long_flag, parse_or_usage, quote, quote_locale, usage_error, with_arg,
};
use crate::commands::options::{ParseMode, parse};

/// What `whoami --help` prints.
pub(crate) const WHOAMI_USAGE: &str = "\
Usage: whoami [OPTION]...
Print the name of the current user (as id -un does): here always sandbox.

      --help        display this help and exit
";

/// What `logname --help` prints.
pub(crate) const LOGNAME_USAGE: &str = "\
Usage: logname [OPTION]
Print the name the user logged in with: here always sandbox.

      --help        display this help and exit
";

/// What `groups --help` prints.
pub(crate) const GROUPS_USAGE: &str = "\
Usage: groups [OPTION]... [USERNAME]...
Print the groups of the current user, or of each USERNAME. The sandbox has
one user, sandbox, in one group, sandbox.

      --help        display this help and exit
";

/// What `hostname --help` prints.
const HOSTNAME_USAGE: &str = "\
Usage: hostname [-b] {hostname|-F file}         set host name (from file)
       hostname [-a|-A|-d|-f|-i|-I|-s|-y]       display formatted name
       hostname                                 display host name
Print the host name, sandbox, or one form of it. Setting the host name
takes root, which the sandbox user is not.

  -d, --domain            the DNS domain name (empty here)
  -f, --fqdn              the fully qualified host name
  -i, --ip-address        the addresses of the host name
  -I, --all-ip-addresses  all the addresses of the host
  -s, --short             the host name up to its first dot
  -h, --help              display this help and exit
";

/// What `uname --help` prints.
pub(crate) const UNAME_USAGE: &str = "\
Usage: uname [OPTION]...
Print facts about the system; with no OPTION, the kernel name (as -s).

  -a, --all                all of the following, in this order, leaving out
                             -p and -i, which are unknown
  -s, --kernel-name        the kernel name
  -n, --nodename           the host name on the network
  -r, --kernel-release     the kernel release
  -v, --kernel-version     the kernel version
  -m, --machine            the machine hardware name
  -p, --processor          the processor type (unknown)
  -i, --hardware-platform  the hardware platform (unknown)
  -o, --operating-system   the operating system
      --help        display this help and exit
";

/// What `id --help` prints.
pub(crate) const ID_USAGE: &str = "\
Usage: id [OPTION]... [USER]...
Print the user and group IDs and names of USER, or of the current user.
The sandbox has one user, sandbox (ID 1000), in one group of the same name.

  -g, --group    only the group ID
  -G, --groups   only the IDs of all the groups
  -n, --name     a name instead of a number, with -u, -g or -G
  -r, --real     the real ID instead of the effective one (they are the
                   same), with -u, -g or -G
  -u, --user     only the user ID
      --help        display this help and exit
";

/// What `nproc --help` prints.
pub(crate) const NPROC_USAGE: &str = "\
Usage: nproc [OPTION]...
Print how many processors the current process may use: 1 in the sandbox.

      --all       print how many processors there are
      --ignore=N  leave N processors out of the count, which stays 1 or more
      --help        display this help and exit
";

/// What `arch --help` prints.
pub(crate) const ARCH_USAGE: &str = "\
Usage: arch [OPTION]...
Print the machine's hardware architecture, as uname -m does.

      --help        display this help and exit
";

/// What `sync --help` prints.
pub(crate) const SYNC_USAGE: &str = "\
Usage: sync [OPTION] [FILE]...
Write cached data out to storage. Files live in memory here, so there is
nothing to write, but each FILE given must exist.

  -d, --data             only the data of the FILEs
  -f, --file-system      the whole file systems holding the FILEs
      --help        display this help and exit
";

/// What `tty --help` prints.
pub(crate) const TTY_USAGE: &str = "\
Usage: tty [OPTION]...
Print the name of the terminal on standard input, or 'not a tty' (status 1)
when it is not one, which in the sandbox is always the case.

  -s, --silent, --quiet   print nothing; the exit status tells
      --help        display this help and exit
";

/// What `clear` prints after a bad option (ncurses' `clear` has no
/// `--help`: `--help` is the bad option `-`).
const CLEAR_USAGE: &str = "\
Usage: clear [options]

Options:
  -T TERM     the terminal type instead of $TERM
  -V          print the curses version
  -x          do not clear the scrollback
";

/// The sandbox user's name.
pub const USER: &str = "sandbox";
/// The sandbox user's uid and gid.
pub const UID: u32 = 1000;
/// The sandbox's host name.
pub const HOSTNAME: &str = "sandbox";
/// The kernel release `uname -r` reports.
pub const RELEASE: &str = "6.1.0-sandkeep";
/// The kernel version `uname -v` reports.
pub const VERSION: &str = "#1 SMP PREEMPT_DYNAMIC";

/// Prints `text` and a newline; status 0 (or 1 when stdout is closed).
fn say(ctx: &mut CommandCtx<'_>, text: &str) -> i32 {
    if writeln!(ctx.stdout, "{text}").is_err() {
        1
    } else {
        0
    }
}

/// Refuses options and operands, GNU style (`whoami: extra operand ‘x’`).
fn no_operands(ctx: &mut CommandCtx<'_>) -> bool {
    match parse_or_usage(ctx, &[], false) {
        None => false,
        Some(p) => no_extra_operand(ctx, &p.operands),
    }
}

/// False, after GNU's usage error, when there is an operand.
fn no_extra_operand(ctx: &mut CommandCtx<'_>, operands: &[String]) -> bool {
    match operands.first() {
        Some(extra) => {
            usage_error(ctx, &format!("extra operand {}", quote_locale(extra)));
            false
        }
        None => true,
    }
}

/// `whoami`
pub fn whoami(ctx: &mut CommandCtx<'_>) -> i32 {
    if !no_operands(ctx) {
        return 1;
    }
    say(ctx, USER)
}

/// `logname`
pub fn logname(ctx: &mut CommandCtx<'_>) -> i32 {
    whoami(ctx)
}

/// `groups`
pub fn groups(ctx: &mut CommandCtx<'_>) -> i32 {
    if ctx.args.len() > 1 {
        let names: Vec<String> = ctx.args[1..].to_vec();
        let mut status = 0;
        for n in names {
            if n == USER {
                let _ = writeln!(ctx.stdout, "{n} : {USER}");
            } else {
                ctx.gnu_error(format_args!("{}: no such user", quote_locale(&n)));
                status = 1;
            }
        }
        return status;
    }
    say(ctx, USER)
}

/// `hostname` (setting it is refused).
pub fn hostname(ctx: &mut CommandCtx<'_>) -> i32 {
    let spec = [
        flag('s', Some("short"), "s"),
        flag('f', Some("fqdn"), "f"),
        flag('i', Some("ip-address"), "i"),
        flag('I', Some("all-ip-addresses"), "I"),
        flag('d', Some("domain"), "d"),
        flag('h', Some("help"), "help"),
    ];
    // net-tools' hostname: help and bad options print the usage on stdout
    // and exit with its E_USAGE (-1).
    let p = match parse(ctx.args, &spec, ParseMode::default()) {
        Ok(p) if !p.has("help") => p,
        Ok(_) => {
            let _ = ctx.stdout.write_all(HOSTNAME_USAGE.as_bytes());
            return 255;
        }
        Err(e) => {
            ctx.error(e);
            let _ = ctx.stdout.write_all(HOSTNAME_USAGE.as_bytes());
            return 255;
        }
    };
    if !p.operands.is_empty() {
        ctx.gnu_error("you must be root to change the host name");
        return 1;
    }
    if p.has("i") || p.has("I") {
        return say(ctx, "127.0.0.1");
    }
    if p.has("d") {
        return say(ctx, "");
    }
    say(ctx, HOSTNAME)
}

const UNAME_SPEC: &[OptSpec] = &[
    flag('a', Some("all"), "a"),
    flag('s', Some("kernel-name"), "s"),
    flag('n', Some("nodename"), "n"),
    flag('r', Some("kernel-release"), "r"),
    flag('v', Some("kernel-version"), "v"),
    flag('m', Some("machine"), "m"),
    flag('p', Some("processor"), "p"),
    flag('i', Some("hardware-platform"), "i"),
    flag('o', Some("operating-system"), "o"),
];

/// `uname [-asnrvmpio]`
pub fn uname(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, UNAME_SPEC, false) else {
        return 1;
    };
    if !no_extra_operand(ctx, &p.operands) {
        return 1;
    }
    let all = p.has("a");
    let fields = [
        ("s", "Linux"),
        ("n", HOSTNAME),
        ("r", RELEASE),
        ("v", VERSION),
        ("m", "x86_64"),
        ("p", "unknown"),
        ("i", "unknown"),
        ("o", "GNU/Linux"),
    ];
    let any = fields.iter().any(|(k, _)| p.has(*k));
    let mut out = Vec::new();
    for (k, v) in fields {
        let wanted = if all {
            v != "unknown" || p.has(k)
        } else {
            p.has(k) || (!any && k == "s")
        };
        if wanted {
            out.push(v);
        }
    }
    say(ctx, &out.join(" "))
}

const ID_SPEC: &[OptSpec] = &[
    flag('u', Some("user"), "u"),
    flag('g', Some("group"), "g"),
    flag('G', Some("groups"), "G"),
    flag('n', Some("name"), "n"),
    flag('r', Some("real"), "r"),
    flag('z', Some("zero"), "z"),
];

/// `id [-ugGnr] [USER]`
pub fn id(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, ID_SPEC, false) else {
        return 1;
    };
    if let Some(u) = p.operands.first()
        && u != USER
        && u != &UID.to_string()
    {
        ctx.gnu_error(format_args!("{}: no such user", quote_locale(u)));
        return 1;
    }
    let which = p.has("u") as u8 + p.has("g") as u8 + p.has("G") as u8;
    if which > 1 {
        ctx.gnu_error("cannot print \"only\" of more than one choice");
        return 1;
    }
    if which == 0 {
        if p.has("n") || p.has("r") {
            ctx.gnu_error("cannot print only names or real IDs in default format");
            return 1;
        }
        return say(
            ctx,
            &format!("uid={UID}({USER}) gid={UID}({USER}) groups={UID}({USER})"),
        );
    }
    say(ctx, if p.has("n") { USER } else { "1000" })
}

/// `nproc [--all] [--ignore=N]`: the sandbox has one processor.
pub fn nproc(ctx: &mut CommandCtx<'_>) -> i32 {
    const SPEC: &[OptSpec] = &[
        long_flag("all", "all"),
        with_arg(None, Some("ignore"), "ignore"),
    ];
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    if !no_extra_operand(ctx, &p.operands) {
        return 1;
    }
    if let Some(n) = p.last("ignore")
        && n.trim_start().parse::<u64>().is_err()
    {
        ctx.gnu_error(format_args!("invalid number: {}", quote_locale(n)));
        return 1;
    }
    // `--ignore` never takes the count below one.
    say(ctx, "1")
}

/// `arch`
pub fn arch(ctx: &mut CommandCtx<'_>) -> i32 {
    if !no_operands(ctx) {
        return 1;
    }
    say(ctx, "x86_64")
}

/// `sync [-d|-f] [FILE]...`: nothing to flush in memory, but the files
/// must exist, as GNU opens each.
pub fn sync(ctx: &mut CommandCtx<'_>) -> i32 {
    const SPEC: &[OptSpec] = &[
        flag('d', Some("data"), "d"),
        flag('f', Some("file-system"), "f"),
    ];
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    if p.operands.is_empty() && (p.has("d") || p.has("f")) {
        let which = if p.has("d") {
            "--data"
        } else {
            "--file-system"
        };
        ctx.gnu_error(format_args!("{which} needs at least one argument"));
        return 1;
    }
    let mut status = 0;
    for name in &p.operands {
        if let Err(e) = ctx.fs.metadata(&ctx.path(name)) {
            ctx.gnu_error(format_args!("error opening {}: {e}", quote(name)));
            status = 1;
        }
    }
    status
}

/// `tty [-s]`: standard input is never a terminal in the sandbox. Usage
/// errors are status 2, as GNU's.
pub fn tty(ctx: &mut CommandCtx<'_>) -> i32 {
    const SPEC: &[OptSpec] = &[flag('s', Some("silent"), "s"), long_flag("quiet", "s")];
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 2;
    };
    if !no_extra_operand(ctx, &p.operands) {
        return 2;
    }
    if !p.has("s") {
        let _ = writeln!(ctx.stdout, "not a tty");
    }
    1
}

/// `clear`: there is no terminal to clear.
pub fn clear(ctx: &mut CommandCtx<'_>) -> i32 {
    // ncurses parses with getopt, short options only.
    let getopt = ParseMode {
        no_long: true,
        ..ParseMode::default()
    };
    let spec = [
        with_arg(Some('T'), None, "T"),
        flag('V', None, "V"),
        flag('x', None, "x"),
    ];
    match parse(ctx.args, &spec, getopt) {
        // No terminal: clearing it writes nothing.
        Ok(p) if p.has("V") => {
            let _ = writeln!(ctx.stdout, "ncurses 6.4.20221231");
            0
        }
        Ok(_) => 0,
        Err(e) => {
            ctx.error(e);
            let _ = ctx.stderr.write_all(CLEAR_USAGE.as_bytes());
            1
        }
    }
}
