//! Which process holds the daemon's end of a loopback connection, read from Windows' TCP
//! connection table with owning processes (`GetExtendedTcpTable`, `TCP_TABLE_OWNER_PID_CONNECTIONS`;
//! the call is in `peer.rs`). The table's bytes are read here as plain data, so the lookup is
//! tested on every OS.
//!
//! The layout, as Microsoft documents `MIB_TCPTABLE_OWNER_PID` and `MIB_TCP6TABLE_OWNER_PID`
//! (tcpmib.h): a row count (u32), then the rows —
//! - IPv4, 24 bytes: state, local address, local port, remote address, remote port, owning pid;
//! - IPv6, 56 bytes: local address (16), local scope id, local port, remote address (16), remote
//!   scope id, remote port, state, owning pid.
//!
//! Addresses are in network order; a port is in network order in the low 16 bits of its DWORD
//! (the upper 16 "may contain uninitialized data"); the rest are little-endian DWORDs.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Field offsets of one row.
struct Layout {
    size: usize,
    local: usize,
    local_port: usize,
    remote: usize,
    remote_port: usize,
    pid: usize,
}

const V4: Layout = Layout { size: 24, local: 4, local_port: 8, remote: 12, remote_port: 16, pid: 20 };
const V6: Layout = Layout { size: 56, local: 0, local_port: 20, remote: 24, remote_port: 44, pid: 52 };

fn dword(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn port(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn addr(b: &[u8], at: usize, v6: bool) -> Option<IpAddr> {
    Some(if v6 {
        IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(b.get(at..at + 16)?).ok()?))
    } else {
        IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(b.get(at..at + 4)?).ok()?))
    })
}

/// The owning process of the connection whose local end is `daemon` and whose remote end is
/// `client` (the daemon's side of the client's connection), in a table of `daemon`'s address
/// family. `None` when no row matches, the table is cut short, or the row names process 0 (the
/// idle process, never a socket's owner: what Wine 8 names for every row).
pub fn owning_pid(table: &[u8], daemon: SocketAddr, client: SocketAddr) -> Option<u32> {
    let v6 = daemon.is_ipv6();
    let l = if v6 { V6 } else { V4 };
    let count = dword(table, 0)? as usize;
    let rows = table.get(4..)?;
    let end = |row: &[u8], a: usize, p: usize| Some(SocketAddr::new(addr(row, a, v6)?, port(row, p)?));
    rows.chunks_exact(l.size)
        .take(count)
        .find(|row| end(row, l.local, l.local_port) == Some(daemon) && end(row, l.remote, l.remote_port) == Some(client))
        .and_then(|row| dword(row, l.pid))
        .filter(|pid| *pid != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4_row(local: SocketAddr, remote: SocketAddr, pid: u32) -> Vec<u8> {
        let ip = |a: SocketAddr| match a.ip() {
            IpAddr::V4(v4) => v4.octets(),
            IpAddr::V6(_) => unreachable!(),
        };
        // The port's DWORD with garbage in its upper half, as the documentation allows.
        let port = |a: SocketAddr| [a.port().to_be_bytes()[0], a.port().to_be_bytes()[1], 0xAB, 0xCD];
        [5u32.to_le_bytes(), ip(local), port(local), ip(remote), port(remote), pid.to_le_bytes()].concat()
    }

    fn table(rows: &[Vec<u8>]) -> Vec<u8> {
        let mut t = (rows.len() as u32).to_le_bytes().to_vec();
        rows.iter().for_each(|r| t.extend_from_slice(r));
        t
    }

    #[test]
    fn finds_the_daemons_side_of_the_connection_not_the_clients() {
        let daemon: SocketAddr = "127.0.0.1:7807".parse().unwrap();
        let client: SocketAddr = "127.0.0.1:50123".parse().unwrap();
        let other: SocketAddr = "127.0.0.1:50124".parse().unwrap();
        let t = table(&[
            // Our own end of the connection: local is the client.
            v4_row(client, daemon, 111),
            // The daemon's end of someone else's connection.
            v4_row(daemon, other, 222),
            // The daemon's end of ours.
            v4_row(daemon, client, 333),
        ]);
        assert_eq!(owning_pid(&t, daemon, client), Some(333));
        assert_eq!(owning_pid(&t, daemon, other), Some(222));
        assert_eq!(owning_pid(&t, daemon, "127.0.0.1:1".parse().unwrap()), None);
        // Process 0 is no owner (Wine names it for every row).
        assert_eq!(owning_pid(&table(&[v4_row(daemon, client, 0)]), daemon, client), None);
    }

    #[test]
    fn ipv6_rows_and_short_or_overcounted_tables() {
        let daemon: SocketAddr = "[::1]:7807".parse().unwrap();
        let client: SocketAddr = "[::1]:50000".parse().unwrap();
        let ip = |a: SocketAddr| match a.ip() {
            IpAddr::V6(v6) => v6.octets(),
            IpAddr::V4(_) => unreachable!(),
        };
        let port = |a: SocketAddr| [a.port().to_be_bytes()[0], a.port().to_be_bytes()[1], 0, 0];
        let row = [&ip(daemon)[..], &0u32.to_le_bytes(), &port(daemon), &ip(client), &0u32.to_le_bytes(), &port(client), &5u32.to_le_bytes(), &4242u32.to_le_bytes()].concat();
        assert_eq!(row.len(), 56);
        let t = table(&[row]);
        assert_eq!(owning_pid(&t, daemon, client), Some(4242));
        // A count larger than the rows present, a table cut mid-row, no table: no answer, no panic.
        let mut over = t.clone();
        over[..4].copy_from_slice(&9u32.to_le_bytes());
        assert_eq!(owning_pid(&over, daemon, client), Some(4242));
        assert_eq!(owning_pid(&t[..40], daemon, client), None);
        assert_eq!(owning_pid(&[], daemon, client), None);
    }
}
