//! The operating-system glue: the ENet clock, IPv4 and IPv6 sockets, waiting,
//! address text and lookup. `unsafe` is allowed here (and in `ffi`) only.

pub mod address;
pub mod batch;
pub mod clock;
pub mod host_socket;
pub mod offload;
pub mod socket;
pub mod socket_name;
pub mod transport;
