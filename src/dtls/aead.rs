//! The record ciphers of encrypted sessions. The DTLS library's own
//! backend (RustCrypto) multiplies GHASH blocks one at a time; `ring`'s
//! AES-GCM and ChaCha20-Poly1305 (BoringSSL's assembly) run about four
//! times faster, which is most of what encryption costs per message. So,
//! with the `ring` feature (the default), the library is given the same
//! three DTLS 1.2 suites with `ring` doing their AEAD; everything else
//! (key exchange, signatures, hashes, randomness) stays the RustCrypto
//! backend's. Without the feature (a build where `ring`'s C and assembly
//! cannot be compiled) the RustCrypto backend does it all.
//!
//! Only glue lives here: the suites' protocol constants (RFC 5288, RFC
//! 7905) and calls into `ring`. The library checks every suite against
//! known answers when a configuration is built, so a wrong constant would
//! stop the host from encrypting at all rather than produce bad records.

use dimpl::crypto::CryptoProvider;

/// The provider every session's configuration is built with.
pub fn provider() -> CryptoProvider {
    let base = dimpl::crypto::rust_crypto::default_provider();
    #[cfg(feature = "ring")]
    let base = CryptoProvider {
        cipher_suites: ring_suites::SUITES,
        ..base
    };
    base
}

#[cfg(feature = "ring")]
mod ring_suites {
    use dimpl::crypto::{
        Aad, Buf, Cipher, Dtls12CipherSuite, HashAlgorithm, Nonce, SupportedDtls12CipherSuite,
        TmpBuf,
    };
    use std::sync::Arc;

    use dimpl::{CryptoError, CryptoOperation};
    use ring::aead::{self, LessSafeKey, UnboundKey};

    use super::super::record::{self, CipherKey};

    /// Tag length of all three suites.
    const TAG: usize = 16;

    /// A DTLS 1.2 ECDHE-ECDSA suite whose AEAD `ring` computes.
    #[derive(Debug)]
    pub struct Suite {
        suite: Dtls12CipherSuite,
        hash: HashAlgorithm,
        algorithm: &'static aead::Algorithm,
        /// The key and the implicit IV from the key block.
        key_length: usize,
        fixed_iv_length: usize,
        /// Nonce bytes carried in each record (GCM: 8; ChaCha20: none).
        explicit_nonce_length: usize,
    }

    static AES_128_GCM: Suite = Suite {
        suite: Dtls12CipherSuite::ECDHE_ECDSA_AES128_GCM_SHA256,
        hash: HashAlgorithm::SHA256,
        algorithm: &aead::AES_128_GCM,
        key_length: 16,
        fixed_iv_length: 4,
        explicit_nonce_length: 8,
    };
    static AES_256_GCM: Suite = Suite {
        suite: Dtls12CipherSuite::ECDHE_ECDSA_AES256_GCM_SHA384,
        hash: HashAlgorithm::SHA384,
        algorithm: &aead::AES_256_GCM,
        key_length: 32,
        fixed_iv_length: 4,
        explicit_nonce_length: 8,
    };
    static CHACHA20_POLY1305: Suite = Suite {
        suite: Dtls12CipherSuite::ECDHE_ECDSA_CHACHA20_POLY1305_SHA256,
        hash: HashAlgorithm::SHA256,
        algorithm: &aead::CHACHA20_POLY1305,
        key_length: 32,
        fixed_iv_length: 12,
        explicit_nonce_length: 0,
    };

    /// In the RustCrypto backend's order of preference.
    pub static SUITES: &[&dyn SupportedDtls12CipherSuite] =
        &[&AES_128_GCM, &AES_256_GCM, &CHACHA20_POLY1305];

    impl SupportedDtls12CipherSuite for Suite {
        fn suite(&self) -> Dtls12CipherSuite {
            self.suite
        }

        fn hash_algorithm(&self) -> HashAlgorithm {
            self.hash
        }

        fn key_lengths(&self) -> (usize, usize, usize) {
            (0, self.key_length, self.fixed_iv_length)
        }

        fn explicit_nonce_len(&self) -> usize {
            self.explicit_nonce_length
        }

        fn tag_len(&self) -> usize {
            TAG
        }

        fn create_cipher(&self, key: &[u8]) -> Result<Box<dyn Cipher>, CryptoError> {
            let key = UnboundKey::new(self.algorithm, key)
                .map_err(|_| CryptoError::OperationFailed(CryptoOperation::Encrypt))?;
            let key = Arc::new(CipherKey::new(
                LessSafeKey::new(key),
                self.explicit_nonce_length,
            ));
            // The session being set up gets the key too (`record.rs`).
            record::made(&key);
            Ok(Box::new(RingCipher(key)))
        }
    }

    #[derive(Debug)]
    struct RingCipher(Arc<CipherKey>);

    impl Cipher for RingCipher {
        fn encrypt(&mut self, data: &mut Buf, aad: Aad, nonce: Nonce) -> Result<(), CryptoError> {
            let tag = self
                .0
                .key()
                .seal_in_place_separate_tag(
                    aead::Nonce::assume_unique_for_key(nonce.0),
                    aead::Aad::from(&aad[..]),
                    data,
                )
                .map_err(|_| CryptoError::OperationFailed(CryptoOperation::Encrypt))?;
            data.extend_from_slice(tag.as_ref());
            self.0.sealed_by_library(&nonce.0, &aad);
            Ok(())
        }

        fn decrypt(
            &mut self,
            ciphertext: &mut TmpBuf,
            aad: Aad,
            nonce: Nonce,
        ) -> Result<(), CryptoError> {
            let length = ciphertext.len();
            if length < TAG {
                return Err(CryptoError::OperationFailed(CryptoOperation::Decrypt));
            }
            self.0
                .key()
                .open_in_place(
                    aead::Nonce::assume_unique_for_key(nonce.0),
                    aead::Aad::from(&aad[..]),
                    ciphertext.as_mut(),
                )
                .map_err(|_| CryptoError::OperationFailed(CryptoOperation::Decrypt))?;
            ciphertext.truncate(length - TAG);
            self.0.opened_by_library(&nonce.0, &aad);
            Ok(())
        }
    }
}

#[cfg(all(test, feature = "ring"))]
mod tests {
    use dimpl::crypto::{Aad, Buf, Nonce, TmpBuf};

    /// `ring`'s cipher and the RustCrypto backend's agree, record for
    /// record, in both directions, for every suite.
    #[test]
    fn ring_and_rustcrypto_ciphers_agree() {
        let rust_crypto = dimpl::crypto::rust_crypto::default_provider().cipher_suites;
        for ours in super::ring_suites::SUITES {
            let theirs = rust_crypto
                .iter()
                .find(|suite| suite.suite() == ours.suite())
                .expect("the same suite in the RustCrypto backend");
            assert_eq!(ours.key_lengths(), theirs.key_lengths());
            assert_eq!(ours.explicit_nonce_len(), theirs.explicit_nonce_len());
            assert_eq!(ours.tag_len(), theirs.tag_len());
            assert_eq!(ours.hash_algorithm(), theirs.hash_algorithm());
            let key: Vec<u8> = (0..ours.key_lengths().1 as u8).collect();
            let mut ring = ours.create_cipher(&key).unwrap();
            let mut reference = theirs.create_cipher(&key).unwrap();
            let aad = || Aad((0..13u8).collect());
            for length in [0usize, 1, 15, 16, 17, 1400] {
                let plaintext: Vec<u8> = (0..length).map(|i| (i * 7) as u8).collect();
                let nonce = Nonce([length as u8; 12]);
                let mut sealed = Buf::new();
                sealed.extend_from_slice(&plaintext);
                ring.encrypt(&mut sealed, aad(), Nonce(nonce.0)).unwrap();
                let mut expected = Buf::new();
                expected.extend_from_slice(&plaintext);
                reference
                    .encrypt(&mut expected, aad(), Nonce(nonce.0))
                    .unwrap();
                assert_eq!(&sealed[..], &expected[..], "{:?} {length}", ours.suite());

                let mut opened = sealed.to_vec();
                let mut buffer = TmpBuf::new(&mut opened);
                reference
                    .decrypt(&mut buffer, aad(), Nonce(nonce.0))
                    .unwrap();
                assert_eq!(buffer.as_ref(), &plaintext[..]);

                let mut tampered = sealed.to_vec();
                tampered[0] ^= 1;
                let mut buffer = TmpBuf::new(&mut tampered);
                assert!(ring.decrypt(&mut buffer, aad(), Nonce(nonce.0)).is_err());
                let mut short = vec![0u8; 15];
                let mut buffer = TmpBuf::new(&mut short);
                assert!(ring.decrypt(&mut buffer, aad(), Nonce(nonce.0)).is_err());
            }
        }
    }
}
