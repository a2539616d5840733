#include "peers/peer_libraries.h"

#include <cblas.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <thread>
#include <unordered_map>
#include <utility>

#include "common/rng.h"
#include "common/shared_memory.h"
#include "headway/headway_kernel.h"
#include "kernels/numerics.h"

namespace headway::peers {

namespace {

// Storage for one peer's elements (bf16 or f32), filled once: on 2 MiB pages where headway's
// input sets are (SharedMemory::Pages::kHugeWherePossible), so that peers and heads stream their
// weights through the same kind of pages.
struct PeerBuffer {
  std::unique_ptr<SharedMemory> memory;
  std::byte* data = nullptr;
  uint64_t bytes = 0;

  static Result<PeerBuffer> allocate(uint64_t bytes) {
    PeerBuffer b;
    try {
      b.memory = std::make_unique<SharedMemory>("headway-peer", bytes,
                                                SharedMemory::Pages::kHugeWherePossible);
    } catch (const std::runtime_error& e) {
      return environment_error(
          fmt::format("cannot allocate {} MiB for a peer's copies: {}", bytes >> 20, e.what()));
    }
    b.data = b.memory->data();
    b.bytes = bytes;
    return b;
  }
};

// Uniform values in [-1, 1) in the peer's format; fast enough for gigabytes.
void fill_random(PeerLibrary peer, std::byte* out, uint64_t elements, uint64_t seed) {
  Rng rng(seed);
  const bool bf16_format = peer_element_bytes(peer) == kBf16Bytes;
  for (uint64_t i = 0; i < elements; ++i) {
    const uint64_t bits = rng.next_u64();
    const float v = static_cast<float>(static_cast<int64_t>(bits >> 40) - (int64_t{1} << 23)) /
                    static_cast<float>(int64_t{1} << 23);
    if (bf16_format) {
      const bf16 h = float_to_bf16(v);
      std::memcpy(out + i * kBf16Bytes, &h, kBf16Bytes);
    } else {
      std::memcpy(out + i * sizeof(float), &v, sizeof(float));
    }
  }
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Returns once this process's threads have gone idle (its CPU time grows by less than a tenth of
// a 2 ms sleep), at most after 1 s: the libraries' workers spin for a while after a call
// (OpenBLAS's up to 2^28 cycles, GNU OpenMP's GOMP_SPINCOUNT), and on a machine with few cores
// a spinning worker would take a core from whichever arm reads next.
void wait_until_idle() {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  constexpr double kSlice = 0.002;
  while (std::chrono::steady_clock::now() < give_up) {
    const double before = process_cpu_seconds();
    std::this_thread::sleep_for(std::chrono::duration<double>(kSlice));
    if (process_cpu_seconds() - before < kSlice / 10) return;
  }
}

dnnl::memory::data_type onednn_type(PeerLibrary peer) {
  return peer == PeerLibrary::kOnednnBf16 ? dnnl::memory::data_type::bf16
                                          : dnnl::memory::data_type::f32;
}

// oneDNN's name for the best instruction set it uses on this machine.
std::string_view onednn_isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41:
      return "SSE4.1";
    case dnnl::cpu_isa::avx:
      return "AVX";
    case dnnl::cpu_isa::avx2:
      return "AVX2";
    case dnnl::cpu_isa::avx2_vnni:
      return "AVX2 with VNNI";
    case dnnl::cpu_isa::avx512_core:
      return "AVX-512 core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "AVX-512 core with VNNI";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "AVX-512 core with BF16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "AVX-512 core with AMX";
    default:
      return "another";
  }
}

// Why a oneDNN call failed, in words a user can act on where the library has no implementation
// of the product for this CPU (dnnl_unimplemented).
std::string onednn_failure(PeerLibrary peer, const std::exception& e) {
  const auto* error = dynamic_cast<const dnnl::error*>(&e);
  if (error == nullptr || error->status != dnnl_unimplemented)
    return fmt::format("oneDNN: {}", e.what());
  const dnnl_version_t* v = dnnl::version();
  return fmt::format(
      "oneDNN {}.{}.{} has no {} matmul for this CPU (the instruction set it uses here: {})",
      v->major, v->minor, v->patch, peer_format(peer),
      onednn_isa_name(dnnl::get_effective_cpu_isa()));
}

// One product's place in a copy: byte offsets of its weights, x and y.
struct Placement {
  uint64_t weights = 0;
  uint64_t x = 0;
  uint64_t y = 0;
};

// Lays out `products` in one set, each part 64-byte aligned; returns the set's bytes.
uint64_t place_products(PeerLibrary peer, const std::vector<Matvec>& products,
                        std::vector<Placement>& places) {
  const uint64_t e = peer_element_bytes(peer);
  auto up = [](uint64_t n) { return (n + 63) / 64 * 64; };
  uint64_t at = 0;
  for (const auto& p : products) {
    Placement place;
    place.weights = at;
    at += up(p.rows * p.cols * e);
    place.x = at;
    at += up(p.cols * e);
    place.y = at;
    at += up(p.rows * e);
    places.push_back(place);
  }
  return at;
}

// One product through oneDNN: a primitive made once, executed on any copy's memory.
struct OnednnProduct {
  dnnl::matmul primitive;
  dnnl::memory::desc x_md, w_md, y_md;
};

class PeerRunImpl final : public PeerRun {
 public:
  PeerRunImpl(PeerLibrary peer, std::vector<Matvec> products)
      : peer_(peer), products_(std::move(products)) {}

  Status start(uint64_t cold_bytes, uint64_t seed) {
    set_bytes_ = place_products(peer_, products_, places_);
    copies_ = copies_for_cold(set_bytes_, cold_bytes);
    auto buffer = PeerBuffer::allocate(set_bytes_ * copies_);
    if (!buffer) return buffer.error();
    buffer_ = std::move(buffer).value();
    const uint64_t element = peer_element_bytes(peer_);
    for (uint64_t c = 0; c < copies_; ++c) {
      std::byte* set = buffer_.data + c * set_bytes_;
      for (size_t i = 0; i < products_.size(); ++i) {
        const auto& p = products_[i];
        fill_random(peer_, set + places_[i].weights, p.rows * p.cols, mix_seed(seed, 2 * c));
        fill_random(peer_, set + places_[i].x, p.cols, mix_seed(seed, 2 * c + 1));
        std::memset(set + places_[i].y, 0, p.rows * element);
      }
    }
    if (peer_ == PeerLibrary::kOpenblasSgemv) return {};
    try {
      engine_ = dnnl::engine(dnnl::engine::kind::cpu, 0);
      stream_ = dnnl::stream(engine_);
      using tag = dnnl::memory::format_tag;
      for (const auto& p : products_) {
        const auto rows = static_cast<dnnl::memory::dim>(p.rows);
        const auto cols = static_cast<dnnl::memory::dim>(p.cols);
        OnednnProduct op;
        op.x_md = dnnl::memory::desc({1, cols}, onednn_type(peer_), tag::ab);
        op.w_md = dnnl::memory::desc({cols, rows}, onednn_type(peer_), tag::ba);
        op.y_md = dnnl::memory::desc({1, rows}, onednn_type(peer_), tag::ab);
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(op.x_md, op.w_md, op.y_md),
                                              engine_);
        op.primitive = dnnl::matmul(pd);
        onednn_.push_back(std::move(op));
      }
      for (uint64_t c = 0; c < copies_; ++c) {
        std::byte* set = buffer_.data + c * set_bytes_;
        for (size_t i = 0; i < products_.size(); ++i) {
          const auto& op = onednn_[i];
          onednn_args_.push_back(
              {{DNNL_ARG_SRC, dnnl::memory(op.x_md, engine_, set + places_[i].x)},
               {DNNL_ARG_WEIGHTS, dnnl::memory(op.w_md, engine_, set + places_[i].weights)},
               {DNNL_ARG_DST, dnnl::memory(op.y_md, engine_, set + places_[i].y)}});
        }
      }
    } catch (const std::exception& e) {
      return environment_error(onednn_failure(peer_, e));
    }
    return {};
  }

  Result<double> reading() override {
    const uint64_t copy = next_;
    next_ = (next_ + 1) % copies_;
    std::byte* set = buffer_.data + copy * set_bytes_;
    try {
      const auto t0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < products_.size(); ++i) {
        const auto& p = products_[i];
        if (peer_ == PeerLibrary::kOpenblasSgemv) {
          cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<blasint>(p.rows),
                      static_cast<blasint>(p.cols), 1.0f,
                      reinterpret_cast<const float*>(set + places_[i].weights),
                      static_cast<blasint>(p.cols),
                      reinterpret_cast<const float*>(set + places_[i].x), 1, 0.0f,
                      reinterpret_cast<float*>(set + places_[i].y), 1);
        } else {
          onednn_[i].primitive.execute(stream_, onednn_args_[copy * products_.size() + i]);
          stream_.wait();
        }
      }
      const auto t1 = std::chrono::steady_clock::now();
      wait_until_idle();
      return std::chrono::duration<double>(t1 - t0).count();
    } catch (const std::exception& e) {
      return environment_error(onednn_failure(peer_, e));
    }
  }

  PeerLibrary peer() const override { return peer_; }
  uint64_t copies() const override { return copies_; }

  // The first copy's bytes, for peer_matvec.
  std::byte* first_set() { return buffer_.data; }
  const Placement& place(size_t i) const { return places_[i]; }

 private:
  PeerLibrary peer_;
  std::vector<Matvec> products_;
  std::vector<Placement> places_;
  uint64_t set_bytes_ = 0;
  uint64_t copies_ = 0;
  uint64_t next_ = 0;
  PeerBuffer buffer_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::vector<OnednnProduct> onednn_;
  std::vector<std::unordered_map<int, dnnl::memory>> onednn_args_;  // [copy][product]
};

}  // namespace

std::vector<PeerLibrary> all_peer_libraries() {
  return {PeerLibrary::kOnednnBf16, PeerLibrary::kOnednnF32, PeerLibrary::kOpenblasSgemv};
}

std::string_view peer_name(PeerLibrary peer) {
  switch (peer) {
    case PeerLibrary::kOnednnBf16:
      return "onednn-bf16";
    case PeerLibrary::kOnednnF32:
      return "onednn-f32";
    case PeerLibrary::kOpenblasSgemv:
      return "openblas-sgemv";
  }
  return "?";
}

std::optional<std::string> peer_unavailable(PeerLibrary peer) {
  if (peer == PeerLibrary::kOpenblasSgemv) return std::nullopt;
  try {
    const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    using tag = dnnl::memory::format_tag;
    const dnnl::memory::desc x({1, 16}, onednn_type(peer), tag::ab);
    const dnnl::memory::desc w({16, 16}, onednn_type(peer), tag::ba);
    const dnnl::memory::desc y({1, 16}, onednn_type(peer), tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x, w, y), engine);
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented) return onednn_failure(peer, e);
  }
  return std::nullopt;
}

std::string_view peer_format(PeerLibrary peer) {
  return peer == PeerLibrary::kOnednnBf16 ? "bf16" : "f32";
}

uint64_t peer_element_bytes(PeerLibrary peer) {
  return peer == PeerLibrary::kOnednnBf16 ? kBf16Bytes : sizeof(float);
}

Result<std::vector<Matvec>> kernel_matvecs(std::string_view kernel) {
  if (kernel == "qkv") return std::vector<Matvec>{{"q|k|v", HW_QS + 2 * HW_PS, HW_H}};
  if (kernel == "attn_out") return std::vector<Matvec>{{"o", HW_H, HW_QS}};
  if (kernel == "ffn")
    return std::vector<Matvec>{{"gate", HW_L, HW_H}, {"up", HW_L, HW_H}, {"down", HW_H, HW_L}};
  return invalid_input(fmt::format("no peer products for kernel '{}'", kernel));
}

uint64_t peer_bytes(PeerLibrary peer, const std::vector<Matvec>& products) {
  uint64_t elements = 0;
  for (const auto& p : products) elements += p.rows * p.cols + p.cols + p.rows;
  return elements * peer_element_bytes(peer);
}

Result<std::vector<float>> peer_matvec(PeerLibrary peer, const Matvec& product,
                                       std::span<const float> weights, std::span<const float> x) {
  if (product.rows == 0 || product.cols == 0 || weights.size() != product.rows * product.cols ||
      x.size() != product.cols)
    return invalid_input(fmt::format("peer_matvec: {} weights and {} x for a {} x {} product",
                                     weights.size(), x.size(), product.rows, product.cols));
  PeerRunImpl run(peer, {product});
  if (auto started = run.start(0, 1); !started) return started.error();
  std::byte* set = run.first_set();
  const Placement& place = run.place(0);
  auto store = [&](std::span<const float> from, std::byte* to) {
    for (size_t i = 0; i < from.size(); ++i) {
      if (peer_element_bytes(peer) == kBf16Bytes) {
        const bf16 h = float_to_bf16(from[i]);
        std::memcpy(to + i * kBf16Bytes, &h, kBf16Bytes);
      } else {
        std::memcpy(to + i * sizeof(float), &from[i], sizeof(float));
      }
    }
  };
  store(weights, set + place.weights);
  store(x, set + place.x);
  auto seconds = run.reading();  // the first copy: the reading after start
  if (!seconds) return seconds.error();
  std::vector<float> y(product.rows);
  for (size_t i = 0; i < y.size(); ++i) {
    if (peer_element_bytes(peer) == kBf16Bytes) {
      bf16 h = 0;
      std::memcpy(&h, set + place.y + i * kBf16Bytes, kBf16Bytes);
      y[i] = bf16_to_float(h);
    } else {
      std::memcpy(&y[i], set + place.y + i * sizeof(float), sizeof(float));
    }
  }
  return y;
}

uint64_t copies_for_cold(uint64_t set_bytes, uint64_t cold_bytes) {
  if (set_bytes == 0) return 2;
  return std::max<uint64_t>(2, 1 + (cold_bytes + set_bytes - 1) / set_bytes);
}

Result<std::unique_ptr<PeerRun>> PeerRun::start(PeerLibrary peer, std::vector<Matvec> products,
                                                uint64_t cold_bytes, uint64_t seed) {
  if (products.empty()) return invalid_input("a peer run needs at least one product");
  auto run = std::make_unique<PeerRunImpl>(peer, std::move(products));
  if (auto started = run->start(cold_bytes, seed); !started) return started.error();
  return std::unique_ptr<PeerRun>(std::move(run));
}

PeerRuntime peer_runtime() {
  PeerRuntime out;
  const dnnl_version_t* v = dnnl::version();
  out.onednn_version = fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
  switch (v->cpu_runtime) {
    case DNNL_RUNTIME_OMP:
      out.onednn_runtime = "OpenMP";
      break;
    case DNNL_RUNTIME_TBB:
      out.onednn_runtime = "TBB";
      break;
    case DNNL_RUNTIME_THREADPOOL:
      out.onednn_runtime = "threadpool";
      break;
    case DNNL_RUNTIME_SEQ:
      out.onednn_runtime = "sequential";
      break;
    default:
      out.onednn_runtime = fmt::format("runtime {}", v->cpu_runtime);
      break;
  }
  if (v->cpu_runtime == DNNL_RUNTIME_SEQ) {
    out.onednn_threads = 1;
  } else if (v->cpu_runtime == DNNL_RUNTIME_OMP) {
    // The OpenMP runtime libdnnl loaded, asked by name: headway itself does not link one.
    using MaxThreads = int (*)();
    if (auto* f = reinterpret_cast<MaxThreads>(dlsym(RTLD_DEFAULT, "omp_get_max_threads")))
      out.onednn_threads = f();
  }
  out.openblas_config = openblas_get_config();
  out.openblas_core = openblas_get_corename();
  out.openblas_threads = openblas_get_num_threads();
  return out;
}

std::vector<size_t> interleaved_order(size_t arms, int round) {
  std::vector<size_t> order(arms);
  const size_t start = arms == 0 ? 0 : static_cast<size_t>(round) % arms;
  for (size_t k = 0; k < arms; ++k) order[k] = (start + k) % arms;
  return order;
}

Result<std::vector<std::vector<double>>> read_interleaved(const std::vector<InterleavedArm>& arms,
                                                          int readings, int warmup_rounds) {
  std::vector<std::vector<double>> out(arms.size());
  for (int round = 0; round < warmup_rounds + readings; ++round) {
    for (const size_t i : interleaved_order(arms.size(), round)) {
      auto seconds = arms[i].read();
      if (!seconds)
        return Error{seconds.error().code,
                     fmt::format("{}: {}", arms[i].name, seconds.error().message)};
      if (round >= warmup_rounds) out[i].push_back(seconds.value());
    }
  }
  return out;
}

}  // namespace headway::peers
