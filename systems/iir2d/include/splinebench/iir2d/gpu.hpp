// The GPU schemes of the experiment behind one host class (no CUDA in this header, so a
// CPU-only build compiles it and reports the schemes as not built).
//
//   fixed         the seed's fixed allocation: one launch per wavefront step t = i + j
//                 (H + W - 1 launches), one 32-thread block per element of the step,
//                 the window read from global memory every step
//   fixed_graph   the same launches, captured once as a CUDA Graph
//   flex_locks    the seed's flexible allocation (Listing 3): 32-thread blocks claim
//                 image rows with atomicCAS on a lock array and a per-row progress array,
//                 stages of `lock_blocks` rows; the listing's five defects fixed
//   flex_tiles    ours: T x T tiles taken from a ticket counter in wavefront order,
//   flex_tiles16  per-tile-row progress (release/acquire), the tile and its M - 1 halo in
//                 shared memory (T = 32 and T = 16)
//   flex_strips   ours: strips of 32 rows from a ticket counter, one lane per row, a skewed
//                 wavefront along the strip; each row's terms summed a step ahead by four
//                 warps, the rows below the strip fed through per-column carries (strips.cu)
// The list itself is schemes.def: everything here that enumerates schemes derives from it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "splinebench/iir2d/accuracy.hpp"
#include "splinebench/iir2d/filter.hpp"

namespace splinebench::iir2d {

enum class Scheme {
#define SPLINEBENCH_IIR2D_SCHEME(name, ...) name,
#include "splinebench/iir2d/schemes.def"
#undef SPLINEBENCH_IIR2D_SCHEME
};

// How the host runs a scheme; the CUDA dispatch switches on this, not on the scheme.
enum class Launch {
  steps,  // one launch per wavefront step t = i + j
  graph,  // the same launches, captured once as a CUDA Graph
  locks,  // one launch per stage of rows claimed with locks
  tiles,  // one launch, T x T tiles from a ticket counter
  strips, // one launch, strips of 32 rows from a ticket counter
};

// A line of schemes.def.
struct SchemeInfo {
  Scheme scheme;
  const char* name;
  Launch launch;
  int tile;                  // T of a tile scheme, 0 otherwise
  const char* launch_model;  // "per-wavefront launches", "graph", "flexible: locks", ...
  bool deterministic;
  bool any_m;
  const char* shapes;
  Tolerance (*tolerance)(int M, double gain);  // the bound its verdict uses
  // Its summation order on the host (reference.hpp): the scheme's bits, for the tests.
  std::vector<float> (*emulation)(const Shape& shape, const std::vector<float>& x, const Window& window);
};

const std::vector<SchemeInfo>& scheme_registry();  // in schemes.def order
const SchemeInfo& scheme_info(Scheme s);
const std::vector<Scheme>& all_schemes();
std::vector<Scheme> schemes_with(Launch launch);  // in registry order
const char* scheme_name(Scheme s);
std::string scheme_names();  // "fixed, fixed_graph, ...": for messages
Scheme parse_scheme(const std::string& name);  // throws splinebench::Error naming the schemes

// "" when the schemes can run here; otherwise why not ("not built: ...", "no CUDA
// device: ...").
std::string gpu_unavailable_reason();

// The seed's Listing 3 defects, each restorable for the tests that show it is caught.
enum LockDefect : unsigned {
  kDefectProgressIndex = 1u << 0,  // (i)   publishes progress to its own row, not the row it computed
  kDefectOutOfBounds = 1u << 1,    // (ii)  reads progress[row - 1] before testing row > first
  kDefectNoOrdering = 1u << 2,     // (iii) relaxed progress and locks: no release/acquire
  kDefectStaleRow = 1u << 3,       // (iv)  keeps the element index across a failed CAS, no re-read
  kDefectNoBoundary = 1u << 4,     // (v)   flat indices without 2-D bounds (wraps at the left edge)
};

// Test-only controls. Production runs pass none.
struct TestHooks {
  unsigned lock_defects = 0;      // LockDefect bits (flex_locks only)
  bool instrument = false;        // count writes per element and out-of-array progress reads
  bool stalls = false;            // random pauses (up to 200 us) before tickets, claims and publishing
                                  // (flex_strips: before tickets and every 32nd progress release)
  std::uint64_t stall_seed = 1;
  std::vector<std::int64_t> tile_order;  // flex_tiles*: ticket -> tile (row-major tile index);
                                         // must be a topological order; empty: wavefront order
  bool reverse_blocks = false;    // flex_locks: block b owns the row (stage end - 1 - b)
  double watchdog_s = 20.0;       // a block still running this long after its start gives up and
                                  // flags; every block polls it each round, computing or waiting
};

struct Diagnostics {
  std::vector<std::uint32_t> write_counts;  // per element (instrumented runs only)
  std::uint64_t out_of_array_reads = 0;     // progress reads before the array (instrumented)
  bool watchdog_fired = false;              // some block gave up waiting
};

class GpuFilter {
 public:
  // Validates, allocates x, y and the schemes' state on the device. Throws
  // splinebench::Unsupported when the device lacks memory or the schemes are not built.
  GpuFilter(const Shape& shape, const Window& window);
  ~GpuFilter();
  GpuFilter(const GpuFilter&) = delete;
  GpuFilter& operator=(const GpuFilter&) = delete;

  void upload(const float* x);
  void poison_output();  // y = NaN everywhere (0xFF bytes)
  // Runs the scheme once; returns its GPU time in seconds (CUDA events around the
  // scheme's launches, its state reset included; a graph's capture and instantiation,
  // done on first use, excluded).
  double run(Scheme scheme, const TestHooks* hooks = nullptr);
  void download(float* y) const;
  Diagnostics diagnostics() const;  // of the last run

  // H + W - 1 launches of an empty 32-thread kernel with the fixed scheme's grid sizes,
  // as launches or as one graph: the floor of the fixed scheme.
  double empty_chain(bool graph);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The seed's hazard shown: rows pinned to blocks (no claiming), more blocks than can be
// co-resident, rows handed out in reverse launch order. A host timeout raises a device
// abort flag, so the demonstration ends either way.
struct DeadlockDemo {
  std::int64_t blocks = 0;          // launched
  std::int64_t resident_capacity = 0;  // blocks that fit at once (occupancy x SMs)
  std::int64_t gave_up = 0;         // blocks that left on the abort flag
  bool deadlocked = false;          // the host timeout was reached
  double seconds = 0;
};
DeadlockDemo run_deadlock_demo(double timeout_s);

}  // namespace splinebench::iir2d
