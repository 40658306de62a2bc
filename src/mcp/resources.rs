//! MCP resources over the agent's kept workspace: every file of the head
//! generation as `file:///workspace/PATH` (listed in pages, read as text or
//! as a base64 blob with its MIME type), every file of every kept generation
//! as `sandkeep://generations/ID/PATH` (read-only, reached through its
//! template), and which of them changed between two generations, for
//! `notifications/resources/updated`.
//!
//! Resources are read from the store, not the sandbox: every tool call ends
//! parked, so the head generation is the workspace as the last call left it,
//! and reading needs no session turn.

use std::collections::BTreeSet;

use base64::Engine as _;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};

use crate::store::{GenerationId, Generations, Kind, StoreError};

/// How many resources one `resources/list` page holds.
pub const PAGE_SIZE: usize = 100;

/// The largest file `resources/read` returns (8 MiB): the reply holds it
/// whole (a third larger as base64), and MCP has no partial reads.
pub const READ_MAX_BYTES: u64 = 8 << 20;

/// The URI prefix of a workspace file.
const FILE_PREFIX: &str = "file:///workspace/";
/// The URI prefix of a kept generation's file.
const GENERATION_PREFIX: &str = "sandkeep://generations/";

/// What a resource URI names.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// A file of the head generation (the workspace as last kept).
    Workspace(String),
    /// A file of a kept generation (an id, a unique prefix, `HEAD` or `HEAD~N`).
    Generation(String, String),
}

/// Percent-encodes a path for a URI, keeping `/` and RFC 3986's unreserved
/// characters.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Decodes `%XX` escapes; `None` for a bad escape or bytes that are not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The URI of workspace path `path` (relative to /workspace).
pub fn file_uri(path: &str) -> String {
    format!("{FILE_PREFIX}{}", encode(path))
}

/// The URI of `path` as generation `id` holds it (the template filled in).
#[cfg(test)]
pub fn generation_uri(id: &str, path: &str) -> String {
    format!("{GENERATION_PREFIX}{}/{}", encode(id), encode(path))
}

/// A path from a URI: relative, no empty, `.` or `..` component.
fn clean_path(raw: &str) -> Option<String> {
    let path = decode(raw)?;
    let ok = !path.is_empty()
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    ok.then_some(path)
}

/// What `uri` names, or why it names nothing.
pub fn parse(uri: &str) -> Result<Target, String> {
    if let Some(rest) = uri.strip_prefix(FILE_PREFIX) {
        return clean_path(rest)
            .map(Target::Workspace)
            .ok_or_else(|| format!("{uri}: not a file path inside /workspace"));
    }
    if let Some(rest) = uri.strip_prefix(GENERATION_PREFIX) {
        let (id, path) = rest
            .split_once('/')
            .ok_or_else(|| format!("{uri}: expected {GENERATION_PREFIX}ID/PATH"))?;
        let id = decode(id)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| format!("{uri}: no generation"))?;
        let path =
            clean_path(path).ok_or_else(|| format!("{uri}: not a file path of the generation"))?;
        return Ok(Target::Generation(id, path));
    }
    Err(format!(
        "{uri}: sandkeep serves {FILE_PREFIX}PATH and {GENERATION_PREFIX}ID/PATH"
    ))
}

/// The MIME type of `path` by its extension (`application/octet-stream`
/// when unknown).
fn mime_of(path: &str) -> String {
    mime_guess::from_path(path)
        .first_raw()
        .unwrap_or("application/octet-stream")
        .to_string()
}

/// The resource error for a URI that names nothing (`-32002`, as the MCP
/// specification asks for a resource that is not found).
fn not_found(message: String) -> McpError {
    McpError::resource_not_found(message, None)
}

fn store_error(e: StoreError) -> McpError {
    match e {
        StoreError::NoGeneration(_) | StoreError::Empty => not_found(e.to_string()),
        StoreError::Ambiguous(_) => McpError::invalid_params(e.to_string(), None),
        _ => McpError::internal_error(e.to_string(), None),
    }
}

/// One page of the head generation's files, from after `cursor` (the last
/// path of the previous page, as the previous page's `nextCursor` gave it).
pub fn list(gens: &Generations, cursor: Option<&str>) -> Result<ListResourcesResult, McpError> {
    let after = match cursor {
        None => None,
        Some(c) => Some(
            decode(c)
                .ok_or_else(|| McpError::invalid_params(format!("invalid cursor {c:?}"), None))?,
        ),
    };
    let Some(head) = gens.store().head().map_err(store_error)? else {
        return Ok(ListResourcesResult::with_all_items(Vec::new()));
    };
    let tree = gens.manifest(&head).map_err(store_error)?;
    let mut files = tree
        .entries
        .iter()
        .filter(|(_, e)| e.kind == Kind::File)
        .filter(|(p, _)| after.as_deref().is_none_or(|a| p.as_str() > a));
    let mut page = Vec::new();
    for (path, entry) in files.by_ref().take(PAGE_SIZE) {
        page.push(
            Resource::new(file_uri(path), path.clone())
                .with_description(format!(
                    "/workspace/{path} as generation {} kept it",
                    head.0
                ))
                .with_mime_type(mime_of(path))
                .with_size(entry.size),
        );
    }
    let more = files.next().is_some();
    let mut result = ListResourcesResult::with_all_items(page);
    if more {
        result.next_cursor = result.resources.last().map(|r| encode(&r.name));
    }
    Ok(result)
}

/// The two templates: a workspace path, a kept generation's path.
pub fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(format!("{FILE_PREFIX}{{+path}}"), "workspace file")
            .with_description(
                "A file of /workspace as the last tool call left it (the head generation).",
            ),
        ResourceTemplate::new(
            format!("{GENERATION_PREFIX}{{generation}}/{{+path}}"),
            "kept generation file",
        )
        .with_description(
            "A file as a kept generation holds it (read-only): the generation is an id, \
             a unique prefix, HEAD or HEAD~N.",
        ),
    ])
}

/// The contents of `uri`: text when the file is UTF-8 without NUL bytes,
/// else a base64 blob; either with the MIME type of its extension.
pub fn read(gens: &Generations, uri: &str) -> Result<ReadResourceResult, McpError> {
    let target = parse(uri).map_err(not_found)?;
    let (spec, path) = match &target {
        Target::Workspace(path) => ("HEAD", path.as_str()),
        Target::Generation(id, path) => (id.as_str(), path.as_str()),
    };
    let id: GenerationId = gens.resolve(spec).map_err(|e| match (&target, e) {
        (Target::Workspace(p), StoreError::Empty) => {
            not_found(format!("/workspace/{p}: nothing kept yet"))
        }
        (_, e) => store_error(e),
    })?;
    let tree = gens.manifest(&id).map_err(store_error)?;
    let entry = tree
        .entries
        .get(path)
        .ok_or_else(|| not_found(format!("generation {id} has no {path}")))?;
    if entry.kind == Kind::File && entry.size > READ_MAX_BYTES {
        return Err(McpError::invalid_params(
            format!(
                "{path} is {} bytes; resources are read up to {READ_MAX_BYTES} bytes \
                 (read it in parts with the bash tool, e.g. `head -c 1000000 {path}`)",
                entry.size
            ),
            None,
        ));
    }
    let bytes = match (entry.kind, entry.hash) {
        (Kind::File, Some(hash)) => gens.store().read_blob(&hash).map_err(store_error)?,
        _ => {
            return Err(not_found(format!(
                "{path} is not a file in generation {id}"
            )));
        }
    };
    let mime = mime_of(path);
    let contents = match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => {
            let mime = if mime == "application/octet-stream" {
                "text/plain".to_string()
            } else {
                mime
            };
            ResourceContents::text(text, uri).with_mime_type(mime)
        }
        Ok(text) => blob(text.into_bytes(), uri, mime),
        Err(e) => blob(e.into_bytes(), uri, mime),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

fn blob(bytes: Vec<u8>, uri: &str, mime: String) -> ResourceContents {
    ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(bytes), uri)
        .with_mime_type(mime)
}

/// The `file:///workspace/...` URIs of the files that differ between
/// generations `from` (none: nothing kept before) and `to`.
pub fn changed_uris(
    gens: &Generations,
    from: Option<&GenerationId>,
    to: &GenerationId,
) -> Result<BTreeSet<String>, StoreError> {
    let newer = gens.manifest(to)?;
    let changes = match from {
        Some(from) => gens.manifest(from)?.diff(&newer),
        None => crate::store::Manifest::default().diff(&newer),
    };
    Ok(changes
        .iter()
        .filter(|c| c.entry_kind != Kind::Dir)
        .map(|c| file_uri(&c.path))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_paths_with_any_character() {
        for path in ["a.txt", "dir with space/ünï.md", "x/%41?#&.bin", "a+b/c~d"] {
            assert_eq!(
                parse(&file_uri(path)),
                Ok(Target::Workspace(path.to_string()))
            );
            assert_eq!(
                parse(&generation_uri("HEAD~1", path)),
                Ok(Target::Generation("HEAD~1".into(), path.to_string()))
            );
        }
        assert_eq!(file_uri("a b/ü"), "file:///workspace/a%20b/%C3%BC");
    }

    #[test]
    fn uris_outside_the_workspace_or_with_dot_dot_name_nothing() {
        for uri in [
            "file:///workspace/",
            "file:///workspace/../etc/passwd",
            "file:///workspace/a/./b",
            "file:///workspace/a//b",
            "file:///etc/passwd",
            "file:///workspace/%2E%2E/x",
            "file:///workspace/%ZZ",
            "file:///workspace/%FF",
            "sandkeep://generations/abc",
            "sandkeep://generations//a",
            "test://static-text",
        ] {
            assert!(parse(uri).is_err(), "{uri}");
        }
    }

    #[test]
    fn mime_types_follow_the_extension() {
        assert_eq!(mime_of("a.png"), "image/png");
        assert_eq!(mime_of("d/x.json"), "application/json");
        assert_eq!(mime_of("README"), "application/octet-stream");
    }
}
