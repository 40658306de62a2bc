//! Lexical path helpers: joining a path onto a working directory and
//! splitting a path into its parent and final name. Nothing here looks at the
//! tree; symlink-aware resolution lives in [`super::tree`].

/// Joins `path` onto `cwd` and normalises `.`, `..` and repeated slashes
/// without looking at the tree. `..` at the root stays at the root.
pub(crate) fn resolve(cwd: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let base = if path.starts_with('/') { "" } else { cwd };
    for comp in base.split('/').chain(path.split('/')) {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            name => parts.push(name),
        }
    }
    if parts.is_empty() {
        return "/".to_string();
    }
    let mut out = String::with_capacity(base.len() + path.len() + 1);
    for p in parts {
        out.push('/');
        out.push_str(p);
    }
    out
}

/// Splits `path` (trailing slashes ignored) into its directory part and its
/// final component. The directory part is `"/"` for top-level names and `"."`
/// for a bare relative name; the final component is empty for `/` itself.
pub(crate) fn split_parent(path: &str) -> (&str, &str) {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return ("/", "");
    }
    match trimmed.rfind('/') {
        Some(0) => ("/", &trimmed[1..]),
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => (".", trimmed),
    }
}

/// True when `path` names a directory syntactically: it ends with `/`
/// (other than being `/`), which makes Linux require a directory there.
pub(crate) fn has_trailing_slash(path: &str) -> bool {
    path.len() > 1 && path.ends_with('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_joins_and_normalises() {
        assert_eq!(resolve("/workspace", "a.txt"), "/workspace/a.txt");
        assert_eq!(resolve("/workspace", "/tmp//x/./y/"), "/tmp/x/y");
        assert_eq!(resolve("/workspace/a", "../b"), "/workspace/b");
        assert_eq!(resolve("/", "../../.."), "/");
        assert_eq!(resolve("/workspace", "/../../etc"), "/etc");
        assert_eq!(resolve("/workspace", ""), "/workspace");
        assert_eq!(resolve("/workspace", "."), "/workspace");
    }

    #[test]
    fn split_parent_cases() {
        assert_eq!(split_parent("/a/b"), ("/a", "b"));
        assert_eq!(split_parent("/a/b//"), ("/a", "b"));
        assert_eq!(split_parent("/a"), ("/", "a"));
        assert_eq!(split_parent("/"), ("/", ""));
        assert_eq!(split_parent("a"), (".", "a"));
        assert!(has_trailing_slash("/a/"));
        assert!(!has_trailing_slash("/"));
    }
}
