//! Bounds-checked access to the guest's linear memory: every pointer a
//! guest hands over is checked against the memory's size, so a bad one is
//! `EFAULT`, never a host read or write out of bounds.

use crate::abi::Errno;

/// The guest's memory for the length of one host call.
pub struct GuestMemory<'a>(pub &'a mut [u8]);

impl GuestMemory<'_> {
    /// The `len` bytes at `ptr`.
    pub fn slice(&self, ptr: u32, len: u32) -> Result<&[u8], Errno> {
        let start = ptr as usize;
        let end = start.checked_add(len as usize).ok_or(Errno::FAULT)?;
        self.0.get(start..end).ok_or(Errno::FAULT)
    }

    /// The `len` bytes at `ptr`, writable.
    pub fn slice_mut(&mut self, ptr: u32, len: u32) -> Result<&mut [u8], Errno> {
        let start = ptr as usize;
        let end = start.checked_add(len as usize).ok_or(Errno::FAULT)?;
        self.0.get_mut(start..end).ok_or(Errno::FAULT)
    }

    /// Copies `data` to `ptr`.
    pub fn write(&mut self, ptr: u32, data: &[u8]) -> Result<(), Errno> {
        let len = u32::try_from(data.len()).map_err(|_| Errno::FAULT)?;
        self.slice_mut(ptr, len)?.copy_from_slice(data);
        Ok(())
    }

    /// A little-endian `u32` at `ptr`.
    pub fn u32(&self, ptr: u32) -> Result<u32, Errno> {
        let b = self.slice(ptr, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A little-endian `u64` at `ptr`.
    pub fn u64(&self, ptr: u32) -> Result<u64, Errno> {
        let b = self.slice(ptr, 8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A little-endian `u16` at `ptr`.
    pub fn u16(&self, ptr: u32) -> Result<u16, Errno> {
        let b = self.slice(ptr, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// Writes a little-endian `u32` to `ptr`.
    pub fn put_u32(&mut self, ptr: u32, v: u32) -> Result<(), Errno> {
        self.write(ptr, &v.to_le_bytes())
    }

    /// Writes a little-endian `u64` to `ptr`.
    pub fn put_u64(&mut self, ptr: u32, v: u64) -> Result<(), Errno> {
        self.write(ptr, &v.to_le_bytes())
    }

    /// A path argument: UTF-8 (preview1 paths are strings).
    pub fn str(&self, ptr: u32, len: u32) -> Result<String, Errno> {
        let b = self.slice(ptr, len)?;
        String::from_utf8(b.to_vec()).map_err(|_| Errno::ILSEQ)
    }

    /// The `(ptr, len)` pairs of an iovec array.
    pub fn iovecs(&self, iovs: u32, count: u32) -> Result<Vec<(u32, u32)>, Errno> {
        (0..count)
            .map(|i| {
                let at = iovs.checked_add(i.checked_mul(8).ok_or(Errno::FAULT)?);
                let at = at.ok_or(Errno::FAULT)?;
                Ok((self.u32(at)?, self.u32(at + 4)?))
            })
            .collect()
    }
}
