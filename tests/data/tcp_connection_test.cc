// Kernel give-up times from first principles, and the TCP connection model's
// answers for answering, refusing and black-holed peers.
#include "models/data/tcp_connection.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "models/data/pool_config.h"
#include "models/data/tcp_config.h"

namespace drsim {
namespace {

using namespace std::chrono_literals;

// The retransmission timer fires boundary + 1 times before the check gives
// up: RTO doubles from the base up to the cap. Summing the timer by hand must
// agree with the kernel's closed form.
Duration summed_backoff(std::uint32_t boundary, Duration base, Duration cap) {
  Duration total{0}, rto = base;
  for (std::uint32_t i = 0; i <= boundary; ++i) {
    total += rto;
    rto = std::min(rto * 2, cap);
  }
  return total;
}

TEST(TcpConfig, Retries2DefaultIsExactly924Point6Seconds) {
  const TcpConfig tcp;
  // (2^10 - 1) x 200 ms + (15 - 9) x 120 s = 204.6 s + 720 s.
  EXPECT_EQ(retransmission_give_up(tcp), 924600ms);
  EXPECT_EQ(retransmission_give_up(tcp), summed_backoff(15, 200ms, 120s));
  for (std::uint32_t b = 1; b <= 30; ++b) {
    EXPECT_EQ(kernel_model_timeout(b, 200ms, 120s), summed_backoff(b, 200ms, 120s)) << "boundary " << b;
  }
  // Commonly tuned values: tcp_retries2 = 8 -> 102.2 s, 5 -> 12.6 s.
  EXPECT_EQ(kernel_model_timeout(8, 200ms, 120s), 102200ms);
  EXPECT_EQ(kernel_model_timeout(5, 200ms, 120s), 12600ms);
}

TEST(TcpConfig, SynRetriesAndKeepaliveDefaults) {
  const TcpConfig tcp;
  EXPECT_EQ(syn_give_up(tcp), 127s);         // 1 + 2 + 4 + ... + 64
  EXPECT_EQ(keepalive_give_up(tcp), 7875s);  // 7200 + 9 x 75
  TcpConfig tuned;
  tuned.keepalive_time = 60s;
  EXPECT_EQ(keepalive_give_up(tuned), 735s);
  EXPECT_TRUE(tcp.validate().empty());
}

TEST(TcpConnection, ConnectToAnsweringRefusingAndBlackholedPeers) {
  const TcpConfig tcp;
  TestEndpoint db("db", 10ms);
  TcpResult r = TcpConnection::connect(tcp, db, 10ms, 3, Duration::zero());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.after, 30ms);
  db.set_state(PeerState::kRefusing, at(0s));
  r = TcpConnection::connect(tcp, db, 10ms, 3, Duration::zero());
  EXPECT_EQ(r.error, TcpError::kConnectRefused);
  EXPECT_EQ(r.after, 10ms);  // the RST comes straight back
  db.set_state(PeerState::kBlackholed, at(0s));
  r = TcpConnection::connect(tcp, db, 10ms, 3, Duration::zero());
  EXPECT_EQ(r.error, TcpError::kConnectTimeout);
  EXPECT_EQ(r.after, 127s);
  r = TcpConnection::connect(tcp, db, 10ms, 3, 10s);  // PgJDBC's connectTimeout
  EXPECT_EQ(r.after, 10s);
}

TEST(TcpConnection, ExchangeOnBlackholedPeerWaitsSocketTimeoutOrRetransmissionGiveUp) {
  const TcpConfig tcp;
  TestEndpoint db("db", 10ms);
  const TcpConnection conn(at(0s), db.incarnation(), false);
  TcpResult r = conn.exchange(tcp, db, at(5s), 10ms, 40ms, Duration::zero());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.after, 50ms);
  db.set_state(PeerState::kBlackholed, at(6s));
  r = conn.exchange(tcp, db, at(7s), 10ms, 40ms, 5s);
  EXPECT_EQ(r.error, TcpError::kSocketTimeout);
  EXPECT_EQ(r.after, 5s);
  r = conn.exchange(tcp, db, at(7s), 10ms, 40ms, Duration::zero());
  EXPECT_EQ(r.error, TcpError::kRetransmitTimeout);
  EXPECT_EQ(r.after, 924600ms);
  db.set_state(PeerState::kRefusing, at(8s));
  r = conn.exchange(tcp, db, at(9s), 10ms, 40ms, Duration::zero());
  EXPECT_EQ(r.error, TcpError::kReset);
  EXPECT_EQ(r.after, 10ms);
  // A restarted server has forgotten the connection: RST.
  db.restart(at(10s));
  r = conn.exchange(tcp, db, at(11s), 10ms, 40ms, Duration::zero());
  EXPECT_EQ(r.error, TcpError::kReset);
}

TEST(TcpConnection, AnswerLostWhenPeerFailsMidQuery) {
  const TcpConfig tcp;
  TestEndpoint db("db", 0ms);
  const TcpConnection conn(at(0s), db.incarnation(), false);
  db.set_state(PeerState::kBlackholed, at(11s));  // the request went out at 10 s, the answer was due at 12 s
  TcpResult r = conn.recheck(tcp, db, at(10s), at(12s), 0ms, 5s);
  EXPECT_EQ(r.error, TcpError::kSocketTimeout);
  EXPECT_EQ(r.after, 5s);  // counted from the send: fails at 15 s
}

TEST(TcpConnection, KeepaliveAbortsIdleConnectionToSilentPeer) {
  TcpConfig tcp;
  tcp.so_keepalive = true;
  TestEndpoint db("db", 0ms);
  TcpConnection conn(at(0s), db.incarnation(), true);
  EXPECT_EQ(conn.keepalive_abort_at(tcp, db), kSimTimeMax);  // peer answers: never
  db.set_state(PeerState::kBlackholed, at(100s));
  EXPECT_EQ(conn.keepalive_abort_at(tcp, db), at(7875s));  // 7200 + 9 x 75 after going idle
  db.set_state(PeerState::kBlackholed, at(8000s));         // failed after the first (answered) probe
  EXPECT_EQ(conn.keepalive_abort_at(tcp, db), at(14400s + 675s));
  tcp.keepalive_time = 60s;  // the drill's fix
  db.set_state(PeerState::kBlackholed, at(10s));
  EXPECT_EQ(conn.keepalive_abort_at(tcp, db), at(735s));
  db.set_state(PeerState::kRefusing, at(10s));  // the first probe gets RST
  EXPECT_EQ(conn.keepalive_abort_at(tcp, db), at(60s));
  // Once aborted, the next use fails at once.
  db.set_state(PeerState::kBlackholed, at(10s));
  const TcpResult r = conn.exchange(tcp, db, at(800s), 0ms, 1ms, Duration::zero());
  EXPECT_EQ(r.error, TcpError::kKeepaliveTimeout);
  EXPECT_EQ(r.after, Duration::zero());
  // Without SO_KEEPALIVE an idle connection is never found dead by the kernel.
  const TcpConnection plain(at(0s), db.incarnation(), false);
  EXPECT_EQ(plain.keepalive_abort_at(tcp, db), kSimTimeMax);
}

TEST(PoolConfig, HikariDefaultsAndValidation) {
  const PoolConfig c;
  EXPECT_EQ(c.maximum_pool_size, 10u);
  EXPECT_EQ(c.min_idle(), 10u);
  EXPECT_EQ(c.connection_timeout, 30s);
  EXPECT_EQ(c.idle_timeout, 600s);
  EXPECT_EQ(c.max_lifetime, 1800s);
  EXPECT_EQ(c.keepalive_time, 0s);
  EXPECT_EQ(c.validation_timeout, 5s);
  EXPECT_EQ(c.socket_timeout, 0s);
  EXPECT_EQ(c.housekeeping_period, 30s);
  EXPECT_EQ(c.alive_bypass_window, 500ms);
  EXPECT_FALSE(c.idle_timeout_applies());  // fixed-size pool
  EXPECT_TRUE(c.validate().empty());
  // The drill's fix is a valid HikariCP configuration.
  PoolConfig fix;
  fix.minimum_idle = 2;
  fix.idle_timeout = 10s;
  fix.max_lifetime = 300s;
  fix.socket_timeout = 5s;
  fix.tcp.keepalive_time = 60s;
  EXPECT_TRUE(fix.validate().empty());
  EXPECT_TRUE(fix.idle_timeout_applies());
  PoolConfig bad;
  bad.minimum_idle = 2;
  bad.idle_timeout = 5s;     // HikariCP: < 10 s -> 10 min
  bad.max_lifetime = 20s;    // < 30 s -> 30 min
  bad.keepalive_time = 10s;  // < 30 s -> disabled
  EXPECT_EQ(bad.validate().size(), 3u);
}

}  // namespace
}  // namespace drsim
