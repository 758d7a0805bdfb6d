//! Where the daemon listens and who may ask it: the address (loopback unless told otherwise),
//! the bearer token (made on first start over TCP), and a unix socket that is private from
//! its first moment and never takes over another daemon's.

use super::{ServeArgs, DEFAULT_PORT};
use std::path::PathBuf;

/// Where to listen, checked: loopback unless the address says otherwise, which is logged.
pub(super) enum Listen {
    Tcp(std::net::SocketAddr),
    #[cfg_attr(not(unix), allow(dead_code))]
    Unix(PathBuf),
}

pub(super) fn listen_at(text: &str) -> anyhow::Result<Listen> {
    if let Some(path) = text.strip_prefix("unix:") {
        if cfg!(not(unix)) {
            return Err(crate::usage(format!("--listen: unix sockets are not available on this platform; listen on 127.0.0.1:{DEFAULT_PORT} (requests then need the token)")));
        }
        return Ok(Listen::Unix(PathBuf::from(path)));
    }
    let addr: std::net::SocketAddr = text.parse().map_err(|_| crate::usage(format!("--listen: {text:?} is not HOST:PORT or unix:PATH (e.g. 127.0.0.1:{DEFAULT_PORT})")))?;
    if !addr.ip().is_loopback() {
        tracing::warn!("listening on {addr}, which is not a loopback address: anyone who can reach it and holds the token can run events through your hooks");
    }
    Ok(Listen::Tcp(addr))
}

/// The bearer token requests must carry, if any (see [`ServeArgs::token_file`]).
pub(super) fn token_for(args: &ServeArgs, listen: &Listen) -> anyhow::Result<Option<String>> {
    let read = |path: &std::path::Path, flag: &str| -> anyhow::Result<String> {
        let text = std::fs::read_to_string(path).map_err(|e| crate::usage(format!("{flag}: cannot read {} ({e})", path.display())))?;
        let token = text.trim().to_string();
        if token.is_empty() {
            return Err(crate::usage(format!("{flag}: {} is empty", path.display())));
        }
        Ok(token)
    };
    match (&args.token_file, args.no_token, listen) {
        (Some(path), _, _) => read(path, "--token-file").map(Some),
        (None, true, Listen::Tcp(addr)) if !addr.ip().is_loopback() => Err(crate::usage(format!("--no-token: {addr} is not a loopback address; a daemon reachable from elsewhere needs a token (--token-file)"))),
        (None, true, Listen::Tcp(addr)) => {
            eprintln!("hookhost serve: warning: --no-token: any process on this machine that can reach {addr} can run events through your hooks");
            Ok(None)
        }
        // A unix socket: the peer's credentials decide who asks.
        (None, _, Listen::Unix(_)) => Ok(None),
        (None, false, Listen::Tcp(_)) => {
            let path = hookhost::types::paths::serve_token_file().ok_or_else(|| crate::usage("no state directory is known for the daemon's token; set HOME or XDG_STATE_HOME, or pass --token-file"))?;
            let token = read_or_create_token(&path).map_err(|e| crate::usage(format!("the daemon's token {}: {e}", path.display())))?;
            eprintln!("hookhost serve: requests need the bearer token in {} (hookhost-send reads it from there)", path.display());
            Ok(Some(token))
        }
    }
}

/// The daemon's token in `path`, made on first use: 32 random bytes as hex, in a file only this
/// user can read (in a directory only this user can enter). An existing file must be this
/// user's and private, or it is not used.
pub(super) fn read_or_create_token(path: &std::path::Path) -> Result<String, String> {
    use hookhost::types::owner;
    use std::io::{Read, Write};
    if let Some(dir) = path.parent() {
        owner::create_private_dir(dir).map_err(|e| e.to_string())?;
    }
    match owner::open_no_follow(path) {
        Ok(mut file) => {
            let meta = file.metadata().map_err(|e| e.to_string())?;
            if owner::check_private(path).is_err() || !owner::owner_only(path, &meta) || !meta.is_file() {
                return Err("it must be a file of yours that only you can read (chmod 600), or be removed so a new one is made".into());
            }
            let mut text = String::new();
            std::io::Read::take(&mut file, 4096).read_to_string(&mut text).map_err(|e| e.to_string())?;
            let token = text.trim().to_string();
            if token.len() < 32 {
                return Err("it holds no token (under 32 characters); remove it so a new one is made".into());
            }
            Ok(token)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut random = [0u8; 32];
            getrandom::getrandom(&mut random).map_err(|e| format!("no randomness for a token ({e})"))?;
            let token: String = random.iter().map(|b| format!("{b:02x}")).collect();
            let mut file = owner::create_new_private_file(path).map_err(|e| e.to_string())?;
            file.write_all(format!("{token}\n").as_bytes()).map_err(|e| e.to_string())?;
            Ok(token)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Bind a unix socket at `path`, private to this user: a live daemon's socket is never taken
/// over, a path that is not a socket is never removed, and the socket is created 0600 (no
/// moment at which another user could connect).
#[cfg(unix)]
pub(super) fn bind_unix(path: &std::path::Path) -> anyhow::Result<(tokio::net::UnixListener, u64)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    // The default socket's directory is hookhost's own state directory: made (private) if it is
    // not there yet. Another path's directory is the user's to make.
    if hookhost::types::paths::serve_socket_file().as_deref() == Some(path) {
        if let Some(dir) = path.parent() {
            hookhost::types::owner::create_private_dir(dir).map_err(|e| crate::usage(format!("--listen: cannot make {} for the daemon's socket: {e}", dir.display())))?;
        }
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => {
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                return Err(crate::usage(format!("--listen: a daemon is already listening on {}; stop it first, or listen elsewhere", path.display())));
            }
            // A stale socket of a daemon that is gone.
            std::fs::remove_file(path).map_err(|e| crate::usage(format!("--listen: {} is a stale socket and cannot be removed: {e}", path.display())))?;
        }
        Ok(_) => return Err(crate::usage(format!("--listen: {} exists and is not a socket; hookhost serve does not replace it (remove it yourself if it is yours)", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(crate::usage(format!("--listen: cannot look at {}: {e}", path.display()))),
    }
    // SAFETY: umask only swaps the process's file-creation mask; restored right after.
    let old = unsafe { libc::umask(0o177) };
    let bound = tokio::net::UnixListener::bind(path);
    unsafe { libc::umask(old) };
    let listener = bound.map_err(|e| crate::usage(format!("--listen: cannot listen on {}: {e}", path.display())))?;
    let ino = std::fs::symlink_metadata(path).map(|m| m.ino()).unwrap_or(0);
    Ok((listener, ino))
}
