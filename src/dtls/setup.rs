//! What a host needs to encrypt: as a server, its certificate and private
//! key; as a client, whether and against what it verifies the server, and
//! a certificate of its own for the DTLS library (never sent: our servers,
//! like Godot's, ask for none). Read from PEM, checked before any session
//! uses them, so that a bad key is refused here and never reaches the
//! library (which gives up with a panic on a key it cannot read).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use dimpl::{Config, DtlsCertificate};
use p256::ecdsa::{DerSignature, SigningKey};
use p256::pkcs8::EncodePrivateKey;
use rand_core::{OsRng, RngCore};
use x509_cert::builder::{Builder, CertificateBuilder, Profile};
use x509_cert::der::{Decode, Encode};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::SubjectPublicKeyInfoOwned;
use x509_cert::time::Validity;

use super::setup_error::SetupError;
use super::verify::Verifier;

/// The DER contents of every PEM block labelled `label` in `text`, in
/// order.
fn pem_blocks(text: &str, label: &str) -> Result<Vec<Vec<u8>>, SetupError> {
    let begin = "-----BEGIN ";
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(begin) {
        let block = &rest[start..];
        let Some(end_at) = block.find("-----END ") else {
            return Err(SetupError::Pem("block (no END line)"));
        };
        let end_line = block[end_at..]
            .find('\n')
            .map_or(block.len(), |n| end_at + n + 1);
        let (found, der) = pem_rfc7468::decode_vec(block[..end_line].trim_end().as_bytes())
            .map_err(|_| SetupError::Pem("block"))?;
        if found == label {
            blocks.push(der);
        }
        rest = &block[end_line..];
    }
    Ok(blocks)
}

/// The private key in `pem` as DER (PKCS#8 `PRIVATE KEY` or SEC1
/// `EC PRIVATE KEY`), if the DTLS library can sign with it.
fn private_key(pem: &str) -> Result<Vec<u8>, SetupError> {
    let key = pem_blocks(pem, "PRIVATE KEY")?
        .into_iter()
        .chain(pem_blocks(pem, "EC PRIVATE KEY")?)
        .next()
        .ok_or(SetupError::Pem("PRIVATE KEY or EC PRIVATE KEY"))?;
    dimpl::crypto::rust_crypto::default_provider()
        .key_provider
        .load_private_key(&key)
        .map_err(|_| SetupError::PrivateKey)?;
    Ok(key)
}

/// A server's set-up: the certificate it presents and its key, and the
/// configuration all its sessions share, whose random generator has the
/// fixed `seed` (see `gate.rs`).
#[derive(Clone)]
pub struct ServerSetup {
    pub(super) certificate: DtlsCertificate,
    pub(super) seed: u64,
    pub(super) config: Arc<Config>,
}

impl ServerSetup {
    /// From a PEM certificate chain (the first certificate is the server's
    /// own; the DTLS library presents that one) and a PEM private key.
    pub fn from_pem(certificate_chain: &str, private_key_pem: &str) -> Result<Self, SetupError> {
        let certificate = pem_blocks(certificate_chain, "CERTIFICATE")?
            .into_iter()
            .next()
            .ok_or(SetupError::Pem("CERTIFICATE"))?;
        Verifier::check_parses(&certificate)?;
        ServerSetup::new(DtlsCertificate {
            certificate,
            private_key: private_key(private_key_pem)?,
        })
    }

    fn new(certificate: DtlsCertificate) -> Result<Self, SetupError> {
        let seed = OsRng.next_u64();
        Ok(ServerSetup {
            certificate,
            seed,
            config: session_config(Some(seed))?,
        })
    }
}

impl ServerSetup {
    /// A server presenting a throwaway self-signed P-256 certificate (for
    /// tests and fuzzing: no client that verifies will take it).
    pub fn self_signed() -> Result<Self, SetupError> {
        ServerSetup::new(own_certificate()?)
    }
}

/// A client's set-up: how it checks the server, its own certificate, and
/// the configuration of its sessions.
#[derive(Clone)]
pub struct ClientSetup {
    pub(super) verifier: Arc<Verifier>,
    pub(super) certificate: DtlsCertificate,
    pub(super) config: Arc<Config>,
}

impl ClientSetup {
    /// `verify` off accepts any server certificate (encryption without
    /// authentication, as Godot's `verify = false`). On, the server's
    /// certificate must be one of the PEM certificates in `trusted`, or be
    /// signed by one of them, and be valid now; with `host_name`, it must
    /// also name that host.
    pub fn new(verify: bool, trusted: &str, host_name: Option<&str>) -> Result<Self, SetupError> {
        let verifier = if verify {
            let anchors = pem_blocks(trusted, "CERTIFICATE")?;
            if anchors.is_empty() {
                return Err(SetupError::Pem("CERTIFICATE to trust"));
            }
            Verifier::new(anchors, host_name)?
        } else {
            Verifier::accept_any()
        };
        Ok(ClientSetup {
            verifier: Arc::new(verifier),
            certificate: own_certificate()?,
            config: client_config()?,
        })
    }
}

/// The throwaway certificate's subject (and issuer), `CN=enet-rs client`,
/// in DER: a sequence holding one set holding one (OID 2.5.4.3, UTF-8
/// string) pair. Decoded rather than parsed from that text because the
/// text parser looks attribute names up in a table of every OID it knows,
/// and that table's pointers (27 KiB of them) would be relocated, and so
/// stay resident, in every process that loads the library.
const SUBJECT: &[u8] = b"\x30\x19\x31\x17\x30\x15\x06\x03\x55\x04\x03\x0c\x0eenet-rs client";

/// A throwaway self-signed P-256 certificate: the DTLS library wants one
/// for every endpoint, though a server that asks for none never sees it.
fn own_certificate() -> Result<DtlsCertificate, SetupError> {
    fn failed<E>(_: E) -> SetupError {
        SetupError::ClientCertificate
    }
    let key = SigningKey::random(&mut OsRng);
    let public = SubjectPublicKeyInfoOwned::from_key(*key.verifying_key()).map_err(failed)?;
    let subject = Name::from_der(SUBJECT).map_err(failed)?;
    let validity = Validity::from_now(Duration::from_secs(30 * 24 * 3600)).map_err(failed)?;
    let profile = Profile::Leaf {
        issuer: subject.clone(),
        enable_key_agreement: false,
        enable_key_encipherment: false,
    };
    let builder = CertificateBuilder::new(
        profile,
        SerialNumber::from(1u32),
        validity,
        subject,
        public,
        &key,
    )
    .map_err(failed)?;
    let certificate = builder.build::<DerSignature>().map_err(failed)?;
    Ok(DtlsCertificate {
        certificate: certificate.to_der().map_err(failed)?,
        private_key: key.to_pkcs8_der().map_err(failed)?.as_bytes().to_vec(),
    })
}

/// The DTLS library's settings for one session: DTLS 1.2, ECDSA
/// certificates with AES-GCM or ChaCha20-Poly1305, no client certificate
/// asked for, the server's stateless cookie (see `gate.rs` for how the
/// host makes it depend on the client's address), and `seed` for the
/// library's non-key randomness (cookie secret, randoms, nonces).
pub(super) fn session_config(seed: Option<u64>) -> Result<Arc<Config>, SetupError> {
    let mut builder = Config::builder()
        .with_crypto_provider(super::aead::provider())
        .require_client_certificate(false)
        .use_server_cookie(true)
        .handshake_timeout(Duration::from_secs(10));
    if let Some(seed) = seed {
        builder = builder.dangerously_set_rng_seed(seed);
    }
    // Building runs the library's self-tests of every cipher suite, a few
    // milliseconds: servers build one per set-up, clients share one.
    builder
        .build()
        .map(Arc::new)
        .map_err(|_| SetupError::Library)
}

/// The configuration of every client session in the process (its random
/// generator seeded from the system for each session).
fn client_config() -> Result<Arc<Config>, SetupError> {
    static CONFIG: OnceLock<Arc<Config>> = OnceLock::new();
    if let Some(config) = CONFIG.get() {
        return Ok(config.clone());
    }
    let config = session_config(None)?;
    Ok(CONFIG.get_or_init(|| config).clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_in_der_is_the_name_its_text_gives() {
        use std::str::FromStr;
        let parsed = Name::from_str("CN=enet-rs client").unwrap();
        assert_eq!(Name::from_der(SUBJECT).unwrap(), parsed);
        assert_eq!(parsed.to_der().unwrap(), SUBJECT);
    }

    #[test]
    fn pem_blocks_are_found_by_label_in_order() {
        let der = [0x30, 0x03, 0x02, 0x01, 0x05];
        let encode = |label| pem_rfc7468::encode_string(label, Default::default(), &der).unwrap();
        let text = format!(
            "junk\n{}{}\n{}",
            encode("CERTIFICATE"),
            encode("PRIVATE KEY"),
            encode("CERTIFICATE")
        );
        assert_eq!(
            pem_blocks(&text, "CERTIFICATE").unwrap(),
            vec![der.to_vec(), der.to_vec()]
        );
        assert_eq!(pem_blocks(&text, "PRIVATE KEY").unwrap().len(), 1);
        assert!(pem_blocks("-----BEGIN CERTIFICATE-----\nnot base64\n", "CERTIFICATE").is_err());
    }

    #[test]
    fn a_client_certificate_is_made_and_the_library_can_use_its_key() {
        let own = own_certificate().unwrap();
        assert!(!own.certificate.is_empty());
        assert!(dimpl::crypto::rust_crypto::default_provider()
            .key_provider
            .load_private_key(&own.private_key)
            .is_ok());
    }

    #[test]
    fn a_key_the_library_cannot_use_is_refused() {
        let not_a_key =
            pem_rfc7468::encode_string("PRIVATE KEY", Default::default(), &[0x30, 0]).unwrap();
        assert_eq!(private_key(&not_a_key), Err(SetupError::PrivateKey));
        assert!(matches!(private_key("nothing"), Err(SetupError::Pem(_))));
    }
}
