//! The error every git command returns: what git prints (`fatal: ...`,
//! `error: ...`, a usage message) and the exit status it prints it with.

use sandkeep_shell::FsError;

/// A failed git command.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `fatal: message`, status 128.
    #[error("fatal: {0}")]
    Fatal(String),
    /// `error: message`, status 1.
    #[error("error: {0}")]
    Error(String),
    /// A usage error (unknown option): the message as given, status 129.
    #[error("{0}")]
    Usage(String),
    /// A message printed as is, with its status.
    #[error("{0}")]
    Raw(String, i32),
    /// The virtual filesystem refused an operation.
    #[error("fatal: {0}")]
    Fs(#[from] FsError),
    /// The run's deadline passed or it was cancelled.
    #[error("fatal: interrupted (the run's time limit or cancellation)")]
    Interrupted,
}

impl GitError {
    /// A `fatal:` error.
    pub fn fatal(m: impl Into<String>) -> GitError {
        GitError::Fatal(m.into())
    }

    /// An `error:` error.
    pub fn error(m: impl Into<String>) -> GitError {
        GitError::Error(m.into())
    }

    /// The exit status git uses for this error.
    pub fn status(&self) -> i32 {
        match self {
            GitError::Fatal(_) | GitError::Fs(_) | GitError::Interrupted => 128,
            GitError::Error(_) => 1,
            GitError::Usage(_) => 129,
            GitError::Raw(_, s) => *s,
        }
    }
}

/// The result of git's internals.
pub type Result<T> = std::result::Result<T, GitError>;
