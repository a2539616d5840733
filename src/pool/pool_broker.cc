#include "pool/pool_broker.h"

#include <fmt/format.h>

#include <algorithm>

namespace headway::pool {

namespace fs = std::filesystem;

struct PoolBroker::Waiting {
  int64_t id = 0;
  PoolJob job;
};

struct PoolBroker::Client {
  std::string name;
  std::unique_ptr<LineChannel> channel;
  std::mutex send_mutex;  // results come from several dispatchers
  std::deque<std::shared_ptr<Waiting>> queue;
  std::thread reader;
  bool gone = false;
  int64_t jobs = 0, running = 0, dropped = 0;
  void send(const nlohmann::json& message) {
    std::lock_guard lock(send_mutex);
    channel->send(message);  // a run that is gone has no use for it
  }
};

PoolBroker::PoolBroker(std::shared_ptr<DevicePool> pool, std::unique_ptr<Listener> listener,
                       std::string token, fs::path token_file)
    : pool_(std::move(pool)),
      listener_(std::move(listener)),
      token_(std::move(token)),
      token_file_(std::move(token_file)) {}

Result<std::unique_ptr<PoolBroker>> PoolBroker::start(std::shared_ptr<DevicePool> pool,
                                                      const fs::path& folder) {
  if (!pool) return invalid_input("a broker needs a pool");
  auto listener = Listener::open("127.0.0.1");
  if (!listener) return listener.error();
  const fs::path token_file = folder / "broker-token";
  auto token = write_new_token(token_file);
  if (!token) return token.error();
  std::unique_ptr<PoolBroker> broker(
      new PoolBroker(std::move(pool), std::move(*listener), std::move(*token), token_file));
  for (int i = 0; i < broker->pool_->devices(); ++i) {
    broker->dispatchers_.emplace_back([b = broker.get()] { b->dispatch_loop(); });
  }
  broker->acceptor_ = std::thread([b = broker.get()] { b->accept_loop(); });
  return broker;
}

PoolBroker::~PoolBroker() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    for (auto& c : clients_) c->channel->shutdown();
  }
  changed_.notify_all();
  if (acceptor_.joinable()) acceptor_.join();
  for (auto& c : clients_) {
    if (c->reader.joinable()) c->reader.join();
  }
  pool_->close();  // the dispatchers waiting on jobs in flight return
  for (auto& d : dispatchers_) d.join();
}

std::string PoolBroker::address() const { return fmt::format("127.0.0.1:{}", listener_->port()); }

void PoolBroker::accept_loop() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (closing_) return;
    }
    if (auto channel = listener_->accept(0.25)) admit(std::move(channel));
  }
}

void PoolBroker::admit(std::unique_ptr<LineChannel> channel) {
  const auto hello = receive_hello(*channel, token_, kBrokerProtocolVersion, "study");
  if (!hello) return;
  auto client = std::make_shared<Client>();
  client->name = hello->value("name", "");
  if (!channel->send({{"type", "welcome"}, {"kind", pool_->kind()}, {"devices", pool_->devices()}}))
    return;
  client->channel = std::move(channel);
  std::lock_guard lock(mutex_);
  if (closing_) return;
  clients_.push_back(client);
  client->reader = std::thread([this, client] { read_loop(client); });
}

void PoolBroker::read_loop(const std::shared_ptr<Client>& client) {
  for (;;) {
    nlohmann::json message;
    const auto got = client->channel->receive(&message, 3600.0);
    if (got == LineChannel::Received::kTimeout) continue;
    if (got == LineChannel::Received::kClosed || message.value("type", "") != "job") break;
    const int64_t id = message.value("id", int64_t{0});
    auto job = job_from_json(message.value("job", nlohmann::json()));
    if (!job) {
      client->send({{"type", "result"}, {"id", id}, {"error", job.error().message}});
      continue;
    }
    auto waiting = std::make_shared<Waiting>();
    waiting->id = id;
    waiting->job = std::move(*job);
    {
      std::lock_guard lock(mutex_);
      client->queue.push_back(std::move(waiting));
    }
    changed_.notify_one();
  }
  // The run ended or was killed: what it queued is dropped, the rest of the study goes on.
  std::lock_guard lock(mutex_);
  client->gone = true;
  client->dropped += static_cast<int64_t>(client->queue.size());
  client->queue.clear();
  client->channel->shutdown();
}

std::pair<std::shared_ptr<PoolBroker::Client>, std::shared_ptr<PoolBroker::Waiting>>
PoolBroker::next_job(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    if (closing_) return {};
    const size_t n = clients_.size();
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (next_client_ + k) % n;
      if (clients_[i]->queue.empty()) continue;
      next_client_ = (i + 1) % n;
      auto job = clients_[i]->queue.front();
      clients_[i]->queue.pop_front();
      return {clients_[i], job};
    }
    changed_.wait(lock);
  }
}

void PoolBroker::dispatch_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto [client, waiting] = next_job(lock);
    if (!waiting) return;
    ++client->running;
    lock.unlock();
    nlohmann::json reply = {{"type", "result"}, {"id", waiting->id}};
    std::string worker;
    try {
      const PoolJobResult result = pool_->run(waiting->job);
      worker = result.worker.substr(0, result.worker.find(" on "));
      reply["result"] = job_result_to_json(result);
    } catch (const PoolStopped& e) {
      reply["stopped"] = e.what();
    } catch (const std::exception& e) {
      reply["error"] = e.what();
    }
    lock.lock();
    --client->running;
    if (!worker.empty()) {
      ++client->jobs;
      runs_by_worker_[worker].insert(client->name);
    }
    lock.unlock();
    client->send(reply);  // after the counts: a run that has its result finds it counted
    lock.lock();
  }
}

nlohmann::json PoolBroker::status_json() const {
  nlohmann::json status = pool_status_json(*pool_);
  std::lock_guard lock(mutex_);
  for (auto& w : status["workers"]) {
    const auto it = runs_by_worker_.find(w["name"].get<std::string>());
    w["runs"] = it == runs_by_worker_.end() ? std::set<std::string>{} : it->second;
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& c : clients_) {
    runs.push_back({{"name", c->name},
                    {"state", c->gone ? "gone" : "connected"},
                    {"jobs", c->jobs},
                    {"queued", c->queue.size()},
                    {"running", c->running},
                    {"dropped", c->dropped}});
  }
  status["runs"] = std::move(runs);
  return status;
}

}  // namespace headway::pool
