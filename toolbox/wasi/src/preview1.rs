//! The `wasi_snapshot_preview1` imports, one `Linker::func_wrap` each, over
//! a [`Guest`]. Arguments are checked, pointers bounds-checked
//! ([`GuestMemory`]); an operation the sandbox does not offer (sockets)
//! answers `ENOTSUP`. A host call that sees the run cancelled or past its
//! deadline ends the guest with [`Stop::Limit`].

use std::time::Duration;

use wasmtime::{Caller, Linker};

use crate::abi::{self, Errno};
use crate::guest::{Guest, Handle, Stop, filestat, ns_timestamp};
use crate::memory::GuestMemory;

const MODULE: &str = "wasi_snapshot_preview1";

/// Why a host call failed: an errno for the guest, or the end of the run.
enum Fail {
    Errno(Errno),
    Stop(Stop),
}

impl From<Errno> for Fail {
    fn from(e: Errno) -> Fail {
        Fail::Errno(e)
    }
}

impl From<Stop> for Fail {
    fn from(s: Stop) -> Fail {
        Fail::Stop(s)
    }
}

impl From<sandkeep_shell::FsError> for Fail {
    fn from(e: sandkeep_shell::FsError) -> Fail {
        Fail::Errno(e.into())
    }
}

type Call = Result<(), Fail>;

/// Runs one host call with the guest's memory and state; maps its outcome
/// to the errno the guest sees or to a trap that ends the run.
fn with(
    caller: &mut Caller<'_, Guest>,
    f: impl FnOnce(&mut GuestMemory<'_>, &mut Guest) -> Call,
) -> wasmtime::Result<i32> {
    let Some(memory) = caller.data().memory else {
        return Ok(i32::from(Errno::FAULT.0));
    };
    let (bytes, guest) = memory.data_and_store_mut(caller);
    if let Err(stop) = guest.check() {
        return Err(wasmtime::Error::new(stop));
    }
    let mut mem = GuestMemory(bytes);
    match f(&mut mem, guest) {
        Ok(()) => Ok(0),
        Err(Fail::Errno(e)) => Ok(i32::from(e.0)),
        Err(Fail::Stop(s)) => Err(wasmtime::Error::new(s)),
    }
}

/// Writes a list of NUL-terminated strings and the pointers to them
/// (`args_get`, `environ_get`).
fn put_strings(mem: &mut GuestMemory<'_>, list: &[Vec<u8>], ptrs: u32, buf: u32) -> Call {
    let mut at = buf;
    for (i, s) in list.iter().enumerate() {
        mem.put_u32(ptrs + 4 * i as u32, at)?;
        mem.write(at, s)?;
        mem.write(at + s.len() as u32, &[0])?;
        at += s.len() as u32 + 1;
    }
    Ok(())
}

fn put_sizes(mem: &mut GuestMemory<'_>, list: &[Vec<u8>], count: u32, size: u32) -> Call {
    mem.put_u32(count, list.len() as u32)?;
    let bytes: usize = list.iter().map(|s| s.len() + 1).sum();
    mem.put_u32(size, u32::try_from(bytes).map_err(|_| Errno::FAULT)?)?;
    Ok(())
}

/// The guest's buffers of an iovec array, copied out (the guest's memory
/// and the host state cannot be borrowed together while a stream blocks).
fn gather(mem: &GuestMemory<'_>, iovs: u32, count: u32) -> Result<Vec<u8>, Errno> {
    let mut out = Vec::new();
    for (ptr, len) in mem.iovecs(iovs, count)? {
        out.extend_from_slice(mem.slice(ptr, len)?);
    }
    Ok(out)
}

fn fd_read(
    mem: &mut GuestMemory<'_>,
    g: &mut Guest,
    fd: u32,
    iovs: u32,
    n: u32,
    at: Option<u64>,
    out: u32,
) -> Call {
    let vecs = mem.iovecs(iovs, n)?;
    let total: usize = vecs.iter().map(|(_, l)| *l as usize).sum();
    // One host buffer, then copied into the guest's buffers in order.
    let mut buf = vec![0u8; total.min(16 << 20)];
    let read = {
        let mut parts: Vec<&mut [u8]> = vec![&mut buf[..]];
        g.read(fd, &mut parts, at)?
    };
    g.check()?;
    let mut done = 0;
    for (ptr, len) in vecs {
        if done == read {
            break;
        }
        let take = (len as usize).min(read - done);
        mem.write(ptr, &buf[done..done + take])?;
        done += take;
    }
    mem.put_u32(out, read as u32)?;
    Ok(())
}

fn fd_write(
    mem: &mut GuestMemory<'_>,
    g: &mut Guest,
    fd: u32,
    iovs: u32,
    n: u32,
    at: Option<u64>,
    out: u32,
) -> Call {
    let data = gather(mem, iovs, n)?;
    let written = g.write(fd, &data, at);
    // A full output (the run's cap) trips the run: end it here rather than
    // let the guest go on without its output.
    g.check()?;
    mem.put_u32(out, written? as u32)?;
    Ok(())
}

fn fdstat(mem: &mut GuestMemory<'_>, g: &Guest, fd: u32, out: u32) -> Call {
    let (filetype, flags, rights) = match g.fds.get(&fd).ok_or(Errno::BADF)? {
        Handle::Stdin => (0, 0, abi::RIGHT_FD_READ),
        Handle::Stdout | Handle::Stderr => (0, 0, abi::RIGHT_FD_WRITE),
        Handle::Dir { .. } => (abi::FILETYPE_DIRECTORY, 0, abi::RIGHTS_ALL),
        Handle::File(f) => {
            let mut rights = abi::RIGHTS_ALL & !(abi::RIGHT_FD_READ | abi::RIGHT_FD_WRITE);
            if f.read {
                rights |= abi::RIGHT_FD_READ;
            }
            if f.write {
                rights |= abi::RIGHT_FD_WRITE;
            }
            let flags = if f.append { abi::FDFLAG_APPEND } else { 0 };
            (4, flags, rights)
        }
        // Seek rights keep a device from looking like a terminal to
        // wasi-libc's isatty.
        Handle::Stream { .. } => (abi::FILETYPE_CHAR_DEVICE, 0, abi::RIGHTS_ALL),
    };
    let mut b = [0u8; abi::FDSTAT_SIZE];
    b[0] = filetype;
    b[2..4].copy_from_slice(&flags.to_le_bytes());
    b[8..16].copy_from_slice(&rights.to_le_bytes());
    b[16..24].copy_from_slice(&rights.to_le_bytes());
    mem.write(out, &b)?;
    Ok(())
}

fn seek(g: &mut Guest, fd: u32, offset: i64, whence: u32) -> Result<u64, Fail> {
    let fs = g.fs.clone();
    match g.fds.get_mut(&fd).ok_or(Errno::BADF)? {
        Handle::File(f) => {
            let base = match whence {
                0 => 0,
                1 => f.pos as i64,
                2 => fs.metadata(&f.path).map(|m| m.size as i64).unwrap_or(0),
                _ => return Err(Errno::INVAL.into()),
            };
            let pos = base
                .checked_add(offset)
                .filter(|p| *p >= 0)
                .ok_or(Errno::INVAL)?;
            f.pos = pos as u64;
            Ok(f.pos)
        }
        Handle::Dir { .. } => Err(Errno::BADF.into()),
        _ => Err(Errno::SPIPE.into()),
    }
}

fn readdir(
    mem: &mut GuestMemory<'_>,
    g: &Guest,
    fd: u32,
    buf: u32,
    len: u32,
    cookie: u64,
    out: u32,
) -> Call {
    let Handle::Dir { path } = g.fds.get(&fd).ok_or(Errno::BADF)? else {
        return Err(Errno::NOTDIR.into());
    };
    let own = g.stat(path, true)?.ino;
    let mut entries: Vec<(String, u64, u8)> = vec![
        (".".into(), own, abi::FILETYPE_DIRECTORY),
        ("..".into(), own, abi::FILETYPE_DIRECTORY),
    ];
    match g.overlay_dir(path).filter(|_| path != "/") {
        Some(names) => entries.extend(names.into_iter().map(|n| (n, 1, 4))),
        None => {
            for (name, m) in g.fs.read_dir_metadata(path)? {
                entries.push((name, m.ino, abi::filetype(m.kind)));
            }
        }
    }
    let mut bytes = Vec::new();
    let start = usize::try_from(cookie).unwrap_or(usize::MAX);
    for (i, (name, ino, kind)) in entries.iter().enumerate().skip(start) {
        let mut head = [0u8; abi::DIRENT_SIZE];
        head[0..8].copy_from_slice(&(i as u64 + 1).to_le_bytes());
        head[8..16].copy_from_slice(&ino.to_le_bytes());
        head[16..20].copy_from_slice(&(name.len() as u32).to_le_bytes());
        head[20] = *kind;
        bytes.extend_from_slice(&head);
        bytes.extend_from_slice(name.as_bytes());
        if bytes.len() >= len as usize {
            break;
        }
    }
    // A full buffer tells the guest to call again from its last cookie.
    bytes.truncate(len as usize);
    mem.write(buf, &bytes)?;
    mem.put_u32(out, bytes.len() as u32)?;
    Ok(())
}

/// `poll_oneoff`: descriptors are always ready (reads block in `fd_read`);
/// a clock waits in slices, checking the run, never past its deadline.
fn poll(
    mem: &mut GuestMemory<'_>,
    g: &mut Guest,
    subs: u32,
    events: u32,
    n: u32,
    out: u32,
) -> Call {
    if n == 0 {
        return Err(Errno::INVAL.into());
    }
    let mut ready: Vec<(u64, u8)> = Vec::new();
    let mut clocks: Vec<(u64, u64)> = Vec::new();
    for i in 0..n {
        let at = subs + i * abi::SUBSCRIPTION_SIZE as u32;
        let userdata = mem.u64(at)?;
        match mem.slice(at + 8, 1)?[0] {
            abi::EVENT_CLOCK => {
                let id = mem.u32(at + 16)?;
                let timeout = mem.u64(at + 24)?;
                let flags = mem.u16(at + 40)?;
                let wait = if flags & abi::SUBCLOCK_ABSTIME != 0 {
                    timeout.saturating_sub(g.clock(id)?)
                } else {
                    timeout
                };
                clocks.push((userdata, wait));
            }
            kind @ (abi::EVENT_FD_READ | abi::EVENT_FD_WRITE) => ready.push((userdata, kind)),
            _ => return Err(Errno::INVAL.into()),
        }
    }
    let mut fired: Vec<(u64, u8)> = ready;
    if fired.is_empty() {
        let wait = clocks.iter().map(|(_, w)| *w).min().unwrap_or(0);
        let start = std::time::Instant::now();
        let total = Duration::from_nanos(wait);
        loop {
            g.check()?;
            let elapsed = start.elapsed();
            if elapsed >= total {
                break;
            }
            let mut slice = (total - elapsed).min(crate::limits::TICK);
            if let Some(left) = g.control.remaining() {
                // Wake at the deadline to end the run on time.
                slice = slice.min(left.max(Duration::from_micros(100)));
            }
            std::thread::sleep(slice);
        }
        fired = clocks
            .iter()
            .filter(|(_, w)| *w <= wait)
            .map(|(u, _)| (*u, abi::EVENT_CLOCK))
            .collect();
    }
    for (i, (userdata, kind)) in fired.iter().enumerate() {
        let mut e = [0u8; abi::EVENT_SIZE];
        e[0..8].copy_from_slice(&userdata.to_le_bytes());
        e[10] = *kind;
        if *kind != abi::EVENT_CLOCK {
            e[16..24].copy_from_slice(&1u64.to_le_bytes());
        }
        mem.write(events + (i * abi::EVENT_SIZE) as u32, &e)?;
    }
    mem.put_u32(out, fired.len() as u32)?;
    Ok(())
}

fn set_times(g: &Guest, path: &str, follow: bool, mtim: u64, flags: u16) -> Call {
    let when = if flags & abi::FST_MTIM_NOW != 0 {
        Some(g.control.clock.now())
    } else if flags & abi::FST_MTIM != 0 {
        Some(ns_timestamp(mtim))
    } else {
        None
    };
    if flags & abi::FST_MTIM != 0 && flags & abi::FST_MTIM_NOW != 0 {
        return Err(Errno::INVAL.into());
    }
    if flags & abi::FST_ATIM != 0 && flags & abi::FST_ATIM_NOW != 0 {
        return Err(Errno::INVAL.into());
    }
    match when {
        Some(t) if follow => g.fs.set_mtime(path, t)?,
        Some(t) => g.fs.set_symlink_mtime(path, t)?,
        // Only the access time: the tree keeps none, so only check the node.
        None => {
            g.stat(path, follow)?;
        }
    }
    Ok(())
}

/// Every preview1 function the sandbox offers, added to `linker`.
pub fn add_to_linker(linker: &mut Linker<Guest>) -> wasmtime::Result<()> {
    linker.func_wrap(
        MODULE,
        "args_get",
        |mut c: Caller<'_, Guest>, argv: u32, buf: u32| {
            with(&mut c, |m, g| put_strings(m, &g.args, argv, buf))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "args_sizes_get",
        |mut c: Caller<'_, Guest>, count: u32, size: u32| {
            with(&mut c, |m, g| put_sizes(m, &g.args, count, size))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "environ_get",
        |mut c: Caller<'_, Guest>, env: u32, buf: u32| {
            with(&mut c, |m, g| put_strings(m, &g.env, env, buf))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "environ_sizes_get",
        |mut c: Caller<'_, Guest>, count: u32, size: u32| {
            with(&mut c, |m, g| put_sizes(m, &g.env, count, size))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "clock_res_get",
        |mut c: Caller<'_, Guest>, id: u32, out: u32| {
            with(&mut c, |m, g| {
                g.clock(id)?;
                Ok(m.put_u64(out, 1_000)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "clock_time_get",
        |mut c: Caller<'_, Guest>, id: u32, _precision: u64, out: u32| {
            with(&mut c, |m, g| Ok(m.put_u64(out, g.clock(id)?)?))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_advise",
        |mut c: Caller<'_, Guest>, fd: u32, _o: u64, _l: u64, _a: u32| {
            with(&mut c, |_, g| {
                g.fds.get(&fd).ok_or(Errno::BADF)?;
                Ok(())
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_allocate",
        |mut c: Caller<'_, Guest>, fd: u32, offset: u64, len: u64| {
            with(&mut c, |_, g| {
                let path = g.fd_path(fd)?.to_string();
                let want = offset.checked_add(len).ok_or(Errno::FBIG)?;
                if g.fs.metadata(&path)?.size < want {
                    g.fs.truncate(&path, want)?;
                }
                Ok(())
            })
        },
    )?;
    linker.func_wrap(MODULE, "fd_close", |mut c: Caller<'_, Guest>, fd: u32| {
        with(&mut c, |_, g| {
            g.fds.remove(&fd).ok_or(Errno::BADF)?;
            Ok(())
        })
    })?;
    for name in ["fd_datasync", "fd_sync"] {
        linker.func_wrap(MODULE, name, |mut c: Caller<'_, Guest>, fd: u32| {
            with(&mut c, |_, g| {
                g.fds.get(&fd).ok_or(Errno::BADF)?;
                Ok(())
            })
        })?;
    }
    linker.func_wrap(
        MODULE,
        "fd_fdstat_get",
        |mut c: Caller<'_, Guest>, fd: u32, out: u32| with(&mut c, |m, g| fdstat(m, g, fd, out)),
    )?;
    linker.func_wrap(
        MODULE,
        "fd_fdstat_set_flags",
        |mut c: Caller<'_, Guest>, fd: u32, flags: u32| {
            with(&mut c, |_, g| {
                if let Handle::File(f) = g.fds.get_mut(&fd).ok_or(Errno::BADF)? {
                    f.append = flags as u16 & abi::FDFLAG_APPEND != 0;
                }
                Ok(())
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_filestat_get",
        |mut c: Caller<'_, Guest>, fd: u32, out: u32| {
            with(&mut c, |m, g| {
                Ok(m.write(out, &g.fd_filestat(fd)?.to_bytes())?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_filestat_set_size",
        |mut c: Caller<'_, Guest>, fd: u32, size: u64| {
            with(&mut c, |_, g| {
                match g.fds.get(&fd).ok_or(Errno::BADF)? {
                    Handle::File(f) if f.write => {
                        let path = f.path.clone();
                        g.fs.truncate(&path, size)?;
                    }
                    Handle::File(_) => return Err(Errno::BADF.into()),
                    _ => return Err(Errno::INVAL.into()),
                }
                Ok(())
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_filestat_set_times",
        |mut c: Caller<'_, Guest>, fd: u32, _atim: u64, mtim: u64, flags: u32| {
            with(&mut c, |_, g| {
                let path = g.fd_path(fd)?.to_string();
                set_times(g, &path, true, mtim, flags as u16)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_pread",
        |mut c: Caller<'_, Guest>, fd: u32, iovs: u32, n: u32, offset: u64, out: u32| {
            with(&mut c, |m, g| fd_read(m, g, fd, iovs, n, Some(offset), out))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_pwrite",
        |mut c: Caller<'_, Guest>, fd: u32, iovs: u32, n: u32, offset: u64, out: u32| {
            with(&mut c, |m, g| {
                fd_write(m, g, fd, iovs, n, Some(offset), out)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_read",
        |mut c: Caller<'_, Guest>, fd: u32, iovs: u32, n: u32, out: u32| {
            with(&mut c, |m, g| fd_read(m, g, fd, iovs, n, None, out))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_write",
        |mut c: Caller<'_, Guest>, fd: u32, iovs: u32, n: u32, out: u32| {
            with(&mut c, |m, g| fd_write(m, g, fd, iovs, n, None, out))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_prestat_get",
        |mut c: Caller<'_, Guest>, fd: u32, out: u32| {
            with(&mut c, |m, _| {
                if fd != crate::guest::ROOT_FD {
                    return Err(Errno::BADF.into());
                }
                // tag 0 (a directory), name length 1 ("/").
                Ok(m.write(out, &[0, 0, 0, 0, 1, 0, 0, 0])?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_prestat_dir_name",
        |mut c: Caller<'_, Guest>, fd: u32, path: u32, len: u32| {
            with(&mut c, |m, _| {
                if fd != crate::guest::ROOT_FD {
                    return Err(Errno::BADF.into());
                }
                if len < 1 {
                    return Err(Errno::NAMETOOLONG.into());
                }
                Ok(m.write(path, b"/")?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_readdir",
        |mut c: Caller<'_, Guest>, fd: u32, buf: u32, len: u32, cookie: u64, out: u32| {
            with(&mut c, |m, g| readdir(m, g, fd, buf, len, cookie, out))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_seek",
        |mut c: Caller<'_, Guest>, fd: u32, offset: i64, whence: u32, out: u32| {
            with(&mut c, |m, g| {
                let pos = seek(g, fd, offset, whence)?;
                Ok(m.put_u64(out, pos)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "fd_tell",
        |mut c: Caller<'_, Guest>, fd: u32, out: u32| {
            with(&mut c, |m, g| {
                let pos = seek(g, fd, 0, 1)?;
                Ok(m.put_u64(out, pos)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_create_directory",
        |mut c: Caller<'_, Guest>, fd: u32, path: u32, len: u32| {
            with(&mut c, |m, g| {
                let p = g.resolve(fd, &m.str(path, len)?)?;
                Ok(g.fs.mkdir(&p, 0o755)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_filestat_get",
        |mut c: Caller<'_, Guest>, fd: u32, flags: u32, path: u32, len: u32, out: u32| {
            with(&mut c, |m, g| {
                let p = g.resolve(fd, &m.str(path, len)?)?;
                let meta = g.stat(&p, flags & abi::LOOKUP_SYMLINK_FOLLOW != 0)?;
                Ok(m.write(out, &filestat(&meta).to_bytes())?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_filestat_set_times",
        |mut c: Caller<'_, Guest>,
         fd: u32,
         flags: u32,
         path: u32,
         len: u32,
         _atim: u64,
         mtim: u64,
         fst: u32| {
            with(&mut c, |m, g| {
                let p = g.resolve(fd, &m.str(path, len)?)?;
                set_times(
                    g,
                    &p,
                    flags & abi::LOOKUP_SYMLINK_FOLLOW != 0,
                    mtim,
                    fst as u16,
                )
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_link",
        |mut c: Caller<'_, Guest>,
         old_fd: u32,
         _flags: u32,
         old: u32,
         old_len: u32,
         new_fd: u32,
         new: u32,
         new_len: u32| {
            with(&mut c, |m, g| {
                let from = g.resolve(old_fd, &m.str(old, old_len)?)?;
                let to = g.resolve(new_fd, &m.str(new, new_len)?)?;
                Ok(g.fs.hard_link(&from, &to)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_open",
        |mut c: Caller<'_, Guest>,
         fd: u32,
         dirflags: u32,
         path: u32,
         len: u32,
         oflags: u32,
         rights: u64,
         _inheriting: u64,
         fdflags: u32,
         out: u32| {
            with(&mut c, |m, g| {
                let p = g.resolve(fd, &m.str(path, len)?)?;
                let follow = dirflags & abi::LOOKUP_SYMLINK_FOLLOW != 0;
                let write = rights & abi::RIGHT_FD_WRITE != 0;
                let read = rights & abi::RIGHT_FD_READ != 0;
                let new = g.open(p, follow, oflags as u16, write, read, fdflags as u16)?;
                Ok(m.put_u32(out, new)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_readlink",
        |mut c: Caller<'_, Guest>,
         fd: u32,
         path: u32,
         len: u32,
         buf: u32,
         buf_len: u32,
         out: u32| {
            with(&mut c, |m, g| {
                let p = g.resolve(fd, &m.str(path, len)?)?;
                let target = g.fs.read_link(&p)?;
                let bytes = &target.as_bytes()[..target.len().min(buf_len as usize)];
                m.write(buf, bytes)?;
                Ok(m.put_u32(out, bytes.len() as u32)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_remove_directory",
        |mut c: Caller<'_, Guest>, fd: u32, path: u32, len: u32| {
            with(&mut c, |m, g| {
                let p = g.resolve(fd, &m.str(path, len)?)?;
                Ok(g.fs.remove_dir(&p)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_rename",
        |mut c: Caller<'_, Guest>,
         fd: u32,
         old: u32,
         old_len: u32,
         new_fd: u32,
         new: u32,
         new_len: u32| {
            with(&mut c, |m, g| {
                let from = g.resolve(fd, &m.str(old, old_len)?)?;
                let to = g.resolve(new_fd, &m.str(new, new_len)?)?;
                Ok(g.fs.rename(&from, &to)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_symlink",
        |mut c: Caller<'_, Guest>, old: u32, old_len: u32, fd: u32, new: u32, new_len: u32| {
            with(&mut c, |m, g| {
                let target = m.str(old, old_len)?;
                let link = g.resolve(fd, &m.str(new, new_len)?)?;
                Ok(g.fs.symlink(&target, &link)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "path_unlink_file",
        |mut c: Caller<'_, Guest>, fd: u32, path: u32, len: u32| {
            with(&mut c, |m, g| {
                let p = g.resolve(fd, &m.str(path, len)?)?;
                if g.stat(&p, false)?.kind == sandkeep_shell::FileKind::Dir {
                    return Err(Errno::ISDIR.into());
                }
                Ok(g.fs.remove_file(&p)?)
            })
        },
    )?;
    linker.func_wrap(
        MODULE,
        "poll_oneoff",
        |mut c: Caller<'_, Guest>, subs: u32, events: u32, n: u32, out: u32| {
            with(&mut c, |m, g| poll(m, g, subs, events, n, out))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "proc_exit",
        |_c: Caller<'_, Guest>, code: u32| -> wasmtime::Result<()> {
            Err(wasmtime::Error::new(Stop::Exit(code as i32)))
        },
    )?;
    linker.func_wrap(
        MODULE,
        "proc_raise",
        |_c: Caller<'_, Guest>, _sig: u32| -> i32 { i32::from(Errno::NOSYS.0) },
    )?;
    linker.func_wrap(MODULE, "sched_yield", |mut c: Caller<'_, Guest>| {
        with(&mut c, |_, _| Ok(()))
    })?;
    linker.func_wrap(
        MODULE,
        "random_get",
        |mut c: Caller<'_, Guest>, buf: u32, len: u32| {
            with(&mut c, |m, g| {
                let mut bytes = vec![0u8; len as usize];
                g.random(&mut bytes)?;
                Ok(m.write(buf, &bytes)?)
            })
        },
    )?;
    // No sockets in the sandbox.
    linker.func_wrap(
        MODULE,
        "sock_accept",
        |_c: Caller<'_, Guest>, _fd: u32, _f: u32, _out: u32| -> i32 { i32::from(Errno::NOTSUP.0) },
    )?;
    linker.func_wrap(
        MODULE,
        "sock_recv",
        |_c: Caller<'_, Guest>, _fd: u32, _d: u32, _l: u32, _f: u32, _o1: u32, _o2: u32| -> i32 {
            i32::from(Errno::NOTSUP.0)
        },
    )?;
    linker.func_wrap(
        MODULE,
        "sock_send",
        |_c: Caller<'_, Guest>, _fd: u32, _d: u32, _l: u32, _f: u32, _o: u32| -> i32 {
            i32::from(Errno::NOTSUP.0)
        },
    )?;
    linker.func_wrap(
        MODULE,
        "sock_shutdown",
        |_c: Caller<'_, Guest>, _fd: u32, _how: u32| -> i32 { i32::from(Errno::NOTSUP.0) },
    )?;
    Ok(())
}
