//! The host's optional datagram checksum and compressor, as the engine
//! sees them. The C driver implements this over `host->checksum` and
//! `host->compressor`; [`WireCodec`] is the same pair in Rust, for the
//! simulator, the fuzz targets and Rust callers.

use crate::wire::checksum::enet_crc32;
use crate::wire::range_coder::RangeCoder;

/// Checksum and compression for one host.
pub trait Codec {
    /// Whether datagrams carry a checksum slot.
    fn has_checksum(&self) -> bool;
    /// The checksum of a datagram given as consecutive parts.
    fn checksum(&mut self, parts: &[&[u8]]) -> [u8; 4];
    /// Whether a compressor is installed.
    fn has_compressor(&self) -> bool;
    /// Compresses `input` into `out`; the compressed length, 0 on failure.
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> usize;
    /// Decompresses `input` into `out`; the decompressed length, 0 on failure.
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> usize;
}

/// No checksum, no compression.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoCodec;

impl Codec for NoCodec {
    fn has_checksum(&self) -> bool {
        false
    }
    fn checksum(&mut self, _parts: &[&[u8]]) -> [u8; 4] {
        [0; 4]
    }
    fn has_compressor(&self) -> bool {
        false
    }
    fn compress(&mut self, _input: &[u8], _out: &mut [u8]) -> usize {
        0
    }
    fn decompress(&mut self, _input: &[u8], _out: &mut [u8]) -> usize {
        0
    }
}

/// ENet's own options in Rust: the CRC-32 checksum (as
/// `enet_crc32`) and the range coder (as `enet_host_compress_with_range_coder`),
/// each on or off.
pub struct WireCodec {
    pub checksum: bool,
    pub coder: Option<RangeCoder>,
}

impl WireCodec {
    pub fn new(checksum: bool, compress: bool) -> Self {
        WireCodec {
            checksum,
            coder: compress.then(RangeCoder::new),
        }
    }
}

impl Codec for WireCodec {
    fn has_checksum(&self) -> bool {
        self.checksum
    }
    fn checksum(&mut self, parts: &[&[u8]]) -> [u8; 4] {
        enet_crc32(parts)
    }
    fn has_compressor(&self) -> bool {
        self.coder.is_some()
    }
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> usize {
        self.coder
            .as_mut()
            .map_or(0, |coder| coder.compress(&[input], out))
    }
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> usize {
        self.coder
            .as_mut()
            .map_or(0, |coder| coder.decompress(input, out))
    }
}
