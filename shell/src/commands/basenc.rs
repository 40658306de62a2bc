//! `base32` and `basenc` (coreutils 9.1): RFC 4648 encodings (base64,
//! base64url, base32, base32hex, base16) and base2 in either bit order,
//! encoding wrapped at `-w` columns or decoding (`-d`, `-i` to skip what is
//! not in the alphabet). One bit-packing engine serves every alphabet.

use super::common::GnuError;
use super::{Command, CommandCtx};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::declared("base32", Base32Opt::HELP, base32),
    Command::declared("basenc", BasencOpt::HELP, basenc),
];

declare_options! {
    /// base32's options.
    pub(crate) enum Base32Opt {
        usage: "Usage: base32 [OPTION]... [FILE]",
        about: "Base32 encode or decode FILE, or standard input, to standard output.

With no FILE, or when FILE is -, read standard input.
",
        after: "",
        column: 23,
        rows: [
            Decode: 'd' "decode" none => "decode data",
            IgnoreGarbage: 'i' "ignore-garbage" none => "when decoding, ignore non-alphabet characters",
            Wrap: 'w' "wrap" required "COLS" => "wrap encoded lines after COLS character (default 76).
                Use 0 to disable line wrapping",
        ],
    }
}

declare_options! {
    /// basenc's options.
    pub(crate) enum BasencOpt {
        usage: "Usage: basenc [OPTION]... [FILE]",
        about: "basenc encode or decode FILE, or standard input, to standard output.

With no FILE, or when FILE is -, read standard input.
",
        after: "",
        column: 23,
        rows: [
            Base64: - "base64" none => "same as 'base64' program (RFC4648 section 4)",
            Base64url: - "base64url" none => "file- and url-safe base64 (RFC4648 section 5)",
            Base32: - "base32" none => "same as 'base32' program (RFC4648 section 6)",
            Base32hex: - "base32hex" none => "extended hex alphabet base32 (RFC4648 section 7)",
            Base16: - "base16" none => "hex encoding (RFC4648 section 8)",
            Base2msbf: - "base2msbf" none => "bit string with most significant bit (msb) first",
            Base2lsbf: - "base2lsbf" none => "bit string with least significant bit (lsb) first",
            Decode: 'd' "decode" none => "decode data",
            IgnoreGarbage: 'i' "ignore-garbage" none => "when decoding, ignore non-alphabet characters",
            Wrap: 'w' "wrap" required "COLS" => "wrap encoded lines after COLS character (default 76).
                Use 0 to disable line wrapping",
            Z85: - "z85" none => "ascii85-like encoding (ZeroMQ spec:32/Z85);
                when encoding, input length must be a multiple of 4;
                when decoding, input length must be a multiple of 5",
        ],
    }
}

/// One encoding: its alphabet, bits per character, and the characters of
/// one padded group (0: no padding).
#[derive(Clone, Copy)]
struct Encoding {
    alphabet: &'static [u8],
    bits: u32,
    group: usize,
    /// base2lsbf: each byte's bits low first.
    lsb_first: bool,
}

const BASE64: Encoding = Encoding {
    alphabet: b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    bits: 6,
    group: 4,
    lsb_first: false,
};
const BASE64URL: Encoding = Encoding {
    alphabet: b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    ..BASE64
};
const BASE32: Encoding = Encoding {
    alphabet: b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    bits: 5,
    group: 8,
    lsb_first: false,
};
const BASE32HEX: Encoding = Encoding {
    alphabet: b"0123456789ABCDEFGHIJKLMNOPQRSTUV",
    ..BASE32
};
const BASE16: Encoding = Encoding {
    alphabet: b"0123456789ABCDEF",
    bits: 4,
    group: 0,
    lsb_first: false,
};
const BASE2MSB: Encoding = Encoding {
    alphabet: b"01",
    bits: 1,
    group: 0,
    lsb_first: false,
};
const BASE2LSB: Encoding = Encoding {
    lsb_first: true,
    ..BASE2MSB
};

impl Encoding {
    fn encode(self, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let (mut acc, mut n) = (0u32, 0u32);
        for &b in data {
            let b = if self.lsb_first { b.reverse_bits() } else { b };
            acc = (acc << 8) | b as u32;
            n += 8;
            while n >= self.bits {
                n -= self.bits;
                out.push(self.alphabet[((acc >> n) & ((1 << self.bits) - 1)) as usize]);
            }
            acc &= (1 << n) - 1;
        }
        if n > 0 {
            out.push(self.alphabet[((acc << (self.bits - n)) & ((1 << self.bits) - 1)) as usize]);
        }
        if self.group > 0 {
            while !out.len().is_multiple_of(self.group) {
                out.push(b'=');
            }
        }
        out
    }

    /// The decoded bytes, and whether the input was valid.
    fn decode(self, text: &[u8], ignore_garbage: bool) -> (Vec<u8>, bool) {
        let value = |c: u8| self.alphabet.iter().position(|a| *a == c);
        let mut chars: Vec<u8> = Vec::with_capacity(text.len());
        for &c in text {
            if c == b'\n' || (ignore_garbage && c != b'=' && value(c).is_none()) {
                continue;
            }
            chars.push(c);
        }
        let mut out = Vec::new();
        let (mut acc, mut n) = (0u32, 0u32);
        let mut valid = true;
        for (i, &c) in chars.iter().enumerate() {
            if c == b'=' && self.group > 0 {
                // Padding ends the group; what follows must be padding too.
                if chars[i..].iter().any(|c| *c != b'=') {
                    valid = false;
                }
                break;
            }
            let Some(v) = value(c) else {
                valid = false;
                break;
            };
            acc = (acc << self.bits) | v as u32;
            n += self.bits;
            if n >= 8 {
                n -= 8;
                let b = ((acc >> n) & 0xff) as u8;
                out.push(if self.lsb_first { b.reverse_bits() } else { b });
                acc &= (1 << n) - 1;
            }
        }
        if valid && self.group > 0 && !chars.len().is_multiple_of(self.group) {
            valid = false;
            // coreutils decodes base32 a whole group at a time: the bytes
            // of a last, short group are not written (base64's are).
            if self.bits == 5 {
                let whole = chars.len() / self.group * self.group;
                let bytes = whole / 8 * 5;
                out.truncate(bytes);
            }
        }
        if valid && self.group == 0 && n != 0 {
            valid = false;
        }
        (out, valid)
    }
}

/// What both commands share once their options are read.
struct Job {
    encoding: Encoding,
    decode: bool,
    ignore_garbage: bool,
    wrap: usize,
}

fn run(ctx: &mut CommandCtx<'_>, job: Job, operands: &[String]) -> i32 {
    if operands.len() > 1 {
        ctx.gnu_error(format_args!(
            "extra operand {}",
            super::common::quote_locale(&operands[1])
        ));
        super::common::try_help(ctx);
        return 1;
    }
    let name = operands.first().map_or("-", String::as_str);
    let data = if name == "-" {
        let mut d = Vec::new();
        let _ = ctx.stdin.read_to_end(&mut d);
        d
    } else {
        match ctx.fs.read(&ctx.path(name)) {
            Ok(d) => d,
            Err(e) => {
                ctx.gnu_error(format_args!("{}: {e}", super::common::quotef(name)));
                return 1;
            }
        }
    };
    if job.decode {
        let (out, valid) = job.encoding.decode(&data, job.ignore_garbage);
        let _ = ctx.stdout.write_all(&out);
        if !valid {
            ctx.gnu_error("invalid input");
            return 1;
        }
        return 0;
    }
    let encoded = job.encoding.encode(&data);
    let mut out = Vec::with_capacity(encoded.len() + encoded.len() / 76 + 1);
    if job.wrap == 0 {
        out.extend_from_slice(&encoded);
    } else {
        for line in encoded.chunks(job.wrap) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    let _ = ctx.stdout.write_all(&out);
    0
}

/// Z85's characters, value order (ZeroMQ RFC 32).
const Z85: &[u8; 85] =
    b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/// `basenc --z85`: four bytes as five characters; input whose length is no
/// multiple of the group is refused as coreutils refuses it.
fn z85_run(ctx: &mut CommandCtx<'_>, decode: bool, wrap: usize, operands: &[String]) -> i32 {
    let name = operands.first().map_or("-", String::as_str);
    let data = if name == "-" {
        let mut d = Vec::new();
        let _ = ctx.stdin.read_to_end(&mut d);
        d
    } else {
        match ctx.fs.read(&ctx.path(name)) {
            Ok(d) => d,
            Err(e) => {
                ctx.gnu_error(format_args!("{}: {e}", super::common::quotef(name)));
                return 1;
            }
        }
    };
    if decode {
        let chars: Vec<u8> = data.iter().copied().filter(|c| *c != b'\n').collect();
        let mut out = Vec::new();
        for group in chars.chunks(5) {
            if group.len() < 5 {
                let _ = ctx.stdout.write_all(&out);
                ctx.gnu_error("invalid input (length must be multiple of 5 characters)");
                return 1;
            }
            let mut v: u64 = 0;
            for c in group {
                let Some(d) = Z85.iter().position(|z| z == c) else {
                    let _ = ctx.stdout.write_all(&out);
                    ctx.gnu_error("invalid input");
                    return 1;
                };
                v = v * 85 + d as u64;
            }
            out.extend_from_slice(&(v as u32).to_be_bytes());
        }
        let _ = ctx.stdout.write_all(&out);
        return 0;
    }
    if !data.len().is_multiple_of(4) {
        ctx.gnu_error("invalid input (length must be multiple of 4 characters)");
        return 1;
    }
    let mut encoded = Vec::new();
    for group in data.chunks(4) {
        let mut v = u32::from_be_bytes([group[0], group[1], group[2], group[3]]) as u64;
        let mut five = [0u8; 5];
        for slot in five.iter_mut().rev() {
            *slot = Z85[(v % 85) as usize];
            v /= 85;
        }
        encoded.extend_from_slice(&five);
    }
    let mut out = Vec::new();
    if wrap == 0 {
        out = encoded;
    } else {
        for line in encoded.chunks(wrap) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    let _ = ctx.stdout.write_all(&out);
    0
}

/// `-w COLS`, in coreutils' words when it is no count.
fn wrap(ctx: &mut CommandCtx<'_>, v: &str) -> Result<usize, i32> {
    v.parse().map_err(|_| {
        ctx.gnu_error(format_args!(
            "invalid wrap size: {}",
            super::common::quote_locale(v)
        ));
        1
    })
}

/// `base32 [OPTION]... [FILE]`
pub fn base32(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = Base32Opt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let mut job = Job {
        encoding: BASE32,
        decode: false,
        ignore_garbage: false,
        wrap: 76,
    };
    for (opt, v) in &p.opts {
        match opt {
            Base32Opt::Decode => job.decode = true,
            Base32Opt::IgnoreGarbage => job.ignore_garbage = true,
            Base32Opt::Wrap => match wrap(ctx, v.as_deref().unwrap_or_default()) {
                Ok(w) => job.wrap = w,
                Err(status) => return status,
            },
        }
    }
    run(ctx, job, &p.operands)
}

/// `basenc [OPTION]... [FILE]`
pub fn basenc(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = BasencOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let mut encoding = None;
    let mut z85 = false;
    let (mut decode, mut ignore_garbage, mut wrap_cols) = (false, false, 76);
    for (opt, v) in &p.opts {
        match opt {
            BasencOpt::Base64 => encoding = Some(BASE64),
            BasencOpt::Base64url => encoding = Some(BASE64URL),
            BasencOpt::Base32 => encoding = Some(BASE32),
            BasencOpt::Base32hex => encoding = Some(BASE32HEX),
            BasencOpt::Base16 => encoding = Some(BASE16),
            BasencOpt::Base2msbf => encoding = Some(BASE2MSB),
            BasencOpt::Base2lsbf => encoding = Some(BASE2LSB),
            BasencOpt::Z85 => z85 = true,
            BasencOpt::Decode => decode = true,
            BasencOpt::IgnoreGarbage => ignore_garbage = true,
            BasencOpt::Wrap => match wrap(ctx, v.as_deref().unwrap_or_default()) {
                Ok(w) => wrap_cols = w,
                Err(status) => return status,
            },
        }
    }
    if z85 {
        return z85_run(ctx, decode, wrap_cols, &p.operands);
    }
    let Some(encoding) = encoding else {
        super::common::usage_error(ctx, "missing encoding type");
        return 1;
    };
    let job = Job {
        encoding,
        decode,
        ignore_garbage,
        wrap: wrap_cols,
    };
    run(ctx, job, &p.operands)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors() {
        for (plain, b32, b64) in [
            ("", "", ""),
            ("f", "MY======", "Zg=="),
            ("fo", "MZXQ====", "Zm8="),
            ("foo", "MZXW6===", "Zm9v"),
            ("foob", "MZXW6YQ=", "Zm9vYg=="),
            ("fooba", "MZXW6YTB", "Zm9vYmE="),
            ("foobar", "MZXW6YTBOI======", "Zm9vYmFy"),
        ] {
            assert_eq!(BASE32.encode(plain.as_bytes()), b32.as_bytes());
            assert_eq!(BASE64.encode(plain.as_bytes()), b64.as_bytes());
            assert_eq!(
                BASE32.decode(b32.as_bytes(), false),
                (plain.as_bytes().to_vec(), true)
            );
        }
        assert_eq!(BASE2LSB.encode(b"a"), b"10000110");
        assert_eq!(BASE16.decode(b"6162", false), (b"ab".to_vec(), true));
    }
}
