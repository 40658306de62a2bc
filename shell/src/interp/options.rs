//! Shell options: `set -o NAME` / `set -e` and `shopt -s NAME`.
//!
//! OWNER: builtins helper.

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
}
