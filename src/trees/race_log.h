#pragma once
// The races of one kernel's Design Tree: each race ranks a round's screened candidates by their
// readings on one session before the winner goes to the acceptance test (loop/race.h). A race
// row is written when the race begins, each reading as it is taken, and the ranking when it
// ends; the report shows every node's race readings next to its test readings.
//
// Readings live in the `readings` table with race_id set: pair_index holds the reading's place
// in the race (0, 1, ... over all arms, in the order taken) and position the arm it belongs to.
// A race left unfinished by a killed run is deleted with its readings by
// abandon_unfinished_races(): its ranking never came to count.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trees/design_tree.h"

namespace headway::trees {

struct RaceRecord {
  int64_t id = 0;
  std::string kernel;
  int64_t budget = 0;            // readings the race may take, all arms together
  std::optional<int64_t> spent;  // readings taken; nullopt until finished
  std::vector<int64_t> ranking;  // node ids, fastest first; empty until finished
  std::string started_at;
  std::optional<std::string> finished_at;
};

struct RaceReading {
  int64_t node_id = 0;
  int index = 0;         // the reading's place in the race, over all arms
  int arm = 0;           // the arm's index in the race's session
  int64_t start_ns = 0;  // host clock when the reading was asked for
  double seconds = 0.0;
};

class RaceLog {
 public:
  // The tree must outlive the log.
  explicit RaceLog(DesignTree& tree) : tree_(&tree) {}

  // Starts a race with a budget of readings (> 0) and returns its id.
  Result<int64_t> begin_race(int64_t budget);
  // Stores one reading of an unfinished race. An error, storing nothing, when the race is
  // unknown or finished, the node is not of this kernel, index or arm is negative, the race
  // already has a reading at this index, or seconds is negative or not finite.
  Status record_reading(int64_t race_id, const RaceReading& reading);
  // Ends a race with the readings it took and its ranking (node ids of this kernel, fastest
  // first). An error, changing nothing, when the race is unknown or finished, or a ranked node is
  // not of this kernel.
  Status finish_race(int64_t race_id, int64_t spent, const std::vector<int64_t>& ranking);
  // Deletes every unfinished race of this kernel with its readings; returns how many races.
  int64_t abandon_unfinished_races();

  std::optional<RaceRecord> race(int64_t id) const;
  std::vector<RaceRecord> races() const;                     // by id
  std::vector<RaceReading> readings(int64_t race_id) const;  // by index

 private:
  // An error unless the race is this kernel's and not finished.
  Status still_running(int64_t race_id) const;

  DesignTree* tree_;
};

}  // namespace headway::trees
