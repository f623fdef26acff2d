#include "actors/cluster_credentials.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

#include <cstdio>
#include <cstring>

namespace tensoract {
namespace {

// The identity both ends name in the TLS 1.3 PSK handshake; the key is what matters.
constexpr const char* kPskIdentity = "tensoract-cluster";

Digest Sha256(const std::string& data) {
  Digest out{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

std::string Hex(const Digest& d, size_t bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < bytes && i < d.size(); ++i) {
    s += digits[d[i] >> 4];
    s += digits[d[i] & 15];
  }
  return s;
}

// The control channel's pre-shared key, kept with the context (app data) for the callbacks.
struct PskKey {
  Digest key;
};

const PskKey* KeyOf(SSL* ssl) {
  return static_cast<const PskKey*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
}

unsigned int PskServer(SSL* ssl, const char* identity, unsigned char* psk, unsigned int max_len) {
  const PskKey* key = KeyOf(ssl);
  if (key == nullptr || identity == nullptr || std::strcmp(identity, kPskIdentity) != 0) return 0;
  if (max_len < key->key.size()) return 0;
  std::memcpy(psk, key->key.data(), key->key.size());
  return static_cast<unsigned int>(key->key.size());
}

unsigned int PskClient(SSL* ssl, const char*, char* identity, unsigned int max_identity_len, unsigned char* psk,
                       unsigned int max_len) {
  const PskKey* key = KeyOf(ssl);
  if (key == nullptr || max_len < key->key.size() || max_identity_len <= std::strlen(kPskIdentity)) return 0;
  std::strcpy(identity, kPskIdentity);
  std::memcpy(psk, key->key.data(), key->key.size());
  return static_cast<unsigned int>(key->key.size());
}

Status ConfigureToken(SSL_CTX* ctx, const std::string& token) {
  // TLS 1.3 only: its PSK handshake adds an ephemeral key exchange (forward secrecy), and
  // the legacy PSK callbacks feed it with a SHA-256 suite.
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  if (SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256") != 1) {
    return errors::Internal("cannot select TLS 1.3 suites: ", SslErrorText());
  }
  auto* key = new PskKey{DeriveKey(token, "control channel psk")};
  SSL_CTX_set_app_data(ctx, key);
  SSL_CTX_set_psk_server_callback(ctx, PskServer);
  SSL_CTX_set_psk_client_callback(ctx, PskClient);
  SSL_CTX_set_num_tickets(ctx, 0);  // nobody resumes: every connection proves the key again
  return Status::OK();
}

Status ConfigureCertificates(SSL_CTX* ctx, const ClusterCredentials& c) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx, c.tls_cert_file.c_str()) != 1) {
    return errors::InvalidArgument("cannot load the TLS certificate '", c.tls_cert_file, "': ", SslErrorText());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, c.tls_key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return errors::InvalidArgument("cannot load the TLS key '", c.tls_key_file, "': ", SslErrorText());
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return errors::InvalidArgument("the TLS key '", c.tls_key_file, "' does not match the certificate '",
                                   c.tls_cert_file, "'");
  }
  if (SSL_CTX_load_verify_locations(ctx, c.tls_ca_file.c_str(), nullptr) != 1) {
    return errors::InvalidArgument("cannot load the cluster CA '", c.tls_ca_file, "': ", SslErrorText());
  }
  // Both directions: a server refuses a client without a certificate from the cluster CA.
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_num_tickets(ctx, 0);
  return Status::OK();
}

}  // namespace

Status ClusterCredentials::Validate() const {
  if (tls()) {
    if (tls_key_file.empty()) return errors::InvalidArgument("TLS mode needs the task's key (--tls-key)");
    if (tls_ca_file.empty()) return errors::InvalidArgument("TLS mode needs the cluster CA (--tls-ca)");
    return Status::OK();
  }
  if (token.empty()) return errors::InvalidArgument("no cluster token and no TLS certificate: nothing to prove membership with");
  return Status::OK();
}

std::string ClusterCredentials::Fingerprint() const {
  if (tls()) return "tls:" + Hex(Sha256(tls_cert_file + '\0' + tls_key_file + '\0' + tls_ca_file), 8);
  return "token:" + Hex(Sha256("tensoract token fingerprint\0" + token), 8);
}

void SslContextDeleter::operator()(SSL_CTX* ctx) const {
  if (ctx == nullptr) return;
  delete static_cast<PskKey*>(SSL_CTX_get_app_data(ctx));
  SSL_CTX_free(ctx);
}

StatusOr<SslContextPtr> MakeSslContext(const ClusterCredentials& credentials) {
  TA_RETURN_IF_ERROR(credentials.Validate());
  SslContextPtr ctx(SSL_CTX_new(TLS_method()));
  if (!ctx) return errors::Internal("cannot create an OpenSSL context: ", SslErrorText());
  // CAF retries a write with whatever its buffer holds then, possibly moved; and a short
  // write is fine for a stream.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (credentials.tls()) {
    TA_RETURN_IF_ERROR(ConfigureCertificates(ctx.get(), credentials));
  } else {
    TA_RETURN_IF_ERROR(ConfigureToken(ctx.get(), credentials.token));
  }
  return ctx;
}

Digest DeriveKey(const std::string& token, const std::string& purpose) {
  Digest key{};
  unsigned int len = 0;
  const std::string label = "tensoract " + purpose;
  HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()), reinterpret_cast<const unsigned char*>(label.data()),
       label.size(), key.data(), &len);
  return key;
}

Digest Hmac(const Digest& key, const std::string& message) {
  Digest out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), out.data(), &len);
  return out;
}

bool DigestsEqual(const Digest& a, const Digest& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    // OpenSSL's generator cannot fail once seeded from the OS; if it ever does, better to
    // stop than to hand out predictable nonces.
    std::abort();
  }
  return out;
}

uint64_t RandomId() {
  for (;;) {
    std::string bytes = RandomBytes(8);
    uint64_t id = 0;
    std::memcpy(&id, bytes.data(), 8);
    if (id != 0) return id;
  }
}

std::string RandomHandle() {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(RandomId()));
  return text;
}

std::string SslErrorText() {
  std::string text;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!text.empty()) text += "; ";
    text += buf;
  }
  return text.empty() ? "no detail from OpenSSL" : text;
}

}  // namespace tensoract
