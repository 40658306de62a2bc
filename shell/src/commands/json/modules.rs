//! jq's modules over the sandbox's filesystem: where `import "a" as m;`,
//! `include "a";` and `import "data" as $d;` find their files (jq 1.6's
//! rules: the import's `{search: ...}` directories relative to the
//! importing module, then the `-L` paths, by default `~/.jq`,
//! `$ORIGIN/../lib/jq` and `$ORIGIN/../lib`; in each, `NAME.jq` or
//! `NAME/BASENAME.jq`), read through [`Fs`], never the host; and what
//! `modulemeta` tells of a module (its header's metadata and imports).

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Term};
use jaq_core::load::{File, Import};
use jaq_json::Val;

use super::alternatives::Kind;
use crate::fs::Fs;

/// Where modules are looked for.
pub(super) struct ModulePaths<'a> {
    pub fs: &'a Fs,
    /// The working directory (relative `-L` paths start there).
    pub cwd: &'a str,
    /// `$HOME`, for `~` in a search path.
    pub home: Option<&'a str>,
    /// The `-L` paths, or jq's defaults when none were given.
    pub library: Vec<String>,
}

/// jq's search path when no `-L` is given.
pub(super) fn default_library() -> Vec<String> {
    ["~/.jq", "$ORIGIN/../lib/jq", "$ORIGIN/../lib"]
        .map(String::from)
        .to_vec()
}

/// The text of a string literal term without interpolation.
fn literal(t: &Term<&str>) -> Option<String> {
    let Term::Str(None, parts) = t else {
        return None;
    };
    let mut s = String::new();
    for p in parts {
        match p {
            StrPart::Str(x) => s.push_str(x),
            StrPart::Char(c) => s.push(*c),
            StrPart::Term(_) => return None,
        }
    }
    Some(s)
}

/// The `search` entry of an import's metadata: one string or an array.
fn meta_search(meta: &Option<Term<&str>>) -> Vec<String> {
    let Some(Term::Obj(entries)) = meta else {
        return Vec::new();
    };
    let Some(value) = entries.iter().find_map(|(k, v)| {
        let key = literal(k).or_else(|| match k {
            Term::Call(name, args) if args.is_empty() => Some(name.to_string()),
            _ => None,
        });
        (key.as_deref() == Some("search"))
            .then_some(v.as_ref())
            .flatten()
    }) else {
        return Vec::new();
    };
    fn flatten(t: &Term<&str>, out: &mut Vec<String>) {
        match t {
            Term::BinOp(l, BinaryOp::Comma, r) => {
                flatten(l, out);
                flatten(r, out);
            }
            t => out.extend(literal(t)),
        }
    }
    let mut out = Vec::new();
    match value {
        Term::Arr(Some(items)) => flatten(items, &mut out),
        t => out.extend(literal(t)),
    }
    out
}

impl ModulePaths<'_> {
    /// `dir` with `~` and `$ORIGIN` expanded, made absolute from `base`.
    fn expand(&self, dir: &str, base: &str) -> Option<String> {
        let dir = if let Some(rest) = dir.strip_prefix('~') {
            format!("{}{rest}", self.home?)
        } else if let Some(rest) = dir.strip_prefix("$ORIGIN") {
            format!("/usr/bin{rest}")
        } else {
            dir.to_string()
        };
        Some(Fs::resolve(base, &dir))
    }

    /// The file `import` names, with extension `ext` (`jq` or `json`).
    pub fn find(&self, import: &Import<&str, String>, ext: &str) -> Result<String, String> {
        let rel: &str = import.path;
        if rel.starts_with('/') {
            return Err(format!("Module path must be relative: {rel}"));
        }
        let parent_dir = match import.parent.rfind('/') {
            Some(0) => "/".to_string(),
            Some(i) => import.parent[..i].to_string(),
            None => self.cwd.to_string(),
        };
        let base = rel.rsplit('/').next().unwrap_or(rel);
        let meta = meta_search(import.meta)
            .into_iter()
            .filter_map(|d| self.expand(&d, &parent_dir));
        let library = self.library.iter().filter_map(|d| self.expand(d, self.cwd));
        for dir in meta.chain(library) {
            for candidate in [
                format!("{dir}/{rel}.{ext}"),
                format!("{dir}/{rel}/{base}.{ext}"),
            ] {
                let path = Fs::resolve("/", &candidate);
                if self
                    .fs
                    .metadata(&path)
                    .is_ok_and(|m| m.kind == crate::fs::FileKind::File)
                {
                    return Ok(path);
                }
            }
        }
        Err(format!("module not found: {rel}"))
    }

    /// Reads the module `import` names (for the loader), its `$d::d` data
    /// variables spelled as jaq binds them.
    pub fn read_module(
        &self,
        import: Import<&str, String>,
    ) -> Result<File<String, String>, String> {
        let path = self.find(&import, "jq")?;
        let code = self.fs.read(&path).map_err(|e| e.to_string())?;
        let code = String::from_utf8_lossy(&code);
        Ok(File {
            code: data_var_names(&code).into_owned(),
            path,
        })
    }

    /// The value of a data import: the array of the file's JSON values.
    pub fn read_data(&self, import: Import<&str, String>) -> Result<Val, String> {
        let path = self.find(&import, "json")?;
        let bytes = self.fs.read(&path).map_err(|e| e.to_string())?;
        let vals: Result<Vec<Val>, _> = jaq_json::read::parse_many(&bytes).collect();
        vals.map(Val::from_iter).map_err(|e| format!("{path}: {e}"))
    }
}

impl ModulePaths<'_> {
    /// `modulemeta`: the metadata of the module `name` (found as `import`
    /// would find it) with its `deps`, each import's metadata followed by
    /// its `as`, `is_data` and `relpath`, as jq 1.6 gives it.
    pub fn module_meta(&self, name: &str) -> Result<Val, String> {
        let parent = String::new();
        let import = Import {
            parent: &parent,
            path: &name,
            meta: &None,
        };
        let path = self.find(&import, "jq")?;
        let code = self.fs.read(&path).map_err(|e| e.to_string())?;
        let code = String::from_utf8_lossy(&code);
        let (meta, deps) = header(&code);
        let mut entries = match meta {
            Some(Val::Obj(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            _ => Vec::new(),
        };
        entries.push((Val::from("deps".to_string()), Val::from_iter(deps)));
        Ok(object(entries))
    }
}

/// An object of the `entries`, in their order.
fn object(entries: Vec<(Val, Val)>) -> Val {
    <Val as jaq_core::ValT>::from_map(entries).unwrap_or_default()
}

/// The metadata and the dependencies (`deps` entries) a module's header
/// declares: `module META;`, then `import "path" as name META;` and
/// `include "path" META;` directives.
fn header(code: &str) -> (Option<Val>, Vec<Val>) {
    let toks = super::alternatives::tokens(code);
    let text = |n: usize| toks.get(n).map_or("", |&(s, e, _)| &code[s..e]);
    let mut n = 0;
    let mut meta = None;
    if text(0) == "module" {
        let end = directive_end(&toks, code, 1);
        meta = constant_text(code, &toks[1..end]);
        n = end + 1;
    }
    let mut deps = Vec::new();
    while matches!(text(n), "import" | "include") {
        let import = text(n) == "import";
        let relpath = constant_text(code, &toks[n + 1..(n + 2).min(toks.len())]);
        let mut next = n + 2;
        let name = if import && text(next) == "as" {
            next += 2;
            Some(text(next - 1))
        } else {
            None
        };
        let end = directive_end(&toks, code, next);
        let mut entry: Vec<(Val, Val)> = match constant_text(code, &toks[next..end]) {
            Some(Val::Obj(m)) => m.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            _ => Vec::new(),
        };
        if let Some(name) = name {
            let key = |k: &str| Val::from(k.to_string());
            entry.push((key("as"), key(name.trim_start_matches('$'))));
            entry.push((key("is_data"), Val::from(name.starts_with('$'))));
        }
        entry.push((
            Val::from("relpath".to_string()),
            relpath.unwrap_or_default(),
        ));
        deps.push(object(entry));
        n = end + 1;
    }
    (meta, deps)
}

/// The index of the `;` that ends the directive whose tokens start at
/// `from` (the first `;` outside brackets), or the number of tokens.
fn directive_end(toks: &[(usize, usize, Kind)], code: &str, from: usize) -> usize {
    let mut depth = 0usize;
    for (i, &(s, e, kind)) in toks.iter().enumerate().skip(from) {
        match kind {
            Kind::Open => depth += 1,
            Kind::Close => depth = depth.saturating_sub(1),
            Kind::Semi if depth == 0 && &code[s..e] == ";" => return i,
            _ => {}
        }
    }
    toks.len()
}

/// The constant value of the term spelled by `toks` (metadata is constant).
fn constant_text(code: &str, toks: &[(usize, usize, Kind)]) -> Option<Val> {
    let (first, last) = (toks.first()?, toks.last()?);
    let text = &code[first.0..last.1];
    constant(&jaq_core::load::parse(text, |p| p.term())?)
}

/// The value of a constant term: literals, arrays and objects of them.
fn constant(t: &Term<&str>) -> Option<Val> {
    Some(match t {
        Term::Num(n) => jaq_json::read::parse_single(n.as_bytes()).ok()?,
        Term::Str(..) => Val::from(literal(t)?),
        Term::Call(name, args) if args.is_empty() => match *name {
            "null" => Val::Null,
            "true" => Val::from(true),
            "false" => Val::from(false),
            _ => return None,
        },
        Term::Arr(None) => Val::from_iter(std::iter::empty()),
        Term::Arr(Some(items)) => {
            let mut out = Vec::new();
            comma_items(items, &mut out)?;
            Val::from_iter(out)
        }
        Term::Obj(entries) => {
            let mut out = Vec::new();
            for (k, v) in entries {
                let key = literal(k).or_else(|| match k {
                    Term::Call(name, args) if args.is_empty() => Some(name.to_string()),
                    _ => None,
                })?;
                out.push((Val::from(key), constant(v.as_ref()?)?));
            }
            object(out)
        }
        _ => return None,
    })
}

/// The constant values of the comma-separated terms of `t`.
fn comma_items(t: &Term<&str>, out: &mut Vec<Val>) -> Option<()> {
    match t {
        Term::BinOp(l, BinaryOp::Comma, r) => {
            comma_items(l, out)?;
            comma_items(r, out)
        }
        t => {
            out.push(constant(t)?);
            Some(())
        }
    }
}

/// `code` with jq 1.6's name of a data import's variable, `$d::d` (for
/// `import "f" as $d`), written `$d`, the name jaq binds.
pub(super) fn data_var_names(code: &str) -> std::borrow::Cow<'_, str> {
    if !code.contains("::") {
        return code.into();
    }
    let mut out = String::with_capacity(code.len());
    let b = code.as_bytes();
    let ident = |i: usize| {
        let mut j = i;
        while j < b.len() && (b[j] == b'_' || b[j].is_ascii_alphanumeric()) {
            j += 1;
        }
        j
    };
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' {
            let end = ident(i + 1);
            let name = &code[i + 1..end];
            if !name.is_empty() && code[end..].starts_with("::") {
                let end2 = ident(end + 2);
                if &code[end + 2..end2] == name {
                    out.push('$');
                    out.push_str(name);
                    i = end2;
                    continue;
                }
            }
        }
        let len = code[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&code[i..i + len]);
        i += len;
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::data_var_names;

    #[test]
    fn data_variables_lose_their_module_prefix() {
        assert_eq!(data_var_names("$d::d[0] | $e::f"), "$d[0] | $e::f");
        assert_eq!(data_var_names("\"é\" | $x"), "\"é\" | $x");
    }
}
