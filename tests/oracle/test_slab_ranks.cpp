// The split prefilter and evaluation as ranks run them (slab_ranks.hpp), one thread per
// rank through ThreadSlabGroup, 1 to 8 ranks: every case of slab_conformance.hpp (D =
// 1..4, every mode, axis 0 one plane per rank up to 40 planes, unequal slabs) against the
// oracle's whole-field prefilter and evaluation. The same check runs over MPI processes
// in tools/slab_mpi.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "splinebench/slab_comm.hpp"
#include "splinebench/slab_conformance.hpp"

namespace {

using namespace splinebench::slab;

template <typename Body>
void on_ranks(int ranks, Body body) {
  run_thread_ranks(ranks, body);
}

class SlabRanks : public ::testing::TestWithParam<int> {};

TEST_P(SlabRanks, EveryCaseMatchesTheOracle) {
  const int ranks = GetParam();
  const std::vector<SlabCheckCase> cases = slab_check_cases(ranks);
  std::vector<SlabCheckResult> results(cases.size());
  std::vector<std::vector<std::int64_t>> starts(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) starts[i] = random_starts(cases[i].extents[0], ranks, 77 + i);
  on_ranks(ranks, [&](SlabComm& comm) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const SlabCheckResult r = check_slab_case(comm, cases[i], starts[i], 1234 + i);
      if (comm.rank() == 0) results[i] = r;
    }
  });
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string name(splinebench::to_string(cases[i].mode));
    for (auto e : cases[i].extents) (name += ' ') += std::to_string(e);
    name += " | starts";
    for (auto s : starts[i]) (name += ' ') += std::to_string(s);
    const SlabCheckResult& r = results[i];
    EXPECT_LT(r.prefilter_rel_l2_f64, 1e-13) << name;
    EXPECT_LE(r.prefilter_rel_l2_f32, r.prefilter_f32_bound) << name;
    EXPECT_LT(r.interp_max_rel_f64, 1e-13) << name;
    EXPECT_TRUE(r.nan_ok) << name;
    EXPECT_TRUE(r.pass()) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(OneToEight, SlabRanks, ::testing::Range(1, 9),
                         [](const ::testing::TestParamInfo<int>& info) { return std::to_string(info.param) + "_ranks"; });

TEST(SlabRanksArguments, BalancedStartsCoverTheLineEvenly) {
  EXPECT_EQ(balanced_starts(10, 3), (std::vector<std::int64_t>{0, 4, 7}));
  EXPECT_EQ(balanced_starts(8, 8), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_THROW(balanced_starts(3, 4), std::invalid_argument);
  EXPECT_THROW(balanced_starts(3, 0), std::invalid_argument);
}

TEST(SlabRanksArguments, ARankThatFailsDoesNotLeaveTheOthersWaiting) {
  // Rank 1 throws before the sum and before its message; ranks 0 and 2 would wait for
  // ever. Its own error comes back, not the others' PeerRankFailed.
  EXPECT_THROW(on_ranks(3,
                        [](SlabComm& comm) {
                          if (comm.rank() == 1) throw std::domain_error("rank 1 failed");
                          double v = 1;
                          if (comm.rank() == 0) recv_values(comm, 1, 5, &v, 1);
                          comm.allreduce_sum(&v, 1);
                        }),
               std::domain_error);
}

TEST(SlabRanksArguments, AMismatchedMessageIsAnError) {
  EXPECT_THROW(on_ranks(2,
                        [](SlabComm& comm) {
                          double one = 1;
                          float three[3] = {0, 0, 0};  // 12 bytes expected, 8 sent
                          if (comm.rank() == 0) send_values(comm, 1, 9, &one, 1);
                          else recv_values(comm, 0, 9, three, 3);
                        }),
               std::logic_error);
}

}  // namespace
