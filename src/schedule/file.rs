//! Schedule files: markdown with a YAML-style frontmatter (`cron:`, `agent:`,
//! `timeout:`, `backend:`, `overlap:`) whose body is the prompt. The prompt's
//! fenced `bash`/`sh` blocks are what the built-in script driver runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cron::CronSpec;

/// What to do when a fire comes while the previous session still runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Overlap {
    /// Skip the fire (logged).
    #[default]
    Skip,
    /// Run it once the previous one has finished.
    Queue,
}

/// One parsed schedule file.
#[derive(Clone, Debug)]
pub struct ScheduleFile {
    /// The schedule's name: the file's stem.
    pub name: String,
    /// Where it was read from.
    pub path: PathBuf,
    /// When it fires.
    pub cron: CronSpec,
    /// The agent whose session each fire starts (default: the name).
    pub agent: String,
    /// Wall-clock limit of each command the fire runs.
    pub timeout: Option<Duration>,
    /// `local`, `docker` or `auto`; `None`: the scheduler's default.
    pub backend: Option<String>,
    /// Overlap policy.
    pub overlap: Overlap,
    /// `allow_net: RULE, RULE`: network rules this schedule's sessions get
    /// on top of the scheduler's (`--allow-net`); empty: none added.
    pub allow_net: Vec<String>,
    /// The whole prompt (the body).
    pub prompt: String,
    /// The prompt without its code blocks, trimmed: what the agent "heard".
    pub prose: String,
    /// The fenced `bash`/`sh` blocks, in order.
    pub scripts: Vec<String>,
}

/// A schedule file that could not be used, naming the file (and line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ScheduleFileError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, where one applies.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// Parses `text`, read from `path`.
pub fn parse(path: &Path, text: &str) -> Result<ScheduleFile, ScheduleFileError> {
    let err = |line: Option<usize>, message: String| ScheduleFileError {
        path: path.to_path_buf(),
        line,
        message,
    };
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .ok_or_else(|| err(None, "no file name".into()))?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err(err(
            Some(1),
            "missing frontmatter: the file must start with a `---` line".into(),
        ));
    }
    let end = lines
        .iter()
        .skip(1)
        .position(|l| l.trim_end() == "---")
        .map(|i| i + 1)
        .ok_or_else(|| {
            err(
                Some(1),
                "unterminated frontmatter: no closing `---` line".into(),
            )
        })?;

    let (mut cron, mut agent, mut timeout, mut backend, mut overlap) =
        (None, None, None, None, Overlap::Skip);
    let mut allow_net: Vec<String> = Vec::new();
    for (i, raw) in lines[1..end].iter().enumerate() {
        let lineno = i + 2;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(err(
                Some(lineno),
                format!("malformed frontmatter line {line:?}: expected `key: value`"),
            ));
        };
        let value = unquote(value.trim());
        match key.trim() {
            "cron" => {
                cron = Some(CronSpec::parse(&value).map_err(|e| err(Some(lineno), e.to_string()))?)
            }
            "agent" => {
                if value.is_empty() {
                    return Err(err(Some(lineno), "empty agent name".into()));
                }
                if let Err(e) = crate::runtime::validate_agent(&value) {
                    return Err(err(Some(lineno), e.to_string()));
                }
                agent = Some(value)
            }
            "timeout" => {
                timeout = Some(parse_duration(&value).ok_or_else(|| {
                    err(
                        Some(lineno),
                        format!("invalid timeout {value:?} (e.g. 30s, 5m, 1h)"),
                    )
                })?)
            }
            "backend" => match value.as_str() {
                "local" | "docker" | "auto" => backend = Some(value),
                _ => {
                    return Err(err(
                        Some(lineno),
                        format!("invalid backend {value:?} (local, docker or auto)"),
                    ));
                }
            },
            "allow_net" => {
                for rule in value.split(',').map(str::trim).filter(|r| !r.is_empty()) {
                    #[cfg(feature = "net")]
                    if let Err(e) = rule.parse::<sandkeep_net::Rule>() {
                        return Err(err(Some(lineno), e.to_string()));
                    }
                    allow_net.push(rule.to_string());
                }
            }
            "overlap" => {
                overlap = match value.as_str() {
                    "skip" => Overlap::Skip,
                    "queue" => Overlap::Queue,
                    _ => {
                        return Err(err(
                            Some(lineno),
                            format!("invalid overlap {value:?} (skip or queue)"),
                        ));
                    }
                }
            }
            other => {
                return Err(err(
                    Some(lineno),
                    format!("unknown frontmatter key {other:?}"),
                ));
            }
        }
    }
    let cron = cron.ok_or_else(|| err(None, "the frontmatter has no `cron:` line".into()))?;
    let prompt = lines[end + 1..].join("\n").trim().to_string();
    let (prose, scripts) = split_prompt(&prompt);
    Ok(ScheduleFile {
        agent: agent.unwrap_or_else(|| name.clone()),
        name,
        path: path.to_path_buf(),
        cron,
        timeout,
        backend,
        overlap,
        allow_net,
        prompt,
        prose,
        scripts,
    })
}

fn unquote(v: &str) -> String {
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

use crate::duration::parse_duration;

/// Splits a prompt into its prose and its fenced `bash`/`sh` blocks.
fn split_prompt(prompt: &str) -> (String, Vec<String>) {
    let mut prose = Vec::new();
    let mut scripts = Vec::new();
    let mut block: Option<(bool, Vec<&str>)> = None; // (is a script, lines)
    for line in prompt.lines() {
        let trimmed = line.trim_start();
        match &mut block {
            None if trimmed.starts_with("```") => {
                let lang = trimmed.trim_start_matches('`').trim().to_ascii_lowercase();
                block = Some((matches!(lang.as_str(), "bash" | "sh" | "shell"), Vec::new()));
            }
            None => prose.push(line),
            Some(_) if trimmed.starts_with("```") => {
                let (is_script, lines) = block.take().expect("in a block");
                if is_script {
                    scripts.push(lines.join("\n"));
                }
            }
            Some((_, lines)) => lines.push(line),
        }
    }
    (prose.join("\n").trim().to_string(), scripts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "---\ncron: \"*/15 * * * *\"\nagent: thinker\n---\nWake up and look at what you were doing.\n\n```bash\necho \"woke $(date -u +%FT%TZ)\" >> journal.txt\necho FIRES=$(wc -l < journal.txt)\n```\n";

    #[test]
    fn parses_the_readme_example() {
        let s = parse(Path::new("schedules/think.md"), EXAMPLE).unwrap();
        assert_eq!(s.name, "think");
        assert_eq!(s.agent, "thinker");
        assert_eq!(s.cron.parts, ["0 */15 * * * *"]);
        assert_eq!(s.overlap, Overlap::Skip);
        assert_eq!(s.prose, "Wake up and look at what you were doing.");
        assert_eq!(s.scripts.len(), 1);
        assert!(s.scripts[0].starts_with("echo \"woke"));
    }

    #[test]
    fn an_agent_name_that_escapes_is_reported_with_its_line() {
        let e = parse(
            Path::new("bad.md"),
            "---\ncron: \"* * * * *\"\nagent: ../../x\n---\nhi",
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("bad.md") && text.contains("invalid agent name"),
            "{text}"
        );
    }

    #[test]
    fn agent_defaults_to_the_file_stem_and_options_parse() {
        let text = "---\ncron: '* * * * * *'\ntimeout: 5m\nbackend: local\noverlap: queue\n---\nhi\n```sh\necho a\n```\n```python\nprint(1)\n```\n";
        let s = parse(Path::new("x/nightly.md"), text).unwrap();
        assert_eq!(s.agent, "nightly");
        assert_eq!(s.timeout, Some(Duration::from_secs(300)));
        assert_eq!(s.backend.as_deref(), Some("local"));
        assert_eq!(s.overlap, Overlap::Queue);
        assert_eq!(s.scripts, ["echo a"]);
    }

    #[test]
    fn allow_net_is_a_comma_list() {
        let text = "---\ncron: '@daily'\nallow_net: api.example.com, *.example.org:443\n---\nhi\n";
        let s = parse(Path::new("x/n.md"), text).unwrap();
        assert_eq!(s.allow_net, ["api.example.com", "*.example.org:443"]);
    }

    #[test]
    fn bad_files_name_the_file_and_line() {
        let cases = [
            ("no frontmatter here", "a.md:1: missing frontmatter"),
            ("---\ncron: * * * * *\n", "a.md:1: unterminated frontmatter"),
            (
                "---\nagent: x\n---\nbody",
                "a.md: the frontmatter has no `cron:` line",
            ),
            (
                "---\ncron: 61 * * * *\n---\n",
                "a.md:2: invalid cron expression",
            ),
            (
                "---\ncron: * * * * *\nwhat\n---\n",
                "a.md:3: malformed frontmatter line",
            ),
            (
                "---\ncron: * * * * *\ncolour: red\n---\n",
                "a.md:3: unknown frontmatter key",
            ),
            (
                "---\ncron: * * * * *\noverlap: maybe\n---\n",
                "a.md:3: invalid overlap",
            ),
            (
                "---\ncron: * * * * *\ntimeout: soon\n---\n",
                "a.md:3: invalid timeout",
            ),
        ];
        for (text, want) in cases {
            let e = parse(Path::new("a.md"), text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: got {e:?}, want {want:?}");
        }
    }
}
