//! Why a host's encryption set-up was refused: shared by the reading of
//! keys and certificates (`setup.rs`) and the judging of the server's
//! certificate (`verify.rs`).

use std::fmt;

/// Why a set-up was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// No PEM block of the kind wanted, or one that does not decode.
    Pem(&'static str),
    /// The private key is not an ECDSA P-256 or P-384 key in PKCS#8 or
    /// SEC1 form.
    PrivateKey,
    /// A certificate does not parse.
    Certificate,
    /// The expected host name is not a DNS name or an IP address.
    HostName,
    /// The certificate for the client's own use could not be made.
    ClientCertificate,
    /// The DTLS library refused its configuration (its self-tests of the
    /// ciphers failed).
    Library,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Pem(what) => write!(f, "no readable PEM {what}"),
            SetupError::PrivateKey => {
                f.write_str("the private key is not an ECDSA P-256/P-384 key")
            }
            SetupError::Certificate => f.write_str("a certificate does not parse"),
            SetupError::HostName => f.write_str("the host name is not a DNS name or IP address"),
            SetupError::ClientCertificate => f.write_str("could not make the client's certificate"),
            SetupError::Library => f.write_str("the DTLS library refused its configuration"),
        }
    }
}
