//! Who is at the other end: `hookhost-send` hands the event and the token only to a daemon of its
//! own user (or root). Each platform difference is here, behind `cfg`:
//! - a unix socket's peer: `SO_PEERCRED` (Linux), `getpeereid` (macOS and the BSDs); no unix
//!   sockets elsewhere (Windows), so a `unix:` server is unreachable there and the event is
//!   decided in-process;
//! - a loopback TCP listener's owner: the kernel's socket diagnostics (Linux); the TCP table's
//!   owning process and that process's user (Windows, `peer/tcp_table.rs`); elsewhere (macOS,
//!   whose daemon listens on a unix socket) it cannot be told, which the caller treats like an
//!   answer it cannot trust (the event is decided in-process, never sent).

use std::io;

#[cfg(any(windows, test))]
#[path = "peer/tcp_table.rs"]
mod tcp_table;

/// Whether `uid` may be the daemon this client talks to: this user, or root.
#[cfg(unix)]
fn trusted(uid: u32) -> bool {
    uid == my_uid() || uid == 0
}

/// This process's user.
#[cfg(unix)]
fn my_uid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// Connect to the daemon's unix socket: the stream when it is served by this user (or root),
/// `Ok(Err(why))` when not (nothing was sent), `Err` when it cannot be reached.
#[cfg(unix)]
pub fn connect_unix(socket: &str) -> io::Result<Result<std::os::unix::net::UnixStream, String>> {
    let s = std::os::unix::net::UnixStream::connect(socket)?;
    Ok(match unix_peer_uid(&s) {
        Ok(uid) if trusted(uid) => Ok(s),
        Ok(uid) => Err(format!("the socket {socket} is served by uid {uid}, not by you (uid {}): nothing was sent to it", my_uid())),
        Err(e) => Err(format!("cannot tell who serves the socket {socket} ({e}): nothing was sent to it")),
    })
}

/// No unix sockets here: the daemon cannot be reached that way.
#[cfg(not(unix))]
pub fn connect_unix(socket: &str) -> io::Result<Result<std::net::TcpStream, String>> {
    Err(io::Error::new(io::ErrorKind::Unsupported, format!("unix:{socket}: unix sockets are not available on this platform; use --server http://127.0.0.1:PORT")))
}

/// `Ok` when the loopback listener at the other end of `s` is this user's (or root's); why not.
#[cfg(unix)]
pub fn check_loopback(s: &std::net::TcpStream, hostport: &str) -> Result<(), String> {
    match tcp_peer_uid(s) {
        Some(uid) if trusted(uid) => Ok(()),
        Some(uid) => Err(format!("{hostport} is served by uid {uid}, not by you (uid {}): nothing was sent to it", my_uid())),
        None => Err(format!("cannot tell who serves {hostport} (the kernel's socket diagnostics did not say): nothing was sent to it")),
    }
}

/// `Ok` when the process holding the daemon's end of `s` runs as this user (or LocalSystem,
/// root's counterpart).
#[cfg(windows)]
pub fn check_loopback(s: &std::net::TcpStream, hostport: &str) -> Result<(), String> {
    let pid = tcp_peer_pid(s).ok_or_else(|| format!("cannot tell who serves {hostport} (the TCP table names no process for the connection): nothing was sent to it"))?;
    hookhost_types::owner::process_is_own(pid).map_err(|why| format!("{hostport} is not served by you ({why}): nothing was sent to it"))
}

/// The process holding the daemon's end of `s`, from the TCP table of its address family with
/// owning processes (`GetExtendedTcpTable`), the row found in `peer/tcp_table.rs`. Windows
/// names the listening process for a connection from the moment it is made; Wine (8.0) names
/// process 0 for every row, which is no owner: there nothing is sent.
#[cfg(windows)]
fn tcp_peer_pid(s: &std::net::TcpStream) -> Option<u32> {
    let (ours, theirs) = (s.local_addr().ok()?, s.peer_addr().ok()?);
    tcp_table::owning_pid(&tcp_table_bytes(theirs.is_ipv4())?, theirs, ours)
}

/// One read of the TCP connection table with owning processes, IPv4 or IPv6, as bytes.
#[cfg(windows)]
fn tcp_table_bytes(ipv4: bool) -> Option<Vec<u8>> {
    use windows_sys::Win32::NetworkManagement::IpHelper::{GetExtendedTcpTable, TCP_TABLE_OWNER_PID_CONNECTIONS};
    // ws2def.h's AF_INET and AF_INET6.
    const AF_INET: u32 = 2;
    const AF_INET6: u32 = 23;
    const ERROR_INSUFFICIENT_BUFFER: u32 = 122;
    let family = if ipv4 { AF_INET } else { AF_INET6 };
    let mut size = 0u32;
    // The table can grow between asking its size and reading it: a few tries.
    for _ in 0..4 {
        // u32 elements: the rows are DWORD-aligned.
        let mut buf = vec![0u32; (size as usize).div_ceil(4)];
        let ptr = if buf.is_empty() { std::ptr::null_mut() } else { buf.as_mut_ptr().cast() };
        // SAFETY: `buf` holds `size` bytes; the call writes at most that many, or says how many
        // it needs in `size`.
        match unsafe { GetExtendedTcpTable(ptr, &mut size, 0, family, TCP_TABLE_OWNER_PID_CONNECTIONS, 0) } {
            0 => return Some(buf.iter().flat_map(|w| w.to_ne_bytes()).collect()),
            ERROR_INSUFFICIENT_BUFFER => continue,
            _ => return None,
        }
    }
    None
}

/// Who listens cannot be told here: nothing is sent (the caller decides the event in-process).
#[cfg(not(any(unix, windows)))]
pub fn check_loopback(_s: &std::net::TcpStream, hostport: &str) -> Result<(), String> {
    Err(format!("cannot tell who serves {hostport} on this platform: nothing was sent to it"))
}

/// The uid of the process at the other end of a unix socket (`SO_PEERCRED`).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn unix_peer_uid(s: &std::os::unix::net::UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`, which is that large.
    let rc = unsafe { libc::getsockopt(s.as_raw_fd(), libc::SOL_SOCKET, libc::SO_PEERCRED, (&mut cred as *mut libc::ucred).cast(), &mut len) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cred.uid)
}

/// The uid of the process at the other end of a unix socket (`getpeereid`).
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
fn unix_peer_uid(s: &std::os::unix::net::UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd;
    let (mut uid, mut gid) = (0, 0);
    // SAFETY: getpeereid writes one uid and one gid into the two locals.
    if unsafe { libc::getpeereid(s.as_raw_fd(), &mut uid, &mut gid) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(uid)
}

/// A loopback TCP listener's owner is not told by macOS or the BSDs without walking every
/// socket: not known.
#[cfg(all(unix, not(target_os = "linux")))]
fn tcp_peer_uid(_s: &std::net::TcpStream) -> Option<u32> {
    None
}

/// The owner of the daemon's end of a loopback TCP connection: the socket whose local address is
/// the daemon's and whose remote address is ours, looked up by the kernel's socket diagnostics
/// (`NETLINK_SOCK_DIAG`, one exact lookup — `ss` asks the same way; reading `/proc/net/tcp`
/// instead walks every socket and costs milliseconds).
#[cfg(target_os = "linux")]
fn tcp_peer_uid(s: &std::net::TcpStream) -> Option<u32> {
    /// `struct inet_diag_sockid` (linux/inet_diag.h): ports and addresses in network order.
    #[repr(C)]
    struct SockId {
        sport: u16,
        dport: u16,
        src: [u32; 4],
        dst: [u32; 4],
        ifindex: u32,
        cookie: [u32; 2],
    }
    /// `struct nlmsghdr` + `struct inet_diag_req_v2`.
    #[repr(C)]
    struct Request {
        len: u32,
        kind: u16,
        flags: u16,
        seq: u32,
        pid: u32,
        family: u8,
        protocol: u8,
        ext: u8,
        pad: u8,
        states: u32,
        id: SockId,
    }
    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    const NLMSG_ERROR: u16 = 2;
    const NLM_F_REQUEST: u16 = 1;
    // `struct inet_diag_msg`: family, state, timer, retrans (4 bytes), the socket id (48),
    // expires, rqueue, wqueue, then the uid.
    const UID_AT: usize = 16 + 4 + std::mem::size_of::<SockId>() + 12;
    let (ours, theirs) = (s.local_addr().ok()?, s.peer_addr().ok()?);
    // The raw address words, in the byte order they have on the wire.
    let words = |a: &std::net::SocketAddr| -> [u32; 4] {
        let octets: Vec<u8> = match a.ip() {
            std::net::IpAddr::V4(v4) => v4.octets().to_vec(),
            std::net::IpAddr::V6(v6) => v6.octets().to_vec(),
        };
        let mut out = [0u32; 4];
        for (w, chunk) in out.iter_mut().zip(octets.chunks(4)) {
            *w = u32::from_ne_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        out
    };
    let family = if theirs.is_ipv4() { libc::AF_INET } else { libc::AF_INET6 } as u8;
    let request = Request {
        len: std::mem::size_of::<Request>() as u32,
        kind: SOCK_DIAG_BY_FAMILY,
        flags: NLM_F_REQUEST,
        seq: 1,
        pid: 0,
        family,
        protocol: libc::IPPROTO_TCP as u8,
        ext: 0,
        pad: 0,
        states: u32::MAX,
        id: SockId { sport: theirs.port().to_be(), dport: ours.port().to_be(), src: words(&theirs), dst: words(&ours), ifindex: 0, cookie: [u32::MAX; 2] },
    };
    // SAFETY: a netlink socket of our own, closed below; the request and the reply buffer are
    // plain memory of the sizes passed.
    unsafe {
        let fd = libc::socket(libc::AF_NETLINK, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, libc::NETLINK_SOCK_DIAG);
        if fd < 0 {
            return None;
        }
        let timeout = libc::timeval { tv_sec: 1, tv_usec: 0 };
        libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVTIMEO, (&timeout as *const libc::timeval).cast(), std::mem::size_of::<libc::timeval>() as libc::socklen_t);
        let mut kernel: libc::sockaddr_nl = std::mem::zeroed();
        kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        let sent = libc::sendto(fd, (&request as *const Request).cast(), std::mem::size_of::<Request>(), 0, (&kernel as *const libc::sockaddr_nl).cast(), std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t);
        let mut reply = [0u8; 4096];
        let got = if sent < 0 { -1 } else { libc::recv(fd, reply.as_mut_ptr().cast(), reply.len(), 0) };
        libc::close(fd);
        let got = usize::try_from(got).ok()?;
        let kind = u16::from_ne_bytes([reply[4], reply[5]]);
        if got < UID_AT + 4 || kind == NLMSG_ERROR || kind != SOCK_DIAG_BY_FAMILY {
            return None;
        }
        Some(u32::from_ne_bytes([reply[UID_AT], reply[UID_AT + 1], reply[UID_AT + 2], reply[UID_AT + 3]]))
    }
}
