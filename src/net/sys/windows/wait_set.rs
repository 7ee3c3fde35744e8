//! A host's wait handle on Windows: a WinSock event that the host's socket
//! and its waker (a loopback socket) both set when input arrives
//! (`WSAEventSelect`, `FD_READ`). The event is manual-reset: the program
//! waits on it (`WaitForSingleObject`, `WaitForMultipleObjects`), and
//! [`WaitSet::rearm`], called before each wait, clears it and looks at the
//! socket once, so input that came before the clear is not missed.

use std::io;
use std::os::windows::io::AsRawSocket;
use std::ptr;

use windows_sys::Win32::Foundation::HANDLE;
use windows_sys::Win32::Networking::WinSock::{
    select, WSACloseEvent, WSACreateEvent, WSAEventSelect, WSAResetEvent, FD_READ,
};

use super::socket::{empty_set, set_add, set_holds, time_value};
use super::wake::Waker;
use crate::abi::ENetSocket;

/// The event a program waits on for one host; closed with it.
pub struct WaitSet {
    event: HANDLE,
    /// The waker's socket, released from the event when the set goes (the
    /// waker may outlive the host, held by its senders).
    waker: ENetSocket,
}

impl WaitSet {
    /// An event set by input on `socket` or a wake of `waker`.
    pub fn new(socket: ENetSocket, waker: &Waker) -> io::Result<WaitSet> {
        // SAFETY: plain call without arguments.
        let event = unsafe { WSACreateEvent() };
        if event == 0 {
            return Err(super::last_error());
        }
        let waker = waker.socket().as_raw_socket() as ENetSocket;
        let set = WaitSet { event, waker };
        for watched in [socket, waker] {
            // SAFETY: `watched` is an open socket (the host's, the
            // waker's) and `event` our open event.
            if unsafe { WSAEventSelect(watched, set.event, FD_READ as i32) } != 0 {
                return Err(super::last_error());
            }
        }
        Ok(set)
    }

    /// The event to wait on (signalled means: service the host).
    pub fn raw(&self) -> HANDLE {
        self.event
    }

    /// Clears the event and the waker's pending wakes before the program
    /// waits again; whether `socket` already holds input (it then sets the
    /// event no more: WinSock signals input once until the next receive).
    pub fn rearm(&self, socket: ENetSocket, waker: &Waker) -> bool {
        // SAFETY: our open event.
        unsafe { WSAResetEvent(self.event) };
        waker.drain();
        let mut read_set = empty_set();
        set_add(&mut read_set, socket);
        let time = time_value(0);
        // SAFETY: the set and the time are valid for the call; the first
        // argument is ignored by WinSock.
        let ready = unsafe { select(0, &mut read_set, ptr::null_mut(), ptr::null_mut(), &time) };
        ready > 0 && set_holds(&read_set, socket)
    }
}

impl Drop for WaitSet {
    fn drop(&mut self) {
        // SAFETY: the waker's socket is still open (its queue outlives the
        // set, see `Endpoint::close`); a zero mask releases it from the
        // event before the event goes. The host's socket was closed
        // already, which released it.
        unsafe {
            WSAEventSelect(self.waker, 0, 0);
            WSACloseEvent(self.event);
        }
    }
}
