//! Character devices and the reader that streams any node's content.
//!
//! `/dev/null` reads empty and swallows writes; `/dev/zero` is an endless
//! run of zero bytes; `/dev/full` reads like `/dev/zero` and refuses every
//! write with `ENOSPC`; `/dev/random` and `/dev/urandom` are endless
//! pseudo-random bytes. Endless devices have no "whole content": the
//! whole-file readers ([`super::Fs::read`], [`super::Fs::read_shared`])
//! refuse them with `EFBIG` (`File too large`) at once instead of looping or
//! allocating, and [`super::Fs::open_read`] streams them.
//!
//! The random devices never read host entropy: each open gets its own
//! generator (xoshiro256**), seeded from the run's seed when runs are
//! deterministic, else from the clock and std's per-process hash keys.

use std::io::{self, Read};
use std::sync::Arc;

use super::fifo::FifoReader;
use super::{FsError, FsResult};
use crate::clock::Clock;

/// What a character device node does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// `/dev/null`: reads end at once, writes vanish.
    Null,
    /// `/dev/zero`: endless zero bytes; writes vanish.
    Zero,
    /// `/dev/full`: endless zero bytes; non-empty writes fail with `ENOSPC`.
    Full,
    /// `/dev/random`: endless pseudo-random bytes; writes vanish.
    Random,
    /// `/dev/urandom`: the same as [`Device::Random`] (as on Linux ≥ 5.6).
    Urandom,
    /// `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`: names of the
    /// shell's own descriptors, which the interpreter resolves itself.
    /// Through the tree they read empty and swallow writes.
    Descriptor,
}

impl Device {
    /// The `(major, minor)` numbers Linux gives the device (`ls -l` shows
    /// them in place of a size).
    pub fn numbers(self) -> (u32, u32) {
        match self {
            Device::Null => (1, 3),
            Device::Zero => (1, 5),
            Device::Full => (1, 7),
            Device::Random => (1, 8),
            Device::Urandom => (1, 9),
            // What a terminal would be: the descriptors' usual target.
            Device::Descriptor => (136, 0),
        }
    }

    /// True for devices that never reach end of input.
    pub fn is_endless(self) -> bool {
        matches!(
            self,
            Device::Zero | Device::Full | Device::Random | Device::Urandom
        )
    }

    /// What writing `len` bytes to the device does: `/dev/full` refuses any
    /// byte (opening it with `O_TRUNC`, a zero-length write, succeeds).
    pub(crate) fn write(self, len: u64) -> FsResult<()> {
        match self {
            Device::Full if len > 0 => Err(FsError::NoSpace),
            _ => Ok(()),
        }
    }

    /// The whole content, for readers that want one: empty for the finite
    /// devices, `EFBIG` for the endless ones.
    pub(crate) fn whole_content(self) -> FsResult<Arc<Vec<u8>>> {
        if self.is_endless() {
            return Err(FsError::FileTooLarge);
        }
        Ok(Arc::new(Vec::new()))
    }
}

/// A reader over a node opened with [`super::Fs::open_read`]: a snapshot of
/// a regular file's bytes, or a device's stream. Reading an endless device
/// never returns end of input; the caller bounds it (a byte count, the
/// run's deadline).
pub struct FileReader {
    inner: Inner,
}

enum Inner {
    /// A regular file (a snapshot) or a finite device (empty).
    Bytes(Arc<Vec<u8>>, usize),
    /// `/dev/zero`, `/dev/full`.
    Zeros,
    /// `/dev/random`, `/dev/urandom`.
    Random(Xoshiro),
    /// A FIFO's queue: finite, but its reads may wait (see
    /// [`FileReader::read_until`]).
    Fifo(FifoReader),
}

impl std::fmt::Debug for FileReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.inner {
            Inner::Bytes(d, pos) => format!("bytes({}, at {pos})", d.len()),
            Inner::Zeros => "zeros".to_string(),
            Inner::Random(_) => "random".to_string(),
            Inner::Fifo(_) => "fifo".to_string(),
        };
        f.debug_struct("FileReader").field("kind", &kind).finish()
    }
}

impl FileReader {
    /// A reader over `data` from its start.
    pub fn bytes(data: Arc<Vec<u8>>) -> FileReader {
        FileReader {
            inner: Inner::Bytes(data, 0),
        }
    }

    /// A reader over `device`; `seed` feeds the random devices.
    pub(crate) fn device(device: Device, seed: u64) -> FileReader {
        let inner = match device {
            Device::Null | Device::Descriptor => Inner::Bytes(Arc::default(), 0),
            Device::Zero | Device::Full => Inner::Zeros,
            Device::Random | Device::Urandom => Inner::Random(Xoshiro::new(seed)),
        };
        FileReader { inner }
    }

    /// A reader over a FIFO's queue.
    pub(crate) fn fifo(reader: FifoReader) -> FileReader {
        FileReader {
            inner: Inner::Fifo(reader),
        }
    }

    /// True when the reader never reaches end of input (an endless device).
    pub fn is_endless(&self) -> bool {
        matches!(self.inner, Inner::Zeros | Inner::Random(_))
    }

    /// True for a FIFO, whose reads may wait for a writer.
    pub fn is_fifo(&self) -> bool {
        matches!(self.inner, Inner::Fifo(_))
    }

    /// Reads like [`Read::read`], except that a FIFO waits for its writers
    /// while `stop` is false (and fails with `Interrupted`, `run cancelled`,
    /// once it turns true); plain `read` waits as long as the run the thread
    /// works for goes on (see `fifo.rs`).
    pub fn read_until(&mut self, buf: &mut [u8], stop: &dyn Fn() -> bool) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Fifo(f) => f.read_until(buf, stop),
            _ => self.read(buf),
        }
    }

    /// The whole content of a finite reader that has not been read from yet,
    /// without copying: lets callers keep their whole-buffer fast paths for
    /// regular files. `None` for endless devices or once reading started.
    pub fn snapshot(&self) -> Option<&Arc<Vec<u8>>> {
        match &self.inner {
            Inner::Bytes(d, 0) => Some(d),
            _ => None,
        }
    }
}

impl Read for FileReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Bytes(data, pos) => {
                let start = (*pos).min(data.len());
                let n = buf.len().min(data.len() - start);
                buf[..n].copy_from_slice(&data[start..start + n]);
                *pos = start + n;
                Ok(n)
            }
            Inner::Zeros => {
                buf.fill(0);
                Ok(buf.len())
            }
            Inner::Random(rng) => {
                rng.fill(buf);
                Ok(buf.len())
            }
            Inner::Fifo(f) => f.read(buf),
        }
    }
}

/// A seed for the `n`th random-device open of a filesystem: the run's seed
/// when runs are deterministic, else fresh entropy that touches no host file.
pub(crate) fn stream_seed(seed: Option<u64>, n: u64) -> u64 {
    let base = seed.unwrap_or_else(entropy);
    splitmix(base ^ splitmix(n.wrapping_add(0x7572_616e_646f_6d00)))
}

/// Entropy from the clock and std's per-process random hash keys (which the
/// standard library draws from the kernel once; no file is read).
fn entropy() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let t = Clock::real().now();
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_i64(t.secs);
    h.write_u32(t.nanos);
    h.finish()
}

/// One step of SplitMix64: spreads a seed's bits (seeding the generator).
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xoshiro256**: fast, with good statistical quality for scripts that
/// make names, passwords or test data from `/dev/urandom` (not a CSPRNG:
/// nothing in the sandbox is secret from its host).
struct Xoshiro([u64; 4]);

impl Xoshiro {
    fn new(seed: u64) -> Xoshiro {
        let mut s = [0u64; 4];
        let mut z = seed;
        for w in &mut s {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            *w = splitmix(z);
        }
        Xoshiro(s)
    }

    fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let out = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let v = self.next().to_le_bytes();
            rest.copy_from_slice(&v[..rest.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeros_and_randoms_are_endless() {
        let mut z = FileReader::device(Device::Zero, 0);
        let mut buf = [1u8; 100];
        assert_eq!(z.read(&mut buf).unwrap(), 100);
        assert!(buf.iter().all(|&b| b == 0));
        assert!(z.is_endless() && z.snapshot().is_none());
        let mut r = FileReader::device(Device::Urandom, 7);
        let mut a = [0u8; 13];
        r.read_exact(&mut a).unwrap();
        let mut r2 = FileReader::device(Device::Urandom, 7);
        let mut b = [0u8; 13];
        r2.read_exact(&mut b).unwrap();
        assert_eq!(a, b, "same seed, same bytes");
        assert!(a.iter().any(|&x| x != 0));
        let mut n = FileReader::device(Device::Null, 0);
        assert_eq!(n.read(&mut buf).unwrap(), 0);
        assert!(!n.is_endless());
    }

    #[test]
    fn random_bytes_look_uniform() {
        let mut r = FileReader::device(Device::Random, 1);
        let mut buf = vec![0u8; 256 * 1024];
        r.read_exact(&mut buf).unwrap();
        let mut counts = [0u32; 256];
        for &b in &buf {
            counts[b as usize] += 1;
        }
        // 1024 expected per value; a broken generator is far off.
        assert!(
            counts.iter().all(|&c| (800..1250).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn seeds_differ_per_open_and_follow_the_run_seed() {
        assert_eq!(stream_seed(Some(42), 0), stream_seed(Some(42), 0));
        assert_ne!(stream_seed(Some(42), 0), stream_seed(Some(42), 1));
        assert_ne!(stream_seed(Some(42), 0), stream_seed(Some(43), 0));
        assert_ne!(stream_seed(None, 0), stream_seed(None, 0));
    }

    #[test]
    fn bytes_reader_and_snapshot() {
        let mut r = FileReader::bytes(Arc::new(b"hello".to_vec()));
        assert_eq!(r.snapshot().map(|d| d.len()), Some(5));
        let mut buf = [0u8; 3];
        assert_eq!(r.read(&mut buf).unwrap(), 3);
        assert!(r.snapshot().is_none());
        assert_eq!(r.read(&mut buf).unwrap(), 2);
        assert_eq!(r.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn full_refuses_writes() {
        assert_eq!(Device::Full.write(1), Err(FsError::NoSpace));
        assert_eq!(Device::Full.write(0), Ok(()));
        assert_eq!(Device::Zero.write(10), Ok(()));
        assert_eq!(Device::Urandom.whole_content(), Err(FsError::FileTooLarge));
        assert!(Device::Null.whole_content().unwrap().is_empty());
    }
}
