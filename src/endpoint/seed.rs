//! The random seed of a new host, from which its connect ids come.

use crate::net::clock;

/// A seed from the system's random source, or the time where that fails
/// (stock seeds from the time alone). The source is read directly rather
/// than through a hasher's per-thread keys: the thread-local lookup's call
/// stub sat in the library's last page of code, which then stayed
/// resident in every process for this one call.
pub fn random_seed() -> u32 {
    use rand_core::{OsRng, RngCore};
    let mut seed = [0u8; 4];
    match OsRng.try_fill_bytes(&mut seed) {
        Ok(()) => u32::from_ne_bytes(seed),
        Err(_) => clock::now(),
    }
}
