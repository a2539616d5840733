#include "store/schema.h"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "store/transaction.h"

namespace headway::store {

namespace {

constexpr std::string_view kV1 = R"sql(
PRAGMA application_id = 1751414649;

CREATE TABLE meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE kernels(
  name TEXT PRIMARY KEY,
  target TEXT NOT NULL,
  floor_ms REAL,
  baseline_ms REAL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE nodes(
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL REFERENCES kernels(name),
  parent_id INTEGER REFERENCES nodes(id),
  kind TEXT NOT NULL CHECK (kind IN ('baseline', 'design', 'variant')),
  design TEXT NOT NULL DEFAULT '',
  params_json TEXT NOT NULL DEFAULT '{}',
  source_hash TEXT NOT NULL,
  proposer TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  evidence_json TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (kernel, source_hash),
  CHECK ((kind = 'baseline') = (parent_id IS NULL))
);
CREATE INDEX nodes_by_parent ON nodes(parent_id);
CREATE INDEX nodes_by_status ON nodes(kernel, status);
CREATE UNIQUE INDEX one_baseline_per_kernel ON nodes(kernel) WHERE kind = 'baseline';

CREATE TRIGGER nodes_parent_same_kernel BEFORE INSERT ON nodes
WHEN NEW.parent_id IS NOT NULL
  AND (SELECT kernel FROM nodes WHERE id = NEW.parent_id) IS NOT NEW.kernel
BEGIN SELECT RAISE(ABORT, 'a node''s parent must belong to the same kernel'); END;

CREATE TRIGGER nodes_accepted_stays_accepted BEFORE UPDATE OF status ON nodes
WHEN OLD.status = 'accepted' AND NEW.status <> 'accepted'
BEGIN SELECT RAISE(ABORT, 'an accepted node stays accepted'); END;

CREATE TRIGGER nodes_identity_fixed BEFORE UPDATE OF id, kernel, parent_id, kind, source_hash ON nodes
BEGIN SELECT RAISE(ABORT, 'a node''s identity never changes'); END;

CREATE TABLE tests(
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL REFERENCES kernels(name),
  head_node INTEGER NOT NULL REFERENCES nodes(id),
  candidate_node INTEGER NOT NULL REFERENCES nodes(id),
  rule TEXT NOT NULL,
  outcome TEXT CHECK (outcome IN ('FASTER', 'SLOWER', 'SAME', 'INCONCLUSIVE')),
  pairs INTEGER NOT NULL DEFAULT 0,
  effect_pct REAL,
  ci_low REAL,
  ci_high REAL,
  note TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  finished_at TEXT,
  CHECK ((outcome IS NULL) = (finished_at IS NULL)),
  CHECK (head_node <> candidate_node)
);
CREATE INDEX tests_by_kernel ON tests(kernel, outcome);
CREATE INDEX tests_by_candidate ON tests(candidate_node);

CREATE TABLE heads(
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL REFERENCES kernels(name),
  node_id INTEGER NOT NULL REFERENCES nodes(id),
  since TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  median_ms REAL,
  test_id INTEGER REFERENCES tests(id)
);
CREATE INDEX heads_by_kernel ON heads(kernel, id);

CREATE TRIGGER heads_append_only_update BEFORE UPDATE ON heads
BEGIN SELECT RAISE(ABORT, 'the head history is append-only'); END;
CREATE TRIGGER heads_append_only_delete BEFORE DELETE ON heads
BEGIN SELECT RAISE(ABORT, 'the head history is append-only'); END;
CREATE TRIGGER heads_point_at_accepted BEFORE INSERT ON heads
WHEN (SELECT status FROM nodes WHERE id = NEW.node_id AND kernel = NEW.kernel) IS NOT 'accepted'
BEGIN SELECT RAISE(ABORT, 'a head must be an accepted node of its kernel'); END;

CREATE TABLE races(
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL REFERENCES kernels(name),
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  finished_at TEXT,
  budget REAL,
  spent REAL,
  ranking_json TEXT
);
CREATE INDEX races_by_kernel ON races(kernel);

CREATE TABLE readings(
  id INTEGER PRIMARY KEY,
  test_id INTEGER REFERENCES tests(id) ON DELETE CASCADE,
  race_id INTEGER REFERENCES races(id) ON DELETE CASCADE,
  kernel TEXT NOT NULL REFERENCES kernels(name),
  node_id INTEGER NOT NULL REFERENCES nodes(id),
  pair_index INTEGER NOT NULL CHECK (pair_index >= 0),
  position INTEGER NOT NULL CHECK (position >= 0),
  start_ns INTEGER NOT NULL,
  seconds REAL NOT NULL,
  clock_json TEXT,
  CHECK (test_id IS NULL OR race_id IS NULL)
);
CREATE UNIQUE INDEX readings_once_per_test ON readings(test_id, pair_index, position)
  WHERE test_id IS NOT NULL;
CREATE INDEX readings_by_race ON readings(race_id) WHERE race_id IS NOT NULL;
CREATE INDEX readings_by_node ON readings(node_id);

INSERT INTO meta(key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
)sql";

constexpr std::string_view kV2 = R"sql(
CREATE TABLE facts(
  name TEXT NOT NULL,
  toolchain TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL DEFAULT '',
  spread REAL,
  method TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (name, toolchain)
);

CREATE TABLE rules(
  id INTEGER PRIMARY KEY,
  signature TEXT NOT NULL UNIQUE,
  text TEXT NOT NULL,
  detector TEXT,
  repro_hash TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE rule_status(
  rule_id INTEGER NOT NULL REFERENCES rules(id),
  toolchain TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('verified', 'rewritten', 'retired', 'carried-unverified')),
  evidence_json TEXT,
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (rule_id, toolchain)
);

CREATE TABLE rule_evidence(
  rule_id INTEGER NOT NULL REFERENCES rules(id),
  kernel TEXT NOT NULL,
  node_id INTEGER NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (rule_id, kernel, node_id)
);
)sql";

// Per-toolchain timings of each kernel's baseline and head, measured side by side (a toolchain
// migration re-measures both). Append-only: a later measurement adds a row, so the figures of
// every toolchain stay.
constexpr std::string_view kV3 = R"sql(
CREATE TABLE kernel_timings(
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL REFERENCES kernels(name),
  toolchain TEXT NOT NULL,
  node_id INTEGER NOT NULL REFERENCES nodes(id),
  role TEXT NOT NULL CHECK (role IN ('baseline', 'head')),
  median_ms REAL NOT NULL CHECK (median_ms > 0),
  cv REAL,
  readings INTEGER NOT NULL CHECK (readings > 0),
  method TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX kernel_timings_by_kernel ON kernel_timings(kernel, toolchain, role, id);

CREATE TRIGGER kernel_timings_append_only_update BEFORE UPDATE ON kernel_timings
BEGIN SELECT RAISE(ABORT, 'kernel timings are append-only'); END;
CREATE TRIGGER kernel_timings_append_only_delete BEFORE DELETE ON kernel_timings
BEGIN SELECT RAISE(ABORT, 'kernel timings are append-only'); END;
CREATE TRIGGER kernel_timings_node_of_kernel BEFORE INSERT ON kernel_timings
WHEN (SELECT kernel FROM nodes WHERE id = NEW.node_id) IS NOT NEW.kernel
BEGIN SELECT RAISE(ABORT, 'a kernel timing must name a node of its kernel'); END;
)sql";

// Every headway run that ran candidate code without the sandbox (--no-sandbox). Append-only.
constexpr std::string_view kV4 = R"sql(
CREATE TABLE unsandboxed_runs(
  id INTEGER PRIMARY KEY,
  command TEXT NOT NULL DEFAULT '',
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TRIGGER unsandboxed_runs_append_only_update BEFORE UPDATE ON unsandboxed_runs
BEGIN SELECT RAISE(ABORT, 'unsandboxed runs are append-only'); END;
CREATE TRIGGER unsandboxed_runs_append_only_delete BEFORE DELETE ON unsandboxed_runs
BEGIN SELECT RAISE(ABORT, 'unsandboxed runs are append-only'); END;
)sql";

// Every headway build that created or opened the workspace (store/headway_versions.h), once per
// build. Append-only.
constexpr std::string_view kV5 = R"sql(
CREATE TABLE headway_versions(
  id INTEGER PRIMARY KEY,
  version TEXT NOT NULL,
  git_commit TEXT NOT NULL DEFAULT '',
  compiler TEXT NOT NULL DEFAULT '',
  created_workspace INTEGER NOT NULL DEFAULT 0 CHECK (created_workspace IN (0, 1)),
  first_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (version, git_commit, compiler)
);
CREATE UNIQUE INDEX one_creating_version ON headway_versions(created_workspace)
  WHERE created_workspace = 1;

CREATE TRIGGER headway_versions_append_only_update BEFORE UPDATE ON headway_versions
BEGIN SELECT RAISE(ABORT, 'headway versions are append-only'); END;
CREATE TRIGGER headway_versions_append_only_delete BEFORE DELETE ON headway_versions
BEGIN SELECT RAISE(ABORT, 'headway versions are append-only'); END;
)sql";

// Where a target has a static cost (a toolchain's predicted time): for every raced or tested
// candidate, the effect the static cost predicted against the head and the effect the device
// measured (race medians, or the acceptance test). How far the screen can be trusted.
// Append-only.
constexpr std::string_view kV6 = R"sql(
CREATE TABLE screen_calibration(
  id INTEGER PRIMARY KEY,
  kernel TEXT NOT NULL REFERENCES kernels(name),
  node_id INTEGER NOT NULL REFERENCES nodes(id),
  head_id INTEGER NOT NULL REFERENCES nodes(id),
  toolchain TEXT NOT NULL,
  predicted_pct REAL NOT NULL,
  measured_pct REAL NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('race', 'test')),
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX screen_calibration_by_kernel ON screen_calibration(kernel, id);

CREATE TRIGGER screen_calibration_append_only_update BEFORE UPDATE ON screen_calibration
BEGIN SELECT RAISE(ABORT, 'screen calibration is append-only'); END;
CREATE TRIGGER screen_calibration_append_only_delete BEFORE DELETE ON screen_calibration
BEGIN SELECT RAISE(ABORT, 'screen calibration is append-only'); END;
)sql";

// Every call to an agent (agents/agent_ledger.h): its role, provider and model, the prompt and
// the answer as artifacts, tokens, cost, latency and what became of it; and which call proposed
// which node. Calls are append-only except for their outcome, which parsing and the loop set.
constexpr std::string_view kV7 = R"sql(
CREATE TABLE agent_calls(
  id INTEGER PRIMARY KEY,
  run TEXT NOT NULL,
  role TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  kernel TEXT NOT NULL DEFAULT '',
  prompt_hash TEXT NOT NULL,
  response_hash TEXT,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  latency_s REAL NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 1,
  outcome TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX agent_calls_by_run ON agent_calls(run);
CREATE INDEX agent_calls_by_role ON agent_calls(role);

CREATE TRIGGER agent_calls_fixed BEFORE UPDATE OF id, run, role, provider, model, kernel, prompt_hash,
  response_hash, input_tokens, output_tokens, cost_usd, latency_s, attempts, at ON agent_calls
BEGIN SELECT RAISE(ABORT, 'an agent call is fixed once stored; only its outcome changes'); END;
CREATE TRIGGER agent_calls_append_only_delete BEFORE DELETE ON agent_calls
BEGIN SELECT RAISE(ABORT, 'agent calls are append-only'); END;

CREATE TABLE node_agent_calls(
  node_id INTEGER PRIMARY KEY REFERENCES nodes(id),
  call_id INTEGER NOT NULL REFERENCES agent_calls(id)
);
)sql";

// Each kernel timing's readings (a JSON array of milliseconds), so that what reads it can say
// what the run supports: the interval of the median, bimodal readings. Null for rows stored
// before this step (they keep their median and cv alone).
constexpr std::string_view kV8 = R"sql(
ALTER TABLE kernel_timings ADD COLUMN readings_ms_json TEXT;
)sql";

// The shape set a kernel timing was measured at (a kernel spec's [[shapes]] name); '' for the
// kernel's first or only one, which every timing before this step was.
constexpr std::string_view kV9 = R"sql(
ALTER TABLE kernel_timings ADD COLUMN shape TEXT NOT NULL DEFAULT '';
)sql";

// A head found breaking a rule of timing after it became head is cheated
// (trees::DesignTree::revoke_head): the one way out of accepted.
constexpr std::string_view kV10 = R"sql(
DROP TRIGGER nodes_accepted_stays_accepted;
CREATE TRIGGER nodes_accepted_stays_accepted BEFORE UPDATE OF status ON nodes
WHEN OLD.status = 'accepted' AND NEW.status NOT IN ('accepted', 'cheated')
BEGIN SELECT RAISE(ABORT, 'an accepted node stays accepted unless found cheating'); END;
)sql";

// A run's device pool as the run ended: each worker's use of its device over time (its busy
// spans), as pool::pool_use_json writes it. One row per run that had a pool; append-only.
constexpr std::string_view kV11 = R"sql(
CREATE TABLE pool_runs(
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  use_json TEXT NOT NULL CHECK (json_valid(use_json)),
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TRIGGER pool_runs_append_only_update BEFORE UPDATE ON pool_runs
BEGIN SELECT RAISE(ABORT, 'pool runs are append-only'); END;
CREATE TRIGGER pool_runs_append_only_delete BEFORE DELETE ON pool_runs
BEGIN SELECT RAISE(ABORT, 'pool runs are append-only'); END;
)sql";

// The workspace's device seconds, over every kernel, when a head was set by an acceptance test:
// the x of the curve of head time against device time (`headway ablate`). NULL for the
// baseline (set before any device time went to rounds) and heads set otherwise.
constexpr std::string_view kV12 = R"sql(
ALTER TABLE heads ADD COLUMN device_seconds REAL;
)sql";

// The memory floor measured beside a kernel timing's readings (knowledge/kernel_timings.h): on a
// host whose bandwidth moves with the hour, the floor of the same minutes. NULL where the floor
// was not measured with it (the kernel's record has the floor then).
constexpr std::string_view kV13 = R"sql(
ALTER TABLE kernel_timings ADD COLUMN floor_ms REAL CHECK (floor_ms IS NULL OR floor_ms > 0);
)sql";

// The decode (instruction) ceiling from the same facts, where the target has one: the other
// ratio a user is shown, of the same minutes. NULL where none was measured with the timing.
constexpr std::string_view kV14 = R"sql(
ALTER TABLE kernel_timings ADD COLUMN decode_floor_ms REAL
  CHECK (decode_floor_ms IS NULL OR decode_floor_ms > 0);
)sql";

// The device model (Target::device_model) chip facts and baseline and head timings were measured
// on, so that a pool of mixed models keeps a set of facts per model and says which model a head's
// figures come from. '' where it was not recorded (before this step, or a target that names no
// model): the workspace's one device.
constexpr std::string_view kV15 = R"sql(
CREATE TABLE facts_by_model(
  name TEXT NOT NULL,
  toolchain TEXT NOT NULL,
  device_model TEXT NOT NULL DEFAULT '',
  value REAL NOT NULL,
  unit TEXT NOT NULL DEFAULT '',
  spread REAL,
  method TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (name, toolchain, device_model)
);
INSERT INTO facts_by_model(name, toolchain, value, unit, spread, method, measured_at)
  SELECT name, toolchain, value, unit, spread, method, measured_at FROM facts;
DROP TABLE facts;
ALTER TABLE facts_by_model RENAME TO facts;
ALTER TABLE kernel_timings ADD COLUMN device_model TEXT NOT NULL DEFAULT '';
)sql";

constexpr std::array<SchemaStep, 15> kSteps = {{
    {1, "kernels, design trees, heads, tests, races and readings", kV1},
    {2, "chip facts and legality rules per toolchain", kV2},
    {3, "baseline and head timings per toolchain", kV3},
    {4, "runs of candidate code without the sandbox", kV4},
    {5, "the headway versions that created and opened the workspace", kV5},
    {6, "static cost against the device: screen calibration", kV6},
    {7, "agent calls and the nodes they proposed", kV7},
    {8, "the readings of baseline and head timings", kV8},
    {9, "the shape set of baseline and head timings", kV9},
    {10, "a head found cheating leaves accepted", kV10},
    {11, "device pools' use over time", kV11},
    {12, "the device time when each head was set", kV12},
    {13, "the memory floor measured beside baseline and head timings", kV13},
    {14, "the decode ceiling measured beside baseline and head timings", kV14},
    {15, "the device model of chip facts and of baseline and head timings", kV15},
}};

static_assert(kApplicationId == 1751414649, "kV1 sets application_id literally");

}  // namespace

std::span<const SchemaStep> schema_steps() { return kSteps; }

int64_t latest_schema_version() { return kSteps.back().version; }

int64_t schema_version(Database& db) { return db.query_int64("PRAGMA user_version"); }

Result<int64_t> upgrade_schema(Database& db, std::span<const SchemaStep> steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].version != static_cast<int64_t>(i) + 1) {
      throw std::logic_error(fmt::format("schema step {} is numbered {}", i + 1, steps[i].version));
    }
  }
  if (db.in_transaction()) throw std::logic_error("upgrade_schema() inside a transaction");
  const int64_t latest = steps.empty() ? 0 : steps.back().version;
  Transaction txn(db);
  const int64_t current = schema_version(db);
  if (current > latest) {
    return database_error(
        fmt::format("database schema version {} is newer than this headway ({})", current, latest));
  }
  if (current == latest) return latest;
  for (const SchemaStep& m : steps.subspan(static_cast<size_t>(current))) {
    try {
      db.exec(m.sql);
    } catch (const StoreError& e) {
      return database_error(fmt::format("the step to schema version {} ({}) failed: {}", m.version,
                                        m.description, e.what()));
    }
  }
  db.exec(fmt::format("PRAGMA user_version = {}", latest));
  txn.commit();
  return latest;
}

}  // namespace headway::store
