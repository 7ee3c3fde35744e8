//! Sockets over the OS (filled in by the socket work).
