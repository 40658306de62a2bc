//! One declaration per command: a table of its options (short letter, long
//! name, argument kind, the help line) from which come the parser (glibc's
//! `getopt_long`, [`super::getopt`]), a typed result (an enum of the
//! command's options, so command code matches on variants, never on string
//! ids) and the `--help` text the registry prints.
//!
//! ```ignore
//! declare_options! {
//!     /// ls's options.
//!     pub(crate) enum LsOpt {
//!         usage: "Usage: ls [OPTION]... [FILE]...",
//!         about: "List the FILEs ...",
//!         after: "",
//!         rows: [
//!             All: 'a' "all" none => "include entries whose names start with .",
//!             Width: 'w' "width" required "COLS" => "assume a line COLS wide",
//!             Color: - "color" optional "WHEN" => "accepted; the output is\nnever colored",
//!         ],
//!     }
//! }
//! ```
//!
//! The enum gets `TABLE` (an [`OptionTable`]), `help()` (the text, built
//! once) and `HELP` (what a registry row holds). A description's lines after
//! the first are continuation lines; an empty description leaves the row out
//! of the help (an alias that GNU does not list). `about` is printed as
//! written: end it with an empty line for one before the options.

use std::fmt::Write as _;

pub use super::getopt::{Arg, OptSpec, OptionId, ParseMode, Parsed};
use crate::commands::CommandCtx;

/// A command's declared options and the words around them in `--help`.
#[derive(Debug)]
pub struct OptionTable<T: 'static> {
    /// The synopsis line(s), `Usage: NAME [OPTION]... [FILE]...`.
    pub usage: &'static str,
    /// What follows the synopsis, before the options (may be empty).
    pub about: &'static str,
    /// The options, in the order of GNU's table (abbreviations are
    /// ambiguous in that order) and of the help.
    pub rows: &'static [OptSpec<T>],
    /// What follows the `--help` line (may be empty).
    pub after: &'static str,
    /// How argv splits into options and operands.
    pub mode: ParseMode,
    /// The column where descriptions start (29 in most of coreutils, 27
    /// in cat's help).
    pub column: usize,
}

/// Where a description starts in the help, as in most of coreutils' texts.
pub const DESCRIPTION_COLUMN: usize = 29;

impl<T: OptionId> OptionTable<T> {
    /// Parses `args[1..]`; the error is getopt's first line without the
    /// command's name.
    pub fn parse(&self, args: &[String]) -> Result<Parsed<T>, String> {
        super::getopt::parse(args, self.rows, self.mode)
    }

    /// Parses the command's argv, printing GNU's usage error on failure.
    pub fn parse_or_usage(&self, ctx: &mut CommandCtx<'_>) -> Option<Parsed<T>> {
        match self.parse(ctx.args) {
            Ok(p) => Some(p),
            Err(e) => {
                super::usage::usage_error(ctx, &e);
                None
            }
        }
    }

    /// The `--help` text: synopsis, about, one line per listed option, the
    /// `--help` line, and what comes after.
    pub fn help_text(&self) -> String {
        let mut out = String::new();
        push_paragraph(&mut out, self.usage);
        if !self.about.is_empty() {
            out.push_str(self.about);
            out.push('\n');
        }
        for row in self.rows.iter().filter(|r| !r.help.is_empty()) {
            push_row(&mut out, &option_words(row), row.help, self.column);
        }
        push_row(
            &mut out,
            "      --help",
            "display this help and exit",
            self.column,
        );
        if !self.after.is_empty() {
            out.push('\n');
            push_paragraph(&mut out, self.after);
        }
        out
    }

    /// How each option is written on a command line (`-a`, `--all`), one
    /// entry per row: what a test checks the help lists.
    pub fn spellings(&self) -> Vec<Vec<String>> {
        self.rows
            .iter()
            .map(|r| {
                r.short
                    .map(|c| format!("-{c}"))
                    .into_iter()
                    .chain(r.long.map(|l| format!("--{l}")))
                    .collect()
            })
            .collect()
    }
}

/// What the registry keeps of a declared table, whatever its id type: the
/// help text (built on first use) and, for tests, the spellings of its
/// options and of those it lists in the help.
#[derive(Clone, Copy, Debug)]
pub struct TableHelp {
    /// The text `--help` prints.
    pub text: fn() -> &'static str,
    /// Per row: its spellings, and whether the help lists it.
    pub rows: fn() -> Vec<(Vec<String>, bool)>,
    /// Per row: the name of its enum variant (what command code matches on).
    pub ids: fn() -> Vec<String>,
}

fn push_paragraph(out: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

/// `  -w, --width=COLS`, `      --color[=WHEN]`, `  -k KEYDEF`, `  -1`.
fn option_words(row: &OptSpec<impl Copy>) -> String {
    let value = if row.value.is_empty() {
        "ARG"
    } else {
        row.value
    };
    let mut s = String::from("  ");
    match (row.short, row.long) {
        (Some(c), Some(l)) => {
            let _ = write!(s, "-{c}, --{l}");
        }
        (Some(c), None) => {
            let _ = write!(s, "-{c}");
        }
        (None, Some(l)) => {
            let _ = write!(s, "    --{l}");
        }
        (None, None) => {}
    }
    match (row.arg, row.long.is_some()) {
        (Arg::None, _) => {}
        (Arg::Required, true) => {
            let _ = write!(s, "={value}");
        }
        (Arg::Required, false) => {
            let _ = write!(s, " {value}");
        }
        (Arg::Optional, true) => {
            let _ = write!(s, "[={value}]");
        }
        (Arg::Optional, false) => {
            let _ = write!(s, "[{value}]");
        }
    }
    s
}

/// One option's lines: the words, the description from `column` (on a
/// line of its own when the words reach it), continuation lines two
/// columns further in.
fn push_row(out: &mut String, words: &str, description: &str, column: usize) {
    out.push_str(words);
    if words.len() < column - 1 {
        out.push_str(&" ".repeat(column - words.len()));
    } else if words.len() == column - 1 {
        out.push_str("  ");
    } else {
        out.push('\n');
        out.push_str(&" ".repeat(column));
    }
    let mut lines = description.lines();
    out.push_str(lines.next().unwrap_or_default());
    out.push('\n');
    for line in lines {
        out.push_str(&" ".repeat(column + 2));
        out.push_str(line.trim_start());
        out.push('\n');
    }
}

/// The short letter of a row: a char literal, or `-` for none.
#[doc(hidden)]
#[macro_export]
macro_rules! __opt_short {
    (-) => {
        None
    };
    ($c:literal) => {
        Some($c)
    };
}

/// The long name of a row: a string literal, or `-` for none.
#[doc(hidden)]
#[macro_export]
macro_rules! __opt_long {
    (-) => {
        None
    };
    ($l:literal) => {
        Some($l)
    };
}

/// The argument kind of a row: `none`, `required`, `optional`.
#[doc(hidden)]
#[macro_export]
macro_rules! __opt_arg {
    (none) => {
        $crate::commands::common::getopt::Arg::None
    };
    (required) => {
        $crate::commands::common::getopt::Arg::Required
    };
    (optional) => {
        $crate::commands::common::getopt::Arg::Optional
    };
}

/// Declares a command's options once: an enum with one variant per row,
/// its [`OptionTable`] (`TABLE`), its help text (`help()`) and the
/// registry's handle on it (`HELP`). See the module's documentation.
#[macro_export]
macro_rules! declare_options {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            usage: $usage:expr,
            about: $about:expr,
            after: $after:expr,
            $(mode: $mode:expr,)?
            $(column: $column:expr,)?
            rows: [
                $(
                    $(#[$vmeta:meta])*
                    $variant:ident : $short:tt $long:tt $kind:ident $($value:literal)? => $help:expr
                ),* $(,)?
            ] $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $crate::commands::common::getopt::OptionId for $name {
            const DIGITS: Option<Self> = None;
            fn is_unimplemented(self) -> bool {
                false
            }
        }

        #[allow(dead_code)]
        impl $name {
            /// The declared table: parser, help and typed ids in one.
            pub const TABLE: $crate::commands::common::table::OptionTable<$name> =
                $crate::commands::common::table::OptionTable {
                    usage: $usage,
                    about: $about,
                    after: $after,
                    mode: $crate::declare_options!(@mode $($mode)?),
                    column: $crate::declare_options!(@column $($column)?),
                    rows: &[
                        $(
                            $crate::commands::common::getopt::OptSpec {
                                id: $name::$variant,
                                short: $crate::__opt_short!($short),
                                long: $crate::__opt_long!($long),
                                arg: $crate::__opt_arg!($kind),
                                value: $crate::declare_options!(@value $($value)?),
                                help: $help,
                            },
                        )*
                    ],
                };

            /// The `--help` text, rendered from [`Self::TABLE`] once.
            pub fn help() -> &'static str {
                static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
                TEXT.get_or_init(|| Self::TABLE.help_text())
            }

            fn help_rows() -> Vec<(Vec<String>, bool)> {
                Self::TABLE
                    .spellings()
                    .into_iter()
                    .zip(Self::TABLE.rows)
                    .map(|(s, r)| (s, !r.help.is_empty()))
                    .collect()
            }

            fn row_ids() -> Vec<String> {
                Self::TABLE.rows.iter().map(|r| format!("{:?}", r.id)).collect()
            }

            /// What a registry row holds to answer `--help`.
            pub const HELP: $crate::commands::common::table::TableHelp =
                $crate::commands::common::table::TableHelp {
                    text: Self::help,
                    rows: Self::help_rows,
                    ids: Self::row_ids,
                };
        }
    };
    (@mode) => {
        $crate::commands::common::getopt::ParseMode {
            stop_at_operand: false,
            digit_option: false,
            negative_numbers: false,
            no_long: false,
            exact_long: false,
        }
    };
    (@mode $mode:expr) => {
        $mode
    };
    (@column) => {
        $crate::commands::common::table::DESCRIPTION_COLUMN
    };
    (@column $column:expr) => {
        $column
    };
    (@value) => {
        ""
    };
    (@value $v:literal) => {
        $v
    };
}

#[cfg(test)]
mod tests {
    declare_options! {
        /// A small command's options.
        enum Demo {
            usage: "Usage: demo [OPTION]... [FILE]...",
            about: "Does a demo.\n",
            after: "Exit status is 0.",
            rows: [
                One: '1' - none => "one per line",
                All: 'a' "all" none => "everything",
                Width: 'w' "width" required "COLS" => "COLS wide\nor 80",
                Color: - "color" optional "WHEN" => "never colored",
                GroupDirectoriesFirst: - "group-directories-first" none => "dirs first",
                Hidden: - "hidden-alias" none => "",
            ],
        }
    }

    fn argv(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn help_is_laid_out_as_coreutils_does() {
        let want = "\
Usage: demo [OPTION]... [FILE]...
Does a demo.

  -1                         one per line
  -a, --all                  everything
  -w, --width=COLS           COLS wide
                               or 80
      --color[=WHEN]         never colored
      --group-directories-first
                             dirs first
      --help                 display this help and exit

Exit status is 0.
";
        assert_eq!(Demo::help(), want);
    }

    #[test]
    fn parse_gives_typed_ids_with_getopt_rules() {
        let p = Demo::TABLE
            .parse(&argv(&[
                "demo", "f", "-1aw", "9", "--col", "--hid", "--", "-a",
            ]))
            .unwrap();
        let ids: Vec<Demo> = p.opts.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            ids,
            [Demo::One, Demo::All, Demo::Width, Demo::Color, Demo::Hidden]
        );
        assert_eq!(p.last(Demo::Width), Some("9"));
        assert_eq!(p.operands, ["f", "-a"]);
        let err = Demo::TABLE.parse(&argv(&["demo", "--g=1"])).unwrap_err();
        assert_eq!(
            err,
            "option '--group-directories-first' doesn't allow an argument"
        );
        let rows = (Demo::HELP.rows)();
        assert_eq!(rows[2].0, ["-w", "--width"]);
        assert!(!rows[5].1, "an empty description is not listed");
    }

    /// Each command answering `--help` from a declared table, with the
    /// source that declares and handles its options.
    const DECLARED: &[(&str, &[&str])] = &[
        ("base32", &[include_str!("../basenc.rs")]),
        ("basename", &[include_str!("../files/paths.rs")]),
        ("basenc", &[include_str!("../basenc.rs")]),
        ("cat", &[include_str!("../files/cat.rs")]),
        ("cut", &[include_str!("../text/cut.rs")]),
        ("diff3", &[include_str!("../diff3.rs")]),
        ("dirname", &[include_str!("../files/paths.rs")]),
        ("envsubst", &[include_str!("../envsubst.rs")]),
        ("iconv", &[include_str!("../iconv.rs")]),
        ("ls", &[include_str!("../files/ls.rs")]),
        ("make", &[include_str!("../make/mod.rs")]),
        ("mkdir", &[include_str!("../files/dirs.rs")]),
        ("more", &[include_str!("../pager.rs")]),
        ("patch", &[include_str!("../patch/mod.rs")]),
        ("pwd", &[include_str!("../files/paths.rs")]),
        ("readlink", &[include_str!("../files/paths.rs")]),
        ("realpath", &[include_str!("../files/paths.rs")]),
        ("rm", &[include_str!("../files/rm.rs")]),
        ("rmdir", &[include_str!("../files/dirs.rs")]),
        ("tee", &[include_str!("../text/tee.rs")]),
        ("touch", &[include_str!("../files/touch.rs")]),
        ("uniq", &[include_str!("../text/uniq.rs")]),
        ("wc", &[include_str!("../files/wc.rs")]),
        (
            "rg",
            &[
                include_str!("../rg/options.rs"),
                include_str!("../rg/mod.rs"),
            ],
        ),
    ];

    /// The acceptance test of one declaration per command: every
    /// registry command with a declared table prints help rendered from it
    /// that lists each listed option, its code names each option's variant
    /// after the declaration (no option declared and ignored), and the
    /// string-id calls of the older tables are gone from that code.
    #[test]
    fn declared_commands_take_help_parser_and_ids_from_one_table() {
        use crate::commands::registry::Help;
        let mut seen = 0;
        for name in crate::commands::names() {
            let Some(cmd) = crate::commands::lookup(name) else {
                continue;
            };
            let Help::Table(table) = cmd.help else {
                continue;
            };
            seen += 1;
            let (_, sources) = DECLARED
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("{name}: add its source to DECLARED"));
            let text = (table.text)();
            for (spellings, listed) in (table.rows)() {
                if listed {
                    for s in &spellings {
                        assert!(text.contains(s.as_str()), "{name}: help lacks {s}");
                    }
                }
            }
            let code: String = sources
                .iter()
                .map(|src| match src.find("declare_options! {") {
                    // What follows the declaration's closing line.
                    Some(at) => src[at..]
                        .split_once("\n}\n")
                        .map_or("", |(_, rest)| rest)
                        .to_string(),
                    None => src.to_string(),
                })
                .collect();
            for id in (table.ids)() {
                let used = code.match_indices(&format!("::{id}")).any(|(i, m)| {
                    !code[i + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                });
                assert!(used, "{name}: option {id} is declared but never handled");
            }
            for string_id in ["has(\"", "last(\"", "values(\"", "last_of(&[\""] {
                assert!(
                    !code.contains(string_id),
                    "{name}: string-id call {string_id} in command code"
                );
            }
        }
        assert_eq!(seen, DECLARED.len(), "every DECLARED command is declared");
    }
}
