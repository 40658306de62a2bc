//! ES modules from the sandbox's files: `import` specifiers resolved as
//! Node resolves them (relative paths with or without extension,
//! `node:` and bare built-in names, packages in `node_modules`), loaded
//! from the virtual filesystem. CommonJS files and JSON imported from a
//! module come through the prelude's `require` (default export = their
//! `module.exports`, named exports = its keys), built-ins likewise.

use rquickjs::loader::{Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{Ctx, Error, Function, Module, Object, Result as JsResult};
use sandkeep_shell::{FileKind, Fs};

/// Names `import` maps to the prelude's built-in modules.
pub const BUILTINS: &[&str] = &[
    "fs",
    "fs/promises",
    "path",
    "path/posix",
    "os",
    "util",
    "events",
    "assert",
    "assert/strict",
    "readline",
    "readline/promises",
    "crypto",
    "url",
    "buffer",
    "process",
    "timers",
    "timers/promises",
    "string_decoder",
    "stream",
    "module",
    "perf_hooks",
    "v8",
    "vm",
    "tty",
    "constants",
    "zlib",
    "http",
    "https",
    "http2",
    "net",
    "tls",
    "dgram",
    "dns",
    "inspector",
    "child_process",
    "worker_threads",
    "cluster",
];

/// Resolves specifiers against the importing module's directory.
pub struct VfsResolver {
    /// The sandbox's filesystem.
    pub fs: Fs,
    /// The working directory (for the entry's own name).
    pub cwd: String,
}

fn is_file(fs: &Fs, p: &str) -> bool {
    fs.metadata(p).is_ok_and(|m| m.kind == FileKind::File)
}

fn dirname(p: &str) -> String {
    match p.rfind('/') {
        Some(0) => "/".into(),
        Some(i) => p[..i].into(),
        None => ".".into(),
    }
}

/// The file a path names, trying Node's extensions and index files.
fn resolve_file(fs: &Fs, p: &str) -> Option<String> {
    if is_file(fs, p) {
        return Some(p.to_string());
    }
    for ext in [".js", ".mjs", ".cjs", ".json"] {
        let c = format!("{p}{ext}");
        if is_file(fs, &c) {
            return Some(c);
        }
    }
    for idx in ["/index.js", "/index.mjs", "/index.cjs"] {
        let c = format!("{p}{idx}");
        if is_file(fs, &c) {
            return Some(c);
        }
    }
    None
}

/// A package's entry file from its package.json (`exports` as a string or
/// `{".": ...}` with `import`/`default`, then `module`, then `main`).
fn package_entry(fs: &Fs, dir: &str) -> Option<String> {
    let text = fs.read(&format!("{dir}/package.json")).ok()?;
    let text = String::from_utf8_lossy(&text);
    let field = |name: &str| -> Option<String> {
        let key = format!("\"{name}\"");
        let at = text.find(&key)? + key.len();
        let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
        let rest = rest.strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    };
    ["import", "default", "module", "main"]
        .iter()
        .find_map(|f| field(f))
        .and_then(|m| resolve_file(fs, &Fs::resolve(dir, &m)))
}

impl Resolver for VfsResolver {
    fn resolve<'js>(
        &mut self,
        _ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> JsResult<String> {
        let bare = name.strip_prefix("node:").unwrap_or(name);
        if name.starts_with("node:") || BUILTINS.contains(&bare) {
            return Ok(format!("node:{bare}"));
        }
        let dir = if base.starts_with('/') {
            dirname(base)
        } else {
            self.cwd.clone()
        };
        if name.starts_with("./") || name.starts_with("../") || name.starts_with('/') {
            let p = Fs::resolve(&dir, name);
            return resolve_file(&self.fs, &p)
                .ok_or_else(|| Error::new_resolving_message(base, name, "Cannot find module"));
        }
        if let Some(path) = name.strip_prefix("file://") {
            return resolve_file(&self.fs, path)
                .ok_or_else(|| Error::new_resolving_message(base, name, "Cannot find module"));
        }
        let mut d = dir;
        loop {
            let pkg = format!("{}/node_modules/{name}", d.trim_end_matches('/'));
            if let Some(e) = package_entry(&self.fs, &pkg).or_else(|| resolve_file(&self.fs, &pkg))
            {
                return Ok(e);
            }
            if d == "/" {
                break;
            }
            d = dirname(&d);
        }
        Err(Error::new_resolving_message(
            base,
            name,
            "Cannot find package (only the sandbox's own files and node_modules are searched)",
        ))
    }
}

/// Loads resolved modules.
pub struct VfsLoader {
    /// The sandbox's filesystem.
    pub fs: Fs,
}

fn host<'js>(ctx: &Ctx<'js>) -> JsResult<Object<'js>> {
    ctx.globals().get("__sk_host")
}

/// A module re-exporting `expr`'s value: `default` and its identifier keys.
fn reexport(keys: &[String], expr: &str) -> String {
    let mut src = format!("const __m = {expr};\nexport default __m;\n");
    for k in keys {
        src.push_str(&format!("export const {k} = __m[\"{k}\"];\n"));
    }
    src
}

fn js_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Sets `import.meta.url`, `.filename` and `.dirname` of a file module.
pub fn set_meta<T>(m: &Module<'_, T>, path: &str) -> JsResult<()> {
    let meta = m.meta()?;
    meta.set("url", format!("file://{path}"))?;
    meta.set("filename", path)?;
    meta.set("dirname", dirname(path))?;
    Ok(())
}

impl Loader for VfsLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> JsResult<Module<'js, Declared>> {
        let h = host(ctx)?;
        if let Some(b) = name.strip_prefix("node:") {
            let keys_fn: Function = h.get("builtinKeys")?;
            let keys: Vec<String> = keys_fn.call((b,))?;
            let src = reexport(&keys, &format!("__sk_host.builtin({})", js_string(b)));
            return Module::declare(ctx.clone(), name, src);
        }
        let is_esm = name.ends_with(".mjs")
            || (name.ends_with(".js") && {
                let f: Function = h.get("packageType")?;
                let t: String = f.call((dirname(name),))?;
                t == "module"
            });
        if is_esm {
            let src = self
                .fs
                .read(name)
                .map_err(|e| Error::new_loading_message(name, e.to_string()))?;
            let m = Module::declare(
                ctx.clone(),
                name,
                String::from_utf8_lossy(&src).into_owned(),
            )?;
            set_meta(&m, name)?;
            return Ok(m);
        }
        // CommonJS or JSON through require().
        let keys: Vec<String> = if name.ends_with(".json") {
            Vec::new()
        } else {
            let f: Function = h.get("cjsKeys")?;
            f.call((name,))?
        };
        let src = reexport(
            &keys,
            &format!("__sk_host.requireFile({})", js_string(name)),
        );
        Module::declare(ctx.clone(), name, src)
    }
}
