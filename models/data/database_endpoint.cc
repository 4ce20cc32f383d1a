#include "models/data/database_endpoint.h"

#include "models/data/database.h"

namespace drsim {

DatabaseServerEndpoint::DatabaseServerEndpoint(Database& db, std::size_t member, ZoneIndex from, std::string name)
    : db_(db), member_(member), from_(from), name_(std::move(name)) {}

void DatabaseServerEndpoint::refresh(SimTime now) {
  const PeerState state = db_.member_state(member_, from_);
  const std::uint64_t incarnation = db_.member_incarnation(member_);
  // A restart is a change too: what was in flight to the old process is lost.
  if (state != state_ || incarnation != incarnation_seen_) since_ = now;
  state_ = state;
  incarnation_seen_ = incarnation;
}

std::uint64_t DatabaseServerEndpoint::incarnation() const { return db_.member_incarnation(member_); }

Duration DatabaseServerEndpoint::round_trip(std::uint32_t from_zone) const {
  // Unreachable: the packets go nowhere and the round trip never ends. The
  // peer is then black-holed, and TCP gives up by its own timers (RTO,
  // retries, keepalive), none of which uses this value; zero keeps the
  // arithmetic finite.
  if (const auto rtt = db_.member_round_trip(member_, from_zone)) return *rtt;
  return Duration::zero();
}

Duration DatabaseServerEndpoint::query_time(RngStream& rng) { return db_.draw_query_time(rng); }

bool DatabaseServerEndpoint::open_connection() { return db_.accept_connection(member_); }

void DatabaseServerEndpoint::close_connection(std::uint64_t incarnation) {
  db_.release_connection(member_, incarnation);
}

PoolEndpoint::WriteAnswer DatabaseServerEndpoint::write(CommitNotice done) {
  // Only the serving primary takes writes; a connection reaches a member in
  // any other role only while it refuses (see Database::member_state).
  if (member_ != db_.primary() || !db_.serving()) return WriteAnswer::kFailed;
  switch (db_.write(db_.config().write_size.bytes, done)) {
    case Database::WriteStatus::kCommitted:
      return WriteAnswer::kCommitted;
    case Database::WriteStatus::kPending:
      return WriteAnswer::kPending;
    case Database::WriteStatus::kFailed:
      break;
  }
  return WriteAnswer::kFailed;
}

DatabaseFrontEndpoint::DatabaseFrontEndpoint(Database& db, ZoneIndex from) : db_(db), from_(from) {}

PoolEndpoint& DatabaseFrontEndpoint::resolve() { return db_.server_endpoint(db_.endpoint_member(), from_); }

const PoolEndpoint& DatabaseFrontEndpoint::current() const {
  return db_.server_endpoint(db_.endpoint_member(), from_);
}

const std::string& DatabaseFrontEndpoint::endpoint_name() const { return db_.config().name; }

}  // namespace drsim
