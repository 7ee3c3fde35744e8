//! Waking a host's service thread on Windows, where `select` waits on
//! sockets only: the waker is a UDP socket bound to the loopback address
//! and connected to itself. A wake sends it one byte; the wait selects on
//! the host's socket and the waker's together, and drains the waker.

use std::io::{self, ErrorKind};
use std::mem::MaybeUninit;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::windows::io::AsRawSocket;
use std::ptr;

use socket2::{Domain, Socket, Type};
use windows_sys::Win32::Networking::WinSock::select;

use super::socket::{empty_set, set_add, set_holds, time_value};
use super::winsock_ready;
use crate::abi::ENetSocket;
use crate::net::sys::Woken;

/// Lets other threads cut a host's wait short.
pub struct Waker {
    socket: Socket,
}

impl Waker {
    /// A non-blocking loopback socket that sends to itself.
    pub fn new() -> io::Result<Waker> {
        winsock_ready();
        let socket = Socket::new(Domain::IPV4, Type::DGRAM, None)?;
        socket.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, 0)).into())?;
        let own = socket.local_addr()?;
        socket.connect(&own)?;
        socket.set_nonblocking(true)?;
        Ok(Waker { socket })
    }

    /// Wakes whoever waits. A full buffer means wakes are pending anyway.
    pub fn wake(&self) {
        let _ = self.socket.send(&[1]);
    }

    /// The socket a wait watches: readable while a wake is pending.
    pub fn socket(&self) -> &Socket {
        &self.socket
    }

    /// Consumes pending wakes.
    pub fn drain(&self) {
        let mut sink = [MaybeUninit::<u8>::uninit(); 16];
        for _ in 0..1024 {
            match self.socket.recv(&mut sink) {
                Ok(_) => {}
                Err(error) if error.kind() == ErrorKind::WouldBlock => break,
                Err(_) => break,
            }
        }
    }

    /// Waits up to `timeout` ms until `socket` has a datagram or the waker
    /// was woken (the wake is consumed). Windows waits are never cut
    /// short by signals.
    pub fn wait(&self, socket: ENetSocket, timeout: u32) -> io::Result<Woken> {
        let own = self.socket.as_raw_socket() as ENetSocket;
        let mut read_set = empty_set();
        set_add(&mut read_set, socket);
        set_add(&mut read_set, own);
        let time = time_value(timeout);
        // SAFETY: the set and the time are valid for the call; the first
        // argument is ignored by WinSock.
        let ready = unsafe { select(0, &mut read_set, ptr::null_mut(), ptr::null_mut(), &time) };
        if ready < 0 {
            return Err(super::last_error());
        }
        if ready > 0 && set_holds(&read_set, own) {
            self.drain();
        }
        Ok(Woken::Ready)
    }
}
