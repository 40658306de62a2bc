//! Shell patterns (`*`, `?`, `[...]`, extglob) matched against strings, and
//! pathname expansion over the virtual tree. OWNER: expand helper.

/// How a pattern is matched.
#[derive(Clone, Copy, Debug, Default)]
pub struct MatchOptions {
    /// `shopt -s extglob`
    pub extglob: bool,
    /// Case-insensitive (`nocasematch`, `nocaseglob`).
    pub nocase: bool,
}

/// True when the whole of `text` matches shell pattern `pattern`.
pub fn matches(pattern: &str, text: &str, options: MatchOptions) -> bool {
    let _ = (pattern, text, options);
    todo!()
}
