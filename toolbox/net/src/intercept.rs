//! TLS termination for credential injection into HTTPS: a per-sandbox
//! certificate authority ([`Interceptor`]) whose certificate the sandbox
//! trusts, and the leaf certificates it issues for the hosts that have an
//! injected header (`--net-header`).
//!
//! A header can only be added to an HTTPS request by something that sees the
//! request, so for those hosts (and only those) the egress proxy answers the
//! `CONNECT` itself: it completes the TLS handshake with a leaf certificate
//! for the host signed by this CA, reads the request, and sends it through
//! the checked client ([`crate::Egress::send`]), which adds the header and
//! verifies the real server's certificate against the host's roots. The CA's
//! key is generated in memory when the sandbox starts and never leaves the
//! host side; only its certificate goes into the sandbox's trust store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// Why the CA or a leaf certificate could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterceptError {
    /// Key generation or signing failed.
    #[error("sandkeep CA: {0}")]
    Cert(String),
    /// The TLS server configuration was refused.
    #[error("sandkeep CA: TLS server setup: {0}")]
    Tls(String),
}

/// A per-sandbox CA and the TLS server configurations it issued, one per host.
///
/// ```
/// use sandkeep_net::intercept::Interceptor;
///
/// let ca = Interceptor::generate("sandkeep sandbox s-1").unwrap();
/// assert!(ca.ca_pem().starts_with("-----BEGIN CERTIFICATE-----"));
/// // A leaf for a host, cached for the next tunnel to it.
/// let a = ca.server_config("api.example.com").unwrap();
/// let b = ca.server_config("API.example.com").unwrap();
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// ```
pub struct Interceptor {
    ca_cert: CertificateDer<'static>,
    ca_pem: String,
    issuer: Issuer<'static, KeyPair>,
    leaves: Mutex<HashMap<String, Arc<rustls::ServerConfig>>>,
}

impl std::fmt::Debug for Interceptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interceptor").finish_non_exhaustive()
    }
}

impl Interceptor {
    /// A fresh CA named `name` (its key exists only in this value).
    pub fn generate(name: &str) -> Result<Interceptor, InterceptError> {
        let cert_err = |e: rcgen::Error| InterceptError::Cert(e.to_string());
        let key = KeyPair::generate().map_err(cert_err)?;
        let mut params = CertificateParams::new(Vec::<String>::new()).map_err(cert_err)?;
        params.distinguished_name.push(DnType::CommonName, name);
        params
            .distinguished_name
            .push(DnType::OrganizationName, "sandkeep");
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&key).map_err(cert_err)?;
        Ok(Interceptor {
            ca_cert: cert.der().clone(),
            ca_pem: cert.pem(),
            issuer: Issuer::new(params, key),
            leaves: Mutex::new(HashMap::new()),
        })
    }

    /// The CA certificate in PEM, for the sandbox's trust store.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// A TLS server configuration presenting a certificate for `host` (a DNS
    /// name or an IP address) signed by this CA; made once per host.
    pub fn server_config(&self, host: &str) -> Result<Arc<rustls::ServerConfig>, InterceptError> {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let mut leaves = self.leaves.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(config) = leaves.get(&host) {
            return Ok(config.clone());
        }
        let cert_err = |e: rcgen::Error| InterceptError::Cert(e.to_string());
        let key = KeyPair::generate().map_err(cert_err)?;
        let mut params = CertificateParams::new(vec![host.clone()]).map_err(cert_err)?;
        params.distinguished_name.push(DnType::CommonName, &host);
        params.use_authority_key_identifier_extension = true;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let leaf = params.signed_by(&key, &self.issuer).map_err(cert_err)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| InterceptError::Tls(e.to_string()))?
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone(), self.ca_cert.clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .map_err(|e| InterceptError::Tls(e.to_string()))?;
        let config = Arc::new(config);
        leaves.insert(host, config.clone());
        Ok(config)
    }
}
