#include "pool/worker_pool.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/file_io.h"
#include "pool/worker.h"

namespace headway::pool {

namespace fs = std::filesystem;

struct WorkerPool::Worker {
  std::string name;
  std::string launch_id;
  std::string node;
  std::string state = "submitted";  // WorkerStatus::state
  std::string why;
  std::unique_ptr<LineChannel> channel;
  std::thread thread;
  int64_t jobs = 0;
  double busy_seconds = 0.0;
  double scheduler_seconds = 0.0;                     // as last polled
  std::vector<std::pair<double, double>> busy_spans;  // WorkerStatus::busy_spans
  std::optional<Clock::time_point> connected_at, ended_at;
  bool ended() const { return state == "lost" || state == "done"; }
};

struct WorkerPool::Queued {
  PoolJob job;
  int attempts = 0;
  Clock::time_point queued = Clock::now();
  std::promise<PoolJobResult> promise;
};

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

Clock::duration as_duration(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

WorkerPool::WorkerPool(std::unique_ptr<WorkerLauncher> launcher, WorkerPoolOptions options,
                       std::unique_ptr<Listener> listener, std::string token)
    : launcher_(std::move(launcher)),
      options_(std::move(options)),
      listener_(std::move(listener)),
      token_(std::move(token)),
      replacements_left_(options_.replacements < 0 ? options_.workers : options_.replacements) {}

Result<std::unique_ptr<WorkerPool>> WorkerPool::start(std::unique_ptr<WorkerLauncher> launcher,
                                                      WorkerPoolOptions options) {
  if (options.workers < 1) return invalid_input("a worker pool needs at least one worker");
  if (options.headway_binary.empty()) return invalid_input("no headway binary for the workers");
  if (options.advertise_host.empty()) options.advertise_host = this_host_name();
  auto listener = Listener::open(options.bind_host);
  if (!listener) return listener.error();
  auto token = write_new_token(options.folder / "token");
  if (!token) return token.error();
  std::unique_ptr<WorkerPool> pool(new WorkerPool(std::move(launcher), std::move(options),
                                                  std::move(*listener), std::move(*token)));
  {
    std::lock_guard lock(pool->mutex_);
    for (int i = 0; i < pool->options_.workers; ++i) {
      if (Status launched = pool->launch_one(); !launched) {
        if (i == 0) {
          pool->closing_ = true;
          return launched.error();
        }
        pool->event("could not start another worker: " + launched.error().message);
      }
    }
  }
  pool->acceptor_ = std::thread([p = pool.get()] { p->accept_loop(); });
  pool->monitor_ = std::thread([p = pool.get()] { p->monitor_loop(); });
  return pool;
}

WorkerPool::~WorkerPool() { close(); }

void WorkerPool::close() {
  std::call_once(closed_, [this] { close_once(); });
}

void WorkerPool::close_once() {
  std::vector<std::string> to_cancel;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    for (auto& w : workers_) {
      // A worker in the middle of a job is interrupted: its job fails as the pool's.
      if (w->channel && !w->ended() && w->state == "busy") w->channel->shutdown();
    }
  }
  changed_.notify_all();
  if (acceptor_.joinable()) acceptor_.join();
  if (monitor_.joinable()) monitor_.join();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
  {
    std::lock_guard lock(mutex_);
    for (auto& q : queue_) {
      q->promise.set_exception(std::make_exception_ptr(PoolStopped("the device pool closed")));
    }
    queue_.clear();
    for (auto& w : workers_) {
      if (!w->launch_id.empty()) to_cancel.push_back(w->launch_id);
    }
  }
  // Workers that said goodbye end by themselves; this ends those queued or not yet connected.
  launcher_->stop(to_cancel);
  write_status();
}

void WorkerPool::write_status() const {
  if (options_.status_file.empty()) return;
  try {
    write_file_atomically(options_.status_file, pool_status_json(*this).dump(2) + "\n");
  } catch (const std::exception&) {
    // status is for people watching; the run goes on without it
  }
}

Status WorkerPool::launch_one() {
  auto w = std::make_unique<Worker>();
  w->name = fmt::format("w{}", stats_.workers_started + 1);
  const std::vector<std::string> argv = {options_.headway_binary,
                                         "worker",
                                         "--connect",
                                         fmt::format("{}:{}", options_.advertise_host, port()),
                                         "--token-file",
                                         (options_.folder / "token").string(),
                                         "--lease",
                                         fmt::format("{:g}", options_.lease_seconds),
                                         "--name",
                                         w->name};
  auto id = launcher_->start(argv, w->name);
  if (!id) return id.error();
  w->launch_id = *id;
  ++stats_.workers_started;
  event(fmt::format("{}: submitted ({} job {})", w->name, launcher_->kind(), w->launch_id));
  workers_.push_back(std::move(w));
  return {};
}

void WorkerPool::event(const std::string& line) {
  events_.push_back(fmt::format("{:.1f} s  {}", seconds_between(started_, Clock::now()), line));
}

void WorkerPool::accept_loop() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (closing_) return;
    }
    if (auto channel = listener_->accept(0.25)) admit(std::move(channel));
  }
}

void WorkerPool::admit(std::unique_ptr<LineChannel> channel) {
  const auto hello = receive_hello(*channel, token_, kProtocolVersion, "run");
  if (!hello) return;
  const auto refuse = [&](const std::string& why) {
    channel->send({{"type", "refused"}, {"why", why}});
  };
  std::lock_guard lock(mutex_);
  const std::string name = hello->value("name", "");
  auto it = std::find_if(workers_.begin(), workers_.end(),
                         [&](const auto& w) { return w->name == name; });
  if (it == workers_.end() || (*it)->ended() || (*it)->channel || closing_) {
    return refuse("no worker " + name + " is expected");
  }
  Worker& w = **it;
  const std::string slurm_job = hello->value("slurm_job", "");
  if (!slurm_job.empty() && slurm_job != w.launch_id) {
    return refuse(fmt::format("{} is job {}, not {}", name, w.launch_id, slurm_job));
  }
  if (!channel->send({{"type", "welcome"}})) return;
  w.node = hello->value("node", w.node);
  w.state = "running";
  w.connected_at = Clock::now();
  w.channel = std::move(channel);
  event(fmt::format("{}: connected from {} on {}", w.name, w.channel->peer(), w.node));
  w.thread = std::thread([this, &w] { serve(w); });
  changed_.notify_all();
}

void WorkerPool::serve(Worker& w) {
  std::unique_lock lock(mutex_);
  auto last_contact = Clock::now();
  for (;;) {
    changed_.wait_until(lock, last_contact + as_duration(options_.ping_seconds),
                        [&] { return closing_ || w.ended() || !queue_.empty(); });
    if (w.ended()) return;
    if (closing_) {
      w.state = "done";
      w.ended_at = Clock::now();
      lock.unlock();
      w.channel->send({{"type", "bye"}});
      return;
    }
    nlohmann::json reply = nlohmann::json::object();
    if (queue_.empty()) {
      if (Clock::now() < last_contact + as_duration(options_.ping_seconds)) continue;
      lock.unlock();
      const bool answered =
          w.channel->send({{"type", "ping"}}) &&
          w.channel->receive(&reply, options_.ping_seconds) == LineChannel::Received::kMessage &&
          reply.value("type", "") == "pong";
      lock.lock();
      if (!answered) return lose(w, "did not answer a ping");
      last_contact = Clock::now();
      continue;
    }
    std::shared_ptr<Queued> q = queue_.front();
    queue_.pop_front();
    ++q->attempts;
    const int64_t id = ++next_job_id_;
    w.state = "busy";
    lock.unlock();
    const auto sent = Clock::now();
    const bool delivered =
        w.channel->send({{"type", "job"}, {"id", id}, {"job", job_to_json(q->job)}});
    const auto got =
        delivered ? w.channel->receive(&reply, q->job.timeout_seconds + options_.job_grace_seconds)
                  : LineChannel::Received::kClosed;
    const auto returned = Clock::now();
    lock.lock();
    if (!w.ended()) w.state = "running";
    const bool answered = got == LineChannel::Received::kMessage &&
                          reply.value("type", "") == "result" && reply.value("id", -1) == id;
    auto process = answered && reply.contains("process")
                       ? process_result_from_json(reply["process"])
                       : Result<ProcessResult>(invalid_input(reply.value("error", "no result")));
    if (!answered) {  // a result that arrived counts, even from a worker lost meanwhile
      const std::string why = got == LineChannel::Received::kTimeout
                                  ? fmt::format("no result within {:g} s of its job's limit",
                                                options_.job_grace_seconds)
                                  : "its connection closed during a job";
      if (closing_) {
        q->promise.set_exception(std::make_exception_ptr(PoolStopped("the device pool closed")));
      } else if (q->attempts >= options_.job_attempts) {
        q->promise.set_exception(std::make_exception_ptr(
            PoolStopped(fmt::format("job '{}' was lost with its worker {} times; the last: {} {}",
                                    q->job.label, q->attempts, w.name, why))));
      } else {
        ++stats_.retried;
        queue_.push_front(q);
        event(fmt::format("{}: job '{}' goes back to the queue (run {} of {})", w.name,
                          q->job.label, q->attempts, options_.job_attempts));
      }
      return lose(w, why);
    }
    if (!process) {  // the worker could not read the job: a bug of the run, not of a device
      q->promise.set_exception(std::make_exception_ptr(std::runtime_error(
          fmt::format("worker {} refused a job: {}", w.name, process.error().message))));
      continue;
    }
    PoolJobResult result;
    result.process = std::move(*process);
    result.worker = fmt::format("{} on {}", w.name, w.node);
    result.attempts = q->attempts;
    result.queued_seconds = seconds_between(q->queued, sent);
    result.run_seconds = reply.value("seconds", 0.0);
    result.transfer_seconds = std::max(0.0, seconds_between(sent, returned) - result.run_seconds);
    ++w.jobs;
    w.busy_seconds += seconds_between(sent, returned);
    const double from = seconds_between(started_, sent), to = seconds_between(started_, returned);
    if (!w.busy_spans.empty() && from - w.busy_spans.back().second < 1e-3) {
      w.busy_spans.back().second = to;
    } else {
      w.busy_spans.emplace_back(from, to);
    }
    ++stats_.jobs;
    stats_.busy_seconds += seconds_between(sent, returned);
    stats_.transfer_seconds += result.transfer_seconds;
    last_contact = returned;
    q->promise.set_value(std::move(result));
  }
}

void WorkerPool::lose(Worker& w, const std::string& why) {
  if (w.ended()) return;
  w.state = "lost";
  w.why = why;
  w.ended_at = Clock::now();
  ++stats_.workers_lost;
  if (w.channel) w.channel->shutdown();
  event(fmt::format("{}: lost ({})", w.name, why));
  launcher_->stop({w.launch_id});
  if (!closing_ && replacements_left_ > 0) {
    --replacements_left_;
    if (Status launched = launch_one(); launched) {
      event(fmt::format("{} replaces {} ({} replacements left)", workers_.back()->name, w.name,
                        replacements_left_));
    } else {
      event("could not start a replacement: " + launched.error().message);
    }
  }
  stop_if_hopeless();
  changed_.notify_all();
}

void WorkerPool::stop_if_hopeless() {
  const bool any =
      std::any_of(workers_.begin(), workers_.end(), [](const auto& w) { return !w->ended(); });
  if (any || !stopped_.empty()) return;
  stopped_ =
      fmt::format("every worker of the {} pool was lost and no replacement is left ({} lost)",
                  launcher_->kind(), stats_.workers_lost);
  event(stopped_);
  for (auto& q : queue_) q->promise.set_exception(std::make_exception_ptr(PoolStopped(stopped_)));
  queue_.clear();
}

void WorkerPool::monitor_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (changed_.wait_for(lock, as_duration(options_.poll_seconds), [&] { return closing_; })) {
      return;
    }
    std::vector<std::string> ids;
    for (const auto& w : workers_) {
      if (!w->ended()) ids.push_back(w->launch_id);
    }
    lock.unlock();
    auto known = launcher_->poll(ids);
    write_status();
    lock.lock();
    if (!known || closing_) continue;  // the scheduler did not answer: conclude nothing
    for (size_t i = 0; i < workers_.size(); ++i) {
      Worker& w = *workers_[i];
      if (w.ended() || std::find(ids.begin(), ids.end(), w.launch_id) == ids.end()) continue;
      auto it = known->find(w.launch_id);
      if (it == known->end()) {
        lose(w, w.channel ? "the scheduler ended its job"
                          : "its job left the scheduler before it connected");
        continue;
      }
      if (!it->second.node.empty()) w.node = it->second.node;
      if (it->second.elapsed_seconds) w.scheduler_seconds = *it->second.elapsed_seconds;
      if (!w.channel) w.state = it->second.state == "PENDING" ? "pending" : "starting";
    }
  }
}

PoolJobResult WorkerPool::run(const PoolJob& job) {
  auto q = std::make_shared<Queued>();
  q->job = job;
  std::future<PoolJobResult> result = q->promise.get_future();
  {
    std::lock_guard lock(mutex_);
    if (!stopped_.empty()) throw PoolStopped(stopped_);
    if (closing_) throw PoolStopped("the device pool closed");
    queue_.push_back(std::move(q));
  }
  changed_.notify_all();
  return result.get();
}

bool WorkerPool::wait_for_workers(int count, double timeout_seconds) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, as_duration(timeout_seconds), [&] {
    return std::count_if(workers_.begin(), workers_.end(),
                         [](const auto& w) { return w->channel && !w->ended(); }) >= count;
  });
}

std::vector<WorkerStatus> WorkerPool::workers() const {
  std::lock_guard lock(mutex_);
  std::vector<WorkerStatus> out;
  const auto now = Clock::now();
  for (const auto& w : workers_) {
    WorkerStatus s;
    s.name = w->name;
    s.launch_id = w->launch_id;
    s.node = w->node;
    s.state = w->state == "busy" ? "running" : w->state;
    s.why = w->why;
    s.jobs = w->jobs;
    s.busy_seconds = w->busy_seconds;
    s.scheduler_seconds = w->scheduler_seconds;
    s.busy_spans = w->busy_spans;
    if (w->connected_at) s.connected_at = seconds_between(started_, *w->connected_at);
    if (w->ended_at) s.ended_at = seconds_between(started_, *w->ended_at);
    if (w->connected_at)
      s.held_seconds = seconds_between(*w->connected_at, w->ended_at.value_or(now));
    out.push_back(s);
  }
  return out;
}

PoolStats WorkerPool::stats() const {
  PoolStats s;
  {
    std::lock_guard lock(mutex_);
    s = stats_;
    s.queued = static_cast<int64_t>(queue_.size());
    s.running = std::count_if(workers_.begin(), workers_.end(),
                              [](const auto& w) { return w->state == "busy"; });
    s.elapsed_seconds = seconds_between(started_, Clock::now());
  }
  s.device_seconds = 0.0;
  for (const auto& w : workers()) {
    s.device_seconds += w.held_seconds;
    s.scheduler_seconds += w.scheduler_seconds;
  }
  return s;
}

std::vector<std::string> WorkerPool::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

}  // namespace headway::pool
