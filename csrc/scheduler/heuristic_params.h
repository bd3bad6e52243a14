//! LaunchParams and HeuristicParams: what a scheduler's computeHeuristics decides from the
//! run-time sizes and its schedule() then applies. A scheduler subclasses HeuristicParams
//! (PointwiseParams in scheduler/pointwise.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ir/dtype.h"
#include "ir/iter_domain.h"
#include "scheduler/scheduler_types.h"

namespace mf {

//! ceil(a / b) for a >= 0 and b > 0: the heuristics' counts of blocks, vectors and steps.
inline int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

//! The largest power of two <= n (1 for n <= 1).
inline int64_t lastPow2(int64_t n) {
  int64_t p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

//! The smallest power of two >= n (1 for n <= 1).
inline int64_t ceilPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

//! a rounded up to a multiple of b (a >= 0, b > 0).
inline int64_t roundUp(int64_t a, int64_t b) {
  return ceilDiv(a, b) * b;
}

//! The grid's launch limits on every device since sm_30 (CUDA C++ Programming Guide,
//! "Technical Specifications per Compute Capability"): the schedulers keep gridDim.x and
//! gridDim.y / z within them themselves (a larger count of blocks becomes a serial loop).
constexpr int64_t kMaxGridDimX = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxGridDimYZ = 65535;

//! Grid and block sizes, bound per parallel type (BIDx/y/z, TIDx/y/z). An unbound
//! dimension is left to the executor, which takes it from the parallelized extents.
class LaunchParams {
 public:
  static constexpr int64_t kUnbound = -1;

  LaunchParams() = default;
  //! nvFuser's constructor: grid x, y, z then block x, y, z; kUnbound (-1) leaves one unbound.
  LaunchParams(int64_t gdimx, int64_t gdimy = kUnbound, int64_t gdimz = kUnbound,
               int64_t bdimx = kUnbound, int64_t bdimy = kUnbound, int64_t bdimz = kUnbound);

  //! Binds `p` (a block or thread dimension) to `value` >= 1.
  void bind(int64_t value, ParallelType p);
  void unbind(ParallelType p) { dims_[slot(p)] = kUnbound; }
  bool hasDim(ParallelType p) const { return dims_[slot(p)] != kUnbound; }
  //! The bound size of `p`, or kUnbound.
  int64_t getDim(ParallelType p) const { return dims_[slot(p)]; }
  //! The bound size of `p`, or 1 when unbound (what a launch uses).
  int64_t getDimOrOne(ParallelType p) const { return hasDim(p) ? getDim(p) : 1; }
  int64_t nThreads() const;
  //! nvFuser's accessors: the bound size, 1 when unbound; smem() the dynamic shared bytes.
  int64_t gdimx() const { return getDimOrOne(ParallelType::BIDx); }
  int64_t gdimy() const { return getDimOrOne(ParallelType::BIDy); }
  int64_t gdimz() const { return getDimOrOne(ParallelType::BIDz); }
  int64_t bdimx() const { return getDimOrOne(ParallelType::TIDx); }
  int64_t bdimy() const { return getDimOrOne(ParallelType::TIDy); }
  int64_t bdimz() const { return getDimOrOne(ParallelType::TIDz); }
  int64_t smem() const { return smem_; }
  void setSmem(int64_t bytes) { smem_ = bytes; }

  bool operator==(const LaunchParams& other) const = default;
  //! `LaunchParams(grid = [8, -, -], block = [128, -, -])` (x, y, z); `-` is unbound.
  std::string toString() const;

 private:
  static size_t slot(ParallelType p);
  std::array<int64_t, 6> dims_ = {kUnbound, kUnbound, kUnbound, kUnbound, kUnbound, kUnbound};
  int64_t smem_ = 0;
};

//! The parameters one scheduler computed for one fusion and one set of input sizes.
//! `sameAs` and `hash` cover what changes the generated kernel (the scheduler, the index
//! type, the block sizes, which schedules split by, and each subclass's fields) but not
//! the grid sizes: a runtime whose heuristics are sameAs the new ones is reused with the
//! new grid (nvFuser's kernel reuse).
class HeuristicParams {
 public:
  explicit HeuristicParams(SchedulerType type) : scheduler_type(type) {}
  virtual ~HeuristicParams() = default;

  SchedulerType schedulerType() const { return scheduler_type; }
  //! These parameters as the scheduler's own kind (nvFuser's `params->as<PointwiseParams>()`);
  //! a UserError when they are another scheduler's.
  template <typename T>
  T* as() {
    auto* p = dynamic_cast<T*>(this);
    MF_CHECK(p != nullptr, "HeuristicParams::as: these are {} parameters",
             ::mf::toString(scheduler_type));
    return p;
  }
  template <typename T>
  const T* as() const {
    return const_cast<HeuristicParams*>(this)->as<T>();
  }
  virtual std::string toString() const;
  //! ", min_blocks_per_sm = n" when set, for the schedulers' toString.
  std::string minBlocksString() const;
  virtual size_t hash() const;
  virtual bool sameAs(const HeuristicParams* other) const;
  virtual std::unique_ptr<HeuristicParams> clone() const;
  //! After a caller edited the fields that computeHeuristics chose (nvFuser's tests do:
  //! `pparams->vectorization_factor = 4; scheduler->schedule(fusion, pparams)`), drops from
  //! `lparams` the dimensions those fields no longer determine, so the launch follows the
  //! kernel that the edited parameters schedule. SchedulerEntry::schedule calls it when given
  //! non-const parameters. Nothing by default.
  virtual void followEditedFields() {}

  LaunchParams lparams;
  //! Int32 when every extent and offset of every tensor fits (SchedulerRuntimeInfo).
  DataType index_type = DataType::Int64;
  //! Blocks per SM the kernel's __launch_bounds__ asks ptxas to leave registers for
  //! (CompileOptions::min_blocks_per_sm); unset: ptxas's choice.
  std::optional<int64_t> min_blocks_per_sm = std::nullopt;
  //! The scheduler these are for (nvFuser's field; schedulerType() reads it).
  SchedulerType scheduler_type;

 protected:
  HeuristicParams(const HeuristicParams&) = default;
  HeuristicParams& operator=(const HeuristicParams&) = default;
};

}  // namespace mf
