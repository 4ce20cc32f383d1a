#pragma once
// A node's cores, shared by the pods on it the way the kernel's CFS shares
// them between cgroups: while the pods ask for no more than the node has,
// each runs at what it asks for; once they ask for more, each gets a share
// weighted by its cpu.shares (Kubernetes sets them from requests.cpu),
// never more than it asks for, with what a pod leaves unused going to the
// others (weighted max-min fairness). A pod asking for no more than its
// request always gets it: the scheduler placed no more requests on the node
// than it has cores. So only pods bursting above their requests are ever
// slowed, by each other.
//
// Members tell it what they ask for (set_ask) whenever that changes; it
// tells the members whose share changed (Listener). A share is kUnlimited
// while the member gets all it asks for.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace drsim {

class NodeCpu {
 public:
  static constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max();

  class Listener {
   public:
    // The member's share changed (read it with share()); called after every share is settled.
    virtual void cpu_share_changed(std::size_t pod) = 0;

   protected:
    ~Listener() = default;
  };

  NodeCpu(std::string name, std::int64_t cores_millicores);

  const std::string& name() const { return name_; }
  std::int64_t cores() const { return cores_; }

  // A pod joins the node: weight from its request (millicores), asking for nothing yet. Returns its member id.
  std::size_t join(Listener& listener, std::size_t pod, std::int64_t request_millicores);
  // The member leaves (asks for nothing from now on; its id is not reused).
  void leave(std::size_t member);
  // What the member asks for now, in millicores. Settles every share and tells the members whose share
  // changed; a call made while that goes on (a member retuning) is taken into the same settling.
  void set_ask(std::size_t member, std::int64_t ask_millicores);
  std::int64_t share(std::size_t member) const { return members_[member].share; }
  std::int64_t asked() const { return asked_; }  // by all members together

 private:
  struct Member {
    Listener* listener = nullptr;
    std::size_t pod = 0;
    std::int64_t weight = 0;
    std::int64_t ask = 0;
    std::int64_t share = kUnlimited;
    bool present = true;
  };
  // Every member's share for the present asks.
  void settle();
  void compute_shares(std::vector<std::int64_t>& out);

  std::string name_;
  std::int64_t cores_;
  std::vector<Member> members_;
  std::int64_t asked_ = 0;
  bool settling_ = false;
  bool dirty_ = false;
  std::vector<std::int64_t> scratch_;
  std::vector<std::size_t> order_;
};

}  // namespace drsim
