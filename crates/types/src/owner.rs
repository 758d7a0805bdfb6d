//! Files and directories that must be this user's own, in one module per platform difference
//! (issue #49): who owns a path and who else may write it, reading a file without following a
//! final link or waiting on a FIFO, and creating files and directories only their owner can read.
//!
//! On unix these are uids and mode bits. On Windows they are the file's owner SID and its
//! access list (`owner/windows.rs`, judged by `owner/dacl.rs`): another account as owner, or
//! any account but the user's own (SYSTEM, Administrators) granted write — `Users`,
//! `Authenticated Users`, `Everyone` — is what group- or world-writable is on unix. Files are
//! created private on Windows with an access list of the user alone, protected from what the
//! parent directory would pass on (the counterpart of modes 0600 and 0700).

use std::fs::File;
use std::io;
use std::path::Path;

/// Why `path` is not to be trusted as this user's own: another user owns it, it is a symbolic
/// link, or users other than its owner may write it (others; its group, unless that is this
/// user's own group).
pub fn not_own(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        return Some(format!("{} is a symbolic link; a project's hook files must be its own", path.display()));
    }
    imp::not_own(path, &meta)
}

/// `Err(problem)` when `path` is not owned by this user or others may write it (unix: its uid
/// and the group/other write bits; Windows: its owner SID and access list).
pub fn check_private(path: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot be inspected ({e})"))?;
    imp::check_private(path, &meta)
}

/// Whether only its owner may read the file at `path`, whose metadata is `meta` (unix: no group
/// or other bits; Windows: no other account in its access list may read it).
pub fn owner_only(path: &Path, meta: &std::fs::Metadata) -> bool {
    imp::owner_only(path, meta)
}

/// Windows: `Ok` when the process `pid` runs as this user (or LocalSystem, the counterpart of
/// root); why not — including when it cannot be told. The thin client's check of who listens
/// on a loopback port (`hookhost-send`).
#[cfg(windows)]
pub fn process_is_own(pid: u32) -> Result<(), String> {
    windows::process_is_own(pid)
}

/// Open `path` for reading without following a final symbolic link and without waiting for a
/// FIFO's writer (unix: `O_NOFOLLOW | O_NONBLOCK`; elsewhere the link is refused by a look first,
/// and there are no FIFOs among files).
pub fn open_no_follow(path: &Path) -> io::Result<File> {
    imp::open(path, false)
}

/// Why [`read_regular`] read nothing.
#[derive(Debug)]
pub enum ReadError {
    /// It could not be opened or read.
    Io(io::Error),
    /// It is a directory, a FIFO, a socket or a device (`/dev/zero` would never end).
    NotRegular,
    /// It holds more than the cap: this many bytes, or (`None`) it grew past the cap while read.
    TooLarge(Option<u64>),
}

/// The bytes of a regular file of at most `cap` bytes, read without ever waiting on a FIFO
/// (unix: opened non-blocking, then checked before any read) and, unless `follow`, never through
/// a final symbolic link. What hookhost reads from a path someone else may have chosen — a
/// config, a project's hook file, a recording — is read this way.
pub fn read_regular(path: &Path, cap: u64, follow: bool) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let file = imp::open(path, follow).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge(Some(meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge(None));
    }
    Ok(bytes)
}

/// Create `dir` (and its parents) readable only by this user (unix: mode 0700; Windows: an access
/// list of the user alone). A directory that exists is left as it is.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    imp::create_private_dir(dir)
}

/// Create (or truncate) `path` for writing, readable only by this user from its first byte
/// (unix: created with mode 0600; Windows: given an access list of the user alone before it is
/// returned).
pub fn create_private_file(path: &Path) -> io::Result<File> {
    imp::create_private_file(path)
}

/// Create `path`, which must not exist yet, readable only by this user from its first byte.
pub fn create_new_private_file(path: &Path) -> io::Result<File> {
    imp::create_new_private_file(path)
}

/// Make `path` readable and writable only by this user (unix: mode 0600; Windows: an access list
/// of the user alone).
pub fn make_private(path: &Path) -> io::Result<()> {
    imp::set_mode(path, 0o600)
}

/// Make `path` readable by every user and writable by its owner (unix: mode 0644; on Windows
/// what its directory gives): a registry's content, public by nature.
pub fn make_readable_by_all(path: &Path) -> io::Result<()> {
    imp::set_mode(path, 0o644)
}

#[cfg(unix)]
mod imp {
    use std::fs::{File, Metadata};
    use std::io;
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
    use std::path::Path;

    /// Another user owns it, or others may write it (others; its group, unless that is this
    /// user's own group).
    pub(super) fn not_own(path: &Path, meta: &Metadata) -> Option<String> {
        // SAFETY: geteuid and getegid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        if meta.uid() != uid {
            return Some(format!("{} belongs to another user (uid {}, you are uid {uid})", path.display(), meta.uid()));
        }
        if meta.mode() & 0o002 != 0 {
            return Some(format!("{} is writable by every user", path.display()));
        }
        (meta.mode() & 0o020 != 0 && meta.gid() != gid).then(|| format!("{} is writable by its group (gid {})", path.display(), meta.gid()))
    }

    pub(super) fn check_private(_path: &Path, meta: &Metadata) -> Result<(), String> {
        // SAFETY: geteuid cannot fail and touches no memory.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Err(format!("is owned by uid {}, not by you (uid {me})", meta.uid()));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(format!("is writable by group or others (mode {:o})", meta.mode() & 0o7777));
        }
        Ok(())
    }

    pub(super) fn owner_only(_path: &Path, meta: &Metadata) -> bool {
        meta.mode() & 0o077 == 0
    }

    pub(super) fn open(path: &Path, follow: bool) -> io::Result<File> {
        let no_follow = if follow { 0 } else { libc::O_NOFOLLOW };
        std::fs::OpenOptions::new().read(true).custom_flags(no_follow | libc::O_NONBLOCK).open(path)
    }

    pub(super) fn create_private_dir(dir: &Path) -> io::Result<()> {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }

    pub(super) fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }

    pub(super) fn create_private_file(path: &Path) -> io::Result<File> {
        std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)
    }

    pub(super) fn create_new_private_file(path: &Path) -> io::Result<File> {
        std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
    }
}

#[cfg(any(windows, test))]
mod dacl;
#[cfg(windows)]
mod windows;

/// Windows and WASI. On Windows ownership and access come from the file's security descriptor
/// (`owner/windows.rs`); a WASI guest sees only what it was granted, and has no other user.
#[cfg(not(unix))]
mod imp {
    use std::fs::{File, Metadata};
    use std::io;
    use std::path::Path;

    pub(super) fn not_own(_path: &Path, _meta: &Metadata) -> Option<String> {
        #[cfg(windows)]
        return super::windows::not_own(_path);
        #[cfg(not(windows))]
        None
    }

    pub(super) fn check_private(_path: &Path, _meta: &Metadata) -> Result<(), String> {
        #[cfg(windows)]
        return super::windows::check_private(_path);
        #[cfg(not(windows))]
        Ok(())
    }

    pub(super) fn owner_only(_path: &Path, _meta: &Metadata) -> bool {
        #[cfg(windows)]
        return super::windows::owner_only(_path);
        #[cfg(not(windows))]
        true
    }

    pub(super) fn open(path: &Path, follow: bool) -> io::Result<File> {
        if !follow && std::fs::symlink_metadata(path)?.file_type().is_symlink() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "a symbolic link"));
        }
        File::open(path)
    }

    // As on unix, a directory that is there already keeps its access list (the checks judge it).
    pub(super) fn create_private_dir(dir: &Path) -> io::Result<()> {
        #[cfg(windows)]
        let existed = dir.is_dir();
        std::fs::create_dir_all(dir)?;
        #[cfg(windows)]
        if !existed {
            super::windows::make_private(dir, true)?;
        }
        Ok(())
    }

    pub(super) fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
        // 0600 is private; what a registry makes readable by all keeps what its directory gives.
        #[cfg(windows)]
        if _mode & 0o077 == 0 {
            return super::windows::make_private(_path, std::fs::metadata(_path)?.is_dir());
        }
        Ok(())
    }

    // Windows: the file is made, then its access list set before a byte is written (created in a
    // private directory — hookhost's own are — no one else could open it in between).
    pub(super) fn create_private_file(path: &Path) -> io::Result<File> {
        let file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(path)?;
        #[cfg(windows)]
        super::windows::make_private(path, false)?;
        Ok(file)
    }

    pub(super) fn create_new_private_file(path: &Path) -> io::Result<File> {
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
        #[cfg(windows)]
        super::windows::make_private(path, false)?;
        Ok(file)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn own_private_and_shared_files_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("hooks.toml");
        std::fs::write(&f, "").unwrap();
        make_private(&f).unwrap();
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(not_own(&f), None);
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(not_own(&f), Some(format!("{} is writable by every user", f.display())));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(not_own(&link).unwrap().ends_with("is a symbolic link; a project's hook files must be its own"));
        assert!(open_no_follow(&link).is_err(), "a final link is not followed");
        assert!(matches!(read_regular(&link, 10, false), Err(ReadError::Io(_))));
        std::fs::write(&f, "12345").unwrap();
        assert_eq!(read_regular(&link, 10, true).unwrap(), b"12345", "followed when asked");
        assert!(matches!(read_regular(&f, 4, true), Err(ReadError::TooLarge(Some(5)))));
        assert!(matches!(read_regular(dir.path(), 4, true), Err(ReadError::NotRegular)));
        // A FIFO with no writer is refused at once, not waited on.
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(read_regular(&fifo, 4, true), Err(ReadError::NotRegular)));
        make_readable_by_all(&f).unwrap();
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o644);
        let key = dir.path().join("k.key");
        create_private_file(&key).unwrap();
        assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o644);
        let private = dir.path().join("a/b");
        create_private_dir(&private).unwrap();
        assert_eq!(std::fs::metadata(&private).unwrap().permissions().mode() & 0o777, 0o700);
    }
}
