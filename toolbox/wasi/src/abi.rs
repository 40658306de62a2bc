//! The numbers of `wasi_snapshot_preview1`: errno codes, file types, flags
//! and the byte layouts of the structures the host writes into guest memory
//! (from the preview1 witx; wasm32 is little-endian).

use sandkeep_shell::{FileKind, FsError};

/// An errno value as preview1 numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Errno(pub u16);

#[allow(missing_docs)]
impl Errno {
    pub const ACCES: Errno = Errno(2);
    pub const BADF: Errno = Errno(8);
    pub const BUSY: Errno = Errno(10);
    pub const EXIST: Errno = Errno(20);
    pub const FAULT: Errno = Errno(21);
    pub const FBIG: Errno = Errno(22);
    pub const ILSEQ: Errno = Errno(25);
    pub const INVAL: Errno = Errno(28);
    pub const IO: Errno = Errno(29);
    pub const ISDIR: Errno = Errno(31);
    pub const LOOP: Errno = Errno(32);
    pub const NAMETOOLONG: Errno = Errno(37);
    pub const NOENT: Errno = Errno(44);
    pub const NOSPC: Errno = Errno(51);
    pub const NOSYS: Errno = Errno(52);
    pub const NOTDIR: Errno = Errno(54);
    pub const NOTEMPTY: Errno = Errno(55);
    pub const NOTSUP: Errno = Errno(58);
    pub const PIPE: Errno = Errno(64);
    pub const ROFS: Errno = Errno(69);
    pub const SPIPE: Errno = Errno(70);
}

impl From<FsError> for Errno {
    fn from(e: FsError) -> Errno {
        match e {
            FsError::NotFound => Errno::NOENT,
            FsError::NotADirectory => Errno::NOTDIR,
            FsError::IsADirectory => Errno::ISDIR,
            FsError::AlreadyExists => Errno::EXIST,
            FsError::DirectoryNotEmpty => Errno::NOTEMPTY,
            FsError::PermissionDenied => Errno::ACCES,
            FsError::NoSpace => Errno::NOSPC,
            FsError::FileTooLarge => Errno::FBIG,
            FsError::TooManyLinks => Errno::LOOP,
            FsError::InvalidArgument => Errno::INVAL,
            FsError::ReadOnly => Errno::ROFS,
            FsError::Busy => Errno::BUSY,
            FsError::NameTooLong => Errno::NAMETOOLONG,
            _ => Errno::IO,
        }
    }
}

/// `filetype`: what `fd_filestat_get` and `fd_readdir` report.
pub fn filetype(kind: FileKind) -> u8 {
    match kind {
        FileKind::CharDevice => 2,
        FileKind::Dir => 3,
        FileKind::File => 4,
        FileKind::Symlink => 7,
        // A FIFO has no preview1 type of its own; wasi-libc maps `unknown`
        // to neither a file nor a directory, which is what a FIFO is.
        FileKind::Fifo => 0,
    }
}

/// `filetype::character_device`, for the standard streams.
pub const FILETYPE_CHAR_DEVICE: u8 = 2;
/// `filetype::directory`.
pub const FILETYPE_DIRECTORY: u8 = 3;

/// `oflags`.
pub const O_CREAT: u16 = 1;
pub const O_DIRECTORY: u16 = 2;
pub const O_EXCL: u16 = 4;
pub const O_TRUNC: u16 = 8;

/// `fdflags`.
pub const FDFLAG_APPEND: u16 = 1;

/// `lookupflags::symlink_follow`.
pub const LOOKUP_SYMLINK_FOLLOW: u32 = 1;

/// `rights::fd_read` and `rights::fd_write`.
pub const RIGHT_FD_READ: u64 = 1 << 1;
pub const RIGHT_FD_WRITE: u64 = 1 << 6;
/// Every right preview1 defines (30 bits).
pub const RIGHTS_ALL: u64 = (1 << 30) - 1;

/// `fstflags`.
pub const FST_ATIM: u16 = 1;
pub const FST_ATIM_NOW: u16 = 2;
pub const FST_MTIM: u16 = 4;
pub const FST_MTIM_NOW: u16 = 8;

/// `clockid`.
pub const CLOCK_REALTIME: u32 = 0;
pub const CLOCK_MONOTONIC: u32 = 1;
pub const CLOCK_PROCESS_CPUTIME: u32 = 2;
pub const CLOCK_THREAD_CPUTIME: u32 = 3;

/// `eventtype`.
pub const EVENT_CLOCK: u8 = 0;
pub const EVENT_FD_READ: u8 = 1;
pub const EVENT_FD_WRITE: u8 = 2;
/// `subclockflags::subscription_clock_abstime`.
pub const SUBCLOCK_ABSTIME: u16 = 1;

/// Sizes of the structures the host writes.
pub const FILESTAT_SIZE: usize = 64;
pub const FDSTAT_SIZE: usize = 24;
pub const DIRENT_SIZE: usize = 24;
pub const SUBSCRIPTION_SIZE: usize = 48;
pub const EVENT_SIZE: usize = 32;

/// A `filestat`, as `fd_filestat_get` and `path_filestat_get` write it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Filestat {
    pub dev: u64,
    pub ino: u64,
    pub filetype: u8,
    pub nlink: u64,
    pub size: u64,
    pub atim: u64,
    pub mtim: u64,
    pub ctim: u64,
}

impl Filestat {
    /// The 64 bytes of the structure.
    pub fn to_bytes(self) -> [u8; FILESTAT_SIZE] {
        let mut b = [0u8; FILESTAT_SIZE];
        b[0..8].copy_from_slice(&self.dev.to_le_bytes());
        b[8..16].copy_from_slice(&self.ino.to_le_bytes());
        b[16] = self.filetype;
        b[24..32].copy_from_slice(&self.nlink.to_le_bytes());
        b[32..40].copy_from_slice(&self.size.to_le_bytes());
        b[40..48].copy_from_slice(&self.atim.to_le_bytes());
        b[48..56].copy_from_slice(&self.mtim.to_le_bytes());
        b[56..64].copy_from_slice(&self.ctim.to_le_bytes());
        b
    }
}
