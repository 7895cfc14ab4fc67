//! Loopback ports for the processes a test starts.

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, TcpListener};
use std::sync::Mutex;

/// A loopback port nobody listens on right now, and one this test process
/// has not handed out before: a process given a port may not have bound it
/// yet when the next one is asked for, and the system would hand the same
/// port out again (two processes of one test then collide on it).
pub fn free_port() -> u16 {
    static HANDED_OUT: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..1000 {
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if handed_out.insert(port) {
            return port;
        }
    }
    panic!("the system offered only ports handed out before, 1000 times");
}

/// `127.0.0.1:port`.
pub fn local(port: u16) -> String {
    format!("127.0.0.1:{port}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_never_handed_out_twice() {
        let ports: BTreeSet<u16> = (0..50).map(|_| free_port()).collect();
        assert_eq!(ports.len(), 50);
        assert_eq!(local(7000), "127.0.0.1:7000");
    }
}
