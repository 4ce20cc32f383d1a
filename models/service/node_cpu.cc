#include "models/service/node_cpu.h"

#include <algorithm>

#include "sim/errors.h"

namespace drsim {

NodeCpu::NodeCpu(std::string name, std::int64_t cores_millicores) : name_(std::move(name)), cores_(cores_millicores) {
  if (cores_ <= 0) throw SimulationError("node " + name_ + ": its CPU must be positive");
}

std::size_t NodeCpu::join(Listener& listener, std::size_t pod, std::int64_t request_millicores) {
  // The kernel's minimum cpu.shares is 2 (of 1024 a core): a best-effort pod still gets a sliver.
  members_.push_back(Member{.listener = &listener, .pod = pod, .weight = std::max<std::int64_t>(2, request_millicores)});
  return members_.size() - 1;
}

void NodeCpu::leave(std::size_t member) {
  set_ask(member, 0);
  members_[member].present = false;
}

void NodeCpu::set_ask(std::size_t member, std::int64_t ask) {
  Member& m = members_[member];
  if (m.ask == ask || !m.present) return;
  asked_ += ask - m.ask;
  m.ask = ask;
  dirty_ = true;
  if (settling_) return;  // the settling under way takes it in
  settle();
}

void NodeCpu::settle() {
  settling_ = true;
  while (dirty_) {
    dirty_ = false;
    compute_shares(scratch_);
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (members_[i].share == scratch_[i]) continue;
      members_[i].share = scratch_[i];
      // The listener may ask for something else at once (it was throttled, say): that marks the node dirty
      // and the next round settles it.
      if (members_[i].present) members_[i].listener->cpu_share_changed(members_[i].pod);
      if (dirty_) break;
    }
  }
  settling_ = false;
}

void NodeCpu::compute_shares(std::vector<std::int64_t>& out) {
  out.assign(members_.size(), kUnlimited);
  if (asked_ <= cores_) return;  // room for everything asked for
  // Weighted max-min fairness: the members asking least per unit of weight are satisfied first; the rest
  // share what is left by weight.
  std::vector<std::size_t>& order = order_;
  order.clear();
  std::int64_t weight_left = 0;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (!members_[i].present || members_[i].ask <= 0) continue;
    order.push_back(i);
    weight_left += members_[i].weight;
  }
  std::sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
    const Member& x = members_[a];
    const Member& y = members_[b];
    const std::int64_t lhs = x.ask * y.weight, rhs = y.ask * x.weight;
    return lhs != rhs ? lhs < rhs : a < b;
  });
  std::int64_t cores_left = cores_;
  std::size_t k = 0;
  for (; k < order.size(); ++k) {
    const Member& m = members_[order[k]];
    if (m.ask * weight_left > cores_left * m.weight) break;  // asks more than its fair part of what is left
    cores_left -= m.ask;
    weight_left -= m.weight;
  }
  for (; k < order.size(); ++k) {
    const Member& m = members_[order[k]];
    out[order[k]] = cores_left * m.weight / weight_left;
  }
}

}  // namespace drsim
