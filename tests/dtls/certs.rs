//! Certificates for the encryption tests, made at run time: a CA and
//! server certificates it signs (for `localhost`), and self-signed ones.

use std::str::FromStr;
use std::time::Duration;

use p256::ecdsa::{DerSignature, SigningKey};
use p256::pkcs8::{EncodePrivateKey, LineEnding};
use rand_core::OsRng;
use x509_cert::builder::{Builder, CertificateBuilder, Profile};
use x509_cert::der::asn1::Ia5String;
use x509_cert::der::Encode;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::SubjectPublicKeyInfoOwned;
use x509_cert::time::Validity;

/// A certificate and its key, in PEM and DER.
pub struct Identity {
    pub certificate_pem: String,
    pub key_pem: String,
    pub certificate_der: Vec<u8>,
    pub key_der: Vec<u8>,
    name: Name,
    key: SigningKey,
}

fn pem(label: &str, der: &[u8]) -> String {
    pem_rfc7468::encode_string(label, pem_rfc7468::LineEnding::LF, der).unwrap()
}

fn identity(certificate_der: Vec<u8>, name: Name, key: SigningKey) -> Identity {
    Identity {
        certificate_pem: pem("CERTIFICATE", &certificate_der),
        key_pem: key.to_pkcs8_pem(LineEnding::LF).unwrap().to_string(),
        key_der: key.to_pkcs8_der().unwrap().as_bytes().to_vec(),
        certificate_der,
        name,
        key,
    }
}

fn validity() -> Validity {
    Validity::from_now(Duration::from_secs(24 * 3600)).unwrap()
}

/// A CA certificate (self-signed).
pub fn ca(name: &str) -> Identity {
    let key = SigningKey::random(&mut OsRng);
    let subject = Name::from_str(&format!("CN={name}")).unwrap();
    let public = SubjectPublicKeyInfoOwned::from_key(*key.verifying_key()).unwrap();
    let builder = CertificateBuilder::new(
        Profile::Root,
        SerialNumber::from(1u32),
        validity(),
        subject.clone(),
        public,
        &key,
    )
    .unwrap();
    let certificate = builder.build::<DerSignature>().unwrap();
    identity(certificate.to_der().unwrap(), subject, key)
}

/// A server certificate for `dns_name`, signed by `issuer`.
pub fn server(issuer: &Identity, dns_name: &str) -> Identity {
    let key = SigningKey::random(&mut OsRng);
    let subject = Name::from_str(&format!("CN={dns_name}")).unwrap();
    let public = SubjectPublicKeyInfoOwned::from_key(*key.verifying_key()).unwrap();
    let profile = Profile::Leaf {
        issuer: issuer.name.clone(),
        enable_key_agreement: false,
        enable_key_encipherment: false,
    };
    let mut builder = CertificateBuilder::new(
        profile,
        SerialNumber::from(2u32),
        validity(),
        subject.clone(),
        public,
        &issuer.key,
    )
    .unwrap();
    builder
        .add_extension(&SubjectAltName(vec![GeneralName::DnsName(
            Ia5String::new(dns_name).unwrap(),
        )]))
        .unwrap();
    let certificate = builder.build::<DerSignature>().unwrap();
    identity(certificate.to_der().unwrap(), subject, key)
}
