//! Bearer-token authentication for `sandkeep serve`: the token file (a JSON
//! object mapping each token to the agents it may touch, or `"*"`), and the
//! lookup of a presented token in constant time. Tokens are kept only as
//! SHA-256 digests and never appear in errors, logs or `Debug` output.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Why a token file was refused.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not the expected JSON.
    #[error(
        "{path}: expected a JSON object mapping each token to a list of agent names or \"*\": {reason}"
    )]
    Format {
        /// The file.
        path: String,
        /// What is wrong (never quoting a token).
        reason: String,
    },
}

/// Which agents a token may touch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    /// Every agent.
    All,
    /// Only these.
    Agents(BTreeSet<String>),
}

impl Grant {
    /// True when the grant covers `agent`.
    pub fn allows(&self, agent: &str) -> bool {
        match self {
            Grant::All => true,
            Grant::Agents(names) => names.contains(agent),
        }
    }
}

/// Who is calling: the index of their token in the file (never the token
/// itself, so it can key limits and appear in logs) and their grant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The token's position in the file; `usize::MAX` when auth is off.
    pub token: usize,
    /// What it may touch.
    pub grant: Grant,
}

impl Caller {
    /// The caller when no token file is configured (loopback only).
    pub fn open() -> Caller {
        Caller {
            token: usize::MAX,
            grant: Grant::All,
        }
    }
}

/// The tokens of a token file, as digests.
#[derive(Clone)]
pub struct Tokens {
    entries: Vec<([u8; 32], Grant)>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokens({} tokens)", self.entries.len())
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawGrant {
    All(String),
    Agents(Vec<String>),
}

impl Tokens {
    /// Reads a token file.
    pub fn load(path: &Path) -> Result<Tokens, TokenFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| TokenFileError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Tokens::parse(&text).map_err(|reason| TokenFileError::Format {
            path: path.display().to_string(),
            reason,
        })
    }

    /// Parses the JSON text of a token file.
    ///
    /// ```
    /// use sandkeep::Tokens;
    ///
    /// let tokens = Tokens::parse(r#"{"tok-alice-1": ["a"], "tok-admin-1": "*"}"#).unwrap();
    /// assert!(tokens.lookup("tok-alice-1").unwrap().grant.allows("a"));
    /// assert!(!tokens.lookup("tok-alice-1").unwrap().grant.allows("b"));
    /// assert!(tokens.lookup("tok-admin-1").unwrap().grant.allows("b"));
    /// assert!(tokens.lookup("tok-bob-1").is_none());
    /// assert!(Tokens::parse(r#"{"short": "everyone"}"#).is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Tokens, String> {
        // serde_json keeps the file's order only with preserve_order; sort by
        // digest instead so indexes are stable for one file.
        let raw: std::collections::BTreeMap<String, RawGrant> = serde_json::from_str(text)
            .map_err(|e| {
                // serde's message may quote a token; keep only where it is.
                format!("invalid JSON at line {} column {}", e.line(), e.column())
            })?;
        let mut entries = Vec::new();
        for (n, (token, grant)) in raw.into_iter().enumerate() {
            if token.len() < 8 {
                return Err(format!("token #{} is shorter than 8 characters", n + 1));
            }
            let grant = match grant {
                RawGrant::All(s) if s == "*" => Grant::All,
                RawGrant::All(_) => {
                    return Err(format!(
                        "token #{}: the grant must be a list of agent names or \"*\"",
                        n + 1
                    ));
                }
                RawGrant::Agents(names) => {
                    for name in &names {
                        crate::runtime::validate_agent(name).map_err(|e| e.to_string())?;
                    }
                    Grant::Agents(names.into_iter().collect())
                }
            };
            entries.push((digest(&token), grant));
        }
        if entries.is_empty() {
            return Err("no tokens".to_string());
        }
        Ok(Tokens { entries })
    }

    /// The caller a presented token belongs to. Every stored digest is
    /// compared, in constant time, whatever matches.
    pub fn lookup(&self, presented: &str) -> Option<Caller> {
        let presented = digest(presented);
        let mut found: Option<Caller> = None;
        for (n, (stored, grant)) in self.entries.iter().enumerate() {
            let hit: bool = stored.ct_eq(&presented).into();
            if hit {
                found = Some(Caller {
                    token: n,
                    grant: grant.clone(),
                });
            }
        }
        found
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}
