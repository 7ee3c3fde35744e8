//! The host's checksum and compressor callbacks (`host->checksum`,
//! `host->compressor`) seen by the engine through [`Codec`].

use crate::abi::{ENetBuffer, ENetChecksumCallback, ENetCompressor};
use crate::mem::program_code::ProgramCode;
use crate::proto::Codec;

/// The C callbacks installed on one host, copied at the start of a call.
pub struct CallbackCodec {
    checksum: ENetChecksumCallback,
    compressor: ENetCompressor,
}

impl CallbackCodec {
    pub fn new(checksum: ENetChecksumCallback, compressor: ENetCompressor) -> Self {
        CallbackCodec {
            checksum,
            compressor,
        }
    }
}

impl Codec for CallbackCodec {
    fn has_checksum(&self) -> bool {
        self.checksum.is_some()
    }

    fn checksum(&mut self, parts: &[&[u8]]) -> [u8; 4] {
        let Some(checksum) = self.checksum else {
            return [0; 4];
        };
        let buffers: Vec<ENetBuffer> = parts
            .iter()
            .map(|part| ENetBuffer {
                data: part.as_ptr().cast_mut().cast(),
                dataLength: part.len(),
            })
            .collect();
        let _running = ProgramCode::enter();
        // SAFETY: a call of the checksum function the program installed (a
        // function pointer); `buffers` holds `buffers.len()` buffers, alive
        // until it returns, each pointing at `dataLength` readable bytes of
        // `parts`, which the callback only reads.
        let value = unsafe { checksum(buffers.as_ptr(), buffers.len()) };
        value.to_ne_bytes()
    }

    fn has_compressor(&self) -> bool {
        !self.compressor.context.is_null()
    }

    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> usize {
        let Some(compress) = self.compressor.compress else {
            return 0;
        };
        let buffer = ENetBuffer {
            data: input.as_ptr().cast_mut().cast(),
            dataLength: input.len(),
        };
        let _running = ProgramCode::enter();
        // SAFETY: a call of the program's own compressor (no `arg_*!`
        // shape: it is a function pointer) with the context it installed
        // it with; it reads `input` through one buffer, readable for its
        // length, and writes at most `out.len()` bytes into `out`, which
        // nothing else touches meanwhile.
        unsafe {
            compress(
                self.compressor.context,
                &buffer,
                1,
                input.len(),
                out.as_mut_ptr(),
                out.len(),
            )
        }
    }

    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> usize {
        let Some(decompress) = self.compressor.decompress else {
            return 0;
        };
        let _running = ProgramCode::enter();
        // SAFETY: as in `compress`: the program's decompressor, with its
        // context, reads `input` (readable for its length) and writes at
        // most `out.len()` bytes into `out`, which nothing else touches.
        unsafe {
            decompress(
                self.compressor.context,
                input.as_ptr(),
                input.len(),
                out.as_mut_ptr(),
                out.len(),
            )
        }
    }
}

/// Has the program's compressor free its context, if it has one (the
/// compressor is being replaced, or its host destroyed).
pub fn destroy_context(compressor: &ENetCompressor) {
    if let (false, Some(destroy)) = (compressor.context.is_null(), compressor.destroy) {
        let _running = ProgramCode::enter();
        // SAFETY: the program installed this compressor with this context
        // and asked for `destroy` to be called on it once; the caller
        // replaces or drops the compressor right after.
        unsafe { destroy(compressor.context) };
    }
}
