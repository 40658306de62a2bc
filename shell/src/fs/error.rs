//! Filesystem errors, displayed as the C library's `strerror` texts so that
//! commands can print `cat: x: No such file or directory` like GNU does.

/// An error from a virtual filesystem operation (more kinds may come: match
/// with a catch-all arm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// ENOENT
    #[error("No such file or directory")]
    NotFound,
    /// ENOTDIR
    #[error("Not a directory")]
    NotADirectory,
    /// EISDIR
    #[error("Is a directory")]
    IsADirectory,
    /// EEXIST
    #[error("File exists")]
    AlreadyExists,
    /// ENOTEMPTY
    #[error("Directory not empty")]
    DirectoryNotEmpty,
    /// EACCES
    #[error("Permission denied")]
    PermissionDenied,
    /// ENOSPC: a total-bytes or file-count limit was reached.
    #[error("No space left on device")]
    NoSpace,
    /// EFBIG: the per-file size limit was reached.
    #[error("File too large")]
    FileTooLarge,
    /// ELOOP
    #[error("Too many levels of symbolic links")]
    TooManyLinks,
    /// EINVAL
    #[error("Invalid argument")]
    InvalidArgument,
    /// EROFS: a node of the read-only lower layer.
    #[error("Read-only file system")]
    ReadOnly,
    /// EBUSY: e.g. removing `/` or `/dev`.
    #[error("Device or resource busy")]
    Busy,
    /// ENAMETOOLONG: a path component over 255 bytes, as Linux refuses
    /// (so that what one backend keeps, the other can restore).
    #[error("File name too long")]
    NameTooLong,
    /// EPIPE: a write to a FIFO whose last reader left while it was open
    /// for writing.
    #[error("Broken pipe")]
    BrokenPipe,
    /// EBADF: a read of a closed descriptor (`cat <&-`).
    #[error("Bad file descriptor")]
    BadDescriptor,
    /// EIO: a read that failed otherwise.
    #[error("Input/output error")]
    Io,
}

impl FsError {
    /// What a failed read of a command's input reports: `Is a directory`
    /// for `< dir` (the open succeeds, as in bash, and every read fails),
    /// `Bad file descriptor` for a closed one, else `Input/output error`.
    pub fn from_read(e: &std::io::Error) -> FsError {
        match e.raw_os_error() {
            Some(21) => FsError::IsADirectory,
            Some(9) => FsError::BadDescriptor,
            _ => FsError::Io,
        }
    }

    /// The failed read of its input that a command reports: `< dir`'s
    /// `Is a directory`, as on Linux. Any other failure (a cancelled run's
    /// pipe, which the interpreter reports itself) only ends the input:
    /// `None`.
    pub fn reported_read(e: &std::io::Error) -> Option<FsError> {
        (FsError::from_read(e) == FsError::IsADirectory).then_some(FsError::IsADirectory)
    }
}

/// An I/O error as the C library's `strerror` words it (`No space left on
/// device`), without Rust's ` (os error 28)` suffix: what a command prints
/// after `NAME: `.
pub fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}
