// Iir2dSanitizer.*: the set compute-sanitizer (memcheck, racecheck, synccheck) runs.
// Small images that still reach every kernel the timed schemes use, once each:
//   fixed steps and the empty chain (launches and graphs), the lock kernel across a stage
//   boundary (more than 512 rows), the tile kernels for T = 16 and 32 with the window in
//   registers (M <= 32) and in shared-memory tables (M > 32), over several tiles so the
//   halo crosses tile borders, the strip kernel over two strips and more (carries,
//   M > 33 reaching two strips up), and the instrumented and stalled paths of the
//   flexible schemes. The deliberately broken lock kernels (EachListingDefectIsCaught) are left
//   out: they exist to misbehave.
// Work: about 3 x 10^4 outputs and 10^7 window terms in all; a plain run takes well
// under a second, so each sanitizer (tens to a few hundred times slower) under a minute.
#include <gtest/gtest.h>

#include "splinebench/iir2d/accuracy.hpp"
#include "splinebench/iir2d/coefficients.hpp"
#include "splinebench/iir2d/gpu.hpp"
#include "splinebench/iir2d/reference.hpp"
#include "gpu_test_support.hpp"

using namespace splinebench::iir2d;
using namespace splinebench::iir2d::testing;

namespace {

// Every scheme on one image: the host emulation's bits, the oracle within the bound,
// every element written, no watchdog.
void check_every_scheme(const Shape& s, const Window& w, std::uint64_t seed) {
  const auto x = noise(s, seed);
  const auto ref = filter_f64(s, x, w);
  GpuFilter f(s, w);
  f.upload(x.data());
  for (Scheme scheme : all_schemes()) {
    SCOPED_TRACE(scheme_name(scheme));
    const auto want = scheme_info(scheme).emulation(s, x, w);
    const Tolerance tol = scheme_info(scheme).tolerance(w.M, w.abs_sum());
    const auto y = filtered(f, s, scheme);
    EXPECT_TRUE(bitwise_equal(y, want));
    const Accuracy a = compare(y, ref);
    EXPECT_EQ(a.unwritten, 0);
    EXPECT_LE(a.max_rel, tol.max_rel) << tol.basis;
    EXPECT_FALSE(f.diagnostics().watchdog_fired);
  }
}

}  // namespace

TEST(Iir2dSanitizer, RegisterWindowOverSeveralTiles) {
  IIR2D_REQUIRE_GPU();
  check_every_scheme({40, 36}, random_window(3, 11, 0.9), 21);  // 2 x 2 tiles of 32, 3 x 3 of 16
}

TEST(Iir2dSanitizer, SharedMemoryWindowBeyondOneTile) {
  IIR2D_REQUIRE_GPU();
  check_every_scheme({40, 36}, gauss_window(33), 22);  // M - 1 = 32: the halo spans whole tiles
}

TEST(Iir2dSanitizer, StripsWithCarriesTwoStripsUp) {
  IIR2D_REQUIRE_GPU();
  check_every_scheme({72, 20}, gauss_window(40), 25);  // three strips; M - 1 = 39 rows of carry
}

TEST(Iir2dSanitizer, LockStagesAndTallImages) {
  IIR2D_REQUIRE_GPU();
  check_every_scheme({520, 3}, random_window(2, 12, 0.9), 23);  // 512 + 8 rows: two lock stages
}

TEST(Iir2dSanitizer, EmptyChainsAsLaunchesAndGraph) {
  IIR2D_REQUIRE_GPU();
  GpuFilter f({20, 30}, gauss_window(3));
  EXPECT_GE(f.empty_chain(false), 0.0);
  EXPECT_GE(f.empty_chain(true), 0.0);
}

TEST(Iir2dSanitizer, InstrumentedStalledFlexibleRuns) {
  IIR2D_REQUIRE_GPU();
  const Shape s{40, 36};
  const Window w = random_window(4, 13, 0.9);
  const auto x = noise(s, 24);
  GpuFilter f(s, w);
  f.upload(x.data());
  std::vector<Scheme> flexible = schemes_with(Launch::locks);
  for (Scheme t : schemes_with(Launch::tiles)) flexible.push_back(t);
  for (Scheme t : schemes_with(Launch::strips)) flexible.push_back(t);
  for (Scheme scheme : flexible) {
    SCOPED_TRACE(scheme_name(scheme));
    const auto want = scheme_info(scheme).emulation(s, x, w);
    TestHooks h;
    h.instrument = true;
    h.stalls = true;
    h.stall_seed = 5;
    h.reverse_blocks = scheme_info(scheme).launch == Launch::locks;
    const auto y = filtered(f, s, scheme, &h);
    const Diagnostics d = f.diagnostics();
    EXPECT_TRUE(bitwise_equal(y, want));
    EXPECT_EQ(not_written_once(d), 0u);
    EXPECT_EQ(d.out_of_array_reads, 0u);
    EXPECT_FALSE(d.watchdog_fired);
  }
}
