//! How a client judges the certificate a server presents. The DTLS library
//! proves the server holds the certificate's key; whether the certificate
//! itself is one to trust is decided here, by rustls-webpki (chain, dates,
//! key usage, names), with ECDSA verification from the RustCrypto crates.
//!
//! A trusted certificate may be a CA that signed the server's, or the
//! server's own (the usual self-signed game server, whose certificate the
//! client is given, as Godot's `X509Certificate` is): that one is accepted
//! as it is, if valid now and, when asked, for the host name.

use std::time::SystemTime;

use p256::ecdsa::signature::Verifier as _;
use rustls_pki_types::{
    alg_id, AlgorithmIdentifier, CertificateDer, InvalidSignature, ServerName,
    SignatureVerificationAlgorithm, TrustAnchor, UnixTime,
};
use webpki::{EndEntityCert, KeyUsage};
use x509_cert::der::Decode;

use super::setup_error::SetupError;

/// ECDSA over P-256 with SHA-256 and over P-384 with SHA-384: what the DTLS
/// library's certificates are signed with.
#[derive(Debug)]
struct Ecdsa {
    curve: AlgorithmIdentifier,
    hash: AlgorithmIdentifier,
}

static P256_SHA256: Ecdsa = Ecdsa {
    curve: alg_id::ECDSA_P256,
    hash: alg_id::ECDSA_SHA256,
};
static P384_SHA384: Ecdsa = Ecdsa {
    curve: alg_id::ECDSA_P384,
    hash: alg_id::ECDSA_SHA384,
};
static ALGORITHMS: &[&dyn SignatureVerificationAlgorithm] = &[&P256_SHA256, &P384_SHA384];

impl SignatureVerificationAlgorithm for Ecdsa {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        if self.curve == alg_id::ECDSA_P256 {
            let key = p256::ecdsa::VerifyingKey::from_sec1_bytes(public_key)
                .map_err(|_| InvalidSignature)?;
            let signature =
                p256::ecdsa::DerSignature::try_from(signature).map_err(|_| InvalidSignature)?;
            key.verify(message, &signature)
                .map_err(|_| InvalidSignature)
        } else {
            let key = p384::ecdsa::VerifyingKey::from_sec1_bytes(public_key)
                .map_err(|_| InvalidSignature)?;
            let signature =
                p384::ecdsa::DerSignature::try_from(signature).map_err(|_| InvalidSignature)?;
            key.verify(message, &signature)
                .map_err(|_| InvalidSignature)
        }
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        self.curve
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        self.hash
    }
}

/// A client's judge of server certificates.
pub struct Verifier {
    /// The certificates trusted (DER); empty when anything is accepted.
    trusted: Vec<Vec<u8>>,
    host_name: Option<ServerName<'static>>,
    verify: bool,
}

impl Verifier {
    /// Accepts any certificate: encryption without authentication.
    pub fn accept_any() -> Self {
        Verifier {
            trusted: Vec::new(),
            host_name: None,
            verify: false,
        }
    }

    /// Trusts `trusted` (DER certificates) and, with `host_name`, wants
    /// the server's certificate to name it.
    pub fn new(trusted: Vec<Vec<u8>>, host_name: Option<&str>) -> Result<Self, SetupError> {
        for certificate in &trusted {
            Self::check_parses(certificate)?;
            webpki::anchor_from_trusted_cert(&CertificateDer::from(certificate.as_slice()))
                .map_err(|_| SetupError::Certificate)?;
        }
        let host_name = match host_name {
            Some(name) => Some(
                ServerName::try_from(name)
                    .map_err(|_| SetupError::HostName)?
                    .to_owned(),
            ),
            None => None,
        };
        Ok(Verifier {
            trusted,
            host_name,
            verify: true,
        })
    }

    /// Whether `certificate` (DER) parses as an X.509 certificate.
    pub fn check_parses(certificate: &[u8]) -> Result<(), SetupError> {
        x509_cert::Certificate::from_der(certificate)
            .map(drop)
            .map_err(|_| SetupError::Certificate)
    }

    /// Whether the server's certificate (DER) is one to accept; why not.
    pub fn judge(&self, presented: &[u8]) -> Result<(), String> {
        if !self.verify {
            return Ok(());
        }
        let now = UnixTime::since_unix_epoch(
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap_or_default(),
        );
        let der = CertificateDer::from(presented);
        let end_entity =
            EndEntityCert::try_from(&der).map_err(|error| format!("bad certificate: {error}"))?;
        if self.trusted.iter().any(|trusted| trusted == presented) {
            valid_now(presented)?;
        } else {
            let trusted: Vec<CertificateDer<'_>> = self
                .trusted
                .iter()
                .map(|der| CertificateDer::from(der.as_slice()))
                .collect();
            let anchors: Vec<TrustAnchor<'_>> = trusted
                .iter()
                .filter_map(|der| webpki::anchor_from_trusted_cert(der).ok())
                .collect();
            end_entity
                .verify_for_usage(
                    ALGORITHMS,
                    &anchors,
                    &[],
                    now,
                    KeyUsage::server_auth(),
                    None,
                    None,
                )
                .map_err(|error| format!("certificate not trusted: {error}"))?;
        }
        if let Some(name) = &self.host_name {
            end_entity
                .verify_is_valid_for_subject_name(name)
                .map_err(|error| format!("certificate is not for {}: {error}", name.to_str()))?;
        }
        Ok(())
    }
}

/// Whether a certificate's validity period holds now.
fn valid_now(certificate: &[u8]) -> Result<(), String> {
    let parsed =
        x509_cert::Certificate::from_der(certificate).map_err(|_| "bad certificate".to_string())?;
    let validity = parsed.tbs_certificate.validity;
    let now = SystemTime::now();
    if now < validity.not_before.to_system_time() {
        return Err("certificate not valid yet".into());
    }
    if now > validity.not_after.to_system_time() {
        return Err("certificate expired".into());
    }
    Ok(())
}
