//! Batched datagram I/O: `recvmmsg` and `sendmmsg` move up to [`BATCH`]
//! datagrams per system call, where stock ENet makes one call each.

use core::mem::{size_of, zeroed};
use core::ptr;
use std::io::{self, ErrorKind};

use super::address::{from_sockaddr_in, sockaddr_in};
use crate::abi::{ENetAddress, ENetSocket};

/// Datagrams per system call.
pub const BATCH: usize = 32;
/// Room for one datagram: the largest ENet datagram (its maximum MTU).
/// A longer one arrives truncated and is reported as such.
pub const DATAGRAM_CAPACITY: usize = 4096;

/// One datagram taken from a [`ReceiveBatch`].
#[derive(Debug)]
pub enum Datagram<'a> {
    Received {
        from: ENetAddress,
        bytes: &'a [u8],
    },
    /// Longer than [`DATAGRAM_CAPACITY`]; its contents are lost.
    Truncated,
}

/// Datagrams read from a socket and not handled yet.
///
/// The `recvmmsg` headers are built once and point into the batch's own
/// heap buffers, which never move, so a read costs no set-up.
pub struct ReceiveBatch {
    storage: Box<[u8]>,
    names: Box<[libc::sockaddr_in]>,
    /// Read only by the kernel, through `headers`; owned here so they live.
    #[allow(dead_code)]
    vectors: Box<[libc::iovec]>,
    headers: Box<[libc::mmsghdr]>,
    lengths: [usize; BATCH],
    sources: [ENetAddress; BATCH],
    truncated: [bool; BATCH],
    filled: usize,
    next: usize,
}

impl Default for ReceiveBatch {
    fn default() -> Self {
        let mut storage = vec![0u8; BATCH * DATAGRAM_CAPACITY].into_boxed_slice();
        // SAFETY: sockaddr_in and mmsghdr are plain old data; zeroes are valid.
        let mut names: Box<[libc::sockaddr_in]> = (0..BATCH).map(|_| unsafe { zeroed() }).collect();
        let mut vectors: Box<[libc::iovec]> = storage
            .chunks_exact_mut(DATAGRAM_CAPACITY)
            .map(|chunk| libc::iovec {
                iov_base: chunk.as_mut_ptr().cast(),
                iov_len: chunk.len(),
            })
            .collect();
        // SAFETY: as above.
        let mut headers: Box<[libc::mmsghdr]> = (0..BATCH).map(|_| unsafe { zeroed() }).collect();
        for (index, header) in headers.iter_mut().enumerate() {
            header.msg_hdr.msg_name = (&mut names[index] as *mut libc::sockaddr_in).cast();
            header.msg_hdr.msg_iov = &mut vectors[index];
            header.msg_hdr.msg_iovlen = 1;
        }
        ReceiveBatch {
            storage,
            names,
            vectors,
            headers,
            lengths: [0; BATCH],
            sources: [ENetAddress::default(); BATCH],
            truncated: [false; BATCH],
            filled: 0,
            next: 0,
        }
    }
}

impl ReceiveBatch {
    /// Whether datagrams read earlier are still waiting.
    pub fn has_pending(&self) -> bool {
        self.next < self.filled
    }

    /// The next datagram read earlier, if any.
    pub fn pop(&mut self) -> Option<Datagram<'_>> {
        if self.next >= self.filled {
            return None;
        }
        let index = self.next;
        self.next += 1;
        if self.truncated[index] {
            return Some(Datagram::Truncated);
        }
        let start = index * DATAGRAM_CAPACITY;
        Some(Datagram::Received {
            from: self.sources[index],
            bytes: &self.storage[start..start + self.lengths[index]],
        })
    }

    /// Reads the datagrams waiting on `socket` (up to [`BATCH`]) without
    /// blocking; how many. "Nothing waiting" is `Ok(0)`.
    pub fn fill(&mut self, socket: ENetSocket) -> io::Result<usize> {
        self.filled = 0;
        self.next = 0;
        for header in self.headers.iter_mut() {
            header.msg_hdr.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
            header.msg_hdr.msg_flags = 0;
        }
        // SAFETY: every header points at its own name and iovec in this
        // batch's heap buffers (set up in `default`, never moved), and the
        // iovecs at `storage`; all are exclusively borrowed through `self`.
        let received = unsafe {
            libc::recvmmsg(
                socket,
                self.headers.as_mut_ptr(),
                BATCH as libc::c_uint,
                libc::MSG_DONTWAIT,
                ptr::null_mut(),
            )
        };
        if received < 0 {
            let error = io::Error::last_os_error();
            return match error.kind() {
                ErrorKind::WouldBlock | ErrorKind::Interrupted => Ok(0),
                _ => Err(error),
            };
        }
        let received = received as usize;
        for index in 0..received {
            let header = &self.headers[index];
            self.lengths[index] = header.msg_len as usize;
            self.truncated[index] = header.msg_hdr.msg_flags & libc::MSG_TRUNC != 0;
            self.sources[index] = from_sockaddr_in(&self.names[index]);
        }
        self.filled = received;
        Ok(received)
    }
}

/// Datagrams waiting to be sent together.
#[derive(Default)]
pub struct SendBatch {
    bytes: Vec<u8>,
    datagrams: Vec<(ENetAddress, usize, usize)>,
    /// The `sendmmsg` arguments, kept between flushes so sending costs no
    /// allocation once they have grown.
    names: Vec<libc::sockaddr_in>,
    vectors: Vec<libc::iovec>,
    headers: Vec<libc::mmsghdr>,
}

impl SendBatch {
    pub fn push(&mut self, to: &ENetAddress, datagram: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(datagram);
        self.datagrams.push((*to, start, datagram.len()));
    }

    pub fn is_empty(&self) -> bool {
        self.datagrams.is_empty()
    }

    /// Whether a whole `sendmmsg` call's worth is waiting: flushing then
    /// keeps the batch (and its memory) bounded however many peers a send
    /// pass visits.
    pub fn is_full(&self) -> bool {
        self.datagrams.len() >= BATCH
    }

    /// Sends everything pushed, [`BATCH`] datagrams per call. A full send
    /// buffer drops the rest, as a would-block send drops a datagram in
    /// stock ENet; any other error is returned (the batch is emptied
    /// either way).
    pub fn flush(&mut self, socket: ENetSocket) -> io::Result<()> {
        let result = if self.datagrams.is_empty() {
            Ok(())
        } else {
            self.send_all(socket)
        };
        self.bytes.clear();
        self.datagrams.clear();
        result
    }

    fn send_all(&mut self, socket: ENetSocket) -> io::Result<()> {
        // The argument arrays are rebuilt in full before any pointer into
        // them is taken, so no reallocation can move what a header points at.
        self.names.clear();
        self.names
            .extend(self.datagrams.iter().map(|(to, _, _)| sockaddr_in(to)));
        self.vectors.clear();
        for &(_, start, length) in &self.datagrams {
            self.vectors.push(libc::iovec {
                iov_base: self.bytes[start..start + length].as_ptr().cast_mut().cast(),
                iov_len: length,
            });
        }
        self.headers.clear();
        for index in 0..self.datagrams.len() {
            // SAFETY: mmsghdr is plain old data; zeroes are valid.
            let mut header: libc::mmsghdr = unsafe { zeroed() };
            header.msg_hdr.msg_name = (&mut self.names[index] as *mut libc::sockaddr_in).cast();
            header.msg_hdr.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
            header.msg_hdr.msg_iov = &mut self.vectors[index];
            header.msg_hdr.msg_iovlen = 1;
            self.headers.push(header);
        }
        let mut sent = 0;
        while sent < self.headers.len() {
            let count = (self.headers.len() - sent).min(BATCH);
            // SAFETY: the headers point at names and iovecs in this batch's
            // vectors, unchanged until the next flush; the iovecs point at
            // `self.bytes`, only read.
            let result = unsafe {
                libc::sendmmsg(
                    socket,
                    self.headers[sent..].as_mut_ptr(),
                    count as libc::c_uint,
                    libc::MSG_NOSIGNAL,
                )
            };
            if result < 0 {
                let error = io::Error::last_os_error();
                match error.kind() {
                    ErrorKind::Interrupted => continue,
                    ErrorKind::WouldBlock => return Ok(()),
                    _ => return Err(error),
                }
            }
            sent += result as usize;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::socket;

    fn bound_udp() -> (ENetSocket, ENetAddress) {
        let sock =
            socket::create(crate::abi::ENetSocketType::ENET_SOCKET_TYPE_DATAGRAM as libc::c_int)
                .unwrap();
        let mut address = ENetAddress {
            host: u32::from_ne_bytes([127, 0, 0, 1]),
            port: 0,
        };
        socket::bind(sock, Some(&address)).unwrap();
        address = socket::local_address(sock).unwrap();
        socket::set_option(
            sock,
            crate::abi::ENetSocketOption::ENET_SOCKOPT_NONBLOCK as libc::c_int,
            1,
        )
        .unwrap();
        (sock, address)
    }

    #[test]
    fn batches_carry_many_datagrams_each_way() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, sender_address) = bound_udp();
        let mut outgoing = SendBatch::default();
        for index in 0..(BATCH + 5) {
            outgoing.push(&receiver_address, &[index as u8; 100][..index + 1]);
        }
        outgoing.flush(sender).unwrap();
        assert!(outgoing.is_empty());
        let mut incoming = ReceiveBatch::default();
        let mut seen = Vec::new();
        while incoming.fill(receiver).unwrap() > 0 {
            while let Some(datagram) = incoming.pop() {
                match datagram {
                    Datagram::Received { from, bytes } => {
                        assert_eq!(from, sender_address);
                        seen.push(bytes.to_vec());
                    }
                    Datagram::Truncated => panic!("truncated"),
                }
            }
        }
        assert_eq!(seen.len(), BATCH + 5);
        for (index, bytes) in seen.iter().enumerate() {
            assert_eq!(bytes, &vec![index as u8; index + 1]);
        }
        socket::destroy(receiver);
        socket::destroy(sender);
    }

    #[test]
    fn an_oversized_datagram_is_reported_truncated() {
        let (receiver, receiver_address) = bound_udp();
        let (sender, _) = bound_udp();
        let mut outgoing = SendBatch::default();
        outgoing.push(&receiver_address, &[1; DATAGRAM_CAPACITY + 100]);
        outgoing.push(&receiver_address, b"after");
        outgoing.flush(sender).unwrap();
        let mut incoming = ReceiveBatch::default();
        let mut kinds = Vec::new();
        for _ in 0..100 {
            if incoming.fill(receiver).unwrap() > 0 {
                while let Some(datagram) = incoming.pop() {
                    kinds.push(matches!(datagram, Datagram::Truncated));
                }
            }
            if kinds.len() == 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(kinds, vec![true, false]);
        socket::destroy(receiver);
        socket::destroy(sender);
    }
}
