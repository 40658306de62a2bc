//! The long listing of `tar tv` (and `tar cvv`/`xvv`), in GNU tar's layout:
//!
//! ```text
//! -rw-r--r-- sandbox/sandbox   6 2024-01-01 00:00 ./a.txt
//! ```

/// Column state shared across the lines of one listing: GNU widens the
/// owner/size column when an entry needs more room and keeps it wide.
pub(crate) struct Listing {
    ugswidth: usize,
    /// Times are shown in local time: the zone `TZ` names.
    zone: crate::time::Zone,
}

/// What one line shows.
pub(crate) struct LineInfo<'a> {
    pub(crate) typeflag: u8,
    pub(crate) mode: u32,
    pub(crate) user: &'a str,
    pub(crate) group: &'a str,
    pub(crate) size: u64,
    pub(crate) mtime: i64,
    pub(crate) name: &'a str,
    pub(crate) link: Option<&'a str>,
}

impl Listing {
    /// A listing in the zone `TZ` in `env` names.
    pub(crate) fn new(env: &[(String, String)]) -> Listing {
        Listing {
            ugswidth: 19,
            zone: crate::time::Zone::from_env(env),
        }
    }

    /// One line, without the newline.
    pub(crate) fn line(&mut self, e: &LineInfo<'_>) -> String {
        let size = e.size.to_string();
        let pad = e.user.len() + 1 + e.group.len() + 1 + size.len();
        if pad > self.ugswidth {
            self.ugswidth = pad;
        }
        let width = self.ugswidth - pad + size.len();
        let when = crate::time::strftime("%4Y-%m-%d %H:%M", &self.zone.local(e.mtime, 0));
        let mut out = format!(
            "{} {}/{} {:>width$} {when} {}",
            mode_string(e.typeflag, e.mode),
            e.user,
            e.group,
            size,
            e.name,
        );
        match (e.typeflag, e.link) {
            (b'2', Some(l)) => {
                out.push_str(" -> ");
                out.push_str(l);
            }
            (b'1', Some(l)) => {
                out.push_str(" link to ");
                out.push_str(l);
            }
            _ => {}
        }
        out
    }
}

/// `drwxr-xr-x`-style mode text for a tar type flag and permission bits.
pub(crate) fn mode_string(typeflag: u8, mode: u32) -> String {
    let kind = match typeflag {
        b'0' | 0 | b'7' => '-',
        b'1' => 'h',
        b'2' => 'l',
        b'3' => 'c',
        b'4' => 'b',
        b'5' => 'd',
        b'6' => 'p',
        _ => '?',
    };
    let mut s = String::with_capacity(10);
    s.push(kind);
    let bit = |m: u32, c: char| if mode & m != 0 { c } else { '-' };
    let special = |x: u32, sp: u32, on: char, off: char| match (mode & x != 0, mode & sp != 0) {
        (true, true) => on,
        (false, true) => off,
        (true, false) => 'x',
        (false, false) => '-',
    };
    s.push(bit(0o400, 'r'));
    s.push(bit(0o200, 'w'));
    s.push(special(0o100, 0o4000, 's', 'S'));
    s.push(bit(0o040, 'r'));
    s.push(bit(0o020, 'w'));
    s.push(special(0o010, 0o2000, 's', 'S'));
    s.push(bit(0o004, 'r'));
    s.push(bit(0o002, 'w'));
    s.push(special(0o001, 0o1000, 't', 'T'));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnu_layout() {
        let mut l = Listing::new(&[]);
        let info = LineInfo {
            typeflag: b'5',
            mode: 0o755,
            user: "root",
            group: "root",
            size: 0,
            mtime: 1_796_267_700,
            name: "./",
            link: None,
        };
        assert_eq!(
            l.line(&info),
            "drwxr-xr-x root/root         0 2026-12-03 03:15 ./"
        );
        let info = LineInfo {
            typeflag: b'0',
            mode: 0o644,
            user: "0",
            group: "0",
            size: 3,
            mtime: 0,
            name: "ok",
            link: None,
        };
        assert_eq!(
            l.line(&info),
            "-rw-r--r-- 0/0               3 1970-01-01 00:00 ok"
        );
        let info = LineInfo {
            typeflag: b'2',
            mode: 0o777,
            size: 0,
            name: "./lnk",
            link: Some("a/x"),
            ..info
        };
        assert!(l.line(&info).ends_with(" ./lnk -> a/x"));
        assert_eq!(mode_string(b'5', 0o1777), "drwxrwxrwt");
        assert_eq!(mode_string(b'0', 0o4644), "-rwSr--r--");
    }
}
