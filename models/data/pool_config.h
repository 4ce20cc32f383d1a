#pragma once
// PoolConfig: a JDBC connection pool with HikariCP semantics, as one pod of a
// service holds towards one database. Keys and defaults follow HikariCP 5.1.0
// (tag HikariCP-5.1.0: HikariConfig.java constants and validateNumerics(),
// HikariPool.java housekeepingPeriodMs and aliveBypassWindowMs). keepaliveTime
// defaults to 0 (disabled) in 5.1.0 (DEFAULT_KEEPALIVE_TIME = 0L; 6.0.0 keeps
// it). The driver's socketTimeout/connectTimeout and the pod's kernel TCP
// settings are here too, since together they decide how a pool behaves when
// its database vanishes (docs/sources.md section 5: the pile-up of a real
// drill, fixed with idleTimeout 10 s, maxLifetime 300 s, socketTimeout 5 s,
// tcp_keepalive_time 60 s).
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/config_problem.h"
#include "models/data/tcp_config.h"
#include "sim/fields.h"
#include "sim/time.h"

namespace drsim {

struct PoolConfig {
  // DEFAULT_POOL_SIZE = 10.
  std::uint32_t maximum_pool_size = 10;
  // Absent: maximumPoolSize (HikariCP: minIdle < 0 -> maxPoolSize), a fixed-size pool.
  std::optional<std::uint32_t> minimum_idle;
  // CONNECTION_TIMEOUT = 30 s: how long getConnection() waits.
  Duration connection_timeout = std::chrono::seconds(30);
  // IDLE_TIMEOUT = 10 min; only when minimumIdle < maximumPoolSize.
  Duration idle_timeout = std::chrono::minutes(10);
  // MAX_LIFETIME = 30 min, minus a random variance of up to 2.5% per connection
  // (createPoolEntry: nextLong(maxLifetime / 40) when maxLifetime > 10 s). 0: none.
  Duration max_lifetime = std::chrono::minutes(30);
  // DEFAULT_KEEPALIVE_TIME = 0 (disabled): idle connections pinged every
  // keepaliveTime minus up to 10% (createPoolEntry).
  Duration keepalive_time{0};
  // VALIDATION_TIMEOUT = 5 s: how long the alive check of a borrowed or
  // keepalive-tested connection may take (isConnectionDead sets the network
  // timeout to it).
  Duration validation_timeout = std::chrono::seconds(5);
  // The driver's socketTimeout (read timeout). 0 = infinite, the default of
  // MySQL Connector/J (socketTimeout=0) and PgJDBC (socketTimeout=0).
  Duration socket_timeout{0};
  // The driver's connect timeout. 0 = none: the kernel's SYN retries decide
  // (127 s). Connector/J connectTimeout defaults to 0; PgJDBC's to 10 s, and
  // HikariCP sets loginTimeout = connectionTimeout + 0.5 s (rounded to seconds)
  // which PgJDBC honours.
  Duration connect_timeout{0};
  // Round trips to open a connection: TCP handshake plus the protocol's
  // greeting and authentication (MySQL: handshake, auth; Postgres: startup,
  // auth). 3 without TLS is typical.
  std::uint32_t connect_round_trips = 3;
  // HikariPool: com.zaxxer.hikari.housekeeping.periodMs, 30 s; the first run
  // 100 ms after the pool starts (scheduleWithFixedDelay(..., 100, period)).
  // HikariCP adds no jitter to it (the jitter is on maxLifetime and keepaliveTime).
  Duration housekeeping_period = std::chrono::seconds(30);
  // HikariPool: com.zaxxer.hikari.aliveBypassWindowMs, 500 ms: a borrowed
  // connection idle longer than this is validated first.
  Duration alive_bypass_window = std::chrono::milliseconds(500);
  // The pod's kernel settings and the driver's SO_KEEPALIVE.
  TcpConfig tcp;

  std::uint32_t min_idle() const {
    return minimum_idle && *minimum_idle <= maximum_pool_size ? *minimum_idle : maximum_pool_size;
  }
  // HikariCP retires idle connections only when this holds (HouseKeeper.run
  // and validateNumerics: idleTimeout > 0, minIdle < maxPoolSize, and
  // idleTimeout + 1 s <= maxLifetime when maxLifetime is set).
  bool idle_timeout_applies() const;

  static constexpr std::string_view kTypeName = "ConnectionPool";
  static constexpr auto fields() {
    return std::tuple{
        field("maximumPoolSize", &PoolConfig::maximum_pool_size,
              "Most connections per pod, in use or idle (HikariCP default 10).", kPositive),
        field("minimumIdle", &PoolConfig::minimum_idle,
              "Idle connections the pool keeps (HikariCP default: maximumPoolSize, a fixed-size pool)."),
        field("connectionTimeout", &PoolConfig::connection_timeout,
              "How long a borrower waits for a connection before failing (HikariCP default 30 s).", kPositive),
        field("idleTimeout", &PoolConfig::idle_timeout,
              "Idle connections beyond minimumIdle are closed after this long, checked by housekeeping "
              "(HikariCP default 10 min; 0 disables; only when minimumIdle < maximumPoolSize).",
              kNonNegative),
        field("maxLifetime", &PoolConfig::max_lifetime,
              "Connections are retired after this long minus up to 2.5% (HikariCP default 30 min; 0: never).",
              kNonNegative),
        field("keepaliveTime", &PoolConfig::keepalive_time,
              "Idle connections are validated this often, minus up to 10% (HikariCP 5.1 default 0: disabled).",
              kNonNegative),
        field("validationTimeout", &PoolConfig::validation_timeout,
              "Longest an alive check may take (HikariCP default 5 s).", kPositive),
        field("socketTimeout", &PoolConfig::socket_timeout,
              "The driver's read timeout; 0 waits forever (Connector/J and PgJDBC default 0).", kNonNegative),
        field("connectTimeout", &PoolConfig::connect_timeout,
              "The driver's connect timeout; 0 leaves it to the kernel's SYN retries (127 s by default).",
              kNonNegative),
        field("connectRoundTrips", &PoolConfig::connect_round_trips,
              "Round trips to open a connection: TCP handshake, greeting, authentication (default 3).", kPositive),
        field("housekeepingPeriod", &PoolConfig::housekeeping_period,
              "Period of HikariCP's housekeeper (com.zaxxer.hikari.housekeeping.periodMs, default 30 s).", kPositive),
        field("aliveBypassWindow", &PoolConfig::alive_bypass_window,
              "A borrowed connection idle longer than this is validated first "
              "(com.zaxxer.hikari.aliveBypassWindowMs, default 500 ms).",
              kNonNegative),
        field("tcp", &PoolConfig::tcp, "The pod's kernel TCP settings and the driver's SO_KEEPALIVE."),
    };
  }

  // Reports what HikariCP would reject or silently override
  // (HikariConfig.validateNumerics), so a scenario says what actually runs.
  std::vector<ConfigProblem> validate() const;
};

}  // namespace drsim
