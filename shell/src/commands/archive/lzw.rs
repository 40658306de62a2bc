//! Decompression of `compress`'s `.Z` files (LZW), which GNU `gzip -d` and
//! `zcat` read besides gzip's own format.
//!
//! The format (as compress 4 writes it and gzip's `unlzw` reads it): the
//! magic `1f 9d`, a flags byte (the largest code width in its low five
//! bits, "block mode" in its top bit: code 256 then clears the table), and
//! codes packed from the least significant bit, nine bits wide at first and
//! one bit wider each time the table fills the current width. compress
//! writes codes in groups of eight: when the width changes (or the table is
//! cleared) the rest of the current group is padding, so the reader skips
//! to the next multiple of eight codes of the old width.

/// The magic bytes of a `.Z` file.
pub(crate) const MAGIC: [u8; 2] = [0x1f, 0x9d];

/// The largest code width gzip reads.
const MAX_BITS: u32 = 16;
/// The first width.
const INIT_BITS: u32 = 9;
/// Block mode's table-clearing code.
const CLEAR: usize = 256;
/// gzip's word for any damage.
const CORRUPT: &str = "corrupt input.";

/// Where the codes are read from: the data after the header, a bit
/// position into it, and the bit where the current width's groups start.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    group_start: usize,
}

impl Bits<'_> {
    /// The next `n`-bit code, or `None` when fewer bits are left (a short
    /// last code is the padding of the final byte).
    fn code(&mut self, n: u32) -> Option<usize> {
        let n = n as usize;
        if self.pos + n > self.data.len() * 8 {
            return None;
        }
        let mut v = 0usize;
        for k in 0..n {
            let bit = self.pos + k;
            if self.data[bit / 8] >> (bit % 8) & 1 == 1 {
                v |= 1 << k;
            }
        }
        self.pos += n;
        Some(v)
    }

    /// Skips the rest of the current group of eight `n`-bit codes: where
    /// compress changed width or cleared the table.
    fn skip_group(&mut self, n: u32) {
        let group = 8 * n as usize;
        let used = (self.pos - self.group_start) % group;
        if used != 0 {
            self.pos += group - used;
        }
        self.group_start = self.pos;
    }
}

/// Decompresses a whole `.Z` file (magic included).
pub(crate) fn decompress(data: &[u8]) -> Result<Vec<u8>, &'static str> {
    let (Some(&flags), true) = (data.get(2), data.starts_with(&MAGIC)) else {
        return Err(CORRUPT);
    };
    let max_bits = u32::from(flags & 0x1f);
    let block_mode = flags & 0x80 != 0;
    if !(INIT_BITS..=MAX_BITS).contains(&max_bits) {
        return Err(CORRUPT);
    }
    let max_max_code = 1usize << max_bits;
    let first_free = if block_mode { CLEAR + 1 } else { CLEAR };
    let mut prefix = vec![0u16; max_max_code];
    let mut suffix: Vec<u8> = (0..max_max_code).map(|c| c as u8).collect();
    let mut bits = Bits {
        data: &data[3..],
        pos: 0,
        group_start: 0,
    };
    let mut n_bits = INIT_BITS;
    let mut max_code = (1usize << n_bits) - 1;
    let mut free = first_free;
    let mut out = Vec::with_capacity(data.len() * 3);
    let mut old: Option<usize> = None;
    let mut fin = 0u8;
    let mut stack = Vec::new();
    loop {
        // gzip's rule, which compress's writer follows too: with `-b9` the
        // full table still widens the codes once.
        if free > max_code {
            bits.skip_group(n_bits);
            n_bits += 1;
            max_code = if n_bits == max_bits {
                max_max_code
            } else {
                (1 << n_bits) - 1
            };
        }
        let Some(code) = bits.code(n_bits) else {
            return Ok(out);
        };
        let Some(prev) = old else {
            if code >= CLEAR {
                return Err(CORRUPT);
            }
            fin = code as u8;
            old = Some(code);
            out.push(fin);
            continue;
        };
        if code == CLEAR && block_mode {
            free = first_free - 1;
            bits.skip_group(n_bits);
            n_bits = INIT_BITS;
            max_code = (1 << n_bits) - 1;
            continue;
        }
        // A small file can expand a thousandfold: a run's deadline and
        // memory limit must be able to stop it.
        crate::cancel::sometimes();
        let mut c = code;
        stack.clear();
        if c >= free {
            // The code being defined right now (`KwKwK`).
            if c > free {
                return Err(CORRUPT);
            }
            stack.push(fin);
            c = prev;
        }
        while c >= CLEAR {
            stack.push(suffix[c]);
            c = usize::from(prefix[c]);
        }
        fin = suffix[c];
        stack.push(fin);
        out.extend(stack.iter().rev());
        if free < max_max_code {
            prefix[free] = prev as u16;
            suffix[free] = fin;
            free += 1;
        }
        old = Some(code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_compress_writes() {
        // `printf 'hello hello hello world\n' | compress`: it uses a code
        // while defining it (`KwKwK`).
        let z = [
            0x1f, 0x9d, 0x90, 0x68, 0xca, 0xb0, 0x61, 0xf3, 0x06, 0x44, 0xc0, 0x81, 0x05, 0x0f,
            0x12, 0x04, 0x71, 0xe7, 0x8d, 0x1c, 0x36, 0x64, 0x14, 0x00,
        ];
        assert_eq!(decompress(&z).unwrap(), b"hello hello hello world\n");
    }

    #[test]
    fn refuses_damage() {
        assert_eq!(decompress(&[0x1f, 0x9d]), Err(CORRUPT));
        assert_eq!(decompress(&[0x1f, 0x9d, 0x99, 0xff, 0xff]), Err(CORRUPT));
        // A first code past the byte values.
        assert_eq!(decompress(&[0x1f, 0x9d, 0x90, 0xff, 0xff]), Err(CORRUPT));
        assert_eq!(decompress(&[0x1f, 0x9d, 0x90]), Ok(Vec::new()));
    }
}
