//! git's config files (`.git/config`, `$HOME/.gitconfig`): parsing the INI
//! dialect into `section.subsection.key` values and editing a file in place
//! the way `git config` does (a new key goes at the end of its section, a new
//! section at the end of the file).

use bstr::ByteSlice;

/// Parsed config values, in file order (later ones win).
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// (canonical key, value); a key without `=` has the value `None`.
    pub entries: Vec<(String, Option<String>)>,
}

/// The canonical form of a key: section and name lowercased, subsection kept.
pub fn canonical(key: &str) -> Option<String> {
    let first = key.find('.')?;
    let last = key.rfind('.')?;
    if last + 1 >= key.len() || first == 0 {
        return None;
    }
    let section = key[..first].to_ascii_lowercase();
    let name = key[last + 1..].to_ascii_lowercase();
    if first == last {
        Some(format!("{section}.{name}"))
    } else {
        Some(format!("{section}.{}.{name}", &key[first + 1..last]))
    }
}

fn parse_value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars().peekable();
    let mut pending_ws = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => {
                out.push_str(&pending_ws);
                pending_ws.clear();
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(o) => out.push(o),
                    None => {}
                }
            }
            ';' | '#' if !quoted => break,
            c if c.is_whitespace() && !quoted => pending_ws.push(c),
            c => {
                out.push_str(&pending_ws);
                pending_ws.clear();
                out.push(c);
            }
        }
    }
    out
}

/// Parses a `[section "sub"]` header line; returns the section prefix.
fn parse_header(line: &str) -> Option<String> {
    let inner = line.strip_prefix('[')?;
    let end = inner.rfind(']')?;
    let inner = &inner[..end];
    if let Some(q) = inner.find('"') {
        let section = inner[..q].trim().to_ascii_lowercase();
        let sub = inner[q + 1..].trim_end_matches('"').replace("\\\"", "\"");
        Some(format!("{section}.{sub}"))
    } else if let Some((s, sub)) = inner.split_once('.') {
        Some(format!(
            "{}.{}",
            s.to_ascii_lowercase(),
            sub.to_ascii_lowercase()
        ))
    } else {
        Some(inner.trim().to_ascii_lowercase())
    }
}

impl Config {
    /// Parses a config file's bytes (bad lines are skipped).
    pub fn parse(data: &[u8]) -> Config {
        let mut entries = Vec::new();
        let mut section = String::new();
        for line in data.lines() {
            let line = line.to_str_lossy();
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
                continue;
            }
            if t.starts_with('[') {
                if let Some(s) = parse_header(t) {
                    section = s;
                }
                // A key may follow the header on the same line.
                if let Some(end) = t.find(']') {
                    let rest = t[end + 1..].trim();
                    if !rest.is_empty() && !rest.starts_with('#') && !rest.starts_with(';') {
                        push_kv(&mut entries, &section, rest);
                    }
                }
                continue;
            }
            push_kv(&mut entries, &section, t);
        }
        Config { entries }
    }

    /// Adds `other`'s values after this one's (they win).
    pub fn merge(&mut self, other: Config) {
        self.entries.extend(other.entries);
    }

    /// The last value of `key` (any case for section and name).
    pub fn get(&self, key: &str) -> Option<&str> {
        let k = canonical(key)?;
        self.entries
            .iter()
            .rev()
            .find(|(ek, _)| *ek == k)
            .map(|(_, v)| v.as_deref().unwrap_or("true"))
    }

    /// A boolean value (git's true/yes/on/1 and false/no/off/0).
    pub fn get_bool(&self, key: &str) -> Option<bool> {
        let v = self.get(key)?.to_ascii_lowercase();
        match v.as_str() {
            "true" | "yes" | "on" | "1" | "" => Some(true),
            "false" | "no" | "off" | "0" => Some(false),
            _ => None,
        }
    }
}

fn push_kv(entries: &mut Vec<(String, Option<String>)>, section: &str, t: &str) {
    let (name, value) = match t.split_once('=') {
        Some((n, v)) => (n.trim(), Some(parse_value(v))),
        None => (t.trim(), None),
    };
    if name.is_empty() || section.is_empty() {
        return;
    }
    entries.push((format!("{section}.{}", name.to_ascii_lowercase()), value));
}

fn quote_value(v: &str) -> String {
    let needs_quotes = v.starts_with(' ') || v.ends_with(' ') || v.contains(';') || v.contains('#');
    let escaped = v
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    if needs_quotes {
        format!("\"{escaped}\"")
    } else {
        escaped
    }
}

/// Splits a canonical key into (section, subsection, name).
fn split_key(key: &str) -> (String, Option<String>, String) {
    let first = key.find('.').unwrap_or(0);
    let last = key.rfind('.').unwrap_or(0);
    let section = key[..first].to_string();
    let name = key[last + 1..].to_string();
    let sub = (first != last).then(|| key[first + 1..last].to_string());
    (section, sub, name)
}

/// The lines of `file` that belong to the section of `key`: which line
/// index each header sits at.
fn header_matches(line: &str, section: &str, sub: Option<&str>) -> bool {
    let Some(h) = parse_header(line.trim()) else {
        return false;
    };
    match sub {
        Some(s) => h == format!("{section}.{s}"),
        None => h == section,
    }
}

/// Adds another `key = value` line (`git config --add`), after the last
/// line of the key's section.
pub fn add_in_file(file: &str, key: &str, value: &str) -> String {
    set_or_add(file, key, value, true)
}

/// Sets `key` (canonical) to `value` in the config text `file`; returns the new text.
pub fn set_in_file(file: &str, key: &str, value: &str) -> String {
    set_or_add(file, key, value, false)
}

/// Removes the whole section `name` (`section` or `section.sub`); whether it was there.
pub fn remove_section(file: &str, name: &str) -> (String, bool) {
    let (section, sub) = match name.split_once('.') {
        Some((s, sub)) => (s.to_ascii_lowercase(), Some(sub.to_string())),
        None => (name.to_ascii_lowercase(), None),
    };
    let mut out = String::new();
    let mut skipping = false;
    let mut found = false;
    for line in file.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            skipping = header_matches(t, &section, sub.as_deref());
            found |= skipping;
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    (out, found)
}

fn set_or_add(file: &str, key: &str, value: &str, add: bool) -> String {
    let (section, sub, name) = split_key(key);
    let mut lines: Vec<String> = file.lines().map(str::to_string).collect();
    let mut in_section = false;
    let mut last_in_section: Option<usize> = None;
    let mut replaced = false;
    for (i, line) in lines.iter_mut().enumerate() {
        let t = line.trim().to_string();
        if t.starts_with('[') {
            in_section = header_matches(&t, &section, sub.as_deref());
            if in_section {
                last_in_section = Some(i);
            }
            continue;
        }
        if in_section {
            last_in_section = Some(i);
            let k = t
                .split('=')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if k == name && !add {
                *line = format!("\t{} = {}", original_name(key), quote_value(value));
                replaced = true;
            }
        }
    }
    if !replaced {
        let line = format!("\t{} = {}", original_name(key), quote_value(value));
        match last_in_section {
            Some(i) => lines.insert(i + 1, line),
            None => {
                match &sub {
                    Some(s) => lines.push(format!("[{section} \"{s}\"]")),
                    None => lines.push(format!("[{section}]")),
                }
                lines.push(line);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The key's name as the user spelled it (git writes it that way).
fn original_name(key: &str) -> &str {
    &key[key.rfind('.').map_or(0, |i| i + 1)..]
}

/// Removes every `key` from `file`; returns the new text and whether one was removed.
pub fn unset_in_file(file: &str, key: &str) -> (String, bool) {
    let (text, removed) = unset_lines(file, key);
    if !removed {
        return (text, false);
    }
    // A section left without keys goes too, as git leaves none behind.
    let (section, sub, _) = split_key(key);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.starts_with('[') && header_matches(t, &section, sub.as_deref()) {
            let empty = lines[i + 1..]
                .iter()
                .take_while(|l| !l.trim().starts_with('['))
                .all(|l| l.trim().is_empty());
            if empty {
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, true)
}

/// How many values `key` has in the config text `file`.
pub fn count_in_file(file: &str, key: &str) -> usize {
    let cfg = Config::parse(file.as_bytes());
    let Some(k) = canonical(key) else { return 0 };
    cfg.entries.iter().filter(|(e, _)| *e == k).count()
}

fn unset_lines(file: &str, key: &str) -> (String, bool) {
    let (section, sub, name) = split_key(key);
    let mut in_section = false;
    let mut removed = false;
    let mut out = String::new();
    for line in file.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_section = header_matches(t, &section, sub.as_deref());
        } else if in_section {
            let k = t
                .split('=')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if k == name {
                removed = true;
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, removed)
}
