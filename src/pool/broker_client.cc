#include "pool/broker_client.h"

#include <fmt/format.h>

#include "common/file_io.h"
#include "pool/pool_broker.h"

namespace headway::pool {

namespace {

double span_seconds(std::chrono::steady_clock::time_point a,
                    std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

Result<std::unique_ptr<BrokerClient>> BrokerClient::connect(BrokerClientOptions options) {
  const size_t colon = options.address.rfind(':');
  int port = 0;
  try {
    port = colon == std::string::npos ? 0 : std::stoi(options.address.substr(colon + 1));
  } catch (const std::exception&) {
    port = 0;
  }
  if (port <= 0 || port > 65535)
    return invalid_input(fmt::format("not a broker's HOST:PORT: '{}'", options.address));
  auto channel =
      LineChannel::connect(options.address.substr(0, colon), port, options.connect_timeout_seconds);
  if (!channel) return channel.error();
  nlohmann::json reply;
  if (!(*channel)->send({{"type", "hello"},
                         {"token", options.token},
                         {"name", options.name},
                         {"protocol", kBrokerProtocolVersion}}) ||
      (*channel)->receive(&reply, options.connect_timeout_seconds) !=
          LineChannel::Received::kMessage) {
    return environment_error(fmt::format("the study's pool at {} did not answer", options.address));
  }
  if (reply.value("type", "") != "welcome") {
    return environment_error(fmt::format("the study's pool at {} refused this run: {}",
                                         options.address, reply.value("why", "no reason given")));
  }
  std::unique_ptr<BrokerClient> client(new BrokerClient(std::move(options), std::move(*channel),
                                                        reply.value("kind", ""),
                                                        std::max(1, reply.value("devices", 1))));
  client->reader_ = std::thread([c = client.get()] { c->read_loop(); });
  return client;
}

BrokerClient::BrokerClient(BrokerClientOptions options, std::unique_ptr<LineChannel> channel,
                           std::string study_kind, int devices)
    : options_(std::move(options)),
      channel_(std::move(channel)),
      study_kind_(std::move(study_kind)),
      devices_(devices) {
  events_.push_back(fmt::format("0.0 s  {}: the study's {} pool of {} devices at {}", options_.name,
                                study_kind_, devices_, options_.address));
}

BrokerClient::~BrokerClient() { close(); }

void BrokerClient::close() {
  std::call_once(closed_, [this] {
    channel_->shutdown();
    if (reader_.joinable()) reader_.join();
    write_status(true);
  });
}

void BrokerClient::stop(const std::string& why) {
  if (!stopped_.empty()) return;
  stopped_ = why;
  events_.push_back(fmt::format("{:.1f} s  {}", span_seconds(started_, Clock::now()), stopped_));
  for (auto& [id, promise] : waiting_)
    promise.set_exception(std::make_exception_ptr(PoolStopped(stopped_)));
  waiting_.clear();
  for (auto& [name, w] : workers_) {
    w.state = "done";
    w.ended_at = span_seconds(started_, Clock::now());
  }
}

void BrokerClient::read_loop() {
  for (;;) {
    nlohmann::json message;
    const auto got = channel_->receive(&message, 3600.0);
    if (got == LineChannel::Received::kTimeout) continue;
    std::unique_lock lock(mutex_);
    if (got == LineChannel::Received::kClosed) {
      return stop(fmt::format("the study's device pool at {} closed", options_.address));
    }
    const auto it = waiting_.find(message.value("id", int64_t{-1}));
    if (message.value("type", "") != "result" || it == waiting_.end()) continue;
    std::promise<PoolJobResult> promise = std::move(it->second);
    waiting_.erase(it);
    if (message.contains("stopped")) {
      const std::string why = message["stopped"].get<std::string>();
      lock.unlock();
      promise.set_exception(std::make_exception_ptr(PoolStopped(why)));
      continue;
    }
    auto result = message.contains("result")
                      ? job_result_from_json(message["result"])
                      : Result<PoolJobResult>(invalid_input(message.value("error", "no result")));
    if (!result) {
      lock.unlock();
      promise.set_exception(std::make_exception_ptr(std::runtime_error(
          "the study's device pool could not run a job: " + result.error().message)));
      continue;
    }
    // The worker's use by this run: its jobs' round trips, ending now.
    const double to = span_seconds(started_, Clock::now());
    const double took = result->run_seconds + result->transfer_seconds;
    const size_t on = result->worker.find(" on ");
    WorkerStatus& w = workers_[result->worker.substr(0, on)];
    if (w.name.empty()) {
      w.name = result->worker.substr(0, on);
      w.state = "running";
      w.connected_at = std::max(0.0, to - took);
    }
    if (on != std::string::npos) w.node = result->worker.substr(on + 4);
    ++w.jobs;
    w.busy_seconds += took;
    w.held_seconds = w.busy_seconds;
    const double after = w.busy_spans.empty() ? w.connected_at : w.busy_spans.back().second;
    w.busy_spans.emplace_back(std::max(after, to - took), to);
    ++stats_.jobs;
    stats_.retried += result->attempts - 1;
    stats_.busy_seconds += took;
    stats_.device_seconds += took;
    stats_.transfer_seconds += result->transfer_seconds;
    lock.unlock();
    promise.set_value(std::move(*result));
    write_status(false);
  }
}

PoolJobResult BrokerClient::run(const PoolJob& job) {
  std::future<PoolJobResult> result;
  int64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    if (!stopped_.empty()) throw PoolStopped(stopped_);
    id = ++next_id_;
    result = waiting_[id].get_future();
  }
  bool sent = false;
  {
    std::lock_guard lock(send_mutex_);
    sent = channel_->send({{"type", "job"}, {"id", id}, {"job", job_to_json(job)}});
  }
  if (!sent) {
    std::lock_guard lock(mutex_);
    stop(fmt::format("the study's device pool at {} closed", options_.address));
  }
  return result.get();
}

std::vector<WorkerStatus> BrokerClient::workers() const {
  std::lock_guard lock(mutex_);
  std::vector<WorkerStatus> out;
  for (const auto& [name, w] : workers_) out.push_back(w);
  return out;
}

PoolStats BrokerClient::stats() const {
  std::lock_guard lock(mutex_);
  PoolStats s = stats_;
  s.running = static_cast<int64_t>(waiting_.size());
  s.elapsed_seconds = span_seconds(started_, Clock::now());
  return s;
}

std::vector<std::string> BrokerClient::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

void BrokerClient::write_status(bool now) {
  if (options_.status_file.empty()) return;
  {
    std::lock_guard lock(mutex_);
    if (!now && Clock::now() - status_written_ < std::chrono::seconds(1)) return;
    status_written_ = Clock::now();
  }
  try {
    write_file_atomically(options_.status_file, pool_status_json(*this).dump(2) + "\n");
  } catch (const std::exception&) {
    // status is for people watching; the run goes on without it
  }
}

}  // namespace headway::pool
