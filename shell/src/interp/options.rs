//! Shell options: `set -o NAME` / `set -e` and `shopt -s NAME`.
//!
//! OWNER: builtins helper.
//!
//! The options the interpreter acts on are typed fields; every other name
//! bash knows is accepted and remembered (so `set -o posix` or `shopt -s
//! cdspell` work and report back) in an override map over bash's defaults.

use std::collections::BTreeMap;

/// Every option the interpreter honours.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `set -e`
    pub errexit: bool,
    /// `set -u`
    pub nounset: bool,
    /// `set -x`
    pub xtrace: bool,
    /// `set -o pipefail`
    pub pipefail: bool,
    /// `set -f`
    pub noglob: bool,
    /// `set -C`
    pub noclobber: bool,
    /// `set -a`
    pub allexport: bool,
    /// `set -n`
    pub noexec: bool,
    /// `set -v`
    pub verbose: bool,
    /// `shopt -s extglob`
    pub extglob: bool,
    /// `shopt -s dotglob`
    pub dotglob: bool,
    /// `shopt -s nullglob`
    pub nullglob: bool,
    /// `shopt -s failglob`
    pub failglob: bool,
    /// `shopt -s globstar`
    pub globstar: bool,
    /// `shopt -s nocaseglob`
    pub nocaseglob: bool,
    /// `shopt -s nocasematch`
    pub nocasematch: bool,
    /// `shopt -s expand_aliases`
    pub expand_aliases: bool,
    /// `shopt -s lastpipe`
    pub lastpipe: bool,
    /// `shopt -s inherit_errexit`
    pub inherit_errexit: bool,
    /// `shopt -s xpg_echo`
    pub xpg_echo: bool,
    /// Options without a typed field, changed from their default.
    pub other: BTreeMap<String, bool>,
    /// Completion specs stored by `complete`, by command name in the order
    /// they were first defined, each as the `complete ...` line that
    /// recreates it (kept here because specs are per-shell state copied into
    /// subshells, like options).
    pub completions: Vec<(String, String)>,
    /// The history list (`history -s`, `history -r`): entries in order.
    pub history: Vec<String>,
    /// How many entries at the end of `history` this shell added and has not
    /// yet appended to the history file (`history -a`, the end of an
    /// interactive shell).
    pub history_new: usize,
    /// The line being run was added to the history list as its last entry,
    /// so `fc -l` leaves it out (bash's `hist_last_line_added`).
    pub history_line_added: bool,
    /// Key bindings a script added with `bind` (key sequence, readline
    /// function or shell command, is a `bind -x` command); an empty target
    /// removes a default binding.
    pub key_bindings: Vec<(String, String, bool)>,
}

/// `set -o` option names in bash's listing order, with their defaults in a
/// non-interactive `bash -c`.
pub const SET_O_OPTIONS: &[(&str, bool)] = &[
    ("allexport", false),
    ("braceexpand", true),
    ("emacs", false),
    ("errexit", false),
    ("errtrace", false),
    ("functrace", false),
    ("hashall", true),
    ("histexpand", false),
    ("history", false),
    ("ignoreeof", false),
    ("interactive-comments", true),
    ("keyword", false),
    ("monitor", false),
    ("noclobber", false),
    ("noexec", false),
    ("noglob", false),
    ("nolog", false),
    ("notify", false),
    ("nounset", false),
    ("onecmd", false),
    ("physical", false),
    ("pipefail", false),
    ("posix", false),
    ("privileged", false),
    ("verbose", false),
    ("vi", false),
    ("xtrace", false),
];

/// `shopt` option names in bash's listing order, with their defaults.
pub const SHOPT_OPTIONS: &[(&str, bool)] = &[
    ("autocd", false),
    ("assoc_expand_once", false),
    ("cdable_vars", false),
    ("cdspell", false),
    ("checkhash", false),
    ("checkjobs", false),
    ("checkwinsize", true),
    ("cmdhist", true),
    ("compat31", false),
    ("compat32", false),
    ("compat40", false),
    ("compat41", false),
    ("compat42", false),
    ("compat43", false),
    ("compat44", false),
    ("complete_fullquote", true),
    ("direxpand", false),
    ("dirspell", false),
    ("dotglob", false),
    ("execfail", false),
    ("expand_aliases", false),
    ("extdebug", false),
    ("extglob", false),
    ("extquote", true),
    ("failglob", false),
    ("force_fignore", true),
    ("globasciiranges", true),
    ("globskipdots", true),
    ("globstar", false),
    ("gnu_errfmt", false),
    ("histappend", false),
    ("histreedit", false),
    ("histverify", false),
    ("hostcomplete", true),
    ("huponexit", false),
    ("inherit_errexit", false),
    ("interactive_comments", true),
    ("lastpipe", false),
    ("lithist", false),
    ("localvar_inherit", false),
    ("localvar_unset", false),
    ("login_shell", false),
    ("mailwarn", false),
    ("no_empty_cmd_completion", false),
    ("nocaseglob", false),
    ("nocasematch", false),
    ("noexpand_translation", false),
    ("nullglob", false),
    ("patsub_replacement", true),
    ("progcomp", true),
    ("progcomp_alias", false),
    ("promptvars", true),
    ("restricted_shell", false),
    ("shift_verbose", false),
    ("sourcepath", true),
    ("varredir_close", false),
    ("xpg_echo", false),
];

/// The single-letter `set` flags and the `set -o` names they stand for.
pub const SET_FLAGS: &[(char, &str)] = &[
    ('a', "allexport"),
    ('B', "braceexpand"),
    ('C', "noclobber"),
    ('e', "errexit"),
    ('E', "errtrace"),
    ('f', "noglob"),
    ('h', "hashall"),
    ('H', "histexpand"),
    ('k', "keyword"),
    ('m', "monitor"),
    ('n', "noexec"),
    ('p', "privileged"),
    ('P', "physical"),
    ('T', "functrace"),
    ('u', "nounset"),
    ('v', "verbose"),
    ('x', "xtrace"),
];

fn default_of(table: &[(&str, bool)], name: &str) -> Option<bool> {
    table.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
}

impl Options {
    fn field(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "errexit" => &mut self.errexit,
            "nounset" => &mut self.nounset,
            "xtrace" => &mut self.xtrace,
            "pipefail" => &mut self.pipefail,
            "noglob" => &mut self.noglob,
            "noclobber" => &mut self.noclobber,
            "allexport" => &mut self.allexport,
            "noexec" => &mut self.noexec,
            "verbose" => &mut self.verbose,
            "extglob" => &mut self.extglob,
            "dotglob" => &mut self.dotglob,
            "nullglob" => &mut self.nullglob,
            "failglob" => &mut self.failglob,
            "globstar" => &mut self.globstar,
            "nocaseglob" => &mut self.nocaseglob,
            "nocasematch" => &mut self.nocasematch,
            "expand_aliases" => &mut self.expand_aliases,
            "lastpipe" => &mut self.lastpipe,
            "inherit_errexit" => &mut self.inherit_errexit,
            "xpg_echo" => &mut self.xpg_echo,
            _ => return None,
        })
    }

    fn read(&self, table: &[(&str, bool)], name: &str) -> Option<bool> {
        let default = default_of(table, name)?;
        // Typed fields are the truth for the options the interpreter uses.
        let typed = match name {
            "errexit" => self.errexit,
            "nounset" => self.nounset,
            "xtrace" => self.xtrace,
            "pipefail" => self.pipefail,
            "noglob" => self.noglob,
            "noclobber" => self.noclobber,
            "allexport" => self.allexport,
            "noexec" => self.noexec,
            "verbose" => self.verbose,
            "extglob" => self.extglob,
            "dotglob" => self.dotglob,
            "nullglob" => self.nullglob,
            "failglob" => self.failglob,
            "globstar" => self.globstar,
            "nocaseglob" => self.nocaseglob,
            "nocasematch" => self.nocasematch,
            "expand_aliases" => self.expand_aliases,
            "lastpipe" => self.lastpipe,
            "inherit_errexit" => self.inherit_errexit,
            "xpg_echo" => self.xpg_echo,
            _ => return Some(self.other.get(name).copied().unwrap_or(default)),
        };
        Some(typed)
    }

    fn write(&mut self, table: &[(&str, bool)], name: &str, on: bool) -> bool {
        if default_of(table, name).is_none() {
            return false;
        }
        match self.field(name) {
            Some(f) => *f = on,
            None => {
                self.other.insert(name.to_string(), on);
            }
        }
        true
    }

    /// The state of a `set -o` option; `None` for an unknown name.
    pub fn get_set_option(&self, name: &str) -> Option<bool> {
        self.read(SET_O_OPTIONS, name)
    }

    /// Sets a `set -o` option; false for an unknown name.
    pub fn set_set_option(&mut self, name: &str, on: bool) -> bool {
        // One line-editing mode at a time: turning one on turns the other off.
        let other_mode = match name {
            "emacs" => Some("vi"),
            "vi" => Some("emacs"),
            _ => None,
        };
        if on && let Some(other) = other_mode {
            self.write(SET_O_OPTIONS, other, false);
        }
        self.write(SET_O_OPTIONS, name, on)
    }

    /// The state of a `shopt` option; `None` for an unknown name.
    pub fn get_shopt(&self, name: &str) -> Option<bool> {
        self.read(SHOPT_OPTIONS, name)
    }

    /// Sets a `shopt` option; false for an unknown name.
    pub fn set_shopt(&mut self, name: &str, on: bool) -> bool {
        self.write(SHOPT_OPTIONS, name, on)
    }

    /// The `set -o` name a single-letter flag stands for.
    pub fn flag_name(flag: char) -> Option<&'static str> {
        SET_FLAGS.iter().find(|(c, _)| *c == flag).map(|(_, n)| *n)
    }

    /// The value of `$-` (without the `c` of `bash -c`, which the caller adds).
    #[cfg(test)]
    pub fn dollar_dash(&self) -> String {
        let mut s = String::new();
        for (c, name) in SET_FLAGS {
            if self.get_set_option(name) == Some(true) {
                s.push(*c);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_and_other_options_round_trip() {
        let mut o = Options::default();
        assert_eq!(o.get_set_option("braceexpand"), Some(true));
        assert!(o.set_set_option("errexit", true));
        assert!(o.errexit);
        assert!(o.set_shopt("cdspell", true));
        assert_eq!(o.get_shopt("cdspell"), Some(true));
        assert_eq!(o.get_shopt("nope"), None);
        assert!(!o.set_set_option("nope", true));
        assert_eq!(o.dollar_dash(), "Beh");
    }
}
