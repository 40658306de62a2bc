//! The text family of commands: searching, editing, sorting and reshaping
//! lines and bytes (`grep`, `sed`, `sort`, `cut`, `tr`, ...), each verified
//! against the GNU tool it stands for (LC_ALL=C behaviour).

pub mod base64;
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

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("grep", grep::grep),
    ("egrep", grep::grep),
    ("fgrep", grep::grep),
    ("sed", sed::sed),
    ("sort", sort::sort),
    ("uniq", uniq::uniq),
    ("cut", cut::cut),
    ("tr", tr::tr),
    ("tee", tee::tee),
    ("comm", comm::comm),
    ("paste", paste::paste),
    ("nl", nl::nl),
    ("fold", fold::fold),
    ("rev", rev::rev),
    ("tac", tac::tac),
    ("expand", expand::expand),
    ("unexpand", expand::unexpand),
    ("base64", base64::base64),
    ("md5sum", sums::sum),
    ("sha1sum", sums::sum),
    ("sha224sum", sums::sum),
    ("sha256sum", sums::sum),
    ("sha384sum", sums::sum),
    ("sha512sum", sums::sum),
    ("cmp", cmp::cmp),
    ("strings", strings::strings),
    ("od", dump::od::od),
    ("xxd", dump::xxd::xxd),
    ("hexdump", dump::hexdump::hexdump),
    ("hd", dump::hexdump::hexdump),
    ("join", join::join),
    ("column", column::column),
    ("tsort", tsort::tsort),
    ("sum", sum::sum),
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
        for (name, f) in COMMANDS {
            let (status, out, err) = run_fs(&fs, *f, &[name, "--help"], b"");
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
        for (name, f) in COMMANDS {
            let (status, _, err) = run_fs(&fs, *f, &[name, "--no-such-option-xyz"], b"");
            assert_ne!(status, 0, "{name}");
            assert!(!err.is_empty(), "{name} explains a bad option");
        }
    }
}
