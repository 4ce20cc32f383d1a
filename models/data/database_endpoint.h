#pragma once
// What a pod's connection pool sees of a Database (models/data/database.h),
// from one topology zone. Two kinds of PoolEndpoint:
//
//   DatabaseServerEndpoint  one member (a database server) as seen from one
//                           zone. It answers while it is the primary taking
//                           writes; it refuses (RST) when its process is
//                           down (database:kill) or it is no longer the
//                           writable primary (fenced, demoted: the proxy or
//                           the fencing kills its sessions); it black-holes
//                           when its zone is down or cannot be reached from
//                           the client's zone. A member that comes back from
//                           a zone loss or a kill is a new incarnation: its
//                           earlier connections get RST.
//   DatabaseFrontEndpoint   the name clients connect to (DNS or proxy): a
//                           new connection reaches the member the Database's
//                           endpoint points at now (the old primary until
//                           the endpoint switch of a failover, then the new
//                           one), and stays with that member.
//
// The server endpoints keep, per (member, zone), the time their state last
// changed (TCP needs it: what was in flight when the peer vanished), updated
// by the Database at every change of its members or of the topology.
#include <cstdint>
#include <string>

#include "models/data/tcp_connection.h"
#include "models/topology/failure_domains.h"

namespace drsim {

class Database;

class DatabaseServerEndpoint final : public PoolEndpoint {
 public:
  DatabaseServerEndpoint(Database& db, std::size_t member, ZoneIndex from, std::string name);

  // Recomputes the state seen from the client zone; notes when it changed.
  void refresh(SimTime now);

  const std::string& endpoint_name() const override { return name_; }
  PeerState peer_state() const override { return state_; }
  SimTime peer_state_since() const override { return since_; }
  std::uint64_t incarnation() const override;
  Duration round_trip(std::uint32_t from_zone) const override;
  Duration query_time(RngStream& rng) override;
  bool open_connection() override;
  void close_connection(std::uint64_t incarnation) override;
  // A client's write (the database's writeSize) on this member.
  WriteAnswer write(CommitNotice done) override;

 private:
  Database& db_;
  std::size_t member_;
  ZoneIndex from_;
  std::string name_;
  PeerState state_ = PeerState::kUp;
  SimTime since_{};
  std::uint64_t incarnation_seen_ = 0;
};

class DatabaseFrontEndpoint final : public PoolEndpoint {
 public:
  DatabaseFrontEndpoint(Database& db, ZoneIndex from);

  PoolEndpoint& resolve() override;
  const std::string& endpoint_name() const override;
  PeerState peer_state() const override { return current().peer_state(); }
  SimTime peer_state_since() const override { return current().peer_state_since(); }
  std::uint64_t incarnation() const override { return current().incarnation(); }
  Duration round_trip(std::uint32_t from_zone) const override { return current().round_trip(from_zone); }
  Duration query_time(RngStream& rng) override { return resolve().query_time(rng); }
  bool open_connection() override { return resolve().open_connection(); }
  void close_connection(std::uint64_t incarnation) override { resolve().close_connection(incarnation); }
  WriteAnswer write(CommitNotice done) override { return resolve().write(done); }

 private:
  const PoolEndpoint& current() const;
  Database& db_;
  ZoneIndex from_;
};

}  // namespace drsim
