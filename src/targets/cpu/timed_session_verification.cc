// TimedSession's checks of its calls against one another and against the reference: the
// calls of a reading on the inputs of another arm's, the kept calls, the confirming readings.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>

#include "common/elapsed.h"
#include "kernels/verify.h"
#include "targets/cpu/preparing_threads.h"
#include "targets/cpu/timed_session.h"

namespace headway::cpu {

namespace {

// Windows the confirming readings rotate over: each costs one reference per call, once.
constexpr size_t kConfirmingWindows = 2;

}  // namespace

TimedSession::ConfirmingWindow& TimedSession::next_confirming_window() {
  const size_t at = static_cast<size_t>(confirming_readings_++) % kConfirmingWindows;
  if (at == confirming_.size()) {
    ConfirmingWindow made;
    made.first = next_sets().first;
    ++next_window_;
    for (int k = 0; k < calls_per_reading_; ++k) made.patches.push_back(secret_.next_u64());
    made.expected.resize(made.patches.size());
    confirming_.push_back(std::move(made));
  }
  return confirming_[at];
}

SharedMemory& TimedSession::verify_scratch(int thread) {
  auto& scratch = verify_scratch_.at(static_cast<size_t>(thread));
  if (!scratch) scratch = std::make_unique<SharedMemory>("headway-verify", inputs_->slot_bytes());
  return *scratch;
}

std::vector<ExpectedOutput> TimedSession::reference_for(int set, uint64_t patch_seed, int thread) {
  SharedMemory& scratch = verify_scratch(thread);
  // A slot as it is before a call: what prepare() does not write (cache rows) as drawn.
  inputs_->reset_writable(scratch);
  inputs_->prepare(set, patch_seed, scratch.data());
  auto view = inputs_->view(set, scratch.data());
  auto expected = kernel_.reference(*view);
  inputs_->restore(set, patch_seed);
  return expected;
}

std::optional<Misbehaviour> TimedSession::check_confirming(ConfirmingWindow& window, int arm) {
  const auto t0 = std::chrono::steady_clock::now();
  // The window's references, once, on every preparing thread: its calls' sets are different.
  for_each_call_on(static_cast<int>(window.patches.size()), [&](int k, int thread) {
    auto& expected = window.expected[static_cast<size_t>(k)];
    if (expected.empty())
      expected =
          reference_for(window.first + 1 + k, window.patches[static_cast<size_t>(k)], thread);
  });
  std::optional<Misbehaviour> found;
  for (size_t k = 0; k < window.patches.size() && !found; ++k) {
    const int set = window.first + 1 + static_cast<int>(k);
    const auto mine = inputs_->view(set, slot(arm, static_cast<int>(k)));
    if (const auto wrong = verify_values(kernel_, *mine, window.expected[k])) {
      found =
          Misbehaviour{arm, fmt::format("a confirming call's output is wrong (call {} of {}): {}",
                                        k + 1, window.patches.size(), wrong->describe())};
    }
  }
  if (!found) confirmed_calls_[arm] += static_cast<int64_t>(window.patches.size());
  costs_.verification += seconds_since(t0);
  return found;
}

void TimedSession::copy_out_kept(int arm) {
  const auto t0 = std::chrono::steady_clock::now();
  for (Kept& kept : kept_) {
    if (kept.arm != arm || kept.slot < 0) continue;
    const std::span<const std::byte> writes = writes_of(kept);
    kept.writable.assign(writes.begin(), writes.end());
    kept.slot = -1;
  }
  costs_.verification += seconds_since(t0);
}

std::span<const std::byte> TimedSession::writes_of(const Kept& kept) const {
  if (kept.slot < 0) return kept.writable;
  return {slot(kept.arm, kept.slot), inputs_->slot_bytes()};
}

int64_t TimedSession::confirmed_calls(int arm) const {
  const auto it = confirmed_calls_.find(arm);
  return it == confirmed_calls_.end() ? 0 : it->second;
}

std::vector<std::optional<Violation>> TimedSession::wrong_outputs(
    int set, uint64_t patch_seed, const std::vector<std::span<const std::byte>>& writes,
    int thread) {
  // Computes the reference once, then judges each call's writes in the same scratch slot.
  const auto expected = reference_for(set, patch_seed, thread);
  SharedMemory& scratch = verify_scratch(thread);
  const auto view = inputs_->view(set, scratch.data());
  std::vector<std::optional<Violation>> judged;
  for (const auto& w : writes) {
    std::memcpy(scratch.data(), w.data(), std::min(w.size(), inputs_->slot_bytes()));
    judged.push_back(verify_values(kernel_, *view, expected));
  }
  return judged;
}

std::optional<Misbehaviour> TimedSession::compare_with(const LastReading& last, int arm) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t bytes = inputs_->slot_bytes();
  std::optional<Misbehaviour> found;
  // Per call compared: the chunks where either slot differs from a slot as made. Outside them
  // the two are alike, and as made: once compared, they are put back there.
  std::vector<InputSets::ByteRanges> changed;
  for (size_t k = 0; k < last.patches.size() && !found; ++k) {
    const int set = last.first + 1 + static_cast<int>(k);
    std::byte* mine_slot = slot(arm, static_cast<int>(k));
    std::byte* their_slot = slot(last.arm, static_cast<int>(k));
    const auto mine = inputs_->view(set, mine_slot);
    const auto theirs = inputs_->view(set, their_slot);
    const std::byte* both[] = {mine_slot, their_slot};
    changed.push_back(inputs_->changed_ranges(both));
    ++costs_.compared_calls;
    if (!disagreement_within(kernel_, *mine, *theirs, kAgreeShare, changed.back())) continue;
    ++costs_.disputed_calls;
    const auto judged =
        wrong_outputs(set, last.patches[k], {{mine_slot, bytes}, {their_slot, bytes}});
    for (const auto& [who, wrong] : {std::pair{arm, judged[0]}, std::pair{last.arm, judged[1]}}) {
      if (wrong) {
        found = Misbehaviour{
            who,
            "a timed call's output is wrong (it disagreed with the other arm's call on the "
            "same inputs): " +
                wrong->describe()};
        break;
      }
    }
  }
  // The kept calls of both readings, whole first readings included, are verified now: nothing
  // needs their slots any more.
  std::erase_if(kept_, [&](const Kept& kept) {
    const auto k = static_cast<size_t>(kept.set - last.first - 1);
    return k < last.patches.size() && kept.patch_seed == last.patches[k];
  });
  for (size_t k = 0; k < changed.size(); ++k) {
    for (const int who : {arm, last.arm}) {
      inputs_->reset_ranges(slot(who, static_cast<int>(k)), changed[k]);
      slots_as_made_[static_cast<size_t>(who)][k] = true;
    }
  }
  costs_.verification += seconds_since(t0);
  return found;
}

std::optional<Misbehaviour> TimedSession::verify_sampled(std::optional<int> arm) {
  const auto t0 = std::chrono::steady_clock::now();
  // The calls to check, a set's calls together: a reference patches its set, so one thread
  // takes all of a set's calls, and the threads take different sets at once.
  std::map<int, std::vector<size_t>> by_set;
  for (size_t i = 0; i < kept_.size(); ++i) {
    if (!arm || kept_[i].arm == *arm) by_set[kept_[i].set].push_back(i);
  }
  std::vector<const std::vector<size_t>*> sets;
  for (const auto& [set, calls] : by_set) sets.push_back(&calls);
  std::vector<std::optional<Violation>> verdicts(kept_.size());
  std::atomic<bool> wrong = false;  // once one call is wrong, the others need not be checked
  for_each_call_on(static_cast<int>(sets.size()), [&](int s, int thread) {
    for (const size_t i : *sets[static_cast<size_t>(s)]) {
      if (wrong.load(std::memory_order_relaxed)) return;
      const Kept& kept = kept_[i];
      verdicts[i] = wrong_outputs(kept.set, kept.patch_seed, {writes_of(kept)}, thread)[0];
      if (verdicts[i]) wrong = true;
    }
  });
  std::optional<Misbehaviour> found;
  std::map<int, int> whole;  // per arm: the longest reading checked whole here
  for (size_t i = 0; i < kept_.size() && !found; ++i) {
    const Kept& kept = kept_[i];
    if (verdicts[i]) {
      found = Misbehaviour{kept.arm, "a timed call's output is wrong: " + verdicts[i]->describe()};
    } else if (!arm || kept.arm == *arm) {
      whole[kept.arm] = std::max(whole[kept.arm], kept.whole_reading);
    }
  }
  if (!found) {
    for (const auto& [checked, length] : whole) {
      const auto& key = whole_keys_[static_cast<size_t>(checked)];
      if (key && length > 0) record_checked_whole(*key, length);
    }
  }
  std::erase_if(kept_, [&](const Kept& kept) { return !arm || kept.arm == *arm; });
  costs_.verification += seconds_since(t0);
  return found;
}

}  // namespace headway::cpu
