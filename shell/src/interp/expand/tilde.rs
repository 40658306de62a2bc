//! Tilde expansion: `~`, `~/x`, `~+`, `~-`, `~N`, `~user`. The sandbox's
//! passwd knows two users: `sandbox` (home `/workspace`) and `root`.

use brush_parser::word::TildeExpr;

use crate::interp::Interp;

/// The sandbox user's home directory.
pub const SANDBOX_HOME: &str = "/workspace";

impl Interp {
    /// The expansion of a tilde prefix; `None` keeps it literal.
    pub(crate) fn tilde_value(&mut self, t: &TildeExpr) -> Option<String> {
        match t {
            TildeExpr::Home => Some(
                self.vars
                    .get_str("HOME")
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| SANDBOX_HOME.to_string()),
            ),
            TildeExpr::UserHome(user) => match user.as_str() {
                "sandbox" => Some(SANDBOX_HOME.to_string()),
                "root" => Some("/root".to_string()),
                _ => None,
            },
            TildeExpr::WorkingDir => Some(
                self.vars
                    .get_str("PWD")
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| self.cwd.clone()),
            ),
            TildeExpr::OldWorkingDir => self.vars.get_str("OLDPWD").map(|s| s.to_string()),
            TildeExpr::NthDirFromTopOfDirStack { n, .. } => {
                if *n == 0 {
                    Some(self.cwd.clone())
                } else {
                    self.dir_stack.get(n - 1).cloned()
                }
            }
            TildeExpr::NthDirFromBottomOfDirStack { n } => {
                let mut all = vec![self.cwd.clone()];
                all.extend(self.dir_stack.iter().cloned());
                all.len()
                    .checked_sub(n + 1)
                    .and_then(|i| all.get(i).cloned())
            }
        }
    }
}

/// The text of a tilde prefix as written (for one that stays literal).
pub(crate) fn tilde_text(t: &TildeExpr) -> String {
    match t {
        TildeExpr::Home => "~".to_string(),
        TildeExpr::UserHome(u) => format!("~{u}"),
        TildeExpr::WorkingDir => "~+".to_string(),
        TildeExpr::OldWorkingDir => "~-".to_string(),
        TildeExpr::NthDirFromTopOfDirStack { n, plus_used } => {
            if *plus_used {
                format!("~+{n}")
            } else {
                format!("~{n}")
            }
        }
        TildeExpr::NthDirFromBottomOfDirStack { n } => format!("~-{n}"),
    }
}
