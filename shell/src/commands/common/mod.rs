//! What every command family shares: argv parsing in glibc's `getopt_long`
//! manner ([`getopt`]), the one-declaration option tables that give a
//! command its parser, its typed options and its `--help` text ([`table`]),
//! GNU's quoting and locale ([`quoting`]) and usage errors ([`usage`]).

pub mod getopt;
pub mod quoting;
#[macro_use]
pub mod table;
pub mod usage;

pub use quoting::{quote, quote_locale, quotef, restore_locale, set_locale};
pub use table::TableHelp;
pub use usage::{GnuError, invalid_choice, parse_or_usage, try_help, usage_error};
