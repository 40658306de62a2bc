//! The text family of commands: searching, editing, sorting and reshaping
//! lines and bytes (`grep`, `sed`, `sort`, `cut`, `tr`, ...), each verified
//! against the GNU tool it stands for (LC_ALL=C behaviour).

pub mod base64;
pub mod cksum;
pub mod cmp;
pub mod column;
pub mod comm;
pub mod common;
pub mod cut;
pub mod dump;
pub mod expand;
pub mod fold;
pub mod grep;
pub mod join;
pub mod nl;
pub mod paste;
pub mod posix_regex;
pub mod rev;
pub mod sed;
pub mod sort;
pub mod strings;
pub mod sum;
pub mod sums;
pub mod tac;
pub mod tee;
pub mod tr;
pub mod tsort;
pub mod uniq;

use super::Command;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::gnu("grep", grep::USAGE, grep::grep),
    Command::gnu("egrep", grep::USAGE, grep::grep),
    Command::gnu("fgrep", grep::USAGE, grep::grep),
    Command::gnu("sed", sed::USAGE, sed::sed),
    Command::gnu("sort", sort::USAGE, sort::sort),
    Command::declared("uniq", uniq::UniqOpt::HELP, uniq::uniq),
    Command::declared("cut", cut::CutOpt::HELP, cut::cut),
    Command::gnu("tr", tr::USAGE, tr::tr),
    Command::declared("tee", tee::TeeOpt::HELP, tee::tee),
    Command::gnu("comm", comm::USAGE, comm::comm),
    Command::gnu("paste", paste::USAGE, paste::paste),
    Command::gnu("nl", nl::USAGE, nl::nl),
    Command::gnu("fold", fold::USAGE, fold::fold),
    Command::gnu("rev", rev::USAGE, rev::rev),
    Command::gnu("tac", tac::USAGE, tac::tac),
    Command::gnu("expand", expand::EXPAND_USAGE, expand::expand),
    Command::gnu("unexpand", expand::UNEXPAND_USAGE, expand::unexpand),
    Command::gnu("base64", base64::USAGE, base64::base64),
    Command::own("md5sum", sums::sum),
    Command::own("sha1sum", sums::sum),
    Command::own("sha224sum", sums::sum),
    Command::own("sha256sum", sums::sum),
    Command::own("sha384sum", sums::sum),
    Command::own("sha512sum", sums::sum),
    Command::own("b2sum", sums::sum),
    Command::gnu("cksum", cksum::USAGE, cksum::cksum),
    Command::gnu("cmp", cmp::USAGE, cmp::cmp),
    Command::gnu("strings", strings::USAGE, strings::strings),
    Command::gnu("od", dump::od::USAGE, dump::od::od),
    Command::own("xxd", dump::xxd::xxd),
    Command::gnu("hexdump", dump::hexdump::USAGE, dump::hexdump::hexdump),
    Command::gnu("hd", dump::hexdump::USAGE, dump::hexdump::hexdump),
    Command::gnu("join", join::USAGE, join::join),
    Command::gnu("column", column::USAGE, column::column),
    Command::gnu("tsort", tsort::USAGE, tsort::tsort),
    Command::gnu("sum", sum::USAGE, sum::sum),
];

#[cfg(test)]
mod tests {
    use super::COMMANDS;
    use super::common::testing::run_fs;
    use crate::clock::Clock;
    use crate::fs::Fs;
    use crate::limits::Limits;

    #[test]
    fn every_command_has_help() {
        let fs = Fs::new(
            Limits::default().fs,
            Clock::fixed(0),
            crate::usr_bin_names(),
        );
        // vim's xxd answers --help as a bad option (stderr, status 1).
        for c in COMMANDS.iter().filter(|c| c.name != "xxd") {
            let (status, out, err) = run_fs(&fs, c.run, &[c.name, "--help"], b"");
            let name = c.name;
            assert_eq!(status, 0, "{name} --help");
            assert!(
                String::from_utf8_lossy(&out).contains("sage"),
                "{name} --help prints a usage"
            );
            assert!(err.is_empty(), "{name} --help is quiet on stderr");
        }
    }

    #[test]
    fn bad_options_fail_with_a_message() {
        let fs = Fs::new(
            Limits::default().fs,
            Clock::fixed(0),
            crate::usr_bin_names(),
        );
        for c in COMMANDS {
            let (status, _, err) = run_fs(&fs, c.run, &[c.name, "--no-such-option-xyz"], b"");
            let name = c.name;
            assert_ne!(status, 0, "{name}");
            assert!(!err.is_empty(), "{name} explains a bad option");
        }
    }
}
